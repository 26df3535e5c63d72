//! `rtac plot DIR` on the output of `rtac sim --out DIR`: reads
//! `summary.json` for the run labels and each run's `<label>-flows.csv` and
//! `<label>-links.csv`, and draws one chart per quantity with one line per
//! run: throughput, congestion and receive window, smoothed RTT, queue.
//!
//! Per instant, the flows of a run are summed (delivered bytes, windows),
//! the RTT is the mean of the flows that have one, and the queue is summed
//! over the links. Throughput is the bytes delivered to the applications
//! since the previous instant over the time since then.

use crate::output::run_files;
use crate::Failure;
use rtac_plot::{Axis, Chart, TimeSeriesChart};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// The most a `summary.json` may hold.
const MAX_SUMMARY: u64 = 64 << 20;

/// Whether `dir` is a directory written by `rtac sim --out`.
pub fn is_sim_output(dir: &Path) -> bool {
    dir.is_dir() && dir.join("summary.json").symlink_metadata().is_ok_and(|m| m.is_file())
}

/// One run's series: (t s, value).
#[derive(Default)]
struct Run {
    label: String,
    throughput_mbps: Vec<(f64, f64)>,
    cwnd_kb: Vec<(f64, f64)>,
    rwnd_kb: Vec<(f64, f64)>,
    rtt_ms: Vec<(f64, f64)>,
    queue_packets: Vec<(f64, f64)>,
}

