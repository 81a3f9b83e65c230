//! `-out` with `-detailed` is written as it goes (issue 35 item 7): the command's peak memory
//! does not grow with the output. Before, 4,000 items of long captions took 250 MB more than ten
//! items did (the whole output was built as a JSON tree first); 20,000 hostile items took 3 GB.

use std::process::{Command, Stdio};
use std::time::Duration;

use super::helpers::TestDir;

/// An input of `n` items, every one with the same long captions (parsed once per chunk, so the
/// run is quick) and about 80 tuples to list.
fn input(n: usize) -> String {
    let test =
        "a young man with a red hat and a blue shirt is riding a white horse next to a large \
                wooden fence near a green field with two black dogs and a small brown cat under a \
                tall old tree";
    let refs = [
        "a man in a red hat rides a white horse beside a wooden fence",
        "two black dogs and a brown cat sit under an old tree in a green field",
        "a young man riding a horse near a fence with dogs and a cat",
        "a rider with a blue shirt on a large white horse in a field",
    ];
    let items: Vec<_> = (0..n)
        .map(|k| serde_json::json!({ "image_id": k, "test": test, "refs": refs }))
        .collect();
    serde_json::Value::Array(items).to_string()
}

/// The peak resident memory of `spice` on these arguments, in kB (VmHWM, read from /proc while
/// it runs; the last reading before it exits).
fn peak_kb(args: &[&str]) -> u64 {
    let mut child = Command::new(env!("CARGO_BIN_EXE_spice"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn spice");
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        if let Ok(status) = std::fs::read_to_string(&status_path) {
            let hwm = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
            peak = peak.max(hwm.unwrap_or(0));
        }
        if let Some(status) = child.try_wait().expect("wait for spice") {
            assert!(status.success(), "spice {args:?}: {status}");
            return peak;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn detailed_output_is_written_as_it_goes() {
    if !std::path::Path::new("/proc/self/status").exists() {
        eprintln!("no /proc: peak memory not measured");
        return;
    }
    let dir = TestDir::new();
    let small = dir.file("small.json", input(10));
    let large = dir.file("large.json", input(4000));
    let out = dir.path("out.json");
    let run = |path: &str| {
        peak_kb(&[
            path,
            "-out",
            &out,
            "-subset",
            "-detailed",
            "-silent",
            "-threads",
            "2",
        ])
    };
    let base = run(&small);
    let peak = run(&large);
    let written = std::fs::metadata(&out).expect("output written").len();
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out).expect("read output")).expect("valid JSON");
    assert_eq!(v.as_array().map(Vec::len), Some(4000));
    assert!(written > 30_000_000, "{written} bytes written");
    // The output is over 30 MB; what is held while writing it stays within a few chunks.
    assert!(
        peak < base + 64 * 1024,
        "peak {peak} kB on 4,000 items against {base} kB on 10 ({written} bytes written)"
    );
}

#[test]
fn a_failed_write_exits_1_and_leaves_devices_alone() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("no /dev/full: not tested");
        return;
    }
    let dir = TestDir::new();
    let path = dir.file("in.json", input(600));
    let o = super::helpers::spice(&[&path, "-out", "/dev/full", "-detailed", "-silent"]);
    assert_eq!(o.status.code(), Some(1));
    let err = super::helpers::stderr(&o);
    assert!(err.contains("/dev/full: cannot write"), "{err}");
    assert!(std::path::Path::new("/dev/full").exists());
}
