//! How many sentences get exactly the official basic dependencies from the official tree
//! (`corenlp_deps OFFICIAL.jsonl.gz...`; `DEPS_DIFFS=N` prints the first N differing sentences
//! of each file, `DEPS_RELS=1` a table of the differing relations).
use std::collections::BTreeMap;

use spice::corenlp::headfinder::SemanticHeadFinder;
use spice::corenlp::structure::basic_dependencies;
use spice::corenlp::Tree;

fn main() {
    let hf = SemanticHeadFinder::new();
    let show: usize = std::env::var("DEPS_DIFFS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut by_rel: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for file in std::env::args().skip(1) {
        let (mut sentences, mut exact, mut unlabeled, mut shown) = (0usize, 0usize, 0usize, 0usize);
        let analyses = spice::corenlp::official::read(std::path::Path::new(&file), None)
            .unwrap_or_else(|e| panic!("{e}"));
        for s in &analyses {
            sentences += 1;
            let tree = Tree::from_penn(&s.tree).expect("penn");
            let (words, ours) = basic_dependencies(&tree, &hf);
            let mut ours: Vec<(String, usize, usize)> =
                ours.into_iter().map(|d| (d.rel, d.gov, d.dep)).collect();
            let mut official = s.basic.clone();
            ours.sort();
            official.sort();
            let strip = |v: &[(String, usize, usize)]| {
                let mut u: Vec<(usize, usize)> = v.iter().map(|d| (d.1, d.2)).collect();
                u.sort();
                u
            };
            if strip(&ours) == strip(&official) {
                unlabeled += 1;
            }
            if ours == official {
                exact += 1;
                continue;
            }
            for d in official.iter().filter(|d| !ours.contains(d)) {
                by_rel.entry(d.0.clone()).or_default().0 += 1;
            }
            for d in ours.iter().filter(|d| !official.contains(d)) {
                by_rel.entry(d.0.clone()).or_default().1 += 1;
            }
            if shown < show {
                shown += 1;
                let w = |i: usize| {
                    if i == 0 {
                        "ROOT".to_string()
                    } else {
                        format!("{}-{i}", words[i - 1].word)
                    }
                };
                println!("{}", s.tree);
                for d in official.iter().filter(|d| !ours.contains(d)) {
                    println!("  official {}({}, {})", d.0, w(d.1), w(d.2));
                }
                for d in ours.iter().filter(|d| !official.contains(d)) {
                    println!("  ours     {}({}, {})", d.0, w(d.1), w(d.2));
                }
            }
        }
        println!(
            "{file}: {exact}/{sentences} sentences identical ({:.2} %), unlabeled {unlabeled} ({:.2} %)",
            100.0 * exact as f64 / sentences as f64,
            100.0 * unlabeled as f64 / sentences as f64
        );
    }
    if std::env::var_os("DEPS_RELS").is_some() {
        println!("relation: official arcs we miss / arcs we add");
        for (r, (miss, extra)) in by_rel {
            println!("  {r:14} {miss:6} {extra:6}");
        }
    }
}
