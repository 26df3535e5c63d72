//! A queue discipline as a user writes it (`droptail:packets=2000`,
//! `codel:target=5ms`), and the queue built from it.

use super::codel::{Codel, CodelParams};
use super::fq_codel::{FqCodel, FqCodelParams};
use super::pie::{Pie, PieParams};
use super::red::{Red, RedParams};
use super::{droptail::Limit, Dequeued, DropTail, Qdisc};
use crate::Packet;
use rtac_core::rng::Rng;
use rtac_core::units::{clip, parse_bandwidth, parse_bytes, parse_duration};
use rtac_core::{Duration, Instant};
use std::fmt;

/// A validated queue configuration.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueSpec {
    DropTail(Limit),
    Red(RedParams),
    Codel(CodelParams),
    Pie(PieParams),
    FqCodel(FqCodelParams),
}

/// Why a queue specification was rejected.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueError {
    UnknownKind(String),
    UnknownKey { kind: &'static str, key: String, known: &'static [&'static str] },
    BadValue { kind: &'static str, key: String, value: String, expected: &'static str },
    Missing { kind: &'static str, what: &'static str },
    Malformed(String),
}

/// The kinds `QueueSpec::parse` knows, as the unknown-kind error lists them.
pub const KNOWN_KINDS: &str = "droptail (or pfifo, bfifo), red, codel, pie, fq_codel";

impl fmt::Display for QueueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueueError::UnknownKind(k) => write!(f, "unknown queue discipline {k:?}; known: {KNOWN_KINDS}"),
            QueueError::UnknownKey { kind, key, known } => {
                write!(f, "{kind} has no parameter {key:?}; its parameters: {}", known.join(", "))
            }
            QueueError::BadValue { kind, key, value, expected } => {
                write!(f, "{kind}: {key}={value:?} is invalid: expected {expected}")
            }
            QueueError::Missing { kind, what } => write!(f, "{kind} needs {what}"),
            QueueError::Malformed(s) => write!(f, "cannot read queue {s:?}: expected NAME[:key=value,...]"),
        }
    }
}
impl std::error::Error for QueueError {}

/// The value given for each of a kind's keys (in the order of `known`),
/// rejecting unknown and repeated keys.
fn values<'a, const N: usize>(
    kind: &'static str,
    known: &'static [&'static str; N],
    pairs: &'a [(String, String)],
) -> Result<[Option<Kv<'a>>; N], QueueError> {
    let mut vals = [None; N];
    for (k, v) in pairs {
        let i =
            known.iter().position(|n| n == k).ok_or_else(|| QueueError::UnknownKey { kind, key: clip(k), known })?;
        if vals[i].replace((k.as_str(), v.as_str())).is_some() {
            return Err(bad(kind, k, v, "each parameter only once"));
        }
    }
    Ok(vals)
}

fn bad(kind: &'static str, key: &str, value: &str, expected: &'static str) -> QueueError {
    QueueError::BadValue { kind, key: clip(key), value: clip(value), expected }
}

/// A (key, value) pair as written, for parsing and error messages.
type Kv<'a> = (&'a str, &'a str);

fn duration(kind: &'static str, (k, v): Kv, allow_zero: bool, expected: &'static str) -> Result<Duration, QueueError> {
    match parse_duration(v) {
        Ok(d) if allow_zero || !d.is_zero() => Ok(d),
        _ => Err(bad(kind, k, v, expected)),
    }
}

fn whole(kind: &'static str, (k, v): Kv, min: usize, max: usize, expected: &'static str) -> Result<usize, QueueError> {
    match v.parse::<usize>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(bad(kind, k, v, expected)),
    }
}

fn number(kind: &'static str, (k, v): Kv, ok: impl Fn(f64) -> bool, expected: &'static str) -> Result<f64, QueueError> {
    match v.parse::<f64>() {
        Ok(x) if x.is_finite() && ok(x) => Ok(x),
        _ => Err(bad(kind, k, v, expected)),
    }
}

fn boolean(kind: &'static str, (k, v): Kv) -> Result<bool, QueueError> {
    match v {
        "true" | "on" | "yes" | "1" => Ok(true),
        "false" | "off" | "no" | "0" => Ok(false),
        _ => Err(bad(kind, k, v, "true or false")),
    }
}

const PACKETS: &str = "a whole number of packets above 0";

