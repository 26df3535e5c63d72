//! Simulator speed: simulated data packets per wall-clock second on the
//! benchmark scenario (30 s, one CUBIC flow, 100 Mbit/s, 20 ms one way,
//! 2000-packet DropTail), and the same run with `channel = "lte"` on the
//! bottleneck, interleaved. Reports figures; asserts nothing about time.
//!
//! cargo bench -p rtac-sim --bench speed [-- REPETITIONS]

use rtac_netmodel::ChannelSpec;
use rtac_sim::scenario::load_file;
use rtac_sim::{run, RunOptions};
use std::path::Path;

/// ns-3 3.37 on this machine class: 14.3 s of wall time for the same run.
const NS3_WALL_S: f64 = 14.3;

fn main() {
    let reps: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(9);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/bench-cubic-100mbit.toml");
    let sc = load_file(&path).unwrap_or_else(|e| panic!("{e}"));
    let choice = &sc.controllers[0];
    // The same run with the LTE channel on the bottleneck, interleaved
    // with the plain one so that both see the same machine load.
    let mut lte = sc.clone();
    lte.links[0].channel = Some(ChannelSpec::parse("lte").expect("a valid channel"));
    let mut walls = Vec::new();
    let mut lte_walls = Vec::new();
    let mut last = None;
    let mut lte_packets = 0;
    for _ in 0..reps {
        let r = run(&sc, choice, &RunOptions::default());
        walls.push(r.wall.as_secs_f64());
        last = Some(r);
        let r = run(&lte, choice, &RunOptions::default());
        lte_walls.push(r.wall.as_secs_f64());
        lte_packets = r.packets;
    }
    let r = last.expect("at least one repetition");
    walls.sort_by(f64::total_cmp);
    lte_walls.sort_by(f64::total_cmp);
    let median = walls[walls.len() / 2];
    let lte_median = lte_walls[lte_walls.len() / 2];
    let f = &r.flows[0];
    println!("scenario           {}", sc.name);
    println!("repetitions        {reps}");
    println!("wall median        {:.4} s (min {:.4}, max {:.4})", median, walls[0], walls[walls.len() - 1]);
    println!("data packets       {}", r.packets);
    println!("events             {}", r.events);
    println!("packets / wall-s   {:.0}", r.packets as f64 / median);
    println!("events / wall-s    {:.0}", r.events as f64 / median);
    println!(
        "goodput            {:.2} Mbit/s, mean RTT {:.1} ms, drops {}",
        f.throughput_mbps, f.rtt_mean_ms, r.links[0].drops
    );
    println!("vs ns-3 3.37       {:.0}x faster (ns-3: {NS3_WALL_S} s wall for this run)", NS3_WALL_S / median);
    println!(
        "with channel=lte   wall median {:.4} s, {:.0} packets / wall-s; wall per packet {:.3}x the plain run's",
        lte_median,
        lte_packets as f64 / lte_median,
        (lte_median / lte_packets as f64) / (median / r.packets as f64)
    );
    if let Ok(s) = std::fs::read_to_string("/proc/self/status") {
        if let Some(l) = s.lines().find(|l| l.starts_with("VmHWM")) {
            println!("peak memory        {}", l.trim_start_matches("VmHWM:").trim());
        }
    }
}
