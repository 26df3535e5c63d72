//! RTAC §V-E: "precise estimation of BDP is difficult". The paper's RTAC
//! with K from eq. (11) for 0.25 to 4 times the path's true BDP, beside the
//! self-tuning RTAC (no parameter), DRWA and Auto-tuning, on a fixed-rate
//! link, the paper's LTE cell (with its channel) and a Mahimahi trace.

use super::{choice, claim, error_bars, flow, fmt1, get, library, shorten};
use crate::{Analysis, Check, Job, Plots, Results, Study, StudyError};
use rtac_core::controller::ControllerKind;
use rtac_core::Duration;
use rtac_netmodel::parse_mahimahi;
use rtac_plot::BarChart;
use rtac_sim::scenario::{parse_str, Service};
use rtac_sim::{RunResult, Scenario};
use std::sync::Arc;

const SRC: &str = "RTAC (Im et al., IEEE TMC 2016), section V-E";

pub(crate) fn studies() -> Vec<Study> {
    vec![Study {
        id: "rtac-bdp-error",
        source: "RTAC section V-E",
        title: "BDP misestimation: fixed K for 0.25x-4x the true BDP against self-tuning RTAC, DRWA and Auto-tuning",
        jobs,
        analyse,
    }]
}

/// BDP errors: K is eq. (11) for this multiple of the true BDP.
const ERRORS: [f64; 5] = [0.25, 0.5, 1.0, 2.0, 4.0];
/// The receivers besides the fixed-K ones.
const OTHERS: [&str; 3] = ["rtac", "drwa", "autotuning"];

/// A path: its key, name, true BDP in packets and base RTT in ms.
struct Path {
    key: &'static str,
    name: &'static str,
    bdp: f64,
    base_ms: f64,
}

const PATHS: [Path; 3] = [
    // 20 Mbit/s x 40 ms / 1448 B per packet.
    Path { key: "fixed", name: "20 Mbit/s, 40 ms", bdp: 69.1, base_ms: 40.0 },
    // 55 Mbit/s x 50 ms (RTT_m with the channel's mean): the paper's 236 packets.
    Path { key: "lte", name: "LTE cell (channel)", bdp: 236.0, base_ms: 50.0 },
    // The trace's mean rate (5.03 Mbit/s) x 40 ms.
    Path { key: "trace", name: "Verizon LTE trace", bdp: 17.4, base_ms: 40.0 },
];

fn path_scenario(key: &str, quick: bool) -> Scenario {
    let mut sc = match key {
        "lte" => super::rtac::lte(),
        "fixed" => parse_str(
            "duration = \"40s\"\nmeasure_from = \"5s\"\nstart_jitter = \"500ms\"\n[[link]]\nname = \"bn\"\nrate = \"20mbit\"\ndelay = \"20ms\"\n\
             queue = \"droptail:packets=350\"\n[[flow]]\ncc = \"cubic\"\n",
            "rtac-bdp-error-fixed",
        )
        .expect("a valid scenario"),
        _ => {
            let mut sc = parse_str(
                "duration = \"60s\"\nmeasure_from = \"5s\"\nstart_jitter = \"500ms\"\n[[link]]\nname = \"cell\"\nrate = \"5mbit\"\n\
                 delay = \"20ms\"\nqueue = \"droptail:packets=1000\"\n[[flow]]\ncc = \"cubic\"\n",
                "rtac-bdp-error-trace",
            )
            .expect("a valid scenario");
            let trace = parse_mahimahi(library::VERIZON_LTE_DOWN).expect("the embedded trace parses");
            sc.links[0].rate = trace.average_rate();
            sc.links[0].service = Service::Trace(Arc::new(trace));
            sc
        }
    };
    shorten(&mut sc, quick, Duration::from_secs(20));
    sc
}

fn fixed_label(x: f64) -> String {
    format!("k-{x}x")
}

fn jobs(quick: bool, _seed: u64) -> Vec<Job> {
    let mut jobs = Vec::new();
    for p in &PATHS {
        let sc = path_scenario(p.key, quick);
        for x in ERRORS {
            // A window limit far above any of these paths' needs, so that only K decides.
            let params = format!("bdp={:.2},rmem_max=64MB", x * p.bdp);
            jobs.push(Job::new(
                format!("{}/{}", p.key, fixed_label(x)),
                sc.clone(),
                choice(&fixed_label(x), ControllerKind::Rtac, &params),
            ));
        }
        for rx in OTHERS {
            let params = if rx == "autotuning" { "rmem_max=16MB" } else { "" };
            jobs.push(Job::new(
                format!("{}/{rx}", p.key),
                sc.clone(),
                choice(rx, rx.parse().expect("a controller"), params),
            ));
        }
    }
    jobs
}

fn tput(run: &RunResult) -> Result<f64, StudyError> {
    Ok(flow(run, 0)?.throughput_mbps)
}

fn rtt(run: &RunResult) -> Result<f64, StudyError> {
    Ok(flow(run, 0)?.rtt_mean_ms)
}

fn receivers() -> Vec<String> {
    ERRORS.iter().map(|&x| fixed_label(x)).chain(OTHERS.iter().map(|s| s.to_string())).collect()
}

