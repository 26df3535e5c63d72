//! The delay a wireless channel adds to a packet after it leaves the
//! serialiser, without any queueing: the no-queue RTT variation that Im et
//! al. (RTAC, IEEE TMC 2016, section IV.A and Fig. 2) measured on LTE, where
//! the RTT of an unqueued flow stays about 50 % above its all-time minimum
//! and peaks near twice it, and that their Δ (18 ms LTE, 8 ms Wi-Fi)
//! compensates.
//!
//! Three parts, each a parameter:
//!
//! - **Slots.** The air interface delivers at slot boundaries: an LTE TTI
//!   (1 ms, 3GPP TS 36.211 section 4.1) or a Wi-Fi transmit opportunity
//!   that carries an aggregate (A-MPDU). A packet waits for the end of its
//!   slot; the slot grid has a random phase.
//! - **Per-slot fate.** Each slot may fail and be retransmitted: LTE HARQ
//!   retransmits a failed transport block one HARQ round trip later (8 ms
//!   in FDD, TS 36.213 section 8), and link adaptation aims at a 10 % block
//!   error rate; a Wi-Fi aggregate that fails waits for a later TXOP. A
//!   Wi-Fi slot also waits for channel access (contention): a delay drawn
//!   uniformly below `access`.
//! - **Drift.** A slow component, piecewise linear between knots `period`
//!   apart whose values are uniform on [0, 2 drift]: the variation over
//!   time of Fig. 2 (frame synchronisation, inspection and processing at
//!   the base station). Its mean is `drift` and its peaks 2 drift.
//! - **Rate variation** (optional, off by default). The link's rate times
//!   a factor drawn uniformly on [1 - rate_var, 1 + rate_var] for each
//!   `period`: fading and link adaptation. The serialiser applies it
//!   ([`Channel::service_time`]); the delay parts above do not take
//!   capacity.
//!
//! Delivery keeps order: a packet is never delivered before the one that
//! left before it (LTE RLC and the 802.11n block-ack reorder buffer deliver
//! in sequence), so a retransmitted slot holds up the slots behind it.
//!
//! Every random draw is a hash of the channel's seed and the slot or knot
//! index, not a draw from a stream: the channel is a fixed function of time
//! for a given seed, the same whatever traffic crosses it, so two runs that
//! differ only in the receiver see the same channel.

use rtac_core::units::parse_duration;
use rtac_core::{Duration, Instant};
use std::fmt;

/// The parameters of a [`Channel`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChannelParams {
    /// Delivery granularity (> 0).
    pub slot: Duration,
    /// Probability that a slot fails and is retransmitted, per attempt.
    pub bler: f64,
    /// Delay of each retransmission.
    pub retx: Duration,
    /// Retransmissions at most (then the slot is delivered anyway).
    pub retx_max: u32,
    /// Channel access: each slot waits uniformly in [0, access).
    pub access: Duration,
    /// Mean of the slow component (its knots are uniform on [0, 2 drift]).
    pub drift: Duration,
    /// Spacing of the slow component's knots (> 0).
    pub period: Duration,
    /// Rate variation: each period's rate is the link's times a factor
    /// uniform on [1 - rate_var, 1 + rate_var]; in [0, 1).
    pub rate_var: f64,
}

/// A channel model by name with its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChannelSpec {
    pub kind: ChannelKind,
    pub params: ChannelParams,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelKind {
    Lte,
    Wifi,
}

impl ChannelKind {
    pub fn name(self) -> &'static str {
        match self {
            ChannelKind::Lte => "lte",
            ChannelKind::Wifi => "wifi",
        }
    }

    /// The defaults. Slot, block error rate and retransmission delay are
    /// the standards' (above). Drift is set so that, with the slots and
    /// retransmissions, the mean extra delay is about half the minimum RTT
    /// of the RTAC paper's paths (LTE about 33 ms, Wi-Fi about 10 ms), and
    /// the peaks about that minimum again: Fig. 2's "RTT_m about 50 %
    /// above its minimum, peaks near 2x".
    pub fn defaults(self) -> ChannelParams {
        match self {
            ChannelKind::Lte => ChannelParams {
                slot: Duration::from_millis(1),
                bler: 0.1,
                retx: Duration::from_millis(8),
                retx_max: 3,
                access: Duration::ZERO,
                drift: Duration::from_millis(15),
                period: Duration::from_millis(200),
                rate_var: 0.0,
            },
            // 802.11n: an aggregate per TXOP of about 2 ms, retried in a
            // later TXOP, contention of up to 1 ms with other stations.
            ChannelKind::Wifi => ChannelParams {
                slot: Duration::from_millis(2),
                bler: 0.1,
                retx: Duration::from_millis(2),
                retx_max: 3,
                access: Duration::from_millis(1),
                drift: Duration::from_millis(3),
                period: Duration::from_millis(100),
                rate_var: 0.0,
            },
        }
    }
}

