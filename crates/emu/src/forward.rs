//! The forwarding loop: one thread per direction reads real frames from the
//! ingress device, feeds them to that direction's [`Engine`], and hands
//! them to the egress device when the engine says they are due.
//!
//! Timing: the thread sleeps in `ppoll` on the ingress socket until the
//! next deadline (a delivery, or the link freeing up) with a timer slack of
//! 1 ns, so it wakes at the deadline rather than up to 50 us later.
//! The threads run SCHED_FIFO (`--rt-priority`), so that a busy machine
//! (the endpoints' own TCP work, other processes) delays them little.
//! Syscalls are batched: `recvmmsg` drains up to `BATCH` frames at once and
//! `sendmmsg` sends every frame due at once.

use crate::engine::Engine;
use crate::frame::{ethernet, ip_ethertype, parse_flow, Frame};
use crate::sys::{self, VNET_HDR_LEN};
use rtac_core::{Duration, Instant};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Frames per recvmmsg/sendmmsg.
pub const BATCH: usize = 64;
/// Longest sleep, so that a stop request is seen promptly.
const MAX_WAIT: Duration = Duration::from_millis(5);
/// Shortest interval between two wake-ups while packets are pending.
pub const MIN_GAP: Duration = Duration::from_micros(100);

/// How frames enter and leave the emulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Forward {
    /// AF_PACKET sockets on veth devices (Ethernet frames).
    Packet,
    /// TUN devices (IP packets), as Mahimahi does.
    Tun,
}

impl std::str::FromStr for Forward {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "packet" | "af_packet" | "veth" => Ok(Forward::Packet),
            "tun" => Ok(Forward::Tun),
            _ => Err(format!(
                "unknown forwarding {:?}: expected packet (AF_PACKET on veth) or tun",
                rtac_core::units::clip(s)
            )),
        }
    }
}

impl std::fmt::Display for Forward {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Forward::Packet => "packet",
            Forward::Tun => "tun",
        })
    }
}

/// One end of the emulator: a socket or TUN descriptor.
#[derive(Clone)]
pub struct Port {
    pub fd: Arc<OwnedFd>,
    pub kind: Forward,
}