const DROPTAIL_KEYS: &[&str; 2] = &["packets", "bytes"];
const RED_KEYS: &[&str; 7] = &["min", "max", "maxp", "wq", "packets", "gentle", "bandwidth"];
const CODEL_KEYS: &[&str; 3] = &["target", "interval", "packets"];
const PIE_KEYS: &[&str; 7] = &["target", "tupdate", "alpha", "beta", "burst", "packets", "derandomize"];
const FQ_CODEL_KEYS: &[&str; 5] = &["target", "interval", "flows", "quantum", "packets"];

/// CoDel's and FQ-CoDel's target and interval, checked together.
fn target_interval(
    kind: &'static str,
    target: Option<Kv>,
    interval: Option<Kv>,
    defaults: (Duration, Duration),
) -> Result<(Duration, Duration), QueueError> {
    const EXPECTED: &str = "a duration above 0, such as 5ms or 100ms";
    let t = target.map(|kv| duration(kind, kv, false, EXPECTED)).transpose()?.unwrap_or(defaults.0);
    let i = interval.map(|kv| duration(kind, kv, false, EXPECTED)).transpose()?.unwrap_or(defaults.1);
    if t >= i {
        return Err(match (target, interval) {
            (None, Some((k, v))) => bad(kind, k, v, "an interval longer than the target (5ms unless given)"),
            (Some((k, v)), _) => bad(kind, k, v, "a target shorter than the interval"),
            (None, None) => unreachable!("the default target is shorter than the default interval"),
        });
    }
    Ok((t, i))
}

