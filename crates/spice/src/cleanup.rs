//! Graph clean-up before the rules (SPEC §3).
//!
//! In: a collapsed, CC-processed dependency graph. Out: the same graph with quantifier expressions
//! ("a lot of", "lots of", "two of the") demoted to a `det:qmod` modifier of the noun they
//! quantify, and pronouns replaced by their antecedent.
//!
//! Compounds and particles need no step here: the reference only annotates them, and its rules
//! read the head's own lemma (compounds become attributes in rule C1).

use crate::depgraph::{DepGraph, Rel};

/// The relation that marks a demoted quantifier expression.
pub const QMOD: Rel = Rel::DET_QMOD;

/// Runs the clean-up steps in the reference's order.
pub fn clean(g: &mut DepGraph) {
    demote_quantifiers(g);
    resolve_pronouns(g);
}

/// Heads of family (a): "a lot of", "an assortment of", ...
const FAMILY_A: &[&str] = &[
    "lot",
    "assortment",
    "number",
    "couple",
    "bunch",
    "handful",
    "litany",
    "sheaf",
    "slew",
    "dozen",
    "series",
    "variety",
    "multitude",
    "wad",
    "clutch",
    "wave",
    "mountain",
    "array",
    "spate",
    "string",
    "ton",
    "range",
    "plethora",
    "heap",
    "sort",
    "form",
    "kind",
    "type",
    "version",
    "bit",
    "pair",
    "triple",
    "total",
];

/// Family (b): "lots of", "dozens of", ... (plus decades such as "1990s").
const FAMILY_B: &[&str] = &[
    "lots",
    "many",
    "several",
    "plenty",
    "tons",
    "dozens",
    "multitudes",
    "mountains",
    "loads",
    "pairs",
    "tens",
    "hundreds",
    "thousands",
    "millions",
    "billions",
    "trillions",
];

/// Family (c): "some of the", "two of them", ... (plus digit strings).
const FAMILY_C: &[&str] = &[
    "some", "all", "both", "neither", "everyone", "nobody", "one", "two", "three", "four", "five",
    "six", "seven", "eight", "nine", "ten", "hundred", "thousand", "million", "billion",
    "trillion",
];

