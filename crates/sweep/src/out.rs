//! Resumable sweep output. A directory holds `_scenario.toml` (the base
//! document, so that a rerun with another scenario is refused rather than
//! mixed in) and the rows of finished jobs, each row carrying its job's
//! `run_key`; a rerun skips the jobs whose keys are there. The rows are
//! Parquet parts (`part-*.parquet`, `parts.rs`), as both `rtac sweep` and
//! the Python package write them, or one `runs.csv` (`rtac sweep --format
//! csv`, `CsvOut`). Every file that is not rows starts with `_` or `.`,
//! which Parquet readers (pyarrow's dataset discovery) skip, so the
//! directory reads as one dataset. A directory written under the older
//! name `scenario.toml` is checked under that name and the file moved to
//! the new one.
//!
//! One process writes to a directory at a time: `open_dir` takes an
//! exclusive lock (`LOCK_FILE`) before it reads what is there, so two
//! sweeps on one directory cannot both run the jobs that are missing.
//! `_scenario.toml` is written whole or not at all (`write_atomic`).

use crate::columns::Cell;
use crate::{Plan, SweepError};
use rtac_sim::scenario::input::{echo, open_regular, read_bounded, MAX_SCENARIO_BYTES};
use std::collections::HashSet;
use std::io::{BufRead, Read, Seek, Write};
use std::path::{Path, PathBuf};

pub const SCENARIO_FILE: &str = "_scenario.toml";
/// `SCENARIO_FILE`'s earlier name, read from directories written before.
pub const OLD_SCENARIO_FILE: &str = "scenario.toml";
pub const CSV_FILE: &str = "runs.csv";
/// Locked by the process writing to the directory (`lock_dir`); it holds
/// that process's id, for the message another one gets.
pub const LOCK_FILE: &str = ".rtac-sweep.lock";

/// An exclusive lock on an output directory, held until dropped. The lock
/// is an `flock` on `LOCK_FILE`, so it goes with the process that holds it
/// however that process ends; the file itself stays.
#[derive(Debug)]
pub struct DirLock {
    _file: std::fs::File,
}

/// Opens `path` without following a symlink and without blocking, and
/// checks that it is a regular file; created (mode 0644) if `options` say
/// so.
pub fn open_nofollow(path: &Path, options: &mut std::fs::OpenOptions) -> std::io::Result<std::fs::File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).mode(0o644);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "is not a regular file"));
    }
    Ok(file)
}

/// Creates `dir` if needed and locks it for this process, so that two
/// sweeps cannot append the same runs to one `runs.csv`. A directory that
/// another process holds is refused, naming that process.
pub fn lock_dir(dir: &Path) -> Result<DirLock, SweepError> {
    let fail = |path: PathBuf, message: String| SweepError::Output { path, message };
    create_dir(dir)?;
    let path = dir.join(LOCK_FILE);
    let mut file = open_nofollow(&path, std::fs::OpenOptions::new().read(true).write(true).create(true))
        .map_err(|e| fail(path.clone(), format!("cannot open the lock file: {e}")))?;
    if !try_lock(&file).map_err(|e| fail(path.clone(), format!("cannot lock: {e}")))? {
        let mut pid = String::new();
        let _ = (&file).take(32).read_to_string(&mut pid);
        let holder = match pid.trim().parse::<u32>() {
            Ok(p) => format!("another sweep (process {p})"),
            Err(_) => "another sweep".to_string(),
        };
        return Err(fail(
            dir.to_path_buf(),
            format!("{holder} is writing to this directory; wait for it to finish or use another output directory"),
        ));
    }
    // Best effort: the pid only makes the message above more helpful.
    let _ = file.set_len(0).and_then(|()| writeln!(file, "{}", std::process::id()));
    Ok(DirLock { _file: file })
}

/// Takes an exclusive `flock` on `file` without waiting: `Ok(false)` if
/// another open file holds it. The lock lasts while `file` is open, and
/// goes with the process however it ends (`rtac sim --out` locks its
/// staging directories this way too).
pub fn try_lock(file: &std::fs::File) -> std::io::Result<bool> {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor that `file` owns.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let e = std::io::Error::last_os_error();
            return if e.raw_os_error() == Some(libc::EWOULDBLOCK) { Ok(false) } else { Err(e) };
        }
    }
    #[cfg(not(unix))]
    let _ = file;
    Ok(true)
}

