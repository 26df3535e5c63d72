//! The BPF mode: a sock_ops program (`bpf/rtac.bpf.c`, compiled by clang at
//! build time, loaded with aya) on a cgroup v2 measures every TCP socket of
//! the cgroup and applies, on every outgoing segment, the window user space
//! computes with the `rtac-core` controller ([`engine`]).
//!
//! Lifecycle: the program's link is pinned under [`PIN_DIR`], named after
//! its instance, so that a killed process leaves it attached; the program
//! then sees the heartbeat go stale and gives every socket its kernel
//! window back. Each instance holds a lock ([`instance`]) for its whole
//! life; the next start removes the pins of instances whose lock nobody
//! holds ([`remove_pin`]). A clean stop ([`Bpf::release`]) restores every
//! socket at once and detaches.
//!
//! Capacity: `clamps` and `ended` are sized at load time ([`capacity`]);
//! a socket that cannot be tracked (its answer not stored, user space at
//! its capacity, its sample lost) is given back to the kernel by the
//! program after [`STALE`] without an answer, and counted ([`Counters`]).

pub mod abi;
pub mod engine;
pub mod instance;

use crate::error::AgentError;
use abi::{count, Clamp, Ctl, Sample, SAMPLE_CLOSED};
use aya::maps::{Array, HashMap, MapData, PerCpuArray, RingBuf};
use aya::programs::links::{FdLink, PinnedLink};
use aya::programs::{CgroupAttachMode, Iter, SockOps};
use aya::{Btf, Ebpf, EbpfLoader};
use engine::{Action, Engine};
use rtac_core::time::Duration;
use std::fmt;
use std::io::Read;
use std::os::fd::{AsFd, AsRawFd};
use std::path::{Path, PathBuf};

/// Where the links are pinned (bpffs), one per running instance, named
/// after the instance (its lock in [`instance::RUN_DIR`]).
pub const PIN_DIR: &str = "/sys/fs/bpf/rtac";

/// The most sockets an instance tracks by default, whatever the system
/// allows: user space keeps a controller per socket (about 1 KB each).
pub const MAX_CAPACITY: u32 = 1 << 20;

/// How many sockets an instance tracks at most, from the system's limits:
/// every socket is a file, so no more than `fs.file-max` can be open, and
/// never more than [`MAX_CAPACITY`]. The maps allocate per entry, so a
/// large capacity costs nothing until sockets fill it.
pub fn capacity() -> u32 {
    let files = std::fs::read_to_string("/proc/sys/fs/file-max")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(MAX_CAPACITY as u64);
    files.clamp(1024, MAX_CAPACITY as u64) as u32
}

/// After this long without a heartbeat the program releases every socket.
pub const STALE: Duration = Duration::from_secs(1);

/// How often user space writes its heartbeat (and at most how long a poll
/// waits).
pub const HEARTBEAT: Duration = Duration::from_millis(100);

#[cfg(rtac_bpf_object)]
static OBJECT: Option<&[u8]> = Some(include_bytes!(concat!(env!("OUT_DIR"), "/rtac.bpf.o")));
#[cfg(not(rtac_bpf_object))]
static OBJECT: Option<&[u8]> = None;

/// Why the BPF mode cannot run. Every message ends by naming the way out.
#[derive(Debug)]
pub enum BpfError {
    /// This build has no BPF program (clang was missing at build time).
    NotBuilt,
    /// The kernel is older than 5.11 (no TCP_WINDOW_CLAMP from BPF).
    OldKernel(String),
    /// No kernel BTF (/sys/kernel/btf/vmlinux): CO-RE cannot relocate.
    NoBtf,
    /// No cgroup v2 hierarchy is mounted.
    NoCgroup2,
    /// The kernel refused for lack of privilege (CAP_BPF, CAP_NET_ADMIN).
    NotPermitted { what: String, err: String },
    /// Another failure while loading, attaching or using the program.
    Failed { what: String, err: String },
}

impl fmt::Display for BpfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BpfError::NotBuilt => f.write_str(
                "this rtac was built without its BPF program (clang was not found at build time); install clang and rebuild",
            ),
            BpfError::OldKernel(r) => {
                write!(f, "kernel {r} is older than 5.11, which lets BPF set TCP_WINDOW_CLAMP")
            }
            BpfError::NoBtf => f.write_str("the kernel has no BTF (/sys/kernel/btf/vmlinux is missing)"),
            BpfError::NoCgroup2 => f.write_str("no cgroup v2 hierarchy is mounted (see /proc/mounts)"),
            BpfError::NotPermitted { what, err } => {
                write!(f, "{what}: {err}: loading BPF needs root (CAP_BPF and CAP_NET_ADMIN)")
            }
            BpfError::Failed { what, err } => write!(f, "{what}: {err}"),
        }
    }
}

