//! The criteria: whether a receiver did its job on a network, judged
//! against the baseline receiver on the same network and seed.
//!
//! - Single flow (fixed, jitter, trace, loss): throughput at least 0.9 of
//!   the baseline's, and mean RTT at most max(0.5 x the baseline's,
//!   1.6 x the base RTT). The base RTT is the no-queue RTT: propagation
//!   and, on a wireless channel, its mean extra delay
//!   (`Network::base_rtt_ms`). The first bound says the window may not
//!   cost throughput; the second, that it must remove at least half of the
//!   queue the baseline keeps, unless the RTT is already within 60 % of the
//!   path's own (where there was little bloat to fix). Catastrophic: a
//!   failing case with throughput under 0.5 of the baseline's, or an RTT
//!   above 1.1 x the baseline's (worse than doing nothing). A passing case
//!   is never catastrophic: a baseline held by its 16 MB buffer on a long
//!   fat path keeps no queue, and a receiver that fills the path at up to
//!   1.6 x the base RTT does better, not worse.
//! - No bloat to fix (aqm, bbr): throughput at least 0.95 of the
//!   baseline's; the queue is bounded by the router or the sender already.
//! - Shared queue: the receiver's throughput over the competitor's at
//!   least 0.7 x min(1, the same ratio with the baseline in its seat). A
//!   Linux receiver beside a BBR sender may keep less than an even share;
//!   the receiver is asked to keep 70 % of what it would keep.
//! - Several connections of one receiver (multi): the receiver as a whole
//!   (`rtac_sim::ReceiverResult`): its throughput at least 0.9 of the
//!   baseline receiver's, its mean RTT at most max(0.5 x the baseline's,
//!   2 x base), and Jain's index over its connections at least 0.9. The
//!   baseline, Linux auto-tuning, has no per-link form: its connections
//!   each run their own.

use crate::draw::{Category, Network};
use rtac_sim::RunResult;

/// What was measured of one receiver on one network.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    /// Total throughput of the flows under test, Mbit/s.
    pub mbps: f64,
    /// Mean RTT of the flows under test, weighted by samples, ms.
    pub rtt_ms: f64,
    /// Throughput of the flows under test over the competitor's (shared).
    pub share: Option<f64>,
    /// Jain's index over the flows under test (several connections).
    pub jain: Option<f64>,
}

/// The measures of the flows under test in `r`: flows `0..count`, or the
/// receiver they are the connections of; the competitor, if any, is the
/// flow after them.
pub fn measure(net: &Network, r: &RunResult) -> Measure {
    let mut m = measure_flows(net, r);
    if let Some(h) = net.receiver.and_then(|name| r.receivers.iter().find(|h| h.name == name)) {
        m.mbps = h.throughput_mbps;
        m.rtt_ms = if h.rtt_samples == 0 { 0.0 } else { h.rtt_mean_ms };
        m.jain = Some(h.jain.unwrap_or(0.0));
        m.share =
            net.competitor.and_then(|_| r.flows.get(net.count as usize)).map(|c| m.mbps / c.throughput_mbps.max(1e-9));
    }
    m
}

/// The measures of flows `0..count` taken one by one.
fn measure_flows(net: &Network, r: &RunResult) -> Measure {
    let n = net.count as usize;
    let test = &r.flows[..n.min(r.flows.len())];
    let mbps: f64 = test.iter().map(|f| f.throughput_mbps).sum();
    let samples: u64 = test.iter().map(|f| f.rtt_samples).sum();
    let rtt_ms = test.iter().map(|f| f.rtt_mean_ms * f.rtt_samples as f64).sum::<f64>() / samples.max(1) as f64;
    let share = net.competitor.and_then(|_| r.flows.get(n)).map(|c| mbps / c.throughput_mbps.max(1e-9));
    let jain = (n > 1).then(|| {
        let s: f64 = test.iter().map(|f| f.throughput_mbps).sum();
        let s2: f64 = test.iter().map(|f| f.throughput_mbps * f.throughput_mbps).sum();
        if s2 > 0.0 {
            s * s / (n as f64 * s2)
        } else {
            0.0
        }
    });
    Measure { mbps, rtt_ms, share, jain }
}

