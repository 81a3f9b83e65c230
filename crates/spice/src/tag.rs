//! Part-of-speech tagging: tokens in, Penn Treebank tags out (`NN`, `VBG`, `JJ`, ...), as CoreNLP
//! 3.6.0's parser would assign them to a caption.
//!
//! In: the tokens of one sentence (`&[&str]`, as the tokenizer gives them, either as written or
//! lowercased without punctuation as pycocoevalcap feeds SPICE). Out: one tag per token.
//!
//! The tagger is a greedy left-to-right averaged perceptron (the classic design of Collins 2002
//! and Honnibal's "textblob" tagger): each token is scored with features of its word, lowercase
//! form, prefixes, suffixes and shape, its neighbours' words, and the two tags already chosen on
//! its left. Frequent words that the training data always tags the same way (`a` -> `DT`) skip
//! the model through a tag dictionary. The tags it learns are CoreNLP's PCFG's, which come from
//! the PCFG's best parse of the whole sentence: so the tagger also sees whether the sentence ends
//! in a full stop and which kinds of verb it has tagged on the left (`Facts`), and it tags twice,
//! the second pass reading the first pass's tags on the right and its finite verbs elsewhere in
//! the sentence (one weight table, the second pass's features in a space of their own), and the
//! shape of the whole sentence as the first pass tagged it (`Patterns`: captions repeat their
//! shapes, and the PCFG tags a shape's positions alike). Trained with `jackknife`, the second pass
//! learns from first-pass tags as wrong as they are at run time (stacking). The model
//! is trained by `scripts/train-parser` (the `train_parser` example) on the exact pipeline's
//! analyses and embedded in the binary; see `perceptron` for the file format.

use std::sync::OnceLock;

use crate::perceptron::{
    self, feat, hash_lower, hash_str, put_str, put_varint, IdMap, ModelError, Reader, Trainer,
    Weights,
};

/// Every tag a model may use: the Penn Treebank tag set, plus the OntoNotes additions a teacher
/// may emit. Model classes are mapped onto these so that tags are `&'static str`.
pub const TAGS: &[&str] = &[
    "CC", "CD", "DT", "EX", "FW", "IN", "JJ", "JJR", "JJS", "LS", "MD", "NN", "NNS", "NNP", "NNPS",
    "PDT", "POS", "PRP", "PRP$", "RB", "RBR", "RBS", "RP", "SYM", "TO", "UH", "VB", "VBD", "VBG",
    "VBN", "VBP", "VBZ", "WDT", "WP", "WP$", "WRB", "#", "$", "''", "``", ",", ".", ":", "-LRB-",
    "-RRB-", "-LCB-", "-RCB-", "HYPH", "NFP", "ADD", "AFX", "XX", "_SP", "GW",
];

/// The tag called `name` as a `&'static str`, if it is one of [`TAGS`].
pub fn static_tag(name: &str) -> Option<&'static str> {
    TAGS.iter().copied().find(|t| *t == name)
}

/// The tag of a token a model cannot say anything about (only with an empty model).
const FALLBACK_TAG: &str = "NN";

/// The embedded tagger model (built by `scripts/train-parser`).
pub(crate) static EMBEDDED: &[u8] =
    include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/models/tagger.bin"));
/// A trained tagger. Immutable and `Sync`: share one across threads.
#[derive(Debug, Clone)]
pub struct Tagger {
    weights: std::sync::Arc<Weights>,
    classes: Vec<&'static str>,
    /// Exact word hash -> class, for frequent unambiguous words.
    dict: IdMap<u8>,
    /// What each class tells the features.
    info: ClassInfo,
    /// Tags in two passes (the second reads the first's classes on its right).
    two_pass: bool,
    /// The second pass also reads the first pass's whole-sentence [`Patterns`].
    patterns: bool,
}

