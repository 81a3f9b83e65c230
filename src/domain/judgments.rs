//! Human judgments an organizer uploads for a split (issue 14, part 3), and the table of how each
//! leaderboard column agrees with them.
//!
//! The file is JSON lines, one judgment per line (blank lines skipped), of two kinds that may be
//! mixed:
//! - caption level: `{"image_id": 42, "caption": "a dog runs", "ratings": [3, 4]}`: a caption of
//!   one of the split's images and the ratings people gave it (higher is better). The caption is
//!   scored against the split's stored references with the worker's code, and each metric's
//!   score is paired with each rating (Kendall tau-b, tau-c, Spearman, as the SPICE paper does);
//! - entry level: `{"submission_id": 17, "rating": 3.5}` or `{"team": "Night Owls", "rating":
//!   3.5}`: a leaderboard entry of the split (by its submission, or by the name the leaderboard
//!   shows, a team's or a baseline's) and the rating people gave the system. Each column's corpus
//!   score is correlated with the ratings over entries (Pearson, at least three entries).
//!
//! [`JudgmentsFile::parse`] is the whole of the validation, like a results upload's: every kind
//! of problem at once, each with its count and first offending lines (numbered from 1).

use std::collections::{HashMap, HashSet};

use crate::domain::results_file::Offenders;

/// Most judgments a file may hold (each caption is parsed by the engine at upload).
pub const MAX_LINES: usize = 20_000;

/// The longest line read (a caption, its ratings and the keys take a few kilobytes). Each line is
/// built as a JSON value before its fields are checked, and a value costs several times its text
/// (a line of a hundred million numbers, gigabytes): longer lines are malformed, unread.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// The keys of a caption judgment and of an entry judgment.
const CAPTION_KEYS: [&str; 3] = ["image_id", "caption", "ratings"];
const ENTRY_KEYS: [&str; 3] = ["submission_id", "team", "rating"];

/// One caption-level judgment.
#[derive(Debug, Clone, PartialEq)]
pub struct CaptionJudgment {
    pub line: i32,
    pub image_id: i64,
    pub caption: String,
    pub ratings: Vec<f64>,
}

/// One entry-level judgment.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryJudgment {
    pub line: i32,
    pub submission_id: i64,
    pub rating: f64,
}

/// A validated judgments file.
#[derive(Debug, Clone, Default)]
pub struct JudgmentsFile {
    pub captions: Vec<CaptionJudgment>,
    pub entries: Vec<EntryJudgment>,
}

/// What a judgments file is checked against.
#[derive(Debug, Clone, Copy)]
pub struct JudgmentBounds<'a> {
    pub split_name: &'a str,
    pub split_images: &'a HashSet<i64>,
    /// The split's leaderboard entries as an organizer sees them: (submission id, shown name).
    pub entries: &'a [(i64, String)],
    pub max_bytes: u64,
    pub max_caption_chars: usize,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum JudgmentsError {
    #[error("the file is {size} bytes; at most {limit} bytes are accepted")]
    TooLarge { size: u64, limit: u64 },
    #[error("the file holds no judgment")]
    Empty,
    #[error("the file holds {0} judgments; at most {MAX_LINES} are accepted")]
    TooMany(usize),
    /// Every problem of the lines, one per line of the message.
    #[error("{}", .0.join("\n"))]
    Lines(Vec<String>),
}

/// "3 lines are not JSON objects: line 2 (...); line 5 (...)".
fn problem(o: &Offenders, one: &str, many: &str, what: &str) -> Option<String> {
    (o.count > 0).then(|| {
        format!(
            "{} {}{}",
            o.count,
            if o.count == 1 { one } else { many },
            what
        ) + &o.list("; ")
    })
}

fn finite(v: &serde_json::Value) -> Option<f64> {
    v.as_f64().filter(|x| x.is_finite())
}

