//! How fast CIDEr-D document frequencies over a reference split come back: counted again from
//! the tokenized references, read from the JSON form, or read from the compact form
//! (`CiderDf::to_bytes`). Prints a table (median of 5 runs each).
//!
//! ```text
//! cargo run --release -p spice --example bench_cider_df -- captions_val2014.json
//! ```
//! (The README's table under "COCO evaluation" is its output on COCO val2014.)

use std::collections::HashMap;
use std::process::ExitCode;
use std::time::Instant;

use spice::metrics::CiderDf;
use spice::tokenize::tokenize_coco_batch;

fn median_ms<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..5 {
        let t = Instant::now();
        last = Some(f());
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    (times[2], last.expect("five runs"))
}

fn run(path: &str) -> Result<(), String> {
    let text = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let v: serde_json::Value = serde_json::from_slice(&text).map_err(|e| format!("{path}: {e}"))?;
    let mut by_image: HashMap<i64, Vec<&str>> = HashMap::new();
    let mut order = Vec::new();
    for a in v["annotations"].as_array().ok_or("no annotations")? {
        let id = a["image_id"].as_i64().ok_or("image_id")?;
        let caption = a["caption"].as_str().ok_or("caption")?;
        by_image
            .entry(id)
            .or_insert_with(|| {
                order.push(id);
                Vec::new()
            })
            .push(caption);
    }
    let raw: Vec<Vec<&str>> = order.iter().map(|id| by_image[id].clone()).collect();
    let flat: Vec<&str> = raw.iter().flatten().copied().collect();
    let (tokenize_ms, tokens) = median_ms(|| tokenize_coco_batch(&flat));
    let mut it = tokens.into_iter();
    let tokenized: Vec<Vec<String>> = raw
        .iter()
        .map(|r| it.by_ref().take(r.len()).collect())
        .collect();
    let (count_ms, df) = median_ms(|| CiderDf::from_references(&tokenized));
    let json = serde_json::to_string(&df).map_err(|e| e.to_string())?;
    let bytes = df.to_bytes();
    let (json_ms, from_json) =
        median_ms(|| serde_json::from_str::<CiderDf>(&json).map_err(|e| e.to_string()));
    let (bytes_ms, from_bytes) =
        median_ms(|| CiderDf::from_bytes(&bytes).map_err(|e| e.to_string()));
    let (write_ms, _) = median_ms(|| df.to_bytes());
    if from_bytes?.to_bytes() != bytes || from_json?.to_bytes() != bytes {
        return Err("a stored form does not read back to the same frequencies".into());
    }
    println!(
        "CIDEr-D document frequencies of {path}: {} images, {} captions, {} n-grams",
        df.images(),
        flat.len(),
        df.len()
    );
    println!("| way | size | ms |\n|---|---:|---:|");
    println!("| tokenize the references (as counting needs) | | {tokenize_ms:.0} |");
    println!("| count from tokenized references | | {count_ms:.0} |");
    println!(
        "| read the JSON form | {:.1} MB | {json_ms:.0} |",
        json.len() as f64 / 1e6
    );
    println!(
        "| read the compact form | {:.1} MB | {bytes_ms:.0} |",
        bytes.len() as f64 / 1e6
    );
    println!("| write the compact form | | {write_ms:.0} |");
    Ok(())
}

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: bench_cider_df captions_val2014.json");
        return ExitCode::from(2);
    };
    match run(&path) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench_cider_df: {e}");
            ExitCode::from(1)
        }
    }
}
