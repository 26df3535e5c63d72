//! CoDel (Controlled Delay), RFC 8289, dropping at the head on dequeue.
//!
//! The state machine (`CodelVars`) is separate from the FIFO so that
//! FQ-CoDel (RFC 8290) runs the very same code on each of its flow queues.

use super::{Dequeued, Qdisc};
use crate::Packet;
use rtac_core::{Duration, Instant};
use std::collections::VecDeque;

/// RFC 8289 §4.3: TARGET = 5 ms.
pub const DEFAULT_TARGET: Duration = Duration::from_millis(5);
/// RFC 8289 §4.2: INTERVAL = 100 ms.
pub const DEFAULT_INTERVAL: Duration = Duration::from_millis(100);
/// Linux sch_codel's default limit (the RFC leaves the buffer size open).
pub const DEFAULT_LIMIT: usize = 1000;
/// RFC 8289 §5.6 `maxpacket`: CoDel never drops when no more than one
/// MTU-sized packet would be left queued (Linux: `params->mtu`). Sizes here
/// are IP bytes, so one MTU is 1500.
pub const MTU_BYTES: u64 = 1500;

/// CoDel's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodelParams {
    pub target: Duration,
    pub interval: Duration,
    /// Hard limit in packets; an arrival finding the queue full is dropped.
    pub limit: usize,
}

impl Default for CodelParams {
    fn default() -> Self {
        CodelParams { target: DEFAULT_TARGET, interval: DEFAULT_INTERVAL, limit: DEFAULT_LIMIT }
    }
}

/// The per-queue CoDel state of RFC 8289 §5.2 (`codel_queue_t` instance
/// variables). `first_above_time == None` stands for the RFC's 0.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct CodelVars {
    first_above_time: Option<Instant>,
    drop_next: Instant,
    count: u32,
    lastcount: u32,
    dropping: bool,
}

/// RFC 8289 §5.6 `dodequeue_result`.
struct DoDequeue<P> {
    pkt: Option<(Instant, P)>,
    ok_to_drop: bool,
}

/// RFC 8289 §3.3 / §5.6 `control_law`: the next drop is `interval/sqrt(count)`
/// after `t`. f64 square root is correctly rounded, so this is the same on
/// every platform.
fn control_law(t: Instant, interval: Duration, count: u32) -> Instant {
    let ns = interval.as_nanos() as f64 / (count.max(1) as f64).sqrt();
    t + Duration::from_nanos(ns.round() as u64)
}

impl CodelVars {
    pub(crate) fn count(&self) -> u32 {
        self.count
    }
    pub(crate) fn dropping(&self) -> bool {
        self.dropping
    }

    /// RFC 8289 §5.6 `dodequeue`. `pop` removes the head packet and returns
    /// it with its enqueue time and the bytes still queued after it left
    /// (for FQ-CoDel, the bytes of that flow, as Linux does).
    fn dodequeue<P>(
        &mut self,
        target: Duration,
        interval: Duration,
        now: Instant,
        pop: &mut impl FnMut() -> Option<(Instant, P, u64)>,
    ) -> DoDequeue<P> {
        let Some((t, p, backlog)) = pop() else {
            // Queue empty: we can't be above TARGET.
            self.first_above_time = None;
            return DoDequeue { pkt: None, ok_to_drop: false };
        };
        let sojourn = now - t;
        let mut ok_to_drop = false;
        if sojourn < target || backlog <= MTU_BYTES {
            // Went below: stay below for at least INTERVAL.
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                // Just went above from below: if still above at
                // first_above_time, it will be OK to drop.
                None => self.first_above_time = Some(now + interval),
                Some(fat) if now >= fat => ok_to_drop = true,
                Some(_) => {}
            }
        }
        DoDequeue { pkt: Some((t, p)), ok_to_drop }
    }

    /// RFC 8289 §5.5 `dequeue`: returns the packet to send (with its enqueue
    /// time); the packets CoDel drops on the way are pushed to `drops`.
    pub(crate) fn dequeue<P>(
        &mut self,
        target: Duration,
        interval: Duration,
        now: Instant,
        mut pop: impl FnMut() -> Option<(Instant, P, u64)>,
        drops: &mut Vec<P>,
    ) -> Option<(Instant, P)> {
        let mut r = self.dodequeue(target, interval, now, &mut pop);
        if self.dropping {
            if !r.ok_to_drop {
                // Sojourn time below TARGET: leave the dropping state.
                self.dropping = false;
            }
            // Time for the next drop(s): a large backlog may need several
            // drops now, hence the loop.
            while self.dropping && now >= self.drop_next {
                if let Some((_, p)) = r.pkt.take() {
                    drops.push(p);
                }
                self.count = self.count.saturating_add(1);
                r = self.dodequeue(target, interval, now, &mut pop);
                if !r.ok_to_drop {
                    self.dropping = false;
                } else {
                    self.drop_next = control_law(self.drop_next, interval, self.count);
                }
            }
        } else if r.ok_to_drop {
            // Sojourn above TARGET for a whole INTERVAL: enter dropping state.
            if let Some((_, p)) = r.pkt.take() {
                drops.push(p);
            }
            r = self.dodequeue(target, interval, now, &mut pop);
            self.dropping = true;
            // RFC 8289 §5.5 re-entry rule (the Linux variant the RFC quotes):
            // if we were dropping recently, resume at the drop rate that
            // controlled the queue last time (count - lastcount) instead of
            // starting over at 1. "Recently" is measured from drop_next; a
            // drop_next still in the future counts as recent, as in Linux's
            // signed time comparison.
            let delta = self.count.saturating_sub(self.lastcount);
            self.count = if delta > 1 && now < self.drop_next + interval.mul(16) { delta } else { 1 };
            self.drop_next = control_law(now, interval, self.count);
            self.lastcount = self.count;
        }
        r.pkt
    }
}

