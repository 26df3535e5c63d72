//! The throughput–delay box chart of the RTAC paper (its Figs. 3 and 6): per
//! category, one box per metric from the 25th to the 75th percentile with a
//! median line, a mean marker and optional whiskers.

use crate::axis::{Fit, Scale};
use crate::error::{empty, invalid, PlotError};
use crate::frame::{header, Glyph, LegendEntry, PanelSpec, Rect, XAxis, YAxis};
use crate::stats::Summary;
use crate::style::{color, Marker, FONT_VALUE};
use crate::svg::{Anchor, Svg};
use crate::{
    canvas_methods, check_range, fmt_value, label_with_unit, quoted, ticks_for, twin_ticks, Canvas, Chart, Extent,
};

/// A quantity with its unit, e.g. `Metric::new("Throughput", "Mbit/s")`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metric {
    /// What is measured.
    pub name: String,
    /// Its unit ("" for none).
    pub unit: String,
}

impl Metric {
    /// A metric named `name` in `unit`.
    pub fn new(name: impl Into<String>, unit: impl Into<String>) -> Metric {
        Metric { name: name.into(), unit: unit.into() }
    }

    fn label(&self) -> String {
        label_with_unit(&self.name, &self.unit)
    }
}

/// What the whiskers of a box span.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Whiskers {
    /// No whiskers.
    None,
    /// From the 5th to the 95th percentile (the default).
    #[default]
    P5P95,
    /// From the smallest to the largest sample.
    MinMax,
}

/// How the two metrics share the chart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BoxLayout {
    /// One plot, the first metric on the left axis and the second on the
    /// right, their boxes side by side in each category (the default).
    #[default]
    TwinAxes,
    /// Two plots side by side, one per metric.
    Panels,
}

#[derive(Clone, Debug)]
enum BoxData {
    Samples(Vec<f64>),
    Summary(Summary),
}

#[derive(Clone, Debug)]
struct Category {
    name: String,
    data: [BoxData; 2],
}

/// Boxes of two metrics (e.g. throughput and delay) for each category (e.g.
/// receiver type, or tcp_rmem_max value).
///
/// ```
/// use rtac_plot::{BoxChart, Metric};
/// let chart = BoxChart::new("LTE", Metric::new("Throughput", "Mbit/s"), Metric::new("Delay", "ms"))
///     .category("Auto-tuning", &[52.0, 53.0, 52.5], &[340.0, 352.0, 361.0])
///     .category("RTAC", &[52.1, 52.9, 52.7], &[68.0, 71.0, 74.0]);
/// ```
#[derive(Clone, Debug)]
pub struct BoxChart {
    canvas: Canvas,
    metrics: [Metric; 2],
    x_label: String,
    categories: Vec<Category>,
    whiskers: Whiskers,
    layout: BoxLayout,
    ranges: [Option<(f64, f64)>; 2],
    from_zero: bool,
    show_means: bool,
}

impl BoxChart {
    /// A chart of `left` (first box, left axis) and `right` (second box,
    /// right axis) with no categories yet.
    pub fn new(title: impl Into<String>, left: Metric, right: Metric) -> BoxChart {
        BoxChart {
            canvas: Canvas::new(title),
            metrics: [left, right],
            x_label: String::new(),
            categories: Vec::new(),
            whiskers: Whiskers::default(),
            layout: BoxLayout::default(),
            ranges: [None, None],
            from_zero: true,
            show_means: false,
        }
    }

    /// Adds a category with the samples of both metrics (NaN skipped).
    pub fn category(mut self, name: impl Into<String>, left: &[f64], right: &[f64]) -> BoxChart {
        self.categories.push(Category {
            name: name.into(),
            data: [BoxData::Samples(left.to_vec()), BoxData::Samples(right.to_vec())],
        });
        self
    }

    /// Adds a category from summaries computed elsewhere.
    pub fn category_summary(mut self, name: impl Into<String>, left: Summary, right: Summary) -> BoxChart {
        self.categories.push(Category { name: name.into(), data: [BoxData::Summary(left), BoxData::Summary(right)] });
        self
    }

    /// Label of the category axis, e.g. `("tcp_rmem_max", "KB")`.
    pub fn x_label(mut self, name: &str, unit: &str) -> BoxChart {
        self.x_label = label_with_unit(name, unit);
        self
    }

