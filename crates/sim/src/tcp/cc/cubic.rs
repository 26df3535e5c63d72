//! CUBIC (RFC 9438) with HyStart, following Linux `tcp_cubic.c`: fast
//! convergence and the Reno-friendly region on, windows in segments.

use super::{Ack, CongestionControl, Window};
use rtac_core::{Duration, Instant};

/// RFC 9438 section 4.6: multiplicative decrease factor (Linux 717/1024).
const BETA: f64 = 717.0 / 1024.0;
/// RFC 9438 section 5: C = 0.4 segments/s^3.
const C: f64 = 0.4;
/// Linux `hystart_low_window`: HyStart only acts from 16 segments on.
const HYSTART_LOW_WINDOW: u32 = 16;
/// Linux `hystart_ack_delta_us`: ACKs closer than this form a train.
const HYSTART_ACK_DELTA: Duration = Duration::from_millis(2);
/// Linux `HYSTART_MIN_SAMPLES`: RTT samples per round for delay detection.
const HYSTART_MIN_SAMPLES: u32 = 8;
/// Linux `hystart_ack_delay`: min(1 ms, 4 GSO frames at the pacing rate);
/// at the rates simulated here the 1 ms bound applies.
const HYSTART_ACK_DELAY: Duration = Duration::from_millis(1);

#[derive(Clone, Debug, Default)]
pub struct Cubic {
    /// W_max (RFC 9438 section 4.6), segments; 0 before the first loss.
    last_max_cwnd: f64,
    /// Start of the current congestion-avoidance epoch.
    epoch_start: Option<Instant>,
    /// RFC 9438 eq. (2): time to reach W_max again, seconds.
    k: f64,
    /// The cubic curve's plateau: W_max, or cwnd at epoch start if larger.
    origin: f64,
    /// Segments ACKed in this epoch, for the Reno-friendly estimate.
    ack_cnt: u32,
    /// W_est (RFC 9438 section 4.3): the window Reno would have.
    tcp_cwnd: u32,
    /// Minimum RTT seen (Linux `delay_min`).
    delay_min: Option<Duration>,
    hystart: HyStart,
}

#[derive(Clone, Debug, Default)]
struct HyStart {
    found: bool,
    /// The round ends when this sequence number is ACKed.
    end_seq: u32,
    round_start: Instant,
    last_ack: Instant,
    curr_rtt: Option<Duration>,
    sample_cnt: u32,
}

