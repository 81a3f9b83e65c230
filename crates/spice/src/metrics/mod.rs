//! The classic caption metrics of the COCO evaluation server: BLEU-1..4, ROUGE-L and CIDEr-D,
//! computed exactly as pycocoevalcap computes them (same constants, same corner cases, same
//! order of floating-point operations where it matters), corpus-level and per image.
//!
//! In: an [`EvalSet`], i.e. image id -> ([`ImageCaptions`]: one candidate caption and its
//! reference captions), every caption *already tokenized* the way pycocoevalcap's `PTBTokenizer`
//! leaves it (lowercased PTB tokens joined by single spaces, punctuation removed; see
//! `tokenize::tokenize_coco`). Out: an [`Evaluation`]: corpus scores and per-image scores under
//! pycocoevalcap's names (`Bleu_1`..`Bleu_4`, `ROUGE_L`, `CIDEr`).
//!
//! Each metric also has its own entry point ([`bleu::bleu`], [`rouge::rouge_l`],
//! [`cider::cider_d`]) for callers that need only one. CIDEr-D weighs n-grams by document
//! frequencies over the reference captions; pycocoevalcap computes them from the evaluated
//! references, which [`evaluate`] does when given no [`CiderDf`]. A server that scores many
//! submissions against one reference split computes a [`CiderDf`] once at ingestion
//! ([`CiderDf::from_references`], serializable with serde) and passes it in.
//!
//! The seed paper's sentence-level metrics (Elliott & Keller 2014) are here too, for
//! meta-evaluation: TER ([`ter`], tercom's), ROUGE-SU4 ([`rouge_su`], ROUGE-1.5.5's), smoothed
//! and unigram BLEU ([`sentence_bleu`]). They are not in [`Metric::ALL`] (the COCO table) but in
//! [`Metric::SEED`], under the names `TER`, `ROUGE_SU4`, `Bleu_smoothed`, `Bleu_unigram`.
//! ROUGE-SU4 with ROUGE's Porter stemming (`-m`, [`porter`]) is [`Metric::RougeSu4Stem`],
//! `ROUGE_SU4_stem`, in neither list.
//!
//! METEOR 1.5 ([`meteor`]) is [`Metric::Meteor`] (score name `METEOR`); it needs resources
//! from the data directory ([`meteor::Meteor`]), which [`evaluate`] takes as an argument and
//! without which it leaves METEOR out.

pub mod bleu;
pub mod cider;
mod corpus;
pub mod meteor;
mod ngrams;
pub mod porter;
pub mod rouge;
pub mod rouge_su;
pub mod sentence_bleu;
pub mod ter;

use std::collections::HashSet;

use corpus::Corpus;
use std::fmt;
use std::hash::Hash;
use std::str::FromStr;

pub use bleu::BleuScores;
pub use cider::{CiderDf, CiderScores};
pub use rouge::RougeScores;

/// Why a set of captions cannot be evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetricsError {
    /// pycocoevalcap asserts at least one reference per image; so do we.
    #[error("image has no reference captions")]
    NoReferences,
    #[error("image id {image} appears more than once")]
    DuplicateImage { image: String },
    #[error("unknown metric {name:?} (known: bleu, meteor, rouge, cider, ter, rouge_su4, rouge_su4_stem, bleu_smoothed, bleu_unigram)")]
    UnknownMetric { name: String },
    #[error("invalid CIDEr-D document frequencies: {reason}")]
    InvalidDocumentFrequencies { reason: String },
}

/// One image's tokenized candidate caption and its tokenized reference captions (at least one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageCaptions {
    candidate: String,
    references: Vec<String>,
}

impl ImageCaptions {
    /// Captions are tokenized text: tokens separated by spaces, as pycocoevalcap's tokenizer
    /// returns them. An empty candidate is allowed (it scores as pycocoevalcap scores it).
    pub fn new(
        candidate: impl Into<String>,
        references: Vec<String>,
    ) -> Result<Self, MetricsError> {
        if references.is_empty() {
            return Err(MetricsError::NoReferences);
        }
        Ok(ImageCaptions {
            candidate: candidate.into(),
            references,
        })
    }

    pub fn candidate(&self) -> &str {
        &self.candidate
    }

    pub fn references(&self) -> &[String] {
        &self.references
    }
}

/// The images of one evaluation, in the order given: image id -> captions, ids unique.
///
/// The order only affects the last bits of corpus means (as it does in pycocoevalcap, which
/// follows its dict's order); per-image results come back in this order.
#[derive(Debug, Clone)]
pub struct EvalSet<K> {
    ids: Vec<K>,
    images: Vec<ImageCaptions>,
}

