//! Tregex, CoreNLP's tree pattern language (`edu.stanford.nlp.trees.tregex`), as CoreNLP 3.6.0
//! compiles and matches it: the UD converter's relations (`UniversalEnglishGrammaticalRelations`),
//! the semantic head finder and `CoordinationTransformer` are all written in it.
//!
//! In: a pattern string (`VP < (/^(?:VB|AUX)/=target < /^(?i:be)$/)`) and a [`Tree`] seen through
//! a [`TreeView`] (parent links and preorder ids); out: the matches in Tregex's own order, each
//! with the node it is rooted at and the nodes its `=name`s bound. The order matters:
//! `GrammaticalRelation.getRelatedNodes` keeps the `target`s in the order they are found
//! ([`related_nodes`]).
//!
//! Matching reproduces Tregex's matcher state machine (`DescriptionPattern.DescriptionMatcher`,
//! `CoordinationPattern.CoordinationMatcher`) step for step, because its backtracking decides the
//! order of the matches and what a negated, optional or disjoined part leaves bound, and each
//! relation offers its candidate nodes in the order of its `Relation.searchNodeIterator` (which
//! is not always document order: `$++` offers the farthest right sister first, `..` the nodes
//! under the highest ancestor's sisters first).
//!
//! Node descriptions are Java regular expressions, some with lookahead (`S(?!YM)`); they run on
//! fancy-regex, which leaves the rest to the `regex` crate. Java's `(?i)` folds case in ASCII
//! only; `regex` folds Unicode as well (`ſ` matches `s`), a difference no Penn Treebank label
//! meets.

use std::collections::HashSet;
use std::fmt;

use super::tree::{basic_category, Tree};

/// A node of a [`TreeView`]: its preorder index (the root is 0; leaves count).
pub type NodeId = usize;

/// A tree with what Tregex walks: parents, children, preorder ids (Java's `Tree.iterator()`
/// order, leaves included) and each subtree's span of ids.
#[derive(Debug, Clone)]
pub struct TreeView<'t> {
    nodes: Vec<&'t Tree>,
    parent: Vec<Option<NodeId>>,
    /// A node's children are `kids[first_kid[n]..]`, as many as its tree has (one list for
    /// the whole tree: a view is built for every pattern a tree is matched against).
    first_kid: Vec<u32>,
    kids: Vec<NodeId>,
    end: Vec<NodeId>,
}

impl<'t> TreeView<'t> {
    pub fn new(tree: &'t Tree) -> TreeView<'t> {
        let mut v = TreeView {
            nodes: Vec::new(),
            parent: Vec::new(),
            first_kid: Vec::new(),
            kids: Vec::new(),
            end: Vec::new(),
        };
        v.add(tree, None);
        v
    }

    fn add(&mut self, t: &'t Tree, parent: Option<NodeId>) -> NodeId {
        let id = self.nodes.len();
        self.nodes.push(t);
        self.parent.push(parent);
        let first = self.kids.len();
        self.first_kid.push(first as u32);
        self.kids.resize(first + t.children.len(), 0);
        self.end.push(id + 1);
        for (i, c) in t.children.iter().enumerate() {
            self.kids[first + i] = self.add(c, Some(id));
        }
        self.end[id] = self.nodes.len();
        id
    }

    pub fn root(&self) -> NodeId {
        0
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn label(&self, n: NodeId) -> &'t str {
        &self.nodes[n].label
    }

    pub fn tree(&self, n: NodeId) -> &'t Tree {
        self.nodes[n]
    }

    pub fn parent(&self, n: NodeId) -> Option<NodeId> {
        self.parent[n]
    }

    pub fn children(&self, n: NodeId) -> &[NodeId] {
        let first = self.first_kid[n] as usize;
        &self.kids[first..first + self.nodes[n].children.len()]
    }

    pub fn is_leaf(&self, n: NodeId) -> bool {
        self.nodes[n].children.is_empty()
    }

    /// The preorder ids of `n`'s subtree, `n` first.
    pub fn subtree(&self, n: NodeId) -> std::ops::Range<NodeId> {
        n..self.end[n]
    }

    /// `n`'s index among its parent's children.
    pub fn position(&self, n: NodeId) -> Option<usize> {
        let p = self.parent[n]?;
        self.children(p).iter().position(|&c| c == n)
    }
}

/// What the head relations (`<#`, `>#`, `<<#`, `>>#`) ask: the head daughter of an interior node
/// (`HeadFinder.determineHead(t)`, called without a parent). `None` ends the relation's search,
/// as Java's `null` does.
pub trait HeadFinder {
    fn head(&self, tree: &TreeView<'_>, node: NodeId) -> Option<NodeId>;
}

/// For patterns without head relations: every node is headless.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHeads;

impl HeadFinder for NoHeads {
    fn head(&self, _: &TreeView<'_>, _: NodeId) -> Option<NodeId> {
        None
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Tregex pattern {pattern:?}: {message}")]
pub struct TregexError {
    pub pattern: String,
    pub message: String,
}

// ---------------------------------------------------------------------------------------------
// Patterns

/// A compiled Tregex pattern (`TregexPattern`).
#[derive(Debug, Clone)]
pub struct Pattern {
    source: String,
    root: PNode,
    names: Vec<String>,
    vars: usize,
}

#[derive(Debug, Clone)]
enum PNode {
    Desc(Box<DescPat>),
    Coord(CoordPat),
}

#[derive(Debug, Clone)]
struct DescPat {
    rel: Relation,
    /// `!` before the description.
    neg_desc: bool,
    /// `None` for a back-reference (`=name`) or a link (`~name`).
    label: Option<LabelMatch>,
    basic_cat: bool,
    name: Option<usize>,
    link: Option<usize>,
    /// `#group%var`: (regex group, variable slot).
    var_groups: Vec<(usize, usize)>,
    child: Option<PNode>,
    negated: bool,
    optional: bool,
}

#[derive(Debug, Clone)]
struct CoordPat {
    conj: bool,
    children: Vec<PNode>,
    negated: bool,
    optional: bool,
}

impl PNode {
    fn negate(&mut self) -> Result<(), String> {
        let (neg, opt) = self.flags();
        *neg = true;
        if *opt {
            return Err("Node cannot be both negated and optional.".into());
        }
        Ok(())
    }

    fn make_optional(&mut self) -> Result<(), String> {
        let (neg, opt) = self.flags();
        *opt = true;
        if *neg {
            return Err("Node cannot be both negated and optional.".into());
        }
        Ok(())
    }

    fn flags(&mut self) -> (&mut bool, &mut bool) {
        match self {
            PNode::Desc(d) => (&mut d.negated, &mut d.optional),
            PNode::Coord(c) => (&mut c.negated, &mut c.optional),
        }
    }
}

/// How a description tests a label (`DescriptionPattern.DescriptionMode`, with the shortcuts
/// Tregex takes for simple regular expressions, which differ from the regex in corner cases:
/// `/^.$/` is the exact label `.`).
#[derive(Debug, Clone)]
enum LabelMatch {
    Anything,
    Exact(String),
    Strings(Vec<String>),
    CaseInsensitive(Vec<String>),
    Prefix(Vec<String>),
    Regex(JavaRegex),
}

impl LabelMatch {
    /// Whether the label `v` passes.
    fn accepts(&self, v: &str) -> bool {
        match self {
            LabelMatch::Anything => true,
            LabelMatch::Exact(s) => v == s,
            LabelMatch::Strings(ws) => ws.iter().any(|w| w == v),
            LabelMatch::CaseInsensitive(ws) => ws.iter().any(|w| equals_ignore_case(w, v)),
            LabelMatch::Prefix(ws) => ws.iter().any(|w| v.starts_with(w.as_str())),
            LabelMatch::Regex(r) => r.find(v),
        }
    }

    fn from_description(desc: &str) -> Result<LabelMatch, String> {
        const MAX_STRINGS: usize = 8;
        if desc == "__" || desc == "/.*/" || desc == "/^.*$/" {
            return Ok(LabelMatch::Anything);
        }
        if let Some(w) = single_word(desc) {
            return Ok(LabelMatch::Exact(w));
        }
        let regex_body = |d: &str| JavaRegex::new(&d[1..d.len() - 1]).map(LabelMatch::Regex);
        if let Some(words) = word_group(desc, "/^(?:") {
            let words = java_split_pipe(&words.replace('\\', ""));
            return if words.len() > MAX_STRINGS {
                regex_body(desc)
            } else {
                Ok(LabelMatch::Strings(words))
            };
        }
        if let Some(words) = word_group(desc, "/^(?i:") {
            let words = java_split_pipe(&words.replace('\\', ""));
            return if words.len() > MAX_STRINGS {
                regex_body(desc)
            } else {
                Ok(LabelMatch::CaseInsensitive(words))
            };
        }
        if let Some(prefixes) = prefix_group(desc) {
            let words = java_split_pipe(prefixes);
            return if words.len() > MAX_STRINGS {
                regex_body(desc)
            } else {
                Ok(LabelMatch::Prefix(words))
            };
        }
        if desc.len() >= 2 && desc.starts_with('/') && desc.ends_with('/') {
            return regex_body(desc);
        }
        if desc.contains('|') {
            let words = java_split_pipe(desc);
            return if words.len() > MAX_STRINGS {
                JavaRegex::new(&format!("^(?:{desc})$")).map(LabelMatch::Regex)
            } else {
                Ok(LabelMatch::Strings(words))
            };
        }
        Ok(LabelMatch::Exact(desc.to_string()))
    }
}

/// `/^X$/` for one character X, `/^[X]$/`, `/^word$/` with `word` of letters, `-` and `'`:
/// Tregex compares these as plain strings.
fn single_word(desc: &str) -> Option<String> {
    let inner = desc.strip_prefix("/^")?.strip_suffix("$/")?;
    let mut chars = inner.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Some(c.to_string());
    }
    if let Some(c) = inner.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        let mut cs = c.chars();
        if let (Some(c), None) = (cs.next(), cs.next()) {
            return Some(c.to_string());
        }
    }
    (!inner.is_empty()
        && inner
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == '-' || c == '\''))
    .then(|| inner.to_string())
}

