//! `rtac plot`: reads a link log, prints the summary Mahimahi's
//! `mm-throughput-graph` prints (average capacity, throughput, utilisation,
//! 95th-percentile per-packet queueing delay) and draws throughput against
//! capacity and queueing delay over time (SVG and PNG, via `rtac-plot`).

use crate::log::{read_log, Event, Log};
use crate::EmuError;
use rtac_core::units::parse_duration;
use rtac_plot::{Chart, TimeSeriesChart};
use serde_json::json;
use std::path::{Path, PathBuf};

/// `rtac plot LOG... [--out DIR] [--bin DURATION] [--from S] [--to S] [--json]`
#[derive(clap::Args, Clone, Debug)]
pub struct PlotArgs {
    /// Log files, or directories written by `rtac emu --log DIR` (their
    /// down.log and up.log are read) or by `rtac sim --out DIR`.
    #[arg(value_name = "LOG", required = true)]
    pub logs: Vec<PathBuf>,
    /// Where to write the charts (default: next to each log).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Width of the throughput bins.
    #[arg(long, value_name = "DURATION", default_value = "500ms")]
    pub bin: String,
    /// Start of the window analysed, in seconds of log time (default: the
    /// first arrival).
    #[arg(long, value_name = "SECONDS")]
    pub from: Option<f64>,
    /// End of the window analysed, in seconds of log time (default: the last
    /// departure).
    #[arg(long, value_name = "SECONDS")]
    pub to: Option<f64>,
    /// Print the summaries as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Only print the summary; draw nothing.
    #[arg(long)]
    pub no_charts: bool,
}

/// The figures of one log over its window.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The window, in seconds of log time.
    pub from_s: f64,
    pub to_s: f64,
    /// Average capacity (delivery opportunities), if the log has any.
    pub capacity_mbps: Option<f64>,
    /// Departures over the window.
    pub throughput_mbps: f64,
    /// Arrivals over the window (offered load).
    pub offered_mbps: f64,
    /// Throughput / capacity.
    pub utilization: Option<f64>,
    /// Per-packet queueing delay (departure - arrival) of departures in the
    /// window.
    pub delay_p95_ms: f64,
    pub delay_p50_ms: f64,
    pub delay_mean_ms: f64,
    pub arrivals: u64,
    pub departures: u64,
    pub drops: u64,
}

/// Binned rates for the throughput chart: (bin start s, Mbit/s).
#[derive(Clone, Debug, Default)]
pub struct Series {
    pub capacity: Vec<(f64, f64)>,
    pub throughput: Vec<(f64, f64)>,
    pub offered: Vec<(f64, f64)>,
    /// Per-packet (departure s, delay ms).
    pub delay: Vec<(f64, f64)>,
}

/// Percentile by the nearest rank (as Mahimahi's tools): the smallest value
/// with at least `p` of the samples at or below it.
fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// Analyses `log` over [from, to] seconds (defaults: first arrival, last
/// departure), with throughput bins of `bin_s` seconds.
pub fn analyse(log: &Log, from: Option<f64>, to: Option<f64>, bin_s: f64) -> Result<(Summary, Series), String> {
    let first_arrival = log.events.iter().find_map(|e| match e {
        Event::Arrival { t_ms, .. } => Some(*t_ms),
        _ => None,
    });
    let last_departure = log
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Departure { t_ms, .. } => Some(*t_ms),
            _ => None,
        })
        .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.max(t))));
    let from_ms = match from {
        Some(s) => s * 1e3,
        None => first_arrival.ok_or("the log has no arrivals (no traffic crossed this direction)")?,
    };
    let to_ms = match to {
        Some(s) => s * 1e3,
        None => last_departure.ok_or("the log has no departures (no packet crossed this direction)")?,
    };
    if to_ms.partial_cmp(&from_ms) != Some(std::cmp::Ordering::Greater) {
        return Err(format!("the window {:.3} s to {:.3} s is empty", from_ms / 1e3, to_ms / 1e3));
    }
    let span_s = (to_ms - from_ms) / 1e3;
    let nbins = ((span_s / bin_s).ceil() as usize).max(1);
    let mut cap = vec![0u64; nbins];
    let mut tput = vec![0u64; nbins];
    let mut offered = vec![0u64; nbins];
    let (mut cap_total, mut tput_total, mut off_total) = (0u64, 0u64, 0u64);
    let (mut arrivals, mut departures, mut drops) = (0u64, 0u64, 0u64);
    let mut delays = Vec::new();
    let mut series = Series::default();
    let mut any_opportunity = false;
    for e in &log.events {
        let t = e.t_ms();
        if t < from_ms || t > to_ms {
            continue;
        }
        let b = (((t - from_ms) / 1e3 / bin_s) as usize).min(nbins - 1);
        match e {
            Event::Opportunity { bytes, .. } => {
                any_opportunity = true;
                cap[b] += *bytes as u64;
                cap_total += *bytes as u64;
            }
            Event::Departure { size, delay_ms, .. } => {
                departures += 1;
                tput[b] += *size as u64;
                tput_total += *size as u64;
                delays.push(*delay_ms);
                series.delay.push((t / 1e3, *delay_ms));
            }
            Event::Arrival { size, .. } => {
                arrivals += 1;
                offered[b] += *size as u64;
                off_total += *size as u64;
            }
            Event::Drop { .. } => drops += 1,
        }
    }
    let mbps = |bytes: u64, secs: f64| bytes as f64 * 8.0 / secs / 1e6;
    for i in 0..nbins {
        let t0 = from_ms / 1e3 + i as f64 * bin_s;
        let width = (to_ms / 1e3 - t0).min(bin_s);
        if width <= 0.0 {
            continue;
        }
        if any_opportunity {
            series.capacity.push((t0, mbps(cap[i], width)));
        }
        series.throughput.push((t0, mbps(tput[i], width)));
        series.offered.push((t0, mbps(offered[i], width)));
    }
    let mut sorted = delays.clone();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let capacity_mbps = any_opportunity.then(|| mbps(cap_total, span_s));
    let throughput_mbps = mbps(tput_total, span_s);
    let summary = Summary {
        from_s: from_ms / 1e3,
        to_s: to_ms / 1e3,
        capacity_mbps,
        throughput_mbps,
        offered_mbps: mbps(off_total, span_s),
        utilization: capacity_mbps.filter(|c| *c > 0.0).map(|c| throughput_mbps / c),
        delay_p95_ms: nearest_rank(&sorted, 0.95),
        delay_p50_ms: nearest_rank(&sorted, 0.5),
        delay_mean_ms: if delays.is_empty() { 0.0 } else { delays.iter().sum::<f64>() / delays.len() as f64 },
        arrivals,
        departures,
        drops,
    };
    Ok((summary, series))
}

