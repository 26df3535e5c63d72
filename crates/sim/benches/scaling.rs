//! Simulator scaling: wall time, simulated packets, cost per packet and
//! per event, and peak memory as the number of flows and the window size
//! grow. Each case runs in its own child process so that its peak resident
//! memory (VmHWM) is its own. Reports figures; asserts nothing about time.
//!
//! cargo bench -p rtac-sim --bench scaling            # the full table
//! cargo bench -p rtac-sim --bench scaling -- quick   # 10 s per case
//!
//! Flows: N = 1, 10, 100, 1,000 and 10,000 CUBIC senders in the dumbbell of
//! `scenarios/dumbbell-cubic-N.toml` (each behind a private 1 Gbit/s, 1 ms
//! access link and egress link), with the bottleneck scaled so that every
//! flow keeps at least 1 Mbit/s: max(100 Mbit/s, N x 1 Mbit/s), i.e. 100
//! Mbit/s up to 100 flows, 1 Gbit/s for 1,000 and 10 Gbit/s for 10,000. The
//! bottleneck's FIFO holds 240 ms at its rate (2,000 packets at 100 Mbit/s,
//! as in the ns-3 comparison), so every case is equally bloated. Keeping
//! 100 Mbit/s for 10,000 flows would give each 10 kbit/s, less than one
//! packet per round trip: a run of retransmission timeouts, not of TCP.
//!
//! Windows: one CUBIC flow through 10 Mbit/s, 100 Mbit/s, 1 Gbit/s and 10
//! Gbit/s with the same 240 ms of buffer (access and egress links at least
//! ten times faster than the bottleneck) and a receiver offering 512 MB
//! (`static`, window scale 13): its window grows from ~240 to ~240,000
//! segments. ns-3 3.44's cost per packet grows with the window (a linear
//! scan of its send buffer); rtac's should not.

use rtac_sim::scenario::parse_str;
use rtac_sim::{run, RunOptions};
use std::process::Command;

/// Packet on the wire (1448-byte MSS plus headers), bits.
const PACKET_BITS: u64 = 1500 * 8;

struct Case {
    label: &'static str,
    flows: u32,
    rate_mbit: u64,
    /// Access and egress links' rate: 1 Gbit/s in the dumbbell; ten times
    /// the bottleneck for one flow through a faster bottleneck.
    access_mbit: u64,
}

const CASES: &[Case] = &[
    Case { label: "flows", flows: 1, rate_mbit: 100, access_mbit: 1_000 },
    Case { label: "flows", flows: 10, rate_mbit: 100, access_mbit: 1_000 },
    Case { label: "flows", flows: 100, rate_mbit: 100, access_mbit: 1_000 },
    Case { label: "flows", flows: 1_000, rate_mbit: 1_000, access_mbit: 1_000 },
    Case { label: "flows", flows: 10_000, rate_mbit: 10_000, access_mbit: 1_000 },
    Case { label: "window", flows: 1, rate_mbit: 10, access_mbit: 1_000 },
    Case { label: "window", flows: 1, rate_mbit: 100, access_mbit: 1_000 },
    Case { label: "window", flows: 1, rate_mbit: 1_000, access_mbit: 10_000 },
    Case { label: "window", flows: 1, rate_mbit: 10_000, access_mbit: 100_000 },
];

fn scenario_text(flows: u32, rate_mbit: u64, access_mbit: u64, duration_s: u64, big_window: bool) -> String {
    // 240 ms of buffer at the bottleneck rate, in packets.
    let queue = rate_mbit * 1_000_000 * 240 / 1000 / PACKET_BITS;
    format!(
        r#"name = "scaling-{flows}-{rate_mbit}mbit"
duration = "{duration_s}s"
measure_from = "{warm}s"
seed = 1
mss = 1448
controllers = [{controllers}]

[[link]]
name = "bottleneck"
rate = "{rate_mbit}mbit"
delay = "20ms"
queue = "droptail:packets={queue}"

[[flow]]
count = {flows}
cc = "cubic"
access = {{ rate = "{access_mbit}mbit", delay = "1ms", queue = "droptail:packets=1000" }}
egress = {{ rate = "{access_mbit}mbit", delay = "1ms", queue = "droptail:packets=1000" }}
"#,
        warm = duration_s / 6,
        // The window sweep's receiver offers 512 MB (window scale 13), so
        // that the congestion window, not the receiver, is the limit.
        controllers = if big_window {
            r#"{ label = "static-512MB", controller = "static", params = { rmem_max = "512MB" } }"#
        } else {
            r#""none""#
        },
    )
}

