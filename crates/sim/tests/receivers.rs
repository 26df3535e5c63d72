//! Receivers: flows that name one `receiver` are one host's connections.
//! The field and its errors; a lone connection runs exactly as a flow
//! without the field; and the connections of one host under `rtac` share
//! one window budget, which keeps one target queue where a controller per
//! connection keeps one each.

use rtac_sim::scenario::{parse_str, ScenarioError};
use rtac_sim::{run, ReceiverResult, RunOptions, RunResult, Scenario};

fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    parse_str(text, "receivers.toml")
}

fn scenario(text: &str) -> Scenario {
    parse(text).unwrap_or_else(|e| panic!("{e}"))
}

/// The field and the message of a scenario refused for a field.
fn refused(text: &str) -> (String, String) {
    match parse(text) {
        Err(ScenarioError::Field { field, message, .. }) => (field, message),
        other => panic!("expected a field error for\n{text}\ngot {other:?}"),
    }
}

const LINK: &str = r#"
duration = "5s"
[[link]]
name = "a"
rate = "10mbit"
delay = "10ms"
[[link]]
name = "b"
rate = "10mbit"
delay = "30ms"
"#;

#[test]
fn flows_naming_one_receiver_are_its_connections_wherever_their_paths_go() {
    let s = scenario(&format!(
        "{LINK}\n[[flow]]\ncount = 2\nreceiver = \"phone\"\npath = [\"a\"]\n\
         [[flow]]\n\
         [[flow]]\nreceiver = \"phone\"\npath = [\"b\"]\n\
         [[flow]]\nreceiver = \"laptop (wlan0)\"\n"
    ));
    let names: Vec<Option<&str>> = s.flows.iter().map(|f| f.receiver.as_deref()).collect();
    assert_eq!(names, [Some("phone"), None, Some("phone"), Some("laptop (wlan0)")]);
    let hosts = s.hosts();
    assert_eq!(hosts.len(), 2);
    assert_eq!((hosts[0].name.as_str(), hosts[0].flows.as_slice()), ("phone", &[0, 1, 3][..]));
    assert_eq!(hosts[0].entries, [0, 2]);
    assert_eq!((hosts[1].name.as_str(), hosts[1].flows.as_slice()), ("laptop (wlan0)", &[4][..]));
}

#[test]
fn bad_receiver_names_are_refused_naming_the_field() {
    let flow = |value: &str| format!("{LINK}\n[[flow]]\n[[flow]]\nreceiver = {value}\n");
    let (field, message) = refused(&flow("\"\""));
    assert_eq!(field, "flow[1].receiver");
    assert!(message.contains("empty"), "{message}");
    let (field, message) = refused(&flow(&format!("\"{}\"", "x".repeat(41))));
    assert_eq!(field, "flow[1].receiver");
    assert!(message.contains("41 characters") && message.contains("40"), "{message}");
    let (field, message) = refused(&flow("\"a\\u0007b\""));
    assert_eq!(field, "flow[1].receiver");
    assert!(message.contains("control character"), "{message}");
    let (field, message) = refused(&flow("3"));
    assert_eq!(field, "flow[1].receiver");
    assert!(message.contains("expected a string"), "{message}");
    // 40 characters, not all ASCII, pass.
    scenario(&flow(&format!("\"{}\"", "é".repeat(40))));
}

