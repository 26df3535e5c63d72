//! The C ABI (`include/rtac.h`), exported by `librtac_live.so`.
//!
//! A C program attaches a controller to a connected TCP socket, reports
//! every read with `rtac_on_read`, and detaches before closing it. Every
//! entry point catches panics and returns an error code instead; handles
//! are internally locked, so several threads may share one.
//!
//! `rtac_attach` gives each socket its own controller. A program whose
//! connections share one access link puts them into one window budget
//! (`rtac_core::controller::LinkBudget`) with a group: `rtac_group_new`,
//! then `rtac_attach_group` for each socket; `rtac_group_state` reads the
//! budget.

use crate::config::AgentConfig;
use crate::driver::SocketDriver;
use crate::error::AgentError;
use crate::group::{Joined, OwnController};
use crate::log::LogSink;
use crate::sys;
use rtac_core::controller::{AnyController, LinkBudget};
use std::ffi::{c_char, c_int, c_longlong, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The opaque handle `rtac_attach` returns.
pub struct RtacSocket {
    inner: Mutex<Inner>,
}

struct Inner {
    driver: Option<SocketDriver>,
    error: Option<CString>,
    t0: rtac_core::Instant,
}

/// One control step, as `rtac_last_step` reports it. Zero means "not known
/// yet" for the estimates and "no limit" for `rwnd_bytes`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct RtacStep {
    pub t_s: f64,
    pub rtt_us: u64,
    pub rtt_min_us: u64,
    pub window_bytes: u64,
    pub rwnd_bytes: u64,
    pub kernel_rcv_rtt_us: u64,
    pub read_bytes: u64,
    pub steps: u64,
}

fn write_err(err: *mut c_char, len: usize, msg: &str) {
    if err.is_null() || len == 0 {
        return;
    }
    let bytes = msg.as_bytes();
    let n = bytes.len().min(len - 1);
    // SAFETY: the caller gave a buffer of `len` bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), err.cast::<u8>(), n);
        *err.add(n) = 0;
    }
}

/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn opt_str<'a>(p: *const c_char) -> Result<Option<&'a str>, AgentError> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: per the contract.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map(Some)
        .map_err(|_| AgentError::Usage("argument is not valid UTF-8".to_string()))
}

/// # Safety
/// As `opt_str`.
unsafe fn log_sink(path: *const c_char, t0: rtac_core::time::Instant) -> Result<Option<Arc<LogSink>>, AgentError> {
    // SAFETY: forwarded contract.
    Ok(match unsafe { opt_str(path) }? {
        Some(p) if !p.is_empty() => Some(Arc::new(LogSink::open(Path::new(p), t0)?)),
        _ => None,
    })
}

/// An attached socket as the C caller receives it: the handle, or NULL
/// with the error (or a panic, as "internal error") written to `err`.
fn socket_or_error(
    attached: std::thread::Result<Result<(SocketDriver, rtac_core::time::Instant), AgentError>>,
    err: *mut c_char,
    err_len: usize,
) -> *mut RtacSocket {
    boxed_or_error(attached, err, err_len, |(driver, t0)| RtacSocket {
        inner: Mutex::new(Inner { driver: Some(driver), error: None, t0 }),
    })
}

/// A handle made by `make` from what `made` returned, or NULL with the
/// error (or a panic, as "internal error") written to `err`.
fn boxed_or_error<T, H>(
    made: std::thread::Result<Result<T, AgentError>>,
    err: *mut c_char,
    err_len: usize,
    make: impl FnOnce(T) -> H,
) -> *mut H {
    match made {
        Ok(Ok(v)) => Box::into_raw(Box::new(make(v))),
        Ok(Err(e)) => {
            write_err(err, err_len, &e.to_string());
            std::ptr::null_mut()
        }
        Err(_) => {
            write_err(err, err_len, "internal error");
            std::ptr::null_mut()
        }
    }
}

/// # Safety
/// As `opt_str`.
unsafe fn config(controller: *const c_char, params: *const c_char) -> Result<AgentConfig, AgentError> {
    // SAFETY: per the callers' contracts.
    let name = unsafe { opt_str(controller) }?.ok_or_else(|| AgentError::Usage("controller is NULL".to_string()))?;
    // SAFETY: as above.
    let params = unsafe { opt_str(params) }?.unwrap_or("");
    AgentConfig::new(name, &[params])
}

