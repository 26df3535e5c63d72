//! What `rtac sim` prints: tables for a reader, or one JSON document.

use rtac_core::Duration;
use rtac_sim::{FlowResult, LinkResult, ReceiverResult, RunResult, Scenario};
use serde_json::{json, Map, Value};
use std::fmt::Write;

/// Flows listed per run in the text report; the rest are summarised.
const MAX_FLOW_ROWS: usize = 32;

/// The path of flow 0 (all links if the scenario has no flow).
fn reference_path(s: &Scenario) -> Vec<usize> {
    match s.flows.first() {
        Some(f) if !f.path.is_empty() => f.path.clone(),
        _ => (0..s.links.len()).collect(),
    }
}

/// Twice the one-way propagation delays on flow 0's path, plus the mean
/// delay of its links' wireless channels: the mean RTT with empty queues
/// (serialisation aside).
pub fn base_rtt(s: &Scenario) -> Duration {
    let links = || reference_path(s).into_iter().filter_map(|i| s.links.get(i));
    let one_way = links().fold(Duration::ZERO, |acc, l| acc + l.delay);
    let channels = links().filter_map(|l| l.channel.map(|c| c.mean_extra())).fold(Duration::ZERO, |a, b| a + b);
    one_way + one_way + channels
}

/// The link with the lowest rate on flow 0's path, the first on ties.
pub fn bottleneck(s: &Scenario) -> Option<usize> {
    let path = reference_path(s);
    let mut best: Option<usize> = None;
    for i in path {
        let Some(l) = s.links.get(i) else { continue };
        if best.is_none_or(|b| l.rate < s.links[b].rate) {
            best = Some(i);
        }
    }
    best
}

/// Total goodput of all flows of a run, Mbit/s.
fn total_mbps(r: &RunResult) -> f64 {
    r.flows.iter().map(|f| f.throughput_mbps).sum()
}

/// Mean RTT over all flows' samples, ms (NaN without samples).
fn mean_rtt_ms(r: &RunResult) -> f64 {
    let n: u64 = r.flows.iter().map(|f| f.rtt_samples).sum();
    if n == 0 {
        return f64::NAN;
    }
    r.flows.iter().filter(|f| f.rtt_samples > 0).map(|f| f.rtt_mean_ms * f.rtt_samples as f64).sum::<f64>() / n as f64
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 && a.is_finite() && b.is_finite() {
        a / b
    } else {
        f64::NAN
    }
}

fn params_of(s: &Scenario, label: &str) -> Map<String, Value> {
    s.controllers
        .iter()
        .find(|c| c.label == label)
        .map(|c| c.params.iter().map(|(k, v)| (k.to_string(), Value::from(v))).collect())
        .unwrap_or_default()
}

/// A statistic of samples, or `null` when there were none (the result
/// holds 0 then, which a script would take for a measurement).
fn sampled(x: f64, samples: u64) -> Value {
    if samples == 0 {
        Value::Null
    } else {
        Value::from(x)
    }
}

/// The same for the text tables: `-` without samples.
fn sampled_text(x: f64, samples: u64, decimals: usize) -> String {
    num(if samples == 0 { f64::NAN } else { x }, decimals)
}

fn flow_json(f: &FlowResult) -> Value {
    let rtt = |x| sampled(x, f.rtt_samples);
    json!({
        "id": f.id,
        "controller": f.controller,
        "cc": f.cc,
        "throughput_mbps": f.throughput_mbps,
        "bytes_delivered": f.bytes_delivered,
        "rtt_mean_ms": rtt(f.rtt_mean_ms),
        "rtt_p50_ms": rtt(f.rtt_p50_ms),
        "rtt_p95_ms": rtt(f.rtt_p95_ms),
        "rtt_samples": f.rtt_samples,
        "retransmits": f.retransmits,
        "timeouts": f.timeouts,
        "completion_s": f.completion.map(secs_f64),
        "receiver": f.receiver,
    })
}

fn receiver_json(h: &ReceiverResult) -> Value {
    json!({
        "name": h.name,
        "flows": h.flows,
        "connections": h.connections,
        "throughput_mbps": h.throughput_mbps,
        "bytes_delivered": h.bytes_delivered,
        "rtt_mean_ms": sampled(h.rtt_mean_ms, h.rtt_samples),
        "rtt_samples": h.rtt_samples,
        "jain": h.jain,
        "retransmits": h.retransmits,
        "timeouts": h.timeouts,
        "completion_s": h.completion.map(secs_f64),
    })
}

