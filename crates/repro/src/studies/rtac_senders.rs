//! RTAC (Im et al., IEEE TMC 2016), Figs. 11-13: sender variants (CUBIC,
//! Reno, H-TCP, Vegas, Westwood+) with each receiver, one flow in LTE
//! (Fig. 11) and Wi-Fi (Fig. 12), and three receivers competing (Fig. 13).

use super::rtac::{competition, lte, three, wifi, QUICK, RECEIVERS, SRC};
use super::{claim, controller, error_bars, flow, fmt1, get, named, shorten, with_cc};
use crate::{Analysis, Check, Job, Plots, Results, Study, StudyError};
use rtac_core::Duration;
use rtac_plot::BarChart;
use rtac_sim::{CcKind, Scenario};

pub(crate) fn studies() -> Vec<Study> {
    vec![
        Study {
            id: "rtac-fig11",
            source: "RTAC Fig. 11",
            title: "LTE, one flow: each sender variant with Auto-tuning, DRWA and RTAC receivers",
            jobs: |quick, _| single_jobs(lte(), quick),
            analyse: |r, p| single(r, p, "lte"),
        },
        Study {
            id: "rtac-fig12",
            source: "RTAC Fig. 12",
            title: "Wi-Fi, one flow: each sender variant with Auto-tuning, DRWA and RTAC receivers",
            jobs: |quick, _| single_jobs(wifi(), quick),
            analyse: |r, p| single(r, p, "wifi"),
        },
        Study {
            id: "rtac-fig13",
            source: "RTAC Fig. 13",
            title: "Three receivers competing in Wi-Fi DC and LTE IC, for each sender variant",
            jobs: fig13_jobs,
            analyse: fig13,
        },
    ]
}

const SENDERS: [&str; 5] = ["cubic", "reno", "htcp", "vegas", "westwood"];

fn cc(name: &str) -> CcKind {
    name.parse().unwrap_or_else(|e| panic!("{e}"))
}

fn single_jobs(mut sc: Scenario, quick: bool) -> Vec<Job> {
    shorten(&mut sc, quick, QUICK);
    let mut jobs = Vec::new();
    for s in SENDERS {
        let sc = with_cc(sc.clone(), cc(s));
        for rx in RECEIVERS {
            jobs.push(Job::new(format!("{s}/{rx}"), sc.clone(), controller(&sc, rx)));
        }
    }
    jobs
}

