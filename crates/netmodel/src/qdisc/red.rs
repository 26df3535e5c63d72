//! RED (Random Early Detection), Floyd & Jacobson, "Random Early Detection
//! Gateways for Congestion Avoidance", IEEE/ACM ToN 1(4), 1993 (cited as
//! F&J below), as RTAC section II describes it: the drop probability grows
//! linearly from 0 at `min_th` to `max_p` at `max_th` of an EWMA of the queue
//! length in packets; every arrival is dropped above `max_th`. Optional
//! "gentle" mode (Floyd, "Recommendation on using the gentle variant of
//! RED", 2000). Decisions are made on arrival; a hard packet limit backs
//! them up.

use super::{Dequeued, Qdisc};
use crate::Packet;
use rtac_core::rng::Rng;
use rtac_core::{Bandwidth, Duration, Instant};
use std::collections::VecDeque;

/// F&J §6 recommend w_q >= 0.001; 0.002 is the value of their simulations.
pub const DEFAULT_W_Q: f64 = 0.002;
/// F&J's simulations use max_p = 1/50 .. 1/10; RTAC uses 0.1.
pub const DEFAULT_MAX_P: f64 = 0.1;
pub const DEFAULT_LIMIT: usize = 1000;
/// tc-red's default `bandwidth`, used only to age the average over idle
/// periods.
pub const DEFAULT_BANDWIDTH: Bandwidth = Bandwidth::from_mbps(10);
/// The "typical packet" whose transmission time measures idle periods.
const TYPICAL_PACKET_BYTES: u64 = 1500;

/// RED's configuration. Thresholds are in packets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    /// Weight of the EWMA average queue length.
    pub w_q: f64,
    /// Hard limit in packets (tail drop when the queue is full).
    pub limit: usize,
    /// Gentle RED: between `max_th` and `2*max_th` the probability rises
    /// linearly from `max_p` to 1 instead of jumping to 1.
    pub gentle: bool,
    /// The link rate, to count how many packets could have been sent during
    /// an idle period (F&J §4 "m = f(time - q_time)").
    pub bandwidth: Bandwidth,
}

impl RedParams {
    /// Parameters with the given thresholds and the defaults for the rest.
    pub fn new(min_th: f64, max_th: f64) -> Self {
        RedParams {
            min_th,
            max_th,
            max_p: DEFAULT_MAX_P,
            w_q: DEFAULT_W_Q,
            limit: DEFAULT_LIMIT,
            gentle: false,
            bandwidth: DEFAULT_BANDWIDTH,
        }
    }

    /// F&J §4 `p_b` for average queue `avg` (before the count correction),
    /// with Floyd's gentle extension; `None` means "drop every arrival".
    pub fn base_probability(&self, avg: f64) -> Option<f64> {
        if avg < self.min_th {
            Some(0.0)
        } else if avg < self.max_th {
            Some(self.max_p * (avg - self.min_th) / (self.max_th - self.min_th))
        } else if self.gentle && avg < 2.0 * self.max_th {
            Some(self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th)
        } else {
            None
        }
    }
}

#[derive(Clone, Debug)]
pub struct Red<P> {
    params: RedParams,
    q: VecDeque<(Instant, P)>,
    bytes: u64,
    /// F&J `avg`.
    avg: f64,
    /// F&J `count`: arrivals since the last drop (not counting the current
    /// one) while avg was at or above `min_th`; reset below `min_th`.
    count: u64,
    /// F&J `q_time`: when the queue last became empty.
    q_time: Instant,
    /// F&J `s`: transmission time of a typical packet.
    s: Duration,
    rng: Rng,
}

impl<P: Packet> Red<P> {
    pub fn new(params: RedParams, rng: Rng) -> Self {
        let s = params.bandwidth.serialization(TYPICAL_PACKET_BYTES);
        Red { params, q: VecDeque::new(), bytes: 0, avg: 0.0, count: 0, q_time: Instant::ZERO, s, rng }
    }
    pub fn params(&self) -> &RedParams {
        &self.params
    }
    /// The current average queue length, in packets.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// F&J §4, "for each packet arrival: calculate the new average queue
    /// size avg".
    fn update_avg(&mut self, now: Instant) {
        let w = self.params.w_q;
        if !self.q.is_empty() {
            self.avg = (1.0 - w) * self.avg + w * self.q.len() as f64;
        } else {
            // Idle: age the average as if `m` empty-queue samples had been
            // taken, one per typical transmission time.
            let m = (now - self.q_time).as_nanos() as f64 / self.s.as_nanos().max(1) as f64;
            self.avg *= (1.0 - w).powf(m);
        }
    }

