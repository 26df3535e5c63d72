//! The namespace test bed, its HTTP server and the Must-show experiments.
//!
//! ```text
//!  sender ns (rtac-<pid>-srv)        rtac-<pid>-emu                 receiver ns (rtac-<pid>-cli)
//!  rtac0 100.64.0.1 ==veth== to-srv [emulated link] to-cli ==veth== rtac0 100.64.0.2
//!                                   down: rate, delay, DropTail queue
//!                                   up:   rate, delay
//! ```
//!
//! The path is `rtac emu`'s (crates/emu), built through its library: its
//! namespaces and devices ([`rtac_emu::testbed::Testbed`]) and one
//! forwarding thread per direction running its [`Engine`] in this process.
//! So the bottleneck has a real propagation delay (the kernel here has no
//! netem), and its queue is the simulator's DropTail model.
//!
//! Programs run as child processes through `ip netns exec`; every address
//! used is inside namespaces this module creates.

use clap::Args;
use rtac_emu::engine::{DirStats, Engine};
use rtac_emu::forward::run_direction;
use rtac_emu::testbed::{Side, Testbed as EmuTestbed, CLIENT_ADDR, SERVER_ADDR};
use rtac_live::error::AgentError;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration as StdDuration, Instant as StdInstant};

/// The sender's address, as the receiver reaches it through the link.
pub const SENDER_V4: &str = SERVER_ADDR;
/// The receiver's address.
pub const RECEIVER_V4: &str = CLIENT_ADDR;

/// Bytes of one full-sized packet on the link: a 1448-byte segment with
/// TCP timestamps in a 1500-byte IP packet. BDPs are counted in these, as
/// RTAC counts packets of one MSS.
pub const PACKET_BYTES: f64 = 1500.0;

/// The RTAC paper's LTE measurement (§V.A, Fig. 6): Auto-tuning alone
/// averaged 223 ms of RTT over a path whose RTT_m was about 50 ms.
pub const PAPER_LTE_AUTOTUNING_RTT_MS: f64 = 223.0;
/// The RTT_m of that path.
pub const PAPER_LTE_RTT_M_MS: f64 = 50.0;

/// The emulated access link between sender and receiver.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// Rate of each direction, bit/s.
    pub rate_bit: u64,
    /// One-way propagation delay of each direction, ms.
    pub delay_ms: f64,
    /// DropTail limit of each direction's queue, packets.
    pub queue_packets: u64,
}

impl Link {
    /// Full-sized packets per second.
    pub fn packets_per_s(&self) -> f64 {
        self.rate_bit as f64 / (8.0 * PACKET_BYTES)
    }

    /// The bandwidth-delay product over a round trip of `rtt_ms`, in
    /// packets (RTAC §III.C: the link capacity times RTT_m).
    pub fn bdp_packets(&self, rtt_ms: f64) -> f64 {
        self.packets_per_s() * rtt_ms / 1e3
    }

    /// The queue that makes the RTT, when full, what Auto-tuning's was in
    /// the paper's LTE measurement relative to RTT_m: it holds
    /// (223/50 - 1) times the BDP of the propagation round trip.
    pub fn paper_lte_queue(rate_bit: u64, delay_ms: f64) -> u64 {
        let l = Link { rate_bit, delay_ms, queue_packets: 0 };
        let ratio = PAPER_LTE_AUTOTUNING_RTT_MS / PAPER_LTE_RTT_M_MS;
        ((ratio - 1.0) * l.bdp_packets(2.0 * delay_ms)).round() as u64
    }
}

impl std::fmt::Display for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} Mbit/s each way, {} ms each way, DropTail {} packets ({:.0} ms of queue)",
            self.rate_bit as f64 / 1e6,
            self.delay_ms,
            self.queue_packets,
            self.queue_packets as f64 / self.packets_per_s() * 1e3
        )
    }
}

fn tb(msg: impl Into<String>) -> AgentError {
    AgentError::TestBed(msg.into())
}

