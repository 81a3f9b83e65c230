//! The embedded tagger and parser models on real captions, and on input that must not break them.
//! These use only the committed models (no treebank files).

use spice::depgraph::Rel;
use spice::parse::{check_tree, Label, Parser, TreeProblem};
use spice::tag::Tagger;

fn models() -> (&'static Tagger, &'static Parser) {
    spice::parse::embedded_models().expect("the embedded models load")
}

/// Tags and parses; returns tags and (head, label) per token.
fn analyse(words: &[&str]) -> (Vec<&'static str>, Vec<(usize, Label)>) {
    let (t, p) = models();
    let tags = t.tag(words);
    let arcs = p.parse(words, &tags);
    (tags, arcs)
}

fn words(s: &str) -> Vec<&str> {
    s.split_whitespace().collect()
}

fn assert_one_rooted_tree(arcs: &[(usize, Label)]) {
    let heads: Vec<usize> = arcs.iter().map(|a| a.0).collect();
    assert!(
        !matches!(check_tree(&heads), Err(TreeProblem::Malformed(_))),
        "not a tree: {heads:?}"
    );
    for (h, l) in arcs {
        assert_eq!(
            *h == 0,
            *l == Label::ROOT,
            "root label on exactly the root: {arcs:?}"
        );
    }
}

#[test]
fn a_noun_phrase_caption_is_rooted_in_its_head_noun() {
    // "a dog on a couch": no verb, so the head noun is the root and the couch hangs from it.
    let w = words("a dog on a couch");
    let (tags, arcs) = analyse(&w);
    assert_eq!(tags, ["DT", "NN", "IN", "DT", "NN"]);
    assert_eq!(arcs[1], (0, Label::ROOT));
    assert_eq!(arcs[0], (2, Label::from_name("det").expect("label")));
    assert_eq!(arcs[4], (2, Label::from_name("nmod").expect("label")));
    assert_eq!(arcs[2], (5, Label::from_name("case").expect("label")));
}

#[test]
fn a_participle_after_the_head_noun_hangs_as_the_pcfg_hangs_it() {
    // SPEC §2: "A cat sitting on a chair .": cat -acl-> sitting -nmod-> chair. Without the full
    // stop the PCFG reads a fragment, FRAG(NP, S(VP)), and the participle becomes `dep`
    // (`spice parse --corenlp-models ...` shows both).
    for (s, label) in [
        ("A cat sitting on a chair .", "acl"),
        ("a cat sitting on a chair", "dep"),
    ] {
        let w = words(s);
        let (tags, arcs) = analyse(&w);
        assert_eq!(tags[2], "VBG", "{s}");
        assert_eq!(arcs[1], (0, Label::ROOT), "{s}");
        assert_eq!(arcs[2], (2, Label::from_name(label).expect("label")), "{s}");
        assert_eq!(
            arcs[5],
            (3, Label::from_name("nmod").expect("label")),
            "{s}"
        );
    }
}

#[test]
fn a_full_sentence_has_subject_and_object() {
    let w = words("A man is riding a horse on the beach .");
    let (tags, arcs) = analyse(&w);
    assert_eq!(&tags[..4], ["DT", "NN", "VBZ", "VBG"]);
    assert_eq!(arcs[3], (0, Label::ROOT));
    assert_eq!(arcs[1], (4, Label::from_name("nsubj").expect("label")));
    assert_eq!(arcs[2], (4, Label::from_name("aux").expect("label")));
    assert_eq!(arcs[5], (4, Label::from_name("dobj").expect("label")));
    assert_eq!(arcs[9], (4, Label::from_name("punct").expect("label")));
}

#[test]
fn graph_has_basic_edges_and_empty_lemmas() {
    let (t, p) = models();
    let w = words("two dogs playing with a frisbee");
    let tags = t.tag(&w);
    let g = p.graph(&w, &tags);
    assert_eq!(g.len(), 6);
    assert_eq!(g.roots, vec![2]);
    assert_eq!(g.edges().len(), 5);
    assert!(g.has_edge(2, 1, Rel::NUMMOD));
    assert!(g.tokens.iter().all(|tok| tok.lemma.is_empty()));
    assert_eq!(g.tag(2), "NNS");
}

