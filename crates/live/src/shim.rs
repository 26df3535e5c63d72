//! The engine behind the LD_PRELOAD shim (`crates/preload`): a table of
//! every descriptor the program reads, and what each read does.
//!
//! The preload library calls the real function, then [`consumed`] with the
//! descriptor and the byte count. For a descriptor seen before that is one
//! table lookup, one atomic add, one clock read and a comparison; the first
//! read of a descriptor classifies it (SO_TYPE, SO_PROTOCOL, SO_DOMAIN) and
//! a controlled socket runs a control step once per RTT.
//!
//! The table is indexed by descriptor number in chunks of 1024 slots that
//! are allocated once and never freed, so a slot can be read without a
//! lock and never dangles. Each slot's controller sits behind a mutex that
//! is only ever `try_lock`ed on the read path: a thread that finds it busy
//! (another thread stepping the same socket, or a signal handler
//! interrupting a step) just counts its bytes and goes on.
//!
//! The sockets of the process that leave through one interface share one
//! window budget (`crate::group`: the route to the peer, asked over
//! rtnetlink once per peer and cached) when the controller has a per-link
//! form (`rtac`, unless `budget=connection`).
//!
//! Safety rules kept here: errno as the real call left it; no panic leaves
//! this module (each entry catches unwinding); a socket whose queries fail
//! is given back to the kernel and reported once on stderr. A read inside
//! a step or a classification on the same thread (a signal handler that
//! reads) only counts its bytes: the budget's lock, which a step of another
//! socket may hold, is never taken twice by one thread.

use crate::config::AgentConfig;
use crate::driver::SocketDriver;
use crate::error::AgentError;
use crate::group::{Grouping, KernelRoutes};
use crate::log::LogSink;
use crate::sys::{self, FdClass};
use std::cell::Cell;
use std::os::raw::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, TryLockError};

/// Not seen yet (or closed since).
pub const FD_UNKNOWN: u8 = 0;
/// Not a TCP socket: left alone.
pub const FD_IGNORED: u8 = 1;
/// A TCP socket under control.
pub const FD_CONTROLLED: u8 = 2;
/// A TCP socket the shim stopped controlling after a failure.
pub const FD_DISABLED: u8 = 3;

const CHUNK_BITS: usize = 10;
const CHUNK: usize = 1 << CHUNK_BITS;
const CHUNKS: usize = 1024;
/// Descriptors at or above this number are left alone.
pub const MAX_FD: usize = CHUNK * CHUNKS;

/// At most this many failure messages per process; then one notice.
const MAX_MESSAGES: usize = 20;

struct Attached {
    gen: u32,
    driver: SocketDriver,
}

/// A slot's `pending` packs the reads since the last step (high bits) and
/// their bytes (low bits), so the read path is one atomic add.
const READS_SHIFT: u32 = 44;
const ONE_READ: u64 = 1 << READS_SHIFT;
const BYTES_MASK: u64 = ONE_READ - 1;

fn unpack(pending: u64) -> (u64, u64) {
    (pending & BYTES_MASK, pending >> READS_SHIFT)
}

struct Slot {
    kind: AtomicU8,
    gen: AtomicU32,
    pending: AtomicU64,
    next_step_ns: AtomicU64,
    driver: Mutex<Option<Attached>>,
}

impl Slot {
    const fn new() -> Slot {
        Slot {
            kind: AtomicU8::new(FD_UNKNOWN),
            gen: AtomicU32::new(0),
            pending: AtomicU64::new(0),
            next_step_ns: AtomicU64::new(0),
            driver: Mutex::new(None),
        }
    }
}

type Chunk = [Slot; CHUNK];

static TABLE: [AtomicPtr<Chunk>; CHUNKS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; CHUNKS];

const UNINIT: u8 = 0;
const INACTIVE: u8 = 1;
const ACTIVE: u8 = 2;
static STATE: AtomicU8 = AtomicU8::new(UNINIT);
static MESSAGES: AtomicUsize = AtomicUsize::new(0);

struct Agent {
    cfg: AgentConfig,
    log: Option<Arc<LogSink>>,
    summary: Option<std::path::PathBuf>,
    /// The process's sockets by access link, one budget per link.
    grouping: Mutex<Grouping>,
}

