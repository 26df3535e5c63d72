//! Drives one controller on one live TCP socket.
//!
//! The program's reads are counted ([`SocketDriver::on_consumed`]). Once per
//! RTT estimate a control step reads TCP_INFO, feeds the controller the
//! bytes consumed and the kernel's receiver RTT estimate (tcpi_rcv_rtt), and
//! applies the controller's window with TCP_WINDOW_CLAMP.

use crate::config::{AgentConfig, ClampMode};
use crate::error::AgentError;
use crate::group::{Grouping, Joined};
use crate::log::{LogSink, Row};
use crate::step::{KernelSample, Stepper};
use crate::sys::{self, FdClass};
use rtac_core::controller::AnyController;
use rtac_core::time::{Duration, Instant};
use rtac_core::DEFAULT_MSS;
use std::net::SocketAddr;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

static CONN_SERIAL: AtomicU64 = AtomicU64::new(1);

/// What one control step saw and did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepReport {
    pub t: Instant,
    /// The controller's smoothed RTT.
    pub rtt: Option<Duration>,
    /// Its minimum RTT.
    pub rtt_min: Option<Duration>,
    /// Its estimate of the sender's window, bytes per RTT.
    pub window_bytes: Option<u64>,
    /// The window applied with TCP_WINDOW_CLAMP; `None` when the controller
    /// sets no limit.
    pub rwnd: Option<u64>,
    /// tcpi_rcv_rtt, the sample fed this step (`None` before the kernel has one).
    pub kernel_rcv_rtt: Option<Duration>,
    /// Bytes the program consumed since the previous step.
    pub read_bytes: u64,
    /// Reads that returned data since the previous step.
    pub reads: u64,
}

/// One controller on one TCP socket. Not thread-safe by itself: the shim
/// and the C ABI keep it behind a lock.
pub struct SocketDriver {
    fd: c_int,
    identity: (u64, u64),
    stepper: Stepper,
    mss: u32,
    clamp: ClampMode,
    pending: u64,
    pending_reads: u64,
    next_step: Instant,
    original_clamp: Option<u64>,
    conn: u64,
    peer: Option<SocketAddr>,
    /// The group whose budget the socket shares (`crate::group`).
    group: Option<Arc<str>>,
    said_left: bool,
    log: Option<Arc<LogSink>>,
    last: Option<StepReport>,
    steps: u64,
    total_bytes: u64,
}

/// The segment size for a controller's packet arithmetic: the receiver's
/// estimate of the sender's MSS once full-sized segments have arrived
/// (Linux starts it at 536), else the MSS this end announced, else the
/// papers' 1448.
fn pick_mss(info: &sys::TcpInfo) -> u32 {
    if info.rcv_mss() > 536 {
        info.rcv_mss()
    } else if info.advmss() >= 536 {
        info.advmss()
    } else {
        DEFAULT_MSS
    }
}

/// The connection's handshake RTT (tcpi_min_rtt) as a first RTT sample,
/// in the units of tcpi_rcv_rtt: with millisecond TCP timestamps the
/// kernel's receiver RTT samples are whole milliseconds (a sample of 0 is
/// dropped), so it is rounded up to a whole millisecond. It gives RTT_min
/// a value measured before this connection's data (or another flow's)
/// queued anything at the bottleneck.
fn handshake_rtt_sample(info: &sys::TcpInfo) -> Option<Duration> {
    let us = info.min_rtt_us() as u64;
    if us == 0 {
        return None;
    }
    let ms_timestamps = info.options() & sys::TCPI_OPT_TIMESTAMPS != 0 && info.options() & sys::TCPI_OPT_USEC_TS == 0;
    Some(Duration::from_micros(if ms_timestamps { us.div_ceil(1000) * 1000 } else { us }))
}

impl SocketDriver {
    /// Starts controlling `fd`: checks that it is a TCP socket, builds the
    /// controller for its segment size, and applies the initial window (a
    /// first control step). In `lock` mode it fixes SO_RCVBUF first.
    pub fn attach(
        fd: c_int,
        cfg: &AgentConfig,
        log: Option<Arc<LogSink>>,
        now: Instant,
    ) -> Result<SocketDriver, AgentError> {
        Self::attach_with(fd, cfg, log, now, |mss, _| {
            Ok(Joined { controller: cfg.controller(mss)?, group: None, fallback: None })
        })
    }

    /// [`SocketDriver::attach`] with the controller of the socket's group
    /// in `grouping` (by the route to its peer): a place in the budget of
    /// its access link, or its own controller.
    pub fn attach_grouped(
        fd: c_int,
        cfg: &AgentConfig,
        log: Option<Arc<LogSink>>,
        now: Instant,
        grouping: &mut Grouping,
    ) -> Result<SocketDriver, AgentError> {
        Self::attach_with(fd, cfg, log, now, |mss, peer| grouping.join(now, 0, peer.map(|p| p.ip()), mss))
    }

