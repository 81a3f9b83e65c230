//! Dependency parsing: tagged tokens in, a basic Universal Dependencies tree out (CoreNLP 3.6.0's
//! UD v1 labels: `nsubj`, `dobj`, `nmod`, `case`, `acl`, `compound`, ...).
//!
//! In: the words of one sentence and their Penn Treebank tags (from `tag`). Out: for each token its
//! head (1-based, 0 = the root) and label; exactly one token hangs from the root. `Parser::graph`
//! wraps the result in a [`DepGraph`] with empty lemmas, for `lemmatize` and then `enhance` (which
//! collapses prepositions into `nmod:on` and propagates conjuncts; the model never learns that).
//!
//! The parser is a greedy transition-based parser: the arc-hybrid system (Kuhlmann et al. 2011),
//! scored by an averaged perceptron with Zhang & Nivre (2011)-style feature templates (words, tags,
//! labels of the stack and buffer tokens and their outermost children, distances, valencies), and
//! trained with Goldberg & Nivre's (2013) dynamic oracle so that it learns to recover from its own
//! mistakes. Each token is shifted once and reduced once, so time is linear in sentence length.
//! The trees it learns are those of CoreNLP's unlexicalized PCFG, which sees the whole sentence
//! before it commits to any constituent: so some features read the sentence as a whole (what
//! kinds of verb and function word come after the buffer's front and before it, whether there is a
//! finite verb and a full stop, the first tag, how many gerunds and finite verbs; see
//! `Sentence`).
//!
//! Single root: the artificial root 0 sits at the bottom of the stack, and the only transition
//! that may attach a token to it is the very last one (stack `[0, x]`, buffer empty).

use std::sync::OnceLock;

use crate::depgraph::{DepGraph, Rel, Token};
use crate::perceptron::{self, feat, hash_str, shuffle, ModelError, Trainer, Weights};
use crate::tag::{verb_kind, word_key, Tagger};

/// Declares [`LABELS`], a [`Label`] constant for each (`Label::NSUBJ`, `Label::NMOD_POSS`, ...),
/// numbered in list order, and the graph relation of each (`Rel::NSUBJ`, ...).
macro_rules! labels {
    ($($konst:ident = $name:literal,)*) => {
        /// Every dependency label a model may use: the basic UD v1 relations CoreNLP 3.6.0 produces.
        pub const LABELS: &[&str] = &[$($name),*];

        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[repr(u8)]
        enum LabelIndex {
            $($konst),*
        }

        impl Label {
            $(pub const $konst: Label = Label(LabelIndex::$konst as u8);)*

            /// The label called `name`, if it is one of [`LABELS`].
            pub fn from_name(name: &str) -> Option<Label> {
                // A `match` on the strings: every relation name read or built is looked up here.
                match name {
                    $($name => Some(Label::$konst),)*
                    _ => None,
                }
            }
        }

        impl Rel {
            $(pub const $konst: Rel = Rel::label(Label::$konst);)*
        }
    };
}

labels! {
    ROOT = "root",
    DEP = "dep",
    ACL = "acl",
    ACL_RELCL = "acl:relcl",
    ADVCL = "advcl",
    ADVMOD = "advmod",
    AMOD = "amod",
    APPOS = "appos",
    AUX = "aux",
    AUXPASS = "auxpass",
    CASE = "case",
    CC = "cc",
    CC_PRECONJ = "cc:preconj",
    CCOMP = "ccomp",
    COMPOUND = "compound",
    COMPOUND_PRT = "compound:prt",
    CONJ = "conj",
    COP = "cop",
    CSUBJ = "csubj",
    CSUBJPASS = "csubjpass",
    DET = "det",
    DET_PREDET = "det:predet",
    DISCOURSE = "discourse",
    DISLOCATED = "dislocated",
    DOBJ = "dobj",
    EXPL = "expl",
    FOREIGN = "foreign",
    GOESWITH = "goeswith",
    IOBJ = "iobj",
    LIST = "list",
    MARK = "mark",
    MWE = "mwe",
    NAME = "name",
    NEG = "neg",
    NMOD = "nmod",
    NMOD_NPMOD = "nmod:npmod",
    NMOD_POSS = "nmod:poss",
    NMOD_TMOD = "nmod:tmod",
    NSUBJ = "nsubj",
    NSUBJPASS = "nsubjpass",
    NUMMOD = "nummod",
    PARATAXIS = "parataxis",
    PUNCT = "punct",
    REMNANT = "remnant",
    REPARANDUM = "reparandum",
    VOCATIVE = "vocative",
    XCOMP = "xcomp",
}

/// A dependency label (an index into [`LABELS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label(u8);

impl Label {
    pub fn as_str(self) -> &'static str {
        LABELS.get(self.0 as usize).copied().unwrap_or("dep")
    }

    /// Position in [`LABELS`].
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The label at position `i` of [`LABELS`].
    pub(crate) const fn from_index(i: usize) -> Label {
        Label(i as u8)
    }
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The embedded parser model (built by `scripts/train-parser`).
static EMBEDDED: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/models/parser.bin"));
/// A trained parser. Immutable and `Sync`: share one across threads.
#[derive(Debug, Clone)]
pub struct Parser {
    weights: std::sync::Arc<Weights>,
    /// Labels of the model, in class order: class 0 is SHIFT, `1 + i` is LEFT-`labels[i]`,
    /// `1 + n + i` is RIGHT-`labels[i]`.
    labels: Vec<Label>,
    root_label: usize,
}

const NONE: u32 = u32::MAX;

