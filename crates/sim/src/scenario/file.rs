//! Reading a scenario from a TOML file.
//!
//! The document is walked by hand (no serde derive) so that every error
//! names the file, the field (`link[0].rate`, `flow[1].controller.params.k`)
//! and what was expected, and so that unknown keys are rejected with the
//! list of known ones. Every key, with its type, unit, default and range, is
//! in `docs/SCENARIOS.md` (kept complete by `tests/scenario_reference.rs`
//! against the key lists below). The smallest scenario:
//!
//! ```toml
//! duration = "30s"
//!
//! [[link]]
//! rate = "50mbit"
//!
//! [[flow]]
//! ```

use super::input::{echo, echo_cut, echo_path};
use super::{
    blockage_profile, Blockage, BlockageKind, ControllerChoice, FlowSpec, LinkSpec, Scenario, Scheduler, Service,
};
use crate::tcp::cc::CcKind;
use rtac_core::controller::{AnyController, ControllerError, ControllerKind, Params};
use rtac_core::units::{clip, parse_bandwidth, parse_bytes, parse_duration};
use rtac_core::Duration;
use rtac_netmodel::{parse_mahimahi, ChannelSpec, MahimahiTrace, QueueError, QueueSpec, RateProfile};
use std::fmt;
use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// Why a scenario could not be read.
#[derive(Debug)]
pub enum ScenarioError {
    /// The file could not be read.
    Io { path: PathBuf, error: std::io::Error },
    /// The text is not valid TOML (or not UTF-8); `line` and `column` count
    /// from 1, the column in characters.
    Syntax { origin: String, line: usize, column: usize, message: String },
    /// The TOML is valid but a field is missing, of the wrong type, out of
    /// range or unknown. `field` is a path such as `link[0].rate`; empty
    /// when the document as a whole is wrong.
    Field { origin: String, field: String, message: String },
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScenarioError::Io { path, error } => {
                let cause = error.to_string();
                write!(f, "{}: cannot read the scenario: {}", echo_path(path), echo(&cause))
            }
            ScenarioError::Syntax { origin, line, column, message } => {
                write!(f, "{}:{line}:{column}: invalid TOML: {message}", echo(origin))
            }
            ScenarioError::Field { origin, field, message } if field.is_empty() => {
                write!(f, "{}: {}", echo(origin), echo_cut(message, MAX_MESSAGE))
            }
            ScenarioError::Field { origin, field, message } => {
                write!(f, "{}: {}: {}", echo(origin), echo(field), echo_cut(message, MAX_MESSAGE))
            }
        }
    }
}

impl std::error::Error for ScenarioError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ScenarioError::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// Reads and validates the scenario in `path`. Messages name the path as
/// given.
pub fn load_file(path: &Path) -> Result<Scenario, ScenarioError> {
    let doc = read_document(path)?;
    from_document(&doc, &path.display().to_string(), path.parent())
}

/// Parses and validates a scenario. `origin` names the text in messages
/// (usually the file's path); its stem is the default scenario name.
/// Relative trace paths are taken from the current directory.
pub fn parse_str(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
    from_document(&parse_document(text, origin)?, origin, None)
}

/// Reads the file in `path` as a TOML document without validating it as a
/// scenario, so that fields can be changed first (`set_field`).
pub fn read_document(path: &Path) -> Result<Table, ScenarioError> {
    let bytes = super::input::read_bounded(path, super::input::MAX_SCENARIO_BYTES, "a scenario file")
        .map_err(|error| ScenarioError::Io { path: path.to_path_buf(), error })?;
    let origin = path.display().to_string();
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(e) => {
            let valid = &bytes[..e.valid_up_to()];
            // The prefix is valid UTF-8 by construction.
            let prefix = std::str::from_utf8(valid).unwrap_or("");
            let (line, column) = line_column(prefix, prefix.len());
            return Err(ScenarioError::Syntax {
                origin,
                line,
                column,
                message: "the file is not UTF-8 text".to_string(),
            });
        }
    };
    parse_document(text, &origin)
}

/// Parses TOML text as a document without validating it as a scenario.
pub fn parse_document(text: &str, origin: &str) -> Result<Table, ScenarioError> {
    text.parse().map_err(|e: toml::de::Error| {
        let (line, column) = match e.span() {
            Some(span) => line_column(text, span.start),
            None => (1, 1),
        };
        ScenarioError::Syntax { origin: origin.to_string(), line, column, message: cut(e.message().trim().to_string()) }
    })
}

