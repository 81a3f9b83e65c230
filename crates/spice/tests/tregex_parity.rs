//! Our Tregex against CoreNLP's (`TregexPattern` in the data cache's CoreNLP 3.4.1 jar, whose
//! Tregex is the same as 3.6.0's): every pattern the UD converter uses (the relations, the
//! semantic head finder and `CoordinationTransformer` of CoreNLP 3.6.0, in
//! `tests/fixtures/tregex/`) and a set exercising each relation, on real trees of the official
//! analyses in `../shared/corenlp`: the same matches, in the same order, with the same bindings.
//! Head relations use a made-up head rule both sides share (`tests/oracles/TregexMatches.java`).
//! Patterns Tregex refuses must be refused here too.
//! Without the jar or `../shared` the comparison says it is skipped (a failure with `CI` set).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;
use std::io::{BufRead, BufReader};

use spice::corenlp::tregex::{HeadFinder, NodeId, Pattern, TreeView};
use spice::corenlp::Tree;

mod common;

/// The oracle's head rule: the first child whose label starts with the parent's first
/// character, else the last child.
struct TestHeads;

impl HeadFinder for TestHeads {
    fn head(&self, tree: &TreeView<'_>, node: NodeId) -> Option<NodeId> {
        let kids = tree.children(node);
        let first = tree.label(node).chars().next();
        kids.iter()
            .find(|&&k| first.is_some() && tree.label(k).chars().next() == first)
            .or(kids.last())
            .copied()
    }
}

/// Every relation, negation, optionality, disjunction, binding and link, beyond what the
/// converter's own patterns exercise. Not here: a negated disjunction of several relations
/// (`NP ![ < DT | < JJ ]`) or an optional one (`?[ ... ]`), on which Tregex can loop for ever
/// (ours too, being the same machine); the converter has neither.
const RELATION_PATTERNS: &[&str] = &[
    "NN",
    "__",
    "@NP",
    "!NP",
    "/^N/",
    "NN|NNS",
    "__ << NN",
    "NN >> NP",
    "NN > NP",
    "NP < NN",
    "__ .. NN",
    "NN .. __",
    "__ . __",
    "DT . __",
    "__ ,, DT",
    "NN ,, __",
    "__ , __",
    "NN , __",
    "__ <<, __",
    "__ <<- __",
    "__ >>, NP",
    "__ >>- NP",
    "NP <<, DT",
    "NP <<- NN",
    "__ $ __",
    "__ $++ __",
    "__ $-- __",
    "__ $+ __",
    "__ $- __",
    "__ $.. __",
    "__ $,, __",
    "__ $. __",
    "__ $, __",
    "__ >: __",
    "__ <: __",
    "__ <<: __",
    "__ >>: __",
    "NP <= __",
    "__ == NP",
    "__ <1 __",
    "__ <2 __",
    "__ <-1 __",
    "__ <-2 __",
    "__ >1 __",
    "__ >2 __",
    "__ >-1 __",
    "__ >-2 __",
    "__ <, __",
    "__ <- __",
    "__ >, __",
    "__ >- __",
    "__ <` __",
    "__ <# __",
    "__ ># __",
    "__ <<# __",
    "__ >># __",
    "__ <+(NP) NN",
    "__ <+(/^N/) __",
    "__ >+(VP) __",
    "__ >+(!S) __",
    "__ .+(JJ) __",
    "__ ,+(JJ) __",
    "__ .+(/^J/) NN",
    "__ ,+(/^D|J/) __",
    "__ <... { DT ; NN }",
    "__ <... { __ }",
    "NP=np ?< DT=det",
    "NP=np ?< JJ=adj ?< DT=det",
    "NP !< DT",
    "NP !< DT !< JJ",
    "NP [ < DT=d | < NN=n ]",
    "NP [ < DT=d | < NN=d ]",
    "NP < (__=a $++ __=b)",
    "NP < (__=a $+ (__=b $+ __=c))",
    "NP=a : (VP=b $-- =a)",
    "NP=a : (__=b < =a)",
    "__=x <: (~x < __)",
    "__=x < (@~x)",
    "__=x < (__ < (~x))",
    "NP < DT=d < NN=n",
    "NP < DT=d & < NN=n",
    "NP < (DT=d . NN=n)",
    "NP !< (DT . NN)",
    "@NP < @NN",
    "/^N/#1%x < (/.*/#1%x)",
    "/^(N)/#1%x << /^(N)./#1%x",
    "NP | VP",
    "NP < DT | VP < VB",
    "(NP < DT) < NN",
    "(NP < DT)",
    "NP !> S",
    "NP [ !< DT | !< JJ ]",
    "NP ( < DT < JJ | < NN )",
    "VP < (/^VB/=v !< /^(?i:is|are)$/) ?$++ NP=o",
    "__ < /^(?!DT).*$/",
    "/^(S(?!YM)|PP|VP)/ < __",
    "__ < (__ < /,/)",
    "/^[,.:]$/",
    "/^,$/ $ __",
    "/\\//",
];

