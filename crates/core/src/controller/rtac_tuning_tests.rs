//! Unit tests of the self-tuning state (`rtac_tuning.rs`).

use super::*;

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
