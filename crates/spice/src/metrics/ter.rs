//! TER, translation edit rate (Snover et al. 2006), as tercom 0.8.0 computes it at sentence level,
//! following sacrebleu's port of tercom (`sacrebleu.metrics.lib_ter`) step for step.
//!
//! In: a candidate and its references (whitespace-separated tokens, lowercased first, as tercom
//! does by default). Out: the fewest edits that turn the candidate into one of the references,
//! divided by the *average* reference length. An edit is an insertion, a deletion, a substitution
//! or a shift (a block of up to 10 words moved, counted as one edit). Lower is better.
//!
//! Shifts are found greedily, as tercom finds them: repeatedly take the shift that lowers the
//! (beam-searched) edit distance the most, ties broken by longer block, then earlier block, then
//! earlier target; stop when no shift helps or after 1,000 shift candidates in all. The constants
//! and the tie-breaking are tercom's and sacrebleu's; the beam keeps the distance matrix near its
//! (length-scaled) diagonal, so on pathological length ratios the distance is an upper bound,
//! as in both of them.
//!
//! Corpus level (tercom's): total edits over total average reference length.

use rayon::prelude::*;

use super::ImageCaptions;

/// Our name for TER (pycocoevalcap has none).
pub const SCORE_NAME: &str = "TER";

/// tercom's limits: the longest block a shift moves, and how far apart its source and target
/// positions may start.
const MAX_SHIFT_SIZE: usize = 10;
const MAX_SHIFT_DIST: usize = 50;
/// Half-width of the band of the edit distance matrix that is computed.
const BEAM_WIDTH: usize = 25;
/// sacrebleu's cap on the shift candidates one sentence may try.
const MAX_SHIFT_CANDIDATES: usize = 1000;
const INFINITY: i64 = 10_000_000_000_000_000;

/// TER per image (in input order) and tercom's corpus TER.
#[derive(Debug, Clone, PartialEq)]
pub struct TerScores {
    pub corpus: f64,
    pub per_image: Vec<f64>,
}

/// The edits and reference length of one candidate (tercom's sufficient statistics).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TerStats {
    /// Fewest edits over the references.
    pub edits: usize,
    /// Average length of the references, in words.
    pub reference_length: f64,
}

impl TerStats {
    /// edits / reference length; 1 for a non-empty candidate against empty references, 0 when
    /// both are empty (sacrebleu's convention).
    pub fn score(self) -> f64 {
        ratio(self.edits as f64, self.reference_length)
    }
}

fn ratio(edits: f64, length: f64) -> f64 {
    if length > 0.0 {
        edits / length
    } else if edits > 0.0 {
        1.0
    } else {
        0.0
    }
}

/// TER of every image, and the corpus TER.
pub fn ter(images: &[ImageCaptions]) -> TerScores {
    let stats: Vec<TerStats> = images
        .par_iter()
        .map(|image| ter_stats(image.candidate(), image.references()))
        .collect();
    let edits: f64 = stats.iter().map(|s| s.edits as f64).sum();
    let length: f64 = stats.iter().map(|s| s.reference_length).sum();
    TerScores {
        corpus: ratio(edits, length),
        per_image: stats.iter().map(|s| s.score()).collect(),
    }
}

/// TER of one candidate against its references.
pub fn ter_image(candidate: &str, references: &[String]) -> f64 {
    ter_stats(candidate, references).score()
}

/// The fewest edits over the references, and their average length.
pub fn ter_stats(candidate: &str, references: &[String]) -> TerStats {
    let lower = candidate.to_lowercase();
    let hyp: Vec<&str> = lower.split_whitespace().collect();
    let mut best = usize::MAX;
    let mut length = 0usize;
    for reference in references {
        let lower = reference.to_lowercase();
        let refr: Vec<&str> = lower.split_whitespace().collect();
        length += refr.len();
        best = best.min(edits(&hyp, &refr));
    }
    TerStats {
        edits: if references.is_empty() { 0 } else { best },
        reference_length: if references.is_empty() {
            0.0
        } else {
            length as f64 / references.len() as f64
        },
    }
}

/// Edits (shifts included) that turn `hyp` into `refr` (sacrebleu's `translation_edit_rate`).
pub fn edits(hyp: &[&str], refr: &[&str]) -> usize {
    if refr.is_empty() {
        return hyp.len();
    }
    let mut words: Vec<&str> = hyp.to_vec();
    let mut shifts = 0;
    let mut checked = 0;
    loop {
        let (delta, shifted) = best_shift(&words, refr, &mut checked);
        if checked >= MAX_SHIFT_CANDIDATES || delta <= 0 {
            break;
        }
        shifts += 1;
        words = shifted;
    }
    shifts + edit_distance(&words, refr).0 as usize
}

/// An edit of the trace that rewrites the candidate into the reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Match,
    Substitute,
    /// A reference word missing from the candidate.
    Insert,
    /// A candidate word missing from the reference.
    Delete,
    Undefined,
}

