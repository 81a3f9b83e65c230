//! CoreNLP's English PCFG run by `spice::corenlp` against the official pipeline's trees
//! (`../shared/corenlp/official`) and against CoreNLP's own parser (the 3.4.1 jar that
//! `scripts/fetch-data` unpacks from pycocoevalcap loads the same model and gives the same trees).
//! Without `../shared/corenlp` the tests say they are skipped and pass, unless `CI` is set.

use std::io::Write;
use std::path::Path;

use spice::corenlp::{official, ModelError, PcfgParser};

mod common;

fn parser(dir: &Path) -> PcfgParser {
    PcfgParser::load(&dir.join("englishPCFG.ser.gz")).unwrap_or_else(|e| panic!("{e}"))
}

/// [`HARD`]'s sentences as words.
fn hard_sentences() -> Vec<Vec<String>> {
    HARD.iter()
        .map(|s| s.split(' ').map(str::to_string).collect())
        .collect()
}

/// The words of the first `limit` sentences (all with `None`) of a shared official set.
fn shared_sentences(dir: &Path, set: &str, limit: Option<usize>) -> Vec<Vec<String>> {
    let file = dir.join("official").join(format!("{set}.jsonl.gz"));
    let shared = official::read(&file, limit).expect("shared analyses");
    shared.into_iter().map(|s| s.words).collect()
}

/// The official analyses shared in `../shared/corenlp/official`.
const SETS: [&str; 5] = [
    "train2014-coco",
    "train2014-raw",
    "captions-a",
    "captions-b",
    "flickr8k-raw",
];

#[test]
fn trees_equal_the_official_pipelines_on_every_shared_set() {
    let Some(dir) = common::corenlp_dir() else {
        return;
    };
    let p = parser(&dir);
    for set in SETS {
        let file = format!("{set}.jsonl.gz");
        let sentences =
            official::read(&dir.join("official").join(&file), Some(150)).expect("shared analyses");
        let wrong: Vec<String> = sentences
            .iter()
            .filter_map(|official::Sentence { words, tree, .. }| {
                let w: Vec<&str> = words.iter().map(String::as_str).collect();
                let ours = p.parse(&w).penn();
                (ours != *tree)
                    .then(|| format!("{}\n  official {tree}\n  ours     {ours}", words.join(" ")))
            })
            .collect();
        assert!(
            wrong.is_empty(),
            "{file}: {} of {} trees differ, the first:\n{}",
            wrong.len(),
            sentences.len(),
            wrong[0]
        );
    }
}

/// The chart's storage is kept per thread from sentence to sentence: a sentence's tree does not
/// depend on what the thread parsed before it (a long sentence, a recovery parse, itself).
#[test]
fn a_sentences_tree_does_not_depend_on_the_sentences_before_it() {
    let Some(dir) = common::corenlp_dir() else {
        return;
    };
    let p = parser(&dir);
    let parse = |s: &str| p.parse(&s.split(' ').collect::<Vec<_>>()).penn();
    let alone: Vec<String> = HARD.iter().map(|s| parse(s)).collect();
    for (i, s) in HARD.iter().enumerate().rev() {
        assert_eq!(parse(s), alone[i], "after the others: {s}");
        assert_eq!(parse(s), alone[i], "twice: {s}");
    }
}

/// One-word cells are closed once for each word's taggings and kept: a parser's trees, items and
/// best scores do not depend on which words it met before, including a word whose taggings
/// change with its place (an unknown capitalized word first in the sentence and inside it).
#[test]
fn closed_one_word_cells_kept_from_sentence_to_sentence_change_nothing() {
    let Some(dir) = common::corenlp_dir() else {
        return;
    };
    let mut sentences = hard_sentences();
    sentences.extend(shared_sentences(&dir, "train2014-raw", Some(40)));
    for s in [
        "Zorbly dogs run on the grass .",
        "two Zorbly dogs run on the grass",
    ] {
        sentences.push(s.split(' ').map(str::to_string).collect());
    }
    let run = |p: &PcfgParser, order: &mut dyn Iterator<Item = usize>| {
        let mut out = vec![None; sentences.len()];
        for i in order {
            let w: Vec<&str> = sentences[i].iter().map(String::as_str).collect();
            if let Some((tree, work)) = p.parse_measured(&w, true) {
                out[i] = Some((tree.map(|t| t.penn()), work.items, work.score.to_bits()));
            }
        }
        out
    };
    let forward = run(&parser(&dir), &mut (0..sentences.len()));
    let backward = run(&parser(&dir), &mut (0..sentences.len()).rev());
    for (i, words) in sentences.iter().enumerate() {
        assert_eq!(forward[i], backward[i], "{}", words.join(" "));
    }
}

