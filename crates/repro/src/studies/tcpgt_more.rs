//! TCP-GT (Jung et al., JCN 2010): Fig. 7 (RTTs 40-80 ms), Fig. 8 (100
//! flows join and leave), Fig. 12 (web-like flows beside long ones) and the
//! paper's TCP-unfriendliness (section V: TCP-GT yields to loss-based
//! flows).

use super::tcpgt::{dumbbell, jain, shares, total_drops, SRC, STARTS};
use super::{claim, flag, fmt1, get};
use crate::{Analysis, Check, Job, Plots, Results, Study, StudyError};
use rtac_core::rng::Rng;
use rtac_core::{Bandwidth, Duration};
use rtac_plot::{SweepChart, TimeSeriesChart};
use rtac_sim::{CcKind, RunResult, Scenario};

pub(crate) fn studies() -> Vec<Study> {
    vec![
        Study {
            id: "tcpgt-fig7",
            source: "TCP-GT Fig. 7",
            title: "Five flows with RTTs 40, 50, 60, 70 and 80 ms joining 20 s apart: fairness, utilisation, queue",
            jobs: fig7_jobs,
            analyse: fig7,
        },
        Study {
            id: "tcpgt-fig8",
            source: "TCP-GT Fig. 8",
            title: "Ten long flows; 100 more join at 50 s and leave at 100 s",
            jobs: fig8_jobs,
            analyse: fig8,
        },
        Study {
            id: "tcpgt-fig12",
            source: "TCP-GT Fig. 12",
            title: "Long flows beside web-like sessions: TCP-GT against CUBIC",
            jobs: fig12_jobs,
            analyse: fig12,
        },
        Study {
            id: "tcpgt-friendliness",
            source: "TCP-GT sec. V",
            title: "TCP-GT flows sharing a bottleneck with CUBIC flows",
            jobs: friendly_jobs,
            analyse: friendly,
        },
    ]
}

/// Mean of the flows' summed per-second throughput over seconds [a, b) of
/// the run, each flow's series aligned at its start, as a fraction of
/// `rate`.
fn utilisation(run: &RunResult, sc_starts: &[f64], a: usize, b: usize, rate: Bandwidth) -> f64 {
    let mut total = vec![0.0; b.saturating_sub(a)];
    for (f, &start) in run.flows.iter().zip(sc_starts) {
        for (i, &t) in f.throughput_per_s.iter().enumerate() {
            let s = start.floor() as usize + i;
            if s >= a && s < b {
                total[s - a] += t;
            }
        }
    }
    let mbps = rate.bps() as f64 / 1e6;
    total.iter().sum::<f64>() / total.len().max(1) as f64 / mbps
}

/// Mean bottleneck queue (packets) over [a, b) seconds from the series.
fn queue_between(run: &RunResult, a: f64, b: f64) -> f64 {
    let Some(s) = &run.series else { return f64::NAN };
    let q: Vec<f64> = s
        .links
        .iter()
        .filter(|x| x.link == 0 && x.t.as_secs_f64() >= a && x.t.as_secs_f64() < b)
        .map(|x| x.queue_packets as f64)
        .collect();
    q.iter().sum::<f64>() / q.len().max(1) as f64
}

// ---- Fig. 7 -------------------------------------------------------------------

const FIG7_RTTS: [u64; 5] = [40, 50, 60, 70, 80];

fn fig7_jobs(quick: bool, _seed: u64) -> Vec<Job> {
    let d = Duration::from_secs(if quick { 110 } else { 120 });
    [("tcp-gt", CcKind::TcpGt), ("cubic", CcKind::Cubic)]
        .into_iter()
        .map(|(key, cc)| {
            let sc = dumbbell(Bandwidth::from_mbps(500), &FIG7_RTTS, &STARTS, cc, d);
            let c = sc.controllers[0].clone();
            Job::new(key, sc, c)
        })
        .collect()
}

