//! DRWA (Jiang et al., IMC 2012): Fig. 13 (no effect where the buffer is
//! not bloated) and Fig. 14 (the impact of lambda).

use super::drwa::{fading, path, phone, Net, EVDO, HSPA, LTE};
use super::{choice, claim, error_bars, flow, fmt1, get, library, named, scenario, shorten};
use crate::{Analysis, Check, Job, Plots, Results, Study, StudyError};
use rtac_core::controller::ControllerKind;
use rtac_core::{Bandwidth, Duration};
use rtac_netmodel::QueueSpec;
use rtac_plot::BarChart;
use rtac_sim::Scenario;

const SRC: &str = "DRWA (Jiang et al., IMC 2012)";

pub(crate) fn studies() -> Vec<Study> {
    vec![
        Study {
            id: "drwa-fig13",
            source: "DRWA Fig. 13",
            title: "Wi-Fi with a buffer of one BDP: DRWA against the static limit, and the same path bloated",
            jobs: fig13_jobs,
            analyse: fig13,
        },
        Study {
            id: "drwa-fig14",
            source: "DRWA Fig. 14",
            title:
                "The impact of lambda (2, 3, 4) on throughput and RTT over HSPA+, EVDO and LTE with a fading channel",
            jobs: fig14_jobs,
            analyse: fig14,
        },
    ]
}

// ---- Fig. 13: no bufferbloat -------------------------------------------------

/// A Wi-Fi path: 20 Mbit/s, RTT_min 50 ms (BDP 125 KB = 83 packets).
const WIFI_MBPS: u64 = 20;
const WIFI_RTT_MS: u64 = 50;
/// A static limit whose advertised 3/4 (768 KB, 6 BDPs) exceeds the BDP
/// plus a one-BDP buffer (250 KB): the sender meets loss before the window;
/// with a bloated buffer it queues 5 BDPs, past DRWA's lambda = 3 target.
const WIFI_RMEM: u64 = 1_048_576;
/// Buffers: one BDP (the rule of thumb), and a bloated control.
const BUFFERS: [(&str, u64); 2] = [("bdp", 83), ("bloated", 3000)];

fn wifi(packets: u64, quick: bool) -> Scenario {
    let mut sc = scenario(library::DRWA_FIG17, "drwa-fig17.toml");
    shorten(&mut sc, quick, Duration::from_secs(30));
    sc.links[0].rate = Bandwidth::from_mbps(WIFI_MBPS);
    sc.links[0].delay = Duration::from_micros(WIFI_RTT_MS * 500);
    sc.links[0].queue = QueueSpec::parse(&format!("droptail:packets={packets}")).expect("a valid queue");
    sc.name = format!("drwa-fig13-{packets}pkts");
    sc
}

fn fig13_jobs(quick: bool, _seed: u64) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (key, packets) in BUFFERS {
        let sc = wifi(packets, quick);
        jobs.push(Job::new(format!("{key}/static"), sc.clone(), phone(WIFI_RMEM)));
        jobs.push(Job::new(format!("{key}/drwa"), sc, super::drwa::drwa()));
    }
    jobs
}