/// Transition names, for the model's class list.
fn class_names(labels: &[Label]) -> Vec<String> {
    let mut v = vec!["SHIFT".to_string()];
    v.extend(labels.iter().map(|l| format!("L-{l}")));
    v.extend(labels.iter().map(|l| format!("R-{l}")));
    v
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Move {
    Shift,
    Left(usize),
    Right(usize),
}

/// A parser configuration: stack, buffer front, and the partial tree with the per-token summaries
/// the features read (outermost children, valency, label sets).
struct State {
    n: usize,
    stack: Vec<u32>,
    /// The buffer is tokens `b..=n`.
    b: usize,
    head: Vec<u32>,
    label: Vec<u8>,
    lc1: Vec<u32>,
    lc2: Vec<u32>,
    rc1: Vec<u32>,
    rc2: Vec<u32>,
    nl: Vec<u8>,
    nr: Vec<u8>,
    lset: Vec<u64>,
    rset: Vec<u64>,
}

impl Default for State {
    fn default() -> State {
        State::new(0)
    }
}

impl State {
    fn new(n: usize) -> State {
        let mut st = State {
            n: 0,
            stack: Vec::new(),
            b: 1,
            head: Vec::new(),
            label: Vec::new(),
            lc1: Vec::new(),
            lc2: Vec::new(),
            rc1: Vec::new(),
            rc2: Vec::new(),
            nl: Vec::new(),
            nr: Vec::new(),
            lset: Vec::new(),
            rset: Vec::new(),
        };
        st.reset(n);
        st
    }

    /// The initial configuration for `n` tokens, reusing this state's allocations.
    fn reset(&mut self, n: usize) {
        let m = n + 1;
        self.n = n;
        self.b = 1;
        self.stack.clear();
        self.stack.push(0);
        for v in [
            &mut self.head,
            &mut self.lc1,
            &mut self.lc2,
            &mut self.rc1,
            &mut self.rc2,
        ] {
            v.clear();
            v.resize(m, NONE);
        }
        for v in [&mut self.label, &mut self.nl, &mut self.nr] {
            v.clear();
            v.resize(m, 0);
        }
        for v in [&mut self.lset, &mut self.rset] {
            v.clear();
            v.resize(m, 0);
        }
    }

    fn terminal(&self) -> bool {
        self.b > self.n && self.stack.len() <= 1
    }

    fn s(&self, k: usize) -> u32 {
        if k < self.stack.len() {
            self.stack[self.stack.len() - 1 - k]
        } else {
            NONE
        }
    }

    fn bq(&self, k: usize) -> u32 {
        if self.b + k <= self.n {
            (self.b + k) as u32
        } else {
            NONE
        }
    }

    fn can_shift(&self) -> bool {
        self.b <= self.n
    }
    fn can_left(&self) -> bool {
        self.stack.len() >= 2 && self.b <= self.n
    }
    /// RIGHT between two real tokens.
    fn can_right(&self) -> bool {
        self.stack.len() >= 3
    }
    /// The final RIGHT from the root.
    fn can_root(&self) -> bool {
        self.stack.len() == 2 && self.b > self.n
    }

    fn add_arc(&mut self, h: u32, d: u32, label: u8) {
        let (hu, du) = (h as usize, d as usize);
        self.head[du] = h;
        self.label[du] = label;
        let bit = 1u64 << (label % 64);
        if d < h {
            if self.lc1[hu] == NONE || d < self.lc1[hu] {
                self.lc2[hu] = self.lc1[hu];
                self.lc1[hu] = d;
            } else if self.lc2[hu] == NONE || d < self.lc2[hu] {
                self.lc2[hu] = d;
            }
            self.nl[hu] = self.nl[hu].saturating_add(1);
            self.lset[hu] |= bit;
        } else {
            if self.rc1[hu] == NONE || d > self.rc1[hu] {
                self.rc2[hu] = self.rc1[hu];
                self.rc1[hu] = d;
            } else if self.rc2[hu] == NONE || d > self.rc2[hu] {
                self.rc2[hu] = d;
            }
            self.nr[hu] = self.nr[hu].saturating_add(1);
            self.rset[hu] |= bit;
        }
    }

    fn apply(&mut self, m: Move) {
        match m {
            Move::Shift => {
                self.stack.push(self.b as u32);
                self.b += 1;
            }
            Move::Left(l) => {
                if let Some(s0) = self.stack.pop() {
                    self.add_arc(self.b as u32, s0, l as u8);
                }
            }
            Move::Right(l) => {
                if let Some(s0) = self.stack.pop() {
                    if let Some(&s1) = self.stack.last() {
                        self.add_arc(s1, s0, l as u8);
                    }
                }
            }
        }
    }
}

// Feature templates. Numbers are part of the model: never renumber, only add.
mod t {
    pub const S0W: u32 = 1;
    pub const S0T: u32 = 2;
    pub const S0WT: u32 = 3;
    pub const S1W: u32 = 4;
    pub const S1T: u32 = 5;
    pub const S1WT: u32 = 6;
    pub const B0W: u32 = 7;
    pub const B0T: u32 = 8;
    pub const B0WT: u32 = 9;
    pub const B1W: u32 = 10;
    pub const B1T: u32 = 11;
    pub const B1WT: u32 = 12;
    pub const B2W: u32 = 13;
    pub const B2T: u32 = 14;
    pub const S2T: u32 = 15;
    pub const S2W: u32 = 16;
    // pairs s0-b0
    pub const S0WT_B0WT: u32 = 20;
    pub const S0WT_B0W: u32 = 21;
    pub const S0W_B0WT: u32 = 22;
    pub const S0WT_B0T: u32 = 23;
    pub const S0T_B0WT: u32 = 24;
    pub const S0W_B0W: u32 = 25;
    pub const S0T_B0T: u32 = 26;
    pub const B0T_B1T: u32 = 27;
    // pairs s1-s0
    pub const S1WT_S0WT: u32 = 30;
    pub const S1W_S0W: u32 = 31;
    pub const S1T_S0T: u32 = 32;
    pub const S1WT_S0T: u32 = 33;
    pub const S1T_S0WT: u32 = 34;
    pub const S1W_S0T: u32 = 35;
    pub const S1T_S0W: u32 = 36;
    // trigrams of tags
    pub const B0T_B1T_B2T: u32 = 40;
    pub const S0T_B0T_B1T: u32 = 41;
    pub const S1T_S0T_B0T: u32 = 42;
    pub const S0T_S0LT_B0T: u32 = 43;
    pub const S0T_S0RT_B0T: u32 = 44;
    pub const S0T_B0T_B0LT: u32 = 45;
    pub const S1T_S0T_S0LT: u32 = 46;
    pub const S1T_S0T_S0RT: u32 = 47;
    pub const S1T_S1RT_S0T: u32 = 48;
    pub const S1T_S1LT_S0T: u32 = 49;
    pub const S2T_S1T_S0T: u32 = 50;
    pub const S1T_S0T_B1T: u32 = 51;
    pub const S0W_B0T_B1T: u32 = 52;
    pub const S1W_S0T_B0T: u32 = 53;
    // distance
    pub const S0W_D: u32 = 60;
    pub const S0T_D: u32 = 61;
    pub const B0W_D: u32 = 62;
    pub const B0T_D: u32 = 63;
    pub const S0W_B0W_D: u32 = 64;
    pub const S0T_B0T_D: u32 = 65;
    pub const S1T_S0T_D2: u32 = 66;
    pub const S1W_S0W_D2: u32 = 67;
    pub const S1W_D2: u32 = 68;
    pub const S0W_D2: u32 = 69;
    // valency
    pub const S0W_VR: u32 = 70;
    pub const S0T_VR: u32 = 71;
    pub const S0W_VL: u32 = 72;
    pub const S0T_VL: u32 = 73;
    pub const B0W_VL: u32 = 74;
    pub const B0T_VL: u32 = 75;
    pub const S1W_VR: u32 = 76;
    pub const S1T_VR: u32 = 77;
    // children
    pub const S0LW: u32 = 80;
    pub const S0LT: u32 = 81;
    pub const S0LL: u32 = 82;
    pub const S0RW: u32 = 83;
    pub const S0RT: u32 = 84;
    pub const S0RL: u32 = 85;
    pub const B0LW: u32 = 86;
    pub const B0LT: u32 = 87;
    pub const B0LL: u32 = 88;
    pub const S1LW: u32 = 89;
    pub const S1LT: u32 = 90;
    pub const S1LL: u32 = 91;
    pub const S1RW: u32 = 92;
    pub const S1RT: u32 = 93;
    pub const S1RL: u32 = 94;
    // third order
    pub const S0L2W: u32 = 100;
    pub const S0L2T: u32 = 101;
    pub const S0L2L: u32 = 102;
    pub const S0R2W: u32 = 103;
    pub const S0R2T: u32 = 104;
    pub const S0R2L: u32 = 105;
    pub const B0L2W: u32 = 106;
    pub const B0L2T: u32 = 107;
    pub const B0L2L: u32 = 108;
    pub const S0T_S0LT_S0L2T: u32 = 109;
    pub const S0T_S0RT_S0R2T: u32 = 110;
    pub const B0T_B0LT_B0L2T: u32 = 111;
    // label sets
    pub const S0W_SR: u32 = 120;
    pub const S0T_SR: u32 = 121;
    pub const S0W_SL: u32 = 122;
    pub const S0T_SL: u32 = 123;
    pub const B0W_SL: u32 = 124;
    pub const B0T_SL: u32 = 125;
    pub const S1T_SR: u32 = 126;
    // child-label pairs with heads
    pub const S0T_S0LL_S0RL: u32 = 130;
    pub const S0W_S0RL: u32 = 131;
    pub const S1T_S1RL_S0T: u32 = 132;
    pub const B0W_B0LL: u32 = 133;
    pub const B3T: u32 = 134;
    pub const S0T_B0T_DEPTH: u32 = 135;
    pub const GLOB_S0T_B0T: u32 = 136;
    pub const GLOB_S1T_S0T_B0T: u32 = 137;
    pub const AHEAD_S0T_B0T: u32 = 138;
    pub const AHEAD_S1T_S0T: u32 = 139;
    pub const S0LW_S1T_B0T: u32 = 140;
    pub const S0LL_S1T_B0T: u32 = 141;
    pub const S0T_S0LL_S1T_B0T: u32 = 142;
    pub const B0T_REMAIN: u32 = 143;
    pub const S2T_S1T_B0T: u32 = 144;
    pub const S1T_S1LL_S0T_B0T: u32 = 145;
    pub const AHEAD_GLOB_B0T: u32 = 146;
    pub const MORE_S0T_B0T: u32 = 147;
    pub const MORE_S1T_S0T_B0T: u32 = 148;
    pub const BOTTOM_S0T_B0T: u32 = 149;
    pub const SHAPE_S0T_B0T: u32 = 150;
    pub const SHAPE_S1T_S0T: u32 = 151;
    pub const BEHIND_S0T_B0T: u32 = 152;
}

const V_NONE: u64 = 0x6E6F_6E65; // no token at this position
const V_ROOT: u64 = 0x726F_6F74; // the artificial root

/// Per-token word and tag hashes, computed once per sentence. Index 0 is the root.
#[derive(Default)]
struct Sentence {
    w: Vec<u64>,
    t: Vec<u64>,
    /// Per position: the kinds of verbs ([`verb_kind`]) after it in the sentence (what a PCFG,
    /// which sees the whole sentence, knows when it builds a constituent).
    ahead: Vec<u64>,
    /// The whole sentence: whether it has a finite verb and ends in a full stop.
    glob: u64,
    /// Per position: the function tags after it ([`function_kind`]).
    more: Vec<u64>,
    /// Per position: the verb kinds before it.
    behind: Vec<u64>,
    /// The whole sentence: its first tag, how many gerunds and finite verbs it has.
    shape: u64,
}

/// 1 preposition or "to", 2 conjunction, 4 comma, 8 wh-word, 16 determiner, 0 other.
fn function_kind(tag: &str) -> u64 {
    match tag {
        "IN" | "TO" => 1,
        "CC" => 2,
        "," => 4,
        "WDT" | "WP" | "WRB" => 8,
        "DT" => 16,
        _ => 0,
    }
}

impl Sentence {
    fn new(words: &[&str], tags: &[&str]) -> Sentence {
        let mut sn = Sentence {
            w: Vec::new(),
            t: Vec::new(),
            ahead: Vec::new(),
            glob: 0,
            more: Vec::new(),
            behind: Vec::new(),
            shape: 0,
        };
        sn.reset(words, tags);
        sn
    }

    fn reset(&mut self, words: &[&str], tags: &[&str]) {
        self.w.clear();
        self.t.clear();
        self.w.push(V_ROOT);
        self.t.push(V_ROOT);
        for (i, word) in words.iter().enumerate() {
            self.w.push(word_key(word));
            self.t.push(hash_str(tags.get(i).copied().unwrap_or("")));
        }
        self.ahead.clear();
        self.ahead.resize(words.len() + 1, 0);
        let mut after = 0;
        for i in (0..words.len()).rev() {
            // Position i + 1 (the root is 0) sees the tokens after it.
            self.ahead[i + 1] = after;
            after |= verb_kind(tags.get(i).copied().unwrap_or(""));
        }
        self.ahead[0] = after;
        let full_stop = words.last().is_some_and(|w| matches!(*w, "." | "!" | "?"));
        self.glob = 1 + (after & 1) + 2 * u64::from(full_stop);
        let tag = |i: usize| tags.get(i).copied().unwrap_or("");
        self.more.clear();
        self.more.resize(words.len() + 1, 0);
        let mut after = 0;
        for i in (0..words.len()).rev() {
            self.more[i + 1] = after;
            after |= function_kind(tag(i));
        }
        self.more[0] = after;
        self.behind.clear();
        let mut before = 0;
        self.behind.push(0);
        for i in 0..words.len() {
            self.behind.push(before);
            before |= verb_kind(tag(i));
        }
        let count = |k: &str| (0..words.len()).filter(|&i| tag(i) == k).count().min(2) as u64;
        let finite = (0..words.len())
            .filter(|&i| verb_kind(tag(i)) == 1)
            .count()
            .min(2) as u64;
        self.shape = perceptron::combine(
            hash_str(tag(0)),
            1 + count("VBG") + 3 * finite + 9 * u64::from(full_stop),
        );
    }
}

/// Per-thread buffers, so that parsing a sentence allocates only its result.
#[derive(Default)]
struct Scratch {
    st: State,
    sn: Sentence,
    feats: Vec<u64>,
    scores: Vec<i32>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// Writes the features of the configuration into `out`.
fn features(st: &State, sn: &Sentence, out: &mut Vec<u64>) {
    let w = |i: u32| if i == NONE { V_NONE } else { sn.w[i as usize] };
    let tg = |i: u32| if i == NONE { V_NONE } else { sn.t[i as usize] };
    let lab = |i: u32| {
        if i == NONE {
            V_NONE
        } else {
            st.label[i as usize] as u64 + 1
        }
    };
    let kid = |v: &Vec<u32>, i: u32| if i == NONE { NONE } else { v[i as usize] };
    let val = |v: &Vec<u8>, i: u32| {
        if i == NONE {
            V_NONE
        } else {
            v[i as usize] as u64
        }
    };
    let set = |v: &Vec<u64>, i: u32| if i == NONE { V_NONE } else { v[i as usize] };

    let (s0, s1, s2, b0, b1, b2) = (st.s(0), st.s(1), st.s(2), st.bq(0), st.bq(1), st.bq(2));
    let (s0w, s0t, s1w, s1t, s2w, s2t) = (w(s0), tg(s0), w(s1), tg(s1), w(s2), tg(s2));
    let (b0w, b0t, b1w, b1t, b2w, b2t) = (w(b0), tg(b0), w(b1), tg(b1), w(b2), tg(b2));
    let (s0l, s0r, s0l2, s0r2) = (
        kid(&st.lc1, s0),
        kid(&st.rc1, s0),
        kid(&st.lc2, s0),
        kid(&st.rc2, s0),
    );
    let (s1l, s1r) = (kid(&st.lc1, s1), kid(&st.rc1, s1));
    let (b0l, b0l2) = (kid(&st.lc1, b0), kid(&st.lc2, b0));
    let dist = |a: u32, b: u32| {
        if a == NONE || b == NONE {
            V_NONE
        } else {
            (b.abs_diff(a)).min(6) as u64
        }
    };
    let d = dist(s0, b0);
    let d2 = dist(s1, s0);
    let s0wt = perceptron::combine(s0w, s0t);
    let s1wt = perceptron::combine(s1w, s1t);
    let b0wt = perceptron::combine(b0w, b0t);
    let b1wt = perceptron::combine(b1w, b1t);
    let (s0vr, s0vl, b0vl, s1vr) = (
        val(&st.nr, s0),
        val(&st.nl, s0),
        val(&st.nl, b0),
        val(&st.nr, s1),
    );
    let (s0sr, s0sl, b0sl, s1sr) = (
        set(&st.rset, s0),
        set(&st.lset, s0),
        set(&st.lset, b0),
        set(&st.rset, s1),
    );
    // The verbs after the buffer's front (after the stack's top once the buffer is empty).
    let ahead = match (b0, s0) {
        (NONE, NONE) => V_NONE,
        (NONE, s) => sn.ahead[s as usize],
        (b, _) => sn.ahead[b as usize],
    };
    let at_front = |v: &Vec<u64>| match (b0, s0) {
        (NONE, NONE) => V_NONE,
        (NONE, s) => v[s as usize],
        (b, _) => v[b as usize],
    };
    let (more, behind) = (at_front(&sn.more), at_front(&sn.behind));
    // The first word on the stack after the root: the head of what is built so far.
    let bottom = st.stack.get(1).map_or(V_NONE, |&x| sn.t[x as usize]);
    let remain = if b0 == NONE {
        0
    } else {
        (st.n + 1 - b0 as usize).min(6) as u64
    };
    use t::*;
    out.clear();
    out.extend_from_slice(&[
        // Unlexicalised features (tags, labels, distances, valencies) first: the COCO-form
        // corrections use only these (`UNLEXICALISED`).
        feat(0, 0, 0, 0),
        feat(S0T, s0t, 0, 0),
        feat(S1T, s1t, 0, 0),
        feat(B0T, b0t, 0, 0),
        feat(B1T, b1t, 0, 0),
        feat(B2T, b2t, 0, 0),
        feat(S2T, s2t, 0, 0),
        feat(S0T_B0T, s0t, b0t, 0),
        feat(B0T_B1T, b0t, b1t, 0),
        feat(S1T_S0T, s1t, s0t, 0),
        feat(B0T_B1T_B2T, b0t, b1t, b2t),
        feat(S0T_B0T_B1T, s0t, b0t, b1t),
        feat(S1T_S0T_B0T, s1t, s0t, b0t),
        feat(S0T_S0LT_B0T, s0t, tg(s0l), b0t),
        feat(S0T_S0RT_B0T, s0t, tg(s0r), b0t),
        feat(S0T_B0T_B0LT, s0t, b0t, tg(b0l)),
        feat(S1T_S0T_S0LT, s1t, s0t, tg(s0l)),
        feat(S1T_S0T_S0RT, s1t, s0t, tg(s0r)),
        feat(S1T_S1RT_S0T, s1t, tg(s1r), s0t),
        feat(S1T_S1LT_S0T, s1t, tg(s1l), s0t),
        feat(S2T_S1T_S0T, s2t, s1t, s0t),
        feat(S1T_S0T_B1T, s1t, s0t, b1t),
        feat(S0T_D, s0t, d, 0),
        feat(B0T_D, b0t, d, 0),
        feat(S0T_B0T_D, s0t, b0t, d),
        feat(S1T_S0T_D2, s1t, s0t, d2),
        feat(S0T_VR, s0t, s0vr, 0),
        feat(S0T_VL, s0t, s0vl, 0),
        feat(B0T_VL, b0t, b0vl, 0),
        feat(S1T_VR, s1t, s1vr, 0),
        feat(S0LT, tg(s0l), 0, 0),
        feat(S0LL, lab(s0l), 0, 0),
        feat(S0RT, tg(s0r), 0, 0),
        feat(S0RL, lab(s0r), 0, 0),
        feat(B0LT, tg(b0l), 0, 0),
        feat(B0LL, lab(b0l), 0, 0),
        feat(S1LT, tg(s1l), 0, 0),
        feat(S1LL, lab(s1l), 0, 0),
        feat(S1RT, tg(s1r), 0, 0),
        feat(S1RL, lab(s1r), 0, 0),
        feat(S0L2T, tg(s0l2), 0, 0),
        feat(S0L2L, lab(s0l2), 0, 0),
        feat(S0R2T, tg(s0r2), 0, 0),
        feat(S0R2L, lab(s0r2), 0, 0),
        feat(B0L2T, tg(b0l2), 0, 0),
        feat(B0L2L, lab(b0l2), 0, 0),
        feat(S0T_S0LT_S0L2T, s0t, tg(s0l), tg(s0l2)),
        feat(S0T_S0RT_S0R2T, s0t, tg(s0r), tg(s0r2)),
        feat(B0T_B0LT_B0L2T, b0t, tg(b0l), tg(b0l2)),
        feat(S0T_SR, s0t, s0sr, 0),
        feat(S0T_SL, s0t, s0sl, 0),
        feat(B0T_SL, b0t, b0sl, 0),
        feat(S1T_SR, s1t, s1sr, 0),
        feat(S0T_S0LL_S0RL, s0t, lab(s0l), lab(s0r)),
        feat(S1T_S1RL_S0T, s1t, lab(s1r), s0t),
        feat(S0W, s0w, 0, 0),
        feat(S0WT, s0wt, 0, 0),
        feat(S1W, s1w, 0, 0),
        feat(S1WT, s1wt, 0, 0),
        feat(B0W, b0w, 0, 0),
        feat(B0WT, b0wt, 0, 0),
        feat(B1W, b1w, 0, 0),
        feat(B1WT, b1wt, 0, 0),
        feat(B2W, b2w, 0, 0),
        feat(S2W, s2w, 0, 0),
        feat(S0WT_B0WT, s0wt, b0wt, 0),
        feat(S0WT_B0W, s0wt, b0w, 0),
        feat(S0W_B0WT, s0w, b0wt, 0),
        feat(S0WT_B0T, s0wt, b0t, 0),
        feat(S0T_B0WT, s0t, b0wt, 0),
        feat(S0W_B0W, s0w, b0w, 0),
        feat(S1WT_S0WT, s1wt, s0wt, 0),
        feat(S1W_S0W, s1w, s0w, 0),
        feat(S1WT_S0T, s1wt, s0t, 0),
        feat(S1T_S0WT, s1t, s0wt, 0),
        feat(S1W_S0T, s1w, s0t, 0),
        feat(S1T_S0W, s1t, s0w, 0),
        feat(S0W_B0T_B1T, s0w, b0t, b1t),
        feat(S1W_S0T_B0T, s1w, s0t, b0t),
        feat(S0W_D, s0w, d, 0),
        feat(B0W_D, b0w, d, 0),
        feat(S0W_B0W_D, s0w, b0w, d),
        feat(S1W_S0W_D2, s1w, s0w, d2),
        feat(S1W_D2, s1w, d2, 0),
        feat(S0W_D2, s0w, d2, 0),
        feat(S0W_VR, s0w, s0vr, 0),
        feat(S0W_VL, s0w, s0vl, 0),
        feat(B0W_VL, b0w, b0vl, 0),
        feat(S1W_VR, s1w, s1vr, 0),
        feat(S0LW, w(s0l), 0, 0),
        feat(S0RW, w(s0r), 0, 0),
        feat(B0LW, w(b0l), 0, 0),
        feat(S1LW, w(s1l), 0, 0),
        feat(S1RW, w(s1r), 0, 0),
        feat(S0L2W, w(s0l2), 0, 0),
        feat(S0R2W, w(s0r2), 0, 0),
        feat(B0L2W, w(b0l2), 0, 0),
        feat(S0W_SR, s0w, s0sr, 0),
        feat(S0W_SL, s0w, s0sl, 0),
        feat(B0W_SL, b0w, b0sl, 0),
        feat(S0W_S0RL, s0w, lab(s0r), 0),
        feat(B0W_B0LL, b0w, lab(b0l), 0),
        feat(B3T, tg(st.bq(3)), 0, 0),
        feat(S0T_B0T_DEPTH, s0t, b0t, st.stack.len().min(5) as u64),
        feat(GLOB_S0T_B0T, sn.glob, s0t, b0t),
        feat(
            GLOB_S1T_S0T_B0T,
            perceptron::combine(sn.glob, s1t),
            s0t,
            b0t,
        ),
        feat(AHEAD_S0T_B0T, ahead, s0t, b0t),
        feat(AHEAD_S1T_S0T, ahead, s1t, s0t),
        feat(S0LW_S1T_B0T, w(s0l), s1t, b0t),
        feat(S0LL_S1T_B0T, lab(s0l), s1t, b0t),
        feat(
            S0T_S0LL_S1T_B0T,
            perceptron::combine(s0t, lab(s0l)),
            s1t,
            b0t,
        ),
        feat(B0T_REMAIN, b0t, remain, 0),
        feat(S2T_S1T_B0T, s2t, s1t, b0t),
        feat(
            S1T_S1LL_S0T_B0T,
            perceptron::combine(s1t, lab(s1l)),
            s0t,
            b0t,
        ),
        feat(AHEAD_GLOB_B0T, ahead, sn.glob, b0t),
        feat(MORE_S0T_B0T, more, s0t, b0t),
        feat(MORE_S1T_S0T_B0T, perceptron::combine(more, s1t), s0t, b0t),
        feat(BOTTOM_S0T_B0T, bottom, s0t, b0t),
        feat(SHAPE_S0T_B0T, sn.shape, s0t, b0t),
        feat(SHAPE_S1T_S0T, sn.shape, s1t, s0t),
        feat(BEHIND_S0T_B0T, behind, s0t, b0t),
    ]);
}

impl Parser {
    /// The model embedded in the binary, loaded once per process.
    pub fn embedded() -> Result<&'static Parser, ModelError> {
        static CELL: OnceLock<Result<Parser, ModelError>> = OnceLock::new();
        CELL.get_or_init(|| Parser::from_bytes(EMBEDDED, "embedded parser model"))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Reads a parser model file (as `train_parser` writes it). `what` names it in errors.
    pub fn from_bytes(bytes: &[u8], what: &str) -> Result<Parser, ModelError> {
        let m = perceptron::read_model(bytes, what, "parser")?;
        let corrupt = |detail: String| ModelError::Corrupt {
            what: what.into(),
            detail,
        };
        let n = m.classes.len().saturating_sub(1) / 2;
        if m.classes.len() != 2 * n + 1 || m.classes.first().map(String::as_str) != Some("SHIFT") {
            return Err(corrupt(format!(
                "{} classes do not form SHIFT + LEFT/RIGHT pairs",
                m.classes.len()
            )));
        }
        let mut labels = Vec::with_capacity(n);
        for name in &m.classes[1..=n] {
            let l = name.strip_prefix("L-").and_then(Label::from_name);
            labels.push(l.ok_or_else(|| corrupt(format!("unknown transition {name:?}")))?);
        }
        if class_names(&labels) != m.classes {
            return Err(corrupt("LEFT and RIGHT transitions do not match".into()));
        }
        let root_label = labels
            .iter()
            .position(|&l| l == Label::ROOT)
            .ok_or_else(|| corrupt("no root label".into()))?;
        Ok(Parser {
            weights: std::sync::Arc::new(m.weights),
            labels,
            root_label,
        })
    }

    /// Reads a parser model from a file.
    pub fn load(path: &std::path::Path) -> Result<Parser, ModelError> {
        let what = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| ModelError::Io {
            what: what.clone(),
            detail: e.to_string(),
        })?;
        Parser::from_bytes(&bytes, &what)
    }

    /// The labels the model can give.
    pub fn labels(&self) -> &[Label] {
        &self.labels
    }

    /// Number of weighted features (for reports).
    pub fn size(&self) -> usize {
        self.weights.n_features()
    }

    /// Parses one sentence: for token `i` (0-based) its head (1-based token index, 0 = root) and
    /// label. Exactly one token has head 0, with label `root`. `tags[i]` is the tag of
    /// `words[i]`; missing tags count as unknown. Any input is fine; time is linear in length.
    pub fn parse(&self, words: &[&str], tags: &[&str]) -> Vec<(usize, Label)> {
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => self.parse_with(words, tags, &mut scratch),
            // Only reachable if parse were re-entered on this thread; fresh buffers then.
            Err(_) => self.parse_with(words, tags, &mut Scratch::default()),
        })
    }

    fn parse_with(
        &self,
        words: &[&str],
        tags: &[&str],
        scratch: &mut Scratch,
    ) -> Vec<(usize, Label)> {
        let Scratch {
            st,
            sn,
            feats,
            scores,
        } = scratch;
        sn.reset(words, tags);
        st.reset(words.len());
        scores.clear();
        scores.resize(self.weights.score_len(), 0);
        while !st.terminal() {
            if let Some(m) = self.only_move(st) {
                st.apply(m);
                continue;
            }
            features(st, sn, feats);
            scores.iter_mut().for_each(|s| *s = 0);
            self.weights.score(feats, scores);
            let m = self.best_move(st, scores, |_| true);
            st.apply(m);
        }
        self.arcs(st)
    }

    /// The tree of a terminal state: for each token its head (0 = the root) and label.
    fn arcs(&self, st: &State) -> Vec<(usize, Label)> {
        (1..=st.n)
            .map(|i| {
                let l = self
                    .labels
                    .get(st.label[i] as usize)
                    .copied()
                    .unwrap_or(Label::DEP);
                match st.head[i] {
                    NONE | 0 => (0, Label::ROOT),
                    h => (h as usize, l),
                }
            })
            .collect()
    }

    /// Tags-and-words to a [`DepGraph`] with the basic tree's edges and empty lemmas.
    pub fn graph(&self, words: &[&str], tags: &[&str]) -> DepGraph {
        to_graph(words, tags, &self.parse(words, tags))
    }

    /// The highest-scoring valid move among those `allowed` accepts (SHIFT if none: only reached
    /// when `allowed` rejects everything, which callers never do on a non-terminal state).
    fn best_move<T: PartialOrd + Copy>(
        &self,
        st: &State,
        scores: &[T],
        allowed: impl Fn(Move) -> bool,
    ) -> Move {
        let mut best: Option<(T, Move)> = None;
        self.each_move(st, |m, c| {
            let s = scores[c];
            if allowed(m) && best.is_none_or(|(b, _)| s > b) {
                best = Some((s, m));
            }
        });
        best.map(|b| b.1).unwrap_or_else(|| self.fallback_move(st))
    }

    /// Calls `f` with each valid move of `st` and its class, SHIFT first, then the LEFTs and
    /// the RIGHTs in label order.
    fn each_move(&self, st: &State, mut f: impl FnMut(Move, usize)) {
        let nl = self.labels.len();
        if st.can_shift() {
            f(Move::Shift, 0);
        }
        if st.can_left() {
            for l in 0..nl {
                if l != self.root_label {
                    f(Move::Left(l), 1 + l);
                }
            }
        }
        if st.can_right() {
            for l in 0..nl {
                if l != self.root_label {
                    f(Move::Right(l), 1 + nl + l);
                }
            }
        }
        if st.can_root() {
            f(Move::Right(self.root_label), 1 + nl + self.root_label);
        }
    }

    /// The one valid move of a configuration that has only one (the first SHIFT, the final
    /// RIGHT from the root), where scoring would change nothing.
    fn only_move(&self, st: &State) -> Option<Move> {
        if st.stack.len() == 1 && st.can_shift() {
            Some(Move::Shift)
        } else if st.can_root() {
            Some(Move::Right(self.root_label))
        } else {
            None
        }
    }

    /// A valid move on any non-terminal state (used only if the scores offer none).
    fn fallback_move(&self, st: &State) -> Move {
        if st.can_root() {
            Move::Right(self.root_label)
        } else if st.can_shift() {
            Move::Shift
        } else {
            let l = (0..self.labels.len())
                .find(|&l| l != self.root_label)
                .unwrap_or(self.root_label);
            Move::Right(l)
        }
    }

    fn class_of(&self, m: Move) -> usize {
        let nl = self.labels.len();
        match m {
            Move::Shift => 0,
            Move::Left(l) => 1 + l,
            Move::Right(l) => 1 + nl + l,
        }
    }
}

