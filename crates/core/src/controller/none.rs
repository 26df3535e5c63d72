//! `none`: the receive window never limits the sender; only the receive
//! buffer would.

use super::{Controller, ControllerState};
use crate::time::{Duration, Instant};

/// Sets no limit: `rwnd()` is always `None`.
#[derive(Clone, Debug, Default)]
pub struct NoLimit;

impl Controller for NoLimit {
    fn on_rtt_sample(&mut self, _now: Instant, _rtt: Duration) {}
    fn on_data_consumed(&mut self, _now: Instant, _bytes: u64) {}
    fn rwnd(&self) -> Option<u64> {
        None
    }
    fn state(&self) -> ControllerState {
        ControllerState::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_limit_never_advertises_a_window() {
        let mut c = NoLimit;
        c.on_rtt_sample(Instant::from_millis(1), Duration::from_millis(50));
        c.on_data_consumed(Instant::from_millis(2), 1_000_000);
        assert_eq!(c.rwnd(), None);
        assert_eq!(c.state(), ControllerState::default());
    }
}

/// Choosing controllers by name (`ControllerKind`, `AnyController`).
#[cfg(test)]
mod kind_tests {
    use crate::controller::{AnyController, Controller, ControllerError, ControllerKind, Params};

    #[test]
    fn kind_names_round_trip_through_from_str() {
        for k in ControllerKind::ALL {
            assert_eq!(k.name().parse::<ControllerKind>(), Ok(k));
            assert_eq!(k.to_string(), k.name());
        }
    }

    #[test]
    fn unknown_controller_name_error_lists_every_known_name() {
        let e = "reno".parse::<ControllerKind>().unwrap_err();
        assert_eq!(e, ControllerError::UnknownController("reno".into()));
        let msg = e.to_string();
        for k in ControllerKind::ALL {
            assert!(msg.contains(k.name()), "{msg} lacks {k}");
        }
    }

    #[test]
    fn every_kind_builds_with_its_defaults() {
        for k in ControllerKind::ALL {
            let c = AnyController::new(k, 1448, &Params::new()).unwrap();
            assert_eq!(c.kind(), k);
            assert_eq!(c.rwnd().is_none(), k == ControllerKind::None);
        }
    }

    #[test]
    fn none_rejects_any_parameter() {
        let p = Params::parse_list("rmem_max=64KB").unwrap();
        let e = AnyController::new(ControllerKind::None, 1448, &p).unwrap_err();
        assert!(matches!(e, ControllerError::UnknownParam { key, .. } if key == "rmem_max"));
    }
}
