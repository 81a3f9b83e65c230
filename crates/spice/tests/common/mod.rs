//! Where the engine's tests find the data they compare against (shared by the test crates that
//! declare `mod common;`; each uses some of it).
#![allow(dead_code)]

use std::io::Write;
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
/// `SPICE_FIDELITY_DIR`. It is not part of the repository: on a clone without it, this returns
/// `None` and says loudly, past the test harness's capture, that the calling test is skipped and
/// why; the caller returns. With `CI` set the data is required, and its absence fails the test.
pub fn fidelity_dir() -> Option<PathBuf> {
    shared_dir(
        "fidelity",
        "SPICE_FIDELITY_DIR",
        "flickr8k",
        "the official SPICE evidence",
    )
}

/// The human judgments of caption quality, `../shared/metaeval` beside the repository (or
/// `SPICE_METAEVAL_DIR`): like [`fidelity_dir`], `None` with a loud skip notice without it,
/// a failure with `CI` set.
pub fn metaeval_dir() -> Option<PathBuf> {
    shared_dir(
        "metaeval",
        "SPICE_METAEVAL_DIR",
        "flickr8k-expert.jsonl",
        "the human judgments",
    )
}

/// `../shared/<name>` (or `$env_var`) if it holds `marker`; otherwise a loud skip (or, in CI, a
/// failure).
fn shared_dir(name: &str, env_var: &str, marker: &str, what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(env_var)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../../shared")
                .join(name)
        });
    if dir.join(marker).exists() {
        return Some(dir);
    }
    let why = format!(
        "{} is missing: {what} lives in ../shared/{name} beside the repository (or set {env_var})",
        dir.display()
    );
    assert!(std::env::var_os("CI").is_none(), "{why}; CI requires it");
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a fidelity test");
    // Straight to the process's stderr: `eprintln!` would be captured and hidden on success.
    let _ = writeln!(
        std::io::stderr(),
        "\n*** SKIPPED {test}: {why}. Set CI=1 to make this a failure. ***\n"
    );
    None
}