impl std::error::Error for BpfError {}

impl From<BpfError> for AgentError {
    fn from(e: BpfError) -> AgentError {
        AgentError::Usage(format!("BPF mode unavailable: {e}"))
    }
}

fn failed(what: impl Into<String>) -> impl FnOnce(String) -> BpfError {
    let what = what.into();
    move |err| {
        let eperm = err.contains("Operation not permitted") || err.contains("Permission denied");
        if eperm {
            BpfError::NotPermitted { what, err }
        } else {
            BpfError::Failed { what, err }
        }
    }
}

/// The kernel release (`uname -r`) as (major, minor).
fn kernel_version() -> (String, Option<(u32, u32)>) {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default().trim().to_string();
    let mut it = release.split(|c: char| !c.is_ascii_digit()).filter_map(|p| p.parse::<u32>().ok());
    let v = it.next().zip(it.next());
    (release, v)
}

/// The mount point of the cgroup v2 hierarchy, from /proc/mounts.
pub fn cgroup2_root() -> Result<PathBuf, BpfError> {
    let mounts = std::fs::read_to_string("/proc/mounts").map_err(|_| BpfError::NoCgroup2)?;
    mounts
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.len() > 2 && f[2] == "cgroup2")
        .map(|f| PathBuf::from(f[1]))
        .ok_or(BpfError::NoCgroup2)
}

/// Checks what can be checked before loading: the program, the kernel
/// version, BTF, cgroup v2. Privilege shows at load time.
pub fn check_support() -> Result<(), BpfError> {
    if OBJECT.is_none() {
        return Err(BpfError::NotBuilt);
    }
    let (release, v) = kernel_version();
    if v.is_some_and(|v| v < (5, 11)) {
        return Err(BpfError::OldKernel(release));
    }
    if !Path::new("/sys/kernel/btf/vmlinux").exists() {
        return Err(BpfError::NoBtf);
    }
    cgroup2_root().map(|_| ())
}

/// Mounts bpffs on /sys/fs/bpf if nothing is mounted there.
fn ensure_bpffs() -> Result<(), BpfError> {
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    if mounts.lines().any(|l| l.split_whitespace().nth(1) == Some("/sys/fs/bpf")) {
        return Ok(());
    }
    let _ = std::fs::create_dir_all("/sys/fs/bpf");
    let c = |s: &str| std::ffi::CString::new(s).expect("no NUL");
    let (src, target, fstype) = (c("bpf"), c("/sys/fs/bpf"), c("bpf"));
    // SAFETY: valid C strings; no data argument.
    let r = unsafe { libc::mount(src.as_ptr(), target.as_ptr(), fstype.as_ptr(), 0, std::ptr::null()) };
    if r != 0 {
        return Err(failed("mount bpffs on /sys/fs/bpf")(std::io::Error::last_os_error().to_string()));
    }
    Ok(())
}

/// The names of the pinned links: one per instance, running or left by a
/// killed one.
pub fn pinned_names() -> Vec<String> {
    std::fs::read_dir(PIN_DIR)
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default()
}

/// Removes the pinned link `name`, detaching its program: only for an
/// instance whose lock the caller holds (a dead one's, or its own).
/// `Ok(false)`: there was none.
pub fn remove_pin(name: &str) -> Result<bool, String> {
    let path = Path::new(PIN_DIR).join(name);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(false);
    }
    match PinnedLink::from_pin(&path).map_err(|e| e.to_string()).and_then(|l| l.unpin().map_err(|e| e.to_string())) {
        Ok(link) => {
            drop(link);
            Ok(true)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&path);
            Err(format!("{}: {e}", path.display()))
        }
    }
}

/// The inode number of a cgroup directory: the cgroup's id in the kernel.
fn cgroup_id(path: &Path) -> Result<u64, BpfError> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).map(|m| m.ino()).map_err(|e| failed(format!("cgroup {}", path.display()))(chain(&e)))
}

fn now_ns() -> u64 {
    crate::sys::now().as_nanos()
}

