//! docs/SCENARIOS.md against the scenario reader: every key the reader
//! accepts has a row in the table of its section, every row names a key the
//! reader accepts, and every example loads. The key lists are the reader's
//! own (`rtac_sim::scenario::*_KEYS`, `QueueSpec::PARAMS`,
//! `ChannelSpec::{KINDS, KEYS}`, `CcKind::ALL`, `ControllerKind::ALL`), so a
//! key added to the reader without a row here fails this test.

use rtac_core::controller::{AnyController, ControllerError, ControllerKind, Params};
use rtac_netmodel::link::ChannelError;
use rtac_netmodel::{ChannelSpec, QueueError, QueueSpec};
use rtac_sim::scenario::{
    from_document, parse_document, BLOCKAGE_KEYS, CONTROLLER_KEYS, FLOW_KEYS, LINK_KEYS, PRIVATE_LINK_KEYS, TOP_KEYS,
};
use rtac_sim::CcKind;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn reference() -> String {
    let path = repo().join("docs/SCENARIOS.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The lines under the heading `heading` (exactly that line), up to the next
/// heading of any level; `None` if there is no such heading.
fn section<'d>(doc: &'d str, heading: &str) -> Option<Vec<&'d str>> {
    let mut lines = doc.lines().skip_while(|l| l.trim_end() != heading);
    lines.next()?;
    Some(lines.take_while(|l| !l.starts_with('#')).collect())
}

/// The names in the first column of the tables under `heading`: the first
/// `` `name` `` of each table row. Header rows (no backticks) and separator
/// rows are skipped.
fn table_keys(doc: &str, heading: &str) -> Option<Vec<String>> {
    let rows = section(doc, heading)?;
    let mut keys = Vec::new();
    for row in rows.iter().map(|l| l.trim()).filter(|l| l.starts_with('|')) {
        let first = row.trim_start_matches('|').split('|').next().unwrap_or("").trim();
        let mut parts = first.split('`');
        if let (Some(""), Some(key), Some(_)) = (parts.next(), parts.next(), parts.next()) {
            keys.push(key.to_string());
        }
    }
    Some(keys)
}

/// What the section `heading` gets wrong about `expected`: keys without a
/// row, rows without a key, repeated rows.
fn compare(doc: &str, heading: &str, expected: &[&str], problems: &mut Vec<String>) {
    let Some(rows) = table_keys(doc, heading) else {
        problems.push(format!("no section {heading:?}"));
        return;
    };
    let documented: BTreeSet<&str> = rows.iter().map(String::as_str).collect();
    if documented.len() != rows.len() {
        problems.push(format!("{heading:?}: a key has more than one row: {rows:?}"));
    }
    for key in expected {
        if !documented.contains(key) {
            problems.push(format!("{heading:?}: no row for `{key}`"));
        }
    }
    for key in &documented {
        if !expected.contains(key) {
            problems.push(format!("{heading:?}: a row for `{key}`, which the reader does not know"));
        }
    }
}

/// Every disagreement between the reference `doc` and the reader.
fn problems(doc: &str) -> Vec<String> {
    let mut p = Vec::new();
    compare(doc, "## Top-level keys", TOP_KEYS, &mut p);
    compare(doc, "## [[link]]", LINK_KEYS, &mut p);
    compare(doc, "## [[flow]]", FLOW_KEYS, &mut p);
    compare(doc, "## Controller entries", CONTROLLER_KEYS, &mut p);
    compare(doc, "## Private links: access and egress", PRIVATE_LINK_KEYS, &mut p);
    compare(doc, "## Blockages", BLOCKAGE_KEYS, &mut p);
    let controllers: Vec<&str> = ControllerKind::ALL.iter().map(|k| k.name()).collect();
    compare(doc, "### Controllers", &controllers, &mut p);
    let ccs: Vec<&str> = CcKind::ALL.iter().map(|k| k.name()).collect();
    compare(doc, "## Congestion controls", &ccs, &mut p);
    for (kind, params) in QueueSpec::PARAMS {
        compare(doc, &format!("### Queue `{kind}`"), params, &mut p);
    }
    let kinds: Vec<&str> = QueueSpec::PARAMS.iter().map(|(k, _)| *k).collect();
    for line in doc.lines().filter(|l| l.starts_with("### Queue `")) {
        let kind = line.trim_start_matches("### Queue `").trim_end().trim_end_matches('`');
        if !kinds.contains(&kind) {
            p.push(format!("{line:?}: the reader has no queue discipline {kind:?}"));
        }
    }
    compare(doc, "### Channel kinds", ChannelSpec::KINDS, &mut p);
    compare(doc, "### Channel parameters", ChannelSpec::KEYS, &mut p);
    p
}

