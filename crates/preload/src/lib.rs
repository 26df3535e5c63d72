//! librtac_preload.so: the LD_PRELOAD shim `rtac run` loads into a program.
//!
//! It interposes the read family (read, readv, recv, recvfrom, recvmsg,
//! recvmmsg, splice, and glibc's _FORTIFY_SOURCE variants __read_chk,
//! __recv_chk, __recvfrom_chk) and the calls that end or create a
//! descriptor (close, close_range, dup2, dup3, socket, accept, accept4).
//! Each hook calls the real function (found with dlsym(RTLD_NEXT)) and then
//! tells `rtac_live::shim` what happened; the shim never touches the
//! program's buffers, return values or errno.
//!
//! Without RTAC_CONTROLLER in the environment the shim is off and each
//! hook is the real call plus one atomic load. It is off too, without
//! reading the environment, in a process in secure-execution mode
//! (getauxval(AT_SECURE): setuid, setgid or file capabilities), should the
//! library get there (linked in, or loaded from a system directory); see
//! docs/SECURITY.md.

#![allow(clippy::missing_safety_doc)] // every hook has the contract of the libc function it replaces

use rtac_live::shim;
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs when the library is loaded: reads the configuration.
extern "C" fn rtac_preload_init() {
    shim::install_quiet_panic_hook();
    shim::init_from_env();
}

#[used]
#[link_section = ".init_array"]
static INIT: extern "C" fn() = rtac_preload_init;

/// The next definition of `name` after this library (libc's), resolved on
/// first use; 0 if there is none.
fn next_symbol(cache: &AtomicUsize, name: &'static [u8]) -> usize {
    let p = cache.load(Ordering::Relaxed);
    if p != 0 {
        return p;
    }
    // SAFETY: `name` is NUL-terminated (every caller passes a literal ending in \0).
    let p = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr().cast::<c_char>()) } as usize;
    cache.store(p, Ordering::Relaxed);
    p
}

/// Declares `$fn` as the real function `$name` of type `$ty`, or falls back
/// to `$fallback` (a raw system call) if dlsym finds none.
macro_rules! real {
    ($name:literal, $ty:ty) => {{
        static CACHE: AtomicUsize = AtomicUsize::new(0);
        let p = next_symbol(&CACHE, concat!($name, "\0").as_bytes());
        // SAFETY: dlsym returned the address of the C function `$name`, whose type is `$ty`.
        (p != 0).then(|| unsafe { std::mem::transmute::<usize, $ty>(p) })
    }};
}

fn peek(flags: c_int) -> bool {
    flags & libc::MSG_PEEK != 0
}

type ReadFn = unsafe extern "C" fn(c_int, *mut c_void, usize) -> isize;
type ReadChkFn = unsafe extern "C" fn(c_int, *mut c_void, usize, usize) -> isize;
type ReadvFn = unsafe extern "C" fn(c_int, *const libc::iovec, c_int) -> isize;
type RecvFn = unsafe extern "C" fn(c_int, *mut c_void, usize, c_int) -> isize;
type RecvChkFn = unsafe extern "C" fn(c_int, *mut c_void, usize, usize, c_int) -> isize;
type RecvfromFn =
    unsafe extern "C" fn(c_int, *mut c_void, usize, c_int, *mut libc::sockaddr, *mut libc::socklen_t) -> isize;
type RecvfromChkFn =
    unsafe extern "C" fn(c_int, *mut c_void, usize, usize, c_int, *mut libc::sockaddr, *mut libc::socklen_t) -> isize;
