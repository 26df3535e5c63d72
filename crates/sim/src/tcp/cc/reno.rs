//! TCP Reno/NewReno window growth (RFC 5681), as Linux `tcp_reno_cong_avoid`.

use super::{Ack, CongestionControl, Window};
use rtac_core::Instant;

#[derive(Clone, Copy, Debug, Default)]
pub struct Reno;

impl CongestionControl for Reno {
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        let mut acked = ack.acked;
        if w.in_slow_start() {
            // RFC 5681 section 3.1: cwnd += SMSS per ACKed SMSS in slow start.
            acked = w.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        // RFC 5681 eq. (3): cwnd += SMSS*SMSS/cwnd per ACK, i.e. one segment
        // per window of ACKed segments.
        w.additive_increase(w.cwnd, acked);
    }

    fn ssthresh(&mut self, w: &Window, _now: Instant) -> u32 {
        // RFC 5681 eq. (4), with FlightSize taken as cwnd as Linux does.
        (w.cwnd / 2).max(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(acked: u32) -> Ack {
        Ack { now: Instant::ZERO, acked, ..Ack::default() }
    }

    #[test]
    fn slow_start_doubles_the_window_per_round() {
        let mut w = Window::INITIAL;
        let mut r = Reno;
        for _ in 0..10 {
            r.on_ack(&mut w, &ack(1));
        }
        assert_eq!(w.cwnd, 20);
    }

    #[test]
    fn congestion_avoidance_adds_one_segment_per_round_trip() {
        let mut w = Window { cwnd: 100, ssthresh: 50, cwnd_cnt: 0 };
        let mut r = Reno;
        for _round in 0..5 {
            let cwnd = w.cwnd;
            for _ in 0..cwnd {
                r.on_ack(&mut w, &ack(1));
            }
        }
        assert_eq!(w.cwnd, 105);
    }

    #[test]
    fn loss_halves_the_window() {
        let w = Window { cwnd: 101, ssthresh: 50, cwnd_cnt: 0 };
        assert_eq!(Reno.ssthresh(&w, Instant::ZERO), 50);
        let w = Window { cwnd: 3, ssthresh: 50, cwnd_cnt: 0 };
        assert_eq!(Reno.ssthresh(&w, Instant::ZERO), 2);
    }
}
