//! `spice eval`: COCO-format evaluation as users drive it: output shape, summary, exit codes and
//! error messages. The captions are the project's own. (Parity with pycocoevalcap is pinned by
//! `cocoeval_parity.rs`.)

use std::process::Output;

use serde_json::{json, Value};

use super::helpers::{spice, stderr, TestDir};

/// Images 7, 3, 5 in this order; image 5 has no caption.
fn annotations() -> String {
    json!({
        "info": {"description": "written for this test"},
        "images": [{"id": 7, "file_name": "seven.jpg"}, {"id": 3}, {"id": 5}],
        "annotations": [
            {"image_id": 3, "id": 1, "caption": "A brown dog runs across the green grass."},
            {"image_id": 7, "id": 2, "caption": "Two men ride red bikes down a street."},
            {"image_id": 3, "id": 3, "caption": "A dog running in a field."},
            {"image_id": 7, "id": 4, "caption": "Two people riding bicycles on a road."}
        ]
    })
    .to_string()
}

fn eval(dir: &TestDir, results: &str, extra: &[&str]) -> Output {
    let a = dir.file("annotations.json", annotations());
    let r = dir.file("results.json", results);
    let mut args = vec!["eval", "--annotations", &a, "--results", &r];
    args.extend_from_slice(extra);
    spice(&args)
}

#[test]
fn writes_eval_and_eval_imgs_in_pycocoevalcap_shape_and_prints_the_summary() {
    let dir = TestDir::new();
    let out = dir.path("eval.json");
    let results = r#"[{"image_id": 3, "caption": "A brown dog running on grass."},
                      {"image_id": 7, "caption": "Two men riding bikes."}]"#;
    let o = eval(&dir, results, &["--out", &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let names = [
        "Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr", "SPICE",
    ];
    let printed: Vec<&str> = stdout
        .lines()
        .map(|l| l.split(": ").next().unwrap_or(""))
        .collect();
    assert_eq!(printed, names, "{stdout}");
    for line in stdout.lines() {
        // "%0.3f": three decimals.
        let value = line.split(": ").nth(1).unwrap_or("");
        assert!(
            value.len() >= 5 && value.as_bytes()[value.len() - 4] == b'.',
            "{line}"
        );
    }

    let text = std::fs::read_to_string(&out).expect("eval.json written");
    let v: Value = serde_json::from_str(&text).expect("valid JSON");
    let eval = v["eval"].as_object().expect("eval object");
    assert_eq!(eval.keys().collect::<Vec<_>>(), names);
    let imgs = v["evalImgs"].as_array().expect("evalImgs array");
    // One row per result image, in the annotation file's order (7 before 3).
    let ids: Vec<&Value> = imgs.iter().map(|r| &r["image_id"]).collect();
    assert_eq!(ids, [&json!(7), &json!(3)]);
    let row = imgs[1].as_object().expect("row");
    let keys: Vec<&String> = row.keys().collect();
    assert_eq!(keys[0], "image_id");
    assert_eq!(&keys[1..], names);
    // SPICE per image: the jar's per-category dict, every number a float, NaN as null.
    let spice = row["SPICE"].as_object().expect("SPICE dict");
    for category in [
        "All",
        "Object",
        "Attribute",
        "Relation",
        "Color",
        "Cardinality",
        "Size",
    ] {
        let s = spice[category].as_object().expect("category dict");
        for k in ["pr", "re", "f", "tp", "fp", "fn", "numImages"] {
            assert!(s.contains_key(k), "{category} lacks {k}");
        }
    }
    assert!(text.contains("\"numImages\":1.0"), "counts are floats");
    // No reference mentions a number: Cardinality has no reference tuple, so its ratios are NaN.
    assert_eq!(spice["Cardinality"]["f"], Value::Null);
    // The dog caption shares tuples with its references (dog, grass, brown dog...).
    let all_f = spice["All"]["f"].as_f64().expect("All f");
    assert!(all_f > 0.0 && all_f <= 1.0, "{all_f}");
}

/// `--out` records the front end that parsed the captions for SPICE (`"front_end"`, after
/// pycocoevalcap's `eval` and `evalImgs`), and no front end when SPICE did not run.
#[test]
fn out_records_the_front_end_when_spice_ran() {
    let dir = TestDir::new();
    let results = r#"[{"image_id": 3, "caption": "a dog"}, {"image_id": 7, "caption": "two men"}]"#;
    for (metrics, keys) in [
        ("bleu,spice", &["eval", "evalImgs", "front_end"][..]),
        ("bleu", &["eval", "evalImgs"][..]),
    ] {
        let out = dir.path("eval.json");
        let o = eval(&dir, results, &["--metrics", metrics, "--out", &out]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).expect("written"))
            .expect("valid JSON");
        let got: Vec<&str> = v
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(got, keys, "--metrics {metrics}");
        if metrics.contains("spice") {
            assert_eq!(v["front_end"], "built-in");
        }
    }
}

