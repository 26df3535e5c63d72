//! TCP-GT (Jung, Kim, Yeom & Kang, "TCP-GT: A New Approach to Congestion
//! Control Based on Goodput and Throughput", Journal of Communications and
//! Networks 12(5), 2010). Per epoch (about one RTT, delimited by the epoch
//! number the receiver echoes) the sender compares the goodput seen by the
//! receiver, G = N/TR, with the throughput the window would give at the
//! local minimum RTT, T = N/rtt_min; phi = G - T measures the queue built
//! (phi < 0) or drained (phi >= 0). The window follows the paper's
//! inversely-proportional-increase, multiplicative-decrease equations with
//! window splitting, aggressive probing and RTT compensation (Algorithm 1,
//! eqs. (14)-(17)), applied per ACKed segment over the next epoch.
//!
//! Segments stand for the paper's bytes: with G, T and phi in segments per
//! second the MTU of eqs. (15) and (17) cancels. The paper defines neither
//! slow start nor a loss response; the window grows by eq. (15) from the
//! initial window, a loss halves it as RFC 5681 does, and after a
//! retransmission timeout the window slow-starts from one segment back to
//! that half (RFC 5681 section 3.1). While loss recovery runs the window is
//! recovery's: an epoch that overlaps it is not measured, and the split
//! windows merge (s = 1), so that a burst of loss does not leave an
//! increase computed from its collapsed goodput.
//!
//! [`TcpGt::with_time_window`] is an ablation, not the paper's algorithm:
//! eq. (5)'s local minimum over a fixed 10 rtt_base = 500 ms instead of the
//! last 10 epochs. Ten epochs span ten of the flow's own RTTs, so flows with
//! different RTTs forget a standing queue at different speeds; the variant
//! gives eq. (5) the same RTT compensation as eqs. (14)-(17).

use super::{Ack, CaState, CongestionControl, Window};
use rtac_core::{Duration, Instant};
use std::collections::VecDeque;

/// Section III-E: the baseline RTT of the compensation factor f = rtt /
/// rtt_base, "50 ms from simulations".
pub const RTT_BASE: Duration = Duration::from_millis(50);
/// Footnote 5 and eq. (16): keep increasing while phi >= t * T / f, with
/// t = -0.05 (aggressive probing).
pub const PROBE_T: f64 = -0.05;
/// Eq. (5): rtt_min is the minimum over the last 10 epochs.
const MIN_RTT_EPOCHS: usize = 10;
/// The ablation's eq. (5) window: 10 epochs of rtt_base.
pub const MIN_RTT_TIME_WINDOW: Duration = Duration::from_millis(10 * 50);
/// RFC 6298 gain of the smoothed RTT, the paper's rtt_i ("average RTT").
const SRTT_GAIN: f64 = 1.0 / 8.0;

/// One epoch's measurement and the control it chose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Epoch {
    /// Goodput and throughput, segments per second (eqs. (1), (4)).
    pub goodput: f64,
    pub throughput: f64,
    /// Eq. (3).
    pub phi: f64,
    /// RTT compensation factor f = rtt / rtt_base.
    pub f: f64,
    /// The splitting variable after this epoch.
    pub s: f64,
    /// p (eq. (15)) when positive, n (eq. (17)) when negative: the change
    /// of cwnd per ACKed segment until the next epoch.
    pub per_segment: f64,
}

#[derive(Clone, Debug)]
pub struct TcpGt {
    /// The epoch number stamped on data (the epoch header).
    epoch: u32,
    /// Sender's and receiver's clocks when this epoch began (for TS, TR).
    start: Option<(Instant, Instant)>,
    /// Segments delivered in this epoch (N_bytes).
    n: u64,
    /// Minimum RTT of this epoch, and of the previous ones with their end
    /// times, newest last.
    epoch_min: Option<Duration>,
    past_min: VecDeque<(Instant, Duration)>,
    /// Eq. (5)'s window: `None` for the last 10 epochs, else a time span.
    time_window: Option<Duration>,
    srtt: Option<Duration>,
    /// Window splitting: s virtual flows share cwnd (eq. (8)).
    s: f64,
    per_segment: f64,
    /// Fractional window not yet applied.
    frac: f64,
    last: Option<Epoch>,
    /// Loss recovery ran during the current epoch.
    disturbed: bool,
    /// The sender is in the Open state (no loss recovery).
    open: bool,
}

