//! Basic Universal Dependencies -> CoreNLP 3.6.0's collapsed, CC-processed UD (SPEC §2).
//!
//! In: a [`DepGraph`] holding a *basic* UD tree as CoreNLP 3.6.0's converter gives it (one head per
//! token, prepositions as `case` under their noun, `nmod` without suffix, `conj` without suffix;
//! the form of our treebank, `scripts/make-exact-treebank`). Out: the same graph rewritten in place as
//! CoreNLP's `CollapsedCCProcessedDependenciesAnnotation` (no extra dependencies, which is what the
//! SPICE jar's `parse` annotator asks for). The steps run in CoreNLP's order:
//!
//! 1. multi-word prepositions: the first word becomes `case` of the noun and the others `mwe`
//!    under it, but only where the tree has the shape CoreNLP's patterns expect (two-word
//!    "regular", two-word "complex", three-word); otherwise the pieces stay as they are, which is
//!    why the official graphs show both `(giraffe, on top of, dirt)` and `(foam, on, top)`;
//! 2. PP conjunctions with their own preposition ("on a bed and under a blanket");
//! 3. case markers into labels: `nmod:on`, `nmod:in_front_of`, `advcl:while`, `acl:to`, and
//!    `nmod:agent` for "by" under a verb with a passive auxiliary;
//! 4. `conj` -> `conj:and|or|but|...` from the `cc` word;
//! 5. CC-processing: each conjunct gets the relations of the first conjunct, and a verb conjunct
//!    without subject shares the first conjunct's subject. Like CoreNLP, it propagates nothing
//!    else (no objects, no auxiliaries) and ignores conjuncts without a coordinating word.
//!
//! CoreNLP builds copy nodes for two rare shapes. PP conjunctions with their own preposition are
//! approximated without copies (see `expand_pp_conjunctions`); conjoined prepositions sharing one
//! noun ("in and out of the house", `expandPrepConjunctions`) are left as they are. Quantifiers
//! (`det:qmod`) are not done here but in `cleanup`, as in the SPICE jar.

use crate::depgraph::{DepGraph, Rel};
use crate::parse::Label;

/// CoreNLP's two-word prepositions whose words both hang on the noun (`case`/`advmod` + `case`).
/// (CoreNLP's own list also has " depending_on" and " prior_to" with a leading space, which can never
/// match; the last [`LATER_REGULAR`] entries come from its later lists, kept for the built-in
/// parser's graphs only.)
const TWO_WORD_PREPS_REGULAR: &[&str] = &[
    "across_from",
    "along_with",
    "alongside_of",
    "apart_from",
    "as_for",
    "as_from",
    "as_of",
    "as_per",
    "as_to",
    "aside_from",
    "based_on",
    "close_by",
    "close_to",
    "contrary_to",
    "compared_to",
    "compared_with",
    "except_for",
    "exclusive_of",
    "far_from",
    "followed_by",
    "inside_of",
    "irrespective_of",
    "next_to",
    "near_to",
    "off_of",
    "out_of",
    "outside_of",
    "owing_to",
    "preliminary_to",
    "preparatory_to",
    "previous_to",
    "pursuant_to",
    "regardless_of",
    "subsequent_to",
    "thanks_to",
    "together_with",
    // Later CoreNLP versions' entries: not CoreNLP 3.6.0's.
    "away_from",
    "according_to",
    "ahead_of",
    "because_of",
    "instead_of",
    "due_to",
];

/// How many of [`TWO_WORD_PREPS_REGULAR`]'s entries, at its end, CoreNLP 3.6.0 does not have.
const LATER_REGULAR: usize = 6;

/// Two-word prepositions whose first word heads the phrase ("next" -nmod-> "house" -case-> "to").
const TWO_WORD_PREPS_COMPLEX: &[&str] = &[
    "apart_from",
    "as_from",
    "aside_from",
    "away_from",
    "close_by",
    "close_to",
    "contrary_to",
    "far_from",
    "next_to",
    "near_to",
    "out_of",
    "outside_of",
    "pursuant_to",
    "regardless_of",
    "together_with",
];

/// Three-word prepositions ("in" -case-> "front" -nmod-> "building" -case-> "of").
const THREE_WORD_PREPS: &[&str] = &[
    "by_means_of",
    "in_accordance_with",
    "in_addition_to",
    "in_case_of",
    "in_front_of",
    "in_lieu_of",
    "in_place_of",
    "in_spite_of",
    "on_account_of",
    "on_behalf_of",
    "on_top_of",
    "with_regard_to",
    "with_respect_to",
];

/// Rewrites a basic UD graph in place into collapsed, CC-processed UD (see the module doc), for
/// the built-in parser's graphs, which it tunes to them: `nmod`, `advcl` and `acl` take a `mark`
/// dependent into their label as well as a `case` one (`advcl:while`), the last of several
/// markers names the relation, and only verbs share a conjunct's subject.
pub fn enhance(g: &mut DepGraph) {
    enhance_with(g, Mode::Builtin);
}

/// [`enhance`] exactly as CoreNLP 3.6.0 does it, for graphs from its own converter
/// ([`crate::corenlp`]): only `case` dependents go into a label (`advcl` stays `advcl` over
/// "while walking", whose "while" is a `mark`); of several markers the last visited names it,
/// in the order CoreNLP's graph visits them (see `add_case_marker_information`, which needs the
/// sentence's place in the caption from 0); adjectives (`JJ*`) share a conjunct's subject as
/// verbs do ("are multicolored and curvy").
pub fn enhance_corenlp(g: &mut DepGraph, sentence: usize) {
    g.sentence = sentence;
    enhance_with(g, Mode::CoreNlp { sentence });
}

/// Whose graphs are being enhanced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Builtin,
    /// CoreNLP's own graph of the caption's `sentence`-th sentence (from 0).
    CoreNlp {
        sentence: usize,
    },
}

fn enhance_with(g: &mut DepGraph, mode: Mode) {
    // CoreNLP's graph patterns need a root; without one it skips every pattern step.
    if !g.roots.is_empty() {
        process_multiword_preps(g, mode);
        match mode {
            Mode::Builtin => expand_pp_conjunctions(g),
            Mode::CoreNlp { sentence } => {
                expand_pp_conjunctions_corenlp(g, sentence);
                expand_prep_conjunctions(g, sentence);
            }
        }
        add_case_marker_information(g, mode);
        add_conj_information(g, mode);
    }
    treat_cc(g, mode);
}

fn lower(g: &DepGraph, i: usize) -> String {
    g.word(i).to_lowercase()
}