/// The embedded tagger and parser, loaded in parallel on first use (each is loaded once per
/// process; later calls return at once, without starting a thread).
pub fn embedded_models() -> Result<(&'static Tagger, &'static Parser), ModelError> {
    type Models = Result<(&'static Tagger, &'static Parser), ModelError>;
    static BOTH: OnceLock<Models> = OnceLock::new();
    BOTH.get_or_init(|| {
        let (t, p) = std::thread::scope(|s| {
            let t = s.spawn(Tagger::embedded);
            let p = Parser::embedded();
            (t.join(), p)
        });
        let t = t.unwrap_or_else(|_| {
            Err(ModelError::Corrupt {
                what: "embedded tagger model".into(),
                detail: "loading panicked".into(),
            })
        })?;
        Ok((t, p?))
    })
    .clone()
}

/// A fingerprint of the embedded tagger and parser (`crc32-TAGGER-PARSER`): stored graphs made
/// by other built-in models are made again (the server's engine version carries it).
pub fn embedded_models_fingerprint() -> String {
    static PRINT: OnceLock<String> = OnceLock::new();
    PRINT
        .get_or_init(|| {
            format!(
                "crc32-{:08x}-{:08x}",
                crc32fast::hash(crate::tag::EMBEDDED),
                crc32fast::hash(EMBEDDED)
            )
        })
        .clone()
}

