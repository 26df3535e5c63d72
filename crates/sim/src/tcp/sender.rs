//! A bulk-transfer TCP sender: SACK scoreboard with RFC 6675 loss
//! detection, Proportional Rate Reduction (RFC 6937) in fast recovery, RTO
//! with exponential backoff (RFC 6298, Linux's 200 ms minimum), timestamps
//! (RFC 7323), and flow control: it sends while in-flight < cwnd and the
//! segment fits in the receiver's advertised window.

use super::cc::{Ack, AnyCc, CaState, CongestionControl, RateSample, Window};
use crate::packet::{Kind, Packet, Sack, HEADER_BYTES};
use rtac_core::{Duration, Instant};
use std::collections::VecDeque;

/// Scoreboard flags per outstanding segment.
const SACKED: u8 = 1;
const LOST: u8 = 2;
const RETRANS: u8 = 4;

/// RFC 6675 DupThresh.
const DUPTHRESH: u32 = 3;
/// Linux TCP_RTO_MIN and TCP_RTO_MAX; RFC 6298 initial RTO of 1 s.
const RTO_MIN: Duration = Duration::from_millis(200);
const RTO_MAX: Duration = Duration::from_secs(120);
const RTO_INIT: Duration = Duration::from_secs(1);

/// One outstanding segment: scoreboard flags and the delivery-rate
/// snapshot taken when it was (re)sent (Linux `tcp_rate_skb_sent`).
#[derive(Clone, Copy, Debug)]
struct Seg {
    flags: u8,
    app_limited: bool,
    sent: Instant,
    first_sent: Instant,
    delivered: u64,
    delivered_time: Instant,
    /// `snd_nxt` when this segment was last retransmitted: once a segment
    /// at or above it is SACKed, that retransmission is lost too.
    retx_mark: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Open,
    /// Fast recovery until `recover` is cumulatively ACKed, with PRR's
    /// counters (RFC 6937 section 3).
    Recovery {
        recover: u32,
        prr_delivered: u32,
        prr_out: u32,
        recover_fs: u32,
    },
    /// After a retransmission timeout, until `recover` is ACKed.
    Loss {
        recover: u32,
    },
}

/// Per-flow counters a run reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
}

#[derive(Clone, Debug)]
pub struct Sender {
    flow: u32,
    mss: u32,
    cc: AnyCc,
    w: Window,
    /// Segments to send in all (`None`: unlimited) and the last one's size.
    total: Option<u32>,
    last_len: u32,
    una: u32,
    nxt: u32,
    /// Segments `una..nxt`.
    board: VecDeque<Seg>,
    sacked_out: u32,
    lost_out: u32,
    retrans_out: u32,
    /// Segments marked lost and not yet retransmitted.
    retx_pending: u32,
    high_sacked: Option<u32>,
    /// Loss marking has covered every segment below this.
    lost_hint: u32,
    /// No segment below this awaits retransmission.
    retx_hint: u32,
    /// Retransmissions in the order sent, with snd_nxt then (non-decreasing).
    retx_queue: VecDeque<(u32, u32)>,
    /// The SACK blocks of the previous ACK.
    sack_cache: Sack,
    state: State,
    /// Receiver's right window edge in bytes (ack * mss + window).
    wnd_edge: u64,
    /// Whether the last send pass stopped because of cwnd.
    cwnd_limited: bool,
    srtt: Option<Duration>,
    rttvar: Duration,
    rto: Duration,
    backoff: u32,
    rto_at: Option<Instant>,
    /// TS.Recent: the receiver's latest TSval, echoed in TSecr.
    ts_recent: Option<Instant>,
    min_rtt: Option<Duration>,
    /// Delivery-rate state (Linux `tcp_rate.c`): segments delivered, when
    /// the last was, when the current send flight started, and the
    /// `delivered` count that ends an application-limited phase (0: none).
    delivered: u64,
    delivered_time: Instant,
    first_sent: Instant,
    app_limited_until: u64,
    /// Pacing: the earliest time the next packet may leave, and whether a
    /// send pass is waiting for it.
    next_send: Instant,
    pace_at: Option<Instant>,
    finished_at: Option<Instant>,
    stats: SenderStats,
}

