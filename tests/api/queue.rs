//! The job queue: SKIP LOCKED claims, leases taken over from a dead worker, bounded retries,
//! fenced commits, and racing workers scoring each job once.

use std::time::Duration;

use crate::helpers::{demo_results, fresh, spawn_app_with, TestApp};
use spiceboard::storage::queue;

async fn app_with_submissions(n: usize) -> (TestApp, Vec<i64>) {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("q", "val", false).await;
    let (_, token) = app.team("q", "Owls").await;
    let mut ids = Vec::new();
    for i in 0..n {
        ids.push(
            app.submit("q", &token, "val", fresh(demo_results(i % 2 == 0)))
                .await,
        );
    }
    (app, ids)
}

async fn job_row(app: &TestApp, submission: i64) -> (String, i32, Option<String>) {
    sqlx::query_as("SELECT state, attempts, last_error FROM jobs WHERE submission_id = $1")
        .bind(submission)
        .fetch_one(&app.pool)
        .await
        .expect("job row")
}

#[tokio::test]
async fn concurrent_claims_never_get_the_same_job() {
    let (app, _) = app_with_submissions(1).await;
    let (a, b) = tokio::join!(
        queue::claim(&app.pool, "a", 60),
        queue::claim(&app.pool, "b", 60)
    );
    let got: Vec<_> = [a.expect("claim a"), b.expect("claim b")]
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(got.len(), 1, "exactly one claim wins the only job");
    // A held, unexpired lease is not claimable.
    assert!(queue::claim(&app.pool, "c", 60)
        .await
        .expect("claim c")
        .is_none());
}

