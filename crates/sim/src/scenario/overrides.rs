//! Changing one field of a scenario document before it is validated, for
//! parameter sweeps: `set_field(doc, "link[0].rate", "10mbit".into(), origin)`.
//!
//! Fields are named the way validation errors name them (`link[0].rate`,
//! `flow[1].cc`, `controllers[0].params.k`), so an override that makes the
//! scenario invalid gets the same message as the same mistake in the file.

use super::ScenarioError;
use toml::{Table, Value};

/// One step of a field path: a key of a table or an index into an array.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// A failure at a field path: (field, message).
type Failure = (String, String);

/// Sets `field` of `doc` to `value`. Missing tables on the way are created
/// (`controllers[0].params.k` on an entry without `params`); a missing
/// array entry is an error, as is a path through a value that is neither a
/// table nor an array. `origin` names the document in messages.
pub fn set_field(doc: &mut Table, field: &str, value: Value, origin: &str) -> Result<(), ScenarioError> {
    let fail = |(field, message): Failure| ScenarioError::Field { origin: origin.to_string(), field, message };
    let steps = parse_path(field).map_err(|m| fail((field.to_string(), m)))?;
    match steps.split_first() {
        Some((Step::Key(k), rest)) => set_in_table(doc, k, rest, value, "").map_err(fail),
        _ => Err(fail((field.to_string(), "a field starts with a name, such as link[0].rate".to_string()))),
    }
}

fn set_in_table(t: &mut Table, key: &str, rest: &[Step], value: Value, at: &str) -> Result<(), Failure> {
    let here = join(at, key);
    match rest.first() {
        None => {
            t.insert(key.to_string(), value);
            Ok(())
        }
        Some(Step::Key(_)) => set_in(t.entry(key).or_insert_with(|| Value::Table(Table::new())), rest, value, &here),
        Some(Step::Index(i)) => match t.get_mut(key) {
            Some(v) => set_in(v, rest, value, &here),
            None => Err((format!("{here}[{i}]"), format!("no such entry: the scenario has no {here}"))),
        },
    }
}

fn set_in(v: &mut Value, steps: &[Step], value: Value, at: &str) -> Result<(), Failure> {
    let Some((step, rest)) = steps.split_first() else {
        *v = value;
        return Ok(());
    };
    match (step, v) {
        (Step::Key(k), Value::Table(t)) => set_in_table(t, k, rest, value, at),
        (Step::Index(i), Value::Array(items)) => {
            let n = items.len();
            match items.get_mut(*i) {
                Some(item) => set_in(item, rest, value, &format!("{at}[{i}]")),
                None => Err((format!("{at}[{i}]"), format!("no such entry: {at} has {n} entr{}", plural(n)))),
            }
        }
        (Step::Key(k), other) => {
            Err((join(at, k), format!("{at} is {} {}, not a table", article(other), other.type_str())))
        }
        (Step::Index(i), other) => {
            Err((format!("{at}[{i}]"), format!("{at} is {} {}, not an array", article(other), other.type_str())))
        }
    }
}

fn join(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_string()
    } else {
        format!("{at}.{key}")
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        "y"
    } else {
        "ies"
    }
}

fn article(v: &Value) -> &'static str {
    if matches!(v, Value::Integer(_) | Value::Array(_)) {
        "an"
    } else {
        "a"
    }
}

