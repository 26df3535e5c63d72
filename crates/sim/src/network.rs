//! A link in the data direction: queues, a serialiser, optionally a
//! wireless channel's delay variation (`rtac_netmodel::Channel`, one per
//! station) and a propagation delay. Packets on the wire wait sorted by
//! arrival time. Each station's packets arrive in the order they left
//! (the delay is constant and a channel keeps order), so without a channel,
//! or with one station, the wire is a FIFO; the stations of a per-flow link
//! with channels overtake each other.
//!
//! A shared link has one queue (a router, a Wi-Fi AP). A per-flow link has
//! a queue and a channel per UE (by default each flow is its own UE),
//! served one packet at a time by a scheduler over one air interface (an LTE
//! or mmWave base station). Round robin shares air time equally among
//! backlogged UEs, as a MAC scheduler handing out time slots does, however
//! fast each UE's channel is; proportional fair favours the UE whose
//! channel is best relative to the rate it has been served lately.

use crate::metrics::Histogram;
use crate::packet::Packet;
use crate::scenario::{LinkSpec, Scheduler, Service};
use rtac_core::rng::Rng;
use rtac_core::{Bandwidth, Duration, Instant};
use rtac_netmodel::{AnyQdisc, Channel, Dequeued, FixedRate, LinkServer, ProfileLink, Qdisc, RateProfile, TraceLink};
use std::collections::VecDeque;

/// How one station's packets are serialised.
#[derive(Debug)]
pub enum Server {
    Fixed(FixedRate),
    Trace(TraceLink),
    Profile(ProfileLink),
}

impl Server {
    #[inline]
    fn transmit(&mut self, start: Instant, bytes: u32) -> Instant {
        match self {
            Server::Fixed(s) => s.transmit(start, bytes),
            Server::Trace(s) => s.transmit(start, bytes),
            Server::Profile(s) => s.transmit(start, bytes),
        }
    }

    /// The capacity at `now` (a trace's average).
    fn rate_at(&self, now: Instant) -> Bandwidth {
        match self {
            Server::Fixed(s) => s.rate(),
            Server::Trace(s) => s.average_rate(),
            Server::Profile(s) => s.rate_at(now),
        }
    }
}

/// A queue and the channel that serves it.
#[derive(Debug)]
struct Station {
    queue: AnyQdisc<Packet>,
    server: Server,
    /// The wireless channel's delay after serialisation, if any.
    channel: Option<Channel>,
    /// Round robin: air time used, seconds (start-time fair queueing on air
    /// time: the backlogged station with the least goes next).
    airtime: f64,
    /// Proportional fair: the rate this station was served at, averaged
    /// over `PF_TAU`, as of `served_at`.
    served_avg: f64,
    served_at: Instant,
}

impl Station {
    fn new(queue: AnyQdisc<Packet>, server: Server, channel: Option<Channel>) -> Self {
        Station { queue, server, channel, airtime: 0.0, served_avg: 0.0, served_at: Instant::ZERO }
    }

    /// The served-rate average decayed to `now`, bits per second.
    fn served_avg_at(&self, now: Instant) -> f64 {
        self.served_avg * (-(now - self.served_at).as_secs_f64() / PF_TAU).exp()
    }
}

#[derive(Debug)]
pub struct Link {
    stations: Vec<Station>,
    /// Per-flow links: the station of each flow id (`u32::MAX`: none).
    station_of: Vec<u32>,
    scheduler: Option<Scheduler>,
    /// Round robin: the air time of the station served last, which a
    /// station starting a new backlog is brought up to.
    airtime_clock: f64,
    pub delay: Duration,
    pub busy: bool,
    /// When the packet being serialised is done, and whether a LinkFree
    /// event is pending for it (only while packets wait).
    pub free_at: Instant,
    pub free_pending: bool,
    loss: f64,
    rng: Rng,
    /// Packets propagating, with their arrival time at the far end, sorted
    /// by it (equal times in departure order).
    pub wire: VecDeque<(Instant, Packet)>,
    pub stats: LinkStats,
    /// Whether a report shows this link. Private access and egress links
    /// are not shown and keep no departure statistics.
    reported: bool,
}

#[derive(Debug, Default)]
pub struct LinkStats {
    pub drops: u64,
    pub departures: u64,
    pub busy: Duration,
    /// Queueing delay of departed packets, microseconds.
    pub sojourn_us: Histogram,
}