impl JudgmentsFile {
    pub fn parse(
        bytes: &[u8],
        bounds: JudgmentBounds<'_>,
    ) -> Result<JudgmentsFile, JudgmentsError> {
        if bytes.len() as u64 > bounds.max_bytes {
            return Err(JudgmentsError::TooLarge {
                size: bytes.len() as u64,
                limit: bounds.max_bytes,
            });
        }
        let text = String::from_utf8_lossy(bytes);
        let lines: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(k, l)| (k + 1, l))
            .collect();
        if lines.is_empty() {
            return Err(JudgmentsError::Empty);
        }
        if lines.len() > MAX_LINES {
            return Err(JudgmentsError::TooMany(lines.len()));
        }
        let mut names: HashMap<&str, Vec<i64>> = HashMap::new();
        for (id, name) in bounds.entries {
            names.entry(name.as_str()).or_default().push(*id);
        }
        let entry_ids: HashSet<i64> = bounds.entries.iter().map(|e| e.0).collect();
        let (mut malformed, mut unknown_images, mut bad_captions, mut long_captions) = (
            Offenders::default(),
            Offenders::default(),
            Offenders::default(),
            Offenders::default(),
        );
        let mut unknown_keys = Offenders::default();
        let (mut bad_ratings, mut unknown_entries, mut ambiguous, mut duplicates) = (
            Offenders::default(),
            Offenders::default(),
            Offenders::default(),
            Offenders::default(),
        );
        let mut out = JudgmentsFile::default();
        let mut seen_captions: HashSet<(i64, String)> = HashSet::new();
        let mut seen_entries: HashSet<i64> = HashSet::new();
        for (n, line) in lines {
            if line.len() > MAX_LINE_BYTES {
                malformed.add(|| format!("line {n} (longer than {MAX_LINE_BYTES} bytes)"));
                continue;
            }
            let v: serde_json::Value = match serde_json::from_str(line) {
                Ok(v @ serde_json::Value::Object(_)) => v,
                Ok(_) => {
                    malformed.add(|| format!("line {n} (not an object)"));
                    continue;
                }
                Err(e) => {
                    malformed.add(|| format!("line {n} ({e})"));
                    continue;
                }
            };
            let line_no = n as i32;
            let caption_level = v.get("image_id").is_some() || v.get("caption").is_some();
            let allowed: &[&str] = if caption_level {
                &CAPTION_KEYS
            } else {
                &ENTRY_KEYS
            };
            if let Some(key) = v
                .as_object()
                .and_then(|o| o.keys().find(|k| !allowed.contains(&k.as_str())))
            {
                let key: String = key.chars().take(40).collect();
                unknown_keys.add(|| format!("line {n} ({key:?})"));
                continue;
            }
            if caption_level {
                let Some(image_id) = v.get("image_id").and_then(serde_json::Value::as_i64) else {
                    malformed.add(|| format!("line {n} (\"image_id\" must be an integer)"));
                    continue;
                };
                let ratings: Option<Vec<f64>> = v
                    .get("ratings")
                    .and_then(serde_json::Value::as_array)
                    .and_then(|a| a.iter().map(finite).collect());
                let ratings = match ratings {
                    Some(r) if !r.is_empty() => Some(r),
                    _ => {
                        bad_ratings.add(|| format!("line {n}"));
                        None
                    }
                };
                let caption = match v.get("caption").and_then(serde_json::Value::as_str) {
                    Some(c) if !c.trim().is_empty() && !c.chars().any(char::is_control) => {
                        if c.chars().count() > bounds.max_caption_chars {
                            long_captions.add(|| format!("line {n}"));
                            None
                        } else {
                            Some(c.to_string())
                        }
                    }
                    _ => {
                        bad_captions.add(|| format!("line {n}"));
                        None
                    }
                };
                if !bounds.split_images.contains(&image_id) {
                    unknown_images.add(|| format!("line {n} (image {image_id})"));
                    continue;
                }
                let (Some(caption), Some(ratings)) = (caption, ratings) else {
                    continue;
                };
                if !seen_captions.insert((image_id, caption.clone())) {
                    duplicates.add(|| format!("line {n}"));
                    continue;
                }
                out.captions.push(CaptionJudgment {
                    line: line_no,
                    image_id,
                    caption,
                    ratings,
                });
            } else if v.get("submission_id").is_some() || v.get("team").is_some() {
                let rating = v.get("rating").and_then(finite);
                if rating.is_none() {
                    bad_ratings.add(|| format!("line {n}"));
                }
                let id = match (v.get("submission_id"), v.get("team")) {
                    (Some(id), None) => match id.as_i64() {
                        Some(id) if entry_ids.contains(&id) => Some(id),
                        _ => {
                            unknown_entries.add(|| format!("line {n} (submission {id})"));
                            None
                        }
                    },
                    (None, Some(serde_json::Value::String(name))) => {
                        match names.get(name.as_str()).map(Vec::as_slice) {
                            Some([id]) => Some(*id),
                            Some(_) => {
                                ambiguous.add(|| format!("line {n} ({name:?})"));
                                None
                            }
                            None => {
                                unknown_entries.add(|| format!("line {n} ({name:?})"));
                                None
                            }
                        }
                    }
                    _ => {
                        malformed.add(|| {
                            format!("line {n} (give \"submission_id\" or \"team\", one of them)")
                        });
                        None
                    }
                };
                let (Some(submission_id), Some(rating)) = (id, rating) else {
                    continue;
                };
                if !seen_entries.insert(submission_id) {
                    duplicates.add(|| format!("line {n}"));
                    continue;
                }
                out.entries.push(EntryJudgment {
                    line: line_no,
                    submission_id,
                    rating,
                });
            } else {
                malformed.add(|| {
                    format!(
                        "line {n} (neither a caption judgment, with \"image_id\", \"caption\" and \
                         \"ratings\", nor an entry judgment, with \"submission_id\" or \"team\" \
                         and \"rating\")"
                    )
                });
            }
        }
        let mut problems: Vec<String> = [
            problem(&malformed, "malformed line", "malformed lines", ""),
            problem(
                &unknown_keys,
                "line has",
                "lines have",
                " a key other than \"image_id\", \"caption\", \"ratings\" (a caption) or \
                 \"submission_id\", \"team\", \"rating\" (an entry); remove it",
            ),
            problem(
                &unknown_images,
                "line names an image",
                "lines name images",
                &format!(" not in split {:?}", bounds.split_name),
            ),
            problem(
                &bad_captions,
                "caption is",
                "captions are",
                " not a non-empty string without control characters",
            ),
            problem(
                &long_captions,
                "caption is",
                "captions are",
                &format!(" longer than {} characters", bounds.max_caption_chars),
            ),
            problem(
                &bad_ratings,
                "line has",
                "lines have",
                " no ratings (\"ratings\": a non-empty array of numbers for a caption, \
                 \"rating\": a number for an entry)",
            ),
            problem(
                &unknown_entries,
                "line names",
                "lines name",
                &format!(" no leaderboard entry of split {:?}", bounds.split_name),
            ),
            problem(
                &ambiguous,
                "name is",
                "names are",
                " shown by more than one entry; use \"submission_id\"",
            ),
            problem(
                &duplicates,
                "line repeats",
                "lines repeat",
                " an earlier line's caption or entry",
            ),
        ]
        .into_iter()
        .flatten()
        .collect();
        if problems.is_empty() {
            if out.captions.len() == 1 {
                problems.push(
                    "1 caption judgment: a caption-level correlation needs at least two".into(),
                );
            }
            if matches!(out.entries.len(), 1 | 2) {
                problems.push(format!(
                    "{} entry judgments: a system-level correlation needs at least three",
                    out.entries.len()
                ));
            }
        }
        if problems.is_empty() {
            Ok(out)
        } else {
            Err(JudgmentsError::Lines(problems))
        }
    }
}