/// Builds the [`DepGraph`] of a parse: tokens with words and tags (lemma left empty for
/// `lemmatize`), one edge per non-root token, the root in `roots`.
pub fn to_graph(words: &[&str], tags: &[&str], arcs: &[(usize, Label)]) -> DepGraph {
    let tokens = words
        .iter()
        .enumerate()
        .map(|(i, w)| Token::new(*w, "", tags.get(i).copied().unwrap_or("")))
        .collect();
    let mut g = DepGraph::new(tokens);
    for (i, &(h, l)) in arcs.iter().enumerate() {
        if h == 0 {
            g.roots.push(i + 1);
        } else {
            g.add_edge(h, i + 1, Rel::label(l));
        }
    }
    g
}

// ---------------------------------------------------------------------------------------------
// Training.

/// A training sentence: words, tags, heads (1-based, 0 = root) and label names.
#[derive(Debug, Clone)]
pub struct TreeSentence {
    pub words: Vec<String>,
    pub tags: Vec<String>,
    pub heads: Vec<usize>,
    pub labels: Vec<String>,
}

/// Why a tree cannot be used for training.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeProblem {
    Malformed(String),
    NonProjective,
}

/// Checks that `heads` (1-based, 0 = root) form a tree with one root, and whether it is projective.
pub fn check_tree(heads: &[usize]) -> Result<(), TreeProblem> {
    let n = heads.len();
    if heads.iter().filter(|&&h| h == 0).count() != 1 {
        return Err(TreeProblem::Malformed("not exactly one root".into()));
    }
    if let Some(i) = heads.iter().position(|&h| h > n) {
        return Err(TreeProblem::Malformed(format!(
            "token {} has head {} past the end",
            i + 1,
            heads[i]
        )));
    }
    for start in 1..=n {
        let (mut x, mut steps) = (start, 0);
        while x != 0 {
            x = heads[x - 1];
            steps += 1;
            if steps > n {
                return Err(TreeProblem::Malformed(format!(
                    "cycle through token {start}"
                )));
            }
        }
    }
    for d in 1..=n {
        let h = heads[d - 1];
        let (lo, hi) = (d.min(h), d.max(h));
        for k in lo + 1..hi {
            // every token strictly between must descend from h
            let mut x = k;
            while x != 0 && x != h {
                x = heads[x - 1];
            }
            if x != h {
                return Err(TreeProblem::NonProjective);
            }
        }
    }
    Ok(())
}

