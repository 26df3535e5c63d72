//! A link in the data direction: queues, a serialiser and a propagation
//! delay. Packets on the wire wait in a FIFO (the delay is constant, so
//! arrivals keep departure order).
//!
//! A shared link has one queue (a router, a Wi-Fi AP). A per-flow link has
//! a queue and a channel per flow, served one packet at a time by a
//! scheduler over one air interface (an LTE or mmWave base station).

use crate::metrics::Histogram;
use crate::packet::Packet;
use crate::scenario::{LinkSpec, Scheduler, Service};
use rtac_core::rng::Rng;
use rtac_core::{Bandwidth, Duration, Instant};
use rtac_netmodel::{AnyQdisc, FixedRate, LinkServer, ProfileLink, Qdisc, RateProfile, TraceLink};
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
    /// Proportional fair: the average rate this station was served at.
    served_avg: f64,
}

#[derive(Debug)]
pub struct Link {
    stations: Vec<Station>,
    /// Per-flow links: the station of each flow id (`u32::MAX`: none).
    station_of: Vec<u32>,
    scheduler: Option<Scheduler>,
    /// Round robin: the station to look at first next time.
    next: usize,
    pub delay: Duration,
    pub busy: bool,
    loss: f64,
    rng: Rng,
    /// Packets propagating, with their arrival time at the far end.
    pub wire: VecDeque<(Instant, Packet)>,
    pub stats: LinkStats,
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
    /// Set when the wire FIFO was empty: when its new head arrives.
    pub arrive_at: Option<Instant>,
}

/// Proportional fair's averaging constant, in scheduling decisions.
const PF_WINDOW: f64 = 100.0;

impl Link {
    /// `channels[f]` is flow f's channel if it uses this link and has one.
    pub fn new(spec: &LinkSpec, seed: u64, users: &[u32], channels: &[Option<&RateProfile>]) -> Self {
        let mut rng = Rng::new(seed);
        let server = |channel: Option<&RateProfile>| match (channel, &spec.service) {
            (Some(p), _) => Server::Profile(ProfileLink::new(p.clone(), Instant::ZERO)),
            (None, Service::Fixed) => Server::Fixed(FixedRate::new(spec.rate)),
            (None, Service::Trace(t)) => Server::Trace(TraceLink::new((**t).clone(), Instant::ZERO)),
        };
        let mut station_of = Vec::new();
        let stations = match spec.per_flow {
            None => vec![Station { queue: spec.queue.build(rng.next_u64()), server: server(None), served_avg: 1.0 }],
            Some(_) => {
                station_of = vec![u32::MAX; channels.len()];
                users
                    .iter()
                    .enumerate()
                    .map(|(i, &f)| {
                        station_of[f as usize] = i as u32;
                        Station {
                            queue: spec.queue.build(rng.next_u64()),
                            server: server(channels[f as usize]),
                            served_avg: 1.0,
                        }
                    })
                    .collect()
            }
        };
        Link {
            stations,
            station_of,
            scheduler: spec.per_flow,
            next: 0,
            delay: spec.delay,
            busy: false,
            loss: spec.loss,
            rng,
            wire: VecDeque::new(),
            stats: LinkStats::default(),
        }
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
        self.stations[s].queue.enqueue(pkt, now, drops);
    }

    /// Picks the station to serve next and dequeues from it.
    fn dequeue(&mut self, now: Instant, drops: &mut Vec<Packet>) -> Option<(usize, rtac_netmodel::Dequeued<Packet>)> {
        let n = self.stations.len();
        match self.scheduler {
            None | Some(Scheduler::RoundRobin) => {
                for k in 0..n {
                    let i = (self.next + k) % n;
                    if let Some(d) = self.stations[i].queue.dequeue(now, drops) {
                        self.next = (i + 1) % n;
                        return Some((i, d));
                    }
                }
                None
            }
            Some(Scheduler::ProportionalFair) => loop {
                // The backlogged station with the best rate relative to its
                // average service (Kelly/Tse proportional fairness).
                let best = (0..n).filter(|&i| !self.stations[i].queue.is_empty()).max_by(|&a, &b| {
                    let m = |i: usize| self.stations[i].server.rate_at(now).bps() as f64 / self.stations[i].served_avg;
                    m(a).total_cmp(&m(b)).then(b.cmp(&a))
                })?;
                let rate = self.stations[best].server.rate_at(now).bps() as f64;
                for (i, s) in self.stations.iter_mut().enumerate() {
                    let served = if i == best { rate } else { 0.0 };
                    s.served_avg = (s.served_avg * (PF_WINDOW - 1.0) + served) / PF_WINDOW;
                }
                if let Some(d) = self.stations[best].queue.dequeue(now, drops) {
                    return Some((best, d));
                }
            },
        }
    }

    /// Dequeues the next packet and puts it on the wire, if any.
    pub fn start_next(&mut self, now: Instant, drops: &mut Vec<Packet>) -> Option<Started> {
        let Some((s, d)) = self.dequeue(now, drops) else {
            self.busy = false;
            return None;
        };
        let size = d.packet.wire_size();
        let free_at = self.stations[s].server.transmit(now, size);
        self.busy = true;
        self.stats.departures += 1;
        self.stats.busy += free_at - now;
        self.stats.sojourn_us.record(d.sojourn.as_micros());
        let arrive = free_at + self.delay;
        let was_empty = self.wire.is_empty();
        self.wire.push_back((arrive, d.packet));
        Some(Started { free_at, arrive_at: was_empty.then_some(arrive) })
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