impl Sender {
    /// A sender of `bytes` (or an endless bulk transfer) whose receiver
    /// initially offers `initial_window` bytes.
    pub fn new(flow: u32, mss: u32, cc: AnyCc, bytes: Option<u64>, initial_window: u64) -> Self {
        let (total, last_len) = match bytes {
            Some(b) => {
                let segs = b.div_ceil(mss as u64).max(1);
                let last = b - (segs - 1) * mss as u64;
                (Some(segs.min(u32::MAX as u64) as u32), last as u32)
            }
            None => (None, mss),
        };
        Sender {
            flow,
            mss,
            cc,
            w: Window::INITIAL,
            total,
            last_len,
            una: 0,
            nxt: 0,
            board: VecDeque::new(),
            sacked_out: 0,
            lost_out: 0,
            retrans_out: 0,
            retx_pending: 0,
            high_sacked: None,
            lost_hint: 0,
            retx_hint: 0,
            retx_queue: VecDeque::new(),
            sack_cache: Sack::default(),
            state: State::Open,
            wnd_edge: initial_window,
            cwnd_limited: false,
            srtt: None,
            rttvar: Duration::ZERO,
            rto: RTO_INIT,
            backoff: 0,
            rto_at: None,
            ts_recent: None,
            min_rtt: None,
            delivered: 0,
            delivered_time: Instant::ZERO,
            first_sent: Instant::ZERO,
            app_limited_until: 0,
            next_send: Instant::ZERO,
            pace_at: None,
            finished_at: None,
            stats: SenderStats::default(),
        }
    }

