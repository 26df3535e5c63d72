//! `rtac`: run receiver-side window control experiments.
//!
//! `rtac sim [SCENARIO]` simulates a scenario (default: the embedded
//! RTAC LTE case) once per receiver controller and prints a table, or one
//! JSON document with `--json`; `--out DIR` also writes time series as CSV.
//! `rtac sweep SWEEP.toml --out DIR` runs a parameter sweep.
//! `rtac` alone is `rtac sim`.

mod census;
mod output;
mod plot_sim;
mod report;
mod reproduce;
mod sweep;
mod usage;

use clap::{Args, Parser, Subcommand};
use rtac_core::controller::{AnyController, ControllerKind, Params};
use rtac_sim::scenario::input::{echo, echo_cut};
use rtac_sim::{ControllerChoice, RunOptions, Scenario};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "rtac",
    version,
    about = "Receiver-side TCP window control against bufferbloat: simulate and compare controllers",
    long_about = None,
    args_conflicts_with_subcommands = true,
    after_help = "Without a subcommand, rtac runs `rtac sim` with the options given."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    sim: SimArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Simulate a scenario once per receiver controller and compare them.
    Sim(SimArgs),
    /// Reproduce the source papers' evaluations: run the studies, check
    /// their claims, draw their plots and write a report.
    Reproduce(reproduce::ReproduceArgs),
    /// Simulate every grid point x seed x controller of a sweep file on the
    /// machine's cores, writing one CSV row per run and flow as runs finish;
    /// a rerun skips the runs already written.
    Sweep(sweep::SweepArgs),
    /// Measure receivers on N networks drawn at random in categories
    /// (fixed links, jitter, traces, loss, AQM, BBR, shared queues, several
    /// connections): pass rate per category, worst cases, failing cases as
    /// scenario files with --out.
    Census(census::CensusArgs),
    /// Run real programs through an emulated link between two network
    /// namespaces, with the simulator's link and queue models (root).
    Emu(Box<rtac_emu::EmuArgs>),
    /// Draw a log: an emulator log (`rtac emu --log DIR`) as throughput and
    /// delay plots with a summary, an agent log (`rtac run --log FILE`)
    /// as RTT, RTT_min, window estimate and rwnd per connection, or the
    /// output of `rtac sim --out DIR` as throughput, windows, RTT and queue
    /// per run.
    Plot(rtac_emu::PlotArgs),
    /// Run an unmodified program with a receiver-side controller on its TCP
    /// sockets: --mode bpf (a cgroup under a sock_ops program; root),
    /// preload (LD_PRELOAD; needs librtac_preload.so) or auto (default).
    Run(Box<rtac_agent::RunArgs>),
    /// Control every TCP receive socket of a cgroup (default: the whole
    /// machine) with an eBPF program until stopped; --status lists them.
    Daemon(Box<rtac_agent::DaemonArgs>),
    /// Download a URL or HOST:PORT with a controller on the socket, showing
    /// throughput, RTT and the window applied.
    Get(Box<rtac_agent::GetArgs>),
}

// The field docs are the command's --help text, which clap prints verbatim:
// no Markdown escapes in them.
#[allow(rustdoc::invalid_html_tags)]
#[derive(Args, Debug, Default)]
struct SimArgs {
    /// Scenario TOML file (format: crates/sim/src/scenario/file.rs);
    /// default: the embedded scenarios/rtac-lte-single.toml.
    #[arg(value_name = "SCENARIO")]
    scenario: Option<PathBuf>,

    /// Run this controller instead of the scenario's list; repeat for
    /// several runs. NAME is one of none, static, autotuning, drwa, rtac,
    /// drw; parameters follow a colon: rtac:k=3e-7,delta=18ms.
    #[arg(long = "controller", short = 'c', value_name = "NAME[:k=v,...]")]
    controllers: Vec<String>,

    /// Set a parameter of the run labelled LABEL (a controller name unless
    /// the scenario labels it otherwise): --param rtac.k=3e-7. Repeatable.
    #[arg(long = "param", short = 'p', value_name = "LABEL.k=v")]
    params: Vec<String>,

