//! A drain probe of the self-tuning RTAC receiver (`rtac_tuning.rs`), the
//! run of probes that did not drain, and the tuner's steps that drain,
//! measure and judge a probe.

use super::{
    band, Mode, Tuner, COMPETITIVE_AFTER, DRAINED_ARRIVALS, JOIN_PROBE_RTTS, MIN_MEASURE, MIN_PROBE_SAMPLES,
    PROBE_MEASURE_LIMIT, UNCONFIRMED_FALL, UNDRAINED_FORGET,
};
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
    /// until the queue has drained or [`JOIN_PROBE_RTTS`](super::JOIN_PROBE_RTTS), so that every
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
    /// interval that brings no more than [`DRAINED_ARRIVALS`](super::DRAINED_ARRIVALS) times the
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

impl Tuner {
    /// The length of a probe's measuring phase and of the intervals that
    /// count its arrivals: RTT_m, at least [`MIN_MEASURE`].
    pub(super) fn measuring_span(&self) -> Duration {
        self.rtt_min().map_or(MIN_MEASURE, |m| m.max(MIN_MEASURE))
    }

    /// The application read `bytes`. While a probe drains, a queue shows as
    /// arrivals at the link's rate: a BDP per RTT_m, twice the probe's
    /// window. Once an RTT_m brings little more than the window, the data
    /// that was in flight (up to the right edge advertised before the
    /// probe, which a receiver does not pull back) has arrived.
    pub fn on_consumed(&mut self, now: Instant, bytes: u64) {
        self.quiet.get_or_insert(now);
        self.consumed += bytes;
        let consumed = self.consumed;
        let rtt_min = self.measuring_span();
        let startup = self.mode == Mode::Startup;
        if let Some(p) = &mut self.probe {
            if p.measure.is_some() {
                return;
            }
            let edge_read = p.edge_read(consumed);
            if now >= p.drain_deadline {
                p.measure = Some((now, now + rtt_min));
            } else if let Drain::Arrivals { from, read, peaked } = &mut p.drain {
                *read += bytes;
                if now.saturating_since(*from) >= rtt_min {
                    let low = *read as f64 <= DRAINED_ARRIVALS * p.rwnd as f64;
                    *peaked |= !low;
                    if low && edge_read && startup && !*peaked {
                        // The link delivers no more than the window: the
                        // window came from a peak rate, and the RTT decides.
                        p.drain = Drain::Rtt;
                    } else if low && edge_read {
                        p.measure = Some((now, now + rtt_min));
                    } else {
                        (*from, *read) = (now, 0);
                    }
                }
            }
        }
    }

    /// Whether probe `p` has measured enough. A live socket may give one
    /// RTT sample per RTT or fewer: the measuring phase lasts until it has
    /// MIN_PROBE_SAMPLES, or PROBE_MEASURE_LIMIT times its planned length.
    /// A joint probe also lasts until its floor shows the queue drained (after
    /// its drain deadline), or JOIN_PROBE_RTTS at the peak it fell from.
    pub(super) fn probe_done(&self, p: &Probe, now: Instant, rtt_m_star: Duration, target_queue: Duration) -> bool {
        let measured = p.measure.is_some_and(|(from, end)| {
            now >= end && (p.n >= MIN_PROBE_SAMPLES || now >= from + (end - from).mul_f64(PROBE_MEASURE_LIMIT))
        });
        let joint_done = || {
            now >= p.start + p.srtt.mul_f64(JOIN_PROBE_RTTS)
                || (now >= p.drain_deadline && p.floor.is_some_and(|f| self.drains(p, f, rtt_m_star, target_queue)))
        };
        measured && (!p.joint || joint_done())
    }

