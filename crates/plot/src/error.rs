//! The one error type of the crate.

use std::fmt;
use std::path::PathBuf;

/// What can go wrong when a chart is built or written. Data problems never
/// panic: they come back as one of these.
#[derive(Debug)]
#[non_exhaustive]
pub enum PlotError {
    /// Reading or writing a file failed.
    Io {
        /// The file (or directory) concerned.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// There is nothing to draw: no series, no categories, or a series with no values.
    EmptyData {
        /// Which part of the chart is empty, e.g. `series "rtac"`.
        what: String,
    },
    /// Values were given but none is usable: all are NaN or infinite (or,
    /// on a log axis, not positive).
    NoFiniteData {
        /// Which part of the chart, e.g. `series "rtac" (120 values)`.
        what: String,
    },
    /// The input is inconsistent, e.g. a bar series whose length differs
    /// from the number of categories, or a canvas of zero pixels.
    InvalidInput {
        /// What is wrong.
        what: String,
    },
    /// The SVG could not be rasterised (a bug in this crate if it happens).
    Render {
        /// What the renderer said.
        message: String,
    },
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlotError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            PlotError::EmptyData { what } => write!(f, "nothing to plot: {what} is empty"),
            PlotError::NoFiniteData { what } => write!(f, "nothing to plot: {what} has no finite values"),
            PlotError::InvalidInput { what } => write!(f, "invalid chart input: {what}"),
            PlotError::Render { message } => write!(f, "cannot render PNG: {message}"),
        }
    }
}

impl std::error::Error for PlotError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PlotError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

pub(crate) fn empty(what: impl Into<String>) -> PlotError {
    PlotError::EmptyData { what: what.into() }
}

pub(crate) fn no_finite(what: impl Into<String>) -> PlotError {
    PlotError::NoFiniteData { what: what.into() }
}

pub(crate) fn invalid(what: impl Into<String>) -> PlotError {
    PlotError::InvalidInput { what: what.into() }
}
