//! A real packet inside the emulator: its bytes (virtio-net header, then the
//! Ethernet frame or, on TUN, the IP packet), its size on the wire and the
//! hash of its 5-tuple.

use rtac_core::Instant;
use rtac_netmodel::Packet;
use std::fmt::Write as _;

/// Buffer size for one frame: vnet header + Ethernet header + 1500-byte MTU,
/// with room to spare (larger frames are counted and dropped).
pub const BUF_LEN: usize = 2048;

/// A packet in flight through the emulator.
#[derive(Debug)]
pub struct Frame {
    pub buf: Box<[u8]>,
    /// Bytes of `buf` in use (vnet header included).
    pub len: u32,
    /// Where the IP header starts in `buf`.
    pub l3: u16,
    pub flow: u64,
    /// Small per-direction flow number, for logs.
    pub flow_id: u32,
    /// When it reached the emulator (enqueue time).
    pub arrival: Instant,
}

impl Frame {
    /// The bytes to hand back to the kernel (vnet header + frame).
    pub fn bytes(&self) -> &[u8] {
        &self.buf[..self.len as usize]
    }
    /// The IP packet.
    pub fn l3_bytes(&self) -> &[u8] {
        &self.buf[self.l3 as usize..self.len as usize]
    }
    /// Its TCP sequence and acknowledgment fields, if it is a TCP packet.
    pub fn tcp(&self) -> Option<TcpSeg> {
        parse_tcp(self.l3_bytes())
    }
}

/// The fields of a TCP segment that locate it in its connection's sequence
/// space: enough to match data with the ACKs that acknowledge it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpSeg {
    /// Sequence number of the first byte (or of the SYN).
    pub seq: u32,
    /// Sequence space the segment takes: payload bytes, plus one for SYN
    /// and one for FIN.
    pub len: u32,
    /// The acknowledgment number, when the ACK flag is set.
    pub ack: Option<u32>,
    /// SACK blocks (RFC 2018), half-open `[left, right)`, in the order the
    /// option lists them; `nsack` of them are set.
    pub sack: [(u32, u32); 4],
    pub nsack: u8,
}

impl TcpSeg {
    /// The sequence number after the segment.
    pub fn end(&self) -> u32 {
        self.seq.wrapping_add(self.len)
    }
    /// The SACK blocks.
    pub fn sacks(&self) -> &[(u32, u32)] {
        &self.sack[..self.nsack as usize]
    }
}

/// Reads the TCP fields of an IP packet (`ip` starts at the IP header);
/// `None` for anything but an unfragmented IPv4 or IPv6 TCP segment with a
/// complete header.
pub fn parse_tcp(ip: &[u8]) -> Option<TcpSeg> {
    let (l4, ip_payload) = match ip.first()? >> 4 {
        4 if ip.len() >= 20 => {
            let ihl = ((ip[0] & 0x0f) as usize) * 4;
            let total = u16::from_be_bytes([ip[2], ip[3]]) as usize;
            let frag = u16::from_be_bytes([ip[6], ip[7]]) & 0x3fff;
            if ip[9] != 6 || frag != 0 || ihl < 20 || total < ihl {
                return None;
            }
            (ihl, total.min(ip.len()) - ihl)
        }
        // No extension headers: TCP follows the fixed header directly.
        6 if ip.len() >= 40 && ip[6] == 6 => (40, (u16::from_be_bytes([ip[4], ip[5]]) as usize).min(ip.len() - 40)),
        _ => return None,
    };
    let t = ip.get(l4..l4 + 20)?;
    let doff = ((t[12] >> 4) as usize) * 4;
    if doff < 20 || doff > ip_payload {
        return None;
    }
    let flags = t[13];
    let (fin, syn, ackf) = (flags & 0x01 != 0, flags & 0x02 != 0, flags & 0x10 != 0);
    let word = |b: &[u8], i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let mut seg = TcpSeg {
        seq: word(t, 4),
        len: (ip_payload - doff) as u32 + syn as u32 + fin as u32,
        ack: ackf.then(|| word(t, 8)),
        ..TcpSeg::default()
    };
    // Options: the SACK blocks (kind 5, 8 bytes per block).
    let mut opts = &ip[l4 + 20..l4 + doff];
    while let Some(&kind) = opts.first() {
        match kind {
            0 => break,
            1 => opts = &opts[1..],
            _ => {
                let n = *opts.get(1)? as usize;
                if n < 2 || n > opts.len() {
                    break;
                }
                if kind == 5 {
                    for b in opts[2..n].chunks_exact(8).take(4) {
                        seg.sack[seg.nsack as usize] = (word(b, 0), word(b, 4));
                        seg.nsack += 1;
                    }
                }
                opts = &opts[n..];
            }
        }
    }
    Some(seg)
}

