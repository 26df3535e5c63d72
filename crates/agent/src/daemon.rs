//! `rtac daemon [--cgroup PATH] --controller NAME`: controls every TCP
//! receive socket of a cgroup (default: the root, the whole machine) until
//! stopped, including the sockets already open when it starts; `rtac
//! daemon --status` lists what running daemons control.

use crate::supervise::{BpfSession, Scope};
use clap::Args;
use rtac_live::bpf::engine::Engine;
use rtac_live::config::AgentConfig;
use rtac_live::error::AgentError;
use rtac_live::log::LogSink;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Where running daemons write their status, one file per process.
pub const STATUS_DIR: &str = "/run/rtac";

/// Arguments of `rtac daemon`.
#[derive(Args, Debug, Clone)]
pub struct DaemonArgs {
    /// The controller: none, static, autotuning, drwa, rtac or drw,
    /// optionally with parameters after a colon (rtac:bdp=84).
    #[arg(long, short = 'c', value_name = "NAME", required_unless_present = "status")]
    pub controller: Option<String>,

    /// A controller parameter, such as bdp=20; repeatable.
    #[arg(long = "param", short = 'p', value_name = "KEY=VALUE")]
    pub params: Vec<String>,

    /// The cgroup v2 directory whose sockets are controlled (with its
    /// descendants); default: the cgroup v2 root, every socket.
    #[arg(long, value_name = "PATH")]
    pub cgroup: Option<PathBuf>,

    /// Per-step log, in `rtac run`'s format (CSV, or JSON lines for .jsonl).
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// Also bound the congestion window of this machine's bulk senders
    /// (uploads) with the same controller, driven by the sender's RTT
    /// (TCP_BPF_SNDCWND_CLAMP): upstream bufferbloat.
    #[arg(long)]
    pub uplink: bool,

    /// List the connections running daemons control, then exit.
    #[arg(long)]
    pub status: bool,
}

fn status_path(pid: u32) -> PathBuf {
    Path::new(STATUS_DIR).join(format!("daemon-{pid}.status"))
}

/// The status table: one line per controlled connection.
pub fn status_table(engine: &Engine, cgroup: &Path) -> String {
    let mut s = format!("rtac daemon pid {} on cgroup {}\n", std::process::id(), cgroup.display());
    let _ = writeln!(
        s,
        "{:>5} {:<40} {:>8} {:>8} {:>10} {:>10} {:>12} {}",
        "conn", "peer", "rtt_ms", "min_ms", "window_KB", "rwnd_KB", "read_bytes", "adopted"
    );
    let ms = |d: Option<rtac_core::time::Duration>| d.map_or("-".into(), |d| format!("{:.1}", d.as_millis_f64()));
    let kb = |b: Option<u64>| b.map_or("-".into(), |b| format!("{:.1}", b as f64 / 1024.0));
    for (_, f) in engine.flows() {
        let last = f.last.as_ref();
        let _ = writeln!(
            s,
            "{:>5} {:<40} {:>8} {:>8} {:>10} {:>10} {:>12} {}",
            f.conn,
            f.peer.map_or("-".into(), |p| p.to_string()),
            ms(last.and_then(|l| l.rtt)),
            ms(last.and_then(|l| l.rtt_min)),
            kb(last.and_then(|l| l.window_bytes)),
            kb(last.and_then(|l| l.rwnd)),
            f.bytes,
            if f.adopted { "yes" } else { "no" }
        );
    }
    s
}

/// Prints the status of every running daemon; removes files of dead ones.
fn print_status() -> Result<i32, AgentError> {
    let mut found = 0;
    if let Ok(dir) = std::fs::read_dir(STATUS_DIR) {
        for e in dir.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(pid) = name.strip_prefix("daemon-").and_then(|n| n.strip_suffix(".status")) else { continue };
            if !Path::new("/proc").join(pid).exists() {
                let _ = std::fs::remove_file(e.path());
                continue;
            }
            if let Ok(text) = std::fs::read_to_string(e.path()) {
                print!("{text}");
                found += 1;
            }
        }
    }
    if found == 0 {
        eprintln!("rtac: no rtac daemon is running");
        return Ok(1);
    }
    Ok(0)
}

/// `rtac daemon`: runs until SIGINT, SIGTERM or SIGHUP, then tears down.
pub fn daemon_main(args: DaemonArgs) -> Result<i32, AgentError> {
    if args.status {
        return print_status();
    }
    let name = args.controller.as_deref().ok_or_else(|| AgentError::Usage("--controller is required".into()))?;
    let mut cfg = AgentConfig::new(name, &args.params)?;
    if let Some(log) = &args.log {
        LogSink::create(log, cfg.t0)?;
        cfg.log = Some(log.clone());
    }
    let cgroup = match &args.cgroup {
        Some(c) => c.clone(),
        None => rtac_live::bpf::cgroup2_root()?,
    };
    if !cgroup.join("cgroup.procs").exists() {
        return Err(AgentError::Usage(format!("--cgroup {}: not a cgroup v2 directory", cgroup.display())));
    }
    let mut session = BpfSession::start(&cfg, Scope::Existing(cgroup.clone()), args.uplink)?;
    eprintln!(
        "rtac: daemon controlling TCP receive sockets of cgroup {} with {name}; stop with Ctrl-C or SIGTERM",
        cgroup.display()
    );
    let _ = std::fs::create_dir_all(STATUS_DIR);
    let status = status_path(std::process::id());
    let mut last_write = 0u64;
    let result = session.run_until(None, &mut |engine| {
        let now = rtac_live::sys::now().as_nanos();
        if now - last_write >= 1_000_000_000 {
            last_write = now;
            let _ = std::fs::write(&status, status_table(engine, &cgroup));
        }
    });
    let _ = std::fs::remove_file(&status);
    eprintln!("rtac: {}", session.summary());
    session.stop();
    result
}
