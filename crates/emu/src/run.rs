//! `rtac emu`: build the testbed, start one forwarding thread per direction,
//! run the server and client commands, tear everything down, report.

use crate::args::{Config, EmuArgs};
use crate::engine::{DirStats, DirectionSpec, Engine};
use crate::forward::{run_direction, DirIo};
use crate::log::LogWriter;
use crate::sys;
use crate::testbed::{self, RunAs, Side, Testbed, CLIENT_ADDR, SERVER_ADDR};
use crate::EmuError;
use rtac_core::units::clip;
use rtac_core::Instant;
use rtac_live::safefs::{self, FsIdentity, Open};
use serde_json::json;
use std::fs::File;
use std::io::{BufRead, Write};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration as StdDuration;

/// How long a command gets to exit after SIGTERM before SIGKILL.
const GRACE: StdDuration = StdDuration::from_secs(2);

/// Runs `rtac emu`; returns the client command's exit code (128 + signal
/// if a signal ended it).
pub fn emu_main(args: EmuArgs) -> Result<i32, EmuError> {
    if args.cleanup {
        check_privileges()?;
        let removed = testbed::cleanup_stale()?;
        eprintln!("rtac emu: removed {} namespace(s) left by crashed emulators", removed.len());
        for ns in removed {
            eprintln!("  {ns}");
        }
        return Ok(0);
    }
    let cfg = args.config()?;
    check_privileges()?;
    let outputs = open_outputs(&cfg)?;
    sys::install_signal_handlers();
    let result = run(&cfg, outputs);
    sys::restore_signal_handlers();
    result
}

/// Fails with a message naming the capabilities that are missing.
pub fn check_privileges() -> Result<(), EmuError> {
    let caps = sys::effective_caps();
    let needed = [
        (sys::CAP_NET_ADMIN, "CAP_NET_ADMIN (to create veth/TUN devices and set their addresses and offloads)"),
        (sys::CAP_SYS_ADMIN, "CAP_SYS_ADMIN (to create and enter network namespaces)"),
        (sys::CAP_NET_RAW, "CAP_NET_RAW (for the AF_PACKET sockets that forward frames)"),
    ];
    let missing: Vec<&str> = needed.iter().filter(|(c, _)| caps & (1u64 << c) == 0).map(|(_, n)| *n).collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(EmuError::Privileges(format!(
        "rtac emu needs {}; run it as root (e.g. with sudo): commands then run as the invoking user",
        missing.join(", ")
    )))
}

/// The files of `--log DIR` and `--stats FILE`, opened before anything
/// runs so that a bad path fails at once.
#[derive(Default)]
struct Outputs {
    down: Option<File>,
    up: Option<File>,
    server: Option<File>,
    stats: Option<File>,
}

/// Opens `--log DIR`'s files and `--stats FILE`. Under `sudo` they are
/// created with the invoking user's identity (`safefs::FsIdentity`): the
/// kernel checks that user's permissions, and what is created is that
/// user's from the start, so nothing is chowned and a directory that user
/// cannot write (`--log /etc`) is refused. Missing directories of DIR are
/// created; DIR itself and the files are not opened through a symbolic
/// link, and a FIFO, device or hard link in their place is refused
/// (`rtac_live::safefs`).
fn open_outputs(cfg: &Config) -> Result<Outputs, EmuError> {
    let mut out = Outputs::default();
    if cfg.log.is_none() && cfg.stats.is_none() {
        return Ok(out);
    }
    let user = RunAs::invoking_user();
    let _as_user = match &user {
        Some(u) => Some(
            FsIdentity::assume(u.uid, u.gid, &u.groups)
                .map_err(|e| EmuError::Io(format!("cannot take the file identity of uid {}: {e}", u.uid)))?,
        ),
        None => None,
    };
    let whose = match &user {
        Some(u) => format!(" (as uid {}, the user who ran sudo)", u.uid),
        None => String::new(),
    };
    if let Some(dir) = &cfg.log {
        let fail = |what: String, e: std::io::Error| {
            EmuError::Io(format!("--log {}: {what}: {e}{whose}", clip(&dir.display().to_string())))
        };
        std::fs::create_dir_all(dir).map_err(|e| fail("cannot create the directory".into(), e))?;
        let d = safefs::open_dir(dir).map_err(|e| fail("cannot open the directory".into(), e))?;
        let open = |name: &str| {
            safefs::open_write_at(&d, name, Open::Truncate, 0o644).map_err(|e| fail(format!("cannot create {name}"), e))
        };
        out.down = Some(open("down.log")?);
        out.up = Some(open("up.log")?);
        if cfg.server.is_some() {
            out.server = Some(open("server.log")?);
        }
    }
    if let Some(p) = &cfg.stats {
        out.stats = Some(safefs::open_write(p, Open::Truncate, 0o644).map_err(|e| {
            EmuError::Io(format!("--stats {}: cannot create it: {e}{whose}", clip(&p.display().to_string())))
        })?);
    }
    Ok(out)
}

