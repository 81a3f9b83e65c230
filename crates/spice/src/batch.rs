//! Batch evaluation in the SPICE jar's formats (SPEC §1).
//!
//! In: a JSON array of `{"image_id", "test", "refs"}` items. Out: per-image scores and the macro
//! averages, written as the jar writes them (`-out` JSON, printed summary).
//!
//! The input is read as the jar reads it (`SpiceScorer.scoreBatch`, json-simple): fields it does
//! not know are ignored (and listed in [`BatchInput::ignored`]), `image_id` may be a string or a
//! number and is echoed back, and empty `refs` give an empty reference graph (`All` scores 0,
//! each category is undefined). Where the jar would fail on an item (a missing or non-string
//! `test`, missing `refs`) or write a useless result (a missing, null, boolean or structured
//! `image_id`, which the jar echoes as such), we refuse it, naming the item and the field.
//!
//! Captions are parsed once each (references repeat across images in some inputs), in parallel;
//! everything after parsing is independent per image. Results are collected in input order and
//! averaged sequentially, so the output bytes do not depend on the number of threads.
//!
//! The `spice` command scores [`STREAM_CHUNK`] items at a time ([`evaluate_streamed`]) and writes
//! each image's JSON as soon as its chunk is scored ([`OutputWriter`]): with `-detailed` the
//! tuples of 20,000 hostile items took 3 GB when the whole output was built first.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Read, Write};

use rayon::prelude::*;
use serde::de::{DeserializeSeed, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::graph::{Proposal, SceneGraph};
use crate::javaorder;
use crate::score::{self, Category, ImageScores, MarkedTuple, Score};
use crate::{Engine, EngineError};

/// One item of the jar's input.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchItem {
    /// Echoed back unchanged (string or number).
    pub image_id: Value,
    pub test: String,
    pub refs: Vec<String>,
}

/// The jar's input as read: the items, and the fields that were ignored.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BatchInput {
    pub items: Vec<BatchItem>,
    /// Fields other than `image_id`, `test` and `refs`, in order of first appearance.
    pub ignored: Vec<IgnoredField>,
}

/// A field of the input items that is not the jar's, ignored as the jar ignores it.
#[derive(Debug, Clone, PartialEq)]
pub struct IgnoredField {
    pub name: String,
    /// How many items have it.
    pub items: usize,
    /// The first item that has it (from 1).
    pub first_item: usize,
}

/// Bad input: what was wrong and where.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: the file is empty: it should hold a JSON array of {{\"image_id\", \"test\", \"refs\"}} objects")]
    Empty { path: String },
    #[error("{path}: {}", crate::cocoeval::results::byte_order_mark_refusal(.mark))]
    ByteOrderMark { path: String, mark: &'static str },
    #[error("{path}: not valid JSON: {source}")]
    Json {
        path: String,
        source: serde_json::Error,
    },
    /// `index` counts items from 1, as the server and `spice eval` count entries.
    #[error("{path}: item {index}{id}: {problem}")]
    Item {
        path: String,
        index: usize,
        id: String,
        problem: String,
    },
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// Reads and validates the jar's input format from a reader, one item at a time (so memory
/// follows the captions, not a whole JSON tree).
pub fn read_input(reader: impl Read, path: &str) -> Result<BatchInput, InputError> {
    use std::io::BufRead as _;
    let mut reader = std::io::BufReader::with_capacity(1 << 16, reader);
    let start = reader.fill_buf().map_err(|source| InputError::Io {
        path: path.to_string(),
        source,
    })?;
    if let Some(mark) = crate::cocoeval::results::byte_order_mark(start) {
        return Err(InputError::ByteOrderMark {
            path: path.to_string(),
            mark,
        });
    }
    let mut seen = SeenText {
        inner: reader,
        text: false,
    };
    let mut de = serde_json::Deserializer::from_reader(&mut seen);
    let mut problem: Option<InputError> = None;
    let mut ignored = Vec::new();
    let items = ItemsSeed {
        path,
        problem: &mut problem,
        ignored: &mut ignored,
    }
    .deserialize(&mut de)
    .and_then(|items| de.end().map(|()| items));
    drop(de);
    if let Some(p) = problem {
        return Err(p);
    }
    let items = items.map_err(|source| {
        if source.is_eof() && !seen.text {
            InputError::Empty {
                path: path.to_string(),
            }
        } else {
            InputError::Json {
                path: path.to_string(),
                source,
            }
        }
    })?;
    Ok(BatchInput { items, ignored })
}

/// A reader that notes whether anything but white space went through it: a file that ends
/// before any did is empty, which is said in those words rather than as a JSON error.
struct SeenText<R> {
    inner: R,
    text: bool,
}

impl<R: Read> Read for SeenText<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if !self.text {
            self.text = buf[..n].iter().any(|b| !b.is_ascii_whitespace());
        }
        Ok(n)
    }
}

