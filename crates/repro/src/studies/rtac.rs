//! RTAC (Im, Joo, Lee, Bahk, "Receiver-side TCP Countermeasure to
//! Bufferbloat in Wireless Access Networks", IEEE TMC 2016): Fig. 3, 6, 8,
//! 9 and 10. Fig. 1 is in `rtac_estimates.rs`, Figs. 11-13 in
//! `rtac_senders.rs`.
//!
//! Every RTAC receiver here carries the paper's K explicitly (eq. (11):
//! 3e-7 for LTE, 5e-5 for Wi-Fi, from the scenario files). Every receiver
//! with a buffer advertises 3/4 of it, as Linux does (the simulator's one
//! model of the advertised window): Auto-tuning's 2,560 KB tcp_rmem_max
//! (Table I) caps its window at 1,920 KB.

use super::{across, choice, claim, controller, flow, fmt1, get, library, pooled_boxes, scenario, shorten};
use crate::{Analysis, Check, Job, Plots, Results, Study, StudyError};
use rtac_core::controller::{ControllerKind, RtacParams};
use rtac_core::Duration;
use rtac_plot::{BarChart, BoxChart, Metric};
use rtac_sim::{ControllerChoice, RunResult, Scenario};

pub(crate) const SRC: &str = "RTAC (Im et al., IEEE TMC 2016)";
pub(crate) const QUICK: Duration = Duration::from_secs(15);

pub(crate) fn studies() -> Vec<Study> {
    vec![
        Study {
            id: "rtac-fig3",
            source: "RTAC Fig. 3",
            title: "Auto-tuning with a static tcp_rmem_max: throughput saturates, delay grows (LTE and Wi-Fi)",
            jobs: fig3_jobs,
            analyse: fig3,
        },
        Study {
            id: "rtac-fig6",
            source: "RTAC Fig. 6",
            title: "One flow in LTE and Wi-Fi: Auto-tuning vs DRWA vs RTAC",
            jobs: fig6_jobs,
            analyse: fig6,
        },
        Study {
            id: "rtac-fig8",
            source: "RTAC Fig. 8",
            title: "Two receivers competing: Wi-Fi Direct Competition and LTE Indirect Competition",
            jobs: fig8_jobs,
            analyse: fig8,
        },
        Study {
            id: "rtac-fig9",
            source: "RTAC Fig. 9/10",
            title: "Auto-tuning, DRWA and RTAC receivers together in Wi-Fi DC and LTE IC",
            jobs: fig9_jobs,
            analyse: fig9,
        },
        Study {
            id: "rtac-fig10",
            source: "RTAC Fig. 10",
            title: "Wi-Fi, three receivers: RTT and throughput with a shared AP queue and with a queue per station",
            jobs: fig10_jobs,
            analyse: fig10,
        },
    ]
}

/// The paper's LTE case with the paper's RTAC: the scenario's `rtac` run
/// tunes itself, so the study pins K to the paper's LTE value (§IV.A).
pub(crate) fn lte() -> Scenario {
    let mut sc = scenario(library::RTAC_LTE_SINGLE, "rtac-lte-single.toml");
    for c in sc.controllers.iter_mut().filter(|c| c.label == "rtac") {
        *c = super::choice("rtac", ControllerKind::Rtac, "k=3e-7");
    }
    sc
}
pub(crate) fn wifi() -> Scenario {
    scenario(library::RTAC_WIFI_SINGLE, "rtac-wifi-single.toml")
}
pub(crate) fn nets() -> [(&'static str, Scenario); 2] {
    [("lte", lte()), ("wifi", wifi())]
}

/// Base RTT of a flow's path (RTT_m): twice its one-way delays plus the
/// mean no-queue delay of its links' wireless channels.
pub(crate) fn base_rtt_ms(sc: &Scenario, flow: usize) -> f64 {
    let links = || sc.flows[flow].path.iter().map(|&l| &sc.links[l]);
    let propagation = links().map(|l| l.delay.as_millis_f64()).sum::<f64>() * 2.0;
    propagation + links().filter_map(|l| l.channel.as_ref().map(|c| c.mean_extra().as_millis_f64())).sum::<f64>()
}

// ---- Fig. 3: tcp_rmem_max sweep -------------------------------------------

const RMEM_KB: [u64; 9] = [50, 100, 200, 400, 600, 800, 1200, 1600, 2560];
const RMEM_KB_QUICK: [u64; 6] = [50, 100, 200, 400, 800, 2560];

fn rmem_values(quick: bool) -> &'static [u64] {
    if quick {
        &RMEM_KB_QUICK
    } else {
        &RMEM_KB
    }
}

