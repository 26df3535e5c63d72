//! Self-tuning for RTAC: the per-network constants of the paper (K from the
//! path's BDP by eq. (11), and the compensation Delta of §IV.A) measured at
//! the receiver instead of set by hand, and a competitive mode for queues
//! that RTAC does not hold.
//!
//! What the tuner measures, and from what:
//!
//! - **Bottleneck rate**: the bytes delivered in each counting period (about
//!   one RTT) over the period's length, under a windowed max over the last
//!   [`BW_ROUNDS`] periods (BBR's BtlBw filter, Cardwell et al. 2016). A
//!   receiver held below the link rate measures less than the link, but
//!   RTAC's window at an empty queue is sqrt(a / K) = sqrt(theta - 1)
//!   BDP'^1.5 packets (eqs. (8), (11)), which exceeds the estimate BDP' itself
//!   for any BDP' above 1 / (theta - 1) = 2.6 packets: an underestimate lets
//!   more through than it assumed, so the next estimate is higher. The
//!   estimate is floored at [`MIN_BDP_PKTS`], so this growth always starts
//!   however far the estimate fell. On a link that has never delivered that
//!   much, the floor is itself the error: the standing queue grows as the
//!   cube of the BDP's error (§V-E), and on a link of one or two packets per
//!   RTT a floor of ten filled buffers of 10-30 packets. The floor is
//!   therefore at most [`DELIVERED_RTTS`] times the largest BDP the
//!   connection has measured (the window bound below allows no more on
//!   such a link), and at least [`MIN_WINDOW_PKTS`], above the 2.6 packets
//!   the growth needs. An estimate that falls from a higher rate keeps the
//!   floor of ten.
//! - **RTT_m**: a windowed min that forgets. RTAC keeps a standing queue of
//!   (theta - 1) BDP by design, so the no-queue RTT is seen only when the
//!   receiver drains its own queue: every [`PROBE_INTERVAL`] (BBR's
//!   ProbeRTT interval) it advertises half its BDP estimate until one RTT_m
//!   brings no more than [`DRAINED_ARRIVALS`] times that window (or, where
//!   the link delivers less than that in an RTT_m, until an RTT sample
//!   falls within the band above RTT*_m), then measures for one RTT_m.
//!   The minimum spans the samples of the current and the previous probe
//!   cycle, so an increase of the path's RTT (a route change,
//!   a handover) is followed within two cycles.
//! - **Delta**: the no-queue RTT varies above its minimum on real cellular
//!   and Wi-Fi links (§IV.A, Fig. 2: about 50 % above it on the paper's LTE
//!   cell). The mean of a drained probe's samples minus RTT_m is a direct
//!   measurement of that variation; Delta is its moving average.
//! - **Rate pulses** (`rtac_pulse.rs`): where no probe drains to the
//!   band, because the path's no-queue RTT drifts by more than the target
//!   queue, raising the window for two periods tells from the delivery
//!   rate whether the RTT above RTT_m is a queue; where it is not, the
//!   pulse's least RTT sample measures Delta.
//! - **Whose queue**: a drained probe also tells whether the queue answers
//!   RTAC's own window. If the RTT stays above RTT*_m by more than
//!   [`OWN_QUEUE_FRACTION`] of the target queueing delay (theta - 1) RTT*_m
//!   while RTAC advertises half its BDP, and the probe's floor does not
//!   fall to half the smoothed RTT of its start (a loss-based sender keeps
//!   at least its multiplicative decrease of its queue, [`UNCONFIRMED_FALL`]),
//!   in [`COMPETITIVE_AFTER`] cooperative probes in a row, another sender
//!   holds the queue.
//!   RTAC's own equations then settle below its competitor's rate (the
//!   queue estimate of eq. (10) counts the competitor's packets as its own)
//!   and its rate estimate shrinks with its share, so the tuner switches to
//!   a competitive mode that leaves the window to the sender until a later
//!   probe finds the queue drained. This is
//!   Copa's competitive-mode test ("has the queue nearly emptied recently?",
//!   Arun and Balakrishnan, NSDI 2018, §2.2) made active in the way of
//!   Nimbus (Goyal et al., SIGCOMM 2022): the receiver changes its own rate
//!   and watches whether the delay follows.
//!   A loss answers the same question sooner: a segment lost while the
//!   smoothed RTT is more than one target queueing delay above
//!   [`DELIVERED_RTTS`] RTT*_m overflowed a buffer that RTAC's own queue
//!   (about one target deep, and never deeper than its window bound of
//!   DELIVERED_RTTS BDPs allows) does not reach, so a loss-based sender
//!   fills it, and the tuner switches at once. Delay alone cannot tell this from a link that
//!   slows down during a probe (a cellular outage), which is why the
//!   probes need several cycles; such a link does not overflow a buffer
//!   under RTAC's window. This is the signal loss-based senders themselves
//!   react to (a DropTail queue signals with loss when full), read at the
//!   receiver as a hole in the sequence. A loss counts at any depth after
//!   a probe that found the queue standing. A loss in start-up calls the
//!   first probe instead (below, **Start**).
//! - **Competitive receivers drain together**: a competitive window
//!   leaves the sender a right edge a window ahead of what it has sent,
//!   so a probe whose arrivals fall (a bursty share of a shared link) may
//!   measure while its own data still queues, and the other receivers see
//!   no fall. Two RTAC receivers that a loss-based download made
//!   competitive then stayed so after it had gone, each probe finding the
//!   other's share queued. A competitive probe therefore counts arrivals
//!   as drained only once the data up to the right edge advertised before
//!   it has been read (the receiver tracks that edge). A competitive
//!   receiver whose smoothed RTT falls
//!   under [`JOIN_FALL`] of its peak since its last probe (another RTAC
//!   receiver's probe, or a competitor gone) starts a *joint* probe at
//!   once, which also measures until the floor lies in the band or for
//!   [`JOIN_PROBE_RTTS`] RTTs at the peak, so that the later receivers'
//!   shares leave the queue while it measures. A probe that confirms a
//!   drain is joint too. Joint probes leave Delta alone: their samples
//!   include the other shares draining.
//! - **A standing queue at the start**: a receiver that starts behind
//!   another sender's full buffer takes the trough of that sender's
//!   sawtooth for its RTT_m, and a competitive probe that meets a later
//!   trough lies in the band above it. Until a probe has once found the
//!   queue drained, a competitive probe counts as drained only if it also
//!   halved the smoothed RTT of its start: a loss-based competitor keeps
//!   at least its multiplicative decrease (0.7 for CUBIC) of the queue,
//!   while RTAC's own queue, which fills the buffer in competitive mode
//!   once the competitor has gone, drains to the path's RTT. A probe that
//!   meets the competitor's own decrease can halve the RTT all the same
//!   (and set a new RTT_m: the old one was a higher trough), so such a
//!   drain also needs a second one [`MIN_PROBE_GAP`] later, by when a
//!   loss-based sender's queue has regrown.
//! - **Window bound**: eq. (8) raises the window with RTT / RTT*_m, so a
//!   link that slows down (a cellular outage) raised the window into the
//!   queue it found. The cooperative window is at most
//!   [`DELIVERED_RTTS`] times the bytes the last period delivered per
//!   RTT*_m (DRWA's rule with lambda = 2 on the no-queue RTT, Jiang et al.
//!   2012), above RTAC's own operating point of theta BDP.
//! - **Probe timing**: probes are timed from the later of the last probe
//!   and the last period whose smoothed RTT was within the band above
//!   RTT*_m (Copa's "has the queue nearly emptied recently?"). Every RTAC
//!   receiver on a queue sees that during any one's probe, so they time
//!   their next probes alike and drain together. After a probe found the
//!   queue standing, a period whose queue is deeper than RTAC's own can be
//!   (one target above [`DELIVERED_RTTS`] RTT*_m, as for a loss below)
//!   calls the probe that decides [`MIN_PROBE_GAP`] later: the queue grew
//!   while RTAC's window only shrank, and at long RTTs [`HIGH_PERIODS`]
//!   periods are tens of seconds of a shrinking share. Periodic probes are at
//!   least [`PROBE_SPACING_RTTS`] smoothed RTTs apart, so that a probe costs
//!   at most a quarter of the time however long the RTT. A receiver whose own
//!   probe is due within [`JOIN_WINDOW`] when it sees the queue fall into
//!   the band starts it at once: the probes of two receivers due at about
//!   the same time would otherwise follow each other, each alone finding
//!   the other's share still queued, and the later one would be put off
//!   again and again by the earlier one's. A receiver that joined while
//!   another's queue stood has that queue in its RTT_m until a probe of
//!   both drains it; until then its target is the sum of both queues and
//!   the other one's window shrinks towards nothing. This is how BBR flows
//!   come to share their ProbeRTT (Cardwell et al. 2016).
//! - **Start**: until the first loss (or [`MIN_PROBE_GAP`]) the window
//!   grows like Linux Auto-tuning, twice the bytes per RTT
//!   ([`Mode::Startup`]), counted over the last RTT as the data arrives
//!   ([`Tuner::startup_window`]): a window set only at a period's end
//!   reaches the sender one RTT late and grows by sqrt(2) per RTT. A probe
//!   then says whose queue it is. It waits for the loss because a probe
//!   during a competitor's slow start decides the senders' share for
//!   minutes: a sender held by its receive window does not grow its
//!   congestion window, the competitor's doubles, and the overflow that
//!   ends both slow starts cuts both from there. CUBIC's windows converge
//!   slowly at the RTTs of a full buffer, so RTAC, competitive from then
//!   on with a window twice its sender's, kept the smaller share (in the
//!   Wi-Fi DC scenario, seed 2, 145 packets against 324 at the overflow
//!   and 0.64 of the competitor's throughput over the next 50 s). The
//!   loss's probe decides: a queue that stands through RTAC's cut is a
//!   loss-based sender's, and competitive mode follows at once. A floor
//!   that halved the smoothed RTT but stayed above the band is the lone
//!   flow's own slow start draining from a full buffer, and counts as one
//!   undrained probe; a drain needs a second one [`MIN_PROBE_GAP`] later,
//!   as in competitive mode (the loss's probe may meet a competitor's
//!   decrease). Later start-up probes, after an undrained one, come at the
//!   first queue twice the target, so that the start-up does not grow a
//!   deeper queue for each to meet. In start-up the window of a probe
//!   (half the BDP at the peak rate) may exceed what a variable link
//!   delivers in an RTT_m from the start: arrivals that never exceeded
//!   [`DRAINED_ARRIVALS`] times the window say nothing of the queue, and
//!   the RTT decides instead, as on a slow link. The start-up probe drains
//!   a queue that slow starts have just built while it measures, so
//!   Delta's moving average starts from zero rather than from its sample.
//!   Arrivals that never exceeded the window while the queue stood mean a
//!   link that slowed below about half the rate the window came from (a
//!   cellular link entering a slow phase): the queue is most likely the
//!   start-up's own data draining at the slower rate, and twice the bytes
//!   per RTT grows it with the RTT it causes (on a 0.5 Mbit/s EVDO trace,
//!   windows of 100 KB held tens of seconds of queue for most of a
//!   minute). Such a probe ends the start-up: RTAC's equations and the
//!   window bound take over, and a sender that holds the queue (one whose
//!   slow start took RTAC's share during the probe looks the same) shows
//!   itself by the loss and probe rules of cooperative mode. Arrivals that
//!   peaked above the window drained the receiver's own share at its rate:
//!   a queue that then stood is another sender's, and the start-up goes
//!   on.
//!
//! When several RTAC receivers share one queue, a probe by one of them
//! removes its whole share minus half a BDP of its own: with up to about
//! eight equal flows at the operating point the RTT falls inside the band,
//! so they stay cooperative and the queue stays short.

