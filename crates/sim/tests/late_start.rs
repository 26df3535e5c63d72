//! A flow's controller sees the simulation's clock, and a live socket's
//! sees the time since boot: neither may matter. A self-tuning RTAC flow
//! that starts 30 s into an idle run must go exactly as one at time zero.
//! Before the probe timer started at the flow's first event, the late flow
//! took its first period for the end of a long quiet spell and drained at
//! once, from an empty rate estimate: 62.3 against 64.1 Mbit/s here, and
//! on real Linux (a clock hours past zero) a first second at 4 packets.

use rtac_sim::run;
use rtac_sim::scenario::parse_str;

fn first_3s(start_s: u64) -> f64 {
    let sc = parse_str(
        &format!(
            r#"
            duration = "{}s"
            measure_from = "{start_s}s"
            controllers = ["rtac"]
            [[link]]
            rate = "100mbit"
            delay = "40ms"
            queue = "droptail:packets=3500"
            [[flow]]
            cc = "cubic"
            start = "{start_s}s"
            "#,
            start_s + 3
        ),
        "late-start.toml",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &sc.controllers[0], &Default::default()).flows[0].throughput_mbps
}

#[test]
fn a_self_tuning_flow_that_starts_late_goes_as_one_that_starts_at_zero() {
    let (early, late) = (first_3s(0), first_3s(30));
    assert!((late - early).abs() <= 0.005 * early, "first 3 s: {late:.2} Mbit/s from 30 s, {early:.2} from 0 s");
}
