//! Server benchmarks (issue 5, "Speed"), run with `cargo bench --bench server`: they start a
//! throwaway PostgreSQL cluster of their own and print their measurements.
//!
//! 1. Ingest the COCO val2014 references (needs `SPICEBOARD_DATA`, see scripts/fetch-data).
//! 2. A 5,000-image submission from upload to leaderboard (needs the engine's parser;
//!    `SPICEBOARD_BENCH_IMAGES` sets another size, up to the 40,504 images of val2014).
//! 3. p50/p99 of the leaderboard page with 1,000 scored submissions.
//! 4. 50 concurrent uploads.

use std::time::{Duration, Instant};

use spiceboard::actions::{self, SubmitLimits};
use spiceboard::cluster::{self, Cluster, ClusterOptions};
use spiceboard::configuration::Settings;
use spiceboard::domain::{ChallengeSlug, SplitName, TeamName, Title};
use spiceboard::scoring;
use spiceboard::startup::{self, Application};
use spiceboard::storage;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    if std::env::var_os("RUST_LOG").is_some() {
        spiceboard::telemetry::init(false);
    }
    let dir = tempfile::tempdir()?;
    let c = tokio::task::spawn_blocking({
        let d = dir.path().join("pg");
        move || Cluster::ensure_running(&d, &ClusterOptions::default())
    })
    .await??;
    let result = run(&c).await;
    c.stop()?;
    result
}