    /// [`SocketDriver::attach`] with the controller `make` gives for the
    /// socket's segment size and peer.
    pub fn attach_with(
        fd: c_int,
        cfg: &AgentConfig,
        log: Option<Arc<LogSink>>,
        now: Instant,
        make: impl FnOnce(u32, Option<SocketAddr>) -> Result<Joined, AgentError>,
    ) -> Result<SocketDriver, AgentError> {
        match sys::classify(fd) {
            FdClass::Tcp => {}
            FdClass::Other => return Err(AgentError::NotTcp),
            FdClass::Unexpected(err) => return Err(AgentError::Sys { call: "getsockopt(SO_PROTOCOL/SO_DOMAIN)", err }),
        }
        let identity = sys::identity(fd).map_err(AgentError::sys("fstat"))?;
        let info = sys::tcp_info(fd).map_err(AgentError::sys("getsockopt(TCP_INFO)"))?;
        let mss = pick_mss(&info);
        let peer = sys::peer_addr(fd);
        let joined = make(mss, peer)?;
        let mut stepper = Stepper::grouped(joined.controller, joined.fallback, mss);
        if let Some(seed) = handshake_rtt_sample(&info) {
            stepper.seed_rtt(now, seed);
        }
        stepper.start_at(KernelSample {
            rcv_rtt: None,
            data_segs_in: info.data_segs_in(),
            ooo_segs: info.rcv_ooopack(),
        });
        let original_clamp = sys::window_clamp(fd).ok();
        if let ClampMode::Lock { rcvbuf } = cfg.clamp {
            sys::set_rcvbuf(fd, rcvbuf).map_err(AgentError::sys("setsockopt(SO_RCVBUF)"))?;
        }
        let mut d = SocketDriver {
            fd,
            identity,
            stepper,
            mss,
            clamp: cfg.clamp,
            pending: 0,
            pending_reads: 0,
            next_step: now,
            original_clamp,
            conn: CONN_SERIAL.fetch_add(1, Ordering::Relaxed),
            peer,
            group: joined.group,
            said_left: false,
            log,
            last: None,
            steps: 0,
            total_bytes: 0,
        };
        d.step_with(now, info)?;
        Ok(d)
    }

    /// Counts `bytes` the program read at `now`, and runs a control step
    /// if one is due. Returns whether a step ran.
    pub fn on_consumed(&mut self, now: Instant, bytes: u64) -> Result<bool, AgentError> {
        self.pending += bytes;
        self.pending_reads += 1;
        if now < self.next_step {
            return Ok(false);
        }
        self.step(now)?;
        Ok(true)
    }

    /// Adds `bytes` consumed by `reads` reads without checking whether a
    /// step is due (the shim counts in an atomic and hands over at the step).
    pub fn add_consumed(&mut self, bytes: u64, reads: u64) {
        self.pending += bytes;
        self.pending_reads += reads;
    }

    /// When the next step is due.
    pub fn next_step(&self) -> Instant {
        self.next_step
    }

    /// One control step now, whether due or not.
    pub fn step(&mut self, now: Instant) -> Result<StepReport, AgentError> {
        if sys::identity(self.fd).ok() != Some(self.identity) {
            return Err(AgentError::Replaced);
        }
        let info = sys::tcp_info(self.fd).map_err(AgentError::sys("getsockopt(TCP_INFO)"))?;
        self.step_with(now, info)
    }

