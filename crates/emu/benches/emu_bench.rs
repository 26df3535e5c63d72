//! The emulator's "must show" measurements, printed as figures (run as
//! root: `cargo bench -p rtac-emu`; `-- throughput`, `-- timing`,
//! `-- fidelity`, `-- trace` or `-- forward` runs one group). About fifteen
//! minutes in all, eight of them `fidelity` with its three runs per link;
//! the integration tests check shorter versions.

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
    let out = Command::new(BIN)
        .arg("emu")
        .args(args)
        .stdin(Stdio::null())
        .env_remove("SUDO_UID")
        .env_remove("SUDO_GID")
        .output()
        .expect("rtac-emu runs");
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

/// Nearest-rank quantile of unsorted values (NaN when empty).
fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1]
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn median(v: &[f64]) -> f64 {
    quantile(v, 0.5)
}

/// The figures compared between the simulator and the emulator, each
/// measured the same way on both sides. Times in ms.
#[derive(Clone, Debug, Default)]
struct Figures {
    goodput: f64,
    /// Per-ACK RTT samples at the sender, taken from the timestamp echo as
    /// `rtac-sim` takes them (`rtac_emu::rtt`): mean, p50, p95 and count.
    rtt_mean: f64,
    rtt_p50: f64,
    rtt_p95: f64,
    rtt_n: f64,
    /// The smoothed RTT of those samples averaged over time.
    srtt_time_mean: f64,
    /// That smoothed RTT read once a second (1 s .. 20 s after the start)
    /// and averaged, as iperf3's `mean_rtt` reads the kernel's.
    srtt_1s_mean: f64,
    /// The same from the samples Linux takes (emulator only; NaN for the
    /// simulator).
    linux_rtt_mean: f64,
    linux_rtt_p95: f64,
    linux_srtt_time_mean: f64,
    linux_srtt_1s_mean: f64,
    /// The check of the rebuilt samples against the kernel: the largest
    /// difference between Linux's smoothed RTT rebuilt from the logs and
    /// the kernel's as iperf3 reports it at the end of each interval.
    kernel_check_max_ms: f64,
    /// Bottleneck: packets waiting (in service excluded), averaged over
    /// time; queueing delay (arrival to start of service) per packet.
    queue_pkts: f64,
    sojourn_mean: f64,
    sojourn_p95: f64,
    drops: f64,
}

const FIDELITY_SECS: f64 = 20.0;

/// `rtac sim` on the same link: flow start at `start_ms` of the trace (the
/// emulated flow's phase), statistics over the following 20 s.
fn fidelity_sim(rate: &str, delay: &str, packets: u32, start_ms: f64) -> Figures {
    let is_trace = rate.contains('/');
    let service = if is_trace { format!("trace = \"{rate}\"") } else { format!("rate = \"{rate}\"") };
    let toml = format!(
        "duration = \"20s\"\ncontrollers = [\"none\"]\n[[link]]\nname = \"bn\"\n{service}\ndelay = \"{delay}\"\n\
         queue = \"droptail:packets={packets}\"\n[[flow]]\ncc = \"cubic\"\n"
    );
    let mut sc = rtac_sim::scenario::parse_str(&toml, "fidelity").unwrap();
    let start = rtac_core::Duration::from_micros((start_ms * 1e3).round() as u64);
    sc.flows[0].start = start;
    sc.measure_from = start;
    sc.duration = start + rtac_core::Duration::from_secs(FIDELITY_SECS as u64);
    let r = rtac_sim::run(&sc, &sc.controllers[0], &rtac_sim::RunOptions { series: true });
    let (f, l) = (&r.flows[0], &r.links[0]);
    let series = r.series.as_ref().unwrap();
    let from = start_ms;
    let to = start_ms + FIDELITY_SECS * 1e3;
    let ms = |d: rtac_core::Duration| d.as_nanos() as f64 / 1e6;
    let srtt: Vec<(f64, f64)> =
        series.flows.iter().filter(|s| s.srtt > rtac_core::Duration::ZERO).map(|s| (ms(s.t), ms(s.srtt))).collect();
    // Samples are taken every 10 ms: a sample stands for the 10 ms after it.
    let in_window = |t: f64| t >= from && t < to;
    let srtt_w: Vec<f64> = srtt.iter().filter(|s| in_window(s.0)).map(|s| s.1).collect();
    let at_1s: Vec<f64> =
        (1..=FIDELITY_SECS as u32).filter_map(|k| rtac_emu::rtt::value_at(&srtt, from + k as f64 * 1e3)).collect();
    let queue: Vec<f64> =
        series.links.iter().filter(|s| s.link == 0 && in_window(ms(s.t))).map(|s| s.queue_packets as f64).collect();
    Figures {
        goodput: f.throughput_mbps,
        rtt_mean: f.rtt_mean_ms,
        rtt_p50: f.rtt_p50_ms,
        rtt_p95: f.rtt_p95_ms,
        rtt_n: f.rtt_samples as f64,
        srtt_time_mean: mean(&srtt_w),
        srtt_1s_mean: mean(&at_1s),
        linux_rtt_mean: f64::NAN,
        linux_rtt_p95: f64::NAN,
        linux_srtt_time_mean: f64::NAN,
        linux_srtt_1s_mean: f64::NAN,
        kernel_check_max_ms: f64::NAN,
        queue_pkts: mean(&queue),
        sojourn_mean: l.queue_delay_mean_ms,
        sojourn_p95: l.queue_delay_p95_ms,
        drops: l.drops as f64,
    }
}

