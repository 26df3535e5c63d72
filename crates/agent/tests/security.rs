//! `rtac run --mode preload` and the shim against a hostile file system
//! and setuid programs. Each test tries an attack and checks that it fails:
//! a link or a FIFO at the `--log` path or at the shim's summary file, the
//! shim's environment in a setuid program, and `rtac run` on a setuid
//! program naming why its sockets went uncontrolled.
//!
//! They need root (root-owned targets, a setuid-root program run as uid
//! 65534) and `cc`, and fail, never skip, without them. Loopback only.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_rtac-dev");
const CHILD_ENV: &str = "RTAC_SECURITY_CHILD";
const TARGET_ENV: &str = "RTAC_SECURITY_TARGET";
const NOBODY: u32 = 65534;
/// The `static` controller's window in these tests: a socket the shim
/// controls has exactly this TCP_WINDOW_CLAMP.
const CLAMP: &str = "54321";

fn require_root() {
    // SAFETY: geteuid cannot fail.
    assert_eq!(unsafe { libc::geteuid() }, 0, "these tests need root (root-owned targets, setuid programs)");
}

fn preload() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    for p in [deps.join("librtac_preload.so"), deps.parent().unwrap().join("librtac_preload.so")] {
        if p.exists() {
            return p;
        }
    }
    panic!("librtac_preload.so not found next to {}; build the workspace first", exe.display());
}

/// A fresh root-owned 0755 directory.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rtac-run-sec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
    d
}

/// A root-owned 0600 file with known content.
fn secret(dir: &Path) -> PathBuf {
    let p = dir.join("secret");
    std::fs::write(&p, b"root only\n").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
    p
}

fn assert_untouched(p: &Path) {
    let m = std::fs::symlink_metadata(p).unwrap();
    assert_eq!((m.uid(), m.mode() & 0o7777), (0, 0o600), "{} changed owner or mode", p.display());
    assert_eq!(std::fs::read(p).unwrap(), b"root only\n", "{} was written", p.display());
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o666) }, 0);
}

