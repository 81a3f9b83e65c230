//! Dependency graphs: the hand-off between the front end (stages 1–5 of the crate-level list,
//! tokenize to the collapsed graph) and the semantic back end (clean-up, rules).
//!
//! In: nothing (this is the shared type). Out: a [`DepGraph`] per sentence whose nodes carry word,
//! lemma and Penn Treebank tag, and whose edges carry CoreNLP's Universal Dependencies labels
//! as a [`Rel`] (`nsubj`, `nmod:on`, `conj:and`, ...; SPEC §2). Token indices are 1-based, as in
//! CoreNLP and CoNLL-U; index 0 is never a token.
//!
//! The graph is a small multigraph kept as an edge list. Captions have about a dozen tokens, so a
//! linear scan beats any index, and an edge list keeps the rewrites of `enhance` and `cleanup`
//! simple. Every query that returns several nodes returns them sorted by token index, which is what
//! makes rule output deterministic.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::sync::{OnceLock, PoisonError, RwLock};

use crate::parse::{Label, LABELS};

/// One token of a sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The word as it appears in the (tokenized) text.
    pub word: String,
    /// Lemma as CoreNLP's Morphology gives it.
    pub lemma: String,
    /// Penn Treebank part-of-speech tag (`NN`, `VBG`, ...).
    pub tag: String,
}

impl Token {
    pub fn new(word: impl Into<String>, lemma: impl Into<String>, tag: impl Into<String>) -> Self {
        Token {
            word: word.into(),
            lemma: lemma.into(),
            tag: tag.into(),
        }
    }
}

/// The relation of an edge: one of the parser's [`LABELS`] (`nsubj`, `nmod:poss`; constants
/// `Rel::NSUBJ`, `Rel::NMOD_POSS`), or a label with a specific part after the colon that
/// `enhance` builds from words (`nmod:on`, `nmod:in_front_of`, `conj:and`), or any other name a
/// CoNLL-U file brings (`obl:on`, `pobj`), kept as it is.
///
/// `Copy`, and bounded in memory whatever the input: the parser's labels (and `nmod:agent`,
/// `det:qmod`) are `&'static str`s, and any other name of up to [`INLINE_CAPACITY`] bytes is
/// held in the `Rel` itself. The specific part of a collapsed name is a word of the caption (the
/// `case` or `cc` word), so a process that reads untrusted text (the server) must not keep one
/// allocation per distinct name: the longest name of 78,000 real captions is 16 bytes
/// (`nmod:in_front_of`). Longer names, which only absurd input gives, are interned, at most
/// [`MAX_INTERNED`] of them and each of at most [`MAX_INTERNED_LEN`] bytes (about 1 MB in all);
/// beyond that, a name is cut at a char boundary to its first [`INLINE_CAPACITY`] bytes.
///
/// The label before the first colon is kept alongside, so that the family tests ([`Rel::is`])
/// compare one byte. It displays, orders, compares and hashes as its name.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Rel {
    /// The label before the first colon (`nmod` for `nmod`, `nmod:poss` and `nmod:on`), if it is
    /// one of [`LABELS`]; a function of `name`.
    base: Option<Label>,
    name: Name,
}

/// How many bytes of a name a [`Rel`] holds itself: as many as keep a `Rel` to 32 bytes, six
/// more than the longest name real captions give.
pub const INLINE_CAPACITY: usize = 22;
/// How many names longer than [`INLINE_CAPACITY`] are interned, once each, for the life of the
/// process.
pub const MAX_INTERNED: usize = 4096;
/// The longest name that is interned; a longer one is cut to [`INLINE_CAPACITY`] bytes.
pub const MAX_INTERNED_LEN: usize = 255;

/// A relation's name. Each name has one form only, so that the derived equality is the names':
/// `Static` for the parser's labels, `nmod:agent`, `det:qmod` and the interned long names,
/// `Inline` for every other name (of at most [`INLINE_CAPACITY`] bytes).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Name {
    Static(&'static str),
    /// The name's UTF-8 bytes, zero after `len`.
    Inline {
        len: u8,
        bytes: [u8; INLINE_CAPACITY],
    },
}

const _: () = assert!(std::mem::size_of::<Rel>() <= 32);

impl Rel {
    /// `nmod:agent`: the "by" phrase of a passive verb.
    pub const NMOD_AGENT: Rel = Rel {
        base: Some(Label::NMOD),
        name: Name::Static("nmod:agent"),
    };
    /// `det:qmod`: a demoted quantifier expression ("a lot of").
    pub const DET_QMOD: Rel = Rel {
        base: Some(Label::DET),
        name: Name::Static("det:qmod"),
    };

    /// The relation of a parser label.
    pub const fn label(label: Label) -> Rel {
        Rel {
            base: Some(base_label(label)),
            name: Name::Static(LABELS[label.index()]),
        }
    }

    /// The relation called `name`. Never fails: a name outside [`LABELS`] is kept as it is (but
    /// see [`Rel`] for the bound on long names).
    pub fn named(name: &str) -> Rel {
        if let Some(label) = Label::from_name(name) {
            return Rel::label(label);
        }
        for known in [Rel::NMOD_AGENT, Rel::DET_QMOD] {
            if known.as_str() == name {
                return known;
            }
        }
        let Some(stored) = Name::inline(name).or_else(|| intern(name).map(Name::Static)) else {
            // Long, and no room left to intern it: the documented fallback, which allocates nothing.
            return Rel::named(truncate(name, INLINE_CAPACITY));
        };
        Rel {
            base: Label::from_name(name.split(':').next().unwrap_or(name)),
            name: stored,
        }
    }

