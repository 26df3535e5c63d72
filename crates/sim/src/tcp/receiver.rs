//! A TCP receiver whose application reads at once. It ACKs every second
//! full segment or after the delayed-ACK timer, at once on out-of-order data
//! (with SACK blocks, RFC 2018), echoes timestamps (RFC 7323), and
//! advertises the window its controller chooses, at most 3/4 of the
//! controller's receive buffer (tcp_adv_win_scale = 2), scaled and never
//! shrunk as Linux `tcp_select_window` does.

use crate::packet::{Kind, Packet, Sack};
use rtac_core::{AnyController, Controller, Duration, Instant};

/// Linux's minimum delayed-ACK timeout (TCP_DELACK_MIN, 40 ms).
pub const DELACK: Duration = Duration::from_millis(40);
/// Linux's default `tcp_rmem[2]`: its window scale is chosen to cover at
/// least this much (6 MB gives a scale of 7).
pub const LINUX_RMEM_MAX: u64 = 6 * 1024 * 1024;
/// RFC 7323's largest window scale.
pub const MAX_WSCALE: u8 = 14;
/// Linux's `tcp_adv_win_scale` on the phones of the RTAC (Galaxy S2,
/// Linux 3.0) and DRWA (Linux 2.6.35) papers: the default was 2 until
/// Linux 3.6 (commit b49960a05e32 made it 1), so a quarter of the receive
/// buffer is kept for overhead and three quarters may be advertised.
pub const ADV_WIN_SCALE: u32 = 2;

/// Linux `tcp_win_from_space` (include/net/tcp.h, before 6.6): the part of
/// a receive buffer of `space` bytes that may be advertised as window,
/// space - space / 2^tcp_adv_win_scale (3/4 of it).
pub fn win_from_space(space: u64) -> u64 {
    space - (space >> ADV_WIN_SCALE)
}

/// The window scale Linux (`tcp_select_initial_window`) picks for a
/// receive buffer limit: the smallest that lets the 16-bit window field
/// cover it, and never below what Linux's default buffer needs. A
/// controller without a limit of its own leaves the default buffer (6 MB,
/// scale 7, an 8.4 MB window) to decide, as a plain Linux receiver does.
pub fn window_scale(max_window: Option<u64>) -> u8 {
    let need = max_window.unwrap_or(0).max(LINUX_RMEM_MAX);
    (0..MAX_WSCALE).find(|&ws| 65_535u64 << ws >= need).unwrap_or(MAX_WSCALE)
}

#[derive(Debug)]
pub struct Receiver {
    flow: u32,
    mss: u32,
    controller: AnyController,
    /// Last segment of a finite flow and its size, for byte counts.
    last: Option<(u32, u32)>,
    rcv_nxt: u32,
    /// Out-of-order segment ranges, sorted, disjoint, above `rcv_nxt`.
    ooo: Vec<(u32, u32)>,
    /// The range holding the latest out-of-order arrival (first SACK block).
    latest: Option<u32>,
    unacked: u32,
    delack_at: Option<Instant>,
    ts_recent: Option<Instant>,
    last_ack_sent: u32,
    wscale: u8,
    /// Right edge of the advertised window, bytes.
    right_edge: u64,
    advertised: u64,
    delivered: u64,
    /// Epoch header of the latest data segment, echoed on ACKs.
    epoch: u32,
}

impl Receiver {
    pub fn new(flow: u32, mss: u32, controller: AnyController, bytes: Option<u64>) -> Self {
        let last = bytes.map(|b| {
            let segs = b.div_ceil(mss as u64).max(1);
            ((segs - 1) as u32, (b - (segs - 1) * mss as u64) as u32)
        });
        let wscale = window_scale(controller.max_window());
        let mut r = Receiver {
            flow,
            mss,
            controller,
            last,
            rcv_nxt: 0,
            ooo: Vec::new(),
            latest: None,
            unacked: 0,
            delack_at: None,
            ts_recent: None,
            last_ack_sent: 0,
            wscale: 0,
            right_edge: 0,
            advertised: 0,
            delivered: 0,
            epoch: 0,
        };
        r.wscale = wscale;
        r.advertised = r.select_window();
        r
    }

