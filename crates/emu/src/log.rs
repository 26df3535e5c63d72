//! The per-packet link log (docs/EMULATOR.md, "Log format"): a text format
//! close to Mahimahi's, one event per line, times in milliseconds since the
//! emulator started, with microsecond decimals.
//!
//! ```text
//! # rtac-emu link log v1
//! # direction: down
//! # link: 50mbit
//! # flow 1 tcp 100.64.0.1:5201 > 100.64.0.2:40312
//! 12.345 + 1500 1            arrival: size in IP bytes, flow
//! 12.585 # 1500              delivery opportunity (every one, used or not)
//! 12.585 - 1500 0.240 1      departure: size, delay (departure - arrival), flow
//! 13.001 d 1500 1 queue      drop: size, flow, cause (queue | aqm | loss)
//! ```
//!
//! Arrival, departure and drop lines of TCP packets end with more fields,
//! `SEQ LEN ACK [LEFT-RIGHT]...`: the sequence number, the sequence space
//! the segment takes (payload, plus one each for SYN and FIN), the
//! acknowledgment number (`-` without the ACK flag) and the SACK blocks.
//! With both directions' logs they give every ACK's round-trip time as the
//! sender measures it (`crate::rtt`). Mahimahi's tools read the first
//! fields and ignore the rest.

use crate::frame::TcpSeg;
use rtac_core::{Duration, Instant};
use std::fmt;
use std::io::{self, BufRead, BufWriter, Write};

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// Rejected on arrival by the queue discipline (tail drop, RED, PIE,
    /// FQ-CoDel's overflow drop).
    Queue,
    /// Dropped at the head by an AQM on dequeue (CoDel, FQ-CoDel).
    Aqm,
    /// Random loss (`--loss`), before the queue.
    Loss,
}

impl DropCause {
    pub fn as_str(self) -> &'static str {
        match self {
            DropCause::Queue => "queue",
            DropCause::Aqm => "aqm",
            DropCause::Loss => "loss",
        }
    }
}

/// The ` SEQ LEN ACK [LEFT-RIGHT]...` suffix of a TCP packet's line
/// (nothing otherwise).
struct Tcp(Option<TcpSeg>);
impl fmt::Display for Tcp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(s) = &self.0 else { return Ok(()) };
        write!(f, " {} {}", s.seq, s.len)?;
        match s.ack {
            Some(a) => write!(f, " {a}")?,
            None => f.write_str(" -")?,
        }
        for (l, r) in s.sacks() {
            write!(f, " {l}-{r}")?;
        }
        Ok(())
    }
}

/// Writes one direction's log.
pub struct LogWriter {
    w: BufWriter<Box<dyn Write + Send>>,
    base: Instant,
    error: Option<io::Error>,
}

fn ms(d: Duration) -> Ms {
    Ms(d.as_nanos())
}

/// Nanoseconds shown as milliseconds with three decimals (rounded down to
/// the microsecond).
struct Ms(u64);
impl fmt::Display for Ms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let us = self.0 / 1000;
        write!(f, "{}.{:03}", us / 1000, us % 1000)
    }
}

impl LogWriter {
    /// A log whose time 0 is `base`.
    pub fn new(out: Box<dyn Write + Send>, base: Instant) -> Self {
        LogWriter { w: BufWriter::with_capacity(1 << 20, out), base, error: None }
    }
    fn t(&self, t: Instant) -> Ms {
        ms(t - self.base)
    }
    fn put(&mut self, args: fmt::Arguments) {
        if self.error.is_none() {
            if let Err(e) = self.w.write_fmt(args) {
                self.error = Some(e);
            }
        }
    }
    /// A `# ...` line.
    pub fn comment(&mut self, text: &str) {
        self.put(format_args!("# {text}\n"));
    }
    pub fn arrival(&mut self, t: Instant, size: u32, flow: u32, tcp: Option<TcpSeg>) {
        let t = self.t(t);
        self.put(format_args!("{t} + {size} {flow}{}\n", Tcp(tcp)));
    }
    pub fn departure(&mut self, t: Instant, size: u32, delay: Duration, flow: u32, tcp: Option<TcpSeg>) {
        let t = self.t(t);
        self.put(format_args!("{t} - {size} {} {flow}{}\n", ms(delay), Tcp(tcp)));
    }
    pub fn drop(&mut self, t: Instant, size: u32, flow: u32, cause: DropCause, tcp: Option<TcpSeg>) {
        let t = self.t(t);
        self.put(format_args!("{t} d {size} {flow} {}{}\n", cause.as_str(), Tcp(tcp)));
    }
    pub fn opportunity(&mut self, t: Instant, bytes: u32) {
        let t = self.t(t);
        self.put(format_args!("{t} # {bytes}\n"));
    }
    /// Flushes; returns the first write error, if any.
    pub fn finish(mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.w.flush()
    }
}

