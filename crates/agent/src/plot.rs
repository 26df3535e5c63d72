//! Charts of the agent's per-step log (`rtac run --log`, `rtac get --log`),
//! for `rtac plot`: one chart per connection, with the controller's RTT
//! estimate, its RTT_min and the kernel's tcpi_rcv_rtt (ms, left axis) and
//! the window applied and the window estimate (KB, right axis) over time.

use rtac_live::error::AgentError;
use rtac_live::log::{read_log, LogRecord, COLUMNS};
use rtac_plot::{Axis, Chart, TimeSeriesChart};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Whether `path` looks like an agent log (CSV with the agent's header, or
/// JSON lines with its keys), so that `rtac plot` can tell it from a link
/// log.
pub fn is_agent_log(path: &Path) -> bool {
    // Only the start matters: at most 64 kB of a regular file, opened
    // without waiting on a FIFO (a device or a FIFO is no agent log).
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(f) = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path) else { return false };
    if !f.metadata().is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut head = Vec::new();
    if f.take(64 << 10).read_to_end(&mut head).is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&head);
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    first.starts_with(&COLUMNS[..4].join(",")) || (first.starts_with('{') && first.contains("\"rwnd_bytes\""))
}

/// Connections with fewer control steps than this are not drawn (a control
/// connection that exchanged a few bytes).
const MIN_STEPS: usize = 3;

/// Draws one chart per connection of the log at `path` into `out` (default:
/// the log's directory), named `<log stem>-<pid>-<conn>.svg` and `.png`.
/// Returns the SVG paths.
pub fn plot_log(path: &Path, out: Option<&Path>) -> Result<Vec<PathBuf>, AgentError> {
    let rows = read_log(path)?;
    let dir = out.map(Path::to_path_buf).unwrap_or_else(|| path.parent().unwrap_or(Path::new(".")).to_path_buf());
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("rtac");
    let mut conns: BTreeMap<(u32, u64), Vec<&LogRecord>> = BTreeMap::new();
    for r in &rows {
        conns.entry((r.pid, r.conn)).or_default().push(r);
    }
    let mut saved = Vec::new();
    for ((pid, conn), rs) in conns.into_iter().filter(|(_, rs)| rs.len() >= MIN_STEPS) {
        let ms =
            |f: fn(&LogRecord) -> Option<f64>| rs.iter().map(|r| (r.t_s, f(r).unwrap_or(f64::NAN))).collect::<Vec<_>>();
        let kb = |f: fn(&LogRecord) -> Option<u64>| {
            rs.iter().map(|r| (r.t_s, f(r).map_or(f64::NAN, |b| b as f64 / 1024.0))).collect::<Vec<_>>()
        };
        let mut chart = TimeSeriesChart::new(format!("{} (pid {pid}, connection {conn})", rs[0].peer))
            .y_label("RTT", "ms")
            .y2_label("Window", "KB");
        for (name, points) in [
            ("RTT estimate", ms(|r| r.rtt_ms)),
            ("RTT_min", ms(|r| r.rtt_min_ms)),
            ("tcpi_rcv_rtt", ms(|r| r.kernel_rcv_rtt_ms)),
        ] {
            if points.iter().any(|p| p.1.is_finite()) {
                chart = chart.series(name, points);
            }
        }
        for (name, points) in [("rwnd applied", kb(|r| r.rwnd_bytes)), ("window estimate", kb(|r| r.window_bytes))] {
            if points.iter().any(|p| p.1.is_finite()) {
                chart = chart.series_on(name, Axis::Right, points);
            }
        }
        let target = dir.join(format!("{stem}-{pid}-{conn}"));
        let s = chart.save(&target).map_err(|e| AgentError::Usage(format!("cannot draw {}: {e}", target.display())))?;
        saved.push(s.svg);
    }
    if saved.is_empty() {
        return Err(AgentError::Usage(format!(
            "{}: no connection with {MIN_STEPS} or more control steps",
            path.display()
        )));
    }
    Ok(saved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_chart_per_connection_with_enough_steps() {
        let dir = std::env::temp_dir().join(format!("rtac-plot-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("steps.csv");
        let mut text = COLUMNS.join(",") + "\n";
        for i in 0..20 {
            let t = i as f64 * 0.05;
            text += &format!(
                "{t},10,5,1,10.0.0.1:80,{},{},{},{},{},{},{}\n",
                40.0 + i as f64,
                11.0,
                250_000,
                260_000,
                42.0,
                260_000,
                4
            );
        }
        text += "0.1,10,6,2,10.0.0.1:81,,,,65536,,0,0\n"; // a control connection: not drawn
        std::fs::write(&log, text).unwrap();
        assert!(is_agent_log(&log));
        let saved = plot_log(&log, None).unwrap();
        assert_eq!(saved, vec![dir.join("steps-10-1.svg")]);
        let svg = std::fs::read_to_string(&saved[0]).unwrap();
        assert!(svg.contains("rwnd applied") && svg.contains("RTT estimate"));
        assert!(dir.join("steps-10-1.png").exists());
        let other = dir.join("link.log");
        std::fs::write(&other, "# a link log\n").unwrap();
        assert!(!is_agent_log(&other));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
