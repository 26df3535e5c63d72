//! The controller side of a control step, shared by the socket driver
//! (TCP_INFO read by the program itself) and the BPF daemon (samples from
//! the sock_ops program): one implementation of how the kernel's receive
//! measurements feed an `rtac-core` controller.

use crate::group::{self, OwnController};
use rtac_core::controller::{AnyController, Controller, ControllerState};
use rtac_core::time::{Duration, Instant};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// The shortest time between two control steps. Steps follow the RTT
/// estimate; on paths whose RTT is below this (loopback), a step's
/// per-RTT byte count spans this long instead.
pub const MIN_STEP: Duration = Duration::from_micros(500);

/// The step interval before the controller has an RTT estimate.
pub const FIRST_STEP: Duration = Duration::from_millis(10);

/// The most RTT samples one step feeds the controller (one per data
/// segment received since the previous step). With RTAC's β = 1/8, what is
/// left of the estimate before the step is then at most (7/8)^64 = 0.02 %;
/// the cap bounds the step's cost at high rates (a few ns per sample).
pub const MAX_SAMPLES_PER_STEP: u64 = 64;

/// What the kernel measured on one socket, as of one step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct KernelSample {
    /// The receiver RTT estimate (tcpi_rcv_rtt, rcv_rtt_est); `None`
    /// before the kernel has one.
    pub rcv_rtt: Option<Duration>,
    /// Data segments received so far (tcpi_data_segs_in), if known.
    pub data_segs_in: Option<u32>,
    /// Segments received out of order so far (tcpi_rcv_ooopack, Linux 5.4
    /// and later), if known: each increase means a hole opened in the
    /// sequence, a segment lost on the way.
    pub ooo_segs: Option<u32>,
}

/// What one step decided.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    /// The window to apply with TCP_WINDOW_CLAMP; `None`: no limit.
    pub rwnd: Option<u64>,
    /// When the next step is due, from now.
    pub interval: Duration,
    pub state: ControllerState,
}

/// One controller and what it needs to remember between steps.
pub struct Stepper {
    ctl: AnyController,
    segs_in: Option<u32>,
    ooo_segs: Option<u32>,
    /// A connection of a shared budget: its own controller's configuration
    /// and segment size, should the budget fail it.
    fallback: Option<(Arc<OwnController>, u32)>,
    /// Why the connection left its budget, once it has.
    left: Option<&'static str>,
}

impl Stepper {
    pub fn new(ctl: AnyController) -> Stepper {
        Stepper { ctl, segs_in: None, ooo_segs: None, fallback: None, left: None }
    }

    /// A stepper whose controller is a place in a shared budget; if the
    /// budget panics or its state is broken ([`group::broken`]), the
    /// connection goes on with its own controller built from `own` for
    /// segments of `mss` bytes (whose start-up, for the self-tuning RTAC,
    /// is the kernel's own window), never with a window the budget left.
    pub fn grouped(ctl: AnyController, own: Option<Arc<OwnController>>, mss: u32) -> Stepper {
        Stepper { fallback: own.map(|o| (o, mss)), ..Stepper::new(ctl) }
    }

