//! Parity of `spice::tokenize` with Stanford's own PTBTokenizer (stanford-corenlp-3.4.1.jar, the
//! jar pycocoevalcap ships) on about 59,000 COCO 2014 captions: every caption with a character
//! other than letters, digits, spaces and periods (the odd ones: quotes, clitics, brackets,
//! abbreviations, ...) plus every 40th of the plain ones.
//!
//! Both forms are checked: the tokenizer's own output (`-preserveLines`) and pycocoevalcap's
//! (`-preserveLines -lowerCase`, then its punctuation list removed). `scripts/parity-tokenizer`
//! runs the same comparison on all 616,767 captions.
//!
//! Needs `$SPICEBOARD_DATA` (scripts/fetch-data) and `java`.

use std::io::Write;
use std::path::Path;
use std::process::Command;

use serde::Deserialize;
use spice::tokenize::{tokenize_coco_batch, tokenize_lines};

mod common;

#[derive(Deserialize)]
struct Annotations {
    annotations: Vec<Annotation>,
}

#[derive(Deserialize)]
struct Annotation {
    caption: String,
}

const PUNCTUATIONS: [&str; 17] = [
    "''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-", "--",
    "...", ";",
];

fn read_captions(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e} (run scripts/fetch-data)",
            path.display()
        )
    });
    let parsed: Annotations = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not COCO annotation JSON: {e}", path.display()));
    parsed.annotations.into_iter().map(|a| a.caption).collect()
}

/// The deterministic sample: all odd captions plus every 40th plain one, in file order.
fn sample(data: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut plain = 0usize;
    for split in ["train", "val"] {
        let path = data.join(format!("coco/captions_{split}2014.json"));
        for c in read_captions(&path) {
            // As pycocoevalcap writes it: one caption a line.
            let c = c.replace('\n', " ");
            let odd = c
                .chars()
                .any(|ch| !(ch.is_ascii_alphanumeric() || ch == ' ' || ch == '.'));
            if odd {
                out.push(c);
            } else {
                if plain.is_multiple_of(40) {
                    out.push(c);
                }
                plain += 1;
            }
        }
    }
    out
}

/// Runs the oracle over `file` and returns its output lines.
fn oracle(jar: &Path, file: &Path, lower: bool) -> Vec<String> {
    let mut cmd = Command::new("java");
    cmd.arg("-cp")
        .arg(jar)
        .arg("edu.stanford.nlp.process.PTBTokenizer")
        .arg("-preserveLines");
    if lower {
        cmd.arg("-lowerCase");
    }
    let out = cmd.arg(file).output().unwrap_or_else(|e| {
        panic!("cannot run java (needed for the PTBTokenizer oracle; apt-get install default-jre-headless): {e}")
    });
    assert!(
        out.status.success(),
        "PTBTokenizer failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("PTBTokenizer prints UTF-8");
    text.split('\n').map(str::to_string).collect()
}

/// Compares line by line; prints the count and the first mismatches; returns the mismatch count.
fn report(name: &str, inputs: &[String], oracle: &[String], ours: &[String]) -> usize {
    let mut bad = 0;
    for (k, input) in inputs.iter().enumerate() {
        let want = oracle
            .get(k)
            .map(String::as_str)
            .unwrap_or("<missing line>");
        if want != ours[k] {
            if bad < 10 {
                eprintln!("[{name}] mismatch on caption {k}:\n  input : {input}\n  oracle: {want}\n  ours  : {}", ours[k]);
            }
            bad += 1;
        }
    }
    let same = inputs.len() - bad;
    println!(
        "{name}: {same}/{} identical ({:.4}%), {bad} mismatches",
        inputs.len(),
        100.0 * same as f64 / inputs.len() as f64
    );
    bad
}

#[test]
fn ptb_tokenizer_parity_on_coco_sample() {
    let data = common::data_dir("stanford-corenlp-3.4.1.jar");
    let jar = data.join("stanford-corenlp-3.4.1.jar");
    assert!(
        jar.is_file(),
        "{} is missing (run scripts/fetch-data)",
        jar.display()
    );
    let captions = sample(&data);
    assert!(
        captions.len() >= 50_000,
        "sample has only {} captions",
        captions.len()
    );

    // One caption a line, no newline after the last, exactly as pycocoevalcap writes its file.
    let file =
        std::env::temp_dir().join(format!("spice-tokenizer-parity-{}.txt", std::process::id()));
    {
        let mut f = std::fs::File::create(&file).expect("create temp file");
        f.write_all(captions.join("\n").as_bytes())
            .expect("write temp file");
    }
    let plain_oracle = oracle(&jar, &file, false);
    let lower_oracle = oracle(&jar, &file, true);
    let _ = std::fs::remove_file(&file);

    // -preserveLines: tokens of each line, space separated.
    let joined = captions.join("\n");
    let ours_plain: Vec<String> = tokenize_lines(&joined)
        .iter()
        .map(|l| {
            l.iter()
                .map(|t| t.text.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(
        ours_plain.len(),
        captions.len(),
        "one token line per caption"
    );

    // pycocoevalcap: -lowerCase, then its punctuation list dropped.
    let coco_oracle: Vec<String> = lower_oracle
        .iter()
        .map(|l| {
            l.trim_end()
                .split(' ')
                .filter(|w| !PUNCTUATIONS.contains(w))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let ours_coco = tokenize_coco_batch(&captions);

    let bad_plain = report(
        "PTBTokenizer -preserveLines",
        &captions,
        &plain_oracle,
        &ours_plain,
    );
    let bad_coco = report("pycocoevalcap form", &captions, &coco_oracle, &ours_coco);
    let allowed = captions.len() / 1000; // 99.9% identical
    assert!(
        bad_plain <= allowed,
        "{bad_plain} token sequences differ from PTBTokenizer (allowed {allowed})"
    );
    assert!(
        bad_coco <= allowed,
        "{bad_coco} pycocoevalcap lines differ (allowed {allowed})"
    );
}
