//! Fidelity report: how close our SPICE is to the official jar on the only evidence we have
//! (`../shared/fidelity`, see its README).
//!
//! Usage: `cargo run --release -p spice --example fidelity -- [FIDELITY_DIR]`
//! (default: `../shared/fidelity` next to the repository). `scripts/fidelity-report` runs it.
//!
//! Prints, for both input forms (raw and PTB-tokenized): exact tp/fp/fn agreement per caption,
//! agreement of the reference tuple count (tp + fn), mean absolute error of F, and our corpus
//! mean F against the official one; then graph agreement on the official parser graphs.

use std::collections::{BTreeSet, HashMap};
use std::process::ExitCode;

use serde_json::Value;
use spice::batch;
use spice::{Engine, EngineOptions, Proposal};

#[derive(Default)]
struct Official {
    tp: u64,
    fp: u64,
    fn_: u64,
    f: f64,
}

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
    let dir = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fidelity").to_string()
    });
    let engine = Engine::new(EngineOptions::default());
    let official = read_official(&format!("{dir}/flickr8k/official_per_caption.jsonl"))?;
    println!("| input | exact tp/fp/fn | same reference tuple count | mean abs. error of F | mean F (official) |");
    println!("|---|---|---|---|---|");
    for (name, file) in [
        ("raw", "input_raw.json"),
        ("ptb_tokenized", "input_ptb_tokenized.json"),
    ] {
        let path = format!("{dir}/flickr8k/{file}");
        let f = std::fs::File::open(&path).map_err(|e| format!("{path}: {e}"))?;
        let items = batch::read_input(f, &path).map_err(|e| e.to_string())?;
        let result = batch::evaluate(&engine, &items, false).map_err(|e| e.to_string())?;
        let (mut exact, mut same_ref, mut abs_err, mut ours_f, mut their_f, mut n) =
            (0, 0, 0.0, 0.0, 0.0, 0);
        for r in &result.items {
            let key = id_key(&r.image_id);
            let Some(o) = official.get(&key) else {
                return Err(format!("no official row for image {key}"));
            };
            let s = r.scores.all;
            exact += usize::from(
                (u64::from(s.tp), u64::from(s.fp), u64::from(s.fn_)) == (o.tp, o.fp, o.fn_),
            );
            same_ref += usize::from(u64::from(s.tp + s.fn_) == o.tp + o.fn_);
            abs_err += (s.f - o.f).abs();
            ours_f += s.f;
            their_f += o.f;
            n += 1;
        }
        let pct = |k: usize| 100.0 * k as f64 / n as f64;
        println!(
            "| {name} | {:.1} % | {:.1} % | {:.4} | {:.4} ({:.4}) |",
            pct(exact),
            pct(same_ref),
            abs_err / n as f64,
            ours_f / n as f64,
            their_f / n as f64
        );
    }
    graphs(
        &engine,
        &format!("{dir}/spice-parser-graphs/SPICE_parsing_outputs.txt"),
    )
}

fn id_key(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn read_official(path: &str) -> Result<HashMap<String, Official>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut out = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let v: Value = serde_json::from_str(line).map_err(|e| format!("{path}:{}: {e}", n + 1))?;
        let num = |k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        let o = Official {
            tp: num("tp") as u64,
            fp: num("fp") as u64,
            fn_: num("fn") as u64,
            f: num("f"),
        };
        out.insert(id_key(v.get("image_id").unwrap_or(&Value::Null)), o);
    }
    Ok(out)
}

type TupleSet = BTreeSet<Vec<String>>;

/// The official file's graph text as a tuple set: `( a , is , b )` is an attribute. The file
/// prints bare objects only for graphs without any attribute or relation (no line mixes the two),
/// so the comparison is made on that printed form, see [`printed`].
fn official_tuples(graph: &str) -> TupleSet {
    let mut set = TupleSet::new();
    for part in graph.split(") ,").map(|p| {
        p.trim()
            .trim_start_matches('(')
            .trim_end_matches(')')
            .trim()
    }) {
        let elems: Vec<String> = part.split(" , ").map(|s| s.trim().to_string()).collect();
        match elems.as_slice() {
            [o] if !o.is_empty() => {
                set.insert(vec![o.clone()]);
            }
            [o, is, a] if is == "is" => {
                set.insert(vec![o.clone(), a.clone()]);
            }
            [s, r, o] => {
                set.insert(vec![s.clone(), r.clone(), o.clone()]);
            }
            _ => {}
        }
    }
    set
}

/// A tuple set as the official file prints it: attributes and relations when there are any,
/// otherwise the objects.
fn printed(set: TupleSet) -> TupleSet {
    if set.iter().any(|t| t.len() > 1) {
        set.into_iter().filter(|t| t.len() > 1).collect()
    } else {
        set
    }
}

/// Our scene graph (merged, as the official file prints it) as the same kind of tuple set, with
/// the relation in the middle.
fn our_tuples(engine: &Engine, props: &[Proposal]) -> TupleSet {
    let graph = engine.scene_graph_from_proposals([props]);
    spice::score::tuples(&graph).iter().map(|t| t.texts().into_iter().map(|w| w.trim().to_string()).collect()).collect()
}

fn graphs(engine: &Engine, path: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let (mut exact, mut n, mut common, mut ours_n, mut theirs_n) =
        (0usize, 0usize, 0usize, 0usize, 0usize);
    for line in text.lines() {
        let Some((caption, graph)) = line.split_once('\t') else {
            continue;
        };
        let theirs = official_tuples(graph);
        let props = engine
            .caption_proposals(caption)
            .map_err(|e| e.to_string())?;
        let ours = printed(our_tuples(engine, &props));
        if ours != theirs && std::env::var_os("FIDELITY_DIFFS").is_some() {
            let fmt = |s: &TupleSet| {
                s.iter()
                    .map(|t| format!("({})", t.join(", ")))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let only_ours: TupleSet = ours.difference(&theirs).cloned().collect();
            let only_theirs: TupleSet = theirs.difference(&ours).cloned().collect();
            eprintln!(
                "{caption}\n  ours only:   {}\n  theirs only: {}",
                fmt(&only_ours),
                fmt(&only_theirs)
            );
        }
        exact += usize::from(ours == theirs);
        common += ours.intersection(&theirs).count();
        ours_n += ours.len();
        theirs_n += theirs.len();
        n += 1;
    }
    println!(
        "\nofficial parser graphs: {n} captions, {:.1} % reproduced exactly, tuple precision {:.3}, recall {:.3}",
        100.0 * exact as f64 / n.max(1) as f64,
        common as f64 / ours_n.max(1) as f64,
        common as f64 / theirs_n.max(1) as f64
    );
    Ok(())
}