/// Settings for [`train`].
#[derive(Debug, Clone)]
pub struct TrainOptions {
    pub epochs: usize,
    pub seed: u64,
    /// From this epoch on (0-based), a wrong prediction is followed with probability `explore`.
    pub explore_from: usize,
    pub explore: f64,
    /// Averaged weights smaller than this are dropped from the model file.
    pub prune: f32,
    /// Features seen fewer times than this in the first epoch get no weights.
    pub min_count: u32,
    /// At most this many features go into the model file (the heaviest; keeps it compact).
    pub max_features: usize,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            epochs: 6,
            seed: 1,
            explore_from: 1,
            explore: 0.9,
            prune: 0.01,
            max_features: 1_500_000,
            min_count: 5,
        }
    }
}

/// The dynamic oracle: the cost (gold arcs made unreachable) of each valid move, written into
/// `cost` by class (`i32::MAX` for invalid moves). Goldberg & Nivre (2013), arc-hybrid.
fn oracle_costs(st: &State, gh: &[usize], gl: &[usize], p: &Parser, cost: &mut [i32]) {
    cost.iter_mut().for_each(|c| *c = i32::MAX);
    let nl = p.labels.len();
    let n = st.n;
    let in_buffer = |x: usize| x >= st.b && x <= n;
    let kids_in_buffer = |x: usize| (st.b..=n).filter(|&d| gh[d] == x).count() as i32;
    if st.can_shift() {
        let b0 = st.b;
        let top = st.stack.len() - 1;
        let mut c = 0;
        for (k, &s) in st.stack.iter().enumerate() {
            let s = s as usize;
            if k < top && gh[b0] == s {
                c += 1;
            }
            if s != 0 && gh[s] == b0 {
                c += 1;
            }
        }
        cost[0] = c;
    }
    let s0 = st.s(0) as usize;
    if st.can_left() {
        let s1 = st.s(1) as usize;
        let b0 = st.b;
        let base =
            (gh[s0] == s1 || (in_buffer(gh[s0]) && gh[s0] != b0)) as i32 + kids_in_buffer(s0);
        for l in 0..nl {
            if l != p.root_label {
                cost[1 + l] = base + (gh[s0] == b0 && gl[s0] != l) as i32;
            }
        }
    }
    if st.can_right() || st.can_root() {
        let s1 = st.s(1) as usize;
        let base = in_buffer(gh[s0]) as i32 + kids_in_buffer(s0);
        for l in 0..nl {
            if (l == p.root_label) == st.can_root() {
                cost[1 + nl + l] = base + (gh[s0] == s1 && gl[s0] != l) as i32;
            }
        }
    }
}

