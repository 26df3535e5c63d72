//! Summary statistics for the box chart, usable on their own.
//!
//! Every function skips NaN and infinite samples; a slice with no finite
//! sample gives `None` (or an error from [`Summary::from_samples`]).

use crate::error::{empty, no_finite, PlotError};

/// The finite samples of `samples`, sorted ascending.
pub(crate) fn sorted_finite(samples: &[f64]) -> Vec<f64> {
    let mut v: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    v
}

/// Percentile `p` (0..=100) of already sorted, finite, non-empty data, by
/// linear interpolation between closest ranks.
fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    let rank = p / 100.0 * (sorted.len() - 1) as f64;
    let lo = rank.floor() as usize;
    let hi = rank.ceil() as usize;
    let frac = rank - lo as f64;
    if lo == hi {
        sorted[lo]
    } else {
        sorted[lo] + frac * (sorted[hi] - sorted[lo])
    }
}

/// The `p`-th percentile (`p` in 0..=100) of the finite samples, with linear
/// interpolation between closest ranks (NumPy's default, Excel's
/// `PERCENTILE.INC`): rank `p/100 * (n-1)` in the sorted data.
///
/// `None` if there is no finite sample or `p` is outside 0..=100 or NaN.
///
/// ```
/// assert_eq!(rtac_plot::percentile(&[1.0, 2.0, 3.0, 4.0], 50.0), Some(2.5));
/// assert_eq!(rtac_plot::percentile(&[f64::NAN], 50.0), None);
/// ```
pub fn percentile(samples: &[f64], p: f64) -> Option<f64> {
    percentiles(samples, &[p]).map(|v| v[0])
}

/// Several percentiles at once (one sort); same rules as [`percentile`].
/// `None` if there is no finite sample or any `p` is outside 0..=100.
pub fn percentiles(samples: &[f64], ps: &[f64]) -> Option<Vec<f64>> {
    if ps.iter().any(|p| !(0.0..=100.0).contains(p)) {
        return None;
    }
    let sorted = sorted_finite(samples);
    if sorted.is_empty() {
        return None;
    }
    Some(ps.iter().map(|&p| percentile_sorted(&sorted, p)).collect())
}

/// The median (50th percentile) of the finite samples.
pub fn median(samples: &[f64]) -> Option<f64> {
    percentile(samples, 50.0)
}

/// The arithmetic mean of the finite samples; `None` if there is none.
pub fn mean(samples: &[f64]) -> Option<f64> {
    let (sum, n) = samples.iter().filter(|x| x.is_finite()).fold((0.0, 0usize), |(s, n), &x| (s + x, n + 1));
    (n > 0).then(|| sum / n as f64)
}

/// What a box in [`BoxChart`](crate::BoxChart) shows, computed from samples
/// or given directly (e.g. from a histogram).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Number of finite samples.
    pub count: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Smallest sample.
    pub min: f64,
    /// 5th percentile.
    pub p5: f64,
    /// 25th percentile (bottom of the box).
    pub p25: f64,
    /// 50th percentile.
    pub median: f64,
    /// 75th percentile (top of the box).
    pub p75: f64,
    /// 95th percentile.
    pub p95: f64,
    /// Largest sample.
    pub max: f64,
}

impl Summary {
    /// Summarises the finite samples (NaN and infinities are skipped).
    ///
    /// Errors: [`PlotError::EmptyData`] for an empty slice,
    /// [`PlotError::NoFiniteData`] if no sample is finite.
    pub fn from_samples(samples: &[f64]) -> Result<Summary, PlotError> {
        Summary::named(samples, "samples")
    }

    pub(crate) fn named(samples: &[f64], what: &str) -> Result<Summary, PlotError> {
        if samples.is_empty() {
            return Err(empty(what));
        }
        let sorted = sorted_finite(samples);
        if sorted.is_empty() {
            return Err(no_finite(format!("{what} ({} values)", samples.len())));
        }
        let p = |q| percentile_sorted(&sorted, q);
        Ok(Summary {
            count: sorted.len(),
            mean: sorted.iter().sum::<f64>() / sorted.len() as f64,
            min: sorted[0],
            p5: p(5.0),
            p25: p(25.0),
            median: p(50.0),
            p75: p(75.0),
            p95: p(95.0),
            max: sorted[sorted.len() - 1],
        })
    }

    /// Whether every field is finite (a hand-made summary may not be).
    pub(crate) fn is_finite(&self) -> bool {
        [self.mean, self.min, self.p5, self.p25, self.median, self.p75, self.p95, self.max]
            .iter()
            .all(|v| v.is_finite())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_interpolates_linearly() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&v, 0.0), Some(1.0));
        assert_eq!(percentile(&v, 100.0), Some(4.0));
        assert_eq!(percentile(&v, 50.0), Some(2.5));
        // rank 0.25 * 3 = 0.75 -> 1 + 0.75
        assert_eq!(percentile(&v, 25.0), Some(1.75));
        assert_eq!(percentile(&v, 75.0), Some(3.25));
        // 11 points 0..=10: the p-th percentile is p/10
        let w: Vec<f64> = (0..=10).rev().map(f64::from).collect();
        for p in [5.0, 33.0, 95.0] {
            assert!((percentile(&w, p).unwrap() - p / 10.0).abs() < 1e-12);
        }
    }

    #[test]
    fn percentile_of_one_sample_is_that_sample() {
        assert_eq!(percentile(&[7.5], 0.0), Some(7.5));
        assert_eq!(percentile(&[7.5], 63.0), Some(7.5));
    }

    #[test]
    fn percentile_skips_non_finite_and_rejects_bad_p() {
        let v = [f64::NAN, 3.0, f64::INFINITY, 1.0, f64::NEG_INFINITY, 2.0];
        assert_eq!(percentile(&v, 50.0), Some(2.0));
        assert_eq!(percentile(&[], 50.0), None);
        assert_eq!(percentile(&[f64::NAN, f64::NAN], 50.0), None);
        assert_eq!(percentile(&v, -1.0), None);
        assert_eq!(percentile(&v, 100.5), None);
        assert_eq!(percentile(&v, f64::NAN), None);
        assert_eq!(percentiles(&v, &[0.0, 100.0]), Some(vec![1.0, 3.0]));
    }

    #[test]
    fn mean_and_median() {
        assert_eq!(mean(&[1.0, 2.0, 6.0, f64::NAN]), Some(3.0));
        assert_eq!(mean(&[]), None);
        assert_eq!(mean(&[f64::INFINITY]), None);
        assert_eq!(median(&[5.0, 1.0, 3.0]), Some(3.0));
    }

    #[test]
    fn summary_of_samples() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        let s = Summary::from_samples(&v).unwrap();
        assert_eq!(s.count, 100);
        assert_eq!(s.mean, 50.5);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 100.0);
        assert!((s.median - 50.5).abs() < 1e-12);
        assert!((s.p25 - 25.75).abs() < 1e-12);
        assert!((s.p75 - 75.25).abs() < 1e-12);
        assert!((s.p5 - 5.95).abs() < 1e-12);
        assert!((s.p95 - 95.05).abs() < 1e-12);
    }

    #[test]
    fn summary_errors() {
        assert!(matches!(Summary::from_samples(&[]), Err(PlotError::EmptyData { .. })));
        assert!(matches!(Summary::from_samples(&[f64::NAN; 3]), Err(PlotError::NoFiniteData { .. })));
    }
}