fn fig3_jobs(quick: bool, _seed: u64) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (net, mut sc) in nets() {
        shorten(&mut sc, quick, QUICK);
        for &kb in rmem_values(quick) {
            let c = choice(&format!("{kb}KB"), ControllerKind::Autotuning, &format!("rmem_max={}", kb * 1024));
            jobs.push(Job::new(format!("{net}/{kb}"), sc.clone(), c));
        }
        // The control: RTAC with the largest tcp_rmem_max.
        jobs.push(Job::new(format!("{net}/rtac"), sc.clone(), controller(&sc, "rtac")));
    }
    jobs
}

fn fig3(r: &Results, plots: &Plots) -> Result<Analysis, StudyError> {
    let quick = !r.has(&format!("lte/{}", RMEM_KB[RMEM_KB.len() - 2]));
    let values = rmem_values(quick);
    let mut claims = Vec::new();
    let mut out = Vec::new();
    let mut table = vec![vec!["network".into(), "tcp_rmem_max KB".into(), "Mbit/s".into(), "mean RTT ms".into()]];
    for (net, name) in [("lte", "LTE"), ("wifi", "Wi-Fi")] {
        let mut chart = BoxChart::new(
            format!("{name}: Auto-tuning with a static tcp_rmem_max (all seeds pooled)"),
            Metric::new("Throughput", "Mbit/s"),
            Metric::new("RTT", "ms"),
        )
        .x_label("tcp_rmem_max", "KB");
        let mut pts = Vec::new();
        for &kb in values {
            let key = format!("{net}/{kb}");
            let f = flow(get(r, &key)?, 0)?;
            let (t, d) = pooled_boxes(r, &key, 0)?;
            chart = chart.category_summary(kb.to_string(), t, d);
            pts.push((kb, f.throughput_mbps, f.rtt_mean_ms));
            table.push(vec![name.into(), kb.to_string(), fmt1(f.throughput_mbps), fmt1(f.rtt_mean_ms)]);
        }
        plots.save(&chart, &format!("rtac-fig3-{net}"), &mut out)?;
        let max_t = pts.iter().map(|p| p.1).fold(0.0, f64::max);
        // The knee: the smallest tcp_rmem_max within 5 % of the best throughput.
        let k = pts.iter().position(|p| p.1 >= 0.95 * max_t).unwrap_or(0);
        let (knee, t_knee, d_knee) = pts[k];
        let (_, t_max, d_max) = pts[pts.len() - 1];
        // Past the knee, the RTT never falls by more than 10 % from one
        // setting to the next (it levels off once the buffer overflows):
        // the curve's shape, not just its end points.
        let rises = pts[k..].windows(2).all(|w| w[1].2 >= 0.9 * w[0].2);
        let rtac = flow(get(r, &format!("{net}/rtac"))?, 0)?;
        let (gain, growth, rtac_growth) = (t_max / t_knee - 1.0, d_max / d_knee, rtac.rtt_mean_ms / d_knee);
        claims.push(claim(
            &format!("rtac-fig3/{net}"),
            SRC,
            &format!(
                "{name}: past the knee throughput saturates and only the delay grows with tcp_rmem_max (checked: \
                 throughput at 2560 KB within 5 % of the knee's, RTT never falling by more than 10 % from one setting \
                 to the next past the knee and at least 1.5x the knee's at 2560 KB; control: RTAC at 2560 KB stays under 1.5x the knee's RTT)"
            ),
            &[
                ("knee_KB", knee as f64),
                ("throughput_gain_past_knee", gain),
                ("rtt_growth", growth),
                ("rtt_rises_past_knee", super::flag(rises)),
                ("rtac_rtt_vs_knee", rtac_growth),
            ],
            vec![
                Check::within("throughput_gain_past_knee", -0.05, 0.05),
                Check::at_least("rtt_growth", 1.5),
                Check::at_least("rtt_rises_past_knee", 1.0),
                Check::at_most("rtac_rtt_vs_knee", 1.5),
            ],
            format!(
                "Throughput reaches 95 % of its maximum at {knee} KB and gains {:+.1} % more up to 2560 KB, while the \
                 mean RTT goes from {d_knee:.0} ms to {d_max:.0} ms ({growth:.1}x); RTAC with the same 2560 KB holds \
                 {:.0} ms. The knee's position is not checked against the paper's best range ({}): it follows from \
                 the path's BDP, which the scenario sets, so it would hold by construction.",
                gain * 100.0,
                rtac.rtt_mean_ms,
                if net == "lte" { "400-800 KB" } else { "well under 200 KB" }
            ),
        ));
    }
    Ok(Analysis {
        claims,
        plots: out,
        table,
        notes: "The LTE path is 55 Mbit/s with RTT_m 50 ms (BDP 336 KB) and a 3000-packet per-user queue; the Wi-Fi \
                path 35 Mbit/s with RTT_m 15 ms (BDP 64 KB) and a 400-packet AP queue. The x axis is the sysctl; the \
                window advertises 3/4 of it, as Linux does (tcp_adv_win_scale = 2), the simulator's one model of the \
                advertised window for every study."
            .into(),
    })
}

