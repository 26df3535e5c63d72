//! Thin wrappers over the Linux system calls the emulator needs: clocks,
//! capabilities, network namespaces, ethtool feature flags, AF_PACKET and
//! TUN devices, batched packet I/O, signals. Everything unsafe lives here.

use rtac_core::Instant;
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// CLOCK_MONOTONIC as an [`Instant`] (ns since boot).
pub fn now() -> Instant {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: valid pointer to a timespec; CLOCK_MONOTONIC always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    Instant::from_nanos(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// CLOCK_REALTIME in ns since the Unix epoch.
pub fn realtime_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: as above.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Timer slack of the calling thread: with 1 ns, a poll timeout wakes the
/// thread when asked, not up to 50 us later (the default slack).
pub fn set_timer_slack_ns(ns: u64) {
    // SAFETY: prctl with integer arguments.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0) };
}

/// Makes the calling thread SCHED_FIFO at `priority` (1..=99), so that it
/// wakes at its deadlines even when every core is busy with CFS tasks.
pub fn set_realtime(priority: i32) -> io::Result<()> {
    let p = libc::sched_param { sched_priority: priority };
    // SAFETY: pid 0 is the calling thread; `p` is a valid sched_param.
    cvt(unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) }).map(|_| ())
}

/// Capabilities the emulator needs, with why.
pub const CAP_NET_ADMIN: u32 = 12;
pub const CAP_NET_RAW: u32 = 13;
pub const CAP_SYS_ADMIN: u32 = 21;

/// The calling process's effective capability set (from /proc/self/status).
pub fn effective_caps() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        .unwrap_or(0)
}

/// Joins the network namespace `fd` (calling thread only).
pub fn setns_net(fd: RawFd) -> io::Result<()> {
    // SAFETY: plain syscall on a descriptor.
    cvt(unsafe { libc::setns(fd, libc::CLONE_NEWNET) }).map(|_| ())
}

/// Opens a named network namespace (/run/netns/NAME).
pub fn open_netns(name: &str) -> io::Result<OwnedFd> {
    let path = format!("/run/netns/{name}");
    let f = std::fs::File::open(path)?;
    Ok(OwnedFd::from(f))
}

/// Runs `f` on a fresh thread that has joined network namespace `name`.
/// Sockets and devices created there stay in that namespace.
pub fn in_netns<T: Send + 'static>(name: &str, f: impl FnOnce() -> io::Result<T> + Send + 'static) -> io::Result<T> {
    let fd = open_netns(name)?;
    std::thread::spawn(move || {
        setns_net(fd.as_raw_fd())?;
        f()
    })
    .join()
    .map_err(|_| io::Error::other("namespace helper thread panicked"))?
}

/// Interface index of `name` in the calling thread's namespace.
pub fn ifindex(name: &str) -> io::Result<i32> {
    let c = CString::new(name).map_err(|_| io::Error::other("interface name with NUL"))?;
    // SAFETY: valid C string.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if i == 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(i as i32)
    }
}

// ---------------------------------------------------------------- ethtool

const SIOCETHTOOL: libc::c_ulong = 0x8946;
const ETHTOOL_GSTRINGS: u32 = 0x1b;
const ETHTOOL_GSSET_INFO: u32 = 0x37;
const ETHTOOL_GFEATURES: u32 = 0x3a;
const ETHTOOL_SFEATURES: u32 = 0x3b;
const ETH_SS_FEATURES: u32 = 4;
const ETH_GSTRING_LEN: usize = 32;

#[repr(C)]
struct IfreqData {
    name: [libc::c_char; libc::IFNAMSIZ],
    data: *mut libc::c_void,
    _pad: [u8; 16],
}

fn ethtool(sock: RawFd, ifname: &str, data: *mut libc::c_void) -> io::Result<()> {
    let mut ifr = IfreqData { name: [0; libc::IFNAMSIZ], data, _pad: [0; 16] };
    for (d, s) in ifr.name.iter_mut().zip(ifname.bytes().take(libc::IFNAMSIZ - 1)) {
        *d = s as libc::c_char;
    }
    // SAFETY: SIOCETHTOOL reads ifr and the buffer `data` points to, which
    // the caller sized for the command.
    cvt(unsafe { libc::ioctl(sock, SIOCETHTOOL as _, &mut ifr) }).map(|_| ())
}

