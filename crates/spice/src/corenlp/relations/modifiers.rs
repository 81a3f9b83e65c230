//! Relations of modifiers (`mod` to `agent` in CoreNLP's source), with the few relations
//! defined among them that hang directly under `dep` (`parataxis`, `list`, `sdep`, `agent`).

use super::super::patterns::{all, any, node, same, words, Clauses, Node, Rel::*};
use super::words::{
    ccomp_obj_verbs, ccomp_verbs, copular_words, self_words, time_words, xcomp_verbs,
};
use super::Definition;

pub fn definitions() -> Vec<Definition> {
    vec![
        modifier(),
        nmod(),
        advcl(),
        acl_relcl(),
        mark(),
        amod(),
        nummod(),
        compound(),
        appos(),
        discourse(),
        acl(),
        advmod(),
        neg(),
        nmod_npmod(),
        nmod_tmod(),
        mwe(),
        det(),
        det_predet(),
        cc_preconj(),
        nmod_poss(),
        case(),
        compound_prt(),
        parataxis(),
        goeswith(),
        list(),
        sdep(),
        agent(),
    ]
}

/// A relation found by no pattern of its own.
fn abstract_relation(name: &'static str, parent: &'static str) -> Definition {
    Definition {
        name,
        parent: Some(parent),
        governors: None,
        targets: Vec::new(),
    }
}

fn relation(
    name: &'static str,
    parent: &'static str,
    governors: &'static str,
    targets: Vec<Node>,
) -> Definition {
    Definition {
        name,
        parent: Some(parent),
        governors: Some(governors),
        targets,
    }
}

// ---------------------------------------------------------------------------------------------
// Small pieces several relations share.

/// A foreign-word "etc." (or its common misspelling).
fn etc() -> Node {
    node("FW").has(Child, node(words(&["(etc|ect)"])))
}

/// A phrase opening with a foreign-word "etc.".
fn phrase_etc() -> Node {
    node("ADVP|NP").has(ChildAt(1), etc())
}

/// Words of negation: "not", "n't", "nt", "never".
fn negation_words() -> String {
    words(&["n[o']?t", "never"])
}

/// Emoticons written sideways, western style: ":-)", ";P".
fn western_smiley() -> &'static str {
    r"/^(?:[<>]?[:;=8][\-o\*']?(?:-RRB-|-LRB-|[DPdpO\/\\\:}{@\|\[\]])|(?:-RRB-|-LRB-|[DPdpO\/\\\:}{@\|\[\]])[\-o\*']?[:;=8][<>]?)$/"
}

/// Emoticons written upright, eastern style: "^_^", "-_-".
fn asian_smiley() -> &'static str {
    r"/(?!^--$)^(?:-LRB-)?[\-\^x=~<>'][_.]?[\-\^x=~<>'](?:-RRB-)?$/"
}

/// A verb (or auxiliary) that is a form of "be".
fn copula() -> Node {
    node("/^(?:VB|AUX)/").has(Child, node(copular_words()))
}

/// The clause of a relative or comparative clause without a relative pronoun: a subject
/// followed by a VP that is neither copular nor passive and has no object, no clause and no
/// stranded preposition (headed by one of `stranded`).
fn gapped_clause(stranded: &str) -> Node {
    node("S").has(
        Child,
        node("@NP").has(
            SisterAfter,
            node("VP")
                .not(Child, copula().not(NextSister, node("VP")))
                .not(
                    DownThrough("VP"),
                    copula().has(NextSister, node("VP").has(Child, node("VBN|VBD"))),
                )
                .not(DownThrough("VP"), node("NP"))
                .not(Child, node("SBAR"))
                .not(
                    DownThrough("VP"),
                    node("PP").has(ChildAt(-1), node(stranded)),
                ),
        ),
    )
}

/// A clause with an infinitival "to" VP.
fn to_clause() -> Node {
    node("S").has(Child, node("VP").has(Child, node("TO")))
}

/// A subordinating word other than a complementizer ("because", "while").
fn subordinator() -> Node {
    node("IN|MWE")
        .not(Child, node(words(&["that", "whether"])))
        .not(NextSister, node("NN").has(Child, node("order")))
}

/// The SBAR named `sbar` opens with a wh-adverb other than "how" (perhaps after adverbs).
fn wh_adverbial(sbar: Node) -> Node {
    sbar.has(
        Child,
        node("WHADVP|WHNP")
            .has(Child, node("WRB").not(Child, node(words(&["how"]))))
            .not(SisterBefore, node("/^(?!RB|ADVP).*$/")),
    )
    .not(Child, to_clause())
}

/// An SBAR, or the head SBAR of conjoined ones, named `sbar`.
fn sbar_or_its_head() -> Vec<Clauses> {
    vec![
        all().has(Same, node("@SBAR").named("sbar")),
        all().has(HeadChild, node("@SBAR").named("sbar")),
    ]
}

/// A participial VP, possibly after an adverb.
fn participle_first() -> Vec<Clauses> {
    vec![
        all().has(ChildAt(1), node("VBG|VBN")),
        all().has(ChildAt(2), node("VBG|VBN").has(SisterBefore, node("ADVP"))),
    ]
}

// ---------------------------------------------------------------------------------------------
// The relations, in the order of CoreNLP's source.

/// Any modifier; found only through the relations below it.
fn modifier() -> Definition {
    abstract_relation("mod", "dep")
}

