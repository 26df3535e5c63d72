//! Time series: (t, y) lines on a left and an optional right axis, with
//! optional shaded intervals (e.g. blockage periods).

use crate::axis::{Fit, Scale};
use crate::error::{empty, no_finite, PlotError};
use crate::frame::{header, shade_style, Glyph, LegendEntry, PanelSpec, XAxis, YAxis};
use crate::style::{color, SHADES};
use crate::svg::Svg;
use crate::{canvas_methods, check_range, label_with_unit, quoted, ticks_for, twin_ticks, Canvas, Chart, Extent};

/// Dash pattern of series on the right axis.
const RIGHT_DASH: &str = "7,3";

/// Which vertical axis a series is read against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Axis {
    /// The left axis (the default).
    #[default]
    Left,
    /// The right axis; such series are drawn dashed.
    Right,
}

#[derive(Clone, Debug)]
struct Line {
    name: String,
    axis: Axis,
    points: Vec<(f64, f64)>,
}

/// Lines of (t, y) points against time.
///
/// ```
/// use rtac_plot::{Axis, TimeSeriesChart};
/// let chart = TimeSeriesChart::new("RTAC, one flow")
///     .y_label("Window", "packets")
///     .y2_label("RTT", "ms")
///     .series("cwnd", [(0.0, 10.0), (1.0, 80.0), (2.0, 120.0)])
///     .series_on("RTT", Axis::Right, [(0.0, 50.0), (1.0, 61.0), (2.0, 66.0)])
///     .shade("blockage", [(0.5, 0.8)]);
/// ```
#[derive(Clone, Debug)]
pub struct TimeSeriesChart {
    canvas: Canvas,
    x_label: String,
    y_label: String,
    y2_label: String,
    lines: Vec<Line>,
    shades: Vec<(String, Vec<(f64, f64)>)>,
    x_range: Option<(f64, f64)>,
    y_range: Option<(f64, f64)>,
    y2_range: Option<(f64, f64)>,
    from_zero: bool,
}

impl TimeSeriesChart {
    /// An empty chart; the x axis is labelled "Time (s)".
    pub fn new(title: impl Into<String>) -> TimeSeriesChart {
        TimeSeriesChart {
            canvas: Canvas::new(title),
            x_label: "Time (s)".to_string(),
            y_label: String::new(),
            y2_label: String::new(),
            lines: Vec::new(),
            shades: Vec::new(),
            x_range: None,
            y_range: None,
            y2_range: None,
            from_zero: true,
        }
    }

    /// A series on the left axis. Points with a NaN or infinite coordinate
    /// are skipped and leave a gap.
    pub fn series(self, name: impl Into<String>, points: impl IntoIterator<Item = (f64, f64)>) -> TimeSeriesChart {
        self.series_on(name, Axis::Left, points)
    }

    /// A series on the given axis.
    pub fn series_on(
        mut self,
        name: impl Into<String>,
        axis: Axis,
        points: impl IntoIterator<Item = (f64, f64)>,
    ) -> TimeSeriesChart {
        self.lines.push(Line { name: name.into(), axis, points: points.into_iter().collect() });
        self
    }

    /// Shaded (start, end) intervals of t, under one legend label; each call
    /// adds a group with its own tint (grey first).
    pub fn shade(
        mut self,
        label: impl Into<String>,
        intervals: impl IntoIterator<Item = (f64, f64)>,
    ) -> TimeSeriesChart {
        self.shades.push((label.into(), intervals.into_iter().collect()));
        self
    }

    /// Label of the time axis (default "Time (s)").
    pub fn x_label(mut self, name: &str, unit: &str) -> TimeSeriesChart {
        self.x_label = label_with_unit(name, unit);
        self
    }

    /// Label of the left axis, e.g. `("Window", "packets")`.
    pub fn y_label(mut self, name: &str, unit: &str) -> TimeSeriesChart {
        self.y_label = label_with_unit(name, unit);
        self
    }

    /// Label of the right axis, e.g. `("RTT", "ms")`; the right axis is drawn
    /// if it has a label or a series.
    pub fn y2_label(mut self, name: &str, unit: &str) -> TimeSeriesChart {
        self.y2_label = label_with_unit(name, unit);
        self
    }