/// The two-pass parse with the grammar's outside bounds leaves items out of the chart but never
/// the best parse: on real captions and the hard sentences, the same tree and the same best score
/// to the bit as the whole chart, with far fewer items stored.
#[test]
fn pruning_by_the_outside_bounds_keeps_the_best_parse() {
    let Some(dir) = common::corenlp_dir() else {
        return;
    };
    let p = parser(&dir);
    let mut sentences = hard_sentences();
    for set in ["train2014-raw", "flickr8k-raw"] {
        sentences.extend(shared_sentences(&dir, set, Some(100)));
    }
    let (mut whole, mut pruned, mut two_pass) = (0, 0, 0);
    for words in &sentences {
        let w: Vec<&str> = words.iter().map(String::as_str).collect();
        let Some((tree, all)) = p.parse_measured(&w, true) else {
            continue;
        };
        let (bounded_tree, bounded) = p.parse_measured(&w, false).expect("a chart");
        let tree = tree.map(|t| t.penn());
        assert_eq!(bounded_tree.map(|t| t.penn()), tree, "{}", words.join(" "));
        assert_eq!(
            bounded.score.to_bits(),
            all.score.to_bits(),
            "best score of {}",
            words.join(" ")
        );
        whole += all.items;
        pruned += bounded.items;
        two_pass += usize::from(bounded.fills == 2);
    }
    assert!(
        two_pass * 10 > sentences.len() * 9,
        "{two_pass} of {} sentences parsed in two passes",
        sentences.len()
    );
    assert!(
        pruned * 3 < whole * 2,
        "{pruned} items stored with the bounds, {whole} without"
    );
}

/// Sentences longer than the bounds' table (24 positions) are bounded on the spans it covers,
/// those with fewer words outside them: the chart leaves items out there and keeps the whole
/// chart's tree and best score.
#[test]
fn sentences_longer_than_the_bounds_table_are_pruned_where_it_reaches() {
    let Some(dir) = common::corenlp_dir() else {
        return;
    };
    let p = parser(&dir);
    let long = |w: &Vec<String>| w.len() >= 24;
    let mut sentences: Vec<Vec<String>> = hard_sentences().into_iter().filter(long).collect();
    for set in ["train2014-raw", "flickr8k-raw"] {
        sentences.extend(
            shared_sentences(&dir, set, None)
                .into_iter()
                .filter(long)
                .take(4),
        );
    }
    assert!(sentences.len() >= 5, "{} long sentences", sentences.len());
    for words in &sentences {
        let w: Vec<&str> = words.iter().map(String::as_str).collect();
        let (tree, all) = p.parse_measured(&w, true).expect("a chart");
        let (bounded_tree, bounded) = p.parse_measured(&w, false).expect("a chart");
        let sentence = words.join(" ");
        assert_eq!(
            bounded_tree.map(|t| t.penn()),
            tree.map(|t| t.penn()),
            "{sentence}"
        );
        assert_eq!(bounded.score.to_bits(), all.score.to_bits(), "{sentence}");
        assert!(
            bounded.items - bounded.first_items < all.items,
            "{sentence}: {} items stored with the bounds' reach, {} without",
            bounded.items - bounded.first_items,
            all.items
        );
    }
}