/// A nominal, usually inside a prepositional phrase, modifying a word: "sat (on the bench)".
fn nmod() -> Definition {
    const GOVERNORS: &str =
        "/^(?:(?:WH)?(?:NP|ADJP|ADVP|NX|NML)(?:-TMP|-ADV)?|VP|NAC|SQ|FRAG|PRN|X|RRC)$/";
    relation(
        "nmod",
        "mod",
        ".*",
        vec![
            node(GOVERNORS)
                .has(
                    Child,
                    node("WHPP|WHPP-TMP|PP|PP-TMP").target().either(vec![
                        all().has(Child, node("@NP|WHNP|NML")),
                        all().has(Child, node("PP").has(Child, node("@NP|WHNP|NML"))),
                    ]),
                )
                .not(ChildAt(-1), etc())
                .not(ChildAt(-1), phrase_etc()),
            node(GOVERNORS).has(
                Child,
                node("S")
                    .target()
                    .has(OnlyChild, node("WHPP|WHPP-TMP|PP|PP-TMP")),
            ),
            node("WHPP|WHPP-TMP|WHPP-ADV|PP|PP-TMP|PP-ADV").has(
                Child,
                node("WHPP|WHPP-TMP|WHPP-ADV|PP|PP-TMP|PP-ADV")
                    .target()
                    .not(PrevSister, node("IN|VBG|VBN|TO")),
            ),
            node("S|SINV")
                .has(Child, node("PP|PP-TMP").target().not(Child, node("SBAR|S")))
                .has(Child, node("VP|S")),
            node("SBAR|SBARQ")
                .has(Child, node("/^(?:WH)?PP/").target())
                .has(Child, node("S|SQ")),
            node("@NP").has(Child, node("@UCP|PRN").target().has(HeadChild, node("@PP"))),
            node("SBARQ").has(
                Child,
                node("WHNP").target().has(
                    SisterAfter,
                    // The copula's sisters are a group of their own, as in CoreNLP (where
                    // the copula is written in parentheses before them).
                    copula().either(vec![all()
                        .has(
                            SisterAfter,
                            node("ADJP")
                                .named("adj")
                                .has(Child, node("PP").has(OnlyChild, node("IN"))),
                        )
                        .has(SisterAfter, node("NP").has(SisterAfter, same("adj")))]),
                ),
            ),
            node("SBARQ").has(
                Child,
                node("WHNP").target().either(vec![
                    all().has(
                        SisterAfter,
                        node("VP").has(Child, node("PP").has(OnlyChild, node("IN"))),
                    ),
                    all().has(
                        SisterAfter,
                        node("SQ").has(
                            Child,
                            node("VP").has(Child, node("PP").has(OnlyChild, node("IN"))),
                        ),
                    ),
                ]),
            ),
        ],
    )
}

/// A clause modifying a predicate as an adjunct: "left (because it rained)".
fn advcl() -> Definition {
    relation(
        "advcl",
        "mod",
        "VP|S|SQ|SINV|SBARQ|NP|ADVP|ADJP",
        vec![
            node("VP").has(
                Child,
                node("@SBAR").target().has(
                    SelfOrChild,
                    node("@SBAR").either(vec![
                        all().has(
                            Child,
                            node("IN|MWE").not(Child, node(words(&["that", "whether"]))),
                        ),
                        all().has(
                            OnlyChild,
                            node("SINV").has(ChildAt(1), node("/^(?:VB|MD|AUX)/")),
                        ),
                        all()
                            .has(Child, node("RB|IN").has(Child, node("so|now")))
                            .has(Child, node("IN").has(Child, node("that"))),
                        all()
                            .has(
                                ChildAt(1),
                                node("ADVP").has(Child, node("RB").has(Child, node("now"))),
                            )
                            .has(ChildAt(2), node("IN").has(Child, node("that"))),
                    ]),
                ),
            ),
            node("S|SQ|SINV").has(
                Child,
                node("SBAR|SBAR-TMP")
                    .target()
                    .has(ChildAt(1), subordinator())
                    .not(SisterBefore, node("/^(?!CC|CONJP|``|,|INTJ|PP(-.*)?).*$/"))
                    .not(NextSister, node("VP")),
            ),
            node("S|SQ|SINV").has(
                Child,
                node("SBAR|SBAR-TMP")
                    .target()
                    .has(ChildAt(1), subordinator())
                    .not(NextSister, node("@VP"))
                    .has(NextSister, node("/^,$/"))
                    .has(SisterAfter, node("@NP")),
            ),
            node("SBARQ").has(
                Child,
                node("SBAR|SBAR-TMP|SBAR-ADV")
                    .target()
                    .has(ChildAt(1), subordinator())
                    .has(NextSister, node("/^,$/"))
                    .has(SisterAfter, node("@SQ|S|SBARQ")),
            ),
            node("S|SQ")
                .has(Child, node("@SBAR").target().either(sbar_or_its_head()))
                .has(
                    Anywhere,
                    wh_adverbial(same("sbar")).not(SisterBefore, node("/^:$/")),
                ),
            node("VP")
                .has(
                    Child,
                    node("@SBAR")
                        .target()
                        .not(SisterBefore, node("/^:$/"))
                        .either(sbar_or_its_head()),
                )
                .either(vec![
                    all().not(Child, node("/^V/").has(Child, node(ccomp_verbs()))),
                    all().has(Child, same("target").has(SisterBefore, node("@SBAR|S"))),
                    all()
                        .not(Child, node("/^V/").has(Child, node(ccomp_obj_verbs())))
                        .has(Child, same("target").has(SisterBefore, node("NP"))),
                ])
                .has(Anywhere, wh_adverbial(same("sbar"))),
            node("@S").has(
                Child,
                node("@SBAR")
                    .target()
                    .has(SisterAfter, node("@NP"))
                    .has(SisterAfter, node("@VP")),
            ),
            node("@S").has(
                Child,
                node("@S")
                    .target()
                    .has(Child, node("VP").has(Child, node("TO")))
                    .has(NextSister, node("/^,$/").has(SisterAfter, node("@NP"))),
            ),
            node("NP").has(
                Child,
                node("NP")
                    .has(
                        SisterAfter,
                        node("SBAR")
                            .target()
                            .has(Child, node("IN|MWE").has(Child, node(words(&["than"]))))
                            .not(Child, node("WHPP|WHNP|WHADVP"))
                            .has(Child, gapped_clause("IN|TO|MWE"))
                            .not(
                                OnlyChild,
                                node("S").not(Child, node("VP").has(Child, node("TO"))),
                            ),
                    )
                    .not(SisterAfter, node("CC").has(SisterAfter, same("target"))),
            ),
            node("ADVP")
                .has(Child, node("ADVP"))
                .has(Child, node("SBAR").target()),
            node("S|SINV")
                .has(
                    Child,
                    node("S")
                        .target()
                        .either(vec![
                            all().has(Child, node("VP").named("verb")),
                            all().has(Child, node("VP").has(ChildAt(1), node("VP").named("verb"))),
                        ])
                        .either(vec![
                            all().has(
                                PrevSister,
                                node("/^,$/").either(vec![
                                    all().has(PrevSister, node("@NP")),
                                    all().has(PrevSister, node("@PP").has(Sister, node("@NP"))),
                                ]),
                            ),
                            all().has(NextSister, node("/^,$/").has(NextSister, node("@NP"))),
                        ]),
                )
                .has(Anywhere, same("verb").either(participle_first())),
            node("VP").has(
                Child,
                node("@S")
                    .target()
                    .has(Child, node("VP").either(participle_first()))
                    .has(
                        PrevSister,
                        node("/^,$/").either(vec![
                            all().has(PrevSister, node("@NP|VP")),
                            all().has(PrevSister, node("@PP").has(SisterBefore, node("@NP"))),
                            all().has(PrevSister, node("@ADVP").has(SisterBefore, node("@NP"))),
                        ]),
                    ),
            ),
            node("VP").has(
                Child,
                node("S")
                    .target()
                    .has(Child, node("VP").has(Child, node("VBG")))
                    .has(SisterBefore, node("VBG").named("ing"))
                    .not(SisterBefore, node("/^[:]$/").has(SisterBefore, same("ing"))),
            ),
            node("VP").has(
                Child,
                node("S")
                    .target()
                    .has(SisterBefore, node("NP"))
                    .has(Child, node("VP").has(Child, node("TO")))
                    .not(SisterBefore, node("/^V/").has(Child, node(xcomp_verbs()))),
            ),
            node("SBARQ").has(Child, node("WHNP")).has(
                Child,
                node("S")
                    .target()
                    .has(Child, node("VP").has(ChildAt(1), node("TO"))),
            ),
            node("/^(?:(?:WH)?(?:ADJP|ADVP)(?:-TMP|-ADV)?|VP|SQ|FRAG|PRN|X|RRC|S)$/")
                .has(
                    Child,
                    node("WHPP|WHPP-TMP|PP|PP-TMP")
                        .target()
                        .not(Child, node("@NP|WHNP|NML"))
                        .not(PrevSister, node("@CC|CONJP").has(PrevSister, any()))
                        .not(OnlyChild, node("IN|TO"))
                        .not(Child, node("@CC|CONJP"))
                        .has(Child, node("/^((?!(PP|IN)).)*$/")),
                )
                .not(ChildAt(-1), etc())
                .not(ChildAt(-1), phrase_etc()),
            node("VP|ADJP")
                .has(Child, node("/^PP(?:-TMP|-ADV)?$/").target())
                .has(
                    Child,
                    node("@PP")
                        .has(Child, node("@SBAR|S"))
                        .has(SisterAfter, node("CONJP|CC")),
                ),
        ],
    )
}

