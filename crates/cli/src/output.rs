//! `--out DIR`: per-run time series as CSV and the summary as JSON.

use rtac_core::Duration;
use rtac_sim::{RunResult, Scenario, Series};
use serde_json::Value;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Writes `<label>-flows.csv` and `<label>-links.csv` for every run that
/// recorded series, then `summary.json`. The error names the file.
pub fn write_all(dir: &Path, s: &Scenario, results: &[RunResult], summary: &Value) -> Result<(), String> {
    for r in results {
        let Some(series) = &r.series else { continue };
        let stem = file_stem(&r.label);
        let path = dir.join(format!("{stem}-flows.csv"));
        write_file(&path, |w| write_flows(w, series))?;
        let path = dir.join(format!("{stem}-links.csv"));
        write_file(&path, |w| write_links(w, s, series))?;
    }
    let path = dir.join("summary.json");
    write_file(&path, |w| {
        serde_json::to_writer_pretty(&mut *w, summary).map_err(std::io::Error::other)?;
        w.write_all(b"\n")
    })
}

fn write_file(path: &Path, body: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let mut w = BufWriter::new(File::create(path).map_err(fail)?);
    body(&mut w).map_err(fail)?;
    w.flush().map_err(fail)
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

fn write_flows(w: &mut impl Write, series: &Series) -> std::io::Result<()> {
    writeln!(w, "t_s,flow,cwnd_bytes,rwnd_bytes,in_flight_bytes,srtt_ms,rx_rtt_ms,rx_window_bytes,delivered_bytes")?;
    for f in &series.flows {
        writeln!(
            w,
            "{},{},{},{},{},{},{},{},{}",
            secs(f.t),
            f.flow,
            f.cwnd,
            f.rwnd,
            f.in_flight,
            millis(f.srtt),
            f.rx_rtt.map(millis).unwrap_or_default(),
            f.rx_window.map(|b| b.to_string()).unwrap_or_default(),
            f.delivered,
        )?;
    }
    Ok(())
}

fn write_links(w: &mut impl Write, s: &Scenario, series: &Series) -> std::io::Result<()> {
    writeln!(w, "t_s,link,queue_packets,queue_bytes")?;
    for l in &series.links {
        let name = s.links.get(l.link).map_or_else(|| l.link.to_string(), |spec| field(&spec.name));
        writeln!(w, "{},{},{},{}", secs(l.t), name, l.queue_packets, l.queue_bytes)?;
    }
    Ok(())
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
