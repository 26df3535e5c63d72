use super::*;

const DOC: &str = r#"
name = "tiny"
duration = "2s"
controllers = ["autotuning", "rtac"]
[[link]]
rate = "20mbit"
delay = "10ms"
queue = "droptail:packets=200"
[[flow]]
cc = "cubic"
"#;

fn sweep(grid: Vec<(&str, Vec<Value>)>, seeds: Option<Vec<u64>>) -> Sweep {
    Sweep {
        source: Source::text(DOC, "tiny.toml", None).unwrap(),
        grid: grid.into_iter().map(|(f, v)| (f.to_string(), v)).collect(),
        seeds,
        controllers: None,
    }
}

fn s(x: &str) -> Value {
    Value::String(x.to_string())
}

#[test]
fn the_plan_is_the_product_of_grid_seeds_and_controllers() {
    let p = sweep(vec![("link[0].rate", vec![s("10mbit"), s("40mbit")])], Some(vec![0, 1, 2])).plan().unwrap();
    assert_eq!(p.jobs.len(), 12);
    assert_eq!(p.jobs[0].key, "link[0].rate=10mbit;seed=0;run=autotuning");
    assert_eq!(p.jobs[11].key, "link[0].rate=40mbit;seed=2;run=rtac");
    assert_eq!(p.points[1].scenario.links[0].rate.bps(), 40_000_000);
    let keys: std::collections::HashSet<_> = p.jobs.iter().map(|j| &j.key).collect();
    assert_eq!(keys.len(), 12);
    // The last field varies fastest.
    let p = sweep(
        vec![("link[0].rate", vec![s("10mbit"), s("40mbit")]), ("flow[0].cc", vec![s("cubic"), s("reno")])],
        None,
    )
    .plan()
    .unwrap();
    let cc: Vec<_> = p.points.iter().map(|pt| pt.scenario.flows[0].cc.name()).collect();
    assert_eq!(cc, ["cubic", "reno", "cubic", "reno"]);
    assert!(p.jobs.iter().all(|j| j.seed == 1), "without seeds, the scenario's seed");
}

#[test]
fn a_job_runs_its_point_with_its_seed_and_controller() {
    let p = sweep(vec![("link[0].rate", vec![s("5mbit"), s("40mbit")])], Some(vec![3])).plan().unwrap();
    let slow = p.run(1, &RunOptions::default());
    let fast = p.run(3, &RunOptions::default());
    assert_eq!((slow.label.as_str(), fast.label.as_str()), ("rtac", "rtac"));
    assert!(slow.flows[0].throughput_mbps < 5.0 && fast.flows[0].throughput_mbps > 10.0);
    let rows = p.rows(3, &fast);
    let cols = p.columns();
    assert_eq!(p.schema().len(), cols.len());
    assert_eq!(rows[0].len(), cols.len());
    assert_eq!(&cols[..4], ["link[0].rate", "link[0].rate_mbps", "seed", "run_key"]);
    assert_eq!(rows[0][0], columns::Cell::Str("40mbit".into()));
    assert_eq!(rows[0][1], columns::Cell::Float(40.0));
    assert_eq!(rows[0][2], columns::Cell::Int(3));
    let at = |c: &str| cols.iter().position(|x| x == c).unwrap();
    assert_eq!(rows[0][at("label")], columns::Cell::Str("rtac".into()));
    assert_eq!(rows[0][at("link")], columns::Cell::Str("link0".into()));
    // Same job, same result; the parallel runner gives every job once.
    let mut seen = Vec::new();
    p.run_parallel(&[0, 1, 2, 3], 2, &RunOptions::default(), |i, r| {
        seen.push(i);
        if i == 3 {
            assert_eq!(r.flows, fast.flows);
        }
        Ok::<(), ()>(())
    })
    .unwrap();
    seen.sort();
    assert_eq!(seen, [0, 1, 2, 3]);
}

