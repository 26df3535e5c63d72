//! The BPF mode on real sockets (root needed: the tests fail, saying so,
//! otherwise): `rtac run --mode bpf` and `rtac daemon` hold the kernel's
//! TCP_WINDOW_CLAMP at the controller's window where receive auto-tuning
//! would raise it (the control: the same receiver without rtac), reach a
//! statically linked program, adopt sockets opened before the daemon,
//! give every socket its kernel window back on each way of stopping
//! (SIGINT, SIGTERM, SIGHUP, a killed process), and refuse clearly
//! without privilege.
//!
//! The receiver is a small Python program that reads a download and reads
//! TCP_WINDOW_CLAMP back after each read.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

mod common;
use common::server;

const CLAMP: u64 = 150_000;

/// Arguments: port, bytes, then byte counts at which to pause: it prints
/// `PAUSE min max median` (the clamps seen after each read since 1 MB past
/// the previous pause) and waits for a line on stdin; at the end
/// `DONE bytes min max first median` (first: the clamp at the first read
/// after the last pause).
const RECEIVER: &str = r#"
import socket, statistics, sys
port, total = int(sys.argv[1]), int(sys.argv[2])
pauses = [int(x) for x in sys.argv[3:]]
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"x")
got, since, seen, first = 0, 0, [], None
def clamp():
    return s.getsockopt(socket.IPPROTO_TCP, socket.TCP_WINDOW_CLAMP)
while got < total:
    b = s.recv(65536)
    if not b:
        break
    got += len(b)
    c = clamp()
    if first is None:
        first = c
    if got > since + (1 << 20):
        seen.append(c)
    if pauses and got >= pauses[0]:
        pauses.pop(0)
        print("PAUSE", min(seen), max(seen), int(statistics.median(seen)), flush=True)
        sys.stdin.readline()
        since, seen, first = got, [], None
print("DONE", got, min(seen), max(seen), first, int(statistics.median(seen)), flush=True)
"#;

/// One test at a time: each start of rtac removes what killed instances
/// left, which one test checks, and the clamps are read on a shared loopback.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn require_root() -> std::sync::MutexGuard<'static, ()> {
    // SAFETY: no preconditions.
    assert_eq!(unsafe { libc::geteuid() }, 0, "the BPF tests need root (CAP_BPF, CAP_NET_ADMIN, cgroup v2)");
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn rtac() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rtac-dev"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rtac-bpf-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn receiver_script() -> PathBuf {
    let p = tmp("receiver.py");
    std::fs::write(&p, RECEIVER).unwrap();
    p
}

/// "DONE bytes min max" or "PAUSE min max" as numbers.
fn numbers(line: &str, tag: &str) -> Vec<u64> {
    let rest = line.trim().strip_prefix(tag).unwrap_or_else(|| panic!("expected {tag}: {line:?}"));
    rest.split_whitespace().map(|x| x.parse().unwrap()).collect()
}

