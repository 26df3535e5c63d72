//! `rtac`: Receiver-side TCP Adaptive queue Control (Im et al., IEEE TMC
//! 2016, Algorithm 1). The receiver estimates the access-link queue from
//! delay and window (eq. (10)), maps it to an emulated loss price (eq. (6))
//! and advertises the window a TCP-Reno sender would reach at that price
//! (eq. (8)). Algorithm 1 is authoritative over eq. (14), whose "+1" is
//! misplaced.
//!
//! With `k=` or `bdp=` this is the paper's controller with a fixed K. With
//! neither it tunes itself: K follows eq. (11) from the BDP measured at the
//! receiver, Delta from the measured variation of the no-queue RTT, and a
//! competitive mode keeps it from starving behind a queue another sender
//! holds (`rtac_tuning.rs`).

use super::rtac_tuning::{Decision, Tuner, MIN_RTT};
use super::{Controller, ControllerError, ControllerState, Params};
use crate::estimators::{clamp_rwnd, PerRttCounter, RttEwma};
use crate::time::{Duration, Instant};

const NAME: &str = "rtac";
const KEYS: &[&str] = &["k", "bdp", "theta", "a", "alpha", "beta", "delta", "rmem_max", "init_rwnd", "budget"];

/// The paper's tcp_rmem_max, 2,560 KB (Table I): the fixed-K controller's
/// default limit.
pub const PAPER_RMEM_MAX: u64 = 2_621_440;
/// The self-tuning controller's window limit, 64 MiB: 1.38 BDP of a
/// 2.5 Gbit/s x 150 ms path. A receiver sizes its window scale from it
/// (scale 11 on Linux, windows in steps of 2 KB).
pub const SELF_TUNING_RMEM_MAX: u64 = 64 << 20;

/// K from the bandwidth-delay product in packets (RTAC eq. (11)):
/// K = a / (theta - 1) * (1 / BDP)^3, which puts the operating point at
/// theta * BDP packets in flight.
pub fn k_from_bdp(a: f64, theta: f64, bdp_packets: f64) -> f64 {
    a / (theta - 1.0) * bdp_packets.powi(-3)
}

/// Parameters of [`Rtac`].
#[derive(Clone, Debug, PartialEq)]
pub struct RtacParams {
    /// A fixed slope of the linear price function q = K (Q + 1) (eq. (6)).
    pub k: Option<f64>,
    /// A fixed BDP (packets) from which eq. (11) derives K. With neither
    /// `k` nor `bdp`, K follows the BDP measured at the receiver.
    pub bdp: Option<f64>,
    /// Target ratio of the operating-point RTT to RTT_m (eq. (11)).
    pub theta: f64,
    /// TCP-Reno's constant in x = sqrt(a) / (RTT sqrt(q)) (eq. (7)).
    pub a: f64,
    /// Weight of the old window estimate in the moving average.
    pub alpha: f64,
    /// Weight of a new RTT sample in the moving average.
    pub beta: f64,
    /// Compensation added to the minimum RTT, RTT*_m = RTT_m + delta
    /// (§IV.A). The paper measured 18 ms on LTE and 8 ms on Wi-Fi, where
    /// frame scheduling makes the no-queue RTT vary above its minimum.
    /// `None`: measured by the self-tuning controller, 0 with a fixed K.
    pub delta: Option<Duration>,
    /// tcp_rmem_max, the largest window advertised, in bytes.
    pub rmem_max: u64,
    /// The window advertised before the first estimate, in bytes.
    pub init_rwnd: u64,
    /// `budget=link` (the default): the connections of one receiver that
    /// cross one access link share one budget ([`super::LinkBudget`]);
    /// `budget=connection`: each connection runs its own controller.
    pub per_link: bool,
}

impl Default for RtacParams {
    /// The self-tuning controller.
    fn default() -> Self {
        RtacParams {
            k: None,                        // measured: eq. (11) from the BDP estimate
            bdp: None,                      // measured
            theta: 1.38,                    // Table I
            a: 1.5,                         // a = 3/2 for TCP-Reno (§III.A)
            alpha: 1.0 / 8.0,               // Table I
            beta: 1.0 / 8.0,                // Table I
            delta: None,                    // measured (paper: 18 ms LTE, 8 ms Wi-Fi, §IV.A)
            rmem_max: SELF_TUNING_RMEM_MAX, // no cap below what a fast, long path needs
            init_rwnd: 65_536,              // 64 KB, Linux's initial advertised window
            per_link: true,                 // one budget per access link
        }
    }
}

impl RtacParams {
    /// The paper's controller with a fixed K (Table I, §IV.A).
    pub fn paper(k: f64) -> Self {
        RtacParams { k: Some(k), rmem_max: PAPER_RMEM_MAX, ..Default::default() }
    }

