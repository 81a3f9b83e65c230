//! A team's upload: COCO results JSON, `[{"image_id": 42, "caption": "..."}, ...]`.
//!
//! The rules and their words are the engine's (`spice::cocoeval::results`), so that `spice eval`
//! refuses what the server refuses and says it alike (entries numbered from 1, other keys
//! ignored and listed, a byte-order mark or an empty file named in plain words). What the server
//! adds: the file's size limit, integer ids (it stores them as such), a caption length bound, no
//! control characters (PostgreSQL cannot store NUL), no empty captions, every image of the
//! split covered, and a bound on the parsing the captions would take ([`ParseBudget`]). A
//! rejection reports every kind of problem the file has at once, each with its count and first
//! offenders, so that the team fixes its file in one go.

use std::collections::HashSet;

use spice::cocoeval::results::{self, Images, Rules};
use spice::cocoeval::ImageId;

pub use spice::cocoeval::results::{IgnoredKeys, Offenders, ResultFileError};

/// One candidate caption of a validated upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub image_id: i64,
    pub caption: String,
}

/// A validated results file: exactly one caption per image of the split, in image id order, and
/// the keys that were ignored.
#[derive(Debug, Clone)]
pub struct ResultsFile {
    candidates: Vec<Candidate>,
    ignored: IgnoredKeys,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UploadError {
    #[error("the file is {}; this challenge accepts at most {}", sizes(*.size, *.limit).0, sizes(*.size, *.limit).1)]
    TooLarge { size: u64, limit: u64 },
    #[error(transparent)]
    File(#[from] ResultFileError),
    #[error("{0}")]
    TooMuchParsing(String),
}

/// A size and a limit as people read them (`12.5 MB`), with the bytes when the two would
/// otherwise read alike.
fn sizes(size: u64, limit: u64) -> (String, String) {
    let (s, l) = (super::size_text(size), super::size_text(limit));
    if s == l {
        (
            format!("{s} ({size} bytes)"),
            format!("{l} ({limit} bytes)"),
        )
    } else {
        (s, l)
    }
}

/// What an upload is checked against.
#[derive(Debug, Clone, Copy)]
pub struct Bounds<'a> {
    pub split_name: &'a str,
    pub split_images: &'a HashSet<i64>,
    pub max_bytes: u64,
    pub max_caption_chars: usize,
    /// Refuse empty captions: new uploads do; files stored before this rule are still scored.
    pub refuse_empty_captions: bool,
    /// The parsing the file's captions may take (`None`: no bound, for files already stored).
    pub parse_budget: Option<ParseBudget>,
}

/// How much parsing an upload may ask of the workers. The exact front end's chart (CoreNLP's
/// PCFG) costs about the cube of a sentence's length: a COCO caption of 11 tokens takes about 8 ms
/// of a core, one sentence of 126 tokens 6.5 s, and a 1,000-character caption can hold three of
/// those. Each distinct caption counts as one sentence of its tokens plus one (an upper bound on
/// its sentences' cubes, in either caption form): `(tokens + 1)³`. The file may use `(words + 1)³`
/// an image, for at least [`ParseBudget::MIN_IMAGES`] images: a COCO submission uses about a
/// seventh of it, a file of long captions at worst about a minute of a core per 1,000 images.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseBudget {
    pub words_per_image: usize,
}

impl ParseBudget {
    /// The server's default (`limits.parse_words_per_image`).
    pub const DEFAULT_WORDS_PER_IMAGE: usize = 24;

    /// The budget of a file is counted for at least this many images, so that a few long
    /// captions in a small split are not refused.
    pub const MIN_IMAGES: usize = 1_000;

    /// The work of a caption: `(tokens + 1)³`.
    pub fn caption_work(caption: &str) -> u64 {
        work_of(spice::tokenize::tokenize(caption).len())
    }

    /// The work a file of `images` captions may take.
    pub fn limit(self, images: usize) -> u64 {
        work_of(self.words_per_image).saturating_mul(images.max(Self::MIN_IMAGES) as u64)
    }

    /// Refuses `candidates` when their distinct captions' work passes the budget, naming the
    /// captions that cost the most. Tokenizing takes about 1.2 µs a caption: 50 ms for a
    /// 40,000-image file.
    fn check(self, candidates: &[Candidate]) -> Result<(), UploadError> {
        let budget = self.limit(candidates.len());
        let mut seen = HashSet::new();
        let mut tokens: Vec<(usize, i64)> = candidates
            .iter()
            .filter(|c| seen.insert(c.caption.as_str()))
            .map(|c| (spice::tokenize::tokenize(&c.caption).len(), c.image_id))
            .collect();
        let work = tokens
            .iter()
            .fold(0u64, |a, &(n, _)| a.saturating_add(work_of(n)));
        if work <= budget {
            return Ok(());
        }
        tokens.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let costliest: Vec<String> = tokens
            .iter()
            .take(5)
            .map(|&(n, id)| format!("image {id} ({n} tokens)"))
            .collect();
        Err(UploadError::TooMuchParsing(format!(
            "parsing these captions would take too long: a caption of n tokens costs (n + 1)³, \
             and the {} distinct captions add up to {work}, more than the {budget} this file may \
             use ({} an image, a caption of {} tokens for each, counted for at least \
             {} images); the costliest: {}",
            tokens.len(),
            work_of(self.words_per_image),
            self.words_per_image,
            Self::MIN_IMAGES,
            costliest.join(", ")
        )))
    }
}

/// The chart's work for a sentence of `tokens` tokens and the boundary: `(tokens + 1)³`.
fn work_of(tokens: usize) -> u64 {
    (tokens as u64 + 1).pow(3)
}

