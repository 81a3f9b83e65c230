//! WordNet 3.0 synonyms as METEOR 1.5's `SynonymDictionary` sees them (SPEC §5).
//!
//! In: a concept's text ("man", "in front of"). Out: the set of WordNet synset ids that SPICE uses
//! to merge and match concepts: the synsets of the text itself plus those of its base forms.
//!
//! The data is METEOR 1.5's `english.synsets` (word -> synset offsets) and `english.exceptions`
//! (irregular form -> base forms), packed by `scripts/build-lexicon` into
//! `crates/spice/data/lexicon.txt.gz` and embedded in the binary. The base-form lookup reproduces
//! METEOR's, quirks included, because SPICE's numbers depend on it:
//! - an exception entry wins outright (its bases' synsets, even if that is nothing);
//! - otherwise words of at most two letters and words ending in "ss" are their own base;
//! - otherwise the first of twenty suffix rules whose result is a known word gives the base
//!   (METEOR also special-cases words ending in "ful", but no suffix rule can match such a word,
//!   so that branch never changes a result and is not reproduced).

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Read as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// Synset ids, sorted and without duplicates.
pub type Synsets = Vec<u32>;

/// METEOR's suffix rules, tried in order: strip the first, append the second.
const SUFFIX_RULES: [(&str, &str); 20] = [
    ("s", ""),
    ("ses", "s"),
    ("xes", "x"),
    ("zes", "z"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("men", "man"),
    ("ies", "y"),
    ("s", ""),
    ("ies", "y"),
    ("es", "e"),
    ("es", ""),
    ("ed", "e"),
    ("ed", ""),
    ("ing", "e"),
    ("ing", ""),
    ("er", ""),
    ("est", ""),
    ("er", "e"),
    ("est", "e"),
];

const MAGIC: &str = "spiceboard-lexicon 1";

/// The embedded lexicon file (see `scripts/build-lexicon`).
static EMBEDDED: &[u8] = include_bytes!("../data/lexicon.txt.gz");

/// Errors reading lexicon files.
#[derive(Debug, thiserror::Error)]
pub enum LexiconError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("lexicon {what}, line {line}: {problem}")]
    Format {
        what: String,
        line: usize,
        problem: String,
    },
}

/// Word -> synsets, and irregular form -> base forms.
#[derive(Clone, Debug, Default)]
pub struct Lexicon {
    /// Distinguishes lexicons in the per-thread lookup cache.
    id: u64,
    /// Sorted by word (bytewise) for binary search.
    words: Vec<(Box<str>, Box<[u32]>)>,
    /// Sorted by form; bases in file order, repeated bases kept as METEOR keeps them.
    exceptions: Vec<Exception>,
}

/// An irregular form and its base forms.
type Exception = (Box<str>, Box<[Box<str>]>);

