//! rtac-agent: the commands and test beds around the live-socket library
//! (`rtac-live`), kept out of it so that what goes into other processes
//! carries only what it needs.
//!
//! - [`run`]: `rtac run --controller NAME -- CMD...`;
//! - [`daemon`]: `rtac daemon`, the BPF mode for a whole cgroup;
//! - [`supervise`]: signals, the child process, the BPF session and its teardown;
//! - [`get`]: `rtac get URL`, a downloader with a live progress bar;
//! - [`plot`]: charts of the per-step log;
//! - [`testbed`]: network namespaces with a bloated bottleneck, for the
//!   integration tests and `rtac-dev experiment`.

pub mod daemon;
pub mod get;
pub mod plot;
pub mod preload_lib;
pub mod run;
pub mod supervise;
pub mod testbed;

pub use daemon::{daemon_main, DaemonArgs};
pub use get::{get_main, GetArgs};
pub use rtac_live::{log, sys, AgentConfig, AgentError, ClampMode, ControlledStream, SocketDriver, StepReport};
pub use run::{run_main, RunArgs};