struct Threads {
    stop: Arc<AtomicBool>,
    handles: Vec<JoinHandle<(Engine, Option<std::io::Error>)>>,
    origin: Instant,
}

fn log_writer(
    cfg: &Config,
    name: &str,
    spec: &DirectionSpec,
    file: Option<File>,
    origin: Instant,
) -> Option<LogWriter> {
    let file = file?;
    let mut w = LogWriter::new(Box::new(file), origin);
    let (from, to) = if name == "down" { ("server", "client") } else { ("client", "server") };
    w.comment("rtac-emu link log v1");
    w.comment(&format!("direction: {name} ({from} -> {to})"));
    w.comment(&format!("link: {}", spec.link));
    w.comment(&format!("delay: {}", spec.delay));
    w.comment(&format!("loss: {}", spec.loss));
    w.comment(&format!("queue: {}", spec.queue));
    w.comment(&format!("queue mode: {}", spec.mode));
    w.comment(&format!("forward: {}", cfg.forward));
    w.comment(&format!("base timestamp: {} ns since the Unix epoch", sys::realtime_ns()));
    w.comment("times: ms since the base timestamp; sizes: IP bytes");
    w.comment("events: T + SIZE FLOW | T - SIZE DELAY_MS FLOW | T d SIZE FLOW CAUSE | T # BYTES");
    w.comment("TCP packets add: SEQ LEN ACK [SACK_LEFT-SACK_RIGHT]... (ACK - without the ACK flag)");
    Some(w)
}

fn start_threads(cfg: &Config, down_io: DirIo, up_io: DirIo, logs: [Option<File>; 2]) -> Result<Threads, EmuError> {
    let origin = sys::now();
    let stop = Arc::new(AtomicBool::new(false));
    let mut engines = Vec::new();
    let [down_log, up_log] = logs;
    for (name, spec, io, salt, file) in
        [("down", &cfg.down, down_io, 0u64, down_log), ("up", &cfg.up, up_io, 1, up_log)]
    {
        let log = log_writer(cfg, name, spec, file, origin);
        engines.push((name, Engine::new(spec, origin, cfg.seed.wrapping_mul(2).wrapping_add(salt), log), io));
    }
    let rt = cfg.rt_priority;
    let mut handles = Vec::new();
    for (name, eng, io) in engines {
        let thread_stop = stop.clone();
        let h = std::thread::Builder::new()
            .name(format!("rtac-emu-{name}"))
            .spawn(move || run_direction(eng, io, thread_stop, rt))
            .map_err(|e| {
                stop.store(true, Ordering::Relaxed);
                EmuError::Setup(format!("cannot start the forwarding thread: {e}"))
            })?;
        handles.push(h);
    }
    Ok(Threads { stop, handles, origin })
}

/// What the forwarding threads return.
struct Finished {
    down: DirStats,
    up: DirStats,
    duration: rtac_core::Duration,
}

