//! `BaseLexicon` and `EnglishUnknownWordModel`: which tags a word may take, and log P(word | tag).
//!
//! A word the training data saw (`seen` counts) scores by Bayes' rule from P(tag | word), smoothed
//! with P(tag | unseen word) unless the word was seen more than `smoothInUnknownsThreshold` times;
//! with `flexiTag` such a rarely seen word may take any tag that scores. An unknown word takes the
//! open-class tags and scores through its signature (`useUnknownWordSignatures 2`: capitalisation,
//! dash, digits, last letter). Arithmetic in doubles in CoreNLP's order, the result cast to a float.

use std::collections::HashMap;
use std::sync::Arc;

use super::memo::Memo;
use super::model::{Counts, LexiconData, ModelError};

const ANY: i32 = -1;

/// The lexicon at parse time.
#[derive(Debug, Clone)]
pub struct Lexicon {
    data: LexiconData,
    word_index: HashMap<String, i32>,
    /// `rulesWithWord`: the tags each known word was seen with (the unknown word "UNK": the
    /// open-class tags).
    tags_of_word: HashMap<i32, Vec<i32>>,
    /// Every tag seen in training (`tags`), for `flexiTag`.
    all_tags: Vec<i32>,
    unknown_word: i32,
    /// Counts the scores read for every word, by tag: seen (`tag`, any word), unseen (`tag`,
    /// any word); and the two totals.
    seen_of_tag: Vec<f64>,
    unseen_of_tag: Vec<f64>,
    total_seen: f64,
    total_unseen: f64,
    /// Each word's scored taggings, as [`Lexicon::scored_taggings`] computes them once.
    scored: ScoredCache,
}

/// Scored taggings by word and signature (which is all a score depends on besides the tag),
/// shared by the threads, up to [`CACHED_BYTES`] of words and taggings in all.
type ScoredCache = Memo<(String, i32), Scored>;

/// A word's taggings with their scores, (tag, score).
type Scored = Arc<[(i32, f32)]>;

/// How much [`ScoredCache`] keeps: its words' bytes and 8 bytes a tagging. A caption corpus's
/// vocabulary needs far less (an unknown word has a few dozen taggings); past it, a stream of
/// new or overlong words is scored each time and not remembered.
const CACHED_BYTES: usize = 32 << 20;

/// A word as the parser looks it up: its index (or none) and its text; with its position, the
/// index of its unknown-word signature there.
#[derive(Debug, Clone)]
pub struct Word {
    pub index: Option<i32>,
    pub text: String,
    signature: Option<(usize, i32)>,
}

impl Lexicon {
    pub fn new(data: LexiconData, words: &[String]) -> Result<Lexicon, ModelError> {
        let unsupported = |what: &str| ModelError::Unsupported {
            path: String::new(),
            what: format!("its lexicon uses {what}, which this reader does not reproduce"),
        };
        if data.smart_mutation {
            return Err(unsupported("smartMutation"));
        }
        if data.use_signature_for_known_smoothing {
            return Err(unsupported("useSignatureForKnownSmoothing"));
        }
        if data.unknown_level != 2 {
            return Err(unsupported(&format!(
                "unknown-word signatures of level {}",
                data.unknown_level
            )));
        }
        let word_index: HashMap<String, i32> = words
            .iter()
            .enumerate()
            .map(|(i, w)| (w.clone(), i as i32))
            .collect();
        let unknown_word = word_index.get("UNK").copied().unwrap_or(words.len() as i32);
        let mut tags_of_word: HashMap<i32, Vec<i32>> = HashMap::new();
        let mut all_tags = Vec::new();
        for &(w, t) in data.seen.keys() {
            if w == ANY && t != ANY {
                all_tags.push(t);
            }
            if w != ANY && t != ANY {
                tags_of_word.entry(w).or_default().push(t);
            }
        }
        all_tags.sort_unstable();
        let open: Vec<i32> = all_tags
            .iter()
            .copied()
            .filter(|&t| count(&data.unseen, ANY, t) > f64::from(data.open_class_types_threshold))
            .collect();
        tags_of_word.entry(unknown_word).or_default().extend(open);
        for tags in tags_of_word.values_mut() {
            tags.sort_unstable();
        }
        let tags = all_tags.iter().map(|&t| t as usize + 1).max().unwrap_or(0);
        let by_tag = |c: &Counts| (0..tags as i32).map(|t| count(c, ANY, t)).collect();
        Ok(Lexicon {
            seen_of_tag: by_tag(&data.seen),
            unseen_of_tag: by_tag(&data.unseen),
            total_seen: count(&data.seen, ANY, ANY),
            total_unseen: count(&data.unseen, ANY, ANY),
            data,
            word_index,
            tags_of_word,
            all_tags,
            unknown_word,
            scored: Memo::new(CACHED_BYTES),
        })
    }

    /// log P(tag) in the training counts, by tag index (−∞ for a tag never seen).
    pub fn tag_log_priors(&self) -> Vec<f32> {
        self.seen_of_tag
            .iter()
            .map(|&c| (c / self.total_seen).ln() as f32)
            .collect()
    }

