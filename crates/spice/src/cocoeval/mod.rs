//! COCO-format caption evaluation, as pycocoevalcap's `COCOEvalCap` runs it: annotation and
//! result files in, `eval` (corpus scores) and `evalImgs` (per-image scores) out.
//!
//! In: a COCO caption annotation file (`{"images": [{"id"}, ...], "annotations": [{"image_id",
//! "caption"}, ...]}`, read as pycocotools' `COCO` reads it) and a result file (`[{"image_id",
//! "caption"}, ...]`, read as `COCO.loadRes` reads it). Out: a [`CocoEvaluation`] with the scores
//! of the requested [`Scorer`]s, as JSON in pycocoevalcap's shape ([`CocoEvaluation::to_json`])
//! and as the summary it prints ([`CocoEvaluation::summary`]).
//!
//! What pycocoevalcap does, step by step, and what we do:
//! 1. The images are those of the results (the usage its example prescribes:
//!    `params['image_id'] = cocoRes.getImgIds()`), in the order of the annotation file's `images`
//!    list (`loadRes` filters that list). Every result id must be an image of the annotations
//!    (`loadRes` asserts it), each image needs exactly one result and at least one reference
//!    (the scorers assert it). We check all of this up front and name the offending entries.
//! 2. References (every annotation caption of each image, in file order) and candidates are
//!    tokenized in two batches, as its two `PTBTokenizer` calls do
//!    ([`crate::tokenize::tokenize_coco_batch`], which keeps even the context across lines).
//! 3. BLEU, ROUGE-L and CIDEr-D score the tokenized text ([`crate::metrics`]); SPICE scores it
//!    too, one item per image with the candidate and the image's references, as its `Spice`
//!    wrapper feeds the jar ([`crate::batch`]). The SPICE corpus score is `np.mean` of the
//!    per-image `All` F-scores, over the images sorted by id.
//!
//! One deliberate difference: pycocoevalcap's `Spice` returns per-image scores sorted by image id,
//! and `COCOEvalCap` pairs them with the images in *its* order, so with COCO's (unsorted) files
//! its `evalImgs` attaches SPICE scores to the wrong images. We attach each image's own.
//!
//! METEOR 1.5 runs through [`Scorer::Classic`] between BLEU and ROUGE-L (its place in
//! `COCOEvalCap`), with the resources the caller loaded ([`crate::metrics::meteor::Meteor`]).

use std::fmt;

use foldhash::{HashMap, HashMapExt};
use serde_json::{Map, Value};

mod files;
pub mod results;

pub use results::{Images, ResultFile, ResultFileError, Rules};

use crate::batch::{self, BatchItem, OutputOptions};
use crate::metrics::meteor::Meteor;
use crate::metrics::{self, CiderDf, EvalSet, ImageCaptions, Metric, MetricsError, Scores};
use crate::score::ImageScores;
use crate::{Engine, EngineError};

/// An image id as COCO files give it: an integer (always, in COCO itself) or a string.
///
/// Python compares ids by value, so `42` and `42.0` are the same image and `"42"` is another.
/// Ids sort as Python sorts them: integers numerically, strings by code point (integers first
/// when both occur, where Python would fail).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ImageId {
    Int(i64),
    Str(String),
}

impl ImageId {
    /// Reads an id from JSON; `None` when it is not an integer (or integral number) or a string.
    pub fn from_json(v: &Value) -> Option<ImageId> {
        match v {
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Some(ImageId::Int(i))
                } else {
                    let f = n.as_f64()?;
                    // 42.0 is image 42 for Python; only integral values in range qualify.
                    (f.fract() == 0.0 && f.abs() < 9.0e15).then_some(ImageId::Int(f as i64))
                }
            }
            Value::String(s) => Some(ImageId::Str(s.clone())),
            _ => None,
        }
    }

    pub fn to_json(&self) -> Value {
        match self {
            ImageId::Int(i) => Value::from(*i),
            ImageId::Str(s) => Value::from(s.as_str()),
        }
    }
}

impl fmt::Display for ImageId {
    /// As it appears in the JSON files: `42` or `"abc"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImageId::Int(i) => write!(f, "{i}"),
            ImageId::Str(s) => write!(f, "{}", Value::from(s.as_str())),
        }
    }
}