/// The device's feature names (ethtool -k), in bit order.
fn feature_names(sock: RawFd, ifname: &str) -> io::Result<Vec<String>> {
    // struct ethtool_sset_info { u32 cmd; u32 reserved; u64 sset_mask; u32 data[1]; }
    let mut info = [0u32; 5];
    info[0] = ETHTOOL_GSSET_INFO;
    info[2] = 1 << ETH_SS_FEATURES; // sset_mask (low half)
    ethtool(sock, ifname, info.as_mut_ptr() as *mut _)?;
    let n = info[4] as usize;
    // struct ethtool_gstrings { u32 cmd; u32 string_set; u32 len; u8 data[]; }
    let mut buf = vec![0u8; 12 + n * ETH_GSTRING_LEN];
    buf[0..4].copy_from_slice(&ETHTOOL_GSTRINGS.to_ne_bytes());
    buf[4..8].copy_from_slice(&ETH_SS_FEATURES.to_ne_bytes());
    buf[8..12].copy_from_slice(&(n as u32).to_ne_bytes());
    ethtool(sock, ifname, buf.as_mut_ptr() as *mut _)?;
    Ok((0..n)
        .map(|i| {
            let s = &buf[12 + i * ETH_GSTRING_LEN..12 + (i + 1) * ETH_GSTRING_LEN];
            let end = s.iter().position(|&b| b == 0).unwrap_or(s.len());
            String::from_utf8_lossy(&s[..end]).into_owned()
        })
        .collect())
}

/// Sets features of `ifname` (in the calling thread's namespace), as
/// `ethtool -K` would: `want(name)` is `Some(on)` for the features to
/// change. Returns the names whose requested state changed.
pub fn set_features(ifname: &str, want: impl Fn(&str) -> Option<bool>) -> io::Result<Vec<String>> {
    // SAFETY: a datagram socket only used for ioctls.
    let sock = cvt(unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) })?;
    // SAFETY: we own the new descriptor.
    let sock = unsafe { OwnedFd::from_raw_fd(sock) };
    let names = feature_names(sock.as_raw_fd(), ifname)?;
    let blocks = names.len().div_ceil(32);
    // struct ethtool_gfeatures { u32 cmd; u32 size; {available, requested, active, never_changed}[size] }
    let mut g = vec![0u32; 2 + 4 * blocks];
    g[0] = ETHTOOL_GFEATURES;
    g[1] = blocks as u32;
    ethtool(sock.as_raw_fd(), ifname, g.as_mut_ptr() as *mut _)?;
    // struct ethtool_sfeatures { u32 cmd; u32 size; {valid, requested}[size] }
    let mut s = vec![0u32; 2 + 2 * blocks];
    s[0] = ETHTOOL_SFEATURES;
    s[1] = blocks as u32;
    let mut changed = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let (b, bit) = (i / 32, 1u32 << (i % 32));
        let available = g[2 + 4 * b] & bit != 0;
        let requested = g[2 + 4 * b + 1] & bit != 0;
        if let (true, Some(on)) = (available, want(name)) {
            s[2 + 2 * b] |= bit; // valid
            if on {
                s[2 + 2 * b + 1] |= bit; // requested
            }
            if on != requested {
                changed.push(name.clone());
            }
        }
    }
    // A positive return (ETHTOOL_F_WISH etc.) only says some wish was not
    // granted; features that are fixed cannot be changed anyway.
    ethtool(sock.as_raw_fd(), ifname, s.as_mut_ptr() as *mut _)?;
    Ok(changed)
}

// --------------------------------------------------------------- AF_PACKET

const PACKET_VNET_HDR: libc::c_int = 15;
const PACKET_QDISC_BYPASS: libc::c_int = 20;
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;
const PACKET_STATISTICS: libc::c_int = 6;

/// Size of `struct virtio_net_hdr`, which precedes every frame on sockets
/// and TUN devices opened with a vnet header.
pub const VNET_HDR_LEN: usize = 10;

fn setsockopt_int(fd: RawFd, level: libc::c_int, opt: libc::c_int, v: libc::c_int) -> io::Result<()> {
    // SAFETY: pointer to a live c_int of the size given.
    cvt(unsafe {
        libc::setsockopt(fd, level, opt, &v as *const _ as *const libc::c_void, std::mem::size_of::<libc::c_int>() as _)
    })
    .map(|_| ())
}

