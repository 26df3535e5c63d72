use super::LinkServer;
use rtac_core::{Bandwidth, Duration, Instant};

/// A constant-rate link.
#[derive(Clone, Debug)]
pub struct FixedRate {
    rate: Bandwidth,
    /// The last packet size served and its serialisation time: packets
    /// come in few sizes, and the exact division is costly.
    last: (u32, Duration),
}

impl FixedRate {
    pub fn new(rate: Bandwidth) -> Self {
        FixedRate { rate, last: (0, rate.serialization(0)) }
    }
    pub fn rate(&self) -> Bandwidth {
        self.rate
    }
}

impl LinkServer for FixedRate {
    fn transmit(&mut self, start: Instant, bytes: u32) -> Instant {
        if bytes != self.last.0 {
            self.last = (bytes, self.rate.serialization(bytes as u64));
        }
        start + self.last.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_1500_byte_packet_takes_120_us_at_100_mbit() {
        let mut l = FixedRate::new(Bandwidth::from_mbps(100));
        let t0 = Instant::from_millis(1);
        assert_eq!(l.transmit(t0, 1500), t0 + Duration::from_micros(120));
    }

    #[test]
    fn the_remembered_time_is_reused_only_for_the_same_size() {
        let mut l = FixedRate::new(Bandwidth::from_mbps(100));
        for (bytes, us) in [(1500, 120), (1500, 120), (50, 4), (0, 0), (1500, 120)] {
            assert_eq!(l.transmit(Instant::ZERO, bytes), Instant::ZERO + Duration::from_micros(us), "{bytes} bytes");
        }
    }
}
