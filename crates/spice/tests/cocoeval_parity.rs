//! `spice eval` against pycocoevalcap's `COCOEvalCap` itself (`scripts/cocoeval-oracle`, which
//! loads the files with pycocotools and runs `evaluate()` with its Meteor and Spice scorers left
//! out), on 400 COCO val2014 images with the real annotation file: the same images in the same
//! order, and every `eval` and `evalImgs` score of BLEU-1..4, ROUGE-L and CIDEr-D within 1e-9.
//! Also: the inputs pycocoevalcap refuses (unknown image ids, two results for one image), we
//! refuse too, naming the entries. Needs SPICEBOARD_DATA (scripts/fetch-data), python3 and java.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

mod common;

const IMAGES: usize = 400;
const TOLERANCE: f64 = 1e-9;

fn tmp(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cocoeval-parity-{name}"))
}

fn write_json(path: &Path, v: &Value) {
    let text = serde_json::to_string(v).unwrap_or_else(|e| panic!("serialize: {e}"));
    std::fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs the oracle; `Ok(output)` or `Err(pycocoevalcap's error)` when it refused the input.
fn oracle(annotations: &Path, results: &Path, name: &str) -> Result<Value, String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = tmp(&format!("{name}-oracle.json"));
    let status = Command::new("python3")
        .arg(root.join("scripts/cocoeval-oracle"))
        .arg("--annotations")
        .arg(annotations)
        .arg("--results")
        .arg(results)
        .arg("--out")
        .arg(&out)
        .env("SPICEBOARD_DATA", common::data_dir("pycocoevalcap"))
        .status()
        .unwrap_or_else(|e| panic!("cannot run python3 scripts/cocoeval-oracle: {e}"));
    let v = read_json(&out);
    match status.code() {
        Some(0) => Ok(v),
        Some(3) => Err(v["error"].as_str().unwrap_or("?").to_string()),
        _ => panic!("scripts/cocoeval-oracle failed ({status}); see its message above"),
    }
}

fn spice_eval(annotations: &Path, results: &Path, out: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spice"));
    cmd.arg("eval")
        .arg("--annotations")
        .arg(annotations)
        .arg("--results")
        .arg(results)
        .args(["--metrics", "bleu,rouge,cider"]);
    if let Some(out) = out {
        cmd.arg("--out").arg(out);
    }
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run spice: {e}"))
}

/// Captions that exercise the tokenizer and the metrics' corner cases.
const EDGE_CASES: [&str; 8] = [
    "",
    ".",
    "Dog",
    "a a a a a a a a a",
    "A man. A man. A man.",
    "A dog\non the grass, I'll say!",
    "Caf\u{e9} cr\u{e8}me \u{bd} (with \"quotes\") -- and more...",
    "TWO CATS SITTING ON A RED COUCH",
];

/// Results for `IMAGES` images of the annotation file, in a scrambled order: mostly the first
/// caption of another image, some edge cases, and the image that comes last in the file's order
/// gets a caption whose tokens depend on the end of the tokenizer's input ("I'll").
fn build_results(annotations: &Value) -> Value {
    let images: Vec<i64> = annotations["images"]
        .as_array()
        .expect("images")
        .iter()
        .map(|i| i["id"].as_i64().expect("integer id"))
        .collect();
    let mut first_caption = std::collections::HashMap::new();
    for a in annotations["annotations"].as_array().expect("annotations") {
        let id = a["image_id"].as_i64().expect("image_id");
        first_caption
            .entry(id)
            .or_insert_with(|| a["caption"].as_str().expect("caption").to_string());
    }
    let chosen: Vec<i64> = (0..IMAGES)
        .map(|k| images[k * images.len() / IMAGES])
        .collect();
    let mut results: Vec<Value> = chosen
        .iter()
        .enumerate()
        .map(|(k, &id)| {
            let caption = if k == IMAGES - 1 {
                "A man that I'll".to_string()
            } else if k % 40 == 7 {
                EDGE_CASES[(k / 40) % EDGE_CASES.len()].to_string()
            } else {
                first_caption[&chosen[(k * 7 + 1) % IMAGES]].clone()
            };
            match k {
                // 42.0 is image 42 for Python; extra fields are ignored by loadRes.
                3 => json!({"image_id": id as f64, "caption": caption}),
                4 => json!({"image_id": id, "caption": caption, "id": 1, "score": 0.5}),
                _ => json!({"image_id": id, "caption": caption}),
            }
        })
        .collect();
    // Scramble: the evaluation order is the annotation file's, not the results'.
    let mut order: Vec<usize> = (0..IMAGES).collect();
    order.sort_by_key(|&k| (k * 7919) % IMAGES);
    results = order.iter().map(|&k| results[k].clone()).collect();
    Value::Array(results)
}

