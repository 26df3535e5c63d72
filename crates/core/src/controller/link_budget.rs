//! One window budget per access link: the connections of one receiver that
//! cross the same access queue share one RTAC state, in the way RFC 3124
//! (the Congestion Manager, §2) shares one congestion state among a
//! sender's flows to one destination, applied at the receiver, where the
//! bloated queue is.
//!
//! Two facts hold for every connection of a host behind one access link,
//! and for no connection alone:
//!
//! - they all see the same queueing delay, each above its own base RTT
//!   (the servers are at different distances);
//! - their delivery rates add up to the link's.
//!
//! So one [`Rtac`] runs on the aggregate, as if it were a single connection
//! with the sum of the rates and the rate-weighted mean base RTT:
//!
//! - **Queue**: each connection's RTT sample becomes the aggregate's as
//!   `anchor + (rtt - base_i)`, where `base_i` is the connection's own
//!   minimum RTT and `anchor` the rate-weighted mean of the `base_i`. With
//!   `sum_i w_i = sum_i r_i (base_i + d) = R (anchor + d)`, the aggregate
//!   is exactly one connection of rate R, base RTT `anchor` and queueing
//!   delay d, which is what RTAC's equations (6), (8), (10) assume. A
//!   sample is never below the anchor, so the aggregate's minimum RTT is
//!   never pulled below it by a connection that joined a standing queue
//!   (whose `base_i` is then too high until it sees a drained queue).
//!   Such a connection's samples are left out until the aggregate's next
//!   drain probe has shown it the empty queue ([`Member::confirmed`]).
//! - **Rate**: every connection's consumed bytes go to the aggregate's
//!   per-RTT counter (RTAC Alg. 1 line 1 over the sum).
//! - **Budget**: the aggregate's window W at its smoothed RTT T is a rate
//!   W / T. Connection i gets a share `a_i` of that rate and the window
//!   `a_i (base_i + d)`; with equal base RTTs this is `W a_i / R`.
//! - **Split by demand**: the rate is water-filled (max-min fair,
//!   Bertsekas and Gallager, *Data Networks*, §6.5.2) over the connections,
//!   each capped at twice what it delivered in the last period, and never
//!   below an initial window per RTT (RFC 6928's ten segments). Twice the
//!   delivered bytes is Linux receive auto-tuning's own growth per RTT
//!   (RTAC eq. (12)), so a connection that starts, or an application that
//!   reads slowly, grows as it would alone, while a bulk download, held at
//!   its share, delivers that share and keeps it. An idle connection holds
//!   one initial window, not a share; one that ends returns its share at
//!   once.
//! - **Joining** takes no start-up: a new connection's share comes out of
//!   the same W, so the queue does not grow by a start-up per connection.
//!   Drain probes cut every connection at once, so the connections of a
//!   host drain together by construction.
//!
//! With one connection every event goes to the aggregate unchanged and its
//! window is the aggregate's: a lone connection is exactly `rtac`.

use super::rtac::{Rtac, RtacParams};
use super::{Controller, ControllerError, ControllerKind, ControllerState, Params};
use crate::estimators::{clamp_rwnd, RttEwma};
use crate::time::{Duration, Instant};
use std::sync::{Arc, Mutex, MutexGuard};

/// Linux's initial congestion window, in segments (RFC 6928): the least
/// window a connection holds, per its RTT, when it delivers nothing.
pub const INITIAL_SEGMENTS: u64 = 10;

/// The least window of a connection in a budget of several, in whole
/// segments after the receiver rounds it down to its window-scale unit:
/// a receiver acknowledges every second full segment at once and a lone
/// one only after its delayed-ACK timer (RFC 1122 §4.2.3.2, RFC 5681
/// §4.2), so a connection held under two segments sends one per timeout.
/// A share of a small budget split among many connections fell there:
/// eight connections of a 5 Mbit/s x 20 ms link sat at one segment each,
/// 1.5 of 4.8 Mbit/s, for the rest of the run. With n connections the
/// budget is then at least 2n segments. (Four whole segments, fast
/// retransmit's least window, passed fewer of the census's
/// several-connection networks: 89.2 % of 800 of seed 17, against 91.9.)
pub const MIN_SEGMENTS: u64 = 2;

