//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh & Jacobson, "BBR:
//! Congestion-Based Congestion Control", ACM Queue 14(5), 2016), following
//! Linux `tcp_bbr.c`: a windowed-max bandwidth filter over 10 round trips
//! and a 10-second min-RTT filter model the path; pacing_rate =
//! pacing_gain x bw and cwnd = cwnd_gain x BDP + a quantum, through the
//! STARTUP, DRAIN, PROBE_BW (eight-phase gain cycle) and PROBE_RTT states.
//! BBR sets cwnd on every ACK in every state (`full_control`), with packet
//! conservation in the first round of recovery.
//!
//! Left out of Linux's BBR: the long-term ("policer") bandwidth sampling
//! (`bbr_lt_bw_sampling`), the ACK-aggregation cwnd allowance
//! (`bbr_update_ack_aggregation`), idle restart, and the earliest-departure
//! time correction of in-flight (`bbr_packets_in_net_at_edt`, which is
//! in-flight itself when the pacer releases packets on time, as here).

use super::{Ack, CaState, CongestionControl, Window};
use crate::packet::HEADER_BYTES;
use rtac_core::rng::Rng;
use rtac_core::{Bandwidth, Duration, Instant};

/// Linux `bbr_high_gain` = BBR_UNIT * 2885 / 1000 + 1 (in 1/256): about
/// 2/ln 2, the smallest gain that doubles the sending rate every round.
pub const HIGH_GAIN: f64 = 739.0 / 256.0;
/// Linux `bbr_drain_gain` = BBR_UNIT * 1000 / 2885: drains in one round
/// the queue STARTUP made.
pub const DRAIN_GAIN: f64 = 88.0 / 256.0;
/// Linux `bbr_cwnd_gain`: cwnd = 2 BDP in PROBE_BW, for delayed and
/// stretched ACKs.
pub const CWND_GAIN: f64 = 2.0;
/// Linux `bbr_pacing_gain`: probe at 1.25, drain at 0.75, cruise at 1 for
/// six phases.
pub const PACING_GAIN: [f64; CYCLE_LEN] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
const CYCLE_LEN: usize = 8;
/// Linux `bbr_cycle_rand`: the cycle starts at a random phase other than
/// the draining one.
const CYCLE_RAND: u64 = 7;
/// Linux `bbr_bw_rtts` = CYCLE_LEN + 2: the bandwidth filter's window in
/// round trips.
const BW_RTTS: u64 = CYCLE_LEN as u64 + 2;
/// Linux `bbr_min_rtt_win_sec`.
const MIN_RTT_WIN: Duration = Duration::from_secs(10);
/// Linux `bbr_probe_rtt_mode_ms`.
const PROBE_RTT_TIME: Duration = Duration::from_millis(200);
/// Linux `bbr_cwnd_min_target`: two ACK-every-other-packet pairs.
pub const CWND_MIN_TARGET: u32 = 4;
/// Linux `bbr_full_bw_thresh` and `bbr_full_bw_cnt`: STARTUP ends after
/// three rounds without 25 % bandwidth growth.
const FULL_BW_THRESH: f64 = 1.25;
const FULL_BW_CNT: u32 = 3;
/// Linux `bbr_pacing_margin_percent`: pace 1 % below the estimate.
const PACING_MARGIN: f64 = 0.99;
/// Linux `bbr_quantization_budget` adds 3 * `bbr_tso_segs_goal`; without
/// TSO, one segment per skb.
const QUANTUM: u32 = 3;
/// Linux `TCP_INIT_CWND`.
const INIT_CWND: u32 = 10;
/// Linux `bbr_init_pacing_rate_from_rtt`: the RTT assumed before any sample.
const NOMINAL_RTT: Duration = Duration::from_millis(1);

