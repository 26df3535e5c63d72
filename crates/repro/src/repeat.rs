//! Repetition: a study analysed once per seed, its claims merged into means
//! with 95 % confidence intervals and a verdict on those intervals, its
//! table into means with half-widths.

use crate::stats::{combine, mean_ci, Verdict};
use crate::{Analysis, Claim, Plots, Results, SeedRuns, Study, StudyError};
use std::path::Path;

/// Analyses `study` on every seed's runs (plots from the first pass, which
/// see every seed through `Results::across`) and merges the outcomes.
pub fn analyse(study: &Study, seeds: &[SeedRuns], plots: &Path) -> Result<Analysis, StudyError> {
    let mut passes = Vec::with_capacity(seeds.len());
    for i in 0..seeds.len() {
        let p = if i == 0 { Plots::to(plots) } else { Plots::none() };
        passes.push((study.analyse)(&Results::new(seeds, i), &p)?);
    }
    merge(passes).ok_or_else(|| StudyError("no seed ran".into()))
}

/// One analysis from several seeds' analyses of the same study.
fn merge(mut passes: Vec<Analysis>) -> Option<Analysis> {
    if passes.len() <= 1 {
        return passes.pop();
    }
    let claims = passes[0].claims.iter().map(|c| merge_claim(c, &passes)).collect();
    let table = merge_table(&passes);
    let first = passes.swap_remove(0);
    Some(Analysis { claims, table, ..first })
}

/// `c` (from the first seed) with every seed's measured figures averaged.
fn merge_claim(c: &Claim, passes: &[Analysis]) -> Claim {
    let same: Vec<&Claim> = passes.iter().filter_map(|a| a.claims.iter().find(|x| x.id == c.id)).collect();
    let mut measured = Vec::new();
    let mut ci95 = Vec::new();
    for (key, _) in &c.measured {
        let xs: Vec<f64> =
            same.iter().filter_map(|x| x.measured.iter().find(|(k, _)| k == key).map(|(_, v)| *v)).collect();
        let (mean, ci) = mean_ci(&xs);
        measured.push((key.clone(), mean));
        if let Some(ci) = ci {
            ci95.push((key.clone(), ci));
        }
    }
    let verdict = verdict(&c.checks, &measured, &ci95, same.len());
    Claim { measured, ci95, seeds: same.len(), verdict, ..c.clone() }
}

/// The verdict of `checks` on the intervals (or, for one seed, the values).
pub(crate) fn verdict(
    checks: &[crate::Check],
    measured: &[(String, f64)],
    ci95: &[(String, [f64; 2])],
    seeds: usize,
) -> Verdict {
    combine(checks.iter().map(|ch| {
        let interval = if seeds > 1 {
            ci95.iter().find(|(k, _)| *k == ch.key).map(|(_, v)| *v)
        } else {
            measured.iter().find(|(k, _)| *k == ch.key).map(|(_, v)| [*v, *v])
        };
        interval.map_or(Verdict::Inconclusive, |[a, b]| ch.on_interval(a, b))
    }))
}

/// The first seed's table with each numeric cell that varies across seeds
/// replaced by `mean ± half-width` (95 %).
fn merge_table(passes: &[Analysis]) -> Vec<Vec<String>> {
    let first = &passes[0].table;
    let same_shape = passes
        .iter()
        .all(|a| a.table.len() == first.len() && a.table.iter().zip(first).all(|(r, f)| r.len() == f.len()));
    if !same_shape {
        return first.clone();
    }
    first
        .iter()
        .enumerate()
        .map(|(i, row)| {
            row.iter()
                .enumerate()
                .map(|(j, cell)| {
                    let xs: Option<Vec<f64>> =
                        passes.iter().map(|a| a.table[i][j].trim().parse::<f64>().ok()).collect();
                    match xs {
                        Some(xs) if i > 0 && xs.iter().any(|x| *x != xs[0]) => {
                            let (m, ci) = mean_ci(&xs);
                            let half = ci.map_or(0.0, |[lo, hi]| (hi - lo) / 2.0);
                            let decimals = cell.split_once('.').map_or(0, |(_, d)| d.len());
                            format!("{m:.decimals$} ± {half:.decimals$}")
                        }
                        _ => cell.clone(),
                    }
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Check;

    fn pass(ratio: f64, cell: &str) -> Analysis {
        Analysis {
            claims: vec![crate::studies::claim(
                "x/y",
                "src",
                "paper",
                &[("ratio", ratio)],
                vec![Check::at_least("ratio", 0.9)],
                String::new(),
            )],
            plots: Vec::new(),
            table: vec![vec!["h".into()], vec![cell.into()]],
            notes: String::new(),
        }
    }

    #[test]
    fn seeds_merge_into_a_mean_an_interval_and_a_verdict_on_it() {
        let m = merge(vec![pass(0.95, "1.0"), pass(0.96, "2.0"), pass(0.97, "3.0")]).unwrap();
        let c = &m.claims[0];
        assert_eq!(c.seeds, 3);
        assert!((c.measured[0].1 - 0.96).abs() < 1e-12);
        let [lo, hi] = c.ci95[0].1;
        assert!(lo < 0.96 && hi > 0.96 && lo > 0.9, "{lo} {hi}");
        assert_eq!(c.verdict, Verdict::Holds);
        assert_eq!(m.table[1][0], "2.0 ± 2.5", "t(2) = 4.303 x 1 / sqrt(3)");
        // Seeds on both sides of the threshold: no verdict either way.
        let m = merge(vec![pass(0.7, "1"), pass(1.1, "1"), pass(0.95, "1")]).unwrap();
        assert_eq!(m.claims[0].verdict, Verdict::Inconclusive);
        assert_eq!(m.table[1][0], "1", "identical cells stay as they are");
        // Every seed far below: fails.
        let m = merge(vec![pass(0.5, "1"), pass(0.52, "1")]).unwrap();
        assert_eq!(m.claims[0].verdict, Verdict::DoesNotHold);
    }
}
