//! TCP Vegas (Brakmo & Peterson, "TCP Vegas: End to End Congestion
//! Avoidance on a Global Internet", IEEE JSAC 13(8), 1995), following Linux
//! `tcp_vegas.c`: once per RTT, compare the expected rate cwnd/baseRTT with
//! the actual rate cwnd/RTT (RTT the minimum sample of the last RTT, to
//! filter delayed ACKs; baseRTT the minimum ever) and move cwnd by one
//! segment to keep between alpha and beta segments queued. Unlike Linux,
//! and as in the paper (section 3.3), slow start doubles cwnd only every
//! other RTT so that the RTT in between measures a fixed window.

use super::reno::Reno;
use super::{Ack, CaState, CongestionControl, Window};
use rtac_core::{Duration, Instant};

/// Brakmo & Peterson section 3.2; Linux module parameters `alpha`, `beta`:
/// the bounds, in segments, of the data Vegas keeps queued.
pub const ALPHA: u32 = 2;
pub const BETA: u32 = 4;
/// Brakmo & Peterson section 3.3; Linux `gamma`: slow start ends when more
/// than this many segments are queued.
pub const GAMMA: u32 = 1;
/// Linux `tcp_vegas_cong_avoid`: with two RTT samples or fewer in an RTT
/// they are probably both delayed ACKs; behave as Reno.
const MIN_SAMPLES: u32 = 3;

#[derive(Clone, Debug)]
pub struct Vegas {
    /// Minimum RTT ever (Linux `baseRTT`), the propagation delay.
    base_rtt: Option<Duration>,
    /// Minimum RTT in the current RTT (Linux `minRTT`) and the count of
    /// samples (Linux `cntRTT`).
    min_rtt: Option<Duration>,
    cnt_rtt: u32,
    /// The RTT ends when this segment is ACKed (Linux `beg_snd_nxt`).
    beg_snd_nxt: u32,
    /// Linux `doing_vegas_now`: off outside the Open state.
    doing_vegas_now: bool,
    /// Re-enable on the next ACK, which knows `snd_nxt`.
    enable_pending: bool,
    /// Whether slow start may grow in the current RTT (every other RTT).
    ss_grow: bool,
}

impl Default for Vegas {
    /// Linux `tcp_vegas_init`.
    fn default() -> Self {
        Vegas {
            base_rtt: None,
            min_rtt: None,
            cnt_rtt: 0,
            beg_snd_nxt: 0,
            doing_vegas_now: true,
            enable_pending: false,
            ss_grow: true,
        }
    }
}

impl Vegas {
    pub fn base_rtt(&self) -> Option<Duration> {
        self.base_rtt
    }

    /// Linux `vegas_enable`.
    fn enable(&mut self, snd_nxt: u32) {
        self.doing_vegas_now = true;
        self.beg_snd_nxt = snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt = None;
        self.enable_pending = false;
    }

    /// The Vegas "Diff" in segments (Linux integer arithmetic):
    /// cwnd * (RTT - baseRTT) / baseRTT = (expected - actual) * baseRTT.
    pub fn diff(cwnd: u32, rtt: Duration, base: Duration) -> u32 {
        let base = base.as_nanos().max(1);
        (cwnd as u64 * (rtt.as_nanos().saturating_sub(base)) / base) as u32
    }

    /// The window that achieves the actual rate: cwnd * baseRTT / RTT.
    fn target_cwnd(cwnd: u32, rtt: Duration, base: Duration) -> u32 {
        (cwnd as u64 * base.as_nanos() / rtt.as_nanos().max(1)) as u32
    }
}

impl CongestionControl for Vegas {
    /// Linux `tcp_vegas_pkts_acked`.
    fn on_rtt_sample(&mut self, _w: &mut Window, ack: &Ack) {
        if self.enable_pending {
            self.enable(ack.snd_nxt);
        }
        let Some(rtt) = ack.rtt else { return };
        // Linux: never allow a zero RTT.
        let vrtt = rtt + Duration::from_micros(1);
        self.base_rtt = Some(self.base_rtt.map_or(vrtt, |b| b.min(vrtt)));
        self.min_rtt = Some(self.min_rtt.map_or(vrtt, |m| m.min(vrtt)));
        self.cnt_rtt += 1;
    }