/// Bad input: what is wrong and where.
#[derive(Debug, thiserror::Error)]
pub enum CocoEvalError {
    #[error("{path}: not valid JSON: {source}")]
    Json {
        path: String,
        source: serde_json::Error,
    },
    /// A value of the wrong shape: `location` is a JSON path such as `annotations[12].caption`.
    #[error("{path}: {location}: {problem}")]
    Field {
        path: String,
        location: String,
        problem: String,
    },
    /// A result file refused: its problems, one line each, each line naming the file.
    #[error("{}", .error.to_string().lines().map(|l| format!("{path}: {l}")).collect::<Vec<_>>().join("\n"))]
    ResultFile {
        path: String,
        error: ResultFileError,
    },
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error(transparent)]
    Metrics(#[from] MetricsError),
    #[error("METEOR was asked for but its data was not loaded")]
    MeteorNotLoaded,
}

/// The reference side of an evaluation: a COCO caption annotation file.
#[derive(Debug, Clone, Default)]
pub struct Annotations {
    /// Image ids in the order of the file's `images` list.
    images: Vec<ImageId>,
    /// Reference captions of each image, in the order of the file's `annotations` list.
    captions: HashMap<ImageId, Vec<String>>,
}

impl Annotations {
    /// Annotations from their parts: the images in order, and `(image id, caption)` pairs in
    /// order. Captions of ids that are not among `images` are kept but never evaluated (as in
    /// pycocotools).
    pub fn new(
        images: Vec<ImageId>,
        captions: impl IntoIterator<Item = (ImageId, String)>,
    ) -> Annotations {
        let mut by_image: HashMap<ImageId, Vec<String>> = HashMap::new();
        for (id, caption) in captions {
            by_image.entry(id).or_default().push(caption);
        }
        Annotations {
            images,
            captions: by_image,
        }
    }

    /// Image ids in the order of the file's `images` list.
    pub fn images(&self) -> &[ImageId] {
        &self.images
    }

    /// The reference captions of an image (empty if it has none).
    pub fn captions(&self, image: &ImageId) -> &[String] {
        self.captions.get(image).map_or(&[], Vec::as_slice)
    }
}

/// Reads a result file by pycocoevalcap's rules ([`results`]): its entries, to be checked against
/// the annotations by [`check_results`] once those are read (only the captions of the images
/// the results name are kept from a 32 MB annotation file).
pub fn read_results(bytes: &[u8], path: &str) -> Result<results::ResultEntries, CocoEvalError> {
    results::read(bytes, Rules::PYCOCOEVALCAP).map_err(|error| CocoEvalError::ResultFile {
        path: path.to_string(),
        error,
    })
}

/// The results of [`read_results`], checked against the annotations' images: the captions, and
/// the keys other than `image_id` and `caption` that were ignored.
pub fn check_results(
    entries: results::ResultEntries,
    annotations: &Annotations,
    path: &str,
) -> Result<(Vec<CaptionResult>, results::IgnoredKeys), CocoEvalError> {
    let known: std::collections::HashSet<&ImageId> = annotations.images().iter().collect();
    let file = entries
        .check(&Images {
            name: ANNOTATION_FILE,
            contains: &|id| known.contains(id),
            all: None,
        })
        .map_err(|error| CocoEvalError::ResultFile {
            path: path.to_string(),
            error,
        })?;
    let captions = file
        .entries
        .into_iter()
        .map(|e| CaptionResult {
            image_id: e.image_id,
            caption: e.caption,
        })
        .collect();
    Ok((captions, file.ignored))
}

/// How messages of `spice eval` name the images a result file may caption.
pub const ANNOTATION_FILE: &str = "the annotation file";

/// One entry of a result file: a candidate caption for an image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptionResult {
    pub image_id: ImageId,
    pub caption: String,
}

/// The images of one evaluation with their raw captions, in `COCOEvalCap`'s order.
#[derive(Debug, Clone)]
pub struct CocoImages {
    ids: Vec<ImageId>,
    references: Vec<Vec<String>>,
    candidates: Vec<String>,
}