/// After its first 500 short sentences the parser fits potentials on their taggings that move
/// score between the grammar's table and the words' lexical scores (`bound::fit_potentials`). On
/// the sentences after those: the bound on the whole parse still holds for every sentence, it is
/// tighter than without potentials, and the chart stores fewer items, with the same trees and
/// best scores as the whole chart.
#[test]
fn potentials_fitted_on_the_first_sentences_tighten_the_bounds_and_keep_the_best_parse() {
    let Some(dir) = common::corenlp_dir() else {
        return;
    };
    let file = dir.join("official").join("train2014-raw.jsonl.gz");
    let shared = official::read(&file, None).expect("shared analyses");
    let (first, rest) = shared.split_at(1500);
    let fitted = parser(&dir);
    for s in first {
        fitted.parse(&s.words.iter().map(String::as_str).collect::<Vec<_>>());
    }
    assert!(
        fitted.potentials_fitted(),
        "no potentials after 1,500 sentences"
    );
    let plain = parser(&dir);
    let (mut looser, mut tighter, mut counted) = (0f64, 0f64, 0);
    let (mut with, mut without) = (0, 0);
    for s in rest.iter().take(150) {
        let w: Vec<&str> = s.words.iter().map(String::as_str).collect();
        let (tree, all) = fitted.parse_measured(&w, true).expect("a chart");
        let (bounded_tree, bounded) = fitted.parse_measured(&w, false).expect("a chart");
        let (_, unfitted) = plain.parse_measured(&w, false).expect("a chart");
        let sentence = s.words.join(" ");
        assert_eq!(
            bounded_tree.map(|t| t.penn()),
            tree.map(|t| t.penn()),
            "{sentence}"
        );
        assert_eq!(bounded.score.to_bits(), all.score.to_bits(), "{sentence}");
        assert_eq!(bounded.fills, 2, "parsed again in full: {sentence}");
        with += bounded.items;
        without += unfitted.items;
        let (Some(tight), Some(loose)) =
            (fitted.whole_parse_bound(&w), plain.whole_parse_bound(&w))
        else {
            continue;
        };
        assert!(
            tight >= all.score && loose >= all.score,
            "bounds {tight} (fitted) and {loose} below the best parse {} of {sentence}",
            all.score
        );
        tighter += f64::from(tight - all.score);
        looser += f64::from(loose - all.score);
        counted += 1;
    }
    eprintln!(
        "bound above the best parse: {:.1} nats with potentials, {:.1} without; items {with} \
         against {without}",
        tighter / counted as f64,
        looser / counted as f64
    );
    assert!(
        !plain.potentials_fitted(),
        "150 sentences fitted potentials"
    );
    assert!(counted > 100, "only {counted} sentences within the bounds");
    assert!(
        tighter < looser * 0.8,
        "bound above the best parse: {:.1} nats on average with potentials, {:.1} without",
        tighter / counted as f64,
        looser / counted as f64
    );
    assert!(
        with * 10 < without * 9,
        "{with} items stored with potentials, {without} without"
    );
}

/// Sentences the shared sets do not cover: capitals, digits, dashes, British spellings, brackets,
/// quotes, odd Unicode, a long sentence and one of 64 positions or more (whose chart takes wider
/// masks), one with no parse but by recovery.
const HARD: &[&str] = &[
    "A Frisbee-catching Labrador named Max leaps over 3 grey fences .",
    "The colour of the harbour at 5:30 pm is gray-blue , isn't it ?",
    "Two men -LRB- one in a red shirt -RRB- play `` tennis '' in Montréal .",
    "UNK UNK-LC qwzxv xxxx 1984 3.14 B-52 e-mail",
    "a a a a a a a a a a",
    "of of of the the and",
    "Colourful programmes about haematology and anaemia are travelled to on Monday .",
    "A man riding a horse on a beach next to the ocean while a dog runs beside him and two kids build a sandcastle near the water with buckets and shovels as the sun sets behind the clouds over the bay .",
    "A young woman in a red jacket stands on a crowded city sidewalk holding an umbrella while cars and buses drive past in the rain , and a man with a brown dog waits at the corner next to a tall building with bright signs , as two children in yellow raincoats jump into puddles near a parked bicycle beside a small cafe with tables outside .",
    "Ünïcödé ñame ΑΒΓ 東京 😀 ok",
    "!!! ??? ... ; : --",
    "I",
];

#[test]
fn trees_equal_corenlps_own_parser_on_hard_sentences() {
    let Some(dir) = common::corenlp_dir() else {
        return;
    };
    let jar = common::data_file("stanford-corenlp-3.4.1.jar");
    let p = parser(&dir);
    let tmp = tempfile::tempdir().expect("tempdir");
    let input = tmp.path().join("sentences.txt");
    let mut f = std::fs::File::create(&input).expect("create");
    for s in HARD {
        writeln!(f, "{s}").expect("write");
    }
    drop(f);
    let out = std::process::Command::new("java")
        .args(["-mx3g", "-cp"])
        .arg(&jar)
        .args([
            "edu.stanford.nlp.parser.lexparser.LexicalizedParser",
            "-retainTmpSubcategories",
            "-sentences",
            "newline",
            "-tokenized",
            "-outputFormat",
            "oneline",
        ])
        .arg(dir.join("englishPCFG.ser.gz"))
        .arg(&input)
        .output()
        .expect("java runs (Java 17 is part of the test machine)");
    assert!(
        out.status.success(),
        "the 3.4.1 parser failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Vec<String> = String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    assert_eq!(
        theirs.len(),
        HARD.len(),
        "one tree a sentence from the oracle"
    );
    for (s, t) in HARD.iter().zip(&theirs) {
        let words: Vec<&str> = s.split_whitespace().collect();
        // The 3.4.1 jar prints "/" as "\/" (3.6.0 does not); no sentence here has one.
        assert_eq!(&p.parse(&words).penn(), t, "{s}");
    }
}

