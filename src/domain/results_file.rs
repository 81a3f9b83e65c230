//! A team's upload: COCO results JSON, `[{"image_id": 42, "caption": "..."}, ...]`.
//!
//! [`ResultsFile::parse`] is the whole of upload validation (issue 5, item 5): size, well-formed
//! JSON, shape of every entry, captions that are strings within a length bound, no unknown or
//! duplicate ids, and every image of the split covered. A rejection names the first offending
//! entries, so that the team can fix its file without guessing.

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
    #[error("{count} malformed entries, first: {}", .examples.join("; "))]
    BadEntries { count: usize, examples: Vec<String> },
    #[error("{count} entries have keys other than \"image_id\" and \"caption\" ({}); remove them, first: {}", .keys.join(", "), .examples.join("; "))]
    UnknownKeys {
        count: usize,
        keys: Vec<String>,
        examples: Vec<String>,
    },
    #[error("{count} captions hold control characters (such as NUL), first: {}", .examples.join("; "))]
    ControlCharacters { count: usize, examples: Vec<String> },
    #[error("{count} captions are longer than {limit} characters, first: {}", .examples.join("; "))]
    CaptionTooLong {
        count: usize,
        limit: usize,
        examples: Vec<String>,
    },
    #[error("{count} image ids are not in split {split:?}, first: {}", .examples.join(", "))]
    UnknownImages {
        count: usize,
        split: String,
        examples: Vec<String>,
    },
    #[error("{count} image ids appear more than once, first: {}", .examples.join(", "))]
    Duplicates { count: usize, examples: Vec<String> },
    #[error("{count} images of split {split:?} have no caption, first: {}", .examples.join(", "))]
    MissingImages {
        count: usize,
        split: String,
        examples: Vec<String>,
    },
}

/// What an upload is checked against.
#[derive(Debug, Clone, Copy)]
pub struct Bounds<'a> {
    pub split_name: &'a str,
    pub split_images: &'a HashSet<i64>,
    pub max_bytes: u64,
    pub max_caption_chars: usize,
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// The offending entries of one kind: how many, and the first few (the message names those; the
/// rest are only counted, so a file of a million bad entries costs no more than one of five).
#[derive(Debug, Default)]
struct Offenders {
    count: usize,
    examples: Vec<String>,
}

impl Offenders {
    fn add(&mut self, example: impl FnOnce() -> String) {
        self.count += 1;
        if self.examples.len() < EXAMPLES {
            self.examples.push(example());
        }
    }
}

/// The keys an entry may have.
const KEYS: [&str; 2] = ["image_id", "caption"];

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
    parsed: Vec<(usize, i64, String)>,
}