/// The shift that lowers the edit distance most (sacrebleu's `_shift`): its gain and the
/// shifted words, or gain 0 and the words unchanged.
fn best_shift<'a>(words: &[&'a str], refr: &[&str], checked: &mut usize) -> (i64, Vec<&'a str>) {
    let (pre_score, trace) = edit_distance(words, refr);
    let alignment = Alignment::from_trace(&trace);
    // (gain, length, -start, -target, words), the largest wins, the first among equals.
    let mut best: Option<(i64, usize, i64, i64, Vec<&'a str>)> = None;
    'pairs: for start_h in 0..words.len() {
        for start_r in 0..refr.len() {
            if start_r.abs_diff(start_h) > MAX_SHIFT_DIST {
                continue;
            }
            let mut length = 0;
            while words[start_h + length] == refr[start_r + length] && length < MAX_SHIFT_SIZE {
                length += 1;
                try_shift(
                    words, refr, &alignment, pre_score, start_h, start_r, length, checked,
                    &mut best,
                );
                if *checked >= MAX_SHIFT_CANDIDATES {
                    break 'pairs;
                }
                if words.len() == start_h + length || refr.len() == start_r + length {
                    break;
                }
            }
        }
    }
    match best {
        Some((gain, _, _, _, shifted)) => (gain, shifted),
        None => (0, words.to_vec()),
    }
}

/// Tries moving `words[start_h..start_h + length]` (which equals `refr[start_r..][..length]`)
/// next to the candidate words aligned around `start_r`, keeping the best move in `best`.
#[allow(clippy::too_many_arguments)]
fn try_shift<'a>(
    words: &[&'a str],
    refr: &[&str],
    alignment: &Alignment,
    pre_score: i64,
    start_h: usize,
    start_r: usize,
    length: usize,
    checked: &mut usize,
    best: &mut Option<(i64, usize, i64, i64, Vec<&'a str>)>,
) {
    // Only a block that is wrong where it is, to a place where the reference is not matched.
    if alignment.hyp_err[start_h..start_h + length]
        .iter()
        .all(|e| !e)
    {
        return;
    }
    if alignment.ref_err[start_r..start_r + length]
        .iter()
        .all(|e| !e)
    {
        return;
    }
    // Not within the block itself.
    if let Some(&a) = alignment.align.get(start_r) {
        if start_h as i64 <= a && a < (start_h + length) as i64 {
            return;
        }
    }
    let mut prev = None;
    for offset in -1..length as i64 {
        let position = start_r as i64 + offset;
        let target = if position == -1 {
            0
        } else {
            match alignment.align.get(position as usize) {
                Some(&a) => (a + 1) as usize,
                None => break, // past the reference
            }
        };
        if prev == Some(target) {
            continue;
        }
        prev = Some(target);
        let shifted = perform_shift(words, start_h, length, target);
        let gain = pre_score - edit_distance(&shifted, refr).0;
        *checked += 1;
        let candidate = (gain, length, -(start_h as i64), -(target as i64), shifted);
        if best.as_ref().is_none_or(|b| candidate > *b) {
            *best = Some(candidate);
        }
    }
}

/// `words` with the block `start..start + length` moved before position `target` (sacrebleu's
/// `_perform_shift`, slices clamped as Python clamps them).
fn perform_shift<'a>(
    words: &[&'a str],
    start: usize,
    length: usize,
    target: usize,
) -> Vec<&'a str> {
    let py = |a: usize, b: usize| {
        let b = b.min(words.len());
        &words[a.min(b)..b]
    };
    let end = words.len();
    let parts = if target < start {
        [
            py(0, target),
            py(start, start + length),
            py(target, start),
            py(start + length, end),
        ]
    } else if target > start + length {
        [
            py(0, start),
            py(start + length, target),
            py(start, start + length),
            py(target, end),
        ]
    } else {
        [
            py(0, start),
            py(start + length, length + target),
            py(start, start + length),
            py(length + target, end),
        ]
    };
    parts.concat()
}

/// Which reference position aligns to which candidate position, and which words are in error.
struct Alignment {
    /// Per reference position: the candidate position it is aligned to (the last one before it
    /// for a reference word the candidate lacks; -1 before the first candidate word).
    align: Vec<i64>,
    ref_err: Vec<bool>,
    hyp_err: Vec<bool>,
}

impl Alignment {
    /// From the trace that rewrites the candidate into the reference, read (as tercom does) as
    /// rewriting the reference into the candidate: insertions and deletions swap roles.
    fn from_trace(trace: &[Op]) -> Alignment {
        let mut pos_hyp: i64 = -1;
        let mut align = Vec::new();
        let (mut ref_err, mut hyp_err) = (Vec::new(), Vec::new());
        for &op in trace {
            match op {
                Op::Match | Op::Substitute => {
                    pos_hyp += 1;
                    align.push(pos_hyp);
                    let err = op == Op::Substitute;
                    hyp_err.push(err);
                    ref_err.push(err);
                }
                // A candidate word the reference lacks (an insertion into the reference).
                Op::Delete => {
                    pos_hyp += 1;
                    hyp_err.push(true);
                }
                // A reference word the candidate lacks.
                Op::Insert => {
                    align.push(pos_hyp);
                    ref_err.push(true);
                }
                Op::Undefined => {}
            }
        }
        Alignment {
            align,
            ref_err,
            hyp_err,
        }
    }
}

