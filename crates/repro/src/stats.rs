//! Repetition statistics: the mean of a measured value over seeds and its
//! 95 % confidence interval (Student t), and a claim's verdict on those
//! intervals.

/// Two-sided 95 % quantile of Student's t for 1..=30 degrees of freedom.
const T95: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
    2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/// t_{0.975, df}; beyond 30 degrees of freedom the normal 1.96.
pub fn t95(df: usize) -> f64 {
    match df {
        0 => f64::NAN,
        d if d <= T95.len() => T95[d - 1],
        _ => 1.96,
    }
}

/// Mean and 95 % confidence interval of `xs` (Student t, sample standard
/// deviation). One sample has no interval: `None`. A non-finite sample
/// makes the interval non-finite, so no verdict rests on it.
pub fn mean_ci(xs: &[f64]) -> (f64, Option<[f64; 2]>) {
    let n = xs.len();
    if n == 0 {
        return (f64::NAN, None);
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return (mean, None);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let half = t95(n - 1) * (var / n as f64).sqrt();
    (mean, Some([mean - half, mean + half]))
}

/// A claim's verdict on the intervals of its measured values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Holds,
    DoesNotHold,
    /// Part of an interval lies on each side of a threshold.
    Inconclusive,
}

impl Verdict {
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DoesNotHold => "does not hold",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// One condition of a claim: the measured value `key` lies in [lo, hi].
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub key: String,
    pub lo: f64,
    pub hi: f64,
}

impl Check {
    pub fn at_least(key: &str, lo: f64) -> Check {
        Check { key: key.to_string(), lo, hi: f64::INFINITY }
    }
    pub fn at_most(key: &str, hi: f64) -> Check {
        Check { key: key.to_string(), lo: f64::NEG_INFINITY, hi }
    }
    /// Two-sided: the paper's number with a stated tolerance.
    pub fn within(key: &str, lo: f64, hi: f64) -> Check {
        Check { key: key.to_string(), lo, hi }
    }

    /// The verdict for a value known to lie in [a, b]: holds if the whole
    /// interval satisfies the condition, does not hold if none of it does.
    pub fn on_interval(&self, a: f64, b: f64) -> Verdict {
        if a.is_nan() || b.is_nan() {
            return Verdict::Inconclusive;
        }
        if a >= self.lo && b <= self.hi {
            Verdict::Holds
        } else if b < self.lo || a > self.hi {
            Verdict::DoesNotHold
        } else {
            Verdict::Inconclusive
        }
    }

    pub fn text(&self) -> String {
        // Thresholds derived from the paper's numbers, to five significant digits.
        let n = |x: f64| format!("{}", format!("{x:.4e}").parse::<f64>().unwrap_or(x));
        match (self.lo.is_finite(), self.hi.is_finite()) {
            (true, true) => format!("{} in [{}, {}]", self.key, n(self.lo), n(self.hi)),
            (true, false) => format!("{} >= {}", self.key, n(self.lo)),
            (false, true) => format!("{} <= {}", self.key, n(self.hi)),
            (false, false) => format!("{} (any)", self.key),
        }
    }
}

/// All checks together: any that fails fails the claim; it holds only if
/// every check holds.
pub fn combine(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
    let mut out = Verdict::Holds;
    for v in verdicts {
        match v {
            Verdict::DoesNotHold => return Verdict::DoesNotHold,
            Verdict::Inconclusive => out = Verdict::Inconclusive,
            Verdict::Holds => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_of_five_samples_uses_students_t() {
        let (m, ci) = mean_ci(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(m, 3.0);
        let [lo, hi] = ci.unwrap();
        // s = sqrt(2.5), t(4) = 2.776: half-width 2.776 * sqrt(2.5 / 5) = 1.963
        assert!((hi - 3.0 - 1.963).abs() < 1e-3 && (3.0 - lo - 1.963).abs() < 1e-3, "{lo} {hi}");
        assert_eq!(mean_ci(&[7.0]), (7.0, None));
        let (_, same) = mean_ci(&[2.0, 2.0, 2.0]);
        assert_eq!(same, Some([2.0, 2.0]));
    }

    #[test]
    fn a_verdict_rests_on_the_whole_interval() {
        let c = Check::at_least("ratio", 0.9);
        assert_eq!(c.on_interval(0.92, 0.99), Verdict::Holds);
        assert_eq!(c.on_interval(0.5, 0.8), Verdict::DoesNotHold);
        assert_eq!(c.on_interval(0.85, 0.95), Verdict::Inconclusive);
        let w = Check::within("ratio", 0.15, 0.37);
        assert_eq!(w.on_interval(0.001, 0.003), Verdict::DoesNotHold, "far below a two-sided range fails");
        assert_eq!(w.on_interval(0.2, 0.3), Verdict::Holds);
        assert_eq!(w.on_interval(f64::NAN, f64::NAN), Verdict::Inconclusive);
        assert_eq!(combine([Verdict::Holds, Verdict::Inconclusive]), Verdict::Inconclusive);
        assert_eq!(combine([Verdict::Inconclusive, Verdict::DoesNotHold]), Verdict::DoesNotHold);
        assert_eq!(Check::within("cut", 0.68 - 0.15, 0.68 + 0.15).text(), "cut in [0.53, 0.83]");
    }
}