/// A single CoDel queue (Linux `codel`).
#[derive(Clone, Debug)]
pub struct Codel<P> {
    params: CodelParams,
    q: VecDeque<(Instant, P)>,
    bytes: u64,
    vars: CodelVars,
}

impl<P: Packet> Codel<P> {
    pub fn new(params: CodelParams) -> Self {
        Codel { params, q: VecDeque::new(), bytes: 0, vars: CodelVars::default() }
    }
    pub fn params(&self) -> &CodelParams {
        &self.params
    }
    /// Drops in the current dropping episode (RFC 8289 `count`).
    pub fn count(&self) -> u32 {
        self.vars.count()
    }
    /// Whether CoDel is in its dropping state.
    pub fn is_dropping(&self) -> bool {
        self.vars.dropping()
    }
}

impl<P: Packet> Qdisc<P> for Codel<P> {
    fn enqueue(&mut self, pkt: P, now: Instant, drops: &mut Vec<P>) {
        // RFC 8289 §5.4: timestamp on arrival. The limit is tail drop.
        if self.q.len() < self.params.limit {
            self.bytes += pkt.size() as u64;
            self.q.push_back((now, pkt));
        } else {
            drops.push(pkt);
        }
    }

    fn dequeue(&mut self, now: Instant, drops: &mut Vec<P>) -> Option<Dequeued<P>> {
        let Codel { params, q, bytes, vars } = self;
        let pop = || {
            let (t, p) = q.pop_front()?;
            *bytes -= p.size() as u64;
            Some((t, p, *bytes))
        };
        let (t, packet) = vars.dequeue(params.target, params.interval, now, pop, drops)?;
        Some(Dequeued { packet, sojourn: now - t })
    }

