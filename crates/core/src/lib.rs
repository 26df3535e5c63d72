//! rtac-core: receiver-side window controllers and the estimators they use.
//!
//! Pure code: no clock, no socket, no file. Every method that depends on
//! time takes `now` as a parameter, so the same controller runs inside the
//! simulator (simulated time) and on a live socket (monotonic clock).

pub mod controller;
pub mod estimators;
pub mod rng;
pub mod time;
pub mod units;

pub use controller::{AnyController, Controller, ControllerError, ControllerKind, ControllerState};
pub use time::{Duration, Instant};
pub use units::Bandwidth;

/// The papers' maximum segment size (RTAC Table I): 1448 bytes of payload in
/// a 1500-byte packet with the TCP timestamp option.
pub const DEFAULT_MSS: u32 = 1448;
