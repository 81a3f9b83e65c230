//! The targets: every parser of outside input, each with what it promises.
//!
//! | target             | parser                                          | who sends it            |
//! |--------------------|-------------------------------------------------|-------------------------|
//! | `results-file`     | `spiceboard::domain::ResultsFile::parse`        | a team's upload         |
//! | `references`       | `spiceboard::domain::ReferenceSet::parse`       | an organizer's import   |
//! | `judgments`        | `spiceboard::domain::judgments::JudgmentsFile`  | an organizer's import   |
//! | `multipart`        | `spiceboard::routes::multipart::read`           | any logged-in browser   |
//! | `jar-input`        | `spice::batch::read_input`                      | `spice INPUT.json`      |
//! | `coco-annotations` | `spice::cocoeval::Annotations::from_json_slice` | `spice eval`            |
//! | `coco-results`     | `spice::cocoeval::read_results`                 | `spice eval`            |
//! | `meta-judgments`   | `spice::metaeval::read_judgments`               | `spice meta-eval`       |
//! | `tokenizer`        | `spice::tokenize` on any Unicode                | every caption           |
//! | `engine`           | the server's scoring of references and a caption| every caption           |

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use spiceboard::domain::judgments::{JudgmentBounds, JudgmentsError, JudgmentsFile};
use spiceboard::domain::references::ReferenceError;
use spiceboard::domain::results_file::ResultFileError;
use spiceboard::domain::results_file::{Bounds, ParseBudget};
use spiceboard::domain::{
    Candidate, CaptionMode, ReferenceImage, ReferenceSet, ResultsFile, UploadError,
};

use crate::gen::{caption, damage, Gen, Json};
use crate::Target;

const MIB: usize = 1 << 20;

pub static ALL: &[Target] = &[
    Target {
        name: "results-file",
        about: "a team's results JSON against a split of 8 images",
        case: results_file,
        max_time: Duration::from_millis(500),
        max_bytes_per_input_byte: 8,
        max_bytes_base: MIB,
    },
    Target {
        name: "references",
        about: "an organizer's references, COCO annotations or the jar's input",
        case: references,
        max_time: Duration::from_millis(500),
        max_bytes_per_input_byte: 24,
        max_bytes_base: MIB,
    },
    Target {
        name: "judgments",
        about: "an organizer's human judgments, JSON lines",
        case: judgments,
        max_time: Duration::from_millis(500),
        max_bytes_per_input_byte: 24,
        max_bytes_base: MIB,
    },
    Target {
        name: "multipart",
        about: "a multipart form in random chunks, against small limits",
        case: multipart,
        max_time: Duration::from_millis(500),
        max_bytes_per_input_byte: 8,
        max_bytes_base: MIB,
    },
    Target {
        name: "jar-input",
        about: "the spice command's input, the jar's JSON",
        case: jar_input,
        max_time: Duration::from_millis(500),
        max_bytes_per_input_byte: 16,
        max_bytes_base: MIB,
    },
    Target {
        name: "coco-annotations",
        about: "spice eval's COCO caption annotations",
        case: coco_annotations,
        max_time: Duration::from_millis(500),
        max_bytes_per_input_byte: 16,
        max_bytes_base: MIB,
    },
    Target {
        name: "coco-results",
        about: "spice eval's results file",
        case: coco_results,
        max_time: Duration::from_millis(500),
        max_bytes_per_input_byte: 24,
        max_bytes_base: MIB,
    },
    Target {
        name: "meta-judgments",
        about: "spice meta-eval's judgments, JSON lines",
        case: meta_judgments,
        max_time: Duration::from_millis(500),
        max_bytes_per_input_byte: 24,
        max_bytes_base: MIB,
    },
    Target {
        name: "tokenizer",
        about: "the PTB tokenizer on any Unicode, alone and in batches",
        case: tokenizer,
        // Five passes over up to four captions of up to 80,000 characters each (linear: 1.4 µs
        // a character for a run of U+207D).
        max_time: Duration::from_millis(2000),
        max_bytes_per_input_byte: 256,
        max_bytes_base: MIB,
    },
    Target {
        name: "engine",
        about: "the server's scoring: two references and a caption of any Unicode",
        case: engine,
        max_time: Duration::from_millis(2000),
        max_bytes_per_input_byte: 4096,
        max_bytes_base: 16 * MIB,
    },
];

