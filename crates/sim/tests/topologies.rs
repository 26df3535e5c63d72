//! Access models: per-user base-station queues, a shared AP queue, a
//! Mahimahi trace, an mmWave channel with blockage, random loss.

use rtac_sim::scenario::{load_file, parse_str};
use rtac_sim::{run, RunOptions, RunResult};

fn run_toml(body: &str) -> RunResult {
    let sc = parse_str(body, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &sc.controllers[0], &RunOptions::default())
}

#[test]
fn per_user_queues_isolate_a_bloated_flow_from_a_controlled_one() {
    let r = run_toml(
        r#"
        duration = "30s"
        measure_from = "5s"
        controllers = ["rtac"]
        [[link]]
        name = "enb"
        rate = "50mbit"
        delay = "25ms"
        queue = "droptail:packets=3000"
        per_flow = "rr"
        [[flow]]
        controller = "autotuning"
        [[flow]]
        "#,
    );
    let (auto, rtac) = (&r.flows[0], &r.flows[1]);
    eprintln!(
        "auto {:.1} Mbit/s {:.0} ms, rtac {:.1} Mbit/s {:.0} ms",
        auto.throughput_mbps, auto.rtt_mean_ms, rtac.throughput_mbps, rtac.rtt_mean_ms
    );
    assert!(auto.rtt_mean_ms > 2.0 * rtac.rtt_mean_ms, "the autotuning flow's own queue bloats, RTAC's does not");
    assert!(rtac.throughput_mbps > 0.8 * auto.throughput_mbps, "round robin shares the air interface");
    assert!(auto.throughput_mbps + rtac.throughput_mbps > 0.9 * 50.0 * 1448.0 / 1500.0);
}

#[test]
fn a_shared_queue_makes_every_flow_wait_behind_the_bloated_one() {
    let r = run_toml(
        r#"
        duration = "30s"
        measure_from = "5s"
        controllers = ["rtac"]
        [[link]]
        name = "ap"
        rate = "50mbit"
        delay = "10ms"
        queue = "droptail:packets=1000"
        [[flow]]
        controller = "autotuning"
        [[flow]]
        "#,
    );
    let (auto, rtac) = (&r.flows[0], &r.flows[1]);
    eprintln!(
        "auto {:.1} Mbit/s {:.0} ms, rtac {:.1} Mbit/s {:.0} ms",
        auto.throughput_mbps, auto.rtt_mean_ms, rtac.throughput_mbps, rtac.rtt_mean_ms
    );
    assert!((auto.rtt_mean_ms - rtac.rtt_mean_ms).abs() < 0.2 * auto.rtt_mean_ms, "one queue, one delay");
}

#[test]
fn proportional_fair_gives_equal_channels_equal_shares() {
    let r = run_toml(
        r#"
        duration = "20s"
        measure_from = "5s"
        controllers = ["autotuning"]
        [[link]]
        rate = "40mbit"
        delay = "20ms"
        queue = "droptail:packets=500"
        per_flow = "pf"
        [[flow]]
        count = 3
        "#,
    );
    let t: Vec<f64> = r.flows.iter().map(|f| f.throughput_mbps).collect();
    eprintln!("{t:?}");
    let (lo, hi) = (t.iter().cloned().fold(f64::MAX, f64::min), t.iter().cloned().fold(0.0, f64::max));
    assert!(lo > 0.8 * hi, "{t:?}");
}

#[test]
fn a_bulk_download_follows_a_mahimahi_trace() {
    // The scenario goes to a directory of its own (the target directory may
    // be anywhere: CARGO_TARGET_DIR), so the trace is named by its absolute path.
    let trace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/mahimahi/Verizon-LTE-short.down");
    let body = format!(
        r#"
        duration = "60s"
        controllers = ["none"]
        [[link]]
        trace = "{}"
        delay = "20ms"
        queue = "droptail:packets=1000"
        [[flow]]
        "#,
        trace.display()
    );
    // create_dir, not create_dir_all: a directory (or link) already there is an error, never reused
    let dir = std::env::temp_dir().join(format!("rtac-topologies-{}", std::process::id()));
    std::fs::create_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let path = dir.join("trace-test.toml");
    std::fs::write(&path, body).unwrap();
    let sc = load_file(&path).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&dir);
    let r = run(&sc, &sc.controllers[0], &RunOptions::default());
    let avg = sc.links[0].rate.mbps_f64();
    eprintln!(
        "trace average {avg:.2} Mbit/s, goodput {:.2}, util {:.3}",
        r.flows[0].throughput_mbps, r.links[0].utilization
    );
    assert!(r.links[0].utilization > 0.9);
    assert!(r.flows[0].throughput_mbps > 0.85 * avg * 1448.0 / 1500.0);
}

