//! Relations of arguments: auxiliaries, coordination, punctuation, subjects, objects, complements
//! (`pred` to `expl` in CoreNLP's source).

use super::super::patterns::{all, any, node, same, words, Node, Rel::*};
use super::words::{
    be_aux_words, ccomp_obj_verbs, ccomp_verbs, clausal_complement_words, copular_words,
    have_words, passive_aux_words, self_words, time_words, xcomp_verbs,
};
use super::Definition;

pub fn definitions() -> Vec<Definition> {
    vec![
        predicate(),
        aux(),
        auxpass(),
        cop(),
        conj(),
        cc(),
        punct(),
        without_patterns("arg", "dep"),
        without_patterns("subj", "arg"),
        nsubj(),
        nsubjpass(),
        csubj(),
        csubjpass(),
        without_patterns("comp", "arg"),
        without_patterns("obj", "comp"),
        dobj(),
        iobj(),
        ccomp(),
        xcomp(),
        rel(),
        prep(),
        without_patterns("ref", "dep"),
        expl(),
    ]
}

/// A relation only named as a parent of others (`arg`, `subj`, `comp`, `obj`) or added after
/// the patterns have run (`ref`): nothing governs by it directly.
fn without_patterns(name: &'static str, parent: &'static str) -> Definition {
    Definition {
        name,
        parent: Some(parent),
        governors: None,
        targets: Vec::new(),
    }
}

// Label tests and small nodes shared by several patterns.

/// A verb or auxiliary tag.
fn verb_or_aux() -> Node {
    node("/^(?:VB|AUX)/")
}

/// A verb or auxiliary that is a form of "be" as copula.
fn copula() -> Node {
    verb_or_aux().has(Child, node(copular_words()))
}

/// A noun whose word names a time ("days", "May").
fn time_noun() -> Node {
    node("/^NN/").has(Child, node(time_words()))
}

/// [`time_words`] with "lot" as well ("a lot" is no object either).
fn time_or_lot_words() -> String {
    let t = time_words();
    let list = t.strip_suffix(")$/").expect("a word list ends in `)$/`");
    format!("{list}|lot)$/")
}

/// Tags of what separates conjuncts without being one: parentheticals, quotes, brackets,
/// commas, colons, periods.
const SEPARATOR: &str = r"/^(?:PRN|``|''|-[LR]RB-|,|:|\.)$/";

/// Anything but a [`SEPARATOR`].
fn not_separator() -> Node {
    node(format!("!{SEPARATOR}"))
}

/// Tags a conjunct to the right of a separator may have.
const CONJUNCT_AFTER_SEPARATOR: &str = "/^S|SINV$|^(?:A|N|V|PP|PRP|J|W|R)/";

/// Phrases whose conjuncts the nominal and adjectival patterns look for.
const NOMINAL_PHRASES: &str =
    "/^(?:ADJP|PP|(?:WH)?NP(?:-TMP|-ADV)?|ADVP|UCP(?:-TMP|-ADV)?|NX|NML)$/";

/// "etc." (or its common misspelling "ect") as a foreign word.
fn etc() -> Node {
    node("FW").has(Child, node(words(&["(etc|ect)"])))
}

/// A phrase starting with [`etc`].
fn phrase_with_etc() -> Node {
    node("ADVP|NP").has(ChildAt(1), etc())
}

/// Emoticons written left to right (":-)", "8P", "(:").
fn western_smiley() -> &'static str {
    r"/^(?:[<>]?[:;=8][\-o\*']?(?:-RRB-|-LRB-|[DPdpO\/\\\:}{@\|\[\]])|(?:-RRB-|-LRB-|[DPdpO\/\\\:}{@\|\[\]])[\-o\*']?[:;=8][<>]?)$/"
}

/// Emoticons written upright ("^_^", "-.-"), but not a dash "--".
fn asian_smiley() -> &'static str {
    r"/(?!^--$)^(?:-LRB-)?[\-\^x=~<>'][_.]?[\-\^x=~<>'](?:-RRB-)?$/"
}

/// "that" or "whether" introducing a clause.
fn that_or_whether() -> Node {
    node(words(&["that", "whether"]))
}

/// A noun phrase that is an object rather than a time ("ate [an apple]", not "left [Monday]"),
/// bound to `target`.
fn object_noun_phrase() -> Node {
    node("NP|WHNP").target().either(vec![
        all()
            .not(HeadChild, time_noun())
            .not(NextSister, node("NP")),
        all().has(NextSister, node("NP-TMP")),
        all().has(NextSister, node("NP").has(HeadChild, time_noun())),
    ])
}

/// A head child with no parenthetical noun phrase after it that a colon separates from the
/// `target`.
fn head_before_target() -> Node {
    any().not(
        SisterAfter,
        node("NP").has(
            SisterAfter,
            node("/^[:]$/").has(SisterAfter, same("target")),
        ),
    )
}