thread_local! {
    /// Set while this thread runs a step or a classification: a read in a
    /// signal handler that interrupted it only counts its bytes.
    static BUSY: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` unless this thread is already inside the shim's slow path.
fn unless_busy(f: impl FnOnce()) {
    if BUSY.with(|b| b.replace(true)) {
        return;
    }
    f();
    BUSY.with(|b| b.set(false));
}

static AGENT: OnceLock<Agent> = OnceLock::new();

fn slot(fd: c_int) -> Option<&'static Slot> {
    let fd = usize::try_from(fd).ok().filter(|&f| f < MAX_FD)?;
    let chunk = TABLE[fd >> CHUNK_BITS].load(Ordering::Acquire);
    // SAFETY: a non-null pointer was installed from a leaked Box and is never freed.
    (!chunk.is_null()).then(|| unsafe { &(*chunk)[fd & (CHUNK - 1)] })
}

#[inline]
fn slot_or_alloc(fd: c_int) -> Option<&'static Slot> {
    match slot(fd) {
        Some(s) => Some(s),
        None => alloc_chunk(fd),
    }
}

/// Installs the chunk for `fd` (once per 1024 descriptors). Kept out of
/// line and built on the heap: a 40 KB array on the stack would make every
/// caller's frame probe 40 KB of stack on each read.
#[cold]
#[inline(never)]
fn alloc_chunk(fd: c_int) -> Option<&'static Slot> {
    let fd = usize::try_from(fd).ok().filter(|&f| f < MAX_FD)?;
    let cell = &TABLE[fd >> CHUNK_BITS];
    let slots: Vec<Slot> = (0..CHUNK).map(|_| Slot::new()).collect();
    let fresh: Box<Chunk> = slots.into_boxed_slice().try_into().ok()?;
    let fresh = Box::into_raw(fresh);
    let chunk = match cell.compare_exchange(std::ptr::null_mut(), fresh, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => fresh,
        Err(existing) => {
            // SAFETY: `fresh` was never shared; another thread installed its chunk first.
            drop(unsafe { Box::from_raw(fresh) });
            existing
        }
    };
    // SAFETY: installed chunks live for the rest of the process.
    Some(unsafe { &(*chunk)[fd & (CHUNK - 1)] })
}

/// Locks a slot's controller without waiting; a poisoned lock (a caught
/// panic) is taken over.
fn try_lock(slot: &Slot) -> Option<MutexGuard<'_, Option<Attached>>> {
    match slot.driver.try_lock() {
        Ok(g) => Some(g),
        Err(TryLockError::Poisoned(p)) => {
            slot.driver.clear_poison();
            Some(p.into_inner())
        }
        Err(TryLockError::WouldBlock) => None,
    }
}

/// Reads the configuration from the environment (`rtac run` sets it) and
/// turns the shim on. Without RTAC_CONTROLLER the shim stays off: every
/// hook only calls the real function. A bad configuration is reported
/// once and leaves the shim off. Idempotent.
///
/// In secure-execution mode (a set-user-ID, set-group-ID or file-capability
/// program, `config::secure_execution`) the shim stays off without reading
/// the environment: no controller, no log, no summary, no message.
pub fn init_from_env() {
    if STATE.load(Ordering::Acquire) != UNINIT {
        return;
    }
    if crate::config::secure_execution() {
        STATE.store(INACTIVE, Ordering::Release);
        return;
    }
    let cfg = match AgentConfig::from_env() {
        Ok(Some(cfg)) => cfg,
        Ok(None) => {
            STATE.store(INACTIVE, Ordering::Release);
            return;
        }
        Err(e) => {
            STATE.store(INACTIVE, Ordering::Release);
            message(&format!(
                "rtac: invalid configuration in the environment: {e}; no socket of this process is controlled"
            ));
            return;
        }
    };
    init(cfg);
}

/// Turns the shim on with `cfg` (the first configuration wins).
pub fn init(cfg: AgentConfig) {
    let agent = AGENT.get_or_init(|| {
        let log = cfg.log.as_deref().and_then(|path| match LogSink::open(path, cfg.t0) {
            Ok(sink) => Some(Arc::new(sink)),
            Err(e) => {
                message(&format!("rtac: {e}; control goes on without a log"));
                None
            }
        });
        let summary = crate::config::summary_from_env();
        let grouping = Mutex::new(Grouping::new(&cfg, Box::new(KernelRoutes::new(None))));
        Agent { cfg, log, summary, grouping }
    });
    let _ = agent;
    STATE.store(ACTIVE, Ordering::Release);
}

/// Whether the shim controls sockets in this process.
pub fn active() -> bool {
    STATE.load(Ordering::Relaxed) == ACTIVE
}

/// Replaces the panic hook of this copy of the standard library (the
/// preload library's own) with a silent one: a panic inside the shim is
/// caught and reported as one line, never a backtrace in the program's
/// stderr.
pub fn install_quiet_panic_hook() {
    std::panic::set_hook(Box::new(|_| {}));
}

fn message(text: &str) {
    let n = MESSAGES.fetch_add(1, Ordering::Relaxed);
    if n < MAX_MESSAGES {
        sys::write_stderr(format!("{text}\n").as_bytes());
    } else if n == MAX_MESSAGES {
        sys::write_stderr(b"rtac: further messages from this process are suppressed\n");
    }
}

/// Appends `pid<TAB>fd<TAB>peer<TAB>group` to the run's summary file (best
/// effort: the summary is a report, not control). The file must exist
/// already, as a regular file: `rtac run` created it; a link, a FIFO or a
/// missing file is left alone.
fn note_controlled(path: &std::path::Path, fd: c_int, peer: Option<std::net::SocketAddr>, group: Option<&str>) {
    use std::io::Write;
    let peer = peer.map(|p| p.to_string()).unwrap_or_default();
    let line = format!("{}\t{fd}\t{peer}\t{}\n", std::process::id(), group.unwrap_or(""));
    if let Ok(mut f) = crate::safefs::open_write(path, crate::safefs::Open::AppendExisting, 0) {
        let _ = f.write_all(line.as_bytes());
    }
}

fn report_stop(fd: c_int, err: &AgentError) {
    let peer = sys::peer_addr(fd).map(|a| format!(" (peer {a})")).unwrap_or_default();
    message(&format!(
        "rtac: stopped controlling TCP socket fd {fd}{peer} in pid {}: {err}; the program goes on with the kernel's \
         receive window for this socket",
        std::process::id()
    ));
}

/// Runs `f` with errno preserved and panics caught. A panic disables `fd`.
fn slow_path(fd: c_int, slot: &'static Slot, f: impl FnOnce()) {
    let saved = sys::errno();
    if catch_unwind(AssertUnwindSafe(f)).is_err() {
        slot.kind.store(FD_DISABLED, Ordering::Release);
        if let Some(mut g) = try_lock(slot) {
            *g = None;
        }
        report_stop(fd, &AgentError::Panicked);
    }
    sys::set_errno(saved);
}

/// The program consumed `n` bytes from `fd` (a read-family call returned
/// `n`). Call it after the real function, with its return value.
#[inline]
pub fn consumed(fd: c_int, n: isize) {
    if n <= 0 || STATE.load(Ordering::Relaxed) != ACTIVE {
        return;
    }
    let _ = catch_unwind(|| consumed_active(fd, n as u64));
}

#[inline]
fn consumed_active(fd: c_int, n: u64) {
    let Some(slot) = slot_or_alloc(fd) else { return };
    match slot.kind.load(Ordering::Acquire) {
        FD_CONTROLLED => {
            slot.pending.fetch_add(ONE_READ + n.min(BYTES_MASK), Ordering::Relaxed);
            let now = sys::now();
            if now.as_nanos() >= slot.next_step_ns.load(Ordering::Relaxed) {
                unless_busy(|| slow_path(fd, slot, || step(fd, slot, now)));
            }
        }
        FD_UNKNOWN => unless_busy(|| slow_path(fd, slot, || classify(fd, slot, n))),
        _ => {}
    }
}

fn classify(fd: c_int, slot: &Slot, n: u64) {
    let Some(mut g) = try_lock(slot) else { return };
    if slot.kind.load(Ordering::Acquire) != FD_UNKNOWN {
        return;
    }
    let gen = slot.gen.load(Ordering::Acquire);
    let Some(agent) = AGENT.get() else { return };
    let err = match sys::classify(fd) {
        FdClass::Other => {
            slot.kind.store(FD_IGNORED, Ordering::Release);
            return;
        }
        FdClass::Unexpected(err) => AgentError::Sys { call: "getsockopt(SO_PROTOCOL/SO_DOMAIN)", err },
        FdClass::Tcp => match attach(fd, agent) {
            None => return, // the groups are busy: classified at a later read
            Some(Ok(mut driver)) => {
                if let Some(path) = &agent.summary {
                    note_controlled(path, fd, driver.peer(), driver.group());
                }
                driver.add_consumed(n, 1);
                slot.pending.store(0, Ordering::Relaxed);
                slot.next_step_ns.store(driver.next_step().as_nanos(), Ordering::Relaxed);
                *g = Some(Attached { gen, driver });
                if slot.gen.load(Ordering::Acquire) == gen {
                    slot.kind.store(FD_CONTROLLED, Ordering::Release);
                } else {
                    *g = None; // closed while we attached
                }
                return;
            }
            Some(Err(AgentError::NotTcp)) => {
                slot.kind.store(FD_IGNORED, Ordering::Release);
                return;
            }
            Some(Err(e)) => e,
        },
    };
    slot.kind.store(FD_DISABLED, Ordering::Release);
    *g = None;
    drop(g);
    report_stop(fd, &err);
}

/// Attaches a driver in the socket's group; `None` while another thread
/// holds the groups (the socket is classified at a later read).
fn attach(fd: c_int, agent: &Agent) -> Option<Result<SocketDriver, AgentError>> {
    let mut grouping = match agent.grouping.try_lock() {
        Ok(g) => g,
        Err(TryLockError::Poisoned(p)) => {
            agent.grouping.clear_poison();
            p.into_inner()
        }
        Err(TryLockError::WouldBlock) => return None,
    };
    Some(SocketDriver::attach_grouped(fd, &agent.cfg, agent.log.clone(), sys::now(), &mut grouping))
}

fn step(fd: c_int, slot: &Slot, now: rtac_core::Instant) {
    let Some(mut g) = try_lock(slot) else { return };
    if now.as_nanos() < slot.next_step_ns.load(Ordering::Relaxed) {
        return; // another thread just stepped
    }
    let Some(a) = g.as_mut() else { return };
    if a.gen != slot.gen.load(Ordering::Acquire) {
        *g = None;
        return;
    }
    let (bytes, reads) = unpack(slot.pending.swap(0, Ordering::Relaxed));
    a.driver.add_consumed(bytes, reads);
    match a.driver.step(now) {
        Ok(_) => {
            slot.next_step_ns.store(a.driver.next_step().as_nanos(), Ordering::Relaxed);
            if let Some(why) = a.driver.take_left_budget() {
                message(&format!(
                    "rtac: TCP socket fd {fd} in pid {} left its access link's window budget ({why}); it goes on \
                     with its own controller",
                    std::process::id()
                ));
            }
        }
        Err(AgentError::Replaced) => {
            // Closed behind our back (fclose, a library's own close) and
            // the number reused: classify the new file on its next read.
            *g = None;
            slot.kind.store(FD_UNKNOWN, Ordering::Release);
        }
        Err(e) => {
            let _ = a.driver.release();
            slot.kind.store(FD_DISABLED, Ordering::Release);
            *g = None;
            drop(g);
            report_stop(fd, &e);
        }
    }
}

fn reset(slot: &Slot) {
    slot.gen.fetch_add(1, Ordering::AcqRel);
    slot.kind.store(FD_UNKNOWN, Ordering::Release);
    slot.pending.store(0, Ordering::Relaxed);
    slot.next_step_ns.store(0, Ordering::Relaxed);
    if let Some(mut g) = try_lock(slot) {
        *g = None;
    }
}

/// `fd` is about to be closed (close, or the target of dup2/dup3): forget
/// it, so the number is classified afresh when reused.
pub fn closing(fd: c_int) {
    if STATE.load(Ordering::Relaxed) != ACTIVE {
        return;
    }
    let saved = sys::errno();
    let _ = catch_unwind(|| {
        if let Some(s) = slot(fd) {
            if s.kind.load(Ordering::Relaxed) != FD_UNKNOWN || s.gen.load(Ordering::Relaxed) != 0 {
                reset(s);
            }
        }
        if let Some(log) = AGENT.get().and_then(|a| a.log.as_ref()) {
            log.forget_fd(fd);
        }
    });
    sys::set_errno(saved);
}

/// close_range(first, last, flags) is about to run.
pub fn closing_range(first: u32, last: u32, flags: c_int) {
    if STATE.load(Ordering::Relaxed) != ACTIVE || flags & libc::CLOSE_RANGE_CLOEXEC as c_int != 0 {
        return;
    }
    let saved = sys::errno();
    let _ = catch_unwind(|| {
        let last = (last as usize).min(MAX_FD - 1);
        let mut fd = first as usize;
        while fd <= last {
            let chunk = TABLE[fd >> CHUNK_BITS].load(Ordering::Acquire);
            if chunk.is_null() {
                fd = (fd | (CHUNK - 1)) + 1; // skip an unallocated chunk
                continue;
            }
            // SAFETY: installed chunks are never freed.
            let s = unsafe { &(*chunk)[fd & (CHUNK - 1)] };
            if s.kind.load(Ordering::Relaxed) != FD_UNKNOWN {
                reset(s);
            }
            fd += 1;
        }
        if let Some(log) = AGENT.get().and_then(|a| a.log.as_ref()) {
            if let Some(lfd) = log.raw_fd() {
                if (first as usize..=last).contains(&(lfd as usize)) {
                    log.forget_fd(lfd);
                }
            }
        }
    });
    sys::set_errno(saved);
}

/// A call returned a new descriptor `fd` (socket, accept, accept4): make
/// sure no stale state from an earlier file with that number applies.
pub fn opened(fd: c_int) {
    if fd < 0 || STATE.load(Ordering::Relaxed) != ACTIVE {
        return;
    }
    if let Some(s) = slot(fd) {
        if s.kind.load(Ordering::Relaxed) != FD_UNKNOWN {
            let saved = sys::errno();
            let _ = catch_unwind(|| reset(s));
            sys::set_errno(saved);
        }
    }
}

/// Times the read path of a controlled socket: `iters` calls of
/// [`consumed`] with no step due (table lookup, atomic add, clock read,
/// comparison). CPU nanoseconds per call; `None` if `fd` is not controlled.
/// For the overhead benchmark.
#[doc(hidden)]
pub fn bench_read_path(fd: c_int, iters: u32) -> Option<f64> {
    let s = slot(fd)?;
    if s.kind.load(Ordering::Acquire) != FD_CONTROLLED {
        return None;
    }
    let saved = s.next_step_ns.swap(u64::MAX, Ordering::Relaxed);
    let t = sys::thread_cpu_ns();
    for _ in 0..iters {
        consumed(std::hint::black_box(fd), std::hint::black_box(1448));
    }
    let ns = (sys::thread_cpu_ns() - t) as f64 / iters as f64;
    s.pending.store(0, Ordering::Relaxed);
    s.next_step_ns.store(saved, Ordering::Relaxed);
    Some(ns)
}

/// What the shim knows about `fd`: one of the `FD_*` constants.
pub fn fd_state(fd: c_int) -> u8 {
    slot(fd).map_or(FD_UNKNOWN, |s| s.kind.load(Ordering::Acquire))
}

/// The last control step's window applied to `fd`, if it is controlled.
pub fn fd_rwnd(fd: c_int) -> Option<u64> {
    let s = slot(fd)?;
    let g = try_lock(s)?;
    g.as_ref().and_then(|a| a.driver.last()).and_then(|r| r.rwnd)
}

#[cfg(test)]
mod tests {
    //! The shim's engine driven directly, without LD_PRELOAD (the preload
    //! crate's tests cover the interposed calls). One process-wide agent,
    //! so every test here uses the same configuration.
    use super::*;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream, UdpSocket};
    use std::os::fd::AsRawFd;

    static SERIAL: Mutex<()> = Mutex::new(());

    /// The table is process-wide: tests take turns.
    fn setup() -> MutexGuard<'static, ()> {
        let g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
        init(AgentConfig::new("static", &["rmem_max=54321"]).unwrap());
        g
    }

    /// A connected pair, announced as the socket/accept hooks would.
    fn pair() -> (TcpStream, TcpStream) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (s, _) = l.accept().unwrap();
        opened(c.as_raw_fd());
        opened(s.as_raw_fd());
        (c, s)
    }

    #[test]
    fn tcp_is_controlled_and_other_descriptors_are_ignored() {
        let _g = setup();
        let (mut c, mut s) = pair();
        s.write_all(b"hello").unwrap();
        let mut b = [0u8; 5];
        let n = c.read(&mut b).unwrap();
        consumed(c.as_raw_fd(), n as isize);
        assert_eq!(fd_state(c.as_raw_fd()), FD_CONTROLLED);
        assert_eq!(sys::window_clamp(c.as_raw_fd()).unwrap(), 54_321);
        assert_eq!(fd_rwnd(c.as_raw_fd()), Some(54_321));

        let u = UdpSocket::bind("127.0.0.1:0").unwrap();
        opened(u.as_raw_fd());
        consumed(u.as_raw_fd(), 10);
        assert_eq!(fd_state(u.as_raw_fd()), FD_IGNORED);
        // Nothing happens on errors and EOF.
        let (c2, _s2) = pair();
        consumed(c2.as_raw_fd(), 0);
        consumed(c2.as_raw_fd(), -1);
        assert_eq!(fd_state(c2.as_raw_fd()), FD_UNKNOWN);
    }

    #[test]
    fn errno_is_preserved_across_classification() {
        let _g = setup();
        let (c, _s) = pair();
        sys::set_errno(libc::EAGAIN);
        consumed(c.as_raw_fd(), 100);
        assert_eq!(sys::errno(), libc::EAGAIN);
        assert_eq!(fd_state(c.as_raw_fd()), FD_CONTROLLED);
    }

    #[test]
    fn close_forgets_and_a_reused_number_is_classified_again() {
        let _g = setup();
        let (c, _s) = pair();
        let fd = c.as_raw_fd();
        consumed(fd, 1);
        assert_eq!(fd_state(fd), FD_CONTROLLED);
        closing(fd);
        drop(c);
        assert_eq!(fd_state(fd), FD_UNKNOWN);
        // A UDP socket on the same number (the lowest free one).
        let u = UdpSocket::bind("127.0.0.1:0").unwrap();
        if u.as_raw_fd() == fd {
            consumed(fd, 1);
            assert_eq!(fd_state(fd), FD_IGNORED);
        }
    }

    #[test]
    fn a_socket_replaced_behind_the_shims_back_is_reclassified() {
        let _g = setup();
        let (c, _s) = pair();
        let fd = c.as_raw_fd();
        consumed(fd, 1);
        assert_eq!(fd_state(fd), FD_CONTROLLED);
        // dup2 without the hook (as glibc-internal code would): fd becomes UDP.
        let u = UdpSocket::bind("127.0.0.1:0").unwrap();
        // SAFETY: test-only descriptor juggling.
        unsafe { libc::dup2(u.as_raw_fd(), fd) };
        slot(fd).unwrap().next_step_ns.store(0, Ordering::Relaxed);
        consumed(fd, 1); // the step notices the new identity
        assert_eq!(fd_state(fd), FD_UNKNOWN);
        consumed(fd, 1);
        assert_eq!(fd_state(fd), FD_IGNORED);
    }

    #[test]
    fn close_range_forgets_a_range() {
        let _g = setup();
        let (c, _s) = pair();
        let fd = c.as_raw_fd();
        consumed(fd, 1);
        closing_range(fd as u32, u32::MAX, 0);
        assert_eq!(fd_state(fd), FD_UNKNOWN);
        consumed(fd, 1);
        closing_range(fd as u32, fd as u32, libc::CLOSE_RANGE_CLOEXEC as c_int);
        assert_eq!(fd_state(fd), FD_CONTROLLED);
    }

    #[test]
    fn descriptors_beyond_the_table_are_left_alone() {
        let _g = setup();
        consumed(MAX_FD as c_int, 10);
        consumed(-5, 10);
        assert_eq!(fd_state(MAX_FD as c_int), FD_UNKNOWN);
    }
}
