//! A COCO result file, `[{"image_id": 42, "caption": "..."}, ...]`, read by one set of rules
//! wherever it arrives: an upload to the server, and `spice eval --results`.
//!
//! In: the file's bytes and the [`Rules`] of the place that reads it. Out: [`ResultEntries`] (every
//! readable entry, and the keys that were ignored), then, checked against the images they may
//! name ([`Images`]), a [`ResultFile`]: one caption per image. A file is refused with one
//! [`ResultFileError`] that lists every kind of problem at once, each with its count and first
//! offenders, entries numbered from 1 (as an editor shows them), so that a file is fixed in one
//! go; the server's pages, its API and the command say the same words for the same file.
//!
//! What is refused and what is not follows pycocoevalcap (`COCO.loadRes`) and the SPICE jar: keys
//! other than `image_id` and `caption` are ignored (and listed, [`IgnoredKey`]); a byte-order mark
//! is refused (Python's `json.load` refuses it) but named in plain words, as is an empty file. The
//! server adds rules of its own through [`Rules`]: integer ids only (it stores them as such),
//! a caption length bound, no control characters (PostgreSQL cannot store NUL), no empty
//! captions, and every image of the split covered.
//!
//! The entries are checked one at a time as the JSON parser hands them over: the array never
//! exists as a tree, and values that are not kept (other keys, arrays) are parsed but not built,
//! so a hostile upload costs no more memory than its captions.

use std::collections::HashMap;
use std::fmt;

use super::ImageId;

/// How many offending entries (and ignored keys) a message names.
pub const SHOWN: usize = 5;

/// What the reader of a file demands beyond what pycocoevalcap does.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// Whether `image_id` may be a string, as pycocotools allows (the server stores integers).
    pub string_ids: bool,
    /// The longest caption, in characters (`None`: any length).
    pub max_caption_chars: Option<usize>,
    /// Refuse captions holding control characters other than tab and line breaks.
    pub refuse_control_characters: bool,
    /// Refuse captions that are empty or only white space.
    pub refuse_empty_captions: bool,
}

impl Rules {
    /// pycocoevalcap's own: any string caption, integer or string ids (`spice eval`).
    pub const PYCOCOEVALCAP: Rules = Rules {
        string_ids: true,
        max_caption_chars: None,
        refuse_control_characters: false,
        refuse_empty_captions: false,
    };
}

/// The images a file's entries may name.
pub struct Images<'a> {
    /// How messages name them: `split "val"`, `the annotation file`.
    pub name: &'a str,
    pub contains: &'a dyn Fn(&ImageId) -> bool,
    /// When every one of them needs a caption: all of them, in the order a message lists the
    /// missing ones (`None`: a file may caption some of them only, as for `spice eval`).
    pub all: Option<&'a [ImageId]>,
}

/// The whole file refused before its entries are looked at, or the problems of its entries.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ResultFileError {
    #[error("the file is empty: it should hold a JSON array of {{\"image_id\": ..., \"caption\": \"...\"}} objects")]
    Empty,
    /// A byte-order mark: which one, in words.
    #[error("{}", byte_order_mark_refusal(.0))]
    ByteOrderMark(&'static str),
    #[error("the file is not valid JSON: {0}")]
    MalformedJson(String),
    #[error("the file must hold a JSON array of {{\"image_id\": ..., \"caption\": \"...\"}} objects; it holds {0}")]
    NotAnArray(&'static str),
    /// Every problem of the entries, one line each.
    #[error("{}", .0.iter().map(Problem::to_string).collect::<Vec<_>>().join("\n"))]
    Entries(Vec<Problem>),
}

/// One kind of problem in a file's entries, in the order they are reported.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Problem {
    #[error("{}{}", count(.0, "malformed entry", "malformed entries"), .0.list("; "))]
    Malformed(Offenders),
    #[error("{} control characters (such as NUL){}", count(.0, "caption holds", "captions hold"), .0.list("; "))]
    ControlCharacters(Offenders),
    #[error("{} longer than {limit} characters{}", count(.entries, "caption is", "captions are"), .entries.list("; "))]
    CaptionTooLong { limit: usize, entries: Offenders },
    #[error("{} empty{}", count(.0, "caption is", "captions are"), .0.list("; "))]
    EmptyCaptions(Offenders),
    #[error("{} not in {images}{}", count(.ids, "image id is", "image ids are"), .ids.list(", "))]
    UnknownImages { images: String, ids: Offenders },
    #[error("{} more than once{}", count(.0, "image id appears", "image ids appear"), .0.list(", "))]
    Duplicates(Offenders),
    #[error("{} of {images} {} no caption{}", count(.ids, "image", "images"), if .ids.count == 1 { "has" } else { "have" }, .ids.list(", "))]
    MissingImages { images: String, ids: Offenders },
    /// Images that are known but have nothing to score against (`spice eval`).
    #[error("{} no reference captions in {images}{}", count(.ids, "image has", "images have"), .ids.list(", "))]
    NoReferences { images: String, ids: Offenders },
    #[error("the array holds no entries")]
    NoEntries,
}