/// An adjectival small clause bound to `target`, its adjective with no noun phrase or clause
/// before it ("made [them happy]").
fn adjectival_clause() -> Node {
    node("@S").target().has(
        Child,
        node("@ADJP")
            .has(Child, node("/^JJ/"))
            .not(SisterBefore, node("@NP|S")),
    )
}

/// Clause to its verb phrase predicate: "the dog [barked]".
fn predicate() -> Definition {
    Definition {
        name: "pred",
        parent: Some("dep"),
        governors: Some("S|SINV"),
        targets: vec![node("S|SINV").has(HeadChild, node("VP").target())],
    }
}

/// Verb to an auxiliary or modal before it: "she [will] sing", "[has] gone".
fn aux() -> Definition {
    Definition {
        name: "aux",
        parent: Some("dep"),
        governors: Some("VP|SQ|SINV|CONJP"),
        targets: vec![
            node("VP")
                .has(Child, node("VP"))
                .has(Child, node("/^(?:MD|VB.*|AUXG?|POS)$/").target()),
            node("SQ|SINV").has(
                Child,
                node("/^(?:VB|MD|AUX)/")
                    .target()
                    .has(SisterAfter, node("/^(?:VP|ADJP)/")),
            ),
            node("SINV").has(
                Child,
                node("VP")
                    .target()
                    .has(
                        Child,
                        node("/^(?:VB|AUX|POS)/").has(Child, node(be_aux_words())),
                    )
                    .has(SisterBefore, node("VP").has(Child, node("VBG"))),
            ),
        ],
    }
}

/// Passive participle to its "be"/"get" auxiliary: "the cake [was] eaten".
fn auxpass() -> Definition {
    let participle = || node("VBD|VBN");
    Definition {
        name: "auxpass",
        parent: Some("aux"),
        governors: Some("VP|SQ|SINV"),
        targets: vec![
            node("VP")
                .has(
                    Child,
                    node("/^(?:VB|AUX|POS)/")
                        .target()
                        .has(Child, node(passive_aux_words())),
                )
                .has(
                    Child,
                    node("VP|ADJP").either(vec![
                        all().has(Child, node("VBN|VBD")),
                        all()
                            .has(Child, node("VP|ADJP").has(Child, node("VBN|VBD")))
                            .has(Child, node("CC")),
                    ]),
                ),
            node("SQ|SINV").has(
                Child,
                node("/^(?:VB|AUX|POS)/")
                    .target()
                    .has(Child, node(be_aux_words()))
                    .has(SisterAfter, node("VP").has(Child, participle())),
            ),
            node("SINV").has(
                Child,
                node("VP")
                    .target()
                    .has(
                        Child,
                        node("/^(?:VB|AUX|POS)/").has(Child, node(be_aux_words())),
                    )
                    .has(SisterBefore, node("VP").has(Child, participle())),
            ),
            node("SINV").has(
                Child,
                node("VP")
                    .target()
                    .has(
                        Child,
                        node("VP").has(
                            Child,
                            node("/^(?:VB|AUX|POS)/").has(Child, node(be_aux_words())),
                        ),
                    )
                    .has(SisterBefore, node("VP").has(Child, participle())),
            ),
        ],
    }
}

/// Predicate to its copula: "the sky [is] blue", "he [was] a pilot".
fn cop() -> Definition {
    let adjective_clause = || node("S").has(OnlyChild, node("ADJP").has(Child, node("JJ")));
    Definition {
        name: "cop",
        parent: Some("aux"),
        governors: Some("VP|SQ|SINV|SBARQ"),
        targets: vec![
            node("VP").has(
                Child,
                copula().target().either(vec![
                    all().has(
                        SisterAfter,
                        node("/^(?:ADJP|NP$|WHNP$|PP|UCP)/")
                            .not(Child, node("VBN|VBD").not(SisterAfter, node("/^N/"))),
                    ),
                    all().has(SisterAfter, adjective_clause()),
                ]),
            ),
            node("SQ|SINV").has(
                Child,
                copula().target().either(vec![
                    all().has(SisterAfter, node("ADJP").not(Child, node("VBN|VBD"))),
                    all().has(SisterAfter, node("NP").has(SisterAfter, node("NP"))),
                    all().has(SisterAfter, adjective_clause()),
                ]),
            ),
            node("SBARQ")
                .has(Child, copula().target())
                .has(Child, node("WHNP").has(Child, node("WP"))),
            node("SINV").has(
                HeadChild,
                node("NP").has(
                    SisterAfter,
                    node("NP").has(SisterAfter, node("VP").target().has(Child, copula())),
                ),
            ),
        ],
    }
}

