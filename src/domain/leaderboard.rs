//! Ranking a leaderboard: sort by one column (descending, missing values last) and give equal
//! values equal ranks ("1, 2, 2, 4", standard competition ranking). Baseline and Human rows are
//! ranked among the teams so that a reader sees where they fall, and marked by their kind. Only
//! entries scored by the same front end are ranked together ([`rank_by_front_end`]).

use crate::storage::leaderboard::Entry;

/// A sortable column; the names are the `sort=` values and the CSV/JSON column names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    Spice,
    Object,
    Relation,
    Attribute,
    Color,
    Count,
    Size,
    Bleu4,
    Meteor,
    RougeL,
    CiderD,
}

impl SortKey {
    pub const ALL: [SortKey; 11] = [
        SortKey::Spice,
        SortKey::Object,
        SortKey::Relation,
        SortKey::Attribute,
        SortKey::Color,
        SortKey::Count,
        SortKey::Size,
        SortKey::Bleu4,
        SortKey::Meteor,
        SortKey::RougeL,
        SortKey::CiderD,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SortKey::Spice => "spice",
            SortKey::Object => "object",
            SortKey::Relation => "relation",
            SortKey::Attribute => "attribute",
            SortKey::Color => "color",
            SortKey::Count => "count",
            SortKey::Size => "size",
            SortKey::Bleu4 => "bleu_4",
            SortKey::Meteor => "meteor",
            SortKey::RougeL => "rouge_l",
            SortKey::CiderD => "cider_d",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            SortKey::Spice => "SPICE",
            SortKey::Object => "Object",
            SortKey::Relation => "Relation",
            SortKey::Attribute => "Attribute",
            SortKey::Color => "Color",
            SortKey::Count => "Count",
            SortKey::Size => "Size",
            SortKey::Bleu4 => "BLEU-4",
            SortKey::Meteor => "METEOR",
            SortKey::RougeL => "ROUGE-L",
            SortKey::CiderD => "CIDEr-D",
        }
    }

    /// The column's short header on the leaderboard page, where eleven score columns share a
    /// laptop's width; the full [`SortKey::title`] goes in its tooltip and in the key under the
    /// table. No header is wider than the numbers under it ("0.123").
    pub fn short_title(self) -> &'static str {
        match self {
            SortKey::Spice => "SPICE",
            SortKey::Object => "Obj.",
            SortKey::Relation => "Rel.",
            SortKey::Attribute => "Attr.",
            SortKey::Color => "Col.",
            SortKey::Count => "Cnt.",
            SortKey::Size => "Size",
            SortKey::Bleu4 => "B-4",
            SortKey::Meteor => "MET.",
            SortKey::RougeL => "R-L",
            SortKey::CiderD => "C-D",
        }
    }

    /// Is this one of SPICE's categories (F over scene-graph tuples), rather than a classic metric?
    pub fn is_spice(self) -> bool {
        self.spice_index().is_some()
    }

    /// The place of a SPICE category among the seven (`spice`, `object`, ..., `size`: the order
    /// of `storage::Scores` and of `Entry::tp`); None for a classic metric.
    pub fn spice_index(self) -> Option<usize> {
        SortKey::ALL[..7].iter().position(|k| *k == self)
    }

    /// The title of a classic metric under pycocoevalcap's key (`Bleu_4`, `ROUGE_L`, `CIDEr`), so
    /// that every page names a metric the way the leaderboard's column does ("BLEU-4", "CIDEr-D").
    pub fn classic_title(key: &str) -> String {
        match key {
            "METEOR" => SortKey::Meteor.title().to_string(),
            "ROUGE_L" => SortKey::RougeL.title().to_string(),
            "CIDEr" => SortKey::CiderD.title().to_string(),
            "SPICE" => SortKey::Spice.title().to_string(),
            k => match k.strip_prefix("Bleu_") {
                Some(n) => format!("BLEU-{n}"),
                None => k.to_string(),
            },
        }
    }

    /// The column a `sort=` value names; none or an empty one is SPICE, an unknown one an error
    /// that lists the valid names (a silently ignored typo would rank by the wrong column).
    pub fn parse(s: Option<&str>) -> Result<SortKey, UnknownSortKey> {
        match s {
            None | Some("") => Ok(SortKey::Spice),
            Some(s) => SortKey::ALL
                .into_iter()
                .find(|k| k.name() == s)
                .ok_or_else(|| UnknownSortKey(s.to_string())),
        }
    }

    /// [`SortKey::parse`] with another default: the challenge's ranking column when the page
    /// names none.
    pub fn parse_or(s: Option<&str>, default: SortKey) -> Result<SortKey, UnknownSortKey> {
        match s {
            None | Some("") => Ok(default),
            s => SortKey::parse(s),
        }
    }

    pub fn value(self, e: &Entry) -> Option<f64> {
        match self {
            SortKey::Spice => e.scores.spice,
            SortKey::Object => e.scores.object,
            SortKey::Relation => e.scores.relation,
            SortKey::Attribute => e.scores.attribute,
            SortKey::Color => e.scores.color,
            SortKey::Count => e.scores.count,
            SortKey::Size => e.scores.size,
            SortKey::Bleu4 => e.scores.bleu_4,
            SortKey::Meteor => e.scores.meteor,
            SortKey::RougeL => e.scores.rouge_l,
            SortKey::CiderD => e.scores.cider_d,
        }
    }
}

/// A `sort=` value that names no column.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown sort key {0:?}; valid keys: {keys}", keys = SortKey::ALL.map(SortKey::name).join(", "))]
pub struct UnknownSortKey(pub String);

