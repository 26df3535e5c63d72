//! Which interface the kernel sends to a peer through: the route lookup of
//! `ip route get ADDR`, asked over rtnetlink (RTM_GETROUTE, rtnetlink(7)),
//! with libc only.
//!
//! A request is one `nlmsghdr` + `rtmsg` + an `RTA_DST` attribute; the
//! kernel answers one `RTM_NEWROUTE` whose `RTA_OIF` attribute is the
//! egress interface (or an `NLMSG_ERROR`, e.g. `ENETUNREACH`). Its name
//! comes from a second request, `RTM_GETLINK` for that index (`IFLA_IFNAME`).
//! Both are asked on a socket opened for the query and closed after it, so
//! no descriptor is kept in the process (the shim runs inside programs that
//! close or reuse descriptors) and no network namespace is pinned (the
//! daemon asks inside other namespaces, [`query_in_netns`]).
//!
//! Replies are parsed by [`parse_route`] and [`parse_link`]: every length
//! is checked against the buffer before it is read, a message or attribute
//! that claims more than the buffer holds ends the parse with an error, and
//! nothing here panics on any input.

use std::io;
use std::net::IpAddr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::raw::c_void;

const NLMSG_HDRLEN: usize = 16;
const RTMSG_LEN: usize = 12;
const IFINFOMSG_LEN: usize = 16;
const RTA_HDRLEN: usize = 4;

const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;
const RTM_NEWLINK: u16 = 16;
const RTM_GETLINK: u16 = 18;
const RTM_NEWROUTE: u16 = 24;
const RTM_GETROUTE: u16 = 26;
const NLM_F_REQUEST: u16 = 1;

const RTA_DST: u16 = 1;
const RTA_OIF: u16 = 4;
const IFLA_IFNAME: u16 = 3;

/// `rtm_type` of a route to an address of this host.
const RTN_LOCAL: u8 = 2;
/// `rtm_type` of an ordinary route.
const RTN_UNICAST: u8 = 1;

/// The longest interface name (IFNAMSIZ less its NUL).
const IFNAME_MAX: usize = 15;

/// How long a query waits for the kernel's answer.
const REPLY_TIMEOUT_MS: i64 = 200;

/// The receive buffer of a query: a route reply is about 100 bytes, a link
/// reply 1-3 KB (its statistics); anything longer is cut and refused.
const REPLY_BUF: usize = 32 << 10;

/// What the kernel said about the route to a peer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RouteTo {
    /// An address of this host: the packets go through `lo`.
    Local,
    /// A route through the interface of this index.
    Via(u32),
}

/// Why a route or an interface could not be read.
#[derive(Debug, PartialEq, Eq)]
pub enum RouteError {
    /// The kernel answered with an error (a negated errno: ENETUNREACH, ...).
    Kernel(i32),
    /// A message or attribute that does not fit the buffer or its type.
    Malformed(&'static str),
    /// No answer to our request in the buffer.
    NoAnswer,
    /// A route without an egress interface (blackhole, unreachable, ...).
    NoInterface,
    /// A system call failed (socket, send, receive, setns).
    Sys(&'static str, i32),
    /// No process of the controlled cgroup lives in the socket's network
    /// namespace (inode number), so its routes cannot be asked.
    NoNamespace(u32),
}

impl std::fmt::Display for RouteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RouteError::Kernel(e) => {
                write!(f, "the kernel refused the route lookup: {}", io::Error::from_raw_os_error(*e))
            }
            RouteError::Malformed(what) => write!(f, "malformed rtnetlink reply: {what}"),
            RouteError::NoAnswer => f.write_str("no rtnetlink answer to the request"),
            RouteError::NoInterface => f.write_str("the route has no egress interface"),
            RouteError::Sys(call, e) => write!(f, "{call} failed: {}", io::Error::from_raw_os_error(*e)),
            RouteError::NoNamespace(ns) => write!(f, "no process of the cgroup is in network namespace {ns}"),
        }
    }
}

impl std::error::Error for RouteError {}

fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_ne_bytes());
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_ne_bytes());
}

