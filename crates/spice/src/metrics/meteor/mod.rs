//! METEOR 1.5 (Denkowski & Lavie 2014) exactly as pycocoevalcap computes it: its bundled
//! `meteor-1.5.jar` run as `-l en -norm` (task `rank`: alpha 0.85, beta 0.2, gamma 0.6, delta
//! 0.75; modules exact, stem, synonym, paraphrase weighted 1.0, 0.6, 0.8, 0.6; beam 40), fed one
//! `SCORE` line per image and one `EVAL` line for the corpus.
//!
//! In: [`ImageCaptions`] (pycocoevalcap's tokenized captions). Out: [`MeteorScores`], the
//! corpus score and one score per image. For each image, as the jar does:
//! 1. the candidate and each reference are normalised and lowercased (`normalize.rs`);
//! 2. the candidate is aligned with each reference (`align.rs`) and the reference whose
//!    alignment scores best (the first of equals) gives the image's statistics ([`MeteorStats`]):
//!    lengths, function words, matches per module and word kind, chunks;
//! 3. the image's score is METEOR of its statistics; the corpus score is METEOR of their sum
//!    (the jar's `EVAL` aggregation, where a perfect match adds no chunk), *not* their mean.
//!
//! The resources come from the data directory of `scripts/fetch-data` ([`Meteor::load`]): the
//! function words and nonbreaking prefixes unpacked from the jar (`meteor-1.5/`), and
//! pycocoevalcap's `paraphrase-en.gz`, kept after the first use in a compact form
//! (`meteor-1.5/paraphrase-en.bin`, see `paraphrase.rs`). The synonyms are the engine's embedded
//! lexicon ([`crate::wordnet`]: METEOR's own `english.synsets` and `english.exceptions`), the
//! stemmer is Snowball's English (`rust-stemmers`, checked word by word against the jar's in
//! `tests/meteor_parity.rs`).

mod align;
mod normalize;
mod paraphrase;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rayon::prelude::*;

use super::ImageCaptions;
use crate::javaorder::string_hash;
use crate::wordnet::Lexicon;
use align::{Line, Word, MODULES};

/// pycocoevalcap's name for the score.
pub const SCORE_NAME: &str = "METEOR";

/// The `rank` task's parameters and module weights (exact, stem, synonym, paraphrase).
const ALPHA: f64 = 0.85;
const BETA: f64 = 0.2;
const GAMMA: f64 = 0.6;
const DELTA: f64 = 0.75;
const WEIGHTS: [f64; MODULES] = [1.0, 0.6, 0.8, 0.6];

/// Why METEOR's resources could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum MeteorError {
    #[error("METEOR data missing: {path}: {reason} (run scripts/fetch-data, or point SPICEBOARD_DATA at its directory)")]
    Missing { path: String, reason: String },
    #[error("METEOR data unreadable: {path}: {reason} (run scripts/fetch-data again)")]
    Bad { path: String, reason: String },
}

/// METEOR 1.5's English resources, loaded once and shared by every evaluation.
pub struct Meteor {
    normalizer: normalize::Normalizer,
    function_words: HashSet<String>,
    paraphrases: paraphrase::Paraphrases,
    stemmer: rust_stemmers::Stemmer,
    lexicon: &'static Lexicon,
}

impl std::fmt::Debug for Meteor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Meteor").finish_non_exhaustive()
    }
}

impl Meteor {
    /// The data directory: `$SPICEBOARD_DATA`, else `~/.cache/spiceboard/data` (where
    /// `scripts/fetch-data` puts it).
    pub fn default_data_dir() -> PathBuf {
        if let Some(dir) = std::env::var_os("SPICEBOARD_DATA") {
            return PathBuf::from(dir);
        }
        let home = std::env::var_os("HOME").unwrap_or_default();
        PathBuf::from(home).join(".cache/spiceboard/data")
    }

