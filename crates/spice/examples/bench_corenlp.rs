//! Benchmark of CoreNLP's English PCFG run by `spice::corenlp` (not a test), against CoreNLP's own
//! parser on the same sentences when Java and the 3.4.1 jar are present. Run via
//! `scripts/bench-corenlp`: `bench_corenlp MODEL CAPTIONS.json N [JAR]`.
//!
//! The sentences are the first N COCO val2014 captions as written, tokenized and split as CoreNLP
//! does (`spice::tokenize`); or, when CAPTIONS.json is a `spice` input file (a list of images with
//! `test` and `refs`), the first N of its distinct captions (N `all`: every one), as the engine
//! parses them once each. Ours: model load, then parse rates on 1 and 2 threads. CoreNLP's:
//! `LexicalizedParser -nthreads 2` on the same tokens, timed from the command's start to its exit
//! (JVM start and model load included), and once on one sentence to tell the load apart. Then the
//! whole exact pipeline, caption text to proposals (`Engine::caption_proposals` with this front
//! end), on the distinct captions as the engine's batches parse them, on 1 and 2 threads.

use std::io::Write;
use std::time::Instant;

use rayon::prelude::*;

/// The `spice` command's allocator, so that the pipeline runs as it does there.
#[cfg(feature = "cli")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    if let Err(e) = run() {
        eprintln!("bench_corenlp: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [model, captions, n, rest @ ..] = args.as_slice() else {
        return Err("usage: bench_corenlp MODEL CAPTIONS.json N [JAR]".into());
    };
    let n: usize = if n == "all" {
        usize::MAX
    } else {
        n.parse()
            .map_err(|_| format!("N must be a number or `all`, not {n}"))?
    };
    let file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(captions).map_err(|e| format!("{captions}: {e}"))?)
            .map_err(|e| format!("{captions}: {e}"))?;
    let listed: Vec<&str> = match &file {
        serde_json::Value::Array(images) => {
            let mut seen = std::collections::HashSet::new();
            let mut listed = Vec::new();
            for image in images {
                let refs = image["refs"].as_array().ok_or("an image has no refs")?;
                for c in std::iter::once(&image["test"]).chain(refs) {
                    let c = c.as_str().ok_or("a caption is not a string")?;
                    if seen.insert(c) {
                        listed.push(c);
                    }
                }
            }
            listed
        }
        _ => file["annotations"]
            .as_array()
            .ok_or("no annotations")?
            .iter()
            .map(|a| a["caption"].as_str().ok_or("a caption is not a string"))
            .collect::<Result<_, _>>()?,
    };
    let n = n.min(listed.len());
    let mut sentences: Vec<Vec<String>> = Vec::new();
    let mut captions: Vec<&str> = Vec::new();
    for &caption in listed.iter().take(n) {
        captions.push(caption);
        let tokens = spice::tokenize::tokenize(caption);
        for r in spice::tokenize::split_sentences(&tokens) {
            let words: Vec<String> = tokens[r].iter().map(|t| t.text.clone()).collect();
            if !words.is_empty() {
                sentences.push(words);
            }
        }
    }
    let words: usize = sentences.iter().map(Vec::len).sum();
    println!(
        "{n} captions, {} sentences, {:.1} tokens a sentence",
        sentences.len(),
        words as f64 / sentences.len() as f64
    );

    let t = Instant::now();
    let parser =
        spice::corenlp::PcfgParser::load(std::path::Path::new(model)).map_err(|e| e.to_string())?;
    let load = t.elapsed().as_secs_f64();
    println!("| | model load (s) | sentences/s, 1 thread | sentences/s, 2 threads | wall time, 2 threads (s) |");
    println!("|---|---:|---:|---:|---:|");
    let mut ours = Vec::new();
    let mut rates = Vec::new();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| e.to_string())?;
        let t = Instant::now();
        ours = pool.install(|| {
            sentences
                .par_iter()
                .map(|w| {
                    parser
                        .parse(&w.iter().map(String::as_str).collect::<Vec<_>>())
                        .penn()
                })
                .collect::<Vec<_>>()
        });
        rates.push((
            sentences.len() as f64 / t.elapsed().as_secs_f64(),
            t.elapsed().as_secs_f64(),
        ));
    }
    println!(
        "| spice::corenlp | {load:.2} | {:.1} | {:.1} | {:.1} |",
        rates[0].0,
        rates[1].0,
        load + rates[1].1
    );

    let mut distinct = captions.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let engine = spice::Engine::new(spice::EngineOptions {
        front_end: spice::FrontEnd::corenlp(std::path::Path::new(model))
            .map_err(|e| e.to_string())?,
        ..spice::EngineOptions::default()
    });
    let mut end_to_end = Vec::new();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| e.to_string())?;
        let t = Instant::now();
        let tuples: usize = pool
            .install(|| {
                distinct
                    .par_iter()
                    .map(|c| engine.caption_proposals(c).map(|p| p.len()))
                    .sum::<Result<usize, _>>()
            })
            .map_err(|e| e.to_string())?;
        end_to_end.push((captions.len() as f64 / t.elapsed().as_secs_f64(), tuples));
    }
    println!(
        "whole exact pipeline, text to proposals: {} captions ({} distinct, parsed once), {:.1} captions/s on 1 thread, {:.1} on 2 ({} proposals)",
        captions.len(),
        distinct.len(),
        end_to_end[0].0,
        end_to_end[1].0,
        end_to_end[1].1
    );

    let Some(jar) = rest.first() else {
        println!("(no CoreNLP jar given: CoreNLP's own parser not run)");
        return Ok(());
    };
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let all = dir.path().join("all.txt");
    let one = dir.path().join("one.txt");
    let mut f = std::fs::File::create(&all).map_err(|e| e.to_string())?;
    for s in &sentences {
        writeln!(f, "{}", s.join(" ")).map_err(|e| e.to_string())?;
    }
    std::fs::write(&one, format!("{}\n", sentences[0].join(" "))).map_err(|e| e.to_string())?;
    let java = |input: &std::path::Path| -> Result<(f64, String), String> {
        let t = Instant::now();
        let out = std::process::Command::new("java")
            .args([
                "-mx3g",
                "-cp",
                jar,
                "edu.stanford.nlp.parser.lexparser.LexicalizedParser",
            ])
            .args([
                "-retainTmpSubcategories",
                "-sentences",
                "newline",
                "-tokenized",
                "-nthreads",
                "2",
            ])
            .args(["-outputFormat", "oneline", model])
            .arg(input)
            .output()
            .map_err(|e| format!("java: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "CoreNLP failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok((
            t.elapsed().as_secs_f64(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        ))
    };
    let (load_java, _) = java(&one)?;
    let (total, trees) = java(&all)?;
    let theirs: Vec<&str> = trees.lines().filter(|l| !l.trim().is_empty()).collect();
    let parse_time = total - load_java;
    println!(
        "| CoreNLP 3.4.1 `LexicalizedParser -nthreads 2` (JVM) | {load_java:.2} (start, load, one sentence) | | {:.1} | {total:.1} |",
        sentences.len() as f64 / parse_time
    );
    // A token with a space inside (PTB's "25\u{a0}1/2") is one token to CoreNLP's tokenizer and
    // to ours, but `-tokenized` input splits it: such sentences are not compared.
    let whole = |s: &Vec<String>| !s.iter().any(|t| t.contains(char::is_whitespace));
    let comparable = sentences.iter().filter(|s| whole(s)).count();
    let same = ours
        .iter()
        .zip(&theirs)
        .zip(&sentences)
        .filter(|((a, b), s)| whole(s) && a.as_str() == b.replace("\\/", "/"))
        .count();
    println!(
        "speed-up, whole run (load included): {:.1}x; trees identical: {same} of {comparable} ({} from CoreNLP; {} with a token holding a space, which `-tokenized` input splits, not compared)",
        total / (load + rates[1].1),
        theirs.len(),
        sentences.len() - comparable
    );
    Ok(())
}