fn link_json(l: &LinkResult) -> Value {
    json!({
        "name": l.name,
        "utilization": l.utilization,
        "queue_delay_mean_ms": sampled(l.queue_delay_mean_ms, l.departures),
        "queue_delay_p95_ms": sampled(l.queue_delay_p95_ms, l.departures),
        "drops": l.drops,
        "departures": l.departures,
    })
}

/// The summary document of `--json` and `summary.json`. Everything in it
/// but `wall_s` is a pure function of the scenario and the runs' choices.
pub fn json(s: &Scenario, results: &[RunResult]) -> Value {
    let b = bottleneck(s);
    let base = ms_f64(base_rtt(s));
    let first = results.first().map_or(f64::NAN, total_mbps);
    let runs: Vec<Value> = results
        .iter()
        .map(|r| {
            let total = total_mbps(r);
            let rtt = mean_rtt_ms(r);
            json!({
                "label": r.label,
                "controller": r.controller,
                "params": params_of(s, &r.label),
                "flows": r.flows.iter().map(flow_json).collect::<Vec<_>>(),
                "receivers": r.receivers.iter().map(receiver_json).collect::<Vec<_>>(),
                "link": b.and_then(|b| r.links.get(b)).map_or(Value::Null, link_json),
                "links": r.links.iter().map(link_json).collect::<Vec<_>>(),
                "throughput_mbps": total,
                "rtt_mean_ms": rtt,
                "rtt_vs_base": ratio(rtt, base),
                "throughput_vs_first": ratio(total, first),
                "wall_s": r.wall.as_secs_f64(),
                "events": r.events,
                "packets": r.packets,
            })
        })
        .collect();
    json!({
        "scenario": s.name,
        "description": s.description,
        "seed": s.seed,
        "duration_s": secs_f64(s.duration),
        "measure_from_s": secs_f64(s.measure_from),
        "mss": s.mss,
        "base_rtt_ms": base,
        "bottleneck": b.map(|b| s.links[b].name.clone()),
        "runs": runs,
    })
}

/// Seconds as a float without the rounding noise of multiplying by 1e-9.
pub fn secs_f64(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e9
}

fn ms_f64(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e6
}

fn num(x: f64, decimals: usize) -> String {
    if x.is_finite() {
        format!("{x:.decimals$}")
    } else {
        "-".to_string()
    }
}

fn rate_per_s(x: f64) -> String {
    if !x.is_finite() {
        "-".to_string()
    } else if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

/// Appends an aligned table: text columns left, number columns right.
fn table(out: &mut String, headers: &[&str], right: &[bool], rows: &[Vec<String>]) {
    let mut width: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |out: &mut String, cells: &mut dyn Iterator<Item = &str>| {
        let mut s = String::new();
        for (i, cell) in cells.enumerate() {
            let w = width[i];
            if i > 0 {
                s.push_str("  ");
            }
            if right.get(i).copied().unwrap_or(false) {
                let _ = write!(s, "{cell:>w$}");
            } else {
                let _ = write!(s, "{cell:<w$}");
            }
        }
        out.push_str(s.trim_end());
        out.push('\n');
    };
    line(out, &mut headers.iter().copied());
    for row in rows {
        line(out, &mut row.iter().map(String::as_str));
    }
}

/// `n` ids as a short list: `0-3`, `0, 2, 5`, `0-9, 12 (11 flows)`.
fn id_list(ids: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        parts.push(if j > i { format!("{}-{}", ids[i], ids[j]) } else { ids[i].to_string() });
        i = j + 1;
    }
    if parts.len() > 4 {
        format!("{}, ... ({} flows)", parts[..3].join(", "), ids.len())
    } else {
        parts.join(", ")
    }
}