/// Runs a command to completion; an error carries its stderr.
pub fn sh(cmd: &mut Command) -> Result<String, AgentError> {
    let out = cmd.stdin(Stdio::null()).output().map_err(|e| tb(format!("cannot run {cmd:?}: {e}")))?;
    if !out.status.success() {
        return Err(tb(format!("{cmd:?} failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr).trim())));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn ip(args: &[&str]) -> Result<String, AgentError> {
    sh(Command::new("ip").args(args))
}

/// Checks what the test bed needs, with a message naming what is missing:
/// root (CAP_NET_ADMIN, CAP_SYS_ADMIN, CAP_NET_RAW), `ip` and network
/// namespaces.
pub fn check_environment() -> Result<(), AgentError> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err(tb(
            "the namespace test bed needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN, CAP_NET_RAW); run the tests as root",
        ));
    }
    rtac_emu::run::check_privileges().map_err(|e| tb(e.to_string()))?;
    if Command::new("ip").arg("-V").stdout(Stdio::null()).stderr(Stdio::null()).status().is_err() {
        return Err(tb("`ip` (iproute2) is not installed"));
    }
    let name = format!("rtacchk{}", std::process::id());
    ip(&["netns", "add", &name]).map_err(|e| tb(format!("cannot create a network namespace: {e}")))?;
    let _ = ip(&["netns", "del", &name]);
    Ok(())
}

/// Checks that `program` can be run (`--version`), naming the Debian
/// package to install if not.
pub fn require_program(program: &str, package: &str) -> Result<(), AgentError> {
    match Command::new(program).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status() {
        Ok(_) => Ok(()),
        Err(_) => Err(tb(format!("`{program}` is not installed (Debian package {package}; .ci/run installs it)"))),
    }
}

static SERIAL: AtomicU32 = AtomicU32::new(0);

fn sys_errno_is_eperm() -> bool {
    rtac_live::sys::errno() == libc::EPERM
}

/// The forwarding threads of an emulated link. Dropping it stops them.
struct EmuLink {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<(Engine, Option<std::io::Error>)>>,
    /// Declared last: dropped after the threads have stopped.
    bed: EmuTestbed,
}

impl EmuLink {
    /// Stops the threads; the statistics of (down, up) if both ended well.
    fn stop(&mut self) -> Option<(DirStats, DirStats)> {
        self.stop.store(true, Ordering::Relaxed);
        let end = rtac_emu::sys::now();
        let mut stats = Vec::new();
        for h in self.threads.drain(..) {
            if let Ok((eng, None)) = h.join() {
                stats.push(eng.finish(end).0);
            }
        }
        let up = stats.pop();
        let down = stats.pop();
        down.zip(up)
    }
}

impl Drop for EmuLink {
    fn drop(&mut self) {
        self.stop();
        self.bed.kill_processes();
    }
}

/// What the emulator reports about the link it ran.
#[derive(Clone, Debug, Default)]
pub struct LinkHealth {
    /// Packets the downlink carried and dropped at its queue.
    pub down_departures: u64,
    pub down_queue_drops: u64,
    /// 99th percentile of how late frames reached the kernel after their
    /// scheduled instant, down and up, µs.
    pub down_late_p99_us: f64,
    pub up_late_p99_us: f64,
    /// Frames the kernel dropped before the emulator read them.
    pub rx_dropped: u64,
}

impl LinkHealth {
    /// Whether the emulator kept to its schedule (as `rtac emu` judges it).
    pub fn kept_up(&self) -> bool {
        self.down_late_p99_us <= 1000.0 && self.up_late_p99_us <= 1000.0 && self.rx_dropped == 0
    }
}

/// A set of namespaces; deleted on drop.
pub struct TestBed {
    pub sender: String,
    pub receiver: String,
    /// The emulated link (None: a bare veth pair).
    link: Option<EmuLink>,
}

impl TestBed {
    /// Deletes namespaces left by earlier runs of [`TestBed::pair`] that
    /// were killed before cleaning up (their names carry the dead
    /// process's id). `rtac emu`'s namespaces are its own registry's.
    fn remove_stale() {
        let Ok(list) = ip(&["netns", "list"]) else { return };
        for name in list.lines().filter_map(|l| l.split_whitespace().next()) {
            let Some(rest) = name.strip_prefix("rtac") else { continue };
            let Some((pid, _)) = rest.split_once('x') else { continue };
            let Ok(pid) = pid.parse::<i32>() else { continue };
            // SAFETY: signal 0 only checks whether the process exists.
            let alive = unsafe { libc::kill(pid, 0) } == 0 || sys_errno_is_eperm();
            if !alive {
                let _ = ip(&["netns", "del", name]);
            }
        }
    }

    fn add_ns(name: &str) -> Result<(), AgentError> {
        ip(&["netns", "add", name])?;
        ip(&["-n", name, "link", "set", "lo", "up"])?;
        Ok(())
    }

    /// Sender and receiver joined by `rtac emu`'s link model: `link` in
    /// each direction, one shared DropTail queue per direction. TCP
    /// metrics caching is off in both namespaces, so that no connection
    /// inherits ssthresh or RTT from the one before.
    pub fn emulated(link: Link) -> Result<TestBed, AgentError> {
        check_environment()?;
        #[derive(clap::Parser)]
        struct Emu {
            #[command(flatten)]
            args: rtac_emu::EmuArgs,
        }
        let rate = format!("{}bit", link.rate_bit);
        let delay = format!("{}us", (link.delay_ms * 1e3).round() as u64);
        let queue = format!("droptail:packets={}", link.queue_packets);
        #[rustfmt::skip]
        let argv = ["emu", "--down", &rate, "--up", &rate, "--delay", &delay, "--queue", &queue,
                    "--sysctl", "net.ipv4.tcp_no_metrics_save=1"];
        let emu = <Emu as clap::Parser>::try_parse_from(argv).map_err(|e| tb(format!("rtac emu options: {e}")))?;
        let cfg = emu.args.config().map_err(|e| tb(format!("rtac emu: {e}")))?;
        let bed = EmuTestbed::create(cfg.forward, &cfg.sysctls).map_err(|e| tb(format!("rtac emu: {e}")))?;
        let (down, up) = bed.ports().map_err(|e| tb(format!("rtac emu: {e}")))?;
        let mut emu_link = EmuLink { stop: Arc::new(AtomicBool::new(false)), threads: Vec::new(), bed };
        let origin = rtac_emu::sys::now();
        for (name, spec, io, salt) in [("down", &cfg.down, down, 0u64), ("up", &cfg.up, up, 1)] {
            let eng = Engine::new(spec, origin, cfg.seed.wrapping_mul(2).wrapping_add(salt), None);
            let (stop, rt) = (emu_link.stop.clone(), cfg.rt_priority);
            let h = std::thread::Builder::new()
                .name(format!("rtac-emu-{name}"))
                .spawn(move || run_direction(eng, io, stop, rt))
                .map_err(|e| tb(format!("cannot start the emulator's {name} thread: {e}")))?;
            emu_link.threads.push(h);
        }
        Ok(TestBed {
            sender: emu_link.bed.netns(Side::Server).to_string(),
            receiver: emu_link.bed.netns(Side::Client).to_string(),
            link: Some(emu_link),
        })
    }

    /// Two namespaces joined by one veth pair, nothing shaped: the fastest
    /// path this machine has (the overhead benchmark). The sender is
    /// 10.77.1.1, the receiver 10.77.1.2.
    pub fn pair() -> Result<TestBed, AgentError> {
        check_environment()?;
        Self::remove_stale();
        let p = format!("rtac{}x{}", std::process::id(), SERIAL.fetch_add(1, Ordering::Relaxed));
        let (s, c) = (format!("{p}s"), format!("{p}c"));
        let bed = TestBed { sender: s.clone(), receiver: c.clone(), link: None };
        Self::add_ns(&s)?;
        Self::add_ns(&c)?;
        ip(&["link", "add", "eth0", "netns", &s, "type", "veth", "peer", "name", "eth0", "netns", &c])?;
        ip(&["-n", &s, "addr", "add", "10.77.1.1/24", "dev", "eth0"])?;
        ip(&["-n", &c, "addr", "add", "10.77.1.2/24", "dev", "eth0"])?;
        ip(&["-n", &s, "link", "set", "eth0", "up"])?;
        ip(&["-n", &c, "link", "set", "eth0", "up"])?;
        Ok(bed)
    }

    /// `program` to run inside namespace `ns`.
    pub fn cmd(&self, ns: &str, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", ns]).arg(program);
        c
    }

    /// Stops the emulated link and returns what the emulator measured
    /// (None for a veth pair, or if a forwarding thread failed).
    pub fn stop_link(&mut self) -> Option<LinkHealth> {
        let (down, up) = self.link.as_mut()?.stop()?;
        let us = |h: &rtac_emu::hist::Hist| h.quantile(0.99) as f64 / 1e3;
        Some(LinkHealth {
            down_departures: down.departures,
            down_queue_drops: down.drops_queue,
            down_late_p99_us: us(&down.lateness_ns),
            up_late_p99_us: us(&up.lateness_ns),
            rx_dropped: down.rx_dropped + up.rx_dropped,
        })
    }
}

impl Drop for TestBed {
    fn drop(&mut self) {
        if self.link.take().is_none() {
            for n in [&self.sender, &self.receiver] {
                let _ = ip(&["netns", "del", n]);
            }
        }
    }
}

/// A background process, killed (SIGTERM, then SIGKILL) on drop.
pub struct Background(pub Child);

impl Background {
    pub fn spawn(cmd: &mut Command) -> Result<Background, AgentError> {
        cmd.stdin(Stdio::null()).spawn().map(Background).map_err(|e| tb(format!("cannot start {cmd:?}: {e}")))
    }

    /// Sends `sig` and waits for the exit; returns stdout if piped.
    pub fn stop(mut self, sig: i32) -> String {
        // SAFETY: signalling our own child.
        unsafe { libc::kill(self.0.id() as i32, sig) };
        let mut out = String::new();
        if let Some(mut so) = self.0.stdout.take() {
            let _ = so.read_to_string(&mut out);
        }
        let _ = self.0.wait();
        out
    }
}

impl Background {
    /// Waits for the exit; returns stdout if piped.
    pub fn wait_output(mut self) -> Result<String, AgentError> {
        let mut out = String::new();
        if let Some(mut so) = self.0.stdout.take() {
            so.read_to_string(&mut out).map_err(AgentError::io("reading a child's output"))?;
        }
        self.0.wait().map_err(AgentError::io("waiting for a child"))?;
        Ok(out)
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            // SAFETY: signalling our own child.
            unsafe { libc::kill(self.0.id() as i32, libc::SIGTERM) };
            for _ in 0..50 {
                if let Ok(Some(_)) = self.0.try_wait() {
                    return;
                }
                std::thread::sleep(StdDuration::from_millis(10));
            }
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Waits until a TCP connect to `addr` from namespace `ns` succeeds.
pub fn wait_listening(bed: &TestBed, ns: &str, addr: &str, port: u16) -> Result<(), AgentError> {
    let script = format!("import socket,sys\ntry:\n socket.create_connection(('{addr}',{port}),1).close()\nexcept Exception: sys.exit(1)");
    for _ in 0..100 {
        let ok = bed.cmd(ns, "python3").args(["-c", &script]).stderr(Stdio::null()).status().is_ok_and(|s| s.success());
        if ok {
            return Ok(());
        }
        std::thread::sleep(StdDuration::from_millis(50));
    }
    Err(tb(format!("nothing listens on {addr}:{port} in {ns}")))
}

// ---------------------------------------------------------------------------
// The HTTP file server (the sender side of the experiments).

/// Arguments of `rtac-dev serve`.
// The field docs are the command's --help text, which clap prints verbatim:
// no Markdown escapes in them.
#[allow(rustdoc::broken_intra_doc_links)]
#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on; [::]:PORT also accepts IPv4.
    #[arg(long, default_value = "[::]:8080")]
    pub listen: SocketAddr,
    /// The directory whose files are served (GET /NAME).
    #[arg(long)]
    pub dir: PathBuf,
    /// Congestion control for the sending sockets (TCP_CONGESTION).
    #[arg(long, default_value = "cubic")]
    pub cc: String,
}

fn serve_one(mut c: TcpStream, dir: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(c.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h == "\r\n" || h == "\n" {
            break;
        }
    }
    let name = path.trim_start_matches('/');
    let file = (!name.is_empty() && !name.contains("..") && !name.contains('/'))
        .then(|| std::fs::File::open(dir.join(name)).ok())
        .flatten();
    let Some(mut f) = file else {
        return c.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    };
    let len = f.metadata()?.len();
    write!(c, "HTTP/1.1 200 OK\r\nContent-Length: {len}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n")?;
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        c.write_all(&buf[..n])?;
    }
    c.shutdown(std::net::Shutdown::Write)?;
    // Wait for the client to close, so the last bytes are not reset.
    let mut sink = [0u8; 1024];
    while reader.read(&mut sink).unwrap_or(0) > 0 {}
    Ok(())
}

/// Serves the files of `dir` on `l` forever, one thread per connection,
/// with congestion control `cc` on each sending socket (None: the
/// system's default).
pub fn serve_forever(l: TcpListener, dir: PathBuf, cc: Option<String>) -> Result<(), AgentError> {
    for c in l.incoming() {
        let Ok(c) = c else { continue };
        if let Some(cc) = &cc {
            rtac_live::sys::set_congestion(std::os::fd::AsRawFd::as_raw_fd(&c), cc)
                .map_err(AgentError::io(format!("cannot set congestion control {cc}")))?;
        }
        let dir = dir.clone();
        std::thread::spawn(move || {
            let _ = serve_one(c, &dir);
        });
    }
    Ok(())
}

/// `rtac-dev serve`: serves files forever.
pub fn serve_main(a: ServeArgs) -> Result<i32, AgentError> {
    let l = TcpListener::bind(a.listen).map_err(AgentError::io(format!("cannot listen on {}", a.listen)))?;
    serve_forever(l, a.dir, Some(a.cc))?;
    Ok(0)
}

// ---------------------------------------------------------------------------
// The experiments.

/// Arguments of `rtac-dev experiment`.
#[derive(Args, Debug, Clone)]
pub struct ExperimentArgs {
    /// Rate of the emulated link, each direction, in bit/s.
    #[arg(long, default_value_t = 50_000_000)]
    pub rate_bit: u64,
    /// One-way propagation delay of the link, each direction, in ms (25:
    /// an RTT_m of 50 ms, the paper's LTE path).
    #[arg(long, default_value_t = 25.0)]
    pub delay_ms: f64,
    /// The bottleneck's DropTail limit in packets. Default: a full queue
    /// makes the RTT 223/50 times RTT_m, Auto-tuning's in the paper's LTE
    /// measurement (`Link::paper_lte_queue`).
    #[arg(long)]
    pub queue_packets: Option<u64>,
    /// RTAC's parameters. Default: `bdp=N`, K by eq. (11) from the link
    /// rate times the idle RTT measured on the path (RTAC §III.C).
    #[arg(long)]
    pub rtac_params: Option<String>,
    /// Size of the file curl downloads, in MiB.
    #[arg(long, default_value_t = 64)]
    pub file_mib: u64,
    /// Seconds of each iperf3 -R run.
    #[arg(long, default_value_t = 10)]
    pub iperf_secs: u64,
    /// Seconds of each two-program run.
    #[arg(long, default_value_t = 20)]
    pub fair_secs: u64,
    /// Two-program runs with RTAC against the default receiver.
    #[arg(long, default_value_t = 3)]
    pub fair_runs: usize,
    /// Two-program runs with DRWA against the default receiver.
    #[arg(long, default_value_t = 3)]
    pub drwa_runs: usize,
    /// Seconds the controlled program of a two-program run starts before
    /// the default one (0: both at the same instant).
    #[arg(long, default_value_t = 0)]
    pub fair_head_start: u64,
    /// Runs of each overhead case (0: skip the overhead benchmark).
    #[arg(long, default_value_t = 5)]
    pub overhead_runs: usize,
    /// GiB received in each overhead run.
    #[arg(long, default_value_t = 4)]
    pub overhead_gib: u64,
    /// Which parts to run: comma list of curl, iperf, fair, overhead.
    #[arg(long, default_value = "curl,iperf,fair,overhead")]
    pub parts: String,
    /// Keep logs and downloads in this directory.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The binary that implements `run` and `serve` (default: this one).
    #[arg(long)]
    pub rtac_bin: Option<PathBuf>,
    /// The LD_PRELOAD library (default: found as `rtac run` finds it).
    #[arg(long)]
    pub preload: Option<PathBuf>,
}

impl Default for ExperimentArgs {
    fn default() -> Self {
        use clap::Parser;
        #[derive(Parser)]
        struct P {
            #[command(flatten)]
            a: ExperimentArgs,
        }
        P::parse_from(["experiment"]).a
    }
}

impl ExperimentArgs {
    /// The emulated link these arguments describe.
    pub fn link(&self) -> Link {
        Link {
            rate_bit: self.rate_bit,
            delay_ms: self.delay_ms,
            queue_packets: self.queue_packets.unwrap_or_else(|| Link::paper_lte_queue(self.rate_bit, self.delay_ms)),
        }
    }
}

/// One download or iperf3 run with a concurrent ping.
#[derive(Clone, Debug, Default)]
pub struct Run {
    pub label: String,
    pub mbps: f64,
    pub ping_median_ms: f64,
    pub ping_p90_ms: f64,
    pub ping_samples: usize,
}

/// What the sender's kernel said about one connection (`ss -ti`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SenderView {
    pub bytes_sent: u64,
    /// Share of the sender's busy time limited by the receive window, %.
    pub rwnd_limited_pct: f64,
    /// Segments retransmitted.
    pub retrans: u64,
}

/// Two programs sharing the bottleneck: one under a controller, one with
/// the default receiver.
#[derive(Clone, Debug, Default)]
pub struct Fairness {
    pub controller: String,
    /// Seconds the controlled program started before the other.
    pub head_start: u64,
    pub controlled_mbps: f64,
    pub default_mbps: f64,
    /// Median RTT of a concurrent ping through the shared queue.
    pub ping_median_ms: f64,
    /// The data connections as their senders saw them, one second before
    /// the end (controlled, default).
    pub senders: Option<(SenderView, SenderView)>,
}

impl Fairness {
    pub fn ratio(&self) -> f64 {
        self.controlled_mbps / self.default_mbps
    }
}

/// RTAC's steady state in one FIFO shared with a flow whose window is not
/// limited by its receiver (from eqs. (6), (8), (10)): with the RTT at
/// r RTT_m, RTAC's window w satisfies w^3 = (a/K) r^3 / (r - 1), so its
/// share of the r BDP packets in flight is
/// s = ((a/K) / (BDP^3 (r - 1)))^(1/3); with K from eq. (11) for the true
/// BDP, s = ((theta - 1) / (r - 1))^(1/3). Returns the predicted ratio of
/// RTAC's throughput to the other's, s / (1 - s); None when RTAC's window
/// would not limit it (s >= 1).
pub fn predicted_rtac_ratio(a_over_k: f64, bdp_packets: f64, r: f64) -> Option<f64> {
    if r <= 1.0 {
        return None;
    }
    let s = (a_over_k / (bdp_packets.powi(3) * (r - 1.0))).cbrt();
    (s < 1.0).then(|| s / (1.0 - s))
}

/// a / K of the fixed-K RTAC with parameters `params` (`k=` or `bdp=`,
/// `theta=`, `a=`); the self-tuning controller has no fixed K.
pub fn rtac_a_over_k(params: &str) -> Result<f64, AgentError> {
    let p = rtac_core::controller::Params::parse_list(params)?;
    let r = rtac_core::controller::RtacParams::from_params(&p)?;
    let k = r.fixed_k().ok_or_else(|| AgentError::Usage(format!("rtac:{params} measures K: give k= or bdp=")))?;
    Ok(r.a / k)
}

/// CPU time of a receiver, with and without the shim.
#[derive(Clone, Debug, Default)]
pub struct Overhead {
    pub gib: u64,
    /// Reads and control steps per second of the logged `rtac` run, and
    /// its mean read size.
    pub reads_per_s: f64,
    pub steps_per_s: f64,
    pub bytes_per_read: f64,
    /// RTT samples fed per second, at most: one per 1448 bytes read, at
    /// most [`rtac_live::step::MAX_SAMPLES_PER_STEP`] per step.
    pub samples_per_s: f64,
    /// Receiver CPU seconds per second of the default runs (median).
    pub default_cpu_per_s: f64,
    pub costs: AgentCosts,
    /// (label, median CPU seconds, median Gbit/s, every CPU sample in
    /// round order)
    pub cases: Vec<(String, f64, f64, Vec<f64>)>,
}

impl Overhead {
    /// The extra CPU time of `label` over the default receiver, in percent:
    /// the median over rounds of the ratio within each round (the cases of
    /// a round run back to back, so slow drift in the machine's load
    /// cancels).
    pub fn pct(&self, label: &str) -> Option<f64> {
        let base = &self.cases.iter().find(|c| c.0 == "default")?.3;
        let x = &self.cases.iter().find(|c| c.0 == label)?.3;
        let mut ratios: Vec<f64> = x.iter().zip(base).map(|(x, b)| (x / b - 1.0) * 100.0).collect();
        Some(median(&mut ratios))
    }

    /// The agent's cost predicted from the micro-benchmark: reads/s ×
    /// read path + steps/s × step + samples/s × sample, over the default
    /// receiver's CPU use.
    pub fn modelled_pct(&self) -> f64 {
        let c = &self.costs;
        let per_s = self.reads_per_s * c.read_ns + self.steps_per_s * c.step_ns + self.samples_per_s * c.sample_ns;
        per_s * 1e-9 / self.default_cpu_per_s * 100.0
    }

    /// The same from the medians of each case's CPU times.
    pub fn pct_of_medians(&self, label: &str) -> Option<f64> {
        let base = self.cases.iter().find(|c| c.0 == "default")?.1;
        let x = self.cases.iter().find(|c| c.0 == label)?.1;
        Some((x / base - 1.0) * 100.0)
    }
}

/// What the agent costs, in CPU time (CLOCK_THREAD_CPUTIME_ID), measured
/// in-process on loopback sockets.
#[derive(Clone, Copy, Debug, Default)]
pub struct AgentCosts {
    /// The shim's read path on a controlled socket, no step due.
    pub read_ns: f64,
    /// One control step of RTAC (fstat, TCP_INFO, controller, TCP_WINDOW_CLAMP),
    /// no segment received since the previous one.
    pub step_ns: f64,
    /// Each RTT sample a step feeds RTAC (one per segment received).
    pub sample_ns: f64,
}

/// Times the read path and the control step (see [`AgentCosts`]).
pub fn agent_costs() -> Result<AgentCosts, AgentError> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(AgentError::io("listen"))?;
    let a = l.local_addr().map_err(AgentError::io("listen"))?;
    let c1 = TcpStream::connect(a).map_err(AgentError::io("connect"))?;
    let _s1 = l.accept().map_err(AgentError::io("accept"))?;
    let c2 = TcpStream::connect(a).map_err(AgentError::io("connect"))?;
    let _s2 = l.accept().map_err(AgentError::io("accept"))?;
    let cfg = crate::AgentConfig::new("rtac", &[OVERHEAD_RTAC_PARAMS])?;
    rtac_live::shim::init(cfg.clone());
    let fd1 = std::os::fd::AsRawFd::as_raw_fd(&c1);
    rtac_live::shim::opened(fd1);
    rtac_live::shim::consumed(fd1, 1);
    let read_ns = rtac_live::shim::bench_read_path(fd1, 2_000_000)
        .ok_or_else(|| tb("the shim did not control a loopback socket"))?;
    let mut d = crate::SocketDriver::attach(std::os::fd::AsRawFd::as_raw_fd(&c2), &cfg, None, rtac_live::sys::now())?;
    let n = 20_000;
    let t = rtac_live::sys::thread_cpu_ns();
    for _ in 0..n {
        d.add_consumed(1448, 1);
        d.step(rtac_live::sys::now())?;
    }
    let step_ns = (rtac_live::sys::thread_cpu_ns() - t) as f64 / n as f64;
    let mut ctl = cfg.controller(rtac_core::DEFAULT_MSS)?;
    let n = 2_000_000u64;
    let now = rtac_live::sys::now();
    let t = rtac_live::sys::thread_cpu_ns();
    for i in 0..n {
        // Varying samples, so that the work is not hoisted out of the loop.
        let rtt = rtac_core::time::Duration::from_micros(50_000 + (i & 1023));
        rtac_core::controller::Controller::on_rtt_sample(&mut ctl, now, std::hint::black_box(rtt));
    }
    let sample_ns = (rtac_live::sys::thread_cpu_ns() - t) as f64 / n as f64;
    rtac_live::shim::closing(fd1);
    Ok(AgentCosts { read_ns, step_ns, sample_ns })
}

