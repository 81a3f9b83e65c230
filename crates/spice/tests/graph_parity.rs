//! Scene graphs, merging and matching (SPEC §5-§6) against the SPICE jar's own `SceneGraph`,
//! `TupleSet` and `Evaluation` classes, run through the machine's Java on the jars that
//! `scripts/fetch-data` unpacks (SPICEBOARD_DATA). Both sides get the same proposals, those our
//! front end makes for the 5,664 Flickr8K candidates and their references in `../shared/fidelity`
//! (beside the repository, as in CI; skipped loudly without it unless `CI` is set), so any
//! difference is one of graph semantics alone: the greedy node and attribute merging, duplicate
//! and similar relations, the similarity matching.

use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use spice::graph::Proposal;
use spice::{Engine, EngineOptions};

mod common;

fn flickr_items(dir: &std::path::Path) -> Vec<Value> {
    let path = dir.join("flickr8k/input_raw.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (../shared beside the repository)", path.display()));
    serde_json::from_str::<Vec<Value>>(&text).expect("input_raw.json is a JSON array")
}

/// Our proposals and counts for every item, and the jar's counts for the same proposals.
fn compare(use_synsets: bool) {
    let Some(dir) = common::fidelity_dir() else {
        return;
    };
    let engine = Engine::new(EngineOptions {
        use_synsets,
        ..EngineOptions::default()
    });
    // Each caption is parsed once: references are shared by several candidates.
    let mut parsed: HashMap<String, Vec<Proposal>> = HashMap::new();
    let mut proposals = |text: &Value| -> Vec<Proposal> {
        let text = text.as_str().expect("caption");
        parsed
            .entry(text.to_string())
            .or_insert_with(|| engine.caption_proposals(text).expect("parse"))
            .clone()
    };
    let mut lines = String::new();
    let mut ours = Vec::new();
    for item in flickr_items(&dir) {
        let test = proposals(&item["test"]);
        let refs: Vec<Vec<Proposal>> = item["refs"]
            .as_array()
            .expect("refs")
            .iter()
            .map(&mut proposals)
            .collect();
        let score = engine.score_counts(
            &engine.scene_graph_from_proposals([test.as_slice()]),
            &engine.scene_graph_from_proposals(refs.iter().map(Vec::as_slice)),
        );
        let tuples = |ps: &[Proposal]| ps.iter().map(|p| p.0.clone()).collect::<Vec<_>>();
        let line = json!({
            "image_id": item["image_id"],
            "test": tuples(&test),
            "refs": refs.iter().map(|r| tuples(r)).collect::<Vec<_>>(),
        });
        lines.push_str(&format!("{line}\n"));
        ours.push(format!(
            "{}\t{}\t{}\t{}",
            item["image_id"], score.all.tp, score.all.fp, score.all.fn_
        ));
    }

    let data = common::data_dir("pycocoevalcap/spice/spice-1.0.jar");
    let spice = data.join("pycocoevalcap/spice");
    let classpath = [
        spice.join("spice-1.0.jar"),
        spice.join("lib/Meteor-1.5.jar"),
        spice.join("lib/guava-19.0.jar"),
        spice.join("lib/json-simple-1.1.1.jar"),
        data.join("stanford-corenlp-3.4.1.jar"),
    ]
    .map(|p| p.display().to_string())
    .join(":");
    let oracle = env!("CARGO_MANIFEST_DIR").to_string() + "/tests/oracles/SceneGraphParity.java";
    let mut child = Command::new("java")
        .args([
            "-cp",
            &classpath,
            &oracle,
            if use_synsets { "synsets" } else { "nosynsets" },
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("java runs (Java 17 is part of the test machine)");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(lines.as_bytes()));
    let out = child.wait_with_output().expect("oracle output");
    writer.join().expect("writer").expect("oracle input");
    assert!(
        out.status.success(),
        "oracle failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Vec<String> = String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect();

    assert_eq!(theirs.len(), ours.len(), "one line per image");
    let differing: Vec<String> = ours
        .iter()
        .zip(&theirs)
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("ours {a} / jar {b}"))
        .collect();
    assert!(
        differing.is_empty(),
        "{} of {} images count differently (image tp fp fn), first: {:?}",
        differing.len(),
        ours.len(),
        &differing[..differing.len().min(5)]
    );
}

#[test]
fn scene_graphs_count_as_the_jar_counts_them() {
    compare(true);
}

#[test]
fn scene_graphs_without_synsets_count_as_the_jar_counts_them() {
    compare(false);
}
