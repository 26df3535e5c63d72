//! Unit tests of the self-tuning state (`rtac_tuning.rs`).

use super::*;

fn at(ms: u64) -> Instant {
    Instant::ZERO + Duration::from_millis(ms)
}

/// A tuner in `mode`, quiet since `t0`, whose last smoothed RTT was `srtt`.
fn tuner(mode: Mode, srtt: Duration) -> Tuner {
    let mut t = Tuner::new(None);
    t.mode = mode;
    t.probes = 3;
    t.quiet = Some(Instant::ZERO);
    t.srtt = srtt;
    t
}

#[test]
fn periodic_probes_are_twenty_smoothed_rtts_apart_behind_a_deep_queue() {
    let at = |s: f64| Instant::ZERO + Duration::from_secs_f64(s);
    let short = tuner(Mode::Competitive, Duration::from_millis(100));
    assert!(!short.probe_due(at(4.9)) && short.probe_due(at(5.0)), "the fixed interval where the RTT is short");
    let deep = tuner(Mode::Competitive, Duration::from_secs(2));
    assert!(!deep.probe_due(at(39.9)), "a 2 s RTT: not every 5 s");
    assert!(deep.probe_due(at(40.0)));
    let coop = tuner(Mode::Cooperative, Duration::from_secs(1));
    assert!(!coop.probe_due(at(19.9)) && coop.probe_due(at(20.0)));
}

/// A cooperative probe of `emptied` arrivals, whose four samples average
/// 40 ms with a floor of 37 ms, against RTT_m 17 ms and a 5 ms band: the
/// drift of an LTE channel, not a queue.
fn probe_on_a_drifting_channel(emptied: bool) -> Tuner {
    let mut t = tuner(Mode::Cooperative, Duration::from_millis(40));
    t.min_cur = Some(Duration::from_millis(17));
    let p = Probe {
        drain: Drain::Rtt,
        start: at(0),
        drain_deadline: at(100),
        measure: Some((at(50), at(67))),
        rwnd: 100_000,
        stale: false,
        srtt: Duration::from_millis(40),
        below: Duration::from_millis(22),
        edge: None,
        joint: false,
        emptied,
        floor: Some(Duration::from_millis(37)),
        sum_ns: 4 * 40_000_000,
        n: 4,
    };
    t.finish_probe(at(100), p, Duration::from_millis(17), Duration::from_millis(6));
    t
}

#[test]
fn a_probe_whose_arrivals_fell_to_its_window_measures_delta_above_the_band() {
    let t = probe_on_a_drifting_channel(true);
    // A quarter of the 23 ms the no-queue RTT lay above RTT_m.
    assert_eq!(t.delta(), Duration::from_micros(5750));
    let t = probe_on_a_drifting_channel(false);
    assert_eq!(t.delta(), Duration::ZERO, "a floor above the band alone says nothing of Delta");
}