/// A request message: header, `body`, then attributes (type, payload),
/// each padded to 4 bytes (NLMSG_ALIGN, RTA_ALIGN).
fn request(kind: u16, seq: u32, body: &[u8], attrs: &[(u16, &[u8])]) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    put_u32(&mut out, 0); // length, set below
    put_u16(&mut out, kind);
    put_u16(&mut out, NLM_F_REQUEST);
    put_u32(&mut out, seq);
    put_u32(&mut out, 0); // to the kernel
    out.extend_from_slice(body);
    for (ty, payload) in attrs {
        put_u16(&mut out, (RTA_HDRLEN + payload.len()) as u16);
        put_u16(&mut out, *ty);
        out.extend_from_slice(payload);
        out.resize(out.len().next_multiple_of(4), 0);
    }
    let len = out.len() as u32;
    out[..4].copy_from_slice(&len.to_ne_bytes());
    out
}

/// An IPv4-mapped IPv6 address as the IPv4 address it carries (a dual-stack
/// socket's peer), whose route is the IPv4 one.
pub fn unmapped(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(addr, IpAddr::V4),
        v4 => v4,
    }
}

/// RTM_GETROUTE for `addr` (`ip route get ADDR`).
pub fn route_request(seq: u32, addr: IpAddr) -> Vec<u8> {
    let (family, bits, bytes): (u8, u8, Vec<u8>) = match unmapped(addr) {
        IpAddr::V4(a) => (libc::AF_INET as u8, 32, a.octets().to_vec()),
        IpAddr::V6(a) => (libc::AF_INET6 as u8, 128, a.octets().to_vec()),
    };
    // rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags.
    let mut rtm = [0u8; RTMSG_LEN];
    rtm[0] = family;
    rtm[1] = bits;
    request(RTM_GETROUTE, seq, &rtm, &[(RTA_DST, &bytes)])
}

/// RTM_GETLINK for the interface `index` (`ip link show dev INDEX`).
pub fn link_request(seq: u32, index: u32) -> Vec<u8> {
    // ifinfomsg: family, pad, type, index, flags, change.
    let mut ifi = [0u8; IFINFOMSG_LEN];
    ifi[4..8].copy_from_slice(&(index as i32).to_ne_bytes());
    request(RTM_GETLINK, seq, &ifi, &[])
}

fn u16_at(b: &[u8], off: usize) -> Option<u16> {
    Some(u16::from_ne_bytes(b.get(off..off.checked_add(2)?)?.try_into().ok()?))
}

fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(off..off.checked_add(4)?)?.try_into().ok()?))
}

/// The messages of a reply buffer: (type, seq, payload after the header).
/// A header that claims less than itself or more than the buffer ends the
/// walk with an error.
fn messages(buf: &[u8]) -> impl Iterator<Item = Result<(u16, u32, &[u8]), RouteError>> {
    let mut rest = buf;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let parsed = (|| {
            let len = u32_at(rest, 0).ok_or(RouteError::Malformed("message header cut short"))? as usize;
            let kind = u16_at(rest, 4).ok_or(RouteError::Malformed("message header cut short"))?;
            let seq = u32_at(rest, 8).ok_or(RouteError::Malformed("message header cut short"))?;
            if len < NLMSG_HDRLEN || len > rest.len() {
                return Err(RouteError::Malformed("message length outside the buffer"));
            }
            let payload = &rest[NLMSG_HDRLEN..len];
            rest = rest.get(len.next_multiple_of(4)..).unwrap_or(&[]);
            Ok((kind, seq, payload))
        })();
        if parsed.is_err() {
            rest = &[];
        }
        Some(parsed)
    })
}

/// The attributes after a fixed header: (type, payload).
fn attributes(b: &[u8]) -> impl Iterator<Item = Result<(u16, &[u8]), RouteError>> {
    let mut rest = b;
    std::iter::from_fn(move || {
        if rest.len() < RTA_HDRLEN {
            // Fewer than a header's bytes left: padding, or nothing.
            return None;
        }
        let len = u16_at(rest, 0).unwrap_or(0) as usize;
        let ty = u16_at(rest, 2).unwrap_or(0);
        if len < RTA_HDRLEN || len > rest.len() {
            rest = &[];
            return Some(Err(RouteError::Malformed("attribute length outside its message")));
        }
        let payload = &rest[RTA_HDRLEN..len];
        rest = rest.get(len.next_multiple_of(4)..).unwrap_or(&[]);
        // The type's top bits are flags (NLA_F_NESTED, NLA_F_NET_BYTEORDER).
        Some(Ok((ty & 0x3fff, payload)))
    })
}