/// Runs `cmd` in a process group of its own and waits at most 60 s: a
/// run that hangs fails the test (and its group is killed).
fn output_within(mut cmd: Command, what: &str) -> Output {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    let mut child = cmd.spawn().expect("the command starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            // SAFETY: kills the process group this test started.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let out = child.wait_with_output().unwrap();
            panic!("{what} hung for 60 s: {}", String::from_utf8_lossy(&out.stderr));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `rtac-dev run --mode preload -c static -p rmem_max=54321 ARGS -- CMD`.
fn rtac_run(args: &[&str], cmd: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(["run", "--mode", "preload", "-c", "static", "-p", &format!("rmem_max={CLAMP}"), "--preload"]);
    c.arg(preload()).args(args).arg("--").args(cmd);
    c
}

/// The child's entry (a no-op in a normal test run): as the program under
/// `rtac run`, it puts a link or a FIFO where its summary file is, reads
/// from a TCP socket, which makes the shim note it, and checks that the
/// summary's directory was a fresh private one.
#[test]
fn child() {
    let Ok(mode) = std::env::var(CHILD_ENV) else { return };
    let summary = PathBuf::from(std::env::var("RTAC_SUMMARY").expect("rtac run names a summary file"));
    let _ = std::fs::remove_file(&summary);
    match mode.as_str() {
        "link" => std::os::unix::fs::symlink(std::env::var(TARGET_ENV).unwrap(), &summary).unwrap(),
        "fifo" => mkfifo(&summary),
        m => panic!("unknown child mode {m}"),
    }
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let mut c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
    let (mut s, _) = l.accept().unwrap();
    s.write_all(&[7u8; 10_000]).unwrap();
    drop(s);
    let mut got = Vec::new();
    c.read_to_end(&mut got).unwrap();
    assert_eq!(got.len(), 10_000);
    let dir = summary.parent().unwrap();
    let m = std::fs::symlink_metadata(dir).unwrap();
    // SAFETY: geteuid cannot fail.
    let euid = unsafe { libc::geteuid() };
    assert!(m.is_dir() && m.uid() == euid && m.mode() & 0o777 == 0o700, "{}: {m:?}", dir.display());
    let name = dir.file_name().unwrap().to_str().unwrap();
    assert!(name.starts_with("rtac-run-") && name.len() == "rtac-run-".len() + 6, "{name}: not a mkdtemp name");
    println!("CHILD-OK");
}

#[test]
fn a_link_or_fifo_in_place_of_the_summary_is_neither_followed_nor_waited_for() {
    require_root();
    let d = temp_dir("summary");
    let target = secret(&d);
    for mode in ["link", "fifo"] {
        let mut c = rtac_run(&[], &[std::env::current_exe().unwrap().to_str().unwrap()]);
        c.args(["child", "--exact", "--nocapture", "--test-threads=1"]).env(CHILD_ENV, mode).env(TARGET_ENV, &target);
        let out = output_within(c, &format!("rtac run with a {mode} at the summary"));
        assert_untouched(&target);
        assert!(
            out.status.success() && text(&out.stdout).contains("CHILD-OK"),
            "{mode}: {}\n{}\n{}",
            out.status,
            text(&out.stdout),
            text(&out.stderr)
        );
        assert!(text(&out.stderr).contains("cannot be read: refused"), "{mode}: {}", text(&out.stderr));
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_link_or_fifo_at_the_log_path_is_refused() {
    require_root();
    let d = temp_dir("log");
    let target = secret(&d);
    let link = d.join("steps.csv");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = output_within(rtac_run(&["--log", link.to_str().unwrap()], &["true"]), "rtac run --log LINK");
    assert!(!out.status.success() && text(&out.stderr).contains("symbolic link"), "{}", text(&out.stderr));
    assert_untouched(&target);
    let fifo = d.join("fifo.csv");
    mkfifo(&fifo);
    let out = output_within(rtac_run(&["--log", fifo.to_str().unwrap()], &["true"]), "rtac run --log FIFO");
    assert!(!out.status.success() && text(&out.stderr).contains("FIFO"), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&d).unwrap();
}

/// Reads TCP data from 127.0.0.1:argv[1] with read(2), then prints
/// getauxval(AT_SECURE) and the socket's TCP_WINDOW_CLAMP.
const PROGRAM: &str = r#"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/socket.h>
#include <unistd.h>
int main(int argc, char **argv) {
    if (argc < 2) return 2;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons(atoi(argv[1]));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0) { perror("connect"); return 1; }
    char buf[4096];
    long total = 0;
    ssize_t n;
    while ((n = read(s, buf, sizeof buf)) > 0) total += n;
    int clamp = 0;
    socklen_t len = sizeof clamp;
    getsockopt(s, IPPROTO_TCP, TCP_WINDOW_CLAMP, &clamp, &len);
    printf("AT_SECURE=%lu READ=%ld CLAMP=%d\n", getauxval(AT_SECURE), total, clamp);
    return 0;
}
"#;

/// Compiles PROGRAM into `dir/name`, linked against `lib` if given (with
/// an absolute RUNPATH, which the loader honours in setuid programs, unlike
/// LD_PRELOAD).
fn compile(dir: &Path, name: &str, lib: Option<&Path>) -> PathBuf {
    let src = dir.join("program.c");
    std::fs::write(&src, PROGRAM).unwrap();
    let out = dir.join(name);
    let mut cc = Command::new("cc");
    cc.arg("-o").arg(&out).arg(&src);
    if let Some(lib) = lib {
        let libdir = lib.parent().unwrap();
        cc.arg(format!("-L{}", libdir.display())).arg("-lrtac_preload").arg(format!("-Wl,-rpath,{}", libdir.display()));
    }
    let o = cc.output().expect("cc runs (these tests need a C compiler)");
    assert!(o.status.success(), "cc failed: {}", text(&o.stderr));
    out
}

/// A loopback server that sends 200 KB to each of `n` connections.
fn server(n: usize) -> (u16, std::thread::JoinHandle<()>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let h = std::thread::spawn(move || {
        for _ in 0..n {
            let (mut s, _) = l.accept().unwrap();
            s.write_all(&vec![1u8; 200_000]).unwrap();
        }
    });
    (port, h)
}

fn field<'a>(out: &'a str, key: &str) -> &'a str {
    out.split_whitespace().find_map(|w| w.strip_prefix(key)).unwrap_or_else(|| panic!("no {key} in {out:?}"))
}

#[test]
fn the_shim_reads_no_environment_and_writes_no_file_in_a_setuid_program() {
    require_root();
    let d = temp_dir("setuid-shim");
    let lib = d.join("librtac_preload.so");
    std::fs::copy(preload(), &lib).unwrap();
    std::fs::set_permissions(&lib, std::fs::Permissions::from_mode(0o755)).unwrap();
    let prog = compile(&d, "linked", Some(&lib));
    // Where the environment tells the shim to write: root may, uid 65534 may not.
    let out_dir = d.join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let log = out_dir.join("log.csv");
    let summary = out_dir.join("summary");
    let run = |setuid: bool| {
        let _ = std::fs::remove_file(&log);
        std::fs::write(&summary, b"").unwrap();
        std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(if setuid { 0o4755 } else { 0o755 })).unwrap();
        let (port, srv) = server(1);
        let mut c = Command::new(&prog);
        c.arg(port.to_string()).env_clear();
        c.envs([("RTAC_CONTROLLER", "static"), ("RTAC_PARAMS", &format!("rmem_max={CLAMP}"))]);
        c.env("RTAC_LOG", &log).env("RTAC_SUMMARY", &summary);
        if setuid {
            c.uid(NOBODY).gid(NOBODY);
        }
        let out = output_within(c, "the program linked with the shim");
        srv.join().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    // Control: as root, not setuid, the linked shim controls the socket and writes both files.
    let plain = run(false);
    assert_eq!((field(&plain, "AT_SECURE="), field(&plain, "CLAMP=")), ("0", CLAMP), "{plain}");
    assert!(log.exists() && !std::fs::read(&summary).unwrap().is_empty(), "the control run wrote nothing");
    // Setuid root, run by uid 65534: the shim stays off and writes nothing.
    let secure = run(true);
    assert_eq!(field(&secure, "AT_SECURE="), "1", "the setuid program did not run in secure-execution mode");
    assert_eq!(field(&secure, "READ="), "200000");
    assert_ne!(field(&secure, "CLAMP="), CLAMP, "the shim controlled a socket in a setuid program");
    assert!(!log.exists(), "the shim created RTAC_LOG in a setuid program");
    assert_eq!(std::fs::read(&summary).unwrap(), b"", "the shim appended to RTAC_SUMMARY in a setuid program");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn rtac_run_names_setuid_when_the_loader_drops_the_shim() {
    require_root();
    let d = temp_dir("setuid-run");
    let prog = compile(&d, "plain", None);
    // Setuid to uid 65534, run by root: the loader ignores LD_PRELOAD.
    std::os::unix::fs::chown(&prog, Some(NOBODY), Some(NOBODY)).unwrap();
    std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o4755)).unwrap();
    let (port, srv) = server(1);
    let out =
        output_within(rtac_run(&[], &[prog.to_str().unwrap(), &port.to_string()]), "rtac run on a setuid program");
    srv.join().unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert_eq!(field(&stdout, "AT_SECURE="), "1");
    assert_ne!(field(&stdout, "CLAMP="), CLAMP);
    assert!(stderr.contains("is setuid (owner uid 65534)"), "{stderr}");
    assert!(
        stderr.contains("no TCP receive socket was controlled") && stderr.matches("setuid").count() >= 2,
        "the closing warning does not name setuid: {stderr}"
    );
    assert_eq!(
        rtac_agent::run::secure_execution_reason(prog.to_str().unwrap()).as_deref(),
        Some("is setuid (owner uid 65534)")
    );
    // Not setuid: no such reason.
    std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(rtac_agent::run::secure_execution_reason(prog.to_str().unwrap()), None);
    std::fs::remove_dir_all(&d).unwrap();
}