/// A relative clause modifying a noun: "the book (you lent me)".
fn acl_relcl() -> Definition {
    relation(
        "acl:relcl",
        "mod",
        "(?:WH)?(?:NP|NML|ADVP)(?:-.*)?",
        vec![
            node("@NP|WHNP|NML")
                .named("np")
                .has(
                    SisterAfter,
                    node("SBAR").target().either(vec![
                        all().has(DownThrough("SBAR"), node("WHPP|WHNP")),
                        all().has(
                            OnlyChild,
                            node("S").not(Child, node("VP").has(Child, node("TO"))),
                        ),
                    ]),
                )
                .not(SisterBefore, node("@NP|WHNP|NML"))
                .not(SisterAfter, etc())
                .not(SisterAfter, phrase_etc())
                .has(Parent, node("@NP|WHNP"))
                .has(
                    Anywhere,
                    same("np").not(
                        SisterAfter,
                        node("CC|CONJP").has(SisterAfter, same("target")),
                    ),
                ),
            node("NP|NML")
                .has(
                    SisterAfter,
                    node("SBAR").target().has(
                        Child,
                        node("WHADVP").has(
                            Child,
                            node("WRB").has(Child, node("/^(?i:where|why|when)/")),
                        ),
                    ),
                )
                .not(SisterBefore, node("NP|NML"))
                .not(SisterAfter, etc())
                .not(SisterAfter, phrase_etc())
                .has(Parent, node("@NP")),
            node("@NP|WHNP")
                .has(Child, node("RRC").target())
                .has(HeadChild, node("NP|WHNP|NML|DT|S")),
            node("@ADVP")
                .has(
                    Child,
                    node("@ADVP").has(Child, node("RB").has(Child, node("/where$/"))),
                )
                .has(Child, node("@SBAR").target()),
            node("NP").has(
                Child,
                node("NP")
                    .has(
                        SisterAfter,
                        node("SBAR")
                            .target()
                            .not(
                                Child,
                                node("IN").has(Child, node(words(&["than", "that", "whether"]))),
                            )
                            .not(Child, node("WHPP|WHNP|WHADVP"))
                            .has(Child, gapped_clause("IN|TO"))
                            .not(
                                OnlyChild,
                                node("S").not(Child, node("VP").has(Child, node("TO"))),
                            ),
                    )
                    .not(SisterAfter, node("CC").has(SisterAfter, same("target"))),
            ),
        ],
    )
}

/// The word introducing a subordinate clause, or infinitival "to": "(if) it rains".
fn mark() -> Definition {
    relation(
        "mark",
        "mod",
        "SBAR(?:-TMP)?|VP|PP(?:-TMP|-ADV)?",
        vec![
            node("VP")
                .has(Child, node("VP"))
                .has(Child, node("TO").target()),
            node("SBAR|SBAR-TMP").has(
                Child,
                node("IN|DT|MWE").target().has(SisterAfter, node("S|FRAG")),
            ),
            node("SBAR")
                .has(
                    Child,
                    node("IN|DT").target().has(Child, node("that|whether")),
                )
                .either(vec![
                    all().has(SisterBefore, node("/^(?:VB|AUX)/")),
                    all().has(PrevSister, node("NP|NN|NNS")),
                    all().has(Parent, node("ADJP|PP")),
                    all().has(
                        Parent,
                        node("@NP|UCP|SBAR")
                            .has(Child, node("CC|CONJP"))
                            .has(SisterBefore, node("/^(?:VB|AUX)/")),
                    ),
                ]),
            node("/^PP(?:-TMP|-ADV)?$/").has(
                Child,
                node("IN|TO|MWE|PCONJP|VBN|JJ")
                    .target()
                    .has(NextSister, node("@SBAR|S")),
            ),
        ],
    )
}

