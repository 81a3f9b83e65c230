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
fn a_participle_after_the_head_noun_is_acl() {
    // SPEC §2: "a cat sitting on a chair": cat -acl-> sitting -nmod-> chair.
    for s in ["a cat sitting on a chair", "A cat sitting on a chair ."] {
        let w = words(s);
        let (tags, arcs) = analyse(&w);
        assert_eq!(tags[2], "VBG", "{s}");
        assert_eq!(arcs[1], (0, Label::ROOT), "{s}");
        assert_eq!(arcs[2], (2, Label::from_name("acl").expect("label")), "{s}");
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

#[test]
fn a_sentence_with_a_verb_read_as_a_noun_gets_its_verb_back() {
    let (tagger, _) = models();
    // Greedy tagging reads "dog leaps" / "dog rolls" as compounds; the PCFG reads a clause.
    for (caption, verb, tag) in [
        ("A brown dog leaps into the water .", "leaps", "VBZ"),
        ("A dog rolls on the ground .", "rolls", "VBZ"),
    ] {
        let w = words(caption);
        let greedy = tagger.tag(&w);
        assert!(
            greedy.iter().all(|t| !t.starts_with("VB")),
            "{caption}: {greedy:?}"
        );
        let tags = tagger.tag_clause(&w, 50_000, 20_000);
        let at = w.iter().position(|x| *x == verb).expect("verb in caption");
        assert_eq!(tags[at], tag, "{caption}: {tags:?}");
        assert_eq!(tags.iter().filter(|t| t.starts_with("VB")).count(), 1);
    }
}

#[test]
fn a_verb_after_a_prepositional_phrase_needs_a_closer_score() {
    let (tagger, _) = models();
    let caption = "A man in a suit dances with a young girl in front of an audience .";
    let w = words(caption);
    let at = w
        .iter()
        .position(|x| *x == "dances")
        .expect("verb in caption");
    assert_eq!(tagger.tag(&w)[at], "NNS", "greedy tagging reads a compound");
    assert_eq!(tagger.tag_clause(&w, 50_000, 20_000)[at], "VBZ");
    assert_eq!(tagger.tag_clause(&w, 50_000, 0)[at], "NNS");
    // The last word keeps its noun reading, however close its verb score.
    let w = words("A young girl with makeup and jewelry smiles .");
    assert_eq!(tagger.tag_clause(&w, 1_000_000, 1_000_000), tagger.tag(&w));
}

#[test]
fn a_verb_after_a_conjunction_does_not_stop_the_search() {
    let (tagger, _) = models();
    let w = words("A small child squats and puts dirt into his mouth .");
    let greedy = tagger.tag(&w);
    assert_eq!((greedy[3], greedy[5]), ("NNS", "VBZ"), "{greedy:?}");
    let tags = tagger.tag_clause(&w, 50_000, 20_000);
    assert_eq!((tags[3], tags[5]), ("VBZ", "VBZ"), "{tags:?}");
}

#[test]
fn races_after_a_noun_is_a_noun() {
    let (tagger, _) = models();
    let w = words("A dog races along the grassy track .");
    assert_eq!(tagger.tag_clause(&w, 50_000, 20_000)[2], "NNS");
    // After a pronoun it stays the verb.
    let w = words("He races along the track .");
    assert_eq!(tagger.tag_clause(&w, 50_000, 20_000)[1], "VBZ");
}

#[test]
fn a_fragment_without_a_verb_candidate_keeps_its_nouns() {
    let (tagger, _) = models();
    for caption in [
        "A boy with a toy gun .",
        "wine bottle on table",
        "Three dogs in the snow .",
    ] {
        let w = words(caption);
        assert_eq!(
            tagger.tag_clause(&w, 10_000, 10_000),
            tagger.tag(&w),
            "{caption}"
        );
    }
    // A sentence that has a verb is tagged as greedy tagging tags it.
    let w = words("A man rides a horse on the beach .");
    assert_eq!(tagger.tag_clause(&w, 1_000_000, 1_000_000), tagger.tag(&w));
}

#[test]
fn a_first_word_read_as_an_interjection_is_the_head_noun() {
    let (tagger, _) = models();
    let w = words("Boy in pajamas seated on a tire near plants .");
    assert_eq!(
        tagger.tag(&w)[0],
        "UH",
        "greedy tagging reads an interjection"
    );
    assert_eq!(tagger.tag_clause(&w, 50_000, 20_000)[0], "NN");
    // Alone, or before punctuation, an interjection stays one.
    for caption in ["Boy", "Boy , that is a big dog ."] {
        let w = words(caption);
        assert_eq!(
            tagger.tag_clause(&w, 50_000, 20_000)[0],
            tagger.tag(&w)[0],
            "{caption}"
        );
    }
}
