//! The exact chart with and without its bounded two-pass parse (`Chart::with_bounds`), on the
//! first N COCO captions (after `SKIP=K` of them): time, items stored, charts filled, and how
//! many trees differ. `chart_bounds MODEL captions_val2014.json N`.
//!
//! `chart_bounds MODEL captions_val2014.json N work`: the bounded chart's work alone, made to be
//! counted by instructions rather than timed (this machine's speed drifts by a tenth within
//! minutes): the potentials' sample is given the captions from 20,000 on without parsing them,
//! then the N captions are parsed; prints the items stored, the charts filled and a hash of the
//! trees, which a change that keeps CoreNLP's trees must not move. Under `valgrind
//! --tool=cachegrind`, sum the chart's functions (`cg_annotate --threshold=0 FILE | grep
//! corenlp::chart`): the fit is not among them.
use std::hash::{Hash, Hasher};
use std::time::Instant;

fn main() {
    if let Err(e) = run() {
        eprintln!("chart_bounds: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (model, captions, n, work_only) = match args.as_slice() {
        [model, captions, n] => (model, captions, n, false),
        [model, captions, n, w] if w == "work" => (model, captions, n, true),
        _ => return Err("usage: chart_bounds MODEL CAPTIONS.json N [work]".into()),
    };
    let n: usize = n
        .parse()
        .map_err(|_| format!("N must be a number, not {n}"))?;
    let skip: usize = std::env::var("SKIP")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let coco: serde_json::Value =
        serde_json::from_slice(&std::fs::read(captions).map_err(|e| format!("{captions}: {e}"))?)
            .map_err(|e| format!("{captions}: {e}"))?;
    let anns = coco["annotations"].as_array().ok_or("no annotations")?;
    let sentences_of = |from: usize, count: usize| -> Result<Vec<Vec<String>>, String> {
        let mut out = Vec::new();
        for a in anns.iter().skip(from).take(count) {
            let caption = a["caption"].as_str().ok_or("a caption is not a string")?;
            let tokens = spice::tokenize::tokenize(caption);
            for r in spice::tokenize::split_sentences(&tokens) {
                let words: Vec<String> = tokens[r].iter().map(|t| t.text.clone()).collect();
                if !words.is_empty() {
                    out.push(words);
                }
            }
        }
        Ok(out)
    };
    let sentences = sentences_of(skip, n)?;
    let parser =
        spice::corenlp::PcfgParser::load(std::path::Path::new(model)).map_err(|e| e.to_string())?;
    let t = Instant::now();
    if work_only {
        for s in sentences_of(20_000, 4_000)? {
            if parser.potentials_fitted() {
                break;
            }
            let w: Vec<&str> = s.iter().map(String::as_str).collect();
            parser.sample_sentence(&w);
        }
        if !parser.potentials_fitted() {
            return Err("the captions from 20,000 on did not complete the fit's sample".into());
        }
        println!("potentials fitted in {:.2} s", t.elapsed().as_secs_f64());
    } else {
        parser.parse_measured(&["a", "dog"], false);
        println!("bounds built in {:.2} s", t.elapsed().as_secs_f64());
    }
    let mut results = Vec::new();
    for exhaustive in [true, false] {
        if work_only && exhaustive {
            continue;
        }
        let t = Instant::now();
        let (mut items, mut fills, mut first) = (0usize, 0usize, 0usize);
        let mut trees = Vec::new();
        for s in &sentences {
            let w: Vec<&str> = s.iter().map(String::as_str).collect();
            let (tree, work) = parser.parse_measured(&w, exhaustive).ok_or("too long")?;
            items += work.items;
            fills += work.fills;
            first += work.first_items;
            trees.push(tree.map(|t| t.penn()));
        }
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{}: {} sentences in {secs:.3} s ({:.0}/s), {items} items stored ({first} in first passes), {fills} charts filled",
            if exhaustive { "whole chart" } else { "bounded, two passes" },
            sentences.len(),
            sentences.len() as f64 / secs
        );
        results.push(trees);
    }
    if let [whole, bounded] = results.as_slice() {
        let differ = whole.iter().zip(bounded).filter(|(a, b)| a != b).count();
        println!("trees differing: {differ}");
    } else {
        let mut hash = std::collections::hash_map::DefaultHasher::new();
        results.hash(&mut hash);
        println!("trees hashed: {:016x}", hash.finish());
    }
    Ok(())
}
