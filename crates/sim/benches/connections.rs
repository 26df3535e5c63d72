//! One receiver, many connections: the per-link budget (`rtac`, whose
//! connections of one receiver share one budget) against per-connection
//! RTAC (`rtac:budget=connection`, the control) and the Linux receiver
//! (`autotuning:rmem_max=16MB`, the baseline), with 2, 4, 8 and 16 CUBIC
//! connections of one receiver in one queue. Prints a table and, per row,
//! whether the targets hold; asserts nothing.
//!
//! cargo bench -p rtac-sim --bench connections [-- SEEDS] [fixed|traces|lte]... [n=2,4]
//!
//! - fixed-rate links of 5-500 Mbit/s x 20-200 ms base RTT, buffer 5 x BDP;
//! - the Mahimahi downlink traces in `traces/mahimahi`, 20 ms each way, a
//!   1000-packet buffer;
//! - fixed links with the `lte` channel (non-congestive delay variation);
//! - `beside`: two receivers with 3 connections each behind one Wi-Fi AP
//!   queue (the RTAC paper's Wi-Fi DC link, 35 Mbit/s, 400 packets): the
//!   receiver under test beside a Linux receiver, its throughput over the
//!   Linux receiver's, against what a Linux receiver gets in its seat;
//! - `short`: twenty 1 MB transfers, one after another, by a receiver that
//!   also runs a bulk download (a web page while an update downloads), on
//!   20 Mbit/s x 50 ms with a 2000-packet buffer: their completion times.
//!
//! Targets per row, as medians over seeds 1..=SEEDS (default 20): total
//! throughput >= 0.9 x the Linux receiver's; mean RTT <= max(0.5 x the
//! Linux receiver's, 2 x base RTT); Jain's index among the connections'
//! throughputs >= 0.9. Each row gives the median with a distribution-free
//! 95 % confidence interval of the median where there are six seeds or
//! more.

use rtac_netmodel::ChannelSpec;
use rtac_sim::scenario::parse_str;
mod common;

use common::{mean_rtt, median, median_ci, recorded, runs, total_mbps, values};
use rtac_sim::{RunResult, Scenario};

const CONTROLLERS: &str = r#"{ label = "linux", controller = "autotuning", params = { rmem_max = "16MB" } },
  { label = "per-conn", controller = "rtac", params = { budget = "connection" } },
  { label = "per-link", controller = "rtac" }"#;
const LABELS: [&str; 3] = ["linux", "per-conn", "per-link"];

/// Jain's fairness index of the connections' throughputs.
fn jain(r: &RunResult) -> f64 {
    let x: Vec<f64> = r.flows.iter().map(|f| f.throughput_mbps).collect();
    let s: f64 = x.iter().sum();
    let q: f64 = x.iter().map(|v| v * v).sum();
    if q > 0.0 {
        s * s / (x.len() as f64 * q)
    } else {
        0.0
    }
}

fn show(v: Vec<f64>, prec: usize) -> String {
    let m = median(v.clone());
    match median_ci(v) {
        Some((lo, hi)) => format!("{m:.prec$} [{lo:.prec$}-{hi:.prec$}]"),
        None => format!("{m:.prec$}"),
    }
}

/// Held rows per label, out of the rows run.
#[derive(Default)]
struct Tally {
    held: [usize; 3],
    rows: usize,
}

fn rows(name: &str, n: u32, base_rtt: f64, seeds: &[Vec<RunResult>], tally: &mut Tally) {
    let thr0 = median(values(seeds, "linux", total_mbps));
    let rtt0 = median(values(seeds, "linux", mean_rtt));
    tally.rows += 1;
    for (k, label) in LABELS.iter().enumerate() {
        let (thr, rtt, fair) =
            (values(seeds, label, total_mbps), values(seeds, label, mean_rtt), values(seeds, label, jain));
        let (tm, rm, jm) = (median(thr.clone()), median(rtt.clone()), median(fair.clone()));
        let ok = tm >= 0.9 * thr0 && rm <= (0.5 * rtt0).max(2.0 * base_rtt) && jm >= 0.9;
        tally.held[k] += ok as usize;
        let verdict = if *label == "linux" {
            "-"
        } else if ok {
            "yes"
        } else {
            "NO"
        };
        println!(
            "{name:<30} {n:>2} {label:<8} {:>22} {:>5.2} {:>22} {:>5.2} {:>5.2} {:>5.2}  {verdict}",
            show(thr, 2),
            tm / thr0,
            show(rtt, 1),
            rm / rtt0,
            rm / base_rtt,
            jm,
        );
    }
}