use super::rtac::k_from_bdp;
use super::rtac_pulse::Pulses;
use crate::estimators::WindowedMax;
use crate::time::{Duration, Instant};
use probe::{Drain, Probe, Undrained};

/// Periods in the bottleneck-rate window (BBR's BtlBwFilterLen).
pub const BW_ROUNDS: usize = 10;
/// Time between drain probes when nothing else calls for one (BBR's
/// min_rtt expiry).
pub const PROBE_INTERVAL: Duration = Duration::from_secs(10);
/// Time between probes while another sender holds the queue: how soon the
/// receiver notices that the competitor has gone.
pub const COMPETITIVE_PROBE_INTERVAL: Duration = Duration::from_secs(5);
/// The least time between an early probe and the previous one.
pub const MIN_PROBE_GAP: Duration = Duration::from_secs(2);
/// The least time between periodic probes, in smoothed RTTs. A probe holds
/// the window at half a BDP for up to [`DRAIN_LIMIT`] smoothed RTTs and
/// measures for about one more; at most a quarter of the time spent so is
/// 4 (DRAIN_LIMIT + 1) = 20 smoothed RTTs between probes. The fixed
/// intervals above are longer than that up to a smoothed RTT of 250 ms
/// (competitive) or 500 ms (cooperative); behind a full deep buffer the
/// smoothed RTT reaches seconds, and probes every 5 s held the window at
/// half a BDP most of the time while the competitor took the link.
pub const PROBE_SPACING_RTTS: f64 = 4.0 * (DRAIN_LIMIT + 1.0);
/// How early a receiver starts its probe when it sees another's.
pub const JOIN_WINDOW: Duration = Duration::from_secs(2);
/// Consecutive periods with twice the target queueing delay that call an
/// early probe.
pub const HIGH_PERIODS: u32 = 8;
/// A drained probe must bring the queueing delay below this fraction of the
/// target (theta - 1) RTT*_m for the queue to count as RTAC's own.
pub const OWN_QUEUE_FRACTION: f64 = 0.75;
/// Consecutive cooperative probes whose queue stood that mean another
/// sender holds it. A queue stood when the probe's floor did not fall to
/// half the smoothed RTT of its start ([`UNCONFIRMED_FALL`]): a loss-based
/// sender keeps at least its multiplicative decrease of its queue (0.7
/// under CUBIC) whatever RTAC does, while RTAC's own queue on a link that
/// slowed down drains under the probe's window of half a BDP, if slowly.
/// Two, not one: a single probe may meet an outage of the link, which
/// drains nothing; two in a row, a probe interval apart, are a sender.
/// Each probe costs [`PROBE_INTERVAL`], and a competitor that arrives
/// takes the link meanwhile. Start-up probes do not count: their floors
/// carry the slow starts' queues, and a competitor already there shows
/// itself by the loss that ends them (**Start** above).
pub const COMPETITIVE_AFTER: u32 = 2;
/// Consecutive undrained probes whose floors agree within the band after
/// which RTT_m takes their floor: a path whose RTT rose looks, from the
/// receiver, like a queue held by another, except that its floor is steady.
pub const UNDRAINED_FORGET: u32 = 6;
/// The smallest BDP estimate, packets: Linux's initial window (RFC 6928).
/// Lower on a link that never delivered [`MIN_BDP_PKTS`] / [`DELIVERED_RTTS`]
/// packets in an RTT*_m: see [`Tuner::bdp_pkts`].
pub const MIN_BDP_PKTS: f64 = 10.0;
/// The least window of a drain probe and of the cooperative bound, and the
/// least BDP floor, packets: four segments (RFC 3390's initial window),
/// above the 1 / (theta - 1) = 2.6 packets that growth from an
/// underestimate needs (eqs. (8), (11)).
pub const MIN_WINDOW_PKTS: f64 = 4.0;
/// The shortest RTT the self-tuning controller acts on: a sample below it
/// counts as this long. A receiver's RTT samples are whole milliseconds
/// where TCP timestamps tick in milliseconds (Linux), the live paths step
/// no faster than every 2 ms, and a queue shorter than this is not worth
/// a window below it. On a sub-millisecond path (veth, loopback, a LAN)
/// the window then follows the bytes delivered per millisecond, instead of
/// a BDP smaller than one TSO burst (64 KB): the kernel's window-fill
/// estimate of 5-20 µs over veth had held a 4 GiB transfer at 3-4 Gbit/s
/// against 13-32 Gbit/s without the controller.
pub const MIN_RTT: Duration = Duration::from_millis(1);
/// Arrivals in one RTT_m, relative to the probe's window, below which a
/// drain probe's queue counts as drained.
pub const DRAINED_ARRIVALS: f64 = 1.25;
/// The longest drain, in smoothed RTTs since the probe's start (the largest
/// smoothed RTT seen while it drains: the data sent under the window
/// advertised before the probe may still be deepening the queue as it
/// starts): a socket whose window does not fall to the probe's (a kernel
/// that keeps more) is measured all the same.
pub const DRAIN_LIMIT: f64 = 4.0;
/// RTT samples a probe's measuring phase waits for, up to
/// [`PROBE_MEASURE_LIMIT`] times its planned length.
pub const MIN_PROBE_SAMPLES: u64 = 4;
/// The longest measuring phase, in multiples of its planned length.
pub const PROBE_MEASURE_LIMIT: f64 = 8.0;
/// Until a probe has once found the queue drained, a competitive probe's
/// floor must also lie below the smoothed RTT at its start by this factor.
/// Behind a loss-based competitor that stays, the RTT falls by no more
/// than its multiplicative decrease: to 0.7 of its peak under CUBIC, to
/// half only at the very trough of Reno's sawtooth.
pub const UNCONFIRMED_FALL: f64 = 2.0;
/// In competitive mode, a smoothed RTT under this fraction of its peak
/// since the last probe is the queue losing another receiver's share
/// (its drain probe, or a competitor that has gone), not a loss-based
/// sender's own decrease, which takes 0.3 of its window under CUBIC.
pub const JOIN_FALL: f64 = 0.6;
/// The longest a probe that joined another's waits for the queue to fall
/// into the band, in RTTs at the peak it fell from: the other receivers
/// see the fall only once this one's share has left the queue, and their
/// own shares leave it about two RTTs after they join.
pub const JOIN_PROBE_RTTS: f64 = 12.0;
/// The cooperative window's bound, in no-queue RTTs of the last period's
/// delivery rate.
pub const DELIVERED_RTTS: f64 = 2.0;
/// Weight of a new Delta measurement.
const DELTA_GAIN: f64 = 0.25;
/// The shortest measuring phase of a probe.
const MIN_MEASURE: Duration = Duration::from_millis(10);

