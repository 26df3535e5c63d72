//! Self-tuning RTAC against a fluid model of one bottleneck: the sender
//! always fills the advertised window, the link delivers at most its rate,
//! and the RTT is the base RTT plus the queue the window builds, plus the
//! queue of another sender when there is one. Each test puts a control
//! beside it: the paper's fixed-K RTAC, which fails the same check.

use rtac_core::controller::{AnyController, Controller, ControllerKind, Params};
use rtac_core::{Duration, Instant};

const MSS: u32 = 1448;

struct Link {
    /// Bytes per second.
    rate: f64,
    base: Duration,
    /// Queueing delay held by another sender, whatever this one does.
    other_queue: Duration,
}

/// Drives `c` for `secs` seconds on `link(t)` in 1 ms steps; returns the
/// mean rate (bytes/s) and the mean RTT over the last `tail` seconds.
fn drive(c: &mut AnyController, secs: u64, tail: u64, link: impl Fn(f64) -> Link) -> (f64, f64) {
    drive_from(Instant::ZERO, c, secs, tail, link)
}

/// [`drive`] with the controller's clock reading `start` at the flow's start.
fn drive_from(start: Instant, c: &mut AnyController, secs: u64, tail: u64, link: impl Fn(f64) -> Link) -> (f64, f64) {
    drive_lossy(start, c, secs, tail, link, |_| false)
}

/// [`drive_from`] where a segment is lost (a hole opens) in each
/// millisecond `ms` for which `lost(ms)` holds.
fn drive_lossy(
    start: Instant,
    c: &mut AnyController,
    secs: u64,
    tail: u64,
    link: impl Fn(f64) -> Link,
    lost: impl Fn(u64) -> bool,
) -> (f64, f64) {
    let (mut bytes, mut rtt_sum, mut n) = (0.0, 0.0, 0u64);
    let mut carry = 0.0;
    for ms in 0..secs * 1000 {
        let now = start + Duration::from_millis(ms);
        if lost(ms) {
            c.on_sequence_hole(now);
        }
        let l = link(ms as f64 / 1e3);
        let base = l.base.as_secs_f64() + l.other_queue.as_secs_f64();
        // A loss-based sender fills at most the pipe and a buffer of 5 BDP.
        let rwnd = (c.rwnd().expect("rtac always sets a window") as f64).min(6.0 * l.rate * base);
        // Window-limited below the pipe, link-limited above it (the excess queues).
        let rate = l.rate.min(rwnd / base);
        let rtt = base + (rwnd - l.rate * base).max(0.0) / l.rate;
        c.on_rtt_sample(now, Duration::from_secs_f64(rtt));
        carry += rate / 1000.0;
        let whole = carry.floor();
        carry -= whole;
        c.on_data_consumed(now, whole as u64);
        if ms >= (secs - tail) * 1000 {
            bytes += rate / 1000.0;
            rtt_sum += rtt;
            n += 1;
        }
    }
    (bytes / tail as f64, rtt_sum / n as f64)
}

fn rtac(params: &str) -> AnyController {
    AnyController::new(ControllerKind::Rtac, MSS, &Params::parse_list(params).unwrap()).unwrap()
}

fn fixed(rate_mbit: f64, base_ms: u64) -> impl Fn(f64) -> Link {
    move |_| Link { rate: rate_mbit * 1e6 / 8.0, base: Duration::from_millis(base_ms), other_queue: Duration::ZERO }
}

/// K for a BDP `x` times the true one of `rate_mbit` x `base_ms`.
fn k_for(rate_mbit: f64, base_ms: u64, x: f64) -> String {
    let bdp = rate_mbit * 1e6 / 8.0 * base_ms as f64 / 1e3 / MSS as f64;
    format!("bdp={},rmem_max=64MB", x * bdp)
}

#[test]
fn without_parameters_it_finds_the_operating_point_on_paths_it_was_not_told_about() {
    for (rate, base) in [(5.0, 20), (50.0, 50), (500.0, 100)] {
        let (got, rtt) = drive(&mut rtac(""), 60, 20, fixed(rate, base));
        let r = rtt * 1e3 / base as f64;
        assert!(got >= 0.9 * rate * 1e6 / 8.0, "{rate} Mbit/s x {base} ms: {:.2} Mbit/s", got * 8e-6);
        assert!(r <= 1.6, "{rate} Mbit/s x {base} ms: RTT {r:.2} x base");
        // The control: the paper's K for 4 x the BDP lets the queue grow as the cube.
        let (_, rtt4) = drive(&mut rtac(&k_for(rate, base, 4.0)), 60, 20, fixed(rate, base));
        assert!(rtt4 > 1.5 * rtt, "{rate} Mbit/s x {base} ms: fixed K at 4 x BDP {rtt4:.3} s vs {rtt:.3} s");
    }
}

#[test]
fn behind_a_queue_another_sender_holds_it_does_not_starve() {
    let share = 20.0; // Mbit/s left by the competitor
    let link =
        |_| Link { rate: share * 1e6 / 8.0, base: Duration::from_millis(20), other_queue: Duration::from_millis(100) };
    let (got, _) = drive(&mut rtac(""), 60, 20, link);
    assert!(got >= 0.9 * share * 1e6 / 8.0, "self-tuning: {:.2} Mbit/s", got * 8e-6);
    // The paper's RTAC counts the competitor's queue as its own and settles lower.
    let (paper, _) = drive(&mut rtac(&k_for(share, 20, 1.0)), 60, 20, link);
    assert!(paper < 0.75 * share * 1e6 / 8.0, "paper: {:.2} Mbit/s", paper * 8e-6);
}