    /// The defaults with every `key=value` of `p` applied. `k` and `bdp`
    /// are alternatives: giving both is an error. With either, the
    /// defaults are the paper's (rmem_max 2560KB, delta 0).
    pub fn from_params(p: &Params) -> Result<Self, ControllerError> {
        const POSITIVE: &str = "a positive number such as 3e-7";
        const PACKETS: &str = "a positive number of packets such as 236";
        const WEIGHT: &str = "a weight in [0, 1) such as 0.125";
        const GAIN: &str = "a gain in (0, 1] such as 0.125";
        let positive = |v: f64| v > 0.0;
        let mut out = RtacParams::default();
        let mut rmem_given = false;
        for kv in p.of(NAME) {
            match kv.key {
                "k" | "bdp" if out.k.is_some() || out.bdp.is_some() => return Err(kv.bad("either k or bdp, not both")),
                "k" => out.k = Some(kv.f64(POSITIVE, positive)?),
                "bdp" => out.bdp = Some(kv.f64(PACKETS, positive)?),
                "theta" => out.theta = kv.f64("a ratio above 1 such as 1.38", |v| v > 1.0)?,
                "a" => out.a = kv.f64("a positive number such as 1.5", positive)?,
                "alpha" => out.alpha = kv.f64(WEIGHT, |v| (0.0..1.0).contains(&v))?,
                "beta" => out.beta = kv.f64(GAIN, |v| v > 0.0 && v <= 1.0)?,
                "delta" => out.delta = Some(kv.duration()?),
                "rmem_max" => (out.rmem_max, rmem_given) = (kv.bytes()?, true),
                "init_rwnd" => out.init_rwnd = kv.bytes()?,
                "budget" => out.per_link = kv.choice(&["link", "connection"], "link or connection")? == "link",
                _ => return Err(kv.unknown(KEYS)),
            }
        }
        if !out.self_tuning() && !rmem_given {
            out.rmem_max = PAPER_RMEM_MAX;
        }
        Ok(out)
    }

    /// True when K is measured rather than given.
    pub fn self_tuning(&self) -> bool {
        self.k.is_none() && self.bdp.is_none()
    }

    /// A fixed K: `k`, or eq. (11) from `bdp`; `None` when self-tuning.
    pub fn fixed_k(&self) -> Option<f64> {
        self.k.or_else(|| self.bdp.map(|bdp| k_from_bdp(self.a, self.theta, bdp)))
    }
}

/// RTAC Algorithm 1. Its windows are in packets; the advertised window is
/// converted to bytes with the connection's MSS.
#[derive(Clone, Debug)]
pub struct Rtac {
    p: RtacParams,
    mss: u32,
    rtt: RttEwma,
    counter: PerRttCounter,
    /// `None`: the paper's fixed K.
    tuner: Option<Box<Tuner>>,
    w_pkts: Option<f64>,
    rwnd: Option<u64>,
}

impl Rtac {
    pub fn new(p: RtacParams, mss: u32) -> Self {
        let tuner = p.self_tuning().then(|| Box::new(Tuner::new(p.delta)));
        Rtac { rtt: RttEwma::new(p.beta), p, mss, counter: PerRttCounter::new(), tuner, w_pkts: None, rwnd: None }
    }

    /// RTT*_m = RTT^_m + Delta (§IV.A).
    fn rtt_m_star(&self) -> Option<Duration> {
        match &self.tuner {
            Some(t) => t.rtt_m_star(),
            None => self.rtt.min().map(|m| m + self.p.delta.unwrap_or(Duration::ZERO)),
        }
    }

    /// Sets the window; the tuner keeps the right edge it implies.
    fn advertise(&mut self, rwnd: u64) {
        self.rwnd = Some(rwnd);
        if let Some(t) = &mut self.tuner {
            t.on_advertised(rwnd);
        }
    }

    /// Within a period, the self-tuning start-up may raise the window as
    /// the data arrives (`Tuner::startup_window`).
    fn grow_within_period(&mut self, now: Instant) {
        let (Some(t), Some(start), Some(srtt)) = (&self.tuner, self.counter.period_start(), self.rtt.srtt()) else {
            return;
        };
        let Some(w) = t.startup_window(now.saturating_since(start), self.counter.bytes(), srtt) else {
            return;
        };
        let rwnd = clamp_rwnd(w, self.mss, self.p.rmem_max);
        if self.rwnd.is_some_and(|r| r < rwnd) {
            self.advertise(rwnd);
        }
    }

    /// True while a self-tuning drain probe holds the window down.
    pub fn probing(&self) -> bool {
        self.tuner.as_deref().is_some_and(Tuner::probing)
    }

    /// Eq. (8): the window in packets a Reno sender reaches at the price of
    /// the queue that `w` packets per RTT imply at `rtt` over `rtt_m`.
    fn equilibrium_pkts(&self, k: f64, w: f64, rtt: Duration, rtt_m: Duration) -> f64 {
        let (rtt, rtt_m) = (rtt.as_secs_f64(), rtt_m.as_secs_f64());
        // Alg. 1 line 4; eq. (10), clamped at 0 (RTT^ < RTT*_m is possible when delta > 0).
        let queue = ((rtt - rtt_m) * w / rtt).max(0.0);
        // Alg. 1 line 5; eq. (6).
        let price = k * (queue + 1.0);
        // Alg. 1 line 6; eq. (8), in packets.
        self.p.a.sqrt() * (rtt / rtt_m) / price.sqrt()
    }
}