/// `/^(?:A|B)$/` (or `(?i:`) whose words are letters, `-` and `\$`: the words, still escaped.
fn word_group<'d>(desc: &'d str, open: &str) -> Option<&'d str> {
    let inner = desc.strip_prefix(open)?.strip_suffix(")$/")?;
    let mut chars = inner.chars().peekable();
    chars.peek()?;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if chars.next() != Some('$') {
                    return None;
                }
            }
            c if c.is_ascii_alphabetic() || c == '-' || c == '|' => {}
            _ => return None,
        }
    }
    Some(inner)
}

/// `/^JJ|NN/` or `/^(?:JJ|NN)/`: prefixes.
fn prefix_group(desc: &str) -> Option<&str> {
    let ok = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphabetic() || c == '-' || c == '|')
    };
    let inner = desc.strip_prefix("/^")?.strip_suffix('/')?;
    if ok(inner) {
        return Some(inner);
    }
    let inner = inner.strip_prefix("(?:")?.strip_suffix(')')?;
    ok(inner).then_some(inner)
}

/// Java's `s.split("[|]")`: trailing empty strings dropped.
fn java_split_pipe(s: &str) -> Vec<String> {
    let mut words: Vec<String> = s.split('|').map(str::to_string).collect();
    while words.last().is_some_and(String::is_empty) {
        words.pop();
    }
    words
}

/// Java's `String.equalsIgnoreCase`, char by char.
fn equals_ignore_case(a: &str, b: &str) -> bool {
    fn simple(c: char, upper: bool) -> char {
        let mut it: Box<dyn Iterator<Item = char>> = if upper {
            Box::new(c.to_uppercase())
        } else {
            Box::new(c.to_lowercase())
        };
        match (it.next(), it.next()) {
            (Some(x), None) => x,
            _ => c,
        }
    }
    let (mut x, mut y) = (a.chars(), b.chars());
    loop {
        match (x.next(), y.next()) {
            (None, None) => return true,
            (Some(c), Some(d)) => {
                if c == d {
                    continue;
                }
                let (uc, ud) = (simple(c, true), simple(d, true));
                if uc == ud || simple(uc, false) == simple(ud, false) {
                    continue;
                }
                return false;
            }
            _ => return false,
        }
    }
}

/// A `java.util.regex.Pattern` used with `find()`.
#[derive(Debug, Clone)]
struct JavaRegex(fancy_regex::Regex);

impl JavaRegex {
    fn new(java: &str) -> Result<JavaRegex, String> {
        // Java accepts `\` before any non-letter; `regex` wants some of them bare (`\/`).
        let mut out = String::with_capacity(java.len());
        let mut chars = java.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some('/') => out.push('/'),
                    Some(n) => {
                        out.push('\\');
                        out.push(n);
                    }
                    None => out.push('\\'),
                }
            } else {
                out.push(c);
            }
        }
        fancy_regex::Regex::new(&out)
            .map(JavaRegex)
            .map_err(|e| format!("regex /{java}/: {e}"))
    }

    fn find(&self, s: &str) -> bool {
        self.0.is_match(s).unwrap_or(false)
    }

    /// Group `g` of the first match (`Matcher.find()` then `group(g)`).
    fn group(&self, s: &str, g: usize) -> Option<String> {
        let caps = self.0.captures(s).ok()??;
        caps.get(g).map(|m| m.as_str().to_string())
    }
}

/// The label test of the unbroken-category relations (`<+(VP)`, `>+(/^S/)`, ...).
#[derive(Debug, Clone)]
struct PathLabel {
    regex: JavaRegex,
    negated: bool,
    basic_cat: bool,
}

impl PathLabel {
    fn new(arg: &str) -> Result<PathLabel, String> {
        let (negated, arg) = match arg.strip_prefix('!') {
            Some(a) => (true, a),
            None => (false, arg),
        };
        let (basic_cat, arg) = match arg.strip_prefix('@') {
            Some(a) => (true, a),
            None => (false, arg),
        };
        let regex = if arg.len() >= 2 && arg.starts_with('/') && arg.ends_with('/') {
            JavaRegex::new(&arg[1..arg.len() - 1])?
        } else if arg == "__" {
            JavaRegex::new("^.*$")?
        } else {
            JavaRegex::new(&format!("^(?:{arg})$"))?
        };
        Ok(PathLabel {
            regex,
            negated,
            basic_cat,
        })
    }

    fn matches(&self, label: &str) -> bool {
        let l = if self.basic_cat {
            basic_category(label)
        } else {
            label
        };
        self.regex.find(l) != self.negated
    }
}

/// The relations (`Relation`), with Tregex's aliases folded in (`<,` is `<1`, `$..` is `$++`).
#[derive(Debug, Clone)]
enum Relation {
    Root,
    Equals,
    Splitter,
    Dominates,
    DominatedBy,
    ParentOf,
    ChildOf,
    Precedes,
    ImmediatelyPrecedes,
    Follows,
    ImmediatelyFollows,
    LeftmostDescendant,
    RightmostDescendant,
    LeftmostDescendantOf,
    RightmostDescendantOf,
    SisterOf,
    LeftSisterOf,
    RightSisterOf,
    ImmediateLeftSisterOf,
    ImmediateRightSisterOf,
    OnlyChildOf,
    HasOnlyChild,
    UnaryPathAncestorOf,
    UnaryPathDescendantOf,
    ParentEquals,
    Heads,
    HeadedBy,
    ImmediatelyHeads,
    ImmediatelyHeadedBy,
    HasIthChild(i32),
    IthChildOf(i32),
    UnbrokenDominates(PathLabel),
    UnbrokenDominatedBy(PathLabel),
    UnbrokenPrecedes(PathLabel),
    UnbrokenFollows(PathLabel),
}

impl Relation {
    fn simple(symbol: &str) -> Result<Relation, String> {
        use Relation::*;
        Ok(match symbol {
            "<<" => Dominates,
            ">>" => DominatedBy,
            "<" => ParentOf,
            ">" => ChildOf,
            ".." => Precedes,
            "." => ImmediatelyPrecedes,
            ",," => Follows,
            "," => ImmediatelyFollows,
            "<<," => LeftmostDescendant,
            "<<-" | "<<`" => RightmostDescendant,
            ">>," => LeftmostDescendantOf,
            ">>-" | ">>`" => RightmostDescendantOf,
            "$" => SisterOf,
            "$++" | "$.." => LeftSisterOf,
            "$--" | "$,," => RightSisterOf,
            "$+" | "$." => ImmediateLeftSisterOf,
            "$-" | "$," => ImmediateRightSisterOf,
            ">:" => OnlyChildOf,
            "<:" => HasOnlyChild,
            "==" => Equals,
            ":" => Splitter,
            "<<:" => UnaryPathAncestorOf,
            ">>:" => UnaryPathDescendantOf,
            "<=" => ParentEquals,
            "<," => HasIthChild(1),
            "<-" | "<`" => HasIthChild(-1),
            ">," => IthChildOf(1),
            ">-" | ">`" => IthChildOf(-1),
            ">>#" => Heads,
            "<<#" => HeadedBy,
            ">#" => ImmediatelyHeads,
            "<#" => ImmediatelyHeadedBy,
            _ => return Err(format!("Unrecognized simple relation {symbol}")),
        })
    }

    fn numbered(symbol: &str, n: &str) -> Result<Relation, String> {
        let bad = || format!("Unrecognized compound relation {symbol} {n}");
        let i: i32 = match symbol {
            "<" | ">" => n.parse().map_err(|_| bad())?,
            _ => return Err(bad()),
        };
        if i == 0 {
            return Err("Error -- no such thing as zeroth child!".into());
        }
        Ok(if symbol == "<" {
            Relation::HasIthChild(i)
        } else {
            Relation::IthChildOf(i)
        })
    }

