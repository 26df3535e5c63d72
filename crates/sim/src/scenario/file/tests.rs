//! The scenario reader's tests: every field, and malformed input.

use super::*;

const SMALL: &str = r#"
duration = "3s"

[[link]]
rate = "10mbit"
delay = "10ms"
queue = "droptail:packets=100"

[[flow]]
"#;

fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    parse_str(text, "scenarios/test.toml")
}

fn err(text: &str) -> String {
    match parse(text) {
        Ok(s) => panic!("accepted:\n{text}\n=> {s:?}"),
        Err(e) => e.to_string(),
    }
}

/// The field error's path, or panics.
fn field(text: &str) -> String {
    match parse(text) {
        Err(ScenarioError::Field { field, .. }) => field,
        other => panic!("expected a field error for\n{text}\ngot {other:?}"),
    }
}

#[test]
fn the_embedded_default_parses_to_the_papers_lte_case() {
    let s = super::super::default_scenario();
    assert_eq!(s.name, "rtac-lte-single");
    assert!(s.description.contains("Fig. 6"), "{}", s.description);
    assert_eq!(s.duration, Duration::from_secs(30));
    assert_eq!(s.seed, 1);
    assert_eq!(s.mss, 1448);
    assert_eq!(s.sample_interval, Duration::from_millis(10));
    assert_eq!(s.measure_from, Duration::ZERO);
    let labels: Vec<&str> = s.controllers.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["autotuning", "drwa", "rtac"]);
    let kinds: Vec<ControllerKind> = s.controllers.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [ControllerKind::Autotuning, ControllerKind::Drwa, ControllerKind::Rtac]);
    assert!(s.controllers.iter().all(|c| c.params.is_empty()));
    assert_eq!(s.links.len(), 1);
    let l = &s.links[0];
    assert_eq!(l.name, "lte-bs");
    assert_eq!(l.rate, rtac_core::Bandwidth::from_mbps(55));
    assert_eq!(l.delay, Duration::from_micros(16_500));
    assert_eq!(l.channel, Some(rtac_netmodel::ChannelSpec::parse("lte").unwrap()));
    assert_eq!(l.queue, QueueSpec::parse("droptail:packets=3000").unwrap());
    assert_eq!(s.flows.len(), 1);
    let f = &s.flows[0];
    assert_eq!(f.count, 1);
    assert_eq!(f.cc.name(), "cubic");
    assert!(f.controller.is_none());
    assert_eq!(f.path, [0]);
    assert_eq!(f.start, Duration::ZERO);
    assert_eq!(f.stop, None);
    assert_eq!(f.bytes, None);
}

#[test]
fn every_file_under_scenarios_parses() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            if let Err(e) = load_file(&path) {
                panic!("{e}");
            }
            n += 1;
        }
    }
    assert!(n >= 1, "no scenario files in {}", dir.display());
}

#[test]
fn defaults_fill_a_minimal_file() {
    let s = parse(SMALL).unwrap();
    assert_eq!(s.name, "test");
    assert_eq!(s.description, "");
    assert_eq!(s.seed, 1);
    assert_eq!(s.mss, 1448);
    assert_eq!(s.sample_interval, Duration::from_millis(10));
    assert_eq!(s.controllers, vec![ControllerChoice::new(ControllerKind::Rtac)]);
    assert_eq!(s.links[0].name, "link0");
    assert_eq!(s.flows[0].path, [0]);
    assert_eq!(s.flows[0].cc.name(), "cubic");
    let s = parse("duration = \"1s\"\n[[link]]\nrate = \"1mbit\"\n[[flow]]\n").unwrap();
    assert_eq!(s.links[0].queue, QueueSpec::parse(DEFAULT_QUEUE).unwrap());
    assert_eq!(s.links[0].delay, Duration::ZERO);
}

