//! Sockets grouped by access link, one window budget per link, on real
//! sockets (root needed: the tests fail, saying so, otherwise). A receiver
//! in a network namespace of its own reaches a server in another through
//! one veth pair, over two connections at once:
//! - `rtac daemon` on the host, the receiver in its cgroup: `--status`
//!   lists one group, the receiver's end of the veth pair (looked up in
//!   the receiver's namespace, not the daemon's), with both connections in
//!   it, and both connections' rows name it; with `budget=connection` there
//!   is no budget;
//! - `rtac run --mode bpf` inside the receiver's namespace: the closing
//!   line counts both connections in that interface's budget, and the log
//!   names the group on both connections' rows.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn require_root() -> std::sync::MutexGuard<'static, ()> {
    // SAFETY: no preconditions.
    assert_eq!(unsafe { libc::geteuid() }, 0, "these tests need root (network namespaces, CAP_BPF, cgroup v2)");
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn rtac() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rtac-dev"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rtac-budget-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn ip(args: &[&str]) {
    let o = Command::new("ip").args(args).output().expect("ip (iproute2) is needed");
    assert!(o.status.success(), "ip {args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

/// Two network namespaces joined by a veth pair: the server at 10.213.0.1,
/// the receiver at 10.213.0.2 on interface `veth`. Removed when dropped.
struct Bed {
    server: String,
    receiver: String,
    veth: String,
}

const SERVER: &str = "10.213.0.1";

impl Bed {
    fn new(tag: &str) -> Bed {
        let id = std::process::id();
        let b = Bed {
            server: format!("rtacb-{tag}s-{id}"),
            receiver: format!("rtacb-{tag}r-{id}"),
            veth: format!("rb{tag}r{}", id % 100_000),
        };
        let peer = format!("rb{tag}s{}", id % 100_000);
        ip(&["netns", "add", &b.server]);
        ip(&["netns", "add", &b.receiver]);
        ip(&["link", "add", &b.veth, "netns", &b.receiver, "type", "veth", "peer", "name", &peer, "netns", &b.server]);
        for (ns, dev, addr) in [(&b.server, &peer, "10.213.0.1/24"), (&b.receiver, &b.veth, "10.213.0.2/24")] {
            ip(&["-n", ns, "addr", "add", addr, "dev", dev]);
            ip(&["-n", ns, "link", "set", dev, "up"]);
            ip(&["-n", ns, "link", "set", "lo", "up"]);
        }
        b
    }

    /// `nsenter --net` into the receiver's namespace (the mounts stay the
    /// host's, so bpffs and the cgroups are the same).
    fn in_receiver(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new("nsenter");
        c.arg(format!("--net=/run/netns/{}", self.receiver)).arg("--").arg(program);
        c
    }
}

impl Drop for Bed {
    fn drop(&mut self) {
        for ns in [&self.server, &self.receiver] {
            let _ = Command::new("ip").args(["netns", "del", ns]).status();
        }
    }
}

/// Sends `argv[2]` bytes to each connection after its first byte.
const SERVE: &str = r#"
import socket, sys, threading
l = socket.socket()
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind((sys.argv[1], 5201))
l.listen()
print("READY", flush=True)
def send(c):
    c.recv(1)
    chunk, left = b"x" * 65536, int(sys.argv[2])
    try:
        while left > 0:
            left -= c.send(chunk[:min(left, 65536)])
    except OSError:
        pass
    c.close()
while True:
    c, _ = l.accept()
    threading.Thread(target=send, args=(c,), daemon=True).start()
"#;

/// Joins the cgroup `argv[1]` (if not "-"), opens two connections to
/// `argv[2]` and reads `argv[3]` bytes from each, pausing once both have
/// read a quarter (`PAUSE`, then a line on stdin) with both open.
const RECEIVE: &str = r#"
import selectors, socket, sys
if sys.argv[1] != "-":
    open(sys.argv[1], "w").write("0")
host, total = sys.argv[2], int(sys.argv[3])
conns = [socket.create_connection((host, 5201)) for _ in range(2)]
sel = selectors.DefaultSelector()
got = {}
for c in conns:
    c.sendall(b"x")
    sel.register(c, selectors.EVENT_READ)
    got[c] = 0
paused = False
while sel.get_map():
    if not paused and all(n >= total // 4 for n in got.values()):
        paused = True
        print("PAUSE", flush=True)
        sys.stdin.readline()
    for key, _ in sel.select():
        b = key.fileobj.recv(65536)
        if not b:
            sel.unregister(key.fileobj)
            continue
        got[key.fileobj] += len(b)
print("DONE", *sorted(got.values()), flush=True)
"#;

fn script(name: &str, text: &str) -> PathBuf {
    let p = tmp(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The server, killed when dropped.
struct Server(Child);

impl Server {
    fn start(bed: &Bed, total: usize) -> Server {
        let serve = script("serve.py", SERVE);
        let mut c = Command::new("ip")
            .args(["netns", "exec", &bed.server, "python3"])
            .arg(&serve)
            .args([SERVER, &total.to_string()])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(c.stdout.take().unwrap()).read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "READY", "the server did not start");
        Server(c)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A fresh cgroup under the cgroup v2 root, removed when dropped.
struct Cgroup(PathBuf);

impl Cgroup {
    fn new(tag: &str) -> Cgroup {
        let cg = rtac_live::bpf::cgroup2_root().unwrap().join(format!("rtac-budget-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&cg).unwrap();
        Cgroup(cg)
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        for _ in 0..50 {
            if std::fs::remove_dir(&self.0).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A daemon, stopped with SIGTERM when dropped.
struct Daemon(Child);

impl Daemon {
    fn start(controller: &str, cg: &Path) -> Daemon {
        let mut d = Daemon(
            rtac().args(["daemon", "-c", controller, "--cgroup"]).arg(cg).stderr(Stdio::piped()).spawn().unwrap(),
        );
        let mut err = BufReader::new(d.0.stderr.take().unwrap());
        let mut said = String::new();
        loop {
            let mut line = String::new();
            assert!(err.read_line(&mut line).unwrap() > 0, "the daemon ended early: {said}");
            said.push_str(&line);
            if line.contains("daemon controlling") {
                // Keep draining its stderr so that it never blocks on it.
                std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
                return d;
            }
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        // SAFETY: our child.
        unsafe { libc::kill(self.0.id() as i32, libc::SIGTERM) };
        let _ = self.0.wait();
    }
}

/// The receiver in `bed`'s namespace and `cg`, once it has paused.
fn receiver_paused(bed: &Bed, cg: &Path, total: usize) -> Child {
    let receive = script("receive.py", RECEIVE);
    let mut c = bed
        .in_receiver("python3")
        .arg(&receive)
        .arg(cg.join("cgroup.procs"))
        .args([SERVER, &total.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(c.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "PAUSE", "the receiver did not pause");
    c.stdout = Some(out.into_inner());
    c
}

fn resume(mut c: Child) -> String {
    c.stdin.as_mut().unwrap().write_all(b"go\n").unwrap();
    let mut rest = String::new();
    c.stdout.take().unwrap().read_to_string(&mut rest).unwrap();
    assert!(c.wait().unwrap().success());
    rest
}

/// `rtac daemon --status` until `done` holds, for at most 10 s.
fn status_until(done: impl Fn(&str) -> bool) -> String {
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let o = rtac().args(["daemon", "--status"]).output().unwrap();
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        if done(&text) || Instant::now() > end {
            return text;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The receiver's namespace's inode number, as the daemon labels its groups.
fn netns_inode(bed: &Bed) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(format!("/run/netns/{}", bed.receiver)).unwrap().ino()
}

#[test]
fn the_daemon_puts_two_connections_through_one_veth_into_one_budget() {
    let _serial = require_root();
    let bed = Bed::new("d");
    let total = 64 << 20;
    let _server = Server::start(&bed, total);
    let cg = Cgroup::new("daemon");
    let label = format!("{}@ns{}", bed.veth, netns_inode(&bed));
    {
        let _daemon = Daemon::start("rtac", &cg.0);
        let rx = receiver_paused(&bed, &cg.0, total);
        let group_line = |text: &str| text.lines().find(|l| l.starts_with(&label)).map(str::to_string);
        let text = status_until(|t| {
            group_line(t).is_some_and(|l| l.split_whitespace().nth(1) == Some("2"))
                && t.lines().filter(|l| l.trim_end().ends_with(&label)).count() == 2
        });
        let line = group_line(&text).unwrap_or_else(|| panic!("no group {label} in the status:\n{text}"));
        let f: Vec<&str> = line.split_whitespace().collect();
        // group, conns, window_KB, Mbit/s, queue_ms, base_ms, probing
        assert_eq!(f[1], "2", "both connections in the budget:\n{text}");
        assert!(f[2].parse::<f64>().is_ok_and(|w| w > 0.0), "an aggregate window:\n{text}");
        let members = text.lines().filter(|l| l.contains("10.213.0.1:5201") && l.trim_end().ends_with(&label)).count();
        assert_eq!(members, 2, "both connections' rows name the group:\n{text}");
        assert_eq!(text.lines().filter(|l| l.contains("window budgets per access link")).count(), 1, "{text}");
        let done = resume(rx);
        assert!(done.starts_with(&format!("DONE {total} {total}")), "{done}");
    }
    // Per connection: no budget, no group.
    let _daemon = Daemon::start("rtac:budget=connection", &cg.0);
    let rx = receiver_paused(&bed, &cg.0, total);
    let text = status_until(|t| t.matches("10.213.0.1:5201").count() >= 2);
    assert!(text.contains("window budgets: none"), "{text}");
    assert!(!text.contains(&bed.veth), "{text}");
    resume(rx);
}

#[test]
fn run_mode_bpf_counts_both_connections_in_the_interfaces_budget() {
    let _serial = require_root();
    let bed = Bed::new("r");
    let total = 32 << 20;
    let _server = Server::start(&bed, total);
    let receive = script("receive-run.py", RECEIVE);
    let log = tmp("run.csv");
    let o = bed
        .in_receiver(env!("CARGO_BIN_EXE_rtac-dev"))
        .args(["run", "--mode", "bpf", "-c", "rtac", "--log"])
        .arg(&log)
        .arg("--")
        .arg("python3")
        .arg(&receive)
        .args(["-", SERVER, &total.to_string()])
        .stdin(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let want = format!("window budgets per access link: {}: 2 connection(s), at most 2 at once", bed.veth);
    assert!(stderr.contains(&want), "{stderr}");
    let rows = rtac_live::log::read_log(&log).unwrap();
    let conns: std::collections::BTreeSet<u64> = rows.iter().map(|r| r.conn).collect();
    assert_eq!(conns.len(), 2, "two connections logged");
    assert!(rows.iter().all(|r| r.group == bed.veth), "every row names the group");
}