struct ItemsSeed<'a> {
    path: &'a str,
    problem: &'a mut Option<InputError>,
    ignored: &'a mut Vec<IgnoredField>,
}

impl<'de> DeserializeSeed<'de> for ItemsSeed<'_> {
    type Value = Vec<BatchItem>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ItemsSeed<'_> {
    type Value = Vec<BatchItem>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON array of {\"image_id\", \"test\", \"refs\"} objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element::<Value>()? {
            match validate_item(v, items.len() + 1, self.path, self.ignored) {
                Ok(item) => items.push(item),
                Err(e) => {
                    *self.problem = Some(e);
                    return Err(serde::de::Error::custom("invalid item"));
                }
            }
        }
        Ok(items)
    }
}

/// Checks item number `index` (from 1).
fn validate_item(
    v: Value,
    index: usize,
    path: &str,
    ignored: &mut Vec<IgnoredField>,
) -> Result<BatchItem, InputError> {
    let err = |id: &str, problem: String| InputError::Item {
        path: path.to_string(),
        index,
        id: id.to_string(),
        problem,
    };
    let Value::Object(mut obj) = v else {
        return Err(err(
            "",
            format!(
                "expected an object with \"image_id\", \"test\" and \"refs\", found {}",
                kind(&v)
            ),
        ));
    };
    let id = match obj.get("image_id") {
        Some(v @ (Value::String(_) | Value::Number(_))) => format!(" (image_id {v})"),
        Some(other) => {
            return Err(err(
                "",
                format!(
                    "field \"image_id\": expected a string or a number, found {}",
                    kind(other)
                ),
            ))
        }
        None => return Err(err("", "missing field \"image_id\"".into())),
    };
    for extra in obj
        .keys()
        .filter(|k| !matches!(k.as_str(), "image_id" | "test" | "refs"))
    {
        match ignored.iter_mut().find(|f| f.name == *extra) {
            Some(f) => f.items += 1,
            None => ignored.push(IgnoredField {
                name: extra.clone(),
                items: 1,
                first_item: index,
            }),
        }
    }
    let test = match obj.remove("test") {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(err(
                &id,
                format!("field \"test\": expected a string, found {}", kind(&other)),
            ))
        }
        None => return Err(err(&id, "missing field \"test\"".into())),
    };
    let refs = match obj.remove("refs") {
        Some(Value::Array(a)) => {
            let mut refs = Vec::with_capacity(a.len());
            for (k, r) in a.into_iter().enumerate() {
                match r {
                    Value::String(s) => refs.push(s),
                    other => {
                        return Err(err(
                            &id,
                            format!(
                                "field \"refs\", reference {}: expected a string, found {}",
                                k + 1,
                                kind(&other)
                            ),
                        ))
                    }
                }
            }
            refs
        }
        Some(other) => {
            return Err(err(
                &id,
                format!(
                    "field \"refs\": expected an array of strings, found {}",
                    kind(&other)
                ),
            ))
        }
        None => return Err(err(&id, "missing field \"refs\"".into())),
    };
    let image_id = match obj.remove("image_id") {
        // The jar's output goes through JavaScript's JSON.stringify, which writes 42.0 as 42.
        Some(Value::Number(n)) if !n.is_i64() && !n.is_u64() => {
            n.as_f64().map_or(Value::Null, number)
        }
        Some(v) => v,
        None => Value::Null,
    };
    Ok(BatchItem {
        image_id,
        test,
        refs,
    })
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Scores of one item.
#[derive(Debug, Clone)]
pub struct ItemResult {
    pub image_id: Value,
    pub scores: ImageScores,
}

