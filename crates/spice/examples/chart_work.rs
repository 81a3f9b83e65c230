//! The bounded chart's work on COCO captions after the potentials' fit, made to be counted by
//! instructions rather than timed (this machine's speed drifts by a tenth within minutes): the
//! fit's sample is given the captions from 20,000 on without parsing them, then the first N
//! captions (after `SKIP=K` of them) are parsed; prints the items stored, the charts filled and
//! a hash of the trees, which a change that keeps CoreNLP's trees must not move.
//! `chart_work MODEL captions_val2014.json N`; under `valgrind --tool=cachegrind`, sum the
//! chart's functions (`cg_annotate --threshold=0 FILE | grep corenlp::chart`): the fit is not
//! among them.
use std::hash::{Hash, Hasher};
use std::time::Instant;

fn main() {
    if let Err(e) = run() {
        eprintln!("chart_work: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [model, captions, n] = args.as_slice() else {
        return Err("usage: chart_work MODEL CAPTIONS.json N".into());
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
    let sentences = |from: usize, count: usize| -> Result<Vec<Vec<String>>, String> {
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
    let parser =
        spice::corenlp::PcfgParser::load(std::path::Path::new(model)).map_err(|e| e.to_string())?;
    let t = Instant::now();
    for s in sentences(20_000, 4_000)? {
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
    let test = sentences(skip, n)?;
    let t = Instant::now();
    let (mut items, mut first, mut fills) = (0usize, 0usize, 0usize);
    let mut hash = std::collections::hash_map::DefaultHasher::new();
    for s in &test {
        let w: Vec<&str> = s.iter().map(String::as_str).collect();
        let (tree, work) = parser.parse_measured(&w, false).ok_or("too long")?;
        items += work.items;
        first += work.first_items;
        fills += work.fills;
        tree.map(|t| t.penn()).hash(&mut hash);
    }
    println!(
        "{} sentences in {:.2} s: {items} items stored ({first} in first passes), {fills} charts filled, trees {:016x}",
        test.len(),
        t.elapsed().as_secs_f64(),
        hash.finish()
    );
    Ok(())
}
