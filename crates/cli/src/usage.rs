//! Command-line usage errors in rtac's words. clap finds what is wrong
//! (an unknown option, a missing or bad value, an extra argument, ...);
//! this module says it the way every other rtac error is said: one line
//! `rtac: error: ...` that names the option and what it expects, then one
//! line with the command's usage and where its help is, exit status 2.
//! Whatever the user typed is quoted cut (`echo`), so the message stays
//! short however long the argument.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::CommandFactory;
use rtac_sim::scenario::input::{echo, echo_cut};
use std::ffi::OsString;

/// The longest usage line shown, in characters.
const MAX_USAGE: usize = 300;

/// Prints `e` in rtac's words and exits: help and version as clap prints
/// them, on stdout with status 0; a usage error as two lines on stderr
/// with status 2.
pub(crate) fn exit(e: clap::Error) -> ! {
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) || !e.use_stderr() {
        e.exit();
    }
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        e.exit();
    }
    let (message, hint) = render(&e, std::env::args_os().collect());
    eprintln!("rtac: error: {message}\nrtac: {hint}");
    std::process::exit(2);
}

/// The error line (without `rtac: error: `) and the hint line (without
/// `rtac: `) for `e`, raised while parsing `argv`.
pub(crate) fn render(e: &clap::Error, argv: Vec<OsString>) -> (String, String) {
    let mut root = crate::Cli::command();
    // Gives the subcommands their full names (`rtac sweep`) for usage.
    root.build();
    // A subcommand can only be the first argument.
    let sub = argv
        .get(1)
        .and_then(|a| a.to_str())
        .filter(|a| root.get_subcommands().any(|s| s.get_name() == *a))
        .map(str::to_string);
    let cmd = match &sub {
        Some(s) => format!("rtac {s}"),
        None => "rtac".to_string(),
    };
    let usage = match &sub {
        Some(s) => root.find_subcommand_mut(s).map(|c| c.render_usage().to_string()),
        None => Some(root.render_usage().to_string()),
    }
    .unwrap_or_default();
    let usage = usage.trim().trim_start_matches("Usage:").trim();
    let usage: Vec<&str> = usage.lines().map(str::trim).collect();
    let hint = format!("usage: {}; `{cmd} --help` lists the options", echo_cut(&usage.join(" or "), MAX_USAGE));
    (message(e, &cmd), hint)
}