/// The result of a batch: per-item scores in input order.
#[derive(Debug, Clone)]
pub struct BatchResult {
    pub items: Vec<ItemResult>,
}

impl BatchResult {
    /// Macro average of `All` (None) or of a category.
    pub fn average(&self, category: Option<Category>) -> Score {
        let pick = |r: &ItemResult| -> Score {
            match category {
                None => r.scores.all,
                Some(c) => r.scores.category(c).copied().unwrap_or(r.scores.all),
            }
        };
        let scores: Vec<Score> = self.items.iter().map(pick).collect();
        score::macro_average(&scores)
    }
}

/// Scores a batch: each distinct caption is parsed once by `proposals_of`, in parallel. With
/// `with_tuples`, each result also lists the tuples (the jar's `-detailed`).
pub fn evaluate_with<F>(
    engine: &Engine,
    items: &[BatchItem],
    with_tuples: bool,
    proposals_of: F,
) -> Result<BatchResult, EngineError>
where
    F: Fn(&str) -> Result<Vec<Proposal>, EngineError> + Sync,
{
    Ok(BatchResult {
        items: score_items(engine, items, with_tuples, &proposals_of)?,
    })
}

/// How many items [`evaluate_streamed`] scores at once: enough for every thread to have work
/// until the slowest item of the chunk is done, few enough that the tuples held stay small
/// (20,000 hostile items held whole took 3 GB, about 150 kB an item).
pub const STREAM_CHUNK: usize = 256;

/// Why a streamed evaluation stopped.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// `each` failed (the output could not be written).
    #[error(transparent)]
    Write(io::Error),
}

/// Scores a batch as [`evaluate`] does, `chunk` items at a time, and hands each item's result to
/// `each` in input order as soon as its chunk is scored, so what is held does not grow with the
/// batch. Captions are parsed once per chunk. The result returned keeps the scores (for the
/// averages and the summary) but not the tuples.
pub fn evaluate_streamed(
    engine: &Engine,
    items: &[BatchItem],
    with_tuples: bool,
    chunk: usize,
    each: impl FnMut(&ItemResult) -> io::Result<()>,
) -> Result<BatchResult, StreamError> {
    let proposals_of = |c: &str| engine.caption_proposals(c);
    evaluate_streamed_with(engine, items, with_tuples, chunk, &proposals_of, each)
}

/// [`evaluate_streamed`] with each caption's proposals from `proposals_of` (a
/// [`crate::cache::ParseCache`], say).
pub fn evaluate_streamed_with<F>(
    engine: &Engine,
    items: &[BatchItem],
    with_tuples: bool,
    chunk: usize,
    proposals_of: &F,
    mut each: impl FnMut(&ItemResult) -> io::Result<()>,
) -> Result<BatchResult, StreamError>
where
    F: Fn(&str) -> Result<Vec<Proposal>, EngineError> + Sync,
{
    let mut kept = Vec::with_capacity(items.len());
    for part in items.chunks(chunk.max(1)) {
        for mut r in score_items(engine, part, with_tuples, proposals_of)? {
            each(&r).map_err(StreamError::Write)?;
            r.scores.candidate_tuples = Vec::new();
            r.scores.reference_tuples = Vec::new();
            kept.push(r);
        }
    }
    Ok(BatchResult { items: kept })
}

