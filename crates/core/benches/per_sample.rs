//! CPU per sample of the receiver-side controllers: the wall time of one
//! segment's events (an RTT sample, then its bytes read by the
//! application) averaged over long runs, for the self-tuning `rtac` beside
//! its controls, the paper's fixed K and DRWA, which do the same per
//! sample without a tuner.
//!
//! Each controller drives a fluid path of its own: a sender that keeps the
//! advertised window in flight on a link of fixed rate, so the RTT carries
//! the queue that window implies. The self-tuning controller then probes,
//! switches modes and measures as it does on a real path. Paths:
//!
//! - `fixed`: 20 Mbit/s x 40 ms, no jitter;
//! - `jitter`: 100 Mbit/s x 20 ms, with a slow drift of 0-30 ms on the RTT
//!   (LTE's, `rtac_netmodel`'s `lte` channel) and a hole in the sequence
//!   every 5,000 segments (a loss: the tuner's loss rule runs).
//!
//! Run: `cargo bench -p rtac-core --bench per_sample [-- SEGMENTS]`
//! (default 2,000,000 segments per controller and path, five repetitions;
//! the figure is the median). The machine is shared: compare the rows of
//! one run, not runs of different days.

use rtac_core::controller::{Controller, Drwa, DrwaParams, NoLimit, Rtac, RtacParams};
use rtac_core::{Duration, Instant};
use std::hint::black_box;
use std::time::Instant as Wall;

const MSS: u32 = 1448;
const REPEATS: usize = 5;

struct Path {
    name: &'static str,
    /// Link rate, segments per second.
    rate: f64,
    base: Duration,
    /// Peak of the RTT's slow drift (0: none); knots every 200 ms.
    drift_ms: u64,
    /// A hole in the sequence every this many segments (0: none).
    hole_every: u64,
}

const PATHS: [Path; 2] = [
    Path { name: "fixed", rate: 20e6 / 8.0 / 1500.0, base: Duration::from_millis(40), drift_ms: 0, hole_every: 0 },
    Path {
        name: "jitter",
        rate: 100e6 / 8.0 / 1500.0,
        base: Duration::from_millis(20),
        drift_ms: 30,
        hole_every: 5000,
    },
];

/// The drift at `t`: piecewise linear between knots 200 ms apart whose
/// values are a fixed function of their index, uniform on [0, peak].
fn drift(t: Instant, peak_ms: u64) -> Duration {
    if peak_ms == 0 {
        return Duration::ZERO;
    }
    let knot = |i: u64| {
        let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        (h >> 11) as f64 / (1u64 << 53) as f64 * peak_ms as f64
    };
    let pos = t.as_secs_f64() / 0.2;
    let i = pos as u64;
    let f = pos - i as f64;
    Duration::from_secs_f64((knot(i) * (1.0 - f) + knot(i + 1) * f) / 1000.0)
}

/// Nanoseconds of wall time per segment for `segments` segments.
fn run(c: &mut dyn Controller, path: &Path, segments: u64) -> f64 {
    let gap = Duration::from_secs_f64(1.0 / path.rate);
    let bdp = path.rate * path.base.as_secs_f64();
    let mut now = Instant::ZERO + Duration::from_secs(1);
    let start = Wall::now();
    for i in 0..segments {
        now += gap;
        let inflight = c.rwnd().unwrap_or(u64::MAX).min(1 << 30) as f64 / MSS as f64;
        let queue = (inflight - bdp).max(0.0) / path.rate;
        let rtt = path.base + Duration::from_secs_f64(queue) + drift(now, path.drift_ms);
        if path.hole_every > 0 && i % path.hole_every == 0 {
            c.on_sequence_hole(now);
        }
        c.on_rtt_sample(now, rtt);
        c.on_data_consumed(now, MSS as u64);
        black_box(c.rwnd());
    }
    start.elapsed().as_nanos() as f64 / segments as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let segments: u64 =
        std::env::args().skip(1).find(|a| !a.starts_with('-')).and_then(|a| a.parse().ok()).unwrap_or(2_000_000);
    type Make = fn() -> Box<dyn Controller>;
    let controllers: [(&str, Make); 4] = [
        ("none (the path alone)", || Box::new(NoLimit)),
        ("rtac (self-tuning)", || Box::new(Rtac::new(RtacParams::default(), MSS))),
        ("rtac:k=3e-7 (paper)", || Box::new(Rtac::new(RtacParams::paper(3e-7), MSS))),
        ("drwa", || Box::new(Drwa::new(DrwaParams::default(), MSS))),
    ];
    println!("CPU per segment (RTT sample + read): median of {REPEATS} runs of {segments} segments each");
    println!("ctl ns: the row less `none`, the path model's own cost; x paper: ctl ns over the paper's K's");
    println!("{:<8} {:<22} {:>8} {:>10} {:>8} {:>8}", "path", "controller", "ns/seg", "range", "ctl ns", "x paper");
    for path in &PATHS {
        let rows: Vec<(&str, f64, f64, f64)> = controllers
            .iter()
            .map(|(name, make)| {
                let runs: Vec<f64> = (0..REPEATS).map(|_| run(make().as_mut(), path, segments)).collect();
                let lo = runs.iter().copied().fold(f64::MAX, f64::min);
                let hi = runs.iter().copied().fold(0.0, f64::max);
                (*name, median(runs), lo, hi)
            })
            .collect();
        let ns_of = |label: &str| rows.iter().find(|r| r.0.starts_with(label)).map_or(f64::NAN, |r| r.1);
        let none = ns_of("none");
        let paper = ns_of("rtac:k") - none;
        for (name, m, lo, hi) in rows {
            let ctl = m - none;
            println!(
                "{:<8} {:<22} {:>8.1} {:>4.0}-{:<5.0} {:>8.1} {:>8.2}",
                path.name,
                name,
                m,
                lo,
                hi,
                ctl,
                ctl / paper
            );
        }
    }
}