#[test]
fn metrics_can_be_chosen_and_meteor_without_its_data_names_the_fix() {
    let dir = TestDir::new();
    let results = r#"[{"image_id": 3, "caption": "a dog"}]"#;
    let o = eval(&dir, results, &["--metrics", "cider,rouge"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.starts_with("ROUGE_L: ") && stdout.contains("\nCIDEr: "),
        "{stdout}"
    );
    assert!(
        !stdout.contains("SPICE") && !stdout.contains("Bleu"),
        "{stdout}"
    );

    let a = dir.file("annotations.json", annotations());
    let r = dir.file("results.json", results);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_spice"))
        .args(["eval", "--annotations", &a, "--results", &r])
        .args(["--metrics", "bleu,meteor"])
        .env("SPICEBOARD_DATA", dir.path("no-data-here"))
        .output()
        .expect("spice runs");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("METEOR data missing") && stderr(&o).contains("scripts/fetch-data"),
        "{}",
        stderr(&o)
    );
    let o = eval(&dir, results, &["--metrics", "bleurt"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown metric \"bleurt\""),
        "{}",
        stderr(&o)
    );
}

#[test]
fn usage_and_help() {
    let o = spice(&["eval", "--help"]);
    assert!(o.status.success());
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(
        help.contains("Usage") && help.contains("--annotations"),
        "{help}"
    );
    assert_eq!(
        spice(&["eval", "--results", "r.json"]).status.code(),
        Some(2)
    );
    assert_eq!(spice(&["eval"]).status.code(), Some(2));
}

#[test]
fn bad_input_exits_1_naming_the_file_and_the_entry() {
    let dir = TestDir::new();
    let cases = [
        (
            r#"[{"image_id": 3, "caption": "a"}, {"image_id": 4, "caption": "b"}]"#,
            "results.json: 1 image id is not in the annotation file: 4 (entry 2)",
        ),
        (
            r#"[{"image_id": 3, "caption": "a"}, {"image_id": 3, "caption": "b"}]"#,
            "results.json: 1 image id appears more than once: 3 (entries 1 and 2)",
        ),
        (
            r#"[{"image_id": 5, "caption": "a"}]"#,
            "results.json: 1 image has no reference captions in the annotation file: 5 (entry 1)",
        ),
        (
            r#"[{"image_id": 3, "caption": "a"},"#,
            "results.json: the file is not valid JSON: ",
        ),
        (
            r#"[{"image_id": 3}]"#,
            "results.json: 1 malformed entry: entry 1 (image_id 3): \"caption\" is missing",
        ),
        (
            r#"[{"image_id": "3", "caption": "a"}]"#,
            "\"3\" (entry 1)", // a string id is not the integer id 3
        ),
        ("[]", "results.json: the array holds no entries"),
    ];
    for (results, message) in cases {
        let o = eval(&dir, results, &["--metrics", "bleu"]);
        assert_eq!(o.status.code(), Some(1), "{results}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{results}: {}", stderr(&o));
    }
    let r = dir.file("ok.json", r#"[{"image_id": 3, "caption": "a"}]"#);
    let a = dir.file(
        "bad-annotations.json",
        "{\"images\": [{\"id\": 3}],\n \"annotations\": [}",
    );
    let o = spice(&["eval", "--annotations", &a, "--results", &r]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("bad-annotations.json: not valid JSON: ")
            && stderr(&o).contains("line 2"),
        "{}",
        stderr(&o)
    );
    let o = spice(&[
        "eval",
        "--annotations",
        &dir.path("missing.json"),
        "--results",
        &r,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("missing.json: cannot read"),
        "{}",
        stderr(&o)
    );
}

/// The files of `tests/fixtures/upload-rules`, with what `expected.txt` says of each: the
/// messages of a refused file (`None` notes) or the notes of an accepted one.
pub fn upload_rules() -> Vec<(String, bool, Vec<String>)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/upload-rules");
    let text = std::fs::read_to_string(format!("{dir}/expected.txt")).expect("expected.txt");
    let mut cases: Vec<(String, bool, Vec<String>)> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (key, message) = line.split_once(':').expect("FILE: message");
        let (file, accepted) = match key.strip_suffix(" (accepted)") {
            Some(f) => (f, true),
            None => (key, false),
        };
        let message = message
            .trim_start()
            .replace("{images}", "the annotation file");
        match cases.last_mut() {
            Some((f, _, lines)) if f == file => lines.push(message),
            _ => cases.push((file.to_string(), accepted, vec![message])),
        }
    }
    for (_, _, lines) in &mut cases {
        lines.retain(|l| !l.is_empty());
    }
    cases
}

#[test]
fn the_upload_rules_files_get_the_servers_messages() {
    // tests/api/uploads.rs uploads the same files to the server and finds the same words.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/upload-rules");
    let annotations = format!("{dir}/annotations.json");
    let cases = upload_rules();
    assert!(cases.len() >= 10, "{cases:?}");
    for (file, accepted, expected) in cases {
        let path = format!("{dir}/{file}");
        let o = spice(&[
            "eval",
            "--annotations",
            &annotations,
            "--results",
            &path,
            "--metrics",
            "bleu",
        ]);
        let err = stderr(&o);
        assert_eq!(
            o.status.code(),
            Some(if accepted { 0 } else { 1 }),
            "{file}: {err}"
        );
        // Each message line names the file; the first is the command's.
        let said: Vec<String> = err
            .lines()
            .filter_map(|l| {
                l.strip_prefix("spice: ")
                    .unwrap_or(l)
                    .strip_prefix(&format!("{path}: "))
            })
            .map(str::to_string)
            .collect();
        assert_eq!(said, expected, "{file}: {err}");
    }
}
