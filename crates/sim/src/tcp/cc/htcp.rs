//! H-TCP (Leith & Shorten, "H-TCP: TCP for high-speed and long-distance
//! networks", PFLDnet 2004; Leith, Shorten & Lee, "H-TCP: A framework for
//! congestion control in high-speed and long-distance networks", 2005),
//! following Linux `tcp_htcp.c`: the additive increase grows with the time
//! since the last congestion event, the backoff adapts to RTTmin/RTTmax,
//! the increase is scaled by RTT, and a throughput change of more than 20 %
//! between congestion events switches back to halving. Linux works in
//! jiffies and fixed point (<< 7); here in nanoseconds and `f64`, keeping
//! Linux's integer truncations where they change the result.

use super::{Ack, CaState, CongestionControl, Window};
use rtac_core::{Duration, Instant};

/// Linux `BETA_MIN`, `BETA_MAX`: the backoff factor stays in [0.5, 0.8].
const BETA_MIN: f64 = 0.5;
const BETA_MAX: f64 = 0.8;
/// Delta_L (Leith & Shorten section III): below one second since the last
/// congestion event H-TCP grows like Reno.
const DELTA_L: Duration = Duration::from_secs(1);
/// Linux `measure_rtt`: maxRTT only takes samples within 20 ms of itself,
/// to ignore outliers.
const MAX_RTT_STEP: Duration = Duration::from_millis(20);
/// Linux `htcp_beta_update`: adaptive backoff only when minRTT > 10 ms.
const ADAPTIVE_MIN_RTT: Duration = Duration::from_millis(10);
/// Linux `htcp_param_update`: maxRTT fades 5 % towards minRTT per event.
const MAX_RTT_FADE: f64 = 0.95;

#[derive(Clone, Debug)]
pub struct Htcp {
    /// Segments of increase per RTT (Linux `alpha`, << 7 there).
    alpha: f64,
    /// Backoff factor (Linux `beta`).
    beta: f64,
    /// Linux `modeswitch`: adaptive backoff only after one congestion event.
    modeswitch: bool,
    min_rtt: Option<Duration>,
    max_rtt: Option<Duration>,
    /// End of the last congestion event (`None`: the connection start,
    /// stamped on the first ACK).
    last_cong: Option<Instant>,
    /// Linux `undo_last_cong`: set while a congestion event is in progress.
    in_cong_event: bool,
    /// The next ACK restamps `last_cong` (the sender reports Open without a
    /// clock; the ACK that ended recovery follows at once).
    restamp: bool,
    state: CaState,
    /// The latest instant any hook saw.
    now: Instant,
    /// Throughput measurement (Linux `measure_achieved_throughput`), in
    /// segments per second.
    packetcount: u32,
    lasttime: Option<Instant>,
    bi: f64,
    min_b: f64,
    max_b: f64,
    old_max_b: f64,
}

impl Default for Htcp {
    /// Linux `htcp_init`: alpha 1, beta 0.5.
    fn default() -> Self {
        Htcp {
            alpha: 1.0,
            beta: BETA_MIN,
            modeswitch: false,
            min_rtt: None,
            max_rtt: None,
            last_cong: None,
            in_cong_event: false,
            restamp: false,
            state: CaState::Open,
            now: Instant::ZERO,
            packetcount: 0,
            lasttime: None,
            bi: 0.0,
            min_b: 0.0,
            max_b: 0.0,
            old_max_b: 0.0,
        }
    }
}

impl Htcp {
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
    pub fn beta(&self) -> f64 {
        self.beta
    }

    fn tick(&mut self, now: Instant) {
        self.now = now;
        if self.last_cong.is_none() || self.restamp {
            self.last_cong = Some(now);
            self.restamp = false;
        }
    }

    /// Linux `htcp_cong_time`: time since the last congestion event ended.
    fn cong_time(&self) -> Duration {
        self.now - self.last_cong.unwrap_or(self.now)
    }

    /// Linux `htcp_ccount`: that time in minimum RTTs.
    fn ccount(&self) -> u64 {
        let min = self.min_rtt.map_or(1, |m| m.as_nanos().max(1));
        self.cong_time().as_nanos() / min
    }

