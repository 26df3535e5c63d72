//! User space's half of the BPF mode, without any BPF: turns the samples
//! the sock_ops program sends into controller steps (the same [`Stepper`]
//! as the socket driver) and tells what to write into the `clamps` map.

use super::abi::{Clamp, Sample, SAMPLE_ADOPTED, SAMPLE_CLOSED, SAMPLE_NEW};
use crate::config::AgentConfig;
use crate::error::AgentError;
use crate::group::{GroupView, Grouping, KernelRoutes, Resolve};
use crate::log::{LogSink, Row};
use crate::step::{KernelSample, Stepper};
use crate::StepReport;
use rtac_core::time::{Duration, Instant};
use rtac_core::DEFAULT_MSS;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;

/// The largest TCP_WINDOW_CLAMP the program can write (a u32 in the map).
const MAX_CLAMP: u64 = u32::MAX as u64;

/// The shortest time between two samples of a socket. Each sample crosses
/// into user space and back (the ring buffer, a step, a map update: about
/// 10 µs of CPU in all), so on sub-millisecond paths (veth, loopback, a
/// LAN) sampling at the socket driver's [`crate::step::MIN_STEP`] would
/// cost about 1 % of a CPU per socket. It changes nothing where there is a
/// queue to control: a standing queue of even 2 ms raises the RTT, and so
/// the step interval, above it.
pub const MIN_SAMPLE_INTERVAL: Duration = Duration::from_millis(2);

/// How long the samples of a path whose RTT is below
/// [`MIN_SAMPLE_INTERVAL`] (veth, loopback, a LAN) may wait before one
/// wakes user space: such a path is stepped less than once per RTT
/// already, and holds no queue that a late answer would let grow (the
/// self-tuning RTAC counts its RTT as 1 ms and follows the delivery rate).
/// Each wake-up costs about 50 µs of CPU on a 2-vCPU VM (mostly the
/// context switch): a busy veth socket woken every 5 ms cost about 1 % of
/// a CPU, every 20 ms a quarter of that. Its steps stay 2 ms apart (each
/// sample keeps its time), since the controllers count per RTT: only the
/// answer waits.
pub const SHORT_PATH_WAKE_GAP: Duration = Duration::from_millis(50);

/// What to do with the `clamps` map after a sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Action {
    Set(u64, Clamp),
    Remove(u64),
}

/// One controlled connection.
pub struct Flow {
    stepper: Stepper,
    copied_seq: u32,
    pub conn: u64,
    pub peer: Option<SocketAddr>,
    pub adopted: bool,
    pub mss: u32,
    pub last: Option<StepReport>,
    pub bytes: u64,
    /// The group whose budget it shares (`crate::group`); `None`: its own
    /// controller.
    pub group: Option<Arc<str>>,
    /// Uplink: the same controller kind on the sending side, fed with the
    /// bytes the peer acknowledged and the sender's RTT; its window bounds
    /// the congestion window.
    up: Option<Uplink>,
}

struct Uplink {
    stepper: Stepper,
    bytes_acked: u64,
}

/// The smallest congestion-window clamp the uplink sets, in packets (a
/// window below 4 segments stalls loss recovery).
pub const MIN_CWND_CLAMP: u32 = 4;

/// A connection joins the uplink control once its peer has acknowledged
/// this much: a bulk upload, not a request.
pub const UPLINK_MIN_BYTES: u64 = 256 * 1024;

/// Every connection the program reported, by socket cookie.
pub struct Engine {
    cfg: AgentConfig,
    log: Option<Arc<LogSink>>,
    flows: BTreeMap<u64, Flow>,
    next_conn: u64,
    /// Connections seen so far (open and closed).
    pub seen: u64,
    /// Of those, the ones open before the program was attached.
    pub adopted: u64,
    /// Whether sending sockets are bounded too (`--uplink`).
    uplink: bool,
    /// The most connections tracked at once; beyond it a new socket gets
    /// no answer, and the program gives it back to the kernel.
    capacity: usize,
    /// New sockets not tracked for that reason.
    pub over_capacity: u64,
    /// What could not be tracked or delivered, as [`super::Bpf::poll`]
    /// last read it (for the status table).
    pub counters: super::Counters,
    /// Connections by access link, one budget per link.
    grouping: Grouping,
    /// Connections that left their budget for their own controller.
    pub left_budget: u64,
}