fn fig7(r: &Results, plots: &Plots) -> Result<Analysis, StudyError> {
    let mut table = vec![vec![
        "sender".into(),
        "Jain".into(),
        "utilisation".into(),
        "queue ms".into(),
        "drops".into(),
        "shares Mbit/s (40..80 ms)".into(),
    ]];
    let mut m = Vec::new();
    let mut out = Vec::new();
    for key in ["tcp-gt", "cubic"] {
        let run = get(r, key)?;
        // Shares from 20 s after the last flow joins, to the end.
        let shares = shares(run);
        let l = &run.links[0];
        table.push(vec![
            key.into(),
            format!("{:.3}", jain(&shares)),
            format!("{:.3}", l.utilization),
            fmt1(l.queue_delay_mean_ms),
            l.drops.to_string(),
            shares.iter().map(|s| format!("{s:.0}")).collect::<Vec<_>>().join(", "),
        ]);
        m.push((jain(&shares), l.utilization, l.queue_delay_mean_ms, l.drops));
        let mut ts = TimeSeriesChart::new(format!("Five {key} flows, RTT 40-80 ms, 500 Mbit/s (seed 1)"))
            .y_label("Throughput", "Mbit/s");
        for (i, (f, start)) in run.flows.iter().zip(STARTS).enumerate() {
            ts = ts.series(
                format!("flow {} ({} ms)", i + 1, FIG7_RTTS[i]),
                f.throughput_per_s.iter().enumerate().map(|(s, &t)| ((s as u64 + start) as f64, t)),
            );
        }
        plots.save(&ts, &format!("tcpgt-fig7-{key}"), &mut out)?;
    }
    let (gt, cubic) = (m[0], m[1]);
    let buffer_ms = 80.0;
    let claims = vec![claim(
        "tcpgt-fig7/heterogeneous-rtt",
        SRC,
        "With RTTs of 40-80 ms TCP-GT converges to good fairness without hurting utilisation or building a large \
         queue (checked: Jain's index at least 0.9, utilisation at least 0.9, mean queueing delay under a quarter of \
         the 80 ms buffer, no drop; control: CUBIC in the same set-up fills the buffer past that quarter)",
        &[
            ("jain", gt.0),
            ("utilisation", gt.1),
            ("queue_delay_ms", gt.2),
            ("drops", gt.3 as f64),
            ("control_cubic_queue_delay_ms", cubic.2),
        ],
        vec![
            Check::at_least("jain", 0.9),
            Check::at_least("utilisation", 0.9),
            Check::at_most("queue_delay_ms", 0.25 * buffer_ms),
            Check::at_most("drops", 0.0),
            Check::at_least("control_cubic_queue_delay_ms", 0.25 * buffer_ms),
        ],
        format!(
            "TCP-GT: Jain {:.2}, utilisation {:.3}, mean queueing delay {:.1} ms, {} drops; CUBIC: Jain {:.2}, \
             utilisation {:.3}, {:.1} ms, {} drops.",
            gt.0, gt.1, gt.2, gt.3, cubic.0, cubic.1, cubic.2, cubic.3
        ),
    )];
    Ok(Analysis {
        claims,
        plots: out,
        table,
        notes: "500 Mbit/s DropTail bottleneck with a buffer of one BDP at 80 ms, 1000-byte packets; the flows' RTTs \
                are set by their access links."
            .into(),
    })
}

// ---- Fig. 8 -------------------------------------------------------------------

/// Ten long flows from the start, 100 more from JOIN_S to LEAVE_S.
const JOIN_S: u64 = 50;
const LEAVE_S: u64 = 100;
const FIG8_MBPS: u64 = 500;

