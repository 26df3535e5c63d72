//! Sweep charts: y against a swept parameter x (propagation delay,
//! tcp_rmem_max, ...), several series with markers and optional error bars.

use crate::axis::Fit;
use crate::error::{empty, no_finite, PlotError};
use crate::frame::{header, marker_style, Glyph, LegendEntry, PanelSpec, XAxis, YAxis};
use crate::style::{color, marker};
use crate::svg::Svg;
use crate::{canvas_methods, check_range, label_with_unit, quoted, ticks_for, Canvas, Chart, Extent};

/// One point of a sweep: y at parameter x, optionally with an error bar from
/// `lo` to `hi` (absolute values, e.g. the 5th and 95th percentile, or
/// mean ± standard deviation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepPoint {
    /// The parameter.
    pub x: f64,
    /// The value.
    pub y: f64,
    /// The error bar's (lower, upper) ends.
    pub err: Option<(f64, f64)>,
}

impl SweepPoint {
    /// A point without error bar.
    pub fn new(x: f64, y: f64) -> SweepPoint {
        SweepPoint { x, y, err: None }
    }

    /// The point with an error bar from `lo` to `hi`.
    pub fn with_error(self, lo: f64, hi: f64) -> SweepPoint {
        SweepPoint { err: Some((lo, hi)), ..self }
    }
}

impl From<(f64, f64)> for SweepPoint {
    fn from((x, y): (f64, f64)) -> SweepPoint {
        SweepPoint::new(x, y)
    }
}

/// Values against a swept parameter, one line with markers per series.
///
/// ```
/// use rtac_plot::{SweepChart, SweepPoint};
/// let chart = SweepChart::new("RTT vs propagation delay")
///     .x_label("One-way propagation delay", "ms")
///     .y_label("RTT", "ms")
///     .series("Auto-tuning", [(10.0, 300.0), (25.0, 350.0), (50.0, 390.0)])
///     .series("RTAC", [SweepPoint::new(10.0, 40.0).with_error(35.0, 48.0), SweepPoint::new(25.0, 71.0)]);
/// ```
#[derive(Clone, Debug)]
pub struct SweepChart {
    canvas: Canvas,
    x_label: String,
    y_label: String,
    log_x: bool,
    log_y: bool,
    x_range: Option<(f64, f64)>,
    y_range: Option<(f64, f64)>,
    lines: bool,
    from_zero: bool,
    series: Vec<(String, Vec<SweepPoint>)>,
}

impl SweepChart {
    /// An empty sweep chart.
    pub fn new(title: impl Into<String>) -> SweepChart {
        SweepChart {
            canvas: Canvas::new(title),
            x_label: String::new(),
            y_label: String::new(),
            log_x: false,
            log_y: false,
            x_range: None,
            y_range: None,
            lines: true,
            from_zero: true,
            series: Vec::new(),
        }
    }

    /// Adds a series; points are `SweepPoint`s or `(x, y)` pairs. Points with
    /// a NaN or infinite coordinate (or <= 0 on a log axis) are skipped.
    pub fn series<P: Into<SweepPoint>>(
        mut self,
        name: impl Into<String>,
        points: impl IntoIterator<Item = P>,
    ) -> SweepChart {
        self.series.push((name.into(), points.into_iter().map(Into::into).collect()));
        self
    }

    /// Label of the parameter axis, e.g. `("tcp_rmem_max", "KB")`.
    pub fn x_label(mut self, name: &str, unit: &str) -> SweepChart {
        self.x_label = label_with_unit(name, unit);
        self
    }

    /// Label of the value axis.
    pub fn y_label(mut self, name: &str, unit: &str) -> SweepChart {
        self.y_label = label_with_unit(name, unit);
        self
    }

    /// Logarithmic parameter axis (default false).
    pub fn log_x(mut self, yes: bool) -> SweepChart {
        self.log_x = yes;
        self
    }

    /// Logarithmic value axis (default false).
    pub fn log_y(mut self, yes: bool) -> SweepChart {
        self.log_y = yes;
        self
    }

    /// Fixes the parameter axis range.
    pub fn x_range(mut self, lo: f64, hi: f64) -> SweepChart {
        self.x_range = Some((lo, hi));
        self
    }

    /// Fixes the value axis range.
    pub fn y_range(mut self, lo: f64, hi: f64) -> SweepChart {
        self.y_range = Some((lo, hi));
        self
    }

    /// Whether markers are joined by lines (default true).
    pub fn lines(mut self, yes: bool) -> SweepChart {
        self.lines = yes;
        self
    }

    /// Whether an automatic linear value axis starts at zero (default true).
    pub fn from_zero(mut self, yes: bool) -> SweepChart {
        self.from_zero = yes;
        self
    }

    canvas_methods!();

    fn usable(&self, p: &SweepPoint) -> bool {
        p.x.is_finite() && p.y.is_finite() && (!self.log_x || p.x > 0.0) && (!self.log_y || p.y > 0.0)
    }

