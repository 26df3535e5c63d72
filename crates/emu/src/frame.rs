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
