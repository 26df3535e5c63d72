//! `rtac._rtac`: the simulator and sweep plans for Python. The Python
//! package (`python/rtac`) builds DataFrames, parallelism and Ray on top;
//! this module only converts between Python values, TOML values and rows.

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use rtac_sim::RunOptions;
use rtac_sweep::columns::{series_rows, Cell, SERIES_COLUMNS};
use rtac_sweep::{Plan as SweepPlan, Source, Sweep, SweepError, Table, Value};
use std::path::PathBuf;

create_exception!(
    _rtac,
    ScenarioError,
    PyValueError,
    "A scenario or sweep is invalid; the message names the file, the field and what is wrong."
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

    /// Creates `dir` for this sweep's output, or checks that an existing
    /// one holds runs of the same scenario (OSError otherwise).
    fn prepare_dir(&self, dir: PathBuf) -> PyResult<()> {
        rtac_sweep::out::prepare_dir(&dir, &self.plan).map_err(|e| match e {
            SweepError::Output { .. } => PyOSError::new_err(e.to_string()),
            other => scenario_error(other),
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

#[pymodule]
fn _rtac(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_class::<Plan>()?;
    m.add_function(wrap_pyfunction!(read_document, m)?)?;
    Ok(())
}
