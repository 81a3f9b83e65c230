//! The only module that talks to the `spice` engine. It turns reference captions into stored scene
//! graphs at ingestion, and candidate captions into per-image and aggregate scores in the workers.
//! Everything linguistic (tokenizing, parsing, matching, averaging) is the engine's.

use std::sync::Arc;

use rayon::prelude::*;
use spice::metrics::CiderDf;
use spice::score::{Category, ImageScores, MarkedTuple, Score};
use spice::{Engine, EngineOptions, FrontEnd, SceneGraph};

use crate::domain::judgments::{AgreementRow, AgreementTable, CaptionJudgment, Estimate};
use crate::domain::leaderboard::SortKey;
use crate::domain::{Candidate, CaptionMode, ReferenceImage};
use crate::storage::leaderboard::Entry;
use crate::storage::scores::{CategoryScore, ClassicScores, ScoredImage, SubmissionResult};
use crate::storage::splits::{NewReferenceImage, StoredReference};

/// Recorded with each split's reference graphs so that a re-score after an upgrade can tell.
/// The suffix names how references are tokenized: graphs stored while each caption was
/// tokenized alone are built again. The engine's version as a whole names its front end and
/// models too ([`engine_version`]).
pub const ENGINE_VERSION: &str = concat!("spice/", env!("CARGO_PKG_VERSION"), "+coco-batch");

/// The version of `engine` recorded with the reference graphs it builds: [`ENGINE_VERSION`],
/// the front end's name and its models' fingerprint (the user's CoreNLP model file, or the
/// embedded tagger and parser). Graphs built by another front end or other models are rebuilt by
/// a worker (`jobs::run`), so a new `spiceboard` with retrained built-in models never scores
/// against graphs the old ones made.
pub fn engine_version(engine: &Engine) -> String {
    let f = engine.options().front_end;
    let model = f
        .model_fingerprint()
        .map_or_else(spice::parse::embedded_models_fingerprint, str::to_string);
    format!("{ENGINE_VERSION}+{}+{model}", f.name())
}

/// How the database, the pages and the exports name `engine`'s front end: `built-in` or
/// `corenlp-3.6.0`.
pub fn front_end_name(engine: &Engine) -> &'static str {
    engine.options().front_end.name()
}

/// What a scoring job is doing, as its status page shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Starting,
    /// Building reference graphs missing or made by another engine version.
    References,
    /// Parsing candidate captions and scoring them against their references.
    Scoring,
    /// BLEU, METEOR, ROUGE-L and CIDEr-D over the whole submission.
    Classic,
    /// Storing the results.
    Writing,
}

impl Stage {
    const ALL: [Stage; 5] = [
        Stage::Starting,
        Stage::References,
        Stage::Scoring,
        Stage::Classic,
        Stage::Writing,
    ];

    /// The word the database stores (`jobs.progress_stage`).
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Starting => "starting",
            Stage::References => "references",
            Stage::Scoring => "scoring",
            Stage::Classic => "classic",
            Stage::Writing => "writing",
        }
    }

    pub fn parse(word: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|s| s.as_str() == word)
    }
}

/// How far a job has got: its stage, and in it how many of how many images are done. The
/// engine's threads count as they go (atomics, no lock); the worker reads it now and then and
/// stores it (`queue::report_progress`), so the cost is one small write a second, not one per
/// caption.
#[derive(Debug, Default)]
pub struct Progress {
    stage: std::sync::atomic::AtomicUsize,
    done: std::sync::atomic::AtomicUsize,
    total: std::sync::atomic::AtomicUsize,
}

impl Progress {
    /// Enters `stage`, with `total` images to go through (0 when it does not count them: the
    /// counts of the stage before stay, so a finished job shows how many images it scored).
    pub fn enter(&self, stage: Stage, total: usize) {
        use std::sync::atomic::Ordering::Relaxed;
        if total > 0 {
            self.done.store(0, Relaxed);
            self.total.store(total, Relaxed);
        }
        let k = Stage::ALL.iter().position(|s| *s == stage).unwrap_or(0);
        self.stage.store(k, Relaxed);
    }