/// Checks a controller name and its `k=v,k=v` parameters. Returns 0, or -1
/// with a message in `err` (`err_len` bytes, NUL-terminated; may be NULL).
///
/// # Safety
/// `controller` and `params` are NULL or NUL-terminated strings; `err` is
/// NULL or valid for `err_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn rtac_check_config(
    controller: *const c_char,
    params: *const c_char,
    err: *mut c_char,
    err_len: usize,
) -> c_int {
    // SAFETY: forwarded contract.
    match catch_unwind(|| unsafe { config(controller, params) }) {
        Ok(Ok(_)) => 0,
        Ok(Err(e)) => {
            write_err(err, err_len, &e.to_string());
            -1
        }
        Err(_) => {
            write_err(err, err_len, "internal error");
            -1
        }
    }
}

/// The opaque handle `rtac_group_new` returns: one window budget that the
/// sockets attached to it share.
pub struct RtacGroup {
    cfg: AgentConfig,
    own: Arc<OwnController>,
    /// Made with the first socket's segment size; `None` before it, and
    /// always for a controller without a per-link form.
    budget: Mutex<Option<LinkBudget>>,
}

/// A group's budget, as `rtac_group_state` reports it. Zero means "not
/// known yet".
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct RtacGroupInfo {
    /// 1 if the sockets share one budget, 0 if each runs its own controller.
    pub shared: u32,
    /// 1 while a drain probe holds every window of the group down.
    pub probing: u32,
    pub connections: u64,
    /// The aggregate window, bytes.
    pub window_bytes: u64,
    /// The rate the window allows, bytes per second.
    pub rate_bytes_s: f64,
    /// The estimate of the shared queueing delay.
    pub queue_delay_us: u64,
    /// The aggregate's base RTT (rate-weighted mean of the connections').
    pub base_rtt_us: u64,
}

/// Makes a group: one window budget of `controller` with `params` that
/// the sockets attached with `rtac_attach_group` share, for connections
/// that cross one access link. A controller without a per-link form
/// (anything but `rtac`, or `rtac` with `budget=connection`) gives each
/// socket its own controller. Returns NULL with a message in `err` on a bad
/// configuration.
///
/// # Safety
/// As `rtac_check_config`.
#[no_mangle]
pub unsafe extern "C" fn rtac_group_new(
    controller: *const c_char,
    params: *const c_char,
    err: *mut c_char,
    err_len: usize,
) -> *mut RtacGroup {
    // SAFETY: forwarded contract.
    boxed_or_error(catch_unwind(|| unsafe { config(controller, params) }), err, err_len, |cfg| {
        let own = Arc::new(OwnController { kind: cfg.kind, params: cfg.params.clone() });
        RtacGroup { cfg, own, budget: Mutex::new(None) }
    })
}

impl RtacGroup {
    /// The controller of a new socket with segment size `mss`.
    fn join(&self, mss: u32) -> Result<Joined, AgentError> {
        let mut b = self.budget.lock().unwrap_or_else(|p| p.into_inner());
        if b.is_none() {
            *b = LinkBudget::for_choice(self.cfg.kind, mss, &self.cfg.params)?;
        }
        Ok(match b.as_ref() {
            Some(budget) => Joined {
                controller: AnyController::Link(budget.join()),
                group: Some(Arc::from("group")),
                fallback: Some(self.own.clone()),
            },
            None => Joined { controller: self.own.build(mss)?, group: None, fallback: None },
        })
    }
}

/// Starts controlling the connected TCP socket `fd` as a member of group
/// `g` (its window is its share of the group's budget), with `log_path`
/// and `err` as in `rtac_attach`. The socket is used with the functions of
/// `rtac_attach`'s handles. Returns NULL with a message in `err` on failure.
///
/// # Safety
/// `g` is NULL or a live group; the other arguments as `rtac_attach`'s.
#[no_mangle]
pub unsafe extern "C" fn rtac_attach_group(
    g: *const RtacGroup,
    fd: c_int,
    log_path: *const c_char,
    err: *mut c_char,
    err_len: usize,
) -> *mut RtacSocket {
    if g.is_null() {
        write_err(err, err_len, "group is NULL");
        return std::ptr::null_mut();
    }
    // SAFETY: a live group (the caller's contract).
    let g = unsafe { &*g };
    let attached = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: forwarded contract.
        let log = unsafe { log_sink(log_path, g.cfg.t0) }?;
        let driver = SocketDriver::attach_with(fd, &g.cfg, log, sys::now(), |mss, _| g.join(mss))?;
        Ok((driver, g.cfg.t0))
    }));
    socket_or_error(attached, err, err_len)
}