#[test]
fn a_loss_in_a_queue_far_deeper_than_its_own_means_a_competitor_at_once() {
    // Alone for 5 s, then a loss-based sender fills the buffer: 150 ms of
    // its queue, half the link left, and its overflows cost this flow a
    // segment every 2 s. The loss says at once what the drain probes say
    // only after several cycles.
    let share = 10.0;
    let link = |t: f64| {
        if t < 5.0 {
            Link { rate: 20e6 / 8.0, base: Duration::from_millis(20), other_queue: Duration::ZERO }
        } else {
            Link { rate: share * 1e6 / 8.0, base: Duration::from_millis(20), other_queue: Duration::from_millis(150) }
        }
    };
    let overflows = |ms: u64| ms >= 6000 && ms.is_multiple_of(2000);
    let (got, _) = drive_lossy(Instant::ZERO, &mut rtac(""), 9, 1, link, overflows);
    assert!(got >= 0.9 * share * 1e6 / 8.0, "with the losses: {:.2} Mbit/s in the ninth second", got * 8e-6);
    // The control: the same without the losses is still held back then.
    let (probes_only, _) = drive(&mut rtac(""), 9, 1, link);
    assert!(probes_only < 0.75 * got, "without them: {:.2} Mbit/s", probes_only * 8e-6);
    // A loss at the flow's own short queue (a radio's) changes nothing.
    let (alone, rtt) = drive_lossy(Instant::ZERO, &mut rtac(""), 30, 10, fixed(20.0, 20), |ms| ms % 2000 == 0);
    assert!(rtt <= 1.6 * 0.020 && alone >= 0.9 * 20e6 / 8.0, "alone with losses: RTT {rtt:.4} s");
}

#[test]
fn it_follows_a_route_change_that_raises_the_base_rtt() {
    let link = |t: f64| Link {
        rate: 20e6 / 8.0,
        base: Duration::from_millis(if t < 30.0 { 40 } else { 80 }),
        other_queue: Duration::ZERO,
    };
    let mut c = rtac("");
    let (got, rtt) = drive(&mut c, 120, 30, link);
    assert!(got >= 0.9 * 20e6 / 8.0, "{:.2} Mbit/s", got * 8e-6);
    assert!(rtt <= 1.6 * 0.080, "RTT {rtt:.3} s after the change to 80 ms");
    let m = c.state().rtt_min.expect("an RTT_m").as_secs_f64();
    assert!((0.079..0.1).contains(&m), "RTT*_m {m:.3} s");
}

#[test]
fn a_flow_that_starts_long_after_its_clock_starts_like_one_at_zero() {
    // A live socket's clock is the time since boot. Its first RTT is the
    // handshake's, then it waits 300 ms for the first data (a request to
    // answer, iperf3 -R's setup). Four hours in, the first two seconds must
    // go as they do at time zero: no drain probe before anything was
    // measured, which would start from four packets.
    let first_2s = |start: Instant| {
        let mut c = rtac("");
        c.on_rtt_sample(start, Duration::from_millis(80));
        for ms in 0..300 {
            c.on_data_consumed(start + Duration::from_millis(ms), 0);
        }
        drive_from(start + Duration::from_millis(300), &mut c, 2, 2, fixed(100.0, 80)).0
    };
    let (at_zero, later) = (first_2s(Instant::ZERO), first_2s(Instant::from_millis(4 * 3600 * 1000)));
    assert!(later >= 0.95 * at_zero, "first 2 s: {:.1} Mbit/s at 4 h against {:.1} at 0", later * 8e-6, at_zero * 8e-6);
}

#[test]
fn on_a_sub_millisecond_path_the_window_covers_a_millisecond_of_data() {
    // 10 Gbit/s x 50 µs (veth, a LAN): a BDP of 62.5 KB, less than one TSO
    // burst. RTAC counts RTTs below 1 ms as 1 ms, so it advertises at least
    // the bytes of one millisecond, as much as the sender can queue here.
    let rate = 10e9 / 8.0;
    let link = move |_| Link { rate, base: Duration::from_micros(50), other_queue: Duration::ZERO };
    let mut c = rtac("");
    let (got, _) = drive(&mut c, 10, 5, link);
    assert!(got >= 0.99 * rate, "{:.2} Gbit/s", got * 8e-9);
    let rwnd = c.rwnd().unwrap() as f64;
    assert!(rwnd >= rate * 1e-3, "window {rwnd:.0} B, below a millisecond of data");
    // The control: the paper's RTAC told the path's BDP advertises theta
    // BDP, a window smaller than one TSO burst.
    let bdp = rate * 50e-6 / MSS as f64;
    let mut paper = rtac(&format!("bdp={bdp}"));
    drive(&mut paper, 10, 5, link);
    assert!(paper.rwnd().unwrap() < 65_536, "{}", paper.rwnd().unwrap());
}