    fn with_label(symbol: &str, arg: &str) -> Result<Relation, String> {
        let p = PathLabel::new(arg)?;
        Ok(match symbol {
            "<+" => Relation::UnbrokenDominates(p),
            ">+" => Relation::UnbrokenDominatedBy(p),
            ".+" => Relation::UnbrokenPrecedes(p),
            ",+" => Relation::UnbrokenFollows(p),
            _ => return Err(format!("Unrecognized compound relation {symbol} {arg}")),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The lexer and parser (`TregexParser.jj`)

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Relation(String),
    MultiRelation,
    RelWithArg(String),
    Number(String),
    Identifier(String),
    Blank,
    Regex(String),
    Punct(char),
}

const PUNCT: &[char] = &[
    '|', '\n', '(', ')', '!', '@', '#', '%', '=', '~', '&', '?', '[', ']', '{', ';', '}',
];

const RELATIONS: &[&str] = &[
    "<<", ">>", "<", ">", "$", "..", ".", ",,", ",", "<<,", "<<-", ">>,", ">>-", "<,", ">,", "<-",
    ">-", "<`", ">`", "<<`", ">>`", "<:", ">:", "<<:", ">>:", "$++", "$--", "$+", "$-", "<#",
    "<<#", ">#", ">>#", "==", "$.", "$..", "$,", "$,,", ":", "<=",
];

fn identifier_start(c: char) -> bool {
    !matches!(
        c,
        ' ' | '0'
            ..='9'
                | '\n'
                | '\r'
                | '('
                | '/'
                | '|'
                | '@'
                | '!'
                | '#'
                | '%'
                | '&'
                | ')'
                | '='
                | '?'
                | '['
                | ']'
                | '>'
                | '<'
                | '~'
                | '_'
                | '.'
                | ','
                | '$'
                | ':'
                | '{'
                | '}'
                | ';'
    )
}

fn identifier_part(c: char) -> bool {
    !matches!(
        c,
        ' ' | '\n'
            | '\r'
            | '('
            | '/'
            | '@'
            | '!'
            | '#'
            | '%'
            | '&'
            | ')'
            | '='
            | '?'
            | '['
            | ']'
            | '>'
            | '<'
            | '~'
            | '.'
            | ','
            | '$'
            | ':'
    )
}

/// JavaCC's rule: the longest token wins, ties go to the kind declared first.
fn tokenize(s: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = s.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == ' ' || c == '\r' || c == '\t' {
            i += 1;
            continue;
        }
        let rest = &chars[i..];
        let starts = |lit: &str| {
            lit.chars().count() <= rest.len() && lit.chars().zip(rest).all(|(a, &b)| a == b)
        };
        // (length, kind order, token)
        let mut best: Option<(usize, usize, Tok)> = None;
        let mut offer = |len: usize, kind: usize, tok: Tok| {
            if len > 0
                && best
                    .as_ref()
                    .is_none_or(|(l, k, _)| len > *l || (len == *l && kind < *k))
            {
                best = Some((len, kind, tok));
            }
        };
        if let Some(r) = RELATIONS
            .iter()
            .filter(|r| starts(r))
            .max_by_key(|r| r.len())
        {
            offer(r.chars().count(), 0, Tok::Relation((*r).to_string()));
        }
        if starts("<...") {
            offer(4, 1, Tok::MultiRelation);
        }
        if let Some(r) = ["<+", ">+", ".+", ",+"].iter().find(|r| starts(r)) {
            offer(2, 2, Tok::RelWithArg((*r).to_string()));
        }
        {
            let sign = usize::from(c == '-');
            let digits = rest[sign..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if digits > 0 {
                offer(
                    sign + digits,
                    3,
                    Tok::Number(rest[..sign + digits].iter().collect()),
                );
            }
        }
        if identifier_start(c) {
            let len = 1 + rest[1..]
                .iter()
                .take_while(|&&c| identifier_part(c))
                .count();
            offer(len, 4, Tok::Identifier(rest[..len].iter().collect()));
        }
        if starts("__") {
            offer(2, 5, Tok::Blank);
        }
        if c == '/' {
            // The body may hold `\/`; a `/` not after a backslash closes it for good.
            let mut end = None;
            let mut j = 1;
            while j < rest.len() {
                match rest[j] {
                    '\n' | '\r' => break,
                    '/' if rest[j - 1] == '\\' && j > 1 => end = Some(j),
                    '/' => {
                        end = Some(j);
                        break;
                    }
                    _ => {}
                }
                j += 1;
            }
            if let Some(e) = end {
                offer(e + 1, 6, Tok::Regex(rest[..=e].iter().collect()));
            }
        }
        if PUNCT.contains(&c) {
            offer(1, 8, Tok::Punct(c));
        }
        match best {
            Some((len, _, tok)) => {
                toks.push(tok);
                i += len;
            }
            None => return Err(format!("lexical error at character {i} ({c:?})")),
        }
    }
    Ok(toks)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    under_negation: bool,
    known: HashSet<String>,
    names: Vec<String>,
    vars: Vec<String>,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn peek2(&self) -> Option<&Tok> {
        self.toks.get(self.pos + 1)
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.is_punct(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!(
                "expected {c:?} at token {}, found {:?}",
                self.pos,
                self.peek()
            ))
        }
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn identifier(&mut self) -> Result<String, String> {
        match self.next() {
            Some(Tok::Identifier(s)) => Ok(s),
            t => Err(format!("expected an identifier, found {t:?}")),
        }
    }

    fn slot(&mut self, name: &str) -> usize {
        match self.names.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                self.names.push(name.to_string());
                self.names.len() - 1
            }
        }
    }

    fn var_slot(&mut self, name: &str) -> usize {
        match self.vars.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                self.vars.push(name.to_string());
                self.vars.len() - 1
            }
        }
    }

    /// Tokens a child relation can start with (`ModChild`).
    fn starts_child(t: Option<&Tok>) -> bool {
        matches!(
            t,
            Some(
                Tok::Punct('!' | '?' | '[' | '(')
                    | Tok::Relation(_)
                    | Tok::RelWithArg(_)
                    | Tok::MultiRelation
            )
        )
    }

    fn starts_subnode(t: Option<&Tok>) -> bool {
        matches!(
            t,
            Some(
                Tok::Punct('(' | '!' | '@' | '~' | '=')
                    | Tok::Identifier(_)
                    | Tok::Regex(_)
                    | Tok::Blank
            )
        )
    }

    fn root(&mut self) -> Result<PNode, String> {
        let mut nodes = vec![self.sub_node(Relation::Root)?];
        while self.is_punct('|') && Parser::starts_subnode(self.peek2()) {
            self.pos += 1;
            nodes.push(self.sub_node(Relation::Root)?);
        }
        self.expect('\n')?;
        if self.pos != self.toks.len() {
            return Err("trailing tokens".into());
        }
        Ok(if nodes.len() == 1 {
            nodes.pop().ok_or("no node")?
        } else {
            PNode::Coord(CoordPat {
                conj: false,
                children: nodes,
                negated: false,
                optional: false,
            })
        })
    }

    fn node(&mut self, rel: Relation) -> Result<PNode, String> {
        if self.is_punct('(') {
            self.pos += 1;
            let n = self.sub_node(rel)?;
            self.expect(')')?;
            Ok(n)
        } else {
            self.mod_description(rel)
        }
    }

    fn sub_node(&mut self, rel: Relation) -> Result<PNode, String> {
        if self.is_punct('(') {
            self.pos += 1;
            let mut result = self.sub_node(rel)?;
            self.expect(')')?;
            if Parser::starts_child(self.peek()) {
                let child = self.children_disj()?;
                let PNode::Desc(d) = &mut result else {
                    return Err("not a description".into());
                };
                let mut kids: Vec<PNode> = d.child.take().into_iter().collect();
                kids.push(child);
                if kids.len() < 2 {
                    return Err("Coordination node must have at least 2 children.".into());
                }
                d.child = Some(PNode::Coord(CoordPat {
                    conj: true,
                    children: kids,
                    negated: false,
                    optional: false,
                }));
            }
            Ok(result)
        } else {
            let mut result = self.mod_description(rel)?;
            if Parser::starts_child(self.peek()) {
                let child = self.children_disj()?;
                if let PNode::Desc(d) = &mut result {
                    d.child = Some(child);
                }
            }
            Ok(result)
        }
    }

    fn mod_description(&mut self, rel: Relation) -> Result<PNode, String> {
        let neg = self.is_punct('!');
        if neg {
            self.pos += 1;
        }
        let cat = self.is_punct('@');
        if cat {
            self.pos += 1;
        }
        self.description(rel, neg, cat)
    }

    fn description(
        &mut self,
        rel: Relation,
        neg_desc: bool,
        basic_cat: bool,
    ) -> Result<PNode, String> {
        let mut d = DescPat {
            rel,
            neg_desc,
            label: None,
            basic_cat,
            name: None,
            link: None,
            var_groups: Vec::new(),
            child: None,
            negated: false,
            optional: false,
        };
        match self.next() {
            Some(t @ (Tok::Identifier(_) | Tok::Regex(_) | Tok::Blank)) => {
                let desc = match t {
                    Tok::Identifier(s) | Tok::Regex(s) => s,
                    _ => "__".to_string(),
                };
                d.label = Some(LabelMatch::from_description(&desc)?);
                while self.is_punct('#') {
                    self.pos += 1;
                    let group = match self.next() {
                        Some(Tok::Number(n)) => n.parse().map_err(|_| format!("bad group {n}"))?,
                        t => return Err(format!("expected a group number, found {t:?}")),
                    };
                    self.expect('%')?;
                    let var = self.identifier()?;
                    let slot = self.var_slot(&var);
                    d.var_groups.push((group, slot));
                }
                if self.is_punct('=') {
                    d.name = Some(self.declare(true)?);
                }
            }
            Some(Tok::Punct('~')) => {
                let linked = self.identifier()?;
                if !self.known.contains(&linked) {
                    return Err(format!(
                        "Variable {linked} was referenced before it was declared"
                    ));
                }
                d.link = Some(self.slot(&linked));
                if self.is_punct('=') {
                    // Tregex does not check negation for a name after a link.
                    d.name = Some(self.declare(false)?);
                }
            }
            Some(Tok::Punct('=')) => {
                let name = self.identifier()?;
                if !self.known.contains(&name) {
                    return Err(format!(
                        "Variable {name} was referenced before it was declared"
                    ));
                }
                d.name = Some(self.slot(&name));
            }
            t => return Err(format!("expected a node description, found {t:?}")),
        }
        Ok(PNode::Desc(Box::new(d)))
    }

    /// `=name` declaring a node name (the `=` not yet consumed): refused when the name is
    /// declared already, or (with `check_negation`) under a negation.
    fn declare(&mut self, check_negation: bool) -> Result<usize, String> {
        self.pos += 1;
        let name = self.identifier()?;
        if !self.known.insert(name.clone()) {
            return Err(format!(
                "Variable {name} has been declared twice, which makes no sense"
            ));
        }
        if check_negation && self.under_negation {
            return Err("No named tregex nodes allowed in the scope of negation.".into());
        }
        Ok(self.slot(&name))
    }

    fn children_disj(&mut self) -> Result<PNode, String> {
        let original = self.known.clone();
        let mut all = self.known.clone();
        let mut children = vec![self.children_conj()?];
        all.extend(self.known.iter().cloned());
        while self.is_punct('|') && Parser::starts_child(self.peek2()) {
            self.known = original.clone();
            self.pos += 1;
            children.push(self.children_conj()?);
            all.extend(self.known.iter().cloned());
        }
        self.known = all;
        Ok(if children.len() == 1 {
            children.pop().ok_or("no child")?
        } else {
            PNode::Coord(CoordPat {
                conj: false,
                children,
                negated: false,
                optional: false,
            })
        })
    }

    fn children_conj(&mut self) -> Result<PNode, String> {
        let mut children = vec![self.mod_child()?];
        loop {
            if self.is_punct('&') {
                self.pos += 1;
                children.push(self.mod_child()?);
            } else if Parser::starts_child(self.peek()) {
                children.push(self.mod_child()?);
            } else {
                break;
            }
        }
        Ok(if children.len() == 1 {
            children.pop().ok_or("no child")?
        } else {
            PNode::Coord(CoordPat {
                conj: true,
                children,
                negated: false,
                optional: false,
            })
        })
    }

    fn mod_child(&mut self) -> Result<PNode, String> {
        if self.is_punct('!') {
            self.pos += 1;
            let was = self.under_negation;
            self.under_negation = true;
            let mut c = self.mod_child()?;
            self.under_negation = was;
            c.negate()?;
            Ok(c)
        } else if self.is_punct('?') {
            self.pos += 1;
            let mut c = self.child()?;
            c.make_optional()?;
            Ok(c)
        } else {
            self.child()
        }
    }

    fn child(&mut self) -> Result<PNode, String> {
        if self.is_punct('[') {
            self.pos += 1;
            let c = self.children_disj()?;
            self.expect(']')?;
            Ok(c)
        } else if self.is_punct('(') {
            self.pos += 1;
            let c = self.children_disj()?;
            self.expect(')')?;
            Ok(c)
        } else {
            self.relation()
        }
    }

    fn relation(&mut self) -> Result<PNode, String> {
        match self.next() {
            Some(Tok::Relation(sym)) => {
                let rel = if let Some(Tok::Number(n)) = self.peek().cloned() {
                    self.pos += 1;
                    match sym.strip_suffix('-') {
                        Some(s) => Relation::numbered(s, &format!("-{n}"))?,
                        None => Relation::numbered(&sym, &n)?,
                    }
                } else {
                    Relation::simple(&sym)?
                };
                self.node(rel)
            }
            Some(Tok::RelWithArg(sym)) => {
                let close = match self.peek() {
                    Some(Tok::Punct('(')) => Some(')'),
                    Some(Tok::Punct('[')) => Some(']'),
                    _ => None,
                };
                if close.is_some() {
                    self.pos += 1;
                }
                let mut arg = String::new();
                if self.is_punct('!') {
                    self.pos += 1;
                    arg.push('!');
                }
                if close.is_some() && self.is_punct('@') {
                    self.pos += 1;
                    arg.push('@');
                }
                match self.next() {
                    Some(Tok::Regex(s)) => arg.push_str(&s),
                    Some(Tok::Identifier(s)) if close.is_some() => arg.push_str(&s),
                    Some(Tok::Blank) if close.is_some() => arg.push_str("__"),
                    t => return Err(format!("bad argument of {sym}: {t:?}")),
                }
                if let Some(c) = close {
                    self.expect(c)?;
                }
                let rel = Relation::with_label(&sym, &arg)?;
                self.node(rel)
            }
            Some(Tok::MultiRelation) => {
                self.expect('{')?;
                let mut kids = Vec::new();
                if !self.is_punct('}') {
                    kids.push(self.node(Relation::Root)?);
                    while self.is_punct(';') {
                        self.pos += 1;
                        kids.push(self.node(Relation::Root)?);
                    }
                }
                self.expect('}')?;
                // `<... { A ; B }`: `<1 A <2 B !<3 __`.
                let n = kids.len();
                let mut children: Vec<PNode> = Vec::with_capacity(n + 1);
                for (i, mut k) in kids.into_iter().enumerate() {
                    if let PNode::Desc(d) = &mut k {
                        d.rel = Relation::HasIthChild(i as i32 + 1);
                    }
                    children.push(k);
                }
                let mut none = PNode::Desc(Box::new(DescPat {
                    rel: Relation::HasIthChild(n as i32 + 1),
                    neg_desc: false,
                    label: Some(LabelMatch::Anything),
                    basic_cat: false,
                    name: None,
                    link: None,
                    var_groups: Vec::new(),
                    child: None,
                    negated: false,
                    optional: false,
                }));
                none.negate()?;
                children.push(none);
                Ok(PNode::Coord(CoordPat {
                    conj: true,
                    children,
                    negated: false,
                    optional: false,
                }))
            }
            t => Err(format!("expected a relation, found {t:?}")),
        }
    }
}

