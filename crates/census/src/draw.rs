//! The generator: networks drawn at random from a seed, in named
//! categories with stated ranges.
//!
//! A network is a pure function of (census seed, index): its category is
//! `index mod` the number of categories asked for (so every category gets
//! an equal share of any prefix of the census), and its parameters come
//! from a generator seeded with both. Rates, delays and buffer multiples
//! are drawn log-uniformly, so that each decade is as likely as the next.

use rtac_core::rng::Rng;
use rtac_netmodel::link::synthetic_cellular;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// What a network tests. Each has its own ranges (`RANGES`) and criterion
/// (`crate::judge`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// One CUBIC flow through a fixed-rate DropTail link.
    Fixed,
    /// The same with a wireless channel's non-congestive delay variation.
    Jitter,
    /// One CUBIC flow through a Mahimahi trace (recorded or synthetic).
    Trace,
    /// A fixed link that loses packets at random.
    Loss,
    /// A fixed link behind CoDel, FQ-CoDel or PIE: no bloat to fix.
    Aqm,
    /// A BBR sender, which bounds its own queue: no bloat to fix.
    Bbr,
    /// The receiver under test beside a download to a Linux receiver
    /// (CUBIC or BBR sender) in one DropTail queue, either arriving first.
    Shared,
    /// 2-6 connections of the receiver under test in one DropTail queue:
    /// one host (`Network::receiver`), judged as a whole.
    Multi,
}

impl Category {
    pub const ALL: [Category; 8] = [
        Category::Fixed,
        Category::Jitter,
        Category::Trace,
        Category::Loss,
        Category::Aqm,
        Category::Bbr,
        Category::Shared,
        Category::Multi,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Category::Fixed => "fixed",
            Category::Jitter => "jitter",
            Category::Trace => "trace",
            Category::Loss => "loss",
            Category::Aqm => "aqm",
            Category::Bbr => "bbr",
            Category::Shared => "shared",
            Category::Multi => "multi",
        }
    }

    /// The stated ranges, as `rtac census --help` and the docs give them.
    pub fn ranges(self) -> &'static str {
        match self {
            Category::Fixed => "1 CUBIC flow; 1-1000 Mbit/s x 10-400 ms base RTT; DropTail of 2-16 BDP (at least 10 packets)",
            Category::Jitter => "as fixed, with the lte or wifi channel (non-congestive delay variation)",
            Category::Trace => "1 CUBIC flow; a Mahimahi trace (the files given, or a synthetic cellular trace); 5-80 ms one way; DropTail of 150-5000 packets",
            Category::Loss => "as fixed, with 0.01-1 % random loss",
            Category::Aqm => "as fixed, behind codel, fq_codel or pie (limit 2-16 BDP)",
            Category::Bbr => "as fixed, with a BBR sender",
            Category::Shared => "as fixed, the receiver beside a CUBIC or BBR download to a Linux receiver in one queue; the later flow starts 2-15 s after the first",
            Category::Multi => "as fixed, 2-6 CUBIC connections of one receiver in one queue",
        }
    }

    /// Whether the criterion is the single-flow one, whose failures can be
    /// catastrophic.
    pub fn single_flow(self) -> bool {
        matches!(self, Category::Fixed | Category::Jitter | Category::Trace | Category::Loss)
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Category {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Category::ALL.into_iter().find(|c| c.name() == s).ok_or_else(|| {
            format!(
                "unknown category {:?}; known: {}",
                rtac_core::units::clip(s),
                Category::ALL.map(|c| c.name()).join(", ")
            )
        })
    }
}

/// Where a trace network's trace comes from.
#[derive(Clone, Debug)]
pub enum TraceSource {
    /// A Mahimahi file given to the census.
    File(PathBuf),
    /// `rtac_netmodel::link::synthetic_cellular(seed, 60 s)`.
    Synthetic(u64),
}

