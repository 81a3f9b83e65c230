//! The two sentence-level BLEUs of Elliott & Keller (2014): smoothed BLEU-4 and unigram BLEU.
//!
//! In: a candidate and its references, tokens separated by whitespace (MultEval splits on
//! whitespace and tokenizes nothing). Out: a score in [0, 1] per candidate; the corpus score is
//! the mean of the sentence scores (a meta-evaluation correlates sentence scores; this is no
//! corpus BLEU).
//!
//! - `Bleu_smoothed`: BLEU-4 with the brevity penalty and add-one smoothing of the 2- to 4-gram
//!   precisions (Lin & Och 2004, "BLEU+1"), the sentence-level BLEU of MultEval (Clark et al.
//!   2011). Clipped counts against the most generous reference, as in BLEU; the brevity penalty
//!   uses the reference length closest to the candidate's (the shorter one on a tie), as
//!   mteval-v13a does. No unigram match, or an empty candidate, scores 0. An order the candidate
//!   is too short to have scores (0 + 1) / (0 + 1) = 1 (NLTK's `method2` gives 1/2 there: its
//!   precisions never have a zero denominator).
//! - `Bleu_unigram`: the clipped unigram precision, with no brevity penalty (0 for an empty
//!   candidate).

use std::collections::HashMap;

use rayon::prelude::*;

use super::{numpy_mean, ImageCaptions};

/// Our names (pycocoevalcap has neither).
pub const SMOOTHED_NAME: &str = "Bleu_smoothed";
pub const UNIGRAM_NAME: &str = "Bleu_unigram";

const MAX_N: usize = 4;

/// Per-image scores (in input order) and their mean.
#[derive(Debug, Clone, PartialEq)]
pub struct SentenceBleuScores {
    pub corpus: f64,
    pub per_image: Vec<f64>,
}

/// Smoothed BLEU-4 of every image.
pub fn bleu_smoothed(images: &[ImageCaptions]) -> SentenceBleuScores {
    run(images, bleu_smoothed_image)
}

/// Unigram BLEU of every image.
pub fn bleu_unigram(images: &[ImageCaptions]) -> SentenceBleuScores {
    run(images, bleu_unigram_image)
}

fn run(images: &[ImageCaptions], f: fn(&str, &[String]) -> f64) -> SentenceBleuScores {
    let per_image: Vec<f64> = images
        .par_iter()
        .map(|image| f(image.candidate(), image.references()))
        .collect();
    SentenceBleuScores {
        corpus: numpy_mean(&per_image),
        per_image,
    }
}

/// Sentence BLEU-4 with add-one smoothing for n > 1 and the brevity penalty.
pub fn bleu_smoothed_image(candidate: &str, references: &[String]) -> f64 {
    let (cand, refs) = words(candidate, references);
    let (matches, totals) = clipped_counts(&cand, &refs);
    if cand.is_empty() || matches[0] == 0 {
        return 0.0;
    }
    let mut log_sum = (matches[0] as f64 / totals[0] as f64).ln();
    for n in 1..MAX_N {
        log_sum += ((matches[n] + 1) as f64 / (totals[n] + 1) as f64).ln();
    }
    let c = cand.len();
    let r = refs
        .iter()
        .map(Vec::len)
        .min_by_key(|&len| (len.abs_diff(c), len))
        .unwrap_or(0);
    let bp = if c > r {
        1.0
    } else {
        (1.0 - r as f64 / c as f64).exp()
    };
    bp * (log_sum / MAX_N as f64).exp()
}

/// Clipped unigram precision.
pub fn bleu_unigram_image(candidate: &str, references: &[String]) -> f64 {
    let (cand, refs) = words(candidate, references);
    let (matches, totals) = clipped_counts(&cand, &refs);
    if totals[0] == 0 {
        0.0
    } else {
        matches[0] as f64 / totals[0] as f64
    }
}

/// The whitespace-separated words of a candidate and of its references.
fn words<'a>(candidate: &'a str, references: &'a [String]) -> (Vec<&'a str>, Vec<Vec<&'a str>>) {
    let refs = references
        .iter()
        .map(|r| r.split_whitespace().collect())
        .collect();
    (candidate.split_whitespace().collect(), refs)
}

/// Per order n = 1..4: candidate n-grams matched (each clipped at its largest count in one
/// reference), and candidate n-grams in all.
fn clipped_counts(cand: &[&str], refs: &[Vec<&str>]) -> ([usize; MAX_N], [usize; MAX_N]) {
    let mut matches = [0; MAX_N];
    let mut totals = [0; MAX_N];
    for n in 1..=MAX_N {
        let counts = ngram_counts(cand, n);
        let mut max_ref: HashMap<&[&str], usize> = HashMap::new();
        for r in refs {
            for (g, k) in ngram_counts(r, n) {
                let e = max_ref.entry(g).or_insert(0);
                *e = (*e).max(k);
            }
        }
        for (g, k) in counts {
            totals[n - 1] += k;
            matches[n - 1] += k.min(max_ref.get(g).copied().unwrap_or(0));
        }
    }
    (matches, totals)
}

fn ngram_counts<'a, 'b>(tokens: &'b [&'a str], n: usize) -> HashMap<&'b [&'a str], usize> {
    let mut counts = HashMap::new();
    if tokens.len() >= n {
        for w in tokens.windows(n) {
            *counts.entry(w).or_insert(0) += 1;
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(r: &[&str]) -> Vec<String> {
        r.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn unigram_bleu_clips_and_has_no_brevity_penalty() {
        // "the the the dog": "the" clipped at 2 (second reference), "dog" matches: 3 / 4.
        let r = refs(&["the dog", "the cat and the dog"]);
        assert_eq!(bleu_unigram_image("the the the dog", &r), 0.75);
        // A one-word candidate matching is perfect: no brevity penalty.
        assert_eq!(bleu_unigram_image("dog", &r), 1.0);
        assert_eq!(bleu_unigram_image("", &r), 0.0);
    }

    #[test]
    fn smoothed_bleu_by_hand() {
        // Candidate "a dog runs fast" (4), reference "a dog runs" (3): c > r, no penalty.
        // p1 = 3/4; p2 = (2+1)/(3+1) = 3/4; p3 = (1+1)/(2+1) = 2/3; p4 = (0+1)/(1+1) = 1/2.
        let expected = (0.75f64 * 0.75 * (2.0 / 3.0) * 0.5).powf(0.25);
        let got = bleu_smoothed_image("a dog runs fast", &refs(&["a dog runs"]));
        assert!((got - expected).abs() < 1e-15, "{got} vs {expected}");
    }

    #[test]
    fn smoothed_bleu_penalizes_short_candidates_and_needs_a_unigram() {
        // "a dog" against "a dog runs": p1 = 1, p2 = 2/2, p3 = p4 = 1/1; BP = exp(1 - 3/2).
        let got = bleu_smoothed_image("a dog", &refs(&["a dog runs"]));
        assert!((got - (-0.5f64).exp()).abs() < 1e-15);
        assert_eq!(bleu_smoothed_image("cat", &refs(&["a dog"])), 0.0);
        assert_eq!(bleu_smoothed_image("", &refs(&["a dog"])), 0.0);
    }

    #[test]
    fn closest_reference_length_prefers_the_shorter_on_a_tie() {
        // c = 2; references of length 1 and 3 are equally close: r = 1, so no penalty.
        let got = bleu_smoothed_image("a dog", &refs(&["dog", "a dog runs"]));
        assert_eq!(got, 1.0);
    }
}
