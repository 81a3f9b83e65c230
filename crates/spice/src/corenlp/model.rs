//! CoreNLP's `LexicalizedParser` model, decoded from its Java serialization into our structures.
//!
//! What is taken: the state, tag and word indexes; the binary rules in their list order; the
//! unary rules in the order CoreNLP's `UnaryGrammar.readObject` adds them (the iteration order of
//! a Java `HashSet` of the rules, see [`crate::javaorder::hash_map_order`]); the lexicon's counts, smoothing and
//! options; the unknown-word model's counts and signature level; and the few options that change
//! what the parse annotator does at test time (the word function, the English subcategory
//! stripper's settings). Nothing else of the file is used. The file itself is the user's: it is
//! never part of this repository.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use super::serial::{Graph, Obj, SerialError, Value};
use crate::javaorder::hash_map_order;

/// Counts keyed by (word, tag) as CoreNLP's `IntTaggedWord`: −1 stands for "any".
pub type Counts = HashMap<(i32, i32), f64>;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BinaryRule {
    pub parent: u32,
    pub left: u32,
    pub right: u32,
    pub score: f32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UnaryRule {
    pub parent: u32,
    pub child: u32,
    pub score: f32,
}

/// What `BaseLexicon` and `EnglishUnknownWordModel` keep.
#[derive(Debug, Clone)]
pub struct LexiconData {
    /// `seenCounter`: training counts of (word, tag), (word, any), (any, tag), (any, any).
    pub seen: Counts,
    /// The unknown-word model's `unSeenCounter`, keyed by (signature word, tag).
    pub unseen: Counts,
    pub smooth: [f64; 2],
    pub smooth_in_unknowns_threshold: i32,
    pub flexi_tag: bool,
    pub smart_mutation: bool,
    pub use_signature_for_known_smoothing: bool,
    /// `useUnknownWordSignatures`, the signature scheme.
    pub unknown_level: i32,
    /// `TrainOptions.openClassTypesThreshold`: tags seen with more unseen word types than this
    /// are the ones an unknown word may take.
    pub open_class_types_threshold: i32,
}

/// The decoded model.
#[derive(Debug, Clone)]
pub struct Model {
    pub states: Vec<String>,
    pub tags: Vec<String>,
    pub words: Vec<String>,
    pub binary: Vec<BinaryRule>,
    /// Core unary rules, in the order `UnaryGrammar.readObject` adds them.
    pub unary: Vec<UnaryRule>,
    pub lexicon: LexiconData,
    /// The language pack's start symbol (`ROOT`).
    pub start_symbol: String,
    /// The model's `wordFunction` is CoreNLP's `AmericanizeFunction`.
    pub americanize: bool,
    /// `EnglishTrain.splitBaseNP` and `splitPoss`, which the subcategory stripper reads.
    pub split_base_np: i32,
    pub split_poss: i32,
    /// What tells two model files apart: the CRC-32 of the uncompressed serialization and its
    /// length in bytes, `crc32-1a2b3c4d-123456789`. The same model gives the same fingerprint from
    /// the jar or a bare `englishPCFG.ser.gz`.
    pub fingerprint: String,
}

/// What can go wrong reading a model file.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not CoreNLP's English PCFG as CoreNLP 3.6.0 serializes it: {source}")]
    Format { path: String, source: SerialError },
    #[error("{path}: {what}")]
    Unsupported { path: String, what: String },
}

/// The models jar CoreNLP 3.6.0 (and the official SPICE) loads.
pub const MODELS_JAR: &str = "stanford-corenlp-3.6.0-models.jar";

/// Where the English PCFG sits inside the models jar.
pub const PCFG_ENTRY: &str = "edu/stanford/nlp/models/lexparser/englishPCFG.ser.gz";

fn bad(msg: impl Into<String>) -> SerialError {
    SerialError(msg.into())
}