impl QueueSpec {
    /// Each discipline's canonical name with the parameters it accepts
    /// (`droptail` also answers to `pfifo` and `bfifo`, `fq_codel` to
    /// `fq-codel`).
    pub const PARAMS: &'static [(&'static str, &'static [&'static str])] = &[
        ("droptail", DROPTAIL_KEYS),
        ("red", RED_KEYS),
        ("codel", CODEL_KEYS),
        ("pie", PIE_KEYS),
        ("fq_codel", FQ_CODEL_KEYS),
    ];

    /// Parses `NAME[:key=value,...]`, e.g. `droptail:packets=2000`,
    /// `droptail:bytes=3MB`, `codel:target=5ms,interval=100ms`,
    /// `red:min=5,max=15`. See the crate README for every key.
    pub fn parse(s: &str) -> Result<Self, QueueError> {
        let (name, rest) = s.split_once(':').unwrap_or((s, ""));
        let mut pairs = Vec::new();
        for item in rest.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (k, v) = item.split_once('=').ok_or_else(|| QueueError::Malformed(s.to_string()))?;
            pairs.push((k.trim().to_string(), v.trim().to_string()));
        }
        Self::from_pairs(name.trim(), &pairs)
    }

    /// Builds a spec from a kind and its `key`/`value` pairs.
    pub fn from_pairs(kind: &str, pairs: &[(String, String)]) -> Result<Self, QueueError> {
        match kind {
            "droptail" | "pfifo" | "bfifo" => Self::droptail(pairs),
            "red" => Self::red(pairs),
            "codel" => Self::codel(pairs),
            "pie" => Self::pie(pairs),
            "fq_codel" | "fq-codel" => Self::fq_codel(pairs),
            other => Err(QueueError::UnknownKind(clip(other))),
        }
    }

    fn droptail(pairs: &[(String, String)]) -> Result<Self, QueueError> {
        const KNOWN: &[&str] = DROPTAIL_KEYS;
        let mut limit = None;
        for (k, v) in pairs {
            let reject = |expected| bad("droptail", k, v, expected);
            let l = match k.as_str() {
                "packets" => match v.parse::<usize>() {
                    Ok(n) if n > 0 => Limit::Packets(n),
                    _ => return Err(reject(PACKETS)),
                },
                "bytes" => match parse_bytes(v) {
                    Ok(n) if n >= 1500 => Limit::Bytes(n),
                    _ => return Err(reject("a size of at least 1500 bytes, such as 3MB")),
                },
                _ => return Err(QueueError::UnknownKey { kind: "droptail", key: k.clone(), known: KNOWN }),
            };
            if limit.replace(l).is_some() {
                return Err(reject("one limit only: packets or bytes"));
            }
        }
        let limit = limit.ok_or(QueueError::Missing { kind: "droptail", what: "a limit: packets=N or bytes=SIZE" })?;
        Ok(QueueSpec::DropTail(limit))
    }

    fn red(pairs: &[(String, String)]) -> Result<Self, QueueError> {
        const K: &str = "red";
        const KNOWN: &[&str; 7] = RED_KEYS;
        let [min, max, maxp, wq, packets, gentle, bandwidth] = values(K, KNOWN, pairs)?;
        let min =
            min.ok_or(QueueError::Missing { kind: K, what: "min=PACKETS, the average queue where drops start" })?;
        let max =
            max.ok_or(QueueError::Missing { kind: K, what: "max=PACKETS, the average queue where all arrivals drop" })?;
        let min_th = number(K, min, |x| x > 0.0, "a number of packets above 0, such as 5")?;
        let max_th = number(K, max, |x| x > min_th, "a number of packets above min")?;
        let mut p = RedParams::new(min_th, max_th);
        if let Some(kv) = maxp {
            p.max_p = number(K, kv, |x| x > 0.0 && x <= 1.0, "a probability above 0 and at most 1, such as 0.1")?;
        }
        if let Some(kv) = wq {
            p.w_q = number(K, kv, |x| x > 0.0 && x <= 1.0, "a weight above 0 and at most 1, such as 0.002")?;
        }
        if let Some(kv) = packets {
            p.limit = whole(K, kv, 1, usize::MAX, PACKETS)?;
        }
        if (p.limit as f64) < max_th {
            let (k, v) = packets.unwrap_or(("packets", ""));
            let v = if v.is_empty() { p.limit.to_string() } else { v.to_string() };
            return Err(bad(K, k, &v, "a hard limit of at least max packets"));
        }
        if let Some(kv) = gentle {
            p.gentle = boolean(K, kv)?;
        }
        if let Some((k, v)) = bandwidth {
            p.bandwidth = parse_bandwidth(v).map_err(|e| bad(K, k, v, e.expected))?;
        }
        Ok(QueueSpec::Red(p))
    }

    fn codel(pairs: &[(String, String)]) -> Result<Self, QueueError> {
        const K: &str = "codel";
        const KNOWN: &[&str; 3] = CODEL_KEYS;
        let [target, interval, packets] = values(K, KNOWN, pairs)?;
        let d = CodelParams::default();
        let (target, interval) = target_interval(K, target, interval, (d.target, d.interval))?;
        let limit = packets.map(|kv| whole(K, kv, 1, usize::MAX, PACKETS)).transpose()?.unwrap_or(d.limit);
        Ok(QueueSpec::Codel(CodelParams { target, interval, limit }))
    }

    fn pie(pairs: &[(String, String)]) -> Result<Self, QueueError> {
        const K: &str = "pie";
        const KNOWN: &[&str; 7] = PIE_KEYS;
        let [target, tupdate, alpha, beta, burst, packets, derandomize] = values(K, KNOWN, pairs)?;
        let mut p = PieParams::default();
        if let Some(kv) = target {
            p.target = duration(K, kv, false, "a duration above 0, such as 15ms")?;
        }
        if let Some(kv) = tupdate {
            // PIE runs one update per period passed: a period of nanoseconds
            // would cost millions of updates per simulated second.
            const TUPDATE: &str = "a duration of at least 1ms, such as 15ms";
            p.tupdate = duration(K, kv, false, TUPDATE)?;
            if p.tupdate < Duration::from_millis(1) {
                return Err(bad(K, kv.0, kv.1, TUPDATE));
            }
        }
        const WEIGHT: &str = "a number of at least 0 (per second), such as 0.125";
        if let Some(kv) = alpha {
            p.alpha = number(K, kv, |x| x >= 0.0, WEIGHT)?;
        }
        if let Some(kv) = beta {
            p.beta = number(K, kv, |x| x >= 0.0, WEIGHT)?;
        }
        if let Some(kv) = burst {
            p.max_burst = duration(K, kv, true, "a duration such as 150ms (0ms disables it)")?;
        }
        if let Some(kv) = packets {
            p.limit = whole(K, kv, 1, usize::MAX, PACKETS)?;
        }
        if let Some(kv) = derandomize {
            p.derandomize = boolean(K, kv)?;
        }
        Ok(QueueSpec::Pie(p))
    }

    fn fq_codel(pairs: &[(String, String)]) -> Result<Self, QueueError> {
        const K: &str = "fq_codel";
        const KNOWN: &[&str; 5] = FQ_CODEL_KEYS;
        let [target, interval, flows, quantum, packets] = values(K, KNOWN, pairs)?;
        let d = FqCodelParams::default();
        let (target, interval) = target_interval(K, target, interval, (d.target, d.interval))?;
        let flows = flows.map(|kv| whole(K, kv, 1, 65536, "a whole number of flows from 1 to 65536")).transpose()?;
        let quantum =
            quantum.map(|kv| whole(K, kv, 256, 1 << 20, "a whole number of bytes from 256 to 1048576")).transpose()?;
        let limit = packets.map(|kv| whole(K, kv, 1, usize::MAX, PACKETS)).transpose()?.unwrap_or(d.limit);
        Ok(QueueSpec::FqCodel(FqCodelParams {
            target,
            interval,
            flows: flows.unwrap_or(d.flows),
            quantum: quantum.map_or(d.quantum, |q| q as u32),
            limit,
        }))
    }

    /// The canonical name of this discipline.
    pub fn kind(&self) -> &'static str {
        match self {
            QueueSpec::DropTail(_) => "droptail",
            QueueSpec::Red(_) => "red",
            QueueSpec::Codel(_) => "codel",
            QueueSpec::Pie(_) => "pie",
            QueueSpec::FqCodel(_) => "fq_codel",
        }
    }

    /// A queue of this kind. `seed` feeds the randomised disciplines (RED and
    /// PIE draw from it; FQ-CoDel perturbs its flow hash with it).
    pub fn build<P: Packet>(&self, seed: u64) -> AnyQdisc<P> {
        match self {
            QueueSpec::DropTail(l) => AnyQdisc::DropTail(DropTail::new(*l)),
            QueueSpec::Red(p) => AnyQdisc::Red(Red::new(*p, Rng::new(seed))),
            QueueSpec::Codel(p) => AnyQdisc::Codel(Codel::new(*p)),
            QueueSpec::Pie(p) => AnyQdisc::Pie(Pie::new(*p, Rng::new(seed))),
            QueueSpec::FqCodel(p) => AnyQdisc::FqCodel(FqCodel::new(*p, seed)),
        }
    }
}