/// What could not be tracked or delivered, since the start.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counters {
    /// Sockets the program gave back to the kernel: no answer for [`STALE`].
    pub given_up: u64,
    /// Samples lost to a full ring buffer.
    pub lost_samples: u64,
    /// Sockets the kernel had no memory to track.
    pub no_storage: u64,
    /// Socket ends lost (ring buffer and `ended` full): reaped by age.
    pub lost_ends: u64,
    /// Answers `clamps` refused (full, or no memory).
    pub insert_failed: u64,
    /// Sockets user space did not track: at its capacity.
    pub over_capacity: u64,
    /// Sockets removed from the table and `clamps` through `ended`.
    pub reaped: u64,
}

impl Counters {
    /// Whether anything went untracked or undelivered.
    pub fn any(&self) -> bool {
        *self != Counters { reaped: self.reaped, ..Counters::default() }
    }
}

impl fmt::Display for Counters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "untracked: {} socket(s) given back to the kernel's own window (no answer within {} ms), {} over \
             capacity, {} answer(s) the clamps map refused, {} without kernel memory; {} sample(s) and {} end(s) \
             lost to a full ring buffer; {} ended socket(s) reaped",
            self.given_up,
            STALE.as_millis(),
            self.over_capacity,
            self.insert_failed,
            self.no_storage,
            self.lost_samples,
            self.lost_ends,
            self.reaped
        )
    }
}

/// The loaded program, attached to one cgroup.
pub struct Bpf {
    ebpf: Ebpf,
    ring: RingBuf<MapData>,
    clamps: HashMap<MapData, u64, Clamp>,
    ended: HashMap<MapData, u64, u32>,
    counters: PerCpuArray<MapData, u64>,
    insert_failed: u64,
    reaped: u64,
    ctl: Array<MapData, Ctl>,
    /// Batches of answers written into `clamps`, for the program.
    answers: Array<MapData, u64>,
    answers_written: u64,
    ctl_value: Ctl,
    pin: PathBuf,
    link: Option<PinnedLink>,
    last_heartbeat: u64,
    lags: Lags,
}

/// Control lag: from the sample taken in the kernel that a window answers
/// (the last of a socket's samples that waited in the ring together) to
/// that window written into the map, per answer, for the closing summary.
#[derive(Default)]
pub struct Lags {
    /// The most recent [`Lags::KEPT`] lags, µs.
    recent: Vec<u32>,
    next: usize,
    pub count: u64,
}

impl Lags {
    pub const KEPT: usize = 1 << 16;

    fn add(&mut self, us: u32) {
        if self.recent.len() < Self::KEPT {
            self.recent.push(us);
        } else {
            self.recent[self.next] = us;
            self.next = (self.next + 1) % Self::KEPT;
        }
        self.count += 1;
    }

    /// (median, 99th percentile) in µs of the kept lags.
    pub fn quantiles(&self) -> Option<(u32, u32)> {
        let mut v = self.recent.clone();
        v.sort_unstable();
        (!v.is_empty()).then(|| (v[v.len() / 2], v[(v.len() * 99 / 100).min(v.len() - 1)]))
    }

    /// How many lags the quantiles cover (the most recent ones).
    pub fn kept(&self) -> usize {
        self.recent.len()
    }
}

