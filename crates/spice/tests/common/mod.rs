//! Where the engine's tests find the data they compare against (shared by the test crates that
//! declare `mod common;`; each uses some of it).
#![allow(dead_code)]

use std::path::PathBuf;

/// The data cache `scripts/fetch-data` fills (`SPICEBOARD_DATA`, or its default
/// `~/.cache/spiceboard/data`), checked to hold `needed`; a clear failure otherwise.
pub fn data_dir(needed: &str) -> PathBuf {
    let dir = std::env::var_os("SPICEBOARD_DATA")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/spiceboard/data"))
        })
        .expect("set SPICEBOARD_DATA (scripts/fetch-data prints it)");
    assert!(
        dir.join(needed).exists(),
        "{} has no {needed}: run scripts/fetch-data (scripts/test does)",
        dir.display()
    );
    dir
}

/// A file of the data cache, checked to exist.
pub fn data_file(relative: &str) -> PathBuf {
    data_dir(relative).join(relative)
}

/// The official evidence, `../shared/fidelity` beside the repository (as in CI), or
/// `SPICE_FIDELITY_DIR`.
pub fn fidelity_dir() -> PathBuf {
    let dir = std::env::var_os("SPICE_FIDELITY_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fidelity")
        });
    assert!(
        dir.join("flickr8k").is_dir(),
        "{} is missing: the fidelity data lives in ../shared beside the repository",
        dir.display()
    );
    dir
}
