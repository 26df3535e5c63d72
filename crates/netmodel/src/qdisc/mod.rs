//! Queue disciplines, one file each, behind one small trait shaped like
//! Mahimahi's queues: enqueue may drop, dequeue may drop (AQMs that drop at
//! the head), occupancy in packets and bytes, limits checked at construction.

pub mod codel;
mod droptail;
pub mod fq_codel;
pub mod pie;
pub mod red;
mod spec;

pub use codel::{Codel, CodelParams};
pub use droptail::{DropTail, Limit};
pub use fq_codel::{FqCodel, FqCodelParams};
pub use pie::{Pie, PieParams};
pub use red::{Red, RedParams};
pub use spec::{AnyQdisc, QueueError, QueueSpec, KNOWN_KINDS};

use crate::Packet;
use rtac_core::{Duration, Instant};

/// A packet leaving a queue, with the time it spent there.
#[derive(Clone, Debug, PartialEq)]
pub struct Dequeued<P> {
    pub packet: P,
    pub sojourn: Duration,
}

pub trait Qdisc<P: Packet> {
    /// Offers `pkt` at `now`. Every packet the queue drops because of this
    /// arrival (the new one, or others for a per-flow queue) is pushed to
    /// `drops`.
    fn enqueue(&mut self, pkt: P, now: Instant, drops: &mut Vec<P>);

    /// Takes the next packet to send at `now`, if any. Packets an AQM drops
    /// at the head on the way are pushed to `drops`.
    fn dequeue(&mut self, now: Instant, drops: &mut Vec<P>) -> Option<Dequeued<P>>;

    fn len_packets(&self) -> usize;
    fn len_bytes(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len_packets() == 0
    }

    /// Whether `pkt`, offered now and dequeued at once, would come straight
    /// back with zero sojourn and the queue left as it was (an empty FIFO
    /// with room for it), so that a link may send it without queueing it.
    fn passes_through(&self, _pkt: &P) -> bool {
        false
    }
}