/// "1 malformed entry", "3 malformed entries".
fn count(o: &Offenders, one: &str, many: &str) -> String {
    format!("{} {}", o.count, if o.count == 1 { one } else { many })
}

/// The offending entries of one kind: how many, and the first few (the message names those; the
/// rest are only counted, so a file of a million bad entries costs no more than one of five).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Offenders {
    pub count: usize,
    pub examples: Vec<String>,
}

impl Offenders {
    pub fn add(&mut self, example: impl FnOnce() -> String) {
        self.count += 1;
        if self.examples.len() < SHOWN {
            self.examples.push(example());
        }
    }

    /// The examples after a colon, preceded by " (first 5)" when there are more than those.
    pub fn list(&self, separator: &str) -> String {
        let first = if self.count > self.examples.len() {
            format!(" (first {})", self.examples.len())
        } else {
            String::new()
        };
        format!("{first}: {}", self.examples.join(separator))
    }
}

/// The problem `offenders` make, if there are any.
fn reported(offenders: Offenders, problem: impl FnOnce(Offenders) -> Problem) -> Option<Problem> {
    (offenders.count > 0).then(|| problem(offenders))
}

/// A key other than `image_id` and `caption`, ignored as pycocoevalcap ignores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredKey {
    /// Quoted, and cut short when long.
    pub name: String,
    /// How many entries have it.
    pub entries: usize,
    /// The first entry that has it (from 1).
    pub first_entry: usize,
}

/// The keys a file's entries have besides `image_id` and `caption`: the first [`SHOWN`] names,
/// each with its count, and whether there were more.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IgnoredKeys {
    pub keys: Vec<IgnoredKey>,
    pub more: bool,
}

impl IgnoredKeys {
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    fn add(&mut self, key: &str, entry: usize) {
        let name = key_name(key);
        if let Some(k) = self.keys.iter_mut().find(|k| k.name == name) {
            k.entries += 1;
        } else if self.keys.len() < SHOWN {
            self.keys.push(IgnoredKey {
                name,
                entries: 1,
                first_entry: entry,
            });
        } else {
            self.more = true;
        }
    }
}

impl fmt::Display for IgnoredKeys {
    /// `keys other than "image_id" and "caption" were ignored (as pycocoevalcap ignores them):
    /// "score" (2 entries, first entry 1), "file" (entry 2)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keys: Vec<String> = self
            .keys
            .iter()
            .map(|k| match k.entries {
                1 => format!("{} (entry {})", k.name, k.first_entry),
                n => format!("{} ({n} entries, first entry {})", k.name, k.first_entry),
            })
            .collect();
        write!(
            f,
            "keys other than \"image_id\" and \"caption\" were ignored (as pycocoevalcap ignores them): {}{}",
            keys.join(", "),
            if self.more { ", and others" } else { "" }
        )
    }
}

/// A key as a message names it: quoted, and cut short.
fn key_name(k: &str) -> String {
    let short: String = k.chars().take(40).collect();
    if short.len() < k.len() {
        format!("{short:?}…")
    } else {
        format!("{short:?}")
    }
}

