//! Golden tests of the `spice` command on captions written for the project
//! (`tests/fixtures/golden_input.json`): the printed summary and the `-out` JSON (with `-subset
//! -detailed`) must stay byte-identical, and must not depend on the number of threads.
//!
//! The expected files change when the parser model or the rules change on purpose; regenerate them
//! with `SPICE_UPDATE_GOLDEN=1 cargo test -p spice --test cli golden` and review the diff.

use std::path::{Path, PathBuf};

use super::helpers::{spice, stderr, stdout, TestDir};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Runs `spice` on the golden input; returns (stdout, out-file JSON).
fn run(threads: &str, extra: &[&str]) -> (String, String) {
    let dir = TestDir::new();
    let out = dir.path("out.json");
    let input = fixtures().join("golden_input.json");
    let mut args = vec![
        input.to_str().expect("UTF-8 path"),
        "-out",
        &out,
        "-threads",
        threads,
    ];
    args.extend_from_slice(extra);
    let o = spice(&args);
    assert!(o.status.success(), "spice failed: {}", stderr(&o));
    let json = std::fs::read_to_string(&out).expect("output written");
    (stdout(&o), json)
}

fn check(name: &str, actual: &str) {
    let path = fixtures().join(name);
    if std::env::var_os("SPICE_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).expect("write golden file");
        return;
    }
    let expected =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        expected == actual,
        "{name} differs from the golden file; if the change is intended, regenerate with \
         SPICE_UPDATE_GOLDEN=1 and review the diff.\n--- expected\n{expected}\n--- actual\n{actual}"
    );
}

#[test]
fn summary_and_json_match_the_golden_files() {
    let (stdout, json) = run("2", &["-subset", "-detailed"]);
    check("golden_summary.txt", &stdout);
    check("golden_output.json", &json);
}

#[test]
fn output_bytes_do_not_depend_on_threads() {
    let (s1, j1) = run("1", &["-subset", "-detailed"]);
    for threads in ["2", "3", "8"] {
        let (s, j) = run(threads, &["-subset", "-detailed"]);
        assert_eq!(s, s1, "summary with {threads} threads");
        assert_eq!(j, j1, "JSON with {threads} threads");
    }
}

#[test]
fn odd_captions_score_without_errors() {
    // The fixture's empty candidate, HTML, emoji and curly quotes: a defined result each.
    let (_, json) = run("1", &[]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    let items = v.as_array().expect("array");
    assert_eq!(items.len(), 6);
    // The empty candidate has no tuples: nothing matched, F is 0 (not NaN: `All` never is).
    let empty = &items[4]["scores"]["All"];
    assert_eq!(
        (
            empty["tp"].as_u64(),
            empty["fp"].as_u64(),
            empty["f"].as_f64()
        ),
        (Some(0), Some(0), Some(0.0))
    );
    assert!(items[4]["image_id"] == 5);
    assert!(items[1]["image_id"] == "kitchen-2");
}

#[test]
fn a_ten_thousand_word_caption_is_scored() {
    let words: Vec<&str> = [
        "a", "dog", "runs", "on", "the", "grass", "with", "a", "red", "ball", "and",
    ]
    .iter()
    .cycle()
    .take(10_000)
    .copied()
    .collect();
    let input = serde_json::json!([{ "image_id": 1, "test": words.join(" "), "refs": ["a dog on the grass"] }]);
    let dir = TestDir::new();
    let path = dir.file("long.json", input.to_string());
    let o = spice(&[&path, "-silent"]);
    assert!(o.status.success(), "{}", stderr(&o));
}
