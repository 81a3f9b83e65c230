//! How far the built-in front end's corpus SPICE sits from the exact pipeline's on a COCO-sized
//! set, and how much of that is the tagger's (issue 32's SPICE goal):
//!
//! ```text
//! front_end_spice MODEL captions_val2014.json [IMAGES (default 5000)]
//! ```
//!
//! The set: the first IMAGES images of the file with at least five captions, each image's first
//! caption as the candidate and its next four as the references (captions as written). Each
//! distinct caption is analysed three ways: the exact pipeline (CoreNLP's PCFG on MODEL and the
//! converter), the built-in tagger and parser, and the built-in parser given the exact pipeline's
//! tags. Prints corpus SPICE (the mean of the images' F, as `spice` averages them) and each
//! category's for the three, the true positives, and the tags where the built-in tagger and the
//! PCFG differ on the candidates' tokens, the most frequent first with their commonest words.

use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;

use spice::corenlp::{PcfgParser, Tree};
use spice::{Category, Engine, EngineOptions, Proposal};

fn main() {
    if let Err(e) = run() {
        eprintln!("front_end_spice: {e}");
        std::process::exit(1);
    }
}

/// An image: the candidate and the references.
struct Item {
    test: String,
    refs: Vec<String>,
}

const FRONT_ENDS: [&str; 3] = ["exact", "built-in", "built-in parser, exact tags"];

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (model, captions, images) = match args.as_slice() {
        [m, c] => (m, c, 5000),
        [m, c, n] => (m, c, n.parse().map_err(|_| format!("not a number: {n}"))?),
        _ => return Err("usage: front_end_spice MODEL captions_val2014.json [IMAGES]".into()),
    };
    let items = items(Path::new(captions), images)?;
    let pcfg = PcfgParser::load_shared(Path::new(model)).map_err(|e| e.to_string())?;
    let (tagger, parser) = spice::parse::embedded_models().map_err(|e| e.to_string())?;
    let mut distinct: Vec<&str> = items
        .iter()
        .flat_map(|it| std::iter::once(&it.test).chain(&it.refs))
        .map(String::as_str)
        .collect();
    distinct.sort_unstable();
    distinct.dedup();
    let analysed: Vec<[Vec<Proposal>; 3]> = distinct
        .par_iter()
        .map(|c| {
            let exact = spice::corenlp::parse_caption(pcfg, c);
            let built_in = spice::parse_with(tagger, parser, c);
            let tokens = spice::tokenize::tokenize(c);
            let mut exact_tags = Vec::new();
            for (n, range) in spice::tokenize::split_sentences(&tokens)
                .into_iter()
                .enumerate()
            {
                let words: Vec<&str> = tokens[range].iter().map(|t| t.text.as_str()).collect();
                if words.is_empty() || words.len() > spice::corenlp::MAX_PARSED_WORDS {
                    continue;
                }
                let tags = preterminals(&pcfg.parse(&words));
                let tags: Vec<&str> = tags.iter().map(String::as_str).collect();
                let arcs = parser.parse(&words, &tags);
                let mut g = spice::finish_basic(&words, &tags, &arcs);
                g.sentence = n;
                exact_tags.push(g);
            }
            [exact, built_in, exact_tags]
                .map(|graphs| graphs.into_iter().flat_map(spice::proposals_of).collect())
        })
        .collect();
    let index: HashMap<&str, usize> = distinct.iter().enumerate().map(|(i, c)| (*c, i)).collect();
    let engine = Engine::new(EngineOptions::default());
    println!(
        "{} images, {} distinct captions; corpus SPICE (mean of the images' F):",
        items.len(),
        distinct.len()
    );
    println!("| front end | All | Object | Attribute | Relation | Color | Count | Size | true positives |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (k, name) in FRONT_ENDS.iter().enumerate() {
        let proposals = |c: &str| analysed[index[c]][k].as_slice();
        let scores: Vec<_> = items
            .par_iter()
            .map(|it| {
                let refs = engine.scene_graph_from_proposals(it.refs.iter().map(|r| proposals(r)));
                let cand = engine.scene_graph_from_proposals([proposals(&it.test)]);
                engine.score_counts(&cand, &refs)
            })
            .collect();
        let mean = |f: &dyn Fn(&spice::ImageScores) -> Option<f64>| {
            let v: Vec<f64> = scores
                .iter()
                .filter_map(f)
                .filter(|x| !x.is_nan())
                .collect();
            v.iter().sum::<f64>() / v.len().max(1) as f64
        };
        let mut row = format!("| {name} | {:.4}", mean(&|s| Some(s.all.f)));
        for c in [
            Category::Object,
            Category::Attribute,
            Category::Relation,
            Category::Color,
            Category::Cardinality,
            Category::Size,
        ] {
            row += &format!(" | {:.4}", mean(&|s| s.category(c).map(|x| x.f)));
        }
        let tp: i64 = scores.iter().map(|s| i64::from(s.all.tp)).sum();
        println!("{row} | {tp} |");
    }
    tag_differences(pcfg, tagger, &items);
    Ok(())
}

