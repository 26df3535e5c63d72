//! rtac-agent: receiver-side window controllers on live Linux TCP sockets.
//!
//! The controllers of `rtac-core` are pure code; this crate gives them a
//! socket. [`SocketDriver`] counts the bytes a program reads and, once per
//! RTT estimate, reads TCP_INFO, feeds the controller and applies its
//! window with TCP_WINDOW_CLAMP. On top of it:
//!
//! - [`shim`]: the engine of the LD_PRELOAD library (`crates/preload`) that
//!   `rtac run` loads into unmodified programs;
//! - [`run`]: `rtac run --controller NAME -- CMD...`;
//! - [`get`]: `rtac get URL`, a downloader with a live progress bar;
//! - [`capi`]: the C ABI (`include/rtac.h`, `librtac_agent.so`);
//! - [`log`] and [`plot`]: the per-step log, its reader and its charts;
//! - [`testbed`]: network namespaces with a bloated bottleneck, for the
//!   integration tests and `rtac-dev experiment`.
//!
//! Time comes from CLOCK_MONOTONIC as `rtac_core::Instant`, the type the
//! simulator uses.

pub mod capi;
pub mod config;
pub mod driver;
pub mod error;
pub mod get;
pub mod log;
pub mod plot;
pub mod run;
pub mod shim;
pub mod stream;
pub mod sys;
pub mod testbed;

pub use config::{AgentConfig, ClampMode};
pub use driver::{SocketDriver, StepReport};
pub use error::AgentError;
pub use get::{get_main, GetArgs};
pub use run::{run_main, RunArgs};
pub use stream::ControlledStream;
