//! `key=value` parameters for controllers, and the errors they give.

use crate::time::Duration;
use crate::units::{clip, parse_bytes, parse_duration};
use std::fmt;

/// Controller parameters as written by a user: `k=3e-7`, `delta=18ms`.
/// Kept in the order given; a key given twice is an error.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    pairs: Vec<(String, String)>,
}

impl Params {
    pub fn new() -> Self {
        Params::default()
    }

    /// Adds one `key`/`value` pair.
    pub fn insert(&mut self, key: &str, value: &str) -> Result<(), ControllerError> {
        if self.pairs.iter().any(|(k, _)| k == key) {
            return Err(ControllerError::DuplicateParam(key.to_string()));
        }
        self.pairs.push((key.to_string(), value.to_string()));
        Ok(())
    }

    /// Parses one `key=value` item.
    pub fn insert_kv(&mut self, item: &str) -> Result<(), ControllerError> {
        let (k, v) = item.split_once('=').ok_or_else(|| ControllerError::Malformed(item.to_string()))?;
        let (k, v) = (k.trim(), v.trim());
        if k.is_empty() || v.is_empty() {
            return Err(ControllerError::Malformed(item.to_string()));
        }
        self.insert(k, v)
    }

    /// Parses a comma-separated `key=value,key=value` list.
    pub fn parse_list(s: &str) -> Result<Self, ControllerError> {
        let mut p = Params::new();
        for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            p.insert_kv(item)?;
        }
        Ok(p)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Errors on the first key, for a controller that takes none.
    pub fn reject_all(&self, controller: &'static str) -> Result<(), ControllerError> {
        match self.pairs.first() {
            None => Ok(()),
            Some((k, _)) => Err(ControllerError::UnknownParam { controller, key: k.clone(), known: &[] }),
        }
    }
}

impl Params {
    /// Warnings for values that are valid but outside the range where
    /// `controller`'s model makes physical sense, from [`PLAUSIBLE`].
    /// Values that do not parse give no warning: they are errors of the
    /// controller's own validation.
    pub fn warnings(&self, controller: &str) -> Vec<ParamWarning> {
        let mut out = Vec::new();
        for (key, value) in self.iter() {
            for p in PLAUSIBLE.iter().filter(|p| p.key == key && (p.controller == "*" || p.controller == controller)) {
                let v = match p.unit {
                    Unit::Number => value.parse::<f64>().ok(),
                    Unit::Seconds => parse_duration(value).ok().map(|d| d.as_secs_f64()),
                    Unit::Bytes => parse_bytes(value).ok().map(|b| b as f64),
                };
                if v.is_some_and(|v| !(p.low..=p.high).contains(&v)) {
                    out.push(ParamWarning {
                        controller: controller.to_string(),
                        key: key.to_string(),
                        value: crate::units::clip(value),
                        range: p,
                    });
                }
            }
        }
        out
    }
}

/// How a parameter's value is read for its plausibility check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A plain number (`3e-7`).
    Number,
    /// A duration (`18ms`), compared in seconds.
    Seconds,
    /// A size (`2560KB`), compared in bytes.
    Bytes,
}

/// The range where a parameter's value makes physical sense. Outside it
/// the value is accepted, with a warning naming `why`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plausible {
    /// A controller name, or `*` for every controller taking the key.
    pub controller: &'static str,
    pub key: &'static str,
    pub unit: Unit,
    pub low: f64,
    pub high: f64,
    pub why: &'static str,
}

/// Plausible ranges of controller parameters. A controller adds its own
/// here, such as `Plausible { controller: "rtac", key: "k", unit: Unit::Number,
/// low: .., high: .., why: ".." }`.
pub const PLAUSIBLE: &[Plausible] = &[
    Plausible {
        controller: "*",
        key: "rmem_max",
        unit: Unit::Bytes,
        low: 1448.0,
        high: (1u64 << 31) as f64,
        why: "a receive buffer from one segment to Linux's largest window (2 GB)",
    },
    Plausible {
        controller: "*",
        key: "init_rwnd",
        unit: Unit::Bytes,
        low: 1448.0,
        high: (1u64 << 31) as f64,
        why: "a window from one segment to Linux's largest window (2 GB)",
    },
    Plausible {
        controller: "*",
        key: "delta",
        unit: Unit::Seconds,
        low: 0.0,
        high: 10.0,
        why: "a delay up to 10 s, longer than any RTT a bloated buffer gives",
    },
    Plausible {
        controller: "drwa",
        key: "lambda",
        unit: Unit::Number,
        low: 1.0,
        high: 100.0,
        why: "a multiple of the RTT ratio from 1 to 100 (DRWA uses 3)",
    },
];

/// A valid value outside its [`Plausible`] range.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamWarning {
    pub controller: String,
    pub key: String,
    /// As written, cut to 60 characters.
    pub value: String,
    pub range: &'static Plausible,
}

