//! Running one claimed job, from loading its inputs to the final transaction.

use std::sync::Arc;
use std::time::Duration;

use sqlx::PgPool;

use crate::configuration::WorkerSettings;
use crate::domain::results_file::Bounds;
use crate::domain::{JobKind, ResultsFile};
use crate::scoring::{self, ScoringError, SharedEngine};
use crate::storage::queue::{self, Claim, Failure};
use crate::storage::{self, scores, splits, submissions};

#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error(transparent)]
    Scoring(#[from] ScoringError),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("{0}")]
    Input(String),
    #[error("the scoring thread panicked: {0}")]
    Panicked(String),
}

impl JobError {
    /// What follows the failure. The upload was validated before it was queued, so only the
    /// engine failing on the team's captions is the team's; everything else is the server's
    /// (its database, its scoring thread, the stored references), and database trouble that
    /// passes by itself is retried for minutes.
    fn failure(&self) -> Failure {
        match self {
            JobError::Database(e) if storage::transient(e) => Failure::Transient,
            JobError::Database(_) | JobError::Panicked(_) => Failure::Server { retry: true },
            JobError::Scoring(ScoringError::Engine { .. }) => Failure::Submission,
            JobError::Scoring(_) | JobError::Input(_) => Failure::Server { retry: false },
        }
    }

    /// What the team reads: the problem with its file or the engine's message as they are, but
    /// of the server's own trouble only that it happened (its text names tables, queries and
    /// code; the log and the job's record keep it).
    fn shown(&self) -> String {
        match self {
            JobError::Database(_) => {
                "the database failed while scoring it (the server's log has the details)".into()
            }
            JobError::Panicked(_) => {
                "the scorer stopped unexpectedly (the server's log has the details)".into()
            }
            JobError::Scoring(_) | JobError::Input(_) => self.to_string(),
        }
    }
}

/// How often a running job's progress is stored (when it has changed).
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// Runs the job with a heartbeat, then records its end: results and `succeeded` in one
/// transaction, or the failure.
pub async fn process(
    pool: &PgPool,
    engine: &SharedEngine,
    settings: &WorkerSettings,
    claim: &Claim,
) {
    let beat = {
        let (pool, claim, lease) = (pool.clone(), claim.clone(), settings.lease_seconds);
        tokio::spawn(async move {
            let every = Duration::from_millis((lease * 1000 / 3).max(100));
            loop {
                tokio::time::sleep(every).await;
                match queue::heartbeat(&pool, &claim, lease).await {
                    Ok(true) => {}
                    Ok(false) => {
                        tracing::warn!(
                            job = claim.job.id,
                            "lease lost; another worker has the job"
                        );
                        break;
                    }
                    Err(e) => tracing::warn!(job = claim.job.id, error = %e, "heartbeat failed"),
                }
            }
        })
    };
    let progress = Arc::new(scoring::Progress::default());
    let reporter = {
        let (pool, claim, progress) = (pool.clone(), claim.clone(), progress.clone());
        tokio::spawn(async move {
            let mut last = None;
            loop {
                tokio::time::sleep(PROGRESS_EVERY).await;
                let now = progress.now();
                if last != Some(now) {
                    let (stage, done, total) = now;
                    if let Err(e) =
                        queue::report_progress(&pool, &claim, stage.as_str(), done, total).await
                    {
                        tracing::debug!(job = claim.job.id, error = %e, "progress not stored");
                    }
                    last = Some(now);
                }
            }
        })
    };
    let started = std::time::Instant::now();
    let outcome = run(pool, engine, claim, &progress).await;
    reporter.abort();
    let computed = started.elapsed();
    let recorded = match outcome {
        Ok(result) => {
            // The last count, and what comes next: one write, before the results'.
            let (_, done, total) = progress.now();
            let stage = scoring::Stage::Writing.as_str();
            if let Err(e) = queue::report_progress(pool, claim, stage, done, total).await {
                tracing::debug!(job = claim.job.id, error = %e, "progress not stored");
            }
            finish(pool, claim, &result, &beat)
                .await
                .map_err(JobError::from)
        }
        Err(e) => Err(e),
    };
    tracing::info!(
        job = claim.job.id,
        compute_ms = computed.as_millis() as u64,
        total_ms = started.elapsed().as_millis() as u64,
        "job ended"
    );
    if let Err(e) = recorded {
        tracing::warn!(job = claim.job.id, error = %e, "job failed");
        record_failure(pool, settings, claim, &e, &beat).await;
    }
    beat.abort();
}