fn fig13(r: &Results, plots: &Plots) -> Result<Analysis, StudyError> {
    let mut table =
        vec![vec!["buffer".into(), "receiver".into(), "Mbit/s".into(), "mean RTT ms".into(), "drops".into()]];
    let mut m = std::collections::BTreeMap::new();
    for (key, _) in BUFFERS {
        for rx in ["static", "drwa"] {
            let run = get(r, &format!("{key}/{rx}"))?;
            let f = flow(run, 0)?;
            m.insert((key, rx), (f.throughput_mbps, f.rtt_mean_ms));
            table.push(vec![
                key.into(),
                rx.into(),
                fmt1(f.throughput_mbps),
                fmt1(f.rtt_mean_ms),
                run.links[0].drops.to_string(),
            ]);
        }
    }
    let mut out = Vec::new();
    for (metric, unit, tag) in [("Throughput", "Mbit/s", "throughput"), ("Mean RTT", "ms", "rtt")] {
        let chart = BarChart::new(format!("Wi-Fi, {metric}: static limit vs DRWA (mean, 95 % CI)"))
            .categories(BUFFERS.map(|b| format!("buffer: {}", b.0)))
            .y_label(metric, unit);
        let chart = error_bars(
            r,
            chart,
            &named(&["static", "drwa"]),
            &BUFFERS.map(|b| b.0),
            |rx, key| format!("{key}/{rx}"),
            |run| {
                let f = flow(run, 0)?;
                Ok(if tag == "rtt" { f.rtt_mean_ms } else { f.throughput_mbps })
            },
        )?;
        plots.save(&chart, &format!("drwa-fig13-{tag}"), &mut out)?;
    }
    let v = |k, rx| m.get(&(k, rx)).copied().unwrap_or((f64::NAN, f64::NAN));
    let (s, d) = (v("bdp", "static"), v("bdp", "drwa"));
    let (bs, bd) = (v("bloated", "static"), v("bloated", "drwa"));
    let (tput, rtt, control_cut) = (d.0 / s.0, d.1 / s.1, 1.0 - bd.1 / bs.1);
    let claims = vec![claim(
        "drwa-fig13/no-bloat",
        SRC,
        "In a network that is not bufferbloated (Wi-Fi, a buffer of one BDP) TCP performs alike with or without \
         DRWA (checked: DRWA's throughput within 5 % and its RTT within 10 % of the static limit's; control: on \
         the same path with a bloated buffer DRWA cuts the RTT by at least 20 %)",
        &[("throughput_ratio", tput), ("rtt_ratio", rtt), ("control_bloated_rtt_cut", control_cut)],
        vec![
            Check::within("throughput_ratio", 0.95, 1.05),
            Check::within("rtt_ratio", 0.9, 1.1),
            Check::at_least("control_bloated_rtt_cut", 0.2),
        ],
        format!(
            "With a one-BDP buffer: static {:.1} Mbit/s at {:.0} ms, DRWA {:.1} Mbit/s at {:.0} ms; the buffer \
             overflows before the RTT reaches lambda RTT_min, so DRWA's window never binds. With 3000 packets: \
             static {:.0} ms, DRWA {:.0} ms ({:.0} % less).",
            s.0,
            s.1,
            d.0,
            d.1,
            bs.1,
            bd.1,
            control_cut * 100.0
        ),
    )];
    Ok(Analysis {
        claims,
        plots: out,
        table,
        notes: format!(
            "One CUBIC download over a {WIFI_MBPS} Mbit/s path with RTT_min {WIFI_RTT_MS} ms; the phone's static \
             limit is {WIFI_RMEM} B (advertised 3/4, 6 BDPs: above the BDP plus a one-BDP buffer); DRWA with lambda = 3."
        ),
    })
}

// ---- Fig. 14: lambda ----------------------------------------------------------

const LAMBDAS: [u32; 3] = [2, 3, 4];
const NETS: [&Net; 3] = [&HSPA, &EVDO, &LTE];

fn fig14_jobs(quick: bool, seed: u64) -> Vec<Job> {
    let mut base = scenario(library::DRWA_FIG19, "drwa-fig19.toml");
    base.seed = seed;
    shorten(&mut base, quick, Duration::from_secs(30));
    let mut jobs = Vec::new();
    for net in NETS {
        let sc = fading(&path(&base, net, net.near_ms));
        for l in LAMBDAS {
            let c = choice(&format!("drwa-l{l}"), ControllerKind::Drwa, &format!("lambda={l}"));
            jobs.push(Job::new(format!("{}/{l}", net.key), sc.clone(), c));
        }
    }
    jobs
}

