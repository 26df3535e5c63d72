//! Files that a privileged process creates, appends to or reads at a path
//! that someone else may control (root's `--log` and `--stats` outputs,
//! `rtac run`'s socket summary, the shim's log inside other programs):
//!
//! - a symbolic link at the last component is never followed (`O_NOFOLLOW`);
//! - opening never blocks on a FIFO (`O_NONBLOCK`), and anything but a
//!   regular file with one link is refused (a FIFO, a device, a socket, a
//!   hard link to another file);
//! - a file is truncated only after those checks, through its descriptor;
//! - [`PrivateDir`] is a fresh 0700 directory with a random name
//!   (`mkdtemp`), checked for its owner and mode, whose files are opened
//!   relative to its descriptor;
//! - [`FsIdentity`] makes the calling thread create files as another user
//!   (`setfsuid`), so that root writes a `sudo` user's output with that
//!   user's permissions and ownership instead of chowning it afterwards.
//!
//! Directories above the last component are resolved as named (the kernel's
//! `fs.protected_symlinks` guards them in sticky shared directories such as
//! /tmp). libc only: this module goes into other processes with the shim.
//! Errors say what was refused and why, without the path: callers add it.

use std::ffi::CString;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::raw::c_int;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// How a file is opened for writing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Open {
    /// Created if missing, truncated otherwise: an output a run starts afresh.
    Truncate,
    /// Appended to, created if missing.
    Append,
    /// Appended to; it must exist (nothing is created).
    AppendExisting,
    /// Created; it must not exist (`O_EXCL`).
    New,
}

const ALWAYS: c_int = libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;

fn flags(how: Open) -> c_int {
    ALWAYS
        | match how {
            Open::Truncate => libc::O_WRONLY | libc::O_CREAT,
            Open::Append => libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT,
            Open::AppendExisting => libc::O_WRONLY | libc::O_APPEND,
            Open::New => libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL,
        }
}

fn refused(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, format!("refused: {what}"))
}

fn cstring(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| refused("the path contains a NUL byte".into()))
}

/// The error of a failed open, with ELOOP (`O_NOFOLLOW` met a link) and
/// ENXIO (a FIFO or socket with no reader) said in words.
fn open_error() -> io::Error {
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::ELOOP) => refused("it is a symbolic link, which is not followed".into()),
        Some(libc::ENXIO) => refused("it is a FIFO or a socket, not a regular file".into()),
        _ => e,
    }
}

fn kind_of(mode: libc::mode_t) -> &'static str {
    match mode & libc::S_IFMT {
        libc::S_IFIFO => "a FIFO",
        libc::S_IFCHR => "a character device",
        libc::S_IFBLK => "a block device",
        libc::S_IFSOCK => "a socket",
        libc::S_IFDIR => "a directory",
        libc::S_IFLNK => "a symbolic link",
        _ => "not a regular file",
    }
}

fn fstat(fd: c_int) -> io::Result<libc::stat> {
    // SAFETY: an all-zero stat is valid; fstat fills it for an open descriptor.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st)
}

/// Takes ownership of `fd` (-1: the open failed) and checks that it is a
/// regular file with a single link; truncates it for [`Open::Truncate`].
fn checked(fd: c_int, how: Option<Open>) -> io::Result<File> {
    if fd < 0 {
        return Err(open_error());
    }
    // SAFETY: `fd` was just opened and is owned by nobody else.
    let file = unsafe { File::from_raw_fd(fd) };
    let st = fstat(fd)?;
    if st.st_mode & libc::S_IFMT != libc::S_IFREG {
        return Err(refused(format!("it is {}, not a regular file", kind_of(st.st_mode))));
    }
    if st.st_nlink > 1 {
        return Err(refused(format!("it has {} hard links", st.st_nlink)));
    }
    if how == Some(Open::Truncate) {
        file.set_len(0)?;
    }
    Ok(file)
}