fn header(what: &str) {
    println!("\n{what}");
    println!(
        "{:<30} {:>2} {:<8} {:>22} {:>5} {:>22} {:>5} {:>5} {:>5}  targets",
        "case", "n", "rx", "Mbit/s [95% CI]", "xlin", "RTT ms [95% CI]", "xlin", "xbase", "Jain"
    );
}

fn scenario(link: &str, n: u32) -> Scenario {
    let text = format!(
        "name = \"connections-{n}\"\nduration = \"40s\"\nmeasure_from = \"10s\"\nstart_jitter = \"1s\"\n\
         controllers = [{CONTROLLERS}]\n[[link]]\nname = \"access\"\n{link}\n\
         [[flow]]\ncc = \"cubic\"\ncount = {n}\nreceiver = \"host\"\n"
    );
    parse_str(&text, "connections").unwrap_or_else(|e| panic!("{e}"))
}

fn fixed(seeds: u64, counts: &[u32], channel: Option<&str>, tally: &mut Tally) {
    let cases: &[(u32, u32)] = match channel {
        None => &[(5, 20), (5, 200), (50, 50), (50, 200), (500, 20), (500, 100)],
        Some(_) => &[(20, 20), (100, 50)],
    };
    let extra = channel.map_or(0.0, |c| ChannelSpec::parse(c).expect("channel").mean_extra().as_secs_f64() * 1e3);
    for &(rate, rtt) in cases {
        let bdp = rate as f64 * 1e6 * rtt as f64 / 1e3 / 12_000.0;
        let buffer = ((5.0 * bdp).round() as u64).max(10);
        let mut link =
            format!("rate = \"{rate}mbit\"\ndelay = \"{}us\"\nqueue = \"droptail:packets={buffer}\"", rtt * 500);
        if let Some(c) = channel {
            link.push_str(&format!("\nchannel = \"{c}\""));
        }
        let name = match channel {
            None => format!("{rate} Mbit/s x {rtt} ms, {buffer} pkts"),
            Some(c) => format!("{rate} Mbit/s x {rtt} ms {c}, {buffer}"),
        };
        for &n in counts {
            rows(&name, n, rtt as f64 + extra, &runs(scenario(&link, n), seeds), tally);
        }
    }
}

fn traces(seeds: u64, counts: &[u32], tally: &mut Tally) {
    for path in recorded() {
        let link =
            format!("trace = {:?}\ndelay = \"20ms\"\nqueue = \"droptail:packets=1000\"", path.display().to_string());
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        for &n in counts {
            rows(&name, n, 40.0, &runs(scenario(&link, n), seeds), tally);
        }
    }
}

/// Two receivers of 3 connections behind one Wi-Fi AP queue: the one under
/// test (each run's controller) and a Linux receiver.
fn beside(seeds: u64) {
    let text = format!(
        "name = \"beside\"\nduration = \"60s\"\nmeasure_from = \"10s\"\nstart_jitter = \"1s\"\n\
         controllers = [{CONTROLLERS}]\n[[link]]\nname = \"ap\"\nrate = \"35mbit\"\ndelay = \"5ms\"\n\
         channel = \"wifi\"\nqueue = \"droptail:packets=400\"\n\
         [[flow]]\ncc = \"cubic\"\ncount = 3\nreceiver = \"linux\"\n\
         controller = {{ controller = \"autotuning\", params = {{ rmem_max = \"16MB\" }} }}\n\
         [[flow]]\ncc = \"cubic\"\ncount = 3\nreceiver = \"tested\"\n"
    );
    let sc = parse_str(&text, "connections").unwrap_or_else(|e| panic!("{e}"));
    let seeds = runs(sc, seeds);
    println!("{:<10} {:>26} {:>22} {:>22}", "rx", "share of Linux [95% CI]", "its Mbit/s", "RTT ms");
    for label in LABELS {
        let part = |r: &RunResult, ids: std::ops::Range<usize>| -> f64 {
            r.flows[ids].iter().map(|f| f.throughput_mbps).sum()
        };
        let share = values(&seeds, label, |r| part(r, 3..6) / part(r, 0..3).max(1e-9));
        let own = values(&seeds, label, |r| part(r, 3..6));
        let rtt = values(&seeds, label, mean_rtt);
        println!("{label:<10} {:>26} {:>22} {:>22}", show(share, 2), show(own, 2), show(rtt, 1));
    }
}

