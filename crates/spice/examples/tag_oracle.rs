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
//! tagger: they were chosen to make the tuples come out right. Tuple precision and recall are
//! printed both ways too, over those captions and over the whole fold (the captions without an
//! evidence tree parsed with our tags), with the tags we give otherwise than the evidence.
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
use spice::{finish_basic, parse_with, proposals_of, tokenize};

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
    // Per file: tuples in common with the official ones and proposed, with our tags and with the
    // evidence tree's, and the official tuples.
    let mut tuples = [[0usize; 5]; FILES.len()];
    // Over both files: tokens whose tag differs, by (our tag, the evidence tree's).
    let mut confusions: HashMap<(&str, &str), usize> = HashMap::new();
    // Over both files: differing tokens by (evidence label, what differs), and captions whose
    // tokens differ only in the head, all with the same evidence label.
    let mut differences: HashMap<(String, &str), usize> = HashMap::new();
    let mut only_heads_of: HashMap<String, usize> = HashMap::new();
    let mut not_reproduced = 0;
    let mut with_tree = std::collections::HashSet::new();
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
        with_tree.insert(caption);
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
            let set: TupleSet = proposals.iter().map(fidelity::printed_proposal).collect();
            let common = set.intersection(target).count();
            (arcs, &set == target, [common, set.len()])
        };
        let ours = tag_sentence(&tagger, &words);
        let c = &mut counts[*k];
        c[0] += 1;
        let (_, with_our_tags, [common, n]) = parse(&ours);
        c[1] += usize::from(with_our_tags);
        let (arcs, with_evidence_tags, [common_e, n_e]) = parse(&evidence_tags);
        c[2] += usize::from(with_evidence_tags);
        let t = &mut tuples[*k];
        *t = [
            t[0] + common,
            t[1] + n,
            t[2] + common_e,
            t[3] + n_e,
            t[4] + target.len(),
        ];
        c[3] += usize::from(ours != evidence_tags);
        for (o, e) in ours.iter().zip(&evidence_tags) {
            if o != e {
                *confusions.entry((*o, *e)).or_default() += 1;
            }
        }
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
    // The fold's captions without an evidence tree, with our tags: tuples in common, proposed,
    // official.
    let mut without_tree = [[0usize; 3]; FILES.len()];
    for (caption, (k, target)) in &official {
        if Half::of(caption) != Half::Tuning
            || Half::fold(caption) != fold
            || with_tree.contains(caption.as_str())
        {
            continue;
        }
        let set: TupleSet = parse_with(&tagger, &parser, caption)
            .into_iter()
            .flat_map(proposals_of)
            .map(|p| fidelity::printed_proposal(&p))
            .collect();
        let w = &mut without_tree[*k];
        *w = [
            w[0] + set.intersection(target).count(),
            w[1] + set.len(),
            w[2] + target.len(),
        ];
    }
    for (((file, c), t), w) in FILES.iter().zip(counts).zip(tuples).zip(without_tree) {
        let pct = |x: usize| 100.0 * x as f64 / c[0].max(1) as f64;
        let ratio = |a: usize, b: usize| a as f64 / b.max(1) as f64;
        println!(
            "{file}, tuning fold {fold}: {} captions with an evidence tree; reproduced {:.1} % with our tags, {:.1} % with the evidence tree's; tags differ in {:.1} %; tuple P / R {:.3} / {:.3} with our tags, {:.3} / {:.3} with the evidence tree's",
            c[0],
            pct(c[1]),
            pct(c[2]),
            pct(c[3]),
            ratio(t[0], t[1]),
            ratio(t[0], t[4]),
            ratio(t[2], t[3]),
            ratio(t[2], t[4])
        );
        println!(
            "  with the fold's captions that have no evidence tree (our tags there): tuple P / R {:.3} / {:.3} with our tags, {:.3} / {:.3} with the evidence tree's where it has one",
            ratio(t[0] + w[0], t[1] + w[1]),
            ratio(t[0] + w[0], t[4] + w[2]),
            ratio(t[2] + w[0], t[3] + w[1]),
            ratio(t[2] + w[0], t[4] + w[2])
        );
    }
    let mut confusions: Vec<_> = confusions.into_iter().collect();
    confusions.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let confusions: Vec<String> = confusions
        .iter()
        .take(12)
        .map(|((o, e), n)| format!("{o} for {e} {n}"))
        .collect();
    println!(
        "tokens we tag otherwise than the evidence tree (ours for theirs): {}",
        confusions.join(", ")
    );
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
