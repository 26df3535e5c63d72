//! What `rtac run` and `rtac daemon` share: the signals that stop them,
//! the child they wait for, the static-binary check, and a BPF session
//! (program attached to a cgroup, samples turned into clamps, teardown).

use rtac_core::controller::Controller;
use rtac_live::bpf::engine::Engine;
use rtac_live::bpf::instance::{self, Acquired, Lock};
use rtac_live::bpf::{self, Bpf, BpfError, Counters};
use rtac_live::config::AgentConfig;
use rtac_live::error::AgentError;
use rtac_live::log::LogSink;
use rtac_live::step::Stepper;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

// SIGINT, SIGTERM and SIGHUP set a flag instead of ending the process, so
// that teardown runs: the emulator's handlers, shared.
pub use rtac_emu::sys::{install_signal_handlers, take_signal};

/// How a program is linked, from its ELF headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linking {
    Dynamic,
    /// No PT_INTERP: LD_PRELOAD never reaches it (Go without cgo, musl static...).
    Static,
    /// Not found on PATH, not ELF (a script), or unreadable.
    Unknown,
}

/// Finds `program` as execvp would and reads its program headers.
pub fn linking(program: &str) -> Linking {
    let path = if program.contains('/') {
        Some(PathBuf::from(program))
    } else {
        std::env::var_os("PATH").and_then(|p| std::env::split_paths(&p).map(|d| d.join(program)).find(|c| c.is_file()))
    };
    let Some(bytes) = path.and_then(|p| std::fs::read(p).ok()) else { return Linking::Unknown };
    elf_linking(&bytes)
}

/// PT_INTERP among the program headers of a 64-bit little-endian ELF file.
fn elf_linking(b: &[u8]) -> Linking {
    const PT_INTERP: u32 = 3;
    let u16_at = |o: usize| b.get(o..o + 2).map(|s| u16::from_le_bytes([s[0], s[1]]) as usize);
    let u32_at = |o: usize| b.get(o..o + 4).map(|s| u32::from_le_bytes(s.try_into().expect("4 bytes")));
    let u64_at = |o: usize| b.get(o..o + 8).map(|s| u64::from_le_bytes(s.try_into().expect("8 bytes")) as usize);
    if b.get(..4) != Some(b"\x7fELF") || b.get(4) != Some(&2) || b.get(5) != Some(&1) {
        return Linking::Unknown;
    }
    let (Some(phoff), Some(phentsize), Some(phnum)) = (u64_at(0x20), u16_at(0x36), u16_at(0x38)) else {
        return Linking::Unknown;
    };
    for i in 0..phnum.min(256) {
        match u32_at(phoff + i * phentsize) {
            Some(PT_INTERP) => return Linking::Dynamic,
            Some(_) => {}
            None => return Linking::Unknown,
        }
    }
    Linking::Static
}

/// A started program.
pub struct Child {
    pub pid: libc::pid_t,
}

impl Child {
    pub fn spawn(mut cmd: Command) -> std::io::Result<Child> {
        let c = cmd.spawn()?;
        Ok(Child { pid: c.id() as libc::pid_t })
    }

