//! Agreement with the official SPICE jar on the evidence of its outputs (`../shared/fidelity`).
//!
//! In: the fidelity directory (official per-caption counts on Flickr8K, the official parser's
//! scene graphs of 1,743 captions). Out: the measures of the README's fidelity table, computed by
//! running this engine on the same inputs. `scripts/fidelity-report` prints them, and a test keeps
//! them from falling back.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use serde_json::Value;

use crate::{batch, Engine};

/// Per-caption agreement with the official jar on one Flickr8K input form.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountAgreement {
    pub captions: usize,
    /// Same tp, fp and fn.
    pub exact: usize,
    /// Same number of reference tuples (tp + fn).
    pub same_reference_count: usize,
    pub mean_abs_error_f: f64,
    pub mean_f: f64,
    pub official_mean_f: f64,
}

impl CountAgreement {
    pub fn exact_share(&self) -> f64 {
        self.exact as f64 / self.captions.max(1) as f64
    }
    pub fn same_reference_share(&self) -> f64 {
        self.same_reference_count as f64 / self.captions.max(1) as f64
    }
}

/// Agreement with the official parser graphs.
#[derive(Debug, Clone, Default)]
pub struct GraphAgreement {
    pub captions: usize,
    pub exact: usize,
    pub precision: f64,
    pub recall: f64,
    /// For each caption we do not reproduce: (caption, tuples only we give, tuples only they give).
    pub differences: Vec<(String, Vec<String>, Vec<String>)>,
}

