//! Command-line options of `rtac emu` and their validation.

use crate::engine::{DirectionSpec, LinkSpec};
use crate::forward::Forward;
use crate::queue::QueueMode;
use crate::EmuError;
use rtac_core::units::{clip, parse_bandwidth, parse_duration};
use rtac_core::Duration;
use rtac_netmodel::{parse_mahimahi, QueueSpec};
use std::path::{Path, PathBuf};

/// `rtac emu [options] [--server CMD] [--] [CMD...]`
///
/// Runs CMD in a client network namespace whose only link leads, through
/// the emulated path, to a server namespace (where `--server` runs). Both
/// commands get the server's address in RTAC_SERVER (and the client's in
/// RTAC_CLIENT). The exit code is CMD's.
#[derive(clap::Args, Clone, Debug)]
pub struct EmuArgs {
    /// Downlink (server → client): a rate such as 50mbit, a Mahimahi trace
    /// file (one 1500-byte delivery opportunity per line, in ms, repeating),
    /// or "unlimited".
    #[arg(long, value_name = "RATE|TRACE")]
    pub down: Option<String>,
    /// Uplink (client → server): a rate, a Mahimahi trace file, or
    /// "unlimited".
    #[arg(long, value_name = "RATE|TRACE")]
    pub up: Option<String>,
    /// One-way propagation delay, in each direction (e.g. 40ms).
    #[arg(long, value_name = "DURATION", default_value = "0ms")]
    pub delay: String,
    /// One-way delay of the downlink (overrides --delay).
    #[arg(long, value_name = "DURATION")]
    pub down_delay: Option<String>,
    /// One-way delay of the uplink (overrides --delay).
    #[arg(long, value_name = "DURATION")]
    pub up_delay: Option<String>,
    /// Probability that a packet is lost at random, in each direction
    /// (0 to 1, e.g. 0.01).
    #[arg(long, value_name = "P", default_value = "0")]
    pub loss: String,
    /// Random loss of the downlink (overrides --loss).
    #[arg(long, value_name = "P")]
    pub down_loss: Option<String>,
    /// Random loss of the uplink (overrides --loss).
    #[arg(long, value_name = "P")]
    pub up_loss: Option<String>,
    /// Queue discipline in each direction, NAME[:key=value,...]:
    /// droptail:packets=N (or bytes=SIZE), red:min=..,max=.., codel, pie,
    /// fq_codel (the simulator's queue specs).
    #[arg(long, value_name = "SPEC", default_value = "droptail:packets=1000")]
    pub queue: String,
    /// Queue discipline of the downlink (overrides --queue).
    #[arg(long, value_name = "SPEC")]
    pub down_queue: Option<String>,
    /// Queue discipline of the uplink (overrides --queue).
    #[arg(long, value_name = "SPEC")]
    pub up_queue: Option<String>,
    /// shared: one queue for all flows (a Wi-Fi access point); per-flow: one
    /// queue per flow, served round robin (an LTE base station).
    #[arg(long, value_name = "MODE", default_value = "shared")]
    pub queue_mode: String,
    /// Queue mode of the downlink (overrides --queue-mode).
    #[arg(long, value_name = "MODE")]
    pub down_queue_mode: Option<String>,
    /// Queue mode of the uplink (overrides --queue-mode).
    #[arg(long, value_name = "MODE")]
    pub up_queue_mode: Option<String>,
    /// Shell command to run in the server namespace (sh -c), e.g.
    /// 'iperf3 -s -1'. CMD starts once it listens on a TCP port (or after
    /// --server-wait); it is stopped when CMD ends.
    #[arg(long, value_name = "CMD")]
    pub server: Option<String>,
    /// Longest wait for the server command to listen before CMD starts.
    #[arg(long, value_name = "DURATION", default_value = "5s")]
    pub server_wait: String,
    /// Write the per-packet logs DIR/down.log and DIR/up.log (see
    /// docs/EMULATOR.md); `rtac plot DIR` draws them.
    #[arg(long, value_name = "DIR")]
    pub log: Option<PathBuf>,
    /// Write a JSON summary (per direction: packets, drops, capacity,
    /// throughput, queueing delay, timing error) to FILE.
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
    /// Print a summary per direction on stderr at the end.
    #[arg(long)]
    pub summary: bool,
    /// Seed of the random loss and of RED/PIE/FQ-CoDel.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Set a sysctl in both endpoint namespaces (repeatable), e.g.
    /// --sysctl net.ipv4.tcp_rmem='4096 131072 33554432'.
    #[arg(long = "sysctl", value_name = "KEY=VALUE")]
    pub sysctls: Vec<String>,
    /// How frames enter and leave the emulator: packet (AF_PACKET sockets on
    /// veth devices, the default) or tun (TUN devices, as Mahimahi).
    #[arg(long, value_name = "HOW", default_value = "packet")]
    pub forward: String,
    /// Real-time (SCHED_FIFO) priority of the forwarding threads, 1 to 99,
    /// or 0 for ordinary scheduling. Real-time threads wake at their
    /// deadlines even when the endpoints keep every core busy.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub rt_priority: i32,
    /// Remove namespaces and processes left by emulators that crashed, and
    /// exit.
    #[arg(long)]
    pub cleanup: bool,
    /// The command to run in the client namespace (default: $SHELL). One
    /// argument runs through `sh -c`; with several, $RTAC_SERVER (or
    /// ${RTAC_SERVER}) written literally in an argument is replaced by the
    /// server's address, and $RTAC_CLIENT by the client's.
    #[arg(value_name = "CMD", trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
}

