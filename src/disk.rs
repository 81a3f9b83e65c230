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

/// `statvfs` of the file system holding `path`.
fn stat(path: &Path) -> std::io::Result<libc::statvfs> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    // SAFETY: `c` is a valid C string and `stat` a plain struct that statvfs fills in.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut stat) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(stat)
}

/// Bytes available to unprivileged users on the file system holding `path`.
pub fn free_bytes(path: &Path) -> std::io::Result<u64> {
    stat(path).map(|s| s.f_bavail * s.f_frsize)
}

/// The size of the file system holding `path`.
pub fn total_bytes(path: &Path) -> std::io::Result<u64> {
    stat(path).map(|s| s.f_blocks * s.f_frsize)
}

impl DiskFloor {
    /// What an operator should hear at start-up: the file system is smaller than the floor (so
    /// every upload would be refused), or already below it.
    pub fn startup_warning(&self) -> Option<String> {
        let total = total_bytes(&self.path).ok()?;
        let floor_mb = self.min_free_bytes / 1_000_000;
        if total < self.min_free_bytes {
            return Some(format!(
                "the file system holding {} is {} MB, smaller than the free-space floor of {floor_mb} MB \
                 (limits.min_free_disk_bytes): every upload will be refused; lower the floor or move the data",
                self.path.display(),
                total / 1_000_000
            ));
        }
        let free = free_bytes(&self.path).ok()?;
        (free < self.min_free_bytes).then(|| {
            format!(
                "the file system holding {} has {} MB free, under the free-space floor of {floor_mb} MB \
                 (limits.min_free_disk_bytes): uploads are refused until space is freed",
                self.path.display(),
                free / 1_000_000
            )
        })
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_floor_above_the_disk_is_said_at_start_up() {
        let path = std::env::temp_dir();
        let total = total_bytes(&path).expect("statvfs of the temporary directory");
        let too_big = DiskFloor {
            path: path.clone(),
            min_free_bytes: total + 1,
        };
        let warning = too_big.startup_warning().expect("a warning");
        assert!(
            warning.contains("smaller than the free-space floor"),
            "{warning}"
        );
        let fine = DiskFloor {
            path,
            min_free_bytes: 0,
        };
        assert_eq!(fine.startup_warning(), None);
    }
}