    fn step_with(&mut self, now: Instant, info: sys::TcpInfo) -> Result<StepReport, AgentError> {
        let bytes = std::mem::take(&mut self.pending);
        let reads = std::mem::take(&mut self.pending_reads);
        self.total_bytes += bytes;
        let rcv_rtt = match info.rcv_rtt_us() {
            0 => None,
            us => Some(Duration::from_micros(us as u64)),
        };
        let k = KernelSample { rcv_rtt, data_segs_in: info.data_segs_in(), ooo_segs: info.rcv_ooopack() };
        let d = self.stepper.step(now, bytes, k);
        if self.group.is_some() && self.stepper.left_budget().is_some() {
            self.group = None;
        }
        let rwnd = d.rwnd;
        match rwnd {
            Some(w) => {
                let changed = self.last.and_then(|l| l.rwnd) != Some(w);
                if changed || self.clamp == ClampMode::Reapply {
                    sys::set_window_clamp(self.fd, w).map_err(AgentError::sys("setsockopt(TCP_WINDOW_CLAMP)"))?;
                }
            }
            // The controller hands the window back to the kernel (the
            // self-tuning RTAC's start-up): the clamp it had before.
            None if self.last.is_some_and(|l| l.rwnd.is_some()) => self.release()?,
            None => {}
        }
        let state = d.state;
        self.next_step = now + d.interval;
        self.steps += 1;
        let report = StepReport {
            t: now,
            rtt: state.rtt,
            rtt_min: state.rtt_min,
            window_bytes: state.window_bytes,
            rwnd,
            kernel_rcv_rtt: rcv_rtt,
            read_bytes: bytes,
            reads,
        };
        self.last = Some(report);
        if let Some(log) = &self.log {
            // A log that cannot be written loses rows, not control.
            let _ = log.write(&Row {
                t: now,
                fd: self.fd,
                conn: self.conn,
                peer: self.peer.as_ref(),
                rtt: report.rtt,
                rtt_min: report.rtt_min,
                window_bytes: report.window_bytes,
                rwnd_bytes: report.rwnd,
                kernel_rcv_rtt: report.kernel_rcv_rtt,
                read_bytes: report.read_bytes,
                reads: report.reads,
                group: self.group.as_deref(),
            });
        }
        Ok(report)
    }

    /// Gives the socket back to the kernel's window management: restores
    /// the TCP_WINDOW_CLAMP it had before `attach` (auto-tuning raises it
    /// again as it grows the buffer). Best effort: the socket may be gone.
    pub fn release(&mut self) -> Result<(), AgentError> {
        if let Some(c) = self.original_clamp.filter(|&c| c > 0) {
            sys::set_window_clamp(self.fd, c).map_err(AgentError::sys("setsockopt(TCP_WINDOW_CLAMP)"))?;
        }
        Ok(())
    }

