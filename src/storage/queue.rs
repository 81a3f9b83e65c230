//! The job queue's SQL (in the style of the Rust package registry's queue): a plain table, claimed with `FOR UPDATE SKIP LOCKED`, held
//! with a lease that heartbeats extend. A job whose lease has expired (its worker died) is claimable
//! again; `attempts` bounds how often. Every write after the claim is fenced on
//! `(locked_by, attempts)`, so a worker that lost its lease can no longer touch the job.

use chrono::{DateTime, Utc};
use sqlx::{PgExecutor, PgPool, Postgres, Transaction};

use crate::configuration::WorkerSettings;
use crate::domain::{JobKind, JobState};

/// The channel workers LISTEN on; enqueueing NOTIFYs it.
pub const CHANNEL: &str = "spiceboard_jobs";

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Job {
    pub id: i64,
    pub kind: JobKind,
    pub submission_id: i64,
    pub state: JobState,
    pub attempts: i32,
    pub max_attempts: i32,
    pub locked_by: Option<String>,
    pub last_error: Option<String>,
    pub lease_expires_at: Option<DateTime<Utc>>,
    pub started_at: Option<DateTime<Utc>>,
    /// What the running job is doing (`scoring::Stage`), and how many of how many images it has
    /// done, as its worker last reported.
    pub progress_stage: Option<String>,
    pub progress_done: Option<i32>,
    pub progress_total: Option<i32>,
}

const COLUMNS: &str = "id, kind, submission_id, state, attempts, max_attempts, locked_by, last_error, lease_expires_at, started_at, progress_stage, progress_done, progress_total";

/// A claim: the job plus the fencing token (`attempts` at claim time) for every later write.
#[derive(Debug, Clone)]
pub struct Claim {
    pub job: Job,
    pub worker: String,
}

pub async fn enqueue(
    db: impl PgExecutor<'_>,
    kind: JobKind,
    submission_id: i64,
    max_attempts: i32,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "WITH j AS (INSERT INTO jobs (kind, submission_id, max_attempts) VALUES ($1, $2, $3) RETURNING id)
         SELECT j.id FROM j, pg_notify($4, j.id::text) AS n",
    )
    .bind(kind)
    .bind(submission_id)
    .bind(max_attempts)
    .bind(CHANNEL)
    .fetch_one(db)
    .await
}

/// Claims the oldest runnable job: queued and due, or running with an expired lease (its worker
/// died). Jobs that have used up their attempts are failed on the way, so they are not retried
/// forever.
pub async fn claim(
    db: &sqlx::PgPool,
    worker: &str,
    lease_seconds: u64,
) -> Result<Option<Claim>, sqlx::Error> {
    let mut tx = db.begin().await?;
    let job: Option<Job> = sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM jobs
         WHERE (state = 'queued' AND run_after <= now()) OR (state = 'running' AND lease_expires_at < now())
         ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"
    ))
    .fetch_optional(&mut *tx)
    .await?;
    let Some(job) = job else {
        tx.commit().await?;
        return Ok(None);
    };
    if job.attempts >= job.max_attempts {
        let error = format!(
            "gave up after {} attempts; the last worker ({}) stopped responding",
            job.attempts,
            job.locked_by.as_deref().unwrap_or("unknown")
        );
        // The team is told what happened, not which machine and process it happened on.
        let shown = format!(
            "gave up after {} attempts: the worker scoring it stopped responding",
            job.attempts
        );
        // Its workers died: the server's trouble, not the team's.
        mark_failed(&mut tx, job.id, job.submission_id, &error, &shown, true).await?;
        tx.commit().await?;
        // Look for another job right away.
        return Box::pin(claim(db, worker, lease_seconds)).await;
    }
    let job: Job = sqlx::query_as(&format!(
        "UPDATE jobs SET state = 'running', attempts = attempts + 1, locked_by = $2,
            lease_expires_at = now() + make_interval(secs => $3), heartbeat_at = now(),
            started_at = COALESCE(started_at, now()),
            progress_stage = NULL, progress_done = NULL, progress_total = NULL
         WHERE id = $1 RETURNING {COLUMNS}"
    ))
    .bind(job.id)
    .bind(worker)
    .bind(lease_seconds as f64)
    .fetch_one(&mut *tx)
    .await?;
    // A cancelled submission has no job to claim (`cancel_queued` ends them); if one had, the
    // schema's `submissions_cancelled_for_good` would refuse its results.
    sqlx::query("UPDATE submissions SET status = 'running' WHERE id = $1 AND status <> 'scored'")
        .bind(job.submission_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Some(Claim {
        job,
        worker: worker.to_string(),
    }))
}

