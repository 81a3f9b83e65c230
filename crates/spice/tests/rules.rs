//! Every rule of SPEC §4 (and the clean-up of §3 that feeds them) on hand-built dependency graphs
//! of real captions, in CoreNLP's collapsed, CC-processed form. Each test states the proposals
//! the rule must give and why. The captions were written for these tests.

use spice::{DepGraph, Engine, EngineOptions, Proposal};

/// Builds a graph from `(word, lemma, tag, head, relation)` rows; extra edges (CC-processing)
/// follow as `(gov, dep, relation)`.
fn graph(rows: &[(&str, &str, &str, usize, &str)], extra: &[(usize, usize, &str)]) -> DepGraph {
    let mut text = String::new();
    for (i, (w, l, t, h, r)) in rows.iter().enumerate() {
        let mut deps = format!("{h}:{r}");
        for (g, d, rel) in extra {
            if *d == i + 1 {
                deps.push_str(&format!("|{g}:{rel}"));
            }
        }
        text.push_str(&format!(
            "{}\t{w}\t{l}\t_\t{t}\t_\t{h}\t{r}\t{deps}\t_\n",
            i + 1
        ));
    }
    DepGraph::from_conllu_str(&text)
        .expect("test graph is valid CoNLL-U")
        .remove(0)
}

fn proposals(g: &DepGraph) -> Vec<Vec<String>> {
    let engine = Engine::new(EngineOptions::default());
    engine
        .graph_proposals(std::slice::from_ref(g))
        .into_iter()
        .map(|Proposal(p)| p)
        .collect()
}

fn p(items: &[&[&str]]) -> Vec<Vec<String>> {
    items
        .iter()
        .map(|t| t.iter().map(|s| s.to_string()).collect())
        .collect()
}

#[test]
fn s1_subject_verb_object() {
    // "a man rides a horse": rides has a noun subject and a noun direct object.
    let g = graph(
        &[
            ("a", "a", "DT", 2, "det"),
            ("man", "man", "NN", 3, "nsubj"),
            ("rides", "ride", "VBZ", 0, "root"),
            ("a", "a", "DT", 5, "det"),
            ("horse", "horse", "NN", 3, "dobj"),
        ],
        &[],
    );
    assert_eq!(
        proposals(&g),
        p(&[&["man", "horse", "ride"], &["man"], &["horse"]])
    );
}

#[test]
fn s1_with_preposition_and_particle() {
    // "a boy picks up a ball from the grass": the particle joins the predicate ("pick up"), and
    // an nmod:from object appends its preposition.
    let g = graph(
        &[
            ("a", "a", "DT", 2, "det"),
            ("boy", "boy", "NN", 3, "nsubj"),
            ("picks", "pick", "VBZ", 0, "root"),
            ("up", "up", "RP", 3, "compound:prt"),
            ("a", "a", "DT", 6, "det"),
            ("ball", "ball", "NN", 3, "dobj"),
            ("from", "from", "IN", 9, "case"),
            ("the", "the", "DT", 9, "det"),
            ("grass", "grass", "NN", 3, "nmod:from"),
        ],
        &[],
    );
    assert_eq!(
        proposals(&g),
        p(&[
            &["boy", "ball", "pick up"],
            &["boy", "grass", "pick up from"],
            &["boy"],
            &["ball"],
            &["grass"]
        ])
    );
}

#[test]
fn s2_participle_clause() {
    // "a cat sitting on a chair": a verbless caption; the participle is acl of the head noun.
    let g = graph(
        &[
            ("a", "a", "DT", 2, "det"),
            ("cat", "cat", "NN", 0, "root"),
            ("sitting", "sit", "VBG", 2, "acl"),
            ("on", "on", "IN", 6, "case"),
            ("a", "a", "DT", 6, "det"),
            ("chair", "chair", "NN", 3, "nmod:on"),
        ],
        &[],
    );
    assert_eq!(
        proposals(&g),
        p(&[&["cat", "chair", "sit on"], &["cat"], &["chair"]])
    );
}

#[test]
fn s2_with_multiword_preposition() {
    // "a young girl standing on top of a tennis court" with "on top of" folded by the converter:
    // the relation is "stand on top of"; "tennis court" is a compound (attribute, no objects).
    let g = graph(
        &[
            ("a", "a", "DT", 3, "det"),
            ("young", "young", "JJ", 3, "amod"),
            ("girl", "girl", "NN", 0, "root"),
            ("standing", "stand", "VBG", 3, "acl"),
            ("on", "on", "IN", 10, "case"),
            ("top", "top", "NN", 5, "mwe"),
            ("of", "of", "IN", 5, "mwe"),
            ("a", "a", "DT", 10, "det"),
            ("tennis", "tennis", "NN", 10, "compound"),
            ("court", "court", "NN", 4, "nmod:on_top_of"),
        ],
        &[],
    );
    assert_eq!(
        proposals(&g),
        p(&[
            &["girl", "court", "stand on top of"],
            &["girl", "young"],
            &["court", "tennis"],
            &["girl"],
            &["top"],
        ])
    );
}