/// BBR's states (Linux `enum bbr_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BbrMode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// Kathleen Nichols' windowed max filter (Linux `lib/win_minmax.c`): the
/// best, second-best and third-best samples of the window.
#[derive(Clone, Copy, Debug, Default)]
struct MaxFilter {
    s: [(u64, f64); 3],
}

impl MaxFilter {
    fn get(&self) -> f64 {
        self.s[0].1
    }

    fn reset(&mut self, t: u64, v: f64) {
        self.s = [(t, v); 3];
    }

    /// Linux `minmax_running_max`.
    fn update(&mut self, win: u64, t: u64, v: f64) {
        let val = (t, v);
        if v >= self.s[0].1 || t - self.s[2].0 > win {
            self.reset(t, v); // a new max, or nothing left in the window
            return;
        }
        if v >= self.s[1].1 {
            self.s[2] = val;
            self.s[1] = val;
        } else if v >= self.s[2].1 {
            self.s[2] = val;
        }
        // Linux `minmax_subwin_update`.
        let dt = t - self.s[0].0;
        if dt > win {
            self.s = [self.s[1], self.s[2], val];
            if t - self.s[0].0 > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            self.s[2] = val;
            self.s[1] = val;
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = val;
        }
    }
}

/// One ACK's delivery-rate sample as BBR uses it.
#[derive(Clone, Copy, Debug)]
struct Sample {
    /// Segments per second.
    bw: f64,
    /// `tp->delivered` when the sampled segment was sent.
    prior_delivered: u64,
    app_limited: bool,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    /// Bits on the wire per full segment, to turn segments/s into a rate.
    seg_bits: f64,
    seed: Option<u64>,
    rng: Option<Rng>,
    started: bool,
    mode: BbrMode,
    /// Max-filtered bandwidth in segments per second, timed in rounds.
    bw: MaxFilter,
    min_rtt: Option<Duration>,
    min_rtt_stamp: Instant,
    probe_rtt_done_stamp: Option<Instant>,
    probe_rtt_round_done: bool,
    /// Linux `tp->delivered` (summed from the ACKs: BBR sees every one)
    /// and `tp->delivered_mstamp`.
    delivered: u64,
    delivered_mstamp: Instant,
    /// Packet-timed rounds (Linux `next_rtt_delivered`, `rtt_cnt`).
    next_rtt_delivered: u64,
    rtt_cnt: u64,
    round_start: bool,
    ca_state: CaState,
    prev_ca_state: CaState,
    packet_conservation: bool,
    prior_cwnd: u32,
    full_bw: f64,
    full_bw_cnt: u32,
    full_bw_reached: bool,
    pacing_gain: f64,
    cwnd_gain: f64,
    cycle_idx: usize,
    cycle_mstamp: Instant,
    /// Segments per second, gain and margin applied.
    pacing_rate: f64,
    has_seen_rtt: bool,
    /// Linux marks the flight sent in PROBE_RTT application-limited
    /// (`tp->app_limited`); the sender cannot be told, so BBR marks the
    /// samples of segments sent while `delivered` was in this range.
    app_limited: Option<(u64, u64)>,
}

impl Bbr {
    /// A BBR sender of `mss`-byte segments; `seed` fixes the random start
    /// phase of the gain cycle (`None`: derived from the flow's first ACK,
    /// which is deterministic and differs between flows).
    pub fn new(mss: u32, seed: Option<u64>) -> Self {
        let mut b = Bbr {
            seg_bits: ((mss + HEADER_BYTES) * 8) as f64,
            seed,
            rng: seed.map(Rng::new),
            started: false,
            mode: BbrMode::Startup,
            bw: MaxFilter::default(),
            min_rtt: None,
            min_rtt_stamp: Instant::ZERO,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            delivered: 0,
            delivered_mstamp: Instant::ZERO,
            next_rtt_delivered: 0,
            rtt_cnt: 0,
            round_start: false,
            ca_state: CaState::Open,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            prior_cwnd: 0,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            cycle_idx: 0,
            cycle_mstamp: Instant::ZERO,
            pacing_rate: 0.0,
            has_seen_rtt: false,
            app_limited: None,
        };
        b.init_pacing_rate(Window::INITIAL.cwnd, NOMINAL_RTT);
        b.has_seen_rtt = false;
        b
    }

