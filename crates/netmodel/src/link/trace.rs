//! A link driven by a Mahimahi packet-delivery trace (Netravali et al.,
//! "Mahimahi: Accurate Record-and-Replay for HTTP", USENIX ATC 2015; the
//! semantics below are those of mahimahi's `LinkQueue`).
//!
//! A trace is one integer millisecond timestamp per line, non-decreasing.
//! Each line is one delivery opportunity: at that instant the link may carry
//! up to 1500 bytes (a timestamp repeated k times carries k*1500 bytes). The
//! trace repeats forever with a period equal to its last timestamp: the
//! opportunity at `t` of repetition `r` happens at `origin + r*period + t`.
//!
//! Service, as `LinkQueue::rationalize` does it:
//! - a packet may span several opportunities; it has left when the
//!   opportunity carrying its last byte happens;
//! - the bytes of an opportunity left over by a packet that finished in it
//!   go to the next packet only if that packet is already waiting then,
//!   i.e. it starts service at that very instant; otherwise they are lost,
//!   like every opportunity that passes while the queue is empty;
//! - a packet that starts at `start` can use opportunities at `start` or
//!   later (mahimahi's clock ticks in whole ms, so it cannot say which of a
//!   packet and an opportunity in the same ms came first; here both are on
//!   a ns clock and a tie goes to the packet).

use super::LinkServer;
use rtac_core::{Bandwidth, Duration, Instant};
use std::fmt;
use std::sync::Arc;

/// Bytes one delivery opportunity carries (mahimahi's `PACKET_SIZE` is 1504:
/// 1500 bytes of IP packet plus the 4-byte TUN header; our sizes are IP).
pub const OPPORTUNITY_BYTES: u32 = 1500;

const NS_PER_MS: u64 = 1_000_000;

/// Why a trace was rejected. Line numbers count from 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceError {
    /// The line is not a whole number of milliseconds.
    NotANumber { line: usize, text: String },
    /// An empty line followed by more timestamps (only trailing blank lines
    /// are allowed).
    BlankLine { line: usize },
    /// The timestamp is smaller than the one before it.
    Decreasing { line: usize, ms: u64, previous: u64 },
    /// There is no timestamp at all.
    Empty,
    /// The last timestamp is 0: the trace has no duration, so it cannot
    /// repeat (mahimahi: "trace must last for a nonzero amount of time").
    ZeroPeriod { line: usize },
    /// The opportunities are so sparse that the average capacity rounds to
    /// 0 bit/s: a link that carries nothing. `line` is the last line, which
    /// sets the period.
    ZeroCapacity { line: usize, opportunities: usize, period_ms: u64 },
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::NotANumber { line, text } => {
                write!(f, "line {line}: {text:?} is not a timestamp: expected a whole number of milliseconds")
            }
            TraceError::BlankLine { line } => {
                write!(f, "line {line}: empty line: expected a timestamp in milliseconds on every line")
            }
            TraceError::Decreasing { line, ms, previous } => {
                write!(f, "line {line}: timestamp {ms} ms is before the previous one ({previous} ms): timestamps must not decrease")
            }
            TraceError::Empty => write!(f, "the trace has no timestamps: expected one millisecond timestamp per line"),
            TraceError::ZeroPeriod { line } => write!(
                f,
                "line {line}: the last timestamp is 0, so the trace lasts no time and cannot repeat: expected it to end after 0 ms"
            ),
            TraceError::ZeroCapacity { line, opportunities, period_ms } => write!(
                f,
                "line {line}: {opportunities} delivery opportunit{} in a period of {period_ms} ms average under \
                 1 bit/s: the link would carry nothing; expected at least one 1500-byte opportunity per 12,000 s",
                if *opportunities == 1 { "y" } else { "ies" }
            ),
        }
    }
}
impl std::error::Error for TraceError {}

/// A parsed Mahimahi trace: delivery-opportunity times in ms over one
/// period. Cloning is cheap (the timestamps are shared).
#[derive(Clone, PartialEq, Eq)]
pub struct MahimahiTrace {
    ms: Arc<[u64]>,
}

impl fmt::Debug for MahimahiTrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MahimahiTrace")
            .field("opportunities", &self.ms.len())
            .field("period_ms", &self.period_ms())
            .finish()
    }
}