fn mss_of(s: &Sample) -> u32 {
    if s.rcv_mss > 536 {
        s.rcv_mss
    } else {
        DEFAULT_MSS
    }
}

/// The handshake RTT as a first sample, rounded up to a whole millisecond:
/// with Linux's millisecond TCP timestamps the receiver's RTT samples are
/// whole milliseconds (see `driver.rs`).
fn handshake_rtt(s: &Sample) -> Option<Duration> {
    (s.min_rtt_us > 0 && s.min_rtt_us != u32::MAX)
        .then(|| Duration::from_micros((s.min_rtt_us as u64).div_ceil(1000) * 1000))
}

impl Engine {
    /// An engine whose connections are grouped by the kernel's routes in
    /// this process's network namespace (see [`Engine::with_resolver`]).
    pub fn new(cfg: AgentConfig, log: Option<Arc<LogSink>>) -> Engine {
        let grouping = Grouping::new(&cfg, Box::new(KernelRoutes::new(None)));
        Engine {
            grouping,
            left_budget: 0,
            cfg,
            log,
            flows: BTreeMap::new(),
            next_conn: 1,
            seen: 0,
            adopted: 0,
            uplink: false,
            capacity: usize::MAX,
            over_capacity: 0,
            counters: super::Counters::default(),
        }
    }

    /// Tracks at most `n` connections at once.
    pub fn with_capacity(mut self, n: usize) -> Engine {
        self.capacity = n;
        self
    }

    /// Looks routes up with `resolver`: [`KernelRoutes`] of the controlled
    /// cgroup, so that sockets of its other network namespaces are looked
    /// up in theirs.
    pub fn with_resolver(mut self, resolver: Box<dyn Resolve>) -> Engine {
        self.grouping = Grouping::new(&self.cfg, resolver);
        self
    }