impl<K: Eq + Hash + fmt::Debug> EvalSet<K> {
    pub fn new(
        entries: impl IntoIterator<Item = (K, ImageCaptions)>,
    ) -> Result<Self, MetricsError> {
        let (ids, images): (Vec<K>, Vec<ImageCaptions>) = entries.into_iter().unzip();
        let mut seen = HashSet::with_capacity(ids.len());
        for id in &ids {
            if !seen.insert(id) {
                return Err(MetricsError::DuplicateImage {
                    image: format!("{id:?}"),
                });
            }
        }
        Ok(EvalSet { ids, images })
    }
}

impl<K> EvalSet<K> {
    pub fn ids(&self) -> &[K] {
        &self.ids
    }

    pub fn images(&self) -> &[ImageCaptions] {
        &self.images
    }

    pub fn len(&self) -> usize {
        self.images.len()
    }

    pub fn is_empty(&self) -> bool {
        self.images.is_empty()
    }
}

/// A metric family that [`evaluate`] can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// BLEU-1..4 (Papineni et al. 2002) with pycocoevalcap's "closest" reference length.
    Bleu,
    /// METEOR 1.5 as pycocoevalcap's jar computes it (needs [`meteor::Meteor`]).
    Meteor,
    /// ROUGE-L (Lin 2004) with beta = 1.2.
    RougeL,
    /// CIDEr-D (Vedantam et al. 2015) with sigma = 6, clipping and the x10 factor.
    CiderD,
    /// TER as tercom 0.8.0 computes it (lower is better).
    Ter,
    /// ROUGE-SU4 as ROUGE-1.5.5 computes it (F-measure).
    RougeSu4,
    /// ROUGE-SU4 with ROUGE-1.5.5's Porter stemming (`-m`).
    RougeSu4Stem,
    /// Sentence BLEU-4 with add-one smoothing (MultEval's, Clark et al. 2011).
    BleuSmoothed,
    /// Unigram BLEU without brevity penalty.
    BleuUnigram,
}

impl Metric {
    /// Every metric, in the order of the COCO evaluation server's table.
    pub const ALL: [Metric; 4] = [Metric::Bleu, Metric::Meteor, Metric::RougeL, Metric::CiderD];

    /// The sentence-level metrics of Elliott & Keller (2014), in their table's order.
    pub const SEED: [Metric; 4] = [
        Metric::RougeSu4,
        Metric::BleuSmoothed,
        Metric::BleuUnigram,
        Metric::Ter,
    ];

    /// The names pycocoevalcap's `COCOEvalCap` stores this metric's scores under.
    pub fn score_names(self) -> &'static [&'static str] {
        match self {
            Metric::Bleu => &bleu::SCORE_NAMES,
            Metric::Meteor => &[meteor::SCORE_NAME],
            Metric::RougeL => &[rouge::SCORE_NAME],
            Metric::CiderD => &[cider::SCORE_NAME],
            Metric::Ter => &[ter::SCORE_NAME],
            Metric::RougeSu4 => &[rouge_su::SCORE_NAME],
            Metric::RougeSu4Stem => &[rouge_su::STEM_SCORE_NAME],
            Metric::BleuSmoothed => &[sentence_bleu::SMOOTHED_NAME],
            Metric::BleuUnigram => &[sentence_bleu::UNIGRAM_NAME],
        }
    }

    /// Whether a lower score means a better caption (TER counts errors).
    pub fn lower_is_better(self) -> bool {
        self == Metric::Ter
    }
}

impl FromStr for Metric {
    type Err = MetricsError;

    /// The names `spice eval --metrics` accepts: `bleu`, `meteor`, `rouge`, `cider`, `ter`,
    /// `rouge_su4`, `rouge_su4_stem`, `bleu_smoothed`, `bleu_unigram` (any case, `-` for `_`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "bleu" => Ok(Metric::Bleu),
            "meteor" => Ok(Metric::Meteor),
            "rouge" | "rouge_l" | "rouge-l" => Ok(Metric::RougeL),
            "cider" | "cider-d" | "cider_d" => Ok(Metric::CiderD),
            "ter" => Ok(Metric::Ter),
            "rouge_su4" | "rouge-su4" => Ok(Metric::RougeSu4),
            "rouge_su4_stem" | "rouge-su4-stem" => Ok(Metric::RougeSu4Stem),
            "bleu_smoothed" | "bleu-smoothed" => Ok(Metric::BleuSmoothed),
            "bleu_unigram" | "bleu-unigram" => Ok(Metric::BleuUnigram),
            _ => Err(MetricsError::UnknownMetric {
                name: s.to_string(),
            }),
        }
    }
}

/// Named scores, in the order the metrics were requested.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scores(Vec<(&'static str, f64)>);

impl Scores {
    pub fn get(&self, name: &str) -> Option<f64> {
        self.0.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        self.0.iter().copied()
    }

