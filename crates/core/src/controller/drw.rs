//! `drw`: the dynamic receive window of Zhang et al.'s mmWave study (§III):
//! rwnd = bandwidth x RTT_min, with the bandwidth chosen by delay from a
//! cross-layer hint of the access link, or measured where there is none.

use super::{Controller, ControllerError, ControllerState, Params};
use crate::estimators::{clamp_rwnd, PerRttCounter, RttEwma};
use crate::time::{Duration, Instant};
use crate::units::Bandwidth;
use std::collections::VecDeque;

const NAME: &str = "drw";
const KEYS: &[&str] = &["delta", "rmem_max", "init_rwnd"];

/// Parameters of [`Drw`].
#[derive(Clone, Debug, PartialEq)]
pub struct DrwParams {
    /// Width of the low-latency region [RTT_min, RTT_min + delta].
    pub delta: Duration,
    /// tcp_rmem_max, the largest window advertised, in bytes.
    pub rmem_max: u64,
    /// The window advertised before any estimate, in bytes.
    pub init_rwnd: u64,
}

impl Default for DrwParams {
    fn default() -> Self {
        DrwParams {
            delta: Duration::from_millis(10), // §III, footnote: delta = 10 ms
            rmem_max: 2_621_440,              // 2,560 KB, as RTAC Table I for every receiver
            init_rwnd: 65_536,                // 64 KB, Linux's initial advertised window
        }
    }
}

impl DrwParams {
    /// The defaults with every `key=value` of `p` applied.
    pub fn from_params(p: &Params) -> Result<Self, ControllerError> {
        let mut out = DrwParams::default();
        for kv in p.of(NAME) {
            match kv.key {
                "delta" => out.delta = kv.duration()?,
                "rmem_max" => out.rmem_max = kv.bytes()?,
                "init_rwnd" => out.init_rwnd = kv.bytes()?,
                _ => return Err(kv.unknown(KEYS)),
            }
        }
        Ok(out)
    }
}

/// DRW: rwnd = bandwidth x RTT_min. The bandwidth is the link's whole data
/// bandwidth while the smoothed RTT is within [RTT_min, RTT_min + delta]
/// (no bufferbloat), else the share the base station allocated to this
/// receiver. Both come from [`Controller::on_bandwidth_hint`].
///
/// Without hints (any link but a base station that reports them) the
/// receiver measures instead: its delivery rate over each period of one
/// smoothed RTT stands in for the allocated share, and the largest of the
/// last `PEAK_PERIODS` for the whole bandwidth. A window of exactly
/// rate x RTT_min could only keep or lose rate (the delivery rate is at
/// most window / RTT), so in the low-latency region the fallback
/// advertises peak x (RTT_min + delta): the largest window that keeps the
/// RTT inside the region if the peak is all the link has, and one that
/// lets the delivery rate, and with it the peak, grow by (RTT_min + delta)
/// / RTT per period if the link has more. Outside the region it advertises
/// peak x RTT_min, which drains the queue (§III: "a more conservative
/// sending rate, in order to mitigate the delay").
#[derive(Clone, Debug)]
pub struct Drw {
    p: DrwParams,
    mss: u32,
    rtt: RttEwma,
    counter: PerRttCounter,
    /// Last hint: (total, allocated).
    hint: Option<(Bandwidth, Bandwidth)>,
    /// The bytes of the last period and when it ended.
    period: Option<(u64, Instant)>,
    /// Delivery rates of the last periods, bytes per second, newest last.
    rates: VecDeque<f64>,
}

/// Periods of one RTT over which the fallback's peak rate is the maximum
/// (BBR's bottleneck-bandwidth filter spans 10 round trips likewise).
pub const PEAK_PERIODS: usize = 10;

impl Drw {
    pub fn new(p: DrwParams, mss: u32) -> Self {
        Drw {
            p,
            mss,
            rtt: RttEwma::new(1.0 / 8.0), // smoothed RTT, gain 1/8 as RTAC's beta and Linux's srtt
            counter: PerRttCounter::new(),
            hint: None,
            period: None,
            rates: VecDeque::with_capacity(PEAK_PERIODS + 1),
        }
    }

    /// The fallback's window without hints, bytes.
    fn measured_window(&self, srtt: Duration, min: Duration) -> Option<f64> {
        let peak = self.rates.iter().copied().fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r))))?;
        let span = if srtt <= min + self.p.delta { min + self.p.delta } else { min };
        Some(peak * span.as_secs_f64())
    }
}

impl Controller for Drw {
    fn on_rtt_sample(&mut self, _now: Instant, rtt: Duration) {
        self.rtt.on_sample(rtt); // §III "optimal delay": RTT_min is the minimum RTT
    }

    fn on_data_consumed(&mut self, now: Instant, bytes: u64) {
        let Some(count) = self.counter.on_consumed(now, bytes, self.rtt.srtt()) else { return };
        // The first period's start is the first read the counter saw; the
        // rate needs a known start, so it begins with the second period.
        if let Some((_, start)) = self.period {
            let secs = (now - start).as_secs_f64();
            if secs > 0.0 {
                if self.rates.len() == PEAK_PERIODS {
                    self.rates.pop_front();
                }
                self.rates.push_back(count as f64 / secs);
            }
        }
        self.period = Some((count, now));
    }

    fn on_bandwidth_hint(&mut self, _now: Instant, total: Bandwidth, allocated: Bandwidth) {
        self.hint = Some((total, allocated));
    }

