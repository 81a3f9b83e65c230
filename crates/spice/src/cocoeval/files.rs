//! Reading the COCO caption annotation file of an evaluation (the result file: [`super::results`]).
//!
//! The annotation file of COCO val2014 is 32 MB, most of it fields we never use (image URLs,
//! sizes, licences). It is read in one pass without building a JSON tree: only `images[].id`,
//! `annotations[].image_id` and `annotations[].caption` are looked at, keys and captions are
//! borrowed from the file's bytes, and only the captions of the images being evaluated are
//! copied out. Every entry is still checked, and a bad one is named by its place
//! (`annotations[12].caption`).

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::{Annotations, CocoEvalError, ImageId};

/// A location and a problem, before the file path is attached.
type Problem = (String, String);

impl Annotations {
    /// Reads a COCO caption annotation file (`path` only names it in errors). Only `images[].id`,
    /// `annotations[].image_id` and `annotations[].caption` are read; other fields may be anything.
    pub fn from_json_slice(bytes: &[u8], path: &str) -> Result<Annotations, CocoEvalError> {
        Annotations::from_json_slice_keeping(bytes, path, |_| true)
    }

    /// [`Annotations::from_json_slice`], keeping the captions of the images `keep` accepts only
    /// (the others are checked but not stored): an evaluation needs those of its own images.
    pub fn from_json_slice_keeping(
        bytes: &[u8],
        path: &str,
        keep: impl Fn(&ImageId) -> bool,
    ) -> Result<Annotations, CocoEvalError> {
        let mut reader = FileReader {
            keep: &keep,
            problem: None,
            images: None,
            captions: None,
        };
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let parsed = (&mut reader).deserialize(&mut de).and_then(|()| de.end());
        let field = |(location, problem): Problem| CocoEvalError::Field {
            path: path.to_string(),
            location,
            problem,
        };
        if let Some(p) = reader.problem {
            return Err(field(p));
        }
        parsed.map_err(|source| CocoEvalError::Json {
            path: path.to_string(),
            source,
        })?;
        let missing = |name: &str| {
            field((
                "top level".into(),
                format!("missing field \"{name}\" (is this a COCO annotation file?)"),
            ))
        };
        let images = reader.images.ok_or_else(|| missing("images"))?;
        let captions = reader.captions.ok_or_else(|| missing("annotations"))?;
        Ok(Annotations::new(images, captions))
    }
}

// The annotation file, read in one pass. A bad entry is recorded in `FileReader::problem` (where
// and what) and stops serde's parse through `FileReader::fail`; serde's own error then carries
// no detail, so the caller reports the recorded problem instead.

struct FileReader<'k> {
    keep: &'k dyn Fn(&ImageId) -> bool,
    problem: Option<Problem>,
    images: Option<Vec<ImageId>>,
    captions: Option<Vec<(ImageId, String)>>,
}

impl FileReader<'_> {
    fn fail<E: serde::de::Error>(&mut self, location: String, problem: String) -> E {
        self.problem = Some((location, problem));
        E::custom("invalid entry")
    }
}

impl<'de> DeserializeSeed<'de> for &mut FileReader<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for &mut FileReader<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a COCO annotation object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Key>()? {
            match key.0.as_ref() {
                "images" => {
                    let images = map.next_value_seed(List {
                        name: "images",
                        reader: &mut *self,
                        entry: Entry::Image,
                    })?;
                    self.images = Some(images.0);
                }
                "annotations" => {
                    let captions = map.next_value_seed(List {
                        name: "annotations",
                        reader: &mut *self,
                        entry: Entry::Annotation,
                    })?;
                    self.captions = Some(captions.1);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Err(self.fail("top level".into(), not_coco("an array")))
    }

    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        Err(self.fail("top level".into(), not_coco("a string")))
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        Err(self.fail("top level".into(), not_coco("a boolean")))
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        Err(self.fail("top level".into(), not_coco("a number")))
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        Err(self.fail("top level".into(), not_coco("a number")))
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        Err(self.fail("top level".into(), not_coco("a number")))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        Err(self.fail("top level".into(), not_coco("null")))
    }
}

fn not_coco(found: &str) -> String {
    format!("expected a COCO annotation object with \"images\" and \"annotations\", found {found}")
}

/// An object key, borrowed from the file unless it has escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(StrVisitor).map(Key)
    }
}

struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(s))
    }
    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s.to_string()))
    }
}

/// What one entry of a list is.
#[derive(Clone, Copy)]
enum Entry {
    /// `images[k]`: its `id`.
    Image,
    /// `annotations[k]`: its `image_id` and `caption`.
    Annotation,
}