    /// Why this connection left its budget for its own controller, if it did.
    pub fn left_budget(&self) -> Option<&'static str> {
        self.left
    }

    /// Checks a budget's member after it was fed; falls back to the
    /// connection's own controller if it panicked or is broken.
    fn check(&mut self, fed: std::thread::Result<()>) {
        let why = match (&fed, &self.ctl) {
            (Err(_), _) => Some("the budget panicked"),
            (Ok(()), AnyController::Link(m)) => {
                catch_unwind(AssertUnwindSafe(|| group::broken(m))).unwrap_or(Some("the budget panicked"))
            }
            _ => None,
        };
        let Some(why) = why else { return };
        let own = self.fallback.take().and_then(|(o, mss)| o.build(mss).ok());
        // Without a configuration to build from (never for a member built
        // by `group`), no controller: the kernel's window.
        self.ctl = own.unwrap_or(AnyController::None(rtac_core::controller::NoLimit));
        self.left = Some(why);
    }

    /// Remembers the segment counts at attach, so the first step feeds only
    /// what arrived after it.
    pub fn start_at(&mut self, k: KernelSample) {
        self.segs_in = k.data_segs_in;
        self.ooo_segs = k.ooo_segs;
    }

    pub fn controller(&self) -> &AnyController {
        &self.ctl
    }

    /// A first RTT sample (the handshake's), before any step.
    pub fn seed_rtt(&mut self, now: Instant, rtt: Duration) {
        if self.fallback.is_some() {
            let fed = catch_unwind(AssertUnwindSafe(|| self.ctl.on_rtt_sample(now, rtt)));
            self.check(fed);
        } else {
            self.ctl.on_rtt_sample(now, rtt);
        }
    }

    /// One control step: `bytes` consumed by the program since the last
    /// step, then the kernel's RTT estimate.
    pub fn step(&mut self, now: Instant, bytes: u64, k: KernelSample) -> Decision {
        if self.fallback.is_some() {
            let fed = catch_unwind(AssertUnwindSafe(|| self.feed(now, bytes, k)));
            self.check(fed);
        } else {
            self.feed(now, bytes, k);
        }
        let state = self.ctl.state();
        let rtt = state.rtt.or(k.rcv_rtt).unwrap_or(FIRST_STEP);
        Decision { rwnd: self.window(), interval: rtt.max(MIN_STEP), state }
    }

    fn feed(&mut self, now: Instant, bytes: u64, k: KernelSample) {
        // The bytes first, then the RTT sample. Steps are spaced by the
        // controller's own RTT estimate, so a per-RTT counting period ends
        // exactly at a step; feeding the sample after keeps that estimate
        // unchanged between scheduling the step and closing the period.
        // Segments out of order since the last step: at least one hole
        // opened (the simulator reports each hole as it opens; a step sees
        // whether any did).
        if let (Some(n), Some(before)) = (k.ooo_segs, self.ooo_segs) {
            if n != before {
                self.ctl.on_sequence_hole(now);
            }
        }
        self.ooo_segs = k.ooo_segs.or(self.ooo_segs);
        self.ctl.on_data_consumed(now, bytes);
        // The controllers' RTT filters run per packet received (RTAC
        // Alg. 1 "on receiving a packet", as in `rtac sim`). The kernel's
        // estimate is already such a filter over the segments received
        // since the last step; it is fed once per such segment, so that a
        // controller's gain acts per packet, not per step (one sample per
        // step would smooth over 8 RTTs instead of 8 packets).
        let samples = match (k.data_segs_in, self.segs_in) {
            (Some(now_segs), Some(before)) => (now_segs.wrapping_sub(before) as u64).min(MAX_SAMPLES_PER_STEP),
            _ => 1,
        };
        self.segs_in = k.data_segs_in;
        if let Some(rtt) = k.rcv_rtt {
            for _ in 0..samples {
                self.ctl.on_rtt_sample(now, rtt);
            }
        }
    }

    /// The window to apply now: the controller's, or `None` while it leaves
    /// the window to the kernel (`Controller::defers_to_kernel`).
    pub fn window(&self) -> Option<u64> {
        if self.ctl.defers_to_kernel() {
            None
        } else {
            self.ctl.rwnd()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtac_core::controller::{ControllerKind, Params};

    /// A self-tuning RTAC fed steps of a 20 Mbit/s, 20 ms path where the
    /// window it advertises sets the RTT; after 5 s another sender's 150 ms
    /// queue appears. `ooo` gives the kernel's out-of-order count at each
    /// step (by millisecond). Returns the window at 9 s.
    fn window_at_9s(ooo: impl Fn(u64) -> u32) -> u64 {
        let ctl = AnyController::new(ControllerKind::Rtac, 1448, &Params::new()).unwrap();
        let mut s = Stepper::new(ctl);
        s.start_at(KernelSample { data_segs_in: Some(0), ooo_segs: Some(0), ..KernelSample::default() });
        let (rate, base): (f64, f64) = (20e6 / 8.0, 0.020);
        let (mut ms, mut segs, mut rwnd) = (0u64, 0u32, 65_536.0f64);
        while ms < 9000 {
            let other = if ms < 5000 { 0.0 } else { 0.150 };
            let rtt = base + other + (rwnd - rate * base).max(0.0) / rate;
            let bytes = (rate.min(rwnd / (base + other)) * 0.010) as u64;
            segs += (bytes / 1448) as u32;
            let k = KernelSample {
                rcv_rtt: Some(Duration::from_secs_f64(rtt)),
                data_segs_in: Some(segs),
                ooo_segs: Some(ooo(ms)),
            };
            // In start-up the kernel's own window: about two BDPs here.
            rwnd = s.step(Instant::from_millis(ms), bytes, k).rwnd.map_or(2.0 * rate * base, |w| w as f64);
            ms += 10;
        }
        rwnd as u64
    }

    #[test]
    fn a_self_tuning_rtac_leaves_the_window_to_the_kernel_until_its_start_up_ends() {
        // 100 Mbit/s, 40 ms, stepped every 10 ms, the window setting the
        // queue; the kernel's own window is two BDPs. The self-tuning RTAC's
        // start-up grows like Auto-tuning, which on a live socket is the
        // kernel's window (no clamp); from its first drained probe on it
        // clamps. The paper's RTAC clamps from the first step.
        let windows = |params: &str| {
            let p = Params::parse_list(params).unwrap();
            let mut s = Stepper::new(AnyController::new(ControllerKind::Rtac, 1448, &p).unwrap());
            let (rate, base): (f64, f64) = (100e6 / 8.0, 0.040);
            let (mut rwnd, mut out) = (65_536.0f64, vec![]);
            for ms in (0..5000u64).step_by(10) {
                let rtt = base + (rwnd - rate * base).max(0.0) / rate;
                let bytes = (rate.min(rwnd / base) * 0.010) as u64;
                let k = KernelSample { rcv_rtt: Some(Duration::from_secs_f64(rtt)), ..KernelSample::default() };
                let d = s.step(Instant::from_millis(ms), bytes, k);
                rwnd = d.rwnd.map_or(2.0 * rate * base, |w| w as f64);
                out.push(d.rwnd);
            }
            out
        };
        let tuning = windows("");
        let first = tuning.iter().position(Option::is_some).expect("a probe clamps");
        assert!((5..=250).contains(&first), "{tuning:?}");
        assert!(tuning[first + 100..].iter().all(Option::is_some), "{tuning:?}");
        let paper = windows("k=3e-7");
        assert!(paper.iter().all(Option::is_some), "{paper:?}");
    }

    #[test]
    fn the_first_probe_waits_for_the_queue_the_kernels_start_up_window_left() {
        // A self-tuning RTAC on a 20 Mbit/s, 50 ms path, stepped once per
        // RTT as a live socket is, fed RTTs of the shape `rtac run --log`
        // showed under a CUBIC download through `rtac emu` (20 Mbit/s,
        // 25 ms each way, 2000 packets): in start-up the kernel's window
        // lets the slow start build a queue; after the first probe clamps,
        // the data sent under the right edge advertised before it (which is
        // not pulled back) deepened the queue for another 0.6 s, and it had
        // drained 0.17 s later. A probe that began measuring four of its
        // first RTTs in took the queue for another sender's and went back
        // to the kernel's window, which filled the queue again (ping: 148,
        // 195, 153 ms in seconds 2-4 against 69 from the fifth on). No
        // segment is lost here, so the first probe comes at MIN_PROBE_GAP.
        const LOG: [(f64, f64); 6] =
            [(0.0, 50.0), (0.55, 50.0), (2.0, 150.0), (2.3, 165.0), (2.63, 170.0), (2.80, 50.0)];
        let rtt_at = |t: f64| match LOG.windows(2).find(|w| t < w[1].0) {
            Some(w) => w[0].1 + (w[1].1 - w[0].1) * (t - w[0].0) / (w[1].0 - w[0].0),
            None => 50.0,
        };
        let mut s = Stepper::new(AnyController::new(ControllerKind::Rtac, 1448, &Params::new()).unwrap());
        let rate: f64 = 20e6 / 8.0;
        let (mut t, mut dt, mut segs, mut window) = (0.0f64, 0.010f64, 0u32, None::<u64>);
        let mut windows = vec![];
        while t < 6.0 {
            // The link's rate while the queue stands, the window's after.
            let bytes = match window {
                Some(w) if t >= 2.80 => rate.min(w as f64 / 0.050) * dt,
                _ => rate * dt,
            } as u64;
            segs += (bytes / 1448) as u32;
            let k = KernelSample {
                rcv_rtt: Some(Duration::from_secs_f64(rtt_at(t) / 1e3)),
                data_segs_in: Some(segs),
                ooo_segs: Some(0),
            };
            let d = s.step(Instant::from_nanos((t * 1e9) as u64), bytes, k);
            (window, dt) = (d.rwnd, d.interval.as_secs_f64());
            windows.push((t, d.rwnd));
            t += dt;
        }
        let first = windows.iter().position(|w| w.1.is_some()).expect("a probe clamps");
        assert!(windows[first].0 >= 2.0 && windows[first].0 < 2.2, "{windows:?}");
        let back: Vec<_> = windows[first..].iter().filter(|w| w.1.is_none()).collect();
        assert!(back.is_empty(), "back in the kernel's window after the first probe at {back:?}: {windows:?}");
    }

    #[test]
    fn a_connection_whose_budget_fails_goes_on_with_its_own_controller() {
        use rtac_core::controller::LinkBudget;
        let p = Params::parse_list("bdp=50").unwrap();
        let budget = LinkBudget::for_choice(ControllerKind::Rtac, 1448, &p).unwrap().expect("rtac shares");
        let own = Arc::new(OwnController { kind: ControllerKind::Rtac, params: p });
        let mut s = Stepper::grouped(AnyController::Link(budget.join()), Some(own), 1448);
        let k = KernelSample { rcv_rtt: Some(Duration::from_millis(50)), ..KernelSample::default() };
        let d = s.step(Instant::from_millis(10), 10_000, k);
        assert!(d.rwnd.is_some() && s.left_budget().is_none());
        assert_eq!(budget.state().connections, 1);
        // What a panic inside the budget leaves: the connection leaves it
        // for a controller of its own, and the budget is empty.
        s.check(Err(Box::new("a panic in the budget")));
        assert_eq!(s.left_budget(), Some("the budget panicked"));
        assert!(matches!(s.controller(), AnyController::Rtac(_)));
        assert_eq!(budget.state().connections, 0);
        let d = s.step(Instant::from_millis(20), 10_000, k);
        assert!(d.rwnd.is_some_and(|w| w >= 2 * 1448));
        // A member without a configuration to fall back to: the kernel's window.
        let mut bare = Stepper::grouped(AnyController::Link(budget.join()), None, 1448);
        bare.check(Err(Box::new(())));
        assert_eq!(bare.step(Instant::from_millis(30), 0, k).rwnd, None);
    }

    #[test]
    fn a_rise_of_the_out_of_order_count_reaches_the_controller_as_a_hole() {
        let lost = window_at_9s(|ms| (ms >= 6000) as u32);
        let not_lost = window_at_9s(|_| 0);
        // RTAC takes a loss in a queue far deeper than its own for a
        // competitor's and stops holding its window back.
        assert!(lost > 4 * not_lost, "{lost} bytes with the loss, {not_lost} without");
    }
}