fn number(v: &Value, what: &str) -> f64 {
    v.as_f64()
        .unwrap_or_else(|| panic!("{what}: not a number: {v}"))
}

#[test]
fn spice_eval_matches_cocoevalcap_on_400_coco_val_images() {
    let annotations_path = common::data_file("coco/captions_val2014.json");
    let annotations = read_json(&annotations_path);
    let results_path = tmp("results.json");
    write_json(&results_path, &build_results(&annotations));
    let theirs = oracle(&annotations_path, &results_path, "parity")
        .unwrap_or_else(|e| panic!("pycocoevalcap refused the results: {e}"));
    let ours_path = tmp("ours.json");
    let o = spice_eval(&annotations_path, &results_path, Some(&ours_path));
    assert!(
        o.status.success(),
        "spice eval failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let ours = read_json(&ours_path);

    // eval: the same names in the same order, the same values.
    let (te, oe) = (
        theirs["eval"].as_object().expect("eval"),
        ours["eval"].as_object().expect("eval"),
    );
    let names: Vec<&String> = te.keys().collect();
    assert_eq!(names, oe.keys().collect::<Vec<_>>(), "eval names");
    assert_eq!(
        names,
        ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "CIDEr"]
    );
    let mut diffs = Vec::new();
    for name in &names {
        let (t, o) = (number(&te[*name], name), number(&oe[*name], name));
        if (t - o).abs() > TOLERANCE || t.is_nan() != o.is_nan() {
            diffs.push(format!("eval {name}: ours {o:e}, pycocoevalcap {t:e}"));
        }
    }
    // The summary prints the same scores with three decimals.
    let stdout = String::from_utf8_lossy(&o.stdout);
    for name in &names {
        let line = format!("{name}: {:.3}", number(&te[*name], name));
        assert!(stdout.contains(&line), "summary lacks {line:?}:\n{stdout}");
    }

    // evalImgs: the same images in the same order, the same scores.
    let (ti, oi) = (
        theirs["evalImgs"].as_array().expect("evalImgs"),
        ours["evalImgs"].as_array().expect("evalImgs"),
    );
    assert_eq!(ti.len(), IMAGES);
    assert_eq!(oi.len(), IMAGES);
    for (t, o) in ti.iter().zip(oi) {
        assert_eq!(t["image_id"], o["image_id"], "image order");
        let (t, o) = (t.as_object().expect("row"), o.as_object().expect("row"));
        assert_eq!(
            t.keys().collect::<Vec<_>>(),
            o.keys().collect::<Vec<_>>(),
            "evalImgs keys"
        );
        for name in &names {
            let (tv, ov) = (number(&t[*name], name), number(&o[*name], name));
            if (tv - ov).abs() > TOLERANCE || tv.is_nan() != ov.is_nan() {
                diffs.push(format!(
                    "image {} {name}: ours {ov:e}, pycocoevalcap {tv:e}",
                    t["image_id"]
                ));
            }
        }
    }
    assert!(
        diffs.is_empty(),
        "{} scores differ by more than {TOLERANCE}; first ones:\n{}",
        diffs.len(),
        diffs[..diffs.len().min(5)].join("\n")
    );
}

#[test]
fn what_cocoevalcap_refuses_spice_eval_refuses_naming_the_entries() {
    // A small annotation file written for this test: images 1, 2, 3 (3 has no caption).
    let annotations = json!({
        "images": [{"id": 2}, {"id": 1}, {"id": 3}],
        "annotations": [
            {"image_id": 1, "id": 10, "caption": "A brown dog runs on the grass."},
            {"image_id": 2, "id": 11, "caption": "Two people ride bikes down a street."},
            {"image_id": 1, "id": 12, "caption": "A dog running in a field."}
        ]
    });
    let annotations_path = tmp("small-annotations.json");
    write_json(&annotations_path, &annotations);
    let cases = [
        (
            "unknown",
            json!([{"image_id": 1, "caption": "a dog"}, {"image_id": 99, "caption": "a cat"}]),
            "1 image id is not in the annotation file: 99 (entry 2)",
        ),
        (
            "duplicate",
            json!([{"image_id": 1, "caption": "a dog"}, {"image_id": 2, "caption": "bikes"},
                   {"image_id": 1, "caption": "a puppy"}]),
            "1 image id appears more than once: 1 (entries 1 and 3)",
        ),
    ];
    for (name, results, entry) in cases {
        let results_path = tmp(&format!("{name}.json"));
        write_json(&results_path, &results);
        let refused = oracle(&annotations_path, &results_path, name);
        assert!(
            refused.is_err(),
            "{name}: pycocoevalcap accepted it: {refused:?}"
        );
        let o = spice_eval(&annotations_path, &results_path, None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains(entry), "{name}: {err}");
    }
}