/// The width of the band above RTT*_m within which the queue counts as
/// drained: [`OWN_QUEUE_FRACTION`] of the target queueing delay.
fn band(target_queue: Duration) -> Duration {
    target_queue.mul_f64(OWN_QUEUE_FRACTION)
}

/// Whose queue the receiver believes it is looking at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Before the first drain probe has told whose queue it is: grow like
    /// Auto-tuning, so that a sender that meets a competitor here is not
    /// held back while the competitor's window grows.
    Startup,
    /// The queue answers RTAC's window: RTAC's equations decide.
    Cooperative,
    /// Another sender holds the queue: grow like Auto-tuning.
    Competitive,
}

/// The self-tuning state of one RTAC receiver.
#[derive(Clone, Debug)]
pub struct Tuner {
    mode: Mode,
    probe: Option<Probe>,
    /// The later of the last probe's end and the last period whose smoothed
    /// RTT was inside the band above RTT*_m: probes are timed from it. Until
    /// then the flow's first event (a clock may start anywhere: a live
    /// socket's is the time since boot).
    quiet: Option<Instant>,
    /// Minimum RTT of the current and of the previous probe cycle.
    min_cur: Option<Duration>,
    min_prev: Option<Duration>,
    /// The run of undrained probes since the last drained one, if any.
    undrained: Option<Undrained>,
    /// The measured Delta; `delta_fixed` overrides it.
    delta: Option<Duration>,
    delta_fixed: Option<Duration>,
    /// Bytes per second delivered, per period, and in the last one.
    rate: WindowedMax,
    last_rate: f64,
    /// The highest rate of any period so far, bytes per second.
    peak_rate: f64,
    /// Bytes delivered in the last period.
    last_bytes: u64,
    /// Bytes delivered per period.
    window: WindowedMax,
    high_periods: u32,
    /// A hole opened in the sequence since the last period.
    hole: bool,
    /// A segment was lost in start-up: the next probe is the loss's, and
    /// decides. Set only in start-up, and taken by the next probe there
    /// that measures.
    lost: bool,
    /// Probes finished so far.
    probes: u32,
    /// A probe has found the queue drained: RTT_m is the path's, not the
    /// trough of a queue that stood when the receiver started.
    drained_once: bool,
    /// A competitive probe found the queue drained while no probe had yet
    /// done so: the next one, [`MIN_PROBE_GAP`] later, must find it so too.
    unconfirmed_drain: bool,
    /// The highest smoothed RTT in competitive mode since the last probe.
    peak: Duration,
    /// Bytes the application has read, and the right edge advertised: the
    /// most that reads and the window have ever added up to.
    consumed: u64,
    edge: u64,
    /// The smoothed RTT at the last period.
    srtt: Duration,
    /// Rate pulses of the cooperative window.
    pulses: Pulses,
}