/// Validated configuration.
#[derive(Clone, Debug)]
pub struct Config {
    pub down: DirectionSpec,
    pub up: DirectionSpec,
    pub server: Option<String>,
    pub server_wait: Duration,
    pub log: Option<PathBuf>,
    pub stats: Option<PathBuf>,
    pub summary: bool,
    pub seed: u64,
    pub sysctls: Vec<(String, String)>,
    pub forward: Forward,
    pub rt_priority: i32,
    pub command: Vec<String>,
}

fn usage(m: String) -> EmuError {
    EmuError::Usage(m)
}

/// A link option: a rate, "unlimited", or a trace file.
pub fn parse_link(opt: &str, value: &str) -> Result<LinkSpec, EmuError> {
    if matches!(value, "unlimited" | "inf" | "none") {
        return Ok(LinkSpec::Unlimited);
    }
    let rate_error = match parse_bandwidth(value) {
        Ok(rate) => return Ok(LinkSpec::Fixed(rate)),
        Err(e) => e,
    };
    // A value that starts like a number and names no file is a rate
    // written wrong (`0mbit`, `10`): say what is wrong with the rate.
    if value.trim_start().starts_with(|c: char| c.is_ascii_digit() || c == '.') && !Path::new(value).exists() {
        return Err(usage(format!("--{opt} {rate_error}")));
    }
    // A regular file only, read without waiting on a FIFO and up to 256 MB.
    const MAX_TRACE: u64 = 256 << 20;
    let read = open_regular(Path::new(value)).and_then(|f| {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::Read::take(f, MAX_TRACE + 1), &mut bytes)?;
        if bytes.len() as u64 > MAX_TRACE {
            return Err(std::io::Error::other("is larger than 256 MB, the most a trace may hold"));
        }
        Ok(bytes)
    });
    let text = match read {
        Ok(bytes) => String::from_utf8(bytes)
            .map_err(|_| usage(format!("--{opt} {}: the trace is not text: expected one millisecond timestamp per line", clip(value))))?,
        Err(e) => {
            return Err(usage(format!(
                "--{opt} {:?}: neither a rate (such as 50mbit or 1gbit), nor \"unlimited\", nor a readable trace file ({e})",
                clip(value)
            )))
        }
    };
    let trace = parse_mahimahi(&text).map_err(|e| usage(format!("--{opt} {}: {e}", clip(value))))?;
    Ok(LinkSpec::Trace { path: value.to_string(), trace })
}

/// Opens `path` for reading without waiting on a FIFO, and refuses what is
/// not a regular file (a FIFO, a device such as /dev/zero, a directory).
pub(crate) fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"));
    }
    Ok(f)
}