/// An adjective or adjectival phrase modifying a noun: "a (quiet) street".
fn amod() -> Definition {
    relation(
        "amod",
        "mod",
        "NP(?:-TMP|-ADV)?|NX|NML|NAC|WHNP|ADJP|INTJ",
        vec![
            node("/^(?:NP(?:-TMP|-ADV)?|NX|NML|NAC|WHNP|INTJ)$/").has(
                Child,
                node("ADJP|WHADJP|JJ|JJR|JJS|JJP|VBN|VBG|VBD|IN")
                    .target()
                    .not(Child, node("QP").not(Child, node("/^[$]$/")))
                    .not(PrevSister, node("CC")),
            ),
            node("ADJP")
                .not(Child, node("CC|CONJP"))
                .has(Child, node("JJ|NNP").has(Sister, node("JJ|NNP").target())),
            node("WHNP|WHNP-TMP|WHNP-ADV|NP|NP-TMP|NP-ADV").has(
                Child,
                node("NP")
                    .target()
                    .has(OnlyChild, node("CD"))
                    .has(PrevSister, node("/^,$/"))
                    .has(SisterBefore, node("/^(?:WH)?NP/"))
                    .not(Sister, node("CC|CONJP")),
            ),
        ],
    )
}

/// A number modifying a noun: "(three) bridges".
fn nummod() -> Definition {
    const NOMINAL: &str = "/^(?:WH)?(?:NP|NX|NML)(?:-TMP|-ADV)?$/";
    relation(
        "nummod",
        "mod",
        "(?:WH)?NP(?:-TMP|-ADV)?|NML|NX|ADJP|WHADJP|QP",
        vec![
            node(NOMINAL).has(Child, node("CD|QP").target().not(PrevSister, node("CC"))),
            node(NOMINAL).has(
                Child,
                node("ADJP")
                    .target()
                    .has(OnlyChild, node("QP").not(Child, node("/^[$]$/"))),
            ),
            node("QP")
                .has(Child, node("QP").target())
                .has(Child, node("/^[$]$/")),
        ],
    )
}

/// A noun (or number word) forming a compound with the head: "(apple) pie", "(two) hundred".
fn compound() -> Definition {
    const NOMINAL: &str = "/^(?:WH)?(?:NP|NX|NAC|NML)(?:-TMP|-ADV)?$/";
    let possessive_s = || node("VBZ").has(Child, node("/^'s$/"));
    relation(
        "compound",
        "mod",
        "(?:WH)?(?:NP|NX|NAC|NML|ADVP|ADJP|QP)(?:-TMP|-ADV)?",
        vec![
            node(NOMINAL).has(
                Child,
                node("NP|NML|NN|NNS|NNP|NNPS|FW|AFX")
                    .target()
                    .has(SisterAfter, node("NN|NNS|NNP|NNPS|FW|CD").named("sister"))
                    .not(RightmostBelow, node("POS"))
                    .not(RightmostBelow, possessive_s())
                    .not(PrevSister, node("/^,$/"))
                    .not(SisterAfter, node("POS").has(SisterAfter, same("sister"))),
            ),
            node(NOMINAL)
                .has(Child, node("JJ|JJR|JJS").named("sister"))
                .has(
                    Child,
                    node("NP|NML|NN|NNS|NNP|NNPS|FW")
                        .target()
                        .not(RightmostBelow, node("POS"))
                        .not(RightmostBelow, possessive_s())
                        .has(NextSister, same("sister")),
                )
                .has(HeadChild, node("NN|NNS|NNP|NNPS"))
                .not(RightmostBelow, node("POS"))
                .not(RightmostBelow, possessive_s()),
            node("QP|ADJP").has(
                Child,
                node("/^(?:CD|$|#)$/").target().not(PrevSister, node("CC")),
            ),
            node("ADJP|ADVP").has(
                Child,
                node("FW").either(vec![
                    all().has(
                        PrevSister,
                        node("FW").target().not(Child, node(words(&["etc"]))),
                    ),
                    all().has(PrevSister, node("IN").target().has(Child, node("in|In"))),
                ]),
            ),
        ],
    )
}

/// A noun phrase next to another that renames it: "Ada, (my neighbour),".
fn appos() -> Definition {
    const NOMINAL: &str = "WHNP|WHNP-TMP|WHNP-ADV|NP|NP-TMP|NP-ADV";
    const NOMINAL_OR_FRAG: &str = "WHNP|WHNP-TMP|WHNP-ADV|NP|NP-TMP|NP-ADV|FRAG";
    relation(
        "appos",
        "mod",
        "(?:WH)?NP(?:-TMP|-ADV)?|FRAG",
        vec![
            node(NOMINAL_OR_FRAG)
                .has(
                    Child,
                    node("NP")
                        .target()
                        .not(OnlyChild, node("CD"))
                        .has(PrevSister, node("/^,$/"))
                        .has(SisterBefore, node("/^(?:WH)?NP/")),
                )
                .not(Child, node("CC|CONJP"))
                .not(Child, phrase_etc())
                .not(Child, etc()),
            node(NOMINAL_OR_FRAG).has(
                Child,
                node("PRN").target().has(
                    Child,
                    node("NP")
                        .has(Child, node("/^(?:NN|CD)/"))
                        .has(SisterBefore, node("/^-LRB-$/"))
                        .has(NextSister, node("/^-RRB-$/")),
                ),
            ),
            node("@WHNP|NP").has(
                Child,
                node("NP")
                    .target()
                    .not(OnlyChild, node("CD"))
                    .has(ChildAt(1), node("/^-LRB-$/"))
                    .has(ChildAt(-1), node("/^-RRB-$/"))
                    .has(SisterBefore, node("/^(?:WH)?NP/"))
                    .not(Sister, node("CC|CONJP")),
            ),
            node("NP|NP-TMP|NP-ADV")
                .has(
                    Child,
                    node("NNP").has(
                        NextSister,
                        node("/^,$/").has(NextSister, node("NNP").target()),
                    ),
                )
                .not(Child, node("CC|CONJP"))
                .not(Child, phrase_etc())
                .not(Child, etc()),
            node(NOMINAL).has(
                Child,
                node("PRN")
                    .target()
                    .has(ChildAt(1), node("/^-LRB-$/"))
                    .has(ChildAt(-1), node("/^-RRB-$/"))
                    .not(Dominates, node(r"/^(?:POS|(?:WP|PRP)\$|[,$#]|CC|RB|CD)$/"))
                    .has(
                        DownThrough("NP"),
                        node("NNP|NN").has(Child, node(r"/^(?:[A-Z]\.?){2,}/")),
                    ),
            ),
            node(NOMINAL)
                .has(
                    Child,
                    node("NP")
                        .target()
                        .has(OnlyChild, node("NNP"))
                        .has(PrevSister, node("/^(?:WH)?NP/").not(Child, node("POS"))),
                )
                .not(Child, node("CC|CONJP"))
                .not(Child, phrase_etc())
                .not(Child, etc()),
            node("FRAG|NP").has(
                Child,
                node("NP")
                    .has(
                        NextSister,
                        node("/:/").has(NextSister, node("@SQ|S").target()),
                    )
                    .has(OnlyChild, node("NN|NNS")),
            ),
        ],
    )
}