/// Locks `dir` (`lock_dir`), then prepares it for `plan` (`prepare_dir`).
/// The lock is held until the returned value is dropped.
pub fn open_dir(dir: &Path, plan: &Plan) -> Result<DirLock, SweepError> {
    let lock = lock_dir(dir)?;
    prepare_dir(dir, plan)?;
    Ok(lock)
}

fn create_dir(dir: &Path) -> Result<(), SweepError> {
    let fail = |message: String| SweepError::Output { path: dir.to_path_buf(), message };
    if dir.exists() && !dir.is_dir() {
        return Err(fail("exists and is not a directory".to_string()));
    }
    std::fs::create_dir_all(dir).map_err(|e| fail(format!("cannot create the directory: {e}")))
}

/// Creates `dir` for `plan`'s output, or checks that an existing one was
/// made for the same base scenario. A `_scenario.toml` that is empty or not
/// TOML (a write cut short, by a full disk say) in a directory that holds
/// no runs is written anew, as if it were missing. A directory with only
/// the older `scenario.toml` is checked against that file, which then
/// moves to `_scenario.toml`.
pub fn prepare_dir(dir: &Path, plan: &Plan) -> Result<(), SweepError> {
    let fail = |path: PathBuf, message: String| SweepError::Output { path, message };
    create_dir(dir)?;
    let file = dir.join(SCENARIO_FILE);
    let old = dir.join(OLD_SCENARIO_FILE);
    let read = |path: &Path| read_bounded(path, MAX_SCENARIO_BYTES, "a scenario file");
    let (found, text) = match read(&file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (old.clone(), read(&old)),
        r => (file.clone(), r),
    };
    let write = || {
        write_atomic(&file, plan.document.as_bytes()).map_err(|e| fail(file.clone(), format!("cannot write: {e}")))?;
        if found == old {
            match std::fs::remove_file(&old) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(fail(old.clone(), format!("cannot remove after writing {SCENARIO_FILE}: {e}")))
                }
                _ => {}
            }
        }
        Ok(())
    };
    match text {
        Ok(t) if t == plan.document.as_bytes() => {
            if found == old {
                write()?;
            }
            Ok(())
        }
        Ok(t) if !is_toml(&t) && !holds_runs(dir).map_err(|e| fail(dir.to_path_buf(), e))? => write(),
        Ok(_) => Err(fail(
            found.clone(),
            "holds runs of a different scenario; use another output directory or delete this one".to_string(),
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => write(),
        Err(e) => Err(fail(found.clone(), format!("cannot read: {e}"))),
    }
}

/// Whether `text` is a TOML document that holds something.
fn is_toml(text: &[u8]) -> bool {
    std::str::from_utf8(text).is_ok_and(|t| !t.trim().is_empty() && t.parse::<toml::Table>().is_ok())
}

/// Whether `dir` holds the rows of any run: a line after the header of
/// `runs.csv`, or a Parquet part (`part-*`) of the Python package.
fn holds_runs(dir: &Path) -> Result<bool, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot list: {e}"))?;
    for entry in entries {
        let name = entry.map_err(|e| format!("cannot list: {e}"))?.file_name();
        if name.to_string_lossy().starts_with("part-") {
            return Ok(true);
        }
    }
    let path = dir.join(CSV_FILE);
    let file = match open_regular(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(format!("{}: cannot read: {e}", path.display())),
    };
    // A second line with its line end (one cut short holds no run).
    let mut lines = std::io::BufReader::new(file);
    let mut line = Vec::new();
    for _ in 0..2 {
        line.clear();
        lines.read_until(b'\n', &mut line).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    }
    Ok(line.ends_with(b"\n"))
}

/// Writes `path` whole or not at all: into a temporary file of the same
/// directory, synced, then renamed over `path`, and the directory synced.
/// A crash or a full disk leaves the old file (or none), never a cut one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let written = open_nofollow(&tmp, std::fs::OpenOptions::new().write(true).create_new(true)).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, path)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    // The rename is durable once the directory is synced.
    std::fs::File::open(dir).and_then(|d| d.sync_all())
}

