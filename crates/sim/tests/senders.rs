//! Scenario tests of each sender congestion control's characteristic
//! behaviour on one bottleneck: 50 Mbit/s, 20 ms each way, a 500-packet
//! drop-tail buffer (three BDPs), one bulk flow, no receiver controller.

use rtac_sim::scenario::parse_str;
use rtac_sim::{run, FlowResult, LinkResult};

fn bottleneck(cc: &str, seconds: u32) -> (FlowResult, LinkResult) {
    let sc = parse_str(
        &format!(
            r#"
            duration = "{seconds}s"
            measure_from = "5s"
            controllers = ["none"]
            [[link]]
            rate = "50mbit"
            delay = "20ms"
            queue = "droptail:packets=500"
            [[flow]]
            cc = "{cc}"
            "#
        ),
        "senders.toml",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let r = run(&sc, &sc.controllers[0], &Default::default());
    let (f, l) = (r.flows[0].clone(), r.links[0].clone());
    eprintln!(
        "{cc:>8}: {:6.2} Mbit/s util {:.3} queue mean {:6.1} ms p95 {:6.1} ms drops {:4} retx {:4} rto {} rtt p50 {:6.1} ms",
        f.throughput_mbps,
        l.utilization,
        l.queue_delay_mean_ms,
        l.queue_delay_p95_ms,
        l.drops,
        f.retransmits,
        f.timeouts,
        f.rtt_p50_ms
    );
    (f, l)
}

#[test]
fn vegas_keeps_a_few_packets_queued_and_loses_none() {
    let (f, l) = bottleneck("vegas", 30);
    // alpha..beta = 2..4 packets of 0.24 ms each at 50 Mbit/s.
    assert!(l.queue_delay_mean_ms < 5.0, "queue {:.1} ms", l.queue_delay_mean_ms);
    // Link drops count from measure_from; retransmissions from the start.
    assert_eq!((l.drops, f.retransmits, f.timeouts), (0, 0, 0));
    assert!(l.utilization > 0.95, "utilisation {:.3}", l.utilization);
}

#[test]
fn bbr_fills_the_link_with_a_queue_far_below_the_buffer() {
    let (f, l) = bottleneck("bbr", 30);
    assert!(l.utilization > 0.9, "utilisation {:.3}", l.utilization);
    // The full buffer would be 500 * 0.24 ms = 120 ms.
    assert!(l.queue_delay_mean_ms < 20.0, "queue {:.1} ms", l.queue_delay_mean_ms);
    // STARTUP's 2.89 BDP in flight fits the three-BDP buffer: no loss at all.
    assert_eq!((f.retransmits, f.timeouts), (0, 0));
    // The RTT stays near the 40 ms path: the pacing keeps the queue short.
    assert!(f.rtt_p50_ms < 45.0, "median RTT {:.1} ms", f.rtt_p50_ms);
}

#[test]
fn tcp_gt_fills_the_link_without_drops() {
    let (f, l) = bottleneck("tcp-gt", 30);
    assert!(l.utilization > 0.9, "utilisation {:.3}", l.utilization);
    assert_eq!((l.drops, f.retransmits, f.timeouts), (0, 0, 0));
    assert!(l.queue_delay_mean_ms < 5.0, "queue {:.1} ms", l.queue_delay_mean_ms);
}

#[test]
fn htcp_and_westwood_fill_the_link_and_the_buffer() {
    for cc in ["htcp", "westwood"] {
        let (f, l) = bottleneck(cc, 30);
        assert!(l.utilization > 0.95, "{cc}: utilisation {:.3}", l.utilization);
        // Loss-based: they fill the bloated buffer.
        assert!(l.queue_delay_mean_ms > 20.0, "{cc}: queue {:.1} ms", l.queue_delay_mean_ms);
        assert!(f.timeouts <= 1, "{cc}: {} timeouts", f.timeouts);
    }
}
