//! Simulated packets. Sequence numbers count segments, not bytes: senders
//! send full-MSS segments except a flow's last one, so a segment index is a
//! byte range without the arithmetic.

use rtac_core::Instant;

/// IPv4 (20) + TCP (20) + timestamp option (12) bytes per packet.
pub const HEADER_BYTES: u32 = 52;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    pub flow: u32,
    /// Index of the next link on the flow's path (data packets).
    pub hop: u16,
    pub kind: Kind,
    /// TCP timestamp option (RFC 7323): sender's clock and the echo.
    pub tsval: Instant,
    pub tsecr: Option<Instant>,
    /// TCP-GT's epoch header: the sender's epoch on data, the epoch of the
    /// latest data segment echoed on ACKs (zero for other senders).
    pub epoch: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Data { seq: u32, len: u32, retransmit: bool },
    Ack { ack: u32, win: u64, sack: Sack },
}

/// Up to three SACK blocks (the most that fit beside timestamps), as
/// half-open segment ranges, most recent first (RFC 2018).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sack {
    pub n: u8,
    pub blocks: [(u32, u32); 3],
}

impl Sack {
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.blocks[..self.n as usize].iter().copied()
    }
    pub fn push(&mut self, b: (u32, u32)) {
        if (self.n as usize) < self.blocks.len() {
            self.blocks[self.n as usize] = b;
            self.n += 1;
        }
    }
}

impl Packet {
    pub fn wire_size(&self) -> u32 {
        match self.kind {
            Kind::Data { len, .. } => len + HEADER_BYTES,
            // SACK option: 2 bytes + 8 per block, padded to 4 bytes.
            Kind::Ack { sack, .. } if sack.n > 0 => HEADER_BYTES + 4 + 8 * sack.n as u32,
            Kind::Ack { .. } => HEADER_BYTES,
        }
    }
}

impl rtac_netmodel::Packet for Packet {
    #[inline]
    fn size(&self) -> u32 {
        self.wire_size()
    }
    #[inline]
    fn flow_key(&self) -> u64 {
        self.flow as u64
    }
}
