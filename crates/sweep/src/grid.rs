//! The grid's columns in a sweep's rows. Each grid field has a column of
//! its values as the grid gives them (`link[0].rate`: `"10mbit"`), which
//! the job's `run_key` repeats, and, when that column holds text and every
//! value is a quantity of one kind, a numeric companion right after it
//! whose name says the unit:
//!
//! | values | companion | cell |
//! |---|---|---|
//! | rates: `10mbit`, `500kbit`, `1gbps` | `FIELD_mbps` | float, Mbit/s |
//! | durations: `20ms`, `1.5s`, `250us` | `FIELD_ms` | float, ms |
//! | sizes with a byte unit, or plain integers beside them: `64KB`, `1448` | `FIELD_bytes` | integer, bytes (KB = 1024 B, as the scenario reads them) |
//! | plain numbers written as text: `"400"`, `"3e-7"` | `FIELD_value` | integer if all are, else float |
//!
//! The units are those of the other columns: `throughput_mbps`,
//! `rtt_mean_ms`, `bytes_delivered`. Values are read with the scenario
//! parser's own functions (`rtac_core::units`), so `link[0].rate_mbps` is
//! the rate the run used. A field whose values are numbers in the grid
//! (`k = [3e-7, 1e-6]`) is numeric already and gets no companion; nor does
//! one whose values are names (`flow[0].cc`) or mix kinds.

use crate::columns::{Cell, Kind};
use rtac_core::units::{parse_bandwidth, parse_bytes, parse_duration};
use toml::Value;

/// What a companion column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Mbps,
    Ms,
    Bytes,
    /// A plain number, in the field's own unit.
    Number,
}

impl Unit {
    /// The end of the companion's name: `link[0].rate` + `_mbps`.
    pub fn suffix(self) -> &'static str {
        match self {
            Unit::Mbps => "_mbps",
            Unit::Ms => "_ms",
            Unit::Bytes => "_bytes",
            Unit::Number => "_value",
        }
    }
}

/// One of the leading columns of a plan's rows.
#[derive(Clone, Debug, PartialEq)]
pub struct GridColumn {
    /// Index of the grid field it shows.
    pub field: usize,
    pub name: String,
    pub kind: Kind,
    /// `None`: the field's values; `Some`: their numeric companion.
    pub unit: Option<Unit>,
}

impl GridColumn {
    /// This column's cell for the field's value `v`.
    pub fn cell(&self, v: &Value) -> Cell {
        match self.unit {
            None => value_cell(self.kind, v),
            Some(unit) => self.companion_cell(unit, &crate::render(v)),
        }
    }

    fn companion_cell(&self, unit: Unit, text: &str) -> Cell {
        quantity(text).and_then(|(u, c)| number(unit, u, c)).and_then(|c| c.to_kind(self.kind)).unwrap_or(Cell::Null)
    }

    /// This companion's cell for a value column's cell `c` (a row written
    /// before the companion existed); `Null` where `c` is not a quantity.
    pub fn cell_from(&self, c: &Cell) -> Cell {
        let text = match c {
            Cell::Str(s) => s.clone(),
            Cell::Int(i) => i.to_string(),
            Cell::Float(x) => x.to_string(),
            Cell::Bool(_) | Cell::Null => return Cell::Null,
        };
        match self.unit {
            None => c.clone(),
            Some(unit) => self.companion_cell(unit, &text),
        }
    }
}

/// The columns of `fields` (name, values), in order: each field's own and,
/// after it, its companion unless one of `taken` (or an earlier column)
/// already has that name.
pub fn grid_columns(fields: &[(String, Vec<Value>)], taken: &[&str]) -> Vec<GridColumn> {
    let mut out: Vec<GridColumn> = Vec::new();
    let names: Vec<&str> = fields.iter().map(|(f, _)| f.as_str()).chain(taken.iter().copied()).collect();
    for (i, (field, values)) in fields.iter().enumerate() {
        let kind = value_kind(values);
        out.push(GridColumn { field: i, name: field.clone(), kind, unit: None });
        if kind != Kind::Str {
            continue;
        }
        if let Some((unit, kind)) = companion(values) {
            let name = format!("{field}{}", unit.suffix());
            if !names.contains(&name.as_str()) && !out.iter().any(|c| c.name == name) {
                out.push(GridColumn { field: i, name, kind, unit: Some(unit) });
            }
        }
    }
    out
}

