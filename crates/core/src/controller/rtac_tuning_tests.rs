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
    assert!(
        !short.probe_due(at(4.9), false) && short.probe_due(at(5.0), false),
        "the fixed interval where the RTT is short"
    );
    let deep = tuner(Mode::Competitive, Duration::from_secs(2));
    assert!(!deep.probe_due(at(39.9), false), "a 2 s RTT: not every 5 s");
    assert!(deep.probe_due(at(40.0), false));
    let coop = tuner(Mode::Cooperative, Duration::from_secs(1));
    assert!(!coop.probe_due(at(19.9), false) && coop.probe_due(at(20.0), false));
}

/// A start-up tuner on a path whose RTT_m is 100 ms, after a start-up
/// probe that found the RTT at 900 ms, its queue standing, with no loss;
/// `slow`: the probe's arrivals never exceeded its window, so it drained
/// by the RTT; otherwise they peaked above it.
fn after_an_undrained_start_up_probe(slow: bool) -> Tuner {
    let ms = Duration::from_millis;
    let mut t = Tuner::new(None);
    t.on_rtt_sample(Instant::ZERO, ms(100));
    let probe = Probe {
        drain: if slow {
            Drain::Rtt
        } else {
            Drain::Arrivals { from: Instant::ZERO + ms(5900), read: 0, peaked: true }
        },
        start: Instant::ZERO + ms(2000),
        drain_deadline: Instant::ZERO + ms(6000),
        measure: Some((Instant::ZERO + ms(6000), Instant::ZERO + ms(6100))),
        rwnd: 50_000,
        stale: false,
        srtt: ms(1000),
        below: ms(130),
        edge: None,
        joint: false,
        floor: Some(ms(900)),
        sum_ns: 4 * ms(950).as_nanos() as u128,
        n: 4,
    };
    t.finish_probe(Instant::ZERO + ms(6100), probe, ms(100), ms(38));
    t
}

#[test]
fn a_start_up_probe_that_meets_a_slower_link_ends_the_start_up() {
    // The link delivered less than the probe's window: the 900 ms are
    // most likely the start-up's own data on a slower link, and RTAC's
    // equations under their bound take over from the start-up's growth.
    let slowed = after_an_undrained_start_up_probe(true);
    assert_eq!(slowed.mode, Mode::Cooperative);
    assert_eq!(slowed.startup_window(Duration::ZERO, 0, Duration::from_millis(150)), None);
    // The control: arrivals that peaked above the window drained the
    // receiver's own share at its rate, and the queue that stood is
    // another sender's; the start-up goes on growing like Auto-tuning.
    let peaked = after_an_undrained_start_up_probe(false);
    assert_eq!(peaked.mode, Mode::Startup);
    assert!(peaked.startup_window(Duration::ZERO, 0, Duration::from_millis(150)).is_some());
}

/// A cooperative tuner on a path whose RTT_m is 12 ms, after a run of
/// counting periods of one RTT_m at each rate of `mbps` in turn.
fn after_periods_at(mbps: &[f64]) -> Tuner {
    let rtt = Duration::from_millis(12);
    let mut t = Tuner::new(None);
    t.on_rtt_sample(Instant::ZERO, rtt);
    t.mode = Mode::Cooperative;
    let mut now = Instant::ZERO;
    for &rate in mbps {
        for _ in 0..2 * BW_ROUNDS {
            now += rtt;
            let bytes = (rate * 1e6 / 8.0 * rtt.as_secs_f64()) as u64;
            t.on_period(now, bytes, rtt, rtt, 1448, (1.5, 1.38));
        }
    }
    t
}

#[test]
fn the_bdp_floor_is_no_more_than_twice_what_the_link_has_ever_carried() {
    let bdp = |mbps: &[f64]| after_periods_at(mbps).bdp_pkts(1448).unwrap();
    // 1 Mbit/s x 12 ms is about one packet: a floor of ten would hold
    // nine of them in the queue. The floor is four packets, the least
    // from which an underestimate grows.
    let tiny = bdp(&[1.0]);
    assert!((tiny - MIN_WINDOW_PKTS).abs() < 1e-9, "{tiny} packets at 1 Mbit/s");
    // 3 Mbit/s: 3.1 packets, so the floor is twice that.
    let small = bdp(&[3.0]);
    let want = 2.0 * 3e6 / 8.0 * 0.012 / 1448.0;
    assert!((small - want).abs() < 1e-6, "{small} packets at 3 Mbit/s, want {want}");
    // The control: the same 1 Mbit/s after the link has carried 20 Mbit/s
    // (20 packets per RTT_m) is an estimate that fell, and keeps the floor
    // of ten from which it grows back.
    let fell = bdp(&[20.0, 1.0]);
    assert!((fell - MIN_BDP_PKTS).abs() < 1e-9, "{fell} packets after 20 Mbit/s");
    // Above the floor the estimate is the windowed rate's own.
    let fast = bdp(&[20.0]);
    assert!((fast - 20e6 / 8.0 * 0.012 / 1448.0).abs() < 1e-6, "{fast} packets at 20 Mbit/s");
}

#[test]
fn after_a_standing_probe_a_queue_deeper_than_its_own_calls_the_next_probe_two_seconds_on() {
    let at = |s: f64| Instant::ZERO + Duration::from_secs_f64(s);
    let mut coop = tuner(Mode::Cooperative, Duration::from_millis(300));
    // No probe has found the queue standing: depth alone calls nothing.
    assert!(!coop.probe_due(at(2.0), true));
    let floor = Duration::from_millis(200);
    coop.undrained = Some(Undrained { probes: 1, stood: 1, lo: floor, hi: floor });
    assert!(coop.probe_due(at(2.0), true), "deep after a standing probe, MIN_PROBE_GAP on");
    assert!(!coop.probe_due(at(1.9), true), "not before MIN_PROBE_GAP");
    assert!(!coop.probe_due(at(2.0), false), "a queue RTAC's own window can hold calls nothing early");
}