    /// The resources in the default data directory, loaded on first call (a second or so the
    /// very first time, while the paraphrase table's compact form is made).
    pub fn shared() -> Result<&'static Meteor, &'static MeteorError> {
        static SHARED: OnceLock<Result<Meteor, MeteorError>> = OnceLock::new();
        SHARED
            .get_or_init(|| Meteor::load(&Meteor::default_data_dir()))
            .as_ref()
    }

    /// Loads the resources from a data directory laid out by `scripts/fetch-data`.
    pub fn load(data: &Path) -> Result<Meteor, MeteorError> {
        let dir = data.join("meteor-1.5");
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read_to_string(&path).map_err(|e| MeteorError::Missing {
                path: path.display().to_string(),
                reason: e.to_string(),
            })
        };
        let function_words = read("english.words")?.lines().map(str::to_string).collect();
        let normalizer = normalize::Normalizer::new(&read("english.prefixes")?);
        let paraphrases = paraphrase::Paraphrases::load(
            &data.join("pycocoevalcap/meteor/data/paraphrase-en.gz"),
            &dir.join("paraphrase-en.bin"),
        )?;
        Ok(Meteor {
            normalizer,
            function_words,
            paraphrases,
            stemmer: rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English),
            lexicon: Lexicon::embedded(),
        })
    }

    /// The jar's `-norm` normalisation of one caption, lowercased: its words joined by spaces.
    pub fn normalize(&self, caption: &str) -> String {
        self.normalizer.normalize(caption)
    }

    /// The Snowball English stem of a word, as the jar's stem module computes it.
    pub fn stem<'a>(&self, word: &'a str) -> std::borrow::Cow<'a, str> {
        self.stemmer.stem(word)
    }

    fn word(&self, w: &str) -> Word {
        let mut synsets = self.lexicon.synsets(w).to_vec();
        synsets.extend(self.lexicon.stem_synsets(w));
        synsets.sort_unstable();
        synsets.dedup();
        Word {
            key: string_hash(w),
            stem_key: string_hash(&self.stemmer.stem(w)),
            synsets,
            paraphrase_id: self.paraphrases.word_id(w),
            function: self.function_words.contains(w),
        }
    }

    /// The jar's `getMeteorStats(test, references)`: the best-scoring reference's statistics.
    fn best_stats(&self, test: &Line, references: &[Line]) -> MeteorStats {
        let mut best: Option<(f64, MeteorStats)> = None;
        for reference in references {
            let a = align::align(test, reference, Some(&self.paraphrases));
            let stats = MeteorStats::new(test, reference, &a);
            let score = stats.score();
            if best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, stats));
            }
        }
        best.map(|(_, s)| s).unwrap_or_default()
    }
}

/// What pycocoevalcap's `Meteor._stat` writes and the jar reads back: the candidate loses
/// `|||` and one of each pair of spaces, the line is split at `|||` (trailing empty parts
/// dropped, as Java's `split` does) and each part is trimmed.
fn score_line_parts(candidate: &str, references: &[String]) -> (String, Vec<String>) {
    let candidate = candidate.replace("|||", "").replace("  ", " ");
    let line = format!("SCORE ||| {} ||| {}", references.join(" ||| "), candidate);
    let mut parts: Vec<&str> = line.split("|||").collect();
    while parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    if parts.len() < 3 {
        // The jar answers with an error line, which pycocoevalcap cannot parse; not reachable
        // from pycocoevalcap's own input (the line always ends with " ||| " and the caption).
        return (String::new(), vec![String::new()]);
    }
    let trim = |p: &str| normalize::java_trim(p).to_string();
    let candidate = trim(parts[parts.len() - 1]);
    let references = parts[1..parts.len() - 1].iter().map(|p| trim(p)).collect();
    (candidate, references)
}

/// The jar's sufficient statistics of one candidate against one reference (`MeteorStats`, the
/// 23 numbers of a `SCORE` answer), summable over a corpus.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeteorStats {
    pub test_length: f64,
    pub reference_length: f64,
    pub test_function_words: f64,
    pub reference_function_words: f64,
    /// Matched words per module (exact, stem, synonym, paraphrase).
    pub test_content: [f64; MODULES],
    pub reference_content: [f64; MODULES],
    pub test_function: [f64; MODULES],
    pub reference_function: [f64; MODULES],
    pub chunks: f64,
}