impl Pattern {
    /// Compiles a pattern as `TregexPattern.compile` does (no macros).
    pub fn compile(source: &str) -> Result<Pattern, TregexError> {
        let err = |message: String| TregexError {
            pattern: source.to_string(),
            message,
        };
        let mut toks = tokenize(source).map_err(err)?;
        toks.push(Tok::Punct('\n'));
        let mut p = Parser {
            toks,
            pos: 0,
            under_negation: false,
            known: HashSet::new(),
            names: Vec::new(),
            vars: Vec::new(),
        };
        let root = p.root().map_err(err)?;
        Ok(Pattern {
            source: source.to_string(),
            root,
            names: p.names,
            vars: p.vars.len(),
        })
    }

    /// Whether the pattern's first node is a plain description that `node`'s label fails, so
    /// that no match is rooted at `node`: a test on one label, made before a matcher is built
    /// or set at the node (the matcher would find the same and stop there).
    fn rejects_root(&self, tree: &TreeView<'_>, node: NodeId) -> bool {
        let PNode::Desc(d) = &self.root else {
            return false;
        };
        let Some(label) = &d.label else {
            return false;
        };
        if d.negated || d.optional || d.neg_desc || !matches!(d.rel, Relation::Root) {
            return false;
        }
        let raw = tree.label(node);
        let v = if d.basic_cat {
            basic_category(raw)
        } else {
            raw
        };
        !label.accepts(v)
    }

