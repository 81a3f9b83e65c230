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
//!
//! The COCO-form corrections (`Parser::train_delta`) may instead be trained on whole move
//! sequences with a beam (a structured perceptron with early or max-violation update), which
//! may drop sequences that fall too far behind the best; their model file then records the
//! width and that margin, and [`Form::Coco`] sentences are decoded with the same beam. The
//! committed corrections are greedy (see `DeltaOptions::beam` and `DeltaOptions::margin` for
//! why).
//!
//! Single root: the artificial root 0 sits at the bottom of the stack, and the only transition
//! that may attach a token to it is the very last one (stack `[0, x]`, buffer empty).

use std::sync::OnceLock;

use crate::depgraph::{DepGraph, Rel, Token};
use crate::perceptron::{self, feat, hash_str, shuffle, ModelError, Trainer, Weights};
use crate::tag::{word_key, Tagger};
use crate::tokenize::Form;

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
/// The embedded COCO-form corrections of the parser (built by `train_parser delta`).
static EMBEDDED_COCO: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/models/parser-coco.bin"
));

/// A trained parser. Immutable and `Sync`: share one across threads.
#[derive(Debug, Clone)]
pub struct Parser {
    weights: std::sync::Arc<Weights>,
    /// What one unit of a quantised weight is worth (the corrections share the base's units).
    scale: f32,
    /// Corrections added to the scores of [`Form::Coco`] sentences: learned from trees that
    /// reproduce the official parser's proposals on that form (see `train_delta`).
    coco: Option<std::sync::Arc<perceptron::Corrected>>,
    /// How [`Form::Coco`] sentences are decoded: as the corrections were trained.
    coco_beam: Beam,
    /// Labels of the model, in class order: class 0 is SHIFT, `1 + i` is LEFT-`labels[i]`,
    /// `1 + n + i` is RIGHT-`labels[i]`.
    labels: Vec<Label>,
    root_label: usize,
}

const NONE: u32 = u32::MAX;

/// The widest beam a corrections model may ask for.
const MAX_BEAM: usize = 64;

/// A beam search's settings: how many move sequences it keeps at each step, and how far behind
/// the best one a sequence may fall before it is dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Beam {
    /// 1: greedy.
    width: usize,
    /// In quantised score units (`i64::MAX`: no sequence is dropped for its score).
    margin: i64,
}

impl Beam {
    const GREEDY: Beam = Beam {
        width: 1,
        margin: i64::MAX,
    };

    /// The settings a corrections model file records in its `extra` bytes: none (greedy), the
    /// width (one byte, 1 to [`MAX_BEAM`]), or the width and the margin (four bytes, little
    /// endian).
    fn from_extra(extra: &[u8]) -> Option<Beam> {
        let width = |k: u8| (1..=MAX_BEAM).contains(&(k as usize)).then_some(k as usize);
        match *extra {
            [] => Some(Beam::GREEDY),
            [k] => Some(Beam {
                width: width(k)?,
                margin: i64::MAX,
            }),
            [k, a, b, c, d] => Some(Beam {
                width: width(k)?,
                margin: u32::from_le_bytes([a, b, c, d]) as i64,
            }),
            _ => None,
        }
    }

    /// The `extra` bytes [`Beam::from_extra`] reads back (a margin of `u32::MAX` or more is
    /// recorded as no margin).
    fn to_extra(self) -> Vec<u8> {
        let mut extra = vec![self.width as u8];
        if let Ok(m) = u32::try_from(self.margin) {
            extra.extend_from_slice(&m.to_le_bytes());
        }
        extra
    }
}

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

    /// Makes this state a copy of `o`, reusing its allocations.
    fn copy_from(&mut self, o: &State) {
        self.n = o.n;
        self.b = o.b;
        self.stack.clone_from(&o.stack);
        self.head.clone_from(&o.head);
        self.label.clone_from(&o.label);
        self.lc1.clone_from(&o.lc1);
        self.lc2.clone_from(&o.lc2);
        self.rc1.clone_from(&o.rc1);
        self.rc2.clone_from(&o.rc2);
        self.nl.clone_from(&o.nl);
        self.nr.clone_from(&o.nr);
        self.lset.clone_from(&o.lset);
        self.rset.clone_from(&o.rset);
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
}

const V_NONE: u64 = 0x6E6F_6E65; // no token at this position
const V_ROOT: u64 = 0x726F_6F74; // the artificial root

/// Per-token word and tag hashes, computed once per sentence. Index 0 is the root.
#[derive(Default)]
struct Sentence {
    w: Vec<u64>,
    t: Vec<u64>,
}

impl Sentence {
    fn new(words: &[&str], tags: &[&str]) -> Sentence {
        let mut sn = Sentence {
            w: Vec::new(),
            t: Vec::new(),
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
    }
}

/// Per-thread buffers, so that parsing a sentence allocates only its result.
#[derive(Default)]
struct Scratch {
    st: State,
    sn: Sentence,
    feats: Vec<u64>,
    scores: Vec<i32>,
    beam: BeamScratch,
}

/// [`Parser::beam_search`]'s buffers: the beam and the next one (configurations with their
/// totals), and each entry's features and scores.
#[derive(Default)]
struct BeamScratch {
    beam: Vec<(State, i64)>,
    next: Vec<(State, i64)>,
    feats: Vec<Vec<u64>>,
    scores: Vec<Vec<i32>>,
    plus: Vec<u64>,
    minus: Vec<u64>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// How many of the features [`features`] writes come first and read no word: the features of an
/// unlexicalised grammar, such as CoreNLP's PCFG.
const UNLEXICALISED: usize = 55;

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
    ]);
}