// Feature templates. Numbers are part of the model: never renumber, only add.
const T_BIAS: u32 = 0;
const T_LOWER: u32 = 1;
const T_SUF3: u32 = 2;
const T_PRE1: u32 = 3;
const T_P1: u32 = 4;
const T_P2: u32 = 5;
const T_P1P2: u32 = 6;
const T_P1_LOWER: u32 = 7;
const T_LOWER_M1: u32 = 8;
const T_SUF3_M1: u32 = 9;
const T_LOWER_M2: u32 = 10;
const T_LOWER_P1: u32 = 11;
const T_SUF3_P1: u32 = 12;
const T_LOWER_P2: u32 = 13;
const T_SHAPE: u32 = 14;
const T_WORD: u32 = 15;
const T_SUF2: u32 = 16;
const T_PRE3: u32 = 17;
const T_SUF4: u32 = 18;
const T_BIGRAM_M1: u32 = 19;
const T_BIGRAM_P1: u32 = 20;
const T_P1_LOWER_P1: u32 = 21;
const T_SHAPE_M1: u32 = 22;
const T_SHAPE_P1: u32 = 23;
const T_SUF1: u32 = 24;
const T_P1_SUF3: u32 = 25;
const T_TRIGRAM: u32 = 26;
const T_END_SUF3: u32 = 27;
const T_END_LOWER: u32 = 28;
const T_VERB_LEFT_SUF3: u32 = 29;
const T_VERB_LEFT_LOWER: u32 = 30;
const T_LOWER_P3: u32 = 31;
const T_SUF3_P2: u32 = 32;
const T_P1_LOWER_LOWER_P1: u32 = 33;
const T_P2_P1_SUF3: u32 = 34;
const T_LEFT_SUF3: u32 = 35;
const T_AT_LOWER: u32 = 36;
const T_AT_SUF3_LOWER_P1: u32 = 37;
const T_R1: u32 = 38;
const T_R1R2: u32 = 39;
const T_R1_LOWER: u32 = 40;
const T_R1_SUF3: u32 = 41;
const T_VERB_RIGHT_SUF3: u32 = 42;
const T_VERB_RIGHT_LOWER: u32 = 43;
const T_P1_R1: u32 = 44;
const T_R1_LOWER_P1: u32 = 45;
const T_VERBS_ALL_SUF3: u32 = 46;
const T_VERBS_ALL_LOWER: u32 = 47;
const T_R1_R2_SUF3: u32 = 48;
const T_P1_R1_LOWER: u32 = 49;
const T_PAT_FULL: u32 = 50;
const T_PAT_FULL_LOWER: u32 = 51;
const T_PAT_LEX: u32 = 52;
const T_PAT_CHUNK: u32 = 53;
const T_PAT_RIGHT: u32 = 54;
const T_PAT_LEFT: u32 = 55;

/// Second-pass features are the first pass's templates and more, all moved by this salt into a
/// space of their own (one weight table holds both passes).
const PASS2_SALT: u64 = 0x5041_5353_325F_5F5F; // "PASS2___"

/// Appends the second pass's own features of token `i` (the first pass's classes on its right)
/// to the first pass's in `out`, and moves them all into the second pass's space.
fn second_pass_features(
    toks: &[TokenHashes],
    i: usize,
    p1: u64,
    first: &[usize],
    kinds: &[u64],
    pat: Option<&Patterns>,
    out: &mut Vec<u64>,
) {
    let right = |j: usize| first.get(j).map_or(PAD_END, |&c| c as u64 + 1);
    let (r1, r2) = (right(i + 1), right(i + 2));
    let verbs_right = first[i + 1..]
        .iter()
        .fold(0, |a, &c| a | kinds.get(c).copied().unwrap_or(0));
    // The first pass's finite verbs elsewhere in the sentence (0, 1, 2 or more).
    let finite_elsewhere = first
        .iter()
        .enumerate()
        .filter(|&(j, &c)| j != i && kinds.get(c) == Some(&1))
        .count()
        .min(2) as u64;
    let w = toks[i];
    let n1 = toks
        .get(i + 1)
        .copied()
        .unwrap_or(TokenHashes::pad(PAD_END));
    out.extend_from_slice(&[
        feat(T_R1, r1, 0, 0),
        feat(T_R1R2, r1, r2, 0),
        feat(T_R1_LOWER, r1, w.lower, 0),
        feat(T_R1_SUF3, r1, w.suf3, 0),
        feat(T_VERB_RIGHT_SUF3, verbs_right, w.suf3, 0),
        feat(T_VERB_RIGHT_LOWER, verbs_right, w.lower, 0),
        feat(T_P1_R1, p1, r1, 0),
        feat(T_R1_LOWER_P1, r1, n1.lower, 0),
        feat(T_VERBS_ALL_SUF3, finite_elsewhere, w.suf3, verbs_right),
        feat(T_VERBS_ALL_LOWER, finite_elsewhere, w.lower, 0),
        feat(T_R1_R2_SUF3, r1, r2, w.suf3),
        feat(T_P1_R1_LOWER, p1, r1, w.lower),
    ]);
    if let Some(p) = pat {
        let at = i as u64;
        out.extend_from_slice(&[
            feat(T_PAT_FULL, p.full, at, 0),
            feat(T_PAT_FULL_LOWER, p.full, at, w.lower),
            feat(T_PAT_LEX, p.lexical, at, 0),
            feat(T_PAT_CHUNK, p.chunk, p.chunk_at[i], w.suf3),
            feat(T_PAT_RIGHT, p.right[i + 1], w.lower, 0),
            feat(T_PAT_LEFT, p.left[i], w.lower, 0),
        ]);
    }
    for f in out.iter_mut() {
        *f = perceptron::combine(*f, PASS2_SALT);
    }
}

/// How a class enters the second pass's sentence patterns: by its word (function words and
/// punctuation), as one noun-phrase symbol for a run of nominal classes, or as itself.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    Word,
    Nominal,
    Itself,
}

