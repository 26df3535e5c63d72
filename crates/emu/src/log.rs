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
    pub fn arrival(&mut self, t: Instant, size: u32, flow: u32) {
        let t = self.t(t);
        self.put(format_args!("{t} + {size} {flow}\n"));
    }
    pub fn departure(&mut self, t: Instant, size: u32, delay: Duration, flow: u32) {
        let t = self.t(t);
        self.put(format_args!("{t} - {size} {} {flow}\n", ms(delay)));
    }
    pub fn drop(&mut self, t: Instant, size: u32, flow: u32, cause: DropCause) {
        let t = self.t(t);
        self.put(format_args!("{t} d {size} {flow} {}\n", cause.as_str()));
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
    Arrival { t_ms: f64, size: u32, flow: u32 },
    Departure { t_ms: f64, size: u32, delay_ms: f64, flow: u32 },
    Drop { t_ms: f64, size: u32, flow: u32, cause: String },
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
        let ev = match f[1] {
            "+" => Event::Arrival { t_ms, size: num(f[2])?, flow: flow(3)? },
            "#" => Event::Opportunity { t_ms, bytes: num(f[2])? },
            "-" => {
                let delay_ms = f.get(3).ok_or_else(|| bad("departure without delay"))?;
                let delay_ms: f64 = delay_ms.parse().map_err(|_| bad("bad delay"))?;
                Event::Departure { t_ms, size: num(f[2])?, delay_ms, flow: flow(4)? }
            }
            "d" => {
                Event::Drop { t_ms, size: num(f[2])?, flow: flow(3)?, cause: f.get(4).unwrap_or(&"queue").to_string() }
            }
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
        w.arrival(Instant::from_micros(1_012_345), 1500, 1);
        w.opportunity(Instant::from_micros(1_012_585), 1500);
        w.departure(Instant::from_micros(1_012_585), 1500, Duration::from_micros(240), 1);
        w.drop(Instant::from_micros(1_013_001), 52, 2, DropCause::Aqm);
        w.finish().unwrap();
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert!(
            text.contains("\n12.345 + 1500 1\n12.585 # 1500\n12.585 - 1500 0.240 1\n13.001 d 52 2 aqm\n"),
            "{text}"
        );
        let log = read_log(text.as_bytes()).unwrap();
        assert_eq!(log.header("link"), Some("50mbit"));
        assert_eq!(log.flows, vec![(1, "tcp 100.64.0.1:5201 > 100.64.0.2:40000".to_string())]);
        assert_eq!(log.events.len(), 4);
        assert_eq!(log.events[2], Event::Departure { t_ms: 12.585, size: 1500, delay_ms: 0.24, flow: 1 });
    }

    #[test]
    fn mahimahi_logs_are_read_and_errors_name_the_line() {
        let text = "# mahimahi mm-link (Downlink) [trace] > log\n# base timestamp: 1\n0 + 1504\n3 # 1504\n3 - 1504 3\n";
        let log = read_log(text.as_bytes()).unwrap();
        assert_eq!(log.events[2], Event::Departure { t_ms: 3.0, size: 1504, delay_ms: 3.0, flow: 0 });
        let e = read_log("1 + 1500\n2 ? 1500\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.to_string().contains("unknown event kind"), "{e}");
    }
}
