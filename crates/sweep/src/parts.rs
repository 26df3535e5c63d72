//! A sweep's rows as a Parquet dataset: `part-*.parquet` files in the
//! output directory, beside `_scenario.toml` and `.rtac-sweep.lock`, which
//! Parquet readers skip (`out.rs`), so that `pd.read_parquet(DIR)` reads
//! every run written so far as one table. `rtac sweep` and the Python
//! package's `sweep(out=DIR)` both write through [`ParquetOut`], so their
//! directories are the same: the same file names, and in every part the
//! plan's columns with one Parquet type each (`columns::Kind`: UTF-8
//! strings, 64-bit integers, doubles, booleans; every column nullable),
//! Snappy-compressed.
//!
//! Rows are buffered and written as one part when `FLUSH_ROWS` are waiting
//! or `FLUSH_EVERY` has passed since the last part, and on `flush`. A part
//! is written under a temporary name, synced and renamed, so a directory
//! only ever holds whole parts; an interrupted sweep loses the runs of its
//! buffer, which a rerun does again.
//!
//! On opening, every part is checked against the plan's columns: a part of
//! another grid is refused, and a part written before the grid's numeric
//! companions existed (`grid.rs`), or with other Parquet types for the same
//! columns (an older `rtac.sweep`, which let pyarrow guess them), is
//! rewritten in place with the plan's columns and types.

use crate::columns::{Cell, Kind};
use crate::out::{open_nofollow, CSV_FILE};
use crate::{Plan, SweepError};
use parquet::basic::{Compression, ConvertedType, LogicalType, Repetition, Type as Physical};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::record::Field;
use parquet::schema::types::Type;
use rtac_sim::scenario::input::echo;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Parts are named `part-<ns since 1970>-<pid>-<n>.parquet`.
pub const PART_PREFIX: &str = "part-";
pub const PART_SUFFIX: &str = ".parquet";
/// A part is written when this many rows are waiting...
pub const FLUSH_ROWS: usize = 50_000;
/// ...or this long after the last one.
pub const FLUSH_EVERY: Duration = Duration::from_secs(10);

/// The Parquet parts of an output directory, appended to as jobs finish.
pub struct ParquetOut {
    dir: PathBuf,
    schema: Vec<(String, Kind)>,
    buffer: Vec<Vec<Cell>>,
    last: Instant,
    written: usize,
}

/// What opening found: the keys of the jobs already in the directory, its
/// parts, and the parts rewritten in the plan's columns.
#[derive(Debug, Default)]
pub struct Found {
    pub done: HashSet<String>,
    pub parts: Vec<PathBuf>,
    pub upgraded: Vec<PathBuf>,
}

impl ParquetOut {
    /// Opens `dir` (prepared for `plan` by `out::open_dir`) for `plan`'s
    /// rows. A directory holding `runs.csv` (a CSV sweep) is refused.
    pub fn open(dir: &Path, plan: &Plan, now: Instant) -> Result<(ParquetOut, Found), SweepError> {
        let csv = dir.join(CSV_FILE);
        if csv.exists() {
            return Err(SweepError::Output {
                path: csv,
                message: "this directory holds a CSV sweep (`rtac sweep --format csv`): resume it in CSV, \
                          or give Parquet output another directory"
                    .to_string(),
            });
        }
        remove_temporaries(dir)?;
        let schema = plan.schema();
        let columns = plan.columns();
        let older = plan.older_columns();
        let key_at = columns.iter().position(|c| c == "run_key").expect("sweep columns have run_key");
        let mut found = Found { parts: parts(dir)?, ..Found::default() };
        for path in &found.parts {
            let fail = |message: String| SweepError::Output { path: path.clone(), message };
            let (names, matches) = part_columns(path, &schema).map_err(|e| fail(e.to_string()))?;
            if names == columns && matches {
                found.done.extend(read_column(path, key_at).map_err(&fail)?);
                continue;
            }
            let rows = if names == columns {
                read_rows(path, &schema).map_err(&fail)?
            } else if names == older {
                let old: Vec<(String, Kind)> = schema.iter().filter(|(c, _)| older.contains(c)).cloned().collect();
                read_rows(path, &old).map_err(&fail)?.into_iter().map(|r| plan.upgrade_row(r)).collect()
            } else {
                return Err(fail(crate::out::other_columns(&names, &columns)));
            };
            found.done.extend(rows.iter().filter_map(|r| match &r[key_at] {
                Cell::Str(k) => Some(k.clone()),
                _ => None,
            }));
            write_part(path, &schema, &rows)
                .map_err(|e| fail(format!("cannot rewrite in this sweep's columns: {e}")))?;
            found.upgraded.push(path.clone());
        }
        Ok((ParquetOut { dir: dir.to_path_buf(), schema, buffer: Vec::new(), last: now, written: 0 }, found))
    }