/// The cap on a connection's share, in times what it delivered in the last
/// period: receive auto-tuning's growth per RTT (RTAC eq. (12)).
pub const DEMAND_GROWTH: f64 = 2.0;

/// A per-link budget: a handle that connections join. Cloning the handle
/// gives another handle to the same budget.
#[derive(Clone, Debug)]
pub struct LinkBudget {
    shared: Arc<Mutex<Shared>>,
}

/// One connection's place in a [`LinkBudget`]; it plays the [`Controller`]
/// role for that connection and leaves the budget when dropped.
#[derive(Debug)]
pub struct LinkMember {
    shared: Arc<Mutex<Shared>>,
    id: u64,
}

/// What a budget holds now, for status output and logs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BudgetState {
    /// Connections in the budget.
    pub connections: usize,
    /// The aggregate window, bytes.
    pub window: Option<u64>,
    /// The rate the window allows, W / T, bytes per second.
    pub rate: Option<f64>,
    /// The estimate of the shared queueing delay: the aggregate's smoothed
    /// RTT above its RTT*_m.
    pub queue_delay: Option<Duration>,
    /// The aggregate's base RTT (the rate-weighted mean of the
    /// connections' minimum RTTs).
    pub anchor: Option<Duration>,
    /// True while a drain probe holds every connection's window down.
    pub probing: bool,
}

#[derive(Debug)]
struct Shared {
    params: RtacParams,
    mss: u32,
    agg: Rtac,
    members: Vec<Member>,
    next_id: u64,
    /// Drain probes the aggregate has ended.
    probes: u64,
    was_probing: bool,
    /// The rate-weighted mean base RTT of the confirmed members.
    anchor: Option<Duration>,
    /// The current period of the members' delivery rates.
    period_start: Option<Instant>,
}

#[derive(Clone, Debug)]
struct Member {
    id: u64,
    /// The connection's own minimum RTT.
    base: Option<Duration>,
    srtt: RttEwma,
    /// Its samples reach the aggregate: it has seen the queue drained (or
    /// was the first one).
    confirmed: bool,
    /// Probes ended before it joined.
    joined_after: u64,
    /// Bytes consumed in the current period.
    bytes: u64,
    /// Its delivery rate in the last period, bytes per second.
    rate: Option<f64>,
    /// Its share of the aggregate rate, in [0, 1].
    share: f64,
}

/// The unit of an advertised window under the window scale a receiver
/// picks for a buffer of `rmem_max` bytes: the smallest shift with
/// 65,535 << shift covering it (RFC 7323 §2.3, as Linux picks it).
fn scale_unit(rmem_max: u64) -> u64 {
    (0..14).map(|s| 1u64 << s).find(|g| 65_535 * g >= rmem_max).unwrap_or(1 << 14)
}