/// First conjunct to each later one: "apples and [pears]", "ran, [jumped] and swam".
fn conj() -> Definition {
    let clauses = "VP|S|SBAR|SBARQ|SINV|SQ|RRC";
    let coordinator = || node("CC|CONJP");
    let nominal_left = || node(r"!/^(?:``|-LRB-|PRN)$/");
    Definition {
        name: "conj",
        parent: Some("dep"),
        governors: Some(
            "VP|(?:WH)?NP(?:-TMP|-ADV)?|ADJP|PP|QP|ADVP|UCP(?:-TMP|-ADV)?|S|NX|SBAR|SBARQ|SINV|SQ|JJP|NML|RRC|PCONJP",
        ),
        targets: vec![
            node(clauses).has(
                Child,
                coordinator()
                    .has(
                        SisterBefore,
                        node(r"!/^(?:``|-LRB-|PRN|PP|ADVP|RB|MWE)/"),
                    )
                    .has(
                        NextSister,
                        node(r"!/^(?:SBAR|PRN|``|''|-[LR]RB-|,|:|\.)$/").target(),
                    ),
            ),
            node("SBAR").has(
                Child,
                coordinator()
                    .has(SisterBefore, node("@SBAR"))
                    .has(NextSister, node("@SBAR").target()),
            ),
            node(clauses).has(
                Child,
                coordinator()
                    .has(SisterBefore, node(r"!/^(?:``|-LRB-|PRN|PP|ADVP|RB)/"))
                    .has(
                        NextSister,
                        node("ADVP").has(NextSister, not_separator().target()),
                    ),
            ),
            node("VP|S|SBAR|SBARQ|SINV|SQ")
                .named("root")
                .has(
                    Child,
                    coordinator().has(SisterBefore, node(r"!/^(?:``|-LRB-|PRN|PP|ADVP|RB)/")),
                )
                .has(
                    Child,
                    node(SEPARATOR).has(
                        NextSister,
                        node(CONJUNCT_AFTER_SEPARATOR).target().either(vec![
                            all().has(
                                SisterBefore,
                                coordinator()
                                    .has(SisterBefore, any().has(HeadOf, same("root")))
                                    .not(
                                        SisterAfter,
                                        node("/^:|,$/").has(SisterAfter, same("target")),
                                    ),
                            ),
                            all().has(
                                SisterBefore,
                                node("/^:|,$/")
                                    .has(SisterBefore, any().has(HeadOf, same("root")))
                                    .either(vec![
                                        all().not(SisterBefore, node("/^CC|CONJP$/")),
                                        all().has(
                                            SisterAfter,
                                            same("target").has(
                                                Child,
                                                node("/^,$/").has(
                                                    SisterAfter,
                                                    any().has(HeadOf, same("target")),
                                                ),
                                            ),
                                        ),
                                    ]),
                            ),
                        ]),
                    ),
                ),
            node("/^(?:ADJP|JJP|PP|QP|(?:WH)?NP(?:-TMP|-ADV)?|ADVP|UCP(?:-TMP|-ADV)?|NX|NML)$/")
                .either(vec![
                    all().has(
                        Child,
                        coordinator()
                            .has(SisterBefore, nominal_left())
                            .has(NextSister, not_separator().target()),
                    ),
                    all().has(Child, etc().target()),
                    all().has(Child, phrase_with_etc().target()),
                ]),
            node(NOMINAL_PHRASES).has(
                Child,
                coordinator()
                    .has(SisterBefore, nominal_left())
                    .has(
                        NextSister,
                        node("ADVP").has(NextSister, not_separator().target()),
                    ),
            ),
            node(NOMINAL_PHRASES)
                .either(vec![
                    all().has(Child, coordinator().has(SisterBefore, nominal_left())),
                    all().has(Child, etc()),
                    all().has(Child, phrase_with_etc()),
                ])
                .has(
                    Child,
                    node(SEPARATOR).either(vec![
                        all().has(NextSister, node(CONJUNCT_AFTER_SEPARATOR).target()),
                        all().has(NextSister, etc().target()),
                    ]),
                ),
            node("NX|NML")
                .either(vec![
                    all().has(Child, coordinator().has(PrevSister, any())),
                    all().has(Child, etc()),
                ])
                .has(
                    Child,
                    node("/^,$/").has(
                        PrevSister,
                        node("/^(?:A|N|V|PP|PRP|J|W|R|S)/").target(),
                    ),
                ),
            node("/^(?:VP|S|SBAR|SBARQ|SINV|ADJP|PP|QP|(?:WH)?NP(?:-TMP|-ADV)?|ADVP|UCP(?:-TMP|-ADV)?|NX|NML)$/")
                .either(vec![
                    all().has(
                        Child,
                        node("CC").has(
                            SisterAfter,
                            coordinator().has(NextSister, not_separator().target()),
                        ),
                    ),
                    all().has(ChildAt(-1), etc().target()),
                    all().has(ChildAt(-1), phrase_with_etc().target()),
                ]),
            node("PCONJP").has(Child, node("CC").has(NextSister, node("IN|TO").target())),
            node("/.*/").has(
                Child,
                node("/^(.*)$/#1%x").has(
                    NextSister,
                    node("/,/")
                        .has(Child, node(r"/\//"))
                        .has(NextSister, node("/^(.*)$/#1%x").target()),
                ),
            ),
        ],
    }
}

