//! rtac-sweep: parameter sweeps over a scenario.
//!
//! A [`Sweep`] is a scenario document, a grid of field overrides
//! (`link[0].rate = ["10mbit", "40mbit"]`), a list of seeds and optionally
//! a replacement list of controllers. [`Sweep::plan`] applies every grid
//! point to the document *before* validation, so a bad value is reported
//! with the field named exactly as `rtac sim` names it, and checks every
//! point before any run starts. The [`Plan`] lists the jobs (grid point x
//! seed x controller, one simulation each) with a stable key per job, which
//! resumable outputs use to skip jobs already done. The command line
//! (`rtac sweep`) and the Python binding share this code.

pub mod columns;
pub mod file;
pub mod grid;
pub mod out;
pub mod parts;

use columns::Cell;
use rtac_netmodel::MahimahiTrace;
use rtac_sim::scenario::input::{echo, echo_cut, echo_path};
use rtac_sim::scenario::{from_document, parse_document, read_document, set_field, Service};
use rtac_sim::{RunOptions, RunResult, Scenario, ScenarioError};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
pub use toml::{Table, Value};

/// The most jobs one sweep may hold (a plan keeps a key per job); a larger
/// sweep is an error, not cut.
pub const MAX_JOBS: usize = 2_000_000;

/// The columns between the grid's and `columns::FLOW_COLUMNS`.
const FIXED_COLUMNS: &[(&str, columns::Kind)] = &[("seed", columns::Kind::Int), ("run_key", columns::Kind::Str)];

/// The longest message part a [`SweepError`] shows, in characters.
const MAX_MESSAGE: usize = 600;

/// Why a sweep could not be planned or written.
#[derive(Debug)]
pub enum SweepError {
    /// The scenario, or the scenario with a grid point applied, is invalid.
    Scenario(ScenarioError),
    /// The sweep itself is wrong: `origin` names the sweep file or the
    /// argument, `field` the entry (`grid."link[0].rate"`, `seeds[2]`).
    Field { origin: String, field: String, message: String },
    /// The output directory cannot be used.
    Output { path: PathBuf, message: String },
}

impl fmt::Display for SweepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SweepError::Scenario(e) => e.fmt(f),
            SweepError::Field { origin, field, message } => {
                write!(f, "{}: {}: {}", echo(origin), echo(field), echo_cut(message, MAX_MESSAGE))
            }
            SweepError::Output { path, message } => {
                write!(f, "{}: {}", echo_path(path), echo_cut(message, MAX_MESSAGE))
            }
        }
    }
}

impl std::error::Error for SweepError {}

impl From<ScenarioError> for SweepError {
    fn from(e: ScenarioError) -> Self {
        SweepError::Scenario(e)
    }
}

/// A scenario document, not yet validated, and how to name it.
#[derive(Clone, Debug)]
pub struct Source {
    pub doc: Table,
    /// Names the document in messages; its stem is the default name.
    pub origin: String,
    /// Directory that relative trace paths are resolved against.
    pub base: Option<PathBuf>,
}

impl Source {
    pub fn file(path: &Path) -> Result<Source, ScenarioError> {
        let doc = read_document(path)?;
        Ok(Source { doc, origin: path.display().to_string(), base: path.parent().map(Path::to_path_buf) })
    }

    pub fn text(text: &str, origin: &str, base: Option<PathBuf>) -> Result<Source, ScenarioError> {
        Ok(Source { doc: parse_document(text, origin)?, origin: origin.to_string(), base })
    }
}

/// What to run: every grid point x seed x controller.
#[derive(Clone, Debug)]
pub struct Sweep {
    pub source: Source,
    /// Fields and their values, in column order; the grid is their product,
    /// the last field varying fastest.
    pub grid: Vec<(String, Vec<Value>)>,
    /// `None`: each point's own seed.
    pub seeds: Option<Vec<u64>>,
    /// Replaces the document's `controllers` list (same format).
    pub controllers: Option<Value>,
}

/// One simulation of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// Index of the grid point in `Plan::points`.
    pub point: usize,
    pub seed: u64,
    /// Index of the run in the point's `controllers`.
    pub run: usize,
    /// Stable identity: `link[0].rate=10mbit;seed=1;run=rtac`.
    pub key: String,
}

/// A grid point: its values (one per grid field) and validated scenario.
#[derive(Clone, Debug)]
pub struct Point {
    pub values: Vec<Value>,
    pub scenario: Scenario,
}

