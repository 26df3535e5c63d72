//! `--out DIR`: per-run time series as CSV, streamed to disk while the run
//! goes, and the summary as JSON, all made visible at once.
//!
//! Everything is written into a staging directory first (beside `DIR` when
//! it does not exist yet, inside it otherwise) and moved into place only
//! when every file is complete, so a failure leaves no half-written output.

use rtac_core::Duration;
use rtac_sim::{FlowSample, LinkSample, Scenario, SeriesSink, SeriesSize};
use serde_json::Value;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Bytes a CSV row takes at most in practice: a flow row holds nine
/// numbers (about 55 bytes at 10^5-byte windows), a link row four.
const FLOW_ROW_BYTES: u64 = 64;
const LINK_ROW_BYTES: u64 = 32;

/// The size `--out` would write for `runs` runs of `s`, in bytes.
pub fn estimated_bytes(s: &Scenario, runs: usize) -> u64 {
    let n = SeriesSize::of(s);
    n.flow_rows
        .saturating_mul(FLOW_ROW_BYTES)
        .saturating_add(n.link_rows.saturating_mul(LINK_ROW_BYTES))
        .saturating_mul(runs as u64)
}

/// The files of one `--out` directory while they are being written.
pub struct Staging {
    dir: PathBuf,
    staging: PathBuf,
    /// `dir` existed: files are moved into it one by one; otherwise the
    /// staging directory itself becomes `dir`.
    existed: bool,
    files: Vec<String>,
    /// `STAGING_LOCK` in the staging directory, locked while this process
    /// writes there: a directory whose lock can be taken and whose process
    /// is gone was left by a run that was killed, and is removed.
    _lock: File,
}

/// Staging directories are named `.rtac-out-PID` inside `DIR`, or
/// `.NAME.rtac-out-PID` beside it.
const STAGING_TAG: &str = ".rtac-out-";
const STAGING_LOCK: &str = ".rtac-out.lock";

fn io_err(path: &Path, what: &str, e: std::io::Error) -> String {
    format!("cannot {what} {}: {e}", path.display())
}

impl Staging {
    /// Checks that `dir` can take the files named `files` (nothing in the
    /// way is a directory or other non-file), then creates the staging
    /// directory. `Err` is a message for bad input (exit 2).
    pub fn create(dir: &Path, files: Vec<String>) -> Result<Staging, String> {
        let existed = dir.exists();
        if existed && !dir.is_dir() {
            return Err(format!("--out {}: exists and is not a directory", dir.display()));
        }
        for f in &files {
            let p = dir.join(f);
            if p.symlink_metadata().is_ok_and(|m| !m.is_file()) {
                return Err(format!("--out {}: {f} exists and is not a regular file", dir.display()));
            }
        }
        let tag = format!("{STAGING_TAG}{}", std::process::id());
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
        let parent = dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        // Both places a killed run may have left its staging directory.
        remove_stale_staging(parent, &format!(".{name}{STAGING_TAG}"));
        if existed {
            remove_stale_staging(dir, STAGING_TAG);
        }
        let staging = if existed {
            dir.join(tag)
        } else {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("--out {}: cannot create {}: {e}", dir.display(), parent.display()))?;
            parent.join(format!(".{name}{tag}"))
        };
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir(&staging)
            .map_err(|e| format!("--out {}: cannot create the directory {}: {e}", dir.display(), staging.display()))?;
        let lock_path = staging.join(STAGING_LOCK);
        let lock = rtac_sweep::out::open_nofollow(&lock_path, std::fs::OpenOptions::new().write(true).create_new(true))
            .and_then(|f| rtac_sweep::out::try_lock(&f).map(|_| f))
            .map_err(|e| format!("--out {}: cannot create {}: {e}", dir.display(), lock_path.display()))?;
        Ok(Staging { dir: dir.to_path_buf(), staging, existed, files, _lock: lock })
    }

    /// Where file `name` is being written.
    pub fn path(&self, name: &str) -> PathBuf {
        self.staging.join(name)
    }

    /// Moves every file into place; on failure nothing new is visible.
    /// In a `DIR` that held an earlier run's output, the per-run CSV files
    /// that the earlier `summary.json` listed and this run did not write
    /// are removed, so that every CSV file beside the summary is one of its
    /// runs. Other files are kept.
    pub fn commit(mut self) -> Result<(), String> {
        if !self.existed {
            // The lock file goes first: the directory becomes `DIR`. The
            // lock itself stays held through the open descriptor.
            let _ = std::fs::remove_file(self.staging.join(STAGING_LOCK));
            std::fs::rename(&self.staging, &self.dir).map_err(|e| io_err(&self.dir, "create", e))?;
            self.files.clear();
            return Ok(());
        }
        let earlier = earlier_run_files(&self.dir);
        for f in &self.files {
            let to = self.dir.join(f);
            std::fs::rename(self.staging.join(f), &to).map_err(|e| io_err(&to, "write", e))?;
        }
        for f in earlier.iter().filter(|f| !self.files.contains(f)) {
            let p = self.dir.join(f);
            if p.symlink_metadata().is_ok_and(|m| m.is_file()) {
                std::fs::remove_file(&p).map_err(|e| io_err(&p, "remove the earlier run's", e))?;
            }
        }
        self.files.clear();
        Ok(())
    }
}