    pub fn stats(&self) -> SenderStats {
        self.stats
    }
    pub fn cwnd_bytes(&self) -> u64 {
        self.w.cwnd as u64 * self.mss as u64
    }
    pub fn window(&self) -> Window {
        self.w
    }
    pub fn in_flight_bytes(&self) -> u64 {
        self.in_flight() as u64 * self.mss as u64
    }
    pub fn srtt(&self) -> Option<Duration> {
        self.srtt
    }
    /// When every byte of a finite flow was acknowledged.
    pub fn finished_at(&self) -> Option<Instant> {
        self.finished_at
    }
    /// The earliest of the retransmission timer and the pacing timer.
    pub fn timer(&self) -> Option<Instant> {
        match (self.rto_at, self.pace_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Linux `tcp_packets_in_flight`: outstanding segments not SACKed and not
    /// presumed lost, plus retransmissions still out (RFC 6675 "pipe").
    fn in_flight(&self) -> u32 {
        (self.nxt - self.una) - self.sacked_out - self.lost_out + self.retrans_out
    }

    fn flags(&self, seq: u32) -> u8 {
        self.board[(seq - self.una) as usize].flags
    }

    /// Sets a segment's flags, keeping the scoreboard counters in step.
    fn set_flags(&mut self, seq: u32, new: u8) {
        let slot = &mut self.board[(seq - self.una) as usize].flags;
        let old = *slot;
        *slot = new;
        self.count(old, false);
        self.count(new, true);
    }

    fn count(&mut self, f: u8, add: bool) {
        let d = |c: &mut u32, on: bool| {
            if on {
                if add {
                    *c += 1
                } else {
                    *c -= 1
                }
            }
        };
        d(&mut self.sacked_out, f & SACKED != 0);
        d(&mut self.lost_out, f & LOST != 0);
        d(&mut self.retrans_out, f & RETRANS != 0);
        d(&mut self.retx_pending, f & (LOST | RETRANS) == LOST);
    }

    fn seg_len(&self, seq: u32) -> u32 {
        if Some(seq + 1) == self.total {
            self.last_len
        } else {
            self.mss
        }
    }

    /// Stops sending new data (the application closes); what is
    /// outstanding is still delivered.
    pub fn stop(&mut self) {
        if self.total.is_none_or(|t| t > self.nxt) {
            self.total = Some(self.nxt);
            self.last_len = self.mss;
        }
    }

    /// Starts the transfer: sends the initial window.
    pub fn start(&mut self, now: Instant, out: &mut Vec<Packet>) {
        self.transmit(now, out);
    }

    /// Processes an ACK; returns the RTT sample it gave, if any.
    pub fn on_ack(&mut self, now: Instant, pkt: &Packet, out: &mut Vec<Packet>) -> Option<Duration> {
        let Kind::Ack { ack, win, sack } = pkt.kind else { return None };
        if ack > self.nxt {
            return None; // acknowledges data never sent: ignore, as TCP does
        }
        self.ts_recent = Some(pkt.tsval);
        self.wnd_edge = ack as u64 * self.mss as u64 + win;

        let acked = ack.saturating_sub(self.una);
        let mut rs = RateTrack::default();
        let lost_before = self.lost_out;
        let mut delivered = 0;
        for _ in 0..acked {
            let seg = self.board.pop_front().expect("scoreboard covers una..nxt");
            self.count(seg.flags, false);
            if seg.flags & SACKED == 0 {
                rs.on_delivered(&seg);
                delivered += 1;
            }
        }
        if acked > 0 {
            self.una = ack;
            self.lost_hint = self.lost_hint.max(ack);
            self.retx_hint = self.retx_hint.max(ack);
            if self.high_sacked.is_some_and(|h| h < ack) {
                self.high_sacked = None;
            }
            self.backoff = 0;
        }
        let sacked = self.apply_sack(&sack, &mut rs);
        delivered += sacked;
        if delivered > 0 {
            self.delivered += delivered as u64;
            self.delivered_time = now;
            if let Some(first) = rs.first_sent {
                self.first_sent = first;
            }
            if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
                self.app_limited_until = 0;
            }
        }

        // RFC 7323 section 4.3: RTT from the echoed timestamp, on ACKs that
        // bring new information.
        let rtt = match pkt.tsecr {
            Some(t) if acked > 0 || sacked > 0 => Some(now - t),
            _ => None,
        };
        if let Some(r) = rtt {
            self.update_rto(r);
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        }

        self.mark_lost();
        self.mark_lost_retransmissions();
        match self.state {
            State::Open if self.lost_out > 0 => self.enter_recovery(now),
            State::Recovery { recover, .. } | State::Loss { recover } if self.una >= recover => {
                if matches!(self.state, State::Recovery { .. }) && !self.cc.full_control() {
                    // Linux tcp_end_cwnd_reduction: settle at ssthresh.
                    self.w.cwnd = self.w.ssthresh.max(1);
                }
                self.state = State::Open;
                self.cc.on_state(&mut self.w, CaState::Open);
            }
            _ => {}
        }

        let info = Ack {
            now,
            acked,
            delivered,
            lost: self.lost_out.saturating_sub(lost_before),
            rtt,
            min_rtt: self.min_rtt,
            snd_una: self.una,
            snd_nxt: self.nxt,
            in_flight: self.in_flight(),
            rate: rs.sample(self.delivered, self.delivered_time, self.min_rtt),
            peer_tsval: pkt.tsval,
            epoch_echo: pkt.epoch,
        };
        if rtt.is_some() {
            self.cc.on_rtt_sample(&mut self.w, &info);
        }
        match &mut self.state {
            _ if self.cc.full_control() => self.cc.on_ack(&mut self.w, &info),
            State::Recovery { prr_delivered, prr_out, recover_fs, .. } => {
                // RFC 6937 section 3.1, on every ACK in recovery.
                *prr_delivered += acked + sacked;
                let pipe = (self.nxt - self.una) - self.sacked_out - self.lost_out + self.retrans_out;
                let ssthresh = self.w.ssthresh;
                let sndcnt = if pipe > ssthresh {
                    // Proportional part: ceil(prr_delivered * ssthresh / RecoverFS) - prr_out.
                    let target = (*prr_delivered as u64 * ssthresh as u64).div_ceil((*recover_fs).max(1) as u64);
                    target.saturating_sub(*prr_out as u64) as u32
                } else {
                    // Slow-start reduction bound (PRR-SSRB).
                    let limit = prr_delivered.saturating_sub(*prr_out).max(acked + sacked) + 1;
                    (ssthresh - pipe).min(limit)
                };
                self.w.cwnd = pipe + sndcnt;
            }
            _ => {
                let limited = self.cwnd_limited || (self.w.in_slow_start() && self.w.cwnd < 2 * self.in_flight());
                if acked > 0 && limited {
                    self.cc.on_ack(&mut self.w, &info);
                }
            }
        }

        if acked > 0 {
            // RFC 6298 (5.2)/(5.3): restart the timer on new data ACKed.
            self.rto_at = (self.una < self.nxt).then(|| now + self.current_rto());
        }
        if self.total.is_some_and(|t| self.una >= t) && self.finished_at.is_none() {
            self.finished_at = Some(now);
        }
        self.transmit(now, out);
        rtt
    }

    /// Marks SACKed segments; returns how many were newly SACKed.
    fn apply_sack(&mut self, sack: &Sack, rs: &mut RateTrack) -> u32 {
        let mut newly = 0;
        let cache = self.sack_cache;
        for (start, end) in sack.iter() {
            let (start, end) = (start.max(self.una), end.min(self.nxt));
            // Segments inside the previous ACK's blocks are SACKed already
            // (Linux's recv_sack_cache): scan only the rest of the block.
            let mut pieces: [(u32, u32); 4] = [(start, end), (0, 0), (0, 0), (0, 0)];
            let mut np = 1;
            for (cs, ce) in cache.iter() {
                let mut next = [(0, 0); 4];
                let mut nn = 0;
                for &(a, b) in &pieces[..np] {
                    if ce <= a || cs >= b {
                        next[nn] = (a, b);
                        nn += 1;
                    } else {
                        if a < cs {
                            next[nn] = (a, cs);
                            nn += 1;
                        }
                        if ce < b {
                            next[nn] = (ce, b);
                            nn += 1;
                        }
                    }
                }
                pieces = next;
                np = nn;
            }
            for &(a, b) in &pieces[..np] {
                for seq in a..b {
                    if self.flags(seq) & SACKED == 0 {
                        self.set_flags(seq, SACKED);
                        rs.on_delivered(&self.board[(seq - self.una) as usize]);
                        newly += 1;
                    }
                }
            }
            if start < end && self.high_sacked.is_none_or(|h| h < end - 1) {
                self.high_sacked = Some(end - 1);
            }
        }
        self.sack_cache = *sack;
        newly
    }

    /// RFC 6675 IsLost: a segment is lost once DupThresh segments above it
    /// are SACKed. Those segments form a prefix of the scoreboard, so scan
    /// down from the highest SACK to find its end, then mark the new part.
    fn mark_lost(&mut self) {
        let Some(high) = self.high_sacked else { return };
        let mut count = 0;
        let mut seq = high + 1;
        while seq > self.lost_hint {
            seq -= 1;
            if self.flags(seq) & SACKED != 0 {
                count += 1;
                if count == DUPTHRESH {
                    break;
                }
            }
        }
        if count < DUPTHRESH {
            return;
        }
        for s in self.lost_hint..seq {
            if self.flags(s) == 0 {
                self.set_flags(s, LOST);
            }
        }
        self.lost_hint = seq;
    }

    /// A retransmission is lost too once a segment sent after it has been
    /// delivered (Linux's `tcp_mark_lost_retrans`, the idea RACK
    /// generalises): mark it for retransmission again rather than wait for
    /// the timer.
    fn mark_lost_retransmissions(&mut self) {
        if self.retrans_out == 0 {
            self.retx_queue.clear();
            return;
        }
        let Some(high) = self.high_sacked else { return };
        while let Some(&(s, mark)) = self.retx_queue.front() {
            if high < mark {
                break;
            }
            self.retx_queue.pop_front();
            if s < self.una || s >= self.nxt {
                continue;
            }
            let seg = self.board[(s - self.una) as usize];
            if seg.flags & (SACKED | RETRANS) == RETRANS && seg.retx_mark == mark {
                self.set_flags(s, LOST);
                self.retx_hint = self.retx_hint.min(s);
            }
        }
    }

    fn enter_recovery(&mut self, now: Instant) {
        self.w.ssthresh = self.cc.ssthresh(&self.w, now);
        self.w.cwnd_cnt = 0;
        self.cc.on_state(&mut self.w, CaState::Recovery);
        self.state = State::Recovery {
            recover: self.nxt,
            prr_delivered: 0,
            prr_out: 0,
            // RFC 6937: RecoverFS = pipe when recovery starts.
            recover_fs: self.in_flight() + self.lost_out - self.retrans_out,
        };
    }

    /// RFC 6298 section 2 with Linux's floor on the variance term.
    fn update_rto(&mut self, r: Duration) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r.div(2);
            }
            Some(s) => {
                let err = if s > r { s - r } else { r - s };
                self.rttvar = (self.rttvar.mul(3) + err).div(4);
                self.srtt = Some((s.mul(7) + r).div(8));
            }
        }
        let s = self.srtt.unwrap_or(r);
        self.rto = (s + self.rttvar.mul(4).max(RTO_MIN)).min(RTO_MAX);
    }

    fn current_rto(&self) -> Duration {
        self.rto.mul(1u64 << self.backoff.min(16)).min(RTO_MAX)
    }

    /// A timer fired: the pacing timer releases the next packet; the
    /// retransmission timer (if `now` is its deadline) starts loss recovery.
    pub fn on_timer(&mut self, now: Instant, out: &mut Vec<Packet>) {
        if self.pace_at.is_some_and(|t| t <= now) {
            self.pace_at = None;
            self.transmit(now, out);
        }
        match self.rto_at {
            Some(t) if t <= now && self.una < self.nxt => {}
            _ => return,
        }
        self.stats.timeouts += 1;
        // Linux tcp_enter_loss: a new ssthresh unless this is a repeated
        // timeout of the same loss episode.
        if !matches!(self.state, State::Loss { .. }) {
            self.w.ssthresh = self.cc.ssthresh(&self.w, now);
        }
        self.cc.on_timeout(now);
        self.w.cwnd = 1;
        self.w.cwnd_cnt = 0;
        self.cc.on_state(&mut self.w, CaState::Loss);
        for seq in self.una..self.nxt {
            if self.flags(seq) & SACKED == 0 {
                self.set_flags(seq, LOST);
            }
        }
        self.retx_hint = self.una;
        self.lost_hint = self.nxt;
        self.state = State::Loss { recover: self.nxt };
        // RFC 6298 (5.5): back off the timer.
        self.backoff += 1;
        self.rto_at = Some(now + self.current_rto());
        self.transmit(now, out);
    }

    /// Sends what cwnd, the receiver's window and the data allow:
    /// retransmissions first, then new segments.
    fn transmit(&mut self, now: Instant, out: &mut Vec<Packet>) {
        let mut sent = false;
        let pacing = self.cc.pacing_rate();
        loop {
            if self.in_flight() >= self.w.cwnd {
                self.cwnd_limited = true;
                break;
            }
            if pacing.is_some() && now < self.next_send {
                self.pace_at = Some(self.next_send);
                break;
            }
            let (seq, retransmit) = if self.retx_pending > 0 {
                let mut s = self.retx_hint;
                while self.flags(s) & (SACKED | LOST | RETRANS) != LOST {
                    s += 1;
                }
                self.retx_hint = s + 1;
                self.set_flags(s, LOST | RETRANS);
                self.board[(s - self.una) as usize].retx_mark = self.nxt;
                self.retx_queue.push_back((s, self.nxt));
                self.stats.retransmits += 1;
                (s, true)
            } else {
                let seq = self.nxt;
                let end = seq as u64 * self.mss as u64 + self.seg_len(seq) as u64;
                if self.total.is_some_and(|t| seq >= t) || end > self.wnd_edge {
                    self.cwnd_limited = false;
                    if self.total.is_some_and(|t| seq >= t) {
                        // Linux tcp_rate_check_app_limited: no more data.
                        self.app_limited_until = (self.delivered + self.in_flight() as u64).max(1);
                    }
                    break;
                }
                self.nxt += 1;
                self.board.push_back(Seg {
                    flags: 0,
                    app_limited: false,
                    sent: now,
                    first_sent: now,
                    delivered: 0,
                    delivered_time: now,
                    retx_mark: 0,
                });
                (seq, false)
            };
            self.rate_on_send(seq, now);
            if let Some(rate) = pacing {
                self.next_send =
                    self.next_send.max(now) + rate.serialization((self.seg_len(seq) + HEADER_BYTES) as u64);
            }
            if let State::Recovery { prr_out, .. } = &mut self.state {
                *prr_out += 1;
            }
            self.stats.sent += 1;
            sent = true;
            out.push(Packet {
                flow: self.flow,
                hop: 0,
                kind: Kind::Data { seq, len: self.seg_len(seq), retransmit },
                tsval: now,
                tsecr: self.ts_recent,
                epoch: self.cc.epoch(),
            });
        }
        if sent && self.rto_at.is_none() {
            self.rto_at = Some(now + self.current_rto());
        }
    }
}