impl Default for TcpGt {
    fn default() -> Self {
        TcpGt {
            epoch: 1,
            start: None,
            n: 0,
            epoch_min: None,
            past_min: VecDeque::with_capacity(MIN_RTT_EPOCHS + 1),
            time_window: None,
            srtt: None,
            s: 1.0,
            per_segment: 0.0,
            frac: 0.0,
            last: None,
            disturbed: false,
            open: true,
        }
    }
}

impl TcpGt {
    /// The ablation with eq. (5)'s minimum over `MIN_RTT_TIME_WINDOW`.
    pub fn with_time_window() -> Self {
        TcpGt { time_window: Some(MIN_RTT_TIME_WINDOW), ..TcpGt::default() }
    }

    /// The latest epoch's measurement.
    pub fn last_epoch(&self) -> Option<Epoch> {
        self.last
    }

    /// Eq. (5): the local minimum RTT over the last 10 epochs (the one just
    /// ended included).
    fn local_min_rtt(&self) -> Option<Duration> {
        self.past_min.iter().map(|&(_, m)| m).min()
    }

    /// Files the minimum of the epoch that ended at `now` and forgets what
    /// falls out of eq. (5)'s window (the newest epoch always stays).
    fn end_epoch_min(&mut self, now: Instant) {
        if let Some(m) = self.epoch_min.take() {
            self.past_min.push_back((now, m));
        }
        match self.time_window {
            None => {
                while self.past_min.len() > MIN_RTT_EPOCHS {
                    self.past_min.pop_front();
                }
            }
            Some(span) => {
                while self.past_min.len() > 1 && self.past_min.front().is_some_and(|&(t, _)| now - t > span) {
                    self.past_min.pop_front();
                }
            }
        }
    }

    /// Algorithm 1 with G and T of the epoch that just ended.
    fn control(&mut self, goodput: f64, throughput: f64, cwnd: u32) -> Epoch {
        let phi = goodput - throughput;
        let rtt = self.srtt.unwrap_or(RTT_BASE).as_secs_f64();
        let base = RTT_BASE.as_secs_f64();
        let f = rtt / base;
        let cwnd = cwnd.max(1) as f64;
        // Eq. (16): increase while phi >= t T / f (t = -0.05).
        if phi >= PROBE_T * throughput / f {
            // Eq. (14): s grows by f per epoch.
            self.s += f;
            // Eq. (15): p = f^2 s^2 mtu / (G rtt_base cwnd).
            self.per_segment = f * f * self.s * self.s / (goodput * base * cwnd);
        } else {
            // Algorithm 1 line 6: the split windows merge.
            self.s = 1.0;
            // Eq. (17): n = f phi rtt_base / (cwnd mtu).
            self.per_segment = f * phi * base / cwnd;
        }
        let e = Epoch { goodput, throughput, phi, f, s: self.s, per_segment: self.per_segment };
        self.last = Some(e);
        e
    }

    fn reset_control(&mut self) {
        self.s = 1.0;
        self.per_segment = 0.0;
        self.frac = 0.0;
    }
}

impl CongestionControl for TcpGt {
    /// Every ACK that delivers data: RTT bookkeeping, and the end of an
    /// epoch when the receiver echoes the current epoch number.
    fn on_rtt_sample(&mut self, w: &mut Window, ack: &Ack) {
        if let Some(rtt) = ack.rtt {
            self.srtt = Some(self.srtt.map_or(rtt, |s| s.mul_f64(1.0 - SRTT_GAIN) + rtt.mul_f64(SRTT_GAIN)));
            self.epoch_min = Some(self.epoch_min.map_or(rtt, |m| m.min(rtt)));
        }
        self.n += ack.delivered as u64;
        if ack.epoch_echo != self.epoch {
            return;
        }
        // Section III-B: the echo of the current epoch starts the next one.
        self.end_epoch_min(ack.now);
        // An epoch that overlapped loss recovery is not measured: its goodput
        // measures the loss, not the queue (and recovery merged the split).
        if let (false, Some((_, r0))) = (self.disturbed, self.start) {
            // TR: the epoch measured on the receiver's clock. (TS, the
            // sender's, is about one RTT; eq. (4) uses rtt_min instead.)
            let tr = ack.peer_tsval - r0;
            if let (Some(rtt_min), false, true) = (self.local_min_rtt(), tr.is_zero(), self.n > 0) {
                let n = self.n as f64;
                // Eqs. (1) and (4).
                let goodput = n / tr.as_secs_f64();
                let throughput = n / rtt_min.as_secs_f64().max(1e-9);
                self.control(goodput, throughput, w.cwnd);
            }
        }
        self.disturbed = !self.open;
        self.epoch = self.epoch.wrapping_add(1).max(1);
        self.start = Some((ack.now, ack.peer_tsval));
        self.n = 0;
    }