impl Parser {
    /// The model embedded in the binary, loaded once per process.
    pub fn embedded() -> Result<&'static Parser, ModelError> {
        static CELL: OnceLock<Result<Parser, ModelError>> = OnceLock::new();
        CELL.get_or_init(|| {
            Parser::from_bytes(EMBEDDED, "embedded parser model")?
                .with_coco(EMBEDDED_COCO, "embedded COCO-form parser corrections")
        })
        .as_ref()
        .map_err(Clone::clone)
    }

    /// The parser with COCO-form corrections read from `bytes` (a `parser-delta` model written by
    /// [`Parser::train_delta`] for this parser's classes and scale).
    /// An empty `bytes` means no corrections.
    pub fn with_coco(mut self, bytes: &[u8], what: &str) -> Result<Parser, ModelError> {
        if bytes.is_empty() {
            self.coco = None;
            self.coco_beam = Beam::GREEDY;
            return Ok(self);
        }
        let m = perceptron::read_model(bytes, what, "parser-delta")?;
        if m.classes != class_names(&self.labels) || m.scale != self.scale {
            return Err(ModelError::Corrupt {
                what: what.into(),
                detail: "corrections made for another parser model".into(),
            });
        }
        self.coco_beam = Beam::from_extra(&m.extra).ok_or_else(|| ModelError::Corrupt {
            what: what.into(),
            detail: format!(
                "the beam settings are not a width from 1 to {MAX_BEAM} and an optional margin"
            ),
        })?;
        self.coco = Some(std::sync::Arc::new(perceptron::Corrected::new(
            std::sync::Arc::clone(&self.weights),
            m.weights,
        )));
        Ok(self)
    }

    /// The parser without its COCO-form corrections.
    pub fn without_coco(&self) -> Parser {
        Parser {
            coco: None,
            coco_beam: Beam::GREEDY,
            ..self.clone()
        }
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
            scale: m.scale,
            coco: None,
            coco_beam: Beam::GREEDY,
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
        self.parse_form(words, tags, Form::AsWritten)
    }

    /// [`Parser::parse`] for a sentence of the given form: [`Form::Coco`] sentences get the
    /// COCO-form corrections.
    pub fn parse_form(&self, words: &[&str], tags: &[&str], form: Form) -> Vec<(usize, Label)> {
        let coco = match form {
            Form::Coco => self.coco.as_deref().map(perceptron::Corrected::used),
            Form::AsWritten => None,
        };
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => self.parse_with(words, tags, coco, &mut scratch),
            // Only reachable if parse were re-entered on this thread; fresh buffers then.
            Err(_) => self.parse_with(words, tags, coco, &mut Scratch::default()),
        })
    }

    fn parse_with(
        &self,
        words: &[&str],
        tags: &[&str],
        coco: Option<&perceptron::Corrected>,
        scratch: &mut Scratch,
    ) -> Vec<(usize, Label)> {
        let Scratch {
            st,
            sn,
            feats,
            scores,
            beam,
        } = scratch;
        sn.reset(words, tags);
        st.reset(words.len());
        scores.clear();
        scores.resize(self.weights.score_len(), 0);
        if let Some(c) = coco.filter(|_| self.coco_beam.width > 1) {
            return self.beam_search(sn, words.len(), self.coco_beam, c, beam);
        }
        while !st.terminal() {
            if let Some(m) = self.only_move(st) {
                st.apply(m);
                continue;
            }
            features(st, sn, feats);
            scores.iter_mut().for_each(|s| *s = 0);
            match coco {
                Some(c) => c.score(feats, scores),
                None => self.weights.score(feats, scores),
            }
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

    /// Beam search: the terminal state of the highest-scoring move sequence found keeping the
    /// `width` best partial sequences at each step (all sequences of one sentence have the
    /// same length, two moves per token). Ties go to the earlier beam entry, then to the move
    /// order of [`Parser::each_move`], so a width of 1 is the greedy parse.
    ///
    /// Entries of one step mostly read the same tokens, so most of their features agree: each
    /// entry after the first starts from the scores of the earlier entry whose features differ
    /// least and rescores only the features that differ (exactly: scores are integer sums).
    fn beam_search(
        &self,
        sn: &Sentence,
        n: usize,
        Beam { width, margin }: Beam,
        coco: &perceptron::Corrected,
        scratch: &mut BeamScratch,
    ) -> Vec<(usize, Label)> {
        let BeamScratch {
            beam,
            next,
            feats,
            scores,
            plus,
            minus,
        } = scratch;
        let len = self.weights.score_len();
        for v in [&mut *beam, &mut *next] {
            v.truncate(width);
            while v.len() < width {
                v.push((State::new(0), 0));
            }
        }
        // Two banks of features and scores: this step's entries, and the last step's, whose
        // configurations often read the same tokens in the same places too.
        while feats.len() < 2 * width {
            feats.push(Vec::with_capacity(128));
            scores.push(Vec::new());
        }
        beam[0].0.reset(n);
        beam[0].1 = 0;
        let mut live = 1;
        let (mut bank, mut last_live) = (0, 0);
        // Of all candidates at most `width` survive, and so at most `width` from any one entry:
        // each entry offers only its best `width` moves.
        let mut cands: Vec<(i64, usize, Move)> = Vec::with_capacity(width * width);
        let mut own: Vec<(i64, Move)> = Vec::with_capacity(width + 1);
        while !beam[0].0.terminal() {
            // One sequence with one way on: no choice, and no other sequence to rank it against.
            if let (1, Some(m)) = (live, self.only_move(&beam[0].0)) {
                beam[0].0.apply(m);
                last_live = 0;
                continue;
            }
            cands.clear();
            let here = bank * width;
            let there = (1 - bank) * width;
            for i in 0..live {
                let (st, total) = (&beam[i].0, beam[i].1);
                let mut f = std::mem::take(&mut feats[here + i]);
                let mut s = std::mem::take(&mut scores[here + i]);
                features(st, sn, &mut f);
                let differ = |g: &Vec<u64>| f.iter().zip(g).filter(|(a, b)| a != b).count();
                let from = (here..here + i)
                    .chain(there..there + last_live)
                    .map(|j| (differ(&feats[j]), j))
                    .min()
                    .filter(|&(d, _)| 2 * d < f.len());
                match from {
                    Some((_, j)) => {
                        s.clone_from(&scores[j]);
                        plus.clear();
                        minus.clear();
                        for (a, b) in f.iter().zip(&feats[j]) {
                            if a != b {
                                plus.push(*a);
                                minus.push(*b);
                            }
                        }
                        coco.score(plus, &mut s);
                        coco.unscore(minus, &mut s);
                        debug_assert!({
                            let mut full = vec![0; len];
                            coco.score(&f, &mut full);
                            full == s
                        });
                    }
                    None => {
                        s.clear();
                        s.resize(len, 0);
                        coco.score(&f, &mut s);
                    }
                }
                own.clear();
                self.each_move(st, |m, c| {
                    let s = s[c] as i64;
                    if own.len() == width && own[width - 1].0 >= s {
                        return;
                    }
                    // After the entries it does not beat: equal scores keep move order.
                    let at = own.partition_point(|e| e.0 >= s);
                    own.insert(at, (s, m));
                    own.truncate(width);
                });
                cands.extend(own.iter().map(|&(s, m)| (total + s, i, m)));
                feats[here + i] = f;
                scores[here + i] = s;
            }
            (bank, last_live) = (1 - bank, live);
            // Stable: equal totals keep the order they were found in.
            cands.sort_by_key(|c| std::cmp::Reverse(c.0));
            cands.truncate(width);
            let floor = cands[0].0.saturating_sub(margin);
            cands.retain(|c| c.0 >= floor);
            if let [(total, i, m)] = cands[..] {
                // One survivor (the common case with a margin): moved on in place, no copy.
                beam.swap(0, i);
                beam[0].0.apply(m);
                beam[0].1 = total;
                live = 1;
                continue;
            }
            for (j, &(total, i, m)) in cands.iter().enumerate() {
                next[j].0.copy_from(&beam[i].0);
                next[j].0.apply(m);
                next[j].1 = total;
            }
            live = cands.len();
            std::mem::swap(beam, next);
        }
        self.arcs(&beam[0].0)
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

/// The embedded base models with the COCO-form corrections read from two files instead of the
/// embedded ones (fold models of `train_coco`, for the examples that measure them).
pub fn models_with_corrections(
    parser_delta: &std::path::Path,
    tagger_delta: &std::path::Path,
) -> Result<(Tagger, Parser), String> {
    let (tagger, parser) = embedded_models().map_err(|e| e.to_string())?;
    let read = |p: &std::path::Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
    let what = |p: &std::path::Path| p.display().to_string();
    let parser = parser
        .without_coco()
        .with_coco(&read(parser_delta)?, &what(parser_delta))
        .map_err(|e| e.to_string())?;
    let tagger = tagger
        .without_coco()
        .with_coco(&read(tagger_delta)?, &what(tagger_delta))
        .map_err(|e| e.to_string())?;
    Ok((tagger, parser))
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

/// Copies of `trees` that teach structure as a function of the tags: in each copy, every word
/// whose tag is one of `tags` is replaced by a word drawn, by frequency, from those the trees
/// give that tag; tags, heads and labels stay. `copies` copies of each tree, tree by tree;
/// deterministic for `seed`. CoreNLP's PCFG is unlexicalized, so its tree for a sentence
/// depends on the words mostly through their tags: trained on the evidence trees and such copies,
/// the COCO-form corrections carry what a tree shows to words the evidence never put there
/// (`train_coco --augment`; the measurements are in `docs/parser-fidelity.md`).
pub fn swap_words(
    trees: &[TreeSentence],
    copies: usize,
    tags: &[&str],
    seed: u64,
) -> Vec<TreeSentence> {
    let mut pool: std::collections::HashMap<&str, Vec<&str>> = Default::default();
    for t in trees {
        for (w, tag) in t.words.iter().zip(&t.tags) {
            if tags.contains(&tag.as_str()) {
                pool.entry(tag.as_str()).or_default().push(w);
            }
        }
    }
    let mut state = seed;
    let mut out = Vec::with_capacity(trees.len() * copies);
    for t in trees {
        for _ in 0..copies {
            let mut c = t.clone();
            for (w, tag) in c.words.iter_mut().zip(&c.tags) {
                if let Some(words) = pool.get(tag.as_str()) {
                    *w = words[perceptron::draw(&mut state, words.len())].to_string();
                }
            }
            out.push(c);
        }
    }
    out
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
        scale: 1.0,
        coco: None,
        coco_beam: Beam::GREEDY,
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

/// The tags the parser sees: the tagger's, except that "while" is shown to it as an adverb (`RB`)
/// rather than a preposition (`IN`); the graph keeps `IN`. This is not a CoreNLP habit but a way
/// to steer our parser: with `IN` it often hangs the clause after "while" on the wrong word or
/// splits its subject from its verb ("... climbs a large rock while someone casting a shadow takes
/// her picture": `advcl(rock, casting)`, `conj(climbs, takes)`, no subject for "takes"), where
/// with `RB` it gives `nsubj(takes, someone)`, `acl(someone, casting)`, the official count (11).
/// Found by perturbing each Flickr8K candidate's tags one at a time and re-parsing (a one-off
/// search, not kept): `while IN -> RB` gives the official count for 3 candidates and changes none
/// that agreed. Measured on Flickr8K raw captions: exact tp/fp/fn
/// 1,597 -> 1,607 of 5,664 (28.2 -> 28.4 %), same candidate count 4,663 -> 4,684, same
/// reference count 1,967 -> 1,964, same tp unchanged (5,458), MAE of F unchanged (0.00499);
/// official graphs unchanged (70.7 %); PTB-tokenized input: exact 17.4 % unchanged, MAE 0.0066
/// -> 0.0067.
pub fn parser_tags<'a>(words: &[&str], tags: &[&'a str]) -> Vec<&'a str> {
    words
        .iter()
        .zip(tags)
        .map(|(w, &t)| {
            if t == "IN" && w.eq_ignore_ascii_case("while") {
                "RB"
            } else {
                t
            }
        })
        .collect()
}

/// Settings for [`Parser::train_delta`].
#[derive(Debug, Clone)]
pub struct DeltaOptions {
    pub epochs: usize,
    pub seed: u64,
    /// Averaged weights smaller than this (in perceptron units) are dropped.
    pub prune: f32,
    /// Learn from the unlexicalised features only (tags, labels, distances). Measured on the
    /// folds of the tuning half, the lexicalised corrections reproduce more (the PCFG's
    /// attachments depend on the words through its tag splits), so this is off by default.
    pub unlexicalised: bool,
    /// From this epoch on (0-based), a wrong prediction is followed with probability `explore`
    /// (the dynamic oracle's error exploration), as the base parser is trained; 0 follows the
    /// gold moves only. Off by default: on the folds of the tuning half, 0.5 and 0.9 gave
    /// 49.9 / 41.5 % and 49.6 / 41.5 % exact proposal sets (captions-a / captions-b) against
    /// 49.1 / 42.2 % without.
    pub explore_from: usize,
    pub explore: f64,
    /// Beam width: 1 trains greedy corrections; wider trains them on whole move sequences
    /// (a structured perceptron with early update, Collins & Roark 2004) and the parser then
    /// decodes [`Form::Coco`] sentences with a beam that wide. On the folds of the tuning half
    /// (exact proposal sets of `captions-a` / `captions-b`, points summed over both folds,
    /// shuffle seeds 7 and 8), greedy corrections read 100.3 / 86.3 and 96.0 / 86.8; width 2
    /// 100.8 / 86.1 (seed 7); width 3 102.9 / 87.3 and 100.6 / 88.4; width 4 102.1 / 88.1 and
    /// 102.1 / 88.6; width 8 103.0 / 89.3 (seed 7). Each configuration on the beam is scored,
    /// so a full beam costs about as many greedy parses as it is wide; see `margin`.
    pub beam: usize,
    /// With a beam: update where the beam's best outscores the gold sequence most
    /// (max-violation) rather than where the gold sequence leaves the beam (early update).
    pub max_violation: bool,
    /// With a beam: drop sequences more than this far behind the best (in the parser's
    /// quantised score units), in training and, as the model file records it, in parsing;
    /// 0 keeps the whole beam. Most steps then keep one sequence, and the beam widens only
    /// where moves score close. Width 3 with margin 16,000 reads 100.5 / 88.0 and
    /// 100.0 / 88.6 points (seeds 7 and 8): above greedy in all four cells, as the full
    /// width-3 beam, at 1.5 to 1.8 greedy parses per sentence instead of 3 (with max-violation
    /// updates 100.8 / 88.1 and 101.1 / 87.4; width 8 with the same margin: 102.2 / 87.0,
    /// seed 7). Margin 8,000, applied in parsing only to full width-3 corrections, falls back
    /// to greedy figures (100.5 / 85.9). Giving each configuration only its best move of each
    /// kind (SHIFT, LEFT, RIGHT), so that the beam holds different trees rather than one
    /// tree's label variants, reads 100.6 / 86.2 (width 3, seed 7; a patch, not kept).
    ///
    /// Trained on the whole tuning half, width 3 with margin 16,000 parses pycocoevalcap's form
    /// at 25,500 captions/s on 2 threads (greedy: 34,900; `scripts/bench-engine`, 2-core AMD
    /// EPYC, 2026-11-26), and on the held-out halves reproduces 50.8 % of `captions-a` (greedy
    /// 49.7 %) and 47.0 % of `captions-b` (47.0 %), tuple P / R 0.845 / 0.839 and
    /// 0.843 / 0.843 (0.848 / 0.840 and 0.843 / 0.842), but 72.4 % of the official graphs
    /// (73.1 %) and 29.8 % of the Flickr8K items as written (30.1 %; the floor is 30 %).
    /// Corrections trained on one fold of the tuning half, greedy or with a beam, read alike on
    /// those two (29.8 % of Flickr8K, 71.6 to 73.3 % of the graphs): the held-out figures of
    /// one training move by that much. No clear gain on held-out evidence, so the committed
    /// corrections stay greedy.
    pub margin: u32,
}

impl DeltaOptions {
    /// The beam these options train with, as the model file records it.
    fn beam_settings(&self) -> Beam {
        Beam {
            width: self.beam,
            margin: match self.margin {
                0 => i64::MAX,
                m => m as i64,
            },
        }
    }
}

impl Default for DeltaOptions {
    fn default() -> Self {
        DeltaOptions {
            epochs: 8,
            seed: 7,
            prune: 0.05,
            unlexicalised: false,
            explore_from: 1,
            explore: 0.0,
            beam: 1,
            max_violation: false,
            margin: 0,
        }
    }
}

impl Parser {
    /// Trains corrections to this parser: a second perceptron whose weights are added to the
    /// parser's scores, so that, together, they build the trees of `sents` (each given with the
    /// number of times it counts). The parser's own weights stay as they are; the corrections
    /// learn only where the parser goes wrong on these trees. Sentences the parser already
    /// parses right (its own parses, for instance) keep the corrections from changing what
    /// nobody asked to change. Training follows the gold moves (a static oracle among the
    /// zero-cost moves of the dynamic one); non-projective trees are skipped.
    /// Returns the corrections' model file (for [`Parser::with_coco`]).
    pub fn train_delta(
        &self,
        sents: &[(TreeSentence, usize)],
        opts: &DeltaOptions,
        log: &mut dyn FnMut(String),
    ) -> Result<Vec<u8>, String> {
        let nc = 1 + 2 * self.labels.len();
        let class_of_label = |name: &str| -> Result<usize, String> {
            let l = Label::from_name(name).ok_or_else(|| format!("unknown label {name:?}"))?;
            self.labels
                .iter()
                .position(|&x| x == l)
                .ok_or_else(|| format!("label {name:?} is not one of the parser's"))
        };
        let mut usable = Vec::new();
        for (k, (s, weight)) in sents.iter().enumerate() {
            if check_tree(&s.heads).is_err() || s.words.len() != s.heads.len() {
                continue;
            }
            let mut h = vec![usize::MAX];
            h.extend_from_slice(&s.heads);
            let mut l = vec![0];
            for x in &s.labels {
                l.push(class_of_label(x).map_err(|e| format!("training sentence {k}: {e}"))?);
            }
            for _ in 0..*weight {
                usable.push((k, h.clone(), l.clone()));
            }
        }
        log(format!(
            "parser corrections: {} sentences, {} usable with repeats",
            sents.len(),
            usable.len()
        ));
        if !(1..=MAX_BEAM).contains(&opts.beam) {
            return Err(format!(
                "beam width {} is not from 1 to {MAX_BEAM}",
                opts.beam
            ));
        }
        let mut model = Trainer::new(nc);
        let mut rng = perceptron::mix64(opts.seed ^ 0xDE17A);
        let mut order: Vec<usize> = (0..usable.len()).collect();
        if opts.beam > 1 {
            for epoch in 0..opts.epochs {
                shuffle(&mut order, &mut rng);
                let (mut early, mut right) = (0usize, 0usize);
                for &u in &order {
                    let (k, gh, gl) = &usable[u];
                    match self.beam_update(&sents[*k].0, gh, gl, opts, &mut model) {
                        BeamOutcome::Right => right += 1,
                        BeamOutcome::Early => early += 1,
                        BeamOutcome::Late => {}
                    }
                }
                log(format!(
                    "parser corrections epoch {} (beam {}): {:.2}% of trees right, {:.2}% fell off the beam, {} features",
                    epoch + 1,
                    opts.beam,
                    100.0 * right as f64 / order.len().max(1) as f64,
                    100.0 * early as f64 / order.len().max(1) as f64,
                    model.n_features()
                ));
            }
            let rows = model.averaged(opts.prune, usize::MAX);
            return Ok(perceptron::write_model_scaled(
                "parser-delta",
                &class_names(&self.labels),
                &opts.beam_settings().to_extra(),
                &rows,
                Some(self.scale),
            ));
        }
        let mut feats = Vec::with_capacity(128);
        let mut base = vec![0i32; self.weights.score_len()];
        let mut scores = vec![0f32; nc];
        let mut cost = vec![0i32; nc];
        for epoch in 0..opts.epochs {
            shuffle(&mut order, &mut rng);
            let (mut right, mut total, mut trees) = (0usize, 0usize, 0usize);
            for &u in &order {
                let (k, gh, gl) = &usable[u];
                let s = &sents[*k].0;
                let words: Vec<&str> = s.words.iter().map(String::as_str).collect();
                let tags: Vec<&str> = s.tags.iter().map(String::as_str).collect();
                let sn = Sentence::new(&words, &tags);
                let mut st = State::new(words.len());
                let mut all_right = true;
                while !st.terminal() {
                    self.delta_scores(&st, &sn, opts, &model, &mut feats, &mut base, &mut scores);
                    oracle_costs(&st, gh, gl, self, &mut cost);
                    let guess = self.best_move(&st, &scores, |_| true);
                    let min = cost.iter().copied().min().unwrap_or(0);
                    let gold = self.best_move(&st, &scores, |m| cost[self.class_of(m)] == min);
                    let (gc, bc) = (self.class_of(guess), self.class_of(gold));
                    model.tick();
                    let next = if cost[gc] == min {
                        right += 1;
                        gold
                    } else {
                        all_right = false;
                        model.update(&feats, bc, gc);
                        // (The draw only when exploring, so that without it the shuffles,
                        // and the model, are what they were.)
                        let explore = opts.explore > 0.0
                            && epoch >= opts.explore_from
                            && perceptron::coin(&mut rng) < opts.explore;
                        if explore {
                            guess
                        } else {
                            gold
                        }
                    };
                    total += 1;
                    st.apply(next);
                }
                trees += usize::from(all_right);
            }
            log(format!(
                "parser corrections epoch {}: {:.2}% of transitions and {:.2}% of trees right while training, {} features",
                epoch + 1,
                100.0 * right as f64 / total.max(1) as f64,
                100.0 * trees as f64 / order.len().max(1) as f64,
                model.n_features()
            ));
        }
        let rows = model.averaged(opts.prune, usize::MAX);
        Ok(perceptron::write_model_scaled(
            "parser-delta",
            &class_names(&self.labels),
            &[],
            &rows,
            Some(self.scale),
        ))
    }
}

/// How one sentence went in beam training.
enum BeamOutcome {
    /// The best sequence builds the gold tree: no update.
    Right,
    /// Every sequence that could still build the gold tree fell off the beam at some step
    /// (early update: updated there; max-violation: where the beam's best led the most).
    Early,
    /// The beam kept a gold sequence to the end, but another one scored higher: updated.
    Late,
}

/// One entry of the training beam: the moves so far, their total score, and whether every one
/// of them kept the gold tree reachable.
#[derive(Clone)]
struct BeamItem {
    moves: Vec<Move>,
    total: f32,
    gold: bool,
}

impl Parser {
    /// Beam-searches `s` with the parser plus the corrections in `model`, and updates the
    /// corrections where the search goes wrong: +1 for the moves of the best sequence that
    /// builds the gold tree (heads `gh`, label classes `gl`), -1 for those of the beam's best,
    /// from where they part. Early update stops at the first step with no gold sequence left on
    /// the beam; max-violation update searches to the end, following the gold sequence off the
    /// beam, and updates at the step where the beam's best outscores it most (Huang et al. 2012).
    fn beam_update(
        &self,
        s: &TreeSentence,
        gh: &[usize],
        gl: &[usize],
        opts: &DeltaOptions,
        model: &mut Trainer,
    ) -> BeamOutcome {
        let words: Vec<&str> = s.words.iter().map(String::as_str).collect();
        let tags: Vec<&str> = s.tags.iter().map(String::as_str).collect();
        let sn = Sentence::new(&words, &tags);
        let n = words.len();
        let nc = 1 + 2 * self.labels.len();
        let mut feats = Vec::with_capacity(128);
        let mut base = vec![0i32; self.weights.score_len()];
        let mut scores = vec![0f32; nc];
        let mut cost = vec![0i32; nc];
        let start = BeamItem {
            moves: Vec::new(),
            total: 0.0,
            gold: true,
        };
        let mut beam = vec![(State::new(n), start.clone())];
        // The best gold sequence so far, on the beam or (max-violation only) off it.
        let mut gold = (State::new(n), start);
        let mut worst: Option<(f32, Vec<Move>, Vec<Move>)> = None;
        let mut dropped = false;
        let mut cands: Vec<(f32, usize, Move, bool)> = Vec::new();
        while !beam[0].0.terminal() {
            cands.clear();
            for (i, (st, item)) in beam.iter().enumerate() {
                self.delta_scores(st, &sn, opts, model, &mut feats, &mut base, &mut scores);
                if item.gold {
                    oracle_costs(st, gh, gl, self, &mut cost);
                }
                self.each_move(st, |m, c| {
                    cands.push((item.total + scores[c], i, m, item.gold && cost[c] == 0));
                });
            }
            cands.sort_by(|a, b| b.0.total_cmp(&a.0));
            model.tick();
            let extend = |st0: &State, item: &BeamItem, m: Move, total: f32, gold: bool| {
                let mut st = State::new(0);
                st.copy_from(st0);
                st.apply(m);
                let mut moves = item.moves.clone();
                moves.push(m);
                (st, BeamItem { moves, total, gold })
            };
            gold = match cands.iter().find(|c| c.3) {
                Some(&(total, i, m, _)) => extend(&beam[i].0, &beam[i].1, m, total, true),
                None => {
                    // Off the beam: the gold sequence's own best zero-cost move.
                    self.delta_scores(
                        &gold.0,
                        &sn,
                        opts,
                        model,
                        &mut feats,
                        &mut base,
                        &mut scores,
                    );
                    oracle_costs(&gold.0, gh, gl, self, &mut cost);
                    let m = self.best_move(&gold.0, &scores, |m| cost[self.class_of(m)] == 0);
                    if cost[self.class_of(m)] != 0 {
                        // No zero-cost move: only for trees the system cannot build.
                        return BeamOutcome::Late;
                    }
                    let total = gold.1.total + scores[self.class_of(m)];
                    extend(&gold.0, &gold.1, m, total, true)
                }
            };
            let margin = match opts.beam_settings().margin {
                i64::MAX => f32::INFINITY,
                m => m as f32 * self.scale,
            };
            let keep = cands
                .iter()
                .take(opts.beam)
                .take_while(|c| c.0 >= cands[0].0 - margin)
                .count();
            let fell_off = !cands.iter().take(keep).any(|c| c.3);
            dropped |= fell_off;
            // Early update keeps the last step where the beam's best is not gold (the one where
            // the gold fell off, or the end), max-violation the one where it leads the most.
            let violation = cands[0].0 - gold.1.total;
            if !cands[0].3
                && (!opts.max_violation || worst.as_ref().is_none_or(|w| violation > w.0))
            {
                let (_, i, m, _) = cands[0];
                let mut p = beam[i].1.moves.clone();
                p.push(m);
                worst = Some((violation, gold.1.moves.clone(), p));
            }
            if fell_off && !opts.max_violation {
                break;
            }
            cands.truncate(keep);
            beam = cands
                .iter()
                .map(|&(total, i, m, g)| extend(&beam[i].0, &beam[i].1, m, total, g))
                .collect();
        }
        let right = beam[0].0.terminal() && beam[0].1.gold;
        if !right {
            if let Some((_, g, p)) = worst {
                self.sequence_update(&sn, n, &g, &p, opts, model, &mut feats);
            }
        }
        if right {
            BeamOutcome::Right
        } else if dropped {
            BeamOutcome::Early
        } else {
            BeamOutcome::Late
        }
    }

    /// The base parser's scores plus the corrections being trained, for one configuration.
    #[allow(clippy::too_many_arguments)]
    fn delta_scores(
        &self,
        st: &State,
        sn: &Sentence,
        opts: &DeltaOptions,
        model: &Trainer,
        feats: &mut Vec<u64>,
        base: &mut [i32],
        scores: &mut [f32],
    ) {
        features(st, sn, feats);
        base.iter_mut().for_each(|x| *x = 0);
        self.weights.score(feats, base);
        for (x, b) in scores.iter_mut().zip(base.iter()) {
            *x = *b as f32 * self.scale;
        }
        if opts.unlexicalised {
            feats.truncate(UNLEXICALISED);
        }
        model.score(feats, scores);
    }

    /// +1 to the corrections for the moves of `gold`, -1 for those of `guess`, from the first
    /// move where they differ (before it, both pass through the same configurations).
    #[allow(clippy::too_many_arguments)]
    fn sequence_update(
        &self,
        sn: &Sentence,
        n: usize,
        gold: &[Move],
        guess: &[Move],
        opts: &DeltaOptions,
        model: &mut Trainer,
        feats: &mut Vec<u64>,
    ) {
        let same = gold.iter().zip(guess).take_while(|(a, b)| a == b).count();
        for (moves, delta) in [(gold, 1.0f32), (guess, -1.0f32)] {
            let mut st = State::new(n);
            for (k, &m) in moves.iter().enumerate() {
                if k >= same {
                    features(&st, sn, feats);
                    if opts.unlexicalised {
                        feats.truncate(UNLEXICALISED);
                    }
                    model.add(feats, self.class_of(m), delta);
                }
                st.apply(m);
            }
        }
    }
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
        scale: 1.0,
        coco: None,
        coco_beam: Beam::GREEDY,
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

    #[test]
    fn coco_corrections_fold_into_one_table_that_scores_alike() {
        if !EMBEDDED_COCO.is_empty() {
            perceptron::assert_folds_exactly(EMBEDDED, "parser", EMBEDDED_COCO, "parser-delta");
        }
    }

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

    /// The toy sentences, and each again with its words reversed: a barely trained parser
    /// hesitates on those.
    fn toy_data_both_ways() -> Vec<TreeSentence> {
        let mut sents = toy_data();
        for s in toy_data() {
            let mut r = s.clone();
            r.words.reverse();
            r.tags.reverse();
            sents.push(r);
        }
        sents
    }

    #[test]
    fn a_beam_of_one_is_the_greedy_parse() {
        // Barely trained, so that many decisions are close and some wrong.
        let p = toy_parser(1);
        let sents = toy_data_both_ways();
        for s in &sents {
            let (w, t) = words_tags(s);
            let sn = Sentence::new(&w, &t);
            let none = perceptron::Corrected::new(
                std::sync::Arc::clone(&p.weights),
                perceptron::Weights::empty(1 + 2 * p.labels.len()),
            );
            let arcs = p.beam_search(
                &sn,
                w.len(),
                Beam::GREEDY,
                &none,
                &mut BeamScratch::default(),
            );
            assert_eq!(arcs, p.parse(&w, &t), "{:?}", s.words);
        }
    }

    #[test]
    fn a_margin_drops_only_sequences_that_fall_behind_it() {
        let p = toy_parser(1);
        let none = perceptron::Corrected::new(
            std::sync::Arc::clone(&p.weights),
            perceptron::Weights::empty(1 + 2 * p.labels.len()),
        );
        let beam = |width, margin, w: &[&str], t: &[&str]| {
            let sn = Sentence::new(w, t);
            let b = Beam { width, margin };
            p.beam_search(&sn, w.len(), b, &none, &mut BeamScratch::default())
        };
        let sents = toy_data_both_ways();
        let mut differ = 0;
        for s in &sents {
            let (w, t) = words_tags(s);
            // A margin of 0 keeps only the best sequence (and those tied with it): the greedy
            // parse, whatever the width.
            assert_eq!(beam(8, 0, &w, &t), p.parse(&w, &t), "{:?}", s.words);
            // A margin wider than any score difference keeps the whole beam.
            assert_eq!(beam(8, i64::MAX / 2, &w, &t), beam(8, i64::MAX, &w, &t));
            differ += usize::from(beam(8, i64::MAX, &w, &t) != p.parse(&w, &t));
        }
        assert!(
            differ > 0,
            "the toy beam never leaves the greedy parse: the test says nothing"
        );
    }

    #[test]
    fn beam_corrections_learn_other_trees_for_the_coco_form_only() {
        let data = toy_data();
        let p = toy_parser(15);
        // The official parser's habit: the prepositional phrase on the noun, not the verb.
        let mut wanted = data.clone();
        wanted[1].heads = vec![2, 0, 2, 6, 6, 2];
        wanted[4].heads = vec![2, 0, 2, 6, 6, 2];
        let sents: Vec<(TreeSentence, usize)> = wanted.iter().map(|s| (s.clone(), 3)).collect();
        let settings = [
            (1, false, 0),
            (4, false, 0),
            (4, true, 0),
            (4, false, 1_000_000),
        ];
        for (beam, max_violation, margin) in settings {
            let delta = DeltaOptions {
                epochs: 10,
                beam,
                max_violation,
                margin,
                ..DeltaOptions::default()
            };
            let bytes = p
                .train_delta(&sents, &delta, &mut |_| {})
                .expect("corrections");
            let c = p
                .clone()
                .with_coco(&bytes, "toy corrections")
                .expect("load");
            let recorded = Beam {
                width: beam,
                margin: if margin == 0 { i64::MAX } else { margin as i64 },
            };
            assert_eq!(
                c.coco_beam, recorded,
                "the model file keeps the beam settings"
            );
            for (s, orig) in wanted.iter().zip(&data) {
                let (w, t) = words_tags(s);
                assert_eq!(c.parse_form(&w, &t, Form::Coco), arcs(s), "{:?}", s.words);
                assert_eq!(c.parse_form(&w, &t, Form::AsWritten), arcs(orig));
            }
        }
        let wide = DeltaOptions {
            beam: MAX_BEAM + 1,
            ..DeltaOptions::default()
        };
        assert!(p.train_delta(&sents, &wide, &mut |_| {}).is_err());
        for extra in [
            &[0u8][..],
            &[65],
            &[4, 4],
            &[4, 0, 0, 1],
            &[0, 1, 0, 0, 0],
            &[4; 6],
        ] {
            let bad = perceptron::write_model_scaled(
                "parser-delta",
                &class_names(&p.labels),
                extra,
                &[],
                Some(p.scale),
            );
            let err = p
                .clone()
                .with_coco(&bad, "bad corrections")
                .expect_err("bad beam settings are refused");
            assert!(err.to_string().contains("beam settings"), "{err}");
        }
    }

    #[test]
    fn untrained_parser_still_returns_one_rooted_tree() {
        let p = Parser {
            weights: std::sync::Arc::new(Weights::empty(5)),
            scale: 1.0,
            coco: None,
            coco_beam: Beam::GREEDY,
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

    #[test]
    fn swapped_words_keep_the_tree_and_come_from_words_of_the_same_tag() {
        let tree = |text: &str, tags: &str, heads: &[usize], labels: &str| TreeSentence {
            words: text.split(' ').map(String::from).collect(),
            tags: tags.split(' ').map(String::from).collect(),
            heads: heads.to_vec(),
            labels: labels.split(' ').map(String::from).collect(),
        };
        let trees = [
            tree(
                "a dog on a sofa",
                "DT NN IN DT NN",
                &[2, 0, 5, 5, 2],
                "det root case det nmod",
            ),
            tree(
                "red cats running",
                "JJ NNS VBG",
                &[2, 0, 2],
                "amod root acl",
            ),
            tree("a bench", "DT NN", &[2, 0], "det root"),
        ];
        let copies = swap_words(&trees, 20, &["NN", "NNS", "JJ"], 7);
        assert_eq!(copies.len(), 60);
        let mut changed = 0;
        for (i, c) in copies.iter().enumerate() {
            let t = &trees[i / 20];
            assert_eq!(
                (&c.tags, &c.heads, &c.labels),
                (&t.tags, &t.heads, &t.labels)
            );
            for ((w, orig), tag) in c.words.iter().zip(&t.words).zip(&t.tags) {
                match tag.as_str() {
                    "NN" => assert!(["dog", "sofa", "bench"].contains(&w.as_str()), "{w}"),
                    "NNS" => assert_eq!(w, "cats"),
                    "JJ" => assert_eq!(w, "red"),
                    _ => assert_eq!(w, orig, "a word of another tag was swapped"),
                }
                changed += usize::from(w != orig);
            }
        }
        assert!(changed > 0, "no word was swapped");
        let again = swap_words(&trees, 20, &["NN", "NNS", "JJ"], 7);
        assert!(copies.iter().zip(&again).all(|(a, b)| a.words == b.words));
        assert!(swap_words(&trees, 0, &["NN"], 7).is_empty());
    }
}