/// The answer to our request `seq` in `buf`: its payload, or the kernel's
/// error. Messages of other numbers (a late answer to an earlier request)
/// are passed over.
fn answer(buf: &[u8], seq: u32, want: u16) -> Result<&[u8], RouteError> {
    for m in messages(buf) {
        let (kind, s, payload) = m?;
        if s != seq {
            continue;
        }
        match kind {
            NLMSG_ERROR => {
                let code = u32_at(payload, 0).ok_or(RouteError::Malformed("error message cut short"))? as i32;
                // 0 is an acknowledgement, not an answer.
                return Err(if code == 0 { RouteError::NoAnswer } else { RouteError::Kernel(code.saturating_neg()) });
            }
            NLMSG_DONE => return Err(RouteError::NoAnswer),
            k if k == want => return Ok(payload),
            _ => {}
        }
    }
    Err(RouteError::NoAnswer)
}

/// Parses the answer to [`route_request`] number `seq`.
pub fn parse_route(buf: &[u8], seq: u32) -> Result<RouteTo, RouteError> {
    let payload = answer(buf, seq, RTM_NEWROUTE)?;
    let rtm = payload.get(..RTMSG_LEN).ok_or(RouteError::Malformed("route message shorter than rtmsg"))?;
    let rtm_type = rtm[7];
    let mut oif = None;
    for a in attributes(&payload[RTMSG_LEN..]) {
        let (ty, data) = a?;
        if ty == RTA_OIF {
            oif = Some(
                u32_at(data, 0).filter(|_| data.len() == 4).ok_or(RouteError::Malformed("RTA_OIF is not 4 bytes"))?,
            );
        }
    }
    match (rtm_type, oif) {
        (RTN_LOCAL, _) => Ok(RouteTo::Local),
        (RTN_UNICAST, Some(i)) if i > 0 => Ok(RouteTo::Via(i)),
        _ => Err(RouteError::NoInterface),
    }
}

/// Parses the answer to [`link_request`] number `seq`: the interface's name.
pub fn parse_link(buf: &[u8], seq: u32) -> Result<String, RouteError> {
    let payload = answer(buf, seq, RTM_NEWLINK)?;
    let rest = payload.get(IFINFOMSG_LEN..).ok_or(RouteError::Malformed("link message shorter than ifinfomsg"))?;
    for a in attributes(rest) {
        let (ty, data) = a?;
        if ty == IFLA_IFNAME {
            let name = data.split(|&b| b == 0).next().unwrap_or(&[]);
            let ok = !name.is_empty()
                && name.len() <= IFNAME_MAX
                && name.iter().all(|&c| c.is_ascii_graphic() && c != b'/' && c != b',');
            return if ok {
                Ok(String::from_utf8_lossy(name).into_owned())
            } else {
                Err(RouteError::Malformed("IFLA_IFNAME is not an interface name"))
            };
        }
    }
    Err(RouteError::Malformed("no IFLA_IFNAME in the link message"))
}

fn errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// A fresh rtnetlink socket in the calling thread's network namespace,
/// with a receive timeout.
fn open() -> Result<OwnedFd, RouteError> {
    // SAFETY: plain socket(2).
    let fd = unsafe { libc::socket(libc::AF_NETLINK, libc::SOCK_RAW | libc::SOCK_CLOEXEC, libc::NETLINK_ROUTE) };
    if fd < 0 {
        return Err(RouteError::Sys("socket(AF_NETLINK)", errno()));
    }
    // SAFETY: a descriptor we just opened.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let tv = libc::timeval { tv_sec: 0, tv_usec: (REPLY_TIMEOUT_MS * 1000) as libc::suseconds_t };
    // SAFETY: `tv` is valid for the size given.
    let r = unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            (&tv as *const libc::timeval).cast::<c_void>(),
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        )
    };
    if r != 0 {
        return Err(RouteError::Sys("setsockopt(SO_RCVTIMEO)", errno()));
    }
    Ok(fd)
}