/// A receiver's result on a network against the baseline's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    pub pass: bool,
    /// Only single-flow categories can be catastrophic.
    pub catastrophic: bool,
    /// Throughput over the baseline's.
    pub thr_ratio: f64,
    /// Mean RTT over the baseline's.
    pub rtt_ratio: f64,
    /// Shared: the share over the one asked for (>= 1 passes).
    pub share_ratio: Option<f64>,
}

pub fn judge(net: &Network, m: &Measure, base: &Measure) -> Verdict {
    let thr_ratio = m.mbps / base.mbps.max(1e-9);
    let rtt_ratio = m.rtt_ms / base.rtt_ms.max(1e-9);
    let base_rtt = net.base_rtt_ms();
    let mut v = Verdict { pass: false, catastrophic: false, thr_ratio, rtt_ratio, share_ratio: None };
    match net.category {
        Category::Fixed | Category::Jitter | Category::Trace | Category::Loss => {
            v.pass = thr_ratio >= 0.9 && m.rtt_ms <= (0.5 * base.rtt_ms).max(1.6 * base_rtt);
            v.catastrophic = !v.pass && (thr_ratio < 0.5 || rtt_ratio > 1.1);
        }
        Category::Aqm | Category::Bbr => v.pass = thr_ratio >= 0.95,
        Category::Shared => {
            let asked = 0.7 * base.share.unwrap_or(1.0).min(1.0);
            let r = m.share.unwrap_or(0.0) / asked.max(1e-9);
            v.share_ratio = Some(r);
            v.pass = r >= 1.0;
        }
        Category::Multi => {
            v.pass =
                thr_ratio >= 0.9 && m.rtt_ms <= (0.5 * base.rtt_ms).max(2.0 * base_rtt) && m.jain.unwrap_or(1.0) >= 0.9;
        }
    }
    v
}

/// How bad a failure is, for ordering the worst cases: 0 for a pass,
/// larger is worse.
pub fn badness(v: &Verdict) -> f64 {
    if v.pass {
        return 0.0;
    }
    let thr = (1.0 - v.thr_ratio).max(0.0);
    let rtt = (v.rtt_ratio - 0.5).max(0.0);
    let share = v.share_ratio.map_or(0.0, |r| (1.0 - r).max(0.0));
    thr + rtt + share + if v.catastrophic { 1.0 } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{run_network, scenario, LinkService, Pool, Receiver, Settings, Traces, DEFAULT_BASELINE};

    /// A multi network's connections are one receiver, measured as one:
    /// its throughput, its mean RTT and Jain's index over its connections.
    #[test]
    fn a_multi_network_is_one_receiver_judged_as_a_whole() {
        let s = Settings {
            seed: 1,
            n: 64,
            categories: vec![Category::Multi],
            pool: Pool::default(),
            baseline: Receiver::parse(DEFAULT_BASELINE).unwrap(),
            receivers: vec![Receiver::parse("rtac").unwrap()],
        };
        // A slow link, for a short test.
        let index = (0..64)
            .find(|&i| matches!(s.network(i).service, LinkService::Rate(bps) if bps < 20e6))
            .expect("a link under 20 Mbit/s among 64 draws");
        let net = s.network(index);
        assert_eq!(net.receiver, Some(crate::draw::MULTI_HOST));
        let sc = scenario(&s, &net, &Traces::default()).unwrap();
        assert!(sc.flows.iter().all(|f| f.receiver.as_deref() == Some("host")));
        let hosts = sc.hosts();
        assert_eq!(hosts.len(), 1);
        assert_eq!(hosts[0].flows.len(), net.count as usize);
        for c in &sc.controllers {
            let r = rtac_sim::run(&sc, c, &Default::default());
            let m = measure(&net, &r);
            let h = &r.receivers[0];
            assert_eq!((m.mbps, m.rtt_ms, m.jain), (h.throughput_mbps, h.rtt_mean_ms, h.jain));
            let sum: f64 = r.flows.iter().map(|f| f.throughput_mbps).sum();
            assert!((m.mbps - sum).abs() <= 1e-9 * sum, "the connections run over the same span: {} vs {sum}", m.mbps);
        }
        let r = run_network(&s, index, &Traces::default()).unwrap();
        let (m, v) = &r.receivers[0];
        assert_eq!(
            v.pass,
            m.mbps >= 0.9 * r.base.mbps
                && m.rtt_ms <= (0.5 * r.base.rtt_ms).max(2.0 * net.base_rtt_ms())
                && m.jain.unwrap() >= 0.9
        );
    }
}
