//! rtac-census: receivers measured on networks nobody chose.
//!
//! A census draws N networks at random from a seed, in named categories
//! with stated ranges ([`draw`](mod@draw)), runs each with a baseline
//! receiver and the receivers under test ([`run_network`]), and judges
//! each receiver against the baseline on the same network and seed
//! ([`judge`](mod@judge)). The report gives the pass rate per category
//! with a 95 % interval and the worst cases ([`report`]); with an output
//! directory the census is resumable and every failing case is written as
//! a scenario file that `rtac sim` replays ([`out`]). Two censuses of the same draw compare
//! network by network, with a test of whether a change moved a category
//! more than chance ([`compare`]).
//!
//! Everything is a pure function of the census seed and the index of a
//! network, so a census split over machines (Python's Ray backend) gives
//! the same rows as one run on one machine.

pub mod compare;
pub mod draw;
pub mod judge;
pub mod out;
pub mod report;

pub use draw::{draw, Category, LinkService, Network, Pool, TraceSource};
pub use judge::{judge, measure, Measure, Verdict};

use rtac_core::controller::{AnyController, ControllerKind, Params};
use rtac_netmodel::{parse_mahimahi, MahimahiTrace};
use rtac_sim::scenario::{parse_str, Service};
use rtac_sim::{ControllerChoice, RunOptions, Scenario};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The largest census one command may run; a larger one is an error.
pub const MAX_NETWORKS: u64 = 10_000_000;

/// Why a census could not run.
#[derive(Debug)]
pub enum CensusError {
    /// A receiver, category or count given by the user is wrong; `what`
    /// names the option (`--controller "rtac:kk=1"`).
    Input { what: String, message: String },
    /// A trace file or directory cannot be used.
    Trace { path: PathBuf, message: String },
    /// The output directory cannot be used.
    Output { path: PathBuf, message: String },
    /// A drawn network did not make a valid scenario: a bug in the
    /// generator, reported with the network.
    Network { index: u64, message: String },
}

impl fmt::Display for CensusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CensusError::Input { what, message } => write!(f, "{what}: {message}"),
            CensusError::Trace { path, message } => write!(f, "{}: {message}", path.display()),
            CensusError::Output { path, message } => write!(f, "{}: {message}", path.display()),
            CensusError::Network { index, message } => write!(f, "network {index}: {message}"),
        }
    }
}

impl std::error::Error for CensusError {}

/// A receiver as the user named it (`rtac`, `rtac:k=3e-7`).
#[derive(Clone, Debug)]
pub struct Receiver {
    /// As given, for reports.
    pub spec: String,
    /// A scenario label: the spec with every character a label cannot
    /// hold replaced (`rtac_k_3e-7`).
    pub label: String,
    pub kind: ControllerKind,
    pub params: Params,
}

impl Receiver {
    pub fn parse(spec: &str) -> Result<Receiver, CensusError> {
        let bad = |m: String| CensusError::Input {
            what: format!("controller {:?}", rtac_core::units::clip(spec)),
            message: m,
        };
        let (name, rest) = spec.split_once(':').unwrap_or((spec, ""));
        let kind: ControllerKind =
            name.trim().parse().map_err(|e: rtac_core::controller::ControllerError| bad(e.to_string()))?;
        let params = Params::parse_list(rest).map_err(|e| bad(e.to_string()))?;
        AnyController::new(kind, 1448, &params).map_err(|e| bad(e.to_string()))?;
        let mut label: String = spec
            .trim()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '+') { c } else { '_' })
            .collect();
        label.truncate(64);
        Ok(Receiver { spec: spec.trim().to_string(), label, kind, params })
    }

    fn choice(&self) -> ControllerChoice {
        ControllerChoice { label: self.label.clone(), kind: self.kind, params: self.params.clone() }
    }

    /// This receiver as a scenario's `controllers` entry.
    fn toml(&self) -> String {
        let params: Vec<String> = self.params.iter().map(|(k, v)| format!("{k} = {v:?}")).collect();
        format!(
            "{{ label = {:?}, controller = {:?}, params = {{ {} }} }}",
            self.label,
            self.kind.name(),
            params.join(", ")
        )
    }
}