/// The scores of `items` in their order; each distinct caption is parsed once, in parallel.
fn score_items<F>(
    engine: &Engine,
    items: &[BatchItem],
    with_tuples: bool,
    proposals_of: &F,
) -> Result<Vec<ItemResult>, EngineError>
where
    F: Fn(&str) -> Result<Vec<Proposal>, EngineError> + Sync,
{
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut unique: Vec<&str> = Vec::new();
    for it in items {
        for c in std::iter::once(&it.test).chain(&it.refs) {
            index.entry(c.as_str()).or_insert_with(|| {
                unique.push(c);
                unique.len() - 1
            });
        }
    }
    // One caption a task: rayon otherwise hands each thread a run of captions that it parses
    // without letting the others take any, and a thread that finishes early waits (a fifth of
    // the second thread's time on 5,000 COCO images with the exact parser).
    let parsed: Vec<Vec<Proposal>> = unique
        .par_iter()
        .with_max_len(1)
        .map(|c| proposals_of(c))
        .collect::<Result<_, _>>()?;
    Ok(items
        .par_iter()
        .map(|it| {
            let props = |c: &String| parsed[index[c.as_str()]].as_slice();
            let refs: SceneGraph = engine.scene_graph_from_proposals(it.refs.iter().map(props));
            let cand: SceneGraph = engine.scene_graph_from_proposals([props(&it.test)]);
            ItemResult {
                image_id: it.image_id.clone(),
                scores: if with_tuples {
                    engine.score(&cand, &refs)
                } else {
                    engine.score_counts(&cand, &refs)
                },
            }
        })
        .collect())
}

/// Scores a batch of caption texts.
pub fn evaluate(
    engine: &Engine,
    items: &[BatchItem],
    with_tuples: bool,
) -> Result<BatchResult, EngineError> {
    evaluate_with(engine, items, with_tuples, |c| engine.caption_proposals(c))
}

/// How the output JSON is shaped (the jar's `-subset` and `-detailed`), and what it records
/// beyond the jar's.
#[derive(Debug, Clone, Copy, Default)]
pub struct OutputOptions {
    pub subset: bool,
    pub detailed: bool,
    /// The front end that parsed the captions ([`crate::FrontEnd::name`]), written last in each
    /// image's object as `"front_end"`: a key the jar does not write, which its readers
    /// (pycocoevalcap reads `image_id` and `scores`) ignore; the jar's keys and their order are
    /// unchanged. None writes nothing.
    pub front_end: Option<&'static str>,
}

