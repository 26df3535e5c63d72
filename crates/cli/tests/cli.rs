//! Runs the built `rtac` binary on small scenarios and checks what it prints
//! and writes.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SMALL: &str = r#"
name = "small"
description = "two CUBIC flows through a 10 Mbit/s link"
duration = "3s"
measure_from = "1s"
seed = 3
controllers = ["autotuning", "rtac"]

[[link]]
name = "bn"
rate = "10mbit"
delay = "10ms"
queue = "droptail:packets=100"

[[flow]]
count = 2
cc = "cubic"
"#;

/// A fresh directory for one test.
fn temp_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("rtac-cli-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write_scenario(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn rtac(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rtac")).args(args).output().expect("the rtac binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

fn ok(o: Output) -> Output {
    assert!(o.status.success(), "rtac failed ({:?}):\n{}", o.status, stderr(&o));
    o
}

fn json(o: &Output) -> Value {
    serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("stdout is not one JSON document: {e}\n{}", stdout(o)))
}

fn bad_input(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(2), "expected exit 2, got {:?}\nstderr: {}", o.status, stderr(o));
    assert!(o.stdout.is_empty(), "nothing on stdout on error, got {}", stdout(o));
    let e = stderr(o);
    assert!(e.contains("rtac: error: "), "{e}");
    assert!(!e.contains("panicked"), "{e}");
    e
}

#[test]
fn json_output_has_the_documented_keys() {
    let dir = temp_dir("json-keys");
    let path = write_scenario(&dir, "small.toml", SMALL);
    let doc = json(&ok(rtac(&["sim", path.to_str().unwrap(), "--json"])));
    assert_eq!(doc["scenario"], "small");
    assert_eq!(doc["seed"], 3);
    assert_eq!(doc["base_rtt_ms"], 20.0);
    assert_eq!(doc["bottleneck"], "bn");
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for (run, label) in runs.iter().zip(["autotuning", "rtac"]) {
        assert_eq!(run["label"], label);
        assert_eq!(run["controller"], label);
        let flows = run["flows"].as_array().unwrap();
        assert_eq!(flows.len(), 2);
        for (i, f) in flows.iter().enumerate() {
            assert_eq!(f["id"], i);
            assert_eq!(f["controller"], label);
            assert_eq!(f["cc"], "cubic");
            for key in ["throughput_mbps", "rtt_mean_ms", "rtt_p50_ms", "rtt_p95_ms"] {
                assert!(f[key].is_number(), "flow {i} {key}: {}", f[key]);
            }
            assert!(f["retransmits"].is_u64());
            assert!(f["throughput_mbps"].as_f64().unwrap() > 0.0, "{f}");
        }
        let link = &run["link"];
        assert_eq!(link["name"], "bn");
        let u = link["utilization"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&u), "utilization {u}");
        assert!(link["queue_delay_mean_ms"].is_number());
        assert!(link["drops"].is_u64());
        assert!(run["wall_s"].as_f64().unwrap() >= 0.0);
        assert!(run["events"].as_u64().unwrap() > 0);
    }
}

/// The output without the wall-clock time, the one thing allowed to vary.
fn strip_wall(text: &str) -> String {
    text.lines().filter(|l| !l.trim_start().starts_with("\"wall_s\"")).collect::<Vec<_>>().join("\n")
}

#[test]
fn the_same_command_gives_the_same_json_and_another_seed_still_runs() {
    let dir = temp_dir("determinism");
    let path = write_scenario(&dir, "small.toml", SMALL);
    let p = path.to_str().unwrap();
    let a = ok(rtac(&["sim", p, "--json", "--threads", "2"]));
    let b = ok(rtac(&["sim", p, "--json", "--threads", "1"]));
    assert_eq!(strip_wall(&stdout(&a)), strip_wall(&stdout(&b)));
    let (mut ja, mut jb) = (json(&a), json(&b));
    for doc in [&mut ja, &mut jb] {
        for run in doc["runs"].as_array_mut().unwrap() {
            run.as_object_mut().unwrap().remove("wall_s").expect("wall_s present");
        }
    }
    assert_eq!(ja, jb);

    let c = json(&ok(rtac(&["sim", p, "--json", "--seed", "12345"])));
    assert_eq!(c["seed"], 12345);
    assert_eq!(c["runs"].as_array().unwrap().len(), 2);
}

