//! DropTail (tail drop FIFO), limited in packets (pfifo) or bytes (bfifo).

use super::{Dequeued, Qdisc};
use crate::Packet;
use rtac_core::Instant;
use std::collections::VecDeque;

/// A queue limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Packets(usize),
    Bytes(u64),
}

#[derive(Clone, Debug)]
pub struct DropTail<P> {
    limit: Limit,
    q: VecDeque<(Instant, P)>,
    bytes: u64,
}

impl<P: Packet> DropTail<P> {
    pub fn new(limit: Limit) -> Self {
        DropTail { limit, q: VecDeque::new(), bytes: 0 }
    }

    fn fits(&self, size: u32) -> bool {
        match self.limit {
            Limit::Packets(n) => self.q.len() < n,
            Limit::Bytes(b) => self.bytes + size as u64 <= b,
        }
    }
}

impl<P: Packet> Qdisc<P> for DropTail<P> {
    fn enqueue(&mut self, pkt: P, now: Instant, drops: &mut Vec<P>) {
        if self.fits(pkt.size()) {
            self.bytes += pkt.size() as u64;
            self.q.push_back((now, pkt));
        } else {
            drops.push(pkt);
        }
    }

    fn dequeue(&mut self, now: Instant, _drops: &mut Vec<P>) -> Option<Dequeued<P>> {
        let (t, packet) = self.q.pop_front()?;
        self.bytes -= packet.size() as u64;
        Some(Dequeued { packet, sojourn: now - t })
    }

    fn len_packets(&self) -> usize {
        self.q.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn passes_through(&self, pkt: &P) -> bool {
        self.q.is_empty() && self.fits(pkt.size())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rtac_core::Duration;

    #[derive(Clone, Debug, PartialEq)]
    pub struct P(pub u32, pub u64);
    impl Packet for P {
        fn size(&self) -> u32 {
            self.0
        }
        fn flow_key(&self) -> u64 {
            self.1
        }
    }

    #[test]
    fn packet_limit_drops_the_arrival_when_full() {
        let mut q = DropTail::new(Limit::Packets(2));
        let mut drops = Vec::new();
        for i in 0..3 {
            q.enqueue(P(1500, i), Instant::ZERO, &mut drops);
        }
        assert_eq!(q.len_packets(), 2);
        assert_eq!(drops, vec![P(1500, 2)]);
    }

    #[test]
    fn byte_limit_counts_bytes_not_packets() {
        let mut q = DropTail::new(Limit::Bytes(3000));
        let mut drops = Vec::new();
        q.enqueue(P(1500, 0), Instant::ZERO, &mut drops);
        q.enqueue(P(1000, 0), Instant::ZERO, &mut drops);
        q.enqueue(P(600, 0), Instant::ZERO, &mut drops);
        q.enqueue(P(500, 0), Instant::ZERO, &mut drops);
        assert_eq!(q.len_bytes(), 3000);
        assert_eq!(drops, vec![P(600, 0)]);
    }

    #[test]
    fn only_an_empty_queue_with_room_passes_a_packet_through() {
        let mut drops = Vec::new();
        let mut q = DropTail::new(Limit::Bytes(1000));
        assert!(q.passes_through(&P(1000, 0)));
        assert!(!q.passes_through(&P(1001, 0)), "no room");
        q.enqueue(P(100, 0), Instant::ZERO, &mut drops);
        assert!(!q.passes_through(&P(100, 0)), "packets wait");
    }

    #[test]
    fn fifo_order_and_sojourn_time() {
        let mut q = DropTail::new(Limit::Packets(10));
        let mut drops = Vec::new();
        q.enqueue(P(100, 1), Instant::from_millis(1), &mut drops);
        q.enqueue(P(100, 2), Instant::from_millis(2), &mut drops);
        let d = q.dequeue(Instant::from_millis(5), &mut drops).unwrap();
        assert_eq!(d.packet, P(100, 1));
        assert_eq!(d.sojourn, Duration::from_millis(4));
        assert_eq!(q.dequeue(Instant::from_millis(5), &mut drops).unwrap().packet, P(100, 2));
        assert!(q.dequeue(Instant::from_millis(5), &mut drops).is_none());
        assert_eq!(q.len_bytes(), 0);
    }
}