/// Draws the charts of the sim output in `dir` into `out` (default `dir`);
/// returns the files written and the run labels.
pub fn plot(dir: &Path, out: Option<&Path>) -> Result<(Vec<PathBuf>, Vec<String>), Failure> {
    let summary_path = dir.join("summary.json");
    let bytes = rtac_sim::scenario::input::read_bounded(&summary_path, MAX_SUMMARY, "a summary")
        .map_err(|e| Failure::io(format!("{}: {e}", summary_path.display())))?;
    let summary: Value = serde_json::from_slice(&bytes)
        .map_err(|e| Failure::input(format!("{}: not a summary of `rtac sim --out`: {e}", summary_path.display())))?;
    let labels: Vec<String> = summary
        .get("runs")
        .and_then(Value::as_array)
        .map(|runs| runs.iter().filter_map(|r| r.get("label")?.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    if labels.is_empty() {
        return Err(Failure::input(format!(
            "{}: lists no runs (no \"runs\" with a \"label\")",
            summary_path.display()
        )));
    }
    let mut runs = Vec::new();
    for label in &labels {
        let [flows, links] = run_files(label);
        let mut run = Run { label: label.clone(), ..Run::default() };
        read_flows(&dir.join(flows), &mut run)?;
        read_links(&dir.join(links), &mut run)?;
        runs.push(run);
    }
    let out = out.unwrap_or(dir);
    let name = summary.get("scenario").and_then(Value::as_str).unwrap_or("simulation").to_string();
    let charts: [(&str, TimeSeriesChart); 4] = [
        (
            "sim-throughput",
            chart(&runs, &format!("{name}: throughput"), ("Throughput", "Mbit/s"), |r| &r.throughput_mbps),
        ),
        ("sim-window", window_chart(&runs, &name)),
        ("sim-rtt", chart(&runs, &format!("{name}: smoothed RTT (mean of flows)"), ("RTT", "ms"), |r| &r.rtt_ms)),
        ("sim-queue", chart(&runs, &format!("{name}: queue (all links)"), ("Queue", "packets"), |r| &r.queue_packets)),
    ];
    let mut written = Vec::new();
    for (file, c) in charts {
        let saved = c.save(out.join(file)).map_err(|e| Failure::io(format!("plotting {}: {e}", dir.display())))?;
        written.extend([saved.png, saved.svg]);
    }
    Ok((written, labels))
}

/// A chart of one quantity, one line per run that has points.
fn chart(runs: &[Run], title: &str, y: (&str, &str), get: fn(&Run) -> &Vec<(f64, f64)>) -> TimeSeriesChart {
    let mut c = TimeSeriesChart::new(title).y_label(y.0, y.1);
    for r in runs.iter().filter(|r| !get(r).is_empty()) {
        c = c.series(r.label.clone(), get(r).clone());
    }
    c
}

/// Congestion window (solid) and receive window (dashed) of every run.
fn window_chart(runs: &[Run], name: &str) -> TimeSeriesChart {
    let mut c = TimeSeriesChart::new(format!("{name}: cwnd (solid) and rwnd (dashed), sum of flows"))
        .y_label("cwnd", "kB")
        .y2_label("rwnd", "kB");
    for r in runs {
        c = c.series(format!("{} cwnd", r.label), r.cwnd_kb.clone());
        c = c.series_on(format!("{} rwnd", r.label), Axis::Right, r.rwnd_kb.clone());
    }
    c
}

/// The rows of a CSV file after its header, with the header's column
/// positions of `want`.
fn open_csv(path: &Path, want: &[&str]) -> Result<(Vec<usize>, std::io::Lines<BufReader<std::fs::File>>), Failure> {
    let f = rtac_sweep::out::open_nofollow(path, std::fs::OpenOptions::new().read(true))
        .map_err(|e| Failure::io(format!("{}: {e}", path.display())))?;
    let mut lines = BufReader::new(f).lines();
    let header = match lines.next() {
        Some(Ok(h)) => h,
        Some(Err(e)) => return Err(Failure::io(format!("{}: {e}", path.display()))),
        None => return Err(Failure::input(format!("{}: empty, expected a CSV header", path.display()))),
    };
    let names: Vec<&str> = header.trim_end().split(',').collect();
    let cols = want
        .iter()
        .map(|w| {
            names
                .iter()
                .position(|n| n == w)
                .ok_or_else(|| Failure::input(format!("{}: line 1: no column {w:?} in the header", path.display())))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((cols, lines))
}

/// Calls `row(t, fields)` for every data row; fields are those of the
/// columns asked for, `None` where empty.
fn each_row(path: &Path, want: &[&str], mut row: impl FnMut(f64, &[Option<f64>])) -> Result<(), Failure> {
    let (cols, lines) = open_csv(path, want)?;
    let mut values = vec![None; cols.len()];
    for (i, line) in lines.enumerate() {
        let line = line.map_err(|e| Failure::io(format!("{}: {e}", path.display())))?;
        let bad = |what: &str| Failure::input(format!("{}: line {}: {what}", path.display(), i + 2));
        let fields: Vec<&str> = line.split(',').collect();
        let t: f64 = fields.first().and_then(|t| t.parse().ok()).ok_or_else(|| bad("t_s is not a number"))?;
        for (v, &c) in values.iter_mut().zip(&cols) {
            let text = fields.get(c).ok_or_else(|| bad("too few fields"))?;
            *v = if text.is_empty() { None } else { Some(text.parse().map_err(|_| bad("a field is not a number"))?) };
        }
        row(t, &values);
    }
    Ok(())
}

fn read_flows(path: &Path, run: &mut Run) -> Result<(), Failure> {
    // Per instant: delivered, cwnd and rwnd sums; RTT sum and count.
    let mut cur: Option<(f64, [f64; 5])> = None;
    let mut prev = 0.0;
    each_row(path, &["delivered_bytes", "cwnd_bytes", "rwnd_bytes", "srtt_ms"], |t, v| {
        if let Some((t0, a)) = cur.filter(|(t0, _)| *t0 != t) {
            instant(run, &mut prev, t0, a);
            cur = None;
        }
        let a = &mut cur.get_or_insert((t, [0.0; 5])).1;
        a[0] += v[0].unwrap_or(0.0);
        a[1] += v[1].unwrap_or(0.0);
        a[2] += v[2].unwrap_or(0.0);
        if let Some(rtt) = v[3] {
            a[3] += rtt;
            a[4] += 1.0;
        }
    })?;
    if let Some((t, a)) = cur {
        instant(run, &mut prev, t, a);
    }
    if run.cwnd_kb.is_empty() {
        return Err(Failure::input(format!("{}: no samples", path.display())));
    }
    Ok(())
}

/// Adds the sums `a` of instant `t` to `run`; `prev` is the previous
/// instant (the start of the run before the first).
fn instant(run: &mut Run, prev: &mut f64, t: f64, a: [f64; 5]) {
    if t > *prev {
        run.throughput_mbps.push((t, a[0] * 8.0 / (t - *prev) / 1e6));
    }
    *prev = t;
    run.cwnd_kb.push((t, a[1] / 1e3));
    run.rwnd_kb.push((t, a[2] / 1e3));
    if a[4] > 0.0 {
        run.rtt_ms.push((t, a[3] / a[4]));
    }
}

fn read_links(path: &Path, run: &mut Run) -> Result<(), Failure> {
    let q = &mut run.queue_packets;
    each_row(path, &["queue_packets"], |t, v| match q.last_mut() {
        Some((t0, sum)) if *t0 == t => *sum += v[0].unwrap_or(0.0),
        _ => q.push((t, v[0].unwrap_or(0.0))),
    })
}
