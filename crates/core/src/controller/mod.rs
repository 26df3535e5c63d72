//! Receiver-side window controllers: one trait, one file per algorithm.
//!
//! A controller sees what a real receiver sees: RTT samples (from the TCP
//! timestamp echo), the bytes the application consumes and holes in the
//! sequence (a segment lost on the way). From these it decides the receive
//! window (rwnd) to advertise, in bytes.
//!
//! | name         | file            | source                                   |
//! |--------------|-----------------|------------------------------------------|
//! | `none`       | `none.rs`       | rwnd never limits                        |
//! | `static`     | `fixed.rs`      | a fixed tcp_rmem_max clamp               |
//! | `autotuning` | `autotuning.rs` | Linux DRS as RTAC eq. (12) defines it    |
//! | `drwa`       | `drwa.rs`       | DRWA Algorithm 1 (Jiang et al., IMC'12)  |
//! | `rtac`       | `rtac.rs`, `rtac_tuning.rs`, `rtac_probe.rs`, `rtac_pulse.rs` | RTAC Algorithm 1, eqs. (6), (8), (10), (11); self-tuning K and Delta |
//! | `drw`        | `drw.rs`        | mmWave dynamic receive window (Zhang et al.) |

mod params;
pub use params::{ControllerError, ParamWarning, Params, Plausible, Unit, PLAUSIBLE};

use crate::time::{Duration, Instant};
use crate::units::Bandwidth;
use std::fmt;
use std::str::FromStr;

/// The role every receiver-side window controller plays.
pub trait Controller {
    /// A segment arrived carrying a valid RTT sample: the time since the
    /// receiver sent the timestamp the sender echoes (RTAC Algorithm 1,
    /// "on receiving a packet").
    fn on_rtt_sample(&mut self, now: Instant, rtt: Duration);

    /// The application copied `bytes` from the receive buffer to user space
    /// (RTAC Algorithm 1 and DRWA Algorithm 1 run here).
    fn on_data_consumed(&mut self, now: Instant, bytes: u64);

    /// A segment arrived beyond a hole in the sequence: one sent before it
    /// was lost on the way (or overtaken). Called once per hole, when it
    /// opens. Only the self-tuning `rtac` uses it.
    fn on_sequence_hole(&mut self, _now: Instant) {}

    /// A cross-layer hint from the access link: its whole data bandwidth and
    /// the share allocated to this receiver. Only `drw` uses it.
    fn on_bandwidth_hint(&mut self, _now: Instant, _total: Bandwidth, _allocated: Bandwidth) {}

    /// The window to advertise now, in bytes; `None` when this controller
    /// sets no limit (the receive buffer alone decides).
    fn rwnd(&self) -> Option<u64>;

    /// The estimator state behind the last decision, for logs and plots.
    fn state(&self) -> ControllerState;

    /// The largest window this controller ever asks for (its
    /// tcp_rmem_max); a receiver sizes its window scale from it, as Linux
    /// does from its buffer limit. `None`: no bound of its own.
    fn max_window(&self) -> Option<u64> {
        None
    }

    /// True while this controller's window is the receive buffer
    /// auto-tuning's own (the self-tuning RTAC's start-up). A live socket
    /// then keeps the kernel's window, which Linux raises at every read,
    /// where a clamp set at each control step lags a slow start by a step:
    /// one RTT when each RTT's data arrives as one burst.
    fn defers_to_kernel(&self) -> bool {
        false
    }
}

/// What a controller currently believes, for logs and time series.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ControllerState {
    /// Smoothed receiver RTT estimate.
    pub rtt: Option<Duration>,
    /// Minimum RTT (with any compensation the controller applies).
    pub rtt_min: Option<Duration>,
    /// Estimated sender window (bytes delivered per RTT), smoothed.
    pub window_bytes: Option<u64>,
}

/// The controllers by name, as written on the command line and in scenarios.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ControllerKind {
    None,
    Static,
    Autotuning,
    Drwa,
    Rtac,
    Drw,
}

impl ControllerKind {
    pub const ALL: [ControllerKind; 6] = [
        ControllerKind::None,
        ControllerKind::Static,
        ControllerKind::Autotuning,
        ControllerKind::Drwa,
        ControllerKind::Rtac,
        ControllerKind::Drw,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ControllerKind::None => "none",
            ControllerKind::Static => "static",
            ControllerKind::Autotuning => "autotuning",
            ControllerKind::Drwa => "drwa",
            ControllerKind::Rtac => "rtac",
            ControllerKind::Drw => "drw",
        }
    }
}

