//! The studies, one file per source paper, and what they share.

mod drwa;
mod mmwave;
mod rtac;
mod tcpgt;

use crate::{Claim, Results, StudyError};
use rtac_core::controller::{ControllerKind, Params};
use rtac_core::Duration;
use rtac_plot::Summary;
use rtac_sim::{CcKind, ControllerChoice, FlowResult, RunResult, Scenario};

pub(crate) fn all() -> Vec<crate::Study> {
    let mut v = Vec::new();
    v.extend(rtac::studies());
    v.extend(drwa::studies());
    v.extend(mmwave::studies());
    v.extend(tcpgt::studies());
    v
}

/// The scenario library, embedded so the binary runs anywhere.
pub(crate) mod library {
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

/// Box-plot summaries of a flow: per-second throughput, and RTT from the
/// run's percentiles.
pub(crate) fn boxes(f: &FlowResult) -> Result<(Summary, Summary), StudyError> {
    let tput = Summary::from_samples(&f.throughput_per_s)?;
    let rtt = Summary {
        count: f.rtt_samples as usize,
        mean: f.rtt_mean_ms,
        min: f.rtt_p5_ms,
        p5: f.rtt_p5_ms,
        p25: f.rtt_p25_ms,
        median: f.rtt_p50_ms,
        p75: f.rtt_p75_ms,
        p95: f.rtt_p95_ms,
        max: f.rtt_p95_ms,
    };
    Ok((tput, rtt))
}

/// A claim built from measured figures.
pub(crate) fn claim(id: &str, source: &str, paper: &str, measured: &[(&str, f64)], holds: bool, why: String) -> Claim {
    Claim {
        id: id.to_string(),
        source: source.to_string(),
        paper: paper.to_string(),
        measured: measured.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        holds,
        why,
    }
}

pub(crate) fn get<'a>(r: &'a Results, key: &str) -> Result<&'a RunResult, StudyError> {
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
                let jobs = (s.jobs)(quick);
                assert!(!jobs.is_empty(), "{}", s.id);
                let mut keys: Vec<_> = jobs.iter().map(|j| j.key.clone()).collect();
                keys.sort();
                keys.dedup();
                assert_eq!(keys.len(), jobs.len(), "{}: duplicate job keys", s.id);
            }
        }
    }
}
