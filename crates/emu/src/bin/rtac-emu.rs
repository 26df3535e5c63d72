//! Development binary of rtac-emu: `rtac-emu emu ...` and `rtac-emu plot ...`
//! behave as `rtac emu ...` and `rtac plot ...` will. `rtac-emu serve-http`
//! is a small HTTP server for tests and benchmarks (curl against it).

use clap::{Parser, Subcommand};
use rtac_emu::{emu_main, plot_main, EmuArgs, PlotArgs};
use std::io::{Read, Write};

#[derive(Parser)]
#[command(name = "rtac-emu", about = "Trace-driven link emulator for real Linux TCP")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
#[allow(clippy::large_enum_variant)]
enum Cmd {
    /// Run commands across an emulated link (server and client namespaces).
    Emu(EmuArgs),
    /// Summarise and plot a link log written by `emu --log DIR`.
    Plot(PlotArgs),
    /// Serve BYTES bytes of body to every HTTP request on PORT (for tests).
    ServeHttp {
        #[arg(long, default_value_t = 8000)]
        port: u16,
        #[arg(long, default_value_t = 1 << 20)]
        bytes: usize,
    },
}

fn serve_http(port: u16, bytes: usize) -> std::io::Result<()> {
    let listener = std::net::TcpListener::bind(("0.0.0.0", port))?;
    let body = vec![b'x'; bytes];
    let body = std::sync::Arc::new(body);
    for conn in listener.incoming() {
        let mut conn = conn?;
        let body = body.clone();
        std::thread::spawn(move || {
            let mut req = Vec::new();
            let mut buf = [0u8; 4096];
            while !req.windows(4).any(|w| w == b"\r\n\r\n") {
                match conn.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => req.extend_from_slice(&buf[..n]),
                }
            }
            let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
            let _ = conn.write_all(head.as_bytes()).and_then(|_| conn.write_all(&body));
        });
    }
    Ok(())
}

fn main() {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Emu(a) => emu_main(a),
        Cmd::Plot(a) => plot_main(a),
        Cmd::ServeHttp { port, bytes } => match serve_http(port, bytes) {
            Ok(()) => Ok(0),
            Err(e) => Err(rtac_emu::EmuError::Io(format!("serve-http: {e}"))),
        },
    };
    match r {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("rtac: {e}");
            std::process::exit(e.exit_code());
        }
    }
}