impl Checker<'_> {
    fn entry(&mut self, i: usize, entry: serde_json::Value) {
        let serde_json::Value::Object(mut obj) = entry else {
            self.bad
                .add(|| format!("entry {i} is {}, not an object", json_kind(&entry)));
            return;
        };
        let id = match obj.get("image_id") {
            Some(serde_json::Value::Number(n)) => n.as_i64(),
            _ => None,
        };
        let Some(id) = id else {
            let what = obj.get("image_id").map_or("missing", json_kind);
            self.bad
                .add(|| format!("entry {i}: \"image_id\" must be an integer (it is {what})"));
            return;
        };
        let caption = match obj.remove("caption") {
            Some(serde_json::Value::String(s)) => s,
            other => {
                let what = other.as_ref().map_or("missing", json_kind);
                self.bad.add(|| {
                    format!(
                        "entry {i} (image_id {id}): \"caption\" must be a string (it is {what})"
                    )
                });
                return;
            }
        };
        let extra: Vec<&String> = obj.keys().filter(|k| !KEYS.contains(&k.as_str())).collect();
        if !extra.is_empty() {
            for k in &extra {
                if self.key_names.len() < EXAMPLES {
                    self.key_names.insert(key_name(k));
                }
            }
            let names: Vec<String> = extra.iter().take(EXAMPLES).map(|k| key_name(k)).collect();
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
        self.parsed.push((i, id, caption));
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
        let mut i = 0;
        while let Some(entry) = seq.next_element::<serde_json::Value>()? {
            self.0.entry(i, entry);
            i += 1;
        }
        Ok(None)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map
            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
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
            parsed,
            ..
        } = checker;
        if bad.count > 0 {
            return Err(UploadError::BadEntries {
                count: bad.count,
                examples: bad.examples,
            });
        }
        if unknown_keys.count > 0 {
            return Err(UploadError::UnknownKeys {
                count: unknown_keys.count,
                keys: key_names.into_iter().collect(),
                examples: unknown_keys.examples,
            });
        }
        if control.count > 0 {
            return Err(UploadError::ControlCharacters {
                count: control.count,
                examples: control.examples,
            });
        }
        if too_long.count > 0 {
            return Err(UploadError::CaptionTooLong {
                count: too_long.count,
                limit: bounds.max_caption_chars,
                examples: too_long.examples,
            });
        }

        let mut unknown = Offenders::default();
        for (i, id, _) in &parsed {
            if !bounds.split_images.contains(id) {
                unknown.add(|| format!("{id} (entry {i})"));
            }
        }
        if unknown.count > 0 {
            return Err(UploadError::UnknownImages {
                count: unknown.count,
                split: bounds.split_name.to_string(),
                examples: unknown.examples,
            });
        }

        let mut seen: HashMap<i64, usize> = HashMap::with_capacity(parsed.len());
        let mut duplicates = Offenders::default();
        for (i, id, _) in &parsed {
            if let Some(prev) = seen.insert(*id, *i) {
                duplicates.add(|| format!("{id} (entries {prev} and {i})"));
            }
        }
        if duplicates.count > 0 {
            return Err(UploadError::Duplicates {
                count: duplicates.count,
                examples: duplicates.examples,
            });
        }

        let missing: BTreeSet<i64> = bounds
            .split_images
            .iter()
            .filter(|id| !seen.contains_key(id))
            .copied()
            .collect();
        if !missing.is_empty() {
            return Err(UploadError::MissingImages {
                count: missing.len(),
                split: bounds.split_name.to_string(),
                examples: missing.iter().take(EXAMPLES).map(i64::to_string).collect(),
            });
        }

        let mut candidates: Vec<Candidate> = parsed
            .into_iter()
            .map(|(_, image_id, caption)| Candidate { image_id, caption })
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
    fn each_problem_names_the_first_offenders() {
        let split = ids(&[1, 2, 3]);
        let b = bounds(&split);
        let err = |s: &str| {
            ResultsFile::parse(s.as_bytes(), b)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(err("[{").starts_with("the file is not valid JSON"));
        assert!(err("{}").contains("it holds an object"));
        assert!(err(r#"[{"image_id": 1, "caption": 5}]"#)
            .contains("entry 0 (image_id 1): \"caption\" must be a string (it is a number)"));
        assert!(err(r#"[{"image_id": "x", "caption": "a"}]"#)
            .contains("\"image_id\" must be an integer (it is a string)"));
        assert!(err(r#"[{"image_id": 9, "caption": "a"}]"#)
            .contains("not in split \"val\", first: 9 (entry 0)"));
        assert!(
            err(r#"[{"image_id": 1, "caption": "a"}, {"image_id": 1, "caption": "b"}]"#)
                .contains("1 (entries 0 and 1)")
        );
        assert!(err(r#"[{"image_id": 2, "caption": "a"}]"#)
            .contains("2 images of split \"val\" have no caption, first: 1, 3"));
        assert!(err(&format!(
            r#"[{{"image_id": 1, "caption": "{}"}}]"#,
            "x".repeat(51)
        ))
        .contains("longer than 50"));
        assert!(
            err(r#"[{"image_id": 1, "caption": "a", "score": 0.9, "padding": "xxxx"}]"#)
                .contains("1 entries have keys other than \"image_id\" and \"caption\" (\"padding\", \"score\")")
        );
        assert!(err(r#"[{"image_id": 2, "caption": "a\u0000dog"}]"#)
            .contains("entry 0 (image_id 2) holds U+0000"));
        assert!(err(&" ".repeat(10_001)).contains("at most 10000 bytes"));
    }
}