/// Why a file that begins with byte-order mark `mark` (`"UTF-8"`) is refused, in plain words;
/// the jar's input format (`crate::batch`) says the same.
pub fn byte_order_mark_refusal(mark: &str) -> String {
    format!(
        "the file begins with a {mark} byte-order mark (BOM), which pycocoevalcap and the SPICE \
         jar refuse; save it as UTF-8 without a BOM (Python's json.dump writes none)"
    )
}

/// The name of the byte-order mark a file begins with, if it begins with one.
pub fn byte_order_mark(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        Some("UTF-8")
    } else if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        Some("UTF-16")
    } else {
        None
    }
}

/// One caption of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultEntry {
    /// Its place in the file, from 1.
    pub entry: usize,
    pub image_id: ImageId,
    pub caption: String,
}

/// A file's readable entries and the problems found in them so far: what [`read`] gives, to be
/// checked against the images by [`ResultEntries::check`].
#[derive(Debug)]
pub struct ResultEntries {
    rules: Rules,
    entries: Vec<ResultEntry>,
    /// The readable image ids of the entries refused for their caption, with their entry
    /// numbers: unknown, duplicate and missing ids are judged on these and the valid entries' ids
    /// together, so fixing a malformed entry brings no new complaint. (Each id is kept once: a
    /// large file's entries are most of the memory its check takes.)
    refused_ids: Vec<(usize, ImageId)>,
    malformed: Offenders,
    control: Offenders,
    too_long: Offenders,
    empty: Offenders,
    ignored: IgnoredKeys,
}

/// A checked file: one caption per image, in the file's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultFile {
    pub entries: Vec<ResultEntry>,
    pub ignored: IgnoredKeys,
}

/// Reads a result file. CPU-bound on large files (seconds for a hundred megabytes).
pub fn read(bytes: &[u8], rules: Rules) -> Result<ResultEntries, ResultFileError> {
    use serde::Deserializer as _;
    if let Some(bom) = byte_order_mark(bytes) {
        return Err(ResultFileError::ByteOrderMark(bom));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ResultFileError::Empty);
    }
    let mut read = ResultEntries {
        rules,
        entries: Vec::new(),
        refused_ids: Vec::new(),
        malformed: Offenders::default(),
        control: Offenders::default(),
        too_long: Offenders::default(),
        empty: Offenders::default(),
        ignored: IgnoredKeys::default(),
    };
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let not_an_array = de
        .deserialize_any(TopLevel(&mut read))
        .and_then(|kind| de.end().map(|()| kind))
        .map_err(|e| ResultFileError::MalformedJson(e.to_string()))?;
    if let Some(kind) = not_an_array {
        return Err(ResultFileError::NotAnArray(kind));
    }
    Ok(read)
}

impl ResultEntries {
    /// The image ids of the readable entries, valid or not.
    pub fn image_ids(&self) -> impl Iterator<Item = &ImageId> {
        self.entries
            .iter()
            .map(|e| &e.image_id)
            .chain(self.refused_ids.iter().map(|(_, id)| id))
    }

    /// Every readable image id with its entry number, in file order.
    fn numbered_ids(&self) -> impl Iterator<Item = (usize, &ImageId)> {
        let mut valid = self
            .entries
            .iter()
            .map(|e| (e.entry, &e.image_id))
            .peekable();
        let mut refused = self.refused_ids.iter().map(|(i, id)| (*i, id)).peekable();
        std::iter::from_fn(move || match (valid.peek(), refused.peek()) {
            (Some(v), Some(r)) if r.0 < v.0 => refused.next(),
            (Some(_), _) => valid.next(),
            (None, _) => refused.next(),
        })
    }