impl Packet for Frame {
    /// IP bytes, as the simulator and Mahimahi count them (Ethernet header
    /// and vnet header excluded).
    fn size(&self) -> u32 {
        self.len - self.l3 as u32
    }
    fn flow_key(&self) -> u64 {
        self.flow
    }
}

/// The fields of a packet that identify its flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowTuple {
    /// IP protocol (6 TCP, 17 UDP, 1 ICMP, ...); for non-IP frames the
    /// EtherType with bit 16 set.
    pub proto: u32,
    pub src: [u8; 16],
    pub dst: [u8; 16],
    pub v6: bool,
    pub sport: u16,
    pub dport: u16,
}

impl FlowTuple {
    /// A 64-bit hash of the tuple (a fixed mix: equal tuples, equal keys).
    pub fn key(&self) -> u64 {
        let mut h: u64 = 0x9E37_79B9_7F4A_7C15 ^ self.proto as u64;
        let mut mix = |v: u64| {
            h = (h ^ v).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            h ^= h >> 31;
        };
        mix(u64::from_ne_bytes(self.src[..8].try_into().unwrap()));
        mix(u64::from_ne_bytes(self.src[8..].try_into().unwrap()));
        mix(u64::from_ne_bytes(self.dst[..8].try_into().unwrap()));
        mix(u64::from_ne_bytes(self.dst[8..].try_into().unwrap()));
        mix(((self.sport as u64) << 16) | self.dport as u64 | ((self.v6 as u64) << 32));
        h
    }

    /// `tcp 100.64.0.1:5201 > 100.64.0.2:40312`, for log headers.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        let proto = match self.proto {
            6 => "tcp".to_string(),
            17 => "udp".to_string(),
            1 => "icmp".to_string(),
            58 => "icmp6".to_string(),
            0x1_0806 => "arp".to_string(),
            p if p > 0xffff => format!("ethertype-0x{:04x}", p & 0xffff),
            p => format!("ip-proto-{p}"),
        };
        s.push_str(&proto);
        let addr = |a: &[u8; 16]| -> String {
            if self.v6 {
                std::net::Ipv6Addr::from(*a).to_string()
            } else {
                std::net::Ipv4Addr::new(a[0], a[1], a[2], a[3]).to_string()
            }
        };
        if self.proto <= 0xffff {
            let ports = self.proto == 6 || self.proto == 17;
            let _ = write!(s, " {}", addr(&self.src));
            if ports {
                let _ = write!(s, ":{}", self.sport);
            }
            let _ = write!(s, " > {}", addr(&self.dst));
            if ports {
                let _ = write!(s, ":{}", self.dport);
            }
        }
        s
    }
}

/// Reads the flow tuple of an IP packet (`ip` starts at the IP header);
/// `ethertype` is the frame's EtherType (for TUN, derived from the version).
pub fn parse_flow(ethertype: u16, ip: &[u8]) -> FlowTuple {
    let mut t =
        FlowTuple { proto: 0x1_0000 | ethertype as u32, src: [0; 16], dst: [0; 16], v6: false, sport: 0, dport: 0 };
    let ports = |proto: u8, l4: &[u8], t: &mut FlowTuple| {
        if (proto == 6 || proto == 17) && l4.len() >= 4 {
            t.sport = u16::from_be_bytes([l4[0], l4[1]]);
            t.dport = u16::from_be_bytes([l4[2], l4[3]]);
        }
    };
    match ethertype {
        0x0800 if ip.len() >= 20 => {
            let ihl = ((ip[0] & 0x0f) as usize) * 4;
            let proto = ip[9];
            t.proto = proto as u32;
            t.src[..4].copy_from_slice(&ip[12..16]);
            t.dst[..4].copy_from_slice(&ip[16..20]);
            let frag = u16::from_be_bytes([ip[6], ip[7]]) & 0x1fff;
            if frag == 0 && ip.len() >= ihl {
                ports(proto, &ip[ihl..], &mut t);
            }
        }
        0x86dd if ip.len() >= 40 => {
            let proto = ip[6];
            t.proto = proto as u32;
            t.v6 = true;
            t.src.copy_from_slice(&ip[8..24]);
            t.dst.copy_from_slice(&ip[24..40]);
            ports(proto, &ip[40..], &mut t);
        }
        _ => {}
    }
    t
}

/// EtherType and IP-header offset (from the frame start) of an Ethernet
/// frame, skipping one VLAN tag.
pub fn ethernet(frame: &[u8]) -> (u16, usize) {
    if frame.len() < 14 {
        return (0, frame.len());
    }
    let et = u16::from_be_bytes([frame[12], frame[13]]);
    if et == 0x8100 && frame.len() >= 18 {
        return (u16::from_be_bytes([frame[16], frame[17]]), 18);
    }
    (et, 14)
}