// ---- Fig. 6: single flow ----------------------------------------------------

pub(crate) const RECEIVERS: [&str; 3] = ["autotuning", "drwa", "rtac"];

fn fig6_jobs(quick: bool, _seed: u64) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (net, mut sc) in nets() {
        shorten(&mut sc, quick, QUICK);
        for rx in RECEIVERS {
            jobs.push(Job::new(format!("{net}/{rx}"), sc.clone(), controller(&sc, rx)).with_series());
        }
        jobs.push(Job::new(format!("{net}/rtac-delta"), sc.clone(), with_delta(net)));
    }
    jobs
}

/// RTAC with the paper's RTT_m compensation (section IV): RTT*_m = RTT_m +
/// Delta, 18 ms in LTE and 8 ms in Wi-Fi, with the same K.
fn with_delta(net: &str) -> ControllerChoice {
    let params = if net == "lte" { "k=3e-7,delta=18ms" } else { "k=5e-5,delta=8ms" };
    choice("rtac-delta", ControllerKind::Rtac, params)
}

/// The paper's Fig. 6 (Mbit/s, mean RTT ms) for Auto-tuning, DRWA, RTAC.
const FIG6: [(&str, [(f64, f64); 3]); 2] =
    [("lte", [(55.0, 223.0), (52.0, 89.0), (51.0, 71.0)]), ("wifi", [(33.0, 148.0), (29.0, 23.0), (30.0, 27.0)])];

/// Tolerance on a delay cut the paper gives as a number: the paper's
/// Auto-tuning RTT comes from a carrier's buffer and load this model only
/// approximates, so the cut is compared within 15 percentage points.
const CUT_TOLERANCE: f64 = 0.15;