/// The named receivers of each run: their connections taken together.
fn receivers_text(out: &mut String, results: &[RunResult]) {
    let _ = writeln!(out, "\nreceivers (connections of one host together; Jain's index over their throughputs)");
    // The time to complete, for receivers whose connections all finished.
    let done = results.iter().any(|r| r.receivers.iter().any(|h| h.completion.is_some()));
    let mut rows = Vec::new();
    for r in results {
        for h in r.receivers.iter().take(MAX_FLOW_ROWS) {
            let mut row = vec![
                r.label.clone(),
                h.name.clone(),
                id_list(&h.flows),
                num(h.throughput_mbps, 2),
                sampled_text(h.rtt_mean_ms, h.rtt_samples, 1),
                h.jain.map_or_else(|| "-".to_string(), |j| format!("{j:.3}")),
                h.retransmits.to_string(),
            ];
            if done {
                row.push(h.completion.map_or_else(|| "-".to_string(), |c| num(secs_f64(c), 3)));
            }
            rows.push(row);
        }
        if r.receivers.len() > MAX_FLOW_ROWS {
            let more = format!("+{} (more: see --json)", r.receivers.len() - MAX_FLOW_ROWS);
            rows.push(vec![r.label.clone(), more]);
        }
    }
    let mut headers = vec!["run", "receiver", "flows", "Mbit/s", "RTT mean ms", "Jain", "retransmits"];
    let mut right = vec![false, false, false, true, true, true, true];
    if done {
        headers.push("completed in s");
        right.push(true);
    }
    table(out, &headers, &right, &rows);
}