/// Fails with `why` unless `ok`.
fn require(ok: bool, why: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(why())
    }
}

/// A JSON syntax error names its line and column.
fn names_line(message: &str) -> Result<(), String> {
    require(
        message.contains(" line ") && message.contains(" column "),
        || format!("a JSON error without its place: {message}"),
    )
}

const SPLIT: [i64; 8] = [1, 2, 3, 4, 5, 6, 7, 8];
const IDS: [i64; 12] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, -1, i64::MAX];

/// The split's ids, each once, in a shuffled order: most files are a valid upload's shape.
fn shuffled(g: &mut Gen) -> Vec<i64> {
    let mut ids = SPLIT.to_vec();
    for i in (1..ids.len()).rev() {
        let j = g.below(i + 1);
        ids.swap(i, j);
    }
    ids
}

/// Image ids for one file: the split's in some order, or any number of any of [`IDS`].
fn file_ids(g: &mut Gen) -> Vec<i64> {
    if g.one_in(2) {
        shuffled(g)
    } else {
        (0..g.len(10, 200)).map(|_| *g.pick(&IDS)).collect()
    }
}

/// The server's default parse budget (`limits.parse_words_per_image`).
const PARSE_BUDGET: ParseBudget = ParseBudget {
    words_per_image: ParseBudget::DEFAULT_WORDS_PER_IMAGE,
};

fn results_file(g: &mut Gen, input: &mut Vec<u8>) -> Result<(), String> {
    let ids = file_ids(g);
    let mut j = Json::new(g);
    if j.g.one_in(30) {
        j.value(4);
    } else {
        j.items(&ids, |j, id| {
            j.object(&["image_id", "caption"], |j, k| {
                if k == "image_id" {
                    if j.g.one_in(10) {
                        j.id(&IDS);
                    } else {
                        j.raw(&id.to_string());
                    }
                } else {
                    j.caption();
                }
            });
        });
    }
    *input = j.finish();
    crate::parsing_starts(input);
    let split: HashSet<i64> = SPLIT.into_iter().collect();
    let max_caption_chars = 500;
    let bounds = Bounds {
        split_name: "val",
        split_images: &split,
        max_bytes: 1 << 20,
        max_caption_chars,
        refuse_empty_captions: true,
        parse_budget: Some(PARSE_BUDGET),
    };
    match ResultsFile::parse(input, bounds) {
        Ok(file) => {
            let c = file.candidates();
            let got: Vec<i64> = c.iter().map(|c| c.image_id).collect();
            require(got == SPLIT, || format!("accepted with images {got:?}"))?;
            let distinct: HashSet<&str> = c.iter().map(|c| c.caption.as_str()).collect();
            let work: u64 = distinct.iter().map(|c| ParseBudget::caption_work(c)).sum();
            let budget = PARSE_BUDGET.limit(c.len());
            require(work <= budget, || {
                format!("accepted captions whose parsing work {work} passes {budget}")
            })?;
            for c in c {
                require(
                    c.caption.chars().count() <= max_caption_chars
                        && !c
                            .caption
                            .chars()
                            .any(|ch| ch.is_control() && !matches!(ch, '\t' | '\n' | '\r')),
                    || format!("accepted a caption it should refuse: {:?}", c.caption),
                )?;
            }
            Ok(())
        }
        Err(UploadError::File(ResultFileError::MalformedJson(m))) => names_line(&m),
        Err(UploadError::File(ResultFileError::Entries(problems))) => {
            require(!problems.is_empty(), || "no problem named".into())?;
            for p in problems {
                let m = p.to_string();
                require(m.contains(": ") && !m.ends_with(": "), || {
                    format!("a problem without its entries: {m}")
                })?;
            }
            Ok(())
        }
        Err(UploadError::TooMuchParsing(m)) => require(m.contains("the costliest: image "), || {
            format!("a parse budget refusal without its captions: {m}")
        }),
        Err(UploadError::File(_) | UploadError::TooLarge { .. }) => Ok(()),
    }
}