    fn step(&self) {
        self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// The stage, and images done and in all.
    pub fn now(&self) -> (Stage, usize, usize) {
        use std::sync::atomic::Ordering::Relaxed;
        let stage = Stage::ALL[self.stage.load(Relaxed).min(Stage::ALL.len() - 1)];
        (stage, self.done.load(Relaxed), self.total.load(Relaxed))
    }
}

/// The engine shared by handlers and workers (cheap to clone).
pub type SharedEngine = Arc<Engine>;

/// The engine with the built-in front end (tests, benchmarks).
pub fn new_engine() -> SharedEngine {
    engine_with(FrontEnd::BuiltIn)
}

/// The engine with `front_end` ([`load_front_end`]).
pub fn engine_with(front_end: FrontEnd) -> SharedEngine {
    Arc::new(Engine::new(EngineOptions {
        front_end,
        ..EngineOptions::default()
    }))
}

/// The server's front end could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error(
    "engine.corenlp_models (APP_ENGINE__CORENLP_MODELS) is {path}, but CoreNLP's English PCFG \
     cannot be loaded from it: {source}; give englishPCFG.ser.gz, the \
     stanford-corenlp-3.6.0-models.jar, or a directory holding either, or remove the setting \
     to score with the built-in parser"
)]
pub struct FrontEndError {
    path: String,
    source: spice::corenlp::ModelError,
}