/// How the bottleneck serialises packets.
#[derive(Clone, Debug)]
pub enum LinkService {
    /// A fixed rate, bits per second.
    Rate(f64),
    Trace(TraceSource),
}

/// One drawn network: everything a scenario file needs but the receivers.
#[derive(Clone, Debug)]
pub struct Network {
    pub index: u64,
    pub category: Category,
    /// The simulation's seed.
    pub seed: u64,
    pub service: LinkService,
    /// One-way propagation delay, microseconds.
    pub delay_us: u64,
    /// The queue as the scenario format writes it (`droptail:packets=400`).
    pub queue: String,
    /// `lte` or `wifi`, or none.
    pub channel: Option<&'static str>,
    /// Random loss probability per packet.
    pub loss: f64,
    /// Sender of the flows under test.
    pub cc: &'static str,
    /// Connections of the receiver under test.
    pub count: u32,
    /// The name of the host whose connections the flows under test are
    /// (the scenario's `receiver`); none: each flow is a receiver of its
    /// own.
    pub receiver: Option<&'static str>,
    /// Shared: the competitor's sender, and whose flow starts first.
    pub competitor: Option<Competitor>,
    /// Simulated time and the start of the statistics, seconds.
    pub duration_s: u64,
    pub measure_from_s: u64,
}

#[derive(Clone, Copy, Debug)]
pub struct Competitor {
    pub cc: &'static str,
    /// Seconds after the receiver under test the competitor starts;
    /// negative: it starts first, by that much.
    pub offset_s: f64,
}

impl Network {
    /// Base RTT: twice the one-way propagation delay, plus the mean
    /// delay the channel adds to a packet without any queue (half a slot,
    /// retransmissions, access and drift: `ChannelSpec::mean_extra`), which
    /// no receiver can remove: the no-queue RTT.
    pub fn base_rtt_ms(&self) -> f64 {
        let extra = self
            .channel
            .and_then(|c| rtac_netmodel::ChannelSpec::parse(c).ok())
            .map_or(0.0, |c| c.mean_extra().as_secs_f64() * 1e3);
        2.0 * self.delay_us as f64 / 1e3 + extra
    }

    /// A one-line description for tables.
    pub fn describe(&self) -> String {
        let link = match &self.service {
            LinkService::Rate(bps) => format!("{:.3} Mbit/s", bps / 1e6),
            LinkService::Trace(TraceSource::File(p)) => {
                p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned())
            }
            LinkService::Trace(TraceSource::Synthetic(s)) => format!("synthetic-{s}"),
        };
        let mut s = format!("{link} x {:.1} ms, {}", self.base_rtt_ms(), self.queue);
        if let Some(c) = self.channel {
            s.push_str(&format!(", {c}"));
        }
        if self.loss > 0.0 {
            s.push_str(&format!(", loss {:.3} %", self.loss * 100.0));
        }
        if self.cc != "cubic" {
            s.push_str(&format!(", {}", self.cc));
        }
        if self.count > 1 {
            s.push_str(&format!(", {} connections", self.count));
        }
        if let Some(c) = self.competitor {
            let when = if c.offset_s >= 0.0 { "after" } else { "before" };
            s.push_str(&format!(", {} competitor {:.1} s {when}", c.cc, c.offset_s.abs()));
        }
        s
    }
}

/// The receiver of a multi network's connections.
pub const MULTI_HOST: &str = "host";

/// What the generator draws from beside its own ranges.
#[derive(Clone, Debug, Default)]
pub struct Pool {
    /// Mahimahi downlink files; empty: synthetic traces only.
    pub traces: Vec<PathBuf>,
}

fn log_uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    (lo.ln() + rng.next_f64() * (hi.ln() - lo.ln())).exp()
}

fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + rng.next_f64() * (hi - lo)
}

fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[(rng.next_u64() % items.len() as u64) as usize]
}

/// Packets of 1500 bytes in one bandwidth-delay product.
fn bdp_packets(bps: f64, rtt_s: f64) -> f64 {
    bps * rtt_s / 12_000.0
}

