//! `CoordinationTransformer`: what CoreNLP does to a tree before reading dependencies off it,
//! stage by stage in its order:
//!
//! 1. `DependencyTreeTransformer`: labels to their basic category, keeping `-TMP` and `-ADV` on
//!    noun phrases and UCPs.
//! 2. Multi-word expressions ("as well as", "such as", "in order", "because of", ...) put under
//!    one `MWE` node; "according to", "but also", "at least"/"at most", "at all" rearranged.
//! 3. A flat "before and after" under a PP becomes a `PCONJP`.
//! 4. A UCP is renamed after its first word's phrase (ADJP, NP, ADVP).
//! 5. `CCtransform` gives flat coordinated noun phrases ("a black and white photo") the
//!    structure the head rules need.
//! 6. `QPTreeTransformer`: two QPs side by side, the second opened by a conjunction, become one
//!    ("4 (QP or 5)"); a flat QP with a conjunction is split around it ("two or three": (QP (NP
//!    two) (CC or) (NP three))); the amount after a "$" goes under a QP of its own. Its
//!    `XS` step ("well over", "more than") is for the older dependencies only, which is not run.
//! 7. The SQ of a "what is ..." question is flattened.
//! 8. `DateTreeTransformer`: "(NP (NP May) (NP 2015))" and "(NP (NP May 4) , (NP 2015))" lose
//!    their inner NPs.
//! 9. A node over an only child of the same label goes (X over X).
//! 10. "and yet", "and so" between clauses become a CONJP.
//! 11. An adverb after a conjunction ("and then", "and not") moves into the following conjunct,
//!     and an adverb before a VP in a fragment into that VP.
//! 12. An SBAR of "after", "before", "until", "since", "during" beside an NP becomes a PP.
//! 13. "now that" becomes an SBAR.
//!
//! The patterns are written in our notation ([`super::patterns`]); the surgery is
//! [`super::tsurgeon`]'s. Quirks kept: CoreNLP finds a conjunction's position among its siblings
//! with `indexOf`, which compares trees by structure, so a second "(CC and)" counts as the first
//! one's position; labels are compared whole (`value()`), not by basic category.

use std::sync::OnceLock;

use super::patterns::{all, any, label_of, node, same, words, Node, Rel::*};
use super::relations::words::copular_words;
use super::tree::{basic_category, Tree};
use super::tregex::{NoHeads, Pattern};
use super::tsurgeon::{Bound, Place, Surgery};

/// The stages of `CoordinationTransformer` reproduced so far, in CoreNLP's order.
pub fn transform(tree: &Tree) -> Tree {
    let mut t = tree.clone();
    if t.label == "TOP" {
        t.label = "ROOT".to_string();
    }
    strip_functional_tags(&mut t);
    let p = compiled();
    let mut s = Surgery::new(&t);
    for m in &p.mwe {
        s.apply(m, &NoHeads, |s, b| {
            let (n1, n2) = (b.node("node1"), b.node("node2"));
            s.create_subtree("MWE", n1, n2);
            if let Some(n3) = b.get("node3") {
                s.move_to(n3, Place::RightOf(n2));
            }
            true
        });
    }
    s.apply(&p.according_to, &NoHeads, |s, b| {
        let n1 = b.node("node1");
        s.create_subtree("MWE", n1, n1);
        s.move_to(b.node("node2"), Place::RightOf(n1));
        let pp2 = b.node("pp2");
        s.excise(pp2, pp2)
    });
    s.apply(&p.but_also, &NoHeads, |s, b| {
        let (conjp, cc, rb) = (b.node("conjp"), b.node("cc"), b.node("rb"));
        s.move_to(cc, Place::RightOf(conjp));
        s.move_to(rb, Place::RightOf(cc));
        if let Some(next) = b.get("nextNode") {
            s.move_to(rb, Place::FirstChildOf(next));
        }
        s.create_subtree("ADVP", rb, rb);
        s.delete(conjp)
    });
    s.apply(&p.at_rbs, &NoHeads, |s, b| {
        let (n1, n2) = (b.node("node1"), b.node("node2"));
        s.relabel(n1, "IN");
        s.create_subtree("ADVP", n1, n1);
        s.move_to(n2, Place::RightOf(n1));
        s.create_subtree("NP", n2, n2);
        true
    });
    s.apply(&p.at_all, &NoHeads, |s, b| {
        s.relabel(b.node("head"), "PP");
        s.relabel(b.node("node1"), "IN");
        let n2 = b.node("node2");
        s.create_subtree("NP", n2, n2);
        true
    });
    s.apply(&p.flat_prep_cc, &NoHeads, |s, b| {
        let cc = b.node("cc");
        s.create_subtree("PCONJP", b.node("p1"), cc);
        s.move_to(b.node("p2"), Place::RightOf(cc));
        true
    });
    s.apply(&p.ucp, &NoHeads, |s, b| {
        let ucp = b.node("ucp");
        let rest = s.label(ucp)[3..].to_string();
        if b.get("adjp").is_some() {
            s.relabel(ucp, &format!("ADJP{rest}"));
        }
        if b.get("np").is_some() {
            s.relabel(ucp, &format!("NP{rest}"));
        }
        if b.get("advp").is_some() {
            s.relabel(ucp, "ADVP");
        }
        true
    });
    let mut t = s.into_tree();
    cc_transform(&mut t);
    let mut s = Surgery::new(&t);
    qp_transform(&mut s, p);
    let excise = |name: &'static str| {
        move |s: &mut Surgery, b: &Bound| {
            let n = b.node(name);
            s.excise(n, n)
        }
    };
    s.apply(&p.flatten_sq, &NoHeads, excise("sq"));
    date_transform(&mut s, p);
    s.apply(&p.x_over_x, &NoHeads, excise("repeat"));
    s.apply(&p.flat_conjp, &NoHeads, |s, b| {
        s.create_subtree("CONJP", b.node("start"), b.node("end"));
        true
    });
    for m in &p.move_rb {
        s.apply(m, &NoHeads, |s, b| {
            s.move_to(b.node("adv"), Place::FirstChildOf(b.node("dest")));
            true
        });
    }
    s.apply(&p.sbar_to_pp, &NoHeads, |s, b| {
        s.relabel(b.node("sbar"), "PP");
        true
    });
    s.apply(&p.now_that, &NoHeads, |s, b| {
        s.relabel(b.node("advp"), "SBAR");
        let sbar = b.node("sbar");
        s.excise(sbar, sbar)
    });
    s.into_tree()
}