impl Model {
    /// Reads the English PCFG from what a user has: `englishPCFG.ser.gz` (gzip'd Java
    /// serialization), the CoreNLP models jar that holds it (a zip, such as the
    /// `stanford-corenlp-3.6.0-models.jar` pycocoevalcap's SPICE downloads into `spice/lib/`),
    /// or a directory holding either.
    pub fn load(path: &Path) -> Result<Model, ModelError> {
        let shown = path.display().to_string();
        let io = |source| ModelError::Io {
            path: shown.clone(),
            source,
        };
        if path.is_dir() {
            for name in [MODELS_JAR, "englishPCFG.ser.gz"] {
                if path.join(name).is_file() {
                    return Model::load(&path.join(name));
                }
            }
            return Err(ModelError::Unsupported {
                path: shown,
                what: format!("the directory holds neither {MODELS_JAR} nor englishPCFG.ser.gz"),
            });
        }
        let bytes = std::fs::read(path).map_err(io)?;
        let gz = if bytes.starts_with(b"PK\x03\x04") {
            let mut archive = zip::ZipArchive::new(std::io::Cursor::new(&bytes)).map_err(|e| {
                ModelError::Unsupported {
                    path: shown.clone(),
                    what: format!("it looks like a jar but cannot be read as one: {e}"),
                }
            })?;
            let mut entry = archive
                .by_name(PCFG_ENTRY)
                .map_err(|_| ModelError::Unsupported {
                    path: shown.clone(),
                    what: format!("the jar has no {PCFG_ENTRY}"),
                })?;
            let mut gz = Vec::new();
            entry.read_to_end(&mut gz).map_err(io)?;
            gz
        } else {
            bytes
        };
        let mut raw = Vec::new();
        flate2::read::GzDecoder::new(gz.as_slice())
            .read_to_end(&mut raw)
            .map_err(|e| ModelError::Format {
                path: shown.clone(),
                source: SerialError(format!("not gzip'd: {e}")),
            })?;
        Model::from_stream(&raw).map_err(|source| ModelError::Format {
            path: shown,
            source,
        })
    }

    /// Decodes an uncompressed serialization stream.
    pub fn from_stream(raw: &[u8]) -> Result<Model, SerialError> {
        let fingerprint = format!("crc32-{:08x}-{}", crc32fast::hash(raw), raw.len());
        let graph = Graph::read(raw)?;
        let top = graph
            .top
            .first()
            .copied()
            .ok_or_else(|| bad("the stream holds no object"))?;
        let lp = graph.obj(top)?;
        if lp.class != "edu.stanford.nlp.parser.lexparser.LexicalizedParser" {
            return Err(bad(format!(
                "it holds a {}, not a LexicalizedParser",
                lp.class
            )));
        }
        let states = index(&lp.obj("stateIndex")?)?;
        let tags = index(&lp.obj("tagIndex")?)?;
        let words = index(&lp.obj("wordIndex")?)?;

        let bg = lp.obj("bg")?;
        let binary = bg
            .obj("allRules")?
            .list()?
            .into_iter()
            .map(|v| {
                let r = graph.obj(v)?;
                Ok(BinaryRule {
                    parent: state(&r, "parent", states.len())?,
                    left: state(&r, "leftChild", states.len())?,
                    right: state(&r, "rightChild", states.len())?,
                    score: float(&r, "score")?,
                })
            })
            .collect::<Result<Vec<_>, SerialError>>()?;

        let ug = lp.obj("ug")?;
        let written = ug
            .obj("coreRules")?
            .map_entries()?
            .into_iter()
            .map(|(k, _)| {
                let r = graph.obj(k)?;
                Ok(UnaryRule {
                    parent: state(&r, "parent", states.len())?,
                    child: state(&r, "child", states.len())?,
                    score: float(&r, "score")?,
                })
            })
            .collect::<Result<Vec<_>, SerialError>>()?;
        // readObject: the map is rebuilt from the stream in that order, then copied into a new
        // HashSet (same table size), whose iteration order is the order the rules are added.
        let hashes: Vec<i32> = written
            .iter()
            .map(|r| ((r.parent as i32) << 16) ^ r.child as i32)
            .collect();
        let size = java_table_size(written.len());
        let map_order = hash_map_order(&hashes, size);
        let reordered: Vec<i32> = map_order.iter().map(|&i| hashes[i]).collect();
        let unary = hash_map_order(&reordered, size)
            .into_iter()
            .map(|i| written[map_order[i]])
            .collect();

        let lex = lp.obj("lex")?;
        if lex.class != "edu.stanford.nlp.parser.lexparser.BaseLexicon" {
            return Err(bad(format!(
                "its lexicon is a {}, not a BaseLexicon",
                lex.class
            )));
        }
        let uw = lex.obj("uwModel")?;
        if uw.class != "edu.stanford.nlp.parser.lexparser.EnglishUnknownWordModel" {
            return Err(bad(format!("its unknown-word model is a {}", uw.class)));
        }
        let smooth = match graph.array(lex.field("smooth")?)? {
            super::serial::Array::Doubles(d) if d.len() == 2 => [d[0], d[1]],
            _ => return Err(bad("BaseLexicon.smooth is not two doubles")),
        };
        let op = lp.obj("op")?;
        let train = op.obj("trainOptions")?;
        let lexicon = LexiconData {
            seen: counter(&graph, &lex.obj("seenCounter")?)?,
            unseen: counter(&graph, &uw.obj("unSeenCounter")?)?,
            smooth,
            smooth_in_unknowns_threshold: lex.int("smoothInUnknownsThreshold")?,
            flexi_tag: lex.bool("flexiTag")?,
            smart_mutation: lex.bool("smartMutation")?,
            use_signature_for_known_smoothing: lex.bool("useSignatureForKnownSmoothing")?,
            unknown_level: uw.int("unknownLevel")?,
            open_class_types_threshold: train.int("openClassTypesThreshold")?,
        };
        let americanize = match op.field("wordFunction")? {
            Value::Null => false,
            v => {
                let f = graph.obj(v)?;
                if f.class != "edu.stanford.nlp.process.AmericanizeFunction" {
                    return Err(bad(format!("its word function is a {}", f.class)));
                }
                true
            }
        };
        let params = op.obj("tlpParams")?;
        if params.class != "edu.stanford.nlp.parser.lexparser.EnglishTreebankParserParams" {
            return Err(bad(format!(
                "it is not an English model ({})",
                params.class
            )));
        }
        let english_train = params.obj("englishTrain")?;
        if !op.bool("doPCFG")? || op.bool("doDep")? {
            return Err(bad("it is not a PCFG-only model (doPCFG without doDep)"));
        }
        Ok(Model {
            states,
            tags,
            words,
            binary,
            unary,
            lexicon,
            start_symbol: "ROOT".to_string(),
            americanize,
            split_base_np: english_train.int("splitBaseNP")?,
            split_poss: english_train.int("splitPoss")?,
            fingerprint,
        })
    }
}