#[test]
fn drw_keeps_delay_low_through_a_building_blockage() {
    let mk = |ctl: &str| {
        run_toml(&format!(
            r#"
            duration = "10s"
            controllers = [{ctl}]
            [[link]]
            name = "core"
            rate = "10gbit"
            delay = "20ms"
            queue = "droptail:packets=100000"
            [[link]]
            name = "mmwave"
            rate = "1gbit"
            delay = "0ms"
            queue = "droptail:packets=50000"
            per_flow = "rr"
            [[flow]]
            blockage = [{{ kind = "building", at = "4s" }}]
            "#
        ))
    };
    let plain = mk(r#""none""#);
    let drw = mk(r#"{ controller = "drw", params = { rmem_max = "64MB" } }"#);
    let (p, d) = (&plain.flows[0], &drw.flows[0]);
    eprintln!(
        "none {:.0} Mbit/s {:.0} ms; drw {:.0} Mbit/s {:.0} ms",
        p.throughput_mbps, p.rtt_mean_ms, d.throughput_mbps, d.rtt_mean_ms
    );
    assert!(d.rtt_mean_ms < 0.5 * p.rtt_mean_ms, "DRW holds the queue down");
    assert!(d.throughput_mbps > 0.8 * p.throughput_mbps);
}

#[test]
fn random_loss_is_repaired_by_retransmission() {
    let r = run_toml(
        r#"
        duration = "20s"
        controllers = ["none"]
        [[link]]
        rate = "20mbit"
        delay = "10ms"
        loss = 0.01
        queue = "droptail:packets=200"
        [[flow]]
        "#,
    );
    let f = &r.flows[0];
    let sent = r.packets as f64;
    eprintln!("drops {} retx {} of {sent}", r.links[0].drops, f.retransmits);
    assert!((r.links[0].drops as f64 / sent - 0.01).abs() < 0.003);
    assert!(f.retransmits >= r.links[0].drops);
}

#[test]
fn private_access_links_add_their_delay_and_stay_out_of_the_link_results() {
    let r = run_toml(
        r#"
        duration = "5s"
        controllers = ["none"]
        [[link]]
        name = "bottleneck"
        rate = "10mbit"
        delay = "20ms"
        queue = "droptail:packets=20"
        [[flow]]
        count = 3
        access = { rate = "1gbit", delay = "1ms" }
        egress = { rate = "1gbit", delay = "2ms" }
        "#,
    );
    assert_eq!(r.links.len(), 1, "only the scenario's links are reported");
    for f in &r.flows {
        assert!(f.rtt_p5_ms >= 46.0, "base RTT 2 x (1 + 20 + 2) ms: {}", f.rtt_p5_ms);
        assert!(f.throughput_mbps > 1.0);
    }
}

#[test]
fn round_robin_shares_air_time_not_packets_between_fast_and_slow_channels() {
    let r = run_toml(
        r#"
        duration = "20s"
        measure_from = "5s"
        controllers = ["autotuning"]
        [[link]]
        rate = "100mbit"
        delay = "20ms"
        queue = "droptail:packets=1000"
        per_flow = "rr"
        [[flow]]
        channel = [["0s", "100mbit"]]
        [[flow]]
        channel = [["0s", "20mbit"]]
        "#,
    );
    let (fast, slow) = (r.flows[0].throughput_mbps, r.flows[1].throughput_mbps);
    eprintln!("fast {fast:.1} slow {slow:.1}");
    // Half the air time each: about 50 and 10 Mbit/s of wire rate.
    assert!(fast > 4.0 * slow, "fast {fast} slow {slow}");
    assert!(fast > 40.0 && slow > 8.0, "fast {fast} slow {slow}");
}

#[test]
fn flows_of_one_ue_share_its_queue() {
    let r = run_toml(
        r#"
        duration = "20s"
        measure_from = "5s"
        controllers = ["autotuning"]
        [[link]]
        rate = "50mbit"
        delay = "20ms"
        queue = "droptail:packets=500"
        per_flow = "rr"
        [[flow]]
        ue = 1
        [[flow]]
        ue = 1
        controller = "rtac"
        [[flow]]
        ue = 2
        controller = { controller = "rtac", params = { bdp = 86 } }  # half of 50 Mbit/s x 40 ms
        "#,
    );
    let rtt: Vec<f64> = r.flows.iter().map(|f| f.rtt_mean_ms).collect();
    eprintln!("{rtt:?}");
    assert!((rtt[0] - rtt[1]).abs() < 0.15 * rtt[0], "one UE, one queue: {rtt:?}");
    assert!(rtt[2] < 0.6 * rtt[1], "another UE's queue stays short: {rtt:?}");
}