/// Parses a Mahimahi trace (see the module documentation). Lines may end in
/// `\r\n`; blank lines are accepted only at the end.
pub fn parse_mahimahi(text: &str) -> Result<MahimahiTrace, TraceError> {
    let mut ms: Vec<u64> = Vec::new();
    let mut blank: Option<usize> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let s = raw.trim();
        if s.is_empty() {
            blank.get_or_insert(line);
            continue;
        }
        if let Some(line) = blank {
            return Err(TraceError::BlankLine { line });
        }
        let v = match s.parse::<u64>() {
            Ok(v) if s.bytes().all(|b| b.is_ascii_digit()) => v,
            _ => return Err(TraceError::NotANumber { line, text: rtac_core::units::clip(raw) }),
        };
        if let Some(&previous) = ms.last() {
            if v < previous {
                return Err(TraceError::Decreasing { line, ms: v, previous });
            }
        }
        if v.checked_mul(NS_PER_MS).is_none() {
            return Err(TraceError::NotANumber { line, text: rtac_core::units::clip(raw) });
        }
        ms.push(v);
    }
    match ms.last() {
        None => Err(TraceError::Empty),
        Some(0) => Err(TraceError::ZeroPeriod { line: ms.len() }),
        Some(&period_ms) => {
            let trace = MahimahiTrace { ms: ms.into() };
            if trace.average_bps() < 1.0 {
                return Err(TraceError::ZeroCapacity { line: trace.len(), opportunities: trace.len(), period_ms });
            }
            Ok(trace)
        }
    }
}

impl MahimahiTrace {
    /// Opportunities in one period.
    pub fn len(&self) -> usize {
        self.ms.len()
    }
    /// Always false: a parsed trace has at least one opportunity.
    pub fn is_empty(&self) -> bool {
        self.ms.is_empty()
    }
    /// The timestamps of one period, in ms.
    pub fn timestamps_ms(&self) -> &[u64] {
        &self.ms
    }
    pub fn period_ms(&self) -> u64 {
        self.ms[self.ms.len() - 1]
    }
    /// The repetition period (the last timestamp).
    pub fn period(&self) -> Duration {
        Duration::from_millis(self.period_ms())
    }
    /// Average capacity over one period, in bits per second.
    pub fn average_bps(&self) -> f64 {
        self.ms.len() as f64 * OPPORTUNITY_BYTES as f64 * 8.0 / (self.period_ms() as f64 / 1000.0)
    }
    /// Average capacity over one period, rounded to a whole bit per second.
    pub fn average_rate(&self) -> Bandwidth {
        Bandwidth::from_bps(self.average_bps().round() as u64)
    }

    /// When opportunity `g` (counted from 0 over all repetitions) happens,
    /// for a trace started at `origin`.
    fn time_of(&self, origin: Instant, g: u64) -> Instant {
        let n = self.ms.len() as u64;
        let ms = (g / n) * self.period_ms() + self.ms[(g % n) as usize];
        origin + Duration::from_nanos(ms.saturating_mul(NS_PER_MS))
    }

    /// The first opportunity at or after `t`.
    fn first_at_or_after(&self, origin: Instant, t: Instant) -> u64 {
        let rel = (t - origin).as_nanos();
        let period = self.period_ms() * NS_PER_MS;
        let n = self.ms.len() as u64;
        let rep = rel / period;
        // The last opportunities of repetition r share their instant with
        // the start of r + 1, so the answer may lie one repetition back.
        for r in rep.saturating_sub(1)..=rep + 1 {
            let within = rel.saturating_sub(r * period);
            let i = self.ms.partition_point(|&m| m * NS_PER_MS < within) as u64;
            if i < n {
                return r * n + i;
            }
        }
        unreachable!("repetition rep + 1 starts after t")
    }

    /// The delivery opportunities in `[t0, t1)` of this trace started at
    /// `origin`, in order (a repeated timestamp appears repeatedly).
    pub fn opportunities(&self, origin: Instant, t0: Instant, t1: Instant) -> Opportunities<'_> {
        Opportunities { trace: self, origin, next: self.first_at_or_after(origin, t0), end: t1 }
    }
}

/// Iterator over opportunity instants, from [`MahimahiTrace::opportunities`].
#[derive(Clone, Debug)]
pub struct Opportunities<'a> {
    trace: &'a MahimahiTrace,
    origin: Instant,
    next: u64,
    end: Instant,
}

impl Iterator for Opportunities<'_> {
    type Item = Instant;
    fn next(&mut self) -> Option<Instant> {
        let t = self.trace.time_of(self.origin, self.next);
        if t >= self.end {
            return None;
        }
        self.next += 1;
        Some(t)
    }
}

