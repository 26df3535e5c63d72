//! `rtac._rtac`: the simulator, sweep plans and the census for Python. The
//! Python package (`python/rtac`) builds DataFrames, parallelism and Ray on
//! top; this module only converts between Python values, TOML values and
//! rows, and runs the census's networks (`Census`).

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use rtac_census::out::Output;
use rtac_census::{report, Measure, NetworkResult, Settings, Traces};
use rtac_sim::RunOptions;
use rtac_sweep::columns::{series_rows, Cell, Kind, SERIES_COLUMNS};
use rtac_sweep::parts::ParquetOut;
use rtac_sweep::{Plan as SweepPlan, Source, Sweep, SweepError, Table, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

create_exception!(
    _rtac,
    ScenarioError,
    PyValueError,
    "A scenario or sweep is invalid; the message names the file, the field and what is wrong."
);

create_exception!(
    _rtac,
    CensusError,
    PyValueError,
    "A census's settings are invalid (a receiver, category, count or trace); the message is `rtac census`'s."
);

fn scenario_error(e: impl std::fmt::Display) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

/// A Python value as a TOML value; `at` names it in errors.
fn to_toml(v: &Bound<'_, PyAny>, at: &str) -> PyResult<Value> {
    if v.is_instance_of::<PyBool>() {
        return Ok(Value::Boolean(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() || (v.hasattr("__index__")? && !v.is_instance_of::<PyFloat>()) {
        let i: i64 = v.extract().map_err(|_| PyValueError::new_err(format!("{at}: {v} does not fit in 64 bits")))?;
        return Ok(Value::Integer(i));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(Value::Float(v.extract()?));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_string()));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        return Ok(Value::Table(to_table(d, at)?));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items: Vec<Bound<'_, PyAny>> = v.try_iter()?.collect::<PyResult<_>>()?;
        return items
            .iter()
            .enumerate()
            .map(|(i, x)| to_toml(x, &format!("{at}[{i}]")))
            .collect::<PyResult<_>>()
            .map(Value::Array);
    }
    Err(PyTypeError::new_err(format!(
        "{at}: cannot use a {} in a scenario: use str, int, float, bool, list or dict",
        v.get_type().name()?
    )))
}

fn to_table(d: &Bound<'_, PyDict>, at: &str) -> PyResult<Table> {
    let mut t = Table::new();
    for (k, v) in d.iter() {
        let key: String =
            k.extract().map_err(|_| PyTypeError::new_err(format!("{at}: keys must be strings, got {k}")))?;
        let here = if at.is_empty() { key.clone() } else { format!("{at}.{key}") };
        t.insert(key, to_toml(&v, &here)?);
    }
    Ok(t)
}

fn cell(py: Python<'_>, c: &Cell) -> PyResult<Py<PyAny>> {
    Ok(match c {
        Cell::Str(s) => s.into_pyobject(py)?.into_any().unbind(),
        Cell::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Cell::Float(x) => x.into_pyobject(py)?.into_any().unbind(),
        Cell::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Cell::Null => py.None(),
    })
}

/// Rows as a dict of column lists (what pandas.DataFrame takes).
fn columnar<'py>(py: Python<'py>, columns: &[String], rows: &[Vec<Cell>]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (c, name) in columns.iter().enumerate() {
        let col = rows.iter().map(|r| cell(py, &r[c])).collect::<PyResult<Vec<_>>>()?;
        d.set_item(name, PyList::new(py, col)?)?;
    }
    Ok(d)
}

/// The TOML document in `path`, as normalised TOML text. Raises
/// ScenarioError naming the file (and line, for syntax errors).
#[pyfunction]
fn read_document(path: PathBuf) -> PyResult<String> {
    Ok(rtac_sim::scenario::read_document(&path).map_err(scenario_error)?.to_string())
}

/// A sweep's hold on its output directory: other sweeps are refused
/// until it is dropped.
#[pyclass(frozen, module = "rtac._rtac")]
struct SweepLock {
    _lock: rtac_sweep::out::DirLock,
}

/// A Python value from `Plan.run`'s rows as a cell of a column of `kind`.
fn to_cell(v: &Bound<'_, PyAny>, kind: Kind, column: &str) -> PyResult<Cell> {
    let cell = if v.is_none() {
        Cell::Null
    } else if v.is_instance_of::<PyBool>() {
        Cell::Bool(v.extract()?)
    } else if v.is_instance_of::<PyInt>() {
        Cell::Int(v.extract()?)
    } else if v.is_instance_of::<PyFloat>() {
        let x: f64 = v.extract()?;
        if x.is_finite() {
            Cell::Float(x)
        } else {
            Cell::Null
        }
    } else if let Ok(s) = v.cast::<PyString>() {
        Cell::Str(s.to_str()?.to_string())
    } else {
        return Err(PyTypeError::new_err(format!("{column}: cannot write a {} value", v.get_type().name()?)));
    };
    cell.to_kind(kind).ok_or_else(|| PyTypeError::new_err(format!("{column}: a value of the wrong type for {kind:?}")))
}

/// A sweep's Parquet output directory (`rtac_sweep::parts`), locked while
/// this object lives: the same parts, names and column types as
/// `rtac sweep` writes.
#[pyclass(frozen, module = "rtac._rtac")]
struct SweepOut {
    out: Mutex<ParquetOut>,
    _lock: rtac_sweep::out::DirLock,
    /// The keys of the runs already in the directory.
    #[pyo3(get)]
    done: Vec<String>,
    /// Its parts when it was opened, in the order they were written.
    #[pyo3(get)]
    parts: Vec<PathBuf>,
    /// The parts rewritten in this sweep's columns and types on opening.
    #[pyo3(get)]
    upgraded: Vec<PathBuf>,
}

fn output_error(e: SweepError) -> PyErr {
    match e {
        SweepError::Output { .. } => PyOSError::new_err(e.to_string()),
        other => scenario_error(other),
    }
}

impl SweepOut {
    fn out(&self) -> MutexGuard<'_, ParquetOut> {
        self.out.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[pymethods]
impl SweepOut {
    /// Takes rows as `Plan.run` returns them (a dict of column lists);
    /// writes a part when one is due.
    fn add(&self, py: Python<'_>, cols: &Bound<'_, PyDict>) -> PyResult<()> {
        let schema = self.out().schema().to_vec();
        let mut columns = Vec::with_capacity(schema.len());
        for (name, kind) in &schema {
            let list =
                cols.get_item(name)?.ok_or_else(|| PyValueError::new_err(format!("rows lack the column {name}")))?;
            let cells: Vec<Cell> = list.try_iter()?.map(|v| to_cell(&v?, *kind, name)).collect::<PyResult<_>>()?;
            columns.push(cells);
        }
        let n = columns.first().map_or(0, Vec::len);
        if let Some(((name, _), c)) = schema.iter().zip(&columns).find(|(_, c)| c.len() != n) {
            return Err(PyValueError::new_err(format!("column {name} has {} rows, not {n}", c.len())));
        }
        let mut iters: Vec<_> = columns.into_iter().map(Vec::into_iter).collect();
        let rows: Vec<Vec<Cell>> =
            (0..n).map(|_| iters.iter_mut().map(|c| c.next().unwrap_or(Cell::Null)).collect()).collect();
        py.detach(|| self.out().add(rows, std::time::Instant::now())).map_err(output_error)
    }

    /// Writes the rows waiting as one part.
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.out().flush(std::time::Instant::now())).map_err(output_error)
    }
}

