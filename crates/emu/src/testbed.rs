//! The testbed: network namespaces, devices and processes of one emulator
//! instance, a registry to find what a crashed instance left behind, and
//! their removal.
//!
//! ```text
//!  rtac-<id>-srv            rtac-<id>-emu                 rtac-<id>-cli
//!  rtac0 100.64.0.1 ==veth== to-srv  [rtac emu]  to-cli ==veth== rtac0 100.64.0.2
//! ```
//!
//! With `--forward tun` there is no emulator namespace: each endpoint has a
//! TUN device `rtac0` whose other end is the emulator process.
//!
//! Registry: `/run/rtac/<id>.lock` is created and `flock`ed by the instance
//! for its whole life; a namespace `rtac-<id>-*` whose lock file is missing
//! or not locked belongs to a dead instance and is removed (with every
//! process still inside) by the next start. `/run/rtac/registry.lock`
//! serialises these checks between instances starting at the same time.

use crate::forward::{DirIo, Forward, Port};
use crate::sys;
use crate::EmuError;
use rtac_core::units::clip;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Where instances register.
pub const RUN_DIR: &str = "/run/rtac";
/// Address of the server end.
pub const SERVER_ADDR: &str = "100.64.0.1";
/// Address of the client end.
pub const CLIENT_ADDR: &str = "100.64.0.2";
const SERVER_MAC: &str = "02:72:74:61:63:01";
const CLIENT_MAC: &str = "02:72:74:61:63:02";
/// Device name of each endpoint, inside its namespace.
pub const ENDPOINT_DEV: &str = "rtac0";
const EMU_SRV_DEV: &str = "to-srv";
const EMU_CLI_DEV: &str = "to-cli";
/// Socket buffer of the emulator's packet sockets.
const SOCKET_BUFFER: usize = 16 << 20;

/// Which endpoint namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Server,
    Client,
}

/// One emulator instance's namespaces and devices. Dropping it removes
/// them (and kills every process left inside).
pub struct Testbed {
    pub id: String,
    pub forward: Forward,
    srv: String,
    cli: String,
    emu: String,
    lock_path: PathBuf,
    _lock: File,
    tun: Option<(Arc<OwnedFd>, Arc<OwnedFd>)>,
    destroyed: bool,
}

fn ip_binary() -> String {
    for p in ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"] {
        if Path::new(p).exists() {
            return p.to_string();
        }
    }
    "ip".to_string()
}