    /// `base:specific`, as `enhance` names collapsed relations (`nmod` + "in_front_of",
    /// `conj` + "and"). The same relation as [`Rel::named`] of that string, so `nmod` + "poss"
    /// is [`Rel::NMOD_POSS`].
    pub fn with_specific(base: Label, specific: &str) -> Rel {
        Rel::named(&format!("{base}:{specific}"))
    }

    /// The label before the first colon, if it is one of [`LABELS`]: `nmod` for `nmod`,
    /// `nmod:poss` and `nmod:on`; `None` for `obl:on`.
    pub fn base(self) -> Option<Label> {
        self.base
    }

    /// Is this `label` or one of its subtypes (`label:...`)? `Rel::NMOD_POSS.is(Label::NMOD)`
    /// holds, as does `nmod:on`'s; `nsubjpass` is not `nsubj`.
    pub fn is(self, label: Label) -> bool {
        self.base == Some(label)
    }

    /// Is this a subtype `label:...` of `label` (for `nmod`: `nmod:on`, `nmod:poss`), not `label`
    /// itself?
    pub fn is_subtype_of(self, label: Label) -> bool {
        self.is(label) && self != Rel::label(label)
    }

    /// The part after the first colon: `on` for `nmod:on`, `in_front_of`, `poss` for `nmod:poss`,
    /// `and` for `conj:and`; `None` for a name without colon.
    pub fn specific(&self) -> Option<&str> {
        self.as_str().split_once(':').map(|(_, s)| s)
    }

    /// The name, exactly as CoreNLP writes it (the text of the SPICE relations comes from it).
    pub fn as_str(&self) -> &str {
        match &self.name {
            Name::Static(name) => name,
            // Always valid: `Name::inline` copies a whole `&str`.
            Name::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default()
            }
        }
    }
}

impl Name {
    /// `name` held inline, if it fits.
    fn inline(name: &str) -> Option<Name> {
        let len = u8::try_from(name.len())
            .ok()
            .filter(|&len| usize::from(len) <= INLINE_CAPACITY)?;
        let mut bytes = [0; INLINE_CAPACITY];
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        Some(Name::Inline { len, bytes })
    }
}

impl From<Label> for Rel {
    fn from(label: Label) -> Rel {
        Rel::label(label)
    }
}

impl std::fmt::Display for Rel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for Rel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// As the label and the name hash, whichever form the name has (consistent with the derived
/// equality, since each name has one form).
impl std::hash::Hash for Rel {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.base.hash(state);
        self.as_str().hash(state);
    }
}

