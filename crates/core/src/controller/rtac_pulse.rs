//! Rate pulses of the self-tuning RTAC receiver (`rtac_tuning.rs`): whether
//! the RTT above RTT_m is a queue, told from the delivery rate.
//!
//! A drained probe measures Delta only where its floor reaches the band,
//! and on a path whose no-queue RTT drifts by more than the target queue
//! (an LTE channel at a short RTT) no floor does: RTAC's equations then
//! read the drift as a queue and shrink the window until the link starves
//! (Arun et al., SIGCOMM 2022). The rate tells the two apart. Every
//! [`PULSE_PERIODS`] periods while the smoothed RTT lies above the band,
//! the cooperative window is raised by [`PULSE_GAIN`] for two periods and
//! lowered by as much for two (BBR's ProbeBW gains, Cardwell et al. 2016;
//! the pulse adds no data on balance), and the raised window's data is
//! compared with the period before. A link that the window kept busy
//! delivers no more, and the extra data queues; one that it did not
//! delivers about PULSE_GAIN times more at the same RTT. Then the RTT
//! above RTT_m was no queue of RTAC's, and the least RTT sample of the
//! pulse less RTT_m is a sample of Delta. This is Nimbus's test (Goyal et
//! al., SIGCOMM 2022: change one's own rate and see whether the path
//! follows) on the delivery rate, which a receiver measures.
//!
//! On a FIFO link that another window-limited receiver shares, a raise
//! brings more too (a larger share of the service), but its data queues:
//! the RTT rises by (PULSE_GAIN - 1) times the share of the link this
//! receiver holds. A pulse counts as free only while that rise stays under
//! a quarter of (PULSE_GAIN - 1), so a receiver takes another's queue into
//! its Delta only while it holds under a quarter of the link (it is being
//! starved); two receivers at equal shares leave each other's queue alone.
//! Each pulse that finds the link busy doubles the interval, up to
//! [`PULSE_BACKOFF`] times.

use crate::time::Duration;

/// Periods between rate pulses, and a pulse's gain: BBR's ProbeBW cycle,
/// eight phases of about an RTT with one at 1.25 (Cardwell et al. 2016).
pub const PULSE_PERIODS: u32 = 8;
pub const PULSE_GAIN: f64 = 1.25;
/// Doublings of the pulse interval after pulses that found the link busy:
/// a link with nothing to gain is pulsed at most every 64 periods, so its
/// queue moves for four periods in 64.
pub const PULSE_BACKOFF: u32 = 3;

/// The pulses of one receiver.
#[derive(Clone, Debug, Default)]
pub(super) struct Pulses {
    pulse: Option<Pulse>,
    /// Periods since the last pulse ended.
    since: u32,
    /// Pulses in a row that found the link busy.
    busy: u32,
    /// The RTT samples of the period under way: their sum and count.
    rtt_sum: Duration,
    rtt_n: u32,
}

/// A pulse under way.
#[derive(Clone, Copy, Debug)]
struct Pulse {
    /// The delivery rate of the period before the pulse, and of the periods
    /// that bring the raised window's data.
    before: f64,
    up: f64,
    /// The mean RTT samples of the same periods.
    rtt_before: Duration,
    rtt_up: Duration,
    /// Periods since it started.
    periods: u32,
    /// The least RTT sample since it started.
    least: Option<Duration>,
}

/// What a period's end decides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Step {
    /// The gain on the window for the next period.
    pub(super) gain: f64,
    /// A pulse found the link free: its least RTT sample.
    pub(super) free: Option<Duration>,
}

impl Pulses {
    /// Every valid RTT sample.
    pub(super) fn on_rtt_sample(&mut self, rtt: Duration) {
        (self.rtt_sum, self.rtt_n) = (self.rtt_sum + rtt, self.rtt_n.saturating_add(1));
        if let Some(p) = &mut self.pulse {
            p.least = Some(p.least.map_or(rtt, |m| m.min(rtt)));
        }
    }

    /// The window is not the cooperative one (a probe, another mode): a
    /// pulse under way is dropped, and so are the period's RTT samples.
    pub(super) fn stop(&mut self) {
        self.pulse = None;
        (self.rtt_sum, self.rtt_n) = (Duration::ZERO, 0);
    }