fn references(g: &mut Gen, input: &mut Vec<u8>) -> Result<(), String> {
    let ids = file_ids(g);
    let coco = g.one_in(2);
    let mut j = Json::new(g);
    if j.g.one_in(30) {
        j.value(4);
    } else if coco {
        j.object(&["images", "annotations", "info"], |j, k| match k {
            "images" => {
                j.array(2, |j, _| {
                    j.object(&["id", "file_name"], |j, k| {
                        if k == "id" {
                            j.id(&IDS);
                        } else {
                            j.string("COCO_val2014_000000000042.jpg");
                        }
                    });
                });
            }
            "annotations" => {
                j.items(&ids, |j, id| {
                    j.object(&["image_id", "id", "caption"], |j, k| match k {
                        "image_id" if j.g.one_in(10) => {
                            j.id(&IDS);
                        }
                        "image_id" | "id" => {
                            j.raw(&id.to_string());
                        }
                        _ => {
                            j.caption();
                        }
                    });
                });
            }
            _ => {
                j.value(3);
            }
        });
    } else {
        j.items(&ids, |j, id| jar_item(j, id, 10));
    }
    *input = j.finish();
    crate::parsing_starts(input);
    match ReferenceSet::parse(input) {
        Ok(set) => {
            require(!set.images.is_empty(), || "accepted with no image".into())?;
            require(
                set.images.windows(2).all(|w| w[0].image_id < w[1].image_id),
                || "images out of id order, or repeated".into(),
            )?;
            for img in &set.images {
                require(!img.captions.is_empty(), || {
                    format!("image {} accepted without captions", img.image_id)
                })?;
                for c in &img.captions {
                    // PostgreSQL cannot store NUL in text: the import would fail on insert.
                    require(!c.contains('\0'), || {
                        format!("image {}: accepted a caption holding NUL", img.image_id)
                    })?;
                    require(
                        c.chars().count() <= spiceboard::domain::references::MAX_REFERENCE_CHARS,
                        || format!("image {}: accepted a caption too long", img.image_id),
                    )?;
                }
            }
            Ok(())
        }
        Err(ReferenceError::MalformedJson(m)) => names_line(&m),
        Err(ReferenceError::UnknownFormat(m)) => {
            if m.starts_with("the top level") {
                Ok(())
            } else {
                names_line(&m)
            }
        }
        Err(ReferenceError::BadEntry(m)) => require(
            m.starts_with("annotations[") || m.starts_with("item "),
            || format!("an entry's error without its place: {m}"),
        ),
        Err(ReferenceError::Empty) => Ok(()),
    }
}

fn judgments(g: &mut Gen, input: &mut Vec<u8>) -> Result<(), String> {
    let mut j = Json::new(g);
    for _ in 0..j.g.len(8, 200) {
        if j.g.one_in(2) {
            j.object(&["image_id", "caption", "ratings"], |j, k| match k {
                "image_id" => {
                    j.id(&IDS);
                }
                "caption" => {
                    j.caption();
                }
                _ => {
                    j.array(1, |j, _| {
                        j.number();
                    });
                }
            });
        } else {
            j.object(&["submission_id", "team", "rating"], |j, k| match k {
                "submission_id" => {
                    j.id(&[10, 11, 12, 13]);
                }
                "team" => {
                    let t = *j.g.pick(&["alpha", "Alpha", "b\u{e9}ta", "twin", ""]);
                    j.string(t);
                }
                _ => {
                    j.number();
                }
            });
        }
        let nl = *j.g.pick(&["\n", "\n", "\r\n", "\n\n", " \n"]);
        j.raw(nl);
    }
    *input = j.finish();
    crate::parsing_starts(input);
    let split: HashSet<i64> = SPLIT.into_iter().collect();
    let entries: Vec<(i64, String)> = vec![
        (10, "alpha".into()),
        (11, "b\u{e9}ta".into()),
        (12, "twin".into()),
        (13, "twin".into()),
    ];
    let max_caption_chars = 500;
    let bounds = JudgmentBounds {
        split_name: "val",
        split_images: &split,
        entries: &entries,
        max_bytes: 1 << 20,
        max_caption_chars,
    };
    match JudgmentsFile::parse(input, bounds) {
        Ok(file) => {
            require(
                !file.captions.is_empty() || !file.entries.is_empty(),
                || "accepted with no judgment".into(),
            )?;
            for c in &file.captions {
                require(split.contains(&c.image_id), || {
                    format!("line {}: accepted image {}", c.line, c.image_id)
                })?;
                require(
                    !c.caption.contains('\0')
                        && c.caption.chars().count() <= max_caption_chars
                        && !c.ratings.is_empty()
                        && c.ratings.iter().all(|r| r.is_finite()),
                    || format!("line {}: accepted {c:?}", c.line),
                )?;
            }
            for e in &file.entries {
                require(
                    [10, 11, 12, 13].contains(&e.submission_id) && e.rating.is_finite(),
                    || format!("line {}: accepted {e:?}", e.line),
                )?;
            }
            Ok(())
        }
        Err(JudgmentsError::Lines(lines)) => require(lines.iter().all(|l| !l.is_empty()), || {
            "an empty problem".into()
        }),
        Err(_) => Ok(()),
    }
}