impl GraphAgreement {
    pub fn exact_share(&self) -> f64 {
        self.exact as f64 / self.captions.max(1) as f64
    }
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn id_key(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Scores `flickr8k/<input>` (`input_raw.json` or `input_ptb_tokenized.json`) and compares each
/// caption with `flickr8k/official_per_caption.jsonl`; with `half`, only the items whose
/// candidate caption falls in it.
pub fn flickr8k(
    engine: &Engine,
    dir: &Path,
    input: &str,
    half: Option<Half>,
) -> Result<CountAgreement, String> {
    let official_path = dir.join("flickr8k/official_per_caption.jsonl");
    let mut official: HashMap<String, (i64, i64, i64, f64)> = HashMap::new();
    for (n, line) in read(&official_path)?.lines().enumerate() {
        let v: Value = serde_json::from_str(line)
            .map_err(|e| format!("{}:{}: {e}", official_path.display(), n + 1))?;
        let num = |k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        let row = (
            num("tp") as i64,
            num("fp") as i64,
            num("fn") as i64,
            num("f"),
        );
        official.insert(id_key(v.get("image_id").unwrap_or(&Value::Null)), row);
    }
    let path = dir.join("flickr8k").join(input);
    let file = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut items = batch::read_input(file, &path.display().to_string())
        .map_err(|e| e.to_string())?
        .items;
    items.retain(|item| half.is_none_or(|h| Half::of(&item.test) == h));
    let result = batch::evaluate(engine, &items, false).map_err(|e| e.to_string())?;
    let mut a = CountAgreement::default();
    for r in &result.items {
        let key = id_key(&r.image_id);
        let &(tp, fp, fn_, f) = official
            .get(&key)
            .ok_or_else(|| format!("no official row for image {key}"))?;
        let s = r.scores.all;
        a.captions += 1;
        a.exact +=
            usize::from((i64::from(s.tp), i64::from(s.fp), i64::from(s.fn_)) == (tp, fp, fn_));
        a.same_reference_count += usize::from(i64::from(s.tp) + i64::from(s.fn_) == tp + fn_);
        a.mean_abs_error_f += (s.f - f).abs();
        a.mean_f += s.f;
        a.official_mean_f += f;
    }
    let n = a.captions.max(1) as f64;
    a.mean_abs_error_f /= n;
    a.mean_f /= n;
    a.official_mean_f /= n;
    Ok(a)
}

/// Tuples as the evidence files print them.
pub type TupleSet = BTreeSet<Vec<String>>;

/// The official file's graph text as a tuple set: `( a , is , b )` is an attribute.
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
/// otherwise the objects (no line of the file mixes bare objects with other tuples).
fn printed(set: TupleSet) -> TupleSet {
    if set.iter().any(|t| t.len() > 1) {
        set.into_iter().filter(|t| t.len() > 1).collect()
    } else {
        set
    }
}

/// Each caption of `spice-parser-graphs/SPICE_parsing_outputs.txt` in `dir` with its official
/// graph, in the file's printed form.
pub fn read_parser_graphs(dir: &Path) -> Result<Vec<(String, TupleSet)>, String> {
    let text = read(&dir.join("spice-parser-graphs/SPICE_parsing_outputs.txt"))?;
    Ok(text
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .map(|(caption, graph)| (caption.to_string(), official_tuples(graph)))
        .collect())
}

/// The scene graph of one caption's proposals as the official graph file prints it.
pub fn graph_tuples(engine: &Engine, proposals: &[crate::Proposal]) -> TupleSet {
    let scene = engine.scene_graph_from_proposals([proposals]);
    printed(
        crate::score::tuples(&scene)
            .iter()
            .map(|t| {
                t.texts()
                    .into_iter()
                    .map(|w| w.trim().to_string())
                    .collect()
            })
            .collect(),
    )
}

/// Parses each caption of `spice-parser-graphs/SPICE_parsing_outputs.txt` (of `half`, if given)
/// and compares our merged scene graph with the official one, in the file's printed form.
pub fn parser_graphs(
    engine: &Engine,
    dir: &Path,
    half: Option<Half>,
) -> Result<GraphAgreement, String> {
    let mut g = GraphAgreement::default();
    let (mut common, mut ours_n, mut theirs_n) = (0usize, 0usize, 0usize);
    let fmt = |s: &TupleSet| {
        s.iter()
            .map(|t| format!("({})", t.join(", ")))
            .collect::<Vec<_>>()
    };
    for (caption, theirs) in read_parser_graphs(dir)? {
        if half.is_some_and(|h| Half::of(&caption) != h) {
            continue;
        }
        let props = engine
            .caption_proposals(&caption)
            .map_err(|e| e.to_string())?;
        let ours = graph_tuples(engine, &props);
        if ours == theirs {
            g.exact += 1;
        } else {
            let only_ours: TupleSet = ours.difference(&theirs).cloned().collect();
            let only_theirs: TupleSet = theirs.difference(&ours).cloned().collect();
            g.differences
                .push((caption, fmt(&only_ours), fmt(&only_theirs)));
        }
        common += ours.intersection(&theirs).count();
        ours_n += ours.len();
        theirs_n += theirs.len();
        g.captions += 1;
    }
    g.precision = common as f64 / ours_n.max(1) as f64;
    g.recall = common as f64 / theirs_n.max(1) as f64;
    Ok(g)
}

/// Which half of an evidence file a caption belongs to: a fixed hash of its text (FNV-1a, 64
/// bits) decides, so every measurement, now and later, uses the same halves. Habits and training
/// may look at [`Half::Tuning`] only; [`Half::HeldOut`] is for reporting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Half {
    Tuning,
    HeldOut,
}

impl Half {
    pub fn of(text: &str) -> Half {
        // The top bit: FNV-1a's low bits follow the last byte too closely.
        if fnv1a(text) >> 63 == 0 {
            Half::Tuning
        } else {
            Half::HeldOut
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Half::Tuning => "tuning",
            Half::HeldOut => "held-out",
        }
    }
}

/// FNV-1a, 64 bits.
fn fnv1a(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A proposal as the official parser cache writes it: `[object]`, `[object, attribute]`,
/// `[subject, relation, object]`.
pub fn printed_proposal(p: &crate::Proposal) -> Vec<String> {
    match p.0.as_slice() {
        [s, o, r] => vec![s.clone(), r.clone(), o.clone()],
        other => other.to_vec(),
    }
}

/// The inverse of [`printed_proposal`].
pub fn unprinted_proposal(t: &Vec<String>) -> crate::Proposal {
    match t.as_slice() {
        [s, r, o] => crate::Proposal(vec![s.clone(), o.clone(), r.clone()]),
        other => crate::Proposal(other.to_vec()),
    }
}

/// How many neighbours serve as a pseudo-image's references (COCO has five per image).
const PSEUDO_REFERENCES: usize = 5;

/// Mean SPICE F of every caption scored against a pseudo-image: the `PSEUDO_REFERENCES` (5) other
/// captions of the set whose word sets overlap its own most (Jaccard; ties by position), standing
/// in for the references of its image, which the cache does not record. Each caption's tuples are
/// `proposals[i]`, so the same pseudo-images scored with our proposals and with the official ones
/// show how far our SPICE reads from the official SPICE on this kind of text, as the COCO sets of
/// the published results would.
pub fn pseudo_image_f(
    engine: &Engine,
    captions: &[&str],
    proposals: &[Vec<crate::Proposal>],
) -> f64 {
    use rayon::prelude::*;
    let words: Vec<BTreeSet<&str>> = captions
        .iter()
        .map(|c| c.split_whitespace().collect())
        .collect();
    let total: f64 = (0..captions.len())
        .into_par_iter()
        .map(|i| {
            let mut near: Vec<(f64, usize)> = (0..captions.len())
                .filter(|&j| j != i)
                .map(|j| {
                    let common = words[i].intersection(&words[j]).count();
                    let union = words[i].len() + words[j].len() - common;
                    (common as f64 / union.max(1) as f64, j)
                })
                .collect();
            near.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let references = engine.scene_graph_from_proposals(
                near.iter()
                    .take(PSEUDO_REFERENCES)
                    .map(|&(_, j)| proposals[j].as_slice()),
            );
            let candidate = engine.scene_graph_from_proposals([proposals[i].as_slice()]);
            let f = engine.score_counts(&candidate, &references).all.f;
            if f.is_nan() {
                0.0
            } else {
                f
            }
        })
        .sum();
    total / captions.len().max(1) as f64
}

/// Agreement of tuples of one kind (objects, attributes or relations).
#[derive(Debug, Clone, Copy, Default)]
pub struct KindAgreement {
    pub common: usize,
    pub ours: usize,
    pub theirs: usize,
}

impl KindAgreement {
    pub fn precision(&self) -> f64 {
        self.common as f64 / self.ours.max(1) as f64
    }
    pub fn recall(&self) -> f64 {
        self.common as f64 / self.theirs.max(1) as f64
    }
}

/// Agreement with the official parser's proposals on one half of a parser-cache file.
#[derive(Debug, Clone, Default)]
pub struct CacheAgreement {
    pub captions: usize,
    /// Captions whose proposal set equals the official one.
    pub exact: usize,
    /// Objects, attributes, relations (proposal sets, duplicates removed).
    pub kinds: [KindAgreement; 3],
    /// For each caption we do not reproduce: (caption, tuples only we give, tuples only they give).
    pub differences: Vec<(String, Vec<String>, Vec<String>)>,
    /// Mean SPICE F over pseudo-images, with our proposals and with the official ones: what a
    /// leaderboard built on these captions would read (see [`pseudo_image_f`]).
    pub mean_f: f64,
    pub official_mean_f: f64,
}

impl CacheAgreement {
    pub fn exact_share(&self) -> f64 {
        self.exact as f64 / self.captions.max(1) as f64
    }
    /// Over all kinds.
    pub fn total(&self) -> KindAgreement {
        let mut t = KindAgreement::default();
        for k in &self.kinds {
            t.common += k.common;
            t.ours += k.ours;
            t.theirs += k.theirs;
        }
        t
    }
}

/// One line of an `official-parser-cache/*.jsonl` file.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct CacheEntry {
    pub caption: String,
    pub tuples: Vec<Vec<String>>,
}

/// Reads an `official-parser-cache/*.jsonl` file.
pub fn read_parser_cache(path: &Path) -> Result<Vec<CacheEntry>, String> {
    read(path)?
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| {
            serde_json::from_str(l).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))
        })
        .collect()
}

