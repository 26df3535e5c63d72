//! Paper-style charts for rtac results, written as SVG and PNG.
//!
//! Five chart kinds, each built from plain numbers (no simulator types):
//!
//! | chart | shows |
//! |---|---|
//! | [`BoxChart`] | per category, a box (25th–75th percentile, median, mean, optional whiskers) for each of two metrics, e.g. throughput and delay, on twin axes or in two panels |
//! | [`BarChart`] | grouped bars per category, optional error bars and a horizontal reference line |
//! | [`CdfChart`] | empirical CDFs of several sample sets, optional log x |
//! | [`TimeSeriesChart`] | (t, y) lines on a left and an optional right axis, optional shaded intervals |
//! | [`SweepChart`] | y against a swept parameter x, several series with markers and optional error bars |
//!
//! Every chart implements [`Chart`]; [`Chart::save`] writes `<path>.svg` and
//! `<path>.png`. The SVG is written by this crate (the same input gives the
//! same bytes); the PNG is that SVG rasterised by `resvg` with the DejaVu
//! Sans font compiled in, so no system library or font is used.
//!
//! Data rules: NaN and infinite values are skipped (a gap in a line), but a
//! series with no values, or with no finite value, is an error, as is a chart
//! with no series. Nothing panics on data.
//!
//! ```no_run
//! use rtac_plot::{Chart, Metric, BoxChart};
//! let tput = [51.0, 52.5, 53.1, 52.2];
//! let delay = [60.0, 71.0, 75.0, 68.0];
//! BoxChart::new("LTE, one CUBIC flow", Metric::new("Throughput", "Mbit/s"), Metric::new("Delay", "ms"))
//!     .category("RTAC", &tput, &delay)
//!     .save("out/fig3")?;
//! # Ok::<(), rtac_plot::PlotError>(())
//! ```

mod axis;
mod bar;
mod boxes;
mod cdf;
mod error;
mod frame;
mod render;
mod stats;
mod style;
mod svg;
mod sweep;
mod text;
mod timeseries;

use std::path::{Path, PathBuf};

pub use bar::BarChart;
pub use boxes::{BoxChart, BoxLayout, Metric, Whiskers};
pub use cdf::CdfChart;
pub use error::PlotError;
pub use stats::{mean, median, percentile, percentiles, Summary};
pub use style::{color, PALETTE};
pub use sweep::{SweepChart, SweepPoint};
pub use timeseries::{Axis, TimeSeriesChart};

use crate::axis::{Fit, Ticks};
use crate::error::invalid;

/// Width of a chart unless [`size`](BarChart::size) says otherwise.
pub const DEFAULT_WIDTH: u32 = 900;
/// Height of a chart unless [`size`](BarChart::size) says otherwise.
pub const DEFAULT_HEIGHT: u32 = 600;

/// A chart that can be rendered.
pub trait Chart {
    /// The chart as an SVG document. Same input, same bytes.
    fn to_svg(&self) -> Result<String, PlotError>;

    /// Width and height of the PNG in pixels.
    fn png_size(&self) -> (u32, u32);

    /// The chart as a PNG image of [`png_size`](Chart::png_size).
    fn to_png(&self) -> Result<Vec<u8>, PlotError> {
        let svg = self.to_svg()?;
        let (w, h) = self.png_size();
        render::rasterise(&svg, w, h)
    }

    /// Writes `<path>.svg` and `<path>.png` (a `.svg` or `.png` extension on
    /// `path` is replaced), creating the directory if needed.
    fn save(&self, path: impl AsRef<Path>) -> Result<Saved, PlotError>
    where
        Self: Sized,
    {
        save_chart(self, path.as_ref())
    }
}

/// [`Chart::save`] for a `dyn Chart`.
pub fn save_chart(chart: &dyn Chart, path: &Path) -> Result<Saved, PlotError> {
    let svg = chart.to_svg()?;
    let (w, h) = chart.png_size();
    let png = render::rasterise(&svg, w, h)?;
    let (svg_path, png_path) = render::output_paths(path);
    render::write(&svg_path, svg.as_bytes())?;
    render::write(&png_path, &png)?;
    Ok(Saved { svg: svg_path, png: png_path })
}

/// The files [`Chart::save`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Saved {
    /// The SVG file.
    pub svg: PathBuf,
    /// The PNG file.
    pub png: PathBuf,
}

/// Title and size, shared by every chart.
#[derive(Clone, Debug)]
pub(crate) struct Canvas {
    pub title: String,
    pub width: u32,
    pub height: u32,
    pub png_scale: f64,
}