    /// Whether a probe whose floor is `floor` found the queue drained.
    fn drains(&self, p: &Probe, floor: Duration, rtt_m_star: Duration, target_queue: Duration) -> bool {
        // An RTT_m that no drained probe has confirmed may be the trough of
        // another sender's standing queue (the receiver started behind it),
        // and a competitive probe that meets the next trough lies in the
        // band above it. Until then a drain must also have halved the RTT:
        // a loss-based sender that stays keeps at least its multiplicative
        // decrease (CUBIC 0.7) of a queue that RTAC's cut leaves to it, and
        // RTAC's own queue, once the sender has gone, fills the buffer in
        // competitive mode and drains to the path's RTT. So must the probe
        // of a loss in start-up, which may meet a competitor's decrease.
        let in_band = floor <= rtt_m_star + band(target_queue);
        if self.drained_once || !(self.mode == Mode::Competitive || self.lost) {
            in_band
        } else {
            in_band && p.halved(floor)
        }
    }

    pub(super) fn finish_probe(&mut self, now: Instant, p: Probe, rtt_m_star: Duration, target_queue: Duration) {
        self.probe = None;
        self.high_periods = 0;
        self.quiet = Some(now);
        let Some(floor) = p.floor.filter(|_| !p.stale) else {
            return; // no sample, or a verdict the mode has overtaken: nothing learnt
        };
        self.probes += 1;
        let drained = self.drains(&p, floor, rtt_m_star, target_queue);
        // The probe of a loss in start-up decides. A queue that stood
        // through RTAC's cut is a loss-based sender's, unless the RTT
        // halved: then it was the lone flow's own slow start draining from
        // a full buffer, and the probe counts as any undrained one. A drain
        // is confirmed as a competitive one is, below.
        if std::mem::take(&mut self.lost) && (drained || !p.halved(floor)) {
            self.mode = Mode::Competitive;
            self.undrained = None;
            self.unconfirmed_drain = drained;
            return;
        }
        // Behind a loss-based sender a probe may meet its multiplicative
        // decrease and, with RTAC's own share gone, see the RTT halve into
        // the band (the probe's floor can even become the new RTT_m, the
        // old one being a trough of that sender's queue). That queue
        // regrows within seconds; RTAC's own, with nobody else there,
        // drains again at the next probe, MIN_PROBE_GAP later.
        if drained && self.mode == Mode::Competitive && !self.drained_once && !self.unconfirmed_drain {
            self.unconfirmed_drain = true;
            return;
        }
        self.unconfirmed_drain = false;
        self.drained_once |= drained;
        if drained {
            // A new probe cycle: the minimum forgets the cycle before last.
            (self.min_prev, self.min_cur) = (self.min_cur, Some(floor));
            self.undrained = None;
            self.mode = Mode::Cooperative;
        } else {
            let stood = self.mode == Mode::Cooperative && !p.halved(floor);
            let u = self.undrained.get_or_insert(Undrained { probes: 0, stood: 0, lo: floor, hi: floor });
            (u.probes, u.lo, u.hi) = (u.probes + 1, u.lo.min(floor), u.hi.max(floor));
            u.stood += u32::from(stood);
            let u = *u;
            if u.stood >= COMPETITIVE_AFTER {
                self.mode = Mode::Competitive;
            }
            // Floors that agree probe after probe are a path whose RTT rose (a
            // route change, a handover), not a competitor's varying queue.
            if u.probes >= UNDRAINED_FORGET && u.hi - u.lo <= band(target_queue) {
                (self.min_prev, self.min_cur) = (None, Some(u.lo));
                self.undrained = None;
                self.mode = Mode::Cooperative;
            }
        }
        // A start-up probe drains by the RTT only once its arrivals never
        // exceeded its window (`on_consumed`): the link delivered less than
        // the rate the window came from. If the queue stood, it is most
        // likely the start-up's own data, and growing twice the bytes per
        // RTT from there grows it with the RTT it causes. RTAC's equations
        // and their bound take over; a sender that holds the queue shows
        // itself as in any cooperative phase.
        if matches!(p.drain, Drain::Rtt) && !drained && self.mode == Mode::Startup {
            self.mode = Mode::Cooperative;
        }
        // A joint probe's samples include the others' queues draining.
        if drained && !p.joint {
            let mean = Duration::from_nanos((p.sum_ns / p.n as u128) as u64);
            self.average_delta(mean.saturating_sub(self.rtt_min().unwrap_or(floor)));
        }
    }
}