/// An AF_PACKET socket bound to one interface, with a virtio-net header in
/// front of every frame (so checksum-offload state crosses the emulator).
/// `rx`: receives every incoming frame (ETH_P_ALL, not its own outgoing
/// ones); otherwise it only sends.
pub fn packet_socket(ifname: &str, rx: bool, rcvbuf: usize) -> io::Result<OwnedFd> {
    let proto = if rx { (libc::ETH_P_ALL as u16).to_be() as libc::c_int } else { 0 };
    // SAFETY: plain socket creation.
    let fd = cvt(unsafe {
        libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC, proto)
    })?;
    // SAFETY: we own the new descriptor.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let raw = fd.as_raw_fd();
    setsockopt_int(raw, libc::SOL_PACKET, PACKET_VNET_HDR, 1)?;
    if rx {
        setsockopt_int(raw, libc::SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)?;
        setsockopt_int(raw, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, rcvbuf as libc::c_int)?;
        enable_rx_timestamps(raw)?;
    } else {
        setsockopt_int(raw, libc::SOL_PACKET, PACKET_QDISC_BYPASS, 1)?;
        setsockopt_int(raw, libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, rcvbuf as libc::c_int)?;
    }
    // SAFETY: zeroed sockaddr_ll is valid; fields set below.
    let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
    sll.sll_family = libc::AF_PACKET as u16;
    sll.sll_protocol = proto as u16;
    sll.sll_ifindex = ifindex(ifname)?;
    // SAFETY: pointer and length of a sockaddr_ll.
    cvt(unsafe {
        libc::bind(raw, &sll as *const _ as *const libc::sockaddr, std::mem::size_of::<libc::sockaddr_ll>() as _)
    })?;
    Ok(fd)
}

/// Frames the kernel dropped on an AF_PACKET socket because its receive
/// buffer was full, since the last call.
pub fn packet_drops(fd: RawFd) -> u64 {
    let mut st = [0u32; 2]; // struct tpacket_stats { tp_packets, tp_drops }
    let mut len = std::mem::size_of_val(&st) as libc::socklen_t;
    // SAFETY: buffer and length match struct tpacket_stats.
    let r = unsafe { libc::getsockopt(fd, libc::SOL_PACKET, PACKET_STATISTICS, st.as_mut_ptr() as *mut _, &mut len) };
    if r < 0 {
        0
    } else {
        st[1] as u64
    }
}

// ------------------------------------------------------------------- TUN

const TUNSETIFF: libc::c_ulong = 0x400454ca;
const TUNSETOFFLOAD: libc::c_ulong = 0x400454d0;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;
const IFF_VNET_HDR: libc::c_short = 0x4000;
const TUN_F_CSUM: libc::c_ulong = 0x01;

/// Creates TUN device `name` in the calling thread's namespace (IP packets,
/// no packet-info header, a virtio-net header, checksum offload).
pub fn tun_open(name: &str) -> io::Result<OwnedFd> {
    // SAFETY: open of a fixed path.
    let fd = cvt(unsafe { libc::open(c"/dev/net/tun".as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) })?;
    // SAFETY: we own the new descriptor.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    #[repr(C)]
    struct IfreqFlags {
        name: [libc::c_char; libc::IFNAMSIZ],
        flags: libc::c_short,
        _pad: [u8; 22],
    }
    let mut ifr = IfreqFlags { name: [0; libc::IFNAMSIZ], flags: IFF_TUN | IFF_NO_PI | IFF_VNET_HDR, _pad: [0; 22] };
    for (d, s) in ifr.name.iter_mut().zip(name.bytes().take(libc::IFNAMSIZ - 1)) {
        *d = s as libc::c_char;
    }
    // SAFETY: TUNSETIFF reads a struct ifreq.
    cvt(unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF as _, &mut ifr) })?;
    // SAFETY: TUNSETOFFLOAD takes an integer.
    cvt(unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETOFFLOAD as _, TUN_F_CSUM) })?;
    Ok(fd)
}

// ------------------------------------------------------------ packet I/O

/// Asks the kernel to stamp received frames (SO_TIMESTAMPNS).
pub fn enable_rx_timestamps(fd: RawFd) -> io::Result<()> {
    setsockopt_int(fd, libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, 1)
}

/// Space for one SCM_TIMESTAMPNS control message per frame.
const CMSG_LEN: usize = 64;

