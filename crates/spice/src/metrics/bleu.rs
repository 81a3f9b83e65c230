//! BLEU-1..4 as pycocoevalcap's `Bleu(4)` computes it (its `bleu_scorer.py`, after David
//! Chiang's scorer).
//!
//! Per image: clipped n-gram matches `correct[n]` (each candidate n-gram counts at most as often
//! as in the reference that has it most), `guess[n]` = number of candidate n-grams, and the
//! "closest" reference length (the reference length nearest the candidate's, the shorter one on a
//! tie). BLEU-n is the geometric mean of the precisions 1..n, each smoothed as
//! `(correct + 1e-15) / (guess + 1e-9)` so that an empty candidate gives a tiny number instead of
//! a division by zero, times the brevity penalty `exp(1 - ref/test)` when the candidate is shorter.
//!
//! Corpus level: not a mean of per-image scores. The counts and lengths are summed over all
//! images first, and the same formula runs once on the sums.

use rayon::prelude::*;

use super::corpus::Corpus;
use super::ngrams::{order, pack, NGramCounts, MAX_N};
use super::ImageCaptions;

/// pycocoevalcap's `small`: added to denominators.
const SMALL: f64 = 1e-9;
/// pycocoevalcap's `tiny`: added to numerators, "so that if guess is 0 still return 0".
const TINY: f64 = 1e-15;

/// pycocoevalcap's names for BLEU-1..4.
pub const SCORE_NAMES: [&str; MAX_N] = ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"];

/// BLEU-1..4, corpus-level and per image (in input order).
#[derive(Debug, Clone, PartialEq)]
pub struct BleuScores {
    pub corpus: [f64; MAX_N],
    pub per_image: Vec<[f64; MAX_N]>,
}

/// What BLEU needs to know about one image (pycocoevalcap's `cook_test` result).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counts {
    testlen: usize,
    /// The "closest" reference length.
    reflen: usize,
    guess: [usize; MAX_N],
    correct: [usize; MAX_N],
}

/// BLEU-1..4 of every image and of the corpus.
pub fn bleu(images: &[ImageCaptions]) -> BleuScores {
    bleu_corpus(&Corpus::new(images))
}

/// [`bleu`] on captions already turned into token ids.
pub(crate) fn bleu_corpus(corpus: &Corpus) -> BleuScores {
    let counts: Vec<Counts> = (0..corpus.len())
        .into_par_iter()
        .map_init(Scratch::default, |scratch, i| {
            image_counts(corpus, i, scratch)
        })
        .collect();
    let per_image = counts.iter().map(score).collect();
    let mut total = Counts::default();
    for c in &counts {
        total.testlen += c.testlen;
        total.reflen += c.reflen;
        for k in 0..MAX_N {
            total.guess[k] += c.guess[k];
            total.correct[k] += c.correct[k];
        }
    }
    BleuScores {
        corpus: score(&total),
        per_image,
    }
}

/// Buffers one thread reuses from image to image.
#[derive(Default)]
struct Scratch {
    candidate: NGramCounts,
    /// Per candidate n-gram: its count in the current reference, and the largest count in one
    /// reference so far.
    in_reference: Vec<u32>,
    max_in_reference: Vec<u32>,
}

fn image_counts(corpus: &Corpus, i: usize, s: &mut Scratch) -> Counts {
    let ids = corpus.candidate(i);
    let testlen = ids.len();
    s.candidate.fill(ids);
    let m = s.candidate.entries.len();
    s.max_in_reference.clear();
    s.max_in_reference.resize(m, 0);
    // cook_refs keeps each n-gram's largest count in one reference, for every reference n-gram;
    // only the candidate's n-grams are ever read back, so only those are counted. And the
    // "closest" reference length: min over (|l - testlen|, l), the shorter one on a tie.
    let mut reflen: Option<usize> = None;
    for reference in corpus.references(i) {
        let l = reference.len();
        let closer = match reflen {
            None => true,
            Some(r) => (l.abs_diff(testlen), l) < (r.abs_diff(testlen), r),
        };
        if closer {
            reflen = Some(l);
        }
        s.in_reference.clear();
        s.in_reference.resize(m, 0);
        for n in 1..=MAX_N {
            if s.candidate.order(n).is_empty() {
                continue;
            }
            for window in reference.windows(n) {
                if let Some(j) = s.candidate.position(n, pack(window)) {
                    s.in_reference[j] += 1;
                }
            }
        }
        for (max, &c) in s.max_in_reference.iter_mut().zip(&s.in_reference) {
            *max = (*max).max(c);
        }
    }
    // cook_test
    let mut correct = [0; MAX_N];
    for (j, &(g, c)) in s.candidate.entries.iter().enumerate() {
        correct[order(&g) - 1] += c.min(s.max_in_reference[j]) as usize;
    }
    let guess = std::array::from_fn(|k| (testlen + 1).saturating_sub(k + 1));
    Counts {
        testlen,
        reflen: reflen.unwrap_or(0),
        guess,
        correct,
    }
}

