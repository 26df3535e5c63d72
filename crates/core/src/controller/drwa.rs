//! `drwa`: Dynamic Receive Window Adjustment (Jiang et al., IMC 2012,
//! §5.2 Algorithm 1), the receiver-side baseline RTAC compares against.

use super::{Controller, ControllerError, ControllerState, Params};
use crate::estimators::{clamp_rwnd, PerRttCounter, WindowMeanRtt};
use crate::time::{Duration, Instant};

const NAME: &str = "drwa";
const KEYS: &[&str] = &["lambda", "alpha", "rmem_max", "init_rwnd"];

/// Parameters of [`Drwa`].
#[derive(Clone, Debug, PartialEq)]
pub struct DrwaParams {
    /// Target ratio of RTT to RTT_min; rwnd = lambda (RTT_min / RTT_est) cwnd_est.
    pub lambda: f64,
    /// Weight of the old window estimate in the moving average.
    pub alpha: f64,
    /// tcp_rmem_max, the largest window advertised, in bytes.
    pub rmem_max: u64,
    /// The window advertised before the first estimate, in bytes.
    pub init_rwnd: u64,
}

impl Default for DrwaParams {
    fn default() -> Self {
        DrwaParams {
            lambda: 3.0,         // DRWA §5.4; RTAC Table I
            alpha: 7.0 / 8.0,    // DRWA §5.2
            rmem_max: 2_621_440, // 2,560 KB (RTAC Table I)
            init_rwnd: 65_536,   // 64 KB, Linux's initial advertised window
        }
    }
}

impl DrwaParams {
    /// The defaults with every `key=value` of `p` applied.
    pub fn from_params(p: &Params) -> Result<Self, ControllerError> {
        let mut out = DrwaParams::default();
        for kv in p.of(NAME) {
            match kv.key {
                "lambda" => out.lambda = kv.f64("a positive number such as 3", |v| v > 0.0)?,
                "alpha" => out.alpha = kv.f64("a weight in [0, 1) such as 0.875", |v| (0.0..1.0).contains(&v))?,
                "rmem_max" => out.rmem_max = kv.bytes()?,
                "init_rwnd" => out.init_rwnd = kv.bytes()?,
                _ => return Err(kv.unknown(KEYS)),
            }
        }
        Ok(out)
    }
}

/// DRWA: once per RTT, rwnd = lambda (RTT_min / RTT_est) cwnd_est, where
/// cwnd_est smooths the bytes consumed per RTT and RTT_est averages the
/// RTT samples of the last RTT.
#[derive(Clone, Debug)]
pub struct Drwa {
    p: DrwaParams,
    mss: u32,
    rtt: WindowMeanRtt,
    counter: PerRttCounter,
    cwnd_est: Option<f64>,
    rwnd: Option<u64>,
}

impl Drwa {
    pub fn new(p: DrwaParams, mss: u32) -> Self {
        Drwa { p, mss, rtt: WindowMeanRtt::new(), counter: PerRttCounter::new(), cwnd_est: None, rwnd: None }
    }
}

impl Controller for Drwa {
    fn on_rtt_sample(&mut self, now: Instant, rtt: Duration) {
        self.rtt.on_sample(now, rtt); // DRWA Alg. 1 lines 10-16
    }

    fn on_data_consumed(&mut self, now: Instant, bytes: u64) {
        // DRWA Alg. 1 lines 19-23: act once per RTT_est.
        let Some(data_rcvd) = self.counter.on_consumed(now, bytes, self.rtt.mean()) else {
            return;
        };
        let (Some(rtt_est), Some(rtt_min)) = (self.rtt.mean(), self.rtt.min()) else {
            return;
        };
        let data_rcvd = data_rcvd as f64;
        // DRWA Alg. 1 line 4 (first RTT) and line 24: cwnd_est <- alpha cwnd_est + (1 - alpha) data_rcvd.
        let cwnd = self.cwnd_est.map_or(data_rcvd, |c| self.p.alpha * c + (1.0 - self.p.alpha) * data_rcvd);
        self.cwnd_est = Some(cwnd);
        // DRWA Alg. 1 line 25 (RTAC eq. (13)): rwnd <- lambda (RTT_min / RTT_est) cwnd_est.
        let rwnd = self.p.lambda * (rtt_min.as_secs_f64() / rtt_est.as_secs_f64()) * cwnd;
        self.rwnd = Some(clamp_rwnd(rwnd, self.mss, self.p.rmem_max));
    }