/// The kind of a field's value column: booleans, integers or numbers when
/// every value is one, else text.
pub fn value_kind(values: &[Value]) -> Kind {
    if values.iter().all(|v| matches!(v, Value::Boolean(_))) {
        Kind::Bool
    } else if values.iter().all(|v| matches!(v, Value::Integer(_))) {
        Kind::Int
    } else if values.iter().all(|v| matches!(v, Value::Integer(_) | Value::Float(_))) {
        Kind::Float
    } else {
        Kind::Str
    }
}

fn value_cell(kind: Kind, v: &Value) -> Cell {
    match (kind, v) {
        (Kind::Bool, Value::Boolean(b)) => Cell::Bool(*b),
        (Kind::Int, Value::Integer(i)) => Cell::Int(*i),
        (Kind::Float, Value::Integer(i)) => Cell::Float(*i as f64),
        (Kind::Float, Value::Float(x)) => Cell::Float(*x),
        (_, other) => Cell::Str(crate::render(other)),
    }
}

/// What a value's text is: a quantity of one of the units, or a plain
/// number (`Unit::Number`), with its cell in that unit.
fn quantity(text: &str) -> Option<(Unit, Cell)> {
    let t = text.trim();
    let end = t.find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))).unwrap_or(t.len());
    let (num, unit) = t.split_at(end);
    if num.is_empty() {
        return None;
    }
    let unit = unit.trim();
    let lower = unit.to_ascii_lowercase();
    match lower.as_str() {
        "" => match num.parse::<i64>() {
            Ok(i) => Some((Unit::Number, Cell::Int(i))),
            Err(_) => num.parse::<f64>().ok().filter(|x| x.is_finite()).map(|x| (Unit::Number, Cell::Float(x))),
        },
        "bit" | "bps" | "b/s" | "kbit" | "kbps" | "kbit/s" | "mbit" | "mbps" | "mbit/s" | "gbit" | "gbps"
        | "gbit/s" => parse_bandwidth(t).ok().map(|b| (Unit::Mbps, Cell::Float(b.bps() as f64 / 1e6))),
        "b" | "kb" | "kib" | "mb" | "mib" | "gb" | "gib" => {
            parse_bytes(t).ok().map(|b| (Unit::Bytes, Cell::Int(i64::try_from(b).unwrap_or(i64::MAX))))
        }
        _ if matches!(unit, "ns" | "us" | "µs" | "ms" | "s" | "min") => {
            parse_duration(t).ok().map(|d| (Unit::Ms, Cell::Float(d.as_nanos() as f64 / 1e6)))
        }
        _ => None,
    }
}

/// The companion's cell for a value read as `(found, c)`, if it has
/// the companion's unit.
fn number(unit: Unit, found: Unit, c: Cell) -> Option<Cell> {
    match (unit, found, c) {
        (u, f, c) if u == f => Some(c),
        // A plain integer beside sizes is a size in bytes, as the scenario
        // reads `bytes = "1448"`.
        (Unit::Bytes, Unit::Number, Cell::Int(i)) if i >= 0 => Some(Cell::Int(i)),
        _ => None,
    }
}

