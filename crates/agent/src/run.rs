//! `rtac run [--mode bpf|preload|auto] --controller NAME [--param k=v ...] [--log FILE] -- CMD...`
//!
//! Validates everything first, then starts CMD and waits for it, passing
//! on the signals rtac gets (SIGINT, SIGTERM, SIGHUP) and ending with its
//! exit status:
//! - `bpf`: CMD runs in a fresh cgroup under the sock_ops program
//!   (`rtac_live::bpf`); every TCP socket of CMD and its children is
//!   controlled, whatever the program is made of;
//! - `preload`: CMD's environment carries the configuration and LD_PRELOAD
//!   the shim, which reaches dynamically linked programs reading through libc;
//! - `auto` (default): bpf where it loads, else preload, said on stderr.

use crate::supervise::{self, BpfSession, Child};
use clap::{Args, ValueEnum};
use rtac_live::config::{AgentConfig, ENV_SUMMARY};
use rtac_live::error::AgentError;
use rtac_live::log::LogSink;
use rtac_live::safefs::{self, PrivateDir};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The shim's file name.
pub const PRELOAD_NAME: &str = "librtac_preload.so";
/// An environment variable naming the shim, tried first.
pub const ENV_PRELOAD: &str = "RTAC_PRELOAD";

/// How `rtac run` reaches the program's sockets.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A fresh cgroup under the sock_ops program (root, Linux >= 5.11).
    Bpf,
    /// The LD_PRELOAD shim (dynamically linked programs reading through libc).
    Preload,
    /// bpf where it loads, else preload.
    Auto,
}

/// Arguments of `rtac run`.
// The field docs are the command's --help text, which clap prints verbatim:
// no Markdown escapes in them.
#[allow(rustdoc::broken_intra_doc_links)]
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// How the program's sockets are reached: bpf, preload or auto (bpf
    /// where it loads, else preload).
    #[arg(long, value_enum, default_value = "auto")]
    pub mode: Mode,

    /// The controller for the program's TCP receive sockets: none, static,
    /// autotuning, drwa, rtac or drw, optionally with parameters after a
    /// colon (rtac:bdp=84). rtac's connections through one interface share
    /// one window budget; rtac:budget=connection gives each its own.
    #[arg(long, short = 'c', value_name = "NAME")]
    pub controller: String,

    /// A controller parameter, such as bdp=20 or delta=1ms; repeatable, and
    /// k=v,k=v lists are accepted.
    #[arg(long = "param", short = 'p', value_name = "KEY=VALUE")]
    pub params: Vec<String>,

    /// Write one row per connection and control step (time, RTT estimate,
    /// RTT_min, window estimate, rwnd applied) to FILE: CSV, or JSON lines
    /// if FILE ends in .jsonl. Truncated at start.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// Preload mode: how the window stays in force against receive
    /// auto-tuning: reapply (set TCP_WINDOW_CLAMP at every step) or
    /// lock[:SIZE] (fix SO_RCVBUF, which turns auto-tuning off; default
    /// size 4MB). The bpf mode re-applies it on every outgoing segment.
    #[arg(long, value_name = "MODE", default_value = "reapply")]
    pub clamp: String,

    /// The LD_PRELOAD library; default: $RTAC_PRELOAD, else
    /// librtac_preload.so next to this executable (or in ../lib).
    #[arg(long, value_name = "PATH")]
    pub preload: Option<PathBuf>,

    /// The program and its arguments (after --).
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// Where the shim is looked for, in order.
pub fn preload_candidates(explicit: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = explicit {
        out.push(p.to_path_buf());
        return out;
    }
    if let Some(p) = std::env::var_os(ENV_PRELOAD).filter(|p| !p.is_empty()) {
        out.push(PathBuf::from(p));
        return out;
    }
    if let Some(dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)) {
        out.push(dir.join(PRELOAD_NAME));
        out.push(dir.join("deps").join(PRELOAD_NAME)); // `cargo test` leaves it there
        out.push(dir.join("../lib").join(PRELOAD_NAME));
        out.push(dir.join("../lib/rtac").join(PRELOAD_NAME));
    }
    out
}

/// The shim's absolute path, or an error listing where it was looked for.
pub fn find_preload(explicit: Option<&Path>) -> Result<PathBuf, AgentError> {
    let candidates = preload_candidates(explicit);
    for c in &candidates {
        if c.is_file() {
            return c.canonicalize().map_err(AgentError::io(format!("cannot resolve {}", c.display())));
        }
    }
    let tried = candidates.iter().map(|c| c.display().to_string()).collect::<Vec<_>>().join(", ");
    Err(AgentError::Usage(format!(
        "the LD_PRELOAD library {PRELOAD_NAME} was not found (tried: {tried}); build it with \
         `cargo build --release -p rtac-preload`, or name it with --preload or ${ENV_PRELOAD}"
    )))
}