/// The per-run CSV files that `dir/summary.json`, written by an earlier
/// run, lists; none if it is missing or unreadable.
fn earlier_run_files(dir: &Path) -> Vec<String> {
    const MAX_SUMMARY: u64 = 64 << 20;
    let Ok(bytes) = rtac_sim::scenario::input::read_bounded(&dir.join("summary.json"), MAX_SUMMARY, "a summary") else {
        return Vec::new();
    };
    let Ok(summary) = serde_json::from_slice::<Value>(&bytes) else { return Vec::new() };
    let runs = summary.get("runs").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    runs.iter().filter_map(|r| r.get("label")?.as_str()).flat_map(run_files).collect()
}

/// Removes the staging directories named `PREFIX<pid>` in `parent` that a
/// killed run left: only those that hold this program's lock file, whose
/// lock can be taken (no process writes there) and whose process is gone.
/// Errors leave a directory where it is.
fn remove_stale_staging(parent: &Path, prefix: &str) {
    // Whether a process is alive is read from /proc; without it, nothing
    // is known to be stale.
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(prefix)).and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        let path = entry.path();
        let is_dir = path.symlink_metadata().is_ok_and(|m| m.is_dir());
        if !is_dir || pid == std::process::id() || Path::new("/proc").join(pid.to_string()).exists() {
            continue;
        }
        let Ok(lock) = rtac_sweep::out::open_nofollow(&path.join(STAGING_LOCK), std::fs::OpenOptions::new().read(true))
        else {
            continue;
        };
        if rtac_sweep::out::try_lock(&lock).unwrap_or(false) {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

impl Drop for Staging {
    /// Removes what is left of the staging directory: everything after a
    /// failure, nothing but the empty directory after a commit.
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.staging);
    }
}

/// The files one run writes.
pub fn run_files(label: &str) -> [String; 2] {
    let stem = file_stem(label);
    [format!("{stem}-flows.csv"), format!("{stem}-links.csv")]
}

/// A run's time series, written as CSV as they are sampled. The first
/// write error stops the writing; [`CsvSeries::finish`] reports it.
pub struct CsvSeries {
    flows: BufWriter<File>,
    links: BufWriter<File>,
    paths: [PathBuf; 2],
    link_names: Vec<String>,
    /// The last instant written and its text, reused by its other rows.
    t: Option<(Duration, String)>,
    error: Option<String>,
}

impl CsvSeries {
    /// Creates `<label>-flows.csv` and `<label>-links.csv` in `staging` and
    /// writes their headers.
    pub fn create(staging: &Staging, label: &str, s: &Scenario) -> Result<CsvSeries, String> {
        let [f, l] = run_files(label);
        let paths = [staging.path(&f), staging.path(&l)];
        let open = |p: &Path| File::create(p).map(BufWriter::new).map_err(|e| io_err(p, "write", e));
        let mut w = CsvSeries {
            flows: open(&paths[0])?,
            links: open(&paths[1])?,
            paths,
            link_names: s.links.iter().map(|l| field(&l.name)).collect(),
            t: None,
            error: None,
        };
        let r = writeln!(
            w.flows,
            "t_s,flow,cwnd_bytes,rwnd_bytes,in_flight_bytes,srtt_ms,rx_rtt_ms,rx_window_bytes,delivered_bytes"
        );
        w.check(r, 0);
        let r = writeln!(w.links, "t_s,link,queue_packets,queue_bytes");
        w.check(r, 1);
        match w.error.take() {
            Some(e) => Err(e),
            None => Ok(w),
        }
    }