impl Sender {
    /// Linux `tcp_rate_skb_sent`: snapshot the delivery state in the segment.
    fn rate_on_send(&mut self, seq: u32, now: Instant) {
        if self.in_flight() == 0 {
            self.first_sent = now;
            self.delivered_time = now;
        }
        let (first_sent, delivered, delivered_time) = (self.first_sent, self.delivered, self.delivered_time);
        let app_limited = self.app_limited_until != 0;
        let seg = &mut self.board[(seq - self.una) as usize];
        seg.sent = now;
        seg.first_sent = first_sent;
        seg.delivered = delivered;
        seg.delivered_time = delivered_time;
        seg.app_limited = app_limited;
    }
}

/// Builds one ACK's delivery-rate sample from the segments it delivered
/// (Linux `tcp_rate_skb_delivered` and `tcp_rate_gen`).
#[derive(Default)]
struct RateTrack {
    prior_delivered: Option<u64>,
    prior_time: Instant,
    send_elapsed: Duration,
    first_sent: Option<Instant>,
    app_limited: bool,
}

impl RateTrack {
    fn on_delivered(&mut self, seg: &Seg) {
        // Use the most recently sent of the delivered segments.
        if self.prior_delivered.is_none_or(|p| seg.delivered > p) || self.first_sent.is_some_and(|f| seg.sent > f) {
            self.prior_delivered = Some(seg.delivered);
            self.prior_time = seg.delivered_time;
            self.send_elapsed = seg.sent - seg.first_sent;
            self.first_sent = Some(seg.sent);
            self.app_limited = seg.app_limited;
        }
    }