/// Why a channel specification was rejected.
#[derive(Clone, Debug, PartialEq)]
pub enum ChannelError {
    UnknownKind(String),
    UnknownKey { key: String },
    BadValue { key: String, value: String, expected: &'static str },
    Malformed(String),
}

/// The longest duration a channel parameter may have.
const MAX_PART: Duration = Duration::from_secs(10);

impl fmt::Display for ChannelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChannelError::UnknownKind(k) => {
                write!(f, "unknown channel {k:?}; known: {}", ChannelSpec::KINDS.join(", "))
            }
            ChannelError::UnknownKey { key } => {
                write!(f, "a channel has no parameter {key:?}; its parameters: {}", ChannelSpec::KEYS.join(", "))
            }
            ChannelError::BadValue { key, value, expected } => {
                write!(f, "channel: {key}={value:?} is invalid: expected {expected}")
            }
            ChannelError::Malformed(s) => write!(f, "cannot read channel {s:?}: expected NAME[:key=value,...]"),
        }
    }
}
impl std::error::Error for ChannelError {}

impl ChannelSpec {
    /// The channel models' names (`wifi` also answers to `wi-fi`).
    pub const KINDS: &'static [&'static str] = &["lte", "wifi"];
    /// The parameters every channel model accepts.
    pub const KEYS: &'static [&'static str] =
        &["slot", "bler", "retx", "retx_max", "access", "drift", "period", "rate_var"];

    /// Parses `NAME[:key=value,...]`: `lte`, `wifi`, `lte:drift=10ms,bler=0.2`.
    pub fn parse(s: &str) -> Result<Self, ChannelError> {
        let (name, rest) = s.split_once(':').unwrap_or((s, ""));
        let kind = match name.trim() {
            "lte" => ChannelKind::Lte,
            "wifi" | "wi-fi" => ChannelKind::Wifi,
            other => return Err(ChannelError::UnknownKind(other.to_string())),
        };
        let mut p = kind.defaults();
        for item in rest.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (k, v) = item.split_once('=').ok_or_else(|| ChannelError::Malformed(s.to_string()))?;
            let (k, v) = (k.trim(), v.trim());
            let bad = |expected| ChannelError::BadValue { key: k.to_string(), value: v.to_string(), expected };
            // At most 10 s each, so that every sum of them fits the clock.
            let dur = |positive: bool, expected| match parse_duration(v) {
                Ok(d) if (!positive || !d.is_zero()) && d <= MAX_PART => Ok(d),
                _ => Err(bad(expected)),
            };
            match k {
                "slot" => p.slot = dur(true, "a duration above 0 and at most 10s, such as 1ms")?,
                "period" => p.period = dur(true, "a duration above 0 and at most 10s, such as 200ms")?,
                "retx" => p.retx = dur(false, "a duration of at most 10s, such as 8ms")?,
                "access" => p.access = dur(false, "a duration of at most 10s, such as 1ms")?,
                "drift" => p.drift = dur(false, "a duration of at most 10s, such as 15ms")?,
                "bler" => {
                    p.bler = match v.parse::<f64>() {
                        Ok(x) if (0.0..1.0).contains(&x) => x,
                        _ => return Err(bad("a probability in [0, 1), such as 0.1")),
                    }
                }
                "rate_var" => {
                    p.rate_var = match v.parse::<f64>() {
                        Ok(x) if (0.0..1.0).contains(&x) => x,
                        _ => return Err(bad("a fraction in [0, 1), such as 0.3")),
                    }
                }
                "retx_max" => {
                    p.retx_max = match v.parse::<u32>() {
                        Ok(n) if n <= 16 => n,
                        _ => return Err(bad("a whole number from 0 to 16")),
                    }
                }
                _ => return Err(ChannelError::UnknownKey { key: k.to_string() }),
            }
        }
        Ok(ChannelSpec { kind, params: p })
    }

    /// The mean extra delay of an isolated packet (no hold-up behind an
    /// earlier one): half a slot, the expected retransmissions, half the
    /// access range and the drift.
    pub fn mean_extra(&self) -> Duration {
        let p = &self.params;
        let mut retx = 0.0;
        let mut q = 1.0;
        for _ in 0..p.retx_max {
            q *= p.bler;
            retx += q;
        }
        let ns = p.slot.as_nanos() as f64 / 2.0
            + retx * p.retx.as_nanos() as f64
            + p.access.as_nanos() as f64 / 2.0
            + p.drift.as_nanos() as f64;
        Duration::from_nanos(ns.round() as u64)
    }
}

