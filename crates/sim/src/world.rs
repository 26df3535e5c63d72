//! One simulation run: links, flows and the event loop that moves packets
//! between them.

use crate::engine::{Event, EventQueue};
use crate::metrics::Histogram;
use crate::network::{Link, Started};
use crate::packet::{Kind, Packet};
use crate::results::{
    DataPackets, FlowResult, FlowSample, LinkResult, LinkSample, ReceiverResult, RunResult, SeriesSink,
};
use crate::scenario::{ControllerChoice, Scenario};
use crate::tcp::cc::CcKind;
use crate::tcp::receiver::Receiver;
use crate::tcp::sender::Sender;
use rtac_core::controller::LinkBudget;
use rtac_core::rng::Rng;
use rtac_core::{AnyController, Controller, Duration, Instant};
use std::collections::VecDeque;

struct Flow {
    path: Vec<u32>,
    /// Sum of the path's propagation delays: ACKs return over it unqueued.
    ack_delay: Duration,
    sender: Sender,
    receiver: Receiver,
    /// ACKs on their way back, with arrival times.
    acks: VecDeque<(Instant, Packet)>,
    /// Time of the earliest pending FlowTimer event (MAX: none).
    armed: Instant,
    start: Instant,
    stop: Option<Instant>,
    controller: String,
    cc: &'static str,
    rtt_us: Histogram,
    delivered_at_measure: u64,
    delivered_at_sample: u64,
    /// The per-flow link nearest the receiver: its base station's
    /// bandwidth hints reach this flow's controller.
    hint_link: Option<u32>,
    /// Bytes delivered in each second of the measurement window.
    per_second: Vec<u64>,
    /// Index into `World::hosts` of its named receiver.
    host: Option<usize>,
    /// A connection of a receiver's window budget, not yet open.
    join: Option<Join>,
    /// While it holds a place in a receiver's window budget (open, not
    /// closed): the plain controller its receiver takes when it closes.
    after_close: Option<AnyController>,
}

/// What a connection of a receiver's window budget needs to open: it joins
/// the budget at its start, as a host's connection does at its handshake,
/// so that its window comes out of the budget as it stands then. Its
/// endpoints are built then; until then the flow holds endpoints built
/// with the plain controller, which see no packet. It leaves the budget
/// when it closes (`World::close`).
struct Join {
    budget: LinkBudget,
    cc: CcKind,
    /// The congestion control's seed, drawn in flow order with the others.
    cc_seed: u64,
    bytes: Option<u64>,
}

pub struct World<'a, 's> {
    scenario: &'a Scenario,
    label: String,
    controller: String,
    /// Receives the time series as they are sampled; none: no sampling.
    sink: Option<&'s mut dyn SeriesSink>,
    events: EventQueue,
    links: Vec<Link>,
    flows: Vec<Flow>,
    out: Vec<Packet>,
    drops: Vec<Packet>,
    measure_from: Instant,
    end: Instant,
    /// Data packets that reached their receiver, and that links dropped.
    delivered: u64,
    dropped: u64,
    /// The named receivers.
    hosts: Vec<crate::scenario::receiver::Host>,
}