impl Controller for Rtac {
    fn on_rtt_sample(&mut self, now: Instant, rtt: Duration) {
        let rtt = match self.tuner {
            Some(_) if !rtt.is_zero() => rtt.max(MIN_RTT),
            _ => rtt,
        };
        self.rtt.on_sample(rtt); // Alg. 1 "on receiving a packet", lines 1-3
        if let Some(t) = &mut self.tuner {
            t.on_rtt_sample(now, rtt);
        }
    }

    fn on_sequence_hole(&mut self, _now: Instant) {
        if let Some(t) = &mut self.tuner {
            t.on_sequence_hole();
        }
    }

    fn on_data_consumed(&mut self, now: Instant, bytes: u64) {
        // Alg. 1 "on copying data to user space", lines 1-2 and 7-8.
        let start = self.counter.period_start();
        if let Some(t) = &mut self.tuner {
            t.on_consumed(now, bytes);
        }
        let Some(bytes) = self.counter.on_consumed(now, bytes, self.rtt.srtt()) else {
            self.grow_within_period(now);
            return;
        };
        let Some(srtt) = self.rtt.srtt() else {
            return;
        };
        let mss = self.mss as f64;
        let was_probing = self.tuner.as_deref().is_some_and(Tuner::probing);
        let decision = match &mut self.tuner {
            None => None,
            Some(t) => {
                let span = start.map_or(Duration::ZERO, |s| now.saturating_since(s));
                match t.on_period(now, bytes, span, srtt, self.mss, (self.p.a, self.p.theta)) {
                    Some(d) => Some(d),
                    None => return, // no RTT_m yet
                }
            }
        };
        // Alg. 1 line 1 counts packets: bytes / MSS. A drain probe's periods
        // say nothing about the sender's window and are left out.
        let pkts = bytes as f64 / mss;
        // Alg. 1 line 3: w^ <- alpha w^ + (1 - alpha) pkts; the first RTT initialises w^.
        let alpha = self.p.alpha;
        if !was_probing {
            self.w_pkts = Some(self.w_pkts.map_or(pkts, |w| alpha * w + (1.0 - alpha) * pkts));
        }
        let w = self.w_pkts.unwrap_or(pkts);
        let rwnd = match decision {
            None => {
                let (Some(k), Some(rtt_m)) = (self.p.fixed_k(), self.rtt_m_star()) else {
                    return;
                };
                // Packets to bytes with the MSS.
                self.equilibrium_pkts(k, w, srtt, rtt_m) * mss
            }
            Some(Decision::Rtac { k, rtt_m_star, cap, gain }) => {
                (self.equilibrium_pkts(k, w, srtt, rtt_m_star) * mss).min(cap.max(self.p.init_rwnd) as f64) * gain
            }
            Some(Decision::Window(bytes)) => bytes as f64,
            Some(Decision::Grow(cap)) => cap.max(self.p.init_rwnd) as f64,
        };
        self.advertise(clamp_rwnd(rwnd, self.mss, self.p.rmem_max));
    }

    fn rwnd(&self) -> Option<u64> {
        Some(self.rwnd.unwrap_or_else(|| clamp_rwnd(self.p.init_rwnd as f64, self.mss, self.p.rmem_max)))
    }

    fn max_window(&self) -> Option<u64> {
        Some(self.p.rmem_max)
    }

    /// The start-up grows like Auto-tuning: on a live socket, Linux's own.
    fn defers_to_kernel(&self) -> bool {
        self.tuner.as_deref().is_some_and(Tuner::growing)
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
        let compensated = rwnd_at(1.38, RtacParams { delta: Some(Duration::from_millis(8)), ..Default::default() });
        assert!(compensated > 1.1 * plain, "{compensated} vs {plain}");
    }

    #[test]
    fn window_estimate_weights_the_new_period_by_seven_eighths() {
        let mut c = Rtac::new(RtacParams::paper(3e-7), MSS);
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
        let mut c = Rtac::new(RtacParams::paper(3e-7), MSS);
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
        assert_eq!(r.delta, Some(Duration::from_millis(18)));
        assert_eq!((r.rmem_max, r.init_rwnd), (819_200, 32_768));
        assert_eq!((r.theta, r.a, r.alpha, r.beta), (1.3, 2.0, 0.25, 0.5));
        assert_eq!(r.fixed_k(), Some(k_from_bdp(2.0, 1.3, 43.5)));
        let p = Params::parse_list("k=5e-5").unwrap();
        let r = RtacParams::from_params(&p).unwrap();
        assert_eq!((r.fixed_k(), r.rmem_max, r.delta), (Some(5e-5), PAPER_RMEM_MAX, None));
        let r = RtacParams::from_params(&Params::new()).unwrap();
        assert!(r.self_tuning());
        assert_eq!((r.fixed_k(), r.rmem_max), (None, SELF_TUNING_RMEM_MAX));
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
