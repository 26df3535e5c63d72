//! What one running rtac instance owns and how others tell whether it is
//! alive, whatever PID namespace either runs in: a lock (`flock`) on
//! `/run/rtac/<name>.lock`, held for the instance's whole life, that
//! records its owner (pid, start time, boot id, PID namespace). A process
//! id says nothing across PID namespaces (a daemon inside one sees none of
//! the host's processes in its /proc); a lock is released by the kernel
//! when its holder dies, `kill -9` included, and is the same file in every
//! PID namespace.
//!
//! `/run/rtac` is root's: created 0700, refused if it is a symbolic link
//! or someone else's, tightened to 0700 if it is root's and wider. Every
//! file in it is opened with `O_NOFOLLOW`, checked to be a regular file of
//! root's, created 0600, and replaced atomically (a temporary file, then
//! `rename`).

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Root's directory for locks, state and status files.
pub const RUN_DIR: &str = "/run/rtac";

/// Why a file under [`RUN_DIR`] could not be used.
#[derive(Debug)]
pub enum InstanceError {
    /// The directory or a file is not what root's private file must be.
    Unsafe { path: PathBuf, why: String },
    /// A system call failed.
    Io { path: PathBuf, what: &'static str, err: std::io::Error },
}

impl fmt::Display for InstanceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstanceError::Unsafe { path, why } => write!(f, "refusing {}: {why}", path.display()),
            InstanceError::Io { path, what, err } => write!(f, "{what} {}: {err}", path.display()),
        }
    }
}

impl std::error::Error for InstanceError {}

fn io<'a>(path: &'a Path, what: &'static str) -> impl FnOnce(std::io::Error) -> InstanceError + 'a {
    move |err| InstanceError::Io { path: path.to_path_buf(), what, err }
}

fn euid() -> u32 {
    // SAFETY: no preconditions.
    unsafe { libc::geteuid() }
}

/// Makes sure [`RUN_DIR`] is a directory of this user's (root), not a
/// link, and closed to others; creates it (0700) if missing.
pub fn run_dir() -> Result<PathBuf, InstanceError> {
    let dir = Path::new(RUN_DIR);
    let c = std::ffi::CString::new(RUN_DIR).expect("no NUL");
    // SAFETY: a valid C string. EEXIST is checked below like any directory.
    unsafe { libc::mkdir(c.as_ptr(), 0o700) };
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(dir)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) | Some(libc::ENOTDIR) => {
                InstanceError::Unsafe { path: dir.into(), why: "not a directory (a symbolic link?)".into() }
            }
            _ => InstanceError::Io { path: dir.into(), what: "opening", err: e },
        })?;
    let m = f.metadata().map_err(io(dir, "stat"))?;
    if m.uid() != euid() {
        return Err(InstanceError::Unsafe { path: dir.into(), why: format!("owned by uid {}, not by root", m.uid()) });
    }
    if m.mode() & 0o077 != 0 {
        f.set_permissions(std::fs::Permissions::from_mode(0o700)).map_err(io(dir, "chmod 0700"))?;
    }
    Ok(dir.to_path_buf())
}

/// Opens `RUN_DIR/name` without following a link, and checks that it is a
/// regular file of root's, closed to others (tightened to 0600 if not).
fn open_private(name: &str, opts: &mut OpenOptions) -> Result<Option<File>, InstanceError> {
    let path = run_dir()?.join(name);
    let f = match opts.mode(0o600).custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC).open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(InstanceError::Unsafe { path, why: "a symbolic link".into() })
        }
        Err(e) => return Err(InstanceError::Io { path, what: "opening", err: e }),
    };
    let m = f.metadata().map_err(io(&path, "stat"))?;
    if !m.file_type().is_file() || m.uid() != euid() {
        return Err(InstanceError::Unsafe { path, why: format!("not a regular file of root's (uid {})", m.uid()) });
    }
    if m.mode() & 0o077 != 0 {
        f.set_permissions(std::fs::Permissions::from_mode(0o600)).map_err(io(&path, "chmod 0600"))?;
    }
    Ok(Some(f))
}