    /// Linux `tcp_vegas_cong_avoid`.
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        if self.enable_pending {
            self.enable(ack.snd_nxt);
        }
        if !self.doing_vegas_now {
            Reno.on_ack(w, ack);
            return;
        }
        if ack.snd_una > self.beg_snd_nxt {
            // The once-per-RTT adjustment.
            self.beg_snd_nxt = ack.snd_nxt;
            self.ss_grow = !self.ss_grow;
            match (self.min_rtt, self.base_rtt) {
                (Some(rtt), Some(base)) if self.cnt_rtt >= MIN_SAMPLES => {
                    let diff = Vegas::diff(w.cwnd, rtt, base);
                    if diff > GAMMA && w.in_slow_start() {
                        // Going too fast: leave slow start at the window
                        // that matches the actual rate, plus one for
                        // truncation (Linux).
                        w.cwnd = w.cwnd.min(Vegas::target_cwnd(w.cwnd, rtt, base) + 1);
                        w.ssthresh = w.ssthresh.min(w.cwnd);
                    } else if w.in_slow_start() {
                        if self.ss_grow {
                            w.slow_start(ack.acked);
                        }
                    } else if diff > BETA {
                        // Brakmo & Peterson section 3.2: too much queued.
                        w.cwnd -= 1;
                        w.ssthresh = w.ssthresh.min(w.cwnd);
                    } else if diff < ALPHA {
                        // Too little queued: speed up.
                        w.cwnd += 1;
                    }
                    w.cwnd = w.cwnd.max(2);
                    // Linux tcp_current_ssthresh outside a cwnd reduction.
                    w.ssthresh = w.ssthresh.max((w.cwnd >> 1) + (w.cwnd >> 2));
                }
                _ => Reno.on_ack(w, ack),
            }
            self.cnt_rtt = 0;
            self.min_rtt = None;
        } else if w.in_slow_start() && self.ss_grow {
            w.slow_start(ack.acked);
        }
    }

    /// Linux uses `tcp_reno_ssthresh` for Vegas.
    fn ssthresh(&mut self, w: &Window, _now: Instant) -> u32 {
        (w.cwnd / 2).max(2)
    }

    /// Linux `tcp_vegas_state`: Vegas runs only in the Open state.
    fn on_state(&mut self, _w: &mut Window, state: CaState) {
        if state == CaState::Open {
            self.enable_pending = true;
        } else {
            self.doing_vegas_now = false;
            self.enable_pending = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testbed::Bottleneck;
    use super::*;

    #[test]
    fn diff_is_the_number_of_segments_queued() {
        let base = Duration::from_millis(100);
        // 104 segments in flight over a 100-segment pipe: RTT 104 ms.
        assert_eq!(Vegas::diff(104, Duration::from_millis(104), base), 4);
        assert_eq!(Vegas::diff(100, base, base), 0);
        assert_eq!(Vegas::target_cwnd(104, Duration::from_millis(104), base), 100);
    }

    #[test]
    fn congestion_avoidance_holds_the_queue_between_alpha_and_beta_segments() {
        // 1000 segments/s, 100 ms: a 100-segment pipe.
        let mut link = Bottleneck::new(1000.0, Duration::from_millis(100));
        let mut v = Vegas::default();
        let mut w = Window { cwnd: 60, ssthresh: 30, cwnd_cnt: 0 };
        let steps = link.run(&mut v, &mut w, Instant::ZERO, Instant::from_millis(30_000));
        let late: Vec<_> = steps.iter().filter(|s| s.now > Instant::from_millis(15_000)).collect();
        let (qmin, qmax) = late.iter().fold((f64::MAX, 0.0f64), |(a, b), s| (a.min(s.queue), b.max(s.queue)));
        let (cmin, cmax) = late.iter().fold((u32::MAX, 0), |(a, b), s| (a.min(s.cwnd), b.max(s.cwnd)));
        assert!(qmin >= ALPHA as f64 - 1.0 && qmax <= BETA as f64 + 1.0, "queue {qmin:.1}..{qmax:.1}");
        assert!(cmin >= 101 && cmax <= 105, "cwnd {cmin}..{cmax}: BDP + alpha..beta");
    }

    #[test]
    fn too_much_queue_shrinks_the_window_one_segment_per_rtt() {
        let mut link = Bottleneck::new(1000.0, Duration::from_millis(100));
        let mut v = Vegas::default();
        let mut w = Window { cwnd: 130, ssthresh: 30, cwnd_cnt: 0 };
        let steps = link.run(&mut v, &mut w, Instant::ZERO, Instant::from_millis(3_000));
        // (time, change) of every cwnd change after the first two RTTs (the
        // first has too few samples, the second sees the initial burst's
        // empty-queue RTT).
        let mut changes = Vec::new();
        for p in steps.windows(2) {
            if p[1].cwnd != p[0].cwnd && p[1].now > Instant::from_millis(300) {
                changes.push((p[1].now, p[1].cwnd as i64 - p[0].cwnd as i64, p[1].rtt));
            }
        }
        assert!(changes.len() >= 15, "{changes:?}");
        for c in changes.windows(2) {
            assert_eq!(c[1].1, -1, "down one segment at a time: {changes:?}");
            // One adjustment per RTT (the RTT shrinks with the queue).
            let gap = c[1].0 - c[0].0;
            assert!(gap >= c[1].2 - Duration::from_millis(2) && gap <= c[0].2 + Duration::from_millis(2), "{gap}");
        }
    }

    #[test]
    fn slow_start_doubles_every_other_rtt_and_stops_at_the_actual_rate() {
        let mut link = Bottleneck::new(1000.0, Duration::from_millis(100));
        let mut v = Vegas::default();
        let mut w = Window::INITIAL;
        let steps = link.run(&mut v, &mut w, Instant::ZERO, Instant::from_millis(2_500));
        // Windows held for (nearly) a whole RTT: the rounds between doublings.
        let mut plateaus = Vec::new();
        let mut start = 0;
        for i in 1..=steps.len() {
            if i == steps.len() || steps[i].cwnd != steps[start].cwnd {
                let held = steps[i - 1].now - steps[start].now;
                if held >= Duration::from_millis(80) && steps[start].cwnd < 100 {
                    plateaus.push(steps[start].cwnd);
                }
                start = i;
            }
        }
        assert!(plateaus.len() >= 3, "hold rounds {plateaus:?}");
        for p in plateaus.windows(2) {
            assert_eq!(p[1], 2 * p[0], "doubles across a growth round: {plateaus:?}");
        }
        // The minimum RTT of a hold round comes from the first segments of
        // the growth round before it, which found the queue empty: the
        // queue is seen one round late, after one more doubling, and cwnd
        // is then cut to target + 1 = cwnd * baseRTT / RTT + 1.
        assert!(!w.in_slow_start(), "a queue above gamma ends slow start");
        let peak = steps.iter().map(|s| s.cwnd).max().unwrap();
        assert!(peak <= 4 * 100, "at most one doubling past twice the BDP: {peak}");
        assert!((100..=2 * 100 + 1).contains(&w.cwnd), "cwnd {}", w.cwnd);
    }

    #[test]
    fn too_few_rtt_samples_fall_back_to_reno() {
        let mut v = Vegas::default();
        let mut w = Window { cwnd: 50, ssthresh: 10, cwnd_cnt: 49 };
        // One ACK per RTT: two samples at most, so Reno's additive increase.
        let a = Ack { acked: 1, rtt: Some(Duration::from_millis(100)), snd_una: 1, snd_nxt: 50, ..Ack::default() };
        v.on_rtt_sample(&mut w, &a);
        v.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, 51, "Reno growth despite no queue information");
    }

    #[test]
    fn recovery_disables_vegas_until_the_state_is_open_again() {
        let mut v = Vegas::default();
        let mut w = Window { cwnd: 50, ssthresh: 10, cwnd_cnt: 0 };
        v.on_state(&mut w, CaState::Recovery);
        assert!(!v.doing_vegas_now);
        v.on_state(&mut w, CaState::Open);
        let a = Ack { acked: 1, rtt: Some(Duration::from_millis(50)), snd_una: 7, snd_nxt: 60, ..Ack::default() };
        v.on_rtt_sample(&mut w, &a);
        assert!(v.doing_vegas_now);
        assert_eq!(v.beg_snd_nxt, 60, "the next RTT starts at snd_nxt");
    }
}