fn string(e: &clap::Error, kind: ContextKind) -> Option<String> {
    match e.get(kind)? {
        ContextValue::String(s) => Some(s.clone()),
        ContextValue::Strings(v) => Some(v.join(", ")),
        ContextValue::StyledStr(s) => Some(s.to_string()),
        ContextValue::StyledStrs(v) => Some(v.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("; ")),
        ContextValue::Number(n) => Some(n.to_string()),
        ContextValue::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The suggestions clap makes, as plain text.
fn strings_of(e: &clap::Error, kind: ContextKind) -> Vec<String> {
    match e.get(kind) {
        Some(ContextValue::StyledStrs(v)) => v.iter().map(|s| s.to_string()).collect(),
        Some(ContextValue::StyledStr(s)) => vec![s.to_string()],
        _ => Vec::new(),
    }
}

fn strings(e: &clap::Error, kind: ContextKind) -> Vec<String> {
    match e.get(kind) {
        Some(ContextValue::Strings(v)) => v.clone(),
        Some(ContextValue::String(s)) => vec![s.clone()],
        _ => Vec::new(),
    }
}

/// An option as clap names it (`--out <DIR>`) as the user types it
/// (`--out`); a positional argument (`<SWEEP.toml>`) as `SWEEP.toml`.
fn flag(arg: &str) -> String {
    let first = arg.split_whitespace().next().unwrap_or(arg);
    let first = first.split('=').next().unwrap_or(first);
    echo(first.trim_start_matches('<').trim_end_matches('>').trim_end_matches("..."))
}

/// The value name in clap's `--out <DIR>`: `DIR`, if there is one.
fn value_name(arg: &str) -> Option<&str> {
    let (_, rest) = arg.split_once(' ')?;
    Some(rest.trim().trim_start_matches('<').trim_end_matches("...").trim_end_matches('>'))
}

fn quoted(s: &str) -> String {
    format!("{:?}", echo(s))
}

/// "expected ..." for the messages of the standard number parsers (the
/// ranges of `value_parser!(u16).range(..)`, `str::parse`), else `None`.
fn expected_number(source: &str) -> Option<String> {
    if let Some((_, range)) = source.split_once(" is not in ") {
        return Some(match range.split_once("..=") {
            Some((lo, hi)) => format!("expected a whole number from {lo} to {hi}"),
            None => format!("expected a whole number of at least {}", range.trim_end_matches("..")),
        });
    }
    match source {
        "invalid digit found in string"
        | "cannot parse integer from empty string"
        | "number too large to fit in target type"
        | "number too small to fit in target type" => Some("expected a whole number".to_string()),
        "invalid float literal" | "cannot parse float from empty string" => Some("expected a number".to_string()),
        _ => None,
    }
}

fn message(e: &clap::Error, cmd: &str) -> String {
    let arg = string(e, ContextKind::InvalidArg).unwrap_or_default();
    let value = string(e, ContextKind::InvalidValue).unwrap_or_default();
    match e.kind() {
        ErrorKind::UnknownArgument => {
            let mut m = if arg.starts_with('-') {
                format!("unknown option {} for {cmd}", flag(&arg))
            } else {
                format!("unexpected argument {} for {cmd}", quoted(&arg))
            };
            if let Some(s) = string(e, ContextKind::SuggestedArg) {
                m.push_str(&format!("; did you mean {}?", flag(&s)));
            }
            for s in strings_of(e, ContextKind::Suggested) {
                if s.contains("as a value, use") {
                    m.push_str(&format!("; to pass {} as an argument, write -- before it", flag(&arg)));
                } else {
                    m.push_str(&format!("; {}", echo_cut(&s, 200)));
                }
            }
            m
        }
        ErrorKind::InvalidValue if value.is_empty() => {
            let valid = strings(e, ContextKind::ValidValue);
            match (valid.is_empty(), value_name(&arg)) {
                (false, _) => format!("{} needs a value: one of {}", flag(&arg), valid.join(", ")),
                (true, Some(name)) => format!("{} needs a value ({name}), got none", flag(&arg)),
                (true, None) => format!("{} needs a value, got none", flag(&arg)),
            }
        }
        ErrorKind::InvalidValue => {
            let valid = strings(e, ContextKind::ValidValue);
            let mut m = format!("{}: expected one of {}, got {}", flag(&arg), valid.join(", "), quoted(&value));
            if let Some(s) = string(e, ContextKind::SuggestedValue) {
                m.push_str(&format!("; did you mean {s}?"));
            }
            m
        }
        ErrorKind::ValueValidation => {
            let source = std::error::Error::source(e).map(|s| s.to_string()).unwrap_or_default();
            match expected_number(&source) {
                Some(expected) => format!("{}: {expected}, got {}", flag(&arg), quoted(&value)),
                // The parsers of rtac's options say what they expected and
                // quote the value (cut) themselves.
                None if source.contains(&echo(&value)) || value.is_empty() => {
                    format!("{}: {}", flag(&arg), echo_cut(&source, 600))
                }
                None => format!("{}: {}, got {}", flag(&arg), echo_cut(&source, 600), quoted(&value)),
            }
        }
        ErrorKind::NoEquals => format!("{} needs its value after an equals sign: {}=VALUE", flag(&arg), flag(&arg)),
        ErrorKind::TooManyValues => match value_name(&arg) {
            None => format!("{} takes no value, got {}", flag(&arg), quoted(&value)),
            Some(_) => format!("{} takes no more values here, got {}", flag(&arg), quoted(&value)),
        },
        ErrorKind::TooFewValues => format!(
            "{} needs at least {} values, got {}",
            flag(&arg),
            string(e, ContextKind::MinValues).unwrap_or_default(),
            string(e, ContextKind::ActualNumValues).unwrap_or_default()
        ),
        ErrorKind::WrongNumberOfValues => format!(
            "{} needs {} values, got {}",
            flag(&arg),
            string(e, ContextKind::ExpectedNumValues).unwrap_or_default(),
            string(e, ContextKind::ActualNumValues).unwrap_or_default()
        ),
        ErrorKind::ArgumentConflict => {
            let prior: Vec<String> = strings(e, ContextKind::PriorArg).iter().map(|p| flag(p)).collect();
            match prior.is_empty() {
                true => format!("{} cannot be given here (or not twice)", flag(&arg)),
                false => format!("{} cannot be used with {}", flag(&arg), prior.join(", ")),
            }
        }
        ErrorKind::MissingRequiredArgument => {
            let missing = strings(e, ContextKind::InvalidArg);
            format!("{cmd} needs {}", missing.iter().map(|m| echo(m)).collect::<Vec<_>>().join(" and "))
        }
        ErrorKind::MissingSubcommand => {
            let subs: Vec<String> =
                strings(e, ContextKind::ValidSubcommand).into_iter().filter(|s| s != "help").collect();
            format!("{cmd} needs a subcommand: one of {}", subs.join(", "))
        }
        ErrorKind::InvalidSubcommand => {
            let sub = string(e, ContextKind::InvalidSubcommand).unwrap_or_default();
            let mut m = format!("unknown subcommand {} for {cmd}", quoted(&sub));
            if let Some(s) = string(e, ContextKind::SuggestedSubcommand) {
                m.push_str(&format!("; did you mean {s}?"));
            }
            m
        }
        ErrorKind::InvalidUtf8 => format!("an argument of {cmd} is not valid UTF-8"),
        _ => {
            // Any other error: clap's own first line, without its prefix.
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("").trim_start_matches("error: ");
            echo_cut(first, 600)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Arg, ArgAction, Command};

    /// The message for `args` of a command that has what rtac's commands
    /// lack: a required subcommand, options of several values, conflicts.
    fn message_for(args: &[&str]) -> String {
        let cmd = Command::new("t").subcommand_required(true).subcommand(
            Command::new("pair")
                .arg(Arg::new("two").long("two").num_args(2).value_name("X"))
                .arg(Arg::new("some").long("some").num_args(2..=3).value_name("Y"))
                .arg(Arg::new("eq").long("eq").require_equals(true).value_name("Z"))
                .arg(Arg::new("a").long("a").action(ArgAction::SetTrue).conflicts_with("b"))
                .arg(Arg::new("b").long("b").action(ArgAction::SetTrue)),
        );
        let e = cmd.try_get_matches_from(args).expect_err("the arguments are wrong");
        message(&e, "rtac t")
    }

    #[test]
    fn every_kind_of_usage_error_names_the_option_and_what_it_expects() {
        assert_eq!(message_for(&["t"]), "rtac t needs a subcommand: one of pair");
        assert_eq!(message_for(&["t", "pear"]), "unknown subcommand \"pear\" for rtac t; did you mean pair?");
        assert_eq!(message_for(&["t", "pair", "--two", "1"]), "--two needs 2 values, got 1");
        assert_eq!(message_for(&["t", "pair", "--some", "1"]), "--some needs at least 2 values, got 1");
        assert_eq!(message_for(&["t", "pair", "--eq", "1"]), "--eq needs its value after an equals sign: --eq=VALUE");
        assert_eq!(message_for(&["t", "pair", "--a", "--b"]), "--a cannot be used with --b");
        assert_eq!(message_for(&["t", "pair", "--a=1"]), "--a takes no value, got \"1\"");
    }

    #[test]
    fn number_parser_messages_say_what_is_expected() {
        assert_eq!(
            expected_number("0 is not in 1..=65535").as_deref(),
            Some("expected a whole number from 1 to 65535")
        );
        assert_eq!(expected_number("0 is not in 1..").as_deref(), Some("expected a whole number of at least 1"));
        assert_eq!(expected_number("invalid digit found in string").as_deref(), Some("expected a whole number"));
        assert_eq!(expected_number("cannot read \"x\": expected a size"), None);
    }
}
