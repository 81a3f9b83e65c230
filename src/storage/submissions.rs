//! Submissions: uploaded files (raw bytes and checksum), their status, soft deletion, and the
//! entry each team shows on a leaderboard.

use chrono::{DateTime, Utc};
use sqlx::{PgExecutor, Postgres, Transaction};

use crate::domain::{SubmissionKind, SubmissionMethod, SubmissionStatus};

#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize)]
pub struct Submission {
    pub id: i64,
    pub split_id: i64,
    pub kind: SubmissionKind,
    pub team_id: Option<i64>,
    pub label: Option<String>,
    pub description: String,
    pub sha256: Option<String>,
    pub byte_size: i64,
    pub status: SubmissionStatus,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub scored_at: Option<DateTime<Utc>>,
    pub deleted_at: Option<DateTime<Utc>>,
    /// What the team was told about its accepted file (the keys that were ignored).
    pub upload_note: Option<String>,
    /// The front end that produced the stored scores; None while there are none.
    pub front_end: Option<String>,
    /// The method behind it, as its team describes it (`domain::SubmissionMethod`); each
    /// `None` when not given.
    pub method_name: Option<String>,
    pub paper_url: Option<String>,
    pub code_url: Option<String>,
    /// When its team cancelled it (status `cancelled`), while it waited in the queue.
    pub cancelled_at: Option<DateTime<Utc>>,
}

const COLUMNS: &str =
    "id, split_id, kind, team_id, label, description, sha256, byte_size, status, error,
    created_at, scored_at, deleted_at, upload_note, front_end, method_name, paper_url, code_url,
    cancelled_at";

/// What a new submission holds.
pub struct NewSubmission<'a> {
    pub split_id: i64,
    pub kind: SubmissionKind,
    pub team_id: Option<i64>,
    pub label: Option<&'a str>,
    pub description: &'a str,
    pub raw_file: Option<&'a [u8]>,
    pub sha256: Option<&'a str>,
    pub submitted_by: Option<i64>,
    pub upload_note: Option<&'a str>,
    pub method: &'a SubmissionMethod,
}

/// Stores a submission and its queued job (the one its kind needs) in the caller's transaction, and
/// wakes the workers when it commits (NOTIFY is transactional).
pub async fn create_with_job(
    tx: &mut Transaction<'_, Postgres>,
    new: &NewSubmission<'_>,
    max_attempts: i32,
) -> Result<Submission, sqlx::Error> {
    let submission: Submission = sqlx::query_as(&format!(
        "INSERT INTO submissions (split_id, kind, team_id, label, description, raw_file, sha256,
                                  byte_size, submitted_by, upload_note, method_name, paper_url,
                                  code_url)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING {COLUMNS}"
    ))
    .bind(new.split_id)
    .bind(new.kind)
    .bind(new.team_id)
    .bind(new.label)
    .bind(new.description)
    .bind(new.raw_file)
    .bind(new.sha256)
    .bind(new.raw_file.map_or(0, |f| f.len() as i64))
    .bind(new.submitted_by)
    .bind(new.upload_note)
    .bind(new.method.name())
    .bind(new.method.paper_url())
    .bind(new.method.code_url())
    .fetch_one(&mut **tx)
    .await?;
    super::queue::enqueue(&mut **tx, new.kind.job(), submission.id, max_attempts).await?;
    Ok(submission)
}

pub async fn by_id(db: impl PgExecutor<'_>, id: i64) -> Result<Option<Submission>, sqlx::Error> {
    sqlx::query_as(&format!("SELECT {COLUMNS} FROM submissions WHERE id = $1"))
        .bind(id)
        .fetch_optional(db)
        .await
}

/// Replaces the method of team `team_id`'s live submission `id`. False (nothing written) if it
/// is not one.
pub async fn set_method(
    db: impl PgExecutor<'_>,
    id: i64,
    team_id: i64,
    method: &SubmissionMethod,
) -> Result<bool, sqlx::Error> {
    let r = sqlx::query(
        "UPDATE submissions SET method_name = $3, paper_url = $4, code_url = $5
         WHERE id = $1 AND team_id = $2 AND deleted_at IS NULL",
    )
    .bind(id)
    .bind(team_id)
    .bind(method.name())
    .bind(method.paper_url())
    .bind(method.code_url())
    .execute(db)
    .await?;
    Ok(r.rows_affected() == 1)
}

pub async fn raw_file(db: impl PgExecutor<'_>, id: i64) -> Result<Option<Vec<u8>>, sqlx::Error> {
    sqlx::query_scalar("SELECT raw_file FROM submissions WHERE id = $1")
        .bind(id)
        .fetch_optional(db)
        .await
        .map(Option::flatten)
}

/// One line of a team's submission history.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct HistoryLine {
    pub id: i64,
    pub split: String,
    pub description: String,
    pub status: SubmissionStatus,
    pub created_at: DateTime<Utc>,
    pub spice: Option<f64>,
    /// It is the team's entry on its split's leaderboard.
    pub on_leaderboard: bool,
    /// The e-mail address of the member who uploaded it (through the form or with an API token
    /// they made); `None` when not recorded.
    pub uploaded_by: Option<String>,
}

