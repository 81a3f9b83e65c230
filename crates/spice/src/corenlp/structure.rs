//! Basic Universal Dependencies from a tree, as CoreNLP 3.6.0's `GrammaticalStructure` builds
//! them for `UniversalEnglishGrammaticalStructure`.
//!
//! 1. The tree goes through the coordination transform ([`super::coordination`]); every node
//!    learns its head word from the semantic head finder ([`super::headfinder`]).
//! 2. From the root down (preorder), at every phrasal node, each relation in CoreNLP's order
//!    ([`super::relations::in_try_order`]) whose governor labels fit the node offers its
//!    targets. Arcs join the highest nodes with the governor's and the target's head words.
//!    An arc is kept only if the dependent has no governor yet (or has this one) and the
//!    governor cannot already be reached from the dependent: the first relation to reach a
//!    dependent wins, more relations between the same pair are gathered.
//! 3. Constituents no arc reaches (not connected to the root at all) hang on their parent's
//!    head as `dep`.
//! 4. Each governor–dependent pair takes the most specific of its relations, walked in name
//!    order (`GrammaticalStructure.getGrammaticalRelationCommonAncestor`); the root word hangs
//!    on `ROOT-0`.
//! 5. The clean-ups of `UniversalEnglishGrammaticalStructure`: `prep` and `rel` arcs resolved
//!    (`convertRel`), a WH object moved into the clause that has it (`correctWHAttachment`),
//!    subjects of passives marked (`correctSubjPass`), duplicates dropped.
//!
//! Punctuation is kept, as the parse annotator keeps it (`parse.keepPunct` is on).

use std::collections::HashMap;

use super::headfinder::SemanticHeadFinder;
use super::relations::{self, Relation};
use super::tree::Tree;
use super::tregex::{related_nodes, NodeId, TreeView};

/// A typed dependency: relation, governor and dependent as word indices (1-based; 0 is ROOT).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dependency {
    pub rel: String,
    pub gov: usize,
    pub dep: usize,
}

/// The words of a sentence with their tags, as the dependencies refer to them (1-based).
#[derive(Debug, Clone)]
pub struct Word {
    pub word: String,
    pub tag: String,
}

/// The basic dependencies of `tree` (a parse tree as the parser returns it), with its words.
pub fn basic_dependencies(tree: &Tree, hf: &SemanticHeadFinder) -> (Vec<Word>, Vec<Dependency>) {
    let tree = super::coordination::transform(tree);
    let view = TreeView::new(&tree);
    let heads = Heads::new(&view, hf);
    let mut graph = Graph::default();
    analyze(&view, hf, &heads, &mut graph);
    attach_stranded(&view, &heads, &mut graph);
    let words = heads.words(&view);
    let mut deps = graph.dependencies(&heads);
    let root_word = heads.word_of[heads.head[view.root()]];
    deps.push(Dependency {
        rel: "root".into(),
        gov: 0,
        dep: root_word,
    });
    correct_wh_attachment(&words, &mut deps);
    convert_rel(&mut deps);
    correct_subj_pass(&mut deps);
    deps.sort_by(|a, b| (a.dep, a.gov, &a.rel).cmp(&(b.dep, b.gov, &b.rel)));
    deps.dedup();
    (words, deps)
}

/// Head words: `head[n]` is the leaf heading node `n`; `high[n]` the highest node above `n`
/// with the same head (`highestNodeWithSameHead`).
struct Heads {
    head: Vec<NodeId>,
    high: Vec<NodeId>,
    word_of: Vec<usize>,
}

impl Heads {
    fn new(view: &TreeView<'_>, hf: &SemanticHeadFinder) -> Heads {
        let n = view.len();
        let mut word_of = vec![0usize; n];
        let mut words = 0;
        for (id, w) in word_of.iter_mut().enumerate() {
            if view.is_leaf(id) {
                words += 1;
                *w = words;
            }
        }
        let mut head = vec![0usize; n];
        for id in (0..n).rev() {
            head[id] = if view.is_leaf(id) {
                id
            } else {
                let h = hf
                    .head_with_parent(view, id, view.parent(id))
                    .unwrap_or(view.children(id)[0]);
                head[h]
            };
        }
        let mut high: Vec<NodeId> = (0..n).collect();
        // Preorder: a parent's highest node is known before its children's.
        for id in 0..n {
            if let Some(p) = view.parent(id) {
                if head[p] == head[id] {
                    high[id] = high[p];
                }
            }
        }
        Heads {
            head,
            high,
            word_of,
        }
    }