/// QPs as the PCFG makes them (written for this test): numbers joined by a conjunction, with
/// "$" on either side, QPs side by side, nested ones. None opens with an adverb or adjective
/// followed by a preposition or adjective: there the 3.4.1 jar's `QPTreeTransformer` (which
/// predates UD) also builds an `XS`, a step 3.6.0's UD converter skips.
const QP_TREES: &[&str] = &[
    "(ROOT (NP (QP (CD two) (CC or) (CD three)) (NNS dogs)))",
    "(ROOT (NP (QP (CD 2) (TO to) (CD 3)) (NNS cats)))",
    "(ROOT (NP (QP ($ $) (CD 5) (CC or) (JJR more)) (NN fee)))",
    "(ROOT (NP (QP (CD 5) (CC or) ($ $) (CD 6)) (NN fee)))",
    "(ROOT (NP (QP (IN between) (CD 5) (CC and) (CD 10)) (NNS birds)))",
    "(ROOT (NP (QP (CD 4)) (QP (CC or) (CD 5)) (NNS ducks)))",
    "(ROOT (NP (QP (CD 1)) (QP (CC and) (CD 2) (CC or) (CD 3)) (NNS kites)))",
    "(ROOT (NP (QP ($ $) (CD 3) (CD million)) (NN budget)))",
    "(ROOT (NP (QP ($ $) (CD 3) (CC or) ($ $) (CD 4)) (NN price)))",
    "(ROOT (NP (QP (CD one) (CC or) (CD two) (CC or) (CD three)) (NNS boats)))",
    "(ROOT (NP (QP (CC and) (CD one)) (NN woman)))",
    "(ROOT (NP (QP (RB almost) (CD 2) (NN dozen)) (NNS people)))",
    "(ROOT (NP (QP (DT a) (NN dozen)) (JJ yellow) (NNS cars)))",
    "(ROOT (S (NP (NP (QP (CD six) (CC or) (CD seven)) (NNS zebras)) (PP (IN near) (NP (QP (CD 2) (CC and) (CD 3)) (NNS trees)))) (VP (VBP stand))))",
    "(ROOT (NP (QP ($ $) (QP (CD 5) (CD 000))) (NN car)))",
];

