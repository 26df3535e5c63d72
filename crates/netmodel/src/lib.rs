//! rtac-netmodel: the link and queue models shared by the simulator (which
//! feeds them simulated packets) and the emulator (which feeds them real
//! ones). Pure code: time is a parameter, randomness comes from a seeded
//! [`rtac_core::rng::Rng`].

pub mod link;
pub mod qdisc;

pub use link::{
    parse_mahimahi, Channel, ChannelSpec, FixedRate, LinkServer, MahimahiTrace, ProfileLink, RateProfile, TraceError,
    TraceLink,
};
pub use qdisc::{AnyQdisc, Dequeued, Qdisc, QueueError, QueueSpec};

/// What a queue needs to know about a packet.
pub trait Packet {
    /// Bytes on the wire (IP header included).
    fn size(&self) -> u32;
    /// A key that is equal for packets of one flow (the 5-tuple's hash),
    /// used by per-flow queueing.
    fn flow_key(&self) -> u64;
}
