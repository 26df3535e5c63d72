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
    assert_eq!(rows[0].len(), cols.len());
    assert_eq!(rows[0][0], columns::Cell::Str("40mbit".into()));
    assert_eq!(rows[0][1], columns::Cell::Int(3));
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
    let (mut csv, done) = out::CsvOut::open(&dir, &p.columns()).unwrap();
    assert!(done.is_empty());
    let r = p.run(0, &RunOptions::default());
    csv.append(&p.rows(0, &r)).unwrap();
    drop(csv);
    // An interrupted write leaves a cut line: it is dropped on reopening.
    let csv_path = dir.join(out::CSV_FILE);
    let mut text = std::fs::read_to_string(&csv_path).unwrap();
    text.push_str("10mbit,2,partial");
    std::fs::write(&csv_path, &text).unwrap();
    let (_, done) = out::CsvOut::open(&dir, &p.columns()).unwrap();
    assert_eq!(done.into_iter().collect::<Vec<_>>(), [p.jobs[0].key.clone()]);
    assert_eq!(std::fs::read_to_string(&csv_path).unwrap().lines().count(), 2);
    // Another grid (other columns) or another scenario is refused.
    let other = sweep(vec![], None).plan().unwrap();
    let e = out::CsvOut::open(&dir, &other.columns()).err().unwrap().to_string();
    assert!(e.contains("runs.csv: has other columns"), "{e}");
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
    let (mut csv, done) = out::CsvOut::open(&dir, &p.columns()).unwrap();
    assert!(done.is_empty());
    for i in 0..p.jobs.len() {
        csv.append(&p.rows(i, &p.run(i, &RunOptions::default()))).unwrap();
    }
    drop(csv);
    let (_, done) = out::CsvOut::open(&dir, &p.columns()).unwrap();
    let mut keys: Vec<_> = p.jobs.iter().map(|j| j.key.clone()).collect();
    let mut found: Vec<_> = done.into_iter().collect();
    keys.sort();
    found.sort();
    assert_eq!(found, keys);
    std::fs::remove_dir_all(&dir).unwrap();
}