fn fig6(r: &Results, plots: &Plots) -> Result<Analysis, StudyError> {
    let mut claims = Vec::new();
    let mut out = Vec::new();
    let mut table =
        vec![vec!["network".into(), "receiver".into(), "Mbit/s".into(), "mean RTT ms".into(), "paper".into()]];
    for ((net, sc), (_, paper)) in nets().into_iter().zip(FIG6) {
        let name = if net == "lte" { "LTE" } else { "Wi-Fi" };
        let mut chart = BoxChart::new(
            format!("{name}: one CUBIC flow (base RTT {:.0} ms, all seeds pooled)", base_rtt_ms(&sc, 0)),
            Metric::new("Throughput", "Mbit/s"),
            Metric::new("RTT", "ms"),
        );
        let mut m = Vec::new();
        for (rx, p) in RECEIVERS.iter().zip(paper) {
            let key = format!("{net}/{rx}");
            let f = flow(get(r, &key)?, 0)?;
            let (t, d) = pooled_boxes(r, &key, 0)?;
            chart = chart.category_summary(*rx, t, d);
            m.push((f.throughput_mbps, f.rtt_mean_ms));
            table.push(vec![
                name.into(),
                rx.to_string(),
                fmt1(f.throughput_mbps),
                fmt1(f.rtt_mean_ms),
                format!("{} Mbit/s, {} ms", p.0, p.1),
            ]);
        }
        plots.save(&chart, &format!("rtac-fig6-{net}"), &mut out)?;
        let auto = m[0];
        for (i, who) in [(2, "rtac"), (1, "drwa")] {
            let x = m[i];
            let cut = 1.0 - x.1 / auto.1;
            let ratio = x.0 / auto.0;
            let paper_cut = 1.0 - paper[i].1 / paper[0].1;
            let mut measured = vec![("delay_cut", cut), ("throughput_ratio", ratio), ("rtt_ms", x.1)];
            let mut checks = vec![
                Check::within("delay_cut", paper_cut - CUT_TOLERANCE, paper_cut + CUT_TOLERANCE),
                Check::at_least("throughput_ratio", 0.9),
            ];
            // RTAC's own claim in LTE: a lower RTT than DRWA's (71 vs 89 ms),
            // which DRWA cannot pass.
            if who == "rtac" && net == "lte" {
                measured.push(("rtt_vs_drwa", x.1 / m[1].1));
                checks.push(Check::at_most("rtt_vs_drwa", 1.0));
            }
            claims.push(claim(
                &format!("rtac-fig6/{net}-{who}"),
                SRC,
                &format!(
                    "{name}: {} cuts the delay against Auto-tuning by {:.0} % ({} vs {} ms) at {:.0} % of its \
                     throughput (checked: the cut within {:.0} points of the paper's, at least 90 % of the \
                     throughput{})",
                    who.to_uppercase(),
                    paper_cut * 100.0,
                    paper[i].1,
                    paper[0].1,
                    paper[i].0 / paper[0].0 * 100.0,
                    CUT_TOLERANCE * 100.0,
                    if who == "rtac" && net == "lte" {
                        "; a lower RTT than DRWA's, as the paper's 71 vs 89 ms"
                    } else {
                        ""
                    }
                ),
                &measured,
                checks,
                format!(
                    "Mean RTT {:.0} ms against Auto-tuning's {:.0} ms ({:.0} % less; paper {:.0} %) at {:.0} % of \
                     its throughput; DRWA {:.0} ms.",
                    x.1,
                    auto.1,
                    cut * 100.0,
                    paper_cut * 100.0,
                    ratio * 100.0,
                    m[1].1
                ),
            ));
        }
        // The paper's RTAC also compensates RTT_m by Delta.
        let d = flow(get(r, &format!("{net}/rtac-delta"))?, 0)?;
        let (cut, ratio) = (1.0 - d.rtt_mean_ms / auto.1, d.throughput_mbps / auto.0);
        let paper_cut = 1.0 - paper[2].1 / paper[0].1;
        table.push(vec![name.into(), "rtac, Delta".into(), fmt1(d.throughput_mbps), fmt1(d.rtt_mean_ms), "-".into()]);
        claims.push(claim(
            &format!("rtac-fig6/{net}-rtac-delta"),
            SRC,
            &format!(
                "{name}: RTAC with the paper's Delta ({}) keeps its delay cut of {:.0} % at 90 % of Auto-tuning's \
                 throughput (checked as for RTAC without Delta)",
                if net == "lte" { "18 ms" } else { "8 ms" },
                paper_cut * 100.0
            ),
            &[("delay_cut", cut), ("throughput_ratio", ratio), ("rtt_ms", d.rtt_mean_ms)],
            vec![
                Check::within("delay_cut", paper_cut - CUT_TOLERANCE, paper_cut + CUT_TOLERANCE),
                Check::at_least("throughput_ratio", 0.9),
            ],
            format!(
                "With Delta: mean RTT {:.0} ms ({:.0} % less than Auto-tuning) at {:.0} % of its throughput; without: \
                 {:.0} ms. Delta raises RTT*_m, so eq. (10) counts Delta less of each RTT as queueing and RTAC settles \
                 about theta x Delta higher.",
                d.rtt_mean_ms,
                cut * 100.0,
                ratio * 100.0,
                m[2].1
            ),
        ));
        // Time series of the three receivers' windows and RTT (first seed).
        let mut ts = rtac_plot::TimeSeriesChart::new(format!("{name}: advertised window and RTT (seed 1)"))
            .x_label("time", "s")
            .y_label("rwnd", "packets")
            .y2_label("RTT", "ms");
        for rx in RECEIVERS {
            let run = get(r, &format!("{net}/{rx}"))?;
            let Some(series) = &run.series else { continue };
            let mss = sc.mss as f64;
            let step = (series.flows.len() / 600).max(1);
            ts = ts
                .series(
                    format!("{rx} rwnd"),
                    series.flows.iter().step_by(step).map(|s| (s.t.as_secs_f64(), s.rwnd as f64 / mss)),
                )
                .series_on(
                    format!("{rx} RTT"),
                    rtac_plot::Axis::Right,
                    series.flows.iter().step_by(step).map(|s| (s.t.as_secs_f64(), s.srtt.as_millis_f64())),
                );
        }
        plots.save(&ts, &format!("rtac-fig6-{net}-series"), &mut out)?;
    }
    Ok(Analysis {
        claims,
        plots: out,
        table,
        notes: "Auto-tuning advertises 3/4 of the paper's 2,560 KB tcp_rmem_max, as Linux does and as the DRWA \
                studies' phones do (the simulator's one model of the advertised window), so its standing queue (and \
                so every delay cut) is that of a Linux receiver. The links carry the paper's channel: a no-queue \
                RTT variation (LTE: frame scheduling and HARQ; Wi-Fi: contention), drawn from the seed. \
                DRWA settles where RTT = lambda RTT_min (its own section 5.4), RTAC near theta RTT_m = 1.38 RTT_m \
                when K matches the BDP, as eq. (11) intends."
            .into(),
    })
}

// ---- Fig. 8: DC and IC ------------------------------------------------------

