//! `rtac get URL|HOST:PORT`: a downloader that runs a controller on its own
//! socket, with a live progress bar (throughput, the receiver's RTT
//! estimate, the window applied) and a summary at the end.
//!
//! `http://` URLs are fetched with one HTTP/1.1 GET (redirects followed,
//! chunked bodies decoded); `HOST:PORT` reads whatever the server sends
//! until it closes (a raw TCP source such as `nc -l < file`).

use clap::Args;
use rtac_core::time::{Duration, Instant};
use rtac_core::units::clip;
use rtac_live::config::AgentConfig;
use rtac_live::error::AgentError;
use rtac_live::log::LogSink;
use rtac_live::stream::ControlledStream;
use rtac_live::sys;
use std::io::{IsTerminal, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::Arc;

/// Arguments of `rtac get`.
// The field docs are the command's --help text, which clap prints verbatim:
// no Markdown escapes in them.
#[allow(rustdoc::broken_intra_doc_links)]
#[derive(Args, Debug, Clone)]
pub struct GetArgs {
    /// What to download: http://HOST[:PORT]/PATH, or HOST:PORT ([V6]:PORT)
    /// to read a raw TCP stream until the server closes it.
    #[arg(value_name = "URL|HOST:PORT")]
    pub target: String,

    /// The receive-window controller: none, static, autotuning, drwa, rtac
    /// or drw, optionally with parameters after a colon (rtac:bdp=84).
    #[arg(long, short = 'c', value_name = "NAME", default_value = "rtac")]
    pub controller: String,

    /// A controller parameter, such as bdp=20; repeatable, k=v,k=v accepted.
    #[arg(long = "param", short = 'p', value_name = "KEY=VALUE")]
    pub params: Vec<String>,

    /// Write the body to FILE (`-`: standard output); default: discard it.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Per-step log, as for `rtac run --log`.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// reapply or lock[:SIZE], as for `rtac run --clamp`.
    #[arg(long, value_name = "MODE", default_value = "reapply")]
    pub clamp: String,

    /// Stop after this many seconds (the summary still prints).
    #[arg(long, value_name = "SECS")]
    pub max_time: Option<f64>,

    /// No progress bar, only the summary.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// A parsed download target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Http { host: String, port: u16, path: String },
    Raw { host: String, port: u16 },
}

fn split_host_port(s: &str, default_port: Option<u16>) -> Result<(String, u16), String> {
    let (host, port) = if let Some(rest) = s.strip_prefix('[') {
        let (h, after) = rest.split_once(']').ok_or("unclosed [ in an IPv6 address")?;
        match after.strip_prefix(':') {
            Some(p) => (h.to_string(), Some(p)),
            None if after.is_empty() => (h.to_string(), None),
            None => return Err(format!("unexpected {:?} after the IPv6 address", clip(after))),
        }
    } else {
        match s.rsplit_once(':') {
            Some((h, p)) if !h.contains(':') => (h.to_string(), Some(p)),
            _ => (s.to_string(), None),
        }
    };
    if host.is_empty() {
        return Err("no host".to_string());
    }
    let port = match port {
        Some(p) => p.parse::<u16>().map_err(|_| format!("bad port {:?}", clip(p)))?,
        None => default_port.ok_or("no port (HOST:PORT)")?,
    };
    Ok((host, port))
}

impl std::str::FromStr for Target {
    type Err = AgentError;
    fn from_str(s: &str) -> Result<Self, AgentError> {
        let bad = |m: String| AgentError::Usage(format!("{:?}: {m}", clip(s)));
        if let Some(rest) = s.strip_prefix("http://") {
            let (authority, path) = match rest.find('/') {
                Some(i) => (&rest[..i], &rest[i..]),
                None => (rest, "/"),
            };
            let (host, port) = split_host_port(authority, Some(80)).map_err(bad)?;
            Ok(Target::Http { host, port, path: path.to_string() })
        } else if s.contains("://") {
            Err(bad("only http:// URLs (and HOST:PORT) are supported".to_string()))
        } else {
            let (host, port) = split_host_port(s, None).map_err(bad)?;
            Ok(Target::Raw { host, port })
        }
    }
}

fn connect(host: &str, port: u16) -> Result<TcpStream, AgentError> {
    let addrs: Vec<SocketAddr> =
        (host, port).to_socket_addrs().map_err(AgentError::io(format!("cannot resolve {}", clip(host))))?.collect();
    let mut last = None;
    for a in &addrs {
        match TcpStream::connect_timeout(a, std::time::Duration::from_secs(10)) {
            Ok(s) => return Ok(s),
            Err(e) => last = Some(e),
        }
    }
    Err(AgentError::Io {
        what: format!("cannot connect to {}:{port}", clip(host)),
        err: last.unwrap_or_else(|| std::io::Error::other("no address")),
    })
}

/// What the summary reports.
#[derive(Clone, Debug, Default)]
pub struct GetSummary {
    pub bytes: u64,
    pub elapsed: Duration,
    pub status: Option<u16>,
    pub rtts: Vec<Duration>,
    pub rtt_min: Option<Duration>,
    pub rwnds: Vec<u64>,
    pub steps: u64,
    pub failure: Option<String>,
}

impl GetSummary {
    pub fn mbps(&self) -> f64 {
        if self.elapsed.is_zero() {
            0.0
        } else {
            self.bytes as f64 * 8.0 / self.elapsed.as_secs_f64() / 1e6
        }
    }
}

fn median<T: Copy + Ord>(v: &[T]) -> Option<T> {
    let mut s = v.to_vec();
    s.sort_unstable();
    s.get(s.len() / 2).copied()
}

fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

fn ms(d: Option<Duration>) -> String {
    d.map_or("-".to_string(), |d| format!("{:.1} ms", d.as_millis_f64()))
}

struct Progress {
    enabled: bool,
    tty: bool,
    start: Instant,
    last_draw: Instant,
    last_bytes: u64,
    drawn: bool,
    controller: String,
}

impl Progress {
    fn draw(&mut self, now: Instant, bytes: u64, total: Option<u64>, s: &rtac_live::driver::StepReport, force: bool) {
        if !self.enabled {
            return;
        }
        let every = if self.tty { Duration::from_millis(250) } else { Duration::from_secs(1) };
        let since = now - self.last_draw;
        if since < every && !force {
            return;
        }
        let rate =
            if since.is_zero() { 0.0 } else { (bytes - self.last_bytes) as f64 * 8.0 / since.as_secs_f64() / 1e6 };
        self.last_draw = now;
        self.last_bytes = bytes;
        let size = match total {
            Some(t) if t > 0 => {
                let frac = (bytes as f64 / t as f64).min(1.0);
                let fill = (frac * 20.0).round() as usize;
                format!(
                    "[{}{}] {:>3.0}% {} / {}",
                    "#".repeat(fill),
                    "-".repeat(20 - fill),
                    frac * 100.0,
                    human_bytes(bytes),
                    human_bytes(t)
                )
            }
            _ => human_bytes(bytes),
        };
        let rwnd = s.rwnd.map_or("none".to_string(), human_bytes);
        let line = format!(
            "{size}  {rate:6.1} Mbit/s  rtt {} (min {})  rwnd {rwnd}  [{}] {:.0}s",
            ms(s.rtt),
            ms(s.rtt_min),
            self.controller,
            (now - self.start).as_secs_f64()
        );
        let mut err = std::io::stderr().lock();
        if self.tty {
            let _ = write!(err, "\r\x1b[2K{line}");
        } else {
            let _ = writeln!(err, "{line}");
        }
        let _ = err.flush();
        self.drawn = true;
    }

    fn finish(&mut self) {
        if self.enabled && self.tty && self.drawn {
            let _ = writeln!(std::io::stderr());
        }
    }
}

enum Sink {
    Discard,
    Stdout(std::io::Stdout),
    File(std::io::BufWriter<std::fs::File>),
}

impl Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<()> {
        match self {
            Sink::Discard => Ok(()),
            Sink::Stdout(s) => s.write_all(b),
            Sink::File(f) => f.write_all(b),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Discard => Ok(()),
            Sink::Stdout(s) => s.flush(),
            Sink::File(f) => f.flush(),
        }
    }
}

