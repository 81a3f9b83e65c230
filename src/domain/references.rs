//! Reference captions uploaded by an organizer, in one of two formats:
//! - COCO caption annotations: `{"images": [...], "annotations": [{"image_id", "caption"}, ...]}`;
//! - the SPICE jar's input: `[{"image_id", "test", "refs": [...]}, ...]` (only `refs` is used).
//!
//! The result is a [`ReferenceSet`]: images in id order, each with its captions in file order.

use std::collections::BTreeMap;

use serde::Deserialize;

text_enum! {
    /// The format a split's references were uploaded in (`splits.source_format`).
    pub enum ReferenceFormat {
        Coco => "coco",
        Spice => "spice",
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceImage {
    pub image_id: i64,
    pub captions: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct ReferenceSet {
    pub format: ReferenceFormat,
    pub images: Vec<ReferenceImage>,
}

#[derive(Debug, thiserror::Error)]
pub enum ReferenceError {
    #[error("the references are not valid JSON: {0}")]
    MalformedJson(String),
    #[error("unrecognised reference format: expected a COCO annotation object with \"annotations\", or the SPICE jar's array of {{\"image_id\", \"refs\"}} ({0})")]
    UnknownFormat(String),
    #[error("{0}")]
    BadEntry(String),
    #[error("the file holds no reference captions")]
    Empty,
}

#[derive(Deserialize)]
struct CocoAnnotations {
    annotations: Vec<CocoAnnotation>,
}

#[derive(Deserialize)]
struct CocoAnnotation {
    image_id: serde_json::Value,
    caption: serde_json::Value,
}

#[derive(Deserialize)]
struct SpiceItem {
    image_id: serde_json::Value,
    refs: Vec<serde_json::Value>,
}

/// Image ids are integers in the database; the SPICE format also allows strings, which must then
/// hold an integer.
fn image_id(v: &serde_json::Value, where_: &str) -> Result<i64, ReferenceError> {
    let id = match v {
        serde_json::Value::Number(n) => n.as_i64(),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    id.ok_or_else(|| ReferenceError::BadEntry(format!("{where_}: image_id {v} is not an integer")))
}

/// The longest reference caption an import takes, in characters: twenty times COCO's longest
/// (250). Scoring a candidate against a reference costs time growing with the product of their
/// lengths (METEOR's alignment, ROUGE-L's longest common subsequence): two captions of 227,000
/// characters took 37 s (found by the fuzz target `engine`), and a split's references are scored
/// against every submission.
pub const MAX_REFERENCE_CHARS: usize = 5_000;

/// A reference caption: a string without NUL, which PostgreSQL cannot store (the import failed
/// on insert; found by the fuzz target `references`), and at most [`MAX_REFERENCE_CHARS`] long.
fn caption(v: serde_json::Value, where_: &str) -> Result<String, ReferenceError> {
    match v {
        serde_json::Value::String(s) if s.contains('\0') => Err(ReferenceError::BadEntry(format!(
            "{where_}: the caption holds U+0000 (NUL), which cannot be stored"
        ))),
        serde_json::Value::String(s) if s.chars().count() > MAX_REFERENCE_CHARS => {
            Err(ReferenceError::BadEntry(format!(
                "{where_}: the caption is {} characters long, more than the {MAX_REFERENCE_CHARS} a reference may have",
                s.chars().count()
            )))
        }
        serde_json::Value::String(s) => Ok(s),
        other => Err(ReferenceError::BadEntry(format!(
            "{where_}: caption {other} is not a string"
        ))),
    }
}

impl ReferenceSet {
    /// Parses either format, telling them apart by the top-level JSON value.
    pub fn parse(bytes: &[u8]) -> Result<ReferenceSet, ReferenceError> {
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace()).copied();
        let mut by_image: BTreeMap<i64, Vec<String>> = BTreeMap::new();
        let format = match first {
            Some(b'{') => {
                let coco: CocoAnnotations = serde_json::from_slice(bytes).map_err(|e| {
                    if e.is_data() {
                        ReferenceError::UnknownFormat(e.to_string())
                    } else {
                        ReferenceError::MalformedJson(e.to_string())
                    }
                })?;
                for (i, a) in coco.annotations.into_iter().enumerate() {
                    let where_ = format!("annotations[{i}]");
                    let id = image_id(&a.image_id, &where_)?;
                    by_image
                        .entry(id)
                        .or_default()
                        .push(caption(a.caption, &where_)?);
                }
                ReferenceFormat::Coco
            }
            Some(b'[') => {
                let items: Vec<SpiceItem> = serde_json::from_slice(bytes).map_err(|e| {
                    if e.is_data() {
                        ReferenceError::UnknownFormat(e.to_string())
                    } else {
                        ReferenceError::MalformedJson(e.to_string())
                    }
                })?;
                for (i, item) in items.into_iter().enumerate() {
                    // Items counted from 1, as `spice INPUT.json` counts them.
                    let where_ = format!("item {}", i + 1);
                    let id = image_id(&item.image_id, &where_)?;
                    if by_image.contains_key(&id) {
                        return Err(ReferenceError::BadEntry(format!(
                            "{where_}: image_id {id} appears twice"
                        )));
                    }
                    let refs = item
                        .refs
                        .into_iter()
                        .map(|r| caption(r, &where_))
                        .collect::<Result<Vec<_>, _>>()?;
                    if refs.is_empty() {
                        return Err(ReferenceError::BadEntry(format!(
                            "{where_}: image_id {id} has no refs"
                        )));
                    }
                    by_image.insert(id, refs);
                }
                ReferenceFormat::Spice
            }
            _ => {
                return Err(match serde_json::from_slice::<serde_json::Value>(bytes) {
                    Err(e) => ReferenceError::MalformedJson(e.to_string()),
                    Ok(_) => ReferenceError::UnknownFormat(
                        "the top level is neither an object nor an array".into(),
                    ),
                })
            }
        };
        if by_image.is_empty() {
            return Err(ReferenceError::Empty);
        }
        let images = by_image
            .into_iter()
            .map(|(image_id, captions)| ReferenceImage { image_id, captions })
            .collect();
        Ok(ReferenceSet { format, images })
    }

    /// The fewest references any image has (the Human row needs at least two).
    pub fn min_refs_per_image(&self) -> usize {
        self.images
            .iter()
            .map(|i| i.captions.len())
            .min()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coco_annotations_group_by_image_in_file_order() {
        let json = br#"{"images": [{"id": 7}, {"id": 3}], "annotations": [
            {"image_id": 7, "id": 1, "caption": "a red kite"},
            {"image_id": 3, "id": 2, "caption": "two dogs"},
            {"image_id": 7, "id": 3, "caption": "a kite in the sky"}]}"#;
        let set = ReferenceSet::parse(json).expect("valid COCO annotations");
        assert_eq!(set.format, ReferenceFormat::Coco);
        assert_eq!(
            set.images[0],
            ReferenceImage {
                image_id: 3,
                captions: vec!["two dogs".into()]
            }
        );
        assert_eq!(
            set.images[1].captions,
            vec!["a red kite", "a kite in the sky"]
        );
        assert_eq!(set.min_refs_per_image(), 1);
    }

    #[test]
    fn spice_format_uses_refs_and_accepts_numeric_string_ids() {
        let json =
            br#"[{"image_id": "12", "test": "ignored", "refs": ["a boat", "a small boat"]}]"#;
        let set = ReferenceSet::parse(json).expect("valid SPICE input");
        assert_eq!(set.format, ReferenceFormat::Spice);
        assert_eq!(
            set.images,
            vec![ReferenceImage {
                image_id: 12,
                captions: vec!["a boat".into(), "a small boat".into()]
            }]
        );
    }

    #[test]
    fn bad_reference_files_say_where() {
        let msg = |b: &[u8]| {
            ReferenceSet::parse(b)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(msg(b"{\"annotations\": [").contains("not valid JSON"));
        assert!(msg(br#"{"annotations": [{"image_id": 1, "caption": 3}]}"#)
            .contains("annotations[0]: caption 3 is not a string"));
        assert!(msg(br#"[{"image_id": "cat.jpg", "refs": ["a cat"]}]"#)
            .contains("item 1: image_id \"cat.jpg\" is not an integer"));
        assert!(msg(br#"{"images": []}"#).contains("unrecognised reference format"));
        assert!(msg(br#"{"annotations": []}"#).contains("no reference captions"));
        assert!(
            msg(br#"{"annotations": [{"image_id": 1, "caption": "a\u0000b"}]}"#)
                .contains("annotations[0]: the caption holds U+0000 (NUL)")
        );
        assert!(msg(br#"[{"image_id": 1, "refs": ["a", "\u0000"]}]"#)
            .contains("item 1: the caption holds U+0000"));
        let long = format!(
            r#"{{"annotations": [{{"image_id": 1, "caption": "a"}}, {{"image_id": 1, "caption": "{}"}}]}}"#,
            "é".repeat(MAX_REFERENCE_CHARS + 1)
        );
        assert!(msg(long.as_bytes()).contains(
            "annotations[1]: the caption is 5001 characters long, more than the 5000 a reference may have"
        ));
        let longest = long.replace(
            &"é".repeat(MAX_REFERENCE_CHARS + 1),
            &"é".repeat(MAX_REFERENCE_CHARS),
        );
        assert!(ReferenceSet::parse(longest.as_bytes()).is_ok());
    }
}