#[test]
fn the_connections_of_one_receiver_must_run_one_controller() {
    let two = |a: &str, b: &str| format!("{LINK}\n[[flow]]\nreceiver = \"h\"\n{a}\n[[flow]]\nreceiver = \"h\"\n{b}\n");
    let (field, message) = refused(&two("controller = \"autotuning\"", "controller = \"drwa\""));
    assert_eq!(field, "flow[1].controller");
    assert!(
        message.contains("\"drwa\"") && message.contains("\"autotuning\"") && message.contains("flow[0]"),
        "{message}"
    );
    let (field, message) = refused(&two("controller = \"autotuning\"", ""));
    assert_eq!(field, "flow[1].controller");
    assert!(message.starts_with("missing"), "{message}");
    let (field, _) = refused(&two("", "controller = \"rtac\""));
    assert_eq!(field, "flow[1].controller");
    let (field, message) = refused(&two(
        "controller = { controller = \"rtac\", params = { k = 3e-7 } }",
        "controller = { controller = \"rtac\", params = { k = 3e-6 } }",
    ));
    assert_eq!(field, "flow[1].controller");
    assert!(message.contains("k=0.000003"), "{message}");
    // The same choice under another label, parameters in another order.
    scenario(&two(
        "controller = { label = \"x\", controller = \"rtac\", params = { k = 3e-7, delta = \"10ms\" } }",
        "controller = { controller = \"rtac\", params = { delta = \"10ms\", k = 3e-7 } }",
    ));
    // Different controllers on different receivers are fine.
    scenario(&format!(
        "{LINK}\n[[flow]]\nreceiver = \"h\"\ncontroller = \"drwa\"\n[[flow]]\nreceiver = \"g\"\ncontroller = \"rtac\"\n"
    ));
}

/// `r` without what only a named receiver adds and the wall-clock time.
fn unnamed(mut r: RunResult) -> RunResult {
    r.wall = Default::default();
    r.receivers.clear();
    for f in &mut r.flows {
        f.receiver = None;
    }
    r
}

#[test]
fn a_lone_connection_with_a_receiver_runs_exactly_as_one_without() {
    let text = |field: &str| {
        format!(
            "duration = \"20s\"\nseed = 4\nstart_jitter = \"300ms\"\n\
             controllers = [\"autotuning\", \"rtac\", \"drwa\"]\n\
             [[link]]\nrate = \"20mbit\"\ndelay = \"20ms\"\nqueue = \"droptail:packets=500\"\nchannel = \"wifi\"\n\
             [[flow]]\n{field}\n[[flow]]\nbytes = \"3MB\"\nstart = \"2s\"\n"
        )
    };
    let (plain, named) = (scenario(&text("")), scenario(&text("receiver = \"phone\"")));
    for c in &plain.controllers {
        let a = run(&plain, c, &RunOptions { series: true });
        let b = run(&named, c, &RunOptions { series: true });
        assert_eq!(b.receivers.len(), 1);
        assert_eq!(b.flows[0].receiver.as_deref(), Some("phone"));
        assert_eq!(b.flows[1].receiver, None);
        let h = &b.receivers[0];
        assert_eq!((h.flows.as_slice(), h.connections), (&[0][..], 1));
        assert_eq!(h.throughput_mbps, b.flows[0].throughput_mbps);
        assert!((h.rtt_mean_ms - b.flows[0].rtt_mean_ms).abs() <= 1e-9 * h.rtt_mean_ms);
        assert_eq!(h.jain, Some(1.0));
        assert_eq!(unnamed(a), unnamed(b), "run {}", c.label);
    }
}

/// Four CUBIC downloads of one host behind its 20 Mbit/s access link
/// (40 ms base RTT, a 1000-packet DropTail buffer: 25 BDP), 60 s.
const HOST: &str = r#"
duration = "60s"
measure_from = "10s"
start_jitter = "1s"
controllers = ["autotuning", "rtac", { label = "rtac-per-connection", controller = "rtac", params = { budget = "connection" } }]

[[link]]
name = "access"
rate = "20mbit"
delay = "20ms"
queue = "droptail:packets=1000"

[[flow]]
count = 4
cc = "cubic"
receiver = "host"
"#;

fn host(r: &RunResult) -> &ReceiverResult {
    assert_eq!(r.receivers.len(), 1, "{}", r.label);
    &r.receivers[0]
}