/// Our proposals for one caption as a set of printed tuples.
pub fn proposal_set(engine: &Engine, caption: &str) -> Result<TupleSet, String> {
    Ok(engine
        .caption_proposals(caption)
        .map_err(|e| e.to_string())?
        .iter()
        .map(printed_proposal)
        .collect())
}

/// Compares our proposals with the official parser's on the captions of `entries` that fall in
/// `half`, in parallel.
pub fn parser_cache(engine: &Engine, entries: &[CacheEntry], half: Half) -> CacheAgreement {
    parser_cache_where(engine, entries, |c| Half::of(c) == half)
}

/// [`parser_cache`] on the captions `keep` accepts.
pub fn parser_cache_where(
    engine: &Engine,
    entries: &[CacheEntry],
    keep: impl Fn(&str) -> bool + Sync,
) -> CacheAgreement {
    use rayon::prelude::*;
    let rows: Vec<(String, TupleSet, TupleSet)> = entries
        .par_iter()
        .filter(|e| keep(&e.caption))
        .map(|e| {
            let ours = proposal_set(engine, &e.caption).unwrap_or_default();
            let theirs: TupleSet = e.tuples.iter().cloned().collect();
            (e.caption.clone(), ours, theirs)
        })
        .collect();
    let mut a = CacheAgreement::default();
    let captions: Vec<&str> = rows.iter().map(|(c, _, _)| c.as_str()).collect();
    let as_proposals = |s: &TupleSet| s.iter().map(unprinted_proposal).collect::<Vec<_>>();
    let ours: Vec<_> = rows.iter().map(|(_, o, _)| as_proposals(o)).collect();
    let theirs: Vec<_> = rows.iter().map(|(_, _, t)| as_proposals(t)).collect();
    a.mean_f = pseudo_image_f(engine, &captions, &ours);
    a.official_mean_f = pseudo_image_f(engine, &captions, &theirs);
    let fmt = |s: &TupleSet| {
        s.iter()
            .map(|t| format!("({})", t.join(", ")))
            .collect::<Vec<_>>()
    };
    for (caption, ours, theirs) in rows {
        a.captions += 1;
        for kind in 0..3 {
            let of_kind = |s: &TupleSet| s.iter().filter(|t| t.len() == kind + 1).count();
            let k = &mut a.kinds[kind];
            k.common += ours
                .intersection(&theirs)
                .filter(|t| t.len() == kind + 1)
                .count();
            k.ours += of_kind(&ours);
            k.theirs += of_kind(&theirs);
        }
        if ours == theirs {
            a.exact += 1;
        } else {
            let only_ours: TupleSet = ours.difference(&theirs).cloned().collect();
            let only_theirs: TupleSet = theirs.difference(&ours).cloned().collect();
            a.differences
                .push((caption, fmt(&only_ours), fmt(&only_theirs)));
        }
    }
    a
}