/// A checked sweep: every point's scenario is valid.
#[derive(Clone, Debug)]
pub struct Plan {
    pub fields: Vec<String>,
    /// The leading columns of the rows: each field's values, and their
    /// numeric companion where they are quantities (`grid.rs`).
    pub grid: Vec<grid::GridColumn>,
    pub points: Vec<Point>,
    pub jobs: Vec<Job>,
    /// The document before any override, as TOML text: the identity of the
    /// sweep's base scenario for resumable outputs.
    pub document: String,
}

impl Sweep {
    /// Applies and validates every grid point; lists the jobs.
    pub fn plan(&self) -> Result<Plan, SweepError> {
        let origin = &self.source.origin;
        let arg = |field: &str, message: String| SweepError::Field {
            origin: origin.clone(),
            field: field.to_string(),
            message,
        };
        let mut base = self.source.doc.clone();
        if let Some(c) = &self.controllers {
            set_field(&mut base, "controllers", c.clone(), origin)?;
        }
        let mut points_n: usize = 1;
        for (field, values) in &self.grid {
            if values.is_empty() {
                return Err(arg(field, "the grid gives this field no values".to_string()));
            }
            if field == "seed" && self.seeds.is_some() {
                return Err(arg(field, "seeds are given separately; remove seed from the grid".to_string()));
            }
            if self.grid.iter().filter(|(f, _)| f == field).count() > 1 {
                return Err(arg(field, "appears twice in the grid".to_string()));
            }
            if let Some(v) = values.iter().enumerate().find_map(|(i, v)| values[..i].contains(v).then_some(v)) {
                return Err(arg(field, format!("the grid gives the value {} twice", render(v))));
            }
            points_n = points_n.saturating_mul(values.len());
        }
        let seeds_n = self.seeds.as_ref().map_or(1, Vec::len);
        if seeds_n == 0 {
            return Err(arg("seeds", "no seeds given".to_string()));
        }
        if let Some(seeds) = &self.seeds {
            let mut sorted = seeds.clone();
            sorted.sort_unstable();
            if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
                return Err(arg("seeds", format!("seed {} is given twice", w[0])));
            }
        }
        if points_n.saturating_mul(seeds_n) > MAX_JOBS {
            return Err(arg(
                "grid",
                format!("{points_n} grid points x {seeds_n} seeds is more than {MAX_JOBS} runs; split the sweep"),
            ));
        }
        let mut points = Vec::with_capacity(points_n);
        let mut jobs = Vec::new();
        let mut traces = Vec::new();
        for p in 0..points_n {
            // Mixed radix: the last field varies fastest.
            let mut rest = p;
            let mut values = vec![Value::Boolean(false); self.grid.len()];
            for (g, (_, vals)) in self.grid.iter().enumerate().rev() {
                values[g] = vals[rest % vals.len()].clone();
                rest /= vals.len();
            }
            let mut doc = base.clone();
            for ((field, _), v) in self.grid.iter().zip(&values) {
                set_field(&mut doc, field, v.clone(), origin)?;
            }
            let mut scenario = from_document(&doc, origin, self.source.base.as_deref())?;
            share_traces(&mut scenario, &mut traces);
            let seeds = self.seeds.clone().unwrap_or_else(|| vec![scenario.seed]);
            let point_key: String =
                self.grid.iter().zip(&values).map(|((f, _), v)| format!("{f}={};", render(v))).collect();
            for &seed in &seeds {
                for (run, c) in scenario.controllers.iter().enumerate() {
                    jobs.push(Job { point: p, seed, run, key: format!("{point_key}seed={seed};run={}", c.label) });
                }
            }
            points.push(Point { values, scenario });
        }
        let fixed: Vec<&str> = FIXED_COLUMNS.iter().chain(columns::FLOW_COLUMNS).map(|(c, _)| *c).collect();
        Ok(Plan {
            fields: self.grid.iter().map(|(f, _)| f.clone()).collect(),
            grid: grid::grid_columns(&self.grid, &fixed),
            points,
            jobs,
            document: self.source.doc.to_string(),
        })
    }
}

impl Plan {
    /// Simulates job `i`.
    pub fn run(&self, i: usize, opts: &RunOptions) -> RunResult {
        let job = &self.jobs[i];
        let point = &self.points[job.point];
        let mut scenario = point.scenario.clone();
        scenario.seed = job.seed;
        rtac_sim::run(&scenario, &scenario.controllers[job.run], opts)
    }