/// Everything the experiments measured.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The emulated link (None when only the overhead benchmark ran).
    pub link: Option<Link>,
    /// Median idle ping RTT through the link: RTT_m.
    pub base_rtt_ms: f64,
    /// The link's BDP over RTT_m, packets.
    pub bdp_packets: f64,
    pub rtac_params: String,
    /// a / K of those parameters (for the fairness prediction).
    pub rtac_a_over_k: f64,
    pub curl: Vec<Run>,
    pub sha256_ok: Option<bool>,
    pub iperf: Vec<Run>,
    pub fairness: Vec<Fairness>,
    pub overhead: Option<Overhead>,
    pub log_rows: usize,
    /// What the emulator measured over all runs.
    pub link_health: Option<LinkHealth>,
}

fn pct_drop(base: f64, x: f64) -> f64 {
    (1.0 - x / base) * 100.0
}

impl Report {
    /// (default, rtac) of a pair of runs.
    pub fn pair(runs: &[Run]) -> Option<(&Run, &Run)> {
        Some((runs.iter().find(|r| r.label == "default")?, runs.iter().find(|r| r.label == "rtac")?))
    }

    /// The two-program runs of `controller`.
    pub fn fairness_of<'a>(&'a self, controller: &'a str) -> impl Iterator<Item = &'a Fairness> + 'a {
        self.fairness.iter().filter(move |f| f.controller == controller)
    }

    /// The median over the two-program runs of `controller` of its
    /// throughput relative to the default receiver's (None without runs).
    pub fn fairness_median(&self, controller: &str) -> Option<f64> {
        let mut v: Vec<f64> = self.fairness_of(controller).map(Fairness::ratio).collect();
        (!v.is_empty()).then(|| median(&mut v))
    }

    /// The RTT of a two-program run over RTT_m.
    pub fn rtt_ratio(&self, f: &Fairness) -> f64 {
        f.ping_median_ms / self.base_rtt_ms
    }

    /// RTAC's ratio predicted for a two-program run from its measured RTT
    /// ([`predicted_rtac_ratio`]).
    pub fn predicted_ratio(&self, f: &Fairness) -> Option<f64> {
        predicted_rtac_ratio(self.rtac_a_over_k, self.bdp_packets, self.rtt_ratio(f))
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(l) = &self.link {
            writeln!(f, "link: {l}")?;
            writeln!(
                f,
                "RTT_m (idle ping): {:.2} ms; BDP {:.1} packets; rtac params: {}",
                self.base_rtt_ms, self.bdp_packets, self.rtac_params
            )?;
        }
        for (name, runs) in [("curl", &self.curl), ("iperf3 -R", &self.iperf)] {
            for r in runs.iter() {
                writeln!(
                    f,
                    "{name:<10} {:<8} {:7.2} Mbit/s   ping median {:7.2} ms  p90 {:7.2} ms  ({} pings)",
                    r.label, r.mbps, r.ping_median_ms, r.ping_p90_ms, r.ping_samples
                )?;
            }
            if let Some((d, c)) = Report::pair(runs) {
                writeln!(
                    f,
                    "{name:<10} rtac vs default: ping RTT -{:.1} %, throughput {:.1} %",
                    pct_drop(d.ping_median_ms, c.ping_median_ms),
                    c.mbps / d.mbps * 100.0
                )?;
            }
        }
        if let Some(ok) = self.sha256_ok {
            writeln!(f, "sha256 of the downloads: {}", if ok { "match" } else { "MISMATCH" })?;
        }
        for x in &self.fairness {
            let pred = match (x.controller.as_str(), self.predicted_ratio(x)) {
                ("rtac", Some(p)) => format!("{:.0} %", p * 100.0),
                ("rtac", None) => "not limiting".to_string(),
                _ => "-".to_string(),
            };
            let senders = match x.senders {
                Some((c, d)) => format!(
                    "; sender: {} rwnd-limited {:.1} % of busy time, retransmitted {} vs {} segments",
                    x.controller, c.rwnd_limited_pct, c.retrans, d.retrans
                ),
                None => String::new(),
            };
            writeln!(
                f,
                "two programs {:<5} (started {} s earlier) {:6.2} Mbit/s vs default receiver {:6.2} Mbit/s: ratio \
                 {:5.1} %; ping {:.0} ms (r = {:.2}); eq. (6)-(11) steady state predicts {pred}{senders}",
                x.controller,
                x.head_start,
                x.controlled_mbps,
                x.default_mbps,
                x.ratio() * 100.0,
                x.ping_median_ms,
                self.rtt_ratio(x),
            )?;
        }
        for c in ["rtac", "drwa"] {
            if let Some(m) = self.fairness_median(c) {
                let runs: Vec<String> = self.fairness_of(c).map(|x| format!("{:.1}", x.ratio() * 100.0)).collect();
                writeln!(f, "two programs {c:<5} median ratio {:.1} % (runs: {})", m * 100.0, runs.join(", "))?;
            }
        }
        if let Some(h) = &self.link_health {
            writeln!(
                f,
                "emulator: downlink carried {} packets, queue dropped {}; p99 lateness {:.0} us down, {:.0} us up; \
                 {} frames lost before forwarding{}",
                h.down_departures,
                h.down_queue_drops,
                h.down_late_p99_us,
                h.up_late_p99_us,
                h.rx_dropped,
                if h.kept_up() { "" } else { " (WARNING: the emulator fell behind its schedule)" }
            )?;
        }
        if let Some(o) = &self.overhead {
            for (label, cpu, gbps, all) in &o.cases {
                let all: Vec<String> = all.iter().map(|c| format!("{c:.3}")).collect();
                writeln!(
                    f,
                    "overhead  {label:<8} CPU {cpu:.3} s per {} GiB (median; runs {}), {gbps:.2} Gbit/s",
                    o.gib,
                    all.join(" ")
                )?;
            }
            writeln!(
                f,
                "overhead  cost model: read path {:.1} ns, control step {:.2} us, RTT sample {:.1} ns; the logged \
                 rtac run made {:.0} reads/s of {:.0} bytes, {:.0} steps/s and at most {:.0} samples/s; the default \
                 receiver used {:.3} CPU s per s: predicted {:+.2} % CPU time",
                o.costs.read_ns,
                o.costs.step_ns / 1e3,
                o.costs.sample_ns,
                o.reads_per_s,
                o.bytes_per_read,
                o.steps_per_s,
                o.samples_per_s,
                o.default_cpu_per_s,
                o.modelled_pct()
            )?;
            for label in ["none", "rtac"] {
                if let (Some(p), Some(m)) = (o.pct(label), o.pct_of_medians(label)) {
                    writeln!(
                        f,
                        "overhead  {label} vs default: {p:+.2} % CPU time (median of per-round ratios; \
                         {m:+.2} % between the medians)"
                    )?;
                }
            }
        }
        if self.log_rows > 0 {
            writeln!(f, "log rows written under rtac: {}", self.log_rows)?;
        }
        Ok(())
    }
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() - 1) as f64 * p).round() as usize]
}

