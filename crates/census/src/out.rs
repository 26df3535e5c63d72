//! A census's output directory: resumable, one writer at a time.
//!
//! - `census.toml`: what the census is (seed, categories, receivers,
//!   traces). A later run on the directory must be the same census; it may
//!   ask for more networks, and runs only the ones not yet done.
//! - `networks.csv`: one row per network and receiver (the baseline
//!   included), appended as networks finish, a network's rows in one write.
//!   A last record cut short by a kill is dropped on resume. Files are
//!   opened, locked, written atomically and read as CSV by
//!   `rtac_sweep::out`, as a sweep's are.
//! - `failures/`: each failing (network, receiver) as a scenario file with
//!   the baseline and that receiver, which `rtac sim` replays; synthetic
//!   traces are written beside them in `failures/traces/`.
//! - `report.txt`: the last report printed.
//! - `.lock`: held (flock) while a census writes the directory.

use crate::{scenario_text, CensusError, LinkService, Measure, NetworkResult, Settings, TraceSource};
use rtac_sweep::out::{self, open_nofollow, quote, records, try_lock};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The header of `networks.csv`.
pub(crate) const HEADER: &str =
    "index,category,receiver,mbps,rtt_ms,share,jain,pass,catastrophic,thr_ratio,rtt_ratio,wall_s,network";
/// The generator's format: 2 draws a `multi` network's connections as one
/// receiver (one budget under `rtac`); rows of format 1 judged them apart.
const FORMAT: i64 = 2;

/// An open output directory.
pub struct Output {
    dir: PathBuf,
    rows: File,
    _lock: File,
}

fn io_err(path: &Path, what: &str, e: std::io::Error) -> CensusError {
    CensusError::Output { path: path.to_path_buf(), message: format!("{what}: {e}") }
}

/// The identity of a census, as `census.toml` holds it.
fn identity(s: &Settings) -> String {
    let list = |v: Vec<String>| v.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(", ");
    format!(
        "# rtac census: what this directory measures. A resumed census must match it; --n may grow.\nformat = {FORMAT}\nseed = {}\ncategories = [{}]\nbaseline = {:?}\ncontrollers = [{}]\ntraces = [{}]\n",
        s.seed,
        list(s.categories.iter().map(|c| c.name().to_string()).collect()),
        s.baseline.spec,
        list(s.receivers.iter().map(|r| r.spec.clone()).collect()),
        list(s.pool.traces.iter().map(|p| p.display().to_string()).collect()),
    )
}

fn write_atomic(path: &Path, text: &str) -> Result<(), CensusError> {
    out::write_atomic(path, text.as_bytes()).map_err(|e| io_err(path, "cannot write", e))
}

fn opt(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| v.to_string())
}

/// The rows of one network: the baseline's, then each receiver's.
pub fn rows(s: &Settings, r: &NetworkResult) -> String {
    let net = &r.net;
    let row = |receiver: &str, m: &Measure, v: Option<&crate::Verdict>| {
        [
            net.index.to_string(),
            net.category.name().to_string(),
            quote(receiver),
            m.mbps.to_string(),
            m.rtt_ms.to_string(),
            opt(m.share),
            opt(m.jain),
            v.map_or(String::new(), |v| (v.pass as u8).to_string()),
            v.map_or(String::new(), |v| (v.catastrophic as u8).to_string()),
            v.map_or(String::new(), |v| format!("{:.4}", v.thr_ratio)),
            v.map_or(String::new(), |v| format!("{:.4}", v.rtt_ratio)),
            format!("{:.3}", r.wall_s),
            quote(&net.describe()),
        ]
        .join(",")
            + "\n"
    };
    let mut text = row(&s.baseline.spec, &r.base, None);
    for (rx, (m, v)) in s.receivers.iter().zip(&r.receivers) {
        text.push_str(&row(&rx.spec, m, Some(v)));
    }
    text
}