fn role(tag: &str) -> Role {
    match tag {
        "NN" | "NNS" | "NNP" | "NNPS" | "CD" | "JJ" | "JJR" | "JJS" | "DT" | "PDT" | "PRP$"
        | "POS" | "PRP" => Role::Nominal,
        "IN" | "TO" | "CC" | "RP" | "WDT" | "WP" | "WP$" | "WRB" | "EX" | "MD" | "," | "."
        | ":" => Role::Word,
        _ => Role::Itself,
    }
}

/// Whether a class enters the lexical pattern by its word.
fn closed(tag: &str) -> bool {
    role(tag) == Role::Word || matches!(tag, "DT" | "PDT" | "PRP" | "PRP$" | "POS")
}

/// What a class tells the tagger: its verb kind, its role in patterns, whether it is closed.
#[derive(Clone, Debug)]
struct ClassInfo {
    kinds: Vec<u64>,
    roles: Vec<Role>,
    closed: Vec<bool>,
}

impl ClassInfo {
    fn new(classes: &[&str]) -> ClassInfo {
        ClassInfo {
            kinds: classes.iter().map(|c| verb_kind(c)).collect(),
            roles: classes.iter().map(|c| role(c)).collect(),
            closed: classes.iter().map(|c| closed(c)).collect(),
        }
    }
}

/// The whole sentence as the first pass tagged it, hashed at three grains, for the second pass:
/// the PCFG's tags follow from its best parse of the whole caption, and captions repeat their
/// shapes, so a shape seen in training says how the PCFG tags each of its positions.
struct Patterns {
    /// Every class.
    full: u64,
    /// Classes, with function words and determiners by their word.
    lexical: u64,
    /// The lexical pattern with each run of nominal classes one symbol.
    chunk: u64,
    /// Each token's index among the chunk pattern's symbols.
    chunk_at: Vec<u64>,
    /// `left[i]`: the lexical pattern of tokens `..i`; `right[i]`: of tokens `i..`.
    left: Vec<u64>,
    right: Vec<u64>,
}

const PAT_SEED: u64 = 0x5041_5454_4552_4E5F; // "PATTERN_"

impl Patterns {
    fn new(toks: &[TokenHashes], first: &[usize], info: &ClassInfo) -> Patterns {
        let n = first.len();
        let lex = |j: usize| -> u64 {
            let c = first[j];
            if info.closed.get(c).copied().unwrap_or(false) {
                perceptron::combine(1, toks[j].lower)
            } else {
                c as u64 + 2
            }
        };
        let mut full = PAT_SEED;
        let mut chunk = PAT_SEED;
        let mut chunk_at = Vec::with_capacity(n);
        let mut left = Vec::with_capacity(n + 1);
        left.push(PAT_SEED);
        let (mut symbols, mut in_np) = (0u64, false);
        for (j, &c) in first.iter().enumerate() {
            full = perceptron::combine(full, c as u64 + 2);
            let l = lex(j);
            left.push(perceptron::combine(left[j], l));
            let nominal = info.roles.get(c) == Some(&Role::Nominal);
            if !(nominal && in_np) {
                symbols += 1;
                chunk = perceptron::combine(chunk, if nominal { 1 } else { l });
            }
            in_np = nominal;
            chunk_at.push(symbols);
        }
        let mut right = vec![PAT_SEED; n + 1];
        for j in (0..n).rev() {
            right[j] = perceptron::combine(right[j + 1], lex(j));
        }
        Patterns {
            full,
            lexical: left[n],
            chunk,
            chunk_at,
            left,
            right,
        }
    }
}

/// What the tagger knows of a sentence beyond a token's window: how it ends (a caption ending in
/// a full stop is a sentence for the PCFG more often than a fragment) and the kinds of the verbs
/// tagged so far on the left (whether a finite verb, a gerund or a participle came before).
#[derive(Clone, Copy, Default)]
struct Facts {
    end: u64,
    verbs_left: u64,
    remaining: u64,
}

/// The kind of a tag for the tagger's `Facts::verbs_left` and the parser's sentence features: 1
/// finite verb or modal, 2 gerund, 4 participle, 0 other.
pub(crate) fn verb_kind(tag: &str) -> u64 {
    match tag {
        "VBZ" | "VBP" | "VBD" | "MD" => 1,
        "VBG" => 2,
        "VBN" => 4,
        _ => 0,
    }
}

/// Hashes of one token's word forms, computed once per token.
#[derive(Clone, Copy, Debug)]
struct TokenHashes {
    word: u64,
    lower: u64,
    suf1: u64,
    suf2: u64,
    suf3: u64,
    suf4: u64,
    pre1: u64,
    pre3: u64,
    shape: u64,
}

const PAD_START: u64 = 0x5354_4152_545F_5F5F; // "START___"
const PAD_END: u64 = 0x454E_445F_5F5F_5F5F; // "END_____"

impl TokenHashes {
    fn pad(v: u64) -> TokenHashes {
        TokenHashes {
            word: v,
            lower: v,
            suf1: v,
            suf2: v,
            suf3: v,
            suf4: v,
            pre1: v,
            pre3: v,
            shape: v,
        }
    }

