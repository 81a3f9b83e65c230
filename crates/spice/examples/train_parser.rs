//! Trains the POS tagger and the dependency parser from CoNLL-U treebanks and evaluates them.
//! Run through `scripts/train-parser`, which documents the data it expects.
//!
//! ```text
//! cargo run --release --example train_parser -- train [--data DIR] [--train A.conllu,B.conllu]
//!     [--dev A.conllu,B.conllu] [--out crates/spice/models] [--tagger-epochs N] [--parser-epochs N]
//! cargo run --release --example train_parser -- tagger|parser [same options as train]: one of
//!     the two models alone (two processes can train them side by side)
//! cargo run --release --example train_parser -- eval [--data DIR] [--dev ...] [--models DIR]
//! cargo run --release --example train_parser -- shrink --models DIR --out DIR
//!     [--parser-max-features N] [--tagger-max-features N]
//! ```
//!
//! CoNLL-U columns used: FORM, XPOS (Penn tag), HEAD, DEPREL. Multi-word token lines and empty
//! nodes are ignored. Training order is fixed by the seeds, so a rerun gives the same bytes.

use std::path::{Path, PathBuf};
use std::time::Instant;

use spice::parse::{self, check_tree, Parser, TreeSentence};
use spice::tag::{self, Tagger};

fn main() {
    if let Err(e) = run() {
        eprintln!("train_parser: {e}");
        std::process::exit(1);
    }
}

