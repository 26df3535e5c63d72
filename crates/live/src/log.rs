//! The per-step log (`--log FILE`): one row per connection and control
//! step, as CSV or JSON lines, and a reader for it (for `rtac plot`).
//!
//! Columns, in this order (CSV header = JSON keys):
//!
//! | column | meaning |
//! |--------|---------|
//! | `t_s` | seconds since the run started (CLOCK_MONOTONIC) |
//! | `pid`, `fd` | the process and descriptor reading the socket |
//! | `conn` | connection number, unique within the process |
//! | `peer` | the remote address (`10.0.0.1:80`, `[fd00::1]:80`) |
//! | `rtt_ms` | the controller's RTT estimate |
//! | `rtt_min_ms` | its minimum RTT (with any compensation, e.g. RTAC's delta) |
//! | `window_bytes` | its estimate of the sender's window (bytes per RTT) |
//! | `rwnd_bytes` | the window applied with TCP_WINDOW_CLAMP (empty/null: none) |
//! | `kernel_rcv_rtt_ms` | the raw tcpi_rcv_rtt fed as the RTT sample |
//! | `read_bytes` | bytes the program read since the previous step |
//! | `reads` | the reads (calls that returned data) those bytes came in |
//! | `group` | the access link whose window budget the connection shares (the interface, `lo`), empty for a connection with its own controller |
//!
//! `group` came last, after the others; logs written before it (twelve
//! columns) are read with an empty group.
//! Writers from several threads and processes share one file: each row is
//! one `write(2)` on an `O_APPEND` descriptor.

use crate::error::AgentError;
use crate::safefs;
use crate::sys;
use rtac_core::time::{Duration, Instant};
use std::fmt::{self, Write as _};
use std::net::SocketAddr;
use std::os::fd::IntoRawFd;
use std::os::raw::c_int;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The CSV header (and the JSON keys, in order).
pub const COLUMNS: [&str; 13] = [
    "t_s",
    "pid",
    "fd",
    "conn",
    "peer",
    "rtt_ms",
    "rtt_min_ms",
    "window_bytes",
    "rwnd_bytes",
    "kernel_rcv_rtt_ms",
    "read_bytes",
    "reads",
    "group",
];

/// The columns of logs written before `group`.
const OLD_COLUMNS: usize = 12;

/// CSV or JSON lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    Csv,
    Jsonl,
}

impl LogFormat {
    /// `.jsonl` and `.json` files get JSON lines; anything else CSV.
    pub fn for_path(path: &Path) -> LogFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some("jsonl") | Some("json") => LogFormat::Jsonl,
            _ => LogFormat::Csv,
        }
    }
}

/// One logged control step.
#[derive(Clone, Debug, PartialEq)]
pub struct LogRecord {
    pub t_s: f64,
    pub pid: u32,
    pub fd: i32,
    pub conn: u64,
    pub peer: String,
    pub rtt_ms: Option<f64>,
    pub rtt_min_ms: Option<f64>,
    pub window_bytes: Option<u64>,
    pub rwnd_bytes: Option<u64>,
    pub kernel_rcv_rtt_ms: Option<f64>,
    pub read_bytes: u64,
    pub reads: u64,
    /// The shared budget's group, empty for none.
    pub group: String,
}

/// What a step writes: borrowed from the driver, formatted without
/// allocating.
pub struct Row<'a> {
    pub t: Instant,
    pub fd: c_int,
    pub conn: u64,
    pub peer: Option<&'a SocketAddr>,
    pub rtt: Option<Duration>,
    pub rtt_min: Option<Duration>,
    pub window_bytes: Option<u64>,
    pub rwnd_bytes: Option<u64>,
    pub kernel_rcv_rtt: Option<Duration>,
    pub read_bytes: u64,
    pub reads: u64,
    /// The group whose budget the connection shares (`crate::group`):
    /// letters, digits and `-_.@:` only.
    pub group: Option<&'a str>,
}

/// A fixed buffer that `write!` fills; too long a row is cut (never here:
/// rows are under 300 bytes).
struct StackBuf {
    buf: [u8; 512],
    len: usize,
}

impl fmt::Write for StackBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = self.buf.len() - self.len;
        if s.len() > room {
            return Err(fmt::Error);
        }
        self.buf[self.len..self.len + s.len()].copy_from_slice(s.as_bytes());
        self.len += s.len();
        Ok(())
    }
}