    /// A matcher over the whole tree (`TregexPattern.matcher(root, headFinder)`).
    pub fn matcher<'a>(
        &self,
        tree: &'a TreeView<'a>,
        heads: &'a dyn HeadFinder,
    ) -> Matcher<'_, 'a> {
        self.matcher_under(tree, heads, tree.root(), true)
    }

    /// A matcher whose root is `root`, a node of `tree` (`pattern.matcher(t)` on a subtree).
    /// With `parents_outside`, `>` and `>>` climb above `root` as on CoreNLP's trees that know
    /// their parents (`TreeGraphNode`); without, `root` has no parent, as on a plain `Tree`.
    pub fn matcher_under<'a>(
        &self,
        tree: &'a TreeView<'a>,
        heads: &'a dyn HeadFinder,
        root: NodeId,
        parents_outside: bool,
    ) -> Matcher<'_, 'a> {
        Matcher {
            pattern: self,
            ctx: Ctx {
                tree,
                heads,
                root,
                parents_outside,
                names: vec![None; self.names.len()],
                vars: vec![(None, 0); self.vars],
            },
            state: M::new(&self.root, root),
            find_next: None,
            find_current: None,
        }
    }

    /// Every match, in `find()` order: the nodes in preorder, and at each the matches there.
    pub fn matches(&self, tree: &TreeView<'_>, heads: &dyn HeadFinder) -> Vec<Match<'_>> {
        let mut m = self.matcher(tree, heads);
        let mut out = Vec::new();
        while let Some(x) = m.find() {
            out.push(x);
        }
        out
    }

    /// The matches rooted at `node`, in order (`while (m.findAt(node))`).
    pub fn matches_at(
        &self,
        tree: &TreeView<'_>,
        heads: &dyn HeadFinder,
        node: NodeId,
    ) -> Vec<Match<'_>> {
        let mut m = self.matcher(tree, heads);
        let mut out = Vec::new();
        while let Some(x) = m.find_at(node) {
            out.push(x);
        }
        out
    }
}

impl Pattern {
    /// What the pattern compiled to, without its source text: two patterns with the same
    /// structure match the same nodes in the same order.
    pub fn structure(&self) -> String {
        format!("{:?} {:?}", self.root, self.names)
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// `GrammaticalRelation.getRelatedNodes`: the nodes bound to `name` in the matches of each
/// pattern in turn rooted at `node`, each kept once, in the order first found.
pub fn related_nodes(
    patterns: &[Pattern],
    tree: &TreeView<'_>,
    heads: &dyn HeadFinder,
    node: NodeId,
    name: &str,
) -> Vec<NodeId> {
    let mut out: Vec<NodeId> = Vec::new();
    for p in patterns {
        if p.rejects_root(tree, node) {
            continue;
        }
        let mut m = p.matcher(tree, heads);
        while let Some(x) = m.find_at(node) {
            if let Some(t) = x.node(name) {
                if !out.contains(&t) {
                    out.push(t);
                }
            }
        }
    }
    out
}

/// One match: the node it is rooted at and the named nodes bound at that moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match<'p> {
    pub root: NodeId,
    names: &'p [String],
    bound: Vec<Option<NodeId>>,
}

impl Match<'_> {
    /// The node bound to `name` (`TregexMatcher.getNode`).
    pub fn node(&self, name: &str) -> Option<NodeId> {
        let i = self.names.iter().position(|n| n == name)?;
        self.bound[i]
    }

    /// The bound names and their nodes, in the order the pattern first mentions them.
    pub fn bindings(&self) -> impl Iterator<Item = (&str, NodeId)> + '_ {
        self.names
            .iter()
            .zip(&self.bound)
            .filter_map(|(n, b)| b.map(|b| (n.as_str(), b)))
    }
}

// ---------------------------------------------------------------------------------------------
// Matching

struct Ctx<'a> {
    tree: &'a TreeView<'a>,
    heads: &'a dyn HeadFinder,
    root: NodeId,
    parents_outside: bool,
    names: Vec<Option<NodeId>>,
    /// Variable strings: the value and how many matchers set it (`VariableStrings`).
    vars: Vec<(Option<String>, u32)>,
}

impl Ctx<'_> {
    fn parent(&self, n: NodeId) -> Option<NodeId> {
        if n == self.root && !self.parents_outside {
            None
        } else {
            self.tree.parent(n)
        }
    }

    fn kids(&self, n: NodeId) -> &[NodeId] {
        self.tree.children(n)
    }

    fn head(&self, n: NodeId) -> Option<NodeId> {
        self.heads.head(self.tree, n)
    }

    fn set_var(&mut self, v: usize, s: String) {
        let e = &mut self.vars[v];
        e.0 = Some(s);
        e.1 += 1;
    }

    fn unset_var(&mut self, v: usize) {
        let e = &mut self.vars[v];
        if e.1 > 0 {
            e.1 -= 1;
        }
        if e.1 == 0 {
            e.0 = None;
        }
    }

    /// The nodes `rel` offers from `t`, in `searchNodeIterator`'s order.
    /// The nodes `rel` relates to `t`, in Tregex's order, written into `out` (cleared first: a
    /// matcher reuses its buffer from node to node).
    fn candidates(&self, rel: &Relation, t: NodeId, out: &mut Vec<NodeId>) {
        use Relation::*;
        let tree = self.tree;
        out.clear();
        match rel {
            Root | Equals => out.push(t),
            Splitter => out.extend(tree.subtree(self.root)),
            Dominates => out.extend(tree.subtree(t).skip(1)),
            DominatedBy => {
                let mut n = self.parent(t);
                while let Some(p) = n {
                    out.push(p);
                    n = self.parent(p);
                }
            }
            ParentOf => out.extend_from_slice(self.kids(t)),
            ChildOf => out.extend(self.parent(t)),
            Precedes | Follows => {
                let mut stack = Vec::new();
                let mut current = t;
                let mut parent = self.parent(t);
                while let Some(p) = parent {
                    let kids = self.kids(p);
                    if matches!(rel, Precedes) {
                        for &k in kids.iter().rev().take_while(|&&k| k != current) {
                            stack.push(k);
                        }
                    } else {
                        for &k in kids.iter().take_while(|&&k| k != current) {
                            stack.push(k);
                        }
                    }
                    current = p;
                    parent = self.parent(p);
                }
                while let Some(n) = stack.pop() {
                    out.push(n);
                    stack.extend(self.kids(n).iter().rev());
                }
            }
            ImmediatelyPrecedes | ImmediatelyFollows => {
                let forward = matches!(rel, ImmediatelyPrecedes);
                let mut current = t;
                let next = loop {
                    let Some(p) = self.parent(current) else {
                        break None;
                    };
                    let kids = self.kids(p);
                    let edge = if forward { kids.last() } else { kids.first() };
                    if edge != Some(&current) {
                        let i = kids.iter().position(|&k| k == current).unwrap_or(0);
                        break Some(if forward { kids[i + 1] } else { kids[i - 1] });
                    }
                    current = p;
                };
                let mut n = next;
                while let Some(x) = n {
                    out.push(x);
                    n = if forward {
                        self.kids(x).first()
                    } else {
                        self.kids(x).last()
                    }
                    .copied();
                }
            }
            LeftmostDescendant | RightmostDescendant => {
                let mut n = t;
                loop {
                    let kids = self.kids(n);
                    let Some(&k) = (if matches!(rel, LeftmostDescendant) {
                        kids.first()
                    } else {
                        kids.last()
                    }) else {
                        break;
                    };
                    out.push(k);
                    n = k;
                }
            }
            LeftmostDescendantOf | RightmostDescendantOf => {
                let mut last = t;
                while let Some(p) = self.parent(last) {
                    let kids = self.kids(p);
                    let edge = if matches!(rel, LeftmostDescendantOf) {
                        kids.first()
                    } else {
                        kids.last()
                    };
                    if edge != Some(&last) {
                        break;
                    }
                    out.push(p);
                    last = p;
                }
            }
            SisterOf => {
                if let Some(p) = self.parent(t) {
                    out.extend(self.kids(p).iter().filter(|&&k| k != t));
                }
            }
            LeftSisterOf => {
                if let Some(p) = self.parent(t) {
                    out.extend(self.kids(p).iter().rev().take_while(|&&k| k != t));
                }
            }
            RightSisterOf => {
                if let Some(p) = self.parent(t) {
                    out.extend(self.kids(p).iter().take_while(|&&k| k != t));
                }
            }
            ImmediateLeftSisterOf | ImmediateRightSisterOf => {
                if t != self.root {
                    if let Some(p) = self.parent(t) {
                        let kids = self.kids(p);
                        let i = kids.iter().position(|&k| k == t).unwrap_or(0);
                        if matches!(rel, ImmediateLeftSisterOf) {
                            out.extend(kids.get(i + 1));
                        } else if i > 0 {
                            out.push(kids[i - 1]);
                        }
                    }
                }
            }
            OnlyChildOf => {
                if t != self.root {
                    if let Some(p) = self.parent(t) {
                        if self.kids(p).len() == 1 {
                            out.push(p);
                        }
                    }
                }
            }
            HasOnlyChild => {
                if self.kids(t).len() == 1 {
                    out.push(self.kids(t)[0]);
                }
            }
            UnaryPathAncestorOf => {
                let mut n = t;
                while self.kids(n).len() == 1 {
                    n = self.kids(n)[0];
                    out.push(n);
                }
            }
            UnaryPathDescendantOf => {
                let mut n = t;
                while let Some(p) = self.parent(n) {
                    if self.kids(p).len() != 1 {
                        break;
                    }
                    out.push(p);
                    n = p;
                }
            }
            ParentEquals => {
                out.push(t);
                out.extend_from_slice(self.kids(t));
            }
            Heads => {
                let mut last = t;
                while let Some(p) = self.parent(last) {
                    if self.head(p) != Some(last) {
                        break;
                    }
                    out.push(p);
                    last = p;
                }
            }
            HeadedBy => {
                let mut n = t;
                while !tree.is_leaf(n) {
                    let Some(h) = self.head(n) else { break };
                    out.push(h);
                    n = h;
                }
            }
            ImmediatelyHeads => {
                if t != self.root {
                    if let Some(p) = self.parent(t) {
                        if self.head(p) == Some(t) {
                            out.push(p);
                        }
                    }
                }
            }
            ImmediatelyHeadedBy => {
                if !tree.is_leaf(t) {
                    out.extend(self.head(t));
                }
            }
            HasIthChild(i) => {
                let kids = self.kids(t);
                if kids.len() >= i.unsigned_abs() as usize {
                    out.push(if *i > 0 {
                        kids[*i as usize - 1]
                    } else {
                        kids[kids.len() - i.unsigned_abs() as usize]
                    });
                }
            }
            IthChildOf(i) => {
                if t != self.root {
                    if let Some(p) = self.parent(t) {
                        let kids = self.kids(p);
                        let n = i.unsigned_abs() as usize;
                        if kids.len() >= n {
                            let k = if *i > 0 {
                                kids[n - 1]
                            } else {
                                kids[kids.len() - n]
                            };
                            if k == t {
                                out.push(p);
                            }
                        }
                    }
                }
            }
            UnbrokenDominates(path) => {
                let mut stack: Vec<NodeId> = self.kids(t).iter().rev().copied().collect();
                while let Some(n) = stack.pop() {
                    out.push(n);
                    if path.matches(tree.label(n)) {
                        stack.extend(self.kids(n).iter().rev());
                    }
                }
            }
            UnbrokenDominatedBy(path) => {
                let mut n = self.parent(t);
                while let Some(p) = n {
                    out.push(p);
                    n = if path.matches(tree.label(p)) {
                        self.parent(p)
                    } else {
                        None
                    };
                }
            }
            UnbrokenPrecedes(path) | UnbrokenFollows(path) => {
                let forward = matches!(rel, UnbrokenPrecedes(_));
                let mut seen = HashSet::new();
                self.unbroken_sequence(path, forward, t, out, &mut seen);
                out.reverse();
            }
        }
    }

    /// `UnbrokenCategoryPrecedes`'s (and `Follows`') stack, in the order pushed.
    fn unbroken_sequence(
        &self,
        path: &PathLabel,
        forward: bool,
        node: NodeId,
        stack: &mut Vec<NodeId>,
        seen: &mut HashSet<NodeId>,
    ) {
        if node == self.root {
            return;
        }
        let mut node = node;
        let Some(mut parent) = self.parent(node) else {
            return;
        };
        let index = |p: NodeId, n: NodeId| self.kids(p).iter().position(|&k| k == n).unwrap_or(0);
        let mut i = index(parent, node);
        let at_edge = |p: NodeId, i: usize| {
            if forward {
                i + 1 == self.kids(p).len()
            } else {
                i == 0
            }
        };
        while at_edge(parent, i) && parent != self.root {
            node = parent;
            let Some(p) = self.parent(parent) else { return };
            parent = p;
            i = index(parent, node);
        }
        let kids = self.kids(parent);
        let mut next = if forward {
            kids.get(i + 1).copied()
        } else {
            i.checked_sub(1).map(|j| kids[j])
        };
        while let Some(n) = next {
            if seen.insert(n) {
                stack.push(n);
            }
            if path.matches(self.tree.label(n)) {
                self.unbroken_sequence(path, forward, n, stack, seen);
            }
            next = self.kids(n).first().copied();
        }
    }
}

