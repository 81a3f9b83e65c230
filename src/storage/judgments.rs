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

/// Stores an upload's judgments with the agreement table computed from them; returns the set's id.
pub async fn insert(
    tx: &mut Transaction<'_, Postgres>,
    split_id: i64,
    uploaded_by: Option<i64>,
    bytes: i64,
    sha256: &str,
    file: &JudgmentsFile,
    table: &AgreementTable,
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
    for chunk in file.captions.chunks(2000) {
        let lines: Vec<i32> = chunk.iter().map(|c| c.line).collect();
        let ids: Vec<i64> = chunk.iter().map(|c| c.image_id).collect();
        let captions: Vec<&str> = chunk.iter().map(|c| c.caption.as_str()).collect();
        // Ratings travel as JSON arrays: PostgreSQL has no array of arrays of varying length.
        let ratings: Vec<serde_json::Value> =
            chunk.iter().map(|c| serde_json::json!(c.ratings)).collect();
        sqlx::query(
            "INSERT INTO caption_judgments (set_id, line, image_id, caption, ratings)
             SELECT $1, u.line, u.image_id, u.caption,
                    ARRAY(SELECT jsonb_array_elements_text(u.ratings)::DOUBLE PRECISION)
             FROM UNNEST($2::INT[], $3::BIGINT[], $4::TEXT[], $5::JSONB[])
                  AS u(line, image_id, caption, ratings)",
        )
        .bind(set_id)
        .bind(lines)
        .bind(ids)
        .bind(captions)
        .bind(ratings)
        .execute(&mut **tx)
        .await?;
    }
    if !file.entries.is_empty() {
        let lines: Vec<i32> = file.entries.iter().map(|e| e.line).collect();
        let ids: Vec<i64> = file.entries.iter().map(|e| e.submission_id).collect();
        let ratings: Vec<f64> = file.entries.iter().map(|e| e.rating).collect();
        sqlx::query(
            "INSERT INTO entry_judgments (set_id, line, submission_id, rating)
             SELECT $1, * FROM UNNEST($2::INT[], $3::BIGINT[], $4::DOUBLE PRECISION[])",
        )
        .bind(set_id)
        .bind(lines)
        .bind(ids)
        .bind(ratings)
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
