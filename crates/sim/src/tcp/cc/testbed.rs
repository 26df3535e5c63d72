//! Test-only: a minimal ACK clock through one FIFO bottleneck, for
//! formula-level tests of window-based controls without the full sender.
//! Every segment is ACKed on its own, nothing is lost, the control is
//! always cwnd-limited, and the receiver echoes each segment's epoch.

use super::{Ack, CongestionControl, Window};
use rtac_core::{Duration, Instant};
use std::collections::VecDeque;

pub struct Bottleneck {
    /// Segments per second the bottleneck serves.
    pub rate: f64,
    /// Two-way propagation delay (half before the receiver, half back).
    pub base: Duration,
    last_depart: Instant,
    /// Segments in flight: (ACK arrival, send time, receiver time, epoch).
    flight: VecDeque<(Instant, Instant, Instant, u32)>,
    una: u32,
    nxt: u32,
    min_rtt: Option<Duration>,
}

/// One ACK as the control saw it.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub now: Instant,
    pub cwnd: u32,
    pub rtt: Duration,
    /// Segments queued at the bottleneck when the ACKed segment was sent.
    pub queue: f64,
}

impl Bottleneck {
    pub fn new(rate: f64, base: Duration) -> Self {
        Bottleneck { rate, base, last_depart: Instant::ZERO, flight: VecDeque::new(), una: 0, nxt: 0, min_rtt: None }
    }

    /// Bandwidth-delay product in segments.
    pub fn bdp(&self) -> f64 {
        self.rate * self.base.as_secs_f64()
    }

    fn send<C: CongestionControl>(&mut self, cc: &C, w: &Window, now: Instant) {
        let service = Duration::from_secs_f64(1.0 / self.rate);
        while self.nxt - self.una < w.cwnd {
            let depart = self.last_depart.max(now) + service;
            self.last_depart = depart;
            let at_receiver = depart + self.base.div(2);
            self.flight.push_back((depart + self.base, now, at_receiver, cc.epoch()));
            self.nxt += 1;
        }
    }

    /// Runs until `end`, returning every ACK's step.
    pub fn run<C: CongestionControl>(&mut self, cc: &mut C, w: &mut Window, start: Instant, end: Instant) -> Vec<Step> {
        let mut out = Vec::new();
        if self.flight.is_empty() {
            self.send(cc, w, start);
        }
        while let Some(&(at, sent, rx, epoch)) = self.flight.front() {
            if at > end {
                break;
            }
            self.flight.pop_front();
            self.una += 1;
            let rtt = at - sent;
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
            let ack = Ack {
                now: at,
                acked: 1,
                delivered: 1,
                rtt: Some(rtt),
                min_rtt: self.min_rtt,
                snd_una: self.una,
                snd_nxt: self.nxt,
                in_flight: self.nxt - self.una,
                peer_tsval: rx,
                epoch_echo: epoch,
                ..Ack::default()
            };
            let queue = ((rtt.as_secs_f64() - self.base.as_secs_f64()) * self.rate).max(0.0);
            cc.on_rtt_sample(w, &ack);
            cc.on_ack(w, &ack);
            out.push(Step { now: at, cwnd: w.cwnd, rtt, queue });
            self.send(cc, w, at);
        }
        out
    }
}