/// The matcher of one pattern node: Tregex's matcher objects, one per pattern node, each with
/// the tree node its relation starts from.
enum M<'p> {
    Desc(DescM<'p>),
    Coord(CoordM<'p>),
}

struct DescM<'p> {
    pat: &'p DescPat,
    tree: NodeId,
    /// The nodes the relation gives at the current node, once read (`ready`), and how many of
    /// them have been tried.
    candidates: Vec<NodeId>,
    ready: bool,
    tried: usize,
    child: Option<Box<M<'p>>>,
    next: Option<NodeId>,
    finished: bool,
    matched_once: bool,
    committed: bool,
}

struct CoordM<'p> {
    pat: &'p CoordPat,
    tree: NodeId,
    children: Vec<Option<M<'p>>>,
    /// Which child is being matched; -1 once a considered-all coordination is spent.
    current: isize,
}

impl<'p> M<'p> {
    fn new(pat: &'p PNode, tree: NodeId) -> M<'p> {
        match pat {
            PNode::Desc(d) => M::Desc(DescM {
                pat: d,
                tree,
                candidates: Vec::new(),
                ready: false,
                tried: 0,
                child: None,
                next: None,
                finished: false,
                matched_once: false,
                committed: false,
            }),
            PNode::Coord(c) => M::Coord(CoordM {
                pat: c,
                tree,
                children: c.children.iter().map(|_| None).collect(),
                current: 0,
            }),
        }
    }

    /// `resetChildIter()`.
    fn reset(&mut self, ctx: &mut Ctx<'_>) {
        match self {
            M::Desc(d) => d.reset(ctx),
            M::Coord(c) => {
                c.current = 0;
                for m in c.children.iter_mut().flatten() {
                    m.reset(ctx);
                }
            }
        }
    }

    /// `resetChildIter(tree)`.
    fn reset_at(&mut self, tree: NodeId, ctx: &mut Ctx<'_>) {
        match self {
            M::Desc(d) => {
                d.tree = tree;
                d.reset(ctx);
            }
            M::Coord(c) => {
                c.tree = tree;
                c.current = 0;
                for m in c.children.iter_mut().flatten() {
                    m.reset_at(tree, ctx);
                }
            }
        }
    }

    fn matches(&mut self, ctx: &mut Ctx<'_>) -> bool {
        match self {
            M::Desc(d) => d.matches(ctx),
            M::Coord(c) => c.matches(ctx),
        }
    }
}

impl<'p> DescM<'p> {
    fn reset(&mut self, ctx: &mut Ctx<'_>) {
        self.decommit(ctx);
        self.remove_name(ctx);
        self.ready = false;
        self.finished = false;
        self.next = None;
        if let Some(c) = &mut self.child {
            c.reset(ctx);
        }
    }

    fn decommit(&mut self, ctx: &mut Ctx<'_>) {
        if self.committed {
            for &(_, v) in &self.pat.var_groups {
                ctx.unset_var(v);
            }
        }
        self.committed = false;
    }

    fn remove_name(&self, ctx: &mut Ctx<'_>) {
        if let Some(n) = self.pat.name {
            if self.pat.label.is_some() || self.pat.link.is_some() {
                ctx.names[n] = None;
            }
        }
    }