text_enum! {
    /// Which of a team's scored submissions a challenge's leaderboards show (per challenge, set
    /// by the organizers).
    pub enum EntryPolicy {
        /// The highest score in the challenge's ranking column (SPICE by default); a worse later
        /// upload never replaces it.
        Best => "best",
        /// The most recent.
        Latest => "latest",
        /// The one the team chose ("Show this entry on the leaderboard"); the best until it chooses.
        Chosen => "chosen",
    }
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct RankedEntry {
    /// None for an entry scored by another front end than the split's, which is listed but not
    /// ranked ([`rank_by_front_end`]).
    pub rank: Option<usize>,
    #[serde(flatten)]
    pub entry: Entry,
}

/// Sorts by `key` (best first, missing last; then by name, then submission id, for a stable
/// order) and ranks ties alike.
pub fn rank(mut entries: Vec<Entry>, key: SortKey) -> Vec<RankedEntry> {
    entries.sort_by(|a, b| {
        let (va, vb) = (key.value(a), key.value(b));
        match (va, vb) {
            (Some(x), Some(y)) => y.total_cmp(&x),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        }
        .then_with(|| a.name.cmp(&b.name))
        .then_with(|| a.submission_id.cmp(&b.submission_id))
    });
    let mut ranked: Vec<RankedEntry> = Vec::with_capacity(entries.len());
    for (i, entry) in entries.into_iter().enumerate() {
        let rank = match ranked.last() {
            Some(prev) if key.value(&prev.entry) == key.value(&entry) => prev.rank,
            _ => Some(i + 1),
        };
        ranked.push(RankedEntry { rank, entry });
    }
    ranked
}

/// A split's leaderboard: the entries scored by `front_end` (the split's, which built its
/// reference graphs) ranked by `key` ([`rank`]), then the entries scored by any other front end,
/// unranked (`rank` None), grouped by front end and sorted by the same column. Scores of two
/// front ends are not comparable (the built-in parser reads about 5 % above the official
/// SPICE), so they are never ranked together; they are listed, marked, until a re-score moves
/// them to the split's front end (`challenge rescore`).
pub fn rank_by_front_end(entries: Vec<Entry>, key: SortKey, front_end: &str) -> Vec<RankedEntry> {
    let mut groups: std::collections::BTreeMap<String, Vec<Entry>> = Default::default();
    let mut same = Vec::new();
    for e in entries {
        if e.front_end == front_end {
            same.push(e);
        } else {
            groups.entry(e.front_end.clone()).or_default().push(e);
        }
    }
    let mut out = rank(same, key);
    for (_, others) in groups {
        out.extend(
            rank(others, key)
                .into_iter()
                .map(|r| RankedEntry { rank: None, ..r }),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: i64, name: &str, spice: Option<f64>, object: Option<f64>) -> Entry {
        Entry {
            submission_id: id,
            kind: crate::domain::SubmissionKind::Team,
            team_id: Some(id),
            name: name.into(),
            description: String::new(),
            scored_at: None,
            entries: 1,
            front_end: "built-in".into(),
            method_name: None,
            paper_url: None,
            code_url: None,
            scores: crate::storage::Scores {
                spice,
                object,
                ..Default::default()
            },
            tp: vec![],
            fp: vec![],
        }
    }

    #[test]
    fn ties_share_a_rank_and_the_next_rank_skips() {
        let ranked = rank(
            vec![
                entry(1, "c", Some(0.1), None),
                entry(2, "a", Some(0.2), None),
                entry(3, "b", Some(0.2), None),
                entry(4, "d", None, None),
            ],
            SortKey::Spice,
        );
        let got: Vec<(Option<usize>, &str)> = ranked
            .iter()
            .map(|r| (r.rank, r.entry.name.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (Some(1), "a"),
                (Some(1), "b"),
                (Some(3), "c"),
                (Some(4), "d")
            ]
        );
    }

    #[test]
    fn entries_of_another_front_end_are_listed_after_the_ranked_ones_unranked() {
        let exact = |id, name: &str, spice| Entry {
            front_end: "corenlp-3.6.0".into(),
            ..entry(id, name, Some(spice), None)
        };
        // The built-in parser's higher scores do not outrank the exact pipeline's.
        let ranked = rank_by_front_end(
            vec![
                entry(1, "old", Some(0.30), None),
                exact(2, "b", 0.20),
                exact(3, "a", 0.25),
                entry(4, "older", Some(0.35), None),
            ],
            SortKey::Spice,
            "corenlp-3.6.0",
        );
        let got: Vec<(Option<usize>, &str)> = ranked
            .iter()
            .map(|r| (r.rank, r.entry.name.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (Some(1), "a"),
                (Some(2), "b"),
                (None, "older"),
                (None, "old")
            ]
        );
    }

    #[test]
    fn any_column_can_rank() {
        let ranked = rank(
            vec![
                entry(1, "x", Some(0.3), Some(0.1)),
                entry(2, "y", Some(0.2), Some(0.5)),
            ],
            SortKey::parse(Some("object")).expect("a column"),
        );
        assert_eq!(ranked[0].entry.name, "y");
        assert_eq!(SortKey::parse(None), Ok(SortKey::Spice));
        assert_eq!(SortKey::parse(Some("")), Ok(SortKey::Spice));
        let e = SortKey::parse(Some("bogus")).expect_err("no such column");
        assert_eq!(
            e.to_string(),
            "unknown sort key \"bogus\"; valid keys: spice, object, relation, attribute, color, \
             count, size, bleu_4, meteor, rouge_l, cider_d"
        );
    }
}