type RecvmsgFn = unsafe extern "C" fn(c_int, *mut libc::msghdr, c_int) -> isize;
type RecvmmsgFn = unsafe extern "C" fn(c_int, *mut libc::mmsghdr, c_uint, c_int, *mut libc::timespec) -> c_int;
type SpliceFn = unsafe extern "C" fn(c_int, *mut libc::loff_t, c_int, *mut libc::loff_t, usize, c_uint) -> isize;
type CloseFn = unsafe extern "C" fn(c_int) -> c_int;
type CloseRangeFn = unsafe extern "C" fn(c_uint, c_uint, c_int) -> c_int;
type Dup2Fn = unsafe extern "C" fn(c_int, c_int) -> c_int;
type Dup3Fn = unsafe extern "C" fn(c_int, c_int, c_int) -> c_int;
type SocketFn = unsafe extern "C" fn(c_int, c_int, c_int) -> c_int;
type AcceptFn = unsafe extern "C" fn(c_int, *mut libc::sockaddr, *mut libc::socklen_t) -> c_int;
type Accept4Fn = unsafe extern "C" fn(c_int, *mut libc::sockaddr, *mut libc::socklen_t, c_int) -> c_int;

#[no_mangle]
pub unsafe extern "C" fn read(fd: c_int, buf: *mut c_void, count: usize) -> isize {
    let n = match real!("read", ReadFn) {
        // SAFETY: the caller's contract is read(2)'s.
        Some(f) => unsafe { f(fd, buf, count) },
        // SAFETY: as above.
        None => unsafe { libc::syscall(libc::SYS_read, fd, buf, count) as isize },
    };
    shim::consumed(fd, n);
    n
}

#[no_mangle]
pub unsafe extern "C" fn __read_chk(fd: c_int, buf: *mut c_void, count: usize, buflen: usize) -> isize {
    let n = match real!("__read_chk", ReadChkFn) {
        // SAFETY: the caller's contract is __read_chk's (glibc checks count <= buflen).
        Some(f) => unsafe { f(fd, buf, count, buflen) },
        // SAFETY: as read(2), with the same bound glibc checks.
        None => unsafe { libc::syscall(libc::SYS_read, fd, buf, count.min(buflen)) as isize },
    };
    shim::consumed(fd, n);
    n
}

#[no_mangle]
pub unsafe extern "C" fn readv(fd: c_int, iov: *const libc::iovec, iovcnt: c_int) -> isize {
    let n = match real!("readv", ReadvFn) {
        // SAFETY: the caller's contract is readv(2)'s.
        Some(f) => unsafe { f(fd, iov, iovcnt) },
        // SAFETY: as above.
        None => unsafe { libc::syscall(libc::SYS_readv, fd, iov, iovcnt) as isize },
    };
    shim::consumed(fd, n);
    n
}

#[no_mangle]
pub unsafe extern "C" fn recv(fd: c_int, buf: *mut c_void, len: usize, flags: c_int) -> isize {
    let n = match real!("recv", RecvFn) {
        // SAFETY: the caller's contract is recv(2)'s.
        Some(f) => unsafe { f(fd, buf, len, flags) },
        // SAFETY: as above.
        None => unsafe { libc::syscall(libc::SYS_recvfrom, fd, buf, len, flags, 0usize, 0usize) as isize },
    };
    if !peek(flags) {
        shim::consumed(fd, n);
    }
    n
}

#[no_mangle]
pub unsafe extern "C" fn __recv_chk(fd: c_int, buf: *mut c_void, len: usize, buflen: usize, flags: c_int) -> isize {
    let n = match real!("__recv_chk", RecvChkFn) {
        // SAFETY: the caller's contract is __recv_chk's.
        Some(f) => unsafe { f(fd, buf, len, buflen, flags) },
        // SAFETY: as recv(2), bounded like glibc.
        None => unsafe { libc::syscall(libc::SYS_recvfrom, fd, buf, len.min(buflen), flags, 0usize, 0usize) as isize },
    };
    if !peek(flags) {
        shim::consumed(fd, n);
    }
    n
}