    fn go_to_next_match(&mut self, ctx: &mut Ctx<'_>) {
        self.decommit(ctx);
        self.remove_name(ctx);
        self.finished = true;
        let pat = self.pat;
        if !self.ready {
            ctx.candidates(&pat.rel, self.tree, &mut self.candidates);
            self.ready = true;
            self.tried = 0;
        }
        let mut value: Option<String> = None;
        let mut groups: Vec<Option<String>> = Vec::new();
        while let Some(&c) = self.candidates.get(self.tried) {
            self.tried += 1;
            self.next = Some(c);
            match &pat.label {
                None => {
                    if let Some(link) = pat.link {
                        if let Some(other) = ctx.names[link] {
                            let (a, b) = (ctx.tree.label(other), ctx.tree.label(c));
                            let same = if pat.basic_cat {
                                basic_category(a) == basic_category(b)
                            } else {
                                a == b
                            };
                            if same {
                                self.finished = false;
                                break;
                            }
                        }
                    } else if pat.name.and_then(|n| ctx.names[n]) == Some(c) {
                        self.finished = false;
                        break;
                    }
                }
                Some(label) => {
                    let raw = ctx.tree.label(c);
                    let v = if pat.basic_cat {
                        basic_category(raw)
                    } else {
                        raw
                    };
                    groups.clear();
                    let mut found = label.accepts(v);
                    if found {
                        for &(g, var) in &pat.var_groups {
                            let s = match label {
                                LabelMatch::Regex(r) => r.group(v, g),
                                _ => Some(v.to_string()),
                            };
                            if let Some(set) = &ctx.vars[var].0 {
                                if s.as_ref() != Some(set) {
                                    found = false;
                                    break;
                                }
                            }
                        }
                    }
                    if found != pat.neg_desc {
                        if !pat.var_groups.is_empty() {
                            value = Some(v.to_string());
                        }
                        self.finished = false;
                        break;
                    }
                }
            }
        }
        if !self.finished {
            self.reset_child(ctx);
            if let Some(n) = pat.name {
                if pat.label.is_some() || pat.link.is_some() {
                    ctx.names[n] = self.next;
                }
            }
            if let Some(v) = value {
                if !pat.var_groups.is_empty() {
                    self.committed = true;
                    for &(g, var) in &pat.var_groups {
                        let s = match &pat.label {
                            Some(LabelMatch::Regex(r)) => r.group(&v, g).unwrap_or_default(),
                            _ => v.clone(),
                        };
                        ctx.set_var(var, s);
                    }
                }
            }
        }
    }

    fn reset_child(&mut self, ctx: &mut Ctx<'_>) {
        match &mut self.child {
            None => {
                if self.pat.child.is_none() {
                    self.matched_once = false;
                }
            }
            Some(c) => {
                if let Some(n) = self.next {
                    c.reset_at(n, ctx);
                }
            }
        }
    }

    fn match_child(&mut self, ctx: &mut Ctx<'_>) -> bool {
        let Some(next) = self.next else { return false };
        if self.child.is_none() {
            if let Some(cp) = &self.pat.child {
                self.child = Some(Box::new(M::new(cp, next)));
            }
        }
        match &mut self.child {
            None => {
                if !self.matched_once {
                    self.matched_once = true;
                    true
                } else {
                    false
                }
            }
            Some(c) => c.matches(ctx),
        }
    }

    fn matches(&mut self, ctx: &mut Ctx<'_>) -> bool {
        if self.finished {
            return false;
        }
        while !self.finished {
            if self.match_child(ctx) {
                if self.pat.negated {
                    self.finished = true;
                    return false;
                }
                if self.pat.optional {
                    self.finished = true;
                }
                return true;
            }
            self.go_to_next_match(ctx);
        }
        if self.pat.negated {
            true
        } else {
            self.decommit(ctx);
            self.remove_name(ctx);
            self.next = None;
            self.pat.optional
        }
    }
}

impl<'p> CoordM<'p> {
    fn child(&mut self, i: usize, ctx: &mut Ctx<'_>) -> &mut M<'p> {
        let tree = self.tree;
        let pats: &'p CoordPat = self.pat;
        let pat = &pats.children[i];
        self.children[i].get_or_insert_with(|| {
            let mut m = M::new(pat, tree);
            m.reset_at(tree, ctx);
            m
        })
    }

    fn matches(&mut self, ctx: &mut Ctx<'_>) -> bool {
        let n = self.children.len() as isize;
        let negated = self.pat.negated;
        if self.pat.conj != negated {
            // every child has to be considered
            if self.current < 0 {
                return self.pat.optional;
            }
            if self.current == n {
                self.current -= 1;
            }
            loop {
                let i = self.current as usize;
                let matched = self.child(i, ctx).matches(ctx);
                if negated != matched {
                    self.current += 1;
                    if self.current == n {
                        if negated {
                            self.current = -1;
                        }
                        return true;
                    }
                } else {
                    self.child(i, ctx).reset(ctx);
                    self.current -= 1;
                    if self.current < 0 {
                        return self.pat.optional;
                    }
                }
            }
        } else {
            while self.current < n {
                let i = self.current as usize;
                if negated != self.child(i, ctx).matches(ctx) {
                    if negated {
                        self.current = n;
                    }
                    return true;
                }
                self.current += 1;
            }
            if negated {
                self.current = n;
            }
            for m in self
                .children
                .iter_mut()
                .take(self.current.max(0) as usize)
                .flatten()
            {
                m.reset(ctx);
            }
            self.pat.optional
        }
    }
}

/// A pattern being matched on one tree (`TregexMatcher`).
pub struct Matcher<'p, 'a> {
    pattern: &'p Pattern,
    ctx: Ctx<'a>,
    state: M<'p>,
    find_next: Option<std::ops::Range<NodeId>>,
    find_current: Option<NodeId>,
}

impl<'p> Matcher<'p, '_> {
    fn current_match(&self, root: NodeId) -> Match<'p> {
        Match {
            root,
            names: &self.pattern.names,
            bound: self.ctx.names.clone(),
        }
    }