#[test]
fn bad_points_fail_the_plan_naming_the_field() {
    let e = sweep(vec![("link[0].rate", vec![s("10mbit"), s("fast")])], None).plan().unwrap_err().to_string();
    assert!(e.starts_with("tiny.toml: link[0].rate: cannot read \"fast\""), "{e}");
    let e = sweep(vec![("flow[1].cc", vec![s("reno")])], None).plan().unwrap_err().to_string();
    assert_eq!(e, "tiny.toml: flow[1]: no such entry: flow has 1 entry");
    let e = sweep(vec![("link[0].queue", vec![s("droptail:packets=-1")])], None).plan().unwrap_err().to_string();
    assert!(e.starts_with("tiny.toml: link[0].queue: "), "{e}");
    let e = sweep(vec![("seed", vec![Value::Integer(1)])], Some(vec![1])).plan().unwrap_err().to_string();
    assert!(e.contains("seed: seeds are given separately"), "{e}");
    let e = sweep(vec![("link[0].rate", vec![])], None).plan().unwrap_err().to_string();
    assert!(e.contains("no values"), "{e}");
    let e = sweep(vec![("link[0].rate", vec![s("1mbit"), s("2mbit"), s("1mbit")])], None).plan().unwrap_err();
    assert!(e.to_string().ends_with("link[0].rate: the grid gives the value 1mbit twice"), "{e}");
    let e = sweep(vec![], Some(vec![3, 1, 3])).plan().unwrap_err().to_string();
    assert!(e.ends_with("seeds: seed 3 is given twice"), "{e}");
    let mut big = sweep(vec![], Some((0..100_000).collect()));
    big.grid = vec![("link[0].delay".into(), (0..21).map(|i| s(&format!("{i}ms"))).collect())];
    let e = big.plan().unwrap_err().to_string();
    assert!(e.contains("21 grid points x 100000 seeds is more than 2000000 runs"), "{e}");
}

