//! How far the converter's stages so far go towards the official basic dependencies: the official
//! tree through the coordination transform written so far, then each word hung on the head word
//! of the lowest constituent it does not head (the semantic head finder), against the official
//! basic UD heads (`corenlp_heads OFFICIAL.jsonl.gz...`; `HEADS_DIFFS=N` prints differences).
use spice::corenlp::headfinder::SemanticHeadFinder;
use spice::corenlp::Tree;

fn main() {
    let hf = SemanticHeadFinder::new();
    // HEADS_DIFFS=N prints the first N sentences of each file whose heads differ.
    let show: usize = std::env::var("HEADS_DIFFS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for file in std::env::args().skip(1) {
        let (mut tokens, mut right, mut sentences, mut exact, mut shown) =
            (0usize, 0usize, 0usize, 0usize, 0usize);
        let analyses = spice::corenlp::official::read(std::path::Path::new(&file), None)
            .unwrap_or_else(|e| panic!("{e}"));
        for s in &analyses {
            let tree = Tree::from_penn(&s.tree).expect("penn");
            let tree = spice::corenlp::coordination::transform(&tree);
            let gov = spice::corenlp::dependencies::head_governors(&tree, &hf);
            let words = gov.len() - 1;
            let mut official = vec![usize::MAX; words + 1];
            for &(_, g, dep) in &s.basic {
                if dep < official.len() {
                    official[dep] = g;
                }
            }
            let mut all = true;
            for i in 1..=words {
                if official[i] == usize::MAX {
                    continue; // punctuation is not in the basic graph
                }
                tokens += 1;
                if official[i] == gov[i] {
                    right += 1;
                } else {
                    all = false;
                }
            }
            if !all && shown < show {
                shown += 1;
                let words = &s.words;
                println!(
                    "{}\n  {}",
                    s.tree,
                    (1..=words.len())
                        .filter(|&i| official[i] != usize::MAX && official[i] != gov[i])
                        .map(|i| format!(
                            "{}: ours {} official {}",
                            words[i - 1],
                            if gov[i] == 0 {
                                "ROOT"
                            } else {
                                words[gov[i] - 1].as_str()
                            },
                            if official[i] == 0 {
                                "ROOT"
                            } else {
                                words[official[i] - 1].as_str()
                            }
                        ))
                        .collect::<Vec<_>>()
                        .join("; ")
                );
            }
            sentences += 1;
            exact += usize::from(all);
        }
        println!("{file}: heads {right} / {tokens} ({:.2} %), sentences all right {exact} / {sentences} ({:.1} %)",
            100.0 * right as f64 / tokens as f64, 100.0 * exact as f64 / sentences as f64);
    }
}