impl Cubic {
    /// Linux `bictcp_update`: how many ACKed segments per segment of growth.
    fn update(&mut self, cwnd: u32, now: Instant, acked: u32) -> u32 {
        let cwnd_f = cwnd as f64;
        self.ack_cnt += acked;
        let epoch_start = match self.epoch_start {
            Some(t) => t,
            None => {
                self.epoch_start = Some(now);
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd_f {
                    self.k = 0.0;
                    self.origin = cwnd_f;
                } else {
                    // RFC 9438 eq. (2): K = cbrt((W_max - cwnd_epoch) / C).
                    self.k = ((self.last_max_cwnd - cwnd_f) / C).cbrt();
                    self.origin = self.last_max_cwnd;
                }
                now
            }
        };
        // Linux evaluates the curve one minimum RTT ahead (target for the
        // window one RTT from now).
        let t = (now - epoch_start + self.delay_min.unwrap_or(Duration::ZERO)).as_secs_f64();
        // RFC 9438 eq. (1): W_cubic(t) = C (t - K)^3 + W_max.
        let target = self.origin + C * (t - self.k).powi(3);
        let mut cnt = if target > cwnd_f {
            (cwnd_f / (target - cwnd_f)).max(1.0) as u32
        } else {
            100 * cwnd // grow very slowly at the plateau
        };
        if self.last_max_cwnd == 0.0 && cnt > 20 {
            cnt = 20; // Linux: at least 5 % growth per RTT before the first loss
        }
        // RFC 9438 section 4.3, Reno-friendly region: W_est grows by
        // 3(1-beta)/(1+beta) segments per RTT; Linux counts it as one segment
        // per cwnd*8*(1-beta)/(3(1+beta))... i.e. per `delta` ACKs below.
        let beta_scale = 8.0 * (1.0 + BETA) / 3.0 / (1.0 - BETA);
        let delta = ((cwnd_f * beta_scale) as u32 >> 3).max(1);
        while self.ack_cnt > delta {
            self.ack_cnt -= delta;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > cwnd {
            let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
            cnt = cnt.min(max_cnt);
        }
        cnt.max(2)
    }

    /// Linux `hystart_update`.
    fn hystart_update(&mut self, w: &mut Window, ack: &Ack, rtt: Duration) {
        let delay_min = self.delay_min.unwrap_or(rtt);
        let h = &mut self.hystart;
        if ack.snd_una > h.end_seq {
            // A new round: Linux `bictcp_hystart_reset`.
            h.round_start = ack.now;
            h.last_ack = ack.now;
            h.end_seq = ack.snd_nxt;
            h.curr_rtt = None;
            h.sample_cnt = 0;
        }
        // Ack-train detection: a train of closely spaced ACKs longer than
        // half the minimum RTT means the pipe is full (unpaced sender).
        if ack.now - h.last_ack <= HYSTART_ACK_DELTA {
            h.last_ack = ack.now;
            let threshold = (delay_min + HYSTART_ACK_DELAY).div(2);
            if ack.now - h.round_start > threshold {
                h.found = true;
                w.ssthresh = w.cwnd;
            }
        }
        // Delay detection: the round's minimum RTT rose by more than
        // clamp(delay_min/8, 4 ms, 16 ms).
        h.curr_rtt = Some(h.curr_rtt.map_or(rtt, |c| c.min(rtt)));
        if h.sample_cnt < HYSTART_MIN_SAMPLES {
            h.sample_cnt += 1;
        } else {
            let thresh = delay_min.div(8).clamp(Duration::from_millis(4), Duration::from_millis(16));
            if h.curr_rtt.is_some_and(|c| c > delay_min + thresh) {
                h.found = true;
                w.ssthresh = w.cwnd;
            }
        }
    }
}

impl CongestionControl for Cubic {
    fn on_rtt_sample(&mut self, w: &mut Window, ack: &Ack) {
        let Some(rtt) = ack.rtt else { return };
        // Linux discards delay samples within a second of a loss epoch start.
        if self.epoch_start.is_some_and(|t| ack.now - t < Duration::from_secs(1)) {
            return;
        }
        let rtt = rtt.max(Duration::from_micros(1));
        if self.delay_min.is_none_or(|d| d > rtt) {
            self.delay_min = Some(rtt);
        }
        if !self.hystart.found && w.in_slow_start() && w.cwnd >= HYSTART_LOW_WINDOW {
            self.hystart_update(w, ack, rtt);
        }
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        let mut acked = ack.acked;
        if w.in_slow_start() {
            acked = w.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        let cnt = self.update(w.cwnd, ack.now, acked);
        w.additive_increase(cnt, acked);
    }

    fn ssthresh(&mut self, w: &Window, _now: Instant) -> u32 {
        self.epoch_start = None;
        let cwnd = w.cwnd as f64;
        // RFC 9438 section 4.7 fast convergence: release bandwidth to newer
        // flows by remembering a lower W_max when the window shrank.
        self.last_max_cwnd = if cwnd < self.last_max_cwnd { cwnd * (1.0 + BETA) / 2.0 } else { cwnd };
        // RFC 9438 eq. (5): ssthresh = cwnd * beta_cubic.
        ((cwnd * BETA) as u32).max(2)
    }

    fn on_timeout(&mut self, _now: Instant) {
        // Linux `bictcp_reset` and `bictcp_hystart_reset` on TCP_CA_Loss.
        let delay_min = self.delay_min;
        *self = Cubic { delay_min, ..Cubic::default() };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(now: Instant, acked: u32) -> Ack {
        Ack { now, acked, ..Ack::default() }
    }

    /// Drives congestion avoidance with a steady ACK clock (one ACK per
    /// segment, a window's worth per RTT) and returns cwnd after each RTT.
    fn run_rounds(c: &mut Cubic, w: &mut Window, start: Instant, rtt: Duration, rounds: usize) -> Vec<(f64, u32)> {
        let mut out = Vec::new();
        let mut now = start;
        for _ in 0..rounds {
            let n = w.cwnd;
            let step = rtt.div(n as u64);
            for _ in 0..n {
                now += step;
                c.on_ack(w, &ack(now, 1));
            }
            out.push(((now - start).as_secs_f64(), w.cwnd));
        }
        out
    }

    #[test]
    fn window_after_a_loss_follows_the_rfc_9438_cubic_function() {
        let mut c = Cubic { delay_min: Some(Duration::from_millis(100)), ..Cubic::default() };
        let mut w = Window { cwnd: 1000, ssthresh: u32::MAX, cwnd_cnt: 0 };
        let t0 = Instant::from_millis(10_000);
        w.ssthresh = c.ssthresh(&w, t0);
        w.cwnd = w.ssthresh;
        assert_eq!(w.cwnd, 700, "beta_cubic = 0.7");
        let rtt = Duration::from_millis(100);
        let k = ((1000.0 - 700.0) / C).cbrt();
        assert!((k - 9.086).abs() < 0.01, "K = {k}");
        for (t, cwnd) in run_rounds(&mut c, &mut w, t0, rtt, 150) {
            // W(t) = C (t-K)^3 + W_max, with Linux's one-RTT look-ahead; the
            // Reno-friendly window stays below it for these values.
            let expected = C * (t + 0.1 - k).powi(3) + 1000.0;
            let err = (cwnd as f64 - expected).abs() / expected;
            assert!(err < 0.02, "t={t:.1}s cwnd={cwnd} expected={expected:.0}");
        }
    }

    #[test]
    fn window_is_concave_below_w_max_and_convex_above() {
        let mut c = Cubic { delay_min: Some(Duration::from_millis(50)), ..Cubic::default() };
        let mut w = Window { cwnd: 500, ssthresh: u32::MAX, cwnd_cnt: 0 };
        let t0 = Instant::from_millis(1_000);
        w.ssthresh = c.ssthresh(&w, t0);
        w.cwnd = w.ssthresh;
        let series = run_rounds(&mut c, &mut w, t0, Duration::from_millis(50), 300);
        let growth: Vec<i64> = series.windows(2).map(|p| p[1].1 as i64 - p[0].1 as i64).collect();
        let plateau = series.iter().position(|&(_, w)| w >= 500).expect("reaches W_max");
        let early: i64 = growth[..20].iter().sum();
        let near: i64 = growth[plateau.saturating_sub(20)..plateau].iter().sum();
        let late: i64 = growth[growth.len() - 20..].iter().sum();
        assert!(early > near, "concave: growth slows approaching W_max ({early} vs {near})");
        assert!(late > near, "convex: growth speeds up beyond W_max ({late} vs {near})");
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_the_window_shrank() {
        let mut c = Cubic::default();
        let t = Instant::ZERO;
        c.ssthresh(&Window { cwnd: 1000, ssthresh: 0, cwnd_cnt: 0 }, t);
        assert_eq!(c.last_max_cwnd, 1000.0);
        c.ssthresh(&Window { cwnd: 800, ssthresh: 0, cwnd_cnt: 0 }, t);
        assert!((c.last_max_cwnd - 800.0 * (1.0 + BETA) / 2.0).abs() < 1e-9);
    }

    #[test]
    fn hystart_leaves_slow_start_when_the_round_minimum_rtt_rises() {
        let mut c = Cubic::default();
        let mut w = Window { cwnd: 32, ssthresh: u32::MAX, cwnd_cnt: 0 };
        let base = Duration::from_millis(40);
        let mut now = Instant::from_millis(1000);
        // ACKs 5 ms apart: no ack train, so only the delay rule can fire.
        let sample = |c: &mut Cubic, w: &mut Window, now: Instant, rtt: Duration, una: u32| {
            let a = Ack { now, acked: 1, rtt: Some(rtt), snd_una: una, snd_nxt: una + 100, ..Ack::default() };
            c.on_rtt_sample(w, &a);
        };
        for i in 0..20 {
            now += Duration::from_millis(5);
            sample(&mut c, &mut w, now, base, 1 + i);
        }
        assert!(w.in_slow_start(), "no exit at the base RTT");
        // A new round whose RTT samples are base + 10 ms (> 5 ms threshold).
        for i in 0..10 {
            now += Duration::from_millis(5);
            sample(&mut c, &mut w, now, base + Duration::from_millis(10), 200 + i);
        }
        assert!(!w.in_slow_start(), "delay increase ends slow start");
        assert_eq!(w.ssthresh, 32);
    }

    #[test]
    fn hystart_ack_train_ends_slow_start_after_half_the_minimum_rtt() {
        let mut c = Cubic::default();
        let mut w = Window { cwnd: 64, ssthresh: u32::MAX, cwnd_cnt: 0 };
        let rtt = Duration::from_millis(40);
        let mut now = Instant::from_millis(1000);
        // ACKs 0.5 ms apart at a constant RTT: a train that lasts > 20.5 ms.
        for i in 0..60 {
            now += Duration::from_micros(500);
            let a = Ack { now, acked: 1, rtt: Some(rtt), snd_una: 1 + i, snd_nxt: 1000, ..Ack::default() };
            c.on_rtt_sample(&mut w, &a);
            if i < 40 {
                assert!(w.in_slow_start(), "still in slow start after {i} ACKs");
            }
        }
        assert!(!w.in_slow_start());
    }
}
