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
            "results.json: 1 result(s) name images that are not in the annotations' \"images\": [1] (image_id 4)",
        ),
        (
            r#"[{"image_id": 3, "caption": "a"}, {"image_id": 3, "caption": "b"}]"#,
            "results.json: 1 result(s) repeat an image id (one caption per image): [1] (image_id 3, already at [0])",
        ),
        (
            r#"[{"image_id": 5, "caption": "a"}]"#,
            "without reference captions in the annotations: [0] (image_id 5)",
        ),
        (r#"[{"image_id": 3, "caption": "a"},"#, "results.json: not valid JSON: "),
        (r#"[{"image_id": 3}]"#, "results.json: [0]: missing field \"caption\" (image_id 3)"),
        (
            r#"[{"image_id": "3", "caption": "a"}]"#,
            "[0] (image_id \"3\")", // a string id is not the integer id 3
        ),
        ("[]", "results.json: no results"),
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