struct Opt<T>(Option<T>, bool);

impl fmt::Display for Opt<f64> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0, self.1) {
            (Some(v), _) => write!(f, "{v:.3}"),
            (None, true) => f.write_str("null"),
            (None, false) => Ok(()),
        }
    }
}

impl fmt::Display for Opt<u64> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0, self.1) {
            (Some(v), _) => write!(f, "{v}"),
            (None, true) => f.write_str("null"),
            (None, false) => Ok(()),
        }
    }
}

fn ms(d: Option<Duration>) -> Option<f64> {
    d.map(Duration::as_millis_f64)
}

impl Row<'_> {
    fn format(&self, format: LogFormat, t0: Instant, out: &mut StackBuf) -> fmt::Result {
        let t = (self.t - t0).as_secs_f64();
        let pid = std::process::id();
        let json = format == LogFormat::Jsonl;
        let (rtt, min, win, rwnd, krtt) = (
            Opt(ms(self.rtt), json),
            Opt(ms(self.rtt_min), json),
            Opt(self.window_bytes, json),
            Opt(self.rwnd_bytes, json),
            Opt(ms(self.kernel_rcv_rtt), json),
        );
        struct Peer<'a>(Option<&'a SocketAddr>);
        impl fmt::Display for Peer<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.0 {
                    Some(a) => write!(f, "{a}"),
                    None => Ok(()),
                }
            }
        }
        let peer = Peer(self.peer);
        // A label with anything else than these would break a CSV or JSON
        // field: written as none.
        let safe = |g: &&str| g.bytes().all(|c| c.is_ascii_alphanumeric() || b"-_.@:".contains(&c));
        let group = self.group.filter(safe).unwrap_or("");
        if json {
            writeln!(
                out,
                "{{\"t_s\":{t:.6},\"pid\":{pid},\"fd\":{},\"conn\":{},\"peer\":\"{peer}\",\"rtt_ms\":{rtt},\
                 \"rtt_min_ms\":{min},\"window_bytes\":{win},\"rwnd_bytes\":{rwnd},\"kernel_rcv_rtt_ms\":{krtt},\
                 \"read_bytes\":{},\"reads\":{},\"group\":\"{group}\"}}",
                self.fd, self.conn, self.read_bytes, self.reads
            )
        } else {
            writeln!(
                out,
                "{t:.6},{pid},{},{},{peer},{rtt},{min},{win},{rwnd},{krtt},{},{},{group}",
                self.fd, self.conn, self.read_bytes, self.reads
            )
        }
    }
}

/// An append-only log file shared by threads (and processes).
///
/// The descriptor is kept above the numbers programs usually use, and its
/// identity is checked before each write: a program that closes every
/// descriptor (daemons, `close_range`) or reuses the number cannot get log
/// rows in its own files. The file is then opened again.
pub struct LogSink {
    path: PathBuf,
    format: LogFormat,
    t0: Instant,
    fd: Mutex<Option<(c_int, (u64, u64))>>,
}

impl LogSink {
    /// Creates (truncates) `path` and writes the CSV header: for the
    /// command that starts a run. Only a regular file is truncated, and not
    /// through a symbolic link (`safefs`).
    pub fn create(path: &Path, t0: Instant) -> Result<LogSink, AgentError> {
        let format = LogFormat::for_path(path);
        let mut header = String::new();
        if format == LogFormat::Csv {
            header = COLUMNS.join(",") + "\n";
        }
        let what = || format!("cannot create log {}", path.display());
        let mut f = safefs::open_write(path, safefs::Open::Truncate, 0o644).map_err(AgentError::io(what()))?;
        std::io::Write::write_all(&mut f, header.as_bytes()).map_err(AgentError::io(what()))?;
        Self::open(path, t0)
    }

    /// Opens `path` for appending (the shim, in every process of the run),
    /// writing the header if the file is empty.
    pub fn open(path: &Path, t0: Instant) -> Result<LogSink, AgentError> {
        if path.as_os_str().as_bytes().contains(&0) {
            return Err(AgentError::Usage(format!("log path {} contains a NUL byte", path.display())));
        }
        let sink = LogSink { path: path.to_path_buf(), format: LogFormat::for_path(path), t0, fd: Mutex::new(None) };
        let fd = sink.reopen().map_err(AgentError::io(format!("cannot open log {}", path.display())))?;
        // SAFETY: an all-zero stat is valid; `fd` is open.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if sink.format == LogFormat::Csv && unsafe { libc::fstat(fd.0, &mut st) } == 0 && st.st_size == 0 {
            let header = COLUMNS.join(",") + "\n";
            // SAFETY: the header is valid for reads of its length.
            unsafe { libc::write(fd.0, header.as_ptr().cast(), header.len()) };
        }
        *sink.fd.lock().unwrap_or_else(|p| p.into_inner()) = Some(fd);
        Ok(sink)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn format(&self) -> LogFormat {
        self.format
    }