/// CoreNLP's `QPTreeTransformer` (its own command in the 3.4.1 jar, the same patterns and
/// surgery as 3.6.0's) and ours give the same trees.
#[test]
fn quantifier_phrases_are_restructured_as_corenlps_qp_transformer_does() {
    let jar = common::data_file("stanford-corenlp-3.4.1.jar");
    let tmp = tempfile::tempdir().expect("tempdir");
    let input = tmp.path().join("trees.txt");
    std::fs::write(&input, QP_TREES.join("\n") + "\n").expect("write");
    let out = std::process::Command::new("java")
        .arg("-cp")
        .arg(&jar)
        .arg("edu.stanford.nlp.trees.QPTreeTransformer")
        .arg("-treeFile")
        .arg(&input)
        .output()
        .expect("java runs (Java 17 is part of the test machine)");
    assert!(
        out.status.success(),
        "QPTreeTransformer failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Each tree: "Original tree", its print, "Tree transformed", its print, a dashed line.
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let theirs: Vec<String> = text
        .split("Tree transformed")
        .skip(1)
        .map(|part| {
            let print = part.split("-----").next().unwrap_or_default();
            let joined = print.split_whitespace().collect::<Vec<_>>().join(" ");
            spice::corenlp::Tree::from_penn(&joined)
                .unwrap_or_else(|| panic!("the oracle's tree {joined} is not a tree"))
                .penn()
        })
        .collect();
    assert_eq!(
        theirs.len(),
        QP_TREES.len(),
        "one tree a tree from the oracle:\n{text}"
    );
    let mut changed = 0;
    for (input, theirs) in QP_TREES.iter().zip(&theirs) {
        let tree = spice::corenlp::Tree::from_penn(input).expect("penn");
        let ours = spice::corenlp::coordination::qp_stage(&tree).penn();
        assert_eq!(&ours, theirs, "{input}");
        changed += usize::from(&ours != input);
    }
    assert!(
        changed >= 10,
        "only {changed} trees exercise the transformer"
    );
}

#[test]
fn unreadable_model_files_are_refused_with_the_reason() {
    let Some(dir) = common::corenlp_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let missing = PcfgParser::load(&tmp.path().join("nothing.ser.gz")).expect_err("missing file");
    assert!(matches!(missing, ModelError::Io { .. }), "{missing}");

    let not_gz = tmp.path().join("plain.ser.gz");
    std::fs::write(&not_gz, b"this is not a model").expect("write");
    let e = PcfgParser::load(&not_gz).expect_err("not gzip");
    assert!(e.to_string().contains("plain.ser.gz"), "{e}");

    // The real model cut short anywhere: an error, never a panic.
    let raw = {
        let mut v = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(
                std::fs::File::open(dir.join("englishPCFG.ser.gz")).expect("model"),
            ),
            &mut v,
        )
        .expect("inflate");
        v
    };
    for cut in [0, 3, 4, 100, 5_000, raw.len() / 3, raw.len() - 1] {
        let e = spice::corenlp::model::Model::from_stream(&raw[..cut]).expect_err("truncated");
        assert!(!e.to_string().is_empty());
    }
    // A Java serialization stream of something else.
    let other = [0xAC, 0xED, 0x00, 0x05, 0x74, 0x00, 0x02, b'h', b'i'];
    let e = spice::corenlp::model::Model::from_stream(&other).expect_err("a string");
    assert!(
        e.to_string().contains("not a LexicalizedParser")
            || e.to_string().contains("not an object"),
        "{e}"
    );
}

#[test]
fn the_models_jar_and_a_directory_holding_it_give_the_same_parser() {
    let Some(dir) = common::corenlp_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let jar = tmp.path().join(spice::corenlp::model::MODELS_JAR);
    {
        let mut w = zip::ZipWriter::new(std::fs::File::create(&jar).expect("create jar"));
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        w.start_file("META-INF/MANIFEST.MF", stored).expect("entry");
        w.write_all(b"Manifest-Version: 1.0\n").expect("write");
        w.start_file(spice::corenlp::model::PCFG_ENTRY, stored)
            .expect("entry");
        w.write_all(&std::fs::read(dir.join("englishPCFG.ser.gz")).expect("model"))
            .expect("write");
        w.finish().expect("finish jar");
    }
    let words = [
        "a",
        "grey",
        "cat",
        "sleeping",
        "on",
        "a",
        "colourful",
        "sofa",
    ];
    let bare = parser(&dir);
    let expected = bare.parse(&words).penn();
    for path in [jar.as_path(), tmp.path()] {
        let p = PcfgParser::load(path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.parse(&words).penn(), expected, "{}", path.display());
        // The same model, wherever it is read from, has the same fingerprint.
        assert_eq!(p.fingerprint(), bare.fingerprint(), "{}", path.display());
    }
    assert!(
        bare.fingerprint().starts_with("crc32-"),
        "{}",
        bare.fingerprint()
    );
    // A jar without the model says so.
    let empty = tmp.path().join("other.jar");
    {
        let mut w = zip::ZipWriter::new(std::fs::File::create(&empty).expect("create jar"));
        w.start_file(
            "README",
            zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Stored),
        )
        .expect("entry");
        w.finish().expect("finish jar");
    }
    let e = PcfgParser::load(&empty).expect_err("no model inside");
    assert!(
        e.to_string()
            .contains("has no edu/stanford/nlp/models/lexparser/englishPCFG.ser.gz"),
        "{e}"
    );
}

