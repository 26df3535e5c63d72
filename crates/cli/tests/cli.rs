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