async fn run(c: &Cluster) -> anyhow::Result<()> {
    cluster::create_database_if_missing(c, "bench").await?;
    let url = c.url("bench");
    let db = spiceboard::configuration::DatabaseSettings {
        url: None,
        data_dir: None,
        max_connections: 32,
        // The benchmark saturates the pool on purpose: wait rather than answer 503.
        acquire_timeout_ms: 30_000,
    };
    let pool = startup::connect(&url, &db).await?;
    storage::migrate(&pool).await?;
    let engine = scoring::new_engine();
    let parses = engine.scene_graph(&["a dog"]).is_ok();
    println!(
        "machine: {} cores; engine parses text: {parses}",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );

    // 1. Ingestion of COCO val2014.
    let coco = std::env::var("SPICEBOARD_DATA")
        .ok()
        .map(|d| std::path::Path::new(&d).join("coco/captions_val2014.json"));
    let val = actions::create_challenge(
        &pool,
        &ChallengeSlug::parse("coco")?,
        &Title::parse("COCO val2014")?,
        "",
    )
    .await?;
    match coco.filter(|p| p.exists()) {
        Some(path) => {
            let bytes = std::fs::read(&path)?;
            let t = Instant::now();
            let r = actions::import_references(
                &pool,
                &engine,
                &val,
                &SplitName::parse("val2014")?,
                bytes,
                actions::ImportMode::default(),
            )
            .await?;
            println!(
                "ingest COCO val2014: {} images, {} captions in {:.1} s ({} without graph{})",
                r.images,
                r.captions,
                t.elapsed().as_secs_f64(),
                r.unparsed,
                if r.unparsed > 0 {
                    ": the parser is not available, so this measures storage only"
                } else {
                    ""
                }
            );
        }
        None => {
            println!("ingest COCO val2014: skipped (set SPICEBOARD_DATA, see scripts/fetch-data)")
        }
    }

    let mut settings = Settings::defaults();
    settings.application.port = 0;
    settings.database.url = Some(url.clone());
    settings.worker.poll_interval_ms = 50;
    // Workers run only while step 2 needs them.
    let app = Application::build(settings.clone(), pool.clone(), engine.clone(), 0).await?;
    let base = format!("http://127.0.0.1:{}", app.port());
    tokio::spawn(app.run_until_stopped());
    let http = reqwest::Client::new();

    // 2. A 5,000-image submission (or SPICEBOARD_BENCH_IMAGES), upload to leaderboard.
    let size: i64 = match std::env::var("SPICEBOARD_BENCH_IMAGES") {
        Ok(n) => n.parse()?,
        Err(_) => 5000,
    };
    if parses && actions::split(&pool, &val, "val2014").await.is_ok() {
        let split = actions::split(&pool, &val, "val2014").await?;
        let ids: Vec<(i64, serde_json::Value)> = sqlx::query_as(
            "SELECT image_id, captions FROM reference_images WHERE split_id = $1 ORDER BY image_id LIMIT $2",
        )
        .bind(split.id)
        .bind(size)
        .fetch_all(&pool)
        .await?;
        let refs = serde_json::json!({"annotations": ids.iter().flat_map(|(id, caps)| caps.as_array().into_iter().flatten().skip(1).map(move |c| serde_json::json!({"image_id": id, "caption": c}))).collect::<Vec<_>>()});
        actions::import_references(
            &pool,
            &engine,
            &val,
            &SplitName::parse("subset")?,
            refs.to_string().into_bytes(),
            actions::ImportMode::default(),
        )
        .await?;
        let results: Vec<serde_json::Value> = ids
            .iter()
            .map(|(id, caps)| serde_json::json!({"image_id": id, "caption": caps[0]}))
            .collect();
        let (_, token) =
            actions::create_team(&pool, &val, &TeamName::parse("Bench")?, None).await?;
        let (stop, rx) = tokio::sync::watch::channel(false);
        let workers = spiceboard::jobs::spawn_workers(
            1,
            pool.clone(),
            engine.clone(),
            settings.worker.clone(),
            rx,
        );
        let t = Instant::now();
        let form = reqwest::multipart::Form::new()
            .text("split", "subset")
            .part(
                "file",
                reqwest::multipart::Part::bytes(serde_json::to_vec(&results)?).file_name("r.json"),
            );
        let r: serde_json::Value = http
            .post(format!("{base}/api/c/coco/submissions"))
            .bearer_auth(&token)
            .multipart(form)
            .send()
            .await?
            .json()
            .await?;
        let id = r["id"]
            .as_i64()
            .ok_or_else(|| anyhow::anyhow!("upload failed: {r}"))?;
        for _ in 0..30_000 {
            let status: String = sqlx::query_scalar("SELECT status FROM submissions WHERE id = $1")
                .bind(id)
                .fetch_one(&pool)
                .await?;
            if status == "scored" || status == "failed" {
                println!(
                    "{}-image submission: {status} and on the leaderboard {:.2} s after upload",
                    ids.len(),
                    t.elapsed().as_secs_f64()
                );
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let _ = stop.send(true);
        for w in workers {
            w.await?;
        }
    } else {
        println!("{size}-image submission: skipped (needs the parser and the val2014 references)");
    }

    // 3. Leaderboard with 1,000 scored submissions (aggregates written directly: this measures
    // the page, not the engine).
    let lb = actions::create_challenge(
        &pool,
        &ChallengeSlug::parse("lb")?,
        &Title::parse("Leaderboard bench")?,
        "",
    )
    .await?;
    let refs = serde_json::json!({"annotations": (1..=20).map(|i| serde_json::json!({"image_id": i, "caption": "a caption"})).collect::<Vec<_>>()});
    actions::import_references(
        &pool,
        &engine,
        &lb,
        &SplitName::parse("val")?,
        refs.to_string().into_bytes(),
        actions::ImportMode::default(),
    )
    .await?;
    let split = actions::split(&pool, &lb, "val").await?;
    let results = serde_json::to_vec(
        &(1..=20)
            .map(|i| serde_json::json!({"image_id": i, "caption": "a dog"}))
            .collect::<Vec<_>>(),
    )?;
    let limits = SubmitLimits {
        max_caption_chars: 1000,
        max_attempts: 3,
        disk_floor: None,
    };
    let mut tokens = Vec::new();
    for i in 0..1000 {
        let (team, token) =
            actions::create_team(&pool, &lb, &TeamName::parse(&format!("Team {i:04}"))?, None)
                .await?;
        if i < 50 {
            tokens.push(token);
        }
        let s = actions::submit(
            &pool,
            &lb,
            &split,
            actions::Uploader::Team {
                team_id: team.id,
                user_id: None,
            },
            "",
            &spiceboard::domain::SubmissionMethod::default(),
            results.clone(),
            limits.clone(),
        )
        .await?;
        let f = f64::from(i % 97) / 100.0;
        let aggregates = spiceboard::domain::CATEGORIES
            .iter()
            .map(|c| storage::scores::CategoryScore {
                category: c.to_string(),
                tp: 1,
                fp: 1,
                fn_: 1,
                precision: Some(f),
                recall: Some(f),
                f: Some(f),
                images: 20,
            })
            .collect();
        let mut tx = pool.begin().await?;
        // Jobs row first, then the submission: the workers' lock order.
        sqlx::query("UPDATE jobs SET state = 'succeeded' WHERE submission_id = $1")
            .bind(s.id)
            .execute(&mut *tx)
            .await?;
        storage::scores::write(
            &mut tx,
            s.id,
            &storage::scores::SubmissionResult {
                images: vec![],
                aggregates,
                classic: None,
                front_end: "built-in",
            },
        )
        .await?;
        tx.commit().await?;
    }
    let mut times = Vec::new();
    for i in 0..300 {
        let sort = ["spice", "object", "count"][i % 3];
        let t = Instant::now();
        let r = http
            .get(format!("{base}/c/lb/leaderboard?sort={sort}"))
            .send()
            .await?;
        let body = r.text().await?;
        times.push(t.elapsed());
        anyhow::ensure!(body.contains("Team 0999"), "the page lacks entries");
    }
    times.sort();
    println!(
        "leaderboard page, 1,000 entries, 300 requests: p50 {:.1} ms, p99 {:.1} ms",
        percentile(&times, 0.5).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3
    );

    // 4. 50 concurrent uploads.
    sqlx::query(
        "UPDATE challenges SET daily_submission_limit = NULL, total_submission_limit = NULL",
    )
    .execute(&pool)
    .await?;
    let t = Instant::now();
    let uploads = tokens.iter().map(|token| {
        let (http, base, token, results) =
            (http.clone(), base.clone(), token.clone(), results.clone());
        tokio::spawn(async move {
            let form = reqwest::multipart::Form::new().text("split", "val").part(
                "file",
                reqwest::multipart::Part::bytes(results).file_name("r.json"),
            );
            http.post(format!("{base}/api/c/lb/submissions"))
                .bearer_auth(token)
                .multipart(form)
                .send()
                .await
                .map(|r| r.status().as_u16())
        })
    });
    let mut ok = 0;
    for u in futures_util::future::join_all(uploads).await {
        if matches!(u, Ok(Ok(202))) {
            ok += 1;
        }
    }
    println!(
        "50 concurrent uploads: {ok} accepted (202) in {:.2} s",
        t.elapsed().as_secs_f64()
    );
    pool.close().await;
    Ok(())
}