impl Port {
    fn raw(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
    fn recv(
        &self,
        bufs: &mut [Box<[u8]>],
        lens: &mut [usize],
        trunc: &mut [bool],
        stamps: &mut [u64],
    ) -> std::io::Result<usize> {
        match self.kind {
            Forward::Packet => sys::recv_batch(self.raw(), bufs, lens, trunc, stamps),
            Forward::Tun => sys::read_batch(self.raw(), bufs, lens, trunc, stamps),
        }
    }
    fn send(&self, frames: &[&[u8]]) -> (usize, usize) {
        match self.kind {
            Forward::Packet => sys::send_batch(self.raw(), frames),
            Forward::Tun => sys::write_batch(self.raw(), frames),
        }
    }
}

/// Ingress and egress of one direction.
pub struct DirIo {
    pub rx: Port,
    pub tx: Port,
}

/// Runs one direction until `stop` is set; returns the engine (for its
/// statistics and log). An I/O error on the ingress ends the loop early and
/// is returned alongside.
/// `rt_priority` > 0 makes the thread SCHED_FIFO at that priority.
pub fn run_direction(
    mut eng: Engine,
    io: DirIo,
    stop: Arc<AtomicBool>,
    rt_priority: i32,
) -> (Engine, Option<std::io::Error>) {
    sys::block_signals_in_this_thread();
    sys::set_timer_slack_ns(1);
    if rt_priority > 0 {
        if let Err(e) = sys::set_realtime(rt_priority) {
            eprintln!("rtac emu: cannot make the forwarding thread real-time (SCHED_FIFO {rt_priority}): {e}; timing may suffer under load");
        }
    }
    let mut bufs: Vec<Box<[u8]>> = (0..BATCH).map(|_| eng.buffer()).collect();
    let mut lens = vec![0usize; BATCH];
    let mut trunc = vec![false; BATCH];
    let mut stamps = vec![0u64; BATCH];
    let mut out: Vec<(Instant, Frame)> = Vec::with_capacity(BATCH);
    let mut error = None;
    let mut woke = sys::now();
    'run: loop {
        let now = sys::now();
        // Kernel receive stamps are CLOCK_REALTIME: map them to the
        // monotonic clock with the current offset.
        let offset = sys::realtime_ns() as i128 - now.as_nanos() as i128;
        loop {
            let n = match io.rx.recv(&mut bufs, &mut lens, &mut trunc, &mut stamps) {
                Ok(n) => n,
                Err(e) => {
                    error = Some(e);
                    break 'run;
                }
            };
            for i in 0..n {
                // A frame arrived when the kernel received it (not when this
                // thread woke up to read it), clamped to the engine's clock.
                let stamp = stamps[i] as i128 - offset;
                let at = if stamps[i] == 0 || stamp <= 0 || stamp > now.as_nanos() as i128 {
                    now
                } else {
                    Instant::from_nanos(stamp as u64).max(eng.clock())
                };
                if let Some(f) = make_frame(&mut eng, &mut bufs[i], lens[i], trunc[i], io.rx.kind, at) {
                    eng.advance(at);
                    eng.arrive(f, at);
                }
            }
            if n < BATCH {
                break;
            }
        }
        eng.advance(now);
        loop {
            while out.len() < BATCH {
                match eng.pop_due(now) {
                    Some(x) => out.push(x),
                    None => break,
                }
            }
            if out.is_empty() {
                break;
            }
            let frames: Vec<&[u8]> = out.iter().map(|(_, f)| f.bytes()).collect();
            let (ok, failed) = io.tx.send(&frames);
            drop(frames);
            let sent = sys::now();
            for (due, f) in out.drain(..) {
                eng.stats.lateness_ns.record((sent - due).as_nanos());
                eng.pool.push(f.buf);
            }
            eng.stats.delivered += ok as u64;
            eng.stats.tx_failed += failed as u64;
        }
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let now = sys::now();
        match eng.next_deadline() {
            // Idle: wake on the next frame.
            None => sys::wait_readable(io.rx.raw(), MAX_WAIT.as_nanos()),
            Some(t) => {
                // Wake-ups are at least MIN_GAP apart: a wake-up costs more
                // than a packet in a VM, and frames that arrive meanwhile
                // carry the kernel's receive stamp, so the model sees them
                // at the right instant anyway. The price: a delivery may be
                // up to MIN_GAP late when packets are due closer together.
                let t = t.max(woke + MIN_GAP);
                if t <= now {
                    continue;
                }
                let until = t.min(now + MAX_WAIT);
                if io.rx.kind == Forward::Tun {
                    // No receive stamps on TUN: read frames as they come.
                    sys::wait_readable(io.rx.raw(), (until - now).as_nanos());
                } else {
                    sys::sleep_until(until);
                }
            }
        }
        woke = sys::now();
    }
    if io.rx.kind == Forward::Packet {
        eng.stats.rx_dropped += sys::packet_drops(io.rx.raw());
    }
    (eng, error)
}

/// Turns received bytes into a frame (taking the buffer, leaving a fresh one
/// in its place), or counts and skips what cannot be forwarded faithfully.
fn make_frame(
    eng: &mut Engine,
    slot: &mut Box<[u8]>,
    len: usize,
    truncated: bool,
    kind: Forward,
    now: Instant,
) -> Option<Frame> {
    if truncated || len <= VNET_HDR_LEN {
        eng.stats.oversize += 1;
        return None;
    }
    let data = &slot[VNET_HDR_LEN..len];
    let (ethertype, l2) = match kind {
        Forward::Packet => ethernet(data),
        Forward::Tun => (ip_ethertype(data), 0),
    };
    let l3 = VNET_HDR_LEN + l2.min(data.len());
    let tuple = parse_flow(ethertype, &slot[l3..len]);
    let flow = tuple.key();
    let flow_id = eng.flow_id(flow, || tuple.describe());
    let fresh = eng.buffer();
    let buf = std::mem::replace(slot, fresh);
    Some(Frame { buf, len: len as u32, l3: l3 as u16, flow, flow_id, arrival: now })
}