/// Extends the lease; false if the claim is no longer ours. While another transaction holds the
/// job's row, the lease is left as it is and the committed row says whether the claim holds.
pub async fn heartbeat(
    db: &PgPool,
    claim: &Claim,
    lease_seconds: u64,
) -> Result<bool, sqlx::Error> {
    // Never waits for the job's row: while the worker's own results' transaction holds it (for
    // seconds, for a large submission), a waiting beat would only be one more statement stuck
    // until that commits. Once that transaction has the row, nobody can take the job over.
    let r = sqlx::query(
        "UPDATE jobs SET lease_expires_at = now() + make_interval(secs => $4), heartbeat_at = now()
         WHERE id = (SELECT id FROM jobs
                     WHERE id = $1 AND locked_by = $2 AND attempts = $3 AND state = 'running'
                     FOR UPDATE SKIP LOCKED)",
    )
    .bind(claim.job.id)
    .bind(&claim.worker)
    .bind(claim.job.attempts)
    .bind(lease_seconds as f64)
    .execute(db)
    .await?;
    if r.rows_affected() == 1 {
        return Ok(true);
    }
    // Not extended: the claim is lost, or the row is held; then the committed row says whose it is.
    let held: Option<bool> = sqlx::query_scalar(
        "SELECT TRUE FROM jobs WHERE id = $1 AND locked_by = $2 AND attempts = $3 AND state = 'running'",
    )
    .bind(claim.job.id)
    .bind(&claim.worker)
    .bind(claim.job.attempts)
    .fetch_optional(db)
    .await?;
    Ok(held.is_some())
}

/// Stores how far the claimed job has got (fenced like every write after the claim). Progress
/// is only shown, so it never waits: if anyone holds the job's row (the results' transaction,
/// say), this report is skipped.
pub async fn report_progress(
    db: impl PgExecutor<'_>,
    claim: &Claim,
    stage: &str,
    done: usize,
    total: usize,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE jobs SET progress_stage = $4, progress_done = $5, progress_total = $6
         WHERE id = (SELECT id FROM jobs
                     WHERE id = $1 AND locked_by = $2 AND attempts = $3 AND state = 'running'
                     FOR UPDATE SKIP LOCKED)",
    )
    .bind(claim.job.id)
    .bind(&claim.worker)
    .bind(claim.job.attempts)
    .bind(stage)
    .bind(i32::try_from(done).unwrap_or(i32::MAX))
    .bind(i32::try_from(total).unwrap_or(i32::MAX))
    .execute(db)
    .await?;
    Ok(())
}

/// Begins the transaction that writes a job's results. It need not wait for the WAL flush: if the
/// server crashes before it, the job's end state is lost together with its results, and the
/// expired lease hands the job to another worker.
pub async fn begin_results(db: &PgPool) -> Result<Transaction<'static, Postgres>, sqlx::Error> {
    let mut tx = db.begin().await?;
    sqlx::query("SET LOCAL synchronous_commit = off")
        .execute(&mut *tx)
        .await?;
    Ok(tx)
}