/// A checked sweep: every grid point applied to the scenario and
/// validated; the jobs (grid point x seed x controller) in order.
#[pyclass(frozen, module = "rtac._rtac")]
struct Plan {
    plan: SweepPlan,
}

#[pymethods]
impl Plan {
    /// `scenario` is TOML text or a dict; `origin` names it in messages;
    /// `base` is the directory for relative trace paths.
    #[new]
    #[pyo3(signature = (scenario, origin, base=None, grid=Vec::new(), seeds=None, controllers=None))]
    fn new(
        scenario: &Bound<'_, PyAny>,
        origin: &str,
        base: Option<PathBuf>,
        grid: Vec<(String, Bound<'_, PyAny>)>,
        seeds: Option<Vec<u64>>,
        controllers: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let source = if let Ok(text) = scenario.cast::<PyString>() {
            Source::text(text.to_str()?, origin, base).map_err(scenario_error)?
        } else if let Ok(d) = scenario.cast::<PyDict>() {
            Source { doc: to_table(d, "")?, origin: origin.to_string(), base }
        } else {
            return Err(PyTypeError::new_err("scenario: expected TOML text, a dict or a path"));
        };
        let grid = grid
            .iter()
            .map(|(field, values)| {
                let at = format!("grid[{field:?}]");
                match to_toml(values, &at)? {
                    Value::Array(vs) => Ok((field.clone(), vs)),
                    _ => Err(PyTypeError::new_err(format!("{at}: expected a list of values"))),
                }
            })
            .collect::<PyResult<_>>()?;
        let controllers = controllers.map(|c| to_toml(&c, "controllers")).transpose()?;
        let plan = Sweep { source, grid, seeds, controllers }.plan().map_err(scenario_error)?;
        Ok(Plan { plan })
    }

    fn __len__(&self) -> usize {
        self.plan.jobs.len()
    }

    /// The grid fields, in column order.
    #[getter]
    fn fields(&self) -> Vec<String> {
        self.plan.fields.clone()
    }

    /// Each job's key (`link[0].rate=10mbit;seed=1;run=rtac`), in job order.
    #[getter]
    fn keys(&self) -> Vec<String> {
        self.plan.jobs.iter().map(|j| j.key.clone()).collect()
    }

    /// The columns of `run`'s rows.
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.plan.columns()
    }