    pub fn t0(&self) -> Instant {
        self.t0
    }

    /// Opens the file for appending (created if missing): a regular file,
    /// not through a symbolic link, never blocking on a FIFO (`safefs`).
    fn reopen(&self) -> std::io::Result<(c_int, (u64, u64))> {
        let fd = safefs::open_write(&self.path, safefs::Open::Append, 0o644)?.into_raw_fd();
        // Move it out of the low numbers programs pick for themselves.
        // SAFETY: `fd` is open; F_DUPFD_CLOEXEC takes a minimum number.
        let high = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 500) };
        let fd = if high >= 0 {
            // SAFETY: `fd` is ours and no longer needed.
            unsafe { libc::close(fd) };
            high
        } else {
            fd
        };
        let id = sys::identity(fd)?;
        Ok((fd, id))
    }

    /// Appends one row. Errors are returned for the caller to report; the
    /// row is lost.
    pub fn write(&self, row: &Row<'_>) -> std::io::Result<()> {
        let mut buf = StackBuf { buf: [0; 512], len: 0 };
        row.format(self.format, self.t0, &mut buf).map_err(|_| std::io::Error::other("log row too long"))?;
        let saved = sys::errno();
        let mut guard = self.fd.lock().unwrap_or_else(|p| p.into_inner());
        let current = match *guard {
            Some((fd, id)) if sys::identity(fd).ok() == Some(id) => Some(fd),
            _ => None, // closed or reused by the program: never write to it
        };
        let fd = match current {
            Some(fd) => fd,
            None => {
                let opened = self.reopen();
                match opened {
                    Ok(f) => {
                        *guard = Some(f);
                        f.0
                    }
                    Err(e) => {
                        *guard = None;
                        sys::set_errno(saved);
                        return Err(e);
                    }
                }
            }
        };
        // SAFETY: the buffer is valid for `len` bytes.
        let r = unsafe { libc::write(fd, buf.buf.as_ptr().cast(), buf.len) };
        let res = if r < 0 { Err(std::io::Error::last_os_error()) } else { Ok(()) };
        sys::set_errno(saved);
        res
    }

    /// Forgets the descriptor if it is `fd` (the program is closing or
    /// replacing that number); the next write opens the file again.
    pub fn forget_fd(&self, fd: c_int) {
        if let Ok(mut g) = self.fd.try_lock() {
            if matches!(*g, Some((f, _)) if f == fd) {
                *g = None;
            }
        }
    }

    /// The descriptor currently in use, if any.
    pub fn raw_fd(&self) -> Option<c_int> {
        self.fd.try_lock().ok().and_then(|g| g.map(|(f, _)| f))
    }
}

impl Drop for LogSink {
    fn drop(&mut self) {
        if let Some((fd, id)) = *self.fd.get_mut().unwrap_or_else(|p| p.into_inner()) {
            if sys::identity(fd).ok() == Some(id) {
                // SAFETY: the descriptor is still the one this sink opened.
                unsafe { libc::close(fd) };
            }
        }
    }
}

/// Reads a log written by the agent (CSV or JSON lines, detected from the
/// content).
pub fn read_log(path: &Path) -> Result<Vec<LogRecord>, AgentError> {
    let text = std::fs::read_to_string(path).map_err(AgentError::io(format!("cannot read {}", path.display())))?;
    parse_log(&text).map_err(|m| AgentError::Usage(format!("{}: {m}", path.display())))
}