/// The front end the settings ask for, loaded once per process (the parser lives as long as the
/// process: `spice::FrontEnd::corenlp` leaks it): CoreNLP's PCFG on `engine.corenlp_models`,
/// or, without the setting, the built-in parser, with one log line saying how to make the
/// scores exact. A model that cannot be read is an error naming the path and what was wrong.
pub fn load_front_end(
    settings: &crate::configuration::EngineSettings,
) -> Result<FrontEnd, FrontEndError> {
    match settings
        .corenlp_models
        .as_deref()
        .filter(|p| !p.as_os_str().is_empty())
    {
        Some(path) => {
            let started = std::time::Instant::now();
            let f = FrontEnd::corenlp(path).map_err(|source| FrontEndError {
                path: path.display().to_string(),
                source,
            })?;
            tracing::info!(
                front_end = f.name(),
                models = %path.display(),
                load_ms = started.elapsed().as_millis() as u64,
                "captions are parsed by CoreNLP's PCFG, as the official SPICE parses them"
            );
            Ok(f)
        }
        None => {
            tracing::info!(
                front_end = FrontEnd::BuiltIn.name(),
                "captions are parsed by the built-in parser, close to but not exactly the \
                 official SPICE; for its exact numbers set engine.corenlp_models \
                 (APP_ENGINE__CORENLP_MODELS) to the stanford-corenlp-3.6.0-models.jar \
                 pycocoevalcap's SPICE downloads into spice/lib/, or to englishPCFG.ser.gz"
            );
            Ok(FrontEnd::BuiltIn)
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ScoringError {
    /// The engine could not parse a caption (for example, no parser available).
    #[error("image {image_id}: {message}")]
    Engine { image_id: i64, message: String },
    #[error("image {image_id}: the stored reference scene graph cannot be read ({message}); re-import or re-score the split")]
    StoredGraph { image_id: i64, message: String },
    #[error("image {0} has no stored reference scene graph")]
    MissingReference(i64),
    #[error("no image of the split has at least two references, so there is no Human row")]
    NoHumanRow,
    #[error("classic metrics: {0}")]
    Classic(String),
}

/// The captions as the engine sees them: for COCO-format splits, pycocoevalcap's PTB
/// tokenization, lowercasing and punctuation stripping (so numbers are comparable with published
/// ones), of all the captions in one batch, as `COCOEvalCap` tokenizes them: its tokenizer reads
/// them one a line from one file and looks across line breaks (`ave s.` before a line that
/// starts with a capital is `ave s`, alone `ave s.`), so each caption is tokenized followed by
/// the next one, as `spice eval` does (issue 33).
pub fn prepare<S: AsRef<str>>(captions: &[S], mode: CaptionMode) -> Vec<String> {
    match mode {
        CaptionMode::Coco => spice::tokenize::tokenize_coco_batch(captions),
        CaptionMode::Raw => captions.iter().map(|c| c.as_ref().to_string()).collect(),
    }
}

/// Every reference caption of `refs` prepared ([`prepare`]) in one batch, as `COCOEvalCap`
/// tokenizes the references of an evaluation: image after image in the split's order, each
/// image's captions in file order. One list per image.
fn prepared_references<C: AsRef<[String]>>(captions: &[C], mode: CaptionMode) -> Vec<Vec<String>> {
    let flat: Vec<&str> = captions
        .iter()
        .flat_map(|c| c.as_ref())
        .map(String::as_str)
        .collect();
    let mut prepared = prepare(&flat, mode).into_iter();
    captions
        .iter()
        .map(|c| prepared.by_ref().take(c.as_ref().len()).collect())
        .collect()
}

/// The merged scene graph of captions already prepared.
fn graph_of(engine: &Engine, prepared: &[String]) -> Result<SceneGraph, String> {
    let refs: Vec<&str> = prepared.iter().map(String::as_str).collect();
    engine.scene_graph(&refs).map_err(|e| e.to_string())
}

/// What an import stores of a split's references: each image's merged reference scene graph
/// (built in parallel, as JSON text) and the split's CIDEr-D document frequencies ([`cider_df`]),
/// from one tokenization of the captions where the two agree (COCO mode). An image whose
/// captions the engine cannot parse is stored without a graph and with the reason; scoring
/// rebuilds it later.
pub fn reference_graphs(
    engine: &Engine,
    images: &[ReferenceImage],
    mode: CaptionMode,
) -> (Vec<NewReferenceImage>, CiderDf) {
    let started = std::time::Instant::now();
    let captions: Vec<&[String]> = images.iter().map(|i| i.captions.as_slice()).collect();
    let prepared = prepared_references(&captions, mode);
    tracing::debug!(
        captions = prepared.iter().map(Vec::len).sum::<usize>(),
        ms = started.elapsed().as_millis() as u64,
        "references tokenized"
    );
    // One image a task here and below: parse times vary, and rayon otherwise gives each thread
    // a run of images that the others cannot take from (`spice::batch` measured it).
    let stored = images
        .par_iter()
        .zip(&prepared)
        .with_max_len(1)
        .map(|(img, prepared)| {
            let (scene_graph, parse_error) = match graph_of(engine, prepared) {
                Ok(g) => match serde_json::to_string(&g) {
                    Ok(v) => (Some(v), None),
                    Err(e) => (None, Some(format!("cannot serialise the scene graph: {e}"))),
                },
                Err(e) => (None, Some(e)),
            };
            NewReferenceImage {
                image_id: img.image_id,
                captions: img.captions.clone(),
                scene_graph,
                parse_error,
            }
        })
        .collect();
    let df = match mode {
        CaptionMode::Coco => CiderDf::from_references(&prepared),
        CaptionMode::Raw => cider_df(&captions),
    };
    (stored, df)
}

/// Builds the graphs still missing from stored references (ingestion before the parser could
/// parse, or `force` after an engine upgrade). Returns (image id, graph as JSON) pairs to store.
pub fn missing_reference_graphs(
    engine: &Engine,
    refs: &[StoredReference],
    mode: CaptionMode,
    force: bool,
) -> Result<Vec<(i64, String)>, ScoringError> {
    let prepared = prepared_references(&captions_of(refs), mode);
    refs.par_iter()
        .zip(&prepared)
        .with_max_len(1)
        .filter(|(r, _)| force || r.scene_graph.is_none())
        .map(|(r, prepared)| {
            let g = graph_of(engine, prepared).map_err(|message| ScoringError::Engine {
                image_id: r.image_id,
                message,
            })?;
            let v = serde_json::to_string(&g).map_err(|e| ScoringError::StoredGraph {
                image_id: r.image_id,
                message: e.to_string(),
            })?;
            Ok((r.image_id, v))
        })
        .collect()
}

/// Each stored reference's captions.
fn captions_of(refs: &[StoredReference]) -> Vec<&[String]> {
    refs.iter().map(|r| r.captions.as_slice()).collect()
}

/// A stored reference graph, read from its JSON text (in the scoring threads: no tree of JSON
/// values in between, which took longer to build and to drop than the graph itself).
fn stored_graph(r: &StoredReference) -> Result<SceneGraph, ScoringError> {
    let text = r
        .scene_graph
        .as_deref()
        .ok_or(ScoringError::MissingReference(r.image_id))?;
    serde_json::from_str(text).map_err(|e| ScoringError::StoredGraph {
        image_id: r.image_id,
        message: e.to_string(),
    })
}

/// CIDEr-D document frequencies of a split: over every image's references (in the split's
/// order), tokenized as a job tokenizes them for [`classic_metrics`] (pycocoevalcap's way, in
/// one batch). They belong to the split, so they are computed once, at import (or after an
/// engine upgrade), stored, and passed to every job.
pub fn cider_df<C: AsRef<[String]>>(references: &[C]) -> CiderDf {
    CiderDf::from_references(prepared_references(references, CaptionMode::Coco))
}

/// [`cider_df`] of stored references.
pub fn stored_cider_df(refs: &[StoredReference]) -> CiderDf {
    cider_df(&captions_of(refs))
}

/// The stored form of document frequencies: the compact form, which reads several times faster
/// than JSON (and than counting again) for a COCO-sized split.
pub fn cider_df_bytes(df: &CiderDf) -> Vec<u8> {
    df.to_bytes()
}

/// Reads stored document frequencies; `None` (and a warning) if they cannot be read, so that the
/// caller computes them again.
pub fn parse_cider_df(bytes: &[u8]) -> Option<CiderDf> {
    CiderDf::from_bytes(bytes)
        .map_err(
            |e| tracing::warn!(error = %e, "stored CIDEr-D document frequencies are unreadable"),
        )
        .ok()
}

/// Per-image details kept for the image page: the tuples with their truth values.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ImageDetails {
    pub scored_text: String,
    pub candidate_tuples: Vec<MarkedTuple>,
    pub reference_tuples: Vec<MarkedTuple>,
}

fn category_name(c: Category) -> &'static str {
    match c {
        Category::Object => "object",
        Category::Attribute => "attribute",
        Category::Relation => "relation",
        Category::Cardinality => "count",
        Category::Color => "color",
        Category::Size => "size",
    }
}

fn category_score(name: &str, s: &Score) -> CategoryScore {
    let defined = !(s.f.is_nan() || s.pr.is_nan() || s.re.is_nan());
    CategoryScore {
        category: name.to_string(),
        tp: i64::from(s.tp),
        fp: i64::from(s.fp),
        fn_: i64::from(s.fn_),
        precision: defined.then_some(s.pr),
        recall: defined.then_some(s.re),
        f: defined.then_some(s.f),
        images: s.num_images,
    }
}

fn scored_image(image_id: i64, caption: &str, text: String, scores: &ImageScores) -> ScoredImage {
    let mut categories = vec![category_score("all", &scores.all)];
    categories.extend(
        scores
            .categories
            .iter()
            .map(|(c, s)| category_score(category_name(*c), s)),
    );
    let details = ImageDetails {
        scored_text: text,
        candidate_tuples: scores.candidate_tuples.clone(),
        reference_tuples: scores.reference_tuples.clone(),
    };
    ScoredImage {
        image_id,
        caption: caption.to_string(),
        categories,
        // As the text stored, made here in the scoring threads.
        details: serde_json::to_string(&details).unwrap_or_else(|_| "null".to_string()),
        classic: None,
    }
}

/// The classic COCO metrics (BLEU-1..4, METEOR where its data is installed, ROUGE-L, CIDEr-D) of
/// the scored images, computed by the engine on pycocoevalcap-tokenized captions, as the COCO
/// evaluation server does. `tokenized` holds (candidate, references) in the order of `images`,
/// tokenized as `COCOEvalCap` tokenizes them ([`prepare`] in COCO mode); each image gets its own
/// scores, and the corpus scores are returned. CIDEr-D uses the document frequencies `df` if
/// given, else those of these references (pycocoevalcap's way).
fn classic_metrics(
    images: &mut [ScoredImage],
    tokenized: Vec<(String, Vec<String>)>,
    df: Option<&CiderDf>,
) -> Result<ClassicScores, ScoringError> {
    use spice::metrics::{evaluate, EvalSet, ImageCaptions, Metric};
    let entries = images
        .iter()
        .zip(tokenized)
        .map(|(img, (cand, refs))| ImageCaptions::new(cand, refs).map(|c| (img.image_id, c)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ScoringError::Classic(e.to_string()))?;
    let set = EvalSet::new(entries).map_err(|e| ScoringError::Classic(e.to_string()))?;
    // METEOR needs the data of scripts/fetch-data (SPICEBOARD_DATA); without it, it is left out.
    let meteor = spice::metrics::meteor::Meteor::shared().ok();
    let evaluation = evaluate(&set, &Metric::ALL, df, meteor);
    let as_json = |scores: &spice::metrics::Scores| -> serde_json::Value {
        scores
            .iter()
            .map(|(name, v)| (name.to_string(), serde_json::json!(finite(v))))
            .collect::<serde_json::Map<_, _>>()
            .into()
    };
    for (img, (_, scores)) in images.iter_mut().zip(&evaluation.per_image) {
        img.classic = Some(as_json(scores));
    }
    let get = |name: &str| evaluation.corpus.get(name).and_then(finite);
    Ok(ClassicScores {
        bleu_4: get("Bleu_4"),
        meteor: get("METEOR"),
        rouge_l: get("ROUGE_L"),
        cider_d: get("CIDEr"),
        details: as_json(&evaluation.corpus),
    })
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// The aggregate row: SPICE's macro averages (SPEC §1), computed by the engine.
fn aggregates(all: &[ImageScores]) -> Vec<CategoryScore> {
    let mut out = vec![category_score(
        "all",
        &spice::score::macro_average(all.iter().map(|s| &s.all)),
    )];
    for c in Category::ALL {
        let avg = spice::score::macro_average(all.iter().filter_map(|s| s.category(c)));
        out.push(category_score(category_name(c), &avg));
    }
    out
}

/// Scores each `(id, image_id, caption)` against the image's references: SPICE against its
/// reference graph (stored, or built here when ingestion could not store it), in parallel, then the
/// classic metrics against its reference captions with the split's CIDEr-D document frequencies.
/// Captions are prepared ([`prepare`]) in one batch in the split's order (the order of `refs`),
/// as `COCOEvalCap` tokenizes a submission, whose images are the split's.
/// Returns the scored images (named by `id`), their SPICE scores and the classic corpus scores,
/// in `items` order.
fn score_against_references(
    engine: &Engine,
    refs: &[StoredReference],
    items: &[(i64, i64, &str)],
    mode: CaptionMode,
    df: &CiderDf,
    progress: &Progress,
) -> Result<(Vec<ScoredImage>, Vec<ImageScores>, ClassicScores), ScoringError> {
    let started = std::time::Instant::now();
    let position: std::collections::HashMap<i64, usize> = refs
        .iter()
        .enumerate()
        .map(|(k, r)| (r.image_id, k))
        .collect();
    let at: Vec<usize> = items
        .iter()
        .map(|&(_, image_id, _)| {
            position
                .get(&image_id)
                .copied()
                .ok_or(ScoringError::MissingReference(image_id))
        })
        .collect::<Result<_, _>>()?;
    let captions = captions_of(refs);
    let coco_refs = prepared_references(&captions, CaptionMode::Coco);
    let refs_ms = started.elapsed().as_millis() as u64;
    let spice_refs = match mode {
        CaptionMode::Coco => None,
        CaptionMode::Raw => Some(prepared_references(&captions, mode)),
    };
    // Items in the split's order (stable: the captions of one image keep theirs).
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&k| at[k]);
    let in_order: Vec<&str> = order.iter().map(|&k| items[k].2).collect();
    let prepared_in = |mode| {
        let mut texts = vec![String::new(); items.len()];
        for (&k, t) in order.iter().zip(prepare(&in_order, mode)) {
            texts[k] = t;
        }
        texts
    };
    let coco_texts = prepared_in(CaptionMode::Coco);
    let spice_texts = match mode {
        CaptionMode::Coco => coco_texts.clone(),
        CaptionMode::Raw => prepared_in(mode),
    };
    let prepared_ms = started.elapsed().as_millis() as u64;
    progress.enter(Stage::Scoring, items.len());
    let scored: Vec<(ScoredImage, ImageScores)> = items
        .par_iter()
        .zip(&at)
        .zip(&spice_texts)
        .with_max_len(1)
        .map(|((&(id, image_id, caption), &k), text)| {
            let r = &refs[k];
            let reference = match r.scene_graph {
                Some(_) => stored_graph(r)?,
                None => graph_of(engine, &spice_refs.as_ref().unwrap_or(&coco_refs)[k]).map_err(
                    |message| ScoringError::Engine {
                        image_id: r.image_id,
                        message,
                    },
                )?,
            };
            let candidate =
                engine
                    .scene_graph(&[text.as_str()])
                    .map_err(|e| ScoringError::Engine {
                        image_id,
                        message: e.to_string(),
                    })?;
            let scores = engine.score(&candidate, &reference);
            progress.step();
            Ok((scored_image(id, caption, text.clone(), &scores), scores))
        })
        .collect::<Result<_, ScoringError>>()?;
    let (mut images, spice): (Vec<ScoredImage>, Vec<ImageScores>) = scored.into_iter().unzip();
    let spice_ms = started.elapsed().as_millis() as u64;
    progress.enter(Stage::Classic, 0);
    let tokenized = coco_texts
        .into_iter()
        .zip(&at)
        .map(|(cand, &k)| (cand, coco_refs[k].clone()))
        .collect();
    let classic = classic_metrics(&mut images, tokenized, Some(df))?;
    tracing::debug!(
        refs_tokenized_ms = refs_ms,
        candidates_tokenized_ms = prepared_ms - refs_ms,
        spice_ms = spice_ms - prepared_ms,
        classic_ms = started.elapsed().as_millis() as u64 - spice_ms,
        items = items.len(),
        "scored"
    );
    Ok((images, spice, classic))
}

/// Scores every candidate against its image's stored reference graph (candidates parsed in
/// parallel). `refs` and `candidates` cover the same images (checked at upload), so the split's
/// CIDEr-D document frequencies `df` are those of the evaluated references, as in pycocoevalcap.
pub fn score_submission(
    engine: &Engine,
    refs: &[StoredReference],
    candidates: &[Candidate],
    mode: CaptionMode,
    df: &CiderDf,
    progress: &Progress,
) -> Result<SubmissionResult, ScoringError> {
    let items: Vec<(i64, i64, &str)> = candidates
        .iter()
        .map(|c| (c.image_id, c.image_id, c.caption.as_str()))
        .collect();
    let (images, all, classic) =
        score_against_references(engine, refs, &items, mode, df, progress)?;
    Ok(SubmissionResult {
        aggregates: aggregates(&all),
        images,
        classic: Some(classic),
        front_end: front_end_name(engine),
    })
}

/// The Human row: for every image with at least two references, its first reference is the
/// candidate and the others are the references (leave one out). Images with a single reference are
/// left out of the row. Its references are not the split's (one caption per image is held out), so
/// CIDEr-D counts document frequencies over them, as pycocoevalcap would.
pub fn score_human(
    engine: &Engine,
    refs: &[StoredReference],
    mode: CaptionMode,
    progress: &Progress,
) -> Result<SubmissionResult, ScoringError> {
    // Every caption prepared in the split's batch, the held-out one included.
    let captions = captions_of(refs);
    let spice_texts = prepared_references(&captions, mode);
    let coco_texts = match mode {
        CaptionMode::Coco => spice_texts.clone(),
        CaptionMode::Raw => prepared_references(&captions, CaptionMode::Coco),
    };
    progress.enter(Stage::Scoring, refs.len());
    let scored: Vec<Option<(ScoredImage, ImageScores, usize)>> = refs
        .par_iter()
        .zip(&spice_texts)
        .enumerate()
        .with_max_len(1)
        .map(|(k, (r, texts))| {
            progress.step();
            let Some((held_out, others)) = texts.split_first() else {
                return Ok(None);
            };
            if others.is_empty() {
                return Ok(None);
            }
            let reference = graph_of(engine, others).map_err(|message| ScoringError::Engine {
                image_id: r.image_id,
                message,
            })?;
            let candidate =
                engine
                    .scene_graph(&[held_out.as_str()])
                    .map_err(|e| ScoringError::Engine {
                        image_id: r.image_id,
                        message: e.to_string(),
                    })?;
            let scores = engine.score(&candidate, &reference);
            Ok(Some((
                scored_image(r.image_id, &captions[k][0], held_out.clone(), &scores),
                scores,
                k,
            )))
        })
        .collect::<Result<_, ScoringError>>()?;
    let scored: Vec<(ScoredImage, ImageScores, usize)> = scored.into_iter().flatten().collect();
    if scored.is_empty() {
        return Err(ScoringError::NoHumanRow);
    }
    let all: Vec<ImageScores> = scored.iter().map(|(_, s, _)| s.clone()).collect();
    let tokenized = scored
        .iter()
        .map(|&(_, _, k)| (coco_texts[k][0].clone(), coco_texts[k][1..].to_vec()))
        .collect();
    let mut images: Vec<ScoredImage> = scored.into_iter().map(|(i, _, _)| i).collect();
    progress.enter(Stage::Classic, 0);
    let classic = classic_metrics(&mut images, tokenized, None)?;
    Ok(SubmissionResult {
        aggregates: aggregates(&all),
        images,
        classic: Some(classic),
        front_end: front_end_name(engine),
    })
}

/// Each judged caption scored as the worker scores a submission's caption (issue 14, part 3):
/// SPICE and its categories against the image's stored reference graph, the classic metrics
/// against its stored reference captions with the split's CIDEr-D document frequencies. Returns,
/// per leaderboard column with per-caption scores, the scores in `captions` order (NaN where
/// undefined or not computed, e.g. METEOR without its data).
pub fn judged_caption_scores(
    engine: &Engine,
    refs: &[StoredReference],
    captions: &[CaptionJudgment],
    mode: CaptionMode,
    df: &CiderDf,
) -> Result<Vec<(SortKey, Vec<f64>)>, ScoringError> {
    // Each judged caption is an "image" of its own for the classic metrics (an image may have
    // several judged captions): its index is its id.
    let items: Vec<(i64, i64, &str)> = captions
        .iter()
        .enumerate()
        .map(|(k, c)| (k as i64, c.image_id, c.caption.as_str()))
        .collect();
    let (images, spice, _) =
        score_against_references(engine, refs, &items, mode, df, &Progress::default())?;
    let f = |s: Option<&Score>| s.map_or(f64::NAN, |s| s.f);
    let classic = |name: &str| -> Vec<f64> {
        images
            .iter()
            .map(|i| {
                i.classic
                    .as_ref()
                    .and_then(|c| c.get(name))
                    .and_then(serde_json::Value::as_f64)
                    .unwrap_or(f64::NAN)
            })
            .collect()
    };
    let category = |c: Category| -> Vec<f64> { spice.iter().map(|s| f(s.category(c))).collect() };
    Ok(SortKey::ALL
        .into_iter()
        .map(|key| {
            let scores = match key {
                SortKey::Spice => spice.iter().map(|s| f(Some(&s.all))).collect(),
                SortKey::Object => category(Category::Object),
                SortKey::Relation => category(Category::Relation),
                SortKey::Attribute => category(Category::Attribute),
                SortKey::Color => category(Category::Color),
                SortKey::Count => category(Category::Cardinality),
                SortKey::Size => category(Category::Size),
                SortKey::Bleu4 => classic("Bleu_4"),
                SortKey::Meteor => classic("METEOR"),
                SortKey::RougeL => classic("ROUGE_L"),
                SortKey::CiderD => classic("CIDEr"),
            };
            (key, scores)
        })
        .collect())
}

/// The agreement of every leaderboard column with the judgments, with the engine's
/// meta-evaluation (`spice::metaeval`): at caption level, Kendall tau-c, tau-b and Spearman over
/// (caption, rating) pairs with bootstrap intervals resampling captions; at system level, when
/// three or more entries are judged, Pearson's r between each entry's score (`entries`: rating
/// and the entry as the leaderboard shows it) and its rating, resampling entries. A column with
/// neither (no defined score) is left out.
pub fn agreement_table(
    captions: &[CaptionJudgment],
    caption_scores: &[(SortKey, Vec<f64>)],
    entries: &[(f64, Entry)],
) -> AgreementTable {
    use spice::metaeval::{self, Bootstrap, Judgment, MetricScores};
    let bootstrap = Bootstrap::default();
    let judgments: Vec<Judgment> = captions
        .iter()
        .map(|c| Judgment {
            candidate: c.caption.clone(),
            references: Vec::new(),
            ratings: c.ratings.clone(),
            system: None,
        })
        .collect();
    let metrics: Vec<MetricScores> = caption_scores
        .iter()
        .map(|(key, scores)| MetricScores {
            name: key.name(),
            scores: scores.clone(),
        })
        .collect();
    let caption_level = if judgments.is_empty() {
        Vec::new()
    } else {
        metaeval::agreement(&judgments, &metrics, bootstrap)
    };
    let estimate = |e: &metaeval::Estimate| Estimate {
        value: finite(e.value),
        ci: [finite(e.ci[0]), finite(e.ci[1])],
    };
    let rows = SortKey::ALL
        .into_iter()
        .filter_map(|key| {
            let caption = caption_level
                .iter()
                .find(|a| a.name == key.name())
                .filter(|a| a.candidates > 0);
            let (x, y): (Vec<f64>, Vec<f64>) = entries
                .iter()
                .filter_map(|(rating, e)| key.value(e).map(|v| (v, *rating)))
                .unzip();
            let system =
                (x.len() >= 3).then(|| estimate(&metaeval::pearson_estimate(&x, &y, bootstrap)));
            if caption.is_none() && system.is_none() {
                return None;
            }
            Some(AgreementRow {
                metric: key.name().to_string(),
                captions: caption.map_or(0, |a| a.candidates),
                pairs: caption.map_or(0, |a| a.pairs),
                tau_c: caption.map(|a| estimate(&a.tau_c)),
                tau_b: caption.map(|a| estimate(&a.tau_b)),
                spearman: caption.map(|a| estimate(&a.spearman)),
                entries: x.len(),
                pearson_system: system,
            })
        })
        .collect();
    AgreementTable {
        caption_judgments: captions.len(),
        ratings: captions.iter().map(|c| c.ratings.len()).sum(),
        entry_judgments: entries.len(),
        resamples: bootstrap.resamples,
        seed: bootstrap.seed,
        rows,
    }
}