impl CocoImages {
    /// Pairs results with annotations as `loadRes` and `COCOEvalCap` do, refusing what they
    /// would assert on: results for images the annotations do not have, two results for one
    /// image, images without reference captions, no results. `results_path` names the result
    /// file in errors.
    pub fn new(
        annotations: &Annotations,
        results: &[CaptionResult],
        results_path: &str,
    ) -> Result<CocoImages, CocoEvalError> {
        use results::{Offenders, Problem};
        let fail = |problems: Vec<Problem>| CocoEvalError::ResultFile {
            path: results_path.to_string(),
            error: ResultFileError::Entries(problems),
        };
        if results.is_empty() {
            return Err(fail(vec![Problem::NoEntries]));
        }
        let known: HashMap<&ImageId, usize> = annotations
            .images
            .iter()
            .enumerate()
            .map(|(k, id)| (id, k))
            .collect();
        // Result index of each image (in annotation order), checking ids on the way; entries are
        // numbered from 1 in messages, as `results::read` numbers them.
        let mut first: HashMap<&ImageId, usize> = HashMap::with_capacity(results.len());
        let mut unknown = Offenders::default();
        let mut repeated = Offenders::default();
        for (k, r) in results.iter().enumerate() {
            let id = &r.image_id;
            if !known.contains_key(id) {
                unknown.add(|| format!("{id} (entry {})", k + 1));
            } else if let Some(&earlier) = first.get(id) {
                repeated.add(|| format!("{id} (entries {} and {})", earlier + 1, k + 1));
            } else {
                first.insert(id, k);
            }
        }
        let mut order: Vec<(&ImageId, usize)> = first.into_iter().collect();
        order.sort_unstable_by_key(|(id, _)| known.get(id).copied().unwrap_or(usize::MAX));
        let mut without = Offenders::default();
        for (id, k) in &order {
            if annotations.captions(id).is_empty() {
                without.add(|| format!("{id} (entry {})", k + 1));
            }
        }
        let images = || ANNOTATION_FILE.to_string();
        let problems: Vec<Problem> = [
            (unknown.count > 0).then(|| Problem::UnknownImages {
                images: images(),
                ids: unknown,
            }),
            (repeated.count > 0).then_some(Problem::Duplicates(repeated)),
            (without.count > 0).then(|| Problem::NoReferences {
                images: images(),
                ids: without,
            }),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !problems.is_empty() {
            return Err(fail(problems));
        }
        Ok(CocoImages {
            ids: order.iter().map(|(id, _)| (*id).clone()).collect(),
            references: order
                .iter()
                .map(|(id, _)| annotations.captions(id).to_vec())
                .collect(),
            candidates: order
                .iter()
                .map(|&(_, k)| results[k].caption.clone())
                .collect(),
        })
    }

    pub fn ids(&self) -> &[ImageId] {
        &self.ids
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Tokenizes references and candidates as `COCOEvalCap` does: two calls of pycocoevalcap's
    /// tokenizer, references first (all captions of all images, image by image), then candidates.
    pub fn tokenize(&self) -> Result<TokenizedImages, CocoEvalError> {
        let flat: Vec<&str> = self
            .references
            .iter()
            .flatten()
            .map(String::as_str)
            .collect();
        let mut references = crate::tokenize::tokenize_coco_batch(&flat).into_iter();
        let candidates = crate::tokenize::tokenize_coco_batch(&self.candidates);
        let entries = self
            .ids
            .iter()
            .zip(&self.references)
            .zip(candidates)
            .map(|((id, refs), candidate)| {
                let refs = references.by_ref().take(refs.len()).collect();
                Ok((id.clone(), ImageCaptions::new(candidate, refs)?))
            })
            .collect::<Result<Vec<_>, MetricsError>>()?;
        Ok(TokenizedImages {
            set: EvalSet::new(entries)?,
        })
    }
}

/// Tokenized captions, as the scorers see them (pycocoevalcap's `gts` and `res`).
#[derive(Debug, Clone)]
pub struct TokenizedImages {
    set: EvalSet<ImageId>,
}

impl TokenizedImages {
    pub fn ids(&self) -> &[ImageId] {
        self.set.ids()
    }

    /// Each image's tokenized candidate and references, in [`Self::ids`] order.
    pub fn images(&self) -> &[ImageCaptions] {
        self.set.images()
    }
}

/// A scorer of `COCOEvalCap`, as `spice eval --metrics` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scorer {
    /// BLEU-1..4, METEOR, ROUGE-L, CIDEr-D.
    Classic(Metric),
    /// SPICE on the tokenized captions.
    Spice,
}

/// The names [`Scorer::parse_list`] accepts.
const AVAILABLE: &str =
    "bleu, meteor, rouge, cider, spice, rouge_su4, rouge_su4_stem, bleu_smoothed, bleu_unigram, ter";

/// Why a list of metric names was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScorerError {
    #[error("unknown metric {0:?} (available: {AVAILABLE})")]
    Unknown(String),
    #[error("no metric given (available: {AVAILABLE})")]
    Empty,
}

