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

/// The `spice` command's allocator, so that the engine runs as it does there.
#[cfg(feature = "cli")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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

/// CPU seconds this process has used (user + system), from /proc; None where unavailable.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which ends with ')'): utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn run() -> Result<(), String> {
    let t0 = Instant::now();
    let (tagger, parser) = spice::parse::embedded_models().map_err(|e| e.to_string())?;
    println!(
        "model load (tagger and parser, in parallel): {:.1} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    let t1 = Instant::now();
    let _ = Tagger::from_bytes(
        &std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/models/tagger.bin"))
            .map_err(|e| e.to_string())?,
        "tagger",
    )
    .map_err(|e| e.to_string())?;
    let t2 = Instant::now();
    let _ = Parser::from_bytes(
        &std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/models/parser.bin"))
            .map_err(|e| e.to_string())?,
        "parser",
    )
    .map_err(|e| e.to_string())?;
    println!(
        "model load one by one: tagger {:.1} ms, parser {:.1} ms",
        (t2 - t1).as_secs_f64() * 1e3,
        t2.elapsed().as_secs_f64() * 1e3
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
            let (mut cpu_parse, mut n_parse) = (0.0, 0usize);
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
                let c0 = cpu_seconds();
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
                if let (Some(a), Some(b)) = (c0, cpu_seconds()) {
                    cpu_parse += b - a;
                    n_parse += sents.len();
                }
                assert_eq!(edges, e2);
            }
            println!(
                "  {threads} thread(s): tag {:>8.0} captions/s, tag+parse {:>8.0} captions/s \
                 (wall clock, best of 3); tag+parse {:>8.0} captions per CPU-second",
                sents.len() as f64 / best_tag,
                sents.len() as f64 / best,
                n_parse as f64 / cpu_parse.max(1e-9)
            );
        }
    }
    Ok(())
}
