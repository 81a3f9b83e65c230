//! Human judgments of a split and the stored agreement table (issue 14, part 3). A split version
//! may get several uploads; the newest is the current one.

use chrono::{DateTime, Utc};
use sqlx::{PgExecutor, Postgres, Transaction};

use crate::domain::judgments::{AgreementTable, JudgmentsFile};

/// The current judgments of a split version: when they came and the table computed from them.
#[derive(Debug, Clone)]
pub struct StoredAgreement {
    pub set_id: i64,
    pub uploaded_at: DateTime<Utc>,
    pub table: AgreementTable,
}

/// Each judgment's scores as stored (`scores` of `caption_judgments` and `entry_judgments`): per
/// column's `sort=` name its value, null where undefined.
pub type ScoreMap = serde_json::Map<String, serde_json::Value>;

/// Stores an upload's judgments with the agreement table computed from them and the scores each
/// judgment was correlated with (`caption_scores[k]` is `file.captions[k]`'s, `entry_scores[k]`
/// `file.entries[k]`'s, empty for an entry left out); returns the set's id.
#[allow(clippy::too_many_arguments)]
pub async fn insert(
    tx: &mut Transaction<'_, Postgres>,
    split_id: i64,
    uploaded_by: Option<i64>,
    bytes: i64,
    sha256: &str,
    file: &JudgmentsFile,
    table: &AgreementTable,
    caption_scores: &[ScoreMap],
    entry_scores: &[ScoreMap],
) -> Result<i64, sqlx::Error> {
    let set_id: i64 = sqlx::query_scalar(
        "INSERT INTO judgment_sets (split_id, uploaded_by, bytes, sha256, agreement)
         VALUES ($1, $2, $3, $4, $5) RETURNING id",
    )
    .bind(split_id)
    .bind(uploaded_by)
    .bind(bytes)
    .bind(sha256)
    .bind(sqlx::types::Json(table))
    .fetch_one(&mut **tx)
    .await?;
    let map = |m: Option<&ScoreMap>| serde_json::Value::Object(m.cloned().unwrap_or_default());
    for (k, chunk) in file.captions.chunks(2000).enumerate() {
        let lines: Vec<i32> = chunk.iter().map(|c| c.line).collect();
        let ids: Vec<i64> = chunk.iter().map(|c| c.image_id).collect();
        let captions: Vec<&str> = chunk.iter().map(|c| c.caption.as_str()).collect();
        // Ratings travel as JSON arrays: PostgreSQL has no array of arrays of varying length.
        let ratings: Vec<serde_json::Value> =
            chunk.iter().map(|c| serde_json::json!(c.ratings)).collect();
        let scores: Vec<serde_json::Value> = (0..chunk.len())
            .map(|i| map(caption_scores.get(k * 2000 + i)))
            .collect();
        sqlx::query(
            "INSERT INTO caption_judgments (set_id, line, image_id, caption, ratings, scores)
             SELECT $1, u.line, u.image_id, u.caption,
                    ARRAY(SELECT jsonb_array_elements_text(u.ratings)::DOUBLE PRECISION),
                    u.scores
             FROM UNNEST($2::INT[], $3::BIGINT[], $4::TEXT[], $5::JSONB[], $6::JSONB[])
                  AS u(line, image_id, caption, ratings, scores)",
        )
        .bind(set_id)
        .bind(lines)
        .bind(ids)
        .bind(captions)
        .bind(ratings)
        .bind(scores)
        .execute(&mut **tx)
        .await?;
    }
    if !file.entries.is_empty() {
        let lines: Vec<i32> = file.entries.iter().map(|e| e.line).collect();
        let ids: Vec<i64> = file.entries.iter().map(|e| e.submission_id).collect();
        let ratings: Vec<f64> = file.entries.iter().map(|e| e.rating).collect();
        let scores: Vec<serde_json::Value> = (0..file.entries.len())
            .map(|k| map(entry_scores.get(k)))
            .collect();
        sqlx::query(
            "INSERT INTO entry_judgments (set_id, line, submission_id, rating, scores)
             SELECT $1, * FROM UNNEST($2::INT[], $3::BIGINT[], $4::DOUBLE PRECISION[],
                                      $5::JSONB[])",
        )
        .bind(set_id)
        .bind(lines)
        .bind(ids)
        .bind(ratings)
        .bind(scores)
        .execute(&mut **tx)
        .await?;
    }
    Ok(set_id)
}

/// The newest judgments' agreement table of a split version, if any were uploaded.
pub async fn current(
    db: impl PgExecutor<'_>,
    split_id: i64,
) -> Result<Option<StoredAgreement>, sqlx::Error> {
    let row: Option<(i64, DateTime<Utc>, sqlx::types::Json<AgreementTable>)> = sqlx::query_as(
        "SELECT id, uploaded_at, agreement FROM judgment_sets WHERE split_id = $1
         ORDER BY id DESC LIMIT 1",
    )
    .bind(split_id)
    .fetch_optional(db)
    .await?;
    Ok(row.map(|(set_id, uploaded_at, table)| StoredAgreement {
        set_id,
        uploaded_at,
        table: table.0,
    }))
}

/// A judged caption's ratings and its score in each column (`None`: judgments uploaded before
/// the scores were kept).
#[derive(Debug, Clone)]
pub struct JudgedCaption {
    pub ratings: Vec<f64>,
    pub scores: Option<ScoreMap>,
}

/// A judged leaderboard entry: the name the leaderboard shows, its rating and the scores it was
/// correlated with (empty: left out; `None`: uploaded before the scores were kept).
#[derive(Debug, Clone)]
pub struct JudgedEntry {
    pub name: String,
    pub rating: f64,
    pub scores: Option<ScoreMap>,
}

/// Every judgment of a set with its scores, in the file's order: the agreement page's scatter
/// plots.
pub async fn judged(
    db: &sqlx::PgPool,
    set_id: i64,
) -> Result<(Vec<JudgedCaption>, Vec<JudgedEntry>), sqlx::Error> {
    let object = |v: Option<sqlx::types::Json<serde_json::Value>>| match v.map(|j| j.0) {
        Some(serde_json::Value::Object(m)) => Some(m),
        _ => None,
    };
    let captions: Vec<(Vec<f64>, Option<sqlx::types::Json<serde_json::Value>>)> = sqlx::query_as(
        "SELECT ratings, scores FROM caption_judgments WHERE set_id = $1 ORDER BY line",
    )
    .bind(set_id)
    .fetch_all(db)
    .await?;
    let entries: Vec<(String, f64, Option<sqlx::types::Json<serde_json::Value>>)> = sqlx::query_as(
        "SELECT COALESCE(t.name, s.label, s.kind), e.rating, e.scores
             FROM entry_judgments e
             JOIN submissions s ON s.id = e.submission_id
             LEFT JOIN teams t ON t.id = s.team_id
             WHERE e.set_id = $1 ORDER BY e.line",
    )
    .bind(set_id)
    .fetch_all(db)
    .await?;
    Ok((
        captions
            .into_iter()
            .map(|(ratings, scores)| JudgedCaption {
                ratings,
                scores: object(scores),
            })
            .collect(),
        entries
            .into_iter()
            .map(|(name, rating, scores)| JudgedEntry {
                name,
                rating,
                scores: object(scores),
            })
            .collect(),
    ))
}