/// One event of a log.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    Arrival { t_ms: f64, size: u32, flow: u32, tcp: Option<TcpSeg> },
    Departure { t_ms: f64, size: u32, delay_ms: f64, flow: u32, tcp: Option<TcpSeg> },
    Drop { t_ms: f64, size: u32, flow: u32, cause: String, tcp: Option<TcpSeg> },
    Opportunity { t_ms: f64, bytes: u32 },
}

impl Event {
    pub fn t_ms(&self) -> f64 {
        match self {
            Event::Arrival { t_ms, .. }
            | Event::Departure { t_ms, .. }
            | Event::Drop { t_ms, .. }
            | Event::Opportunity { t_ms, .. } => *t_ms,
        }
    }
}

/// A parsed log: its `# key: value` header lines, flow descriptions and
/// events (in file order).
#[derive(Clone, Debug, Default)]
pub struct Log {
    pub header: Vec<(String, String)>,
    pub flows: Vec<(u32, String)>,
    pub events: Vec<Event>,
}

impl Log {
    /// The value of header `key` (`# key: value`).
    pub fn header(&self, key: &str) -> Option<&str> {
        self.header.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

/// Why a log could not be read; `line` counts from 1.
#[derive(Debug)]
pub struct LogError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Reads a log written by [`LogWriter`]. Mahimahi's own logs (integer
/// times, no flow field, no drop lines) are read too.
pub fn read_log(r: impl BufRead) -> Result<Log, LogError> {
    let mut log = Log::default();
    for (i, line) in r.lines().enumerate() {
        let line_no = i + 1;
        let line = line.map_err(|e| LogError { line: line_no, message: e.to_string() })?;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(c) = line.strip_prefix('#') {
            let c = c.trim();
            if let Some(rest) = c.strip_prefix("flow ") {
                let mut it = rest.splitn(2, ' ');
                if let (Some(Ok(id)), Some(desc)) = (it.next().map(str::parse::<u32>), it.next()) {
                    log.flows.push((id, desc.to_string()));
                }
            } else if let Some((k, v)) = c.split_once(':') {
                log.header.push((k.trim().to_string(), v.trim().to_string()));
            }
            continue;
        }
        let bad = |what: &str| LogError { line: line_no, message: format!("{what} in {line:?}") };
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 3 {
            return Err(bad("expected TIME KIND SIZE ..."));
        }
        let t_ms: f64 = f[0].parse().map_err(|_| bad("bad time"))?;
        let num = |s: &str| s.parse::<u32>().map_err(|_| bad("bad number"));
        let flow = |i: usize| f.get(i).map(|s| num(s)).transpose().map(|v| v.unwrap_or(0));
        // The optional TCP fields SEQ LEN ACK [LEFT-RIGHT]... from field i on.
        let tcp = |i: usize| -> Result<Option<TcpSeg>, LogError> {
            let Some(rest) = f.get(i..i + 3) else { return Ok(None) };
            let ack = if rest[2] == "-" { None } else { Some(num(rest[2])?) };
            let mut seg = TcpSeg { seq: num(rest[0])?, len: num(rest[1])?, ack, ..TcpSeg::default() };
            for b in f[i + 3..].iter().take(seg.sack.len()) {
                let (l, r) = b.split_once('-').ok_or_else(|| bad("bad SACK block"))?;
                seg.sack[seg.nsack as usize] = (num(l)?, num(r)?);
                seg.nsack += 1;
            }
            Ok(Some(seg))
        };
        let ev = match f[1] {
            "+" => Event::Arrival { t_ms, size: num(f[2])?, flow: flow(3)?, tcp: tcp(4)? },
            "#" => Event::Opportunity { t_ms, bytes: num(f[2])? },
            "-" => {
                let delay_ms = f.get(3).ok_or_else(|| bad("departure without delay"))?;
                let delay_ms: f64 = delay_ms.parse().map_err(|_| bad("bad delay"))?;
                Event::Departure { t_ms, size: num(f[2])?, delay_ms, flow: flow(4)?, tcp: tcp(5)? }
            }
            "d" => Event::Drop {
                t_ms,
                size: num(f[2])?,
                flow: flow(3)?,
                cause: f.get(4).unwrap_or(&"queue").to_string(),
                tcp: tcp(5)?,
            },
            _ => return Err(bad("unknown event kind (expected +, -, d or #)")),
        };
        log.events.push(ev);
    }
    Ok(log)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn written_events_read_back() {
        let buf = Shared::default();
        let base = Instant::from_millis(1000);
        let mut w = LogWriter::new(Box::new(buf.clone()), base);
        w.comment("rtac-emu link log v1");
        w.comment("link: 50mbit");
        w.comment("flow 1 tcp 100.64.0.1:5201 > 100.64.0.2:40000");
        w.arrival(Instant::from_micros(1_012_345), 1500, 1, None);
        w.opportunity(Instant::from_micros(1_012_585), 1500);
        w.departure(Instant::from_micros(1_012_585), 1500, Duration::from_micros(240), 1, None);
        w.drop(Instant::from_micros(1_013_001), 52, 2, DropCause::Aqm, None);
        let seg = TcpSeg { seq: 4_000_000_000, len: 1448, ack: Some(1), ..TcpSeg::default() };
        let syn = TcpSeg { seq: 9, len: 1, ack: None, ..TcpSeg::default() };
        let sack = TcpSeg { seq: 1, len: 0, ack: Some(7), sack: [(10, 20), (30, 40), (0, 0), (0, 0)], nsack: 2 };
        w.arrival(Instant::from_micros(1_014_000), 1500, 1, Some(seg));
        w.departure(Instant::from_micros(1_014_240), 1500, Duration::from_micros(240), 1, Some(seg));
        w.drop(Instant::from_micros(1_015_000), 60, 2, DropCause::Queue, Some(syn));
        w.arrival(Instant::from_micros(1_016_000), 72, 2, Some(sack));
        w.finish().unwrap();
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert!(
            text.contains("\n12.345 + 1500 1\n12.585 # 1500\n12.585 - 1500 0.240 1\n13.001 d 52 2 aqm\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "\n14.000 + 1500 1 4000000000 1448 1\n14.240 - 1500 0.240 1 4000000000 1448 1\n15.000 d 60 2 queue 9 1 -\n\
                 16.000 + 72 2 1 0 7 10-20 30-40\n"
            ),
            "{text}"
        );
        let log = read_log(text.as_bytes()).unwrap();
        assert_eq!(log.header("link"), Some("50mbit"));
        assert_eq!(log.flows, vec![(1, "tcp 100.64.0.1:5201 > 100.64.0.2:40000".to_string())]);
        assert_eq!(log.events.len(), 8);
        assert_eq!(log.events[7], Event::Arrival { t_ms: 16.0, size: 72, flow: 2, tcp: Some(sack) });
        assert_eq!(log.events[2], Event::Departure { t_ms: 12.585, size: 1500, delay_ms: 0.24, flow: 1, tcp: None });
        assert_eq!(log.events[4], Event::Arrival { t_ms: 14.0, size: 1500, flow: 1, tcp: Some(seg) });
        assert_eq!(
            log.events[5],
            Event::Departure { t_ms: 14.24, size: 1500, delay_ms: 0.24, flow: 1, tcp: Some(seg) }
        );
        assert_eq!(log.events[6], Event::Drop { t_ms: 15.0, size: 60, flow: 2, cause: "queue".into(), tcp: Some(syn) });
    }

    #[test]
    fn mahimahi_logs_are_read_and_errors_name_the_line() {
        let text = "# mahimahi mm-link (Downlink) [trace] > log\n# base timestamp: 1\n0 + 1504\n3 # 1504\n3 - 1504 3\n";
        let log = read_log(text.as_bytes()).unwrap();
        assert_eq!(log.events[2], Event::Departure { t_ms: 3.0, size: 1504, delay_ms: 3.0, flow: 0, tcp: None });
        let e = read_log("1 + 1500\n2 ? 1500\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.to_string().contains("unknown event kind"), "{e}");
    }
}