/// Receives up to `bufs.len()` frames with one recvmmsg. `lens[i]` gets the
/// length of frame i; `trunc[i]` whether it did not fit; `stamps[i]` the
/// kernel's receive time (CLOCK_REALTIME ns, 0 if none). Returns how many.
pub fn recv_batch(
    fd: RawFd,
    bufs: &mut [Box<[u8]>],
    lens: &mut [usize],
    trunc: &mut [bool],
    stamps: &mut [u64],
) -> io::Result<usize> {
    let n = bufs.len().min(lens.len()).min(trunc.len()).min(stamps.len());
    let mut iov: Vec<libc::iovec> = Vec::with_capacity(n);
    for b in bufs.iter_mut().take(n) {
        iov.push(libc::iovec { iov_base: b.as_mut_ptr() as *mut _, iov_len: b.len() });
    }
    let mut control = vec![0u64; n * CMSG_LEN / 8];
    // SAFETY: zeroed mmsghdr is valid (null name/control).
    let mut msgs: Vec<libc::mmsghdr> = (0..n).map(|_| unsafe { std::mem::zeroed() }).collect();
    for (i, (m, v)) in msgs.iter_mut().zip(iov.iter_mut()).enumerate() {
        m.msg_hdr.msg_iov = v;
        m.msg_hdr.msg_iovlen = 1;
        m.msg_hdr.msg_control = control[i * CMSG_LEN / 8..].as_mut_ptr() as *mut _;
        m.msg_hdr.msg_controllen = CMSG_LEN as _;
    }
    // SAFETY: msgs point at iovecs that point at live buffers, and at
    // control buffers of CMSG_LEN bytes each.
    let r = unsafe {
        libc::recvmmsg(fd, msgs.as_mut_ptr(), n as _, libc::MSG_DONTWAIT | libc::MSG_TRUNC, std::ptr::null_mut())
    };
    if r < 0 {
        let e = io::Error::last_os_error();
        return match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(0),
            _ => Err(e),
        };
    }
    let r = r as usize;
    for i in 0..r {
        let len = msgs[i].msg_len as usize;
        trunc[i] = len > bufs[i].len() || msgs[i].msg_hdr.msg_flags & libc::MSG_TRUNC != 0;
        lens[i] = len.min(bufs[i].len());
        stamps[i] = 0;
        // SAFETY: the kernel filled msg_control/msg_controllen; the CMSG
        // macros walk within them.
        unsafe {
            let mut c = libc::CMSG_FIRSTHDR(&msgs[i].msg_hdr);
            while !c.is_null() {
                if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                    let ts = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec);
                    stamps[i] = ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64;
                }
                c = libc::CMSG_NXTHDR(&msgs[i].msg_hdr, c);
            }
        }
    }
    Ok(r)
}

/// Sends frames with one sendmmsg (several if the kernel takes fewer).
/// Returns how many were sent; frames the kernel refuses (a full peer
/// backlog) count as sent and lost, like a NIC dropping.
pub fn send_batch(fd: RawFd, frames: &[&[u8]]) -> (usize, usize) {
    let mut iov: Vec<libc::iovec> =
        frames.iter().map(|f| libc::iovec { iov_base: f.as_ptr() as *mut _, iov_len: f.len() }).collect();
    // SAFETY: zeroed mmsghdr is valid.
    let mut msgs: Vec<libc::mmsghdr> = (0..frames.len()).map(|_| unsafe { std::mem::zeroed() }).collect();
    for (m, v) in msgs.iter_mut().zip(iov.iter_mut()) {
        m.msg_hdr.msg_iov = v;
        m.msg_hdr.msg_iovlen = 1;
    }
    let (mut done, mut failed) = (0, 0);
    while done + failed < frames.len() {
        let at = done + failed;
        // SAFETY: the remaining msgs point at live frames.
        let r = unsafe { libc::sendmmsg(fd, msgs[at..].as_mut_ptr(), (frames.len() - at) as _, libc::MSG_DONTWAIT) };
        if r > 0 {
            done += r as usize;
        } else {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            // The frame at the head could not be sent: skip it.
            failed += 1;
        }
    }
    (done, failed)
}

/// Reads frames from a TUN device, one read each, until `bufs` is full or
/// the device is empty.
pub fn read_batch(
    fd: RawFd,
    bufs: &mut [Box<[u8]>],
    lens: &mut [usize],
    trunc: &mut [bool],
    stamps: &mut [u64],
) -> io::Result<usize> {
    let mut n = 0;
    while n < bufs.len() {
        // SAFETY: buffer pointer and length of a live buffer.
        let r = unsafe { libc::read(fd, bufs[n].as_mut_ptr() as *mut _, bufs[n].len()) };
        if r < 0 {
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::WouldBlock => break,
                io::ErrorKind::Interrupted => continue,
                _ => return Err(e),
            }
        }
        lens[n] = r as usize;
        trunc[n] = false;
        stamps[n] = 0;
        n += 1;
    }
    Ok(n)
}

