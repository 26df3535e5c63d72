//! The emulator's "must show" measurements, printed as figures (run as
//! root: `cargo bench -p rtac-emu`; `-- throughput`, `-- timing`,
//! `-- fidelity`, `-- trace` or `-- forward` runs one group). About six
//! minutes in all; the integration tests check shorter versions.

use rtac_emu::log::read_log;
use rtac_emu::plot::analyse;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_rtac-emu");
const BIG_BUFFERS: [&str; 4] =
    ["--sysctl", "net.ipv4.tcp_rmem=4096 131072 134217728", "--sysctl", "net.ipv4.tcp_wmem=4096 16384 134217728"];

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn emu(args: &[&str]) -> Output {
    let out = Command::new(BIN).arg("emu").args(args).stdin(Stdio::null()).output().expect("rtac-emu runs");
    if !out.status.success() {
        panic!("rtac-emu emu {args:?} failed: {}", text(&out.stderr));
    }
    out
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("JSON: {e}: {}", text(&out.stdout)))
}

fn goodput_mbps(j: &serde_json::Value) -> f64 {
    j["end"]["sum_received"]["bits_per_second"].as_f64().unwrap() / 1e6
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rtac-emu-bench-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn sh(cmd: &str) {
    let st = Command::new("sh").arg("-c").arg(cmd).status().unwrap();
    assert!(st.success(), "{cmd}");
}

/// iperf3 between two namespaces joined by a plain veth pair (no emulator).
fn direct_veth(cc: &str, secs: u32, tso: bool) -> f64 {
    let id = std::process::id();
    let (a, b) = (format!("rtac-bench-{id}-a"), format!("rtac-bench-{id}-b"));
    sh(&format!(
        "ip netns add {a} && ip netns add {b} && ip link add v netns {a} type veth peer name v netns {b} && \
         ip -n {a} addr add 100.64.0.1/24 dev v && ip -n {b} addr add 100.64.0.2/24 dev v && \
         ip -n {a} link set v up && ip -n {b} link set v up && ip -n {a} link set lo up && ip -n {b} link set lo up && \
         for n in {a} {b}; do ip netns exec $n sysctl -qw net.ipv4.tcp_rmem='4096 131072 134217728' net.ipv4.tcp_wmem='4096 16384 134217728'; done"
    ));
    if !tso {
        // The emulator's endpoint settings: TSO off (software GSO on), GRO on.
        for n in [&a, &b] {
            let _ =
                Command::new("ip").args(["netns", "exec", n, "ethtool", "-K", "v", "tso", "off", "gro", "on"]).output();
        }
    }
    let mut server =
        Command::new("ip").args(["netns", "exec", &a, "iperf3", "-s", "-1"]).stdout(Stdio::null()).spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let t = secs.to_string();
    let out = Command::new("ip")
        .args(["netns", "exec", &b, "iperf3", "-c", "100.64.0.1", "-R", "-C", cc, "-t", &t, "-O", "2", "-J"])
        .output()
        .unwrap();
    let _ = server.wait();
    sh(&format!("ip netns del {a}; ip netns del {b}"));
    goodput_mbps(&json(&out))
}

/// One bulk download through the emulator; returns (goodput, stats JSON).
fn emu_download(rate: &str, delay: &str, queue: &str, cc: &str, secs: u32, extra: &[&str]) -> (f64, serde_json::Value) {
    let dir = tmp("dl");
    let stats = dir.join("stats.json");
    let t = secs.to_string();
    let mut args = vec![
        "--down",
        rate,
        "--up",
        rate,
        "--delay",
        delay,
        "--queue",
        queue,
        "--stats",
        stats.to_str().unwrap(),
        "--server",
        "iperf3 -s -1 >/dev/null",
    ];
    args.extend_from_slice(&BIG_BUFFERS);
    args.extend_from_slice(extra);
    args.extend(["--", "iperf3", "-c", "$RTAC_SERVER", "-R", "-C", cc, "-t", &t, "-O", "2", "-J"]);
    let out = emu(&args);
    let s: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    (goodput_mbps(&json(&out)), s)
}

fn lateness(s: &serde_json::Value, dir: &str) -> String {
    let l = &s[dir]["lateness_us"];
    format!(
        "lateness p50 {:.0} us, p99 {:.0} us, p99.9 {:.0} us, max {:.0} us; rx drops {}, tx failures {}",
        l["p50"].as_f64().unwrap(),
        l["p99"].as_f64().unwrap(),
        l["p999"].as_f64().unwrap(),
        l["max"].as_f64().unwrap(),
        s[dir]["rx_dropped"],
        s[dir]["tx_failed"]
    )
}

fn throughput() {
    println!(
        "\n== Throughput: 80 ms RTT (--delay 40ms) and 160 ms RTT (--delay 80ms), iperf3 -R, 12 s after 2 s omitted"
    );
    for cc in ["cubic", "bbr"] {
        let direct = direct_veth(cc, 10, true);
        let direct_notso = direct_veth(cc, 10, false);
        println!(
            "{cc}: direct veth {direct:.0} Mbit/s (TSO on), {direct_notso:.0} Mbit/s (TSO off, GRO on); load {}",
            load()
        );
        for (rate, delay) in [("10gbit", "40ms"), ("1.2gbit", "40ms"), ("10gbit", "80ms")] {
            let (g, s) = emu_download(rate, delay, "droptail:packets=40000", cc, 12, &[]);
            println!(
                "  emu {rate} --delay {delay}: {g:.0} Mbit/s = {:.3} x direct veth (TSO on), {:.3} x (TSO off); down {}; load {}",
                g / direct,
                g / direct_notso,
                lateness(&s, "down"),
                load()
            );
        }
    }
}

fn forward() {
    println!("\n== Forwarding: AF_PACKET on veth vs TUN (Mahimahi's way), 10gbit link, --delay 40ms, cubic and bbr");
    for cc in ["cubic", "bbr"] {
        for how in ["packet", "tun"] {
            let (g, s) = emu_download("10gbit", "40ms", "droptail:packets=40000", cc, 12, &["--forward", how]);
            println!("  {cc} --forward {how}: {g:.0} Mbit/s; down {}; load {}", lateness(&s, "down"), load());
        }
    }
}

fn ping_avg(out: &str) -> f64 {
    let line = out.lines().find(|l| l.contains("min/avg/max")).expect("ping summary");
    line.split('=').nth(1).unwrap().trim().split('/').nth(1).unwrap().parse().unwrap()
}

fn timing() {
    println!("\n== Timing at 50 Mbit/s");
    for delay_ms in [10u32, 20, 40] {
        let d = format!("{delay_ms}ms");
        let out = emu(&[
            "--down",
            "50mbit",
            "--up",
            "50mbit",
            "--delay",
            &d,
            "--",
            "ping",
            "-c",
            "100",
            "-i",
            "0.02",
            "-q",
            "$RTAC_SERVER",
        ]);
        let avg = ping_avg(&text(&out.stdout));
        // Serialising an 84-byte ping at 50 Mbit/s takes 13.4 us each way.
        let expected = 2.0 * delay_ms as f64 + 2.0 * 0.0134;
        println!(
            "  idle ping, --delay {d}: RTT {avg:.3} ms vs {expected:.3} ms configured (2 x delay + serialisation): off by {:.3} ms",
            avg - expected
        );
    }
    let (g, s) = emu_download("50mbit", "20ms", "droptail:packets=200", "cubic", 20, &[]);
    println!(
        "  cubic download, 50mbit, --delay 20ms, 200 packets: {g:.2} Mbit/s; down {}; load {}",
        lateness(&s, "down"),
        load()
    );
    println!("                                                   up {}", lateness(&s, "up"));
}

fn fidelity() {
    println!("\n== Fidelity: one CUBIC flow, rtac sim vs rtac emu (iperf3 -t 20; sender's mean RTT)");
    let traces = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces/mahimahi");
    let verizon = traces.join("Verizon-LTE-short.down").to_str().unwrap().to_string();
    let tmobile = traces.join("TMobile-LTE-short.down").to_str().unwrap().to_string();
    let links: [(&str, &str, u32); 5] = [
        ("50mbit", "20ms", 200),
        ("50mbit", "40ms", 1000),
        ("20mbit", "10ms", 100),
        (&verizon, "20ms", 100),
        (&tmobile, "20ms", 100),
    ];
    for (rate, delay, packets) in links {
        // A rate, or a Mahimahi trace (whose uplink is a 50 Mbit/s link).
        let is_trace = rate.contains('/');
        let service = if is_trace { format!("trace = \"{rate}\"") } else { format!("rate = \"{rate}\"") };
        let up = if is_trace { "50mbit" } else { rate };
        let toml = format!(
            "duration = \"20s\"\ncontrollers = [\"none\"]\n[[link]]\nname = \"bn\"\n{service}\ndelay = \"{delay}\"\n\
             queue = \"droptail:packets={packets}\"\n[[flow]]\ncc = \"cubic\"\n"
        );
        let sc = rtac_sim::scenario::parse_str(&toml, "fidelity").unwrap();
        let sim = rtac_sim::run(&sc, &sc.controllers[0], &rtac_sim::RunOptions::default());
        let q = format!("droptail:packets={packets}");
        let out = emu(&[
            "--down",
            rate,
            "--up",
            up,
            "--delay",
            delay,
            "--queue",
            &q,
            "--server",
            "iperf3 -s -1 -J >/dev/null",
            "--",
            "iperf3",
            "-c",
            "$RTAC_SERVER",
            "-R",
            "-C",
            "cubic",
            "-t",
            "20",
            "-J",
            "--get-server-output",
        ]);
        let j = json(&out);
        let g = goodput_mbps(&j);
        let rtt = j["server_output_json"]["end"]["streams"][0]["sender"]["mean_rtt"].as_f64().unwrap() / 1e3;
        let (sg, sr) = (sim.flows[0].throughput_mbps, sim.flows[0].rtt_mean_ms);
        let name = rate.rsplit('/').next().unwrap_or(rate);
        println!(
            "  {name} --delay {delay} droptail:packets={packets}: sim {sg:.2} Mbit/s {sr:.1} ms; emu {g:.2} Mbit/s {rtt:.1} ms; \
             throughput {:+.1} %, RTT {:+.1} %",
            (g / sg - 1.0) * 100.0,
            (rtt / sr - 1.0) * 100.0
        );
    }
}

fn trace() {
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces/mahimahi/Verizon-LTE-short.down");
    let trace = trace.to_str().unwrap().to_string();
    println!("\n== Trace: Verizon-LTE-short.down, cubic bulk download, 30 s, --delay 20ms (first second skipped)");
    for packets in [25, 100, 400, 1600] {
        let dir = tmp(&format!("trace-{packets}"));
        let q = format!("droptail:packets={packets}");
        emu(&[
            "--down",
            &trace,
            "--up",
            "50mbit",
            "--delay",
            "20ms",
            "--queue",
            &q,
            "--log",
            dir.to_str().unwrap(),
            "--server",
            "iperf3 -s -1 >/dev/null",
            "--",
            "iperf3",
            "-c",
            "$RTAC_SERVER",
            "-R",
            "-C",
            "cubic",
            "-t",
            "30",
        ]);
        let log = read_log(std::io::BufReader::new(std::fs::File::open(dir.join("down.log")).unwrap())).unwrap();
        let (all, _) = analyse(&log, None, None, 0.5).unwrap();
        let (s, _) = analyse(&log, Some(all.from_s + 1.0), Some(all.to_s), 0.5).unwrap();
        println!(
            "  {packets:>5} packets: capacity {:.2} Mbit/s, throughput {:.2} Mbit/s, utilisation {:.1} %, queueing delay p95 {:.0} ms (mean {:.0} ms)",
            s.capacity_mbps.unwrap(),
            s.throughput_mbps,
            s.utilization.unwrap() * 100.0,
            s.delay_p95_ms,
            s.delay_mean_ms
        );
    }
}

fn main() {
    let only: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let want = |g: &str| only.is_empty() || only.iter().any(|o| o == g);
    println!("rtac-emu benchmark; machine load {}", load());
    if want("timing") {
        timing();
    }
    if want("fidelity") {
        fidelity();
    }
    if want("trace") {
        trace();
    }
    if want("throughput") {
        throughput();
    }
    if want("forward") {
        forward();
    }
}
