//! What every chart shares: title, legend, axes, ticks, grid and clipping.
//!
//! A chart draws [`header`] (title and legend) first, which leaves a body
//! rectangle; it lays out one [`PanelSpec`] per plot in that body, then draws
//! `draw_under` (grid), its data between `begin_clip` and `end_clip`, and
//! `draw_over` (frame, ticks and labels).

use crate::axis::{Scale, Ticks};
use crate::style::{Marker, FONT_LABEL, FONT_LEGEND, FONT_TICK, FONT_TITLE, GRID, INK};
use crate::svg::{num, Anchor, Svg};
use crate::text::text_width;

const PAD: f64 = 12.0;
const TICK: f64 = 5.0;
const TICK_GAP: f64 = 4.0;
const LABEL_GAP: f64 = 6.0;
/// Ascent and descent of DejaVu Sans in em, for placing baselines.
const ASCENT: f64 = 0.76;
const DESCENT: f64 = 0.24;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub(crate) fn right(&self) -> f64 {
        self.x + self.w
    }
    pub(crate) fn bottom(&self) -> f64 {
        self.y + self.h
    }
}

/// The little picture before a legend label.
#[derive(Clone, Debug)]
pub(crate) enum Glyph {
    /// A line, maybe dashed, maybe with a marker in the middle.
    Line { color: &'static str, dash: Option<&'static str>, marker: Option<Marker> },
    /// A marker alone (scatter without lines).
    Marker { color: &'static str, marker: Marker },
    /// A filled rectangle (bars; boxes of one metric).
    Patch { color: &'static str, fill_opacity: f64 },
    /// A neutral box with its median line: "25th-75th percentile".
    BoxKey,
    /// The mean marker of box charts.
    MeanKey,
    /// The median line of box charts.
    MedianKey,
    /// A whisker with caps.
    WhiskerKey,
    /// A dashed reference line.
    RefLine,
    /// A shaded interval.
    Shade { color: &'static str },
}

#[derive(Clone, Debug)]
pub(crate) struct LegendEntry {
    pub glyph: Glyph,
    pub label: String,
}

impl LegendEntry {
    pub(crate) fn new(glyph: Glyph, label: impl Into<String>) -> LegendEntry {
        LegendEntry { glyph, label: label.into() }
    }
}

const GLYPH_W: f64 = 30.0;
const LEGEND_ROW: f64 = 22.0;

fn entry_width(e: &LegendEntry) -> f64 {
    GLYPH_W + 6.0 + text_width(&e.label, FONT_LEGEND)
}

/// Draws the title and the legend (in centred rows under the title) and
/// returns the rest of the canvas.
pub(crate) fn header(svg: &mut Svg, width: u32, height: u32, title: &str, legend: &[LegendEntry]) -> Rect {
    let w = f64::from(width);
    let mut y = PAD * 0.5;
    if !title.is_empty() {
        y += FONT_TITLE * 1.35;
        svg.text(
            w / 2.0,
            y - FONT_TITLE * 0.3,
            FONT_TITLE,
            Anchor::Middle,
            title,
            r##"font-weight="bold" fill="#000000""##,
        );
    }
    if !legend.is_empty() {
        y += 4.0;
        let avail = w - 2.0 * PAD;
        let spacing = 18.0;
        // Greedy rows.
        let mut rows: Vec<Vec<&LegendEntry>> = vec![Vec::new()];
        let mut row_w = 0.0;
        for e in legend {
            let ew = entry_width(e);
            let row = rows.last_mut().expect("rows has one row");
            if !row.is_empty() && row_w + spacing + ew > avail {
                rows.push(vec![e]);
                row_w = ew;
            } else {
                if !row.is_empty() {
                    row_w += spacing;
                }
                row_w += ew;
                row.push(e);
            }
        }
        for row in rows {
            let total: f64 = row.iter().map(|e| entry_width(e)).sum::<f64>() + spacing * (row.len() as f64 - 1.0);
            let mut x = ((w - total) / 2.0).max(PAD);
            let mid = y + LEGEND_ROW / 2.0;
            for e in row {
                draw_glyph(svg, &e.glyph, x, mid);
                svg.text(
                    x + GLYPH_W + 6.0,
                    mid + FONT_LEGEND * 0.35,
                    FONT_LEGEND,
                    Anchor::Start,
                    &e.label,
                    r##"fill="#000000""##,
                );
                x += entry_width(e) + spacing;
            }
            y += LEGEND_ROW;
        }
    }
    y += 2.0;
    Rect { x: 0.0, y, w, h: (f64::from(height) - y).max(10.0) }
}

fn draw_glyph(svg: &mut Svg, glyph: &Glyph, x: f64, mid: f64) {
    let cx = x + GLYPH_W / 2.0;
    match glyph {
        Glyph::Line { color, dash, marker } => {
            let dash = dash.map(|d| format!(r#" stroke-dasharray="{d}""#)).unwrap_or_default();
            svg.line(x, mid, x + GLYPH_W, mid, &format!(r#"stroke="{color}" stroke-width="2.5"{dash}"#));
            if let Some(m) = marker {
                svg.marker(*m, cx, mid, 9.0, &marker_style(*m, color));
            }
        }
        Glyph::Marker { color, marker } => {
            svg.marker(*marker, cx, mid, 9.0, &marker_style(*marker, color));
        }
        Glyph::Patch { color, fill_opacity } => {
            svg.rect(
                x + 3.0,
                mid - 7.0,
                GLYPH_W - 6.0,
                14.0,
                &format!(r#"fill="{color}" fill-opacity="{fill_opacity}" stroke="{color}" stroke-width="1.5""#),
            );
        }
        Glyph::BoxKey => {
            svg.rect(
                x + 3.0,
                mid - 7.0,
                GLYPH_W - 6.0,
                14.0,
                r##"fill="#BBBBBB" fill-opacity="0.35" stroke="#555555" stroke-width="1.5""##,
            );
        }
        Glyph::MeanKey => {
            svg.marker(Marker::Diamond, cx, mid, 9.0, r##"fill="#FFFFFF" stroke="#222222" stroke-width="1.8""##);
        }
        Glyph::MedianKey => {
            svg.line(x + 3.0, mid, x + GLYPH_W - 3.0, mid, r##"stroke="#222222" stroke-width="3""##);
        }
        Glyph::WhiskerKey => {
            let s = r##"stroke="#222222" stroke-width="1.5""##;
            svg.line(x + 3.0, mid, x + GLYPH_W - 3.0, mid, s);
            svg.line(x + 3.0, mid - 5.0, x + 3.0, mid + 5.0, s);
            svg.line(x + GLYPH_W - 3.0, mid - 5.0, x + GLYPH_W - 3.0, mid + 5.0, s);
        }
        Glyph::RefLine => {
            svg.line(x, mid, x + GLYPH_W, mid, &ref_line_style());
        }
        Glyph::Shade { color } => {
            svg.rect(x + 3.0, mid - 7.0, GLYPH_W - 6.0, 14.0, &shade_style(color));
        }
    }
}

/// Style of a marker of series colour `color` (crosses are stroked, not filled).
pub(crate) fn marker_style(m: Marker, color: &str) -> String {
    if m == Marker::Cross {
        format!(r#"fill="none" stroke="{color}" stroke-width="2.2""#)
    } else {
        format!(r##"fill="{color}" stroke="#FFFFFF" stroke-width="0.8""##)
    }
}

pub(crate) fn ref_line_style() -> String {
    format!(r#"stroke="{INK}" stroke-width="1.6" stroke-dasharray="7,4""#)
}

pub(crate) fn shade_style(color: &str) -> String {
    format!(r#"fill="{color}" fill-opacity="0.22" stroke="none""#)
}

/// The horizontal axis of a panel.
#[derive(Clone, Debug)]
pub(crate) enum XAxis {
    Numeric {
        label: String,
        ticks: Ticks,
    },
    /// Category `i` is centred at `i + 0.5` on a 0..n scale.
    Categories {
        label: String,
        names: Vec<String>,
    },
}

/// A vertical axis of a panel; `color` tints its label (twin axes).
#[derive(Clone, Debug)]
pub(crate) struct YAxis {
    pub label: String,
    pub ticks: Ticks,
    pub color: Option<&'static str>,
}

/// One plot: its axes and an optional title above it.
#[derive(Clone, Debug)]
pub(crate) struct PanelSpec {
    pub title: Option<String>,
    pub x: XAxis,
    pub y: YAxis,
    pub y2: Option<YAxis>,
}

/// A laid-out panel: the plot rectangle and the maps into it.
#[derive(Clone, Debug)]
pub(crate) struct Panel {
    pub plot: Rect,
    pub x: Scale,
    pub y: Scale,
    pub y2: Option<Scale>,
    clip_id: String,
    rotate_x: bool,
    y_tick_w: f64,
    y2_tick_w: f64,
}

fn max_width(labels: impl Iterator<Item = impl AsRef<str>>, size: f64) -> f64 {
    labels.map(|l| text_width(l.as_ref(), size)).fold(0.0, f64::max)
}

fn y_margin(axis: &YAxis) -> (f64, f64) {
    let tick_w = max_width(axis.ticks.major.iter().map(|(_, s)| s), FONT_TICK);
    let label = if axis.label.is_empty() { 0.0 } else { FONT_LABEL + LABEL_GAP };
    (PAD + label + tick_w + TICK + TICK_GAP, tick_w)
}

impl PanelSpec {
    /// Lays the panel out in `area`; `index` makes its clip path's id unique.
    pub(crate) fn place(&self, area: Rect, index: usize) -> Panel {
        let (left, y_tick_w) = y_margin(&self.y);
        let (right, y2_tick_w) = match &self.y2 {
            Some(y2) => y_margin(y2),
            None => {
                let last = match &self.x {
                    XAxis::Numeric { ticks, .. } => {
                        ticks.major.last().map(|(_, s)| text_width(s, FONT_TICK) / 2.0).unwrap_or(0.0)
                    }
                    XAxis::Categories { .. } => 0.0,
                };
                (PAD.max(last + 6.0) + 6.0, 0.0)
            }
        };
        let top = PAD * 0.5 + if self.title.is_some() { FONT_LABEL * 1.5 } else { 0.0 };
        let mut left = left;
        let mut plot_w = (area.w - left - right).max(20.0);
        let (rotate_x, tick_h, x_label) = match &self.x {
            XAxis::Numeric { label, .. } => (false, FONT_TICK, label),
            XAxis::Categories { label, names } => {
                let widest = max_width(names.iter(), FONT_TICK);
                let slot = plot_w / names.len().max(1) as f64;
                if widest > 0.92 * slot {
                    // Labels slanted at 30 degrees end under their category;
                    // the first one must not run off the left edge.
                    let first = names.first().map_or(0.0, |n| text_width(n, FONT_TICK));
                    let need = first * 0.87 - slot / 2.0 + PAD;
                    if need > left {
                        left = need.min(area.w * 0.4).max(left);
                        plot_w = (area.w - left - right).max(20.0);
                    }
                    (true, widest * 0.5 + FONT_TICK * 0.87 + 4.0, label)
                } else {
                    (false, FONT_TICK, label)
                }
            }
        };
        let label_h = if x_label.is_empty() { 0.0 } else { LABEL_GAP + 2.0 + FONT_LABEL };
        let bottom = TICK + TICK_GAP + tick_h + label_h + PAD;
        let plot = Rect { x: area.x + left, y: area.y + top, w: plot_w, h: (area.h - top - bottom).max(20.0) };
        let x = match &self.x {
            XAxis::Numeric { ticks, .. } => ticks.scale(plot.x, plot.right()),
            XAxis::Categories { names, .. } => Scale::linear(0.0, names.len() as f64, plot.x, plot.right()),
        };
        Panel {
            plot,
            x,
            y: self.y.ticks.scale(plot.bottom(), plot.y),
            y2: self.y2.as_ref().map(|a| a.ticks.scale(plot.bottom(), plot.y)),
            clip_id: format!("plot-area-{index}"),
            rotate_x,
            y_tick_w,
            y2_tick_w,
        }
    }

    /// Grid lines at the major ticks of the x axis and of the left y axis.
    pub(crate) fn draw_under(&self, svg: &mut Svg, p: &Panel) {
        let style = format!(r#"stroke="{GRID}" stroke-width="1""#);
        if let XAxis::Numeric { ticks, .. } = &self.x {
            for (v, _) in &ticks.major {
                let x = p.x.map(*v);
                if inside(x, p.plot.x, p.plot.right()) {
                    svg.line(x, p.plot.y, x, p.plot.bottom(), &style);
                }
            }
        }
        for (v, _) in &self.y.ticks.major {
            let y = p.y.map(*v);
            if inside(y, p.plot.y, p.plot.bottom()) {
                svg.line(p.plot.x, y, p.plot.right(), y, &style);
            }
        }
    }

    /// The frame, ticks, tick labels, axis labels and panel title.
    pub(crate) fn draw_over(&self, svg: &mut Svg, p: &Panel) {
        let r = p.plot;
        let ink = format!(r#"stroke="{INK}" stroke-width="1""#);
        let label_fill = r##"fill="#000000""##;
        svg.rect(r.x, r.y, r.w, r.h, &format!(r#"fill="none" stroke="{INK}" stroke-width="1.2""#));
        if let Some(t) = &self.title {
            svg.text(r.x + r.w / 2.0, r.y - 8.0, FONT_LABEL, Anchor::Middle, t, label_fill);
        }

        // Left axis.
        let label_x = r.x - TICK - TICK_GAP;
        draw_y_ticks(svg, &self.y.ticks, &p.y, r, r.x, -1.0, &ink);
        for (v, s) in &self.y.ticks.major {
            let y = p.y.map(*v);
            if inside(y, r.y, r.bottom()) {
                svg.text(label_x, y + FONT_TICK * 0.35, FONT_TICK, Anchor::End, s, label_fill);
            }
        }
        if !self.y.label.is_empty() {
            let x0 = label_x - p.y_tick_w - LABEL_GAP - DESCENT * FONT_LABEL;
            svg.text_rotated(
                (x0, r.y + r.h / 2.0),
                -90.0,
                FONT_LABEL,
                Anchor::Middle,
                &self.y.label,
                &axis_fill(self.y.color),
            );
        }

        // Right axis.
        if let (Some(a), Some(scale)) = (&self.y2, &p.y2) {
            let label_x = r.right() + TICK + TICK_GAP;
            draw_y_ticks(svg, &a.ticks, scale, r, r.right(), 1.0, &ink);
            for (v, s) in &a.ticks.major {
                let y = scale.map(*v);
                if inside(y, r.y, r.bottom()) {
                    svg.text(label_x, y + FONT_TICK * 0.35, FONT_TICK, Anchor::Start, s, label_fill);
                }
            }
            if !a.label.is_empty() {
                let x0 = label_x + p.y2_tick_w + LABEL_GAP + ASCENT * FONT_LABEL;
                svg.text_rotated(
                    (x0, r.y + r.h / 2.0),
                    -90.0,
                    FONT_LABEL,
                    Anchor::Middle,
                    &a.label,
                    &axis_fill(a.color),
                );
            }
        }

        // Bottom axis.
        let tick_label_y = r.bottom() + TICK + TICK_GAP;
        let (label, tick_h) = match &self.x {
            XAxis::Numeric { label, ticks } => {
                for (v, s) in &ticks.major {
                    let x = p.x.map(*v);
                    if inside(x, r.x, r.right()) {
                        svg.line(x, r.bottom(), x, r.bottom() + TICK, &ink);
                        svg.text(x, tick_label_y + ASCENT * FONT_TICK, FONT_TICK, Anchor::Middle, s, label_fill);
                    }
                }
                for v in &ticks.minor {
                    let x = p.x.map(*v);
                    if inside(x, r.x, r.right()) {
                        svg.line(x, r.bottom(), x, r.bottom() + TICK * 0.6, &ink);
                    }
                }
                (label, FONT_TICK)
            }
            XAxis::Categories { label, names } => {
                let mut widest: f64 = 0.0;
                for (i, s) in names.iter().enumerate() {
                    let x = p.x.map(i as f64 + 0.5);
                    svg.line(x, r.bottom(), x, r.bottom() + TICK, &ink);
                    if p.rotate_x {
                        widest = widest.max(text_width(s, FONT_TICK));
                        svg.text_rotated(
                            (x + 4.0, tick_label_y + FONT_TICK * 0.7),
                            -30.0,
                            FONT_TICK,
                            Anchor::End,
                            s,
                            label_fill,
                        );
                    } else {
                        svg.text(x, tick_label_y + ASCENT * FONT_TICK, FONT_TICK, Anchor::Middle, s, label_fill);
                    }
                }
                let h = if p.rotate_x { widest * 0.5 + FONT_TICK * 0.87 + 4.0 } else { FONT_TICK };
                (label, h)
            }
        };
        if !label.is_empty() {
            let y = tick_label_y + tick_h + LABEL_GAP + 2.0 + ASCENT * FONT_LABEL;
            svg.text(r.x + r.w / 2.0, y, FONT_LABEL, Anchor::Middle, label, label_fill);
        }
    }
}

fn axis_fill(color: Option<&str>) -> String {
    format!(r#"fill="{}""#, color.unwrap_or("#000000"))
}

/// Major and minor ticks of a vertical axis at `x`, pointing `dir` (-1 left, +1 right).
fn draw_y_ticks(svg: &mut Svg, ticks: &Ticks, scale: &Scale, r: Rect, x: f64, dir: f64, style: &str) {
    for (v, _) in &ticks.major {
        let y = scale.map(*v);
        if inside(y, r.y, r.bottom()) {
            svg.line(x, y, x + dir * TICK, y, style);
        }
    }
    for v in &ticks.minor {
        let y = scale.map(*v);
        if inside(y, r.y, r.bottom()) {
            svg.line(x, y, x + dir * TICK * 0.6, y, style);
        }
    }
}

fn inside(v: f64, a: f64, b: f64) -> bool {
    v >= a - 0.5 && v <= b + 0.5
}

impl Panel {
    /// Everything drawn until `end_clip` is clipped to the plot rectangle.
    pub(crate) fn begin_clip(&self, svg: &mut Svg) {
        let r = self.plot;
        svg.raw(&format!(
            r#"<defs><clipPath id="{}"><rect x="{}" y="{}" width="{}" height="{}"/></clipPath></defs>"#,
            self.clip_id,
            num(r.x),
            num(r.y),
            num(r.w),
            num(r.h)
        ));
        svg.open_group(&format!(r#"clip-path="url(#{})""#, self.clip_id));
    }

    pub(crate) fn end_clip(&self, svg: &mut Svg) {
        svg.close_group();
    }

    /// Pixel x of the centre of category `i`.
    pub(crate) fn category_x(&self, i: usize) -> f64 {
        self.x.map(i as f64 + 0.5)
    }

    /// Pixel width of one category slot.
    pub(crate) fn category_w(&self) -> f64 {
        (self.x.map(1.0) - self.x.map(0.0)).abs()
    }
}