/// `QPTreeTransformer` alone, as the UD converter runs it (for comparing with CoreNLP's own).
pub fn qp_stage(tree: &Tree) -> Tree {
    let mut s = Surgery::new(tree);
    qp_transform(&mut s, compiled());
    s.into_tree()
}

/// `DateTreeTransformer` alone.
pub fn date_stage(tree: &Tree) -> Tree {
    let mut s = Surgery::new(tree);
    date_transform(&mut s, compiled());
    s.into_tree()
}

/// `QPTreeTransformer` as the UD converter runs it (without its `XS` step).
fn qp_transform(s: &mut Surgery, p: &Compiled) {
    s.apply(&p.qp_pair, &NoHeads, |s, b| {
        let (left, right) = (b.node("left"), b.node("right"));
        s.create_subtree("QP", left, right);
        s.excise(left, left) && s.excise(right, right)
    });
    s.apply(&p.qp_split_cc, &NoHeads, |s, b| {
        let label = |bound: bool| if bound { "QP" } else { "NP" };
        s.create_subtree(label(b.get("lnum").is_some()), b.node("l1"), b.node("r1"));
        s.create_subtree(label(b.get("rnum").is_some()), b.node("l2"), b.node("r2"));
        true
    });
    s.apply(&p.qp_money, &NoHeads, |s, b| {
        s.create_subtree("QP", b.node("left"), b.node("right"));
        true
    });
}

/// `DateTreeTransformer`: the matched NP's children become the month, (the day, the comma,) and
/// the year, the NPs around them gone.
fn date_transform(s: &mut Surgery, p: &Compiled) {
    s.apply(&p.month_year, &NoHeads, |s, b| {
        let month_np = s.parent(b.node("month")).expect("the month is under an NP");
        s.excise(month_np, month_np) && {
            let year = b.node("yearnp");
            s.excise(year, year)
        }
    });
    s.apply(&p.month_day_year, &NoHeads, |s, b| {
        let (month_day, year) = (b.node("monthdayroot"), b.node("yearroot"));
        s.excise(month_day, month_day) && s.excise(year, year)
    });
}

struct Compiled {
    qp_pair: Pattern,
    qp_split_cc: Pattern,
    qp_money: Pattern,
    month_year: Pattern,
    month_day_year: Pattern,
    now_that: Pattern,
    sbar_to_pp: Pattern,
    flat_conjp: Pattern,
    move_rb: Vec<Pattern>,
    flatten_sq: Pattern,
    x_over_x: Pattern,
    ucp: Pattern,
    mwe: Vec<Pattern>,
    according_to: Pattern,
    but_also: Pattern,
    at_rbs: Pattern,
    at_all: Pattern,
    flat_prep_cc: Pattern,
}

