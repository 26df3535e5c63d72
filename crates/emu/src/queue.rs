//! The emulator's queue: either one shared queue discipline for every flow
//! (a Wi-Fi access point) or one queue per flow served round robin (the
//! per-user queues of an LTE base station). Both are built from the same
//! `QueueSpec` as the simulator's.

use rtac_core::Instant;
use rtac_netmodel::{AnyQdisc, Dequeued, Packet, Qdisc, QueueSpec};
use std::collections::{HashMap, VecDeque};

/// Shared or per-flow queueing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueMode {
    Shared,
    PerFlow,
}

impl std::str::FromStr for QueueMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "shared" => Ok(QueueMode::Shared),
            "per-flow" | "per_flow" | "perflow" => Ok(QueueMode::PerFlow),
            _ => Err(format!("unknown queue mode {:?}: expected shared (one queue, a Wi-Fi AP) or per-flow (a queue per flow, an LTE base station)", rtac_core::units::clip(s))),
        }
    }
}

impl std::fmt::Display for QueueMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            QueueMode::Shared => "shared",
            QueueMode::PerFlow => "per-flow",
        })
    }
}

/// One queue per flow key, each built from `spec` (with its own seed), and
/// served one packet per turn in round robin among the non-empty ones.
pub struct PerFlow<P> {
    spec: QueueSpec,
    seed: u64,
    index: HashMap<u64, usize>,
    queues: Vec<AnyQdisc<P>>,
    /// Non-empty queues, in service order.
    active: VecDeque<usize>,
    is_active: Vec<bool>,
    packets: usize,
    bytes: u64,
}

impl<P: Packet> PerFlow<P> {
    pub fn new(spec: QueueSpec, seed: u64) -> Self {
        PerFlow {
            spec,
            seed,
            index: HashMap::new(),
            queues: Vec::new(),
            active: VecDeque::new(),
            is_active: Vec::new(),
            packets: 0,
            bytes: 0,
        }
    }
    /// Flows seen so far.
    pub fn flows(&self) -> usize {
        self.queues.len()
    }

    fn recount<T>(&mut self, i: usize, f: impl FnOnce(&mut AnyQdisc<P>) -> T) -> T {
        let q = &mut self.queues[i];
        let (p0, b0) = (q.len_packets(), q.len_bytes());
        let r = f(q);
        let (p1, b1) = (q.len_packets(), q.len_bytes());
        self.packets = self.packets + p1 - p0;
        self.bytes = self.bytes + b1 - b0;
        r
    }
}

impl<P: Packet> Qdisc<P> for PerFlow<P> {
    fn enqueue(&mut self, pkt: P, now: Instant, drops: &mut Vec<P>) {
        let n = self.queues.len();
        let i = *self.index.entry(pkt.flow_key()).or_insert(n);
        if i == n {
            let seed = self.seed ^ (n as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            self.queues.push(self.spec.build(seed));
            self.is_active.push(false);
        }
        self.recount(i, |q| q.enqueue(pkt, now, drops));
        if !self.is_active[i] && !self.queues[i].is_empty() {
            self.is_active[i] = true;
            self.active.push_back(i);
        }
    }

    fn dequeue(&mut self, now: Instant, drops: &mut Vec<P>) -> Option<Dequeued<P>> {
        while let Some(i) = self.active.pop_front() {
            let d = self.recount(i, |q| q.dequeue(now, drops));
            if self.queues[i].is_empty() {
                self.is_active[i] = false;
            } else {
                self.active.push_back(i);
            }
            if d.is_some() {
                return d;
            }
        }
        None
    }

    fn len_packets(&self) -> usize {
        self.packets
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

/// A shared or per-flow queue.
pub enum Queue<P> {
    Shared(AnyQdisc<P>),
    PerFlow(PerFlow<P>),
}

impl<P: Packet> Queue<P> {
    pub fn new(spec: &QueueSpec, mode: QueueMode, seed: u64) -> Self {
        match mode {
            QueueMode::Shared => Queue::Shared(spec.build(seed)),
            QueueMode::PerFlow => Queue::PerFlow(PerFlow::new(spec.clone(), seed)),
        }
    }
}

impl<P: Packet> Qdisc<P> for Queue<P> {
    fn enqueue(&mut self, pkt: P, now: Instant, drops: &mut Vec<P>) {
        match self {
            Queue::Shared(q) => q.enqueue(pkt, now, drops),
            Queue::PerFlow(q) => q.enqueue(pkt, now, drops),
        }
    }
    fn dequeue(&mut self, now: Instant, drops: &mut Vec<P>) -> Option<Dequeued<P>> {
        match self {
            Queue::Shared(q) => q.dequeue(now, drops),
            Queue::PerFlow(q) => q.dequeue(now, drops),
        }
    }
    fn len_packets(&self) -> usize {
        match self {
            Queue::Shared(q) => q.len_packets(),
            Queue::PerFlow(q) => q.len_packets(),
        }
    }
    fn len_bytes(&self) -> u64 {
        match self {
            Queue::Shared(q) => q.len_bytes(),
            Queue::PerFlow(q) => q.len_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq)]
    struct P(u64, u32);
    impl Packet for P {
        fn size(&self) -> u32 {
            1000
        }
        fn flow_key(&self) -> u64 {
            self.0
        }
    }

    #[test]
    fn per_flow_queues_are_served_round_robin() {
        let mut q = PerFlow::new(QueueSpec::parse("droptail:packets=10").unwrap(), 1);
        let mut drops = Vec::new();
        let t = Instant::ZERO;
        for i in 0..4 {
            q.enqueue(P(7, i), t, &mut drops);
        }
        q.enqueue(P(9, 100), t, &mut drops);
        q.enqueue(P(9, 101), t, &mut drops);
        assert_eq!((q.len_packets(), q.len_bytes(), q.flows()), (6, 6000, 2));
        let order: Vec<u32> = std::iter::from_fn(|| q.dequeue(t, &mut drops)).map(|d| d.packet.1).collect();
        assert_eq!(order, vec![0, 100, 1, 101, 2, 3]);
        assert_eq!((q.len_packets(), q.len_bytes()), (0, 0));
    }

    #[test]
    fn each_flow_has_its_own_limit() {
        let mut q = PerFlow::new(QueueSpec::parse("droptail:packets=2").unwrap(), 1);
        let mut drops = Vec::new();
        for i in 0..5 {
            q.enqueue(P(1, i), Instant::ZERO, &mut drops);
        }
        q.enqueue(P(2, 9), Instant::ZERO, &mut drops);
        assert_eq!(drops.iter().map(|p| p.1).collect::<Vec<_>>(), vec![2, 3, 4]);
        assert_eq!(q.len_packets(), 3);
    }

    #[test]
    fn a_shared_queue_has_one_limit() {
        let mut q: Queue<P> = Queue::new(&QueueSpec::parse("droptail:packets=2").unwrap(), QueueMode::Shared, 1);
        let mut drops = Vec::new();
        for i in 0..3 {
            q.enqueue(P(i as u64, i), Instant::ZERO, &mut drops);
        }
        assert_eq!(drops.len(), 1);
        assert_eq!("per-flow".parse::<QueueMode>().unwrap(), QueueMode::PerFlow);
        assert!("lte".parse::<QueueMode>().unwrap_err().contains("per-flow"));
    }
}
