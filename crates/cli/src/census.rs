//! `rtac census`: receivers measured on random networks (crates/census).
//! Prints the pass rate per category and receiver, the catastrophic
//! single-flow cases and the worst cases; `--out DIR` makes it resumable
//! and writes every failing case as a scenario file. `--compare BEFORE
//! AFTER` compares two such directories network by network.

use crate::Failure;
use clap::Args;
use rtac_census::compare::{self, Census};
use rtac_census::out::Output;
use rtac_census::{report, Category, CensusError, Settings, Traces};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub(crate) struct CensusArgs {
    /// Networks to draw (split evenly over the categories).
    #[arg(long, short = 'n', value_name = "N", default_value_t = 200)]
    n: u64,

    /// Seed of the draw: the same seed draws the same networks.
    #[arg(long, default_value_t = 1)]
    seed: u64,

    /// A receiver to measure; repeat for several. Default: rtac, drwa and
    /// rtac:k=3e-7 (the paper's LTE constant).
    #[arg(long = "controller", short = 'c', value_name = "NAME[:k=v,...]")]
    controllers: Vec<String>,

    /// The receiver each is judged against.
    #[arg(long, value_name = "NAME[:k=v,...]", default_value = rtac_census::DEFAULT_BASELINE)]
    baseline: String,

    /// Only these categories; repeatable. Default: all of fixed, jitter,
    /// trace, loss, aqm, bbr, shared, multi.
    #[arg(long = "category", value_name = "NAME")]
    categories: Vec<String>,

    /// A directory of Mahimahi traces (or one trace file) for the trace
    /// category; repeatable. Default: traces/mahimahi under the current
    /// directory, if there. Half the trace networks draw a synthetic trace.
    #[arg(long = "traces", value_name = "DIR")]
    traces: Vec<PathBuf>,

    /// Write networks.csv, the failing cases and the report here; an
    /// existing census directory is resumed.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,

    /// Worst cases to list per receiver.
    #[arg(long, value_name = "K", default_value_t = 10)]
    worst: usize,

    /// Networks to simulate in parallel; default: the number of cores.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,

    /// Print the categories with their ranges and exit.
    #[arg(long)]
    list: bool,

    /// Compare two --out directories of the same draw network by network
    /// (each receiver both measured: per category the pass rates, the
    /// networks that now pass and now fail, McNemar's exact p, and the
    /// catastrophic cases), and exit. Runs nothing.
    #[arg(long, num_args = 2, value_names = ["BEFORE", "AFTER"], conflicts_with_all = ["out", "list"])]
    compare: Vec<PathBuf>,
}

fn input(e: CensusError) -> Failure {
    Failure::input(e.to_string())
}

pub(crate) fn census(args: &CensusArgs) -> Result<(), Failure> {
    if let [before, after] = args.compare.as_slice() {
        let (before, after) = (Census::read(before).map_err(input)?, Census::read(after).map_err(input)?);
        print!("{}", compare::compare(&before, &after).map_err(input)?);
        return Ok(());
    }
    if args.list {
        for c in Category::ALL {
            println!("{:<7} {}", c.name(), c.ranges());
        }
        return Ok(());
    }
    let opt = |v: &[String]| (!v.is_empty()).then(|| v.to_vec());
    let (controllers, categories) = (opt(&args.controllers), opt(&args.categories));
    let traces = (!args.traces.is_empty()).then(|| args.traces.clone());
    let settings = Settings::from_names(
        args.seed,
        args.n,
        controllers.as_deref(),
        &args.baseline,
        categories.as_deref(),
        traces.as_deref(),
    )
    .map_err(input)?;
    let trace_note = if settings.pool.traces.is_empty() && settings.categories.contains(&Category::Trace) {
        " (no trace files: synthetic traces only; --traces DIR adds files)"
    } else {
        ""
    };
    let threads = match args.threads {
        Some(n) => usize::from(n),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let (mut out, mut results) = match &args.out {
        Some(dir) => {
            let (o, done) = Output::open(dir, &settings).map_err(input)?;
            (Some(o), done.into_iter().filter(|r| r.net.index < settings.n).collect())
        }
        None => (None, Vec::new()),
    };
    let done: std::collections::BTreeSet<u64> = results.iter().map(|r| r.net.index).collect();
    let todo: Vec<u64> = (0..settings.n).filter(|i| !done.contains(i)).collect();
    eprintln!(
        "rtac: census of {} networks from seed {} in {} categories, {} trace files{}; {} already done, {} to run on up to {threads} threads",
        settings.n,
        settings.seed,
        settings.categories.len(),
        settings.pool.traces.len(),
        trace_note,
        done.len(),
        todo.len()
    );
    let traces = Traces::default();
    let start = Instant::now();
    let mut shown = start;
    let mut finished = 0usize;
    rtac_census::run_networks(&settings, &todo, threads, &traces, |r| {
        if let Some(o) = out.as_mut() {
            o.record(&settings, &r)?;
        }
        results.push(r);
        finished += 1;
        if shown.elapsed() >= Duration::from_secs(5) {
            shown = Instant::now();
            eprintln!(
                "rtac: census: {finished}/{} networks, {:.1} networks/s",
                todo.len(),
                finished as f64 / start.elapsed().as_secs_f64()
            );
        }
        Ok(())
    })
    .map_err(|e| match e {
        CensusError::Output { .. } => Failure::io(e.to_string()),
        other => Failure::input(other.to_string()),
    })?;
    results.sort_by_key(|r| r.net.index);
    let wall = start.elapsed().as_secs_f64();
    let runs = finished * (settings.receivers.len() + 1);
    let text = report::text(&settings, &results, args.worst, out.as_ref());
    print!("{text}");
    eprintln!(
        "rtac: census: {finished} networks ({runs} runs) in {wall:.1} s on {threads} threads: {:.2} runs/s per thread",
        runs as f64 / wall.max(1e-9) / threads as f64
    );
    if let Some(o) = &out {
        o.write_report(&text).map_err(|e| Failure::io(e.to_string()))?;
        eprintln!(
            "rtac: census: rows in {}/networks.csv, failing cases in {}/failures/",
            o.dir().display(),
            o.dir().display()
        );
    }
    Ok(())
}