/// Conjunct to its coordinating word: "apples [and] pears", "not only ... [but also]".
fn cc() -> Definition {
    Definition {
        name: "cc",
        parent: Some("dep"),
        governors: Some(".*"),
        targets: vec![any()
            .either(vec![
                all().has(
                    Child,
                    node("CC")
                        .target()
                        .not(Child, node(words(&["either", "neither", "both"]))),
                ),
                all().has(
                    Child,
                    node("CONJP").target().not(
                        Child,
                        node("RB").has(Child, node(words(&["not"]))).has(
                            NextSister,
                            node("RB|JJ").has(Child, node(words(&["only", "just", "merely"]))),
                        ),
                    ),
                ),
            ])
            .either(vec![
                all().not(Parent, node("/PP/")),
                all().not(ChildNumber(2), node("NP")),
            ])],
    }
}

/// Phrase to a punctuation mark in it: "Stop[!]", "red[,] white".
fn punct() -> Definition {
    Definition {
        name: "punct",
        parent: Some("dep"),
        governors: Some(".*"),
        targets: vec![
            any().has(
                Child,
                node(r"/^(?:\.|:|,|''|``|\*|-LRB-|-RRB-|HYPH)$/").target(),
            ),
            any().has(
                Child,
                node("NFP")
                    .target()
                    .not(Child, node(western_smiley()))
                    .not(Child, node(asian_smiley())),
            ),
        ],
    }
}

/// Predicate to its noun phrase subject: "[the cat] sleeps", "[who] called?".
fn nsubj() -> Definition {
    let no_there = || node("NP").target().not(Child, node("EX"));
    let finite = "VP|VBZ|VBD|VBP|VB|MD|AUX";
    Definition {
        name: "nsubj",
        parent: Some("subj"),
        governors: Some("S|SQ|SBARQ|SINV|SBAR|PRN"),
        targets: vec![
            node("S")
                .named("subj")
                .has(
                    Child,
                    node("NP|WHNP")
                        .target()
                        .either(vec![all()
                            .not(Child, node("EX"))
                            .not(HeadChild, time_noun())])
                        .has(SisterAfter, node("VP").named("verb")),
                )
                .has(
                    Anywhere,
                    same("subj").either(vec![
                        all().not(Parent, node("VP")),
                        all().not(Dominates, same("verb").has(Child, node("TO"))),
                    ]),
                ),
            node("S").has(
                Child,
                node("NP")
                    .target()
                    .has(HeadChild, time_noun())
                    .not(SisterAfter, node("NP"))
                    .has(SisterAfter, node("VP")),
            ),
            node("SQ|PRN").has(Child, no_there().has(SisterAfter, node("VP"))),
            node("SQ").has(
                Child,
                no_there()
                    .has(PrevSister, copula())
                    .not(SisterAfter, node("VP")),
            ),
            node("SQ")
                .has(
                    Child,
                    no_there()
                        .has(PrevSister, verb_or_aux())
                        .not(SisterAfter, node("VP")),
                )
                .not(SisterBefore, node("NP|WHNP")),
            node("SQ").has(
                Child,
                no_there().either(vec![all()
                    .has(PrevSister, node("RB").has(PrevSister, verb_or_aux()))
                    .neither(vec![all().has(SisterAfter, node("VP"))])]),
            ),
            node("SBARQ").has(Child, node("WHNP").target()).has(
                Child,
                node("SQ").has(Child, node("VP").not(SisterBefore, node("NP"))),
            ),
            node("SBARQ").has(Child, node("WHNP").target()).has(
                Child,
                node("SQ").has(
                    Child,
                    node("/^(?:VB)/")
                        .not(Child, node(copular_words()))
                        .either(vec![all()
                            .not(SisterBefore, node("NP"))
                            .not(SisterAfter, node("VP"))]),
                ),
            ),
            node("SBARQ").has(
                Child,
                node("SQ")
                    .target()
                    .has(Child, copula())
                    .not(Child, node("VP")),
            ),
            node("SINV").has(
                Child,
                node("NP|WHNP").target().either(vec![
                    all().has(PrevSister, node(finite)),
                    all().has(PrevSister, node("@RB|ADVP").has(PrevSister, node(finite))),
                    all().not(PrevSister, any()).not(Sister, node("@NP")),
                ]),
            ),
            node("SINV").has(
                Child,
                node("NP").has(
                    SisterAfter,
                    node("NP")
                        .target()
                        .has(SisterAfter, node("VP").has(Child, copula())),
                ),
            ),
            node("S")
                .has(Child, node("NP").target().has(NextSister, node("NP|ADJP")))
                .has(Parent, node("VP")),
            node("SBAR").has(Child, node("WHNP").target()).either(vec![
                all().has(
                    Child,
                    node("S")
                        .has(Child, node("VP").not(SisterBefore, node("NP")))
                        .not(Child, node("SBAR")),
                ),
                all()
                    .has(Child, node("VP").not(SisterBefore, node("NP")))
                    .not(Child, node("S")),
            ]),
            node("SBAR")
                .not(Child, node("WHNP"))
                .has(
                    Child,
                    node("S").not(Child, node("NP").has(SisterAfter, node("VP"))),
                )
                .has(
                    Parent,
                    node("VP").has(Parent, node("S").has(PrevSister, node("WHNP").target())),
                ),
            node("SQ").has(
                Child,
                node("NP")
                    .has(Child, node("EX"))
                    .has(SisterAfter, node("NP").target()),
            ),
            node("S").has(Child, node("NP").has(Child, node("EX"))).has(
                DownThrough("VP"),
                node("VP").has(Child, node("NP").target()),
            ),
            node("SBARQ")
                .has(Child, copula())
                .has(Child, node("WHNP").has(Child, node("WP")))
                .has(Child, node("NP").target()),
            node("SBARQ").has(
                Child,
                node("WHNP").target().has(
                    SisterAfter,
                    copula().either(vec![all()
                        .has(SisterAfter, node("ADJP").named("adj"))
                        .not(SisterAfter, node("NP").has(SisterAfter, same("adj")))]),
                ),
            ),
            node("SBARQ").has(ChildAt(1), node("WHNP").target()).has(
                Child,
                node("SQ").has(Child, copula()).either(vec![
                    all().has(Child, node("NP").has(Child, node("EX"))),
                    all().has(Child, node("PP")),
                ]),
            ),
        ],
    }
}

