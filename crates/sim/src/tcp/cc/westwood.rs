//! TCP Westwood+ (Mascolo, Casetti, Gerla, Sanadidi & Wang, "TCP Westwood:
//! Bandwidth Estimation for Enhanced Transport over Wireless Links",
//! MobiCom 2001; Grieco & Mascolo, "Performance evaluation and comparison of
//! Westwood+, New Reno, and Vegas TCP congestion control", CCR 34(2), 2004),
//! following Linux `tcp_westwood.c`: Reno growth; the data delivered in
//! each RTT-long interval gives a bandwidth sample, low-pass filtered twice;
//! after congestion ssthresh = BWE * RTTmin, in segments.

use super::reno::Reno;
use super::{Ack, CaState, CongestionControl, Window};
use rtac_core::{Duration, Instant};

/// Linux `TCP_WESTWOOD_RTT_MIN`: bandwidth samples span at least 50 ms.
const MIN_INTERVAL: Duration = Duration::from_millis(50);
/// Linux `TCP_WESTWOOD_INIT_RTT`: no sample before the first RTT is known.
const INIT_RTT: Duration = Duration::from_secs(20);

#[derive(Clone, Debug)]
pub struct Westwood {
    /// Linux `bw_ns_est` and `bw_est`, in segments per second.
    bw_ns_est: f64,
    bw_est: f64,
    /// Start of the current sampling interval (Linux `rtt_win_sx`) and the
    /// segments delivered in it (Linux `bk`).
    win_start: Option<Instant>,
    bk: u64,
    /// The latest RTT sample (Linux `rtt`) and the minimum (`rtt_min`).
    rtt: Duration,
    rtt_min: Duration,
    /// Linux `reset_rtt_min`: the next sample replaces RTTmin.
    reset_rtt_min: bool,
    state: CaState,
}

impl Default for Westwood {
    /// Linux `tcp_westwood_init`.
    fn default() -> Self {
        Westwood {
            bw_ns_est: 0.0,
            bw_est: 0.0,
            win_start: None,
            bk: 0,
            rtt: INIT_RTT,
            rtt_min: INIT_RTT,
            reset_rtt_min: true,
            state: CaState::Open,
        }
    }
}

impl Westwood {
    /// The bandwidth estimate BWE, segments per second.
    pub fn bandwidth(&self) -> f64 {
        self.bw_est
    }
    pub fn rtt_min(&self) -> Duration {
        self.rtt_min
    }

    /// Linux `westwood_filter`: two first-order low-pass filters of gain
    /// 1/8, seeded with the first sample.
    fn filter(&mut self, delta: Duration) {
        let sample = self.bk as f64 / delta.as_secs_f64();
        if self.bw_ns_est == 0.0 && self.bw_est == 0.0 {
            self.bw_ns_est = sample;
            self.bw_est = sample;
        } else {
            self.bw_ns_est = (7.0 * self.bw_ns_est + sample) / 8.0;
            self.bw_est = (7.0 * self.bw_est + self.bw_ns_est) / 8.0;
        }
    }

    /// Linux `westwood_update_window`: close the interval once it spans
    /// max(RTT, 50 ms).
    fn update_window(&mut self, now: Instant) {
        let start = *self.win_start.get_or_insert(now);
        let delta = now - start;
        if !self.rtt.is_zero() && delta > self.rtt.max(MIN_INTERVAL) {
            self.filter(delta);
            self.bk = 0;
            self.win_start = Some(now);
        }
    }

    /// Linux `tcp_westwood_bw_rttmin`: BWE * RTTmin in segments, at least 2.
    pub fn bw_rttmin(&self) -> u32 {
        ((self.bw_est * self.rtt_min.as_secs_f64()) as u32).max(2)
    }
}

impl CongestionControl for Westwood {
    /// Linux `tcp_westwood_pkts_acked` and `tcp_westwood_ack` (every ACK
    /// that delivers data carries an RTT sample here). Linux counts bytes
    /// cumulatively ACKed plus one MSS per duplicate ACK
    /// (`westwood_acked_count`); the sender reports the segments delivered,
    /// SACKed included, which that count approximates.
    fn on_rtt_sample(&mut self, _w: &mut Window, ack: &Ack) {
        if let Some(rtt) = ack.rtt {
            self.rtt = rtt;
        }
        self.update_window(ack.now);
        self.bk += ack.delivered as u64;
        // Linux `update_rtt_min`.
        if self.reset_rtt_min {
            self.rtt_min = self.rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt_min.min(self.rtt);
        }
    }