/// The configuration of a run, with its log created.
pub fn config(args: &RunArgs) -> Result<AgentConfig, AgentError> {
    let mut cfg = AgentConfig::new(&args.controller, &args.params)?;
    cfg.clamp = args.clamp.parse()?;
    if let Some(log) = &args.log {
        let abs = if log.is_absolute() {
            log.clone()
        } else {
            std::env::current_dir().map_err(AgentError::io("cannot read the current directory"))?.join(log)
        };
        LogSink::create(&abs, cfg.t0)?;
        cfg.log = Some(abs);
    }
    Ok(cfg)
}

/// Everything the preload mode checks and prepares before starting the
/// program: the configuration (with the log created) and the command with
/// its environment.
pub fn prepare(args: &RunArgs) -> Result<(AgentConfig, Command), AgentError> {
    let cfg = config(args)?;
    let preload = crate::preload_lib::locate(args.preload.as_deref())?;
    let (program, rest) = args.command.split_first().ok_or_else(|| AgentError::Usage("no command given".into()))?;
    let mut ld = preload.into_os_string();
    if let Some(old) = std::env::var_os("LD_PRELOAD").filter(|o| !o.is_empty()) {
        ld.push(":");
        ld.push(old);
    }
    let mut cmd = Command::new(program);
    cmd.args(rest).envs(cfg.to_env()).env("LD_PRELOAD", ld);
    Ok((cfg, cmd))
}

/// `rtac run`: validates, runs the program to its end, returns its exit
/// status (128 + N if a signal N ended it).
pub fn run_main(args: RunArgs) -> Result<i32, AgentError> {
    let program = args.command.first().ok_or_else(|| AgentError::Usage("no command given".into()))?.clone();
    let linking = supervise::linking(&program);
    match args.mode {
        Mode::Preload => run_preload(&args, linking),
        Mode::Bpf => run_bpf(&args),
        Mode::Auto => match supervise::bpf_available() {
            Ok(()) => {
                eprintln!("rtac: mode bpf (sock_ops program on a cgroup of its own)");
                run_bpf(&args)
            }
            Err(e) => {
                eprintln!("rtac: mode preload (LD_PRELOAD), as BPF cannot be used here: {e}");
                run_preload(&args, linking)
            }
        },
    }
}

fn run_bpf(args: &RunArgs) -> Result<i32, AgentError> {
    let cfg = config(args)?;
    let mut session = BpfSession::start(&cfg, supervise::Scope::NewCgroup, false).map_err(|e| match e {
        AgentError::Usage(m) => AgentError::Usage(format!("{m}; use --mode preload instead")),
        other => other,
    })?;
    let mut cmd = Command::new(&args.command[0]);
    cmd.args(&args.command[1..]);
    let child = match session.spawn(cmd) {
        Ok(c) => c,
        Err(e) => {
            session.stop();
            return Err(AgentError::Exec { program: args.command[0].clone(), err: e });
        }
    };
    let status = session.run_until(Some(&child), &mut |_| {});
    let summary = session.summary();
    session.stop();
    eprintln!("rtac: {summary}");
    status
}

/// The summary file's name in its private directory.
const SUMMARY_NAME: &str = "sockets";
/// At most this much of the summary is read (a line is under 80 bytes).
const SUMMARY_MAX: usize = 4 << 20;

