//! Units and their parsing: bandwidth in bits per second, sizes in bytes,
//! durations written as `40ms`, `1.5s`, `250us`.

use crate::time::Duration;
use std::fmt;

/// A link rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bandwidth(u64);

impl Bandwidth {
    pub const fn from_bps(bps: u64) -> Self {
        Bandwidth(bps)
    }
    pub const fn from_mbps(mbps: u64) -> Self {
        Bandwidth(mbps * 1_000_000)
    }
    pub const fn bps(self) -> u64 {
        self.0
    }
    pub fn mbps_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    /// Time to serialise `bytes` at this rate, rounded up to the next
    /// nanosecond so that a busy link never runs faster than its rate.
    pub fn serialization(self, bytes: u64) -> Duration {
        if self.0 == 0 {
            return Duration::MAX;
        }
        let bits = bytes as u128 * 8 * 1_000_000_000;
        Duration::from_nanos(bits.div_ceil(self.0 as u128).min(u64::MAX as u128) as u64)
    }
    /// Bytes this rate carries in `d` (the bandwidth-delay product).
    pub fn bytes_in(self, d: Duration) -> u64 {
        (self.0 as u128 * d.as_nanos() as u128 / 8 / 1_000_000_000) as u64
    }
}

impl fmt::Display for Bandwidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b.is_multiple_of(1_000_000_000) && b > 0 {
            write!(f, "{}gbit", b / 1_000_000_000)
        } else if b.is_multiple_of(1_000_000) && b > 0 {
            write!(f, "{}mbit", b / 1_000_000)
        } else if b.is_multiple_of(1_000) && b > 0 {
            write!(f, "{}kbit", b / 1_000)
        } else {
            write!(f, "{}bit", b)
        }
    }
}

/// Why a quantity could not be parsed. The caller adds where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseUnitError {
    /// The input, cut to 60 characters.
    pub input: String,
    /// What is wrong, when more is known than "unreadable": `missing unit`.
    pub problem: Option<&'static str>,
    pub expected: &'static str,
}

impl ParseUnitError {
    fn new(input: &str, expected: &'static str) -> Self {
        ParseUnitError { input: clip(input), problem: None, expected }
    }
}

/// At most 60 characters of `s`, marked with `…` when cut: inputs echoed in
/// messages stay short, however long the input.
pub fn clip(s: &str) -> String {
    const MAX: usize = 60;
    match s.char_indices().nth(MAX) {
        None => s.to_string(),
        Some((i, _)) => format!("{}…", &s[..i]),
    }
}

impl fmt::Display for ParseUnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.problem {
            Some(p) => write!(f, "{:?}: {p}; expected {}", self.input, self.expected),
            None => write!(f, "cannot read {:?}: expected {}", self.input, self.expected),
        }
    }
}
impl std::error::Error for ParseUnitError {}

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
        .unwrap_or(s.len());
    // `e` is also the first letter of no unit we accept, so a trailing
    // exponent marker without digits is simply a parse failure below.
    let (num, unit) = s.split_at(end);
    let v: f64 = num.parse().ok()?;
    if !v.is_finite() || v < 0.0 {
        return None;
    }
    Some((v, unit.trim()))
}

/// Parses `100mbit`, `1gbit`, `500kbit`, `12000000bit`, `55Mbps`.
pub fn parse_bandwidth(s: &str) -> Result<Bandwidth, ParseUnitError> {
    const EXPECTED: &str = "a rate such as 50mbit, 1gbit, 500kbit or 1000000bit";
    let err = || ParseUnitError::new(s, EXPECTED);
    let why = |problem| ParseUnitError { problem: Some(problem), ..err() };
    let (v, unit) = split_number(s).ok_or_else(err)?;
    let mult = match unit.to_ascii_lowercase().as_str() {
        "bit" | "bps" | "b/s" => 1e0,
        "kbit" | "kbps" | "kbit/s" => 1e3,
        "mbit" | "mbps" | "mbit/s" => 1e6,
        "gbit" | "gbps" | "gbit/s" => 1e9,
        "" => return Err(why("missing unit")),
        _ => return Err(err()),
    };
    let bps = (v * mult).round();
    if bps < 1.0 {
        return Err(why("rate must be above 0"));
    }
    if bps > u64::MAX as f64 {
        return Err(why("rate is too large"));
    }
    Ok(Bandwidth(bps as u64))
}