    fn len_packets(&self) -> usize {
        self.q.len()
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

    /// A queue holding `n` full packets that all arrived at time zero.
    fn backlogged(n: usize) -> Codel<P> {
        let mut q = Codel::new(CodelParams { limit: 100_000, ..CodelParams::default() });
        let mut drops = Vec::new();
        for i in 0..n {
            q.enqueue(P(1500, i as u64), Instant::ZERO, &mut drops);
        }
        assert!(drops.is_empty());
        q
    }

    /// Dequeues once per millisecond over `[from, to)`; returns the times at
    /// which CoDel dropped.
    fn serve(q: &mut Codel<P>, from: u64, to: u64) -> Vec<u64> {
        let mut times = Vec::new();
        let mut drops = Vec::new();
        for t in from..to {
            q.dequeue(ms(t), &mut drops);
            times.extend(drops.drain(..).map(|_| t));
        }
        times
    }

    #[test]
    fn no_drops_while_sojourn_stays_below_target() {
        let mut q = Codel::new(CodelParams::default());
        let mut drops = Vec::new();
        for t in 0..10_000u64 {
            // Three packets queued, each waiting 4 ms (< 5 ms target).
            q.enqueue(P(1500, 0), ms(t), &mut drops);
            if t >= 4 {
                let d = q.dequeue(ms(t), &mut drops).unwrap();
                assert_eq!(d.sojourn, Duration::from_millis(4));
            }
        }
        assert!(drops.is_empty());
        assert!(!q.is_dropping());
    }

    #[test]
    fn first_drop_waits_one_full_interval_above_target() {
        let mut q = backlogged(1000);
        // Above target from the first dequeue at 10 ms, so the first drop is
        // at 10 + 100 ms, not before.
        let drops = serve(&mut q, 10, 111);
        assert_eq!(drops, vec![110]);
        assert!(q.is_dropping());
        assert_eq!(q.count(), 1);
    }

    #[test]
    fn drop_spacing_follows_interval_over_sqrt_count() {
        let mut q = backlogged(1000);
        let drops = serve(&mut q, 10, 400);
        // drop_next: 110 + 100/sqrt(1) = 210, + 100/sqrt(2) = 280.71,
        // + 100/sqrt(3) = 338.45, + 100/sqrt(4) = 388.45; we dequeue on whole ms.
        assert_eq!(drops, vec![110, 210, 281, 339, 389]);
        assert_eq!(q.count(), 5);
    }

    #[test]
    fn large_backlog_drops_several_packets_in_one_dequeue() {
        let mut q = backlogged(1000);
        let mut drops = Vec::new();
        q.dequeue(ms(10), &mut drops);
        q.dequeue(ms(110), &mut drops); // enters dropping state
        assert_eq!(drops.len(), 1);
        // One dequeue long after drop_next catches up with every drop due.
        drops.clear();
        q.dequeue(ms(500), &mut drops);
        assert!(drops.len() > 3, "{}", drops.len());
        assert_eq!(q.count() as usize, 1 + drops.len());
    }

    #[test]
    fn leaves_dropping_state_when_sojourn_falls_below_target() {
        let mut q = backlogged(30);
        let mut drops = Vec::new();
        q.dequeue(ms(10), &mut drops);
        q.dequeue(ms(110), &mut drops);
        assert!(q.is_dropping());
        // Drain, then a fresh packet with a short sojourn.
        while q.dequeue(ms(111), &mut drops).is_some() {}
        for i in 0..5 {
            q.enqueue(P(1500, i), ms(200), &mut drops);
        }
        drops.clear();
        q.dequeue(ms(201), &mut drops);
        assert!(!q.is_dropping());
        assert!(drops.is_empty());
    }

    #[test]
    fn never_drops_when_at_most_one_mtu_would_remain() {
        let mut q = Codel::new(CodelParams::default());
        let mut drops = Vec::new();
        // Two packets, served once every 200 ms: huge sojourn, but after each
        // dequeue at most one MTU is left.
        for t in (0..100u64).map(|k| k * 200) {
            q.enqueue(P(1500, 0), ms(t), &mut drops);
            q.enqueue(P(1500, 1), ms(t), &mut drops);
            q.dequeue(ms(t + 150), &mut drops);
            q.dequeue(ms(t + 199), &mut drops);
        }
        assert!(drops.is_empty());
    }

    /// Enters the dropping state, runs `k` drops, then leaves it by draining.
    fn episode(q: &mut Codel<P>, start: u64, k: usize) -> u64 {
        let mut drops = Vec::new();
        let mut total = 0;
        for i in 0..2000 {
            q.enqueue(P(1500, i), ms(start), &mut drops);
        }
        let mut t = start + 10;
        while total < k {
            q.dequeue(ms(t), &mut drops);
            total += drops.len();
            drops.clear();
            t += 1;
        }
        while q.dequeue(ms(t), &mut drops).is_some() {}
        assert!(!q.is_dropping());
        t
    }

    #[test]
    fn reentry_soon_after_resumes_with_the_last_episode_drop_count() {
        let mut q = backlogged(0);
        let end = episode(&mut q, 0, 6);
        assert_eq!(q.count(), 6);
        // lastcount was 1 at entry, so delta = 5; re-entering well within
        // 16 intervals of drop_next resumes at count = 5.
        episode(&mut q, end + 100, 1);
        assert_eq!(q.count(), 5);
    }

    #[test]
    fn reentry_after_sixteen_intervals_restarts_count_at_one() {
        let mut q = backlogged(0);
        let end = episode(&mut q, 0, 6);
        episode(&mut q, end + 2000, 1);
        assert_eq!(q.count(), 1);
    }

    #[test]
    fn packet_limit_tail_drops_the_arrival() {
        let mut q = Codel::new(CodelParams { limit: 2, ..CodelParams::default() });
        let mut drops = Vec::new();
        for i in 0..3 {
            q.enqueue(P(1000, i), Instant::ZERO, &mut drops);
        }
        assert_eq!(drops, vec![P(1000, 2)]);
        assert_eq!((q.len_packets(), q.len_bytes()), (2, 2000));
    }

    #[test]
    fn byte_count_stays_exact_through_head_drops() {
        let mut q = backlogged(500);
        let mut drops = Vec::new();
        let mut dropped = 0;
        for t in 10..1000u64 {
            q.dequeue(ms(t), &mut drops);
            dropped += drops.len();
            drops.clear();
            assert_eq!(q.len_bytes(), q.len_packets() as u64 * 1500);
        }
        assert!(dropped > 0);
    }
}