/// Reads `RUN_DIR/name`; `None` if there is none.
pub fn read_private(name: &str) -> Result<Option<String>, InstanceError> {
    let Some(mut f) = open_private(name, OpenOptions::new().read(true))? else { return Ok(None) };
    let mut s = String::new();
    f.read_to_string(&mut s).map_err(io(&run_dir()?.join(name), "reading"))?;
    Ok(Some(s))
}

/// Replaces `RUN_DIR/name` with `text` atomically (0600): readers see the
/// old file or the new one, never a part, even after a crash.
pub fn write_private(name: &str, text: &str) -> Result<(), InstanceError> {
    let dir = run_dir()?;
    let tmp = format!(".{name}.tmp");
    let tmp_path = dir.join(&tmp);
    let _ = std::fs::remove_file(&tmp_path);
    let mut f = open_private(&tmp, OpenOptions::new().write(true).create_new(true))?
        .ok_or_else(|| InstanceError::Unsafe { path: tmp_path.clone(), why: "vanished".into() })?;
    f.write_all(text.as_bytes()).map_err(io(&tmp_path, "writing"))?;
    f.sync_data().map_err(io(&tmp_path, "fsync"))?;
    std::fs::rename(&tmp_path, dir.join(name)).map_err(io(&tmp_path, "renaming"))
}

/// Removes `RUN_DIR/name` (a link is removed, never followed).
pub fn remove_private(name: &str) {
    let _ = std::fs::remove_file(Path::new(RUN_DIR).join(name));
}

/// The names of the files in [`RUN_DIR`].
pub fn list_private() -> Vec<String> {
    std::fs::read_dir(RUN_DIR)
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default()
}

/// Who holds a lock: what its file records.
#[derive(Clone, Debug, PartialEq)]
pub struct Owner {
    /// The process id in the holder's own PID namespace.
    pub pid: u32,
    /// When it took the lock, seconds since the Unix epoch.
    pub started: u64,
    /// /proc/sys/kernel/random/boot_id at that time.
    pub boot_id: String,
    /// The inode of its PID namespace (`/proc/self/ns/pid`).
    pub pidns: u64,
}

fn my_pidns() -> u64 {
    std::fs::metadata("/proc/self/ns/pid").map(|m| m.ino()).unwrap_or(0)
}

impl Owner {
    /// This process, now.
    pub fn me() -> Owner {
        let started = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let boot_id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default().trim().to_string();
        Owner { pid: std::process::id(), started, boot_id, pidns: my_pidns() }
    }

    fn to_text(&self) -> String {
        format!("pid {}\nstarted {}\nboot_id {}\npidns {}\n", self.pid, self.started, self.boot_id, self.pidns)
    }

    fn parse(text: &str) -> Option<Owner> {
        let field = |k: &str| text.lines().find_map(|l| l.strip_prefix(k).map(|v| v.trim().to_string()));
        Some(Owner {
            pid: field("pid ")?.parse().ok()?,
            started: field("started ")?.parse().ok()?,
            boot_id: field("boot_id ").unwrap_or_default(),
            pidns: field("pidns ").and_then(|v| v.parse().ok()).unwrap_or(0),
        })
    }
}

/// `YYYY-MM-DD HH:MM:SS UTC` of Unix seconds (proleptic Gregorian calendar).
pub fn utc(secs: u64) -> String {
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Days since 1970-01-01 to a civil date (H. Hinnant, "chrono-Compatible
    // Low-Level Date Algorithms", days_from_civil's inverse).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC", rem / 3600, rem / 60 % 60, rem % 60)
}

impl fmt::Display for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pid {}, started {}", self.pid, utc(self.started))?;
        if self.pidns != 0 && self.pidns != my_pidns() {
            write!(f, ", in another PID namespace (pid:[{}])", self.pidns)?;
        }
        Ok(())
    }
}