/// Sends `req` to the kernel on `fd` and returns what came back from it
/// (messages from any other sender are dropped).
fn exchange(fd: RawFd, req: &[u8], buf: &mut [u8]) -> Result<usize, RouteError> {
    // SAFETY: an all-zero sockaddr_nl is valid; pid 0 is the kernel.
    let mut kernel: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
    kernel.nl_family = libc::AF_NETLINK as libc::sa_family_t;
    let len = std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t;
    // SAFETY: `req` and `kernel` are valid for the lengths given.
    let sent = unsafe {
        libc::sendto(fd, req.as_ptr().cast(), req.len(), 0, (&kernel as *const libc::sockaddr_nl).cast(), len)
    };
    if sent < 0 {
        return Err(RouteError::Sys("sendto(rtnetlink)", errno()));
    }
    for _ in 0..8 {
        // SAFETY: as above; the kernel writes at most `from_len` bytes.
        let mut from: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        let mut from_len = len;
        // SAFETY: `buf` is valid for writes of its length.
        let n = unsafe {
            libc::recvfrom(
                fd,
                buf.as_mut_ptr().cast(),
                buf.len(),
                libc::MSG_TRUNC,
                (&mut from as *mut libc::sockaddr_nl).cast(),
                &mut from_len,
            )
        };
        if n < 0 {
            let e = errno();
            if e == libc::EINTR {
                continue;
            }
            return Err(RouteError::Sys("recvfrom(rtnetlink)", e));
        }
        if from.nl_pid != 0 {
            continue; // not the kernel's
        }
        if n as usize > buf.len() {
            return Err(RouteError::Malformed("reply longer than the buffer"));
        }
        return Ok(n as usize);
    }
    Err(RouteError::NoAnswer)
}

static SEQ: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);

/// The interface the kernel sends to `addr` through, on `fd`: `None` for
/// an address of this host (loopback), else (index, name).
fn lookup(fd: RawFd, addr: IpAddr) -> Result<Option<(u32, String)>, RouteError> {
    let mut buf = vec![0u8; REPLY_BUF];
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let n = exchange(fd, &route_request(seq, addr), &mut buf)?;
    let index = match parse_route(&buf[..n], seq)? {
        RouteTo::Local => return Ok(None),
        RouteTo::Via(i) => i,
    };
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let n = exchange(fd, &link_request(seq, index), &mut buf)?;
    Ok(Some((index, parse_link(&buf[..n], seq)?)))
}

/// `ip route get ADDR` in the calling thread's network namespace.
pub fn query(addr: IpAddr) -> Result<Option<(u32, String)>, RouteError> {
    let fd = open()?;
    lookup(fd.as_raw_fd(), addr)
}