    pub fn fd(&self) -> c_int {
        self.fd
    }
    pub fn mss(&self) -> u32 {
        self.mss
    }
    pub fn conn(&self) -> u64 {
        self.conn
    }
    pub fn peer(&self) -> Option<SocketAddr> {
        self.peer
    }
    /// The group whose budget the socket shares; `None`: its own controller.
    pub fn group(&self) -> Option<&str> {
        self.group.as_deref()
    }
    /// Why the socket left its group's budget for its own controller.
    pub fn left_budget(&self) -> Option<&'static str> {
        self.stepper.left_budget()
    }
    /// [`SocketDriver::left_budget`], the first time it is asked after the
    /// socket left (to say it once).
    pub fn take_left_budget(&mut self) -> Option<&'static str> {
        let why = self.stepper.left_budget().filter(|_| !self.said_left)?;
        self.said_left = true;
        Some(why)
    }
    pub fn controller(&self) -> &AnyController {
        self.stepper.controller()
    }
    /// The last step's report (attach runs the first).
    pub fn last(&self) -> Option<&StepReport> {
        self.last.as_ref()
    }
    pub fn steps(&self) -> u64 {
        self.steps
    }
    /// Bytes counted so far (handed to the controller).
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::step::{FIRST_STEP, MIN_STEP};
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::os::fd::AsRawFd;

    fn pair() -> (TcpStream, TcpStream) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (s, _) = l.accept().unwrap();
        (c, s)
    }

    #[test]
    fn attach_applies_the_initial_window_and_steps_follow_the_rtt() {
        let (mut c, mut s) = pair();
        // Loopback's segments are 64 KB; windows are at least two of them.
        // The paper's RTAC: the self-tuning one leaves its start-up to the kernel.
        let cfg = AgentConfig::new("rtac", &["bdp=100", "init_rwnd=384KB"]).unwrap();
        let t = sys::now();
        let mut d = SocketDriver::attach(c.as_raw_fd(), &cfg, None, t).unwrap();
        assert!(d.mss() > 60_000, "mss {}", d.mss());
        assert_eq!(sys::window_clamp(c.as_raw_fd()).unwrap(), 384 * 1024);
        assert_eq!(d.steps(), 1);
        // The handshake RTT is the first sample: the next step is one RTT (at least MIN_STEP) away.
        assert!(d.next_step() >= t + MIN_STEP && d.next_step() <= t + FIRST_STEP);
        assert!(d.last().unwrap().rtt.is_some());
        let writer = std::thread::spawn(move || {
            let chunk = vec![1u8; 1 << 16];
            for _ in 0..160 {
                s.write_all(&chunk).unwrap();
            }
        });
        let mut buf = vec![0u8; 1 << 16];
        let mut got = 0u64;
        while got < 160 << 16 {
            let n = c.read(&mut buf).unwrap() as u64;
            got += n;
            d.on_consumed(sys::now(), n).unwrap();
        }
        writer.join().unwrap();
        d.step(sys::now()).unwrap();
        assert_eq!(d.total_bytes(), got);
        assert!(d.steps() >= 2);
        let last = d.last().unwrap();
        assert_eq!(last.rwnd, sys::window_clamp(c.as_raw_fd()).ok());
        d.release().unwrap();
    }

    #[test]
    fn the_kernel_rtt_is_fed_once_per_segment_received() {
        let (mut c, mut s) = pair();
        // The paper's RTAC: the self-tuning one counts loopback's RTT as 1 ms.
        let cfg = AgentConfig::new("rtac", &["bdp=100"]).unwrap();
        let mut d = SocketDriver::attach(c.as_raw_fd(), &cfg, None, sys::now()).unwrap();
        let writer = std::thread::spawn(move || {
            let chunk = vec![1u8; 1 << 16];
            for _ in 0..256 {
                s.write_all(&chunk).unwrap();
            }
        });
        // Read 16 MB without a step in between: over a hundred segments.
        let mut buf = vec![0u8; 1 << 16];
        let mut got = 0u64;
        while got < 256 << 16 {
            got += c.read(&mut buf).unwrap() as u64;
        }
        writer.join().unwrap();
        let before = sys::tcp_info(c.as_raw_fd()).unwrap().data_segs_in().unwrap();
        assert!(before >= 128, "{before} segments");
        d.add_consumed(got, 1);
        let r = d.step(sys::now()).unwrap();
        let kernel = r.kernel_rcv_rtt.expect("the kernel measured the receive RTT").as_nanos() as f64;
        let ours = r.rtt.unwrap().as_nanos() as f64;
        // Fed once, the estimate would have moved only 1/8 of the way from the handshake's.
        assert!((ours - kernel).abs() <= 0.01 * kernel + 1e3, "controller {ours} ns, kernel {kernel} ns");
    }

    #[test]
    fn the_clamp_is_reapplied_after_the_kernel_changes_it() {
        let (c, _s) = pair();
        let cfg = AgentConfig::new("static", &["rmem_max=77777"]).unwrap();
        let mut d = SocketDriver::attach(c.as_raw_fd(), &cfg, None, sys::now()).unwrap();
        assert_eq!(sys::window_clamp(c.as_raw_fd()).unwrap(), 77_777);
        // What auto-tuning does when it grows the buffer.
        sys::set_window_clamp(c.as_raw_fd(), 1 << 20).unwrap();
        d.step(sys::now()).unwrap();
        assert_eq!(sys::window_clamp(c.as_raw_fd()).unwrap(), 77_777);
    }

    #[test]
    fn lock_mode_fixes_the_receive_buffer() {
        let (c, _s) = pair();
        let mut cfg = AgentConfig::new("static", &["rmem_max=60000"]).unwrap();
        cfg.clamp = ClampMode::Lock { rcvbuf: 256 * 1024 };
        let _d = SocketDriver::attach(c.as_raw_fd(), &cfg, None, sys::now()).unwrap();
        assert_eq!(sys::rcvbuf(c.as_raw_fd()).unwrap(), 512 * 1024);
        assert_eq!(sys::window_clamp(c.as_raw_fd()).unwrap(), 60_000);
    }

    #[test]
    fn none_sets_no_clamp_and_non_tcp_is_refused() {
        let (c, _s) = pair();
        let before = sys::window_clamp(c.as_raw_fd()).unwrap();
        let cfg = AgentConfig::new("none", &[] as &[&str]).unwrap();
        let d = SocketDriver::attach(c.as_raw_fd(), &cfg, None, sys::now()).unwrap();
        assert_eq!(d.last().unwrap().rwnd, None);
        assert_eq!(sys::window_clamp(c.as_raw_fd()).unwrap(), before);
        let u = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        assert!(matches!(SocketDriver::attach(u.as_raw_fd(), &cfg, None, sys::now()), Err(AgentError::NotTcp)));
    }

    #[test]
    fn a_reused_descriptor_is_detected() {
        let (c, _s) = pair();
        let fd = c.as_raw_fd();
        let cfg = AgentConfig::new("rtac", &[] as &[&str]).unwrap();
        let mut d = SocketDriver::attach(fd, &cfg, None, sys::now()).unwrap();
        let (c2, _s2) = pair();
        // SAFETY: test-only: put another socket on the same number.
        unsafe { libc::dup2(c2.as_raw_fd(), fd) };
        assert!(matches!(d.step(sys::now()), Err(AgentError::Replaced)));
    }
}
