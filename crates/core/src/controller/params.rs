//! `key=value` parameters for controllers, and the errors they give.

use crate::time::Duration;
use crate::units::{parse_bytes, parse_duration};
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
                write!(f, "unknown controller {name:?}; known controllers: none, static, autotuning, drwa, rtac, drw")
            }
            ControllerError::UnknownParam { controller, key, known: [] } => {
                write!(f, "controller {controller} takes no parameters, got {key:?}")
            }
            ControllerError::UnknownParam { controller, key, known } => {
                write!(f, "controller {controller} has no parameter {key:?}; its parameters: {}", known.join(", "))
            }
            ControllerError::BadValue { controller, key, value, expected } => {
                write!(f, "controller {controller}: parameter {key}={value:?} is invalid: expected {expected}")
            }
            ControllerError::DuplicateParam(key) => write!(f, "parameter {key:?} given twice"),
            ControllerError::Malformed(item) => write!(f, "parameter {item:?} is not of the form key=value"),
        }
    }
}

impl std::error::Error for ControllerError {}