/// The `images` or `annotations` list.
struct List<'r, 'k> {
    name: &'static str,
    reader: &'r mut FileReader<'k>,
    entry: Entry,
}

type Lists = (Vec<ImageId>, Vec<(ImageId, String)>);

impl<'de> DeserializeSeed<'de> for List<'_, '_> {
    type Value = Lists;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Lists, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for List<'_, '_> {
    type Value = Lists;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "the {} array", self.name)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Lists, A::Error> {
        let mut images = Vec::new();
        let mut captions = Vec::new();
        let mut k = 0;
        loop {
            let seed = EntrySeed {
                at: Place {
                    list: self.name,
                    index: k,
                },
                entry: self.entry,
            };
            match seq.next_element_seed(seed)? {
                None => break,
                Some(Ok(Read::Image(id))) => images.push(id),
                Some(Ok(Read::Annotation(id, caption))) => {
                    if (self.reader.keep)(&id) {
                        captions.push((id, caption.into_owned()));
                    }
                }
                Some(Err((location, problem))) => return Err(self.reader.fail(location, problem)),
            }
            k += 1;
        }
        Ok((images, captions))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Lists, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Err(self.wrong("an object"))
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Lists, E> {
        Err(self.wrong("a string"))
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Lists, E> {
        Err(self.wrong("a boolean"))
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Lists, E> {
        Err(self.wrong("a number"))
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Lists, E> {
        Err(self.wrong("a number"))
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Lists, E> {
        Err(self.wrong("a number"))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Lists, E> {
        Err(self.wrong("null"))
    }
}

impl List<'_, '_> {
    fn wrong<E: serde::de::Error>(self, found: &str) -> E {
        self.reader.fail(
            self.name.into(),
            format!("expected an array, found {found}"),
        )
    }
}

/// `images[3]`.
#[derive(Clone, Copy)]
struct Place {
    list: &'static str,
    index: usize,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}[{}]", self.list, self.index)
    }
}

/// One entry as read: its id (and caption), or what is wrong with it.
enum Read<'de> {
    Image(ImageId),
    Annotation(ImageId, Cow<'de, str>),
}

struct EntrySeed {
    at: Place,
    entry: Entry,
}

impl<'de> DeserializeSeed<'de> for EntrySeed {
    type Value = Result<Read<'de>, Problem>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for EntrySeed {
    type Value = Result<Read<'de>, Problem>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let id_name = match self.entry {
            Entry::Image => "id",
            Entry::Annotation => "image_id",
        };
        let mut id: Option<Scalar<'de>> = None;
        let mut caption: Option<Scalar<'de>> = None;
        while let Some(key) = map.next_key::<Key>()? {
            if key.0 == id_name {
                id = Some(map.next_value::<Scalar>()?);
            } else if matches!(self.entry, Entry::Annotation) && key.0 == "caption" {
                caption = Some(map.next_value::<Scalar>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        let at = self.at;
        let id = match id {
            None => {
                return Ok(Err((
                    at.to_string(),
                    format!("missing field \"{id_name}\""),
                )))
            }
            Some(v) => match v.image_id() {
                Some(id) => id,
                None => {
                    return Ok(Err((
                        format!("{at}.{id_name}"),
                        format!("expected an integer or a string, found {}", v.describe()),
                    )))
                }
            },
        };
        Ok(match (self.entry, caption) {
            (Entry::Image, _) => Ok(Read::Image(id)),
            (Entry::Annotation, Some(Scalar::Str(s))) => Ok(Read::Annotation(id, s)),
            (Entry::Annotation, Some(other)) => Err((
                format!("{at}.caption"),
                format!(
                    "expected a string, found {} (image_id {id})",
                    other.describe()
                ),
            )),
            (Entry::Annotation, None) => Err((
                at.to_string(),
                format!("missing field \"caption\" (image_id {id})"),
            )),
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(self.not_an_object("an array"))
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(self.not_an_object("a string"))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(self.not_an_object("a boolean"))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(self.not_an_object("a number"))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(self.not_an_object("a number"))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(self.not_an_object("a number"))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(self.not_an_object("null"))
    }
}

impl EntrySeed {
    fn not_an_object<'de>(&self, found: &str) -> Result<Read<'de>, Problem> {
        Err((
            self.at.to_string(),
            format!("expected an object, found {found}"),
        ))
    }
}

/// A field's value, kept only as far as the checks need it.
enum Scalar<'de> {
    Int(i64),
    Number(serde_json::Number),
    Str(Cow<'de, str>),
    Bool(bool),
    Null,
    Array,
    Object,
}

impl Scalar<'_> {
    fn image_id(&self) -> Option<ImageId> {
        match self {
            Scalar::Int(i) => Some(ImageId::Int(*i)),
            Scalar::Number(n) => ImageId::from_json(&Value::Number(n.clone())),
            Scalar::Str(s) => Some(ImageId::Str(s.to_string())),
            _ => None,
        }
    }

    /// The kind of a value, with the value itself when it is short.
    fn describe(&self) -> String {
        match self {
            Scalar::Int(i) => format!("a number ({i})"),
            Scalar::Number(n) => format!("a number ({n})"),
            Scalar::Str(_) => "a string".into(),
            Scalar::Bool(b) => format!("a boolean ({b})"),
            Scalar::Null => "null".into(),
            Scalar::Array => "an array".into(),
            Scalar::Object => "an object".into(),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Scalar<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Borrowed(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(s.to_string())))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Self::Value, E> {
        Ok(Scalar::Int(i))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Self::Value, E> {
        Ok(match i64::try_from(u) {
            Ok(i) => Scalar::Int(i),
            Err(_) => Scalar::Number(u.into()),
        })
    }
    fn visit_f64<E>(self, x: f64) -> Result<Self::Value, E> {
        // JSON numbers are finite, so this is always Some.
        Ok(serde_json::Number::from_f64(x).map_or(Scalar::Null, Scalar::Number))
    }
    fn visit_bool<E>(self, b: bool) -> Result<Self::Value, E> {
        Ok(Scalar::Bool(b))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Array)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_kept_images_keep_their_captions() {
        let file = br#"{"info": {"year": 2014}, "images": [{"id": 1, "url": "x"}, {"id": "b"}],
            "annotations": [{"caption": "A dog.", "image_id": 1, "id": 9},
                            {"image_id": "b", "caption": "A \"cat\"."},
                            {"image_id": 1, "caption": "A puppy."}]}"#;
        let all = Annotations::from_json_slice(file, "a.json").expect("valid");
        assert_eq!(all.images(), [ImageId::Int(1), ImageId::Str("b".into())]);
        assert_eq!(all.captions(&ImageId::Int(1)), ["A dog.", "A puppy."]);
        assert_eq!(all.captions(&ImageId::Str("b".into())), ["A \"cat\"."]);
        let some = Annotations::from_json_slice_keeping(file, "a.json", |id| {
            *id == ImageId::Str("b".into())
        })
        .expect("valid");
        assert!(some.captions(&ImageId::Int(1)).is_empty());
        assert_eq!(some.captions(&ImageId::Str("b".into())), ["A \"cat\"."]);
    }

    #[test]
    fn entries_that_are_not_kept_are_still_checked() {
        let e = Annotations::from_json_slice_keeping(
            br#"{"images": [{"id": 1}], "annotations": [{"image_id": 2, "caption": 7}]}"#,
            "a.json",
            |_| false,
        )
        .expect_err("refused")
        .to_string();
        assert_eq!(
            e,
            "a.json: annotations[0].caption: expected a string, found a number (7) (image_id 2)"
        );
    }

    #[test]
    fn bad_shapes_are_named_by_their_place() {
        let ann = |s: &str| {
            Annotations::from_json_slice(s.as_bytes(), "a.json")
                .expect_err("refused")
                .to_string()
        };
        assert_eq!(
            ann(r#"{"images": {}, "annotations": []}"#),
            "a.json: images: expected an array, found an object"
        );
        assert_eq!(
            ann(r#"{"images": [3], "annotations": []}"#),
            "a.json: images[0]: expected an object, found a number"
        );
        assert_eq!(
            ann(r#"{"images": [{"id": 1.5}], "annotations": []}"#),
            "a.json: images[0].id: expected an integer or a string, found a number (1.5)"
        );
        assert_eq!(
            ann(r#"{"images": [], "annotations": [{"caption": "a"}]}"#),
            "a.json: annotations[0]: missing field \"image_id\""
        );
        assert_eq!(
            ann(r#"{"images": [], "annotations": [{"image_id": 4}]}"#),
            "a.json: annotations[0]: missing field \"caption\" (image_id 4)"
        );
        assert_eq!(
            ann("7"),
            "a.json: top level: expected a COCO annotation object with \"images\" and \
             \"annotations\", found a number"
        );
        assert!(ann(r#"{"images": [], "annotations": []} x"#).contains("not valid JSON"));
    }
}