pub(crate) fn competition() -> [(&'static str, Scenario); 2] {
    [
        ("wifi-dc", scenario(library::RTAC_WIFI_DC, "rtac-wifi-dc.toml")),
        ("lte-ic", scenario(library::RTAC_LTE_IC, "rtac-lte-ic.toml")),
    ]
}

/// The Fig. 8 scenario a job label starts with.
fn competition_scenario(net: &str) -> Scenario {
    let (_, sc) = competition().into_iter().find(|(n, _)| net.starts_with(n)).expect("a Fig. 8 network");
    sc
}

/// Wi-Fi DC with a queue per station at the AP instead of one shared
/// queue: the paper suspects its AP works this way (section V-C, Fig. 10).
fn per_station(sc: &Scenario) -> Scenario {
    let mut s = sc.clone();
    s.links[0].per_flow = Some(rtac_sim::scenario::Scheduler::RoundRobin);
    s
}

fn fig8_jobs(quick: bool, _seed: u64) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (net, mut sc) in competition() {
        shorten(&mut sc, quick, Duration::from_secs(30));
        for rx in RECEIVERS {
            jobs.push(Job::new(format!("{net}/{rx}"), sc.clone(), controller(&sc, rx)));
        }
        if net == "wifi-dc" {
            let ps = per_station(&sc);
            for rx in RECEIVERS {
                jobs.push(Job::new(format!("wifi-dc-per-station/{rx}"), ps.clone(), controller(&sc, rx)));
            }
        }
    }
    jobs
}

/// Why RTAC yields in a shared DropTail queue, for claims that fail: the
/// rate its equations settle at when another flow sets the queue.
///
/// RTAC's queue estimate is its own share of the queue, Q = (RTT - RTT_m) w
/// / RTT (eq. (10)); with rwnd = w in eq. (8) and q = K Q (eq. (6), Q >> 1)
/// the window solves w^3 = (a/K) r^3 / (r - 1) at r = RTT / RTT_m, a rate of
/// (a/K)^(1/3) / (RTT_m (r - 1)^(1/3)). With K from eq. (11) that is half of
/// a link shared with one other flow while r <= 1 + 8 (theta - 1), and less
/// the deeper the competitor fills the queue. `rtt_m` is the RTAC flow's
/// base RTT in ms; `sc` supplies its parameters and segment size.
fn shared_queue_reason(
    sc: &Scenario,
    run: &RunResult,
    rtac_flow: usize,
    auto_flow: usize,
    rtt_m: f64,
) -> Result<String, StudyError> {
    let p = RtacParams::from_params(&controller(sc, "rtac").params)
        .unwrap_or_else(|e| panic!("the library's rtac parameters are valid: {e}"));
    let (rtac, auto) = (flow(run, rtac_flow)?, flow(run, auto_flow)?);
    let r = rtac.rtt_mean_ms / rtt_m;
    let k = p.fixed_k().expect("the studies run the paper's RTAC with a fixed K");
    let pkts_per_s = (p.a / k).cbrt() / (rtt_m / 1000.0 * (r - 1.0).max(1e-9).cbrt());
    let predicted = pkts_per_s * sc.mss as f64 * 8.0 / 1e6;
    Ok(format!(
        "RTAC's client gets {:.0} % of the Auto-tuning client's throughput, which is where eqs. (6), (8) and (10) \
         settle when another flow sets the queue: RTAC counts only its own share of the queue, so its window solves \
         w^3 = (a/K) r^3 / (r - 1) at r = RTT / RTT_m, a rate of (a/K)^(1/3) / (RTT_m (r - 1)^(1/3)). Here the \
         loss-based competitor holds the RTT at r = {r:.1} ({:.0} ms over RTT_m {rtt_m:.0} ms; its loss rate is only \
         {:.1e}), which bounds RTAC's rate at {predicted:.1} Mbit/s; it gets {:.1} (less when the sender's own \
         window, cut by a loss, falls below the advertised one). With K from eq. (11), RTAC keeps half of a link \
         shared with one competitor only while r <= 1 + 8 (theta - 1) = {:.1}.",
        100.0 * rtac.throughput_mbps / auto.throughput_mbps,
        rtac.rtt_mean_ms,
        loss_rate(run),
        rtac.throughput_mbps,
        1.0 + 8.0 * (p.theta - 1.0),
    ))
}

/// The loss rate a shared bottleneck imposed: drops over packets offered.
fn loss_rate(run: &RunResult) -> f64 {
    let l = &run.links[0];
    l.drops as f64 / (l.departures + l.drops).max(1) as f64
}

/// Throughput of flow `i` of job `key`: mean and 95 % half-width over seeds.
fn tput_ci(r: &Results, key: &str, i: usize) -> Result<(f64, f64), StudyError> {
    across(r, key, |run| Ok(flow(run, i)?.throughput_mbps))
}

