//! PIE (Proportional Integral controller Enhanced), RFC 8033: a drop
//! probability updated every `tupdate` from the queueing delay, applied to
//! arrivals.
//!
//! The queueing delay is the sojourn time of the last departed packet
//! (timestamps, RFC 8033 §4.3 / Linux's default since 5.7), zero once the
//! queue has drained. There is no timer: every enqueue and dequeue first
//! runs the periodic update for each `tupdate` boundary passed since the last
//! one. The queue only changes at those calls, so this gives the same result
//! as a timer would.

use super::{Dequeued, Qdisc};
use crate::Packet;
use rtac_core::rng::Rng;
use rtac_core::{Duration, Instant};
use std::collections::VecDeque;

/// RFC 8033 §4.2 / Appendix A: QDELAY_REF = 15 ms.
pub const DEFAULT_TARGET: Duration = Duration::from_millis(15);
/// RFC 8033 §4.2 / Appendix A: T_UPDATE = 15 ms.
pub const DEFAULT_TUPDATE: Duration = Duration::from_millis(15);
/// RFC 8033 §4.2: alpha = 0.125 Hz.
pub const DEFAULT_ALPHA: f64 = 0.125;
/// RFC 8033 §4.2: beta = 1.25 Hz.
pub const DEFAULT_BETA: f64 = 1.25;
/// RFC 8033 §4.4: MAX_BURST = 150 ms.
pub const DEFAULT_MAX_BURST: Duration = Duration::from_millis(150);
/// Linux sch_pie's default limit.
pub const DEFAULT_LIMIT: usize = 1000;
/// RFC 8033 Appendix A `MEAN_PKTSIZE` (Linux: the MTU).
const MEAN_PKTSIZE: u64 = 1500;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieParams {
    /// QDELAY_REF, the latency target.
    pub target: Duration,
    /// T_UPDATE, the period of the probability update.
    pub tupdate: Duration,
    /// Weight of the delay error, per second.
    pub alpha: f64,
    /// Weight of the delay trend, per second.
    pub beta: f64,
    /// MAX_BURST, the burst allowance granted when the queue is calm.
    pub max_burst: Duration,
    /// Hard limit in packets.
    pub limit: usize,
    /// RFC 8033 §5.4 derandomisation (Linux always does it).
    pub derandomize: bool,
}

