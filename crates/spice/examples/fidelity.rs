//! Fidelity report: how close our SPICE is to the official jar on the only evidence we have
//! (`../shared/fidelity`, see its README).
//!
//! Usage: `cargo run --release -p spice --example fidelity -- [FIDELITY_DIR]`
//! (default: `../shared/fidelity` next to the repository). `scripts/fidelity-report` runs it.
//! Every evidence file is split in two by a committed hash of the caption ([`Half`]): tune on
//! the `tuning` rows, report the `held-out` ones. With `FIDELITY_DIFFS=1` it also lists, on
//! standard error, the tuning captions we do not reproduce.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use spice::corenlp::PcfgParser;
use spice::fidelity::{self, Half};
use spice::{Engine, EngineOptions, FrontEnd};

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
    let engines = front_ends(&dir)?;
    println!("Flickr8K: official per-caption counts (flickr8k/), both input forms; halves by candidate\n");
    println!("| input | half | front end | captions | exact tp/fp/fn | same reference tuple count | mean abs. error of F | mean F (official) |");
    println!("|---|---|---|---|---|---|---|---|");
    for (name, file) in [
        ("raw", "input_raw.json"),
        ("ptb_tokenized", "input_ptb_tokenized.json"),
    ] {
        for half in [Half::Tuning, Half::HeldOut] {
            for (front, engine) in &engines {
                let a = fidelity::flickr8k(engine, &dir, file, Some(half))?;
                println!(
                    "| {name} | {} | {front} | {} | {:.1} % | {:.1} % | {:.4} | {:.4} ({:.4}) |",
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
    }
    println!("\nofficial parser graphs (spice-parser-graphs/)\n");
    println!("| half | front end | captions | reproduced exactly | tuple precision / recall |");
    println!("|---|---|---|---|---|");
    for half in [Half::Tuning, Half::HeldOut] {
        for (front, engine) in &engines {
            let g = fidelity::parser_graphs(engine, &dir, Some(half))?;
            // Differences of the tuning half only: the held-out half is not for looking at.
            if half == Half::Tuning
                && *front == BUILT_IN
                && std::env::var_os("FIDELITY_DIFFS").is_some()
            {
                for (caption, ours, theirs) in &g.differences {
                    eprintln!(
                        "{caption}\n  ours only:   {}\n  theirs only: {}",
                        ours.join(" "),
                        theirs.join(" ")
                    );
                }
            }
            println!(
                "| {} | {front} | {} | {:.1} % | {:.3} / {:.3} |",
                half.name(),
                g.captions,
                100.0 * g.exact_share(),
                g.precision,
                g.recall
            );
        }
    }
    for (front, engine) in &engines {
        parser_cache_table(front, engine, &dir)?;
    }
    exact_treebank_table(&engines)
}

const BUILT_IN: &str = "built-in";

/// The built-in front end, and the exact pipeline when CoreNLP's model is at hand
/// (`SPICE_CORENLP_MODELS`, else `corenlp/englishPCFG.ser.gz` beside the fidelity directory;
/// `FIDELITY_FRONT_ENDS=built-in` leaves it out).
fn front_ends(dir: &Path) -> Result<Vec<(&'static str, Engine)>, String> {
    let mut engines = vec![(BUILT_IN, Engine::new(EngineOptions::default()))];
    if std::env::var("FIDELITY_FRONT_ENDS").is_ok_and(|v| v == BUILT_IN) {
        return Ok(engines);
    }
    let model = std::env::var_os("SPICE_CORENLP_MODELS")
        .map(PathBuf::from)
        .unwrap_or_else(|| dir.join("../corenlp/englishPCFG.ser.gz"));
    if !model.exists() {
        println!(
            "(exact pipeline left out: no CoreNLP model at {})\n",
            model.display()
        );
        return Ok(engines);
    }
    let parser =
        PcfgParser::load_shared(&model).map_err(|e| format!("{}: {e}", model.display()))?;
    engines.push((
        "exact",
        Engine::new(EngineOptions {
            front_end: FrontEnd::CoreNlp(parser),
            ..EngineOptions::default()
        }),
    ));
    Ok(engines)
}

/// The built-in front end against the exact pipeline on the held-out captions of the exact
/// treebank (`scripts/make-exact-treebank`), when both are at hand.
fn exact_treebank_table(engines: &[(&'static str, Engine)]) -> Result<(), String> {
    let [(_, builtin), (_, exact)] = engines else {
        return Ok(());
    };
    let data = std::env::var_os("SPICEBOARD_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/spiceboard/data")
        });
    let dir = data.join("exact-treebank");
    if !dir.join("heldout.raw.conllu").exists() {
        println!(
            "\n(no exact treebank in {}: scripts/make-exact-treebank writes it)",
            dir.display()
        );
        return Ok(());
    }
    println!("\nthe built-in front end against the exact pipeline, COCO train2014 held-out captions (exact-treebank/heldout.*)\n");
    println!("| input | captions | same proposals | tuple precision / recall |");
    println!("|---|---|---|---|");
    let proposals = |engine: &Engine, c: &str| engine.caption_proposals(c).unwrap_or_default();
    for form in ["raw", "coco", "lemma"] {
        let path = dir.join(format!("heldout.{form}.conllu"));
        if !path.exists() {
            continue;
        }
        let texts = fidelity::treebank_texts(&path, usize::MAX)?;
        let a = fidelity::front_end_agreement(
            &texts,
            |c| proposals(builtin, c),
            |c| proposals(exact, c),
        );
        println!(
            "| {form} | {} | {:.1} % | {:.3} / {:.3} |",
            a.captions,
            100.0 * a.same_share(),
            a.precision(),
            a.recall()
        );
    }
    Ok(())
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
fn parser_cache_table(front: &str, engine: &Engine, dir: &Path) -> Result<(), String> {
    println!(
        "\n{front} front end: official parser proposals on the pycocoevalcap form (official-parser-cache/; P / R = tuple precision / recall;\npseudo-image SPICE: each caption against its 5 nearest captions of the same half, our tuples and the official ones)\n"
    );
    println!("| file | half | captions | exact proposal set | objects P / R | attributes P / R | relations P / R | all P / R | pseudo-image SPICE (official) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for file in ["captions-a.jsonl", "captions-b.jsonl"] {
        let entries = fidelity::read_parser_cache(&dir.join("official-parser-cache").join(file))?;
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