/// One item of the jar's input (`image_id`, `test`, `refs`): its image id is `id`, or one time
/// in `odd_id` one of [`IDS`].
fn jar_item(j: &mut Json<'_>, id: i64, odd_id: usize) {
    j.object(&["image_id", "test", "refs"], |j, k| match k {
        "image_id" => {
            if j.g.one_in(odd_id) {
                j.id(&IDS);
            } else {
                j.raw(&id.to_string());
            }
        }
        "test" => {
            j.caption();
        }
        _ => {
            j.array(2, |j, _| {
                j.caption();
            });
        }
    });
}

fn jar_input(g: &mut Gen, input: &mut Vec<u8>) -> Result<(), String> {
    let ids = file_ids(g);
    let mut j = Json::new(g);
    if j.g.one_in(30) {
        j.value(4);
    } else {
        j.items(&ids, |j, id| {
            jar_item(j, id, 4);
        });
    }
    *input = j.finish();
    crate::parsing_starts(input);
    match spice::batch::read_input(&input[..], "in.json") {
        Ok(read) => {
            for item in &read.items {
                require(
                    item.image_id.is_string() || item.image_id.is_number(),
                    || format!("accepted image_id {}", item.image_id),
                )?;
            }
            Ok(())
        }
        Err(spice::batch::InputError::Json { source, .. }) => require(source.line() > 0, || {
            format!("a JSON error at line 0: {source}")
        }),
        Err(e @ spice::batch::InputError::Item { .. }) => {
            require(e.to_string().starts_with("in.json: item "), || {
                format!("an item's error without its place: {e}")
            })
        }
        // Whole-file refusals: nothing to place.
        Err(
            spice::batch::InputError::Empty { .. } | spice::batch::InputError::ByteOrderMark { .. },
        ) => Ok(()),
        Err(e) => Err(format!("an unexpected error: {e}")),
    }
}

fn coco_annotations(g: &mut Gen, input: &mut Vec<u8>) -> Result<(), String> {
    let ids = file_ids(g);
    let mut j = Json::new(g);
    j.object(
        &["info", "images", "annotations", "licenses"],
        |j, k| match k {
            "images" => {
                j.items(&ids, |j, id| {
                    j.object(&["id", "width", "coco_url"], |j, k| match k {
                        "id" => {
                            j.id(&[id]);
                        }
                        "width" => {
                            j.number();
                        }
                        _ => {
                            j.string("http://images.cocodataset.org/val2014/x.jpg");
                        }
                    });
                });
            }
            "annotations" => {
                j.array(2, |j, _| {
                    j.object(&["image_id", "id", "caption"], |j, k| match k {
                        "caption" => {
                            j.caption();
                        }
                        _ => {
                            j.id(&IDS);
                        }
                    });
                });
            }
            _ => {
                j.value(3);
            }
        },
    );
    *input = j.finish();
    crate::parsing_starts(input);
    coco_error(spice::cocoeval::Annotations::from_json_slice(input, "ann.json").map(|_| ()))
}