impl Scorer {
    /// Every scorer we have, in `COCOEvalCap`'s order, then the seed paper's metrics
    /// ([`Metric::SEED`]), which `COCOEvalCap` does not have, with ROUGE-SU4's stemmed variant.
    pub const ALL: [Scorer; 10] = [
        Scorer::Classic(Metric::Bleu),
        Scorer::Classic(Metric::Meteor),
        Scorer::Classic(Metric::RougeL),
        Scorer::Classic(Metric::CiderD),
        Scorer::Spice,
        Scorer::Classic(Metric::RougeSu4),
        Scorer::Classic(Metric::RougeSu4Stem),
        Scorer::Classic(Metric::BleuSmoothed),
        Scorer::Classic(Metric::BleuUnigram),
        Scorer::Classic(Metric::Ter),
    ];

    /// What `spice meta-eval` runs when not told: [`Self::ALL`] but the variant
    /// `rouge_su4_stem` (asked for by name).
    pub fn defaults() -> Vec<Scorer> {
        Scorer::ALL
            .into_iter()
            .filter(|s| *s != Scorer::Classic(Metric::RougeSu4Stem))
            .collect()
    }

    /// Parses a comma-separated list (`bleu,meteor,rouge,cider,spice`), in any order and case; the
    /// result is in `COCOEvalCap`'s order without repeats.
    pub fn parse_list(list: &str) -> Result<Vec<Scorer>, ScorerError> {
        let mut chosen = Vec::new();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let scorer = match name.to_ascii_lowercase().as_str() {
                "spice" => Scorer::Spice,
                _ => Scorer::Classic(
                    name.parse()
                        .map_err(|_| ScorerError::Unknown(name.to_string()))?,
                ),
            };
            chosen.push(scorer);
        }
        if chosen.is_empty() {
            return Err(ScorerError::Empty);
        }
        Ok(Scorer::ALL
            .into_iter()
            .filter(|s| chosen.contains(s))
            .collect())
    }
}

/// pycocoevalcap's name for the SPICE score.
pub const SPICE_NAME: &str = "SPICE";