    pub fn mode(&self) -> BbrMode {
        self.mode
    }
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }
    pub fn cwnd_gain(&self) -> f64 {
        self.cwnd_gain
    }
    /// The bandwidth estimate, segments per second.
    pub fn max_bw(&self) -> f64 {
        self.bw.get()
    }
    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }
    /// Packet-timed round trips so far.
    pub fn rounds(&self) -> u64 {
        self.rtt_cnt
    }
    /// The pacing rate in segments per second.
    pub fn pacing_segments_per_sec(&self) -> f64 {
        self.pacing_rate
    }

    /// Linux `bbr_init_pacing_rate_from_rtt`: high_gain * cwnd / RTT.
    fn init_pacing_rate(&mut self, cwnd: u32, rtt: Duration) {
        self.has_seen_rtt = true;
        let rtt = rtt.max(Duration::from_micros(1));
        self.pacing_rate = cwnd as f64 / rtt.as_secs_f64() * HIGH_GAIN * PACING_MARGIN;
    }

    /// Linux `bbr_bdp`: ceil(bw * min_rtt * gain), or the initial window
    /// before any RTT sample.
    fn bdp(&self, bw: f64, gain: f64) -> u32 {
        match self.min_rtt {
            None => INIT_CWND,
            // The tiny slack absorbs floating-point error before rounding up.
            Some(rtt) => (bw * rtt.as_secs_f64() * gain - 1e-9).ceil().max(0.0) as u32,
        }
    }

    /// Linux `bbr_quantization_budget`.
    fn quantization_budget(&self, cwnd: u32) -> u32 {
        let mut cwnd = cwnd + QUANTUM;
        cwnd = (cwnd + 1) & !1; // round up to even, against delayed ACKs
        if self.mode == BbrMode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2; // gain cycling must lift in-flight above the BDP
        }
        cwnd
    }

    /// Linux `bbr_inflight`.
    fn inflight(&self, bw: f64, gain: f64) -> u32 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// The rate sample of this ACK, or none when the sender found it
    /// invalid (Linux `rs->delivered < 0 || rs->interval_us <= 0`).
    fn sample(&self, ack: &Ack) -> Option<Sample> {
        let rs = ack.rate?;
        if rs.interval.is_zero() {
            return None;
        }
        let prior_delivered = self.delivered.saturating_sub(rs.delivered);
        let probe_rtt_flight = self.app_limited.is_some_and(|(from, to)| (from..=to).contains(&prior_delivered));
        Some(Sample { bw: rs.segments_per_sec(), prior_delivered, app_limited: rs.app_limited || probe_rtt_flight })
    }

    /// Linux `bbr_update_bw`: count rounds, feed the max filter.
    fn update_bw(&mut self, rs: Option<Sample>) {
        self.round_start = false;
        let Some(rs) = rs else { return };
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = self.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        // App-limited samples only raise the estimate.
        if !rs.app_limited || rs.bw >= self.bw.get() {
            self.bw.update(BW_RTTS, self.rtt_cnt, rs.bw);
        }
    }

    /// Linux `bbr_is_next_cycle_phase`; in-flight before this ACK stands
    /// for `rs->prior_in_flight`.
    fn is_next_cycle_phase(&self, ack: &Ack) -> bool {
        let is_full_length = self.min_rtt.is_some_and(|m| self.delivered_mstamp - self.cycle_mstamp > m);
        if self.pacing_gain == 1.0 {
            return is_full_length;
        }
        let prior_in_flight = ack.in_flight + ack.delivered + ack.lost;
        let bw = self.bw.get();
        if self.pacing_gain > 1.0 {
            // Linux counts the next TSO skb in (bbr_packets_in_net_at_edt).
            return is_full_length && (ack.lost > 0 || prior_in_flight + 1 >= self.inflight(bw, self.pacing_gain));
        }
        is_full_length || prior_in_flight <= self.inflight(bw, 1.0)
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_mstamp = self.delivered_mstamp;
    }

    /// Linux `bbr_reset_probe_bw_mode`: start the cycle at a random phase,
    /// never the draining one.
    fn reset_probe_bw_mode(&mut self) {
        self.mode = BbrMode::ProbeBw;
        let r = self.rng.get_or_insert_with(|| Rng::new(0)).next_u64() % CYCLE_RAND;
        self.cycle_idx = CYCLE_LEN - 1 - r as usize;
        self.advance_cycle_phase();
    }

    fn reset_mode(&mut self) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode();
        } else {
            self.mode = BbrMode::Startup;
        }
    }

    /// Linux `bbr_check_full_bw_reached`.
    fn check_full_bw_reached(&mut self, rs: Option<Sample>) {
        if self.full_bw_reached || !self.round_start || rs.is_none_or(|r| r.app_limited) {
            return;
        }
        if self.bw.get() >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = self.bw.get();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// Linux `bbr_check_drain`.
    fn check_drain(&mut self, w: &mut Window, ack: &Ack) {
        if self.mode == BbrMode::Startup && self.full_bw_reached {
            self.mode = BbrMode::Drain;
            w.ssthresh = self.inflight(self.bw.get(), 1.0);
        }
        if self.mode == BbrMode::Drain && ack.in_flight <= self.inflight(self.bw.get(), 1.0) {
            self.reset_probe_bw_mode(); // the queue is drained
        }
    }

    /// Linux `bbr_save_cwnd`.
    fn save_cwnd(&mut self, w: &Window) {
        if self.prev_ca_state == CaState::Open && self.mode != BbrMode::ProbeRtt {
            self.prior_cwnd = w.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(w.cwnd);
        }
    }

    /// Linux `bbr_check_probe_rtt_done`.
    fn check_probe_rtt_done(&mut self, w: &mut Window, now: Instant) {
        if self.probe_rtt_done_stamp.is_none_or(|d| now <= d) {
            return;
        }
        self.min_rtt_stamp = now; // wait a while until the next PROBE_RTT
        w.cwnd = w.cwnd.max(self.prior_cwnd);
        self.reset_mode();
    }

    /// Linux `bbr_update_min_rtt`: the 10-second min filter and PROBE_RTT.
    fn update_min_rtt(&mut self, w: &mut Window, ack: &Ack) {
        let filter_expired = ack.now > self.min_rtt_stamp + MIN_RTT_WIN;
        if let Some(rtt) = ack.rtt {
            if self.min_rtt.is_none_or(|m| rtt < m) || filter_expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = ack.now;
            }
        }
        if filter_expired && self.mode != BbrMode::ProbeRtt {
            self.mode = BbrMode::ProbeRtt; // dip, drain the queue
            self.save_cwnd(w);
            self.probe_rtt_done_stamp = None;
            self.app_limited = Some((self.delivered, self.delivered));
        }
        if self.mode == BbrMode::ProbeRtt {
            // Ignore the low-rate samples of this flight.
            let until = (self.delivered + ack.in_flight as u64).max(1);
            self.app_limited = Some((self.app_limited.map_or(self.delivered, |(from, _)| from), until));
            // Hold the minimum in flight for max(200 ms, one round).
            if self.probe_rtt_done_stamp.is_none() && ack.in_flight <= CWND_MIN_TARGET {
                self.probe_rtt_done_stamp = Some(ack.now + PROBE_RTT_TIME);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = self.delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(w, ack.now);
                }
            }
        }
    }

    /// Linux `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            BbrMode::Startup => (HIGH_GAIN, HIGH_GAIN),
            BbrMode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            BbrMode::ProbeBw => (PACING_GAIN[self.cycle_idx], CWND_GAIN),
            BbrMode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// Linux `bbr_set_pacing_rate`: the rate only rises until the pipe is
    /// full.
    fn set_pacing_rate(&mut self, w: &Window, ack: &Ack) {
        if !self.has_seen_rtt {
            if let Some(rtt) = ack.rtt.or(ack.min_rtt) {
                self.init_pacing_rate(w.cwnd, rtt);
            }
        }
        let rate = self.bw.get() * self.pacing_gain * PACING_MARGIN;
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// Linux `bbr_set_cwnd_to_recover_or_restore`: returns the cwnd and
    /// whether packet conservation holds it.
    fn recover_or_restore(&mut self, w: &Window, ack: &Ack, acked: u32) -> (u32, bool) {
        let (prev, state) = (self.prev_ca_state, self.ca_state);
        let mut cwnd = w.cwnd;
        // An ACK for P segments releases at most 2P: first deduct losses.
        if ack.lost > 0 {
            cwnd = cwnd.saturating_sub(ack.lost).max(1);
        }
        let in_recovery = |s: CaState| s != CaState::Open;
        if state == CaState::Recovery && prev != CaState::Recovery {
            // First round of recovery: packet conservation.
            self.packet_conservation = true;
            self.next_rtt_delivered = self.delivered; // start the round now
            cwnd = ack.in_flight + acked;
        } else if in_recovery(prev) && !in_recovery(state) {
            // Leaving recovery: restore the cwnd saved when it began.
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(ack.in_flight + acked), true);
        }
        (cwnd, false)
    }

    /// Linux `bbr_set_cwnd`: slow-start up towards cwnd_gain * BDP +
    /// quantum, or snap down to it once the pipe was filled.
    fn set_cwnd(&mut self, w: &mut Window, ack: &Ack) {
        let acked = ack.delivered;
        if acked > 0 {
            let (mut cwnd, conserving) = self.recover_or_restore(w, ack, acked);
            if !conserving {
                let target = self.inflight(self.bw.get(), self.cwnd_gain);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || self.delivered < INIT_CWND as u64 {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
            w.cwnd = cwnd;
        }
        if self.mode == BbrMode::ProbeRtt {
            w.cwnd = w.cwnd.min(CWND_MIN_TARGET); // drain the queue, refresh min_rtt
        }
    }
}

impl CongestionControl for Bbr {
    /// Linux `bbr_main`, on every ACK.
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        if !self.started {
            // Linux `bbr_init` runs at connection start: its clock starts
            // the min_rtt window, and a flow without a seed takes one from
            // its first ACK's instant.
            self.started = true;
            self.min_rtt_stamp = ack.now;
            if self.rng.is_none() {
                let seed = self.seed.unwrap_or(ack.now.as_nanos() ^ 0x4242_4242_4242_4242);
                self.rng = Some(Rng::new(seed));
            }
        }
        self.delivered += ack.delivered as u64;
        if ack.delivered > 0 {
            self.delivered_mstamp = ack.now;
        }
        let rs = self.sample(ack);
        // Linux `bbr_update_model`.
        self.update_bw(rs);
        if self.mode == BbrMode::ProbeBw && self.is_next_cycle_phase(ack) {
            self.advance_cycle_phase();
        }
        self.check_full_bw_reached(rs);
        self.check_drain(w, ack);
        self.update_min_rtt(w, ack);
        self.update_gains();
        self.set_pacing_rate(w, ack);
        self.set_cwnd(w, ack);
        if self.app_limited.is_some_and(|(_, to)| self.delivered > to) && self.mode != BbrMode::ProbeRtt {
            self.app_limited = None;
        }
    }

    /// Linux `bbr_ssthresh`: remember cwnd for after recovery; BBR keeps
    /// ssthresh as it is.
    fn ssthresh(&mut self, w: &Window, _now: Instant) -> u32 {
        self.save_cwnd(w);
        w.ssthresh
    }

    /// Linux `bbr_set_state`: an RTO restarts full-pipe detection.
    fn on_state(&mut self, _w: &mut Window, state: CaState) {
        if state == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0.0;
            self.round_start = true;
        }
        self.ca_state = state;
    }

    fn pacing_rate(&self) -> Option<Bandwidth> {
        Some(Bandwidth::from_bps((self.pacing_rate * self.seg_bits).max(1.0) as u64))
    }

    fn full_control(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::RateSample;
    use super::*;

    const MSS: u32 = 1448;

    /// Feeds BBR ACKs as a sender would.
    struct Feed {
        bbr: Bbr,
        w: Window,
        now: Instant,
        rtt: Duration,
    }

    impl Feed {
        fn new(seed: u64) -> Self {
            Feed { bbr: Bbr::new(MSS, Some(seed)), w: Window::INITIAL, now: Instant::from_millis(1), rtt: ms(100) }
        }

        /// One ACK delivering `d` segments with a rate sample of `bw`
        /// segments/s taken over the whole `d` (so each ACK ends a round).
        fn ack(&mut self, dt: Duration, d: u32, bw: f64, in_flight: u32) {
            self.ack_with(dt, d, Some((bw, false)), in_flight, 0);
        }

        fn ack_with(&mut self, dt: Duration, d: u32, bw: Option<(f64, bool)>, in_flight: u32, lost: u32) {
            self.now += dt;
            let rate = bw.map(|(bw, app_limited)| RateSample {
                delivered: d as u64,
                interval: Duration::from_secs_f64(d as f64 / bw),
                app_limited,
            });
            let a = Ack {
                now: self.now,
                acked: d,
                delivered: d,
                lost,
                rtt: Some(self.rtt),
                min_rtt: Some(self.rtt),
                in_flight,
                rate,
                ..Ack::default()
            };
            self.bbr.on_rtt_sample(&mut self.w, &a);
            self.bbr.on_ack(&mut self.w, &a);
        }

        /// Through STARTUP at `bw` segments/s into PROBE_BW.
        fn reach_probe_bw(&mut self, bw: f64) {
            for k in [8.0, 4.0, 2.0, 1.0, 1.0, 1.0, 1.0] {
                self.ack(ms(100), 10, bw / k, 10_000);
            }
            self.ack(ms(1), 1, bw, 0);
            assert_eq!(self.bbr.mode(), BbrMode::ProbeBw);
        }
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn startup_ends_after_three_rounds_without_25_percent_growth_then_drains_into_probe_bw() {
        let mut f = Feed::new(1);
        // The bandwidth doubles for four rounds, then stays at 800 segments/s.
        for (round, d) in [10, 20, 40, 80, 80, 80].into_iter().enumerate() {
            f.ack(ms(100), d, d as f64 * 10.0, 10_000);
            assert_eq!(f.bbr.mode(), BbrMode::Startup, "round {round}");
            assert_eq!(f.bbr.pacing_gain(), HIGH_GAIN);
        }
        assert_eq!(f.bbr.rounds(), 6);
        f.ack(ms(100), 80, 800.0, 10_000);
        assert_eq!(f.bbr.mode(), BbrMode::Drain, "third round without growth");
        assert_eq!(f.bbr.pacing_gain(), DRAIN_GAIN);
        assert_eq!(f.bbr.cwnd_gain(), HIGH_GAIN, "DRAIN keeps cwnd");
        // ssthresh = BDP + quantum: 800/s * 100 ms = 80, + 3, even -> 84.
        assert_eq!(f.w.ssthresh, 84);
        f.ack(ms(10), 1, 800.0, 85);
        assert_eq!(f.bbr.mode(), BbrMode::Drain, "85 in flight is above the BDP");
        f.ack(ms(10), 1, 800.0, 84);
        assert_eq!(f.bbr.mode(), BbrMode::ProbeBw, "drained");
        assert_eq!(f.bbr.cwnd_gain(), CWND_GAIN);
        assert_ne!(f.bbr.cycle_idx, 1, "the cycle never starts in its draining phase");
    }

    #[test]
    fn startup_paces_at_high_gain_and_grows_cwnd_by_what_was_acked() {
        let mut f = Feed::new(1);
        f.ack(ms(100), 10, 100.0, 10);
        // The first RTT sample sets the pacing rate to high_gain * cwnd / RTT.
        let init = 10.0 / 0.1 * HIGH_GAIN * 0.99;
        assert!((f.bbr.pacing_segments_per_sec() - init).abs() < 1e-6, "{}", f.bbr.pacing_segments_per_sec());
        assert_eq!(f.w.cwnd, 20, "cwnd += acked below the target");
        f.ack(ms(100), 20, 2000.0, 20);
        let paced = 2000.0 * HIGH_GAIN * 0.99;
        assert!((f.bbr.pacing_segments_per_sec() - paced).abs() < 1e-6);
        let bps = f.bbr.pacing_rate().unwrap().bps() as f64;
        assert!((bps - paced * 1500.0 * 8.0).abs() < 1.0, "wire bits: {bps}");
    }

    #[test]
    fn probe_bw_cycles_the_pacing_gain_through_eight_phases_of_one_min_rtt() {
        let mut f = Feed::new(7);
        f.reach_probe_bw(1000.0);
        let start = f.bbr.cycle_idx;
        let mut gains = vec![f.bbr.pacing_gain()];
        // ACKs every 10 ms; a large flight lets each phase run its full min_rtt.
        for _ in 0..160 {
            f.ack(ms(10), 10, 1000.0, 10_000);
            if f.bbr.cycle_idx != (start + gains.len() - 1) % CYCLE_LEN {
                gains.push(f.bbr.pacing_gain());
            }
        }
        assert!(gains.len() >= 15, "one phase per 100-110 ms: {}", gains.len());
        for (i, g) in gains.iter().enumerate() {
            assert_eq!(*g, PACING_GAIN[(start + i) % CYCLE_LEN], "phase {i} of {gains:?}");
        }
        // Pacing follows gain * bw with the 1 % margin.
        let expected = f.bbr.pacing_gain() * 1000.0 * 0.99;
        assert!((f.bbr.pacing_segments_per_sec() - expected).abs() < 1e-6);
    }

    #[test]
    fn the_start_phase_is_random_but_fixed_by_the_seed() {
        let start = |seed| {
            let mut f = Feed::new(seed);
            f.reach_probe_bw(1000.0);
            f.bbr.cycle_idx
        };
        let phases: Vec<usize> = (0..40).map(start).collect();
        assert!(phases.iter().all(|&p| p != 1), "never the 0.75 phase: {phases:?}");
        let distinct = (0..CYCLE_LEN).filter(|p| phases.contains(p)).count();
        assert_eq!(distinct, 7, "all seven other phases occur: {phases:?}");
        assert_eq!(start(3), start(3), "same seed, same phase");
    }

    #[test]
    fn probe_bw_cwnd_is_twice_the_bdp_plus_the_quantum() {
        let mut f = Feed::new(2);
        f.reach_probe_bw(1000.0);
        f.w.cwnd = 1000;
        f.ack(ms(1), 2, 1000.0, 100);
        // BDP = 1000/s * 100 ms = 100; 2 * 100 + 3 = 203 -> even 204;
        // +2 in the 1.25 phase.
        let extra = if f.bbr.cycle_idx == 0 { 2 } else { 0 };
        assert_eq!(f.w.cwnd, 204 + extra);
    }

    #[test]
    fn probe_rtt_after_ten_seconds_without_a_lower_rtt_holds_four_segments_for_200ms() {
        let mut f = Feed::new(3);
        f.reach_probe_bw(1000.0);
        let before = f.w.cwnd;
        // The same RTT does not refresh the filter: PROBE_RTT once 10 s
        // have passed since the first sample (the first ACK, at 101 ms).
        let first = Instant::from_millis(101);
        while f.bbr.mode() != BbrMode::ProbeRtt {
            f.ack(ms(50), 5, 1000.0, 200);
            assert!(f.now - first <= ms(10_050), "no PROBE_RTT after {}", f.now - first);
        }
        assert!(f.now - first > ms(10_000), "PROBE_RTT after {}", f.now - first);
        assert_eq!(f.w.cwnd, CWND_MIN_TARGET);
        assert_eq!(f.bbr.pacing_gain(), 1.0);
        // In flight falls to 4: hold for 200 ms and one round.
        let entered = f.now;
        while f.bbr.mode() == BbrMode::ProbeRtt {
            f.ack(ms(20), 2, 1000.0, 4);
            assert!(f.bbr.mode() != BbrMode::ProbeRtt || f.w.cwnd <= CWND_MIN_TARGET);
            assert!(f.now - entered < ms(400), "stuck in PROBE_RTT");
        }
        assert!(f.now - entered > ms(200), "left after {}", f.now - entered);
        assert_eq!(f.bbr.mode(), BbrMode::ProbeBw, "the pipe was full: back to PROBE_BW");
        assert!(f.w.cwnd >= before, "cwnd restored: {} (before {before})", f.w.cwnd);
    }

    #[test]
    fn recovery_conserves_packets_for_a_round_then_restores_cwnd() {
        let mut f = Feed::new(4);
        f.reach_probe_bw(1000.0);
        f.w.cwnd = 1000;
        f.ack(ms(1), 2, 1000.0, 150);
        let cwnd = f.w.cwnd;
        assert!(cwnd == 204 || cwnd == 206, "the PROBE_BW target: {cwnd}");
        f.w.ssthresh = f.bbr.ssthresh(&f.w, f.now);
        f.bbr.on_state(&mut f.w, CaState::Recovery);
        f.ack_with(ms(1), 2, Some((1000.0, false)), 100, 3);
        assert_eq!(f.w.cwnd, 102, "in flight + acked");
        f.ack_with(ms(1), 1, None, 90, 0);
        assert_eq!(f.w.cwnd, 102, "conservation: never below in flight + acked, no growth");
        f.bbr.on_state(&mut f.w, CaState::Open);
        f.ack(ms(1), 1, 1000.0, 90);
        assert_eq!(f.w.cwnd, cwnd, "prior cwnd restored (capped by the target)");
    }

    #[test]
    fn app_limited_samples_only_raise_the_bandwidth_estimate() {
        let mut f = Feed::new(5);
        f.ack(ms(100), 10, 1000.0, 10);
        for _ in 0..12 {
            f.ack_with(ms(100), 5, Some((500.0, true)), 10, 0);
        }
        assert_eq!(f.bbr.max_bw(), 1000.0, "app-limited 500/s ignored");
        f.ack_with(ms(100), 5, Some((2000.0, true)), 10, 0);
        assert_eq!(f.bbr.max_bw(), 2000.0, "an app-limited sample above the estimate counts");
    }

    #[test]
    fn the_bandwidth_filter_forgets_a_peak_after_ten_rounds() {
        let mut f = Feed::new(6);
        f.ack(ms(100), 10, 1000.0, 10);
        let mut rounds_with_peak = 0;
        for _ in 0..15 {
            f.ack(ms(100), 5, 500.0, 10);
            if f.bbr.max_bw() == 1000.0 {
                rounds_with_peak += 1;
            }
        }
        assert_eq!(rounds_with_peak, BW_RTTS, "the peak lasts the window");
        assert_eq!(f.bbr.max_bw(), 500.0);
    }
}
