//! `UniversalSemanticHeadFinder` (with copulas not heads, as the UD converter builds it): which
//! child heads each constituent. The dependency converter hangs every word on the head of the
//! smallest constituent above it that it does not head, and Tregex's head relations (`<#`) ask
//! this finder too.
//!
//! The rules are Collins's, as CoreNLP's `ModCollinsHeadFinder` changes them and the semantic
//! finder changes them again (noun phrases before prepositions, so a preposition hangs on its
//! object; verb phrases before auxiliaries and copulas). For each category, a list of searches is
//! tried in order; a search walks the children from one side looking for a category (`left`,
//! `right`: category by category; `leftdis`, `rightdis`: child by child; `leftexcept`,
//! `rightexcept`: the first child not of the categories). When the last search finds nothing, the
//! first child that is not punctuation from that side heads, or the child at that end. After a
//! search finds a head preceded by a conjunction, the head moves to the first conjunct.
//!
//! Quirks kept: in `hasPassiveProgressiveAuxiliary`, CoreNLP reads the category of the verb phrase
//! where it means its child's, so any phrase under a plain `VP` is searched for a participle.

use std::collections::HashMap;

use super::patterns::{all, node, words, Node, Rel::*};
use super::relations::words::copular_words;
use super::tree::basic_category;
use super::tregex::{HeadFinder, NoHeads, NodeId, Pattern, TreeView};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dir {
    Left,
    LeftDis,
    LeftExcept,
    Right,
    RightDis,
    RightExcept,
}

#[derive(Debug, Clone)]
struct Search {
    dir: Dir,
    cats: Vec<&'static str>,
}

/// The head rules after the semantic finder's changes, one category a line: searches separated
/// by `;`, each a direction and the categories it looks for.
const RULES: &str = "
ADJP: left $; rightdis NNS NN NNP JJ QP VBN VBG; left ADJP; rightdis JJP JJR JJS DT RB RBR CD IN VBD; left ADVP NP
JJP: left NNS NN $ QP JJ VBN VBG ADJP JJP JJR NP JJS DT FW RBR RBS SBAR RB
ADVP: rightdis RB RBR RBS JJ JJR JJS; rightdis RP DT NN CD NP VBN NNP CC FW NNS ADJP NML; left
CONJP: right JJ RB; left CC IN; right VB
FRAG: left IN; right RB; left NP; left ADJP ADVP FRAG S SBAR VP
INTJ: rightdis NNS NN NNP; left
LST: right LS :
NAC: left NN NNS NML NNP NNPS NP NAC EX $ CD QP PRP VBG JJ JJS JJR ADJP JJP FW
PP: left NP S SBAR SBARQ ADVP PP VP ADJP FRAG UCP PRN; right
WHPP: left NP S SBAR SBARQ ADVP PP VP ADJP FRAG UCP PRN; right
PRN: left VP SQ S SINV SBAR NP ADJP PP ADVP INTJ WHNP NAC VBP JJ NN NNP
PRT: right RP
QP: right $ NNS NN CD JJ PDT DT IN RB NCD QP JJR JJS
RRC: left RRC; right VP ADJP JJP NP PP ADVP
S: left VP S FRAG SBAR ADJP UCP TO; right NP
SBAR: left S SQ SINV SBAR FRAG VP WHNP WHPP WHADVP WHADJP IN DT
SBARQ: left SQ S SINV SBARQ FRAG SBAR
SINV: left VBZ VBD VBP VB MD VBN VP S SINV ADJP JJP NP
SQ: left VP SQ ADJP VB VBZ VBD VBP MD AUX AUXG
UCP: left
VP: left TO VBD VBN MD VBZ VB VBG VBP VP AUX AUXG ADJP JJP NN NNS JJ NP NNP
WHADJP: left ADJP JJ JJR WP; right RB; right
WHADVP: rightdis WRB WHADVP RB JJ
WHNP: rightdis NN NNP NNPS NNS NX NML JJR WP; left WHNP NP; rightdis $ ADJP PRN FW; right CD; rightdis JJ JJS RB QP; left WHPP WHADJP WP$ WDT
X: right S VP ADJP JJP NP SBAR PP X
NP: rightdis NN NNP NNPS NNS NX NML JJR WP; left NP PRP; rightdis $ ADJP FW CD JJ QP; rightdis JJS DT WDT NML PRN RB RBR ADVP; left POS
NX: rightdis NN NNP NNPS NNS NX NML JJR WP; left NP PRP; rightdis $ ADJP FW CD JJ QP; rightdis JJS DT WDT NML PRN RB RBR ADVP; left POS
NML: rightdis NN NNP NNPS NNS NX NML JJR WP; left NP PRP; rightdis $ ADJP FW CD JJ QP; rightdis JJS DT WDT NML PRN RB RBR ADVP; left POS
POSSP: right POS
ROOT: left S SQ SINV SBAR FRAG
TOP: left S SQ SINV SBAR FRAG
TYPO: left NN NP NML NNP NNPS TO VBD VBN MD VBZ VB VBG VBP VP ADJP JJP FRAG
ADV: right RB RBR RBS FW ADVP TO CD JJR JJ IN NP NML JJS NN
EDITED: left
VB: left TO VBD VBN MD VBZ VB VBG VBP VP AUX AUXG ADJP JJP NN NNS JJ NP NNP
META: left
XS: right IN
EMBED: right INTJ
MWE: left
PCONJP: left
";