#[test]
fn a_full_file_reads_every_field() {
    let s = parse(
        r#"
name = "two-hop"
description = "d"
duration = "10s"
seed = 7
mss = 1400
sample_interval = "5ms"
measure_from = "2s"
controllers = ["autotuning", { label = "rtac-k", controller = "rtac" }]

[[link]]
name = "wan"
rate = "1gbit"
delay = "5ms"
queue = { kind = "droptail", bytes = "3MB" }

[[link]]
name = "access"
rate = "20mbit"
delay = "20ms"
queue = { kind = "droptail", packets = 500 }

[[flow]]
count = 3
cc = "reno"
path = ["access"]
start = "1s"
stop = "9s"
bytes = "64KB"

[[flow]]
controller = "none"
bytes = 1000
"#,
    )
    .unwrap();
    assert_eq!((s.name.as_str(), s.seed, s.mss), ("two-hop", 7, 1400));
    assert_eq!(s.measure_from, Duration::from_secs(2));
    assert_eq!(s.sample_interval, Duration::from_millis(5));
    assert_eq!(s.controllers[1].label, "rtac-k");
    assert_eq!(s.controllers[1].kind, ControllerKind::Rtac);
    assert_eq!(s.links[0].queue, QueueSpec::parse("droptail:bytes=3MB").unwrap());
    assert_eq!(s.links[1].queue, QueueSpec::parse("droptail:packets=500").unwrap());
    let f = &s.flows[0];
    assert_eq!((f.count, f.cc.name()), (3, "reno"));
    assert_eq!(f.path, [1]);
    assert_eq!(f.start, Duration::from_secs(1));
    assert_eq!(f.stop, Some(Duration::from_secs(9)));
    assert_eq!(f.bytes, Some(65536));
    assert_eq!(s.flows[1].path, [0, 1]);
    assert_eq!(s.flows[1].bytes, Some(1000));
    assert_eq!(s.flows[1].controller.as_ref().map(|c| c.kind), Some(ControllerKind::None));
}

#[test]
fn errors_name_the_file_the_field_and_the_problem() {
    let e = err(&SMALL.replace("10mbit", "fast"));
    assert!(e.starts_with("scenarios/test.toml: link[0].rate: cannot read \"fast\": expected a rate"), "{e}");
    let e = err(&SMALL.replace("duration = \"3s\"", "duration = 3"));
    assert!(e.contains("duration: expected a duration string") && e.contains("got the integer 3"), "{e}");
    let e = err(&SMALL.replace("rate =", "rat ="));
    assert!(e.contains("link[0].rat: unknown key; did you mean \"rate\"?"), "{e}");
    assert!(e.contains("known keys: name, rate, trace, delay, queue"), "{e}");
    let e = err(&format!("{SMALL}x = 1\n"));
    assert!(e.contains("flow[0].x: unknown key; known keys: count, cc,"), "{e}");
    let e = err(&format!("seeds = 3\n{SMALL}"));
    assert!(e.contains("seeds: unknown key; did you mean \"seed\"?"), "{e}");
    let e = err(&format!("{SMALL}path = [\"nowhere\"]\n"));
    assert!(e.contains("flow[0].path[0]: no link is named \"nowhere\"; links: link0"), "{e}");
    let e = err(&format!("{SMALL}cc = \"vegas9\"\n"));
    assert!(e.contains("flow[0].cc: ") && e.contains("cubic"), "{e}");
    let e = err(&format!("controllers = [\"rtak\"]\n{SMALL}"));
    assert!(e.contains("controllers[0]: unknown controller \"rtak\"; known controllers: none, static"), "{e}");
    let e = err(&format!("controllers = [\"rtac\", \"rtac\"]\n{SMALL}"));
    assert!(e.contains("controllers[1]: label \"rtac\" is already used by controllers[0]"), "{e}");
}

