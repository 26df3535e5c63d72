//! One direction of the emulated path, as pure code: random loss, a queue
//! (shared or per flow), a link server (fixed rate, Mahimahi trace or
//! unlimited) and a propagation delay line. Time is a parameter, so the
//! forwarding loop drives it with the monotonic clock and the tests drive
//! it with made-up instants.
//!
//! The order of events follows the simulator (`rtac-sim`'s `Link`): a
//! packet is dequeued when the link becomes free (or on arrival at an idle
//! link), the link server says when its last byte leaves, and it reaches the
//! far end `delay` later.

use crate::frame::Frame;
use crate::hist::Hist;
use crate::log::{DropCause, LogWriter};
use crate::queue::{Queue, QueueMode};
use rtac_core::rng::Rng;
use rtac_core::{Bandwidth, Duration, Instant};
use rtac_netmodel::link::trace::OPPORTUNITY_BYTES;
use rtac_netmodel::{FixedRate, LinkServer, MahimahiTrace, Packet, Qdisc, QueueSpec, TraceLink};
use std::collections::{HashMap, VecDeque};

/// The service model of a link, as configured.
#[derive(Clone, Debug)]
pub enum LinkSpec {
    Fixed(Bandwidth),
    Trace { path: String, trace: MahimahiTrace },
    Unlimited,
}

impl std::fmt::Display for LinkSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkSpec::Fixed(r) => write!(f, "{r}"),
            LinkSpec::Trace { path, trace } => write!(
                f,
                "trace {path} ({} opportunities per {} ms, average {:.3} Mbit/s)",
                trace.len(),
                trace.period_ms(),
                trace.average_bps() / 1e6
            ),
            LinkSpec::Unlimited => f.write_str("unlimited"),
        }
    }
}

/// Everything that defines one direction.
#[derive(Clone, Debug)]
pub struct DirectionSpec {
    pub link: LinkSpec,
    pub delay: Duration,
    /// Probability that an arriving packet is lost, in [0, 1].
    pub loss: f64,
    pub queue: QueueSpec,
    pub mode: QueueMode,
}

enum Link {
    Fixed(FixedRate),
    Trace(TraceLink),
    Unlimited,
}

impl Link {
    fn transmit(&mut self, start: Instant, bytes: u32) -> Instant {
        match self {
            Link::Fixed(l) => l.transmit(start, bytes),
            Link::Trace(l) => l.transmit(start, bytes),
            Link::Unlimited => start,
        }
    }
}

/// Counters of one direction.
#[derive(Clone, Debug, Default)]
pub struct DirStats {
    pub arrivals: u64,
    pub arrival_bytes: u64,
    pub departures: u64,
    pub departure_bytes: u64,
    pub drops_queue: u64,
    pub drops_aqm: u64,
    pub drops_loss: u64,
    /// Frames handed back to the kernel.
    pub delivered: u64,
    /// Frames the kernel refused on the way out.
    pub tx_failed: u64,
    /// Frames larger than the emulator's buffers (dropped).
    pub oversize: u64,
    /// Frames the kernel dropped before the emulator read them (its socket
    /// buffer was full).
    pub rx_dropped: u64,
    /// Departure - arrival (queueing + transmission), ns.
    pub delay_ns: Hist,
    /// How late each frame was handed to the kernel after its scheduled
    /// delivery instant (departure + propagation delay), ns.
    pub lateness_ns: Hist,
    /// Delivery opportunities (capacity) between start and the last event,
    /// in bytes; 0 for an unlimited link.
    pub capacity_bytes: u64,
    pub flows: u64,
}

/// One direction's state.
pub struct Engine {
    link: Link,
    queue: Queue<Frame>,
    delay: Duration,
    loss: f64,
    rng: Rng,
    origin: Instant,
    /// When the packet in service finishes (the link is free from then on).
    link_free: Instant,
    /// The latest instant the engine was driven to: time never goes back.
    clock: Instant,
    /// Packets propagating, with their delivery instants (non-decreasing).
    wire: VecDeque<(Instant, Frame)>,
    drops: Vec<Frame>,
    /// Free frame buffers.
    pub pool: Vec<Box<[u8]>>,
    pub stats: DirStats,
    log: Option<LogWriter>,
    flow_ids: HashMap<u64, u32>,
    /// Capacity accounting: the next opportunity to count (fixed-rate links
    /// use a grid of 1500-byte opportunities at the link rate).
    opp_next: u64,
    opp_until: Instant,
    fixed_rate: Option<Bandwidth>,
}

