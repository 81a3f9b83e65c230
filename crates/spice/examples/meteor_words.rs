//! What our METEOR makes of each line of standard input, in the form of the jar-side oracle
//! `tests/oracles/MeteorNormalizer.java`: the line normalised as `-norm` does (lowercased), a tab,
//! and the Snowball English stem of each of its words. `scripts/parity-metrics` compares the two
//! on every COCO 2014 caption.
//!
//! ```text
//! cargo run --release -p spice --example meteor_words < captions.txt
//! ```

use std::io::{BufRead, BufWriter, Write};
use std::process::ExitCode;

use spice::metrics::meteor::Meteor;

fn main() -> ExitCode {
    let meteor = match Meteor::shared() {
        Ok(m) => m,
        Err(e) => {
            eprintln!("meteor_words: {e}");
            return ExitCode::from(1);
        }
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else {
            eprintln!("meteor_words: standard input is not UTF-8 text");
            return ExitCode::from(1);
        };
        let norm = meteor.normalize(&line);
        let stems: Vec<String> = norm
            .split(' ')
            .filter(|w| !w.is_empty())
            .map(|w| meteor.stem(w).into_owned())
            .collect();
        if writeln!(out, "{norm}\t{}", stems.join(" ")).is_err() {
            return ExitCode::from(1);
        }
    }
    if out.flush().is_err() {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