/// Passive verb to its noun phrase subject: "[the cake] was eaten".
fn nsubjpass() -> Definition {
    Definition {
        name: "nsubjpass",
        parent: Some("nsubj"),
        governors: Some("S|SQ"),
        targets: vec![node("S|SQ")
            .has(Child, node("WHNP|NP").target().not(Child, node("EX")))
            .has(
                Child,
                node("VP")
                    .has(Child, verb_or_aux().has(Child, node(passive_aux_words())))
                    .has(Child, node("VP").has(Child, node("VBN|VBD"))),
            )],
    }
}

/// Predicate to a clause as its subject: "[what she said] surprised us".
fn csubj() -> Definition {
    Definition {
        name: "csubj",
        parent: Some("subj"),
        governors: Some("S"),
        targets: vec![node("S").has(
            Child,
            node("SBAR|S")
                .target()
                .not(NextSister, node("/^,$/"))
                .has(SisterAfter, node("VP").not(SisterBefore, node("NP"))),
        )],
    }
}

/// Passive verb to a clause as its subject: "[that he lied] was proven".
fn csubjpass() -> Definition {
    let clause = || node("SBAR|S").target().not(NextSister, node("/^,$/"));
    Definition {
        name: "csubjpass",
        parent: Some("csubj"),
        governors: Some("S"),
        targets: vec![
            node("S").has(
                Child,
                clause().has(
                    SisterAfter,
                    node("VP")
                        .has(Child, node("VP").has(Child, node("VBN|VBD")))
                        .has(
                            Child,
                            node("/^(?:VB|AUXG?)/").has(Child, node(passive_aux_words())),
                        )
                        .not(SisterBefore, node("NP")),
                ),
            ),
            node("S").has(
                Child,
                clause().has(
                    SisterAfter,
                    node("VP")
                        .has(
                            DownThrough("VP"),
                            node("VP").has(Child, node("VBN|VBD")).has(
                                Parent,
                                node("VP").has(
                                    Child,
                                    verb_or_aux().has(Child, node(passive_aux_words())),
                                ),
                            ),
                        )
                        .not(SisterBefore, node("NP")),
                ),
            ),
        ],
    }
}

