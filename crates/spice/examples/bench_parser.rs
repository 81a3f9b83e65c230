//! Benchmark of the tagger and parser (not a test): model load time, and captions per second on
//! 1 and 2 threads over COCO val2014 captions in both input forms. Run via `scripts/bench-parser`.
//!
//! The captions are split by a simple stand-in tokenizer (whitespace, trailing punctuation split
//! off; lowercased and punctuation dropped for the pycocoevalcap form), which gives the token
//! counts the real tokenizer gives to within a token.

use std::time::Instant;

use rayon::prelude::*;
use spice::parse::Parser;
use spice::tag::Tagger;

fn main() {
    if let Err(e) = run() {
        eprintln!("bench_parser: {e}");
        std::process::exit(1);
    }
}

fn tokens(caption: &str, coco: bool) -> Vec<String> {
    let mut out = Vec::new();
    for w in caption.split_whitespace() {
        let trimmed = w.trim_end_matches(['.', ',', '!', '?', ';', ':']);
        if !trimmed.is_empty() {
            out.push(if coco {
                trimmed.to_lowercase()
            } else {
                trimmed.to_string()
            });
        }
        if !coco {
            for c in w[trimmed.len()..].chars() {
                out.push(c.to_string());
            }
        }
    }
    out
}

fn run() -> Result<(), String> {
    let t0 = Instant::now();
    let tagger = Tagger::embedded().map_err(|e| e.to_string())?;
    let t1 = Instant::now();
    let parser = Parser::embedded().map_err(|e| e.to_string())?;
    let t2 = Instant::now();
    println!(
        "model load: tagger {:.1} ms, parser {:.1} ms",
        (t1 - t0).as_secs_f64() * 1e3,
        (t2 - t1).as_secs_f64() * 1e3
    );

    let data = std::env::var("SPICEBOARD_DATA")
        .map_err(|_| "SPICEBOARD_DATA is not set (run scripts/fetch-data)")?;
    let path = std::path::Path::new(&data).join("coco/captions_val2014.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let anns = json["annotations"]
        .as_array()
        .ok_or(format!("{}: no annotations array", path.display()))?;
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(50_000);
    let caps: Vec<&str> = anns
        .iter()
        .filter_map(|a| a["caption"].as_str())
        .take(n)
        .collect();

    for coco in [false, true] {
        let sents: Vec<Vec<String>> = caps.iter().map(|c| tokens(c, coco)).collect();
        let ntok: usize = sents.iter().map(Vec::len).sum();
        let form = if coco {
            "coco (lowercased, no punctuation)"
        } else {
            "raw"
        };
        println!(
            "{form}: {} captions, {:.1} tokens per caption",
            sents.len(),
            ntok as f64 / sents.len().max(1) as f64
        );
        let thread_counts: Vec<usize> = match std::env::args().nth(2) {
            Some(t) => t.split(',').filter_map(|x| x.parse().ok()).collect(),
            None => vec![1, 2],
        };
        for &threads in &thread_counts {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| e.to_string())?;
            let mut best = f64::INFINITY;
            let mut best_tag = f64::INFINITY;
            for _ in 0..3 {
                let s = Instant::now();
                let edges: usize = pool.install(|| {
                    sents
                        .par_iter()
                        .map(|w| {
                            let w: Vec<&str> = w.iter().map(String::as_str).collect();
                            tagger.tag(&w).len()
                        })
                        .sum()
                });
                best_tag = best_tag.min(s.elapsed().as_secs_f64());
                let s = Instant::now();
                let e2: usize = pool.install(|| {
                    sents
                        .par_iter()
                        .map(|w| {
                            let w: Vec<&str> = w.iter().map(String::as_str).collect();
                            let tags = tagger.tag(&w);
                            parser.parse(&w, &tags).len()
                        })
                        .sum()
                });
                best = best.min(s.elapsed().as_secs_f64());
                assert_eq!(edges, e2);
            }
            println!(
                "  {threads} thread(s): tag {:>8.0} captions/s, tag+parse {:>8.0} captions/s",
                sents.len() as f64 / best_tag,
                sents.len() as f64 / best
            );
        }
    }
    Ok(())
}
