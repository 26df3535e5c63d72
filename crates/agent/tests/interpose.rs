//! The LD_PRELOAD shim in a real process: each test runs this test binary
//! again as a child under `rtac-dev run` (LD_PRELOAD=librtac_preload.so),
//! where `child` performs the socket calls and checks, with the shim's own
//! state (rtac_shim_fd_state) and the kernel's TCP_WINDOW_CLAMP, what was
//! controlled and what was left alone. The child uses the `static`
//! controller with rmem_max=54321, so a controlled socket's clamp is
//! exactly 54321.
//!
//! Loopback only: these tests need no root.

use std::ffi::{c_int, c_void};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd};
use std::process::{Command, Output};

const CHILD_ENV: &str = "RTAC_TEST_CHILD";
const CLAMP: u64 = 54_321;

const UNKNOWN: c_int = 0;
const IGNORED: c_int = 1;
const CONTROLLED: c_int = 2;
const DISABLED: c_int = 3;

fn preload() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    for p in [deps.join("librtac_preload.so"), deps.parent().unwrap().join("librtac_preload.so")] {
        if p.exists() {
            return p;
        }
    }
    panic!("librtac_preload.so not found next to {}; build the workspace first", exe.display());
}

/// Runs `child` in this test binary under `rtac-dev run`.
fn run_child(mode: &str, controller: &str, params: &str, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rtac-dev"));
    c.args(["run", "--mode", "preload", "--controller", controller, "--preload"]).arg(preload());
    if !params.is_empty() {
        c.args(["--param", params]);
    }
    c.arg("--").arg(std::env::current_exe().unwrap());
    c.args(["child", "--exact", "--nocapture", "--test-threads=1"]);
    c.env(CHILD_ENV, mode).envs(env.iter().copied());
    let out = c.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && text.contains("CHILD-OK"), "child {mode} failed: {}\n{text}\n{err}", out.status);
    out
}

fn stderr_of(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The child's entry; a no-op in a normal test run.
#[test]
fn child() {
    let Ok(mode) = std::env::var(CHILD_ENV) else { return };
    match mode.as_str() {
        "calls" => child_calls(),
        "ipv6" => child_ipv6(),
        "threads" => child_threads(),
        "nonblocking" => child_nonblocking(),
        "others" => child_others(),
        "many" => child_many(),
        "reuse" => child_reuse(),
        "fallback-clamp" => child_fallback(Deny::SetClamp),
        "fallback-info" => child_fallback(Deny::TcpInfo),
        "inactive" => child_inactive(),
        m => panic!("unknown child mode {m}"),
    }
    println!("CHILD-OK");
}

// ---------------------------------------------------------------------------
// helpers for the child

fn fd_state(fd: c_int) -> c_int {
    // SAFETY: looks up a symbol of the preloaded shim.
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"rtac_shim_fd_state".as_ptr()) };
    assert!(!p.is_null(), "the shim is not loaded");
    // SAFETY: the shim exports `int rtac_shim_fd_state(int)`.
    let f: extern "C" fn(c_int) -> c_int = unsafe { std::mem::transmute(p) };
    f(fd)
}

fn shim_active() -> bool {
    // SAFETY: as in fd_state.
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"rtac_shim_active".as_ptr()) };
    assert!(!p.is_null(), "the shim is not loaded");
    // SAFETY: the shim exports `int rtac_shim_active(void)`.
    let f: extern "C" fn() -> c_int = unsafe { std::mem::transmute(p) };
    f() == 1
}

fn clamp(fd: c_int) -> u64 {
    let mut v: c_int = 0;
    let mut len = 4 as libc::socklen_t;
    // SAFETY: valid out-pointers.
    let r = unsafe {
        libc::getsockopt(fd, libc::IPPROTO_TCP, libc::TCP_WINDOW_CLAMP, (&mut v as *mut c_int).cast(), &mut len)
    };
    assert_eq!(r, 0);
    v as u64
}

fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| ((i * 31 + seed as usize) % 251) as u8).collect()
}

