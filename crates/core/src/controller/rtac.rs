//! `rtac`: Receiver-side TCP Adaptive queue Control (Im et al., IEEE TMC
//! 2016, Algorithm 1). The receiver estimates the access-link queue from
//! delay and window (eq. (10)), maps it to an emulated loss price (eq. (6))
//! and advertises the window a TCP-Reno sender would reach at that price
//! (eq. (8)). Algorithm 1 is authoritative over eq. (14), whose "+1" is
//! misplaced.

use super::{Controller, ControllerError, ControllerState, Params};
use crate::estimators::{clamp_rwnd, PerRttCounter, RttEwma};
use crate::time::{Duration, Instant};

const NAME: &str = "rtac";
const KEYS: &[&str] = &["k", "bdp", "theta", "a", "alpha", "beta", "delta", "rmem_max", "init_rwnd"];

/// K from the bandwidth-delay product in packets (RTAC eq. (11)):
/// K = a / (theta - 1) * (1 / BDP)^3, which puts the operating point at
/// theta * BDP packets in flight.
pub fn k_from_bdp(a: f64, theta: f64, bdp_packets: f64) -> f64 {
    a / (theta - 1.0) * bdp_packets.powi(-3)
}

/// Parameters of [`Rtac`].
#[derive(Clone, Debug, PartialEq)]
pub struct RtacParams {
    /// Slope of the linear price function q = K (Q + 1) (eq. (6)); ignored
    /// when `bdp` is set.
    pub k: f64,
    /// If set, K is derived from this BDP (packets) by eq. (11).
    pub bdp: Option<f64>,
    /// Target ratio of the operating-point RTT to RTT_m, used with `bdp`.
    pub theta: f64,
    /// TCP-Reno's constant in x = sqrt(a) / (RTT sqrt(q)) (eq. (7)).
    pub a: f64,
    /// Weight of the old window estimate in the moving average.
    pub alpha: f64,
    /// Weight of a new RTT sample in the moving average.
    pub beta: f64,
    /// Compensation added to the minimum RTT, RTT*_m = RTT_m + delta (§IV.A).
    /// The paper measured 18 ms on LTE and 8 ms on Wi-Fi, where frame
    /// scheduling makes the no-queue RTT vary above its minimum. The default
    /// is 0 because the simulator's links have no such jitter: their minimum
    /// RTT is the no-queue RTT. Set `delta=18ms` to run the paper's LTE setup.
    pub delta: Duration,
    /// tcp_rmem_max, the largest window advertised, in bytes.
    pub rmem_max: u64,
    /// The window advertised before the first estimate, in bytes.
    pub init_rwnd: u64,
}

impl Default for RtacParams {
    fn default() -> Self {
        RtacParams {
            k: 3e-7,               // §IV.A: LTE value, eq. (11) with theta = 1.38, BDP ~ 236 packets
            bdp: None,             // K given directly
            theta: 1.38,           // Table I
            a: 1.5,                // a = 3/2 for TCP-Reno (§III.A)
            alpha: 1.0 / 8.0,      // Table I
            beta: 1.0 / 8.0,       // Table I
            delta: Duration::ZERO, // paper: 18 ms LTE, 8 ms Wi-Fi (§IV.A); 0 here, see the field's doc
            rmem_max: 2_621_440,   // 2,560 KB (Table I)
            init_rwnd: 65_536,     // 64 KB, Linux's initial advertised window
        }
    }
}

