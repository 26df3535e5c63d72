//! Empirical CDFs of several sample sets.

use crate::axis::{Fit, Ticks};
use crate::error::{empty, no_finite, PlotError};
use crate::frame::{header, Glyph, LegendEntry, PanelSpec, XAxis, YAxis};
use crate::stats::sorted_finite;
use crate::style::color;
use crate::svg::Svg;
use crate::{canvas_methods, check_range, label_with_unit, quoted, ticks_for, Canvas, Chart, Extent};

/// Above this many samples a CDF is drawn through this many quantiles (less
/// than half a pixel apart at the default size).
const MAX_STEPS: usize = 1000;

/// Empirical CDFs, one line per named sample set.
///
/// ```
/// use rtac_plot::CdfChart;
/// let chart = CdfChart::new("RTT").x_label("RTT", "ms").log_x(true)
///     .series("Auto-tuning", &[310.0, 350.0, 420.0])
///     .series("RTAC", &[55.0, 70.0, 90.0]);
/// ```
#[derive(Clone, Debug)]
pub struct CdfChart {
    canvas: Canvas,
    x_label: String,
    y_label: String,
    log_x: bool,
    x_range: Option<(f64, f64)>,
    series: Vec<(String, Vec<f64>)>,
}

impl CdfChart {
    /// An empty CDF chart; the y axis is labelled "CDF".
    pub fn new(title: impl Into<String>) -> CdfChart {
        CdfChart {
            canvas: Canvas::new(title),
            x_label: String::new(),
            y_label: "CDF".to_string(),
            log_x: false,
            x_range: None,
            series: Vec::new(),
        }
    }

    /// Adds a sample set (NaN skipped; on a log axis, values <= 0 too).
    pub fn series(mut self, name: impl Into<String>, samples: &[f64]) -> CdfChart {
        self.series.push((name.into(), samples.to_vec()));
        self
    }

    /// Label of the x axis, e.g. `("RTT", "ms")`.
    pub fn x_label(mut self, name: &str, unit: &str) -> CdfChart {
        self.x_label = label_with_unit(name, unit);
        self
    }

    /// Label of the y axis (default "CDF").
    pub fn y_label(mut self, label: &str) -> CdfChart {
        self.y_label = label.to_string();
        self
    }

    /// Logarithmic x axis (default false).
    pub fn log_x(mut self, yes: bool) -> CdfChart {
        self.log_x = yes;
        self
    }

    /// Fixes the x axis range.
    pub fn x_range(mut self, lo: f64, hi: f64) -> CdfChart {
        self.x_range = Some((lo, hi));
        self
    }

    canvas_methods!();

    fn render(&self) -> Result<String, PlotError> {
        self.canvas.check()?;
        check_range(self.x_range, self.log_x, "x")?;
        if self.series.is_empty() {
            return Err(empty(format!("{} (no series)", quoted("chart", &self.canvas.title))));
        }
        let mut sorted = Vec::with_capacity(self.series.len());
        let mut ext = Extent::new();
        for (name, samples) in &self.series {
            let what = quoted("series", name);
            if samples.is_empty() {
                return Err(empty(what));
            }
            let mut v = sorted_finite(samples);
            if self.log_x {
                v.retain(|x| *x > 0.0);
            }
            if v.is_empty() {
                let extra = if self.log_x { ", positive for the log axis" } else { "" };
                return Err(no_finite(format!("{what} ({} values{extra})", samples.len())));
            }
            ext.add(v[0]);
            ext.add(v[v.len() - 1]);
            sorted.push(v);
        }

        let legend: Vec<LegendEntry> = self
            .series
            .iter()
            .enumerate()
            .map(|(i, (name, _))| {
                LegendEntry::new(Glyph::Line { color: color(i), dash: None, marker: None }, name.clone())
            })
            .collect();
        let mut svg = Svg::new(self.canvas.width, self.canvas.height, &self.canvas.title);
        let body = header(&mut svg, self.canvas.width, self.canvas.height, &self.canvas.title, &legend);
        let x_ticks = ticks_for(ext.lo, ext.hi, self.log_x, self.x_range, Fit::Snug);
        let (x_lo, x_hi) = (x_ticks.lo, x_ticks.hi);
        let spec = PanelSpec {
            title: None,
            x: XAxis::Numeric { label: self.x_label.clone(), ticks: x_ticks },
            y: YAxis { label: self.y_label.clone(), ticks: cdf_axis(), color: None },
            y2: None,
        };
        let panel = spec.place(body, 0);
        spec.draw_under(&mut svg, &panel);
        panel.begin_clip(&mut svg);
        for (i, v) in sorted.iter().enumerate() {
            let pts: Vec<(f64, f64)> = cdf_steps(v, x_lo, x_hi)
                .into_iter()
                .filter(|(x, _)| panel.x.accepts(*x))
                .map(|(x, y)| (panel.x.map(x), panel.y.map(y)))
                .collect();
            svg.polyline(&pts, &format!(r#"stroke="{}" stroke-width="2.2" stroke-linejoin="round""#, color(i)));
        }
        panel.end_clip(&mut svg);
        spec.draw_over(&mut svg, &panel);
        Ok(svg.finish())
    }
}

/// 0 to 1 in steps of 0.2, with a little room so that lines at 0 and 1 are
/// not hidden by the frame.
fn cdf_axis() -> Ticks {
    let mut t = Ticks::new(0.0, 1.0, false, Fit::Exact);
    t.lo = -0.02;
    t.hi = 1.02;
    t
}

/// The corners of the empirical CDF of sorted, non-empty `v` as a staircase,
/// flat at 0 from `x_lo` and at 1 up to `x_hi`.
fn cdf_steps(v: &[f64], x_lo: f64, x_hi: f64) -> Vec<(f64, f64)> {
    let n = v.len();
    let mut pts = vec![(x_lo.min(v[0]), 0.0)];
    if n <= MAX_STEPS {
        for (i, x) in v.iter().enumerate() {
            pts.push((*x, i as f64 / n as f64));
            pts.push((*x, (i + 1) as f64 / n as f64));
        }
    } else {
        let m = MAX_STEPS;
        for k in 1..=m {
            let idx = ((k * n).div_ceil(m)).saturating_sub(1).min(n - 1);
            pts.push((v[idx], (k - 1) as f64 / m as f64));
            pts.push((v[idx], k as f64 / m as f64));
        }
    }
    pts.push((x_hi.max(v[n - 1]), 1.0));
    pts
}

impl Chart for CdfChart {
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
    fn steps_rise_from_zero_to_one() {
        let p = cdf_steps(&[1.0, 2.0], 0.0, 3.0);
        assert_eq!(p, vec![(0.0, 0.0), (1.0, 0.0), (1.0, 0.5), (2.0, 0.5), (2.0, 1.0), (3.0, 1.0)]);
        let big: Vec<f64> = (0..10_000).map(f64::from).collect();
        let p = cdf_steps(&big, 0.0, 10_000.0);
        assert!(p.len() <= 2 * MAX_STEPS + 2);
        assert_eq!(p[p.len() - 2], (9999.0, 1.0));
        assert!(p.windows(2).all(|w| w[1].1 >= w[0].1 && w[1].0 >= w[0].0));
    }
}