/// The basic dependencies read off each official tree (coordination transform, semantic heads,
/// the relations' patterns, CoreNLP's clean-ups) equal the official pipeline's on every sentence
/// of every shared set: relations, governors and dependents.
/// Every stage after the tree, on every shared sentence from the official tree: the basic
/// dependencies (our converter), the collapsed CC-processed graph with its copy nodes (our
/// collapsing), the graph after SPICE's clean-up, and each caption's proposals (SPICE's rules):
/// all equal the official pipeline's, with our own lemmas.
#[test]
fn dependencies_and_proposals_equal_the_official_pipelines_on_every_shared_set() {
    let Some(dir) = common::corenlp_dir() else {
        return;
    };
    let hf = spice::corenlp::headfinder::SemanticHeadFinder::new();
    let named = |deps: &[(String, usize, usize)]| -> Vec<(String, String, String)> {
        let mut v: Vec<_> = deps
            .iter()
            .map(|(r, g, d)| (r.clone(), g.to_string(), d.to_string()))
            .collect();
        v.sort();
        v
    };
    let sorted = |mut v: Vec<(String, String, String)>| {
        v.sort();
        v.dedup();
        v
    };
    let mut total = 0;
    let mut wrong = Vec::new();
    for set in SETS {
        let path = dir.join(format!("official/{set}.jsonl.gz"));
        let captions = official::read_captions(&path, None).expect("shared captions");
        let mut ours: Vec<std::collections::BTreeSet<Vec<String>>> =
            vec![Default::default(); captions.len()];
        let sentences = official::read(&path, None).expect("shared analyses");
        assert!(
            sentences.len() > 1000,
            "{set}: {} sentences",
            sentences.len()
        );
        total += sentences.len();
        for s in sentences {
            let tree = spice::corenlp::Tree::from_penn(&s.tree).expect("penn");
            let (words, deps) = spice::corenlp::structure::basic_dependencies(&tree, &hf);
            let mut g = spice::corenlp::basic_graph(&words, &deps, None);
            let mut stage = |name: &str, ours: Vec<(String, String, String)>, theirs| {
                if ours != theirs && wrong.len() < 10 {
                    wrong.push(format!(
                        "{set} {name}: {}\n  ours     {ours:?}\n  official {theirs:?}",
                        s.words.join(" ")
                    ));
                }
            };
            stage("basic", g.named_edges(), named(&s.basic));
            spice::enhance::enhance_corenlp(&mut g, s.sentence);
            stage("collapsed", g.named_edges(), sorted(s.ccprocessed.clone()));
            spice::cleanup::clean(&mut g);
            stage(
                "clean",
                g.named_edges(),
                sorted(s.ccprocessed_spice.clone()),
            );
            for p in spice::rules::proposals(&g) {
                ours[s.caption].insert(spice::fidelity::printed_proposal(&p));
            }
        }
        for (c, theirs) in captions.into_iter().enumerate() {
            let theirs: std::collections::BTreeSet<Vec<String>> =
                theirs.tuples.into_iter().collect();
            if ours[c] != theirs && wrong.len() < 10 {
                wrong.push(format!(
                    "{set} proposals: {}\n  official only {:?}\n  ours only     {:?}",
                    c,
                    theirs.difference(&ours[c]).collect::<Vec<_>>(),
                    ours[c].difference(&theirs).collect::<Vec<_>>()
                ));
            }
        }
    }
    assert_eq!(total, 25_921);
    assert!(wrong.is_empty(), "differences:\n{}", wrong.join("\n"));
}

#[test]
fn captions_get_the_official_proposals() {
    let Some(dir) = common::corenlp_dir() else {
        return;
    };
    let engine = spice::Engine::new(spice::EngineOptions {
        front_end: spice::FrontEnd::corenlp(&dir.join("englishPCFG.ser.gz"))
            .unwrap_or_else(|e| panic!("{e}")),
        ..spice::EngineOptions::default()
    });
    let mut wrong = Vec::new();
    let mut captions = 0;
    for set in SETS {
        let path = dir.join(format!("official/{set}.jsonl.gz"));
        for c in official::read_captions(&path, Some(120)).expect("shared analyses") {
            let caption = c.text.as_str();
            let official: std::collections::BTreeSet<Vec<String>> = c.tuples.into_iter().collect();
            let ours: std::collections::BTreeSet<Vec<String>> = engine
                .caption_proposals(caption)
                .expect("proposals")
                .iter()
                .map(spice::fidelity::printed_proposal)
                .collect();
            captions += 1;
            if ours != official {
                wrong.push(format!(
                    "{set}: {caption}\n  official only {:?}\n  ours only     {:?}",
                    official.difference(&ours).collect::<Vec<_>>(),
                    ours.difference(&official).collect::<Vec<_>>()
                ));
            }
        }
    }
    assert_eq!(captions, 600);
    assert!(
        wrong.is_empty(),
        "{} of {captions} captions differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
