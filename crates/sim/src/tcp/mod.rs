//! TCP endpoints: a SACK sender with pluggable congestion control and a
//! receiver whose advertised window comes from a receiver-side controller.

pub mod cc;
pub mod receiver;
pub mod sender;
