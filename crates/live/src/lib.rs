//! rtac-live: receiver-side window controllers on live Linux TCP sockets.
//!
//! This is the library that goes into other processes: it depends on
//! `rtac-core` and libc only. The controllers of `rtac-core` are pure
//! code; this crate gives them a socket. [`SocketDriver`] counts the bytes
//! a program reads and, once per RTT estimate, reads TCP_INFO, feeds the
//! controller and applies its window with TCP_WINDOW_CLAMP. On top of it:
//!
//! - [`shim`]: the engine of the LD_PRELOAD library (`crates/preload`);
//! - [`stream`]: [`ControlledStream`], a `Read` wrapper;
//! - [`capi`]: the C ABI (`include/rtac.h`, `librtac_live.so`);
//! - [`log`]: the per-step log and its reader;
//! - [`group`], [`route`]: sockets grouped by access link (the kernel's
//!   route to the peer, over rtnetlink), one window budget per group;
//! - [`safefs`]: files opened without following links or blocking on FIFOs.
//!
//! Time comes from CLOCK_MONOTONIC as `rtac_core::Instant`, the type the
//! simulator uses.

pub mod bpf;
pub mod capi;
pub mod config;
pub mod driver;
pub mod error;
pub mod group;
pub mod log;
pub mod route;
pub mod safefs;
pub mod shim;
pub mod step;
pub mod stream;
pub mod sys;

pub use config::{AgentConfig, ClampMode};
pub use driver::{SocketDriver, StepReport};
pub use error::AgentError;
pub use stream::ControlledStream;
