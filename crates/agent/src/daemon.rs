//! `rtac daemon [--cgroup PATH] --controller NAME`: controls every TCP
//! receive socket of a cgroup (default: the root, the whole machine) until
//! stopped, including the sockets already open when it starts; `rtac
//! daemon --status` lists what running daemons control. One daemon per
//! cgroup: a second is refused, naming the first (its lock, in
//! `rtac_live::bpf::instance`). Status files are root's (0600, in a 0700
//! directory), replaced atomically, never through a symbolic link.

use crate::supervise::{BpfSession, Scope};
use clap::Args;
use rtac_live::bpf::engine::Engine;
use rtac_live::bpf::instance;
use rtac_live::config::AgentConfig;
use rtac_live::error::AgentError;
use rtac_live::log::LogSink;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Where running daemons write their status, one file per instance
/// (`daemon-cg<cgroup inode>.status`).
pub const STATUS_DIR: &str = instance::RUN_DIR;

/// The most connections the status table lists (the counts cover all).
pub const STATUS_ROWS: usize = 10_000;

/// Arguments of `rtac daemon`.
#[derive(Args, Debug, Clone)]
pub struct DaemonArgs {
    /// The controller: none, static, autotuning, drwa, rtac or drw,
    /// optionally with parameters after a colon (rtac:bdp=84). rtac's
    /// connections through one interface share one window budget;
    /// rtac:budget=connection gives each its own.
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

    /// List the window budgets (per interface) and the connections running
    /// daemons control, then exit.
    #[arg(long)]
    pub status: bool,

    /// The most sockets tracked at once (default: from fs.file-max, at
    /// most 1048576); beyond it a socket keeps the kernel's own window,
    /// and the count of such sockets is shown by --status.
    #[arg(long, value_name = "N")]
    pub max_sockets: Option<u32>,
}

/// The most groups the status table lists.
pub const STATUS_GROUPS: usize = 1000;

/// The status table: what could not be tracked, the window budgets (one
/// per access link: interface, connections, aggregate window, queueing
/// delay estimate, base RTT), then one line per controlled connection (the
/// first [`STATUS_ROWS`]).
pub fn status_table(engine: &Engine, cgroup: &Path, capacity: u32) -> String {
    let mut s = format!(
        "rtac daemon pid {} on cgroup {}: {} connection(s) tracked, at most {capacity}\n",
        std::process::id(),
        cgroup.display(),
        engine.len()
    );
    let _ = writeln!(s, "{}", engine.counters);
    let ms = |d: Option<rtac_core::time::Duration>| d.map_or("-".into(), |d| format!("{:.1}", d.as_millis_f64()));
    let kb = |b: Option<u64>| b.map_or("-".into(), |b| format!("{:.1}", b as f64 / 1024.0));
    if engine.grouping().per_link() {
        let _ = writeln!(
            s,
            "window budgets per access link:\n{:<28} {:>5} {:>10} {:>9} {:>9} {:>8} {:>7}",
            "group", "conns", "window_KB", "Mbit/s", "queue_ms", "base_ms", "probing"
        );
        let mut groups: Vec<_> = engine.groups().collect();
        groups.sort_by(|a, b| a.label.cmp(b.label));
        for g in groups.iter().take(STATUS_GROUPS) {
            let st = &g.state;
            let _ = writeln!(
                s,
                "{:<28} {:>5} {:>10} {:>9} {:>9} {:>8} {:>7}",
                g.label,
                st.connections,
                kb(st.window),
                st.rate.filter(|r| r.is_finite()).map_or("-".into(), |r| format!("{:.2}", r * 8.0 / 1e6)),
                ms(st.queue_delay),
                ms(st.anchor),
                if st.probing { "yes" } else { "no" }
            );
        }
        if groups.len() > STATUS_GROUPS {
            let _ = writeln!(s, "({} more groups not listed)", groups.len() - STATUS_GROUPS);
        }
        if engine.left_budget > 0 {
            let _ = writeln!(s, "{} connection(s) left their budget for their own controller", engine.left_budget);
        }
    } else {
        let _ = writeln!(s, "window budgets: none, each connection runs its own controller");
    }
    let _ = writeln!(
        s,
        "{:>5} {:<40} {:>8} {:>8} {:>10} {:>10} {:>12} {:<7} group",
        "conn", "peer", "rtt_ms", "min_ms", "window_KB", "rwnd_KB", "read_bytes", "adopted"
    );
    for (_, f) in engine.flows().take(STATUS_ROWS) {
        let last = f.last.as_ref();
        let _ = writeln!(
            s,
            "{:>5} {:<40} {:>8} {:>8} {:>10} {:>10} {:>12} {:<7} {}",
            f.conn,
            f.peer.map_or("-".into(), |p| p.to_string()),
            ms(last.and_then(|l| l.rtt)),
            ms(last.and_then(|l| l.rtt_min)),
            kb(last.and_then(|l| l.window_bytes)),
            kb(last.and_then(|l| l.rwnd)),
            f.bytes,
            if f.adopted { "yes" } else { "no" },
            f.group.as_deref().unwrap_or("-")
        );
    }
    if engine.len() > STATUS_ROWS {
        let _ = writeln!(s, "({} more not listed)", engine.len() - STATUS_ROWS);
    }
    s
}

/// Prints the status of every running daemon; removes files of dead ones
/// (whose lock nobody holds).
fn print_status() -> Result<i32, AgentError> {
    // SAFETY: no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err(AgentError::Usage(format!(
            "rtac daemon --status needs root: the daemons' status files in {STATUS_DIR} are root's"
        )));
    }
    let mut found = 0;
    for file in instance::list_private() {
        let Some(name) = file.strip_suffix(".status").filter(|n| n.starts_with("daemon-")) else { continue };
        match instance::alive(name) {
            Ok(Some(_)) => {}
            Ok(None) => {
                instance::remove_private(&file);
                continue;
            }
            Err(e) => {
                eprintln!("rtac: {e}");
                continue;
            }
        }
        match instance::read_private(&file) {
            Ok(Some(text)) => {
                print!("{text}");
                found += 1;
            }
            Ok(None) => {}
            Err(e) => eprintln!("rtac: {e}"),
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
    let capacity = args.max_sockets.unwrap_or_else(rtac_live::bpf::capacity);
    if capacity == 0 {
        return Err(AgentError::Usage("--max-sockets: at least 1".into()));
    }
    let mut session =
        BpfSession::start_with(&cfg, Scope::Existing(cgroup.clone()), args.uplink, capacity).map_err(|e| match e {
            AgentError::Usage(m) => AgentError::Usage(format!(
                "{m}; rtac daemon works only through BPF (one program can run without it: rtac run --mode preload -- PROGRAM)"
            )),
            other => other,
        })?;
    eprintln!(
        "rtac: daemon controlling TCP receive sockets of cgroup {} with {name} (at most {capacity} at once); stop \
         with Ctrl-C or SIGTERM",
        cgroup.display()
    );
    let status = format!("{}.status", session.name());
    let mut last_write = 0u64;
    let mut said = false;
    let result = session.run_until(None, &mut |engine| {
        let now = rtac_live::sys::now().as_nanos();
        if now - last_write >= 1_000_000_000 {
            last_write = now;
            if let Err(e) = instance::write_private(&status, &status_table(engine, &cgroup, capacity)) {
                if !std::mem::replace(&mut said, true) {
                    eprintln!("rtac: warning: no status for --status: {e}");
                }
            }
        }
    });
    eprintln!("rtac: {}", session.summary());
    session.stop();
    result
}