    /// `buf` is scratch space for the lowercase form (reused to avoid allocating per token).
    fn new(word: &str, first: bool, buf: &mut String) -> TokenHashes {
        buf.clear();
        buf.extend(word.chars().flat_map(char::to_lowercase));
        let lower = buf.as_str();
        let suffix = |k: usize| -> u64 {
            let start = lower
                .char_indices()
                .rev()
                .nth(k - 1)
                .map(|(i, _)| i)
                .unwrap_or(0);
            perceptron::combine(k as u64, hash_str(&lower[start..]))
        };
        let prefix = |k: usize| -> u64 {
            let end = lower
                .char_indices()
                .nth(k)
                .map(|(i, _)| i)
                .unwrap_or(lower.len());
            perceptron::combine(100 + k as u64, hash_str(&lower[..end]))
        };
        TokenHashes {
            word: hash_str(word),
            lower: hash_str(lower),
            suf1: suffix(1),
            suf2: suffix(2),
            suf3: suffix(3),
            suf4: suffix(4),
            pre1: prefix(1),
            pre3: prefix(3),
            shape: shape_hash(word, first),
        }
    }
}

/// Hash of the word's shape: `Xxxx` for "Dog", `dd` for "42", `x-x` for "t-shirt"; runs longer
/// than two of one kind are cut to two, and the first token of a sentence is marked (a capital
/// there says little).
fn shape_hash(word: &str, first: bool) -> u64 {
    let mut h = perceptron::mix64(first as u64 + 7);
    let (mut last, mut run, mut n) = ('\0', 0, 0);
    for c in word.chars() {
        let k = if c.is_uppercase() {
            'X'
        } else if c.is_lowercase() {
            'x'
        } else if c.is_numeric() {
            'd'
        } else if c.is_alphabetic() {
            'a'
        } else {
            c
        };
        if k == last {
            run += 1;
            if run > 2 {
                continue;
            }
        } else {
            last = k;
            run = 1;
        }
        n += 1;
        if n > 8 {
            break;
        }
        h = perceptron::combine(h, k as u64);
    }
    h
}

/// Writes the features of token `i` given the two previous tags into `out`.
fn features(toks: &[TokenHashes], i: usize, p1: u64, p2: u64, facts: Facts, out: &mut Vec<u64>) {
    let at = |j: isize| -> TokenHashes {
        if j < 0 {
            TokenHashes::pad(PAD_START)
        } else {
            toks.get(j as usize)
                .copied()
                .unwrap_or(TokenHashes::pad(PAD_END))
        }
    };
    let i = i as isize;
    let (w, m1, m2, n1, n2, n3) = (at(i), at(i - 1), at(i - 2), at(i + 1), at(i + 2), at(i + 3));
    out.clear();
    out.extend_from_slice(&[
        feat(T_BIAS, 0, 0, 0),
        feat(T_LOWER, w.lower, 0, 0),
        feat(T_WORD, w.word, 0, 0),
        feat(T_SUF1, w.suf1, 0, 0),
        feat(T_SUF2, w.suf2, 0, 0),
        feat(T_SUF3, w.suf3, 0, 0),
        feat(T_SUF4, w.suf4, 0, 0),
        feat(T_PRE1, w.pre1, 0, 0),
        feat(T_PRE3, w.pre3, 0, 0),
        feat(T_SHAPE, w.shape, 0, 0),
        feat(T_P1, p1, 0, 0),
        feat(T_P2, p2, 0, 0),
        feat(T_P1P2, p1, p2, 0),
        feat(T_P1_LOWER, p1, w.lower, 0),
        feat(T_P1_SUF3, p1, w.suf3, 0),
        feat(T_LOWER_M1, m1.lower, 0, 0),
        feat(T_SUF3_M1, m1.suf3, 0, 0),
        feat(T_SHAPE_M1, m1.shape, 0, 0),
        feat(T_LOWER_M2, m2.lower, 0, 0),
        feat(T_LOWER_P1, n1.lower, 0, 0),
        feat(T_SUF3_P1, n1.suf3, 0, 0),
        feat(T_SHAPE_P1, n1.shape, 0, 0),
        feat(T_LOWER_P2, n2.lower, 0, 0),
        feat(T_BIGRAM_M1, m1.lower, w.lower, 0),
        feat(T_BIGRAM_P1, w.lower, n1.lower, 0),
        feat(T_P1_LOWER_P1, p1, n1.lower, 0),
        feat(T_TRIGRAM, m1.lower, w.lower, n1.lower),
        feat(T_END_SUF3, facts.end, w.suf3, 0),
        feat(T_END_LOWER, facts.end, w.lower, 0),
        feat(T_VERB_LEFT_SUF3, facts.verbs_left, w.suf3, 0),
        feat(T_VERB_LEFT_LOWER, facts.verbs_left, w.lower, facts.end),
        feat(T_LOWER_P3, n3.lower, 0, 0),
        feat(T_SUF3_P2, n2.suf3, 0, 0),
        feat(T_P1_LOWER_LOWER_P1, p1, w.lower, n1.lower),
        feat(T_P2_P1_SUF3, p2, p1, w.suf3),
        feat(T_LEFT_SUF3, facts.remaining, w.suf3, 0),
        feat(T_AT_LOWER, i.min(3) as u64, w.lower, facts.end),
        feat(T_AT_SUF3_LOWER_P1, i.min(3) as u64, w.suf3, n1.lower),
    ]);
}