#[tokio::test]
async fn a_dead_workers_job_is_taken_over_and_scored_once() {
    let (app, ids) = app_with_submissions(1).await;
    // A worker claims the job with a short lease and dies: no heartbeat, no result.
    let dead = queue::claim(&app.pool, "dead-worker", 1)
        .await
        .expect("claim")
        .expect("a job");
    assert_eq!(job_row(&app, ids[0]).await.0, "running");

    // A live worker takes it over once the lease has expired (bounded wait).
    let mut settings = app.settings.worker.clone();
    settings.lease_seconds = 30;
    let mut taken = false;
    for _ in 0..100 {
        if spiceboard::jobs::run_once("live-worker", &app.pool, &app.engine, &settings)
            .await
            .expect("run")
        {
            taken = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(taken, "the expired lease was never taken over");
    let (state, attempts, error) = job_row(&app, ids[0]).await;
    assert_eq!(attempts, 2, "the take-over is the second attempt");
    {
        assert_eq!(state, "succeeded", "{error:?}");
    }

    // The dead worker comes back and tries to commit: its claim is fenced off.
    let mut tx = app.pool.begin().await.expect("begin");
    assert!(
        !queue::complete(&mut tx, &dead).await.expect("complete"),
        "a stale claim cannot complete the job"
    );
    tx.rollback().await.expect("rollback");
    assert!(!queue::heartbeat(&app.pool, &dead, 60)
        .await
        .expect("heartbeat"));
    let rows: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM image_scores WHERE submission_id = $1")
            .bind(ids[0])
            .fetch_one(&app.pool)
            .await
            .expect("rows");
    assert_eq!(rows, 20 * 7, "no duplicate rows");
}

#[tokio::test]
async fn retries_are_bounded() {
    let (app, ids) = app_with_submissions(1).await;
    sqlx::query("UPDATE jobs SET max_attempts = 2")
        .execute(&app.pool)
        .await
        .expect("update");
    // Two workers die in turn holding the job.
    for w in ["w1", "w2"] {
        let claim = queue::claim(&app.pool, w, 60)
            .await
            .expect("claim")
            .expect("job");
        assert_eq!(claim.job.locked_by.as_deref(), Some(w));
        sqlx::query("UPDATE jobs SET lease_expires_at = now() - interval '1 second'")
            .execute(&app.pool)
            .await
            .expect("expire");
    }
    // The next claim gives up on it instead of trying a third time.
    assert!(queue::claim(&app.pool, "w3", 60)
        .await
        .expect("claim")
        .is_none());
    let (state, attempts, error) = job_row(&app, ids[0]).await;
    assert_eq!((state.as_str(), attempts), ("failed", 2));
    assert!(error
        .unwrap_or_default()
        .contains("gave up after 2 attempts; the last worker (w2) stopped responding"));
    let (status, shown): (String, Option<String>) =
        sqlx::query_as("SELECT status, error FROM submissions WHERE id = $1")
            .bind(ids[0])
            .fetch_one(&app.pool)
            .await
            .expect("row");
    assert_eq!(status, "failed");
    // The team sees why, but not which machine or process the worker ran as.
    assert_eq!(
        shown.as_deref(),
        Some("gave up after 2 attempts: the worker scoring it stopped responding")
    );
}

#[tokio::test]
async fn a_retryable_failure_requeues_and_a_permanent_one_ends_the_job() {
    let (app, ids) = app_with_submissions(2).await;
    let c1 = queue::claim(&app.pool, "w", 60)
        .await
        .expect("claim")
        .expect("job");
    queue::record_failure(
        &app.pool,
        &c1,
        "database hiccup",
        "shown",
        queue::Failure::Server { retry: true },
        &app.settings.worker,
    )
    .await
    .expect("record");
    let (state, attempts, error) = job_row(&app, c1.job.submission_id).await;
    assert_eq!(
        (state.as_str(), attempts, error.as_deref()),
        ("queued", 1, Some("database hiccup"))
    );
    let c2 = queue::claim(&app.pool, "w", 60)
        .await
        .expect("claim")
        .expect("job");
    assert_eq!(c2.job.id, c1.job.id, "the retried job is next in line");
    queue::record_failure(
        &app.pool,
        &c2,
        "bad input in detail",
        "bad input",
        queue::Failure::Submission,
        &app.settings.worker,
    )
    .await
    .expect("record");
    let (state, _, error) = job_row(&app, ids[0]).await;
    assert_eq!(
        (state.as_str(), error.as_deref()),
        ("failed", Some("bad input in detail"))
    );
    let shown: Option<String> = sqlx::query_scalar("SELECT error FROM submissions WHERE id = $1")
        .bind(ids[0])
        .fetch_one(&app.pool)
        .await
        .expect("row");
    assert_eq!(shown.as_deref(), Some("bad input"), "what the team reads");
}

#[tokio::test]
async fn two_racing_workers_score_each_job_exactly_once() {
    let (app, ids) = app_with_submissions(6).await;
    let (tx, rx) = tokio::sync::watch::channel(false);
    let workers = spiceboard::jobs::spawn_workers(
        2,
        app.pool.clone(),
        app.engine.clone(),
        app.settings.worker.clone(),
        rx,
    );
    for id in &ids {
        app.wait_for(*id).await;
    }
    let _ = tx.send(true);
    for w in workers {
        w.await.expect("worker task");
    }
    let attempts: Vec<i32> = sqlx::query_scalar("SELECT attempts FROM jobs ORDER BY id")
        .fetch_all(&app.pool)
        .await
        .expect("attempts");
    assert_eq!(attempts, vec![1; 6], "no job was claimed twice");
    let lockers: i64 = sqlx::query_scalar("SELECT COUNT(DISTINCT locked_by) FROM jobs")
        .fetch_one(&app.pool)
        .await
        .expect("lockers");
    assert!(lockers >= 1);
    for id in ids {
        let rows: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM image_scores WHERE submission_id = $1")
                .bind(id)
                .fetch_one(&app.pool)
                .await
                .expect("rows");
        let aggregates: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM aggregate_scores WHERE submission_id = $1")
                .bind(id)
                .fetch_one(&app.pool)
                .await
                .expect("rows");
        {
            assert_eq!((rows, aggregates), (140, 7));
        }
    }
}

#[tokio::test]
async fn a_worker_process_killed_mid_job_is_replaced_without_duplicate_rows() {
    use secrecy::ExposeSecret;
    let app = spawn_app_with(0, |_| {}).await;
    // A split large enough that scoring takes a while: 600 images, the demo's captions reused.
    let demo: serde_json::Value =
        serde_json::from_slice(&crate::helpers::demo_references()).expect("json");
    let captions: Vec<String> = demo["annotations"]
        .as_array()
        .expect("annotations")
        .iter()
        .filter_map(|a| a["caption"].as_str().map(str::to_string))
        .collect();
    let n = 600usize;
    let annotations: Vec<serde_json::Value> = (0..n * 3)
        .map(
            |k| serde_json::json!({"image_id": k / 3 + 1, "caption": captions[k % captions.len()]}),
        )
        .collect();
    let c = spiceboard::actions::create_challenge(
        &app.pool,
        &spiceboard::domain::ChallengeSlug::parse("kill").expect("slug"),
        &spiceboard::domain::Title::parse("Kill").expect("title"),
        "",
        None,
    )
    .await
    .expect("challenge");
    let refs = serde_json::json!({ "annotations": annotations })
        .to_string()
        .into_bytes();
    spiceboard::actions::import_references(
        &app.pool,
        &app.engine,
        &c,
        &spiceboard::domain::SplitName::parse("val").expect("split"),
        refs,
        spiceboard::actions::ImportMode::default(),
    )
    .await
    .expect("import");
    let (_, token) = app.team("kill", "Owls").await;
    let results: Vec<serde_json::Value> = (1..=n)
        .map(|i| serde_json::json!({"image_id": i, "caption": captions[(i * 7) % captions.len()]}))
        .collect();
    let id = app
        .submit(
            "kill",
            &token,
            "val",
            serde_json::to_vec(&results).expect("json"),
        )
        .await;

    // A real `spiceboard worker` process claims the job; kill it as soon as it holds the job.
    let mut worker = std::process::Command::new(env!("CARGO_BIN_EXE_spiceboard"))
        .args(["worker", "--concurrency", "1"])
        .env(
            "DATABASE_URL",
            app.settings
                .database
                .url
                .as_ref()
                .expect("url")
                .expose_secret(),
        )
        .env("APP_WORKER__LEASE_SECONDS", "2")
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start a worker process");
    let mut claimed = false;
    for _ in 0..600 {
        if job_row(&app, id).await.0 == "running" {
            claimed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    worker.kill().expect("kill the worker");
    worker.wait().expect("reap the worker");
    assert!(claimed, "the worker process never claimed the job");
    let (state, attempts, _) = job_row(&app, id).await;
    assert_eq!(
        (state.as_str(), attempts),
        ("running", 1),
        "killed mid-job: the job is still held"
    );
    let rows: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM image_scores WHERE submission_id = $1")
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .expect("rows");
    assert_eq!(rows, 0, "nothing of the killed attempt was written");

    // After the lease expires, another worker takes the job over and completes it once.
    let settings = app.settings.worker.clone();
    let mut taken = false;
    for _ in 0..100 {
        if spiceboard::jobs::run_once("replacement", &app.pool, &app.engine, &settings)
            .await
            .expect("run")
        {
            taken = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(taken, "the dead worker's job was never taken over");
    let (state, attempts, error) = job_row(&app, id).await;
    assert_eq!((state.as_str(), attempts), ("succeeded", 2), "{error:?}");
    let rows: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM image_scores WHERE submission_id = $1")
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .expect("rows");
    assert_eq!(
        rows,
        n as i64 * 7,
        "one row per image and category, no duplicates"
    );
}

/// Failures recorded before teams were spared the server's internals are reworded by the
/// migration that made the change (its UPDATE statements, run again here on such rows).
#[tokio::test]
async fn earlier_failure_messages_lose_the_workers_host_and_the_databases_words() {
    let (app, ids) = app_with_submissions(4).await;
    let old = [
        "gave up after 3 attempts; the last worker (box-12-0-00c0ffee) stopped responding",
        "database error: error returned from database: relation \"x\" does not exist",
        "the scoring thread panicked: index out of bounds",
        "entry 3: the caption is empty",
    ];
    for (id, error) in ids.iter().zip(old) {
        sqlx::query("UPDATE submissions SET status = 'failed', error = $2 WHERE id = $1")
            .bind(id)
            .bind(error)
            .execute(&app.pool)
            .await
            .expect("update");
    }
    let migration = include_str!("../../migrations/20261127000001_quota_sessions_errors.sql");
    let updates: Vec<String> = migration
        .split(";\n")
        .map(|s| {
            s.lines()
                .filter(|l| !l.starts_with("--"))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .filter(|s| s.trim_start().starts_with("UPDATE"))
        .collect();
    assert_eq!(updates.len(), 3, "{migration}");
    for u in &updates {
        sqlx::query(u).execute(&app.pool).await.expect(u);
    }
    let mut shown = Vec::new();
    for id in &ids {
        let e: Option<String> = sqlx::query_scalar("SELECT error FROM submissions WHERE id = $1")
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .expect("row");
        shown.push(e.unwrap_or_default());
    }
    assert_eq!(
        shown,
        [
            "gave up after 3 attempts: the worker scoring it stopped responding",
            "the database failed while scoring it (the server's log has the details)",
            "the scorer stopped unexpectedly (the server's log has the details)",
            "entry 3: the caption is empty",
        ]
    );
}

/// Runs `claim`'s job while the database cuts its worker off, for real: the test holds the job's
/// row, so the worker's final write waits on it, and that waiting connection is terminated
/// (`pg_terminate_backend`, what a restart or a lost network does to it). The row is let go
/// once the worker is cut off; returns when the worker has recorded the failure.
async fn run_cut_off(app: &TestApp, claim: &queue::Claim) {
    let mut holder = app.pool.begin().await.expect("begin");
    sqlx::query("SELECT id FROM jobs WHERE id = $1 FOR UPDATE")
        .bind(claim.job.id)
        .execute(&mut *holder)
        .await
        .expect("hold the job's row");
    let worker = {
        let (pool, engine) = (app.pool.clone(), app.engine.clone());
        let (settings, claim) = (app.settings.worker.clone(), claim.clone());
        tokio::spawn(
            async move { spiceboard::jobs::process(&pool, &engine, &settings, &claim).await },
        )
    };
    let mut cut = 0;
    for _ in 0..1200 {
        let killed: Vec<bool> = sqlx::query_scalar(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid()
               AND wait_event_type = 'Lock'
               AND query LIKE 'UPDATE jobs SET state = ''succeeded''%'",
        )
        // Not in the holder's transaction: it would see one snapshot of the activity.
        .fetch_all(&app.pool)
        .await
        .expect("terminate");
        cut += killed.len();
        if cut > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(cut > 0, "the worker never reached its final write");
    holder.commit().await.expect("let the row go");
    worker.await.expect("the worker");
}

#[tokio::test]
async fn a_worker_cut_off_from_the_database_gets_its_job_back_later_without_spending_an_attempt() {
    // One attempt only: before issue 35 (F6) the lost connection failed the submission for good.
    let app = spawn_app_with(0, |s| {
        s.worker.max_attempts = 1;
        s.worker.transient_backoff_seconds = 1;
    })
    .await;
    app.challenge_with_split("q", "val", false).await;
    let (_, token) = app.team("q", "Owls").await;
    let id = app.submit("q", &token, "val", demo_results(true)).await;
    let claim = queue::claim(&app.pool, "w", 60)
        .await
        .expect("claim")
        .expect("job");
    run_cut_off(&app, &claim).await;

    let (state, attempts, max_attempts, transient, wait): (String, i32, i32, i32, f64) =
        sqlx::query_as(
            "SELECT state, attempts, max_attempts, transient_failures,
                    EXTRACT(EPOCH FROM run_after - now())::FLOAT8
             FROM jobs WHERE submission_id = $1",
        )
        .bind(id)
        .fetch_one(&app.pool)
        .await
        .expect("job");
    assert_eq!(
        (state.as_str(), attempts, max_attempts, transient),
        ("queued", 1, 2, 1),
        "queued again, its attempt given back"
    );
    assert!(wait > 0.0 && wait <= 1.0, "after the backoff: {wait}");
    let status: String = sqlx::query_scalar("SELECT status FROM submissions WHERE id = $1")
        .bind(id)
        .fetch_one(&app.pool)
        .await
        .expect("status");
    assert_eq!(status, "queued");

    tokio::time::sleep(Duration::from_millis(1100)).await;
    let settings = app.settings.worker.clone();
    assert!(
        spiceboard::jobs::run_once("w2", &app.pool, &app.engine, &settings)
            .await
            .expect("run"),
        "due again after the backoff"
    );
    assert_eq!(app.wait_for(id).await.0, "scored");
}

#[tokio::test]
async fn a_submission_that_failed_for_the_servers_reasons_does_not_count_against_the_quota() {
    let app = spawn_app_with(0, |s| {
        s.worker.max_attempts = 1;
        s.worker.transient_retries = 0;
    })
    .await;
    let c = app.challenge_with_split("q", "val", false).await;
    spiceboard::storage::challenges::set_limits(&app.pool, c.id, None, Some(1), c.max_file_bytes)
        .await
        .expect("limit of one upload");
    let (team, token) = app.team("q", "Owls").await;
    let id = app.submit("q", &token, "val", demo_results(true)).await;
    let claim = queue::claim(&app.pool, "w", 60)
        .await
        .expect("claim")
        .expect("job");
    // No retries left: the lost connection fails the submission, for the server's reasons.
    run_cut_off(&app, &claim).await;
    let (status, error, for_server): (String, Option<String>, bool) =
        sqlx::query_as("SELECT status, error, failed_for_server FROM submissions WHERE id = $1")
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .expect("submission");
    assert_eq!(
        (status.as_str(), error.as_deref(), for_server),
        (
            "failed",
            Some("the database failed while scoring it (the server's log has the details)"),
            true
        )
    );
    assert_eq!(
        spiceboard::storage::submissions::quota_used(&app.pool, team)
            .await
            .expect("quota"),
        (0, 0)
    );
    // The team's one upload is still theirs; once used, it is used.
    app.submit("q", &token, "val", fresh(demo_results(true)))
        .await;
    let r = app
        .api_upload("q", &token, Some("val"), fresh(demo_results(true)))
        .await;
    assert_eq!(r.status(), 429);
}

/// Issue 33, item 4: the worker stores how far its job has got as it goes (a write a second at
/// most, not one per caption), and the status page, its JSON and the API show it while the job
/// runs. A job that ran leaves its last count (every image of the split) and the stage it was in
/// before its results were written; a running job's count is shown with an estimate of the time
/// left.
#[tokio::test]
async fn a_running_jobs_progress_is_stored_and_shown() {
    let app = spawn_app_with(1, |_| {}).await;
    app.challenge_with_split("prog", "val", false).await;
    let (_, token) = app.team("prog", "Owls").await;
    let browser = app.member("prog", "Owls", "owl@example.com").await;
    let id = app.submit("prog", &token, "val", demo_results(true)).await;
    app.assert_scored(id).await;
    let images: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM image_results WHERE submission_id = $1")
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .expect("images");
    let (stage, done, total): (Option<String>, Option<i32>, Option<i32>) = sqlx::query_as(
        "SELECT progress_stage, progress_done, progress_total FROM jobs WHERE submission_id = $1",
    )
    .bind(id)
    .fetch_one(&app.pool)
    .await
    .expect("the job");
    assert_eq!(
        (stage.as_deref(), done.map(i64::from), total.map(i64::from)),
        (Some("writing"), Some(images), Some(images))
    );
    // Done, the job shows no progress.
    assert_eq!(
        app.api_status(id, &token).await["progress"],
        serde_json::Value::Null
    );

    // The job again, as a worker scoring it leaves its row: 3 of 8 images after 10 s.
    sqlx::query(
        "UPDATE jobs SET state = 'running', started_at = now() - interval '10 seconds',
            progress_stage = 'scoring', progress_done = 3, progress_total = 8
         WHERE submission_id = $1",
    )
    .bind(id)
    .execute(&app.pool)
    .await
    .expect("a running job");
    let api = app.api_status(id, &token).await;
    let line = api["progress"].as_str().unwrap_or_default().to_string();
    assert!(
        line.starts_with("scoring captions: 3 of 8 images, about ") && line.ends_with(" s left"),
        "{api}"
    );
    let status: serde_json::Value = browser
        .get(app.url(&format!("/s/{id}/status")))
        .send()
        .await
        .expect("status")
        .json()
        .await
        .expect("JSON");
    assert!(
        status["progress"]
            .as_str()
            .unwrap_or_default()
            .starts_with("scoring captions: 3 of 8"),
        "{status}"
    );
    let page = browser
        .get(app.url(&format!("/s/{id}")))
        .send()
        .await
        .expect("page")
        .text()
        .await
        .expect("text");
    assert!(
        page.contains("<span id=\"progress\"> · scoring captions: 3 of 8 images, about "),
        "{page}"
    );
    sqlx::query("UPDATE jobs SET progress_stage = 'classic' WHERE submission_id = $1")
        .bind(id)
        .execute(&app.pool)
        .await
        .expect("the next stage");
    assert_eq!(
        app.api_status(id, &token).await["progress"],
        "computing BLEU, METEOR, ROUGE-L and CIDEr-D"
    );
}