fn compiled() -> &'static Compiled {
    static C: OnceLock<Compiled> = OnceLock::new();
    C.get_or_init(|| {
        let c = |n: Node| n.compile().unwrap_or_else(|e| panic!("{e}"));
        let [qp_pair, qp_split_cc, qp_money] = qp_patterns();
        let [month_year, month_day_year] = date_patterns();
        Compiled {
            qp_pair: c(qp_pair),
            qp_split_cc: c(qp_split_cc),
            qp_money: c(qp_money),
            month_year: c(month_year),
            month_day_year: c(month_day_year),
            now_that: c(now_that()),
            sbar_to_pp: c(sbar_to_pp()),
            flat_conjp: c(flat_conjp()),
            move_rb: move_rb().into_iter().map(c).collect(),
            flatten_sq: c(flatten_sq()),
            x_over_x: c(x_over_x()),
            ucp: c(ucp()),
            mwe: mwe().into_iter().map(c).collect(),
            according_to: c(according_to()),
            but_also: c(but_also()),
            at_rbs: c(at_rbs()),
            at_all: c(at_all()),
            flat_prep_cc: c(flat_prep_cc()),
        }
    })
}

/// The stages' patterns in the order of CoreNLP's source (for the parity test):
/// `CoordinationTransformer`'s, then `QPTreeTransformer`'s, then `DateTreeTransformer`'s.
pub fn patterns() -> Vec<Node> {
    let mut out = vec![now_that(), sbar_to_pp(), flat_conjp()];
    out.extend(move_rb());
    out.extend([flatten_sq(), x_over_x(), ucp()]);
    out.extend(mwe());
    out.extend([
        according_to(),
        but_also(),
        at_rbs(),
        at_all(),
        flat_prep_cc(),
    ]);
    out.extend(qp_patterns());
    out.extend(date_patterns());
    out
}

/// `QPTreeTransformer`'s patterns: a QP beside a QP that holds a conjunction (`left`, `right`);
/// a flat QP with a conjunction, its two sides `l1`..`r1` and `l2`..`r2`, `lnum` or `rnum`
/// bound when another "$" or conjunction lies on that side; a "$" followed only by numbers and
/// flat nodes, the amount `left`..`right`.
fn qp_patterns() -> [Node; 3] {
    let nested = || any().has(Child, any().has(Child, any()));
    let money_or_cc = || node("/^[$]|CC$/");
    [
        node("NP").has(
            Child,
            node("QP")
                .named("left")
                .has(NextSister, node("QP").named("right").has(Child, node("CC"))),
        ),
        node("QP")
            .has(
                Child,
                node("CC")
                    .has(PrevSister, any().named("r1"))
                    .has(NextSister, any().named("l2"))
                    .maybe(SisterBefore, money_or_cc().named("lnum"))
                    .maybe(SisterAfter, money_or_cc().named("rnum")),
            )
            .has(ChildAt(1), any().named("l1"))
            .has(ChildAt(-1), any().named("r2"))
            .not(Child, nested()),
        node("QP")
            .has(
                Child,
                node("/^[$]$/")
                    .not(SisterAfter, node("/^(?!([$]|CD)).*$/"))
                    .not(SisterAfter, nested())
                    .has(NextSister, any().named("left")),
            )
            .has(ChildAt(-1), any().named("right")),
    ]
}

/// The month names `DateTreeTransformer` knows, as its pattern tests them: found anywhere in
/// the word ("Mayor" has "May").
const MONTHS: &str = "/January|February|March|April|May|June|July|August|September|October|\
                      November|December|Jan\\.|Feb\\.|Mar\\.|Apr\\.|Aug\\.|Sep\\.|Sept\\.|\
                      Oct\\.|Nov\\.|Dec\\./";

/// `DateTreeTransformer`'s patterns: an NP of exactly (NP month) (NP year), and one of exactly
/// (NP month day) , (NP year).
fn date_patterns() -> [Node; 2] {
    let year = || node("CD").named("year").has(OnlyChild, any());
    [
        node("NP")
            .named("root")
            .has(
                ChildAt(1),
                node("NP").has(
                    OnlyChild,
                    node("NNP").named("month").has(OnlyChild, node(MONTHS)),
                ),
            )
            .has(
                ChildAt(2),
                node("NP").named("yearnp").has(OnlyChild, year()),
            )
            // CoreNLP writes `: =root <- =yearnp`, which Tregex reads as two relations of the
            // top node (itself `root`): any node that is `root`, and `yearnp` as last child.
            .has(Anywhere, same("root"))
            .has(ChildAt(-1), same("yearnp")),
        node("NP")
            .named("root")
            .has(
                ChildAt(1),
                node("NP")
                    .named("monthdayroot")
                    .has(
                        ChildAt(1),
                        node("NNP").named("month").has(OnlyChild, node(MONTHS)),
                    )
                    .has(ChildAt(2), node("CD").named("day").has(OnlyChild, any())),
            )
            .has(
                ChildAt(2),
                node("/^,$/").named("comma").has(OnlyChild, node("/^,$/")),
            )
            .has(
                ChildAt(3),
                node("NP").named("yearroot").has(OnlyChild, year()),
            )
            .has(Anywhere, same("root").has(ChildAt(-1), same("yearroot")))
            .has(Anywhere, same("monthdayroot").has(ChildAt(-1), same("day"))),
    ]
}