/// A sentence as the tagger's features read it: each token's hashes, and how the sentence ends
/// (1 a full stop, question or exclamation mark, 2 anything else, 0 empty). Computed once for
/// both passes.
struct Tokens {
    toks: Vec<TokenHashes>,
    end: u64,
}

impl Tokens {
    fn new(words: &[impl AsRef<str>]) -> Tokens {
        let mut buf = String::new();
        Tokens {
            toks: words
                .iter()
                .enumerate()
                .map(|(i, w)| TokenHashes::new(w.as_ref(), i == 0, &mut buf))
                .collect(),
            end: words.last().map_or(0, |w| match w.as_ref() {
                "." | "!" | "?" => 1,
                _ => 2,
            }),
        }
    }
}

/// Greedy left-to-right tagging: words of the tag dictionary get their class; every other token
/// gets what `choose` makes of its position and features (which include the two classes chosen on
/// its left and, in a second pass, the `first` pass's classes on its right).
fn greedy(
    sentence: &Tokens,
    dict: &IdMap<u8>,
    info: &ClassInfo,
    first: Option<&[usize]>,
    patterns: bool,
    mut choose: impl FnMut(usize, &[u64]) -> usize,
) -> Vec<usize> {
    let toks = &sentence.toks;
    let kinds = &info.kinds;
    let pat = first
        .filter(|_| patterns)
        .map(|first| Patterns::new(toks, first, info));
    let mut feats = Vec::with_capacity(60);
    let mut out: Vec<usize> = Vec::with_capacity(toks.len());
    let mut facts = Facts {
        end: sentence.end,
        ..Facts::default()
    };
    for i in 0..toks.len() {
        facts.remaining = (toks.len() - i).min(4) as u64;
        let c = if let Some(&c) = dict.get(&toks[i].word) {
            c as usize
        } else {
            let p1 = tag_value(i.checked_sub(1).map(|j| out[j]));
            let p2 = tag_value(i.checked_sub(2).map(|j| out[j]));
            features(toks, i, p1, p2, facts, &mut feats);
            if let Some(first) = first {
                second_pass_features(toks, i, p1, first, kinds, pat.as_ref(), &mut feats);
            }
            choose(i, &feats)
        };
        facts.verbs_left |= kinds.get(c).copied().unwrap_or(0);
        out.push(c);
    }
    out
}

/// The hash a previous tag enters features as (class index, or a pad at the sentence start).
fn tag_value(class: Option<usize>) -> u64 {
    match class {
        Some(c) => c as u64 + 1,
        None => PAD_START,
    }
}

fn argmax<T: PartialOrd + Copy>(scores: &[T]) -> usize {
    let mut best = 0;
    for (i, &s) in scores.iter().enumerate() {
        if s > scores[best] {
            best = i;
        }
    }
    best
}

impl Tagger {
    /// The model embedded in the binary, loaded once per process.
    pub fn embedded() -> Result<&'static Tagger, ModelError> {
        static CELL: OnceLock<Result<Tagger, ModelError>> = OnceLock::new();
        CELL.get_or_init(|| Tagger::from_bytes(EMBEDDED, "embedded tagger model"))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Reads a tagger model file (as `train_parser` writes it). `what` names it in errors.
    pub fn from_bytes(bytes: &[u8], what: &str) -> Result<Tagger, ModelError> {
        let m = perceptron::read_model(bytes, what, "tagger")?;
        let classes = static_tags(&m.classes, what)?;
        let mut r = Reader {
            b: &m.extra,
            pos: 0,
            what,
        };
        let n = r.len("tag dictionary size", m.extra.len())?;
        let mut dict = IdMap::default();
        for _ in 0..n {
            let word = r.str()?;
            let class = r.len("tag dictionary class", classes.len().saturating_sub(1))?;
            dict.insert(hash_str(&word), class as u8);
        }
        // 1 (or absent): one pass; 2: two passes; 3: two passes, the second with patterns.
        let passes = if r.at_end() {
            1
        } else {
            r.len("tagger passes", 3)?
        };
        if !r.at_end() {
            return Err(ModelError::Corrupt {
                what: what.into(),
                detail: "trailing bytes after tag dictionary".into(),
            });
        }
        Ok(Tagger {
            weights: std::sync::Arc::new(m.weights),
            info: ClassInfo::new(&classes),
            two_pass: passes >= 2,
            patterns: passes == 3,
            classes,
            dict,
        })
    }

