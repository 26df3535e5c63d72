//! Link service models: when does a packet that starts service at `start`
//! finish leaving the link?

pub mod channel;
mod fixed;
mod profile;
mod synthetic;
pub mod trace;
pub use channel::{Channel, ChannelError, ChannelKind, ChannelParams, ChannelSpec};
pub use fixed::FixedRate;
pub use profile::{ProfileError, ProfileLink, RateProfile};
pub use synthetic::{synthetic_cellular, SyntheticTrace};
pub use trace::{parse_mahimahi, MahimahiTrace, TraceError, TraceLink};

use rtac_core::Instant;

/// A link that serialises one packet at a time.
pub trait LinkServer {
    /// The packet of `bytes` at the head of the queue starts service at
    /// `start` (the link is idle then: the previous packet has left).
    /// Returns when its last byte has left the link.
    fn transmit(&mut self, start: Instant, bytes: u32) -> Instant;
}