fn single(r: &Results, plots: &Plots, net: &str) -> Result<Analysis, StudyError> {
    let (name, fig) = if net == "lte" { ("LTE", "rtac-fig11") } else { ("Wi-Fi", "rtac-fig12") };
    let mut out = Vec::new();
    let mut table = vec![vec!["sender".into(), "receiver".into(), "Mbit/s".into(), "mean RTT ms".into()]];
    let mut m = std::collections::BTreeMap::new();
    for s in SENDERS {
        for rx in RECEIVERS {
            let f = flow(get(r, &format!("{s}/{rx}"))?, 0)?;
            m.insert((s, rx), (f.throughput_mbps, f.rtt_mean_ms));
            table.push(vec![s.to_string(), rx.to_string(), fmt1(f.throughput_mbps), fmt1(f.rtt_mean_ms)]);
        }
    }
    for (tag, metric, unit) in [("throughput", "Throughput", "Mbit/s"), ("delay", "Mean RTT", "ms")] {
        let chart = BarChart::new(format!("{name}: one flow, {metric} by sender (mean, 95 % CI)"))
            .categories(SENDERS)
            .y_label(metric, unit);
        let chart = error_bars(
            r,
            chart,
            &named(&RECEIVERS),
            &SENDERS,
            |rx, s| format!("{s}/{rx}"),
            |run| {
                let f = flow(run, 0)?;
                Ok(if tag == "throughput" { f.throughput_mbps } else { f.rtt_mean_ms })
            },
        )?;
        plots.save(&chart, &format!("{fig}-{tag}"), &mut out)?;
    }
    let at = |s: &'static str, rx: &'static str| m.get(&(s, rx)).copied().unwrap_or((f64::NAN, f64::NAN));
    // Bufferbloat prevention for every sender but Vegas: the worst delay cut
    // and throughput ratio against Auto-tuning, for RTAC and for DRWA.
    let worst = |rx: &'static str| {
        SENDERS.iter().filter(|s| **s != "vegas").fold((f64::MAX, f64::MAX), |acc, s| {
            let (a, x) = (at(s, "autotuning"), at(s, rx));
            (acc.0.min(1.0 - x.1 / a.1), acc.1.min(x.0 / a.0))
        })
    };
    let (rtac_cut, rtac_tput) = worst("rtac");
    let (drwa_cut, drwa_tput) = worst("drwa");
    let mut claims = vec![claim(
        &format!("{fig}/bufferbloat"),
        SRC,
        &format!(
            "{name}: DRWA and RTAC prevent the bufferbloat of a single flow for every sender but Vegas (checked: over \
             CUBIC, Reno, H-TCP and Westwood+, each cuts Auto-tuning's delay by at least half at 90 % of its \
             throughput or more)"
        ),
        &[
            ("rtac_worst_cut", rtac_cut),
            ("rtac_worst_tput_ratio", rtac_tput),
            ("drwa_worst_cut", drwa_cut),
            ("drwa_worst_tput_ratio", drwa_tput),
        ],
        vec![
            Check::at_least("rtac_worst_cut", 0.5),
            Check::at_least("rtac_worst_tput_ratio", 0.9),
            Check::at_least("drwa_worst_cut", 0.5),
            Check::at_least("drwa_worst_tput_ratio", 0.9),
        ],
        format!(
            "Worst over the four senders: RTAC cuts the delay by {:.0} % at {:.0} % of the throughput, DRWA by {:.0} % \
             at {:.0} %.",
            rtac_cut * 100.0,
            rtac_tput * 100.0,
            drwa_cut * 100.0,
            drwa_tput * 100.0
        ),
    )];
    // Vegas: low throughput whatever the receiver, from RTT_m's variation.
    let vegas = RECEIVERS.iter().map(|rx| at("vegas", rx).0 / at("cubic", rx).0).fold(f64::MAX, f64::min);
    let vegas_best = RECEIVERS.iter().map(|rx| at("vegas", rx).0 / at("cubic", rx).0).fold(0.0, f64::max);
    claims.push(claim(
        &format!("{fig}/vegas"),
        SRC,
        &format!(
            "{name}: TCP Vegas suffers low throughput regardless of the receiver, from its wrong RTT_m estimate on \
             a channel whose no-queue RTT varies (checked: with every receiver Vegas gets at most 80 % of CUBIC's \
             throughput){}",
            if net == "wifi" { "; less so than in LTE" } else { "" }
        ),
        &[("vegas_vs_cubic_best", vegas_best), ("vegas_vs_cubic_worst", vegas)],
        vec![Check::at_most("vegas_vs_cubic_best", 0.8)],
        format!(
            "Vegas gets {:.0}-{:.0} % of CUBIC's throughput over the three receivers. Vegas loses throughput only \
             where the no-queue RTT varies (its base RTT then underestimates the RTT it will see); the channel of \
             the scenario sets how much it varies.",
            vegas * 100.0,
            vegas_best * 100.0
        ),
    ));
    if net == "lte" {
        // "CUBIC and HTCP ... aggravate the bufferbloat in Auto-tuning."
        let (cubic, htcp, reno) = (at("cubic", "autotuning").1, at("htcp", "autotuning").1, at("reno", "autotuning").1);
        let ratio = cubic.min(htcp) / reno;
        claims.push(claim(
            "rtac-fig11/aggressive",
            SRC,
            "High-speed senders (CUBIC, H-TCP) aggravate Auto-tuning's bufferbloat (checked: both at least 10 % more \
             mean RTT than Reno's with Auto-tuning)",
            &[("fast_vs_reno_rtt", ratio), ("cubic_rtt_ms", cubic), ("htcp_rtt_ms", htcp), ("reno_rtt_ms", reno)],
            vec![Check::at_least("fast_vs_reno_rtt", 1.1)],
            format!(
                "With Auto-tuning the mean RTT is {cubic:.0} ms with CUBIC, {htcp:.0} ms with H-TCP and {reno:.0} ms \
                 with Reno. When the buffer is deep enough that no sender loses a packet, every loss-based sender \
                 ends up holding the advertised window, so the queue is window minus BDP whatever the sender; the \
                 senders differ only where losses or the channel keep them below the window."
            ),
        ));
    }
    Ok(Analysis {
        claims,
        plots: out,
        table,
        notes: format!(
            "One flow in the {name} scenario of rtac-fig6, with each sender variant; Vegas uses alpha = 2, beta = 4 \
             packets as Linux does."
        ),
    })
}