    /// F&J §4 drop decision, with the count correction
    /// `p_a = p_b / (1 - count * p_b)` that makes the number of arrivals
    /// between drops uniform on `1..=1/p_b` (F&J §7). `count` is the number
    /// of arrivals since the last drop *before* this one, as §7 derives it;
    /// Fig. 2 as printed increments it first, which would give p_a = 1 to
    /// every arrival once p_b >= 1/2 (as happens in the gentle region).
    fn early_drop(&mut self) -> bool {
        match self.params.base_probability(self.avg) {
            Some(p_b) if p_b > 0.0 => {
                let denom = 1.0 - self.count as f64 * p_b;
                let p_a = if denom <= 0.0 { 1.0 } else { (p_b / denom).min(1.0) };
                if self.rng.next_f64() < p_a {
                    self.count = 0;
                    true
                } else {
                    self.count += 1;
                    false
                }
            }
            Some(_) => {
                self.count = 0;
                false
            }
            None => {
                self.count = 0;
                true
            }
        }
    }
}

impl<P: Packet> Qdisc<P> for Red<P> {
    fn enqueue(&mut self, pkt: P, now: Instant, drops: &mut Vec<P>) {
        self.update_avg(now);
        if self.early_drop() || self.q.len() >= self.params.limit {
            drops.push(pkt);
            return;
        }
        self.bytes += pkt.size() as u64;
        self.q.push_back((now, pkt));
    }

    fn dequeue(&mut self, now: Instant, _drops: &mut Vec<P>) -> Option<Dequeued<P>> {
        let (t, packet) = self.q.pop_front()?;
        self.bytes -= packet.size() as u64;
        if self.q.is_empty() {
            // F&J §4: "when queue becomes empty: q_time <- time".
            self.q_time = now;
        }
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

    fn instant_avg(min: f64, max: f64) -> RedParams {
        RedParams { w_q: 1.0, ..RedParams::new(min, max) }
    }

    /// Holds the queue at `n` packets before each arrival (w_q = 1 makes
    /// avg the instantaneous length) and returns which arrivals were dropped.
    fn steady(params: RedParams, n: usize, arrivals: usize, seed: u64) -> Vec<bool> {
        let mut red = Red::new(params, Rng::new(seed));
        let mut drops = Vec::new();
        // Fill behind RED's back: the fill itself would cross the thresholds.
        for i in 0..n {
            red.q.push_back((Instant::ZERO, P(1500, i as u64)));
            red.bytes += 1500;
        }
        (0..arrivals)
            .map(|_| {
                red.enqueue(P(1500, 0), Instant::ZERO, &mut drops);
                let dropped = !drops.is_empty();
                if dropped {
                    drops.clear();
                } else {
                    red.dequeue(Instant::ZERO, &mut drops);
                }
                assert_eq!(red.len_packets(), n);
                dropped
            })
            .collect()
    }

    #[test]
    fn below_min_th_nothing_is_dropped() {
        let drops = steady(instant_avg(5.0, 15.0), 4, 10_000, 1);
        assert!(drops.iter().all(|d| !d));
    }

    #[test]
    fn above_max_th_every_arrival_is_dropped() {
        let drops = steady(instant_avg(5.0, 15.0), 15, 1000, 1);
        assert!(drops.iter().all(|d| *d));
    }

    #[test]
    fn base_probability_is_linear_between_the_thresholds() {
        let p = RedParams::new(5.0, 15.0);
        assert_eq!(p.base_probability(4.99), Some(0.0));
        assert_eq!(p.base_probability(5.0), Some(0.0));
        assert!((p.base_probability(10.0).unwrap() - 0.05).abs() < 1e-12);
        assert!((p.base_probability(14.0).unwrap() - 0.09).abs() < 1e-12);
        assert_eq!(p.base_probability(15.0), None);
    }

    #[test]
    fn gentle_mode_ramps_from_max_p_to_one_up_to_twice_max_th() {
        let p = RedParams { gentle: true, ..RedParams::new(5.0, 15.0) };
        assert!((p.base_probability(15.0).unwrap() - 0.1).abs() < 1e-12);
        assert!((p.base_probability(22.5).unwrap() - 0.55).abs() < 1e-12);
        assert_eq!(p.base_probability(30.0), None);
        // At avg 22, p_b = 0.52: the gap is 1 (p = 0.52) or 2, so 1/1.48 of
        // the arrivals are dropped.
        let drops = steady(RedParams { w_q: 1.0, ..p }, 22, 20_000, 3);
        let rate = drops.iter().filter(|d| **d).count() as f64 / drops.len() as f64;
        assert!((rate - 1.0 / 1.48).abs() < 0.01, "{rate}");
    }

    #[test]
    fn count_correction_spaces_drops_uniformly() {
        // avg = 10: p_b = 0.05. With the correction the gap between drops is
        // uniform on 1..=1/p_b = 20 (F&J §7), mean 10.5; without it the gap
        // would be geometric and often exceed 20.
        let drops = steady(instant_avg(5.0, 15.0), 10, 200_000, 7);
        let at: Vec<usize> = drops.iter().enumerate().filter(|(_, d)| **d).map(|(i, _)| i).collect();
        let gaps: Vec<usize> = at.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.iter().all(|g| (1..=20).contains(g)), "max gap {:?}", gaps.iter().max());
        let mean = gaps.iter().sum::<usize>() as f64 / gaps.len() as f64;
        assert!((mean - 10.5).abs() < 0.2, "{mean}");
    }