impl fmt::Display for QueueSpec {
    /// Every parameter, defaults included, so that the output names the
    /// whole configuration and parses back to the same spec.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueueSpec::DropTail(Limit::Packets(n)) => write!(f, "droptail:packets={n}"),
            QueueSpec::DropTail(Limit::Bytes(b)) => write!(f, "droptail:bytes={b}"),
            QueueSpec::Red(p) => write!(
                f,
                "red:min={},max={},maxp={},wq={},packets={},gentle={},bandwidth={}",
                p.min_th, p.max_th, p.max_p, p.w_q, p.limit, p.gentle, p.bandwidth
            ),
            QueueSpec::Codel(p) => {
                write!(f, "codel:target={},interval={},packets={}", p.target, p.interval, p.limit)
            }
            QueueSpec::Pie(p) => write!(
                f,
                "pie:target={},tupdate={},alpha={},beta={},burst={},packets={},derandomize={}",
                p.target, p.tupdate, p.alpha, p.beta, p.max_burst, p.limit, p.derandomize
            ),
            QueueSpec::FqCodel(p) => write!(
                f,
                "fq_codel:target={},interval={},flows={},quantum={},packets={}",
                p.target, p.interval, p.flows, p.quantum, p.limit
            ),
        }
    }
}

/// Any queue discipline, dispatched by match (no virtual calls on the
/// simulator's hot path).
#[derive(Clone, Debug)]
pub enum AnyQdisc<P> {
    DropTail(DropTail<P>),
    Red(Red<P>),
    Codel(Codel<P>),
    Pie(Pie<P>),
    FqCodel(FqCodel<P>),
}

macro_rules! dispatch {
    ($self:expr, $q:ident => $e:expr) => {
        match $self {
            AnyQdisc::DropTail($q) => $e,
            AnyQdisc::Red($q) => $e,
            AnyQdisc::Codel($q) => $e,
            AnyQdisc::Pie($q) => $e,
            AnyQdisc::FqCodel($q) => $e,
        }
    };
}