/// What starting the next transmission produced, for the caller to schedule.
pub struct Started {
    /// When the link is free again.
    pub free_at: Instant,
    /// Set when the packet became the wire's head: when it arrives.
    pub arrive_at: Option<Instant>,
}

/// Proportional fair's averaging time constant (100 TTIs of 1 ms).
const PF_TAU: f64 = 0.1;

impl Link {
    /// `users` are the flows crossing this link with their UE: flows of one
    /// UE share its queue and channel on a per-flow link. `channels[f]` is
    /// flow f's channel, if it has one.
    pub fn new(spec: &LinkSpec, seed: u64, users: &[(u32, u64)], channels: &[Option<&RateProfile>]) -> Self {
        let mut rng = Rng::new(seed);
        // Each station's channel from its own seed, apart from `rng`'s
        // stream so that adding a channel changes nothing else.
        let mut channel_seeds = Rng::new(seed ^ 0xC4A7_7E11_5EED);
        let mut channel = || spec.channel.as_ref().map(|c| Channel::new(c, channel_seeds.next_u64()));
        let server = |channel: Option<&RateProfile>| match (channel, &spec.service) {
            (Some(p), _) => Server::Profile(ProfileLink::new(p.clone(), Instant::ZERO)),
            (None, Service::Fixed) => Server::Fixed(FixedRate::new(spec.rate)),
            (None, Service::Trace(t)) => Server::Trace(TraceLink::new((**t).clone(), Instant::ZERO)),
        };
        let mut station_of = Vec::new();
        let mut stations = Vec::new();
        match spec.per_flow {
            None => stations.push(Station::new(spec.queue.build(rng.next_u64()), server(None), channel())),
            Some(_) => {
                station_of = vec![u32::MAX; channels.len()];
                // UEs in order of their first flow; a UE's channel is its
                // first flow's.
                // UE -> station, looked up only (100,000 UEs are not
                // searched one by one).
                let mut ues: std::collections::BTreeMap<u64, usize> = std::collections::BTreeMap::new();
                for &(f, ue) in users {
                    let s = *ues.entry(ue).or_insert_with(|| {
                        let queue = spec.queue.build(rng.next_u64());
                        stations.push(Station::new(queue, server(channels[f as usize]), channel()));
                        stations.len() - 1
                    });
                    station_of[f as usize] = s as u32;
                }
            }
        }
        Link {
            stations,
            station_of,
            scheduler: spec.per_flow,
            airtime_clock: 0.0,
            delay: spec.delay,
            busy: false,
            free_at: Instant::ZERO,
            free_pending: false,
            loss: spec.loss,
            rng,
            wire: VecDeque::new(),
            stats: LinkStats::default(),
            reported: true,
        }
    }

    /// A flow's private access or egress link, which no report shows.
    pub fn private(spec: &LinkSpec, seed: u64, flow: u32, channels: &[Option<&RateProfile>]) -> Self {
        Link { reported: false, ..Link::new(spec, seed, &[(flow, 0)], channels) }
    }

    fn station(&self, pkt: &Packet) -> usize {
        if self.scheduler.is_some() {
            self.station_of[pkt.flow as usize] as usize
        } else {
            0
        }
    }

    /// Offers a packet to its queue; drops go to `drops`.
    pub fn enqueue(&mut self, pkt: Packet, now: Instant, drops: &mut Vec<Packet>) {
        if self.loss > 0.0 && self.rng.next_f64() < self.loss {
            drops.push(pkt);
            return;
        }
        let s = self.station(&pkt);
        let st = &mut self.stations[s];
        if st.queue.is_empty() {
            // A new backlog earns no credit for the time it was idle.
            st.airtime = st.airtime.max(self.airtime_clock);
        }
        st.queue.enqueue(pkt, now, drops);
    }