    fn words(&self, view: &TreeView<'_>) -> Vec<Word> {
        (0..view.len())
            .filter(|&id| view.is_leaf(id))
            .map(|id| Word {
                word: view.label(id).to_string(),
                tag: view
                    .parent(id)
                    .map(|p| view.label(p).to_string())
                    .unwrap_or_default(),
            })
            .collect()
    }
}

/// `DirectedMultiGraph` of constituents: the relations found between each pair.
#[derive(Default)]
struct Graph {
    /// Pairs in the order first added, with their relations.
    arcs: Vec<(NodeId, NodeId, Vec<&'static str>)>,
    index: HashMap<(NodeId, NodeId), usize>,
    children: HashMap<NodeId, Vec<NodeId>>,
    parents: HashMap<NodeId, Vec<NodeId>>,
}

impl Graph {
    fn add(&mut self, gov: NodeId, dep: NodeId, rel: &'static str) {
        match self.index.get(&(gov, dep)) {
            Some(&i) => self.arcs[i].2.push(rel),
            None => {
                self.index.insert((gov, dep), self.arcs.len());
                self.arcs.push((gov, dep, vec![rel]));
                self.children.entry(gov).or_default().push(dep);
                self.parents.entry(dep).or_default().push(gov);
                self.children.entry(dep).or_default();
                self.parents.entry(gov).or_default();
            }
        }
    }

    fn has_vertex(&self, n: NodeId) -> bool {
        self.children.contains_key(&n)
    }

    /// Is there a path from `from` to `to` (along arcs, or either way)?
    fn reaches(&self, from: NodeId, to: NodeId, directed: bool) -> bool {
        if !self.has_vertex(from) || !self.has_vertex(to) {
            return false;
        }
        if from == to {
            return true;
        }
        let mut seen = vec![from];
        let mut stack = vec![from];
        while let Some(u) = stack.pop() {
            let next = self.children[&u].iter().chain(if directed {
                [].iter()
            } else {
                self.parents[&u].iter()
            });
            for &v in next {
                if v == to {
                    return true;
                }
                if !seen.contains(&v) {
                    seen.push(v);
                    stack.push(v);
                }
            }
        }
        false
    }

