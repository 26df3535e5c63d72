//! The fuzz tier: generated and mutated inputs for every reader of user
//! input (scenario files, Mahimahi traces, queue specs, controller
//! parameters) and generated scenarios run through the simulator.
//!
//! Invariants: nothing panics; every error message is bounded whatever the
//! input's size; a queue and a run conserve packets (sent = delivered +
//! dropped + in flight); a run's events stay within a budget proportional
//! to its simulated work (so no hang); a run's per-second results stay
//! within its duration (bounded memory).
//!
//! `RTAC_FUZZ_CASES` sets the total number of cases (default 10,000,
//! shared among the properties by weight); `PROPTEST_RNG_SEED`-style
//! reproduction uses the seed proptest prints on failure. The long run:
//! `RTAC_FUZZ_CASES=1000000 cargo test --release -p rtac-sim --test fuzz`
//! (see crates/sim/README.md, "Fuzzing").

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rtac_core::controller::{AnyController, ControllerKind, Params};
use rtac_core::{Controller, Duration, Instant};
use rtac_netmodel::{parse_mahimahi, LinkServer, Packet, Qdisc, QueueSpec, TraceLink};
use rtac_sim::scenario::parse_str;
use rtac_sim::{run, RunOptions, RunResult, Scenario};
use std::sync::atomic::{AtomicU64, Ordering};

/// Longest error message any input may produce, in bytes.
const MAX_ERROR: usize = 2000;

/// Cases for a property of weight `w` out of 100.
fn cases(w: u32) -> u32 {
    let total: u64 = std::env::var("RTAC_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    ((total * u64::from(w)) / 100).max(1) as u32
}

fn runner(w: u32) -> TestRunner {
    TestRunner::new(Config { cases: cases(w), failure_persistence: None, ..Config::default() })
}

fn bounded(e: &dyn std::fmt::Display) -> Result<(), TestCaseError> {
    let m = e.to_string();
    prop_assert!(m.len() <= MAX_ERROR, "a {}-byte error: {}…", m.len(), &m[..floor_char_boundary(&m, 300)]);
    Ok(())
}

// ------------------------------------------------------------- scenarios

/// Values that stress the readers: extremes of every type the format has.
const EXTREMES: &[&str] = &[
    "0",
    "-1",
    "1e300",
    "-1e300",
    "18446744073709551615",
    "9223372036854775807",
    "nan",
    "inf",
    "0.0",
    "\"\"",
    "\"0mbit\"",
    "\"10\"",
    "\"1ns\"",
    "\"0s\"",
    "\"18446744073709s\"",
    "\"1e300s\"",
    "\"-5ms\"",
    "\"1gbit\"",
    "\"1bit\"",
    "\"droptail:packets=0\"",
    "\"red:min=5,max=1\"",
    "\"fq_codel:flows=0\"",
    "\"pie:target=0ms\"",
    "\"codel:interval=1ns\"",
    "\"/dev/null\"",
    "\"é\u{1F600}\"",
    "[]",
    "{}",
    "[[]]",
    "true",
    "1979-05-27T07:32:00Z",
];

/// One edit of a scenario's text.
#[derive(Clone, Debug)]
enum Mutation {
    /// Replace the value after the `n`-th `=` by an extreme.
    Value(usize, usize),
    /// Delete the `n`-th line.
    DeleteLine(usize),
    /// Duplicate the `n`-th line.
    DuplicateLine(usize),
    /// Delete `len` bytes at `at` (on a character boundary).
    Cut(usize, usize),
    /// Insert text at `at`.
    Insert(usize, String),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), 0..EXTREMES.len()).prop_map(|(n, v)| Mutation::Value(n, v)),
        1 => any::<usize>().prop_map(Mutation::DeleteLine),
        1 => any::<usize>().prop_map(Mutation::DuplicateLine),
        1 => (any::<usize>(), 1usize..40).prop_map(|(a, l)| Mutation::Cut(a, l)),
        1 => (any::<usize>(), "[\\[\\]{}=\"',.\\n a-z0-9#]{1,12}").prop_map(|(a, s)| Mutation::Insert(a, s)),
    ]
}

fn boundary(s: &str, at: usize) -> usize {
    let at = if s.is_empty() { 0 } else { at % (s.len() + 1) };
    floor_char_boundary(s, at)
}