/// Incremental decoder of a chunked HTTP body.
#[derive(Debug)]
enum Chunked {
    Size(Vec<u8>),
    Data(u64),
    DataEnd(u8),
    Trailer(Vec<u8>),
    Done,
}

impl Chunked {
    /// Feeds raw bytes; calls `out` with body bytes. Errors on bad framing.
    fn feed(
        &mut self,
        mut input: &[u8],
        out: &mut dyn FnMut(&[u8]) -> Result<(), AgentError>,
    ) -> Result<(), AgentError> {
        let bad = |m: &str| AgentError::Http(format!("bad chunked encoding: {m}"));
        while !input.is_empty() {
            match self {
                Chunked::Size(line) => {
                    let b = input[0];
                    input = &input[1..];
                    if b == b'\n' {
                        let text = String::from_utf8_lossy(line);
                        let hex = text.trim().split(';').next().unwrap_or("").trim();
                        let n = u64::from_str_radix(hex, 16).map_err(|_| bad("chunk size"))?;
                        *self = if n == 0 { Chunked::Trailer(Vec::new()) } else { Chunked::Data(n) };
                    } else if line.len() > 1024 {
                        return Err(bad("chunk size line too long"));
                    } else {
                        line.push(b);
                    }
                }
                Chunked::Data(left) => {
                    let take = (*left).min(input.len() as u64) as usize;
                    out(&input[..take])?;
                    input = &input[take..];
                    *left -= take as u64;
                    if *left == 0 {
                        *self = Chunked::DataEnd(0);
                    }
                }
                Chunked::DataEnd(seen) => {
                    let b = input[0];
                    input = &input[1..];
                    if b == b'\n' {
                        *self = Chunked::Size(Vec::new());
                    } else if b != b'\r' || *seen > 0 {
                        return Err(bad("missing CRLF after a chunk"));
                    } else {
                        *seen += 1;
                    }
                }
                Chunked::Trailer(line) => {
                    let b = input[0];
                    input = &input[1..];
                    if b == b'\n' {
                        if line.iter().all(|c| *c == b'\r') {
                            *self = Chunked::Done;
                        } else {
                            line.clear();
                        }
                    } else {
                        line.push(b);
                    }
                }
                Chunked::Done => return Ok(()),
            }
        }
        Ok(())
    }
}