impl Default for PieParams {
    fn default() -> Self {
        PieParams {
            target: DEFAULT_TARGET,
            tupdate: DEFAULT_TUPDATE,
            alpha: DEFAULT_ALPHA,
            beta: DEFAULT_BETA,
            max_burst: DEFAULT_MAX_BURST,
            limit: DEFAULT_LIMIT,
            derandomize: true,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Pie<P> {
    params: PieParams,
    q: VecDeque<(Instant, P)>,
    bytes: u64,
    rng: Rng,
    /// `drop_prob_`.
    drop_prob: f64,
    /// `accu_prob_` (§5.4).
    accu_prob: f64,
    /// `current_qdelay`: the last departure's sojourn (0 if it emptied the
    /// queue).
    qdelay: Duration,
    /// `qdelay_old_`: `qdelay` at the previous update.
    qdelay_old: Duration,
    /// `burst_allowance_`.
    burst_allowance: Duration,
    /// The next update boundary; `None` until the first call.
    next_update: Option<Instant>,
}

impl<P: Packet> Pie<P> {
    /// Panics if `params.tupdate` is zero (QueueSpec rejects it).
    pub fn new(params: PieParams, rng: Rng) -> Self {
        assert!(!params.tupdate.is_zero(), "PIE needs a tupdate above 0");
        Pie {
            params,
            q: VecDeque::new(),
            bytes: 0,
            rng,
            drop_prob: 0.0,
            accu_prob: 0.0,
            qdelay: Duration::ZERO,
            qdelay_old: Duration::ZERO,
            burst_allowance: Duration::ZERO,
            next_update: None,
        }
    }
    pub fn params(&self) -> &PieParams {
        &self.params
    }
    /// The current drop probability.
    pub fn drop_probability(&self) -> f64 {
        self.drop_prob
    }
    /// The queueing delay PIE currently works from.
    pub fn qdelay(&self) -> Duration {
        self.qdelay
    }
    pub fn burst_allowance(&self) -> Duration {
        self.burst_allowance
    }

    /// Runs the periodic update for every `tupdate` boundary in `(last, now]`.
    fn catch_up(&mut self, now: Instant) {
        let tupdate = self.params.tupdate;
        let mut next = *self.next_update.get_or_insert(now + tupdate);
        while now >= next {
            let before = (self.drop_prob, self.qdelay_old, self.burst_allowance);
            self.calculate_drop_prob();
            next += tupdate;
            if before == (self.drop_prob, self.qdelay_old, self.burst_allowance) {
                // A fixed point: the update depends only on this state and on
                // qdelay, which cannot change before the next call, so the
                // remaining boundaries would change nothing. Skip them.
                if now >= next {
                    let skipped = (now - next).as_nanos() / tupdate.as_nanos() + 1;
                    next += tupdate.mul(skipped);
                }
                break;
            }
        }
        self.next_update = Some(next);
    }

    /// RFC 8033 §4.2 (Appendix A/B `calculate_drop_prob`), with the §5.5 cap.
    fn calculate_drop_prob(&mut self) {
        let qdelay = self.qdelay.as_secs_f64();
        let qdelay_old = self.qdelay_old.as_secs_f64();
        let target = self.params.target.as_secs_f64();
        let mut p = self.params.alpha * (qdelay - target) + self.params.beta * (qdelay - qdelay_old);
        // §4.2 auto-tuning: scale the step by how large the probability is,
        // so that it moves gently when it is small.
        let prob = self.drop_prob;
        p /= if prob < 0.000_001 {
            2048.0
        } else if prob < 0.000_01 {
            512.0
        } else if prob < 0.000_1 {
            128.0
        } else if prob < 0.001 {
            32.0
        } else if prob < 0.01 {
            8.0
        } else if prob < 0.1 {
            2.0
        } else {
            1.0
        };
        // §5.5 cap drop adjustment: above 10%, rise by at most 2% per update.
        if prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        self.drop_prob += p;
        // §4.2: decay exponentially when congestion is gone
        // (0.98; "1 - 1/64 is sufficient").
        if self.qdelay.is_zero() && self.qdelay_old.is_zero() {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        self.qdelay_old = self.qdelay;
        // §4.4: the burst allowance runs down by T_UPDATE per update.
        self.burst_allowance = self.burst_allowance.saturating_sub(self.params.tupdate);
    }

    /// RFC 8033 §4.1 `drop_early`, with §5.4 derandomisation.
    fn drop_early(&mut self) -> bool {
        // Safeguard against bursts: the queue is not congested.
        if self.qdelay_old < self.params.target.div(2) && self.drop_prob < 0.2 {
            return false;
        }
        // Fewer than two packets queued (like RED's min_th).
        if self.bytes < 2 * MEAN_PKTSIZE {
            return false;
        }
        if self.params.derandomize {
            if self.drop_prob == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += self.drop_prob;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                return true;
            }
        }
        self.rng.next_f64() < self.drop_prob
    }
}

impl<P: Packet> Qdisc<P> for Pie<P> {
    /// RFC 8033 Appendix A `enqueue`.
    fn enqueue(&mut self, pkt: P, now: Instant, drops: &mut Vec<P>) {
        self.catch_up(now);
        let half = self.params.target.div(2);
        // §4.4: a calm queue regains its full burst allowance.
        if self.drop_prob == 0.0 && self.qdelay < half && self.qdelay_old < half {
            self.burst_allowance = self.params.max_burst;
        }
        let full = self.q.len() >= self.params.limit;
        if full || (self.burst_allowance.is_zero() && self.drop_early()) {
            self.accu_prob = 0.0;
            drops.push(pkt);
            return;
        }
        self.bytes += pkt.size() as u64;
        self.q.push_back((now, pkt));
    }

    /// RFC 8033 Appendix A `deque`: the departing packet's sojourn becomes
    /// the current queueing delay (zero if the queue is now empty, as Linux).
    fn dequeue(&mut self, now: Instant, _drops: &mut Vec<P>) -> Option<Dequeued<P>> {
        self.catch_up(now);
        let (t, packet) = self.q.pop_front()?;
        self.bytes -= packet.size() as u64;
        let sojourn = now - t;
        self.qdelay = if self.q.is_empty() { Duration::ZERO } else { sojourn };
        Some(Dequeued { packet, sojourn })
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

    fn pie() -> Pie<P> {
        Pie::new(PieParams::default(), Rng::new(1))
    }

    /// A queue whose departures always waited `delay_ms`: one arrival and one
    /// departure per millisecond over `[from, to)`, with a standing backlog.
    fn standing(q: &mut Pie<P>, delay_ms: u64, from: u64, to: u64) -> usize {
        let mut drops = Vec::new();
        let mut dropped = 0;
        for t in from..to {
            q.enqueue(P(1500, t), ms(t), &mut drops);
            dropped += drops.len();
            drops.clear();
            if t >= from + delay_ms {
                q.dequeue(ms(t), &mut drops);
            }
        }
        dropped
    }

    #[test]
    fn probability_rises_while_delay_exceeds_target() {
        let mut q = Pie::new(PieParams { derandomize: false, ..PieParams::default() }, Rng::new(1));
        standing(&mut q, 60, 0, 1000);
        let p1 = q.drop_probability();
        assert!(p1 > 0.0);
        standing(&mut q, 60, 1000, 2000);
        assert!(q.drop_probability() > p1, "{p1} -> {}", q.drop_probability());
    }

    #[test]
    fn probability_stays_zero_below_target() {
        let mut q = pie();
        assert_eq!(standing(&mut q, 10, 0, 5000), 0);
        assert_eq!(q.drop_probability(), 0.0);
    }

    #[test]
    fn autotuning_divides_the_step_by_the_probability_range() {
        // qdelay 30 ms, qdelay_old 15 ms: raw step 0.125*0.015 + 1.25*0.015.
        let raw: f64 = 0.125 * 0.015 + 1.25 * 0.015;
        for (prob, div) in [
            (0.0, 2048.0),
            (0.000_005, 512.0),
            (0.000_05, 128.0),
            (0.000_5, 32.0),
            (0.005, 8.0),
            (0.05, 2.0),
            (0.5, 1.0),
        ] {
            let mut q = pie();
            q.drop_prob = prob;
            q.qdelay = Duration::from_millis(30);
            q.qdelay_old = Duration::from_millis(15);
            q.calculate_drop_prob();
            let step = q.drop_probability() - prob;
            let want = (raw / div).min(if prob >= 0.1 { 0.02 } else { 1.0 });
            assert!((step - want).abs() < 1e-12, "prob {prob}: step {step} want {want}");
        }
    }

    #[test]
    fn increase_is_capped_at_two_percent_above_ten_percent() {
        let mut q = pie();
        q.drop_prob = 0.3;
        q.qdelay = Duration::from_millis(400);
        q.calculate_drop_prob();
        assert!((q.drop_probability() - 0.32).abs() < 1e-12);
    }

    #[test]
    fn probability_decays_when_the_queue_stays_empty() {
        let mut q = pie();
        q.drop_prob = 0.5;
        q.calculate_drop_prob();
        // p = -alpha*target = -0.001875, then *0.98.
        assert!((q.drop_probability() - (0.5 - 0.001875) * 0.98).abs() < 1e-12);
        // And a queue whose delay stays zero reaches exactly zero.
        let mut drops = Vec::new();
        q.enqueue(P(1500, 0), ms(0), &mut drops);
        q.enqueue(P(1500, 1), ms(10_000), &mut drops);
        assert_eq!(q.drop_probability(), 0.0);
    }

    #[test]
    fn lazy_update_runs_once_per_elapsed_period() {
        let mut lazy = pie();
        let mut drops = Vec::new();
        lazy.enqueue(P(1500, 0), ms(0), &mut drops); // next update at 15 ms
        lazy.qdelay = Duration::from_millis(200);
        let mut eager = lazy.clone();
        // 10 boundaries (15, 30, .., 150 ms) pass before the call at 151 ms.
        lazy.dequeue(ms(151), &mut drops);
        for _ in 0..10 {
            eager.calculate_drop_prob();
        }
        assert_eq!(lazy.drop_prob, eager.drop_prob);
        assert_eq!(lazy.next_update, Some(ms(165)));
    }

    #[test]
    fn skipping_a_fixed_point_keeps_the_update_grid() {
        let mut q = pie();
        let mut drops = Vec::new();
        q.enqueue(P(1500, 0), ms(0), &mut drops);
        q.dequeue(ms(1), &mut drops);
        // Idle for a long time: a fixed point is reached and skipped.
        q.enqueue(P(1500, 0), ms(1_000_007), &mut drops);
        assert_eq!(q.next_update, Some(ms(1_000_020)));
        assert_eq!(q.drop_probability(), 0.0);
    }

    #[test]
    fn burst_allowance_protects_bursts_then_runs_out() {
        let mut q = Pie::new(PieParams { derandomize: false, ..PieParams::default() }, Rng::new(1));
        let mut drops = Vec::new();
        q.enqueue(P(1500, 0), ms(0), &mut drops);
        assert_eq!(q.burst_allowance(), DEFAULT_MAX_BURST);
        q.drop_prob = 1.0;
        q.qdelay_old = Duration::from_millis(100);
        q.qdelay = Duration::from_millis(100);
        for i in 0..10 {
            q.enqueue(P(1500, i), ms(1), &mut drops);
        }
        assert!(drops.is_empty(), "allowance left: no early drop");
        // 150 ms of allowance is gone after 10 updates (at 15..150 ms).
        q.enqueue(P(1500, 99), ms(150), &mut drops);
        assert_eq!(q.burst_allowance(), Duration::ZERO);
        assert_eq!(drops.len(), 1);
    }

    #[test]
    fn no_early_drop_with_fewer_than_two_packets_queued() {
        let mut q = Pie::new(PieParams { derandomize: false, ..PieParams::default() }, Rng::new(1));
        let mut drops = Vec::new();
        q.enqueue(P(1500, 0), ms(0), &mut drops);
        q.burst_allowance = Duration::ZERO;
        q.drop_prob = 1.0;
        q.qdelay_old = Duration::from_millis(100);
        q.enqueue(P(1500, 1), ms(1), &mut drops);
        assert!(drops.is_empty());
        q.enqueue(P(1500, 2), ms(1), &mut drops);
        assert_eq!(drops, vec![P(1500, 2)]);
    }

    #[test]
    fn derandomization_bounds_the_gap_between_drops() {
        let params = PieParams { tupdate: Duration::from_secs(1_000_000), ..PieParams::default() };
        let mut q = Pie::new(params, Rng::new(5));
        let mut drops = Vec::new();
        q.enqueue(P(1500, 0), ms(0), &mut drops);
        q.enqueue(P(1500, 1), ms(0), &mut drops);
        q.burst_allowance = Duration::ZERO;
        q.drop_prob = 0.1;
        q.qdelay_old = Duration::from_millis(100);
        let mut gaps = Vec::new();
        let mut since = 0;
        for i in 0..100_000 {
            q.enqueue(P(1500, i), ms(1), &mut drops);
            since += 1;
            if drops.is_empty() {
                q.dequeue(ms(1), &mut drops);
            } else {
                drops.clear();
                gaps.push(since);
                since = 0;
            }
        }
        // accu_prob must reach 0.85 (9 arrivals at 0.1) and forces a drop at
        // 8.5 (85 or 86 arrivals, depending on rounding).
        let (lo, hi) = (*gaps[1..].iter().min().unwrap(), *gaps[1..].iter().max().unwrap());
        assert!(lo >= 9 && hi <= 86, "{lo}..{hi}");
    }

    #[test]
    fn packet_limit_tail_drops() {
        let mut q = Pie::new(PieParams { limit: 2, ..PieParams::default() }, Rng::new(1));
        let mut drops = Vec::new();
        for i in 0..3 {
            q.enqueue(P(700, i), ms(0), &mut drops);
        }
        assert_eq!(drops, vec![P(700, 2)]);
        assert_eq!((q.len_packets(), q.len_bytes()), (2, 1400));
    }

    #[test]
    fn qdelay_is_the_last_sojourn_and_zero_once_drained() {
        let mut q = pie();
        let mut drops = Vec::new();
        q.enqueue(P(1500, 0), ms(0), &mut drops);
        q.enqueue(P(1500, 1), ms(2), &mut drops);
        assert_eq!(q.dequeue(ms(7), &mut drops).unwrap().sojourn, Duration::from_millis(7));
        assert_eq!(q.qdelay(), Duration::from_millis(7));
        assert_eq!(q.dequeue(ms(9), &mut drops).unwrap().sojourn, Duration::from_millis(7));
        assert_eq!(q.qdelay(), Duration::ZERO);
    }
}
