//! `drw`: the dynamic receive window of Zhang et al.'s mmWave study (§III):
//! rwnd = bandwidth x RTT_min, with the bandwidth chosen by delay from a
//! cross-layer hint of the access link.

use super::{Controller, ControllerError, ControllerState, Params};
use crate::estimators::{clamp_rwnd, PerRttCounter, RttEwma};
use crate::time::{Duration, Instant};
use crate::units::Bandwidth;

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
/// receiver. Both come from [`Controller::on_bandwidth_hint`]; until the
/// first hint, the measured delivery rate (bytes per RTT / RTT) stands in.
#[derive(Clone, Debug)]
pub struct Drw {
    p: DrwParams,
    mss: u32,
    rtt: RttEwma,
    counter: PerRttCounter,
    /// Last hint: (total, allocated).
    hint: Option<(Bandwidth, Bandwidth)>,
    /// Last period's bytes and its delivery rate in bytes per second.
    delivered: Option<(u64, f64)>,
}

impl Drw {
    pub fn new(p: DrwParams, mss: u32) -> Self {
        Drw {
            p,
            mss,
            rtt: RttEwma::new(1.0 / 8.0), // smoothed RTT, gain 1/8 as RTAC's beta and Linux's srtt
            counter: PerRttCounter::new(),
            hint: None,
            delivered: None,
        }
    }
}

impl Controller for Drw {
    fn on_rtt_sample(&mut self, _now: Instant, rtt: Duration) {
        self.rtt.on_sample(rtt); // §III "optimal delay": RTT_min is the minimum RTT
    }

    fn on_data_consumed(&mut self, now: Instant, bytes: u64) {
        let srtt = self.rtt.srtt();
        if let (Some(bytes), Some(srtt)) = (self.counter.on_consumed(now, bytes, srtt), srtt) {
            self.delivered = Some((bytes, bytes as f64 / srtt.as_secs_f64()));
        }
    }

    fn on_bandwidth_hint(&mut self, _now: Instant, total: Bandwidth, allocated: Bandwidth) {
        self.hint = Some((total, allocated));
    }

    fn rwnd(&self) -> Option<u64> {
        let window = match (self.rtt.srtt(), self.rtt.min(), self.hint, self.delivered) {
            // §III "optimal bandwidth": total while RTT <= RTT_min + delta, else allocated.
            (Some(srtt), Some(min), Some((total, allocated)), _) => {
                let bw = if srtt <= min + self.p.delta { total } else { allocated };
                bw.bytes_in(min) as f64 // rwnd = bandwidth x RTT_min
            }
            (Some(_), Some(min), None, Some((_, rate))) => rate * min.as_secs_f64(),
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
            window_bytes: self.delivered.map(|(bytes, _)| bytes),
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
    fn falls_back_to_the_delivery_rate_without_hints() {
        let mut c = Drw::new(DrwParams::default(), MSS);
        assert_eq!(c.rwnd(), Some(65_536));
        let t = steady(&mut c, Instant::ZERO, MIN, 100 * 1000, 100, 3);
        steady(&mut c, t, Duration::from_millis(80), 100 * 1000, 100, 3);
        // 100 kB per 80 ms at RTT_min 40 ms; the smoothed RTT is within 1 ns of 80 ms.
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
