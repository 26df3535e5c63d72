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

#[derive(Clone, Copy, Debug)]
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
    /// The packet heap's root is the event returned last, not yet removed:
    /// most events schedule another at once, which then takes its place
    /// with one sift-down instead of a pop and a push.
    spent: bool,
    seq: u64,
    popped: u64,
}

impl EventQueue {
    pub fn push(&mut self, time: Instant, event: Event) {
        self.seq += 1;
        let entry = Entry { time, seq: self.seq, event };
        match event {
            Event::FlowTimer(_) => self.timers.push(entry),
            _ if self.spent => {
                self.spent = false;
                *self.heap.peek_mut().expect("a spent root is in the heap") = entry;
            }
            _ => self.heap.push(entry),
        }
    }

    /// The earliest event at or before `until`.
    pub fn pop_until(&mut self, until: Instant) -> Option<(Instant, Event)> {
        if std::mem::take(&mut self.spent) {
            self.heap.pop();
        }
        // `Entry`'s order is reversed: the greater entry is the earlier.
        let timer = match (self.heap.peek(), self.timers.peek()) {
            (Some(e), Some(t)) => t > e,
            (e, t) => e.is_none() && t.is_some(),
        };
        let e = if timer { *self.timers.peek()? } else { *self.heap.peek()? };
        if e.time > until {
            return None;
        }
        if timer {
            self.timers.pop();
        } else {
            self.spent = true;
        }
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
    fn events_scheduled_between_pops_keep_the_order() {
        let t = Instant::from_millis;
        let mut q = EventQueue::default();
        q.push(t(5), Event::LinkArrive(0));
        q.push(t(3), Event::LinkArrive(1));
        assert_eq!(q.pop_until(Instant::MAX), Some((t(3), Event::LinkArrive(1))));
        q.push(t(4), Event::FlowTimer(2));
        q.push(t(4), Event::LinkFree(3));
        q.push(t(3), Event::AckArrive(4));
        assert_eq!(q.pop_until(Instant::MAX), Some((t(3), Event::AckArrive(4))));
        assert_eq!(q.pop_until(t(3)), None);
        q.push(t(6), Event::LinkFree(5));
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(Instant::MAX)).map(|(_, e)| e).collect();
        assert_eq!(order, vec![Event::FlowTimer(2), Event::LinkFree(3), Event::LinkArrive(0), Event::LinkFree(5)]);
        assert_eq!(q.processed(), 6);
    }

    #[test]
    fn pop_until_leaves_later_events() {
        let mut q = EventQueue::default();
        q.push(Instant::from_millis(5), Event::Sample);
        assert!(q.pop_until(Instant::from_millis(4)).is_none());
        assert!(q.pop_until(Instant::from_millis(5)).is_some());
    }
}