/// One iperf3 CUBIC download through `rtac emu`, logged; the figures come
/// from the logs (RTT samples rebuilt from the TCP fields, the bottleneck
/// queue from arrivals and departures), plus iperf3's goodput and
/// `mean_rtt`. Returns the figures, iperf3's `mean_rtt` and the instant the
/// first data segment reached the emulator (ms since the trace started).
fn fidelity_emu(rate: &str, up: &str, delay: &str, packets: u32, extra: &[&str]) -> (Figures, f64, f64) {
    use rtac_emu::log::Event;
    let dir = tmp("fidelity");
    let q = format!("droptail:packets={packets}");
    let mut args = extra.to_vec();
    args.extend([
        "--down",
        rate,
        "--up",
        up,
        "--delay",
        delay,
        "--queue",
        &q,
        "--log",
        dir.to_str().unwrap(),
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
    let out = emu(&args);
    let j = json(&out);
    let iperf_rtt = j["server_output_json"]["end"]["streams"][0]["sender"]["mean_rtt"].as_f64().unwrap() / 1e3;
    let read = |n: &str| read_log(std::io::BufReader::new(std::fs::File::open(dir.join(n)).unwrap())).unwrap();
    let (down, up_log) = (read("down.log"), read("up.log"));
    let _ = std::fs::remove_dir_all(&dir);
    // iperf3's data connection: the server's sender with the most segments.
    let rtts = rtac_emu::rtt::sender_rtts(&down, &up_log).unwrap();
    let flow = rtts.iter().filter(|r| r.direction == "down").max_by_key(|r| r.data_segments).unwrap();
    let from = flow.first_data_ms.unwrap();
    let to = from + FIDELITY_SECS * 1e3;
    // Per-ACK samples in the window; the smoothed RTT averaged over the
    // window and read once a second.
    let rtt_figures = |samples: &[rtac_emu::rtt::RttSample]| {
        let rtt: Vec<f64> = samples.iter().filter(|s| s.t_ms >= from && s.t_ms < to).map(|s| s.rtt_ms).collect();
        let srtt = rtac_emu::rtt::smoothed(samples);
        let at_1s: Vec<f64> =
            (1..=FIDELITY_SECS as u32).filter_map(|k| rtac_emu::rtt::value_at(&srtt, from + k as f64 * 1e3)).collect();
        let time_mean = rtac_emu::rtt::time_mean(&srtt, from, to).unwrap();
        (mean(&rtt), quantile(&rtt, 0.5), quantile(&rtt, 0.95), rtt.len() as f64, time_mean, mean(&at_1s))
    };
    let echo = rtt_figures(&flow.echo_samples);
    let linux = rtt_figures(&flow.samples);
    // iperf3 reads the kernel's smoothed RTT at the end of each interval
    // (seconds since its data started).
    let kernel_srtt = rtac_emu::rtt::smoothed(&flow.samples);
    let kernel_check_max_ms = j["server_output_json"]["intervals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let end_ms = from + i["streams"][0]["end"].as_f64().unwrap() * 1e3;
            let kernel = i["streams"][0]["rtt"].as_f64().unwrap() / 1e3;
            (rtac_emu::rtt::value_at(&kernel_srtt, end_ms).unwrap_or(f64::NAN) - kernel).abs()
        })
        .fold(0.0, f64::max);
    // The bottleneck, a FIFO: a packet starts service when it has arrived
    // and the one before it has left.
    let mut deps: Vec<(f64, f64, u32)> = down
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Departure { t_ms, delay_ms, flow, .. } => Some((t_ms - delay_ms, *t_ms, *flow)),
            _ => None,
        })
        .collect();
    deps.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (mut prev, mut waiting, mut sojourn) = (f64::NEG_INFINITY, 0.0, Vec::new());
    for &(arr, dep, f) in &deps {
        let start = arr.max(prev);
        prev = dep;
        waiting += (start.min(to) - arr.max(from)).max(0.0);
        if f == flow.flow && dep >= from && dep < to {
            sojourn.push(start - arr);
        }
    }
    let drops =
        down.events.iter().filter(|e| matches!(e, Event::Drop { t_ms, .. } if *t_ms >= from && *t_ms < to)).count();
    let figures = Figures {
        goodput: goodput_mbps(&j),
        rtt_mean: echo.0,
        rtt_p50: echo.1,
        rtt_p95: echo.2,
        rtt_n: echo.3,
        srtt_time_mean: echo.4,
        srtt_1s_mean: echo.5,
        linux_rtt_mean: linux.0,
        linux_rtt_p95: linux.2,
        linux_srtt_time_mean: linux.4,
        linux_srtt_1s_mean: linux.5,
        kernel_check_max_ms,
        queue_pkts: waiting / (to - from),
        sojourn_mean: mean(&sojourn),
        sojourn_p95: quantile(&sojourn, 0.95),
        drops: drops as f64,
    };
    (figures, iperf_rtt, from)
}