    /// The columns of `run`'s rows that hold floats (None where a figure
    /// cannot be computed), as they are typed in the Parquet parts.
    #[getter]
    fn float_columns(&self) -> Vec<String> {
        self.plan.schema().into_iter().filter(|(_, k)| *k == Kind::Float).map(|(c, _)| c).collect()
    }

    /// Locks `dir` for this sweep's output and creates it, or checks that
    /// an existing one holds runs of the same scenario (OSError otherwise,
    /// and when another sweep is writing to it). The lock is held while the
    /// returned object lives.
    fn prepare_dir(&self, dir: PathBuf) -> PyResult<SweepLock> {
        let lock = rtac_sweep::out::open_dir(&dir, &self.plan).map_err(output_error)?;
        Ok(SweepLock { _lock: lock })
    }

    /// `prepare_dir`, then opens the directory's Parquet parts for this
    /// sweep's rows: parts of an older format are rewritten in this
    /// sweep's columns, parts of another grid and a `runs.csv` refused
    /// (OSError).
    fn open_parquet(&self, py: Python<'_>, dir: PathBuf) -> PyResult<SweepOut> {
        let (lock, out, found) = py
            .detach(|| {
                let lock = rtac_sweep::out::open_dir(&dir, &self.plan)?;
                let (out, found) = ParquetOut::open(&dir, &self.plan, std::time::Instant::now())?;
                Ok((lock, out, found))
            })
            .map_err(output_error)?;
        Ok(SweepOut {
            out: Mutex::new(out),
            _lock: lock,
            done: found.done.into_iter().collect(),
            parts: found.parts,
            upgraded: found.upgraded,
        })
    }

