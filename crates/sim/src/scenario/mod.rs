//! What to simulate: links, flows, receivers, duration and seed. Built in
//! code or read from a TOML file (`file.rs`); validated before any run.

mod file;
pub use file::{load_file, parse_str, ScenarioError};

use crate::tcp::cc::CcKind;
use rtac_core::controller::{ControllerKind, Params};
use rtac_core::{Bandwidth, Duration};
use rtac_netmodel::QueueSpec;

/// A whole experiment. Each entry of `controllers` is one run; in each run
/// every flow without a pinned controller gets that entry's controller.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub duration: Duration,
    pub seed: u64,
    /// Maximum segment size in bytes (payload of a full data packet).
    pub mss: u32,
    /// Links in path order from the sender side to the receiver side.
    pub links: Vec<LinkSpec>,
    pub flows: Vec<FlowSpec>,
    pub controllers: Vec<ControllerChoice>,
    /// Interval of the cwnd/rwnd/RTT/queue time series.
    pub sample_interval: Duration,
    /// Throughput and RTT statistics count from this time on (warm-up).
    pub measure_from: Duration,
}

/// One direction of a link (data direction). ACKs cross it in the other
/// direction with the same propagation delay and no queue.
#[derive(Clone, Debug)]
pub struct LinkSpec {
    pub name: String,
    pub rate: Bandwidth,
    /// One-way propagation delay.
    pub delay: Duration,
    pub queue: QueueSpec,
}

#[derive(Clone, Debug)]
pub struct FlowSpec {
    /// How many identical flows this entry stands for.
    pub count: u32,
    pub cc: CcKind,
    /// A controller fixed for every run (e.g. the competing ordinary
    /// receiver); `None` takes the run's controller.
    pub controller: Option<ControllerChoice>,
    /// Indices into `Scenario::links`, in data order.
    pub path: Vec<usize>,
    pub start: Duration,
    /// When the sender stops; `None` runs to the end.
    pub stop: Option<Duration>,
    /// Bytes to send; `None` is a bulk transfer.
    pub bytes: Option<u64>,
}

/// A receiver controller with its parameters and a label for reports.
#[derive(Clone, Debug, PartialEq)]
pub struct ControllerChoice {
    pub label: String,
    pub kind: ControllerKind,
    pub params: Params,
}

impl ControllerChoice {
    pub fn new(kind: ControllerKind) -> Self {
        ControllerChoice { label: kind.name().to_string(), kind, params: Params::new() }
    }
}

/// The embedded default: the RTAC paper's single-flow LTE case (Fig. 6):
/// a ~55 Mbit/s per-user bottleneck, RTT_m about 50 ms, a buffer far above
/// the bandwidth-delay product, one CUBIC sender; run once each with the
/// Auto-tuning, DRWA and RTAC receivers.
pub const DEFAULT_SCENARIO: &str = include_str!("../../../../scenarios/rtac-lte-single.toml");

pub fn default_scenario() -> Scenario {
    parse_str(DEFAULT_SCENARIO, "rtac-lte-single.toml (embedded)").expect("the embedded default scenario is valid")
}
