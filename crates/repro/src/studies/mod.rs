//! The studies, one file per source paper, and what they share.

mod bdp_error;
mod drwa;
mod drwa_more;
mod mmwave;
mod rtac;
mod rtac_estimates;
mod rtac_senders;
mod tcpgt;
mod tcpgt_more;

use crate::{Check, Claim, Results, StudyError};
use rtac_core::controller::{ControllerKind, Params};
use rtac_core::Duration;
use rtac_plot::{BarChart, Summary};
use rtac_sim::{CcKind, ControllerChoice, FlowResult, RunResult, Scenario};

pub(crate) fn all() -> Vec<crate::Study> {
    let mut v = Vec::new();
    v.extend(rtac_estimates::studies());
    v.extend(rtac::studies());
    v.extend(rtac_senders::studies());
    v.extend(drwa::studies());
    v.extend(drwa_more::studies());
    v.extend(mmwave::studies());
    v.extend(tcpgt::studies());
    v.extend(tcpgt_more::studies());
    v.extend(bdp_error::studies());
    v
}

/// The scenario library, embedded so the binary runs anywhere.
pub(crate) mod library {
    /// A Mahimahi trace (`traces/mahimahi/README.md`: origin and licence).
    pub const VERIZON_LTE_DOWN: &str = include_str!("../../../../traces/mahimahi/Verizon-LTE-short.down");
    pub const RTAC_LTE_SINGLE: &str = include_str!("../../../../scenarios/rtac-lte-single.toml");
    pub const RTAC_WIFI_SINGLE: &str = include_str!("../../../../scenarios/rtac-wifi-single.toml");
    pub const RTAC_WIFI_DC: &str = include_str!("../../../../scenarios/rtac-wifi-dc.toml");
    pub const RTAC_LTE_IC: &str = include_str!("../../../../scenarios/rtac-lte-ic.toml");
    pub const DRWA_FIG9: &str = include_str!("../../../../scenarios/drwa-fig9.toml");
    pub const DRWA_FIG10: &str = include_str!("../../../../scenarios/drwa-fig10.toml");
    pub const DRWA_FIG17: &str = include_str!("../../../../scenarios/drwa-fig17.toml");
    pub const DRWA_FIG19: &str = include_str!("../../../../scenarios/drwa-fig19.toml");
    pub const MMWAVE_FIG1: &str = include_str!("../../../../scenarios/mmwave-fig1.toml");
    pub const MMWAVE_FIG2: &str = include_str!("../../../../scenarios/mmwave-fig2.toml");
    pub const MMWAVE_FIG3: &str = include_str!("../../../../scenarios/mmwave-fig3.toml");
    pub const MMWAVE_FIG4: &str = include_str!("../../../../scenarios/mmwave-fig4.toml");
    pub const MMWAVE_FIG5: &str = include_str!("../../../../scenarios/mmwave-fig5.toml");
    pub const TCPGT_DUMBBELL: &str = include_str!("../../../../scenarios/tcpgt-dumbbell.toml");
}

/// Parses an embedded scenario. The library is tested to parse, so a
/// failure here is a bug, not bad input.
pub(crate) fn scenario(text: &str, name: &str) -> Scenario {
    rtac_sim::scenario::parse_str(text, name).unwrap_or_else(|e| panic!("embedded scenario {name}: {e}"))
}

/// Shortens a scenario for `--quick`: the run and its warm-up scale down.
pub(crate) fn shorten(sc: &mut Scenario, quick: bool, quick_duration: Duration) {
    if quick && sc.duration > quick_duration {
        let scale = quick_duration.as_secs_f64() / sc.duration.as_secs_f64();
        sc.measure_from = sc.measure_from.mul_f64(scale);
        sc.duration = quick_duration;
    }
}

/// The controller of the scenario's run list labelled `label`.
pub(crate) fn controller(sc: &Scenario, label: &str) -> ControllerChoice {
    sc.controllers
        .iter()
        .find(|c| c.label == label)
        .cloned()
        .unwrap_or_else(|| panic!("scenario {} has no controller {label}", sc.name))
}

/// A controller with parameters, labelled.
pub(crate) fn choice(label: &str, kind: ControllerKind, params: &str) -> ControllerChoice {
    ControllerChoice {
        label: label.to_string(),
        kind,
        params: Params::parse_list(params).unwrap_or_else(|e| panic!("{label}: {e}")),
    }
}

/// Every flow's sender set to `cc`.
pub(crate) fn with_cc(mut sc: Scenario, cc: CcKind) -> Scenario {
    for f in &mut sc.flows {
        f.cc = cc;
    }
    sc
}

pub(crate) fn flow(r: &RunResult, i: usize) -> Result<&FlowResult, StudyError> {
    r.flows.get(i).ok_or_else(|| StudyError(format!("run {} has no flow {i}", r.label)))
}

/// A claim from one seed's measured figures and the checks on them; its
/// verdict is on the values until repetition puts intervals around them.
pub(crate) fn claim(
    id: &str,
    source: &str,
    paper: &str,
    measured: &[(&str, f64)],
    checks: Vec<Check>,
    why: String,
) -> Claim {
    let measured: Vec<(String, f64)> = measured.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    debug_assert!(
        checks.iter().all(|c| measured.iter().any(|(k, _)| *k == c.key)),
        "{id}: every check is on a measured figure"
    );
    let verdict = crate::repeat::verdict(&checks, &measured, &[], 1);
    Claim {
        id: id.to_string(),
        source: source.to_string(),
        paper: paper.to_string(),
        measured,
        checks,
        seeds: 1,
        ci95: Vec::new(),
        verdict,
        why,
    }
}