fn coco_error(r: Result<(), spice::cocoeval::CocoEvalError>) -> Result<(), String> {
    use spice::cocoeval::CocoEvalError;
    match r {
        Ok(()) => Ok(()),
        Err(CocoEvalError::Json { source, .. }) => require(source.line() > 0, || {
            format!("a JSON error at line 0: {source}")
        }),
        Err(CocoEvalError::Field { location, .. }) => require(!location.is_empty(), || {
            "a field's error without its place".into()
        }),
        Err(CocoEvalError::ResultFile { error, .. }) => match error {
            spice::cocoeval::ResultFileError::MalformedJson(m) => names_line(&m),
            _ => Ok(()),
        },
        Err(e) => Err(format!("an unexpected error: {e}")),
    }
}

fn coco_results(g: &mut Gen, input: &mut Vec<u8>) -> Result<(), String> {
    let ids = file_ids(g);
    let mut j = Json::new(g);
    j.items(&ids, |j, id| {
        j.object(&["image_id", "caption"], |j, k| {
            if k == "image_id" {
                j.id(&[id]);
            } else {
                j.caption();
            }
        });
    });
    *input = j.finish();
    crate::parsing_starts(input);
    coco_error(spice::cocoeval::read_results(input, "res.json").map(|_| ()))
}

fn meta_judgments(g: &mut Gen, input: &mut Vec<u8>) -> Result<(), String> {
    let mut j = Json::new(g);
    for _ in 0..j.g.len(8, 200) {
        j.object(
            &["candidate", "references", "ratings", "system"],
            |j, k| match k {
                "candidate" => {
                    j.caption();
                }
                "references" => {
                    j.array(1, |j, _| {
                        j.caption();
                    });
                }
                "ratings" => {
                    j.array(1, |j, _| {
                        j.number();
                    });
                }
                _ => {
                    j.id(&[1, 2]);
                }
            },
        );
        let nl = *j.g.pick(&["\n", "\r\n", "\n\n"]);
        j.raw(nl);
    }
    *input = j.finish();
    crate::parsing_starts(input);
    // The command reads the file as UTF-8 text first.
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(());
    };
    match spice::metaeval::read_judgments(text, "j.jsonl") {
        Ok(judgments) => {
            for jd in judgments {
                require(!jd.references.is_empty() && !jd.ratings.is_empty(), || {
                    format!("accepted {jd:?}")
                })?;
            }
            Ok(())
        }
        Err(spice::metaeval::MetaEvalError::Line { line, .. }) => {
            require(line > 0, || "an error at line 0".into())
        }
        Err(_) => Ok(()),
    }
}

/// Line breaks that end a line for `tokenize_lines`.
fn breaks_line(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{2028}' | '\u{2029}' | '\u{85}' | '\u{B}' | '\u{C}'
    )
}

fn tokenizer(g: &mut Gen, input: &mut Vec<u8>) -> Result<(), String> {
    use spice::tokenize;
    let captions: Vec<String> = (0..1 + g.below(4)).map(|_| caption(g)).collect();
    *input = captions.join("\n").into_bytes();
    crate::parsing_starts(input);
    for c in &captions {
        let tokens = tokenize::tokenize(c);
        let mut last = 0;
        for t in &tokens {
            require(
                t.start <= t.end
                    && t.end <= c.len()
                    && c.is_char_boundary(t.start)
                    && c.is_char_boundary(t.end)
                    && t.start >= last,
                || format!("token {t:?} out of place in {} bytes", c.len()),
            )?;
            require(!t.text.is_empty(), || {
                format!("an empty token at {}", t.start)
            })?;
            last = t.start;
        }
        let coco = tokenize::tokenize_coco(c);
        require(!coco.contains('\n'), || format!("a line break in {coco:?}"))?;
    }
    let batch = tokenize::tokenize_batch(&captions);
    require(batch.len() == captions.len(), || {
        format!(
            "{} token lists for {} captions",
            batch.len(),
            captions.len()
        )
    })?;
    let coco = tokenize::tokenize_coco_batch(&captions);
    require(coco.len() == captions.len(), || {
        format!("{} COCO forms for {} captions", coco.len(), captions.len())
    })?;
    if !captions.iter().any(|c| c.chars().any(breaks_line)) {
        let lines = tokenize::tokenize_lines(&captions.join("\n"));
        require(lines == batch, || {
            "a batch tokenized otherwise than its lines".into()
        })?;
    }
    Ok(())
}

