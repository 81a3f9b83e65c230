//! Engine benchmark: model load, parse throughput, and scoring of 5,000 candidates against 5
//! references each (COCO val2014 captions from SPICEBOARD_DATA). Prints a table.
//!
//! Usage: `cargo run --release -p spice --example bench_engine -- [OUT_INPUT.json [--input-only]]`
//! (`scripts/bench-engine` runs it and then times the whole `spice` command on the same input,
//! which it writes to OUT_INPUT.json in the jar's format; `--input-only` writes it and stops, for
//! `scripts/bench-corenlp yardstick`).

use std::collections::BTreeMap;
use std::time::Instant;

use rayon::prelude::*;
use serde_json::{json, Value};
use spice::{Engine, EngineOptions, Proposal, SceneGraph};

/// The `spice` command's allocator, so that the engine runs as it does there.
#[cfg(feature = "cli")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), String> {
    let data = std::env::var("SPICEBOARD_DATA")
        .map_err(|_| "set SPICEBOARD_DATA (scripts/fetch-data)".to_string())?;
    let path = format!("{data}/coco/captions_val2014.json");
    let ann: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?)
            .map_err(|e| format!("{path}: {e}"))?;
    let mut by_image: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for a in ann["annotations"].as_array().ok_or("no annotations")? {
        let (Some(id), Some(c)) = (a["image_id"].as_i64(), a["caption"].as_str()) else {
            continue;
        };
        by_image.entry(id).or_default().push(c.to_string());
    }
    let images: Vec<(i64, Vec<String>)> = by_image
        .into_iter()
        .filter(|(_, c)| c.len() >= 5)
        .take(5001)
        .collect();
    // Candidate of image i: the first caption of image i + 1; references: the five of image i.
    let items: Vec<(i64, String, Vec<String>)> = images
        .windows(2)
        .map(|w| (w[0].0, w[1].1[0].clone(), w[0].1[..5].to_vec()))
        .collect();
    if let Some(out) = std::env::args().nth(1) {
        let input: Vec<Value> = items
            .iter()
            .map(|(id, t, r)| json!({"image_id": id, "test": t, "refs": r}))
            .collect();
        std::fs::write(&out, serde_json::to_vec(&input).map_err(|e| e.to_string())?)
            .map_err(|e| format!("{out}: {e}"))?;
        if std::env::args().nth(2).as_deref() == Some("--input-only") {
            return Ok(());
        }
    }
    let captions: Vec<&str> = items
        .iter()
        .flat_map(|(_, t, r)| std::iter::once(t.as_str()).chain(r.iter().map(String::as_str)))
        .collect();
    let avg_tokens = captions
        .iter()
        .map(|c| c.split_whitespace().count())
        .sum::<usize>() as f64
        / captions.len() as f64;

    let t = Instant::now();
    let engine = Engine::new(EngineOptions::default());
    engine
        .caption_proposals("a dog")
        .map_err(|e| e.to_string())?;
    let load_ms = t.elapsed().as_secs_f64() * 1e3;

    let mut rows = vec![(
        "model load (first caption)".to_string(),
        format!("{load_ms:.0} ms"),
    )];
    let mut parsed: Vec<Vec<Proposal>> = Vec::new();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| e.to_string())?;
        let t = Instant::now();
        parsed = pool
            .install(|| {
                captions
                    .par_iter()
                    .map(|c| engine.caption_proposals(c))
                    .collect::<Result<_, _>>()
            })
            .map_err(|e| e.to_string())?;
        let s = t.elapsed().as_secs_f64();
        rows.push((
            format!("parse {} captions, {threads} thread(s)", captions.len()),
            format!("{:.0} captions/s", captions.len() as f64 / s),
        ));
    }
    // The same captions in pycocoevalcap's form (the server's `coco` mode), where the parser and
    // the tagger add their COCO-form corrections.
    let coco_form = spice::tokenize::tokenize_coco_batch(&captions);
    let t = Instant::now();
    let coco_parsed: Result<Vec<_>, _> = coco_form
        .par_iter()
        .map(|c| engine.caption_proposals(c))
        .collect();
    coco_parsed.map_err(|e| e.to_string())?;
    rows.push((
        format!(
            "parse the {} captions in pycocoevalcap's form, 2 thread(s)",
            coco_form.len()
        ),
        format!(
            "{:.0} captions/s",
            coco_form.len() as f64 / t.elapsed().as_secs_f64()
        ),
    ));
    let t = Instant::now();
    let graphs: Vec<(SceneGraph, SceneGraph)> = parsed
        .par_chunks(6)
        .map(|c| {
            (
                engine.scene_graph_from_proposals([c[0].as_slice()]),
                engine.scene_graph_from_proposals(c[1..].iter().map(Vec::as_slice)),
            )
        })
        .collect();
    rows.push((
        "build 10,000 scene graphs, 2 threads".into(),
        format!("{:.1} ms", t.elapsed().as_secs_f64() * 1e3),
    ));
    let t = Instant::now();
    let scores: Vec<f64> = graphs
        .par_iter()
        .map(|(c, r)| engine.score_counts(c, r).all.f)
        .collect();
    rows.push((
        format!("score {} candidates x 5 refs, 2 threads", scores.len()),
        format!("{:.1} ms", t.elapsed().as_secs_f64() * 1e3),
    ));
    rows.push((
        "mean SPICE of mismatched candidates".into(),
        format!("{:.4}", scores.iter().sum::<f64>() / scores.len() as f64),
    ));

    println!("| step | result |\n|---|---|");
    for (k, v) in rows {
        println!("| {k} | {v} |");
    }
    println!(
        "\n{} images, {} captions, {avg_tokens:.1} words per caption on average",
        items.len(),
        captions.len()
    );
    Ok(())
}
