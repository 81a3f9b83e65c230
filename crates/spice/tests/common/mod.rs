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
        "the human-judgment data",
    )
}

/// CoreNLP's English PCFG and the official pipeline's analyses, `../shared/corenlp` beside the
/// repository (or `SPICE_CORENLP_DIR`): like [`fidelity_dir`], `None` with a loud skip notice
/// without it, a failure with `CI` set.
pub fn corenlp_dir() -> Option<PathBuf> {
    shared_dir(
        "corenlp",
        "SPICE_CORENLP_DIR",
        "englishPCFG.ser.gz",
        "CoreNLP's English PCFG, with the official analyses,",
    )
}

/// The data cache's `relative` if it is there; otherwise a loud skip like [`fidelity_dir`]'s
/// (or, in CI, a failure).
pub fn optional_data_file(relative: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("SPICEBOARD_DATA")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/spiceboard/data"))
        })?;
    let file = dir.join(relative);
    if file.exists() {
        return Some(file);
    }
    skip(format!(
        "{} is missing: run scripts/fetch-data (scripts/test does)",
        file.display()
    ))
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
    skip(format!(
        "{} is missing: {what} lives in ../shared/{name} beside the repository (or set {env_var})",
        dir.display()
    ))
}

/// `None` after saying loudly, past the test harness's capture, that the calling test is skipped
/// and why; with `CI` set, a failure instead.
fn skip<T>(why: String) -> Option<T> {
    assert!(std::env::var_os("CI").is_none(), "{why}; CI requires it");
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    // Straight to the process's stderr: `eprintln!` would be captured and hidden on success.
    let _ = writeln!(
        std::io::stderr(),
        "\n*** SKIPPED {test}: {why}. Set CI=1 to make this a failure. ***\n"
    );
    None
}

/// Runs a single-file Java oracle of `tests/oracles/` (`source`, e.g. "MeteorSynonyms.java")
/// with `jar` on the class path and `args`, feeds it `input` on standard input, and returns its
/// standard output.
pub fn java_oracle(
    jar: &std::path::Path,
    source: &str,
    args: &[&std::ffi::OsStr],
    input: String,
) -> String {
    let oracle = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/oracles")
        .join(source);
    let mut child = std::process::Command::new("java")
        .arg("-cp")
        .arg(jar)
        .arg(&oracle)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("java runs (Java 17 is part of the test machine)");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("oracle output");
    writer
        .join()
        .expect("writer thread")
        .expect("write the oracle's input");
    assert!(out.status.success(), "oracle {source} failed");
    String::from_utf8(out.stdout).expect("the oracle writes UTF-8")
}

/// What `scripts/metrics-oracle` writes: the images as pycocoevalcap tokenized them, and its
/// scores.
#[derive(serde::Deserialize)]
pub struct MetricsOracle {
    pub images: Vec<OracleImage>,
    pub corpus: serde_json::Map<String, serde_json::Value>,
    pub per_image: Vec<serde_json::Map<String, serde_json::Value>>,
}

#[derive(serde::Deserialize)]
pub struct OracleImage {
    pub image_id: u64,
    pub candidate: String,
    pub references: Vec<String>,
}

/// Runs `scripts/metrics-oracle --images N` with `args` on the data of [`data_dir`].
pub fn metrics_oracle(images: usize, args: &[&str]) -> MetricsOracle {
    let data = data_dir("pycocoevalcap");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("metrics-oracle-{images}-{}.json", args.join("")));
    let status = std::process::Command::new("python3")
        .arg(root.join("scripts/metrics-oracle"))
        .args(["--images", &images.to_string(), "--out"])
        .arg(&out)
        .args(args)
        .env("SPICEBOARD_DATA", &data)
        .status()
        .unwrap_or_else(|e| panic!("cannot run python3 scripts/metrics-oracle: {e}"));
    assert!(
        status.success(),
        "scripts/metrics-oracle failed ({status}); see its message above"
    );
    let text = std::fs::read_to_string(&out)
        .unwrap_or_else(|e| panic!("cannot read oracle output {}: {e}", out.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("oracle output {}: {e}", out.display()))
}
