//! Helpers shared by the agent's test files.

use std::io::{Read, Write};
use std::net::TcpListener;

/// A server that sends `total` bytes to each connection after its first byte.
pub fn server(total: usize) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for c in l.incoming().flatten() {
            std::thread::spawn(move || {
                let mut c = c;
                let mut one = [0u8; 1];
                if c.read_exact(&mut one).is_err() {
                    return;
                }
                let chunk = vec![7u8; 1 << 16];
                let mut left = total;
                while left > 0 {
                    let n = left.min(chunk.len());
                    if c.write_all(&chunk[..n]).is_err() {
                        return;
                    }
                    left -= n;
                }
            });
        }
    });
    port
}