fn fidelity() {
    let runs: usize = std::env::var("RTAC_FIDELITY_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    // The server's socket must be CUBIC from its creation. iperf3 sets the
    // congestion control on the data socket only after accepting it, so the
    // socket starts with the namespace's default; when that is BBR, BBR's
    // initialisation turns pacing on and it stays on after the switch to
    // CUBIC (Linux never resets sk_pacing_status), which is a paced CUBIC
    // with a different HyStart. A non-restricted default (reno) avoids that;
    // RTAC_FIDELITY_NS_CC="" keeps the host's default.
    let ns_cc = std::env::var("RTAC_FIDELITY_NS_CC").unwrap_or_else(|_| "reno".into());
    let cc_sysctl = format!("net.ipv4.tcp_congestion_control={ns_cc}");
    let extra: Vec<&str> = if ns_cc.is_empty() { vec![] } else { vec!["--sysctl", &cc_sysctl] };
    println!(
        "\n== Fidelity: one CUBIC flow, rtac sim vs rtac emu (iperf3 -t 20, namespace default CC {:?}), \
         medians of {runs} emulator runs (RTAC_FIDELITY_RUNS), each against a simulation whose flow starts \
         at the same point of the trace. RTTs: per-ACK samples at the sender, from the timestamp echo on both sides",
        if ns_cc.is_empty() { "host default" } else { ns_cc.as_str() }
    );
    let traces = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/mahimahi");
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
        let up = if is_trace { "50mbit" } else { rate };
        let name = rate.rsplit('/').next().unwrap_or(rate);
        println!("  {name} --delay {delay} droptail:packets={packets} (load {})", load());
        let (mut sims, mut emus, mut iperf) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..runs {
            let (e, iperf_rtt, start_ms) = fidelity_emu(rate, up, delay, packets, &extra);
            let s = fidelity_sim(rate, delay, packets, start_ms);
            println!(
                "    run {}: flow at {start_ms:.1} ms of the trace; per-ACK RTT mean sim {:.1} emu {:.1} ms; \
                 queueing delay mean sim {:.1} emu {:.1} ms; iperf3 mean_rtt {iperf_rtt:.1} ms; Linux's srtt rebuilt \
                 from the logs is within {:.2} ms of the kernel's at each iperf3 interval; load {}",
                i + 1,
                s.rtt_mean,
                e.rtt_mean,
                s.sojourn_mean,
                e.sojourn_mean,
                e.kernel_check_max_ms,
                load()
            );
            sims.push(s);
            emus.push(e);
            iperf.push(iperf_rtt);
        }
        // How much the simulation alone moves with the point of the trace
        // where the flow starts (where the emulated flows start, give or
        // take): a trace's figures are only as exact as this.
        let offsets: Vec<Figures> = if is_trace {
            (100..=400).step_by(10).map(|ms| fidelity_sim(rate, delay, packets, ms as f64)).collect()
        } else {
            Vec::new()
        };
        println!(
            "    {:<36} {:>9} {:>9} {:>8}   {}",
            "median of the runs",
            "sim",
            "emu",
            "emu/sim",
            if is_trace { "sim, flow starting at 100..400 ms: median [min, max]" } else { "" }
        );
        let row = |what: &str, f: fn(&Figures) -> f64| {
            let s = median(&sims.iter().map(f).collect::<Vec<_>>());
            let e = median(&emus.iter().map(f).collect::<Vec<_>>());
            let spread = if offsets.is_empty() {
                String::new()
            } else {
                let v: Vec<f64> = offsets.iter().map(f).collect();
                let (lo, hi) = v.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
                format!("{:.2} [{lo:.2}, {hi:.2}]", median(&v))
            };
            if s.is_nan() {
                println!("    {what:<36} {:>9} {e:>9.2}", "-");
            } else {
                println!("    {what:<36} {s:>9.2} {e:>9.2} {:>+7.1} %   {spread}", (e / s - 1.0) * 100.0);
            }
        };
        row("goodput, Mbit/s", |f| f.goodput);
        row("per-ACK RTT mean, ms", |f| f.rtt_mean);
        row("per-ACK RTT p50, ms", |f| f.rtt_p50);
        row("per-ACK RTT p95, ms", |f| f.rtt_p95);
        row("RTT samples (ACKs)", |f| f.rtt_n);
        row("srtt, time mean, ms", |f| f.srtt_time_mean);
        row("srtt once a second, mean, ms", |f| f.srtt_1s_mean);
        row("queue, time mean, packets", |f| f.queue_pkts);
        row("queueing delay per packet, mean, ms", |f| f.sojourn_mean);
        row("queueing delay per packet, p95, ms", |f| f.sojourn_p95);
        row("drops", |f| f.drops);
        row("Linux's own samples: mean, ms", |f| f.linux_rtt_mean);
        row("Linux's own samples: p95, ms", |f| f.linux_rtt_p95);
        row("Linux's srtt, time mean, ms", |f| f.linux_srtt_time_mean);
        row("Linux's srtt once a second, ms", |f| f.linux_srtt_1s_mean);
        let (i, s) = (median(&iperf), median(&sims.iter().map(|f| f.rtt_mean).collect::<Vec<_>>()));
        println!(
            "    iperf3 mean_rtt {i:.1} ms {:?} (the kernel's srtt read at each 1 s report and at the end) against \
             the simulator's per-ACK mean {s:.1} ms: {:+.1} %, two different statistics",
            iperf.iter().map(|v| (v * 10.0).round() / 10.0).collect::<Vec<_>>(),
            (i / s - 1.0) * 100.0
        );
    }
}

fn trace() {
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/mahimahi/Verizon-LTE-short.down");
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
