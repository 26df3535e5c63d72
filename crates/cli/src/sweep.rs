//! `rtac sweep SWEEP.toml --out DIR`: every grid point x seed x controller
//! of a sweep file (format: `crates/sweep/src/file.rs`), simulated on the
//! machine's cores, one CSV row per run and flow in `DIR/runs.csv`,
//! appended as runs finish. A rerun with the same `DIR` skips the runs
//! already there.

use crate::Failure;
use clap::Args;
use rtac_sim::RunOptions;
use rtac_sweep::out::{open_dir, CsvOut, CSV_FILE};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub(crate) struct SweepArgs {
    /// Sweep file: scenario = "FILE", seeds = [...] or N, controllers = [...],
    /// and a [grid] table of "field" = [values] (crates/sweep/src/file.rs).
    #[arg(value_name = "SWEEP.toml")]
    sweep: PathBuf,

    /// Directory for runs.csv and _scenario.toml; an existing one is resumed.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,

    /// Runs to simulate in parallel; default: the number of cores.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
}

pub(crate) fn sweep(args: &SweepArgs) -> Result<(), Failure> {
    let input = |e: rtac_sweep::SweepError| Failure::input(e.to_string());
    let plan = rtac_sweep::file::load(&args.sweep).and_then(|s| s.plan()).map_err(input)?;
    // Held until the sweep ends: a second sweep on this directory is refused.
    let _lock = open_dir(&args.out, &plan).map_err(input)?;
    let (mut csv, done) = CsvOut::open(&args.out, &plan.columns()).map_err(input)?;
    let todo: Vec<usize> = (0..plan.jobs.len()).filter(|&i| !done.contains(&plan.jobs[i].key)).collect();
    let threads = match args.threads {
        Some(n) => usize::from(n),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    eprintln!(
        "rtac: sweep {}: {} runs ({} grid points), {} already in {}, {} to run on up to {} threads",
        args.sweep.display(),
        plan.jobs.len(),
        plan.points.len(),
        plan.jobs.len() - todo.len(),
        args.out.display(),
        todo.len(),
        threads
    );
    let start = Instant::now();
    let mut shown = start;
    let mut finished = 0usize;
    let rate = |n: usize| n as f64 / start.elapsed().as_secs_f64().max(1e-9);
    plan.run_parallel(&todo, threads, &RunOptions::default(), |i, r| {
        csv.append(&plan.rows(i, &r)).map_err(|e| Failure::io(e.to_string()))?;
        finished += 1;
        if shown.elapsed() >= Duration::from_secs(2) {
            shown = Instant::now();
            eprintln!("rtac: sweep: {finished}/{} runs, {:.1} runs/s", todo.len(), rate(finished));
        }
        Ok(())
    })?;
    eprintln!(
        "rtac: sweep: {finished} runs in {:.1} s ({:.1} runs/s); all {} runs are in {}",
        start.elapsed().as_secs_f64(),
        rate(finished),
        plan.jobs.len(),
        args.out.join(CSV_FILE).display()
    );
    Ok(())
}
