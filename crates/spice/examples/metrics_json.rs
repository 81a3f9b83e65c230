//! Scores tokenized captions with BLEU-1..4, ROUGE-L and CIDEr-D (and METEOR if asked) and
//! prints the scores as JSON. The Rust side of `scripts/parity-metrics` and
//! `scripts/bench-metrics`.
//!
//! ```text
//! cargo run --release --example metrics_json -- INPUT.json [--repeat N] [--metrics bleu,meteor,rouge,cider] [--tokenize]
//! ```
//! INPUT.json: `{"images": [{"image_id": .., "candidate": "tok tok", "references": ["tok tok", ..],
//! "raw": {"candidate": "Text.", "references": ["Text.", ..]}}]}` (what `scripts/metrics-oracle`
//! writes; other keys are ignored).
//! Output: `{"corpus": {"Bleu_1": .., ..}, "per_image": [{"image_id": .., "Bleu_1": .., ..}],
//! "seconds": {"Bleu": .., "Rouge": .., "CIDEr": .., "metrics": ..}}`: the median of N runs of
//! each metric alone and of all of them (JSON reading and writing excluded). METEOR's times
//! include loading its resources (`Meteor::load` from SPICEBOARD_DATA, in every run), as
//! pycocoevalcap's include the jar's start.
//!
//! With `--tokenize`, the raw captions are tokenized by us (`tokenize::tokenize_coco_batch`, two
//! calls, references then candidates, as `spice eval` and pycocoevalcap do) and the metrics score
//! our tokens; `seconds` also has `tokenize` and `all` (tokenization plus every metric, timed as
//! one run), and the number of captions whose tokens differ from the input's tokenized ones
//! (pycocoevalcap's) is printed on stderr.

use std::process::ExitCode;
use std::time::Instant;

use serde::Deserialize;
use serde_json::{json, Map, Value};
use spice::metrics::meteor::Meteor;
use spice::metrics::{evaluate, EvalSet, ImageCaptions, Metric, MetricsError};
use spice::tokenize::tokenize_coco_batch;

#[derive(Deserialize)]
struct Input {
    images: Vec<InputImage>,
}

#[derive(Deserialize)]
struct InputImage {
    image_id: Value,
    candidate: String,
    references: Vec<String>,
    raw: Option<RawCaptions>,
}

#[derive(Deserialize)]
struct RawCaptions {
    candidate: String,
    references: Vec<String>,
}

/// Tokenizes every image's raw captions as pycocoevalcap does: references first, then candidates.
fn tokenize(raw: &[RawCaptions]) -> Vec<(String, Vec<String>)> {
    let flat: Vec<&str> = raw
        .iter()
        .flat_map(|r| r.references.iter().map(String::as_str))
        .collect();
    let mut refs = tokenize_coco_batch(&flat).into_iter();
    let cands: Vec<&str> = raw.iter().map(|r| r.candidate.as_str()).collect();
    tokenize_coco_batch(&cands)
        .into_iter()
        .zip(raw)
        .map(|(c, r)| (c, refs.by_ref().take(r.references.len()).collect()))
        .collect()
}

/// METEOR's resources, if METEOR is among `metrics`.
fn load_meteor(metrics: &[Metric]) -> Result<Option<Meteor>, String> {
    if !metrics.contains(&Metric::Meteor) {
        return Ok(None);
    }
    Meteor::load(&Meteor::default_data_dir())
        .map(Some)
        .map_err(|e| e.to_string())
}

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut path = None;
    let mut repeat = 1usize;
    let mut metrics = vec![Metric::Bleu, Metric::RougeL, Metric::CiderD];
    let mut ours = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--tokenize" => ours = true,
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
    let mut input: Input = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    let mut seconds = Map::new();
    let mut raw = Vec::new();
    if ours {
        raw = input
            .images
            .iter_mut()
            .enumerate()
            .map(|(i, image)| {
                image
                    .raw
                    .take()
                    .ok_or(format!("{path}: images[{i}] has no \"raw\" captions"))
            })
            .collect::<Result<_, _>>()?;
        let mut times = Vec::new();
        let mut tokenized = Vec::new();
        for _ in 0..repeat.max(1) {
            let start = Instant::now();
            tokenized = tokenize(&raw);
            times.push(start.elapsed().as_secs_f64());
        }
        seconds.insert("tokenize".into(), json!(median(times)));
        let mut differ = 0;
        let mut captions = 0;
        for (image, (cand, refs)) in input.images.iter_mut().zip(tokenized) {
            captions += 1 + refs.len();
            differ += usize::from(image.candidate != cand);
            differ += image
                .references
                .iter()
                .zip(&refs)
                .filter(|(a, b)| a != b)
                .count();
            image.candidate = cand;
            image.references = refs;
        }
        eprintln!(
            "metrics_json: our tokens differ from the input's in {differ} of {captions} captions"
        );
    }

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
    let mut eval = None;
    let mut runs: Vec<(&str, &[Metric])> = Vec::new();
    if metrics.len() > 1 {
        for m in &metrics {
            let name = match m {
                Metric::Bleu => "Bleu",
                Metric::Meteor => "METEOR",
                Metric::RougeL => "Rouge",
                Metric::CiderD => "CIDEr",
                other => other.score_names()[0],
            };
            runs.push((name, std::slice::from_ref(m)));
        }
    }
    runs.push(("metrics", &metrics));
    for (name, metrics) in runs {
        let mut times = Vec::with_capacity(repeat.max(1));
        for _ in 0..repeat.max(1) {
            let start = Instant::now();
            let meteor = load_meteor(metrics)?;
            let e = evaluate(&set, metrics, None, meteor.as_ref());
            times.push(start.elapsed().as_secs_f64());
            eval = Some(e);
        }
        seconds.insert(name.into(), json!(median(times)));
    }
    if ours {
        // Tokenization and every metric as `spice eval` runs them, timed as one run.
        let mut times = Vec::with_capacity(repeat.max(1));
        for _ in 0..repeat.max(1) {
            let start = Instant::now();
            let entries = tokenize(&raw)
                .into_iter()
                .enumerate()
                .map(|(i, (c, r))| Ok((i, ImageCaptions::new(c, r)?)))
                .collect::<Result<Vec<_>, MetricsError>>()
                .map_err(|e| format!("{path}: {e}"))?;
            let set = EvalSet::new(entries).map_err(|e| format!("{path}: {e}"))?;
            let meteor = load_meteor(&metrics)?;
            let e = evaluate(&set, &metrics, None, meteor.as_ref());
            times.push(start.elapsed().as_secs_f64());
            std::hint::black_box(e);
        }
        seconds.insert("all".into(), json!(median(times)));
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
