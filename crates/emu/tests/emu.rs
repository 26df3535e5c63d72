//! Integration tests of `rtac emu` with real Linux TCP: they create network
//! namespaces, so they need root (CAP_NET_ADMIN, CAP_SYS_ADMIN,
//! CAP_NET_RAW) and iperf3, curl and ping (installed by .ci/run). Without
//! them they fail, saying what is missing; they never skip.
//!
//! Tests that measure (throughput, delay, fidelity) hold `MEASURE` so that
//! they do not run at the same time as each other; the lifecycle tests run
//! alongside (and so also check that several emulators coexist).

use rtac_emu::log::read_log;
use rtac_emu::plot::analyse;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static MEASURE: Mutex<()> = Mutex::new(());

const BIN: &str = env!("CARGO_BIN_EXE_rtac-emu");

fn measure_lock() -> std::sync::MutexGuard<'static, ()> {
    MEASURE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Fails (never skips) when the test cannot create namespaces or lacks a
/// tool, naming what is missing.
fn require_testbed() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let caps = status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .map(|v| u64::from_str_radix(v.trim(), 16).unwrap())
        .unwrap_or(0);
    for (bit, name) in [(12, "CAP_NET_ADMIN"), (21, "CAP_SYS_ADMIN"), (13, "CAP_NET_RAW")] {
        assert!(
            caps & (1 << bit) != 0,
            "the emulator tests need {name} (and CAP_NET_ADMIN, CAP_SYS_ADMIN, CAP_NET_RAW): run them as root"
        );
    }
    for tool in ["iperf3", "curl", "ping", "ip"] {
        let found = std::env::var("PATH")
            .unwrap_or_default()
            .split(':')
            .chain(["/usr/sbin", "/sbin"])
            .any(|d| Path::new(d).join(tool).exists());
        assert!(
            found,
            "the emulator tests need `{tool}`: .ci/run installs it (apt-get install iperf3 curl iputils-ping iproute2)"
        );
    }
}

fn emu(args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    // Under `sudo cargo test` the emulator would create its logs as the
    // invoking user, in temporary directories root made: these tests run
    // it as root itself (tests/security.rs tries sudo's identity).
    c.arg("emu").args(args).stdin(Stdio::null()).env_remove("SUDO_UID").env_remove("SUDO_GID");
    c
}

fn run(args: &[&str]) -> Output {
    emu(args).output().expect("rtac-emu runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Namespaces of emulator instance `pid` that still exist.
fn namespaces_of(pid: u32) -> Vec<String> {
    let prefix = format!("rtac-{pid}-");
    std::fs::read_dir("/run/netns")
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(&prefix))
                .collect()
        })
        .unwrap_or_default()
}

fn wait_for(what: &str, timeout: Duration, mut ok: impl FnMut() -> bool) {
    let end = Instant::now() + timeout;
    while !ok() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rtac-emu-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn pid_alive(pid: i32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default().contains(") Z ")
}

// ------------------------------------------------------------- lifecycle

#[test]
fn the_exit_code_is_the_commands_and_nothing_is_left_behind() {
    require_testbed();
    for (cmd, want) in [("true", 0), ("exit 7", 7), ("false", 1)] {
        let child = emu(&["--down", "10mbit", "--up", "10mbit", "--", cmd]).spawn().unwrap();
        let pid = child.id();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(want), "{cmd}: {}", text(&out.stderr));
        assert!(namespaces_of(pid).is_empty(), "{cmd} left {:?}", namespaces_of(pid));
        assert!(!Path::new(&format!("/run/rtac/{pid}.lock")).exists());
    }
    // A command that cannot start: an error, and still nothing left.
    let child = emu(&["--down", "10mbit", "--up", "10mbit", "--", "/nonexistent/command", "arg"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("/nonexistent/command"), "{}", text(&out.stderr));
    assert!(namespaces_of(pid).is_empty());
}

#[test]
fn commands_see_the_server_address_and_run_as_the_invoking_user() {
    require_testbed();
    let out = emu(&["--down", "10mbit", "--up", "10mbit", "--", "sh", "-c", "echo $RTAC_SERVER $(id -u) $(id -g)"])
        .env("SUDO_UID", "65534")
        .env("SUDO_GID", "65534")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "100.64.0.1 65534 65534");
    // Several arguments: a literal $RTAC_SERVER argument is substituted.
    let out = run(&["--down", "10mbit", "--up", "10mbit", "--", "echo", "$RTAC_SERVER"]);
    assert_eq!(text(&out.stdout).trim(), "100.64.0.1");
}

