//! A link whose rate changes over time: a piecewise-constant capacity
//! profile, as an mmWave channel through line-of-sight and blocked phases.

use super::LinkServer;
use rtac_core::{Bandwidth, Duration, Instant};

/// Capacity as steps: `steps[i].1` holds from `steps[i].0` until the next
/// step's time; the last rate holds for ever. Times are offsets from the
/// link's origin. A zero rate is an outage.
#[derive(Clone, Debug, PartialEq)]
pub struct RateProfile {
    steps: Vec<(Duration, Bandwidth)>,
}

/// Why a profile was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProfileError {
    Empty,
    /// Step `index` (0-based) is not later than the one before it.
    NotIncreasing {
        index: usize,
    },
    /// The profile ends in an outage: packets would wait for ever.
    EndsAtZero,
}

impl std::fmt::Display for ProfileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProfileError::Empty => write!(f, "a rate profile needs at least one step"),
            ProfileError::NotIncreasing { index } => {
                write!(f, "step {index} of the rate profile is not later than the step before it")
            }
            ProfileError::EndsAtZero => {
                write!(f, "the rate profile's last step has rate 0: the link would never recover")
            }
        }
    }
}
impl std::error::Error for ProfileError {}

impl RateProfile {
    /// Steps must start at increasing times; a first step later than zero
    /// is preceded by the first step's rate.
    pub fn new(steps: Vec<(Duration, Bandwidth)>) -> Result<Self, ProfileError> {
        if steps.is_empty() {
            return Err(ProfileError::Empty);
        }
        if let Some(i) = steps.windows(2).position(|w| w[1].0 <= w[0].0) {
            return Err(ProfileError::NotIncreasing { index: i + 1 });
        }
        if steps.last().is_some_and(|s| s.1.bps() == 0) {
            return Err(ProfileError::EndsAtZero);
        }
        Ok(RateProfile { steps })
    }

    /// A constant rate.
    pub fn constant(rate: Bandwidth) -> Self {
        RateProfile { steps: vec![(Duration::ZERO, rate)] }
    }

    pub fn steps(&self) -> &[(Duration, Bandwidth)] {
        &self.steps
    }

    /// The rate at offset `t`.
    pub fn rate_at(&self, t: Duration) -> Bandwidth {
        let i = self.steps.partition_point(|s| s.0 <= t);
        self.steps[i.saturating_sub(1)].1
    }

    /// The largest rate of any step.
    pub fn peak(&self) -> Bandwidth {
        self.steps.iter().map(|s| s.1).max().unwrap_or(Bandwidth::from_bps(0))
    }
}

/// A [`RateProfile`] serving packets, with its time zero at `origin`.
#[derive(Clone, Debug)]
pub struct ProfileLink {
    profile: RateProfile,
    origin: Instant,
}

impl ProfileLink {
    pub fn new(profile: RateProfile, origin: Instant) -> Self {
        ProfileLink { profile, origin }
    }
    pub fn profile(&self) -> &RateProfile {
        &self.profile
    }
    /// The capacity at `now`.
    pub fn rate_at(&self, now: Instant) -> Bandwidth {
        self.profile.rate_at(now - self.origin)
    }
}

impl LinkServer for ProfileLink {
    fn transmit(&mut self, start: Instant, bytes: u32) -> Instant {
        let steps = &self.profile.steps;
        let mut t = start - self.origin;
        let mut bits = bytes as u128 * 8;
        let mut i = steps.partition_point(|s| s.0 <= t).saturating_sub(1);
        loop {
            let rate = steps[i].1.bps() as u128;
            let end = steps.get(i + 1).map(|s| s.0);
            // Bits this step can carry before it ends (all, for the last).
            let span = end.map(|e| (e - t).as_nanos() as u128);
            match span {
                Some(ns) if rate * ns < bits * 1_000_000_000 => {
                    bits -= rate * ns / 1_000_000_000;
                    t = end.expect("span implies a next step");
                    i += 1;
                }
                _ => {
                    // rate > 0 here: only a non-final step may be an outage,
                    // and an outage step always has a successor.
                    let ns = (bits * 1_000_000_000).div_ceil(rate);
                    return self.origin + t + Duration::from_nanos(ns.min(u64::MAX as u128) as u64);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mbit(x: u64) -> Bandwidth {
        Bandwidth::from_mbps(x)
    }
    fn ms(x: u64) -> Duration {
        Duration::from_millis(x)
    }

    #[test]
    fn constant_profile_matches_a_fixed_rate_link() {
        let mut l = ProfileLink::new(RateProfile::constant(mbit(100)), Instant::ZERO);
        assert_eq!(l.transmit(Instant::from_millis(1), 1500), Instant::from_millis(1) + Duration::from_micros(120));
    }

    #[test]
    fn a_packet_spanning_a_rate_drop_finishes_at_the_lower_rate() {
        // 12 Mbit/s until 1 ms, then 1.2 Mbit/s: 1500 bytes = 12000 bits;
        // 12000 bits at 12 Mbit/s take 1 ms, so starting at 0.5 ms, half
        // goes before the drop and 6000 bits take 5 ms after it.
        let p =
            RateProfile::new(vec![(ms(0), Bandwidth::from_bps(12_000_000)), (ms(1), Bandwidth::from_bps(1_200_000))])
                .unwrap();
        let mut l = ProfileLink::new(p, Instant::ZERO);
        assert_eq!(l.transmit(Instant::from_micros(500), 1500), Instant::from_millis(6));
    }

    #[test]
    fn an_outage_holds_packets_until_the_link_recovers() {
        let p = RateProfile::new(vec![(ms(0), mbit(100)), (ms(10), mbit(0)), (ms(20), mbit(100))]).unwrap();
        let mut l = ProfileLink::new(p, Instant::ZERO);
        assert_eq!(l.transmit(Instant::from_millis(12), 1500), Instant::from_millis(20) + Duration::from_micros(120));
        assert_eq!(l.rate_at(Instant::from_millis(15)).bps(), 0);
    }

    #[test]
    fn bad_profiles_are_rejected() {
        assert_eq!(RateProfile::new(vec![]), Err(ProfileError::Empty));
        assert_eq!(
            RateProfile::new(vec![(ms(5), mbit(1)), (ms(5), mbit(2))]),
            Err(ProfileError::NotIncreasing { index: 1 })
        );
        assert_eq!(RateProfile::new(vec![(ms(0), mbit(1)), (ms(5), mbit(0))]), Err(ProfileError::EndsAtZero));
    }
}