    /// Section III-D: p or n is added to cwnd for every ACKed segment.
    /// After a retransmission timeout (the sender is in the Loss state, and
    /// no epoch is measured until it leaves), the window slow-starts back
    /// to ssthresh as RFC 5681 section 3.1 prescribes: without it a timeout
    /// leaves one segment per RTT to repair the whole lost window.
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        if !self.open {
            if w.in_slow_start() {
                w.slow_start(ack.acked);
            }
            return;
        }
        if self.per_segment == 0.0 {
            return;
        }
        let x = (w.cwnd as f64 + self.frac + self.per_segment * ack.acked as f64).max(2.0);
        w.cwnd = x.floor() as u32;
        self.frac = x - x.floor();
    }

    /// Not in the paper: halve on loss (RFC 5681 eq. (4)) and restart the
    /// window splitting.
    fn ssthresh(&mut self, w: &Window, _now: Instant) -> u32 {
        self.reset_control();
        (w.cwnd / 2).max(2)
    }

    fn on_timeout(&mut self, _now: Instant) {
        self.reset_control();
    }

    fn on_state(&mut self, _w: &mut Window, state: CaState) {
        self.open = state == CaState::Open;
        if !self.open {
            self.disturbed = true;
            self.reset_control();
        }
    }

    fn epoch(&self) -> u32 {
        self.epoch
    }
}

#[cfg(test)]
mod tests {
    use super::super::testbed::Bottleneck;
    use super::*;

    fn gt_with_srtt(ms: u64) -> TcpGt {
        TcpGt { srtt: Some(Duration::from_millis(ms)), ..TcpGt::default() }
    }

    #[test]
    fn positive_phi_splits_the_window_and_increases_by_eq_15() {
        // rtt 100 ms: f = 2. G = T = 1000 segments/s, cwnd 100.
        let mut gt = gt_with_srtt(100);
        let e = gt.control(1000.0, 1000.0, 100);
        assert_eq!(e.f, 2.0);
        assert_eq!(e.s, 3.0, "s = 1 + f");
        // p = f^2 s^2 / (G rtt_base cwnd) = 4 * 9 / (1000 * 0.05 * 100).
        assert!((e.per_segment - 36.0 / 5000.0).abs() < 1e-12, "{}", e.per_segment);
        // The next epoch: s = 5, p grows quadratically in s.
        let e = gt.control(1000.0, 1000.0, 100);
        assert_eq!(e.s, 5.0);
        assert!((e.per_segment - 100.0 / 5000.0).abs() < 1e-12);
    }

    #[test]
    fn negative_phi_below_the_probing_margin_decreases_by_eq_17_and_merges_the_split() {
        let mut gt = gt_with_srtt(50); // f = 1
        gt.s = 7.0;
        // T = 1000, G = 900: phi = -100 < -0.05 * 1000 / 1 = -50.
        let e = gt.control(900.0, 1000.0, 80);
        assert_eq!(e.phi, -100.0);
        assert_eq!(e.s, 1.0, "split windows combine");
        // n = f phi rtt_base / cwnd = 1 * -100 * 0.05 / 80.
        assert!((e.per_segment - (-5.0 / 80.0)).abs() < 1e-12);
        // Over an epoch of cwnd ACKed segments cwnd falls by phi * rtt = 5.
        let mut w = Window { cwnd: 80, ssthresh: u32::MAX, cwnd_cnt: 0 };
        for _ in 0..80 {
            gt.on_ack(&mut w, &Ack { acked: 1, ..Ack::default() });
        }
        assert_eq!(w.cwnd, 75);
    }