    /// Column names of `rows`: the grid's columns (each field, and its
    /// numeric companion where it has one), `seed`, `run_key`, then
    /// `columns::FLOW_COLUMNS`.
    pub fn columns(&self) -> Vec<String> {
        self.schema().into_iter().map(|(c, _)| c).collect()
    }

    /// The columns of `rows` with their kinds.
    pub fn schema(&self) -> Vec<(String, columns::Kind)> {
        let fixed = FIXED_COLUMNS.iter().chain(columns::FLOW_COLUMNS).map(|&(c, k)| (c.to_string(), k));
        self.grid.iter().map(|c| (c.name.clone(), c.kind)).chain(fixed).collect()
    }

    /// The columns rows had before the grid's numeric companions: `columns`
    /// without them. Equal to `columns` when the grid has none.
    pub fn older_columns(&self) -> Vec<String> {
        let companions: Vec<&str> = self.grid.iter().filter(|c| c.unit.is_some()).map(|c| c.name.as_str()).collect();
        self.columns().into_iter().filter(|c| !companions.contains(&c.as_str())).collect()
    }

    /// A row of `older_columns` as a row of `columns`: each companion's
    /// cell computed from its field's cell, as `rows` computes it.
    pub fn upgrade_row(&self, row: Vec<Cell>) -> Vec<Cell> {
        let mut values: Vec<Cell> = Vec::with_capacity(self.fields.len());
        let mut out = Vec::with_capacity(row.len() + self.grid.len());
        let mut cells = row.into_iter();
        for c in &self.grid {
            match c.unit {
                None => {
                    let v = cells.next().unwrap_or(Cell::Null);
                    values.push(v.clone());
                    out.push(v);
                }
                Some(_) => out.push(values.get(c.field).map_or(Cell::Null, |v| c.cell_from(v))),
            }
        }
        out.extend(cells);
        out
    }

    /// The rows of job `i`'s result, one per flow, in `columns` order.
    pub fn rows(&self, i: usize, result: &RunResult) -> Vec<Vec<Cell>> {
        let job = &self.jobs[i];
        let point = &self.points[job.point];
        let mut head: Vec<Cell> = self.grid.iter().map(|c| c.cell(&point.values[c.field])).collect();
        head.push(Cell::Int(i64::try_from(job.seed).unwrap_or(i64::MAX)));
        head.push(Cell::Str(job.key.clone()));
        columns::flow_rows(&point.scenario, result)
            .into_iter()
            .map(|r| head.iter().cloned().chain(r).collect())
            .collect()
    }

    /// Runs the jobs `todo` on up to `threads` threads and hands each result
    /// to `done` on the calling thread as it finishes, in finishing order.
    pub fn run_parallel<E>(
        &self,
        todo: &[usize],
        threads: usize,
        opts: &RunOptions,
        mut done: impl FnMut(usize, RunResult) -> Result<(), E>,
    ) -> Result<(), E> {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let stop = std::sync::atomic::AtomicBool::new(false);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::scope(|s| {
            for _ in 0..threads.max(1).min(todo.len().max(1)) {
                let tx = tx.clone();
                let (next, stop) = (&next, &stop);
                s.spawn(move || {
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&i) = todo.get(k) else { break };
                        if tx.send((i, self.run(i, opts))).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            for (i, r) in rx {
                if let Err(e) = done(i, r) {
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    return Err(e);
                }
            }
            Ok(())
        })
    }
}

/// Makes the scenario's trace links use the copy in `seen` of an equal
/// trace, adding new ones: the points of a grid then hold each distinct
/// trace once, however many points read it.
fn share_traces(scenario: &mut Scenario, seen: &mut Vec<Arc<MahimahiTrace>>) {
    let flows = scenario.flows.iter_mut().flat_map(|f| f.access.iter_mut().chain(f.egress.iter_mut()));
    for link in scenario.links.iter_mut().chain(flows) {
        if let Service::Trace(t) = &mut link.service {
            match seen.iter().find(|s| **s == *t) {
                Some(s) => *t = Arc::clone(s),
                None => seen.push(Arc::clone(t)),
            }
        }
    }
}

/// A grid value as text: strings as they are, anything else as TOML.
pub fn render(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests;
