//! A small log-linear histogram of non-negative integers (nanoseconds here):
//! 32 buckets per power of two, so a quantile is exact below 64 and within
//! 3 % above. Fixed size, no allocation per sample.

#[derive(Clone, Debug)]
pub struct Hist {
    counts: Vec<u64>,
    n: u64,
    sum: u128,
    max: u64,
}

const LINEAR: u64 = 64;
const SUB: u64 = 32;
const BUCKETS: usize = (LINEAR + (64 - 6) * SUB) as usize;

fn index(v: u64) -> usize {
    if v < LINEAR {
        return v as usize;
    }
    let p = 63 - v.leading_zeros() as u64; // 6..=63
    let offset = (v >> (p - 5)) - SUB; // 0..32
    (LINEAR + (p - 6) * SUB + offset) as usize
}

/// The smallest value of bucket `i`, and the largest.
fn bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < LINEAR {
        return (i, i);
    }
    let p = (i - LINEAR) / SUB + 6;
    let offset = (i - LINEAR) % SUB;
    let lo = (SUB + offset) << (p - 5);
    (lo, lo.saturating_add((1u64 << (p - 5)) - 1))
}

impl Default for Hist {
    fn default() -> Self {
        Hist { counts: vec![0; BUCKETS], n: 0, sum: 0, max: 0 }
    }
}

impl Hist {
    pub fn record(&mut self, v: u64) {
        self.counts[index(v)] += 1;
        self.n += 1;
        self.sum += v as u128;
        self.max = self.max.max(v);
    }
    pub fn count(&self) -> u64 {
        self.n
    }
    pub fn max(&self) -> u64 {
        self.max
    }
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }
    /// The `q` quantile (0..=1): the middle of the bucket holding it, never
    /// above the largest sample. 0 when empty.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.n as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = bounds(i);
                return (lo + (hi - lo) / 2).min(self.max);
            }
        }
        self.max
    }
    pub fn merge(&mut self, other: &Hist) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.n += other.n;
        self.sum += other.sum;
        self.max = self.max.max(other.max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_every_value_in_order() {
        let mut prev = 0;
        for v in (0..5000u64).chain([1 << 20, (1 << 40) + 12345, u64::MAX]) {
            let i = index(v);
            assert!(i >= prev || v < 5000, "{v}");
            let (lo, hi) = bounds(i);
            assert!(lo <= v && v <= hi, "{v}: bucket {i} is {lo}..={hi}");
            prev = i;
        }
    }

    #[test]
    fn quantiles_are_within_three_percent() {
        let mut h = Hist::default();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        for q in [0.5, 0.95, 0.99] {
            let want = q * 100_000_000.0;
            let got = h.quantile(q) as f64;
            assert!((got - want).abs() / want < 0.03, "q{q}: {got} vs {want}");
        }
        assert_eq!(h.max(), 100_000_000);
        assert!((h.mean() - 50_000_500.0).abs() < 1.0);
    }
}
