//! From the official trees through our converter to SPICE's proposals, stage by stage against
//! the official analyses (`corenlp_graphs OFFICIAL.jsonl.gz...`): the basic dependencies, the
//! collapsed CC-processed graph (`enhance`), the graph after SPICE's clean-up and the proposals
//! of each caption (`OFFICIAL_LEMMAS=1`: with the official lemmas). `GRAPHS_DIFFS=N` prints the first N sentences of each file whose collapsed
//! graph or clean graph differs, `TUPLE_DIFFS=N` the first N captions whose proposals differ.
use std::collections::BTreeSet;

use spice::corenlp::headfinder::SemanticHeadFinder;
use spice::corenlp::official;
use spice::corenlp::structure::basic_dependencies;
use spice::corenlp::Tree;
use spice::depgraph::DepGraph;

type Deps = BTreeSet<(String, String, String)>;

fn edges(g: &DepGraph) -> Deps {
    g.named_edges().into_iter().collect()
}

fn env(name: &str) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let hf = SemanticHeadFinder::new();
    let (show_graphs, show_tuples) = (env("GRAPHS_DIFFS"), env("TUPLE_DIFFS"));
    for file in std::env::args().skip(1) {
        let path = std::path::Path::new(&file);
        let sentences = official::read(path, None).unwrap_or_else(|e| panic!("{e}"));
        let tuples: Vec<Vec<Vec<String>>> = official::read_captions(path, None)
            .unwrap_or_else(|e| panic!("{e}"))
            .into_iter()
            .map(|c| c.tuples)
            .collect();
        let (mut basic_same, mut cc_same, mut clean_same, mut shown) = (0, 0, 0, 0);
        let mut ours_by_caption: Vec<BTreeSet<Vec<String>>> = vec![BTreeSet::new(); tuples.len()];
        for s in &sentences {
            let tree = Tree::from_penn(&s.tree).expect("penn");
            let (words, deps) = basic_dependencies(&tree, &hf);
            if std::env::var_os("LEMMA_DIFFS").is_some() {
                for (i, w) in words.iter().enumerate() {
                    let ours = spice::lemmatize::lemma(&w.word, &w.tag);
                    if w.tag != s.tags[i] || ours != s.lemmas[i] {
                        println!(
                            "lemma {} {} ours {} official {} {}",
                            w.word, w.tag, ours, s.tags[i], s.lemmas[i]
                        );
                    }
                }
            }
            // OFFICIAL_LEMMAS=1 takes the official lemmas, to see the other stages alone.
            let official_lemmas = std::env::var_os("OFFICIAL_LEMMAS").is_some();
            let mut g = spice::corenlp::basic_graph(
                &words,
                &deps,
                official_lemmas.then_some(s.lemmas.as_slice()),
            );
            let official_basic: Deps = s
                .basic
                .iter()
                .map(|(r, g, d)| (r.clone(), g.to_string(), d.to_string()))
                .collect();
            basic_same += usize::from(edges(&g) == official_basic);
            spice::enhance::enhance_corenlp(&mut g, s.sentence);
            let cc = edges(&g);
            let official_cc: Deps = s.ccprocessed.iter().cloned().collect();
            let cc_ok = cc == official_cc;
            cc_same += usize::from(cc_ok);
            spice::cleanup::clean(&mut g);
            let clean = edges(&g);
            let official_clean: Deps = s.ccprocessed_spice.iter().cloned().collect();
            let clean_ok = clean == official_clean;
            clean_same += usize::from(clean_ok);
            if (!cc_ok || !clean_ok) && shown < show_graphs {
                shown += 1;
                let (ours, theirs) = if cc_ok {
                    (&clean, &official_clean)
                } else {
                    (&cc, &official_cc)
                };
                println!(
                    "{} [{}]\n  official only {:?}\n  ours only     {:?}",
                    s.words.join(" "),
                    if cc_ok { "clean" } else { "collapsed" },
                    theirs.difference(ours).collect::<Vec<_>>(),
                    ours.difference(theirs).collect::<Vec<_>>()
                );
            }
            for p in spice::rules::proposals(&g) {
                ours_by_caption[s.caption].insert(spice::fidelity::printed_proposal(&p));
            }
        }
        let mut tuples_same = 0;
        let mut shown = 0;
        for (i, official) in tuples.iter().enumerate() {
            let official: BTreeSet<Vec<String>> = official.iter().cloned().collect();
            if official == ours_by_caption[i] {
                tuples_same += 1;
            } else if shown < show_tuples {
                shown += 1;
                println!(
                    "caption {i}\n  official only {:?}\n  ours only     {:?}",
                    official.difference(&ours_by_caption[i]).collect::<Vec<_>>(),
                    ours_by_caption[i].difference(&official).collect::<Vec<_>>()
                );
            }
        }
        let n = sentences.len() as f64;
        let pct = |k: usize, of: f64| 100.0 * k as f64 / of;
        println!(
            "{file}: {} sentences: basic {basic_same} ({:.2} %), collapsed {cc_same} ({:.2} %), \
             clean {clean_same} ({:.2} %); {} captions: proposals {tuples_same} ({:.2} %)",
            sentences.len(),
            pct(basic_same, n),
            pct(cc_same, n),
            pct(clean_same, n),
            tuples.len(),
            pct(tuples_same, tuples.len() as f64),
        );
    }
}