/// Penn Treebank punctuation tags, which the last-resort searches pass over.
const PUNCTUATION_TAGS: &[&str] = &["''", "``", "-LRB-", "-RRB-", ".", ":", ","];

/// Words that make a verb an auxiliary (with a verbal tag), lowercased.
const AUXILIARIES: &[&str] = &[
    "will", "wo", "shall", "sha", "may", "might", "should", "would", "can", "could", "ca", "must",
    "'ll", "ll", "-ll", "cold", "has", "have", "had", "having", "'ve", "ve", "v", "of", "hav",
    "hvae", "as", "get", "gets", "getting", "got", "gotten", "do", "does", "did", "'d", "d", "du",
    "to", "2", "na", "a", "ot", "ta", "the", "too",
];

/// Forms of "be".
const COPULAS: &[&str] = &[
    "be", "being", "been", "am", "are", "r", "is", "ai", "was", "were", "'m", "m", "'re", "'s",
    "s", "`s", "art", "ar", "wase",
];

/// Forms of "be" and "get", the passive and progressive auxiliaries.
const BE_GET: &[&str] = &[
    "be", "being", "been", "am", "are", "r", "is", "ai", "was", "were", "'m", "m", "'re", "'s",
    "s", "`s", "art", "ar", "wase", "get", "getting", "gets", "got", "gotten",
];

const VERB_TAGS: &[&str] = &[
    "TO", "MD", "VB", "VBD", "VBP", "VBZ", "VBG", "VBN", "AUX", "AUXG",
];
const UNAMBIGUOUS_AUX_TAGS: &[&str] = &["TO", "MD", "AUX", "AUXG"];

/// The semantic head finder.
#[derive(Debug)]
pub struct SemanticHeadFinder {
    rules: HashMap<&'static str, Vec<Search>>,
    left_default: Search,
    right_default: Search,
    /// Copula questions and inversions whose head is the predicate.
    copula_heads: Vec<Pattern>,
    /// "but not", "but also", "and yet": the adverb heads the CONJP.
    conjp_heads: Vec<Pattern>,
    /// A verb phrase over a temporal noun phrase with no verb or other content under it.
    no_verb_over_temp: Pattern,
}