/// EtherType of a bare IP packet (TUN), from its version nibble.
pub fn ip_ethertype(ip: &[u8]) -> u16 {
    match ip.first().map(|b| b >> 4) {
        Some(4) => 0x0800,
        Some(6) => 0x86dd,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp4(src: [u8; 4], dst: [u8; 4], sport: u16, dport: u16) -> Vec<u8> {
        let mut p = vec![0u8; 40];
        p[0] = 0x45;
        p[9] = 6;
        p[12..16].copy_from_slice(&src);
        p[16..20].copy_from_slice(&dst);
        p[20..22].copy_from_slice(&sport.to_be_bytes());
        p[22..24].copy_from_slice(&dport.to_be_bytes());
        p
    }

    #[test]
    fn the_five_tuple_of_an_ipv4_tcp_packet_is_read_and_hashed() {
        let p = tcp4([100, 64, 0, 1], [100, 64, 0, 2], 5201, 40000);
        let t = parse_flow(0x0800, &p);
        assert_eq!((t.proto, t.sport, t.dport), (6, 5201, 40000));
        assert_eq!(t.describe(), "tcp 100.64.0.1:5201 > 100.64.0.2:40000");
        let other = parse_flow(0x0800, &tcp4([100, 64, 0, 1], [100, 64, 0, 2], 5201, 40001));
        assert_ne!(t.key(), other.key());
        assert_eq!(t.key(), parse_flow(0x0800, &p).key());
    }

    #[test]
    fn tcp_sequence_fields_are_read() {
        let mut p = tcp4([100, 64, 0, 1], [100, 64, 0, 2], 5201, 40000);
        p.resize(40 + 12 + 100, 0);
        let total = p.len() as u16;
        p[2..4].copy_from_slice(&total.to_be_bytes());
        p[24..28].copy_from_slice(&0xffff_fff0u32.to_be_bytes());
        p[28..32].copy_from_slice(&77u32.to_be_bytes());
        p[32] = 8 << 4; // 32-byte header: 12 bytes of options
        p[33] = 0x10; // ACK
        let s = parse_tcp(&p).unwrap();
        assert_eq!(s, TcpSeg { seq: 0xffff_fff0, len: 100, ack: Some(77), ..TcpSeg::default() });
        assert_eq!(s.end(), 84, "sequence numbers wrap");
        p[33] = 0x02; // SYN, no ACK
        let s = parse_tcp(&p).unwrap();
        assert_eq!((s.seq, s.len, s.ack, s.sacks()), (0xffff_fff0, 101, None, &[][..]));
        // NOP, NOP, SACK with two blocks, after a timestamp option.
        let mut a = tcp4([100, 64, 0, 2], [100, 64, 0, 1], 40000, 5201);
        let mut opt = vec![1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 1, 1, 5, 18];
        for v in [3000u32, 4000, 5000, 6000] {
            opt.extend_from_slice(&v.to_be_bytes());
        }
        a.truncate(40);
        a.extend_from_slice(&opt);
        let total = a.len() as u16;
        a[2..4].copy_from_slice(&total.to_be_bytes());
        a[32] = (((20 + opt.len()) / 4) << 4) as u8;
        a[33] = 0x10;
        a[28..32].copy_from_slice(&2000u32.to_be_bytes());
        let s = parse_tcp(&a).unwrap();
        assert_eq!((s.len, s.ack, s.sacks()), (0, Some(2000), &[(3000, 4000), (5000, 6000)][..]));
        p[9] = 17;
        assert_eq!(parse_tcp(&p), None, "UDP");
        p[9] = 6;
        p[7] = 1; // a fragment
        assert_eq!(parse_tcp(&p), None);
        assert_eq!(parse_tcp(&p[..30]), None, "truncated");
    }

    #[test]
    fn fragments_and_non_ip_frames_have_no_ports() {
        let mut p = tcp4([1, 2, 3, 4], [5, 6, 7, 8], 1, 2);
        p[7] = 5; // fragment offset
        assert_eq!(parse_flow(0x0800, &p).sport, 0);
        let arp = parse_flow(0x0806, &[0u8; 28]);
        assert_eq!(arp.describe(), "arp");
    }

    #[test]
    fn ethernet_header_and_vlan_tag_are_skipped() {
        let mut f = vec![0u8; 60];
        f[12] = 0x08;
        assert_eq!(ethernet(&f), (0x0800, 14));
        f[12] = 0x81;
        f[13] = 0x00;
        f[16] = 0x86;
        f[17] = 0xdd;
        assert_eq!(ethernet(&f), (0x86dd, 18));
        assert_eq!(ip_ethertype(&[0x45]), 0x0800);
    }
}