/// The `time=X ms` values of ping's output.
pub fn parse_ping(out: &str) -> Vec<f64> {
    out.lines()
        .filter_map(|l| l.split("time=").nth(1))
        .filter_map(|t| t.split_whitespace().next())
        .filter_map(|t| t.parse::<f64>().ok())
        .collect()
}

/// The number after `"key":` at or after `from` in a JSON text.
fn json_number_after(text: &str, from: &str, key: &str) -> Option<f64> {
    let start = text.find(from)?;
    let rest = &text[start..];
    let k = rest.find(&format!("\"{key}\""))?;
    let rest = &rest[k + key.len() + 2..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))?;
    rest[..end].parse().ok()
}

/// iperf3 -J: the receiver's throughput in Mbit/s.
pub fn iperf_received_mbps(json: &str) -> Option<f64> {
    json_number_after(json, "\"sum_received\"", "bits_per_second").map(|b| b / 1e6)
}

struct Ctx<'a> {
    bed: &'a TestBed,
    rtac_bin: PathBuf,
    preload: PathBuf,
    dir: PathBuf,
}

impl Ctx<'_> {
    /// `program args` in the receiver namespace, under `rtac run` when
    /// `controller` is given.
    fn receiver_cmd(&self, controller: Option<(&str, &str)>, log: Option<&Path>, program: &[&str]) -> Command {
        let bed = self.bed;
        match controller {
            None => {
                let mut c = bed.cmd(&bed.receiver, program[0]);
                c.args(&program[1..]);
                c
            }
            Some((name, params)) => {
                let mut c = bed.cmd(&bed.receiver, &self.rtac_bin);
                c.args(["run", "--controller", name]);
                if !params.is_empty() {
                    c.args(["--param", params]);
                }
                c.arg("--preload").arg(&self.preload);
                if let Some(l) = log {
                    c.arg("--log").arg(l);
                }
                c.arg("--").args(program);
                c
            }
        }
    }

    fn ping(&self) -> Result<Background, AgentError> {
        let mut c = self.bed.cmd(&self.bed.receiver, "ping");
        c.args(["-n", "-i", "0.1", SENDER_V4]).stdout(Stdio::piped()).stderr(Stdio::null());
        Background::spawn(&mut c)
    }
}

