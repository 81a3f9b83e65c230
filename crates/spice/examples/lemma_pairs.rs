//! Lemmatizes "word<TAB>tag[<TAB>...]" lines from stdin, one lemma per line on stdout; with
//! `--bench`, reports how long the lemmas took instead (read and write excluded).
//!
//!     cargo run --release --example lemma_pairs < pairs.tsv > ours.txt
//!     cargo run --release --example lemma_pairs -- --bench < pairs.tsv
//!
//! scripts/lemma-parity compares the output with CoreNLP's (scripts/oracle/LemmaOracle.java).
use std::io::{BufRead, BufWriter, Write};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bench = std::env::args().any(|a| a == "--bench");
    let stdin = std::io::stdin();
    let mut pairs = Vec::new();
    for (number, line) in stdin.lock().lines().enumerate() {
        let line = line?;
        let mut fields = line.split('\t');
        let word = fields.next().unwrap_or_default().to_string();
        let tag = fields
            .next()
            .ok_or_else(|| format!("stdin line {}: no tab after the word", number + 1))?
            .to_string();
        pairs.push((word, tag));
    }
    if bench {
        let load = Instant::now();
        spice::lemmatize::lemma("warm", "VB"); // loads the word lists
        println!(
            "first call (parses the word lists): {:.2} ms",
            load.elapsed().as_secs_f64() * 1e3
        );
        let rounds = 5;
        let start = Instant::now();
        let mut bytes = 0usize;
        for _ in 0..rounds {
            for (word, tag) in &pairs {
                bytes += spice::lemmatize::lemma(word, tag).len();
            }
        }
        let secs = start.elapsed().as_secs_f64();
        let calls = (pairs.len() * rounds) as f64;
        println!(
            "{} lemmas in {:.3} s: {:.1} ns per lemma ({} output bytes)",
            calls,
            secs,
            secs * 1e9 / calls,
            bytes
        );
        return Ok(());
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    for (word, tag) in &pairs {
        writeln!(out, "{}", spice::lemmatize::lemma(word, tag))?;
    }
    Ok(())
}