/// A link serving packets at the opportunities of a Mahimahi trace.
#[derive(Clone, Debug)]
pub struct TraceLink {
    trace: MahimahiTrace,
    origin: Instant,
    /// The first opportunity no packet has used yet.
    next_opp: u64,
    /// Bytes left in opportunity `next_opp - 1` by the last packet, which
    /// finished at `last_finish`.
    leftover: u32,
    last_finish: Instant,
}

impl TraceLink {
    /// A link whose trace time 0 is `origin` (mahimahi: when the link
    /// started).
    pub fn new(trace: MahimahiTrace, origin: Instant) -> Self {
        TraceLink { trace, origin, next_opp: 0, leftover: 0, last_finish: origin }
    }
    pub fn trace(&self) -> &MahimahiTrace {
        &self.trace
    }
    pub fn origin(&self) -> Instant {
        self.origin
    }
    /// Average capacity over one period.
    pub fn average_rate(&self) -> Bandwidth {
        self.trace.average_rate()
    }
    /// The delivery opportunities in `[t0, t1)`, used or not.
    pub fn opportunities(&self, t0: Instant, t1: Instant) -> Opportunities<'_> {
        self.trace.opportunities(self.origin, t0, t1)
    }
}

impl LinkServer for TraceLink {
    fn transmit(&mut self, start: Instant, bytes: u32) -> Instant {
        // The caller starts a packet only once the previous one has left.
        let start = start.max(self.last_finish);
        if bytes == 0 {
            return start;
        }
        let mut need = bytes;
        if start == self.last_finish && self.leftover > 0 {
            // Back to back with the previous packet: it may use what that
            // packet left of its last opportunity.
            let used = need.min(self.leftover);
            self.leftover -= used;
            need -= used;
            if need == 0 {
                return start;
            }
        }
        // Opportunities that passed while the link was idle are lost.
        let mut first = self.next_opp;
        if self.trace.time_of(self.origin, first) < start {
            first = self.trace.first_at_or_after(self.origin, start);
        }
        let k = need.div_ceil(OPPORTUNITY_BYTES) as u64;
        let last = first + k - 1;
        self.next_opp = last + 1;
        self.leftover = (k as u32) * OPPORTUNITY_BYTES - need;
        self.last_finish = self.trace.time_of(self.origin, last);
        self.last_finish
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Instant {
        Instant::from_millis(x)
    }

    fn link(text: &str) -> TraceLink {
        TraceLink::new(parse_mahimahi(text).unwrap(), Instant::ZERO)
    }

    #[test]
    fn parses_one_timestamp_per_line_with_trailing_blank_lines() {
        let t = parse_mahimahi("0\n0\n3\r\n7\n\n\n").unwrap();
        assert_eq!(t.timestamps_ms(), &[0, 0, 3, 7]);
        assert_eq!(t.period(), Duration::from_millis(7));
        assert_eq!(t.len(), 4);
    }

    #[test]
    fn rejects_what_is_not_a_timestamp_with_its_line_number() {
        for (text, line) in [("1\nx\n", 2), ("1\n-3\n", 2), ("1\n+3\n", 2), ("2.5\n", 1), ("1\n2 3\n", 2)] {
            let e = parse_mahimahi(text).unwrap_err();
            assert!(matches!(&e, TraceError::NotANumber { line: l, .. } if *l == line), "{text:?}: {e:?}");
            assert!(e.to_string().starts_with(&format!("line {line}: ")), "{e}");
            assert!(e.to_string().contains("whole number of milliseconds"), "{e}");
        }
        let huge = format!("1\n{}\n", u64::MAX);
        assert!(matches!(parse_mahimahi(&huge), Err(TraceError::NotANumber { line: 2, .. })));
    }

    #[test]
    fn rejects_decreasing_timestamps() {
        let e = parse_mahimahi("1\n5\n4\n9\n").unwrap_err();
        assert_eq!(e, TraceError::Decreasing { line: 3, ms: 4, previous: 5 });
        assert!(e.to_string().contains("line 3") && e.to_string().contains("must not decrease"), "{e}");
    }

    #[test]
    fn rejects_blank_lines_inside_the_trace() {
        let e = parse_mahimahi("1\n\n2\n").unwrap_err();
        assert_eq!(e, TraceError::BlankLine { line: 2 });
        assert!(e.to_string().starts_with("line 2: empty line"), "{e}");
    }

    #[test]
    fn rejects_empty_and_zero_length_traces() {
        for text in ["", "\n\n", "   \n"] {
            assert_eq!(parse_mahimahi(text).unwrap_err(), TraceError::Empty, "{text:?}");
        }
        assert!(TraceError::Empty.to_string().contains("no timestamps"));
        let e = parse_mahimahi("0\n0\n0\n").unwrap_err();
        assert_eq!(e, TraceError::ZeroPeriod { line: 3 });
        assert!(e.to_string().contains("line 3") && e.to_string().contains("cannot repeat"), "{e}");
    }

    #[test]
    fn rejects_traces_of_no_capacity_and_cuts_long_lines() {
        let e = parse_mahimahi("0\n0\n18446744073709\n").unwrap_err();
        assert_eq!(e, TraceError::ZeroCapacity { line: 3, opportunities: 3, period_ms: 18446744073709 });
        assert!(e.to_string().starts_with("line 3: 3 delivery opportunities"), "{e}");
        // One opportunity per 12,000 s is exactly 1 bit/s: accepted.
        assert_eq!(parse_mahimahi("12000000\n").unwrap().average_bps(), 1.0);
        let e = parse_mahimahi(&format!("1\n{}\n", "x".repeat(1 << 20))).unwrap_err().to_string();
        assert!(e.len() < 200 && e.starts_with("line 2:"), "{}", &e[..200]);
    }

    #[test]
    fn trace_repeats_with_the_last_timestamp_as_period() {
        let t = parse_mahimahi("1\n").unwrap();
        let got: Vec<_> = t.opportunities(Instant::ZERO, ms(0), ms(5)).collect();
        assert_eq!(got, vec![ms(1), ms(2), ms(3), ms(4)]);
        // The last opportunity of one repetition and the first of the next
        // share an instant: "0 0 1" gives 2 at 0 ms, then 3 per ms.
        let t = parse_mahimahi("0\n0\n1\n").unwrap();
        let got: Vec<_> = t.opportunities(Instant::ZERO, ms(0), ms(3)).collect();
        assert_eq!(got, vec![ms(0), ms(0), ms(1), ms(1), ms(1), ms(2), ms(2), ms(2)]);
        let late: Vec<_> = t.opportunities(Instant::ZERO, ms(1000), ms(1001)).collect();
        assert_eq!(late, vec![ms(1000); 3]);
    }

    #[test]
    fn opportunities_are_offset_by_the_origin_and_half_open() {
        let t = parse_mahimahi("10\n20\n").unwrap();
        let o = Instant::from_micros(500);
        let got: Vec<_> = t.opportunities(o, ms(0), Instant::from_micros(40_500)).collect();
        let us = |x| Instant::from_micros(x);
        assert_eq!(got, vec![us(10_500), us(20_500), us(30_500)]);
    }

    #[test]
    fn average_capacity_of_one_packet_per_ms_is_12_mbit() {
        assert_eq!(link("1\n").average_rate(), Bandwidth::from_mbps(12));
        assert_eq!(link("2\n2\n2\n").average_rate(), Bandwidth::from_mbps(18));
    }

    #[test]
    fn full_packets_take_one_opportunity_each() {
        let mut l = link("1\n");
        assert_eq!(l.transmit(ms(0), 1500), ms(1));
        assert_eq!(l.transmit(ms(1), 1500), ms(2));
        assert_eq!(l.transmit(ms(2), 1500), ms(3));
    }

    #[test]
    fn repeated_timestamps_serve_several_packets_at_once() {
        let mut l = link("5\n5\n10\n");
        let mut t = ms(0);
        let mut done = Vec::new();
        for _ in 0..6 {
            t = l.transmit(t, 1500);
            done.push(t);
        }
        assert_eq!(done, vec![ms(5), ms(5), ms(10), ms(15), ms(15), ms(20)]);
    }

    #[test]
    fn a_large_packet_spans_several_opportunities() {
        let mut l = link("1\n");
        assert_eq!(l.transmit(ms(0), 4000), ms(3));
        // 500 bytes of the 3 ms opportunity are left for a packet starting
        // right then.
        assert_eq!(l.transmit(ms(3), 500), ms(3));
        assert_eq!(l.transmit(ms(3), 1500), ms(4));
    }

    #[test]
    fn small_back_to_back_packets_share_an_opportunity() {
        let mut l = link("1\n");
        assert_eq!(l.transmit(ms(0), 600), ms(1));
        assert_eq!(l.transmit(ms(1), 600), ms(1));
        // 300 bytes left: the next packet's last 1200 bytes wait for 2 ms.
        assert_eq!(l.transmit(ms(1), 1500), ms(2));
        // It left 300 bytes of the 2 ms opportunity, enough for this one.
        assert_eq!(l.transmit(ms(2), 300), ms(2));
        assert_eq!(l.transmit(ms(2), 1), ms(3));
    }

    #[test]
    fn leftover_bytes_are_lost_when_the_next_packet_comes_later() {
        let mut l = link("1\n");
        assert_eq!(l.transmit(ms(0), 600), ms(1));
        // Arrives after the opportunity: its 900 spare bytes are gone.
        assert_eq!(l.transmit(Instant::from_micros(1001), 600), ms(2));
    }

    #[test]
    fn opportunities_pass_unused_while_the_link_is_idle() {
        let mut l = link("1\n");
        assert_eq!(l.transmit(ms(0), 1500), ms(1));
        // Idle from 1 ms to 10.5 ms: the next packet waits for 11 ms.
        assert_eq!(l.transmit(Instant::from_micros(10_500), 1500), ms(11));
        // A packet starting exactly at an opportunity can use it.
        assert_eq!(l.transmit(ms(20), 1500), ms(20));
    }

    #[test]
    fn service_far_into_the_trace_finds_the_right_repetition() {
        let mut l = link("0\n0\n4\n4\n10\n");
        // Repetition 100 starts at 1000 ms: its opportunities are 1000 (x3,
        // with the previous repetition's last one), 1004 (x2), 1010.
        assert_eq!(l.transmit(ms(1001), 3000), ms(1004));
        assert_eq!(l.transmit(ms(1004), 1500), ms(1010));
        assert_eq!(l.transmit(ms(1010), 1500), ms(1010));
        assert_eq!(l.transmit(ms(1010), 1500), ms(1010));
        assert_eq!(l.transmit(ms(1010), 1500), ms(1014));
    }

    #[test]
    fn a_link_with_an_origin_shifts_every_opportunity() {
        let mut l = TraceLink::new(parse_mahimahi("1\n").unwrap(), ms(100));
        assert_eq!(l.transmit(ms(0), 1500), ms(101));
        assert_eq!(l.opportunities(ms(0), ms(103)).collect::<Vec<_>>(), vec![ms(101), ms(102)]);
    }

    #[test]
    fn saturated_link_delivers_the_trace_capacity() {
        let mut l = link("3\n3\n7\n12\n20\n");
        let mut t = ms(0);
        let mut bytes = 0u64;
        while t < ms(20_000) {
            t = l.transmit(t, 1000);
            bytes += 1000;
        }
        // 5 opportunities per 20 ms = 3 Mbit/s: 7.5 MB in 20 s (give or take
        // the last packet).
        assert!((bytes as i64 - 7_500_000).abs() <= 1500, "{bytes}");
    }

    #[test]
    fn real_verizon_lte_trace_parses_and_has_a_plausible_capacity() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces/mahimahi/Verizon-LTE-short.down");
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
        let trace = parse_mahimahi(&text).unwrap();
        assert_eq!(trace.len(), text.lines().filter(|l| !l.trim().is_empty()).count());
        let mbps = trace.average_bps() / 1e6;
        println!(
            "Verizon-LTE-short.down: {} opportunities over {} ms, average {mbps:.2} Mbit/s",
            trace.len(),
            trace.period_ms()
        );
        assert!(mbps > 1.0 && mbps < 100.0, "{mbps} Mbit/s");
        assert!(trace.period() > Duration::from_secs(10));
        // A saturated link over one period carries exactly the trace.
        let mut l = TraceLink::new(trace.clone(), Instant::ZERO);
        let mut t = Instant::ZERO;
        let mut n = 0;
        loop {
            let done = l.transmit(t, 1500);
            if done > Instant::ZERO + trace.period() {
                break;
            }
            t = done;
            n += 1;
        }
        let first_rep = trace.opportunities(Instant::ZERO, Instant::ZERO, Instant::ZERO + trace.period()).count();
        let at_end = trace.timestamps_ms().iter().filter(|&&m| m == trace.period_ms()).count();
        assert_eq!(n, first_rep + at_end + trace.timestamps_ms().iter().filter(|&&m| m == 0).count());
    }
}