#[test]
fn ctrl_c_stops_the_command_and_removes_the_testbed() {
    require_testbed();
    let mut child = emu(&["--down", "10mbit", "--up", "10mbit", "--server", "sleep 60", "--", "sleep", "60"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    wait_for("the testbed", Duration::from_secs(10), || namespaces_of(pid).len() == 3);
    std::thread::sleep(Duration::from_millis(300));
    let t0 = Instant::now();
    // SAFETY: signalling our own child.
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    // Half the commands' 60 s: the bound tells "stopped them" from "waited
    // for them", with room for a loaded machine's slow teardown.
    assert!(t0.elapsed() < Duration::from_secs(30), "took {:?}", t0.elapsed());
    assert_eq!(status.code(), Some(128 + libc::SIGINT));
    assert!(namespaces_of(pid).is_empty(), "left {:?}", namespaces_of(pid));

    // SIGTERM too.
    let mut child = emu(&["--down", "10mbit", "--up", "10mbit", "--", "sleep", "60"]).spawn().unwrap();
    let pid = child.id();
    wait_for("the testbed", Duration::from_secs(10), || namespaces_of(pid).len() == 3);
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: as above.
    unsafe { libc::kill(pid as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(128 + libc::SIGTERM));
    assert!(namespaces_of(pid).is_empty());
}

#[test]
fn a_crashed_emulator_is_cleaned_up_at_the_next_start() {
    require_testbed();
    let mut child =
        emu(&["--down", "10mbit", "--up", "10mbit", "--server", "sleep 120", "--", "sleep", "120"]).spawn().unwrap();
    let pid = child.id();
    wait_for("the testbed", Duration::from_secs(10), || namespaces_of(pid).len() == 3);
    // Wait for the two sleeps to run inside the namespaces.
    let orphans = || -> Vec<i32> {
        let mut v = Vec::new();
        for ns in namespaces_of(pid) {
            v.extend(rtac_emu::testbed::processes_in(&ns).into_iter().filter(|p| {
                std::fs::read_to_string(format!("/proc/{p}/cmdline")).is_ok_and(|c| c.starts_with("sleep\0"))
            }));
        }
        v
    };
    wait_for("the commands", Duration::from_secs(10), || orphans().len() == 2);
    let sleeps = orphans();
    child.kill().unwrap(); // SIGKILL: no cleanup
    child.wait().unwrap();
    assert_eq!(namespaces_of(pid).len(), 3, "a killed emulator leaves its namespaces");
    assert!(sleeps.iter().all(|&p| pid_alive(p)), "and its commands");
    let out = run(&["--down", "10mbit", "--up", "10mbit", "--", "true"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(namespaces_of(pid).is_empty(), "left {:?}", namespaces_of(pid));
    assert!(text(&out.stderr).contains(&format!("rtac-{pid}-srv")), "{}", text(&out.stderr));
    wait_for("the orphans to die", Duration::from_secs(5), || sleeps.iter().all(|&p| !pid_alive(p)));
    // --cleanup alone finds nothing more of it.
    let out = run(&["--cleanup"]);
    assert!(out.status.success());
    assert!(!text(&out.stderr).contains(&format!("rtac-{pid}-")));
}

#[test]
fn several_emulators_run_at_once() {
    require_testbed();
    let children: Vec<_> = [("5ms", "10.1"), ("15ms", "30.1")]
        .iter()
        .map(|(delay, _)| {
            emu(&[
                "--down",
                "20mbit",
                "--up",
                "20mbit",
                "--delay",
                delay,
                "--",
                "ping",
                "-c",
                "5",
                "-i",
                "0.2",
                "-q",
                "$RTAC_SERVER",
            ])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    for (child, (_, rtt)) in children.into_iter().zip([("5ms", 10.0), ("15ms", 30.0)]) {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stdout));
        let (min, avg) = ping_ms(&text(&out.stdout));
        // The emulator never delivers early; late only as far as a loaded
        // machine delays the forwarding threads and ping (margin 10 ms).
        assert!(min >= rtt && avg < rtt + 10.0, "RTT min {min}, avg {avg} ms, configured {rtt} ms");
    }
}

// ------------------------------------------------------------- bad input

#[test]
fn missing_privileges_name_the_capability() {
    let out = emu(&["--down", "10mbit", "--up", "10mbit", "--", "true"]).uid(65534).gid(65534).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = text(&out.stderr);
    assert!(e.contains("CAP_NET_ADMIN") && e.contains("CAP_SYS_ADMIN"), "{e}");
    assert!(e.contains("root"), "{e}");
}

#[test]
fn malformed_traces_are_rejected_with_the_line_number() {
    let dir = temp_dir("traces");
    for (name, content, want) in [
        ("words.trace", "1\n2\nthree\n", "line 3"),
        ("decreasing.trace", "5\n9\n7\n", "line 3"),
        ("empty.trace", "", "no timestamps"),
        ("zero.trace", "0\n0\n0\n", "line 3"),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, content).unwrap();
        let out = run(&["--down", p.to_str().unwrap(), "--up", "10mbit", "--", "true"]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let e = text(&out.stderr);
        assert!(e.contains(want) && e.contains("--down"), "{name}: {e}");
    }
}

// -------------------------------------------------- real endpoints, timing

/// Ping's minimum and average RTT, ms.
fn ping_ms(out: &str) -> (f64, f64) {
    let line = out.lines().find(|l| l.contains("min/avg/max")).unwrap_or_else(|| panic!("no ping summary in {out}"));
    let v: Vec<f64> = line.split('=').nth(1).unwrap().trim().split('/').take(2).map(|x| x.parse().unwrap()).collect();
    (v[0], v[1])
}

#[test]
fn ping_measures_the_configured_delay_on_an_idle_link() {
    require_testbed();
    let _g = measure_lock();
    let out = run(&[
        "--down",
        "50mbit",
        "--up",
        "50mbit",
        "--delay",
        "20ms",
        "--",
        "ping",
        "-c",
        "30",
        "-i",
        "0.05",
        "-q",
        "$RTAC_SERVER",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (min, avg) = ping_ms(&text(&out.stdout));
    // 2 x 20 ms, plus 2 x 13 us to serialise 84 bytes at 50 Mbit/s: never
    // less (the schedule is the model's). On an idle machine the average
    // is within 0.5 ms; the 5 ms margin is for a loaded one.
    assert!(min >= 40.0 && avg < 45.0, "ping RTT min {min}, avg {avg} ms for 2 x 20 ms");
}

fn iperf3_json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("iperf3 JSON: {e}: {}{}", text(&out.stdout), text(&out.stderr)))
}

#[test]
fn an_iperf3_cubic_download_fills_the_link_and_follows_its_schedule() {
    require_testbed();
    let _g = measure_lock();
    let dir = temp_dir("iperf3");
    let stats = dir.join("stats.json");
    let out = run(&[
        "--down",
        "50mbit",
        "--up",
        "50mbit",
        "--delay",
        "10ms",
        "--queue",
        "droptail:packets=200",
        "--stats",
        stats.to_str().unwrap(),
        "--log",
        dir.to_str().unwrap(),
        "--server",
        "iperf3 -s -1",
        "--",
        "iperf3",
        "-c",
        "$RTAC_SERVER",
        "-R",
        "-C",
        "cubic",
        "-t",
        "4",
        "-J",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // stdout is the client's JSON alone; the server's text is in server.log.
    let j = iperf3_json(&out);
    let server = std::fs::read_to_string(dir.join("server.log")).unwrap();
    assert!(server.contains("Server listening"), "{server}");
    let received = j["end"]["sum_received"]["bytes"].as_u64().unwrap();
    let mbps = j["end"]["sum_received"]["bits_per_second"].as_f64().unwrap() / 1e6;
    let s: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    let d = &s["down"];
    let (sent, capacity) = (d["departure_bytes"].as_u64().unwrap(), d["capacity_bytes"].as_u64().unwrap());
    let p99 = d["lateness_us"]["p99"].as_f64().unwrap();
    println!("goodput {mbps:.2} Mbit/s; link {sent} of {capacity} bytes; lateness p99 {p99} us");
    // What the emulator logged: the link never carried more than its
    // schedule allowed (one packet of slack at the end), the client never
    // got more than the link carried, and every delivery was timed.
    assert!(sent <= capacity + 1500, "{sent} bytes sent, capacity {capacity}");
    assert!(received <= sent, "{received} bytes received, {sent} sent");
    assert_eq!(d["lateness_us"]["count"], d["delivered"]);
    // Departed but still on the 10 ms delay line when the run ended: at
    // most what 50 Mbit/s sends in 10 ms (42 full packets), plus one.
    let (departures, delivered) = (d["departures"].as_u64().unwrap(), d["delivered"].as_u64().unwrap());
    let in_delay = departures.checked_sub(delivered).expect("no packet is delivered before it departs");
    assert!(in_delay <= 43, "{in_delay} packets departed and were not delivered");
    assert_eq!(d["tx_failed"], 0);
    // Wall-clock figures, with margins: on an idle machine goodput is
    // 46-49 Mbit/s and lateness p99 under 1 ms; the bounds catch a stalled
    // direction or a forwarding thread sleeping through its deadlines, not
    // a loaded machine.
    assert!(mbps > 25.0, "goodput {mbps} Mbit/s on a 50 Mbit/s link");
    assert!(p99 < 20_000.0, "departures follow the schedule within {p99} us at the 99th percentile");
}

#[test]
fn curl_downloads_from_an_http_server_across_the_link() {
    require_testbed();
    let _g = measure_lock();
    let server = format!("{BIN} serve-http --port 8080 --bytes 3000000");
    let out = run(&[
        "--down",
        "20mbit",
        "--up",
        "20mbit",
        "--delay",
        "10ms",
        "--server",
        &server,
        "--",
        "curl",
        "-sS",
        "-o",
        "/dev/null",
        "-w",
        "%{size_download} %{speed_download}",
        "http://$RTAC_SERVER:8080/",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let o = text(&out.stdout);
    let mut it = o.split_whitespace();
    let size: u64 = it.next().unwrap().parse().unwrap();
    let speed: f64 = it.next().unwrap().parse().unwrap();
    assert_eq!(size, 3_000_000);
    let mbps = speed * 8.0 / 1e6;
    // curl's own clock: margins for a loaded machine (half the rate) and
    // for the gap between curl's clock and the link's (10 %).
    assert!(mbps > 4.0 && mbps < 22.0, "curl at {mbps} Mbit/s over a 20 Mbit/s link");
}

#[test]
fn every_queue_discipline_and_per_flow_queues_carry_traffic() {
    require_testbed();
    let _g = measure_lock();
    for (queue, mode) in [
        ("codel", "shared"),
        ("fq_codel", "shared"),
        ("pie", "shared"),
        ("red:min=20,max=60,packets=200", "shared"),
        ("droptail:bytes=300KB", "per-flow"),
    ] {
        let out = run(&[
            "--down",
            "20mbit",
            "--up",
            "20mbit",
            "--delay",
            "5ms",
            "--queue",
            queue,
            "--queue-mode",
            mode,
            "--loss",
            "0.001",
            "--server",
            "iperf3 -s -1",
            "--",
            "iperf3",
            "-c",
            "$RTAC_SERVER",
            "-R",
            "-C",
            "cubic",
            "-t",
            "2",
            "-P",
            "2",
            "-J",
        ]);
        assert!(out.status.success(), "{queue}: {}", text(&out.stderr));
        // Without --log the server's text goes to stderr, each line marked.
        assert!(text(&out.stderr).contains("rtac emu: server: Server listening"), "{}", text(&out.stderr));
        let mbps = iperf3_json(&out)["end"]["sum_received"]["bits_per_second"].as_f64().unwrap() / 1e6;
        // Margins as for curl: a quarter of the rate for a loaded machine,
        // 10 % above it for iperf3's clock against the link's.
        assert!(mbps > 5.0 && mbps < 22.0, "{queue} {mode}: {mbps} Mbit/s");
    }
}

// ---------------------------------------------------- logs, traces, plots

fn trace_path() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/mahimahi/Verizon-LTE-short.down");
    assert!(p.exists(), "missing {}", p.display());
    p
}

/// A bulk download over the Verizon LTE trace with a DropTail buffer of
/// `packets`, logged; returns the downlink's summary over the transfer.
fn trace_download(packets: u32, secs: u32) -> rtac_emu::plot::Summary {
    let dir = temp_dir(&format!("trace-{packets}"));
    let queue = format!("droptail:packets={packets}");
    let t = secs.to_string();
    let out = run(&[
        "--down",
        trace_path().to_str().unwrap(),
        "--up",
        "50mbit",
        "--delay",
        "20ms",
        "--queue",
        &queue,
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
        &t,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let log = read_log(std::io::BufReader::new(std::fs::File::open(dir.join("down.log")).unwrap())).unwrap();
    assert!(log.header("link").unwrap().contains("Verizon-LTE-short.down"));
    // The TCP fields of both logs give the server's RTT samples: at least
    // one per 16 segments, none shorter than the two propagation delays.
    let up = read_log(std::io::BufReader::new(std::fs::File::open(dir.join("up.log")).unwrap())).unwrap();
    let rtts = rtac_emu::rtt::sender_rtts(&log, &up).unwrap();
    let data = rtts.iter().filter(|r| r.direction == "down").max_by_key(|r| r.data_segments).expect("a server sender");
    for samples in [&data.samples, &data.echo_samples] {
        assert!(
            samples.len() as u64 > data.data_segments / 16,
            "{} samples, {} segments",
            samples.len(),
            data.data_segments
        );
        assert!(samples.iter().all(|s| s.rtt_ms >= 40.0), "{samples:?}");
    }
    // Skip the first second (slow start) of the transfer.
    let (all, _) = analyse(&log, None, None, 0.5).unwrap();
    let (s, _) = analyse(&log, Some(all.from_s + 1.0), Some(all.to_s), 0.5).unwrap();
    // The plot command draws it.
    let status = Command::new(BIN).args(["plot", dir.to_str().unwrap(), "--bin", "250ms"]).output().unwrap();
    assert!(status.status.success(), "{}", text(&status.stderr));
    assert!(text(&status.stdout).contains("utilisation"), "{}", text(&status.stdout));
    for f in ["down-throughput.svg", "down-throughput.png", "down-delay.svg", "down-delay.png", "up-throughput.png"] {
        assert!(dir.join(f).exists(), "{f} missing");
    }
    s
}

#[test]
fn a_download_over_an_lte_trace_uses_its_capacity_and_its_delay_grows_with_the_buffer() {
    require_testbed();
    let _g = measure_lock();
    let small = trace_download(20, 8);
    let large = trace_download(400, 8);
    let u = large.utilization.unwrap();
    assert!(u > 0.9, "utilisation {u} with a 400-packet buffer: {large:?}");
    assert!(
        large.delay_p95_ms > 2.0 * small.delay_p95_ms,
        "p95 queueing delay {} ms (400 packets) vs {} ms (20 packets)",
        large.delay_p95_ms,
        small.delay_p95_ms
    );
}

// ---------------------------------------------------- fidelity vs rtac sim

#[test]
fn a_cubic_flow_agrees_with_the_simulator() {
    require_testbed();
    let _g = measure_lock();
    let secs = 10;
    let scenario = format!(
        "duration = \"{secs}s\"\ncontrollers = [\"none\"]\n[[link]]\nname = \"bn\"\nrate = \"50mbit\"\ndelay = \"20ms\"\n\
         queue = \"droptail:packets=200\"\n[[flow]]\ncc = \"cubic\"\n"
    );
    let sc = rtac_sim::scenario::parse_str(&scenario, "fidelity").unwrap();
    let sim = rtac_sim::run(&sc, &sc.controllers[0], &rtac_sim::RunOptions::default());
    let (sim_mbps, sim_rtt) = (sim.flows[0].throughput_mbps, sim.flows[0].rtt_mean_ms);
    let t = secs.to_string();
    // iperf3 switches the server's socket to CUBIC only after accepting it:
    // under a BBR default it would keep BBR's pacing (see the fidelity
    // benchmark), so the namespaces' default is reno.
    let out = run(&[
        "--sysctl",
        "net.ipv4.tcp_congestion_control=reno",
        "--down",
        "50mbit",
        "--up",
        "50mbit",
        "--delay",
        "20ms",
        "--queue",
        "droptail:packets=200",
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
        &t,
        "-J",
        "--get-server-output",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let j = iperf3_json(&out);
    let emu_mbps = j["end"]["sum_received"]["bits_per_second"].as_f64().unwrap() / 1e6;
    let emu_rtt = j["server_output_json"]["end"]["streams"][0]["sender"]["mean_rtt"].as_f64().unwrap() / 1e3;
    println!("sim {sim_mbps:.2} Mbit/s {sim_rtt:.1} ms; emu {emu_mbps:.2} Mbit/s {emu_rtt:.1} ms");
    // iperf3's figures come from wall clocks; the bounds are the fidelity
    // this test guards, and runs at a load average of 10-12 on 2 cores
    // stayed within them.
    assert!((emu_mbps / sim_mbps - 1.0).abs() < 0.10, "throughput: sim {sim_mbps} vs emu {emu_mbps} Mbit/s");
    assert!((emu_rtt / sim_rtt - 1.0).abs() < 0.20, "mean RTT: sim {sim_rtt} vs emu {emu_rtt} ms");
}