/// The head finder's patterns, in CoreNLP's order: three copula constructions whose head is the
/// predicate or the WH phrase, three CONJPs headed by their adverb, and a VP over a temporal NP
/// with nothing else to head it.
pub fn patterns() -> Vec<Node> {
    let cop = || node(copular_words());
    // A CONJP of `conj` and then `adverbs` (an RB, or an ADVP of just that RB) as its head.
    let conjp = |conj: &[&str], adverbs: &[&str]| {
        node("CONJP").has(
            Child,
            node("CC").has(OnlyChild, node(words(conj))).either(vec![
                all().has(
                    NextSister,
                    node("RB")
                        .named("head")
                        .has(OnlyChild, node(words(adverbs))),
                ),
                all().has(
                    NextSister,
                    node("ADVP")
                        .named("head")
                        .has(OnlyChild, node("RB").has(OnlyChild, node(words(adverbs)))),
                ),
            ]),
        )
    };
    vec![
        node("SBARQ").has(
            Child,
            node("WHNP").has(
                SisterAfter,
                node("/^VB/")
                    .has(Child, cop())
                    .has(SisterAfter, node("ADJP").named("head")),
            ),
        ),
        node("SBARQ").has(
            Child,
            node("WHNP").named("head").has(
                SisterAfter,
                node("/^VB/")
                    .has(Child, cop())
                    .has(NextSister, node("NP"))
                    .not(SisterAfter, node("ADJP")),
            ),
        ),
        node("SINV").has(
            Child,
            node("NP").named("head").has(
                SisterAfter,
                node("NP").has(
                    SisterAfter,
                    node("VP").has(Child, node("/^(?:VB|AUX)/").has(Child, cop())),
                ),
            ),
        ),
        node("CONJP").has(
            Child,
            node("CC").has(OnlyChild, node(words(&["but", "and"]))).has(
                NextSister,
                node("RB")
                    .named("head")
                    .has(OnlyChild, node(words(&["not"]))),
            ),
        ),
        conjp(&["but"], &["also", "rather"]),
        conjp(&["and"], &["yet"]),
        node("/^VP/")
            .has(Child, node("NP-TMP"))
            .not(Child, node("/^V/"))
            .not(Child, node("NNP|NN|NNPS|NNS|NP|JJ|ADJP|S")),
    ]
}