/// A whole word in any case, as these patterns write it (`/^(?i)word$/`).
fn ci(word: &str) -> Node {
    node(format!("/^(?i){word}$/"))
}

/// "now that": an ADVP of "now" and an SBAR opened by "that".
fn now_that() -> Node {
    node("ADVP")
        .named("advp")
        .has(ChildAt(1), node("RB").has(Child, node(words(&["now"]))))
        .has(
            ChildAt(2),
            node("SBAR")
                .named("sbar")
                .has(ChildAt(1), node("IN").has(Child, node(words(&["that"])))),
        )
}

/// An SBAR of a temporal subordinator over a clause, right of an NP inside an NP.
fn sbar_to_pp() -> Node {
    node("NP").has(
        Child,
        node("NP").has(
            SisterAfter,
            node("SBAR").named("sbar").has(
                Child,
                node("IN")
                    .has(
                        Child,
                        node(words(&["after", "before", "until", "since", "during"])),
                    )
                    .has(SisterAfter, node("S")),
            ),
        ),
    )
}

/// "and yet", "and so" between two clauses, phrases or verb phrases.
fn flat_conjp() -> Node {
    let conjunct = "/^(S(?!YM)|PP|VP)/";
    node("/^(S|PP|VP)/").has(
        Child,
        node(conjunct).has(
            SisterAfter,
            node("CC")
                .named("start")
                .has(NextSister, node("RB|ADVP").has(NextSister, node(conjunct)))
                .either(vec![
                    all()
                        .has(Child, node("and"))
                        .has(NextSister, node("RB").named("end").has(Child, node("yet"))),
                    all()
                        .has(Child, node("and"))
                        .has(NextSister, node("RB").named("end").has(Child, node("so"))),
                    all().has(Child, node("and")).has(
                        NextSister,
                        node("ADVP")
                            .named("end")
                            .has(Child, node("RB|IN").has(Child, node("so"))),
                    ),
                ]),
        ),
    )
}

/// "not" or "then" (or a lone adverb) after a comma or conjunction, before the next conjunct.
fn move_rb() -> Vec<Node> {
    let adverb_after = |sep: &str| {
        node(sep).either(vec![
            all().has(
                NextSister,
                node("RB").named("adv").either(vec![
                    all().has(Child, node("not")),
                    all().has(Child, node("then")),
                ]),
            ),
            all().has(
                NextSister,
                node("ADVP").named("adv").has(OnlyChild, node("RB")),
            ),
        ])
    };
    vec![
        node("/^S|PP|VP|NP/")
            .has(
                Child,
                node("/^(S|PP|VP|NP)/").has(SisterAfter, adverb_after("/^(,|CC|CONJP)$/")),
            )
            .has(
                Anywhere,
                same("adv").has(NextSister, node("/^(S(?!YM)|PP|VP|NP)/").named("dest")),
            ),
        node("/^ADVP/")
            .has(
                Child,
                node("/^ADVP/").has(SisterAfter, adverb_after("/^(,|CC|CONJP)$/")),
            )
            .has(
                Anywhere,
                same("adv").has(NextSister, node("/^NP-ADV|ADVP|PP/").named("dest")),
            ),
        node("/^FRAG/").has(
            Child,
            node("ADVP|RB")
                .named("adv")
                .has(NextSister, node("VP").named("dest")),
        ),
    ]
}

/// "what is ...": the SQ after the WH phrase, with a copula and nothing that would head it.
fn flatten_sq() -> Node {
    let cop = copular_words();
    let not_cop = format!("!{cop}");
    node("SBARQ").has(
        Child,
        node("WHNP").named("what").has(Child, node("WP")).has(
            NextSister,
            node("SQ")
                .named("sq")
                .has(
                    Child,
                    node("/^VB/").named("verb").has(Child, node(cop.clone())),
                )
                .not(Child, node("/^VB/").has(Child, node(not_cop.clone())))
                .not(
                    Child,
                    node("/^V/")
                        .has(Child, node("/^VB/"))
                        .has(Child, node(not_cop)),
                )
                .not(Child, node("PP").has(PrevSister, same("verb")))
                .not(
                    ChildAt(1),
                    node("/^VB/").has(Child, node(cop)).has(
                        NextSister,
                        node("NP").has(Child, node("EX").has(Child, node("there"))),
                    ),
                )
                .not(
                    Child,
                    node("ADJP").has(Child, node("PP").has(OnlyChild, node("IN|TO"))),
                ),
        ),
    )
}