#[test]
fn points_share_one_copy_of_each_trace() {
    let dir = std::env::temp_dir().join(format!("rtac-sweep-trace-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.down"), "1\n2\n3\n").unwrap();
    std::fs::write(dir.join("b.down"), "1\n1\n2\n").unwrap();
    let mut sw = sweep(vec![("link[0].delay", vec![s("1ms"), s("2ms"), s("3ms")])], None);
    sw.source.base = Some(dir.clone());
    sw.grid.push(("link[0].trace".into(), vec![s("a.down"), s("b.down")]));
    sw.source.doc["link"].as_array_mut().unwrap()[0].as_table_mut().unwrap().remove("rate");
    let p = sw.plan().unwrap();
    let trace = |i: usize| match &p.points[i].scenario.links[0].service {
        rtac_sim::scenario::Service::Trace(t) => t.clone(),
        other => panic!("{other:?}"),
    };
    assert!(std::sync::Arc::ptr_eq(&trace(0), &trace(2)) && std::sync::Arc::ptr_eq(&trace(1), &trace(5)));
    assert!(!std::sync::Arc::ptr_eq(&trace(0), &trace(1)));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn output_directories_resume_and_refuse_another_scenario() {
    let dir = std::env::temp_dir().join(format!("rtac-sweep-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let p = sweep(vec![("link[0].rate", vec![s("10mbit")])], Some(vec![1, 2])).plan().unwrap();
    out::prepare_dir(&dir, &p).unwrap();
    let (mut csv, done, _) = out::CsvOut::open(&dir, &p).unwrap();
    assert!(done.is_empty());
    let r = p.run(0, &RunOptions::default());
    csv.append(&p.rows(0, &r)).unwrap();
    drop(csv);
    // An interrupted write leaves a cut line: it is dropped on reopening.
    let csv_path = dir.join(out::CSV_FILE);
    let mut text = std::fs::read_to_string(&csv_path).unwrap();
    text.push_str("10mbit,2,partial");
    std::fs::write(&csv_path, &text).unwrap();
    let (_, done, _) = out::CsvOut::open(&dir, &p).unwrap();
    assert_eq!(done.into_iter().collect::<Vec<_>>(), [p.jobs[0].key.clone()]);
    assert_eq!(std::fs::read_to_string(&csv_path).unwrap().lines().count(), 2);
    // Another grid (other columns) or another scenario is refused.
    let other = sweep(vec![], None).plan().unwrap();
    let e = out::CsvOut::open(&dir, &other).err().unwrap().to_string();
    assert!(e.contains("runs.csv: has other columns than this sweep (another grid?): its column 1 is \"link[0].rate\", this sweep's is \"seed\""), "{e}");
    let mut changed = sweep(vec![], None);
    changed.source.doc.insert("seed".into(), Value::Integer(5));
    let e = out::prepare_dir(&dir, &changed.plan().unwrap()).unwrap_err().to_string();
    assert!(e.contains("scenario.toml: holds runs of a different scenario"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sweep_files_name_their_errors() {
    let dir = std::env::temp_dir().join(format!("rtac-sweep-file-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("tiny.toml"), DOC).unwrap();
    let write = |text: &str| {
        let f = dir.join("sweep.toml");
        std::fs::write(&f, text).unwrap();
        file::load(&f)
    };
    let sw =
        write("scenario = \"tiny.toml\"\nseeds = 2\n[grid]\n\"link[0].rate\" = [\"10mbit\", \"40mbit\"]\n").unwrap();
    assert_eq!(sw.plan().unwrap().jobs.len(), 8);
    let e = write("scenario = \"tiny.toml\"\nseed = 2\n").unwrap_err().to_string();
    assert!(e.ends_with("sweep.toml: seed: unknown key; known keys: scenario, seeds, controllers, grid"), "{e}");
    let e = write("scenario = \"tiny.toml\"\nseeds = [1, -2]\n").unwrap_err().to_string();
    assert!(e.contains("sweep.toml: seeds[1]: expected an integer >= 0"), "{e}");
    let e = write("scenario = \"tiny.toml\"\n[grid]\n\"link[0].rate\" = \"10mbit\"\n").unwrap_err().to_string();
    assert!(e.contains("sweep.toml: grid.\"link[0].rate\": expected an array"), "{e}");
    let e = write("scenario = \"nowhere.toml\"\n").unwrap_err().to_string();
    assert!(e.contains("nowhere.toml: cannot read the scenario"), "{e}");
    let e = write("seeds = 2\n").unwrap_err().to_string();
    assert!(e.contains("sweep.toml: scenario: missing"), "{e}");
    let sw = write("scenario = \"tiny.toml\"\ncontrollers = [\"rtak\"]\n").unwrap();
    let e = sw.plan().unwrap_err().to_string();
    assert!(e.contains("tiny.toml: controllers[0]: unknown controller \"rtak\""), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn scratch(test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rtac-sweep-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_second_writer_of_one_directory_is_refused_until_the_first_is_done() {
    let dir = scratch("lock");
    let p = sweep(vec![], Some(vec![1])).plan().unwrap();
    let first = out::open_dir(&dir, &p).unwrap();
    // flock locks belong to an open file, so a second open in this same
    // process conflicts just as another process would.
    let e = out::open_dir(&dir, &p).unwrap_err().to_string();
    let me = std::process::id();
    assert!(
        e.contains(&format!("rtac-sweep-lock-{me}: another sweep (process {me}) is writing to this directory")),
        "{e}"
    );
    drop(first);
    let again = out::open_dir(&dir, &p).unwrap();
    drop(again);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_empty_or_cut_scenario_file_without_runs_is_written_anew() {
    let dir = scratch("empty-scenario");
    let p = sweep(vec![], Some(vec![1])).plan().unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join(out::SCENARIO_FILE);
    for cut in ["", "name = \"ti"] {
        std::fs::write(&scenario, cut).unwrap();
        // A header alone is no run.
        std::fs::write(dir.join(out::CSV_FILE), "a,b\n").unwrap();
        out::open_dir(&dir, &p).unwrap();
        assert_eq!(std::fs::read_to_string(&scenario).unwrap(), p.document);
    }
    // No temporary file is left beside it.
    let names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    // With a run in runs.csv, a cut _scenario.toml is kept and refused.
    std::fs::write(&scenario, "").unwrap();
    std::fs::write(dir.join(out::CSV_FILE), "a,b\n1,2\n").unwrap();
    let e = out::open_dir(&dir, &p).unwrap_err().to_string();
    assert!(e.contains("scenario.toml: holds runs of a different scenario"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_grid_value_with_a_line_break_resumes() {
    let dir = scratch("newline");
    let p = sweep(vec![("description", vec![s("two\nlines"), s("say \"x\", y")])], Some(vec![1])).plan().unwrap();
    out::prepare_dir(&dir, &p).unwrap();
    let (mut csv, done, _) = out::CsvOut::open(&dir, &p).unwrap();
    assert!(done.is_empty());
    for i in 0..p.jobs.len() {
        csv.append(&p.rows(i, &p.run(i, &RunOptions::default()))).unwrap();
    }
    drop(csv);
    let (_, done, _) = out::CsvOut::open(&dir, &p).unwrap();
    let mut keys: Vec<_> = p.jobs.iter().map(|j| j.key.clone()).collect();
    let mut found: Vec<_> = done.into_iter().collect();
    keys.sort();
    found.sort();
    assert_eq!(found, keys);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

fn keys(p: &Plan) -> std::collections::HashSet<String> {
    p.jobs.iter().map(|j| j.key.clone()).collect()
}

#[test]
fn parquet_parts_hold_every_run_once_and_resume() {
    let dir = scratch("parquet");
    let p = sweep(vec![("link[0].rate", vec![s("10mbit"), s("40mbit")])], Some(vec![1])).plan().unwrap();
    let _lock = out::open_dir(&dir, &p).unwrap();
    let t0 = std::time::Instant::now();
    let (mut pq, found) = parts::ParquetOut::open(&dir, &p, t0).unwrap();
    assert!(found.done.is_empty() && found.parts.is_empty());
    let mut first = Vec::new();
    for i in 0..2 {
        let rows = p.rows(i, &p.run(i, &RunOptions::default()));
        first.extend(rows.clone());
        pq.add(rows, t0).unwrap();
    }
    assert!(parts::parts(&dir).unwrap().is_empty(), "no part before one is due");
    // Due FLUSH_EVERY after the last part: the rows waiting are one part.
    pq.add(Vec::new(), t0 + parts::FLUSH_EVERY).unwrap();
    let written = parts::parts(&dir).unwrap();
    assert_eq!(written.len(), 1);
    assert_eq!(parts::read_rows(&written[0], &p.schema()).unwrap(), first);
    for i in 2..4 {
        pq.add(p.rows(i, &p.run(i, &RunOptions::default())), t0).unwrap();
    }
    pq.flush(t0).unwrap();
    drop(pq);
    assert_eq!(parts::parts(&dir).unwrap().len(), 2);
    // What a writer stopped mid-part leaves is removed on opening.
    let stale = dir.join(".part-1-2-00000.parquet.2.tmp");
    std::fs::write(&stale, "cut").unwrap();
    let (_, found) = parts::ParquetOut::open(&dir, &p, t0).unwrap();
    assert!(!stale.exists());
    assert_eq!(found.done, keys(&p));
    assert!(found.upgraded.is_empty());

    // A part of another grid is refused, naming the column; so is a CSV
    // sweep into this directory.
    let other = sweep(vec![("link[0].delay", vec![s("5ms")])], Some(vec![1])).plan().unwrap();
    let e = parts::ParquetOut::open(&dir, &other, t0).err().unwrap().to_string();
    assert!(e.contains("has other columns than this sweep (another grid?): its column 1 is \"link[0].rate\", this sweep's is \"link[0].delay\""), "{e}");
    let e = out::CsvOut::open(&dir, &p).err().unwrap().to_string();
    assert!(e.contains("this directory holds Parquet parts"), "{e}");
    assert!(!dir.join(out::CSV_FILE).exists());
    assert_eq!(out::Format::found_in(&dir).unwrap(), Some(out::Format::Parquet));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_csv_sweep_directory_is_refused_for_parquet() {
    let dir = scratch("csv-not-parquet");
    let p = sweep(vec![], Some(vec![1])).plan().unwrap();
    let _lock = out::open_dir(&dir, &p).unwrap();
    drop(out::CsvOut::open(&dir, &p).unwrap());
    assert_eq!(out::Format::found_in(&dir).unwrap(), Some(out::Format::Csv));
    let e = parts::ParquetOut::open(&dir, &p, std::time::Instant::now()).err().unwrap().to_string();
    assert!(e.contains("runs.csv: this directory holds a CSV sweep (`rtac sweep --format csv`)"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The sweep that wrote `tests/data/older-*`: `old.toml` with two rates
/// and seed 1.
fn older_plan() -> Plan {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let sw = Sweep {
        source: Source::file(&data.join("old.toml")).unwrap(),
        grid: vec![("link[0].rate".into(), vec![s("5mbit"), s("20mbit")])],
        seeds: Some(vec![1]),
        controllers: None,
    };
    sw.plan().unwrap()
}

#[test]
fn parquet_parts_of_an_older_rtac_resume_with_the_numeric_grid_columns() {
    // Written by `rtac.sweep(out=DIR)` before the numeric grid columns: no
    // link[0].rate_mbps, and completion_s (no flow finished) of pyarrow's
    // null type.
    let dir = scratch("older-python");
    copy_dir(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/older-python"), &dir);
    let p = older_plan();
    let _lock = out::open_dir(&dir, &p).unwrap();
    let (_, found) = parts::ParquetOut::open(&dir, &p, std::time::Instant::now()).unwrap();
    assert_eq!(found.done, keys(&p));
    assert_eq!(found.upgraded, found.parts);
    let rows = parts::read_rows(&found.parts[0], &p.schema()).unwrap();
    let cols = p.columns();
    let at = |c: &str| cols.iter().position(|x| x == c).unwrap();
    let rates: Vec<_> =
        rows.iter().map(|r| (r[at("link[0].rate")].clone(), r[at("link[0].rate_mbps")].clone())).collect();
    use columns::Cell::{Float, Str};
    assert_eq!(
        rates,
        [
            (Str("5mbit".into()), Float(5.0)),
            (Str("5mbit".into()), Float(5.0)),
            (Str("20mbit".into()), Float(20.0)),
            (Str("20mbit".into()), Float(20.0))
        ]
    );
    assert!(rows.iter().all(|r| r[at("completion_s")] == columns::Cell::Null));
    // Rewritten once: the next opening finds this sweep's columns and types.
    let (_, again) = parts::ParquetOut::open(&dir, &p, std::time::Instant::now()).unwrap();
    assert!(again.upgraded.is_empty());
    assert_eq!(again.done, keys(&p));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_runs_csv_of_an_older_rtac_resumes_with_the_numeric_grid_columns() {
    // Written by `rtac sweep` before the numeric grid columns, with the
    // start of a row an interrupted run left.
    let dir = scratch("older-csv");
    copy_dir(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/older-csv"), &dir);
    let csv = dir.join(out::CSV_FILE);
    let old = std::fs::read_to_string(&csv).unwrap();
    std::fs::write(&csv, format!("{old}20mbit,1,link[0].rate=20mbit;seed=1;run=cut")).unwrap();
    let p = older_plan();
    let _lock = out::open_dir(&dir, &p).unwrap();
    let (mut sink, done, upgraded) = out::CsvOut::open(&dir, &p).unwrap();
    assert!(upgraded);
    assert_eq!(done, keys(&p));
    // Appending goes on after the rewritten rows.
    sink.append(&p.rows(0, &p.run(0, &RunOptions::default()))).unwrap();
    drop(sink);
    let text = std::fs::read_to_string(&csv).unwrap();
    let (records, complete) = out::records(&text);
    assert_eq!(complete, text.len());
    assert_eq!(records[0].1, p.columns());
    assert_eq!(records.len(), 1 + 4 + 1);
    let old_rows = out::records(&old).0;
    for ((_, new), (_, was)) in records[1..5].iter().zip(&old_rows[1..]) {
        assert_eq!(new[0], was[0]);
        assert_eq!(new[1], if was[0] == "5mbit" { "5" } else { "20" }, "link[0].rate_mbps");
        assert_eq!(new[2..], was[1..], "every other cell as it was");
    }
    // Rewritten once: the next opening finds this sweep's header.
    let (_, done, upgraded) = out::CsvOut::open(&dir, &p).unwrap();
    assert!(!upgraded);
    assert_eq!(done, keys(&p));
    std::fs::remove_dir_all(&dir).unwrap();
}