fn is_leaf(g: &DepGraph, i: usize) -> bool {
    !g.edges().iter().any(|e| e.gov == i)
}

/// The label of the edge `gov -> dep`, if any (the first one in edge order).
fn rel_of(g: &DepGraph, gov: usize, dep: usize) -> Option<Rel> {
    g.edges()
        .iter()
        .find(|e| e.gov == gov && e.dep == dep)
        .map(|e| e.rel)
}

/// Positions `i` (ascending) where the words `i..i+parts.len()` spell `parts` (ASCII words,
/// compared without case and without allocating: this runs for every listed preposition).
fn ngram_positions(g: &DepGraph, parts: &[&str]) -> Vec<usize> {
    let k = parts.len();
    if g.len() < k {
        return Vec::new();
    }
    (1..=g.len() + 1 - k)
        .filter(|&i| {
            parts
                .iter()
                .enumerate()
                .all(|(j, p)| g.word(i + j).eq_ignore_ascii_case(p))
        })
        .collect()
}

/// Moves every outgoing edge of `from` to `to`, keeping labels.
fn move_children(g: &mut DepGraph, from: usize, to: usize) {
    let moved: Vec<(usize, Rel)> = g.outgoing(from).iter().map(|e| (e.dep, e.rel)).collect();
    g.edges_mut().retain(|e| e.gov != from);
    for (dep, rel) in moved {
        g.add_edge(to, dep, rel);
    }
}

/// CoreNLP's `createMultiWordExpression`: each word leaves its governor; the first becomes `reln`
/// of `gov`, the others `mwe` of the first. Other dependents of the words stay where they are.
fn create_multiword_expression(g: &mut DepGraph, gov: usize, reln: Rel, words: &[usize]) {
    let mut head: Option<usize> = None;
    for &w in words {
        if let Some(p) = g.parent(w) {
            g.remove_edges_between(p, w);
        }
        match head {
            None => {
                g.add_edge(gov, w, reln);
                head = Some(w);
            }
            Some(h) => {
                g.add_edge(h, w, Rel::MWE);
            }
        }
    }
}

fn replace_root(g: &mut DepGraph, old: usize, new: usize) {
    for r in g.roots.iter_mut() {
        if *r == old {
            *r = new;
        }
    }
    g.roots.dedup();
}

fn process_multiword_preps(g: &mut DepGraph, mode: Mode) {
    process_simple_2wp(g, mode);
    process_complex_2wp(g, mode);
    process_3wp(g);
}

/// `gov >case|advmod w1 (leaf) >case w2 (leaf)`, w1 w2 adjacent ("out of": case(trees, out),
/// case(trees, of)) => case(gov, w1), mwe(w1, w2).
fn process_simple_2wp(g: &mut DepGraph, mode: Mode) {
    let list = match mode {
        Mode::Builtin => TWO_WORD_PREPS_REGULAR,
        Mode::CoreNlp { .. } => {
            &TWO_WORD_PREPS_REGULAR[..TWO_WORD_PREPS_REGULAR.len() - LATER_REGULAR]
        }
    };
    for bigram in list {
        let parts: Vec<&str> = bigram.split('_').collect();
        for w1 in ngram_positions(g, &parts) {
            let w2 = w1 + 1;
            if !is_leaf(g, w1) || !is_leaf(g, w2) {
                continue;
            }
            let gov = g.edges().iter().find_map(|e| {
                let ok = e.dep == w1
                    && (e.rel == Rel::CASE || e.rel == Rel::ADVMOD)
                    && g.has_edge(e.gov, w2, Rel::CASE);
                ok.then_some(e.gov)
            });
            if let Some(gov) = gov {
                create_multiword_expression(g, gov, Rel::CASE, &[w1, w2]);
            }
        }
    }
}

/// `w1 >nmod (gov2 >case w2 (leaf))`, w1 the root or a dependent of gov ("next to the house":
/// nmod(X, next), nmod(next, house), case(house, to)) => gov2 takes w1's place (as `nmod` of gov,
/// or w1's own relation when w1 heads a copula), w1's other dependents move to gov2, and
/// case(gov2, w1), mwe(w1, w2).
fn process_complex_2wp(g: &mut DepGraph, mode: Mode) {
    for bigram in TWO_WORD_PREPS_COMPLEX {
        let parts: Vec<&str> = bigram.split('_').collect();
        for w1 in ngram_positions(g, &parts) {
            let w2 = w1 + 1;
            if !is_leaf(g, w2) {
                continue;
            }
            let Some(gov2) = g
                .children(w1, Rel::NMOD)
                .into_iter()
                .find(|&c| g.has_edge(c, w2, Rel::CASE))
            else {
                continue;
            };
            let is_root = g.is_root(w1);
            let gov = g.parent(w1);
            if !is_root && gov.is_none() {
                continue;
            }
            g.remove_edge(w1, gov2, Rel::NMOD);
            if is_root {
                replace_root(g, w1, gov2);
            } else if let Some(gov) = gov {
                // A copular w1 passes on its own relation; CoreNLP only when that relation joins
                // two clauses.
                let own = rel_of(g, gov, w1).filter(|&r| {
                    mode == Mode::Builtin
                        || [
                            Rel::CONJ,
                            Rel::XCOMP,
                            Rel::CCOMP,
                            Rel::ACL,
                            Rel::ADVCL,
                            Rel::ACL_RELCL,
                            Rel::PARATAXIS,
                            Rel::APPOS,
                            Rel::LIST,
                        ]
                        .contains(&r)
                });
                let reln = if g.has_child(w1, Rel::COP) {
                    own.unwrap_or(Rel::NMOD)
                } else {
                    Rel::NMOD
                };
                g.add_edge(gov, gov2, reln);
            }
            move_children(g, w1, gov2);
            create_multiword_expression(g, gov2, Rel::CASE, &[w1, w2]);
        }
    }
}

