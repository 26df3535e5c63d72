//! rtac-repro: the source papers' evaluations as *studies*. A study builds
//! simulation jobs from the scenario library (`scenarios/`), and from their
//! results checks the paper's claims, draws the paper's plots and explains
//! where the simulation differs.
//!
//! `reproduce` runs any set of studies with all their jobs in one pool of
//! threads, then writes `report.md`, `report.html`, `claims.json` and
//! `plots/` to an output directory.

pub mod report;
mod runner;
pub mod studies;

pub use report::{write_report, Report};
pub use runner::{run_jobs, Progress};

use rtac_sim::{ControllerChoice, RunResult, Scenario};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// One study: a figure or table of a source paper.
pub struct Study {
    /// Short id used on the command line: `rtac-fig6`.
    pub id: &'static str,
    /// The paper and figure: `RTAC (Im et al., IEEE TMC 2016), Fig. 6`.
    pub source: &'static str,
    pub title: &'static str,
    /// The simulation runs the study needs; `quick` asks for a short
    /// version (shorter runs, fewer sweep points).
    pub jobs: fn(quick: bool) -> Vec<Job>,
    /// Claims and plots from the runs' results (`plots` is the directory
    /// to draw into).
    pub analyse: fn(&Results, plots: &Path) -> Result<Analysis, StudyError>,
}

/// One simulation run of a study.
pub struct Job {
    /// Unique within the study: `lte/rtac`.
    pub key: String,
    pub scenario: Scenario,
    pub choice: ControllerChoice,
    /// Record time series (for time-series plots).
    pub series: bool,
}

impl Job {
    pub fn new(key: impl Into<String>, scenario: Scenario, choice: ControllerChoice) -> Self {
        Job { key: key.into(), scenario, choice, series: false }
    }
    pub fn with_series(mut self) -> Self {
        self.series = true;
        self
    }
}

/// A study's run results by job key.
#[derive(Default)]
pub struct Results {
    pub runs: BTreeMap<String, RunResult>,
}

impl Results {
    /// The result of job `key`; a missing key is a bug in the study.
    pub fn get(&self, key: &str) -> Result<&RunResult, StudyError> {
        self.runs.get(key).ok_or_else(|| StudyError(format!("no result for job {key:?}")))
    }
}

/// What a study concluded.
pub struct Analysis {
    pub claims: Vec<Claim>,
    /// Plots written, without extension (each has .svg and .png).
    pub plots: Vec<PathBuf>,
    /// Measured figures in a small table for the report: a header row,
    /// then rows.
    pub table: Vec<Vec<String>>,
    /// How the simulation relates to the paper's set-up: what is modelled,
    /// what is not, why numbers differ.
    pub notes: String,
}

/// A claim of a paper, checked against the simulation.
#[derive(Clone, Debug)]
pub struct Claim {
    /// `rtac-fig6/lte-delay`.
    pub id: String,
    pub source: String,
    /// The paper's statement or number.
    pub paper: String,
    /// The measured figures the verdict rests on.
    pub measured: Vec<(String, f64)>,
    pub holds: bool,
    /// Why it does or does not hold, in a sentence or two.
    pub why: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StudyError(pub String);

impl fmt::Display for StudyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for StudyError {}

impl From<rtac_plot::PlotError> for StudyError {
    fn from(e: rtac_plot::PlotError) -> Self {
        StudyError(format!("plot: {e}"))
    }
}

/// Every study, in report order.
pub fn all_studies() -> Vec<Study> {
    studies::all()
}

/// The studies named by `ids` (all if empty). An unknown id is an error
/// that lists the known ones.
pub fn select(ids: &[String]) -> Result<Vec<Study>, String> {
    let all = all_studies();
    if ids.is_empty() {
        return Ok(all);
    }
    let known: Vec<&str> = all.iter().map(|s| s.id).collect();
    for id in ids {
        if !known.contains(&id.as_str()) {
            return Err(format!("unknown study {id:?}; known studies: {}", known.join(", ")));
        }
    }
    Ok(all.into_iter().filter(|s| ids.iter().any(|i| i == s.id)).collect())
}