/// Fills `out` with the group's budget. Returns 0, or -1 if `g` or `out`
/// is NULL.
///
/// # Safety
/// `g` is NULL or a live group; `out` NULL or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn rtac_group_state(g: *const RtacGroup, out: *mut RtacGroupInfo) -> c_int {
    if g.is_null() || out.is_null() {
        return -1;
    }
    // SAFETY: a live group (the caller's contract).
    let g = unsafe { &*g };
    let r = catch_unwind(AssertUnwindSafe(|| {
        let b = g.budget.lock().unwrap_or_else(|p| p.into_inner());
        let us = |d: Option<rtac_core::Duration>| d.map_or(0, |d| d.as_micros());
        match b.as_ref().map(LinkBudget::state) {
            Some(st) => RtacGroupInfo {
                shared: 1,
                probing: st.probing as u32,
                connections: st.connections as u64,
                window_bytes: st.window.unwrap_or(0),
                rate_bytes_s: st.rate.filter(|r| r.is_finite()).unwrap_or(0.0),
                queue_delay_us: us(st.queue_delay),
                base_rtt_us: us(st.anchor),
            },
            None => RtacGroupInfo::default(),
        }
    }));
    match r {
        Ok(st) => {
            // SAFETY: `out` is valid for writes (checked non-NULL; the caller's contract).
            unsafe { out.write(st) };
            0
        }
        Err(_) => -1,
    }
}

/// Frees the group handle. Sockets attached to it stay in its budget
/// until they are detached; the budget goes with the last of them.
///
/// # Safety
/// `g` is NULL or a live group; it is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn rtac_group_free(g: *mut RtacGroup) {
    if g.is_null() {
        return;
    }
    // SAFETY: the handle came from Box::into_raw in rtac_group_new.
    let b = unsafe { Box::from_raw(g) };
    let _ = catch_unwind(AssertUnwindSafe(move || drop(b)));
}

/// Starts controlling the connected TCP socket `fd` with `controller`
/// (`rtac`, `drwa`, ...) and `params` (`"bdp=20,delta=1ms"`, or NULL). With
/// a `log_path` (NULL: none) each control step appends a row (CSV, or JSON
/// lines for `.jsonl`). Returns NULL with a message in `err` on failure.
///
/// # Safety
/// String arguments are NULL or NUL-terminated; `err` is NULL or valid for
/// `err_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn rtac_attach(
    fd: c_int,
    controller: *const c_char,
    params: *const c_char,
    log_path: *const c_char,
    err: *mut c_char,
    err_len: usize,
) -> *mut RtacSocket {
    let attached = catch_unwind(|| {
        // SAFETY: forwarded contract.
        let cfg = unsafe { config(controller, params) }?;
        // SAFETY: forwarded contract.
        let log = unsafe { log_sink(log_path, cfg.t0) }?;
        Ok((SocketDriver::attach(fd, &cfg, log, sys::now())?, cfg.t0))
    });
    socket_or_error(attached, err, err_len)
}

fn with_inner<T>(s: *const RtacSocket, fail: T, f: impl FnOnce(&mut Inner) -> T) -> T {
    if s.is_null() {
        return fail;
    }
    // SAFETY: a non-NULL handle came from rtac_attach and was not detached (the caller's contract).
    let s = unsafe { &*s };
    let mut g = s.inner.lock().unwrap_or_else(|p| p.into_inner());
    match catch_unwind(AssertUnwindSafe(|| f(&mut g))) {
        Ok(v) => v,
        Err(_) => {
            g.driver = None;
            g.error = CString::new("internal error (a panic was caught)").ok();
            fail
        }
    }
}

fn stop(inner: &mut Inner, e: AgentError) {
    if let Some(mut d) = inner.driver.take() {
        let _ = d.release();
    }
    inner.error = CString::new(e.to_string().replace('\0', " ")).ok();
}