/// The largest char boundary of `s` at or below `at` (`str::floor_char_boundary`,
/// stable only since Rust 1.91, after this workspace's rust-version).
fn floor_char_boundary(s: &str, at: usize) -> usize {
    (0..=at.min(s.len())).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0)
}

fn apply(text: &str, m: &Mutation) -> String {
    let lines: Vec<&str> = text.lines().collect();
    match m {
        Mutation::Value(n, v) => {
            let eqs: Vec<usize> = text.match_indices('=').map(|(i, _)| i).collect();
            if eqs.is_empty() {
                return text.to_string();
            }
            let at = eqs[n % eqs.len()] + 1;
            let end = text[at..].find(['\n', ',', '}']).map_or(text.len(), |e| at + e);
            format!("{} {}{}", &text[..at], EXTREMES[*v], &text[end..])
        }
        Mutation::DeleteLine(n) if !lines.is_empty() => {
            let k = n % lines.len();
            lines.iter().enumerate().filter(|(i, _)| *i != k).map(|(_, l)| *l).collect::<Vec<_>>().join("\n")
        }
        Mutation::DuplicateLine(n) if !lines.is_empty() => {
            let k = n % lines.len();
            let mut out: Vec<&str> = lines.clone();
            out.insert(k, lines[k]);
            out.join("\n")
        }
        Mutation::Cut(at, len) => {
            let a = boundary(text, *at);
            let b = boundary(text, a + len).max(a);
            format!("{}{}", &text[..a], &text[b..])
        }
        Mutation::Insert(at, s) => {
            let a = boundary(text, *at);
            format!("{}{s}{}", &text[..a], &text[a..])
        }
        _ => text.to_string(),
    }
}

/// The repository's scenario files.
fn real_scenarios() -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    out.sort();
    assert!(out.len() >= 5, "the scenarios directory has {} files", out.len());
    out
}

/// Makes a parsed scenario cheap to run: at most 300 ms simulated, 8
/// flows per entry, links at most 20 Mbit/s.
fn shrink(mut s: Scenario) -> Scenario {
    s.duration = s.duration.min(Duration::from_millis(300));
    let half = Duration::from_nanos(s.duration.as_nanos() / 2);
    s.measure_from = s.measure_from.min(half);
    for f in &mut s.flows {
        f.count = f.count.min(8);
        f.start = f.start.min(half);
        f.stop = f.stop.map(|t| t.max(f.start + Duration::from_millis(1)));
        f.channel = None;
    }
    for l in &mut s.links {
        l.rate = l.rate.min(rtac_core::Bandwidth::from_mbps(20));
    }
    s.controllers.truncate(2);
    s
}

/// The run invariants: packets conserved, events within the budget, the
/// per-second results within the duration.
fn check_run(s: &Scenario, r: &RunResult) -> Result<(), TestCaseError> {
    let d = r.data;
    prop_assert_eq!(d.sent, d.delivered + d.dropped + d.in_flight, "{:?}", d);
    prop_assert_eq!(d.sent, r.packets);
    // Simulated work: the packets sent, each causing a bounded number of
    // events (enqueue, link start and free, arrival per hop, an ACK), plus
    // timers: at most one per flow per millisecond (delayed ACKs fire at
    // 40 ms, RTOs at 200 ms or more, pacing gaps are sub-millisecond only
    // while packets flow).
    let hops = 2 + s.links.len() as u64;
    let flows: u64 = s.flows.iter().map(|f| u64::from(f.count)).sum();
    let budget = 8 * hops * (d.sent + 1) + 4 * flows * (s.duration.as_millis() + 1) + 64;
    prop_assert!(r.events <= budget, "{} events, budget {budget}: {:?}", r.events, d);
    let secs = s.duration.as_nanos().div_ceil(1_000_000_000) as usize;
    for f in &r.flows {
        prop_assert!(f.throughput_per_s.len() <= secs);
        prop_assert!(f.throughput_mbps.is_finite() && f.rtt_mean_ms.is_finite());
    }
    Ok(())
}

/// Cases of one property: how many were rejected with an error, how many
/// were accepted, and the simulation runs among them.
#[derive(Default)]
struct Tally {
    errors: AtomicU64,
    accepted: AtomicU64,
    runs: AtomicU64,
}