/// An interjection, filler or emoticon loosely attached to a clause: "(well), we tried".
fn discourse() -> Definition {
    relation(
        "discourse",
        "mod",
        ".*",
        vec![
            any().has(
                Child,
                node("NFP").target().either(vec![
                    all().has(Child, node(western_smiley())),
                    all().has(Child, node(asian_smiley())),
                ]),
            ),
            any().either(vec![
                all().has(Child, node("INTJ").target()),
                all().has(
                    Child,
                    node("PRN")
                        .target()
                        .has(ChildAt(1), node("/^(?:,|-LRB-)$/"))
                        .has(ChildAt(2), node("INTJ"))
                        .either(vec![
                            all().not(ChildAt(3), any()),
                            all().has(ChildAt(3), node("/^(?:,|-RRB-)$/")),
                        ]),
                ),
            ]),
        ],
    )
}

/// A clause modifying a noun that is not a relative clause: "a man (carrying a ladder)".
fn acl() -> Definition {
    const NOMINAL: &str = "WHNP|WHNP-TMP|WHNP-ADV|NP|NP-TMP|NP-ADV|NML|NX";
    relation(
        "acl",
        "mod",
        "WHNP|WHNP-TMP|WHNP-ADV|NP(?:-[A-Z]+)?|NML|NX",
        vec![
            node(NOMINAL).has(
                Child,
                node("VP")
                    .target()
                    .has(Child, node("VBG|VBN|VBD"))
                    .has(SisterBefore, node("@NP|NML|NX")),
            ),
            node(NOMINAL).has(
                Child,
                node("/^,$/").has(NextSister, node("VP").target().either(participle_first())),
            ),
            node("/^(?:(?:WH)?(?:NP|NX|NML)(?:-TMP|-ADV)?)$/")
                .has(
                    Child,
                    node("WHPP|WHPP-TMP|PP|PP-TMP")
                        .target()
                        .not(Child, node("@NP|WHNP|NML"))
                        .not(PrevSister, node("@CC|CONJP").has(PrevSister, any()))
                        .has(Child, node("/^((?!(PP|CC|CONJP|,)).)*$/"))
                        .not(
                            Child,
                            node("@PP")
                                .has(ChildAt(1), node("IN|RB|MWE|PCONJP|VBN|JJ"))
                                .has(ChildAt(2), node("@NP")),
                        ),
                )
                .not(ChildAt(-1), etc())
                .not(ChildAt(-1), phrase_etc()),
            node("/^NP(?:-[A-Z]+)?$/").has(
                Child,
                node("S")
                    .target()
                    .has(Child, node("VP").has(Child, node("TO")))
                    .has(SisterBefore, node("NP|NN|NNP|NNS")),
            ),
            node("/^NP(?:-[A-Z]+)?$/").has(
                Child,
                node("SBAR")
                    .target()
                    .has(Child, to_clause())
                    .has(SisterBefore, node("NP|NN|NNP|NNS")),
            ),
        ],
    )
}

/// An adverb or adverbial phrase modifying a word: "(very) tall", "left (early)".
fn advmod() -> Definition {
    const ADVERB: &str = "RB|RBR|RBS|WRB|ADVP|WHADVP";
    let plain_adverb = || {
        node(ADVERB)
            .target()
            .not(Child, node(negation_words()))
            .not(Child, etc())
    };
    relation(
        "advmod",
        "mod",
        "VP|ADJP|WHADJP|ADVP|WHADVP|S|SBAR|SINV|SQ|SBARQ|XS|(?:WH)?(?:PP|NP)(?:-TMP|-ADV)?|RRC|CONJP|JJP|QP",
        vec![
            node("/^(?:VP|ADJP|JJP|WHADJP|SQ?|SBARQ?|SINV|XS|RRC|(?:WH)?NP(?:-TMP|-ADV)?)$/").has(
                Child,
                plain_adverb().either(vec![
                    all().not(
                        DownThrough("/ADVP/"),
                        node("@ADVP").has(Child, node("IN").has(Child, node("/(?i:at)/"))),
                    ),
                    all().not(DownThrough("/ADVP/"), node("@ADVP").has(Child, node("NP"))),
                ]),
            ),
            node("QP").has(Child, node("IN|RB|RBR|RBS|PDT|DT|JJ|JJR|JJS|XS").target()),
            node("QP").has(
                Child,
                node("MWE")
                    .target()
                    .has(
                        Child,
                        node("JJR|RBR|IN").has(Child, node("/^(?i)(more|less)$/")),
                    )
                    .has(Child, node("IN").has(Child, node("/^(?i)than$/"))),
            ),
            node("ADVP|WHADVP")
                .has(
                    Child,
                    node("RB|RBR|RBS|WRB|ADVP|WHADVP|JJ")
                        .target()
                        .not(Child, node(negation_words()))
                        .not(Child, node(words(&["no"])))
                        .not(Child, etc()),
                )
                .either(vec![
                    all().not(Child, node("/^CC|CONJP$/")),
                    all()
                        .has(HeadChild, any().named("head"))
                        .not(
                            Child,
                            node("/^CC|CONJP$/").either(vec![
                                all()
                                    .has(SisterAfter, same("head"))
                                    .has(SisterBefore, same("target")),
                                all()
                                    .has(SisterBefore, same("head"))
                                    .has(SisterAfter, same("target")),
                            ]),
                        ),
                ]),
            node("SBAR").has(Child, node("WHNP").target().has(Child, node("WRB"))),
            node("SBARQ").has(ChildAt(1), node("WHADVP").target()),
            node("XS").has(Child, node("JJ").target()),
            node("/(?:WH)?PP(?:-TMP|-ADV)?$/")
                .has(HeadChild, any().has(SisterBefore, plain_adverb())),
            node("/(?:WH)?PP(?:-TMP|-ADV)?$/")
                .has(Child, node("@NP|WHNP"))
                .has(Child, plain_adverb()),
            node("CONJP").has(
                Child,
                node("RB")
                    .target()
                    .not(Child, node(negation_words()))
                    .not(Child, etc()),
            ),
        ],
    )
}

