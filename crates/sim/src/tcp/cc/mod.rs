//! Sender congestion controls, one file each, behind one trait shaped like
//! Linux's `tcp_congestion_ops`: grow on ACK while cwnd-limited, give a
//! slow-start threshold on congestion, see every RTT sample.

mod bbr;
mod cubic;
mod htcp;
mod reno;
mod tcp_gt;
#[cfg(test)]
mod testbed;
mod vegas;
mod westwood;

pub use bbr::{Bbr, BbrMode};
pub use cubic::Cubic;
pub use htcp::Htcp;
pub use reno::Reno;
pub use tcp_gt::{TcpGt, RTT_BASE as TCP_GT_RTT_BASE};
pub use vegas::Vegas;
pub use westwood::Westwood;

use rtac_core::{Duration, Instant};
use std::fmt;
use std::str::FromStr;

/// The sender's window state, in segments (Linux keeps cwnd in packets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub cwnd: u32,
    pub ssthresh: u32,
    /// Linux's `snd_cwnd_cnt`: ACKed segments not yet turned into growth.
    pub cwnd_cnt: u32,
}

impl Window {
    /// RFC 6928 initial window of 10 segments, no slow-start threshold yet.
    pub const INITIAL: Window = Window { cwnd: 10, ssthresh: u32::MAX, cwnd_cnt: 0 };

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Linux `tcp_slow_start`: one segment per segment ACKed, up to
    /// ssthresh. Returns the ACKed segments left over for congestion
    /// avoidance.
    pub fn slow_start(&mut self, acked: u32) -> u32 {
        let cwnd = self.cwnd.saturating_add(acked).min(self.ssthresh);
        let left = acked - (cwnd - self.cwnd).min(acked);
        self.cwnd = cwnd;
        left
    }

    /// Linux `tcp_cong_avoid_ai`: one segment per `w` segments ACKed.
    pub fn additive_increase(&mut self, w: u32, acked: u32) {
        let w = w.max(1);
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            self.cwnd += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            self.cwnd += delta;
        }
    }
}

/// What the sender tells its congestion control about one ACK.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ack {
    pub now: Instant,
    /// Segments newly acknowledged (cumulatively).
    pub acked: u32,
    /// Segments newly delivered: cumulatively ACKed or SACKed for the first
    /// time (Linux `acked_sacked`).
    pub delivered: u32,
    /// Segments newly marked lost by this ACK.
    pub lost: u32,
    /// The RTT sample this ACK gave, if any, and the minimum seen.
    pub rtt: Option<Duration>,
    pub min_rtt: Option<Duration>,
    /// The sender's `snd_una` after this ACK, and `snd_nxt`.
    pub snd_una: u32,
    pub snd_nxt: u32,
    /// Segments in flight after this ACK (RFC 6675 pipe).
    pub in_flight: u32,
    /// The delivery-rate sample this ACK gave (Linux `rate_sample`).
    pub rate: Option<RateSample>,
    /// The receiver's clock on this ACK (its TSval) and the epoch it echoes
    /// (TCP-GT's epoch header).
    pub peer_tsval: Instant,
    pub epoch_echo: u32,
}

/// Segments delivered over an interval (Linux `tcp_rate.c`; the
/// delivery-rate estimation draft, draft-cheng-iccrg-delivery-rate-estimation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateSample {
    pub delivered: u64,
    pub interval: Duration,
    /// The flight was limited by the application, not the network.
    pub app_limited: bool,
}

impl RateSample {
    /// The sample's rate in segments per second.
    pub fn segments_per_sec(&self) -> f64 {
        self.delivered as f64 / self.interval.as_secs_f64()
    }
}

/// The sender's loss-recovery state, as Linux's `tcp_ca_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    Open,
    Recovery,
    Loss,
}

