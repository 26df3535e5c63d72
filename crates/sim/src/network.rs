//! A link in the data direction: a queue discipline, a serialiser and a
//! propagation delay. Packets in flight on the wire wait in a FIFO (the
//! delay is constant, so arrivals keep departure order).

use crate::metrics::Histogram;
use crate::packet::Packet;
use crate::scenario::LinkSpec;
use rtac_core::{Duration, Instant};
use rtac_netmodel::{AnyQdisc, FixedRate, LinkServer, Qdisc};
use std::collections::VecDeque;

#[derive(Debug)]
pub struct Link {
    pub server: FixedRate,
    pub queue: AnyQdisc<Packet>,
    pub delay: Duration,
    pub busy: bool,
    /// Packets propagating, with their arrival time at the far end.
    pub wire: VecDeque<(Instant, Packet)>,
    pub stats: LinkStats,
}

#[derive(Debug, Default)]
pub struct LinkStats {
    pub drops: u64,
    pub departures: u64,
    pub busy: Duration,
    /// Queueing delay of departed packets, microseconds.
    pub sojourn_us: Histogram,
}

/// What starting the next transmission produced, for the caller to schedule.
pub struct Started {
    /// When the link is free again.
    pub free_at: Instant,
    /// Set when the wire FIFO was empty: when its new head arrives.
    pub arrive_at: Option<Instant>,
}

impl Link {
    pub fn new(spec: &LinkSpec, seed: u64) -> Self {
        Link {
            server: FixedRate::new(spec.rate),
            queue: spec.queue.build(seed),
            delay: spec.delay,
            busy: false,
            wire: VecDeque::new(),
            stats: LinkStats::default(),
        }
    }

    /// Dequeues the next packet and puts it on the wire, if any.
    pub fn start_next(&mut self, now: Instant, drops: &mut Vec<Packet>) -> Option<Started> {
        let Some(d) = self.queue.dequeue(now, drops) else {
            self.busy = false;
            return None;
        };
        let size = rtac_netmodel::Packet::size(&d.packet);
        let free_at = self.server.transmit(now, size);
        self.busy = true;
        self.stats.departures += 1;
        self.stats.busy += free_at - now;
        self.stats.sojourn_us.record(d.sojourn.as_micros());
        let arrive = free_at + self.delay;
        let was_empty = self.wire.is_empty();
        self.wire.push_back((arrive, d.packet));
        Some(Started { free_at, arrive_at: was_empty.then_some(arrive) })
    }

    /// Clears the statistics at the start of the measurement window.
    pub fn reset_stats(&mut self) {
        self.stats = LinkStats::default();
    }
}
