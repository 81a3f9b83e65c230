//! The workers of the job queue. A worker claims a job (see `storage::queue` for the claim, lease
//! and fencing rules), keeps its lease alive with a heartbeat while the engine works on a blocking
//! thread (which parses on the rayon pool), then writes the results and the job's end state in one
//! transaction. Workers sleep on `LISTEN` and poll as a fallback. `serve` runs some; `worker` runs
//! only workers; any number of processes may share one database.

mod run;

use std::time::Duration;

use sqlx::postgres::PgListener;
use sqlx::PgPool;
use tokio::sync::watch;

use crate::configuration::WorkerSettings;
use crate::scoring::SharedEngine;
use crate::storage::queue;

pub use run::{process, JobError};

/// A unique name for a worker, recorded in `jobs.locked_by`.
pub fn worker_name(index: usize) -> String {
    use rand::Rng;
    let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "host".into());
    let tag: u32 = rand::thread_rng().gen();
    format!("{host}-{}-{index}-{tag:08x}", std::process::id())
}

/// Starts `count` workers; they stop when `shutdown` turns true.
pub fn spawn_workers(
    count: usize,
    pool: PgPool,
    engine: SharedEngine,
    settings: WorkerSettings,
    shutdown: watch::Receiver<bool>,
) -> Vec<tokio::task::JoinHandle<()>> {
    (0..count)
        .map(|i| {
            let (pool, engine, settings, shutdown) = (
                pool.clone(),
                engine.clone(),
                settings.clone(),
                shutdown.clone(),
            );
            tokio::spawn(async move {
                run_worker(worker_name(i), pool, engine, settings, shutdown).await
            })
        })
        .collect()
}

/// One worker's loop: claim and process until there is nothing to do, then wait for a NOTIFY, the
/// poll interval, or shutdown.
pub async fn run_worker(
    name: String,
    pool: PgPool,
    engine: SharedEngine,
    settings: WorkerSettings,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut listener = match PgListener::connect_with(&pool).await {
        Ok(mut l) => match l.listen(queue::CHANNEL).await {
            Ok(()) => Some(l),
            Err(e) => {
                tracing::warn!(error = %e, "LISTEN failed; polling only");
                None
            }
        },
        Err(e) => {
            tracing::warn!(error = %e, "no listener connection; polling only");
            None
        }
    };
    let poll = Duration::from_millis(settings.poll_interval_ms.max(10));
    tracing::info!(worker = %name, "worker started");
    while !*shutdown.borrow() {
        match run_once(&name, &pool, &engine, &settings).await {
            Ok(true) => continue,
            Ok(false) => {}
            Err(e) => tracing::error!(worker = %name, error = %e, "claiming a job failed"),
        }
        tokio::select! {
            _ = shutdown.changed() => {}
            _ = tokio::time::sleep(poll) => {}
            notified = async {
                match listener.as_mut() {
                    Some(l) => l.recv().await.map(|_| ()),
                    None => std::future::pending().await,
                }
            } => {
                if let Err(e) = notified {
                    tracing::warn!(error = %e, "listener failed; polling only");
                    listener = None;
                }
            }
        }
    }
    tracing::info!(worker = %name, "worker stopped");
}

/// Claims and processes at most one job; true if there was one.
pub async fn run_once(
    name: &str,
    pool: &PgPool,
    engine: &SharedEngine,
    settings: &WorkerSettings,
) -> Result<bool, sqlx::Error> {
    let Some(claim) = queue::claim(pool, name, settings.lease_seconds).await? else {
        return Ok(false);
    };
    tracing::info!(worker = %name, job = claim.job.id, submission = claim.job.submission_id, attempt = claim.job.attempts, "claimed a job");
    process(pool, engine, settings, &claim).await;
    Ok(true)
}
