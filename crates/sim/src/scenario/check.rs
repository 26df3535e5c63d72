//! Warnings for a valid scenario whose settings are physically absurd or
//! outside what the model was made for. The run goes on; the caller
//! prints them (`rtac: warning: ...`).

use super::Scenario;
use rtac_core::{Bandwidth, Duration};

/// Longest simulated time that passes without a warning.
const LONG_RUN: Duration = Duration::from_secs(24 * 3600);
/// Fastest link rate that passes without a warning (1 Tbit/s).
const FAST_LINK: Bandwidth = Bandwidth::from_bps(1_000_000_000_000);
/// Longest one-way delay that passes without a warning (geostationary
/// satellites give 0.25 s; 10 s is beyond any terrestrial or space path).
const LONG_DELAY: Duration = Duration::from_secs(10);

/// A duration for a reader: `584.5 years`, `3.0 days`, `12 ms`.
fn human(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 365.25 * 86400.0 {
        format!("{:.1} years", s / (365.25 * 86400.0))
    } else if s >= 86400.0 {
        format!("{:.1} days", s / 86400.0)
    } else if s >= 1.0 {
        format!("{s} s")
    } else {
        format!("{} ns", d.as_nanos())
    }
}

/// Every warning for `s`, in the order of the file's fields.
pub fn warnings(s: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    if s.duration > LONG_RUN {
        out.push(format!(
            "duration: {} of simulated time is longer than a day; the run takes about as many events per \
             simulated second as a short one, so it may not finish in a useful time",
            human(s.duration)
        ));
    }
    // The state a sample reads changes only when a packet starts or ends
    // on a link: sampling faster than the fastest link sends one packet
    // repeats the same values.
    let packet = u64::from(s.mss) + 52;
    if let Some(fastest) = s.links.iter().map(|l| l.rate).max() {
        let tx = fastest.serialization(packet);
        if s.sample_interval < tx {
            out.push(format!(
                "sample_interval: {} is shorter than the {} ns the fastest link ({fastest}) takes to send one \
                 packet; consecutive samples repeat the same values",
                human(s.sample_interval),
                tx.as_nanos()
            ));
        }
    }
    for (i, l) in s.links.iter().enumerate() {
        if l.rate > FAST_LINK {
            out.push(format!("link[{i}].rate: {} is faster than 1 Tbit/s, faster than any access link", l.rate));
        }
        if l.delay > LONG_DELAY {
            out.push(format!(
                "link[{i}].delay: {} one way is longer than 10 s, longer than any real network path",
                human(l.delay)
            ));
        }
    }
    for c in &s.controllers {
        for w in c.params.warnings(c.kind.name()) {
            out.push(format!("run {}: {w}", c.label));
        }
    }
    for (i, f) in s.flows.iter().enumerate() {
        if let Some(c) = &f.controller {
            for w in c.params.warnings(c.kind.name()) {
                out.push(format!("flow[{i}].controller: {w}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse_str;

    fn warn(text: &str) -> Vec<String> {
        warnings(&parse_str(text, "t.toml").expect("a valid scenario"))
    }

    const LINK: &str = "[[link]]\nrate = \"10mbit\"\ndelay = \"10ms\"\n[[flow]]\n";

    #[test]
    fn an_ordinary_scenario_has_no_warning() {
        assert!(warn(&format!("duration = \"30s\"\n{LINK}")).is_empty());
    }

    #[test]
    fn absurd_but_valid_settings_warn_naming_the_field() {
        let w = warn(&format!("duration = \"18446744073s\"\nsample_interval = \"1ns\"\n{LINK}"));
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].starts_with("duration: 584.") && w[0].contains("years"), "{}", w[0]);
        assert!(w[1].starts_with("sample_interval: 1 ns") && w[1].contains("1200000 ns"), "{}", w[1]);
        let w = warn(
            "duration = \"1s\"\ncontrollers = [{ controller = \"drwa\", params = { lambda = 1e300 } }]\n\
             [[link]]\nrate = \"2000gbit\"\ndelay = \"1min\"\n[[flow]]\n",
        );
        let fields: Vec<&str> = w.iter().map(|w| w.split(':').next().unwrap()).collect();
        assert_eq!(fields, ["link[0].rate", "link[0].delay", "run drwa"], "{w:?}");
    }
}