/// Validates a TOML document as a scenario. `origin` names it in messages;
/// relative trace paths are resolved against `base` (the current directory
/// if `None`).
pub fn from_document(doc: &Table, origin: &str, base: Option<&Path>) -> Result<Scenario, ScenarioError> {
    Reader { origin, base }.scenario(doc)
}

/// 1-based line and character column of byte offset `at` in `text`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// Default scenario name: the origin's file stem (`scenarios/x.toml` -> `x`).
fn stem_of(origin: &str) -> String {
    let first = origin.split_whitespace().next().unwrap_or("");
    Path::new(first).file_stem().and_then(|s| s.to_str()).filter(|s| !s.is_empty()).unwrap_or("scenario").to_string()
}

/// The keys of the document's top level.
pub const TOP_KEYS: &[&str] = &[
    "name",
    "description",
    "duration",
    "seed",
    "mss",
    "sample_interval",
    "measure_from",
    "start_jitter",
    "controllers",
    "link",
    "flow",
];
/// The keys of a `[[link]]` table.
pub const LINK_KEYS: &[&str] = &["name", "rate", "trace", "delay", "queue", "per_flow", "loss", "channel"];
/// The keys of a `[[flow]]` table.
pub const FLOW_KEYS: &[&str] = &[
    "count",
    "cc",
    "controller",
    "path",
    "start",
    "stop",
    "bytes",
    "channel",
    "blockage",
    "access",
    "egress",
    "ue",
    "receiver",
];
/// The keys of a flow's `access` and `egress` links.
pub const PRIVATE_LINK_KEYS: &[&str] = &["rate", "delay", "queue"];
/// The keys of each entry of a flow's `blockage`.
pub const BLOCKAGE_KEYS: &[&str] = &["kind", "at", "duration"];
/// The keys of a controller written as a table.
pub const CONTROLLER_KEYS: &[&str] = &["label", "controller", "params"];

const MSS_RANGE: std::ops::RangeInclusive<i64> = 536..=9000;
const MAX_FLOWS: i64 = 100_000;
const DEFAULT_QUEUE: &str = "droptail:packets=1000";
/// Longest error message, in characters (lists of known keys fit).
const MAX_MESSAGE: usize = 600;

struct Reader<'a> {
    origin: &'a str,
    /// Directory that relative trace paths are resolved against.
    base: Option<&'a Path>,
}

/// A field path: `link[0].rate`.
fn join(base: &str, key: &str) -> String {
    let bare = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let key = if bare { clip(key) } else { format!("{:?}", clip(key)) };
    if base.is_empty() {
        key
    } else {
        format!("{base}.{key}")
    }
}

fn index(base: &str, i: usize) -> String {
    format!("{base}[{i}]")
}

/// A short description of a TOML value for "expected X, got Y" messages.
fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the string {:?}", clip(s)),
        Value::Integer(i) => format!("the integer {i}"),
        Value::Float(x) => format!("the float {x:?}"),
        Value::Boolean(b) => format!("the boolean {b}"),
        Value::Datetime(d) => format!("the date-time {d}"),
        Value::Array(a) => format!("an array of {} item{}", a.len(), if a.len() == 1 { "" } else { "s" }),
        Value::Table(_) => "a table".to_string(),
    }
}

/// `message` cut to `MAX_MESSAGE` characters.
fn cut(message: String) -> String {
    match message.char_indices().nth(MAX_MESSAGE) {
        Some((i, _)) => format!("{}…", &message[..i]),
        None => message,
    }
}

/// Levenshtein distance, for "did you mean" hints on short keys.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn suggestion(key: &str, known: &[&str]) -> String {
    if key.chars().count() > 40 {
        return String::new();
    }
    known
        .iter()
        .map(|k| (distance(key, k), *k))
        .filter(|(d, k)| *d <= if key.len().min(k.len()) <= 4 { 1 } else { 2 })
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| format!("did you mean {k:?}? "))
        .unwrap_or_default()
}

/// A name used in reports and output file names.
fn check_name(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("must not be empty".to_string());
    }
    if s.len() > 64 {
        return Err(format!("{:?} is longer than 64 characters", clip(s)));
    }
    if s.starts_with('.') || !s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+')) {
        return Err(format!(
            "{:?} is not a usable name: use letters, digits, '-', '_', '+' and '.' (not first)",
            clip(s)
        ));
    }
    Ok(())
}