/// Writes every key; the output parses back to the same spec.
impl fmt::Display for ChannelSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.params;
        let us = |d: Duration| format!("{}us", d.as_micros());
        write!(
            f,
            "{}:slot={},bler={},retx={},retx_max={},access={},drift={},period={},rate_var={}",
            self.kind.name(),
            us(p.slot),
            p.bler,
            us(p.retx),
            p.retx_max,
            us(p.access),
            us(p.drift),
            us(p.period),
            p.rate_var
        )
    }
}

/// SplitMix64's finaliser: a well-mixed 64-bit hash of `seed` and `i`.
fn hash(seed: u64, i: u64) -> u64 {
    let mut z = seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Uniform in [0, 1) from a hash.
fn unit(h: u64) -> f64 {
    (h >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Salts that keep the three uses of the hash apart.
const FATE: u64 = 0x0F47_E000;
const ACCESS: u64 = 0xACCE_5500;
const KNOT: u64 = 0x4B40_7700;
const RATE: u64 = 0x2A7E_0000;

/// One station's channel: when a packet that left the serialiser at
/// `done` reaches the far end of the wireless hop (before the link's
/// propagation delay).
#[derive(Clone, Debug)]
pub struct Channel {
    p: ChannelParams,
    seed: u64,
    /// The slot grid's offset, nanoseconds, below one slot.
    phase: u64,
    /// The latest delivery so far: none may come earlier.
    last: Instant,
    /// The knot interval the cache holds and its two end values (ns).
    knot: u64,
    ends: (f64, f64),
}

impl Channel {
    pub fn new(spec: &ChannelSpec, seed: u64) -> Self {
        let p = spec.params;
        let phase = hash(seed, 0) % p.slot.as_nanos().max(1);
        let mut c = Channel { p, seed, phase, last: Instant::ZERO, knot: u64::MAX, ends: (0.0, 0.0) };
        c.load_knots(0);
        c
    }

    fn knot_value(&self, k: u64) -> f64 {
        2.0 * self.p.drift.as_nanos() as f64 * unit(hash(self.seed ^ KNOT, k))
    }

    fn load_knots(&mut self, k: u64) {
        if k != self.knot {
            self.knot = k;
            self.ends = (self.knot_value(k), self.knot_value(k + 1));
        }
    }

    /// The slow component at `t` nanoseconds, nanoseconds.
    fn drift_at(&mut self, t: u64) -> u64 {
        if self.p.drift.is_zero() {
            return 0;
        }
        let period = self.p.period.as_nanos();
        self.load_knots(t / period);
        let x = (t % period) as f64 / period as f64;
        (self.ends.0 + (self.ends.1 - self.ends.0) * x).round() as u64
    }

    /// Retransmissions of slot `n`: each attempt fails with probability
    /// `bler`, at most `retx_max` times.
    fn retransmissions(&self, n: u64) -> u32 {
        let u = unit(hash(self.seed ^ FATE, n));
        let (mut k, mut threshold) = (0, self.p.bler);
        while k < self.p.retx_max && u < threshold {
            k += 1;
            threshold *= self.p.bler;
        }
        k
    }

    /// How long a packet that the link's nominal rate serialises in
    /// `nominal`, starting at `start`, takes at this period's rate.
    pub fn service_time(&self, start: Instant, nominal: Duration) -> Duration {
        if self.p.rate_var == 0.0 {
            return nominal;
        }
        let k = (start - Instant::ZERO).as_nanos() / self.p.period.as_nanos();
        let factor = 1.0 + self.p.rate_var * (2.0 * unit(hash(self.seed ^ RATE, k)) - 1.0);
        Duration::from_nanos((nominal.as_nanos() as f64 / factor).round() as u64)
    }

    /// The packet whose last bit left at `done` is delivered at the
    /// returned instant, never before an earlier packet.
    pub fn deliver(&mut self, done: Instant) -> Instant {
        let slot = self.p.slot.as_nanos();
        let t = (done - Instant::ZERO).as_nanos();
        // The end of the slot holding `done`, on the grid offset by `phase`.
        let n = (t + self.phase).div_ceil(slot);
        let slot_end = (n * slot).saturating_sub(self.phase).max(t);
        let retx = self.retransmissions(n) as u64 * self.p.retx.as_nanos();
        let access = (unit(hash(self.seed ^ ACCESS, n)) * self.p.access.as_nanos() as f64) as u64;
        let at = Instant::ZERO + Duration::from_nanos(slot_end + retx + access + self.drift_at(t));
        self.last = self.last.max(at);
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Duration {
        Duration::from_millis(x)
    }

    #[test]
    fn named_channels_take_their_defaults_and_keys_override_them() {
        let lte = ChannelSpec::parse("lte").unwrap();
        assert_eq!(lte.params, ChannelKind::Lte.defaults());
        let c = ChannelSpec::parse("lte: drift=10ms, bler=0.2 ,retx_max=1").unwrap();
        assert_eq!((c.params.drift, c.params.bler, c.params.retx_max), (ms(10), 0.2, 1));
        assert_eq!(c.params.slot, ms(1));
        assert_eq!(ChannelSpec::parse("wifi").unwrap().kind, ChannelKind::Wifi);
    }

    #[test]
    fn display_parses_back_to_the_same_spec() {
        for s in ["lte", "wifi", "lte:drift=7ms,period=50ms,access=250us,bler=0.05,rate_var=0.25"] {
            let c = ChannelSpec::parse(s).unwrap();
            assert_eq!(ChannelSpec::parse(&c.to_string()).unwrap(), c, "{s} -> {c}");
        }
    }

    #[test]
    fn bad_specs_name_the_problem() {
        assert_eq!(ChannelSpec::parse("5g"), Err(ChannelError::UnknownKind("5g".into())));
        let e = ChannelSpec::parse("lte:jitter=3ms").unwrap_err();
        assert!(e.to_string().contains("jitter") && e.to_string().contains("drift"), "{e}");
        for bad in [
            "lte:bler=1",
            "lte:bler=-0.1",
            "lte:slot=0ms",
            "lte:period=0s",
            "lte:retx_max=99",
            "lte:drift=x",
            "lte:rate_var=1",
            "lte:retx=11s",
        ] {
            assert!(matches!(ChannelSpec::parse(bad), Err(ChannelError::BadValue { .. })), "{bad}");
        }
        assert!(matches!(ChannelSpec::parse("lte:drift"), Err(ChannelError::Malformed(_))));
    }

    /// Extra delays of packets `gap` apart over `secs` seconds.
    fn extras(spec: &ChannelSpec, seed: u64, gap: Duration, secs: u64) -> Vec<Duration> {
        let mut c = Channel::new(spec, seed);
        let n = secs * 1_000_000_000 / gap.as_nanos();
        (1..=n)
            .map(|i| {
                let done = Instant::ZERO + gap.mul(i);
                c.deliver(done) - done
            })
            .collect()
    }

    #[test]
    fn an_unqueued_lte_flow_sees_rtt_half_above_its_minimum_and_peaks_near_twice() {
        // RTAC Fig. 2: 8 Mbit/s (one 1500-byte packet per 1.5 ms) on a
        // path whose minimum RTT is 33 ms.
        let spec = ChannelSpec::parse("lte").unwrap();
        let base = 33.0;
        let rtts: Vec<f64> =
            extras(&spec, 1, Duration::from_micros(1500), 120).iter().map(|d| base + d.as_secs_f64() * 1e3).collect();
        let mut sorted = rtts.clone();
        sorted.sort_by(f64::total_cmp);
        let min = sorted[0];
        // The peaks of a plot like Fig. 2: the 99th percentile (single
        // triple HARQ retransmissions reach further).
        let peak = sorted[sorted.len() * 99 / 100];
        let mean = rtts.iter().sum::<f64>() / rtts.len() as f64;
        eprintln!("lte: min {min:.1} mean {mean:.1} p99 {peak:.1} max {:.1} ms", sorted[sorted.len() - 1]);
        assert!((1.35..1.65).contains(&(mean / min)), "mean/min {:.2}", mean / min);
        assert!((1.7..2.3).contains(&(peak / min)), "p99/min {:.2}", peak / min);
        let predicted = base + spec.mean_extra().as_secs_f64() * 1e3;
        assert!((mean - predicted).abs() < 2.0, "mean {mean:.1} vs the model's {predicted:.1}");
    }

    #[test]
    fn an_unqueued_wifi_flow_sees_less_variation_than_lte() {
        // A 10 ms path, one packet per 1.5 ms: RTT_m half above the minimum
        // again, but a few ms of it rather than LTE's 17 (RTAC section V:
        // "a smaller variation of RTT_m" on Wi-Fi).
        let spec = ChannelSpec::parse("wifi").unwrap();
        let e = extras(&spec, 1, Duration::from_micros(1500), 120);
        let mean = e.iter().map(|d| d.as_secs_f64() * 1e3).sum::<f64>() / e.len() as f64;
        let min = e.iter().min().unwrap().as_secs_f64() * 1e3;
        eprintln!("wifi: extra min {min:.2} mean {mean:.2} ms");
        assert!((1.3..1.7).contains(&((10.0 + mean) / (10.0 + min))), "{mean:.2} {min:.2}");
        assert!(mean < ChannelSpec::parse("lte").unwrap().mean_extra().as_secs_f64() * 1e3 / 2.0);
    }

    #[test]
    fn rate_variation_stretches_service_per_period_around_the_nominal_rate() {
        let nominal = Duration::from_micros(120);
        let off = Channel::new(&ChannelSpec::parse("lte").unwrap(), 5);
        assert_eq!(off.service_time(Instant::from_millis(3), nominal), nominal);
        let on = Channel::new(&ChannelSpec::parse("lte:rate_var=0.5").unwrap(), 5);
        let times: Vec<f64> = (0..2000)
            .map(|k| on.service_time(Instant::from_millis(200 * k + 7), nominal).as_nanos() as f64 / 120e3)
            .collect();
        // Factors on [0.5, 1.5]: service between 1/1.5 and 1/0.5 of nominal,
        // constant within a period, different across periods.
        assert!(times.iter().all(|&x| (1.0 / 1.5 - 1e-3..=2.0 + 1e-3).contains(&x)));
        assert_eq!(
            on.service_time(Instant::from_millis(7), nominal),
            on.service_time(Instant::from_millis(190), nominal)
        );
        let mean_rate = times.iter().map(|x| 1.0 / x).sum::<f64>() / times.len() as f64;
        assert!((mean_rate - 1.0).abs() < 0.03, "mean rate factor {mean_rate:.3}");
    }

    #[test]
    fn deliveries_keep_their_order_and_never_precede_departure() {
        for spec in ["lte", "wifi", "lte:bler=0.5,retx=20ms"] {
            let spec = ChannelSpec::parse(spec).unwrap();
            let mut c = Channel::new(&spec, 7);
            let mut last = Instant::ZERO;
            for i in 1..200_000u64 {
                let done = Instant::ZERO + Duration::from_micros(i * 25);
                let at = c.deliver(done);
                assert!(at >= done && at >= last, "{spec}: packet {i}");
                last = at;
            }
        }
    }

    #[test]
    fn a_retransmitted_slot_holds_up_the_slots_behind_it() {
        // Every slot fails once (bler just below 1, one retransmission):
        // with 8 ms per retransmission, each delivery is its slot end + 8 ms.
        let spec = ChannelSpec::parse("lte:bler=0.999999,retx_max=1,drift=0ms").unwrap();
        let e = extras(&spec, 3, Duration::from_micros(100), 1);
        assert!(e.iter().all(|d| *d >= ms(8) && *d <= ms(9)), "{:?}", &e[..20]);
        // With no failures and no drift, only the wait for the slot end remains.
        let spec = ChannelSpec::parse("lte:bler=0,drift=0ms").unwrap();
        assert!(extras(&spec, 3, Duration::from_micros(100), 1).iter().all(|d| *d <= ms(1)));
    }

    #[test]
    fn the_channel_is_a_function_of_its_seed_and_time_only() {
        let spec = ChannelSpec::parse("wifi").unwrap();
        // The same instants give the same delays whatever else was sent.
        let mut sparse = Channel::new(&spec, 11);
        let mut dense = Channel::new(&spec, 11);
        for i in 1..10_000u64 {
            let t = Instant::ZERO + Duration::from_millis(7 * i);
            for j in (1..5).rev() {
                dense.deliver(Instant::ZERO + Duration::from_micros(7000 * i - j * 300));
            }
            // Sparse sends only at t; dense also sent just before, which
            // can only hold t back, never bring it forward.
            assert!(dense.deliver(t) >= sparse.deliver(t));
        }
        assert_eq!(extras(&spec, 11, ms(3), 10), extras(&spec, 11, ms(3), 10));
        assert_ne!(extras(&spec, 11, ms(3), 10), extras(&spec, 12, ms(3), 10));
    }
}
