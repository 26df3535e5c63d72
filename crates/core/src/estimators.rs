//! What a receiver can estimate from RTT samples and from the bytes the
//! application consumes: the building blocks the controllers share.

use crate::time::{Duration, Instant};
use std::collections::VecDeque;

/// Smoothed RTT (an exponentially weighted moving average) and the minimum
/// RTT ever seen, updated on every valid sample (RTAC Alg. 1, "on receiving
/// a packet", lines 1-3).
#[derive(Clone, Debug)]
pub struct RttEwma {
    gain: f64,
    srtt: Option<Duration>,
    min: Option<Duration>,
}

impl RttEwma {
    /// `gain` is the weight of a new sample: RTAC's beta = 1/8 (Table I).
    pub fn new(gain: f64) -> Self {
        RttEwma { gain, srtt: None, min: None }
    }

    /// Folds in one sample. A zero RTT is not a valid measurement and is
    /// ignored (RTAC Alg. 1 line 1).
    pub fn on_sample(&mut self, rtt: Duration) {
        if rtt.is_zero() {
            return;
        }
        // RTAC Alg. 1 line 2: RTT^ <- (1 - beta) RTT^ + beta RTT; the first sample initialises.
        self.srtt = Some(match self.srtt {
            None => rtt,
            Some(s) => Duration::from_nanos(
                ((1.0 - self.gain) * s.as_nanos() as f64 + self.gain * rtt.as_nanos() as f64).round() as u64,
            ),
        });
        // RTAC Alg. 1 line 3: RTT^_m is the all-time minimum (as in TCP Vegas).
        self.min = Some(self.min.map_or(rtt, |m| m.min(rtt)));
    }

    pub fn srtt(&self) -> Option<Duration> {
        self.srtt
    }

    pub fn min(&self) -> Option<Duration> {
        self.min
    }
}

/// The mean of the RTT samples taken within the last RTT, and the minimum of
/// that mean (DRWA Alg. 1 lines 11 and 14-16).
#[derive(Clone, Debug, Default)]
pub struct WindowMeanRtt {
    samples: VecDeque<(Instant, Duration)>,
    sum_ns: u128,
    mean: Option<Duration>,
    min: Option<Duration>,
}

impl WindowMeanRtt {
    pub fn new() -> Self {
        WindowMeanRtt::default()
    }

    /// Adds a sample taken at `now`; a zero RTT is ignored as invalid.
    pub fn on_sample(&mut self, now: Instant, rtt: Duration) {
        if rtt.is_zero() {
            return;
        }
        // "Within the last RTT": the window is the current estimate (the first sample's own RTT at first).
        let window = self.mean.unwrap_or(rtt);
        self.samples.push_back((now, rtt));
        self.sum_ns += rtt.as_nanos() as u128;
        while let Some(&(t, r)) = self.samples.front() {
            if now - t <= window {
                break;
            }
            self.samples.pop_front();
            self.sum_ns -= r.as_nanos() as u128;
        }
        // DRWA Alg. 1 line 11: RTT_est <- average of the samples within the last RTT.
        let mean = Duration::from_nanos((self.sum_ns / self.samples.len() as u128) as u64);
        self.mean = Some(mean);
        // DRWA Alg. 1 lines 14-16: RTT_min <- RTT_est if smaller.
        self.min = Some(self.min.map_or(mean, |m| m.min(mean)));
    }

    pub fn mean(&self) -> Option<Duration> {
        self.mean
    }

    pub fn min(&self) -> Option<Duration> {
        self.min
    }
}

/// Counts the bytes the application consumes in each RTT, the receiver's
/// estimate of the sender's window (RTAC Alg. 1 lines 1-2 and 7-8; DRWA
/// Alg. 1 lines 19-24; Linux Dynamic Right-Sizing counts the same way).
///
/// Periods are half-open: the first consumption seen once an RTT estimate
/// exists only opens the first period, so every period counts the bytes
/// consumed after its start up to and including its end.
#[derive(Clone, Debug, Default)]
pub struct PerRttCounter {
    bytes: u64,
    start: Option<Instant>,
}