/// A table's fields, checked against the keys it may have.
struct Fields<'r, 't> {
    r: &'r Reader<'r>,
    path: String,
    table: &'t Table,
}

impl Reader<'_> {
    /// An error at `field`. Messages that quote the input are cut to
    /// `MAX_MESSAGE` characters, whatever the input's length.
    fn err(&self, field: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError::Field { origin: self.origin.to_string(), field: field.into(), message: cut(message.into()) }
    }

    fn fields<'t>(&self, path: String, table: &'t Table, known: &[&str]) -> Result<Fields<'_, 't>, ScenarioError> {
        for key in table.keys() {
            if !known.contains(&key.as_str()) {
                return Err(self.err(
                    join(&path, key),
                    format!("unknown key; {}known keys: {}", suggestion(key, known), known.join(", ")),
                ));
            }
        }
        Ok(Fields { r: self, path, table })
    }

    fn scenario(&self, doc: &Table) -> Result<Scenario, ScenarioError> {
        let f = self.fields(String::new(), doc, TOP_KEYS)?;
        let name = match f.string("name")? {
            Some(n) => {
                check_name(n).map_err(|m| self.err("name", m))?;
                n.to_string()
            }
            None => stem_of(self.origin),
        };
        let description = f.string("description")?.unwrap_or("").to_string();
        let duration = f
            .duration("duration")?
            .ok_or_else(|| self.err("duration", "missing: how long to simulate, such as duration = \"30s\""))?;
        if duration.is_zero() {
            return Err(self.err("duration", "must be above 0"));
        }
        let seed = f.integer("seed", 0..=i64::MAX)?.unwrap_or(1) as u64;
        let mss = f.integer("mss", MSS_RANGE)?.unwrap_or(i64::from(rtac_core::DEFAULT_MSS)) as u32;
        let sample_interval = f.duration("sample_interval")?.unwrap_or(Duration::from_millis(10));
        if sample_interval.is_zero() {
            return Err(self.err("sample_interval", "must be above 0"));
        }
        let measure_from = f.duration("measure_from")?.unwrap_or(Duration::ZERO);
        if measure_from >= duration {
            return Err(self.err(
                "measure_from",
                format!("must be before the end of the run (duration = {}s)", duration.as_secs_f64()),
            ));
        }
        let controllers = match f.get("controllers") {
            None => vec![ControllerChoice::new(ControllerKind::Rtac)],
            Some(v) => self.controllers(v, mss)?,
        };
        let start_jitter = f.duration("start_jitter")?.unwrap_or(Duration::ZERO);
        let links = self.links(f.get("link"))?;
        let flows = self.flows(f.get("flow"), &links, duration, mss)?;
        if let Some(i) = flows.iter().position(|fl| fl.start + start_jitter >= duration) {
            return Err(self.err(
                "start_jitter",
                format!("flow[{i}] could start after the end of the run (duration = {}s)", duration.as_secs_f64()),
            ));
        }
        if let Some(i) = flows.iter().position(|fl| fl.stop.is_some_and(|stop| stop <= fl.start + start_jitter)) {
            return Err(self.err("start_jitter", format!("flow[{i}] could start after its stop time")));
        }
        Ok(Scenario {
            name,
            description,
            duration,
            seed,
            mss,
            links,
            flows,
            controllers,
            sample_interval,
            measure_from,
            start_jitter,
        })
    }

    fn controllers(&self, v: &Value, mss: u32) -> Result<Vec<ControllerChoice>, ScenarioError> {
        let Value::Array(items) = v else {
            return Err(self.err(
                "controllers",
                format!(
                    "expected an array of controller names or tables, such as [\"autotuning\", \"rtac\"], got {}",
                    show(v)
                ),
            ));
        };
        if items.is_empty() {
            return Err(self.err("controllers", "must name at least one controller (one run each)"));
        }
        let mut out: Vec<ControllerChoice> = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let path = index("controllers", i);
            let c = self.controller(&path, item, mss)?;
            if let Some(j) = out.iter().position(|o| o.label == c.label) {
                return Err(self.err(
                    path,
                    format!(
                        "label {:?} is already used by controllers[{j}]; give each run a distinct label, \
                         such as {{ label = \"{}-2\", controller = \"{}\", params = {{ ... }} }}",
                        c.label, c.label, c.kind
                    ),
                ));
            }
            out.push(c);
        }
        Ok(out)
    }

    /// A controller written as a name or as `{label?, controller, params?}`,
    /// validated by building it.
    fn controller(&self, path: &str, v: &Value, mss: u32) -> Result<ControllerChoice, ScenarioError> {
        let known_names = || ControllerKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ");
        let kind_of = |field: String, name: &str| -> Result<ControllerKind, ScenarioError> {
            name.parse::<ControllerKind>().map_err(|_| {
                self.err(field, format!("unknown controller {:?}; known controllers: {}", clip(name), known_names()))
            })
        };
        let choice = match v {
            Value::String(name) => ControllerChoice::new(kind_of(path.to_string(), name)?),
            Value::Table(t) => {
                let f = self.fields(path.to_string(), t, CONTROLLER_KEYS)?;
                let name = f.string("controller")?.ok_or_else(|| {
                    self.err(
                        join(path, "controller"),
                        format!("missing: the controller's name, one of {}", known_names()),
                    )
                })?;
                let kind = kind_of(join(path, "controller"), name)?;
                let label = match f.string("label")? {
                    Some(l) => {
                        check_name(l).map_err(|m| self.err(join(path, "label"), m))?;
                        l.to_string()
                    }
                    None => kind.name().to_string(),
                };
                let mut params = Params::new();
                if let Some(pv) = f.get("params") {
                    let ppath = join(path, "params");
                    let Value::Table(pt) = pv else {
                        return Err(self.err(
                            ppath,
                            format!("expected a table of parameters, such as {{ k = 3e-7 }}, got {}", show(pv)),
                        ));
                    };
                    for (k, pv) in pt {
                        let value = match pv {
                            Value::String(s) => s.clone(),
                            Value::Integer(i) => i.to_string(),
                            Value::Float(x) if x.is_finite() => x.to_string(),
                            Value::Boolean(b) => b.to_string(),
                            other => {
                                return Err(self.err(
                                    join(&ppath, k),
                                    format!("expected a number or a string, got {}", show(other)),
                                ))
                            }
                        };
                        params.insert(k, &value).map_err(|e| self.err(join(&ppath, k), e.to_string()))?;
                    }
                }
                ControllerChoice { label, kind, params }
            }
            other => {
                return Err(self.err(
                    path,
                    format!(
                        "expected a controller name such as \"rtac\" or a table {{ controller = \"rtac\", params = {{ ... }} }}, got {}",
                        show(other)
                    ),
                ))
            }
        };
        if let Err(e) = AnyController::new(choice.kind, mss, &choice.params) {
            let field = match &e {
                ControllerError::UnknownParam { key, .. } | ControllerError::BadValue { key, .. } => {
                    join(&join(path, "params"), key)
                }
                ControllerError::DuplicateParam(key) => join(&join(path, "params"), key),
                ControllerError::UnknownController(_) if v.is_table() => join(path, "controller"),
                _ if v.is_table() => join(path, "params"),
                _ => path.to_string(),
            };
            return Err(self.err(field, e.to_string()));
        }
        Ok(choice)
    }

    /// The `[[link]]` or `[[flow]]` array of tables.
    fn array_of_tables<'t>(
        &self,
        key: &str,
        v: Option<&'t Value>,
        what: &str,
    ) -> Result<Vec<&'t Table>, ScenarioError> {
        let Some(v) = v else {
            return Err(self.err(key, format!("missing: add at least one [[{key}]] section ({what})")));
        };
        let Value::Array(items) = v else {
            let hint = if v.is_table() {
                format!(" (write [[{key}]], with double brackets, not [{key}])")
            } else {
                String::new()
            };
            return Err(self.err(key, format!("expected an array of [[{key}]] tables, got {}{hint}", show(v))));
        };
        if items.is_empty() {
            return Err(self.err(key, format!("must have at least one entry ({what})")));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::Table(t) => Ok(t),
                other => Err(self.err(index(key, i), format!("expected a [[{key}]] table, got {}", show(other)))),
            })
            .collect()
    }

    fn links(&self, v: Option<&Value>) -> Result<Vec<LinkSpec>, ScenarioError> {
        let tables = self.array_of_tables("link", v, "the links in data order, each with a rate")?;
        let mut links: Vec<LinkSpec> = Vec::with_capacity(tables.len());
        for (i, t) in tables.into_iter().enumerate() {
            let path = index("link", i);
            let f = self.fields(path.clone(), t, LINK_KEYS)?;
            let name = match f.string("name")? {
                Some(n) => {
                    check_name(n).map_err(|m| self.err(join(&path, "name"), m))?;
                    n.to_string()
                }
                None => format!("link{i}"),
            };
            if let Some(j) = links.iter().position(|l| l.name == name) {
                return Err(self.err(join(&path, "name"), format!("{name:?} is already the name of link[{j}]")));
            }
            let (rate, service) = match (f.get("rate"), f.string("trace")?) {
                (Some(_), Some(_)) => {
                    return Err(self.err(join(&path, "trace"), "give either rate or trace, not both"));
                }
                (None, None) => {
                    return Err(self.err(
                        join(&path, "rate"),
                        "missing: the link's rate, such as rate = \"50mbit\", or a Mahimahi trace = \"FILE\"",
                    ))
                }
                (None, Some(file)) => {
                    let trace = self.trace(&join(&path, "trace"), file)?;
                    (trace.average_rate(), Service::Trace(std::sync::Arc::new(trace)))
                }
                (Some(Value::String(s)), None) => {
                    (parse_bandwidth(s).map_err(|e| self.err(join(&path, "rate"), e.to_string()))?, Service::Fixed)
                }
                (Some(other), None) => {
                    return Err(self.err(
                        join(&path, "rate"),
                        format!("expected a rate string such as \"50mbit\", got {}", show(other)),
                    ))
                }
            };
            let per_flow = match f.get("per_flow") {
                None | Some(Value::Boolean(false)) => None,
                Some(Value::Boolean(true)) => Some(Scheduler::RoundRobin),
                Some(Value::String(s)) if s == "rr" => Some(Scheduler::RoundRobin),
                Some(Value::String(s)) if s == "pf" => Some(Scheduler::ProportionalFair),
                Some(other) => {
                    return Err(self.err(
                        join(&path, "per_flow"),
                        format!(
                            "expected \"rr\" (round robin), \"pf\" (proportional fair), true or false, got {}",
                            show(other)
                        ),
                    ))
                }
            };
            let loss = match f.get("loss") {
                None => 0.0,
                Some(Value::Float(x)) if (0.0..1.0).contains(x) => *x,
                Some(Value::Integer(0)) => 0.0,
                Some(other) => {
                    return Err(self.err(
                        join(&path, "loss"),
                        format!("expected a probability in [0, 1) such as 0.01, got {}", show(other)),
                    ))
                }
            };
            let delay = f.duration("delay")?.unwrap_or(Duration::ZERO);
            let queue = self.queue(&join(&path, "queue"), f.get("queue"))?;
            let channel = match f.string("channel")? {
                None => None,
                Some(c) => Some(ChannelSpec::parse(c).map_err(|e| self.err(join(&path, "channel"), e.to_string()))?),
            };
            links.push(LinkSpec { name, rate, service, delay, queue, per_flow, loss, channel });
        }
        Ok(links)
    }

    /// `access = { rate = "1gbit", delay = "1ms", queue = "droptail:packets=1000" }`:
    /// a link of each flow's own (shared queue of one).
    fn private_link(&self, flow: &str, key: &str, v: Option<&Value>) -> Result<Option<LinkSpec>, ScenarioError> {
        let Some(v) = v else { return Ok(None) };
        let path = join(flow, key);
        let Value::Table(t) = v else {
            return Err(self.err(path, format!("expected a table {{ rate, delay, queue }}, got {}", show(v))));
        };
        let f = self.fields(path.clone(), t, PRIVATE_LINK_KEYS)?;
        let rate = match f.string("rate")? {
            Some(s) => parse_bandwidth(s).map_err(|e| self.err(join(&path, "rate"), e.to_string()))?,
            None => return Err(self.err(join(&path, "rate"), "missing: the link's rate, such as rate = \"1gbit\"")),
        };
        let delay = f.duration("delay")?.unwrap_or(Duration::ZERO);
        let queue = self.queue(&join(&path, "queue"), f.get("queue"))?;
        Ok(Some(LinkSpec {
            name: format!("{flow}.{key}"),
            rate,
            service: Service::Fixed,
            delay,
            queue,
            per_flow: None,
            loss: 0.0,
            channel: None,
        }))
    }

    /// Reads a Mahimahi trace; relative paths start at the scenario's directory.
    fn trace(&self, field: &str, file: &str) -> Result<MahimahiTrace, ScenarioError> {
        let path = match self.base {
            Some(dir) if Path::new(file).is_relative() => dir.join(file),
            _ => PathBuf::from(file),
        };
        let cannot = |e: &dyn fmt::Display| self.err(field, format!("cannot read trace {}: {e}", echo_path(&path)));
        let bytes =
            super::input::read_bounded(&path, super::input::MAX_TRACE_BYTES, "a trace").map_err(|e| cannot(&e))?;
        let text = String::from_utf8(bytes).map_err(|_| cannot(&"the file is not UTF-8 text"))?;
        parse_mahimahi(&text).map_err(|e| self.err(field, format!("{}: {e}", echo_path(&path))))
    }

    /// `channel = [["0s", "2gbit"], ["1s", "200mbit"], ...]`: rate steps.
    fn channel(&self, field: &str, v: &Value) -> Result<RateProfile, ScenarioError> {
        let expected = "an array of [time, rate] pairs such as [[\"0s\", \"2gbit\"], [\"1s\", \"200mbit\"]]";
        let Value::Array(items) = v else {
            return Err(self.err(field, format!("expected {expected}, got {}", show(v))));
        };
        let mut steps = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let at = index(field, i);
            let pair = match item {
                Value::Array(p) if p.len() == 2 => p,
                other => return Err(self.err(at, format!("expected a [time, rate] pair, got {}", show(other)))),
            };
            let (Value::String(t), Value::String(r)) = (&pair[0], &pair[1]) else {
                return Err(self.err(at, "expected two strings: [\"1.5s\", \"200mbit\"]"));
            };
            let t = parse_duration(t).map_err(|e| self.err(&at, e.to_string()))?;
            let r = if r.trim() == "0" || r.trim() == "0bit" {
                rtac_core::Bandwidth::from_bps(0)
            } else {
                parse_bandwidth(r).map_err(|e| self.err(&at, e.to_string()))?
            };
            steps.push((t, r));
        }
        RateProfile::new(steps).map_err(|e| self.err(field, e.to_string()))
    }

    /// `blockage = [{ kind = "building", at = "2s", duration = "2s" }, ...]`.
    fn blockage(&self, field: &str, v: &Value, los: rtac_core::Bandwidth) -> Result<RateProfile, ScenarioError> {
        let Value::Array(items) = v else {
            return Err(self.err(
                field,
                format!("expected an array of tables such as [{{ kind = \"human\", at = \"2s\" }}], got {}", show(v)),
            ));
        };
        let mut events = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let at = index(field, i);
            let Value::Table(t) = item else {
                return Err(self.err(at, format!("expected a table {{ kind, at, duration }}, got {}", show(item))));
            };
            let f = self.fields(at.clone(), t, BLOCKAGE_KEYS)?;
            let kind = match f.string("kind")? {
                Some("human") => BlockageKind::Human,
                Some("building") => BlockageKind::Building,
                Some(other) => {
                    return Err(
                        self.err(join(&at, "kind"), format!("expected \"human\" or \"building\", got {other:?}"))
                    )
                }
                None => return Err(self.err(join(&at, "kind"), "missing: \"human\" or \"building\"")),
            };
            let start = f.duration("at")?.ok_or_else(|| self.err(join(&at, "at"), "missing: when it starts"))?;
            events.push(Blockage { kind, at: start, duration: f.duration("duration")? });
        }
        blockage_profile(los, &events).map_err(|m| self.err(field, m))
    }

    /// A link's `queue`: a spec string, a `{ kind = ..., key = value }` table,
    /// or absent (the default).
    fn queue(&self, qpath: &str, v: Option<&Value>) -> Result<QueueSpec, ScenarioError> {
        match v {
            None => QueueSpec::parse(DEFAULT_QUEUE).map_err(|e| self.err(qpath, e.to_string())),
            Some(Value::String(s)) => QueueSpec::parse(s).map_err(|e| self.err(qpath, e.to_string())),
            Some(Value::Table(qt)) => self.queue_table(qpath, qt),
            Some(other) => Err(self.err(
                qpath,
                format!(
                    "expected a queue such as \"droptail:packets=1000\" or {{ kind = \"droptail\", packets = 1000 }}, got {}",
                    show(other)
                ),
            )),
        }
    }

    fn queue_table(&self, qpath: &str, qt: &Table) -> Result<QueueSpec, ScenarioError> {
        let kind = match qt.get("kind") {
            Some(Value::String(k)) => k.as_str(),
            Some(other) => {
                return Err(self.err(
                    join(qpath, "kind"),
                    format!("expected the queue discipline's name such as \"droptail\", got {}", show(other)),
                ))
            }
            None => {
                return Err(self.err(join(qpath, "kind"), "missing: the queue discipline, such as kind = \"droptail\""))
            }
        };
        let mut pairs = Vec::new();
        for (k, v) in qt.iter().filter(|(k, _)| k.as_str() != "kind") {
            let value = match v {
                Value::String(s) => s.clone(),
                Value::Integer(i) => i.to_string(),
                Value::Float(x) if x.is_finite() => x.to_string(),
                other => {
                    return Err(self.err(join(qpath, k), format!("expected a number or a string, got {}", show(other))))
                }
            };
            pairs.push((k.clone(), value));
        }
        QueueSpec::from_pairs(kind, &pairs).map_err(|e| {
            let field = match &e {
                QueueError::UnknownKind(_) => join(qpath, "kind"),
                QueueError::UnknownKey { key, .. } | QueueError::BadValue { key, .. } => join(qpath, key),
                _ => qpath.to_string(),
            };
            self.err(field, e.to_string())
        })
    }

    fn flows(
        &self,
        v: Option<&Value>,
        links: &[LinkSpec],
        duration: Duration,
        mss: u32,
    ) -> Result<Vec<FlowSpec>, ScenarioError> {
        let tables = self.array_of_tables("flow", v, "the TCP flows to simulate")?;
        let mut flows = Vec::with_capacity(tables.len());
        let mut total: i64 = 0;
        let link_names = || links.iter().map(|l| l.name.as_str()).collect::<Vec<_>>().join(", ");
        for (i, t) in tables.into_iter().enumerate() {
            let path = index("flow", i);
            let f = self.fields(path.clone(), t, FLOW_KEYS)?;
            let count = f.integer("count", 1..=MAX_FLOWS)?.unwrap_or(1);
            total += count;
            if total > MAX_FLOWS {
                return Err(self.err(
                    join(&path, "count"),
                    format!("the flows add up to {total}, more than the {MAX_FLOWS} a scenario may have"),
                ));
            }
            let cc = match f.string("cc")? {
                None => "cubic".parse::<CcKind>().map_err(|e| self.err(join(&path, "cc"), e))?,
                Some(s) => s.parse::<CcKind>().map_err(|e| self.err(join(&path, "cc"), e))?,
            };
            let controller = match f.get("controller") {
                None => None,
                Some(cv) => Some(self.controller(&join(&path, "controller"), cv, mss)?),
            };
            let path_idx = match f.get("path") {
                None => (0..links.len()).collect(),
                Some(Value::Array(names)) => {
                    if names.is_empty() {
                        return Err(self.err(
                            join(&path, "path"),
                            format!("must name at least one link; links: {}", link_names()),
                        ));
                    }
                    let mut idx: Vec<usize> = Vec::with_capacity(names.len());
                    for (j, n) in names.iter().enumerate() {
                        let field = index(&join(&path, "path"), j);
                        let Value::String(n) = n else {
                            return Err(self.err(field, format!("expected a link name, got {}", show(n))));
                        };
                        let Some(li) = links.iter().position(|l| &l.name == n) else {
                            return Err(
                                self.err(field, format!("no link is named {:?}; links: {}", clip(n), link_names()))
                            );
                        };
                        if idx.contains(&li) {
                            return Err(self.err(field, format!("the path crosses link {n:?} twice")));
                        }
                        idx.push(li);
                    }
                    idx
                }
                Some(other) => {
                    return Err(self.err(
                        join(&path, "path"),
                        format!("expected an array of link names such as [\"{}\"], got {}", links[0].name, show(other)),
                    ))
                }
            };
            let start = f.duration("start")?.unwrap_or(Duration::ZERO);
            if start >= duration {
                return Err(self.err(
                    join(&path, "start"),
                    format!("must be before the end of the run (duration = {}s)", duration.as_secs_f64()),
                ));
            }
            let stop = f.duration("stop")?;
            if let Some(stop) = stop {
                if stop <= start {
                    return Err(
                        self.err(join(&path, "stop"), format!("must be after start ({}s)", start.as_secs_f64()))
                    );
                }
            }
            let bytes = match f.get("bytes") {
                None => None,
                Some(Value::Integer(n)) if *n > 0 => Some(*n as u64),
                Some(Value::String(s)) => match parse_bytes(s) {
                    Ok(n) if n > 0 => Some(n),
                    Ok(_) => return Err(self.err(join(&path, "bytes"), "must be above 0")),
                    Err(e) => return Err(self.err(join(&path, "bytes"), e.to_string())),
                },
                Some(other) => {
                    return Err(self.err(
                        join(&path, "bytes"),
                        format!("expected a size above 0 such as 1000000 or \"64KB\", got {}", show(other)),
                    ))
                }
            };
            let cell = path_idx.iter().find(|&&l| links[l].per_flow.is_some()).map(|&l| &links[l]);
            let channel = match (f.get("channel"), f.get("blockage")) {
                (None, None) => None,
                (Some(_), Some(_)) => {
                    return Err(self.err(join(&path, "blockage"), "give either channel or blockage, not both"))
                }
                (Some(_), _) | (_, Some(_)) if cell.is_none() => {
                    let key = if f.get("channel").is_some() { "channel" } else { "blockage" };
                    return Err(self.err(
                        join(&path, key),
                        "a per-flow channel needs a link with per_flow queues (a base station) on the flow's path",
                    ));
                }
                (Some(c), None) => Some(self.channel(&join(&path, "channel"), c)?),
                (None, Some(b)) => {
                    Some(self.blockage(&join(&path, "blockage"), b, cell.expect("checked above").rate)?)
                }
            };
            let ue = f.integer("ue", 0..=u32::MAX as i64)?.map(|u| u as u32);
            if ue.is_some() && cell.is_none() {
                return Err(self.err(
                    join(&path, "ue"),
                    "a UE needs a link with per_flow queues (a base station) on the flow's path",
                ));
            }
            let access = self.private_link(&path, "access", f.get("access"))?;
            let egress = self.private_link(&path, "egress", f.get("egress"))?;
            let receiver = match f.string("receiver")? {
                None => None,
                Some(name) => {
                    super::receiver::check_name(name).map_err(|m| self.err(join(&path, "receiver"), m))?;
                    Some(name.to_string())
                }
            };
            flows.push(FlowSpec {
                count: count as u32,
                cc,
                controller,
                path: path_idx,
                start,
                stop,
                bytes,
                channel,
                access,
                egress,
                ue,
                receiver,
            });
        }
        super::receiver::check_controllers(&flows).map_err(|(field, m)| self.err(field, m))?;
        Ok(flows)
    }
}