/// A connection whose peer (a thread) writes `data` and closes.
fn source(addr: &str, data: Vec<u8>) -> TcpStream {
    let l = TcpListener::bind(addr).unwrap();
    let a = l.local_addr().unwrap();
    std::thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        s.write_all(&data).unwrap();
    });
    TcpStream::connect(a).unwrap()
}

/// A connection whose peer writes `data`, then answers one byte `?` with
/// `!` and closes (see `check_clamp_after_a_step`).
fn source_with_echo(addr: &str, data: Vec<u8>) -> TcpStream {
    let l = TcpListener::bind(addr).unwrap();
    let a = l.local_addr().unwrap();
    std::thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        s.write_all(&data).unwrap();
        let mut q = [0u8; 1];
        if s.read_exact(&mut q).is_ok() && &q == b"?" {
            let _ = s.write_all(b"!");
        }
    });
    TcpStream::connect(a).unwrap()
}

/// Reads exactly `len` bytes with `f(fd, buf) -> n`.
fn read_exact_with(fd: c_int, len: usize, mut f: impl FnMut(c_int, &mut [u8]) -> isize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 7000];
    while out.len() < len {
        let want = (len - out.len()).min(buf.len());
        let n = f(fd, &mut buf[..want]);
        assert!(n > 0, "read failed or ended early: {n} {}", std::io::Error::last_os_error());
        out.extend_from_slice(&buf[..n as usize]);
    }
    out
}

/// Receive auto-tuning may raise TCP_WINDOW_CLAMP after the shim's last
/// step (the shim sets it again at its next step). So the clamp is checked
/// right after a read that runs a step: wait past the step interval, ask
/// the peer for one more byte, read it, check.
fn check_clamp_after_a_step(what: &str, s: &mut TcpStream) {
    std::thread::sleep(std::time::Duration::from_millis(25));
    s.write_all(b"?").unwrap();
    let mut b = [0u8; 1];
    // SAFETY: valid buffer.
    assert_eq!(unsafe { libc::read(s.as_raw_fd(), b.as_mut_ptr().cast(), 1) }, 1);
    assert_eq!(&b, b"!");
    assert_eq!(clamp(s.as_raw_fd()), CLAMP, "{what}: TCP_WINDOW_CLAMP should be the controller's window");
}

/// Reads until EOF with `f(fd, buf) -> n`.
fn drain(fd: c_int, mut f: impl FnMut(c_int, &mut [u8]) -> isize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 7000];
    loop {
        let n = f(fd, &mut buf);
        assert!(n >= 0, "read failed: {}", std::io::Error::last_os_error());
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&buf[..n as usize]);
    }
}

fn check_controlled(what: &str, fd: c_int) {
    assert_eq!(fd_state(fd), CONTROLLED, "{what}: the socket should be controlled");
}

extern "C" {
    fn __read_chk(fd: c_int, buf: *mut c_void, n: usize, buflen: usize) -> isize;
    fn __recv_chk(fd: c_int, buf: *mut c_void, n: usize, buflen: usize, flags: c_int) -> isize;
    fn __recvfrom_chk(
        fd: c_int,
        buf: *mut c_void,
        n: usize,
        buflen: usize,
        flags: c_int,
        addr: *mut libc::sockaddr,
        len: *mut libc::socklen_t,
    ) -> isize;
}

// ---------------------------------------------------------------------------
// child modes

type Call = fn(c_int, &mut [u8]) -> isize;