    /// Simulates the jobs `jobs` one after the other without holding the
    /// GIL. Returns (rows, series) as dicts of column lists; series is None
    /// unless asked for.
    #[pyo3(signature = (jobs, series=false))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        jobs: Vec<usize>,
        series: bool,
    ) -> PyResult<(Bound<'py, PyDict>, Option<Bound<'py, PyDict>>)> {
        if let Some(&bad) = jobs.iter().find(|&&j| j >= self.plan.jobs.len()) {
            return Err(PyValueError::new_err(format!("job {bad}: the plan has {} jobs", self.plan.jobs.len())));
        }
        let opts = RunOptions { series };
        let (rows, samples) = py.detach(|| {
            let mut rows = Vec::new();
            let mut samples = Vec::new();
            for &j in &jobs {
                let r = self.plan.run(j, &opts);
                rows.extend(self.plan.rows(j, &r));
                if series {
                    let point = &self.plan.points[self.plan.jobs[j].point];
                    samples.extend(series_rows(&point.scenario, &r));
                }
            }
            (rows, samples)
        });
        let series_cols: Vec<String> = SERIES_COLUMNS.iter().map(|c| c.to_string()).collect();
        let series = if series { Some(columnar(py, &series_cols, &samples)?) } else { None };
        Ok((columnar(py, &self.plan.columns(), &rows)?, series))
    }
}

/// A census error as a Python exception: the output directory's as
/// OSError, the rest as CensusError, with the census's own message. The
/// options `Settings::check` names as flags are named as the Python
/// arguments (`n`, `categories`, `controllers`).
fn census_error(e: rtac_census::CensusError) -> PyErr {
    use rtac_census::CensusError as E;
    match e {
        E::Output { .. } => PyOSError::new_err(e.to_string()),
        E::Input { what, message } => {
            let what = match what.as_str() {
                "--n" => "n".to_string(),
                "--category" => "categories".to_string(),
                "--controller" => "controllers".to_string(),
                "--baseline" => "baseline".to_string(),
                _ => what,
            };
            CensusError::new_err(E::Input { what, message }.to_string())
        }
        other => CensusError::new_err(other.to_string()),
    }
}

/// One network's measures as Python gets them from `Census.measure`:
/// (index, wall_s, [(mbps, rtt_ms, share, jain)] with the baseline first).
type Measured = (u64, f64, Vec<(f64, f64, Option<f64>, Option<f64>)>);

fn measure_tuple(m: &Measure) -> (f64, f64, Option<f64>, Option<f64>) {
    (m.mbps, m.rtt_ms, m.share, m.jain)
}

/// A census: its settings, the networks done (read back from its output
/// directory or run here), and the output directory while it is open.
/// `run` runs networks on Rust threads; `measure` runs networks and only
/// returns their measures (a Ray task) and `record` takes them back in.
#[pyclass(frozen, module = "rtac._rtac")]
struct Census {
    settings: Settings,
    traces: Traces,
    state: Mutex<CensusState>,
}

#[derive(Default)]
struct CensusState {
    out: Option<Output>,
    results: BTreeMap<u64, NetworkResult>,
}

impl CensusState {
    fn add(&mut self, s: &Settings, r: NetworkResult) -> Result<(), rtac_census::CensusError> {
        if let Some(o) = self.out.as_mut() {
            o.record(s, &r)?;
        }
        self.results.insert(r.net.index, r);
        Ok(())
    }
}

impl Census {
    fn state(&self) -> MutexGuard<'_, CensusState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn check_indices(&self, indices: &[u64]) -> PyResult<()> {
        match indices.iter().find(|&&i| i >= self.settings.n) {
            Some(bad) => {
                Err(PyValueError::new_err(format!("network {bad}: the census has {} networks", self.settings.n)))
            }
            None => Ok(()),
        }
    }
}