fn fig14(r: &Results, plots: &Plots) -> Result<Analysis, StudyError> {
    let mut table = vec![vec!["network".into(), "lambda".into(), "Mbit/s".into(), "mean RTT ms".into()]];
    let mut out = Vec::new();
    let mut gain_3_over_2 = f64::MIN;
    let mut gain_4_over_3 = f64::MIN;
    let mut rtt_4_over_3 = f64::MAX;
    for net in NETS {
        let x: Vec<(f64, f64)> = LAMBDAS
            .iter()
            .map(|l| flow(get(r, &format!("{}/{l}", net.key))?, 0).map(|f| (f.throughput_mbps, f.rtt_mean_ms)))
            .collect::<Result<_, _>>()?;
        for (l, v) in LAMBDAS.iter().zip(&x) {
            table.push(vec![net.name.into(), l.to_string(), format!("{:.2}", v.0), fmt1(v.1)]);
        }
        gain_3_over_2 = gain_3_over_2.max(x[1].0 / x[0].0 - 1.0);
        gain_4_over_3 = gain_4_over_3.max(x[2].0 / x[1].0 - 1.0);
        rtt_4_over_3 = rtt_4_over_3.min(x[2].1 / x[1].1);
    }
    for (metric, unit, tag) in [("Throughput", "Mbit/s", "throughput"), ("Mean RTT", "ms", "rtt")] {
        let chart = BarChart::new(format!("DRWA, {metric} by lambda (fading channel; mean, 95 % CI)"))
            .categories(NETS.map(|n| n.name))
            .y_label(metric, unit);
        let series: Vec<(String, String)> = LAMBDAS.iter().map(|l| (format!("lambda = {l}"), l.to_string())).collect();
        let chart = error_bars(
            r,
            chart,
            &series,
            &NETS.map(|n| n.key),
            |l, net| format!("{net}/{l}"),
            |run| {
                let f = flow(run, 0)?;
                Ok(if tag == "rtt" { f.rtt_mean_ms } else { f.throughput_mbps })
            },
        )?;
        plots.save(&chart, &format!("drwa-fig14-{tag}"), &mut out)?;
    }
    let claims = vec![
        claim(
            "drwa-fig14/lambda-3-vs-2",
            SRC,
            "lambda = 3 has some throughput advantage over lambda = 2 under certain scenarios (checked: at least 2 % \
             more throughput on at least one network)",
            &[("best_gain_3_over_2", gain_3_over_2)],
            vec![Check::at_least("best_gain_3_over_2", 0.02)],
            format!(
                "The largest gain of lambda = 3 over 2 across the three networks is {:+.1} %. With lambda = 2 DRWA \
                 keeps about one BDP queued, enough to ride out the channel's dips unless they outlast it.",
                gain_3_over_2 * 100.0
            ),
        ),
        claim(
            "drwa-fig14/lambda-4",
            SRC,
            "Raising lambda to 4 does not improve throughput but only adds delay (checked: on every network at most \
             2 % more throughput than lambda = 3, and at least 10 % more mean RTT)",
            &[("best_gain_4_over_3", gain_4_over_3), ("least_rtt_4_over_3", rtt_4_over_3)],
            vec![Check::at_most("best_gain_4_over_3", 0.02), Check::at_least("least_rtt_4_over_3", 1.1)],
            format!(
                "lambda = 4 gains at most {:+.1} % throughput over lambda = 3 and raises the mean RTT by at least \
                 {:.0} %: DRWA settles where RTT = lambda RTT_min.",
                gain_4_over_3 * 100.0,
                (rtt_4_over_3 - 1.0) * 100.0
            ),
        ),
    ];
    Ok(Analysis {
        claims,
        plots: out,
        table,
        notes: "One CUBIC download per network from a nearby server (rates and RTT_min of drwa-fig17) through a \
                3000-packet per-user buffer, the channel's rate redrawn every 50 ms uniformly in [0.25, 1.75] x the \
                mean (seeded; drwa-fig19's fading channel). The paper's Fig. 14 pools 400 runs per setting over \
                small- and large-BDP paths and good and weak signal; this study has the three networks' nearby paths."
            .into(),
    })
}
