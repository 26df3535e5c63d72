//! DRW on links that give no bandwidth hints (a shared queue, a router):
//! its measured fallback must find the link's rate, not shrink to nothing.

use rtac_sim::scenario::parse_str;
use rtac_sim::{run, ControllerChoice, FlowResult, Scenario};

fn lte(channel: &str) -> Scenario {
    // The RTAC paper's LTE case as one shared queue: no per-flow station,
    // so no hints. 55 Mbit/s; 50 ms of propagation without a channel, 33
    // ms plus the channel's 17 ms on average with one.
    let delay = if channel.is_empty() { "25ms" } else { "16500us" };
    parse_str(
        &format!(
            r#"
            duration = "30s"
            measure_from = "5s"
            [[link]]
            rate = "55mbit"
            delay = "{delay}"
            {channel}
            queue = "droptail:packets=3000"
            [[flow]]
            "#
        ),
        "drw.toml",
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn flow(sc: &Scenario, controller: &str) -> FlowResult {
    let (name, params) = controller.split_once(':').unwrap_or((controller, ""));
    let mut c = ControllerChoice::new(name.parse().unwrap());
    c.params = rtac_core::controller::Params::parse_list(params).unwrap();
    let f = run(sc, &c, &Default::default()).flows[0].clone();
    eprintln!("{controller}: {:.1} Mbit/s, mean RTT {:.1} ms", f.throughput_mbps, f.rtt_mean_ms);
    f
}

#[test]
fn drw_without_hints_fills_a_steady_link_with_at_most_delta_of_queue() {
    let sc = lte("");
    let drw = flow(&sc, "drw");
    // Was 0.5 Mbit/s: delivery rate x RTT_min could only shrink.
    assert!(drw.throughput_mbps > 0.9 * 55.0 * 1448.0 / 1500.0, "{:.1}", drw.throughput_mbps);
    // The queue stays within the low-latency region: RTT <= RTT_min + delta.
    assert!(drw.rtt_mean_ms < 50.0 + 10.0 + 2.0, "{:.1}", drw.rtt_mean_ms);
    // Control: Auto-tuning on the same link fills the buffer.
    assert!(flow(&sc, "autotuning").rtt_mean_ms > 200.0);
}

#[test]
fn on_a_jittery_link_drws_delta_must_cover_the_channels_variation() {
    let sc = lte("channel = \"lte\"");
    // delta = 10 ms is below the channel's 17 ms mean: the RTT test sees a
    // queue that is not there and the window stays low.
    let narrow = flow(&sc, "drw");
    // delta = 30 ms covers it.
    let wide = flow(&sc, "drw:delta=30ms");
    assert!(wide.throughput_mbps > 0.75 * 55.0 * 1448.0 / 1500.0, "{:.1}", wide.throughput_mbps);
    assert!(wide.throughput_mbps > 2.0 * narrow.throughput_mbps);
    assert!(wide.rtt_mean_ms < 100.0, "{:.1}", wide.rtt_mean_ms);
    // Even the narrow region does not collapse to the two-segment floor.
    assert!(narrow.throughput_mbps > 5.0, "{:.1}", narrow.throughput_mbps);
}