fn lock(m: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    // A panic elsewhere while holding the lock leaves numbers, not broken
    // invariants: carry on with them rather than fail every connection.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl LinkBudget {
    /// A budget running the RTAC of `params` on the aggregate, counting
    /// packets of `mss` bytes.
    pub fn new(params: RtacParams, mss: u32) -> Self {
        let agg = Rtac::new(params.clone(), mss);
        let shared = Shared {
            params,
            mss,
            agg,
            members: Vec::new(),
            next_id: 0,
            probes: 0,
            was_probing: false,
            anchor: None,
            period_start: None,
        };
        LinkBudget { shared: Arc::new(Mutex::new(shared)) }
    }

    /// The budget that connections of one receiver on one access link
    /// share under controller `kind` with `params`: `Some` for `rtac`
    /// unless `budget=connection`; `None` for a controller without a
    /// per-link form (each connection keeps its own). Bad parameters are
    /// the errors [`super::AnyController::new`] gives.
    pub fn for_choice(kind: ControllerKind, mss: u32, params: &Params) -> Result<Option<Self>, ControllerError> {
        if kind != ControllerKind::Rtac {
            return Ok(None);
        }
        let p = RtacParams::from_params(params)?;
        Ok(p.per_link.then(|| LinkBudget::new(p, mss)))
    }

    /// A new connection joins. A budget that has no connection left starts
    /// afresh: what it knew of the link may be stale.
    pub fn join(&self) -> LinkMember {
        let mut s = lock(&self.shared);
        if s.members.is_empty() {
            s.agg = Rtac::new(s.params.clone(), s.mss);
            (s.probes, s.was_probing, s.anchor, s.period_start) = (0, false, None, None);
        }
        let id = s.next_id;
        s.next_id += 1;
        // The first connection, and any under a fixed K (which keeps the
        // all-time minimum and never probes), count from the start.
        let confirmed = s.members.iter().all(|m| m.base.is_none()) || !s.params.self_tuning();
        let joined_after = s.probes;
        let srtt = RttEwma::new(s.params.beta);
        s.members.push(Member { id, base: None, srtt, confirmed, joined_after, bytes: 0, rate: None, share: 0.0 });
        s.split();
        LinkMember { shared: Arc::clone(&self.shared), id }
    }

    pub fn state(&self) -> BudgetState {
        lock(&self.shared).state()
    }
}

impl Shared {
    fn member(&mut self, id: u64) -> Option<&mut Member> {
        self.members.iter_mut().find(|m| m.id == id)
    }

    fn state(&self) -> BudgetState {
        let st = self.agg.state();
        let queue_delay = match (st.rtt, st.rtt_min) {
            (Some(r), Some(m)) => Some(r.saturating_sub(m)),
            _ => None,
        };
        BudgetState {
            connections: self.members.len(),
            window: self.agg.rwnd(),
            rate: self.rate(),
            queue_delay,
            anchor: self.anchor,
            probing: self.agg.probing(),
        }
    }

    /// The rate the aggregate window allows, bytes per second: W / T.
    fn rate(&self) -> Option<f64> {
        let srtt = self.agg.state().rtt?.as_secs_f64();
        Some(self.agg.rwnd()? as f64 / srtt.max(1e-6))
    }

    /// After every event: a drain probe that ended confirms the members
    /// that were there while it ran.
    fn after_event(&mut self) {
        let probing = self.agg.probing();
        if self.was_probing && !probing {
            self.probes += 1;
            let probes = self.probes;
            for m in self.members.iter_mut().filter(|m| m.joined_after < probes && m.base.is_some()) {
                m.confirmed = true;
            }
        }
        self.was_probing = probing;
        // Without a confirmed member left, the others' minima are the best
        // there is.
        if !self.members.iter().any(|m| m.confirmed) {
            for m in &mut self.members {
                m.confirmed = true;
            }
        }
    }

    /// The rate-weighted mean base RTT of the confirmed members (equal
    /// weights until rates are measured).
    fn update_anchor(&mut self) {
        let (mut sum, mut weight) = (0.0, 0.0);
        let measured = self.members.iter().any(|m| m.confirmed && m.rate.is_some_and(|r| r > 0.0));
        for m in self.members.iter().filter(|m| m.confirmed) {
            let Some(base) = m.base else { continue };
            let w = if measured { m.rate.unwrap_or(0.0) } else { 1.0 };
            sum += w * base.as_nanos() as f64;
            weight += w;
        }
        if weight > 0.0 {
            self.anchor = Some(Duration::from_nanos((sum / weight).round() as u64));
        }
    }

