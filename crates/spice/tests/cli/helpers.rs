//! Running the built `spice` binary, and a temporary directory per test for its files.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// Runs `spice` with these arguments.
pub fn spice(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spice"))
        .args(args)
        .output()
        .expect("spice runs")
}

/// Runs `spice` with these arguments and this standard input.
pub fn spice_with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_spice"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn spice");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write stdin");
    child.wait_with_output().expect("wait for spice")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A directory of its own for one test (removed when dropped), so tests running at once never
/// share a file.
pub struct TestDir(tempfile::TempDir);

impl TestDir {
    pub fn new() -> TestDir {
        TestDir(
            tempfile::Builder::new()
                .prefix("spice-cli-")
                .tempdir()
                .expect("temporary directory"),
        )
    }

    /// Writes `contents` to `name` in the directory; returns its path.
    pub fn file(&self, name: &str, contents: impl AsRef<[u8]>) -> String {
        let p = self.0.path().join(name);
        std::fs::write(&p, contents).expect("write");
        p.to_string_lossy().into_owned()
    }

    /// The path of `name` in the directory (nothing written).
    pub fn path(&self, name: &str) -> String {
        self.0.path().join(name).to_string_lossy().into_owned()
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
}