fn sha256(path: &Path) -> Result<String, AgentError> {
    let out = sh(Command::new("sha256sum").arg(path))?;
    Ok(out.split_whitespace().next().unwrap_or("").to_string())
}

fn write_blob(path: &Path, mib: u64) -> Result<(), AgentError> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(AgentError::io("cannot create the blob"))?);
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut buf = vec![0u8; 1 << 20];
    for _ in 0..mib {
        for chunk in buf.chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
        }
        f.write_all(&buf).map_err(AgentError::io("cannot write the blob"))?;
    }
    f.flush().map_err(AgentError::io("cannot write the blob"))
}

fn settle() {
    // Let the bottleneck queue drain between runs.
    std::thread::sleep(StdDuration::from_millis(1500));
}

fn curl_run(ctx: &Ctx<'_>, label: &str, rtac: Option<&str>, mib: u64) -> Result<(Run, PathBuf), AgentError> {
    let out = ctx.dir.join(format!("curl-{label}.bin"));
    let log = ctx.dir.join(format!("curl-{label}.csv"));
    let url = format!("http://{SENDER_V4}:8080/blob");
    let ping = ctx.ping()?;
    let t = StdInstant::now();
    let status = ctx
        .receiver_cmd(
            rtac.map(|p| ("rtac", p)),
            Some(&log).filter(|_| rtac.is_some()).map(|p| p.as_path()),
            &["curl", "-sS", "-o", out.to_str().unwrap(), &url],
        )
        .stdin(Stdio::null())
        .status()
        .map_err(|e| tb(format!("cannot run curl: {e}")))?;
    let secs = t.elapsed().as_secs_f64();
    let mut pings = parse_ping(&ping.stop(libc::SIGINT));
    if !status.success() {
        return Err(tb(format!("curl ({label}) failed: {status}")));
    }
    let mbps = (mib << 20) as f64 * 8.0 / secs / 1e6;
    let run = Run {
        label: label.to_string(),
        mbps,
        ping_samples: pings.len(),
        ping_median_ms: median(&mut pings),
        ping_p90_ms: percentile(&mut pings, 0.9),
    };
    Ok((run, out))
}

