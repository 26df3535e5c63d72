//! `autotuning`: Linux receive-buffer auto-tuning (Dynamic Right-Sizing) as
//! RTAC eq. (12) models it: twice the largest window seen, never shrinking.
//! `rmem_max` is tcp_rmem[2], the buffer: Linux `tcp_rcv_space_adjust`
//! sizes the buffer so that the window is about twice the bytes copied per
//! RTT, and the window it may advertise is `tcp_win_from_space` of the
//! buffer, 3/4 of tcp_rmem[2] at most; the receiver applies that cap.

use super::{Controller, ControllerError, ControllerState, Params};
use crate::estimators::{clamp_rwnd, PerRttCounter, RttEwma};
use crate::time::{Duration, Instant};

const NAME: &str = "autotuning";
const KEYS: &[&str] = &["rmem_max", "init_rwnd"];

/// Parameters of [`Autotuning`].
#[derive(Clone, Debug, PartialEq)]
pub struct AutotuningParams {
    /// tcp_rmem_max, the largest window advertised, in bytes.
    pub rmem_max: u64,
    /// The window advertised until twice the estimate exceeds it, in bytes.
    pub init_rwnd: u64,
}

impl Default for AutotuningParams {
    fn default() -> Self {
        AutotuningParams {
            rmem_max: 2_621_440, // 2,560 KB (RTAC Table I)
            init_rwnd: 65_536,   // 64 KB, Linux's initial advertised window
        }
    }
}

impl AutotuningParams {
    /// The defaults with every `key=value` of `p` applied.
    pub fn from_params(p: &Params) -> Result<Self, ControllerError> {
        let mut out = AutotuningParams::default();
        for kv in p.of(NAME) {
            match kv.key {
                "rmem_max" => out.rmem_max = kv.bytes()?,
                "init_rwnd" => out.init_rwnd = kv.bytes()?,
                _ => return Err(kv.unknown(KEYS)),
            }
        }
        Ok(out)
    }
}

/// rwnd = min(max(2 w*, init_rwnd), rmem_max), where w* is the largest
/// number of bytes consumed in one RTT so far (RTAC eq. (12)).
#[derive(Clone, Debug)]
pub struct Autotuning {
    p: AutotuningParams,
    mss: u32,
    rtt: RttEwma,
    counter: PerRttCounter,
    w_max: u64,
}

impl Autotuning {
    pub fn new(p: AutotuningParams, mss: u32) -> Self {
        Autotuning {
            p,
            mss,
            rtt: RttEwma::new(1.0 / 8.0), // gain 1/8, as RTAC's beta and Linux's srtt
            counter: PerRttCounter::new(),
            w_max: 0,
        }
    }
}

impl Controller for Autotuning {
    fn on_rtt_sample(&mut self, _now: Instant, rtt: Duration) {
        self.rtt.on_sample(rtt);
    }

    fn on_data_consumed(&mut self, now: Instant, bytes: u64) {
        if let Some(w) = self.counter.on_consumed(now, bytes, self.rtt.srtt()) {
            self.w_max = self.w_max.max(w); // w*: DRS never shrinks (DRWA §5.1)
        }
    }

    fn rwnd(&self) -> Option<u64> {
        // RTAC eq. (12): min{2 w*, tcp_rmem_max}, starting from init_rwnd.
        let want = (2 * self.w_max).max(self.p.init_rwnd);
        Some(clamp_rwnd(want as f64, self.mss, self.p.rmem_max))
    }

    fn max_window(&self) -> Option<u64> {
        Some(self.p.rmem_max)
    }

    fn state(&self) -> ControllerState {
        ControllerState {
            rtt: self.rtt.srtt(),
            rtt_min: self.rtt.min(),
            window_bytes: (self.w_max > 0).then_some(self.w_max),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimators::testing::steady;

    const MSS: u32 = 1448;
    const RTT: Duration = Duration::from_millis(50);

    #[test]
    fn advertises_twice_the_largest_window_capped_by_rmem_max() {
        let mut c = Autotuning::new(AutotuningParams::default(), MSS);
        steady(&mut c, Instant::ZERO, RTT, 100 * 1000, 100, 5);
        assert_eq!(c.rwnd(), Some(200_000));
        assert_eq!(c.state().window_bytes, Some(100_000));

        let mut c = Autotuning::new(AutotuningParams { rmem_max: 150_000, ..Default::default() }, MSS);
        steady(&mut c, Instant::ZERO, RTT, 100 * 1000, 100, 5);
        assert_eq!(c.rwnd(), Some(150_000));
    }

    #[test]
    fn never_decreases_when_delivery_falls() {
        let mut c = Autotuning::new(AutotuningParams::default(), MSS);
        let mut t = steady(&mut c, Instant::ZERO, RTT, 100 * 1000, 100, 5);
        let mut last = c.rwnd().unwrap();
        assert!(last >= 200_000);
        for _ in 0..10 {
            t = steady(&mut c, t, Duration::from_millis(200), 10 * 1000, 100, 1);
            let now = c.rwnd().unwrap();
            assert!(now >= last, "{now} < {last}");
            last = now;
        }
    }

    #[test]
    fn init_rwnd_holds_until_twice_the_estimate_exceeds_it() {
        let mut c = Autotuning::new(AutotuningParams::default(), MSS);
        assert_eq!(c.rwnd(), Some(65_536));
        let t = steady(&mut c, Instant::ZERO, RTT, 20 * 1000, 20, 5);
        assert_eq!(c.rwnd(), Some(65_536));
        steady(&mut c, t, RTT, 40 * 1000, 20, 5);
        assert_eq!(c.rwnd(), Some(80_000));
    }

    #[test]
    fn params_apply_keys_and_reject_unknown_ones() {
        let p = Params::parse_list("rmem_max=400KB,init_rwnd=16KB").unwrap();
        let a = AutotuningParams::from_params(&p).unwrap();
        assert_eq!((a.rmem_max, a.init_rwnd), (409_600, 16_384));
        let p = Params::parse_list("lambda=3").unwrap();
        assert!(matches!(AutotuningParams::from_params(&p),
            Err(ControllerError::UnknownParam { known, .. }) if known == KEYS));
        let p = Params::parse_list("init_rwnd=0").unwrap();
        assert!(matches!(AutotuningParams::from_params(&p),
            Err(ControllerError::BadValue { key, .. }) if key == "init_rwnd"));
    }
}
