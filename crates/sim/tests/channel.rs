//! Scenario tests of the wireless channel model (`channel = "lte"` on a
//! link) and of seeded flow start offsets (`start_jitter`).

use rtac_sim::scenario::parse_str;
use rtac_sim::{run, RunResult, Scenario};

fn scenario(text: &str) -> Scenario {
    parse_str(text, "channel.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn go(sc: &Scenario, seed: u64) -> RunResult {
    let mut sc = sc.clone();
    sc.seed = seed;
    let mut r = run(&sc, &sc.controllers[0], &Default::default());
    r.wall = Default::default();
    r
}

/// One flow with a window far below the BDP, so nothing queues: the RTT it
/// sees is the channel's (RTAC Fig. 2's set-up: 50 KB on LTE).
const UNQUEUED: &str = r#"
    duration = "60s"
    controllers = [{ controller = "static", params = { rmem_max = "50KB" } }]
    [[link]]
    rate = "55mbit"
    delay = "16500us"
    channel = "lte"
    queue = "droptail:packets=3000"
    [[flow]]
"#;

#[test]
fn an_unqueued_lte_flow_sees_the_papers_rtt_variation() {
    let r = go(&scenario(UNQUEUED), 1);
    let f = &r.flows[0];
    eprintln!("lte, 50 KB: p5 {:.1} mean {:.1} p95 {:.1} ms", f.rtt_p5_ms, f.rtt_mean_ms, f.rtt_p95_ms);
    // No queue: the variation is the channel's, not the buffer's.
    assert!(r.links[0].queue_delay_mean_ms < 2.0, "queue {:.1} ms", r.links[0].queue_delay_mean_ms);
    // Minimum 33 ms of propagation; RTT_m about 1.5 times it, peaks about twice.
    assert!((45.0..56.0).contains(&f.rtt_mean_ms), "mean {:.1}", f.rtt_mean_ms);
    assert!((60.0..75.0).contains(&f.rtt_p95_ms), "p95 {:.1}", f.rtt_p95_ms);
    // Control: without the channel the mean stays near the 33 ms minimum
    // (the 50 KB burst's serialisation and delayed ACKs add a little).
    let plain = &go(&scenario(&UNQUEUED.replace("channel = \"lte\"", "")), 1).flows[0];
    eprintln!("plain, 50 KB: p5 {:.1} mean {:.1} p95 {:.1} ms", plain.rtt_p5_ms, plain.rtt_mean_ms, plain.rtt_p95_ms);
    assert!(plain.rtt_mean_ms < 40.0, "{:.1}", plain.rtt_mean_ms);
    assert!(f.rtt_mean_ms > plain.rtt_mean_ms + 12.0);
}

#[test]
fn the_seed_changes_the_channel_and_the_same_seed_replays_it() {
    let sc = scenario(UNQUEUED);
    let (a, b, a2) = (go(&sc, 1), go(&sc, 2), go(&sc, 1));
    assert_eq!(a, a2, "same seed, same run");
    assert_ne!(a.flows[0].rtt_mean_ms, b.flows[0].rtt_mean_ms);
    // Without a channel or any other random element the seed changes nothing.
    let plain = scenario(&UNQUEUED.replace("channel = \"lte\"", ""));
    assert_eq!(go(&plain, 1).flows, go(&plain, 2).flows);
}

#[test]
fn jitter_never_reorders_a_flow_even_where_stations_overtake_each_other() {
    // Three UEs of a base station, each with its own harsh channel (half
    // the slots retransmitted, 20 ms each): the stations' packets overtake
    // each other on the link, but each flow's stay in order. Reordering
    // would make the SACK receiver report holes and the senders retransmit;
    // the buffer is large enough that nothing is dropped.
    let sc = scenario(
        r#"
        duration = "20s"
        controllers = ["none"]
        [[link]]
        rate = "30mbit"
        delay = "10ms"
        channel = "lte:bler=0.5,retx=20ms"
        per_flow = "rr"
        queue = "droptail:packets=5000"
        [[flow]]
        count = 3
        "#,
    );
    let r = go(&sc, 1);
    for f in &r.flows {
        eprintln!(
            "flow {}: {:.1} Mbit/s, {} retransmits, p95 RTT {:.0} ms",
            f.id, f.throughput_mbps, f.retransmits, f.rtt_p95_ms
        );
        assert_eq!((f.retransmits, f.timeouts), (0, 0), "flow {}", f.id);
        assert!(f.throughput_mbps > 8.0, "flow {}: {:.1}", f.id, f.throughput_mbps);
    }
    assert_eq!(r.links[0].drops, 0);
}

#[test]
fn start_jitter_spreads_flow_starts_by_seed() {
    // Four UEs of a round-robin cell: while all are active each gets a
    // quarter, so a flow that starts later delivers less.
    let text = r#"
        duration = "10s"
        start_jitter = "4s"
        controllers = ["none"]
        [[link]]
        rate = "20mbit"
        delay = "10ms"
        per_flow = "rr"
        [[flow]]
        count = 4
    "#;
    let bytes = |sc: &Scenario, seed| go(sc, seed).flows.iter().map(|f| f.bytes_delivered).collect::<Vec<_>>();
    let jittered = scenario(text);
    let (a, b) = (bytes(&jittered, 1), bytes(&jittered, 2));
    eprintln!("seed 1: {a:?}\nseed 2: {b:?}");
    assert_eq!(a, bytes(&jittered, 1));
    assert_ne!(a, b);
    let spread = |v: &[u64]| *v.iter().max().unwrap() as f64 / *v.iter().min().unwrap() as f64;
    assert!(spread(&a) > 1.2, "{a:?}");
    // Control: without start_jitter identical flows deliver the same.
    let together = scenario(&text.replace("start_jitter = \"4s\"", ""));
    assert!(spread(&bytes(&together, 1)) < 1.02);
}

#[test]
fn bad_channel_and_start_jitter_fields_are_named() {
    let base = "duration = \"10s\"\n[[link]]\nrate = \"10mbit\"\n";
    let err = |extra_top: &str, extra_link: &str| {
        parse_str(&format!("{extra_top}\n{base}{extra_link}\n[[flow]]\n"), "x.toml").unwrap_err().to_string()
    };
    let e = err("", "channel = \"5g\"");
    assert!(e.contains("link[0].channel") && e.contains("lte, wifi"), "{e}");
    let e = err("", "channel = \"lte:bler=2\"");
    assert!(e.contains("link[0].channel") && e.contains("bler"), "{e}");
    let e = err("", "channel = 3");
    assert!(e.contains("link[0].channel") && e.contains("expected a string"), "{e}");
    let e = err("start_jitter = \"10s\"", "");
    assert!(e.contains("start_jitter") && e.contains("flow[0]"), "{e}");
    let e = parse_str(&format!("start_jitter = \"2s\"\n{base}\n[[flow]]\nstart = \"1s\"\nstop = \"3s\"\n"), "x.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("start_jitter") && e.contains("flow[0]") && e.contains("stop"), "{e}");
    let e = err("start_jitter = 5", "");
    assert!(e.contains("start_jitter") && e.contains("duration"), "{e}");
}

#[test]
fn rate_variation_makes_a_saturated_links_goodput_vary_around_its_rate() {
    let text = r#"
        duration = "40s"
        measure_from = "5s"
        # 300 KB in flight: the link never idles, even at 1.5 times its
        # rate, and the 2000-packet buffer never overflows.
        controllers = [{ controller = "static", params = { rmem_max = "400KB" } }]
        [[link]]
        rate = "20mbit"
        delay = "10ms"
        channel = "lte:rate_var=0.5"
        queue = "droptail:packets=2000"
        [[flow]]
    "#;
    let cv = |sc: &Scenario| {
        let r = go(sc, 1);
        let x = &r.flows[0].throughput_per_s;
        let mean = x.iter().sum::<f64>() / x.len() as f64;
        let sd = (x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / x.len() as f64).sqrt();
        eprintln!("goodput per second: mean {mean:.2} Mbit/s, sd {sd:.2}");
        (mean, sd / mean)
    };
    let (mean, varied) = cv(&scenario(text));
    // Five periods of 200 ms a second, factors uniform on [0.5, 1.5]:
    // about 0.29 / sqrt(5) = 13 % from second to second.
    assert!(varied > 0.06, "{varied:.3}");
    assert!((mean - 20.0 * 1448.0 / 1500.0).abs() < 2.0, "{mean:.2}");
    // Control: the same channel without rate variation.
    let (_, steady) = cv(&scenario(&text.replace(":rate_var=0.5", "")));
    assert!(steady < 0.02, "{steady:.3}");
}
