//! Fidelity report: how close our SPICE is to the official jar on the only evidence we have
//! (`../shared/fidelity`, see its README).
//!
//! Usage: `cargo run --release -p spice --example fidelity -- [FIDELITY_DIR]`
//! (default: `../shared/fidelity` next to the repository). `scripts/fidelity-report` runs it;
//! with `FIDELITY_DIFFS=1` it also lists the graphs we do not reproduce, on standard error.

use std::path::PathBuf;
use std::process::ExitCode;

use spice::{fidelity, Engine, EngineOptions};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fidelity: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fidelity")
        });
    let engine = Engine::new(EngineOptions::default());
    println!("| input | exact tp/fp/fn | same reference tuple count | mean abs. error of F | mean F (official) |");
    println!("|---|---|---|---|---|");
    for (name, file) in [
        ("raw", "input_raw.json"),
        ("ptb_tokenized", "input_ptb_tokenized.json"),
    ] {
        let a = fidelity::flickr8k(&engine, &dir, file)?;
        println!(
            "| {name} | {:.1} % | {:.1} % | {:.4} | {:.4} ({:.4}) |",
            100.0 * a.exact_share(),
            100.0 * a.same_reference_share(),
            a.mean_abs_error_f,
            a.mean_f,
            a.official_mean_f
        );
    }
    let g = fidelity::parser_graphs(&engine, &dir)?;
    if std::env::var_os("FIDELITY_DIFFS").is_some() {
        for (caption, ours, theirs) in &g.differences {
            eprintln!(
                "{caption}\n  ours only:   {}\n  theirs only: {}",
                ours.join(" "),
                theirs.join(" ")
            );
        }
    }
    println!(
        "\nofficial parser graphs: {} captions, {:.1} % reproduced exactly, tuple precision {:.3}, recall {:.3}",
        g.captions,
        100.0 * g.exact_share(),
        g.precision,
        g.recall
    );
    Ok(())
}
