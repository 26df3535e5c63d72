//! `rtac reproduce`: the source papers' evaluations in one command.

use crate::{create_out_dir, Failure};
use clap::Args;
use rtac_repro::{Progress, Report};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Shorter runs and fewer sweep points: a few minutes on two cores.
    #[arg(long)]
    quick: bool,

    /// Run only this study (repeatable); default: all. `--list` shows the ids.
    #[arg(long, value_name = "ID")]
    only: Vec<String>,

    /// List the studies and exit.
    #[arg(long)]
    list: bool,

    /// Where to write report.md, report.html, claims.json and plots/.
    #[arg(long, value_name = "DIR", default_value = "out/reproduce")]
    out: PathBuf,

    /// Print the claims as one JSON document on stdout.
    #[arg(long)]
    json: bool,

    /// Seeds to repeat every run with (seeds 1..=N); claims report means
    /// and 95 % confidence intervals over them.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..=100))]
    seeds: u16,

    /// Runs to simulate in parallel; default: the number of cores.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
}

pub fn reproduce(args: &ReproduceArgs) -> Result<(), Failure> {
    let studies = rtac_repro::select(&args.only).map_err(Failure::input)?;
    if args.list {
        for s in rtac_repro::all_studies() {
            println!("{:14} {:18} {}", s.id, s.source, s.title);
        }
        return Ok(());
    }
    create_out_dir(&args.out)?;
    let plots = args.out.join("plots");
    create_out_dir(&plots)?;
    let threads = match args.threads {
        Some(n) => usize::from(n),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let seeds: Vec<u64> = (1..=u64::from(args.seeds)).collect();
    let jobs: usize = studies.iter().map(|s| (s.jobs)(args.quick, 1).len()).sum();
    eprintln!(
        "rtac: reproducing {} stud{} ({jobs} runs x {} seed{}{}) on {threads} thread{}",
        studies.len(),
        if studies.len() == 1 { "y" } else { "ies" },
        seeds.len(),
        if seeds.len() == 1 { "" } else { "s" },
        if args.quick { ", quick" } else { "" },
        if threads == 1 { "" } else { "s" }
    );
    let t0 = std::time::Instant::now();
    let progress = if std::io::stderr().is_terminal() { Progress::Bar } else { Progress::Hidden };
    let results = rtac_repro::run_jobs(&studies, args.quick, &seeds, threads, progress);
    let reports = studies
        .iter()
        .zip(results)
        .map(|(s, r)| rtac_repro::report::StudyReport {
            id: s.id,
            source: s.source,
            title: s.title,
            runs: r.iter().map(|seed| seed.len()).sum(),
            outcome: rtac_repro::analyse(s, &r, &plots),
        })
        .collect();
    let report = Report { studies: reports, quick: args.quick, seeds, wall_s: t0.elapsed().as_secs_f64() };
    rtac_repro::write_report(&report, &args.out)
        .map_err(|e| Failure::io(format!("--out {}: cannot write the report: {e}", args.out.display())))?;
    let mut out = std::io::stdout().lock();
    let w = if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report.json()).expect("JSON values serialise"))
    } else {
        summary(&report, &mut out).and_then(|_| {
            writeln!(out, "\nreport: {}", args.out.join("report.html").display())?;
            writeln!(out, "        {}", args.out.join("report.md").display())
        })
    };
    match w {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Failure::io(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}

fn summary(r: &Report, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "{:40} {:14} verdict", "claim", "source")?;
    for st in &r.studies {
        match &st.outcome {
            Ok(a) => {
                for c in &a.claims {
                    let v = match c.verdict {
                        rtac_repro::Verdict::Holds => "holds",
                        rtac_repro::Verdict::Inconclusive => "inconclusive",
                        rtac_repro::Verdict::DoesNotHold => "DOES NOT HOLD",
                    };
                    writeln!(out, "{:40} {:14} {v}", c.id, st.source)?;
                }
            }
            Err(e) => writeln!(out, "{:40} {:14} failed: {e}", st.id, st.source)?,
        }
    }
    let (n, held) = (r.claims().count(), r.claims().filter(|c| c.holds()).count());
    let unsure = r.claims().filter(|c| c.verdict == rtac_repro::Verdict::Inconclusive).count();
    writeln!(
        out,
        "\n{held} of {n} claims hold, {unsure} inconclusive, over {} seeds ({:.0} s)",
        r.seeds.len(),
        r.wall_s
    )
}