impl<'a, 's> World<'a, 's> {
    pub fn new(scenario: &'a Scenario, choice: &ControllerChoice, sink: Option<&'s mut dyn SeriesSink>) -> Self {
        let mut flows = Vec::new();
        // Senders draw from their own stream so links keep theirs.
        let mut sender_rng = Rng::new(scenario.seed).fork(0x5E4D);
        // So do the start offsets.
        let mut start_rng = Rng::new(scenario.seed).fork(0x57A2);
        let jitter = scenario.start_jitter.as_nanos() as f64;
        // Per flow id: its spec, for the links' per-flow stations.
        let mut specs = Vec::new();
        let hosts = scenario.hosts();
        let budgets = budgets(scenario, &hosts, choice);
        let mut host_of = vec![None; budgets.len()];
        for (h, host) in hosts.iter().enumerate() {
            for &id in &host.flows {
                host_of[id] = Some(h);
            }
        }
        for spec in &scenario.flows {
            let ch = spec.controller.as_ref().unwrap_or(choice);
            for _ in 0..spec.count {
                let id = flows.len() as u32;
                // Scenarios are validated before a run: a controller that
                // fails here is a bug in validation, not bad input.
                let ctl = AnyController::new(ch.kind, scenario.mss, &ch.params)
                    .expect("controller parameters are validated with the scenario");
                let receiver = Receiver::new(id, scenario.mss, ctl, spec.bytes);
                let cc_seed = sender_rng.next_u64();
                let sender = Sender::new(
                    id,
                    scenario.mss,
                    spec.cc.build_with(scenario.mss, Some(cc_seed)),
                    spec.bytes,
                    receiver.initial_window(),
                );
                let join = budgets[id as usize].as_ref().map(|b| Join {
                    budget: b.clone(),
                    cc: spec.cc,
                    cc_seed,
                    bytes: spec.bytes,
                });
                // Private access and egress links are added to the path below.
                let path: Vec<u32> = spec.path.iter().map(|&i| i as u32).collect();
                let private = [&spec.access, &spec.egress].into_iter().flatten().map(|l| l.delay);
                let ack_delay = spec
                    .path
                    .iter()
                    .map(|&i| scenario.links[i].delay)
                    .chain(private)
                    .fold(Duration::ZERO, |a, b| a + b);
                flows.push(Flow {
                    path,
                    ack_delay,
                    sender,
                    receiver,
                    acks: VecDeque::new(),
                    armed: Instant::MAX,
                    start: Instant::ZERO + spec.start + Duration::from_nanos((start_rng.next_f64() * jitter) as u64),
                    stop: spec.stop.map(|s| Instant::ZERO + s),
                    controller: ch.kind.name().to_string(),
                    cc: spec.cc.name(),
                    rtt_us: Histogram::default(),
                    delivered_at_measure: 0,
                    delivered_at_sample: 0,
                    per_second: Vec::new(),
                    hint_link: spec
                        .path
                        .iter()
                        .rev()
                        .find(|&&l| scenario.links[l].per_flow.is_some())
                        .map(|&l| l as u32),
                    host: host_of[id as usize],
                    join,
                    after_close: None,
                });
                specs.push(spec);
            }
        }
        let mut rng = Rng::new(scenario.seed);
        let channels: Vec<Option<&rtac_netmodel::RateProfile>> = specs.iter().map(|s| s.channel.as_ref()).collect();
        let mut links: Vec<Link> = scenario
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let users: Vec<(u32, u64)> = (0..specs.len() as u32)
                    .filter(|&f| specs[f as usize].path.contains(&i))
                    .map(|f| (f, specs[f as usize].ue.map_or((1 << 32) + f as u64, u64::from)))
                    .collect();
                Link::new(l, rng.fork(i as u64).next_u64(), &users, &channels)
            })
            .collect();
        for (f, spec) in specs.iter().enumerate() {
            if let Some(a) = &spec.access {
                flows[f].path.insert(0, links.len() as u32);
                links.push(Link::private(a, rng.next_u64(), f as u32, &channels));
            }
            if let Some(e) = &spec.egress {
                flows[f].path.push(links.len() as u32);
                links.push(Link::private(e, rng.next_u64(), f as u32, &channels));
            }
        }
        let mut events = EventQueue::default();
        for (i, f) in flows.iter().enumerate() {
            events.push(f.start, Event::FlowStart(i as u32));
            if let Some(stop) = f.stop {
                events.push(stop, Event::FlowStop(i as u32));
            }
        }
        let measure_from = Instant::ZERO + scenario.measure_from;
        if measure_from > Instant::ZERO {
            events.push(measure_from, Event::MeasureStart);
        }
        if sink.is_some() {
            events.push(Instant::ZERO, Event::Sample);
        }
        World {
            scenario,
            label: choice.label.clone(),
            controller: choice.kind.name().to_string(),
            sink,
            events,
            links,
            flows,
            out: Vec::new(),
            drops: Vec::new(),
            measure_from,
            end: Instant::ZERO + scenario.duration,
            delivered: 0,
            dropped: 0,
            hosts,
        }
    }

    pub fn run(mut self) -> RunResult {
        let wall = std::time::Instant::now();
        while let Some((now, ev)) = self.events.pop_until(self.end) {
            match ev {
                Event::LinkFree(l) => {
                    self.links[l as usize].free_pending = false;
                    self.start_link(l as usize, now)
                }
                Event::LinkArrive(l) => self.link_arrive(l as usize, now),
                Event::AckArrive(f) => self.ack_arrive(f as usize, now),
                Event::FlowTimer(f) => self.flow_timer(f as usize, now),
                Event::FlowStart(f) => {
                    self.open(f as usize);
                    self.flows[f as usize].sender.start(now, &mut self.out);
                    self.route(f as usize, now);
                }
                Event::FlowStop(f) => self.flows[f as usize].sender.stop(),
                Event::MeasureStart => self.measure_start(),
                Event::Sample => self.sample(now),
            }
        }
        self.finish(wall.elapsed())
    }

    /// Flow `f` opens: a connection of a receiver's window budget joins it
    /// now and gets its endpoints (see [`Join`]).
    fn open(&mut self, f: usize) {
        let mss = self.scenario.mss;
        let flow = &mut self.flows[f];
        let Some(j) = flow.join.take() else { return };
        let member = Receiver::new(f as u32, mss, AnyController::Link(j.budget.join()), j.bytes);
        let mut placeholder = std::mem::replace(&mut flow.receiver, member);
        flow.after_close = Some(placeholder.replace_controller(AnyController::None(rtac_core::controller::NoLimit)));
        let cc = j.cc.build_with(mss, Some(j.cc_seed));
        flow.sender = Sender::new(f as u32, mss, cc, j.bytes, flow.receiver.initial_window());
    }

    /// Flow `f`'s sender has every byte it will send acknowledged (its
    /// `bytes`, or what it sent before its `stop`): a connection of a
    /// window budget closes and returns its share at once, so that a
    /// closed connection holds no part of the budget, nor its RTT floor.
    /// Its receiver keeps the plain controller for the segments still in
    /// flight (duplicates only).
    fn close(&mut self, f: usize) {
        let flow = &mut self.flows[f];
        if flow.sender.finished_at().is_none() {
            return;
        }
        if let Some(plain) = flow.after_close.take() {
            // Dropping the member leaves the budget.
            drop(flow.receiver.replace_controller(plain));
        }
    }

    /// Sends what an endpoint of flow `f` just emitted and re-arms its timer.
    fn route(&mut self, f: usize, now: Instant) {
        let mut out = std::mem::take(&mut self.out);
        for pkt in out.drain(..) {
            match pkt.kind {
                Kind::Data { .. } => {
                    let first = self.flows[f].path[0] as usize;
                    self.enqueue(first, pkt, now);
                }
                Kind::Ack { .. } => {
                    let flow = &mut self.flows[f];
                    let at = now + flow.ack_delay;
                    if flow.acks.is_empty() {
                        self.events.push(at, Event::AckArrive(f as u32));
                    }
                    flow.acks.push_back((at, pkt));
                }
            }
        }
        self.out = out;
        let flow = &mut self.flows[f];
        let due = match (flow.sender.timer(), flow.receiver.timer()) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).unwrap_or(Instant::MAX),
        };
        if due < flow.armed {
            flow.armed = due;
            self.events.push(due, Event::FlowTimer(f as u32));
        }
    }

    fn enqueue(&mut self, l: usize, pkt: Packet, now: Instant) {
        let link = &mut self.links[l];
        // A link whose last packet finished with nothing waiting is idle:
        // no LinkFree event was scheduled for it.
        if link.busy && !link.free_pending && now >= link.free_at {
            link.busy = false;
        }
        // Mostly on fast private links: nothing waits, the packet leaves.
        if link.passes_through(&pkt) {
            let s = link.start_now(pkt, now);
            self.started(l, s);
            return;
        }
        link.enqueue(pkt, now, &mut self.drops);
        link.stats.drops += self.drops.len() as u64;
        self.dropped += self.drops.len() as u64;
        self.drops.clear();
        if !link.busy {
            self.start_link(l, now);
        } else if !link.free_pending && link.queue_packets() > 0 {
            link.free_pending = true;
            let at = link.free_at;
            self.events.push(at, Event::LinkFree(l as u32));
        }
    }

    fn start_link(&mut self, l: usize, now: Instant) {
        let link = &mut self.links[l];
        let started = link.start_next(now, &mut self.drops);
        link.stats.drops += self.drops.len() as u64;
        self.dropped += self.drops.len() as u64;
        self.drops.clear();
        if let Some(s) = started {
            self.started(l, s);
        }
    }

    /// Link `l` started sending a packet: schedules its arrival and the
    /// link's next start.
    fn started(&mut self, l: usize, s: Started) {
        let link = &mut self.links[l];
        // Schedule the next start only if a packet waits; otherwise the
        // next arrival starts it (see `enqueue`).
        link.free_at = s.free_at;
        if link.queue_packets() > 0 {
            link.free_pending = true;
            self.events.push(s.free_at, Event::LinkFree(l as u32));
        }
        if let Some(at) = s.arrive_at {
            self.events.push(at, Event::LinkArrive(l as u32));
        }
    }

    fn link_arrive(&mut self, l: usize, now: Instant) {
        let link = &mut self.links[l];
        // A packet that overtook the head on a link with channels got an
        // event of its own: the head's later event then finds nothing due.
        if link.wire.front().is_none_or(|&(t, _)| t > now) {
            return;
        }
        let (_, mut pkt) = link.wire.pop_front().expect("the head is due");
        if let Some(&(next, _)) = link.wire.front() {
            self.events.push(next, Event::LinkArrive(l as u32));
        }
        let f = pkt.flow as usize;
        pkt.hop += 1;
        if let Some(&next) = self.flows[f].path.get(pkt.hop as usize) {
            self.enqueue(next as usize, pkt, now);
        } else {
            self.delivered += 1;
            if let Some(h) = self.flows[f].hint_link {
                if let Some((total, allocated)) = self.links[h as usize].bandwidth_hint(f, now) {
                    self.flows[f].receiver.on_bandwidth_hint(now, total, allocated);
                }
            }
            let bytes = self.flows[f].receiver.on_data(now, &pkt, &mut self.out);
            if bytes > 0 && now >= self.measure_from {
                let sec = ((now - self.measure_from).as_nanos() / 1_000_000_000) as usize;
                let bins = &mut self.flows[f].per_second;
                if bins.len() <= sec {
                    bins.resize(sec + 1, 0);
                }
                bins[sec] += bytes;
            }
            self.route(f, now);
        }
    }

    fn ack_arrive(&mut self, f: usize, now: Instant) {
        let flow = &mut self.flows[f];
        let (_, pkt) = flow.acks.pop_front().expect("an ACK event has an ACK in flight");
        if let Some(&(next, _)) = flow.acks.front() {
            self.events.push(next, Event::AckArrive(f as u32));
        }
        if let Some(rtt) = flow.sender.on_ack(now, &pkt, &mut self.out) {
            if now >= self.measure_from {
                flow.rtt_us.record(rtt.as_micros());
            }
        }
        self.close(f);
        self.route(f, now);
    }

    fn flow_timer(&mut self, f: usize, now: Instant) {
        let flow = &mut self.flows[f];
        if flow.armed != now {
            return; // superseded by an earlier deadline
        }
        flow.armed = Instant::MAX;
        flow.sender.on_timer(now, &mut self.out);
        flow.receiver.on_timer(now, &mut self.out);
        self.route(f, now);
    }

    fn measure_start(&mut self) {
        for f in &mut self.flows {
            f.delivered_at_measure = f.receiver.delivered();
            f.rtt_us = Histogram::default();
        }
        for l in &mut self.links {
            l.reset_stats();
        }
    }

    fn sample(&mut self, now: Instant) {
        let Some(sink) = self.sink.as_deref_mut() else { return };
        let t = now - Instant::ZERO;
        for (i, f) in self.flows.iter_mut().enumerate() {
            let st = f.receiver.controller().state();
            let delivered = f.receiver.delivered();
            sink.flow(&FlowSample {
                t,
                flow: i,
                cwnd: f.sender.cwnd_bytes(),
                rwnd: f.receiver.advertised(),
                in_flight: f.sender.in_flight_bytes(),
                srtt: f.sender.srtt().unwrap_or(Duration::ZERO),
                rx_rtt: st.rtt,
                rx_window: st.window_bytes,
                delivered: delivered - f.delivered_at_sample,
            });
            f.delivered_at_sample = delivered;
        }
        for (i, l) in self.links.iter().enumerate().take(self.scenario.links.len()) {
            sink.link(&LinkSample { t, link: i, queue_packets: l.queue_packets(), queue_bytes: l.queue_bytes() });
        }
        self.events.push(now + self.scenario.sample_interval, Event::Sample);
    }

    /// The part of the measurement window flow `f` was active in: from its
    /// start to its end (its last byte acknowledged, its stop, or the end
    /// of the run).
    fn active(&self, f: &Flow) -> (Instant, Instant) {
        let from = f.start.max(self.measure_from);
        let until = f.sender.finished_at().or(f.stop).unwrap_or(self.end).min(self.end);
        (from, until)
    }

    fn finish(self, wall: std::time::Duration) -> RunResult {
        let window = self.end - self.measure_from;
        let flows = self
            .flows
            .iter()
            .enumerate()
            .map(|(id, f)| {
                // Throughput over the part of the window the flow was active.
                let (from, until) = self.active(f);
                let active = until - from;
                let bytes = f.receiver.delivered() - f.delivered_at_measure;
                let st = f.sender.stats();
                FlowResult {
                    id,
                    controller: f.controller.clone(),
                    cc: f.cc.to_string(),
                    throughput_mbps: if active.is_zero() {
                        0.0
                    } else {
                        bytes as f64 * 8.0 / active.as_secs_f64() / 1e6
                    },
                    bytes_delivered: bytes,
                    rtt_mean_ms: f.rtt_us.mean() / 1e3,
                    rtt_p50_ms: f.rtt_us.quantile(0.5) / 1e3,
                    rtt_p95_ms: f.rtt_us.quantile(0.95) / 1e3,
                    rtt_p5_ms: f.rtt_us.quantile(0.05) / 1e3,
                    rtt_p25_ms: f.rtt_us.quantile(0.25) / 1e3,
                    rtt_p75_ms: f.rtt_us.quantile(0.75) / 1e3,
                    throughput_per_s: {
                        // Whole seconds within [from, until) only.
                        let first = ((from - self.measure_from).as_nanos()).div_ceil(1_000_000_000) as usize;
                        let last = ((until - self.measure_from).as_nanos() / 1_000_000_000) as usize;
                        (first..last).map(|s| f.per_second.get(s).copied().unwrap_or(0) as f64 * 8.0 / 1e6).collect()
                    },
                    rtt_samples: f.rtt_us.count(),
                    retransmits: st.retransmits,
                    timeouts: st.timeouts,
                    completion: f.sender.finished_at().map(|t| t - f.start),
                    receiver: f.host.map(|h| self.hosts[h].name.clone()),
                }
            })
            .collect::<Vec<_>>();
        let receivers = self
            .hosts
            .iter()
            .map(|h| {
                let conns: Vec<&FlowResult> = h.flows.iter().map(|&id| &flows[id]).collect();
                // From its first connection's start to its last one's end,
                // when every connection carried `bytes` and finished.
                let ends: Option<Vec<Instant>> =
                    h.flows.iter().map(|&id| self.flows[id].sender.finished_at()).collect();
                let first = h.flows.iter().map(|&id| self.flows[id].start).min();
                let completion = match (ends, first) {
                    (Some(ends), Some(first)) => ends.into_iter().max().map(|last| last - first),
                    _ => None,
                };
                // Its throughput counts the time any connection was active:
                // from the first one's start to the last one's end.
                let spans: Vec<(Instant, Instant)> = h.flows.iter().map(|&id| self.active(&self.flows[id])).collect();
                let from = spans.iter().map(|s| s.0).min();
                let until = spans.iter().map(|s| s.1.max(s.0)).max();
                let active = match (from, until) {
                    (Some(a), Some(b)) => b - a,
                    _ => Duration::ZERO,
                };
                ReceiverResult::of(&h.name, &conns, active, completion)
            })
            .collect();
        let links = self
            .links
            .iter()
            .zip(&self.scenario.links)
            .map(|(l, spec)| LinkResult {
                name: spec.name.clone(),
                utilization: if window.is_zero() {
                    0.0
                } else {
                    (l.stats.busy.as_secs_f64() / window.as_secs_f64()).min(1.0)
                },
                queue_delay_mean_ms: l.stats.sojourn_us.mean() / 1e3,
                queue_delay_p95_ms: l.stats.sojourn_us.quantile(0.95) / 1e3,
                drops: l.stats.drops,
                departures: l.stats.departures,
            })
            .collect();
        RunResult {
            scenario: self.scenario.name.clone(),
            label: self.label,
            controller: self.controller,
            flows,
            receivers,
            links,
            wall,
            events: self.events.processed(),
            packets: self.flows.iter().map(|f| f.sender.stats().sent).sum(),
            series: None,
            data: DataPackets {
                sent: self.flows.iter().map(|f| f.sender.stats().sent).sum(),
                delivered: self.delivered,
                dropped: self.dropped,
                in_flight: self.links.iter().map(|l| l.queue_packets() + l.wire.len() as u64).sum(),
            },
        }
    }
}

/// Per flow id: the window budget its connection joins, for the named
/// receivers with two or more connections whose controller has a per-link
/// form (`LinkBudget::for_choice`). A receiver of one connection keeps the
/// plain controller, which the budget with one member equals by design.
fn budgets(
    scenario: &Scenario,
    hosts: &[crate::scenario::receiver::Host],
    run: &ControllerChoice,
) -> Vec<Option<LinkBudget>> {
    let n: usize = scenario.flows.iter().map(|f| f.count as usize).sum();
    let mut out = vec![None; n];
    for h in hosts.iter().filter(|h| h.flows.len() >= 2) {
        // Validation gives every connection of a host the same choice.
        let ch = scenario.flows[h.entries[0]].controller.as_ref().unwrap_or(run);
        let budget = LinkBudget::for_choice(ch.kind, scenario.mss, &ch.params)
            .expect("controller parameters are validated with the scenario");
        if let Some(b) = budget {
            for &id in &h.flows {
                out[id] = Some(b.clone());
            }
        }
    }
    out
}