    /// Takes one job's rows; writes a part when one is due at `now`.
    pub fn add(&mut self, rows: Vec<Vec<Cell>>, now: Instant) -> Result<(), SweepError> {
        self.buffer.extend(rows);
        if self.buffer.len() >= FLUSH_ROWS || now.duration_since(self.last) >= FLUSH_EVERY {
            self.flush(now)?;
        }
        Ok(())
    }

    /// Writes the rows waiting, if any, as one part.
    pub fn flush(&mut self, now: Instant) -> Result<(), SweepError> {
        self.last = now;
        if self.buffer.is_empty() {
            return Ok(());
        }
        let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let name = format!("{PART_PREFIX}{}-{}-{:05}{PART_SUFFIX}", since.as_nanos(), std::process::id(), self.written);
        let path = self.dir.join(name);
        write_part(&path, &self.schema, &self.buffer)
            .map_err(|e| SweepError::Output { path, message: format!("cannot write: {e}") })?;
        self.written += 1;
        self.buffer.clear();
        Ok(())
    }

    /// The columns of every part, with their kinds.
    pub fn schema(&self) -> &[(String, Kind)] {
        &self.schema
    }
}

/// Removes the temporary files of parts that a writer stopped before it
/// renamed them (`write_part`); only the holder of the directory's lock
/// writes there, so none is being written.
fn remove_temporaries(dir: &Path) -> Result<(), SweepError> {
    let fail = |e: std::io::Error| SweepError::Output { path: dir.to_path_buf(), message: format!("cannot list: {e}") };
    for entry in std::fs::read_dir(dir).map_err(fail)? {
        let name = entry.map_err(fail)?.file_name().to_string_lossy().into_owned();
        if name.starts_with(&format!(".{PART_PREFIX}")) && name.ends_with(".tmp") {
            let _ = std::fs::remove_file(dir.join(name));
        }
    }
    Ok(())
}

/// The parts in `dir`, by name (the order they were written in).
pub fn parts(dir: &Path) -> Result<Vec<PathBuf>, SweepError> {
    let fail = |e: std::io::Error| SweepError::Output { path: dir.to_path_buf(), message: format!("cannot list: {e}") };
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(fail)? {
        let name = entry.map_err(fail)?.file_name().to_string_lossy().into_owned();
        if name.starts_with(PART_PREFIX) && name.ends_with(PART_SUFFIX) {
            found.push(dir.join(name));
        }
    }
    found.sort();
    Ok(found)
}

fn parquet_type(name: &str, kind: Kind) -> Type {
    let (physical, logical) = match kind {
        Kind::Str => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
        Kind::Int => (Physical::INT64, None),
        Kind::Float => (Physical::DOUBLE, None),
        Kind::Bool => (Physical::BOOLEAN, None),
    };
    let t = Type::primitive_type_builder(name, physical).with_repetition(Repetition::OPTIONAL);
    let t = if kind == Kind::Str { t.with_converted_type(ConvertedType::UTF8) } else { t };
    t.with_logical_type(logical).build().expect("a primitive column type builds")
}

/// Writes `rows` (cells of `schema`'s kinds or `Null`) as one Parquet file
/// at `path`, whole or not at all: under a temporary name in the same
/// directory, synced, then renamed.
pub fn write_part(path: &Path, schema: &[(String, Kind)], rows: &[Vec<Cell>]) -> Result<(), String> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let result = write_file(&tmp, schema, rows).and_then(|()| std::fs::rename(&tmp, path).map_err(|e| e.to_string()));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result?;
    std::fs::File::open(dir).and_then(|d| d.sync_all()).map_err(|e| e.to_string())
}