/// Parses the text of a log; errors name the line.
pub fn parse_log(text: &str) -> Result<Vec<LogRecord>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("t_s,") {
            continue;
        }
        let fields: Vec<(String, String)> = if line.starts_with('{') {
            parse_flat_json(line).ok_or_else(|| format!("line {}: not a JSON object of the log's keys", i + 1))?
        } else {
            let vals: Vec<&str> = line.split(',').collect();
            if vals.len() != COLUMNS.len() && vals.len() != OLD_COLUMNS {
                return Err(format!(
                    "line {}: {} fields, expected {} ({} in logs written before the group column)",
                    i + 1,
                    vals.len(),
                    COLUMNS.len(),
                    OLD_COLUMNS
                ));
            }
            COLUMNS.iter().zip(vals).map(|(k, v)| (k.to_string(), v.to_string())).collect()
        };
        out.push(record(&fields).map_err(|m| format!("line {}: {m}", i + 1))?);
    }
    Ok(out)
}

fn record(fields: &[(String, String)]) -> Result<LogRecord, String> {
    let get = |k: &str| fields.iter().find(|(f, _)| f == k).map(|(_, v)| v.as_str()).unwrap_or("");
    fn opt<T: std::str::FromStr>(k: &str, v: &str) -> Result<Option<T>, String> {
        if v.is_empty() || v == "null" {
            Ok(None)
        } else {
            v.parse().map(Some).map_err(|_| format!("{k}={v:?} is not a number"))
        }
    }
    fn req<T: std::str::FromStr>(k: &str, v: &str) -> Result<T, String> {
        opt(k, v)?.ok_or_else(|| format!("{k} is missing"))
    }
    Ok(LogRecord {
        t_s: req("t_s", get("t_s"))?,
        pid: req("pid", get("pid"))?,
        fd: req("fd", get("fd"))?,
        conn: req("conn", get("conn"))?,
        peer: get("peer").to_string(),
        rtt_ms: opt("rtt_ms", get("rtt_ms"))?,
        rtt_min_ms: opt("rtt_min_ms", get("rtt_min_ms"))?,
        window_bytes: opt("window_bytes", get("window_bytes"))?,
        rwnd_bytes: opt("rwnd_bytes", get("rwnd_bytes"))?,
        kernel_rcv_rtt_ms: opt("kernel_rcv_rtt_ms", get("kernel_rcv_rtt_ms"))?,
        read_bytes: req("read_bytes", get("read_bytes"))?,
        reads: req("reads", get("reads"))?,
        group: get("group").to_string(),
    })
}