impl Engine {
    /// A direction whose link starts at `origin` (a trace's time 0).
    pub fn new(spec: &DirectionSpec, origin: Instant, seed: u64, log: Option<LogWriter>) -> Self {
        let link = match &spec.link {
            LinkSpec::Fixed(r) => Link::Fixed(FixedRate::new(*r)),
            LinkSpec::Trace { trace, .. } => Link::Trace(TraceLink::new(trace.clone(), origin)),
            LinkSpec::Unlimited => Link::Unlimited,
        };
        let mut rng = Rng::new(seed);
        let qseed = rng.next_u64();
        Engine {
            link,
            queue: Queue::new(&spec.queue, spec.mode, qseed),
            delay: spec.delay,
            loss: spec.loss,
            rng,
            origin,
            link_free: origin,
            clock: origin,
            wire: VecDeque::new(),
            drops: Vec::new(),
            pool: Vec::new(),
            stats: DirStats::default(),
            log,
            flow_ids: HashMap::new(),
            opp_next: 0,
            opp_until: origin,
            fixed_rate: match spec.link {
                LinkSpec::Fixed(r) => Some(r),
                _ => None,
            },
        }
    }

    /// A fresh or recycled frame buffer.
    pub fn buffer(&mut self) -> Box<[u8]> {
        self.pool.pop().unwrap_or_else(|| vec![0u8; crate::frame::BUF_LEN].into_boxed_slice())
    }

    /// The small number of `f`'s flow, announcing new flows in the log.
    pub fn flow_id(&mut self, key: u64, describe: impl FnOnce() -> String) -> u32 {
        let n = self.flow_ids.len() as u32 + 1;
        let id = *self.flow_ids.entry(key).or_insert(n);
        if id == n {
            self.stats.flows += 1;
            if let Some(log) = &mut self.log {
                log.comment(&format!("flow {id} {}", describe()));
            }
        }
        id
    }

    /// The latest instant the engine has been driven to.
    pub fn clock(&self) -> Instant {
        self.clock
    }

    /// A packet arrives at `now` (after `advance(now)`). An instant before
    /// the engine's clock counts as the clock.
    pub fn arrive(&mut self, mut f: Frame, now: Instant) {
        let now = now.max(self.clock);
        self.clock = now;
        f.arrival = now;
        let size = f.size();
        self.stats.arrivals += 1;
        self.stats.arrival_bytes += size as u64;
        if let Some(log) = &mut self.log {
            log.arrival(now, size, f.flow_id, f.tcp());
        }
        if self.loss > 0.0 && self.rng.next_f64() < self.loss {
            self.stats.drops_loss += 1;
            self.dropped(f, now, DropCause::Loss);
            return;
        }
        if self.queue.is_empty() && self.link_free < now {
            // The link was idle: service starts now.
            self.link_free = now;
        }
        self.queue.enqueue(f, now, &mut self.drops);
        self.flush_drops(now, DropCause::Queue);
        self.advance(now);
    }

    fn dropped(&mut self, f: Frame, now: Instant, cause: DropCause) {
        if let Some(log) = &mut self.log {
            log.drop(now, f.size(), f.flow_id, cause, f.tcp());
        }
        self.pool.push(f.buf);
    }

    fn flush_drops(&mut self, now: Instant, cause: DropCause) {
        while let Some(f) = self.drops.pop() {
            match cause {
                DropCause::Aqm => self.stats.drops_aqm += 1,
                _ => self.stats.drops_queue += 1,
            }
            self.dropped(f, now, cause);
        }
    }

    /// Serves the link up to `now`: every packet whose service can start by
    /// `now` is dequeued (at the instant the link became free) and put on
    /// the wire.
    pub fn advance(&mut self, now: Instant) {
        let now = now.max(self.clock);
        self.clock = now;
        while self.link_free <= now && !self.queue.is_empty() {
            let start = self.link_free;
            let d = self.queue.dequeue(start, &mut self.drops);
            self.flush_drops(start, DropCause::Aqm);
            let Some(d) = d else { break };
            let f = d.packet;
            let size = f.size();
            let finish = self.link.transmit(start, size);
            self.link_free = finish;
            let delay = finish - f.arrival;
            self.stats.departures += 1;
            self.stats.departure_bytes += size as u64;
            self.stats.delay_ns.record(delay.as_nanos());
            if let Some(log) = &mut self.log {
                log.departure(finish, size, delay, f.flow_id, f.tcp());
            }
            self.wire.push_back((finish + self.delay, f));
        }
        self.count_opportunities(now);
    }