/// Records the failure, trying again while the database is away (the trouble that failed the
/// job often keeps the failure from being written too) and the lease holds: the heartbeat goes
/// on meanwhile. Given up after `RECORDING_PATIENCE`; the lease then expires and another worker
/// takes the job over.
async fn record_failure(
    pool: &PgPool,
    settings: &WorkerSettings,
    claim: &Claim,
    e: &JobError,
    beat: &tokio::task::JoinHandle<()>,
) {
    const RECORDING_PATIENCE: Duration = Duration::from_secs(600);
    let since = std::time::Instant::now();
    let mut wait = Duration::from_millis(250);
    loop {
        let done = queue::record_failure(
            pool,
            claim,
            &e.to_string(),
            &e.shown(),
            e.failure(),
            settings,
        )
        .await;
        match done {
            Ok(()) => return,
            Err(db)
                if storage::transient(&db)
                    && !beat.is_finished()
                    && since.elapsed() < RECORDING_PATIENCE =>
            {
                tracing::warn!(job = claim.job.id, error = %db, "recording the failure failed; trying again");
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(30));
            }
            Err(db) => {
                tracing::error!(job = claim.job.id, error = %db, "could not record the failure; the lease will expire");
                return;
            }
        }
    }
}

async fn finish(
    pool: &PgPool,
    claim: &Claim,
    result: &scores::SubmissionResult,
    beat: &tokio::task::JoinHandle<()>,
) -> Result<(), sqlx::Error> {
    let started = std::time::Instant::now();
    // The bootstrap of the intervals (CPU) runs while the scores are written (the server's work).
    let submission_id = claim.job.submission_id;
    let images = crate::storage::uncertainty::of_result(result);
    let bootstrap = tokio::spawn(crate::actions::bootstrap(submission_id, images));
    let mut tx = queue::begin_results(pool).await?;
    // Fencing first: this locks the job row, so a worker that took over cannot commit alongside.
    if !queue::complete(&mut tx, claim).await? {
        tracing::warn!(
            job = claim.job.id,
            "lease lost before commit; discarding this attempt's results"
        );
        return tx.rollback().await;
    }
    scores::write(&mut tx, submission_id, result).await?;
    let written = started.elapsed();
    let intervals = bootstrap.await.map_err(|e| {
        sqlx::Error::Protocol(format!(
            "the bootstrap of submission {submission_id} crashed: {e}"
        ))
    })??;
    crate::storage::uncertainty::store(&mut tx, submission_id, &intervals, true).await?;
    let intervals = started.elapsed();
    tx.commit().await?;
    // The job is done: a beat now would find it no longer running and call the lease lost.
    beat.abort();
    let committed = started.elapsed();
    if let Err(e) = scores::refresh_statistics(pool, result.images.len()).await {
        tracing::warn!(job = claim.job.id, error = %e, "refreshing the planner's statistics failed");
    }
    tracing::info!(
        job = claim.job.id,
        submission = claim.job.submission_id,
        write_ms = written.as_millis() as u64,
        intervals_ms = (intervals - written).as_millis() as u64,
        commit_ms = (committed - intervals).as_millis() as u64,
        statistics_ms = (started.elapsed() - committed).as_millis() as u64,
        "job succeeded"
    );
    Ok(())
}

