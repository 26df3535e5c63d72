//! rtac-repro: the source papers' evaluations as *studies*. A study builds
//! simulation jobs from the scenario library (`scenarios/`), and from their
//! results checks the paper's claims, draws the paper's plots and explains
//! where the simulation differs.
//!
//! `reproduce` runs any set of studies, each job once per seed, with all
//! runs in one pool of threads; each study is analysed once per seed, and
//! its claims are then reported as means over the seeds with 95 %
//! confidence intervals and a verdict on those intervals (`repeat.rs`).
//! It writes `report.md`, `report.html`, `claims.json` and `plots/` to an
//! output directory.

mod repeat;
pub mod report;
mod runner;
pub mod stats;
pub mod studies;

pub use repeat::analyse;
pub use report::{write_report, Report};
pub use runner::{run_jobs, Progress};
pub use stats::{Check, Verdict};

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
    /// version (shorter runs, fewer sweep points). `seed` is the run's
    /// seed, for studies that draw random flows or channels while building
    /// their jobs (every job's scenario also gets it as its seed).
    pub jobs: fn(quick: bool, seed: u64) -> Vec<Job>,
    /// Claims and plots from one seed's results; `plots` draws only on the
    /// pass that has a directory.
    pub analyse: fn(&Results, plots: &Plots) -> Result<Analysis, StudyError>,
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

/// One seed's runs of a study, by job key.
pub type SeedRuns = BTreeMap<String, RunResult>;

/// A study's run results: every seed's, seen from one of them.
pub struct Results<'a> {
    seeds: &'a [SeedRuns],
    current: usize,
}

impl<'a> Results<'a> {
    /// The results of `seeds`, seen from seed index `current`.
    pub fn new(seeds: &'a [SeedRuns], current: usize) -> Self {
        Results { seeds, current }
    }

    /// The current seed's result of job `key`; a missing key is a bug in
    /// the study.
    pub fn get(&self, key: &str) -> Result<&'a RunResult, StudyError> {
        self.seeds
            .get(self.current)
            .and_then(|s| s.get(key))
            .ok_or_else(|| StudyError(format!("no result for job {key:?}")))
    }

    /// Job `key`'s result in every seed (for error bars and pooled plots).
    pub fn across(&self, key: &str) -> Result<Vec<&'a RunResult>, StudyError> {
        self.seeds.iter().map(|s| s.get(key).ok_or_else(|| StudyError(format!("no result for job {key:?}")))).collect()
    }

    /// Whether job `key` ran.
    pub fn has(&self, key: &str) -> bool {
        self.seeds.get(self.current).is_some_and(|s| s.contains_key(key))
    }

    /// How many jobs ran per seed.
    pub fn jobs(&self) -> usize {
        self.seeds.get(self.current).map_or(0, |s| s.len())
    }
}

/// Where a study's analysis draws its plots: a directory on the pass that
/// draws them, nowhere on the others.
pub struct Plots {
    dir: Option<PathBuf>,
}

impl Plots {
    pub fn to(dir: &Path) -> Plots {
        Plots { dir: Some(dir.to_path_buf()) }
    }
    pub fn none() -> Plots {
        Plots { dir: None }
    }

    /// Saves `chart` as `name`.svg and .png and records it in `out`.
    pub fn save(&self, chart: &dyn rtac_plot::Chart, name: &str, out: &mut Vec<PathBuf>) -> Result<(), StudyError> {
        if let Some(dir) = &self.dir {
            let path = dir.join(name);
            rtac_plot::save_chart(chart, &path)?;
            out.push(path);
        }
        Ok(())
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
    /// The measured figures the verdict rests on: one seed's values, or
    /// after repetition the means over the seeds.
    pub measured: Vec<(String, f64)>,
    /// The conditions on measured figures that make the claim hold.
    pub checks: Vec<Check>,
    /// How many seeds the measured figures average.
    pub seeds: usize,
    /// 95 % confidence interval of each measured figure (empty for one
    /// seed).
    pub ci95: Vec<(String, [f64; 2])>,
    pub verdict: Verdict,
    /// Why it does or does not hold, in a sentence or two.
    pub why: String,
}

impl Claim {
    pub fn holds(&self) -> bool {
        self.verdict == Verdict::Holds
    }
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
