//! Our BLEU-1..4, ROUGE-L and CIDEr-D against pycocoevalcap itself, on 1,000 COCO val2014 images.
//!
//! The oracle (`scripts/metrics-oracle`) builds the evaluation, tokenizes it with pycocoevalcap's
//! PTBTokenizer and scores it with pycocoevalcap; we score the same tokenized captions. Every
//! corpus and per-image score must agree within 1e-9 (in practice they are bit-identical; see
//! `scripts/parity-metrics` for the 5,000-image run). Needs SPICEBOARD_DATA (scripts/fetch-data),
//! python3 and java.

use spice::metrics::{cider, evaluate, CiderDf, EvalSet, ImageCaptions, Metric, Scores};

mod common;
use common::MetricsOracle;

const IMAGES: usize = 1000;
/// The metrics this test checks (METEOR has its own test, `tests/meteor_parity.rs`).
const CLASSIC: [Metric; 3] = [Metric::Bleu, Metric::RougeL, Metric::CiderD];
const TOLERANCE: f64 = 1e-9;

fn run_oracle() -> MetricsOracle {
    common::metrics_oracle(IMAGES, &[])
}

fn value(map: &serde_json::Map<String, serde_json::Value>, name: &str) -> f64 {
    map.get(name)
        .and_then(serde_json::Value::as_f64)
        .unwrap_or_else(|| panic!("oracle has no number for {name}"))
}

/// More than the tolerance apart, or NaN on either side.
fn differ(ours: f64, theirs: f64) -> bool {
    let d = (ours - theirs).abs();
    d.is_nan() || d > TOLERANCE
}

/// Every difference above the tolerance, as readable lines.
fn differences(
    oracle: &MetricsOracle,
    corpus: &Scores,
    per_image: &[&Scores],
    names: &[&str],
) -> Vec<String> {
    let mut out = Vec::new();
    for &name in names {
        let ours = corpus.get(name).unwrap_or(f64::NAN);
        let theirs = value(&oracle.corpus, name);
        if differ(ours, theirs) {
            out.push(format!(
                "corpus {name}: ours {ours:e}, pycocoevalcap {theirs:e}"
            ));
        }
        for (i, scores) in per_image.iter().enumerate() {
            let ours = scores.get(name).unwrap_or(f64::NAN);
            let theirs = value(&oracle.per_image[i], name);
            if differ(ours, theirs) {
                let img = &oracle.images[i];
                out.push(format!(
                    "image {} {name}: ours {ours:e}, pycocoevalcap {theirs:e} (candidate {:?}, references {:?})",
                    img.image_id, img.candidate, img.references
                ));
            }
        }
    }
    out
}

#[test]
fn bleu_rouge_cider_match_pycocoevalcap_on_1000_coco_images() {
    let oracle = run_oracle();
    assert_eq!(oracle.images.len(), IMAGES);
    assert_eq!(oracle.per_image.len(), IMAGES);
    let set = EvalSet::new(oracle.images.iter().map(|img| {
        let captions = ImageCaptions::new(img.candidate.clone(), img.references.clone())
            .unwrap_or_else(|e| panic!("image {}: {e}", img.image_id));
        (img.image_id, captions)
    }))
    .unwrap_or_else(|e| panic!("oracle images: {e}"));

    // 1. pycocoevalcap's way: document frequencies from the evaluated references.
    let eval = evaluate(&set, &CLASSIC, None, None);
    let names: Vec<&str> = CLASSIC
        .iter()
        .flat_map(|m| m.score_names())
        .copied()
        .collect();
    assert_eq!(
        names.len(),
        oracle.corpus.len(),
        "oracle reports {:?}",
        oracle.corpus.keys()
    );
    for (i, (id, _)) in eval.per_image.iter().enumerate() {
        assert_eq!(
            *id, oracle.images[i].image_id,
            "per-image results keep the input order"
        );
    }
    let rows: Vec<&Scores> = eval.per_image.iter().map(|(_, s)| s).collect();
    let diffs = differences(&oracle, &eval.corpus, &rows, &names);
    assert!(
        diffs.is_empty(),
        "{} scores differ from pycocoevalcap by more than {TOLERANCE}; first ones:\n{}",
        diffs.len(),
        diffs[..diffs.len().min(5)].join("\n")
    );

    // 2. The server's way: frequencies computed once per reference split, stored as JSON and
    //    read back. Over the same references they must give pycocoevalcap's CIDEr-D too.
    let df = CiderDf::from_references(set.images().iter().map(|i| i.references()));
    let stored = serde_json::to_string(&df).unwrap_or_else(|e| panic!("serialize CiderDf: {e}"));
    let df: CiderDf = serde_json::from_str(&stored).unwrap_or_else(|e| panic!("read CiderDf: {e}"));
    let eval = evaluate(&set, &[Metric::CiderD], Some(&df), None);
    let rows: Vec<&Scores> = eval.per_image.iter().map(|(_, s)| s).collect();
    let diffs = differences(&oracle, &eval.corpus, &rows, &[cider::SCORE_NAME]);
    assert!(
        diffs.is_empty(),
        "with stored frequencies:\n{}",
        diffs[..diffs.len().min(5)].join("\n")
    );
}
