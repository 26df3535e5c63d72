//! What `rtac emu`, run as root, does with the paths it is given: each test
//! tries an attack on `--log DIR` or `--stats FILE` and checks that it
//! fails. They need root (the emulator does; the one full run also needs
//! namespaces) and fail, never skip, without it.
//!
//! `SUDO_UID=65534` stands for a user who may run `sudo rtac emu` and
//! nothing else as root: the emulator must give them no more than their
//! own permissions over the file system.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_rtac-emu");
const NOBODY: u32 = 65534;

fn require_root() {
    // SAFETY: geteuid cannot fail.
    assert_eq!(unsafe { libc::geteuid() }, 0, "these tests run `rtac emu` as root: run them as root");
}

/// A fresh root-owned 0755 directory.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rtac-emu-sec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
    d
}

/// A directory of its own for uid 65534.
fn user_dir(parent: &Path) -> PathBuf {
    let d = parent.join("user");
    std::fs::create_dir(&d).unwrap();
    std::os::unix::fs::chown(&d, Some(NOBODY), Some(NOBODY)).unwrap();
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
    assert_eq!((m.uid(), m.gid(), m.mode() & 0o7777), (0, 0, 0o600), "{} changed owner or mode", p.display());
    assert_eq!(std::fs::read(p).unwrap(), b"root only\n", "{} was written", p.display());
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o666) }, 0);
}

/// Runs `rtac-emu emu ARGS -- true` (as invoked by `sudo` from `sudo_uid`,
/// if given) and waits at most 60 s: a run that hangs fails the test.
fn emu(args: &[&str], sudo_uid: Option<u32>) -> Output {
    let mut c = Command::new(BIN);
    c.arg("emu").args(["--down", "10mbit", "--up", "10mbit"]).args(args).args(["--", "true"]);
    c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    c.env_remove("SUDO_UID").env_remove("SUDO_GID").env_remove("SUDO_USER");
    if let Some(u) = sudo_uid {
        c.env("SUDO_UID", u.to_string()).env("SUDO_GID", u.to_string());
    }
    let mut child = c.spawn().expect("rtac-emu starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            // SAFETY: kills the process group this test started.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let out = child.wait_with_output().unwrap();
            panic!("rtac emu {args:?} hung for 60 s: {}", String::from_utf8_lossy(&out.stderr));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_link_at_a_log_or_stats_path_is_not_followed() {
    require_root();
    let d = temp_dir("link");
    let target = secret(&d);
    let user = user_dir(&d);
    let u = user.to_str().unwrap();
    // The sudo user points down.log at a root-only file.
    std::os::unix::fs::symlink(&target, user.join("down.log")).unwrap();
    let out = emu(&["--log", u], Some(NOBODY));
    assert!(!out.status.success(), "a link at down.log was accepted");
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    assert_untouched(&target);
    // The same as plain root, and at --stats.
    std::fs::remove_file(user.join("down.log")).unwrap();
    std::os::unix::fs::symlink(&target, user.join("up.log")).unwrap();
    let out = emu(&["--log", u], None);
    assert!(!out.status.success() && stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    let stats = user.join("stats.json");
    std::os::unix::fs::symlink(&target, &stats).unwrap();
    let out = emu(&["--stats", stats.to_str().unwrap()], Some(NOBODY));
    assert!(!out.status.success() && stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    assert_untouched(&target);
    // A link as the log directory itself.
    std::os::unix::fs::symlink(&d, user.join("dir-link")).unwrap();
    let out = emu(&["--log", user.join("dir-link").to_str().unwrap()], None);
    assert!(!out.status.success() && stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    assert_untouched(&target);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_fifo_or_device_at_a_log_path_is_refused_at_once() {
    require_root();
    let d = temp_dir("fifo");
    let user = user_dir(&d);
    mkfifo(&user.join("down.log"));
    std::os::unix::fs::chown(user.join("down.log"), Some(NOBODY), Some(NOBODY)).unwrap();
    // Opening a FIFO for writing would wait for a reader forever.
    let out = emu(&["--log", user.to_str().unwrap()], Some(NOBODY));
    assert!(!out.status.success() && stderr(&out).contains("FIFO"), "{}", stderr(&out));
    let out = emu(&["--stats", "/dev/null"], None);
    assert!(!out.status.success() && stderr(&out).contains("character device"), "{}", stderr(&out));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn an_existing_directory_is_never_handed_to_the_sudo_user() {
    require_root();
    // A root-owned directory, as /etc is.
    let d = temp_dir("rootdir");
    std::fs::write(d.join("config"), b"x").unwrap();
    let out = emu(&["--log", d.to_str().unwrap()], Some(NOBODY));
    assert!(!out.status.success(), "the sudo user wrote logs into a root-owned directory");
    assert!(stderr(&out).contains("Permission denied") && stderr(&out).contains("65534"), "{}", stderr(&out));
    let m = std::fs::metadata(&d).unwrap();
    assert_eq!((m.uid(), m.gid()), (0, 0), "the directory was chowned");
    for e in std::fs::read_dir(&d).unwrap() {
        let e = e.unwrap();
        assert_eq!(e.metadata().unwrap().uid(), 0, "{} is not root's", e.path().display());
    }
    // --stats into it, likewise.
    let out = emu(&["--stats", d.join("stats.json").to_str().unwrap()], Some(NOBODY));
    assert!(!out.status.success() && !d.join("stats.json").exists(), "{}", stderr(&out));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn the_sudo_users_logs_are_created_as_theirs() {
    require_root();
    let d = temp_dir("owned");
    let user = user_dir(&d);
    let log = user.join("new").join("run");
    let stats = user.join("stats.json");
    let out =
        emu(&["--log", log.to_str().unwrap(), "--stats", stats.to_str().unwrap(), "--server", "true"], Some(NOBODY));
    assert!(out.status.success(), "{}", stderr(&out));
    for p in
        [user.join("new"), log.clone(), log.join("down.log"), log.join("up.log"), log.join("server.log"), stats.clone()]
    {
        let m = std::fs::symlink_metadata(&p).unwrap();
        assert_eq!((m.uid(), m.gid()), (NOBODY, NOBODY), "{} is not the sudo user's", p.display());
    }
    assert!(std::fs::read_to_string(log.join("down.log")).unwrap().starts_with("# rtac-emu link log v1"));
    assert!(std::fs::read_to_string(&stats).unwrap().contains("\"down\""));
    // The parent the user owned is still theirs, the test's directory root's.
    assert_eq!(std::fs::metadata(&d).unwrap().uid(), 0);
    std::fs::remove_dir_all(&d).unwrap();
}