    /// Reads a tagger model from a file.
    pub fn load(path: &std::path::Path) -> Result<Tagger, ModelError> {
        let what = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| ModelError::Io {
            what: what.clone(),
            detail: e.to_string(),
        })?;
        Tagger::from_bytes(&bytes, &what)
    }

    /// The tags the model can give.
    pub fn tags(&self) -> &[&'static str] {
        &self.classes
    }

    /// Number of weighted features and dictionary words (for reports).
    pub fn size(&self) -> (usize, usize) {
        (self.weights.n_features(), self.dict.len())
    }

    /// Tags one sentence. Any input is fine (empty, long, any Unicode); time is linear in length.
    pub fn tag(&self, words: &[&str]) -> Vec<&'static str> {
        self.tag_classes(words)
            .into_iter()
            .map(|c| self.classes.get(c).copied().unwrap_or(FALLBACK_TAG))
            .collect()
    }

    fn tag_classes(&self, words: &[&str]) -> Vec<usize> {
        let mut scores = vec![0i32; self.weights.score_len()];
        let n = self.classes.len().max(1);
        let sentence = Tokens::new(words);
        let first = self.first_pass(&sentence, &mut scores);
        greedy(
            &sentence,
            &self.dict,
            &self.info,
            first.as_deref(),
            self.patterns,
            |_, feats| {
                scores.iter_mut().for_each(|s| *s = 0);
                self.weights.score(feats, &mut scores);
                argmax(&scores[..n])
            },
        )
    }

    /// A two-pass tagger's first pass (the base weights' greedy classes); `None` for one pass.
    fn first_pass(&self, sentence: &Tokens, scores: &mut [i32]) -> Option<Vec<usize>> {
        if !self.two_pass {
            return None;
        }
        let n = self.classes.len().max(1);
        Some(greedy(
            sentence,
            &self.dict,
            &self.info,
            None,
            false,
            |_, feats| {
                scores.iter_mut().for_each(|s| *s = 0);
                self.weights.score(feats, scores);
                argmax(&scores[..n])
            },
        ))
    }
}

/// Maps a model's class names onto [`TAGS`].
fn static_tags(names: &[String], what: &str) -> Result<Vec<&'static str>, ModelError> {
    names
        .iter()
        .map(|n| {
            TAGS.iter()
                .copied()
                .find(|t| t == n)
                .ok_or_else(|| ModelError::Corrupt {
                    what: what.into(),
                    detail: format!("unknown tag {n:?} in model"),
                })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Training.

/// Settings for [`train`].
#[derive(Debug, Clone)]
pub struct TrainOptions {
    pub epochs: usize,
    pub seed: u64,
    /// A word enters the tag dictionary when seen this often...
    pub dict_min_count: usize,
    /// ...with this share of its occurrences carrying its most frequent tag.
    pub dict_min_share: f64,
    /// Averaged weights smaller than this are dropped from the model file.
    pub prune: f32,
    /// Features seen fewer times than this in the first epoch get no weights.
    pub min_count: u32,
    /// At most this many features go into the model file (the heaviest; keeps it compact).
    pub max_features: usize,
    /// 1 or 2: a second greedy pass that also reads the first pass's classes on the right.
    pub passes: usize,
    /// The second pass also reads the first pass's whole-sentence patterns.
    pub patterns: bool,
    /// With 2 or more (and two passes), the second pass learns from first-pass tags given by
    /// one-pass taggers trained on the other folds (stacking), as wrong as at run time.
    pub jackknife: usize,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            passes: 2,
            patterns: true,
            jackknife: 0,
            epochs: 5,
            seed: 1,
            dict_min_count: 20,
            dict_min_share: 0.999,
            prune: 0.01,
            max_features: 400_000,
            min_count: 1,
        }
    }
}

/// A training sentence: tokens and their gold tags.
pub type TaggedSentence = (Vec<String>, Vec<String>);

