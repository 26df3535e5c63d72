//! `static`: a fixed clamp, the receive window a phone advertises when
//! tcp_rmem_max alone limits it (DRWA §4.1, "flat TCP").

use super::{Controller, ControllerError, ControllerState, Params};
use crate::time::{Duration, Instant};
use crate::DEFAULT_MSS;

const NAME: &str = "static";
const KEYS: &[&str] = &["rmem_max"];

/// Parameters of [`Static`].
#[derive(Clone, Debug, PartialEq)]
pub struct StaticParams {
    /// The window advertised, in bytes.
    pub rmem_max: u64,
}

impl Default for StaticParams {
    fn default() -> Self {
        StaticParams {
            rmem_max: 2_621_440, // tcp_rmem_max = 2,560 KB (RTAC Table I)
        }
    }
}

impl StaticParams {
    /// The defaults with every `key=value` of `p` applied.
    pub fn from_params(p: &Params) -> Result<Self, ControllerError> {
        let mut out = StaticParams::default();
        for kv in p.of(NAME) {
            match kv.key {
                "rmem_max" => out.rmem_max = kv.bytes()?,
                _ => return Err(kv.unknown(KEYS)),
            }
        }
        Ok(out)
    }
}

/// Always advertises `rmem_max`, floored at two segments of the papers'
/// MSS (this controller is built without the connection's MSS).
#[derive(Clone, Debug)]
pub struct Static {
    rwnd: u64,
}

impl Static {
    pub fn new(p: StaticParams) -> Self {
        Static { rwnd: p.rmem_max.max(2 * DEFAULT_MSS as u64) }
    }
}

impl Controller for Static {
    fn on_rtt_sample(&mut self, _now: Instant, _rtt: Duration) {}
    fn on_data_consumed(&mut self, _now: Instant, _bytes: u64) {}
    fn rwnd(&self) -> Option<u64> {
        Some(self.rwnd)
    }
    fn max_window(&self) -> Option<u64> {
        Some(self.rwnd)
    }

    fn state(&self) -> ControllerState {
        ControllerState::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_advertises_rmem_max_whatever_it_sees() {
        let mut c = Static::new(StaticParams::default());
        assert_eq!(c.rwnd(), Some(2_621_440));
        c.on_rtt_sample(Instant::from_millis(1), Duration::from_millis(500));
        c.on_data_consumed(Instant::from_millis(2), 10);
        assert_eq!(c.rwnd(), Some(2_621_440));
    }

    #[test]
    fn static_floors_at_two_segments() {
        assert_eq!(Static::new(StaticParams { rmem_max: 100 }).rwnd(), Some(2896));
    }

    #[test]
    fn static_params_parse_sizes_and_reject_unknown_keys() {
        let p = Params::parse_list("rmem_max=400KB").unwrap();
        assert_eq!(StaticParams::from_params(&p).unwrap().rmem_max, 409_600);
        let p = Params::parse_list("rmem=400KB").unwrap();
        assert!(matches!(StaticParams::from_params(&p),
            Err(ControllerError::UnknownParam { known, .. }) if known == KEYS));
        let p = Params::parse_list("rmem_max=lots").unwrap();
        assert!(matches!(StaticParams::from_params(&p),
            Err(ControllerError::BadValue { key, .. }) if key == "rmem_max"));
    }
}