    #[test]
    fn average_is_an_ewma_with_weight_w_q() {
        let mut red = Red::new(RedParams::new(500.0, 900.0), Rng::new(1));
        let mut drops = Vec::new();
        let mut expected = 0.0;
        for i in 0..200 {
            // The arrival sees `i` packets queued (the first one an empty,
            // just-started queue, which leaves avg at 0).
            if i > 0 {
                expected = 0.998 * expected + 0.002 * i as f64;
            }
            red.enqueue(P(1500, 0), Instant::ZERO, &mut drops);
            assert!((red.avg() - expected).abs() < 1e-9, "{i}: {} vs {expected}", red.avg());
        }
        assert!(drops.is_empty());
    }

    #[test]
    fn idle_period_ages_the_average() {
        let params = RedParams { w_q: 0.1, bandwidth: Bandwidth::from_mbps(12), ..RedParams::new(50.0, 90.0) };
        let mut red = Red::new(params, Rng::new(1));
        let mut drops = Vec::new();
        for _ in 0..30 {
            red.enqueue(P(1500, 0), Instant::ZERO, &mut drops);
        }
        while red.dequeue(Instant::from_millis(10), &mut drops).is_some() {}
        let before = red.avg();
        assert!(before > 1.0);
        // 1500 bytes at 12 Mbit/s take 1 ms: 20 ms idle = 20 lost samples.
        red.enqueue(P(1500, 0), Instant::from_millis(30), &mut drops);
        let want = before * 0.9f64.powi(20);
        assert!((red.avg() - want).abs() < 1e-9, "{} vs {want}", red.avg());
    }

    #[test]
    fn hard_limit_tail_drops_even_below_min_th() {
        let mut red = Red::new(RedParams { limit: 3, ..RedParams::new(5.0, 15.0) }, Rng::new(1));
        let mut drops = Vec::new();
        for i in 0..4 {
            red.enqueue(P(100, i), Instant::ZERO, &mut drops);
        }
        assert_eq!(drops, vec![P(100, 3)]);
        assert_eq!((red.len_packets(), red.len_bytes()), (3, 300));
    }

    #[test]
    fn same_seed_gives_the_same_drops() {
        let a = steady(instant_avg(5.0, 15.0), 12, 5000, 42);
        let b = steady(instant_avg(5.0, 15.0), 12, 5000, 42);
        let c = steady(instant_avg(5.0, 15.0), 12, 5000, 43);
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