/// The result of an evaluation: pycocoevalcap's `eval` and `evalImgs`.
#[derive(Debug, Clone)]
pub struct CocoEvaluation {
    ids: Vec<ImageId>,
    /// Corpus scores in `COCOEvalCap`'s order (`eval`).
    pub corpus: Vec<(&'static str, f64)>,
    /// Per-image BLEU/ROUGE-L/CIDEr-D scores, in [`Self::ids`] order.
    classic: Vec<Scores>,
    /// Per-image SPICE scores, in [`Self::ids`] order, if SPICE ran.
    spice: Option<Vec<ImageScores>>,
    /// The front end that parsed the captions for SPICE ([`crate::FrontEnd::name`]), if SPICE ran.
    pub front_end: Option<&'static str>,
}

/// Runs `scorers` on tokenized captions. CIDEr-D uses `df` if given, else document frequencies
/// over these references (pycocoevalcap's way); SPICE uses `engine`, METEOR `meteor` (required
/// if METEOR is among the scorers). Images are scored in parallel on rayon's pool.
pub fn evaluate(
    images: &TokenizedImages,
    scorers: &[Scorer],
    engine: &Engine,
    df: Option<&CiderDf>,
    meteor: Option<&Meteor>,
) -> Result<CocoEvaluation, CocoEvalError> {
    if meteor.is_none() && scorers.contains(&Scorer::Classic(Metric::Meteor)) {
        return Err(CocoEvalError::MeteorNotLoaded);
    }
    let classic_metrics: Vec<Metric> = scorers
        .iter()
        .filter_map(|s| match s {
            Scorer::Classic(m) => Some(*m),
            Scorer::Spice => None,
        })
        .collect();
    let mut corpus = Vec::new();
    let mut classic = vec![Scores::default(); images.set.len()];
    if !classic_metrics.is_empty() {
        let eval = metrics::evaluate(&images.set, &classic_metrics, df, meteor);
        corpus.extend(eval.corpus.iter());
        classic = eval.per_image.into_iter().map(|(_, s)| s).collect();
    }
    let spice = if scorers.contains(&Scorer::Spice) {
        let (mean, per_image) = spice_scores(images, engine)?;
        corpus.push((SPICE_NAME, mean));
        Some(per_image)
    } else {
        None
    };
    Ok(CocoEvaluation {
        ids: images.ids().to_vec(),
        corpus,
        classic,
        front_end: spice.is_some().then(|| engine.options().front_end.name()),
        spice,
    })
}

/// SPICE as pycocoevalcap's `Spice.compute_score`: one jar item per image, in sorted id order;
/// the corpus score is `np.mean` of the `All` F-scores in that order. Per-image scores come
/// back in `images` order.
fn spice_scores(
    images: &TokenizedImages,
    engine: &Engine,
) -> Result<(f64, Vec<ImageScores>), CocoEvalError> {
    let (ids, captions) = (images.ids(), images.images());
    let mut sorted: Vec<usize> = (0..ids.len()).collect();
    sorted.sort_by(|&a, &b| ids[a].cmp(&ids[b]));
    let items: Vec<BatchItem> = sorted
        .iter()
        .map(|&k| BatchItem {
            image_id: ids[k].to_json(),
            test: captions[k].candidate().to_string(),
            refs: captions[k].references().to_vec(),
        })
        .collect();
    // pycocoevalcap runs the jar without -detailed: counts only, no tuple listings.
    let result = batch::evaluate(engine, &items, false)?;
    let fs: Vec<f64> = result.items.iter().map(|r| r.scores.all.f).collect();
    let mean = metrics::numpy_mean(&fs);
    let mut per_image: Vec<Option<ImageScores>> = vec![None; ids.len()];
    for (&k, item) in sorted.iter().zip(result.items) {
        per_image[k] = Some(item.scores);
    }
    let per_image = per_image.into_iter().flatten().collect();
    Ok((mean, per_image))
}

impl CocoEvaluation {
    /// Image ids in `COCOEvalCap`'s order (that of `evalImgs`).
    pub fn ids(&self) -> &[ImageId] {
        &self.ids
    }