    fn check(&mut self, r: std::io::Result<()>, file: usize) {
        if let Err(e) = r {
            self.error.get_or_insert_with(|| io_err(&self.paths[file], "write", e));
        }
    }

    /// Flushes both files; the error names the file.
    pub fn finish(mut self) -> Result<(), String> {
        let r = self.flows.flush();
        self.check(r, 0);
        let r = self.links.flush();
        self.check(r, 1);
        self.error.map_or(Ok(()), Err)
    }
}

impl SeriesSink for CsvSeries {
    fn flow(&mut self, f: &FlowSample) {
        if self.error.is_some() {
            return;
        }
        let t = stamp(&mut self.t, f.t);
        // A smoothed RTT of 0 means the sender has no RTT sample yet.
        let srtt = if f.srtt.is_zero() { String::new() } else { millis(f.srtt) };
        let r = writeln!(
            self.flows,
            "{t},{},{},{},{},{srtt},{},{},{}",
            f.flow,
            f.cwnd,
            f.rwnd,
            f.in_flight,
            f.rx_rtt.map(millis).unwrap_or_default(),
            f.rx_window.map(|b| b.to_string()).unwrap_or_default(),
            f.delivered,
        );
        self.check(r, 0);
    }

    fn link(&mut self, l: &LinkSample) {
        if self.error.is_some() {
            return;
        }
        let t = stamp(&mut self.t, l.t);
        let r = match self.link_names.get(l.link) {
            Some(name) => writeln!(self.links, "{t},{name},{},{}", l.queue_packets, l.queue_bytes),
            None => writeln!(self.links, "{t},{},{},{}", l.link, l.queue_packets, l.queue_bytes),
        };
        self.check(r, 1);
    }
}

/// `t` in seconds, formatted once for all the rows of an instant.
fn stamp(cache: &mut Option<(Duration, String)>, t: Duration) -> &str {
    if cache.as_ref().is_none_or(|(last, _)| *last != t) {
        *cache = Some((t, secs(t)));
    }
    &cache.as_ref().expect("set above").1
}

/// Writes `summary.json` into the staging directory.
pub fn write_summary(staging: &Staging, summary: &Value) -> Result<(), String> {
    let path = staging.path("summary.json");
    let fail = |e: std::io::Error| io_err(&path, "write", e);
    let mut w = BufWriter::new(File::create(&path).map_err(fail)?);
    serde_json::to_writer_pretty(&mut w, summary).map_err(|e| fail(std::io::Error::other(e)))?;
    w.write_all(b"\n").and_then(|()| w.flush()).map_err(fail)
}

/// A run label made safe as a file name.
fn file_stem(label: &str) -> String {
    let s: String = label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+') { c } else { '_' })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        format!("run{s}")
    } else {
        s
    }
}

/// Seconds with up to nanosecond digits, exact (no float rounding).
fn secs(d: Duration) -> String {
    decimal(d.as_nanos(), 1_000_000_000, 9)
}

fn millis(d: Duration) -> String {
    decimal(d.as_nanos(), 1_000_000, 6)
}

fn decimal(n: u64, unit: u64, digits: usize) -> String {
    let (whole, frac) = (n / unit, n % unit);
    if frac == 0 {
        return whole.to_string();
    }
    let f = format!("{frac:0digits$}");
    format!("{whole}.{}", f.trim_end_matches('0'))
}

/// A CSV field: quoted when it holds a separator, quote or line break.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_exact_and_trimmed() {
        assert_eq!(secs(Duration::from_millis(30)), "0.03");
        assert_eq!(secs(Duration::from_secs(2)), "2");
        assert_eq!(secs(Duration::from_nanos(1_000_000_001)), "1.000000001");
        assert_eq!(millis(Duration::from_micros(50_250)), "50.25");
    }

    #[test]
    fn labels_become_safe_file_names() {
        assert_eq!(file_stem("rtac-2"), "rtac-2");
        assert_eq!(file_stem("a/b c"), "a_b_c");
        assert_eq!(file_stem(".."), "run..");
        assert_eq!(field("a,b"), "\"a,b\"");
    }
}