/// By name, as the strings compare: graph queries sort edges by it.
impl Ord for Rel {
    fn cmp(&self, other: &Rel) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for Rel {
    fn partial_cmp(&self, other: &Rel) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// The label before the colon of `label` (`nmod` for `nmod:poss`), `label` itself without colon.
const fn base_label(label: Label) -> Label {
    let name = LABELS[label.index()].as_bytes();
    let mut n = 0;
    while n < name.len() && name[n] != b':' {
        n += 1;
    }
    let mut j = 0;
    while j < LABELS.len() {
        let candidate = LABELS[j].as_bytes();
        if candidate.len() == n {
            let mut k = 0;
            while k < n && candidate[k] == name[k] {
                k += 1;
            }
            if k == n {
                return Label::from_index(j);
            }
        }
        j += 1;
    }
    label
}

/// Names longer than [`INLINE_CAPACITY`], each leaked once and kept: at most [`MAX_INTERNED`]
/// of them, each of at most [`MAX_INTERNED_LEN`] bytes.
static INTERNED: OnceLock<RwLock<HashSet<&'static str>>> = OnceLock::new();

/// `name` as a `&'static str`, if it is interned already or there is room to intern it; `None`
/// when it is too long or the interner is full.
fn intern(name: &str) -> Option<&'static str> {
    if name.len() > MAX_INTERNED_LEN {
        return None;
    }
    let names = INTERNED.get_or_init(|| RwLock::new(HashSet::new()));
    if let Some(&known) = names
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(name)
    {
        return Some(known);
    }
    let mut names = names.write().unwrap_or_else(PoisonError::into_inner);
    if let Some(&known) = names.get(name) {
        return Some(known);
    }
    if names.len() >= MAX_INTERNED {
        return None;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(leaked);
    Some(leaked)
}

/// How many names are interned (never more than [`MAX_INTERNED`]).
#[cfg(test)]
fn interned_names() -> usize {
    INTERNED.get().map_or(0, |names| {
        names.read().unwrap_or_else(PoisonError::into_inner).len()
    })
}

/// The longest prefix of `name` of at most `max` bytes that ends at a char boundary.
fn truncate(name: &str, max: usize) -> &str {
    let mut end = max.min(name.len());
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    &name[..end]
}

/// A labelled dependency `gov -rel-> dep`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Edge {
    pub gov: usize,
    pub dep: usize,
    pub rel: Rel,
}

/// A sentence's dependency graph. Not necessarily a tree: CC-processing adds extra governors.
///
/// The edges are read through [`DepGraph::edges`] and changed through [`DepGraph::edges_mut`] or
/// the methods that add and remove them: queries by node ([`DepGraph::children`],
/// [`DepGraph::outgoing`]...) look the node up in an index of each node's edges, built on the
/// first query and dropped by any change, so that a pass over every node stays linear in a long
/// sentence (the unparsed analysis of a 50,000-word sentence hangs every word on the last one).
#[derive(Clone, Debug, Default)]
pub struct DepGraph {
    /// Tokens; token `i` (1-based) is `tokens[i - 1]`.
    pub tokens: Vec<Token>,
    edges: Vec<Edge>,
    /// Root nodes (usually one).
    pub roots: Vec<usize>,
    /// CoreNLP's copy nodes, which its collapsing makes for conjoined prepositional phrases ("a
    /// man jumps off a dock and into the water" hangs "water" on a copy "jumps'1" of the verb).
    /// They follow the sentence's words: node `words() + 1 + k` is `copies[k]`, whose token is a
    /// clone of its original's. Empty for graphs of the built-in parser.
    pub copies: Vec<Copy>,
    /// The sentence's place in its caption, from 0. CoreNLP's graphs keep a word's dependents in
    /// a Java `HashMap` keyed by words hashed as `29 * sentence + index`: see
    /// [`DepGraph::first_child`].
    pub sentence: usize,
    index: OnceLock<Index>,
}

/// Graphs with this many edges or more are queried through an [`Index`].
const INDEXED_FROM: usize = 64;

/// Positions in [`DepGraph::edges`] of each node's outgoing and incoming edges, in edge order.
#[derive(Clone, Debug, Default)]
struct Index {
    out: Vec<Vec<u32>>,
    inc: Vec<Vec<u32>>,
}

impl Index {
    fn of(edges: &[Edge]) -> Index {
        let nodes = 1 + edges.iter().map(|e| e.gov.max(e.dep)).max().unwrap_or(0);
        let mut ix = Index {
            out: vec![Vec::new(); nodes],
            inc: vec![Vec::new(); nodes],
        };
        for (k, e) in edges.iter().enumerate() {
            ix.out[e.gov].push(k as u32);
            ix.inc[e.dep].push(k as u32);
        }
        ix
    }
}

impl PartialEq for DepGraph {
    fn eq(&self, other: &DepGraph) -> bool {
        self.tokens == other.tokens
            && self.edges == other.edges
            && self.roots == other.roots
            && self.copies == other.copies
            && self.sentence == other.sentence
    }
}

impl Eq for DepGraph {}

/// A copy node: the word it copies and its number among that word's copies (from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Copy {
    pub of: usize,
    pub count: u32,
}

/// Is this Penn tag a noun tag as SPICE's patterns mean it (`/NNP?S?/`)?
pub fn is_noun_tag(tag: &str) -> bool {
    matches!(tag, "NN" | "NNS" | "NNP" | "NNPS")
}

/// Is this Penn tag a plural noun tag (`/NNP?S/`)?
pub fn is_plural_noun_tag(tag: &str) -> bool {
    matches!(tag, "NNS" | "NNPS")
}

impl DepGraph {
    pub fn new(tokens: Vec<Token>) -> Self {
        DepGraph {
            tokens,
            edges: Vec::new(),
            roots: Vec::new(),
            copies: Vec::new(),
            sentence: 0,
            index: OnceLock::new(),
        }
    }

    /// The edges, in the order they were added.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The edges, to change in place (the index of each node's edges is rebuilt on the next
    /// query).
    pub fn edges_mut(&mut self) -> &mut Vec<Edge> {
        self.index.take();
        &mut self.edges
    }

    /// The index of each node's edges, for graphs of [`INDEXED_FROM`] edges or more (a caption's
    /// graph is scanned: quicker than building an index after every change).
    fn index(&self) -> Option<&Index> {
        (self.edges.len() >= INDEXED_FROM)
            .then(|| self.index.get_or_init(|| Index::of(&self.edges)))
    }

    /// The edges out of `gov`, in edge order.
    fn edges_from(&self, gov: usize) -> impl Iterator<Item = &Edge> {
        self.edges_by(gov, |ix| &ix.out, |e| e.gov)
    }

    /// The edges into `dep`, in edge order.
    fn edges_to(&self, dep: usize) -> impl Iterator<Item = &Edge> {
        self.edges_by(dep, |ix| &ix.inc, |e| e.dep)
    }

    /// The edges whose `end` is `node`: looked up in the index's `lists`, or scanned for.
    fn edges_by(
        &self,
        node: usize,
        lists: impl Fn(&Index) -> &Vec<Vec<u32>>,
        end: impl Fn(&Edge) -> usize,
    ) -> impl Iterator<Item = &Edge> {
        let (scan, listed) = match self.index() {
            Some(ix) => (&[][..], lists(ix).get(node).map_or(&[][..], Vec::as_slice)),
            None => (&self.edges[..], &[][..]),
        };
        scan.iter()
            .filter(move |e| end(e) == node)
            .chain(listed.iter().map(|&k| &self.edges[k as usize]))
    }