    fn dependencies(&self, heads: &Heads) -> Vec<Dependency> {
        self.arcs
            .iter()
            .map(|(gov, dep, rels)| Dependency {
                rel: most_specific(rels).to_string(),
                gov: heads.word_of[heads.head[*gov]],
                dep: heads.word_of[heads.head[*dep]],
            })
            .collect()
    }
}

/// The relations of one pair in name order, each replacing the one chosen so far when it lies
/// below it in the hierarchy, starting from `dep`.
fn most_specific(rels: &[&'static str]) -> &'static str {
    let mut sorted = rels.to_vec();
    sorted.sort_unstable();
    let mut chosen = "dep";
    for r in sorted {
        if relations::is_ancestor(chosen, r) {
            chosen = r;
        }
    }
    chosen
}

fn is_phrasal(view: &TreeView<'_>, n: NodeId) -> bool {
    let kids = view.children(n);
    !(kids.is_empty() || (kids.len() == 1 && view.is_leaf(kids[0])))
}

/// `analyzeNode`, from the root down.
fn analyze(view: &TreeView<'_>, hf: &SemanticHeadFinder, heads: &Heads, graph: &mut Graph) {
    let all: &[Relation] = relations::in_try_order();
    for t in 0..view.len() {
        // Preorder ids: a node's phrasal ancestors are analysed before it. CoreNLP does not
        // descend below a node that is not phrasal, and nothing phrasal lies below one.
        if !is_phrasal(view, t) {
            continue;
        }
        let t_high = heads.high[t];
        for r in all {
            if !r.applies_to(view.label(t)) {
                continue;
            }
            for u in related_nodes(&r.targets, view, hf, t, "target") {
                let u_high = heads.high[u];
                if u_high == t_high {
                    continue;
                }
                let parents = graph.parents.get(&u_high);
                let free = parents.is_none_or(|p| p.is_empty() || p.contains(&t_high));
                if free && !graph.reaches(u_high, t_high, true) {
                    graph.add(t_high, u_high, r.name);
                }
            }
        }
    }
}

/// `attachStrandedNodes`: every constituent heading something its parent does not, and not
/// connected to the root, hangs on its parent's highest node as `dep`.
fn attach_stranded(view: &TreeView<'_>, heads: &Heads, graph: &mut Graph) {
    let root = view.root();
    for t in 0..view.len() {
        if view.is_leaf(t) {
            continue;
        }
        let Some(p) = view.parent(t) else { continue };
        if heads.head[t] == heads.head[p] {
            continue;
        }
        let parent = heads.high[p];
        if !graph.index.contains_key(&(parent, t)) && !graph.reaches(root, t, false) {
            graph.add(parent, t, "dep");
        }
    }
}

/// `correctWHAttachment`: a WH word hanging on a control verb as `dep` or `dobj`, when the verb
/// has an object already or cannot take one (NP V S-INF verbs), becomes the `dobj` of the
/// verb's `xcomp`.
fn correct_wh_attachment(words: &[Word], deps: &mut [Dependency]) {
    let governors: Vec<usize> = deps
        .iter()
        .filter(|d| d.rel == "xcomp")
        .map(|d| d.gov)
        .collect();
    for root in governors {
        let Some(embedded) = deps
            .iter()
            .find(|d| d.gov == root && d.rel == "xcomp")
            .map(|d| d.dep)
        else {
            continue;
        };
        let Some(wi) = deps
            .iter()
            .position(|d| d.gov == root && (d.rel == "dep" || d.rel == "dobj"))
        else {
            continue;
        };
        let wh = deps[wi].dep;
        if !words[wh - 1].tag.starts_with('W') {
            continue;
        }
        let has_object = deps
            .iter()
            .any(|d| d.gov == root && (d.rel == "dobj" || d.rel == "iobj"));
        let lemma = crate::lemmatize::lemma(&words[root - 1].word, &words[root - 1].tag);
        let reattach = has_object
            || relations::words::NP_V_S_INF_VERBS
                .iter()
                .any(|v| v.eq_ignore_ascii_case(&lemma));
        if reattach {
            deps[wi] = Dependency {
                rel: "dobj".into(),
                gov: embedded,
                dep: wh,
            };
        }
    }
}

/// `convertRel`: a `prep` becomes the `case` of the governor's first `nmod` or `rel` dependent
/// that it follows (a `rel` so reached becoming `nmod`), else an `nmod` itself; any `rel` left
/// is a `dobj`.
fn convert_rel(deps: &mut [Dependency]) {
    let mut i = 0;
    while i < deps.len() {
        if deps[i].rel != "prep" {
            i += 1;
            continue;
        }
        let (gov, p) = (deps[i].gov, deps[i].dep);
        let host = deps
            .iter()
            .position(|d| d.gov == gov && (d.rel == "nmod" || d.rel == "rel") && p >= d.dep);
        match host {
            Some(h) => {
                let nmod = deps[h].dep;
                if deps[h].rel == "rel" {
                    deps[h].rel = "nmod".into();
                }
                deps[i] = Dependency {
                    rel: "case".into(),
                    gov: nmod,
                    dep: p,
                };
            }
            None => deps[i].rel = "nmod".into(),
        }
        i += 1;
    }
    for d in deps.iter_mut() {
        if d.rel == "rel" {
            d.rel = "dobj".into();
        }
    }
}

/// `correctSubjPass`: the subject of a verb with a passive auxiliary is a passive subject.
fn correct_subj_pass(deps: &mut [Dependency]) {
    let passive: Vec<usize> = deps
        .iter()
        .filter(|d| d.rel == "auxpass")
        .map(|d| d.gov)
        .collect();
    for d in deps.iter_mut() {
        if passive.contains(&d.gov) {
            if d.rel == "nsubj" {
                d.rel = "nsubjpass".into();
            } else if d.rel == "csubj" {
                d.rel = "csubjpass".into();
            }
        }
    }
}