impl fmt::Display for ParamWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.range;
        let unit = match p.unit {
            Unit::Number => "",
            Unit::Seconds => " s",
            Unit::Bytes => " B",
        };
        write!(
            f,
            "controller {}: {}={} is outside {}..={}{unit}, {}; the run goes on with it",
            self.controller, self.key, self.value, p.low, p.high, p.why
        )
    }
}

impl Params {
    /// The pairs as [`Param`]s of `controller`, for its `from_params`.
    pub(crate) fn of(&self, controller: &'static str) -> impl Iterator<Item = Param<'_>> {
        self.iter().map(move |(key, value)| Param { controller, key, value })
    }
}

/// One `key=value` pair being applied to `controller`, with the readers
/// that turn its value into a number or an error naming the key.
pub(crate) struct Param<'a> {
    controller: &'static str,
    pub key: &'a str,
    value: &'a str,
}

impl Param<'_> {
    /// The error for a key `controller` does not take; `known` lists its keys.
    pub fn unknown(&self, known: &'static [&'static str]) -> ControllerError {
        ControllerError::UnknownParam { controller: self.controller, key: self.key.to_string(), known }
    }

    /// The error for a value that is not `expected`.
    pub fn bad(&self, expected: &'static str) -> ControllerError {
        ControllerError::BadValue {
            controller: self.controller,
            key: self.key.to_string(),
            value: self.value.to_string(),
            expected,
        }
    }

    /// A finite float (`3`, `0.125`, `3e-7`) for which `valid` holds.
    pub fn f64(&self, expected: &'static str, valid: fn(f64) -> bool) -> Result<f64, ControllerError> {
        match self.value.parse::<f64>() {
            Ok(v) if v.is_finite() && valid(v) => Ok(v),
            _ => Err(self.bad(expected)),
        }
    }

    /// One of `options`, as written.
    pub fn choice(&self, options: &[&'static str], expected: &'static str) -> Result<&'static str, ControllerError> {
        options.iter().copied().find(|o| *o == self.value).ok_or_else(|| self.bad(expected))
    }

    /// A duration such as `18ms`.
    pub fn duration(&self) -> Result<Duration, ControllerError> {
        parse_duration(self.value).map_err(|e| self.bad(e.expected))
    }

    /// A positive size in bytes such as `2560KB`.
    pub fn bytes(&self) -> Result<u64, ControllerError> {
        match parse_bytes(self.value) {
            Ok(0) => Err(self.bad("a positive size in bytes such as 64KB")),
            Ok(b) => Ok(b),
            Err(e) => Err(self.bad(e.expected)),
        }
    }
}

/// What went wrong when choosing or configuring a controller.
#[derive(Clone, Debug, PartialEq)]
pub enum ControllerError {
    UnknownController(String),
    UnknownParam { controller: &'static str, key: String, known: &'static [&'static str] },
    BadValue { controller: &'static str, key: String, value: String, expected: &'static str },
    DuplicateParam(String),
    Malformed(String),
}

impl fmt::Display for ControllerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ControllerError::UnknownController(name) => {
                write!(
                    f,
                    "unknown controller {:?}; known controllers: none, static, autotuning, drwa, rtac, drw",
                    clip(name)
                )
            }
            ControllerError::UnknownParam { controller, key, known: [] } => {
                write!(f, "controller {controller} takes no parameters, got {:?}", clip(key))
            }
            ControllerError::UnknownParam { controller, key, known } => {
                write!(
                    f,
                    "controller {controller} has no parameter {:?}; its parameters: {}",
                    clip(key),
                    known.join(", ")
                )
            }
            ControllerError::BadValue { controller, key, value, expected } => {
                write!(f, "controller {controller}: parameter {key}={value:?} is invalid: expected {expected}")
            }
            ControllerError::DuplicateParam(key) => write!(f, "parameter {:?} given twice", clip(key)),
            ControllerError::Malformed(item) => write!(f, "parameter {:?} is not of the form key=value", clip(item)),
        }
    }
}

impl std::error::Error for ControllerError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implausible_values_warn_and_plausible_ones_do_not() {
        let p = Params::parse_list("lambda=1e9,delta=18ms,rmem_max=4GB").unwrap();
        let w = p.warnings("drwa");
        let keys: Vec<&str> = w.iter().map(|w| w.key.as_str()).collect();
        assert_eq!(keys, ["lambda", "rmem_max"]);
        assert!(w[0].to_string().starts_with("controller drwa: lambda=1e9 is outside 1..=100"), "{}", w[0]);
        // `lambda` is checked for drwa only; an unreadable value is left to validation.
        assert!(Params::parse_list("lambda=1e9,delta=soon").unwrap().warnings("rtac").is_empty());
        assert_eq!(Params::parse_list("delta=1h").unwrap().warnings("rtac").len(), 0, "1h does not parse");
        assert_eq!(Params::parse_list("delta=2min").unwrap().warnings("rtac").len(), 1);
    }
}