struct Response {
    status: u16,
    location: Option<String>,
    length: Option<u64>,
    chunked: bool,
    leftover: Vec<u8>,
}

fn read_head(s: &mut ControlledStream<TcpStream>) -> Result<Response, AgentError> {
    let mut buf = Vec::with_capacity(4096);
    let mut tmp = [0u8; 4096];
    let end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > 64 * 1024 {
            return Err(AgentError::Http("response header larger than 64 KiB".into()));
        }
        let n = s.read(&mut tmp).map_err(AgentError::io("reading the response"))?;
        if n == 0 {
            return Err(AgentError::Http("connection closed before the response header ended".into()));
        }
        buf.extend_from_slice(&tmp[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse::<u16>().ok())
        .filter(|_| status_line.starts_with("HTTP/"))
        .ok_or_else(|| AgentError::Http(format!("not an HTTP response: {status_line:?}")))?;
    let (mut location, mut length, mut chunked) = (None, None, false);
    for l in lines {
        let Some((k, v)) = l.split_once(':') else { continue };
        let v = v.trim();
        match k.trim().to_ascii_lowercase().as_str() {
            "location" => location = Some(v.to_string()),
            "content-length" => length = v.parse::<u64>().ok(),
            "transfer-encoding" => chunked = v.to_ascii_lowercase().contains("chunked"),
            _ => {}
        }
    }
    Ok(Response { status, location, length, chunked, leftover: buf[end..].to_vec() })
}

/// Downloads `target` and returns the summary; the progress bar is drawn
/// on stderr meanwhile.
pub fn download(args: &GetArgs) -> Result<GetSummary, AgentError> {
    let mut cfg = AgentConfig::new(&args.controller, &args.params)?;
    cfg.clamp = args.clamp.parse().map_err(|e| match e {
        AgentError::Usage(m) => AgentError::Usage(format!("--clamp: {m}")),
        e => e,
    })?;
    let mut target: Target = args.target.parse()?;
    let log = match &args.log {
        Some(p) => Some(Arc::new(LogSink::create(p, cfg.t0)?)),
        None => None,
    };
    let mut sink = match args.output.as_deref() {
        None => Sink::Discard,
        Some(p) if p.as_os_str() == "-" => Sink::Stdout(std::io::stdout()),
        Some(p) => Sink::File(std::io::BufWriter::with_capacity(
            1 << 20,
            std::fs::File::create(p)
                .map_err(AgentError::io(format!("-o {}: cannot create it", clip(&p.display().to_string()))))?,
        )),
    };
    let deadline = args.max_time.map(|s| cfg.t0 + Duration::from_secs_f64(s));
    let mut progress = Progress {
        enabled: !args.quiet,
        tty: std::io::stderr().is_terminal(),
        start: cfg.t0,
        last_draw: cfg.t0,
        last_bytes: 0,
        drawn: false,
        controller: cfg.kind.name().to_string(),
    };
    let mut summary = GetSummary::default();
    let mut redirects = 0;
    loop {
        let (host, port) = match &target {
            Target::Http { host, port, .. } | Target::Raw { host, port } => (host.clone(), *port),
        };
        let tcp = connect(&host, port)?;
        let mut s = ControlledStream::new(tcp, &cfg, log.clone())?;
        let mut resp = None;
        if let Target::Http { host, port, path } = &target {
            let host_hdr = if host.contains(':') { format!("[{host}]") } else { host.clone() };
            let host_hdr = if *port == 80 { host_hdr } else { format!("{host_hdr}:{port}") };
            let req = format!(
                "GET {path} HTTP/1.1\r\nHost: {host_hdr}\r\nUser-Agent: rtac-get/{}\r\nAccept: */*\r\n\
                 Connection: close\r\n\r\n",
                env!("CARGO_PKG_VERSION")
            );
            s.write_all(req.as_bytes()).map_err(AgentError::io("sending the request"))?;
            let r = read_head(&mut s)?;
            summary.status = Some(r.status);
            if matches!(r.status, 301 | 302 | 303 | 307 | 308) && redirects < 5 {
                let loc = r
                    .location
                    .clone()
                    .ok_or_else(|| AgentError::Http(format!("HTTP {} without Location", r.status)))?;
                redirects += 1;
                target = if loc.starts_with('/') {
                    Target::Http { host: host.clone(), port: *port, path: loc }
                } else {
                    loc.parse()?
                };
                continue;
            }
            if !(200..300).contains(&r.status) {
                return Err(AgentError::Http(format!("HTTP status {} from {}", r.status, clip(&args.target))));
            }
            resp = Some(r);
        }
        let total = resp.as_ref().and_then(|r| if r.chunked { None } else { r.length });
        let mut chunked = resp.as_ref().filter(|r| r.chunked).map(|_| Chunked::Size(Vec::new()));
        let mut bytes = 0u64;
        let mut rtts: Vec<Duration> = Vec::new();
        let mut rwnds: Vec<u64> = Vec::new();
        let mut last_steps = 0;
        let mut consume = |data: &[u8], bytes: &mut u64| -> Result<(), AgentError> {
            *bytes += data.len() as u64;
            sink.write(data).map_err(AgentError::io("writing the output"))
        };
        let mut feed = |data: &[u8], bytes: &mut u64, chunked: &mut Option<Chunked>| -> Result<(), AgentError> {
            match chunked {
                Some(c) => c.feed(data, &mut |b| consume(b, bytes)),
                None => consume(data, bytes),
            }
        };
        if let Some(r) = resp.as_mut() {
            let left = std::mem::take(&mut r.leftover);
            let take = total.map_or(left.len(), |t| left.len().min(t as usize));
            feed(&left[..take], &mut bytes, &mut chunked)?;
        }
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            if total.is_some_and(|t| bytes >= t) || matches!(chunked, Some(Chunked::Done)) {
                break;
            }
            let now = sys::now();
            if deadline.is_some_and(|d| now >= d) {
                break;
            }
            let want = total.map_or(buf.len(), |t| ((t - bytes) as usize).min(buf.len()));
            let n = match s.read(&mut buf[..want]) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(AgentError::Io { what: "reading the body".into(), err: e }),
            };
            if n == 0 {
                if let Some(t) = total.filter(|&t| bytes < t) {
                    return Err(AgentError::Http(format!("connection closed after {bytes} of {t} bytes")));
                }
                if chunked.is_some() {
                    return Err(AgentError::Http("connection closed inside a chunked body".into()));
                }
                break;
            }
            feed(&buf[..n], &mut bytes, &mut chunked)?;
            if let Some(d) = s.driver() {
                if let Some(r) = d.last().copied() {
                    if d.steps() != last_steps {
                        last_steps = d.steps();
                        rtts.extend(r.rtt);
                        rwnds.extend(r.rwnd);
                        summary.rtt_min = r.rtt_min;
                    }
                    progress.draw(sys::now(), bytes, total, &r, false);
                }
            }
        }
        let now = sys::now();
        if let Some(r) = s.driver().and_then(|d| d.last().copied()) {
            progress.draw(now, bytes, total, &r, true);
        }
        progress.finish();
        sink.flush().map_err(AgentError::io("writing the output"))?;
        summary.bytes = bytes;
        summary.elapsed = now - cfg.t0;
        summary.rtts = rtts;
        summary.rwnds = rwnds;
        summary.steps = s.driver().map_or(0, |d| d.steps());
        summary.failure = s.failure().map(|e| e.to_string());
        return Ok(summary);
    }
}