fn iperf_run(ctx: &Ctx<'_>, label: &str, rtac: Option<&str>, secs: u64, port: u16) -> Result<Run, AgentError> {
    let log = ctx.dir.join(format!("iperf-{label}.csv"));
    let ping = ctx.ping()?;
    let out = ctx
        .receiver_cmd(
            rtac.map(|p| ("rtac", p)),
            Some(&log).filter(|_| rtac.is_some()).map(|p| p.as_path()),
            &["iperf3", "-c", SENDER_V4, "-p", &port.to_string(), "-R", "-C", "cubic", "-t", &secs.to_string(), "-J"],
        )
        .stdin(Stdio::null())
        .output()
        .map_err(|e| tb(format!("cannot run iperf3: {e}")))?;
    let mut pings = parse_ping(&ping.stop(libc::SIGINT));
    let json = String::from_utf8_lossy(&out.stdout);
    let mbps = iperf_received_mbps(&json).ok_or_else(|| tb(format!("iperf3 ({label}) gave no result: {json}")))?;
    Ok(Run {
        label: label.to_string(),
        mbps,
        ping_samples: pings.len(),
        ping_median_ms: median(&mut pings),
        ping_p90_ms: percentile(&mut pings, 0.9),
    })
}

/// The data connections in `ss -tin` output, by local port: the one that
/// sent the most bytes on each port.
pub fn parse_ss(text: &str) -> Vec<(u16, SenderView)> {
    let mut out: Vec<(u16, SenderView)> = Vec::new();
    let mut port = None;
    for line in text.lines() {
        if !line.starts_with(char::is_whitespace) {
            // "ESTAB 0 941200 [::ffff:100.64.0.1]:5201 [::ffff:100.64.0.2]:37272"
            port = line.split_whitespace().nth(3).and_then(|a| a.rsplit_once(':')).and_then(|(_, p)| p.parse().ok());
            continue;
        }
        let Some(p) = port.take() else { continue };
        let field = |key: &str| line.split_whitespace().find_map(|t| t.strip_prefix(key));
        let v = SenderView {
            bytes_sent: field("bytes_sent:").and_then(|x| x.parse().ok()).unwrap_or(0),
            // "rwnd_limited:50ms(16.2%)"
            rwnd_limited_pct: field("rwnd_limited:")
                .and_then(|x| x.split_once('(')?.1.strip_suffix("%)")?.parse().ok())
                .unwrap_or(0.0),
            // "retrans:0/13": now / in total
            retrans: field("retrans:").and_then(|x| x.rsplit('/').next()?.parse().ok()).unwrap_or(0),
        };
        match out.iter_mut().find(|(q, _)| *q == p) {
            Some((_, w)) if w.bytes_sent >= v.bytes_sent => {}
            Some((_, w)) => *w = v,
            None => out.push((p, v)),
        }
    }
    out
}

