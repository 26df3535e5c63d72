//! FQ-CoDel, RFC 8290: packets are hashed by flow into buckets, buckets are
//! served by deficit round robin with new flows first, and each bucket runs
//! its own CoDel (the state machine of [`super::codel`]).

use super::codel::{CodelVars, DEFAULT_INTERVAL, DEFAULT_TARGET};
use super::{Dequeued, Qdisc};
use crate::Packet;
use rtac_core::{Duration, Instant};
use std::collections::{BTreeMap, VecDeque};

/// RFC 8290 §5.2.5: 1024 flows.
pub const DEFAULT_FLOWS: usize = 1024;
/// RFC 8290 §5.2.4: quantum = 1514 bytes (MTU plus Ethernet header).
pub const DEFAULT_QUANTUM: u32 = 1514;
/// RFC 8290 §5.2.3: limit = 10240 packets.
pub const DEFAULT_LIMIT: usize = 10240;
/// Linux fq_codel `drop_batch_size`: at most 64 packets per overflow.
pub const DROP_BATCH: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FqCodelParams {
    pub target: Duration,
    pub interval: Duration,
    /// Number of hash buckets.
    pub flows: usize,
    /// DRR quantum, in bytes.
    pub quantum: u32,
    /// Limit on the packets queued in all buckets together.
    pub limit: usize,
}