impl SemanticHeadFinder {
    /// One head finder for the whole process (its patterns compiled once).
    pub fn shared() -> &'static SemanticHeadFinder {
        static SHARED: std::sync::OnceLock<SemanticHeadFinder> = std::sync::OnceLock::new();
        SHARED.get_or_init(SemanticHeadFinder::new)
    }

    pub fn new() -> SemanticHeadFinder {
        let mut rules = HashMap::new();
        for line in RULES.lines().filter(|l| !l.trim().is_empty()) {
            let (cat, searches) = line.split_once(": ").expect("a category and its searches");
            let searches = searches
                .split("; ")
                .map(|s| {
                    let mut words = s.split(' ');
                    let dir = match words.next() {
                        Some("left") => Dir::Left,
                        Some("leftdis") => Dir::LeftDis,
                        Some("right") => Dir::Right,
                        Some("rightdis") => Dir::RightDis,
                        other => panic!("unknown head search {other:?}"),
                    };
                    Search {
                        dir,
                        cats: words.collect(),
                    }
                })
                .collect();
            rules.insert(cat, searches);
        }
        let mut compiled = patterns()
            .into_iter()
            .map(|n| n.compile().unwrap_or_else(|e| panic!("{e}")));
        let mut take = |k: usize| compiled.by_ref().take(k).collect::<Vec<_>>();
        let copula_heads = take(3);
        let conjp_heads = take(3);
        let no_verb_over_temp = take(1).pop().expect("seven patterns");
        SemanticHeadFinder {
            rules,
            left_default: Search {
                dir: Dir::LeftExcept,
                cats: PUNCTUATION_TAGS.to_vec(),
            },
            right_default: Search {
                dir: Dir::RightExcept,
                cats: PUNCTUATION_TAGS.to_vec(),
            },
            copula_heads,
            conjp_heads,
            no_verb_over_temp,
        }
    }

    /// `determineHead(t, parent)`: the child of `node` that heads it (a preterminal's word, the
    /// only child of a unary node). `None` for a leaf or a category with no rule.
    pub fn head_with_parent(
        &self,
        view: &TreeView<'_>,
        node: NodeId,
        parent: Option<NodeId>,
    ) -> Option<NodeId> {
        let kids = view.children(node);
        match kids.len() {
            0 => None,
            1 => Some(kids[0]),
            _ => self.non_trivial_head(view, node, parent),
        }
    }

    fn first_match(
        &self,
        patterns: &[Pattern],
        view: &TreeView<'_>,
        node: NodeId,
    ) -> Option<NodeId> {
        patterns.iter().find_map(|p| {
            let mut m = p.matcher_under(view, &NoHeads, node, true);
            m.find_at(node).and_then(|hit| hit.node("head"))
        })
    }

    fn non_trivial_head(
        &self,
        view: &TreeView<'_>,
        node: NodeId,
        parent: Option<NodeId>,
    ) -> Option<NodeId> {
        let mother = basic_category(view.label(node));
        if mother == "CONJP" {
            if let Some(h) = self.first_match(&self.conjp_heads, view, node) {
                return Some(h);
            }
        }
        if mother == "SBARQ" || mother == "SINV" {
            if let Some(h) = self.first_match(&self.copula_heads, view, node) {
                return Some(h);
            }
        }
        if mother == "VP" || mother == "SQ" || mother == "SINV" {
            let kids = view.children(node);
            let filtered: Vec<NodeId> = kids
                .iter()
                .copied()
                .filter(|&k| self.keeps(view, k))
                .collect();
            if self.has_auxiliary(view, kids, AUXILIARIES, true)
                || self.has_passive_progressive(view, kids)
            {
                let cats: &[&'static str] = if self.has_auxiliary(view, kids, COPULAS, true) {
                    &["VP", "ADJP"]
                } else {
                    &["VP"]
                };
                let search = Search {
                    dir: Dir::Left,
                    cats: cats.to_vec(),
                };
                if let Some(h) = self.traverse(view, &filtered, &search, false) {
                    return Some(h);
                }
            }
            if self.has_auxiliary(view, kids, COPULAS, false)
                && !is_existential(view, node, parent)
                && !is_wh_question(view, node, parent)
            {
                let cats = vec!["VP", "ADJP", "NP", "UCP", "PP", "WHADJP", "WHNP"];
                let search = Search {
                    dir: if mother == "SQ" {
                        Dir::Right
                    } else {
                        Dir::Left
                    },
                    cats,
                };
                let mut head = self.traverse(view, &filtered, &search, false);
                if mother == "SQ" {
                    if let Some(h) = head.filter(|&h| view.label(h).starts_with("NP")) {
                        // An NP heads a copular question only after another NP.
                        let another = kids
                            .iter()
                            .take_while(|&&k| k != h)
                            .any(|&k| view.label(k).starts_with("NP"));
                        if !another {
                            head = None;
                        }
                    }
                }
                if head.is_some() {
                    return head;
                }
            }
        }
        self.collins_head(view, node)
    }

    /// `REMOVE_TMP_AND_ADV`: children other than temporal and adverbial phrases and verb
    /// phrases over a bare temporal noun phrase.
    fn keeps(&self, view: &TreeView<'_>, kid: NodeId) -> bool {
        let label = view.label(kid);
        if label.contains("-TMP") || label.contains("-ADV") {
            return false;
        }
        if label.starts_with("VP") {
            let mut m = self
                .no_verb_over_temp
                .matcher_under(view, &NoHeads, kid, true);
            if m.find_at(kid).is_some() {
                return false;
            }
        }
        true
    }

    /// `AbstractCollinsHeadFinder.determineNonTrivialHead`.
    fn collins_head(&self, view: &TreeView<'_>, node: NodeId) -> Option<NodeId> {
        let mother = basic_category(view.label(node));
        let mother = mother.strip_prefix('@').unwrap_or(mother);
        let searches = self.rules.get(mother)?;
        let kids = view.children(node);
        let last = searches.len() - 1;
        searches
            .iter()
            .enumerate()
            .find_map(|(i, s)| self.traverse(view, kids, s, i == last))
    }

    /// `traverseLocate`.
    fn traverse(
        &self,
        view: &TreeView<'_>,
        kids: &[NodeId],
        how: &Search,
        last_resort: bool,
    ) -> Option<NodeId> {
        let cat = |k: NodeId| basic_category(view.label(k));
        let n = kids.len();
        let found = match how.dir {
            Dir::Left => how
                .cats
                .iter()
                .find_map(|c| (0..n).find(|&i| cat(kids[i]) == *c)),
            Dir::LeftDis => (0..n).find(|&i| how.cats.contains(&cat(kids[i]))),
            Dir::LeftExcept => (0..n).find(|&i| !how.cats.contains(&cat(kids[i]))),
            Dir::Right => how
                .cats
                .iter()
                .find_map(|c| (0..n).rev().find(|&i| cat(kids[i]) == *c)),
            Dir::RightDis => (0..n).rev().find(|&i| how.cats.contains(&cat(kids[i]))),
            Dir::RightExcept => (0..n).rev().find(|&i| !how.cats.contains(&cat(kids[i]))),
        };
        match found {
            Some(i) => Some(kids[self.after_conjunction(view, i, kids)]),
            None if last_resort => {
                let (fallback, end) = match how.dir {
                    Dir::Left | Dir::LeftDis | Dir::LeftExcept => (&self.left_default, 0),
                    _ => (&self.right_default, n.checked_sub(1)?),
                };
                self.traverse(view, kids, fallback, false)
                    .or(kids.get(end).copied())
            }
            None => None,
        }
    }

    /// `postOperationFix`: a head right after a conjunction gives way to the first conjunct.
    fn after_conjunction(&self, view: &TreeView<'_>, head: usize, kids: &[NodeId]) -> usize {
        if head < 2 {
            return head;
        }
        let prev = basic_category(view.label(kids[head - 1]));
        if prev != "CC" && prev != "CONJP" {
            return head;
        }
        let interjection = basic_category(view.label(kids[head])) == "UH";
        let skip = |k: NodeId| {
            let value = view.label(k);
            (is_preterminal(view, k)
                && (PUNCTUATION_TAGS.contains(&value) || !interjection && value == "UH"))
                || value == "INTJ" && !interjection
        };
        let mut new = head as isize - 2;
        while new >= 0 && skip(kids[new as usize]) {
            new -= 1;
        }
        while new >= 2 {
            let next = previous_head(view, new, kids, interjection);
            if next < 0 {
                break;
            }
            new = next;
        }
        if new >= 0 {
            new as usize
        } else {
            head
        }
    }

    /// `isVerbalAuxiliary`: a preterminal with an auxiliary tag, or a verbal tag on one of
    /// `words`.
    fn is_auxiliary(
        &self,
        view: &TreeView<'_>,
        kid: NodeId,
        words: &[&str],
        tag_alone: bool,
    ) -> bool {
        if !is_preterminal(view, kid) {
            return false;
        }
        let tag = view.label(kid);
        let word = view.label(view.children(kid)[0]).to_lowercase();
        tag_alone && UNAMBIGUOUS_AUX_TAGS.contains(&tag)
            || VERB_TAGS.contains(&tag) && words.contains(&word.as_str())
    }

    fn has_auxiliary(
        &self,
        view: &TreeView<'_>,
        kids: &[NodeId],
        words: &[&str],
        tag_alone: bool,
    ) -> bool {
        kids.iter()
            .any(|&k| self.is_auxiliary(view, k, words, tag_alone))
    }

    /// `hasPassiveProgressiveAuxiliary`: a form of "be" or "get" beside a verb phrase with a
    /// participle (or a past tense) in it.
    fn has_passive_progressive(&self, view: &TreeView<'_>, kids: &[NodeId]) -> bool {
        let mut aux = false;
        let mut passive_vp = false;
        for &kid in kids {
            if self.is_auxiliary(view, kid, BE_GET, false) {
                aux = true;
            } else if !view.is_leaf(kid) && !is_preterminal(view, kid) {
                let cat = view.label(kid);
                if !cat.starts_with("VP") {
                    continue;
                }
                let mut participle_in_vp = false;
                for &kk in view.children(kid) {
                    if is_preterminal(view, kk) {
                        let tag = view.label(kk);
                        if tag == "VBN"
                            || tag == "VBG"
                            || tag == "VBD"
                            || tag == "CC" && participle_in_vp
                        {
                            passive_vp = true;
                            break;
                        }
                    } else if !view.is_leaf(kk) {
                        // CoreNLP reads the verb phrase's own category here, not its child's.
                        if cat == "VP" {
                            participle_in_vp = has_participle(view, kk);
                        } else if (cat == "CONJP" || cat == "PRN") && participle_in_vp {
                            passive_vp = true;
                            break;
                        }
                    }
                }
            }
            if aux && passive_vp {
                break;
            }
        }
        aux && passive_vp
    }
}