fn stop_threads(t: Threads) -> Result<Finished, EmuError> {
    t.stop.store(true, Ordering::Relaxed);
    let end = sys::now();
    let mut stats = Vec::new();
    let mut first_error = None;
    for (h, name) in t.handles.into_iter().zip(["down", "up"]) {
        let (eng, err) = h.join().map_err(|_| EmuError::Io(format!("the {name} forwarding thread panicked")))?;
        if let Some(e) = err {
            first_error.get_or_insert(EmuError::Io(format!("{name} forwarding stopped: {e}")));
        }
        let (st, r) = eng.finish(end);
        if let Err(e) = r {
            first_error.get_or_insert(EmuError::Io(format!("writing the {name} log: {e}")));
        }
        stats.push(st);
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    let up = stats.pop().expect("two directions");
    let down = stats.pop().expect("two directions");
    Ok(Finished { down, up, duration: end - t.origin })
}

/// argv of a command: one argument goes through `sh -c`; with several,
/// `$RTAC_SERVER`/`${RTAC_SERVER}` (and `$RTAC_CLIENT`) in an argument are
/// replaced by the address (the invoking shell passes them on when quoted).
fn argv(command: &[String]) -> Vec<String> {
    match command {
        [] => vec![std::env::var("SHELL").unwrap_or_else(|_| "/bin/sh".to_string())],
        [one] => vec!["/bin/sh".to_string(), "-c".to_string(), one.clone()],
        many => many
            .iter()
            .map(|a| {
                a.replace("${RTAC_SERVER}", SERVER_ADDR)
                    .replace("$RTAC_SERVER", SERVER_ADDR)
                    .replace("${RTAC_CLIENT}", CLIENT_ADDR)
                    .replace("$RTAC_CLIENT", CLIENT_ADDR)
            })
            .collect(),
    }
}

/// Exit code of a finished child, shell style.
fn code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

/// Whether some socket in `pid`'s network namespace listens on TCP.
fn listening(pid: u32) -> bool {
    ["tcp", "tcp6"].iter().any(|f| {
        std::fs::read_to_string(format!("/proc/{pid}/net/{f}"))
            .map(|t| t.lines().skip(1).any(|l| l.split_whitespace().nth(3) == Some("0A")))
            .unwrap_or(false)
    })
}

/// Stops a process group: lets it finish on its own for `natural` (a server
/// such as `iperf3 -s -1` exits right after its client), then SIGTERM, then
/// SIGKILL after the grace period.
fn stop_group(child: &mut Child, natural: StdDuration) {
    let pgid = child.id() as i32;
    let deadline = std::time::Instant::now() + natural;
    while std::time::Instant::now() < deadline && matches!(child.try_wait(), Ok(None)) {
        std::thread::sleep(StdDuration::from_millis(10));
    }
    if matches!(child.try_wait(), Ok(Some(_))) {
        sys::kill(-pgid, libc::SIGKILL);
        return;
    }
    sys::kill(-pgid, libc::SIGTERM);
    let deadline = std::time::Instant::now() + GRACE;
    while std::time::Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(StdDuration::from_millis(10));
    }
    sys::kill(-pgid, libc::SIGKILL);
    let _ = child.wait();
}

fn run(cfg: &Config, outputs: Outputs) -> Result<i32, EmuError> {
    let mut tb = Testbed::create(cfg.forward, &cfg.sysctls)?;
    if let Some(sig) = sys::take_signal() {
        tb.destroy();
        return Ok(128 + sig);
    }
    let (down_io, up_io) = tb.ports()?;
    let Outputs { down, up, server, stats } = outputs;
    let threads = start_threads(cfg, down_io, up_io, [down, up])?;
    let outcome = run_commands(cfg, &tb, server);
    // Whatever happened, nothing may outlive the emulator.
    tb.kill_processes();
    let finished = stop_threads(threads);
    tb.destroy();
    let code = outcome?;
    let finished = finished?;
    report(cfg, &finished, stats)?;
    Ok(code)
}

/// Where the server command's stdout and stderr go, so that stdout carries
/// the client command's output alone: `DIR/server.log` (opened by
/// `open_outputs`) with `--log DIR`, otherwise stderr, each line prefixed
/// with `rtac emu: server: `.
fn server_output(file: Option<File>) -> Result<(Stdio, Stdio), EmuError> {
    if let Some(file) = file {
        let fail = |e: std::io::Error| EmuError::Io(format!("--log: server.log: {e}"));
        return Ok((file.try_clone().map_err(fail)?.into(), file.into()));
    }
    let fail = |e: std::io::Error| EmuError::Io(format!("cannot make a pipe for the server's output: {e}"));
    let (reader, writer) = std::io::pipe().map_err(fail)?;
    let out = writer.try_clone().map_err(fail)?;
    // Ends when the server and every process it started have closed the pipe.
    std::thread::spawn(move || {
        let mut reader = std::io::BufReader::new(reader);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let text = String::from_utf8_lossy(&line);
                    eprintln!("rtac emu: server: {}", text.trim_end_matches(['\n', '\r']));
                }
            }
        }
    });
    Ok((out.into(), writer.into()))
}

