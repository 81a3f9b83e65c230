//! ROUGE-L as pycocoevalcap's `Rouge` computes it.
//!
//! Per image: for each reference, the longest common subsequence (LCS) of candidate and
//! reference tokens gives a precision `lcs / |candidate|` and a recall `lcs / |reference|`.
//! pycocoevalcap takes the best precision and the best recall *separately* (possibly from
//! different references) and combines them into an F-measure weighted towards recall:
//! `(1 + b^2) P R / (R + b^2 P)` with `b = 1.2`, or 0 if either is 0.
//! Corpus level: the mean of the per-image scores.
//!
//! Tokens here are what Python's `str.split(" ")` gives, not `str.split()`: an empty caption is
//! one empty token, and two spaces in a row make an empty token between them. pycocoevalcap
//! does exactly that, so an empty candidate against an empty reference scores 1.

use rayon::prelude::*;

use super::{numpy_mean, ImageCaptions};

/// pycocoevalcap's `beta` ("updated ... based on discussion with Hovey").
pub const BETA: f64 = 1.2;

/// pycocoevalcap's name for ROUGE-L.
pub const SCORE_NAME: &str = "ROUGE_L";

/// ROUGE-L, corpus-level (mean) and per image (in input order).
#[derive(Debug, Clone, PartialEq)]
pub struct RougeScores {
    pub corpus: f64,
    pub per_image: Vec<f64>,
}

/// ROUGE-L of every image and their mean.
pub fn rouge_l(images: &[ImageCaptions]) -> RougeScores {
    let per_image: Vec<f64> = images
        .par_iter()
        .map(|image| rouge_l_image(image.candidate(), image.references()))
        .collect();
    RougeScores {
        corpus: numpy_mean(&per_image),
        per_image,
    }
}

/// ROUGE-L of one candidate against its references (pycocoevalcap's `calc_score`).
pub fn rouge_l_image(candidate: &str, references: &[String]) -> f64 {
    let cand: Vec<&str> = candidate.split(' ').collect();
    let mut prec_max = f64::NEG_INFINITY;
    let mut rec_max = f64::NEG_INFINITY;
    for reference in references {
        let refr: Vec<&str> = reference.split(' ').collect();
        let lcs = lcs_len(&refr, &cand) as f64;
        prec_max = prec_max.max(lcs / cand.len() as f64);
        rec_max = rec_max.max(lcs / refr.len() as f64);
    }
    if prec_max != 0.0 && rec_max != 0.0 {
        let b2 = BETA * BETA;
        ((1.0 + b2) * prec_max * rec_max) / (rec_max + b2 * prec_max)
    } else {
        0.0
    }
}

/// Length of the longest common subsequence of two token sequences, by dynamic programming
/// over one row of the table (the length is symmetric, so which side is "string" and which is
/// "sub" in pycocoevalcap's `my_lcs` does not matter).
pub fn lcs_len<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    // row[j] = LCS of the prefix of `long` seen so far and short[..j].
    let mut row = vec![0usize; short.len() + 1];
    for x in long {
        let mut diagonal = 0; // row[j - 1] of the previous prefix
        for (j, y) in short.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if x == y {
                diagonal + 1
            } else {
                above.max(row[j])
            };
            diagonal = above;
        }
    }
    row[short.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(r: &[&str]) -> Vec<String> {
        r.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn lcs_of_two_captions() {
        // "a man riding a horse" vs "a man is riding a brown horse":
        // the whole candidate appears in order (a man _ riding a _ horse): LCS 5.
        let a: Vec<&str> = "a man riding a horse".split(' ').collect();
        let b: Vec<&str> = "a man is riding a brown horse".split(' ').collect();
        assert_eq!(lcs_len(&a, &b), 5);
        assert_eq!(lcs_len(&b, &a), 5);
        // Order matters: "horse a" vs "a horse" share only one token in order.
        assert_eq!(lcs_len(&["horse", "a"], &["a", "horse"]), 1);
        assert_eq!(lcs_len::<&str>(&[], &["a"]), 0);
    }

    #[test]
    fn f_measure_with_beta_1_2() {
        // Candidate of 5 tokens, reference of 7, LCS 5: P = 1, R = 5/7.
        // F = (1 + 1.44) * 1 * (5/7) / (5/7 + 1.44 * 1) = 2.44 * 5 / (5 + 1.44 * 7).
        let f = rouge_l_image(
            "a man riding a horse",
            &refs(&["a man is riding a brown horse"]),
        );
        assert!((f - 2.44 * 5.0 / (5.0 + 1.44 * 7.0)).abs() < 1e-12);
    }

    #[test]
    fn best_precision_and_best_recall_may_come_from_different_references() {
        // Candidate "a b c d". Ref 1 "a b" : LCS 2, P = 2/4, R = 2/2 = 1.
        // Ref 2 "a b c d e f g h": LCS 4, P = 1, R = 4/8. Best P = 1, best R = 1: F = 1,
        // although neither reference alone gives 1.
        let f = rouge_l_image("a b c d", &refs(&["a b", "a b c d e f g h"]));
        assert_eq!(f, 1.0);
    }

    #[test]
    fn tokens_are_split_on_single_spaces_as_python_does() {
        // No overlap at all: 0.
        assert_eq!(rouge_l_image("x y", &refs(&["a b"])), 0.0);
        // "".split(" ") is [""]: an empty candidate matches an empty reference fully.
        assert_eq!(rouge_l_image("", &refs(&[""])), 1.0);
        assert_eq!(rouge_l_image("", &refs(&["a dog"])), 0.0);
    }

    #[test]
    fn corpus_score_is_the_mean() {
        let images = [
            ImageCaptions::new("a b", refs(&["a b"])).expect("has refs"),
            ImageCaptions::new("x", refs(&["a b"])).expect("has refs"),
        ];
        let s = rouge_l(&images);
        assert_eq!(s.per_image, [1.0, 0.0]);
        assert_eq!(s.corpus, 0.5);
    }
}
