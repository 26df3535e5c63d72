//! What the simulator's benches share: runs over seeds and their
//! statistics.

use rtac_sim::{run_all, RunOptions, RunResult, Scenario};
use std::path::{Path, PathBuf};

pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `sc` once per seed 1..=seeds; returns the runs of each seed.
pub fn runs(mut sc: Scenario, seeds: u64) -> Vec<Vec<RunResult>> {
    (1..=seeds)
        .map(|seed| {
            sc.seed = seed;
            run_all(&sc, &RunOptions::default(), threads())
        })
        .collect()
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// A distribution-free 95 % confidence interval of the median of `v`: the
/// order statistics x_(j) and x_(n+1-j) (1-based) with the largest j for
/// which a Binomial(n, 1/2) count falls below j with probability at most
/// 2.5 %. `None` below six values, where no such j exists.
pub fn median_ci(mut v: Vec<f64>) -> Option<(f64, f64)> {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    // P(Bin(n, 1/2) <= i), summed term by term: C(n, i) / 2^n, in logs
    // (2^-n underflows from n = 1075 on).
    let mut ln_term = -(n as f64) * std::f64::consts::LN_2;
    let mut below = 0.0;
    let mut j = 0;
    for i in 0..n {
        below += ln_term.exp();
        if below > 0.025 {
            break;
        }
        j = i + 1;
        ln_term += ((n - i) as f64 / (i + 1) as f64).ln();
    }
    (j >= 1).then(|| (v[j - 1], v[n - j]))
}

pub fn total_mbps(r: &RunResult) -> f64 {
    r.flows.iter().map(|f| f.throughput_mbps).sum()
}

/// Mean RTT over all flows, weighted by their sample counts.
pub fn mean_rtt(r: &RunResult) -> f64 {
    let n: u64 = r.flows.iter().map(|f| f.rtt_samples).sum();
    r.flows.iter().map(|f| f.rtt_mean_ms * f.rtt_samples as f64).sum::<f64>() / n.max(1) as f64
}

/// `f` applied to the run labelled `label`, one value per seed.
pub fn values(seeds: &[Vec<RunResult>], label: &str, f: impl Fn(&RunResult) -> f64) -> Vec<f64> {
    seeds.iter().map(|runs| f(runs.iter().find(|r| r.label == label).expect("label"))).collect()
}

/// The recorded downlink traces in the repository's `traces/mahimahi`.
pub fn recorded() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/mahimahi");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "down"))
        .collect();
    files.sort();
    files
}