/// The report for a reader.
pub fn text(s: &Scenario, results: &[RunResult]) -> String {
    let mut out = String::new();
    let base = base_rtt(s);
    let b = bottleneck(s);
    let _ = writeln!(out, "scenario {}", s.name);
    if !s.description.is_empty() {
        let _ = writeln!(out, "  {}", s.description);
    }
    let _ = writeln!(
        out,
        "  {} s simulated, statistics from {} s, seed {}, MSS {} B, {} flow{}",
        secs_f64(s.duration),
        secs_f64(s.measure_from),
        s.seed,
        s.mss,
        results.first().map_or(0, |r| r.flows.len()),
        if results.first().map_or(0, |r| r.flows.len()) == 1 { "" } else { "s" },
    );
    for (i, l) in s.links.iter().enumerate() {
        let tag = if Some(i) == b { "  (bottleneck)" } else { "" };
        let _ = writeln!(
            out,
            "  link {}: {}, one-way delay {} ms, queue {}{tag}",
            l.name,
            l.rate,
            ms_f64(l.delay),
            l.queue
        );
    }
    let _ = writeln!(out, "  base RTT {} ms (twice the one-way delays on flow 0's path)", num(ms_f64(base), 1));
    for c in &s.controllers {
        if !c.params.is_empty() {
            let p: Vec<String> = c.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let _ = writeln!(out, "  run {}: controller {} with {}", c.label, c.kind, p.join(", "));
        }
    }

    let _ = writeln!(out, "\nflows (RTT as the sender measures it)");
    let mut rows = Vec::new();
    for r in results {
        for f in r.flows.iter().take(MAX_FLOW_ROWS) {
            rows.push(vec![
                r.label.clone(),
                f.id.to_string(),
                f.cc.clone(),
                f.controller.clone(),
                num(f.throughput_mbps, 2),
                sampled_text(f.rtt_mean_ms, f.rtt_samples, 1),
                sampled_text(f.rtt_p50_ms, f.rtt_samples, 1),
                sampled_text(f.rtt_p95_ms, f.rtt_samples, 1),
                f.retransmits.to_string(),
            ]);
        }
        if r.flows.len() > MAX_FLOW_ROWS {
            let more = &r.flows[MAX_FLOW_ROWS..];
            rows.push(vec![
                r.label.clone(),
                format!("+{}", more.len()),
                String::new(),
                "(more: see --json)".to_string(),
                num(more.iter().map(|f| f.throughput_mbps).sum(), 2),
                String::new(),
                String::new(),
                String::new(),
                more.iter().map(|f| f.retransmits).sum::<u64>().to_string(),
            ]);
        }
        if r.flows.len() > 1 {
            rows.push(vec![
                r.label.clone(),
                "all".to_string(),
                String::new(),
                String::new(),
                num(total_mbps(r), 2),
                num(mean_rtt_ms(r), 1),
                String::new(),
                String::new(),
                r.flows.iter().map(|f| f.retransmits).sum::<u64>().to_string(),
            ]);
        }
    }
    table(
        &mut out,
        &["run", "flow", "cc", "controller", "Mbit/s", "RTT mean ms", "p50 ms", "p95 ms", "retransmits"],
        &[false, true, false, false, true, true, true, true, true],
        &rows,
    );

    if results.iter().any(|r| r.receivers.iter().any(|h| h.connections > 1)) {
        receivers_text(&mut out, results);
    }

    let _ = writeln!(out, "\nlinks");
    let mut rows = Vec::new();
    for r in results {
        for l in &r.links {
            rows.push(vec![
                r.label.clone(),
                l.name.clone(),
                num(l.utilization * 100.0, 1),
                sampled_text(l.queue_delay_mean_ms, l.departures, 1),
                sampled_text(l.queue_delay_p95_ms, l.departures, 1),
                l.drops.to_string(),
            ]);
        }
    }
    table(
        &mut out,
        &["run", "link", "util %", "queue delay mean ms", "p95 ms", "drops"],
        &[false, false, true, true, true, true],
        &rows,
    );

    let _ = writeln!(out, "\nsimulation cost");
    let rows: Vec<Vec<String>> = results
        .iter()
        .map(|r| {
            let wall = r.wall.as_secs_f64();
            vec![
                r.label.clone(),
                format!("{wall:.3}"),
                r.events.to_string(),
                rate_per_s(if wall > 0.0 { r.events as f64 / wall } else { f64::NAN }),
            ]
        })
        .collect();
    table(&mut out, &["run", "wall s", "events", "events/s"], &[false, true, true, true], &rows);

    if let Some(first) = results.first() {
        let first_mbps = total_mbps(first);
        let base_ms = ms_f64(base);
        let vs = format!("x {}", first.label);
        let _ = writeln!(
            out,
            "\ncomparison (all flows: total throughput relative to {}, mean RTT as a multiple of the base RTT {} ms)",
            first.label,
            num(base_ms, 1)
        );
        let rows: Vec<Vec<String>> = results
            .iter()
            .map(|r| {
                let mbps = total_mbps(r);
                let rtt = mean_rtt_ms(r);
                vec![
                    r.label.clone(),
                    num(mbps, 2),
                    num(ratio(mbps, first_mbps), 2),
                    num(rtt, 1),
                    num(ratio(rtt, base_ms), 2),
                ]
            })
            .collect();
        table(&mut out, &["run", "Mbit/s", &vs, "RTT mean ms", "x base RTT"], &[false, true, true, true, true], &rows);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_ids_are_listed_as_ranges() {
        assert_eq!(id_list(&[0, 1, 2, 3]), "0-3");
        assert_eq!(id_list(&[0, 2, 5]), "0, 2, 5");
        assert_eq!(id_list(&[1, 2, 4, 6, 7, 9, 11]), "1-2, 4, 6-7, ... (7 flows)");
    }

    /// The receivers appear when one of them has several connections, and
    /// the report is otherwise the one without receivers.
    #[test]
    fn receivers_are_printed_when_a_host_has_several_connections() {
        let text_of = |flow: &str| {
            let s = rtac_sim::scenario::parse_str(
                &format!(
                    "duration = \"2s\"\ncontrollers = [\"rtac\"]\n[[link]]\nrate = \"10mbit\"\n[[flow]]\n{flow}\n"
                ),
                "t.toml",
            )
            .unwrap();
            let mut r = rtac_sim::run_all(&s, &Default::default(), 1);
            r[0].wall = Default::default();
            (text(&s, &r), json(&s, &r))
        };
        let (plain, plain_json) = text_of("count = 2");
        let (one, one_json) = text_of("receiver = \"phone\"");
        let (two, two_json) = text_of("count = 2\nreceiver = \"phone\"");
        assert!(!plain.contains("receivers"), "{plain}");
        assert_eq!(plain_json["runs"][0]["receivers"], json!([]));
        assert_eq!(plain_json["runs"][0]["flows"][1]["receiver"], Value::Null);
        assert!(!one.contains("receivers"), "{one}");
        assert_eq!(one_json["runs"][0]["receivers"][0]["connections"], 1);
        assert!(two.contains("\nreceivers ("), "{two}");
        let row = two.lines().find(|l| l.starts_with("rtac  phone")).expect("the receiver's row");
        assert!(row.contains("0-1"), "{row}");
        let h = &two_json["runs"][0]["receivers"][0];
        assert_eq!((h["name"].as_str(), h["connections"].as_u64()), (Some("phone"), Some(2)));
        assert_eq!(h["flows"], json!([0, 1]));
        assert!(h["jain"].as_f64().is_some_and(|j| (0.5..=1.0).contains(&j)), "{h}");
        assert_eq!(two_json["runs"][0]["flows"][1]["receiver"], "phone");
    }
}