struct Args {
    cmd: String,
    data: PathBuf,
    train: Vec<String>,
    dev: Vec<String>,
    out: PathBuf,
    tagger_epochs: usize,
    parser_epochs: usize,
    parser_tags: String,
    parser_min_count: u32,
    parser_max_features: usize,
    tagger_max_features: usize,
    tagger_patterns: bool,
    tagger_jackknife: usize,
    models: Option<PathBuf>,
    limit: usize,
    confusions: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let cmd = it
        .next()
        .ok_or("usage: train_parser train|eval [options] (see the source's doc comment)")?;
    let data = std::env::var("SPICEBOARD_DATA")
        .map(|d| PathBuf::from(d).join("exact-treebank"))
        .unwrap_or_else(|_| {
            PathBuf::from(std::env::var("HOME").unwrap_or_else(|_| ".".into()))
                .join(".cache/spiceboard/data/exact-treebank")
        });
    let mut a = Args {
        cmd,
        data,
        train: ["train.raw", "train.coco", "train.lemma"]
            .map(|f| format!("{f}.conllu"))
            .to_vec(),
        dev: ["heldout.raw", "heldout.coco", "heldout.lemma"]
            .map(|f| format!("{f}.conllu"))
            .to_vec(),
        out: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/models")),
        tagger_epochs: 5,
        parser_epochs: 6,
        parser_tags: "gold".into(),
        parser_min_count: parse::TrainOptions::default().min_count,
        parser_max_features: parse::TrainOptions::default().max_features,
        tagger_max_features: tag::TrainOptions::default().max_features,
        tagger_patterns: tag::TrainOptions::default().patterns,
        tagger_jackknife: 4,
        models: None,
        limit: usize::MAX,
        confusions: 0,
    };
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or(format!("{flag} needs a value"));
        let list = |v: String| v.split(',').map(String::from).collect::<Vec<_>>();
        let num = |v: String| {
            v.parse::<usize>()
                .map_err(|_| format!("{flag}: not a number: {v}"))
        };
        match flag.as_str() {
            "--data" => a.data = PathBuf::from(val()?),
            "--train" => a.train = list(val()?),
            "--dev" => a.dev = list(val()?),
            "--out" => a.out = PathBuf::from(val()?),
            "--models" => a.models = Some(PathBuf::from(val()?)),
            "--tagger-epochs" => a.tagger_epochs = num(val()?)?,
            "--parser-epochs" => a.parser_epochs = num(val()?)?,
            "--parser-tags" => a.parser_tags = val()?,
            "--parser-min-count" => a.parser_min_count = num(val()?)? as u32,
            "--parser-max-features" => a.parser_max_features = num(val()?)?,
            "--tagger-max-features" => a.tagger_max_features = num(val()?)?,
            "--tagger-patterns" => {
                a.tagger_patterns = match val()?.as_str() {
                    "on" => true,
                    "off" => false,
                    v => return Err(format!("--tagger-patterns: on or off, not {v}")),
                }
            }
            "--tagger-jackknife" => a.tagger_jackknife = num(val()?)?,
            "--limit" => a.limit = num(val()?)?,
            "--confusions" => a.confusions = num(val()?)?,
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(a)
}

/// Reads a CoNLL-U file into sentences.
fn read_conllu(path: &Path) -> Result<Vec<TreeSentence>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    let mut cur = TreeSentence {
        words: vec![],
        tags: vec![],
        heads: vec![],
        labels: vec![],
    };
    for (ln, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.is_empty() {
            if !cur.words.is_empty() {
                out.push(std::mem::replace(
                    &mut cur,
                    TreeSentence {
                        words: vec![],
                        tags: vec![],
                        heads: vec![],
                        labels: vec![],
                    },
                ));
            }
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() != 10 {
            return Err(format!(
                "{}:{}: expected 10 columns, found {}",
                path.display(),
                ln + 1,
                cols.len()
            ));
        }
        if cols[0].contains('-') || cols[0].contains('.') {
            continue;
        }
        let id: usize = cols[0]
            .parse()
            .map_err(|_| format!("{}:{}: bad ID {:?}", path.display(), ln + 1, cols[0]))?;
        if id != cur.words.len() + 1 {
            return Err(format!(
                "{}:{}: ID {id} out of sequence",
                path.display(),
                ln + 1
            ));
        }
        let head: usize = cols[6]
            .parse()
            .map_err(|_| format!("{}:{}: bad HEAD {:?}", path.display(), ln + 1, cols[6]))?;
        cur.words.push(cols[1].to_string());
        cur.tags.push(cols[4].to_string());
        cur.heads.push(head);
        cur.labels.push(cols[7].to_string());
    }
    if !cur.words.is_empty() {
        out.push(cur);
    }
    Ok(out)
}

fn read_all(
    dir: &Path,
    names: &[String],
    limit: usize,
) -> Result<Vec<(String, Vec<TreeSentence>)>, String> {
    names
        .iter()
        .map(|n| {
            let mut s = read_conllu(&dir.join(n))?;
            s.truncate(limit);
            Ok((n.clone(), s))
        })
        .collect()
}

/// Interleaves the files sentence by sentence (raw, coco, lemma, raw, coco, ...): a fixed order
/// that mixes the forms before the seeded shuffle.
fn interleave(sets: &[(String, Vec<TreeSentence>)]) -> Vec<TreeSentence> {
    let max = sets.iter().map(|s| s.1.len()).max().unwrap_or(0);
    let mut out = Vec::new();
    for i in 0..max {
        for (_, s) in sets {
            if let Some(x) = s.get(i) {
                out.push(x.clone());
            }
        }
    }
    out
}

fn run() -> Result<(), String> {
    let a = parse_args()?;
    match a.cmd.as_str() {
        "train" | "parser" => train(&a),
        "tagger" => train_tagger(&a),
        "eval" => {
            let dir = a.models.clone().unwrap_or_else(|| a.out.clone());
            let t0 = Instant::now();
            let tagger = Tagger::load(&dir.join("tagger.bin")).map_err(|e| e.to_string())?;
            let t1 = Instant::now();
            let parser = Parser::load(&dir.join("parser.bin")).map_err(|e| e.to_string())?;
            println!(
                "load: tagger {:.1} ms, parser {:.1} ms",
                (t1 - t0).as_secs_f64() * 1e3,
                t1.elapsed().as_secs_f64() * 1e3
            );
            evaluate(&a, &tagger, &parser)
        }
        "shrink" => {
            // Keeps the heaviest features of trained models (--models DIR) and writes them to
            // --out, then evaluates the result.
            let dir = a
                .models
                .clone()
                .ok_or("shrink needs --models DIR (the trained models)")?;
            std::fs::create_dir_all(&a.out).map_err(|e| format!("{}: {e}", a.out.display()))?;
            for (file, kind, max) in [
                ("tagger.bin", "tagger", a.tagger_max_features),
                ("parser.bin", "parser", a.parser_max_features),
            ] {
                let src = dir.join(file);
                let bytes = std::fs::read(&src).map_err(|e| format!("{}: {e}", src.display()))?;
                let what = src.display().to_string();
                let out = spice::perceptron::shrink_model(&bytes, &what, kind, max)
                    .map_err(|e| e.to_string())?;
                let dst = a.out.join(file);
                std::fs::write(&dst, &out).map_err(|e| format!("{}: {e}", dst.display()))?;
                eprintln!(
                    "{} -> {}: {} -> {} bytes",
                    src.display(),
                    dst.display(),
                    bytes.len(),
                    out.len()
                );
            }
            let tagger = Tagger::load(&a.out.join("tagger.bin")).map_err(|e| e.to_string())?;
            let parser = Parser::load(&a.out.join("parser.bin")).map_err(|e| e.to_string())?;
            evaluate(&a, &tagger, &parser)
        }
        other => Err(format!("unknown command {other} (train, eval or shrink)")),
    }
}

fn train(a: &Args) -> Result<(), String> {
    let t0 = Instant::now();
    let sets = read_all(&a.data, &a.train, a.limit)?;
    for (n, s) in &sets {
        eprintln!("read {n}: {} sentences", s.len());
    }
    let sents = interleave(&sets);
    let mut log = |m: String| eprintln!("[{:>6.1}s] {m}", t0.elapsed().as_secs_f64());

    // Words and tags only, copied when a tagger is trained here (not by `parser` on gold tags).
    let tagged_cell = std::cell::OnceCell::new();
    let tagged = || -> &Vec<tag::TaggedSentence> {
        tagged_cell.get_or_init(|| {
            sents
                .iter()
                .map(|s| (s.words.clone(), s.tags.clone()))
                .collect()
        })
    };
    let topts = tagger_options(a);
    std::fs::create_dir_all(&a.out).map_err(|e| format!("{}: {e}", a.out.display()))?;
    let tagger = if a.cmd == "parser" {
        // The parser alone (beside `tagger` in another process): evaluated with the tagger of
        // --models DIR, or the embedded one.
        match &a.models {
            Some(dir) => Tagger::load(&dir.join("tagger.bin")),
            None => Tagger::embedded().cloned(),
        }
        .map_err(|e| e.to_string())?
    } else {
        let tbytes = tag::train(tagged(), &topts, &mut log)?;
        write_model(&a.out, "tagger.bin", &tbytes, &mut log)?;
        Tagger::from_bytes(&tbytes, "new tagger").map_err(|e| e.to_string())?
    };

    let psents: Vec<TreeSentence> = match a.parser_tags.as_str() {
        "gold" => sents,
        "predicted" => retag(sents, |_| &tagger),
        jk if jk.starts_with("jackknife") => {
            // K-fold jackknifing: each fold is tagged by a tagger trained on the other folds, so
            // the parser trains on tags as wrong as the ones it will see.
            let k: usize = jk
                .strip_prefix("jackknife:")
                .map(|x| {
                    x.parse()
                        .map_err(|_| format!("--parser-tags {jk}: bad fold count"))
                })
                .transpose()?
                .unwrap_or(4)
                .max(2);
            // Both forms of a caption go to the same fold: folds are keyed on the lowercased
            // alphanumeric text.
            let fold: Vec<usize> = sents.iter().map(|s| fold_of(&s.words, k)).collect();
            let mut fold_taggers = Vec::with_capacity(k);
            for f in 0..k {
                let rest: Vec<tag::TaggedSentence> = tagged()
                    .iter()
                    .zip(&fold)
                    .filter(|(_, &g)| g != f)
                    .map(|(s, _)| s.clone())
                    .collect();
                let b = tag::train(&rest, &topts, &mut |m| log(format!("fold {f}: {m}")))?;
                fold_taggers
                    .push(Tagger::from_bytes(&b, "fold tagger").map_err(|e| e.to_string())?);
            }
            retag(sents, |i| &fold_taggers[fold[i]])
        }
        other => {
            return Err(format!(
                "--parser-tags: gold, predicted or jackknife[:K], not {other}"
            ))
        }
    };
    let popts = parse::TrainOptions {
        epochs: a.parser_epochs,
        min_count: a.parser_min_count,
        max_features: a.parser_max_features,
        ..parse::TrainOptions::default()
    };
    let pbytes = parse::train(&psents, &popts, &mut log)?;
    write_model(&a.out, "parser.bin", &pbytes, &mut log)?;
    let parser = Parser::from_bytes(&pbytes, "new parser").map_err(|e| e.to_string())?;
    log(format!(
        "training done in {:.1}s",
        t0.elapsed().as_secs_f64()
    ));
    evaluate(a, &tagger, &parser)
}

/// The tagger's training options the command line asks for.
fn tagger_options(a: &Args) -> tag::TrainOptions {
    tag::TrainOptions {
        epochs: a.tagger_epochs,
        max_features: a.tagger_max_features,
        patterns: a.tagger_patterns,
        jackknife: a.tagger_jackknife,
        ..tag::TrainOptions::default()
    }
}

/// Writes a model file into `dir` and logs it.
fn write_model(
    dir: &Path,
    file: &str,
    bytes: &[u8],
    log: &mut dyn FnMut(String),
) -> Result<(), String> {
    let path = dir.join(file);
    std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    log(format!("wrote {} ({} bytes)", path.display(), bytes.len()));
    Ok(())
}

/// Trains the tagger alone (`--out DIR/tagger.bin`) and prints its held-out accuracy: tagger
/// experiments without the parser (21 minutes on the whole treebank, stacking included).
fn train_tagger(a: &Args) -> Result<(), String> {
    let t0 = Instant::now();
    let sents = interleave(&read_all(&a.data, &a.train, a.limit)?);
    let tagged: Vec<tag::TaggedSentence> = sents.into_iter().map(|s| (s.words, s.tags)).collect();
    let topts = tagger_options(a);
    let mut log = |m: String| eprintln!("[{:>6.1}s] {m}", t0.elapsed().as_secs_f64());
    let bytes = tag::train(&tagged, &topts, &mut log)?;
    std::fs::create_dir_all(&a.out).map_err(|e| format!("{}: {e}", a.out.display()))?;
    write_model(&a.out, "tagger.bin", &bytes, &mut log)?;
    let tagger = Tagger::from_bytes(&bytes, "new tagger").map_err(|e| e.to_string())?;
    for (name, sents) in read_all(&a.data, &a.dev, a.limit)? {
        let (mut toks, mut right, mut whole, mut printed) = (0, 0, 0, 0);
        for s in &sents {
            let w: Vec<&str> = s.words.iter().map(String::as_str).collect();
            let tags = tagger.tag(&w);
            let ok = tags.iter().zip(&s.tags).filter(|(x, y)| *x == y).count();
            toks += w.len();
            right += ok;
            whole += usize::from(ok == w.len());
            if ok != w.len() && printed < a.confusions {
                printed += 1;
                let shown: Vec<String> = w
                    .iter()
                    .zip(tags.iter().zip(&s.tags))
                    .map(|(w, (t, g))| {
                        if *t == g {
                            w.to_string()
                        } else {
                            format!("{w}/{g}(not {t})")
                        }
                    })
                    .collect();
                println!("  {}", shown.join(" "));
            }
        }
        println!(
            "{name}: tag acc {:.2} %, sentences all right {:.2} %",
            100.0 * right as f64 / toks.max(1) as f64,
            100.0 * whole as f64 / sents.len().max(1) as f64
        );
    }
    Ok(())
}

/// The jackknife fold of a sentence: a stable hash (FNV-1a) of its lowercased letters and digits.
fn fold_of(words: &[String], k: usize) -> usize {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for c in words
        .iter()
        .flat_map(|w| w.chars())
        .filter(|c| c.is_alphanumeric())
    {
        for l in c.to_lowercase() {
            h = (h ^ l as u64).wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
    (h % k as u64) as usize
}

/// Replaces the gold tags of sentence `i` with those `tagger_for(i)` gives.
fn retag<'a>(
    sents: Vec<TreeSentence>,
    tagger_for: impl Fn(usize) -> &'a Tagger,
) -> Vec<TreeSentence> {
    sents
        .into_iter()
        .enumerate()
        .map(|(i, mut s)| {
            let w: Vec<&str> = s.words.iter().map(String::as_str).collect();
            s.tags = tagger_for(i)
                .tag(&w)
                .into_iter()
                .map(String::from)
                .collect();
            s
        })
        .collect()
}

fn evaluate(a: &Args, tagger: &Tagger, parser: &Parser) -> Result<(), String> {
    let (tf, td) = tagger.size();
    println!(
        "tagger: {tf} features, {td} dictionary words; parser: {} features",
        parser.size()
    );
    println!("| dev file | sentences | tokens | tag acc | UAS | LAS | UAS gold tags | LAS gold tags | LAS no punct |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (name, sents) in read_all(&a.data, &a.dev, a.limit)? {
        let (mut toks, mut tag_ok, mut ua, mut la, mut ug, mut lg, mut np, mut lnp) =
            (0, 0, 0, 0, 0, 0, 0, 0);
        let mut nonproj = 0;
        let mut confused: std::collections::HashMap<(String, &str), (usize, String)> =
            std::collections::HashMap::new();
        // Gold-tag parse errors by gold label: (wrong, of which only the label).
        let mut arc_errors: std::collections::HashMap<String, (usize, usize)> =
            std::collections::HashMap::new();
        let mut shown = 0;
        for s in &sents {
            if check_tree(&s.heads).is_err() {
                nonproj += 1;
            }
            let w: Vec<&str> = s.words.iter().map(String::as_str).collect();
            let gold_tags: Vec<&str> = s.tags.iter().map(String::as_str).collect();
            let tags = tagger.tag(&w);
            let arcs = parser.parse(&w, &tags);
            let arcs_g = parser.parse(&w, &gold_tags);
            let wrong = (0..w.len()).any(|i| arcs_g[i].0 != s.heads[i]);
            if wrong && shown < a.confusions {
                shown += 1;
                let line: Vec<String> = (0..w.len())
                    .map(|i| {
                        if arcs_g[i].0 == s.heads[i] {
                            w[i].to_string()
                        } else {
                            let at = |h: usize| if h == 0 { "ROOT" } else { w[h - 1] };
                            format!(
                                "{}[{}->{} not {}]",
                                w[i],
                                s.labels[i],
                                at(s.heads[i]),
                                at(arcs_g[i].0)
                            )
                        }
                    })
                    .collect();
                println!("  {}", line.join(" "));
            }
            for i in 0..w.len() {
                toks += 1;
                tag_ok += (tags[i] == s.tags[i]) as usize;
                let (gh, gl) = (s.heads[i], s.labels[i].as_str());
                if !(arcs_g[i].0 == gh && arcs_g[i].1.as_str() == gl) && a.confusions > 0 {
                    let e = arc_errors.entry(gl.to_string()).or_insert((0, 0));
                    e.0 += 1;
                    e.1 += usize::from(arcs_g[i].0 == gh);
                }
                if tags[i] != s.tags[i] && a.confusions > 0 {
                    let e = confused
                        .entry((s.tags[i].clone(), tags[i]))
                        .or_insert((0, String::new()));
                    e.0 += 1;
                    if e.1.split(' ').count() < 8 && !e.1.split(' ').any(|x| x == w[i]) {
                        e.1.push_str(w[i]);
                        e.1.push(' ');
                    }
                }
                let (h, l) = (s.heads[i], s.labels[i].as_str());
                ua += (arcs[i].0 == h) as usize;
                la += (arcs[i].0 == h && arcs[i].1.as_str() == l) as usize;
                ug += (arcs_g[i].0 == h) as usize;
                lg += (arcs_g[i].0 == h && arcs_g[i].1.as_str() == l) as usize;
                if l != "punct" {
                    np += 1;
                    lnp += (arcs[i].0 == h && arcs[i].1.as_str() == l) as usize;
                }
            }
        }
        let pc = |x: usize, n: usize| 100.0 * x as f64 / n.max(1) as f64;
        println!(
            "| {name} | {} ({nonproj} not projective) | {toks} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            sents.len(),
            pc(tag_ok, toks),
            pc(ua, toks),
            pc(la, toks),
            pc(ug, toks),
            pc(lg, toks),
            pc(lnp, np)
        );
        let mut errs: Vec<_> = arc_errors.into_iter().collect();
        errs.sort_by(|x, y| y.1 .0.cmp(&x.1 .0).then(x.0.cmp(&y.0)));
        for (label, (n, label_only)) in errs.into_iter().take(a.confusions) {
            println!("  gold-tag errors on {label}: {n} ({label_only} label only)");
        }
        let mut top: Vec<_> = confused.into_iter().collect();
        top.sort_by(|x, y| y.1 .0.cmp(&x.1 .0).then(x.0.cmp(&y.0)));
        for ((gold, got), (n, words)) in top.into_iter().take(a.confusions) {
            println!("  {gold} read as {got}: {n} ({words})");
        }
    }
    Ok(())
}