/// The formats of a sweep's rows in its output directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `part-*.parquet` files (`parts.rs`): the directory is one Parquet
    /// dataset.
    Parquet,
    /// One `runs.csv`.
    Csv,
}

impl Format {
    /// The format of the rows already in `dir`: `Csv` if it holds
    /// `runs.csv`, `Parquet` if it holds parts, `None` if neither.
    pub fn found_in(dir: &Path) -> Result<Option<Format>, SweepError> {
        if dir.join(CSV_FILE).exists() {
            return Ok(Some(Format::Csv));
        }
        if dir.is_dir() && !crate::parts::parts(dir)?.is_empty() {
            return Ok(Some(Format::Parquet));
        }
        Ok(None)
    }
}

/// `runs.csv`, appended to as jobs finish.
pub struct CsvOut {
    path: PathBuf,
    file: std::fs::File,
}

impl CsvOut {
    /// Opens `dir/runs.csv` for `plan`'s rows, returning it and the keys of
    /// the jobs it already holds. A last row cut short by an interrupted run
    /// is dropped. A file whose header is `plan.older_columns()` (written
    /// before the grid's numeric companions) is rewritten with them; any
    /// other header that differs from `plan.columns()` is an error, and so
    /// is a directory that holds Parquet parts.
    pub fn open(dir: &Path, plan: &Plan) -> Result<(CsvOut, HashSet<String>, bool), SweepError> {
        let path = dir.join(CSV_FILE);
        let fail = |message: String| SweepError::Output { path: path.clone(), message };
        if !crate::parts::parts(dir)?.is_empty() {
            return Err(SweepError::Output {
                path: dir.to_path_buf(),
                message: "this directory holds Parquet parts (part-*.parquet) of a Parquet sweep: resume it in \
                          Parquet, or give CSV output another directory"
                    .to_string(),
            });
        }
        let columns = plan.columns();
        let open = || {
            open_nofollow(&path, std::fs::OpenOptions::new().read(true).append(true).create(true))
                .map_err(|e| fail(format!("cannot open: {e}")))
        };
        let mut file = open()?;
        let mut text = String::new();
        file.read_to_string(&mut text).map_err(|e| fail(format!("cannot read: {e}")))?;
        let header = line(&columns.iter().map(|c| Cell::Str(c.clone())).collect::<Vec<_>>());
        let mut done = HashSet::new();
        let mut upgraded = false;
        if text.is_empty() {
            file.write_all(header.as_bytes()).map_err(|e| fail(format!("cannot write: {e}")))?;
        } else {
            let (mut rows, complete) = records(&text);
            let found = rows.first().map(|(_, cells)| cells.clone()).unwrap_or_default();
            let older = plan.older_columns();
            if found != columns && found == older {
                // Rewritten whole, the cut last line left out, with the
                // companions computed from each row's grid values.
                let mut new = header.clone();
                for (at, cells) in &rows[1..] {
                    if cells.len() != older.len() {
                        return Err(fail(format!("line {at}: has {} cells, not {}", cells.len(), older.len())));
                    }
                    let row = plan.upgrade_row(cells.iter().map(|c| Cell::Str(c.clone())).collect());
                    new.push_str(&line(&row));
                }
                write_atomic(&path, new.as_bytes())
                    .map_err(|e| fail(format!("cannot rewrite with the new columns: {e}")))?;
                file = open()?;
                text = new;
                rows = records(&text).0;
                upgraded = true;
            } else if found != columns {
                return Err(fail(other_columns(&found, &columns)));
            } else if complete < text.len() {
                file.set_len(complete as u64).map_err(|e| fail(format!("cannot drop a cut line: {e}")))?;
                file.seek(std::io::SeekFrom::End(0)).map_err(|e| fail(format!("cannot seek: {e}")))?;
            }
            let key_at = columns.iter().position(|c| c == "run_key").expect("sweep columns have run_key");
            for (at, cells) in &rows[1..] {
                match cells.get(key_at) {
                    Some(k) if cells.len() == columns.len() => done.insert(k.clone()),
                    _ => return Err(fail(format!("line {at}: has {} cells, not {}", cells.len(), columns.len()))),
                };
            }
        }
        Ok((CsvOut { path, file }, done, upgraded))
    }