/// Trains a tagger; returns the model file bytes. `log` receives progress lines.
pub fn train(
    sents: &[TaggedSentence],
    opts: &TrainOptions,
    log: &mut dyn FnMut(String),
) -> Result<Vec<u8>, String> {
    // Classes, in order of first appearance in TAGS (deterministic).
    let mut seen = vec![false; TAGS.len()];
    for (k, (words, tags)) in sents.iter().enumerate() {
        if words.len() != tags.len() {
            return Err(format!(
                "training sentence {k}: {} words but {} tags",
                words.len(),
                tags.len()
            ));
        }
        for t in tags {
            match TAGS.iter().position(|x| x == t) {
                Some(i) => seen[i] = true,
                None => {
                    return Err(format!(
                        "training sentence {k}: unknown tag {t:?} (not in tag::TAGS)"
                    ))
                }
            }
        }
    }
    let classes: Vec<&'static str> = TAGS
        .iter()
        .zip(&seen)
        .filter(|(_, &s)| s)
        .map(|(t, _)| *t)
        .collect();
    let class_of = |t: &str| classes.iter().position(|c| *c == t).unwrap_or(0);
    let info = ClassInfo::new(&classes);
    let gold: Vec<Vec<usize>> = sents
        .iter()
        .map(|(_, tags)| tags.iter().map(|t| class_of(t)).collect())
        .collect();

    // Tag dictionary.
    let mut counts: std::collections::BTreeMap<&str, Vec<usize>> =
        std::collections::BTreeMap::new();
    for ((words, _), g) in sents.iter().zip(&gold) {
        for (w, &c) in words.iter().zip(g) {
            let e = counts
                .entry(w.as_str())
                .or_insert_with(|| vec![0; classes.len()]);
            e[c] += 1;
        }
    }
    let mut dict_words: Vec<(&str, usize)> = Vec::new();
    for (w, cs) in &counts {
        let total: usize = cs.iter().sum();
        let best = argmax_usize(cs);
        if total >= opts.dict_min_count && cs[best] as f64 >= opts.dict_min_share * total as f64 {
            dict_words.push((w, best));
        }
    }
    let dict: IdMap<u8> = dict_words
        .iter()
        .map(|&(w, c)| (hash_str(w), c as u8))
        .collect();
    log(format!(
        "tagger: {} sentences, {} classes, {} dictionary words",
        sents.len(),
        classes.len(),
        dict.len()
    ));

    let stacked = if opts.jackknife >= 2 && opts.passes >= 2 {
        Some(jackknifed_first_pass(sents, opts, &class_of, log)?)
    } else {
        None
    };
    let mut order: Vec<usize> = (0..sents.len()).collect();
    let mut rng = perceptron::mix64(opts.seed);
    let mut model = Trainer::new(classes.len());
    let mut scores = vec![0f32; classes.len()];
    for epoch in 0..opts.epochs {
        perceptron::shuffle(&mut order, &mut rng);
        let (mut right, mut total) = (0usize, 0usize);
        for &k in &order {
            // Each pass learns in its own feature space; the second reads what the first chose.
            let mut first: Option<Vec<usize>> = None;
            let sentence = Tokens::new(&sents[k].0);
            for pass in 0..opts.passes.clamp(1, 2) {
                let chosen = greedy(
                    &sentence,
                    &dict,
                    &info,
                    first.as_deref(),
                    opts.patterns,
                    |i, feats| {
                        let g = gold[k][i];
                        scores.iter_mut().for_each(|s| *s = 0.0);
                        model.score(feats, &mut scores);
                        let guess = argmax(&scores);
                        if epoch == 0 {
                            model.observe(feats);
                        }
                        model.tick();
                        model.update(feats, g, guess);
                        if pass + 1 == opts.passes.clamp(1, 2) {
                            right += (guess == g) as usize;
                            total += 1;
                        }
                        guess
                    },
                );
                first = Some(match &stacked {
                    Some(st) => st[k].clone(),
                    None => chosen,
                });
            }
        }
        if epoch == 0 && opts.min_count > 1 {
            model.freeze(opts.min_count);
        }
        log(format!(
            "tagger epoch {}: {:.2}% of model-tagged tokens right while training, {} features",
            epoch + 1,
            100.0 * right as f64 / total.max(1) as f64,
            model.n_features()
        ));
    }
    let rows = model.averaged(opts.prune, opts.max_features);
    let mut extra = Vec::new();
    put_varint(&mut extra, dict_words.len() as u64);
    for (w, c) in &dict_words {
        put_str(&mut extra, w);
        put_varint(&mut extra, *c as u64);
    }
    if opts.passes >= 2 {
        // Absent in a one-pass model (files written before the second pass read as one pass).
        put_varint(&mut extra, if opts.patterns { 3 } else { 2 });
    }
    let names: Vec<String> = classes.iter().map(|c| c.to_string()).collect();
    Ok(perceptron::write_model("tagger", &names, &extra, &rows))
}

/// Each sentence's classes as a one-pass tagger trained without its fold tags it (folds by
/// sentence index modulo the fold count).
fn jackknifed_first_pass(
    sents: &[TaggedSentence],
    opts: &TrainOptions,
    class_of: &dyn Fn(&str) -> usize,
    log: &mut dyn FnMut(String),
) -> Result<Vec<Vec<usize>>, String> {
    let k = opts.jackknife;
    let one = TrainOptions {
        passes: 1,
        patterns: false,
        jackknife: 0,
        ..opts.clone()
    };
    let mut out = vec![Vec::new(); sents.len()];
    for fold in 0..k {
        let rest: Vec<TaggedSentence> = sents
            .iter()
            .enumerate()
            .filter(|(i, _)| i % k != fold)
            .map(|(_, s)| s.clone())
            .collect();
        let bytes = train(&rest, &one, &mut |m| log(format!("fold {fold}: {m}")))?;
        let tagger = Tagger::from_bytes(&bytes, "fold tagger").map_err(|e| e.to_string())?;
        for (i, (words, _)) in sents.iter().enumerate().filter(|(i, _)| i % k == fold) {
            let w: Vec<&str> = words.iter().map(String::as_str).collect();
            out[i] = tagger.tag(&w).into_iter().map(class_of).collect();
        }
    }
    Ok(out)
}