/// Reports that the program read `bytes` from the socket (call it after
/// every successful read; values <= 0 are ignored). Runs a control step
/// when one is due. Returns 1 if a step ran, 0 if not, -1 if control has
/// stopped after an error (see `rtac_error`; the socket is given back to
/// the kernel and reading may go on).
///
/// # Safety
/// `s` is NULL or a live handle from `rtac_attach`.
#[no_mangle]
pub unsafe extern "C" fn rtac_on_read(s: *mut RtacSocket, bytes: c_longlong) -> c_int {
    with_inner(s, -1, |inner| {
        let Some(d) = inner.driver.as_mut() else { return -1 };
        if bytes <= 0 {
            return 0;
        }
        match d.on_consumed(sys::now(), bytes as u64) {
            Ok(stepped) => stepped as c_int,
            Err(e) => {
                stop(inner, e);
                -1
            }
        }
    })
}

/// Runs a control step now. Returns 0, or -1 if control has stopped.
///
/// # Safety
/// As `rtac_on_read`.
#[no_mangle]
pub unsafe extern "C" fn rtac_step_now(s: *mut RtacSocket) -> c_int {
    with_inner(s, -1, |inner| {
        let Some(d) = inner.driver.as_mut() else { return -1 };
        match d.step(sys::now()) {
            Ok(_) => 0,
            Err(e) => {
                stop(inner, e);
                -1
            }
        }
    })
}

/// Fills `out` with the last control step. Returns 0, or -1 if control has
/// stopped or `out` is NULL.
///
/// # Safety
/// `s` as `rtac_on_read`; `out` NULL or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn rtac_last_step(s: *const RtacSocket, out: *mut RtacStep) -> c_int {
    if out.is_null() {
        return -1;
    }
    with_inner(s, -1, |inner| {
        let Some(d) = inner.driver.as_ref() else { return -1 };
        let Some(r) = d.last() else { return -1 };
        let us = |v: Option<rtac_core::Duration>| v.map_or(0, |d| d.as_micros());
        let step = RtacStep {
            t_s: (r.t - inner.t0).as_secs_f64(),
            rtt_us: us(r.rtt),
            rtt_min_us: us(r.rtt_min),
            window_bytes: r.window_bytes.unwrap_or(0),
            rwnd_bytes: r.rwnd.unwrap_or(0),
            kernel_rcv_rtt_us: us(r.kernel_rcv_rtt),
            read_bytes: r.read_bytes,
            steps: d.steps(),
        };
        // SAFETY: `out` is valid for writes (checked non-NULL; the caller's contract).
        unsafe { out.write(step) };
        0
    })
}

/// Why control stopped, or NULL while it runs. The string lives until the
/// handle is detached.
///
/// # Safety
/// As `rtac_on_read`.
#[no_mangle]
pub unsafe extern "C" fn rtac_error(s: *const RtacSocket) -> *const c_char {
    with_inner(s, std::ptr::null(), |inner| inner.error.as_ref().map_or(std::ptr::null(), |e| e.as_ptr()))
}

/// Stops controlling (restoring the clamp the socket had before, if it is
/// still open) and frees the handle. Call it before closing the socket.
///
/// # Safety
/// `s` is NULL or a live handle; it is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn rtac_detach(s: *mut RtacSocket) {
    if s.is_null() {
        return;
    }
    // SAFETY: the handle came from Box::into_raw in rtac_attach.
    let b = unsafe { Box::from_raw(s) };
    let _ = catch_unwind(AssertUnwindSafe(move || {
        let mut inner = b.inner.into_inner().unwrap_or_else(|p| p.into_inner());
        if let Some(mut d) = inner.driver.take() {
            let _ = d.release();
        }
    }));
}