#[pymethods]
impl Census {
    /// The settings as `rtac census` builds them from its options, with the
    /// same defaults: `controllers` None is rtac, drwa, rtac:k=3e-7;
    /// `categories` None is all; `traces` None is the Mahimahi files in
    /// traces/mahimahi under the current directory if it is there.
    #[new]
    #[pyo3(signature = (n=200, seed=1, controllers=None, baseline=rtac_census::DEFAULT_BASELINE.to_string(), categories=None, traces=None))]
    fn new(
        n: i64,
        seed: u64,
        controllers: Option<Vec<String>>,
        baseline: String,
        categories: Option<Vec<String>>,
        traces: Option<Vec<PathBuf>>,
    ) -> PyResult<Self> {
        let n = u64::try_from(n).map_err(|_| {
            census_error(rtac_census::CensusError::Input {
                what: "n".into(),
                message: format!("{n} networks: give 1 to {}", rtac_census::MAX_NETWORKS),
            })
        })?;
        let settings =
            Settings::from_names(seed, n, controllers.as_deref(), &baseline, categories.as_deref(), traces.as_deref())
                .map_err(census_error)?;
        Ok(Census { settings, traces: Traces::default(), state: Mutex::new(CensusState::default()) })
    }

    #[getter]
    fn n(&self) -> u64 {
        self.settings.n
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.settings.seed
    }

    /// The receivers under test, as given.
    #[getter]
    fn receivers(&self) -> Vec<String> {
        self.settings.receivers.iter().map(|r| r.spec.clone()).collect()
    }

    #[getter]
    fn baseline(&self) -> String {
        self.settings.baseline.spec.clone()
    }

    #[getter]
    fn categories(&self) -> Vec<String> {
        self.settings.categories.iter().map(|c| c.name().to_string()).collect()
    }

    /// The trace files the trace category draws from, as found.
    #[getter]
    fn trace_files(&self) -> Vec<PathBuf> {
        self.settings.pool.traces.clone()
    }

    /// Opens (creating) the output directory `dir`, in `rtac census --out`'s
    /// format, and takes in the networks already there. Returns how many of
    /// this census's networks were there. Holds the directory's lock until
    /// `close`.
    fn open(&self, py: Python<'_>, dir: PathBuf) -> PyResult<usize> {
        let (out, done) = py.detach(|| Output::open(&dir, &self.settings)).map_err(census_error)?;
        let mut st = self.state();
        st.out = Some(out);
        let n = self.settings.n;
        st.results.extend(done.into_iter().filter(|r| r.net.index < n).map(|r| (r.net.index, r)));
        Ok(st.results.len())
    }

    /// Releases the output directory.
    fn close(&self) {
        self.state().out = None;
    }

    /// The indices of the networks not done yet, in order.
    fn todo(&self) -> Vec<u64> {
        let st = self.state();
        (0..self.settings.n).filter(|i| !st.results.contains_key(i)).collect()
    }

    /// Runs the networks `indices` on up to `threads` threads without the
    /// GIL, recording each as it finishes; `progress()` is called after
    /// each. Stops at the first error (or KeyboardInterrupt), keeping what
    /// finished.
    #[pyo3(signature = (indices, threads, progress=None))]
    fn run(&self, py: Python<'_>, indices: Vec<u64>, threads: usize, progress: Option<Py<PyAny>>) -> PyResult<()> {
        self.check_indices(&indices)?;
        let mut raised: Option<PyErr> = None;
        let result = py.detach(|| {
            let mut st = self.state();
            rtac_census::run_networks(&self.settings, &indices, threads, &self.traces, |r| {
                st.add(&self.settings, r)?;
                let called = Python::attach(|py| {
                    py.check_signals()?;
                    progress.as_ref().map_or(Ok(()), |f| f.call0(py).map(drop))
                });
                called.map_err(|e| {
                    raised = Some(e);
                    rtac_census::CensusError::Input { what: "census".into(), message: "stopped".into() }
                })
            })
        });
        match (raised, result) {
            (Some(e), _) => Err(e),
            (None, r) => r.map_err(census_error),
        }
    }