impl Output {
    /// Opens (creating) `dir` for the census `s`, and returns the results
    /// already in it.
    pub fn open(dir: &Path, s: &Settings) -> Result<(Output, Vec<NetworkResult>), CensusError> {
        match std::fs::symlink_metadata(dir) {
            Ok(m) if !m.is_dir() => {
                return Err(CensusError::Output { path: dir.into(), message: "exists and is not a directory".into() })
            }
            Ok(_) => {}
            Err(_) => std::fs::create_dir_all(dir).map_err(|e| io_err(dir, "cannot create the directory", e))?,
        }
        let lock_path = dir.join(".lock");
        let lock = open_nofollow(&lock_path, OpenOptions::new().write(true).create(true).truncate(false))
            .map_err(|e| io_err(&lock_path, "cannot open the lock file", e))?;
        if !try_lock(&lock).map_err(|e| io_err(&lock_path, "cannot lock", e))? {
            return Err(CensusError::Output {
                path: dir.into(),
                message: "another census is writing this directory (its .lock is held)".into(),
            });
        }
        let id_path = dir.join("census.toml");
        let want = identity(s);
        let rows_path = dir.join("networks.csv");
        match std::fs::read_to_string(&id_path) {
            Ok(have) if !have.trim().is_empty() => {
                if have != want {
                    return Err(CensusError::Output {
                        path: id_path,
                        message: format!(
                            "this directory holds another census (format, seed, categories, baseline, controllers or traces differ); use another --out or the same settings. It holds:\n{}",
                            have.lines().filter(|l| !l.starts_with('#')).collect::<Vec<_>>().join("\n")
                        ),
                    });
                }
            }
            // Absent, or left empty by a write that did not finish.
            _ => write_atomic(&id_path, &want)?,
        }
        let mut rows = open_nofollow(&rows_path, OpenOptions::new().read(true).append(true).create(true))
            .map_err(|e| io_err(&rows_path, "cannot open", e))?;
        let mut text = String::new();
        rows.read_to_string(&mut text).map_err(|e| io_err(&rows_path, "cannot read", e))?;
        // Drop a last record cut short.
        let (records, keep) = records(&text);
        if keep < text.len() {
            rows.set_len(keep as u64).map_err(|e| io_err(&rows_path, "cannot truncate", e))?;
            text.truncate(keep);
        }
        rows.seek(SeekFrom::End(0)).map_err(|e| io_err(&rows_path, "cannot seek", e))?;
        if text.is_empty() {
            rows.write_all(format!("{HEADER}\n").as_bytes()).map_err(|e| io_err(&rows_path, "cannot write", e))?;
        }
        let done = Self::parse_rows(s, records);
        Ok((Output { dir: dir.to_path_buf(), rows, _lock: lock }, done))
    }

    /// The networks whose rows are all in `records` (the header first).
    fn parse_rows(s: &Settings, records: Vec<(usize, Vec<String>)>) -> Vec<NetworkResult> {
        let mut by_index: BTreeMap<u64, BTreeMap<String, (Measure, f64)>> = BTreeMap::new();
        for (_, rec) in records.into_iter().skip(1) {
            if rec.len() != HEADER.split(',').count() {
                continue;
            }
            let (Ok(index), Ok(mbps), Ok(rtt_ms)) = (rec[0].parse(), rec[3].parse(), rec[4].parse()) else {
                continue;
            };
            let m = Measure { mbps, rtt_ms, share: rec[5].parse().ok(), jain: rec[6].parse().ok() };
            by_index.entry(index).or_default().insert(rec[2].clone(), (m, rec[11].parse().unwrap_or(0.0)));
        }
        let mut out = Vec::new();
        for (index, mut m) in by_index {
            if index >= crate::MAX_NETWORKS {
                continue;
            }
            let Some((base, wall_s)) = m.remove(&s.baseline.spec) else { continue };
            let measures: Option<Vec<Measure>> = s.receivers.iter().map(|r| m.remove(&r.spec).map(|x| x.0)).collect();
            if let Some(measures) = measures {
                out.push(NetworkResult::from_measures(s.network(index), base, measures, wall_s));
            }
        }
        out
    }

    /// Appends a network's rows and writes its failing cases.
    pub fn record(&mut self, s: &Settings, r: &NetworkResult) -> Result<(), CensusError> {
        let path = self.dir.join("networks.csv");
        self.rows.write_all(rows(s, r).as_bytes()).map_err(|e| io_err(&path, "cannot write", e))?;
        for (rx, (_, v)) in s.receivers.iter().zip(&r.receivers) {
            if !v.pass {
                self.failure(s, r, rx)?;
            }
        }
        Ok(())
    }

    /// The scenario file of a failing case, relative to the directory.
    pub fn failure_name(r: &NetworkResult, rx: &crate::Receiver) -> String {
        format!("failures/{:06}-{}-{}.toml", r.net.index, r.net.category, rx.label)
    }

    fn failure(&self, s: &Settings, r: &NetworkResult, rx: &crate::Receiver) -> Result<(), CensusError> {
        let dir = self.dir.join("failures");
        std::fs::create_dir_all(&dir).map_err(|e| io_err(&dir, "cannot create", e))?;
        let trace = match &r.net.service {
            LinkService::Rate(_) => None,
            LinkService::Trace(TraceSource::File(p)) => {
                Some(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()).display().to_string())
            }
            LinkService::Trace(TraceSource::Synthetic(seed)) => {
                let tdir = dir.join("traces");
                std::fs::create_dir_all(&tdir).map_err(|e| io_err(&tdir, "cannot create", e))?;
                let name = format!("synthetic-{seed}.down");
                let path = tdir.join(&name);
                if !path.exists() {
                    write_atomic(&path, &crate::draw::synthetic_text(*seed))?;
                }
                Some(format!("traces/{name}"))
            }
        };
        let text = scenario_text(&r.net, &s.baseline, &[rx], trace.as_deref());
        write_atomic(&self.dir.join(Self::failure_name(r, rx)), &text)
    }

    pub fn write_report(&self, text: &str) -> Result<(), CensusError> {
        write_atomic(&self.dir.join("report.txt"), text)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}
