//! The exact chart with and without its bounded two-pass parse (`Chart::with_bounds`), on the
//! first N COCO captions (after `SKIP=K` of them): time, items stored, charts filled, and how
//! many trees differ. `chart_bounds MODEL captions_val2014.json N`.
use std::time::Instant;

fn main() {
    if let Err(e) = run() {
        eprintln!("chart_bounds: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [model, captions, n] = args.as_slice() else {
        return Err("usage: chart_bounds MODEL CAPTIONS.json N".into());
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
    let mut sentences: Vec<Vec<String>> = Vec::new();
    for a in anns.iter().skip(skip).take(n) {
        let caption = a["caption"].as_str().ok_or("a caption is not a string")?;
        let tokens = spice::tokenize::tokenize(caption);
        for r in spice::tokenize::split_sentences(&tokens) {
            let words: Vec<String> = tokens[r].iter().map(|t| t.text.clone()).collect();
            if !words.is_empty() {
                sentences.push(words);
            }
        }
    }
    let parser =
        spice::corenlp::PcfgParser::load(std::path::Path::new(model)).map_err(|e| e.to_string())?;
    let t = Instant::now();
    parser.parse_measured(&["a", "dog"], false);
    println!("bounds built in {:.2} s", t.elapsed().as_secs_f64());
    let mut results = Vec::new();
    for exhaustive in [true, false] {
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
    let differ = results[0]
        .iter()
        .zip(&results[1])
        .filter(|(a, b)| a != b)
        .count();
    println!("trees differing: {differ}");
    Ok(())
}
