//! The controller side of a control step, shared by the socket driver
//! (TCP_INFO read by the program itself) and the BPF daemon (samples from
//! the sock_ops program): one implementation of how the kernel's receive
//! measurements feed an `rtac-core` controller.

use rtac_core::controller::{AnyController, Controller, ControllerState};
use rtac_core::time::{Duration, Instant};

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
}

impl Stepper {
    pub fn new(ctl: AnyController) -> Stepper {
        Stepper { ctl, segs_in: None }
    }

    /// Remembers the segment count at attach, so the first step feeds only
    /// the segments received after it.
    pub fn start_at(&mut self, data_segs_in: Option<u32>) {
        self.segs_in = data_segs_in;
    }

    pub fn controller(&self) -> &AnyController {
        &self.ctl
    }

    /// A first RTT sample (the handshake's), before any step.
    pub fn seed_rtt(&mut self, now: Instant, rtt: Duration) {
        self.ctl.on_rtt_sample(now, rtt);
    }

    /// One control step: `bytes` consumed by the program since the last
    /// step, then the kernel's RTT estimate.
    pub fn step(&mut self, now: Instant, bytes: u64, k: KernelSample) -> Decision {
        // The bytes first, then the RTT sample. Steps are spaced by the
        // controller's own RTT estimate, so a per-RTT counting period ends
        // exactly at a step; feeding the sample after keeps that estimate
        // unchanged between scheduling the step and closing the period.
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
        let state = self.ctl.state();
        let interval = state.rtt.or(k.rcv_rtt).unwrap_or(FIRST_STEP).max(MIN_STEP);
        Decision { rwnd: self.ctl.rwnd(), interval, state }
    }
}
