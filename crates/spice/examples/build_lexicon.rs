//! Packs METEOR 1.5's synonym files into the compact lexicon the engine embeds.
//!
//! Usage: `cargo run -p spice --example build_lexicon -- METEOR_SYNONYM_DIR OUT_FILE`
//! (`scripts/build-lexicon` runs it on the files `scripts/fetch-data` unpacks).

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: build_lexicon METEOR_SYNONYM_DIR OUT_FILE");
        return ExitCode::from(2);
    }
    let read = |name: &str| -> Result<String, String> {
        let path = format!("{}/{name}", args[1]);
        let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    };
    let run = || -> Result<(), String> {
        let lex = spice::wordnet::Lexicon::from_meteor_files(
            &read("english.synsets")?,
            &read("english.exceptions")?,
        )
        .map_err(|e| e.to_string())?;
        let bytes = lex.to_compact();
        std::fs::write(&args[2], &bytes).map_err(|e| format!("cannot write {}: {e}", args[2]))?;
        eprintln!("{} words, {} bytes -> {}", lex.len(), bytes.len(), args[2]);
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("build_lexicon: {e}");
            ExitCode::FAILURE
        }
    }
}