/// A team's live submissions, newest first, with their SPICE and whether each is the team's
/// leaderboard entry.
pub async fn history_of_team(
    db: impl PgExecutor<'_>,
    team_id: i64,
) -> Result<Vec<HistoryLine>, sqlx::Error> {
    sqlx::query_as(&format!(
        "WITH entries AS ({entries})
         SELECT s.id, sp.name AS split, s.description, s.status, s.created_at, a.f AS spice,
                s.id IN (SELECT id FROM entries) AS on_leaderboard, u.email AS uploaded_by
         FROM submissions s
         JOIN splits sp ON sp.id = s.split_id
         LEFT JOIN aggregate_scores a ON a.submission_id = s.id AND a.category = 'all'
         LEFT JOIN users u ON u.id = s.submitted_by
         WHERE s.team_id = $1 AND s.deleted_at IS NULL
         ORDER BY s.id DESC",
        entries = super::leaderboard::team_entries("s.team_id = $1")
    ))
    .bind(team_id)
    .fetch_all(db)
    .await
}

/// Submissions counted against a team's quota: (in the last 24 hours, in total). Rejected uploads
/// are never stored, so they never count, nor do those that failed for the server's reasons
/// (`failed_for_server`: a full disk, a lost database, a crash) or that the team cancelled while
/// they waited in the queue (neither was scored); deleted ones still do. A member's uploads follow them:
/// those they made in other teams of the challenge count too, so that leaving a team and
/// starting another gives nobody a fresh quota of scores on a hidden split.
pub async fn quota_used(db: impl PgExecutor<'_>, team_id: i64) -> Result<(i64, i64), sqlx::Error> {
    sqlx::query_as(
        "SELECT COUNT(*) FILTER (WHERE s.created_at > now() - interval '24 hours'), COUNT(*)
         FROM submissions s JOIN teams t ON t.id = s.team_id
         WHERE s.kind = $2
           AND NOT (s.status = 'failed' AND s.failed_for_server)
           AND s.status <> 'cancelled'
           AND t.challenge_id = (SELECT challenge_id FROM teams WHERE id = $1)
           AND (s.team_id = $1
                OR s.submitted_by IN (SELECT user_id FROM team_members WHERE team_id = $1))",
    )
    .bind(team_id)
    .bind(SubmissionKind::Team)
    .fetch_one(db)
    .await
}

/// The team's latest live submission to this split of a file with this SHA-256 (one that
/// failed or was cancelled is not counted: uploading it again is a retry), with when it was
/// uploaded.
pub async fn identical_upload(
    db: impl PgExecutor<'_>,
    team_id: i64,
    split_id: i64,
    sha256: &str,
) -> Result<Option<(i64, DateTime<Utc>)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT id, created_at FROM submissions
         WHERE team_id = $1 AND split_id = $2 AND sha256 = $3
           AND deleted_at IS NULL AND status NOT IN ('failed', 'cancelled')
         ORDER BY id DESC LIMIT 1",
    )
    .bind(team_id)
    .bind(split_id)
    .bind(sha256)
    .fetch_optional(db)
    .await
}

/// Bytes of uploaded files a team keeps stored (deleted submissions included: they stay stored).
pub async fn bytes_stored(db: impl PgExecutor<'_>, team_id: i64) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT COALESCE(SUM(byte_size), 0)::BIGINT FROM submissions WHERE team_id = $1",
    )
    .bind(team_id)
    .fetch_one(db)
    .await
}

/// Locks the team row so that concurrent uploads cannot both pass the quota check.
pub async fn lock_team(
    tx: &mut Transaction<'_, Postgres>,
    team_id: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT id FROM teams WHERE id = $1 FOR UPDATE")
        .bind(team_id)
        .execute(&mut **tx)
        .await
        .map(|_| ())
}

pub async fn soft_delete(db: impl PgExecutor<'_>, id: i64) -> Result<bool, sqlx::Error> {
    let r = sqlx::query(
        "UPDATE submissions SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL",
    )
    .bind(id)
    .execute(db)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Makes `submission_id` the team's leaderboard entry for split version `split_id`. False (and
/// nothing written) unless it is still a live submission of that team on that version.
pub async fn choose_for_leaderboard(
    db: impl PgExecutor<'_>,
    team_id: i64,
    split_id: i64,
    submission_id: i64,
) -> Result<bool, sqlx::Error> {
    sqlx::query(
        "INSERT INTO leaderboard_choices (team_id, split_id, submission_id)
         SELECT $1, $2, $3 FROM submissions
         WHERE id = $3 AND split_id = $2 AND team_id = $1 AND deleted_at IS NULL
         ON CONFLICT (team_id, split_id) DO UPDATE SET submission_id = EXCLUDED.submission_id",
    )
    .bind(team_id)
    .bind(split_id)
    .bind(submission_id)
    .execute(db)
    .await
    .map(|r| r.rows_affected() == 1)
}

/// Non-deleted submissions of a split (for re-scoring), but those their teams cancelled, which
/// are never scored.
pub async fn ids_of_split(
    db: impl PgExecutor<'_>,
    split_id: i64,
) -> Result<Vec<(i64, SubmissionKind)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT id, kind FROM submissions
         WHERE split_id = $1 AND deleted_at IS NULL AND status <> 'cancelled' ORDER BY id",
    )
    .bind(split_id)
    .fetch_all(db)
    .await
}