fn fig8_scenario(seed: u64, quick: bool) -> Scenario {
    let end = if quick { 130 } else { 140 };
    let mut rng = Rng::new(seed).fork(8);
    // The ten long flows start uniformly within the first second.
    let mut starts: Vec<f64> = (0..10).map(|_| rng.next_f64()).collect();
    starts.extend(std::iter::repeat_n(JOIN_S as f64, 100));
    let mut sc =
        dumbbell(Bandwidth::from_mbps(FIG8_MBPS), &[40; 110], &[0; 110], CcKind::TcpGt, Duration::from_secs(end));
    for (f, &s) in sc.flows.iter_mut().zip(&starts) {
        f.start = Duration::from_secs_f64(s);
    }
    for f in sc.flows.iter_mut().skip(10) {
        f.stop = Some(Duration::from_secs(LEAVE_S));
    }
    sc.measure_from = Duration::ZERO;
    sc.start_jitter = Duration::ZERO;
    sc
}

fn fig8_jobs(quick: bool, seed: u64) -> Vec<Job> {
    let sc = fig8_scenario(seed, quick);
    let c = sc.controllers[0].clone();
    vec![Job::new("join-leave", sc, c).with_series()]
}

fn fig8(r: &Results, plots: &Plots) -> Result<Analysis, StudyError> {
    let run = get(r, "join-leave")?;
    let end = run.flows.first().map_or(0, |f| f.throughput_per_s.len()) as u64;
    // The start offsets only move the ten long flows within the first
    // second; whole-second alignment is what the per-second series keeps.
    let starts: Vec<f64> = (0..run.flows.len()).map(|i| if i < 10 { 0.0 } else { JOIN_S as f64 }).collect();
    let rate = Bandwidth::from_mbps(FIG8_MBPS);
    let phases = [(20, JOIN_S), (JOIN_S + 10, LEAVE_S), (LEAVE_S + 10, end)];
    let u: Vec<f64> = phases.iter().map(|&(a, b)| utilisation(run, &starts, a as usize, b as usize, rate)).collect();
    let q: Vec<f64> = phases.iter().map(|&(a, b)| queue_between(run, a as f64, b as f64)).collect();
    let queue_ratio = q[1] / q[0].max(1.0);
    let drops = total_drops(run);
    let mut out = Vec::new();
    if let Some(s) = &run.series {
        let step = (s.links.len() / 1500).max(1);
        let long: Vec<(f64, f64)> = (0..end as usize)
            .map(|i| (i as f64, run.flows.iter().take(10).filter_map(|f| f.throughput_per_s.get(i)).sum::<f64>()))
            .collect();
        let ts = TimeSeriesChart::new("Ten TCP-GT flows; 100 more from 50 to 100 s (500 Mbit/s, 40 ms; seed 1)")
            .y_label("Throughput of the ten", "Mbit/s")
            .series("ten long flows", long)
            .series_on(
                "queue (packets)",
                rtac_plot::Axis::Right,
                s.links
                    .iter()
                    .filter(|x| x.link == 0)
                    .step_by(step)
                    .map(|x| (x.t.as_secs_f64(), x.queue_packets as f64)),
            )
            .y2_label("Queue", "packets");
        plots.save(&ts, "tcpgt-fig8", &mut out)?;
    }
    let claims = vec![claim(
        "tcpgt-fig8/join-leave",
        SRC,
        "TCP-GT is robust to a sudden change in demand: with ten times the flows the queue grows less than ten \
         times, and the link stays busy before, during and after (checked: mean queue with 110 flows 1-10x that with \
         10, as the paper's queue grows but by less than the flow count; utilisation at least 0.9 in each phase, \
         10 s after each change)",
        &[
            ("queue_ratio", queue_ratio),
            ("utilisation_10_flows", u[0]),
            ("utilisation_110_flows", u[1]),
            ("utilisation_after_leave", u[2]),
            ("drops", drops as f64),
        ],
        vec![
            Check::within("queue_ratio", 1.0, 10.0),
            Check::at_least("utilisation_10_flows", 0.9),
            Check::at_least("utilisation_110_flows", 0.9),
            Check::at_least("utilisation_after_leave", 0.9),
        ],
        format!(
            "Mean queue {:.0} packets with 10 flows, {:.0} with 110 ({queue_ratio:.1}x), {:.0} after they leave; \
             utilisation {:.3}, {:.3}, {:.3}; {drops} drops.",
            q[0], q[1], q[2], u[0], u[1], u[2]
        ),
    )];
    Ok(Analysis {
        claims,
        plots: out,
        table: Vec::new(),
        notes:
            "500 Mbit/s, RTT 40 ms, a buffer of one BDP at 40 ms; the ten long flows start at seeded offsets within \
                the first second, as in the paper. Phases: 20-50 s, 60-100 s and 110 s to the end."
                .into(),
    })
}

