//! Challenges and their limits.

use sqlx::PgExecutor;

use chrono::{DateTime, Utc};

use crate::domain::leaderboard::{EntryPolicy, SortKey};
use crate::domain::phase::Phase;
use crate::domain::{ChallengeSlug, Title};

#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize)]
pub struct Challenge {
    pub id: i64,
    pub slug: String,
    pub title: String,
    pub description: String,
    pub daily_submission_limit: Option<i32>,
    pub total_submission_limit: Option<i32>,
    pub max_file_bytes: i64,
    /// Most bytes of uploaded files a team may keep stored; `None` = no cap.
    pub max_team_bytes: Option<i64>,
    /// Which of a team's submissions the leaderboards show.
    pub entry_policy: EntryPolicy,
    /// When team uploads open and close (`None` = no bound).
    pub opens_at: Option<DateTime<Utc>>,
    pub closes_at: Option<DateTime<Utc>>,
    /// The leaderboard column that ranks the challenge unless a page asks for another (`sort=`
    /// name; the schema's CHECK lists the valid ones).
    pub ranking_metric: String,
}

impl Challenge {
    /// The largest file a team may upload, in bytes (a negative stored value is none).
    pub fn file_limit(&self) -> u64 {
        self.max_file_bytes.max(0) as u64
    }

    /// The ranking column (SPICE if the stored name were ever unknown to this code).
    pub fn ranking_key(&self) -> SortKey {
        SortKey::parse(Some(&self.ranking_metric)).unwrap_or(SortKey::Spice)
    }

    pub fn phase(&self) -> Phase {
        Phase {
            opens_at: self.opens_at,
            closes_at: self.closes_at,
        }
    }
}

const COLUMNS: &str =
    "id, slug, title, description, daily_submission_limit, total_submission_limit, max_file_bytes,
     max_team_bytes, entry_policy, opens_at, closes_at, ranking_metric";

pub async fn create(
    db: impl PgExecutor<'_>,
    slug: &ChallengeSlug,
    title: &Title,
    description: &str,
) -> Result<Challenge, sqlx::Error> {
    sqlx::query_as(&format!(
        "INSERT INTO challenges (slug, title, description) VALUES ($1, $2, $3) RETURNING {COLUMNS}"
    ))
    .bind(slug.as_str())
    .bind(title.as_str())
    .bind(description)
    .fetch_one(db)
    .await
}

pub async fn by_slug(
    db: impl PgExecutor<'_>,
    slug: &str,
) -> Result<Option<Challenge>, sqlx::Error> {
    sqlx::query_as(&format!("SELECT {COLUMNS} FROM challenges WHERE slug = $1"))
        .bind(slug)
        .fetch_optional(db)
        .await
}

pub async fn list(db: impl PgExecutor<'_>) -> Result<Vec<Challenge>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM challenges ORDER BY created_at DESC, id DESC"
    ))
    .fetch_all(db)
    .await
}

/// Limits: `None` = unlimited for the per-team counts.
pub async fn set_limits(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
    daily: Option<i32>,
    total: Option<i32>,
    max_file_bytes: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE challenges SET daily_submission_limit = $2, total_submission_limit = $3,
         max_file_bytes = $4 WHERE id = $1",
    )
    .bind(challenge_id)
    .bind(daily)
    .bind(total)
    .bind(max_file_bytes)
    .execute(db)
    .await
    .map(|_| ())
}

/// The cap on the bytes a team keeps stored; `None` = no cap.
pub async fn set_max_team_bytes(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
    max_team_bytes: Option<i64>,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE challenges SET max_team_bytes = $2 WHERE id = $1")
        .bind(challenge_id)
        .bind(max_team_bytes)
        .execute(db)
        .await
        .map(|_| ())
}

pub async fn by_id(db: impl PgExecutor<'_>, id: i64) -> Result<Option<Challenge>, sqlx::Error> {
    sqlx::query_as(&format!("SELECT {COLUMNS} FROM challenges WHERE id = $1"))
        .bind(id)
        .fetch_optional(db)
        .await
}

pub async fn set_entry_policy(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
    policy: EntryPolicy,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE challenges SET entry_policy = $2 WHERE id = $1")
        .bind(challenge_id)
        .bind(policy)
        .execute(db)
        .await
        .map(|_| ())
}

/// When team uploads open and close.
pub async fn set_phase(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
    phase: Phase,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE challenges SET opens_at = $2, closes_at = $3 WHERE id = $1")
        .bind(challenge_id)
        .bind(phase.opens_at)
        .bind(phase.closes_at)
        .execute(db)
        .await
        .map(|_| ())
}

/// The title and description people see.
pub async fn set_details(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
    title: &Title,
    description: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE challenges SET title = $2, description = $3 WHERE id = $1")
        .bind(challenge_id)
        .bind(title.as_str())
        .bind(description)
        .execute(db)
        .await
        .map(|_| ())
}

/// The column that ranks the challenge's leaderboards by default.
pub async fn set_ranking_metric(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
    metric: SortKey,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE challenges SET ranking_metric = $2 WHERE id = $1")
        .bind(challenge_id)
        .bind(metric.name())
        .execute(db)
        .await
        .map(|_| ())
}