/// Two iperf3 -R clients through the bottleneck, one under `controller`
/// (on port 5201, started `head_start` seconds earlier), one with the
/// default receiver (port 5202); both measured over the same `secs`
/// seconds (`-O` omits the head start), with a ping through the same
/// queue and the senders' view of both connections a second before the end.
fn fairness_run(
    ctx: &Ctx<'_>,
    controller: &str,
    params: &str,
    secs: u64,
    head_start: u64,
    n: usize,
) -> Result<Fairness, AgentError> {
    let iperf = |port: &str, t: u64, omit: u64| -> Vec<String> {
        let mut v: Vec<String> =
            ["iperf3", "-c", SENDER_V4, "-p", port, "-R", "-C", "cubic", "-J"].iter().map(|s| s.to_string()).collect();
        v.extend(["-t".to_string(), t.to_string()]);
        if omit > 0 {
            v.extend(["-O".to_string(), omit.to_string()]);
        }
        v
    };
    let a1 = iperf("5201", secs, head_start);
    let a2 = iperf("5202", secs, 0);
    let a1: Vec<&str> = a1.iter().map(String::as_str).collect();
    let a2: Vec<&str> = a2.iter().map(String::as_str).collect();
    let log = ctx.dir.join(format!("fair-{controller}-h{head_start}-{n}.csv"));
    let ping = ctx.ping()?;
    let controlled = ctx
        .receiver_cmd(Some((controller, params)), Some(&log), &a1)
        .stdout(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .map_err(|e| tb(format!("cannot run iperf3: {e}")))?;
    let controlled = Background(controlled);
    std::thread::sleep(StdDuration::from_secs(head_start));
    let plain = ctx
        .receiver_cmd(None, None, &a2)
        .stdout(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .map_err(|e| tb(format!("cannot run iperf3: {e}")))?;
    let plain = Background(plain);
    std::thread::sleep(StdDuration::from_secs(secs.saturating_sub(1)));
    let ss = sh(ctx.bed.cmd(&ctx.bed.sender, "ss").args(["-tin"])).unwrap_or_default();
    let (o1, o2) = (controlled.wait_output()?, plain.wait_output()?);
    let mut pings = parse_ping(&ping.stop(libc::SIGINT));
    let m1 = iperf_received_mbps(&o1).ok_or_else(|| tb(format!("iperf3 under {controller} gave no result")))?;
    let m2 = iperf_received_mbps(&o2).ok_or_else(|| tb("iperf3 with the default receiver gave no result"))?;
    let views = parse_ss(&ss);
    let view = |port: u16| views.iter().find(|(p, _)| *p == port).map(|(_, v)| *v);
    Ok(Fairness {
        controller: controller.to_string(),
        head_start,
        controlled_mbps: m1,
        default_mbps: m2,
        ping_median_ms: median(&mut pings),
        senders: view(5201).zip(view(5202)),
    })
}

/// CPU seconds (user + system) of a child, from wait4's rusage.
fn cpu_of(cmd: &mut Command) -> Result<(f64, String), AgentError> {
    let child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn();
    let mut child = child.map_err(|e| tb(format!("cannot start {cmd:?}: {e}")))?;
    let mut out = String::new();
    if let Some(mut so) = child.stdout.take() {
        let _ = so.read_to_string(&mut out);
    }
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 on our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointers; the child has not been reaped.
    let r = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut ru) };
    if r < 0 {
        return Err(tb(format!("wait4: {}", std::io::Error::last_os_error())));
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Ok((tv(ru.ru_utime) + tv(ru.ru_stime), out))
}

/// RTAC's parameters in the overhead benchmark: the whole controller runs
/// and its window is applied at every step, but K is so small that the
/// window (capped at 64 MB) never limits the transfer, so the benchmark
/// measures the agent's cost and not the effect of a smaller window.
pub const OVERHEAD_RTAC_PARAMS: &str = "k=1e-12,rmem_max=64MB";

/// The receiver's CPU time per `gib` GiB on the fastest path (a bare veth
/// pair, sender pinned to CPU 0 and receiver to CPU 1): without the shim,
/// with it and controller `none` (interposition and steps only), and with
/// `rtac` ([`OVERHEAD_RTAC_PARAMS`]).
fn overhead(ctx_bin: &Path, preload: &Path, runs: usize, gib: u64) -> Result<Overhead, AgentError> {
    let bed = TestBed::pair()?;
    let _server = Background::spawn(
        Command::new("taskset")
            .args(["-c", "0", "ip", "netns", "exec", &bed.sender, "iperf3", "-s", "-p", "5201"])
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
    )?;
    wait_listening(&bed, &bed.receiver, "10.77.1.1", 5201)?;
    let n = format!("{gib}G");
    let client = ["taskset", "-c", "1", "iperf3", "-c", "10.77.1.1", "-p", "5201", "-R", "-n", n.as_str(), "-J"];
    let cases: [(&str, Option<(&str, &str)>); 3] =
        [("default", None), ("none", Some(("none", ""))), ("rtac", Some(("rtac", OVERHEAD_RTAC_PARAMS)))];
    let mut samples: Vec<(Vec<f64>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); cases.len()];
    let ctx = Ctx { bed: &bed, rtac_bin: ctx_bin.to_path_buf(), preload: preload.to_path_buf(), dir: PathBuf::new() };
    // One warm-up, then the cases interleaved so that drift hits all alike.
    let _ = cpu_of(&mut ctx.receiver_cmd(None, None, &client));
    for _ in 0..runs {
        for (i, (_, ctl)) in cases.iter().enumerate() {
            let (cpu, out) = cpu_of(&mut ctx.receiver_cmd(*ctl, None, &client))?;
            let gbps = iperf_received_mbps(&out).ok_or_else(|| tb("iperf3 (overhead) gave no result"))? / 1e3;
            samples[i].0.push(cpu);
            samples[i].1.push(gbps);
        }
    }
    let cases: Vec<(String, f64, f64, Vec<f64>)> = cases
        .iter()
        .zip(samples)
        .map(|((label, _), (mut cpu, mut gbps))| {
            let all = cpu.clone();
            (label.to_string(), median(&mut cpu), median(&mut gbps), all)
        })
        .collect();
    // One more rtac run with the log: how many reads and steps per second.
    let dir = std::env::temp_dir().join(format!("rtac-overhead-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(AgentError::io("cannot create a temporary directory"))?;
    let log = dir.join("rtac.csv");
    let (_, out) = cpu_of(&mut ctx.receiver_cmd(Some(("rtac", OVERHEAD_RTAC_PARAMS)), Some(&log), &client))?;
    iperf_received_mbps(&out).ok_or_else(|| tb("iperf3 (overhead, logged) gave no result"))?;
    let rows = crate::log::read_log(&log)?;
    let _ = std::fs::remove_dir_all(&dir);
    // The data connection is the one that read the most.
    let mut by_conn: std::collections::BTreeMap<u64, Vec<&crate::log::LogRecord>> = Default::default();
    for r in &rows {
        by_conn.entry(r.conn).or_default().push(r);
    }
    let data = by_conn
        .values()
        .max_by_key(|v| v.iter().map(|r| r.read_bytes).sum::<u64>())
        .ok_or_else(|| tb("the logged overhead run wrote no rows"))?;
    let span = data.last().unwrap().t_s - data.first().unwrap().t_s;
    let reads: u64 = data.iter().map(|r| r.reads).sum();
    let bytes: u64 = data.iter().map(|r| r.read_bytes).sum();
    let max = rtac_live::step::MAX_SAMPLES_PER_STEP;
    let samples: u64 = data.iter().map(|r| r.read_bytes.div_ceil(rtac_core::DEFAULT_MSS as u64).min(max)).sum();
    let default = cases.iter().find(|c| c.0 == "default").expect("the default case");
    let secs = gib as f64 * 8.0 * (1u64 << 30) as f64 / (default.2 * 1e9);
    Ok(Overhead {
        gib,
        reads_per_s: reads as f64 / span.max(1e-3),
        steps_per_s: data.len() as f64 / span.max(1e-3),
        samples_per_s: samples as f64 / span.max(1e-3),
        bytes_per_read: bytes as f64 / reads.max(1) as f64,
        default_cpu_per_s: default.1 / secs,
        costs: agent_costs()?,
        cases,
    })
}

/// Runs the experiments `args.parts` names and returns the figures.
pub fn run_experiments(args: &ExperimentArgs) -> Result<Report, AgentError> {
    check_environment()?;
    #[rustfmt::skip]
    let tools = [("curl", "curl"), ("iperf3", "iperf3"), ("ping", "iputils-ping"), ("python3", "python3"),
                 ("ss", "iproute2"), ("sha256sum", "coreutils")];
    for (p, pkg) in tools {
        require_program(p, pkg)?;
    }
    let parts: Vec<&str> = args.parts.split(',').map(str::trim).collect();
    if let Some(bad) = parts.iter().find(|p| !["curl", "iperf", "fair", "overhead"].contains(p)) {
        return Err(AgentError::Usage(format!("--parts: unknown part {bad:?}: expected curl, iperf, fair, overhead")));
    }
    if let Some(p) = &args.rtac_params {
        rtac_a_over_k(p)?;
    }
    let rtac_bin = match &args.rtac_bin {
        Some(b) => b.clone(),
        None => std::env::current_exe().map_err(AgentError::io("cannot find this executable"))?,
    };
    let preload = crate::run::find_preload(args.preload.as_deref())?;
    let keep = args.out.is_some();
    let dir = args.out.clone().unwrap_or_else(|| std::env::temp_dir().join(format!("rtac-exp-{}", std::process::id())));
    std::fs::create_dir_all(&dir).map_err(AgentError::io(format!("cannot create {}", dir.display())))?;
    let mut report = Report::default();
    let result = (|| -> Result<(), AgentError> {
        if parts.iter().any(|p| ["curl", "iperf", "fair"].contains(p)) {
            let link = args.link();
            report.link = Some(link);
            let mut bed = TestBed::emulated(link)?;
            let ctx = Ctx { bed: &bed, rtac_bin: rtac_bin.clone(), preload: preload.clone(), dir: dir.clone() };
            let www = dir.join("www");
            std::fs::create_dir_all(&www).map_err(AgentError::io("cannot create the web root"))?;
            let blob = www.join("blob");
            if parts.contains(&"curl") {
                write_blob(&blob, args.file_mib)?;
            }
            let http = Background::spawn(
                bed.cmd(&bed.sender, &rtac_bin).args(["serve", "--listen", "0.0.0.0:8080", "--dir"]).arg(&www),
            )?;
            let quiet_iperf = |port: &str| {
                let mut c = bed.cmd(&bed.sender, "iperf3");
                c.args(["-s", "-p", port]).stdout(Stdio::null()).stderr(Stdio::null());
                c
            };
            let i1 = Background::spawn(&mut quiet_iperf("5201"))?;
            let i2 = Background::spawn(&mut quiet_iperf("5202"))?;
            for port in [8080, 5201, 5202] {
                wait_listening(&bed, &bed.receiver, SENDER_V4, port)?;
            }
            let idle = sh(bed.cmd(&bed.receiver, "ping").args(["-n", "-c", "20", "-i", "0.1", SENDER_V4]))?;
            report.base_rtt_ms = median(&mut parse_ping(&idle));
            if !report.base_rtt_ms.is_finite() {
                return Err(tb(format!("no idle ping came back through the link: {idle}")));
            }
            report.bdp_packets = link.bdp_packets(report.base_rtt_ms);
            report.rtac_params = match &args.rtac_params {
                Some(p) => p.clone(),
                None => format!("bdp={:.0}", report.bdp_packets),
            };
            report.rtac_a_over_k = rtac_a_over_k(&report.rtac_params)?;
            let rtac = report.rtac_params.as_str();
            // A first short transfer, so that no measured run pays for the first connection's set-up.
            sh(bed.cmd(&bed.receiver, "iperf3").args(["-c", SENDER_V4, "-p", "5201", "-R", "-t", "1"]))?;
            settle();
            if parts.contains(&"curl") {
                let want = sha256(&blob)?;
                let (d, f1) = curl_run(&ctx, "default", None, args.file_mib)?;
                settle();
                let (c, f2) = curl_run(&ctx, "rtac", Some(rtac), args.file_mib)?;
                settle();
                report.sha256_ok = Some(sha256(&f1)? == want && sha256(&f2)? == want);
                report.curl = vec![d, c];
                report.log_rows = crate::log::read_log(&dir.join("curl-rtac.csv")).map(|r| r.len()).unwrap_or_default();
                let _ = std::fs::remove_file(f1);
                let _ = std::fs::remove_file(f2);
            }
            if parts.contains(&"iperf") {
                let d = iperf_run(&ctx, "default", None, args.iperf_secs, 5201)?;
                settle();
                let c = iperf_run(&ctx, "rtac", Some(rtac), args.iperf_secs, 5201)?;
                settle();
                report.iperf = vec![d, c];
            }
            if parts.contains(&"fair") {
                let h = args.fair_head_start;
                // Interleaved, so that a change in the machine's load hits both alike.
                for i in 0..args.fair_runs.max(args.drwa_runs) {
                    if i < args.fair_runs {
                        report.fairness.push(fairness_run(&ctx, "rtac", rtac, args.fair_secs, h, i)?);
                        settle();
                    }
                    if i < args.drwa_runs {
                        report.fairness.push(fairness_run(&ctx, "drwa", "", args.fair_secs, h, i)?);
                        settle();
                    }
                }
            }
            drop((http, i1, i2));
            report.link_health = bed.stop_link();
        }
        if parts.contains(&"overhead") && args.overhead_runs > 0 {
            report.overhead = Some(overhead(&rtac_bin, &preload, args.overhead_runs, args.overhead_gib)?);
        }
        Ok(())
    })();
    if !keep {
        let _ = std::fs::remove_dir_all(&dir);
    }
    result.map(|()| report)
}

/// `rtac-dev experiment`: runs and prints the figures.
pub fn experiment_main(args: ExperimentArgs) -> Result<i32, AgentError> {
    let report = run_experiments(&args)?;
    print!("{report}");
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ping_and_iperf_output_parse() {
        let ping = "PING 10.77.1.1 (10.77.1.1) 56(84) bytes of data.\n\
                    64 bytes from 10.77.1.1: icmp_seq=1 ttl=63 time=0.085 ms\n\
                    64 bytes from 10.77.1.1: icmp_seq=2 ttl=63 time=12.5 ms\n";
        assert_eq!(parse_ping(ping), vec![0.085, 12.5]);
        let json = r#"{"end": {"sum_sent": {"bits_per_second": 1.0e6}, "sum_received": {"seconds": 10,
                      "bytes": 5, "bits_per_second": 47812345.5, "sender": false}}}"#;
        assert_eq!(iperf_received_mbps(json), Some(47.8123455));
        assert_eq!(iperf_received_mbps("{}"), None);
    }

    #[test]
    fn ss_output_parses_to_the_busiest_connection_per_port() {
        let ss = "State Recv-Q Send-Q Local Address:Port Peer Address:Port Process\n\
                  ESTAB 0 2 [::ffff:100.64.0.1]:5201 [::ffff:100.64.0.2]:37256\n\
                  \t bbr wscale:10,10 rto:256 bytes_sent:4 bytes_acked:4\n\
                  ESTAB 0 941200 [::ffff:100.64.0.1]:5201 [::ffff:100.64.0.2]:37272\n\
                  \t cubic cwnd:357 bytes_sent:76309600 busy:20000ms rwnd_limited:1200ms(6.0%) retrans:0/31 \
                  bytes_retrans:44888\n\
                  ESTAB 0 5000 100.64.0.1:5202 100.64.0.2:37280\n\
                  \t cubic cwnd:440 bytes_sent:66000000 busy:20000ms retrans:1/23\n";
        let v = parse_ss(ss);
        assert_eq!(v.len(), 2);
        assert_eq!(v[0], (5201, SenderView { bytes_sent: 76_309_600, rwnd_limited_pct: 6.0, retrans: 31 }));
        assert_eq!(v[1], (5202, SenderView { bytes_sent: 66_000_000, rwnd_limited_pct: 0.0, retrans: 23 }));
        assert!(parse_ss("").is_empty());
    }

    #[test]
    fn the_fairness_model_gives_the_shares_of_its_derivation() {
        // K from eq. (11) for the true BDP: s = ((theta - 1) / (r - 1))^(1/3).
        let bdp = 209.0;
        let a_over_k = rtac_a_over_k("bdp=209").unwrap();
        assert!((a_over_k - 0.38 * bdp * bdp * bdp).abs() < 1e-6 * a_over_k);
        let ratio = |r: f64| predicted_rtac_ratio(a_over_k, bdp, r).unwrap();
        let s = |ratio: f64| ratio / (1.0 + ratio);
        assert!((s(ratio(9.0)) - (0.38f64 / 8.0).cbrt()).abs() < 1e-9);
        assert!((ratio(4.46) - 0.919).abs() < 0.001, "{}", ratio(4.46));
        assert!(ratio(5.3) > 0.8 && ratio(5.4) < 0.8);
        // At r <= theta RTAC's window does not limit it.
        assert_eq!(predicted_rtac_ratio(a_over_k, bdp, 1.3), None);
        assert_eq!(predicted_rtac_ratio(a_over_k, bdp, 1.0), None);
        assert!(rtac_a_over_k("lambda=3").is_err());
    }

    #[test]
    fn the_default_queue_is_the_papers_lte_bloat() {
        // 50 Mbit/s, 25 ms each way: BDP 208.3 packets, (223/50 - 1) x BDP.
        assert_eq!(Link::paper_lte_queue(50_000_000, 25.0), 721);
        let l = ExperimentArgs::default().link();
        assert_eq!((l.rate_bit, l.delay_ms, l.queue_packets), (50_000_000, 25.0, 721));
    }

    #[test]
    fn medians_and_percentiles() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(percentile(&mut [5.0, 1.0, 4.0, 2.0, 3.0], 0.9), 5.0);
        assert!(median(&mut []).is_nan());
    }
}