    /// A corpus score by pycocoevalcap's name (`Bleu_4`, `ROUGE_L`, `CIDEr`, `SPICE`).
    pub fn corpus_score(&self, name: &str) -> Option<f64> {
        self.corpus
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, v)| v)
    }

    /// Per-image BLEU/ROUGE-L/CIDEr-D scores, in [`Self::ids`] order.
    pub fn classic_per_image(&self) -> &[Scores] {
        &self.classic
    }

    /// Per-image SPICE scores (counts and ratios, no tuple listings), in [`Self::ids`] order, if SPICE ran.
    pub fn spice_per_image(&self) -> Option<&[ImageScores]> {
        self.spice.as_deref()
    }

    /// `{"eval": {...}, "evalImgs": [...]}` as pycocoevalcap holds them: `eval` maps score names
    /// to corpus scores; `evalImgs` has one object per image with `image_id`, each score, and
    /// `SPICE` as the jar's per-category dict (`All`, `Object`, ...: `pr`, `re`, `f`, `tp`, `fp`,
    /// `fn`, `numImages`, all numbers as floats, NaN as null). When SPICE ran, `front_end` follows
    /// (`built-in` or `corenlp-3.6.0`), a key pycocoevalcap does not have.
    pub fn to_json(&self) -> Value {
        let eval: Map<String, Value> = self
            .corpus
            .iter()
            .map(|&(n, v)| (n.to_string(), float(v)))
            .collect();
        let spice_dicts: Option<Vec<Value>> = self.spice.as_ref().map(|scores| {
            let result = batch::BatchResult {
                items: scores
                    .iter()
                    .zip(&self.ids)
                    .map(|(s, id)| batch::ItemResult {
                        image_id: id.to_json(),
                        scores: s.clone(),
                    })
                    .collect(),
            };
            let Value::Array(items) = batch::output_json(
                &result,
                OutputOptions {
                    subset: true,
                    detailed: false,
                    front_end: None,
                },
            ) else {
                return Vec::new();
            };
            items
                .into_iter()
                .map(|mut item| {
                    let scores = item
                        .as_object_mut()
                        .and_then(|o| o.remove("scores"))
                        .unwrap_or(Value::Null);
                    floats(scores)
                })
                .collect()
        });
        let eval_imgs: Vec<Value> = self
            .ids
            .iter()
            .enumerate()
            .map(|(k, id)| {
                let mut row = Map::new();
                row.insert("image_id".into(), id.to_json());
                for (n, v) in self.classic[k].iter() {
                    row.insert(n.to_string(), float(v));
                }
                if let Some(dicts) = &spice_dicts {
                    row.insert(
                        SPICE_NAME.into(),
                        dicts.get(k).cloned().unwrap_or(Value::Null),
                    );
                }
                Value::Object(row)
            })
            .collect();
        let mut out = Map::new();
        out.insert("eval".into(), Value::Object(eval));
        out.insert("evalImgs".into(), Value::Array(eval_imgs));
        if let Some(front_end) = self.front_end {
            out.insert("front_end".into(), Value::from(front_end));
        }
        Value::Object(out)
    }

    /// The lines `COCOEvalCap.evaluate` prints for the scores: `Bleu_1: 0.123` and so on.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        for &(name, v) in &self.corpus {
            if v.is_nan() {
                out.push_str(&format!("{name}: nan\n"));
            } else {
                out.push_str(&format!("{name}: {v:.3}\n"));
            }
        }
        out
    }
}