impl Tally {
    fn count(&self, c: &AtomicU64) {
        c.fetch_add(1, Ordering::Relaxed);
    }
    fn report(&self, name: &str) {
        let g = |c: &AtomicU64| c.load(Ordering::Relaxed);
        println!(
            "fuzz {name}: {} cases, {} errors, {} accepted, {} runs",
            g(&self.errors) + g(&self.accepted),
            g(&self.errors),
            g(&self.accepted),
            g(&self.runs)
        );
    }
}

fn parse_and_run(text: &str, tally: &Tally) -> Result<(), TestCaseError> {
    match parse_str(text, "fuzz.toml") {
        Err(e) => {
            tally.count(&tally.errors);
            bounded(&e)
        }
        Ok(s) => {
            tally.count(&tally.accepted);
            let s = shrink(s);
            for c in &s.controllers {
                tally.count(&tally.runs);
                check_run(&s, &run(&s, c, &RunOptions::default()))?;
            }
            Ok(())
        }
    }
}

#[test]
fn mutated_real_scenarios_are_read_without_panic_and_run_conserving_packets() {
    let real = real_scenarios();
    let strategy = (0..real.len(), proptest::collection::vec(mutation(), 1..4));
    let tally = Tally::default();
    runner(25)
        .run(&strategy, |(i, ms)| {
            let text = ms.iter().fold(real[i].1.clone(), |t, m| apply(&t, m));
            parse_and_run(&text, &tally)
        })
        .unwrap();
    tally.report("mutated scenarios");
}

const CCS: &[&str] = &["reno", "cubic", "htcp", "vegas", "westwood", "bbr", "tcp-gt", "tcp-gt-timewin"];
const QUEUES: &[&str] = &[
    "droptail:packets=1",
    "droptail:packets=50",
    "droptail:bytes=3000",
    "red:min=5,max=15,packets=40",
    "red:min=2,max=8,gentle=true,packets=30",
    "codel",
    "codel:target=1ms,interval=20ms,packets=30",
    "pie:target=5ms,packets=40",
    "fq_codel:flows=4,packets=40",
];
/// Controllers and their parameters, as in a scenario's `controllers`.
const CONTROLLERS: &[&str] = &[
    "controller = \"none\"",
    "controller = \"autotuning\"",
    "controller = \"drwa\"",
    "controller = \"rtac\"",
    "controller = \"drw\"",
    "controller = \"static\", params = { rmem_max = \"64KB\" }",
    "controller = \"rtac\", params = { delta = \"18ms\" }",
    "controller = \"drwa\", params = { lambda = 1.5 }",
];

/// A valid scenario as TOML: 1-3 links, 1-4 flow entries, short runs.
fn scenario_text() -> impl Strategy<Value = String> {
    let link = (1u64..20_000, 0u64..40, 0..QUEUES.len(), 0u8..6, 0u8..3);
    let flow = (1u32..4, 0..CCS.len(), 0u64..200, proptest::option::of(1u64..400), proptest::option::of(1u64..200_000));
    (
        20u64..400,
        proptest::collection::vec(link, 1..4),
        proptest::collection::vec((flow, any::<bool>(), any::<bool>()), 1..5),
        proptest::collection::vec(0..CONTROLLERS.len(), 1..3),
        any::<u64>(),
        prop_oneof![Just(536u32), Just(1448), Just(9000)],
    )
        .prop_map(|(dur, links, flows, ctls, seed, mss)| {
            let mut ctls = ctls;
            ctls.sort();
            ctls.dedup();
            let list: Vec<String> =
                ctls.iter().map(|&c| format!("{{ label = \"run{c}\", {} }}", CONTROLLERS[c])).collect();
            let mut t = format!(
                "duration = \"{dur}ms\"\nseed = {}\nmss = {mss}\nmeasure_from = \"{}ms\"\ncontrollers = [{}]\n",
                seed >> 1,
                dur / 3,
                list.join(", ")
            );
            for (i, (kbit, delay, q, loss, sched)) in links.iter().enumerate() {
                t += &format!("[[link]]\nname = \"l{i}\"\nrate = \"{kbit}kbit\"\ndelay = \"{delay}ms\"\n");
                t += &format!("queue = \"{}\"\n", QUEUES[*q]);
                if *loss == 0 {
                    t += "loss = 0.05\n";
                }
                match sched {
                    1 => t += "per_flow = \"rr\"\n",
                    2 => t += "per_flow = \"pf\"\n",
                    _ => {}
                }
            }
            for ((count, cc, start, stop, bytes), access, egress) in flows {
                t += &format!("[[flow]]\ncount = {count}\ncc = \"{}\"\nstart = \"{}ms\"\n", CCS[cc], start % dur);
                if let Some(s) = stop {
                    t += &format!("stop = \"{}ms\"\n", start % dur + s);
                }
                if let Some(b) = bytes {
                    t += &format!("bytes = {b}\n");
                }
                if access {
                    t += "access = { rate = \"100mbit\", delay = \"1ms\", queue = \"droptail:packets=20\" }\n";
                }
                if egress {
                    t += "egress = { rate = \"50mbit\", delay = \"2ms\" }\n";
                }
            }
            t
        })
}

