//! The census harness: the generator's ranges and determinism, every drawn
//! network a valid scenario, a small census end to end (rows, resume, the
//! failing cases replaying with the same figures), and criteria that a
//! receiver doing nothing fails.

use rtac_census::out::Output;
use rtac_census::{draw, measure, run_network, scenario, Category, LinkService, Pool, Receiver, Settings, Traces};
use rtac_sim::scenario::load_file;
use std::path::{Path, PathBuf};

fn repo_traces() -> Vec<PathBuf> {
    rtac_census::trace_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/mahimahi"))
        .expect("the repository's traces")
}

fn settings(n: u64, receivers: &[&str]) -> Settings {
    Settings {
        seed: 7,
        n,
        categories: Category::ALL.to_vec(),
        pool: Pool { traces: repo_traces() },
        baseline: Receiver::parse(rtac_census::DEFAULT_BASELINE).unwrap(),
        receivers: receivers.iter().map(|r| Receiver::parse(r).unwrap()).collect(),
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rtac-census-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn draws_are_a_function_of_seed_and_index_and_stay_in_their_ranges() {
    let pool = Pool { traces: repo_traces() };
    let cats = Category::ALL;
    let mut seen = std::collections::BTreeSet::new();
    for i in 0..2000 {
        let a = draw(3, i, &cats, &pool);
        let b = draw(3, i, &cats, &pool);
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        assert_eq!(a.category, cats[(i % 8) as usize]);
        seen.insert(a.category);
        let rtt = 2.0 * a.delay_us as f64 / 1e3;
        if a.channel.is_some() {
            assert!(a.base_rtt_ms() > rtt + 1.0, "the channel's mean extra delay is part of the no-queue RTT");
        }
        match &a.service {
            LinkService::Rate(bps) => {
                assert!((1e6..=1e9).contains(bps), "{bps}");
                assert!((10.0..=400.0).contains(&rtt), "{rtt}");
            }
            LinkService::Trace(_) => assert!((10.0..=160.0).contains(&rtt), "{rtt}"),
        }
        if a.category == Category::Loss {
            assert!((1e-4..=1e-2).contains(&a.loss));
        }
        if a.category == Category::Multi {
            assert!((2..=6).contains(&a.count));
        }
    }
    assert_eq!(seen.len(), 8);
    assert_ne!(format!("{:?}", draw(3, 5, &cats, &pool)), format!("{:?}", draw(4, 5, &cats, &pool)));
}

#[test]
fn every_drawn_network_is_a_valid_scenario() {
    let s = settings(400, &["rtac", "drwa", "rtac:k=3e-7"]);
    let traces = Traces::default();
    for i in 0..400 {
        let net = s.network(i);
        let sc = scenario(&s, &net, &traces).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sc.controllers.len(), 4);
    }
}

/// A receiver that does nothing about the queue fails where there is bloat
/// to fix, and the baseline judged against itself passes only where its
/// RTT is already near the path's: the criteria can fail.
#[test]
fn a_receiver_that_leaves_the_queue_alone_fails_the_single_flow_criterion() {
    let s = Settings { categories: vec![Category::Fixed], ..settings(16, &["none", "autotuning:rmem_max=16384KB"]) };
    let traces = Traces::default();
    let mut none_pass = 0;
    for i in 0..16 {
        let r = run_network(&s, i, &traces).unwrap();
        none_pass += r.receivers[0].1.pass as usize;
        let same = &r.receivers[1].1;
        assert!((same.thr_ratio - 1.0).abs() < 1e-9, "the baseline against itself");
        let near_base = r.base.rtt_ms <= 1.6 * r.net.base_rtt_ms();
        assert_eq!(same.pass, near_base, "network {}: {}", i, r.net.describe());
    }
    assert!(none_pass <= 8, "no control passed {none_pass} of 16 fixed links");
}

#[test]
fn a_small_census_resumes_and_its_failing_cases_replay_with_the_same_figures() {
    let dir = temp_dir("resume");
    let s = settings(100, &["rtac", "drwa"]);
    let traces = Traces::default();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // The first 60 networks, then the census of 100 on the same directory.
    let (mut out, done) = Output::open(&dir, &s).unwrap();
    assert!(done.is_empty());
    let first: Vec<u64> = (0..60).collect();
    rtac_census::run_networks(&s, &first, threads, &traces, |r| out.record(&s, &r)).unwrap();
    assert!(Output::open(&dir, &s).is_err(), "a second writer is refused while the first holds the directory");
    drop(out);
    let (mut out, done) = Output::open(&dir, &s).unwrap();
    assert_eq!(done.len(), 60);
    let rest: Vec<u64> = (0..100).filter(|i| !done.iter().any(|r| r.net.index == *i)).collect();
    assert_eq!(rest.len(), 40);
    let mut results = done;
    rtac_census::run_networks(&s, &rest, threads, &traces, |r| {
        out.record(&s, &r)?;
        results.push(r);
        Ok(())
    })
    .unwrap();
    drop(out);
    // A kill mid-write leaves a cut line: dropped on resume.
    let csv = dir.join("networks.csv");
    std::fs::write(&csv, std::fs::read_to_string(&csv).unwrap() + "100,fixed,rtac,1.0").unwrap();
    let (out, again) = Output::open(&dir, &s).unwrap();
    assert_eq!(again.len(), 100);
    for r in &again {
        let fresh = results.iter().find(|x| x.net.index == r.net.index).unwrap();
        assert_eq!(
            r.receivers.iter().map(|x| x.1.pass).collect::<Vec<_>>(),
            fresh.receivers.iter().map(|x| x.1.pass).collect::<Vec<_>>()
        );
    }
    // Another census on the same directory is refused.
    drop(out);
    assert!(Output::open(&dir, &Settings { seed: 8, ..s.clone() }).is_err());
    // The report names every category.
    let text = rtac_census::report::text(&s, &again, 3, None);
    for c in Category::ALL {
        assert!(text.contains(c.name()), "{text}");
    }
    // Each failing case replays: same throughput and RTT.
    let mut replayed = 0;
    for r in again.iter() {
        for (i, rx) in s.receivers.iter().enumerate() {
            if r.receivers[i].1.pass || replayed >= 6 {
                continue;
            }
            let file = dir.join(Output::failure_name(r, rx));
            let sc = load_file(&file).unwrap_or_else(|e| panic!("{e}"));
            let choice = sc.controllers.iter().find(|c| c.label == rx.label).expect("the receiver's run");
            let m = measure(&r.net, &rtac_sim::run(&sc, choice, &Default::default()));
            assert!(
                (m.mbps - r.receivers[i].0.mbps).abs() < 1e-9,
                "{}: {} vs {}",
                file.display(),
                m.mbps,
                r.receivers[i].0.mbps
            );
            assert!((m.rtt_ms - r.receivers[i].0.rtt_ms).abs() < 1e-9);
            replayed += 1;
        }
    }
    assert!(replayed > 0, "a census of 100 networks with DRWA in it has failing cases");
    let _ = std::fs::remove_dir_all(&dir);
}