/// A node whose only child has the same label and children of its own.
fn x_over_x() -> Node {
    any()
        .named("repeat")
        .has(OnlyChild, label_of("repeat").has(Child, any()))
}

/// A UCP opening with an adjective, a noun, or an adverb phrase (after a determiner or not).
fn ucp() -> Node {
    node("/^UCP/").named("ucp").either(vec![
        all().has(ChildAt(1), node("/^JJ|ADJP/").named("adjp")),
        all()
            .has(ChildAt(1), node("DT"))
            .has(ChildAt(2), node("/^JJ|ADJP/").named("adjp")),
        all().has(
            ChildAt(-1),
            node("ADJP").named("adjp").has(
                Child,
                node("JJR").has(Child, node(words(&["younger", "older"]))),
            ),
        ),
        all().has(ChildAt(1), node("/^N/").named("np")),
        all()
            .has(ChildAt(1), node("DT"))
            .has(ChildAt(2), node("/^N/").named("np")),
        all().has(ChildAt(1), node("/^ADVP/").named("advp")),
    ])
}

/// A word tagged `tags`, named `name`, whose word passes `word`.
fn tagged(tags: &str, name: &'static str, word: Node) -> Node {
    node(tags).named(name).has(Child, word)
}

/// Two words in a row under a phrase of `phrases`: `first` then `second`.
fn pair(phrases: &str, first: Node, second: Node) -> Node {
    node(phrases).has(Child, first.has(NextSister, second))
}

/// The multi-word expressions, each binding `node1`, `node2` (and `node3`) for the `MWE` node.
fn mwe() -> Vec<Node> {
    let t = tagged;
    vec![
        // as well as
        node("@CONJP")
            .has(ChildAt(1), t("RB", "node1", ci("as")))
            .has(ChildAt(2), t("RB", "node2", ci("well")))
            .has(ChildAt(-1), t("IN", "node3", ci("as"))),
        // as well
        node("@ADVP|CONJP")
            .has(ChildAt(1), t("RB", "node1", ci("as")))
            .has(ChildAt(-1), t("IN|RB", "node2", ci("well"))),
        // such as
        pair(
            "@PP",
            t("JJ", "node1", ci("such")),
            t("IN", "node2", ci("as")),
        ),
        // due to
        pair(
            "@PP",
            t("JJ|IN", "node1", ci("due")),
            t("IN|TO", "node2", ci("to")),
        ),
        // because of, instead of
        pair(
            "@PP|CONJP",
            t("IN|RB", "node1", node("/^(?i)(because|instead)$/")),
            t("IN", "node2", node("of")),
        ),
        // in case
        pair(
            "@ADVP|SBAR",
            t("IN|RB", "node1", ci("in")),
            t("NN", "node2", ci("case")),
        ),
        // of course
        pair(
            "@ADVP|PP",
            t("IN|RB", "node1", ci("of")),
            t("NN|RB", "node2", ci("course")),
        ),
        // in order
        pair(
            "@SBAR|PP",
            t("IN|RB", "node1", ci("in")),
            node("NN|NP|RB").named("node2").either(vec![
                all().has(Child, ci("order")),
                all().has(OnlyChild, node("NN").has(Child, ci("order"))),
            ]),
        ),
        // rather than
        pair(
            "@PP|CONJP|SBAR",
            t("IN|RB", "node1", ci("rather")),
            t("IN", "node2", ci("than")),
        ),
        // not to mention
        pair(
            "@CONJP",
            t("IN|RB", "node1", ci("not")),
            t("TO", "node2", ci("to")).has(NextSister, t("VB|RB", "node3", ci("mention"))),
        ),
        // so that
        pair(
            "@PP|SBAR",
            t("JJ|IN|RB", "node1", ci("so")),
            t("IN|TO", "node2", ci("that")),
        ),
        // as if
        pair(
            "@SBAR",
            t("IN|RB", "node1", ci("as")),
            t("IN", "node2", ci("if")),
        ),
        // prior to
        pair(
            "@PP",
            t("JJ|RB", "node1", ci("prior")),
            t("TO|IN", "node2", ci("to")),
        ),
        // as to
        pair(
            "@PP",
            t("IN", "node1", ci("as")),
            t("TO|IN", "node2", ci("to")),
        ),
        // kind of
        pair(
            "@ADVP",
            t("RB|NN", "node1", ci("kind")),
            t("IN|RB", "node2", ci("of")),
        ),
        // whether or not
        pair(
            "@SBAR",
            t("IN|RB", "node1", ci("whether")),
            t("CC", "node2", ci("or")).has(NextSister, t("RB", "node3", ci("not"))),
        ),
        // as opposed to
        pair(
            "@CONJP",
            t("IN", "node1", ci("as")),
            t("VBN", "node2", ci("opposed")).has(NextSister, t("TO|IN", "node3", ci("to"))),
        ),
        // let alone
        pair(
            "@ADVP|CONJP",
            t("VB|RB|VBD", "node1", ci("let")),
            t("RB|JJ", "node2", ci("alone")),
        ),
        // in between
        pair(
            "@ADVP|PP",
            t("IN|RB", "node1", ci("in")),
            node("IN|NP|PP|RB|ADVP").named("node2").either(vec![
                all().has(Child, ci("between")),
                all().has(OnlyChild, node("IN|RB").has(Child, ci("between"))),
            ]),
        ),
        // all but
        pair(
            "@ADVP|QP|ADJP",
            t("DT|RB", "node1", ci("all")),
            t("CC|RB|IN", "node2", ci("but")),
        ),
        // that is
        pair(
            "@ADVP|INTJ",
            t("NN|DT|RB", "node1", ci("that")),
            t("VBZ|RB", "node2", ci("is")),
        ),
        // how come
        pair(
            "@WHADVP",
            t("WRB", "node1", node(words(&["how"]))),
            t("VB", "node2", ci("come")),
        ),
        // had better
        pair(
            "@VP",
            t("VBD", "node1", node("had|'d")),
            node("@PRT|ADVP")
                .named("node2")
                .has(OnlyChild, node("RBR").has(Child, ci("better"))),
        ),
        // more than, less than
        pair(
            "@QP|XS",
            t("JJR|RBR|IN", "node1", node("/^(?i)(more|less)$/")),
            t("IN", "node2", ci("than")),
        ),
        // up to
        pair(
            "@QP",
            t("JJR|RBR|IN", "node1", ci("up")),
            t("IN|TO", "node2", ci("to")),
        ),
        // at least (not "at least once")
        node("@S|SQ|VP|ADVP|PP").has(
            Child,
            pair(
                "@ADVP",
                t("IN|RB", "node1", ci("at")),
                t("JJS|RBS", "node2", ci("least")),
            )
            .not(
                NextSister,
                node("RB").has(Child, node("/(?i)(once|twice)/")),
            ),
        ),
    ]
}

