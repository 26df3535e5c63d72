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
    assert_eq!(claims.len(), 4, "RTAC and DRWA in LTE and Wi-Fi");
    for c in claims {
        for key in ["id", "source", "paper"] {
            assert!(c[key].is_string(), "{key} in {c}");
        }
        assert!(c["measured"].is_object() && c["holds"].is_boolean(), "{c}");
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
    for id in ["rtac-fig3", "rtac-fig6", "rtac-fig8", "rtac-fig9", "rtac-fig11"] {
        assert!(s.contains(id), "{id} listed");
    }
}
