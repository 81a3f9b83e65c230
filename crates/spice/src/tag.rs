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
//! the model through a tag dictionary. The model is trained by `scripts/train-parser` (the
//! `train_parser` example) and embedded in the binary; see `perceptron` for the file format.

use std::sync::OnceLock;

use crate::depgraph::is_noun_tag;
use crate::perceptron::{
    self, feat, hash_lower, hash_str, put_str, put_varint, IdMap, ModelError, Reader, Trainer,
    Weights,
};
use crate::tokenize::Form;

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

/// How far [`Tagger::tag_clause`] may go to find the verb of a caption that ends like a
/// sentence ("A dog leaps into the water ."), in the tagger's score units, and of one that does not
/// ("street sign on a pole"). Measured on `../shared/fidelity` with the committed tagger (re-tune
/// when it is retrained): on Flickr8K raw captions, exact tp/fp/fn agreement 19.9 % without the
/// search (with the habits of 2026-11-22 morning), 22.9 % at 30,000, 23.4 % at 50,000 (a plateau from 40,000 to
/// 55,000), 22.2 % at 70,000, where wrong nouns start to become verbs (since the search stops at
/// the first preposition: 25.4 % at 50,000, 25.3 % at 80,000 and 120,000); on the 1,743 official graphs
/// of lowercase fragments without a period, a search above 10,000 turns nouns into verbs the PCFG
/// leaves alone ("wine bottle on table": 67.9 % of the graphs at 0, 68.1 % at 10,000, 67.4 % at
/// 40,000).
pub const CLAUSE_GAP_SENTENCE: i32 = 50_000;
pub const CLAUSE_GAP_FRAGMENT: i32 = 10_000;
/// The same search after the first preposition ("A man in a suit dances with a young girl ."),
/// where nouns are more often nouns: raw exact 26.9 % without it, 27.2 % at 12,000 to 30,000 with
/// the last word excluded (27.0-27.1 % with it), 26.7 % at 50,000; MAE 0.0054 to 0.0052
/// (2026-11-22, session 3).
pub const CLAUSE_GAP_AFTER_PREPOSITION: i32 = 20_000;

/// The tags of one sentence: the tagger's, with the verb search of [`Tagger::tag_clause`]
/// for captions without a finite verb.
pub fn tag_sentence(tagger: &Tagger, words: &[&str]) -> Vec<&'static str> {
    let ends_sentence = words.last().is_some_and(|w| matches!(*w, "." | "!" | "?"));
    let max_gap = if ends_sentence {
        CLAUSE_GAP_SENTENCE
    } else {
        CLAUSE_GAP_FRAGMENT
    };
    tagger.tag_clause_form(
        words,
        max_gap,
        CLAUSE_GAP_AFTER_PREPOSITION,
        Form::of(words),
    )
}

/// The embedded tagger model (built by `scripts/train-parser`).
static EMBEDDED: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/models/tagger.bin"));
/// The tagger's corrections for pycocoevalcap's form (built by `scripts/train-coco`; empty: none).
static EMBEDDED_COCO: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/models/tagger-coco.bin"
));

/// A trained tagger. Immutable and `Sync`: share one across threads.
#[derive(Debug, Clone)]
pub struct Tagger {
    weights: std::sync::Arc<Weights>,
    classes: Vec<&'static str>,
    /// Exact word hash -> class, for frequent unambiguous words.
    dict: IdMap<u8>,
    /// The weights' quantisation scale (corrections must share it).
    scale: f32,
    /// Corrections added to the scores of sentences in pycocoevalcap's form ([`Form::Coco`]),
    /// learned from the official parser's output ([`Tagger::train_delta`]).
    coco: Option<std::sync::Arc<perceptron::Corrected>>,
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
fn features(toks: &[TokenHashes], i: usize, p1: u64, p2: u64, out: &mut Vec<u64>) {
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
    let (w, m1, m2, n1, n2) = (at(i), at(i - 1), at(i - 2), at(i + 1), at(i + 2));
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
    ]);
}