/// "according to": the participle becomes an MWE with the "to" of the PP after it.
fn according_to() -> Node {
    node("PP").named("pp1").has(
        Child,
        tagged("VBG", "node1", ci("according")).has(
            NextSister,
            node("PP")
                .named("pp2")
                .has(Child, node("TO|IN").named("node2").has(Child, node("to"))),
        ),
    )
}

/// "but also" in a CONJP (not an expression: taken apart).
fn but_also() -> Node {
    node("CONJP")
        .named("conjp")
        .has(Child, node("CC").named("cc").has(Child, node("but")))
        .has(Child, node("RB").named("rb").has(Child, node("also")))
        .maybe(
            NextSister,
            any().named("nextNode").has(Child, any().has(Child, any())),
        )
}

/// "at most", "at best": "at" a preposition over a noun phrase of the superlative.
fn at_rbs() -> Node {
    pair(
        "@ADVP|QP",
        tagged("IN|RB", "node1", ci("at")),
        node("JJS|RBS").named("node2"),
    )
}

/// "at all" as a prepositional phrase.
fn at_all() -> Node {
    node("@ADVP").named("head").has(
        Child,
        tagged("RB|IN", "node1", ci("at")).has(NextSister, tagged("RB|DT", "node2", ci("all"))),
    )
}

/// "before and after" flat under a PP.
fn flat_prep_cc() -> Node {
    node("PP").has(
        ChildAt(1),
        node("/^(IN|TO)$/").named("p1").has(
            NextSister,
            node("CC")
                .named("cc")
                .has(NextSister, node("/^(IN|TO)$/").named("p2")),
        ),
    )
}

/// `DependencyTreeTransformer.stripTag`: every phrase and tag label to its basic category, but
/// an NP or UCP with `-TMP` or `-ADV` in its label keeps that mark. (Its other step, pruning
/// `-NONE-` empty elements, has nothing to do on a parser's trees.)
pub fn strip_functional_tags(t: &mut Tree) {
    if t.is_leaf() {
        return;
    }
    let np_or_ucp = t.label.starts_with("NP") || t.label.starts_with("UCP");
    let mark = if np_or_ucp && t.label.contains("-TMP") {
        "-TMP"
    } else if np_or_ucp && t.label.contains("-ADV") {
        "-ADV"
    } else {
        ""
    };
    t.label = format!("{}{mark}", basic_category(&t.label));
    for c in &mut t.children {
        strip_functional_tags(c);
    }
}

/// `CCtransform`: repeatedly, the first conjunction (in preorder) directly under an NP with at
/// least two siblings after it, no NP from it on, not first, and not followed by another
/// conjunction, has its NP restructured (`transformCC`).
pub fn cc_transform(tree: &mut Tree) {
    while let Some((path, cc)) = find_cc_parent(tree, &mut Vec::new()) {
        transform_cc(node_at(tree, &path), cc);
    }
}