    /// Ends a period of the members' delivery rates once it has lasted the
    /// aggregate's smoothed RTT.
    fn roll(&mut self, now: Instant) {
        let Some(srtt) = self.agg.state().rtt else { return };
        let Some(start) = self.period_start else {
            self.period_start = Some(now);
            return;
        };
        let span = now.saturating_since(start);
        if span < srtt || span.is_zero() {
            return;
        }
        for m in &mut self.members {
            m.rate = Some(std::mem::take(&mut m.bytes) as f64 / span.as_secs_f64());
        }
        self.period_start = Some(now);
        // Connections that joined a standing queue wait for a drain probe
        // to learn their base RTT; if every confirmed one has gone quiet
        // (an idle keep-alive connection), no probe may come, and their
        // minima are the best there is.
        if !self.members.iter().any(|m| m.confirmed && m.rate.is_some_and(|r| r > 0.0)) {
            for m in self.members.iter_mut().filter(|m| m.base.is_some()) {
                m.confirmed = true;
            }
        }
        self.update_anchor();
        self.split();
    }

    /// Water-fills the aggregate rate over the members, each capped by its
    /// demand: max-min fair shares (Bertsekas and Gallager §6.5.2).
    fn split(&mut self) {
        let n = self.members.len();
        if n == 0 {
            return;
        }
        let (Some(total), Some(srtt)) = (self.rate(), self.agg.state().rtt) else {
            for m in &mut self.members {
                m.share = 1.0 / n as f64;
            }
            return;
        };
        let d = self.queue_delay_now(srtt);
        let floor_bytes = (INITIAL_SEGMENTS * self.mss as u64) as f64;
        let mut caps: Vec<(f64, usize)> = self
            .members
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let rtt = m.base.map_or(srtt, |b| b + d).as_secs_f64().max(1e-6);
                let floor = floor_bytes / rtt;
                let cap = m.rate.map_or(floor, |r| (DEMAND_GROWTH * r).max(floor));
                (cap, i)
            })
            .collect();
        caps.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut left = total;
        for (k, &(cap, i)) in caps.iter().enumerate() {
            let fair = left / (n - k) as f64;
            let alloc = cap.min(fair).max(0.0);
            left -= alloc;
            self.members[i].share = if total > 0.0 { alloc / total } else { 1.0 / n as f64 };
        }
    }

    /// The shared queueing delay the aggregate sees: its smoothed RTT above
    /// the anchor.
    fn queue_delay_now(&self, srtt: Duration) -> Duration {
        self.anchor.map_or(Duration::ZERO, |a| srtt.saturating_sub(a))
    }

    fn window_of(&self, id: u64) -> Option<u64> {
        let w = self.agg.rwnd()?;
        if self.members.len() == 1 {
            return Some(w);
        }
        let m = self.members.iter().find(|m| m.id == id)?;
        let st = self.agg.state();
        // With equal base RTTs the window is the share of W; a connection
        // whose base RTT differs from the anchor keeps its rate at its own
        // RTT, base_i + d.
        let scale = match (st.rtt, m.base, self.anchor) {
            (Some(srtt), Some(base), Some(_)) => {
                let own = base + self.queue_delay_now(srtt);
                own.as_secs_f64() / srtt.as_secs_f64().max(1e-9)
            }
            _ => 1.0,
        };
        // The receiver advertises a multiple of its window scale's unit g
        // and rounds down: g - 1 more keeps MIN_SEGMENTS whole.
        let g = scale_unit(self.params.rmem_max) as f64;
        let floor = (MIN_SEGMENTS * self.mss as u64) as f64 + g - 1.0;
        Some(clamp_rwnd((w as f64 * m.share * scale).max(floor), self.mss, self.params.rmem_max))
    }
}

impl Controller for LinkMember {
    fn on_rtt_sample(&mut self, now: Instant, rtt: Duration) {
        if rtt.is_zero() {
            return;
        }
        let mut s = lock(&self.shared);
        let single = s.members.len() == 1;
        let Some(m) = s.member(self.id) else { return };
        m.srtt.on_sample(rtt);
        let base = m.base.map_or(rtt, |b| b.min(rtt));
        m.base = Some(base);
        let confirmed = m.confirmed;
        if single {
            s.anchor = Some(base);
            s.agg.on_rtt_sample(now, rtt);
        } else if confirmed {
            if s.anchor.is_none() {
                s.update_anchor();
            }
            let anchor = s.anchor.unwrap_or(base);
            s.agg.on_rtt_sample(now, anchor + rtt.saturating_sub(base));
        }
        s.after_event();
    }