/// Verb to the noun phrase it acts on: "she read [the letter]".
fn dobj() -> Definition {
    let to_infinitive = || node("S").has(Child, node("VP").has(Child, node("TO")));
    Definition {
        name: "dobj",
        parent: Some("obj"),
        governors: Some("VP|SQ|SBARQ?"),
        targets: vec![
            node("VP")
                .not(
                    Child,
                    verb_or_aux().either(vec![
                        all().has(Child, node(copular_words())),
                        all().has(Child, node(clausal_complement_words())),
                    ]),
                )
                .has(Child, object_noun_phrase())
                .has(HeadChild, head_before_target()),
            node("VP").has(
                Child,
                node("S").has(
                    Child,
                    node("NP|WHNP")
                        .target()
                        .has(SisterAfter, node("VP").has(Child, node("TO"))),
                ),
            ),
            node("SQ")
                .has(
                    Child,
                    node("/^(?:VB)/")
                        .named("verb")
                        .not(Child, node(copular_words())),
                )
                .has(SisterBefore, node("WHNP"))
                .not(Child, node("VP"))
                .not(Child, node("/^(?:VB)/").not(Same, same("verb")))
                .has(Child, object_noun_phrase()),
            node("SBARQ")
                .has(
                    Child,
                    node("WHNP")
                        .target()
                        .not(Child, node("WRB"))
                        .not(HeadChild, time_noun()),
                )
                .has(
                    DownThrough("SQ|SINV|S|VP"),
                    node("VP")
                        .not(Child, node("NP|TO"))
                        .not(Child, to_infinitive())
                        .not(
                            Child,
                            copula().has(SisterAfter, node("VP").has(Child, node("VBN|VBD"))),
                        )
                        .not(Child, node("PP").has(OnlyChild, node("IN|TO")))
                        .has(SisterBefore, node("NP").not(Child, node("/^-NONE-$/"))),
                ),
            node("SBAR")
                .has(Child, node("WHNP").target().not(Child, node("WRB")))
                .has(
                    Child,
                    node("S").has(Child, node("NP")).has(
                        Child,
                        node("VP")
                            .not(Child, node("SBAR"))
                            .not(
                                DownThrough("VP"),
                                node("PP").has(ChildAt(-1), node("IN|TO")),
                            )
                            .not(Child, to_infinitive()),
                    ),
                ),
            node("SBARQ").has(
                Child,
                node("WHNP").target().has(
                    SisterAfter,
                    copula().either(vec![all()
                        .has(
                            SisterAfter,
                            node("ADJP")
                                .named("adj")
                                .not(Child, node("PP").not(Child, node("NP"))),
                        )
                        .has(SisterAfter, node("NP").has(SisterAfter, same("adj")))]),
                ),
            ),
        ],
    }
}

/// Verb to the first of two noun phrase objects, the recipient: "gave [her] a book".
fn iobj() -> Definition {
    Definition {
        name: "iobj",
        parent: Some("obj"),
        governors: Some("VP"),
        targets: vec![
            node("VP").has(
                Child,
                node("NP")
                    .target()
                    .not(Child, node(r"/\$/"))
                    .not(HeadChild, time_noun())
                    .has(NextSister, node("NP").not(HeadChild, time_noun())),
            ),
            node("VP").has(
                Child,
                node("NP").target().has(
                    Child,
                    node("NP")
                        .not(Child, node(r"/\$/"))
                        .has(
                            SisterAfter,
                            node("NP")
                                .not(OnlyChild, node("PRP").has(Child, node(self_words())))
                                .not(OnlyChild, node("DT"))
                                .not(Child, node("/^NN/").has(Child, node(time_or_lot_words()))),
                        )
                        .not(Sister, node("CC|CONJP"))
                        .not(Sister, node("/^,$/"))
                        .not(SisterAfter, node("/^:$/")),
                ),
            ),
        ],
    }
}