/// Writes frames to a TUN device, one write each.
pub fn write_batch(fd: RawFd, frames: &[&[u8]]) -> (usize, usize) {
    let (mut done, mut failed) = (0, 0);
    for f in frames {
        // SAFETY: pointer and length of a live frame.
        let r = unsafe { libc::write(fd, f.as_ptr() as *const _, f.len()) };
        if r < 0 {
            failed += 1;
        } else {
            done += 1;
        }
    }
    (done, failed)
}

/// Waits until `fd` is readable or `timeout_ns` passed (ns precision with
/// a small timer slack).
pub fn wait_readable(fd: RawFd, timeout_ns: u64) {
    let mut pfd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    let ts = libc::timespec { tv_sec: (timeout_ns / 1_000_000_000) as _, tv_nsec: (timeout_ns % 1_000_000_000) as _ };
    // SAFETY: one pollfd, a valid timespec, no signal mask change.
    unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
}

/// Sleeps until `t` on CLOCK_MONOTONIC (absolute, so no drift).
pub fn sleep_until(t: Instant) {
    let ns = t.as_nanos();
    let ts = libc::timespec { tv_sec: (ns / 1_000_000_000) as _, tv_nsec: (ns % 1_000_000_000) as _ };
    // SAFETY: a valid timespec; an interrupted sleep just returns early.
    unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut()) };
}

// --------------------------------------------------------------- signals

use std::sync::atomic::{AtomicI32, Ordering};

static LAST_SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    LAST_SIGNAL.store(sig, Ordering::SeqCst);
}

/// Routes SIGINT, SIGTERM and SIGHUP to a flag read by [`take_signal`].
pub fn install_signal_handlers() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only stores to an atomic (async-signal-safe).
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as *const () as usize;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// Restores the default action of the signals [`install_signal_handlers`]
/// took.
pub fn restore_signal_handlers() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: resetting to SIG_DFL.
        unsafe { libc::signal(sig, libc::SIG_DFL) };
    }
}

/// The last signal received since the previous call, if any.
pub fn take_signal() -> Option<i32> {
    match LAST_SIGNAL.swap(0, Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Blocks SIGINT/SIGTERM/SIGHUP in the calling thread (worker threads, so
/// that the main thread receives them).
pub fn block_signals_in_this_thread() {
    // SAFETY: manipulating a local sigset and the thread's mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::sigaddset(&mut set, sig);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// Sends `sig` to process `pid` (negative: a process group).
pub fn kill(pid: i32, sig: i32) -> bool {
    // SAFETY: plain syscall.
    unsafe { libc::kill(pid, sig) == 0 }
}

/// Takes an exclusive flock on `file`; `wait`: block until it is free.
pub fn flock(file: &std::fs::File, wait: bool) -> bool {
    let op = if wait { libc::LOCK_EX } else { libc::LOCK_EX | libc::LOCK_NB };
    // SAFETY: plain syscall on an open file.
    unsafe { libc::flock(file.as_raw_fd(), op) == 0 }
}

/// Supplementary groups of `user` (its primary group `gid` included), for
/// running a command as that user.
pub fn user_groups(uid: u32, gid: u32) -> Vec<libc::gid_t> {
    // SAFETY: getpwuid_r with a buffer we own; getgrouplist with a sized
    // array. Called before fork, never in a child.
    unsafe {
        let mut pw: libc::passwd = std::mem::zeroed();
        let mut buf = vec![0 as libc::c_char; 16384];
        let mut res: *mut libc::passwd = std::ptr::null_mut();
        if libc::getpwuid_r(uid, &mut pw, buf.as_mut_ptr(), buf.len(), &mut res) != 0 || res.is_null() {
            return vec![gid];
        }
        let mut n: libc::c_int = 256;
        let mut groups = vec![0 as libc::gid_t; n as usize];
        if libc::getgrouplist(pw.pw_name, gid, groups.as_mut_ptr(), &mut n) < 0 {
            return vec![gid];
        }
        groups.truncate(n.max(0) as usize);
        groups
    }
}
