//! Resumable sweep output. A directory holds `scenario.toml` (the base
//! document, so that a rerun with another scenario is refused rather than
//! mixed in) and the rows of finished jobs, each row carrying its job's
//! `run_key`; a rerun skips the jobs whose keys are there. The command
//! line writes `runs.csv` here; the Python package writes Parquet parts.

use crate::columns::Cell;
use crate::{Plan, SweepError};
use std::collections::HashSet;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

pub const SCENARIO_FILE: &str = "scenario.toml";
pub const CSV_FILE: &str = "runs.csv";

/// Creates `dir` for `plan`'s output, or checks that an existing one was
/// made for the same base scenario.
pub fn prepare_dir(dir: &Path, plan: &Plan) -> Result<(), SweepError> {
    let fail = |path: PathBuf, message: String| SweepError::Output { path, message };
    if dir.exists() && !dir.is_dir() {
        return Err(fail(dir.to_path_buf(), "exists and is not a directory".to_string()));
    }
    std::fs::create_dir_all(dir).map_err(|e| fail(dir.to_path_buf(), format!("cannot create the directory: {e}")))?;
    let file = dir.join(SCENARIO_FILE);
    match std::fs::read_to_string(&file) {
        Ok(old) if old == plan.document => Ok(()),
        Ok(_) => Err(fail(
            file,
            "holds runs of a different scenario; use another output directory or delete this one".to_string(),
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::write(&file, &plan.document).map_err(|e| fail(file.clone(), format!("cannot write: {e}")))
        }
        Err(e) => Err(fail(file, format!("cannot read: {e}"))),
    }
}

/// `runs.csv`, appended to as jobs finish.
pub struct CsvOut {
    path: PathBuf,
    file: std::fs::File,
}

impl CsvOut {
    /// Opens `dir/runs.csv` for `columns`, returning it and the keys of the
    /// jobs it already holds. A last line cut short by an interrupted run is
    /// dropped; a header that differs from `columns` is an error.
    pub fn open(dir: &Path, columns: &[String]) -> Result<(CsvOut, HashSet<String>), SweepError> {
        let path = dir.join(CSV_FILE);
        let fail = |message: String| SweepError::Output { path: path.clone(), message };
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(|e| fail(format!("cannot open: {e}")))?;
        let mut text = String::new();
        file.read_to_string(&mut text).map_err(|e| fail(format!("cannot read: {e}")))?;
        let header = line(&columns.iter().map(|c| Cell::Str(c.clone())).collect::<Vec<_>>());
        let mut done = HashSet::new();
        if text.is_empty() {
            file.write_all(header.as_bytes()).map_err(|e| fail(format!("cannot write: {e}")))?;
        } else {
            if !text.starts_with(&header) {
                return Err(fail(
                    "has other columns than this sweep (another grid?); use another output directory".to_string(),
                ));
            }
            let complete = text.rfind('\n').map_or(0, |i| i + 1);
            if complete < text.len() {
                file.set_len(complete as u64).map_err(|e| fail(format!("cannot drop a cut line: {e}")))?;
                file.seek(std::io::SeekFrom::End(0)).map_err(|e| fail(format!("cannot seek: {e}")))?;
            }
            let key_at = columns.iter().position(|c| c == "run_key").expect("sweep columns have run_key");
            for (n, l) in text[header.len()..complete].lines().enumerate() {
                let cells = split(l).ok_or_else(|| fail(format!("line {}: not a CSV row of this sweep", n + 2)))?;
                match cells.get(key_at) {
                    Some(k) if cells.len() == columns.len() => done.insert(k.clone()),
                    _ => return Err(fail(format!("line {}: has {} cells, not {}", n + 2, cells.len(), columns.len()))),
                };
            }
        }
        Ok((CsvOut { path, file }, done))
    }

    /// Appends one job's rows in a single write.
    pub fn append(&mut self, rows: &[Vec<Cell>]) -> Result<(), SweepError> {
        let text: String = rows.iter().map(|r| line(r)).collect();
        self.file
            .write_all(text.as_bytes())
            .map_err(|e| SweepError::Output { path: self.path.clone(), message: format!("cannot write: {e}") })
    }
}

/// One CSV line, quoted where needed (RFC 4180), ending in '\n'.
fn line(cells: &[Cell]) -> String {
    let mut out = String::new();
    for (i, c) in cells.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let text = match c {
            Cell::Str(s) => s.clone(),
            Cell::Int(n) => n.to_string(),
            Cell::Float(x) => x.to_string(),
            Cell::Bool(b) => b.to_string(),
            Cell::Null => String::new(),
        };
        if text.contains([',', '"', '\n', '\r']) {
            out.push('"');
            out.push_str(&text.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(&text);
        }
    }
    out.push('\n');
    out
}

/// The cells of one line written by `line`; `None` if a quote is unclosed.
fn split(l: &str) -> Option<Vec<String>> {
    let mut cells = vec![String::new()];
    let mut quoted = false;
    let mut chars = l.chars().peekable();
    while let Some(c) = chars.next() {
        let cell = cells.last_mut().expect("cells is never empty");
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            ('"', true) => quoted = false,
            ('"', false) if cell.is_empty() => quoted = true,
            (',', false) => cells.push(String::new()),
            (c, _) => cell.push(c),
        }
    }
    (!quoted).then_some(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_through_quoting() {
        let cells = vec![
            Cell::Str("a,b".into()),
            Cell::Str("say \"hi\"".into()),
            Cell::Int(-3),
            Cell::Float(0.25),
            Cell::Null,
            Cell::Bool(true),
        ];
        let l = line(&cells);
        assert_eq!(l, "\"a,b\",\"say \"\"hi\"\"\",-3,0.25,,true\n");
        assert_eq!(split(l.trim_end()).unwrap(), ["a,b", "say \"hi\"", "-3", "0.25", "", "true"]);
        assert_eq!(split("\"open,x"), None);
    }
}
