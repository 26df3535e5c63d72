//! Where `rtac run --mode preload` gets librtac_preload.so.
//!
//! In order: `--preload PATH`, `$RTAC_PRELOAD`, a file beside the
//! executable (`run::preload_candidates`: a build tree or a package that
//! ships the library), and last the copy embedded in release builds
//! (`build.rs`), which is what an installed `rtac` (`cargo install`) has.
//!
//! The embedded copy is written, once per process, into a directory of its
//! own (`rtac_live::safefs::PrivateDir`: mkdtemp(3), mode 0700, a random name, checked) under
//! `$XDG_RUNTIME_DIR` when that is a private directory of this user, else
//! under the temporary directory; the file is created with O_EXCL and
//! O_NOFOLLOW, so nothing at a predictable path is written or followed.
//! The program and every process it starts load it from there (a path, not
//! an inherited descriptor, so programs that close their descriptors
//! before exec keep it); both are removed when `rtac` exits (atexit; an
//! `rtac` killed by SIGKILL leaves them to the temporary directory's cleaner).

use crate::run::{find_preload, preload_candidates, ENV_PRELOAD, PRELOAD_NAME};
use rtac_live::safefs::PrivateDir;
use rtac_live::AgentError;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

/// The library built into this executable, if any.
pub fn embedded() -> Option<&'static [u8]> {
    #[cfg(rtac_embedded_preload)]
    {
        Some(include_bytes!(env!("RTAC_EMBEDDED_PRELOAD")))
    }
    #[cfg(not(rtac_embedded_preload))]
    {
        None
    }
}

/// The shim's path for LD_PRELOAD: a file named by the user or found
/// beside the executable, else the embedded copy written out.
pub fn locate(explicit: Option<&Path>) -> Result<PathBuf, AgentError> {
    let named = explicit.is_some() || std::env::var_os(ENV_PRELOAD).is_some_and(|p| !p.is_empty());
    if named || preload_candidates(None).iter().any(|c| c.is_file()) {
        return find_preload(explicit);
    }
    match embedded() {
        Some(bytes) => extracted(bytes),
        None => find_preload(None),
    }
}

/// The directory written by [`extracted`] (its file removed with it when
/// dropped, at exit) and the file's path.
static EXTRACTED: Mutex<Option<(PrivateDir, PathBuf)>> = Mutex::new(None);

extern "C" fn remove_extracted() {
    if let Ok(mut g) = EXTRACTED.lock() {
        g.take();
    }
}

/// Writes `bytes` into a fresh private directory (once per process) and
/// returns the file's path.
fn extracted(bytes: &[u8]) -> Result<PathBuf, AgentError> {
    let mut g = EXTRACTED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, file)) = g.as_ref() {
        return Ok(file.clone());
    }
    let base = base_dir();
    let mut dir = PrivateDir::create(&base, "rtac-preload-").map_err(|err| AgentError::Io {
        what: format!("cannot make a private directory in {}", base.display()),
        err,
    })?;
    let file = dir.path().join(PRELOAD_NAME);
    // The directory and whatever was created in it go when `dir` drops.
    dir.create_file(PRELOAD_NAME, 0o500).and_then(|mut f| f.write_all(bytes)).map_err(|err| AgentError::Io {
        what: format!("cannot write the embedded {PRELOAD_NAME} to {}", file.display()),
        err,
    })?;
    *g = Some((dir, file.clone()));
    static AT_EXIT: Once = Once::new();
    // SAFETY: registers a plain function with no arguments.
    AT_EXIT.call_once(|| unsafe {
        libc::atexit(remove_extracted);
    });
    Ok(file)
}

/// `$XDG_RUNTIME_DIR` if it is an absolute directory of this user that no
/// one else can write, else the temporary directory.
fn base_dir() -> PathBuf {
    // SAFETY: no preconditions.
    let uid = unsafe { libc::geteuid() };
    if let Some(d) = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from).filter(|d| d.is_absolute()) {
        if let Ok(m) = std::fs::symlink_metadata(&d) {
            if m.is_dir() && m.uid() == uid && m.permissions().mode() & 0o022 == 0 {
                return d;
            }
        }
    }
    std::env::temp_dir()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extracted_copy_is_private_and_holds_the_bytes() {
        let file = extracted(b"\x7fELF not really").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"\x7fELF not really");
        assert_eq!(extracted(b"other").unwrap(), file, "written once per process");
        let dir = file.parent().unwrap().to_path_buf();
        assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
        assert!(dir.file_name().unwrap().to_str().unwrap().starts_with("rtac-preload-"));
        remove_extracted();
        assert!(!dir.exists(), "removed at exit");
    }
}