/// A word of negation: "(not) yet", "did(n't) go".
fn neg() -> Definition {
    relation(
        "neg",
        "advmod",
        "VP|ADJP|S|SBAR|SINV|SQ|NP(?:-TMP|-ADV)?|FRAG|CONJP|PP|NAC|NML|NX|ADVP|WHADVP",
        vec![
            node("/^(?:VP|NP(?:-TMP|-ADV)?|ADJP|SQ|S|FRAG|CONJP|PP)$/").has(
                Child,
                node("RB").target().has(Child, node(negation_words())),
            ),
            node("VP|ADJP|S|SBAR|SINV|FRAG").has(
                Child,
                node("ADVP")
                    .target()
                    .has(HeadChild, node("RB").has(Child, node(negation_words()))),
            ),
            node("VP").has(Parent, node("SQ")).has(
                SisterBefore,
                node("RB").target().has(Child, node(negation_words())),
            ),
            node("/^(?:NP(?:-TMP|-ADV)?|NAC|NML|NX|ADJP|ADVP)$/").has(
                Child,
                node("DT|RB").target().has(Child, node(words(&["no"]))).has(
                    SisterAfter,
                    node("/^(?:N[MNXP]|CD|JJ|JJR|FW|ADJP|QP|RB|RBR|PRP(?![$])|PRN)/"),
                ),
            ),
            node("ADVP|WHADVP")
                .has(
                    Child,
                    node("RB|RBR|RBS|WRB|ADVP|WHADVP|JJ")
                        .target()
                        .has(Child, node(words(&["no"]))),
                )
                .not(Child, node("CC|CONJP")),
        ],
    )
}

/// A noun phrase used as an adverbial: "ten (feet) tall", "the author (herself)".
fn nmod_npmod() -> Definition {
    relation(
        "nmod:npmod",
        "mod",
        "VP|(?:WH)?(?:NP|ADJP|ADVP|PP|QP)(?:-TMP|-ADV)?",
        vec![
            node("@ADVP|ADJP|WHADJP|WHADVP|PP|WHPP").has(
                HeadChild,
                node("JJ|JJR|IN|RB|RBR")
                    .not(Child, node("notwithstanding"))
                    .has(
                        PrevSister,
                        node("@NP").target().not(Child, node("NNP|NNPS")),
                    ),
            ),
            node("@ADJP")
                .has(Child, node("NN").target().has(SisterAfter, node("/^JJ/")))
                .not(Child, node("CC|CONJP")),
            node("@ADVP").has(
                HeadChild,
                node("/^(RB|ADVP)/").has(SisterAfter, node("@NP").target()),
            ),
            node("@NP|WHNP").has(Child, node("/^NP-ADV/").target()),
            node("@NP|WHNP")
                .either(vec![
                    all().has(
                        Child,
                        node("NP")
                            .target()
                            .has(OnlyChild, node("PRP").has(Child, node(self_words()))),
                    ),
                    all().has(Child, node("PRP").target().has(Child, node(self_words()))),
                ])
                .has(
                    Anywhere,
                    same("target")
                        .has(SisterBefore, node("NP|NN|NNS|NNP|NNPS|PRP").named("noun"))
                        .not(
                            SisterBefore,
                            node("/^,|CC|CONJP$/").has(SisterBefore, same("noun")),
                        ),
                ),
            node("@NP")
                .has(ChildAt(1), node("@NP").has(HeadedBy, node("/^%$/")))
                .has(
                    ChildAt(2),
                    node("@NP")
                        .target()
                        .has(HeadedBy, node("days|month|months")),
                )
                .not(ChildAt(3), any()),
            node("@VP").has(Child, node("/^NP-ADV/").target()),
            node("@NP|ADVP|QP").has(
                DownThrough("/ADVP/"),
                node("@ADVP")
                    .target()
                    .has(Child, node("IN").has(Child, node("/(?i:at)/")))
                    .has(Child, node("NP")),
            ),
        ],
    )
}

/// A noun phrase naming a time, modifying a predicate: "left (last week)".
fn nmod_tmod() -> Definition {
    let time_noun = || node("/^NN/").has(Child, node(time_words()));
    relation(
        "nmod:tmod",
        "nmod",
        "VP|S|ADJP|PP|SBAR|SBARQ|NP|RRC",
        vec![
            node("VP|ADJP|RRC").either(vec![
                all().has(Child, node("NP-TMP").target()),
                all().has(
                    Child,
                    node("VP")
                        .target()
                        .has(HeadChild, node("NP-TMP"))
                        .not(Sister, node("/^,|CC|CONJP$/")),
                ),
                all().has(
                    Child,
                    node("NP")
                        .target()
                        .has(HeadChild, time_noun())
                        .not(NextSister, node("/^JJ/").has(Child, node("old"))),
                ),
            ]),
            node("@PP").has(
                Child,
                node("IN|TO|VBG|FW").has(
                    SisterAfter,
                    node("@NP").either(vec![
                        all().has(NextSister, node("NP-TMP").target()),
                        all().has(NextSister, node("NP").target().has(HeadChild, time_noun())),
                    ]),
                ),
            ),
            node("S").has(
                Child,
                node("NP-TMP")
                    .target()
                    .has(SisterAfter, node("VP"))
                    .has(Sister, node("NP")),
            ),
            node("S").has(
                Child,
                node("NP")
                    .target()
                    .has(HeadChild, time_noun())
                    .has(SisterAfter, node("NP").has(SisterAfter, node("VP"))),
            ),
            node("SBAR")
                .has(
                    Child,
                    node("@WHADVP").has(Child, node("WRB").has(Child, node("when"))),
                )
                .has(
                    Child,
                    node("S").has(
                        Child,
                        node("NP").has(
                            NextSister,
                            node("VP").not(Child, copula().not(NextSister, node("VP"))),
                        ),
                    ),
                )
                .not(SisterBefore, node("CC"))
                .has(SisterBefore, node("NP"))
                .has(Parent, node("NP").target()),
            node("SBARQ")
                .has(Child, node("@WHNP").target().has(HeadChild, time_noun()))
                .has(Child, node("SQ").has(Child, node("@NP"))),
            node("NP").has(Child, node("NP-TMP").target()),
        ],
    )
}