/// Trains a parser on `sents` (projective trees only; others are skipped and counted in the log).
/// Returns the model file bytes.
pub fn train(
    sents: &[TreeSentence],
    opts: &TrainOptions,
    log: &mut dyn FnMut(String),
) -> Result<Vec<u8>, String> {
    // Labels present in the data, in LABELS order, root always included.
    let mut seen = vec![false; LABELS.len()];
    seen[0] = true;
    let mut usable = Vec::new();
    let (mut nonproj, mut malformed) = (0usize, 0usize);
    for (k, s) in sents.iter().enumerate() {
        let n = s.words.len();
        if s.tags.len() != n || s.heads.len() != n || s.labels.len() != n {
            return Err(format!(
                "training sentence {k}: columns of different lengths"
            ));
        }
        for l in &s.labels {
            match Label::from_name(l) {
                Some(x) => seen[x.0 as usize] = true,
                None => {
                    return Err(format!(
                        "training sentence {k}: unknown label {l:?} (not in parse::LABELS)"
                    ))
                }
            }
        }
        match check_tree(&s.heads) {
            Ok(()) => usable.push(k),
            Err(TreeProblem::NonProjective) => nonproj += 1,
            Err(TreeProblem::Malformed(_)) => malformed += 1,
        }
    }
    let labels: Vec<Label> = (0..LABELS.len())
        .filter(|&i| seen[i])
        .map(|i| Label(i as u8))
        .collect();
    let root_label = labels.iter().position(|&l| l == Label::ROOT).unwrap_or(0);
    let n_classes = 1 + 2 * labels.len();
    log(format!(
        "parser: {} sentences, {} usable, {} non-projective and {} malformed skipped, {} labels",
        sents.len(),
        usable.len(),
        nonproj,
        malformed,
        labels.len()
    ));
    let p = Parser {
        weights: std::sync::Arc::new(Weights::empty(n_classes)),
        labels,
        root_label,
    };
    let class_of_label = |name: &str| {
        let l = Label::from_name(name).unwrap_or(Label::DEP);
        p.labels.iter().position(|&x| x == l).unwrap_or(0)
    };
    // Gold trees with a leading entry for the root (index 0), so that token i is at i.
    let gold: Vec<(Vec<usize>, Vec<usize>)> = sents
        .iter()
        .map(|s| {
            let mut h = vec![usize::MAX];
            h.extend_from_slice(&s.heads);
            let mut l = vec![0];
            l.extend(s.labels.iter().map(|x| class_of_label(x)));
            (h, l)
        })
        .collect();

    let mut model = Trainer::new(n_classes);
    let mut rng = perceptron::mix64(opts.seed ^ 0x5EED);
    let mut order = usable.clone();
    let mut feats = Vec::with_capacity(128);
    let mut scores = vec![0f32; n_classes];
    let mut cost = vec![0i32; n_classes];
    for epoch in 0..opts.epochs {
        shuffle(&mut order, &mut rng);
        let (mut right, mut total) = (0usize, 0usize);
        for &k in &order {
            let s = &sents[k];
            let words: Vec<&str> = s.words.iter().map(String::as_str).collect();
            let tags: Vec<&str> = s.tags.iter().map(String::as_str).collect();
            let sn = Sentence::new(&words, &tags);
            let (gh, gl) = &gold[k];
            let mut st = State::new(words.len());
            while !st.terminal() {
                features(&st, &sn, &mut feats);
                scores.iter_mut().for_each(|x| *x = 0.0);
                model.score(&feats, &mut scores);
                oracle_costs(&st, gh, gl, &p, &mut cost);
                let guess = p.best_move(&st, &scores, |_| true);
                let min = cost.iter().copied().min().unwrap_or(0);
                let best_gold = p.best_move(&st, &scores, |m| cost[p.class_of(m)] == min);
                let (gc, bc) = (p.class_of(guess), p.class_of(best_gold));
                if epoch == 0 {
                    model.observe(&feats);
                }
                model.tick();
                let next = if cost[gc] == min {
                    right += 1;
                    guess
                } else {
                    model.update(&feats, bc, gc);
                    let coin = perceptron::coin(&mut rng);
                    if epoch >= opts.explore_from && coin < opts.explore {
                        guess
                    } else {
                        best_gold
                    }
                };
                total += 1;
                st.apply(next);
            }
        }
        if epoch == 0 && opts.min_count > 1 {
            model.freeze(opts.min_count);
        }
        log(format!(
            "parser epoch {}: {:.2}% of transitions optimal while training, {} features",
            epoch + 1,
            100.0 * right as f64 / total.max(1) as f64,
            model.n_features()
        ));
    }
    let rows = model.averaged(opts.prune, opts.max_features);
    Ok(perceptron::write_model(
        "parser",
        &class_names(&p.labels),
        &[],
        &rows,
    ))
}