impl Default for SemanticHeadFinder {
    fn default() -> Self {
        SemanticHeadFinder::new()
    }
}

impl HeadFinder for SemanticHeadFinder {
    /// What Tregex's head relations ask: `determineHead(t)`, without the parent.
    fn head(&self, tree: &TreeView<'_>, node: NodeId) -> Option<NodeId> {
        self.head_with_parent(tree, node, None)
    }
}

fn is_preterminal(view: &TreeView<'_>, n: NodeId) -> bool {
    let kids = view.children(n);
    kids.len() == 1 && view.is_leaf(kids[0])
}

/// `vpContainsParticiple`.
fn has_participle(view: &TreeView<'_>, n: NodeId) -> bool {
    view.children(n)
        .iter()
        .any(|&k| is_preterminal(view, k) && matches!(view.label(k), "VBN" | "VBG" | "VBD"))
}

/// `findPreviousHead`: the conjunct before `head` across separators, or −1.
fn previous_head(view: &TreeView<'_>, head: isize, kids: &[NodeId], interjection: bool) -> isize {
    let mut seen_separator = false;
    let mut new = head;
    while new >= 0 {
        new -= 1;
        if new < 0 {
            return new;
        }
        let k = kids[new as usize];
        let label = basic_category(view.label(k));
        if label == "," || label == ":" {
            seen_separator = true;
        } else if is_preterminal(view, k)
            && (PUNCTUATION_TAGS.contains(&label) || !interjection && label == "UH")
            || label == "INTJ" && !interjection
        {
            // skipped
        } else {
            if !seen_separator {
                new = -1;
            }
            break;
        }
    }
    new
}

