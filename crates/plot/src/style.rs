//! Colours, markers, font sizes: the fixed look of every chart.

/// The colour-blind-friendly palette of Okabe and Ito (2008), in the order
/// series get them: blue, vermillion, bluish green, orange, reddish purple,
/// sky blue, black, yellow. Series beyond eight reuse it from the start.
pub const PALETTE: [&str; 8] = ["#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#000000", "#F0E442"];

/// The palette colour of series `i`.
pub fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Fill colours of shaded intervals, in order: grey, then light orange, light blue.
pub(crate) const SHADES: [&str; 3] = ["#7F7F7F", "#E69F00", "#56B4E9"];

pub(crate) const INK: &str = "#222222";
pub(crate) const GRID: &str = "#E3E3E3";
pub(crate) const FONT_FAMILY: &str = "DejaVu Sans, Verdana, Arial, sans-serif";

pub(crate) const FONT_TITLE: f64 = 20.0;
pub(crate) const FONT_LABEL: f64 = 16.0;
pub(crate) const FONT_TICK: f64 = 13.0;
pub(crate) const FONT_LEGEND: f64 = 14.0;
pub(crate) const FONT_VALUE: f64 = 12.0;

/// Marker shapes, given to series of sweep charts in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marker {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
    Cross,
}

const MARKERS: [Marker; 6] =
    [Marker::Circle, Marker::Square, Marker::TriangleUp, Marker::Diamond, Marker::TriangleDown, Marker::Cross];

pub(crate) fn marker(i: usize) -> Marker {
    MARKERS[i % MARKERS.len()]
}