    fn push(&mut self, name: &'static str, value: f64) {
        self.0.push((name, value));
    }
}

/// Corpus-level and per-image scores of one evaluation (pycocoevalcap's `eval` and `evalImgs`).
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation<K> {
    pub corpus: Scores,
    /// One entry per image of the [`EvalSet`], in its order.
    pub per_image: Vec<(K, Scores)>,
}

/// Runs `metrics` on `set`. CIDEr-D uses `df` if given, else document frequencies over the
/// references of `set` (what pycocoevalcap does). METEOR runs only with its resources
/// (`meteor`); without them it is left out, and so is ROUGE-SU4 with stemming without its data
/// ([`rouge_su::Exceptions::shared`]). Each metric runs its images on rayon's pool.
pub fn evaluate<K: Clone>(
    set: &EvalSet<K>,
    metrics: &[Metric],
    df: Option<&CiderDf>,
    meteor: Option<&meteor::Meteor>,
) -> Evaluation<K> {
    let images = set.images();
    let mut corpus = Scores::default();
    let mut per_image: Vec<Scores> = vec![Scores::default(); images.len()];
    let mut done = HashSet::new();
    // Token ids, computed once for BLEU and CIDEr-D (unless CIDEr-D uses given frequencies,
    // whose vocabulary it must use).
    let needs_ids = metrics
        .iter()
        .any(|m| *m == Metric::Bleu || (*m == Metric::CiderD && df.is_none()));
    let ids = needs_ids.then(|| Corpus::new(images));
    for &metric in metrics {
        if !done.insert(metric) {
            continue;
        }
        match metric {
            Metric::Bleu => {
                let s = match &ids {
                    Some(ids) => bleu::bleu_corpus(ids),
                    None => bleu::bleu(images),
                };
                for (k, name) in bleu::SCORE_NAMES.iter().enumerate() {
                    corpus.push(name, s.corpus[k]);
                    for (row, img) in per_image.iter_mut().zip(&s.per_image) {
                        row.push(name, img[k]);
                    }
                }
            }
            Metric::Meteor => {
                let Some(resources) = meteor else { continue };
                let s = meteor::meteor(resources, images);
                corpus.push(meteor::SCORE_NAME, s.corpus);
                for (row, &v) in per_image.iter_mut().zip(&s.per_image) {
                    row.push(meteor::SCORE_NAME, v);
                }
            }
            Metric::RougeL => {
                let s = rouge::rouge_l(images);
                corpus.push(rouge::SCORE_NAME, s.corpus);
                for (row, &v) in per_image.iter_mut().zip(&s.per_image) {
                    row.push(rouge::SCORE_NAME, v);
                }
            }
            Metric::CiderD => {
                let s = match (df, &ids) {
                    (Some(df), _) => cider::cider_d(df, images),
                    (None, Some(ids)) => cider::cider_d_corpus(ids),
                    (None, None) => cider::cider_d_self(images),
                };
                corpus.push(cider::SCORE_NAME, s.corpus);
                for (row, &v) in per_image.iter_mut().zip(&s.per_image) {
                    row.push(cider::SCORE_NAME, v);
                }
            }
            Metric::Ter => {
                let s = ter::ter(images);
                push_all(
                    &mut corpus,
                    &mut per_image,
                    ter::SCORE_NAME,
                    s.corpus,
                    &s.per_image,
                );
            }
            Metric::RougeSu4 => {
                let s = rouge_su::rouge_su4(images);
                push_all(
                    &mut corpus,
                    &mut per_image,
                    rouge_su::SCORE_NAME,
                    s.corpus,
                    &s.per_image,
                );
            }
            Metric::RougeSu4Stem => {
                let Ok(exceptions) = rouge_su::Exceptions::shared() else {
                    continue;
                };
                let s = rouge_su::rouge_su4_stem(exceptions, images);
                let name = rouge_su::STEM_SCORE_NAME;
                push_all(&mut corpus, &mut per_image, name, s.corpus, &s.per_image);
            }
            Metric::BleuSmoothed => {
                let s = sentence_bleu::bleu_smoothed(images);
                let name = sentence_bleu::SMOOTHED_NAME;
                push_all(&mut corpus, &mut per_image, name, s.corpus, &s.per_image);
            }
            Metric::BleuUnigram => {
                let s = sentence_bleu::bleu_unigram(images);
                let name = sentence_bleu::UNIGRAM_NAME;
                push_all(&mut corpus, &mut per_image, name, s.corpus, &s.per_image);
            }
        }
    }
    Evaluation {
        corpus,
        per_image: set.ids().iter().cloned().zip(per_image).collect(),
    }
}

/// Records one single-score metric: its corpus score and each image's.
fn push_all(
    corpus: &mut Scores,
    per_image: &mut [Scores],
    name: &'static str,
    corpus_score: f64,
    scores: &[f64],
) {
    corpus.push(name, corpus_score);
    for (row, &v) in per_image.iter_mut().zip(scores) {
        row.push(name, v);
    }
}

