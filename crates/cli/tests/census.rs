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

/// A census directory as `rtac census --out` leaves it, with `rtac`'s
/// verdicts `(pass, catastrophic)` on fixed networks 0, 1, 2, ...
fn census_dir(test: &str, seed: u64, verdicts: &[(u8, u8)]) -> PathBuf {
    census_dir_with(test, seed, "autotuning", verdicts)
}

/// [`census_dir`] judged against `baseline`.
fn census_dir_with(test: &str, seed: u64, baseline: &str, verdicts: &[(u8, u8)]) -> PathBuf {
    let dir = temp_dir(test);
    std::fs::create_dir_all(&dir).unwrap();
    let id = format!(
        "# rtac census\nformat = 2\nseed = {seed}\ncategories = [\"fixed\"]\nbaseline = \"{baseline}\"\ncontrollers = [\"rtac\"]\ntraces = []\n"
    );
    std::fs::write(dir.join("census.toml"), id).unwrap();
    let mut rows = String::from(
        "index,category,receiver,mbps,rtt_ms,share,jain,pass,catastrophic,thr_ratio,rtt_ratio,wall_s,network\n",
    );
    for (i, (pass, cat)) in verdicts.iter().enumerate() {
        rows.push_str(&format!("{i},fixed,autotuning,10,100,,,,,,,0.1,\"net\"\n"));
        rows.push_str(&format!("{i},fixed,rtac,10,50,,,{pass},{cat},1.0,0.5,0.1,\"net\"\n"));
    }
    std::fs::write(dir.join("networks.csv"), rows).unwrap();
    dir
}

#[test]
fn census_compare_counts_flips_network_by_network_and_refuses_another_draw() {
    let before = census_dir("cmp-before", 5, &[(1, 0), (1, 0), (0, 1), (0, 0), (1, 0), (1, 0)]);
    let after = census_dir("cmp-after", 5, &[(1, 0), (0, 0), (1, 0), (1, 0), (1, 0), (1, 0)]);
    let o = rtac().args(["census", "--compare"]).arg(&before).arg(&after).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    // 4 of 6 pass before, 5 after; two now pass, one now fails; the
    // catastrophic case is gone. An uneven split of three flips is no
    // evidence: p = 2 (1 + 3) / 8 = 1.
    let fixed = out.lines().find(|l| l.starts_with("fixed")).unwrap_or_else(|| panic!("no fixed row:\n{out}"));
    let cells: Vec<&str> = fixed.split_whitespace().collect();
    assert_eq!(cells, ["fixed", "6", "66.7%", "83.3%", "2", "1", "1.000", "1", "->", "0"], "{out}");
    // Another seed drew other networks: an error that names the field.
    let other = census_dir("cmp-other", 6, &[(1, 0)]);
    let o = rtac().args(["census", "--compare"]).arg(&before).arg(&other).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("`seed` is 6") && err.contains("drew different networks"), "{err}");
    // The same networks judged against another baseline: verdicts that do
    // not pair.
    let judged = census_dir_with("cmp-judged", 5, "autotuning:rmem_max=16MB", &[(1, 0)]);
    let o = rtac().args(["census", "--compare"]).arg(&before).arg(&judged).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("`baseline` is \"autotuning:rmem_max=16MB\"") && err.contains("different baselines"), "{err}");
    for d in [before, after, other, judged] {
        let _ = std::fs::remove_dir_all(d);
    }
}