#[test]
fn the_reference_has_a_row_for_every_key_and_no_other() {
    let p = problems(&reference());
    assert!(p.is_empty(), "docs/SCENARIOS.md disagrees with the reader:\n{}", p.join("\n"));
}

#[test]
fn a_missing_row_is_caught() {
    let doc = reference();
    // Each deletion removes one row from one section's table.
    for (row, heading, key) in [
        ("| `trace` |", "## [[link]]", "trace"),
        ("| `ue` |", "## [[flow]]", "ue"),
        ("| `quantum` |", "### Queue `fq_codel`", "quantum"),
        ("| `rate_var` |", "### Channel parameters", "rate_var"),
    ] {
        assert_eq!(doc.lines().filter(|l| l.starts_with(row)).count(), 1, "{row} is not a single row");
        let cut: String = doc.lines().filter(|l| !l.starts_with(row)).map(|l| format!("{l}\n")).collect();
        let p = problems(&cut);
        let want = format!("{heading:?}: no row for `{key}`");
        assert!(p.contains(&want), "deleting {row} should report {want:?}; got {p:?}");
    }
    // A row for a key the reader does not know is caught too.
    let extra = doc.replacen("| `loss` |", "| `los` |", 1);
    assert!(problems(&extra).iter().any(|m| m.contains("`los`, which the reader does not know")));
}

#[test]
fn every_controller_parameter_is_documented_with_its_controller() {
    let doc = reference();
    let rows = section(&doc, "### Controllers").expect("a Controllers section");
    for kind in ControllerKind::ALL {
        let row = rows
            .iter()
            .find(|l| l.starts_with(&format!("| `{}` |", kind.name())))
            .unwrap_or_else(|| panic!("no row for controller {}", kind.name()));
        let documented: BTreeSet<&str> = row.split('|').nth(2).unwrap_or("").split('`').skip(1).step_by(2).collect();
        // An unknown parameter's error lists the controller's parameters.
        let mut params = Params::new();
        params.insert("no_such_parameter", "1").unwrap();
        let known: BTreeSet<&str> = match AnyController::new(kind, 1448, &params) {
            Err(ControllerError::UnknownParam { known, .. }) => known.iter().copied().collect(),
            other => panic!("{}: an unknown parameter gave {other:?}", kind.name()),
        };
        assert_eq!(documented, known, "the parameters of {} in docs/SCENARIOS.md", kind.name());
    }
}

#[test]
fn the_public_key_lists_are_the_parsers() {
    for key in ChannelSpec::KEYS {
        let e = ChannelSpec::parse(&format!("lte:{key}=bogus")).unwrap_err();
        assert!(matches!(e, ChannelError::BadValue { .. }), "channel key {key}: {e}");
    }
    for kind in ChannelSpec::KINDS {
        ChannelSpec::parse(kind).unwrap_or_else(|e| panic!("channel kind {kind}: {e}"));
    }
    for (kind, params) in QueueSpec::PARAMS {
        let e = QueueSpec::from_pairs(kind, &[("no_such_key".into(), "1".into())]).unwrap_err();
        assert!(matches!(&e, QueueError::UnknownKey { known, .. } if known == params), "{kind}: {e}");
        for key in *params {
            let e = QueueSpec::from_pairs(kind, &[(key.to_string(), "bogus".into())]).unwrap_err();
            assert!(!matches!(e, QueueError::UnknownKey { .. } | QueueError::UnknownKind(_)), "{kind} {key}: {e}");
        }
    }
}

#[test]
fn every_example_loads() {
    let doc = reference();
    let base = repo().join("scenarios");
    let mut blocks = Vec::new();
    let mut lines = doc.lines();
    while lines.by_ref().any(|l| l.trim() == "```toml") {
        blocks.push(lines.by_ref().take_while(|l| l.trim() != "```").collect::<Vec<_>>().join("\n"));
    }
    assert!(blocks.len() >= 5, "expected the five examples, found {}", blocks.len());
    for (i, text) in blocks.iter().enumerate() {
        let origin = format!("docs/SCENARIOS.md example {}", i + 1);
        let table = parse_document(text, &origin).unwrap_or_else(|e| panic!("{e}"));
        from_document(&table, &origin, Some(&base)).unwrap_or_else(|e| panic!("{e}"));
    }
}