/// A word of a fixed multi-word expression, attached to its first: "because (of)".
fn mwe() -> Definition {
    relation(
        "mwe",
        "mod",
        "MWE",
        vec![node("MWE").has(
            Child,
            node("IN|TO|RB|NP|NN|JJ|VB|CC|VBZ|VBD|ADVP|PP|JJS|RBS").target(),
        )],
    )
}

/// A determiner of a noun: "(this) road", "(which) way".
fn det() -> Definition {
    relation(
        "det",
        "mod",
        "(?:WH)?NP(?:-TMP|-ADV)?|NAC|NML|NX|X|ADVP|ADJP",
        vec![
            node("/^(?:NP(?:-TMP|-ADV)?|NAC|NML|NX|X)$/").has(
                Child,
                node("DT")
                    .target()
                    .not(Child, node(words(&["either", "neither", "both", "no"])))
                    .not(NextSister, node("DT"))
                    .not(SisterAfter, node("CC"))
                    .has(
                        SisterAfter,
                        node("/^(?:N[MNXP]|CD|JJ|FW|ADJP|QP|RB|PRP(?![$])|PRN)/").named("det"),
                    )
                    .not(
                        SisterAfter,
                        node("/^PRP[$]|POS/")
                            .has(SisterAfter, same("det"))
                            .not(SisterAfter, node("/''/").has(SisterAfter, same("det"))),
                    ),
            ),
            node("NP|NP-TMP|NP-ADV").has(
                Child,
                node("DT").target().either(vec![
                    all()
                        .has(Child, node(words(&["either", "neither", "both"])))
                        .not(NextSister, node("DT"))
                        .not(SisterAfter, node("CC"))
                        .has(SisterAfter, node("/^(?:NN|NX|NML)/"))
                        .not(SisterAfter, node("NP").has(Child, node("CC"))),
                    all()
                        .not(Child, node(words(&["either", "neither", "both", "no"])))
                        .has(SisterAfter, node("CC"))
                        .has(SisterAfter, node("/^(?:NN|NX|NML)/")),
                    all()
                        .not(Child, node(words(&["no"])))
                        .has(SisterAfter, node("/^JJ/").not(NextSister, node("/^NN/")))
                        .not(SisterAfter, node("CC"))
                        .not(NextSister, node("DT")),
                ]),
            ),
            node("NP|NP-TMP|NP-ADV")
                .has(LeftmostBelow, node("PRP"))
                .has(
                    ChildAt(-1),
                    node("NP|DT|RB")
                        .target()
                        .has(RightmostBelow, node(words(&["all", "both", "each"]))),
                ),
            node("WHNP").has(
                Child,
                node("NP").has(SisterBefore, node("WHNP").target().has(Child, node("WDT"))),
            ),
            node("@WHNP|ADVP|ADJP").has(
                Child,
                node("/^(?:NP|NN|CD|RBS|JJ)/").has(
                    SisterBefore,
                    node("DT|WDT|WP")
                        .target()
                        .not(Child, node(words(&["no"])))
                        .either(vec![
                            all().has(Same, node("WDT|WP")),
                            all().not(SisterAfter, node("CC|CONJP")),
                        ]),
                ),
            ),
            node("@NP").has(
                Child,
                node("/^(?:NP|NN|CD|RBS)/").has(SisterBefore, node("WDT|WP").target()),
            ),
        ],
    )
}

/// A word before the determiner: "(all) the cakes".
fn det_predet() -> Definition {
    const NOMINAL: &str = "WHNP|WHNP-TMP|WHNP-ADV|NP|NP-TMP|NP-ADV";
    relation(
        "det:predet",
        "mod",
        "(?:WH)?(?:NP|NX|NAC|NML)(?:-TMP|-ADV)?",
        vec![
            node("/^(?:(?:WH)?NP(?:-TMP|-ADV)?|NX|NAC|NML)$/").has(
                Child,
                node("PDT|DT")
                    .target()
                    .has(NextSister, node(r"/^(?:DT|WP\$|PRP\$)$/"))
                    .has(SisterAfter, node("/^(?:NN|NX|NML)/"))
                    .not(SisterAfter, node("CC")),
            ),
            node(NOMINAL)
                .has(
                    Child,
                    node("PDT|DT")
                        .target()
                        .has(NextSister, node("DT"))
                        .has(SisterAfter, node("/^JJ/").not(NextSister, node("/^NN/"))),
                )
                .not(SisterAfter, node("CC")),
            node(NOMINAL)
                .has(Child, node("PDT").target())
                .has(ChildAt(-1), node("DT")),
        ],
    )
}

/// The first word of a paired conjunction: "(either) tea or coffee".
fn cc_preconj() -> Definition {
    const NOMINAL: &str = "NP|NP-TMP|NP-ADV|NX|NML";
    const PHRASE: &str = "/^S|VP|ADJP|PP|ADVP|UCP(?:-TMP|-ADV)?|NX|NML|SBAR$/";
    let pair_word = || node(words(&["either", "neither", "both"]));
    let not_only = || {
        node("CONJP")
            .target()
            .has(Child, node("RB").has(Child, node(words(&["not"]))))
            .has(
                Child,
                node("RB|JJ").has(Child, node(words(&["only", "merely", "just"]))),
            )
            .has(SisterAfter, node("CC|CONJP"))
    };
    relation(
        "cc:preconj",
        "mod",
        "S|VP|ADJP|PP|ADVP|UCP(?:-TMP|-ADV)?|NX|NML|SBAR|NP(?:-TMP|-ADV)?",
        vec![
            node(NOMINAL).has(
                Child,
                node("PDT|CC|DT")
                    .target()
                    .has(Child, pair_word())
                    .has(SisterAfter, node("CC")),
            ),
            node(NOMINAL).has(Child, not_only()),
            node(NOMINAL)
                .has(Child, node("PDT|CC|DT").target().has(Child, pair_word()))
                .has(Child, node("NP").has(Child, node("CC"))),
            node(PHRASE).has(
                Child,
                node("PDT|DT|CC")
                    .target()
                    .has(Child, pair_word())
                    .has(SisterAfter, node("CC")),
            ),
            node(PHRASE).has(Child, not_only()),
        ],
    )
}