    fn sample(&self, delivered: u64, delivered_time: Instant, min_rtt: Option<Duration>) -> Option<RateSample> {
        let prior = self.prior_delivered?;
        let ack_elapsed = delivered_time - self.prior_time;
        let interval = self.send_elapsed.max(ack_elapsed);
        // Intervals shorter than the minimum RTT come from ACK compression.
        if interval.is_zero() || min_rtt.is_some_and(|m| interval < m) {
            return None;
        }
        Some(RateSample { delivered: delivered - prior, interval, app_limited: self.app_limited })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::CcKind;

    fn ack_pkt(ack: u32, win: u64, sack: &[(u32, u32)], tsecr: Instant) -> Packet {
        let mut s = Sack::default();
        for &b in sack {
            s.push(b);
        }
        Packet { flow: 0, hop: 0, kind: Kind::Ack { ack, win, sack: s }, tsval: tsecr, tsecr: Some(tsecr), epoch: 0 }
    }

    fn seqs(out: &[Packet]) -> Vec<u32> {
        out.iter()
            .map(|p| match p.kind {
                Kind::Data { seq, .. } => seq,
                _ => panic!("not data"),
            })
            .collect()
    }

    const MSS: u32 = 1000;

    #[test]
    fn sends_the_initial_window_of_ten_segments() {
        let mut s = Sender::new(0, MSS, CcKind::Reno.build(), None, 1 << 20);
        let mut out = Vec::new();
        s.start(Instant::ZERO, &mut out);
        assert_eq!(seqs(&out), (0..10).collect::<Vec<_>>());
        assert!(s.timer().is_some());
    }

    #[test]
    fn the_receive_window_limits_what_is_sent() {
        let mut s = Sender::new(0, MSS, CcKind::Reno.build(), None, 3 * MSS as u64 + 500);
        let mut out = Vec::new();
        s.start(Instant::ZERO, &mut out);
        assert_eq!(out.len(), 3, "only whole segments that fit the window");
        out.clear();
        // The ACK of two segments moves the right edge to 2 + 4 segments.
        s.on_ack(Instant::from_millis(10), &ack_pkt(2, 4 * MSS as u64, &[], Instant::ZERO), &mut out);
        assert_eq!(seqs(&out), vec![3, 4, 5]);
    }

    #[test]
    fn three_sacked_segments_trigger_fast_retransmit_and_prr() {
        let mut s = Sender::new(0, MSS, CcKind::Reno.build(), None, 1 << 20);
        let mut out = Vec::new();
        let t = Instant::from_millis(1);
        s.start(Instant::ZERO, &mut out);
        out.clear();
        // Segment 0 lost; 1, 2 SACKed: not yet lost.
        s.on_ack(t, &ack_pkt(0, 1 << 20, &[(1, 3)], Instant::ZERO), &mut out);
        assert!(out.iter().all(|p| !matches!(p.kind, Kind::Data { retransmit: true, .. })));
        out.clear();
        s.on_ack(t, &ack_pkt(0, 1 << 20, &[(1, 4)], Instant::ZERO), &mut out);
        assert_eq!(seqs(&out).first(), Some(&0), "segment 0 retransmitted first");
        assert_eq!(s.window().ssthresh, 5, "Reno halves cwnd 10");
        assert_eq!(s.stats().retransmits, 1);
        // Recovery ends when everything up to `recover` is ACKed; cwnd = ssthresh.
        let nxt = s.nxt;
        out.clear();
        s.on_ack(Instant::from_millis(50), &ack_pkt(nxt, 1 << 20, &[], Instant::ZERO), &mut out);
        // Settles at ssthresh; the same ACK may then grow it (Linux runs
        // cong_avoid on the ACK that ends recovery).
        assert_eq!(s.window().ssthresh, 5);
        assert!((5..=7).contains(&s.window().cwnd), "cwnd {}", s.window().cwnd);
    }

    #[test]
    fn timeout_collapses_the_window_and_backs_off() {
        let mut s = Sender::new(0, MSS, CcKind::Cubic.build(), None, 1 << 20);
        let mut out = Vec::new();
        s.start(Instant::ZERO, &mut out);
        out.clear();
        let t1 = s.timer().unwrap();
        assert_eq!(t1, Instant::from_millis(1000), "initial RTO is 1 s");
        s.on_timer(t1, &mut out);
        assert_eq!(seqs(&out), vec![0], "cwnd 1: the first segment again");
        assert_eq!(s.stats().timeouts, 1);
        assert_eq!(s.timer().unwrap(), t1 + Duration::from_secs(2), "doubled");
    }

    #[test]
    fn finite_flow_sends_a_short_last_segment_and_finishes() {
        let mut s = Sender::new(0, MSS, CcKind::Reno.build(), Some(2500), 1 << 20);
        let mut out = Vec::new();
        s.start(Instant::ZERO, &mut out);
        let lens: Vec<u32> = out
            .iter()
            .map(|p| match p.kind {
                Kind::Data { len, .. } => len,
                _ => 0,
            })
            .collect();
        assert_eq!(lens, vec![1000, 1000, 500]);
        out.clear();
        s.on_ack(Instant::from_millis(20), &ack_pkt(3, 1 << 20, &[], Instant::ZERO), &mut out);
        assert_eq!(s.finished_at(), Some(Instant::from_millis(20)));
        assert!(out.is_empty());
        assert!(s.timer().is_none());
    }

    #[test]
    fn rtt_samples_come_from_the_timestamp_echo() {
        let mut s = Sender::new(0, MSS, CcKind::Reno.build(), None, 1 << 20);
        let mut out = Vec::new();
        s.start(Instant::ZERO, &mut out);
        let r = s.on_ack(Instant::from_millis(80), &ack_pkt(2, 1 << 20, &[], Instant::from_millis(30)), &mut out);
        assert_eq!(r, Some(Duration::from_millis(50)));
        assert_eq!(s.srtt(), Some(Duration::from_millis(50)));
    }

    #[test]
    fn a_lost_retransmission_is_sent_again_without_waiting_for_the_timer() {
        let mut s = Sender::new(0, MSS, CcKind::Reno.build(), None, 1 << 20);
        let mut out = Vec::new();
        s.start(Instant::ZERO, &mut out);
        out.clear();
        let t = |ms| Instant::from_millis(ms);
        // Segment 0 is lost: three SACKs trigger its retransmission at 10 ms.
        s.on_ack(t(10), &ack_pkt(0, 1 << 20, &[(1, 4)], Instant::ZERO), &mut out);
        assert_eq!(seqs(&out).first(), Some(&0));
        let sent_after: Vec<u32> = seqs(&out)[1..].to_vec();
        assert!(!sent_after.is_empty(), "new data follows the retransmission");
        out.clear();
        // The retransmission is lost too; a segment sent after it is SACKed.
        let later = *sent_after.last().unwrap();
        s.on_ack(t(60), &ack_pkt(0, 1 << 20, &[(1, 4), (later, later + 1)], Instant::ZERO), &mut out);
        // PRR may hold this ACK's quota at zero; the next delivery releases it.
        s.on_ack(t(61), &ack_pkt(0, 1 << 20, &[(1, 4), (later - 1, later + 1)], Instant::ZERO), &mut out);
        assert_eq!(seqs(&out).first(), Some(&0), "segment 0 retransmitted again, before any timeout");
        assert_eq!(s.stats().retransmits, 2);
        assert_eq!(s.stats().timeouts, 0);
    }
}