/// 1.0 if `b`, else 0.0: a yes/no figure a check can rest on (its mean
/// over seeds is the share of seeds where it was true).
pub(crate) fn flag(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// Mean and 95 % half-width over seeds of `value` of job `key`'s run, for
/// error bars.
pub(crate) fn across(
    r: &Results,
    key: &str,
    value: impl Fn(&RunResult) -> Result<f64, StudyError>,
) -> Result<(f64, f64), StudyError> {
    let xs: Vec<f64> = r.across(key)?.into_iter().map(value).collect::<Result<_, _>>()?;
    let (m, ci) = crate::stats::mean_ci(&xs);
    Ok((m, ci.map_or(0.0, |[lo, hi]| (hi - lo) / 2.0)))
}

/// `chart` with one series of bars per `(legend, id)` of `series` and one
/// bar per category: the mean over seeds of `value` of job
/// `key(id, category)`, with its 95 % half-width as the error bar.
pub(crate) fn error_bars(
    r: &Results,
    mut chart: BarChart,
    series: &[(String, String)],
    categories: &[&str],
    key: impl Fn(&str, &str) -> String,
    value: impl Fn(&RunResult) -> Result<f64, StudyError> + Copy,
) -> Result<BarChart, StudyError> {
    for (legend, id) in series {
        let mut v = (Vec::new(), Vec::new());
        for c in categories {
            let (mean, half) = across(r, &key(id, c), value)?;
            v.0.push(mean);
            v.1.push(half);
        }
        chart = chart.series_with_errors(legend.clone(), &v.0, &v.1);
    }
    Ok(chart)
}

/// `(name, name)` for each name: series whose legend is their job id.
pub(crate) fn named(ids: &[&str]) -> Vec<(String, String)> {
    ids.iter().map(|s| (s.to_string(), s.to_string())).collect()
}

/// Box-plot summaries of flow `i` of job `key` pooled over the seeds:
/// per-second throughput samples of every seed together; RTT percentiles
/// averaged over the seeds (each run keeps percentiles, not samples).
pub(crate) fn pooled_boxes(r: &Results, key: &str, i: usize) -> Result<(Summary, Summary), StudyError> {
    let runs = r.across(key)?;
    let flows: Vec<&FlowResult> = runs.iter().map(|run| flow(run, i)).collect::<Result<_, _>>()?;
    let tput: Vec<f64> = flows.iter().flat_map(|f| f.throughput_per_s.iter().copied()).collect();
    let tput = Summary::from_samples(&tput)?;
    let avg = |g: fn(&FlowResult) -> f64| flows.iter().map(|f| g(f)).sum::<f64>() / flows.len().max(1) as f64;
    let rtt = Summary {
        count: flows.iter().map(|f| f.rtt_samples as usize).sum(),
        mean: avg(|f| f.rtt_mean_ms),
        min: avg(|f| f.rtt_p5_ms),
        p5: avg(|f| f.rtt_p5_ms),
        p25: avg(|f| f.rtt_p25_ms),
        median: avg(|f| f.rtt_p50_ms),
        p75: avg(|f| f.rtt_p75_ms),
        p95: avg(|f| f.rtt_p95_ms),
        max: avg(|f| f.rtt_p95_ms),
    };
    Ok((tput, rtt))
}

pub(crate) fn get<'a>(r: &Results<'a>, key: &str) -> Result<&'a RunResult, StudyError> {
    r.get(key)
}

pub(crate) fn fmt1(x: f64) -> String {
    format!("{x:.1}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_library_parses() {
        for (name, text) in [
            ("rtac-lte-single", library::RTAC_LTE_SINGLE),
            ("rtac-wifi-single", library::RTAC_WIFI_SINGLE),
            ("rtac-wifi-dc", library::RTAC_WIFI_DC),
            ("rtac-lte-ic", library::RTAC_LTE_IC),
            ("drwa-fig9", library::DRWA_FIG9),
            ("drwa-fig10", library::DRWA_FIG10),
            ("drwa-fig17", library::DRWA_FIG17),
            ("drwa-fig19", library::DRWA_FIG19),
            ("mmwave-fig1", library::MMWAVE_FIG1),
            ("mmwave-fig2", library::MMWAVE_FIG2),
            ("mmwave-fig3", library::MMWAVE_FIG3),
            ("mmwave-fig4", library::MMWAVE_FIG4),
            ("mmwave-fig5", library::MMWAVE_FIG5),
            ("tcpgt-dumbbell", library::TCPGT_DUMBBELL),
        ] {
            scenario(text, name);
        }
    }

    #[test]
    fn every_study_builds_unique_job_keys_in_both_modes() {
        for s in all() {
            for quick in [true, false] {
                let jobs = (s.jobs)(quick, 1);
                assert!(!jobs.is_empty(), "{}", s.id);
                let mut keys: Vec<_> = jobs.iter().map(|j| j.key.clone()).collect();
                keys.sort();
                keys.dedup();
                assert_eq!(keys.len(), jobs.len(), "{}: duplicate job keys", s.id);
            }
        }
    }
}