/// What the tuner decides for one period.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decision {
    /// RTAC's eq. (8) with this K and RTT*_m, capped at `cap` bytes, then
    /// times `gain` (a rate pulse).
    Rtac { k: f64, rtt_m_star: Duration, cap: u64, gain: f64 },
    /// Advertise exactly this many bytes (a drain probe).
    Window(u64),
    /// Grow like Auto-tuning: up to this many bytes, and no less than the
    /// initial window (startup, competitive mode).
    Grow(u64),
}

impl Tuner {
    /// `delta`: a fixed compensation, or `None` to measure it.
    pub fn new(delta: Option<Duration>) -> Self {
        Tuner {
            mode: Mode::Startup,
            probe: None,
            quiet: None,
            min_cur: None,
            min_prev: None,
            undrained: None,
            delta: None,
            delta_fixed: delta,
            rate: WindowedMax::new(BW_ROUNDS),
            last_rate: 0.0,
            peak_rate: 0.0,
            last_bytes: 0,
            window: WindowedMax::new(BW_ROUNDS),
            high_periods: 0,
            hole: false,
            lost: false,
            probes: 0,
            drained_once: false,
            unconfirmed_drain: false,
            peak: Duration::ZERO,
            consumed: 0,
            edge: 0,
            srtt: Duration::ZERO,
            pulses: Pulses::default(),
        }
    }