fn node_at<'t>(tree: &'t mut Tree, path: &[usize]) -> &'t mut Tree {
    path.iter().fold(tree, |t, &i| &mut t.children[i])
}

/// `findCCparent`: the path to the NP to restructure and the conjunction's index in it.
fn find_cc_parent(t: &Tree, path: &mut Vec<usize>) -> Option<(Vec<usize>, usize)> {
    for (i, child) in t.children.iter().enumerate() {
        if child.is_preterminal() {
            if child.label.starts_with("CC") && t.label.starts_with("NP") {
                let kids = &t.children;
                // indexOf: the first sibling equal to the conjunction, compared by structure.
                let cc = kids.iter().position(|k| k == child).unwrap_or(i);
                let no_np_after = kids[cc..].iter().all(|k| !k.label.starts_with("NP"));
                if kids.len() > cc + 2
                    && no_np_after
                    && cc != 0
                    && (cc == kids.len() - 1 || !kids[cc + 1].label.starts_with("CC"))
                {
                    return Some((path.clone(), cc));
                }
            }
        } else if !child.is_leaf() {
            path.push(i);
            if let Some(found) = find_cc_parent(child, path) {
                return Some(found);
            }
            path.pop();
        }
    }
    None
}

fn lbl(t: &Tree) -> &str {
    &t.label
}

/// `getHeadTag`: the label of a phrase built around a child: ADJP for an adjective, else NP.
fn head_tag(t: &Tree) -> &'static str {
    if t.label.starts_with("NN") {
        "NP"
    } else if t.label.starts_with("JJ") {
        "ADJP"
    } else {
        "NP"
    }
}