impl PerRttCounter {
    pub fn new() -> Self {
        PerRttCounter::default()
    }

    /// Records `bytes` consumed at `now`. Once the period has lasted at least
    /// `rtt`, returns the bytes consumed in it and starts the next one.
    /// Without an RTT estimate it counts nothing and returns nothing.
    /// When the current period started, if one has.
    pub fn period_start(&self) -> Option<Instant> {
        self.start
    }

    /// The bytes consumed so far in the current period.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn on_consumed(&mut self, now: Instant, bytes: u64, rtt: Option<Duration>) -> Option<u64> {
        let rtt = rtt?;
        let Some(start) = self.start else {
            self.start = Some(now);
            return None;
        };
        self.bytes += bytes; // RTAC Alg. 1 line 1: pkts <- pkts + copied data
        if now - start < rtt {
            return None; // RTAC Alg. 1 line 2; DRWA Alg. 1 lines 20-22
        }
        self.start = Some(now); // RTAC Alg. 1 line 8
        Some(std::mem::take(&mut self.bytes)) // RTAC Alg. 1 line 7: pkts <- 0
    }
}

/// The largest of the last `len` values pushed: a windowed max filter over
/// rounds, as BBR keeps its bottleneck bandwidth (Cardwell et al., ACM Queue
/// 2016: "BtlBw = windowed max of delivery rate over ~10 round trips").
/// Memory is bounded by `len`.
#[derive(Clone, Debug)]
pub struct WindowedMax {
    len: usize,
    values: VecDeque<f64>,
}

impl WindowedMax {
    pub fn new(len: usize) -> Self {
        WindowedMax { len: len.max(1), values: VecDeque::new() }
    }

    pub fn push(&mut self, v: f64) {
        if self.values.len() == self.len {
            self.values.pop_front();
        }
        self.values.push_back(v);
    }

    /// The largest value in the window; `None` before the first push.
    pub fn max(&self) -> Option<f64> {
        self.values.iter().copied().reduce(f64::max)
    }
}

/// A window a receiver can advertise: `bytes` capped at `max`
/// (tcp_rmem_max) and floored at two segments (Linux's minimum clamp).
/// A negative or NaN window becomes the floor.
pub fn clamp_rwnd(bytes: f64, mss: u32, max: u64) -> u64 {
    (bytes as u64).min(max).max(2 * mss as u64)
}

/// Test drivers shared by the controllers' tests.
#[cfg(test)]
pub(crate) mod testing {
    use crate::controller::Controller;
    use crate::time::{Duration, Instant};

