//! The Must-show experiments, in network namespaces (root needed: the test
//! fails, naming what is missing, if it cannot create them):
//!
//! - curl (a 48 MiB file over HTTP) and iperf3 -R through a 50 Mbit/s tbf
//!   bottleneck with a 2 MiB buffer, Linux CUBIC sender: under
//!   `rtac run --controller rtac` the RTT a concurrent ping sees drops by at
//!   least 50 % against the default receiver, at 90 % or more of its
//!   throughput, and the download's sha256 matches;
//! - two iperf3 -R programs at once, one under RTAC and one with the
//!   default receiver: RTAC gets at least 80 % of the other's throughput
//!   (DRWA's share is printed beside it, and RTAC's when both start at the
//!   same instant);
//! - the receiver's CPU time at full veth speed with and without the shim.
//!
//! The figures are printed (`cargo test -p rtac-preload --test experiment
//! -- --nocapture`); `rtac-dev experiment` runs the longer version.

use rtac_agent::testbed::{run_experiments, ExperimentArgs, Report};

#[test]
fn must_show_figures() {
    let args = ExperimentArgs {
        file_mib: 48,
        iperf_secs: 8,
        fair_secs: 15,
        // CPU overhead is a benchmark figure (`rtac-dev experiment`), not
        // a timed assertion.
        overhead_runs: 0,
        rtac_bin: Some(env!("CARGO_BIN_EXE_rtac-dev").into()),
        preload: Some(preload()),
        ..ExperimentArgs::default()
    };
    let report = run_experiments(&args).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    check(&report);
}

fn preload() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    for p in [deps.join("librtac_preload.so"), deps.parent().unwrap().join("librtac_preload.so")] {
        if p.exists() {
            return p;
        }
    }
    panic!("librtac_preload.so not found next to {}", exe.display());
}

fn check(r: &Report) {
    for (name, runs) in [("curl", &r.curl), ("iperf3 -R", &r.iperf)] {
        let (d, c) = Report::pair(runs).unwrap_or_else(|| panic!("{name}: missing runs"));
        assert!(
            c.ping_median_ms <= 0.5 * d.ping_median_ms,
            "{name}: ping RTT {} vs {} ms",
            c.ping_median_ms,
            d.ping_median_ms
        );
        assert!(c.mbps >= 0.9 * d.mbps, "{name}: throughput {} vs {} Mbit/s", c.mbps, d.mbps);
    }
    assert_eq!(r.sha256_ok, Some(true), "the downloaded files' sha256");
    assert!(r.log_rows > 10, "the --log of the curl run");
    let rtac = r.fairness.iter().find(|f| f.controller == "rtac" && f.head_start > 0).expect("rtac fairness run");
    assert!(rtac.ratio() >= 0.8, "RTAC's throughput is {:.1} % of the default receiver's", rtac.ratio() * 100.0);
    assert!(r.fairness.iter().any(|f| f.controller == "drwa"), "DRWA's share is reported");
    assert!(r.overhead.is_none(), "overhead is measured by the benchmark, not here");
}