impl Bpf {
    /// Loads the program and attaches it to `cgroup`, pinning its link as
    /// `PIN_DIR/<name>` (`name`: the instance, whose lock the caller holds).
    /// `initial_clamp`: the controller's window before its first step
    /// (bytes, 0: none), applied until the socket's first step.
    /// `capacity`: the most sockets tracked at once ([`capacity`]).
    pub fn attach(cgroup: &Path, name: &str, uplink: bool, initial_clamp: u32, capacity: u32) -> Result<Bpf, BpfError> {
        check_support()?;
        let object = OBJECT.ok_or(BpfError::NotBuilt)?;
        let capacity = capacity.max(1);
        let mut ebpf = EbpfLoader::new()
            .map_max_entries("clamps", capacity)
            .map_max_entries("ended", capacity)
            .load(object)
            .map_err(|e| failed("loading the BPF object")(chain(&e)))?;
        let take =
            |ebpf: &mut Ebpf, m: &str| ebpf.take_map(m).ok_or_else(|| failed("BPF object")(format!("no map {m}")));
        let ring = RingBuf::try_from(take(&mut ebpf, "samples")?).map_err(|e| failed("map samples")(chain(&e)))?;
        let clamps = HashMap::try_from(take(&mut ebpf, "clamps")?).map_err(|e| failed("map clamps")(chain(&e)))?;
        let mut ctl = Array::try_from(take(&mut ebpf, "ctl")?).map_err(|e| failed("map ctl")(chain(&e)))?;
        let answers = Array::try_from(take(&mut ebpf, "answers")?).map_err(|e| failed("map answers")(chain(&e)))?;
        let ended = HashMap::try_from(take(&mut ebpf, "ended")?).map_err(|e| failed("map ended")(chain(&e)))?;
        let counters =
            PerCpuArray::try_from(take(&mut ebpf, "counters")?).map_err(|e| failed("map counters")(chain(&e)))?;
        let ctl_value = Ctl {
            heartbeat_ns: now_ns(),
            stale_ns: STALE.as_nanos(),
            cgroup_id: cgroup_id(cgroup)?,
            uplink: uplink as u32,
            initial_clamp,
            ..Ctl::default()
        };
        ctl.set(0, ctl_value, 0).map_err(|e| failed("map ctl")(chain(&e)))?;
        let cg = std::fs::File::open(cgroup).map_err(|e| failed(format!("cgroup {}", cgroup.display()))(chain(&e)))?;
        let prog: &mut SockOps = program(&mut ebpf, "rtac_sockops")?;
        prog.load().map_err(|e| failed("loading the sock_ops program")(verbose(&e)))?;
        let id = prog
            .attach(cg.as_fd(), CgroupAttachMode::Single)
            .map_err(|e| failed(format!("attaching to cgroup {}", cgroup.display()))(chain(&e)))?;
        let link = prog.take_link(id).map_err(|e| failed("sock_ops link")(chain(&e)))?;
        let link = FdLink::try_from(link).map_err(|e| failed("sock_ops link")(chain(&e)))?;
        ensure_bpffs()?;
        std::fs::create_dir_all(PIN_DIR).map_err(|e| failed(format!("creating {PIN_DIR}"))(chain(&e)))?;
        let pin = Path::new(PIN_DIR).join(name);
        // A pin of this name is a dead predecessor's: the caller holds the name.
        let _ = remove_pin(name);
        let link = link.pin(&pin).map_err(|e| failed(format!("pinning {}", pin.display()))(chain(&e)))?;
        Ok(Bpf {
            ebpf,
            ring,
            clamps,
            ended,
            counters,
            insert_failed: 0,
            reaped: 0,
            ctl,
            ctl_value,
            answers,
            answers_written: 0,
            pin,
            link: Some(link),
            last_heartbeat: now_ns(),
            lags: Lags::default(),
        })
    }

    /// Runs an iter/tcp program once over every TCP socket.
    fn iterate(&mut self, name: &str) -> Result<(), BpfError> {
        let btf = Btf::from_sys_fs().map_err(|_| BpfError::NoBtf)?;
        let prog: &mut Iter = program(&mut self.ebpf, name)?;
        prog.load("tcp", &btf).map_err(|e| failed(format!("loading {name}"))(verbose(&e)))?;
        let id = prog.attach().map_err(|e| failed(format!("attaching {name}"))(chain(&e)))?;
        let link = prog.take_link(id).map_err(|e| failed(format!("{name} link"))(chain(&e)))?;
        let mut file = link.into_file().map_err(|e| failed(format!("{name} link"))(chain(&e)))?;
        let mut out = Vec::new();
        file.read_to_end(&mut out).map_err(|e| failed(format!("running {name}"))(chain(&e)))?;
        Ok(())
    }

    /// Adopts the established sockets of the cgroup (opened before the
    /// program was attached): their samples arrive with `SAMPLE_ADOPTED`.
    pub fn adopt(&mut self) -> Result<(), BpfError> {
        self.iterate("rtac_adopt")
    }