/// `link[0].rate` -> [Key(link), Index(0), Key(rate)]. Keys are bare TOML
/// keys (letters, digits, `_`, `-`).
fn parse_path(field: &str) -> Result<Vec<Step>, String> {
    let bad = |why: &str| format!("cannot read the field name: {why}; expected names and indices such as link[0].rate");
    let mut steps = Vec::new();
    for part in field.split('.') {
        let (key, indices) = part.split_once('[').map_or((part, None), |(k, r)| (k, Some(r)));
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(bad(&format!("{part:?} does not start with a name")));
        }
        steps.push(Step::Key(key.to_string()));
        let Some(mut indices) = indices else { continue };
        // `indices` is what follows the first '[': "0]" or "0][1]".
        loop {
            let (n, after) = indices.split_once(']').ok_or_else(|| bad(&format!("{part:?} lacks a ']'")))?;
            let i: usize = n.parse().map_err(|_| bad(&format!("{n:?} in {part:?} is not an index")))?;
            steps.push(Step::Index(i));
            if after.is_empty() {
                break;
            }
            indices = after.strip_prefix('[').ok_or_else(|| bad(&format!("{part:?} has text after ']'")))?;
        }
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{from_document, parse_document};

    const DOC: &str = "duration = \"3s\"\ncontrollers = [\"rtac\"]\n[[link]]\nrate = \"10mbit\"\n[[flow]]\n";

    fn set(field: &str, value: Value) -> Result<Table, String> {
        let mut doc = parse_document(DOC, "t.toml").unwrap();
        set_field(&mut doc, field, value, "t.toml").map_err(|e| e.to_string())?;
        Ok(doc)
    }

    fn scenario_error(field: &str, value: Value) -> String {
        let doc = set(field, value).unwrap();
        from_document(&doc, "t.toml", None).unwrap_err().to_string()
    }

    #[test]
    fn overrides_reach_tables_arrays_and_new_keys() {
        let doc = set("link[0].rate", "40mbit".into()).unwrap();
        let s = from_document(&doc, "t.toml", None).unwrap();
        assert_eq!(s.links[0].rate.bps(), 40_000_000);
        let doc = set("flow[0].cc", "reno".into()).unwrap();
        assert_eq!(from_document(&doc, "t.toml", None).unwrap().flows[0].cc.name(), "reno");
        let doc = set("seed", Value::Integer(9)).unwrap();
        assert_eq!(from_document(&doc, "t.toml", None).unwrap().seed, 9);
        let doc = set("link[0].queue", "droptail:packets=20".into()).unwrap();
        assert!(from_document(&doc, "t.toml", None).is_ok());
        let doc = set("controllers[0]", "drwa".into()).unwrap();
        assert_eq!(from_document(&doc, "t.toml", None).unwrap().controllers[0].label, "drwa");
    }

    #[test]
    fn bad_values_get_the_validation_message_of_the_field() {
        let e = scenario_error("link[0].rate", "fast".into());
        assert!(e.starts_with("t.toml: link[0].rate: cannot read \"fast\""), "{e}");
        let e = scenario_error("flow[0].cc", "vegas9".into());
        assert!(e.starts_with("t.toml: flow[0].cc: "), "{e}");
        let e = scenario_error("link[0].rat", "1mbit".into());
        assert!(e.contains("link[0].rat: unknown key; did you mean \"rate\"?"), "{e}");
    }

    #[test]
    fn paths_outside_the_document_are_named() {
        let e = set("link[1].rate", "1mbit".into()).unwrap_err();
        assert_eq!(e, "t.toml: link[1]: no such entry: link has 1 entry");
        // A missing table on the way is created; validation then names it.
        let e = scenario_error("flow[0].cc.x", "1".into());
        assert!(e.starts_with("t.toml: flow[0].cc: "), "{e}");
        let e = set("duration.x", Value::Integer(1)).unwrap_err();
        assert_eq!(e, "t.toml: duration.x: duration is a string, not a table");
        let e = set("duration[0]", Value::Integer(1)).unwrap_err();
        assert_eq!(e, "t.toml: duration[0]: duration is a string, not an array");
        let e = set("nothing[0]", Value::Integer(1)).unwrap_err();
        assert_eq!(e, "t.toml: nothing[0]: no such entry: the scenario has no nothing");
        for bad in ["", "link[", "link[x].rate", "link[0]x", ".rate", "link..rate", "[0]"] {
            let e = set(bad, Value::Integer(1)).unwrap_err();
            assert!(e.contains("cannot read the field name"), "{bad:?}: {e}");
        }
    }
}