#[no_mangle]
pub unsafe extern "C" fn recvfrom(
    fd: c_int,
    buf: *mut c_void,
    len: usize,
    flags: c_int,
    addr: *mut libc::sockaddr,
    addrlen: *mut libc::socklen_t,
) -> isize {
    let n = match real!("recvfrom", RecvfromFn) {
        // SAFETY: the caller's contract is recvfrom(2)'s.
        Some(f) => unsafe { f(fd, buf, len, flags, addr, addrlen) },
        // SAFETY: as above.
        None => unsafe { libc::syscall(libc::SYS_recvfrom, fd, buf, len, flags, addr, addrlen) as isize },
    };
    if !peek(flags) {
        shim::consumed(fd, n);
    }
    n
}

#[no_mangle]
pub unsafe extern "C" fn __recvfrom_chk(
    fd: c_int,
    buf: *mut c_void,
    len: usize,
    buflen: usize,
    flags: c_int,
    addr: *mut libc::sockaddr,
    addrlen: *mut libc::socklen_t,
) -> isize {
    let n = match real!("__recvfrom_chk", RecvfromChkFn) {
        // SAFETY: the caller's contract is __recvfrom_chk's.
        Some(f) => unsafe { f(fd, buf, len, buflen, flags, addr, addrlen) },
        // SAFETY: as recvfrom(2), bounded like glibc.
        None => unsafe { libc::syscall(libc::SYS_recvfrom, fd, buf, len.min(buflen), flags, addr, addrlen) as isize },
    };
    if !peek(flags) {
        shim::consumed(fd, n);
    }
    n
}

#[no_mangle]
pub unsafe extern "C" fn recvmsg(fd: c_int, msg: *mut libc::msghdr, flags: c_int) -> isize {
    let n = match real!("recvmsg", RecvmsgFn) {
        // SAFETY: the caller's contract is recvmsg(2)'s.
        Some(f) => unsafe { f(fd, msg, flags) },
        // SAFETY: as above.
        None => unsafe { libc::syscall(libc::SYS_recvmsg, fd, msg, flags) as isize },
    };
    if !peek(flags) {
        shim::consumed(fd, n);
    }
    n
}

#[no_mangle]
pub unsafe extern "C" fn recvmmsg(
    fd: c_int,
    msgs: *mut libc::mmsghdr,
    vlen: c_uint,
    flags: c_int,
    timeout: *mut libc::timespec,
) -> c_int {
    let n = match real!("recvmmsg", RecvmmsgFn) {
        // SAFETY: the caller's contract is recvmmsg(2)'s.
        Some(f) => unsafe { f(fd, msgs, vlen, flags, timeout) },
        // SAFETY: as above.
        None => unsafe { libc::syscall(libc::SYS_recvmmsg, fd, msgs, vlen, flags, timeout) as c_int },
    };
    if n > 0 && !peek(flags) && shim::active() {
        // SAFETY: the kernel filled msg_len of the first `n` entries.
        let bytes: u64 = (0..n as usize).map(|i| unsafe { (*msgs.add(i)).msg_len } as u64).sum();
        shim::consumed(fd, bytes.min(isize::MAX as u64) as isize);
    }
    n
}

#[no_mangle]
pub unsafe extern "C" fn splice(
    fd_in: c_int,
    off_in: *mut libc::loff_t,
    fd_out: c_int,
    off_out: *mut libc::loff_t,
    len: usize,
    flags: c_uint,
) -> isize {
    let n = match real!("splice", SpliceFn) {
        // SAFETY: the caller's contract is splice(2)'s.
        Some(f) => unsafe { f(fd_in, off_in, fd_out, off_out, len, flags) },
        // SAFETY: as above.
        None => unsafe { libc::syscall(libc::SYS_splice, fd_in, off_in, fd_out, off_out, len, flags) as isize },
    };
    // Bytes spliced out of a socket are consumed like bytes read.
    shim::consumed(fd_in, n);
    n
}

#[no_mangle]
pub unsafe extern "C" fn close(fd: c_int) -> c_int {
    shim::closing(fd);
    match real!("close", CloseFn) {
        // SAFETY: the caller's contract is close(2)'s.
        Some(f) => unsafe { f(fd) },
        // SAFETY: as above.
        None => unsafe { libc::syscall(libc::SYS_close, fd) as c_int },
    }
}