/// `w2 >nmod|acl|advcl (gov2 >case|mark w3 (leaf)) >case w1 (leaf)`, w2 the root or a dependent of
/// gov ("in front of the building": nmod(X, front), case(front, in), nmod(front, building),
/// case(building, of)) => gov2 takes w2's place with w2's relation, w2's dependents move to gov2,
/// and case(gov2, w1), mwe(w1, w2), mwe(w1, w3). A clause after the phrase (`acl`/`advcl` under an
/// `nmod`) keeps its clausal relation and takes the words as `mark`.
fn process_3wp(g: &mut DepGraph) {
    for trigram in THREE_WORD_PREPS {
        let parts: Vec<&str> = trigram.split('_').collect();
        for w1 in ngram_positions(g, &parts) {
            let (w2, w3) = (w1 + 1, w1 + 2);
            if !is_leaf(g, w1) || !is_leaf(g, w3) || !g.has_edge(w2, w1, Rel::CASE) {
                continue;
            }
            let found = g.outgoing(w2).into_iter().find_map(|e| {
                let clausal = matches!(e.rel, Rel::NMOD | Rel::ACL | Rel::ADVCL);
                let marked = g.has_edge(e.dep, w3, Rel::CASE) || g.has_edge(e.dep, w3, Rel::MARK);
                (clausal && marked).then_some((e.dep, e.rel))
            });
            let Some((gov2, inner_rel)) = found else {
                continue;
            };
            let is_root = g.is_root(w2);
            let gov = g.parent(w2);
            if !is_root && gov.is_none() {
                continue;
            }
            let mut marker = Rel::CASE;
            g.remove_edge(w2, gov2, inner_rel);
            if is_root {
                replace_root(g, w2, gov2);
            } else if let Some(gov) = gov {
                let mut reln = rel_of(g, gov, w2).unwrap_or(Rel::NMOD);
                if reln == Rel::NMOD && (inner_rel == Rel::ACL || inner_rel == Rel::ADVCL) {
                    reln = inner_rel;
                    marker = Rel::MARK;
                }
                g.add_edge(gov, gov2, reln);
            }
            move_children(g, w2, gov2);
            create_multiword_expression(g, gov2, marker, &[w1, w2, w3]);
        }
    }
}

/// "a cat on a bed and under a blanket": basic has nmod(cat, bed), conj(bed, blanket) with
/// case(blanket, under). CoreNLP copies the governor ("cat'") and hangs the second PP on the copy,
/// so the second noun is `nmod:under`, not a conjunct taking `nmod:on`. Without copy nodes the
/// second PP hangs on the governor itself, which gives the same SPICE tuples.
fn expand_pp_conjunctions(g: &mut DepGraph) {
    let mut moves: Vec<(usize, usize, usize, Rel)> = Vec::new();
    for e in g.edges() {
        if !matches!(e.rel, Rel::NMOD | Rel::ACL | Rel::ADVCL) {
            continue;
        }
        let nmod = e.dep;
        if !g.has_child(nmod, Rel::CASE) || !g.has_child(nmod, Rel::CC) {
            continue;
        }
        for conj in g.children(nmod, Rel::CONJ) {
            if g.has_child(conj, Rel::CASE) {
                moves.push((e.gov, nmod, conj, e.rel));
            }
        }
    }
    for (gov, nmod, conj, rel) in moves {
        g.remove_edge(nmod, conj, Rel::CONJ);
        g.add_edge(gov, conj, rel);
    }
}

/// The order in which CoreNLP's graph patterns visit the dependents of one word: a Java `HashMap`
/// keyed by the words, whose hash is `29 * sentence + index` (a copy hashes as its word), by that
/// hash modulo the table's 16 buckets (a word with more than 12 dependents is rare enough not to
/// matter), then in insertion order, which for our graphs is the word order.
fn hash_order(g: &DepGraph, sentence: usize, nodes: &mut [usize]) {
    nodes.sort_by_key(|&w| {
        let (at, copy) = g.order_key(w);
        ((29 * sentence + at) & 15, at, copy)
    });
}

/// Matches of `gov >cc cc >conj conj` for each of the pattern's governors `govs`, grouped
/// as CoreNLP's `expandPPConjunctions` and `expandPrepConjunctions` group them: consecutive
/// matches of one governor and one coordinating word make one group. A match is repeated for
/// every binding of the pattern's unnamed nodes (the count `govs` gives x `cases_of_conj`).
struct ConjGroup {
    gov: usize,
    cc: usize,
    conjs: Vec<usize>,
}

fn conj_groups(
    g: &DepGraph,
    sentence: usize,
    govs: &[(usize, usize)],
    cases_of_conj: impl Fn(usize) -> usize,
) -> Vec<ConjGroup> {
    let mut groups: Vec<ConjGroup> = Vec::new();
    for &(gov, bindings) in govs {
        let mut ccs = g.children(gov, Rel::CC);
        hash_order(g, sentence, &mut ccs);
        let mut conjs = g.children(gov, Rel::CONJ);
        hash_order(g, sentence, &mut conjs);
        for _ in 0..bindings {
            for &cc in &ccs {
                for &conj in &conjs {
                    for _ in 0..cases_of_conj(conj) {
                        match groups.last_mut() {
                            Some(last) if last.gov == gov && last.cc == cc => last.conjs.push(conj),
                            _ => groups.push(ConjGroup {
                                gov,
                                cc,
                                conjs: vec![conj],
                            }),
                        }
                    }
                }
            }
        }
    }
    groups
}

/// The governors of CoreNLP's pattern `{} >rel ({}=gov >case {} ...)`, in the order it finds
/// them (the graph's words in order, which its topological sort follows for these small trees),
/// each with the number of times it matches the pattern's unnamed nodes.
fn pattern_govs(
    g: &DepGraph,
    tops: impl Fn(&DepGraph, usize) -> Vec<usize>,
) -> Vec<(usize, usize)> {
    let mut govs = Vec::new();
    for top in g.nodes_in_order() {
        for gov in tops(g, top) {
            let cases = g.children(gov, Rel::CASE).len();
            if cases > 0 {
                govs.push((gov, cases));
            }
        }
    }
    govs
}

/// CoreNLP's `expandPPConjunctions`. For `top -nmod-> gov` with `case(gov, _)`, `cc(gov, cc)` and
/// `conj(gov, conj)` where `conj` has a case marker ("jumps off a dock and into the water"): the
/// governor `top` is copied ("jumps'1"), the copy takes `conj` by `top`'s relation instead of
/// `gov` taking it as a conjunct, `top` (or the word it copies) takes the copy as `conj:<cc>` and
/// the coordinating word as `cc`.
fn expand_pp_conjunctions_corenlp(g: &mut DepGraph, sentence: usize) {
    let govs = pattern_govs(g, |g, top| {
        g.children_where(top, |r| matches!(r, Rel::NMOD | Rel::ACL | Rel::ADVCL))
            .into_iter()
            .map(|(d, _)| d)
            .collect()
    });
    let cases = |g: &DepGraph, n: usize| g.children(n, Rel::CASE).len();
    let groups = conj_groups(g, sentence, &govs, |c| cases(g, c));
    for ConjGroup { gov, cc, conjs } in groups {
        let Some(nmod_gov) = g.parent(gov) else {
            continue;
        };
        let conj_gov = g.original(nmod_gov);
        let Some(rel) = rel_of(g, nmod_gov, gov) else {
            continue;
        };
        let mut copies = Vec::new();
        for conj in conjs {
            let copy = g.add_copy(nmod_gov);
            if let Some(k) = g.edges().iter().position(|e| e.gov == gov && e.dep == conj) {
                g.edges_mut().remove(k);
                g.add_edge(copy, conj, rel);
            }
            g.add_edge(conj_gov, copy, Rel::CONJ);
            copies.push(copy);
        }
        if let Some(k) = g.edges().iter().position(|e| e.gov == gov && e.dep == cc) {
            g.edges_mut().remove(k);
            g.add_edge(conj_gov, cc, Rel::CC);
        }
        add_conj_to_reln(g, conj_gov, &copies, cc);
    }
}

