//! Bad option values are refused in rtac's words, naming the option and
//! what it expects.

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
