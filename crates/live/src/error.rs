//! The agent's one error type.

use rtac_core::ControllerError;
use std::fmt;
use std::io;

/// What went wrong, for `rtac run`, `rtac get`, the Rust API and the C ABI.
#[derive(Debug)]
pub enum AgentError {
    /// An unknown controller, parameter or bad value.
    Controller(ControllerError),
    /// Bad input on the command line or in the environment.
    Usage(String),
    /// The descriptor is not a TCP socket (IPv4 or IPv6).
    NotTcp,
    /// The descriptor now refers to another file than the one attached
    /// (it was closed and its number reused).
    Replaced,
    /// A system call on the socket failed.
    Sys { call: &'static str, err: io::Error },
    /// A file or network operation of `rtac get` or `rtac run` failed.
    Io { what: String, err: io::Error },
    /// The program given to `rtac run` could not be started.
    Exec { program: String, err: io::Error },
    /// A download failed: an HTTP error status or a malformed response.
    Http(String),
    /// A test-bed step failed (namespaces, qdiscs, helper programs).
    TestBed(String),
    /// Code inside the agent panicked; the panic was caught.
    Panicked,
}

impl AgentError {
    pub fn sys(call: &'static str) -> impl FnOnce(io::Error) -> AgentError {
        move |err| AgentError::Sys { call, err }
    }

    pub fn io(what: impl Into<String>) -> impl FnOnce(io::Error) -> AgentError {
        let what = what.into();
        move |err| AgentError::Io { what, err }
    }

    /// The exit status a command should end with: 2 for bad input (before
    /// anything ran), 127 when the program was not found, 126 when it could
    /// not be executed, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            AgentError::Controller(_) | AgentError::Usage(_) => 2,
            AgentError::Exec { err, .. } if err.kind() == io::ErrorKind::NotFound => 127,
            AgentError::Exec { .. } => 126,
            _ => 1,
        }
    }
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentError::Controller(e) => write!(f, "{e}"),
            AgentError::Usage(m) => f.write_str(m),
            AgentError::NotTcp => f.write_str("not a TCP socket"),
            AgentError::Replaced => f.write_str("the descriptor was closed and now refers to another file"),
            AgentError::Sys { call, err } => write!(f, "{call} failed: {err}"),
            AgentError::Io { what, err } => write!(f, "{what}: {err}"),
            AgentError::Exec { program, err } => write!(f, "cannot run {program:?}: {err}"),
            AgentError::Http(m) => f.write_str(m),
            AgentError::TestBed(m) => write!(f, "test bed: {m}"),
            AgentError::Panicked => f.write_str("internal error (a panic was caught)"),
        }
    }
}

impl std::error::Error for AgentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AgentError::Controller(e) => Some(e),
            AgentError::Sys { err, .. } | AgentError::Io { err, .. } | AgentError::Exec { err, .. } => Some(err),
            _ => None,
        }
    }
}

impl From<ControllerError> for AgentError {
    fn from(e: ControllerError) -> Self {
        AgentError::Controller(e)
    }
}