    /// The next match over the matcher's root subtree in preorder (`find()`).
    pub fn find(&mut self) -> Option<Match<'p>> {
        if self.find_next.is_none() {
            self.find_next = Some(self.ctx.tree.subtree(self.ctx.root));
        }
        if let Some(cur) = self.find_current {
            if self.state.matches(&mut self.ctx) {
                return Some(self.current_match(cur));
            }
        }
        while let Some(n) = self.find_next.as_mut().and_then(Iterator::next) {
            if self.pattern.rejects_root(self.ctx.tree, n) {
                self.find_current = None;
                continue;
            }
            self.find_current = Some(n);
            self.state.reset_at(n, &mut self.ctx);
            if self.state.matches(&mut self.ctx) {
                return Some(self.current_match(n));
            }
        }
        None
    }

    /// The next match rooted at `node` (`findAt(node)`; a matcher serves one node).
    pub fn find_at(&mut self, node: NodeId) -> Option<Match<'p>> {
        match self.find_current {
            Some(cur) => {
                assert_eq!(cur, node, "a Tregex matcher's findAt serves one node");
            }
            None => {
                self.find_current = Some(node);
                self.state.reset_at(node, &mut self.ctx);
            }
        }
        self.state
            .matches(&mut self.ctx)
            .then(|| self.current_match(node))
    }

    /// Whether the pattern matches at the matcher's root, and the next such match on each call
    /// (`matches()` on a fresh matcher).
    pub fn matches(&mut self) -> Option<Match<'p>> {
        let root = self.ctx.root;
        self.state
            .matches(&mut self.ctx)
            .then(|| self.current_match(root))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Preorder ids: 0 ROOT, 1 S, 2 NP, 3 DT, 4 the, 5 JJ, 6 big, 7 NN, 8 dog, 9 VP, 10 VBZ,
    /// 11 barks, 12 ADVP, 13 RB, 14 loudly.
    const TREE: &str =
        "(ROOT (S (NP (DT the) (JJ big) (NN dog)) (VP (VBZ barks) (ADVP (RB loudly)))))";

    /// The head is the last child.
    struct LastChild;

    impl HeadFinder for LastChild {
        fn head(&self, tree: &TreeView<'_>, node: NodeId) -> Option<NodeId> {
            tree.children(node).last().copied()
        }
    }

    fn run(pattern: &str, name: &str) -> Vec<(NodeId, Option<NodeId>)> {
        let tree = Tree::from_penn(TREE).expect("tree");
        let view = TreeView::new(&tree);
        let p = Pattern::compile(pattern).expect("pattern");
        p.matches(&view, &LastChild)
            .iter()
            .map(|m| (m.root, m.node(name)))
            .collect()
    }

    /// The nodes bound to `x`, match after match.
    fn xs(pattern: &str) -> Vec<NodeId> {
        run(pattern, "x")
            .into_iter()
            .map(|(_, x)| x.expect("x bound"))
            .collect()
    }

    fn roots(pattern: &str) -> Vec<NodeId> {
        run(pattern, "x").into_iter().map(|(r, _)| r).collect()
    }

    #[test]
    fn tree_view_is_preorder_with_leaves() {
        let tree = Tree::from_penn(TREE).expect("tree");
        let v = TreeView::new(&tree);
        assert_eq!(v.len(), 15);
        assert_eq!(
            (v.label(7), v.label(8), v.parent(8)),
            ("NN", "dog", Some(7))
        );
        assert_eq!(v.children(2), &[3, 5, 7]);
        assert_eq!(v.subtree(9), 9..15);
        assert_eq!(v.position(5), Some(1));
    }

    #[test]
    fn descriptions() {
        assert_eq!(roots("NN"), [7]);
        assert_eq!(roots("__").len(), 15, "leaves are nodes too");
        assert_eq!(roots("/^N/"), [2, 7]);
        assert_eq!(roots("NN|DT"), [3, 7]);
        assert_eq!(roots("!/^[A-Z]/"), [4, 6, 8, 11, 14]);
        assert_eq!(roots("/^(?i:DOG)$/"), [8]);
        assert_eq!(roots("/^(?!DT).*T/"), [0], "lookahead, as in Java");
        let tree = Tree::from_penn("(ROOT (NP-TMP (NN today)))").expect("tree");
        let view = TreeView::new(&tree);
        let count = |p: &str| {
            Pattern::compile(p)
                .expect("pattern")
                .matches(&view, &NoHeads)
                .len()
        };
        assert_eq!(
            (count("NP"), count("@NP")),
            (0, 1),
            "@ compares basic categories"
        );
    }

    #[test]
    fn dominance() {
        assert_eq!(xs("NP < __=x"), [3, 5, 7]);
        assert_eq!(xs("RB > __=x"), [12]);
        assert_eq!(xs("VP << __=x"), [10, 11, 12, 13, 14]);
        assert_eq!(xs("RB >> __=x"), [12, 9, 1, 0]);
        assert_eq!(xs("NP <2 __=x"), [5]);
        assert_eq!(xs("NP <-1 __=x"), [7]);
        assert_eq!(xs("NP <, __=x"), [3]);
        assert_eq!(xs("NP <- __=x"), [7]);
        assert_eq!(xs("NP <` __=x"), [7]);
        assert_eq!(xs("JJ >2 __=x"), [2]);
        assert_eq!(xs("NN >-1 __=x"), [2]);
        assert_eq!(xs("DT >, __=x"), [2]);
        assert_eq!(xs("NN >- __=x"), [2]);
        assert!(xs("JJ >1 __=x").is_empty());
        assert_eq!(xs("S <<, __=x"), [2, 3, 4]);
        assert_eq!(xs("S <<- __=x"), [9, 12, 13, 14]);
        assert_eq!(xs("DT >>, __=x"), [2, 1, 0]);
        assert_eq!(xs("RB >>- __=x"), [12, 9, 1, 0]);
        assert_eq!(xs("ADVP <: __=x"), [13]);
        assert_eq!(xs("RB >: __=x"), [12]);
        assert_eq!(xs("ADVP <<: __=x"), [13, 14]);
        assert_eq!(xs("RB >>: __=x"), [12]);
        assert_eq!(xs("ADVP <= __=x"), [12, 13]);
        assert_eq!(xs("NP == __=x"), [2]);
        assert_eq!(xs("NP <... { DT ; JJ ; __=x }"), [7]);
        assert!(xs("NP <... { DT ; JJ ; __=x ; __ }").is_empty());
    }

    #[test]
    fn sisters_in_tregex_order() {
        assert_eq!(xs("JJ $ __=x"), [3, 7]);
        assert_eq!(xs("DT $++ __=x"), [7, 5], "the farthest right sister first");
        assert_eq!(xs("DT $.. __=x"), [7, 5]);
        assert_eq!(xs("NN $-- __=x"), [3, 5]);
        assert_eq!(xs("NN $,, __=x"), [3, 5]);
        assert_eq!(xs("DT $+ __=x"), [5]);
        assert_eq!(xs("DT $. __=x"), [5]);
        assert_eq!(xs("NN $- __=x"), [5]);
        assert_eq!(xs("NN $, __=x"), [5]);
        assert!(xs("ROOT $ __=x").is_empty());
    }

    #[test]
    fn precedence_in_tregex_order() {
        // the highest ancestor's sisters first, then nearer ones
        assert_eq!(xs("DT .. __=x"), [9, 10, 11, 12, 13, 14, 5, 6, 7, 8]);
        assert_eq!(xs("JJ ,, __=x"), [3, 4]);
        assert_eq!(xs("RB ,, __=x"), [2, 3, 4, 5, 6, 7, 8, 10, 11]);
        assert_eq!(xs("JJ . __=x"), [7, 8]);
        assert_eq!(xs("NN . __=x"), [9, 10, 11]);
        assert_eq!(xs("VP , __=x"), [2, 7, 8]);
        assert!(xs("RB . __=x").is_empty());
    }

    #[test]
    fn unbroken_categories() {
        assert_eq!(xs("S <+(VP|ADVP) __=x"), [2, 9, 10, 12, 13]);
        assert_eq!(xs("RB >+(ADVP|VP) __=x"), [12, 9, 1]);
        assert_eq!(xs("RB >+(/^[A-Z]/) __=x"), [12, 9, 1, 0]);
        assert_eq!(xs("DT .+(JJ) __=x"), [6, 8, 7, 5]);
        assert_eq!(xs("NN ,+(JJ) __=x"), [6, 4, 3, 5]);
    }

    #[test]
    fn heads() {
        assert_eq!(xs("NP <# __=x"), [7]);
        assert_eq!(xs("NP <<# __=x"), [7, 8]);
        assert_eq!(xs("NN ># __=x"), [2]);
        assert_eq!(xs("NN >># __=x"), [2], "NP does not head S");
        assert_eq!(xs("RB >># __=x"), [12, 9, 1, 0]);
    }

    #[test]
    fn negation_optionality_disjunction() {
        assert_eq!(roots("NP !< VBZ"), [2]);
        assert_eq!(roots("__ < DT !< JJ"), Vec::<NodeId>::new());
        assert_eq!(roots("/^[NV]P$/ !< NN"), [9]);
        assert_eq!(run("/^[NV]P$/ ?< NN=x", "x"), [(2, Some(7)), (9, None)]);
        assert_eq!(
            run("NP [ < DT=x | < NN=x ]", "x"),
            [(2, Some(3)), (2, Some(7))]
        );
        assert_eq!(roots("NP < (DT $+ JJ) < NN"), [2]);
        assert_eq!(roots("NP < DT & < NN"), [2]);
        assert_eq!(roots("NP < DT | VP < VBZ"), [2, 9]);
        assert_eq!(roots("(NP < DT) < NN"), [2]);
        assert_eq!(roots("NP [ !< DT | !< JJ ]"), Vec::<NodeId>::new());
    }

    #[test]
    fn names_links_and_variables() {
        // a back-reference is the very node bound before
        assert_eq!(xs("DT=x : (JJ $- =x)"), [3]);
        // a link is any node with the same label
        let tree = Tree::from_penn("(ROOT (NP (NP (NN a)) (NP (NN b))))").expect("tree");
        let view = TreeView::new(&tree);
        let ps = |p: &str| -> Vec<NodeId> {
            Pattern::compile(p)
                .expect("pattern")
                .matches(&view, &NoHeads)
                .iter()
                .map(|m| m.root)
                .collect()
        };
        assert_eq!(ps("__=x < ~x"), [1, 1]);
        assert_eq!(ps("NP=x <: (~x <: NN)"), Vec::<NodeId>::new());
        // a variable group makes two labels agree
        assert_eq!(ps("/^(N)/#1%v < /^(N)N/#1%v"), [2, 5]);
    }

    #[test]
    fn related_nodes_keep_first_order_once() {
        let tree = Tree::from_penn(TREE).expect("tree");
        let view = TreeView::new(&tree);
        let patterns: Vec<Pattern> = ["NP < (/^(?:NN|JJ)$/=target)", "NP < (__=target !< dog)"]
            .iter()
            .map(|p| Pattern::compile(p).expect("pattern"))
            .collect();
        assert_eq!(
            related_nodes(&patterns, &view, &NoHeads, 2, "target"),
            [5, 7, 3]
        );
    }

    #[test]
    fn subtree_matcher() {
        let tree = Tree::from_penn(TREE).expect("tree");
        let view = TreeView::new(&tree);
        let p = Pattern::compile("__ > __=x").expect("pattern");
        let found = |outside: bool| {
            let mut m = p.matcher_under(&view, &NoHeads, 9, outside);
            let mut out = Vec::new();
            while let Some(x) = m.find() {
                out.push((x.root, x.node("x")));
            }
            out
        };
        assert_eq!(
            found(false)[0],
            (10, Some(9)),
            "the root is not offered: it has no parent"
        );
        assert_eq!(found(true)[0], (9, Some(1)));
    }

    #[test]
    fn bad_patterns_are_refused_as_tregex_refuses_them() {
        for p in [
            "NP=a < NN=a",
            "NP < =b",
            "NP !< NN=x",
            "(NP) < DT",
            "NP <0 DT",
            "NP <<,2 DT",
            "NP < ",
            "NP < (DT",
            "_",
            "NP < /a/b/",
        ] {
            assert!(Pattern::compile(p).is_err(), "{p}");
        }
    }

    #[test]
    fn tokens_follow_javacc() {
        let t = tokenize("NP|NN<-1 $++/a\\/b/=x").expect("tokens");
        assert_eq!(
            t,
            [
                Tok::Identifier("NP|NN".into()),
                Tok::Relation("<-".into()),
                Tok::Number("1".into()),
                Tok::Relation("$++".into()),
                Tok::Regex("/a\\/b/".into()),
                Tok::Punct('='),
                Tok::Identifier("x".into()),
            ]
        );
    }
}