    #[test]
    fn aggressive_probing_keeps_increasing_within_five_percent_over_f() {
        // f = 0.8 (40 ms): the margin is 0.05 / 0.8 = 6.25 % of T.
        let mut gt = gt_with_srtt(40);
        let e = gt.control(940.0, 1000.0, 100);
        assert!(e.per_segment > 0.0, "phi = -6 % of T still increases");
        assert!((e.s - 1.8).abs() < 1e-12);
        let e = gt.control(930.0, 1000.0, 100);
        assert!(e.per_segment < 0.0, "phi = -7 % of T decreases");
        // With f = 2 (100 ms) the margin shrinks to 2.5 %.
        let mut gt = gt_with_srtt(100);
        assert!(gt.control(970.0, 1000.0, 100).per_segment < 0.0);
    }

    #[test]
    fn goodput_and_throughput_come_from_the_epoch_echo_and_the_local_min_rtt() {
        let mut gt = TcpGt::default();
        let mut w = Window { cwnd: 100, ssthresh: u32::MAX, cwnd_cnt: 0 };
        let ack = |now: u64, rx: u64, rtt: u64, echo: u32| Ack {
            now: Instant::from_millis(now),
            delivered: 10,
            acked: 10,
            rtt: Some(Duration::from_millis(rtt)),
            peer_tsval: Instant::from_millis(rx),
            epoch_echo: echo,
            ..Ack::default()
        };
        assert_eq!(gt.epoch(), 1);
        gt.on_rtt_sample(&mut w, &ack(100, 50, 100, 1));
        assert_eq!(gt.epoch(), 2, "the echo of the current epoch starts the next");
        for i in 1..10 {
            gt.on_rtt_sample(&mut w, &ack(100 + 10 * i, 50 + 10 * i, 100, 1));
        }
        assert_eq!(gt.epoch(), 2, "echoes of the old epoch do not");
        // Ten ACKs of 10 segments: N = 100 over TR = 125 ms at the receiver;
        // rtt_min = 100 ms.
        gt.on_rtt_sample(&mut w, &ack(220, 175, 120, 2));
        let e = gt.last_epoch().unwrap();
        assert!((e.goodput - 100.0 / 0.125).abs() < 1e-9, "G {}", e.goodput);
        assert!((e.throughput - 100.0 / 0.1).abs() < 1e-9, "T {}", e.throughput);
        assert!(e.phi < 0.0);
        assert_eq!(gt.epoch(), 3);
    }

    #[test]
    fn the_local_min_rtt_forgets_after_ten_epochs() {
        let mut gt = TcpGt::default();
        let mut w = Window::INITIAL;
        let mut t = 0;
        let mut epoch_with_rtt = |gt: &mut TcpGt, rtt: u64| {
            t += rtt;
            let echo = gt.epoch();
            let a = Ack {
                now: Instant::from_millis(t),
                delivered: 10,
                rtt: Some(Duration::from_millis(rtt)),
                peer_tsval: Instant::from_millis(t),
                epoch_echo: echo,
                ..Ack::default()
            };
            gt.on_rtt_sample(&mut w, &a);
        };
        epoch_with_rtt(&mut gt, 40);
        for _ in 0..9 {
            epoch_with_rtt(&mut gt, 60);
            assert_eq!(gt.local_min_rtt(), Some(Duration::from_millis(40)));
        }
        epoch_with_rtt(&mut gt, 60);
        assert_eq!(gt.local_min_rtt(), Some(Duration::from_millis(60)), "a standing queue becomes the base");
    }

    /// Ends the current epoch: an ACK echoing it, `rtt` after the previous
    /// one, 10 segments delivered.
    fn end_epoch(gt: &mut TcpGt, w: &mut Window, t: &mut u64, rtt: u64) {
        *t += rtt;
        let a = Ack {
            now: Instant::from_millis(*t),
            delivered: 10,
            rtt: Some(Duration::from_millis(rtt)),
            peer_tsval: Instant::from_millis(*t),
            epoch_echo: gt.epoch(),
            ..Ack::default()
        };
        gt.on_rtt_sample(w, &a);
    }