    /// Override the scenario's random seed (0 to 2^64 - 1). Read as text
    /// and checked by `parse_seed`, so that a bad value, `-1` included, is
    /// refused in rtac's words.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    seed: Option<String>,

    /// Write per-run time series (<label>-flows.csv, <label>-links.csv) and
    /// summary.json into this directory, creating it.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,

    /// Refuse to start when the time series of --out would exceed SIZE
    /// (estimated from the duration, sample interval, flows and links).
    #[arg(long, value_name = "SIZE", default_value = "10GB", value_parser = parse_size)]
    max_output: u64,

    /// Print one JSON document on stdout instead of tables.
    #[arg(long)]
    json: bool,

    /// Runs to simulate in parallel; default: the number of cores.
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    threads: Option<u16>,
}

/// `--threads N`: 1 to 65535.
pub(crate) fn parse_threads(s: &str) -> Result<u16, String> {
    match s.trim().parse::<u16>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("expected a whole number from 1 to {}, got {:?}", u16::MAX, echo(s))),
    }
}

/// An error for the user: printed as `rtac: error: ...`.
pub(crate) struct Failure {
    message: String,
    code: u8,
}

impl Failure {
    /// Bad input: exit status 2, like a usage error.
    pub(crate) fn input(message: impl Into<String>) -> Self {
        Failure { message: message.into(), code: 2 }
    }
    pub(crate) fn io(message: impl Into<String>) -> Self {
        Failure { message: message.into(), code: 1 }
    }
}

