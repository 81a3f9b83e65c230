//! Validated values ("parse, don't validate"): once built, a value of these types is known good,
//! so the code that receives one needs no further checks.

pub mod leaderboard;
mod names;
pub mod references;
pub mod results_file;

pub use names::{
    ChallengeSlug, Description, Email, LocalPath, Password, SplitName, TeamName, Title,
};
pub use references::{ReferenceFormat, ReferenceImage, ReferenceSet};
pub use results_file::{Candidate, ResultsFile, UploadError};

/// Category names as stored in the database and shown in exports, in the paper's column order.
pub const CATEGORIES: [&str; 7] = [
    "all",
    "object",
    "relation",
    "attribute",
    "color",
    "count",
    "size",
];

/// How captions are prepared before parsing (per split).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptionMode {
    /// pycocoevalcap's way: PTB-tokenize, lowercase, strip punctuation (COCO uploads).
    Coco,
    /// Parsed as written (references uploaded in the SPICE jar's format).
    Raw,
}

impl CaptionMode {
    pub fn as_str(self) -> &'static str {
        match self {
            CaptionMode::Coco => "coco",
            CaptionMode::Raw => "raw",
        }
    }

    pub fn parse(s: &str) -> Option<CaptionMode> {
        match s {
            "coco" => Some(CaptionMode::Coco),
            "raw" => Some(CaptionMode::Raw),
            _ => None,
        }
    }
}