fn write_file(path: &Path, schema: &[(String, Kind)], rows: &[Vec<Cell>]) -> Result<(), String> {
    let file =
        open_nofollow(path, std::fs::OpenOptions::new().write(true).create_new(true)).map_err(|e| e.to_string())?;
    let fields = schema.iter().map(|(c, k)| Arc::new(parquet_type(c, *k))).collect();
    let root = Type::group_type_builder("schema").with_fields(fields).build().map_err(|e| e.to_string())?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_created_by(format!("rtac {}", env!("CARGO_PKG_VERSION")))
        .build();
    let mut w = SerializedFileWriter::new(&file, Arc::new(root), Arc::new(props)).map_err(|e| e.to_string())?;
    let mut group = w.next_row_group().map_err(|e| e.to_string())?;
    let mut at = 0;
    while let Some(mut col) = group.next_column().map_err(|e| e.to_string())? {
        let (name, kind) = &schema[at];
        let cells = rows.iter().map(|r| r.get(at).unwrap_or(&Cell::Null));
        let levels: Vec<i16> = cells.clone().map(|c| i16::from(*c != Cell::Null)).collect();
        let mismatch = |c: &Cell| format!("column {name}: a {kind:?} column given {c:?}");
        let written = match kind {
            Kind::Str => {
                let v = cells
                    .filter(|c| **c != Cell::Null)
                    .map(|c| match c {
                        Cell::Str(s) => Ok(ByteArray::from(s.as_str())),
                        other => Err(mismatch(other)),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                col.typed::<ByteArrayType>().write_batch(&v, Some(&levels), None)
            }
            Kind::Int => {
                let v = cells
                    .filter(|c| **c != Cell::Null)
                    .map(|c| match c {
                        Cell::Int(i) => Ok(*i),
                        other => Err(mismatch(other)),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                col.typed::<Int64Type>().write_batch(&v, Some(&levels), None)
            }
            Kind::Float => {
                let v = cells
                    .filter(|c| **c != Cell::Null)
                    .map(|c| match c {
                        Cell::Float(x) => Ok(*x),
                        other => Err(mismatch(other)),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                col.typed::<DoubleType>().write_batch(&v, Some(&levels), None)
            }
            Kind::Bool => {
                let v = cells
                    .filter(|c| **c != Cell::Null)
                    .map(|c| match c {
                        Cell::Bool(b) => Ok(*b),
                        other => Err(mismatch(other)),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                col.typed::<BoolType>().write_batch(&v, Some(&levels), None)
            }
        };
        written.map_err(|e| e.to_string())?;
        col.close().map_err(|e| e.to_string())?;
        at += 1;
    }
    group.close().map_err(|e| e.to_string())?;
    w.close().map_err(|e| e.to_string())?;
    file.sync_all().map_err(|e| e.to_string())
}

fn reader(path: &Path) -> Result<SerializedFileReader<std::fs::File>, String> {
    let file = open_nofollow(path, std::fs::OpenOptions::new().read(true)).map_err(|e| format!("cannot read: {e}"))?;
    SerializedFileReader::new(file).map_err(|e| format!("cannot read as Parquet: {e}"))
}

/// The top-level column names of the part at `path`, and whether each has
/// the Parquet type that `schema` (same names) gives it.
fn part_columns(path: &Path, schema: &[(String, Kind)]) -> Result<(Vec<String>, bool), String> {
    let r = reader(path)?;
    let root = r.metadata().file_metadata().schema();
    let fields = root.get_fields();
    let names: Vec<String> = fields.iter().map(|f| f.name().to_string()).collect();
    let matches = fields.len() == schema.len()
        && fields.iter().zip(schema).all(|(f, (c, k))| {
            let want = parquet_type(c, *k);
            let info = f.get_basic_info();
            // Text is UTF-8 (read as strings); plain byte arrays are not.
            let utf8 = *k != Kind::Str
                || info.converted_type() == ConvertedType::UTF8
                || info.logical_type_ref() == Some(&LogicalType::String);
            f.is_primitive() && f.get_physical_type() == want.get_physical_type() && utf8
        });
    Ok((names, matches))
}

/// The strings of column `at` of the part at `path` (its `run_key`s).
fn read_column(path: &Path, at: usize) -> Result<Vec<String>, String> {
    let r = reader(path)?;
    let root = r.metadata().file_metadata().schema();
    let field = root.get_fields().get(at).cloned().ok_or("has too few columns")?;
    let projection =
        Type::group_type_builder(root.name()).with_fields(vec![field]).build().map_err(|e| e.to_string())?;
    let rows = r.get_row_iter(Some(projection)).map_err(|e| format!("cannot read: {e}"))?;
    let mut out = Vec::new();
    for row in rows {
        let row = row.map_err(|e| format!("cannot read: {e}"))?;
        if let Some((_, Field::Str(s))) = row.get_column_iter().next() {
            out.push(s.clone());
        }
    }
    Ok(out)
}

/// Every row of the part at `path`, whose columns are `schema`'s (by
/// name), as cells of `schema`'s kinds.
pub fn read_rows(path: &Path, schema: &[(String, Kind)]) -> Result<Vec<Vec<Cell>>, String> {
    let r = reader(path)?;
    let rows = r.get_row_iter(None).map_err(|e| format!("cannot read: {e}"))?;
    let mut out = Vec::new();
    for row in rows {
        let row = row.map_err(|e| format!("cannot read: {e}"))?;
        let cells = row
            .get_column_iter()
            .zip(schema)
            .map(|((_, f), (name, kind))| {
                let cell = match f {
                    Field::Null => Some(Cell::Null),
                    Field::Bool(b) => Some(Cell::Bool(*b)),
                    Field::Byte(i) => Some(Cell::Int(i64::from(*i))),
                    Field::Short(i) => Some(Cell::Int(i64::from(*i))),
                    Field::Int(i) => Some(Cell::Int(i64::from(*i))),
                    Field::Long(i) => Some(Cell::Int(*i)),
                    Field::UByte(i) => Some(Cell::Int(i64::from(*i))),
                    Field::UShort(i) => Some(Cell::Int(i64::from(*i))),
                    Field::UInt(i) => Some(Cell::Int(i64::from(*i))),
                    Field::ULong(i) => i64::try_from(*i).ok().map(Cell::Int),
                    Field::Float(x) => Some(Cell::Float(f64::from(*x))),
                    Field::Double(x) => Some(Cell::Float(*x)),
                    Field::Str(s) => Some(Cell::Str(s.clone())),
                    _ => None,
                };
                cell.and_then(|c| c.to_kind(*kind))
                    .ok_or_else(|| format!("column {:?}: cannot read {f} as {kind:?}", echo(name)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        out.push(cells);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_reads_back_cell_for_cell() {
        let dir = std::env::temp_dir().join(format!("rtac-parts-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let schema: Vec<(String, Kind)> =
            [("link[0].rate", Kind::Str), ("n", Kind::Int), ("x", Kind::Float), ("b", Kind::Bool)]
                .iter()
                .map(|(c, k)| (c.to_string(), *k))
                .collect();
        let rows = vec![
            vec![Cell::Str("10mbit".into()), Cell::Int(-3), Cell::Float(0.25), Cell::Bool(true)],
            vec![Cell::Null, Cell::Null, Cell::Null, Cell::Null],
            vec![Cell::Str("a\nb, \"c\"".into()), Cell::Int(i64::MAX), Cell::Float(1e300), Cell::Bool(false)],
        ];
        let path = dir.join("part-1.parquet");
        write_part(&path, &schema, &rows).unwrap();
        assert_eq!(read_rows(&path, &schema).unwrap(), rows);
        assert_eq!(read_column(&path, 0).unwrap(), ["10mbit", "a\nb, \"c\""]);
        let (names, matches) = part_columns(&path, &schema).unwrap();
        assert_eq!(names, ["link[0].rate", "n", "x", "b"]);
        assert!(matches);
        // Another type for a column of the same name is seen.
        let mut other = schema.clone();
        other[1].1 = Kind::Float;
        assert!(!part_columns(&path, &other).unwrap().1);
        // A cell of the wrong kind is refused, and no file is left.
        let bad = dir.join("part-2.parquet");
        let e = write_part(&bad, &schema, &[vec![Cell::Int(1), Cell::Int(1), Cell::Null, Cell::Null]]).unwrap_err();
        assert!(e.contains("column link[0].rate: a Str column given Int(1)"), "{e}");
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["part-1.parquet"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