/// How often one front end proposes what another does (issue 32: the built-in front end against
/// the exact pipeline), caption by caption, proposals compared as multisets.
#[derive(Debug, Clone, Copy, Default)]
pub struct FrontEndAgreement {
    pub captions: usize,
    /// Captions whose proposals are the same multiset.
    pub same: usize,
    /// Proposals in both (multiset intersection), summed over captions.
    pub common: usize,
    /// Proposals of the front end measured, and of the one it is measured against.
    pub proposed: usize,
    pub wanted: usize,
}

impl FrontEndAgreement {
    pub fn same_share(&self) -> f64 {
        self.same as f64 / self.captions.max(1) as f64
    }
    pub fn precision(&self) -> f64 {
        self.common as f64 / self.proposed.max(1) as f64
    }
    pub fn recall(&self) -> f64 {
        self.common as f64 / self.wanted.max(1) as f64
    }
}

/// `measured`'s proposals of each caption against `wanted`'s, in parallel.
pub fn front_end_agreement(
    captions: &[String],
    measured: impl Fn(&str) -> Vec<crate::Proposal> + Sync,
    wanted: impl Fn(&str) -> Vec<crate::Proposal> + Sync,
) -> FrontEndAgreement {
    use rayon::prelude::*;
    let sorted = |mut p: Vec<crate::Proposal>| {
        p.sort_by(|a, b| a.0.cmp(&b.0));
        p
    };
    captions
        .par_iter()
        .map(|c| {
            let (got, want) = (sorted(measured(c)), sorted(wanted(c)));
            let mut left: HashMap<&crate::Proposal, usize> = HashMap::new();
            for p in &want {
                *left.entry(p).or_default() += 1;
            }
            let common = got
                .iter()
                .filter(|p| match left.get_mut(p) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        true
                    }
                    _ => false,
                })
                .count();
            FrontEndAgreement {
                captions: 1,
                same: usize::from(got == want),
                common,
                proposed: got.len(),
                wanted: want.len(),
            }
        })
        .reduce(FrontEndAgreement::default, |a, b| FrontEndAgreement {
            captions: a.captions + b.captions,
            same: a.same + b.same,
            common: a.common + b.common,
            proposed: a.proposed + b.proposed,
            wanted: a.wanted + b.wanted,
        })
}

/// The `# text` of each caption of a treebank file that `scripts/make-exact-treebank` wrote, in
/// order, at most `limit`.
pub fn treebank_texts(path: &Path, limit: usize) -> Result<Vec<String>, String> {
    let body = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(body
        .lines()
        .filter_map(|l| l.strip_prefix("# text = "))
        .take(limit)
        .map(str::to_string)
        .collect())
}