/// pycocoevalcap's `compute_score` formula, used on one image's counts and on the corpus sums.
fn score(c: &Counts) -> [f64; MAX_N] {
    let mut scores = [0.0; MAX_N];
    let mut product = 1.0f64;
    for (k, s) in scores.iter_mut().enumerate() {
        product *= (c.correct[k] as f64 + TINY) / (c.guess[k] as f64 + SMALL);
        // Python computes `bleu ** (1./(k+1))` with libm's pow. Hiding the exponent from the
        // optimizer keeps it from turning pow(x, 0.5) into sqrt(x), which can differ in the
        // last bit.
        *s = product.powf(std::hint::black_box(1.0 / (k as f64 + 1.0)));
    }
    let ratio = (c.testlen as f64 + TINY) / (c.reflen as f64 + SMALL);
    if ratio < 1.0 {
        let brevity = (1.0 - 1.0 / ratio).exp();
        for s in &mut scores {
            *s *= brevity;
        }
    }
    scores
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(candidate: &str, refs: &[&str]) -> ImageCaptions {
        ImageCaptions::new(candidate, refs.iter().map(|r| r.to_string()).collect())
            .expect("test captions have references")
    }

    /// The smoothing constants move scores by about 1e-10; 1e-8 is far below any real step.
    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-8
    }

    #[test]
    fn two_tiny_sentences() {
        // candidate "the cat sat on the mat" (6 tokens), reference "the cat is on the mat".
        // 1-grams: the x2 (ref has 2), cat, sat (no), on, mat -> 5 of 6
        // 2-grams: "the cat", "cat sat" (no), "sat on" (no), "on the", "the mat" -> 3 of 5
        // 3-grams: "the cat sat", "cat sat on", "sat on the" (none), "on the mat" -> 1 of 4
        // 4-grams: none of 3 match -> 0 of 3, so BLEU-4 is (smoothed) almost 0.
        // Equal lengths: no brevity penalty.
        let s = bleu(&[image("the cat sat on the mat", &["the cat is on the mat"])]);
        let p = [5.0 / 6.0, 3.0 / 5.0, 1.0 / 4.0];
        assert!(close(s.per_image[0][0], p[0]));
        assert!(close(s.per_image[0][1], (p[0] * p[1]).sqrt()));
        assert!(close(s.per_image[0][2], (p[0] * p[1] * p[2]).cbrt()));
        assert!(s.per_image[0][3] < 1e-3);
        // One image: the corpus formula sees the same counts.
        assert_eq!(s.corpus, s.per_image[0]);
    }

    #[test]
    fn clipping_and_closest_reference_length() {
        // "the the the" against "the cat" and "the dog sat here": "the" counts at most once
        // (clipped), so BLEU-1 precision is 1/3. The candidate has 3 tokens; references have 2
        // and 4, both at distance 1, and the tie goes to the shorter (2): no brevity penalty.
        let s = bleu(&[image("the the the", &["the cat", "the dog sat here"])]);
        assert!(close(s.per_image[0][0], 1.0 / 3.0));
    }

    #[test]
    fn brevity_penalty_for_short_candidates() {
        // "a dog" against "a dog runs fast": all 1- and 2-grams match but length 2 < 4,
        // so BLEU-1 = BLEU-2 = exp(1 - 4/2) = e^-1.
        let s = bleu(&[image("a dog", &["a dog runs fast"])]);
        assert!(close(s.per_image[0][0], (-1.0f64).exp()));
        assert!(close(s.per_image[0][1], (-1.0f64).exp()));
    }

    #[test]
    fn corpus_bleu_pools_counts_instead_of_averaging() {
        // Image 1 matches fully (4/4 unigrams); image 2 not at all (0/2). Pooled BLEU-1 is
        // 4/6, not the mean of 1 and 0. Pooled lengths: 6 vs 6, no penalty.
        let s = bleu(&[image("a b c d", &["a b c d"]), image("x y", &["p q"])]);
        assert!(close(s.per_image[0][0], 1.0));
        assert!(s.per_image[1][0] < 1e-5);
        assert!(close(s.corpus[0], 4.0 / 6.0));
    }

    #[test]
    fn empty_candidate_scores_by_the_smoothing_constants() {
        // No tokens: every precision is 1e-15 / 1e-9 = 1e-6 and the brevity penalty
        // exp(1 - (1e-9 + 2)/1e-15) underflows to 0.
        let s = bleu(&[image("", &["a dog"])]);
        assert_eq!(s.per_image[0], [0.0; 4]);
    }
}
