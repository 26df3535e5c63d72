//! A run's results as table rows: the one place that turns a `RunResult`
//! into columns, for CSV and for pandas.

use rtac_sim::{RunResult, Scenario};

/// One cell of a row.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// A number that cannot be computed (no RTT sample, an unfinished flow).
    Null,
}

impl Cell {
    /// `self` as a cell of a column of `kind`: integers widen to floats in
    /// a float column, and an integral float narrows to an integer in an
    /// integer column; `None` for any other mismatch.
    pub fn to_kind(self, kind: Kind) -> Option<Cell> {
        match (kind, self) {
            (_, Cell::Null) => Some(Cell::Null),
            (Kind::Str, c @ Cell::Str(_)) | (Kind::Int, c @ Cell::Int(_)) => Some(c),
            (Kind::Float, c @ Cell::Float(_)) | (Kind::Bool, c @ Cell::Bool(_)) => Some(c),
            (Kind::Float, Cell::Int(i)) => Some(Cell::Float(i as f64)),
            (Kind::Int, Cell::Float(x)) if x.fract() == 0.0 && x.abs() < 9.0e15 => Some(Cell::Int(x as i64)),
            _ => None,
        }
    }

    fn float(x: f64) -> Cell {
        if x.is_finite() {
            Cell::Float(x)
        } else {
            Cell::Null
        }
    }

    fn count(n: u64) -> Cell {
        Cell::Int(i64::try_from(n).unwrap_or(i64::MAX))
    }
}

/// The type of a column's cells: one type per column, `Null` aside, so
/// that a column is one Parquet type in every part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Str,
    Int,
    Float,
    Bool,
}

/// Columns of `flow_rows`, in order, with their kinds. The `link*` and
/// `queue_*` columns describe the flow's bottleneck: the link with the
/// lowest rate on its path, the first on ties. `wall_s` is the run's
/// wall-clock time, the only column that differs between identical runs.
pub const FLOW_COLUMNS: &[(&str, Kind)] = &[
    ("scenario", Kind::Str),
    ("label", Kind::Str),
    ("controller", Kind::Str),
    ("flow", Kind::Int),
    ("flow_controller", Kind::Str),
    ("cc", Kind::Str),
    ("throughput_mbps", Kind::Float),
    ("bytes_delivered", Kind::Int),
    ("rtt_mean_ms", Kind::Float),
    ("rtt_p5_ms", Kind::Float),
    ("rtt_p25_ms", Kind::Float),
    ("rtt_p50_ms", Kind::Float),
    ("rtt_p75_ms", Kind::Float),
    ("rtt_p95_ms", Kind::Float),
    ("rtt_samples", Kind::Int),
    ("retransmits", Kind::Int),
    ("timeouts", Kind::Int),
    ("completion_s", Kind::Float),
    ("link", Kind::Str),
    ("link_utilization", Kind::Float),
    ("queue_delay_mean_ms", Kind::Float),
    ("queue_delay_p95_ms", Kind::Float),
    ("link_drops", Kind::Int),
    ("wall_s", Kind::Float),
];

/// Index into `s.links` of each flow's bottleneck, by flow id (flows are
/// numbered in the order of the scenario's `[[flow]]` entries and counts).
fn bottlenecks(s: &Scenario) -> Vec<Option<usize>> {
    let lowest = |path: &[usize]| {
        path.iter().copied().reduce(|best, i| if s.links[i].rate < s.links[best].rate { i } else { best })
    };
    s.flows.iter().flat_map(|f| std::iter::repeat_n(lowest(&f.path), f.count as usize)).collect()
}

/// One row per flow of `r`, a run of `s`, in `FLOW_COLUMNS` order, each
/// cell of its column's kind or `Null`.
pub fn flow_rows(s: &Scenario, r: &RunResult) -> Vec<Vec<Cell>> {
    let necks = bottlenecks(s);
    r.flows
        .iter()
        .map(|f| {
            let link = necks.get(f.id).copied().flatten().and_then(|i| r.links.get(i));
            let link_cells = match link {
                Some(l) => vec![
                    Cell::Str(l.name.clone()),
                    Cell::float(l.utilization),
                    Cell::float(l.queue_delay_mean_ms),
                    Cell::float(l.queue_delay_p95_ms),
                    Cell::count(l.drops),
                ],
                None => vec![Cell::Null; 5],
            };
            [
                Cell::Str(r.scenario.clone()),
                Cell::Str(r.label.clone()),
                Cell::Str(r.controller.clone()),
                Cell::count(f.id as u64),
                Cell::Str(f.controller.clone()),
                Cell::Str(f.cc.clone()),
                Cell::float(f.throughput_mbps),
                Cell::count(f.bytes_delivered),
                Cell::float(f.rtt_mean_ms),
                Cell::float(f.rtt_p5_ms),
                Cell::float(f.rtt_p25_ms),
                Cell::float(f.rtt_p50_ms),
                Cell::float(f.rtt_p75_ms),
                Cell::float(f.rtt_p95_ms),
                Cell::count(f.rtt_samples),
                Cell::count(f.retransmits),
                Cell::count(f.timeouts),
                f.completion.map_or(Cell::Null, |d| Cell::float(d.as_secs_f64())),
            ]
            .into_iter()
            .chain(link_cells)
            .chain([Cell::float(r.wall.as_secs_f64())])
            .collect()
        })
        .collect()
}

/// Columns of `series_rows`.
pub const SERIES_COLUMNS: &[&str] = &[
    "label",
    "t_s",
    "flow",
    "cwnd_bytes",
    "rwnd_bytes",
    "in_flight_bytes",
    "srtt_ms",
    "rx_rtt_ms",
    "rx_window_bytes",
    "delivered_bytes",
    "queue_packets",
    "queue_bytes",
];

/// The time series of `r` (run with `RunOptions::series`), one row per
/// sample and flow, with the queue of the flow's bottleneck at that time.
/// Empty if the run recorded no series.
pub fn series_rows(s: &Scenario, r: &RunResult) -> Vec<Vec<Cell>> {
    let Some(series) = &r.series else { return Vec::new() };
    let necks = bottlenecks(s);
    let ms = |d: rtac_core::Duration| Cell::float(d.as_secs_f64() * 1e3);
    // Samples are taken for all flows and all links at the same instants;
    // links are looked up by (instant, link), in time order.
    let mut links = series.links.iter().peekable();
    let mut at_t: Vec<Option<(u64, u64)>> = vec![None; s.links.len()];
    let mut t_links = None;
    series
        .flows
        .iter()
        .map(|f| {
            if t_links != Some(f.t) {
                at_t.iter_mut().for_each(|q| *q = None);
                while let Some(l) = links.next_if(|l| l.t <= f.t) {
                    if l.t == f.t && l.link < at_t.len() {
                        at_t[l.link] = Some((l.queue_packets, l.queue_bytes));
                    }
                }
                t_links = Some(f.t);
            }
            let queue = necks.get(f.flow).copied().flatten().and_then(|i| at_t[i]);
            vec![
                Cell::Str(r.label.clone()),
                Cell::float(f.t.as_secs_f64()),
                Cell::count(f.flow as u64),
                Cell::count(f.cwnd),
                Cell::count(f.rwnd),
                Cell::count(f.in_flight),
                ms(f.srtt),
                f.rx_rtt.map_or(Cell::Null, ms),
                f.rx_window.map_or(Cell::Null, Cell::count),
                Cell::count(f.delivered),
                queue.map_or(Cell::Null, |q| Cell::count(q.0)),
                queue.map_or(Cell::Null, |q| Cell::count(q.1)),
            ]
        })
        .collect()
}
