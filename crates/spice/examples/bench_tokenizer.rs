//! Tokenizer benchmark: all COCO val2014 captions (202,654, from SPICEBOARD_DATA) through
//! `tokenize`, `tokenize_coco` and `split_sentences`, on 1 thread and on all cores.
//! Prints captions/s.
//!
//! Usage: `cargo run --release -p spice --example bench_tokenizer`

use std::time::Instant;

use rayon::prelude::*;
use serde::Deserialize;
use spice::tokenize::{split_sentences, tokenize, tokenize_coco};

#[derive(Deserialize)]
struct Annotations {
    annotations: Vec<Annotation>,
}

#[derive(Deserialize)]
struct Annotation {
    caption: String,
}

fn main() -> Result<(), String> {
    let data = std::env::var("SPICEBOARD_DATA")
        .map_err(|_| "set SPICEBOARD_DATA (scripts/fetch-data)".to_string())?;
    let path = format!("{data}/coco/captions_val2014.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    let ann: Annotations = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    let captions: Vec<String> = ann.annotations.into_iter().map(|a| a.caption).collect();
    let n = captions.len();
    let threads = rayon::current_num_threads();
    println!("{n} COCO val2014 captions; best of 3 runs");
    println!("| what | threads | captions/s | µs/caption |");
    println!("|---|---:|---:|---:|");
    let row = |what: &str, t: usize, f: &dyn Fn() -> usize| {
        let mut best = f64::MAX;
        let mut sink = 0;
        for _ in 0..3 {
            let start = Instant::now();
            sink += f();
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!(
            "| {what} | {t} | {:.0} | {:.2} |",
            n as f64 / best,
            best * 1e6 / n as f64 * t as f64
        );
        std::hint::black_box(sink);
    };
    row("tokenize + split_sentences", 1, &|| {
        captions
            .iter()
            .map(|c| split_sentences(&tokenize(c)).len())
            .sum()
    });
    row("tokenize_coco", 1, &|| {
        captions.iter().map(|c| tokenize_coco(c).len()).sum()
    });
    row("tokenize + split_sentences", threads, &|| {
        captions
            .par_iter()
            .map(|c| split_sentences(&tokenize(c)).len())
            .sum()
    });
    row("tokenize_coco", threads, &|| {
        captions.par_iter().map(|c| tokenize_coco(c).len()).sum()
    });
    Ok(())
}
