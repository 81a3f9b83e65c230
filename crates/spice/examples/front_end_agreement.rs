//! How often the built-in front end proposes what the exact pipeline proposes (issue 32's
//! objective), on the held-out captions of the exact treebank (`scripts/make-exact-treebank`):
//!
//! ```text
//! front_end_agreement MODEL TREEBANK_DIR [--models DIR] [--oracle none|tags|tree] [--limit N]
//!     [--threads N]
//! ```
//!
//! MODEL is CoreNLP's English PCFG (or the models jar): the exact pipeline parses each held-out
//! caption again. `--models DIR` takes the built-in tagger and parser from `DIR/tagger.bin` and
//! `DIR/parser.bin` instead of the embedded ones. `--oracle tags` gives the parser the treebank's
//! own (exact) tags, `--oracle tree` takes the treebank's whole basic tree: how much of the
//! disagreement each stage causes. Per input form (as written, pycocoevalcap's form, and the
//! lemmatized form when the treebank has it): captions whose proposals are the same multiset, and
//! tuple precision and recall of the built-in proposals against the exact ones (multisets, summed
//! over captions).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use spice::corenlp::PcfgParser;
use spice::parse::{Label, Parser};
use spice::tag::Tagger;
use spice::{fidelity, Proposal};

fn main() {
    if let Err(e) = run() {
        eprintln!("front_end_agreement: {e}");
        std::process::exit(1);
    }
}

struct Models {
    tagger: Tagger,
    parser: Parser,
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [model, dir, rest @ ..] = args.as_slice() else {
        return Err(
            "usage: front_end_agreement MODEL TREEBANK_DIR [--models DIR] \
                    [--oracle none|tags|tree] [--limit N] [--threads N]"
                .into(),
        );
    };
    let (mut models_dir, mut limit, mut threads) = (None, usize::MAX, 0);
    let mut oracle = String::from("none");
    let mut it = rest.iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<usize>()
                .map_err(|_| format!("{flag}: not a number: {value}"))
        };
        match flag.as_str() {
            "--models" => models_dir = Some(PathBuf::from(value)),
            "--oracle" if matches!(value.as_str(), "none" | "tags" | "tree") => {
                oracle = value.clone()
            }
            "--limit" => limit = number()?,
            "--threads" => threads = number()?,
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .map_err(|e| e.to_string())?;
    let exact = PcfgParser::load_shared(Path::new(model)).map_err(|e| e.to_string())?;
    let models = match &models_dir {
        Some(d) => {
            let tagger = Tagger::load(&d.join("tagger.bin")).map_err(|e| e.to_string())?;
            let parser = Parser::load(&d.join("parser.bin")).map_err(|e| e.to_string())?;
            Some(Models { tagger, parser })
        }
        None => None,
    };
    let (tagger, parser) = match &models {
        Some(m) => (&m.tagger, &m.parser),
        None => {
            let (t, p) = spice::parse::embedded_models().map_err(|e| e.to_string())?;
            (t, p)
        }
    };
    println!(
        "built-in models: {}; oracle {oracle}",
        models_dir
            .as_ref()
            .map_or("embedded".into(), |d| d.display().to_string()),
    );
    println!("| form | captions | same proposals | tuple P | tuple R |");
    println!("|---|---:|---:|---:|---:|");
    for form in ["raw", "coco", "lemma"] {
        let path = Path::new(dir).join(format!("heldout.{form}.conllu"));
        if form == "lemma" && !path.exists() {
            continue;
        }
        let texts = fidelity::treebank_texts(&path, limit)?;
        let wanted = exact_proposals(exact, dir, form, &texts)?;
        let gold = treebank_sentences(&path)?;
        let a = fidelity::front_end_agreement(
            &texts,
            |c| {
                let graphs = if oracle == "none" {
                    spice::parse_with(tagger, parser, c)
                } else {
                    let sents = gold.get(c).map(Vec::as_slice).unwrap_or_default();
                    sents
                        .iter()
                        .enumerate()
                        .map(|(n, s)| {
                            let words: Vec<&str> = s.words.iter().map(String::as_str).collect();
                            let tags: Vec<&str> = s.tags.iter().map(String::as_str).collect();
                            let arcs = match oracle.as_str() {
                                "tree" => s.arcs.clone(),
                                _ => parser.parse(&words, &tags),
                            };
                            let mut g = spice::finish_basic(&words, &tags, &arcs);
                            g.sentence = n;
                            g
                        })
                        .collect()
                };
                graphs.into_iter().flat_map(spice::proposals_of).collect()
            },
            |c| wanted[c].clone(),
        );
        println!(
            "| {form} | {} | {:.2} % | {:.4} | {:.4} |",
            a.captions,
            100.0 * a.same_share(),
            a.precision(),
            a.recall()
        );
    }
    Ok(())
}

/// The exact pipeline's proposals of each text, kept beside the treebank for the next run
/// (`heldout.FORM.proposals-FINGERPRINT.json`, named by the model's fingerprint).
fn exact_proposals(
    exact: &PcfgParser,
    dir: &str,
    form: &str,
    texts: &[String],
) -> Result<HashMap<String, Vec<Proposal>>, String> {
    let path = Path::new(dir).join(format!(
        "heldout.{form}.proposals-{}.json",
        exact.fingerprint()
    ));
    let mut known: HashMap<String, Vec<Proposal>> = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let missing: Vec<&String> = texts.iter().filter(|t| !known.contains_key(*t)).collect();
    if !missing.is_empty() {
        let found: Vec<(String, Vec<Proposal>)> = missing
            .par_iter()
            .map(|&t| {
                let p = spice::corenlp::parse_caption(exact, t)
                    .into_iter()
                    .flat_map(spice::proposals_of)
                    .collect();
                (t.clone(), p)
            })
            .collect();
        known.extend(found);
        let json = serde_json::to_vec(&known).map_err(|e| e.to_string())?;
        std::fs::write(&path, json).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(known)
}

/// One sentence of the treebank: words, exact tags, exact basic arcs.
struct GoldSentence {
    words: Vec<String>,
    tags: Vec<String>,
    arcs: Vec<(usize, Label)>,
}

/// The sentences of each caption of a treebank file, by its `# text`.
fn treebank_sentences(path: &Path) -> Result<HashMap<String, Vec<GoldSentence>>, String> {
    let body = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out: HashMap<String, Vec<GoldSentence>> = HashMap::new();
    let mut text = String::new();
    let mut cur: Option<GoldSentence> = None;
    // A text seen before (captions repeat) keeps its first analysis.
    let mut repeated = false;
    for line in body.lines().chain(std::iter::once("")) {
        if let Some(t) = line.strip_prefix("# text = ") {
            text = t.to_string();
            repeated = out.contains_key(&text);
        } else if line.is_empty() {
            if let Some(s) = cur.take() {
                if !repeated {
                    out.entry(text.clone()).or_default().push(s);
                }
            }
        } else if !line.starts_with('#') {
            let cols: Vec<&str> = line.split('\t').collect();
            let s = cur.get_or_insert_with(|| GoldSentence {
                words: vec![],
                tags: vec![],
                arcs: vec![],
            });
            let head = cols[6].parse().map_err(|_| format!("bad head: {line}"))?;
            let label = Label::from_name(cols[7]).ok_or(format!("unknown label: {line}"))?;
            s.words.push(cols[1].to_string());
            s.tags.push(cols[4].to_string());
            s.arcs.push((head, label));
        }
    }
    Ok(out)
}