    pub fn word(&self, text: &str) -> Word {
        Word {
            index: self.word_index.get(text).copied(),
            text: text.to_string(),
            signature: None,
        }
    }

    /// The word at position `loc`, its signature looked up once for all the tags scored there.
    pub fn word_at(&self, text: &str, loc: usize) -> Word {
        let mut w = self.word(text);
        let sig = signature2(text, loc);
        w.signature = Some((loc, self.word_index.get(&sig).copied().unwrap_or(i32::MIN)));
        w
    }

    /// The taggings the chart tries for a word ([`Lexicon::taggings`]) with their scores:
    /// computed once for each word and signature ([`ScoredCache`]).
    pub fn scored_taggings(&self, w: &Word, loc: usize) -> Arc<[(i32, f32)]> {
        let key = match w.signature {
            Some((at, sig)) if at == loc => (w.text.clone(), sig),
            _ => return self.score_taggings(w, loc).into(),
        };
        if let Some(hit) = self.scored.get(&key) {
            return hit;
        }
        let scored: Scored = self.score_taggings(w, loc).into();
        let size = key.0.len() + 8 * scored.len();
        self.scored.keep(key, scored.clone(), size);
        scored
    }

    fn score_taggings(&self, w: &Word, loc: usize) -> Vec<(i32, f32)> {
        match self.flexi_scored(w, loc) {
            Some(scored) => scored,
            None => self
                .taggings(w, loc)
                .into_iter()
                .map(|t| (t, self.score(w, t, loc)))
                .collect(),
        }
    }

    /// A rarely seen word's taggings under `flexiTag`: every tag that scores, with its score.
    fn flexi_scored(&self, w: &Word, loc: usize) -> Option<Vec<(i32, f32)>> {
        let i = w.index.filter(|_| self.is_known(w))?;
        if !self.data.flexi_tag
            || count(&self.data.seen, i, ANY) > f64::from(self.data.smooth_in_unknowns_threshold)
        {
            return None;
        }
        Some(
            self.all_tags
                .iter()
                .map(|&t| (t, self.score(w, t, loc)))
                .filter(|&(_, s)| s > f32::NEG_INFINITY)
                .collect(),
        )
    }

    /// `isKnown`: the word has taggings in `rulesWithWord`.
    pub fn is_known(&self, w: &Word) -> bool {
        w.index.is_some_and(|i| self.tags_of_word.contains_key(&i))
    }

    /// `ruleIteratorByWord`: the tags the chart tries for a word (their order does not matter:
    /// each fills its own cell entry).
    pub fn taggings(&self, w: &Word, loc: usize) -> Vec<i32> {
        match w.index.filter(|_| self.is_known(w)) {
            Some(i) => {
                let seen_tags = &self.tags_of_word[&i];
                if !self.data.flexi_tag
                    || count(&self.data.seen, i, ANY)
                        > f64::from(self.data.smooth_in_unknowns_threshold)
                {
                    seen_tags.clone()
                } else {
                    self.all_tags
                        .iter()
                        .copied()
                        .filter(|&t| self.score(w, t, loc) > f32::NEG_INFINITY)
                        .collect()
                }
            }
            None => self
                .tags_of_word
                .get(&self.unknown_word)
                .cloned()
                .unwrap_or_default(),
        }
    }

    /// `BaseLexicon.score`: log P(word | tag) as a float, −∞ below −100.
    pub fn score(&self, w: &Word, tag: i32, loc: usize) -> f32 {
        let d = &self.data;
        let word = w.index.unwrap_or(i32::MIN);
        let c_w = count(&d.seen, word, ANY);
        let c_tw = if c_w > 0.0 {
            count(&d.seen, word, tag)
        } else {
            0.0
        };
        let total = self.total_seen;
        let total_unseen = self.total_unseen;
        let by_tag = |counts: &[f64], c: &Counts| match usize::try_from(tag) {
            Ok(t) if t < counts.len() => counts[t],
            _ => count(c, ANY, tag),
        };
        let c_t = by_tag(&self.seen_of_tag, &d.seen);
        let c_t_unseen = by_tag(&self.unseen_of_tag, &d.unseen);
        let pb_w_t = if c_w > 0.0 {
            let p_t_u = c_t_unseen / total_unseen;
            let pb_t_w =
                if c_w > f64::from(d.smooth_in_unknowns_threshold) && c_tw > 0.0 && c_w > 0.0 {
                    c_tw / c_w
                } else {
                    (c_tw + d.smooth[1] * p_t_u) / (c_w + d.smooth[1])
                };
            let p_t = c_t / total;
            let p_w = c_w / total;
            (pb_t_w * p_w / p_t).ln()
        } else {
            f64::from(self.unknown_score(w, tag, loc, c_t, total))
        };
        if pb_w_t > -100.0 {
            pb_w_t as f32
        } else {
            f32::NEG_INFINITY
        }
    }