/// The Linux receiver: buffer auto-tuning up to a 16 MB rmem_max.
pub const DEFAULT_BASELINE: &str = "autotuning:rmem_max=16MB";
/// The receivers a census compares by default: self-tuning RTAC, with
/// DRWA and the paper's fixed-K RTAC as controls.
pub const DEFAULT_RECEIVERS: [&str; 3] = ["rtac", "drwa", "rtac:k=3e-7"];

/// What a census runs.
#[derive(Clone, Debug)]
pub struct Settings {
    pub seed: u64,
    pub n: u64,
    pub categories: Vec<Category>,
    pub pool: Pool,
    pub baseline: Receiver,
    pub receivers: Vec<Receiver>,
}

impl Settings {
    /// Checks the combination: labels distinct, at least one receiver and
    /// category, n within bounds.
    pub fn check(&self) -> Result<(), CensusError> {
        let input = |what: &str, m: String| Err(CensusError::Input { what: what.to_string(), message: m });
        if self.n == 0 || self.n > MAX_NETWORKS {
            return input("--n", format!("{} networks: give 1 to {MAX_NETWORKS}", self.n));
        }
        if self.categories.is_empty() {
            return input("--category", "no category to draw from".into());
        }
        if self.receivers.is_empty() {
            return input("--controller", "no receiver to measure".into());
        }
        let mut labels = vec![self.baseline.label.as_str()];
        for r in &self.receivers {
            if labels.contains(&r.label.as_str()) {
                return input("--controller", format!("{:?} is given twice (or is the baseline)", r.spec));
            }
            labels.push(&r.label);
        }
        Ok(())
    }

    /// The settings from names as a user gives them, with the command
    /// line's defaults: receivers `None` are [`DEFAULT_RECEIVERS`],
    /// categories `None` all of them, traces `None` the Mahimahi files in
    /// `traces/mahimahi` under the current directory if it is there (none:
    /// synthetic traces only). Checked as [`Settings::check`] does.
    pub fn from_names(
        seed: u64,
        n: u64,
        receivers: Option<&[String]>,
        baseline: &str,
        categories: Option<&[String]>,
        traces: Option<&[PathBuf]>,
    ) -> Result<Settings, CensusError> {
        let receivers = match receivers {
            Some(specs) => specs.iter().map(|s| Receiver::parse(s)).collect::<Result<Vec<_>, _>>()?,
            None => DEFAULT_RECEIVERS.iter().map(|s| Receiver::parse(s)).collect::<Result<Vec<_>, _>>()?,
        };
        let baseline = Receiver::parse(baseline)
            .map_err(|e| CensusError::Input { what: "--baseline".into(), message: e.to_string() })?;
        let categories = match categories {
            None => Category::ALL.to_vec(),
            Some(names) => names
                .iter()
                .map(|c| {
                    c.parse::<Category>().map_err(|m| CensusError::Input { what: "--category".into(), message: m })
                })
                .collect::<Result<Vec<_>, _>>()?,
        };
        let mut pool = Pool::default();
        match traces {
            None => {
                let dir = Path::new("traces/mahimahi");
                if dir.is_dir() {
                    pool.traces = trace_files(dir)?;
                }
            }
            Some(dirs) => {
                for d in dirs {
                    pool.traces.extend(trace_files(d)?);
                }
            }
        }
        let s = Settings { seed, n, categories, pool, baseline, receivers };
        s.check()?;
        Ok(s)
    }

    pub fn network(&self, index: u64) -> Network {
        draw(self.seed, index, &self.categories, &self.pool)
    }
}

/// The Mahimahi downlink files in `dir` (`*.down`, or every regular file
/// if none ends so), sorted by name.
pub fn trace_files(dir: &Path) -> Result<Vec<PathBuf>, CensusError> {
    let err = |m: String| CensusError::Trace { path: dir.to_path_buf(), message: m };
    let meta = std::fs::metadata(dir).map_err(|e| err(format!("cannot read the trace directory: {e}")))?;
    if meta.is_file() {
        return Ok(vec![dir.to_path_buf()]);
    }
    let mut all = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| err(format!("cannot list the trace directory: {e}")))? {
        let e = e.map_err(|e| err(format!("cannot list the trace directory: {e}")))?;
        if e.file_type().is_ok_and(|t| t.is_file()) {
            all.push(e.path());
        }
    }
    all.sort();
    let down: Vec<PathBuf> = all.iter().filter(|p| p.extension().is_some_and(|x| x == "down")).cloned().collect();
    let files = if down.is_empty() {
        all.into_iter().filter(|p| p.extension().is_none_or(|x| x != "md")).collect()
    } else {
        down
    };
    if files.is_empty() {
        return Err(err("holds no trace file".into()));
    }
    Ok(files)
}