    /// The end of a cooperative period that delivered at `rate`; `queued`:
    /// its smoothed RTT lies above the band.
    pub(super) fn on_period(&mut self, queued: bool, rate: f64) -> Step {
        let step = |gain| Step { gain, free: None };
        let rtt = if self.rtt_n == 0 { Duration::ZERO } else { self.rtt_sum.mul_f64(1.0 / f64::from(self.rtt_n)) };
        (self.rtt_sum, self.rtt_n) = (Duration::ZERO, 0);
        self.since += 1;
        let Some(p) = &mut self.pulse else {
            if queued && self.since >= PULSE_PERIODS << self.busy.min(PULSE_BACKOFF) {
                self.pulse = Some(Pulse {
                    before: rate,
                    up: 0.0,
                    rtt_before: rtt,
                    rtt_up: Duration::ZERO,
                    periods: 1,
                    least: None,
                });
                return step(PULSE_GAIN);
            }
            return step(1.0);
        };
        p.periods += 1;
        match p.periods {
            2 => step(PULSE_GAIN),
            // The window raised at the end of the period before the pulse
            // brings its data in this period and the next.
            3 => {
                (p.up, p.rtt_up) = (rate, rtt);
                step(2.0 - PULSE_GAIN)
            }
            4 => {
                (p.up, p.rtt_up) = ((p.up + rate) / 2.0, (p.rtt_up + rtt).mul_f64(0.5));
                step(2.0 - PULSE_GAIN)
            }
            5 => step(1.0),
            _ => {
                let p = *p;
                (self.pulse, self.since) = (None, 0);
                // Halfway from a busy link's 1 to a free one's PULSE_GAIN,
                // and the raise did not queue (see the module's comment).
                let rose = p.up >= p.before * (1.0 + (PULSE_GAIN - 1.0) / 2.0);
                let unqueued = p.rtt_up <= p.rtt_before.mul_f64(1.0 + (PULSE_GAIN - 1.0) / 4.0);
                let free = rose && unqueued;
                self.busy = if free { 0 } else { self.busy + 1 };
                Step { gain: 1.0, free: p.least.filter(|_| free) }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Runs pulses on a link that delivers `rate(gain)` in a period, with
    /// RTT samples of `rtt`; returns the gains and the least RTTs of the
    /// pulses that found the link free. A window set at the end of one
    /// period reaches the sender half an RTT later, and the data it lets
    /// out arrives in the period after the next: a period's rate follows
    /// the gain set two periods before.
    fn run(periods: usize, rate: impl Fn(f64) -> f64, rtt: impl Fn(f64) -> Duration) -> (Vec<f64>, Vec<Duration>) {
        let (mut p, mut gains, mut free) = (Pulses::default(), vec![1.0, 1.0], vec![]);
        for _ in 0..periods {
            let g = gains[gains.len() - 2];
            p.on_rtt_sample(rtt(g));
            let s = p.on_period(true, rate(g));
            gains.push(s.gain);
            free.extend(s.free);
        }
        (gains.split_off(2), free)
    }

    #[test]
    fn a_pulse_raises_two_periods_lowers_two_and_nets_nothing() {
        let (gains, _) = run(14, |_| 1e6, |_| ms(20));
        assert_eq!(&gains[7..13], &[1.25, 1.25, 0.75, 0.75, 1.0, 1.0]);
        assert_eq!(gains[..7], [1.0; 7]);
        assert!((gains.iter().sum::<f64>() - 14.0).abs() < 1e-9);
    }

    #[test]
    fn a_link_whose_rate_follows_the_window_is_free_and_gives_the_least_rtt() {
        // The rate of a period follows the window of the one before.
        let (_, free) = run(40, |g| 1e6 * g, |_| ms(37));
        assert!(!free.is_empty());
        assert!(free.iter().all(|&d| d == ms(37)));
    }

    #[test]
    fn a_busy_link_gives_no_sample_and_its_pulses_back_off() {
        let (gains, free) = run(400, |_| 1e6, |_| ms(37));
        assert!(free.is_empty());
        let starts: Vec<usize> = (1..gains.len()).filter(|&i| gains[i] > 1.0 && gains[i - 1] == 1.0).collect();
        let gaps: Vec<usize> = starts.windows(2).map(|w| w[1] - w[0]).collect();
        // Each busy pulse doubles the wait, up to 2^PULSE_BACKOFF times.
        let wait = |busy: u32| (PULSE_PERIODS << busy.min(PULSE_BACKOFF)) as usize + 5;
        assert_eq!(&gaps[..5], &[wait(1), wait(2), wait(3), wait(3), wait(3)]);
    }

    #[test]
    fn a_share_of_a_busy_fifo_gains_rate_but_its_raise_queues() {
        // Beside another window-limited receiver holding a share 1 - s of a
        // busy link, a window raised by g brings g / (g s + 1 - s) times
        // the rate and adds (g - 1) s to the RTT. At 0.3 of the link the rate
        // rises by more than half the gain, but the raise queues; starved at
        // a tenth of the link, the pulse counts as free.
        let fifo =
            |s: f64| run(40, move |g| 1e6 * g / (g * s + 1.0 - s), move |g| ms(20).mul_f64(1.0 + (g - 1.0) * s)).1;
        assert!(fifo(0.3).is_empty());
        assert!(!fifo(0.1).is_empty());
    }

    #[test]
    fn no_pulse_without_a_queue_and_none_survives_a_stop() {
        let mut p = Pulses::default();
        for _ in 0..50 {
            assert_eq!(p.on_period(false, 1e6).gain, 1.0);
        }
        assert_eq!(p.on_period(true, 1e6).gain, PULSE_GAIN);
        p.stop();
        assert_eq!(p.on_period(false, 1e6).gain, 1.0);
    }
}
