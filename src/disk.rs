//! The free-space floor: uploads are refused while the disk under the database holds less than
//! `limits.min_free_disk_bytes`, so that a full disk is met by a clear refusal long before
//! PostgreSQL runs out of space and stops (issue 11). The check reads the file system on every
//! upload, so the server takes uploads again as soon as space is back, without a restart.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Where to look and how much must stay free.
#[derive(Debug, Clone)]
pub struct DiskFloor {
    pub path: PathBuf,
    pub min_free_bytes: u64,
}

/// Bytes available to unprivileged users on the file system holding `path`.
pub fn free_bytes(path: &Path) -> std::io::Result<u64> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    // SAFETY: `c` is a valid C string and `stat` a plain struct that statvfs fills in.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut stat) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(stat.f_bavail as u64 * stat.f_frsize as u64)
}

impl DiskFloor {
    /// `Err` with a message for people if the disk is below the floor. A path that cannot be read
    /// counts as no information, not as a full disk.
    pub fn check(&self) -> Result<(), String> {
        match free_bytes(&self.path) {
            Ok(free) if free < self.min_free_bytes => Err(format!(
                "the server is short of disk space ({} MB free, {} MB must stay free), so it takes no uploads for now; try again later",
                free / 1_000_000,
                self.min_free_bytes / 1_000_000
            )),
            Ok(_) => Ok(()),
            Err(e) => {
                tracing::warn!(error = %e, path = %self.path.display(), "cannot read free disk space");
                Ok(())
            }
        }
    }
}
