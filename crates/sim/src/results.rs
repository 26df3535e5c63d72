//! What a run reports: per-flow and per-link summaries and, on request,
//! time series.

use rtac_core::Duration;

#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    pub scenario: String,
    pub label: String,
    /// The run's controller (flows with a pinned controller may differ).
    pub controller: String,
    pub flows: Vec<FlowResult>,
    /// The named receivers (`FlowSpec::receiver`), in the order of their
    /// first flow entry; flows without a name are not listed here.
    pub receivers: Vec<ReceiverResult>,
    pub links: Vec<LinkResult>,
    pub wall: std::time::Duration,
    /// Events the engine processed.
    pub events: u64,
    /// Data packets sent by all senders (retransmissions included).
    pub packets: u64,
    pub series: Option<Series>,
    /// Where every data packet sent in the run ended up.
    pub data: DataPackets,
}

/// A run's data packets, counted from the start (not the measurement
/// window): every packet sent was delivered, dropped, or is still in a
/// queue or on a wire when the run ends, so
/// `sent == delivered + dropped + in_flight`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DataPackets {
    /// Sent by all senders, retransmissions included.
    pub sent: u64,
    /// Arrived at their receiver.
    pub delivered: u64,
    /// Dropped by a queue discipline or random loss, on any link.
    pub dropped: u64,
    /// In a queue or on a wire at the end.
    pub in_flight: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FlowResult {
    pub id: usize,
    pub controller: String,
    pub cc: String,
    /// Goodput: in-order bytes delivered to the receiving application in
    /// the measurement window, over that window's length.
    pub throughput_mbps: f64,
    pub bytes_delivered: u64,
    /// Sender-side RTT samples (one per ACK that echoes a timestamp).
    pub rtt_mean_ms: f64,
    pub rtt_p50_ms: f64,
    pub rtt_p95_ms: f64,
    /// More of the RTT distribution, for box plots.
    pub rtt_p5_ms: f64,
    pub rtt_p25_ms: f64,
    pub rtt_p75_ms: f64,
    /// Goodput in each whole second of the measurement window while the
    /// flow was active, Mbit/s.
    pub throughput_per_s: Vec<f64>,
    pub rtt_samples: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    /// When the flow finished sending its `bytes` (finite flows only).
    pub completion: Option<Duration>,
    /// The receiver host the flow is a connection of, when named.
    pub receiver: Option<String>,
}

/// A receiver host: its connections taken together.
#[derive(Clone, Debug, PartialEq)]
pub struct ReceiverResult {
    pub name: String,
    /// Its connections' flow ids.
    pub flows: Vec<usize>,
    pub connections: usize,
    /// Goodput: its connections' bytes delivered in the measurement window
    /// over the part of the window any of them was active (from the first
    /// one's start to the last one's end), Mbit/s. With connections active
    /// over the same span, the sum of their goodputs.
    pub throughput_mbps: f64,
    pub bytes_delivered: u64,
    /// Mean RTT over all its connections' samples (each connection's mean
    /// weighted by its samples); NaN without samples.
    pub rtt_mean_ms: f64,
    pub rtt_samples: u64,
    /// Jain's fairness index over its connections' goodputs,
    /// (sum x)^2 / (n sum x^2), in [1/n, 1] (Jain, Chiu and Hawe, DEC
    /// TR-301, 1984); `None` when none delivered anything.
    pub jain: Option<f64>,
    pub retransmits: u64,
    pub timeouts: u64,
    /// When every connection carried `bytes` and finished: from its first
    /// connection's start to its last connection's end.
    pub completion: Option<Duration>,
}

impl ReceiverResult {
    /// The receiver `name` whose connections are `flows`, active together
    /// for `active` of the measurement window.
    pub fn of(name: &str, flows: &[&FlowResult], active: Duration, completion: Option<Duration>) -> Self {
        let samples: u64 = flows.iter().map(|f| f.rtt_samples).sum();
        let weighted: f64 =
            flows.iter().filter(|f| f.rtt_samples > 0).map(|f| f.rtt_mean_ms * f.rtt_samples as f64).sum();
        let rates: Vec<f64> = flows.iter().map(|f| f.throughput_mbps).collect();
        let bytes: u64 = flows.iter().map(|f| f.bytes_delivered).sum();
        ReceiverResult {
            name: name.to_string(),
            flows: flows.iter().map(|f| f.id).collect(),
            connections: flows.len(),
            throughput_mbps: if active.is_zero() { 0.0 } else { bytes as f64 * 8.0 / active.as_secs_f64() / 1e6 },
            bytes_delivered: bytes,
            rtt_mean_ms: if samples == 0 { f64::NAN } else { weighted / samples as f64 },
            rtt_samples: samples,
            jain: jain(&rates),
            retransmits: flows.iter().map(|f| f.retransmits).sum(),
            timeouts: flows.iter().map(|f| f.timeouts).sum(),
            completion,
        }
    }
}

/// Jain's fairness index of `xs`: (sum x)^2 / (n sum x^2), 1 when all are
/// equal, 1/n when one has everything; `None` when all are 0 or there are
/// none.
pub fn jain(xs: &[f64]) -> Option<f64> {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    (s2 > 0.0).then(|| s * s / (xs.len() as f64 * s2))
}

#[derive(Clone, Debug, PartialEq)]
pub struct LinkResult {
    pub name: String,
    /// Busy time over the measurement window.
    pub utilization: f64,
    pub queue_delay_mean_ms: f64,
    pub queue_delay_p95_ms: f64,
    pub drops: u64,
    pub departures: u64,
}

/// Time series sampled every `Scenario::sample_interval`, held in memory:
/// the [`SeriesSink`] of `run` with `RunOptions::series`. It grows with
/// the simulated time; streaming sinks (such as a CSV writer) do not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    pub flows: Vec<FlowSample>,
    pub links: Vec<LinkSample>,
}

/// Where a run's time series go as they are sampled, in time order: every
/// flow's sample of an instant, then every link's.
pub trait SeriesSink {
    fn flow(&mut self, s: &FlowSample);
    fn link(&mut self, s: &LinkSample);
}

impl SeriesSink for Series {
    fn flow(&mut self, s: &FlowSample) {
        self.flows.push(s.clone());
    }
    fn link(&mut self, s: &LinkSample) {
        self.links.push(s.clone());
    }
}

/// How many samples a scenario's time series hold: one per
/// `sample_interval` from 0 to `duration`, each of every flow and every
/// named link, for one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeriesSize {
    pub instants: u64,
    pub flow_rows: u64,
    pub link_rows: u64,
}

impl SeriesSize {
    pub fn of(s: &crate::Scenario) -> Self {
        let instants = s.duration.as_nanos() / s.sample_interval.as_nanos().max(1) + 1;
        let flows: u64 = s.flows.iter().map(|f| f.count as u64).sum();
        SeriesSize {
            instants,
            flow_rows: instants.saturating_mul(flows),
            link_rows: instants.saturating_mul(s.links.len() as u64),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct FlowSample {
    pub t: Duration,
    pub flow: usize,
    /// Sender congestion window, bytes.
    pub cwnd: u64,
    /// Window the receiver advertised last, bytes.
    pub rwnd: u64,
    pub in_flight: u64,
    /// Sender's smoothed RTT.
    pub srtt: Duration,
    /// Receiver controller's RTT estimate and window estimate.
    pub rx_rtt: Option<Duration>,
    pub rx_window: Option<u64>,
    /// Bytes delivered to the application since the previous sample.
    pub delivered: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LinkSample {
    pub t: Duration,
    pub link: usize,
    pub queue_packets: u64,
    pub queue_bytes: u64,
}