/// The companion of a field whose values are `values`, and its kind: the
/// unit every value has (plain integers count as bytes beside sizes).
fn companion(values: &[Value]) -> Option<(Unit, Kind)> {
    let found: Vec<(Unit, Cell)> = values.iter().map(|v| quantity(&crate::render(v))).collect::<Option<_>>()?;
    let has = |u: Unit| found.iter().any(|(f, _)| *f == u);
    let unit = if found.iter().all(|(f, _)| *f == found[0].0) {
        found[0].0
    } else if found.iter().all(|(f, c)| *f == Unit::Bytes || matches!((f, c), (Unit::Number, Cell::Int(i)) if *i >= 0))
        && has(Unit::Bytes)
    {
        Unit::Bytes
    } else {
        return None;
    };
    let kind = match unit {
        Unit::Mbps | Unit::Ms => Kind::Float,
        Unit::Bytes => Kind::Int,
        Unit::Number if found.iter().all(|(_, c)| matches!(c, Cell::Int(_))) => Kind::Int,
        Unit::Number => Kind::Float,
    };
    Some((unit, kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(v: &[&str]) -> Vec<Value> {
        v.iter().map(|s| Value::String(s.to_string())).collect()
    }

    fn columns(field: &str, values: Vec<Value>) -> Vec<(String, Kind, Vec<Cell>)> {
        let grid = vec![(field.to_string(), values.clone())];
        grid_columns(&grid, &["seed"])
            .into_iter()
            .map(|c| {
                let cells = values.iter().map(|v| c.cell(v)).collect();
                (c.name, c.kind, cells)
            })
            .collect()
    }

    #[test]
    fn quantities_get_a_companion_in_the_units_of_the_result_columns() {
        let c = columns("link[0].rate", strs(&["10mbit", "500kbit", "1gbps"]));
        assert_eq!(c[1].0, "link[0].rate_mbps");
        assert_eq!(c[1].1, Kind::Float);
        assert_eq!(c[1].2, [Cell::Float(10.0), Cell::Float(0.5), Cell::Float(1000.0)]);
        assert_eq!(c[0].2[0], Cell::Str("10mbit".into()), "the value as given stays");

        let c = columns("link[0].delay", strs(&["20ms", "1.5s", "250us"]));
        assert_eq!((c[1].0.as_str(), c[1].1), ("link[0].delay_ms", Kind::Float));
        assert_eq!(c[1].2, [Cell::Float(20.0), Cell::Float(1500.0), Cell::Float(0.25)]);

        let c = columns("flow[0].bytes", strs(&["1448", "64KB"]));
        assert_eq!((c[1].0.as_str(), c[1].1), ("flow[0].bytes_bytes", Kind::Int));
        assert_eq!(c[1].2, [Cell::Int(1448), Cell::Int(65536)]);

        let c = columns("link[0].queue.packets", strs(&["100", "400"]));
        assert_eq!((c[1].0.as_str(), c[1].1), ("link[0].queue.packets_value", Kind::Int));
        assert_eq!(c[1].2, [Cell::Int(100), Cell::Int(400)]);
        let c = columns("controllers[1].params.k", strs(&["3e-7", "1"]));
        assert_eq!(c[1].1, Kind::Float);
        assert_eq!(c[1].2, [Cell::Float(3e-7), Cell::Float(1.0)]);
    }

    #[test]
    fn numbers_names_and_mixed_kinds_get_none() {
        let ints = vec![Value::Integer(100), Value::Integer(400)];
        assert_eq!(
            columns("link[0].queue.packets", ints)[..],
            [("link[0].queue.packets".into(), Kind::Int, vec![Cell::Int(100), Cell::Int(400)])]
        );
        let mixed = vec![Value::Integer(1), Value::Float(2.5)];
        assert_eq!(columns("x", mixed)[0].2, [Cell::Float(1.0), Cell::Float(2.5)]);
        assert_eq!(columns("flow[0].cc", strs(&["cubic", "reno"])).len(), 1);
        assert_eq!(columns("link[0].queue", strs(&["droptail:packets=100", "codel"])).len(), 1);
        assert_eq!(columns("x", strs(&["10mbit", "20ms"])).len(), 1, "two kinds");
        assert_eq!(columns("x", strs(&["10mbit", "fast"])).len(), 1);
        assert_eq!(columns("x", strs(&["5m", "10"])).len(), 1, "no single-letter units");
        // A name already taken keeps its column; no companion shadows it.
        let grid = vec![("d".to_string(), strs(&["1ms"])), ("d_ms".to_string(), strs(&["x"]))];
        let names: Vec<String> = grid_columns(&grid, &[]).into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["d", "d_ms"]);
    }

    #[test]
    fn a_row_written_before_companions_gets_the_same_cells() {
        let values = strs(&["10mbit", "40mbit"]);
        let cols = grid_columns(&[("link[0].rate".into(), values.clone())], &[]);
        for v in &values {
            assert_eq!(cols[1].cell_from(&Cell::Str(crate::render(v))), cols[1].cell(v));
        }
        assert_eq!(cols[1].cell_from(&Cell::Str("nonsense".into())), Cell::Null);
    }
}