impl RtacParams {
    /// The defaults with every `key=value` of `p` applied. `k` and `bdp`
    /// are alternatives: giving both is an error.
    pub fn from_params(p: &Params) -> Result<Self, ControllerError> {
        const POSITIVE: &str = "a positive number such as 3e-7";
        const PACKETS: &str = "a positive number of packets such as 236";
        const WEIGHT: &str = "a weight in [0, 1) such as 0.125";
        const GAIN: &str = "a gain in (0, 1] such as 0.125";
        let positive = |v: f64| v > 0.0;
        let mut out = RtacParams::default();
        let mut k_given = false;
        for kv in p.of(NAME) {
            match kv.key {
                "k" | "bdp" if k_given => return Err(kv.bad("either k or bdp, not both")),
                "k" => (out.k, k_given) = (kv.f64(POSITIVE, positive)?, true),
                "bdp" => (out.bdp, k_given) = (Some(kv.f64(PACKETS, positive)?), true),
                "theta" => out.theta = kv.f64("a ratio above 1 such as 1.38", |v| v > 1.0)?,
                "a" => out.a = kv.f64("a positive number such as 1.5", positive)?,
                "alpha" => out.alpha = kv.f64(WEIGHT, |v| (0.0..1.0).contains(&v))?,
                "beta" => out.beta = kv.f64(GAIN, |v| v > 0.0 && v <= 1.0)?,
                "delta" => out.delta = kv.duration()?,
                "rmem_max" => out.rmem_max = kv.bytes()?,
                "init_rwnd" => out.init_rwnd = kv.bytes()?,
                _ => return Err(kv.unknown(KEYS)),
            }
        }
        Ok(out)
    }

    /// The slope K in use: from `bdp` by eq. (11) if set, else `k`.
    pub fn k(&self) -> f64 {
        self.bdp.map_or(self.k, |bdp| k_from_bdp(self.a, self.theta, bdp))
    }
}

/// RTAC Algorithm 1. Its windows are in packets; the advertised window is
/// converted to bytes with the connection's MSS.
#[derive(Clone, Debug)]
pub struct Rtac {
    p: RtacParams,
    k: f64,
    mss: u32,
    rtt: RttEwma,
    counter: PerRttCounter,
    w_pkts: Option<f64>,
    rwnd: Option<u64>,
}

impl Rtac {
    pub fn new(p: RtacParams, mss: u32) -> Self {
        Rtac { k: p.k(), rtt: RttEwma::new(p.beta), p, mss, counter: PerRttCounter::new(), w_pkts: None, rwnd: None }
    }

    /// RTT*_m = RTT^_m + Delta (§IV.A).
    fn rtt_m_star(&self) -> Option<Duration> {
        self.rtt.min().map(|m| m + self.p.delta)
    }
}

impl Controller for Rtac {
    fn on_rtt_sample(&mut self, _now: Instant, rtt: Duration) {
        self.rtt.on_sample(rtt); // Alg. 1 "on receiving a packet", lines 1-3
    }

    fn on_data_consumed(&mut self, now: Instant, bytes: u64) {
        // Alg. 1 "on copying data to user space", lines 1-2 and 7-8.
        let Some(bytes) = self.counter.on_consumed(now, bytes, self.rtt.srtt()) else {
            return;
        };
        let (Some(srtt), Some(rtt_m)) = (self.rtt.srtt(), self.rtt_m_star()) else {
            return;
        };
        // Alg. 1 line 1 counts packets: bytes / MSS.
        let pkts = bytes as f64 / self.mss as f64;
        // Alg. 1 line 3: w^ <- alpha w^ + (1 - alpha) pkts; the first RTT initialises w^.
        let alpha = self.p.alpha;
        let w = self.w_pkts.map_or(pkts, |w| alpha * w + (1.0 - alpha) * pkts);
        self.w_pkts = Some(w);
        let (rtt, rtt_m) = (srtt.as_secs_f64(), rtt_m.as_secs_f64());
        // Alg. 1 line 4; eq. (10), clamped at 0 (RTT^ < RTT*_m is possible when delta > 0).
        let queue = ((rtt - rtt_m) * w / rtt).max(0.0);
        // Alg. 1 line 5; eq. (6).
        let price = self.k * (queue + 1.0);
        // Alg. 1 line 6; eq. (8), in packets.
        let rwnd_pkts = self.p.a.sqrt() * (rtt / rtt_m) / price.sqrt();
        // Packets to bytes with the MSS.
        let rwnd = rwnd_pkts * self.mss as f64;
        self.rwnd = Some(clamp_rwnd(rwnd, self.mss, self.p.rmem_max));
    }

