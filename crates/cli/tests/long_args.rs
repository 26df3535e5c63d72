//! A very long option value is refused with a short message: `rtac emu` and
//! `rtac get` quote at most the start of what they were given, and still
//! name the option. Every case fails while the arguments are checked, before
//! any namespace, socket or file is made.

use std::process::{Command, Output};

/// 100 kB, far above anything a message should quote.
fn long() -> String {
    "x".repeat(100_000)
}

fn rtac(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rtac")).args(args).output().expect("the rtac binary runs")
}

/// Runs `args`, with LONG in them standing for the 100 kB value, and checks the
/// status, the size of stderr and that it names `option`.
fn check(args: &[&str], option: &str, status: i32) {
    let value = long();
    let argv: Vec<String> = args.iter().map(|a| a.replace("LONG", &value)).collect();
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let o = rtac(&argv);
    let e = String::from_utf8_lossy(&o.stderr);
    let shown = args.join(" ");
    assert_eq!(o.status.code(), Some(status), "{shown}: {}", rtac_cut(&e));
    assert!(e.len() < 2000, "{shown}: {} bytes of stderr: {}", e.len(), rtac_cut(&e));
    assert!(e.contains(option), "{shown}: the message does not name {option}: {e}");
    assert!(e.contains("xxxx"), "{shown}: the message quotes none of the value: {e}");
    assert!(o.stdout.is_empty(), "{shown}: wrote to stdout");
}

/// The start of a message too long to print whole in a failure.
fn rtac_cut(e: &str) -> String {
    e.chars().take(300).collect()
}

#[test]
fn emu_quotes_a_long_value_cut() {
    let ok = ["--down", "10mbit", "--up", "10mbit"];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--down", "LONG", "--up", "10mbit"], "--down"),
        (vec!["--down", "10mbit", "--up", "LONG"], "--up"),
        (vec!["--loss", "LONG"], "--loss"),
        (vec!["--down-loss", "LONG"], "--down-loss"),
        (vec!["--up-loss", "LONG"], "--up-loss"),
        (vec!["--delay", "LONG"], "--delay"),
        (vec!["--down-delay", "LONG"], "--down-delay"),
        (vec!["--up-delay", "LONG"], "--up-delay"),
        (vec!["--queue", "LONG"], "--queue"),
        (vec!["--down-queue", "LONG"], "--down-queue"),
        (vec!["--up-queue", "LONG"], "--up-queue"),
        (vec!["--down-queue", "droptail:packets=LONG"], "--down-queue"),
        (vec!["--queue-mode", "LONG"], "--queue-mode"),
        (vec!["--down-queue-mode", "LONG"], "--down-queue-mode"),
        (vec!["--up-queue-mode", "LONG"], "--up-queue-mode"),
        (vec!["--server-wait", "LONG"], "--server-wait"),
        (vec!["--sysctl", "LONG"], "--sysctl"),
        (vec!["--sysctl", "net/LONG=1"], "--sysctl"),
        (vec!["--forward", "LONG"], "--forward"),
    ];
    for (opts, option) in cases {
        let mut args = vec!["emu"];
        // The link options come first unless the case sets them itself.
        if !opts.contains(&"--down") {
            args.extend_from_slice(&ok);
        }
        args.extend_from_slice(&opts);
        args.extend_from_slice(&["--", "true"]);
        check(&args, option, 2);
    }
}

#[test]
fn get_quotes_a_long_value_cut() {
    // A target refused before any connection is made.
    check(&["get", "LONG"], "no port", 2);
    check(&["get", "http://LONG:x/"], "port", 2);
    check(&["get", "--clamp", "LONG", "127.0.0.1:9"], "--clamp", 2);
    check(&["get", "--clamp", "lock:LONG", "127.0.0.1:9"], "--clamp", 2);
    // The output file is created before connecting; a 100 kB name cannot be.
    check(&["get", "-o", "LONG", "127.0.0.1:9"], "-o", 1);
}
