//! Synthetic cellular downlink traces in Mahimahi's format, drawn from a
//! seed: a rate process that no controller was developed on, to check a
//! controller away from the recorded traces it was tried on.
//!
//! The rate's logarithm is an AR(1) process stepped every 100 ms
//! (correlation time 2 s, standard deviation 0.6) around the log of a
//! median drawn log-uniformly from 1-50 Mbit/s. Outages, in which nothing
//! is delivered, follow gaps of 15 s on average and last 0.5 s on average
//! (both exponential).

use rtac_core::rng::Rng;

const STEP_MS: u64 = 100;
const CORRELATION_S: f64 = 2.0;
const SIGMA: f64 = 0.6;
const MEDIAN_MIN_BPS: f64 = 1e6;
const MEDIAN_MAX_BPS: f64 = 50e6;
const OUTAGE_GAP_MS: f64 = 15_000.0;
const OUTAGE_MS: f64 = 500.0;
const PACKET_BITS: f64 = 12_000.0;

/// A drawn trace: its text and what it holds.
#[derive(Clone, Debug)]
pub struct SyntheticTrace {
    /// Mahimahi's format: one line per 1500-byte delivery opportunity.
    pub text: String,
    /// The mean rate over the trace, bits per second.
    pub mean_bps: f64,
    /// Milliseconds of outage.
    pub outage_ms: u64,
}

/// A trace of `ms` milliseconds drawn from `seed`.
pub fn synthetic_cellular(seed: u64, ms: u64) -> SyntheticTrace {
    let mut rng = Rng::new(seed);
    let mu = MEDIAN_MIN_BPS.ln() + rng.next_f64() * (MEDIAN_MAX_BPS / MEDIAN_MIN_BPS).ln();
    let phi = (-(STEP_MS as f64 / 1e3) / CORRELATION_S).exp();
    let mut x = mu + SIGMA * normal(&mut rng);
    let mut next_outage = rng.exp(OUTAGE_GAP_MS) as u64;
    let mut outage_end = 0u64;
    let (mut credit, mut packets, mut outage_ms) = (0.0, 0u64, 0u64);
    let mut text = String::new();
    for t in 0..ms {
        if t > 0 && t % STEP_MS == 0 {
            x = mu + phi * (x - mu) + SIGMA * (1.0 - phi * phi).sqrt() * normal(&mut rng);
        }
        if t >= next_outage {
            outage_end = t + rng.exp(OUTAGE_MS) as u64;
            next_outage = outage_end + rng.exp(OUTAGE_GAP_MS) as u64;
        }
        if t < outage_end {
            outage_ms += 1;
            continue;
        }
        credit += x.exp() * 1e-3 / PACKET_BITS;
        while credit >= 1.0 {
            text.push_str(&t.to_string());
            text.push('\n');
            credit -= 1.0;
            packets += 1;
        }
    }
    SyntheticTrace { text, mean_bps: packets as f64 * PACKET_BITS / (ms as f64 / 1e3), outage_ms }
}

/// A standard normal draw (Box-Muller).
fn normal(rng: &mut Rng) -> f64 {
    let (u, v) = (1.0 - rng.next_f64(), rng.next_f64());
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::parse_mahimahi;

    #[test]
    fn a_drawn_trace_parses_and_is_the_same_for_the_same_seed() {
        let a = synthetic_cellular(2, 60_000);
        let t = parse_mahimahi(&a.text).expect("a valid trace");
        assert!((t.average_bps() - a.mean_bps).abs() < 0.05 * a.mean_bps, "{} vs {}", t.average_bps(), a.mean_bps);
        assert_eq!(a.text, synthetic_cellular(2, 60_000).text);
        assert_ne!(a.text, synthetic_cellular(3, 60_000).text);
    }

    #[test]
    fn medians_span_the_drawn_range() {
        let means: Vec<f64> = (1..=40).map(|s| synthetic_cellular(s, 20_000).mean_bps).collect();
        let (lo, hi) = means.iter().fold((f64::MAX, 0.0f64), |(l, h), &m| (l.min(m), h.max(m)));
        assert!(lo < 3e6 && hi > 25e6, "{lo} - {hi}");
    }
}