    fn rwnd(&self) -> Option<u64> {
        Some(self.rwnd.unwrap_or_else(|| clamp_rwnd(self.p.init_rwnd as f64, self.mss, self.p.rmem_max)))
    }

    fn max_window(&self) -> Option<u64> {
        Some(self.p.rmem_max)
    }

    fn state(&self) -> ControllerState {
        ControllerState {
            rtt: self.rtt.srtt(),
            rtt_min: self.rtt_m_star(),
            window_bytes: self.w_pkts.map(|w| (w * self.mss as f64).round() as u64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimators::testing::steady;

    const MSS: u32 = 1448;
    const BDP: f64 = 100.0; // packets
    const RTT_M: Duration = Duration::from_millis(40);

    fn within(got: f64, want: f64, tol: f64) -> bool {
        (got - want).abs() <= tol * want
    }

    /// An RTAC with K for `BDP` (eq. (11)) fed RTT_m samples, then a steady
    /// flow at `x` times RTT_m carrying the window that queue implies
    /// (x BDP packets per RTT, the link running at capacity). Returns the
    /// advertised window in bytes.
    fn rwnd_bytes_at(x: f64, p: RtacParams) -> u64 {
        let mut c = Rtac::new(RtacParams { bdp: Some(BDP), ..p }, MSS);
        for i in 0..10 {
            c.on_rtt_sample(Instant::from_millis(i), RTT_M);
        }
        let pkts = (x * BDP).round() as u64;
        let rtt = Duration::from_micros(400 * pkts); // 400 us per packet = BDP per RTT_m
        assert_eq!(rtt, RTT_M.mul_f64(x));
        steady(&mut c, Instant::from_millis(10), rtt, pkts * MSS as u64, pkts, 60);
        c.rwnd().unwrap()
    }

    /// The same, in packets.
    fn rwnd_at(x: f64, p: RtacParams) -> f64 {
        rwnd_bytes_at(x, p) as f64 / MSS as f64
    }

    #[test]
    fn k_from_bdp_reproduces_the_papers_lte_and_wifi_values() {
        assert!(within(k_from_bdp(1.5, 1.38, 236.0), 3e-7, 0.1));
        assert!(within(k_from_bdp(1.5, 1.38, 43.5), 5e-5, 0.1));
    }

    #[test]
    fn advertises_theta_bdp_at_the_operating_point() {
        let rwnd = rwnd_at(1.38, RtacParams::default());
        assert!(within(rwnd, 1.38 * BDP, 0.05), "rwnd {rwnd} packets");
    }

    #[test]
    fn empty_queue_advertises_sqrt_a_over_k_packets() {
        // Q = 0 at RTT = RTT_m, so eq. (6)'s "+1" alone sets the price: q = K.
        let rwnd = rwnd_at(1.0, RtacParams::default());
        let want = (1.5 / k_from_bdp(1.5, 1.38, BDP)).sqrt();
        assert!(within(rwnd, want, 0.001), "{rwnd} vs {want}");
    }

    #[test]
    fn window_shrinks_above_the_operating_point_and_grows_below() {
        // With the link at capacity the window in flight is x BDP; RTAC
        // advertises less than that above theta and more below it.
        let (low, op, high) = (
            rwnd_at(1.2, RtacParams::default()),
            rwnd_at(1.38, RtacParams::default()),
            rwnd_at(1.6, RtacParams::default()),
        );
        assert!(low > op && op > high, "{low} {op} {high}");
        assert!(low > 1.2 * BDP, "{low}");
        assert!(high < 1.6 * BDP, "{high}");
    }

    #[test]
    fn delta_compensation_raises_the_window() {
        let plain = rwnd_at(1.38, RtacParams::default());
        let compensated = rwnd_at(1.38, RtacParams { delta: Duration::from_millis(8), ..Default::default() });
        assert!(compensated > 1.1 * plain, "{compensated} vs {plain}");
    }

    #[test]
    fn window_estimate_weights_the_new_period_by_seven_eighths() {
        let mut c = Rtac::new(RtacParams::default(), MSS);
        let w = 100 * MSS as u64;
        let t = steady(&mut c, Instant::ZERO, RTT_M, w, 100, 5);
        steady(&mut c, t, RTT_M, 2 * w, 100, 1);
        // Alg. 1 line 3 with alpha = 1/8: 1/8 w + 7/8 (2 w).
        assert_eq!(c.state().window_bytes, Some(w * 15 / 8));
    }

    #[test]
    fn rmem_max_caps_the_window() {
        assert_eq!(rwnd_bytes_at(1.38, RtacParams { rmem_max: 100_000, ..Default::default() }), 100_000);
    }

    #[test]
    fn advertises_init_rwnd_until_the_first_period_ends() {
        let mut c = Rtac::new(RtacParams::default(), MSS);
        assert_eq!(c.rwnd(), Some(65_536));
        c.on_rtt_sample(Instant::from_millis(1), RTT_M);
        c.on_data_consumed(Instant::from_millis(2), 10 * MSS as u64);
        c.on_data_consumed(Instant::from_millis(30), 10 * MSS as u64);
        assert_eq!(c.rwnd(), Some(65_536));
        c.on_data_consumed(Instant::from_millis(42), 10 * MSS as u64);
        assert_ne!(c.rwnd(), Some(65_536));
        assert_eq!(c.state().window_bytes, Some(20 * MSS as u64));
    }

    #[test]
    fn params_apply_every_key() {
        let p =
            Params::parse_list("bdp=43.5,theta=1.3,a=2,alpha=0.25,beta=0.5,delta=18ms,rmem_max=800KB,init_rwnd=32KB")
                .unwrap();
        let r = RtacParams::from_params(&p).unwrap();
        assert_eq!(r.delta, Duration::from_millis(18));
        assert_eq!((r.rmem_max, r.init_rwnd), (819_200, 32_768));
        assert_eq!((r.theta, r.a, r.alpha, r.beta), (1.3, 2.0, 0.25, 0.5));
        assert_eq!(r.k(), k_from_bdp(2.0, 1.3, 43.5));
        let p = Params::parse_list("k=5e-5").unwrap();
        assert_eq!(RtacParams::from_params(&p).unwrap().k(), 5e-5);
        assert_eq!(RtacParams::default().k(), 3e-7);
    }

    #[test]
    fn params_reject_unknown_keys_listing_the_known_ones() {
        let p = Params::parse_list("lambda=3").unwrap();
        let e = RtacParams::from_params(&p).unwrap_err();
        assert!(matches!(&e, ControllerError::UnknownParam { known, .. } if *known == KEYS));
        let msg = e.to_string();
        for key in KEYS {
            assert!(msg.contains(key), "{msg} lacks {key}");
        }
    }

    #[test]
    fn params_reject_k_and_bdp_together() {
        for list in ["k=3e-7,bdp=236", "bdp=236,k=3e-7"] {
            let p = Params::parse_list(list).unwrap();
            assert!(matches!(RtacParams::from_params(&p), Err(ControllerError::BadValue { .. })), "{list}");
        }
    }

    #[test]
    fn params_reject_bad_values_naming_the_key() {
        for (list, key) in
            [("k=abc", "k"), ("k=-1", "k"), ("theta=1", "theta"), ("delta=18", "delta"), ("beta=0", "beta")]
        {
            let p = Params::parse_list(list).unwrap();
            let e = RtacParams::from_params(&p).unwrap_err();
            assert!(matches!(&e, ControllerError::BadValue { key: k, .. } if k == key), "{list}: {e}");
        }
    }
}
