//! The leaderboard's one query: per split, one entry per team (which one, the challenge's entry
//! policy says: see `team_entries`) plus the baseline and Human rows, with the aggregate F of each
//! category pivoted into columns. Ranking and sorting happen in `crate::domain::leaderboard`.

use chrono::{DateTime, Utc};
use sqlx::PgExecutor;

use crate::domain::SubmissionKind;

#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize)]
pub struct Entry {
    pub submission_id: i64,
    pub kind: SubmissionKind,
    pub team_id: Option<i64>,
    pub name: String,
    pub description: String,
    pub scored_at: Option<DateTime<Utc>>,
    /// How many scored submissions the team has on this split (0 for baseline and Human rows).
    pub entries: i64,
    /// The front end that produced the scores (`built-in`, `corenlp-3.6.0`).
    pub front_end: String,
    /// The method behind the entry as its team describes it; `None` where not given.
    pub method_name: Option<String>,
    pub paper_url: Option<String>,
    pub code_url: Option<String>,
    #[sqlx(flatten)]
    #[serde(flatten)]
    pub scores: super::Scores,
    /// Per SPICE category (`spice`, `object`, ..., `size`, the order of [`super::Scores`]), the
    /// summed true and false positives: what tells a 0 where nothing matched from a 0 where the
    /// captions gave no tuple of the kind. (An undefined F, no reference tuple, is a NULL score.)
    #[sqlx(default)]
    #[serde(skip)]
    pub tp: Vec<Option<i64>>,
    #[sqlx(default)]
    #[serde(skip)]
    pub fp: Vec<Option<i64>>,
}

/// SQL selecting the `id` of the submission that stands for each team on each split's leaderboard,
/// among the submissions `filter` (a condition on `s`, the submissions) keeps. Of a team's live
/// scored submissions to a split: under the challenge's `chosen` policy the one the team chose,
/// else (and under `best`) the highest score in the challenge's ranking column (SPICE unless the
/// organizers chose another), the newest among equals; under `latest` the newest. Except for a
/// team's choice, a submission scored by the split's front end comes before one scored by
/// another (during a re-score, or after the workers' front end changed), since only those are
/// ranked (`domain::leaderboard::rank_by_front_end`).
pub(super) fn team_entries(filter: &str) -> String {
    format!(
        "SELECT DISTINCT ON (s.team_id, s.split_id) s.id
         FROM submissions s
         JOIN splits sp ON sp.id = s.split_id
         JOIN challenges ch ON ch.id = sp.challenge_id
         LEFT JOIN leaderboard_choices c ON c.team_id = s.team_id AND c.split_id = s.split_id
         LEFT JOIN aggregate_scores a ON a.submission_id = s.id
              AND a.category = CASE ch.ranking_metric WHEN 'spice' THEN 'all'
                                                      ELSE ch.ranking_metric END
         LEFT JOIN classic_scores cs ON cs.submission_id = s.id
         WHERE s.kind = 'team' AND s.status = 'scored' AND s.deleted_at IS NULL AND ({filter})
         ORDER BY s.team_id, s.split_id,
                  (ch.entry_policy = 'chosen' AND s.id = c.submission_id) IS TRUE DESC,
                  (s.front_end IS NOT DISTINCT FROM sp.front_end) DESC,
                  CASE WHEN ch.entry_policy = 'latest' THEN NULL
                       ELSE CASE ch.ranking_metric WHEN 'bleu_4' THEN cs.bleu_4
                                                   WHEN 'meteor' THEN cs.meteor
                                                   WHEN 'rouge_l' THEN cs.rouge_l
                                                   WHEN 'cider_d' THEN cs.cider_d
                                                   ELSE a.f END END DESC NULLS LAST,
                  s.id DESC"
    )
}

/// Entries of a split. With `everything` false (a hidden split seen by a non-organizer), only the
/// entries of `own_team` are returned.
pub async fn entries(
    db: impl PgExecutor<'_>,
    split_id: i64,
    everything: bool,
    own_team: Option<i64>,
) -> Result<Vec<Entry>, sqlx::Error> {
    sqlx::query_as(&format!(
        "WITH team_entries AS ({entries})
        SELECT s.id AS submission_id, s.kind, s.team_id,
               COALESCE(t.name, s.label, s.kind) AS name, s.description, s.scored_at,
               COALESCE(MAX(n.entries), 0) AS entries,
               COALESCE(s.front_end, 'built-in') AS front_end,
               s.method_name, s.paper_url, s.code_url,
               {scores}, {tp} AS tp, {fp} AS fp
        FROM submissions s
        LEFT JOIN teams t ON t.id = s.team_id
        JOIN aggregate_scores a ON a.submission_id = s.id
        LEFT JOIN classic_scores cs ON cs.submission_id = s.id
        LEFT JOIN (SELECT team_id, COUNT(*) AS entries FROM submissions
                   WHERE split_id = $1 AND kind = 'team' AND status = 'scored'
                     AND deleted_at IS NULL
                   GROUP BY team_id) n ON n.team_id = s.team_id
        WHERE (s.id IN (SELECT id FROM team_entries)
               OR (s.split_id = $1 AND s.kind IN ('baseline', 'human') AND s.status = 'scored'
                   AND s.deleted_at IS NULL))
          AND ($2 OR s.team_id = $3)
        GROUP BY s.id, t.name",
        entries = team_entries("s.split_id = $1"),
        scores = super::score_columns(),
        tp = super::spice_counts("a", "tp"),
        fp = super::spice_counts("a", "fp"),
    ))
    .bind(split_id)
    .bind(everything)
    .bind(own_team)
    .fetch_all(db)
    .await
}

/// The submission that stands for a team on a split's leaderboard, if any.
pub async fn entry_of_team(
    db: impl PgExecutor<'_>,
    team_id: i64,
    split_id: i64,
) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar(&team_entries("s.team_id = $1 AND s.split_id = $2"))
        .bind(team_id)
        .bind(split_id)
        .fetch_optional(db)
        .await
}

/// The ids of the submissions that stand for their teams on the leaderboards of a challenge.
pub async fn entries_of_challenge(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar(&team_entries("sp.challenge_id = $1"))
        .bind(challenge_id)
        .fetch_all(db)
        .await
}