fn run_preload(args: &RunArgs, linking: supervise::Linking) -> Result<i32, AgentError> {
    let (_cfg, mut cmd) = prepare(args)?;
    let program = &args.command[0];
    if linking == supervise::Linking::Static {
        eprintln!(
            "rtac: warning: {program} is statically linked: LD_PRELOAD cannot reach it, so its sockets will not be \
             controlled; use --mode bpf"
        );
    }
    let secure = secure_execution_reason(program);
    if let Some(why) = &secure {
        eprintln!(
            "rtac: warning: {program} {why}: the dynamic loader ignores LD_PRELOAD in setuid, setgid and \
             file-capability programs, so its sockets will not be controlled; use --mode bpf"
        );
    }
    // The shim appends to a file created here, in a fresh 0700 directory:
    // nothing at a predictable path is created, followed or read.
    let base = std::env::temp_dir();
    let mut dir = PrivateDir::create(&base, "rtac-run-")
        .map_err(AgentError::io(format!("cannot make a private directory in {}", base.display())))?;
    let summary = dir.path().join(SUMMARY_NAME);
    dir.create_file(SUMMARY_NAME, 0o600).map_err(AgentError::io(format!("cannot create {}", summary.display())))?;
    cmd.env(ENV_SUMMARY, &summary);
    supervise::install_signal_handlers();
    let child = Child::spawn(cmd).map_err(|err| AgentError::Exec { program: program.clone(), err })?;
    let status = child.wait_forwarding_signals();
    let read = dir.open_read(SUMMARY_NAME).and_then(|mut f| safefs::read_bounded(&mut f, SUMMARY_MAX));
    drop(dir);
    let (bytes, cut) = match read {
        Ok(r) => r,
        Err(e) => {
            eprintln!("rtac: warning: the socket summary {} cannot be read: {e}", summary.display());
            return status;
        }
    };
    let lines = String::from_utf8_lossy(&bytes);
    // A line cut at the bound is not counted.
    let lines: Vec<&str> = lines.split_inclusive('\n').filter(|l| l.ends_with('\n')).collect();
    let sockets = lines.len();
    let pids = lines.iter().filter_map(|l| l.split('\t').next()).collect::<std::collections::BTreeSet<_>>().len();
    let groups = group_counts(&lines);
    let at_least = if cut { "at least " } else { "" };
    if sockets == 0 {
        let why = match &secure {
            Some(why) => format!("{program} {why}, which the dynamic loader runs without LD_PRELOAD"),
            None => "the program read no TCP data through libc (statically linked, raw system calls, io_uring, \
                     or a setuid, setgid or file-capability program, which the loader runs without LD_PRELOAD?)"
                .to_string(),
        };
        eprintln!("rtac: warning: no TCP receive socket was controlled: {why}; --mode bpf reaches every socket");
    } else {
        eprintln!(
            "rtac: preload mode controlled {at_least}{sockets} TCP socket(s) in {at_least}{pids} process(es){groups}"
        );
    }
    status
}

/// The window budgets in the shim's summary lines (`pid fd peer group`):
/// per process and access link, the sockets that shared it.
fn group_counts(lines: &[&str]) -> String {
    let mut by: std::collections::BTreeMap<(&str, &str), usize> = Default::default();
    for l in lines {
        let f: Vec<&str> = l.trim_end_matches('\n').split('\t').collect();
        if let (Some(pid), Some(group)) = (f.first(), f.get(3).filter(|g| !g.is_empty())) {
            *by.entry((pid, group)).or_default() += 1;
        }
    }
    if by.is_empty() {
        return String::new();
    }
    let shown: Vec<String> =
        by.iter().take(20).map(|((pid, g), n)| format!("{g} in pid {pid}: {n} socket(s)")).collect();
    let more = if by.len() > 20 { format!(" and {} more", by.len() - 20) } else { String::new() };
    format!("; window budgets per access link: {}{more}", shown.join(", "))
}