impl Default for FqCodelParams {
    fn default() -> Self {
        FqCodelParams {
            target: DEFAULT_TARGET,
            interval: DEFAULT_INTERVAL,
            flows: DEFAULT_FLOWS,
            quantum: DEFAULT_QUANTUM,
            limit: DEFAULT_LIMIT,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

#[derive(Clone, Debug)]
struct Flow<P> {
    /// The hash bucket this state belongs to.
    bucket: u32,
    q: VecDeque<(Instant, P)>,
    backlog: u64,
    deficit: i64,
    list: List,
    codel: CodelVars,
}

/// The most recently used (bucket, slot) pair: flows send in bursts, and a
/// per-flow queue (one user's) sees one flow, so most lookups stop here.
#[derive(Clone, Copy, Debug)]
struct Recent {
    bucket: u32,
    slot: u32,
}

#[derive(Clone, Debug)]
pub struct FqCodel<P> {
    params: FqCodelParams,
    /// The state of every bucket that has held a packet, in the order they
    /// first did. A bucket's state is made on its first packet and then
    /// kept, CoDel state included, as Linux keeps its array of flows; a
    /// bucket that never holds a packet costs nothing, so memory grows with
    /// the flows seen, not with `params.flows` (65,536 buckets in each of
    /// 100,000 per-user queues would be tens of gigabytes).
    flows: Vec<Flow<P>>,
    /// Bucket -> index in `flows`. Only looked up, never iterated for a
    /// decision, so its order cannot change a result.
    slots: BTreeMap<u32, u32>,
    recent: Option<Recent>,
    /// Indices in `flows` of the flows in the list of new flows / old flows.
    /// Each flow is in at most one list, so neither outgrows `flows`.
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len: usize,
    bytes: u64,
    /// Hash perturbation, from the seed (Linux draws one at random).
    perturb: u64,
}

/// SplitMix64's finaliser: spreads any `flow_key` over 64 bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl<P: Packet> FqCodel<P> {
    /// `seed` perturbs the flow hash. Panics if `params.flows` is 0 or not
    /// below 2^32, or if `params.quantum` is 0 (QueueSpec rejects these).
    pub fn new(params: FqCodelParams, seed: u64) -> Self {
        assert!(params.flows > 0 && params.flows <= u32::MAX as usize, "flows must be in 1..=2^32-1");
        assert!(params.quantum > 0, "the quantum must be above 0");
        FqCodel {
            params,
            flows: Vec::new(),
            slots: BTreeMap::new(),
            recent: None,
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            len: 0,
            bytes: 0,
            perturb: mix(seed ^ 0x0066_7163_6f64_656c),
        }
    }

    pub fn params(&self) -> &FqCodelParams {
        &self.params
    }

    /// The bucket a flow key hashes to (RFC 8290 §4.1; Linux
    /// `fq_codel_hash`: perturbed hash scaled onto `flows` buckets).
    pub fn bucket(&self, flow_key: u64) -> usize {
        let h = mix(flow_key ^ self.perturb) >> 32;
        ((h * self.params.flows as u64) >> 32) as usize
    }

    /// Packets queued in bucket `b`.
    pub fn bucket_len(&self, b: usize) -> usize {
        u32::try_from(b).ok().and_then(|b| self.slots.get(&b)).map_or(0, |&s| self.flows[s as usize].q.len())
    }

    /// Buckets whose state has been made (those that have held a packet).
    pub fn buckets_in_use(&self) -> usize {
        self.flows.len()
    }

    /// The index in `flows` of bucket `b`'s state, made on first use.
    fn slot(&mut self, b: u32) -> usize {
        if let Some(r) = self.recent.filter(|r| r.bucket == b) {
            return r.slot as usize;
        }
        let next = self.flows.len() as u32;
        let slot = *self.slots.entry(b).or_insert(next);
        if slot == next {
            self.flows.push(Flow {
                bucket: b,
                q: VecDeque::new(),
                backlog: 0,
                deficit: 0,
                list: List::None,
                codel: CodelVars::default(),
            });
        }
        self.recent = Some(Recent { bucket: b, slot });
        slot as usize
    }

    /// RFC 8290 §4.1 overflow handling (Linux `fq_codel_drop`): drop from
    /// the head of the bucket with the most bytes, in one batch of up to 64
    /// packets that stops once half of its bytes are gone. (The RFC says
    /// "half the number of packets"; Linux, which we follow, counts bytes.)
    fn drop_from_fattest(&mut self, drops: &mut Vec<P>) {
        // The first bucket (lowest index) among those with the most bytes,
        // as a scan of every bucket in order finds it; with no bytes
        // anywhere, bucket 0.
        let mut fat: Option<usize> = None;
        let mut max_backlog = 0;
        for (i, f) in self.flows.iter().enumerate() {
            let better = match fat {
                _ if f.backlog == 0 => false,
                None => true,
                Some(j) => f.backlog > max_backlog || (f.backlog == max_backlog && f.bucket < self.flows[j].bucket),
            };
            if better {
                max_backlog = f.backlog;
                fat = Some(i);
            }
        }
        let Some(fat) = fat.or_else(|| self.slots.get(&0).map(|&s| s as usize)) else { return };
        let threshold = max_backlog / 2;
        let flow = &mut self.flows[fat];
        let mut freed = 0;
        for _ in 0..DROP_BATCH {
            let Some((_, p)) = flow.q.pop_front() else { break };
            let size = p.size() as u64;
            freed += size;
            self.len -= 1;
            drops.push(p);
            if freed >= threshold {
                break;
            }
        }
        flow.backlog -= freed;
        self.bytes -= freed;
    }
}

impl<P: Packet> Qdisc<P> for FqCodel<P> {
    /// RFC 8290 §4.1.
    fn enqueue(&mut self, pkt: P, now: Instant, drops: &mut Vec<P>) {
        let b = self.bucket(pkt.flow_key()) as u32;
        let slot = self.slot(b);
        let size = pkt.size() as u64;
        let flow = &mut self.flows[slot];
        flow.q.push_back((now, pkt));
        flow.backlog += size;
        // A flow in neither list joins the new flows with a full quantum.
        if flow.list == List::None {
            flow.list = List::New;
            flow.deficit = self.params.quantum as i64;
            self.new_flows.push_back(slot as u32);
        }
        self.len += 1;
        self.bytes += size;
        if self.len > self.params.limit {
            self.drop_from_fattest(drops);
        }
    }

    /// RFC 8290 §4.2.
    fn dequeue(&mut self, now: Instant, drops: &mut Vec<P>) -> Option<Dequeued<P>> {
        let FqCodel { params, flows, new_flows, old_flows, len, bytes, .. } = self;
        loop {
            let (from_new, b) = match (new_flows.front(), old_flows.front()) {
                (Some(&b), _) => (true, b),
                (None, Some(&b)) => (false, b),
                (None, None) => return None,
            };
            let flow = &mut flows[b as usize];
            if flow.deficit <= 0 {
                // Quantum used up: top it up and go to the back of the old
                // flows.
                flow.deficit += params.quantum as i64;
                if from_new {
                    new_flows.pop_front();
                } else {
                    old_flows.pop_front();
                }
                old_flows.push_back(b);
                flow.list = List::Old;
                continue;
            }
            let Flow { q, backlog, codel, .. } = &mut *flow;
            let pop = || {
                let (t, p) = q.pop_front()?;
                let size = p.size() as u64;
                *backlog -= size;
                *len -= 1;
                *bytes -= size;
                // CoDel's "at most one MTU left" test uses this flow's bytes.
                Some((t, p, *backlog))
            };
            match codel.dequeue(params.target, params.interval, now, pop, drops) {
                Some((t, packet)) => {
                    flow.deficit -= packet.size() as i64;
                    return Some(Dequeued { packet, sojourn: now - t });
                }
                None => {
                    // Empty. A new flow makes one pass through the old list
                    // (if there is one) so that it cannot starve old flows by
                    // going empty and coming back new; an old flow leaves the
                    // lists until its next packet (Linux fq_codel_dequeue).
                    if from_new {
                        new_flows.pop_front();
                    } else {
                        old_flows.pop_front();
                    }
                    if from_new && !old_flows.is_empty() {
                        old_flows.push_back(b);
                        flow.list = List::Old;
                    } else {
                        flow.list = List::None;
                    }
                }
            }
        }
    }

    fn len_packets(&self) -> usize {
        self.len
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::droptail::tests::P;

    fn ms(x: u64) -> Instant {
        Instant::from_millis(x)
    }

    /// Two flow keys that land in different buckets.
    fn two_flows(q: &FqCodel<P>) -> (u64, u64) {
        let a = 1;
        let b = (2..).find(|k| q.bucket(*k) != q.bucket(a)).unwrap();
        (a, b)
    }

    #[test]
    fn same_key_same_bucket_and_keys_spread_over_buckets() {
        let q: FqCodel<P> = FqCodel::new(FqCodelParams::default(), 9);
        assert_eq!(q.bucket(77), q.bucket(77));
        let mut used = vec![false; 1024];
        for k in 0..1024 {
            used[q.bucket(k)] = true;
        }
        // 1024 keys into 1024 buckets: about 1 - 1/e of them used.
        let n = used.iter().filter(|u| **u).count();
        assert!((600..700).contains(&n), "{n}");
        let other: FqCodel<P> = FqCodel::new(FqCodelParams::default(), 10);
        assert!((0..64).any(|k| q.bucket(k) != other.bucket(k)), "seed perturbs the hash");
    }

    #[test]
    fn a_new_sparse_flow_is_served_before_a_backlogged_one() {
        let mut q = FqCodel::new(FqCodelParams::default(), 1);
        let (bulk, sparse) = two_flows(&q);
        let mut drops = Vec::new();
        for _ in 0..100 {
            q.enqueue(P(1500, bulk), ms(0), &mut drops);
        }
        // The bulk flow becomes old after its first quantum.
        assert_eq!(q.dequeue(ms(1), &mut drops).unwrap().packet.1, bulk);
        assert_eq!(q.dequeue(ms(1), &mut drops).unwrap().packet.1, bulk);
        q.enqueue(P(100, sparse), ms(2), &mut drops);
        assert_eq!(q.dequeue(ms(2), &mut drops).unwrap().packet, P(100, sparse));
        assert!(drops.is_empty());
    }

    #[test]
    fn drr_gives_backlogged_flows_equal_bytes() {
        let mut q = FqCodel::new(FqCodelParams::default(), 1);
        let (big, small) = two_flows(&q);
        let mut drops = Vec::new();
        for _ in 0..2000 {
            q.enqueue(P(1500, big), ms(0), &mut drops);
            q.enqueue(P(300, small), ms(0), &mut drops);
            q.enqueue(P(300, small), ms(0), &mut drops);
        }
        let (mut b_big, mut b_small) = (0u64, 0u64);
        for _ in 0..3000 {
            // Sojourn stays below target: no CoDel drops.
            let d = q.dequeue(ms(1), &mut drops).unwrap();
            if d.packet.1 == big {
                b_big += d.packet.0 as u64;
            } else {
                b_small += d.packet.0 as u64;
            }
        }
        let ratio = b_big as f64 / b_small as f64;
        assert!((ratio - 1.0).abs() < 0.01, "{b_big} vs {b_small}");
        assert!(drops.is_empty());
    }

    #[test]
    fn overflow_drops_half_the_fattest_flows_bytes_from_its_head() {
        let mut q = FqCodel::new(FqCodelParams { limit: 100, ..FqCodelParams::default() }, 1);
        let (fat, thin) = two_flows(&q);
        let mut drops = Vec::new();
        // The fat flow's packets are told apart by their sizes.
        let fat_pkts: Vec<P> = (0..90).map(|i| P(1000 + i, fat)).collect();
        for p in &fat_pkts {
            q.enqueue(p.clone(), ms(0), &mut drops);
        }
        for _ in 0..11 {
            q.enqueue(P(1000, thin), ms(0), &mut drops);
        }
        // Packet 101 overflows: the fat flow loses packets from its head
        // until half its bytes are gone.
        let fat_bytes: u64 = fat_pkts.iter().map(|p| p.0 as u64).sum();
        let (mut n, mut freed) = (0, 0);
        while freed < fat_bytes / 2 {
            freed += fat_pkts[n].0 as u64;
            n += 1;
        }
        assert_eq!(n, 46);
        assert_eq!(drops, fat_pkts[..n]);
        assert_eq!(q.len_packets(), 101 - n);
        assert_eq!(q.len_bytes(), fat_bytes - freed + 11_000);
        assert_eq!(q.bucket_len(q.bucket(thin)), 11);
    }

    #[test]
    fn overflow_batch_is_capped_at_64_packets() {
        let mut q = FqCodel::new(FqCodelParams { limit: 300, ..FqCodelParams::default() }, 1);
        let mut drops = Vec::new();
        for _ in 0..301 {
            q.enqueue(P(1500, 5), ms(0), &mut drops);
        }
        assert_eq!(drops.len(), 64);
        assert_eq!(q.len_packets(), 237);
    }

    #[test]
    fn codel_runs_per_flow_and_spares_the_sparse_flow() {
        let mut q = FqCodel::new(FqCodelParams::default(), 1);
        let (bulk, sparse) = two_flows(&q);
        let mut drops = Vec::new();
        let mut dropped_flows = Vec::new();
        // The bulk flow arrives at twice the service rate; the sparse one
        // sends one small packet every 10 ms.
        for t in 0..3000u64 {
            q.enqueue(P(1500, bulk), ms(t), &mut drops);
            q.enqueue(P(1500, bulk), ms(t), &mut drops);
            if t % 10 == 0 {
                q.enqueue(P(100, sparse), ms(t), &mut drops);
            }
            if let Some(d) = q.dequeue(ms(t), &mut drops) {
                if d.packet.1 == sparse {
                    assert!(d.sojourn <= Duration::from_millis(3), "{:?}", d.sojourn);
                }
            }
            dropped_flows.extend(drops.drain(..).map(|p| p.1));
        }
        assert!(dropped_flows.len() > 100, "{}", dropped_flows.len());
        assert!(dropped_flows.iter().all(|f| *f == bulk));
    }

    #[test]
    fn an_emptied_new_flow_waits_one_pass_in_the_old_list() {
        let mut q = FqCodel::new(FqCodelParams::default(), 1);
        let (a, b) = two_flows(&q);
        let mut drops = Vec::new();
        for _ in 0..100 {
            q.enqueue(P(100, b), ms(0), &mut drops);
        }
        assert_eq!(q.dequeue(ms(0), &mut drops).unwrap().packet.1, b);
        q.enqueue(P(1500, a), ms(0), &mut drops);
        // b keeps the head of the new list until its quantum is spent, then a
        // new flow goes first.
        let mut served_b = 1;
        while q.dequeue(ms(0), &mut drops).unwrap().packet.1 == b {
            served_b += 1;
        }
        assert_eq!(served_b, 16);
        // a is empty now. With b in the old list, a does not leave: it goes
        // to the back of the old list, so its next packet waits for b's turn
        // rather than jumping ahead as a new flow.
        assert_eq!(q.dequeue(ms(0), &mut drops).unwrap().packet.1, b);
        q.enqueue(P(1500, a), ms(0), &mut drops);
        assert_eq!(q.dequeue(ms(0), &mut drops).unwrap().packet.1, b);
        assert!(drops.is_empty());
    }

    #[test]
    fn a_flow_that_empties_rejoins_as_a_new_flow() {
        let mut q = FqCodel::new(FqCodelParams::default(), 1);
        let (a, b) = two_flows(&q);
        let mut drops = Vec::new();
        for _ in 0..50 {
            q.enqueue(P(1500, b), ms(0), &mut drops);
        }
        q.enqueue(P(1500, a), ms(0), &mut drops);
        // Both are new; a's single packet empties it.
        let mut order: Vec<u64> = (0..3).map(|_| q.dequeue(ms(1), &mut drops).unwrap().packet.1).collect();
        assert!(order.contains(&a));
        // a comes back with a new packet: it is new again, so it goes first.
        q.enqueue(P(1500, a), ms(2), &mut drops);
        order.push(q.dequeue(ms(2), &mut drops).unwrap().packet.1);
        assert_eq!(order[3], a);
        let mut left = 0;
        while q.dequeue(ms(3), &mut drops).is_some() {
            left += 1;
        }
        assert_eq!(left + order.len(), 52);
        assert!(q.is_empty() && q.len_bytes() == 0);
        assert!(q.new_flows.is_empty() && q.old_flows.is_empty());
    }

    #[test]
    fn overflow_between_equally_fat_buckets_drops_from_the_lower_bucket() {
        // State is made in arrival order; the choice must still follow the
        // bucket order, as a scan of every bucket would.
        let mut q = FqCodel::new(FqCodelParams { limit: 20, ..FqCodelParams::default() }, 3);
        let (a, b) = two_flows(&q);
        let (high, low) = if q.bucket(a) > q.bucket(b) { (a, b) } else { (b, a) };
        let mut drops = Vec::new();
        for _ in 0..10 {
            q.enqueue(P(1000, high), ms(0), &mut drops);
        }
        for _ in 0..10 {
            q.enqueue(P(1000, low), ms(0), &mut drops);
        }
        assert!(drops.is_empty());
        q.enqueue(P(10, 99), ms(0), &mut drops);
        assert_eq!(drops, vec![P(1000, low); 5]);
    }

    #[test]
    fn bucket_state_is_made_only_for_buckets_that_hold_packets() {
        let mut q = FqCodel::new(FqCodelParams { flows: 65536, ..FqCodelParams::default() }, 1);
        assert_eq!(q.buckets_in_use(), 0);
        let mut drops = Vec::new();
        for t in 0..1000 {
            q.enqueue(P(1500, t % 3), ms(t), &mut drops);
            q.dequeue(ms(t), &mut drops);
        }
        assert_eq!(q.buckets_in_use(), 3);
        assert_eq!(q.bucket_len(q.bucket(0)) + q.bucket_len(q.bucket(1)) + q.bucket_len(q.bucket(2)), q.len_packets());
        assert_eq!(q.bucket_len(70_000), 0);
    }
}