fn duration(opt: &str, v: &str) -> Result<Duration, EmuError> {
    parse_duration(v).map_err(|e| usage(format!("--{opt}: {e}")))
}

fn probability(opt: &str, v: &str) -> Result<f64, EmuError> {
    match v.trim().parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(usage(format!("--{opt} {:?}: expected a probability between 0 and 1, such as 0.01", clip(v)))),
    }
}

impl EmuArgs {
    /// Checks every option; errors name the option.
    pub fn config(&self) -> Result<Config, EmuError> {
        let dir = |name: &str,
                   link: &Option<String>,
                   delay: &Option<String>,
                   loss: &Option<String>,
                   queue: &Option<String>,
                   mode: &Option<String>|
         -> Result<DirectionSpec, EmuError> {
            let link = link.as_deref().ok_or_else(|| {
                usage(format!("--{name} is required: a rate (50mbit), a Mahimahi trace file, or unlimited"))
            })?;
            let link = parse_link(name, link)?;
            let delay = match delay {
                Some(d) => duration(&format!("{name}-delay"), d)?,
                None => duration("delay", &self.delay)?,
            };
            let loss = match loss {
                Some(p) => probability(&format!("{name}-loss"), p)?,
                None => probability("loss", &self.loss)?,
            };
            let (qopt, qtext) = match queue {
                Some(q) => (format!("{name}-queue"), q.as_str()),
                None => ("queue".to_string(), self.queue.as_str()),
            };
            let queue = QueueSpec::parse(qtext).map_err(|e| usage(format!("--{qopt} {:?}: {e}", clip(qtext))))?;
            let (mopt, mtext) = match mode {
                Some(m) => (format!("{name}-queue-mode"), m.as_str()),
                None => ("queue-mode".to_string(), self.queue_mode.as_str()),
            };
            let mode: QueueMode = mtext.parse().map_err(|e| usage(format!("--{mopt}: {e}")))?;
            Ok(DirectionSpec { link, delay, loss, queue, mode })
        };
        let down = dir("down", &self.down, &self.down_delay, &self.down_loss, &self.down_queue, &self.down_queue_mode)?;
        let up = dir("up", &self.up, &self.up_delay, &self.up_loss, &self.up_queue, &self.up_queue_mode)?;
        let mut sysctls = Vec::new();
        for s in &self.sysctls {
            let (k, v) = s.split_once('=').ok_or_else(|| {
                usage(format!(
                    "--sysctl {:?}: expected KEY=VALUE, such as net.ipv4.tcp_rmem='4096 131072 6291456'",
                    clip(s)
                ))
            })?;
            let k = k.trim();
            if k.is_empty() || k.contains('/') || k.contains("..") {
                return Err(usage(format!("--sysctl {:?}: expected a key such as net.ipv4.tcp_rmem", clip(s))));
            }
            sysctls.push((k.to_string(), v.trim().to_string()));
        }
        Ok(Config {
            down,
            up,
            server: self.server.clone(),
            server_wait: duration("server-wait", &self.server_wait)?,
            log: self.log.clone(),
            stats: self.stats.clone(),
            summary: self.summary,
            seed: self.seed,
            sysctls,
            forward: self.forward.parse().map_err(|e| usage(format!("--forward: {e}")))?,
            rt_priority: match self.rt_priority {
                p @ 0..=99 => p,
                p => return Err(usage(format!("--rt-priority {p}: expected 0 (off) or 1 to 99"))),
            },
            command: self.command.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        emu: EmuArgs,
    }

    fn parse(args: &[&str]) -> Result<Config, EmuError> {
        let mut v = vec!["rtac-emu"];
        v.extend_from_slice(args);
        Cli::try_parse_from(v).expect("clap accepts the arguments").emu.config()
    }

    #[test]
    fn the_common_case_reads_as_written() {
        let c = parse(&[
            "--down",
            "50mbit",
            "--up",
            "50mbit",
            "--delay",
            "40ms",
            "--queue",
            "droptail:packets=2000",
            "--server",
            "iperf3 -s -1",
            "--",
            "iperf3",
            "-c",
            "$RTAC_SERVER",
            "-R",
        ])
        .unwrap();
        assert!(matches!(c.down.link, LinkSpec::Fixed(r) if r.bps() == 50_000_000));
        assert_eq!(c.up.delay, Duration::from_millis(40));
        assert_eq!(c.down.queue.to_string(), QueueSpec::parse("droptail:packets=2000").unwrap().to_string());
        assert_eq!(c.down.mode, QueueMode::Shared);
        assert_eq!(c.server.as_deref(), Some("iperf3 -s -1"));
        assert_eq!(c.command, vec!["iperf3", "-c", "$RTAC_SERVER", "-R"]);
        assert_eq!(c.forward, Forward::Packet);
    }

    #[test]
    fn per_direction_options_override_the_common_ones() {
        let c = parse(&[
            "--down",
            "10mbit",
            "--up",
            "unlimited",
            "--delay",
            "10ms",
            "--up-delay",
            "30ms",
            "--loss",
            "0.01",
            "--down-loss",
            "0",
            "--queue",
            "codel",
            "--up-queue",
            "droptail:bytes=64KB",
            "--down-queue-mode",
            "per-flow",
        ])
        .unwrap();
        assert_eq!((c.down.delay, c.up.delay), (Duration::from_millis(10), Duration::from_millis(30)));
        assert_eq!((c.down.loss, c.up.loss), (0.0, 0.01));
        assert_eq!(c.down.queue.kind(), "codel");
        assert_eq!(c.up.queue.kind(), "droptail");
        assert_eq!((c.down.mode, c.up.mode), (QueueMode::PerFlow, QueueMode::Shared));
        assert!(matches!(c.up.link, LinkSpec::Unlimited));
    }

    #[test]
    fn bad_values_name_the_option() {
        let e = parse(&["--down", "50mbit"]).unwrap_err().to_string();
        assert!(e.contains("--up is required"), "{e}");
        let e = parse(&["--down", "50mbit", "--up", "50mbit", "--loss", "2"]).unwrap_err().to_string();
        assert!(e.contains("--loss") && e.contains("between 0 and 1"), "{e}");
        let e = parse(&["--down", "50mbit", "--up", "50mbit", "--up-queue", "droptail"]).unwrap_err().to_string();
        assert!(e.starts_with("--up-queue \"droptail\"") && e.contains("limit"), "{e}");
        let e = parse(&["--down", "0mbit", "--up", "50mbit"]).unwrap_err().to_string();
        assert_eq!(
            e,
            "--down \"0mbit\": rate must be above 0; expected a rate such as 50mbit, 1gbit, 500kbit or 1000000bit"
        );
        let e = parse(&["--down", "10mbit", "--up", "10"]).unwrap_err().to_string();
        assert!(e.starts_with("--up \"10\": missing unit;"), "{e}");
        let e = parse(&["--down", "/nonexistent/trace", "--up", "50mbit"]).unwrap_err().to_string();
        assert!(e.contains("--down") && e.contains("neither a rate"), "{e}");
        let e = parse(&["--down", "1mbit", "--up", "1mbit", "--sysctl", "foo"]).unwrap_err().to_string();
        assert!(e.contains("KEY=VALUE"), "{e}");
    }

    fn trace_file(name: &str, text: &str) -> String {
        let dir = std::env::temp_dir().join(format!("rtac-emu-args-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    }

    #[test]
    fn malformed_traces_are_rejected_with_their_line_number() {
        for (name, text, want) in [
            ("words", "1\n2\nfast\n", "line 3"),
            ("decreasing", "1\n5\n4\n", "line 3"),
            ("empty", "", "no timestamps"),
            ("zero", "0\n0\n", "line 2"),
        ] {
            let path = trace_file(name, text);
            let e = parse(&["--down", &path, "--up", "1mbit"]).unwrap_err();
            assert_eq!(e.exit_code(), 2);
            let e = e.to_string();
            assert!(e.starts_with(&format!("--down {path}: ")) && e.contains(want), "{name}: {e}");
        }
        let ok = trace_file("ok", "1\n1\n2\n");
        assert!(matches!(parse(&["--down", &ok, "--up", &ok]).unwrap().up.link, LinkSpec::Trace { .. }));
    }
}