    /// Linux `measure_rtt`.
    fn measure_rtt(&mut self, rtt: Duration) {
        if self.min_rtt.is_none_or(|m| m > rtt) {
            self.min_rtt = Some(rtt);
        }
        if self.state == CaState::Open {
            let min = self.min_rtt.unwrap_or(rtt);
            let max = self.max_rtt.map_or(min, |m| m.max(min));
            self.max_rtt = Some(if max < rtt && rtt <= max + MAX_RTT_STEP { rtt } else { max });
        }
    }

    /// Linux `htcp_beta_update`: beta = RTTmin/RTTmax (Leith & Shorten
    /// section III.B) unless the throughput changed by more than 20 %.
    fn beta_update(&mut self) {
        let (max_b, old_max_b) = (self.max_b, self.old_max_b);
        self.old_max_b = self.max_b;
        // Linux between(5 maxB, 4 old_maxB, 6 old_maxB): 0.8 <= maxB/old <= 1.2.
        if !(4.0 * old_max_b..=6.0 * old_max_b).contains(&(5.0 * max_b)) {
            self.beta = BETA_MIN;
            self.modeswitch = false;
            return;
        }
        match (self.min_rtt, self.max_rtt) {
            (Some(min), Some(max)) if self.modeswitch && min > ADAPTIVE_MIN_RTT && !max.is_zero() => {
                self.beta = (min.as_secs_f64() / max.as_secs_f64()).clamp(BETA_MIN, BETA_MAX);
            }
            _ => {
                self.beta = BETA_MIN;
                self.modeswitch = true;
            }
        }
    }

    /// Linux `htcp_alpha_update`: Leith & Shorten eq. (4),
    /// alpha(Delta) = 1 + 10 (Delta - Delta_L) + ((Delta - Delta_L)/2)^2 for
    /// Delta > Delta_L (truncated to an integer as Linux does), times
    /// RTTmin/100 ms (RTT scaling, ratio clamped to [0.5, 10] and truncated
    /// in eighths), and scaled by 2(1 - beta) so that the average
    /// throughput matches Reno's at the same loss rate.
    fn alpha_update(&mut self) {
        let diff = self.cong_time();
        let mut factor = 1.0;
        if diff > DELTA_L {
            let d = (diff - DELTA_L).as_secs_f64();
            factor = 1.0 + (10.0 * d + (d / 2.0) * (d / 2.0)).floor();
        }
        if let Some(min) = self.min_rtt {
            // Linux: scale = (HZ << 3) / (10 * minRTT), clamped to [4, 80].
            let scale = (8.0 / (10.0 * min.as_secs_f64())).floor().clamp(4.0, 80.0);
            factor = ((factor * 8.0) / scale).floor().max(1.0);
        }
        self.alpha = 2.0 * factor * (1.0 - self.beta);
        if self.alpha <= 0.0 {
            self.alpha = 1.0;
        }
    }

    /// Linux `htcp_param_update`, on every congestion event.
    fn param_update(&mut self) {
        self.beta_update();
        self.alpha_update();
        if let (Some(min), Some(max)) = (self.min_rtt, self.max_rtt) {
            if max > min {
                self.max_rtt = Some(min + (max - min).mul_f64(MAX_RTT_FADE));
            }
        }
    }
}

impl CongestionControl for Htcp {
    /// Linux `measure_achieved_throughput` (the `pkts_acked` hook).
    fn on_rtt_sample(&mut self, w: &mut Window, ack: &Ack) {
        self.tick(ack.now);
        if let Some(rtt) = ack.rtt {
            self.measure_rtt(rtt);
        }
        if self.state != CaState::Open {
            self.packetcount = 0;
            self.lasttime = Some(ack.now);
            return;
        }
        let lasttime = *self.lasttime.get_or_insert(ack.now);
        self.packetcount += ack.acked;
        let Some(min) = self.min_rtt else { return };
        let alpha_int = (self.alpha.floor() as u32).max(1);
        let elapsed = ack.now - lasttime;
        if self.packetcount >= w.cwnd.saturating_sub(alpha_int) && elapsed >= min && !elapsed.is_zero() {
            let cur = self.packetcount as f64 / elapsed.as_secs_f64();
            if self.ccount() <= 3 {
                // Just after a backoff: restart the estimate.
                (self.min_b, self.max_b, self.bi) = (cur, cur, cur);
            } else {
                self.bi = (3.0 * self.bi + cur) / 4.0;
                self.max_b = self.max_b.max(self.bi);
                self.min_b = self.min_b.min(self.max_b);
            }
            self.packetcount = 0;
            self.lasttime = Some(ack.now);
        }
    }

