//! Runs `rtac sweep` on a small sweep and checks its CSV against `rtac sim`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SMALL: &str = r#"
name = "small"
duration = "2s"
seed = 3
controllers = ["autotuning", "rtac"]

[[link]]
name = "bn"
rate = "10mbit"
delay = "10ms"
queue = "droptail:packets=300"

[[flow]]
cc = "cubic"
"#;

const SWEEP: &str = r#"
scenario = "small.toml"
seeds = [1, 2]
[grid]
"link[0].rate" = ["5mbit", "20mbit"]
"#;

fn temp_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("rtac-sweep-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("small.toml"), SMALL).unwrap();
    dir
}

fn rtac(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rtac")).args(args).output().expect("the rtac binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

/// The CSV as (header, rows of cells); no cell of this sweep is quoted.
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let t = std::fs::read_to_string(path).unwrap();
    let mut lines = t.lines().map(|l| l.split(',').map(String::from).collect::<Vec<_>>());
    let header = lines.next().unwrap();
    (header, lines.collect())
}

#[test]
fn a_sweep_writes_every_run_once_matches_rtac_sim_and_resumes() {
    let dir = temp_dir("resume");
    let sweep = dir.join("sweep.toml");
    std::fs::write(&sweep, SWEEP).unwrap();
    let out = dir.join("out");
    let o = rtac(&["sweep", sweep.to_str().unwrap(), "--out", out.to_str().unwrap(), "--threads", "2"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let (header, rows) = read_csv(&out.join("runs.csv"));
    assert_eq!(&header[..3], ["link[0].rate", "seed", "run_key"]);
    assert_eq!(rows.len(), 8, "2 rates x 2 seeds x 2 controllers, one flow each");
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let mut keys: Vec<&str> = rows.iter().map(|r| r[col("run_key")].as_str()).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 8);

    // The row of (20mbit, seed 2, rtac) is what `rtac sim` reports for it.
    let row = rows.iter().find(|r| r[col("run_key")] == "link[0].rate=20mbit;seed=2;run=rtac").unwrap();
    let scenario = dir.join("fast.toml");
    std::fs::write(&scenario, SMALL.replace("10mbit", "20mbit")).unwrap();
    let sim = rtac(&["sim", scenario.to_str().unwrap(), "--seed", "2", "--controller", "rtac", "--json"]);
    assert!(sim.status.success(), "{}", text(&sim.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&sim.stdout).unwrap();
    let flow = &doc["runs"][0]["flows"][0];
    for key in ["throughput_mbps", "rtt_mean_ms", "rtt_p95_ms"] {
        let csv: f64 = row[col(key)].parse().unwrap();
        let json = flow[key].as_f64().unwrap();
        assert!((csv - json).abs() <= 1e-9 * json.abs().max(1.0), "{key}: sweep {csv}, sim {json}");
    }
    let bytes: u64 = row[col("bytes_delivered")].parse().unwrap();
    assert_eq!(bytes, flow["bytes_delivered"].as_u64().unwrap());
    // The slower link delivers less: the override reached the simulation.
    let slow = rows.iter().find(|r| r[col("run_key")] == "link[0].rate=5mbit;seed=2;run=rtac").unwrap();
    assert!(slow[col("bytes_delivered")].parse::<u64>().unwrap() < bytes / 2);

    // A rerun finds every run done; a cut-off run is redone.
    let o = rtac(&["sweep", sweep.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success());
    assert!(text(&o.stderr).contains("8 already in"), "{}", text(&o.stderr));
    let csv = out.join("runs.csv");
    let t = std::fs::read_to_string(&csv).unwrap();
    let cut = &t[..t.trim_end().rfind('\n').unwrap() + 20];
    std::fs::write(&csv, cut).unwrap();
    let o = rtac(&["sweep", sweep.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(text(&o.stderr).contains("7 already in"), "{}", text(&o.stderr));
    // The redone run gives the same figures (wall time aside).
    let without_wall = |mut rs: Vec<Vec<String>>| {
        rs.iter_mut().for_each(|r| {
            r.remove(col("wall_s"));
        });
        rs.sort();
        rs
    };
    assert_eq!(without_wall(read_csv(&csv).1), without_wall(rows));
}

#[test]
fn bad_sweeps_exit_2_naming_the_file_and_field_before_any_run() {
    let dir = temp_dir("bad");
    let out = dir.join("out");
    let cases = [
        (SWEEP.replace("\"5mbit\"", "\"fast\""), "small.toml: link[0].rate: cannot read \"fast\""),
        (SWEEP.replace("link[0].rate", "link[1].rate"), "small.toml: link[1]: no such entry: link has 1 entry"),
        (SWEEP.replace("link[0].rate", "flow[0].cc").replace("5mbit", "vegas9"), "small.toml: flow[0].cc: "),
        (SWEEP.replace("seeds", "sedes"), "sweep.toml: sedes: unknown key"),
    ];
    for (doc, needle) in cases {
        let sweep = dir.join("sweep.toml");
        std::fs::write(&sweep, &doc).unwrap();
        let o = rtac(&["sweep", sweep.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{doc}");
        let e = text(&o.stderr);
        assert!(e.contains(needle), "{needle:?} not in {e}");
        assert!(!out.join("runs.csv").exists(), "nothing is written before every point is valid");
    }
}