impl Lexicon {
    /// The lexicon compiled into the binary, decoded once per process.
    pub fn embedded() -> &'static Lexicon {
        static LEXICON: OnceLock<Lexicon> = OnceLock::new();
        LEXICON.get_or_init(|| {
            // The embedded file is produced by our own build script and checked by tests, so a
            // failure here is a build defect, not bad user input.
            #[allow(clippy::expect_used)]
            Lexicon::from_compact(EMBEDDED).expect("embedded lexicon is valid")
        })
    }

    /// Builds a lexicon from entries (used by tests and by the file readers).
    pub fn from_entries<W, E>(words: W, exceptions: E) -> Lexicon
    where
        W: IntoIterator<Item = (String, Vec<u32>)>,
        E: IntoIterator<Item = (String, Vec<String>)>,
    {
        let mut w: Vec<(Box<str>, Box<[u32]>)> = Vec::new();
        for (word, mut ids) in words {
            ids.sort_unstable();
            ids.dedup();
            w.push((word.into_boxed_str(), ids.into_boxed_slice()));
        }
        // Later entries win, as Hashtable.put does.
        w.reverse();
        w.sort_by(|a, b| a.0.cmp(&b.0));
        w.dedup_by(|a, b| a.0 == b.0);
        let mut ex: Vec<(Box<str>, Vec<Box<str>>)> = Vec::new();
        for (form, bases) in exceptions {
            ex.push((
                form.into_boxed_str(),
                bases.into_iter().map(String::into_boxed_str).collect(),
            ));
        }
        // Bases of a form accumulate across lines, in file order.
        ex.sort_by(|a, b| a.0.cmp(&b.0));
        let mut merged: Vec<Exception> = Vec::new();
        for (form, bases) in ex {
            match merged.last_mut() {
                Some((f, b)) if *f == form => {
                    let mut all = std::mem::take(b).into_vec();
                    all.extend(bases);
                    *b = all.into_boxed_slice();
                }
                _ => merged.push((form, bases.into_boxed_slice())),
            }
        }
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        Lexicon {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            words: w,
            exceptions: merged,
        }
    }

    /// Reads METEOR's `english.synsets` and `english.exceptions` (pairs of lines).
    pub fn from_meteor_files(synsets: &str, exceptions: &str) -> Result<Lexicon, LexiconError> {
        let mut words = Vec::new();
        let mut lines = synsets.lines().enumerate();
        while let Some((_, word)) = lines.next() {
            let Some((n, ids)) = lines.next() else { break };
            let ids = parse_ids(ids).map_err(|problem| LexiconError::Format {
                what: "english.synsets".into(),
                line: n + 1,
                problem,
            })?;
            words.push((word.to_string(), ids));
        }
        let mut exc = Vec::new();
        let mut lines = exceptions.lines();
        while let Some(base) = lines.next() {
            let Some(forms) = lines.next() else { break };
            for form in forms.split_whitespace() {
                exc.push((form.to_string(), vec![base.to_string()]));
            }
        }
        Ok(Lexicon::from_entries(words, exc))
    }

    /// Decodes the compact (gzip-compressed text) form written by [`Lexicon::to_compact`].
    pub fn from_compact(bytes: &[u8]) -> Result<Lexicon, LexiconError> {
        let mut text = String::new();
        flate2::read::GzDecoder::new(bytes)
            .read_to_string(&mut text)
            .map_err(|e| LexiconError::Io {
                path: "compact lexicon".into(),
                source: e,
            })?;
        let err = |line: usize, problem: &str| LexiconError::Format {
            what: "compact".into(),
            line,
            problem: problem.to_string(),
        };
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, m)) if m == MAGIC => {}
            _ => return Err(err(1, "bad magic line")),
        }
        let mut words = Vec::new();
        let mut exceptions = Vec::new();
        let mut in_exceptions = false;
        for (n, line) in lines {
            if line == "#exceptions" {
                in_exceptions = true;
                continue;
            }
            let (key, rest) = line
                .split_once('\t')
                .ok_or_else(|| err(n + 1, "missing tab"))?;
            if in_exceptions {
                let bases = rest
                    .split(' ')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
                exceptions.push((key.to_string(), bases));
            } else {
                let ids = parse_ids(rest).map_err(|p| err(n + 1, &p))?;
                words.push((key.to_string(), ids));
            }
        }
        Ok(Lexicon::from_entries(words, exceptions))
    }

    /// Encodes the lexicon compactly: sorted text lines, gzip-compressed (deterministic bytes).
    pub fn to_compact(&self) -> Vec<u8> {
        let mut text = String::with_capacity(4 << 20);
        text.push_str(MAGIC);
        text.push('\n');
        for (word, ids) in &self.words {
            text.push_str(word);
            text.push('\t');
            let ids: Vec<String> = ids.iter().map(u32::to_string).collect();
            text.push_str(&ids.join(" "));
            text.push('\n');
        }
        text.push_str("#exceptions\n");
        for (form, bases) in &self.exceptions {
            text.push_str(form);
            text.push('\t');
            text.push_str(&bases.join(" "));
            text.push('\n');
        }
        let mut enc = flate2::GzBuilder::new()
            .mtime(0)
            .write(Vec::new(), flate2::Compression::best());
        // Writing to a Vec cannot fail.
        let _ = std::io::Write::write_all(&mut enc, text.as_bytes());
        enc.finish().unwrap_or_default()
    }

    /// Number of words with synsets.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// All words that have synsets, in sorted order.
    pub fn words(&self) -> impl Iterator<Item = &str> {
        self.words.iter().map(|(w, _)| &**w)
    }

    /// METEOR's `getSynSets`: the synsets listed for exactly this word.
    pub fn synsets(&self, word: &str) -> &[u32] {
        match self.words.binary_search_by(|(w, _)| (**w).cmp(word)) {
            Ok(i) => &self.words[i].1,
            Err(_) => &[],
        }
    }

    fn contains(&self, word: &str) -> bool {
        self.words
            .binary_search_by(|(w, _)| (**w).cmp(word))
            .is_ok()
    }

    fn exception_bases(&self, form: &str) -> Option<&[Box<str>]> {
        self.exceptions
            .binary_search_by(|(f, _)| (**f).cmp(form))
            .ok()
            .map(|i| &*self.exceptions[i].1)
    }

    /// METEOR's `getStemSynSets`: synsets of the word's base forms.
    pub fn stem_synsets(&self, word: &str) -> Synsets {
        if let Some(bases) = self.exception_bases(word) {
            let mut out: Synsets = bases
                .iter()
                .flat_map(|b| self.synsets(b).iter().copied())
                .collect();
            out.sort_unstable();
            out.dedup();
            return out;
        }
        match self.morph(word) {
            Some(base) => self.synsets(&base).to_vec(),
            None => Vec::new(),
        }
    }

    /// METEOR's private `morph`: the base form by suffix rules, or `None` (METEOR's "").
    fn morph(&self, word: &str) -> Option<String> {
        if word.ends_with("ss") || java_len(word) <= 2 {
            return Some(word.to_string());
        }
        for (strip, add) in SUFFIX_RULES {
            if let Some(stem) = word.strip_suffix(strip) {
                let candidate = format!("{stem}{add}");
                if self.contains(&candidate) {
                    return Some(candidate);
                }
            }
        }
        // METEOR returns "" here; "" has synsets only if the dictionary lists the empty word.
        self.contains("").then(String::new)
    }

    /// SPICE's `SceneGraph.getSynSets`: trim, lowercase, spaces to underscores, then the synsets
    /// of the text and of its base forms.
    ///
    /// Scene graphs look the same few thousand words up over and over, so results are cached per
    /// thread (bounded: the cache is dropped when it grows past 100,000 entries).
    pub fn concept_synsets(&self, text: &str) -> Synsets {
        thread_local! {
            static CACHE: RefCell<(u64, HashMap<Box<str>, Synsets>)> = RefCell::new((0, HashMap::new()));
        }
        CACHE.with(|cache| {
            let (id, map) = &mut *cache.borrow_mut();
            if *id != self.id || map.len() >= 100_000 {
                *id = self.id;
                map.clear();
            }
            if let Some(hit) = map.get(text) {
                return hit.clone();
            }
            let found = self.lookup_concept(text);
            map.insert(Box::from(text), found.clone());
            found
        })
    }

    fn lookup_concept(&self, text: &str) -> Synsets {
        let key = text.trim().to_lowercase().replace(' ', "_");
        let mut out = self.synsets(&key).to_vec();
        out.extend(self.stem_synsets(&key));
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Java's `String.length()`: UTF-16 code units.
fn java_len(s: &str) -> usize {
    s.encode_utf16().count()
}

fn parse_ids(s: &str) -> Result<Vec<u32>, String> {
    s.split_whitespace()
        .map(|t| {
            t.parse::<u32>()
                .map_err(|e| format!("bad synset id {t:?}: {e}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toy() -> Lexicon {
        Lexicon::from_entries(
            [
                ("man".to_string(), vec![10, 11]),
                ("woman".to_string(), vec![20]),
                ("ride".to_string(), vec![30, 31]),
                ("riding".to_string(), vec![32]),
                ("dish".to_string(), vec![40]),
                ("handful".to_string(), vec![50]),
                ("glass".to_string(), vec![60]),
                ("in_front_of".to_string(), vec![70]),
            ],
            [
                ("men".to_string(), vec!["man".to_string()]),
                ("mice".to_string(), vec!["mouse".to_string()]),
            ],
        )
    }

    #[test]
    fn exceptions_win_even_when_their_base_is_unknown() {
        let lex = toy();
        assert_eq!(lex.stem_synsets("men"), vec![10, 11]);
        // "mouse" has no synsets in the toy lexicon, and the suffix rules are not tried.
        assert!(lex.stem_synsets("mice").is_empty());
    }

    #[test]
    fn suffix_rules_in_meteor_order() {
        let lex = toy();
        // "dishes": "s" gives "dishe" (unknown), then "shes"->"sh" gives "dish".
        assert_eq!(lex.stem_synsets("dishes"), vec![40]);
        // "riding": "ing"->"e" gives "ride" before "ing"->"" would give "rid".
        assert_eq!(lex.stem_synsets("riding"), vec![30, 31]);
        // The concept's synsets are its own plus its base's.
        assert_eq!(lex.concept_synsets(" Riding "), vec![30, 31, 32]);
    }

    #[test]
    fn meteor_quirks() {
        let lex = toy();
        // Words ending in "ss" are their own base.
        assert_eq!(lex.stem_synsets("glass"), vec![60]);
        // Two letters or fewer: the word is its own base, no suffix rule applies ("ms" is not "m").
        assert!(lex.stem_synsets("ms").is_empty());
        // Rule order: "s"->"" is tried before "es"->"e": "handfuls" -> "handful".
        assert_eq!(lex.stem_synsets("handfuls"), vec![50]);
    }

    #[test]
    fn multiword_concepts_use_underscores() {
        assert_eq!(toy().concept_synsets("in front of"), vec![70]);
    }

    #[test]
    fn compact_form_round_trips() {
        let lex = toy();
        let back = Lexicon::from_compact(&lex.to_compact()).expect("decodes");
        assert_eq!(back.words, lex.words);
        assert_eq!(back.exceptions, lex.exceptions);
    }

    #[test]
    fn embedded_lexicon_knows_common_caption_words() {
        let lex = Lexicon::embedded();
        assert!(lex.len() > 140_000, "{} words", lex.len());
        // "men" is an irregular plural: its synsets are those of "man".
        assert_eq!(lex.stem_synsets("men"), lex.synsets("man"));
        // Synonyms share a synset: "couch" and "sofa".
        let couch = lex.concept_synsets("couch");
        assert!(lex
            .concept_synsets("sofa")
            .iter()
            .any(|s| couch.contains(s)));
    }
}