    /// Counts (and logs) the delivery opportunities before `now`.
    fn count_opportunities(&mut self, now: Instant) {
        if now <= self.opp_until {
            return;
        }
        let (from, to) = (self.opp_until, now);
        self.opp_until = now;
        match (&self.link, self.fixed_rate) {
            (Link::Trace(l), _) => {
                for t in l.opportunities(from, to) {
                    self.stats.capacity_bytes += OPPORTUNITY_BYTES as u64;
                    if let Some(log) = &mut self.log {
                        log.opportunity(t, OPPORTUNITY_BYTES);
                    }
                }
            }
            (Link::Fixed(_), Some(rate)) => loop {
                // Opportunity k at origin + ceil(k * 1500 B / rate).
                let bits = self.opp_next as u128 * OPPORTUNITY_BYTES as u128 * 8 * 1_000_000_000;
                let t = self.origin + Duration::from_nanos(bits.div_ceil(rate.bps() as u128) as u64);
                if t >= to {
                    break;
                }
                self.opp_next += 1;
                self.stats.capacity_bytes += OPPORTUNITY_BYTES as u64;
                if let Some(log) = &mut self.log {
                    log.opportunity(t, OPPORTUNITY_BYTES);
                }
            },
            _ => {}
        }
    }

    /// The next packet due at the far end by `now`, with its due instant.
    pub fn pop_due(&mut self, now: Instant) -> Option<(Instant, Frame)> {
        if self.wire.front().is_some_and(|(t, _)| *t <= now) {
            self.wire.pop_front()
        } else {
            None
        }
    }