/// The `engine` target's input: an image's references, a candidate (one time in four its first
/// reference), the caption mode. Public so that an input can be made again outside the runner
/// (`examples/engine_case.rs`).
pub struct EngineCase {
    pub references: Vec<String>,
    pub candidate: String,
    pub same: bool,
    pub mode: CaptionMode,
}

/// The longest candidate caption the server takes: its default `limits.max_caption_chars`.
const CANDIDATE_CHARS: usize = 1_000;

/// `s` cut to its first `n` characters.
fn at_most(mut s: String, n: usize) -> String {
    if let Some((at, _)) = s.char_indices().nth(n) {
        s.truncate(at);
    }
    s
}

impl EngineCase {
    /// References and a candidate as the server can be given them: captions longer than it
    /// takes (a reference of [`spiceboard::domain::references::MAX_REFERENCE_CHARS`], a
    /// candidate of [`CANDIDATE_CHARS`]) cut to that length, so the longest ones are tried.
    pub fn new(g: &mut Gen) -> EngineCase {
        use spiceboard::domain::references::MAX_REFERENCE_CHARS;
        let mut references: Vec<String> = (0..1 + g.below(2))
            .map(|_| at_most(caption(g), MAX_REFERENCE_CHARS))
            .collect();
        let same = g.one_in(4);
        let candidate = if same {
            references[0] = at_most(std::mem::take(&mut references[0]), CANDIDATE_CHARS);
            references[0].clone()
        } else {
            at_most(caption(g), CANDIDATE_CHARS)
        };
        let mode = if g.one_in(2) {
            CaptionMode::Coco
        } else {
            CaptionMode::Raw
        };
        EngineCase {
            references,
            candidate,
            same,
            mode,
        }
    }
}

fn engine(g: &mut Gen, input: &mut Vec<u8>) -> Result<(), String> {
    use spiceboard::scoring;
    use spiceboard::storage::splits::StoredReference;
    let EngineCase {
        references: refs,
        candidate,
        same,
        mode,
    } = EngineCase::new(g);
    *input = format!("{mode:?}\n{candidate}\n{}", refs.join("\n")).into_bytes();
    let engine = scoring::new_engine();
    // What the engine loads once (models; the UD converter's head finder, on the first sentence
    // too long to parse) is loaded before the first input is measured.
    static LOADED: std::sync::Once = std::sync::Once::new();
    LOADED.call_once(|| {
        let long = "a ".repeat(spice::corenlp::MAX_PARSED_WORDS + 1);
        let _ = engine.scene_graph(&["A dog runs on the grass.", "a dog runs on the grass", &long]);
    });
    crate::parsing_starts(input);
    let images = [ReferenceImage {
        image_id: 1,
        captions: refs.clone(),
    }];
    let (mut stored, _) = scoring::reference_graphs(&engine, &images, mode);
    let new = stored.pop().ok_or("no reference graph")?;
    require(new.parse_error.is_none(), || {
        format!("the references did not parse: {:?}", new.parse_error)
    })?;
    let stored = [StoredReference {
        image_id: 1,
        captions: new.captions,
        scene_graph: new.scene_graph,
    }];
    let df = scoring::cider_df(&[refs.as_slice()]);
    let candidates = [Candidate {
        image_id: 1,
        caption: candidate,
    }];
    let result = scoring::score_submission(
        &engine,
        &stored,
        &candidates,
        mode,
        &df,
        &scoring::Progress::default(),
    )
    .map_err(|e| format!("scoring failed: {e}"))?;
    let image = result.images.first().ok_or("no image scored")?;
    let all = image
        .categories
        .iter()
        .find(|c| c.category == "all")
        .ok_or("no \"all\" score")?;
    require(all.tp >= 0 && all.fp >= 0, || {
        format!("negative counts: {all:?}")
    })?;
    // A candidate that is its image's only reference, parsed as written, matches itself.
    if same && refs.len() == 1 && mode == CaptionMode::Raw && all.tp + all.fp > 0 {
        require(all.f == Some(1.0), || format!("itself scores {all:?}"))?;
    }
    Ok(())
}