    fn on_data_consumed(&mut self, now: Instant, bytes: u64) {
        let mut s = lock(&self.shared);
        if let Some(m) = s.member(self.id) {
            m.bytes += bytes;
        }
        s.agg.on_data_consumed(now, bytes);
        s.roll(now);
        s.after_event();
    }

    /// A loss in the shared queue is the aggregate's: it answers whether a
    /// loss-based sender fills the buffer (`rtac_tuning.rs`).
    fn on_sequence_hole(&mut self, now: Instant) {
        let mut s = lock(&self.shared);
        s.agg.on_sequence_hole(now);
        s.after_event();
    }

    fn rwnd(&self) -> Option<u64> {
        lock(&self.shared).window_of(self.id)
    }

    fn state(&self) -> ControllerState {
        let s = lock(&self.shared);
        let agg = s.agg.state();
        let m = s.members.iter().find(|m| m.id == self.id);
        let share = m.map_or(0.0, |m| m.share);
        ControllerState {
            rtt: m.and_then(|m| m.srtt.srtt()),
            rtt_min: m.and_then(|m| m.base),
            window_bytes: agg.window_bytes.map(|w| (w as f64 * share).round() as u64),
        }
    }

    fn max_window(&self) -> Option<u64> {
        Some(lock(&self.shared).params.rmem_max)
    }

    fn defers_to_kernel(&self) -> bool {
        lock(&self.shared).agg.defers_to_kernel()
    }
}

impl LinkMember {
    /// The budget this connection belongs to.
    pub fn budget(&self) -> LinkBudget {
        LinkBudget { shared: Arc::clone(&self.shared) }
    }

    /// This connection's share of the aggregate rate, in [0, 1].
    pub fn share(&self) -> f64 {
        let s = lock(&self.shared);
        s.members.iter().find(|m| m.id == self.id).map_or(0.0, |m| m.share)
    }
}

