//! What to run on a socket: the controller, its parameters, how the clamp
//! is kept in force, and where to log. `rtac run` passes it to the shim in
//! environment variables; both sides parse it here.

use crate::error::AgentError;
use crate::sys;
use rtac_core::controller::{AnyController, ControllerKind, Params};
use rtac_core::time::Instant;
use rtac_core::units::parse_bytes;
use rtac_core::DEFAULT_MSS;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// The controller's name (`rtac`, `drwa`, ...).
pub const ENV_CONTROLLER: &str = "RTAC_CONTROLLER";
/// Its parameters, `key=value` items separated by commas.
pub const ENV_PARAMS: &str = "RTAC_PARAMS";
/// The clamp mode: `reapply`, `lock` or `lock:SIZE`.
pub const ENV_CLAMP: &str = "RTAC_CLAMP";
/// The log file; `.jsonl` or `.json` selects JSON lines, anything else CSV.
pub const ENV_LOG: &str = "RTAC_LOG";
/// CLOCK_MONOTONIC nanoseconds of the run's start: the log's time origin,
/// shared by every process of one `rtac run`.
pub const ENV_T0: &str = "RTAC_T0_NS";
/// A file to which the shim appends one line (`pid<TAB>fd<TAB>peer`) per
/// socket it starts controlling, for `rtac run`'s closing summary. `rtac
/// run` creates it in a private directory; the shim only appends to it.
pub const ENV_SUMMARY: &str = "RTAC_SUMMARY";

/// How the controller's window stays in force against receive
/// auto-tuning, which raises TCP_WINDOW_CLAMP whenever it grows the
/// receive buffer (tcp_rcvbuf_grow).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClampMode {
    /// Set TCP_WINDOW_CLAMP again at every control step (once per RTT).
    /// Auto-tuning keeps sizing the buffer; between two steps it may raise
    /// the clamp for less than one RTT. The default.
    #[default]
    Reapply,
    /// Fix SO_RCVBUF at `rcvbuf` bytes (the kernel doubles it and caps it at
    /// net.core.rmem_max), which turns auto-tuning off for the socket, and
    /// set the clamp only when the controller changes it.
    Lock { rcvbuf: u64 },
}

impl ClampMode {
    /// The SO_RCVBUF value `lock` uses: 4 MiB (the kernel caps it at
    /// net.core.rmem_max and doubles it).
    pub const DEFAULT_LOCK_RCVBUF: u64 = 4 << 20;
}

impl fmt::Display for ClampMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClampMode::Reapply => f.write_str("reapply"),
            ClampMode::Lock { rcvbuf } => write!(f, "lock:{rcvbuf}"),
        }
    }
}

impl FromStr for ClampMode {
    type Err = AgentError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || {
            AgentError::Usage(format!(
                "clamp mode {:?}: expected reapply, lock or lock:SIZE (such as lock:4MB)",
                rtac_core::units::clip(s)
            ))
        };
        match s.trim() {
            "reapply" => Ok(ClampMode::Reapply),
            "lock" => Ok(ClampMode::Lock { rcvbuf: ClampMode::DEFAULT_LOCK_RCVBUF }),
            other => {
                let size = other.strip_prefix("lock:").ok_or_else(bad)?;
                match parse_bytes(size) {
                    Ok(b) if b > 0 => Ok(ClampMode::Lock { rcvbuf: b }),
                    _ => Err(bad()),
                }
            }
        }
    }
}

/// A validated agent configuration.
#[derive(Clone, Debug)]
pub struct AgentConfig {
    pub kind: ControllerKind,
    pub params: Params,
    pub clamp: ClampMode,
    pub log: Option<PathBuf>,
    /// The log's time origin.
    pub t0: Instant,
}

impl AgentConfig {
    /// Parses and validates `controller` with `params`, each a `key=value`
    /// item or a comma-separated list of them. `controller` may carry a
    /// list itself, as `rtac sim` takes it: `rtac:k=3e-7,delta=18ms`.
    /// Unknown controllers, unknown keys and bad values are errors, checked
    /// by building the controller.
    pub fn new<S: AsRef<str>>(controller: &str, params: &[S]) -> Result<Self, AgentError> {
        let (name, inline) = controller.split_once(':').unwrap_or((controller, ""));
        let kind: ControllerKind = name.trim().parse()?;
        let mut p = Params::new();
        for item in std::iter::once(inline).chain(params.iter().map(AsRef::as_ref)) {
            for kv in item.split(',').map(str::trim).filter(|i| !i.is_empty()) {
                p.insert_kv(kv)?;
            }
        }
        let cfg = AgentConfig { kind, params: p, clamp: ClampMode::default(), log: None, t0: sys::now() };
        cfg.controller(DEFAULT_MSS)?;
        Ok(cfg)
    }

    /// A fresh controller for a connection with segment size `mss`.
    pub fn controller(&self, mss: u32) -> Result<AnyController, AgentError> {
        Ok(AnyController::new(self.kind, mss, &self.params)?)
    }

    /// The parameters as one `k=v,k=v` list.
    pub fn params_list(&self) -> String {
        self.params.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")
    }

    /// The environment variables that carry this configuration to the shim.
    pub fn to_env(&self) -> Vec<(&'static str, String)> {
        let mut env = vec![
            (ENV_CONTROLLER, self.kind.name().to_string()),
            (ENV_PARAMS, self.params_list()),
            (ENV_CLAMP, self.clamp.to_string()),
            (ENV_T0, self.t0.as_nanos().to_string()),
        ];
        if let Some(log) = &self.log {
            env.push((ENV_LOG, log.display().to_string()));
        }
        env
    }