    /// Checks the ids against the images the file may name; refuses the file with every problem
    /// found, or gives its captions.
    pub fn check(self, images: &Images<'_>) -> Result<ResultFile, ResultFileError> {
        let mut unknown = Offenders::default();
        let readable = self.entries.len() + self.refused_ids.len();
        let mut seen: HashMap<&ImageId, usize> = HashMap::with_capacity(readable);
        let mut duplicates = Offenders::default();
        for (i, id) in self.numbered_ids() {
            if !(images.contains)(id) {
                unknown.add(|| format!("{id} (entry {i})"));
            }
            if let Some(prev) = seen.insert(id, i) {
                duplicates.add(|| format!("{id} (entries {prev} and {i})"));
            }
        }
        let mut missing = Offenders::default();
        for id in images.all.unwrap_or_default() {
            if !seen.contains_key(id) {
                missing.add(|| id.to_string());
            }
        }
        drop(seen);
        let ResultEntries {
            entries,
            malformed,
            control,
            too_long,
            empty,
            ignored,
            rules,
            ..
        } = self;
        let no_entries = readable == 0 && malformed.count == 0 && images.all.is_none();
        let name = || images.name.to_string();
        let problems: Vec<Problem> = [
            reported(malformed, Problem::Malformed),
            reported(control, Problem::ControlCharacters),
            reported(too_long, |entries| Problem::CaptionTooLong {
                limit: rules.max_caption_chars.unwrap_or(usize::MAX),
                entries,
            }),
            reported(empty, Problem::EmptyCaptions),
            reported(unknown, |ids| Problem::UnknownImages {
                images: name(),
                ids,
            }),
            reported(duplicates, Problem::Duplicates),
            reported(missing, |ids| Problem::MissingImages {
                images: name(),
                ids,
            }),
            no_entries.then_some(Problem::NoEntries),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !problems.is_empty() {
            return Err(ResultFileError::Entries(problems));
        }
        Ok(ResultFile { entries, ignored })
    }

    /// Checks entry number `i` (counted from 1).
    fn entry(&mut self, i: usize, entry: Field) {
        let (image_id, caption) = match entry {
            Field::Entry {
                image_id,
                caption,
                extra,
            } => {
                for k in &extra {
                    self.ignored.add(k, i);
                }
                (image_id.map(|f| *f), caption.map(|f| *f))
            }
            other => {
                let kind = other.kind();
                self.malformed
                    .add(|| format!("entry {i} is {kind}, not an object"));
                return;
            }
        };
        let id = match image_id {
            Some(Field::Integer(id)) => ImageId::Int(id),
            Some(Field::Text(s)) if self.rules.string_ids => ImageId::Str(s),
            None => {
                self.malformed
                    .add(|| format!("entry {i}: \"image_id\" is missing"));
                return;
            }
            Some(other) => {
                let what = other.kind();
                let must = if self.rules.string_ids {
                    "an integer or a string"
                } else {
                    "an integer"
                };
                self.malformed
                    .add(|| format!("entry {i}: \"image_id\" must be {must} (it is {what})"));
                return;
            }
        };
        let caption = match caption {
            Some(Field::Text(s)) => s,
            other => {
                let problem = match other {
                    None => "is missing".to_string(),
                    Some(f) => format!("must be a string (it is {})", f.kind()),
                };
                self.malformed
                    .add(|| format!("entry {i} (image_id {id}): \"caption\" {problem}"));
                self.refused_ids.push((i, id));
                return;
            }
        };
        let rules = self.rules;
        if rules.refuse_control_characters {
            if let Some(c) = caption.chars().find(|c| forbidden_control(*c)) {
                self.control
                    .add(|| format!("entry {i} (image_id {id}) holds U+{:04X}", c as u32));
                self.refused_ids.push((i, id));
                return;
            }
        }
        if let Some(limit) = rules.max_caption_chars {
            let n = caption.chars().count();
            if n > limit {
                self.too_long
                    .add(|| format!("entry {i} (image_id {id}) has {n} characters"));
                self.refused_ids.push((i, id));
                return;
            }
        }
        if rules.refuse_empty_captions && caption.trim().is_empty() {
            self.empty.add(|| format!("entry {i} (image_id {id})"));
            self.refused_ids.push((i, id));
            return;
        }
        self.entries.push(ResultEntry {
            entry: i,
            image_id: id,
            caption,
        });
    }
}

/// A control character a caption may not hold when [`Rules::refuse_control_characters`]:
/// everything but the whitespace ones (NUL above all, which PostgreSQL cannot store).
fn forbidden_control(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// A value as the checks need it: an integer, a string, an entry's fields (for an object read
/// as an entry), or only what kind of JSON value it is. Arrays, and objects that are not read as
/// entries, are skipped as the parser reads them, never built: an entry holding millions of
/// numbers costs no memory.
enum Field {
    Integer(i64),
    Text(String),
    /// An object read as an entry: its `image_id` and `caption` (the last of each, as a JSON
    /// object keeps them) and its other keys, each once, in order of appearance.
    Entry {
        image_id: Option<Box<Field>>,
        caption: Option<Box<Field>>,
        extra: Vec<String>,
    },
    Other(&'static str),
}

impl Field {
    fn kind(&self) -> &'static str {
        match self {
            Field::Integer(_) => "a number",
            Field::Text(_) => "a string",
            Field::Entry { .. } => "an object",
            Field::Other(kind) => kind,
        }
    }
}

/// How [`Kind`] reads a value: only its kind (`Skip`), as an integer or a string when it is one
/// (`Value`), or, for an object, its fields as an entry's (`Entry`). Skipped values are parsed as
/// every other value is, unlike serde's `IgnoredAny` (which serde_json skips without looking):
/// strings must be valid, numbers in range, and nesting within serde_json's depth limit, so a
/// value refused in one place is refused in all, while nothing of it is kept.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Read {
    Skip,
    Value,
    Entry,
}

/// Reads a JSON value into a [`Field`], as its [`Read`] says.
#[derive(Clone, Copy)]
struct Kind(Read);

impl<'de> serde::de::Visitor<'de> for Kind {
    type Value = Field;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_i64<E>(self, v: i64) -> Result<Field, E> {
        Ok(Field::Integer(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Field, E> {
        Ok(i64::try_from(v).map_or(Field::Other("a number"), Field::Integer))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Field, E> {
        // 42.0 is image 42 for Python, as for `ImageId::from_json`.
        Ok(if v.fract() == 0.0 && v.abs() < 9.0e15 {
            Field::Integer(v as i64)
        } else {
            Field::Other("a number")
        })
    }
    fn visit_bool<E>(self, _: bool) -> Result<Field, E> {
        Ok(Field::Other("a boolean"))
    }
    fn visit_unit<E>(self) -> Result<Field, E> {
        Ok(Field::Other("null"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Field, E> {
        Ok(match self.0 {
            Read::Skip => Field::Other("a string"),
            Read::Value | Read::Entry => Field::Text(v.to_owned()),
        })
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Field, A::Error> {
        while seq.next_element_seed(Kind(Read::Skip))?.is_some() {}
        Ok(Field::Other("an array"))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Field, A::Error> {
        if self.0 != Read::Entry {
            while map
                .next_entry_seed(Kind(Read::Skip), Kind(Read::Skip))?
                .is_some()
            {}
            return Ok(Field::Other("an object"));
        }
        let (mut image_id, mut caption, mut extra) = (None, None, Vec::<String>::new());
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let value = map.next_value_seed(Kind(match &*key {
                "image_id" | "caption" => Read::Value,
                _ => Read::Skip,
            }))?;
            match &*key {
                "image_id" => image_id = Some(Box::new(value)),
                "caption" => caption = Some(Box::new(value)),
                other => {
                    // Bounded: an entry with a million keys keeps only the first few names.
                    if extra.len() <= SHOWN && !extra.iter().any(|k| k == other) {
                        extra.push(other.to_owned());
                    }
                }
            }
        }
        Ok(Field::Entry {
            image_id,
            caption,
            extra,
        })
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Kind {
    type Value = Field;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Field, D::Error> {
        d.deserialize_any(self)
    }
}

/// The top-level JSON value: an array is checked entry by entry, anything else named.
struct TopLevel<'r>(&'r mut ResultEntries);

impl<'de> serde::de::Visitor<'de> for TopLevel<'_> {
    type Value = Option<&'static str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON array")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut i = 1;
        while let Some(entry) = seq.next_element_seed(Kind(Read::Entry))? {
            self.0.entry(i, entry);
            i += 1;
        }
        Ok(None)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map
            .next_entry_seed(Kind(Read::Skip), Kind(Read::Skip))?
            .is_some()
        {}
        Ok(Some("an object"))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Some("null"))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Some("a boolean"))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Some("a number"))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Some("a number"))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Some("a number"))
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Some("a string"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// The server's rules, with a caption bound of 50.
    const SERVER: Rules = Rules {
        string_ids: false,
        max_caption_chars: Some(50),
        refuse_control_characters: true,
        refuse_empty_captions: true,
    };

    /// Why `file` is refused under `rules` against images 1..=n, all needed when `all` ("" if it
    /// is not refused).
    fn refusal(file: &str, rules: Rules, n: i64, all: bool) -> String {
        let ids: Vec<ImageId> = (1..=n).map(ImageId::Int).collect();
        let set: HashSet<ImageId> = ids.iter().cloned().collect();
        let images = Images {
            name: "split \"val\"",
            contains: &|id| set.contains(id),
            all: all.then_some(ids.as_slice()),
        };
        read(file.as_bytes(), rules)
            .and_then(|r| r.check(&images))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn each_problem_names_the_first_offenders_counting_entries_from_1() {
        let err = |s: &str| refusal(s, SERVER, 3, true);
        assert!(err("[{").starts_with("the file is not valid JSON"));
        assert!(err("{}").contains("it holds an object"));
        assert!(err("").starts_with("the file is empty: it should hold a JSON array"));
        assert!(err(" \n ").starts_with("the file is empty"));
        assert!(err("\u{feff}[]").starts_with("the file begins with a UTF-8 byte-order mark"));
        assert!(err(r#"[{"image_id": 1, "caption": 5}]"#).contains(
            "1 malformed entry: entry 1 (image_id 1): \"caption\" must be a string (it is a number)"
        ));
        assert!(err(r#"[{"image_id": "x", "caption": "a"}]"#)
            .contains("entry 1: \"image_id\" must be an integer (it is a string)"));
        assert!(err(r#"[{"image_id": 9, "caption": "a"}]"#)
            .contains("1 image id is not in split \"val\": 9 (entry 1)"));
        assert!(
            err(r#"[{"image_id": 1, "caption": "a"}, {"image_id": 1, "caption": "b"}]"#)
                .contains("1 image id appears more than once: 1 (entries 1 and 2)")
        );
        assert!(err(r#"[{"image_id": 2, "caption": "a"}]"#)
            .contains("2 images of split \"val\" have no caption: 1, 3"));
        assert!(
            err(r#"[{"image_id": 1, "caption": " "}, {"image_id": 2, "caption": ""}]"#)
                .contains("2 captions are empty: entry 1 (image_id 1); entry 2 (image_id 2)")
        );
        assert!(err(&format!(
            r#"[{{"image_id": 1, "caption": "{}"}}]"#,
            "x".repeat(51)
        ))
        .contains(
            "1 caption is longer than 50 characters: entry 1 (image_id 1) has 51 characters"
        ));
        assert!(err(r#"[{"image_id": 2, "caption": "a\u0000dog"}]"#)
            .contains("1 caption holds control characters (such as NUL): entry 1 (image_id 2) holds U+0000"));
    }

    #[test]
    fn pycocoevalcap_rules_take_string_ids_empty_captions_and_part_of_the_images() {
        let ok = read(
            br#"[{"image_id": "b", "caption": ""}, {"image_id": 2.0, "caption": "a\u0001"}]"#,
            Rules::PYCOCOEVALCAP,
        )
        .and_then(|r| {
            r.check(&Images {
                name: "the annotation file",
                contains: &|_| true,
                all: None,
            })
        })
        .expect("accepted");
        let ids: Vec<&ImageId> = ok.entries.iter().map(|e| &e.image_id).collect();
        assert_eq!(ids, [&ImageId::Str("b".into()), &ImageId::Int(2)]);
        assert_eq!(
            refusal("[]", Rules::PYCOCOEVALCAP, 3, false),
            "the array holds no entries"
        );
        assert!(refusal(
            r#"[{"image_id": null, "caption": "a"}]"#,
            Rules::PYCOCOEVALCAP,
            3,
            false
        )
        .contains("entry 1: \"image_id\" must be an integer or a string (it is null)"));
    }

    #[test]
    fn other_keys_are_ignored_and_listed() {
        let file = br#"[{"image_id": 1, "caption": "a", "score": 0.9, "score": 1},
                        {"image_id": 2, "file": "x.jpg", "caption": "b", "score": 0.5}]"#;
        let ok = read(file, SERVER)
            .and_then(|r| {
                r.check(&Images {
                    name: "split \"val\"",
                    contains: &|_| true,
                    all: None,
                })
            })
            .expect("accepted");
        assert_eq!(ok.entries.len(), 2);
        assert_eq!(
            ok.ignored.to_string(),
            "keys other than \"image_id\" and \"caption\" were ignored (as pycocoevalcap \
             ignores them): \"score\" (2 entries, first entry 1), \"file\" (entry 2)"
        );
    }

    #[test]
    fn values_are_named_by_kind_without_being_built() {
        let err = |s: &str| refusal(s, SERVER, 1, true);
        for (image_id, kind) in [
            ("1.5", "a number"),
            ("9223372036854775808", "a number"),
            ("{\"a\": [1, {}]}", "an object"),
            ("[[]]", "an array"),
            ("true", "a boolean"),
            ("null", "null"),
        ] {
            let e = err(&format!(r#"[{{"image_id": {image_id}, "caption": "a"}}]"#));
            assert!(
                e.contains(&format!("\"image_id\" must be an integer (it is {kind})")),
                "{image_id}: {e}"
            );
        }
        assert!(err(r#"[{"image_id": 1, "caption": ["a", {"b": 1}]}]"#)
            .contains("\"caption\" must be a string (it is an array)"));
        assert!(err(r#"[[{"image_id": 1, "caption": "a"}]]"#)
            .contains("entry 1 is an array, not an object"));
        assert!(err(r#"[{"caption": "a"}]"#).contains("entry 1: \"image_id\" is missing"));
        // Values that are not kept are parsed all the same: too deep, a lone surrogate or a
        // number out of range is malformed JSON wherever it stands, even under a key given twice.
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        for skipped in [deep.as_str(), r#""\ud800""#, "1e999"] {
            for file in [
                format!(r#"[{{"image_id": 1, "caption": {skipped}, "caption": "a"}}]"#),
                format!(r#"[{{"image_id": 1, "caption": "a", "x": [{{"y": {skipped}}}]}}]"#),
                format!(r#"{{"a": {skipped}}}"#),
            ] {
                assert!(
                    err(&file).starts_with("the file is not valid JSON"),
                    "{file:.80}: {}",
                    err(&file)
                );
            }
        }
        // A key given twice counts once, its last value (as a JSON object keeps it).
        assert_eq!(
            err(r#"[{"image_id": "x", "caption": 1, "image_id": 1, "caption": "a cat"}]"#),
            ""
        );
    }

    #[test]
    fn every_kind_of_problem_is_reported_at_once_with_counts_and_the_first_five() {
        // Entries 1-7 malformed (7 of them: only the first five named), 8 and 9 with unknown ids,
        // 10 and 11 the same id... see each line below.
        let file = r#"[0, 1, 2, 3, 4, "five", null,
            {"image_id": 77, "caption": "a"}, {"image_id": 78, "caption": "b"},
            {"image_id": 1, "caption": "c"}, {"image_id": 1, "caption": "d"},
            {"image_id": 2, "caption": "e", "score": 1},
            {"image_id": 3, "caption": "f\u0001"},
            {"image_id": 4, "caption": "ggggggggggggggggggggggggggggggggggggggggggggggggggg"},
            {"image_id": 5, "caption": ""}]"#;
        let e = refusal(file, SERVER, 10, true);
        let lines: Vec<&str> = e.lines().collect();
        assert_eq!(
            lines,
            [
                "7 malformed entries (first 5): entry 1 is a number, not an object; \
                 entry 2 is a number, not an object; entry 3 is a number, not an object; \
                 entry 4 is a number, not an object; entry 5 is a number, not an object",
                "1 caption holds control characters (such as NUL): entry 13 (image_id 3) holds U+0001",
                "1 caption is longer than 50 characters: entry 14 (image_id 4) has 51 characters",
                "1 caption is empty: entry 15 (image_id 5)",
                "2 image ids are not in split \"val\": 77 (entry 8), 78 (entry 9)",
                "1 image id appears more than once: 1 (entries 10 and 11)",
                "5 images of split \"val\" have no caption: 6, 7, 8, 9, 10",
            ]
        );
    }
}