    /// The window offered in the handshake, before any data.
    pub fn initial_window(&self) -> u64 {
        self.advertised
    }
    /// The window in the last ACK, bytes.
    pub fn advertised(&self) -> u64 {
        self.advertised
    }
    pub fn delivered(&self) -> u64 {
        self.delivered
    }
    pub fn controller(&self) -> &AnyController {
        &self.controller
    }
    /// Puts `next` in the controller's place and returns the old one: a
    /// connection that has closed leaves a shared window budget this way.
    pub fn replace_controller(&mut self, next: AnyController) -> AnyController {
        std::mem::replace(&mut self.controller, next)
    }
    pub fn timer(&self) -> Option<Instant> {
        self.delack_at
    }
    /// A cross-layer hint from the access link, for the controller.
    pub fn on_bandwidth_hint(&mut self, now: Instant, total: rtac_core::Bandwidth, allocated: rtac_core::Bandwidth) {
        self.controller.on_bandwidth_hint(now, total, allocated);
    }

    fn max_window(&self) -> u64 {
        65_535u64 << self.wscale
    }

    /// Linux `tcp_select_window`: the controller's rwnd, at most what its
    /// receive buffer (`Controller::max_window`, tcp_rmem_max) may advertise
    /// ([`win_from_space`]: 3/4 of it), rounded down to the scale
    /// granularity, but never pulling the right edge back.
    fn select_window(&mut self) -> u64 {
        let gran = 1u64 << self.wscale;
        let max = self.max_window();
        let cap = self.controller.max_window().map_or(max, |space| win_from_space(space).min(max));
        let want = self.controller.rwnd().unwrap_or(max).min(cap).clamp(2 * self.mss as u64, max) / gran * gran;
        let left = self.rcv_nxt as u64 * self.mss as u64;
        let current = self.right_edge.saturating_sub(left);
        let win = if want < current { current.div_ceil(gran) * gran } else { want };
        self.right_edge = left + win;
        win
    }

    fn seg_bytes(&self, from: u32, to: u32) -> u64 {
        let mut b = (to - from) as u64 * self.mss as u64;
        if let Some((seq, len)) = self.last {
            if from <= seq && seq < to {
                b -= (self.mss - len) as u64;
            }
        }
        b
    }

    /// A data segment arrived; returns the bytes delivered to the application.
    pub fn on_data(&mut self, now: Instant, pkt: &Packet, out: &mut Vec<Packet>) -> u64 {
        let Kind::Data { seq, .. } = pkt.kind else { return 0 };
        self.epoch = pkt.epoch;
        // The sender echoes our ACK's timestamp: now - TSecr is one RTT as
        // the receiver sees it (Linux tcp_rcv_rtt_measure_ts).
        if let Some(echo) = pkt.tsecr {
            self.controller.on_rtt_sample(now, now - echo);
        }
        // RFC 7323 section 4.3: TS.Recent from segments at or before the last
        // ACK sent, so a delayed ACK echoes the earliest segment it covers.
        if seq <= self.last_ack_sent {
            self.ts_recent = Some(pkt.tsval);
        }
        if seq < self.rcv_nxt || self.ooo.iter().any(|&(a, b)| a <= seq && seq < b) {
            self.send_ack(now, out); // duplicate: ACK at once
            return 0;
        }
        if seq > self.rcv_nxt {
            if self.ooo.is_empty() {
                self.controller.on_sequence_hole(now);
            }
            self.insert_ooo(seq);
            self.send_ack(now, out);
            return 0;
        }
        let had_hole = !self.ooo.is_empty();
        let from = self.rcv_nxt;
        self.rcv_nxt += 1;
        while let Some(&(a, b)) = self.ooo.first() {
            if a != self.rcv_nxt {
                break;
            }
            self.rcv_nxt = b;
            self.ooo.remove(0);
        }
        if self.ooo.is_empty() {
            self.latest = None;
        }
        let bytes = self.seg_bytes(from, self.rcv_nxt);
        self.delivered += bytes;
        // The application reads at once: RTAC Algorithm 1 / DRWA line 19
        // run "on copying data to user space".
        self.controller.on_data_consumed(now, bytes);
        self.unacked += 1;
        if had_hole || self.unacked >= 2 || self.last.is_some_and(|(s, _)| self.rcv_nxt > s) {
            self.send_ack(now, out);
        } else if self.delack_at.is_none() {
            self.delack_at = Some(now + DELACK);
        }
        bytes
    }