impl MeteorStats {
    fn new(test: &Line, reference: &Line, a: &align::Alignment) -> MeteorStats {
        let f = |xs: [u32; MODULES]| xs.map(f64::from);
        MeteorStats {
            test_length: test.len() as f64,
            reference_length: reference.len() as f64,
            test_function_words: test.function_words() as f64,
            reference_function_words: reference.function_words() as f64,
            test_content: f(a.test_content),
            reference_content: f(a.reference_content),
            test_function: f(a.test_function),
            reference_function: f(a.reference_function),
            chunks: f64::from(a.chunks),
        }
    }

    /// The 23 numbers of the jar's `SCORE` answer, in its order: lengths, function words, then
    /// per module the test content, reference content, test function and reference function
    /// matches, then chunks and the matched words of each side.
    pub fn to_jar_values(&self) -> Vec<f64> {
        let mut v = vec![
            self.test_length,
            self.reference_length,
            self.test_function_words,
            self.reference_function_words,
        ];
        for i in 0..MODULES {
            v.extend([
                self.test_content[i],
                self.reference_content[i],
                self.test_function[i],
                self.reference_function[i],
            ]);
        }
        v.extend([self.chunks, self.test_matches(), self.reference_matches()]);
        v
    }

    fn test_matches(&self) -> f64 {
        (0..MODULES).fold(0.0, |s, i| s + self.test_content[i] + self.test_function[i])
    }

    fn reference_matches(&self) -> f64 {
        (0..MODULES).fold(0.0, |s, i| {
            s + self.reference_content[i] + self.reference_function[i]
        })
    }

    fn is_perfect(&self) -> bool {
        self.test_matches() == self.test_length
            && self.reference_matches() == self.reference_length
            && self.chunks == 1.0
    }

    /// The jar's `addStats` (its `EVAL` aggregation): sums, except that a perfect match (all
    /// words matched, one chunk) adds no chunk.
    pub fn add(&mut self, other: &MeteorStats) {
        self.test_length += other.test_length;
        self.reference_length += other.reference_length;
        self.test_function_words += other.test_function_words;
        self.reference_function_words += other.reference_function_words;
        for i in 0..MODULES {
            self.test_content[i] += other.test_content[i];
            self.reference_content[i] += other.reference_content[i];
            self.test_function[i] += other.test_function[i];
            self.reference_function[i] += other.reference_function[i];
        }
        if !other.is_perfect() {
            self.chunks += other.chunks;
        }
    }

    /// METEOR of these statistics (the jar's `computeMetrics`, operation for operation).
    pub fn score(&self) -> f64 {
        let weighted_length =
            |length: f64, function: f64| DELTA * (length - function) + (1.0 - DELTA) * function;
        let weighted_matches = |content: &[f64; MODULES], function: &[f64; MODULES]| {
            let mut m = 0.0;
            for i in 0..MODULES {
                m += content[i] * WEIGHTS[i] * DELTA;
            }
            for i in 0..MODULES {
                m += function[i] * WEIGHTS[i] * (1.0 - DELTA);
            }
            m
        };
        let precision = weighted_matches(&self.test_content, &self.test_function)
            / weighted_length(self.test_length, self.test_function_words);
        let recall = weighted_matches(&self.reference_content, &self.reference_function)
            / weighted_length(self.reference_length, self.reference_function_words);
        let f_mean = 1.0 / (((1.0 - ALPHA) / precision) + (ALPHA / recall));
        let frag = if self.is_perfect() {
            0.0
        } else {
            self.chunks / ((self.test_matches() + self.reference_matches()) / 2.0)
        };
        let penalty = GAMMA * frag.powf(BETA);
        let score = f_mean * (1.0 - penalty);
        if score.is_nan() {
            0.0
        } else {
            score.max(0.0)
        }
    }
}