/// Peak resident memory of this process, kB (Linux VmHWM).
fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Child: one case; prints one line of `key=value` fields.
fn child(flows: u32, rate_mbit: u64, access_mbit: u64, duration_s: u64, big_window: bool) {
    let text = scenario_text(flows, rate_mbit, access_mbit, duration_s, big_window);
    let sc = parse_str(&text, "scaling.toml").unwrap_or_else(|e| panic!("{e}"));
    // A single flow's time series (every 10 ms) give the most it had in flight.
    let r = run(&sc, &sc.controllers[0], &RunOptions { series: flows == 1 });
    let max_window =
        r.series.as_ref().and_then(|s| s.flows.iter().map(|f| f.in_flight / sc.mss as u64).max()).unwrap_or(0);
    let goodput: f64 = r.flows.iter().map(|f| f.throughput_mbps).sum();
    let util = r.links.first().map_or(0.0, |l| l.utilization);
    let qdelay = r.links.first().map_or(0.0, |l| l.queue_delay_mean_ms);
    println!(
        "RESULT wall={} packets={} events={} rss_kb={} goodput={} util={} qdelay={} max_window={}",
        r.wall.as_secs_f64(),
        r.packets,
        r.events,
        peak_rss_kb(),
        goodput,
        util,
        qdelay,
        max_window
    );
}

fn field(line: &str, key: &str) -> f64 {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        let num = |k: usize| -> u64 {
            args.get(i + k).and_then(|v| v.parse().ok()).expect("--child FLOWS RATE_MBIT ACCESS_MBIT DURATION_S")
        };
        child(num(1) as u32, num(2), num(3), num(4), args.iter().any(|a| a == "--big-window"));
        return;
    }
    let quick = args.iter().any(|a| a == "quick");
    let duration_s: u64 = if quick { 10 } else { 30 };
    let exe = std::env::current_exe().expect("the bench's own path");

    println!("rtac sim scaling: CUBIC dumbbell, {duration_s} s simulated per case, one child process per case");
    println!("bottleneck max(100 Mbit/s, N x 1 Mbit/s), 20 ms one way, FIFO of 240 ms; access/egress 1 Gbit/s, 1 ms");
    println!();
    println!(
        "{:<7} {:>6} {:>6} {:>7} {:>8} {:>8} {:>12} {:>12} {:>8} {:>8} {:>10} {:>9} {:>9}",
        "sweep",
        "flows",
        "rate",
        "queue",
        "window",
        "wall s",
        "packets",
        "events",
        "ns/pkt",
        "ns/ev",
        "Mpkt/s",
        "peak MiB",
        "util %"
    );
    for c in CASES {
        let mut cmd = Command::new(&exe);
        cmd.args([
            "--child",
            &c.flows.to_string(),
            &c.rate_mbit.to_string(),
            &c.access_mbit.to_string(),
            &duration_s.to_string(),
        ]);
        if c.label == "window" {
            cmd.arg("--big-window");
        }
        let out = cmd.output().expect("run the child");
        let text = String::from_utf8_lossy(&out.stdout);
        let Some(line) = text.lines().find(|l| l.starts_with("RESULT")) else {
            eprintln!(
                "case {} flows at {} Mbit/s failed: {}",
                c.flows,
                c.rate_mbit,
                String::from_utf8_lossy(&out.stderr)
            );
            continue;
        };
        let wall = field(line, "wall");
        let packets = field(line, "packets");
        let events = field(line, "events");
        let rss = field(line, "rss_kb");
        let util = field(line, "util");
        let max_window = field(line, "max_window");
        let queue = c.rate_mbit * 1_000_000 * 240 / 1000 / PACKET_BITS;
        let rate = if c.rate_mbit >= 1000 { format!("{}G", c.rate_mbit / 1000) } else { format!("{}M", c.rate_mbit) };
        println!(
            "{:<7} {:>6} {:>6} {:>7} {:>8} {:>8.3} {:>12.0} {:>12.0} {:>8.0} {:>8.1} {:>10.2} {:>9.1} {:>9.1}",
            c.label,
            c.flows,
            rate,
            queue,
            if max_window > 0.0 { format!("{max_window:.0}") } else { "-".to_string() },
            wall,
            packets,
            events,
            wall * 1e9 / packets,
            wall * 1e9 / events,
            packets / wall / 1e6,
            rss / 1024.0,
            util * 100.0
        );
    }
    println!();
    println!("ns/pkt: wall time per data packet sent (retransmissions included); peak MiB: the child's VmHWM;");
    println!("window: the most segments the flow had in flight (single-flow cases, sampled every 10 ms)");
}