fn run_commands(cfg: &Config, tb: &Testbed, server_log: Option<File>) -> Result<i32, EmuError> {
    let user = RunAs::invoking_user();
    let env = [
        ("RTAC_SERVER", SERVER_ADDR.to_string()),
        ("RTAC_CLIENT", CLIENT_ADDR.to_string()),
        ("RTAC_EMU_ID", tb.id.clone()),
    ];
    let mut server = None;
    if let Some(s) = &cfg.server {
        let argv = vec!["/bin/sh".to_string(), "-c".to_string(), s.clone()];
        let mut child = tb
            .spawn(Side::Server, &argv, user.as_ref(), &env, true, Some(server_output(server_log)?))
            .map_err(|e| EmuError::Io(format!("--server {:?}: cannot start: {e}", clip(s))))?;
        let deadline = std::time::Instant::now() + StdDuration::from_nanos(cfg.server_wait.as_nanos());
        loop {
            if listening(child.id()) {
                break;
            }
            if let Ok(Some(st)) = child.try_wait() {
                eprintln!("rtac emu: the server command exited (code {}) before listening", code(st));
                break;
            }
            if std::time::Instant::now() >= deadline {
                eprintln!(
                    "rtac emu: the server command does not listen on a TCP port yet; starting the command anyway"
                );
                break;
            }
            if let Some(sig) = sys::take_signal() {
                stop_group(&mut child, StdDuration::ZERO);
                return Ok(128 + sig);
            }
            std::thread::sleep(StdDuration::from_millis(5));
        }
        server = Some(child);
    }
    let argv = argv(&cfg.command);
    let started = tb.spawn(Side::Client, &argv, user.as_ref(), &env, false, None);
    let mut client = match started {
        Ok(c) => c,
        Err(e) => {
            if let Some(s) = &mut server {
                stop_group(s, StdDuration::ZERO);
            }
            return Err(EmuError::Io(format!("cannot start {:?}: {e}", clip(&argv.join(" ")))));
        }
    };
    let mut term_deadline: Option<std::time::Instant> = None;
    let status = loop {
        match client.try_wait() {
            Ok(Some(st)) => break code(st),
            Ok(None) => {}
            Err(e) => return Err(EmuError::Io(format!("waiting for the command: {e}"))),
        }
        match sys::take_signal() {
            Some(libc::SIGINT) => {
                // Ctrl-C: the command gets SIGINT (again, if the terminal
                // already sent it to the whole group); an interactive
                // shell may ignore it, and the emulator goes on.
                sys::kill(client.id() as i32, libc::SIGINT);
            }
            Some(_) => {
                sys::kill(client.id() as i32, libc::SIGTERM);
                term_deadline.get_or_insert(std::time::Instant::now() + GRACE);
            }
            None => {}
        }
        if term_deadline.is_some_and(|d| std::time::Instant::now() > d) {
            sys::kill(client.id() as i32, libc::SIGKILL);
        }
        std::thread::sleep(StdDuration::from_millis(5));
    };
    if let Some(s) = &mut server {
        stop_group(s, StdDuration::from_millis(500));
    }
    Ok(status)
}

fn dir_json(s: &DirStats, spec: &DirectionSpec, secs: f64) -> serde_json::Value {
    let ms = |ns: u64| ns as f64 / 1e6;
    let us = |ns: u64| ns as f64 / 1e3;
    json!({
        "link": spec.link.to_string(),
        "propagation_ms": spec.delay.as_millis_f64(),
        "queue": spec.queue.to_string(),
        "queue_mode": spec.mode.to_string(),
        "loss": spec.loss,
        "arrivals": s.arrivals,
        "departures": s.departures,
        "delivered": s.delivered,
        "drops_queue": s.drops_queue,
        "drops_aqm": s.drops_aqm,
        "drops_loss": s.drops_loss,
        "tx_failed": s.tx_failed,
        "rx_dropped": s.rx_dropped,
        "oversize": s.oversize,
        "flows": s.flows,
        "kept_up": kept_up(s),
        "capacity_mbps": if s.capacity_bytes > 0 { Some(s.capacity_bytes as f64 * 8.0 / secs / 1e6) } else { None },
        "throughput_mbps": s.departure_bytes as f64 * 8.0 / secs / 1e6,
        "departure_bytes": s.departure_bytes,
        "capacity_bytes": s.capacity_bytes,
        "delay_ms": {
            "mean": s.delay_ns.mean() / 1e6,
            "p50": ms(s.delay_ns.quantile(0.5)),
            "p95": ms(s.delay_ns.quantile(0.95)),
            "p99": ms(s.delay_ns.quantile(0.99)),
            "max": ms(s.delay_ns.max()),
        },
        "lateness_us": {
            "count": s.lateness_ns.count(),
            "mean": s.lateness_ns.mean() / 1e3,
            "p50": us(s.lateness_ns.quantile(0.5)),
            "p99": us(s.lateness_ns.quantile(0.99)),
            "p999": us(s.lateness_ns.quantile(0.999)),
            "max": us(s.lateness_ns.max()),
        },
    })
}