#[no_mangle]
pub unsafe extern "C" fn close_range(first: c_uint, last: c_uint, flags: c_int) -> c_int {
    shim::closing_range(first, last, flags);
    match real!("close_range", CloseRangeFn) {
        // SAFETY: the caller's contract is close_range(2)'s.
        Some(f) => unsafe { f(first, last, flags) },
        // SAFETY: as above.
        None => unsafe { libc::syscall(libc::SYS_close_range, first, last, flags) as c_int },
    }
}

#[no_mangle]
pub unsafe extern "C" fn dup2(old: c_int, new: c_int) -> c_int {
    if old != new {
        shim::closing(new);
    }
    match real!("dup2", Dup2Fn) {
        // SAFETY: the caller's contract is dup2(2)'s.
        Some(f) => unsafe { f(old, new) },
        // SAFETY: dup3 with no flags is dup2 for old != new; dup2(fd, fd) checks fd.
        None => unsafe {
            if old == new {
                libc::syscall(libc::SYS_fcntl, old, libc::F_GETFD) as c_int
            } else {
                libc::syscall(libc::SYS_dup3, old, new, 0) as c_int
            }
        },
    }
}

#[no_mangle]
pub unsafe extern "C" fn dup3(old: c_int, new: c_int, flags: c_int) -> c_int {
    if old != new {
        shim::closing(new);
    }
    match real!("dup3", Dup3Fn) {
        // SAFETY: the caller's contract is dup3(2)'s.
        Some(f) => unsafe { f(old, new, flags) },
        // SAFETY: as above.
        None => unsafe { libc::syscall(libc::SYS_dup3, old, new, flags) as c_int },
    }
}

#[no_mangle]
pub unsafe extern "C" fn socket(domain: c_int, ty: c_int, protocol: c_int) -> c_int {
    let fd = match real!("socket", SocketFn) {
        // SAFETY: the caller's contract is socket(2)'s.
        Some(f) => unsafe { f(domain, ty, protocol) },
        // SAFETY: as above.
        None => unsafe { libc::syscall(libc::SYS_socket, domain, ty, protocol) as c_int },
    };
    shim::opened(fd);
    fd
}

#[no_mangle]
pub unsafe extern "C" fn accept(fd: c_int, addr: *mut libc::sockaddr, len: *mut libc::socklen_t) -> c_int {
    let new = match real!("accept", AcceptFn) {
        // SAFETY: the caller's contract is accept(2)'s.
        Some(f) => unsafe { f(fd, addr, len) },
        // SAFETY: as above.
        None => unsafe { libc::syscall(libc::SYS_accept, fd, addr, len) as c_int },
    };
    shim::opened(new);
    new
}

#[no_mangle]
pub unsafe extern "C" fn accept4(
    fd: c_int,
    addr: *mut libc::sockaddr,
    len: *mut libc::socklen_t,
    flags: c_int,
) -> c_int {
    let new = match real!("accept4", Accept4Fn) {
        // SAFETY: the caller's contract is accept4(2)'s.
        Some(f) => unsafe { f(fd, addr, len, flags) },
        // SAFETY: as above.
        None => unsafe { libc::syscall(libc::SYS_accept4, fd, addr, len, flags) as c_int },
    };
    shim::opened(new);
    new
}

/// For tests and debugging: what the shim knows about `fd` (0 unknown,
/// 1 left alone, 2 controlled, 3 stopped after a failure).
#[no_mangle]
pub extern "C" fn rtac_shim_fd_state(fd: c_int) -> c_int {
    std::panic::catch_unwind(|| shim::fd_state(fd) as c_int).unwrap_or(-1)
}

/// For tests and debugging: 1 if the shim controls sockets in this process.
#[no_mangle]
pub extern "C" fn rtac_shim_active() -> c_int {
    shim::active() as c_int
}