/// CoreNLP's `expandPrepConjunctions`. For a preposition `gov` with `cc(gov, cc)` and
/// `conj(gov, conj)` ("photos before and after the repair"): the governor of the preposition's
/// noun is copied, the copy takes the noun by that governor's relation marked by `conj`
/// (`nmod:after`) and its original takes the copy as `conj:<cc>`. The conjoined prepositions
/// keep their `cc` and `conj`.
fn expand_prep_conjunctions(g: &mut DepGraph, sentence: usize) {
    let govs: Vec<(usize, usize)> = {
        g.nodes_in_order()
            .into_iter()
            .flat_map(|top| g.children(top, Rel::CASE))
            .map(|gov| (gov, 1))
            .collect()
    };
    let groups = conj_groups(g, sentence, &govs, |_| 1);
    for ConjGroup { gov, cc, conjs } in groups {
        let Some(case_gov) = g.parent(gov) else {
            continue;
        };
        let Some(case_gov_gov) = g.parent(case_gov) else {
            continue;
        };
        let conj_gov = g.original(case_gov_gov);
        let Some(rel) = rel_of(g, case_gov_gov, case_gov) else {
            continue;
        };
        let mut copies = Vec::new();
        for conj in conjs {
            let copy = g.add_copy(case_gov_gov);
            g.add_edge(conj_gov, copy, Rel::CONJ);
            copies.push(copy);
            let marked = match rel.base() {
                Some(base @ (Label::NMOD | Label::ADVCL | Label::ACL)) => {
                    Rel::with_specific(base, &lower(g, conj))
                }
                _ => rel,
            };
            g.add_edge(copy, case_gov, marked);
        }
        add_conj_to_reln(g, conj_gov, &copies, cc);
    }
}

/// CoreNLP's `addConjToReln` for the conjuncts a copy was made for: `conj` -> `conj:<cc>`.
fn add_conj_to_reln(g: &mut DepGraph, gov: usize, conjs: &[usize], cc: usize) {
    let label = Rel::with_specific(Label::CONJ, &conj_value_corenlp(g, cc));
    for &conj in conjs {
        if let Some(e) = g
            .edges_mut()
            .iter_mut()
            .find(|e| e.gov == gov && e.dep == conj && e.rel == Rel::CONJ)
        {
            e.rel = label;
        }
    }
}

/// `nmod`, `advcl` and `acl` take their case marker (or `mark`) into the label: three-word markers
/// first, then two-word, then one-word, each on the labels still plain after the step before (as
/// CoreNLP's successive patterns do). "by" under a verb with `auxpass` gives `nmod:agent` first.
fn add_case_marker_information(g: &mut DepGraph, mode: Mode) {
    for k in 0..g.edges().len() {
        let e = &g.edges()[k];
        if e.rel != Rel::NMOD || !g.has_child(e.gov, Rel::AUXPASS) {
            continue;
        }
        let by = g
            .children(e.dep, Rel::CASE)
            .into_iter()
            .any(|c| lower(g, c) == "by");
        if by {
            g.edges_mut()[k].rel = Rel::NMOD_AGENT;
        }
    }
    for want_mwes in [2usize, 1, 0] {
        let plain: Vec<usize> = (0..g.edges().len())
            .filter(|&k| matches!(g.edges()[k].rel, Rel::NMOD | Rel::ADVCL | Rel::ACL))
            .collect();
        for k in plain {
            // `nmod`, `advcl` or `acl`: always a base label.
            let (Some(base), mod_) = (g.edges()[k].rel.base(), g.edges()[k].dep) else {
                continue;
            };
            let mut words: Vec<usize> = g.children(mod_, Rel::CASE);
            if mode == Mode::Builtin {
                words.extend(g.children(mod_, Rel::MARK));
            }
            match mode {
                Mode::Builtin => words.sort_unstable(),
                // CoreNLP's pattern visits a word's dependents in the order of a Java `HashMap`
                // keyed by the words, whose hash is `29 * sentence + index`: by that hash modulo
                // the table's 16 buckets (a word with more than 12 dependents is rare enough not
                // to matter). Each renames the relation; the last one visited names it.
                Mode::CoreNlp { sentence } => {
                    words.sort_by_key(|&w| ((29 * sentence + w) & 15, w));
                }
            }
            for c1 in words {
                let mwes = g.children(c1, Rel::MWE);
                if mwes.len() < want_mwes {
                    continue;
                }
                let mut words = vec![c1];
                words.extend(mwes.iter().take(want_mwes));
                words.sort_unstable();
                let name: Vec<String> = words.iter().map(|&w| lower(g, w)).collect();
                g.edges_mut()[k].rel = Rel::with_specific(base, &name.join("_"));
            }
        }
    }
}

/// CoreNLP's `conjValue`: the label a coordinating word gives its conjuncts.
fn conj_value(g: &DepGraph, cc: usize) -> String {
    let word = lower(g, cc);
    let next = (cc < g.len()).then(|| lower(g, cc + 1));
    let prev = (cc > 1).then(|| lower(g, cc - 1));
    match word.as_str() {
        "not" if prev.as_deref() == Some("but") => "negcc".into(),
        _ if next.as_deref() == Some("than") => "negcc".into(),
        "instead" | "rather" => "negcc".into(),
        "&" => "and".into(),
        "but" if next.as_deref() == Some("also") => "and".into(),
        "as" if next.as_deref() == Some("well") => "and".into(),
        _ => word,
    }
}