pub trait CongestionControl {
    /// Every ACK with an RTT sample, before any growth (Linux `pkts_acked`).
    fn on_rtt_sample(&mut self, _w: &mut Window, _ack: &Ack) {}
    /// Grow the window: called in the Open state while cwnd-limited
    /// (Linux `cong_avoid`).
    fn on_ack(&mut self, w: &mut Window, ack: &Ack);
    /// A loss was detected: the new slow-start threshold (Linux `ssthresh`).
    fn ssthresh(&mut self, w: &Window, now: Instant) -> u32;
    /// A retransmission timeout: forget per-epoch state (Linux
    /// `set_state(TCP_CA_Loss)`).
    fn on_timeout(&mut self, _now: Instant) {}
    /// The loss-recovery state changed.
    fn on_state(&mut self, _w: &mut Window, _state: CaState) {}
    /// The rate to pace at, if this control paces (Linux `sk_pacing_rate`
    /// with internal pacing).
    fn pacing_rate(&self) -> Option<rtac_core::Bandwidth> {
        None
    }
    /// True for a control that sets cwnd itself on every ACK, in every
    /// state (Linux `cong_control`, as BBR): the sender then calls `on_ack`
    /// always and applies neither PRR nor the cwnd-limited check.
    fn full_control(&self) -> bool {
        false
    }
    /// The epoch number to carry on outgoing data (TCP-GT's epoch header).
    fn epoch(&self) -> u32 {
        0
    }
}

/// Congestion controls by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CcKind {
    Reno,
    Cubic,
    Htcp,
    Vegas,
    Westwood,
    Bbr,
    TcpGt,
    /// TCP-GT with eq. (5)'s local minimum over a fixed time span: an
    /// ablation ([`TcpGt::with_time_window`]).
    TcpGtTimeWindow,
}

impl CcKind {
    pub const ALL: [CcKind; 8] = [
        CcKind::Reno,
        CcKind::Cubic,
        CcKind::Htcp,
        CcKind::Vegas,
        CcKind::Westwood,
        CcKind::Bbr,
        CcKind::TcpGt,
        CcKind::TcpGtTimeWindow,
    ];
    pub fn name(self) -> &'static str {
        match self {
            CcKind::Reno => "reno",
            CcKind::Cubic => "cubic",
            CcKind::Htcp => "htcp",
            CcKind::Vegas => "vegas",
            CcKind::Westwood => "westwood",
            CcKind::Bbr => "bbr",
            CcKind::TcpGt => "tcp-gt",
            CcKind::TcpGtTimeWindow => "tcp-gt-timewin",
        }
    }
    /// A fresh control, assuming the default MSS (BBR needs the segment
    /// size to turn its bandwidth estimate into a pacing rate) and seeding
    /// BBR's gain-cycle phase from the flow's own first ACK.
    pub fn build(self) -> AnyCc {
        self.build_with(rtac_core::DEFAULT_MSS, None)
    }
    /// A fresh control for segments of `mss` payload bytes; `seed` (e.g.
    /// forked per flow from the scenario seed) fixes BBR's random start
    /// phase of the PROBE_BW gain cycle.
    pub fn build_with(self, mss: u32, seed: Option<u64>) -> AnyCc {
        match self {
            CcKind::Reno => AnyCc::Reno(Reno),
            CcKind::Cubic => AnyCc::Cubic(Cubic::default()),
            CcKind::Htcp => AnyCc::Htcp(Htcp::default()),
            CcKind::Vegas => AnyCc::Vegas(Vegas::default()),
            CcKind::Westwood => AnyCc::Westwood(Westwood::default()),
            CcKind::Bbr => AnyCc::Bbr(Box::new(Bbr::new(mss, seed))),
            CcKind::TcpGt => AnyCc::TcpGt(TcpGt::default()),
            CcKind::TcpGtTimeWindow => AnyCc::TcpGt(TcpGt::with_time_window()),
        }
    }
}

impl fmt::Display for CcKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CcKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim().to_ascii_lowercase();
        let s = match s.as_str() {
            "newreno" => "reno",
            "westwood+" | "westwoodplus" => "westwood",
            "tcpgt" | "gt" | "tcp_gt" => "tcp-gt",
            other => other,
        };
        CcKind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            let known: Vec<_> = CcKind::ALL.iter().map(|k| k.name()).collect();
            format!("unknown congestion control {s:?}; known: {}", known.join(", "))
        })
    }
}