/// Patterns Tregex refuses: ours must refuse them too.
const BAD_PATTERNS: &[&str] = &[
    "NP=a < NN=a",
    "NP < =b",
    "NP !< NN=x",
    "(NP) < DT",
    "NP <0 DT",
    "NP <<,2 DT",
    "NP < ",
    "NP < (DT",
    "_",
    "NP < /a/b/",
    "NP ~x",
    "NP !?< DT",
];

/// Our patterns covering every relation, plus, when `SPICE_CORENLP_PATTERNS` names a file (one
/// pattern a line), the Tregex patterns of CoreNLP 3.6.0's converter (its relations, semantic
/// head finder and `CoordinationTransformer`). Those are CoreNLP's source text and stay out of
/// the repository: extract them from a CoreNLP 3.6.0 checkout to run the test on them.
fn read_patterns() -> Vec<String> {
    let mut out: Vec<String> = match std::env::var_os("SPICE_CORENLP_PATTERNS") {
        Some(path) => std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("SPICE_CORENLP_PATTERNS={}: {e}", path.to_string_lossy()))
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
        None => {
            let _ = writeln!(
                std::io::stderr(),
                "\n*** tregex parity: SPICE_CORENLP_PATTERNS unset, CoreNLP's converter patterns not checked (our {} only) ***\n",
                RELATION_PATTERNS.len()
            );
            Vec::new()
        }
    };
    out.extend(RELATION_PATTERNS.iter().map(|p| (*p).to_string()));
    // The converter's patterns as we write them, rendered: the jar's Tregex must match them as
    // ours does.
    out.extend(
        spice::corenlp::relations::source_order()
            .iter()
            .flat_map(|d| d.targets.iter().map(|n| n.to_tregex())),
    );
    out.extend(
        spice::corenlp::headfinder::patterns()
            .iter()
            .map(|n| n.to_tregex()),
    );
    out.extend(
        spice::corenlp::coordination::patterns()
            .iter()
            .map(|n| n.to_tregex()),
    );
    out
}

#[test]
fn every_converter_pattern_compiles() {
    let patterns = read_patterns();
    assert!(patterns.len() >= RELATION_PATTERNS.len());
    for p in &patterns {
        if let Err(e) = Pattern::compile(p) {
            panic!("{e}");
        }
    }
}

/// The trees of the first `per_file` captions of each shared official analysis file, and of the
/// captions `tests/fixtures/tregex/shared-captions.txt` lists (where the converter's patterns
/// match first).
fn shared_trees(dir: &std::path::Path, per_file: usize) -> Vec<String> {
    let listed = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/tregex/shared-captions.txt"),
    )
    .expect("the caption list");
    let listed: Vec<(&str, usize)> = listed
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .map(|(f, n)| (f, n.parse().expect("a line number")))
        .collect();
    let mut files: Vec<_> = std::fs::read_dir(dir.join("official"))
        .expect("official analyses")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".jsonl.gz"))
        .collect();
    files.sort();
    let mut trees = Vec::new();
    for f in files {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let gz = flate2::read::GzDecoder::new(std::fs::File::open(&f).expect("open"));
        for (i, line) in BufReader::new(gz).lines().enumerate() {
            if i >= per_file && !listed.contains(&(name.as_str(), i)) {
                continue;
            }
            let v: serde_json::Value = serde_json::from_str(&line.expect("line")).expect("json");
            for s in v["sentences"].as_array().into_iter().flatten() {
                if let Some(t) = s["tree"].as_str() {
                    trees.push(t.to_string());
                }
            }
        }
    }
    trees
}

/// Trees of sentences written for this test, with constructions the captions lack.
fn constructions() -> Vec<String> {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/tregex/constructions.txt"),
    )
    .expect("the constructions");
    text.lines()
        .filter(|l| l.starts_with('('))
        .map(str::to_string)
        .collect()
}

/// Our matches in the oracle's format: pattern index -> tree index -> line.
fn ours(patterns: &[String], trees: &[Tree]) -> BTreeMap<(usize, usize), String> {
    let views: Vec<TreeView<'_>> = trees.iter().map(TreeView::new).collect();
    let mut out = BTreeMap::new();
    for (pi, p) in patterns.iter().enumerate() {
        let Ok(pattern) = Pattern::compile(p) else {
            out.insert((pi, usize::MAX), "ERROR".to_string());
            continue;
        };
        for (ti, view) in views.iter().enumerate() {
            let mut line = String::new();
            let mut m = pattern.matcher(view, &TestHeads);
            let mut found = 0;
            while let Some(x) = m.find() {
                found += 1;
                let _ = write!(line, " {}", x.root);
                let mut names: Vec<(&str, NodeId)> = x.bindings().collect();
                names.sort();
                for (n, id) in names {
                    let _ = write!(line, ",{n}={id}");
                }
                if found >= 10000 {
                    break;
                }
            }
            if found > 0 {
                out.insert((pi, ti), line);
            }
        }
    }
    out
}

