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

pub use results::{
    DataPackets, FlowResult, FlowSample, LinkResult, LinkSample, ReceiverResult, RunResult, Series, SeriesSink,
    SeriesSize,
};
pub use scenario::{ControllerChoice, FlowSpec, LinkSpec, Scenario, ScenarioError};
pub use tcp::cc::CcKind;

/// Options that change what a run records, never what it computes.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Record time series (cwnd, rwnd, RTT, queue) every sample interval,
    /// in memory: `RunResult::series`. For long runs, stream them to a
    /// [`SeriesSink`] with [`run_into`] instead.
    pub series: bool,
}

/// Simulates `scenario` with `choice` as the receiver controller of every
/// flow that does not pin its own. The result is a pure function of the
/// scenario (seed included) and the choice, except the wall-clock time.
pub fn run(scenario: &Scenario, choice: &ControllerChoice, opts: &RunOptions) -> RunResult {
    if !opts.series {
        return run_into(scenario, choice, None);
    }
    let mut series = Series::default();
    let mut r = run_into(scenario, choice, Some(&mut series));
    r.series = Some(series);
    r
}

/// Like [`run`], but hands the time series to `sink` as they are sampled
/// (none: no sampling); `RunResult::series` is `None`. Apart from the
/// sink, a run's memory does not grow with the simulated time.
pub fn run_into(scenario: &Scenario, choice: &ControllerChoice, sink: Option<&mut dyn SeriesSink>) -> RunResult {
    world::World::new(scenario, choice, sink).run()
}

/// Runs each of the scenario's controllers, at most `threads` at a time,
/// returning results in the scenario's order.
pub fn run_all(scenario: &Scenario, opts: &RunOptions, threads: usize) -> Vec<RunResult> {
    parallel(scenario.controllers.len(), threads, |i| run(scenario, &scenario.controllers[i], opts))
}

/// Like [`run_all`], streaming run `i`'s time series to `sinks[i]`
/// (one sink per controller of the scenario), and returning the sinks.
pub fn run_all_into<S: SeriesSink + Send>(scenario: &Scenario, sinks: Vec<S>, threads: usize) -> Vec<(RunResult, S)> {
    assert_eq!(sinks.len(), scenario.controllers.len(), "one sink per controller");
    let sinks: Vec<std::sync::Mutex<Option<S>>> = sinks.into_iter().map(|s| std::sync::Mutex::new(Some(s))).collect();
    parallel(scenario.controllers.len(), threads, |i| {
        let mut sink = sinks[i].lock().expect("each sink is taken once").take().expect("each run takes its sink once");
        (run_into(scenario, &scenario.controllers[i], Some(&mut sink)), sink)
    })
}

/// `f(0..n)`, at most `threads` at a time, in index order.
fn parallel<T: Send>(n: usize, threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<T>>> = (0..n).map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads.max(1).min(n.max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let r = f(i);
                *slots[i].lock().expect("no run panicked") = Some(r);
            });
        }
    });
    slots.into_iter().map(|r| r.into_inner().expect("no run panicked").expect("every run finished")).collect()
}