#[test]
fn generated_scenarios_run_conserving_packets_within_their_event_budget() {
    let tally = Tally::default();
    runner(15)
        .run(&scenario_text(), |text| {
            let s = parse_str(&text, "gen.toml").map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            tally.count(&tally.accepted);
            for c in &s.controllers {
                tally.count(&tally.runs);
                check_run(&s, &run(&s, c, &RunOptions::default()))?;
            }
            Ok(())
        })
        .unwrap();
    tally.report("generated scenarios");
}

#[test]
fn arbitrary_text_is_never_a_panic_and_errors_stay_short() {
    let long = "[a-z_]{1,8}".prop_map(|k| k.repeat(20_000));
    let strategy = prop_oneof![
        3 => "[\\[\\]{}=\"',.\\n a-z0-9#:_-]{0,200}",
        1 => (long, 0..EXTREMES.len()).prop_map(|(k, v)| format!("{k} = {}\n", EXTREMES[v])),
        1 => (0..EXTREMES.len()).prop_map(|v| format!("duration = \"1s\"\n[[link]]\nrate = {}\n[[flow]]\ncc = \"{}\"\n", EXTREMES[v], "x".repeat(100_000))),
    ];
    let tally = Tally::default();
    runner(15).run(&strategy, |text| parse_and_run(&text, &tally)).unwrap();
    tally.report("arbitrary text");
}

// --------------------------------------------------------------- traces

#[test]
fn traces_parse_or_fail_with_a_line_and_serve_in_order() {
    let line = prop_oneof![
        6 => (0u64..5000).prop_map(|v| v.to_string()),
        1 => Just(String::new()),
        1 => Just("18446744073709".to_string()),
        1 => Just("18446744073709551615".to_string()),
        1 => "[ a-z0-9.-]{1,6}",
    ];
    let strategy = (proptest::collection::vec(line, 0..60), any::<bool>());
    runner(15)
        .run(&strategy, |(lines, sort)| {
            let mut lines = lines;
            if sort {
                lines.sort_by_key(|l| l.parse::<u64>().unwrap_or(u64::MAX));
            }
            match parse_mahimahi(&lines.join("\n")) {
                Err(e) => bounded(&e),
                Ok(trace) => {
                    prop_assert!(trace.average_bps() >= 1.0);
                    let mut link = TraceLink::new(trace, Instant::ZERO);
                    let mut t = Instant::ZERO;
                    for size in [40u32, 1500, 9000, 1] {
                        let done = link.transmit(t, size);
                        prop_assert!(done >= t);
                        t = done;
                    }
                    Ok(())
                }
            }
        })
        .unwrap();
}

// ---------------------------------------------------------- queue specs

#[derive(Debug)]
struct Pkt {
    size: u32,
    flow: u64,
}

impl Packet for Pkt {
    fn size(&self) -> u32 {
        self.size
    }
    fn flow_key(&self) -> u64 {
        self.flow
    }
}