    /// What the whiskers span (default 5th–95th percentile).
    pub fn whiskers(mut self, whiskers: Whiskers) -> BoxChart {
        self.whiskers = whiskers;
        self
    }

    /// Twin axes (default) or two panels.
    pub fn layout(mut self, layout: BoxLayout) -> BoxChart {
        self.layout = layout;
        self
    }

    /// Fixes the axis range of the left (first) metric.
    pub fn left_range(mut self, lo: f64, hi: f64) -> BoxChart {
        self.ranges[0] = Some((lo, hi));
        self
    }

    /// Fixes the axis range of the right (second) metric.
    pub fn right_range(mut self, lo: f64, hi: f64) -> BoxChart {
        self.ranges[1] = Some((lo, hi));
        self
    }

    /// Whether automatic value axes start at zero (default true).
    pub fn from_zero(mut self, yes: bool) -> BoxChart {
        self.from_zero = yes;
        self
    }

    /// Writes each box's mean above it (default false).
    pub fn show_means(mut self, yes: bool) -> BoxChart {
        self.show_means = yes;
        self
    }

    canvas_methods!();

    fn summaries(&self) -> Result<Vec<[Summary; 2]>, PlotError> {
        if self.categories.is_empty() {
            return Err(empty(format!("{} (no categories)", quoted("chart", &self.canvas.title))));
        }
        let mut out = Vec::with_capacity(self.categories.len());
        for c in &self.categories {
            let mut pair = [None, None];
            for (m, slot) in pair.iter_mut().enumerate() {
                let what = format!("{} {}", quoted("category", &c.name), self.metrics[m].name);
                *slot = Some(match &c.data[m] {
                    BoxData::Samples(v) => Summary::named(v, &what)?,
                    BoxData::Summary(s) if s.is_finite() => *s,
                    BoxData::Summary(_) => return Err(invalid(format!("{what}: summary has non-finite fields"))),
                });
            }
            out.push(pair.map(|s| s.expect("both metrics summarised")));
        }
        Ok(out)
    }

    fn whisker_ends(&self, s: &Summary) -> Option<(f64, f64)> {
        match self.whiskers {
            Whiskers::None => None,
            Whiskers::P5P95 => Some((s.p5, s.p95)),
            Whiskers::MinMax => Some((s.min, s.max)),
        }
    }

    fn extent(&self, m: usize, sums: &[[Summary; 2]]) -> Extent {
        let mut ext = Extent::new();
        for s in sums.iter().map(|pair| &pair[m]) {
            for v in [s.p25, s.p75, s.mean, s.median] {
                ext.add(v);
            }
            if let Some((lo, hi)) = self.whisker_ends(s) {
                ext.add(lo);
                ext.add(hi);
            }
        }
        ext.with_zero(self.from_zero)
    }

