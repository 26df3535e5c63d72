//! The few Linux system calls the agent makes, wrapped: the monotonic
//! clock, errno, socket classification, TCP_INFO, TCP_WINDOW_CLAMP and
//! SO_RCVBUF. Nothing here allocates, so the shim can call it from any
//! thread.

use rtac_core::time::Instant;
use std::io;
use std::mem::size_of;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::os::raw::{c_int, c_void};

/// Now on CLOCK_MONOTONIC (the vDSO: no system call), as the integer time
/// type the controllers and the simulator use.
pub fn now() -> Instant {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    Instant::from_nanos(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// CPU time the calling thread has used, in nanoseconds (for benchmarks).
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The calling thread's errno.
pub fn errno() -> c_int {
    // SAFETY: __errno_location returns the thread's errno slot, always valid.
    unsafe { *libc::__errno_location() }
}

/// Sets the calling thread's errno.
pub fn set_errno(e: c_int) {
    // SAFETY: as in `errno`.
    unsafe { *libc::__errno_location() = e };
}

fn getsockopt_int(fd: c_int, level: c_int, name: c_int) -> io::Result<c_int> {
    let mut v: c_int = 0;
    let mut len = size_of::<c_int>() as libc::socklen_t;
    // SAFETY: `v` and `len` are valid for writes of the sizes given.
    let r = unsafe { libc::getsockopt(fd, level, name, (&mut v as *mut c_int).cast::<c_void>(), &mut len) };
    if r == 0 {
        Ok(v)
    } else {
        Err(io::Error::last_os_error())
    }
}

fn setsockopt_int(fd: c_int, level: c_int, name: c_int, v: c_int) -> io::Result<()> {
    // SAFETY: `v` is a valid c_int for the duration of the call.
    let r = unsafe {
        libc::setsockopt(fd, level, name, (&v as *const c_int).cast::<c_void>(), size_of::<c_int>() as libc::socklen_t)
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// What a file descriptor is, as far as the agent cares.
#[derive(Debug)]
pub enum FdClass {
    /// A TCP socket over IPv4 or IPv6: the agent controls it.
    Tcp,
    /// Anything else (a file, a pipe, UDP, a Unix socket, MPTCP, a closed
    /// descriptor): the agent leaves it alone.
    Other,
    /// A socket that answered SO_TYPE but then failed a query it should
    /// answer: an unexpected socket, which the agent reports and leaves.
    Unexpected(io::Error),
}

/// Classifies `fd` with SO_TYPE, SO_PROTOCOL and SO_DOMAIN.
pub fn classify(fd: c_int) -> FdClass {
    let ty = match getsockopt_int(fd, libc::SOL_SOCKET, libc::SO_TYPE) {
        Ok(t) => t,
        // ENOTSOCK (files, pipes, ttys), EBADF (closed) and anything else a
        // non-socket can answer: not ours.
        Err(_) => return FdClass::Other,
    };
    if ty != libc::SOCK_STREAM {
        return FdClass::Other;
    }
    match getsockopt_int(fd, libc::SOL_SOCKET, libc::SO_PROTOCOL) {
        Ok(p) if p == libc::IPPROTO_TCP => {}
        Ok(_) => return FdClass::Other,
        Err(e) => return FdClass::Unexpected(e),
    }
    match getsockopt_int(fd, libc::SOL_SOCKET, libc::SO_DOMAIN) {
        Ok(d) if d == libc::AF_INET || d == libc::AF_INET6 => FdClass::Tcp,
        Ok(_) => FdClass::Other,
        Err(e) => FdClass::Unexpected(e),
    }
}

/// The identity of an open file: (device, inode). A descriptor number that
/// was closed and reused for another socket has another identity.
pub fn identity(fd: c_int) -> io::Result<(u64, u64)> {
    // SAFETY: an all-zero stat is a valid value to be overwritten.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is valid for writes.
    if unsafe { libc::fstat(fd, &mut st) } == 0 {
        Ok((st.st_dev, st.st_ino))
    } else {
        Err(io::Error::last_os_error())
    }
}

/// `struct tcp_info` as the running kernel fills it. Read by byte offset
/// so that an older or newer kernel (shorter or longer struct) is handled:
/// a field beyond what the kernel returned reads as `None`.
#[derive(Clone)]
pub struct TcpInfo {
    raw: [u8; TCP_INFO_LEN],
    len: usize,
}

const TCP_INFO_LEN: usize = 256;

// Offsets in include/uapi/linux/tcp.h (stable ABI: fields are only appended).
const OFF_STATE: usize = 0;
const OFF_RCV_MSS: usize = 20;
const OFF_RTT: usize = 68;
const OFF_ADVMSS: usize = 84;
const OFF_RCV_RTT: usize = 92;
const OFF_RCV_SPACE: usize = 96;
const OFF_BYTES_RECEIVED: usize = 128;
const OFF_MIN_RTT: usize = 148;
const OFF_DATA_SEGS_IN: usize = 152;
const OFF_RCV_OOOPACK: usize = 224;
const OFF_OPTIONS: usize = 5;

/// tcpi_options bits.
pub const TCPI_OPT_TIMESTAMPS: u8 = 1;
/// Timestamps in microseconds (Linux >= 6.7, the tcp_usec_ts route feature).
pub const TCPI_OPT_USEC_TS: u8 = 64;

/// TCP_ESTABLISHED in tcpi_state.
pub const TCP_ESTABLISHED: u8 = 1;

impl TcpInfo {
    fn u32_at(&self, off: usize) -> Option<u32> {
        (off + 4 <= self.len).then(|| u32::from_ne_bytes(self.raw[off..off + 4].try_into().unwrap()))
    }
    fn u64_at(&self, off: usize) -> Option<u64> {
        (off + 8 <= self.len).then(|| u64::from_ne_bytes(self.raw[off..off + 8].try_into().unwrap()))
    }
    /// tcpi_state (TCP_ESTABLISHED = 1, ...).
    pub fn state(&self) -> u8 {
        self.raw[OFF_STATE]
    }
    /// tcpi_options (TCPI_OPT_*).
    pub fn options(&self) -> u8 {
        self.raw[OFF_OPTIONS]
    }
    /// tcpi_min_rtt in µs: the minimum over this end's RTT samples (the
    /// handshake, and ACKs of anything it sent); 0 if none (Linux >= 4.10).
    pub fn min_rtt_us(&self) -> u32 {
        self.u32_at(OFF_MIN_RTT).unwrap_or(0)
    }
    /// tcpi_rcv_mss: the receiver's estimate of the sender's segment size.
    pub fn rcv_mss(&self) -> u32 {
        self.u32_at(OFF_RCV_MSS).unwrap_or(0)
    }
    /// tcpi_advmss: the segment size this end announced.
    pub fn advmss(&self) -> u32 {
        self.u32_at(OFF_ADVMSS).unwrap_or(0)
    }
    /// tcpi_rtt in µs: the smoothed RTT of this end's *sent* data (on a
    /// pure receiver, of its ACK-less control segments: not a data RTT).
    pub fn rtt_us(&self) -> u32 {
        self.u32_at(OFF_RTT).unwrap_or(0)
    }
    /// tcpi_rcv_rtt in µs: Linux's receiver-side RTT estimate (0 until the
    /// first measurement). See the crate README for what it measures.
    pub fn rcv_rtt_us(&self) -> u32 {
        self.u32_at(OFF_RCV_RTT).unwrap_or(0)
    }
    /// tcpi_rcv_space: receive auto-tuning's estimate of bytes per RTT.
    pub fn rcv_space(&self) -> u32 {
        self.u32_at(OFF_RCV_SPACE).unwrap_or(0)
    }
    /// tcpi_bytes_received (Linux >= 4.1).
    pub fn bytes_received(&self) -> Option<u64> {
        self.u64_at(OFF_BYTES_RECEIVED)
    }
    /// tcpi_data_segs_in: data segments received, wrapping at 2^32
    /// (Linux >= 4.6).
    pub fn data_segs_in(&self) -> Option<u32> {
        self.u32_at(OFF_DATA_SEGS_IN)
    }
    /// tcpi_rcv_ooopack: segments received out of order (Linux >= 5.4).
    pub fn rcv_ooopack(&self) -> Option<u32> {
        self.u32_at(OFF_RCV_OOOPACK)
    }
}

/// getsockopt(TCP_INFO).
pub fn tcp_info(fd: c_int) -> io::Result<TcpInfo> {
    let mut info = TcpInfo { raw: [0; TCP_INFO_LEN], len: 0 };
    let mut len = TCP_INFO_LEN as libc::socklen_t;
    // SAFETY: the buffer is valid for `len` bytes of writes.
    let r = unsafe {
        libc::getsockopt(fd, libc::IPPROTO_TCP, libc::TCP_INFO, info.raw.as_mut_ptr().cast::<c_void>(), &mut len)
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    info.len = (len as usize).min(TCP_INFO_LEN);
    if info.len < OFF_RCV_SPACE + 4 {
        return Err(io::Error::other(format!("TCP_INFO returned {} bytes, too few for tcpi_rcv_rtt", info.len)));
    }
    Ok(info)
}

/// setsockopt(TCP_WINDOW_CLAMP): the largest window this end advertises.
pub fn set_window_clamp(fd: c_int, bytes: u64) -> io::Result<()> {
    setsockopt_int(fd, libc::IPPROTO_TCP, libc::TCP_WINDOW_CLAMP, bytes.min(i32::MAX as u64) as c_int)
}

/// getsockopt(TCP_WINDOW_CLAMP).
pub fn window_clamp(fd: c_int) -> io::Result<u64> {
    getsockopt_int(fd, libc::IPPROTO_TCP, libc::TCP_WINDOW_CLAMP).map(|v| v.max(0) as u64)
}

/// setsockopt(SO_RCVBUF): fixes the receive buffer (the kernel doubles the
/// value and caps it at net.core.rmem_max) and turns receive auto-tuning
/// off for this socket.
pub fn set_rcvbuf(fd: c_int, bytes: u64) -> io::Result<()> {
    setsockopt_int(fd, libc::SOL_SOCKET, libc::SO_RCVBUF, bytes.min(i32::MAX as u64) as c_int)
}

/// getsockopt(SO_RCVBUF): the receive buffer limit in bytes.
pub fn rcvbuf(fd: c_int) -> io::Result<u64> {
    getsockopt_int(fd, libc::SOL_SOCKET, libc::SO_RCVBUF).map(|v| v.max(0) as u64)
}

/// setsockopt(TCP_CONGESTION), for senders in tests and the test bed.
pub fn set_congestion(fd: c_int, name: &str) -> io::Result<()> {
    // SAFETY: the name bytes are valid for reads of their length.
    let r = unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            name.as_ptr().cast::<c_void>(),
            name.len() as libc::socklen_t,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The peer's address (getpeername), IPv4 or IPv6.
pub fn peer_addr(fd: c_int) -> Option<SocketAddr> {
    // SAFETY: an all-zero sockaddr_storage is valid; the kernel writes at most `len` bytes.
    let mut ss: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut len = size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    // SAFETY: `ss` is valid for `len` bytes.
    if unsafe { libc::getpeername(fd, (&mut ss as *mut libc::sockaddr_storage).cast(), &mut len) } != 0 {
        return None;
    }
    match ss.ss_family as c_int {
        libc::AF_INET => {
            // SAFETY: the family says the storage holds a sockaddr_in.
            let a: &libc::sockaddr_in = unsafe { &*(&ss as *const libc::sockaddr_storage).cast() };
            let ip = Ipv4Addr::from(u32::from_be(a.sin_addr.s_addr));
            Some(SocketAddr::V4(SocketAddrV4::new(ip, u16::from_be(a.sin_port))))
        }
        libc::AF_INET6 => {
            // SAFETY: the family says the storage holds a sockaddr_in6.
            let a: &libc::sockaddr_in6 = unsafe { &*(&ss as *const libc::sockaddr_storage).cast() };
            let ip = Ipv6Addr::from(a.sin6_addr.s6_addr);
            Some(SocketAddr::V6(SocketAddrV6::new(ip, u16::from_be(a.sin6_port), 0, a.sin6_scope_id)))
        }
        _ => None,
    }
}

/// Writes `msg` to stderr with one write(2), keeping errno.
pub fn write_stderr(msg: &[u8]) {
    let saved = errno();
    // SAFETY: the buffer is valid for reads of its length.
    unsafe { libc::write(2, msg.as_ptr().cast::<c_void>(), msg.len()) };
    set_errno(saved);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream, UdpSocket};
    use std::os::fd::AsRawFd;

    #[test]
    fn classify_tells_tcp_from_everything_else() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        assert!(matches!(classify(c.as_raw_fd()), FdClass::Tcp));
        let u = UdpSocket::bind("127.0.0.1:0").unwrap();
        assert!(matches!(classify(u.as_raw_fd()), FdClass::Other));
        let f = std::fs::File::open("/proc/self/stat").unwrap();
        assert!(matches!(classify(f.as_raw_fd()), FdClass::Other));
        let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
        assert!(matches!(classify(a.as_raw_fd()), FdClass::Other));
        assert!(matches!(classify(-1), FdClass::Other));
    }

    #[test]
    fn tcp_info_window_clamp_and_peer_work_on_a_live_connection() {
        let l = TcpListener::bind("[::1]:0").unwrap();
        let mut c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (mut s, _) = l.accept().unwrap();
        s.write_all(&[7u8; 100_000]).unwrap();
        let mut buf = vec![0u8; 100_000];
        c.read_exact(&mut buf).unwrap();
        let info = tcp_info(c.as_raw_fd()).unwrap();
        assert_eq!(info.state(), TCP_ESTABLISHED);
        // Loopback's MTU is 65536: advmss is that minus the IP and TCP headers.
        assert!(info.advmss() > 60_000, "advmss {}", info.advmss());
        assert!(info.bytes_received().unwrap() >= 100_000);
        assert!(info.data_segs_in().unwrap() >= 2);
        // Loopback neither loses nor reorders (the next field, snd_wnd, is not 0).
        assert_eq!(info.rcv_ooopack(), Some(0));
        set_window_clamp(c.as_raw_fd(), 54_321).unwrap();
        assert_eq!(window_clamp(c.as_raw_fd()).unwrap(), 54_321);
        assert_eq!(peer_addr(c.as_raw_fd()), Some(l.local_addr().unwrap()));
        assert!(identity(c.as_raw_fd()).unwrap() != identity(s.as_raw_fd()).unwrap());
    }

    #[test]
    fn clock_is_monotonic() {
        let a = now();
        let b = now();
        assert!(b >= a && a > Instant::ZERO);
    }
}