    /// Appends one job's rows in a single write.
    pub fn append(&mut self, rows: &[Vec<Cell>]) -> Result<(), SweepError> {
        let text: String = rows.iter().map(|r| line(r)).collect();
        self.file
            .write_all(text.as_bytes())
            .map_err(|e| SweepError::Output { path: self.path.clone(), message: format!("cannot write: {e}") })
    }
}

/// Why a file's columns are not this sweep's: the first that differs.
pub(crate) fn other_columns(found: &[String], want: &[String]) -> String {
    let at = found.iter().zip(want).position(|(a, b)| a != b).unwrap_or(found.len().min(want.len()));
    let name = |cols: &[String]| cols.get(at).map_or("none".to_string(), |c| format!("{:?}", echo(c)));
    format!(
        "has other columns than this sweep (another grid?): its column {} is {}, this sweep's is {}; \
         use another output directory",
        at + 1,
        name(found),
        name(want)
    )
}

/// One CSV record, quoted where needed (RFC 4180), ending in '\n'.
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
        out.push_str(&quote(&text));
    }
    out.push('\n');
    out
}

/// One CSV field as RFC 4180 writes it: quoted, with its quotes doubled,
/// when it holds a separator, a quote or a line break.
pub fn quote(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// The records of CSV text as `line` writes them (RFC 4180: a quoted field
/// may hold separators, doubled quotes and line breaks), each with the line
/// it starts on, and the length of the text they take. A last record
/// without its line end, or with a quote still open, was cut short by an
/// interrupted write: it is left out, and the length stops before it.
pub fn records(text: &str) -> (Vec<(usize, Vec<String>)>, usize) {
    let mut done = Vec::new();
    let mut complete = 0;
    let mut cells = vec![String::new()];
    let (mut line_no, mut first_line) = (1, 1);
    let mut quoted = false;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let cell = cells.last_mut().expect("cells is never empty");
        match (c, quoted) {
            ('"', true) if chars.peek().is_some_and(|&(_, n)| n == '"') => {
                chars.next();
                cell.push('"');
            }
            ('"', true) => quoted = false,
            ('"', false) if cell.is_empty() => quoted = true,
            (',', false) => cells.push(String::new()),
            ('\r', false) if chars.peek().is_some_and(|&(_, n)| n == '\n') => {}
            ('\n', false) => {
                line_no += 1;
                done.push((first_line, std::mem::replace(&mut cells, vec![String::new()])));
                first_line = line_no;
                complete = i + 1;
            }
            (c, _) => {
                line_no += usize::from(c == '\n');
                cell.push(c);
            }
        }
    }
    (done, complete)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(cells: &[&str]) -> Vec<String> {
        cells.iter().map(|c| c.to_string()).collect()
    }

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
        assert_eq!(records(&l), (vec![(1, strings(&["a,b", "say \"hi\"", "-3", "0.25", "", "true"]))], l.len()));
        assert_eq!(records("\"open,x\n"), (vec![], 0));
    }

    #[test]
    fn a_quoted_line_break_stays_in_its_cell_and_a_cut_record_is_left_out() {
        let a = line(&[Cell::Str("a\nb".into()), Cell::Int(1)]);
        let b = line(&[Cell::Str("c\r\n".into()), Cell::Int(2)]);
        let two = format!("{a}{b}");
        let rows = vec![(1, strings(&["a\nb", "1"])), (3, strings(&["c\r\n", "2"]))];
        assert_eq!(records(&two), (rows.clone(), two.len()));
        // Cut inside a quoted line break, or before the line end.
        assert_eq!(records(&format!("{two}\"x\ny")), (rows.clone(), two.len()));
        assert_eq!(records(&format!("{two}x,3")), (rows, two.len()));
        assert_eq!(records("h\r\n1\r\n").0, [(1, strings(&["h"])), (2, strings(&["1"]))]);
    }
}