    /// Its exit status if it has ended (128 + N for signal N).
    pub fn try_wait(&self) -> Option<i32> {
        let mut status = 0;
        // SAFETY: our own child; WNOHANG.
        let r = unsafe { libc::waitpid(self.pid, &mut status, libc::WNOHANG) };
        (r == self.pid).then(|| {
            let s = std::process::ExitStatus::from_raw(status);
            s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0))
        })
    }

    pub fn signal(&self, sig: i32) {
        // SAFETY: kill on our own child's pid.
        unsafe { libc::kill(self.pid, sig) };
    }

    /// Waits for the end, passing on the signals rtac receives.
    pub fn wait_forwarding_signals(&self) -> Result<i32, AgentError> {
        loop {
            if let Some(s) = take_signal() {
                self.signal(s);
            }
            if let Some(code) = self.try_wait() {
                return Ok(code);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

/// Whether the BPF mode can be tried here (what can be checked without loading).
pub fn bpf_available() -> Result<(), BpfError> {
    bpf::check_support()?;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err(BpfError::NotPermitted { what: "rtac".into(), err: "not running as root".into() });
    }
    Ok(())
}

/// Where a BPF session's program is attached.
pub enum Scope {
    /// A fresh cgroup for `rtac run`'s program, removed at the end.
    NewCgroup,
    /// An existing cgroup (`rtac daemon`): also adopts its open sockets.
    Existing(PathBuf),
}

/// The directory holding `rtac run`'s cgroups under the cgroup v2 root.
fn run_cgroups(root: &Path) -> PathBuf {
    root.join("rtac")
}

/// Moves the processes left in `cg` to `to` and removes `cg`. A process
/// that is exiting has already left cgroup.procs but still populates the
/// cgroup until the kernel's cgroup_exit, so removal is retried while the
/// kernel answers EBUSY, for at most a second.
fn remove_cgroup(cg: &Path, to: &Path) -> std::io::Result<()> {
    let mut tries = 0;
    loop {
        if let Ok(procs) = std::fs::read_to_string(cg.join("cgroup.procs")) {
            for pid in procs.lines() {
                let _ = std::fs::write(to.join("cgroup.procs"), pid);
            }
        }
        match std::fs::remove_dir(cg) {
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) && tries < 50 => tries += 1,
            r => return r,
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn state_err(e: instance::InstanceError) -> AgentError {
    AgentError::Usage(format!("rtac's state directory: {e}"))
}

/// Removes what instances that are gone (killed, crashed) left: pinned
/// programs, `rtac run`'s cgroups, status files; one message each. An
/// instance is gone when nobody holds its lock (`instance`), whatever PID
/// namespace it ran in; `own` (this instance's name) is skipped.
fn remove_leftovers(root: &Path, own: &str) -> Vec<String> {
    let mut names = std::collections::BTreeSet::new();
    names.extend(bpf::pinned_names());
    if let Ok(dir) = std::fs::read_dir(run_cgroups(root)) {
        names.extend(dir.flatten().filter(|e| e.path().is_dir()).map(|e| e.file_name().to_string_lossy().into_owned()));
    }
    names.extend(instance::list_private().iter().filter_map(|f| f.strip_suffix(".status").map(str::to_string)));
    let mut said = Vec::new();
    for name in names.into_iter().filter(|n| n != own && !n.starts_with('.')) {
        let (lock, owner) = match Lock::try_acquire(&name) {
            Ok(Acquired::Taken(lock, owner)) => (lock, owner),
            Ok(Acquired::Held(_)) => continue,
            Err(e) => {
                said.push(format!("leftovers of {name} left alone: {e}"));
                continue;
            }
        };
        let who = owner.map_or_else(|| "pid unknown".to_string(), |o| format!("pid {}", o.pid));
        match bpf::remove_pin(&name) {
            Ok(true) => said.push(format!(
                "removed the BPF program left attached by rtac ({who}, {name}, no longer running): {}/{name}",
                bpf::PIN_DIR
            )),
            Ok(false) => {}
            Err(e) => said.push(format!("removed a stale pin of rtac {name} ({who}): {e}")),
        }
        let cg = run_cgroups(root).join(&name);
        if name.starts_with("run-") && cg.is_dir() {
            match remove_cgroup(&cg, root) {
                Ok(()) => said.push(format!("removed the cgroup left by rtac run ({who}): {}", cg.display())),
                Err(err) => said.push(format!("could not remove the cgroup {} left by rtac run: {err}", cg.display())),
            }
        }
        instance::remove_private(&format!("{name}.status"));
        drop(lock);
    }
    said
}

/// This instance's name and lock: `daemon-cg<inode>` for a daemon (one per
/// cgroup: a second is refused, naming the first), `run-<pid>` for `rtac
/// run` (with a suffix if a process of another PID namespace has the same
/// pid).
fn claim_instance(scope: &Scope) -> Result<(String, Lock), AgentError> {
    match scope {
        Scope::Existing(cg) => {
            use std::os::unix::fs::MetadataExt;
            let ino = std::fs::metadata(cg).map_err(AgentError::io(format!("cgroup {}", cg.display())))?.ino();
            let name = format!("daemon-cg{ino}");
            match Lock::claim(&name).map_err(state_err)? {
                Acquired::Taken(lock, _) => Ok((name, lock)),
                Acquired::Held(owner) => Err(AgentError::Usage(format!(
                    "another rtac daemon already controls cgroup {} ({}; its lock: {}/{name}.lock): one daemon per \
                     cgroup, as two would fight over the same sockets; stop it first",
                    cg.display(),
                    owner.map_or_else(|| "owner unknown".to_string(), |o| o.to_string()),
                    instance::RUN_DIR
                ))),
            }
        }
        Scope::NewCgroup => {
            let pid = std::process::id();
            for k in 0..64 {
                let name = if k == 0 { format!("run-{pid}") } else { format!("run-{pid}-{k}") };
                if let Acquired::Taken(lock, _) = Lock::claim(&name).map_err(state_err)? {
                    return Ok((name, lock));
                }
            }
            Err(AgentError::Usage(format!("no free instance name run-{pid}-*: 64 are held")))
        }
    }
}

/// net.ipv4.tcp_rmem: its maximum, and the whole setting as text.
fn tcp_rmem() -> Option<(u64, String)> {
    let text = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_rmem").ok()?;
    let max = text.split_whitespace().nth(2)?.parse::<u64>().ok()?;
    Some((max, text.trim().to_string()))
}

/// The largest `net.ipv4.tcp_rmem[2]` at which Linux keeps the receive
/// window scale at 10 (65535 << 10 bytes). From it Linux picks the scale
/// (tcp_select_initial_window), and tcp_select_window never shrinks the
/// offered window: it rounds what is left of it up to a multiple of
/// 2^scale. At a scale of 11 or more an ACK that covers fewer bytes than
/// that (one or two segments: delayed ACKs) moves the right edge forward
/// again, so a window, once open, never comes down and a controller's
/// lower window (RTAC's drain probe) is ignored. At 10 any ACK of a full
/// segment (1448 bytes) lets it shrink.
pub const RMEM_MAX_AT_SCALE_10: u64 = 65_535 << 10;

const RMEM: &str = "/proc/sys/net/ipv4/tcp_rmem";

/// The file under /run/rtac that records a raised tcp_rmem: the value
/// before, the value set, and the instances that rely on it.
const RMEM_STATE: &str = "tcp_rmem.state";

/// What [`RMEM_STATE`] holds.
#[derive(Debug, Default, PartialEq)]
struct RmemState {
    original: String,
    set: String,
    holders: Vec<String>,
}

impl RmemState {
    fn parse(text: &str) -> Option<RmemState> {
        let mut st = RmemState::default();
        for l in text.lines() {
            match l.split_once(' ') {
                Some(("original", v)) => st.original = v.trim().to_string(),
                Some(("set", v)) => st.set = v.trim().to_string(),
                Some(("holder", v)) => st.holders.push(v.trim().to_string()),
                _ => {}
            }
        }
        (!st.original.is_empty() && !st.set.is_empty()).then_some(st)
    }

    fn text(&self) -> String {
        let mut s = format!("original {}\nset {}\n", self.original, self.set);
        for h in &self.holders {
            s.push_str(&format!("holder {h}\n"));
        }
        s
    }

    /// Saves it, or removes the file once no instance relies on it.
    fn save(&self) -> Result<(), instance::InstanceError> {
        if self.holders.is_empty() {
            instance::remove_private(RMEM_STATE);
            Ok(())
        } else {
            instance::write_private(RMEM_STATE, &self.text())
        }
    }
}

/// Puts back the recorded tcp_rmem if it is still the value rtac set.
fn put_back(st: &RmemState, why: &str) {
    let now = tcp_rmem().map(|(_, t)| t).unwrap_or_default();
    if !now.split_whitespace().eq(st.set.split_whitespace()) {
        eprintln!(
            "rtac: net.ipv4.tcp_rmem is \"{now}\", not the \"{}\" rtac set ({why}): left as it is, not put back to \"{}\"",
            st.set, st.original
        );
        return;
    }
    match std::fs::write(RMEM, &st.original) {
        Ok(()) => eprintln!("rtac: restored net.ipv4.tcp_rmem to \"{}\" ({why})", st.original),
        Err(e) => eprintln!("rtac: warning: could not restore net.ipv4.tcp_rmem to \"{}\" ({why}): {e}", st.original),
    }
}

/// At a start: a tcp_rmem raised by instances that are all gone without
/// restoring it (killed) is restored, and said so.
fn recover_buffer_limit() {
    let Ok(_guard) = Lock::wait("tcp_rmem") else { return };
    let Ok(Some(text)) = instance::read_private(RMEM_STATE) else { return };
    let Some(mut st) = RmemState::parse(&text) else {
        instance::remove_private(RMEM_STATE);
        return;
    };
    let gone: Vec<String> = st.holders.iter().filter(|h| !matches!(instance::alive(h), Ok(Some(_)))).cloned().collect();
    st.holders.retain(|h| !gone.contains(h));
    if st.holders.is_empty() {
        put_back(&st, &format!("raised by rtac {} that did not exit cleanly", gone.join(", ")));
    }
    if let Err(e) = st.save() {
        eprintln!("rtac: warning: {e}");
    }
}

/// At a stop: this instance no longer relies on a raised tcp_rmem; the
/// last one to go restores it.
fn release_buffer_limit(own: &str) {
    let Ok(_guard) = Lock::wait("tcp_rmem") else { return };
    let Ok(Some(text)) = instance::read_private(RMEM_STATE) else { return };
    let Some(mut st) = RmemState::parse(&text) else { return };
    st.holders.retain(|h| h != own);
    if st.holders.is_empty() {
        put_back(&st, "at exit");
    }
    if let Err(e) = st.save() {
        eprintln!("rtac: warning: {e}");
    }
}

/// Raises net.ipv4.tcp_rmem[2] when the controller may ask for a window
/// the receive buffer could not hold, up to [`RMEM_MAX_AT_SCALE_10`]; says
/// so, with the old and new values, and what remains capped. The value
/// before is recorded first ([`RMEM_STATE`], under a lock shared by all
/// instances), so that the last instance to stop, or the next start after
/// a crash, restores it. Returns whether this instance relies on it.
fn raise_buffer_limit(cfg: &AgentConfig, own: &str) -> bool {
    let Ok(_guard) = Lock::wait("tcp_rmem") else { return false };
    let recorded = instance::read_private(RMEM_STATE).ok().flatten().and_then(|t| RmemState::parse(&t));
    raise_locked(cfg, own, recorded).is_some()
}

fn raise_locked(cfg: &AgentConfig, own: &str, recorded: Option<RmemState>) -> Option<()> {
    let want = cfg.controller(rtac_core::DEFAULT_MSS).ok()?.max_window()?;
    let (max, old) = tcp_rmem()?;
    // Another running instance raised it: the value before is its record's.
    let original_max = recorded
        .as_ref()
        .and_then(|r| r.original.split_whitespace().nth(2).and_then(|m| m.parse::<u64>().ok()))
        .unwrap_or(max);
    // The largest window auto-tuning opens: the usual payload share of a
    // buffer (half: tcp_adv_win_scale = 1).
    let limit = max / 2;
    if max > RMEM_MAX_AT_SCALE_10 {
        eprintln!(
            "rtac: warning: net.ipv4.tcp_rmem = \"{old}\" makes Linux use a receive window scale above 10, at \
             which an open window does not come down when ACKs cover fewer bytes than its unit: lower windows \
             the controller asks for may not take effect (a maximum of at most {RMEM_MAX_AT_SCALE_10} avoids it)"
        );
    }
    let target = (2 * want).min(RMEM_MAX_AT_SCALE_10);
    let capped = if target < 2 * want {
        format!(
            " up to about {} bytes (the controller may ask for {want}, but a larger limit would raise the window \
             scale above 10, at which lower windows stop taking effect)",
            target / 2
        )
    } else {
        format!(" up to the {want} bytes the controller may ask for")
    };
    let note = || {
        if want > limit {
            eprintln!("rtac: note: receive buffers stop at about {limit} bytes (net.ipv4.tcp_rmem = \"{old}\"), which holds windows{capped}");
        }
    };
    if target <= original_max {
        // The machine's own setting holds the windows: nothing to change.
        note();
        return None;
    }
    let mut st = recorded.unwrap_or_else(|| RmemState { original: old.clone(), set: old.clone(), holders: vec![] });
    st.holders.push(own.to_string());
    if target <= max {
        // Raised enough by another running instance: relied on too.
        note();
        return st.save().ok();
    }
    let mut f = old.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    f[2] = target.to_string();
    let new = f.join(" ");
    st.set = new.clone();
    // Recorded before it is changed: a crash between the two leaves a
    // record that the next start finds matching nothing, and leaves alone.
    if let Err(e) = st.save() {
        eprintln!(
            "rtac: warning: net.ipv4.tcp_rmem left at \"{old}\" (windows above about {limit} bytes are capped): {e}"
        );
        return None;
    }
    match std::fs::write(RMEM, &new) {
        Ok(()) => {
            eprintln!(
                "rtac: raised net.ipv4.tcp_rmem from \"{old}\" to \"{new}\" so that sockets can open windows{capped}; \
                 this setting is the whole network namespace's, not only the controlled cgroup's; restored at exit \
                 (recorded in {}/{RMEM_STATE}: the next start restores it after a crash)",
                instance::RUN_DIR
            );
            Some(())
        }
        Err(e) => {
            eprintln!(
                "rtac: warning: the controller may ask for {want}-byte windows but receive buffers stop at about \
                 {limit} bytes (net.ipv4.tcp_rmem = \"{old}\") and raising it failed: {e}; windows above it are capped \
                 by the kernel"
            );
            st.holders.retain(|h| h != own);
            let _ = st.save();
            None
        }
    }
}

/// User and system CPU time of this process, seconds.
fn process_cpu_s() -> f64 {
    // SAFETY: getrusage fills the struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// The window budgets of a run, for its closing line: each access link
/// with the connections that joined its budget and the most at once.
pub fn groups_summary(g: &rtac_live::group::Grouping, left: u64) -> String {
    if !g.per_link() {
        return "; each with its own controller".to_string();
    }
    let links: Vec<String> = g
        .history()
        .map(|(label, h)| format!("{label}: {} connection(s), at most {} at once", h.joined, h.peak))
        .collect();
    let left = if left > 0 { format!("; {left} left their budget for their own controller") } else { String::new() };
    if links.is_empty() {
        format!("; no shared window budget{left}")
    } else {
        format!("; window budgets per access link: {}{left}", links.join(", "))
    }
}

/// A BPF program attached to a cgroup, turning samples into clamps.
pub struct BpfSession {
    bpf: Option<Bpf>,
    pub engine: Engine,
    cgroup: PathBuf,
    own_cgroup: Option<PathBuf>,
    root: PathBuf,
    /// Whether this instance relies on a raised tcp_rmem.
    rmem_holder: bool,
    /// This instance's name (its pin, its status file) and lock.
    name: String,
    lock: Option<Lock>,
    /// The counters last warned about, and when (ns).
    warned: (Counters, u64),
}

/// How often at most the session warns, on stderr, that sockets went
/// untracked or samples were lost (the counters since the start).
const WARN_EVERY_NS: u64 = 10_000_000_000;

impl BpfSession {
    /// Takes this instance's lock (a second daemon on one cgroup is
    /// refused here), removes leftovers of killed instances and a tcp_rmem
    /// they left raised (saying so), attaches the program, installs the
    /// signal handlers. Tracks at most [`bpf::capacity`] sockets.
    pub fn start(cfg: &AgentConfig, scope: Scope, uplink: bool) -> Result<BpfSession, AgentError> {
        BpfSession::start_with(cfg, scope, uplink, bpf::capacity())
    }

    /// [`BpfSession::start`], tracking at most `capacity` sockets at once.
    pub fn start_with(cfg: &AgentConfig, scope: Scope, uplink: bool, capacity: u32) -> Result<BpfSession, AgentError> {
        bpf_available()?;
        let root = bpf::cgroup2_root()?;
        instance::run_dir().map_err(state_err)?;
        let (name, lock) = claim_instance(&scope)?;
        for m in remove_leftovers(&root, &name) {
            eprintln!("rtac: {m}");
        }
        recover_buffer_limit();
        let (cgroup, own_cgroup) = match scope {
            Scope::NewCgroup => {
                let cg = run_cgroups(&root).join(&name);
                // One of this name is a dead predecessor's: the name is ours.
                if cg.is_dir() {
                    let _ = remove_cgroup(&cg, &root);
                }
                std::fs::create_dir_all(&cg)
                    .map_err(AgentError::io(format!("cannot create cgroup {}", cg.display())))?;
                (cg.clone(), Some(cg))
            }
            Scope::Existing(cg) => (cg, None),
        };
        // The controller's window before any measurement (init_rwnd for
        // the paper's RTAC, DRWA and Auto-tuning; the fixed window for
        // static; none in the self-tuning RTAC's start-up).
        let initial =
            Stepper::new(cfg.controller(rtac_core::DEFAULT_MSS)?).window().map_or(0, |w| w.min(u32::MAX as u64) as u32);
        let mut bpf = match Bpf::attach(&cgroup, &name, uplink, initial, capacity) {
            Ok(b) => b,
            Err(e) => {
                if let Some(cg) = &own_cgroup {
                    let _ = remove_cgroup(cg, &root);
                }
                return Err(e.into());
            }
        };
        install_signal_handlers();
        if own_cgroup.is_none() {
            if let Err(e) = bpf.adopt() {
                eprintln!("rtac: warning: sockets opened before the start are not controlled: {e}");
            }
        }
        let log = match &cfg.log {
            Some(p) => Some(Arc::new(LogSink::open(p, cfg.t0)?)),
            None => None,
        };
        let rmem_holder = raise_buffer_limit(cfg, &name);
        // Routes are asked in each socket's own network namespace, entered
        // through a process of the cgroup that lives in it.
        let routes = rtac_live::group::KernelRoutes::new(Some(cgroup.clone()));
        let engine = Engine::new(cfg.clone(), log).with_capacity(capacity as usize).with_resolver(Box::new(routes));
        let engine = if uplink { engine.with_uplink() } else { engine };
        Ok(BpfSession {
            bpf: Some(bpf),
            engine,
            cgroup,
            own_cgroup,
            root,
            rmem_holder,
            name,
            lock: Some(lock),
            warned: (Counters::default(), 0),
        })
    }

    /// This instance's name: its pin under [`bpf::PIN_DIR`], its lock and
    /// status file under [`instance::RUN_DIR`].
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Says on stderr, at most every [`WARN_EVERY_NS`], that sockets went
    /// untracked (given back to the kernel) or samples were lost.
    fn warn_untracked(&mut self, now: u64) {
        let c = self.engine.counters;
        let (last, at) = self.warned;
        if c.any() && c != last && now.saturating_sub(at) >= WARN_EVERY_NS {
            eprintln!("rtac: warning: {c}");
            self.warned = (c, now);
        }
    }

    /// Starts `cmd` inside the session's own cgroup.
    pub fn spawn(&mut self, mut cmd: Command) -> std::io::Result<Child> {
        let procs = std::ffi::CString::new(self.cgroup.join("cgroup.procs").into_os_string().into_encoded_bytes())
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
        // SAFETY: between fork and exec only async-signal-safe calls (open,
        // write, close) on memory prepared before the fork.
        unsafe {
            cmd.pre_exec(move || {
                let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd < 0 || libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::close(fd);
                Ok(())
            });
        }
        Child::spawn(cmd)
    }

    /// Controls sockets until `child` ends (its exit status), or, with no
    /// child, until a signal arrives (0). Signals are passed on to the child.
    /// `tick` runs after every poll (at least every `bpf::HEARTBEAT`).
    pub fn run_until(&mut self, child: Option<&Child>, tick: &mut dyn FnMut(&Engine)) -> Result<i32, AgentError> {
        loop {
            self.bpf.as_mut().expect("running session").poll(&mut self.engine)?;
            self.warn_untracked(rtac_live::sys::now().as_nanos());
            tick(&self.engine);
            match (take_signal(), child) {
                (Some(s), Some(c)) => c.signal(s),
                (Some(_), None) => return Ok(0),
                _ => {}
            }
            if let Some(code) = child.and_then(Child::try_wait) {
                return Ok(code);
            }
        }
    }

    /// One line on what the session controlled, its control lag and the
    /// CPU time this process used.
    pub fn summary(&self) -> String {
        let adopted = self.engine.adopted;
        let lag = self.bpf.as_ref().map(|b| b.lags());
        let lag = match lag.and_then(|l| l.quantiles().map(|q| (q, l.count, l.kept()))) {
            Some(((med, p99), n, kept)) => format!(
                "; control lag median {med} us, p99 {p99} us over {} answers{}",
                kept,
                if n > kept as u64 { format!(" (the last of {n})") } else { String::new() }
            ),
            None => String::new(),
        };
        let c = self.engine.counters;
        format!(
            "bpf mode controlled {} TCP connection(s) in cgroup {}{}{}{lag}; CPU {:.3} s{}",
            self.engine.seen,
            self.cgroup.display(),
            if adopted > 0 { format!(" ({adopted} of them open before the start)") } else { String::new() },
            groups_summary(self.engine.grouping(), self.engine.left_budget),
            process_cpu_s(),
            if c.any() { format!("; {c}") } else { String::new() }
        )
    }

    /// Teardown: every socket gets its kernel window back, the program is
    /// detached and unpinned, the session's own cgroup removed, a raised
    /// buffer limit restored. Errors are reported, not returned: teardown
    /// goes on.
    pub fn stop(mut self) {
        if let Some(bpf) = self.bpf.take() {
            if let Err(e) = bpf.release() {
                eprintln!("rtac: teardown: {e}");
            }
        }
        if let Some(cg) = &self.own_cgroup {
            if let Err(e) = remove_cgroup(cg, &self.root) {
                eprintln!("rtac: teardown: cannot remove cgroup {}: {e}", cg.display());
            }
        }
        if self.rmem_holder {
            release_buffer_limit(&self.name);
        }
        instance::remove_private(&format!("{}.status", self.name));
        // Last: until here, no other start takes this instance for dead.
        drop(self.lock.take());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elf_headers_tell_static_from_dynamic() {
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        assert_eq!(elf_linking(&me), Linking::Dynamic);
        // The same headers without PT_INTERP: turn that entry into PT_NULL.
        let mut stat = me.clone();
        let phoff = u64::from_le_bytes(me[0x20..0x28].try_into().unwrap()) as usize;
        let (size, n) = (u16::from_le_bytes([me[0x36], me[0x37]]) as usize, u16::from_le_bytes([me[0x38], me[0x39]]));
        for i in 0..n as usize {
            let o = phoff + i * size;
            if stat[o..o + 4] == 3u32.to_le_bytes() {
                stat[o..o + 4].copy_from_slice(&0u32.to_le_bytes());
            }
        }
        assert_eq!(elf_linking(&stat), Linking::Static);
        assert_eq!(elf_linking(b"#!/bin/sh\n"), Linking::Unknown);
        assert_eq!(elf_linking(&me[..0x30]), Linking::Unknown);
        assert_eq!(linking("sh"), Linking::Dynamic);
        assert_eq!(linking("/nonexistent/prog"), Linking::Unknown);
    }
}