impl Canvas {
    pub(crate) fn new(title: impl Into<String>) -> Canvas {
        Canvas { title: title.into(), width: DEFAULT_WIDTH, height: DEFAULT_HEIGHT, png_scale: 1.0 }
    }

    pub(crate) fn check(&self) -> Result<(), PlotError> {
        if !(200..=10_000).contains(&self.width) || !(150..=10_000).contains(&self.height) {
            return Err(invalid(format!(
                "size {}x{}: width must be 200..=10000 and height 150..=10000 pixels",
                self.width, self.height
            )));
        }
        if !(self.png_scale > 0.0 && self.png_scale <= 8.0) {
            return Err(invalid(format!("png_scale {}: must be in (0, 8]", self.png_scale)));
        }
        Ok(())
    }

    pub(crate) fn png_size(&self) -> (u32, u32) {
        let s = if self.png_scale > 0.0 && self.png_scale <= 8.0 { self.png_scale } else { 1.0 };
        let px = |v: u32| ((f64::from(v) * s).round() as u32).max(1);
        (px(self.width), px(self.height))
    }
}

/// The builder methods every chart has.
macro_rules! canvas_methods {
    () => {
        /// Size in pixels of the SVG and, at `png_scale` 1, of the PNG
        /// (default 900 x 600).
        pub fn size(mut self, width: u32, height: u32) -> Self {
            self.canvas.width = width;
            self.canvas.height = height;
            self
        }

        /// PNG pixels per SVG pixel (default 1; 2 for a sharper image).
        pub fn png_scale(mut self, scale: f64) -> Self {
            self.canvas.png_scale = scale;
            self
        }
    };
}
pub(crate) use canvas_methods;

/// `Throughput (Mbit/s)`, or just `Throughput` without a unit.
pub(crate) fn label_with_unit(name: &str, unit: &str) -> String {
    if unit.is_empty() {
        name.to_string()
    } else if name.is_empty() {
        format!("({unit})")
    } else {
        format!("{name} ({unit})")
    }
}

/// A fixed axis range must be finite, increasing, and positive on a log axis.
pub(crate) fn check_range(range: Option<(f64, f64)>, log: bool, what: &str) -> Result<(), PlotError> {
    if let Some((lo, hi)) = range {
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(invalid(format!("{what} range ({lo}, {hi}): needs finite lo < hi")));
        }
        if log && lo <= 0.0 {
            return Err(invalid(format!("{what} range ({lo}, {hi}): a log axis needs lo > 0")));
        }
    }
    Ok(())
}

/// Ticks for data spanning [lo, hi], or for the fixed `range`.
pub(crate) fn ticks_for(lo: f64, hi: f64, log: bool, range: Option<(f64, f64)>, fit: Fit) -> Ticks {
    match range {
        Some((a, b)) => Ticks::new(a, b, log, Fit::Exact),
        None => Ticks::new(lo, hi, log, fit),
    }
}

/// Running minimum and maximum of finite values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Extent {
    pub lo: f64,
    pub hi: f64,
}

impl Extent {
    pub(crate) fn new() -> Extent {
        Extent { lo: f64::INFINITY, hi: f64::NEG_INFINITY }
    }

    pub(crate) fn add(&mut self, v: f64) {
        if v.is_finite() {
            self.lo = self.lo.min(v);
            self.hi = self.hi.max(v);
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.lo > self.hi
    }

    /// The extent, widened to include zero if asked to.
    pub(crate) fn with_zero(self, zero: bool) -> Extent {
        if zero && !self.is_empty() {
            Extent { lo: self.lo.min(0.0), hi: self.hi.max(0.0) }
        } else {
            self
        }
    }
}

/// Quotes a user-given name for error messages.
pub(crate) fn quoted(kind: &str, name: &str) -> String {
    format!("{kind} \"{name}\"")
}

/// A data value for a label on the plot: about three significant digits.
pub(crate) fn fmt_value(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    if v.abs() >= 1e6 {
        return axis::format_tick(v, 0);
    }
    let d = (2.0 - v.abs().log10().floor()).clamp(0.0, 6.0) as usize;
    format!("{v:.d$}")
}

/// Ticks of a left and a right value axis (extents already widened to zero
/// if wanted): with shared grid lines when both are automatic and from zero.
pub(crate) fn twin_ticks(left: Extent, right: Extent, ranges: [Option<(f64, f64)>; 2]) -> (Ticks, Ticks) {
    if ranges == [None, None] {
        if let Some(pair) = axis::aligned_from_zero((left.lo, left.hi), (right.lo, right.hi)) {
            return pair;
        }
    }
    (
        ticks_for(left.lo, left.hi, false, ranges[0], Fit::Nice),
        ticks_for(right.lo, right.hi, false, ranges[1], Fit::Nice),
    )
}