impl Summary {
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "from_s": self.from_s,
            "to_s": self.to_s,
            "capacity_mbps": self.capacity_mbps,
            "throughput_mbps": self.throughput_mbps,
            "offered_mbps": self.offered_mbps,
            "utilization": self.utilization,
            "queueing_delay_p95_ms": self.delay_p95_ms,
            "queueing_delay_p50_ms": self.delay_p50_ms,
            "queueing_delay_mean_ms": self.delay_mean_ms,
            "arrivals": self.arrivals,
            "departures": self.departures,
            "drops": self.drops,
        })
    }

    /// The text summary, Mahimahi style.
    pub fn text(&self) -> String {
        let mut s =
            format!("  window: {:.3} s to {:.3} s ({:.3} s)\n", self.from_s, self.to_s, self.to_s - self.from_s);
        match (self.capacity_mbps, self.utilization) {
            (Some(c), Some(u)) => {
                s += &format!(
                    "  average capacity: {c:.2} Mbit/s\n  average throughput: {:.2} Mbit/s ({:.1} % utilisation)\n",
                    self.throughput_mbps,
                    u * 100.0
                )
            }
            _ => {
                s += &format!(
                    "  average capacity: unlimited\n  average throughput: {:.2} Mbit/s\n",
                    self.throughput_mbps
                )
            }
        }
        s += &format!(
            "  95th percentile per-packet queueing delay: {:.1} ms (median {:.1} ms, mean {:.1} ms)\n",
            self.delay_p95_ms, self.delay_p50_ms, self.delay_mean_ms
        );
        s += &format!("  packets: {} arrived, {} departed, {} dropped\n", self.arrivals, self.departures, self.drops);
        s
    }
}

/// The logs named by `path`: the file itself, or a log directory's
/// down.log and up.log.
fn expand(path: &Path) -> Result<Vec<PathBuf>, EmuError> {
    if path.is_dir() {
        let v: Vec<PathBuf> = ["down.log", "up.log"].iter().map(|n| path.join(n)).filter(|p| p.is_file()).collect();
        if v.is_empty() {
            return Err(EmuError::Usage(format!(
                "{}: a directory without down.log or up.log (`rtac emu --log`) or summary.json (`rtac sim --out`)",
                path.display()
            )));
        }
        Ok(v)
    } else {
        Ok(vec![path.to_path_buf()])
    }
}

/// Draws the two charts of one log; returns the files written.
pub fn draw(name: &str, s: &Summary, series: &Series, prefix: &Path) -> Result<Vec<PathBuf>, EmuError> {
    let err = |e: rtac_plot::PlotError| EmuError::Io(format!("plotting {name}: {e}"));
    let title = match (s.capacity_mbps, s.utilization) {
        (Some(c), Some(u)) => {
            format!("{name}: capacity {c:.2} Mbit/s, throughput {:.2} Mbit/s ({:.1} %)", s.throughput_mbps, u * 100.0)
        }
        _ => format!("{name}: throughput {:.2} Mbit/s", s.throughput_mbps),
    };
    let mut chart = TimeSeriesChart::new(title).y_label("Rate", "Mbit/s");
    if !series.capacity.is_empty() {
        chart = chart.series("capacity", series.capacity.clone());
    }
    chart = chart.series("throughput", series.throughput.clone()).series("offered load", series.offered.clone());
    let mut written = Vec::new();
    let saved = chart.save(prefix.with_file_name(format!("{}-throughput", file_stem(prefix)))).map_err(err)?;
    written.extend([saved.svg, saved.png]);
    if !series.delay.is_empty() {
        let chart = TimeSeriesChart::new(format!(
            "{name}: per-packet queueing delay, 95th percentile {:.1} ms",
            s.delay_p95_ms
        ))
        .y_label("Queueing delay", "ms")
        .series("delay", series.delay.clone());
        let saved = chart.save(prefix.with_file_name(format!("{}-delay", file_stem(prefix)))).map_err(err)?;
        written.extend([saved.svg, saved.png]);
    }
    Ok(written)
}