/// `isExistential`: a verb phrase whose parent has "there" (EX) before the verb phrase, or a
/// question whose parent has one outside its verbs.
fn is_existential(view: &TreeView<'_>, node: NodeId, parent: Option<NodeId>) -> bool {
    let Some(parent) = parent else { return false };
    let mother = basic_category(view.label(node));
    let has_ex = |k: NodeId| preterminal_tags(view, k).any(|t| t == "EX");
    if mother == "VP" {
        let mut found = false;
        for &kid in view.children(parent) {
            if view.label(kid) == "VP" {
                break;
            }
            found |= has_ex(kid);
        }
        found
    } else if mother.starts_with("SQ") {
        view.children(parent)
            .iter()
            .filter(|&&k| !view.label(k).starts_with("VB"))
            .any(|&k| has_ex(k))
    } else {
        false
    }
}

fn preterminal_tags<'v>(view: &'v TreeView<'_>, n: NodeId) -> impl Iterator<Item = &'v str> + 'v {
    view.subtree(n)
        .filter(move |&k| is_preterminal(view, k))
        .map(move |k| view.label(k))
}

/// `isWHQ`: a question under an SBARQ with a wh-phrase.
fn is_wh_question(view: &TreeView<'_>, node: NodeId, parent: Option<NodeId>) -> bool {
    if !view.label(node).starts_with("SQ") {
        return false;
    }
    let Some(parent) = parent else { return false };
    view.label(parent) == "SBARQ"
        && view
            .children(parent)
            .iter()
            .any(|&k| view.label(k).starts_with("WH"))
}
