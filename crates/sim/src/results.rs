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

/// Time series sampled every `Scenario::sample_interval`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    pub flows: Vec<FlowSample>,
    pub links: Vec<LinkSample>,
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