fn in_family(word: &str, family: &[&str]) -> bool {
    let lower = word.to_lowercase();
    family.contains(&lower.as_str())
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `/nmod.*/`, on the name as the pattern is (`nmod`, `nmod:of`, `nmod:poss`, ...).
fn is_nmod(rel: Rel) -> bool {
    rel.as_str().starts_with("nmod")
}

fn is_of(g: &DepGraph, i: usize) -> bool {
    g.word(i).eq_ignore_ascii_case("of")
}

/// A matched quantifier expression: `head` is the word the noun hangs from (lot, lots, two),
/// `noun` the quantified noun, `of` the preposition, `first` the determiner of family (a).
struct QuantMatch {
    head: usize,
    noun: usize,
    of: usize,
    det: Option<usize>,
}

/// SemanticGraphEnhancer.processQuanftificationModifiers: three patterns, each matched on the
/// graph as it stands before that pattern (one match per head word), then rewritten.
fn demote_quantifiers(g: &mut DepGraph) {
    // Every pattern needs an "of" right after its head word: most captions have none.
    if !g.nodes().any(|i| is_of(g, i)) {
        return;
    }
    for family in [Family::A, Family::B, Family::C] {
        let snapshot = g.clone();
        let matches: Vec<QuantMatch> = snapshot
            .nodes()
            .filter_map(|w| family.match_at(&snapshot, w))
            .collect();
        for m in matches {
            if !promote(g, m.head, m.noun) {
                // The reference stops processing altogether when a head has no governor.
                return;
            }
            let mut words = vec![m.head, m.of];
            words.extend(m.det);
            match family {
                // "a whole bunch of": adjectives before the head join the expression.
                Family::A => words.extend(
                    g.children(m.head, Rel::AMOD)
                        .into_iter()
                        .filter(|&c| c < m.head),
                ),
                // Families (b) and (c): every remaining child before the head joins it.
                Family::B | Family::C => words.extend(
                    g.outgoing(m.head)
                        .iter()
                        .map(|e| e.dep)
                        .filter(|&c| c < m.head),
                ),
            }
            words.sort_unstable();
            words.dedup();
            multi_word_expression(g, m.noun, &words);
        }
    }
}

#[derive(Clone, Copy)]
enum Family {
    A,
    B,
    C,
}

impl Family {
    fn match_at(self, g: &DepGraph, w: usize) -> Option<QuantMatch> {
        let word = g.word(w);
        match self {
            Family::A => {
                if !in_family(word, FAMILY_A) {
                    return None;
                }
                let det = g
                    .children(w, Rel::DET)
                    .into_iter()
                    .find(|&d| matches!(g.word(d).to_lowercase().as_str(), "a" | "an"))?;
                let (noun, of) = of_noun(g, w, |_, _| true)?;
                Some(QuantMatch {
                    head: w,
                    noun,
                    of,
                    det: Some(det),
                })
            }
            Family::B => {
                let decade =
                    word.len() > 1 && word.ends_with('s') && is_digits(&word[..word.len() - 1]);
                if !(in_family(word, FAMILY_B) || decade) {
                    return None;
                }
                let (noun, of) = of_noun(g, w, |_, _| true)?;
                Some(QuantMatch {
                    head: w,
                    noun,
                    of,
                    det: None,
                })
            }
            Family::C => {
                if !(in_family(word, FAMILY_C) || is_digits(word)) {
                    return None;
                }
                // A noun whose "of" is immediately followed by one of its determiners ("two of the
                // dogs"), or a pronoun ("all of them").
                let (noun, of) = of_noun(g, w, |noun, of| {
                    g.tag(noun).starts_with("PRP") || g.children(noun, Rel::DET).contains(&(of + 1))
                })?;
                Some(QuantMatch {
                    head: w,
                    noun,
                    of,
                    det: None,
                })
            }
        }
    }
}

/// Finds `w -nmod*-> noun -case-> of` with "of" right after `w`, the noun tagged `NN*` or
/// `PRP*` and satisfying `extra(noun, of)`.
fn of_noun(g: &DepGraph, w: usize, extra: impl Fn(usize, usize) -> bool) -> Option<(usize, usize)> {
    let of = w + 1;
    if of > g.len() || !is_of(g, of) {
        return None;
    }
    g.children_where(w, is_nmod)
        .into_iter()
        .map(|(n, _)| n)
        .find(|&n| {
            let tag = g.tag(n);
            (tag.starts_with("NN") || tag.starts_with("PRP"))
                && g.has_edge(n, of, Rel::CASE)
                && extra(n, of)
        })
        .map(|n| (n, of))
}

/// Moves `head`'s place in the graph to `noun` (its governor's edge, or the root), and removes
/// `head -> noun`. Returns false when `head` is neither a root nor governed.
fn promote(g: &mut DepGraph, head: usize, noun: usize) -> bool {
    if let Some(pos) = g.roots.iter().position(|&r| r == head) {
        g.roots.remove(pos);
        if !g.roots.contains(&noun) {
            g.roots.push(noun);
        }
    } else {
        let Some(parent) = g.parent(head) else {
            return false;
        };
        let Some(edge) = g
            .incoming(head)
            .into_iter()
            .find(|e| e.gov == parent)
            .cloned()
        else {
            return false;
        };
        g.remove_edge(edge.gov, edge.dep, edge.rel);
        g.add_edge(parent, noun, edge.rel);
    }
    g.remove_edges_between(head, noun);
    true
}

/// SemanticGraphEnhancer.createMultiWordExpression: the first word hangs from `gov` as
/// `det:qmod`, the others from the first as `mwe`; all their previous governors are dropped.
fn multi_word_expression(g: &mut DepGraph, gov: usize, words: &[usize]) {
    if g.roots.is_empty() {
        return;
    }
    let Some((&first, rest)) = words.split_first() else {
        return;
    };
    for &w in words {
        g.edges_mut().retain(|e| e.dep != w);
    }
    g.add_edge(gov, first, QMOD);
    for &w in rest {
        g.add_edge(first, w, Rel::MWE);
    }
}

/// Pronouns the reference treats as singular (CoreNLP dcoref's list; matched case-sensitively).
const SINGULAR_PRONOUNS: &[&str] = &[
    "i", "me", "myself", "mine", "my", "yourself", "he", "him", "himself", "his", "she", "her",
    "herself", "hers", "it", "its", "itself", "one", "oneself", "one's",
];

/// SimplePronounResolution + SemanticGraphEnhancer.resolvePronouns (SPEC §3.3).
fn resolve_pronouns(g: &mut DepGraph) {
    let Some(&root) = g.roots.first() else { return };
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for i in g.nodes() {
        if i <= 1 || !g.tag(i).starts_with("PRP") || g.parent(i).is_none() {
            continue;
        }
        let singular = SINGULAR_PRONOUNS.contains(&g.word(i));
        if let Some(a) = antecedent(g, root, singular) {
            if a < i {
                pairs.push((i, a));
            }
        }
    }
    for (pronoun, mention) in pairs {
        if let Some(pos) = g.roots.iter().position(|&r| r == pronoun) {
            g.roots.remove(pos);
            g.roots.push(mention);
        } else {
            let inc: Vec<_> = g.incoming(pronoun).into_iter().cloned().collect();
            for e in inc {
                g.remove_edge(e.gov, e.dep, e.rel);
                g.add_edge(e.gov, mention, e.rel);
            }
        }
        let out: Vec<_> = g.outgoing(pronoun).into_iter().cloned().collect();
        for e in out {
            g.remove_edge(e.gov, e.dep, e.rel);
            g.add_edge(mention, e.dep, e.rel);
        }
    }
}

/// Breadth-first, left-to-right search for the first noun below `start`, then below its governor,
/// and so on up (singular nouns only for singular pronouns).
fn antecedent(g: &DepGraph, start: usize, singular: bool) -> Option<usize> {
    let mut start = start;
    let mut visited_starts = Vec::new();
    loop {
        let mut queue = std::collections::VecDeque::from([start]);
        // Guards against cycles that CC-processing can create.
        let mut seen = vec![false; g.len() + 1];
        while let Some(cur) = queue.pop_front() {
            if std::mem::replace(&mut seen[cur], true) {
                continue;
            }
            let tag = g.tag(cur);
            let hit = if singular {
                matches!(tag, "NN" | "NNP")
            } else {
                crate::depgraph::is_noun_tag(tag)
            };
            if hit {
                return Some(cur);
            }
            let mut kids: Vec<usize> = g.outgoing(cur).iter().map(|e| e.dep).collect();
            kids.dedup();
            queue.extend(kids);
        }
        visited_starts.push(start);
        start = g.parent(start)?;
        if visited_starts.contains(&start) {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::depgraph::DepGraph;

    #[test]
    fn a_couple_of_dogs_heads_the_phrase_with_the_dogs() {
        // "a couple of dogs sleep": couple heads "dogs" (nmod:of) in CoreNLP's parse.
        let mut g = DepGraph::from_conllu_str(
            "1\ta\ta\t_\tDT\t_\t2\tdet\t2:det\t_\n\
             2\tcouple\tcouple\t_\tNN\t_\t5\tnsubj\t5:nsubj\t_\n\
             3\tof\tof\t_\tIN\t_\t4\tcase\t4:case\t_\n\
             4\tdogs\tdog\t_\tNNS\t_\t2\tnmod\t2:nmod:of\t_\n\
             5\tsleep\tsleep\t_\tVBP\t_\t0\troot\t0:root\t_\n",
        )
        .expect("valid")
        .remove(0);
        clean(&mut g);
        // The noun took the head's place, and "a couple of" is one det:qmod headed by "a".
        assert!(g.has_edge(5, 4, Rel::NSUBJ));
        assert!(g.has_edge(4, 1, QMOD));
        assert!(g.has_edge(1, 2, Rel::MWE) && g.has_edge(1, 3, Rel::MWE));
        assert_eq!(g.incoming(2).len(), 1);
    }

    #[test]
    fn his_phone_belongs_to_the_man() {
        // "a man holding his phone": "his" (PRP$) is replaced by "man".
        let mut g = DepGraph::from_conllu_str(
            "1\ta\ta\t_\tDT\t_\t2\tdet\t_\t_\n\
             2\tman\tman\t_\tNN\t_\t0\troot\t_\t_\n\
             3\tholding\thold\t_\tVBG\t_\t2\tacl\t_\t_\n\
             4\this\the\t_\tPRP$\t_\t5\tnmod:poss\t_\t_\n\
             5\tphone\tphone\t_\tNN\t_\t3\tdobj\t_\t_\n",
        )
        .expect("valid")
        .remove(0);
        clean(&mut g);
        assert!(g.has_edge(5, 2, Rel::NMOD_POSS));
        assert!(g.incoming(4).is_empty());
    }

    #[test]
    fn plural_pronoun_needs_no_singular_antecedent_but_must_follow_it() {
        // "they watch two dogs": "they" is the first token, so it is never resolved.
        let mut g = DepGraph::from_conllu_str(
            "1\tthey\tthey\t_\tPRP\t_\t2\tnsubj\t_\t_\n\
             2\twatch\twatch\t_\tVBP\t_\t0\troot\t_\t_\n\
             3\ttwo\ttwo\t_\tCD\t_\t4\tnummod\t_\t_\n\
             4\tdogs\tdog\t_\tNNS\t_\t2\tdobj\t_\t_\n",
        )
        .expect("valid")
        .remove(0);
        let before = g.clone();
        clean(&mut g);
        assert_eq!(g, before);
    }
}
