//! A team's upload: COCO results JSON, `[{"image_id": 42, "caption": "..."}, ...]`.
//!
//! [`ResultsFile::parse`] is the whole of upload validation (issue 5, item 5): size, well-formed
//! JSON, shape of every entry, captions that are strings within a length bound, no unknown or
//! duplicate ids, and every image of the split covered. A rejection reports every kind of problem
//! the file has at once, each with its count and first offenders (entries numbered from 1, as an
//! editor shows them), so that the team fixes its file in one go instead of one class per upload.

use std::collections::{BTreeSet, HashMap, HashSet};

/// How many offending entries an error message lists.
const EXAMPLES: usize = 5;

/// One candidate caption of a validated upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub image_id: i64,
    pub caption: String,
}

/// A validated results file: exactly one caption per image of the split, in image id order.
#[derive(Debug, Clone)]
pub struct ResultsFile {
    candidates: Vec<Candidate>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UploadError {
    #[error("the file is {size} bytes; this challenge accepts at most {limit} bytes")]
    TooLarge { size: u64, limit: u64 },
    #[error("the file is empty")]
    Empty,
    #[error("the file is not valid JSON: {0}")]
    MalformedJson(String),
    #[error("the file must hold a JSON array of {{\"image_id\": <int>, \"caption\": <string>}} objects; it holds {0}")]
    NotAnArray(&'static str),
    /// Every problem of the entries, one line each (the page and the API show the same text).
    #[error("{}", .0.iter().map(Problem::to_string).collect::<Vec<_>>().join("\n"))]
    Entries(Vec<Problem>),
}

/// One kind of problem in a file's entries, in the order they are reported.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Problem {
    #[error("{}{}", count(.0, "malformed entry", "malformed entries"), .0.list("; "))]
    Malformed(Offenders),
    #[error("{} keys other than \"image_id\" and \"caption\" ({}); remove them{}", count(.entries, "entry has", "entries have"), .keys.join(", "), .entries.list("; "))]
    UnknownKeys {
        keys: Vec<String>,
        entries: Offenders,
    },
    #[error("{} control characters (such as NUL){}", count(.0, "caption holds", "captions hold"), .0.list("; "))]
    ControlCharacters(Offenders),
    #[error("{} longer than {limit} characters{}", count(.entries, "caption is", "captions are"), .entries.list("; "))]
    CaptionTooLong { limit: usize, entries: Offenders },
    #[error("{} not in split {split:?}{}", count(.ids, "image id is", "image ids are"), .ids.list(", "))]
    UnknownImages { split: String, ids: Offenders },
    #[error("{} more than once{}", count(.0, "image id appears", "image ids appear"), .0.list(", "))]
    Duplicates(Offenders),
    #[error("{} of split {split:?} {} no caption{}", count(.ids, "image", "images"), if .ids.count == 1 { "has" } else { "have" }, .ids.list(", "))]
    MissingImages { split: String, ids: Offenders },
}

/// The problem `offenders` make, if there are any.
fn reported(offenders: Offenders, problem: impl FnOnce(Offenders) -> Problem) -> Option<Problem> {
    (offenders.count > 0).then(|| problem(offenders))
}

/// "1 malformed entry", "3 malformed entries".
fn count(o: &Offenders, one: &str, many: &str) -> String {
    format!("{} {}", o.count, if o.count == 1 { one } else { many })
}

/// What an upload is checked against.
#[derive(Debug, Clone, Copy)]
pub struct Bounds<'a> {
    pub split_name: &'a str,
    pub split_images: &'a HashSet<i64>,
    pub max_bytes: u64,
    pub max_caption_chars: usize,
}