/// Parses `40ms`, `1.5s`, `250us`, `100ns`, `2min`.
pub fn parse_duration(s: &str) -> Result<Duration, ParseUnitError> {
    const EXPECTED: &str = "a duration such as 40ms, 1.5s, 250us or 2min";
    let err = || ParseUnitError::new(s, EXPECTED);
    let (v, unit) = split_number(s).ok_or_else(err)?;
    let ns_per = match unit {
        "ns" => 1e0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "min" => 60e9,
        "" => return Err(ParseUnitError { problem: Some("missing unit"), ..err() }),
        _ => return Err(err()),
    };
    let ns = (v * ns_per).round();
    if ns > u64::MAX as f64 {
        return Err(ParseUnitError {
            problem: Some("longer than 584 years, the longest time the clock counts"),
            ..err()
        });
    }
    Ok(Duration::from_nanos(ns as u64))
}

/// Parses a byte size: `1448`, `64KB`, `2560KB`, `1.5MB`, `64KiB`.
/// `KB`/`MB` are powers of 1024, as Linux's tcp_rmem and the papers use them.
pub fn parse_bytes(s: &str) -> Result<u64, ParseUnitError> {
    const EXPECTED: &str = "a size in bytes such as 1448, 64KB or 2.5MB";
    let err = || ParseUnitError::new(s, EXPECTED);
    let (v, unit) = split_number(s).ok_or_else(err)?;
    let mult = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" | "kib" => 1024.0,
        "m" | "mb" | "mib" => 1024.0 * 1024.0,
        "g" | "gb" | "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(err()),
    };
    let b = (v * mult).round();
    if b > u64::MAX as f64 {
        return Err(err());
    }
    Ok(b as u64)
}

/// A size for messages, in the units `parse_bytes` reads (powers of 1024):
/// `512 B`, `3.7 GB`.
pub fn format_bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KB", "MB", "GB", "TB", "PB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_of_a_full_packet_at_100_mbit_is_120_us() {
        assert_eq!(Bandwidth::from_mbps(100).serialization(1500), Duration::from_micros(120));
    }

    #[test]
    fn sizes_print_in_the_units_they_parse_in() {
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(3 << 30), "3.0 GB");
        assert_eq!(parse_bytes(&format_bytes(3 << 30).replace(' ', "")).unwrap(), 3 << 30);
        assert_eq!(format_bytes(u64::MAX), "16384.0 PB");
    }

    #[test]
    fn serialization_rounds_up() {
        // 1 byte at 3 bit/s = 2.666.. s
        assert_eq!(Bandwidth::from_bps(3).serialization(1).as_nanos(), 2_666_666_667);
    }

    #[test]
    fn bdp_of_55_mbit_and_50_ms() {
        let bdp = Bandwidth::from_mbps(55).bytes_in(Duration::from_millis(50));
        assert_eq!(bdp, 343_750);
    }

    #[test]
    fn parses_rates_durations_and_sizes() {
        assert_eq!(parse_bandwidth("55mbit").unwrap(), Bandwidth::from_mbps(55));
        assert_eq!(parse_bandwidth("1gbit").unwrap().bps(), 1_000_000_000);
        assert_eq!(parse_bandwidth("1.5Mbps").unwrap().bps(), 1_500_000);
        assert_eq!(parse_duration("40ms").unwrap(), Duration::from_millis(40));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_bytes("2560KB").unwrap(), 2_621_440);
        assert_eq!(parse_bytes("1448").unwrap(), 1448);
    }

    #[test]
    fn rejects_garbage_with_a_message_naming_the_input() {
        for bad in ["", "fast", "10", "-5mbit", "10 parsecs", "0bit"] {
            let e = parse_bandwidth(bad).unwrap_err();
            assert!(e.to_string().contains("expected a rate"), "{bad}: {e}");
        }
        assert!(parse_bandwidth("0mbit").unwrap_err().to_string().contains("rate must be above 0"));
        assert!(parse_bandwidth("10").unwrap_err().to_string().contains("missing unit"));
        assert!(parse_duration("10").unwrap_err().to_string().contains("missing unit"));
        assert!(parse_duration("1e300s").unwrap_err().to_string().contains("584 years"));
        let long = "9".repeat(1 << 20);
        let e = parse_bandwidth(&long).unwrap_err().to_string();
        assert!(e.len() < 200 && e.contains('…'), "{} bytes", e.len());
        assert!(parse_duration("10").is_err());
        assert!(parse_duration("ms").is_err());
        assert!(parse_bytes("12 apples").is_err());
    }
}