#[test]
fn no_subcommand_is_sim() {
    let dir = temp_dir("no-subcommand");
    let path = write_scenario(&dir, "small.toml", SMALL);
    let doc = json(&ok(rtac(&[path.to_str().unwrap(), "--json", "--controller", "none"])));
    assert_eq!(doc["scenario"], "small");
    assert_eq!(doc["runs"][0]["label"], "none");
    let help = stdout(&ok(rtac(&["--help"])));
    assert!(help.contains("sim"), "{help}");
}

#[test]
fn the_text_report_has_the_tables_and_the_comparison() {
    let dir = temp_dir("text");
    let path = write_scenario(&dir, "small.toml", SMALL);
    let out = ok(rtac(&["sim", path.to_str().unwrap()]));
    let text = stdout(&out);
    for needle in [
        "scenario small",
        "base RTT 20.0 ms",
        "Mbit/s",
        "RTT mean ms",
        "p95 ms",
        "retransmits",
        "util %",
        "queue delay mean ms",
        "drops",
        "events/s",
        "x autotuning",
        "x base RTT",
    ] {
        assert!(text.contains(needle), "no {needle:?} in\n{text}");
    }
    assert!(text.lines().any(|l| l.starts_with("rtac ")), "{text}");
}

#[test]
fn controllers_and_params_from_the_command_line_replace_the_scenarios() {
    let dir = temp_dir("controllers");
    let path = write_scenario(&dir, "small.toml", SMALL);
    let p = path.to_str().unwrap();
    let o = ok(rtac(&["sim", p, "--json", "-c", "drwa", "-c", "drwa", "-c", "none", "--param", "drwa-2.lambda=2"]));
    let doc = json(&o);
    let labels: Vec<&str> = doc["runs"].as_array().unwrap().iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["drwa", "drwa-2", "none"]);
}

#[test]
fn unknown_controllers_and_parameters_are_errors_before_any_run() {
    let dir = temp_dir("unknown-controller");
    let path = write_scenario(&dir, "small.toml", SMALL);
    let p = path.to_str().unwrap();
    let e = bad_input(&rtac(&["sim", p, "--controller", "rtak"]));
    assert!(e.contains("rtak") && e.contains("known controllers: none, static, autotuning, drwa, rtac, drw"), "{e}");
    assert!(!e.contains("simulating"), "ran before failing: {e}");
    let e = bad_input(&rtac(&["sim", p, "--controller", "rtac:zzz=1"]));
    assert!(e.contains("zzz") && e.contains("its parameters"), "{e}");
    let e = bad_input(&rtac(&["sim", p, "--controller", "rtac:zzz"]));
    assert!(e.contains("zzz"), "{e}");
    let e = bad_input(&rtac(&["sim", p, "--param", "cubic.k=1"]));
    assert!(e.contains("no run is labelled \"cubic\"") && e.contains("autotuning, rtac"), "{e}");
    let e = bad_input(&rtac(&["sim", p, "--param", "rtac.nope=1"]));
    assert!(e.contains("nope"), "{e}");
}

