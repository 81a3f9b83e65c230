//! The leaderboard's one query: per split, one entry per team (its chosen submission, else its
//! latest scored one) plus the baseline and Human rows, with the aggregate F of each category
//! pivoted into columns. Ranking and sorting happen in `crate::domain::leaderboard`.

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
    pub spice: Option<f64>,
    pub object: Option<f64>,
    pub relation: Option<f64>,
    pub attribute: Option<f64>,
    pub color: Option<f64>,
    pub count: Option<f64>,
    pub size: Option<f64>,
    pub bleu_4: Option<f64>,
    pub meteor: Option<f64>,
    pub rouge_l: Option<f64>,
    pub cider_d: Option<f64>,
}

/// Entries of a split. With `everything` false (a hidden split seen by a non-organizer), only the
/// entries of `own_team` are returned.
pub async fn entries(
    db: impl PgExecutor<'_>,
    split_id: i64,
    everything: bool,
    own_team: Option<i64>,
) -> Result<Vec<Entry>, sqlx::Error> {
    sqlx::query_as(
        "WITH team_entries AS (
            SELECT DISTINCT ON (s.team_id) s.id
            FROM submissions s
            LEFT JOIN leaderboard_choices c ON c.team_id = s.team_id AND c.split_id = s.split_id
            WHERE s.split_id = $1 AND s.kind = 'team' AND s.status = 'scored' AND s.deleted_at IS NULL
            ORDER BY s.team_id, (s.id = c.submission_id) IS TRUE DESC, s.id DESC
        )
        SELECT s.id AS submission_id, s.kind, s.team_id,
               COALESCE(t.name, s.label, s.kind) AS name, s.description, s.scored_at,
               MAX(a.f) FILTER (WHERE a.category = 'all') AS spice,
               MAX(a.f) FILTER (WHERE a.category = 'object') AS object,
               MAX(a.f) FILTER (WHERE a.category = 'relation') AS relation,
               MAX(a.f) FILTER (WHERE a.category = 'attribute') AS attribute,
               MAX(a.f) FILTER (WHERE a.category = 'color') AS color,
               MAX(a.f) FILTER (WHERE a.category = 'count') AS count,
               MAX(a.f) FILTER (WHERE a.category = 'size') AS size,
               MAX(cs.bleu_4) AS bleu_4, MAX(cs.meteor) AS meteor,
               MAX(cs.rouge_l) AS rouge_l, MAX(cs.cider_d) AS cider_d
        FROM submissions s
        LEFT JOIN teams t ON t.id = s.team_id
        JOIN aggregate_scores a ON a.submission_id = s.id
        LEFT JOIN classic_scores cs ON cs.submission_id = s.id
        WHERE (s.id IN (SELECT id FROM team_entries)
               OR (s.split_id = $1 AND s.kind IN ('baseline', 'human') AND s.status = 'scored'
                   AND s.deleted_at IS NULL))
          AND ($2 OR s.team_id = $3)
        GROUP BY s.id, t.name",
    )
    .bind(split_id)
    .bind(everything)
    .bind(own_team)
    .fetch_all(db)
    .await
}