#[test]
fn controller_parameter_errors_name_the_parameter() {
    let doc = format!("{SMALL}controller = {{ controller = \"rtac\", params = {{ zzz = 1 }} }}\n");
    assert_eq!(field(&doc), "flow[0].controller.params.zzz");
    let e = err(&doc);
    assert!(e.contains("zzz"), "{e}");
    let doc = format!("controllers = [{{ controller = \"none\", params = {{ k = 1.5 }} }}]\n{SMALL}");
    assert_eq!(field(&doc), "controllers[0].params.k");
    let doc = format!("controllers = [{{ controller = \"rtac\", params = {{ k = [1] }} }}]\n{SMALL}");
    assert_eq!(field(&doc), "controllers[0].params.k");
    let doc = format!("controllers = [{{ controller = \"rtac\", params = {{ k = nan }} }}]\n{SMALL}");
    assert_eq!(field(&doc), "controllers[0].params.k");
    let doc = format!("controllers = [{{ label = \"a b\", controller = \"rtac\" }}]\n{SMALL}");
    assert_eq!(field(&doc), "controllers[0].label");
    let doc = format!("controllers = [{{ params = {{}} }}]\n{SMALL}");
    assert_eq!(field(&doc), "controllers[0].controller");
}

#[test]
fn syntax_errors_report_line_and_column() {
    let text = "duration = \"3s\"\n\n[[link]]\nrate = \"10mbit\n";
    match parse(text) {
        Err(ScenarioError::Syntax { origin, line, column, message }) => {
            assert_eq!(origin, "scenarios/test.toml");
            assert_eq!(line, 4, "{message}");
            assert!(column >= 1);
            assert!(!message.is_empty());
        }
        other => panic!("{other:?}"),
    }
    let e = err("a = 1\na = 2\n");
    assert!(e.starts_with("scenarios/test.toml:2:"), "{e}");
}