/// Moves the live submissions of split version `from` but its Human row (which is computed from
/// the references, not uploaded) and those their teams cancelled (never scored) to version `to`, with the teams' leaderboard choices. Their
/// scores, against the old references, are deleted, their pending jobs ended (a worker scoring
/// one against the old references cannot write its results), and they wait, `queued`, for the
/// jobs the caller queues. Returns the moved submissions.
pub async fn move_to_version(
    tx: &mut Transaction<'_, Postgres>,
    from: i64,
    to: i64,
) -> Result<Vec<(i64, SubmissionKind)>, sqlx::Error> {
    let moved: Vec<(i64, SubmissionKind)> = sqlx::query_as(
        "UPDATE submissions SET split_id = $2, status = 'queued', error = NULL
         WHERE split_id = $1 AND deleted_at IS NULL AND kind <> $3 AND status <> 'cancelled'
         RETURNING id, kind",
    )
    .bind(from)
    .bind(to)
    .bind(SubmissionKind::Human)
    .fetch_all(&mut **tx)
    .await?;
    let ids: Vec<i64> = moved.iter().map(|(id, _)| *id).collect();
    super::queue::supersede(tx, &ids, "superseded: the split's references were replaced").await?;
    super::scores::forget(tx, &ids).await?;
    sqlx::query(
        "UPDATE leaderboard_choices c SET split_id = $2
         FROM submissions s WHERE c.split_id = $1 AND s.id = c.submission_id AND s.split_id = $2",
    )
    .bind(from)
    .bind(to)
    .execute(&mut **tx)
    .await?;
    Ok(moved)
}

/// The Human row of a split, if one was computed.
pub async fn human_of_split(
    db: impl PgExecutor<'_>,
    split_id: i64,
) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT id FROM submissions WHERE split_id = $1 AND kind = $2 AND deleted_at IS NULL",
    )
    .bind(split_id)
    .bind(SubmissionKind::Human)
    .fetch_optional(db)
    .await
}

/// A submission as the organizers' table and export show it: who sent it, to which split, and
/// its scores.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OrganizerLine {
    pub id: i64,
    pub split: String,
    pub kind: SubmissionKind,
    /// The team's name, or the baseline's label.
    pub name: String,
    pub description: String,
    pub status: SubmissionStatus,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub scored_at: Option<DateTime<Utc>>,
    pub deleted_at: Option<DateTime<Utc>>,
    /// The front end that produced the scores; None while there are none.
    pub front_end: Option<String>,
    pub method_name: Option<String>,
    pub paper_url: Option<String>,
    pub code_url: Option<String>,
    #[sqlx(flatten)]
    pub scores: super::Scores,
}

/// Every submission of a challenge (deleted ones too), newest first; at most `limit` if given.
pub async fn organizer_lines(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
    limit: Option<i64>,
) -> Result<Vec<OrganizerLine>, sqlx::Error> {
    sqlx::query_as(&format!(
        "{}
         WHERE sp.challenge_id = $1
         GROUP BY s.id, sp.name, t.name
         ORDER BY s.id DESC
         LIMIT $2",
        organizer_lines_sql()
    ))
    .bind(challenge_id)
    .bind(limit)
    .fetch_all(db)
    .await
}

/// One submission's [`OrganizerLine`] (deleted or not), if it exists.
pub async fn organizer_line(
    db: impl PgExecutor<'_>,
    submission_id: i64,
) -> Result<Option<OrganizerLine>, sqlx::Error> {
    sqlx::query_as(&format!(
        "{}
         WHERE s.id = $1
         GROUP BY s.id, sp.name, t.name",
        organizer_lines_sql()
    ))
    .bind(submission_id)
    .fetch_optional(db)
    .await
}

/// The columns and joins of [`OrganizerLine`]s; the callers add the WHERE and GROUP BY.
fn organizer_lines_sql() -> String {
    format!(
        "SELECT s.id, sp.name AS split, s.kind, COALESCE(t.name, s.label, s.kind) AS name,
            s.description, s.status, s.error, s.created_at, s.scored_at, s.deleted_at,
            s.front_end, s.method_name, s.paper_url, s.code_url, {scores}
     FROM submissions s
     JOIN splits sp ON sp.id = s.split_id
     LEFT JOIN teams t ON t.id = s.team_id
     LEFT JOIN aggregate_scores a ON a.submission_id = s.id
     LEFT JOIN classic_scores cs ON cs.submission_id = s.id",
        scores = super::score_columns()
    )
}