/// Whether a direction kept to its schedule: 99 % of frames delivered
/// within 1 ms of their instant, and none lost before the emulator read it.
fn kept_up(s: &DirStats) -> bool {
    s.lateness_ns.quantile(0.99) <= 1_000_000 && s.rx_dropped == 0
}

fn report(cfg: &Config, f: &Finished, stats: Option<File>) -> Result<(), EmuError> {
    let secs = f.duration.as_secs_f64().max(1e-9);
    for (name, s) in [("down", &f.down), ("up", &f.up)] {
        if !kept_up(s) {
            eprintln!(
                "rtac emu: warning: the {name} direction fell behind its schedule (99th percentile {:.1} ms late, {} frames \
                 dropped by the kernel before the emulator read them): this machine is too busy for this traffic, and \
                 the emulated link was slower than configured",
                s.lateness_ns.quantile(0.99) as f64 / 1e6,
                s.rx_dropped
            );
        }
    }
    if let (Some(path), Some(mut file)) = (&cfg.stats, stats) {
        let doc = json!({
            "forward": cfg.forward.to_string(),
            "duration_s": secs,
            "down": dir_json(&f.down, &cfg.down, secs),
            "up": dir_json(&f.up, &cfg.up, secs),
        });
        let text = serde_json::to_string_pretty(&doc).expect("JSON values serialise") + "\n";
        file.write_all(text.as_bytes()).map_err(|e| EmuError::Io(format!("cannot write {}: {e}", path.display())))?;
    }
    if cfg.summary {
        for (name, s) in [("down", &f.down), ("up", &f.up)] {
            let cap = if s.capacity_bytes > 0 {
                format!("capacity {:.2} Mbit/s, ", s.capacity_bytes as f64 * 8.0 / secs / 1e6)
            } else {
                String::new()
            };
            eprintln!(
                "rtac emu {name}: {} packets in, {} out ({cap}throughput {:.2} Mbit/s), drops {} queue / {} aqm / {} loss, \
                 delay mean {:.2} ms p95 {:.2} ms, timing error p99 {:.0} us",
                s.arrivals,
                s.departures,
                s.departure_bytes as f64 * 8.0 / secs / 1e6,
                s.drops_queue,
                s.drops_aqm,
                s.drops_loss,
                s.delay_ns.mean() / 1e6,
                s.delay_ns.quantile(0.95) as f64 / 1e6,
                s.lateness_ns.quantile(0.99) as f64 / 1e3,
            );
            if s.rx_dropped + s.tx_failed + s.oversize > 0 {
                eprintln!(
                    "rtac emu {name}: kernel dropped {} frames before the emulator read them, refused {} on output; {} frames were too large",
                    s.rx_dropped, s.tx_failed, s.oversize
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_run_through_sh_or_with_the_server_address_substituted() {
        assert_eq!(argv(&["echo $RTAC_SERVER".into()]), vec!["/bin/sh", "-c", "echo $RTAC_SERVER"]);
        let v: Vec<String> = ["iperf3", "-c", "$RTAC_SERVER", "-R"].iter().map(|s| s.to_string()).collect();
        assert_eq!(argv(&v), vec!["iperf3", "-c", SERVER_ADDR, "-R"]);
        let v: Vec<String> = ["curl", "http://${RTAC_SERVER}:80/"].iter().map(|s| s.to_string()).collect();
        assert_eq!(argv(&v)[1], format!("http://{SERVER_ADDR}:80/"));
    }
}