    /// The groups that have connections now.
    pub fn groups(&self) -> impl Iterator<Item = GroupView<'_>> {
        self.grouping.groups()
    }

    /// Connections by group since the start.
    pub fn grouping(&self) -> &Grouping {
        &self.grouping
    }

    /// Connections tracked now.
    pub fn len(&self) -> usize {
        self.flows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.flows.is_empty()
    }

    /// Bounds sending sockets' congestion windows too.
    pub fn with_uplink(mut self) -> Engine {
        self.uplink = true;
        self
    }

    /// The uplink step: the controller on the sending side, its window as
    /// a congestion-window clamp in packets (0: none, before the sender has
    /// sent enough or while the controller leaves the window to the kernel,
    /// as the self-tuning RTAC's start-up does).
    fn step_uplink(&mut self, cookie: u64, now: Instant, s: &Sample) -> Result<(u32, Option<Duration>), AgentError> {
        let flow = self.flows.get_mut(&cookie).expect("known flow");
        if flow.up.is_none() {
            if s.bytes_acked < UPLINK_MIN_BYTES || s.mss_cache == 0 {
                return Ok((0, None));
            }
            let mut stepper = Stepper::new(self.cfg.controller(s.mss_cache)?);
            if let Some(rtt) = handshake_rtt(s) {
                stepper.seed_rtt(now, rtt);
            }
            flow.up = Some(Uplink { stepper, bytes_acked: s.bytes_acked });
        }
        let up = flow.up.as_mut().expect("set above");
        let bytes = s.bytes_acked.saturating_sub(up.bytes_acked);
        up.bytes_acked = s.bytes_acked;
        let srtt = match s.srtt_us8 >> 3 {
            0 => None,
            us => Some(Duration::from_micros(us as u64)),
        };
        let d = up.stepper.step(now, bytes, KernelSample { rcv_rtt: srtt, ..KernelSample::default() });
        // No window (the self-tuning RTAC's start-up): the sender's own.
        let cwnd_clamp = d.rwnd.map_or(0, |w| {
            (w.div_ceil(s.mss_cache.max(1) as u64)).clamp(MIN_CWND_CLAMP as u64, u32::MAX as u64) as u32
        });
        Ok((cwnd_clamp, Some(d.interval)))
    }

    pub fn flows(&self) -> impl Iterator<Item = (&u64, &Flow)> {
        self.flows.iter()
    }

    /// Handles one sample; returns the map update it calls for.
    pub fn on_sample(&mut self, s: &Sample) -> Result<Option<Action>, AgentError> {
        let now = Instant::from_nanos(s.t_ns);
        if s.flags & SAMPLE_CLOSED != 0 {
            return Ok(self.flows.remove(&s.cookie).map(|_| Action::Remove(s.cookie)));
        }
        if !self.flows.contains_key(&s.cookie) {
            if self.flows.len() >= self.capacity {
                self.over_capacity += (s.flags & SAMPLE_NEW != 0) as u64;
                return Ok(None);
            }
            let mss = mss_of(s);
            let joined = self.grouping.join(now, s.netns, s.peer().map(|p| p.ip()), mss)?;
            let mut stepper = Stepper::grouped(joined.controller, joined.fallback, mss);
            if let Some(rtt) = handshake_rtt(s) {
                stepper.seed_rtt(now, rtt);
            }
            stepper.start_at(KernelSample {
                rcv_rtt: None,
                data_segs_in: Some(s.data_segs_in),
                ooo_segs: Some(s.rcv_ooopack),
            });
            let flow = Flow {
                stepper,
                copied_seq: s.copied_seq,
                conn: self.next_conn,
                peer: s.peer(),
                adopted: s.flags & SAMPLE_ADOPTED != 0,
                mss,
                last: None,
                bytes: 0,
                group: joined.group,
                up: None,
            };
            self.next_conn += 1;
            self.seen += 1;
            self.adopted += flow.adopted as u64;
            self.flows.insert(s.cookie, flow);
        }
        let flow = self.flows.get_mut(&s.cookie).expect("inserted above");
        // Bytes the program read since the last sample: copied_seq moves
        // as data is copied to user space (RTAC Alg. 1 "on copying data").
        let bytes = s.copied_seq.wrapping_sub(flow.copied_seq) as u64;
        flow.copied_seq = s.copied_seq;
        flow.bytes += bytes;
        let rcv_rtt = match s.rcv_rtt_us8 >> 3 {
            0 => None,
            us => Some(Duration::from_micros(us as u64)),
        };
        let k = KernelSample { rcv_rtt, data_segs_in: Some(s.data_segs_in), ooo_segs: Some(s.rcv_ooopack) };
        let d = flow.stepper.step(now, bytes, k);
        if flow.group.is_some() && flow.stepper.left_budget().is_some() {
            flow.group = None;
            self.left_budget += 1;
        }
        let report = StepReport {
            t: now,
            rtt: d.state.rtt,
            rtt_min: d.state.rtt_min,
            window_bytes: d.state.window_bytes,
            rwnd: d.rwnd,
            kernel_rcv_rtt: rcv_rtt,
            read_bytes: bytes,
            reads: 0,
        };
        flow.last = Some(report);
        if let Some(log) = &self.log {
            // A log that cannot be written loses rows, not control.
            let _ = log.write(&Row {
                t: now,
                fd: -1,
                conn: flow.conn,
                peer: flow.peer.as_ref(),
                rtt: report.rtt,
                rtt_min: report.rtt_min,
                window_bytes: report.window_bytes,
                rwnd_bytes: report.rwnd,
                kernel_rcv_rtt: rcv_rtt,
                read_bytes: bytes,
                reads: 0,
                group: flow.group.as_deref(),
            });
        }
        let clamp = d.rwnd.map_or(0, |w| w.clamp(1, MAX_CLAMP) as u32);
        let mut interval = d.interval;
        let mut cwnd_clamp = 0;
        if self.uplink {
            let (c, up_interval) = self.step_uplink(s.cookie, now, s)?;
            cwnd_clamp = c;
            interval = up_interval.map_or(interval, |u| u.min(interval));
        }
        let interval = interval.max(MIN_SAMPLE_INTERVAL);
        let short_path = d.state.rtt.or(rcv_rtt).is_some_and(|rtt| rtt < MIN_SAMPLE_INTERVAL);
        let wake_gap_us = if short_path { SHORT_PATH_WAKE_GAP.as_micros() as u32 } else { 0 };
        Ok(Some(Action::Set(
            s.cookie,
            Clamp { clamp, cwnd_clamp, interval_ns: interval.as_nanos(), seq: s.seq, wake_gap_us },
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bpf::abi::SAMPLE_NEW;
    use rtac_core::controller::Controller;

    fn sample(cookie: u64, t_ms: u64, copied: u32, rtt_ms: u32, segs: u32, flags: u32) -> Sample {
        Sample {
            cookie,
            t_ns: t_ms * 1_000_000,
            copied_seq: copied,
            rcv_rtt_us8: rtt_ms * 1000 * 8,
            data_segs_in: segs,
            rcv_mss: 1448,
            flags,
            min_rtt_us: 50_000,
            ..Sample::default()
        }
    }

    #[test]
    fn beyond_its_capacity_a_socket_gets_no_answer_and_is_counted_and_a_given_up_one_is_dropped() {
        let cfg = AgentConfig::new::<&str>("autotuning", &[]).unwrap();
        let mut e = Engine::new(cfg, None).with_capacity(2);
        for cookie in 1..=2 {
            assert!(matches!(e.on_sample(&sample(cookie, 0, 0, 0, 0, SAMPLE_NEW)), Ok(Some(Action::Set(..)))));
        }
        // The third: no answer (the program gives it back to the kernel
        // after the stale time), counted once, not in the table.
        assert_eq!(e.on_sample(&sample(3, 0, 0, 0, 0, SAMPLE_NEW)).unwrap(), None);
        assert_eq!(e.on_sample(&sample(3, 10, 0, 0, 0, 0)).unwrap(), None);
        assert_eq!((e.len(), e.over_capacity), (2, 1));
        // A socket the program gave up on leaves the table and the map,
        // which makes room.
        let end = sample(1, 20, 0, 0, 0, SAMPLE_CLOSED | crate::bpf::abi::SAMPLE_GIVEN_UP);
        assert_eq!(e.on_sample(&end).unwrap(), Some(Action::Remove(1)));
        assert!(matches!(e.on_sample(&sample(3, 30, 0, 0, 0, 0)), Ok(Some(Action::Set(3, _)))));
        assert_eq!(e.len(), 2);
    }

    #[test]
    fn samples_drive_the_same_controller_as_the_socket_driver() {
        let cfg = AgentConfig::new("rtac", &["bdp=100"]).unwrap();
        let mut e = Engine::new(cfg.clone(), None);
        // The reference: the shared stepper fed by hand the same way.
        let mut reference = Stepper::new(cfg.controller(1448).unwrap());
        reference.seed_rtt(Instant::from_nanos(0), Duration::from_millis(50));
        reference.start_at(KernelSample { data_segs_in: Some(0), ooo_segs: Some(0), ..KernelSample::default() });
        let mut copied = 0u32;
        for i in 0..200u64 {
            let segs = (i * 30) as u32;
            let s = Sample {
                seq: i as u32 + 1,
                ..sample(7, i * 60, copied, 60 + (i % 7) as u32, segs, if i == 0 { SAMPLE_NEW } else { 0 })
            };
            let a = e.on_sample(&s).unwrap().unwrap();
            let step_bytes = if i == 0 { 0 } else { 30 * 1448 };
            let want = reference.step(
                Instant::from_nanos(s.t_ns),
                step_bytes,
                KernelSample {
                    rcv_rtt: Some(Duration::from_micros((s.rcv_rtt_us8 >> 3) as u64)),
                    data_segs_in: Some(segs),
                    ooo_segs: Some(0),
                },
            );
            match a {
                Action::Set(7, c) => {
                    assert_eq!(Some(c.clamp as u64), want.rwnd, "step {i}");
                    assert_eq!(c.interval_ns, want.interval.as_nanos());
                    // The program takes the answer by the sample's number.
                    assert_eq!(c.seq, i as u32 + 1);
                }
                other => panic!("{other:?}"),
            }
            copied = copied.wrapping_add(30 * 1448);
        }
        let flow = e.flows().next().unwrap().1;
        assert_eq!(flow.bytes, 199 * 30 * 1448);
        assert!(flow.stepper.controller().rwnd().is_some());
        let closed = e.on_sample(&sample(7, 20_000, copied, 60, 0, SAMPLE_CLOSED)).unwrap();
        assert_eq!(closed, Some(Action::Remove(7)));
        assert_eq!(e.flows().count(), 0);
        assert_eq!(e.seen, 1);
    }

    #[test]
    fn the_uplink_bounds_a_bulk_senders_window_from_its_rtt() {
        let cfg = AgentConfig::new("rtac", &["bdp=80"]).unwrap();
        let mut e = Engine::new(cfg.clone(), None).with_uplink();
        let mut without = Engine::new(cfg, None);
        let mut acked = 0u64;
        let mut last = None;
        for i in 0..300u64 {
            // A sender whose RTT has grown to 4x its minimum: a bloated uplink.
            let mut s = sample(3, i * 50, 0, 0, 0, if i == 0 { SAMPLE_NEW } else { 0 });
            s.bytes_acked = acked;
            s.srtt_us8 = 200_000 * 8;
            s.mss_cache = 1448;
            acked += 100 * 1448;
            last = e.on_sample(&s).unwrap();
            match without.on_sample(&s).unwrap() {
                Some(Action::Set(_, c)) => assert_eq!(c.cwnd_clamp, 0, "no uplink control without --uplink"),
                other => panic!("{other:?}"),
            }
        }
        match last {
            Some(Action::Set(3, c)) => {
                // The sender had 400 packets in flight per 200 ms RTT; RTAC
                // bounds it near the path's BDP (80 packets), not there.
                assert!(c.cwnd_clamp >= MIN_CWND_CLAMP && c.cwnd_clamp as f64 <= 1.5 * 80.0, "{c:?}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_uplink_leaves_the_sender_its_own_window_in_the_self_tuning_start_up() {
        let clamps = |params: &[&str]| {
            let mut e = Engine::new(AgentConfig::new("rtac", params).unwrap(), None).with_uplink();
            let mut out = vec![];
            for i in 0..10u64 {
                // A sender on a 50 ms path with no queue yet.
                let mut s = sample(3, i * 50, 0, 0, 0, if i == 0 { SAMPLE_NEW } else { 0 });
                (s.bytes_acked, s.srtt_us8, s.mss_cache) = (UPLINK_MIN_BYTES + i * 100 * 1448, 50_000 * 8, 1448);
                match e.on_sample(&s).unwrap() {
                    Some(Action::Set(_, c)) => out.push(c.cwnd_clamp),
                    other => panic!("{other:?}"),
                }
            }
            out
        };
        assert!(clamps(&[]).iter().all(|&c| c == 0), "{:?}", clamps(&[]));
        assert!(clamps(&["bdp=80"])[1..].iter().all(|&c| c >= MIN_CWND_CLAMP), "{:?}", clamps(&["bdp=80"]));
    }

    /// Every peer through one interface, 10.0.0.0/8 through another.
    struct TwoLinks;
    impl crate::group::Resolve for TwoLinks {
        fn resolve(
            &mut self,
            netns: u32,
            peer: std::net::IpAddr,
        ) -> Result<Option<(u32, String)>, crate::route::RouteError> {
            match peer {
                std::net::IpAddr::V4(a) if a.octets()[0] == 10 => Ok(Some((3, format!("veth{netns}")))),
                _ => Ok(Some((2, "eth0".into()))),
            }
        }
    }

    fn sample_to(cookie: u64, t_ms: u64, peer: [u8; 4], netns: u32, flags: u32) -> Sample {
        let mut s = sample(cookie, t_ms, 0, 50, 0, flags);
        (s.family, s.dport, s.netns) = (libc::AF_INET as u16, 5201u16.to_be(), netns);
        s.daddr[..4].copy_from_slice(&peer);
        s
    }

    #[test]
    fn connections_through_one_interface_share_a_budget_shown_per_group() {
        let cfg = AgentConfig::new("rtac", &["bdp=80"]).unwrap();
        let mut e = Engine::new(cfg, None).with_resolver(Box::new(TwoLinks));
        for (cookie, peer) in [(1, [10, 0, 0, 1]), (2, [10, 0, 0, 1]), (3, [192, 0, 2, 1])] {
            e.on_sample(&sample_to(cookie, 0, peer, 0, SAMPLE_NEW)).unwrap();
        }
        // In another network namespace the same interface is another link.
        e.on_sample(&sample_to(4, 0, [10, 0, 0, 1], 77, SAMPLE_NEW)).unwrap();
        let mut groups: Vec<(String, usize)> = e.groups().map(|g| (g.label.to_string(), g.state.connections)).collect();
        groups.sort();
        assert_eq!(groups, [("eth0".into(), 1), ("veth0".into(), 2), ("veth77@ns77".into(), 1)]);
        let labels: Vec<_> = e.flows().map(|(_, f)| f.group.as_deref().unwrap_or("").to_string()).collect();
        assert_eq!(labels, ["veth0", "veth0", "eth0", "veth77@ns77"]);
        // Both members of veth0 get a window from the budget.
        for cookie in [1, 2] {
            let a = e.on_sample(&sample_to(cookie, 60, [0; 4], 0, 0)).unwrap();
            assert!(matches!(a, Some(Action::Set(_, c)) if c.clamp > 0), "{a:?}");
        }
        e.on_sample(&sample(2, 100, 0, 0, 0, SAMPLE_CLOSED)).unwrap();
        let veth = e.groups().find(|g| g.label == "veth0").unwrap().state.connections;
        assert_eq!(veth, 1);
        // Per connection: no group, no budget.
        let cfg = AgentConfig::new("rtac", &["budget=connection"]).unwrap();
        let mut per = Engine::new(cfg, None).with_resolver(Box::new(TwoLinks));
        per.on_sample(&sample_to(1, 0, [10, 0, 0, 1], 0, SAMPLE_NEW)).unwrap();
        assert_eq!((per.groups().count(), per.flows().next().unwrap().1.group.is_none()), (0, true));
    }

    #[test]
    fn copied_seq_wraps_and_none_clears_the_clamp() {
        let cfg = AgentConfig::new("none", &[] as &[&str]).unwrap();
        let mut e = Engine::new(cfg, None);
        e.on_sample(&sample(1, 0, u32::MAX - 99, 10, 0, SAMPLE_NEW)).unwrap();
        let a = e.on_sample(&sample(1, 10, 100, 10, 5, 0)).unwrap();
        assert!(matches!(a, Some(Action::Set(1, Clamp { clamp: 0, .. }))), "{a:?}");
        assert_eq!(e.flows().next().unwrap().1.bytes, 200);
    }

    #[test]
    fn a_sub_millisecond_path_is_sampled_at_the_floor_and_woken_every_20_ms_a_slow_one_per_rtt() {
        let cfg = AgentConfig::new("rtac", &["bdp=100"]).unwrap();
        let mut e = Engine::new(cfg, None);
        let answer = |e: &mut Engine, cookie: u64, rtt_us: u32| {
            let mut last = None;
            for i in 0..50u64 {
                let s = Sample {
                    cookie,
                    t_ns: i * 2_000_000,
                    copied_seq: (i * 10 * 1448) as u32,
                    rcv_rtt_us8: rtt_us * 8,
                    data_segs_in: (i * 10) as u32,
                    rcv_mss: 1448,
                    min_rtt_us: rtt_us,
                    flags: if i == 0 { SAMPLE_NEW } else { 0 },
                    seq: i as u32 + 1,
                    ..Sample::default()
                };
                last = e.on_sample(&s).unwrap();
            }
            match last {
                Some(Action::Set(_, c)) => (Duration::from_nanos(c.interval_ns), c.wake_gap_us),
                other => panic!("{other:?}"),
            }
        };
        // veth: a 30 µs RTT; the socket driver would step every 500 µs.
        let veth = answer(&mut e, 1, 30);
        assert_eq!(veth, (MIN_SAMPLE_INTERVAL, SHORT_PATH_WAKE_GAP.as_micros() as u32));
        // A 3 ms path (a LAN with a queue): once per RTT, woken at once.
        let (lan, wake) = answer(&mut e, 3, 3_000);
        assert!(lan >= Duration::from_micros(2_500) && lan <= Duration::from_micros(3_500), "{lan:?}");
        assert_eq!(wake, 0);
        // A 40 ms path is sampled once per RTT, as before.
        let (slow, wake) = answer(&mut e, 2, 40_000);
        assert!(slow >= Duration::from_millis(35) && slow <= Duration::from_millis(45), "{slow:?}");
        assert_eq!(wake, 0);
    }
}
