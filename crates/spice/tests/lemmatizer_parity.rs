//! Parity of `spice::lemmatize::lemma` with the lemmas SPICE's pipeline computes: Stanford CoreNLP
//! 3.6.0's `Morphology`, as `MorphaAnnotator` calls it.
//!
//! * `lemmas_equal_the_official_pipelines_on_every_shared_token`: the reference. Every token of
//!   the official pipeline's analyses (`../shared/corenlp/official/*.jsonl.gz`, 25,921 sentences:
//!   word, tag and lemma as CoreNLP 3.6.0 gave them) must get the official lemma. Skipped loudly
//!   without `../shared`; a failure with `CI` set.
//! * `lemmas_agree_with_corenlp_morphology_on_coco_words`: a broad sample (every word form that
//!   occurs at least `MIN_COUNT` times in the COCO val2014 captions, split roughly on whitespace,
//!   punctuation and clitics, both as written and lowercased, each with the sixteen open-class tags
//!   a tagger could give it, the most frequent forms also with the closed-class tags; about
//!   200,000 pairs) against the `Morphology` of the jar `scripts/fetch-data` unpacks, run through
//!   the machine's `java` (scripts/oracle/LemmaOracle.java). That jar is CoreNLP **3.4.1**, whose
//!   analyser differs from 3.6.0's (compare the two versions' `Morpha.flex`) in: the noun rules,
//!   which 3.4.1 entered on a tag `N`/`NN` + a letter other than `P` and 3.6.0 only on `NN` + a
//!   letter other than `P`, so a bare `NN` is no longer stemmed ("men" stays "men"); a few verb,
//!   modal and adverb forms 3.6.0 added ("no"/VB -> "know", "'ll"/MD -> "will", "n"/RB -> "not",
//!   ...); and the noun "topoi". The test leaves those pairs out (`changed_after_341`) and
//!   compares the rest, where the two versions give the same lemmas. With `SPICE_MORPHA_CLASSES`
//!   naming a directory of classes of 3.6.0's own `edu.stanford.nlp.process.Morpha` and
//!   `Morphology` (built from CoreNLP's source with JFlex), they go first on the class path and
//!   every pair is compared.
//!
//! `scripts/lemma-parity` runs the 3.4.1 comparison over three million pairs.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use spice::corenlp::official;
use spice::lemmatize::lemma;

mod common;

const MIN_COUNT: usize = 3;
const FREQUENT: usize = 3000;
const REQUIRED_AGREEMENT: f64 = 99.9;

const OPEN_TAGS: [&str; 16] = [
    "NN", "NNS", "NNP", "NNPS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "JJ", "JJR", "JJS", "RB",
    "RBR", "RBS",
];
const OTHER_TAGS: [&str; 18] = [
    "IN", "DT", "PRP", "PRP$", "CD", "MD", "CC", "RP", "TO", "EX", "WDT", "WP", "WRB", "PDT",
    "POS", "UH", "FW", "SYM",
];

/// Rough caption tokens: whitespace split, leading/trailing punctuation and clitics split off.
fn tokens(caption: &str, out: &mut Vec<String>) {
    const LEAD: &[char] = &['"', '\'', '`', '(', '[', '{', '<'];
    const TRAIL: &[char] = &[
        '"', '\'', '`', ')', ']', '}', '>', '.', ',', '!', '?', ';', ':',
    ];
    const CLITICS: [&str; 7] = ["n't", "'s", "'re", "'ve", "'ll", "'d", "'m"];
    for raw in caption.split_whitespace() {
        let mut word = raw;
        while let Some(c) = word.chars().next().filter(|c| LEAD.contains(c)) {
            out.push(c.to_string());
            word = &word[c.len_utf8()..];
        }
        let mut tail = Vec::new();
        while let Some(c) = word.chars().last().filter(|c| TRAIL.contains(c)) {
            tail.push(c.to_string());
            word = &word[..word.len() - c.len_utf8()];
        }
        if !word.is_empty() {
            let lower = word.to_lowercase();
            match CLITICS
                .iter()
                .find(|c| lower.ends_with(*c) && lower.len() > c.len())
            {
                Some(c) if word.is_char_boundary(word.len() - c.len()) => {
                    let (head, clitic) = word.split_at(word.len() - c.len());
                    out.push(head.to_string());
                    out.push(clitic.to_string());
                }
                _ => out.push(word.to_string()),
            }
        }
        out.extend(tail.into_iter().rev());
    }
}