#[test]
fn load_file_names_a_missing_path_and_rejects_non_utf8() {
    let dir = std::env::temp_dir().join(format!("rtac-scenario-file-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("missing.toml");
    let e = load_file(&missing).unwrap_err();
    assert!(matches!(e, ScenarioError::Io { .. }));
    assert!(e.to_string().contains("missing.toml"), "{e}");
    let bin = dir.join("binary.toml");
    std::fs::write(&bin, b"duration = \"3s\"\n\xff\xfe\x00garbage").unwrap();
    match load_file(&bin).unwrap_err() {
        ScenarioError::Syntax { origin, line, column, .. } => {
            assert!(origin.ends_with("binary.toml"));
            assert_eq!((line, column), (2, 1));
        }
        other => panic!("{other:?}"),
    }
    let good = dir.join("good-one.toml");
    std::fs::write(&good, SMALL).unwrap();
    assert_eq!(load_file(&good).unwrap().name, "good-one");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn malformed_documents_are_errors_never_panics() {
    let with = |extra_top: &str, link: &str, flow: &str| {
        format!("{extra_top}\n[[link]]\nrate = \"10mbit\"\n{link}\n[[flow]]\n{flow}\n")
    };
    let d = "duration = \"3s\"";
    let mut docs: Vec<(String, &str)> = vec![
        (String::new(), "duration"),
        ("\n\n  \n".into(), "duration"),
        ("# only a comment".into(), "duration"),
        ("duration = \"3s\"".into(), "link"),
        ("duration = \"3s\"\n[[link]]\nrate = \"1mbit\"".into(), "flow"),
        ("duration = \"3s\"\n[link]\nrate = \"1mbit\"\n[[flow]]".into(), "double brackets"),
        ("duration = \"3s\"\nlink = []\n[[flow]]".into(), "at least one"),
        ("duration = \"3s\"\nlink = [1]\n[[flow]]".into(), "link[0]"),
        ("duration = \"3s\"\nflow = \"x\"\n[[link]]\nrate = \"1mbit\"".into(), "flow"),
        ("\u{0}\u{1}\u{2}\u{fffd}garbage\u{7f}".into(), "invalid TOML"),
        ("[[[[[".into(), "invalid TOML"),
        ("= = =".into(), "invalid TOML"),
        ("x = [".to_string() + &"[".repeat(10_000), "invalid TOML"),
        ("x = ".to_string() + &"{a=".repeat(10_000), "invalid TOML"),
        (with("duration = \"0s\"", "", ""), "above 0"),
        (with("duration = \"-3s\"", "", ""), "duration"),
        (with("duration = \"3\"", "", ""), "duration"),
        (with("duration = \"1e400s\"", "", ""), "duration"),
        (with("duration = \"99999999999999999999999s\"", "", ""), "duration"),
        (with("duration = 3.5", "", ""), "duration"),
        (with("duration = true", "", ""), "duration"),
        (with("duration = [\"3s\"]", "", ""), "duration"),
        (with("duration = { s = 3 }", "", ""), "duration"),
        (with("duration = 1979-05-27T07:32:00Z", "", ""), "duration"),
        (with(&format!("{d}\nseed = -1"), "", ""), "seed"),
        (with(&format!("{d}\nseed = \"1\""), "", ""), "seed"),
        (with(&format!("{d}\nseed = 1.0"), "", ""), "seed"),
        (with(&format!("{d}\nseed = 99999999999999999999"), "", ""), "invalid TOML"),
        (with(&format!("{d}\nmss = 100"), "", ""), "mss"),
        (with(&format!("{d}\nmss = 100000"), "", ""), "mss"),
        (with(&format!("{d}\nmss = -1448"), "", ""), "mss"),
        (with(&format!("{d}\nmss = 9223372036854775807"), "", ""), "mss"),
        (with(&format!("{d}\nname = 5"), "", ""), "name"),
        (with(&format!("{d}\nname = \"\""), "", ""), "name"),
        (with(&format!("{d}\nname = \"../../etc\""), "", ""), "name"),
        (with(&format!("{d}\ndescription = []"), "", ""), "description"),
        (with(&format!("{d}\nsample_interval = \"0ms\""), "", ""), "sample_interval"),
        (with(&format!("{d}\nsample_interval = 10"), "", ""), "sample_interval"),
        (with(&format!("{d}\nmeasure_from = \"3s\""), "", ""), "measure_from"),
        (with(&format!("{d}\nmeasure_from = \"1h\""), "", ""), "measure_from"),
        (with(&format!("{d}\ncontrollers = \"rtac\""), "", ""), "controllers"),
        (with(&format!("{d}\ncontrollers = []"), "", ""), "controllers"),
        (with(&format!("{d}\ncontrollers = [1]"), "", ""), "controllers[0]"),
        (with(&format!("{d}\ncontrollers = [[\"rtac\"]]"), "", ""), "controllers[0]"),
        (with(&format!("{d}\ncontrollers = [{{ controller = 1 }}]"), "", ""), "controllers[0].controller"),
        (with(&format!("{d}\ncontrollers = [{{ controller = \"rtac\", params = 1 }}]"), "", ""), "params"),
        (with(&format!("{d}\ncontrollers = [{{ controller = \"rtac\", extra = 1 }}]"), "", ""), "extra"),
        (with(&format!("{d}\ncontrollers = [{{ controller = \"rtac\", label = 3 }}]"), "", ""), "label"),
        (with(&format!("{d}\ncontrollers = [{{ controller = \"rtac\", params = {{ \"\" = 1 }} }}]"), "", ""), "params"),
        (with(d, "rate = 10", ""), "invalid TOML"),
        (with(d, "delay = \"-1ms\"", ""), "link[0].delay"),
        (with(d, "delay = 25", ""), "link[0].delay"),
        (with(d, "queue = 3000", ""), "link[0].queue"),
        (with(d, "queue = \"droptail\"", ""), "link[0].queue"),
        (with(d, "queue = \"droptail:packets=-5\"", ""), "link[0].queue"),
        (with(d, "queue = \"droptail:packets=99999999999999999999999\"", ""), "link[0].queue"),
        (with(d, "queue = \"red:packets=5\"", ""), "link[0].queue"),
        (with(d, "queue = \"droptail:packets\"", ""), "link[0].queue"),
        (with(d, "queue = {}", ""), "link[0].queue.kind"),
        (with(d, "queue = { kind = 1 }", ""), "link[0].queue.kind"),
        (with(d, "queue = { kind = \"droptail\" }", ""), "link[0].queue"),
        (with(d, "queue = { kind = \"droptail\", packets = 0 }", ""), "link[0].queue.packets"),
        (with(d, "queue = { kind = \"droptail\", packets = [1] }", ""), "link[0].queue.packets"),
        (with(d, "queue = { kind = \"droptail\", pakets = 5 }", ""), "link[0].queue.pakets"),
        (with(d, "name = \"a,b\"", ""), "link[0].name"),
        (with(d, "name = 7", ""), "link[0].name"),
        (with(d, "\n[[link]]\nrate = \"1mbit\"\nname = \"link0\"", ""), "link[1].name"),
        (with(d, "", "count = 0"), "flow[0].count"),
        (with(d, "", "count = -1"), "flow[0].count"),
        (with(d, "", "count = 100001"), "flow[0].count"),
        (with(d, "", "count = \"3\""), "flow[0].count"),
        (with(d, "", "count = 60000\n[[flow]]\ncount = 60000"), "flow[1].count"),
        (with(d, "", "cc = 3"), "flow[0].cc"),
        (with(d, "", "cc = \"\""), "flow[0].cc"),
        (with(d, "", "controller = 3"), "flow[0].controller"),
        (with(d, "", "controller = \"nope\""), "flow[0].controller"),
        (with(d, "", "path = \"link0\""), "flow[0].path"),
        (with(d, "", "path = []"), "flow[0].path"),
        (with(d, "", "path = [0]"), "flow[0].path[0]"),
        (with(d, "", "path = [\"link0\", \"link0\"]"), "flow[0].path[1]"),
        (with(d, "", "start = \"3s\""), "flow[0].start"),
        (with(d, "", "start = \"-1s\""), "flow[0].start"),
        (with(d, "", "start = 1"), "flow[0].start"),
        (with(d, "", "start = \"1s\"\nstop = \"1s\""), "flow[0].stop"),
        (with(d, "", "stop = \"0s\""), "flow[0].stop"),
        (with(d, "", "stop = false"), "flow[0].stop"),
        (with(d, "", "bytes = 0"), "flow[0].bytes"),
        (with(d, "", "bytes = -5"), "flow[0].bytes"),
        (with(d, "", "bytes = \"0KB\""), "flow[0].bytes"),
        (with(d, "", "bytes = \"lots\""), "flow[0].bytes"),
        (with(d, "", "bytes = \"1e30GB\""), "flow[0].bytes"),
        (with(d, "", "bytes = 1.5"), "flow[0].bytes"),
        (with(d, "", "flows = 1"), "flow[0].flows"),
        (with(d, "", "[flow.x]"), "flow[0].x"),
        (format!("{d}\n[[link]]\nrate = \"1mbit\"\n[[flow]]\n[[flow.path]]\n"), "flow[0].path"),
        (format!("{d}\nlink = [{{ rate = \"1mbit\" }}, \"x\"]\n[[flow]]\n"), "link[1]"),
    ];
    // Every prefix of a valid document: truncation anywhere is an error
    // or a valid scenario, never a panic.
    let full = super::super::DEFAULT_SCENARIO;
    for (i, _) in full.char_indices() {
        let _ = parse(&full[..i]);
    }
    docs.push(("\u{feff}".to_string() + "duration = 5", "duration"));
    for (doc, needle) in &docs {
        let e = match std::panic::catch_unwind(|| parse(doc)) {
            Ok(Ok(s)) => panic!("accepted a malformed document:\n{doc}\n=> {s:?}"),
            Ok(Err(e)) => e.to_string(),
            Err(_) => panic!("panicked on:\n{doc}"),
        };
        if std::env::var_os("RTAC_SHOW_ERRORS").is_some() {
            eprintln!("{e}");
        }
        assert!(e.starts_with("scenarios/test.toml"), "message does not name the file: {e}");
        assert!(e.contains(needle), "message for\n{doc}\nlacks {needle:?}: {e}");
        assert!(e.len() < 1000, "overlong message: {e}");
    }
}

#[test]
fn echoed_input_is_cut_however_long() {
    let key = "k".repeat(1 << 20);
    for text in [
        format!("{key} = 1\n{SMALL}"),
        format!("\"{key} x\" = 1\n{SMALL}"),
        SMALL.replace("10mbit", &format!("{key}mbit")),
        SMALL.replace("10ms", &format!("1{key}")),
    ] {
        let e = err(&text);
        assert!(e.len() < 400, "{} bytes: {}", e.len(), &e[..400]);
    }
}

/// A scratch directory of this test process.
fn scratch(test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rtac-scenario-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `load_file(path)`'s message, waiting at most a minute for it: a read
/// that blocks (a FIFO without a writer) fails the test instead of hanging.
fn load_error_within_a_minute(path: &Path) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    let p = path.to_path_buf();
    std::thread::spawn(move || tx.send(load_file(&p).map(|_| ()).map_err(|e| e.to_string())));
    match rx.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(Err(e)) => e,
        Ok(Ok(())) => panic!("{} was accepted", path.display()),
        Err(_) => panic!("reading {} did not return within a minute", path.display()),
    }
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", path.display());
}

#[cfg(unix)]
#[test]
fn a_fifo_as_scenario_or_trace_is_refused_at_once() {
    let dir = scratch("fifo");
    let fifo = dir.join("pipe.toml");
    mkfifo(&fifo);
    let e = load_error_within_a_minute(&fifo);
    assert!(e.ends_with("pipe.toml: cannot read the scenario: is a FIFO (named pipe), not a regular file"), "{e}");
    let scenario = dir.join("s.toml");
    std::fs::write(&scenario, SMALL.replace("rate = \"10mbit\"", "trace = \"pipe.toml\"")).unwrap();
    let e = load_error_within_a_minute(&scenario);
    assert!(e.contains("s.toml: link[0].trace: cannot read trace"), "{e}");
    assert!(e.ends_with("pipe.toml: is a FIFO (named pipe), not a regular file"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn dev_zero_as_trace_or_scenario_is_refused_without_reading() {
    let dir = scratch("devzero");
    let scenario = dir.join("s.toml");
    std::fs::write(&scenario, SMALL.replace("rate = \"10mbit\"", "trace = \"/dev/zero\"")).unwrap();
    let e = load_error_within_a_minute(&scenario);
    assert!(
        e.ends_with("link[0].trace: cannot read trace /dev/zero: is a character device, not a regular file"),
        "{e}"
    );
    let e = load_error_within_a_minute(Path::new("/dev/zero"));
    assert!(e.ends_with("/dev/zero: cannot read the scenario: is a character device, not a regular file"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_scenario_file_over_the_bound_is_refused_naming_the_bound() {
    let dir = scratch("big");
    let big = dir.join("big.toml");
    let f = std::fs::File::create(&big).unwrap();
    // Sparse: the length is what is checked, before any read.
    f.set_len(super::super::input::MAX_SCENARIO_BYTES + 1).unwrap();
    let e = load_error_within_a_minute(&big);
    assert!(
        e.ends_with("big.toml: cannot read the scenario: is larger than 16 MB, the most a scenario file may hold"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