/// [`query`] inside the network namespace `netns` (an open
/// `/proc/PID/ns/net`): a short-lived thread enters it (setns(2) changes
/// only the calling thread's namespace), opens the socket there and ends;
/// the socket stays bound to that namespace, and is closed after the query
/// so that it keeps nothing alive.
pub fn query_in_netns(netns: &std::fs::File, addr: IpAddr) -> Result<Option<(u32, String)>, RouteError> {
    let ns = netns.as_raw_fd();
    let fd = std::thread::scope(|s| {
        s.spawn(|| {
            // SAFETY: setns on an open namespace file, in this thread only.
            if unsafe { libc::setns(ns, libc::CLONE_NEWNET) } != 0 {
                return Err(RouteError::Sys("setns(CLONE_NEWNET)", errno()));
            }
            open()
        })
        .join()
        .unwrap_or(Err(RouteError::NoAnswer))
    })?;
    lookup(fd.as_raw_fd(), addr)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reply message: header (type, seq) and payload.
    fn msg(kind: u16, seq: u32, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        put_u32(&mut out, (NLMSG_HDRLEN + payload.len()) as u32);
        put_u16(&mut out, kind);
        put_u16(&mut out, 0);
        put_u32(&mut out, seq);
        put_u32(&mut out, 0);
        out.extend_from_slice(payload);
        out.resize(out.len().next_multiple_of(4), 0);
        out
    }

    fn attr(ty: u16, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        put_u16(&mut out, (RTA_HDRLEN + data.len()) as u16);
        put_u16(&mut out, ty);
        out.extend_from_slice(data);
        out.resize(out.len().next_multiple_of(4), 0);
        out
    }

    fn route_reply(seq: u32, rtm_type: u8, oif: Option<u32>) -> Vec<u8> {
        let mut p = vec![libc::AF_INET as u8, 32, 0, 0, 254, 0, 0, rtm_type, 0, 0, 0, 0];
        p.extend(attr(RTA_DST, &[10, 0, 0, 1]));
        if let Some(i) = oif {
            p.extend(attr(RTA_OIF, &i.to_ne_bytes()));
        }
        p.extend(attr(7 /* RTA_PREFSRC */, &[10, 0, 0, 2]));
        msg(RTM_NEWROUTE, seq, &p)
    }

    fn link_reply(seq: u32, name: &[u8]) -> Vec<u8> {
        let mut p = vec![0u8; IFINFOMSG_LEN];
        p.extend(attr(4 /* IFLA_MTU */, &1500u32.to_ne_bytes()));
        p.extend(attr(IFLA_IFNAME, name));
        msg(RTM_NEWLINK, seq, &p)
    }

    #[test]
    fn requests_have_the_layout_of_rtnetlink() {
        let r = route_request(7, "10.1.2.3".parse().unwrap());
        assert_eq!(r.len(), NLMSG_HDRLEN + RTMSG_LEN + 8);
        assert_eq!(u32_at(&r, 0), Some(r.len() as u32));
        assert_eq!((u16_at(&r, 4), u16_at(&r, 6), u32_at(&r, 8)), (Some(RTM_GETROUTE), Some(NLM_F_REQUEST), Some(7)));
        assert_eq!((r[16], r[17]), (libc::AF_INET as u8, 32));
        assert_eq!(&r[28..36], &[8, 0, 1, 0, 10, 1, 2, 3]);
        let r6 = route_request(8, "fd00::1".parse().unwrap());
        assert_eq!((r6.len(), r6[16], r6[17]), (NLMSG_HDRLEN + RTMSG_LEN + 20, libc::AF_INET6 as u8, 128));
        // A dual-stack socket's IPv4 peer is looked up as IPv4.
        let m = route_request(9, "::ffff:10.1.2.3".parse().unwrap());
        assert_eq!(&m[16..], &r[16..]);
        let l = link_request(3, 42);
        assert_eq!((l.len(), u16_at(&l, 4), u32_at(&l, 20)), (32, Some(RTM_GETLINK), Some(42)));
    }

    #[test]
    fn a_route_reply_gives_its_interface_or_local() {
        assert_eq!(parse_route(&route_reply(5, RTN_UNICAST, Some(3)), 5), Ok(RouteTo::Via(3)));
        assert_eq!(parse_route(&route_reply(5, RTN_LOCAL, Some(1)), 5), Ok(RouteTo::Local));
        assert_eq!(parse_route(&route_reply(5, 6 /* RTN_BLACKHOLE */, None), 5), Err(RouteError::NoInterface));
        assert_eq!(parse_route(&route_reply(5, RTN_UNICAST, None), 5), Err(RouteError::NoInterface));
        assert_eq!(parse_route(&route_reply(5, RTN_UNICAST, Some(0)), 5), Err(RouteError::NoInterface));
        // A late answer to an earlier request comes first: passed over.
        let mut two = route_reply(4, RTN_UNICAST, Some(9));
        two.extend(route_reply(5, RTN_UNICAST, Some(3)));
        assert_eq!(parse_route(&two, 5), Ok(RouteTo::Via(3)));
        assert_eq!(parse_route(&route_reply(4, RTN_UNICAST, Some(9)), 5), Err(RouteError::NoAnswer));
    }

    #[test]
    fn the_kernels_error_is_returned_with_its_errno() {
        let mut p = (-libc::ENETUNREACH).to_ne_bytes().to_vec();
        p.extend(&route_request(5, "10.0.0.1".parse().unwrap())[..NLMSG_HDRLEN]);
        assert_eq!(parse_route(&msg(NLMSG_ERROR, 5, &p), 5), Err(RouteError::Kernel(libc::ENETUNREACH)));
        assert_eq!(parse_route(&msg(NLMSG_ERROR, 5, &0i32.to_ne_bytes()), 5), Err(RouteError::NoAnswer));
        assert_eq!(
            parse_route(&msg(NLMSG_ERROR, 5, &[1, 2]), 5),
            Err(RouteError::Malformed("error message cut short"))
        );
        assert_eq!(parse_route(&msg(NLMSG_ERROR, 5, &i32::MIN.to_ne_bytes()), 5), Err(RouteError::Kernel(i32::MAX)));
        assert_eq!(parse_route(&msg(NLMSG_DONE, 5, &[0; 4]), 5), Err(RouteError::NoAnswer));
    }

    #[test]
    fn truncated_and_malformed_replies_are_errors_never_panics() {
        let good = route_reply(5, RTN_UNICAST, Some(3));
        // Every prefix of a good reply: an error or (at full length) the answer.
        for cut in 0..good.len() {
            let r = parse_route(&good[..cut], 5);
            assert!(r.is_err(), "cut at {cut}: {r:?}");
        }
        // A header claiming more than the buffer, or less than itself.
        let mut long = good.clone();
        long[..4].copy_from_slice(&(good.len() as u32 + 1).to_ne_bytes());
        assert_eq!(parse_route(&long, 5), Err(RouteError::Malformed("message length outside the buffer")));
        let mut short = good.clone();
        short[..4].copy_from_slice(&8u32.to_ne_bytes());
        assert!(parse_route(&short, 5).is_err());
        let mut huge = good.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_ne_bytes());
        assert!(parse_route(&huge, 5).is_err());
        // An attribute claiming more than its message, or less than its header.
        let mut bad_attr = good.clone();
        let first_attr = NLMSG_HDRLEN + RTMSG_LEN;
        bad_attr[first_attr..first_attr + 2].copy_from_slice(&200u16.to_ne_bytes());
        assert_eq!(parse_route(&bad_attr, 5), Err(RouteError::Malformed("attribute length outside its message")));
        bad_attr[first_attr..first_attr + 2].copy_from_slice(&2u16.to_ne_bytes());
        assert!(parse_route(&bad_attr, 5).is_err());
        // RTA_OIF of the wrong size.
        let mut p = vec![libc::AF_INET as u8, 32, 0, 0, 254, 0, 0, RTN_UNICAST, 0, 0, 0, 0];
        p.extend(attr(RTA_OIF, &[1, 0]));
        assert_eq!(parse_route(&msg(RTM_NEWROUTE, 5, &p), 5), Err(RouteError::Malformed("RTA_OIF is not 4 bytes")));
        // A route message without its rtmsg.
        assert!(parse_route(&msg(RTM_NEWROUTE, 5, &[0; 6]), 5).is_err());
        // Random bytes.
        let mut x: u64 = 0x9e3779b97f4a7c15;
        for len in 0..300 {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            let _ = parse_route(&bytes, 5);
            let _ = parse_link(&bytes, 5);
        }
    }

    #[test]
    fn a_link_reply_gives_a_checked_name() {
        assert_eq!(parse_link(&link_reply(6, b"veth-a\0"), 6), Ok("veth-a".to_string()));
        assert_eq!(parse_link(&link_reply(6, b"eth0"), 6), Ok("eth0".to_string()));
        for bad in [&b"\0"[..], b"a name too long!!", b"a b", b"x/y", b"\xff\xfe"] {
            assert!(parse_link(&link_reply(6, bad), 6).is_err(), "{bad:?}");
        }
        let good = link_reply(6, b"eth0\0");
        for cut in 0..good.len() {
            assert!(parse_link(&good[..cut], 6).is_err(), "cut at {cut}");
        }
        assert!(parse_link(&msg(RTM_NEWLINK, 6, &[0; IFINFOMSG_LEN]), 6).is_err());
    }

    #[test]
    fn the_kernel_routes_an_address_of_this_host_through_lo() {
        // Every Linux network namespace has lo with 127.0.0.1.
        assert_eq!(query("127.0.0.1".parse().unwrap()), Ok(None));
        assert_eq!(query("127.3.2.1".parse().unwrap()), Ok(None));
        let ns = std::fs::File::open("/proc/self/ns/net").unwrap();
        assert_eq!(query_in_netns(&ns, "127.0.0.1".parse().unwrap()), Ok(None));
    }
}