/// Corpus and per-image METEOR, as pycocoevalcap's `Meteor.compute_score` returns them.
#[derive(Debug, Clone, PartialEq)]
pub struct MeteorScores {
    pub corpus: f64,
    pub per_image: Vec<f64>,
    /// Each image's statistics (its best reference's).
    pub stats: Vec<MeteorStats>,
}

/// METEOR of each image and of the corpus (images scored in parallel on rayon's pool).
pub fn meteor(m: &Meteor, images: &[ImageCaptions]) -> MeteorScores {
    // Each image's candidate and references as the jar reads and normalises them.
    let lines: Vec<(String, Vec<String>)> = images
        .par_iter()
        .map(|img| {
            let (cand, refs) = score_line_parts(img.candidate(), img.references());
            (
                m.normalize(&cand),
                refs.iter().map(|r| m.normalize(r)).collect(),
            )
        })
        .collect();
    // Their words as ids of distinct words, each looked up once (stem, synsets, paraphrase id).
    let mut index: foldhash::HashMap<&str, u32> = foldhash::HashMap::default();
    let mut distinct: Vec<&str> = Vec::new();
    let mut images_ids: Vec<(Vec<u32>, Vec<Vec<u32>>)> = Vec::with_capacity(lines.len());
    for (cand, refs) in &lines {
        let mut captions = std::iter::once(cand).chain(refs).map(|caption| {
            caption
                .split(normalize::is_tokenizer_space)
                .filter(|w| !w.is_empty())
                .map(|w| {
                    *index.entry(w).or_insert_with(|| {
                        distinct.push(w);
                        (distinct.len() - 1) as u32
                    })
                })
                .collect::<Vec<u32>>()
        });
        let cand = captions.next().unwrap_or_default();
        images_ids.push((cand, captions.collect()));
    }
    let infos: Vec<Word> = distinct.par_iter().map(|w| m.word(w)).collect();
    let line = |ws: &[u32]| {
        Line::new(
            ws.iter().map(|&w| &infos[w as usize]).collect(),
            Some(&m.paraphrases),
        )
    };
    let stats: Vec<MeteorStats> = images_ids
        .par_iter()
        .map(|(cand, refs)| {
            let refs: Vec<Line> = refs.iter().map(|r| line(r)).collect();
            m.best_stats(&line(cand), &refs)
        })
        .collect();
    let mut total = MeteorStats::default();
    for s in &stats {
        total.add(s);
    }
    MeteorScores {
        corpus: total.score(),
        per_image: stats.iter().map(MeteorStats::score).collect(),
        stats,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_lines_split_as_the_jar_reads_them() {
        let refs = vec!["a dog".to_string(), " two  cats ".to_string()];
        assert_eq!(
            score_line_parts("a  |||dog", &refs),
            (
                "a dog".to_string(),
                vec!["a dog".to_string(), "two  cats".to_string()]
            )
        );
        assert_eq!(score_line_parts("", &refs).0, "");
    }

    #[test]
    fn a_perfect_match_scores_by_f_mean_alone_and_adds_no_chunk() {
        let mut s = MeteorStats {
            test_length: 3.0,
            reference_length: 3.0,
            test_content: [3.0, 0.0, 0.0, 0.0],
            reference_content: [3.0, 0.0, 0.0, 0.0],
            chunks: 1.0,
            ..MeteorStats::default()
        };
        assert_eq!(s.score(), 1.0);
        let mut total = MeteorStats::default();
        total.add(&s);
        assert_eq!(total.chunks, 0.0);
        s.chunks = 2.0;
        // frag = 2 / 3, penalty = 0.6 * (2/3)^0.2
        let expected = 1.0 - GAMMA * (2.0f64 / 3.0).powf(BETA);
        assert!((s.score() - expected).abs() < 1e-15);
    }

    #[test]
    fn no_words_score_zero() {
        assert_eq!(MeteorStats::default().score(), 0.0);
    }
}