fn fig13_jobs(quick: bool, _seed: u64) -> Vec<Job> {
    let mut jobs = Vec::new();
    for s in SENDERS {
        for (net, mut sc) in competition() {
            shorten(&mut sc, quick, Duration::from_secs(30));
            let t = with_cc(three(&sc), cc(s));
            let c = t.controllers[0].clone();
            jobs.push(Job::new(format!("{net}/{s}"), t, c));
        }
    }
    jobs
}

fn fig13(r: &Results, plots: &Plots) -> Result<Analysis, StudyError> {
    let mut claims = Vec::new();
    let mut out = Vec::new();
    let mut table = vec![vec!["scenario".into(), "sender".into(), "receiver".into(), "Mbit/s".into()]];
    for net in ["wifi-dc", "lte-ic"] {
        let mut worst: f64 = f64::MAX;
        let mut drwa_range = (f64::MAX, 0.0f64);
        for s in SENDERS {
            let run = get(r, &format!("{net}/{s}"))?;
            let t: Vec<f64> = (0..3).map(|i| flow(run, i).map(|f| f.throughput_mbps)).collect::<Result<_, _>>()?;
            for (rx, x) in RECEIVERS.iter().zip(&t) {
                table.push(vec![net.into(), s.into(), rx.to_string(), fmt1(*x)]);
            }
            if s != "vegas" {
                worst = worst.min(t[2] / t[0]);
                drwa_range = (drwa_range.0.min(t[1] / t[0]), drwa_range.1.max(t[1] / t[0]));
            }
        }
        let mut chart = BarChart::new(format!("{net}: three receivers, by sender (mean, 95 % CI)"))
            .categories(SENDERS)
            .y_label("Throughput", "Mbit/s");
        for (i, rx) in RECEIVERS.iter().enumerate() {
            let one = [(rx.to_string(), String::new())];
            chart = error_bars(
                r,
                chart,
                &one,
                &SENDERS,
                |_, s| format!("{net}/{s}"),
                |run| Ok(flow(run, i)?.throughput_mbps),
            )?;
        }
        plots.save(&chart, &format!("rtac-fig13-{net}"), &mut out)?;
        // Wi-Fi: the paper's DRWA range 15-37 %; LTE: "much lower throughput".
        let (drwa_lo, drwa_hi) = if net == "wifi-dc" { (0.15, 0.37) } else { (0.0, 0.5) };
        claims.push(claim(
            &format!("rtac-fig13/{net}"),
            SRC,
            &format!(
                "For every sender but Vegas, RTAC gets more than 92 % of Auto-tuning's throughput when they compete, \
                 DRWA {} (checked: RTAC's worst ratio at least 0.9; DRWA's ratios within {:.0}-{:.0} %)",
                if net == "wifi-dc" { "only 15-37 %" } else { "much lower" },
                drwa_lo * 100.0,
                drwa_hi * 100.0
            ),
            &[("rtac_worst_ratio", worst), ("drwa_min_ratio", drwa_range.0), ("drwa_max_ratio", drwa_range.1)],
            vec![
                Check::at_least("rtac_worst_ratio", 0.9),
                Check::at_least("drwa_min_ratio", drwa_lo),
                Check::at_most("drwa_max_ratio", drwa_hi),
            ],
            format!(
                "Over CUBIC, Reno, H-TCP and Westwood+ senders RTAC's worst ratio to Auto-tuning is {:.0} %; DRWA's \
                 ranges {:.1}-{:.1} %.{}",
                worst * 100.0,
                drwa_range.0 * 100.0,
                drwa_range.1 * 100.0,
                if worst >= 0.9 {
                    ""
                } else {
                    " As in rtac-fig8, the loss-based competitor sets the shared queue and RTAC's eqs. (6), (8) and \
                     (10) settle below half of the link at that RTT."
                }
            ),
        ));
    }
    Ok(Analysis {
        claims,
        plots: out,
        table,
        notes:
            "The three-receiver DC and IC cases of rtac-fig9 with each sender. Vegas is excluded from the claims as \
                in the paper: a delay-based sender yields to loss-based competitors whatever its receiver does."
                .into(),
    })
}