fn calls() -> Vec<(&'static str, Call)> {
    // SAFETY (all): `b` is a valid buffer of b.len() bytes.
    vec![
        ("read", |fd, b| unsafe { libc::read(fd, b.as_mut_ptr().cast(), b.len()) }),
        ("recv", |fd, b| unsafe { libc::recv(fd, b.as_mut_ptr().cast(), b.len(), 0) }),
        ("recvfrom", |fd, b| unsafe {
            libc::recvfrom(fd, b.as_mut_ptr().cast(), b.len(), 0, std::ptr::null_mut(), std::ptr::null_mut())
        }),
        ("recvmsg", |fd, b| unsafe {
            let (x, y) = b.split_at_mut(b.len() / 3);
            let mut iov = [
                libc::iovec { iov_base: x.as_mut_ptr().cast(), iov_len: x.len() },
                libc::iovec { iov_base: y.as_mut_ptr().cast(), iov_len: y.len() },
            ];
            let mut m: libc::msghdr = std::mem::zeroed();
            m.msg_iov = iov.as_mut_ptr();
            m.msg_iovlen = 2;
            libc::recvmsg(fd, &mut m, 0)
        }),
        ("readv", |fd, b| unsafe {
            let (x, y) = b.split_at_mut(100);
            let iov = [
                libc::iovec { iov_base: x.as_mut_ptr().cast(), iov_len: x.len() },
                libc::iovec { iov_base: y.as_mut_ptr().cast(), iov_len: y.len() },
            ];
            libc::readv(fd, iov.as_ptr(), 2)
        }),
        ("recvmmsg", |fd, b| unsafe {
            let mut iov = libc::iovec { iov_base: b.as_mut_ptr().cast(), iov_len: b.len() };
            let mut m: libc::mmsghdr = std::mem::zeroed();
            m.msg_hdr.msg_iov = &mut iov;
            m.msg_hdr.msg_iovlen = 1;
            let r = libc::recvmmsg(fd, &mut m, 1, 0, std::ptr::null_mut());
            if r <= 0 {
                r as isize
            } else {
                m.msg_len as isize
            }
        }),
        ("__read_chk", |fd, b| unsafe { __read_chk(fd, b.as_mut_ptr().cast(), b.len(), b.len()) }),
        ("__recv_chk", |fd, b| unsafe { __recv_chk(fd, b.as_mut_ptr().cast(), b.len(), b.len(), 0) }),
        ("__recvfrom_chk", |fd, b| unsafe {
            __recvfrom_chk(fd, b.as_mut_ptr().cast(), b.len(), b.len(), 0, std::ptr::null_mut(), std::ptr::null_mut())
        }),
        ("splice", |fd, b| unsafe {
            // socket -> pipe (spliced: consumed), then pipe -> buffer (a pipe: ignored).
            let mut p = [0 as c_int; 2];
            assert_eq!(libc::pipe(p.as_mut_ptr()), 0);
            let n = libc::splice(fd, std::ptr::null_mut(), p[1], std::ptr::null_mut(), b.len(), 0);
            if n > 0 {
                let mut got = 0;
                while got < n {
                    let m = libc::read(p[0], b[got as usize..].as_mut_ptr().cast(), (n - got) as usize);
                    assert!(m > 0);
                    got += m;
                }
            }
            libc::close(p[0]);
            libc::close(p[1]);
            n
        }),
        ("std::io::Read", |fd, b| {
            // SAFETY: borrows the descriptor without closing it.
            let mut s = std::mem::ManuallyDrop::new(unsafe { TcpStream::from_raw_fd(fd) });
            s.read(b).map(|n| n as isize).unwrap_or(-1)
        }),
    ]
}

fn child_calls() {
    for (i, (name, f)) in calls().into_iter().enumerate() {
        let data = pattern(300_000 + i * 1000, i as u8);
        let mut s = source_with_echo("127.0.0.1:0", data.clone());
        let fd = s.as_raw_fd();
        // MSG_PEEK consumes nothing: it does not count, so it classifies nothing.
        let mut one = [0u8; 1];
        // SAFETY: valid buffer.
        assert_eq!(unsafe { libc::recv(fd, one.as_mut_ptr().cast(), 1, libc::MSG_PEEK) }, 1);
        assert_eq!(fd_state(fd), UNKNOWN, "{name}: MSG_PEEK must not count");
        let got = read_exact_with(fd, data.len(), f);
        assert!(got == data, "{name}: the bytes read differ from the bytes sent");
        check_controlled(name, fd);
        check_clamp_after_a_step(name, &mut s);
        println!("interposed {name}: {} bytes intact, controlled", got.len());
    }
}