fn analyse(r: &Results, plots: &Plots) -> Result<Analysis, StudyError> {
    let mut table =
        vec![vec!["path".into(), "receiver".into(), "Mbit/s".into(), "mean RTT ms".into(), "x base".into()]];
    let mut claims = Vec::new();
    for p in &PATHS {
        let v = |rx: &str| -> Result<(f64, f64), StudyError> {
            let run = get(r, &format!("{}/{rx}", p.key))?;
            Ok((tput(run)?, rtt(run)?))
        };
        for rx in receivers() {
            let (t, d) = v(&rx)?;
            table.push(vec![p.name.into(), rx, format!("{t:.2}"), fmt1(d), format!("{:.2}", d / p.base_ms)]);
        }
        let (auto, own, right, over, under) = (v("autotuning")?, v("rtac")?, v("k-1x")?, v("k-4x")?, v("k-0.25x")?);
        let (drwa, half) = (v("drwa")?, v("k-0.5x")?);
        let id = p.key;
        if id != "trace" {
            claims.push(claim(
                &format!("rtac-bdp-error/{id}-cube-law"),
                SRC,
                "With K from a BDP estimate, RTAC's standing queue grows with the estimate's error (K ~ BDP^-3): too \
                 high an estimate gives a longer queue (checked: the mean RTT with K for 4x the BDP at least 1.5x that \
                 with the right K; control: the right K keeps the mean RTT within 1.8x the base RTT)",
                &[("rtt_4x_over_1x", over.1 / right.1), ("rtt_1x_over_base", right.1 / p.base_ms)],
                vec![Check::at_least("rtt_4x_over_1x", 1.5), Check::at_most("rtt_1x_over_base", 1.8)],
                format!(
                    "{}: K for the right BDP gives {:.0} ms ({:.2}x base); for 4x it gives {:.0} ms, for 2x {:.0} ms; for \
                     0.25x {:.1} Mbit/s of the right K's {:.1}.",
                    p.name,
                    right.1,
                    right.1 / p.base_ms,
                    over.1,
                    v("k-2x")?.1,
                    under.0,
                    right.0
                ),
            ));
        }
        claims.push(claim(
            &format!("rtac-bdp-error/{id}-self-tuning"),
            SRC,
            "Without a BDP, the self-tuning RTAC keeps the throughput of the Linux receiver and cuts its delay \
             (checked: at least 90 % of Auto-tuning's throughput and at most 50 % of its mean RTT; control: the \
             fixed K for half or a quarter of the BDP or for 4x it misses one of the two)",
            &[
                ("throughput_vs_autotuning", own.0 / auto.0),
                ("rtt_vs_autotuning", own.1 / auto.1),
                (
                    "misestimated_k_meets_both",
                    super::flag([under, half, over].iter().all(|(t, d)| t / auto.0 >= 0.9 && d / auto.1 <= 0.5)),
                ),
            ],
            vec![
                Check::at_least("throughput_vs_autotuning", 0.9),
                Check::at_most("rtt_vs_autotuning", 0.5),
                Check::at_most("misestimated_k_meets_both", 0.5),
            ],
            format!(
                "{}: self-tuning {:.2} Mbit/s at {:.0} ms; Auto-tuning {:.2} at {:.0}; DRWA {:.2} at {:.0}; fixed K \
                 0.25x {:.2} at {:.0}, 0.5x {:.2} at {:.0}, 4x {:.2} at {:.0}.",
                p.name, own.0, own.1, auto.0, auto.1, drwa.0, drwa.1, under.0, under.1, half.0, half.1, over.0, over.1
            ),
        ));
    }
    let mut out = Vec::new();
    let rx = receivers();
    let categories: Vec<&str> = rx.iter().map(String::as_str).collect();
    let series: Vec<(String, String)> = PATHS.iter().map(|p| (p.name.to_string(), p.key.to_string())).collect();
    for (metric, unit, tag) in [("Throughput", "Mbit/s", "throughput"), ("Mean RTT", "ms", "rtt")] {
        let chart = BarChart::new(format!("BDP misestimation: {metric} by receiver (mean, 95 % CI)"))
            .categories(categories.iter().map(|s| s.to_string()))
            .y_label(metric, unit);
        let value = if tag == "rtt" { rtt } else { tput };
        let chart = error_bars(r, chart, &series, &categories, |path, rx| format!("{path}/{rx}"), value)?;
        plots.save(&chart, &format!("rtac-bdp-error-{tag}"), &mut out)?;
    }
    Ok(Analysis {
        claims,
        plots: out,
        table,
        notes: "One CUBIC download per path, starting within its first 500 ms (seeded): 20 Mbit/s x 40 ms with a 350-packet buffer; the paper's LTE cell \
                (55 Mbit/s, RTT_m 50 ms with its channel, 3000 packets); the Verizon LTE Mahimahi trace with 20 ms \
                each way and 1000 packets. k-Nx is the paper's RTAC with K from eq. (11) for N times the path's BDP \
                (rmem_max 64 MB so that only K decides); rtac is the self-tuning controller with no parameter; \
                Auto-tuning has rmem_max 16 MB."
            .into(),
    })
}
