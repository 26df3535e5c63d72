//! A drain probe of the self-tuning RTAC receiver (`rtac_tuning.rs`), and
//! the run of probes that did not drain.

use super::rtac_tuning::UNCONFIRMED_FALL;
use crate::time::{Duration, Instant};

/// A drain probe in progress.
#[derive(Clone, Copy, Debug)]
pub(super) struct Probe {
    /// What tells that the queue has drained.
    pub(super) drain: Drain,
    /// When the probe started, and when measuring starts at the latest,
    /// drained or not.
    pub(super) start: Instant,
    pub(super) drain_deadline: Instant,
    /// The measuring phase, once it has started: its start and end.
    pub(super) measure: Option<(Instant, Instant)>,
    /// The window advertised during the probe, bytes.
    pub(super) rwnd: u64,
    /// Started before a loss switched to competitive mode: its verdict,
    /// against an RTT_m the loss has put in doubt, is not used.
    pub(super) stale: bool,
    /// The smoothed RTT when it started (for a probe that joined another's,
    /// the peak the RTT fell from).
    pub(super) srtt: Duration,
    /// The top of the band above RTT*_m: an RTT sample under it shows the
    /// queue drained (see [`Drain::Rtt`]).
    pub(super) below: Duration,
    /// A competitive probe: the stream offset up to which the window
    /// advertised before it may still bring data (the right edge), after
    /// which alone it counts arrivals as drained.
    pub(super) edge: Option<u64>,
    /// A probe that joined another's, or that confirms a drain: it lasts
    /// until the queue has drained or [`JOIN_PROBE_RTTS`](super::rtac_tuning::JOIN_PROBE_RTTS), so that every
    /// receiver's share has left the queue while it measures.
    pub(super) joint: bool,
    pub(super) floor: Option<Duration>,
    pub(super) sum_ns: u128,
    pub(super) n: u64,
}

impl Probe {
    /// Whether the data the window before a competitive probe let the
    /// sender send has all been read, `consumed` bytes in.
    pub(super) fn edge_read(&self, consumed: u64) -> bool {
        self.edge.is_none_or(|edge| consumed >= edge)
    }

    /// Whether the floor `floor` halved the smoothed RTT of the start.
    pub(super) fn halved(&self, floor: Duration) -> bool {
        self.srtt >= floor.mul_f64(UNCONFIRMED_FALL)
    }
}

/// A run of consecutive undrained probes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Undrained {
    pub(super) probes: u32,
    /// Of those, the cooperative ones whose queue stood (their floor did
    /// not halve the smoothed RTT of their start).
    pub(super) stood: u32,
    /// The lowest and highest floor.
    pub(super) lo: Duration,
    pub(super) hi: Duration,
}

/// How a drain probe sees its queue drained, after which it measures.
#[derive(Clone, Copy, Debug)]
pub(super) enum Drain {
    /// The current interval (one RTT_m long) and the bytes read in it: an
    /// interval that brings no more than [`DRAINED_ARRIVALS`](super::rtac_tuning::DRAINED_ARRIVALS) times the
    /// probe's window, after one that brought more (`peaked`) outside
    /// start-up.
    Arrivals { from: Instant, read: u64, peaked: bool },
    /// An RTT sample under the probe's `below` (the band above RTT*_m),
    /// where that many bytes are not well under what the link delivers in
    /// an RTT_m (a link of a few packets per RTT, under the window's floor
    /// of four, or a variable link below its peak rate) and arrivals say
    /// nothing of the queue.
    Rtt,
}
