//! Scores tokenized captions with BLEU-1..4, ROUGE-L and CIDEr-D and prints the scores as JSON.
//! The Rust side of `scripts/parity-metrics` and `scripts/bench-metrics`.
//!
//! ```text
//! cargo run --release --example metrics_json -- INPUT.json [--repeat N] [--metrics bleu,rouge,cider]
//! ```
//! INPUT.json: `{"images": [{"image_id": .., "candidate": "tok tok", "references": ["tok tok", ..]}]}`
//! (what `scripts/metrics-oracle` writes; other keys are ignored).
//! Output: `{"corpus": {"Bleu_1": .., ..}, "per_image": [{"image_id": .., "Bleu_1": .., ..}],
//! "seconds": {"Bleu": .., "Rouge": .., "CIDEr": .., "metrics": ..}}`: the median of N runs of
//! each metric alone and of all of them (JSON reading and writing excluded).

use std::process::ExitCode;
use std::time::Instant;

use serde::Deserialize;
use serde_json::{json, Map, Value};
use spice::metrics::{evaluate, EvalSet, ImageCaptions, Metric};

#[derive(Deserialize)]
struct Input {
    images: Vec<InputImage>,
}

#[derive(Deserialize)]
struct InputImage {
    image_id: Value,
    candidate: String,
    references: Vec<String>,
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut path = None;
    let mut repeat = 1usize;
    let mut metrics = Metric::ALL.to_vec();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--metrics" => {
                let list = args
                    .next()
                    .ok_or("--metrics needs a list, e.g. bleu,rouge,cider")?;
                metrics = list
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()
                    .map_err(|e| format!("--metrics: {e}"))?;
            }
            "--repeat" => {
                let n = args.next().ok_or("--repeat needs a number")?;
                repeat = n
                    .parse()
                    .map_err(|_| format!("--repeat: not a number: {n}"))?;
            }
            _ if path.is_none() => path = Some(arg),
            _ => return Err(format!("unexpected argument {arg}")),
        }
    }
    let path =
        path.ok_or("usage: metrics_json INPUT.json [--repeat N] [--metrics bleu,rouge,cider]")?;
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    let input: Input = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;

    let mut ids = Vec::with_capacity(input.images.len());
    let mut entries = Vec::with_capacity(input.images.len());
    for (i, image) in input.images.into_iter().enumerate() {
        let captions = ImageCaptions::new(image.candidate, image.references)
            .map_err(|e| format!("{path}: images[{i}] (image_id {}): {e}", image.image_id))?;
        ids.push(image.image_id);
        entries.push((i, captions));
    }
    let set = EvalSet::new(entries).map_err(|e| format!("{path}: {e}"))?;

    // Median of `repeat` runs: each metric alone, then all of them together.
    let mut seconds = Map::new();
    let mut eval = None;
    let mut runs: Vec<(&str, &[Metric])> = Vec::new();
    if metrics.len() > 1 {
        for m in &metrics {
            let name = match m {
                Metric::Bleu => "Bleu",
                Metric::RougeL => "Rouge",
                Metric::CiderD => "CIDEr",
            };
            runs.push((name, std::slice::from_ref(m)));
        }
    }
    runs.push(("metrics", &metrics));
    for (name, metrics) in runs {
        let mut times = Vec::with_capacity(repeat.max(1));
        for _ in 0..repeat.max(1) {
            let start = Instant::now();
            let e = evaluate(&set, metrics, None);
            times.push(start.elapsed().as_secs_f64());
            eval = Some(e);
        }
        times.sort_by(f64::total_cmp);
        seconds.insert(name.into(), json!(times[times.len() / 2]));
    }
    let eval = eval.ok_or("no evaluation ran")?;

    let corpus: Map<String, Value> = eval
        .corpus
        .iter()
        .map(|(n, v)| (n.to_string(), json!(v)))
        .collect();
    let per_image: Vec<Value> = eval
        .per_image
        .iter()
        .map(|(i, scores)| {
            let mut row = Map::new();
            row.insert("image_id".into(), ids[*i].clone());
            for (n, v) in scores.iter() {
                row.insert(n.to_string(), json!(v));
            }
            Value::Object(row)
        })
        .collect();
    let out = json!({"corpus": corpus, "per_image": per_image, "seconds": seconds});
    println!("{out}");
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("metrics_json: {e}");
            ExitCode::FAILURE
        }
    }
}
