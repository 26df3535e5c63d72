//! `rtac sweep SWEEP.toml --out DIR`: every grid point x seed x controller
//! of a sweep file (format: `crates/sweep/src/file.rs`), simulated on the
//! machine's cores, one row per run and flow written to `DIR` as runs
//! finish: Parquet parts that `pd.read_parquet(DIR)` reads as one table,
//! as `rtac.sweep(out=DIR)` writes them, or with `--format csv` one
//! `DIR/runs.csv`. A rerun with the same `DIR` skips the runs already
//! there, in the format it finds there.

use crate::Failure;
use clap::{Args, ValueEnum};
use rtac_sim::RunOptions;
use rtac_sweep::out::{open_dir, CsvOut, Format, CSV_FILE};
use rtac_sweep::parts::ParquetOut;
use rtac_sweep::Plan;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

// The field docs are the command's --help text, which clap prints verbatim:
// no Markdown escapes in them.
#[allow(rustdoc::broken_intra_doc_links)]
#[derive(Args, Debug)]
pub(crate) struct SweepArgs {
    /// Sweep file: scenario = "FILE", seeds = [...] or N, controllers = [...],
    /// and a [grid] table of "field" = [values] (crates/sweep/src/file.rs).
    #[arg(value_name = "SWEEP.toml")]
    sweep: PathBuf,

    /// Directory for the rows and _scenario.toml; an existing one is resumed.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,

    /// Rows as Parquet parts (DIR/part-*.parquet, one dataset:
    /// pd.read_parquet(DIR)) or as one DIR/runs.csv; default: the format
    /// of the rows already in DIR, else parquet.
    #[arg(long, value_name = "FORMAT")]
    format: Option<OutFormat>,

    /// Runs to simulate in parallel; default: the number of cores.
    #[arg(long, value_name = "N", value_parser = crate::parse_threads)]
    threads: Option<u16>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum OutFormat {
    Parquet,
    Csv,
}

/// Where rows go.
enum Sink {
    Parquet(ParquetOut),
    Csv(CsvOut),
}

impl Sink {
    fn add(&mut self, rows: Vec<Vec<rtac_sweep::columns::Cell>>) -> Result<(), rtac_sweep::SweepError> {
        match self {
            Sink::Parquet(p) => p.add(rows, Instant::now()),
            Sink::Csv(c) => c.append(&rows),
        }
    }

    fn finish(&mut self) -> Result<(), rtac_sweep::SweepError> {
        match self {
            Sink::Parquet(p) => p.flush(Instant::now()),
            Sink::Csv(_) => Ok(()),
        }
    }
}

/// Opens the rows of `dir` in `format`, or in the format found there.
/// Returns the sink, the keys of the runs done, and the format's name.
fn open_sink(dir: &Path, plan: &Plan, format: Option<OutFormat>) -> Result<(Sink, HashSet<String>), Failure> {
    let input = |e: rtac_sweep::SweepError| Failure::input(e.to_string());
    let found = Format::found_in(dir).map_err(input)?;
    let format = match (format, found) {
        (Some(OutFormat::Csv), _) | (None, Some(Format::Csv)) => Format::Csv,
        (Some(OutFormat::Parquet), _) | (None, Some(Format::Parquet) | None) => Format::Parquet,
    };
    match format {
        Format::Csv => {
            let (csv, done, upgraded) = CsvOut::open(dir, plan).map_err(input)?;
            if upgraded {
                eprintln!(
                    "rtac: sweep: added the numeric grid columns ({}) to the rows already in {}",
                    companions(plan),
                    dir.join(CSV_FILE).display()
                );
            }
            Ok((Sink::Csv(csv), done))
        }
        Format::Parquet => {
            let (parquet, found) = ParquetOut::open(dir, plan, Instant::now()).map_err(input)?;
            if !found.upgraded.is_empty() {
                eprintln!(
                    "rtac: sweep: rewrote {} part{} of {} in this sweep's columns and types ({})",
                    found.upgraded.len(),
                    if found.upgraded.len() == 1 { "" } else { "s" },
                    dir.display(),
                    companions(plan),
                );
            }
            Ok((Sink::Parquet(parquet), found.done))
        }
    }
}

fn companions(plan: &Plan) -> String {
    let names: Vec<&str> = plan.grid.iter().filter(|c| c.unit.is_some()).map(|c| c.name.as_str()).collect();
    if names.is_empty() {
        "no numeric grid columns".to_string()
    } else {
        names.join(", ")
    }
}

pub(crate) fn sweep(args: &SweepArgs) -> Result<(), Failure> {
    let input = |e: rtac_sweep::SweepError| Failure::input(e.to_string());
    let plan = rtac_sweep::file::load(&args.sweep).and_then(|s| s.plan()).map_err(input)?;
    // Held until the sweep ends: a second sweep on this directory is refused.
    let _lock = open_dir(&args.out, &plan).map_err(input)?;
    let (mut sink, done) = open_sink(&args.out, &plan, args.format)?;
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
    let ran = plan.run_parallel(&todo, threads, &RunOptions::default(), |i, r| {
        sink.add(plan.rows(i, &r)).map_err(|e| Failure::io(e.to_string()))?;
        finished += 1;
        if shown.elapsed() >= Duration::from_secs(2) {
            shown = Instant::now();
            eprintln!("rtac: sweep: {finished}/{} runs, {:.1} runs/s", todo.len(), rate(finished));
        }
        Ok(())
    });
    // The runs that finished are written even when a write failed after them.
    let flushed = sink.finish().map_err(|e| Failure::io(e.to_string()));
    ran?;
    flushed?;
    let (format, read) = match sink {
        Sink::Parquet(_) => ("Parquet parts", format!("pd.read_parquet(\"{}\")", args.out.display())),
        Sink::Csv(_) => ("CSV", format!("pd.read_csv(\"{}\")", args.out.join(CSV_FILE).display())),
    };
    eprintln!(
        "rtac: sweep: {finished} runs in {:.1} s ({:.1} runs/s); all {} runs are in {} as {format}: {read}",
        start.elapsed().as_secs_f64(),
        rate(finished),
        plan.jobs.len(),
        args.out.display(),
    );
    Ok(())
}
