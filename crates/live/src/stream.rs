//! A `Read` wrapper that drives a controller on the socket it reads.

use crate::config::AgentConfig;
use crate::driver::SocketDriver;
use crate::error::AgentError;
use crate::log::LogSink;
use crate::sys;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::sync::Arc;

/// A TCP stream whose every read feeds a [`SocketDriver`].
///
/// ```no_run
/// use rtac_live::{AgentConfig, ControlledStream};
/// use std::io::Read;
/// let cfg = AgentConfig::new("rtac", &["bdp=20"]).unwrap();
/// let tcp = std::net::TcpStream::connect("127.0.0.1:8080").unwrap();
/// let mut s = ControlledStream::new(tcp, &cfg, None).unwrap();
/// let mut buf = vec![0; 1 << 16];
/// while s.read(&mut buf).unwrap() > 0 {}
/// ```
///
/// If a control step fails (a socket query returns an error), the stream
/// gives the socket back to the kernel, keeps the error for
/// [`failure`](Self::failure) and goes on reading: the data is never
/// affected.
pub struct ControlledStream<S> {
    inner: S,
    driver: Option<SocketDriver>,
    failure: Option<AgentError>,
}

impl<S: AsRawFd> ControlledStream<S> {
    /// Attaches a controller to `inner`'s socket, which must be TCP.
    pub fn new(inner: S, cfg: &AgentConfig, log: Option<Arc<LogSink>>) -> Result<Self, AgentError> {
        let driver = SocketDriver::attach(inner.as_raw_fd(), cfg, log, sys::now())?;
        Ok(ControlledStream { inner, driver: Some(driver), failure: None })
    }

    /// The driver, while it controls the socket.
    pub fn driver(&self) -> Option<&SocketDriver> {
        self.driver.as_ref()
    }

    /// Why control stopped, if it did.
    pub fn failure(&self) -> Option<&AgentError> {
        self.failure.as_ref()
    }

    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// Stops controlling (restoring the kernel's clamp) and returns the stream.
    pub fn into_inner(mut self) -> S {
        if let Some(mut d) = self.driver.take() {
            let _ = d.release();
        }
        self.inner
    }

    fn count(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        if let Some(d) = self.driver.as_mut() {
            if let Err(e) = d.on_consumed(sys::now(), n as u64) {
                let _ = d.release();
                self.driver = None;
                self.failure = Some(e);
            }
        }
    }
}

impl<S: Read + AsRawFd> Read for ControlledStream<S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count(n);
        Ok(n)
    }

    fn read_vectored(&mut self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
        let n = self.inner.read_vectored(bufs)?;
        self.count(n);
        Ok(n)
    }
}

impl<S: Write> Write for ControlledStream<S> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn bytes_pass_through_unchanged_and_are_counted() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (mut s, _) = l.accept().unwrap();
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let expect = data.clone();
        let w = std::thread::spawn(move || s.write_all(&data).unwrap());
        let cfg = AgentConfig::new("drwa", &[] as &[&str]).unwrap();
        let mut cs = ControlledStream::new(c, &cfg, None).unwrap();
        let mut got = Vec::new();
        cs.read_to_end(&mut got).unwrap();
        w.join().unwrap();
        assert!(got == expect);
        cs.driver().unwrap();
        assert!(cs.failure().is_none());
    }
}