    /// Number of nodes: the sentence's words, then its copy nodes.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Number of the sentence's words (nodes without the copies).
    pub fn words(&self) -> usize {
        self.tokens.len() - self.copies.len()
    }

    /// Adds a copy of word `of` (CoreNLP's `makeSoftCopy`: numbered after the word's earlier
    /// copies) and returns its node.
    pub fn add_copy(&mut self, of: usize) -> usize {
        let of = self.original(of);
        let count = 1 + self.copies.iter().filter(|c| c.of == of).count() as u32;
        self.tokens.push(self.token(of).clone());
        self.copies.push(Copy { of, count });
        self.index.take();
        self.tokens.len()
    }

    /// The word node `i` stands for: `i` itself, or the word it copies.
    pub fn original(&self, i: usize) -> usize {
        match i.checked_sub(self.words() + 1) {
            Some(k) => self.copies[k].of,
            None => i,
        }
    }

    /// CoreNLP's order of nodes: by the word's place in the sentence, a copy after its word.
    pub fn order_key(&self, i: usize) -> (usize, u32) {
        match i.checked_sub(self.words() + 1) {
            Some(k) => (self.copies[k].of, self.copies[k].count),
            None => (i, 0),
        }
    }

    /// Every node in CoreNLP's order ([`DepGraph::order_key`]): a copy right after its word.
    pub fn nodes_in_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = self.nodes().collect();
        order.sort_by_key(|&i| self.order_key(i));
        order
    }

    /// The node as CoreNLP prints it: its index, with `'n` for the n-th copy ("3'1").
    pub fn node_name(&self, i: usize) -> String {
        match self.order_key(i) {
            (at, 0) => at.to_string(),
            (at, n) => format!("{at}'{n}"),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Token indices, 1-based, in order.
    pub fn nodes(&self) -> impl Iterator<Item = usize> {
        1..=self.tokens.len()
    }

    /// The token at 1-based index `i`.
    ///
    /// # Panics
    /// If `i` is 0 or past the end: indices come from the graph itself, never from users.
    pub fn token(&self, i: usize) -> &Token {
        &self.tokens[i - 1]
    }

    pub fn tag(&self, i: usize) -> &str {
        &self.token(i).tag
    }

    pub fn word(&self, i: usize) -> &str {
        &self.token(i).word
    }

    /// The lemma as SPICE uses it in tuples: trimmed and lowercased.
    pub fn lemma(&self, i: usize) -> String {
        self.token(i).lemma.trim().to_lowercase()
    }

    pub fn is_noun(&self, i: usize) -> bool {
        is_noun_tag(self.tag(i))
    }

    pub fn is_plural_noun(&self, i: usize) -> bool {
        is_plural_noun_tag(self.tag(i))
    }

    pub fn is_root(&self, i: usize) -> bool {
        self.roots.contains(&i)
    }

    /// Adds `gov -rel-> dep` unless that exact edge exists. Returns whether it was added.
    pub fn add_edge(&mut self, gov: usize, dep: usize, rel: Rel) -> bool {
        if self.has_edge(gov, dep, rel) {
            return false;
        }
        let k = self.edges.len() as u32;
        self.edges.push(Edge { gov, dep, rel });
        if let Some(ix) = self.index.get_mut() {
            if gov < ix.out.len() && dep < ix.inc.len() {
                ix.out[gov].push(k);
                ix.inc[dep].push(k);
            } else {
                self.index.take();
            }
        }
        true
    }

    pub fn has_edge(&self, gov: usize, dep: usize, rel: Rel) -> bool {
        let is = |e: &Edge| e.gov == gov && e.dep == dep && e.rel == rel;
        let Some(ix) = self.index() else {
            return self.edges.iter().any(is);
        };
        let (Some(out), Some(inc)) = (ix.out.get(gov), ix.inc.get(dep)) else {
            return false;
        };
        // The shorter list: a word hung on a head with thousands of dependents has one governor.
        let positions = if out.len() <= inc.len() { out } else { inc };
        positions.iter().any(|&k| is(&self.edges[k as usize]))
    }

    /// Removes every edge `gov -> dep` (any label).
    pub fn remove_edges_between(&mut self, gov: usize, dep: usize) {
        if self.edges_from(gov).any(|e| e.dep == dep) {
            self.edges_mut().retain(|e| !(e.gov == gov && e.dep == dep));
        }
    }

    /// Removes the edge `gov -rel-> dep` if present.
    pub fn remove_edge(&mut self, gov: usize, dep: usize, rel: Rel) {
        if self.has_edge(gov, dep, rel) {
            self.edges_mut()
                .retain(|e| !(e.gov == gov && e.dep == dep && e.rel == rel));
        }
    }

    /// Outgoing edges of `gov`, sorted by dependent index (then label).
    pub fn outgoing(&self, gov: usize) -> Vec<&Edge> {
        let mut out: Vec<&Edge> = self.edges_from(gov).collect();
        out.sort_by_key(|e| (self.order_key(e.dep), e.rel));
        out
    }

    /// Incoming edges of `dep`, sorted by governor index (then label).
    pub fn incoming(&self, dep: usize) -> Vec<&Edge> {
        let mut inc: Vec<&Edge> = self.edges_to(dep).collect();
        inc.sort_by_key(|e| (self.order_key(e.gov), e.rel));
        inc
    }

    /// Children of `gov` through edges labelled exactly `rel`, in token order.
    pub fn children(&self, gov: usize, rel: Rel) -> Vec<usize> {
        let mut c: Vec<usize> = self
            .edges_from(gov)
            .filter(|e| e.rel == rel)
            .map(|e| e.dep)
            .collect();
        c.sort_unstable_by_key(|&n| self.order_key(n));
        c.dedup();
        c
    }

    /// Children of `gov` through edges whose label satisfies `pred`, with the label, in token order.
    pub fn children_where(&self, gov: usize, pred: impl Fn(Rel) -> bool) -> Vec<(usize, Rel)> {
        self.outgoing(gov)
            .into_iter()
            .filter(|e| pred(e.rel))
            .map(|e| (e.dep, e.rel))
            .collect()
    }

    /// The first child (in token order) through `rel`.
    pub fn child(&self, gov: usize, rel: Rel) -> Option<usize> {
        self.children(gov, rel).into_iter().next()
    }

    /// The child through `rel` CoreNLP's `getChildWithReln` returns: the first in the order its
    /// graph visits a word's dependents, a Java `HashMap` keyed by the words, whose hash is
    /// `29 * sentence + index` (a copy hashes as its word): by that hash modulo the map's 16
    /// buckets (32 past 12 dependents, 64 past 24...), then in the order they were added, which
    /// for these graphs is the word order. "A woman ... is on the bench and a man ... is talking
    /// to her": "her" resolves to "bench", which then has the case markers "on" (8) and "to"
    /// (19); bucket 3 comes before bucket 8, so "to" it is.
    pub fn first_child(&self, gov: usize, rel: Rel) -> Option<usize> {
        let mut kids: Vec<usize> = self.outgoing(gov).iter().map(|e| e.dep).collect();
        kids.dedup();
        let mut buckets = 16;
        while kids.len() * 4 > buckets * 3 {
            buckets *= 2;
        }
        self.children(gov, rel).into_iter().min_by_key(|&n| {
            let (at, copy) = self.order_key(n);
            ((29 * self.sentence + at) & (buckets - 1), at, copy)
        })
    }

    pub fn has_child(&self, gov: usize, rel: Rel) -> bool {
        self.edges_from(gov).any(|e| e.rel == rel)
    }

    /// Governors of `dep` through `rel`, in token order.
    pub fn parents(&self, dep: usize, rel: Rel) -> Vec<usize> {
        let mut p: Vec<usize> = self
            .edges_to(dep)
            .filter(|e| e.rel == rel)
            .map(|e| e.gov)
            .collect();
        p.sort_unstable_by_key(|&n| self.order_key(n));
        p.dedup();
        p
    }

    /// The first governor in CoreNLP's order of nodes, whatever the label.
    pub fn parent(&self, dep: usize) -> Option<usize> {
        self.edges_to(dep)
            .map(|e| e.gov)
            .min_by_key(|&n| self.order_key(n))
    }

    /// Every edge as CoreNLP prints it, sorted: (relation, governor, dependent), nodes named as
    /// [`DepGraph::node_name`] ("3'1" for a copy), each root as `root` under "0".
    pub fn named_edges(&self) -> Vec<(String, String, String)> {
        let mut out: Vec<(String, String, String)> = self
            .edges()
            .iter()
            .map(|e| {
                (
                    e.rel.as_str().to_string(),
                    self.node_name(e.gov),
                    self.node_name(e.dep),
                )
            })
            .chain(
                self.roots
                    .iter()
                    .map(|&r| ("root".to_string(), "0".to_string(), self.node_name(r))),
            )
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Writes the graph as CoNLL-U with the enhanced relations in DEPS (the format `spice tuples
    /// --conllu` reads). HEAD/DEPREL hold the first incoming edge, or 0/root.
    pub fn to_conllu(&self) -> String {
        let mut s = String::new();
        for i in self.nodes_in_order() {
            let t = self.token(i);
            let copy = self.order_key(i).1 > 0;
            let mut inc: Vec<(usize, Rel)> =
                self.incoming(i).iter().map(|e| (e.gov, e.rel)).collect();
            if self.is_root(i) {
                inc.insert(0, (0, Rel::ROOT));
            }
            // A copy is an empty node ("3.1"): no basic head; and no basic head is a copy.
            let (head, deprel) = inc
                .iter()
                .find(|&&(g, _)| !copy && (g == 0 || self.order_key(g).1 == 0))
                .map(|&(g, r)| (g.to_string(), r.to_string()))
                .unwrap_or(("_".into(), "_".into()));
            let deps = if inc.is_empty() {
                "_".to_string()
            } else {
                inc.iter()
                    .map(|&(g, r)| match g {
                        0 => format!("0:{r}"),
                        _ => format!("{}:{r}", self.conllu_id(g)),
                    })
                    .collect::<Vec<_>>()
                    .join("|")
            };
            let _ = writeln!(
                s,
                "{}\t{}\t{}\t_\t{}\t_\t{head}\t{deprel}\t{deps}\t_",
                self.conllu_id(i),
                field(&t.word),
                field(&t.lemma),
                field(&t.tag)
            );
        }
        s.push('\n');
        s
    }

    /// The node's CoNLL-U ID: its index, or for a copy an empty node's "3.1".
    fn conllu_id(&self, i: usize) -> String {
        match self.order_key(i) {
            (at, 0) => at.to_string(),
            (at, n) => format!("{at}.{n}"),
        }
    }

    /// One line per edge, `rel(gov-word-i, dep-word-j)`, as CoreNLP prints a SemanticGraph.
    pub fn to_relations_string(&self) -> String {
        let mut lines = Vec::new();
        for &r in &self.roots {
            let name = self.node_name(r);
            lines.push((
                (0, 0),
                self.order_key(r),
                format!("root(ROOT-0, {}-{name})", self.word(r)),
            ));
        }
        for e in &self.edges {
            lines.push((
                self.order_key(e.gov),
                self.order_key(e.dep),
                format!(
                    "{}({}-{}, {}-{})",
                    e.rel,
                    self.word(e.gov),
                    self.node_name(e.gov),
                    self.word(e.dep),
                    self.node_name(e.dep)
                ),
            ));
        }
        lines.sort_by(|a, b| {
            a.1.cmp(&b.1)
                .then(a.0.cmp(&b.0))
                .then_with(|| a.2.cmp(&b.2))
        });
        lines
            .into_iter()
            .map(|l| l.2)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// A CoNLL-U line that cannot be read: which line, which field, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("CoNLL-U line {line}, field {field}: {problem}")]
pub struct ConlluError {
    pub line: usize,
    pub field: &'static str,
    pub problem: String,
}

impl DepGraph {
    /// Reads CoNLL-U: one graph per sentence (sentences end at a blank line). Edges come from the
    /// DEPS column (`HEAD:DEPREL|HEAD:DEPREL`, the enhanced relations) when it is not `_`, else from
    /// HEAD and DEPREL. Multi-word token ranges (`1-2`) and empty nodes (`1.1`) are skipped; a head
    /// of 0 makes the token a root.
    pub fn from_conllu_str(text: &str) -> Result<Vec<DepGraph>, ConlluError> {
        let mut graphs = Vec::new();
        let mut rows: Vec<(usize, Vec<&str>)> = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.trim_end_matches('\r');
            if line.trim().is_empty() {
                if !rows.is_empty() {
                    graphs.push(Self::from_conllu_rows(&std::mem::take(&mut rows))?);
                }
                continue;
            }
            if line.starts_with('#') {
                continue;
            }
            let cols: Vec<&str> = line.split('\t').collect();
            if cols.len() != 10 {
                return Err(ConlluError {
                    line: n + 1,
                    field: "line",
                    problem: format!("expected 10 tab-separated columns, found {}", cols.len()),
                });
            }
            if cols[0].contains('-') || cols[0].contains('.') {
                continue;
            }
            rows.push((n + 1, cols));
        }
        if !rows.is_empty() {
            graphs.push(Self::from_conllu_rows(&rows)?);
        }
        Ok(graphs)
    }

    fn from_conllu_rows(rows: &[(usize, Vec<&str>)]) -> Result<DepGraph, ConlluError> {
        let mut g = DepGraph::new(Vec::with_capacity(rows.len()));
        for (k, (line, cols)) in rows.iter().enumerate() {
            let id: usize = cols[0].parse().map_err(|_| ConlluError {
                line: *line,
                field: "ID",
                problem: format!("{:?} is not a token number", cols[0]),
            })?;
            if id != k + 1 {
                return Err(ConlluError {
                    line: *line,
                    field: "ID",
                    problem: format!("expected token {} but found {id}", k + 1),
                });
            }
            let unders = |s: &str| {
                if s == "_" {
                    String::new()
                } else {
                    s.to_string()
                }
            };
            g.tokens
                .push(Token::new(cols[1], unders(cols[2]), unders(cols[4])));
        }
        let n = rows.len();
        for (k, (line, cols)) in rows.iter().enumerate() {
            let dep = k + 1;
            let mut arcs: Vec<(String, String, &'static str)> = Vec::new();
            if cols[8] != "_" {
                for part in cols[8].split('|') {
                    let (h, r) = part.split_once(':').ok_or_else(|| ConlluError {
                        line: *line,
                        field: "DEPS",
                        problem: format!("{part:?} is not HEAD:DEPREL"),
                    })?;
                    arcs.push((h.to_string(), r.to_string(), "DEPS"));
                }
            } else if cols[6] != "_" {
                arcs.push((cols[6].to_string(), cols[7].to_string(), "HEAD"));
            }
            for (h, r, field) in arcs {
                let head: usize = h.parse().map_err(|_| ConlluError {
                    line: *line,
                    field,
                    problem: format!("head {h:?} is not a token number"),
                })?;
                if head > n {
                    return Err(ConlluError {
                        line: *line,
                        field,
                        problem: format!("head {head} is past the last token {n}"),
                    });
                }
                if r.is_empty() || r == "_" {
                    return Err(ConlluError {
                        line: *line,
                        field,
                        problem: "empty relation".into(),
                    });
                }
                if head == 0 {
                    if !g.roots.contains(&dep) {
                        g.roots.push(dep);
                    }
                } else {
                    g.add_edge(head, dep, Rel::named(&r));
                }
            }
        }
        Ok(g)
    }
}

/// CoNLL-U fields may not be empty or contain tabs or newlines.
fn field(s: &str) -> String {
    if s.is_empty() {
        "_".to_string()
    } else {
        s.replace(['\t', '\n', '\r'], " ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cat_on_mat() -> DepGraph {
        let toks = [
            ("the", "the", "DT"),
            ("cat", "cat", "NN"),
            ("is", "be", "VBZ"),
            ("on", "on", "IN"),
            ("the", "the", "DT"),
            ("mat", "mat", "NN"),
        ];
        let mut g = DepGraph::new(
            toks.iter()
                .map(|(w, l, t)| Token::new(*w, *l, *t))
                .collect(),
        );
        g.roots.push(6);
        for (gov, dep, rel) in [
            (2, 1, Rel::DET),
            (6, 2, Rel::NSUBJ),
            (6, 3, Rel::COP),
            (6, 4, Rel::CASE),
            (6, 5, Rel::DET),
        ] {
            g.add_edge(gov, dep, rel);
        }
        g
    }

    #[test]
    fn queries_return_children_in_token_order() {
        let g = cat_on_mat();
        let kids: Vec<usize> = g.outgoing(6).iter().map(|e| e.dep).collect();
        assert_eq!(kids, vec![2, 3, 4, 5]);
        assert_eq!(g.child(6, Rel::NSUBJ), Some(2));
        assert_eq!(g.parent(2), Some(6));
        assert!(g.is_noun(2) && !g.is_plural_noun(2));
    }

    #[test]
    fn conllu_reads_deps_column_and_names_bad_fields() {
        let text = "# a comment\n1\tdogs\tdog\t_\tNNS\t_\t0\troot\t0:root\t_\n\
                    2\trun\trun\t_\tVBP\t_\t1\tacl\t1:acl|1:dep\t_\n\n";
        let g = DepGraph::from_conllu_str(text).expect("valid").remove(0);
        assert_eq!(g.roots, vec![1]);
        assert!(g.has_edge(1, 2, Rel::ACL) && g.has_edge(1, 2, Rel::DEP));
        assert_eq!(g.token(1).lemma, "dog");
        let bad = "1\tdogs\tdog\t_\tNNS\t_\t0\troot\t7:root\t_\n";
        let e = DepGraph::from_conllu_str(bad).expect_err("head past the end");
        assert_eq!((e.line, e.field), (1, "DEPS"));
        let round = DepGraph::from_conllu_str(&g.to_conllu())
            .expect("round trip")
            .remove(0);
        assert_eq!(round, g);
    }

    #[test]
    fn relations_are_their_names() {
        // Collapsed names split at the first colon; a parser label stays that label.
        let on = Rel::named("nmod:in_front_of");
        assert_eq!(on, Rel::with_specific(Label::NMOD, "in_front_of"));
        assert_eq!(
            (on.base(), on.specific()),
            (Some(Label::NMOD), Some("in_front_of"))
        );
        assert_eq!(on.to_string(), "nmod:in_front_of");
        assert_eq!(Rel::with_specific(Label::NMOD, "poss"), Rel::NMOD_POSS);
        assert_eq!(Rel::named("nmod:agent"), Rel::NMOD_AGENT);
        assert_eq!(Rel::named("det:qmod"), Rel::DET_QMOD);
        for (k, name) in LABELS.iter().enumerate() {
            assert_eq!(Rel::named(name), Rel::label(Label::from_index(k)));
            assert_eq!(Rel::named(name).as_str(), *name);
        }
        // `nmod:poss` is of the nmod family, `nsubjpass` is not nsubj's.
        assert!(Rel::NMOD_POSS.is(Label::NMOD) && Rel::NMOD_POSS.is_subtype_of(Label::NMOD));
        assert!(Rel::NMOD.is(Label::NMOD) && !Rel::NMOD.is_subtype_of(Label::NMOD));
        assert!(!Rel::NSUBJPASS.is(Label::NSUBJ));
        // Names from elsewhere (UD v2, Stanford Dependencies) are kept as they are.
        let obl = Rel::named("obl:on");
        assert_eq!((obl.base(), obl.as_str()), (None, "obl:on"));
        assert_eq!(Rel::named("nsubj:pass").base(), Some(Label::NSUBJ));
        // Ordered as the names are.
        let mut rels = [
            Rel::named("nmod:on"),
            Rel::NMOD,
            Rel::named("pobj"),
            Rel::NMOD_POSS,
        ];
        rels.sort();
        let names: Vec<&str> = rels.iter().map(|r| r.as_str()).collect();
        assert_eq!(names, ["nmod", "nmod:on", "nmod:poss", "pobj"]);
    }

    #[test]
    fn unknown_names_take_bounded_memory() {
        // A hostile upload can put any word where a preposition goes ("a dog qzxv the cat"),
        // and each becomes a relation name `nmod:qzxv`: short names are held in the `Rel` ...
        let before = interned_names();
        for i in 0..100_000 {
            let name = format!("nmod:w{i}");
            assert_eq!(Rel::named(&name).as_str(), name);
        }
        assert_eq!(interned_names(), before);
        let qzxv = Rel::named("nmod:qzxv");
        assert_eq!(qzxv, Rel::with_specific(Label::NMOD, "qzxv"));
        assert_eq!(
            (qzxv.as_str(), qzxv.specific()),
            ("nmod:qzxv", Some("qzxv"))
        );
        assert!(qzxv.is_subtype_of(Label::NMOD) && qzxv != Rel::named("nmod:qzxw"));
        assert!(Rel::NMOD_POSS < qzxv && qzxv < Rel::named("nmod:with"));
        assert_eq!(format!("{qzxv} {qzxv:?}"), "nmod:qzxv \"nmod:qzxv\"");
        // ... and long ones are interned, a bounded number of them; past the bound, a name is
        // cut at a char boundary to what a `Rel` holds.
        let long = Rel::named(&format!("conj:{}", "é".repeat(20)));
        assert_eq!(long.specific(), Some("é".repeat(20).as_str()));
        for i in 0..100_000 {
            Rel::named(&format!("nmod:a_made_up_preposition_{i}"));
        }
        assert_eq!(interned_names(), MAX_INTERNED);
        let cut = Rel::named("nmod:made_up_prepositéon_of_mine");
        assert_eq!(cut.as_str(), "nmod:made_up_preposit");
        assert_eq!(
            (cut.base(), cut),
            (Some(Label::NMOD), Rel::named(cut.as_str()))
        );
        assert_eq!(
            Rel::named(&format!("nmod:{}", "x".repeat(1 << 20)))
                .as_str()
                .len(),
            22
        );
        assert_eq!(Rel::named(long.as_str()), long);
        assert_eq!(
            Rel::named("nmod:a_made_up_preposition_7").as_str(),
            "nmod:a_made_up_preposition_7"
        );
    }

    #[test]
    fn add_edge_refuses_exact_duplicates() {
        let mut g = cat_on_mat();
        assert!(!g.add_edge(6, 2, Rel::NSUBJ));
        assert!(g.add_edge(6, 2, Rel::DOBJ));
        assert_eq!(g.edges().len(), 6);
    }

    /// A large graph's queries go through the index: they must give what a scan of the edges
    /// gives, after edges are added, removed and changed in place.
    #[test]
    fn queries_through_the_index_equal_a_scan_of_the_edges() {
        let n = 150;
        let mut g = DepGraph::new(
            (0..n)
                .map(|i| Token::new(format!("w{i}"), "w", "NN"))
                .collect(),
        );
        let labels = [Rel::NSUBJ, Rel::DOBJ, Rel::AMOD, Rel::named("nmod:on")];
        let mut x: u64 = 7;
        let mut next = |m: usize| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as usize % m
        };
        let check = |g: &DepGraph| {
            for node in 0..=n + 1 {
                let scan_out: Vec<&Edge> = g.edges().iter().filter(|e| e.gov == node).collect();
                let scan_in: Vec<&Edge> = g.edges().iter().filter(|e| e.dep == node).collect();
                let mut sorted_out = scan_out.clone();
                sorted_out.sort_by_key(|e| (g.order_key(e.dep), e.rel));
                assert_eq!(g.outgoing(node), sorted_out);
                let mut sorted_in = scan_in.clone();
                sorted_in.sort_by_key(|e| (g.order_key(e.gov), e.rel));
                assert_eq!(g.incoming(node), sorted_in);
                assert_eq!(
                    g.parent(node),
                    scan_in
                        .iter()
                        .map(|e| e.gov)
                        .min_by_key(|&m| g.order_key(m))
                );
                for rel in labels {
                    assert_eq!(
                        g.has_child(node, rel),
                        scan_out.iter().any(|e| e.rel == rel)
                    );
                    let mut kids: Vec<usize> = scan_out
                        .iter()
                        .filter(|e| e.rel == rel)
                        .map(|e| e.dep)
                        .collect();
                    kids.sort_unstable_by_key(|&m| g.order_key(m));
                    kids.dedup();
                    assert_eq!(g.children(node, rel), kids);
                    let mut govs: Vec<usize> = scan_in
                        .iter()
                        .filter(|e| e.rel == rel)
                        .map(|e| e.gov)
                        .collect();
                    govs.sort_unstable_by_key(|&m| g.order_key(m));
                    govs.dedup();
                    assert_eq!(g.parents(node, rel), govs);
                }
            }
            for e in g.edges() {
                assert!(g.has_edge(e.gov, e.dep, e.rel));
            }
        };
        for round in 0..6 {
            for _ in 0..120 {
                let (gov, dep, rel) = (1 + next(n), 1 + next(n), labels[next(4)]);
                let new = !g.edges().contains(&Edge { gov, dep, rel });
                assert_eq!(g.add_edge(gov, dep, rel), new);
            }
            check(&g);
            let e = g.edges()[next(g.edges().len())].clone();
            g.remove_edge(e.gov, e.dep, e.rel);
            assert!(!g.has_edge(e.gov, e.dep, e.rel));
            let e = g.edges()[next(g.edges().len())].clone();
            g.remove_edges_between(e.gov, e.dep);
            let k = next(g.edges().len());
            g.edges_mut()[k].gov = 1 + next(n);
            if round % 2 == 1 {
                g.add_copy(1 + next(n));
                g.add_edge(n + 1, 1, Rel::NSUBJ);
            }
            check(&g);
        }
    }
}