#[test]
fn odd_input_never_panics_and_always_gives_one_tree() {
    let long: Vec<String> = (0..500)
        .map(|i| ["a", "dog", "on", "the", "big", "red", "couch", ",", "and"][i % 9].to_string())
        .collect();
    let long: Vec<&str> = long.iter().map(String::as_str).collect();
    let cases: Vec<Vec<&str>> = vec![
        vec![],
        vec![""],
        vec!["."],
        vec!["🐶", "🛋️", "‼"],
        vec!["<script>alert(1)</script>", "&amp;", "<b>"],
        vec!["ÇA", "Straße", "日本語", "\u{0}", "\u{202e}", " "],
        vec!["a"; 40],
        long,
    ];
    for w in cases {
        let (tags, arcs) = analyse(&w);
        assert_eq!(tags.len(), w.len());
        assert_eq!(arcs.len(), w.len());
        assert!(arcs.iter().all(|a| a.0 <= w.len()));
        if !w.is_empty() {
            assert_one_rooted_tree(&arcs);
        }
    }
}

#[test]
fn parser_accepts_missing_or_extra_tags() {
    let (_, p) = models();
    let w = words("a dog on a couch");
    for tags in [
        vec![],
        vec!["DT"],
        vec!["DT", "NN", "IN", "DT", "NN", "NN", "NN"],
        vec!["BOGUS"; 5],
    ] {
        let arcs = p.parse(&w, &tags);
        assert_eq!(arcs.len(), 5);
        assert_one_rooted_tree(&arcs);
    }
}

#[test]
fn models_are_shared_across_threads() {
    fn sync<T: Sync + Send>() {}
    sync::<Tagger>();
    sync::<Parser>();
    use rayon::prelude::*;
    let caps = [
        "a dog on a couch",
        "a cat sitting on a chair",
        "people walking down a street",
    ];
    let serial: Vec<_> = caps.iter().map(|c| analyse(&words(c))).collect();
    let parallel: Vec<_> = caps.par_iter().map(|c| analyse(&words(c))).collect();
    assert_eq!(serial, parallel);
}

/// Captions whose tags a tagger trained on fragments used to get wrong, and a hand-written verb
/// search fixed; the tagger trained on the exact pipeline's analyses reads them as CoreNLP's PCFG
/// does (the tags below are the PCFG's, from the exact pipeline on CoreNLP's model). Not every
/// caption: the PCFG reads "rides" as `VBZ` in "A man rides a horse on the beach ." and the
/// tagger as `VBD`, a tag the PCFG gives "rides" in 155 of its 526 occurrences in the training
/// captions as written (the proposals are the same either way).
#[test]
fn reads_finite_verbs_and_nouns_as_the_pcfg_does() {
    let (tagger, _) = models();
    for (caption, word, tag) in [
        ("A brown dog leaps into the water .", "leaps", "VBZ"),
        ("A dog rolls on the ground .", "rolls", "VBZ"),
        (
            "A man in a suit dances with a young girl in front of an audience .",
            "dances",
            "VBZ",
        ),
        (
            "A small child squats and puts dirt into his mouth .",
            "squats",
            "VBZ",
        ),
        (
            "A small child squats and puts dirt into his mouth .",
            "puts",
            "VBZ",
        ),
        (
            "Boy in pajamas seated on a tire near plants .",
            "Boy",
            "NNP",
        ),
        ("wine bottle on table", "bottle", "NN"),
    ] {
        let w = words(caption);
        let tags = tagger.tag(&w);
        let at = w.iter().position(|x| *x == word).expect("word in caption");
        assert_eq!(tags[at], tag, "{caption}: {tags:?}");
    }
}