/// Runs `ip ARGS`, turning a failure into a setup error that shows the
/// command and what `ip` said.
fn ip(args: &[&str]) -> Result<(), EmuError> {
    let out = Command::new(ip_binary())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| EmuError::Setup(format!("cannot run `ip` (iproute2): {e}")))?;
    if !out.status.success() {
        return Err(EmuError::Setup(format!(
            "`ip {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(())
}

/// Writes a sysctl in namespace `ns` (`net.ipv4.tcp_rmem` → /proc/sys/...).
fn sysctl(ns: &str, key: &str, value: &str) -> Result<(), EmuError> {
    let path = format!("/proc/sys/{}", key.replace('.', "/"));
    let (k, v) = (key.to_string(), value.to_string());
    sys::in_netns(ns, move || std::fs::write(&path, v.as_bytes())).map_err(|e| {
        EmuError::Setup(format!("cannot set sysctl {}={:?} in namespace {ns}: {e}", clip(&k), clip(value)))
    })
}

/// Takes the registry lock (creating /run/rtac).
fn registry_lock() -> Result<File, EmuError> {
    std::fs::create_dir_all(RUN_DIR).map_err(|e| EmuError::Setup(format!("cannot create {RUN_DIR}: {e}")))?;
    let f = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(format!("{RUN_DIR}/registry.lock"))
        .map_err(|e| EmuError::Setup(format!("cannot open {RUN_DIR}/registry.lock: {e}")))?;
    sys::flock(&f, true);
    Ok(f)
}

/// The (device, inode) of a namespace file, to recognise its processes.
fn ns_identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Pids of the processes whose network namespace is `ns` (other than us).
pub fn processes_in(ns: &str) -> Vec<i32> {
    let Some(id) = ns_identity(&Path::new("/run/netns").join(ns)) else { return Vec::new() };
    let me = std::process::id() as i32;
    let mut pids = Vec::new();
    if let Ok(rd) = std::fs::read_dir("/proc") {
        for e in rd.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
            if pid == me {
                continue;
            }
            if ns_identity(&e.path().join("ns/net")) == Some(id) {
                pids.push(pid);
            }
        }
    }
    pids
}

/// SIGKILLs every process in `ns` and waits (up to 2 s) until none is left.
fn kill_all_in(ns: &str) {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let pids = processes_in(ns);
        if pids.is_empty() || Instant::now() > deadline {
            return;
        }
        for p in pids {
            sys::kill(p, libc::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn delete_netns(ns: &str) {
    kill_all_in(ns);
    if Path::new("/run/netns").join(ns).exists() {
        let _ = ip(&["netns", "delete", ns]);
    }
}

/// The instance id of an `rtac-<id>-<role>` namespace name.
fn instance_of(ns: &str) -> Option<&str> {
    let rest = ns.strip_prefix("rtac-")?;
    let (id, role) = rest.rsplit_once('-')?;
    matches!(role, "srv" | "cli" | "emu").then_some(id)
}

/// Whether instance `id` is alive (its lock file is locked).
fn alive(id: &str) -> bool {
    match File::open(format!("{RUN_DIR}/{id}.lock")) {
        Ok(f) => !sys::flock(&f, false),
        Err(_) => false,
    }
}

/// Removes what dead instances left: their namespaces, the processes in
/// them, their lock files. Returns the namespaces removed. Must hold the
/// registry lock.
fn cleanup_stale_locked() -> Vec<String> {
    let mut removed = Vec::new();
    let mut dead_ids = std::collections::BTreeSet::new();
    if let Ok(rd) = std::fs::read_dir("/run/netns") {
        let mut names: Vec<String> = rd.flatten().filter_map(|e| e.file_name().to_str().map(String::from)).collect();
        names.sort();
        for ns in names {
            let Some(id) = instance_of(&ns) else { continue };
            if !alive(id) {
                dead_ids.insert(id.to_string());
                delete_netns(&ns);
                removed.push(ns);
            }
        }
    }
    if let Ok(rd) = std::fs::read_dir(RUN_DIR) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(id) = name.strip_suffix(".lock").filter(|id| *id != "registry") {
                if dead_ids.contains(id) || !alive(id) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
    }
    removed
}

/// Removes what crashed instances left behind (see the module docs).
pub fn cleanup_stale() -> Result<Vec<String>, EmuError> {
    let _g = registry_lock()?;
    Ok(cleanup_stale_locked())
}

/// How to run a command as the invoking user.
#[derive(Clone, Debug)]
pub struct RunAs {
    pub uid: u32,
    pub gid: u32,
    pub groups: Vec<libc::gid_t>,
}

impl RunAs {
    /// The user who ran `sudo` (SUDO_UID/SUDO_GID), if not root.
    pub fn invoking_user() -> Option<RunAs> {
        let uid: u32 = std::env::var("SUDO_UID").ok()?.parse().ok()?;
        let gid: u32 = std::env::var("SUDO_GID").ok().and_then(|g| g.parse().ok()).unwrap_or(uid);
        if uid == 0 {
            return None;
        }
        Some(RunAs { uid, gid, groups: sys::user_groups(uid, gid) })
    }
}

impl Testbed {
    /// Creates a fresh testbed, after removing what dead instances left.
    pub fn create(forward: Forward, sysctls: &[(String, String)]) -> Result<Testbed, EmuError> {
        let guard = registry_lock()?;
        for ns in cleanup_stale_locked() {
            eprintln!("rtac emu: removed namespace {ns} left by an emulator that is no longer running");
        }
        let id = std::process::id().to_string();
        let lock_path = PathBuf::from(format!("{RUN_DIR}/{id}.lock"));
        let mut lock = OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .open(&lock_path)
            .map_err(|e| EmuError::Setup(format!("cannot create {}: {e}", lock_path.display())))?;
        if !sys::flock(&lock, false) {
            return Err(EmuError::Setup(format!("{} is locked by another process", lock_path.display())));
        }
        let _ = writeln!(lock, "pid {id}\nnetns rtac-{id}-srv rtac-{id}-cli rtac-{id}-emu\nforward {forward}");
        let mut tb = Testbed {
            srv: format!("rtac-{id}-srv"),
            cli: format!("rtac-{id}-cli"),
            emu: format!("rtac-{id}-emu"),
            id,
            forward,
            lock_path,
            _lock: lock,
            tun: None,
            destroyed: false,
        };
        drop(guard);
        // On error, dropping `tb` removes whatever was created.
        tb.build(sysctls)?;
        Ok(tb)
    }

    fn build(&mut self, sysctls: &[(String, String)]) -> Result<(), EmuError> {
        let (srv, cli, emu) = (self.srv.clone(), self.cli.clone(), self.emu.clone());
        let all: &[&str] = if self.forward == Forward::Packet { &[&srv, &cli, &emu] } else { &[&srv, &cli] };
        for ns in all {
            ip(&["netns", "add", ns])?;
            // No IPv6: no router solicitations or DAD in the logs.
            sysctl(ns, "net.ipv6.conf.all.disable_ipv6", "1")?;
            sysctl(ns, "net.ipv6.conf.default.disable_ipv6", "1")?;
            ip(&["-n", ns, "link", "set", "lo", "up"])?;
        }
        for ns in [&srv, &cli] {
            for (k, v) in sysctls {
                sysctl(ns, k, v)?;
            }
        }
        match self.forward {
            Forward::Packet => {
                #[rustfmt::skip]
                ip(&["link", "add", ENDPOINT_DEV, "netns", &srv, "address", SERVER_MAC, "type", "veth",
                     "peer", "name", EMU_SRV_DEV, "netns", &emu])?;
                #[rustfmt::skip]
                ip(&["link", "add", ENDPOINT_DEV, "netns", &cli, "address", CLIENT_MAC, "type", "veth",
                     "peer", "name", EMU_CLI_DEV, "netns", &emu])?;
                for (ns, addr) in [(&srv, SERVER_ADDR), (&cli, CLIENT_ADDR)] {
                    ip(&["-n", ns, "addr", "add", &format!("{addr}/24"), "dev", ENDPOINT_DEV])?;
                }
                // Static neighbours: no ARP through the emulated link.
                #[rustfmt::skip]
                ip(&["-n", &srv, "neigh", "replace", CLIENT_ADDR, "lladdr", CLIENT_MAC, "dev", ENDPOINT_DEV, "nud", "permanent"])?;
                #[rustfmt::skip]
                ip(&["-n", &cli, "neigh", "replace", SERVER_ADDR, "lladdr", SERVER_MAC, "dev", ENDPOINT_DEV, "nud", "permanent"])?;
                for ns in [&srv, &cli] {
                    set_offloads(ns)?;
                    ip(&["-n", ns, "link", "set", ENDPOINT_DEV, "up"])?;
                }
                for dev in [EMU_SRV_DEV, EMU_CLI_DEV] {
                    ip(&["-n", &emu, "link", "set", dev, "up"])?;
                }
            }
            Forward::Tun => {
                let s = sys::in_netns(&srv, || sys::tun_open(ENDPOINT_DEV))
                    .map_err(|e| EmuError::Setup(format!("cannot create TUN device in {srv}: {e}")))?;
                let c = sys::in_netns(&cli, || sys::tun_open(ENDPOINT_DEV))
                    .map_err(|e| EmuError::Setup(format!("cannot create TUN device in {cli}: {e}")))?;
                self.tun = Some((Arc::new(s), Arc::new(c)));
                for (ns, local, peer) in [(&srv, SERVER_ADDR, CLIENT_ADDR), (&cli, CLIENT_ADDR, SERVER_ADDR)] {
                    ip(&["-n", ns, "addr", "add", local, "peer", &format!("{peer}/32"), "dev", ENDPOINT_DEV])?;
                    ip(&["-n", ns, "link", "set", ENDPOINT_DEV, "txqueuelen", "10000", "up"])?;
                }
            }
        }
        Ok(())
    }

    /// Namespace name of an endpoint.
    pub fn netns(&self, side: Side) -> &str {
        match side {
            Side::Server => &self.srv,
            Side::Client => &self.cli,
        }
    }

    /// The emulator's ports: (down: server → client, up: client → server).
    pub fn ports(&self) -> Result<(DirIo, DirIo), EmuError> {
        match self.forward {
            Forward::Packet => {
                let open = |dev: &'static str, rx: bool| -> Result<Port, EmuError> {
                    let fd = sys::in_netns(&self.emu, move || sys::packet_socket(dev, rx, SOCKET_BUFFER))
                        .map_err(|e| EmuError::Setup(format!("cannot open a packet socket on {dev}: {e}")))?;
                    Ok(Port { fd: Arc::new(fd), kind: Forward::Packet })
                };
                let down = DirIo { rx: open(EMU_SRV_DEV, true)?, tx: open(EMU_CLI_DEV, false)? };
                let up = DirIo { rx: open(EMU_CLI_DEV, true)?, tx: open(EMU_SRV_DEV, false)? };
                Ok((down, up))
            }
            Forward::Tun => {
                let (s, c) = self.tun.clone().expect("TUN devices exist in TUN mode");
                let port = |fd: Arc<OwnedFd>| Port { fd, kind: Forward::Tun };
                Ok((DirIo { rx: port(s.clone()), tx: port(c.clone()) }, DirIo { rx: port(c), tx: port(s) }))
            }
        }
    }

    /// Starts `argv` in an endpoint namespace, as `user` if given, in a
    /// process group of its own if `own_group`, with its stdout and stderr
    /// sent to `output` if given (inherited otherwise).
    pub fn spawn(
        &self,
        side: Side,
        argv: &[String],
        user: Option<&RunAs>,
        env: &[(&str, String)],
        own_group: bool,
        output: Option<(Stdio, Stdio)>,
    ) -> io::Result<Child> {
        let ns = sys::open_netns(self.netns(side))?;
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..]);
        if let Some((out, err)) = output {
            cmd.stdout(out).stderr(err);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        if own_group {
            cmd.process_group(0);
        }
        let user = user.cloned();
        let fd = ns.as_raw_fd();
        // SAFETY: only async-signal-safe syscalls (setns, setgroups, setgid,
        // setuid) run between fork and exec. The namespace is joined first,
        // while still privileged; then privileges are dropped.
        unsafe {
            cmd.pre_exec(move || {
                sys::setns_net(fd)?;
                if let Some(u) = &user {
                    if libc::setgroups(u.groups.len(), u.groups.as_ptr()) != 0
                        || libc::setgid(u.gid) != 0
                        || libc::setuid(u.uid) != 0
                    {
                        return Err(io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        let child = cmd.spawn();
        drop(ns);
        child
    }

    /// Kills every process left in the endpoint namespaces.
    pub fn kill_processes(&self) {
        for ns in [&self.srv, &self.cli, &self.emu] {
            kill_all_in(ns);
        }
    }

    /// Removes the namespaces (and so the devices) and the registry entry.
    pub fn destroy(&mut self) {
        if self.destroyed {
            return;
        }
        self.destroyed = true;
        self.tun = None;
        let _g = registry_lock();
        for ns in [&self.srv, &self.cli, &self.emu] {
            delete_netns(ns);
        }
        let _ = std::fs::remove_file(&self.lock_path);
    }
}

impl Drop for Testbed {
    fn drop(&mut self) {
        self.destroy();
    }
}

/// Turns off the segmentation offloads (TSO, UDP GSO, ...) and GRO of the
/// endpoint device of `ns`, so that every frame the emulator sees is a
/// wire-size packet (at most the 1500-byte MTU), as the link model needs,
/// and every frame it delivers reaches TCP as it was sent (as with
/// Mahimahi's TUN devices). Software GSO stays on: the kernel still builds
/// large segments and cuts them just before the device, which is cheap.
fn set_offloads(ns: &str) -> Result<(), EmuError> {
    let want = |name: &str| {
        let tso = name.starts_with("tx-") && name.ends_with("segmentation") && name != "tx-generic-segmentation";
        (tso || name.starts_with("rx-gro")).then_some(false)
    };
    sys::in_netns(ns, move || sys::set_features(ENDPOINT_DEV, want))
        .map(|_| ())
        .map_err(|e| EmuError::Setup(format!("cannot set the offloads of {ENDPOINT_DEV} in {ns}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_names_map_to_their_instance() {
        assert_eq!(instance_of("rtac-1234-srv"), Some("1234"));
        assert_eq!(instance_of("rtac-1234-emu"), Some("1234"));
        assert_eq!(instance_of("rtac-1234-xyz"), None);
        assert_eq!(instance_of("other-1-srv"), None);
    }
}