impl ResultsFile {
    /// Validates an upload. CPU-bound on large files: call it off the async threads.
    pub fn parse(bytes: &[u8], bounds: Bounds<'_>) -> Result<ResultsFile, UploadError> {
        if bytes.len() as u64 > bounds.max_bytes {
            return Err(UploadError::TooLarge {
                size: bytes.len() as u64,
                limit: bounds.max_bytes,
            });
        }
        let rules = Rules {
            string_ids: false,
            max_caption_chars: Some(bounds.max_caption_chars),
            refuse_control_characters: true,
            refuse_empty_captions: bounds.refuse_empty_captions,
        };
        let mut all: Vec<ImageId> = bounds
            .split_images
            .iter()
            .map(|&id| ImageId::Int(id))
            .collect();
        all.sort_unstable();
        let name = format!("split {:?}", bounds.split_name);
        let contains =
            |id: &ImageId| matches!(id, ImageId::Int(i) if bounds.split_images.contains(i));
        let file = results::read(bytes, rules)?.check(&Images {
            name: &name,
            contains: &contains,
            all: Some(&all),
        })?;
        let mut candidates: Vec<Candidate> = file
            .entries
            .into_iter()
            .filter_map(|e| match e.image_id {
                ImageId::Int(image_id) => Some(Candidate {
                    image_id,
                    caption: e.caption,
                }),
                // Refused by `string_ids: false`.
                ImageId::Str(_) => None,
            })
            .collect();
        candidates.sort_by_key(|c| c.image_id);
        if let Some(budget) = bounds.parse_budget {
            budget.check(&candidates)?;
        }
        Ok(ResultsFile {
            candidates,
            ignored: file.ignored,
        })
    }

    pub fn candidates(&self) -> &[Candidate] {
        &self.candidates
    }

    pub fn into_candidates(self) -> Vec<Candidate> {
        self.candidates
    }

    /// The keys other than `image_id` and `caption` that were ignored.
    pub fn ignored(&self) -> &IgnoredKeys {
        &self.ignored
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
            refuse_empty_captions: true,
            parse_budget: None,
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
    fn a_complete_file_is_accepted_in_id_order_its_other_keys_listed() {
        let split = ids(&[1, 2]);
        let file = br#"[{"image_id": 2, "caption": "a dog", "score": 1},
                        {"image_id": 1.0, "caption": "a cat"}]"#;
        let parsed = ResultsFile::parse(file, bounds(&split)).expect("accepted");
        assert_eq!(
            parsed.candidates(),
            [
                Candidate {
                    image_id: 1,
                    caption: "a cat".into()
                },
                Candidate {
                    image_id: 2,
                    caption: "a dog".into()
                }
            ]
        );
        assert!(parsed
            .ignored()
            .to_string()
            .ends_with(": \"score\" (entry 1)"));
    }

    #[test]
    fn the_parsing_the_captions_would_take_is_bounded_counting_each_caption_once() {
        let split = ids(&[1, 2, 3]);
        let b = Bounds {
            max_bytes: 100_000,
            max_caption_chars: 1_000,
            parse_budget: Some(ParseBudget {
                words_per_image: 24,
            }),
            ..bounds(&split)
        };
        // 15,625,000 for the file (25³ for each of at least 1,000 images); 201³ = 8,120,601.
        let long = "a ".repeat(200);
        let file = |captions: [&str; 3]| {
            let entries: Vec<String> = captions
                .iter()
                .enumerate()
                .map(|(i, c)| format!(r#"{{"image_id": {}, "caption": "{c}"}}"#, i + 1))
                .collect();
            format!("[{}]", entries.join(","))
        };
        assert_eq!(
            rejection(&file([&long, &long, &long]), b),
            "",
            "parsed once"
        );
        let other = format!("b {long}");
        let e = rejection(&file([&long, "a dog", &other]), b);
        assert_eq!(
            e,
            "parsing these captions would take too long: a caption of n tokens costs (n + 1)³, \
             and the 3 distinct captions add up to 16363036, more than the 15625000 this file \
             may use (15625 an image, a caption of 24 tokens for each, counted for at least 1000 \
             images); the costliest: image 3 (201 tokens), image 1 (200 tokens), image 2 (2 \
             tokens)"
        );
        assert_eq!(ParseBudget::caption_work("a dog ."), 64);
    }

    #[test]
    fn the_split_and_the_limits_are_the_servers() {
        let split = ids(&[1, 2, 3]);
        let b = bounds(&split);
        let err = |s: &str| rejection(s, b);
        assert!(err(r#"[{"image_id": 2, "caption": "a"}]"#)
            .contains("2 images of split \"val\" have no caption: 1, 3"));
        assert!(err(r#"[{"image_id": 9, "caption": "a"}]"#)
            .contains("1 image id is not in split \"val\": 9 (entry 1)"));
        assert!(err(r#"[{"image_id": "1", "caption": "a"}]"#)
            .contains("entry 1: \"image_id\" must be an integer (it is a string)"));
        assert!(err(r#"[{"image_id": 1, "caption": ""}]"#)
            .contains("1 caption is empty: entry 1 (image_id 1)"));
        assert_eq!(
            err(&" ".repeat(10_001)),
            "the file is 9.8 KB (10001 bytes); this challenge accepts at most 9.8 KB (10000 bytes)"
        );
        let old = Bounds {
            refuse_empty_captions: false,
            ..b
        };
        assert_eq!(
            rejection(
                r#"[{"image_id": 1, "caption": ""}, {"image_id": 2, "caption": "a"}, {"image_id": 3, "caption": "b"}]"#,
                old
            ),
            ""
        );
    }
}
