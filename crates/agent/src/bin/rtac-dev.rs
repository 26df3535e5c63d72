//! rtac-dev: the agent's commands for its tests: `run`, `get` and `daemon`
//! (the same as `rtac run`, `rtac get` and `rtac daemon`), the test bed's helpers (`serve`,
//! `experiment`) and `plot` for the agent's logs. Built next to
//! librtac_preload.so, so `run` finds the shim without configuration.

use clap::{Parser, Subcommand};
use rtac_agent::{daemon_main, get_main, run_main, DaemonArgs, GetArgs, RunArgs};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "rtac-dev", about = "Development front end of rtac-agent: run, get, serve, experiment, plot")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a program with a controller on its TCP receive sockets (rtac run).
    Run(RunArgs),
    /// Control every TCP receive socket of a cgroup with the BPF program (rtac daemon).
    Daemon(DaemonArgs),
    /// Download with a controller and a live progress bar (rtac get).
    Get(GetArgs),
    /// Serve files over HTTP with a chosen sender congestion control (test bed).
    Serve(rtac_agent::testbed::ServeArgs),
    /// Run the Must-show experiments in network namespaces and print the figures.
    Experiment(rtac_agent::testbed::ExperimentArgs),
    /// Draw a --log file: one chart (SVG and PNG) per connection.
    Plot {
        log: std::path::PathBuf,
        #[arg(long)]
        out: Option<std::path::PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Run(a) => run_main(a),
        Cmd::Get(a) => get_main(a),
        Cmd::Daemon(a) => daemon_main(a),
        Cmd::Serve(a) => rtac_agent::testbed::serve_main(a),
        Cmd::Experiment(a) => rtac_agent::testbed::experiment_main(a),
        Cmd::Plot { log, out } => rtac_agent::plot::plot_log(&log, out.as_deref()).map(|saved| {
            for s in saved {
                println!("{}", s.display());
            }
            0
        }),
    };
    match r {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        Err(e) => {
            eprintln!("rtac: error: {e}");
            ExitCode::from(e.exit_code().clamp(0, 255) as u8)
        }
    }
}
