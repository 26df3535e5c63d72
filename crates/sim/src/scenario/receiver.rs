//! Receivers: the hosts at the end of the flows. Flows whose `receiver`
//! names the same host are that host's connections; a flow without the
//! field is a host of its own. The connections of one host run one
//! controller choice, and under a controller with a per-link form
//! (`rtac`'s window budget, `rtac_core::controller::LinkBudget`) they share
//! one budget in a run, wherever their paths go: the simulator's unit of
//! the budget is the receiver.

use super::{ControllerChoice, FlowSpec, Scenario};
use std::collections::BTreeMap;

/// The longest receiver name, in characters.
pub const MAX_NAME_CHARS: usize = 40;

/// A receiver with a name: its connections' flow ids, in flow order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    pub name: String,
    /// Flow ids (flows are numbered in the order of the `[[flow]]`
    /// entries, `count` ids per entry).
    pub flows: Vec<usize>,
    /// Indices of the `[[flow]]` entries that name it.
    pub entries: Vec<usize>,
}

/// Checks a receiver name: not blank, at most [`MAX_NAME_CHARS`]
/// characters, no control characters.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err("must not be empty: the name of the host whose connection this flow is".to_string());
    }
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        return Err(format!(
            "{:?} has {chars} characters, more than the {MAX_NAME_CHARS} a receiver name may have",
            rtac_core::units::clip(name)
        ));
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(format!(
            "{:?} holds the control character {:?}; use printable characters",
            rtac_core::units::clip(name),
            c
        ));
    }
    Ok(())
}

/// Whether two pinned controllers are the same choice: the same kind and
/// parameters, in any order (the label is only a name).
fn same_choice(a: &ControllerChoice, b: &ControllerChoice) -> bool {
    let sorted = |c: &ControllerChoice| {
        let mut p: Vec<(String, String)> = c.params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        p.sort();
        p
    };
    a.kind == b.kind && sorted(a) == sorted(b)
}

/// Checks that the connections of each receiver run the same controller:
/// all take the run's, or all pin the same one. The error is the field
/// (`flow[2].controller`) of the first entry that differs from its
/// receiver's first, and a message.
pub fn check_controllers(flows: &[FlowSpec]) -> Result<(), (String, String)> {
    let mut first_of: BTreeMap<&str, usize> = BTreeMap::new();
    for (j, f) in flows.iter().enumerate() {
        let Some(name) = &f.receiver else { continue };
        let i = *first_of.entry(name).or_insert(j);
        if i == j {
            continue;
        }
        let first = &flows[i];
        let field = format!("flow[{j}].controller");
        let why = "every connection of one receiver runs the same controller";
        let message = match (&first.controller, &f.controller) {
            (None, None) => continue,
            (Some(a), Some(b)) if same_choice(a, b) => continue,
            (Some(a), Some(b)) => format!(
                "{} differs from {} of flow[{i}], another connection of receiver {name:?}; {why}",
                describe(b),
                describe(a)
            ),
            (Some(a), None) => {
                format!("missing: flow[{i}], another connection of receiver {name:?}, pins {}; {why}", describe(a))
            }
            (None, Some(b)) => format!(
                "pins {} but flow[{i}], another connection of receiver {name:?}, takes the run's; {why}",
                describe(b)
            ),
        };
        return Err((field, message));
    }
    Ok(())
}

/// `rtac` or `rtac with budget=connection`, for messages.
fn describe(c: &ControllerChoice) -> String {
    if c.params.is_empty() {
        format!("{:?}", c.kind.name())
    } else {
        let p: Vec<String> = c.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{:?} with {}", c.kind.name(), p.join(", "))
    }
}

impl Scenario {
    /// The named receivers, in the order of their first `[[flow]]` entry.
    pub fn hosts(&self) -> Vec<Host> {
        let mut hosts: Vec<Host> = Vec::new();
        let mut by_name: BTreeMap<&str, usize> = BTreeMap::new();
        let mut id = 0usize;
        for (e, f) in self.flows.iter().enumerate() {
            let ids = id..id + f.count as usize;
            id = ids.end;
            let Some(name) = &f.receiver else { continue };
            match by_name.get(name.as_str()) {
                Some(&h) => {
                    hosts[h].flows.extend(ids);
                    hosts[h].entries.push(e);
                }
                None => {
                    by_name.insert(name, hosts.len());
                    hosts.push(Host { name: name.clone(), flows: ids.collect(), entries: vec![e] });
                }
            }
        }
        hosts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(check_name("host").is_ok());
        assert!(check_name("phone 2 (wlan0)").is_ok());
        assert!(check_name(&"é".repeat(40)).is_ok());
        assert!(check_name(&"é".repeat(41)).unwrap_err().contains("41 characters"));
        assert!(check_name("").unwrap_err().contains("empty"));
        assert!(check_name("  ").unwrap_err().contains("empty"));
        assert!(check_name("a\tb").unwrap_err().contains("control"));
    }
}
