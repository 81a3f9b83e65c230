//! Fidelity report: how close our SPICE is to the official jar on the only evidence we have
//! (`../shared/fidelity`, see its README).
//!
//! Usage: `cargo run --release -p spice --example fidelity -- [FIDELITY_DIR]`
//! (default: `../shared/fidelity` next to the repository). `scripts/fidelity-report` runs it.
//! Every evidence file is split in two by a committed hash of the caption ([`Half`]): tune on
//! the `tuning` rows, report the `held-out` ones. With `FIDELITY_DIFFS=1` it also lists, on
//! standard error, the tuning captions we do not reproduce; `FIDELITY_FOLD=K` reports fold K of
//! the tuning half of the parser cache only (for choosing settings on the other fold).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use spice::fidelity::{self, Half};
use spice::{Engine, EngineOptions};

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
    println!("Flickr8K: official per-caption counts (flickr8k/), both input forms; halves by candidate\n");
    println!("| input | half | captions | exact tp/fp/fn | same reference tuple count | mean abs. error of F | mean F (official) |");
    println!("|---|---|---|---|---|---|---|");
    for (name, file) in [
        ("raw", "input_raw.json"),
        ("ptb_tokenized", "input_ptb_tokenized.json"),
    ] {
        for half in [Half::Tuning, Half::HeldOut] {
            let a = fidelity::flickr8k(&engine, &dir, file, Some(half))?;
            println!(
                "| {name} | {} | {} | {:.1} % | {:.1} % | {:.4} | {:.4} ({:.4}) |",
                half.name(),
                a.captions,
                100.0 * a.exact_share(),
                100.0 * a.same_reference_share(),
                a.mean_abs_error_f,
                a.mean_f,
                a.official_mean_f
            );
        }
    }
    println!("\nofficial parser graphs (spice-parser-graphs/)\n");
    println!("| half | captions | reproduced exactly | tuple precision / recall |");
    println!("|---|---|---|---|");
    for half in [Half::Tuning, Half::HeldOut] {
        let g = fidelity::parser_graphs(&engine, &dir, Some(half))?;
        // Differences of the tuning half only: the held-out half is not for looking at.
        if half == Half::Tuning && std::env::var_os("FIDELITY_DIFFS").is_some() {
            for (caption, ours, theirs) in &g.differences {
                eprintln!(
                    "{caption}\n  ours only:   {}\n  theirs only: {}",
                    ours.join(" "),
                    theirs.join(" ")
                );
            }
        }
        println!(
            "| {} | {} | {:.1} % | {:.3} / {:.3} |",
            half.name(),
            g.captions,
            100.0 * g.exact_share(),
            g.precision,
            g.recall
        );
    }
    parser_cache_table(&engine, &dir)
}

/// Mean pseudo-image SPICE F with our proposals, the official one and how far ours reads off.
fn pseudo(a: &fidelity::CacheAgreement) -> String {
    format!(
        "{:.4} ({:.4}, {:+.1} %)",
        a.mean_f,
        a.official_mean_f,
        100.0 * (a.mean_f / a.official_mean_f - 1.0)
    )
}

/// The official parser's own proposals on COCO-form captions (`official-parser-cache/`), per
/// file and per half of the committed hash split.
fn parser_cache_table(engine: &Engine, dir: &Path) -> Result<(), String> {
    println!(
        "\nofficial parser proposals on the pycocoevalcap form (official-parser-cache/; P / R = tuple precision / recall;\npseudo-image SPICE: each caption against its 5 nearest captions of the same half, our tuples and the official ones)\n"
    );
    println!("| file | half | captions | exact proposal set | objects P / R | attributes P / R | relations P / R | all P / R | pseudo-image SPICE (official) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    // FIDELITY_FOLD=K: only fold K of the tuning half (settings chosen on the other fold).
    let fold: Option<usize> = std::env::var("FIDELITY_FOLD")
        .ok()
        .and_then(|v| v.parse().ok());
    for file in ["captions-a.jsonl", "captions-b.jsonl"] {
        let entries = fidelity::read_parser_cache(&dir.join("official-parser-cache").join(file))?;
        if let Some(k) = fold {
            let a = fidelity::parser_cache_where(engine, &entries, |c| {
                Half::of(c) == Half::Tuning && Half::fold(c) == k
            });
            println!(
                "| {file} | tuning fold {k} | {} | {:.1} % | | | | {:.3} / {:.3} | {} |",
                a.captions,
                100.0 * a.exact_share(),
                a.total().precision(),
                a.total().recall(),
                pseudo(&a)
            );
            if std::env::var_os("FIDELITY_DIFFS").is_some() {
                for (caption, ours, theirs) in &a.differences {
                    eprintln!(
                        "[{file}] {caption}\n  ours only:   {}\n  theirs only: {}",
                        ours.join(" "),
                        theirs.join(" ")
                    );
                }
            }
            continue;
        }
        for half in [Half::Tuning, Half::HeldOut] {
            let a = fidelity::parser_cache(engine, &entries, half);
            let pr =
                |k: fidelity::KindAgreement| format!("{:.3} / {:.3}", k.precision(), k.recall());
            println!(
                "| {file} | {} | {} | {:.1} % | {} | {} | {} | {} | {} |",
                half.name(),
                a.captions,
                100.0 * a.exact_share(),
                pr(a.kinds[0]),
                pr(a.kinds[1]),
                pr(a.kinds[2]),
                pr(a.total()),
                pseudo(&a)
            );
            // Differences of the tuning half only: the held-out half is not for looking at.
            if half == Half::Tuning && std::env::var_os("FIDELITY_DIFFS").is_some() {
                for (caption, ours, theirs) in &a.differences {
                    eprintln!(
                        "[{file}] {caption}\n  ours only:   {}\n  theirs only: {}",
                        ours.join(" "),
                        theirs.join(" ")
                    );
                }
            }
        }
    }
    Ok(())
}