/// The hash a previous tag enters features as (class index, or a pad at the sentence start).
/// Greedy left-to-right tagging: `forced` positions and words of the tag dictionary get their
/// class; every other token gets what `choose` makes of its position and features (which include
/// the two classes chosen on its left).
fn greedy(
    words: &[impl AsRef<str>],
    dict: &IdMap<u8>,
    forced: &[(usize, usize)],
    mut choose: impl FnMut(usize, &[u64]) -> usize,
) -> Vec<usize> {
    let mut buf = String::new();
    let toks: Vec<TokenHashes> = words
        .iter()
        .enumerate()
        .map(|(i, w)| TokenHashes::new(w.as_ref(), i == 0, &mut buf))
        .collect();
    let mut feats = Vec::with_capacity(32);
    let mut out: Vec<usize> = Vec::with_capacity(words.len());
    for i in 0..words.len() {
        if let Some(&(_, c)) = forced.iter().find(|&&(at, _)| at == i) {
            out.push(c);
            continue;
        }
        if let Some(&c) = dict.get(&toks[i].word) {
            out.push(c as usize);
            continue;
        }
        let p1 = tag_value(i.checked_sub(1).map(|j| out[j]));
        let p2 = tag_value(i.checked_sub(2).map(|j| out[j]));
        features(&toks, i, p1, p2, &mut feats);
        out.push(choose(i, &feats));
    }
    out
}

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
        CELL.get_or_init(|| {
            Tagger::from_bytes(EMBEDDED, "embedded tagger model")?
                .with_coco(EMBEDDED_COCO, "embedded COCO-form tagger corrections")
        })
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
        if !r.at_end() {
            return Err(ModelError::Corrupt {
                what: what.into(),
                detail: "trailing bytes after tag dictionary".into(),
            });
        }
        Ok(Tagger {
            weights: std::sync::Arc::new(m.weights),
            classes,
            dict,
            scale: m.scale,
            coco: None,
        })
    }

    /// The tagger with COCO-form corrections read from `bytes` (a `tagger-delta` model written
    /// by [`Tagger::train_delta`] for this tagger); empty `bytes` mean none.
    pub fn with_coco(mut self, bytes: &[u8], what: &str) -> Result<Tagger, ModelError> {
        if bytes.is_empty() {
            self.coco = None;
            return Ok(self);
        }
        let m = perceptron::read_model(bytes, what, "tagger-delta")?;
        if m.classes
            .iter()
            .map(String::as_str)
            .ne(self.classes.iter().copied())
            || m.scale != self.scale
        {
            return Err(ModelError::Corrupt {
                what: what.into(),
                detail: "corrections made for another tagger model".into(),
            });
        }
        self.coco = Some(std::sync::Arc::new(perceptron::Corrected::new(
            std::sync::Arc::clone(&self.weights),
            m.weights,
        )));
        Ok(self)
    }

    /// The tagger without its COCO-form corrections.
    pub fn without_coco(&self) -> Tagger {
        Tagger {
            coco: None,
            ..self.clone()
        }
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
        self.decode(words, &[], None, |_, _, _| {})
    }

    /// Greedy decoding, with `forced` = (position, class) pairs fixing tokens' classes; `seen`
    /// gets each modelled position with its chosen class and its score vector.
    fn decode(
        &self,
        words: &[&str],
        forced: &[(usize, usize)],
        coco: Option<&perceptron::Corrected>,
        mut seen: impl FnMut(usize, usize, &[i32]),
    ) -> Vec<usize> {
        let mut scores = vec![0i32; self.weights.score_len()];
        let n = self.classes.len().max(1);
        greedy(words, &self.dict, forced, |i, feats| {
            scores.iter_mut().for_each(|s| *s = 0);
            match coco {
                Some(c) => c.score(feats, &mut scores),
                None => self.weights.score(feats, &mut scores),
            }
            let best = argmax(&scores[..n]);
            seen(i, best, &scores[..n]);
            best
        })
    }

    /// Tags a sentence the way CoreNLP's PCFG reads a caption with a finite verb that a tagger
    /// trained on verbless COCO fragments takes for a noun: "A dog leaps into the water ." is
    /// `leaps/VBZ` for the PCFG (a clause, `S`), `leaps/NNS` for greedy tagging ("dog leaps" as a
    /// compound). When greedy tagging finds no finite verb (participles and base forms do not
    /// count: "A black dog bites a white dog while standing on the sand ."; nor does one right
    /// after a conjunction, as in "squats/NNS and puts/VBZ"), a noun right after a
    /// noun can become the verb (`NNS` -> `VBZ`, `NN` -> `VBP`); the one whose verb score comes
    /// closest to its own score does, when the gap is at most `max_gap` (in the model's score
    /// units) before the first preposition, or at most `max_gap_after_preposition` (and
    /// `max_gap`) after it and before the last word ("A man in a suit dances with ...", where
    /// "Boys in life jackets on a watercraft" and "... looking at her finger nails ." keep their
    /// nouns), and the tokens after it are tagged again. A first word read as an interjection
    /// before another word ("Boy in pajamas ...") is a noun, and so is a word of
    /// `NOUN_LIKE_VERBS` after a noun. A noun right after worn colours ("A
    /// man in red pushes ...", see `worn_colours`) can become the verb within `max_gap`, even as
    /// the last word, and colours before a finite verb there are nouns (the PCFG's `NN`, which
    /// SPICE proposes as objects; see the colour habit in [`crate::habits`] for the evidence).
    pub fn tag_clause(
        &self,
        words: &[&str],
        max_gap: i32,
        max_gap_after_preposition: i32,
    ) -> Vec<&'static str> {
        self.tag_clause_form(words, max_gap, max_gap_after_preposition, Form::AsWritten)
    }

    /// [`Tagger::tag_clause`] with the corrections for `form` (pycocoevalcap's form has some).
    pub fn tag_clause_form(
        &self,
        words: &[&str],
        max_gap: i32,
        max_gap_after_preposition: i32,
        form: Form,
    ) -> Vec<&'static str> {
        let coco = match form {
            Form::Coco => self.coco.as_deref().map(perceptron::Corrected::used),
            Form::AsWritten => None,
        };
        let class = |name: &str| self.classes.iter().position(|c| *c == name);
        let name = |c: usize| self.classes.get(c).copied().unwrap_or(FALLBACK_TAG);
        let (Some(vbz), Some(vbp)) = (class("VBZ"), class("VBP")) else {
            return self.tag(words);
        };
        let score_nouns =
            |scored: &mut Vec<Option<(i32, usize)>>, i: usize, chosen, scores: &[i32]| {
                let verb = match name(chosen) {
                    "NNS" => vbz,
                    "NN" => vbp,
                    _ => return,
                };
                scored[i] = Some((scores[chosen] - scores[verb], verb));
            };
        // Greedy tagging with some classes forced, and the verb gap of every noun it chose (forced
        // tokens have none).
        let decode_scored = |forced: &[(usize, usize)]| {
            let mut scored: Vec<Option<(i32, usize)>> = vec![None; words.len()];
            let classes = self.decode(words, forced, coco, |i, c, s| {
                score_nouns(&mut scored, i, c, s)
            });
            (classes, scored)
        };
        let mut forced = Vec::new();
        let (mut classes, mut scored) = decode_scored(&forced);
        // A capitalised first word read as an interjection ("Boy in pajamas ...", `UH` as in "Boy,
        // that hurts") is the head noun of the caption for the PCFG.
        let next_is_word = words
            .get(1)
            .is_some_and(|w| w.chars().any(char::is_alphanumeric));
        if let (Some(&first), Some(nn)) = (classes.first(), class("NN")) {
            if name(first) == "UH" && next_is_word {
                forced.push((0, nn));
                (classes, scored) = decode_scored(&forced);
            }
        }
        // Verbs the PCFG reads as nouns after a noun ("A dog races along the grassy track .").
        if let (Some(nn), Some(nns)) = (class("NN"), class("NNS")) {
            let nouns: Vec<(usize, usize)> = (1..words.len())
                .filter(|&i| {
                    is_noun_tag(name(classes[i - 1]))
                        && crate::lexicon::NOUN_LIKE_VERBS
                            .iter()
                            .any(|w| w.eq_ignore_ascii_case(words[i]))
                        && matches!(name(classes[i]), "VBZ" | "VBP" | "NN" | "NNS")
                })
                .map(|i| (i, if words[i].ends_with('s') { nns } else { nn }))
                .collect();
            if !nouns.is_empty() {
                forced.extend(nouns);
                (classes, scored) = decode_scored(&forced);
            }
        }
        // A finite verb right after a conjunction is the second of two ("A small child squats and
        // puts dirt into his mouth .": `squats/NNS and puts/VBZ`); the first one is still to find.
        let has_verb = classes.iter().enumerate().any(|(i, &c)| {
            let finite = matches!(name(c), "VBZ" | "VBP" | "VBD" | "MD");
            finite && (i == 0 || name(classes[i - 1]) != "CC")
        });
        // A noun inside a prepositional phrase ("Boys in life jackets on a watercraft") needs a
        // clearer verb reading than one right after the subject, and the last word of a caption
        // keeps its noun ("A young girl with makeup and jewelry smiles .": `smiles/NNS` in the
        // official count).
        let first_preposition = classes
            .iter()
            .position(|&c| name(c) == "IN")
            .unwrap_or(classes.len());
        let last_word = words
            .iter()
            .rposition(|w| !matches!(*w, "." | "!" | "?"))
            .unwrap_or(0);
        // The colours of "A woman in white perform ..." ("in blue and white", "wearing blue") are
        // the PCFG's nouns and the word after them its verb, last word or not ("a young girl
        // wearing blue smiles .").
        let worn = |classes: &[usize], i: usize| worn_colours(words, i, |k| name(classes[k]));
        let best = (1..classes.len())
            .filter(|_| !has_verb)
            .filter_map(|i| {
                let (gap, verb) = scored[i]?;
                if worn(&classes, i).is_some() {
                    return (gap <= max_gap).then_some((gap, i, verb));
                }
                let after_noun = is_noun_tag(name(classes[i - 1]));
                let limit = if i < first_preposition {
                    max_gap
                } else if i < last_word {
                    max_gap.min(max_gap_after_preposition)
                } else {
                    return None;
                };
                (after_noun && gap <= limit).then_some((gap, i, verb))
            })
            .min();
        let classes = match best {
            Some((_, i, verb)) => {
                forced.push((i, verb));
                self.decode(words, &forced, coco, |_, _, _| {})
            }
            None => classes,
        };
        // A colour before a finite verb is a noun.
        let mut colours = Vec::new();
        for i in 0..classes.len() {
            if matches!(name(classes[i]), "VBZ" | "VBP" | "VBD") {
                if let Some(span) = worn(&classes, i) {
                    forced.push((i, classes[i]));
                    colours.extend(span);
                }
            }
        }
        let classes = match class("NN") {
            Some(nn) if !colours.is_empty() => {
                forced.extend(colours.into_iter().map(|k| (k, nn)));
                self.decode(words, &forced, coco, |_, _, _| {})
            }
            _ => classes,
        };
        classes.into_iter().map(name).collect()
    }
}