    /// Reno growth (Linux uses `tcp_reno_cong_avoid`).
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        Reno.on_ack(w, ack);
    }

    /// Linux `tcp_reno_ssthresh` while recovery runs: PRR keeps the pipe
    /// at half the window, so the estimate goes on measuring the path.
    fn ssthresh(&mut self, w: &Window, _now: Instant) -> u32 {
        (w.cwnd / 2).max(2)
    }

    /// Mascolo et al. section 2, ssthresh = BWE * RTTmin / segment size,
    /// where Linux applies it: at the end of fast recovery
    /// (`CA_EVENT_COMPLETE_CWR`: cwnd = ssthresh = BWE * RTTmin with the
    /// estimate of that moment) and at a timeout (`CA_EVENT_LOSS`:
    /// ssthresh = BWE * RTTmin, RTTmin taken afresh from the next sample).
    fn on_state(&mut self, w: &mut Window, state: CaState) {
        match state {
            CaState::Open if self.state == CaState::Recovery => {
                w.ssthresh = self.bw_rttmin();
                w.cwnd = w.ssthresh;
            }
            CaState::Loss => {
                w.ssthresh = self.bw_rttmin();
                self.reset_rtt_min = true;
            }
            _ => {}
        }
        self.state = state;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testbed::Bottleneck;
    use super::*;

    #[test]
    fn the_bandwidth_estimate_converges_to_the_delivery_rate() {
        // 2000 segments/s over 60 ms; cwnd 150 (> BDP 120) keeps it busy.
        let mut link = Bottleneck::new(2000.0, Duration::from_millis(60));
        let mut ww = Westwood::default();
        let mut w = Window { cwnd: 150, ssthresh: 2, cwnd_cnt: 0 };
        // Hold cwnd: run the estimator only (on_ack would grow it).
        struct Probe<'a>(&'a mut Westwood);
        impl CongestionControl for Probe<'_> {
            fn on_rtt_sample(&mut self, w: &mut Window, a: &Ack) {
                self.0.on_rtt_sample(w, a)
            }
            fn on_ack(&mut self, _w: &mut Window, _a: &Ack) {}
            fn ssthresh(&mut self, _w: &Window, _n: Instant) -> u32 {
                2
            }
        }
        link.run(&mut Probe(&mut ww), &mut w, Instant::ZERO, Instant::from_millis(10_000));
        let bwe = ww.bandwidth();
        assert!((bwe - 2000.0).abs() < 40.0, "BWE {bwe:.0} segments/s");
        assert_eq!(ww.rtt_min(), Duration::from_millis(60) + Duration::from_secs_f64(1.0 / 2000.0));
    }

    #[test]
    fn after_a_loss_ssthresh_is_the_bandwidth_estimate_times_rtt_min() {
        let mut ww = Westwood { bw_est: 2000.0, rtt_min: Duration::from_millis(60), ..Westwood::default() };
        let mut w = Window { cwnd: 400, ssthresh: u32::MAX, cwnd_cnt: 0 };
        // Fast recovery: Reno's half window while PRR runs ...
        w.ssthresh = ww.ssthresh(&w, Instant::ZERO);
        assert_eq!(w.ssthresh, 200);
        ww.on_state(&mut w, CaState::Recovery);
        // ... then cwnd = ssthresh = BWE * RTTmin = 2000 seg/s * 60 ms.
        ww.on_state(&mut w, CaState::Open);
        assert_eq!((w.cwnd, w.ssthresh), (120, 120));
        // A timeout sets ssthresh to the estimate at once.
        let mut w = Window { cwnd: 400, ssthresh: u32::MAX, cwnd_cnt: 0 };
        w.ssthresh = ww.ssthresh(&w, Instant::ZERO);
        ww.on_timeout(Instant::ZERO);
        w.cwnd = 1;
        ww.on_state(&mut w, CaState::Loss);
        assert_eq!(w.ssthresh, 120);
        ww.on_state(&mut w, CaState::Open);
        assert_eq!((w.cwnd, w.ssthresh), (1, 120), "slow start back up after a timeout");
        // At least two segments.
        let mut tiny = Westwood { bw_est: 10.0, rtt_min: Duration::from_millis(60), ..Westwood::default() };
        tiny.on_state(&mut w, CaState::Loss);
        assert_eq!(w.ssthresh, 2);
    }

    #[test]
    fn the_filter_takes_one_sample_per_rtt_long_interval() {
        let mut ww = Westwood::default();
        let mut w = Window::INITIAL;
        let rtt = Duration::from_millis(100);
        // 10 segments per 10 ms: 1000 segments/s, in 101-ms intervals.
        let mut now = Instant::from_millis(0);
        for _ in 0..30 {
            now += Duration::from_millis(10);
            ww.on_rtt_sample(&mut w, &Ack { now, delivered: 10, rtt: Some(rtt), ..Ack::default() });
        }
        // First sample seeds both filters exactly; later identical samples keep them.
        assert!((ww.bandwidth() - 1000.0).abs() < 1e-6, "{}", ww.bandwidth());
        // A rate step is followed through the two 1/8-gain filters: after one
        // interval at 2000/s, bw_ns = 1125, bw = 1015.6 (from 1000/1000).
        let mut ww2 = Westwood { bw_ns_est: 1000.0, bw_est: 1000.0, rtt, ..Westwood::default() };
        ww2.bk = 200;
        ww2.filter(Duration::from_millis(100));
        assert!((ww2.bw_ns_est - 1125.0).abs() < 1e-9);
        assert!((ww2.bw_est - 1015.625).abs() < 1e-9);
    }

    #[test]
    fn a_timeout_takes_rtt_min_afresh() {
        let mut ww = Westwood { rtt_min: Duration::from_millis(20), reset_rtt_min: false, ..Westwood::default() };
        let mut w = Window::INITIAL;
        ww.on_state(&mut w, CaState::Loss);
        let a = Ack { now: Instant::from_millis(5), rtt: Some(Duration::from_millis(80)), ..Ack::default() };
        ww.on_rtt_sample(&mut w, &a);
        assert_eq!(ww.rtt_min(), Duration::from_millis(80));
    }
}