fn file_stem(p: &Path) -> String {
    p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "log".into())
}

/// Runs `rtac plot`; returns the exit code.
pub fn plot_main(args: PlotArgs) -> Result<i32, EmuError> {
    let bin = parse_duration(&args.bin).map_err(|e| EmuError::Usage(format!("--bin: {e}")))?;
    if bin.is_zero() {
        return Err(EmuError::Usage("--bin: expected a duration above 0, such as 500ms".into()));
    }
    let mut docs = Vec::new();
    for arg in &args.logs {
        for path in expand(arg)? {
            // A regular file only: a FIFO or a device is refused, not waited on.
            let f = crate::args::open_regular(&path).map_err(|e| EmuError::Io(format!("{}: {e}", path.display())))?;
            let log = read_log(std::io::BufReader::new(f))
                .map_err(|e| EmuError::Usage(format!("{}: {e}", path.display())))?;
            let (summary, series) = analyse(&log, args.from, args.to, bin.as_secs_f64())
                .map_err(|e| EmuError::Usage(format!("{}: {e}", path.display())))?;
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "log".into());
            let dir = match &args.out {
                Some(d) => d.clone(),
                None => path.parent().map(Path::to_path_buf).unwrap_or_default(),
            };
            let written = if args.no_charts { Vec::new() } else { draw(&stem, &summary, &series, &dir.join(&stem))? };
            if args.json {
                let mut j = summary.to_json();
                j["log"] = json!(path.display().to_string());
                j["charts"] = json!(written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>());
                docs.push(j);
            } else {
                print!("{}:\n{}", path.display(), summary.text());
                for w in &written {
                    println!("  wrote {}", w.display());
                }
            }
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&docs).expect("JSON values serialise"));
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(text: &str) -> Log {
        read_log(text.as_bytes()).unwrap()
    }

    #[test]
    fn summary_matches_hand_computed_figures() {
        // 1 s window (first arrival 0, last departure 1000 ms): 4 opportunities
        // of 1500 B (48 kbit/s), 2 departures of 1500 B (24 kbit/s).
        let l = log("0.000 + 1500 1\n0.000 # 1500\n250.000 # 1500\n500.000 - 1500 500.000 1\n500.000 # 1500\n\
                     750.000 # 1500\n900.000 + 1500 1\n1000.000 - 1500 100.000 1\n999.000 d 1500 1 queue\n");
        let (s, series) = analyse(&l, None, None, 0.5).unwrap();
        assert_eq!((s.from_s, s.to_s), (0.0, 1.0));
        assert!((s.capacity_mbps.unwrap() - 0.048).abs() < 1e-9);
        assert!((s.throughput_mbps - 0.024).abs() < 1e-9);
        assert!((s.utilization.unwrap() - 0.5).abs() < 1e-9);
        assert_eq!(s.delay_p95_ms, 500.0);
        assert_eq!(s.delay_p50_ms, 100.0);
        assert_eq!((s.arrivals, s.departures, s.drops), (2, 2, 1));
        assert_eq!(series.capacity.len(), 2);
        assert_eq!(series.delay, vec![(0.5, 500.0), (1.0, 100.0)]);
        assert!(s.text().contains("50.0 % utilisation"), "{}", s.text());
    }

    #[test]
    fn empty_logs_and_windows_are_errors() {
        assert!(analyse(&log("# nothing\n"), None, None, 0.5).unwrap_err().contains("no arrivals"));
        let l = log("1.0 + 1500 1\n2.0 - 1500 1.0 1\n");
        assert!(analyse(&l, Some(5.0), Some(4.0), 0.5).unwrap_err().contains("empty"));
    }

    #[test]
    fn charts_are_written_as_svg_and_png() {
        let l = log(
            "0.000 + 1500 1\n0.000 # 1500\n1.000 - 1500 1.000 1\n1.000 # 1500\n2.000 + 1500 1\n3.000 - 1500 1.000 1\n",
        );
        let (s, series) = analyse(&l, None, None, 0.001).unwrap();
        let dir = std::env::temp_dir().join(format!("rtac-emu-plot-{}", std::process::id()));
        let written = draw("down", &s, &series, &dir.join("down")).unwrap();
        assert_eq!(written.len(), 4);
        for p in &written {
            assert!(std::fs::metadata(p).unwrap().len() > 100, "{}", p.display());
        }
        assert!(written[0].ends_with("down-throughput.svg"));
    }
}