fn argmax_usize(xs: &[usize]) -> usize {
    let mut best = 0;
    for (i, &x) in xs.iter().enumerate() {
        if x > xs[best] {
            best = i;
        }
    }
    best
}

/// Lowercase hash of a word (re-exported for the parser, which keys words on their lowercase form).
pub(crate) fn word_key(word: &str) -> u64 {
    hash_lower(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(s: &str) -> TaggedSentence {
        let (w, t): (Vec<String>, Vec<String>) = s
            .split(' ')
            .map(|wt| {
                let (w, t) = wt.rsplit_once('/').unwrap_or((wt, "NN"));
                (w.to_string(), t.to_string())
            })
            .unzip();
        (w, t)
    }

    #[test]
    fn learns_a_toy_language() {
        let data: Vec<TaggedSentence> = [
            "a/DT dog/NN sitting/VBG on/IN a/DT couch/NN",
            "a/DT cat/NN sitting/VBG on/IN a/DT chair/NN",
            "two/CD dogs/NNS playing/VBG in/IN the/DT grass/NN",
            "the/DT man/NN rides/VBZ a/DT horse/NN ./.",
            "a/DT woman/NN holding/VBG an/DT umbrella/NN",
            "people/NNS walking/VBG down/IN a/DT street/NN",
        ]
        .iter()
        .map(|s| sent(s))
        .collect();
        let opts = TrainOptions {
            epochs: 10,
            dict_min_count: 3,
            ..TrainOptions::default()
        };
        let bytes = train(&data, &opts, &mut |_| {}).expect("training");
        let t = Tagger::from_bytes(&bytes, "toy").expect("load");
        assert_eq!(
            t.tag(&["a", "dog", "sitting", "on", "a", "chair"]),
            ["DT", "NN", "VBG", "IN", "DT", "NN"]
        );
        assert!(t.tag(&[]).is_empty());
    }

    #[test]
    fn the_model_file_says_whether_the_second_pass_reads_patterns() {
        let data: Vec<TaggedSentence> = [
            "a/DT dog/NN sitting/VBG on/IN a/DT couch/NN",
            "a/DT cat/NN sitting/VBG on/IN a/DT chair/NN",
            "the/DT man/NN rides/VBZ a/DT horse/NN ./.",
            "a/DT woman/NN holding/VBG an/DT umbrella/NN",
        ]
        .iter()
        .map(|s| sent(s))
        .collect();
        for (patterns, jackknife) in [(false, 0), (true, 0), (true, 2)] {
            let opts = TrainOptions {
                epochs: 4,
                dict_min_count: 3,
                patterns,
                jackknife,
                ..TrainOptions::default()
            };
            let bytes = train(&data, &opts, &mut |_| {}).expect("training");
            let t = Tagger::from_bytes(&bytes, "toy").expect("load");
            assert!(t.two_pass);
            assert_eq!(t.patterns, patterns);
            assert_eq!(
                t.tag(&["a", "dog", "sitting", "on", "a", "chair"]),
                ["DT", "NN", "VBG", "IN", "DT", "NN"]
            );
        }
    }

    #[test]
    fn patterns_hash_shapes_not_content_words() {
        let classes = ["DT", "JJ", "NN", "VBG", "IN"];
        let info = ClassInfo::new(&classes);
        let hashed = |words: &[&str]| -> Vec<TokenHashes> {
            let mut buf = String::new();
            let n = words.len();
            (0..n)
                .map(|i| TokenHashes::new(words[i], i == 0, &mut buf))
                .collect()
        };
        // a big dog sitting on a couch: DT JJ NN VBG IN DT NN
        let first = [0, 1, 2, 3, 4, 0, 2];
        let a = Patterns::new(
            &hashed(&["a", "big", "dog", "sitting", "on", "a", "couch"]),
            &first,
            &info,
        );
        let b = Patterns::new(
            &hashed(&["a", "small", "cat", "sitting", "on", "a", "chair"]),
            &first,
            &info,
        );
        let c = Patterns::new(
            &hashed(&["a", "big", "dog", "sitting", "in", "a", "couch"]),
            &first,
            &info,
        );
        // Content words do not enter any pattern; a function word enters all but the full one.
        assert_eq!((a.full, a.lexical, a.chunk), (b.full, b.lexical, b.chunk));
        assert_eq!(a.full, c.full);
        assert_ne!(a.lexical, c.lexical);
        assert_ne!(a.chunk, c.chunk);
        // Runs of nominal classes are one chunk symbol: [a big dog] sitting on [a couch].
        assert_eq!(a.chunk_at, [1, 1, 1, 2, 3, 4, 4]);
        assert_eq!(a.left[7], a.lexical);
        assert_eq!(a.left[4], c.left[4]);
        assert_ne!(a.left[5], c.left[5]);
        assert_eq!(a.right[5], c.right[5]);
    }

    #[test]
    fn rejects_unknown_tags() {
        let data = vec![sent("a/DT dog/BOGUS")];
        assert!(train(&data, &TrainOptions::default(), &mut |_| {}).is_err());
    }
}