/// Within the transaction that writes the results: marks the job succeeded if the claim still
/// holds, locking the job row. Returns false if another worker has taken the job over; the caller
/// must then roll back.
pub async fn complete(
    tx: &mut Transaction<'_, Postgres>,
    claim: &Claim,
) -> Result<bool, sqlx::Error> {
    let r = sqlx::query(
        "UPDATE jobs SET state = 'succeeded', finished_at = now(), lease_expires_at = NULL, last_error = NULL
         WHERE id = $1 AND locked_by = $2 AND attempts = $3 AND state = 'running'",
    )
    .bind(claim.job.id)
    .bind(&claim.worker)
    .bind(claim.job.attempts)
    .execute(&mut **tx)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Why an attempt failed: what happens to the job next, and whether the team's quota pays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The team's captions, as the engine met them: failed for good, and the upload counts.
    Submission,
    /// The server's own trouble (a crash, a database error that will not pass by itself, the
    /// organizers' references): retried while attempts remain if `retry`; failed otherwise,
    /// without counting against the team's quota.
    Server { retry: bool },
    /// The database unavailable for a while (a full disk, a lost connection) or a lost race (a
    /// serialization failure): retried after a backoff that doubles up to minutes, giving the
    /// attempt back, `transient_retries` times; after that, as `Server { retry: true }`.
    Transient,
}

/// Records a failed attempt (see [`Failure`] for what follows). `error` is the job's record for
/// operators; `shown` is what the team reads on the submission's page and in the API.
pub async fn record_failure(
    db: &sqlx::PgPool,
    claim: &Claim,
    error: &str,
    shown: &str,
    failure: Failure,
    settings: &WorkerSettings,
) -> Result<(), sqlx::Error> {
    let mut tx = db.begin().await?;
    let transient_failures: Option<i32> = sqlx::query_scalar(
        "SELECT transient_failures FROM jobs
         WHERE id = $1 AND locked_by = $2 AND attempts = $3 AND state = 'running' FOR UPDATE",
    )
    .bind(claim.job.id)
    .bind(&claim.worker)
    .bind(claim.job.attempts)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(transient_failures) = transient_failures else {
        return tx.rollback().await;
    };
    let wait = match failure {
        Failure::Transient if transient_failures < settings.transient_retries => {
            let doubled = settings
                .transient_backoff_seconds
                .saturating_mul(1 << transient_failures.clamp(0, 30));
            sqlx::query(
                "UPDATE jobs SET max_attempts = max_attempts + 1,
                    transient_failures = transient_failures + 1 WHERE id = $1",
            )
            .bind(claim.job.id)
            .execute(&mut *tx)
            .await?;
            Some(doubled.min(settings.transient_backoff_max_seconds))
        }
        Failure::Transient | Failure::Server { retry: true }
            if claim.job.attempts < claim.job.max_attempts =>
        {
            Some(settings.retry_backoff_seconds * claim.job.attempts as u64)
        }
        _ => None,
    };
    match wait {
        Some(seconds) => {
            sqlx::query(
                "UPDATE jobs SET state = 'queued', locked_by = NULL, lease_expires_at = NULL,
                    last_error = $2, run_after = now() + make_interval(secs => $3)
                 WHERE id = $1",
            )
            .bind(claim.job.id)
            .bind(error)
            .bind(seconds as f64)
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "UPDATE submissions SET status = 'queued' WHERE id = $1 AND status = 'running'",
            )
            .bind(claim.job.submission_id)
            .execute(&mut *tx)
            .await?;
        }
        None => {
            let for_server = failure != Failure::Submission;
            let (job, submission) = (claim.job.id, claim.job.submission_id);
            mark_failed(&mut tx, job, submission, error, shown, for_server).await?;
        }
    }
    tx.commit().await
}

/// Ends the job and its submission as failed; `for_server`: for the server's reasons, which do
/// not count against the team's quota.
async fn mark_failed(
    tx: &mut Transaction<'_, Postgres>,
    job_id: i64,
    submission_id: i64,
    error: &str,
    shown: &str,
    for_server: bool,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE jobs SET state = 'failed', finished_at = now(), lease_expires_at = NULL, last_error = $2 WHERE id = $1",
    )
    .bind(job_id)
    .bind(error)
    .execute(&mut **tx)
    .await?;
    // A submission that was scored before (re-scoring) keeps its old scores and status.
    sqlx::query(
        "UPDATE submissions SET status = 'failed', error = $2, failed_for_server = $3
         WHERE id = $1 AND status <> 'scored'",
    )
    .bind(submission_id)
    .bind(shown)
    .bind(for_server)
    .execute(&mut **tx)
    .await
    .map(|_| ())
}