    fn render(&self) -> Result<String, PlotError> {
        self.canvas.check()?;
        check_range(self.x_range, self.log_x, "x")?;
        check_range(self.y_range, self.log_y, "y")?;
        if self.series.is_empty() {
            return Err(empty(format!("{} (no series)", quoted("chart", &self.canvas.title))));
        }
        let mut xs = Extent::new();
        let mut ys = Extent::new();
        let y_ok = |v: f64| v.is_finite() && (!self.log_y || v > 0.0);
        let mut sorted = Vec::with_capacity(self.series.len());
        for (name, points) in &self.series {
            let what = quoted("series", name);
            if points.is_empty() {
                return Err(empty(what));
            }
            let mut pts: Vec<SweepPoint> = points.iter().copied().filter(|p| self.usable(p)).collect();
            if pts.is_empty() {
                let extra = if self.log_x || self.log_y { ", positive for a log axis" } else { "" };
                return Err(no_finite(format!("{what} ({} points{extra})", points.len())));
            }
            pts.sort_by(|a, b| a.x.total_cmp(&b.x));
            for p in &pts {
                xs.add(p.x);
                ys.add(p.y);
                if let Some((lo, hi)) = p.err {
                    for v in [lo, hi] {
                        if y_ok(v) {
                            ys.add(v);
                        }
                    }
                }
            }
            sorted.push(pts);
        }
        // A little room so that end markers are not cut by the frame.
        let (x_lo, x_hi) = if self.log_x {
            let f = (xs.hi / xs.lo).powf(0.04).max(1.05);
            (xs.lo / f, xs.hi * f)
        } else {
            let pad = (xs.hi - xs.lo) * 0.04;
            (xs.lo - pad, xs.hi + pad)
        };
        let ys = ys.with_zero(self.from_zero && !self.log_y);

        let legend: Vec<LegendEntry> = self
            .series
            .iter()
            .enumerate()
            .map(|(i, (name, _))| {
                let glyph = if self.lines {
                    Glyph::Line { color: color(i), dash: None, marker: Some(marker(i)) }
                } else {
                    Glyph::Marker { color: color(i), marker: marker(i) }
                };
                LegendEntry::new(glyph, name.clone())
            })
            .collect();
        let mut svg = Svg::new(self.canvas.width, self.canvas.height, &self.canvas.title);
        let body = header(&mut svg, self.canvas.width, self.canvas.height, &self.canvas.title, &legend);
        let spec = PanelSpec {
            title: None,
            x: XAxis::Numeric {
                label: self.x_label.clone(),
                ticks: ticks_for(x_lo, x_hi, self.log_x, self.x_range, Fit::Snug),
            },
            y: YAxis {
                label: self.y_label.clone(),
                ticks: ticks_for(ys.lo, ys.hi, self.log_y, self.y_range, Fit::Nice),
                color: None,
            },
            y2: None,
        };
        let panel = spec.place(body, 0);
        spec.draw_under(&mut svg, &panel);
        panel.begin_clip(&mut svg);
        let n = sorted.len() as f64;
        let dodge = if sorted.iter().flatten().any(|p| p.err.is_some()) { 4.0 } else { 0.0 };
        for (i, pts) in sorted.iter().enumerate() {
            let c = color(i);
            let off = (i as f64 - (n - 1.0) / 2.0) * dodge;
            let px: Vec<(f64, f64)> = pts.iter().map(|p| (panel.x.map(p.x) + off, panel.y.map(p.y))).collect();
            if self.lines {
                svg.polyline(&px, &format!(r#"stroke="{c}" stroke-width="2" stroke-linejoin="round""#));
            }
            let bar = format!(r#"stroke="{c}" stroke-width="1.5""#);
            for (p, &(x, _)) in pts.iter().zip(&px) {
                if let Some((lo, hi)) = p.err {
                    let edge = |v: f64, fallback: f64| if y_ok(v) { panel.y.map(v) } else { fallback };
                    let (a, b) = (edge(lo, panel.plot.bottom() + 1.0), edge(hi, panel.plot.y - 1.0));
                    svg.line(x, a, x, b, &bar);
                    svg.line(x - 5.0, a, x + 5.0, a, &bar);
                    svg.line(x - 5.0, b, x + 5.0, b, &bar);
                }
            }
            let m = marker(i);
            let style = marker_style(m, c);
            for &(x, y) in &px {
                svg.marker(m, x, y, 9.0, &style);
            }
        }
        panel.end_clip(&mut svg);
        spec.draw_over(&mut svg, &panel);
        Ok(svg.finish())
    }
}

impl Chart for SweepChart {
    fn to_svg(&self) -> Result<String, PlotError> {
        self.render()
    }

    fn png_size(&self) -> (u32, u32) {
        self.canvas.png_size()
    }
}