    /// When something next has to happen: a delivery, or the link freeing
    /// up with packets waiting.
    pub fn next_deadline(&self) -> Option<Instant> {
        let wire = self.wire.front().map(|(t, _)| *t);
        let link = (!self.queue.is_empty()).then_some(self.link_free);
        match (wire, link) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Packets queued and on the wire.
    pub fn in_flight(&self) -> (usize, usize) {
        (self.queue.len_packets(), self.wire.len())
    }

    /// Closes the log and returns the counters.
    pub fn finish(mut self, now: Instant) -> (DirStats, std::io::Result<()>) {
        self.count_opportunities(now);
        let r = match self.log.take() {
            Some(l) => l.finish(),
            None => Ok(()),
        };
        (self.stats, r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtac_netmodel::parse_mahimahi;
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    fn frame(e: &mut Engine, ip_bytes: u32, flow: u64, now: Instant) -> Frame {
        let buf = e.buffer();
        let fid = e.flow_id(flow, || format!("test {flow}"));
        Frame { buf, len: ip_bytes + 24, l3: 24, flow, flow_id: fid, arrival: now }
    }

    fn spec(link: &str, delay_ms: u64, queue: &str) -> DirectionSpec {
        let link = if let Ok(r) = rtac_core::units::parse_bandwidth(link) {
            LinkSpec::Fixed(r)
        } else {
            LinkSpec::Trace { path: "t".into(), trace: parse_mahimahi(link).unwrap() }
        };
        DirectionSpec {
            link,
            delay: Duration::from_millis(delay_ms),
            loss: 0.0,
            queue: QueueSpec::parse(queue).unwrap(),
            mode: QueueMode::Shared,
        }
    }

    fn us(x: u64) -> Instant {
        Instant::from_micros(x)
    }

    /// Drives the engine like the forwarding loop would, with arrivals at
    /// the given instants; returns (due instant, flow) of every delivery.
    fn run(e: &mut Engine, arrivals: &[(Instant, u32, u64)], until: Instant) -> Vec<(Instant, u64)> {
        let mut out = Vec::new();
        let mut i = 0;
        loop {
            let next_arrival = arrivals.get(i).map(|a| a.0);
            let now = match (next_arrival, e.next_deadline()) {
                (Some(a), Some(d)) => a.min(d),
                (a, d) => match a.or(d) {
                    Some(t) => t,
                    None => break,
                },
            };
            if now > until {
                break;
            }
            e.advance(now);
            while i < arrivals.len() && arrivals[i].0 == now {
                let (_, size, flow) = arrivals[i];
                let f = frame(e, size, flow, now);
                e.arrive(f, now);
                i += 1;
            }
            while let Some((t, f)) = e.pop_due(now) {
                out.push((t, f.flow));
                e.pool.push(f.buf);
            }
        }
        out
    }

    #[test]
    fn a_burst_leaves_at_the_link_rate_and_arrives_one_delay_later() {
        // 50 Mbit/s: 1500 bytes take 240 us; 10 ms of propagation.
        let mut e = Engine::new(&spec("50mbit", 10, "droptail:packets=100"), Instant::ZERO, 1, None);
        let arrivals: Vec<_> = (0..5).map(|_| (us(1000), 1500, 1)).collect();
        let out = run(&mut e, &arrivals, Instant::from_millis(100));
        let due: Vec<u64> = out.iter().map(|(t, _)| t.as_micros()).collect();
        assert_eq!(due, vec![11_240, 11_480, 11_720, 11_960, 12_200]);
        assert_eq!(e.stats.departures, 5);
        // Delays: 240, 480, ... us of queueing plus transmission.
        assert_eq!(e.stats.delay_ns.max(), 1_200_000);
    }

    #[test]
    fn an_idle_link_starts_service_on_arrival() {
        let mut e = Engine::new(&spec("50mbit", 0, "droptail:packets=100"), Instant::ZERO, 1, None);
        let out = run(&mut e, &[(us(100), 1500, 1), (us(5000), 1500, 1)], Instant::from_millis(100));
        assert_eq!(out.iter().map(|(t, _)| t.as_micros()).collect::<Vec<_>>(), vec![340, 5240]);
    }

    #[test]
    fn droptail_overflow_is_dropped_and_counted() {
        let mut e = Engine::new(&spec("12mbit", 0, "droptail:packets=3"), Instant::ZERO, 1, None);
        let arrivals: Vec<_> = (0..10).map(|_| (us(0), 1500, 1)).collect();
        let out = run(&mut e, &arrivals, Instant::from_millis(100));
        // One in service (dequeued on arrival at the idle link), three queued.
        assert_eq!(out.len(), 4);
        assert_eq!(e.stats.drops_queue, 6);
        // Buffers are recycled: five were ever in use at once.
        assert_eq!(e.pool.len(), 5);
    }

    #[test]
    fn a_trace_link_delivers_at_its_opportunities() {
        // One opportunity every 2 ms, repeating.
        let mut e = Engine::new(&spec("2\n", 5, "droptail:packets=100"), Instant::ZERO, 1, None);
        let arrivals: Vec<_> = (0..3).map(|_| (us(500), 1500, 1)).collect();
        let out = run(&mut e, &arrivals, Instant::from_millis(100));
        let due: Vec<u64> = out.iter().map(|(t, _)| t.as_micros()).collect();
        assert_eq!(due, vec![7_000, 9_000, 11_000]);
        e.advance(Instant::from_millis(20));
        // Opportunities at 2, 4, ..., 18 ms counted: 9 x 1500 bytes.
        assert_eq!(e.stats.capacity_bytes, 9 * 1500);
    }

    #[test]
    fn loss_drops_about_the_configured_fraction() {
        let mut s = spec("1gbit", 0, "droptail:packets=100000");
        s.loss = 0.1;
        let mut e = Engine::new(&s, Instant::ZERO, 7, None);
        let arrivals: Vec<_> = (0..20_000).map(|i| (us(i * 20), 1500, 1)).collect();
        let out = run(&mut e, &arrivals, Instant::from_millis(1000));
        let lost = e.stats.drops_loss as f64 / 20_000.0;
        assert!((lost - 0.1).abs() < 0.01, "{lost}");
        assert_eq!(out.len() as u64 + e.stats.drops_loss, 20_000);
    }

    #[test]
    fn per_flow_mode_shares_the_link_round_robin() {
        let mut s = spec("12mbit", 0, "droptail:packets=100");
        s.mode = QueueMode::PerFlow;
        let mut e = Engine::new(&s, Instant::ZERO, 1, None);
        let mut arrivals: Vec<_> = (0..4).map(|_| (us(0), 1500, 1)).collect();
        arrivals.extend((0..4).map(|_| (us(0), 1500, 2)));
        let out = run(&mut e, &arrivals, Instant::from_millis(100));
        let flows: Vec<u64> = out.iter().map(|(_, f)| *f).collect();
        assert_eq!(flows, vec![1, 1, 2, 1, 2, 1, 2, 2]);
    }

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_log_has_arrivals_departures_drops_and_opportunities() {
        let buf = Shared::default();
        let log = LogWriter::new(Box::new(buf.clone()), Instant::ZERO);
        let mut e = Engine::new(&spec("12mbit", 0, "droptail:packets=1"), Instant::ZERO, 1, Some(log));
        let arrivals: Vec<_> = (0..3).map(|_| (us(0), 1500, 1)).collect();
        run(&mut e, &arrivals, Instant::from_millis(10));
        e.advance(Instant::from_millis(3));
        let (stats, r) = e.finish(Instant::from_millis(3));
        r.unwrap();
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let log = crate::log::read_log(text.as_bytes()).unwrap();
        assert_eq!(log.flows, vec![(1, "test 1".to_string())]);
        let kinds: String = log
            .events
            .iter()
            .map(|e| match e {
                crate::log::Event::Arrival { .. } => '+',
                crate::log::Event::Departure { .. } => '-',
                crate::log::Event::Drop { .. } => 'd',
                crate::log::Event::Opportunity { .. } => '#',
            })
            .collect();
        assert_eq!(kinds.matches('+').count(), 3);
        assert_eq!(kinds.matches('-').count(), 2);
        assert_eq!(kinds.matches('d').count(), 1);
        // 12 Mbit/s: one 1500-byte opportunity per ms, at 0, 1, 2 ms.
        assert_eq!(kinds.matches('#').count(), 3);
        assert_eq!(stats.capacity_bytes, 4500);
        assert!(text.contains("1.000 - 1500 1.000 1\n"), "{text}");
    }
}