/// The library's version, a static string.
#[no_mangle]
pub extern "C" fn rtac_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::os::fd::AsRawFd;

    #[test]
    fn attach_read_step_detach() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (mut srv, _) = l.accept().unwrap();
        let mut err = [0 as c_char; 256];
        // SAFETY: valid C strings and buffer.
        let s = unsafe {
            rtac_attach(
                c.as_raw_fd(),
                c"static".as_ptr(),
                c"rmem_max=60000".as_ptr(),
                std::ptr::null(),
                err.as_mut_ptr(),
                256,
            )
        };
        assert!(!s.is_null());
        srv.write_all(&[1u8; 1000]).unwrap();
        let mut buf = [0u8; 1000];
        c.read_exact(&mut buf).unwrap();
        // SAFETY: live handle.
        unsafe {
            assert!(rtac_on_read(s, 1000) >= 0);
            assert_eq!(rtac_step_now(s), 0);
            let mut st = RtacStep::default();
            assert_eq!(rtac_last_step(s, &mut st), 0);
            assert_eq!(st.rwnd_bytes, 60_000);
            assert!(st.steps >= 2);
            assert!(rtac_error(s).is_null());
            rtac_detach(s);
        }
    }

    #[test]
    fn sockets_of_a_group_share_one_budget() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut err = [0 as c_char; 256];
        // SAFETY: valid C strings and buffer.
        let g = unsafe { rtac_group_new(c"rtac".as_ptr(), c"bdp=100".as_ptr(), err.as_mut_ptr(), 256) };
        assert!(!g.is_null());
        let mut st = RtacGroupInfo::default();
        let (mut conns, mut handles) = (vec![], vec![]);
        for _ in 0..2 {
            let c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
            let (srv, _) = l.accept().unwrap();
            // SAFETY: a live group, valid buffer.
            let s = unsafe { rtac_attach_group(g, c.as_raw_fd(), std::ptr::null(), err.as_mut_ptr(), 256) };
            assert!(!s.is_null());
            conns.push((c, srv));
            handles.push(s);
        }
        // SAFETY: live group and handles.
        unsafe {
            assert_eq!(rtac_group_state(g, &mut st), 0);
            assert_eq!((st.shared, st.connections), (1, 2));
            assert!(st.window_bytes > 0);
            // The group handle may go first: the sockets keep the budget.
            rtac_group_free(g);
            assert_eq!(rtac_step_now(handles[0]), 0);
            for s in handles {
                rtac_detach(s);
            }
            assert_eq!(rtac_group_state(std::ptr::null(), &mut st), -1);
            assert!(rtac_attach_group(std::ptr::null(), 0, std::ptr::null(), err.as_mut_ptr(), 256).is_null());
        }
        // A controller without a per-link form: each socket its own.
        // SAFETY: valid C strings and buffer.
        let g = unsafe { rtac_group_new(c"drwa".as_ptr(), std::ptr::null(), err.as_mut_ptr(), 256) };
        let c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        // SAFETY: a live group; then live handles.
        unsafe {
            let s = rtac_attach_group(g, c.as_raw_fd(), std::ptr::null(), err.as_mut_ptr(), 256);
            assert!(!s.is_null());
            assert_eq!(rtac_group_state(g, &mut st), 0);
            assert_eq!((st.shared, st.connections), (0, 0));
            rtac_detach(s);
            rtac_group_free(g);
            assert!(rtac_group_new(c"rtac".as_ptr(), c"budget=some".as_ptr(), err.as_mut_ptr(), 256).is_null());
        }
    }

    #[test]
    fn errors_are_written_to_the_buffer() {
        let mut err = [0 as c_char; 256];
        // SAFETY: valid C strings and buffer.
        let r = unsafe { rtac_check_config(c"rtac".as_ptr(), c"lambda=1".as_ptr(), err.as_mut_ptr(), 256) };
        assert_eq!(r, -1);
        // SAFETY: write_err NUL-terminates.
        let msg = unsafe { CStr::from_ptr(err.as_ptr()) }.to_str().unwrap();
        assert!(msg.contains("lambda"), "{msg}");
        let u = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        // SAFETY: valid C strings and buffer.
        let s = unsafe {
            rtac_attach(u.as_raw_fd(), c"rtac".as_ptr(), std::ptr::null(), std::ptr::null(), err.as_mut_ptr(), 4)
        };
        assert!(s.is_null());
        // SAFETY: NUL-terminated within 4 bytes.
        assert_eq!(unsafe { CStr::from_ptr(err.as_ptr()) }.to_bytes(), b"not");
        // SAFETY: NULL handles are accepted.
        unsafe {
            assert_eq!(rtac_on_read(std::ptr::null_mut(), 5), -1);
            rtac_detach(std::ptr::null_mut());
        }
    }
}