    /// Drives `c` with a steady flow for `periods` RTTs from `start`: an RTT
    /// sample and an empty consumption at `start` (which opens the first
    /// counting period), then in each RTT `chunks` evenly spaced
    /// consumptions of `bytes_per_rtt / chunks` bytes, each preceded by an
    /// RTT sample of `rtt`. Returns the time of the last consumption.
    pub fn steady<C: Controller>(
        c: &mut C,
        start: Instant,
        rtt: Duration,
        bytes_per_rtt: u64,
        chunks: u64,
        periods: u64,
    ) -> Instant {
        assert_eq!(rtt.as_nanos() % chunks, 0, "chunks must divide the RTT exactly");
        assert_eq!(bytes_per_rtt % chunks, 0, "chunks must divide the bytes exactly");
        let step = rtt.div(chunks);
        let mut now = start;
        c.on_rtt_sample(now, rtt);
        c.on_data_consumed(now, 0);
        for _ in 0..chunks * periods {
            now += step;
            c.on_rtt_sample(now, rtt);
            c.on_data_consumed(now, bytes_per_rtt / chunks);
        }
        now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn ewma_first_sample_initialises_then_moves_by_the_gain() {
        let mut e = RttEwma::new(1.0 / 8.0);
        assert_eq!(e.srtt(), None);
        e.on_sample(ms(80));
        assert_eq!(e.srtt(), Some(ms(80)));
        e.on_sample(ms(160));
        assert_eq!(e.srtt(), Some(ms(90)));
    }

    #[test]
    fn ewma_tracks_the_all_time_minimum_of_raw_samples() {
        let mut e = RttEwma::new(1.0 / 8.0);
        for v in [50, 30, 70, 40] {
            e.on_sample(ms(v));
        }
        assert_eq!(e.min(), Some(ms(30)));
        assert!(e.srtt().unwrap() > ms(30));
    }

    #[test]
    fn zero_rtt_samples_are_ignored() {
        let mut e = RttEwma::new(1.0 / 8.0);
        e.on_sample(Duration::ZERO);
        assert_eq!(e.srtt(), None);
        let mut w = WindowMeanRtt::new();
        w.on_sample(Instant::from_millis(1), Duration::ZERO);
        assert_eq!(w.mean(), None);
    }

    #[test]
    fn window_mean_averages_only_the_samples_of_the_last_rtt() {
        let mut w = WindowMeanRtt::new();
        w.on_sample(Instant::from_millis(0), ms(100));
        w.on_sample(Instant::from_millis(50), ms(200));
        assert_eq!(w.mean(), Some(ms(150)));
        // 160 ms after the first sample it is older than the 150 ms estimate.
        w.on_sample(Instant::from_millis(160), ms(200));
        assert_eq!(w.mean(), Some(ms(200)));
    }

    #[test]
    fn window_mean_min_is_the_minimum_of_the_mean_not_of_raw_samples() {
        let mut w = WindowMeanRtt::new();
        w.on_sample(Instant::from_millis(0), ms(100));
        w.on_sample(Instant::from_millis(10), ms(50));
        assert_eq!(w.min(), Some(ms(75)));
    }

    #[test]
    fn per_rtt_counter_yields_nothing_without_an_rtt() {
        let mut c = PerRttCounter::new();
        for t in 0..10 {
            assert_eq!(c.on_consumed(Instant::from_millis(t * 100), 1000, None), None);
        }
    }

    #[test]
    fn per_rtt_counter_yields_the_bytes_of_each_rtt_and_resets() {
        let mut c = PerRttCounter::new();
        let rtt = Some(ms(100));
        assert_eq!(c.on_consumed(Instant::from_millis(0), 999, rtt), None); // opens the period
        assert_eq!(c.on_consumed(Instant::from_millis(50), 1000, rtt), None);
        assert_eq!(c.on_consumed(Instant::from_millis(100), 500, rtt), Some(1500));
        assert_eq!(c.on_consumed(Instant::from_millis(199), 700, rtt), None);
        assert_eq!(c.on_consumed(Instant::from_millis(200), 100, rtt), Some(800));
    }

    #[test]
    fn per_rtt_counter_period_follows_the_current_rtt() {
        let mut c = PerRttCounter::new();
        c.on_consumed(Instant::from_millis(0), 1, Some(ms(100)));
        assert_eq!(c.on_consumed(Instant::from_millis(40), 10, Some(ms(100))), None);
        assert_eq!(c.on_consumed(Instant::from_millis(40), 10, Some(ms(40))), Some(20));
    }

    #[test]
    fn windowed_max_forgets_values_older_than_its_length() {
        let mut m = WindowedMax::new(3);
        assert_eq!(m.max(), None);
        for v in [5.0, 1.0, 2.0] {
            m.push(v);
        }
        assert_eq!(m.max(), Some(5.0));
        m.push(1.5); // 5.0 falls out of the window
        assert_eq!(m.max(), Some(2.0));
    }

    #[test]
    fn clamp_rwnd_caps_at_max_and_floors_at_two_segments() {
        assert_eq!(clamp_rwnd(1e9, 1448, 65_536), 65_536);
        assert_eq!(clamp_rwnd(10.0, 1448, 65_536), 2896);
        assert_eq!(clamp_rwnd(f64::NAN, 1448, 65_536), 2896);
        assert_eq!(clamp_rwnd(-5.0, 1448, 65_536), 2896);
        assert_eq!(clamp_rwnd(30_000.7, 1448, 65_536), 30_000);
    }
}