    /// Waits up to [`HEARTBEAT`] for samples, feeds them to `engine`,
    /// writes the clamps it asks for, and keeps the heartbeat fresh.
    /// Returns the number of samples handled.
    pub fn poll(&mut self, engine: &mut Engine) -> Result<usize, AgentError> {
        let mut pfd = libc::pollfd { fd: self.ring.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd.
        unsafe { libc::poll(&mut pfd, 1, HEARTBEAT.as_millis() as i32) };
        let beat = now_ns() - self.last_heartbeat >= HEARTBEAT.as_nanos() / 2;
        // The ends that the full ring buffer could not take, read before
        // the ring: a socket's earlier samples are in the ring by the time
        // its end is in `ended`, and are stepped first (else a late sample
        // would bring a closed socket back into the table).
        let ended: Vec<u64> = if beat { self.ended.keys().flatten().collect() } else { Vec::new() };
        let mut n = 0;
        let mut actions = Vec::new();
        while let Some(item) = self.ring.next() {
            if let Some(s) = Sample::from_bytes(&item) {
                actions.push(s);
            }
        }
        // Only each socket's last answer is written: samples that waited
        // in the ring are stepped in order, one map update per socket.
        let mut last = std::collections::BTreeMap::new();
        for s in actions {
            n += 1;
            if let Some(action) = engine.on_sample(&s)? {
                let cookie = match action {
                    Action::Set(cookie, _) | Action::Remove(cookie) => cookie,
                };
                last.insert(cookie, (action, s.t_ns));
            }
        }
        let written = !last.is_empty();
        for (cookie, (action, t_ns)) in last {
            match action {
                Action::Set(_, c) => {
                    // Refused (full, no memory): the socket stays unanswered
                    // and the program gives it back to the kernel.
                    if self.clamps.insert(cookie, c, 0).is_err() {
                        self.insert_failed += 1;
                        continue;
                    }
                    self.lags.add((now_ns().saturating_sub(t_ns) / 1000).min(u32::MAX as u64) as u32);
                }
                Action::Remove(_) => {
                    let _ = self.clamps.remove(&cookie);
                }
            }
        }
        if written {
            // After the answers: a socket that sees the new count finds its own.
            self.answers_written += 1;
            self.answers
                .set(0, self.answers_written, 0)
                .map_err(|e| AgentError::Usage(format!("BPF map answers: {e}")))?;
        }
        if beat {
            self.heartbeat(now_ns())?;
            self.reap(engine, ended);
            engine.counters = self.counters(engine);
        }
        Ok(n)
    }

    /// The sockets whose end the ring buffer could not take: out of the
    /// table and out of `clamps`.
    fn reap(&mut self, engine: &mut Engine, cookies: Vec<u64>) {
        for cookie in cookies {
            let _ = self.ended.remove(&cookie);
            let _ = self.clamps.remove(&cookie);
            let end = Sample { cookie, flags: SAMPLE_CLOSED, ..Sample::default() };
            if let Ok(Some(_)) = engine.on_sample(&end) {
                self.reaped += 1;
            }
        }
    }

    /// What could not be tracked or delivered so far (the program's
    /// per-CPU counts summed, and user space's).
    pub fn counters(&self, engine: &Engine) -> Counters {
        let sum = |i: u32| self.counters.get(&i, 0).map_or(0, |v| v.iter().sum::<u64>());
        Counters {
            given_up: sum(count::GIVEN_UP),
            lost_samples: sum(count::LOST_SAMPLE),
            no_storage: sum(count::NO_STORAGE),
            lost_ends: sum(count::LOST_END),
            insert_failed: self.insert_failed,
            over_capacity: engine.over_capacity,
            reaped: self.reaped,
        }
    }

    fn heartbeat(&mut self, now: u64) -> Result<(), AgentError> {
        self.ctl_value.heartbeat_ns = now;
        self.last_heartbeat = now;
        self.ctl.set(0, self.ctl_value, 0).map_err(|e| AgentError::Usage(format!("BPF heartbeat: {e}")))
    }

    /// A clean stop: gives every controlled socket its kernel window back,
    /// then detaches the program and removes its pin.
    pub fn release(mut self) -> Result<(), BpfError> {
        self.ctl_value.release = 1;
        let marked = self.ctl.set(0, self.ctl_value, 0).map_err(|e| failed("map ctl")(chain(&e)));
        let restored = self.iterate("rtac_release");
        if let Some(link) = self.link.take() {
            if let Ok(l) = link.unpin() {
                drop(l);
            }
        }
        let _ = std::fs::remove_file(&self.pin);
        marked.and(restored)
    }

    pub fn pin(&self) -> &Path {
        &self.pin
    }

    pub fn lags(&self) -> &Lags {
        &self.lags
    }
}

fn program<'a, T>(ebpf: &'a mut Ebpf, name: &str) -> Result<&'a mut T, BpfError>
where
    &'a mut T: TryFrom<&'a mut aya::programs::Program, Error = aya::programs::ProgramError>,
{
    let p = ebpf.program_mut(name).ok_or_else(|| failed("BPF object")(format!("no program {name}")))?;
    p.try_into().map_err(|e: aya::programs::ProgramError| failed(format!("program {name}"))(chain(&e)))
}

/// An error with its sources (aya's name the call, the source the errno).
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(x) = src {
        s.push_str(": ");
        s.push_str(&x.to_string());
        src = x.source();
    }
    s
}

/// A program error with the verifier's log when there is one.
fn verbose(e: &aya::programs::ProgramError) -> String {
    match e {
        aya::programs::ProgramError::LoadError { io_error, verifier_log } => {
            format!("{io_error}; verifier: {verifier_log}")
        }
        e => chain(e),
    }
}
