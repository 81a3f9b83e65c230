//! Rules: cleaned dependency graph -> proposals (SPEC §4).
//!
//! In: one sentence's collapsed, CC-processed dependency graph after [`crate::cleanup`]. Out: the
//! proposals of SPICE's rule layer, (object), (object, attribute) and (subject, object,
//! relation), in the order the reference produces them: rule by rule, and within a rule by token
//! position.
//!
//! Each rule mirrors one Semgrex pattern of the reference's `SpiceParser`. Patterns that "find"
//! yield every way the pattern matches a node; the plural patterns stop at the first match per
//! node (`findNextMatchingNode`). Relation names in patterns match whole labels.

use crate::cleanup::QMOD;
use crate::depgraph::{DepGraph, Rel};
use crate::graph::Proposal;
use crate::parse::Label;

/// `/(iobj|dobj|nmod:.*)/`: labels that give a predicate its object.
fn is_object_rel(rel: Rel) -> bool {
    matches!(rel, Rel::IOBJ | Rel::DOBJ) || rel.is_subtype_of(Label::NMOD)
}

/// `/.obj/`: any one character then "obj" (dobj, iobj). Matched on the name, as the pattern is:
/// a CoNLL-U input may bring other names (`pobj`).
fn is_dot_obj(rel: Rel) -> bool {
    let name = rel.as_str();
    name.len() == 4 && name.ends_with("obj")
}

/// `/nmod:((?!agent).)*$/`: an `nmod:` label without "agent" in it.
fn is_nmod_not_agent(rel: Rel) -> bool {
    rel.is_subtype_of(Label::NMOD) && rel.specific().is_some_and(|s| !s.contains("agent"))
}

/// The preposition of an `nmod:X` label as SPICE writes it ("on top of" for `nmod:on_top_of`);
/// none for `nmod:poss` and `nmod:agent`, which are no prepositions.
fn preposition(rel: Rel) -> Option<String> {
    if !rel.is_subtype_of(Label::NMOD) || matches!(rel, Rel::NMOD_POSS | Rel::NMOD_AGENT) {
        return None;
    }
    rel.specific().map(|s| s.replace('_', " "))
}

/// The predicate's text: its lemma plus a verb particle ("pick up"); for "be" only the particle,
/// after a space, as the reference formats it.
fn predicate(g: &DepGraph, pred: usize) -> String {
    let lemma = &g.token(pred).lemma;
    match g.first_child(pred, Rel::COMPOUND_PRT) {
        Some(prt) => format!("{} {}", if lemma == "be" { "" } else { lemma }, g.word(prt)),
        None => lemma.clone(),
    }
}

/// The predicate plus the preposition of an `nmod:X` object ("sit on", "stand on top of").
fn predicate_with(g: &DepGraph, pred: usize, rel: Rel) -> String {
    let mut p = predicate(g, pred);
    if let Some(prep) = preposition(rel) {
        p.push(' ');
        p.push_str(&prep);
    }
    p
}

/// Runs every rule on one sentence and returns its proposals.
pub fn proposals(g: &DepGraph) -> Vec<Proposal> {
    let mut out = Vec::new();
    let lemma = |i: usize| g.lemma(i);
    let nodes: Vec<usize> = g.nodes().collect();

    // S1 subject-verb-object: pred >nsubj NOUN, >(iobj|dobj|nmod:*) NOUN, !>cop.
    for &pred in &nodes {
        if g.has_child(pred, Rel::COP) {
            continue;
        }
        for subj in g
            .children(pred, Rel::NSUBJ)
            .into_iter()
            .filter(|&s| g.is_noun(s))
        {
            for (obj, rel) in g.children_where(pred, is_object_rel) {
                if g.is_noun(obj) {
                    out.push(Proposal::relation(
                        lemma(subj),
                        lemma(obj),
                        predicate_with(g, pred, rel),
                    ));
                }
            }
        }
    }

    // S2 participle clause: X >acl (VERB >(iobj|dobj|nmod:*) NOUN).
    for &x in &nodes {
        for pred in g
            .children(x, Rel::ACL)
            .into_iter()
            .filter(|&p| g.tag(p).starts_with('V'))
        {
            for (obj, rel) in g.children_where(pred, is_object_rel) {
                if g.is_noun(obj) {
                    out.push(Proposal::relation(
                        lemma(x),
                        lemma(obj),
                        predicate_with(g, pred, rel),
                    ));
                }
            }
        }
    }

    // S3 subject-predicate (no noun object, no copula), then S4 copula.
    for copular in [false, true] {
        for &pred in &nodes {
            if g.has_child(pred, Rel::COP) != copular {
                continue;
            }
            if !copular
                && g.children_where(pred, is_object_rel)
                    .iter()
                    .any(|&(o, _)| g.is_noun(o))
            {
                continue;
            }
            for subj in g
                .children(pred, Rel::NSUBJ)
                .into_iter()
                .filter(|&s| g.is_noun(s))
            {
                if let Some(case) = g.first_child(pred, Rel::CASE) {
                    // "the cat is on the mat": (cat, mat, "on"), words as written.
                    let mut prep = g.word(case).to_string();
                    for extra in g.children(case, Rel::MWE) {
                        prep.push(' ');
                        prep.push_str(g.word(extra));
                    }
                    out.push(Proposal::relation(lemma(subj), lemma(pred), prep));
                } else if g.token(pred).lemma != "be" {
                    out.push(Proposal::attribute(lemma(subj), lemma(pred)));
                }
            }
        }
    }

    // A1 adjectival modifier: X >amod A.
    for &x in &nodes {
        for a in g.children(x, Rel::AMOD) {
            out.push(Proposal::attribute(lemma(x), lemma(a)));
        }
    }

    // A2 adjectival predicate: ADJ >nsubj X.
    for &adj in &nodes {
        if g.tag(adj).starts_with('J') {
            for x in g.children(adj, Rel::NSUBJ) {
                out.push(Proposal::attribute(lemma(x), lemma(adj)));
            }
        }
    }

    // P1 prepositional modifier: NOUN >nmod:X M (not poss, not agent).
    for &gov in nodes.iter().filter(|&&n| g.is_noun(n)) {
        for (m, rel) in g.children_where(gov, |r| r.is_subtype_of(Label::NMOD)) {
            if let Some(prep) = preposition(rel) {
                out.push(Proposal::relation(lemma(gov), lemma(m), prep));
            }
        }
    }

    // P2 possessive: NOUN >nmod:poss NOUN -> (owner, owned, "have").
    for &gov in nodes.iter().filter(|&&n| g.is_noun(n)) {
        for m in g
            .children(gov, Rel::NMOD_POSS)
            .into_iter()
            .filter(|&m| g.is_noun(m))
        {
            out.push(Proposal::relation(lemma(m), lemma(gov), "have"));
        }
    }

    // P3 passive agent: VERB >nmod:agent NOUN, >nsubjpass NOUN.
    for &pred in nodes.iter().filter(|&&n| g.tag(n).starts_with('V')) {
        for s in g
            .children(pred, Rel::NMOD_AGENT)
            .into_iter()
            .filter(|&s| g.is_noun(s))
        {
            for o in g
                .children(pred, Rel::NSUBJPASS)
                .into_iter()
                .filter(|&o| g.is_noun(o))
            {
                out.push(Proposal::relation(lemma(s), lemma(o), predicate(g, pred)));
            }
        }
    }

    counts(g, &nodes, &mut out);

    // C1 compound: NOUN >compound NOUN -> (tail, head); both are then not objects.
    let mut compound = vec![false; g.len() + 1];
    for &tail in nodes.iter().filter(|&&n| g.is_noun(n)) {
        for head in g
            .children(tail, Rel::COMPOUND)
            .into_iter()
            .filter(|&h| g.is_noun(h))
        {
            compound[tail] = true;
            compound[head] = true;
            out.push(Proposal::attribute(lemma(tail), lemma(head)));
        }
    }

    // J1 conjunction sharing adds nothing in the reference (it compares a string with a word
    // object); CC-processing in the front end is what shares relations between conjuncts.

    // O1 objects: every noun that is not part of a compound.
    for &n in &nodes {
        if g.is_noun(n) && !compound[n] {
            out.push(Proposal::object(lemma(n)));
        }
    }
    out
}