/// `np.mean` of a float64 vector, bit for bit: numpy sums with pairwise summation (blocks of
/// 128, unrolled by 8) and then divides by the count. pycocoevalcap averages ROUGE-L and CIDEr-D
/// this way; a plain left-to-right sum would differ in the last bits.
pub(crate) fn numpy_mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN; // np.mean of an empty array (with a warning)
    }
    numpy_pairwise_sum(values) / values.len() as f64
}

fn numpy_pairwise_sum(a: &[f64]) -> f64 {
    const BLOCK: usize = 128;
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for &x in a {
            res += x;
        }
        res
    } else if n <= BLOCK {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&a[..8]);
        let whole = n - n % 8;
        let mut i = 8;
        while i < whole {
            for j in 0..8 {
                r[j] += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &x in &a[whole..] {
            res += x;
        }
        res
    } else {
        let mut half = n / 2;
        half -= half % 8;
        numpy_pairwise_sum(&a[..half]) + numpy_pairwise_sum(&a[half..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(candidate: &str, refs: &[&str]) -> ImageCaptions {
        ImageCaptions::new(candidate, refs.iter().map(|r| r.to_string()).collect())
            .expect("test captions have references")
    }

    #[test]
    fn an_image_without_references_is_rejected() {
        assert_eq!(
            ImageCaptions::new("a dog", vec![]),
            Err(MetricsError::NoReferences)
        );
    }

    #[test]
    fn duplicate_image_ids_are_rejected() {
        let err = EvalSet::new([(7, caps("a", &["a"])), (7, caps("b", &["b"]))]);
        assert_eq!(
            err.err(),
            Some(MetricsError::DuplicateImage { image: "7".into() })
        );
    }

    #[test]
    fn metric_names_parse_and_unknown_ones_are_named() {
        assert_eq!("bleu".parse::<Metric>(), Ok(Metric::Bleu));
        assert_eq!("ROUGE".parse::<Metric>(), Ok(Metric::RougeL));
        assert_eq!("cider".parse::<Metric>(), Ok(Metric::CiderD));
        assert_eq!("METEOR".parse::<Metric>(), Ok(Metric::Meteor));
        assert_eq!("TER".parse::<Metric>(), Ok(Metric::Ter));
        assert_eq!("rouge-su4".parse::<Metric>(), Ok(Metric::RougeSu4));
        assert_eq!("ROUGE_SU4_stem".parse::<Metric>(), Ok(Metric::RougeSu4Stem));
        assert_eq!("Bleu_smoothed".parse::<Metric>(), Ok(Metric::BleuSmoothed));
        assert_eq!("bleu_unigram".parse::<Metric>(), Ok(Metric::BleuUnigram));
        assert_eq!(
            "nist".parse::<Metric>(),
            Err(MetricsError::UnknownMetric {
                name: "nist".into()
            })
        );
    }

    #[test]
    fn evaluate_reports_every_score_under_pycocoevalcap_names() {
        let set = EvalSet::new([
            (
                "a",
                caps(
                    "a man riding a horse",
                    &["a man rides a horse", "a person on a horse"],
                ),
            ),
            (
                "b",
                caps("two dogs play", &["two dogs playing in the grass"]),
            ),
        ])
        .expect("unique ids");
        // Without METEOR's resources, METEOR is left out.
        let eval = evaluate(&set, &Metric::ALL, None, None);
        let names: Vec<_> = eval.corpus.iter().map(|(n, _)| n).collect();
        assert_eq!(
            names,
            ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "CIDEr"]
        );
        assert_eq!(eval.per_image.len(), 2);
        assert_eq!(eval.per_image[1].0, "b");
        // ROUGE-L corpus score is the mean of the per-image scores.
        let mean = (eval.per_image[0].1.get("ROUGE_L").unwrap_or(f64::NAN)
            + eval.per_image[1].1.get("ROUGE_L").unwrap_or(f64::NAN))
            / 2.0;
        assert_eq!(eval.corpus.get("ROUGE_L"), Some(mean));
    }

    #[test]
    fn numpy_mean_uses_pairwise_summation() {
        // 1e16 + 1 + ... : left-to-right loses every 1.0; numpy's 8 partial sums keep some.
        let mut v = vec![1e16];
        v.extend(std::iter::repeat_n(1.0, 15));
        let naive: f64 = v.iter().sum();
        assert_eq!(naive, 1e16);
        // r[0] = 1e16 + 1 (lost) ; r[1..8] = 2.0 each -> 1e16 + 14 exactly representable.
        assert_eq!(numpy_pairwise_sum(&v), 1e16 + 14.0);
    }
}