fn child_ipv6() {
    let data = pattern(500_000, 9);
    let mut s = source_with_echo("[::1]:0", data.clone());
    assert!(s.peer_addr().unwrap().is_ipv6());
    // SAFETY: valid buffer.
    let got =
        read_exact_with(s.as_raw_fd(), data.len(), |fd, b| unsafe { libc::read(fd, b.as_mut_ptr().cast(), b.len()) });
    assert!(got == data);
    check_controlled("ipv6", s.as_raw_fd());
    check_clamp_after_a_step("ipv6", &mut s);
}

fn child_threads() {
    let handles: Vec<_> = (0..8u8)
        .map(|i| {
            std::thread::spawn(move || {
                let data = pattern(2_000_000, i);
                let mut s = source_with_echo(if i % 2 == 0 { "127.0.0.1:0" } else { "[::1]:0" }, data.clone());
                let mut got = vec![0u8; data.len()];
                s.read_exact(&mut got).unwrap();
                assert!(got == data, "thread {i}: bytes differ");
                check_controlled("thread", s.as_raw_fd());
                check_clamp_after_a_step("thread", &mut s);
                s
            })
        })
        .collect();
    let streams: Vec<TcpStream> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(streams.len(), 8);
    // Two threads reading one socket at once: every byte arrives once.
    let total = 4_000_000usize;
    let s = source("127.0.0.1:0", vec![7u8; total]);
    let fd = s.as_raw_fd();
    let readers: Vec<_> = (0..2)
        .map(|_| {
            std::thread::spawn(move || {
                let mut n = 0usize;
                let mut buf = vec![0u8; 3000];
                loop {
                    // SAFETY: valid buffer; the socket outlives the threads.
                    let r = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), 0) };
                    if r <= 0 {
                        return n;
                    }
                    assert!(buf[..r as usize].iter().all(|&b| b == 7));
                    n += r as usize;
                }
            })
        })
        .collect();
    let n: usize = readers.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(n, total);
    check_controlled("shared socket", fd);
}

fn set_nonblocking(fd: c_int) {
    // SAFETY: plain fcntl on an open descriptor.
    unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        assert_eq!(libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK), 0);
    }
}

/// Reads what is available; Ok(true) at EOF. EAGAIN must reach the program
/// as errno, untouched by the shim.
fn read_available(fd: c_int, out: &mut Vec<u8>) -> bool {
    let mut buf = [0u8; 4096];
    loop {
        // SAFETY: valid buffer.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n > 0 {
            out.extend_from_slice(&buf[..n as usize]);
        } else if n == 0 {
            return true;
        } else {
            let e = std::io::Error::last_os_error().raw_os_error();
            assert_eq!(e, Some(libc::EAGAIN), "a failed read must keep its errno");
            return false;
        }
    }
}