impl fmt::Display for ControllerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ControllerKind {
    type Err = ControllerError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ControllerKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| ControllerError::UnknownController(s.to_string()))
    }
}

mod autotuning;
mod drw;
mod drwa;
mod fixed;
mod link_budget;
mod none;
mod rtac;
mod rtac_pulse;
pub mod rtac_tuning;

pub use autotuning::{Autotuning, AutotuningParams};
pub use drw::{Drw, DrwParams};
pub use drwa::{Drwa, DrwaParams};
pub use fixed::{Static, StaticParams};
pub use link_budget::{BudgetState, LinkBudget, LinkMember, DEMAND_GROWTH, INITIAL_SEGMENTS, MIN_SEGMENTS};
pub use none::NoLimit;
pub use rtac::{k_from_bdp, Rtac, RtacParams, PAPER_RMEM_MAX, SELF_TUNING_RMEM_MAX};

/// Any controller, for code that chooses one at run time.
#[derive(Debug)]
pub enum AnyController {
    None(NoLimit),
    Static(Static),
    Autotuning(Autotuning),
    Drwa(Drwa),
    Rtac(Rtac),
    Drw(Drw),
    /// A connection of a per-link `rtac` budget ([`LinkBudget`]).
    Link(LinkMember),
}

impl AnyController {
    /// Builds the controller `kind` for a connection with segment size `mss`,
    /// with its paper defaults overridden by `params` (`key=value` pairs).
    /// Unknown keys and bad values are errors that name the key.
    pub fn new(kind: ControllerKind, mss: u32, params: &Params) -> Result<Self, ControllerError> {
        Ok(match kind {
            ControllerKind::None => {
                params.reject_all("none")?;
                AnyController::None(NoLimit)
            }
            ControllerKind::Static => AnyController::Static(Static::new(StaticParams::from_params(params)?)),
            ControllerKind::Autotuning => {
                AnyController::Autotuning(Autotuning::new(AutotuningParams::from_params(params)?, mss))
            }
            ControllerKind::Drwa => AnyController::Drwa(Drwa::new(DrwaParams::from_params(params)?, mss)),
            ControllerKind::Rtac => AnyController::Rtac(Rtac::new(RtacParams::from_params(params)?, mss)),
            ControllerKind::Drw => AnyController::Drw(Drw::new(DrwParams::from_params(params)?, mss)),
        })
    }

    pub fn kind(&self) -> ControllerKind {
        match self {
            AnyController::None(_) => ControllerKind::None,
            AnyController::Static(_) => ControllerKind::Static,
            AnyController::Autotuning(_) => ControllerKind::Autotuning,
            AnyController::Drwa(_) => ControllerKind::Drwa,
            AnyController::Rtac(_) => ControllerKind::Rtac,
            AnyController::Drw(_) => ControllerKind::Drw,
            AnyController::Link(_) => ControllerKind::Rtac,
        }
    }

    fn inner(&self) -> &dyn Controller {
        match self {
            AnyController::None(c) => c,
            AnyController::Static(c) => c,
            AnyController::Autotuning(c) => c,
            AnyController::Drwa(c) => c,
            AnyController::Rtac(c) => c,
            AnyController::Drw(c) => c,
            AnyController::Link(c) => c,
        }
    }

    fn inner_mut(&mut self) -> &mut dyn Controller {
        match self {
            AnyController::None(c) => c,
            AnyController::Static(c) => c,
            AnyController::Autotuning(c) => c,
            AnyController::Drwa(c) => c,
            AnyController::Rtac(c) => c,
            AnyController::Drw(c) => c,
            AnyController::Link(c) => c,
        }
    }
}

impl Controller for AnyController {
    fn on_rtt_sample(&mut self, now: Instant, rtt: Duration) {
        self.inner_mut().on_rtt_sample(now, rtt)
    }
    fn on_data_consumed(&mut self, now: Instant, bytes: u64) {
        self.inner_mut().on_data_consumed(now, bytes)
    }
    fn on_sequence_hole(&mut self, now: Instant) {
        self.inner_mut().on_sequence_hole(now)
    }
    fn on_bandwidth_hint(&mut self, now: Instant, total: Bandwidth, allocated: Bandwidth) {
        self.inner_mut().on_bandwidth_hint(now, total, allocated)
    }
    fn rwnd(&self) -> Option<u64> {
        self.inner().rwnd()
    }
    fn state(&self) -> ControllerState {
        self.inner().state()
    }
    fn max_window(&self) -> Option<u64> {
        self.inner().max_window()
    }
    fn defers_to_kernel(&self) -> bool {
        self.inner().defers_to_kernel()
    }
}