/// Opens `path` for writing as `how` says; a created file gets `mode`
/// (less the umask).
pub fn open_write(path: &Path, how: Open, mode: u32) -> io::Result<File> {
    let c = cstring(path)?;
    // SAFETY: `c` is NUL-terminated; the mode is passed as open(2) takes it.
    checked(unsafe { libc::open(c.as_ptr(), flags(how), mode as libc::c_uint) }, Some(how))
}

/// [`open_write`] of `name` (one path component) in the directory `dir`.
pub fn open_write_at(dir: &File, name: &str, how: Open, mode: u32) -> io::Result<File> {
    let c = component(name)?;
    // SAFETY: as in open_write, relative to an open directory descriptor.
    checked(unsafe { libc::openat(dir.as_raw_fd(), c.as_ptr(), flags(how), mode as libc::c_uint) }, Some(how))
}

/// Opens `path` for reading (a regular file, not through a link).
pub fn open_read(path: &Path) -> io::Result<File> {
    let c = cstring(path)?;
    // SAFETY: `c` is NUL-terminated.
    checked(unsafe { libc::open(c.as_ptr(), libc::O_RDONLY | ALWAYS) }, None)
}

/// [`open_read`] of `name` in the directory `dir`.
pub fn open_read_at(dir: &File, name: &str) -> io::Result<File> {
    let c = component(name)?;
    // SAFETY: `c` is NUL-terminated; `dir` is an open directory.
    checked(unsafe { libc::openat(dir.as_raw_fd(), c.as_ptr(), libc::O_RDONLY | ALWAYS) }, None)
}

fn component(name: &str) -> io::Result<CString> {
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return Err(refused(format!("{name:?} is not a file name")));
    }
    cstring(Path::new(name))
}

/// Reads at most `max` bytes of `file`; the flag says whether more was left.
pub fn read_bounded(file: &mut File, max: usize) -> io::Result<(Vec<u8>, bool)> {
    let mut buf = Vec::new();
    file.take(max as u64 + 1).read_to_end(&mut buf)?;
    let more = buf.len() > max;
    buf.truncate(max);
    Ok((buf, more))
}

/// Opens the directory `path` (an `O_PATH` descriptor, for the `*_at`
/// functions), refusing a symbolic link at its last component.
pub fn open_dir(path: &Path) -> io::Result<File> {
    let c = cstring(path)?;
    // SAFETY: `c` is NUL-terminated.
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC) };
    if fd < 0 {
        let e = io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            Some(libc::ELOOP) => refused("it is a symbolic link, which is not followed".into()),
            Some(libc::ENOTDIR) => refused("it is not a directory (or a symbolic link to one)".into()),
            _ => e,
        });
    }
    // SAFETY: `fd` was just opened.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// A directory that only its owner can enter: created fresh with a random
/// name and mode 0700, then checked through its descriptor (owner = this
/// process's effective user, mode 0700, not a link). The files it creates
/// are removed with it when it is dropped.
pub struct PrivateDir {
    path: PathBuf,
    dir: File,
    files: Vec<String>,
}

