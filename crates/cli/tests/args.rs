//! Bad command lines are refused in rtac's words: one line `rtac: error:`
//! naming the option and what it expects, one line with the command's
//! usage and where its help is, exit status 2, nothing on stdout, and
//! whatever was typed quoted cut.

use std::process::{Command, Output};

fn rtac(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rtac")).args(args).output().expect("the rtac binary runs")
}

#[test]
fn a_bad_seed_names_the_option_and_the_range() {
    for (args, got) in [
        (vec!["sim", "--seed", "-1"], "-1"),
        (vec!["sim", "--seed=-1"], "-1"),
        (vec!["--seed", "-1"], "-1"),
        (vec!["sim", "--seed", "18446744073709551616"], "18446744073709551616"),
        (vec!["sim", "--seed", "1.5"], "1.5"),
    ] {
        let o = rtac(&args);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        let want =
            format!("rtac: error: --seed: expected a whole number from 0 to 18446744073709551615, got \"{got}\"\n");
        assert_eq!(e, want, "{args:?}");
    }
}

const SWEEP_USAGE: &str = "rtac sweep [OPTIONS] --out <DIR> <SWEEP.toml>";
const SIM_USAGE: &str = "rtac sim [OPTIONS] [SCENARIO]";

/// Command line, the error line after `rtac: error: `, and the usage the
/// hint line shows.
const CASES: &[(&[&str], &str, &str)] = &[
    // An unknown option, with a suggestion when one is close.
    (
        &["sweep", "s.toml", "--out", "o", "--fromat", "csv"],
        "unknown option --fromat for rtac sweep; did you mean --format?",
        SWEEP_USAGE,
    ),
    (&["sim", "-x"], "unknown option -x for rtac sim; to pass -x as an argument, write -- before it", SIM_USAGE),
    (&["daemon", "--bogus=1"], "unknown option --bogus for rtac daemon", "rtac daemon [OPTIONS]"),
    // A missing value.
    (&["sweep", "s.toml", "--out"], "--out needs a value (DIR), got none", SWEEP_USAGE),
    (&["sim", "--seed"], "--seed needs a value (N), got none", SIM_USAGE),
    (&["sweep", "s.toml", "--out", "o", "--format"], "--format needs a value: one of parquet, csv", SWEEP_USAGE),
    // An invalid value.
    (
        &["sweep", "s.toml", "--out", "o", "--format", "xml"],
        "--format: expected one of parquet, csv, got \"xml\"",
        SWEEP_USAGE,
    ),
    (&["sim", "--threads", "0"], "--threads: expected a whole number from 1 to 65535, got \"0\"", SIM_USAGE),
    (
        &["sweep", "s.toml", "--out", "o", "--threads", "many"],
        "--threads: expected a whole number from 1 to 65535, got \"many\"",
        SWEEP_USAGE,
    ),
    (
        &["reproduce", "--threads", "0"],
        "--threads: expected a whole number from 1 to 65535, got \"0\"",
        "rtac reproduce [OPTIONS]",
    ),
    (&["census", "--n", "x"], "--n: expected a whole number, got \"x\"", "rtac census [OPTIONS]"),
    (
        &["sim", "--max-output", "lots"],
        "--max-output: cannot read \"lots\": expected a size in bytes such as 1448, 64KB or 2.5MB",
        SIM_USAGE,
    ),
    // A value given to a flag.
    (&["sim", "--json=yes"], "--json takes no value, got \"yes\"", SIM_USAGE),
    // An unexpected argument.
    (&["sweep", "s.toml", "--out", "o", "extra"], "unexpected argument \"extra\" for rtac sweep", SWEEP_USAGE),
    (&["sim", "a.toml", "b.toml"], "unexpected argument \"b.toml\" for rtac sim", SIM_USAGE),
    // A missing argument or option.
    (&["sweep"], "rtac sweep needs --out <DIR> and <SWEEP.toml>", SWEEP_USAGE),
    (&["sweep", "s.toml"], "rtac sweep needs --out <DIR>", SWEEP_USAGE),
    (&["get"], "rtac get needs <URL|HOST:PORT>", "rtac get [OPTIONS] <URL|HOST:PORT>"),
];

#[test]
fn usage_errors_name_the_option_and_what_it_expects_with_a_usage_line() {
    for (args, error, usage) in CASES {
        let o = rtac(args);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(o.stdout.is_empty(), "{args:?}: wrote to stdout");
        let cmd = if usage.starts_with("rtac ") {
            usage.split(' ').take(2).collect::<Vec<_>>().join(" ")
        } else {
            "rtac".into()
        };
        let want = format!("rtac: error: {error}\nrtac: usage: {usage}; `{cmd} --help` lists the options\n");
        assert_eq!(e, want, "{args:?}");
    }
}

#[test]
fn a_usage_error_on_rtac_alone_shows_both_usages() {
    let o = rtac(&["--bogus"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "rtac: error: unknown option --bogus for rtac; to pass --bogus as an argument, write -- before it\n\
         rtac: usage: rtac [OPTIONS] [SCENARIO] or rtac <COMMAND>; `rtac --help` lists the options\n"
    );
}

#[test]
fn what_was_typed_is_quoted_cut() {
    let long = "z".repeat(100_000);
    for args in [
        vec!["sweep", "s.toml", "--out", "o", "--format", &long],
        vec!["sweep", "s.toml", "--out", "o", &long],
        vec!["sim", "--threads", &long],
        vec!["sim", &format!("--{long}")],
        vec!["sim", "--max-output", &long],
    ] {
        let o = rtac(&args);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{}", &e[..e.len().min(300)]);
        assert!(e.len() < 1000, "{} bytes: {}", e.len(), &e[..e.len().min(1000)]);
        assert_eq!(e.lines().count(), 2, "{e}");
        assert!(e.contains("zzz... (100"), "{e}");
    }
}