/// Ends the pending jobs of the submissions, queued or running (a running job's worker then
/// fails to complete it and its results are not written), recording `why`.
pub async fn supersede(
    tx: &mut Transaction<'_, Postgres>,
    submission_ids: &[i64],
    why: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE jobs SET state = 'failed', finished_at = now(), lease_expires_at = NULL, last_error = $2
         WHERE submission_id = ANY($1) AND state IN ('queued', 'running')",
    )
    .bind(submission_ids)
    .bind(why)
    .execute(&mut **tx)
    .await
    .map(|_| ())
}

/// Cancels team `team_id`'s submission `submission_id` while it waits in the queue: its queued
/// jobs end `cancelled` and the submission `cancelled` (by `user`, if known), in one statement
/// that changes nothing unless the submission is still queued, never scored (not a re-score nor
/// a submission moved to new references) nor deleted, and a job of it is still queued. Returns
/// whether it was cancelled; the caller rolls back when it was not (see below).
///
/// The race with a worker: `claim` locks the job row (`FOR UPDATE SKIP LOCKED`) before it marks
/// the job and the submission running, and this statement locks the job row before it touches
/// either. A claim that comes first makes this statement wait for its commit and then find the
/// job running (PostgreSQL re-checks `state = 'queued'` on the row as committed): nothing
/// changes. A cancel that comes first makes the claim skip the locked row, and once it commits
/// the job is no longer queued. Both take the job row before the submission's, the workers'
/// order, so neither waits for the other in a cycle. A submission with two queued jobs (an
/// organizer re-scored it while it waited) of which a worker claimed one meanwhile has its other
/// job cancelled but not itself (it is running by then): the caller's rollback undoes that.
pub async fn cancel_queued(
    tx: &mut Transaction<'_, Postgres>,
    submission_id: i64,
    team_id: i64,
    user: Option<i64>,
) -> Result<bool, sqlx::Error> {
    let cancelled: Option<i64> = sqlx::query_scalar(
        "WITH cancelled_jobs AS (
             UPDATE jobs SET state = 'cancelled', finished_at = now(), lease_expires_at = NULL,
                             last_error = 'cancelled by its team while it was queued'
             WHERE submission_id = $1 AND state = 'queued'
               AND EXISTS (SELECT 1 FROM submissions
                           WHERE id = $1 AND team_id = $2 AND status = 'queued'
                             AND scored_at IS NULL AND deleted_at IS NULL)
             RETURNING submission_id
         )
         UPDATE submissions SET status = 'cancelled', cancelled_at = now(), cancelled_by = $3
         WHERE id = $1 AND team_id = $2 AND status = 'queued' AND scored_at IS NULL
           AND deleted_at IS NULL AND id IN (SELECT submission_id FROM cancelled_jobs)
         RETURNING id",
    )
    .bind(submission_id)
    .bind(team_id)
    .bind(user)
    .fetch_optional(&mut **tx)
    .await?;
    Ok(cancelled.is_some())
}

/// The newest job of a submission.
pub async fn latest_of_submission(
    db: impl PgExecutor<'_>,
    submission_id: i64,
) -> Result<Option<Job>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM jobs WHERE submission_id = $1 ORDER BY id DESC LIMIT 1"
    ))
    .bind(submission_id)
    .fetch_optional(db)
    .await
}

/// How many unfinished jobs are ahead of this one (0 = next or running).
pub async fn position(db: impl PgExecutor<'_>, job_id: i64) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar("SELECT COUNT(*) FROM jobs WHERE id < $1 AND state IN ('queued', 'running')")
        .bind(job_id)
        .fetch_one(db)
        .await
}

/// Counts of jobs by state (for tests and the organizer area).
pub async fn counts(db: impl PgExecutor<'_>) -> Result<Vec<(JobState, i64)>, sqlx::Error> {
    sqlx::query_as("SELECT state, COUNT(*) FROM jobs GROUP BY state ORDER BY state")
        .fetch_all(db)
        .await
}