/// Any congestion control, dispatched by match on the sender's ACK path.
#[derive(Clone, Debug)]
pub enum AnyCc {
    Reno(Reno),
    Cubic(Cubic),
    Htcp(Htcp),
    Vegas(Vegas),
    Westwood(Westwood),
    /// Boxed: BBR's state is several times the size of the others'.
    Bbr(Box<Bbr>),
    TcpGt(TcpGt),
}

/// Calls `$body` with `$c` bound to the inner control of whichever variant.
macro_rules! dispatch {
    ($self:expr, $c:ident => $body:expr) => {
        match $self {
            AnyCc::Reno($c) => $body,
            AnyCc::Cubic($c) => $body,
            AnyCc::Htcp($c) => $body,
            AnyCc::Vegas($c) => $body,
            AnyCc::Westwood($c) => $body,
            AnyCc::Bbr($c) => $body,
            AnyCc::TcpGt($c) => $body,
        }
    };
}

impl CongestionControl for AnyCc {
    #[inline]
    fn on_rtt_sample(&mut self, w: &mut Window, ack: &Ack) {
        dispatch!(self, c => c.on_rtt_sample(w, ack))
    }
    #[inline]
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        dispatch!(self, c => c.on_ack(w, ack))
    }
    fn ssthresh(&mut self, w: &Window, now: Instant) -> u32 {
        dispatch!(self, c => c.ssthresh(w, now))
    }
    fn on_timeout(&mut self, now: Instant) {
        dispatch!(self, c => c.on_timeout(now))
    }
    fn on_state(&mut self, w: &mut Window, state: CaState) {
        dispatch!(self, c => c.on_state(w, state))
    }
    #[inline]
    fn pacing_rate(&self) -> Option<rtac_core::Bandwidth> {
        dispatch!(self, c => c.pacing_rate())
    }
    #[inline]
    fn full_control(&self) -> bool {
        dispatch!(self, c => c.full_control())
    }
    #[inline]
    fn epoch(&self) -> u32 {
        dispatch!(self, c => c.epoch())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_stops_at_ssthresh_and_returns_the_rest() {
        let mut w = Window { cwnd: 10, ssthresh: 12, cwnd_cnt: 0 };
        assert_eq!(w.slow_start(5), 3);
        assert_eq!(w.cwnd, 12);
    }

    #[test]
    fn additive_increase_adds_one_segment_per_window() {
        let mut w = Window { cwnd: 10, ssthresh: 5, cwnd_cnt: 0 };
        for _ in 0..10 {
            w.additive_increase(w.cwnd, 1);
        }
        assert_eq!(w.cwnd, 11);
    }

    #[test]
    fn names_parse_and_unknown_names_list_the_known() {
        assert_eq!("cubic".parse::<CcKind>().unwrap(), CcKind::Cubic);
        assert_eq!("NewReno".parse::<CcKind>().unwrap(), CcKind::Reno);
        let e = "bic".parse::<CcKind>().unwrap_err();
        assert!(e.contains("reno, cubic, htcp, vegas, westwood, bbr, tcp-gt"), "{e}");
    }

    #[test]
    fn every_control_parses_by_name_and_by_alias() {
        for k in CcKind::ALL {
            assert_eq!(k.name().parse::<CcKind>().unwrap(), k);
            assert_eq!(k.build_with(1448, Some(1)).full_control(), k == CcKind::Bbr, "{k}");
        }
        assert_eq!("Westwood+".parse::<CcKind>().unwrap(), CcKind::Westwood);
        assert_eq!("tcpgt".parse::<CcKind>().unwrap(), CcKind::TcpGt);
        assert_eq!("GT".parse::<CcKind>().unwrap(), CcKind::TcpGt);
        assert_eq!("TCP-GT".parse::<CcKind>().unwrap(), CcKind::TcpGt);
    }

    #[test]
    fn the_any_cc_wrapper_forwards_pacing_and_epoch() {
        let bbr = CcKind::Bbr.build();
        assert!(bbr.pacing_rate().is_some(), "BBR always paces");
        assert!(CcKind::Cubic.build().pacing_rate().is_none());
        assert!(CcKind::TcpGt.build().epoch() > 0, "TCP-GT stamps an epoch");
        assert_eq!(CcKind::Reno.build().epoch(), 0);
    }
}