    fn insert_ooo(&mut self, seq: u32) {
        let i = self.ooo.partition_point(|&(_, b)| b < seq);
        match self.ooo.get_mut(i) {
            Some(r) if r.1 == seq => {
                r.1 += 1;
                if let Some(&(a2, b2)) = self.ooo.get(i + 1) {
                    if a2 == seq + 1 {
                        self.ooo[i].1 = b2;
                        self.ooo.remove(i + 1);
                    }
                }
            }
            Some(r) if r.0 == seq + 1 => r.0 = seq,
            _ => self.ooo.insert(i, (seq, seq + 1)),
        }
        self.latest = Some(seq);
    }

    /// The delayed-ACK timer fired (if `now` is its deadline).
    pub fn on_timer(&mut self, now: Instant, out: &mut Vec<Packet>) {
        if self.delack_at.is_some_and(|t| t <= now) {
            self.send_ack(now, out);
        }
    }

    fn send_ack(&mut self, now: Instant, out: &mut Vec<Packet>) {
        let mut sack = Sack::default();
        // RFC 2018: the block with the latest arrival first, then the others
        // from the highest down.
        if let Some(l) = self.latest {
            if let Some(&b) = self.ooo.iter().find(|&&(a, b)| a <= l && l < b) {
                sack.push(b);
            }
        }
        for &b in self.ooo.iter().rev() {
            if sack.iter().all(|x| x != b) {
                sack.push(b);
            }
        }
        let win = self.select_window();
        self.advertised = win;
        self.last_ack_sent = self.rcv_nxt;
        self.unacked = 0;
        self.delack_at = None;
        out.push(Packet {
            flow: self.flow,
            hop: 0,
            kind: Kind::Ack { ack: self.rcv_nxt, win, sack },
            tsval: now,
            tsecr: self.ts_recent,
            epoch: self.epoch,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtac_core::controller::{ControllerKind, Params};

    const MSS: u32 = 1000;

    fn rx(kind: ControllerKind, params: &str) -> Receiver {
        let c = AnyController::new(kind, MSS, &Params::parse_list(params).unwrap()).unwrap();
        Receiver::new(0, MSS, c, None)
    }

    fn data(seq: u32, tsval: Instant) -> Packet {
        Packet { flow: 0, hop: 0, kind: Kind::Data { seq, len: MSS, retransmit: false }, tsval, tsecr: None, epoch: 0 }
    }

    fn acks(out: &[Packet]) -> Vec<(u32, Vec<(u32, u32)>)> {
        out.iter()
            .map(|p| match p.kind {
                Kind::Ack { ack, sack, .. } => (ack, sack.iter().collect()),
                _ => panic!(),
            })
            .collect()
    }

    #[test]
    fn acks_every_second_segment_and_delays_the_odd_one() {
        let mut r = rx(ControllerKind::None, "");
        let mut out = Vec::new();
        let t = Instant::from_millis(1);
        r.on_data(t, &data(0, t), &mut out);
        assert!(out.is_empty());
        assert_eq!(r.timer(), Some(t + DELACK));
        r.on_data(t, &data(1, t), &mut out);
        assert_eq!(acks(&out), vec![(2, vec![])]);
        out.clear();
        r.on_data(t, &data(2, t), &mut out);
        r.on_timer(t + DELACK, &mut out);
        assert_eq!(acks(&out), vec![(3, vec![])]);
        assert_eq!(r.delivered(), 3 * MSS as u64);
    }

    #[test]
    fn out_of_order_data_is_acked_at_once_with_sack_blocks() {
        let mut r = rx(ControllerKind::None, "");
        let mut out = Vec::new();
        let t = Instant::ZERO;
        for s in [0, 2, 3, 5] {
            r.on_data(t, &data(s, t), &mut out);
        }
        let a = acks(&out);
        assert_eq!(a[0], (1, vec![(2, 3)]));
        assert_eq!(a[1], (1, vec![(2, 4)]));
        assert_eq!(a[2], (1, vec![(5, 6), (2, 4)]), "latest block first");
        out.clear();
        r.on_data(t, &data(1, t), &mut out);
        assert_eq!(acks(&out), vec![(4, vec![(5, 6)])], "filling a hole is ACKed at once");
    }

    #[test]
    fn delayed_ack_echoes_the_earliest_unacknowledged_timestamp() {
        let mut r = rx(ControllerKind::None, "");
        let mut out = Vec::new();
        r.on_data(Instant::from_millis(10), &data(0, Instant::from_millis(1)), &mut out);
        r.on_data(Instant::from_millis(11), &data(1, Instant::from_millis(2)), &mut out);
        assert_eq!(out[0].tsecr, Some(Instant::from_millis(1)));
    }

    #[test]
    fn advertises_three_quarters_of_the_static_buffer_and_never_shrinks_the_right_edge() {
        let mut r = rx(ControllerKind::Static, "rmem_max=64KB");
        let mut out = Vec::new();
        let t = Instant::ZERO;
        r.on_data(t, &data(0, t), &mut out);
        r.on_data(t, &data(1, t), &mut out);
        let Kind::Ack { win, .. } = out[0].kind else { panic!() };
        assert_eq!(win, 49_152, "tcp_win_from_space(64 KB) with tcp_adv_win_scale = 2");
        // A smaller controller window cannot pull the edge back.
        r.controller =
            AnyController::new(ControllerKind::Static, MSS, &Params::parse_list("rmem_max=8KB").unwrap()).unwrap();
        out.clear();
        r.on_data(t, &data(2, t), &mut out);
        r.on_data(t, &data(3, t), &mut out);
        let Kind::Ack { ack, win, .. } = out[0].kind else { panic!() };
        let (edge, old_edge) = (ack as u64 * MSS as u64 + win, 2 * MSS as u64 + 49_152);
        assert!(
            edge >= old_edge && edge < old_edge + 128,
            "right edge kept (up to scale rounding): {edge} vs {old_edge}"
        );
    }

    #[test]
    fn every_controller_with_a_buffer_advertises_at_most_three_quarters_of_it() {
        // The DRWA paper's phone: tcp_rmem_max 262,144 B advertises 196,608 B.
        assert_eq!(win_from_space(262_144), 196_608);
        // Auto-tuning with a window estimate far above its buffer: its rwnd
        // (RTAC eq. (12)) is the whole buffer, the advertisement 3/4 of it.
        for (kind, params) in [
            (ControllerKind::Autotuning, "rmem_max=256KB,init_rwnd=1MB"),
            (ControllerKind::Static, "rmem_max=256KB"),
            (ControllerKind::Drwa, "rmem_max=256KB,init_rwnd=1MB"),
            (ControllerKind::Rtac, "rmem_max=256KB,init_rwnd=1MB"),
        ] {
            let r = rx(kind, params);
            assert_eq!(r.controller.rwnd(), Some(262_144), "{kind:?}");
            assert_eq!(r.initial_window(), 196_608, "{kind:?}");
        }
        // Control: a controller without a buffer of its own is not cut.
        assert_eq!(rx(ControllerKind::None, "").initial_window(), 65_535 << 7);
    }

    #[test]
    fn unlimited_controller_advertises_the_full_scaled_window() {
        let r = rx(ControllerKind::None, "");
        assert_eq!(r.initial_window(), (65_535u64 << 7) & !127, "Linux's default buffer decides");
    }

    #[test]
    fn window_scale_covers_the_buffer_limit_as_linux_picks_it() {
        assert_eq!(window_scale(Some(2_621_440)), 7, "below tcp_rmem[2] = 6 MB: Linux's default scale");
        assert_eq!(window_scale(Some(64 << 20)), 11, "64 MiB is just over 65535 << 10");
        assert_eq!(window_scale(None), 7);
        let r = rx(ControllerKind::Static, "rmem_max=64MB");
        assert_eq!(r.initial_window(), 48 << 20, "a 64 MB buffer advertises its 3/4");
    }
}