/// Verb or adjective to a clause it takes as complement: "says [that it rained]".
fn ccomp() -> Definition {
    let clause_with_verb = || node("S").has(Child, node("VP"));
    let to_infinitive = || node("S").has(Child, node("VP").has(Child, node("TO")));
    let marker_after_adverb = || node("IN|WHADVP").has(PrevSister, node("ADVP|RB"));
    Definition {
        name: "ccomp",
        parent: Some("comp"),
        governors: Some("VP|SINV|S|ADJP|ADVP|NP(?:-.*)?"),
        targets: vec![
            node("VP").has(
                Child,
                node("S")
                    .target()
                    .has(Child, node("VP").not(ChildAt(1), node("TO|VBG|VBN")))
                    .not(SisterBefore, node("NP")),
            ),
            node("VP").has(
                Child,
                node("SBAR")
                    .target()
                    .has(Child, node("S").has(DownThrough("S"), node("VP")))
                    .has(ChildAt(1), node("IN|DT").has(Child, that_or_whether())),
            ),
            node("VP").has(
                Child,
                node("SBAR")
                    .target()
                    .has(
                        Child,
                        node("SBAR")
                            .has(Child, node("S").has(DownThrough("S"), node("VP")))
                            .has(ChildAt(1), node("IN|DT").has(Child, that_or_whether())),
                    )
                    .has(Child, node("CC|CONJP")),
            ),
            node("VP").has(
                Child,
                node("SBAR")
                    .target()
                    .has(Child, clause_with_verb())
                    .not(SisterBefore, node("NP"))
                    .not(ChildAt(1), node("IN|WHADVP"))
                    .not(ChildAt(2), marker_after_adverb()),
            ),
            node("VP")
                .has(Child, node("/^V/").has(Child, node(ccomp_obj_verbs())))
                .has(
                    Child,
                    node("SBAR")
                        .target()
                        .has(Child, clause_with_verb())
                        .has(SisterBefore, node("NP"))
                        .not(ChildAt(1), node("IN|WHADVP"))
                        .not(ChildAt(2), marker_after_adverb()),
                ),
            node("VP").has(
                Child,
                node("SBAR")
                    .target()
                    .has(Child, clause_with_verb())
                    .not(SisterBefore, node("NP"))
                    .has(
                        ChildAt(1),
                        node("WHADVP").has(Child, node("WRB").has(Child, node(words(&["how"])))),
                    ),
            ),
            node("VP").has(Child, node("@SBARQ").target()),
            node("VP")
                .has(Child, node("/^VB/").has(Child, node(have_words())))
                .has(
                    Child,
                    node("S")
                        .target()
                        .has(Child, node("@NP"))
                        .has(Child, node("VP")),
                ),
            node("VP")
                .has(
                    Child,
                    node("@SBAR")
                        .target()
                        .not(SisterBefore, node("@SBAR|S"))
                        .not(SisterBefore, node("/^:$/"))
                        .either(vec![
                            all().has(Same, node("@SBAR").named("sbar")),
                            all().has(HeadChild, node("@SBAR").named("sbar")),
                        ]),
                )
                .has(Child, node("/^V/").has(Child, node(ccomp_verbs())))
                .either(vec![
                    all().has(Child, node("/^V/").has(Child, node(ccomp_obj_verbs()))),
                    all().has(Child, same("target").not(SisterBefore, node("NP"))),
                ])
                .has(
                    Anywhere,
                    same("sbar")
                        .has(
                            Child,
                            node("WHADVP|WHNP")
                                .has(Child, node("WRB").not(Child, node(words(&["how"]))))
                                .not(SisterBefore, node("/^(?!RB|ADVP).*$/")),
                        )
                        .not(Child, to_infinitive()),
                ),
            node("@S|SINV")
                .has(
                    Child,
                    node("@S|SBARQ")
                        .target()
                        .has(NextSister, node(r"/^(,|\.|'')$/"))
                        .not(PrevSister, node("/^(?:CC|CONJP|:)$/"))
                        .not(
                            PrevSister,
                            node("/^(?:,)$/").has(PrevSister, node("CC|CONJP")),
                        )
                        .not(Child, node("VP").has(Child, node("TO|VBG|VBN")))
                        .not(
                            Child,
                            node("VP").has(
                                ChildAt(1),
                                node("VP").either(vec![
                                    all().has(ChildAt(1), node("VBG|VBN")),
                                    all().has(
                                        ChildAt(2),
                                        node("VBG|VBN").has(SisterBefore, node("ADVP")),
                                    ),
                                ]),
                            ),
                        ),
                )
                .not(
                    Child,
                    node("@S")
                        .not(Same, same("target"))
                        .has(SisterAfter, same("target"))
                        .not(SisterAfter, node("@CC|CONJP")),
                ),
            node("ADVP").has(
                Child,
                node("SBAR").target().either(vec![
                    all().has(Child, node("WHNP")),
                    all()
                        .has(Child, node("IN").has(Child, node("/^(?i:as|that)/")))
                        .has(
                            Child,
                            node("S").has(Child, node("VP").not(Child, node("TO"))),
                        ),
                ]),
            ),
            node("ADJP").has(
                Child,
                node("SBAR")
                    .target()
                    .not(Child, node("IN").has(Child, node("as")))
                    .has(Child, node("S")),
            ),
            node("S").has(
                ChildAt(1),
                node("SBAR")
                    .target()
                    .has(ChildAt(1), node("IN").has(Child, that_or_whether()))
                    .not(NextSister, node("VP")),
            ),
            node("@NP").has(Child, node("JJ|NN|NNS")).has(
                Child,
                node("SBAR").target().either(vec![
                    all().not(Child, to_infinitive()),
                    all().not(SisterBefore, node("NP|NN|NNP|NNS")),
                ]),
            ),
        ],
    }
}

