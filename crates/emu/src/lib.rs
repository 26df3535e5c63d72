//! rtac-emu: a trace-driven link emulator for real Linux TCP.
//!
//! `rtac emu` joins a server network namespace and a client network
//! namespace through a user-space forwarder. Per direction, the forwarder
//! runs the simulator's own models (`rtac-netmodel`): random loss, a queue
//! discipline (shared, or one per flow), a link server (a fixed rate or a
//! Mahimahi trace) and a propagation delay. `rtac plot` turns the
//! per-packet log into throughput-vs-capacity and delay plots.
//!
//! | module | what it holds |
//! |---|---|
//! | [`args`] | `EmuArgs` (clap) and the validated [`args::Config`] |
//! | [`run`] | `emu_main`: testbed, threads, commands, teardown, summary |
//! | [`engine`] | one direction as pure code (time is a parameter) |
//! | [`queue`] | shared or per-flow (round-robin) queues |
//! | [`forward`] | the forwarding thread: batched I/O, precise sleeps |
//! | [`testbed`] | namespaces, veth/TUN devices, registry, cleanup, spawning |
//! | [`frame`] | frames, 5-tuple parsing and flow keys |
//! | [`log`] | the per-packet log: writer and reader |
//! | [`plot`] | `plot_main`: log analysis, summary and charts |
//! | [`rtt`] | the senders' RTT samples, from both directions' logs |
//! | [`sys`] | the system calls (the only `unsafe` code) |

pub mod args;
pub mod engine;
pub mod forward;
pub mod frame;
pub mod hist;
pub mod log;
pub mod plot;
pub mod queue;
pub mod rtt;
pub mod run;
pub mod sys;
pub mod testbed;

pub use args::EmuArgs;
pub use plot::{plot_main, PlotArgs};
pub use run::emu_main;

use std::fmt;

/// Why `rtac emu` or `rtac plot` failed. The message says what to do.
#[derive(Debug)]
pub enum EmuError {
    /// A bad option value (a malformed trace, a bad queue spec, ...).
    Usage(String),
    /// The process lacks a capability the emulator needs.
    Privileges(String),
    /// Creating namespaces, devices or sockets failed.
    Setup(String),
    /// Reading or writing a file, starting a command, forwarding.
    Io(String),
}

impl EmuError {
    /// The process exit code for this error: 2 for usage errors, 1
    /// otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            EmuError::Usage(_) => 2,
            _ => 1,
        }
    }
}

impl fmt::Display for EmuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmuError::Usage(m) | EmuError::Privileges(m) | EmuError::Setup(m) | EmuError::Io(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for EmuError {}
