//! The census report: pass rates per category and receiver with a 95 %
//! interval, catastrophic single-flow failures, and the worst cases.

use crate::judge::badness;
use crate::out::Output;
use crate::{Category, NetworkResult, Settings};
use std::fmt::Write;

/// Wilson's 95 % score interval for `k` successes in `n` trials, in
/// percent: it stays inside [0, 100] and is sound for small n and for
/// rates near 0 or 1, unlike the normal approximation.
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 100.0);
    }
    let (k, n, z) = (k as f64, n as f64, 1.96_f64);
    let p = k / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    (100.0 * (centre - half).max(0.0), 100.0 * (centre + half).min(1.0))
}

/// Pass counts of receiver `i` over `results` restricted to `cat`.
pub fn passes(results: &[NetworkResult], i: usize, cat: Option<Category>) -> (usize, usize) {
    let sel: Vec<&NetworkResult> = results.iter().filter(|r| cat.is_none_or(|c| r.net.category == c)).collect();
    (sel.iter().filter(|r| r.receivers[i].1.pass).count(), sel.len())
}

/// The report as text. `worst` cases are listed per receiver (0: none).
pub fn text(s: &Settings, results: &[NetworkResult], worst: usize, out: Option<&Output>) -> String {
    let mut t = String::new();
    let wall: f64 = results.iter().map(|r| r.wall_s).sum();
    let _ = writeln!(
        t,
        "census of {} networks drawn from seed {} ({} CPU s of simulation); baseline: {}",
        results.len(),
        s.seed,
        wall.round(),
        s.baseline.spec
    );
    let _ = writeln!(t, "pass rate per category, % (95 % interval); criteria in docs/CENSUS.md\n");
    let width = s.receivers.iter().map(|r| r.spec.len()).max().unwrap_or(0).max(18);
    let _ = write!(t, "{:<8} {:>6}", "category", "n");
    for r in &s.receivers {
        let _ = write!(t, "  {:>width$}", r.spec);
    }
    t.push('\n');
    let mut cats: Vec<Option<Category>> = s.categories.iter().map(|c| Some(*c)).collect();
    cats.sort();
    cats.dedup();
    cats.push(None);
    for cat in cats {
        let n = results.iter().filter(|r| cat.is_none_or(|c| r.net.category == c)).count();
        if n == 0 {
            continue;
        }
        let _ = write!(t, "{:<8} {:>6}", cat.map_or("all", |c| c.name()), n);
        for i in 0..s.receivers.len() {
            let (k, n) = passes(results, i, cat);
            let (lo, hi) = wilson(k, n);
            let cell = format!("{:.1} ({lo:.0}-{hi:.0})", 100.0 * k as f64 / n as f64);
            let _ = write!(t, "  {cell:>width$}");
        }
        t.push('\n');
    }
    let single: Vec<&NetworkResult> = results.iter().filter(|r| r.net.category.single_flow()).collect();
    if !single.is_empty() {
        let _ = write!(
            t,
            "\ncatastrophic single-flow cases (throughput < 0.5 x or mean RTT > 1.1 x the baseline's), of {}:",
            single.len()
        );
        for (i, r) in s.receivers.iter().enumerate() {
            let k = single.iter().filter(|x| x.receivers[i].1.catastrophic).count();
            let _ = write!(t, " {} {k} ({:.2} %);", r.spec, 100.0 * k as f64 / single.len() as f64);
        }
        t.pop();
        t.push('\n');
    }
    for (i, rx) in s.receivers.iter().enumerate().filter(|_| worst > 0) {
        let mut failing: Vec<&NetworkResult> = results.iter().filter(|r| !r.receivers[i].1.pass).collect();
        if failing.is_empty() {
            continue;
        }
        failing.sort_by(|a, b| badness(&b.receivers[i].1).total_cmp(&badness(&a.receivers[i].1)));
        let _ = writeln!(t, "\nworst cases of {} ({} failing):", rx.spec, failing.len());
        for r in failing.iter().take(worst) {
            let (m, v) = &r.receivers[i];
            let share = match (m.share, r.base.share) {
                (Some(a), Some(b)) => format!(", share {a:.2} (baseline's {b:.2})"),
                _ => String::new(),
            };
            let jain = m.jain.map_or(String::new(), |j| format!(", Jain {j:.2}"));
            let file =
                out.map_or(String::new(), |o| format!(" -> {}", o.dir().join(Output::failure_name(r, rx)).display()));
            let _ = writeln!(
                t,
                "  #{} {}: {}: {:.2} Mbit/s ({:.2} x), {:.1} ms ({:.2} x; baseline {:.1} ms){share}{jain}{}{file}",
                r.net.index,
                r.net.category,
                r.net.describe(),
                m.mbps,
                v.thr_ratio,
                m.rtt_ms,
                v.rtt_ratio,
                r.base.rtt_ms,
                if v.catastrophic { " CATASTROPHIC" } else { "" }
            );
        }
    }
    if out.is_none() && results.iter().any(|r| r.receivers.iter().any(|(_, v)| !v.pass)) {
        let _ = writeln!(t, "\n(--out DIR writes each failing case as a scenario file that `rtac sim` replays)");
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_holds_the_rate_and_stays_in_range() {
        let (lo, hi) = wilson(95, 100);
        assert!(lo > 88.0 && lo < 95.0 && hi > 95.0 && hi < 99.0, "{lo} {hi}");
        assert_eq!(wilson(0, 10).0, 0.0);
        assert!(wilson(10, 10).1 <= 100.0);
    }
}