    /// Growing like Auto-tuning before the first probe.
    pub fn growing(&self) -> bool {
        self.mode == Mode::Startup && self.probe.is_none()
    }

    /// The start-up window within a period, `elapsed` into it with `bytes`
    /// delivered so far: twice the bytes of the last RTT as they arrive
    /// (the rest of the last period's share of the RTT, and this one's so
    /// far), not only at the period's end, since the ACKs of a period
    /// release the sender's next round and a window set at its end would
    /// lag one RTT and grow by sqrt(2) per RTT. At most twice the last
    /// period's bytes, as a slow start delivers: a queue that builds may
    /// lengthen the period as fast as it runs. `None` when not growing.
    pub fn startup_window(&self, elapsed: Duration, bytes: u64, srtt: Duration) -> Option<f64> {
        if !self.growing() || srtt.is_zero() {
            return None;
        }
        let left = (1.0 - elapsed.as_secs_f64() / srtt.as_secs_f64()).max(0.0);
        let last_rtt = (bytes as f64 + self.last_bytes as f64 * left).min(2.0 * self.last_bytes as f64);
        Some(2.0 * last_rtt)
    }

    pub fn probing(&self) -> bool {
        self.probe.is_some()
    }

    /// RTT_m: the least RTT of this probe cycle and the previous one.
    pub fn rtt_min(&self) -> Option<Duration> {
        match (self.min_cur, self.min_prev) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Delta in use: the fixed one, else the measured one, else zero.
    pub fn delta(&self) -> Duration {
        self.delta_fixed.or(self.delta).unwrap_or(Duration::ZERO)
    }

    /// RTT*_m = RTT_m + Delta (§IV.A).
    pub fn rtt_m_star(&self) -> Option<Duration> {
        self.rtt_min().map(|m| m + self.delta())
    }

    /// The estimated bottleneck rate, bytes per second.
    pub fn rate(&self) -> Option<f64> {
        self.rate.max()
    }

    /// The path's BDP in packets: bottleneck rate x RTT*_m, at least
    /// [`MIN_BDP_PKTS`], or [`DELIVERED_RTTS`] times the largest BDP any
    /// period has measured where that is less (not under
    /// [`MIN_WINDOW_PKTS`]): a floor above what the link has ever carried
    /// is not an underestimate that it corrects but a standing queue.
    pub fn bdp_pkts(&self, mss: u32) -> Option<f64> {
        let rtt_m_star = self.rtt_m_star()?.as_secs_f64();
        let bdp = self.rate()? * rtt_m_star / mss as f64;
        let peak = DELIVERED_RTTS * self.peak_rate * rtt_m_star / mss as f64;
        Some(bdp.max(peak.clamp(MIN_WINDOW_PKTS, MIN_BDP_PKTS)))
    }

    /// Every valid RTT sample.
    pub fn on_rtt_sample(&mut self, now: Instant, rtt: Duration) {
        if rtt.is_zero() {
            return;
        }
        self.quiet.get_or_insert(now);
        self.min_cur = Some(self.min_cur.map_or(rtt, |m| m.min(rtt)));
        self.pulses.on_rtt_sample(rtt);
        let rtt_min = self.measuring_span();
        let consumed = self.consumed;
        if let Some(p) = &mut self.probe {
            let drained = p.edge_read(consumed) && matches!(p.drain, Drain::Rtt) && rtt <= p.below;
            if p.measure.is_none() && drained && now.saturating_since(p.start) >= rtt_min {
                p.measure = Some((now, now + rtt_min));
            }
            if p.measure.is_some_and(|(from, _)| now >= from) {
                p.floor = Some(p.floor.map_or(rtt, |f| f.min(rtt)));
                p.sum_ns += rtt.as_nanos() as u128;
                p.n += 1;
            }
        }
    }

    /// The receiver advertises `rwnd` bytes beyond what has been read.
    pub fn on_advertised(&mut self, rwnd: u64) {
        self.edge = self.edge.max(self.consumed + rwnd);
    }

    /// A segment arrived beyond a hole: one before it was lost.
    pub fn on_sequence_hole(&mut self) {
        self.hole = true;
    }

    /// The end of a counting period of `span` in which `bytes` were
    /// delivered; `srtt` is RTAC's smoothed RTT. Returns the decision for
    /// the window, given the RTAC parameters `a` and `theta`.
    pub fn on_period(
        &mut self,
        now: Instant,
        bytes: u64,
        span: Duration,
        srtt: Duration,
        mss: u32,
        (a, theta): (f64, f64),
    ) -> Option<Decision> {
        self.last_bytes = bytes;
        self.srtt = srtt;
        if self.probe.is_none() && !span.is_zero() {
            self.last_rate = bytes as f64 / span.as_secs_f64();
            self.rate.push(self.last_rate);
            self.peak_rate = self.peak_rate.max(self.last_rate);
            self.window.push(bytes as f64);
        }
        let rtt_m_star = self.rtt_m_star()?;
        let bdp = self.bdp_pkts(mss)?;
        let target_queue = rtt_m_star.mul_f64(theta - 1.0);
        // A high period: a queue twice RTAC's target.
        let high = srtt > rtt_m_star + target_queue.mul_f64(2.0);
        self.high_periods = if high { self.high_periods + 1 } else { 0 };
        // A buffer overflowed while the queue was deeper than RTAC's own can
        // be (its cooperative window is at most DELIVERED_RTTS BDPs, which a
        // drained queue reopens to at once, for about an RTT): a loss-based
        // sender holds the queue. A probe would say the
        // same only after COMPETITIVE_AFTER cycles, which a link that slows
        // down for a while also fails (a trace's outage), but such a link
        // does not overflow the buffer under RTAC's window. So does an
        // overflow after a probe found the queue standing. A probe begun
        // before the switch does not undo it: its floor is measured against
        // that RTT_m.
        let deep = srtt > rtt_m_star.mul_f64(DELIVERED_RTTS) + target_queue;
        let hole = std::mem::take(&mut self.hole);
        // In start-up a loss ends the slow starts: the probe it calls decides.
        self.lost |= hole && self.mode == Mode::Startup;
        if hole && (deep || self.undrained.is_some()) && self.mode == Mode::Cooperative {
            self.mode = Mode::Competitive;
            self.undrained = None;
            if let Some(p) = &mut self.probe {
                p.stale = true;
            }
        }
        // Not in startup: its RTT_m may already carry a queue (a window
        // that filled the buffer before the first sample) and hide it.
        let above_band = srtt > rtt_m_star + band(target_queue);
        let in_band = self.mode != Mode::Startup && !above_band;
        // Another receiver's probe shows as the queue falling into the band;
        // one whose own probe is due soon joins it, so that both drain at
        // once (each alone would find the other's share still queued).
        let join = in_band
            && self.mode == Mode::Cooperative
            && self.quiet.is_some_and(|q| now.saturating_since(q) >= PROBE_INTERVAL - JOIN_WINDOW);
        if in_band {
            // The queue is nearly empty now (Copa's test, §2.2): nothing a
            // probe would learn. Every RTAC receiver on a queue sees this
            // during any one's probe, so all of them time their next probe
            // from the same moment and drain together (as BBR flows align
            // their ProbeRTT on a shared min_rtt, Cardwell et al. 2016).
            self.quiet = Some(now);
        }
        // A competitive receiver joins the probe of another RTAC receiver
        // at once (the two shares must leave the queue together, or each
        // finds the other's still queued), and the queue a competitor that
        // has gone leaves behind. Probes alone do not meet: a competitive
        // window leaves the sender a right edge a window ahead, so a probe
        // that measures as soon as the arrivals fall sees a queue its own
        // data still fills, and the others see no fall.
        let watching = self.mode == Mode::Competitive && self.probe.is_none();
        self.peak = if watching { self.peak.max(srtt) } else { Duration::ZERO };
        let fell = watching && srtt < self.peak.mul_f64(JOIN_FALL);
        if let Some(p) = self.probe.as_mut().filter(|p| p.measure.is_none()) {
            p.drain_deadline = p.drain_deadline.max(p.start + srtt.mul_f64(DRAIN_LIMIT));
        }
        match self.probe {
            Some(p) if self.probe_done(&p, now, rtt_m_star, target_queue) => {
                self.finish_probe(now, p, rtt_m_star, target_queue)
            }
            Some(p) => return Some(Decision::Window(p.rwnd)),
            None if join || fell || self.probe_due(now, deep) => {
                // Half the BDP, at the lower of the windowed and the last
                // period's rate (the rate may just have dropped): the link
                // stays about half used while the queue drains.
                let now_bdp = self.last_rate * rtt_m_star.as_secs_f64();
                let rwnd = (now_bdp.min(bdp * mss as f64) / 2.0).max(MIN_WINDOW_PKTS * mss as f64) as u64;
                // Arrivals show the queue draining only when the probe's
                // window is at most half what the link delivers in an RTT_m,
                // as planned: a queue still draining then brings twice the
                // window, clear of the DRAINED_ARRIVALS threshold. On a link
                // of a few packets per RTT the floor of four segments breaks
                // that (a 4-segment window on a 5-packet link took a full
                // buffer for drained at once), and the RTT samples decide.
                // In the start-up and competitive modes the last period's
                // rate is a share behind another sender's queue, not the
                // link's, and arrivals decide: a wait for the RTT there
                // would hold the window at a few packets for DRAIN_LIMIT
                // RTTs while the competitor grows.
                let by_arrivals = self.mode != Mode::Cooperative || 2.0 * (rwnd as f64) <= now_bdp;
                let drain =
                    if by_arrivals { Drain::Arrivals { from: now, read: 0, peaked: false } } else { Drain::Rtt };
                let drain_deadline = now + srtt.mul_f64(DRAIN_LIMIT);
                let competitive = self.mode == Mode::Competitive;
                self.pulses.stop();
                self.probe = Some(Probe {
                    drain,
                    start: now,
                    drain_deadline,
                    measure: None,
                    rwnd,
                    stale: false,
                    srtt: if fell { self.peak } else { srtt },
                    below: rtt_m_star + band(target_queue),
                    edge: competitive.then_some(self.edge),
                    joint: fell || (competitive && self.unconfirmed_drain),
                    floor: None,
                    sum_ns: 0,
                    n: 0,
                });
                return Some(Decision::Window(rwnd));
            }
            None => {}
        }
        // Growth is bounded by twice the bytes per RTT, as Linux's receive
        // buffer auto-tuning grows (RTAC eq. (12)).
        let cap = (2.0 * self.window.max().unwrap_or(0.0)) as u64;
        // Eq. (8) grows the window with RTT / RTT*_m: when the link slows
        // down (a cellular outage) the queue it finds raises the window.
        // Twice the bytes the last period delivered in one RTT*_m (DRWA's
        // lambda = 2 applied to the no-queue RTT, Jiang et al. 2012) is
        // more than RTAC's own operating point, theta BDP, and bounds that.
        let drain_cap =
            (DELIVERED_RTTS * self.last_rate * rtt_m_star.as_secs_f64()).max(MIN_WINDOW_PKTS * mss as f64) as u64;
        let gain = if self.mode == Mode::Cooperative {
            let step = self.pulses.on_period(above_band, self.last_rate);
            if let (Some(least), Some(m)) = (step.free, self.rtt_min()) {
                self.average_delta(least.saturating_sub(m));
            }
            step.gain
        } else {
            self.pulses.stop();
            1.0
        };
        Some(match self.mode {
            Mode::Cooperative => {
                Decision::Rtac { k: k_from_bdp(a, theta, bdp), rtt_m_star, cap: cap.min(drain_cap), gain }
            }
            // Not unbounded in competitive mode: a receiver does not pull
            // back a right edge it has advertised, so a window opened to
            // rmem_max would keep the next probe from draining anything
            // until that much had arrived, and RTAC would not see the
            // competitor go.
            Mode::Startup | Mode::Competitive => Decision::Grow(cap),
        })
    }

    /// Delta's moving average takes `sample` in.
    fn average_delta(&mut self, sample: Duration) {
        // It starts from zero: the first drained probe is usually the
        // start-up's, which drains queues that slow starts have just built
        // while it measures, and its mean is high.
        let d = self.delta.map_or(0.0, Duration::as_secs_f64);
        self.delta = Some(Duration::from_secs_f64(d + DELTA_GAIN * (sample.as_secs_f64() - d)));
    }

    /// Whether a probe is due, no probe being under way; `deep`: this
    /// period's queue is deeper than RTAC's own can be.
    fn probe_due(&self, now: Instant, deep: bool) -> bool {
        let since = self.quiet.map_or(Duration::ZERO, |q| now.saturating_since(q));
        let spaced = |interval: Duration| interval.max(self.srtt.mul_f64(PROBE_SPACING_RTTS));
        match self.mode {
            // The first probe comes at the first loss, which ends the slow
            // starts, and after MIN_PROBE_GAP at the latest (a sender that
            // never fills the buffer). Later ones, after a probe found the
            // queue standing, come at the first sign of a queue twice the
            // target, before the start-up has grown a deeper one.
            Mode::Startup if self.probes == 0 => self.lost || since >= MIN_PROBE_GAP,
            Mode::Startup => self.high_periods >= 1 || since >= MIN_PROBE_GAP,
            Mode::Cooperative => {
                // The first two probes follow each other closely: whose queue
                // it is matters most before a competitor has taken it.
                let gap = if self.probes < 2 { Duration::ZERO } else { MIN_PROBE_GAP };
                // After a probe found the queue standing, a queue deeper
                // than RTAC's own can be grew under another window while
                // RTAC's only shrank: the second probe, which decides, need
                // not wait for HIGH_PERIODS while the shrinking window
                // hands the competitor the link.
                let stood = self.undrained.is_some_and(|u| u.stood >= 1);
                let deeper = stood && deep && since >= MIN_PROBE_GAP;
                since >= spaced(PROBE_INTERVAL) || deeper || (self.high_periods >= HIGH_PERIODS && since >= gap)
            }
            Mode::Competitive => {
                since >= spaced(COMPETITIVE_PROBE_INTERVAL) || (self.unconfirmed_drain && since >= MIN_PROBE_GAP)
            }
        }
    }
}

#[path = "rtac_probe.rs"]
mod probe;

#[cfg(test)]
#[path = "rtac_tuning_tests.rs"]
mod tests;
