//! `rtac reproduce`: files, JSON and errors, on the quick single-flow study.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn temp_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("rtac-reproduce-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rtac(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rtac")).args(args).output().expect("rtac runs")
}

#[test]
fn quick_study_writes_report_plots_and_claims_json() {
    let dir = temp_dir("files");
    let out = dir.join("out");
    let o = rtac(&["reproduce", "--quick", "--only", "rtac-fig6", "--json", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).expect("stdout is one JSON document");
    let claims = v["claims"].as_array().expect("claims array");
    assert_eq!(claims.len(), 6, "RTAC, RTAC with Delta and DRWA in LTE and Wi-Fi");
    assert_eq!(v["seeds"], serde_json::json!([1, 2, 3, 4, 5]), "five seeds by default, quick mode too");
    for c in claims {
        for key in ["id", "source", "paper", "verdict"] {
            assert!(c[key].is_string(), "{key} in {c}");
        }
        assert!(c["measured"].is_object() && c["holds"].is_boolean(), "{c}");
        assert_eq!(c["seeds"], 5, "{c}");
        let ci = c["ci95"].as_object().expect("ci95 object");
        for (k, mean) in c["measured"].as_object().unwrap() {
            let iv = ci[k].as_array().expect("an interval per measured figure");
            let (lo, hi, m) = (iv[0].as_f64().unwrap(), iv[1].as_f64().unwrap(), mean.as_f64().unwrap());
            assert!(lo <= m + 1e-9 && m <= hi + 1e-9, "{k}: mean {m} in [{lo}, {hi}]");
        }
        assert!(!c["checks"].as_array().unwrap().is_empty(), "every claim can fail: {c}");
    }
    let rtac_lte = claims.iter().find(|c| c["id"] == "rtac-fig6/lte-rtac").expect("RTAC LTE claim");
    assert_eq!(rtac_lte["holds"], true, "{rtac_lte}");
    for f in ["report.md", "report.html", "claims.json", "plots/rtac-fig6-lte.png", "plots/rtac-fig6-wifi.svg"] {
        assert!(out.join(f).is_file(), "{f} written");
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("rtac-fig6/lte-rtac"), "self-contained HTML with the claim");
    let png = std::fs::read(out.join("plots/rtac-fig6-lte.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
}

/// The claims of one quick study as JSON, without the wall time.
fn claims_of(study: &str, seeds: &str, dir: &Path) -> Value {
    let o =
        rtac(&["reproduce", "--quick", "--only", study, "--seeds", seeds, "--json", "--out", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut v: Value = serde_json::from_slice(&o.stdout).unwrap();
    v.as_object_mut().unwrap().remove("wall_s");
    v
}

#[test]
fn seeds_change_the_runs_and_the_same_seeds_replay_them() {
    let dir = temp_dir("seeds");
    // Web requests arrive at seeded times: two seeds differ, so the
    // interval of the mean fetch time has width; a rerun is identical.
    let a = claims_of("drwa-fig10", "2", &dir.join("a"));
    let b = claims_of("drwa-fig10", "2", &dir.join("b"));
    assert_eq!(a, b, "the same seeds replay the same runs");
    let c = a["claims"].as_array().unwrap().iter().find(|c| c["id"] == "drwa-fig10/slowdown").unwrap();
    let iv = c["ci95"]["alone_s"].as_array().unwrap();
    assert!(iv[0].as_f64().unwrap() < iv[1].as_f64().unwrap(), "seeds 1 and 2 differ: {c}");
    let one = claims_of("drwa-fig10", "1", &dir.join("c"));
    let c1 = one["claims"].as_array().unwrap().iter().find(|c| c["id"] == "drwa-fig10/slowdown").unwrap();
    assert_eq!(c1["seeds"], 1);
    assert!(c1["ci95"].as_object().unwrap().is_empty(), "one seed has no interval");
}

#[test]
fn zero_seeds_is_an_error() {
    let dir = temp_dir("zero-seeds");
    let o = rtac(&["reproduce", "--quick", "--only", "rtac-fig6", "--seeds", "0", "--out", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--seeds"), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn an_unknown_study_is_an_error_listing_the_known_ones() {
    let dir = temp_dir("bad-id");
    let o = rtac(&["reproduce", "--only", "rtac-fig99", "--out", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("unknown study \"rtac-fig99\"") && e.contains("rtac-fig6"), "{e}");
}

#[test]
fn an_output_path_that_is_a_file_is_an_error() {
    let dir = temp_dir("bad-out");
    let file = dir.join("file");
    std::fs::write(&file, "x").unwrap();
    let o = rtac(&["reproduce", "--quick", "--only", "rtac-fig6", "--out", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("exists and is not a directory"));
}

#[test]
fn list_names_every_study() {
    let o = rtac(&["reproduce", "--list"]);
    assert!(o.status.success());
    let s = String::from_utf8_lossy(&o.stdout);
    for id in [
        "rtac-fig1",
        "rtac-fig3",
        "rtac-fig6",
        "rtac-fig8",
        "rtac-fig9",
        "rtac-fig10",
        "rtac-fig11",
        "rtac-fig12",
        "rtac-fig13",
        "drwa-fig13",
        "drwa-fig14",
        "tcpgt-fig7",
        "tcpgt-fig8",
        "tcpgt-fig12",
        "tcpgt-friendliness",
    ] {
        assert!(s.contains(id), "{id} listed");
    }
}