/// A JSON number as the jar's output has it (integral values without a fraction), NaN as null.
fn number(x: f64) -> Value {
    if x.is_nan() || x.is_infinite() {
        Value::Null
    } else if x == x.trunc() && x.abs() < 1e15 {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

/// A JSON object with its keys in the order the jar's Java HashMaps write them.
fn java_object(entries: Vec<(&str, Value)>) -> Value {
    let keys: Vec<&str> = entries.iter().map(|(k, _)| *k).collect();
    let order = javaorder::hash_set_order(&keys);
    let mut by_key: HashMap<&str, Value> = entries.into_iter().collect();
    let mut map = Map::new();
    for k in order {
        if let Some(v) = by_key.remove(k) {
            map.insert(k.to_string(), v);
        }
    }
    Value::Object(map)
}

fn score_json(s: &Score) -> Value {
    java_object(vec![
        ("tp", Value::from(s.tp)),
        ("fp", Value::from(s.fp)),
        ("fn", Value::from(s.fn_)),
        ("f", number(s.f)),
        ("pr", number(s.pr)),
        ("re", number(s.re)),
        ("numImages", Value::from(s.num_images)),
    ])
}

fn tuples_json(tuples: &[MarkedTuple]) -> Value {
    Value::Array(
        tuples
            .iter()
            .map(|t| {
                java_object(vec![
                    ("tuple", Value::from(t.tuple.clone())),
                    ("truth_value", Value::from(t.truth_value)),
                ])
            })
            .collect(),
    )
}

/// The jar's `-out` JSON for a batch.
pub fn output_json(result: &BatchResult, opts: OutputOptions) -> Value {
    Value::Array(result.items.iter().map(|r| item_json(r, opts)).collect())
}

/// One image of the `-out` JSON.
fn item_json(r: &ItemResult, opts: OutputOptions) -> Value {
    let mut scores = vec![("All", score_json(&r.scores.all))];
    if opts.subset {
        for (c, s) in &r.scores.categories {
            scores.push((c.name(), score_json(s)));
        }
    }
    let mut entries = vec![
        ("image_id", r.image_id.clone()),
        ("scores", java_object(scores)),
    ];
    if opts.detailed {
        entries.push(("test_tuples", tuples_json(&r.scores.candidate_tuples)));
        entries.push(("ref_tuples", tuples_json(&r.scores.reference_tuples)));
    }
    let mut item = java_object(entries);
    // After the jar's keys, in the jar's order.
    if let (Some(front_end), Value::Object(o)) = (opts.front_end, &mut item) {
        o.insert("front_end".into(), Value::from(front_end));
    }
    item
}

/// The jar's `-out` JSON written one image at a time: the bytes `serde_json::to_writer_pretty`
/// writes for [`output_json`] of the whole batch, without holding the batch.
pub struct OutputWriter<W: Write> {
    out: W,
    opts: OutputOptions,
    written: usize,
}

impl<W: Write> OutputWriter<W> {
    pub fn new(out: W, opts: OutputOptions) -> OutputWriter<W> {
        OutputWriter {
            out,
            opts,
            written: 0,
        }
    }

    /// Writes the next image (an element of the top-level array, as the pretty printer
    /// indents it).
    pub fn write(&mut self, r: &ItemResult) -> io::Result<()> {
        let open: &[u8] = if self.written == 0 {
            b"[\n  "
        } else {
            b",\n  "
        };
        self.out.write_all(open)?;
        serde_json::to_writer_pretty(Indented(&mut self.out), &item_json(r, self.opts))?;
        self.written += 1;
        Ok(())
    }

    /// Closes the array and flushes; gives the writer back.
    pub fn finish(mut self) -> io::Result<W> {
        let close: &[u8] = if self.written == 0 { b"[]" } else { b"\n]" };
        self.out.write_all(close)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Writes what it is given one level deeper: two spaces after each line break. JSON strings
/// escape their line breaks, so every `\n` written is the pretty printer's.
struct Indented<W>(W);

impl<W: Write> Write for Indented<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while let Some(i) = rest.iter().position(|&b| b == b'\n') {
            self.0.write_all(&rest[..=i])?;
            self.0.write_all(b"  ")?;
            rest = &rest[i + 1..];
        }
        self.0.write_all(rest)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// The summary the jar prints (SpiceStats.toString): `All`, then each category when `subset`.
pub fn summary(result: &BatchResult, subset: bool) -> String {
    let mut out = String::from("********  SPICE Evaluation  ********\n");
    let mut section = |name: &str, s: &Score| {
        let _ = write!(
            out,
            "\n{name} tuples\n  f-score:\t{:.3} (SPICE metric)\n  precision:\t{:.3}\n  recall:\t{:.3}\n  true pos:\t{}\n  false pos:\t{}\n  false neg:\t{}\n  num images:\t{}\n",
            s.f, s.pr, s.re, s.tp, s.fp, s.fn_, s.num_images
        );
    };
    section("All", &result.average(None));
    if subset {
        let names: Vec<&str> = Category::ALL.iter().map(|c| c.name()).collect();
        for name in javaorder::hash_set_order(&names) {
            if let Some(c) = Category::ALL.iter().find(|c| c.name() == name) {
                section(name, &result.average(Some(*c)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Result<Vec<BatchItem>, InputError> {
        read_input(s.as_bytes(), "in.json").map(|input| input.items)
    }

    #[test]
    fn reads_the_jar_format() {
        let items = read(r#"[{"image_id": 7, "test": "a dog", "refs": ["a dog", "a puppy"]}, {"image_id": "x", "test": "", "refs": ["b"]}]"#)
            .expect("valid");
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].image_id, Value::from(7));
        assert_eq!(items[1].image_id, Value::from("x"));
    }

    #[test]
    fn reads_what_the_jar_reads() {
        // Extra fields are ignored as the jar ignores them, and listed; empty refs are allowed.
        let input = read_input(
            r#"[{"image_id": 1, "test": "a", "refs": ["b"], "score": 0.5},
                {"image_id": 2.0, "test": "a", "refs": [], "file": "x.jpg", "score": 1}]"#
                .as_bytes(),
            "in.json",
        )
        .expect("valid");
        assert_eq!(input.items[1].refs, Vec::<String>::new());
        // Written back as the jar's JavaScript pretty-printer writes 2.0.
        assert_eq!(input.items[1].image_id.to_string(), "2");
        assert_eq!(
            input.ignored,
            [
                IgnoredField {
                    name: "score".into(),
                    items: 2,
                    first_item: 1
                },
                IgnoredField {
                    name: "file".into(),
                    items: 1,
                    first_item: 2
                }
            ]
        );
    }

    #[test]
    fn bad_input_names_the_item_and_the_field() {
        let e = read(r#"{"image_id": 1}"#)
            .expect_err("not an array")
            .to_string();
        assert!(e.contains("JSON array"), "{e}");
        let e = read(r#"[{"image_id": 1, "test": 5, "refs": ["a"]}]"#)
            .expect_err("number")
            .to_string();
        assert_eq!(
            e,
            "in.json: item 1 (image_id 1): field \"test\": expected a string, found a number"
        );
        let e =
            read(r#"[{"image_id": 1, "test": "a", "refs": ["a"]}, {"image_id": 2, "test": "a"}]"#)
                .expect_err("missing")
                .to_string();
        assert_eq!(e, "in.json: item 2 (image_id 2): missing field \"refs\"");
        let e = read(r#"[{"image_id": 1, "test": "a", "refs": ["a", null]}]"#)
            .expect_err("null ref")
            .to_string();
        assert!(
            e.contains("\"refs\", reference 2: expected a string, found null"),
            "{e}"
        );
        let e = read(r#"[{"image_id": null, "test": "a", "refs": ["a"]}]"#)
            .expect_err("null id")
            .to_string();
        assert!(
            e.contains("expected a string or a number, found null"),
            "{e}"
        );
        let bytes: &[u8] = b"[{\"image_id\": 1, \"test\": \"a\xff\"}]";
        let e = read_input(bytes, "in.json")
            .expect_err("not utf-8")
            .to_string();
        assert!(e.starts_with("in.json: not valid JSON"), "{e}");
        for empty in ["", " \n\t "] {
            let e = read(empty).expect_err("empty").to_string();
            assert!(
                e.starts_with("in.json: the file is empty: it should hold"),
                "{e}"
            );
        }
        let e = read("\u{feff}[]").expect_err("BOM").to_string();
        assert!(
            e.starts_with("in.json: the file begins with a UTF-8 byte-order mark (BOM)"),
            "{e}"
        );
        let e = read("[").expect_err("cut short").to_string();
        assert!(e.starts_with("in.json: not valid JSON"), "{e}");
        let e = read(r#"[{"image_id": 1, "test": "a", "refs": ["a"]}] trailing"#)
            .expect_err("trailing")
            .to_string();
        assert!(e.contains("not valid JSON"), "{e}");
    }

    fn streamed(result: &BatchResult, opts: OutputOptions) -> String {
        let mut w = OutputWriter::new(Vec::new(), opts);
        for r in &result.items {
            w.write(r).expect("write to memory");
        }
        String::from_utf8(w.finish().expect("finish")).expect("UTF-8")
    }

    fn whole(result: &BatchResult, opts: OutputOptions) -> String {
        serde_json::to_string_pretty(&output_json(result, opts)).expect("serialize")
    }

    const ALL_OPTIONS: [OutputOptions; 4] = [
        OutputOptions {
            subset: false,
            detailed: false,
            front_end: None,
        },
        OutputOptions {
            subset: true,
            detailed: false,
            front_end: None,
        },
        OutputOptions {
            subset: false,
            detailed: true,
            front_end: None,
        },
        OutputOptions {
            subset: true,
            detailed: true,
            front_end: None,
        },
    ];

    #[test]
    fn the_streamed_output_is_the_whole_output_byte_for_byte() {
        // Line breaks, quotes and odd characters inside tuples and ids must not disturb the
        // indentation added for the top-level array.
        let tuple = |t: &[&str], truth_value| MarkedTuple {
            tuple: t.iter().map(|s| s.to_string()).collect(),
            truth_value,
        };
        let all = Score {
            tp: 1,
            fp: 2,
            fn_: 3,
            pr: 1.0 / 3.0,
            re: 0.25,
            f: 2.0 / 7.0,
            num_images: 1,
        };
        let undefined = Score {
            pr: f64::NAN,
            re: f64::NAN,
            f: f64::NAN,
            ..all
        };
        let item = |id: Value, tuples: bool| ItemResult {
            image_id: id,
            scores: ImageScores {
                all,
                categories: vec![(Category::Object, all), (Category::Color, undefined)],
                candidate_tuples: if tuples {
                    vec![
                        tuple(&["dog"], true),
                        tuple(&["dog", "a\nb \"q\" \u{2028} \u{1F600}"], false),
                    ]
                } else {
                    Vec::new()
                },
                reference_tuples: if tuples {
                    vec![tuple(&["dog", "on", "grass\r\n  "], true)]
                } else {
                    Vec::new()
                },
            },
        };
        for n in 0..4 {
            let result = BatchResult {
                items: (0..n)
                    .map(|k| item(Value::from(format!("id\n{k}")), k % 2 == 0))
                    .chain((n == 3).then(|| item(Value::from(7), false)))
                    .collect(),
            };
            for opts in ALL_OPTIONS {
                assert_eq!(
                    streamed(&result, opts),
                    whole(&result, opts),
                    "{n} items, {opts:?}"
                );
            }
        }
    }

    #[test]
    fn scoring_in_chunks_changes_nothing() {
        // A few hundred generated items with repeated and distinct captions, scored whole and in
        // chunks of several sizes (one that divides the batch, one that does not, one item).
        let words = [
            "a", "dog", "red", "ball", "runs", "on", "the", "grass", "two", "cats", "sit", "near",
            "blue", "car", "and", "man", "with", "hat", "<b>", "é", ",", ".",
        ];
        let mut seed = 12345u64;
        let mut next = move |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % n
        };
        let mut caption = |len: usize| -> String {
            (0..1 + next(len))
                .map(|_| words[next(words.len())])
                .collect::<Vec<_>>()
                .join(" ")
        };
        let shared: Vec<String> = (0..5).map(|_| caption(12)).collect();
        let items: Vec<BatchItem> = (0..300)
            .map(|k| BatchItem {
                image_id: Value::from(k),
                test: caption(15),
                refs: if k % 3 == 0 {
                    shared.clone()
                } else {
                    (0..k % 5).map(|_| caption(15)).collect()
                },
            })
            .collect();
        let engine = Engine::new(crate::EngineOptions::default());
        let expected = evaluate(&engine, &items, true).expect("scores");
        for chunk in [1, 7, 100, 300, 1000] {
            let mut w = OutputWriter::new(Vec::new(), ALL_OPTIONS[3]);
            let kept =
                evaluate_streamed(&engine, &items, true, chunk, |r| w.write(r)).expect("scores");
            let out = String::from_utf8(w.finish().expect("finish")).expect("UTF-8");
            assert!(out == whole(&expected, ALL_OPTIONS[3]), "chunks of {chunk}");
            assert_eq!(
                summary(&kept, true),
                summary(&expected, true),
                "chunks of {chunk}"
            );
            assert!(kept
                .items
                .iter()
                .all(|r| r.scores.candidate_tuples.is_empty()));
        }
    }

    #[test]
    fn numbers_are_written_as_the_jar_writes_them() {
        assert_eq!(number(0.0).to_string(), "0");
        assert_eq!(number(1.0).to_string(), "1");
        assert_eq!(number(0.5).to_string(), "0.5");
        assert_eq!(number(f64::NAN), Value::Null);
        assert_eq!(number(1.0 / 7.0).to_string(), "0.14285714285714285");
    }
}