#[test]
fn s3_subject_predicate() {
    // "a woman is smiling": an intransitive predicate gives an attribute.
    let g = graph(
        &[
            ("a", "a", "DT", 2, "det"),
            ("woman", "woman", "NN", 4, "nsubj"),
            ("is", "be", "VBZ", 4, "aux"),
            ("smiling", "smile", "VBG", 0, "root"),
        ],
        &[],
    );
    assert_eq!(proposals(&g), p(&[&["woman", "smile"], &["woman"]]));
}

#[test]
fn s4_copula_with_preposition() {
    // "the cat is on the mat": UD makes "mat" the predicate, with "is" as cop and "on" as case.
    let g = graph(
        &[
            ("the", "the", "DT", 2, "det"),
            ("cat", "cat", "NN", 6, "nsubj"),
            ("is", "be", "VBZ", 6, "cop"),
            ("on", "on", "IN", 6, "case"),
            ("the", "the", "DT", 6, "det"),
            ("mat", "mat", "NN", 0, "root"),
        ],
        &[],
    );
    assert_eq!(
        proposals(&g),
        p(&[&["cat", "mat", "on"], &["cat"], &["mat"]])
    );
}

#[test]
fn s4_copula_adjective_and_a2() {
    // "the man is tall": the copula rule gives (man, tall) and the adjectival-predicate rule gives
    // it again (the scene graph keeps one).
    let g = graph(
        &[
            ("the", "the", "DT", 2, "det"),
            ("man", "man", "NN", 4, "nsubj"),
            ("is", "be", "VBZ", 4, "cop"),
            ("tall", "tall", "JJ", 0, "root"),
        ],
        &[],
    );
    assert_eq!(
        proposals(&g),
        p(&[&["man", "tall"], &["man", "tall"], &["man"]])
    );
}

#[test]
fn a1_p1_adjective_and_prepositional_modifier() {
    // "a brown dog with a red frisbee": amod gives attributes; nmod:with on a noun a relation.
    let g = graph(
        &[
            ("a", "a", "DT", 3, "det"),
            ("brown", "brown", "JJ", 3, "amod"),
            ("dog", "dog", "NN", 0, "root"),
            ("with", "with", "IN", 7, "case"),
            ("a", "a", "DT", 7, "det"),
            ("red", "red", "JJ", 7, "amod"),
            ("frisbee", "frisbee", "NN", 3, "nmod:with"),
        ],
        &[],
    );
    assert_eq!(
        proposals(&g),
        p(&[
            &["dog", "brown"],
            &["frisbee", "red"],
            &["dog", "frisbee", "with"],
            &["dog"],
            &["frisbee"]
        ])
    );
}

#[test]
fn p2_possessive() {
    // "the man's hat": hat -nmod:poss-> man gives (man, have, hat) with the relation last.
    let g = graph(
        &[
            ("the", "the", "DT", 2, "det"),
            ("man", "man", "NN", 4, "nmod:poss"),
            ("'s", "'s", "POS", 2, "case"),
            ("hat", "hat", "NN", 0, "root"),
        ],
        &[],
    );
    assert_eq!(
        proposals(&g),
        p(&[&["man", "hat", "have"], &["man"], &["hat"]])
    );
}

#[test]
fn p3_passive_agent() {
    // "a ball is kicked by a boy": the agent is the subject of the relation.
    let g = graph(
        &[
            ("a", "a", "DT", 2, "det"),
            ("ball", "ball", "NN", 4, "nsubjpass"),
            ("is", "be", "VBZ", 4, "auxpass"),
            ("kicked", "kick", "VBN", 0, "root"),
            ("by", "by", "IN", 7, "case"),
            ("a", "a", "DT", 7, "det"),
            ("boy", "boy", "NN", 4, "nmod:agent"),
        ],
        &[],
    );
    assert_eq!(
        proposals(&g),
        p(&[&["boy", "ball", "kick"], &["ball"], &["boy"]])
    );
}

#[test]
fn n1_counts_of_plural_subject_and_object() {
    // "three men carry two boxes": both plural, so both get their number as an attribute.
    let g = graph(
        &[
            ("three", "three", "CD", 2, "nummod"),
            ("men", "man", "NNS", 3, "nsubj"),
            ("carry", "carry", "VBP", 0, "root"),
            ("two", "two", "CD", 5, "nummod"),
            ("boxes", "box", "NNS", 3, "dobj"),
        ],
        &[],
    );
    assert_eq!(
        proposals(&g),
        p(&[
            &["man", "box", "carry"],
            &["man", "three"],
            &["box", "two"],
            &["man"],
            &["box"]
        ])
    );
}