/// Why the kernel would run `program` in secure-execution mode (AT_SECURE),
/// in which the dynamic loader ignores LD_PRELOAD: it is setuid to another
/// user, setgid to another group, or has file capabilities (for a user
/// other than root). `None` when none applies, on a `nosuid` mount, or when
/// the program is not found. Only the program itself is checked, not the
/// programs it runs.
pub fn secure_execution_reason(program: &str) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let path = if program.contains('/') {
        PathBuf::from(program)
    } else {
        let paths = std::env::var_os("PATH")?;
        std::env::split_paths(&paths).map(|d| d.join(program)).find(|c| c.is_file())?
    };
    let meta = std::fs::metadata(&path).ok()?;
    let c = std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str())).ok()?;
    // SAFETY: an all-zero statvfs is valid; statvfs fills it for a NUL-terminated path.
    let mut vfs: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::statvfs(c.as_ptr(), &mut vfs) } == 0 && vfs.f_flag & libc::ST_NOSUID != 0 {
        return None;
    }
    // SAFETY: getuid and getgid cannot fail.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let mode = meta.mode();
    let mut why = Vec::new();
    if mode & libc::S_ISUID != 0 && meta.uid() != uid {
        why.push(format!("is setuid (owner uid {})", meta.uid()));
    }
    if mode & libc::S_ISGID != 0 && mode & libc::S_IXGRP != 0 && meta.gid() != gid {
        why.push(format!("is setgid (group gid {})", meta.gid()));
    }
    // SAFETY: a size query (no buffer) of a NUL-terminated path's attribute.
    let caps = unsafe { libc::getxattr(c.as_ptr(), c"security.capability".as_ptr(), std::ptr::null_mut(), 0) };
    if caps > 0 && uid != 0 {
        why.push("has file capabilities (security.capability)".to_string());
    }
    (!why.is_empty()).then(|| why.join(" and "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        run: RunArgs,
    }

    fn parse(args: &[&str]) -> RunArgs {
        Cli::try_parse_from(std::iter::once("rtac-run").chain(args.iter().copied())).unwrap().run
    }

    #[test]
    fn arguments_after_the_double_dash_are_the_command() {
        let a = parse(&["--controller", "rtac", "-p", "bdp=20", "--", "curl", "-s", "-o", "x", "http://h/"]);
        assert_eq!(a.command, ["curl", "-s", "-o", "x", "http://h/"]);
        assert_eq!(a.params, ["bdp=20"]);
        let a = parse(&["-c", "drwa", "python3", "-c", "print(1)"]);
        assert_eq!(a.command, ["python3", "-c", "print(1)"]);
    }

    #[test]
    fn bad_configuration_is_an_error_before_anything_runs() {
        let dir = std::env::temp_dir().join(format!("rtac-run-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let so = dir.join(PRELOAD_NAME);
        std::fs::write(&so, b"").unwrap();
        let so_s = so.to_str().unwrap();
        for (args, needle) in [
            (vec!["--mode", "preload", "-c", "cubic", "--preload", so_s, "--", "true"], "unknown controller"),
            (vec!["--mode", "preload", "-c", "rtac", "-p", "lambda=3", "--preload", so_s, "--", "true"], "lambda"),
            (vec!["--mode", "preload", "-c", "rtac", "-p", "k=x", "--preload", so_s, "--", "true"], "k="),
            (vec!["--mode", "preload", "-c", "rtac", "--clamp", "sometimes", "--preload", so_s, "--", "true"], "clamp"),
            (
                vec!["--mode", "preload", "-c", "rtac", "--preload", "/nonexistent/librtac_preload.so", "--", "true"],
                "not found",
            ),
        ] {
            let e = run_main(parse(&args)).unwrap_err();
            assert!(e.to_string().contains(needle), "{args:?}: {e}");
            assert_eq!(e.exit_code(), 2);
        }
        let e = run_main(parse(&["--mode", "preload", "-c", "rtac", "--preload", so_s, "--", "/nonexistent/prog"]))
            .unwrap_err();
        assert_eq!(e.exit_code(), 127);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_summary_counts_sockets_per_process_and_access_link() {
        let lines = [
            "10\t3\t10.0.0.1:80\teth0\n",
            "10\t4\t10.0.0.2:80\teth0\n",
            "11\t3\t[::1]:80\tlo\n",
            "12\t3\t1.2.3.4:1\t\n",
        ];
        assert_eq!(
            group_counts(&lines),
            "; window budgets per access link: eth0 in pid 10: 2 socket(s), lo in pid 11: 1 socket(s)"
        );
        // Lines of a shim without the group column.
        assert_eq!(group_counts(&["10\t3\t10.0.0.1:80\n"]), "");
    }

    #[test]
    fn prepare_sets_the_environment_and_creates_the_log() {
        let dir = std::env::temp_dir().join(format!("rtac-run-env-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let so = dir.join(PRELOAD_NAME);
        std::fs::write(&so, b"").unwrap();
        let log = dir.join("steps.csv");
        let a = parse(&[
            "-c",
            "rtac",
            "-p",
            "bdp=20",
            "--log",
            log.to_str().unwrap(),
            "--preload",
            so.to_str().unwrap(),
            "--",
            "env",
        ]);
        let (cfg, cmd) = prepare(&a).unwrap();
        assert_eq!(cfg.log.as_deref(), Some(log.as_path()));
        let envs: Vec<(String, String)> = cmd
            .get_envs()
            .map(|(k, v)| (k.to_string_lossy().into_owned(), v.unwrap().to_string_lossy().into_owned()))
            .collect();
        let get = |k: &str| envs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        assert_eq!(get("RTAC_CONTROLLER").as_deref(), Some("rtac"));
        assert_eq!(get("RTAC_PARAMS").as_deref(), Some("bdp=20"));
        assert!(get("LD_PRELOAD").unwrap().starts_with(so.canonicalize().unwrap().to_str().unwrap()));
        assert!(std::fs::read_to_string(&log).unwrap().starts_with("t_s,pid,fd,"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
