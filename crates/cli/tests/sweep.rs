//! Runs `rtac sweep` on a small sweep: its Parquet dataset and its CSV
//! against each other and against `rtac sim`, resuming, the directories of
//! an older rtac, and bad sweeps.

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
    let o =
        rtac(&["sweep", sweep.to_str().unwrap(), "--out", out.to_str().unwrap(), "--threads", "2", "--format", "csv"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains(&format!("as CSV: pd.read_csv(\"{}\")", out.join("runs.csv").display())));
    let (header, rows) = read_csv(&out.join("runs.csv"));
    assert_eq!(&header[..4], ["link[0].rate", "link[0].rate_mbps", "seed", "run_key"]);
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
    assert_eq!((slow[1].as_str(), row[1].as_str()), ("5", "20"), "link[0].rate_mbps");

    // A rerun finds every run done, in the format it finds (no --format);
    // a cut-off run is redone.
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
        assert!(!out.exists(), "nothing is written before every point is valid");
    }
}

/// The Parquet parts of `dir` as rows of `sweep`'s columns, read back with
/// the parquet crate's reader, sorted by `run_key`.
fn read_parquet(dir: &Path, sweep: &Path) -> (Vec<String>, Vec<Vec<rtac_sweep::columns::Cell>>) {
    let plan = rtac_sweep::file::load(sweep).unwrap().plan().unwrap();
    let schema = plan.schema();
    let at = plan.columns().iter().position(|c| c == "run_key").unwrap();
    let mut rows = Vec::new();
    for part in rtac_sweep::parts::parts(dir).unwrap() {
        rows.extend(rtac_sweep::parts::read_rows(&part, &schema).unwrap());
    }
    rows.sort_by_key(|r| format!("{:?}", r[at]));
    (plan.columns(), rows)
}

fn names(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    n.sort();
    n
}

#[test]
fn parquet_is_the_default_one_dataset_with_the_rows_of_the_csv() {
    use rtac_sweep::columns::Cell;
    let dir = temp_dir("parquet");
    let sweep = dir.join("sweep.toml");
    std::fs::write(&sweep, SWEEP.replace("seeds = [1, 2]", "seeds = [1]")).unwrap();
    let out = dir.join("out");
    let o = rtac(&["sweep", sweep.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains(&format!("as Parquet parts: pd.read_parquet(\"{}\")", out.display())));
    // Rows only in part-*.parquet; the rest starts with _ or ., which
    // Parquet readers skip.
    let n = names(&out);
    assert_eq!(n[..2], [".rtac-sweep.lock", "_scenario.toml"]);
    assert!(n[2..].iter().all(|p| p.starts_with("part-") && p.ends_with(".parquet")), "{n:?}");
    let (columns, rows) = read_parquet(&out, &sweep);
    assert_eq!(rows.len(), 4);
    let col = |name: &str| columns.iter().position(|h| h == name).unwrap();
    let rates: Vec<(Cell, Cell)> =
        rows.iter().map(|r| (r[col("link[0].rate")].clone(), r[col("link[0].rate_mbps")].clone())).collect();
    assert!(rates.contains(&(Cell::Str("5mbit".into()), Cell::Float(5.0))), "{rates:?}");
    assert!(rates.contains(&(Cell::Str("20mbit".into()), Cell::Float(20.0))), "{rates:?}");
    assert!(matches!(rows[0][col("bytes_delivered")], Cell::Int(b) if b > 0));
    assert!(matches!(rows[0][col("seed")], Cell::Int(1)));

    // The same sweep as CSV: the same cells, as text.
    let csv_out = dir.join("csv");
    let o = rtac(&["sweep", sweep.to_str().unwrap(), "--out", csv_out.to_str().unwrap(), "--format", "csv"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let (header, mut csv_rows) = read_csv(&csv_out.join("runs.csv"));
    assert_eq!(header, columns);
    csv_rows.sort_by_key(|r| format!("{:?}", r[col("run_key")]));
    for (p, c) in rows.iter().zip(&csv_rows) {
        for (i, name) in columns.iter().enumerate().filter(|(_, n)| *n != "wall_s") {
            let cell = match &p[i] {
                Cell::Str(s) => s.clone(),
                Cell::Int(n) => n.to_string(),
                Cell::Float(x) => x.to_string(),
                Cell::Bool(b) => b.to_string(),
                Cell::Null => String::new(),
            };
            assert_eq!(cell, c[i], "{name}");
        }
    }

    // More seeds into the same directory: a part with the new runs only.
    std::fs::write(&sweep, SWEEP).unwrap();
    let o = rtac(&["sweep", sweep.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(text(&o.stderr).contains("8 runs (2 grid points), 4 already in"), "{}", text(&o.stderr));
    let (_, all) = read_parquet(&out, &sweep);
    assert_eq!(all.len(), 8);
    let mut keys: Vec<String> = all.iter().map(|r| format!("{:?}", r[col("run_key")])).collect();
    keys.dedup();
    assert_eq!(keys.len(), 8, "every run once");

    // One format per directory: CSV into Parquet parts, and the reverse, are
    // refused before any run.
    let o = rtac(&["sweep", sweep.to_str().unwrap(), "--out", out.to_str().unwrap(), "--format", "csv"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("this directory holds Parquet parts (part-*.parquet) of a Parquet sweep"));
    let o = rtac(&["sweep", sweep.to_str().unwrap(), "--out", csv_out.to_str().unwrap(), "--format", "parquet"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("runs.csv: this directory holds a CSV sweep (`rtac sweep --format csv`)"));
}

#[test]
fn directories_of_an_older_rtac_resume_with_the_numeric_grid_columns() {
    // Written before the numeric grid columns: by `rtac.sweep(out=DIR)`
    // (crates/sweep/tests/data/older-python) and by `rtac sweep`
    // (older-csv), of old.toml at two rates and seed 1.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sweep/tests/data");
    let dir = temp_dir("older");
    std::fs::copy(data.join("old.toml"), dir.join("old.toml")).unwrap();
    let sweep = dir.join("sweep.toml");
    std::fs::write(
        &sweep,
        "scenario = \"old.toml\"\nseeds = [1]\n[grid]\n\"link[0].rate\" = [\"5mbit\", \"20mbit\"]\n",
    )
    .unwrap();
    for (older, note) in [
        ("older-python", "rewrote 1 part of"),
        ("older-csv", "added the numeric grid columns (link[0].rate_mbps) to the rows already in"),
    ] {
        let out = dir.join(older);
        std::fs::create_dir_all(&out).unwrap();
        for f in std::fs::read_dir(data.join(older)).unwrap() {
            let f = f.unwrap();
            std::fs::copy(f.path(), out.join(f.file_name())).unwrap();
        }
        let o = rtac(&["sweep", sweep.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        let e = text(&o.stderr);
        assert!(o.status.success(), "{older}: {e}");
        assert!(e.contains(note) && e.contains("4 runs (2 grid points), 4 already in"), "{older}: {e}");
        let o = rtac(&["sweep", sweep.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert!(!text(&o.stderr).contains(note), "{older}: upgraded once");
    }
    let (columns, rows) = read_parquet(&dir.join("older-python"), &sweep);
    let at = columns.iter().position(|c| c == "link[0].rate_mbps").unwrap();
    assert!(rows.iter().all(|r| matches!(r[at], rtac_sweep::columns::Cell::Float(x) if x == 5.0 || x == 20.0)));
    let (header, rows) = read_csv(&dir.join("older-csv").join("runs.csv"));
    assert_eq!(header, columns);
    assert!(rows.iter().all(|r| r[at] == "5" || r[at] == "20"));
}