/// The scenario text of `net` with the baseline and `receivers`. A trace
/// link names `trace_path` (where the failing case's trace is written);
/// `None` writes a placeholder rate that [`scenario`] replaces.
pub fn scenario_text(net: &Network, baseline: &Receiver, receivers: &[&Receiver], trace_path: Option<&str>) -> String {
    let mut s = format!(
        "# drawn by rtac census: network {}, category {} ({})\n# {}\n",
        net.index,
        net.category,
        net.category.ranges(),
        net.describe()
    );
    s.push_str(&format!(
        "name = \"census-{}-{}\"\nduration = \"{}s\"\nmeasure_from = \"{}s\"\nseed = {}\nstart_jitter = \"{}\"\n",
        net.index,
        net.category,
        net.duration_s,
        net.measure_from_s,
        net.seed,
        if net.count > 1 { "1s" } else { "500ms" }
    ));
    let mut list = vec![baseline.toml()];
    list.extend(receivers.iter().map(|r| r.toml()));
    s.push_str(&format!("controllers = [\n  {},\n]\n\n[[link]]\nname = \"bottleneck\"\n", list.join(",\n  ")));
    match (&net.service, trace_path) {
        (LinkService::Rate(bps), _) => s.push_str(&format!("rate = \"{}kbit\"\n", (bps / 1e3).round() as u64)),
        (LinkService::Trace(_), Some(p)) => s.push_str(&format!("trace = {p:?}\n")),
        (LinkService::Trace(_), None) => s.push_str("rate = \"1mbit\" # replaced by the trace\n"),
    }
    s.push_str(&format!("delay = \"{}us\"\nqueue = \"{}\"\n", net.delay_us, net.queue));
    if let Some(c) = net.channel {
        s.push_str(&format!("channel = \"{c}\"\n"));
    }
    if net.loss > 0.0 {
        s.push_str(&format!("loss = {:e}\n", net.loss));
    }
    let (test_start, comp_start) = match net.competitor {
        Some(c) if c.offset_s < 0.0 => (-c.offset_s, 0.0),
        Some(c) => (0.0, c.offset_s),
        None => (0.0, 0.0),
    };
    s.push_str(&format!("\n[[flow]] # under test\ncc = \"{}\"\ncount = {}\n", net.cc, net.count));
    if let Some(host) = net.receiver {
        s.push_str(&format!("receiver = {host:?}\n"));
    }
    if test_start > 0.0 {
        s.push_str(&format!("start = \"{}ms\"\n", (test_start * 1e3).round() as u64));
    }
    if let Some(c) = net.competitor {
        s.push_str(&format!(
            "\n[[flow]] # the competitor, behind a Linux receiver in every run\ncc = \"{}\"\ncontroller = {{ controller = \"autotuning\", params = {{ rmem_max = \"16MB\" }} }}\n",
            c.cc
        ));
        if comp_start > 0.0 {
            s.push_str(&format!("start = \"{}ms\"\n", (comp_start * 1e3).round() as u64));
        }
    }
    s
}

/// Parsed traces, loaded once per census.
#[derive(Default)]
pub struct Traces {
    files: Mutex<Vec<(PathBuf, Arc<MahimahiTrace>)>>,
}

impl Traces {
    fn get(&self, source: &TraceSource) -> Result<Arc<MahimahiTrace>, CensusError> {
        match source {
            TraceSource::Synthetic(seed) => {
                let t = parse_mahimahi(&draw::synthetic_text(*seed))
                    .map_err(|e| CensusError::Network { index: 0, message: format!("synthetic trace {seed}: {e}") })?;
                Ok(Arc::new(t))
            }
            TraceSource::File(path) => {
                let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
                if let Some((_, t)) = files.iter().find(|(p, _)| p == path) {
                    return Ok(t.clone());
                }
                let t = Arc::new(read_trace(path)?);
                files.push((path.clone(), t.clone()));
                Ok(t)
            }
        }
    }
}