/// Twenty 1 MB transfers one after another beside a bulk download, all of
/// one receiver: completion times.
fn short(seeds: u64) {
    let mut text = format!(
        "name = \"short\"\nduration = \"60s\"\nmeasure_from = \"0s\"\n\
         controllers = [{CONTROLLERS}]\n[[link]]\nname = \"access\"\nrate = \"20mbit\"\ndelay = \"25ms\"\n\
         queue = \"droptail:packets=2000\"\n[[flow]]\ncc = \"cubic\"\nreceiver = \"host\"\n"
    );
    // One transfer every 2 s from 10 s on: each has finished before the
    // next starts under every receiver but a bloated one.
    for i in 0..20 {
        text.push_str(&format!(
            "[[flow]]\ncc = \"cubic\"\nreceiver = \"host\"\nbytes = \"1MB\"\nstart = \"{}ms\"\n",
            10_000 + 2_000 * i
        ));
    }
    let sc = parse_str(&text, "connections").unwrap_or_else(|e| panic!("{e}"));
    let seeds = runs(sc, seeds);
    println!("{:<10} {:>12} {:>12} {:>10} {:>14}", "rx", "median s", "p90 s", "done", "bulk Mbit/s");
    for label in LABELS {
        let mut times = Vec::new();
        let (mut done, mut all) = (0, 0);
        for runs in &seeds {
            let r = runs.iter().find(|r| r.label == label).expect("label");
            for f in &r.flows[1..] {
                all += 1;
                if let Some(c) = f.completion {
                    done += 1;
                    times.push(c.as_secs_f64());
                }
            }
        }
        times.sort_by(f64::total_cmp);
        let p90 =
            times.get(((times.len() as f64 * 0.9).ceil() as usize).saturating_sub(1)).copied().unwrap_or(f64::NAN);
        let bulk = median(values(&seeds, label, |r| r.flows[0].throughput_mbps));
        println!("{label:<10} {:>12.2} {:>12.2} {:>6}/{:<3} {:>14.2}", median(times.clone()), p90, done, all, bulk);
    }
}

fn main() {
    let mut seeds = 20;
    let mut counts = vec![2, 4, 8, 16];
    let mut parts = Vec::new();
    for a in std::env::args().skip(1) {
        if let Ok(s) = a.parse::<u64>() {
            seeds = s.max(1);
        } else if let Some(list) = a.strip_prefix("n=") {
            counts = list
                .split(',')
                .map(|c| c.parse().unwrap_or_else(|_| panic!("n={list}: not a list of counts")))
                .collect();
        } else if a != "--bench" {
            parts.push(a);
        }
    }
    if parts.is_empty() {
        parts = ["fixed", "traces", "lte", "beside", "short"].map(String::from).to_vec();
    }
    let wall = std::time::Instant::now();
    let mut tally = Tally::default();
    for p in &parts {
        match p.as_str() {
            "fixed" => {
                header("fixed-rate links, buffer 5 x BDP, n CUBIC connections of one receiver");
                fixed(seeds, &counts, None, &mut tally);
            }
            "lte" => {
                header("fixed-rate links with the lte channel, buffer 5 x BDP");
                fixed(seeds, &counts, Some("lte"), &mut tally);
            }
            "traces" => {
                header("Mahimahi downlink traces, 20 ms each way, 1000-packet buffer");
                traces(seeds, &counts, &mut tally);
            }
            "beside" => {
                println!("\ntwo receivers of 3 connections behind one Wi-Fi AP queue (35 Mbit/s, 400 packets): the tested one beside a Linux receiver");
                beside(seeds);
            }
            "short" => {
                println!("\ntwenty 1 MB transfers beside a bulk download of the same receiver, 20 Mbit/s x 50 ms, 2000 packets");
                short(seeds);
            }
            other => panic!("unknown part {other:?}: fixed, traces, lte, beside or short"),
        }
    }
    println!(
        "\ntargets held (of {} rows): per-conn {}, per-link {}; seeds 1..={seeds}; {:.0} s wall",
        tally.rows,
        tally.held[1],
        tally.held[2],
        wall.elapsed().as_secs_f64()
    );
}