fn child_nonblocking() {
    // epoll, edge-triggered, 16 connections.
    let conns: Vec<(TcpStream, Vec<u8>)> = (0..16u8)
        .map(|i| {
            let d = pattern(400_000 + i as usize, i);
            (source("127.0.0.1:0", d.clone()), d)
        })
        .collect();
    // SAFETY: plain epoll calls with valid arguments.
    let ep = unsafe { libc::epoll_create1(0) };
    for (s, _) in &conns {
        set_nonblocking(s.as_raw_fd());
        let mut ev = libc::epoll_event { events: (libc::EPOLLIN | libc::EPOLLET) as u32, u64: s.as_raw_fd() as u64 };
        // SAFETY: as above.
        assert_eq!(unsafe { libc::epoll_ctl(ep, libc::EPOLL_CTL_ADD, s.as_raw_fd(), &mut ev) }, 0);
    }
    let mut got: Vec<Vec<u8>> = vec![Vec::new(); conns.len()];
    let mut done = vec![false; conns.len()];
    let mut evs = [libc::epoll_event { events: 0, u64: 0 }; 32];
    while done.iter().any(|d| !d) {
        // SAFETY: valid event buffer.
        let n = unsafe { libc::epoll_wait(ep, evs.as_mut_ptr(), 32, 5000) };
        assert!(n > 0, "epoll_wait timed out");
        for ev in &evs[..n as usize] {
            let fd = ev.u64 as c_int;
            let i = conns.iter().position(|(s, _)| s.as_raw_fd() == fd).unwrap();
            if read_available(fd, &mut got[i]) {
                done[i] = true;
            }
        }
    }
    for (i, (s, d)) in conns.iter().enumerate() {
        assert!(&got[i] == d, "epoll connection {i}: bytes differ");
        check_controlled("epoll", s.as_raw_fd());
    }
    // SAFETY: closing our epoll descriptor.
    unsafe { libc::close(ep) };

    // poll and select, with recv.
    for use_poll in [true, false] {
        let d = pattern(1_000_000, 3);
        let s = source("[::1]:0", d.clone());
        let fd = s.as_raw_fd();
        set_nonblocking(fd);
        let mut out = Vec::new();
        loop {
            if use_poll {
                let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
                // SAFETY: one valid pollfd.
                assert!(unsafe { libc::poll(&mut p, 1, 5000) } > 0);
            } else {
                // SAFETY: an fd_set for one descriptor below FD_SETSIZE.
                unsafe {
                    let mut set: libc::fd_set = std::mem::zeroed();
                    libc::FD_SET(fd, &mut set);
                    let mut tv = libc::timeval { tv_sec: 5, tv_usec: 0 };
                    assert!(libc::select(fd + 1, &mut set, std::ptr::null_mut(), std::ptr::null_mut(), &mut tv) > 0);
                }
            }
            let mut buf = [0u8; 5000];
            // SAFETY: valid buffer.
            let n = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), 0) };
            if n == 0 {
                break;
            }
            if n < 0 {
                assert_eq!(std::io::Error::last_os_error().raw_os_error(), Some(libc::EAGAIN));
                continue;
            }
            out.extend_from_slice(&buf[..n as usize]);
        }
        assert!(out == d);
        check_controlled(if use_poll { "poll" } else { "select" }, fd);
    }
}

fn child_others() {
    // UDP: recv and recvfrom work and the socket is left alone.
    let a = UdpSocket::bind("127.0.0.1:0").unwrap();
    let b = UdpSocket::bind("127.0.0.1:0").unwrap();
    b.send_to(b"datagram one", a.local_addr().unwrap()).unwrap();
    b.send_to(b"datagram two", a.local_addr().unwrap()).unwrap();
    let mut buf = [0u8; 64];
    let (n, _) = a.recv_from(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"datagram one");
    // SAFETY: valid buffer.
    let n = unsafe { libc::recv(a.as_raw_fd(), buf.as_mut_ptr().cast(), 64, 0) };
    assert_eq!(&buf[..n as usize], b"datagram two");
    assert_eq!(fd_state(a.as_raw_fd()), IGNORED, "UDP must be left alone");
    // A UDP socket over IPv6 too.
    let a6 = UdpSocket::bind("[::1]:0").unwrap();
    b.send_to(b"x", a.local_addr().unwrap()).unwrap();
    let b6 = UdpSocket::bind("[::1]:0").unwrap();
    b6.send_to(b"six", a6.local_addr().unwrap()).unwrap();
    let n = a6.recv(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"six");
    assert_eq!(fd_state(a6.as_raw_fd()), IGNORED);

    // A pipe.
    let mut p = [0 as c_int; 2];
    // SAFETY: valid array.
    assert_eq!(unsafe { libc::pipe(p.as_mut_ptr()) }, 0);
    // SAFETY: wrapping fresh descriptors we own.
    let (mut r, mut w) = unsafe { (std::fs::File::from_raw_fd(p[0]), std::fs::File::from_raw_fd(p[1])) };
    w.write_all(b"through a pipe").unwrap();
    drop(w);
    let mut s = String::new();
    r.read_to_string(&mut s).unwrap();
    assert_eq!(s, "through a pipe");
    assert_eq!(fd_state(r.as_raw_fd()), IGNORED, "a pipe must be left alone");

    // A file, and a Unix stream socket.
    let mut f = std::fs::File::open("/proc/self/status").unwrap();
    let mut t = String::new();
    f.read_to_string(&mut t).unwrap();
    assert!(t.contains("Pid:"));
    assert_eq!(fd_state(f.as_raw_fd()), IGNORED);
    let (mut u1, mut u2) = std::os::unix::net::UnixStream::pair().unwrap();
    u1.write_all(b"unix").unwrap();
    let mut ub = [0u8; 4];
    u2.read_exact(&mut ub).unwrap();
    assert_eq!(&ub, b"unix");
    assert_eq!(fd_state(u2.as_raw_fd()), IGNORED, "a Unix socket must be left alone");
}