    fn rwnd(&self) -> Option<u64> {
        // DRWA Alg. 1 line 5 leaves rwnd unset before the first estimate: advertise init_rwnd.
        Some(self.rwnd.unwrap_or_else(|| clamp_rwnd(self.p.init_rwnd as f64, self.mss, self.p.rmem_max)))
    }

    fn max_window(&self) -> Option<u64> {
        Some(self.p.rmem_max)
    }

    fn state(&self) -> ControllerState {
        ControllerState {
            rtt: self.rtt.mean(),
            rtt_min: self.rtt.min(),
            window_bytes: self.cwnd_est.map(|c| c.round() as u64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimators::testing::steady;

    const MSS: u32 = 1448;
    const W: u64 = 100 * 1448; // bytes consumed per RTT

    fn assert_near(got: u64, want: f64, tol: f64) {
        assert!((got as f64 - want).abs() <= tol * want, "got {got}, want {want} ± {}%", tol * 100.0);
    }

    #[test]
    fn advertises_lambda_times_the_window_when_rtt_is_at_its_minimum() {
        let mut c = Drwa::new(DrwaParams::default(), MSS);
        steady(&mut c, Instant::ZERO, Duration::from_millis(50), W, 100, 50);
        assert_near(c.rwnd().unwrap(), 3.0 * W as f64, 0.01);
        assert_eq!(c.state().window_bytes, Some(W));
    }

    #[test]
    fn window_halves_when_rtt_doubles_at_the_same_delivery() {
        let mut c = Drwa::new(DrwaParams::default(), MSS);
        let t = steady(&mut c, Instant::ZERO, Duration::from_millis(50), W, 100, 50);
        let before = c.rwnd().unwrap();
        steady(&mut c, t, Duration::from_millis(100), W, 100, 50);
        assert_near(c.rwnd().unwrap(), before as f64 / 2.0, 0.01);
        assert_eq!(c.state().rtt_min, Some(Duration::from_millis(50)));
    }

    #[test]
    fn window_estimate_moves_an_eighth_toward_each_new_period() {
        let mut c = Drwa::new(DrwaParams::default(), MSS);
        let rtt = Duration::from_millis(50);
        let t = steady(&mut c, Instant::ZERO, rtt, W, 100, 5);
        steady(&mut c, t, rtt, 2 * W, 100, 1);
        // DRWA line 24 with alpha = 7/8: 7/8 W + 1/8 (2 W).
        assert_eq!(c.state().window_bytes, Some(W * 9 / 8));
    }

    #[test]
    fn advertises_init_rwnd_before_the_first_estimate_then_caps_at_rmem_max() {
        let mut c = Drwa::new(DrwaParams { rmem_max: 200_000, ..Default::default() }, MSS);
        assert_eq!(c.rwnd(), Some(65_536));
        steady(&mut c, Instant::ZERO, Duration::from_millis(50), W, 100, 50);
        assert_eq!(c.rwnd(), Some(200_000));
    }

    #[test]
    fn params_apply_keys_and_reject_unknown_or_bad_ones() {
        let p = Params::parse_list("lambda=2,alpha=0.5,rmem_max=1MB,init_rwnd=32KB").unwrap();
        let d = DrwaParams::from_params(&p).unwrap();
        assert_eq!(d, DrwaParams { lambda: 2.0, alpha: 0.5, rmem_max: 1 << 20, init_rwnd: 32_768 });
        let p = Params::parse_list("k=3e-7").unwrap();
        assert!(matches!(DrwaParams::from_params(&p),
            Err(ControllerError::UnknownParam { known, .. }) if known == KEYS));
        for bad in ["lambda=-1", "lambda=three", "alpha=1", "lambda=inf"] {
            let p = Params::parse_list(bad).unwrap();
            assert!(matches!(DrwaParams::from_params(&p), Err(ControllerError::BadValue { .. })), "{bad}");
        }
    }
}