#[test]
fn n1_counts_of_plural_root_and_other() {
    // "five kites in the sky": the plural root counts; "number 5"-style trailing numbers do not.
    let g = graph(
        &[
            ("five", "five", "CD", 2, "nummod"),
            ("kites", "kite", "NNS", 0, "root"),
            ("in", "in", "IN", 5, "case"),
            ("the", "the", "DT", 5, "det"),
            ("sky", "sky", "NN", 2, "nmod:in"),
        ],
        &[],
    );
    assert_eq!(
        proposals(&g),
        p(&[
            &["kite", "sky", "in"],
            &["kite", "five"],
            &["kite"],
            &["sky"]
        ])
    );
}

#[test]
fn n1_quantifier_expression_counts_with_its_first_word() {
    // "a couple of dogs sleep": clean-up makes "dogs" the subject with det:qmod "a" (a couple of),
    // so the count attribute is (dog, a), as the reference writes it. "couple" keeps its noun tag
    // inside the expression, so the object rule still lists it.
    let g = graph(
        &[
            ("a", "a", "DT", 2, "det"),
            ("couple", "couple", "NN", 5, "nsubj"),
            ("of", "of", "IN", 4, "case"),
            ("dogs", "dog", "NNS", 2, "nmod:of"),
            ("sleep", "sleep", "VBP", 0, "root"),
        ],
        &[],
    );
    assert_eq!(
        proposals(&g),
        p(&[&["dog", "sleep"], &["dog", "a"], &["couple"], &["dog"]])
    );
}

#[test]
fn c1_compound_nouns_are_attributes_not_objects() {
    // "a tennis court": (court, tennis), and neither noun is an object of its own.
    let g = graph(
        &[
            ("a", "a", "DT", 3, "det"),
            ("tennis", "tennis", "NN", 3, "compound"),
            ("court", "court", "NN", 0, "root"),
        ],
        &[],
    );
    assert_eq!(proposals(&g), p(&[&["court", "tennis"]]));
}

#[test]
fn j1_conjuncts_share_relations_through_cc_processing() {
    // "a man and a woman sit on a bench": CC-processing made both nouns subjects of "sit";
    // the rules' own conjunction step adds nothing.
    let g = graph(
        &[
            ("a", "a", "DT", 2, "det"),
            ("man", "man", "NN", 6, "nsubj"),
            ("and", "and", "CC", 2, "cc"),
            ("a", "a", "DT", 5, "det"),
            ("woman", "woman", "NN", 2, "conj:and"),
            ("sit", "sit", "VBP", 0, "root"),
            ("on", "on", "IN", 9, "case"),
            ("a", "a", "DT", 9, "det"),
            ("bench", "bench", "NN", 6, "nmod:on"),
        ],
        &[(6, 5, "nsubj")],
    );
    assert_eq!(
        proposals(&g),
        p(&[
            &["man", "bench", "sit on"],
            &["woman", "bench", "sit on"],
            &["man"],
            &["woman"],
            &["bench"]
        ])
    );
}

#[test]
fn pronoun_takes_its_antecedents_place() {
    // "a man holding his phone": "his" is replaced by "man", so the possessive rule fires.
    let g = graph(
        &[
            ("a", "a", "DT", 2, "det"),
            ("man", "man", "NN", 0, "root"),
            ("holding", "hold", "VBG", 2, "acl"),
            ("his", "he", "PRP$", 5, "nmod:poss"),
            ("phone", "phone", "NN", 3, "dobj"),
        ],
        &[],
    );
    assert_eq!(
        proposals(&g),
        p(&[
            &["man", "phone", "hold"],
            &["man", "phone", "have"],
            &["man"],
            &["phone"]
        ])
    );
}

#[test]
fn tuples_command_reads_conllu_and_prints_scene_graph_tuples() {
    let g = graph(
        &[
            ("a", "a", "DT", 2, "det"),
            ("cat", "cat", "NN", 0, "root"),
            ("sitting", "sit", "VBG", 2, "acl"),
            ("on", "on", "IN", 6, "case"),
            ("a", "a", "DT", 6, "det"),
            ("chair", "chair", "NN", 3, "nmod:on"),
        ],
        &[],
    );
    let dir = std::env::temp_dir().join(format!("spice-tuples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("cat.conllu");
    std::fs::write(&file, g.to_conllu()).expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_spice"))
        .args(["tuples", "--conllu"])
        .arg(&file)
        .output()
        .expect("runs");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"sentence\":1,\"tuples\":[[\"cat\"],[\"cat\",\"sit on\",\"chair\"],[\"chair\"]]}\n"
    );
    std::fs::write(&file, "1\tcat\n").expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_spice"))
        .args(["tuples", "--conllu"])
        .arg(&file)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("line 1, field line: expected 10 tab-separated columns"));
    let _ = std::fs::remove_dir_all(&dir);
}