impl Fields<'_, '_> {
    fn field(&self, key: &str) -> String {
        join(&self.path, key)
    }

    fn get(&self, key: &str) -> Option<&Value> {
        self.table.get(key)
    }

    fn string(&self, key: &str) -> Result<Option<&str>, ScenarioError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.r.err(self.field(key), format!("expected a string, got {}", show(other)))),
        }
    }

    fn integer(&self, key: &str, range: std::ops::RangeInclusive<i64>) -> Result<Option<i64>, ScenarioError> {
        let describe = || {
            if *range.end() == i64::MAX {
                format!("an integer of at least {}", range.start())
            } else {
                format!("an integer from {} to {}", range.start(), range.end())
            }
        };
        match self.get(key) {
            None => Ok(None),
            Some(Value::Integer(n)) if range.contains(n) => Ok(Some(*n)),
            Some(other) => Err(self.r.err(self.field(key), format!("expected {}, got {}", describe(), show(other)))),
        }
    }

    fn duration(&self, key: &str) -> Result<Option<Duration>, ScenarioError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => {
                parse_duration(s).map(Some).map_err(|e| self.r.err(self.field(key), e.to_string()))
            }
            Some(other) => Err(self.r.err(
                self.field(key),
                format!("expected a duration string such as \"40ms\" or \"1.5s\", got {}", show(other)),
            )),
        }
    }
}

#[cfg(test)]
mod tests;