impl Drop for LinkMember {
    /// A connection that ends returns its share at once.
    fn drop(&mut self) {
        let mut s = lock(&self.shared);
        s.members.retain(|m| m.id != self.id);
        if s.members.iter().all(|m| !m.confirmed) {
            for m in &mut s.members {
                m.confirmed = true;
            }
        }
        s.update_anchor();
        s.split();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::AnyController;

    const MSS: u32 = 1448;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    /// `n` connections of one budget fed in turn: per step of 1 ms each
    /// gets an RTT sample `rtt(i, t)` and consumes `bytes(i, t)`.
    fn drive(
        members: &mut [LinkMember],
        from: u64,
        to: u64,
        rtt: impl Fn(usize, u64) -> Duration,
        bytes: impl Fn(usize, u64) -> u64,
    ) {
        for t in from..to {
            let now = Instant::from_millis(t);
            for (i, m) in members.iter_mut().enumerate() {
                m.on_rtt_sample(now, rtt(i, t));
                m.on_data_consumed(now, bytes(i, t));
            }
        }
    }

    fn jain(x: &[f64]) -> f64 {
        let s: f64 = x.iter().sum();
        s * s / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
    }

    #[test]
    fn one_connection_is_rtac_itself() {
        // The same events, one by one, to a lone member and to a plain
        // controller: every window equal, start-up and probes included.
        let b = LinkBudget::new(RtacParams::default(), MSS);
        let mut m = b.join();
        let mut plain = Rtac::new(RtacParams::default(), MSS);
        for t in 0..30_000u64 {
            let now = Instant::from_millis(t);
            // A queue that builds with the window and a loss at 3 s.
            let rtt = ms(40 + (t / 7) % 30);
            m.on_rtt_sample(now, rtt);
            plain.on_rtt_sample(now, rtt);
            if t == 3_000 {
                m.on_sequence_hole(now);
                plain.on_sequence_hole(now);
            }
            let bytes = 1448 * (1 + t % 3);
            m.on_data_consumed(now, bytes);
            plain.on_data_consumed(now, bytes);
            assert_eq!(m.rwnd(), plain.rwnd(), "t = {t} ms");
            assert_eq!(m.defers_to_kernel(), plain.defers_to_kernel(), "t = {t} ms");
        }
    }

    #[test]
    fn equal_bulk_connections_split_the_window_equally() {
        let b = LinkBudget::new(RtacParams::default(), MSS);
        let mut ms4: Vec<LinkMember> = (0..4).map(|_| b.join()).collect();
        drive(&mut ms4, 0, 20_000, |_, t| ms(50 + (t % 10)), |_, _| 1448);
        let w: Vec<f64> = ms4.iter().map(|m| m.rwnd().unwrap() as f64).collect();
        assert!(jain(&w) > 0.99, "{w:?}");
        let total: f64 = w.iter().sum();
        let agg = b.state().window.unwrap() as f64;
        assert!((total - agg).abs() <= 0.02 * agg, "the shares add up to the budget: {total} vs {agg}");
    }

    #[test]
    fn an_idle_connection_holds_one_initial_window_and_returns_it_when_it_ends() {
        let b = LinkBudget::new(RtacParams::default(), MSS);
        let mut ms3: Vec<LinkMember> = (0..3).map(|_| b.join()).collect();
        // Connection 2 delivers nothing.
        drive(&mut ms3, 0, 20_000, |_, _| ms(50), |i, _| if i == 2 { 0 } else { 2 * 1448 });
        let idle = ms3[2].rwnd().unwrap();
        let bulk = ms3[0].rwnd().unwrap();
        assert!(idle <= INITIAL_SEGMENTS * MSS as u64 + MSS as u64, "idle {idle}");
        assert!(bulk > 4 * idle, "bulk {bulk} idle {idle}");
        let agg = b.state().window.unwrap() as f64;
        drop(ms3.pop());
        let after = ms3[0].rwnd().unwrap() as f64;
        assert!(after >= bulk as f64 && after <= 0.51 * agg, "{bulk} -> {after} of {agg}");
        assert_eq!(b.state().connections, 2);
    }

    #[test]
    fn a_slow_reader_is_capped_at_twice_what_it_reads() {
        let b = LinkBudget::new(RtacParams::default(), MSS);
        let mut ms2: Vec<LinkMember> = (0..2).map(|_| b.join()).collect();
        // Connection 1 reads 50 KB per 50 ms RTT; connection 0 more.
        drive(
            &mut ms2,
            0,
            20_000,
            |_, _| ms(50),
            |i, t| if i == 1 { u64::from(t % 50 == 0) * 51_200 } else { 8 * 1448 },
        );
        let slow = ms2[1].rwnd().unwrap() as f64;
        assert!((1.5 * 51_200.0..=2.2 * 51_200.0).contains(&slow), "slow reader's window {slow}");
        assert!(ms2[0].rwnd().unwrap() as f64 > 2.0 * slow);
    }

    #[test]
    fn a_connection_that_joins_a_standing_queue_does_not_lower_the_base_rtt() {
        let b = LinkBudget::new(RtacParams::default(), MSS);
        let mut first = vec![b.join()];
        drive(&mut first, 0, 1_000, |_, t| ms(40 + t / 100), |_, _| 1448);
        let anchor = b.state().anchor.unwrap();
        assert_eq!(anchor, ms(40));
        // The second connection first sees 60 ms of queue above a 100 ms base.
        let mut both = vec![first.pop().unwrap(), b.join()];
        drive(&mut both, 1_000, 2_000, |i, _| if i == 0 { ms(100) } else { ms(160) }, |_, _| 1448);
        let st = b.state();
        assert_eq!(st.anchor, Some(ms(40)), "the unconfirmed connection's minimum is not the link's");
        assert!(st.queue_delay.unwrap() > ms(40), "{:?}", st.queue_delay);
    }

    #[test]
    fn connections_at_different_distances_keep_their_rates_at_their_own_rtts() {
        let b = LinkBudget::new(RtacParams::paper(3e-7), MSS);
        let mut ms2: Vec<LinkMember> = (0..2).map(|_| b.join()).collect();
        // Bases 20 and 200 ms, the same 10 ms of queue, equal rates.
        drive(&mut ms2, 0, 20_000, |i, _| if i == 0 { ms(30) } else { ms(210) }, |_, _| 1448);
        let (near, far) = (ms2[0].rwnd().unwrap() as f64, ms2[1].rwnd().unwrap() as f64);
        let want = 210.0 / 30.0;
        assert!((far / near - want).abs() < 0.15 * want, "far / near = {}", far / near);
    }

    #[test]
    fn many_connections_on_a_small_budget_keep_two_whole_segments_each() {
        // A 2 Mbit/s x 20 ms path (about 3.5 segments per RTT) with 16
        // connections: a share of the budget alone would be a fraction of
        // a segment, which stalls on the delayed ACK.
        let b = LinkBudget::new(RtacParams::default(), MSS);
        let mut all: Vec<LinkMember> = (0..16).map(|_| b.join()).collect();
        drive(&mut all, 0, 20_000, |_, t| ms(20 + (t % 20) / 4), |i, t| u64::from(t % 96 == 6 * i as u64) * 1448);
        let agg = b.state().window.unwrap();
        assert!(agg < 16 * MIN_SEGMENTS * MSS as u64, "the budget alone would give less: {agg}");
        for m in &all {
            // Whole segments, after the receiver's rounding to 2 KB units.
            let advertised = m.rwnd().unwrap() / 2048 * 2048;
            assert!(advertised >= MIN_SEGMENTS * MSS as u64, "{:?}", m.rwnd());
        }
    }

    #[test]
    fn a_joiner_counts_once_the_others_have_gone_quiet() {
        let b = LinkBudget::new(RtacParams::default(), MSS);
        let mut first = vec![b.join()];
        drive(&mut first, 0, 1_000, |_, _| ms(40), |_, _| 1448);
        let mut both = vec![first.pop().unwrap(), b.join()];
        // The first connection idles (a keep-alive); the second sees 40 ms
        // of queue above its 100 ms base at first, then the queue grows.
        drive(
            &mut both,
            1_000,
            3_000,
            |i, t| if i == 0 { ms(40) } else { ms(140 + (t - 1_000) / 20) },
            |i, _| {
                if i == 0 {
                    0
                } else {
                    1448
                }
            },
        );
        let st = b.state();
        assert_eq!(st.anchor, Some(ms(140)), "the joiner's minimum is the link's now");
        assert!(st.queue_delay.unwrap() > ms(20), "its queue counts: {:?}", st.queue_delay);
    }

    #[test]
    fn the_scale_unit_is_the_one_a_receiver_picks_for_its_buffer() {
        assert_eq!(scale_unit(64 << 20), 2048, "64 MiB is just over 65535 << 10");
        assert_eq!(scale_unit(65_535), 1);
        assert_eq!(scale_unit(16 << 20), 512, "16 MiB is just over 65535 << 8");
    }

    #[test]
    fn only_rtac_with_a_link_budget_has_one() {
        let p = Params::new();
        assert!(LinkBudget::for_choice(ControllerKind::Rtac, MSS, &p).unwrap().is_some());
        let off = Params::parse_list("budget=connection").unwrap();
        assert!(LinkBudget::for_choice(ControllerKind::Rtac, MSS, &off).unwrap().is_none());
        assert!(LinkBudget::for_choice(ControllerKind::Drwa, MSS, &p).unwrap().is_none());
        let bad = Params::parse_list("budget=host").unwrap();
        assert!(matches!(
            LinkBudget::for_choice(ControllerKind::Rtac, MSS, &bad),
            Err(ControllerError::BadValue { .. })
        ));
        // A member is a controller like any other.
        let b = LinkBudget::for_choice(ControllerKind::Rtac, MSS, &p).unwrap().unwrap();
        let c = AnyController::Link(b.join());
        assert_eq!(c.kind(), ControllerKind::Rtac);
        assert_eq!(c.rwnd(), Some(65_536));
    }
}