/// A flat JSON object whose values are numbers, null or strings without
/// escapes (what `Row` writes).
fn parse_flat_json(line: &str) -> Option<Vec<(String, String)>> {
    let body = line.strip_prefix('{')?.strip_suffix('}')?;
    let mut out = Vec::new();
    let mut rest = body.trim();
    while !rest.is_empty() {
        let r = rest.strip_prefix('"')?;
        let end = r.find('"')?;
        let key = &r[..end];
        let r = r[end + 1..].trim_start().strip_prefix(':')?.trim_start();
        let (val, r) = if let Some(s) = r.strip_prefix('"') {
            let end = s.find('"')?;
            (&s[..end], &s[end + 1..])
        } else {
            let end = r.find(',').unwrap_or(r.len());
            (r[..end].trim(), &r[end..])
        };
        out.push((key.to_string(), val.to_string()));
        let r = r.trim_start();
        rest = match r.strip_prefix(',') {
            Some(more) => more.trim_start(),
            None if r.is_empty() => r,
            None => return None,
        };
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(peer: &SocketAddr) -> Row<'_> {
        Row {
            t: Instant::from_millis(1500),
            fd: 7,
            conn: 3,
            peer: Some(peer),
            rtt: Some(Duration::from_micros(12_500)),
            rtt_min: Some(Duration::from_millis(1)),
            window_bytes: Some(40_000),
            rwnd_bytes: None,
            kernel_rcv_rtt: Some(Duration::from_millis(12)),
            read_bytes: 65_536,
            reads: 3,
            group: Some("veth-a@ns4026532000"),
        }
    }

    #[test]
    fn csv_and_jsonl_rows_round_trip_through_the_reader() {
        let dir = std::env::temp_dir().join(format!("rtac-log-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let peer: SocketAddr = "[fd77:1::1]:8080".parse().unwrap();
        for name in ["a.csv", "a.jsonl"] {
            let path = dir.join(name);
            let sink = LogSink::create(&path, Instant::from_millis(500)).unwrap();
            sink.write(&row(&peer)).unwrap();
            sink.write(&row(&peer)).unwrap();
            let recs = read_log(&path).unwrap();
            assert_eq!(recs.len(), 2, "{name}");
            let r = &recs[0];
            assert_eq!(r.t_s, 1.0);
            assert_eq!((r.fd, r.conn, r.peer.as_str()), (7, 3, "[fd77:1::1]:8080"));
            assert_eq!((r.rtt_ms, r.rtt_min_ms), (Some(12.5), Some(1.0)));
            assert_eq!((r.window_bytes, r.rwnd_bytes, r.read_bytes, r.reads), (Some(40_000), None, 65_536, 3));
            assert_eq!(r.pid, std::process::id());
            assert_eq!(r.group, "veth-a@ns4026532000");
        }
        let csv = std::fs::read_to_string(dir.join("a.csv")).unwrap();
        assert!(csv.starts_with("t_s,pid,fd,conn,peer,rtt_ms,"), "{csv}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_sink_never_writes_into_a_reused_descriptor() {
        let dir = std::env::temp_dir().join(format!("rtac-log-reuse-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("l.csv");
        let sink = LogSink::create(&path, Instant::ZERO).unwrap();
        let fd = sink.raw_fd().unwrap();
        assert!(fd >= 500);
        // The program closes "our" descriptor and opens its own file on that number.
        let other = dir.join("program-data");
        std::fs::write(&other, b"").unwrap();
        let f = std::fs::OpenOptions::new().append(true).open(&other).unwrap();
        // SAFETY: test-only descriptor juggling.
        unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&f), fd) };
        let peer: SocketAddr = "10.0.0.1:80".parse().unwrap();
        sink.write(&row(&peer)).unwrap();
        assert_eq!(std::fs::read(&other).unwrap(), b"");
        assert_eq!(read_log(&path).unwrap().len(), 1);
        // SAFETY: closes the test's dup.
        unsafe { libc::close(fd) };
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_log_is_never_created_through_a_link_or_into_a_fifo() {
        let dir = std::env::temp_dir().join(format!("rtac-log-links-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("precious");
        std::fs::write(&target, b"keep").unwrap();
        let link = dir.join("l.csv");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = LogSink::create(&link, Instant::ZERO).err().expect("a link is refused");
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(LogSink::open(&link, Instant::ZERO).is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        let fifo = CStringPath(dir.join("f.csv"));
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.c().as_ptr(), 0o644) }, 0);
        // Without a reader open(2) would block here; it returns at once.
        assert!(LogSink::create(&fifo.0, Instant::ZERO).is_err());
        assert!(LogSink::open(&fifo.0, Instant::ZERO).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    struct CStringPath(PathBuf);
    impl CStringPath {
        fn c(&self) -> std::ffi::CString {
            std::ffi::CString::new(self.0.as_os_str().as_bytes()).unwrap()
        }
    }

    #[test]
    fn logs_without_the_group_column_are_read_and_odd_labels_are_not_written() {
        let old = "t_s,pid,fd,conn,peer,rtt_ms,rtt_min_ms,window_bytes,rwnd_bytes,kernel_rcv_rtt_ms,read_bytes,reads\n\
                   0.5,10,5,1,10.0.0.1:80,40.0,11.0,250000,260000,42.0,260000,4\n";
        let recs = parse_log(old).unwrap();
        assert_eq!((recs.len(), recs[0].group.as_str(), recs[0].reads), (1, "", 4));
        let json = "{\"t_s\":0.5,\"pid\":10,\"fd\":5,\"conn\":1,\"peer\":\"10.0.0.1:80\",\"read_bytes\":1,\"reads\":1}";
        assert_eq!(parse_log(json).unwrap()[0].group, "");
        let peer: SocketAddr = "10.0.0.1:80".parse().unwrap();
        for (format, label, want) in [
            (LogFormat::Csv, "eth0", "eth0"),
            (LogFormat::Csv, "a,b", ""),
            (LogFormat::Jsonl, "x\"y", ""),
            (LogFormat::Jsonl, "lo", "lo"),
        ] {
            let mut buf = StackBuf { buf: [0; 512], len: 0 };
            Row { group: Some(label), ..row(&peer) }.format(format, Instant::ZERO, &mut buf).unwrap();
            let text = std::str::from_utf8(&buf.buf[..buf.len]).unwrap();
            assert_eq!(parse_log(text).unwrap()[0].group, want, "{text}");
        }
    }

    #[test]
    fn reader_reports_the_bad_line() {
        let e = parse_log("t_s,pid\n1,2,3\n").unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        assert!(parse_log("{\"t_s\":x}").is_err());
    }
}