    fn draw_box(&self, svg: &mut Svg, scale: &Scale, cx: f64, bw: f64, s: &Summary, color: &str) {
        let y = |v: f64| scale.map(v);
        let line = format!(r#"stroke="{color}" stroke-width="1.6""#);
        let mut top = y(s.p75).min(y(s.mean));
        if let Some((lo, hi)) = self.whisker_ends(s) {
            let cap = bw * 0.25;
            svg.line(cx, y(lo), cx, y(s.p25), &line);
            svg.line(cx, y(s.p75), cx, y(hi), &line);
            svg.line(cx - cap, y(lo), cx + cap, y(lo), &line);
            svg.line(cx - cap, y(hi), cx + cap, y(hi), &line);
            top = top.min(y(hi));
        }
        svg.rect(
            cx - bw / 2.0,
            y(s.p75),
            bw,
            y(s.p25) - y(s.p75),
            &format!(r#"fill="{color}" fill-opacity="0.25" stroke="{color}" stroke-width="1.6""#),
        );
        svg.line(
            cx - bw / 2.0,
            y(s.median),
            cx + bw / 2.0,
            y(s.median),
            &format!(r#"stroke="{color}" stroke-width="3""#),
        );
        svg.marker(
            Marker::Diamond,
            cx,
            y(s.mean),
            11.0,
            &format!(r##"fill="#FFFFFF" stroke="{color}" stroke-width="2""##),
        );
        if self.show_means {
            svg.text(cx, top - 6.0, FONT_VALUE, Anchor::Middle, &fmt_value(s.mean), &format!(r#"fill="{color}""#));
        }
    }

    fn render(&self) -> Result<String, PlotError> {
        self.canvas.check()?;
        check_range(self.ranges[0], false, &self.metrics[0].name)?;
        check_range(self.ranges[1], false, &self.metrics[1].name)?;
        let sums = self.summaries()?;
        let colors = [color(0), color(1)];
        let names: Vec<String> = self.categories.iter().map(|c| c.name.clone()).collect();

        let mut legend = Vec::new();
        if self.layout == BoxLayout::TwinAxes {
            for (m, side) in [(0, "left axis"), (1, "right axis")] {
                let glyph = Glyph::Patch { color: colors[m], fill_opacity: 0.25 };
                legend.push(LegendEntry::new(glyph, format!("{} ({side})", self.metrics[m].name)));
            }
        }
        legend.push(LegendEntry::new(Glyph::BoxKey, "25th–75th pct"));
        legend.push(LegendEntry::new(Glyph::MedianKey, "median"));
        legend.push(LegendEntry::new(Glyph::MeanKey, "mean"));
        match self.whiskers {
            Whiskers::None => {}
            Whiskers::P5P95 => legend.push(LegendEntry::new(Glyph::WhiskerKey, "5th–95th pct")),
            Whiskers::MinMax => legend.push(LegendEntry::new(Glyph::WhiskerKey, "min–max")),
        }

        let mut svg = Svg::new(self.canvas.width, self.canvas.height, &self.canvas.title);
        let body = header(&mut svg, self.canvas.width, self.canvas.height, &self.canvas.title, &legend);
        match self.layout {
            BoxLayout::TwinAxes => {
                let (left, right) = twin_ticks(self.extent(0, &sums), self.extent(1, &sums), self.ranges);
                let spec = PanelSpec {
                    title: None,
                    x: XAxis::Categories { label: self.x_label.clone(), names },
                    y: YAxis { label: self.metrics[0].label(), ticks: left, color: Some(colors[0]) },
                    y2: Some(YAxis { label: self.metrics[1].label(), ticks: right, color: Some(colors[1]) }),
                };
                let panel = spec.place(body, 0);
                spec.draw_under(&mut svg, &panel);
                panel.begin_clip(&mut svg);
                let bw = (panel.category_w() * 0.3).min(70.0);
                let gap = bw * 0.2;
                for (i, pair) in sums.iter().enumerate() {
                    let c = panel.category_x(i);
                    self.draw_box(&mut svg, &panel.y, c - (bw + gap) / 2.0, bw, &pair[0], colors[0]);
                    self.draw_box(
                        &mut svg,
                        panel.y2.as_ref().unwrap_or(&panel.y),
                        c + (bw + gap) / 2.0,
                        bw,
                        &pair[1],
                        colors[1],
                    );
                }
                panel.end_clip(&mut svg);
                spec.draw_over(&mut svg, &panel);
            }
            BoxLayout::Panels => {
                let half = body.w / 2.0;
                for m in 0..2 {
                    let spec = PanelSpec {
                        title: Some(self.metrics[m].name.clone()),
                        x: XAxis::Categories { label: self.x_label.clone(), names: names.clone() },
                        y: YAxis {
                            label: self.metrics[m].label(),
                            ticks: {
                                let e = self.extent(m, &sums);
                                ticks_for(e.lo, e.hi, false, self.ranges[m], Fit::Nice)
                            },
                            color: None,
                        },
                        y2: None,
                    };
                    let area = Rect { x: body.x + half * m as f64, y: body.y, w: half, h: body.h };
                    let panel = spec.place(area, m);
                    spec.draw_under(&mut svg, &panel);
                    panel.begin_clip(&mut svg);
                    let bw = (panel.category_w() * 0.45).min(80.0);
                    for (i, pair) in sums.iter().enumerate() {
                        self.draw_box(&mut svg, &panel.y, panel.category_x(i), bw, &pair[m], colors[m]);
                    }
                    panel.end_clip(&mut svg);
                    spec.draw_over(&mut svg, &panel);
                }
            }
        }
        Ok(svg.finish())
    }
}

impl Chart for BoxChart {
    fn to_svg(&self) -> Result<String, PlotError> {
        self.render()
    }

    fn png_size(&self) -> (u32, u32) {
        self.canvas.png_size()
    }
}
