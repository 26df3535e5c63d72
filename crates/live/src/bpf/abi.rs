//! The layouts shared with `bpf/rtac.bpf.c` (`struct rtac_ctl`,
//! `struct rtac_clamp`, `struct rtac_sample`); the tests pin their sizes.

/// `ctl[0]`: what user space tells every socket.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Ctl {
    /// CLOCK_MONOTONIC of the last heartbeat, ns.
    pub heartbeat_ns: u64,
    /// After this long without a heartbeat, the program releases sockets.
    pub stale_ns: u64,
    /// The cgroup (inode number) whose sockets the iterator adopts; 0: all.
    pub cgroup_id: u64,
    /// 1: release every socket now.
    pub release: u32,
    /// 1: bound senders too (`--uplink`); else a pure sender's per-segment
    /// callback is turned off.
    pub uplink: u32,
    /// The controller's window before its first step, bytes (0: none):
    /// applied until user space answers a socket's first sample.
    pub initial_clamp: u32,
    pub reserved: u32,
}

/// `clamps[cookie]`: the answer to a sample: the window to apply and when
/// to sample next. The program reads it only while a sample is unanswered.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Clamp {
    /// TCP_WINDOW_CLAMP in bytes; 0: none.
    pub clamp: u32,
    /// Uplink: TCP_BPF_SNDCWND_CLAMP in packets; 0: none.
    pub cwnd_clamp: u32,
    pub interval_ns: u64,
    /// The [`Sample::seq`] this answers.
    pub seq: u32,
    /// How long this socket's samples may wait in the ring before one
    /// wakes user space, µs; 0: the program's default (5 ms).
    pub wake_gap_us: u32,
}

/// A sample was sent when the socket was first seen.
pub const SAMPLE_NEW: u32 = 1;
/// The socket closed; this is its last sample.
pub const SAMPLE_CLOSED: u32 = 2;
/// The socket was established before the program was attached.
pub const SAMPLE_ADOPTED: u32 = 4;
/// With [`SAMPLE_CLOSED`]: the socket's sample stayed unanswered for the
/// stale time, so the program gave it back to the kernel for good.
pub const SAMPLE_GIVEN_UP: u32 = 8;

/// Indices of the program's per-CPU `counters` map.
pub mod count {
    /// Sockets given back to the kernel: a sample unanswered for the stale time.
    pub const GIVEN_UP: u32 = 0;
    /// Samples the full ring buffer refused.
    pub const LOST_SAMPLE: u32 = 1;
    /// Sockets the kernel had no memory to give storage: never controlled.
    pub const NO_STORAGE: u32 = 2;
    /// Ends of sockets that neither the ring buffer nor `ended` could take.
    pub const LOST_END: u32 = 3;
    pub const COUNTERS: u32 = 4;
}

/// One sample of a socket's receive state, from the ring buffer.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    pub cookie: u64,
    pub t_ns: u64,
    pub bytes_received: u64,
    pub copied_seq: u32,
    pub rcv_nxt: u32,
    /// rcv_rtt_est.rtt_us: the smoothed receiver RTT in µs, times 8.
    pub rcv_rtt_us8: u32,
    pub rcv_wnd: u32,
    pub window_clamp: u32,
    pub data_segs_in: u32,
    pub rcv_mss: u32,
    pub flags: u32,
    pub min_rtt_us: u32,
    pub family: u16,
    /// Network byte order.
    pub dport: u16,
    pub daddr: [u8; 16],
    /// The sending side (uplink): bytes acknowledged by the peer.
    pub bytes_acked: u64,
    /// srtt_us: the sender's smoothed RTT in µs, times 8.
    pub srtt_us8: u32,
    pub snd_cwnd: u32,
    pub mss_cache: u32,
    /// Numbers a socket's samples, from 1.
    pub seq: u32,
    /// rcv_ooopack: segments received out of order.
    pub rcv_ooopack: u32,
    /// The inode number of the socket's network namespace (`ns.inum`, what
    /// `stat /proc/PID/ns/net` shows), in the first sample; 0: unknown.
    pub netns: u32,
}

// SAFETY: plain integers, no padding the kernel could leave undefined
// (the sizes below are the C layouts').
unsafe impl aya::Pod for Ctl {}
unsafe impl aya::Pod for Clamp {}

impl Sample {
    /// Reads a sample from a ring buffer record; `None` if it is too short.
    pub fn from_bytes(b: &[u8]) -> Option<Sample> {
        if b.len() < std::mem::size_of::<Sample>() {
            return None;
        }
        // SAFETY: the length is checked; Sample is plain integers, any bit
        // pattern is valid; read_unaligned copes with the record's alignment.
        Some(unsafe { std::ptr::read_unaligned(b.as_ptr() as *const Sample) })
    }

    pub fn peer(&self) -> Option<std::net::SocketAddr> {
        let port = u16::from_be(self.dport);
        match self.family as i32 {
            libc::AF_INET => {
                let a: [u8; 4] = self.daddr[..4].try_into().ok()?;
                Some((std::net::Ipv4Addr::from(a), port).into())
            }
            libc::AF_INET6 => Some((std::net::Ipv6Addr::from(self.daddr), port).into()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_match_the_c_structs() {
        assert_eq!(std::mem::size_of::<Ctl>(), 40);
        assert_eq!(std::mem::size_of::<Clamp>(), 24);
        assert_eq!(std::mem::size_of::<Sample>(), 112);
        assert_eq!(std::mem::offset_of!(Sample, rcv_ooopack), 104);
        assert_eq!(std::mem::offset_of!(Sample, bytes_acked), 80);
        assert_eq!(std::mem::offset_of!(Sample, min_rtt_us), 56);
        assert_eq!(std::mem::offset_of!(Sample, daddr), 64);
        assert_eq!(std::mem::offset_of!(Sample, netns), 108);
    }

    #[test]
    fn a_short_record_is_refused_and_the_peer_is_decoded() {
        assert!(Sample::from_bytes(&[0; 111]).is_none());
        let mut s = Sample { family: libc::AF_INET as u16, dport: 8080u16.to_be(), ..Sample::default() };
        s.daddr[..4].copy_from_slice(&[10, 0, 0, 1]);
        // SAFETY: plain integers, no padding.
        let bytes: [u8; 112] = unsafe { std::mem::transmute(s) };
        let back = Sample::from_bytes(&bytes).unwrap();
        assert_eq!(back.peer(), Some("10.0.0.1:8080".parse().unwrap()));
    }
}
