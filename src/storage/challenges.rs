//! Challenges and their limits.

use std::collections::BTreeMap;

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
    /// Splits with an upload window of their own (by split name), instead of the challenge's.
    pub split_phases: sqlx::types::Json<BTreeMap<String, Phase>>,
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

    /// The challenge's upload window: every split's, but for those with one of their own.
    pub fn phase(&self) -> Phase {
        Phase {
            opens_at: self.opens_at,
            closes_at: self.closes_at,
        }
    }

    /// The upload window of split `name`: its own, or the challenge's.
    pub fn phase_of(&self, name: &str) -> Phase {
        self.split_phases
            .get(name)
            .copied()
            .unwrap_or_else(|| self.phase())
    }

    /// The challenge's window as the challenge and submit pages state it, saying when some
    /// splits have windows of their own (`None`: no bounds anywhere).
    pub fn phase_summary(&self, now: DateTime<Utc>) -> Option<String> {
        let own = "Some splits have upload windows of their own.";
        match (self.phase().summary(now), self.split_phases.is_empty()) {
            (Some(s), true) => Some(s),
            (Some(s), false) => Some(format!("{s} {own}")),
            (None, false) => Some(own.to_string()),
            (None, true) => None,
        }
    }

    /// The next time any window opens or closes, as RFC 3339, for the pages' countdown.
    pub fn countdown_until(&self, now: DateTime<Utc>) -> Option<String> {
        std::iter::once(self.phase())
            .chain(self.split_phases.values().copied())
            .filter_map(|p| p.next_change(now))
            .min()
            .map(|t| t.to_rfc3339())
    }

    /// Why an upload to split `name` at `now` is refused (naming the split when the window is
    /// its own), or `None` when it is open.
    pub fn refusal_for(&self, name: &str, now: DateTime<Utc>) -> Option<String> {
        let why = self.phase_of(name).refusal(now)?;
        Some(if self.split_phases.contains_key(name) {
            format!("split {name}: {why}")
        } else {
            why
        })
    }

    /// Why no upload at `now` can be taken, whatever its split (the challenge's window is closed
    /// and so is every split's own), or `None` when some split may be open. Routes ask this
    /// before reading a file whose split they do not know yet.
    pub fn closed_to_all(&self, now: DateTime<Utc>) -> Option<String> {
        let why = self.phase().refusal(now)?;
        let mut own = self.split_phases.values();
        if own.any(|p| p.refusal(now).is_none()) {
            return None;
        }
        Some(if self.split_phases.is_empty() {
            why
        } else {
            format!("{why}, and no split is open")
        })
    }
}

/// The columns of a [`Challenge`], the splits' own windows gathered as one JSON object.
const COLUMNS: &str =
    "id, slug, title, description, daily_submission_limit, total_submission_limit, max_file_bytes,
     max_team_bytes, entry_policy, opens_at, closes_at, ranking_metric,
     (SELECT COALESCE(jsonb_object_agg(p.split_name,
                                       jsonb_build_object('opens_at', p.opens_at, 'closes_at', p.closes_at)),
                      '{}'::jsonb)
      FROM split_phases p WHERE p.challenge_id = challenges.id) AS split_phases";

/// Creates a challenge; `creator` (if any) becomes its first organizer in the same statement.
pub async fn create(
    db: impl PgExecutor<'_>,
    slug: &ChallengeSlug,
    title: &Title,
    description: &str,
    creator: Option<i64>,
) -> Result<Challenge, sqlx::Error> {
    sqlx::query_as(&format!(
        "WITH created AS (
           INSERT INTO challenges (slug, title, title_skeleton, description) VALUES ($1, $2, $3, $4)
           RETURNING *),
         organizer AS (
           INSERT INTO challenge_organizers (challenge_id, user_id, added_by)
           SELECT id, $5, $5 FROM created WHERE $5 IS NOT NULL)
         SELECT {COLUMNS} FROM created AS challenges"
    ))
    .bind(slug.as_str())
    .bind(title.as_str())
    .bind(title.skeleton())
    .bind(description)
    .bind(creator)
    .fetch_one(db)
    .await
}

/// The title of another challenge than `except` that reads as `title` (same skeleton), if any.
pub async fn title_like(
    db: impl PgExecutor<'_>,
    title: &Title,
    except: Option<i64>,
) -> Result<Option<String>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT title FROM challenges
         WHERE title_skeleton = $1 AND id IS DISTINCT FROM $2 ORDER BY id LIMIT 1",
    )
    .bind(title.skeleton())
    .bind(except)
    .fetch_optional(db)
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

/// Split `name`'s own upload window, or (`None`) none: the split follows the challenge's.
pub async fn set_split_phase(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
    name: &str,
    phase: Option<Phase>,
) -> Result<(), sqlx::Error> {
    match phase {
        Some(p) => sqlx::query(
            "INSERT INTO split_phases (challenge_id, split_name, opens_at, closes_at)
             VALUES ($1, $2, $3, $4)
             ON CONFLICT (challenge_id, split_name)
             DO UPDATE SET opens_at = EXCLUDED.opens_at, closes_at = EXCLUDED.closes_at",
        )
        .bind(challenge_id)
        .bind(name)
        .bind(p.opens_at)
        .bind(p.closes_at),
        None => sqlx::query("DELETE FROM split_phases WHERE challenge_id = $1 AND split_name = $2")
            .bind(challenge_id)
            .bind(name),
    }
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
    sqlx::query(
        "UPDATE challenges SET title = $2, title_skeleton = $3, description = $4 WHERE id = $1",
    )
    .bind(challenge_id)
    .bind(title.as_str())
    .bind(title.skeleton())
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

/// Holds the challenge's row until the transaction ends: imports of references (which take it
/// too, `splits::create_version`) and deletions of its splits wait for each other.
pub async fn lock(conn: &mut sqlx::PgConnection, id: i64) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar::<_, i64>("SELECT id FROM challenges WHERE id = $1 FOR UPDATE")
        .bind(id)
        .fetch_optional(conn)
        .await
        .map(|row| row.is_some())
}

