//! A self-tuning RTAC flow that finds a loss-based sender's queue in a
//! shared DropTail buffer: the buffer's overflows reach the receiver as
//! holes in the sequence, and the first hole seen in a queue twice RTAC's
//! target says the queue is another sender's. The drain probes alone say
//! so only after five cycles, while the competitor's window grows.

use rtac_sim::run;
use rtac_sim::scenario::parse_str;

/// The RTAC flow's throughput between 10 and 30 s, and its competitor's.
fn rtac_vs_autotuning() -> (f64, f64) {
    let sc = parse_str(
        r#"
            duration = "30s"
            measure_from = "10s"
            controllers = ["rtac"]
            [[link]]
            rate = "35mbit"
            delay = "7500us"
            queue = "droptail:packets=400"
            [[flow]]
            cc = "cubic"
            controller = "autotuning"
            [[flow]]
            cc = "cubic"
            start = "500ms"
            "#,
        "competitor.toml",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let r = run(&sc, &sc.controllers[0], &Default::default());
    (r.flows[1].throughput_mbps, r.flows[0].throughput_mbps)
}

#[test]
fn a_loss_based_competitor_is_recognised_by_the_buffers_overflows() {
    let (rtac, other) = rtac_vs_autotuning();
    // Without the holes RTAC is held at its own small window until about
    // 10 s, and the competitor's CUBIC window gives little back after
    // that: 5.1 Mbit/s against 28.6 (0.51 of it with them).
    assert!(rtac >= 0.4 * other, "rtac {rtac:.2} Mbit/s against {other:.2}");
}
