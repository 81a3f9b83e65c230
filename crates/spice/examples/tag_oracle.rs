//! How much of what the COCO-form corrections lose on unseen captions is the tagger's and how much
//! the parser's: for each caption of one fold of the parser cache's tuning half that has an
//! evidence tree, whether corrections trained on the *other* fold reproduce the official
//! proposals, once with the tags they give and once with the evidence tree's tags (the parser
//! still choosing the tree).
//!
//! ```text
//! cargo run --release -p spice --example train_coco -- EVIDENCE.conllu --train-fold 0 \
//!     --out /tmp/p0.bin --tagger-out /tmp/t0.bin
//! cargo run --release -p spice --example tag_oracle -- EVIDENCE.conllu /tmp/p0.bin /tmp/t0.bin 1 \
//!     [CACHE_DIR]
//! ```
//!
//! EVIDENCE.conllu is what the `evidence_trees` example writes; CACHE_DIR defaults to
//! `../shared/fidelity/official-parser-cache`. The evidence tree's tags are an upper bound for a
//! tagger: they were chosen to make the tuples come out right.
//!
//! Then, for the captions not reproduced even with the evidence tree's tags, where the parser's
//! tree leaves the evidence tree: each token whose head or label differs, counted by its
//! evidence label and by what differs (the head, the label, or both), and how many of those
//! captions differ only in the heads of one label. An evidence tree is one tree that
//! reproduces the official tuples, not the only one, so these counts say where the parser goes
//! another way, not each time that it is wrong.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use spice::fidelity::{self, Half, TupleSet};
use spice::parse::{self, parser_tags};
use spice::tag::{self, tag_sentence};
use spice::{finish_basic, proposals_of, tokenize};

const FILES: [&str; 2] = ["captions-a.jsonl", "captions-b.jsonl"];

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tag_oracle: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [evidence, parser_delta, tagger_delta, fold, rest @ ..] = args.as_slice() else {
        return Err(
            "usage: tag_oracle EVIDENCE.conllu PARSER_DELTA TAGGER_DELTA FOLD [CACHE_DIR]".into(),
        );
    };
    let fold: usize = fold
        .parse()
        .ok()
        .filter(|&f| f < 2)
        .ok_or_else(|| format!("fold {fold:?} is not 0 or 1"))?;
    let cache_dir = rest.first().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/fidelity/official-parser-cache")
    });
    let (tagger, parser) =
        parse::models_with_corrections(Path::new(parser_delta), Path::new(tagger_delta))?;
    let mut official: HashMap<String, (usize, TupleSet)> = HashMap::new();
    for (k, file) in FILES.iter().enumerate() {
        for e in fidelity::read_parser_cache(&cache_dir.join(file))? {
            official.insert(e.caption, (k, e.tuples.into_iter().collect()));
        }
    }
    let text = std::fs::read_to_string(evidence).map_err(|e| format!("{evidence}: {e}"))?;
    // Per file: captions, reproduced with our tags, with the evidence tree's tags, tags differ.
    let mut counts = [[0usize; 4]; FILES.len()];
    // Over both files: differing tokens by (evidence label, what differs), and captions whose
    // tokens differ only in the head, all with the same evidence label.
    let mut differences: HashMap<(String, &str), usize> = HashMap::new();
    let mut only_heads_of: HashMap<String, usize> = HashMap::new();
    let mut not_reproduced = 0;
    for block in text.split("\n\n") {
        let Some(caption) = block.lines().find_map(|l| l.strip_prefix("# text = ")) else {
            continue;
        };
        if Half::fold(caption) != fold {
            continue;
        }
        let Some((k, target)) = official.get(caption) else {
            continue; // an official graph's tree
        };
        let rows: Vec<Vec<&str>> = block
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split('\t').collect())
            .collect();
        let words: Vec<&str> = rows
            .iter()
            .map(|r| r.get(1).copied().unwrap_or(""))
            .collect();
        let evidence_tags = rows
            .iter()
            .map(|r| {
                let t = r.get(4).copied().unwrap_or("");
                tag::static_tag(t).ok_or_else(|| format!("{caption:?}: unknown tag {t:?}"))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let form = tokenize::Form::of(&words);
        // The parser's tree under `tags`, and whether its proposals are the official ones.
        let parse = |tags: &[&'static str]| {
            let arcs = parser.parse_form(&words, &parser_tags(&words, tags), form);
            let proposals = proposals_of(finish_basic(&words, tags, &arcs));
            let same = &proposals
                .iter()
                .map(fidelity::printed_proposal)
                .collect::<TupleSet>()
                == target;
            (arcs, same)
        };
        let ours = tag_sentence(&tagger, &words);
        let c = &mut counts[*k];
        c[0] += 1;
        c[1] += usize::from(parse(&ours).1);
        let (arcs, with_evidence_tags) = parse(&evidence_tags);
        c[2] += usize::from(with_evidence_tags);
        c[3] += usize::from(ours != evidence_tags);
        if !with_evidence_tags {
            not_reproduced += 1;
            let mut kinds = Vec::new();
            for (row, (head, label)) in rows.iter().zip(&arcs) {
                let gold_head: usize = row.get(6).and_then(|h| h.parse().ok()).unwrap_or(0);
                let gold_label = row.get(7).copied().unwrap_or("");
                let what = match (*head == gold_head, label.as_str() == gold_label) {
                    (true, true) => continue,
                    (false, true) => "head",
                    (true, false) => "label",
                    (false, false) => "head and label",
                };
                *differences
                    .entry((gold_label.to_string(), what))
                    .or_default() += 1;
                kinds.push((gold_label, what));
            }
            if let Some(&(label, "head")) = kinds.first() {
                if kinds.iter().all(|&k| k == (label, "head")) {
                    *only_heads_of.entry(label.to_string()).or_default() += 1;
                }
            }
        }
    }
    for (file, c) in FILES.iter().zip(counts) {
        let pct = |x: usize| 100.0 * x as f64 / c[0].max(1) as f64;
        println!(
            "{file}, tuning fold {fold}: {} captions with an evidence tree; reproduced {:.1} % with our tags, {:.1} % with the evidence tree's; tags differ in {:.1} %",
            c[0],
            pct(c[1]),
            pct(c[2]),
            pct(c[3])
        );
    }
    println!(
        "\n{not_reproduced} captions not reproduced with the evidence tree's tags; tokens whose head or label differs from the evidence tree, by evidence label:"
    );
    let mut differences: Vec<_> = differences.into_iter().collect();
    differences.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for ((label, what), n) in differences.iter().take(15) {
        println!("  {n:5}  {label}: {what}");
    }
    let mut only: Vec<_> = only_heads_of.into_iter().collect();
    only.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let only: Vec<String> = only
        .iter()
        .take(5)
        .map(|(label, n)| format!("{n} the heads of {label}"))
        .collect();
    println!(
        "captions that differ only in the heads of one label: {}",
        only.join(", ")
    );
    Ok(())
}