/// A possessor of a noun: "(her) coat", "(the city's) parks".
fn nmod_poss() -> Definition {
    const NOMINAL: &str = "WHNP|WHNML|NP|NML";
    let possessive_end = || {
        vec![
            all().has(Child, node("POS")),
            all().has(Child, node("VBZ").has(Child, node("/^'s$/"))),
        ]
    };
    relation(
        "nmod:poss",
        "mod",
        "(?:WH)?(NP|ADJP|INTJ|PRN|NAC|NX|NML)(?:-.*)?",
        vec![
            node("/^(?:WH)?(?:NP|INTJ|ADJP|PRN|NAC|NX|NML)(?:-.*)?$/")
                .has(Child, node(r"/^(?:WP\$|PRP\$)$/").target()),
            node("/^(?:WH)?(?:NP|NML)(?:-.*)?$/").either(vec![
                all()
                    .has(Child, node(NOMINAL).target().either(possessive_end()))
                    .not(Child, node("CC|CONJP").has(SisterAfter, node(NOMINAL))),
                all().has(
                    Child,
                    node(NOMINAL)
                        .target()
                        .has(Child, node("CC|CONJP").has(SisterAfter, node(NOMINAL)))
                        .has(Child, node(NOMINAL).either(possessive_end())),
                ),
            ]),
            node("/^(?:WH)?(?:NP|NML|NX)(?:-.*)?$/").has(
                Child,
                node("/^NN|NP/")
                    .target()
                    .has(
                        SisterAfter,
                        node("POS")
                            .named("pos")
                            .has(Child, node("/'/"))
                            .has(SisterAfter, node("/^NN/")),
                    )
                    .not(SisterAfter, node("/^NN|NP/").has(SisterAfter, same("pos"))),
            ),
        ],
    )
}

/// The preposition or possessive marker of a nominal: "(on) the bench", "Kim ('s)".
fn case() -> Definition {
    const PP: &str = "/(?:WH)?PP(?:-TMP)?/";
    const NOMINAL: &str = "/^(?:WH)?(?:NP|NML)(?:-TMP|-ADV)?$/";
    relation(
        "case",
        "mod",
        "(?:WH)?(?:PP.*|SBARQ|NP|NML|ADVP)(?:-TMP|-ADV)?",
        vec![
            node(PP).has(
                Child,
                node("IN|TO|MWE|PCONJP|VBN|JJ")
                    .target()
                    .not(NextSister, node("@SBAR"))
                    .either(vec![
                        all().not(NextSister, node("@S")),
                        all().has(
                            NextSister,
                            node("S").has(ChildAt(1), node("VP").has(ChildAt(1), node("NN"))),
                        ),
                    ]),
            ),
            node(NOMINAL).has(Child, node("POS").target()),
            node(NOMINAL).has(Child, node("VBZ").target().has(Child, node("/^'s$/"))),
            node(PP)
                .has(ChildAt(1), node("CC").target())
                .has(ChildAt(2), node("NP")),
            node(PP)
                .has(ChildAt(1), node("VBG").target())
                .not(Child, node("@PP").has(Child, node("@SBAR|S"))),
            node("@ADVP").has(Child, node("IN").target()),
        ],
    )
}

/// The particle of a phrasal verb: "gave (up)".
fn compound_prt() -> Definition {
    relation(
        "compound:prt",
        "mod",
        "VP|ADJP",
        vec![
            node("VP").has(Child, node("PRT").target()),
            node("ADJP")
                .has(Child, node("/^VB/"))
                .has(Child, node("RP").target()),
        ],
    )
}

/// A clause set beside the main one without a conjunction: "it rained; (we stayed in)".
fn parataxis() -> Definition {
    relation(
        "parataxis",
        "dep",
        "S|VP|FRAG|NP",
        vec![
            node("VP").has(Child, node("PRN").target().has(Child, node("S|SINV|SBAR"))),
            node("VP").has(
                Sister,
                node("PRN").target().either(vec![
                    all().has(Child, node("S|SINV|SBAR")),
                    all().has(Child, node("VP")).has(Child, node("@NP")),
                ]),
            ),
            node("S|FRAG|VP")
                .has(Child, node("/^:$/").has(NextSister, node("/^S/").target()))
                .not(ChildAt(1), any().has(SisterAfter, node("CC|CONJP"))),
            node("@S|FRAG").has(
                Child,
                node("@S|SBARQ|SQ|FRAG")
                    .has(SisterAfter, node("@S|SBARQ|SQ|FRAG").target())
                    .not(SisterAfter, node("@CC|CONJP|MWE"))
                    .not(SisterAfter, node("/:/").has(Child, node("/;/"))),
            ),
            node("@S|FRAG|VP")
                .has(
                    Child,
                    node("/^:$/")
                        .has(SisterBefore, node("/^V/"))
                        .has(NextSister, node("@NP").target()),
                )
                .not(Child, node("@CONJP|CC")),
            node("FRAG|NP").has(
                Child,
                node("NP")
                    .has(
                        NextSister,
                        node("/:/").has(NextSister, node("@SQ|S").target()),
                    )
                    .has(Dominates, node("NNP|NNPS")),
            ),
        ],
    )
}

/// A piece of a word split in two, attached to the other: "with (out)".
fn goeswith() -> Definition {
    relation(
        "goeswith",
        "mod",
        ".*",
        vec![any().has(Child, node("GW").target())],
    )
}

/// An item of a list of noun phrases set out with commas: "eggs, (milk), (bread)".
fn list() -> Definition {
    relation(
        "list",
        "dep",
        "FRAG",
        vec![
            node("FRAG").has(
                Child,
                node("NP")
                    .has(
                        NextSister,
                        node("/,/").has(
                            NextSister,
                            node("NP")
                                .target()
                                .has(NextSister, node("/,/").has(NextSister, node("NP"))),
                        ),
                    )
                    .not(SisterAfter, node("CC|CONJP|MWE")),
            ),
            node("FRAG").has(
                Child,
                node("NP")
                    .has(
                        NextSister,
                        node("/,/").has(
                            NextSister,
                            node("NP").has(
                                SisterAfter,
                                node("/,/").has(NextSister, node("NP").target()),
                            ),
                        ),
                    )
                    .not(SisterAfter, node("CC|CONJP|MWE")),
            ),
        ],
    )
}

/// A dependent by meaning rather than syntax; found only through relations below it.
fn sdep() -> Definition {
    abstract_relation("sdep", "dep")
}

/// The doer of a passive verb, after "by": "painted by (Vermeer)".
fn agent() -> Definition {
    abstract_relation("agent", "dep")
}