fn child_many() {
    // More descriptors than one table chunk (1024): raise the soft limit.
    // SAFETY: plain rlimit calls.
    unsafe {
        let mut rl: libc::rlimit = std::mem::zeroed();
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl);
        rl.rlim_cur = rl.rlim_max.min(8192);
        libc::setrlimit(libc::RLIMIT_NOFILE, &rl);
    }
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let n = 700; // 1400 descriptors: both ends of each connection
    let server = std::thread::spawn(move || {
        let mut v = Vec::new();
        for _ in 0..n {
            let (mut s, _) = l.accept().unwrap();
            s.write_all(b"hello from the server").unwrap();
            v.push(s);
        }
        v
    });
    let clients: Vec<TcpStream> = (0..n).map(|_| TcpStream::connect(addr).unwrap()).collect();
    let servers = server.join().unwrap();
    let mut high = 0;
    for mut c in clients {
        let mut b = [0u8; 21];
        c.read_exact(&mut b).unwrap();
        assert_eq!(&b, b"hello from the server");
        check_controlled("many", c.as_raw_fd());
        high = high.max(c.as_raw_fd());
    }
    assert!(high >= 1024, "the test should reach descriptors above 1024 (got {high})");
    drop(servers);
}

fn child_reuse() {
    // A controlled socket is closed; its number comes back as a pipe.
    let s = source("127.0.0.1:0", pattern(10_000, 1));
    let fd = s.as_raw_fd();
    // SAFETY: valid buffer.
    drain(fd, |fd, b| unsafe { libc::read(fd, b.as_mut_ptr().cast(), b.len()) });
    check_controlled("before close", fd);
    let mut p = [0 as c_int; 2];
    // SAFETY: valid array.
    assert_eq!(unsafe { libc::pipe(p.as_mut_ptr()) }, 0);
    drop(s); // close(2): the shim forgets the number
    assert_eq!(fd_state(fd), UNKNOWN);
    // SAFETY: puts the pipe's read end on the freed number.
    unsafe {
        assert_eq!(libc::dup2(p[0], fd), fd);
        assert_eq!(libc::write(p[1], b"x".as_ptr().cast(), 1), 1);
        let mut b = [0u8; 1];
        assert_eq!(libc::read(fd, b.as_mut_ptr().cast(), 1), 1);
    }
    assert_eq!(fd_state(fd), IGNORED, "the reused number is a pipe now");
    // dup2 a controlled socket's number over with a UDP socket.
    let s = source("127.0.0.1:0", pattern(10_000, 2));
    // SAFETY: valid buffer.
    drain(s.as_raw_fd(), |fd, b| unsafe { libc::read(fd, b.as_mut_ptr().cast(), b.len()) });
    check_controlled("before dup2", s.as_raw_fd());
    let u = UdpSocket::bind("127.0.0.1:0").unwrap();
    u.send_to(b"u", u.local_addr().unwrap()).unwrap();
    // SAFETY: replaces the TCP socket's number with a UDP socket.
    assert!(unsafe { libc::dup2(u.as_raw_fd(), s.as_raw_fd()) } >= 0);
    let fd = s.into_raw_fd();
    let mut b = [0u8; 4];
    // SAFETY: valid buffer.
    assert_eq!(unsafe { libc::recv(fd, b.as_mut_ptr().cast(), 4, 0) }, 1);
    assert_eq!(fd_state(fd), IGNORED, "after dup2 the number is a UDP socket");
    // SAFETY: closing the dup.
    unsafe { libc::close(fd) };
}

#[derive(Clone, Copy)]
enum Deny {
    SetClamp,
    TcpInfo,
}