    /// Reads the configuration `to_env` wrote, through `get` (the process
    /// environment in the shim). `Ok(None)` when no controller is set.
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, AgentError> {
        let Some(name) = get(ENV_CONTROLLER).filter(|n| !n.trim().is_empty()) else {
            return Ok(None);
        };
        let params = get(ENV_PARAMS).unwrap_or_default();
        let mut cfg = AgentConfig::new(&name, &[params])?;
        if let Some(c) = get(ENV_CLAMP).filter(|c| !c.trim().is_empty()) {
            cfg.clamp = c.parse()?;
        }
        cfg.log = get(ENV_LOG).filter(|l| !l.is_empty()).map(PathBuf::from);
        if let Some(t0) = get(ENV_T0) {
            let ns =
                t0.trim().parse::<u64>().map_err(|_| AgentError::Usage(format!("{ENV_T0}={t0:?} is not a number")))?;
            cfg.t0 = Instant::from_nanos(ns);
        }
        Ok(Some(cfg))
    }

    /// `from_vars` on the process environment; `Ok(None)` in a process
    /// the loader runs in secure-execution mode ([`secure_execution`]),
    /// whose environment was chosen by a less privileged user.
    pub fn from_env() -> Result<Option<Self>, AgentError> {
        if secure_execution() {
            return Ok(None);
        }
        Self::from_vars(|k| std::env::var(k).ok())
    }
}

/// Whether this process runs in secure-execution mode: getauxval(AT_SECURE)
/// is non-zero after executing a set-user-ID or set-group-ID program, or
/// one with file capabilities, that changed the process's privileges. Its
/// environment then comes from a less privileged user: the shim reads none
/// of it (no path, no controller) and stays off.
pub fn secure_execution() -> bool {
    // SAFETY: getauxval only reads the auxiliary vector.
    unsafe { libc::getauxval(libc::AT_SECURE) != 0 }
}

/// The summary file `rtac run` named in [`ENV_SUMMARY`]; none in
/// secure-execution mode.
pub fn summary_from_env() -> Option<PathBuf> {
    if secure_execution() {
        return None;
    }
    std::env::var_os(ENV_SUMMARY).filter(|s| !s.is_empty()).map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn new_validates_controller_and_parameters() {
        let c = AgentConfig::new("rtac", &["bdp=20", "delta=1ms,beta=0.25"]).unwrap();
        assert_eq!(c.kind, ControllerKind::Rtac);
        assert_eq!(c.params_list(), "bdp=20,delta=1ms,beta=0.25");
        assert!(matches!(AgentConfig::new("cubic", &[] as &[&str]), Err(AgentError::Controller(_))));
        let e = AgentConfig::new("rtac", &["lambda=3"]).unwrap_err();
        assert!(e.to_string().contains("lambda"), "{e}");
        assert_eq!(e.exit_code(), 2);
        assert!(AgentConfig::new("drwa", &["lambda=x"]).is_err());
        assert!(AgentConfig::new("none", &["k=1"]).is_err());
        assert!(AgentConfig::new("rtac", &["novalue"]).is_err());
        // The form `rtac sim` takes: parameters after a colon, then -p's.
        let c = AgentConfig::new("rtac:k=3e-7,delta=18ms", &["beta=0.25"]).unwrap();
        assert_eq!((c.kind, c.params_list().as_str()), (ControllerKind::Rtac, "k=3e-7,delta=18ms,beta=0.25"));
        assert!(AgentConfig::new("rtac:lambda=3", &[] as &[&str]).is_err());
        assert!(AgentConfig::new("cubic:k=1", &[] as &[&str]).is_err());
    }

    #[test]
    fn env_round_trip() {
        let mut c = AgentConfig::new("drwa", &["lambda=2"]).unwrap();
        c.clamp = ClampMode::Lock { rcvbuf: 1 << 20 };
        c.log = Some(PathBuf::from("/tmp/x.csv"));
        let env: HashMap<_, _> = c.to_env().into_iter().collect();
        let back = AgentConfig::from_vars(|k| env.get(k).cloned()).unwrap().unwrap();
        assert_eq!(back.kind, ControllerKind::Drwa);
        assert_eq!(back.params, c.params);
        assert_eq!(back.clamp, c.clamp);
        assert_eq!(back.log, c.log);
        assert_eq!(back.t0, c.t0);
        assert!(AgentConfig::from_vars(|_| None).unwrap().is_none());
        assert!(AgentConfig::from_vars(|k| (k == ENV_CONTROLLER).then(|| "bogus".to_string())).is_err());
    }

    #[test]
    fn clamp_modes_parse() {
        assert_eq!("reapply".parse::<ClampMode>().unwrap(), ClampMode::Reapply);
        assert_eq!("lock".parse::<ClampMode>().unwrap(), ClampMode::Lock { rcvbuf: 4 << 20 });
        assert_eq!("lock:2MB".parse::<ClampMode>().unwrap(), ClampMode::Lock { rcvbuf: 2 << 20 });
        assert_eq!(
            ClampMode::Lock { rcvbuf: 5 }.to_string().parse::<ClampMode>().unwrap(),
            ClampMode::Lock { rcvbuf: 5 }
        );
        assert!("lock:0".parse::<ClampMode>().is_err());
        assert!("sometimes".parse::<ClampMode>().is_err());
    }
}