/// A value as the checks need it: an integer, a string, an entry's fields (for an object read
/// as an entry), or only what kind of JSON value it is. Arrays, and objects that are not read as
/// entries, are skipped as the parser reads them, never built: an entry holding millions of
/// numbers costs no memory.
enum Field {
    Integer(i64),
    Text(String),
    /// An object read as an entry: its `image_id` and `caption` (the last of each, as a JSON
    /// object keeps them) and its first [`EXAMPLES`] other distinct keys, in order of appearance.
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

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_i64<E>(self, v: i64) -> Result<Field, E> {
        Ok(Field::Integer(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Field, E> {
        Ok(i64::try_from(v).map_or(Field::Other("a number"), Field::Integer))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Field, E> {
        Ok(Field::Other("a number"))
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
        let (mut image_id, mut caption, mut extra) = (None, None, Vec::new());
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let value = map.next_value_seed(Kind(match &*key {
                "image_id" | "caption" => Read::Value,
                _ => Read::Skip,
            }))?;
            match &*key {
                "image_id" => image_id = Some(Box::new(value)),
                "caption" => caption = Some(Box::new(value)),
                other => {
                    if extra.len() < EXAMPLES && !extra.iter().any(|k| k == other) {
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

/// The offending entries of one kind: how many, and the first few (the message names those; the
/// rest are only counted, so a file of a million bad entries costs no more than one of five).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Offenders {
    pub count: usize,
    pub examples: Vec<String>,
}

impl Offenders {
    pub(crate) fn add(&mut self, example: impl FnOnce() -> String) {
        self.count += 1;
        if self.examples.len() < EXAMPLES {
            self.examples.push(example());
        }
    }

    /// The examples after a colon, preceded by " (first 5)" when there are more than those.
    pub(crate) fn list(&self, separator: &str) -> String {
        let first = if self.count > self.examples.len() {
            format!(" (first {})", self.examples.len())
        } else {
            String::new()
        };
        format!("{first}: {}", self.examples.join(separator))
    }
}

/// A key as an error message names it: quoted, and cut short.
fn key_name(k: &str) -> String {
    let short: String = k.chars().take(40).collect();
    if short.len() < k.len() {
        format!("{short:?}…")
    } else {
        format!("{short:?}")
    }
}

/// A control character a caption may not hold: everything but the whitespace ones (NUL above all,
/// which PostgreSQL cannot store and the scorer would choke on).
fn forbidden_control(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// Checks entries one at a time as the JSON parser hands them over, so that the whole array never
/// exists as a tree in memory.
struct Checker<'a> {
    bounds: Bounds<'a>,
    bad: Offenders,
    unknown_keys: Offenders,
    key_names: BTreeSet<String>,
    control: Offenders,
    too_long: Offenders,
    /// Every readable image id with its entry number, valid entry or not: unknown, duplicate and
    /// missing ids are judged on these, so fixing a malformed entry brings no new complaint.
    ids: Vec<(usize, i64)>,
    parsed: Vec<(i64, String)>,
}

impl Checker<'_> {
    /// Checks entry number `i` (counted from 1).
    fn entry(&mut self, i: usize, entry: Field) {
        let (image_id, caption, extra) = match entry {
            Field::Entry {
                image_id,
                caption,
                extra,
            } => (image_id.map(|f| *f), caption.map(|f| *f), extra),
            other => {
                let kind = other.kind();
                self.bad
                    .add(|| format!("entry {i} is {kind}, not an object"));
                return;
            }
        };
        let id = match image_id {
            Some(Field::Integer(id)) => id,
            other => {
                let what = other.as_ref().map_or("missing", Field::kind);
                self.bad
                    .add(|| format!("entry {i}: \"image_id\" must be an integer (it is {what})"));
                return;
            }
        };
        self.ids.push((i, id));
        let caption = match caption {
            Some(Field::Text(s)) => s,
            other => {
                let what = other.as_ref().map_or("missing", Field::kind);
                self.bad.add(|| {
                    format!(
                        "entry {i} (image_id {id}): \"caption\" must be a string (it is {what})"
                    )
                });
                return;
            }
        };
        if !extra.is_empty() {
            for k in &extra {
                if self.key_names.len() < EXAMPLES {
                    self.key_names.insert(key_name(k));
                }
            }
            let names: Vec<String> = extra.iter().map(|k| key_name(k)).collect();
            self.unknown_keys
                .add(|| format!("entry {i} (image_id {id}): {}", names.join(", ")));
            return;
        }
        if let Some(c) = caption.chars().find(|c| forbidden_control(*c)) {
            self.control
                .add(|| format!("entry {i} (image_id {id}) holds U+{:04X}", c as u32));
            return;
        }
        let n = caption.chars().count();
        if n > self.bounds.max_caption_chars {
            self.too_long
                .add(|| format!("entry {i} (image_id {id}) has {n} characters"));
            return;
        }
        self.parsed.push((id, caption));
    }
}

/// The top-level JSON value: an array is checked entry by entry, anything else named.
struct TopLevel<'c, 'a>(&'c mut Checker<'a>);

impl<'de> serde::de::Visitor<'de> for TopLevel<'_, '_> {
    type Value = Option<&'static str>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
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

impl ResultsFile {
    /// Validates an upload. CPU-bound on large files: call it off the async threads.
    pub fn parse(bytes: &[u8], bounds: Bounds<'_>) -> Result<ResultsFile, UploadError> {
        use serde::Deserializer as _;
        if bytes.len() as u64 > bounds.max_bytes {
            return Err(UploadError::TooLarge {
                size: bytes.len() as u64,
                limit: bounds.max_bytes,
            });
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(UploadError::Empty);
        }
        let mut checker = Checker {
            bounds,
            bad: Offenders::default(),
            unknown_keys: Offenders::default(),
            key_names: BTreeSet::new(),
            control: Offenders::default(),
            too_long: Offenders::default(),
            ids: Vec::new(),
            parsed: Vec::new(),
        };
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let not_an_array = de
            .deserialize_any(TopLevel(&mut checker))
            .and_then(|kind| de.end().map(|()| kind))
            .map_err(|e| UploadError::MalformedJson(e.to_string()))?;
        if let Some(kind) = not_an_array {
            return Err(UploadError::NotAnArray(kind));
        }
        let Checker {
            bad,
            unknown_keys,
            key_names,
            control,
            too_long,
            ids,
            parsed,
            ..
        } = checker;

        let mut unknown = Offenders::default();
        let mut seen: HashMap<i64, usize> = HashMap::with_capacity(ids.len());
        let mut duplicates = Offenders::default();
        for (i, id) in &ids {
            if !bounds.split_images.contains(id) {
                unknown.add(|| format!("{id} (entry {i})"));
            }
            if let Some(prev) = seen.insert(*id, *i) {
                duplicates.add(|| format!("{id} (entries {prev} and {i})"));
            }
        }
        let mut missing_ids: Vec<i64> = bounds
            .split_images
            .iter()
            .filter(|id| !seen.contains_key(id))
            .copied()
            .collect();
        missing_ids.sort_unstable();
        let mut missing = Offenders::default();
        for id in missing_ids {
            missing.add(|| id.to_string());
        }

        let split = || bounds.split_name.to_string();
        let problems: Vec<Problem> = [
            reported(bad, Problem::Malformed),
            reported(unknown_keys, |entries| Problem::UnknownKeys {
                keys: key_names.into_iter().collect(),
                entries,
            }),
            reported(control, Problem::ControlCharacters),
            reported(too_long, |entries| Problem::CaptionTooLong {
                limit: bounds.max_caption_chars,
                entries,
            }),
            reported(unknown, |ids| Problem::UnknownImages {
                split: split(),
                ids,
            }),
            reported(duplicates, Problem::Duplicates),
            reported(missing, |ids| Problem::MissingImages {
                split: split(),
                ids,
            }),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !problems.is_empty() {
            return Err(UploadError::Entries(problems));
        }

        let mut candidates: Vec<Candidate> = parsed
            .into_iter()
            .map(|(image_id, caption)| Candidate { image_id, caption })
            .collect();
        candidates.sort_by_key(|c| c.image_id);
        Ok(ResultsFile { candidates })
    }

    pub fn candidates(&self) -> &[Candidate] {
        &self.candidates
    }

    pub fn into_candidates(self) -> Vec<Candidate> {
        self.candidates
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(ids: &HashSet<i64>) -> Bounds<'_> {
        Bounds {
            split_name: "val",
            split_images: ids,
            max_bytes: 10_000,
            max_caption_chars: 50,
        }
    }

    /// Why `file` is refused ("" if it is not).
    fn rejection(file: &str, b: Bounds<'_>) -> String {
        ResultsFile::parse(file.as_bytes(), b)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    }

    fn ids(v: &[i64]) -> HashSet<i64> {
        v.iter().copied().collect()
    }

    #[test]
    fn a_complete_file_is_accepted_in_id_order() {
        let split = ids(&[1, 2]);
        let file = br#"[{"image_id": 2, "caption": "a dog"}, {"image_id": 1, "caption": "a cat"}]"#;
        let parsed = ResultsFile::parse(file, bounds(&split)).map(ResultsFile::into_candidates);
        assert_eq!(
            parsed,
            Ok(vec![
                Candidate {
                    image_id: 1,
                    caption: "a cat".into()
                },
                Candidate {
                    image_id: 2,
                    caption: "a dog".into()
                }
            ])
        );
    }

    #[test]
    fn each_problem_names_the_first_offenders_counting_entries_from_1() {
        let split = ids(&[1, 2, 3]);
        let b = bounds(&split);
        let err = |s: &str| rejection(s, b);
        assert!(err("[{").starts_with("the file is not valid JSON"));
        assert!(err("{}").contains("it holds an object"));
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
        assert!(
            err(r#"[{"image_id": 2, "caption": "a"}, {"image_id": 3, "caption": "a"}]"#)
                .contains("1 image of split \"val\" has no caption: 1")
        );
        assert!(err(r#"[{"image_id": 2, "caption": "a"}]"#)
            .contains("2 images of split \"val\" have no caption: 1, 3"));
        assert!(err(&format!(
            r#"[{{"image_id": 1, "caption": "{}"}}]"#,
            "x".repeat(51)
        ))
        .contains(
            "1 caption is longer than 50 characters: entry 1 (image_id 1) has 51 characters"
        ));
        assert!(
            err(r#"[{"image_id": 1, "caption": "a", "score": 0.9, "padding": "xxxx"}]"#)
                .contains("1 entry has keys other than \"image_id\" and \"caption\" (\"padding\", \"score\"); remove them: entry 1 (image_id 1)")
        );
        assert!(err(r#"[{"image_id": 2, "caption": "a\u0000dog"}]"#)
            .contains("1 caption holds control characters (such as NUL): entry 1 (image_id 2) holds U+0000"));
        assert!(err(&" ".repeat(10_001)).contains("at most 10000 bytes"));
    }

    #[test]
    fn values_are_named_by_kind_without_being_built() {
        let split = ids(&[1]);
        let b = bounds(&split);
        let err = |s: &str| rejection(s, b);
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
        assert!(err(r#"[{"caption": "a"}]"#)
            .contains("\"image_id\" must be an integer (it is missing)"));
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
        // A key given twice counts once, its last value (as a JSON object keeps it); other keys
        // are named in order of appearance, each once.
        let ok = ResultsFile::parse(
            br#"[{"image_id": "x", "caption": 1, "image_id": 1, "caption": "a cat"}]"#,
            b,
        )
        .map(ResultsFile::into_candidates);
        assert_eq!(
            ok,
            Ok(vec![Candidate {
                image_id: 1,
                caption: "a cat".into()
            }])
        );
        assert!(
            err(r#"[{"image_id": 1, "z": 0, "caption": "a", "y": [1], "z": {}}]"#)
                .contains("remove them: entry 1 (image_id 1): \"z\", \"y\"")
        );
    }

    #[test]
    fn every_kind_of_problem_is_reported_at_once_with_counts_and_the_first_five() {
        let split: HashSet<i64> = (1..=10).collect();
        let b = bounds(&split);
        // Entries 1-7 malformed (7 of them: only the first five named), 8 and 9 with unknown ids,
        // 10 repeating entry 8's id... see each line below.
        let file = r#"[0, 1, 2, 3, 4, "five", null,
            {"image_id": 77, "caption": "a"}, {"image_id": 78, "caption": "b"},
            {"image_id": 1, "caption": "c"}, {"image_id": 1, "caption": "d"},
            {"image_id": 2, "caption": "e", "score": 1},
            {"image_id": 3, "caption": "f\u0001"},
            {"image_id": 4, "caption": "ggggggggggggggggggggggggggggggggggggggggggggggggggg"}]"#;
        let e = ResultsFile::parse(file.as_bytes(), b).expect_err("rejected");
        let UploadError::Entries(problems) = &e else {
            panic!("{e}");
        };
        assert_eq!(problems.len(), 7, "{e}");
        let lines: Vec<String> = e.to_string().lines().map(str::to_string).collect();
        assert_eq!(
            lines,
            [
                "7 malformed entries (first 5): entry 1 is a number, not an object; \
                 entry 2 is a number, not an object; entry 3 is a number, not an object; \
                 entry 4 is a number, not an object; entry 5 is a number, not an object",
                "1 entry has keys other than \"image_id\" and \"caption\" (\"score\"); \
                 remove them: entry 12 (image_id 2): \"score\"",
                "1 caption holds control characters (such as NUL): entry 13 (image_id 3) holds U+0001",
                "1 caption is longer than 50 characters: entry 14 (image_id 4) has 51 characters",
                "2 image ids are not in split \"val\": 77 (entry 8), 78 (entry 9)",
                "1 image id appears more than once: 1 (entries 10 and 11)",
                "6 images of split \"val\" have no caption (first 5): 5, 6, 7, 8, 9",
            ]
        );
    }
}