fn main() -> ExitCode {
    let cli = Cli::try_parse().unwrap_or_else(|e| usage::exit(e));
    let result = match cli.command {
        Some(Command::Sim(args)) => sim(&args),
        Some(Command::Reproduce(args)) => reproduce::reproduce(&args),
        Some(Command::Sweep(args)) => sweep::sweep(&args),
        Some(Command::Census(args)) => census::census(&args),
        Some(Command::Emu(args)) => return external(rtac_emu::emu_main(*args)),
        Some(Command::Plot(args)) => return plot(args),
        Some(Command::Run(args)) => return agent(rtac_agent::run_main(*args)),
        Some(Command::Get(args)) => return agent(rtac_agent::get_main(*args)),
        Some(Command::Daemon(args)) => return agent(rtac_agent::daemon_main(*args)),
        None => sim(&cli.sim),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("rtac: error: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

/// The exit status of a command that runs other programs: theirs, or the
/// error's own status (2 for bad input, 1 for other failures).
fn exit_status<E: std::fmt::Display>(r: Result<i32, E>, code: impl Fn(&E) -> i32) -> ExitCode {
    match r {
        Ok(status) => ExitCode::from(status.clamp(0, 255) as u8),
        Err(e) => {
            eprintln!("rtac: error: {e}");
            ExitCode::from(code(&e).clamp(1, 255) as u8)
        }
    }
}

fn external(r: Result<i32, rtac_emu::EmuError>) -> ExitCode {
    exit_status(r, rtac_emu::EmuError::exit_code)
}

fn agent(r: Result<i32, rtac_agent::AgentError>) -> ExitCode {
    exit_status(r, rtac_agent::AgentError::exit_code)
}

/// Agent logs (one file each) are drawn by the agent, `rtac sim --out`
/// directories here, emulator logs by the emulator.
fn plot(args: rtac_emu::PlotArgs) -> ExitCode {
    if !args.logs.is_empty() && args.logs.iter().all(|p| plot_sim::is_sim_output(p)) {
        for dir in &args.logs {
            match plot_sim::plot(dir, args.out.as_deref()) {
                Ok((files, runs)) => println!(
                    "{}: {} run{} ({}), wrote {} charts: {}",
                    dir.display(),
                    runs.len(),
                    if runs.len() == 1 { "" } else { "s" },
                    runs.join(", "),
                    files.len(),
                    files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(" ")
                ),
                Err(f) => {
                    eprintln!("rtac: error: {}", f.message);
                    return ExitCode::from(f.code);
                }
            }
        }
        return ExitCode::SUCCESS;
    }
    if !args.logs.is_empty() && args.logs.iter().all(|p| rtac_agent::plot::is_agent_log(p)) {
        for log in &args.logs {
            match rtac_agent::plot::plot_log(log, args.out.as_deref()) {
                Ok(files) => files.iter().for_each(|f| println!("{}", f.display())),
                Err(e) => return agent(Err(e)),
            }
        }
        return ExitCode::SUCCESS;
    }
    external(rtac_emu::plot_main(args))
}

fn sim(args: &SimArgs) -> Result<(), Failure> {
    let mut scenario = match &args.scenario {
        None => rtac_sim::scenario::default_scenario(),
        Some(path) => rtac_sim::scenario::load_file(path).map_err(|e| Failure::input(e.to_string()))?,
    };
    if let Some(seed) = &args.seed {
        scenario.seed = parse_seed(seed)?;
    }
    if !args.controllers.is_empty() {
        scenario.controllers = controller_list(&args.controllers, scenario.mss)?;
    }
    for p in &args.params {
        apply_param(&mut scenario, p)?;
    }
    for w in rtac_sim::scenario::warnings(&scenario) {
        eprintln!("rtac: warning: {w}");
    }
    let staging = match &args.out {
        Some(dir) => Some(prepare_out(dir, &scenario, args.max_output)?),
        None => None,
    };
    let threads = match args.threads {
        Some(n) => usize::from(n),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    eprintln!(
        "rtac: simulating {} ({} s, seed {}): {} run{} ({}) on up to {} thread{}",
        scenario.name,
        report::secs_f64(scenario.duration),
        scenario.seed,
        scenario.controllers.len(),
        if scenario.controllers.len() == 1 { "" } else { "s" },
        scenario.controllers.iter().map(|c| c.label.as_str()).collect::<Vec<_>>().join(", "),
        threads,
        if threads == 1 { "" } else { "s" },
    );
    let results = match staging {
        None => rtac_sim::run_all(&scenario, &RunOptions::default(), threads),
        Some(staging) => {
            let sinks = scenario
                .controllers
                .iter()
                .map(|c| output::CsvSeries::create(&staging, &c.label, &scenario))
                .collect::<Result<Vec<_>, _>>()
                .map_err(Failure::io)?;
            let mut results = Vec::new();
            for (r, sink) in rtac_sim::run_all_into(&scenario, sinks, threads) {
                sink.finish().map_err(Failure::io)?;
                results.push(r);
            }
            output::write_summary(&staging, &report::json(&scenario, &results)).map_err(Failure::io)?;
            staging.commit().map_err(Failure::io)?;
            if let Some(dir) = &args.out {
                eprintln!("rtac: wrote time series and summary.json to {}", dir.display());
            }
            results
        }
    };
    let doc = report::json(&scenario, &results);

    let text = if args.json {
        let mut s = serde_json::to_string_pretty(&doc).map_err(|e| Failure::io(format!("cannot encode JSON: {e}")))?;
        s.push('\n');
        s
    } else {
        report::text(&scenario, &results)
    };
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`rtac | head`) is the reader's choice, not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::io(format!("cannot write to stdout: {e}"))),
    }
}

/// The runs given by `--controller` options, validated for segment size
/// `mss`. Labels are the controller names, with `-2`, `-3`... on repeats.
fn controller_list(specs: &[String], mss: u32) -> Result<Vec<ControllerChoice>, Failure> {
    let mut out: Vec<ControllerChoice> = Vec::with_capacity(specs.len());
    for spec in specs {
        let bad = |e: &dyn std::fmt::Display| {
            Failure::input(format!("--controller {:?}: {}", echo(spec), echo_cut(&e.to_string(), 600)))
        };
        let (name, rest) = spec.split_once(':').unwrap_or((spec.as_str(), ""));
        let kind: ControllerKind = name.trim().parse().map_err(|e| bad(&e))?;
        let params = Params::parse_list(rest).map_err(|e| bad(&e))?;
        AnyController::new(kind, mss, &params).map_err(|e| bad(&e))?;
        let mut label = kind.name().to_string();
        let mut n = 1;
        while out.iter().any(|c| c.label == label) {
            n += 1;
            label = format!("{}-{n}", kind.name());
        }
        out.push(ControllerChoice { label, kind, params });
    }
    Ok(out)
}

/// Applies `--param LABEL.key=value` to the run labelled LABEL, replacing
/// the key if the scenario already sets it.
fn apply_param(scenario: &mut Scenario, spec: &str) -> Result<(), Failure> {
    let all = scenario_labels(scenario);
    let labels = || all.clone();
    let bad = |m: String| Failure::input(format!("--param {:?}: {}", echo(spec), echo_cut(&m, 600)));
    let (target, value) =
        spec.split_once('=').ok_or_else(|| bad("expected LABEL.key=value, such as rtac.k=3e-7".to_string()))?;
    let (label, key) = target
        .rsplit_once('.')
        .ok_or_else(|| bad(format!("expected LABEL.key=value, such as rtac.k=3e-7; runs: {}", labels())))?;
    let (label, key, value) = (label.trim(), key.trim(), value.trim());
    if label.is_empty() || key.is_empty() || value.is_empty() {
        return Err(bad("expected LABEL.key=value, such as rtac.k=3e-7".to_string()));
    }
    let mss = scenario.mss;
    let Some(choice) = scenario.controllers.iter_mut().find(|c| c.label == label) else {
        return Err(bad(format!("no run is labelled {label:?}; runs: {}", labels())));
    };
    let mut params = Params::new();
    for (k, v) in choice.params.iter().filter(|(k, _)| *k != key) {
        params.insert(k, v).map_err(|e| bad(e.to_string()))?;
    }
    params.insert(key, value).map_err(|e| bad(e.to_string()))?;
    AnyController::new(choice.kind, mss, &params).map_err(|e| bad(e.to_string()))?;
    choice.params = params;
    Ok(())
}

fn scenario_labels(s: &Scenario) -> String {
    s.controllers.iter().map(|c| c.label.as_str()).collect::<Vec<_>>().join(", ")
}

/// `--seed N`: a whole number that fits the scenario's 64-bit seed.
fn parse_seed(s: &str) -> Result<u64, Failure> {
    s.trim().parse().map_err(|_| {
        Failure::input(format!("--seed: expected a whole number from 0 to {}, got {:?}", u64::MAX, echo(s)))
    })
}

fn parse_size(s: &str) -> Result<u64, String> {
    rtac_core::units::parse_bytes(s).map_err(|e| e.to_string())
}

/// Checks `--out DIR` before any run: the estimated size of the time
/// series against `max`, and what is in the way in `DIR`; then creates the
/// staging directory the output is written to.
fn prepare_out(dir: &Path, s: &Scenario, max: u64) -> Result<output::Staging, Failure> {
    let runs = s.controllers.len();
    let bytes = output::estimated_bytes(s, runs);
    let n = rtac_sim::SeriesSize::of(s);
    let what = || {
        format!(
            "about {} of time series ({} samples, one every {} s, of {} flows and {} links, {} run{})",
            rtac_core::units::format_bytes(bytes),
            n.instants,
            report::secs_f64(s.sample_interval),
            n.flow_rows / n.instants.max(1),
            n.link_rows / n.instants.max(1),
            runs,
            if runs == 1 { "" } else { "s" },
        )
    };
    if bytes > max {
        return Err(Failure::input(format!(
            "--out {}: the run would write {}, more than --max-output {}: raise sample_interval, \
             shorten the run, or raise --max-output",
            dir.display(),
            what(),
            rtac_core::units::format_bytes(max)
        )));
    }
    if bytes > 1 << 30 {
        eprintln!("rtac: warning: --out {}: the run will write {}", dir.display(), what());
    }
    let mut files = vec!["summary.json".to_string()];
    files.extend(s.controllers.iter().flat_map(|c| output::run_files(&c.label)));
    output::Staging::create(dir, files).map_err(Failure::input)
}

pub(crate) fn create_out_dir(dir: &Path) -> Result<(), Failure> {
    if dir.exists() && !dir.is_dir() {
        return Err(Failure::input(format!("--out {}: exists and is not a directory", dir.display())));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::input(format!("--out {}: cannot create the directory: {e}", dir.display())))
}