#[test]
fn one_budget_for_the_connections_of_a_host_keeps_one_target_queue() {
    const BASE_MS: f64 = 40.0;
    for seed in [1, 2, 3] {
        let mut sc = scenario(HOST);
        sc.seed = seed;
        let runs: Vec<RunResult> = sc.controllers.iter().map(|c| run(&sc, c, &RunOptions::default())).collect();
        let (linux, budget, each) = (host(&runs[0]), host(&runs[1]), host(&runs[2]));
        for h in [linux, budget, each] {
            assert_eq!((h.connections, h.flows.as_slice()), (4, &[0, 1, 2, 3][..]));
            let jain = h.jain.expect("every connection delivered");
            assert!((0.25..=1.0).contains(&jain), "Jain's index {jain}");
        }
        let say = |h: &ReceiverResult| {
            format!("{:.2} Mbit/s, {:.1} ms, Jain {:.3}", h.throughput_mbps, h.rtt_mean_ms, h.jain.unwrap_or(f64::NAN))
        };
        let all = format!("seed {seed}: autotuning {}; rtac {}; per connection {}", say(linux), say(budget), say(each));
        assert!(budget.rtt_mean_ms <= 2.0 * BASE_MS, "{all}");
        assert!(budget.rtt_mean_ms < 0.25 * each.rtt_mean_ms, "{all}");
        assert!(budget.throughput_mbps >= 0.9 * linux.throughput_mbps, "{all}");
        assert!(budget.jain.unwrap() >= 0.95, "{all}");
        // A controller per connection keeps a target queue each: four.
        assert!(each.rtt_mean_ms > 4.0 * BASE_MS, "{all}");
        // Each connection holds one run's own controller kind.
        assert!(runs[1].flows.iter().all(|f| f.controller == "rtac"));
    }
}

/// A page of three 2 MB objects, then a 5 MB one a second later: the
/// connections that finished leave the budget, so the last one gets the
/// link.
#[test]
fn connections_that_finish_return_their_share() {
    let sc = scenario(
        r#"
        duration = "20s"
        controllers = ["autotuning", "rtac"]
        [[link]]
        rate = "20mbit"
        delay = "20ms"
        queue = "droptail:packets=1000"
        [[flow]]
        receiver = "phone"
        bytes = "2MB"
        count = 3
        [[flow]]
        receiver = "phone"
        start = "1s"
        bytes = "5MB"
        "#,
    );
    let linux = run(&sc, &sc.controllers[0], &RunOptions::default());
    let budget = run(&sc, &sc.controllers[1], &RunOptions::default());
    let (l, b) = (host(&linux), host(&budget));
    let (lc, bc) = (l.completion.expect("all done"), b.completion.expect("all done"));
    assert_eq!(b.bytes_delivered, 11 << 20, "3 x 2 MB + 5 MB");
    // 11 MB at 19.3 Mbit/s of goodput take 4.8 s.
    assert!(bc.as_secs_f64() <= 1.2 * lc.as_secs_f64(), "rtac {bc}, autotuning {lc}");
    assert!(b.rtt_mean_ms < l.rtt_mean_ms, "rtac {:.1} ms, autotuning {:.1} ms", b.rtt_mean_ms, l.rtt_mean_ms);
    let last = budget.flows[3].completion.expect("the late connection finished");
    assert!(last.as_secs_f64() < 6.0, "the late connection took {last}");
}

#[test]
fn a_budget_run_is_deterministic() {
    let sc = scenario(HOST);
    let a = unnamed_wall(run(&sc, &sc.controllers[1], &RunOptions { series: true }));
    let b = unnamed_wall(run(&sc, &sc.controllers[1], &RunOptions { series: true }));
    assert_eq!(a, b);
}

fn unnamed_wall(mut r: RunResult) -> RunResult {
    r.wall = Default::default();
    r
}

#[test]
fn jains_index() {
    use rtac_sim::results::jain;
    assert_eq!(jain(&[3.0, 3.0, 3.0]), Some(1.0));
    assert_eq!(jain(&[2.0, 0.0]), Some(0.5));
    assert!((jain(&[1.0, 2.0, 3.0]).unwrap() - 36.0 / 42.0).abs() < 1e-12);
    assert_eq!(jain(&[0.0, 0.0]), None);
    assert_eq!(jain(&[]), None);
}