/// The objects of a `HashIndex<String>`, in index order.
fn index(o: &Obj<'_>) -> Result<Vec<String>, SerialError> {
    o.obj("objects")?
        .list()?
        .into_iter()
        .map(|v| o.graph.string(v).map(str::to_string))
        .collect()
}

fn state(o: &Obj<'_>, name: &str, n: usize) -> Result<u32, SerialError> {
    let v = o.int(name)?;
    match u32::try_from(v) {
        Ok(s) if (s as usize) < n => Ok(s),
        _ => Err(bad(format!(
            "a rule's {name} is {v}, outside the {n} states"
        ))),
    }
}

fn float(o: &Obj<'_>, name: &str) -> Result<f32, SerialError> {
    match o.field(name)? {
        Value::Float(f) => Ok(f),
        _ => Err(bad(format!("{}.{name} is not a float", o.class))),
    }
}

/// A `ClassicCounter<IntTaggedWord>`'s counts.
fn counter(graph: &Graph, c: &Obj<'_>) -> Result<Counts, SerialError> {
    let entries = c.obj("map")?.map_entries()?;
    let mut out = HashMap::with_capacity(entries.len());
    for (k, v) in entries {
        let itw = graph.obj(k)?;
        let word = itw.int("word")?;
        let tag = match itw.field("tag")? {
            Value::Short(t) => i32::from(t),
            _ => return Err(bad("IntTaggedWord.tag is not a short")),
        };
        let count = graph.obj(v)?.double("d")?;
        out.insert((word, tag), count);
    }
    Ok(out)
}

/// `tableSizeFor((int) (n / 0.75f + 1))`, at least 16.
pub fn java_table_size(expected: usize) -> usize {
    let fc = (expected as f32 / 0.75f32 + 1.0f32) as usize;
    fc.max(16).next_power_of_two()
}
