//! Writes the built-in parser's training treebank with the exact pipeline (issue 32): COCO
//! train2014 captions through CoreNLP 3.6.0's tokenizer, the user's English PCFG
//! ([`spice::corenlp`]) and its UD converter, as the official SPICE analyses them. Run through
//! `scripts/make-exact-treebank`:
//!
//! ```text
//! exact_treebank MODEL captions_train2014.json OUT_DIR [--from N] [--limit N] [--threads N]
//! ```
//!
//! Captions are analysed and written 20,000 at a time, so a run stopped part way keeps what it
//! wrote: `--from N` starts at the N-th caption (by annotation id) and appends to the files in
//! OUT_DIR (from 0 they are written afresh). The files then hold captions `[from, from + limit)`.
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
    if let [model, flag, dir, rest @ ..] = args.as_slice() {
        if flag == "--lemmatized" {
            return lemmatized(model, Path::new(dir), rest);
        }
    }
    let [model, captions, out, rest @ ..] = args.as_slice() else {
        return Err(
            "usage: exact_treebank MODEL captions_train2014.json OUT_DIR [--from N] [--limit N] \
             [--threads N]"
                .into(),
        );
    };
    let mut limit = usize::MAX;
    let mut threads = 0;
    let mut from = 0;
    let mut it = rest.iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let n: usize = value
            .parse()
            .map_err(|_| format!("{flag} takes a number, not {value}"))?;
        match flag.as_str() {
            "--limit" => limit = n,
            "--from" => from = n,
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
    // pycocoevalcap tokenizes a whole file at once; so do we, in annotation-id order (all of it,
    // whatever part is analysed, so a part's text is what the whole run gives).
    let coco_form =
        spice::tokenize::tokenize_coco_batch(&all.iter().map(|c| &c.text).collect::<Vec<_>>());
    let end = from.saturating_add(limit).min(all.len());
    let from = from.min(end);

    let out = PathBuf::from(out);
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut files = HashMap::new();
    for form in ["raw", "coco"] {
        for split in ["train", "heldout"] {
            let path = out.join(format!("{split}.{form}.conllu"));
            let file = std::fs::OpenOptions::new()
                .create(true)
                .write(true)
                .append(from > 0)
                .truncate(from == 0)
                .open(&path)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            files.insert((split, form), (path, std::io::BufWriter::new(file), 0usize));
        }
    }
    // Each distinct text is parsed once, whichever part it comes back in.
    let mut analysed: HashMap<String, String> = HashMap::new();
    let mut parsed = [0usize; 2];
    const PART: usize = 20_000;
    for part in (from..end).step_by(PART) {
        let range = part..(part + PART).min(end);
        for (f, form) in ["raw", "coco"].into_iter().enumerate() {
            let texts: Vec<&str> = range
                .clone()
                .map(|i| match form {
                    "raw" => all[i].text.as_str(),
                    _ => coco_form[i].as_str(),
                })
                .collect();
            let key = |t: &str| format!("{form}\u{0}{t}");
            let mut todo: Vec<&str> = texts
                .iter()
                .copied()
                .filter(|t| !analysed.contains_key(&key(t)))
                .collect();
            todo.sort_unstable();
            todo.dedup();
            parsed[f] += todo.len();
            let done: Vec<(String, String)> = todo
                .par_iter()
                .map(|&text| (key(text), analyse(parser, text)))
                .collect();
            analysed.extend(done);
            for (i, text) in range.clone().zip(&texts) {
                let c = &all[i];
                let split = if held_out(c.image_id) {
                    "heldout"
                } else {
                    "train"
                };
                let (path, w, n) = files.get_mut(&(split, form)).expect("opened above");
                *n += 1;
                write!(
                    w,
                    "# caption_id = {}\n# text = {}\n{}",
                    c.id,
                    text.replace('\n', " "),
                    analysed[&key(text)]
                )
                .map_err(|e| format!("{}: {e}", path.display()))?;
            }
        }
        for (path, w, _) in files.values_mut() {
            w.flush().map_err(|e| format!("{}: {e}", path.display()))?;
        }
        eprintln!(
            "captions {}..{} written ({:.0} s)",
            range.start,
            range.end,
            start.elapsed().as_secs_f64()
        );
    }
    let mut stats = Vec::new();
    for form in ["raw", "coco"] {
        for split in ["train", "heldout"] {
            stats.push(format!(
                "{split}.{form}: {} captions",
                files[&(split, form)].2
            ));
        }
    }
    stats.push(format!(
        "distinct captions parsed: {} as written, {} in pycocoevalcap's form",
        parsed[0], parsed[1]
    ));
    for s in &stats {
        println!("{s}");
    }
    println!("total {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}

/// The third form SPICE meets: captions their authors lemmatized before scoring ("a baby be play
/// with a toy", as in the official parser cache's `captions-b`): each caption of
/// `DIR/{train,heldout}.coco.conllu` with its nouns and verbs replaced by their lemmas (other
/// words as they are, as a WordNet lemmatizer leaves them), parsed by the exact pipeline into
/// `DIR/{train,heldout}.lemma.conllu`. `--limit N` takes the first N training captions (all
/// held-out ones).
fn lemmatized(model: &str, dir: &Path, rest: &[String]) -> Result<(), String> {
    let limit = match rest {
        [] => usize::MAX,
        [flag, n] if flag == "--limit" => n
            .parse()
            .map_err(|_| format!("--limit {n}: not a number"))?,
        _ => {
            return Err("usage: exact_treebank MODEL --lemmatized TREEBANK_DIR [--limit N]".into())
        }
    };
    let start = Instant::now();
    let parser = PcfgParser::load_shared(Path::new(model)).map_err(|e| e.to_string())?;
    for split in ["train", "heldout"] {
        let src = dir.join(format!("{split}.coco.conllu"));
        let body = std::fs::read_to_string(&src).map_err(|e| format!("{}: {e}", src.display()))?;
        // (caption id, lemmatized text) per caption, in file order.
        let mut captions: Vec<(String, String)> = Vec::new();
        for line in body.lines() {
            if let Some(id) = line.strip_prefix("# caption_id = ") {
                captions.push((id.to_string(), String::new()));
            } else if !line.is_empty() && !line.starts_with('#') {
                let cols: Vec<&str> = line.split('\t').collect();
                let (word, lemma, tag) = (cols[1], cols[2], cols[4]);
                let keep = if tag.starts_with("NN") || tag.starts_with("VB") {
                    lemma
                } else {
                    word
                };
                let (_, text) = captions
                    .last_mut()
                    .ok_or(format!("{}: a token before any caption", src.display()))?;
                if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(&keep.to_lowercase());
            }
        }
        if split == "train" {
            captions.truncate(limit);
        }
        let mut distinct: Vec<&str> = captions.iter().map(|c| c.1.as_str()).collect();
        distinct.sort_unstable();
        distinct.dedup();
        let analysed: HashMap<&str, String> = distinct
            .par_iter()
            .map(|&text| (text, analyse(parser, text)))
            .collect();
        let path = dir.join(format!("{split}.lemma.conllu"));
        let mut w = std::io::BufWriter::new(
            std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?,
        );
        for (id, text) in &captions {
            write!(
                w,
                "# caption_id = {id}\n# text = {text}\n{}",
                analysed[text.as_str()]
            )
            .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        w.flush().map_err(|e| format!("{}: {e}", path.display()))?;
        println!(
            "{split}.lemma: {} captions, {} distinct ({:.1} s)",
            captions.len(),
            distinct.len(),
            start.elapsed().as_secs_f64()
        );
    }
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