fn sample_pairs(data: &Path) -> Vec<(String, &'static str)> {
    let path = data.join("coco").join("captions_val2014.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let json: serde_json::Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
    let annotations = json["annotations"]
        .as_array()
        .unwrap_or_else(|| panic!("{}: no \"annotations\" array", path.display()));
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut toks = Vec::new();
    for ann in annotations {
        toks.clear();
        tokens(ann["caption"].as_str().unwrap_or_default(), &mut toks);
        for tok in &toks {
            let lower = tok.to_lowercase();
            if lower != *tok {
                *counts.entry(lower).or_default() += 1;
            }
            *counts.entry(tok.clone()).or_default() += 1;
        }
    }
    let mut ranked: Vec<(String, usize)> = counts
        .into_iter()
        .filter(|(w, c)| *c >= MIN_COUNT && !w.contains(['\t', '\n']))
        .collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut pairs = Vec::new();
    for (rank, (word, _)) in ranked.into_iter().enumerate() {
        for tag in OPEN_TAGS {
            pairs.push((word.clone(), tag));
        }
        if rank < FREQUENT {
            for tag in OTHER_TAGS {
                pairs.push((word.clone(), tag));
            }
        }
    }
    pairs
}

fn oracle_lemmas(data: &Path, pairs: &[(String, &'static str)]) -> Vec<String> {
    let jar = data.join("stanford-corenlp-3.4.1.jar");
    assert!(
        jar.exists(),
        "{} is missing: run scripts/fetch-data",
        jar.display()
    );
    let oracle =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/oracle/LemmaOracle.java");
    let mut input = String::new();
    for (word, tag) in pairs {
        input.push_str(word);
        input.push('\t');
        input.push_str(tag);
        input.push('\n');
    }
    let mut class_path = std::ffi::OsString::new();
    if let Some(classes) = morpha_360_classes() {
        class_path.push(classes);
        class_path.push(":");
    }
    class_path.push(&jar);
    let mut child = Command::new("java")
        .arg("-cp")
        .arg(&class_path)
        .arg(&oracle)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run `java` (the CoreNLP oracle needs it): {e}"));
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child
        .wait_with_output()
        .expect("java oracle did not finish");
    writer
        .join()
        .expect("writer thread panicked")
        .expect("cannot write to the java oracle");
    assert!(
        output.status.success(),
        "java oracle failed: {}",
        output.status
    );
    let text = String::from_utf8(output.stdout).expect("oracle output is UTF-8");
    let lemmas: Vec<String> = text.lines().map(str::to_string).collect();
    assert_eq!(
        lemmas.len(),
        pairs.len(),
        "oracle answered a different number of lines"
    );
    lemmas
}

#[test]
fn lemmas_agree_with_corenlp_morphology_on_coco_words() {
    let data = common::data_dir("stanford-corenlp-3.4.1.jar");
    let pairs = sample_pairs(&data);
    assert!(
        pairs.len() > 100_000,
        "sample unexpectedly small: {}",
        pairs.len()
    );
    let expected = oracle_lemmas(&data, &pairs);
    let (pairs, expected): (Vec<_>, Vec<_>) = if morpha_360_classes().is_some() {
        pairs.into_iter().zip(expected).unzip()
    } else {
        pairs
            .into_iter()
            .zip(expected)
            .filter(|((word, tag), _)| !changed_after_341(word, tag))
            .unzip()
    };
    let mut mismatches = Vec::new();
    for ((word, tag), want) in pairs.iter().zip(&expected) {
        let got = lemma(word, tag);
        if &got != want {
            mismatches.push(format!("{word}/{tag}: CoreNLP {want:?}, ours {got:?}"));
        }
    }
    let agreement = 100.0 * (pairs.len() - mismatches.len()) as f64 / pairs.len() as f64;
    println!(
        "lemmatizer parity: {} of {} pairs agree ({agreement:.3}%)",
        pairs.len() - mismatches.len(),
        pairs.len()
    );
    for m in mismatches.iter().take(30) {
        println!("  {m}");
    }
    assert!(
        agreement >= REQUIRED_AGREEMENT,
        "agreement {agreement:.3}% is below {REQUIRED_AGREEMENT}%; first mismatches:\n{}",
        mismatches
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// `SPICE_MORPHA_CLASSES`: classes of CoreNLP 3.6.0's analyser to put before the 3.4.1 jar.
fn morpha_360_classes() -> Option<std::ffi::OsString> {
    std::env::var_os("SPICE_MORPHA_CLASSES").filter(|v| !v.is_empty())
}

/// Whether CoreNLP 3.6.0's analyser answers otherwise than 3.4.1's for this pair (see the module
/// doc): a bare `NN`, and the forms with rules new in 3.6.0.
fn changed_after_341(word: &str, tag: &str) -> bool {
    let lower = word.to_lowercase();
    // A verb's rules read the part after its last hyphen.
    let last = lower.rsplit('-').next().unwrap_or_default();
    match tag {
        "NN" => true,
        "NNS" => lower == "topoi",
        "VBZ" if lower == "s" => true,
        "MD" => matches!(lower.as_str(), "d" | "'ll" | "ll" | "wilt"),
        _ if tag.starts_with("VB") => {
            matches!(last, "re" | "m" | "r" | "ve" | "v" | "no" | "du")
        }
        _ if tag.starts_with("RB") => lower == "n",
        _ => false,
    }
}

#[test]
fn lemmas_equal_the_official_pipelines_on_every_shared_token() {
    let Some(dir) = common::corenlp_dir() else {
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(dir.join("official"))
        .expect("../shared/corenlp/official")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".jsonl.gz"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no official analyses in {}",
        dir.display()
    );
    let (mut sentences, mut tokens) = (0usize, 0usize);
    let mut mismatches: Vec<String> = Vec::new();
    for file in &files {
        for s in official::read(file, None).expect("official analyses") {
            sentences += 1;
            assert_eq!(s.words.len(), s.tags.len(), "{}", file.display());
            assert_eq!(s.words.len(), s.lemmas.len(), "{}", file.display());
            for ((word, tag), want) in s.words.iter().zip(&s.tags).zip(&s.lemmas) {
                tokens += 1;
                let got = lemma(word, tag);
                if &got != want {
                    mismatches.push(format!("{word}/{tag}: official {want:?}, ours {got:?}"));
                }
            }
        }
    }
    println!(
        "lemmas: {} of {tokens} tokens of {sentences} official sentences agree",
        tokens - mismatches.len()
    );
    assert!(
        sentences >= 25_000,
        "expected the 25,921 official sentences, read {sentences}"
    );
    assert!(
        mismatches.is_empty(),
        "{} tokens get another lemma than CoreNLP 3.6.0's:\n{}",
        mismatches.len(),
        mismatches
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
