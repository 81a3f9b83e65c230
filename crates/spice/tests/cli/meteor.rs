//! `spice meteor`: METEOR 1.5 of plain candidate/reference pairs, in the SPICE jar's input format.
//! (Parity with pycocoevalcap's jar is pinned by `meteor_parity.rs`.)

use serde_json::Value;

use super::helpers::{spice, stderr, stdout, TestDir};

#[test]
fn scores_each_item_and_the_corpus_with_the_jar_statistics() {
    let dir = TestDir::new();
    let input = dir.file(
        "in.json",
        r#"[{"image_id": 1, "test": "a dog runs on the grass", "refs": ["a dog runs on the grass"]},
            {"image_id": "b", "test": "Two men ride bikes.", "refs": ["two people riding bicycles", "a man on a bike"], "extra": 1},
            {"image_id": 3, "test": "", "refs": []}]"#,
    );
    let out = dir.path("out.json");
    let o = spice(&["meteor", &input, "--out", &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("METEOR: 0."), "{}", stdout(&o));
    let text = std::fs::read_to_string(&out).expect("out.json written");
    let rows: Value = serde_json::from_str(&text).expect("JSON");
    let rows = rows.as_array().expect("array");
    assert_eq!(rows.len(), 3);
    // Identical captions: every word matched exactly in one chunk, no penalty.
    assert_eq!(rows[0]["METEOR"], 1.0);
    assert_eq!(rows[1]["image_id"], "b");
    let s = rows[1]["METEOR"].as_f64().expect("score");
    assert!(s > 0.0 && s < 1.0, "{s}");
    // The jar's 23 statistics: lengths of candidate and best reference first.
    let stats = rows[0]["stats"].as_array().expect("stats");
    assert_eq!(stats.len(), 23);
    assert_eq!(
        (stats[0].as_f64(), stats[1].as_f64()),
        (Some(6.0), Some(6.0))
    );
    // Nothing to match: 0, as the jar gives.
    assert_eq!(rows[2]["METEOR"], 0.0);

    // --coco tokenizes as pycocoevalcap first: the final period and the capital go.
    let o = spice(&["meteor", &input, "--coco", "--out", &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).expect("out.json written");
    let rows: Value = serde_json::from_str(&text).expect("JSON");
    let stats = rows[1]["stats"].as_array().expect("stats");
    assert_eq!(stats[0].as_f64(), Some(4.0), "two men ride bikes");
}