/// A float as Python's `json.dump` writes one (`1.0`, not `1`), NaN and infinities as null.
fn float(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// Every number of a JSON tree as a float (pycocoevalcap's `float_convert`).
fn floats(v: Value) -> Value {
    match v {
        Value::Number(n) => n.as_f64().map_or(Value::Null, float),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, floats(v))).collect()),
        Value::Array(a) => Value::Array(a.into_iter().map(floats).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn annotations() -> Annotations {
        // Images in file order 20, 10, 30; image 30 has no caption.
        Annotations::new(
            vec![ImageId::Int(20), ImageId::Int(10), ImageId::Int(30)],
            [
                (ImageId::Int(10), "A dog runs.".to_string()),
                (ImageId::Int(20), "Two bikes.".to_string()),
                (ImageId::Int(10), "A dog, running!".to_string()),
            ],
        )
    }

    fn result(id: i64, caption: &str) -> CaptionResult {
        CaptionResult {
            image_id: ImageId::Int(id),
            caption: caption.to_string(),
        }
    }

    #[test]
    fn ids_compare_as_python_compares_them() {
        let id = |s: &str| ImageId::from_json(&serde_json::from_str(s).expect("json"));
        assert_eq!(id("42"), Some(ImageId::Int(42)));
        assert_eq!(id("42.0"), Some(ImageId::Int(42))); // 42.0 == 42 in Python
        assert_eq!(id("\"42\""), Some(ImageId::Str("42".into()))); // "42" != 42
        assert_eq!(id("42.5"), None);
        assert_eq!(id("null"), None);
        assert_eq!(ImageId::Str("a".into()).to_string(), "\"a\"");
    }

    #[test]
    fn scorers_come_in_cocoevalcap_order() {
        assert_eq!(
            Scorer::parse_list("spice, CIDEr,meteor,bleu,bleu"),
            Ok(vec![
                Scorer::Classic(Metric::Bleu),
                Scorer::Classic(Metric::Meteor),
                Scorer::Classic(Metric::CiderD),
                Scorer::Spice
            ])
        );
        assert_eq!(
            Scorer::parse_list("bleu,bert"),
            Err(ScorerError::Unknown("bert".into()))
        );
        assert_eq!(Scorer::parse_list(" , "), Err(ScorerError::Empty));
    }

    #[test]
    fn images_follow_the_annotation_order_with_all_their_references() {
        let images = CocoImages::new(
            &annotations(),
            &[result(10, "a dog"), result(20, "bikes")],
            "r.json",
        )
        .expect("valid");
        assert_eq!(images.ids(), [ImageId::Int(20), ImageId::Int(10)]);
        let tokenized = images.tokenize().expect("tokenizes");
        let dog = &tokenized.images()[1];
        assert_eq!(dog.candidate(), "a dog");
        assert_eq!(dog.references(), ["a dog runs", "a dog running"]);
    }

    #[test]
    fn the_last_candidate_is_tokenized_at_the_end_of_its_batch() {
        // pycocoevalcap tokenizes all candidates in one file: "I'll" splits off "'ll" only when
        // a line break follows, i.e. everywhere but in the last caption of the batch.
        let images = CocoImages::new(
            &annotations(),
            &[result(10, "I'll"), result(20, "I'll")],
            "r.json",
        )
        .expect("valid");
        let tokenized = images.tokenize().expect("tokenizes");
        let candidates: Vec<&str> = tokenized.images().iter().map(|i| i.candidate()).collect();
        assert_eq!(candidates, ["i 'll", "i ll"]);
    }

    #[test]
    fn unknown_repeated_and_unreferenced_images_are_named() {
        let err = |results: &[CaptionResult]| {
            CocoImages::new(&annotations(), results, "r.json")
                .expect_err("refused")
                .to_string()
        };
        let unknown: Vec<CaptionResult> = (100..108).map(|id| result(id, "x")).collect();
        assert_eq!(
            err(&unknown),
            "r.json: 8 image ids are not in the annotation file (first 5): 100 (entry 1), \
             101 (entry 2), 102 (entry 3), 103 (entry 4), 104 (entry 5)"
        );
        assert_eq!(
            err(&[result(10, "a"), result(10, "b")]),
            "r.json: 1 image id appears more than once: \
             10 (entries 1 and 2)"
        );
        assert_eq!(
            err(&[result(30, "a")]),
            "r.json: 1 image has no reference captions in the annotation file: 30 (entry 1)"
        );
        assert_eq!(err(&[]), "r.json: the array holds no entries");
    }

    #[test]
    fn malformed_files_say_where() {
        let ann = |s: &str| {
            Annotations::from_json_slice(s.as_bytes(), "a.json")
                .expect_err("refused")
                .to_string()
        };
        assert!(ann("{\"images\": [").starts_with("a.json: not valid JSON: "));
        assert_eq!(
            ann("[]"),
            "a.json: top level: expected a COCO annotation object with \"images\" and \
             \"annotations\", found an array"
        );
        assert_eq!(
            ann(r#"{"images": []}"#),
            "a.json: top level: missing field \"annotations\" (is this a COCO annotation file?)"
        );
        assert_eq!(
            ann(r#"{"images": [{"id": 1}, {"id": [2]}], "annotations": []}"#),
            "a.json: images[1].id: expected an integer or a string, found an array"
        );
        assert_eq!(
            ann(r#"{"images": [{"id": 1}], "annotations": [{"image_id": 1, "caption": null}]}"#),
            "a.json: annotations[0].caption: expected a string, found null (image_id 1)"
        );
        let res = |s: &str| {
            read_results(s.as_bytes(), "r.json")
                .and_then(|r| check_results(r, &annotations(), "r.json"))
                .expect_err("refused")
                .to_string()
        };
        assert_eq!(
            res(r#"{"image_id": 1}"#),
            "r.json: the file must hold a JSON array of {\"image_id\": ..., \"caption\": \"...\"} \
             objects; it holds an object"
        );
        assert_eq!(
            res(r#"[{"image_id": 10, "caption": "a"}, {"image_id": 20}, 7, {"caption": "a"}]"#),
            "r.json: 3 malformed entries: entry 2 (image_id 20): \"caption\" is missing; \
             entry 3 is a number, not an object; entry 4: \"image_id\" is missing"
        );
        assert_eq!(
            res(r#"[{"image_id": 10, "caption": 5}, {"image_id": 99, "caption": "a"}]"#),
            "r.json: 1 malformed entry: entry 1 (image_id 10): \"caption\" must be a string (it \
             is a number)\nr.json: 1 image id is not in the annotation file: 99 (entry 2)"
        );
    }
}
