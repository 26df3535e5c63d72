//! What to simulate: links, flows, receivers, duration and seed. Built in
//! code or read from a TOML file (`file.rs`); validated before any run.

mod check;
mod file;
pub mod input;
pub use check::warnings;
mod overrides;
pub mod receiver;
pub use file::{
    from_document, load_file, parse_document, parse_str, read_document, ScenarioError, BLOCKAGE_KEYS, CONTROLLER_KEYS,
    FLOW_KEYS, LINK_KEYS, PRIVATE_LINK_KEYS, TOP_KEYS,
};
pub use overrides::set_field;

use crate::tcp::cc::CcKind;
use rtac_core::controller::{ControllerKind, Params};
use rtac_core::{Bandwidth, Duration};
use rtac_netmodel::link::MahimahiTrace;
use rtac_netmodel::{ChannelSpec, QueueSpec, RateProfile};

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
    /// Each flow starts at its `start` plus an offset drawn uniformly in
    /// [0, start_jitter) from the run's seed (zero: no offset).
    pub start_jitter: Duration,
}

/// One direction of a link (data direction). ACKs cross it in the other
/// direction with the same propagation delay and no queue.
#[derive(Clone, Debug)]
pub struct LinkSpec {
    pub name: String,
    /// The nominal rate: the fixed rate, a trace's average, or the
    /// line-of-sight rate of a cell whose flows have channel profiles.
    pub rate: Bandwidth,
    pub service: Service,
    /// One-way propagation delay.
    pub delay: Duration,
    pub queue: QueueSpec,
    /// `None`: one queue shared by all flows (a Wi-Fi AP, a router).
    /// `Some`: a queue per flow served by this scheduler over one shared
    /// air interface (an LTE or mmWave base station's per-user queues).
    pub per_flow: Option<Scheduler>,
    /// Probability that a packet is lost on arrival at this link.
    pub loss: f64,
    /// A wireless channel's delay variation after serialisation (one
    /// channel per station), drawn from the run's seed.
    pub channel: Option<ChannelSpec>,
}

/// How a link serialises packets.
#[derive(Clone, Debug)]
pub enum Service {
    /// A constant rate (`LinkSpec::rate`).
    Fixed,
    /// Mahimahi delivery opportunities, repeating.
    Trace(std::sync::Arc<MahimahiTrace>),
}

/// Which per-flow queue a base station serves next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheduler {
    /// One packet per backlogged queue in turn.
    RoundRobin,
    /// Proportional fair: the queue with the highest ratio of current rate
    /// to its average served rate.
    ProportionalFair,
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
    /// This flow's channel on the per-flow links of its path (an mmWave
    /// UE's line-of-sight and blocked phases); `None`: the link's rate.
    pub channel: Option<RateProfile>,
    /// A private link of each flow before the shared path (a sender's
    /// access link in a dumbbell) and after it (the receiver's).
    pub access: Option<LinkSpec>,
    pub egress: Option<LinkSpec>,
    /// The UE this flow belongs to on per-flow links: flows of one UE share
    /// its queue and channel. `None`: a UE of its own.
    pub ue: Option<u32>,
    /// The receiver host this flow's connections belong to (`receiver.rs`):
    /// flows naming one host are its connections and share a per-link
    /// window budget where the controller has one. `None`: each of this
    /// entry's flows is a receiver of its own.
    pub receiver: Option<String>,
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

/// A blockage of an mmWave UE's line of sight (Zhang et al., section II):
/// a passing human fades the channel slowly and briefly; a building cuts it
/// fast and for about 2 s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockageKind {
    Human,
    Building,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blockage {
    pub kind: BlockageKind,
    pub at: Duration,
    /// How long the channel stays at its lowest; `None` takes the kind's
    /// typical duration.
    pub duration: Option<Duration>,
}

impl BlockageKind {
    /// (fade time, rate kept at the bottom as a fraction of LoS, typical
    /// duration at the bottom). The shapes follow the trends of the
    /// paper's Fig. 1 (human: a slow fade of a few hundred ms to a partly
    /// blocked channel, short) and Fig. 2 (building: a drop within tens of
    /// ms to an NLoS rate an order of magnitude lower, about 2 s); the
    /// numbers are this model's, not measured traces.
    fn shape(self) -> (Duration, f64, Duration) {
        match self {
            BlockageKind::Human => (Duration::from_millis(300), 0.25, Duration::from_millis(500)),
            BlockageKind::Building => (Duration::from_millis(40), 0.08, Duration::from_secs(2)),
        }
    }
}

/// The channel of a UE with line-of-sight rate `los` and these blockages:
/// fades are linear, in 10 steps.
pub fn blockage_profile(los: Bandwidth, events: &[Blockage]) -> Result<RateProfile, String> {
    const STEPS: u64 = 10;
    let mut events = events.to_vec();
    events.sort_by_key(|e| e.at);
    let mut steps = vec![(Duration::ZERO, los)];
    let mut free_from = Duration::ZERO;
    for e in &events {
        let (fade, depth, typical) = e.kind.shape();
        let hold = e.duration.unwrap_or(typical);
        if e.at < free_from || (e.at.is_zero() && steps.len() > 1) {
            return Err(format!("blockages overlap: one starts at {} before the previous one has ended", e.at));
        }
        let rate_at = |frac: f64| Bandwidth::from_bps((los.bps() as f64 * frac).round() as u64);
        for k in 1..=STEPS {
            let t = e.at + fade.mul(k - 1).div(STEPS);
            let frac = 1.0 - (1.0 - depth) * k as f64 / STEPS as f64;
            steps.push((t, rate_at(frac)));
        }
        let up = e.at + fade + hold;
        for k in 1..=STEPS {
            let t = up + fade.mul(k - 1).div(STEPS);
            let frac = depth + (1.0 - depth) * k as f64 / STEPS as f64;
            steps.push((t, rate_at(frac)));
        }
        free_from = up + fade;
    }
    // A blockage at time 0 replaces the initial LoS step.
    if steps.len() > 1 && steps[1].0.is_zero() {
        steps.remove(0);
    }
    RateProfile::new(steps).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_building_blockage_drops_to_nlos_for_two_seconds_and_recovers() {
        let los = Bandwidth::from_mbps(2000);
        let p = blockage_profile(
            los,
            &[Blockage { kind: BlockageKind::Building, at: Duration::from_secs(1), duration: None }],
        )
        .unwrap();
        assert_eq!(p.rate_at(Duration::from_millis(999)), los);
        assert_eq!(p.rate_at(Duration::from_millis(1500)).bps(), 160_000_000);
        assert_eq!(p.rate_at(Duration::from_millis(3000)).bps(), 160_000_000);
        assert_eq!(p.rate_at(Duration::from_millis(3100)), los);
    }

    #[test]
    fn overlapping_blockages_are_rejected() {
        let b = |s| Blockage { kind: BlockageKind::Human, at: Duration::from_secs(s), duration: None };
        let e = blockage_profile(Bandwidth::from_mbps(100), &[b(1), b(1)]).unwrap_err();
        assert!(e.contains("overlap"), "{e}");
    }
}