    /// `EnglishUnknownWordModel.score`.
    fn unknown_score(&self, w: &Word, tag: i32, loc: usize, c_t_seen: f64, total: f64) -> f32 {
        let d = &self.data;
        let sig = match w.signature {
            Some((at, sig)) if at == loc => sig,
            _ => {
                let sig = signature2(&w.text, loc);
                self.word_index.get(&sig).copied().unwrap_or(i32::MIN)
            }
        };
        let c_ts = count(&d.unseen, sig, tag);
        let c_s = count(&d.unseen, sig, ANY);
        let c_u = self.total_unseen;
        let c_t = match usize::try_from(tag) {
            Ok(t) if t < self.unseen_of_tag.len() => self.unseen_of_tag[t],
            _ => count(&d.unseen, ANY, tag),
        };
        let p_t_u = c_t / c_u;
        let pb_t_s = (c_ts + d.smooth[0] * p_t_u) / (c_s + d.smooth[0]);
        let p_t = c_t_seen / total;
        let p_w = 1.0 / total;
        let pb_w_t = (pb_t_s * p_w / p_t).ln();
        if pb_w_t > -100.0 {
            pb_w_t as f32
        } else {
            f32::NEG_INFINITY
        }
    }
}

fn count(c: &Counts, word: i32, tag: i32) -> f64 {
    c.get(&(word, tag)).copied().unwrap_or(0.0)
}

/// Java's `Character` tests on one UTF-16 code unit (a surrogate is none of these).
fn unit_char(u: u16) -> Option<char> {
    char::from_u32(u32::from(u))
}

fn is_digit(u: u16) -> bool {
    unit_char(u).is_some_and(|c| {
        use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
        c.general_category() == GeneralCategory::DecimalNumber
    })
}

fn is_letter(u: u16) -> bool {
    unit_char(u).is_some_and(|c| {
        use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};
        c.general_category_group() == GeneralCategoryGroup::Letter
    })
}

fn is_lower(u: u16) -> bool {
    unit_char(u).is_some_and(char::is_lowercase)
}

fn is_upper(u: u16) -> bool {
    unit_char(u).is_some_and(char::is_uppercase)
}

fn is_title(u: u16) -> bool {
    unit_char(u).is_some_and(|c| {
        use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
        c.general_category() == GeneralCategory::TitlecaseLetter
    })
}

/// `getSignature` at level 2: "UNK", then -ALLC / -INIT / -UC by the first letter's case (or -LC
/// for lowercase), -DASH, then -NUM (all digits) / -DIG (some), or else the last character
/// lowercased when the word is longer than three.
pub fn signature2(word: &str, loc: usize) -> String {
    let units: Vec<u16> = word.encode_utf16().collect();
    let mut has_digit = false;
    let mut has_non_digit = false;
    let mut has_lower = false;
    for &u in &units {
        if is_digit(u) {
            has_digit = true;
        } else {
            has_non_digit = true;
            if is_letter(u) && (is_lower(u) || is_title(u)) {
                has_lower = true;
            }
        }
    }
    let mut sig = String::from("UNK");
    match units.first() {
        Some(&first) if is_upper(first) || is_title(first) => {
            sig.push_str(if !has_lower {
                "-ALLC"
            } else if loc == 0 {
                "-INIT"
            } else {
                "-UC"
            });
        }
        _ if has_lower => sig.push_str("-LC"),
        _ => {}
    }
    if units.contains(&u16::from(b'-')) {
        sig.push_str("-DASH");
    }
    if has_digit {
        sig.push_str(if has_non_digit { "-DIG" } else { "-NUM" });
    } else if units.len() > 3 {
        if let Some(&last) = units.last() {
            // Character.toLowerCase on one code unit.
            match unit_char(last) {
                Some(c) => sig.extend(java_lower(c)),
                None => sig.push(char::REPLACEMENT_CHARACTER),
            }
        }
    }
    sig
}

/// `Character.toLowerCase(char)`: a one-to-one mapping (multi-character lowercasings keep the
/// character).
fn java_lower(c: char) -> Option<char> {
    let mut l = c.to_lowercase();
    match (l.next(), l.next()) {
        (Some(x), None) => Some(x),
        _ => Some(c),
    }
}

#[cfg(test)]
mod tests {
    use super::signature2;

    #[test]
    fn signatures() {
        assert_eq!(signature2("frisbee", 3), "UNK-LCe");
        assert_eq!(signature2("Frisbee", 0), "UNK-INITe");
        assert_eq!(signature2("Frisbee", 2), "UNK-UCe");
        assert_eq!(signature2("NASA", 2), "UNK-ALLCa");
        assert_eq!(signature2("1984", 2), "UNK-NUM");
        assert_eq!(signature2("x-ray2", 2), "UNK-LC-DASH-DIG");
        assert_eq!(signature2("zzz", 2), "UNK-LC");
        assert_eq!(signature2("-", 2), "UNK-DASH");
    }
}
