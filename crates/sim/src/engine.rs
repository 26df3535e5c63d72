//! The event queue: events ordered by (time, insertion sequence), so that
//! simultaneous events run in the order they were scheduled and a run is a
//! pure function of its inputs.

use rtac_core::Instant;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Events are small: packets wait in per-link and per-flow FIFOs, and an
/// event only names which FIFO's head is due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A link finished serialising a packet and may start the next.
    LinkFree(u32),
    /// The head of a link's propagation FIFO reaches the far end.
    LinkArrive(u32),
    /// The head of a flow's ACK FIFO reaches the sender.
    AckArrive(u32),
    /// A flow's earliest timer (RTO or delayed ACK) may be due.
    FlowTimer(u32),
    FlowStart(u32),
    FlowStop(u32),
    /// Statistics start counting (end of warm-up).
    MeasureStart,
    /// Take a time-series sample.
    Sample,
}

#[derive(Debug)]
struct Entry {
    time: Instant,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        (self.time, self.seq) == (o.time, o.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    /// Reversed: the heap's maximum is the earliest event.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

/// Two heaps under one sequence counter. Flow timers wait apart: most are
/// superseded by an earlier deadline long before they are due (a delayed
/// ACK ahead of the retransmission timer), and kept with the packet events
/// they would make up most of the heap, deepening every pop.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    timers: BinaryHeap<Entry>,
    seq: u64,
    popped: u64,
}

impl EventQueue {
    pub fn push(&mut self, time: Instant, event: Event) {
        self.seq += 1;
        let entry = Entry { time, seq: self.seq, event };
        match event {
            Event::FlowTimer(_) => self.timers.push(entry),
            _ => self.heap.push(entry),
        }
    }

    /// The earliest event at or before `until`.
    pub fn pop_until(&mut self, until: Instant) -> Option<(Instant, Event)> {
        // `Entry`'s order is reversed: the greater entry is the earlier.
        let heap = match (self.heap.peek(), self.timers.peek()) {
            (Some(e), Some(t)) if t > e => &mut self.timers,
            (None, Some(_)) => &mut self.timers,
            _ => &mut self.heap,
        };
        if heap.peek()?.time > until {
            return None;
        }
        let e = heap.pop()?;
        self.popped += 1;
        Some((e.time, e.event))
    }

    pub fn processed(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_come_out_in_time_then_insertion_order() {
        let mut q = EventQueue::default();
        q.push(Instant::from_millis(2), Event::LinkFree(0));
        q.push(Instant::from_millis(1), Event::LinkFree(1));
        q.push(Instant::from_millis(2), Event::LinkFree(2));
        q.push(Instant::from_millis(1), Event::LinkFree(3));
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(Instant::MAX)).map(|(_, e)| e).collect();
        assert_eq!(order, vec![Event::LinkFree(1), Event::LinkFree(3), Event::LinkFree(0), Event::LinkFree(2)]);
        assert_eq!(q.processed(), 4);
    }

    #[test]
    fn timers_and_packet_events_share_one_order() {
        let mut q = EventQueue::default();
        q.push(Instant::from_millis(2), Event::FlowTimer(0));
        q.push(Instant::from_millis(2), Event::LinkArrive(1));
        q.push(Instant::from_millis(1), Event::FlowTimer(2));
        q.push(Instant::from_millis(3), Event::AckArrive(3));
        q.push(Instant::from_millis(2), Event::FlowTimer(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(Instant::MAX)).map(|(_, e)| e).collect();
        assert_eq!(
            order,
            vec![
                Event::FlowTimer(2),
                Event::FlowTimer(0),
                Event::LinkArrive(1),
                Event::FlowTimer(4),
                Event::AckArrive(3)
            ]
        );
    }

    #[test]
    fn pop_until_leaves_later_events() {
        let mut q = EventQueue::default();
        q.push(Instant::from_millis(5), Event::Sample);
        assert!(q.pop_until(Instant::from_millis(4)).is_none());
        assert!(q.pop_until(Instant::from_millis(5)).is_some());
    }
}
