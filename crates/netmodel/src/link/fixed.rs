use super::LinkServer;
use rtac_core::{Bandwidth, Instant};

/// A constant-rate link.
#[derive(Clone, Debug)]
pub struct FixedRate {
    rate: Bandwidth,
}

impl FixedRate {
    pub fn new(rate: Bandwidth) -> Self {
        FixedRate { rate }
    }
    pub fn rate(&self) -> Bandwidth {
        self.rate
    }
}

impl LinkServer for FixedRate {
    fn transmit(&mut self, start: Instant, bytes: u32) -> Instant {
        start + self.rate.serialization(bytes as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtac_core::Duration;

    #[test]
    fn a_1500_byte_packet_takes_120_us_at_100_mbit() {
        let mut l = FixedRate::new(Bandwidth::from_mbps(100));
        let t0 = Instant::from_millis(1);
        assert_eq!(l.transmit(t0, 1500), t0 + Duration::from_micros(120));
    }
}