/// Levenshtein distance from `hyp` to `refr` within tercom's beam, and the trace of edits.
fn edit_distance(hyp: &[&str], refr: &[&str]) -> (i64, Vec<Op>) {
    let (n, m) = (hyp.len(), refr.len());
    let mut dist = vec![vec![(INFINITY, Op::Undefined); m + 1]; n + 1];
    for (j, cell) in dist[0].iter_mut().enumerate() {
        *cell = (j as i64, Op::Insert);
    }
    let ratio = if n > 0 { m as f64 / n as f64 } else { 1.0 };
    let beam = if (BEAM_WIDTH as f64) < ratio / 2.0 {
        (ratio / 2.0 + BEAM_WIDTH as f64).ceil() as i64
    } else {
        BEAM_WIDTH as i64
    };
    for i in 1..=n {
        let diagonal = (i as f64 * ratio).floor() as i64;
        let min_j = (diagonal - beam).max(0) as usize;
        let max_j = if i == n {
            m + 1
        } else {
            (diagonal + beam).clamp(0, m as i64 + 1) as usize
        };
        for j in min_j..max_j {
            if j == 0 {
                dist[i][0] = (dist[i - 1][0].0 + 1, Op::Delete);
                continue;
            }
            let (cost_sub, op_sub) = if hyp[i - 1] == refr[j - 1] {
                (0, Op::Match)
            } else {
                (1, Op::Substitute)
            };
            // tercom prefers a match or substitution, then (in the flipped reading) deletion,
            // then insertion.
            let ops = [
                (dist[i - 1][j - 1].0 + cost_sub, op_sub),
                (dist[i - 1][j].0 + 1, Op::Delete),
                (dist[i][j - 1].0 + 1, Op::Insert),
            ];
            for (cost, op) in ops {
                if dist[i][j].0 > cost {
                    dist[i][j] = (cost, op);
                }
            }
        }
    }
    let mut trace = Vec::new();
    let (mut i, mut j) = (n, m);
    while i > 0 || j > 0 {
        let op = dist[i][j].1;
        trace.push(op);
        match op {
            Op::Match | Op::Substitute => {
                i -= 1;
                j -= 1;
            }
            Op::Insert => j -= 1,
            Op::Delete => i -= 1,
            Op::Undefined => break, // outside the beam: cannot happen on the final row/column
        }
    }
    trace.reverse();
    (dist[n][m].0, trace)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(r: &[&str]) -> Vec<String> {
        r.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn identical_captions_need_no_edit() {
        assert_eq!(ter_image("a dog runs", &refs(&["a dog runs"])), 0.0);
    }

    #[test]
    fn one_substitution_in_four_words_is_a_quarter() {
        assert_eq!(
            ter_image("a cat is running", &refs(&["a dog is running"])),
            0.25
        );
    }

    #[test]
    fn a_moved_block_is_one_shift_not_several_edits() {
        // Levenshtein needs 4 edits; tercom moves "in the park" in front in one shift.
        let hyp = ["in", "the", "park", "a", "dog", "runs"];
        let refr = ["a", "dog", "runs", "in", "the", "park"];
        assert_eq!(edit_distance(&hyp, &refr).0, 6);
        assert_eq!(edits(&hyp, &refr), 1);
    }

    #[test]
    fn the_best_reference_counts_but_the_length_is_the_average() {
        // 1 edit against the first reference (length 4); average length (4 + 2) / 2 = 3.
        let stats = ter_stats("a dog is running", &refs(&["a dog is walking", "a cat"]));
        assert_eq!(stats.edits, 1);
        assert_eq!(stats.reference_length, 3.0);
        assert_eq!(stats.score(), 1.0 / 3.0);
    }

    #[test]
    fn case_is_ignored_and_empty_captions_are_handled() {
        assert_eq!(ter_image("A Dog", &refs(&["a dog"])), 0.0);
        assert_eq!(ter_image("", &refs(&["a dog"])), 1.0);
        assert_eq!(ter_image("a dog", &refs(&[""])), 1.0);
        assert_eq!(ter_image("", &refs(&[""])), 0.0);
    }

    #[test]
    fn corpus_ter_pools_the_edits() {
        let images = [
            ImageCaptions::new("a dog", refs(&["a cat"])).expect("refs"),
            ImageCaptions::new("x y z w", refs(&["x y z w"])).expect("refs"),
        ];
        let s = ter(&images);
        assert_eq!(s.per_image, vec![0.5, 0.0]);
        assert_eq!(s.corpus, 1.0 / 6.0);
    }
}