/// Follows the static (zero-cost, leftmost-first) oracle on a gold tree and returns the tree the
/// transitions build: the gold tree itself when it is projective. Exposed for tests.
pub fn oracle_parse(heads: &[usize], labels: &[Label]) -> Vec<(usize, Label)> {
    let mut ls: Vec<Label> = vec![Label::ROOT];
    for l in labels {
        if !ls.contains(l) {
            ls.push(*l);
        }
    }
    let n_classes = 1 + 2 * ls.len();
    let p = Parser {
        weights: std::sync::Arc::new(Weights::empty(n_classes)),
        labels: ls.clone(),
        root_label: 0,
    };
    let mut gh = vec![usize::MAX];
    gh.extend_from_slice(heads);
    let mut gl = vec![0];
    gl.extend(
        labels
            .iter()
            .map(|l| ls.iter().position(|x| x == l).unwrap_or(0)),
    );
    let mut st = State::new(heads.len());
    let mut cost = vec![0; n_classes];
    let zero = vec![0f32; n_classes];
    while !st.terminal() {
        oracle_costs(&st, &gh, &gl, &p, &mut cost);
        let min = cost.iter().copied().min().unwrap_or(0);
        let m = p.best_move(&st, &zero, |m| cost[p.class_of(m)] == min);
        st.apply(m);
    }
    (1..=heads.len())
        .map(|i| match st.head[i] {
            NONE | 0 => (0, Label::ROOT),
            h => (
                h as usize,
                ls.get(st.label[i] as usize).copied().unwrap_or(Label::DEP),
            ),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(s: &str) -> Label {
        Label::from_name(s).unwrap_or(Label::DEP)
    }

    #[test]
    fn oracle_reproduces_projective_gold_trees() {
        // "a cat sitting on a chair": det, root, acl, case, det, nmod
        let trees: Vec<(Vec<usize>, Vec<&str>)> = vec![
            (
                vec![2, 0, 2, 6, 6, 3],
                vec!["det", "root", "acl", "case", "det", "nmod"],
            ),
            // "the man rides a horse ."
            (
                vec![2, 3, 0, 5, 3, 3],
                vec!["det", "nsubj", "root", "det", "dobj", "punct"],
            ),
            // "dog"
            (vec![0], vec!["root"]),
            // "a man and a woman are sitting on a bench"
            (
                vec![2, 7, 5, 5, 2, 7, 0, 10, 10, 7],
                vec![
                    "det", "nsubj", "cc", "det", "conj", "aux", "root", "case", "det", "nmod",
                ],
            ),
            // right-branching chain and left-branching chain
            (
                vec![0, 1, 2, 3, 4],
                vec!["root", "dep", "dep", "dep", "dep"],
            ),
            (
                vec![2, 3, 4, 5, 0],
                vec!["dep", "dep", "dep", "dep", "root"],
            ),
        ];
        for (heads, labels) in trees {
            assert_eq!(check_tree(&heads), Ok(()));
            let labels: Vec<Label> = labels.iter().map(|s| l(s)).collect();
            let got = oracle_parse(&heads, &labels);
            let want: Vec<(usize, Label)> =
                heads.iter().copied().zip(labels.iter().copied()).collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn tree_checks_find_cycles_and_crossings() {
        assert_eq!(
            check_tree(&[2, 1]),
            Err(TreeProblem::Malformed("not exactly one root".into()))
        );
        assert!(matches!(
            check_tree(&[0, 3, 2]),
            Err(TreeProblem::Malformed(_))
        ));
        // 1 <- 3 crosses 2 -> 4
        assert_eq!(check_tree(&[3, 0, 2, 2]), Err(TreeProblem::NonProjective));
        assert!(matches!(
            check_tree(&[0, 9]),
            Err(TreeProblem::Malformed(_))
        ));
    }

    #[test]
    fn oracle_on_non_projective_tree_still_builds_a_tree_with_one_root() {
        let heads = [3, 0, 2, 2];
        let labels = [l("dep"), l("root"), l("dep"), l("dep")];
        let got = oracle_parse(&heads, &labels);
        assert_eq!(got.iter().filter(|a| a.0 == 0).count(), 1);
        let hs: Vec<usize> = got.iter().map(|a| a.0).collect();
        assert!(matches!(
            check_tree(&hs),
            Ok(()) | Err(TreeProblem::NonProjective)
        ));
    }

    fn toy_data() -> Vec<TreeSentence> {
        let raw = [
            (
                "a dog on a couch",
                "DT NN IN DT NN",
                "2 0 5 5 2",
                "det root case det nmod",
            ),
            (
                "a cat sitting on a chair",
                "DT NN VBG IN DT NN",
                "2 0 2 6 6 3",
                "det root acl case det nmod",
            ),
            (
                "the man rides a horse .",
                "DT NN VBZ DT NN .",
                "2 3 0 5 3 3",
                "det nsubj root det dobj punct",
            ),
            (
                "a woman holding an umbrella",
                "DT NN VBG DT NN",
                "2 0 2 5 3",
                "det root acl det dobj",
            ),
            (
                "two dogs playing in the grass",
                "CD NNS VBG IN DT NN",
                "2 0 2 6 6 3",
                "nummod root acl case det nmod",
            ),
            (
                "a man is riding a horse",
                "DT NN VBZ VBG DT NN",
                "2 4 4 0 6 4",
                "det nsubj aux root det dobj",
            ),
        ];
        raw.iter()
            .map(|(w, t, h, l)| TreeSentence {
                words: w.split(' ').map(String::from).collect(),
                tags: t.split(' ').map(String::from).collect(),
                heads: h.split(' ').map(|x| x.parse().unwrap_or(0)).collect(),
                labels: l.split(' ').map(String::from).collect(),
            })
            .collect()
    }

    /// A parser trained on [`toy_data`] for `epochs` epochs, through its model file.
    fn toy_parser(epochs: usize) -> Parser {
        let opts = TrainOptions {
            epochs,
            min_count: 1,
            ..TrainOptions::default()
        };
        let bytes = train(&toy_data(), &opts, &mut |_| {}).expect("training");
        Parser::from_bytes(&bytes, "toy").expect("load")
    }

    #[test]
    fn learns_toy_trees_and_round_trips_the_model() {
        let p = toy_parser(15);
        for s in &toy_data() {
            let (w, t) = words_tags(s);
            assert_eq!(p.parse(&w, &t), arcs(s), "{:?}", s.words);
        }
    }

    fn words_tags(s: &TreeSentence) -> (Vec<&str>, Vec<&str>) {
        (
            s.words.iter().map(String::as_str).collect(),
            s.tags.iter().map(String::as_str).collect(),
        )
    }

    fn arcs(s: &TreeSentence) -> Vec<(usize, Label)> {
        s.heads
            .iter()
            .copied()
            .zip(s.labels.iter().map(|x| l(x)))
            .collect()
    }

    #[test]
    fn untrained_parser_still_returns_one_rooted_tree() {
        let p = Parser {
            weights: std::sync::Arc::new(Weights::empty(5)),
            labels: vec![Label::ROOT, Label::DEP],
            root_label: 0,
        };
        for n in [0usize, 1, 2, 7, 50] {
            let words: Vec<String> = (0..n).map(|i| format!("w{i}")).collect();
            let w: Vec<&str> = words.iter().map(String::as_str).collect();
            let arcs = p.parse(&w, &[]);
            assert_eq!(arcs.len(), n);
            if n > 0 {
                assert_eq!(arcs.iter().filter(|a| a.0 == 0).count(), 1);
                let hs: Vec<usize> = arcs.iter().map(|a| a.0).collect();
                assert!(
                    !matches!(check_tree(&hs), Err(TreeProblem::Malformed(_))),
                    "{hs:?}"
                );
            }
        }
    }
}