/// A seccomp filter that makes setsockopt(TCP_WINDOW_CLAMP) or
/// getsockopt(TCP_INFO) fail with EPERM: a real kernel-side failure.
fn deny(what: Deny) {
    const LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const RET_K: u16 = 0x06; // BPF_RET | BPF_K
    let (nr, opt) = match what {
        Deny::SetClamp => (libc::SYS_setsockopt, libc::TCP_WINDOW_CLAMP),
        Deny::TcpInfo => (libc::SYS_getsockopt, libc::TCP_INFO),
    };
    let f = |code, jt, jf, k: u32| libc::sock_filter { code, jt, jf, k };
    let prog = [
        f(LD_W_ABS, 0, 0, 0),      // nr
        f(JEQ_K, 0, 5, nr as u32), // not our call: allow
        f(LD_W_ABS, 0, 0, 24),     // args[1]: level
        f(JEQ_K, 0, 3, libc::IPPROTO_TCP as u32),
        f(LD_W_ABS, 0, 0, 32), // args[2]: optname
        f(JEQ_K, 0, 1, opt as u32),
        f(RET_K, 0, 0, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32),
        f(RET_K, 0, 0, libc::SECCOMP_RET_ALLOW),
    ];
    let fprog = libc::sock_fprog { len: prog.len() as u16, filter: prog.as_ptr() as *mut _ };
    // SAFETY: installs a filter on this process only.
    unsafe {
        assert_eq!(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
        assert_eq!(libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &fprog as *const _), 0);
    }
}

fn child_fallback(what: Deny) {
    deny(what);
    for i in 0..2u8 {
        let data = pattern(3_000_000, i);
        let mut s = source("127.0.0.1:0", data.clone());
        let mut got = Vec::new();
        s.read_to_end(&mut got).unwrap();
        assert!(got == data, "the program must read its bytes unchanged after the shim gives up");
        assert_eq!(fd_state(s.as_raw_fd()), DISABLED);
    }
    println!("the program went on");
}

fn child_inactive() {
    assert!(!shim_active());
    let data = pattern(100_000, 5);
    let mut s = source("127.0.0.1:0", data.clone());
    let mut got = Vec::new();
    s.read_to_end(&mut got).unwrap();
    assert!(got == data);
    assert_eq!(fd_state(s.as_raw_fd()), UNKNOWN);
}

// ---------------------------------------------------------------------------
// the tests

#[test]
fn every_interposed_call_counts_and_leaves_the_bytes_alone() {
    let o = run_child("calls", "static", "rmem_max=54321", &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    for (name, _) in calls() {
        assert!(out.contains(&format!("interposed {name}:")), "{name} not exercised:\n{out}");
    }
    // No message from the shim; rtac run's closing summary only.
    let err = stderr_of(&o);
    assert!(err.lines().all(|l| !l.contains("rtac:") || l.starts_with("rtac: preload mode controlled ")), "{err}");
}

#[test]
fn ipv6_sockets_are_controlled() {
    run_child("ipv6", "static", "rmem_max=54321", &[]);
}

#[test]
fn threads_each_control_their_sockets() {
    run_child("threads", "static", "rmem_max=54321", &[]);
}

#[test]
fn non_blocking_sockets_with_epoll_poll_and_select() {
    run_child("nonblocking", "static", "rmem_max=54321", &[]);
}

#[test]
fn udp_pipes_files_and_unix_sockets_are_left_alone() {
    run_child("others", "static", "rmem_max=54321", &[]);
}

#[test]
fn many_sockets_beyond_one_table_chunk() {
    run_child("many", "static", "rmem_max=54321", &[]);
}

#[test]
fn closed_and_reused_descriptors_are_classified_again() {
    run_child("reuse", "static", "rmem_max=54321", &[]);
}

#[test]
fn a_failing_setsockopt_stops_control_of_that_socket_with_one_message() {
    let o = run_child("fallback-clamp", "static", "rmem_max=54321", &[]);
    let err = stderr_of(&o);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("stopped controlling")).collect();
    assert_eq!(lines.len(), 2, "one message per socket:\n{err}");
    assert!(lines[0].contains("TCP_WINDOW_CLAMP") && lines[0].contains("Operation not permitted"), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("the program went on"));
}