/// Reads a Mahimahi file: a regular file of at most
/// `rtac_sim::scenario::input::MAX_TRACE_BYTES`, read as `rtac sim` reads
/// one (a FIFO or a device is refused at once).
pub fn read_trace(path: &Path) -> Result<MahimahiTrace, CensusError> {
    use rtac_sim::scenario::input::{read_bounded, MAX_TRACE_BYTES};
    let err = |m: String| CensusError::Trace { path: path.to_path_buf(), message: m };
    let bytes =
        read_bounded(path, MAX_TRACE_BYTES, "a trace file").map_err(|e| err(format!("cannot read the trace: {e}")))?;
    let text = std::str::from_utf8(&bytes).map_err(|_| err("is not UTF-8 text".into()))?;
    parse_mahimahi(text).map_err(|e| err(e.to_string()))
}

/// The scenario of `net` with every receiver of `settings`, ready to run.
pub fn scenario(settings: &Settings, net: &Network, traces: &Traces) -> Result<Scenario, CensusError> {
    let receivers: Vec<&Receiver> = settings.receivers.iter().collect();
    let text = scenario_text(net, &settings.baseline, &receivers, None);
    let mut sc = parse_str(&text, &format!("census network {}", net.index))
        .map_err(|e| CensusError::Network { index: net.index, message: e.to_string() })?;
    if let LinkService::Trace(source) = &net.service {
        let t = traces.get(source).map_err(|e| match e {
            CensusError::Network { message, .. } => CensusError::Network { index: net.index, message },
            other => other,
        })?;
        sc.links[0].rate = t.average_rate();
        sc.links[0].service = Service::Trace(t);
    }
    Ok(sc)
}

/// One network's runs: the baseline's measures and, per receiver of the
/// settings (in order), its measures and verdict.
#[derive(Clone, Debug)]
pub struct NetworkResult {
    pub net: Network,
    pub base: Measure,
    pub receivers: Vec<(Measure, Verdict)>,
    /// Wall-clock seconds of the runs.
    pub wall_s: f64,
}

impl NetworkResult {
    pub fn from_measures(net: Network, base: Measure, measures: Vec<Measure>, wall_s: f64) -> NetworkResult {
        let receivers = measures
            .into_iter()
            .map(|m| {
                let v = judge(&net, &m, &base);
                (m, v)
            })
            .collect();
        NetworkResult { net, base, receivers, wall_s }
    }
}

/// Runs network `index` of the census with the baseline and every
/// receiver, one after the other on this thread.
pub fn run_network(settings: &Settings, index: u64, traces: &Traces) -> Result<NetworkResult, CensusError> {
    let net = settings.network(index);
    let sc = scenario(settings, &net, traces)?;
    let t = std::time::Instant::now();
    let opts = RunOptions::default();
    let mut measures = Vec::with_capacity(sc.controllers.len());
    for choice in std::iter::once(settings.baseline.choice()).chain(settings.receivers.iter().map(Receiver::choice)) {
        let r = rtac_sim::run(&sc, &choice, &opts);
        measures.push(measure(&net, &r));
    }
    let base = measures.remove(0);
    Ok(NetworkResult::from_measures(net, base, measures, t.elapsed().as_secs_f64()))
}

/// Runs the networks `indices` on up to `threads` threads, handing each
/// result to `done` as it finishes (in finishing order, on the calling
/// thread). Stops at the first error.
pub fn run_networks(
    settings: &Settings,
    indices: &[u64],
    threads: usize,
    traces: &Traces,
    mut done: impl FnMut(NetworkResult) -> Result<(), CensusError>,
) -> Result<(), CensusError> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::channel::<Result<NetworkResult, CensusError>>();
    std::thread::scope(|s| {
        for _ in 0..threads.max(1).min(indices.len().max(1)) {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            s.spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&index) = indices.get(i) else { break };
                if tx.send(run_network(settings, index, traces)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut first_err = None;
        for r in rx {
            if first_err.is_some() {
                continue;
            }
            if let Err(e) = r.and_then(&mut done) {
                stop.store(true, Ordering::Relaxed);
                first_err = Some(e);
            }
        }
        first_err.map_or(Ok(()), Err)
    })
}
