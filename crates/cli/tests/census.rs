//! `rtac census` as a user runs it: a small census end to end through the
//! binary, resumed without rerunning, and its input errors.

use std::path::{Path, PathBuf};
use std::process::Command;

fn rtac() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rtac"));
    // The repository's traces, as a user in a clone has them.
    c.current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."));
    c
}

fn temp_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("rtac-census-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_small_census_prints_every_category_and_resumes_without_running_again() {
    let dir = temp_dir("small");
    let run = || {
        rtac()
            .args(["census", "-n", "24", "--seed", "5", "-c", "rtac", "-c", "drwa", "--out"])
            .arg(&dir)
            .output()
            .unwrap()
    };
    let first = run();
    let out = String::from_utf8_lossy(&first.stdout);
    let err = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{out}\n{err}");
    for c in ["fixed", "jitter", "trace", "loss", "aqm", "bbr", "shared", "multi", "all"] {
        assert!(out.lines().any(|l| l.starts_with(c)), "no {c} row:\n{out}");
    }
    assert!(err.contains("4 trace files"), "the repository's traces are found: {err}");
    let rows = std::fs::read_to_string(dir.join("networks.csv")).unwrap();
    assert_eq!(rows.lines().count(), 1 + 24 * 3, "a header and three rows per network");
    let second = run();
    assert!(second.status.success());
    let err2 = String::from_utf8_lossy(&second.stderr);
    assert!(err2.contains("24 already done, 0 to run"), "{err2}");
    assert_eq!(String::from_utf8_lossy(&second.stdout), out, "the resumed report is the same");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn census_input_errors_name_the_option_and_what_is_wrong() {
    let cases: [(&[&str], &str); 4] = [
        (&["census", "--category", "wired"], "unknown category \"wired\"; known: fixed, jitter"),
        (&["census", "-c", "rtac:kk=1"], "controller \"rtac:kk=1\""),
        (&["census", "-n", "0"], "--n: 0 networks"),
        (&["census", "--traces", "/nonexistent/traces"], "/nonexistent/traces: cannot read the trace directory"),
    ];
    for (args, want) in cases {
        let o = rtac().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}