/// An instance's lock, held until dropped; dropping removes its file.
pub struct Lock {
    file: File,
    path: PathBuf,
}

/// What [`Lock::try_acquire`] found.
pub enum Acquired {
    /// Taken; the owner its file recorded before (a dead holder's), if any.
    Taken(Lock, Option<Owner>),
    /// A live process holds it (its owner as recorded, if readable).
    Held(Option<Owner>),
}

fn same_file(f: &File, path: &Path) -> bool {
    match (f.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
        _ => false,
    }
}

impl Lock {
    fn take(name: &str, wait: bool) -> Result<Acquired, InstanceError> {
        let file_name = format!("{name}.lock");
        let path = run_dir()?.join(&file_name);
        loop {
            let mut file = open_private(&file_name, OpenOptions::new().read(true).write(true).create(true))?
                .ok_or_else(|| InstanceError::Unsafe { path: path.clone(), why: "vanished".into() })?;
            let how = if wait { libc::LOCK_EX } else { libc::LOCK_EX | libc::LOCK_NB };
            // SAFETY: a valid open descriptor.
            if unsafe { libc::flock(file.as_raw_fd(), how) } != 0 {
                let err = std::io::Error::last_os_error();
                if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
                    let mut text = String::new();
                    let _ = file.read_to_string(&mut text);
                    return Ok(Acquired::Held(Owner::parse(&text)));
                }
                return Err(InstanceError::Io { path, what: "flock", err });
            }
            // Its previous holder removes the file as it lets go: a lock
            // taken on a removed file locks nothing; take the new one.
            if !same_file(&file, &path) {
                continue;
            }
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            let before = Owner::parse(&text);
            let write = file
                .set_len(0)
                .and_then(|_| file.rewind())
                .and_then(|_| file.write_all(Owner::me().to_text().as_bytes()));
            write.map_err(io(&path, "writing"))?;
            return Ok(Acquired::Taken(Lock { file, path }, before));
        }
    }

    /// Takes the lock `RUN_DIR/<name>.lock` unless a live process holds it.
    pub fn try_acquire(name: &str) -> Result<Acquired, InstanceError> {
        Lock::take(name, false)
    }

    /// [`Lock::try_acquire`] for a name to run as: another start that
    /// checks whether the name's holder is alive holds it for a moment, so
    /// it is asked again a few times before it counts as held.
    pub fn claim(name: &str) -> Result<Acquired, InstanceError> {
        for _ in 0..3 {
            match Lock::take(name, false)? {
                Acquired::Held(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
                taken => return Ok(taken),
            }
        }
        Lock::take(name, false)
    }

    /// Takes the lock, waiting for its holder to let go (short critical
    /// sections only).
    pub fn wait(name: &str) -> Result<Lock, InstanceError> {
        match Lock::take(name, true)? {
            Acquired::Taken(l, _) => Ok(l),
            Acquired::Held(_) => unreachable!("a blocking flock does not report EWOULDBLOCK"),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed while still held: a process that opened it meanwhile
        // finds, once it holds it, that the name no longer leads to it.
        let _ = std::fs::remove_file(&self.path);
        let _ = &self.file;
    }
}

/// Whether the instance `name` is running: its lock is held. Never
/// disturbs a live one; a dead one's lock file is removed.
pub fn alive(name: &str) -> Result<Option<Owner>, InstanceError> {
    match Lock::try_acquire(name)? {
        Acquired::Held(owner) => {
            Ok(Some(owner.unwrap_or(Owner { pid: 0, started: 0, boot_id: String::new(), pidns: 0 })))
        }
        Acquired::Taken(..) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_round_trip_and_dates_are_civil() {
        let o = Owner { pid: 42, started: 1_795_000_000, boot_id: "b".into(), pidns: 7 };
        assert_eq!(Owner::parse(&o.to_text()), Some(o));
        assert_eq!(Owner::parse("garbage"), None);
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(1_795_000_000 + 59), "2026-11-18 11:07:39 UTC");
    }
}
