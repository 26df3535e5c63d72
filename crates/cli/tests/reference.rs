//! docs/REFERENCE.md documents every option of every subcommand: each
//! long option that `rtac SUB --help` lists has a row in the table under
//! the heading `` ## `rtac SUB` ``, no row names an option the help does
//! not have, and every subcommand that `rtac --help` lists has a heading.
//! Options of `rtac` without a subcommand are those of `rtac sim`.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_rtac")).args(args).arg("--help").output().expect("run rtac");
    assert!(out.status.success(), "rtac {args:?} --help: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

/// The `--name`s in `text` (a name begins with a letter, so a table's
/// `|---|` rule is none), without `--help` and `--version`, which every
/// command has.
fn long_options(text: &str) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("--") {
        let name: String = rest[i + 2..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
        if name.starts_with(|c: char| c.is_ascii_alphabetic()) && name != "help" && name != "version" {
            set.insert(name.clone());
        }
        rest = &rest[i + 2 + name.len().max(1)..];
    }
    set
}

/// The long options the help text lists under `Options:`: lines that begin,
/// after indentation, with `-x, --name` or `--name`.
fn help_options(text: &str) -> BTreeSet<String> {
    let options = text.split_once("\nOptions:\n").map_or("", |(_, o)| o);
    let mut set = BTreeSet::new();
    for line in options.lines() {
        let t = line.trim_start();
        let t = if t.len() > 4 && t.starts_with('-') && &t[2..4] == ", " { &t[4..] } else { t };
        if let Some(opt) = t.strip_prefix("--") {
            let name: String = opt.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
            if name != "help" && name != "version" {
                set.insert(name);
            }
        }
    }
    set
}

/// The subcommands that `rtac --help` lists, without `help`.
fn subcommands(text: &str) -> Vec<String> {
    let list = text.split_once("\nCommands:\n").expect("rtac --help lists its commands").1;
    list.lines()
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("    "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(String::from)
        .collect()
}

/// The long options named in the first cell of the table rows of the
/// section under `heading`, up to the next `## ` heading.
fn documented(doc: &str, heading: &str) -> Option<BTreeSet<String>> {
    let start = doc.lines().position(|l| l.trim_end() == heading)?;
    let mut set = BTreeSet::new();
    for line in doc.lines().skip(start + 1).take_while(|l| !l.starts_with("## ")) {
        let Some(row) = line.strip_prefix('|') else { continue };
        let first = row.split('|').next().unwrap_or("");
        set.extend(long_options(first));
    }
    Some(set)
}

#[test]
fn every_subcommand_and_option_is_in_the_reference() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/REFERENCE.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let top = help(&[]);
    let subs = subcommands(&top);
    for expected in ["sim", "sweep", "census", "reproduce", "emu", "plot", "run", "daemon", "get"] {
        assert!(subs.iter().any(|s| s == expected), "rtac --help does not list {expected}: {subs:?}");
    }
    let mut problems = Vec::new();
    for sub in &subs {
        let heading = format!("## `rtac {sub}`");
        let Some(rows) = documented(&doc, &heading) else {
            problems.push(format!("no heading `{heading}`"));
            continue;
        };
        let opts = help_options(&help(&[sub]));
        assert!(!opts.is_empty(), "rtac {sub} --help: no long options found (has its format changed?)");
        for o in opts.difference(&rows) {
            problems.push(format!("rtac {sub}: --{o} has no row under `{heading}`"));
        }
        for o in rows.difference(&opts) {
            problems.push(format!("rtac {sub}: the row for --{o} names an option `rtac {sub} --help` does not list"));
        }
    }
    // `rtac` alone takes `rtac sim`'s options.
    let sim = documented(&doc, "## `rtac sim`").unwrap_or_default();
    for o in help_options(&top).difference(&sim) {
        problems.push(format!("rtac: --{o} (from `rtac --help`) has no row under `## `rtac sim``"));
    }
    assert!(problems.is_empty(), "{}:\n{}", path.display(), problems.join("\n"));
}