    fn rwnd(&self) -> Option<u64> {
        let window = match (self.rtt.srtt(), self.rtt.min(), self.hint) {
            // §III "optimal bandwidth": total while RTT <= RTT_min + delta, else allocated.
            (Some(srtt), Some(min), Some((total, allocated))) => {
                let bw = if srtt <= min + self.p.delta { total } else { allocated };
                bw.bytes_in(min) as f64 // rwnd = bandwidth x RTT_min
            }
            (Some(srtt), Some(min), None) => self.measured_window(srtt, min).unwrap_or(self.p.init_rwnd as f64),
            _ => self.p.init_rwnd as f64,
        };
        Some(clamp_rwnd(window, self.mss, self.p.rmem_max))
    }

    fn max_window(&self) -> Option<u64> {
        Some(self.p.rmem_max)
    }

    fn state(&self) -> ControllerState {
        ControllerState {
            rtt: self.rtt.srtt(),
            rtt_min: self.rtt.min(),
            window_bytes: self.period.map(|(bytes, _)| bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimators::testing::steady;

    const MSS: u32 = 1448;
    const MIN: Duration = Duration::from_millis(40);

    fn hinted(c: &mut Drw) {
        c.on_bandwidth_hint(Instant::ZERO, Bandwidth::from_mbps(100), Bandwidth::from_mbps(40));
    }

    #[test]
    fn uses_total_bandwidth_while_rtt_is_near_its_minimum() {
        let mut c = Drw::new(DrwParams::default(), MSS);
        hinted(&mut c);
        let t = steady(&mut c, Instant::ZERO, MIN, 100 * 1000, 100, 3);
        steady(&mut c, t, MIN + Duration::from_millis(9), 100 * 1000, 100, 3);
        assert_eq!(c.rwnd(), Some(500_000)); // 100 Mbit/s x 40 ms
    }

    #[test]
    fn uses_allocated_bandwidth_when_rtt_exceeds_min_plus_delta() {
        let mut c = Drw::new(DrwParams::default(), MSS);
        hinted(&mut c);
        let t = steady(&mut c, Instant::ZERO, MIN, 100 * 1000, 100, 3);
        steady(&mut c, t, MIN + Duration::from_millis(11), 100 * 1000, 100, 3);
        assert_eq!(c.rwnd(), Some(200_000)); // 40 Mbit/s x 40 ms
        let wide = DrwParams { delta: Duration::from_millis(20), ..Default::default() };
        let mut c = Drw::new(wide, MSS);
        hinted(&mut c);
        let t = steady(&mut c, Instant::ZERO, MIN, 100 * 1000, 100, 3);
        steady(&mut c, t, MIN + Duration::from_millis(11), 100 * 1000, 100, 3);
        assert_eq!(c.rwnd(), Some(500_000));
    }

    #[test]
    fn without_hints_the_window_outgrows_the_delivery_while_the_rtt_stays_low() {
        let mut c = Drw::new(DrwParams::default(), MSS);
        assert_eq!(c.rwnd(), Some(65_536));
        // 100 kB per 40 ms = 2.5 MB/s, RTT at its minimum: the window
        // covers the region's edge, 2.5 MB/s x (40 + 10) ms, a quarter
        // more than is delivered now, so the rate can grow.
        steady(&mut c, Instant::ZERO, MIN, 100 * 1000, 100, 3);
        assert!(c.rwnd().unwrap().abs_diff(125_000) <= 1, "{:?}", c.rwnd());
    }

    #[test]
    fn without_hints_a_queue_brings_the_window_to_the_peak_rate_times_rtt_min() {
        let mut c = Drw::new(DrwParams::default(), MSS);
        let t = steady(&mut c, Instant::ZERO, MIN, 100 * 1000, 100, 3);
        // The RTT rises to 80 ms, 100 kB per 80 ms: outside the region the
        // window is the peak rate (still 2.5 MB/s) x RTT_min.
        let t = steady(&mut c, t, Duration::from_millis(80), 100 * 1000, 100, 3);
        assert!(c.rwnd().unwrap().abs_diff(100_000) <= 1, "{:?}", c.rwnd());
        // Once the fast periods leave the peak's window, 1.25 MB/s x 40 ms.
        steady(&mut c, t, Duration::from_millis(80), 100 * 1000, 100, PEAK_PERIODS as u64);
        assert!(c.rwnd().unwrap().abs_diff(50_000) <= 1, "{:?}", c.rwnd());
    }

    #[test]
    fn floors_at_two_segments_and_caps_at_rmem_max() {
        let mut c = Drw::new(DrwParams { rmem_max: 300_000, ..Default::default() }, MSS);
        steady(&mut c, Instant::ZERO, MIN, 100 * 1000, 100, 3);
        hinted(&mut c);
        assert_eq!(c.rwnd(), Some(300_000));
        c.on_bandwidth_hint(Instant::ZERO, Bandwidth::from_bps(0), Bandwidth::from_bps(0));
        assert_eq!(c.rwnd(), Some(2 * MSS as u64));
    }

    #[test]
    fn params_apply_keys_and_reject_unknown_ones() {
        let p = Params::parse_list("delta=5ms,rmem_max=16MB,init_rwnd=128KB").unwrap();
        let d = DrwParams::from_params(&p).unwrap();
        assert_eq!(d, DrwParams { delta: Duration::from_millis(5), rmem_max: 16 << 20, init_rwnd: 131_072 });
        let p = Params::parse_list("k=1").unwrap();
        assert!(matches!(DrwParams::from_params(&p),
            Err(ControllerError::UnknownParam { known, .. }) if known == KEYS));
        let p = Params::parse_list("delta=ten").unwrap();
        assert!(matches!(DrwParams::from_params(&p),
            Err(ControllerError::BadValue { key, .. }) if key == "delta"));
    }
}
