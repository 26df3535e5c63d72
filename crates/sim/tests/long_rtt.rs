//! TCP-GT at a 500 ms RTT: eq. (15)'s increase is f^2 s^2 / (G rtt_base)
//! per epoch with f = 10, so the second epoch grows the window from 10 to
//! about 12,000 segments, which the sender emits at once and its own
//! 1000-packet access queue mostly drops. The flows then time out. With no
//! slow start after a timeout the window stayed at one segment for the
//! rest of the run and the bottleneck was 0.2 % busy; slow start back to
//! ssthresh (RFC 5681 section 3.1) restores it.

use rtac_sim::run;
use rtac_sim::scenario::parse_str;

#[test]
fn tcp_gt_flows_recover_from_timeouts_at_a_500_ms_rtt() {
    let sc = parse_str(
        r#"
        duration = "40s"
        measure_from = "20s"
        mss = 948
        controllers = ["none"]
        [[link]]
        rate = "100mbit"
        delay = "249ms"
        queue = "droptail:packets=6250"   # one BDP of 1000-byte packets
        [[flow]]
        count = 10
        cc = "tcp-gt"
        access = { rate = "10gbit", delay = "1ms" }
        "#,
        "long-rtt.toml",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let r = run(&sc, &sc.controllers[0], &Default::default());
    let timeouts: u64 = r.flows.iter().map(|f| f.timeouts).sum();
    let slowest = r.flows.iter().map(|f| f.throughput_mbps).fold(f64::MAX, f64::min);
    let util = r.links[0].utilization;
    eprintln!("tcp-gt 500 ms: utilisation {util:.3}, slowest flow {slowest:.2} Mbit/s, {timeouts} timeouts");
    // The scenario must exercise the timeout, or the test says nothing.
    assert!(timeouts >= 10, "every flow should time out at least once: {timeouts}");
    assert!(util > 0.8, "utilisation {util:.3}");
    // Every flow recovers, not just a few: a fair share is 10 Mbit/s.
    assert!(slowest > 2.0, "slowest flow {slowest:.2} Mbit/s");
}