    #[test]
    fn an_epoch_that_overlaps_loss_recovery_is_not_measured() {
        let (mut gt, mut w, mut t) = (TcpGt::default(), Window::INITIAL, 0);
        for _ in 0..3 {
            end_epoch(&mut gt, &mut w, &mut t, 50);
        }
        let before = gt.last_epoch().expect("measured epochs");
        assert!(before.s > 1.0 && before.per_segment > 0.0, "increasing: {before:?}");
        gt.on_state(&mut w, CaState::Recovery);
        assert_eq!((gt.s, gt.per_segment), (1.0, 0.0), "recovery merges the split and stops the increase");
        // Epochs ending in recovery, and the first one after it, are skipped.
        end_epoch(&mut gt, &mut w, &mut t, 50);
        gt.on_state(&mut w, CaState::Open);
        end_epoch(&mut gt, &mut w, &mut t, 50);
        assert_eq!(gt.last_epoch(), Some(before), "no epoch measured across recovery");
        assert_eq!((gt.s, gt.per_segment), (1.0, 0.0));
        end_epoch(&mut gt, &mut w, &mut t, 50);
        let after = gt.last_epoch().unwrap();
        assert_ne!(after, before, "a clean epoch is measured again");
        assert_eq!(after.s, 2.0, "the split restarts from one");
    }

    #[test]
    fn after_a_timeout_the_window_slow_starts_back_to_ssthresh() {
        let (mut gt, mut w, mut t) = (TcpGt::default(), Window::INITIAL, 0);
        for _ in 0..3 {
            end_epoch(&mut gt, &mut w, &mut t, 500);
        }
        // The sender's timeout: ssthresh from the control, cwnd 1, Loss.
        w.ssthresh = gt.ssthresh(&Window { cwnd: 4000, ..w }, Instant::ZERO);
        gt.on_timeout(Instant::ZERO);
        w.cwnd = 1;
        gt.on_state(&mut w, CaState::Loss);
        // Each ACKed segment adds one until ssthresh (2000), then nothing
        // more while the Loss state lasts.
        let mut acks = 0;
        while w.cwnd < 2000 && acks < 5000 {
            gt.on_ack(&mut w, &Ack { acked: 1, ..Ack::default() });
            acks += 1;
        }
        assert_eq!((w.cwnd, acks), (2000, 1999));
        gt.on_ack(&mut w, &Ack { acked: 1, ..Ack::default() });
        assert_eq!(w.cwnd, 2000);
    }

    #[test]
    fn the_time_window_ablation_forgets_after_500_ms_whatever_the_rtt() {
        for (rtt, epochs_kept) in [(40, 12), (100, 5)] {
            let (mut gt, mut w, mut t) = (TcpGt::with_time_window(), Window::INITIAL, 0);
            end_epoch(&mut gt, &mut w, &mut t, rtt - 10);
            let low = Duration::from_millis(rtt - 10);
            for _ in 0..epochs_kept {
                end_epoch(&mut gt, &mut w, &mut t, rtt);
                assert_eq!(gt.local_min_rtt(), Some(low), "{rtt} ms: within 500 ms");
            }
            end_epoch(&mut gt, &mut w, &mut t, rtt);
            assert_eq!(gt.local_min_rtt(), Some(Duration::from_millis(rtt)), "{rtt} ms: forgotten after 500 ms");
        }
    }

    #[test]
    fn on_a_bottleneck_the_window_settles_near_the_bdp_with_a_small_queue() {
        // 50 Mbit/s of 1500-byte packets, 40 ms: BDP 167 segments.
        let mut link = Bottleneck::new(50e6 / 12_000.0, Duration::from_millis(40));
        let mut gt = TcpGt::default();
        let mut w = Window::INITIAL;
        let steps = link.run(&mut gt, &mut w, Instant::ZERO, Instant::from_millis(30_000));
        let late: Vec<_> = steps.iter().filter(|s| s.now > Instant::from_millis(10_000)).collect();
        let delivered = late.len() as f64 / 20.0;
        let qmean = late.iter().map(|s| s.queue).sum::<f64>() / late.len() as f64;
        let qmax = late.iter().map(|s| s.queue).fold(0.0, f64::max);
        eprintln!("tcp-gt testbed: {delivered:.0} seg/s of {:.0}, queue mean {qmean:.1} max {qmax:.1}", link.rate);
        assert!(delivered > 0.9 * link.rate, "utilisation {:.3}", delivered / link.rate);
        assert!(qmean < 0.5 * link.bdp(), "queue mean {qmean:.1} segments");
    }
}