    /// Linux `htcp_cong_avoid`: cwnd += alpha/cwnd per ACKed segment.
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        self.tick(ack.now);
        if w.in_slow_start() {
            w.slow_start(ack.acked);
            return;
        }
        if w.cwnd_cnt as f64 * self.alpha >= w.cwnd as f64 {
            w.cwnd += 1;
            w.cwnd_cnt = 0;
            self.alpha_update();
        } else {
            w.cwnd_cnt += ack.acked;
        }
    }

    /// Linux `htcp_recalc_ssthresh`: cwnd * beta.
    fn ssthresh(&mut self, w: &Window, now: Instant) -> u32 {
        self.tick(now);
        self.param_update();
        ((w.cwnd as f64 * self.beta) as u32).max(2)
    }

    fn on_timeout(&mut self, now: Instant) {
        self.tick(now);
    }

    /// Linux `htcp_state`: a congestion event starts the clock again
    /// (`htcp_reset`); returning to Open stamps its end.
    fn on_state(&mut self, _w: &mut Window, state: CaState) {
        match state {
            CaState::Open => {
                if self.in_cong_event {
                    self.restamp = true;
                    self.in_cong_event = false;
                }
            }
            CaState::Recovery | CaState::Loss => {
                self.last_cong = Some(self.now);
                self.in_cong_event = true;
            }
        }
        self.state = state;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(now: Instant, acked: u32, rtt: Duration) -> Ack {
        Ack { now, acked, rtt: Some(rtt), ..Ack::default() }
    }

    /// Congestion avoidance with a steady ACK clock; returns cwnd growth
    /// per RTT over `rounds` rounds.
    fn grow(h: &mut Htcp, w: &mut Window, now: &mut Instant, rtt: Duration, rounds: usize) -> Vec<u32> {
        let mut out = Vec::new();
        for _ in 0..rounds {
            let before = w.cwnd;
            let n = w.cwnd;
            for _ in 0..n {
                *now += rtt.div(n as u64);
                let a = ack(*now, 1, rtt);
                h.on_rtt_sample(w, &a);
                h.on_ack(w, &a);
            }
            out.push(w.cwnd - before);
        }
        out
    }

    #[test]
    fn alpha_follows_the_quadratic_of_time_since_congestion_after_one_second() {
        let mut h = Htcp { min_rtt: Some(Duration::from_millis(100)), ..Htcp::default() };
        h.tick(Instant::from_millis(5_000)); // last_cong = 5 s
        for (t_ms, expected_factor) in [(5_500, 1.0), (6_000, 1.0), (7_000, 11.0), (9_000, 33.0), (15_000, 111.0)] {
            h.now = Instant::from_millis(t_ms);
            h.alpha_update();
            // RTT 100 ms: RTT scaling is neutral; beta 0.5 gives 2(1-beta) = 1.
            let d = (t_ms as f64 - 6_000.0).max(0.0) / 1000.0;
            let paper = if d > 0.0 { 1.0 + 10.0 * d + (d / 2.0).powi(2) } else { 1.0 };
            assert_eq!(h.alpha(), expected_factor, "t={t_ms}ms");
            assert!((h.alpha() - paper).abs() < 1.0, "within Linux's truncation of the paper's {paper}");
        }
    }

    #[test]
    fn alpha_is_scaled_by_the_minimum_rtt_over_100ms() {
        let mut h = Htcp { min_rtt: Some(Duration::from_millis(50)), ..Htcp::default() };
        h.tick(Instant::ZERO);
        h.now = Instant::from_millis(4_000); // Delta - Delta_L = 3 s: factor 1 + 30 + 2.25 -> 33
        h.alpha_update();
        // scale = 8/(10*0.05) = 16 -> factor = 33*8/16 = 16.5 -> 16.
        assert_eq!(h.alpha(), 16.0);
        h.min_rtt = Some(Duration::from_millis(400)); // ratio clamped at 0.5 -> scale 4
        h.alpha_update();
        assert_eq!(h.alpha(), 66.0);
    }

    #[test]
    fn growth_per_rtt_accelerates_with_time_since_congestion() {
        let rtt = Duration::from_millis(100);
        let mut h = Htcp::default();
        let mut w = Window { cwnd: 100, ssthresh: 50, cwnd_cnt: 0 };
        let mut now = Instant::from_millis(1_000);
        let growth = grow(&mut h, &mut w, &mut now, rtt, 60);
        let early: u32 = growth[..10].iter().sum();
        let late: u32 = growth[50..].iter().sum();
        assert!(early <= 11, "Reno-like in the first second: {early} segments in 10 RTTs");
        assert!(late > 10 * early, "alpha grows with time since congestion: {early} vs {late}");
    }

    #[test]
    fn beta_follows_rtt_min_over_rtt_max_within_half_and_four_fifths() {
        let mut h = Htcp::default();
        let mut w = Window { cwnd: 1000, ssthresh: 500, cwnd_cnt: 0 };
        let mut now = Instant::from_millis(100);
        // min 40 ms; max climbs in steps of at most 20 ms to 60 ms.
        for r in [40, 50, 60] {
            now += Duration::from_millis(1);
            h.on_rtt_sample(&mut w, &ack(now, 1, Duration::from_millis(r)));
        }
        assert_eq!(h.ssthresh(&w, now), 500, "first event: beta 0.5 (modeswitch off)");
        h.on_state(&mut w, CaState::Recovery);
        h.on_state(&mut w, CaState::Open);
        // beta = minRTT/maxRTT, maxRTT faded to 40 + 0.95*20 = 59 ms.
        let s = h.ssthresh(&w, now);
        assert!((h.beta() - 40.0 / 59.0).abs() < 1e-9, "beta {}", h.beta());
        assert_eq!(s, (1000.0 * 40.0 / 59.0) as u32);
        // A deep queue (max 200 ms) clamps beta at 0.5; a tiny one at 0.8.
        let mut deep = Htcp { modeswitch: true, min_rtt: Some(Duration::from_millis(40)), ..Htcp::default() };
        deep.max_rtt = Some(Duration::from_millis(200));
        deep.beta_update();
        assert_eq!(deep.beta(), 0.5);
        deep.max_rtt = Some(Duration::from_millis(41));
        deep.beta_update();
        assert_eq!(deep.beta(), 0.8);
    }

    #[test]
    fn a_throughput_change_over_20_percent_switches_back_to_halving() {
        let mut h = Htcp {
            modeswitch: true,
            min_rtt: Some(Duration::from_millis(40)),
            max_rtt: Some(Duration::from_millis(52)),
            ..Htcp::default()
        };
        h.old_max_b = 1000.0;
        h.max_b = 1100.0; // +10 %: adaptive backoff
        h.beta_update();
        assert!((h.beta() - 40.0 / 52.0).abs() < 1e-9, "beta {}", h.beta());
        h.max_b = 1500.0; // +36 % over the previous event's 1100: halve
        h.beta_update();
        assert_eq!(h.beta(), 0.5);
        assert!(!h.modeswitch);
    }

    #[test]
    fn the_clock_restarts_when_recovery_ends() {
        let mut h = Htcp::default();
        let mut w = Window { cwnd: 100, ssthresh: 50, cwnd_cnt: 0 };
        h.tick(Instant::from_millis(0));
        h.ssthresh(&w, Instant::from_millis(10_000));
        h.on_state(&mut w, CaState::Recovery);
        h.on_ack(&mut w, &ack(Instant::from_millis(10_200), 1, Duration::from_millis(50)));
        h.on_state(&mut w, CaState::Open);
        h.on_ack(&mut w, &ack(Instant::from_millis(10_300), 1, Duration::from_millis(50)));
        assert_eq!(h.last_cong, Some(Instant::from_millis(10_300)), "stamped by the ACK ending recovery");
        assert_eq!(h.cong_time(), Duration::ZERO);
    }
}