fn stdout_line(o: &Output, tag: &str) -> String {
    let out = String::from_utf8_lossy(&o.stdout);
    out.lines()
        .find(|l| l.starts_with(tag))
        .unwrap_or_else(|| panic!("no {tag} line: {out}\n{}", String::from_utf8_lossy(&o.stderr)))
        .to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn pins_of(pid: u32) -> Vec<PathBuf> {
    std::fs::read_dir("/sys/fs/bpf/rtac")
        .map(|d| d.flatten().map(|e| e.path()).filter(|p| p.to_string_lossy().ends_with(&format!("-{pid}"))).collect())
        .unwrap_or_default()
}

/// The pin of a daemon on `cg` (one per cgroup, named after its inode).
fn daemon_pin(cg: &std::path::Path) -> PathBuf {
    use std::os::unix::fs::MetadataExt;
    PathBuf::from(format!("/sys/fs/bpf/rtac/daemon-cg{}", std::fs::metadata(cg).unwrap().ino()))
}

fn run_cgroup_of(pid: u32) -> PathBuf {
    rtac_live::bpf::cgroup2_root().unwrap().join("rtac").join(format!("run-{pid}"))
}

#[test]
fn run_mode_bpf_holds_the_clamp_where_autotuning_would_raise_it() {
    let _serial = require_root();
    let total = 24 << 20;
    let port = server(total);
    let script = receiver_script();
    let args = [script.to_str().unwrap().to_string(), port.to_string(), total.to_string()];
    // The control: the kernel alone raises the clamp as it grows the buffer.
    let alone = Command::new("python3").args(&args).output().unwrap();
    let n = numbers(&stdout_line(&alone, "DONE"), "DONE");
    assert_eq!(n[0], total as u64);
    assert!(n[2] > 2 * CLAMP, "without rtac the clamp grows: {n:?}");
    let log = tmp("run.csv");
    let o = rtac()
        .args(["run", "--mode", "bpf", "-c", "static", "-p", &format!("rmem_max={CLAMP}"), "--log"])
        .arg(&log)
        .arg("--")
        .arg("python3")
        .args(&args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let n = numbers(&stdout_line(&o, "DONE"), "DONE");
    assert_eq!(n[0], total as u64);
    // min and median: a read can see, for an instant, the clamp that
    // auto-tuning set while growing the buffer during that read (the first
    // read too, on a loaded machine); the next outgoing segment (whose
    // window is the one advertised) applies the controller's again before
    // the window is chosen.
    assert_eq!((n[1], n[4]), (CLAMP, CLAMP), "the clamp after the reads: {n:?}");
    assert!(stderr(&o).contains("rtac: bpf mode controlled 1 TCP connection(s)"), "{}", stderr(&o));
    let rows = rtac_live::log::read_log(&log).unwrap();
    assert!(!rows.is_empty() && rows.iter().all(|r| r.rwnd_bytes == Some(CLAMP)), "{rows:?}");
    assert!(rows.iter().any(|r| r.peer.ends_with(&format!(":{port}"))), "{rows:?}");
    // Teardown: no pin, no cgroup left.
    let pid = rows[0].pid;
    assert!(pins_of(pid).is_empty() && !run_cgroup_of(pid).exists());
}

#[test]
fn a_statically_linked_receiver_is_controlled_by_bpf_and_warned_about_by_preload() {
    let _serial = require_root();
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/recv.c");
    let bin = tmp("recv-static");
    let cc = Command::new("cc").args(["-static", "-O2", "-o"]).arg(&bin).arg(&src).output().unwrap();
    assert!(cc.status.success(), "cc -static (needs libc6-dev): {}", stderr(&cc));
    let total = 16 << 20;
    let port = server(total);
    let args = ["127.0.0.1".to_string(), port.to_string()];
    let o = rtac()
        .args(["run", "--mode", "bpf", "-c", "static", "-p", &format!("rmem_max={CLAMP}"), "--"])
        .arg(&bin)
        .args(&args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let n = numbers(&stdout_line(&o, "DONE"), "DONE");
    assert_eq!((n[0], n[1]), (total as u64, CLAMP), "{n:?}");
    assert!(2 * n[3] > n[4], "most reads see the controller's clamp: {n:?}");
    // The preload mode cannot reach it, and says so twice.
    let o = rtac()
        .args(["run", "--mode", "preload", "-c", "static", "-p", &format!("rmem_max={CLAMP}"), "--"])
        .arg(&bin)
        .args(&args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let n = numbers(&stdout_line(&o, "DONE"), "DONE");
    assert!(n[2] > CLAMP, "uncontrolled: {n:?}");
    let err = stderr(&o);
    assert!(err.contains("is statically linked: LD_PRELOAD cannot reach it"), "{err}");
    assert!(err.contains("no TCP receive socket was controlled"), "{err}");
}

/// A daemon that a failing test stops too (SIGTERM, then waits).
struct Daemon(Child);

impl Daemon {
    /// SIGTERM; whether it exited successfully.
    fn stop(&mut self) -> bool {
        // SAFETY: our child.
        unsafe { libc::kill(self.0.id() as i32, libc::SIGTERM) };
        self.0.wait().unwrap().success()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            self.stop();
        }
    }
}

/// `rtac daemon ARGS --cgroup CG`, once it says it is controlling; its stderr.
fn start_daemon(args: &[&str], cg: &std::path::Path) -> (Daemon, BufReader<std::process::ChildStderr>) {
    let mut daemon = rtac().arg("daemon").args(args).arg("--cgroup").arg(cg).stderr(Stdio::piped()).spawn().unwrap();
    let mut err = BufReader::new(daemon.stderr.take().unwrap());
    let mut started = String::new();
    while !started.contains("daemon controlling") {
        started.clear();
        assert!(err.read_line(&mut started).unwrap() > 0, "the daemon ended early");
    }
    (Daemon(daemon), err)
}

/// Starts the receiver under `rtac run --mode bpf`, waits for its first
/// PAUSE line (the clamp held so far), and returns both.
fn paused_run(total: usize, pauses: &[usize]) -> (Child, BufReader<std::process::ChildStdout>, Vec<u64>) {
    let port = server(total);
    let script = receiver_script();
    let mut child = rtac()
        .args(["run", "--mode", "bpf", "-c", "static", "-p", &format!("rmem_max={CLAMP}"), "--", "python3"])
        .arg(&script)
        .args([port.to_string(), total.to_string()])
        .args(pauses.iter().map(|p| p.to_string()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let held = numbers(&line, "PAUSE");
    (child, out, held)
}

#[test]
fn each_signal_tears_down_and_passes_on() {
    let _serial = require_root();
    for (sig, name) in [(libc::SIGINT, "SIGINT"), (libc::SIGTERM, "SIGTERM"), (libc::SIGHUP, "SIGHUP")] {
        let child = rtac()
            .args(["run", "--mode", "bpf", "-c", "rtac", "--", "sleep", "30"])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        // Attached once its pin exists.
        for _ in 0..200 {
            if !pins_of(pid).is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        assert_eq!(pins_of(pid).len(), 1, "{name}: the program is pinned while running");
        assert!(run_cgroup_of(pid).exists());
        // SAFETY: our child.
        unsafe { libc::kill(pid as i32, sig) };
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(128 + sig), "{name}: the program's end passes through: {}", stderr(&o));
        assert!(pins_of(pid).is_empty(), "{name}: pin removed");
        assert!(!run_cgroup_of(pid).exists(), "{name}: cgroup removed");
    }
}

#[test]
fn a_killed_rtac_gives_the_windows_back_and_the_next_start_cleans_up() {
    let _serial = require_root();
    // A pause every 2 MB after the first: the receiver reads on in steps
    // until its window is the kernel's again.
    let pauses: Vec<usize> = (0..44).map(|i| (8 << 20) + i * (2 << 20)).collect();
    let (mut child, mut out, held) = paused_run(96 << 20, &pauses);
    assert_eq!((held[0], held[2]), (CLAMP, CLAMP), "min, median: {held:?}");
    let pid = child.id();
    // (wait() would close it.)
    let mut stdin = child.stdin.take().unwrap();
    // The receiver (rtac's child) lives on; rtac itself dies without teardown.
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(pins_of(pid).len(), 1, "kill -9 leaves the pin");
    // Once the heartbeat is stale (1 s) the program releases the socket at
    // its next sample: read on, step by step, until the clamp has grown
    // past the controller's, for at most 30 s (a loaded machine is slow).
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let mut steps = Vec::new();
    loop {
        std::thread::sleep(Duration::from_millis(200));
        stdin.write_all(b"go\n").unwrap();
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let tag = if line.starts_with("DONE") { "DONE" } else { "PAUSE" };
        let n = numbers(&line, tag);
        let max = if tag == "DONE" { n[2] } else { n[1] };
        steps.push(max);
        if max > CLAMP {
            break;
        }
        assert!(
            tag == "PAUSE" && std::time::Instant::now() < deadline,
            "the kernel's window is not back after the daemon died (largest clamp per step): {steps:?}"
        );
    }
    drop(stdin);
    let _ = std::io::copy(&mut out, &mut std::io::sink());
    // The next start removes what the killed one left, and says so.
    let o = rtac().args(["run", "--mode", "bpf", "-c", "rtac", "--", "true"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains(&format!("removed the BPF program left attached by rtac (pid {pid}")), "{err}");
    assert!(err.contains(&format!("removed the cgroup left by rtac run (pid {pid})")), "{err}");
    assert!(pins_of(pid).is_empty() && !run_cgroup_of(pid).exists());
}

#[test]
fn the_daemon_adopts_open_sockets_and_gives_them_back_on_sigterm() {
    let _serial = require_root();
    let root = rtac_live::bpf::cgroup2_root().unwrap();
    let cg = root.join(format!("rtac-test-{}", std::process::id()));
    std::fs::create_dir_all(&cg).unwrap();
    let total = 40 << 20;
    let port = server(total);
    let script = receiver_script();
    // The receiver, in the test cgroup, opens its socket before the daemon starts.
    let procs = cg.join("cgroup.procs");
    let mut recv = Command::new("sh")
        .arg("-c")
        .arg(format!("echo $$ > {} && exec python3 \"$@\"", procs.display()))
        .arg("sh")
        .arg(&script)
        .args([port.to_string(), total.to_string(), (8 << 20).to_string(), (24 << 20).to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(recv.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let before = numbers(&line, "PAUSE");
    assert!(before[1] > CLAMP, "uncontrolled before the daemon: {before:?}");
    let log = tmp("daemon.csv");
    let rmem = format!("rmem_max={CLAMP}");
    let (mut daemon, mut err) = start_daemon(&["-c", "static", "-p", &rmem, "--log", log.to_str().unwrap()], &cg);
    assert!(daemon_pin(&cg).exists(), "pinned under the cgroup's inode");
    // `--status` lists the adopted connection once the daemon wrote it.
    let mut status = String::new();
    for _ in 0..40 {
        std::thread::sleep(Duration::from_millis(100));
        let o = rtac().args(["daemon", "--status"]).output().unwrap();
        status = String::from_utf8_lossy(&o.stdout).into_owned();
        if status.contains(&format!("127.0.0.1:{port}")) {
            break;
        }
    }
    assert!(status.contains(&format!("127.0.0.1:{port}")) && status.contains(" yes"), "{status}");
    // The receiver reads on: the clamp is the controller's from the next segment on.
    recv.stdin.as_mut().unwrap().write_all(b"go\n").unwrap();
    line.clear();
    out.read_line(&mut line).unwrap();
    // A read can see, for an instant, the clamp that auto-tuning just set
    // while growing the buffer that the adopted socket had grown before;
    // the next outgoing segment (whose window is the one advertised)
    // applies the controller's again.
    let adopted = numbers(&line, "PAUSE");
    assert_eq!((adopted[0], adopted[2]), (CLAMP, CLAMP), "adopted socket clamped (min max median): {adopted:?}");
    // The receiver is idle; the daemon stops cleanly. Its release pass gives
    // the socket the kernel's window back at once, not at its next segment.
    assert!(daemon.stop());
    recv.stdin.as_mut().unwrap().write_all(b"go\n").unwrap();
    line.clear();
    out.read_line(&mut line).unwrap();
    let after = numbers(&line, "DONE");
    assert_eq!(after[0], total as u64);
    assert!(after[3] > CLAMP, "released at the stop: {after:?}");
    recv.wait().unwrap();
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    assert!(
        rest.contains("bpf mode controlled 1 TCP connection(s)") && rest.contains("1 of them open before the start"),
        "{rest}"
    );
    assert!(!daemon_pin(&cg).exists(), "the daemon's pin is removed at its stop");
    let rows = rtac_live::log::read_log(&log).unwrap();
    assert!(rows.iter().any(|r| r.rwnd_bytes == Some(CLAMP)), "{rows:?}");
    std::fs::remove_dir(&cg).unwrap();
}

#[test]
fn without_privilege_bpf_is_refused_with_the_way_out_and_auto_falls_back() {
    let _serial = require_root();
    // Copies of rtac-dev and the shim where the unprivileged user can reach
    // them (the build tree may sit below a private home directory).
    let dir = tmp("nobody");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("rtac-dev");
    std::fs::copy(env!("CARGO_BIN_EXE_rtac-dev"), &exe).unwrap();
    let built = std::path::Path::new(env!("CARGO_BIN_EXE_rtac-dev")).parent().unwrap().to_path_buf();
    let shim =
        [built.join("librtac_preload.so"), built.join("deps/librtac_preload.so")].into_iter().find(|p| p.exists());
    std::fs::copy(shim.expect("librtac_preload.so next to rtac-dev"), dir.join("librtac_preload.so")).unwrap();
    for p in [std::env::temp_dir().join(format!("rtac-bpf-test-{}", std::process::id())), dir.clone()] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let as_nobody = |args: &[&str]| {
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all"])
            .arg(&exe)
            .args(args)
            .output()
            .unwrap()
    };
    let o = as_nobody(&["run", "--mode", "bpf", "-c", "rtac", "--", "true"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("BPF mode unavailable") && err.contains("use --mode preload instead"), "{err}");
    assert!(err.contains("root"), "{err}");
    let o = as_nobody(&["run", "-c", "rtac", "--", "true"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("rtac: mode preload (LD_PRELOAD), as BPF cannot be used here"), "{}", stderr(&o));
    let o = as_nobody(&["daemon", "-c", "rtac"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("rtac daemon works only through BPF") && !err.contains("--mode preload instead"), "{err}");
}

const PY_BLOCKING: &str = r#"
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1]) as r, open(sys.argv[2], "wb") as f:
    while True:
        b = r.read(1 << 16)
        if not b:
            break
        f.write(b)
"#;

const PY_NONBLOCKING: &str = r#"
import selectors, socket, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
s = socket.create_connection((u.hostname, u.port))
s.sendall(f"GET {u.path} HTTP/1.0\r\nHost: {u.hostname}\r\n\r\n".encode())
s.setblocking(False)
sel = selectors.DefaultSelector()
sel.register(s, selectors.EVENT_READ)
data = bytearray()
while True:
    sel.select()
    try:
        b = s.recv(1 << 16)
    except BlockingIOError:
        continue
    if not b:
        break
    data += b
head, _, body = bytes(data).partition(b"\r\n\r\n")
assert head.startswith(b"HTTP/1.") and b" 200 " in head.split(b"\r\n")[0], head
open(sys.argv[2], "wb").write(body)
"#;

fn sha256_of(p: &std::path::Path) -> String {
    let o = Command::new("sha256sum").arg(p).output().unwrap();
    assert!(o.status.success(), "sha256sum {}", p.display());
    String::from_utf8_lossy(&o.stdout).split_whitespace().next().unwrap().to_string()
}

#[test]
fn a_hundred_downloads_through_the_daemon_are_intact_for_every_client() {
    let _serial = require_root();
    for (prog, pkg) in [("curl", "curl"), ("wget", "wget"), ("go", "golang-go"), ("sha256sum", "coreutils")] {
        rtac_agent::testbed::require_program(prog, pkg).unwrap_or_else(|e| panic!("{e}"));
    }
    let www = tmp("www");
    std::fs::create_dir_all(&www).unwrap();
    let file = www.join("blob");
    let mut data = vec![0u8; 1 << 20];
    let mut x = 0x9e3779b97f4a7c15u64;
    for b in data.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    std::fs::write(&file, &data).unwrap();
    let want = sha256_of(&file);
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://127.0.0.1:{}/blob", l.local_addr().unwrap().port());
    let served = www.clone();
    std::thread::spawn(move || rtac_agent::testbed::serve_forever(l, served, None));
    let goget = tmp("goget");
    let mut go = Command::new("go");
    if std::env::var_os("HOME").is_none() && std::env::var_os("GOCACHE").is_none() {
        go.env("GOCACHE", tmp("gocache")); // go needs a build cache
    }
    let go = go
        .args(["build", "-o"])
        .arg(&goget)
        .arg(".")
        .current_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/goget"))
        .env("CGO_ENABLED", "0")
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .output()
        .unwrap();
    assert!(go.status.success(), "go build: {}", stderr(&go));
    let (pyb, pyn) = (tmp("blocking.py"), tmp("nonblocking.py"));
    std::fs::write(&pyb, PY_BLOCKING).unwrap();
    std::fs::write(&pyn, PY_NONBLOCKING).unwrap();

    let cg = rtac_live::bpf::cgroup2_root().unwrap().join(format!("rtac-test-dl-{}", std::process::id()));
    std::fs::create_dir_all(&cg).unwrap();
    let (mut daemon, mut err) = start_daemon(&["-c", "rtac", "-p", "bdp=50"], &cg);
    let out = tmp("download");
    let clients: Vec<(&str, Vec<String>)> = vec![
        ("curl", vec!["curl".into(), "-sf".into(), "-o".into(), out.display().to_string(), url.clone()]),
        ("wget", vec!["wget".into(), "-q".into(), "-O".into(), out.display().to_string(), url.clone()]),
        ("go", vec![goget.display().to_string(), url.clone(), out.display().to_string()]),
        ("python blocking", vec!["python3".into(), pyb.display().to_string(), url.clone(), out.display().to_string()]),
        (
            "python non-blocking",
            vec!["python3".into(), pyn.display().to_string(), url.clone(), out.display().to_string()],
        ),
    ];
    let procs = cg.join("cgroup.procs");
    for i in 0..100 {
        let (name, argv) = &clients[i % clients.len()];
        let _ = std::fs::remove_file(&out);
        let o = Command::new("sh")
            .arg("-c")
            .arg(format!("echo $$ > {} && exec \"$@\"", procs.display()))
            .arg("sh")
            .args(argv)
            .output()
            .unwrap();
        assert!(o.status.success(), "{name} (download {i}): {}", stderr(&o));
        assert_eq!(sha256_of(&out), want, "{name} (download {i})");
    }
    assert!(daemon.stop());
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    let n: u64 = rest
        .split("bpf mode controlled ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no summary: {rest}"));
    assert!(n >= 100, "every download's connection was controlled: {n}\n{rest}");
    std::fs::remove_dir(&cg).unwrap();
}

#[test]
fn a_window_above_the_buffer_limit_raises_it_says_so_and_restores_it() {
    let _serial = require_root();
    let before = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_rmem").unwrap();
    let max: u64 = before.split_whitespace().nth(2).unwrap().parse().unwrap();
    // A window the current limit cannot hold (auto-tuning gives about half
    // of tcp_rmem[2] to the window), and one it can: the control.
    let big = format!("rmem_max={}", max);
    let o = rtac().args(["run", "--mode", "bpf", "-c", "static", "-p", &big, "--", "true"]).output().unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    // Twice the window, but never above the limit that keeps the window
    // scale at 10 (above it the kernel cannot lower an open window). A
    // machine already at that limit (another rtac running) gets a note.
    let raised = (2 * max).min(65_535 << 10);
    if raised > max {
        assert!(err.contains("rtac: raised net.ipv4.tcp_rmem from") && err.contains(&format!(" {raised}\"")), "{err}");
        assert!(err.contains("rtac: restored net.ipv4.tcp_rmem"), "{err}");
    } else {
        assert!(
            err.contains("rtac: note: receive buffers stop at about") && err.contains("window scale above 10"),
            "{err}"
        );
    }
    assert_eq!(std::fs::read_to_string("/proc/sys/net/ipv4/tcp_rmem").unwrap(), before);
    let small = format!("rmem_max={}", max / 4);
    let o = rtac().args(["run", "--mode", "bpf", "-c", "static", "-p", &small, "--", "true"]).output().unwrap();
    assert!(!stderr(&o).contains("tcp_rmem"), "{}", stderr(&o));
}
