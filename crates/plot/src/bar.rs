//! Bar and grouped bar charts: one group per category, one bar per series,
//! optional error bars and a horizontal reference line.

use crate::axis::Fit;
use crate::error::{empty, invalid, no_finite, PlotError};
use crate::frame::{header, ref_line_style, Glyph, LegendEntry, PanelSpec, XAxis, YAxis};
use crate::style::{color, FONT_VALUE, INK};
use crate::svg::Anchor;
use crate::svg::Svg;
use crate::{canvas_methods, check_range, fmt_value, label_with_unit, quoted, ticks_for, Canvas, Chart, Extent};

#[derive(Clone, Debug)]
struct Series {
    name: String,
    values: Vec<f64>,
    errors: Option<Vec<f64>>,
}

/// Bars per category, grouped by series.
///
/// Error bars stop at the value axis's floor: the value set by
/// [`floor`](BarChart::floor), or else 0 when no bar value and no
/// reference line is below 0 (the chart then shows a quantity that cannot
/// be negative, such as a rate or a delay, and `mean - error` below 0 is an
/// artefact of a symmetric interval); a chart with a negative value has no
/// floor. The value axis reaches down only as far as the clipped bars.
///
/// ```
/// use rtac_plot::BarChart;
/// let chart = BarChart::new("Two flows sharing the cell")
///     .y_label("Throughput", "Mbit/s")
///     .categories(["Auto-tuning", "DRWA", "RTAC"])
///     .series("flow 1", &[27.0, 26.5, 27.3])
///     .series("flow 2", &[26.1, 26.4, 25.9])
///     .reference_line(27.5, "fair share");
/// ```
#[derive(Clone, Debug)]
pub struct BarChart {
    canvas: Canvas,
    x_label: String,
    y_label: String,
    categories: Vec<String>,
    series: Vec<Series>,
    reference: Option<(f64, String)>,
    y_range: Option<(f64, f64)>,
    show_values: bool,
    floor: Option<f64>,
}

impl BarChart {
    /// An empty bar chart.
    pub fn new(title: impl Into<String>) -> BarChart {
        BarChart {
            canvas: Canvas::new(title),
            x_label: String::new(),
            y_label: String::new(),
            categories: Vec::new(),
            series: Vec::new(),
            reference: None,
            y_range: None,
            show_values: false,
            floor: None,
        }
    }

    /// The category names, one group of bars each, left to right.
    pub fn categories<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> BarChart {
        self.categories = names.into_iter().map(Into::into).collect();
        self
    }

    /// A series: one value per category (NaN: no bar).
    pub fn series(mut self, name: impl Into<String>, values: &[f64]) -> BarChart {
        self.series.push(Series { name: name.into(), values: values.to_vec(), errors: None });
        self
    }

    /// A series with symmetric error bars (value ± error; NaN: none).
    pub fn series_with_errors(mut self, name: impl Into<String>, values: &[f64], errors: &[f64]) -> BarChart {
        self.series.push(Series { name: name.into(), values: values.to_vec(), errors: Some(errors.to_vec()) });
        self
    }

    /// A dashed horizontal line at `value`, e.g. the link capacity.
    pub fn reference_line(mut self, value: f64, label: impl Into<String>) -> BarChart {
        self.reference = Some((value, label.into()));
        self
    }

    /// Label of the category axis.
    pub fn x_label(mut self, name: &str, unit: &str) -> BarChart {
        self.x_label = label_with_unit(name, unit);
        self
    }

    /// Label of the value axis, e.g. `("Throughput", "Mbit/s")`.
    pub fn y_label(mut self, name: &str, unit: &str) -> BarChart {
        self.y_label = label_with_unit(name, unit);
        self
    }

    /// Fixes the value axis range.
    pub fn y_range(mut self, lo: f64, hi: f64) -> BarChart {
        self.y_range = Some((lo, hi));
        self
    }

    /// Writes each bar's value above it (default false).
    pub fn show_values(mut self, yes: bool) -> BarChart {
        self.show_values = yes;
        self
    }

    /// The lowest value the quantity can take: error bars are cut there.
    /// Without it, the floor is 0 if no value is negative (see the type's
    /// documentation); `f64::NEG_INFINITY` turns clipping off.
    pub fn floor(mut self, value: f64) -> BarChart {
        self.floor = Some(value);
        self
    }

    /// Where error bars stop: the set floor, or 0 when every finite bar
    /// value and the reference line are at least 0; `-inf` for none.
    fn error_floor(&self) -> f64 {
        if let Some(f) = self.floor.filter(|f| !f.is_nan()) {
            return f;
        }
        let values = self.series.iter().flat_map(|s| s.values.iter()).chain(self.reference.as_ref().map(|(v, _)| v));
        if values.filter(|v| v.is_finite()).all(|v| *v >= 0.0) {
            0.0
        } else {
            f64::NEG_INFINITY
        }
    }

    canvas_methods!();