#[test]
fn a_failing_tcp_info_stops_control_of_that_socket_with_one_message() {
    let o = run_child("fallback-info", "rtac", "", &[]);
    let err = stderr_of(&o);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("stopped controlling")).collect();
    assert_eq!(lines.len(), 2, "one message per socket:\n{err}");
    assert!(lines[0].contains("TCP_INFO"), "{err}");
}

#[test]
fn without_configuration_the_shim_is_inert() {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["child", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, "inactive")
        .env("LD_PRELOAD", preload())
        .env_remove("RTAC_CONTROLLER");
    let o = c.output().unwrap();
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).contains("CHILD-OK"), "{}", stderr_of(&o));
    // A bad configuration set by hand: one message, the program runs.
    let o = c.env("RTAC_CONTROLLER", "bogus").output().unwrap();
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).contains("CHILD-OK"));
    let err = stderr_of(&o);
    assert_eq!(err.matches("rtac: invalid configuration").count(), 1, "{err}");
}

#[test]
fn unknown_controller_or_parameter_fails_before_the_program_starts() {
    let dir = std::env::temp_dir().join(format!("rtac-preload-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let marker = dir.join("ran");
    for args in [vec!["-c", "cubic"], vec!["-c", "rtac", "-p", "lambda=3"], vec!["-c", "drwa", "-p", "alpha=2"]] {
        let o = Command::new(env!("CARGO_BIN_EXE_rtac-dev"))
            .arg("run")
            .args(&args)
            .arg("--preload")
            .arg(preload())
            .args(["--", "touch"])
            .arg(&marker)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr_of(&o).contains("rtac: error:"), "{}", stderr_of(&o));
        assert!(!marker.exists(), "{args:?}: the program must not run");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_log_has_one_row_per_step_of_each_connection() {
    let dir = std::env::temp_dir().join(format!("rtac-preload-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["steps.csv", "steps.jsonl"] {
        let log = dir.join(name);
        let mut c = Command::new(env!("CARGO_BIN_EXE_rtac-dev"));
        // The paper's RTAC, which sets a window from the first step.
        c.args(["run", "--mode", "preload", "-c", "rtac", "-p", "bdp=100", "--log"])
            .arg(&log)
            .arg("--preload")
            .arg(preload())
            .arg("--");
        c.args(["python3", "-c", PY_TRANSFER]);
        let o = c.output().unwrap();
        assert!(o.status.success(), "{}", stderr_of(&o));
        let rows = rtac_agent::log::read_log(&log).unwrap();
        assert!(rows.len() >= 3, "{name}: {} rows", rows.len());
        let conns: std::collections::BTreeSet<_> = rows.iter().map(|r| (r.pid, r.conn)).collect();
        assert_eq!(conns.len(), 2, "{name}: two connections (IPv4 and IPv6)");
        assert!(rows.iter().any(|r| r.peer.starts_with('[')), "{name}: an IPv6 peer");
        assert!(rows.iter().all(|r| r.rwnd_bytes.is_some()));
        assert!(rows.iter().any(|r| r.rtt_ms.is_some() && r.rtt_min_ms.is_some()));
        let t: Vec<f64> = rows.iter().map(|r| r.t_s).collect();
        assert!(t.windows(2).all(|w| w[0] <= w[1] + 0.5), "{name}: time goes forward");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Two loopback transfers (IPv4, then IPv6) of 20 MB in Python.
const PY_TRANSFER: &str = r#"
import socket, threading
def one(family, host):
    l = socket.socket(family, socket.SOCK_STREAM); l.bind((host, 0)); l.listen(1)
    def serve():
        c, _ = l.accept(); c.sendall(b"x" * 20_000_000); c.close()
    t = threading.Thread(target=serve); t.start()
    s = socket.create_connection((host, l.getsockname()[1])); n = 0
    while True:
        b = s.recv(65536)
        if not b: break
        n += len(b)
    t.join(); assert n == 20_000_000, n
one(socket.AF_INET, "127.0.0.1"); one(socket.AF_INET6, "::1")
"#;