async fn run(
    pool: &PgPool,
    engine: &SharedEngine,
    claim: &Claim,
    progress: &Arc<scoring::Progress>,
) -> Result<scores::SubmissionResult, JobError> {
    let submission = submissions::by_id(pool, claim.job.submission_id)
        .await?
        .ok_or_else(|| {
            JobError::Input(format!("submission {} is gone", claim.job.submission_id))
        })?;
    let started = std::time::Instant::now();
    let (split, mut refs) = splits::with_references(pool, submission.split_id)
        .await?
        .ok_or_else(|| JobError::Input(format!("split {} is gone", submission.split_id)))?;
    tracing::debug!(
        job = claim.job.id,
        images = refs.len(),
        ms = started.elapsed().as_millis() as u64,
        "references read"
    );
    let mode = split.caption_mode;

    // Reference graphs missing (the engine could not parse at ingestion) or built by another
    // engine version or front end are (re)built first, and stored for the next job: a split's
    // graphs and its scores come from one front end. After an upgrade, the CIDEr-D document
    // frequencies are counted again with them.
    let version = scoring::engine_version(engine);
    let front_end = scoring::front_end_name(engine);
    let force = split.engine_version != version;
    if force && !split.engine_version.is_empty() && split.front_end != front_end {
        // Not after `challenge rescore` (which clears the version): a worker whose front end
        // differs moves the split by itself, and the entries scored before are left unranked.
        tracing::warn!(
            job = claim.job.id,
            split = split.id,
            from = %split.front_end,
            to = front_end,
            "the split's reference graphs were built by another front end; rebuilding them with \
             this worker's, so that this job's scores are comparable: entries scored by the other \
             front end stay off the ranking until `spiceboard challenge rescore` re-scores them \
             (every process sharing the database should have the same engine.corenlp_models)"
        );
    }
    if force || refs.iter().any(|r| r.scene_graph.is_none()) {
        progress.enter(scoring::Stage::References, 0);
        let engine2 = engine.clone();
        let graphs = blocking(move || {
            let built = scoring::missing_reference_graphs(&engine2, &refs, mode, force);
            let df = force.then(|| scoring::cider_df_bytes(&scoring::stored_cider_df(&refs)));
            (refs, built, df)
        })
        .await?;
        refs = graphs.0;
        let built = graphs.1?;
        let df = graphs.2;
        let mut tx = pool.begin().await?;
        let built_by = splits::BuiltBy {
            engine_version: &version,
            front_end,
        };
        splits::update_reference_graphs(&mut tx, split.id, &built, built_by).await?;
        if let Some(df) = &df {
            splits::set_cider_df(&mut *tx, split.id, df).await?;
        }
        tx.commit().await?;
        let mut updated: std::collections::HashMap<i64, String> = built.into_iter().collect();
        for r in &mut refs {
            if let Some(g) = updated.remove(&r.image_id) {
                r.scene_graph = Some(g);
            }
        }
    }

    tracing::debug!(job = claim.job.id, images = refs.len(), "inputs loaded");
    let engine = engine.clone();
    match claim.job.kind {
        JobKind::ScoreSubmission => {
            let raw = submissions::raw_file(pool, submission.id)
                .await?
                .ok_or_else(|| JobError::Input("the submission has no file".into()))?;
            let ids = refs.iter().map(|r| r.image_id).collect();
            let bounds = Bounds {
                split_name: &split.name,
                split_images: &ids,
                max_bytes: u64::MAX,
                max_caption_chars: usize::MAX,
                // Files stored before empty captions were refused are still scored.
                refuse_empty_captions: false,
                parse_budget: None,
            };
            let candidates = ResultsFile::parse(&raw, bounds)
                .map_err(|e| {
                    JobError::Input(format!("the stored file no longer matches the split: {e}"))
                })?
                .into_candidates();
            // The split's document frequencies, stored at import; splits imported before they
            // were get them counted here, once, and stored.
            let stored = splits::cider_df(pool, split.id).await?;
            let (refs, df, computed) =
                blocking(
                    move || match stored.as_deref().and_then(scoring::parse_cider_df) {
                        Some(df) => (refs, df, None),
                        None => {
                            let df = scoring::stored_cider_df(&refs);
                            let bytes = scoring::cider_df_bytes(&df);
                            (refs, df, Some(bytes))
                        }
                    },
                )
                .await?;
            if let Some(bytes) = computed {
                splits::set_cider_df(pool, split.id, &bytes).await?;
            }
            tracing::debug!(job = claim.job.id, "candidates and frequencies read");
            let progress = progress.clone();
            Ok(blocking(move || {
                let result =
                    scoring::score_submission(&engine, &refs, &candidates, mode, &df, &progress);
                free_later((refs, candidates, df));
                result
            })
            .await??)
        }
        JobKind::HumanBaseline => {
            let progress = progress.clone();
            Ok(blocking(move || {
                let result = scoring::score_human(&engine, &refs, mode, &progress);
                free_later(refs);
                result
            })
            .await??)
        }
    }
}

/// Frees `inputs` on a thread of its own: a COCO-sized split's references and frequencies are
/// hundreds of thousands of allocations (a few tenths of a second to free), which need not
/// delay the writing of the results.
fn free_later<T: Send + 'static>(inputs: T) {
    std::thread::spawn(move || drop(inputs));
}

/// Runs CPU-bound engine work off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, JobError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| JobError::Panicked(e.to_string()))
}