/// The summary as printed at the end.
pub fn summary_text(args: &GetArgs, s: &GetSummary) -> String {
    let mut out = format!(
        "rtac get: {} ({} bytes) in {:.2} s = {:.2} Mbit/s",
        human_bytes(s.bytes),
        s.bytes,
        s.elapsed.as_secs_f64(),
        s.mbps()
    );
    if let Some(code) = s.status {
        out += &format!(", HTTP {code}");
    }
    out += &format!("\n  controller {} {}", args.controller, args.params.join(","));
    out += &format!(
        "\n  receiver RTT estimate: median {}, max {}, min RTT {}",
        ms(median(&s.rtts)),
        ms(s.rtts.iter().max().copied()),
        ms(s.rtt_min)
    );
    let rwnd = |v: Option<u64>| v.map_or("-".to_string(), human_bytes);
    out += &format!(
        "\n  rwnd applied: median {}, min {}, max {} over {} control steps",
        rwnd(median(&s.rwnds)),
        rwnd(s.rwnds.iter().min().copied()),
        rwnd(s.rwnds.iter().max().copied()),
        s.steps
    );
    if let Some(f) = &s.failure {
        out += &format!("\n  control stopped early: {f}");
    }
    out + "\n"
}

/// `rtac get`: downloads, prints the summary on stderr, returns the exit
/// status (0).
pub fn get_main(args: GetArgs) -> Result<i32, AgentError> {
    let s = download(&args)?;
    let text = summary_text(&args, &s);
    let _ = std::io::stderr().write_all(text.as_bytes());
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn targets_parse() {
        let t: Target = "http://example.org/a/b?c=1".parse().unwrap();
        assert_eq!(t, Target::Http { host: "example.org".into(), port: 80, path: "/a/b?c=1".into() });
        let t: Target = "http://[fd77:1::1]:8080".parse().unwrap();
        assert_eq!(t, Target::Http { host: "fd77:1::1".into(), port: 8080, path: "/".into() });
        let t: Target = "10.0.0.1:5001".parse().unwrap();
        assert_eq!(t, Target::Raw { host: "10.0.0.1".into(), port: 5001 });
        let t: Target = "[::1]:9".parse().unwrap();
        assert_eq!(t, Target::Raw { host: "::1".into(), port: 9 });
        assert!("https://x/".parse::<Target>().is_err());
        assert!("hostonly".parse::<Target>().is_err());
        assert!("h:99999".parse::<Target>().is_err());
    }

    #[test]
    fn chunked_bodies_decode() {
        let mut c = Chunked::Size(Vec::new());
        let mut out = Vec::new();
        let input = b"4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\nX-T: 1\r\n\r\n";
        // Byte by byte, to exercise every state boundary.
        for b in input.iter() {
            c.feed(std::slice::from_ref(b), &mut |d| {
                out.extend_from_slice(d);
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(out, b"Wikipedia");
        assert!(matches!(c, Chunked::Done));
        let mut c = Chunked::Size(Vec::new());
        assert!(c.feed(b"zz\r\n", &mut |_| Ok(())).is_err());
    }

    /// Answers one connection with `response`, after reading the request
    /// if `http`.
    fn serve_once_as(response: Vec<u8>, http: bool) -> u16 {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let (mut c, _) = l.accept().unwrap();
            if http {
                let mut req = [0u8; 1024];
                let _ = c.read(&mut req);
            }
            c.write_all(&response).unwrap();
        });
        port
    }

    fn serve_once(response: Vec<u8>) -> u16 {
        serve_once_as(response, true)
    }

    fn args(target: String, out: Option<PathBuf>) -> GetArgs {
        GetArgs {
            target,
            controller: "rtac".into(),
            params: vec![],
            output: out,
            log: None,
            clamp: "reapply".into(),
            max_time: Some(20.0),
            quiet: true,
        }
    }

    #[test]
    fn downloads_http_with_content_length_and_chunked() {
        let body: Vec<u8> = (0..2_000_000u32).map(|i| (i % 253) as u8).collect();
        let mut resp = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len()).into_bytes();
        resp.extend_from_slice(&body);
        let port = serve_once(resp);
        let dir = std::env::temp_dir().join(format!("rtac-get-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("body");
        let s = download(&args(format!("http://127.0.0.1:{port}/x"), Some(out.clone()))).unwrap();
        assert_eq!(s.bytes, body.len() as u64);
        assert_eq!(s.status, Some(200));
        assert!(std::fs::read(&out).unwrap() == body);

        let port = serve_once(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n".to_vec());
        let s = download(&args(format!("http://127.0.0.1:{port}/"), Some(out.clone()))).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"abc");
        assert_eq!(s.bytes, 3);

        let port = serve_once_as(b"raw bytes until close".to_vec(), false);
        let s = download(&args(format!("127.0.0.1:{port}"), Some(out.clone()))).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"raw bytes until close");
        assert!(summary_text(&args(String::new(), None), &s).contains("rtac get: 21 B"));

        let port = serve_once(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_vec());
        let e = download(&args(format!("http://127.0.0.1:{port}/"), None)).unwrap_err();
        assert!(e.to_string().contains("404"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