/// Verb or adjective to a predicate whose subject is outside it: "wants [to leave]",
/// "seems [happy]".
fn xcomp() -> Definition {
    let after_order = || node("NN").has(Child, node("order"));
    let to_phrase = || node("VP").has(Child, node("TO"));
    Definition {
        name: "xcomp",
        parent: Some("comp"),
        governors: Some("VP|ADJP|SINV"),
        targets: vec![
            node("VP").has(
                Child,
                node("S")
                    .target()
                    .either(vec![
                        all().not(SisterBefore, node("NP")),
                        all().has(SisterBefore, node("/^V/").has(Child, node(xcomp_verbs()))),
                    ])
                    .not(PrevSister, after_order())
                    .has(Child, to_phrase()),
            ),
            node("ADJP").has(
                Child,
                node("S")
                    .target()
                    .has(ChildAt(1), node("VP").has(ChildAt(1), node("TO"))),
            ),
            node("VP").has(
                Child,
                node("S")
                    .target()
                    .not(PrevSister, after_order())
                    .has(Child, node("NP").has(NextSister, node("NP|ADJP"))),
            ),
            node("VP").has(
                HeadChild,
                verb_or_aux().has(NextSister, node("VP").target().has(Child, node("VB|VBG"))),
            ),
            node("VP")
                .has(
                    Child,
                    node("SBAR").target().has(
                        Child,
                        node("S")
                            .not(PrevSister, after_order())
                            .has(Child, to_phrase()),
                    ),
                )
                .not(
                    Parent,
                    node("VP").has(Child, node("VB|AUX").has(Child, node("be"))),
                ),
            node("VP")
                .has(
                    Child,
                    node("S")
                        .target()
                        .not(PrevSister, after_order())
                        .has(OnlyChild, node("NP")),
                )
                .has(Parent, node("VP")),
            node("VP").has(Child, node("S").target().not(Child, node("VP"))),
            node("VP")
                .has(Child, node("/^VB/").has(NextSister, adjectival_clause()))
                .has(
                    SisterBefore,
                    node("/^VB/").has(Child, node(copular_words())),
                ),
            node("VP").has(
                Child,
                node("S")
                    .target()
                    .has(Child, node("VP").has(Child, node("VBG")))
                    .not(Child, node("NP"))
                    .not(
                        PrevSister,
                        node("/^,$/").either(vec![
                            all().has(PrevSister, node("@NP|VP")),
                            all().has(PrevSister, node("@PP").has(SisterBefore, node("@NP"))),
                            all().has(PrevSister, node("@ADVP").has(SisterBefore, node("@NP"))),
                        ]),
                    )
                    .not(SisterBefore, node("/^:$/"))
                    .not(SisterBefore, node("VBG")),
            ),
            node("VP")
                .has(SisterBefore, copula())
                .has(
                    Child,
                    node("/^VB/").has(Child, node(clausal_complement_words())),
                )
                .has(Child, node("NP").target()),
            node("VP")
                .has(
                    Child,
                    verb_or_aux().has(Child, node(clausal_complement_words())),
                )
                .has(Child, object_noun_phrase())
                .has(HeadChild, head_before_target()),
            node("VP")
                .named("vp")
                .has(Child, node("NP").target())
                .has(Child, copula().has(HeadsUpTo, same("vp")))
                .not(Sister, node("NP").has(Child, node("EX"))),
            node("SINV").has(
                HeadChild,
                node("VP").has(Child, copula()).has(
                    SisterBefore,
                    node("NP").has(SisterBefore, node("NP").target()),
                ),
            ),
            node("VP").either(vec![
                all().has(Child, node("ADJP").target()),
                all()
                    .has(
                        Child,
                        node("/^VB/").either(vec![
                            all()
                                .has(Child, node(clausal_complement_words()))
                                .has(SisterAfter, node("VP").target()),
                            all().has(NextSister, adjectival_clause()),
                        ]),
                    )
                    .not(
                        SisterBefore,
                        node("/^VB/").has(Child, node(copular_words())),
                    ),
            ]),
        ],
    }
}

/// Relative clause to a fronted wh-phrase that is no subject: "the book [which] you read".
fn rel() -> Definition {
    Definition {
        name: "rel",
        parent: Some("comp"),
        governors: Some("SBAR|SBARQ"),
        targets: vec![
            node("SBAR")
                .has(Child, node("WHNP").target().not(Child, node("WRB")))
                .has(
                    Child,
                    node("S").has(Child, node("NP")).has(
                        Child,
                        node("VP").either(vec![
                            all().has(Child, node("SBAR")),
                            all().has(
                                DownThrough("VP"),
                                node("PP").has(ChildAt(-1), node("IN|TO")),
                            ),
                            all().has(
                                Child,
                                node("S").has(Child, node("VP").has(Child, node("TO"))),
                            ),
                        ]),
                    ),
                ),
            node("SBARQ")
                .has(
                    Child,
                    node("WHNP")
                        .target()
                        .not(Child, node("WRB"))
                        .not(HeadChild, time_noun()),
                )
                .has(
                    DownThrough("SQ|SINV"),
                    copula().not(SisterAfter, node("VP")),
                ),
        ],
    }
}

/// Verb or adjective to a preposition standing alone: "the lights went [out]".
fn prep() -> Definition {
    Definition {
        name: "prep",
        parent: Some("comp"),
        governors: Some("VP|ADJP"),
        targets: vec![node("VP|ADJP").has(Child, node("PP").target().has(OnlyChild, node("IN|TO")))],
    }
}

/// Verb to an empty "there" subject: "[there] is a fly in my soup".
fn expl() -> Definition {
    Definition {
        name: "expl",
        parent: Some("dep"),
        governors: Some("S|SQ|SINV"),
        targets: vec![node("S|SQ|SINV").has(
            Child,
            node("NP").target().has(DownThrough("NP"), node("EX")),
        )],
    }
}
