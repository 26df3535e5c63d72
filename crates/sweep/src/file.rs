//! Reading a sweep file (`rtac sweep SWEEP.toml`):
//!
//! ```toml
//! scenario = "../scenarios/rtac-lte-single.toml"   # required, relative to this file
//! seeds = [1, 2, 3]                # or a count: seeds = 3 is 0, 1, 2;
//!                                  # default: the scenario's seed
//! controllers = ["autotuning", "rtac"]   # optional: replaces the scenario's list
//!
//! [grid]                           # optional: field = [values], fields in
//! "link[0].rate" = ["10mbit", "40mbit"]  # sorted order, the last varying fastest
//! "flow[0].cc" = ["cubic", "reno"]
//! ```

use crate::{Source, Sweep, SweepError};
use rtac_sim::scenario::read_document;
use std::path::Path;
use toml::Value;

const KEYS: &[&str] = &["scenario", "seeds", "controllers", "grid"];
/// The most seeds a count may ask for (a list is bounded by the file).
const MAX_SEEDS: i64 = 1_000_000;

/// Reads the sweep in `path` and the scenario it names.
pub fn load(path: &Path) -> Result<Sweep, SweepError> {
    let origin = path.display().to_string();
    let err = |field: &str, message: String| SweepError::Field { origin: origin.clone(), field: field.into(), message };
    let doc = read_document(path)?;
    if let Some(k) = doc.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(err(k, format!("unknown key; known keys: {}", KEYS.join(", "))));
    }
    let scenario = match doc.get("scenario") {
        Some(Value::String(s)) => path.parent().unwrap_or(Path::new("")).join(s),
        Some(other) => return Err(err("scenario", format!("expected a file name, got a {}", other.type_str()))),
        None => {
            return Err(err("scenario", "missing: the scenario file to sweep, such as scenario = \"x.toml\"".into()))
        }
    };
    let seeds = match doc.get("seeds") {
        None => None,
        Some(v) => Some(seeds(v).map_err(|(f, m)| err(&f, m))?),
    };
    let grid = match doc.get("grid") {
        None => Vec::new(),
        Some(Value::Table(t)) => t
            .iter()
            .map(|(field, v)| match v {
                Value::Array(values) => Ok((field.clone(), values.clone())),
                other => Err(err(
                    &format!("grid.{field:?}"),
                    format!("expected an array of values, got a {}", other.type_str()),
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(err("grid", format!("expected a [grid] table, got a {}", other.type_str()))),
    };
    Ok(Sweep { source: Source::file(&scenario)?, grid, seeds, controllers: doc.get("controllers").cloned() })
}

/// `[1, 2, 3]` or a count `3` (0, 1, 2).
pub fn seeds(v: &Value) -> Result<Vec<u64>, (String, String)> {
    match v {
        Value::Integer(n) if (1..=MAX_SEEDS).contains(n) => Ok((0..*n as u64).collect()),
        Value::Integer(n) => Err(("seeds".into(), format!("a count of seeds must be 1..={MAX_SEEDS}, got {n}"))),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, s)| match s {
                Value::Integer(n) if *n >= 0 => Ok(*n as u64),
                other => Err((format!("seeds[{i}]"), format!("expected an integer >= 0, got {other}"))),
            })
            .collect(),
        other => Err(("seeds".into(), format!("expected a list of seeds or a count, got a {}", other.type_str()))),
    }
}