#[test]
fn bad_scenario_files_exit_2_naming_the_file_and_the_field() {
    let dir = temp_dir("bad-scenario");
    let path = write_scenario(&dir, "broken.toml", &SMALL.replace("\"10mbit\"", "\"fast\""));
    let e = bad_input(&rtac(&["sim", path.to_str().unwrap()]));
    assert!(e.contains("broken.toml: link[0].rate: cannot read \"fast\""), "{e}");

    let path = write_scenario(&dir, "syntax.toml", "duration = \"3s\n");
    let e = bad_input(&rtac(&["sim", path.to_str().unwrap()]));
    assert!(e.contains("syntax.toml:1:"), "{e}");

    let missing = dir.join("no-such-file.toml");
    let e = bad_input(&rtac(&["sim", missing.to_str().unwrap()]));
    assert!(e.contains("no-such-file.toml"), "{e}");

    // A usage error from the argument parser also exits 2.
    let o = rtac(&["sim", "--threads", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn out_writes_time_series_and_the_summary() {
    let dir = temp_dir("out");
    let path = write_scenario(&dir, "small.toml", SMALL);
    let out = dir.join("results/nested");
    let o = ok(rtac(&["sim", path.to_str().unwrap(), "--json", "--out", out.to_str().unwrap()]));
    let doc = json(&o);
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["scenario"], doc["scenario"]);
    assert_eq!(summary["runs"].as_array().unwrap().len(), 2);
    for label in ["autotuning", "rtac"] {
        let flows = std::fs::read_to_string(out.join(format!("{label}-flows.csv"))).unwrap();
        let mut lines = flows.lines();
        assert_eq!(
            lines.next(),
            Some("t_s,flow,cwnd_bytes,rwnd_bytes,in_flight_bytes,srtt_ms,rx_rtt_ms,rx_window_bytes,delivered_bytes")
        );
        let rows: Vec<&str> = lines.collect();
        assert!(!rows.is_empty(), "{label}: no flow samples");
        assert!(rows.iter().all(|r| r.split(',').count() == 9), "{label}: {rows:?}");
        let links = std::fs::read_to_string(out.join(format!("{label}-links.csv"))).unwrap();
        let mut lines = links.lines();
        assert_eq!(lines.next(), Some("t_s,link,queue_packets,queue_bytes"));
        let rows: Vec<&str> = lines.collect();
        assert!(!rows.is_empty(), "{label}: no link samples");
        assert!(rows.iter().all(|r| r.split(',').count() == 4 && r.split(',').nth(1) == Some("bn")), "{rows:?}");
    }

    // --out naming a file is an error that names it, before any run.
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let e = bad_input(&rtac(&["sim", path.to_str().unwrap(), "--out", file.to_str().unwrap()]));
    assert!(e.contains("a-file") && e.contains("not a directory"), "{e}");
}

#[test]
fn out_is_all_or_nothing_when_a_file_is_in_the_way() {
    let dir = temp_dir("out-atomic");
    let path = write_scenario(&dir, "small.toml", SMALL);
    let out = dir.join("res");
    std::fs::create_dir_all(out.join("summary.json")).unwrap();
    let e = bad_input(&rtac(&["sim", path.to_str().unwrap(), "--out", out.to_str().unwrap()]));
    assert!(e.contains("summary.json exists and is not a regular file"), "{e}");
    let left: Vec<_> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["summary.json"], "nothing else was written");
    let beside: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(beside.len(), 2, "no staging directory is left: {beside:?}");

    // Into an existing directory, files are replaced and others kept.
    std::fs::remove_dir(out.join("summary.json")).unwrap();
    std::fs::write(out.join("rtac-flows.csv"), "old").unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    ok(rtac(&["sim", path.to_str().unwrap(), "--out", out.to_str().unwrap()]));
    assert!(std::fs::read_to_string(out.join("rtac-flows.csv")).unwrap().starts_with("t_s,flow,"));
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
    let mut names: Vec<_> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    let want = ["autotuning-flows.csv", "autotuning-links.csv", "notes.txt", "rtac-flows.csv", "rtac-links.csv"];
    assert_eq!(names[..5], want);
    assert_eq!(names[5], "summary.json");
}

#[test]
fn an_output_too_large_is_refused_before_the_run_with_its_size() {
    let dir = temp_dir("out-size");
    let path = write_scenario(&dir, "ns.toml", &SMALL.replace("seed = 3", "seed = 3\nsample_interval = \"1ns\""));
    let out = dir.join("res");
    let e = bad_input(&rtac(&["sim", path.to_str().unwrap(), "--out", out.to_str().unwrap()]));
    assert!(e.contains("rtac: warning: sample_interval: 1 ns is shorter than"), "{e}");
    assert!(e.contains("would write about 894.1 GB") && e.contains("--max-output 10.0 GB"), "{e}");
    assert!(e.contains("(3000000001 samples, one every 0.000000001 s, of 2 flows and 1 links, 2 runs)"), "{e}");
    assert!(!out.exists());
    // A limit that fits lets the same run go (a 100 ms sample interval: 31 instants).
    let path = write_scenario(&dir, "ms.toml", &SMALL.replace("seed = 3", "seed = 3\nsample_interval = \"100ms\""));
    let e = bad_input(&rtac(&["sim", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--max-output", "1KB"]));
    assert!(e.contains("about 9.7 KB") && e.contains("31 samples"), "{e}");
    ok(rtac(&["sim", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--max-output", "10KB"]));
    let rows = std::fs::read_to_string(out.join("rtac-flows.csv")).unwrap().lines().count();
    assert_eq!(rows, 1 + 31 * 2);
}

#[test]
fn statistics_without_samples_are_null_and_absurd_settings_warn() {
    let dir = temp_dir("null");
    let late = SMALL.replace("[[flow]]\ncount = 2", "[[flow]]\ncount = 1\n[[flow]]\nstart = \"2.999s\"");
    let path = write_scenario(&dir, "late.toml", &late);
    let o = ok(rtac(&["sim", path.to_str().unwrap(), "--json", "-c", "drwa:lambda=1e300"]));
    let e = stderr(&o);
    assert!(e.contains("rtac: warning: run drwa: controller drwa: lambda=1e300 is outside 1..=100"), "{e}");
    let doc = json(&o);
    let flows = doc["runs"][0]["flows"].as_array().unwrap();
    assert!(flows[0]["rtt_mean_ms"].is_f64() && flows[0]["rtt_samples"].as_u64().unwrap() > 0);
    assert_eq!(flows[1]["rtt_samples"], 0);
    for k in ["rtt_mean_ms", "rtt_p50_ms", "rtt_p95_ms"] {
        assert!(flows[1][k].is_null(), "{k}: {}", flows[1][k]);
    }
}

/// Runs `rtac args` and waits at most a minute for it: a command that
/// blocks (on a FIFO, say) is killed and fails the test.
fn rtac_within_a_minute(args: &[&str]) -> Output {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_rtac"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the rtac binary runs");
    for _ in 0..600 {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    child.kill().unwrap();
    let o = child.wait_with_output().unwrap();
    panic!("rtac {args:?} did not end within a minute; stderr: {}", stderr(&o));
}

fn mkfifo(path: &Path) {
    let o = Command::new("mkfifo").arg(path).output().expect("mkfifo runs");
    assert!(o.status.success(), "mkfifo: {}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_fifo_or_a_device_as_scenario_or_trace_is_refused_at_once() {
    let dir = temp_dir("fifo");
    let fifo = dir.join("pipe");
    mkfifo(&fifo);
    let e = bad_input(&rtac_within_a_minute(&["sim", fifo.to_str().unwrap()]));
    assert!(e.contains("pipe: cannot read the scenario: is a FIFO (named pipe), not a regular file"), "{e}");
    let on_fifo = write_scenario(&dir, "t.toml", &SMALL.replace("rate = \"10mbit\"", "trace = \"pipe\""));
    let e = bad_input(&rtac_within_a_minute(&["sim", on_fifo.to_str().unwrap()]));
    assert!(e.contains("t.toml: link[0].trace: cannot read trace") && e.contains("pipe: is a FIFO"), "{e}");
    let on_zero = write_scenario(&dir, "z.toml", &SMALL.replace("rate = \"10mbit\"", "trace = \"/dev/zero\""));
    let e = bad_input(&rtac_within_a_minute(&["sim", on_zero.to_str().unwrap()]));
    assert!(e.contains("trace /dev/zero: is a character device, not a regular file"), "{e}");
    // A sweep naming a FIFO as its scenario.
    let sweep = write_scenario(&dir, "sweep.toml", "scenario = \"pipe\"\n");
    let out = dir.join("out");
    let e = bad_input(&rtac_within_a_minute(&["sweep", sweep.to_str().unwrap(), "--out", out.to_str().unwrap()]));
    assert!(e.contains("pipe: cannot read the scenario: is a FIFO"), "{e}");
}

#[test]
fn a_long_input_is_echoed_cut_with_its_length() {
    let dir = temp_dir("echo");
    let long = "y".repeat(100_000);
    for args in [
        vec!["sim".to_string(), "-c".to_string(), long.clone()],
        vec!["sim".to_string(), "-c".to_string(), format!("rtac:k={long}")],
        vec!["sim".to_string(), "-c".to_string(), format!("rtac:{long}=1")],
        vec!["sim".to_string(), "-p".to_string(), format!("rtac.k={long}")],
        vec!["sim".to_string(), long.clone()],
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let e = bad_input(&rtac(&args));
        assert!(e.len() < 2000 && e.contains(" bytes)"), "{} bytes: {}", e.len(), &e[..e.len().min(3000)]);
    }
    let sweep = write_scenario(&dir, "sweep.toml", &format!("scenario = \"{long}\"\n"));
    let out = dir.join("out");
    let e = bad_input(&rtac(&["sweep", sweep.to_str().unwrap(), "--out", out.to_str().unwrap()]));
    assert!(e.len() < 2000 && e.contains("yyy... (1000"), "{} bytes: {}", e.len(), &e[..e.len().min(3000)]);
}

#[test]
fn per_flow_fq_codel_with_100000_flows_runs_in_bounded_memory() {
    // Each user's queue has 1024 buckets: made up front, 100,000 queues
    // would take about 10 GB; under a 4 GiB address space the run must
    // still finish.
    let dir = temp_dir("fq-codel-many");
    let path = write_scenario(
        &dir,
        "many.toml",
        "duration = \"1us\"\ncontrollers = [\"none\"]\n[[link]]\nrate = \"100mbit\"\nqueue = \"fq_codel\"\n\
         per_flow = \"rr\"\n[[flow]]\ncount = 100000\n",
    );
    let bin = env!("CARGO_BIN_EXE_rtac");
    let script = format!("ulimit -v 4194304 && exec '{bin}' sim '{}' --threads 1", path.display());
    let o = Command::new("sh").args(["-c", &script]).output().unwrap();
    assert!(o.status.success(), "{:?}: {}", o.status, stderr(&o));
    assert!(stdout(&o).contains("none"), "{}", stdout(&o));
}

#[test]
fn a_killed_out_run_leaves_a_staging_directory_that_the_next_run_removes() {
    let dir = temp_dir("stale-staging");
    let path = write_scenario(&dir, "small.toml", SMALL);
    let long = write_scenario(&dir, "long.toml", &SMALL.replace("duration = \"3s\"", "duration = \"3600s\""));
    let out = dir.join("res");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rtac"))
        .args(["sim", long.to_str().unwrap(), "--out", out.to_str().unwrap(), "--threads", "1"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let staging = dir.join(format!(".res.rtac-out-{}", child.id()));
    // Wait (at most a minute) for the run to write its time series.
    let csv = staging.join("rtac-flows.csv");
    for _ in 0..600 {
        if csv.metadata().is_ok_and(|m| m.len() > 0) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(csv.exists(), "the killed run left {}", staging.display());
    // A directory of the same pattern that this program did not make (no
    // lock file in it) is not touched.
    let foreign = dir.join(".res.rtac-out-4000000");
    std::fs::create_dir_all(&foreign).unwrap();
    ok(rtac(&["sim", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "-c", "none", "-c", "rtac"]));
    assert!(!staging.exists(), "{} is left", staging.display());
    assert!(foreign.exists());
    // A rerun with fewer runs leaves only its own runs' files beside its
    // summary; files that no summary listed stay.
    std::fs::write(out.join("notes.csv"), "mine").unwrap();
    ok(rtac(&["sim", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "-c", "none"]));
    let mut names: Vec<_> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["none-flows.csv", "none-links.csv", "notes.csv", "summary.json"]);
}

const SWEEP_SMALL: &str = "scenario = \"small.toml\"\nseeds = [1, 2]\n";

#[test]
fn a_second_sweep_on_one_directory_is_refused_naming_the_first() {
    let dir = temp_dir("sweep-lock");
    write_scenario(&dir, "small.toml", &SMALL.replace("duration = \"3s\"", "duration = \"3600s\""));
    let sweep = write_scenario(&dir, "sweep.toml", SWEEP_SMALL);
    let out = dir.join("out");
    let mut first = Command::new(env!("CARGO_BIN_EXE_rtac"))
        .args(["sweep", sweep.to_str().unwrap(), "--out", out.to_str().unwrap(), "--threads", "1"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait (at most a minute) until the first sweep holds the directory.
    let lock = out.join(".rtac-sweep.lock");
    let pid = first.id().to_string();
    for _ in 0..600 {
        if std::fs::read_to_string(&lock).is_ok_and(|t| t.trim() == pid) && out.join("_scenario.toml").exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let second = rtac(&["sweep", sweep.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    first.kill().unwrap();
    first.wait().unwrap();
    let e = bad_input(&second);
    assert!(e.contains(&format!("out: another sweep (process {pid}) is writing to this directory")), "{e}");
}

#[test]
fn a_sweep_resumes_after_an_empty_scenario_file_and_with_a_line_break_in_a_grid_value() {
    let dir = temp_dir("sweep-resume");
    write_scenario(&dir, "small.toml", SMALL);
    let sweep = write_scenario(
        &dir,
        "sweep.toml",
        &format!("{SWEEP_SMALL}[grid]\ndescription = [\"two\\nlines\", \"a \\\"quote\\\", a comma\"]\n"),
    );
    let out = dir.join("out");
    // What a full disk leaves: an empty scenario.toml, no runs.
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("scenario.toml"), "").unwrap();
    let o = ok(rtac(&["sweep", sweep.to_str().unwrap(), "--out", out.to_str().unwrap()]));
    assert!(stderr(&o).contains("8 runs (2 grid points), 0 already in"), "{}", stderr(&o));
    let o = ok(rtac(&["sweep", sweep.to_str().unwrap(), "--out", out.to_str().unwrap()]));
    assert!(stderr(&o).contains("8 runs (2 grid points), 8 already in"), "{}", stderr(&o));
}

#[test]
fn an_argument_error_quotes_a_long_argument_cut() {
    let long = "y".repeat(100_000);
    for args in
        [vec!["sim", "--seed", &long], vec!["sim", "a.toml", &long], vec!["sweep", "s.toml", "--out", "o", &long]]
    {
        let o = rtac(&args);
        assert_eq!(o.status.code(), Some(2), "{}", &stderr(&o)[..300]);
        let e = stderr(&o);
        assert!(e.len() < 2000 && e.contains("yyy... (1000"), "{} bytes: {}", e.len(), &e[..e.len().min(3000)]);
    }
    // Help and version still go to stdout, whole.
    let o = ok(rtac(&["sim", "--help"]));
    assert!(stdout(&o).contains("--max-output"));
}

#[test]
fn plot_and_emu_refuse_a_fifo_or_a_device_at_once() {
    let dir = temp_dir("plot-fifo");
    let fifo = dir.join("pipe");
    mkfifo(&fifo);
    for log in [fifo.to_str().unwrap(), "/dev/zero"] {
        let o = rtac_within_a_minute(&["plot", log]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains(": not a regular file"), "{}", stderr(&o));
        // Refused while its arguments are read, before anything is set up.
        let o = rtac_within_a_minute(&["emu", "--down", log, "true"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("readable trace file (not a regular file)"), "{}", stderr(&o));
    }
}