#[test]
fn queue_specs_round_trip_and_queues_conserve_packets() {
    let kinds = prop_oneof![
        Just("droptail"),
        Just("pfifo"),
        Just("red"),
        Just("codel"),
        Just("pie"),
        Just("fq_codel"),
        Just("sfq")
    ];
    let keys = prop_oneof![
        Just("packets"),
        Just("bytes"),
        Just("min"),
        Just("max"),
        Just("maxp"),
        Just("wq"),
        Just("gentle"),
        Just("target"),
        Just("interval"),
        Just("tupdate"),
        Just("alpha"),
        Just("beta"),
        Just("burst"),
        Just("flows"),
        Just("quantum"),
        Just("bandwidth"),
        Just("derandomize"),
    ];
    const VALUES: &[&str] = &["0.5", "1e300", "-1", "5ms", "0ms", "1ns", "3KB", "10mbit", "true"];
    let values = prop_oneof![
        (0u64..3000).prop_map(|v| v.to_string()),
        proptest::sample::select(VALUES).prop_map(String::from),
        "[a-z0-9.]{0,5}",
    ];
    let ops = proptest::collection::vec((any::<bool>(), 0u64..3_000_000, 40u32..1500, 0u64..6), 0..300);
    let strategy = (kinds, proptest::collection::vec((keys, values), 0..5), ops, any::<u64>());
    runner(15)
        .run(&strategy, |(kind, pairs, ops, seed)| {
            let kv: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let text = if kv.is_empty() { kind.to_string() } else { format!("{kind}:{}", kv.join(",")) };
            let spec = match QueueSpec::parse(&text) {
                Err(e) => return bounded(&e),
                Ok(s) => s,
            };
            let again = QueueSpec::parse(&spec.to_string()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&again, &spec);
            let mut q = spec.build::<Pkt>(seed);
            let (mut now, mut sent, mut out, mut dropped) = (Instant::ZERO, 0u64, 0u64, 0u64);
            let mut drops = Vec::new();
            for (enq, gap, size, flow) in ops {
                now += Duration::from_nanos(gap);
                if enq {
                    sent += 1;
                    q.enqueue(Pkt { size, flow }, now, &mut drops);
                } else if let Some(d) = q.dequeue(now, &mut drops) {
                    prop_assert!(d.sojourn <= now - Instant::ZERO);
                    out += 1;
                }
                dropped += drops.len() as u64;
                drops.clear();
            }
            prop_assert_eq!(sent, out + dropped + q.len_packets() as u64);
            Ok(())
        })
        .unwrap();
}

// -------------------------------------------------- controller parameters

#[test]
fn controller_parameters_build_or_fail_clearly_and_controllers_run() {
    const KEYS: &[&str] = &["k", "bdp", "theta", "a", "alpha", "beta", "delta", "lambda", "rmem_max", "init_rwnd"];
    let keys = prop_oneof![proptest::sample::select(KEYS).prop_map(String::from), "[a-z]{1,4}"];
    const VALUES: &[&str] =
        &["1e300", "1e-300", "0", "-1", "nan", "0.5", "3", "18ms", "0ms", "18446744073709s", "1B", "2GB", "64KB"];
    let values = prop_oneof![proptest::sample::select(VALUES).prop_map(String::from), "[a-z0-9.]{0,5}"];
    let events = proptest::collection::vec((0u64..50_000_000, 0u64..2_000_000, 0u64..100_000), 0..200);
    let strategy =
        (0..ControllerKind::ALL.len(), proptest::collection::vec((keys, values), 0..4), 536u32..9001, events);
    runner(15)
        .run(&strategy, |(k, pairs, mss, events)| {
            let kind = ControllerKind::ALL[k];
            let mut params = Params::new();
            for (key, v) in &pairs {
                if params.insert(key, v).is_err() {
                    return Ok(()); // a key given twice: an error by design
                }
            }
            let _ = params.warnings(kind.name());
            let mut c = match AnyController::new(kind, mss, &params) {
                Err(e) => return bounded(&e),
                Ok(c) => c,
            };
            let mut now = Instant::ZERO;
            for (gap, rtt, bytes) in events {
                now += Duration::from_nanos(gap);
                c.on_rtt_sample(now, Duration::from_nanos(rtt + 1));
                c.on_data_consumed(now, bytes);
                if let Some(w) = c.rwnd() {
                    prop_assert!(w > 0, "{kind} advertised a zero window");
                }
            }
            Ok(())
        })
        .unwrap();
}