fn fig8(r: &Results, plots: &Plots) -> Result<Analysis, StudyError> {
    let mut claims = Vec::new();
    let mut out = Vec::new();
    let mut table = vec![vec![
        "scenario".into(),
        "client 2".into(),
        "Auto-tuning Mbit/s".into(),
        "client 2 Mbit/s".into(),
        "ratio".into(),
    ]];
    // DRWA's share as a range: the paper's Wi-Fi DC figure (26 %) sits in
    // the 15-37 % its Fig. 13 measured across senders on the same AP, and
    // the LTE IC figure is 2-3 %. A share outside these ranges, above or
    // below, is not the paper's result.
    for (net, paper_rtac, drwa_range) in [("wifi-dc", 0.95, (0.15, 0.37)), ("lte-ic", 0.96, (0.0, 0.10))] {
        let mut ratios = Vec::new();
        let (mut bars_a, mut bars_b) = ((Vec::new(), Vec::new()), (Vec::new(), Vec::new()));
        for rx in RECEIVERS {
            let key = format!("{net}/{rx}");
            let run = get(r, &key)?;
            let (a, b) = (flow(run, 0)?.throughput_mbps, flow(run, 1)?.throughput_mbps);
            ratios.push(b / a);
            table.push(vec![net.into(), rx.into(), fmt1(a), fmt1(b), format!("{:.2}", b / a)]);
            let (ma, ea) = tput_ci(r, &key, 0)?;
            let (mb, eb) = tput_ci(r, &key, 1)?;
            bars_a.0.push(ma);
            bars_a.1.push(ea);
            bars_b.0.push(mb);
            bars_b.1.push(eb);
        }
        let name = if net == "wifi-dc" { "Wi-Fi Direct Competition" } else { "LTE Indirect Competition" };
        let chart = BarChart::new(format!("{name}: Auto-tuning (client 1) vs client 2 (mean, 95 % CI)"))
            .categories(RECEIVERS.map(|r| format!("client 2: {r}")))
            .series_with_errors("client 1 (Auto-tuning)", &bars_a.0, &bars_a.1)
            .series_with_errors("client 2", &bars_b.0, &bars_b.1)
            .y_label("Throughput", "Mbit/s");
        plots.save(&chart, &format!("rtac-fig8-{net}"), &mut out)?;
        let (rtac, drwa) = (ratios[2], ratios[1]);
        let sc = competition_scenario(net);
        claims.push(claim(
            &format!("rtac-fig8/{net}-rtac"),
            SRC,
            &format!(
                "{name}: RTAC gets {:.0} % of Auto-tuning's throughput (checked: 90-110 %, a fair share that \
                 neither yields nor takes over; control: DRWA under 90 % in the same run set)",
                paper_rtac * 100.0
            ),
            &[("ratio", rtac), ("control_drwa_ratio", drwa)],
            vec![Check::within("ratio", 0.9, 1.1), Check::at_most("control_drwa_ratio", 0.9)],
            if rtac >= 0.9 {
                format!(
                    "RTAC's client gets {:.0} % of the Auto-tuning client's throughput, DRWA's {:.0} %.",
                    rtac * 100.0,
                    drwa * 100.0
                )
            } else {
                shared_queue_reason(&sc, get(r, &format!("{net}/rtac"))?, 1, 0, base_rtt_ms(&sc, 1))?
            },
        ));
        claims.push(claim(
            &format!("rtac-fig8/{net}-drwa"),
            SRC,
            &format!(
                "{name}: DRWA gets {:.0}-{:.0} % of Auto-tuning's throughput (checked two-sided: a DRWA that starves \
                 completely is not the paper's result either)",
                drwa_range.0 * 100.0,
                drwa_range.1 * 100.0
            ),
            &[("ratio", drwa)],
            vec![Check::within("ratio", drwa_range.0, drwa_range.1)],
            format!(
                "DRWA's client gets {:.1} % of the Auto-tuning client's throughput: the shared queue raises its RTT \
                 and DRWA (rwnd = lambda RTT_min / RTT w, eq. (13)) shrinks its window in proportion, round after \
                 round, as a delay-based sender would{}.",
                drwa * 100.0,
                if drwa < drwa_range.0 {
                    "; with a constant RTT_min and no sender-side loss that would reset the competitor, nothing \
                     stops the shrinking before DRWA's window reaches a few packets"
                } else {
                    ""
                }
            ),
        ));
    }
    // The paper's explanation of its AP (section V-C: it "does not manage
    // its buffers in a shared manner") must give both of its figures on
    // that AP: RTAC about 95 % and DRWA 26 %.
    let ps: Vec<f64> = RECEIVERS
        .iter()
        .map(|rx| {
            let run = get(r, &format!("wifi-dc-per-station/{rx}"))?;
            Ok(flow(run, 1)?.throughput_mbps / flow(run, 0)?.throughput_mbps)
        })
        .collect::<Result<_, StudyError>>()?;
    for (rx, x) in RECEIVERS.iter().zip(&ps) {
        table.push(vec!["wifi-dc-per-station".into(), rx.to_string(), "-".into(), "-".into(), format!("{x:.2}")]);
    }
    claims.push(claim(
        "rtac-fig8/wifi-dc-per-station",
        SRC,
        "The paper's reading of its AP, a queue per station, accounts for both of its Wi-Fi DC figures: RTAC about \
         95 % and DRWA 26 % of Auto-tuning's throughput (checked: RTAC 90-110 %, DRWA 15-37 %)",
        &[("rtac_ratio", ps[2]), ("drwa_ratio", ps[1])],
        vec![Check::within("rtac_ratio", 0.9, 1.1), Check::within("drwa_ratio", 0.15, 0.37)],
        format!(
            "With a queue per station every receiver gets its own round-robin share whatever it advertises: RTAC \
             {:.0} %, DRWA {:.0} %. The per-station AP explains RTAC's share but not DRWA's starvation, which needs \
             a queue the two clients share.",
            ps[2] * 100.0,
            ps[1] * 100.0
        ),
    ));
    Ok(Analysis {
        claims,
        plots: out,
        table,
        notes: "Wi-Fi DC: both clients behind one 35 Mbit/s AP with a shared 400-packet queue. LTE IC: the two LTE \
                clients have their own queues at the base station, and meet the wired client (Auto-tuning) at a \
                40 Mbit/s wired bottleneck with a 1000-packet queue. Statistics exclude the first sixth of each run."
            .into(),
    })
}

