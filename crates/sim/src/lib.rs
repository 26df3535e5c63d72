//! rtac-sim: a deterministic packet-level simulator of TCP downloads through
//! bloated access links, with receiver-side window controllers.
//!
//! `run` simulates one scenario with one receiver controller; `run_all`
//! runs every controller of a scenario, in parallel over the cores.

mod engine;
mod metrics;
mod network;
mod packet;
pub mod results;
pub mod scenario;
pub mod tcp;
mod world;

pub use results::{FlowResult, FlowSample, LinkResult, LinkSample, RunResult, Series};
pub use scenario::{ControllerChoice, FlowSpec, LinkSpec, Scenario, ScenarioError};
pub use tcp::cc::CcKind;

/// Options that change what a run records, never what it computes.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Record time series (cwnd, rwnd, RTT, queue) every sample interval.
    pub series: bool,
}

/// Simulates `scenario` with `choice` as the receiver controller of every
/// flow that does not pin its own. The result is a pure function of the
/// scenario (seed included) and the choice, except the wall-clock time.
pub fn run(scenario: &Scenario, choice: &ControllerChoice, opts: &RunOptions) -> RunResult {
    world::World::new(scenario, choice, opts).run()
}

/// Runs each of the scenario's controllers, at most `threads` at a time,
/// returning results in the scenario's order.
pub fn run_all(scenario: &Scenario, opts: &RunOptions, threads: usize) -> Vec<RunResult> {
    let choices = &scenario.controllers;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut slots: Vec<Option<RunResult>> = vec![None; choices.len()];
    let slots_mx = std::sync::Mutex::new(&mut slots);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1).min(choices.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(choice) = choices.get(i) else { break };
                let r = run(scenario, choice, opts);
                slots_mx.lock().expect("no run panicked")[i] = Some(r);
            });
        }
    });
    slots.into_iter().map(|r| r.expect("every run finished")).collect()
}
