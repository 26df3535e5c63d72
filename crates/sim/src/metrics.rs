//! Constant-memory statistics: a log-linear histogram (HdrHistogram's
//! layout: 64 linear sub-buckets per power of two, under 1.6 % error).

#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: Vec<u32>,
    n: u64,
    sum: f64,
}

const SUB: u32 = 64;

fn index(v: u64) -> usize {
    if v < 2 * SUB as u64 {
        return v as usize;
    }
    let shift = 64 - v.leading_zeros() - 7; // v >> shift is in [64, 128)
    (shift * SUB) as usize + (v >> shift) as usize
}

fn value(i: usize) -> f64 {
    let i = i as u64;
    if i < 2 * SUB as u64 {
        return i as f64;
    }
    let shift = i / SUB as u64 - 1;
    let m = i - shift * SUB as u64;
    // The middle of the bucket [m << shift, (m+1) << shift).
    ((m << shift) as f64) + ((1u64 << shift) as f64 - 1.0) / 2.0
}

impl Histogram {
    pub fn record(&mut self, v: u64) {
        let i = index(v);
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
        self.n += 1;
        self.sum += v as f64;
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    /// Exact mean of the recorded values (0 when empty).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum / self.n as f64
        }
    }

    /// The value at quantile `q` in [0, 1] (0 when empty).
    pub fn quantile(&self, q: f64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.n as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c as u64;
            if seen >= rank {
                return value(i);
            }
        }
        value(self.counts.len() - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_are_exact() {
        let mut h = Histogram::default();
        for v in 0..100 {
            h.record(v);
        }
        assert_eq!(h.quantile(0.5), 49.0);
        assert_eq!(h.quantile(1.0), 99.0);
        assert_eq!(h.mean(), 49.5);
    }

    #[test]
    fn large_values_are_within_two_percent() {
        let mut h = Histogram::default();
        for v in 1..=100_000u64 {
            h.record(v * 37);
        }
        for q in [0.1, 0.5, 0.95, 0.99] {
            let exact = (q * 100_000.0) * 37.0;
            let got = h.quantile(q);
            assert!((got - exact).abs() / exact < 0.02, "q={q}: {got} vs {exact}");
        }
    }

    #[test]
    fn buckets_are_contiguous_and_ordered() {
        let mut last = 0;
        for v in [0u64, 1, 127, 128, 129, 255, 256, 1 << 20, (1 << 20) + 1, u64::MAX / 2] {
            let i = index(v);
            assert!(i >= last, "{v}");
            last = i;
            assert!(value(i) <= v as f64 * 1.02 + 1.0 && value(i) >= v as f64 * 0.98 - 1.0, "{v} -> {}", value(i));
        }
    }
}