    /// Runs the networks `indices` one after the other on this thread
    /// without the GIL and returns their measures, recording nothing: the
    /// work of one Ray task, whose driver `record`s them.
    fn measure(&self, py: Python<'_>, indices: Vec<u64>) -> PyResult<Vec<Measured>> {
        self.check_indices(&indices)?;
        py.detach(|| {
            indices
                .iter()
                .map(|&i| {
                    let r = rtac_census::run_network(&self.settings, i, &self.traces)?;
                    let mut ms = vec![measure_tuple(&r.base)];
                    ms.extend(r.receivers.iter().map(|(m, _)| measure_tuple(m)));
                    Ok((i, r.wall_s, ms))
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .map_err(census_error)
    }

    /// Takes in network `index`'s measures from `measure` (the baseline's
    /// first): judges them and records them in the output directory.
    fn record(&self, index: u64, wall_s: f64, measures: Vec<(f64, f64, Option<f64>, Option<f64>)>) -> PyResult<()> {
        self.check_indices(&[index])?;
        let want = self.settings.receivers.len() + 1;
        if measures.len() != want {
            return Err(PyValueError::new_err(format!(
                "network {index}: {} measures for {want} receivers (the baseline included)",
                measures.len()
            )));
        }
        let mut ms: Vec<Measure> =
            measures.into_iter().map(|(mbps, rtt_ms, share, jain)| Measure { mbps, rtt_ms, share, jain }).collect();
        let base = ms.remove(0);
        let r = NetworkResult::from_measures(self.settings.network(index), base, ms, wall_s);
        self.state().add(&self.settings, r).map_err(census_error)
    }

    /// The columns of `rows`.
    #[getter]
    fn columns(&self) -> Vec<String> {
        CENSUS_COLUMNS.iter().map(|c| c.to_string()).collect()
    }

    /// The networks done, a row per network and receiver (the baseline's
    /// first, with no verdict), by index: networks.csv's columns, as a dict
    /// of column lists.
    fn rows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let st = self.state();
        let mut rows = Vec::new();
        for r in st.results.values() {
            let row = |receiver: &str, m: &Measure, v: Option<&rtac_census::Verdict>| {
                let opt = |x: Option<f64>| x.map_or(Cell::Null, Cell::Float);
                vec![
                    Cell::Int(r.net.index as i64),
                    Cell::Str(r.net.category.name().to_string()),
                    Cell::Str(receiver.to_string()),
                    Cell::Float(m.mbps),
                    Cell::Float(m.rtt_ms),
                    opt(m.share),
                    opt(m.jain),
                    v.map_or(Cell::Null, |v| Cell::Bool(v.pass)),
                    v.map_or(Cell::Null, |v| Cell::Bool(v.catastrophic)),
                    opt(v.map(|v| v.thr_ratio)),
                    opt(v.map(|v| v.rtt_ratio)),
                    Cell::Float(r.wall_s),
                    Cell::Str(r.net.describe()),
                ]
            };
            rows.push(row(&self.settings.baseline.spec, &r.base, None));
            for (rx, (m, v)) in self.settings.receivers.iter().zip(&r.receivers) {
                rows.push(row(&rx.spec, m, Some(v)));
            }
        }
        columnar(py, &self.columns(), &rows)
    }

    /// `rtac census`'s report of the networks done, with `worst` worst
    /// cases per receiver; also written to report.txt while the output
    /// directory is open.
    #[pyo3(signature = (worst=10))]
    fn report(&self, worst: usize) -> PyResult<String> {
        let st = self.state();
        let results: Vec<NetworkResult> = st.results.values().cloned().collect();
        let text = report::text(&self.settings, &results, worst, st.out.as_ref());
        if let Some(o) = &st.out {
            o.write_report(&text).map_err(census_error)?;
        }
        Ok(text)
    }
}

/// The columns of a census's rows: networks.csv's.
const CENSUS_COLUMNS: [&str; 13] = [
    "index",
    "category",
    "receiver",
    "mbps",
    "rtt_ms",
    "share",
    "jain",
    "pass",
    "catastrophic",
    "thr_ratio",
    "rtt_ratio",
    "wall_s",
    "network",
];

#[pymodule]
fn _rtac(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("CensusError", m.py().get_type::<CensusError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<Plan>()?;
    m.add_class::<SweepLock>()?;
    m.add_class::<SweepOut>()?;
    m.add_class::<Census>()?;
    m.add_function(wrap_pyfunction!(read_document, m)?)?;
    Ok(())
}