/// The positions of the colours right before position `i` that are worn, as in "A man in red
/// pushes ...", "... in black and orange walks ...", "... wearing blue smiles .": one colour or
/// several joined by "and" or commas, after "in" that follows a noun (`tag` gives the tag at a
/// position) or after "wearing". `None` if the words before `i` are not such colours.
fn worn_colours<'a>(
    words: &[&str],
    i: usize,
    tag: impl Fn(usize) -> &'a str,
) -> Option<Vec<usize>> {
    let is_colour = |k: usize| crate::lexicon::is_colour_word(words[k]);
    let mut k = i.checked_sub(1)?;
    if !is_colour(k) {
        return None;
    }
    let mut colours = Vec::new();
    while k > 0 && (is_colour(k) || (matches!(words[k], "and" | ",") && is_colour(k - 1))) {
        if is_colour(k) {
            colours.push(k);
        }
        k -= 1;
    }
    let before = words[k].to_lowercase();
    let noun_in = before == "in" && k > 0 && is_noun_tag(tag(k - 1));
    (noun_in || before == "wearing").then_some(colours)
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
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
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

    let mut order: Vec<usize> = (0..sents.len()).collect();
    let mut rng = perceptron::mix64(opts.seed);
    let mut model = Trainer::new(classes.len());
    let mut scores = vec![0f32; classes.len()];
    for epoch in 0..opts.epochs {
        perceptron::shuffle(&mut order, &mut rng);
        let (mut right, mut total) = (0usize, 0usize);
        for &k in &order {
            greedy(&sents[k].0, &dict, &[], |i, feats| {
                let g = gold[k][i];
                scores.iter_mut().for_each(|s| *s = 0.0);
                model.score(feats, &mut scores);
                let guess = argmax(&scores);
                if epoch == 0 {
                    model.observe(feats);
                }
                model.tick();
                model.update(feats, g, guess);
                right += (guess == g) as usize;
                total += 1;
                guess
            });
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
    let names: Vec<String> = classes.iter().map(|c| c.to_string()).collect();
    Ok(perceptron::write_model("tagger", &names, &extra, &rows))
}

impl Tagger {
    /// Trains corrections to this tagger: a second perceptron whose weights are added to the
    /// tagger's scores (in its quantisation scale), on `sents` (each counted `weight` times),
    /// decoding greedily with both. Words of the tag dictionary keep their tag. Returns the
    /// corrections' model file (for [`Tagger::with_coco`]).
    pub fn train_delta(
        &self,
        sents: &[(TaggedSentence, usize)],
        epochs: usize,
        seed: u64,
        log: &mut dyn FnMut(String),
    ) -> Result<Vec<u8>, String> {
        let n = self.classes.len();
        let mut usable = Vec::new();
        for (k, ((words, tags), weight)) in sents.iter().enumerate() {
            if words.len() != tags.len() {
                return Err(format!(
                    "training sentence {k}: {} words but {} tags",
                    words.len(),
                    tags.len()
                ));
            }
            let gold = tags
                .iter()
                .map(|t| {
                    self.classes.iter().position(|c| c == t).ok_or_else(|| {
                        format!("training sentence {k}: tag {t:?} is not one of the tagger's")
                    })
                })
                .collect::<Result<Vec<usize>, String>>()?;
            for _ in 0..*weight {
                usable.push((k, gold.clone()));
            }
        }
        let mut model = Trainer::new(n);
        let mut rng = perceptron::mix64(seed ^ 0x7A66);
        let mut order: Vec<usize> = (0..usable.len()).collect();
        let mut base = vec![0i32; self.weights.score_len()];
        let mut scores = vec![0f32; n];
        for epoch in 0..epochs {
            perceptron::shuffle(&mut order, &mut rng);
            let (mut right, mut total) = (0usize, 0usize);
            for &u in &order {
                let (k, gold) = &usable[u];
                greedy(&sents[*k].0 .0, &self.dict, &[], |i, feats| {
                    base.iter_mut().for_each(|s| *s = 0);
                    self.weights.score(feats, &mut base);
                    for (x, b) in scores.iter_mut().zip(&base) {
                        *x = *b as f32 * self.scale;
                    }
                    model.score(feats, &mut scores);
                    let guess = argmax(&scores);
                    model.tick();
                    model.update(feats, gold[i], guess);
                    right += usize::from(guess == gold[i]);
                    total += 1;
                    guess
                });
            }
            log(format!(
                "tagger corrections epoch {}: {:.2}% of model-tagged tokens right while training, {} features",
                epoch + 1,
                100.0 * right as f64 / total.max(1) as f64,
                model.n_features()
            ));
        }
        let rows = model.averaged(0.05, usize::MAX);
        let names: Vec<String> = self.classes.iter().map(|c| c.to_string()).collect();
        Ok(perceptron::write_model_scaled(
            "tagger-delta",
            &names,
            &[],
            &rows,
            Some(self.scale),
        ))
    }
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

    #[test]
    fn coco_corrections_fold_into_one_table_that_scores_alike() {
        if !EMBEDDED_COCO.is_empty() {
            perceptron::assert_folds_exactly(EMBEDDED, "tagger", EMBEDDED_COCO, "tagger-delta");
        }
    }

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
    fn finds_worn_colours() {
        let tags = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        let words: Vec<&str> = "A man in red and white walks".split(' ').collect();
        let t = tags("DT NN IN JJ CC JJ NNS");
        assert_eq!(worn_colours(&words, 6, |k| t[k].as_str()), Some(vec![5, 3]));
        // Not after a noun's "in", nor without "in"/"wearing", nor right after the preposition.
        let words: Vec<&str> = "Sitting in red walks".split(' ').collect();
        let t = tags("VBG IN JJ NNS");
        assert_eq!(worn_colours(&words, 3, |k| t[k].as_str()), None);
        let words: Vec<&str> = "A girl wearing blue smiles".split(' ').collect();
        let t = tags("DT NN VBG JJ NNS");
        assert_eq!(worn_colours(&words, 4, |k| t[k].as_str()), Some(vec![3]));
        assert_eq!(worn_colours(&words, 3, |k| t[k].as_str()), None);
        let words: Vec<&str> = "A red dog".split(' ').collect();
        let t = tags("DT JJ NN");
        assert_eq!(worn_colours(&words, 2, |k| t[k].as_str()), None);
        let words: Vec<&str> = "red walks".split(' ').collect();
        assert_eq!(worn_colours(&words, 1, |_| "NN"), None);
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
    fn rejects_unknown_tags() {
        let data = vec![sent("a/DT dog/BOGUS")];
        assert!(train(&data, &TrainOptions::default(), &mut |_| {}).is_err());
    }
}