/// CoreNLP 3.6.0's `conjValue` as it is: a few two- and three-word conjunctions are `and` or
/// `negcc`, every other word names itself lowercased ("&" stays "&"), except a conjunction
/// ending the sentence, which keeps its case.
fn conj_value_corenlp(g: &DepGraph, cc: usize) -> String {
    let word = lower(g, cc);
    let at = |i: usize| (i >= 1 && i <= g.words()).then(|| lower(g, i));
    if word == "not" && at(cc - 1).as_deref() == Some("but") {
        return "negcc".into();
    }
    let Some(next) = at(cc + 1) else {
        return g.word(cc).to_string();
    };
    match (word.as_str(), next.as_str()) {
        ("but", "rather") | ("if", "not") | ("instead", "of") | ("rather", "than") => {
            "negcc".into()
        }
        ("but", "also") | ("as", "well") => "and".into(),
        ("not", "to") if at(cc + 2).as_deref() == Some("mention") => "and".into(),
        _ => word,
    }
}

/// `conj` -> `conj:<cc>`. A governor with several `cc` words gives each conjunct the last one
/// before it (the first one if none is before it), as CoreNLP's pass over (gov, cc, conj) does.
fn add_conj_information(g: &mut DepGraph, mode: Mode) {
    let govs: Vec<usize> = {
        let mut v: Vec<usize> = g
            .edges()
            .iter()
            .filter(|e| e.rel == Rel::CONJ)
            .map(|e| e.gov)
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    for gov in govs {
        let ccs = g.children(gov, Rel::CC);
        let Some(&first) = ccs.first() else {
            continue;
        };
        for conj in g.children(gov, Rel::CONJ) {
            let cc = ccs
                .iter()
                .skip(1)
                .rfind(|&&c| g.order_key(c) < g.order_key(conj))
                .copied()
                .unwrap_or(first);
            let label = Rel::with_specific(
                Label::CONJ,
                &match mode {
                    Mode::Builtin => conj_value(g, cc),
                    Mode::CoreNlp { .. } => conj_value_corenlp(g, cc),
                },
            );
            for e in g.edges_mut().iter_mut() {
                if e.gov == gov && e.dep == conj && e.rel == Rel::CONJ {
                    e.rel = label;
                }
            }
        }
    }
}

/// `nsubj`, `nsubjpass`, `csubj`, `csubjpass`, or a subtype of `nsubj`/`csubj` (`nsubj:xsubj`;
/// not of the passive ones, as CoreNLP's test of the name).
fn is_subject(rel: Rel) -> bool {
    rel.is(Label::NSUBJ) || rel.is(Label::CSUBJ) || matches!(rel, Rel::NSUBJPASS | Rel::CSUBJPASS)
}

/// CoreNLP's `treatCC`. For every `conj:<cc>(gov, dep)`: `dep` gets each relation that enters
/// `gov` (so both nouns of "a man and a woman are sitting" are `nsubj`); and if `gov` has a subject
/// and `dep` is a verb (`VB*`) without one, `dep` gets that subject, switched to active for clearly
/// active tags and to passive when `dep` has `auxpass`. Adjective conjuncts get no subject ("the
/// man is tall and thin"), and plain `conj` (no coordinating word) propagates nothing.
fn treat_cc(g: &mut DepGraph, mode: Mode) {
    let snapshot = g.edges().to_vec();
    let incoming = |n: usize| snapshot.iter().filter(move |e| e.dep == n);
    let subject_of = |n: usize| {
        snapshot
            .iter()
            .filter(|e| e.gov == n && is_subject(e.rel))
            .min_by_key(|e| e.dep)
    };
    let passive_aux = |n: usize| snapshot.iter().any(|e| e.gov == n && e.rel == Rel::AUXPASS);
    let relcl_head = |n: usize| {
        snapshot
            .iter()
            .any(|e| e.gov == n && e.rel == Rel::ACL_RELCL)
    };

    let mut additions: Vec<(usize, usize, Rel)> = Vec::new();
    for conj in snapshot.iter().filter(|e| e.rel.is_subtype_of(Label::CONJ)) {
        let (gov, dep) = (conj.gov, conj.dep);
        for e1 in incoming(gov) {
            if e1.gov == dep {
                continue;
            }
            // CoreNLP 3.6.0 never hands a conjoined preposition its first conjunct's `case`.
            if e1.rel == Rel::CASE && mode != Mode::Builtin {
                continue;
            }
            let both_relcl = relcl_head(gov) && relcl_head(dep);
            if both_relcl && (e1.rel == Rel::DOBJ || e1.rel == Rel::NSUBJ) {
                continue;
            }
            additions.push((e1.gov, dep, e1.rel));
        }
        let tag = g.tag(dep);
        if let Some(subj) = subject_of(gov) {
            let takes_subject =
                tag.starts_with("VB") || (mode != Mode::Builtin && tag.starts_with("JJ"));
            if takes_subject && subject_of(dep).is_none() {
                let active = matches!(tag, "VB" | "VBZ" | "VBP") || tag.starts_with("JJ");
                let rel = match subj.rel {
                    Rel::NSUBJPASS if active => Rel::NSUBJ,
                    Rel::CSUBJPASS if active => Rel::CSUBJ,
                    Rel::NSUBJ if passive_aux(dep) => Rel::NSUBJPASS,
                    Rel::CSUBJ if passive_aux(dep) => Rel::CSUBJPASS,
                    other => other,
                };
                additions.push((dep, subj.dep, rel));
            }
        }
    }
    for (gov, dep, rel) in additions {
        g.add_edge(gov, dep, rel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A basic graph from compact rows `ID FORM XPOS HEAD DEPREL` (CoNLL-U without the unused
    /// columns), read by the CoNLL-U reader.
    fn basic(rows: &str) -> DepGraph {
        let mut text = String::new();
        for line in rows.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let c: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(
                c.len(),
                5,
                "test row needs ID FORM XPOS HEAD DEPREL: {line}"
            );
            text.push_str(&format!(
                "{}\t{}\t{}\t_\t{}\t_\t{}\t{}\t_\t_\n",
                c[0],
                c[1],
                c[1].to_lowercase(),
                c[2],
                c[3],
                c[4]
            ));
        }
        let mut graphs = DepGraph::from_conllu_str(&text).expect("test CoNLL-U is valid");
        assert_eq!(graphs.len(), 1);
        graphs.remove(0)
    }

    fn enhanced(rows: &str) -> DepGraph {
        let mut g = basic(rows);
        enhance(&mut g);
        g
    }

    /// The graph's edges as `rel(gov-i, dep-j)` lines, CoreNLP's notation, sorted.
    fn rels(g: &DepGraph) -> Vec<String> {
        g.to_relations_string()
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn assert_rels(g: &DepGraph, want: &[&str]) {
        let mut got = rels(g);
        got.sort();
        let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(got, want, "\n{}", g.to_relations_string());
    }

    #[test]
    fn preposition_goes_into_the_label_and_case_stays() {
        // "A cat sitting on a couch ." (COCO): nmod(sitting, couch) + case(couch, on).
        let g = enhanced(
            "1 A DT 2 det
             2 cat NN 0 root
             3 sitting VBG 2 acl
             4 on IN 6 case
             5 a DT 6 det
             6 couch NN 3 nmod
             7 . . 2 punct",
        );
        assert_rels(
            &g,
            &[
                "root(ROOT-0, cat-2)",
                "det(cat-2, A-1)",
                "acl(cat-2, sitting-3)",
                "case(couch-6, on-4)",
                "det(couch-6, a-5)",
                "nmod:on(sitting-3, couch-6)",
                "punct(cat-2, .-7)",
            ],
        );
    }

    #[test]
    fn by_is_an_agent_only_with_a_passive_auxiliary() {
        // "a kite is being flown by a boy": auxpass on "flown" makes the by-phrase nmod:agent.
        let g = enhanced(
            "1 a DT 2 det
             2 kite NN 5 nsubjpass
             3 is VBZ 5 aux
             4 being VBG 5 auxpass
             5 flown VBN 0 root
             6 by IN 8 case
             7 a DT 8 det
             8 boy NN 5 nmod",
        );
        assert!(g.has_edge(5, 8, Rel::NMOD_AGENT));
        assert!(g.has_edge(8, 6, Rel::CASE));
        // "a kite flown by a boy": no auxiliary, so CoreNLP keeps the preposition: nmod:by.
        let g = enhanced(
            "1 a DT 2 det
             2 kite NN 0 root
             3 flown VBN 2 acl
             4 by IN 6 case
             5 a DT 6 det
             6 boy NN 3 nmod",
        );
        assert!(g.has_edge(3, 6, Rel::named("nmod:by")));
        assert!(!g.has_edge(3, 6, Rel::NMOD_AGENT));
    }

    #[test]
    fn possessive_is_left_alone() {
        // "the man 's shirt is white": nmod:poss is not a plain nmod, so 's does not become a label.
        let g = enhanced(
            "1 the DT 2 det
             2 man NN 4 nmod:poss
             3 's POS 2 case
             4 shirt NN 6 nsubj
             5 is VBZ 6 cop
             6 white JJ 0 root",
        );
        assert!(g.has_edge(4, 2, Rel::NMOD_POSS));
        assert!(g.has_edge(2, 3, Rel::CASE));
        assert_eq!(g.edges().len(), 5);
    }

    #[test]
    fn in_front_of_folds_when_of_hangs_on_front() {
        // "a bus parked in front of a building": basic nmod(parked, front), case(front, in),
        // nmod(front, building), case(building, of) is the three-word shape: the building takes
        // front's place and "in front of" becomes one marker.
        let g = enhanced(
            "1 a DT 2 det
             2 bus NN 0 root
             3 parked VBN 2 acl
             4 in IN 5 case
             5 front NN 3 nmod
             6 of IN 8 case
             7 a DT 8 det
             8 building NN 5 nmod",
        );
        assert_rels(
            &g,
            &[
                "root(ROOT-0, bus-2)",
                "det(bus-2, a-1)",
                "acl(bus-2, parked-3)",
                "case(building-8, in-4)",
                "mwe(in-4, front-5)",
                "mwe(in-4, of-6)",
                "det(building-8, a-7)",
                "nmod:in_front_of(parked-3, building-8)",
            ],
        );
    }

    #[test]
    fn on_top_of_folds_at_the_root_of_a_copula() {
        // "the giraffe is on top of dirt" (official graph: (giraffe, on top of, dirt)): "top" is the
        // copular predicate; "dirt" becomes the root and takes its subject and copula.
        let g = enhanced(
            "1 the DT 2 det
             2 giraffe NN 5 nsubj
             3 is VBZ 5 cop
             4 on IN 5 case
             5 top NN 0 root
             6 of IN 7 case
             7 dirt NN 5 nmod",
        );
        assert_eq!(g.roots, vec![7]);
        assert_rels(
            &g,
            &[
                "root(ROOT-0, dirt-7)",
                "det(giraffe-2, the-1)",
                "nsubj(dirt-7, giraffe-2)",
                "cop(dirt-7, is-3)",
                "case(dirt-7, on-4)",
                "mwe(on-4, top-5)",
                "mwe(on-4, of-6)",
            ],
        );
    }

    #[test]
    fn on_top_of_stays_apart_when_of_hangs_elsewhere() {
        // "foam on top of the water" (official graph: (foam, on, top), (foam, of, water)): the PCFG
        // hung "of the water" on "foam", so the three-word pattern does not match.
        let g = enhanced(
            "1 foam NN 0 root
             2 on IN 3 case
             3 top NN 1 nmod
             4 of IN 6 case
             5 the DT 6 det
             6 water NN 1 nmod",
        );
        assert!(g.has_edge(1, 3, Rel::named("nmod:on")));
        assert!(g.has_edge(1, 6, Rel::named("nmod:of")));
        assert!(!g.has_child(2, Rel::MWE));
    }

    #[test]
    fn next_to_folds_from_its_complex_shape() {
        // "a bear next to a fence" (official: (bear, next to, fence)): "next" heads "to a fence".
        let g = enhanced(
            "1 a DT 2 det
             2 bear NN 0 root
             3 next JJ 2 nmod
             4 to TO 6 case
             5 a DT 6 det
             6 fence NN 3 nmod",
        );
        assert_rels(
            &g,
            &[
                "root(ROOT-0, bear-2)",
                "det(bear-2, a-1)",
                "case(fence-6, next-3)",
                "mwe(next-3, to-4)",
                "det(fence-6, a-5)",
                "nmod:next_to(bear-2, fence-6)",
            ],
        );
        // With an adverbial "next" the relation is still nmod (it comes from next -> fence).
        let g = enhanced(
            "1 a DT 2 det
             2 bear NN 0 root
             3 next RB 2 advmod
             4 to TO 6 case
             5 a DT 6 det
             6 fence NN 3 nmod",
        );
        assert!(g.has_edge(2, 6, Rel::named("nmod:next_to")));
    }

    #[test]
    fn next_to_as_copular_predicate_hands_the_root_over() {
        // "a dresser is next to the window" (official: (dresser, next to, window)).
        let g = enhanced(
            "1 a DT 2 det
             2 dresser NN 4 nsubj
             3 is VBZ 4 cop
             4 next JJ 0 root
             5 to TO 7 case
             6 the DT 7 det
             7 window NN 4 nmod",
        );
        assert_eq!(g.roots, vec![7]);
        assert!(g.has_edge(7, 2, Rel::NSUBJ));
        assert!(g.has_edge(7, 3, Rel::COP));
        assert!(g.has_edge(7, 4, Rel::CASE));
        assert!(g.has_edge(4, 5, Rel::MWE));
        assert_eq!(g.incoming(4).len(), 1);
    }

    #[test]
    fn next_to_stays_apart_when_next_hangs_on_the_verb() {
        // "trucks parked next to fedex plane" (official: (truck, park to, plane)): "next" is an
        // adverb of "parked" and "to" marks the plane directly, a shape no pattern folds.
        let g = enhanced(
            "1 trucks NNS 0 root
             2 parked VBN 1 acl
             3 next RB 2 advmod
             4 to TO 6 case
             5 fedex NN 6 compound
             6 plane NN 2 nmod",
        );
        assert!(g.has_edge(2, 6, Rel::named("nmod:to")));
        assert!(g.has_edge(2, 3, Rel::ADVMOD));
    }

    #[test]
    fn out_of_folds_from_two_case_words() {
        // "a train coming out of trees" (official: (train, come out of, tree)).
        let g = enhanced(
            "1 a DT 2 det
             2 train NN 0 root
             3 coming VBG 2 acl
             4 out IN 6 case
             5 of IN 6 case
             6 trees NNS 3 nmod",
        );
        assert!(g.has_edge(3, 6, Rel::named("nmod:out_of")));
        assert!(g.has_edge(6, 4, Rel::CASE));
        assert!(g.has_edge(4, 5, Rel::MWE));
        assert!(!g.has_edge(6, 5, Rel::CASE));
    }

    #[test]
    fn basic_mwe_gives_a_two_word_label() {
        // "a man sitting because of the rain": the converter's own mwe(because, of).
        let g = enhanced(
            "1 a DT 2 det
             2 man NN 0 root
             3 sitting VBG 2 acl
             4 because IN 7 case
             5 of IN 4 mwe
             6 the DT 7 det
             7 rain NN 3 nmod",
        );
        assert!(g.has_edge(3, 7, Rel::named("nmod:because_of")));
    }

    #[test]
    fn clauses_take_their_marker() {
        // "a man holding an umbrella while walking": advcl + mark(while) -> advcl:while.
        let g = enhanced(
            "1 a DT 2 det
             2 man NN 0 root
             3 holding VBG 2 acl
             4 an DT 5 det
             5 umbrella NN 3 dobj
             6 while IN 7 mark
             7 walking VBG 3 advcl",
        );
        assert!(g.has_edge(3, 7, Rel::named("advcl:while")));
        assert!(g.has_edge(2, 3, Rel::ACL));
    }

    #[test]
    fn conjoined_subjects_share_the_verb() {
        // "a man and a woman are sitting on a bench": woman becomes nsubj of sitting too.
        let g = enhanced(
            "1 a DT 2 det
             2 man NN 7 nsubj
             3 and CC 2 cc
             4 a DT 5 det
             5 woman NN 2 conj
             6 are VBP 7 aux
             7 sitting VBG 0 root
             8 on IN 10 case
             9 a DT 10 det
             10 bench NN 7 nmod",
        );
        assert!(g.has_edge(2, 5, Rel::named("conj:and")));
        assert!(g.has_edge(7, 5, Rel::NSUBJ));
        assert!(g.has_edge(7, 2, Rel::NSUBJ));
        assert!(g.has_edge(7, 10, Rel::named("nmod:on")));
    }

    #[test]
    fn conjoined_objects_share_the_preposition() {
        // "a table with plates and cups": cups gets nmod:with from plates.
        let g = enhanced(
            "1 a DT 2 det
             2 table NN 0 root
             3 with IN 4 case
             4 plates NNS 2 nmod
             5 and CC 4 cc
             6 cups NNS 4 conj",
        );
        assert!(g.has_edge(2, 4, Rel::named("nmod:with")));
        assert!(g.has_edge(2, 6, Rel::named("nmod:with")));
        assert!(g.has_edge(4, 6, Rel::named("conj:and")));
    }

    #[test]
    fn verb_conjunct_gets_the_subject_but_adjective_does_not() {
        // "a man is standing and holding a bat": holding (VBG) shares the subject; the auxiliary is
        // not copied.
        let g = enhanced(
            "1 a DT 2 det
             2 man NN 4 nsubj
             3 is VBZ 4 aux
             4 standing VBG 0 root
             5 and CC 4 cc
             6 holding VBG 4 conj
             7 a DT 8 det
             8 bat NN 6 dobj",
        );
        assert!(g.has_edge(6, 2, Rel::NSUBJ));
        assert!(!g.has_edge(6, 3, Rel::AUX));
        // "the man is tall and thin": thin is JJ, so treatCC gives it no subject.
        let g = enhanced(
            "1 the DT 2 det
             2 man NN 4 nsubj
             3 is VBZ 4 cop
             4 tall JJ 0 root
             5 and CC 4 cc
             6 thin JJ 4 conj",
        );
        assert!(g.has_edge(4, 6, Rel::named("conj:and")));
        assert!(!g.has_edge(6, 2, Rel::NSUBJ));
    }

    #[test]
    fn passive_subject_turns_active_on_an_active_verb() {
        // "a pizza is cut and serves four": the shared subject of an active VBZ is nsubj.
        let g = enhanced(
            "1 a DT 2 det
             2 pizza NN 4 nsubjpass
             3 is VBZ 4 auxpass
             4 cut VBN 0 root
             5 and CC 4 cc
             6 serves VBZ 4 conj
             7 four CD 6 dobj",
        );
        assert!(g.has_edge(6, 2, Rel::NSUBJ));
        assert!(!g.has_edge(6, 2, Rel::NSUBJPASS));
    }

    #[test]
    fn coordinating_word_names_the_conjunction() {
        // "a dog or a cat" -> conj:or; "salt & pepper" -> conj:and.
        let g = enhanced(
            "1 a DT 2 det
             2 dog NN 0 root
             3 or CC 2 cc
             4 a DT 5 det
             5 cat NN 2 conj",
        );
        assert!(g.has_edge(2, 5, Rel::named("conj:or")));
        let g = enhanced(
            "1 salt NN 0 root
             2 & CC 1 cc
             3 pepper NN 1 conj",
        );
        assert!(g.has_edge(1, 3, Rel::named("conj:and")));
    }

    #[test]
    fn each_conjunct_takes_the_last_coordinator_before_it() {
        // "cats or dogs and birds": dogs -> conj:or, birds -> conj:and.
        let g = enhanced(
            "1 cats NNS 0 root
             2 or CC 1 cc
             3 dogs NNS 1 conj
             4 and CC 1 cc
             5 birds NNS 1 conj",
        );
        assert!(g.has_edge(1, 3, Rel::named("conj:or")));
        assert!(g.has_edge(1, 5, Rel::named("conj:and")));
    }

    #[test]
    fn conjunct_without_coordinator_propagates_nothing() {
        // "a man sitting , reading": plain conj stays and reading gets no acl from man.
        let g = enhanced(
            "1 a DT 2 det
             2 man NN 0 root
             3 sitting VBG 2 acl
             4 , , 3 punct
             5 reading VBG 3 conj",
        );
        assert!(g.has_edge(3, 5, Rel::CONJ));
        assert!(!g.has_edge(2, 5, Rel::ACL));
    }

    #[test]
    fn conjoined_pps_keep_their_own_prepositions() {
        // "a cat on a bed and under a blanket": blanket is nmod:under of cat, not nmod:on.
        let g = enhanced(
            "1 a DT 2 det
             2 cat NN 0 root
             3 on IN 5 case
             4 a DT 5 det
             5 bed NN 2 nmod
             6 and CC 5 cc
             7 under IN 9 case
             8 a DT 9 det
             9 blanket NN 5 conj",
        );
        assert!(g.has_edge(2, 5, Rel::named("nmod:on")));
        assert!(g.has_edge(2, 9, Rel::named("nmod:under")));
        assert!(!g.has_edge(2, 9, Rel::named("nmod:on")));
    }

    fn named(g: &DepGraph) -> Vec<String> {
        g.named_edges()
            .into_iter()
            .map(|(r, gov, dep)| format!("{r}({gov}, {dep})"))
            .collect()
    }

    #[test]
    fn corenlp_copies_the_governor_of_a_second_pp() {
        // "a dog leaps off a rock and into the lake": CoreNLP hangs the second PP on a copy of
        // the verb, which has no particle and shares the subject.
        let mut g = basic(
            "1 a DT 2 det
             2 dog NN 3 nsubj
             3 leaps VBZ 0 root
             4 off RP 3 compound:prt
             5 from IN 7 case
             6 a DT 7 det
             7 rock NN 3 nmod
             8 and CC 7 cc
             9 into IN 11 case
             10 the DT 11 det
             11 lake NN 7 conj",
        );
        enhance_corenlp(&mut g, 0);
        let rels = named(&g);
        for want in [
            "conj:and(3, 3'1)",
            "nmod:into(3'1, 11)",
            "nmod:from(3, 7)",
            "nsubj(3'1, 2)",
            "cc(3, 8)",
            "compound:prt(3, 4)",
        ] {
            assert!(rels.contains(&want.to_string()), "{want} not in {rels:?}");
        }
        assert!(
            !rels.iter().any(|r| r.starts_with("conj:and(7")),
            "{rels:?}"
        );
        assert_eq!(g.words(), 11);
        assert_eq!(
            (g.len(), g.original(12), g.node_name(12)),
            (12, 3, "3'1".into())
        );
        // SPICE's rules read the copy as a verb of its own: "leaps into", not "leaps off into"
        // (the test rows' lemmas are their words).
        let tuples: Vec<_> = crate::rules::proposals(&g)
            .iter()
            .map(crate::fidelity::printed_proposal)
            .collect();
        assert!(tuples.contains(&vec!["dog".into(), "leaps into".into(), "lake".into()]));
        assert!(tuples.contains(&vec!["dog".into(), "leaps off from".into(), "rock".into()]));
        // Written as CoNLL-U, the copy is an empty node after its word.
        let conllu = g.to_conllu();
        assert!(conllu.contains("\n3.1\tleaps\t"), "{conllu}");
        assert!(conllu.contains("3.1:nmod:into"), "{conllu}");
    }

    #[test]
    fn corenlp_copies_the_governor_of_conjoined_prepositions() {
        // "photos before and after the storm": the noun's governor is copied for "after"; the
        // prepositions keep their coordination, and "after" is not a case marker of "storm".
        let mut g = basic(
            "1 photos NNS 0 root
             2 before IN 6 case
             3 and CC 2 cc
             4 after IN 2 conj
             5 the DT 6 det
             6 storm NN 1 nmod",
        );
        enhance_corenlp(&mut g, 0);
        let rels = named(&g);
        for want in [
            "conj:and(1, 1'1)",
            "nmod:after(1'1, 6)",
            "nmod:before(1, 6)",
            "conj:and(2, 4)",
            "cc(2, 3)",
        ] {
            assert!(rels.contains(&want.to_string()), "{want} not in {rels:?}");
        }
        assert!(!rels.contains(&"case(6, 4)".to_string()), "{rels:?}");
    }

    #[test]
    fn rules_take_the_case_marker_corenlps_hash_map_visits_first() {
        // A copular predicate with two case markers (8 and 19, as pronoun resolution leaves
        // them): CoreNLP visits bucket 19 & 15 = 3 before bucket 8.
        let mut g = DepGraph::new(
            (1..=19)
                .map(|i| match i {
                    2 => crate::Token::new("woman", "woman", "NN"),
                    7 => crate::Token::new("is", "be", "VBZ"),
                    8 => crate::Token::new("on", "on", "IN"),
                    10 => crate::Token::new("bench", "bench", "NN"),
                    19 => crate::Token::new("to", "to", "TO"),
                    _ => crate::Token::new("x", "x", "DT"),
                })
                .collect(),
        );
        g.roots.push(10);
        for (gov, dep, rel) in [(10, 2, Rel::NSUBJ), (10, 7, Rel::COP), (10, 8, Rel::CASE)] {
            g.add_edge(gov, dep, rel);
        }
        g.add_edge(10, 19, Rel::CASE);
        assert_eq!(g.first_child(10, Rel::CASE), Some(19));
        assert_eq!(g.child(10, Rel::CASE), Some(8));
        // In the caption's second sentence the hashes move: 29 + 8 = 37 -> 5, 29 + 19 = 48 -> 0.
        g.sentence = 1;
        assert_eq!(g.first_child(10, Rel::CASE), Some(19));
        g.sentence = 2;
        // 58 + 8 = 66 -> 2, 58 + 19 = 77 -> 13.
        assert_eq!(g.first_child(10, Rel::CASE), Some(8));
    }

    #[test]
    fn degenerate_graphs_do_not_panic() {
        let mut g = DepGraph::default();
        enhance(&mut g);
        assert!(g.edges().is_empty());
        // A lone preposition phrase fragment with the words but no tree.
        let mut g = basic("1 next JJ 0 root\n2 to TO 1 dep");
        g.roots.clear();
        enhance(&mut g);
        assert_eq!(g.edges().len(), 1);
    }
}