    /// Fixes the time axis range.
    pub fn x_range(mut self, lo: f64, hi: f64) -> TimeSeriesChart {
        self.x_range = Some((lo, hi));
        self
    }

    /// Fixes the left axis range.
    pub fn y_range(mut self, lo: f64, hi: f64) -> TimeSeriesChart {
        self.y_range = Some((lo, hi));
        self
    }

    /// Fixes the right axis range.
    pub fn y2_range(mut self, lo: f64, hi: f64) -> TimeSeriesChart {
        self.y2_range = Some((lo, hi));
        self
    }

    /// Whether automatic value axes start at zero (default true).
    pub fn from_zero(mut self, yes: bool) -> TimeSeriesChart {
        self.from_zero = yes;
        self
    }

    canvas_methods!();

    fn render(&self) -> Result<String, PlotError> {
        self.canvas.check()?;
        check_range(self.x_range, false, "x")?;
        check_range(self.y_range, false, "y")?;
        check_range(self.y2_range, false, "y2")?;
        if self.lines.is_empty() {
            return Err(empty(format!("{} (no series)", quoted("chart", &self.canvas.title))));
        }
        let mut xs = Extent::new();
        let mut ys = [Extent::new(), Extent::new()];
        for l in &self.lines {
            let what = quoted("series", &l.name);
            if l.points.is_empty() {
                return Err(empty(what));
            }
            let mut any = false;
            for &(t, y) in &l.points {
                if t.is_finite() && y.is_finite() {
                    any = true;
                    xs.add(t);
                    ys[usize::from(l.axis == Axis::Right)].add(y);
                }
            }
            if !any {
                return Err(no_finite(format!("{what} ({} points)", l.points.len())));
            }
        }
        let has_right = self.lines.iter().any(|l| l.axis == Axis::Right) || !self.y2_label.is_empty();
        let [left, right] =
            ys.map(|e| if e.is_empty() { Extent { lo: 0.0, hi: 1.0 } } else { e.with_zero(self.from_zero) });
        let (left_ticks, right_ticks) = if has_right {
            twin_ticks(left, right, [self.y_range, self.y2_range])
        } else {
            (ticks_for(left.lo, left.hi, false, self.y_range, Fit::Nice), ticks_for(0.0, 1.0, false, None, Fit::Nice))
        };

        let mut legend: Vec<LegendEntry> = self
            .lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let dash = (l.axis == Axis::Right).then_some(RIGHT_DASH);
                LegendEntry::new(Glyph::Line { color: color(i), dash, marker: None }, l.name.clone())
            })
            .collect();
        for (i, (label, _)) in self.shades.iter().enumerate() {
            if !label.is_empty() {
                legend.push(LegendEntry::new(Glyph::Shade { color: SHADES[i % SHADES.len()] }, label.clone()));
            }
        }

        let mut svg = Svg::new(self.canvas.width, self.canvas.height, &self.canvas.title);
        let body = header(&mut svg, self.canvas.width, self.canvas.height, &self.canvas.title, &legend);
        let spec = PanelSpec {
            title: None,
            x: XAxis::Numeric {
                label: self.x_label.clone(),
                ticks: ticks_for(xs.lo, xs.hi, false, self.x_range, Fit::Snug),
            },
            y: YAxis { label: self.y_label.clone(), ticks: left_ticks, color: None },
            y2: has_right.then(|| YAxis { label: self.y2_label.clone(), ticks: right_ticks, color: None }),
        };
        let panel = spec.place(body, 0);
        let r = panel.plot;
        panel.begin_clip(&mut svg);
        for (i, (_, intervals)) in self.shades.iter().enumerate() {
            let style = shade_style(SHADES[i % SHADES.len()]);
            for &(a, b) in intervals {
                if a.is_finite() && b.is_finite() {
                    let (a, b) = (panel.x.map(a.min(b)), panel.x.map(a.max(b)));
                    let (a, b) = (a.max(r.x - 1.0), b.min(r.right() + 1.0));
                    if b > a {
                        svg.rect(a, r.y, b - a, r.h, &style);
                    }
                }
            }
        }
        panel.end_clip(&mut svg);
        spec.draw_under(&mut svg, &panel);
        panel.begin_clip(&mut svg);
        let max_per_segment = (r.w.max(1.0) * 4.0) as usize;
        for (i, l) in self.lines.iter().enumerate() {
            let scale = match (l.axis, &panel.y2) {
                (Axis::Right, Some(s)) => s,
                _ => &panel.y,
            };
            let dash =
                if l.axis == Axis::Right { format!(r#" stroke-dasharray="{RIGHT_DASH}""#) } else { String::new() };
            let style = format!(r#"stroke="{}" stroke-width="1.8" stroke-linejoin="round"{dash}"#, color(i));
            for seg in segments(&l.points, &panel.x, scale) {
                let seg = decimate(seg, max_per_segment);
                if seg.len() == 1 {
                    // A lone point between gaps: a dot, so it is not lost.
                    let (x, y) = seg[0];
                    svg.raw(&format!(
                        r#"<circle cx="{}" cy="{}" r="1.8" fill="{}"/>"#,
                        crate::svg::num(x),
                        crate::svg::num(y),
                        color(i)
                    ));
                } else {
                    svg.polyline(&seg, &style);
                }
            }
        }
        panel.end_clip(&mut svg);
        spec.draw_over(&mut svg, &panel);
        Ok(svg.finish())
    }
}

/// The runs of finite points, mapped to pixels.
fn segments(points: &[(f64, f64)], x: &Scale, y: &Scale) -> Vec<Vec<(f64, f64)>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    for &(t, v) in points {
        if t.is_finite() && v.is_finite() {
            cur.push((x.map(t), y.map(v)));
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Thins a line of more than `max` points to at most four per pixel column
/// (first, lowest, highest, last, in their order), which keeps its envelope.
fn decimate(seg: Vec<(f64, f64)>, max: usize) -> Vec<(f64, f64)> {
    if seg.len() <= max {
        return seg;
    }
    let mut out = Vec::new();
    let mut start = 0;
    while start < seg.len() {
        let col = seg[start].0.floor();
        let mut end = start + 1;
        while end < seg.len() && seg[end].0.floor() == col {
            end += 1;
        }
        let bucket = &seg[start..end];
        let lo = (0..bucket.len()).min_by(|&a, &b| bucket[a].1.total_cmp(&bucket[b].1)).unwrap_or(0);
        let hi = (0..bucket.len()).max_by(|&a, &b| bucket[a].1.total_cmp(&bucket[b].1)).unwrap_or(0);
        let mut keep = [0, lo, hi, bucket.len() - 1];
        keep.sort_unstable();
        for (k, idx) in keep.iter().enumerate() {
            if k == 0 || *idx != keep[k - 1] {
                out.push(bucket[*idx]);
            }
        }
        start = end;
    }
    out
}

impl Chart for TimeSeriesChart {
    fn to_svg(&self) -> Result<String, PlotError> {
        self.render()
    }

    fn png_size(&self) -> (u32, u32) {
        self.canvas.png_size()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimation_keeps_extremes() {
        let seg: Vec<(f64, f64)> = (0..1000).map(|i| (f64::from(i) / 100.0, f64::from(i % 7))).collect();
        let d = decimate(seg, 100);
        assert!(d.len() <= 40, "{}", d.len());
        assert!(d.iter().any(|p| p.1 == 6.0) && d.iter().any(|p| p.1 == 0.0));
        assert!(d.windows(2).all(|w| w[1].0 >= w[0].0));
    }

    #[test]
    fn gaps_split_segments() {
        let s = Scale::linear(0.0, 1.0, 0.0, 1.0);
        let pts = [(0.0, 1.0), (0.1, f64::NAN), (0.2, 1.0), (0.3, 1.0), (f64::INFINITY, 0.0)];
        let segs = segments(&pts, &s, &s);
        assert_eq!(segs.len(), 2);
        assert_eq!(segs[1].len(), 2);
    }
}
