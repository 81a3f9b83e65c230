//! Validated values ("parse, don't validate"): once built, a value of these types is known good,
//! so the code that receives one needs no further checks.

/// A closed set of words that the database keeps in a TEXT column (the schema's CHECK constraints
/// list the same words). The column stays plain text; in Rust it is an enum, so a typo is a compile
/// error and a word the code does not know fails the read instead of passing on as a string.
macro_rules! text_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident => $text:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The word stored in the database and shown to people.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            pub fn parse(s: &str) -> Option<$name> {
                match s {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl sqlx::Type<sqlx::Postgres> for $name {
            fn type_info() -> sqlx::postgres::PgTypeInfo {
                <str as sqlx::Type<sqlx::Postgres>>::type_info()
            }

            fn compatible(ty: &sqlx::postgres::PgTypeInfo) -> bool {
                <str as sqlx::Type<sqlx::Postgres>>::compatible(ty)
            }
        }

        impl<'q> sqlx::Encode<'q, sqlx::Postgres> for $name {
            fn encode_by_ref(
                &self,
                buf: &mut sqlx::postgres::PgArgumentBuffer,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                <&str as sqlx::Encode<'q, sqlx::Postgres>>::encode(self.as_str(), buf)
            }
        }

        impl<'r> sqlx::Decode<'r, sqlx::Postgres> for $name {
            fn decode(
                value: sqlx::postgres::PgValueRef<'r>,
            ) -> Result<Self, sqlx::error::BoxDynError> {
                let s = <&'r str as sqlx::Decode<'r, sqlx::Postgres>>::decode(value)?;
                $name::parse(s)
                    .ok_or_else(|| format!("unknown {} {s:?}", stringify!($name)).into())
            }
        }
    };
}

mod job;
pub mod judgments;
pub mod leaderboard;
mod method;
mod names;
pub mod phase;
pub mod references;
pub mod results_file;
mod submission;
pub mod uncertainty;

pub use job::{JobKind, JobState};
pub use method::{MethodError, SubmissionMethod, LINK_MAX, METHOD_NAME_MAX};
pub use names::{
    skeleton, ChallengeSlug, Description, Email, LocalPath, Password, SplitName, TeamName, Title,
};
pub use references::{ReferenceFormat, ReferenceImage, ReferenceSet};
pub use results_file::{Candidate, ResultsFile, UploadError};
pub use submission::{SubmissionKind, SubmissionStatus};

/// A size as people read it: `1000 bytes`, `1.5 KB`, `20.0 MB`.
pub fn size_text(bytes: u64) -> String {
    const KB: f64 = 1024.0;
    match bytes as f64 {
        b if b >= KB * KB => format!("{:.1} MB", b / (KB * KB)),
        b if b >= KB => format!("{:.1} KB", b / KB),
        _ => format!("{bytes} bytes"),
    }
}

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

text_enum! {
    /// How captions are prepared before parsing (per split).
    pub enum CaptionMode {
        /// pycocoevalcap's way: PTB-tokenize, lowercase, strip punctuation (COCO uploads).
        Coco => "coco",
        /// Parsed as written (references uploaded in the SPICE jar's format).
        Raw => "raw",
    }
}

impl CaptionMode {
    /// COCO annotations make a COCO-mode split; the SPICE jar's format a raw one.
    pub fn of(format: ReferenceFormat) -> CaptionMode {
        match format {
            ReferenceFormat::Coco => CaptionMode::Coco,
            ReferenceFormat::Spice => CaptionMode::Raw,
        }
    }
}