/// A fixed link: (rate in bit/s, one-way delay in µs, buffer in BDP).
fn fixed_link(rng: &mut Rng, max_bdp: f64) -> (f64, u64, f64) {
    let bps = log_uniform(rng, 1e6, 1e9);
    let rtt_ms = log_uniform(rng, 10.0, 400.0);
    let mult = log_uniform(rng, 2.0, max_bdp);
    (bps, (rtt_ms * 500.0).round() as u64, mult)
}

fn buffer(bps: f64, delay_us: u64, mult: f64) -> u64 {
    ((mult * bdp_packets(bps, 2.0 * delay_us as f64 / 1e6)).round() as u64).max(10)
}

/// The network at `index` of the census drawn from `seed` over
/// `categories` (in their order, round robin).
pub fn draw(seed: u64, index: u64, categories: &[Category], pool: &Pool) -> Network {
    let category = categories[(index % categories.len() as u64) as usize];
    let mut rng = Rng::new(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xC3A5_C85C_97CB_3127);
    let mut net = Network {
        index,
        category,
        seed: rng.next_u64() % 1_000_000_007,
        service: LinkService::Rate(0.0),
        delay_us: 0,
        queue: String::new(),
        channel: None,
        loss: 0.0,
        cc: "cubic",
        count: 1,
        receiver: None,
        competitor: None,
        duration_s: 30,
        measure_from_s: 5,
    };
    if category == Category::Trace {
        let n = pool.traces.len() as u64;
        // Half the trace networks draw a synthetic trace when files are given.
        let choice = rng.next_u64() % (2 * n).max(1);
        net.service = LinkService::Trace(if choice < n {
            TraceSource::File(pool.traces[choice as usize].clone())
        } else {
            TraceSource::Synthetic(rng.next_u64() % 1_000_000)
        });
        net.delay_us = (uniform(&mut rng, 5.0, 80.0) * 1e3).round() as u64;
        net.queue = format!("droptail:packets={}", log_uniform(&mut rng, 150.0, 5000.0).round() as u64);
        net.duration_s = 60;
        return net;
    }
    let max_bdp = 16.0;
    let (bps, delay_us, mult) = fixed_link(&mut rng, max_bdp);
    net.service = LinkService::Rate(bps);
    net.delay_us = delay_us;
    let packets = buffer(bps, delay_us, mult);
    net.queue = format!("droptail:packets={packets}");
    match category {
        Category::Fixed | Category::Trace => {}
        Category::Jitter => net.channel = Some(pick(&mut rng, &["lte", "wifi"])),
        Category::Loss => net.loss = log_uniform(&mut rng, 1e-4, 1e-2),
        Category::Aqm => {
            let kind = pick(&mut rng, &["codel", "fq_codel", "pie"]);
            net.queue = format!("{kind}:packets={packets}");
        }
        Category::Bbr => net.cc = "bbr",
        Category::Shared => {
            let cc = if rng.next_f64() < 0.75 { "cubic" } else { "bbr" };
            let gap = uniform(&mut rng, 2.0, 15.0);
            let offset_s = if rng.next_f64() < 0.5 { gap } else { -gap };
            net.competitor = Some(Competitor { cc, offset_s: (offset_s * 10.0).round() / 10.0 });
            net.duration_s = 60;
            net.measure_from_s = 30;
        }
        Category::Multi => {
            net.count = 2 + (rng.next_u64() % 5) as u32;
            net.receiver = Some(MULTI_HOST);
            net.duration_s = 40;
            net.measure_from_s = 10;
        }
    }
    net
}

/// The synthetic trace of `seed`, as Mahimahi text (60 s, repeating).
pub fn synthetic_text(seed: u64) -> String {
    synthetic_cellular(seed, 60_000).text
}

/// Cache of parsed traces shared by the runs of a census.
pub type TraceCache = std::sync::Mutex<Vec<(PathBuf, Arc<rtac_netmodel::MahimahiTrace>)>>;