/// The first `images` images of a COCO captions file with at least five captions: the first
/// caption against the next four.
fn items(path: &Path, images: usize) -> Result<Vec<Item>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let coco: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let anns = coco["annotations"]
        .as_array()
        .ok_or("no annotations array")?;
    let mut order: Vec<i64> = Vec::new();
    let mut by_image: HashMap<i64, Vec<String>> = HashMap::new();
    for a in anns {
        let (Some(id), Some(c)) = (a["image_id"].as_i64(), a["caption"].as_str()) else {
            return Err("an annotation without image_id or caption".into());
        };
        let list = by_image.entry(id).or_insert_with(|| {
            order.push(id);
            Vec::new()
        });
        list.push(c.to_string());
    }
    Ok(order
        .iter()
        .filter_map(|id| {
            let caps = &by_image[id];
            (caps.len() >= 5).then(|| Item {
                test: caps[0].clone(),
                refs: caps[1..5].to_vec(),
            })
        })
        .take(images)
        .collect())
}

/// The tags of a tree's words, in order.
fn preterminals(t: &Tree) -> Vec<String> {
    if t.is_preterminal() {
        return vec![t.label.clone()];
    }
    t.children.iter().flat_map(preterminals).collect()
}

/// Where the built-in tagger's tag differs from the PCFG's on the candidates' tokens.
fn tag_differences(pcfg: &PcfgParser, tagger: &spice::tag::Tagger, items: &[Item]) {
    let pairs: Vec<(String, &'static str, String)> = items
        .par_iter()
        .flat_map_iter(|it| {
            let tokens = spice::tokenize::tokenize(&it.test);
            let mut out = Vec::new();
            for range in spice::tokenize::split_sentences(&tokens) {
                let words: Vec<&str> = tokens[range].iter().map(|t| t.text.as_str()).collect();
                if words.is_empty() || words.len() > spice::corenlp::MAX_PARSED_WORDS {
                    continue;
                }
                let exact = preterminals(&pcfg.parse(&words));
                let ours = tagger.tag(&words);
                for ((e, o), w) in exact.into_iter().zip(ours).zip(&words) {
                    out.push((e, o, w.to_lowercase()));
                }
            }
            out
        })
        .collect();
    let mut differ: HashMap<(&str, &str), HashMap<&str, usize>> = HashMap::new();
    for (e, o, w) in pairs.iter().filter(|(e, o, _)| e != o) {
        *differ.entry((e, o)).or_default().entry(w).or_default() += 1;
    }
    let wrong: usize = differ.values().flat_map(HashMap::values).sum();
    println!(
        "candidates' tokens: {}, tagged differently: {wrong} ({:.2} %)",
        pairs.len(),
        100.0 * wrong as f64 / pairs.len().max(1) as f64
    );
    let mut rows: Vec<_> = differ.into_iter().collect();
    rows.sort_by_key(|(k, words)| (std::cmp::Reverse(words.values().sum::<usize>()), *k));
    for ((exact, ours), words) in rows.iter().take(12) {
        let mut w: Vec<_> = words.iter().collect();
        w.sort_by_key(|(word, n)| (std::cmp::Reverse(**n), **word));
        let top: Vec<String> = w.iter().take(5).map(|(w, n)| format!("{w} {n}")).collect();
        let n: usize = words.values().sum();
        println!(
            "PCFG {exact:<5} built-in {ours:<5} {n:>5}  {}",
            top.join(", ")
        );
    }
}
