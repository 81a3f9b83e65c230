//! How far several trained corrections would go together: for each caption of one fold of the
//! parser cache's tuning half, the proposals of each set of corrections (trained on the *other*
//! fold, e.g. with different shuffle seeds), then two choices among them per caption: the
//! minimum-Bayes-risk one (the proposals that agree most, by tuple F, with the others'), and the
//! oracle (the proposals closest to the official ones, which no parser can know). The oracle
//! bounds what any way of combining these models' outputs could reach.
//!
//! ```text
//! cargo run --release -p spice --example ensemble_oracle -- FOLD CACHE_DIR \
//!     P1.bin T1.bin P2.bin T2.bin [P3.bin T3.bin ...]
//! ```
//!
//! P*.bin and T*.bin are parser and tagger corrections of `train_coco --train-fold 1-FOLD`
//! (`scripts/fold-experiment` keeps them as `$FOLDS/NAME-sSEED-{p,t}K.bin`).

use std::path::Path;
use std::process::ExitCode;

use rayon::prelude::*;
use spice::fidelity::{self, Half, TupleSet};
use spice::{parse, parse_with, proposals_of, Engine, EngineOptions, Proposal};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ensemble_oracle: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Tuple F of two proposal sets (1 when both are empty).
fn tuple_f(a: &TupleSet, b: &TupleSet) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    2.0 * a.intersection(b).count() as f64 / (a.len() + b.len()) as f64
}

/// The index of the largest of `n` scores (the first on ties).
fn best_of(n: usize, score: impl Fn(usize) -> f64) -> usize {
    (0..n).fold(0, |best, i| if score(i) > score(best) { i } else { best })
}

/// One model's proposals of a caption, and their printed set.
type Output = (Vec<Proposal>, TupleSet);

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [fold, cache, models @ ..] = args.as_slice() else {
        return Err("usage: ensemble_oracle FOLD CACHE_DIR P1 T1 P2 T2 [...]".into());
    };
    if models.len() < 4 || models.len() % 2 != 0 {
        return Err("give two or more pairs of parser and tagger corrections".into());
    }
    let fold: usize = fold
        .parse()
        .ok()
        .filter(|&f| f < 2)
        .ok_or_else(|| format!("fold {fold:?} is not 0 or 1"))?;
    let models = models
        .chunks(2)
        .map(|pair| parse::models_with_corrections(Path::new(&pair[0]), Path::new(&pair[1])))
        .collect::<Result<Vec<_>, _>>()?;
    let n = models.len();
    let engine = Engine::new(EngineOptions::default());
    for file in ["captions-a.jsonl", "captions-b.jsonl"] {
        let entries: Vec<_> = fidelity::read_parser_cache(&Path::new(cache).join(file))?
            .into_iter()
            .filter(|e| Half::of(&e.caption) == Half::Tuning && Half::fold(&e.caption) == fold)
            .collect();
        // Per caption: the official set, and each model's proposals and their set.
        let outputs: Vec<(TupleSet, Vec<Output>)> = entries
            .par_iter()
            .map(|e| {
                let ours = models
                    .iter()
                    .map(|(tagger, parser)| {
                        let proposals: Vec<Proposal> = parse_with(tagger, parser, &e.caption)
                            .into_iter()
                            .flat_map(proposals_of)
                            .collect();
                        let set = proposals.iter().map(fidelity::printed_proposal).collect();
                        (proposals, set)
                    })
                    .collect();
                (e.tuples.iter().cloned().collect(), ours)
            })
            .collect();
        let captions: Vec<&str> = entries.iter().map(|e| e.caption.as_str()).collect();
        let report = |name: &str, pick: &dyn Fn(&TupleSet, &[Output]) -> usize| {
            let (mut exact, mut common, mut ours, mut theirs) = (0, 0, 0, 0);
            let mut chosen = Vec::new();
            for (official, outs) in &outputs {
                let (proposals, set) = &outs[pick(official, outs)];
                exact += usize::from(set == official);
                common += set.intersection(official).count();
                ours += set.len();
                theirs += official.len();
                chosen.push(proposals.clone());
            }
            println!(
                "| {file} | fold {fold} | {name} | {:.1} % | {:.3} / {:.3} | {:.4} |",
                100.0 * exact as f64 / captions.len().max(1) as f64,
                common as f64 / ours.max(1) as f64,
                common as f64 / theirs.max(1) as f64,
                fidelity::pseudo_image_f(&engine, &captions, &chosen),
            );
        };
        println!("| file | measured on | choice | exact | tuple P / R | pseudo-image F |");
        println!("|---|---|---|---|---|---|");
        for m in 0..n {
            report(&format!("model {}", m + 1), &|_, _| m);
        }
        report("minimum Bayes risk", &|_, outs| {
            best_of(n, |a| {
                outs.iter().map(|(_, s)| tuple_f(&outs[a].1, s)).sum()
            })
        });
        report("oracle", &|official, outs| {
            best_of(n, |a| tuple_f(&outs[a].1, official))
        });
        let official: Vec<Vec<Proposal>> = entries
            .iter()
            .map(|e| e.tuples.iter().map(fidelity::unprinted_proposal).collect())
            .collect();
        println!(
            "official pseudo-image F: {:.4}\n",
            fidelity::pseudo_image_f(&engine, &captions, &official)
        );
    }
    Ok(())
}