// ---- Fig. 9/10: three receivers together -------------------------------------

/// The DC/IC scenario with one more client, so that Auto-tuning, DRWA and
/// RTAC receivers run side by side (flows 0, 1, 2).
pub(crate) fn three(sc: &Scenario) -> Scenario {
    let mut s = sc.clone();
    let lab = |l: &str| Some(controller(sc, l));
    let proto = s.flows[1].clone();
    s.flows[0].controller = lab("autotuning");
    s.flows[1].controller = lab("drwa");
    let mut third = proto;
    third.controller = lab("rtac");
    s.flows.insert(2, third);
    s.controllers = vec![controller(sc, "autotuning")];
    s
}

fn fig9_jobs(quick: bool, _seed: u64) -> Vec<Job> {
    competition()
        .into_iter()
        .map(|(net, mut sc)| {
            shorten(&mut sc, quick, Duration::from_secs(30));
            let s = three(&sc);
            let c = s.controllers[0].clone();
            Job::new(net, s, c)
        })
        .collect()
}

fn fig9(r: &Results, plots: &Plots) -> Result<Analysis, StudyError> {
    let mut claims = Vec::new();
    let mut out = Vec::new();
    let mut table = vec![vec!["scenario".into(), "receiver".into(), "Mbit/s".into(), "mean RTT ms".into()]];
    for net in ["wifi-dc", "lte-ic"] {
        let run = get(r, net)?;
        let sc = competition_scenario(net);
        let t: Vec<f64> = (0..3).map(|i| flow(run, i).map(|f| f.throughput_mbps)).collect::<Result<_, _>>()?;
        let mut bars = (Vec::new(), Vec::new());
        for (i, rx) in RECEIVERS.iter().enumerate() {
            let f = flow(run, i)?;
            table.push(vec![net.into(), rx.to_string(), fmt1(f.throughput_mbps), fmt1(f.rtt_mean_ms)]);
            let (m, e) = tput_ci(r, net, i)?;
            bars.0.push(m);
            bars.1.push(e);
        }
        let chart = BarChart::new(format!("{net}: three receivers together (mean, 95 % CI)"))
            .categories(RECEIVERS)
            .series_with_errors("throughput", &bars.0, &bars.1)
            .y_label("Throughput", "Mbit/s");
        plots.save(&chart, &format!("rtac-fig9-{net}"), &mut out)?;
        let (rtac, drwa) = (t[2] / t[0], t[1] / t[0]);
        claims.push(claim(
            &format!("rtac-fig9/{net}"),
            SRC,
            "Three receivers together: RTAC is compatible with Auto-tuning while DRWA starves (checked: RTAC 90-110 % \
             of Auto-tuning's throughput, DRWA at most 40 %)",
            &[("rtac_vs_auto", rtac), ("drwa_vs_auto", drwa)],
            vec![Check::within("rtac_vs_auto", 0.9, 1.1), Check::at_most("drwa_vs_auto", 0.4)],
            if rtac >= 0.9 {
                format!("RTAC gets {:.0} % and DRWA {:.0} % of Auto-tuning's throughput.", rtac * 100.0, drwa * 100.0)
            } else {
                format!(
                    "DRWA gets {:.0} % of Auto-tuning's throughput. {}",
                    drwa * 100.0,
                    shared_queue_reason(&sc, run, 2, 0, base_rtt_ms(&three(&sc), 2))?
                )
            },
        ));
    }
    Ok(Analysis {
        claims,
        plots: out,
        table,
        notes: "The DC and IC scenarios of Fig. 8 with a third wireless client.".into(),
    })
}

