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

impl ResultsFile {
    pub fn parse(bytes: &[u8], bounds: Bounds<'_>) -> Result<ResultsFile, UploadError> {
        if bytes.len() as u64 > bounds.max_bytes {
            return Err(UploadError::TooLarge {
                size: bytes.len() as u64,
                limit: bounds.max_bytes,
            });
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(UploadError::Empty);
        }
        let value: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| UploadError::MalformedJson(e.to_string()))?;
        let serde_json::Value::Array(entries) = value else {
            return Err(UploadError::NotAnArray(json_kind(&value)));
        };

        let mut bad = Vec::new();
        let mut too_long = Vec::new();
        let mut parsed: Vec<(usize, i64, String)> = Vec::with_capacity(entries.len());
        for (i, entry) in entries.into_iter().enumerate() {
            let serde_json::Value::Object(mut obj) = entry else {
                bad.push(format!("entry {i} is {}, not an object", json_kind(&entry)));
                continue;
            };
            let id = match obj.get("image_id") {
                Some(serde_json::Value::Number(n)) => n.as_i64(),
                _ => None,
            };
            let Some(id) = id else {
                let what = obj.get("image_id").map_or("missing", json_kind);
                bad.push(format!(
                    "entry {i}: \"image_id\" must be an integer (it is {what})"
                ));
                continue;
            };
            let caption = match obj.remove("caption") {
                Some(serde_json::Value::String(s)) => s,
                other => {
                    let what = other.as_ref().map_or("missing", json_kind);
                    bad.push(format!(
                        "entry {i} (image_id {id}): \"caption\" must be a string (it is {what})"
                    ));
                    continue;
                }
            };
            let n = caption.chars().count();
            if n > bounds.max_caption_chars {
                too_long.push(format!("entry {i} (image_id {id}) has {n} characters"));
                continue;
            }
            parsed.push((i, id, caption));
        }
        if !bad.is_empty() {
            return Err(UploadError::BadEntries {
                count: bad.len(),
                examples: first(bad),
            });
        }
        if !too_long.is_empty() {
            return Err(UploadError::CaptionTooLong {
                count: too_long.len(),
                limit: bounds.max_caption_chars,
                examples: first(too_long),
            });
        }

        let unknown: Vec<String> = parsed
            .iter()
            .filter(|(_, id, _)| !bounds.split_images.contains(id))
            .map(|(i, id, _)| format!("{id} (entry {i})"))
            .collect();
        if !unknown.is_empty() {
            return Err(UploadError::UnknownImages {
                count: unknown.len(),
                split: bounds.split_name.to_string(),
                examples: first(unknown),
            });
        }

        let mut seen: HashMap<i64, usize> = HashMap::with_capacity(parsed.len());
        let mut duplicates = Vec::new();
        for (i, id, _) in &parsed {
            if let Some(prev) = seen.insert(*id, *i) {
                duplicates.push(format!("{id} (entries {prev} and {i})"));
            }
        }
        if !duplicates.is_empty() {
            return Err(UploadError::Duplicates {
                count: duplicates.len(),
                examples: first(duplicates),
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

fn first(mut v: Vec<String>) -> Vec<String> {
    v.truncate(EXAMPLES);
    v
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
        assert!(err(&" ".repeat(10_001)).contains("at most 10000 bytes"));
    }
}
