//! Reading a file that the user named (a scenario, a sweep file, a
//! trace), and quoting what the user gave in messages (`echo`).
//!
//! Only regular files are read. The file is opened with `O_NONBLOCK`, so
//! that a FIFO with no writer cannot hold the open, and its type is checked
//! on the open descriptor (no window between the check and the read); a
//! FIFO, a device such as `/dev/zero`, a directory or a socket is refused
//! with a message naming what it is. At most a bound of bytes is read, so a
//! file that grows while it is read cannot exhaust memory either.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The most a scenario or sweep file may hold. The largest of `scenarios/`
/// is a few kilobytes.
pub const MAX_SCENARIO_BYTES: u64 = 16 << 20;

/// The most a Mahimahi trace may hold: about 30 million opportunities
/// (about 40 minutes at 100 Mbit/s). Mahimahi's own traces are under 10 MB.
pub const MAX_TRACE_BYTES: u64 = 256 << 20;

/// `max` bytes written for a message: "16 MB" (powers of 1024), or
/// "4 bytes" below a megabyte.
fn megabytes(max: u64) -> String {
    if max >= 1 << 20 {
        format!("{} MB", max >> 20)
    } else {
        format!("{max} bytes")
    }
}

/// What a file that is not a regular file is, for messages.
fn kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if meta.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading without blocking on a FIFO, and checks that
/// it is a regular file. The error says what it is instead.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        let what = kind(&meta);
        let message =
            if what == "not a regular file" { what.to_string() } else { format!("is {what}, not a regular file") };
        return Err(io::Error::new(io::ErrorKind::InvalidInput, message));
    }
    Ok(file)
}

/// The bytes of the regular file `path`, refused if it holds more than
/// `max` bytes. `what` names the file's role in the message ("a scenario
/// file"): "is larger than 16 MB, the most a scenario file may hold".
pub fn read_bounded(path: &Path, max: u64, what: &str) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let too_big = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("is larger than {}, the most {what} may hold", megabytes(max)),
        )
    };
    let len = file.metadata()?.len();
    if len > max {
        return Err(too_big());
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_big());
    }
    Ok(bytes)
}

/// The most characters of one input (a path, an argument) that a message
/// quotes.
pub const ECHO_CHARS: usize = 120;

/// `s` for a message: whole up to `ECHO_CHARS` characters, otherwise its
/// first `ECHO_CHARS` characters and its length, `abc... (102400 bytes)`,
/// so that a message stays short however long the input.
pub fn echo(s: &str) -> String {
    echo_cut(s, ECHO_CHARS)
}

/// `s` whole up to `max` characters, otherwise cut as `echo` cuts it.
pub fn echo_cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((i, _)) => format!("{}... ({} bytes)", &s[..i], s.len()),
    }
}

/// A path for a message, cut as `echo` cuts.
pub fn echo_path(p: &Path) -> String {
    echo(&p.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_input_is_echoed_cut_with_its_length() {
        assert_eq!(echo("short"), "short");
        let long = "é".repeat(50_000);
        let e = echo(&long);
        assert_eq!(e, format!("{}... (100000 bytes)", "é".repeat(ECHO_CHARS)));
        assert_eq!(echo(&"a".repeat(ECHO_CHARS)), "a".repeat(ECHO_CHARS));
    }

    #[test]
    fn regular_files_are_read_and_bounded() {
        let dir = std::env::temp_dir().join(format!("rtac-input-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("a.txt");
        std::fs::write(&f, "12345").unwrap();
        assert_eq!(read_bounded(&f, 5, "a file").unwrap(), b"12345");
        let e = read_bounded(&f, 4, "a test file").unwrap_err().to_string();
        assert_eq!(e, "is larger than 4 bytes, the most a test file may hold");
        let e = read_bounded(&dir, 5, "a file").unwrap_err().to_string();
        assert_eq!(e, "is a directory, not a regular file");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_refused_without_reading() {
        let e = read_bounded(Path::new("/dev/zero"), MAX_TRACE_BYTES, "a trace").unwrap_err().to_string();
        assert_eq!(e, "is a character device, not a regular file");
    }
}
