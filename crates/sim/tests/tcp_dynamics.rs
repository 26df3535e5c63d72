//! Scenario tests of the TCP model itself: loss recovery, sharing, finite
//! transfers.

use rtac_sim::scenario::parse_str;
use rtac_sim::{run, run_all, RunOptions};

fn scenario(body: &str) -> rtac_sim::Scenario {
    parse_str(body, "test.toml").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn shallow_buffer_losses_are_recovered_without_timeouts_and_the_link_stays_busy() {
    for cc in ["reno", "cubic"] {
        let sc = scenario(&format!(
            r#"
            duration = "30s"
            controllers = ["none"]
            [[link]]
            rate = "20mbit"
            delay = "20ms"
            queue = "droptail:packets=40"
            [[flow]]
            cc = "{cc}"
            "#
        ));
        let r = run(&sc, &sc.controllers[0], &RunOptions::default());
        let (f, l) = (&r.flows[0], &r.links[0]);
        eprintln!(
            "{cc}: {:.2} Mbit/s util {:.3} drops {} retx {} rto {}",
            f.throughput_mbps, l.utilization, l.drops, f.retransmits, f.timeouts
        );
        assert!(l.drops > 5, "{cc}: a 40-packet buffer (half the BDP) overflows");
        assert!(f.retransmits >= l.drops, "{cc}: every drop is retransmitted");
        assert!(f.timeouts <= 1, "{cc}: SACK recovery, not timeouts: {}", f.timeouts);
        assert!(l.utilization > 0.85, "{cc}: utilisation {}", l.utilization);
    }
}

#[test]
fn cubic_keeps_a_shallow_buffer_busier_than_reno() {
    let mk = |cc: &str| {
        scenario(&format!(
            r#"
            duration = "60s"
            controllers = ["none"]
            [[link]]
            rate = "100mbit"
            delay = "20ms"
            queue = "droptail:packets=50"
            [[flow]]
            cc = "{cc}"
            "#
        ))
    };
    let reno = mk("reno");
    let cubic = mk("cubic");
    let r = run(&reno, &reno.controllers[0], &RunOptions::default()).flows[0].throughput_mbps;
    let c = run(&cubic, &cubic.controllers[0], &RunOptions::default()).flows[0].throughput_mbps;
    eprintln!("reno {r:.1} cubic {c:.1}");
    // beta 0.7 and cubic growth recover faster than Reno's halving.
    assert!(c > r, "cubic {c} reno {r}");
}

#[test]
fn two_flows_share_a_bottleneck_fairly() {
    let sc = scenario(
        r#"
        duration = "60s"
        measure_from = "10s"
        controllers = ["autotuning"]
        [[link]]
        rate = "50mbit"
        delay = "20ms"
        queue = "droptail:packets=300"
        [[flow]]
        count = 2
        cc = "cubic"
        "#,
    );
    let r = &run_all(&sc, &RunOptions::default(), 1)[0];
    let (a, b) = (r.flows[0].throughput_mbps, r.flows[1].throughput_mbps);
    let jain = (a + b).powi(2) / (2.0 * (a * a + b * b));
    eprintln!("{a:.1} + {b:.1} Mbit/s, Jain {jain:.3}");
    assert!(a + b > 45.0, "the pair fills the link: {}", a + b);
    assert!(jain > 0.9, "Jain's index {jain}");
}

#[test]
fn a_finite_transfer_completes_and_delivers_exactly_its_bytes() {
    let sc = scenario(
        r#"
        duration = "10s"
        controllers = ["rtac"]
        [[link]]
        rate = "10mbit"
        delay = "10ms"
        queue = "droptail:packets=100"
        [[flow]]
        bytes = "1000000"
        start = "1s"
        "#,
    );
    let f = &run(&sc, &sc.controllers[0], &RunOptions::default()).flows[0];
    assert_eq!(f.bytes_delivered, 1_000_000);
    let t = f.completion.expect("completes").as_secs_f64();
    // 1 MB at 10 Mbit/s is 0.83 s of serialisation, plus slow start.
    assert!(t > 0.83 && t < 2.0, "completion {t}");
}