// ---- Fig. 12: web-like flows --------------------------------------------------

/// A web session (ns-2's PagePool, the paper's parameters): a page every 4 s
/// on average (exponential), 10 objects per page 10 ms apart, object sizes
/// Pareto with shape 1.2 and mean 3000 bytes.
const PAGE_GAP_S: f64 = 4.0;
const OBJECTS: usize = 10;
const OBJECT_GAP_S: f64 = 0.01;
const PARETO_SHAPE: f64 = 1.2;
const MEAN_BYTES: f64 = 3000.0;
const FIG12_MBPS: u64 = 500;
const LONG_FLOWS: usize = 50;

fn sessions(quick: bool) -> &'static [u64] {
    if quick {
        &[50, 200]
    } else {
        &[50, 200, 600]
    }
}

/// Web objects of `n` sessions over [from, until) s: (start s, bytes).
fn web_objects(seed: u64, n: u64, from: f64, until: f64) -> Vec<(f64, u64)> {
    let mut rng = Rng::new(seed).fork(12);
    // Pareto: x_m = mean (a - 1) / a.
    let xm = MEAN_BYTES * (PARETO_SHAPE - 1.0) / PARETO_SHAPE;
    let mut out = Vec::new();
    for _ in 0..n {
        let mut t = from + rng.exp(PAGE_GAP_S);
        while t < until {
            for k in 0..OBJECTS {
                let u = 1.0 - rng.next_f64();
                let bytes = (xm / u.powf(1.0 / PARETO_SHAPE)).min(10e6).round().max(1.0) as u64;
                out.push((t + k as f64 * OBJECT_GAP_S, bytes));
            }
            t += rng.exp(PAGE_GAP_S);
        }
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

fn fig12_jobs(quick: bool, seed: u64) -> Vec<Job> {
    let d = 20;
    let mut jobs = Vec::new();
    for &n in sessions(quick) {
        for (key, cc) in [("tcp-gt", CcKind::TcpGt), ("cubic", CcKind::Cubic)] {
            let mut sc = dumbbell(
                Bandwidth::from_mbps(FIG12_MBPS),
                &[40; LONG_FLOWS],
                &[0; LONG_FLOWS],
                cc,
                Duration::from_secs(d),
            );
            let proto = sc.flows[0].clone();
            for (start, bytes) in web_objects(seed, n, 1.0, d as f64 - 2.0) {
                let mut f = proto.clone();
                f.start = Duration::from_secs_f64(start);
                f.bytes = Some(bytes);
                sc.flows.push(f);
            }
            sc.measure_from = Duration::from_secs(d / 3);
            let c = sc.controllers[0].clone();
            jobs.push(Job::new(format!("{n}/{key}"), sc, c));
        }
    }
    jobs
}

fn fig12(r: &Results, plots: &Plots) -> Result<Analysis, StudyError> {
    let quick = !r.has("600/tcp-gt");
    let mut table = vec![vec![
        "sessions".into(),
        "sender".into(),
        "utilisation".into(),
        "queue ms".into(),
        "drops".into(),
        "web objects".into(),
    ]];
    let (mut util_ok, mut smaller_queue, mut fewer_drops) = (true, true, true);
    let mut gt_util_min = f64::MAX;
    let mut charts = vec![
        ("utilisation", "", SweepChart::new("Utilisation vs web sessions")),
        ("queue", "ms", SweepChart::new("Mean queueing delay vs web sessions")),
        ("drops", "packets", SweepChart::new("Drops vs web sessions")),
    ];
    for key in ["tcp-gt", "cubic"] {
        let mut pts = (Vec::new(), Vec::new(), Vec::new());
        for &n in sessions(quick) {
            let run = get(r, &format!("{n}/{key}"))?;
            let l = &run.links[0];
            table.push(vec![
                n.to_string(),
                key.into(),
                format!("{:.3}", l.utilization),
                fmt1(l.queue_delay_mean_ms),
                l.drops.to_string(),
                (run.flows.len() - LONG_FLOWS).to_string(),
            ]);
            pts.0.push((n as f64, l.utilization));
            pts.1.push((n as f64, l.queue_delay_mean_ms));
            pts.2.push((n as f64, l.drops as f64));
            if key == "tcp-gt" {
                let c = &get(r, &format!("{n}/cubic"))?.links[0];
                gt_util_min = gt_util_min.min(l.utilization);
                util_ok &= l.utilization >= 0.9;
                smaller_queue &= l.queue_delay_mean_ms <= c.queue_delay_mean_ms;
                fewer_drops &= l.drops <= c.drops;
            }
        }
        charts[0].2 = std::mem::replace(&mut charts[0].2, SweepChart::new("")).series(key, pts.0);
        charts[1].2 = std::mem::replace(&mut charts[1].2, SweepChart::new("")).series(key, pts.1);
        charts[2].2 = std::mem::replace(&mut charts[2].2, SweepChart::new("")).series(key, pts.2);
    }
    let mut out = Vec::new();
    for (what, unit, chart) in charts {
        let chart = chart.x_label("web sessions", "").y_label(what, unit);
        plots.save(&chart, &format!("tcpgt-fig12-{what}"), &mut out)?;
    }
    let claims = vec![claim(
        "tcpgt-fig12/web",
        SRC,
        "With web-like flows beside 50 long ones, TCP-GT keeps utilisation near 100 %, the lowest queue and always \
         fewer drops than the others (checked at every session count: utilisation at least 0.9, mean queueing delay \
         and drops no more than CUBIC's; CUBIC is the control that fills the buffer)",
        &[
            ("gt_min_utilisation", gt_util_min),
            ("gt_queue_not_above_cubic", flag(smaller_queue)),
            ("gt_drops_not_above_cubic", flag(fewer_drops)),
        ],
        vec![
            Check::at_least("gt_min_utilisation", 0.9),
            Check::at_least("gt_queue_not_above_cubic", 1.0),
            Check::at_least("gt_drops_not_above_cubic", 1.0),
        ],
        format!(
            "TCP-GT's utilisation {} at least 0.9 at every point (lowest {gt_util_min:.3}); its queue is {} CUBIC's \
             and its drops {} CUBIC's at every point.",
            if util_ok { "is" } else { "is not" },
            if smaller_queue { "no larger than" } else { "larger than" },
            if fewer_drops { "no more than" } else { "more than" }
        ),
    )];
    Ok(Analysis {
        claims,
        plots: out,
        table,
        notes: format!(
            "{LONG_FLOWS} long flows over {FIG12_MBPS} Mbit/s at 40 ms, a buffer of one BDP, plus web sessions: a page \
             every {PAGE_GAP_S} s on average, {OBJECTS} objects 10 ms apart, Pareto sizes (shape {PARETO_SHAPE}, mean \
             {MEAN_BYTES} B), each object a new connection of the sender under test, drawn from the seed. The paper \
             sweeps 50-1000 sessions; this study stops at {} sessions to keep the whole reproduction within its \
             time budget, below the 600 where the paper's TCP-GT starts to drop.",
            sessions(quick).last().copied().unwrap_or(0)
        ),
    })
}

// ---- Friendliness -------------------------------------------------------------

const MIX_MBPS: u64 = 100;

fn mix(other: CcKind, quick: bool) -> Scenario {
    let d = Duration::from_secs(if quick { 40 } else { 50 });
    let ccs = [CcKind::TcpGt, CcKind::TcpGt, other, other];
    let mut sc = dumbbell(Bandwidth::from_mbps(MIX_MBPS), &[40; 4], &[0; 4], CcKind::TcpGt, d);
    for (f, cc) in sc.flows.iter_mut().zip(ccs) {
        f.cc = cc;
    }
    sc.measure_from = d.div(3);
    sc
}

fn friendly_jobs(quick: bool, _seed: u64) -> Vec<Job> {
    [("with-cubic", CcKind::Cubic), ("with-reno", CcKind::Reno), ("control-all-tcp-gt", CcKind::TcpGt)]
        .into_iter()
        .map(|(key, cc)| {
            let sc = mix(cc, quick);
            let c = sc.controllers[0].clone();
            Job::new(key, sc, c)
        })
        .collect()
}

fn friendly(r: &Results, plots: &Plots) -> Result<Analysis, StudyError> {
    let mut table = vec![vec!["case".into(), "TCP-GT share".into(), "flows Mbit/s".into(), "drops".into()]];
    let mut share = Vec::new();
    for key in ["with-cubic", "with-reno", "control-all-tcp-gt"] {
        let run = get(r, key)?;
        let t: Vec<f64> = run.flows.iter().map(|f| f.throughput_mbps).collect();
        let s = (t[0] + t[1]) / t.iter().sum::<f64>().max(1e-9);
        share.push(s);
        table.push(vec![
            key.into(),
            format!("{s:.3}"),
            t.iter().map(|x| format!("{x:.1}")).collect::<Vec<_>>().join(", "),
            total_drops(run).to_string(),
        ]);
    }
    let mut out = Vec::new();
    let bars = rtac_plot::BarChart::new("Share of two TCP-GT flows beside two other flows (100 Mbit/s; seed 1)")
        .categories(["with CUBIC", "with Reno", "control: all TCP-GT"])
        .series("TCP-GT share", &share)
        .reference_line(0.5, "fair")
        .y_label("Share of the link", "");
    plots.save(&bars, "tcpgt-friendliness", &mut out)?;
    let claims = vec![claim(
        "tcpgt-friendliness/yields",
        SRC,
        "TCP-GT is not TCP-friendly: beside loss-based flows it keeps decreasing its window and always yields \
         bandwidth (checked: two TCP-GT flows get at most 25 % of a link they share with two CUBIC and with two \
         Reno flows; control: among four TCP-GT flows the same two get 40-60 %)",
        &[("share_with_cubic", share[0]), ("share_with_reno", share[1]), ("control_share_all_gt", share[2])],
        vec![
            Check::at_most("share_with_cubic", 0.25),
            Check::at_most("share_with_reno", 0.25),
            Check::within("control_share_all_gt", 0.4, 0.6),
        ],
        format!(
            "Two TCP-GT flows get {:.0} % of the link beside CUBIC, {:.0} % beside Reno, and {:.0} % when all four \
             run TCP-GT: a loss-based flow fills the buffer, which TCP-GT reads as phi < 0 and answers by shrinking.",
            share[0] * 100.0,
            share[1] * 100.0,
            share[2] * 100.0
        ),
    )];
    Ok(Analysis {
        claims,
        plots: out,
        table,
        notes: format!(
            "Four flows over {MIX_MBPS} Mbit/s at 40 ms with a buffer of one BDP: two TCP-GT and two of the other \
             sender."
        ),
    })
}