    /// Picks the station to serve next and dequeues from it.
    fn dequeue(&mut self, now: Instant, drops: &mut Vec<Packet>) -> Option<(usize, Dequeued<Packet>)> {
        if self.stations.len() == 1 {
            return self.stations[0].queue.dequeue(now, drops).map(|d| (0, d));
        }
        loop {
            let backlogged = (0..self.stations.len()).filter(|&i| !self.stations[i].queue.is_empty());
            let best = match self.scheduler {
                // Least air time used first; ties to the lower index.
                None | Some(Scheduler::RoundRobin) => {
                    backlogged.min_by(|&a, &b| self.stations[a].airtime.total_cmp(&self.stations[b].airtime))?
                }
                // Best current rate relative to the recent served rate
                // (Kelly; Tse's proportional fair scheduler).
                Some(Scheduler::ProportionalFair) => backlogged.max_by(|&a, &b| {
                    let m = |i: usize| {
                        let s = &self.stations[i];
                        s.server.rate_at(now).bps() as f64 / s.served_avg_at(now).max(1.0)
                    };
                    m(a).total_cmp(&m(b)).then(b.cmp(&a))
                })?,
            };
            if let Some(d) = self.stations[best].queue.dequeue(now, drops) {
                return Some((best, d));
            }
        }
    }

    /// Whether the link, idle, would send `pkt` at once: no random loss,
    /// one queue, and that queue would hand the packet straight back.
    pub fn passes_through(&self, pkt: &Packet) -> bool {
        !self.busy && self.loss == 0.0 && self.stations.len() == 1 && self.stations[0].queue.passes_through(pkt)
    }

    /// Puts a packet that `passes_through` on the wire, as offering and
    /// dequeueing it would.
    pub fn start_now(&mut self, pkt: Packet, now: Instant) -> Started {
        self.start(0, Dequeued { packet: pkt, sojourn: Duration::ZERO }, now)
    }

    /// Dequeues the next packet and puts it on the wire, if any.
    pub fn start_next(&mut self, now: Instant, drops: &mut Vec<Packet>) -> Option<Started> {
        let Some((s, d)) = self.dequeue(now, drops) else {
            self.busy = false;
            return None;
        };
        Some(self.start(s, d, now))
    }

    /// Puts the packet station `s` dequeued on the wire.
    fn start(&mut self, s: usize, d: Dequeued<Packet>, now: Instant) -> Started {
        let size = d.packet.wire_size();
        let shared = self.stations.len() > 1;
        let st = &mut self.stations[s];
        let mut free_at = st.server.transmit(now, size);
        if let Some(c) = &st.channel {
            free_at = now + c.service_time(now, free_at - now);
        }
        // The schedulers' state: only a link with several stations chooses.
        if shared {
            let airtime = (free_at - now).as_secs_f64();
            st.airtime += airtime;
            self.airtime_clock = st.airtime - airtime;
            st.served_avg = st.served_avg_at(now) + size as f64 * 8.0 / PF_TAU;
            st.served_at = now;
        }
        self.busy = true;
        if self.reported {
            self.stats.departures += 1;
            self.stats.busy += free_at - now;
            self.stats.sojourn_us.record(d.sojourn.as_micros());
        }
        let delivered = match &mut st.channel {
            Some(c) => c.deliver(free_at),
            None => free_at,
        };
        let arrive = delivered + self.delay;
        // Behind every packet that arrives no later (the common case: at
        // the back); the arrival event is due when the packet is the head.
        let at = match self.wire.back() {
            Some(&(last, _)) if last > arrive => self.wire.partition_point(|&(t, _)| t <= arrive),
            _ => self.wire.len(),
        };
        if at == self.wire.len() {
            self.wire.push_back((arrive, d.packet));
        } else {
            self.wire.insert(at, (arrive, d.packet));
        }
        Started { free_at, arrive_at: (at == 0).then_some(arrive) }
    }

    /// What the base station tells flow `f`'s UE (per-flow links only):
    /// its channel's whole data rate now, and the share the scheduler gives
    /// it: the rate divided among the backlogged queues, its own included.
    pub fn bandwidth_hint(&self, f: usize, now: Instant) -> Option<(Bandwidth, Bandwidth)> {
        self.scheduler?;
        let s = *self.station_of.get(f)? as usize;
        let total = self.stations.get(s)?.server.rate_at(now);
        let others = self.stations.iter().enumerate().filter(|(i, st)| *i != s && !st.queue.is_empty()).count();
        Some((total, Bandwidth::from_bps(total.bps() / (others as u64 + 1))))
    }

    pub fn queue_packets(&self) -> u64 {
        self.stations.iter().map(|s| s.queue.len_packets() as u64).sum()
    }
    pub fn queue_bytes(&self) -> u64 {
        self.stations.iter().map(|s| s.queue.len_bytes()).sum()
    }

    /// Clears the statistics at the start of the measurement window.
    pub fn reset_stats(&mut self) {
        self.stats = LinkStats::default();
    }
}