    fn check(&self) -> Result<Extent, PlotError> {
        self.canvas.check()?;
        check_range(self.y_range, false, "y")?;
        let chart = quoted("chart", &self.canvas.title);
        if self.categories.is_empty() {
            return Err(empty(format!("{chart} (no categories)")));
        }
        if self.series.is_empty() {
            return Err(empty(format!("{chart} (no series)")));
        }
        let floor = self.error_floor();
        let mut ext = Extent::new();
        for s in &self.series {
            let what = quoted("series", &s.name);
            if s.values.is_empty() {
                return Err(empty(what));
            }
            if s.values.len() != self.categories.len() {
                return Err(invalid(format!(
                    "{what} has {} values for {} categories",
                    s.values.len(),
                    self.categories.len()
                )));
            }
            if let Some(e) = &s.errors {
                if e.len() != s.values.len() {
                    return Err(invalid(format!("{what} has {} errors for {} values", e.len(), s.values.len())));
                }
            }
            if !s.values.iter().any(|v| v.is_finite()) {
                return Err(no_finite(format!("{what} ({} values)", s.values.len())));
            }
            for (i, v) in s.values.iter().enumerate() {
                ext.add(*v);
                let e = s.errors.as_ref().map_or(f64::NAN, |e| e[i].abs());
                if v.is_finite() && e.is_finite() {
                    ext.add(error_low(*v, e, floor));
                    ext.add(v + e);
                }
            }
        }
        if let Some((v, _)) = &self.reference {
            ext.add(*v);
        }
        Ok(ext.with_zero(true))
    }

    fn render(&self) -> Result<String, PlotError> {
        let ext = self.check()?;
        let mut legend: Vec<LegendEntry> = Vec::new();
        if self.series.len() > 1 || !self.series[0].name.is_empty() {
            for (i, s) in self.series.iter().enumerate() {
                legend.push(LegendEntry::new(Glyph::Patch { color: color(i), fill_opacity: 0.85 }, s.name.clone()));
            }
        }
        if let Some((_, label)) = &self.reference {
            if !label.is_empty() {
                legend.push(LegendEntry::new(Glyph::RefLine, label.clone()));
            }
        }

        let mut svg = Svg::new(self.canvas.width, self.canvas.height, &self.canvas.title);
        let body = header(&mut svg, self.canvas.width, self.canvas.height, &self.canvas.title, &legend);
        let spec = PanelSpec {
            title: None,
            x: XAxis::Categories { label: self.x_label.clone(), names: self.categories.clone() },
            y: YAxis {
                label: self.y_label.clone(),
                ticks: ticks_for(ext.lo, ext.hi, false, self.y_range, Fit::Nice),
                color: None,
            },
            y2: None,
        };
        let panel = spec.place(body, 0);
        spec.draw_under(&mut svg, &panel);
        panel.begin_clip(&mut svg);
        let n = self.series.len() as f64;
        let group = panel.category_w() * 0.8;
        let bw = group / n;
        let y0 = panel.y.map(0.0);
        let floor = self.error_floor();
        let mut labels = Vec::new();
        for (si, s) in self.series.iter().enumerate() {
            let fill = format!(r#"fill="{}" fill-opacity="0.85" stroke="{}" stroke-width="1""#, color(si), color(si));
            for (ci, v) in s.values.iter().enumerate() {
                if !v.is_finite() {
                    continue;
                }
                let left = panel.category_x(ci) - group / 2.0 + bw * si as f64;
                let cx = left + bw / 2.0;
                let y = panel.y.map(*v);
                svg.rect(left + bw * 0.06, y, bw * 0.88, y0 - y, &fill);
                let mut top = y.min(y0);
                if let Some(e) = s.errors.as_ref().map(|e| e[ci].abs()).filter(|e| e.is_finite()) {
                    let style = format!(r#"stroke="{INK}" stroke-width="1.5""#);
                    let (a, b) = (panel.y.map(error_low(*v, e, floor)), panel.y.map(v + e));
                    let cap = (bw * 0.2).min(8.0);
                    svg.line(cx, a, cx, b, &style);
                    svg.line(cx - cap, a, cx + cap, a, &style);
                    svg.line(cx - cap, b, cx + cap, b, &style);
                    top = top.min(a.min(b));
                }
                if self.show_values {
                    labels.push((cx, top - 5.0, fmt_value(*v)));
                }
            }
        }
        if let Some((v, label)) = &self.reference {
            if v.is_finite() {
                let y = panel.y.map(*v);
                let r = panel.plot;
                svg.line(r.x, y, r.right(), y, &ref_line_style());
                if !label.is_empty() {
                    svg.text(r.right() - 6.0, y - 6.0, FONT_VALUE, Anchor::End, label, &format!(r#"fill="{INK}""#));
                }
            }
        }
        for (x, y, s) in labels {
            svg.text(x, y, FONT_VALUE, Anchor::Middle, &s, r##"fill="#000000""##);
        }
        panel.end_clip(&mut svg);
        spec.draw_over(&mut svg, &panel);
        Ok(svg.finish())
    }
}

/// The lower end of the error bar `v ± e`, cut at `floor`; a value below
/// the floor (possible only with a set floor) keeps its whole error bar.
fn error_low(v: f64, e: f64, floor: f64) -> f64 {
    if v >= floor {
        (v - e).max(floor)
    } else {
        v - e
    }
}

impl Chart for BarChart {
    fn to_svg(&self) -> Result<String, PlotError> {
        self.render()
    }

    fn png_size(&self) -> (u32, u32) {
        self.canvas.png_size()
    }
}