impl<P: Packet> Qdisc<P> for AnyQdisc<P> {
    #[inline]
    fn enqueue(&mut self, pkt: P, now: Instant, drops: &mut Vec<P>) {
        dispatch!(self, q => q.enqueue(pkt, now, drops))
    }
    #[inline]
    fn dequeue(&mut self, now: Instant, drops: &mut Vec<P>) -> Option<Dequeued<P>> {
        dispatch!(self, q => q.dequeue(now, drops))
    }
    #[inline]
    fn len_packets(&self) -> usize {
        dispatch!(self, q => q.len_packets())
    }
    #[inline]
    fn len_bytes(&self) -> u64 {
        dispatch!(self, q => q.len_bytes())
    }
    #[inline]
    fn passes_through(&self, pkt: &P) -> bool {
        dispatch!(self, q => q.passes_through(pkt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::droptail::tests::P;
    use rtac_core::Bandwidth;

    #[test]
    fn parses_droptail_in_packets_and_bytes() {
        assert_eq!(QueueSpec::parse("droptail:packets=2000").unwrap(), QueueSpec::DropTail(Limit::Packets(2000)));
        assert_eq!(QueueSpec::parse("droptail:bytes=3MB").unwrap(), QueueSpec::DropTail(Limit::Bytes(3 << 20)));
        assert_eq!(QueueSpec::parse("droptail:packets=2000").unwrap().to_string(), "droptail:packets=2000");
    }

    #[test]
    fn errors_name_the_kind_and_key() {
        let e = QueueSpec::parse("droptail:pakets=5").unwrap_err().to_string();
        assert!(e.contains("pakets") && e.contains("packets, bytes"), "{e}");
        let e = QueueSpec::parse("droptail:packets=0").unwrap_err().to_string();
        assert!(e.contains("packets=\"0\""), "{e}");
        assert!(QueueSpec::parse("droptail").unwrap_err().to_string().contains("needs a limit"));
        assert!(QueueSpec::parse("fifo9:packets=3").unwrap_err().to_string().contains("fifo9"));
        assert!(QueueSpec::parse("droptail:packets").is_err());
    }

    fn err(s: &str) -> QueueError {
        QueueSpec::parse(s).unwrap_err()
    }

    /// Asserts `s` is rejected for `key`'s value, with `kind`, `key`,
    /// `value` and the expectation (`hint`) all in the message.
    fn rejects(s: &str, kind: &str, key: &str, value: &str, hint: &str) {
        let e = err(s);
        assert!(
            matches!(&e, QueueError::BadValue { kind: k, key: kk, value: v, .. } if *k == kind && kk == key && v == value),
            "{s}: {e:?}"
        );
        let msg = e.to_string();
        assert!(msg.starts_with(&format!("{kind}: {key}={value:?} is invalid: expected ")), "{msg}");
        assert!(msg.contains(hint), "{s}: {msg}");
    }

    #[test]
    fn droptail_rejects_two_limits_and_small_byte_limits() {
        rejects("droptail:packets=5,bytes=3MB", "droptail", "bytes", "3MB", "one limit only");
        rejects("droptail:bytes=1000", "droptail", "bytes", "1000", "at least 1500 bytes");
        rejects("pfifo:packets=-1", "droptail", "packets", "-1", "above 0");
    }

    #[test]
    fn unknown_kind_lists_every_known_kind() {
        let msg = err("sfq").to_string();
        assert!(msg.contains("\"sfq\""), "{msg}");
        for k in ["droptail", "red", "codel", "pie", "fq_codel"] {
            assert!(msg.contains(k), "{msg}");
        }
    }

    #[test]
    fn malformed_pairs_are_rejected() {
        assert_eq!(err("codel:target"), QueueError::Malformed("codel:target".into()));
        assert!(err("red:min=5,max").to_string().contains("expected NAME[:key=value,...]"));
    }

    #[test]
    fn unknown_keys_list_the_kinds_parameters() {
        for (s, kind, list) in [
            ("red:min=5,max=15,limit=3", "red", "min, max, maxp, wq, packets, gentle, bandwidth"),
            ("codel:tgt=5ms", "codel", "target, interval, packets"),
            ("pie:ref=15ms", "pie", "target, tupdate, alpha, beta, burst, packets, derandomize"),
            ("fq_codel:buckets=9", "fq_codel", "target, interval, flows, quantum, packets"),
        ] {
            let e = err(s);
            assert!(matches!(&e, QueueError::UnknownKey { kind: k, .. } if *k == kind), "{e:?}");
            assert!(e.to_string().contains(list), "{e}");
        }
    }

    #[test]
    fn repeated_keys_are_rejected() {
        rejects("codel:target=5ms,target=6ms", "codel", "target", "6ms", "only once");
        rejects("red:min=5,max=15,min=6", "red", "min", "6", "only once");
        rejects("pie:alpha=1,alpha=2", "pie", "alpha", "2", "only once");
        rejects("fq_codel:flows=4,flows=8", "fq_codel", "flows", "8", "only once");
    }

    #[test]
    fn codel_defaults_follow_rfc_8289_and_linux() {
        let s = QueueSpec::parse("codel").unwrap();
        assert_eq!(s, QueueSpec::Codel(CodelParams::default()));
        assert_eq!(s.to_string(), "codel:target=5ms,interval=100ms,packets=1000");
        let s = QueueSpec::parse("codel:target=2.5ms,interval=50ms,packets=300").unwrap();
        assert_eq!(
            s,
            QueueSpec::Codel(CodelParams {
                target: Duration::from_micros(2500),
                interval: Duration::from_millis(50),
                limit: 300
            })
        );
        assert_eq!(QueueSpec::parse(&s.to_string()).unwrap(), s);
    }

    #[test]
    fn codel_rejects_bad_values() {
        rejects("codel:target=0ms", "codel", "target", "0ms", "above 0");
        rejects("codel:target=5", "codel", "target", "5", "duration");
        rejects("codel:interval=soon", "codel", "interval", "soon", "duration");
        rejects("codel:packets=0", "codel", "packets", "0", "above 0");
        rejects("codel:packets=2.5", "codel", "packets", "2.5", "whole number");
        rejects("codel:target=100ms", "codel", "target", "100ms", "shorter than the interval");
        rejects("codel:interval=5ms", "codel", "interval", "5ms", "longer than the target");
        rejects("codel:target=10ms,interval=10ms", "codel", "target", "10ms", "shorter than the interval");
    }

    #[test]
    fn red_needs_both_thresholds() {
        let e = err("red:max=15");
        assert!(matches!(e, QueueError::Missing { kind: "red", .. }), "{e:?}");
        assert!(e.to_string().contains("min="), "{e}");
        assert!(err("red:min=5").to_string().contains("max="));
        assert!(err("red").to_string().contains("red needs min="));
    }

    #[test]
    fn red_parses_defaults_and_round_trips() {
        let s = QueueSpec::parse("red:min=5,max=15").unwrap();
        assert_eq!(s, QueueSpec::Red(RedParams::new(5.0, 15.0)));
        assert_eq!(s.to_string(), "red:min=5,max=15,maxp=0.1,wq=0.002,packets=1000,gentle=false,bandwidth=10mbit");
        let s = QueueSpec::parse("red:min=2.5,max=40,maxp=0.25,wq=0.01,packets=80,gentle=on,bandwidth=55mbit").unwrap();
        assert_eq!(
            s,
            QueueSpec::Red(RedParams {
                min_th: 2.5,
                max_th: 40.0,
                max_p: 0.25,
                w_q: 0.01,
                limit: 80,
                gentle: true,
                bandwidth: Bandwidth::from_mbps(55),
            })
        );
        assert_eq!(QueueSpec::parse(&s.to_string()).unwrap(), s);
    }

    #[test]
    fn red_rejects_bad_values() {
        rejects("red:min=0,max=15", "red", "min", "0", "above 0");
        rejects("red:min=x,max=15", "red", "min", "x", "number of packets");
        rejects("red:min=5,max=5", "red", "max", "5", "above min");
        rejects("red:min=5,max=inf", "red", "max", "inf", "above min");
        rejects("red:min=5,max=15,maxp=0", "red", "maxp", "0", "probability");
        rejects("red:min=5,max=15,maxp=1.5", "red", "maxp", "1.5", "at most 1");
        rejects("red:min=5,max=15,wq=0", "red", "wq", "0", "weight");
        rejects("red:min=5,max=15,wq=NaN", "red", "wq", "NaN", "weight");
        rejects("red:min=5,max=15,packets=0", "red", "packets", "0", "above 0");
        rejects("red:min=5,max=15,packets=10", "red", "packets", "10", "at least max");
        rejects("red:min=5,max=1500", "red", "packets", "1000", "at least max");
        rejects("red:min=5,max=15,gentle=maybe", "red", "gentle", "maybe", "true or false");
        rejects("red:min=5,max=15,bandwidth=fast", "red", "bandwidth", "fast", "rate");
    }

    #[test]
    fn pie_defaults_follow_rfc_8033_and_linux() {
        let s = QueueSpec::parse("pie").unwrap();
        assert_eq!(s, QueueSpec::Pie(PieParams::default()));
        assert_eq!(
            s.to_string(),
            "pie:target=15ms,tupdate=15ms,alpha=0.125,beta=1.25,burst=150ms,packets=1000,derandomize=true"
        );
        let s =
            QueueSpec::parse("pie:target=20ms,tupdate=30ms,alpha=0.25,beta=2,burst=0ms,packets=50,derandomize=false")
                .unwrap();
        assert_eq!(
            s,
            QueueSpec::Pie(PieParams {
                target: Duration::from_millis(20),
                tupdate: Duration::from_millis(30),
                alpha: 0.25,
                beta: 2.0,
                max_burst: Duration::ZERO,
                limit: 50,
                derandomize: false,
            })
        );
        assert_eq!(QueueSpec::parse(&s.to_string()).unwrap(), s);
    }

    #[test]
    fn pie_rejects_bad_values() {
        rejects("pie:target=0s", "pie", "target", "0s", "above 0");
        rejects("pie:tupdate=0ms", "pie", "tupdate", "0ms", "at least 1ms");
        rejects("pie:tupdate=1ns", "pie", "tupdate", "1ns", "at least 1ms");
        rejects("pie:alpha=-1", "pie", "alpha", "-1", "at least 0");
        rejects("pie:beta=lots", "pie", "beta", "lots", "at least 0");
        rejects("pie:burst=long", "pie", "burst", "long", "150ms");
        rejects("pie:packets=0", "pie", "packets", "0", "above 0");
        rejects("pie:derandomize=2", "pie", "derandomize", "2", "true or false");
    }

    #[test]
    fn fq_codel_defaults_follow_rfc_8290() {
        let s = QueueSpec::parse("fq_codel").unwrap();
        assert_eq!(s, QueueSpec::FqCodel(FqCodelParams::default()));
        assert_eq!(s.to_string(), "fq_codel:target=5ms,interval=100ms,flows=1024,quantum=1514,packets=10240");
        let s = QueueSpec::parse("fq-codel:target=10ms,interval=200ms,flows=64,quantum=300,packets=500").unwrap();
        assert_eq!(
            s,
            QueueSpec::FqCodel(FqCodelParams {
                target: Duration::from_millis(10),
                interval: Duration::from_millis(200),
                flows: 64,
                quantum: 300,
                limit: 500
            })
        );
        assert_eq!(QueueSpec::parse(&s.to_string()).unwrap(), s);
    }

    #[test]
    fn fq_codel_rejects_bad_values() {
        rejects("fq_codel:target=0ms", "fq_codel", "target", "0ms", "above 0");
        rejects("fq_codel:target=200ms", "fq_codel", "target", "200ms", "shorter than the interval");
        rejects("fq_codel:interval=1ms", "fq_codel", "interval", "1ms", "longer than the target");
        rejects("fq_codel:flows=0", "fq_codel", "flows", "0", "1 to 65536");
        rejects("fq_codel:flows=65537", "fq_codel", "flows", "65537", "1 to 65536");
        rejects("fq_codel:quantum=100", "fq_codel", "quantum", "100", "256 to 1048576");
        rejects("fq_codel:packets=0", "fq_codel", "packets", "0", "above 0");
    }

    #[test]
    fn every_kind_builds_a_working_queue() {
        for s in ["droptail:packets=100", "red:min=5,max=15", "codel", "pie", "fq_codel:flows=16"] {
            let spec = QueueSpec::parse(s).unwrap();
            assert_eq!(spec.kind(), s.split(':').next().unwrap());
            let mut q: AnyQdisc<P> = spec.build(1);
            let mut drops = Vec::new();
            for i in 0..3 {
                q.enqueue(P(1000, i), Instant::from_millis(i), &mut drops);
            }
            assert_eq!((q.len_packets(), q.len_bytes()), (3, 3000), "{s}");
            let d = q.dequeue(Instant::from_millis(3), &mut drops).unwrap();
            assert!(d.sojourn <= Duration::from_millis(3), "{s}");
            assert_eq!(q.len_packets(), 2, "{s}");
            assert!(drops.is_empty(), "{s}");
        }
    }
}
