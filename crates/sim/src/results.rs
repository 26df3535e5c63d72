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