/// The multipart target's limits: small, so that every cut is reached.
const FILE_LIMIT: u64 = 4096;
const BODY_LIMIT: u64 = 16 * 1024;

/// The memory share the `multipart` target hands the reader: what it was asked to cover, and
/// whether it was ever asked for less than before.
#[derive(Default)]
struct Covered {
    bytes: u64,
    shrank: bool,
}

impl spiceboard::routes::multipart::FileShare for Covered {
    async fn cover(&mut self, bytes: u64) -> Result<(), String> {
        self.shrank |= bytes < self.bytes;
        self.bytes = self.bytes.max(bytes);
        Ok(())
    }
}

fn multipart(g: &mut Gen, input: &mut Vec<u8>) -> Result<(), String> {
    use spiceboard::routes::multipart::{self, Form, FormError, Limits, ReadError};
    let boundary = *g.pick(&[
        "B",
        "B",
        "----WebKitFormBoundary7MA4YWxkTrZu0gW",
        "0123456789012345678901234567890123456789012345678901234567890123456789",
        "a b",
        "\u{e9}",
        "",
        "--",
    ]);
    let quoted = format!("multipart/form-data; boundary=\"{boundary}\"");
    let plain = format!("multipart/form-data; boundary={boundary}");
    let content_type = match g.below(12) {
        0 => "text/plain".to_string(),
        1 => "multipart/form-data".to_string(),
        2 => quoted.clone(),
        3 => format!("multipart/form-data; boundary={boundary}; boundary=C"),
        4 => format!("multipart/mixed;boundary={boundary}"),
        _ => plain.clone(),
    };
    let eol = if g.one_in(10) { "\n" } else { "\r\n" };
    let mut body = Vec::new();
    let mut expected: HashMap<String, Vec<u8>> = HashMap::new();
    let mut valid = !boundary.is_empty() && !boundary.contains(' ') && boundary != "\u{e9}";
    if g.one_in(10) {
        body.extend_from_slice(b"This is the preamble.\r\n");
    }
    let delimiter = format!("--{boundary}");
    let parts = g.len(3, 20);
    valid &= parts > 0;
    for _ in 0..parts {
        let name = *g.pick(&[
            "csrf_token",
            "split",
            "notes",
            "file",
            "",
            "fi\"le",
            "\u{e9}",
        ]);
        let content: Vec<u8> = match g.below(4) {
            0 => b"AbCdEf0123456789".to_vec(),
            1 => caption(g).into_bytes(),
            2 => {
                let mut j = Json::new(g);
                jar_item(&mut j, 1, 4);
                j.finish()
            }
            _ => vec![b'x'; g.len(100, 8192)],
        };
        body.extend_from_slice(delimiter.as_bytes());
        body.extend_from_slice(eol.as_bytes());
        let filename = if name == "file" || g.one_in(10) {
            "; filename=\"results.json\""
        } else {
            ""
        };
        body.extend_from_slice(
            format!("Content-Disposition: form-data; name=\"{name}\"{filename}{eol}").as_bytes(),
        );
        if g.one_in(4) {
            body.extend_from_slice(format!("Content-Type: application/json{eol}").as_bytes());
        }
        if g.one_in(20) {
            let junk = *g.pick(&["X-Junk", "No colon here", "Content-Disposition: attachment"]);
            body.extend_from_slice(format!("{junk}{eol}").as_bytes());
            valid = false;
        }
        body.extend_from_slice(eol.as_bytes());
        body.extend_from_slice(&content);
        body.extend_from_slice(eol.as_bytes());
        if name.is_empty()
            || !name.is_ascii()
            || name.contains('"')
            || expected.contains_key(name)
            || content
                .windows(delimiter.len())
                .any(|w| w == delimiter.as_bytes())
        {
            valid = false;
        }
        expected.insert(name.to_string(), content);
    }
    body.extend_from_slice(format!("{delimiter}--{eol}").as_bytes());
    let damaged = damage(g, body.clone());
    valid &= damaged == body && eol == "\r\n" && (content_type == plain || content_type == quoted);
    let body = damaged;
    let mut chunks = Vec::new();
    let mut at = 0;
    while at < body.len() {
        let n = match g.below(4) {
            0 => 0,
            1 => 1 + g.below(8),
            2 => 1 + g.below(1024),
            _ => 1 + g.below(64 * 1024),
        };
        let end = (at + n).min(body.len());
        chunks.push(actix_web::web::Bytes::copy_from_slice(&body[at..end]));
        at = end;
    }
    let declared = g.one_in(4).then(|| body.len() + g.below(3) - 1);
    *input = format!("Content-Type: {content_type}\r\n\r\n").into_bytes();
    input.extend_from_slice(&body);
    crate::parsing_starts(input);

    let Ok(header) = actix_web::http::header::HeaderValue::from_str(&content_type) else {
        return Ok(());
    };
    let mut req = actix_web::test::TestRequest::default()
        .insert_header((actix_web::http::header::CONTENT_TYPE, header));
    if let Some(n) = declared {
        req = req.insert_header((actix_web::http::header::CONTENT_LENGTH, n.to_string()));
    }
    let req = req.to_http_request();
    let stream = futures_util::stream::iter(chunks.into_iter().map(Ok));
    let stream: std::pin::Pin<Box<dyn futures_util::Stream<Item = _>>> = Box::pin(stream);
    let payload = actix_web::dev::Payload::from(stream);
    let limits = Limits {
        file: FILE_LIMIT,
        body: BODY_LIMIT,
    };
    let gate_calls = std::cell::Cell::new(0);
    let mut share = Covered::default();
    let read = RUNTIME.with(|rt| {
        rt.block_on(multipart::read(
            &req,
            payload,
            limits,
            |_| {
                gate_calls.set(gate_calls.get() + 1);
                Ok::<(), ()>(())
            },
            &mut share,
        ))
    });
    require(!share.shrank, || {
        "the file's share was asked to shrink".into()
    })?;
    let form: Form = match read {
        Ok(form) => form,
        Err(ReadError::Gate(())) => return Err("the gate let everything through".into()),
        Err(ReadError::Form(e)) => {
            require(!e.to_string().is_empty(), || "an empty error".into())?;
            let over =
                body.len() as u64 > BODY_LIMIT || declared.is_some_and(|n| n as u64 > BODY_LIMIT);
            let too_many = expected.len() > multipart::MAX_FIELDS;
            return require(!valid || over || too_many, || {
                format!("a valid form of {} bytes refused: {e}", body.len())
            })
            .and(require(
                !matches!(e, FormError::BodyTooLarge(_)) || over,
                || format!("{} bytes called too large", body.len()),
            ));
        }
    };
    require(gate_calls.get() == 1, || {
        format!("the gate ran {} times", gate_calls.get())
    })?;
    require(
        form.file
            .as_ref()
            .is_none_or(|f| f.len() as u64 <= share.bytes),
        || {
            format!(
                "a file of {} bytes kept with {} covered",
                form.file.as_ref().map_or(0, Vec::len),
                share.bytes
            )
        },
    )?;
    require(
        form.file
            .as_ref()
            .is_none_or(|f| f.len() as u64 <= FILE_LIMIT)
            && form.file_too_large.is_none_or(|n| n > FILE_LIMIT)
            && form.fields.len() <= multipart::MAX_FIELDS
            && form.fields.values().map(String::len).sum::<usize>()
                <= 3 * multipart::MAX_TEXT_BYTES,
        || "a form read beyond its limits".into(),
    )?;
    if valid && declared.is_none_or(|n| n == body.len()) {
        for (name, content) in &expected {
            if name == "file" {
                let ok = if content.len() as u64 > FILE_LIMIT {
                    form.file_too_large == Some(content.len() as u64)
                } else {
                    form.file.as_ref() == Some(content)
                };
                require(ok, || {
                    format!("the file ({} bytes) read otherwise", content.len())
                })?;
            } else {
                require(form.field(name) == String::from_utf8_lossy(content), || {
                    format!("field {name:?} read otherwise")
                })?;
            }
        }
    }
    Ok(())
}

thread_local! {
    static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a current-thread runtime");
}