/// N1 counts: the three plural patterns, each taking its first match per node.
fn counts(g: &DepGraph, nodes: &[usize], out: &mut Vec<Proposal>) {
    // A plural object of `pred`: `>/.obj/ NNS` or `>/nmod:(not agent)/ (NNS >case {})`.
    // The pattern's disjunction tries the object branch before the nmod branch.
    let plural_objects = |pred: usize| -> Vec<usize> {
        let out = g.outgoing(pred);
        let objs = out
            .iter()
            .filter(|e| g.is_plural_noun(e.dep) && is_dot_obj(e.rel));
        let nmods = out.iter().filter(|e| {
            g.is_plural_noun(e.dep) && is_nmod_not_agent(e.rel) && g.has_child(e.dep, Rel::CASE)
        });
        objs.chain(nmods).map(|e| e.dep).collect()
    };

    // Plural subject and plural object of one predicate: the first (subject, object) pair.
    for &pred in nodes {
        let first = g
            .children(pred, Rel::NSUBJ)
            .into_iter()
            .filter(|&s| g.is_plural_noun(s))
            .find_map(|s| plural_objects(pred).first().map(|&o| (s, o)));
        if let Some((s, o)) = first {
            number_attribute(g, s, out);
            number_attribute(g, o, out);
        }
    }

    // Plural subject (or plural root) whose predicate has no plural object.
    for &s in nodes.iter().filter(|&&n| g.is_plural_noun(n)) {
        let lone = g.is_root(s)
            || g.parents(s, Rel::NSUBJ)
                .into_iter()
                .any(|p| plural_objects(p).is_empty());
        if lone {
            number_attribute(g, s, out);
        }
    }

    // Any other plural: not a root, not a subject, and not the object of a predicate whose
    // subject is plural.
    for &w in nodes.iter().filter(|&&n| g.is_plural_noun(n)) {
        if g.is_root(w) || !g.parents(w, Rel::NSUBJ).is_empty() {
            continue;
        }
        let object_of_plural_subject = g.incoming(w).into_iter().any(|e| {
            // `/nmod.*/` on the name, as the pattern is (`nmod`, `nmod:on`, `nmod:poss`, ...).
            (is_dot_obj(e.rel) || e.rel.as_str().starts_with("nmod"))
                && g.children(e.gov, Rel::NSUBJ)
                    .into_iter()
                    .any(|s| g.is_plural_noun(s))
        });
        if !object_of_plural_subject {
            number_attribute(g, w, out);
        }
    }
}

/// checkForNumericAttribute: a number before the noun ("two dogs" -> (dog, two)), else a demoted
/// quantifier ("a couple of dogs" -> (dog, a)).
fn number_attribute(g: &DepGraph, w: usize, out: &mut Vec<Proposal>) {
    if let Some(n) = g.first_child(w, Rel::NUMMOD) {
        if n < w {
            out.push(Proposal::attribute(g.lemma(w), g.lemma(n)));
        }
    } else if let Some(q) = g.first_child(w, QMOD) {
        out.push(Proposal::attribute(g.lemma(w), g.lemma(q)));
    }
}