/// The challenge's teams, their members (counted once per team) and their API tokens not
/// revoked: what deleting the challenge takes with it besides its splits.
#[derive(Debug, Clone, Copy, Default, sqlx::FromRow)]
pub struct TeamCounts {
    pub teams: i64,
    pub members: i64,
    pub tokens: i64,
}

pub async fn team_counts(db: impl PgExecutor<'_>, id: i64) -> Result<TeamCounts, sqlx::Error> {
    sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM teams WHERE challenge_id = $1) AS teams,
                (SELECT COUNT(*) FROM team_members m JOIN teams t ON t.id = m.team_id
                 WHERE t.challenge_id = $1) AS members,
                (SELECT COUNT(*) FROM api_tokens a JOIN teams t ON t.id = a.team_id
                 WHERE t.challenge_id = $1 AND a.revoked_at IS NULL) AS tokens",
    )
    .bind(id)
    .fetch_one(db)
    .await
}

/// Deletes the challenge and everything of it: splits and their references, teams, tokens,
/// submissions and their scores, jobs (the schema cascades). False if it was gone already.
pub async fn delete(db: impl PgExecutor<'_>, id: i64) -> Result<bool, sqlx::Error> {
    sqlx::query("DELETE FROM challenges WHERE id = $1")
        .bind(id)
        .execute(db)
        .await
        .map(|r| r.rows_affected() == 1)
}

/// Whether user `user_id` organizes challenge `id` (a site operator organizes every challenge
/// without a row: ask `actions::organizes`).
pub async fn organizes(
    db: impl PgExecutor<'_>,
    id: i64,
    user_id: i64,
) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM challenge_organizers WHERE challenge_id = $1 AND user_id = $2)",
    )
    .bind(id)
    .bind(user_id)
    .fetch_one(db)
    .await
}

/// The challenges user `user_id` organizes by a row of its own, newest first.
pub async fn organized_by(
    db: impl PgExecutor<'_>,
    user_id: i64,
) -> Result<Vec<Challenge>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM challenges
         WHERE id IN (SELECT challenge_id FROM challenge_organizers WHERE user_id = $1)
         ORDER BY created_at DESC, id DESC"
    ))
    .bind(user_id)
    .fetch_all(db)
    .await
}

/// An organizer of a challenge, as its organizer page lists them.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OrganizerLine {
    pub user_id: i64,
    pub email: String,
    pub added_by: Option<String>,
    pub added_at: DateTime<Utc>,
}

pub async fn organizers(
    db: impl PgExecutor<'_>,
    id: i64,
) -> Result<Vec<OrganizerLine>, sqlx::Error> {
    sqlx::query_as(
        "SELECT o.user_id, u.email, b.email AS added_by, o.added_at
         FROM challenge_organizers o JOIN users u ON u.id = o.user_id
         LEFT JOIN users b ON b.id = o.added_by
         WHERE o.challenge_id = $1 ORDER BY o.added_at, u.email",
    )
    .bind(id)
    .fetch_all(db)
    .await
}

/// Makes user `user_id` an organizer of challenge `id`; false if they were one already.
pub async fn add_organizer(
    db: impl PgExecutor<'_>,
    id: i64,
    user_id: i64,
    added_by: Option<i64>,
) -> Result<bool, sqlx::Error> {
    sqlx::query(
        "INSERT INTO challenge_organizers (challenge_id, user_id, added_by) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING",
    )
    .bind(id)
    .bind(user_id)
    .bind(added_by)
    .execute(db)
    .await
    .map(|r| r.rows_affected() == 1)
}

/// What removing an organizer did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removal {
    Removed,
    /// They were not an organizer of the challenge.
    NotOrganizer,
    /// They are its last: a challenge keeps one.
    Last,
}

/// Removes user `user_id` from the organizers of challenge `id`, unless they are the last. The
/// challenge's row is held meanwhile, so that two organizers removing each other cannot leave none.
pub async fn remove_organizer(
    conn: &mut sqlx::PgConnection,
    id: i64,
    user_id: i64,
) -> Result<Removal, sqlx::Error> {
    lock(&mut *conn, id).await?;
    let (listed, count): (bool, i64) = sqlx::query_as(
        "SELECT COALESCE(BOOL_OR(user_id = $2), FALSE), COUNT(*) FROM challenge_organizers
         WHERE challenge_id = $1",
    )
    .bind(id)
    .bind(user_id)
    .fetch_one(&mut *conn)
    .await?;
    if !listed {
        return Ok(Removal::NotOrganizer);
    }
    if count <= 1 {
        return Ok(Removal::Last);
    }
    sqlx::query("DELETE FROM challenge_organizers WHERE challenge_id = $1 AND user_id = $2")
        .bind(id)
        .bind(user_id)
        .execute(&mut *conn)
        .await?;
    Ok(Removal::Removed)
}