impl PrivateDir {
    /// `parent/PREFIXxxxxxx` (mkdtemp).
    pub fn create(parent: &Path, prefix: &str) -> io::Result<PrivateDir> {
        let template = cstring(&parent.join(format!("{prefix}XXXXXX")))?;
        let mut bytes = template.into_bytes_with_nul();
        // SAFETY: a writable NUL-terminated template ending in XXXXXX.
        if unsafe { libc::mkdtemp(bytes.as_mut_ptr().cast()) }.is_null() {
            return Err(io::Error::last_os_error());
        }
        bytes.pop();
        let path = PathBuf::from(<std::ffi::OsString as std::os::unix::ffi::OsStringExt>::from_vec(bytes));
        let dir = open_dir(&path)?;
        let st = fstat(dir.as_raw_fd())?;
        // SAFETY: geteuid cannot fail.
        let euid = unsafe { libc::geteuid() };
        if st.st_uid != euid || st.st_mode & 0o7777 != 0o700 {
            return Err(refused(format!(
                "{} is owned by uid {} with mode {:o}, not by uid {euid} with mode 700",
                path.display(),
                st.st_uid,
                st.st_mode & 0o7777
            )));
        }
        Ok(PrivateDir { path, dir, files: Vec::new() })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Creates `name` in the directory (it must not exist), with `mode`.
    pub fn create_file(&mut self, name: &str, mode: u32) -> io::Result<File> {
        let f = open_write_at(&self.dir, name, Open::New, mode)?;
        self.files.push(name.to_string());
        Ok(f)
    }

    /// Opens `name` in the directory for reading.
    pub fn open_read(&self, name: &str) -> io::Result<File> {
        open_read_at(&self.dir, name)
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        for name in &self.files {
            if let Ok(c) = component(name) {
                // SAFETY: unlinkat removes the entry itself (never a link's target).
                unsafe { libc::unlinkat(self.dir.as_raw_fd(), c.as_ptr(), 0) };
            }
        }
        let _ = std::fs::remove_dir(&self.path);
    }
}

/// While alive, the calling thread (only it: the kernel keeps these IDs
/// per thread) opens and creates files as another user: its filesystem
/// user and group IDs and its supplementary groups are that user's, and the
/// capabilities that bypass file permissions are off. Dropping it restores
/// the thread's own.
pub struct FsIdentity {
    uid: libc::uid_t,
    gid: libc::gid_t,
    groups: Vec<libc::gid_t>,
}

fn setfsuid(id: libc::uid_t) -> libc::uid_t {
    // SAFETY: setfsuid(2) only changes this thread's filesystem user ID.
    unsafe { libc::syscall(libc::SYS_setfsuid, id) as libc::uid_t }
}

fn setfsgid(id: libc::gid_t) -> libc::gid_t {
    // SAFETY: setfsgid(2) only changes this thread's filesystem group ID.
    unsafe { libc::syscall(libc::SYS_setfsgid, id) as libc::gid_t }
}

/// setgroups(2) as the system call: this thread only (glibc's wrapper
/// applies it to every thread of the process).
fn set_thread_groups(groups: &[libc::gid_t]) -> io::Result<()> {
    // SAFETY: the slice is valid for its length.
    if unsafe { libc::syscall(libc::SYS_setgroups, groups.len(), groups.as_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

impl FsIdentity {
    /// Files are created as `uid`, `gid`, with the supplementary `groups`.
    pub fn assume(uid: libc::uid_t, gid: libc::gid_t, groups: &[libc::gid_t]) -> io::Result<FsIdentity> {
        // SAFETY: getgroups with a zero size returns the count; then fills a sized buffer.
        let n = unsafe { libc::getgroups(0, std::ptr::null_mut()) };
        let mut saved = vec![0 as libc::gid_t; n.max(0) as usize];
        // SAFETY: as above.
        let n = unsafe { libc::getgroups(saved.len() as c_int, saved.as_mut_ptr()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        saved.truncate(n as usize);
        set_thread_groups(groups)?;
        // setfsuid/setfsgid return the previous ID, whether or not they changed it.
        let old_gid = setfsgid(gid);
        let old_uid = setfsuid(uid);
        let back = FsIdentity { uid: old_uid, gid: old_gid, groups: saved };
        // An invalid ID (-1) changes nothing and returns the current one.
        if setfsuid(libc::uid_t::MAX) != uid || setfsgid(libc::gid_t::MAX) != gid {
            drop(back);
            return Err(io::Error::from(io::ErrorKind::PermissionDenied));
        }
        Ok(back)
    }
}

impl Drop for FsIdentity {
    fn drop(&mut self) {
        setfsuid(self.uid);
        setfsgid(self.gid);
        let _ = set_thread_groups(&self.groups);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rtac-safefs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn mkfifo(p: &Path) {
        let c = cstring(p).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o666) }, 0);
    }

    #[test]
    fn links_fifos_and_devices_are_refused_without_blocking() {
        let d = temp("refuse");
        let target = d.join("target");
        std::fs::write(&target, b"keep").unwrap();
        let link = d.join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let fifo = d.join("fifo");
        mkfifo(&fifo);
        for how in [Open::Truncate, Open::Append, Open::AppendExisting, Open::New] {
            let e = open_write(&link, how, 0o644).unwrap_err();
            assert!(e.to_string().contains("symbolic link") || how == Open::New, "{how:?}: {e}");
            assert!(open_write(&fifo, how, 0o644).is_err(), "{how:?}");
        }
        assert!(open_write(Path::new("/dev/null"), Open::Append, 0).unwrap_err().to_string().contains("character"));
        // A FIFO with a reader opens, and is refused by the check that follows.
        let c = cstring(&fifo).unwrap();
        // SAFETY: a NUL-terminated path; the descriptor is closed below.
        let r = unsafe { libc::open(c.as_ptr(), libc::O_RDONLY | libc::O_NONBLOCK) };
        assert!(r >= 0);
        assert!(open_write(&fifo, Open::Append, 0).unwrap_err().to_string().contains("a FIFO"));
        assert!(open_read(&fifo).unwrap_err().to_string().contains("a FIFO"));
        // SAFETY: ours.
        unsafe { libc::close(r) };
        assert!(open_read(&link).unwrap_err().to_string().contains("symbolic link"));
        std::fs::hard_link(&target, d.join("hard")).unwrap();
        assert!(open_write(&d.join("hard"), Open::Append, 0).unwrap_err().to_string().contains("hard links"));
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn regular_files_are_created_truncated_and_appended() {
        let d = temp("regular");
        let p = d.join("out");
        open_write(&p, Open::Truncate, 0o600).unwrap().write_all(b"one\n").unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        open_write(&p, Open::Append, 0o600).unwrap().write_all(b"two\n").unwrap();
        open_write(&p, Open::AppendExisting, 0).unwrap().write_all(b"three\n").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"one\ntwo\nthree\n");
        assert_eq!(open_write(&p, Open::New, 0o600).unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        open_write(&p, Open::Truncate, 0o600).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"");
        assert!(open_write(&d.join("missing"), Open::AppendExisting, 0).is_err());
        let (bytes, more) = read_bounded(&mut open_read(&p).unwrap(), 10).unwrap();
        assert_eq!((bytes.len(), more), (0, false));
        std::fs::write(&p, vec![b'x'; 100]).unwrap();
        let (bytes, more) = read_bounded(&mut open_read(&p).unwrap(), 10).unwrap();
        assert_eq!((bytes.len(), more), (10, true));
        let (bytes, more) = read_bounded(&mut open_read(&p).unwrap(), 100).unwrap();
        assert_eq!((bytes.len(), more), (100, false));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_private_directory_is_fresh_0700_and_removed_with_its_files() {
        let d = temp("private");
        let mut a = PrivateDir::create(&d, "x-").unwrap();
        let b = PrivateDir::create(&d, "x-").unwrap();
        assert_ne!(a.path(), b.path());
        let m = std::fs::symlink_metadata(a.path()).unwrap();
        assert!(m.is_dir());
        assert_eq!(m.mode() & 0o7777, 0o700);
        a.create_file("f", 0o600).unwrap().write_all(b"hi").unwrap();
        assert!(a.create_file("f", 0o600).is_err());
        assert!(a.create_file("../f", 0o600).is_err());
        let mut r = a.open_read("f").unwrap();
        assert_eq!(read_bounded(&mut r, 10).unwrap().0, b"hi");
        let path = a.path().to_path_buf();
        drop(a);
        assert!(!path.exists());
        drop(b);
        assert!(open_dir(&d.join("nothing")).is_err());
        std::os::unix::fs::symlink(&d, d.join("dirlink")).unwrap();
        assert!(open_dir(&d.join("dirlink")).unwrap_err().to_string().contains("symbolic link"));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
