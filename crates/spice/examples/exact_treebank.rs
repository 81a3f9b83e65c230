//! Writes the built-in parser's training treebank with the exact pipeline (issue 32): COCO
//! train2014 captions through CoreNLP 3.6.0's tokenizer, the user's English PCFG
//! ([`spice::corenlp`]) and its UD converter, as the official SPICE analyses them. Run through
//! `scripts/make-exact-treebank`:
//!
//! ```text
//! exact_treebank MODEL captions_train2014.json OUT_DIR [--limit N] [--threads N]
//! ```
//!
//! Both input forms: captions as written (`*.raw.conllu`) and in pycocoevalcap's form
//! (`*.coco.conllu`, PTBTokenizer lowercased with its punctuation removed, then parsed as the
//! SPICE jar parses it). Images split by id: those with `id % 20 == 0` are `heldout` (about 5 %,
//! never trained on: the built-in parser's report set), the others `train`. COCO val2014 is not
//! read at all.
//!
//! CoNLL-U columns: FORM, LEMMA (CoreNLP's `Morphology`), XPOS (the PCFG's tag), HEAD and DEPREL
//! (the basic dependencies); a `# caption_id` and `# text` line before each sentence. Captions in
//! annotation-id order, each distinct text parsed once: the same input gives the same bytes.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use spice::corenlp::{headfinder::SemanticHeadFinder, structure, PcfgParser};

fn main() {
    if let Err(e) = run() {
        eprintln!("exact_treebank: {e}");
        std::process::exit(1);
    }
}

/// Is this train2014 image in the held-out split?
fn held_out(image_id: u64) -> bool {
    image_id.is_multiple_of(20)
}

struct Caption {
    id: u64,
    image_id: u64,
    text: String,
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [model, captions, out, rest @ ..] = args.as_slice() else {
        return Err(
            "usage: exact_treebank MODEL captions_train2014.json OUT_DIR [--limit N] [--threads N]"
                .into(),
        );
    };
    let mut limit = usize::MAX;
    let mut threads = 0;
    let mut it = rest.iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let n: usize = value
            .parse()
            .map_err(|_| format!("{flag} takes a number, not {value}"))?;
        match flag.as_str() {
            "--limit" => limit = n,
            "--threads" => threads = n,
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    if !captions.contains("train2014") {
        return Err(format!(
            "{captions}: expected COCO's captions_train2014.json (val2014 is where we are measured)"
        ));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .map_err(|e| e.to_string())?;

    let start = Instant::now();
    let parser = PcfgParser::load_shared(Path::new(model)).map_err(|e| e.to_string())?;
    let coco: serde_json::Value =
        serde_json::from_slice(&std::fs::read(captions).map_err(|e| format!("{captions}: {e}"))?)
            .map_err(|e| format!("{captions}: {e}"))?;
    let mut all: Vec<Caption> = coco["annotations"]
        .as_array()
        .ok_or("no annotations")?
        .iter()
        .map(|a| {
            Some(Caption {
                id: a["id"].as_u64()?,
                image_id: a["image_id"].as_u64()?,
                text: a["caption"].as_str()?.to_string(),
            })
        })
        .collect::<Option<Vec<_>>>()
        .ok_or("an annotation without id, image_id or caption")?;
    all.sort_by_key(|c| c.id);
    all.truncate(limit);
    // pycocoevalcap tokenizes a whole file at once; so do we, in annotation-id order.
    let coco_form =
        spice::tokenize::tokenize_coco_batch(&all.iter().map(|c| &c.text).collect::<Vec<_>>());

    let out = PathBuf::from(out);
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut stats = Vec::new();
    for (form, texts) in [
        (
            "raw",
            all.iter().map(|c| c.text.as_str()).collect::<Vec<_>>(),
        ),
        ("coco", coco_form.iter().map(String::as_str).collect()),
    ] {
        let t = Instant::now();
        let mut distinct: Vec<&str> = texts.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let analysed: HashMap<&str, String> = distinct
            .par_iter()
            .map(|&text| (text, analyse(parser, text)))
            .collect();
        for split in ["train", "heldout"] {
            let path = out.join(format!("{split}.{form}.conllu"));
            let mut w = std::io::BufWriter::new(
                std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?,
            );
            let mut n = 0;
            for (c, text) in all.iter().zip(&texts) {
                if held_out(c.image_id) != (split == "heldout") {
                    continue;
                }
                n += 1;
                write!(
                    w,
                    "# caption_id = {}\n# text = {}\n{}",
                    c.id,
                    text.replace('\n', " "),
                    analysed[text]
                )
                .map_err(|e| format!("{}: {e}", path.display()))?;
            }
            w.flush().map_err(|e| format!("{}: {e}", path.display()))?;
            stats.push(format!("{split}.{form}: {n} captions"));
        }
        stats.push(format!(
            "{form}: {} distinct captions parsed in {:.1} s",
            distinct.len(),
            t.elapsed().as_secs_f64()
        ));
    }
    for s in &stats {
        println!("{s}");
    }
    println!("total {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}

/// The caption's sentences as CoNLL-U, each followed by a blank line.
fn analyse(parser: &PcfgParser, text: &str) -> String {
    let heads = SemanticHeadFinder::shared();
    let tokens = spice::tokenize::tokenize(text);
    let mut s = String::new();
    for range in spice::tokenize::split_sentences(&tokens) {
        let words: Vec<&str> = tokens[range].iter().map(|t| t.text.as_str()).collect();
        if words.is_empty() {
            continue;
        }
        let tree = parser.parse(&words);
        let (words, deps) = structure::basic_dependencies(&tree, heads);
        let mut head = vec![(0usize, "root".to_string()); words.len()];
        for d in deps {
            head[d.dep - 1] = (d.gov, d.rel);
        }
        for (i, w) in words.iter().enumerate() {
            let lemma = spice::lemmatize::lemma(&w.word, &w.tag);
            let _ = writeln!(
                s,
                "{}\t{}\t{}\t_\t{}\t_\t{}\t{}\t_\t_",
                i + 1,
                w.word,
                lemma,
                w.tag,
                head[i].0,
                head[i].1
            );
        }
        s.push('\n');
    }
    s
}