/// A correlation and its 95 % bootstrap interval (`None`: undefined, e.g. a constant metric).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Estimate {
    pub value: Option<f64>,
    pub ci: [Option<f64>; 2],
}

/// One leaderboard column's agreement with the judgments.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AgreementRow {
    /// The column's `sort=` name (`spice`, `cider_d`, ...).
    pub metric: String,
    /// Caption level: captions with a defined score, and (caption, rating) pairs correlated.
    pub captions: usize,
    pub pairs: usize,
    pub tau_c: Option<Estimate>,
    pub tau_b: Option<Estimate>,
    pub spearman: Option<Estimate>,
    /// System level: entries with a score, and Pearson's r over them.
    pub entries: usize,
    pub pearson_system: Option<Estimate>,
}

/// The stored result of a judgments upload: the page's table.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AgreementTable {
    pub caption_judgments: usize,
    pub ratings: usize,
    pub entry_judgments: usize,
    pub resamples: usize,
    pub seed: u64,
    pub rows: Vec<AgreementRow>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds<'a>(images: &'a HashSet<i64>, entries: &'a [(i64, String)]) -> JudgmentBounds<'a> {
        JudgmentBounds {
            split_name: "val",
            split_images: images,
            entries,
            max_bytes: 1 << 20,
            max_caption_chars: 20,
        }
    }

    #[test]
    fn both_kinds_are_read() {
        let images: HashSet<i64> = [1, 2].into();
        let entries = [(10, "A".to_string()), (11, "B".into()), (12, "C".into())];
        let text = "{\"image_id\": 1, \"caption\": \"a dog\", \"ratings\": [3, 4]}\n\n\
            {\"image_id\": 2, \"caption\": \"a cat\", \"ratings\": [1]}\n\
            {\"team\": \"A\", \"rating\": 2}\n{\"submission_id\": 11, \"rating\": 1}\n\
            {\"team\": \"C\", \"rating\": 0.5}\n";
        let f = JudgmentsFile::parse(text.as_bytes(), bounds(&images, &entries)).expect("valid");
        assert_eq!(f.captions.len(), 2);
        assert_eq!(f.captions[1].line, 3);
        assert_eq!(f.entries[0].submission_id, 10);
        assert_eq!(f.entries[1].submission_id, 11);
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let images: HashSet<i64> = [1].into();
        let entries = [(10, "A".to_string()), (11, "A".into())];
        let text = "not json\n{\"image_id\": 7, \"caption\": \"x\", \"ratings\": [1]}\n\
            {\"image_id\": 1, \"caption\": \"x\", \"ratings\": []}\n\
            {\"image_id\": 1, \"caption\": \"a caption far too long to pass\", \"ratings\": [1]}\n\
            {\"team\": \"A\", \"rating\": 1}\n{\"submission_id\": 99, \"rating\": 1}\n\
            {\"team\": \"A\", \"rating\": 1, \"annotator\": 3}\n";
        let e = JudgmentsFile::parse(text.as_bytes(), bounds(&images, &entries))
            .expect_err("bad")
            .to_string();
        assert!(e.contains("1 malformed line: line 1"), "{e}");
        assert!(
            e.contains("1 line names an image not in split \"val\": line 2 (image 7)"),
            "{e}"
        );
        assert!(
            e.contains("1 caption is longer than 20 characters: line 4"),
            "{e}"
        );
        assert!(e.contains("1 line has no ratings"), "{e}");
        assert!(e.contains(": line 3"), "{e}");
        assert!(
            e.contains("no leaderboard entry of split \"val\": line 6 (submission 99)"),
            "{e}"
        );
        assert!(e.contains("1 name is shown by more than one entry"), "{e}");
        assert!(e.contains("1 line has a key other than"), "{e}");
        assert!(e.contains("remove it: line 7 (\"annotator\")"), "{e}");
        assert_eq!(
            JudgmentsFile::parse(b"\n \n", bounds(&images, &entries)).err(),
            Some(JudgmentsError::Empty)
        );
        // A line of numbers too long to build as a value is malformed, unread.
        let numbers = "1,".repeat(MAX_LINE_BYTES / 2);
        let long = format!("{{\"image_id\": 1, \"caption\": \"x\", \"ratings\": [{numbers}1]}}\n");
        let e = JudgmentsFile::parse(long.as_bytes(), bounds(&images, &entries))
            .expect_err("bad")
            .to_string();
        assert!(
            e.contains(&format!("line 1 (longer than {MAX_LINE_BYTES} bytes)")),
            "{e}"
        );
    }
}