fn fig10_jobs(quick: bool, _seed: u64) -> Vec<Job> {
    let mut sc = competition_scenario("wifi-dc");
    shorten(&mut sc, quick, Duration::from_secs(30));
    let shared = three(&sc);
    let c = shared.controllers[0].clone();
    vec![Job::new("per-station", per_station(&shared), c.clone()), Job::new("shared", shared, c)]
}

fn fig10(r: &Results, plots: &Plots) -> Result<Analysis, StudyError> {
    let mut claims = Vec::new();
    let mut out = Vec::new();
    let mut table = vec![vec!["AP".into(), "receiver".into(), "Mbit/s".into(), "mean RTT ms".into()]];
    for ap in ["per-station", "shared"] {
        let run = get(r, ap)?;
        let f: Vec<(f64, f64)> =
            (0..3).map(|i| flow(run, i).map(|f| (f.throughput_mbps, f.rtt_mean_ms))).collect::<Result<_, _>>()?;
        for (rx, x) in RECEIVERS.iter().zip(&f) {
            table.push(vec![ap.into(), rx.to_string(), fmt1(x.0), fmt1(x.1)]);
        }
        let mut bars = (Vec::new(), Vec::new());
        for i in 0..3 {
            let (m, e) = across(r, ap, |run| Ok(flow(run, i)?.rtt_mean_ms))?;
            bars.0.push(m);
            bars.1.push(e);
        }
        let chart = BarChart::new(format!("Wi-Fi, three receivers, {ap} AP queue: mean RTT (mean, 95 % CI)"))
            .categories(RECEIVERS)
            .series_with_errors("mean RTT", &bars.0, &bars.1)
            .y_label("Mean RTT", "ms");
        plots.save(&chart, &format!("rtac-fig10-{ap}"), &mut out)?;
        let (auto, drwa, rtac) = (f[0], f[1], f[2]);
        let (tput_vs_drwa, rtt_vs_auto) = (rtac.0 / drwa.0, rtac.1 / auto.1);
        if ap == "per-station" {
            claims.push(claim(
                "rtac-fig10/per-station",
                SRC,
                "Wi-Fi, three receivers: RTAC gets more throughput than DRWA and a lower RTT than Auto-tuning \
                 (checked on an AP with a queue per station, the paper's reading of its AP: RTAC at least 1.1x \
                 DRWA's throughput, at most 0.8x Auto-tuning's RTT)",
                &[("rtac_tput_vs_drwa", tput_vs_drwa), ("rtac_rtt_vs_auto", rtt_vs_auto)],
                vec![Check::at_least("rtac_tput_vs_drwa", 1.1), Check::at_most("rtac_rtt_vs_auto", 0.8)],
                format!(
                    "RTAC {:.1} Mbit/s at {:.0} ms, DRWA {:.1} Mbit/s at {:.0} ms, Auto-tuning {:.1} Mbit/s at {:.0} \
                     ms: each station's own queue holds only what its receiver lets in.",
                    rtac.0, rtac.1, drwa.0, drwa.1, auto.0, auto.1
                ),
            ));
        } else {
            claims.push(claim(
                "rtac-fig10/shared",
                SRC,
                "The control for the paper's reading: with one shared AP queue the three receivers cannot have \
                 different RTTs (checked: RTAC's RTT within 10 % of Auto-tuning's), so the RTT gap of Fig. 10 \
                 needs per-station queues",
                &[("rtac_rtt_vs_auto", rtt_vs_auto)],
                vec![Check::within("rtac_rtt_vs_auto", 0.9, 1.1)],
                format!(
                    "All three share one queue: RTAC {:.0} ms, DRWA {:.0} ms, Auto-tuning {:.0} ms.",
                    rtac.1, drwa.1, auto.1
                ),
            ));
        }
    }
    Ok(Analysis {
        claims,
        plots: out,
        table,
        notes: "Wi-Fi DC with a third client (rtac-fig9), once with the AP's one shared 400-packet queue and once \
                with a 400-packet queue per station served round robin."
            .into(),
    })
}