fn theirs(
    jar: &std::path::Path,
    patterns: &[String],
    trees: &[String],
) -> BTreeMap<(usize, usize), String> {
    let mut input = format!("P {}\n", patterns.len());
    for p in patterns {
        input.push_str(p);
        input.push('\n');
    }
    let _ = writeln!(input, "T {}", trees.len());
    for t in trees {
        input.push_str(t);
        input.push('\n');
    }
    let text = common::java_oracle(jar, "TregexMatches.java", &[], input);
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let (p, rest) = line.split_once(' ').expect("pattern index");
        let p: usize = p.parse().expect("pattern index");
        if rest.starts_with("ERROR") {
            out.insert((p, usize::MAX), "ERROR".to_string());
            continue;
        }
        let (t, matches) = rest.split_once(' ').expect("tree index");
        out.insert((p, t.parse().expect("tree index")), format!(" {matches}"));
    }
    out
}

#[test]
fn matches_agree_with_corenlp_tregex() {
    let Some(shared) = common::corenlp_dir() else {
        return;
    };
    let Some(jar) = common::optional_data_file("stanford-corenlp-3.4.1.jar") else {
        return;
    };
    let mut patterns = read_patterns();
    patterns.extend(BAD_PATTERNS.iter().map(|p| (*p).to_string()));
    let mut tree_text = shared_trees(&shared, 100);
    tree_text.extend(constructions());
    let trees: Vec<Tree> = tree_text
        .iter()
        .map(|t| Tree::from_penn(t).expect("a tree"))
        .collect();
    let java = theirs(&jar, &patterns, &tree_text);
    let rust = ours(&patterns, &trees);
    let mut bad_patterns = Vec::new();
    let mut pairs_disagreeing = 0;
    let mut matches = 0usize;
    let converter = read_patterns().len() - RELATION_PATTERNS.len();
    let converter_matching = (0..converter)
        .filter(|&pi| (0..trees.len()).any(|ti| java.contains_key(&(pi, ti))))
        .count();
    for (pi, p) in patterns.iter().enumerate() {
        let mut differs = false;
        for ti in (0..trees.len()).chain([usize::MAX]) {
            let (j, r) = (java.get(&(pi, ti)), rust.get(&(pi, ti)));
            matches += j.map_or(0, |s| s.split(' ').filter(|x| !x.is_empty()).count());
            if j != r {
                pairs_disagreeing += 1;
                if !differs {
                    eprintln!("pattern {pi} {p:?}, tree {ti}:\n  java {j:?}\n  ours {r:?}");
                }
                differs = true;
            }
        }
        if differs {
            bad_patterns.push(pi);
        }
    }
    eprintln!(
        "Tregex parity: {} of {} patterns agree on all {} trees ({} tree-pattern pairs differ; {} matches in Java's output; {} of the converter's {} patterns match somewhere)",
        patterns.len() - bad_patterns.len(),
        patterns.len(),
        trees.len(),
        pairs_disagreeing,
        matches,
        converter_matching,
        converter
    );
    assert!(
        bad_patterns.is_empty(),
        "patterns that differ: {bad_patterns:?}"
    );
}

/// The converter's patterns as we write them (the relations, the semantic head finder's and
/// the coordination transform's, [`spice::corenlp::patterns`]) compile to what CoreNLP's own
/// patterns compile to, one for one in CoreNLP's order, when `SPICE_CORENLP_PATTERNS` names a
/// file of them.
#[test]
fn patterns_written_in_rust_are_corenlps() {
    let Some(path) = std::env::var_os("SPICE_CORENLP_PATTERNS") else {
        let _ = writeln!(
            std::io::stderr(),
            "\n*** tregex parity: SPICE_CORENLP_PATTERNS unset, our patterns not compared with CoreNLP's text ***\n"
        );
        return;
    };
    let theirs: Vec<String> = std::fs::read_to_string(&path)
        .expect("the patterns file")
        .lines()
        .map(str::to_string)
        .collect();
    let ours: Vec<(String, usize, spice::corenlp::patterns::Node)> =
        spice::corenlp::relations::source_order()
            .into_iter()
            .flat_map(|d| {
                d.targets
                    .into_iter()
                    .enumerate()
                    .map(move |(k, n)| (d.name.to_string(), k, n))
            })
            .chain(
                spice::corenlp::headfinder::patterns()
                    .into_iter()
                    .enumerate()
                    .map(|(k, n)| ("head finder".to_string(), k, n)),
            )
            .chain(
                spice::corenlp::coordination::patterns()
                    .into_iter()
                    .enumerate()
                    .map(|(k, n)| ("coordination".to_string(), k, n)),
            )
            .collect();
    assert_eq!(ours.len(), theirs.len(), "as many patterns as CoreNLP's");
    let mut wrong = Vec::new();
    for ((name, k, n), line) in ours.iter().zip(&theirs) {
        let ours = n.compile().unwrap_or_else(|e| panic!("{name} #{k}: {e}"));
        let corenlp = Pattern::compile(line).expect("CoreNLP's pattern compiles");
        if ours.structure() != corenlp.structure() {
            wrong.push(format!(
                "{name} #{k}:\n  ours:    {ours}\n  CoreNLP: {line}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