/// `transformCC` on the NP `t` whose child `cc` is the conjunction.
fn transform_cc(t: &mut Tree, cc: usize) {
    let sibs = t.children.clone();
    let n = sibs.len();
    let later_ccs: Vec<usize> = (cc + 1..n)
        .filter(|&i| sibs[i].label.starts_with("CC") && i < n - 1)
        .collect();
    let before = sibs[cc - 1].label.as_str();
    if cc == 1
        && (matches!(before, "DT" | "JJ" | "RB") || lbl(&sibs[cc + 1]) != "DT")
        && !(before.starts_with("NP") || before == "ADJP" || before == "NNS")
    {
        // "soya or maize oil": the first three children become a phrase.
        let left = Tree::node(head_tag(&sibs[0]), sibs[..cc + 2].to_vec());
        t.children.drain(..cc + 2);
        match later_ccs.first() {
            Some(&first) => {
                let (mut index, mut comma) = (first, false);
                if lbl(&sibs[index - 1]) == "," {
                    index -= 1;
                    comma = true;
                }
                if cc + 2 < index {
                    let mut kids = vec![left];
                    for sib in &sibs[cc + 2..index] {
                        t.children.remove(0);
                        kids.push(sib.clone());
                    }
                    t.children
                        .insert(0, Tree::node(head_tag(&sibs[index - 1]), kids));
                } else {
                    t.children.insert(0, left);
                }
                let start = if comma { 3 } else { 2 };
                let rest: Vec<Tree> = if start < t.children.len() {
                    t.children.drain(start..).collect()
                } else {
                    Vec::new()
                };
                t.children.push(Tree::node("NP", rest));
            }
            None => t.children.insert(0, left),
        }
    } else if cc == 2
        && sibs[0].label.starts_with("DT")
        && lbl(&sibs[cc - 1]) != "NNS"
        && (n == 5 || later_ccs.first() == Some(&5))
    {
        let child = Tree::node(head_tag(&sibs[cc - 1]), sibs[1..cc + 2].to_vec());
        t.children.drain(1..cc + 2);
        t.children.insert(1, child);
    } else if cc > 2 && lbl(&sibs[cc - 2]) == "," && lbl(&sibs[cc - 1]) != "NNS" {
        // "a, b and c": the list joins one phrase, commas and all.
        let mut kids: Vec<Tree> = sibs[cc - 3..cc + 2].to_vec();
        let mut i = cc as isize - 4;
        while i > 0 && lbl(&sibs[i as usize]) == "," {
            kids.insert(0, sibs[i as usize].clone());
            kids.insert(0, sibs[i as usize - 1].clone());
            i -= 2;
        }
        let from = (i.max(-1) + 1) as usize;
        t.children.drain(from..cc + 2);
        t.children
            .insert(from, Tree::node(head_tag(&sibs[cc - 1]), kids));
    } else {
        let first_word = sibs[0]
            .children
            .first()
            .map(|w| w.label.to_lowercase())
            .unwrap_or_default();
        let preconj = matches!(first_word.as_str(), "either" | "neither" | "both");
        let begin = usize::from(preconj);
        let conj = preconj.then(|| Tree::node("CC", vec![sibs[0].children[0].clone()]));
        let comma_left = lbl(&sibs[cc - 1]) == ",";
        let mut left_kids: Vec<Tree> = sibs[begin..cc - 1].to_vec();
        if !comma_left {
            left_kids.push(sibs[cc - 1].clone());
        }
        let left = Tree::node(head_tag(&sibs[cc - 1]), left_kids);
        let next_cc = later_ccs.first().copied().unwrap_or(n);
        let comma_right = lbl(&sibs[next_cc - 1]) == ",";
        let mut right_kids: Vec<Tree> = if cc + 1 < next_cc - 1 {
            sibs[cc + 1..next_cc - 1].to_vec()
        } else {
            Vec::new()
        };
        if !comma_right {
            right_kids.push(sibs[next_cc - 1].clone());
        }
        let right = Tree::node(head_tag(&sibs[next_cc - 1]), right_kids);
        t.children.drain(..next_cc);
        let mut group = Vec::new();
        group.extend(conj);
        if !left.children.is_empty() {
            group.push(left);
        }
        if comma_left {
            group.push(sibs[cc - 1].clone());
        }
        group.push(sibs[cc].clone());
        if !right.children.is_empty() {
            group.push(right);
        }
        if later_ccs.is_empty() {
            t.children.extend(group);
            if comma_right {
                t.children.push(sibs[next_cc - 1].clone());
            }
        } else {
            // Another conjunction follows: the first coordination gets a level of its own.
            if comma_right {
                t.children.insert(0, sibs[next_cc - 1].clone());
            }
            t.children.insert(0, Tree::node("NP", group));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cc(penn: &str) -> String {
        let mut t = Tree::from_penn(penn).expect("tree");
        cc_transform(&mut t);
        t.penn()
    }

    #[test]
    fn functional_tags_leave_all_but_temporal_and_adverbial_noun_phrases() {
        let mut t = Tree::from_penn(
            "(TOP (S (NP-TMP (NN today)) (PP-TMP (IN in) (NP (NN time))) (VP (VB go))))",
        )
        .expect("tree");
        t = transform(&t);
        assert_eq!(
            t.penn(),
            "(ROOT (S (NP-TMP (NN today)) (PP (IN in) (NP (NN time))) (VP (VB go))))"
        );
    }

    #[test]
    fn flat_coordinations_get_structure() {
        // "a black and white photo": the determiner first, then the coordinated modifiers.
        assert_eq!(
            cc("(ROOT (NP (DT a) (JJ black) (CC and) (JJ white) (NN photo)))"),
            "(ROOT (NP (DT a) (ADJP (JJ black) (CC and) (JJ white)) (NN photo)))"
        );
        // "a man , a woman and a dog" under one NP is left alone: NPs follow the conjunction.
        let kept = "(ROOT (NP (NP (DT a) (NN man)) (, ,) (NP (DT a) (NN woman)) (CC and) (NP (DT a) (NN dog))))";
        assert_eq!(cc(kept), kept);
        // "red and white flowers": the first three children become a phrase.
        assert_eq!(
            cc("(ROOT (NP (JJ red) (CC and) (JJ white) (NNS flowers)))"),
            "(ROOT (NP (ADJP (JJ red) (CC and) (JJ white)) (NNS flowers)))"
        );
    }

    fn dated(penn: &str) -> String {
        date_stage(&Tree::from_penn(penn).expect("tree")).penn()
    }

    #[test]
    fn dates_lose_their_inner_noun_phrases() {
        assert_eq!(
            dated("(ROOT (NP (NP (NNP May)) (NP (CD 2015))))"),
            "(ROOT (NP (NNP May) (CD 2015)))"
        );
        assert_eq!(
            dated("(ROOT (NP (NP (NNP Oct.) (CD 4)) (, ,) (NP (CD 1999))))"),
            "(ROOT (NP (NNP Oct.) (CD 4) (, ,) (CD 1999)))"
        );
        // The month test finds a month name anywhere in the word.
        assert_eq!(
            dated("(ROOT (NP (NP (NNP Mayor)) (NP (CD 7))))"),
            "(ROOT (NP (NNP Mayor) (CD 7)))"
        );
        // A third child, or a month that is not alone in its NP, is left alone.
        for kept in [
            "(ROOT (NP (NP (NNP May)) (NP (CD 2015)) (NP (NN rain))))",
            "(ROOT (NP (NP (DT the) (NNP May)) (NP (CD 2015))))",
            "(ROOT (NP (NP (NNP Monday)) (NP (CD 2015))))",
        ] {
            assert_eq!(dated(kept), kept);
        }
    }
}
