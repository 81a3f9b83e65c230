//! Server benchmarks (issues 5 and 33), run with
//! `SPICEBOARD_DATA="$(scripts/fetch-data)" cargo bench --bench server`. They start a throwaway
//! PostgreSQL cluster of their own (the settings `serve`'s private cluster has, durable), which
//! logs every statement that takes over a second, and print a table of their measurements.
//!
//! 1. Import the COCO val2014 references: all 40,504 images, 202,654 captions parsed and stored.
//! 2. Splits of the first 5,000 and 20,000 images (imported as well), and on each split measured
//!    50 earlier scored submissions: one 40,504-image submission is scored for real, then its
//!    rows are copied (`INSERT ... SELECT`) into the others, restricted to each split's images,
//!    and the tables are vacuumed and analyzed, as autovacuum leaves a server that took them.
//! 3. Submissions of 5,000, 20,000 and 40,504 images through the API, each timed from the upload
//!    to its scores and uncertainty intervals on the leaderboard (one worker, as `serve` runs).
//! 4. Pages of the 40,504-image split, through HTTP: the leaderboard, the compare page of the new
//!    40,504-image entry and an earlier one, a per-image page (p50/p99), the submission page and
//!    its per-image CSV.
//! 5. The leaderboard page with 1,000 entries, and 50 concurrent uploads.
//! 6. The statements the server logged as taking over a second (`log_min_duration_statement`),
//!    the bench's own seeding left out.
//!
//! Sizes are set by environment variables, so that a quick run is possible:
//! `SPICEBOARD_BENCH_IMPORT` (images imported, default all), `SPICEBOARD_BENCH_SIZES`
//! (submission sizes, default `5000,20000,40504`; a size above the import is the whole split),
//! `SPICEBOARD_BENCH_EARLIER` (earlier submissions per split, default 50),
//! `SPICEBOARD_BENCH_REQUESTS` (requests per page, default 40) and
//! `SPICEBOARD_BENCH_ENTRIES` (entries of the large leaderboard, default 1,000);
//! `SPICEBOARD_BENCH_HOLD=FILE` keeps the cluster running at the end, for EXPLAIN ANALYZE,
//! until FILE is removed. For example
//! `SPICEBOARD_BENCH_IMPORT=3000 SPICEBOARD_BENCH_SIZES=500,1000,3000 SPICEBOARD_BENCH_EARLIER=5`.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use secrecy::ExposeSecret;
use spiceboard::actions::{self, SubmitLimits};
use spiceboard::cluster::{self, Cluster, ClusterOptions};
use spiceboard::configuration::Settings;
use spiceboard::domain::results_file::ParseBudget;
use spiceboard::domain::{ChallengeSlug, SplitName, TeamName, Title};
use spiceboard::scoring::{self, SharedEngine};
use spiceboard::startup::{self, Application};
use spiceboard::storage;
use sqlx::PgPool;

/// What the bench is asked to measure (environment variables, see the module's documentation).
struct Plan {
    import: Option<usize>,
    sizes: Vec<usize>,
    earlier: usize,
    requests: usize,
    entries: usize,
}

impl Plan {
    fn from_env() -> anyhow::Result<Plan> {
        let number = |name: &str| -> anyhow::Result<Option<usize>> {
            match std::env::var(name) {
                Ok(v) => Ok(Some(v.trim().replace([',', '_'], "").parse()?)),
                Err(_) => Ok(None),
            }
        };
        let sizes = match std::env::var("SPICEBOARD_BENCH_SIZES") {
            Ok(v) => v
                .split(',')
                .map(|s| s.trim().parse::<usize>())
                .collect::<Result<Vec<_>, _>>()?,
            Err(_) => vec![5000, 20000, 40504],
        };
        Ok(Plan {
            import: number("SPICEBOARD_BENCH_IMPORT")?,
            sizes,
            earlier: number("SPICEBOARD_BENCH_EARLIER")?.unwrap_or(50).max(1),
            requests: number("SPICEBOARD_BENCH_REQUESTS")?.unwrap_or(40).max(1),
            entries: number("SPICEBOARD_BENCH_ENTRIES")?.unwrap_or(1000),
        })
    }
}

/// The table printed at the end: what was measured, the result, and the goal if there is one.
#[derive(Default)]
struct Report {
    rows: Vec<(String, String, String)>,
}

impl Report {
    fn add(&mut self, what: impl Into<String>, result: impl Into<String>, goal: &str) {
        let (what, result) = (what.into(), result.into());
        println!("{what}: {result}");
        self.rows.push((what, result, goal.to_string()));
    }

    fn print(&self) {
        println!("\n| measurement | result | goal |\n|---|---:|---|");
        for (what, result, goal) in &self.rows {
            println!("| {what} | {result} | {goal} |");
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (k, c) in s.chars().enumerate() {
        if k > 0 && (s.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    if std::env::var_os("RUST_LOG").is_some() {
        spiceboard::telemetry::init(false);
    }
    let plan = Plan::from_env()?;
    let dir = tempfile::tempdir()?;
    let data_dir = dir.path().join("pg");
    let c = tokio::task::spawn_blocking({
        let d = data_dir.clone();
        move || Cluster::ensure_running(&d, &ClusterOptions::default())
    })
    .await??;
    // Where `Cluster` keeps the server's log (see src/cluster.rs).
    let log = data_dir.join("pgdata").join("server.log");
    let result = run(&c, &plan, &log).await;
    c.stop()?;
    result
}

async fn run(c: &Cluster, plan: &Plan, log: &Path) -> anyhow::Result<()> {
    cluster::create_database_if_missing(c, "bench").await?;
    let url = c.url("bench");
    // Every statement of a second or more goes to the server's log (the role is the cluster's
    // superuser), read back at the end.
    let admin = startup::connect(
        &url,
        &spiceboard::configuration::DatabaseSettings {
            url: None,
            data_dir: None,
            max_connections: 2,
            acquire_timeout_ms: 30_000,
        },
    )
    .await?;
    sqlx::query("ALTER SYSTEM SET log_min_duration_statement = 1000")
        .execute(&admin)
        .await?;
    sqlx::query("SELECT pg_reload_conf()")
        .execute(&admin)
        .await?;
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
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "machine: {} cores, load average {}; engine parses text: {parses}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    let mut report = Report::default();

    let mut settings = Settings::defaults();
    settings.application.port = 0;
    settings.database.url = Some(url.clone());
    settings.worker.poll_interval_ms = 50;
    let app = Application::build(settings.clone(), pool.clone(), engine.clone(), 0).await?;
    let base = format!("http://127.0.0.1:{}", app.port());
    tokio::spawn(app.run_until_stopped());
    let http = reqwest::Client::new();

    let coco = std::env::var("SPICEBOARD_DATA")
        .ok()
        .map(|d| Path::new(&d).join("coco/captions_val2014.json"))
        .filter(|p| p.exists());
    match (coco, parses) {
        (Some(path), true) => {
            coco_scale(
                &pool,
                &admin,
                &engine,
                &settings,
                &http,
                &base,
                plan,
                &path,
                &mut report,
            )
            .await?
        }
        (None, _) => println!(
            "COCO val2014: skipped (set SPICEBOARD_DATA, see scripts/fetch-data): no import, \
             submissions or pages at COCO's sizes"
        ),
        (_, false) => println!("COCO val2014: skipped (the engine cannot parse)"),
    }

    large_leaderboard(&pool, &engine, &http, &base, plan, &mut report).await?;

    let slow = slow_statements(log)?;
    report.add(
        "statements over 1 s in the server's log",
        slow.len().to_string(),
        "0",
    );
    for (duration, statement) in &slow {
        println!("  {duration}: {statement}");
    }
    report.print();
    if let Ok(hold) = std::env::var("SPICEBOARD_BENCH_HOLD") {
        // Keep the cluster for a look at its plans (EXPLAIN ANALYZE) until the file goes.
        std::fs::write(&hold, "")?;
        println!(
            "holding the cluster until {hold} is removed: psql {}",
            url.expose_secret()
        );
        while Path::new(&hold).exists() {
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
    pool.close().await;
    admin.close().await;
    Ok(())
}

/// One split of the COCO challenge: its name and its images with their reference captions, in
/// image id order.
struct CocoSplit {
    name: String,
    id: i64,
    images: Vec<(i64, Vec<String>)>,
}

/// Steps 1 to 4 (see the module's documentation).
#[allow(clippy::too_many_arguments)]
async fn coco_scale(
    pool: &PgPool,
    admin: &PgPool,
    engine: &SharedEngine,
    settings: &Settings,
    http: &reqwest::Client,
    base: &str,
    plan: &Plan,
    path: &Path,
    report: &mut Report,
) -> anyhow::Result<()> {
    actions::create_challenge(
        pool,
        &ChallengeSlug::parse("coco")?,
        &Title::parse("COCO val2014")?,
        "",
        None,
    )
    .await?;
    // Uploads of any number, as the bench makes them.
    sqlx::query("UPDATE challenges SET daily_submission_limit = NULL, total_submission_limit = NULL, max_file_bytes = 100000000")
        .execute(pool)
        .await?;
    let challenge = actions::challenge(pool, "coco").await?;

    // 1. The references, all of val2014 (or the first SPICEBOARD_BENCH_IMPORT images).
    let file = std::fs::read(path)?;
    let all = images_of(&file)?;
    let total = plan.import.unwrap_or(all.len()).min(all.len());
    let full_bytes = if total == all.len() {
        file
    } else {
        annotations(&all[..total])
    };
    drop(all);
    let started = Instant::now();
    let r = actions::import_references(
        pool,
        engine,
        &challenge,
        &SplitName::parse("val2014")?,
        full_bytes,
        actions::ImportMode::default(),
    )
    .await?;
    let took = started.elapsed();
    report.add(
        format!(
            "import: {} images, {} captions parsed and stored",
            thousands(r.images),
            thousands(r.captions)
        ),
        format!("{:.1} s", took.as_secs_f64()),
        if r.images == 40504 { "<= 30 s" } else { "" },
    );
    let full = coco_split(pool, &challenge, "val2014").await?;

    // 2. A split for each smaller size (its first images), and 50 earlier submissions on each.
    let mut sizes: Vec<usize> = plan.sizes.iter().map(|&n| n.min(total)).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut splits: Vec<CocoSplit> = Vec::new();
    for &n in &sizes {
        if n == total {
            continue;
        }
        let name = format!("first-{n}");
        let started = Instant::now();
        actions::import_references(
            pool,
            engine,
            &challenge,
            &SplitName::parse(&name)?,
            annotations(&full.images[..n]),
            actions::ImportMode::default(),
        )
        .await?;
        report.add(
            format!("import: {} images (split {name})", thousands(n)),
            format!("{:.1} s", started.elapsed().as_secs_f64()),
            "",
        );
        splits.push(coco_split(pool, &challenge, &name).await?);
    }
    splits.push(full);

    let limits = SubmitLimits {
        max_caption_chars: settings.limits.max_caption_chars,
        parse_words_per_image: ParseBudget::DEFAULT_WORDS_PER_IMAGE,
        max_attempts: 3,
        disk_floor: None,
    };
    let (stop, rx) = tokio::sync::watch::channel(false);
    let workers = spiceboard::jobs::spawn_workers(
        settings.worker.concurrency,
        pool.clone(),
        engine.clone(),
        settings.worker.clone(),
        rx,
    );

    // The one real earlier submission: every image of the whole split, each image's first
    // reference as the caption. Scored by the worker on tables that hold nothing yet.
    let whole = splits.last().expect("the whole split");
    let (team, _) =
        actions::create_team(pool, &challenge, &TeamName::parse("Earlier 1")?, None).await?;
    let split = actions::split(pool, &challenge, &whole.name).await?;
    let started = Instant::now();
    let s = actions::submit(
        pool,
        &challenge,
        &split,
        actions::Uploader::Team {
            team_id: team.id,
            user_id: None,
        },
        "",
        &spiceboard::domain::SubmissionMethod::default(),
        results(&whole.images, 0),
        limits.clone(),
    )
    .await?;
    wait_scored(pool, s.id).await?;
    report.add(
        format!(
            "{}-image submission on empty tables (the earlier ones' source), submit to leaderboard",
            thousands(whole.images.len())
        ),
        format!("{:.2} s", started.elapsed().as_secs_f64()),
        "",
    );
    let source = s.id;

    let started = Instant::now();
    let mut seeding = admin.acquire().await?;
    // The bench's own statements are not the server's: not logged.
    sqlx::query("SET log_min_duration_statement = -1")
        .execute(&mut *seeding)
        .await?;
    let mut earlier: HashMap<String, Vec<i64>> = HashMap::new();
    let mut team_number = 1;
    for split in &splits {
        let mut ids = Vec::new();
        if split.name == whole.name {
            ids.push(source);
        }
        while ids.len() < plan.earlier {
            team_number += 1;
            let (team, _) = actions::create_team(
                pool,
                &challenge,
                &TeamName::parse(&format!("Earlier {team_number}"))?,
                None,
            )
            .await?;
            // The first copy on a smaller split keeps its images only and gets its intervals
            // computed; the others copy it whole.
            let (from, whole_copy) = match ids.first() {
                Some(&first) => (first, true),
                None => (source, false),
            };
            let id = copy_submission(&mut seeding, from, split.id, team.id, whole_copy).await?;
            if !whole_copy {
                let images = storage::uncertainty::per_image(&mut *seeding, id).await?;
                let intervals = spiceboard::domain::uncertainty::intervals(&images);
                storage::uncertainty::store(&mut seeding, id, &intervals, true).await?;
            }
            ids.push(id);
        }
        earlier.insert(split.name.clone(), ids);
    }
    let copied = started.elapsed();
    // What autovacuum does to tables that took that many rows: a real server would have it done
    // long before the next submission.
    let started = Instant::now();
    sqlx::query("VACUUM ANALYZE").execute(&mut *seeding).await?;
    let (results_rows, scores_rows, size): (i64, i64, String) = sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM image_results), (SELECT COUNT(*) FROM image_scores),
                pg_size_pretty(pg_database_size(current_database()))",
    )
    .fetch_one(&mut *seeding)
    .await?;
    report.add(
        format!(
            "seeding (not the server's work): {} earlier submissions per split, {} image results, \
             {} category scores, database {size}",
            plan.earlier,
            thousands(results_rows as usize),
            thousands(scores_rows as usize)
        ),
        format!(
            "copied in {:.1} s, vacuumed and analyzed in {:.1} s",
            copied.as_secs_f64(),
            started.elapsed().as_secs_f64()
        ),
        "",
    );
    drop(seeding);

    // 3. The submissions measured: each image's last reference as its caption.
    let mut new_entries: HashMap<String, i64> = HashMap::new();
    let mut member_session = None;
    for split in &splits {
        let n = split.images.len();
        let name = TeamName::parse(&format!("Measured {n}"))?;
        // The largest is looked at by its team: a member with a session.
        let member = if split.name == whole.name {
            let (user, session) = session(pool, "bench@example.org").await?;
            member_session = Some(session);
            Some(user)
        } else {
            None
        };
        let (_, token) = actions::create_team(pool, &challenge, &name, member).await?;
        let bytes = results(&split.images, usize::MAX);
        let started = Instant::now();
        let form = reqwest::multipart::Form::new()
            .text("split", split.name.clone())
            .part(
                "file",
                reqwest::multipart::Part::bytes(bytes).file_name("results.json"),
            );
        let r: serde_json::Value = http
            .post(format!("{base}/api/c/coco/submissions"))
            .bearer_auth(&token)
            .multipart(form)
            .send()
            .await?
            .json()
            .await?;
        let accepted = started.elapsed();
        let id = r["id"]
            .as_i64()
            .ok_or_else(|| anyhow::anyhow!("upload failed: {r}"))?;
        wait_scored(pool, id).await?;
        let on_board = started.elapsed();
        // On the leaderboard, with its interval.
        let board: serde_json::Value = http
            .get(format!(
                "{base}/c/coco/leaderboard.json?split={}",
                split.name
            ))
            .send()
            .await?
            .json()
            .await?;
        let entry = board["entries"]
            .as_array()
            .and_then(|e| e.iter().find(|e| e["submission_id"] == id))
            .ok_or_else(|| anyhow::anyhow!("submission {id} is not on the leaderboard"))?;
        anyhow::ensure!(
            entry["interval"].is_array(),
            "submission {id} has no interval on the leaderboard: {entry}"
        );
        let (queued, ran): (f64, f64) = sqlx::query_as(
            "SELECT EXTRACT(EPOCH FROM j.started_at - j.created_at)::FLOAT8,
                    EXTRACT(EPOCH FROM s.scored_at - j.started_at)::FLOAT8
             FROM jobs j JOIN submissions s ON s.id = j.submission_id WHERE s.id = $1",
        )
        .bind(id)
        .fetch_one(pool)
        .await?;
        let goal = match n {
            5000 => "<= 3 s",
            40504 => "<= 20 s",
            _ => "",
        };
        // `scored_at` is the start of the job's final transaction: what follows it is the
        // writing of the results and intervals, and this bench's polling (20 ms).
        let writing = on_board.as_secs_f64() - accepted.as_secs_f64() - queued - ran;
        report.add(
            format!(
                "{}-image submission, {} earlier on its split: upload to leaderboard, intervals included",
                thousands(n),
                earlier[&split.name].len()
            ),
            format!(
                "{:.2} s (upload answered {:.2} s, queued {:.2} s, scoring {:.2} s, writing {:.2} s)",
                on_board.as_secs_f64(),
                accepted.as_secs_f64(),
                queued,
                ran,
                writing
            ),
            goal,
        );
        new_entries.insert(split.name.clone(), id);
    }
    let _ = stop.send(true);
    for w in workers {
        w.await?;
    }

    // 4. The pages of the whole split, right after (the statistics as they are then).
    let new = new_entries[&whole.name];
    let old = earlier[&whole.name][0];
    let n = thousands(whole.images.len());
    let entries = earlier[&whole.name].len() + 1;
    let times = timed(http, plan.requests, |k| {
        let sort = ["spice", "object", "cider_d"][k % 3];
        (
            format!("{base}/c/coco/leaderboard?split={}&sort={sort}", whole.name),
            None,
        )
    })
    .await?;
    report.add(
        format!("leaderboard page, {entries} entries of {n} images"),
        spread(&times),
        "",
    );
    let times = timed(http, plan.requests, |_| {
        (
            format!("{base}/c/coco/compare?split={}&a={new}&b={old}", whole.name),
            None,
        )
    })
    .await?;
    report.add(
        format!("compare page of two {n}-image entries"),
        format!("first {:.0} ms, {}", ms(times.first), spread(&times)),
        "<= 1 s",
    );
    let session = member_session.expect("the member's session");
    let step = (whole.images.len() / plan.requests).max(1);
    let times = timed(http, plan.requests, |k| {
        let image = whole.images[(k * step + step / 2) % whole.images.len()].0;
        (
            format!("{base}/s/{new}/images/{image}"),
            Some(session.clone()),
        )
    })
    .await?;
    report.add(
        format!("per-image page of a {n}-image submission"),
        spread(&times),
        "",
    );
    let times = timed(http, plan.requests.min(10), |k| {
        (
            format!("{base}/s/{new}?page={}", 1 + k % 3),
            Some(session.clone()),
        )
    })
    .await?;
    report.add(
        format!("submission page of a {n}-image submission (worst images first)"),
        spread(&times),
        "",
    );
    let times = timed(http, 3, |_| {
        (format!("{base}/s/{new}/images.csv"), Some(session.clone()))
    })
    .await?;
    report.add(
        format!("per-image CSV of a {n}-image submission"),
        spread(&times),
        "",
    );
    Ok(())
}

/// The images of a COCO annotation file with their captions, in image id order.
fn images_of(file: &[u8]) -> anyhow::Result<Vec<(i64, Vec<String>)>> {
    #[derive(serde::Deserialize)]
    struct Annotation {
        image_id: i64,
        caption: String,
    }
    #[derive(serde::Deserialize)]
    struct File {
        annotations: Vec<Annotation>,
    }
    let f: File = serde_json::from_slice(file)?;
    let mut images: std::collections::BTreeMap<i64, Vec<String>> = Default::default();
    for a in f.annotations {
        images.entry(a.image_id).or_default().push(a.caption);
    }
    Ok(images.into_iter().collect())
}

/// A COCO annotation file of `images`.
fn annotations(images: &[(i64, Vec<String>)]) -> Vec<u8> {
    let annotations: Vec<serde_json::Value> = images
        .iter()
        .flat_map(|(id, captions)| {
            captions
                .iter()
                .map(move |c| serde_json::json!({"image_id": id, "caption": c}))
        })
        .collect();
    serde_json::json!({ "annotations": annotations })
        .to_string()
        .into_bytes()
}

/// A results file of `images`, each captioned by its reference number `k` (the last one past
/// the end).
fn results(images: &[(i64, Vec<String>)], k: usize) -> Vec<u8> {
    let results: Vec<serde_json::Value> = images
        .iter()
        .map(|(id, captions)| {
            let caption = captions.get(k).or(captions.last());
            serde_json::json!({"image_id": id, "caption": caption})
        })
        .collect();
    serde_json::to_vec(&results).expect("JSON")
}

async fn coco_split(
    pool: &PgPool,
    challenge: &spiceboard::storage::challenges::Challenge,
    name: &str,
) -> anyhow::Result<CocoSplit> {
    let split = actions::split(pool, challenge, name).await?;
    let rows: Vec<(i64, serde_json::Value)> = sqlx::query_as(
        "SELECT image_id, captions FROM reference_images WHERE split_id = $1 ORDER BY image_id",
    )
    .bind(split.id)
    .fetch_all(pool)
    .await?;
    let images = rows
        .into_iter()
        .map(|(id, c)| Ok((id, serde_json::from_value(c)?)))
        .collect::<anyhow::Result<_>>()?;
    Ok(CocoSplit {
        name: name.to_string(),
        id: split.id,
        images,
    })
}

/// Waits until the submission is scored (or fails: an error).
async fn wait_scored(pool: &PgPool, id: i64) -> anyhow::Result<()> {
    loop {
        let (status, error): (String, Option<String>) =
            sqlx::query_as("SELECT status, error FROM submissions WHERE id = $1")
                .bind(id)
                .fetch_one(pool)
                .await?;
        match status.as_str() {
            "scored" => return Ok(()),
            "failed" => anyhow::bail!("submission {id} failed: {error:?}"),
            _ => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}

/// Copies submission `from`'s scores into a new scored submission of `team` on split `split`:
/// what a scoring would have written, in a fraction of the time. Without `whole`, only the images
/// of `split` are kept, the aggregates are summed again from them and no interval is copied (the
/// caller computes them). Each copy's rows are written together, as a job's COPY writes them.
async fn copy_submission(
    db: &mut sqlx::PgConnection,
    from: i64,
    split: i64,
    team: i64,
    whole: bool,
) -> anyhow::Result<i64> {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO submissions (split_id, kind, team_id, description, raw_file, sha256,
                                  byte_size, status, scored_at, front_end)
         SELECT $2, 'team', $3, 'copied by the bench', raw_file, md5(random()::TEXT), byte_size,
                'scored', now(), front_end
         FROM submissions WHERE id = $1
         RETURNING id",
    )
    .bind(from)
    .bind(split)
    .bind(team)
    .fetch_one(&mut *db)
    .await?;
    sqlx::query(
        "INSERT INTO jobs (kind, submission_id, state, attempts, started_at, finished_at)
         VALUES ('score_submission', $1, 'succeeded', 1, now(), now())",
    )
    .bind(id)
    .execute(&mut *db)
    .await?;
    for (table, columns, order) in [
        (
            "image_results",
            "image_id, caption, spice_f, details, classic",
            "image_id",
        ),
        (
            "image_scores",
            "image_id, category, tp, fp, fn, precision, recall, f",
            "image_id",
        ),
    ] {
        let keep = if whole {
            String::new()
        } else {
            format!(
                "AND x.image_id IN (SELECT image_id FROM reference_images WHERE split_id = {split})"
            )
        };
        let selected = columns
            .split(", ")
            .map(|c| format!("x.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        sqlx::query(&format!(
            "INSERT INTO {table} (submission_id, {columns})
             SELECT $2, {selected} FROM {table} x WHERE x.submission_id = $1 {keep}
             ORDER BY x.{order}"
        ))
        .bind(from)
        .bind(id)
        .execute(&mut *db)
        .await?;
    }
    if whole {
        sqlx::query(
            "INSERT INTO aggregate_scores (submission_id, category, precision, recall, f, tp, fp, fn, images)
             SELECT $2, category, precision, recall, f, tp, fp, fn, images
             FROM aggregate_scores WHERE submission_id = $1",
        )
        .bind(from)
        .bind(id)
        .execute(&mut *db)
        .await?;
        sqlx::query(
            "INSERT INTO score_intervals
                 (submission_id, metric, estimate, low, high, images, image_set, seed, replicates)
             SELECT $2, metric, estimate, low, high, images, image_set, seed, replicates
             FROM score_intervals WHERE submission_id = $1",
        )
        .bind(from)
        .bind(id)
        .execute(&mut *db)
        .await?;
    } else {
        // Macro averages over the images kept (the engine's rule, near enough for a bench).
        sqlx::query(
            "INSERT INTO aggregate_scores (submission_id, category, precision, recall, f, tp, fp, fn, images)
             SELECT $1, category, AVG(precision), AVG(recall), AVG(f), SUM(tp), SUM(fp), SUM(fn),
                    COUNT(f)
             FROM image_scores WHERE submission_id = $1 GROUP BY category",
        )
        .bind(id)
        .execute(&mut *db)
        .await?;
    }
    sqlx::query(
        "INSERT INTO classic_scores (submission_id, bleu_4, meteor, rouge_l, cider_d, details)
         SELECT $2, bleu_4, meteor, rouge_l, cider_d, details FROM classic_scores
         WHERE submission_id = $1",
    )
    .bind(from)
    .bind(id)
    .execute(&mut *db)
    .await?;
    Ok(id)
}

/// A user with a browser session: the user's id and the session's cookie.
async fn session(pool: &PgPool, email: &str) -> anyhow::Result<(i64, String)> {
    let hash =
        spiceboard::auth::hash_password("a long password").map_err(|e| anyhow::anyhow!("{e}"))?;
    let user = storage::accounts::create_user(pool, email, &hash, false)
        .await?
        .ok_or_else(|| anyhow::anyhow!("{email} exists"))?;
    let token = spiceboard::auth::new_token();
    storage::accounts::create_session(
        pool,
        &spiceboard::auth::token_hash(&token),
        user.id,
        &hash,
        chrono::Utc::now() + chrono::Duration::days(1),
    )
    .await?;
    Ok((
        user.id,
        format!("{}={token}", spiceboard::auth::SESSION_COOKIE),
    ))
}

/// The times of `n` requests, one after the other, each a GET of `request(k)`'s URL with its
/// cookie; the first, then all sorted.
struct Times {
    first: Duration,
    sorted: Vec<Duration>,
}

async fn timed(
    http: &reqwest::Client,
    n: usize,
    request: impl Fn(usize) -> (String, Option<String>),
) -> anyhow::Result<Times> {
    let mut sorted = Vec::with_capacity(n);
    for k in 0..n {
        let (url, cookie) = request(k);
        let started = Instant::now();
        let mut r = http.get(&url);
        if let Some(cookie) = cookie {
            r = r.header("Cookie", cookie);
        }
        let r = r.send().await?;
        let status = r.status();
        let body = r.bytes().await?;
        sorted.push(started.elapsed());
        anyhow::ensure!(
            status.is_success(),
            "GET {url}: {status}: {}",
            String::from_utf8_lossy(&body[..body.len().min(300)])
        );
    }
    let first = sorted[0];
    sorted.sort();
    Ok(Times { first, sorted })
}

fn spread(t: &Times) -> String {
    format!(
        "p50 {:.1} ms, p99 {:.1} ms ({} requests)",
        ms(percentile(&t.sorted, 0.5)),
        ms(percentile(&t.sorted, 0.99)),
        t.sorted.len()
    )
}

/// Step 5: the leaderboard page with `plan.entries` scored submissions (aggregates written
/// directly: this measures the page, not the engine), and 50 concurrent uploads.
async fn large_leaderboard(
    pool: &PgPool,
    engine: &SharedEngine,
    http: &reqwest::Client,
    base: &str,
    plan: &Plan,
    report: &mut Report,
) -> anyhow::Result<()> {
    if plan.entries == 0 {
        return Ok(());
    }
    let lb = actions::create_challenge(
        pool,
        &ChallengeSlug::parse("lb")?,
        &Title::parse("Leaderboard bench")?,
        "",
        None,
    )
    .await?;
    let refs = serde_json::json!({"annotations": (1..=20).map(|i| serde_json::json!({"image_id": i, "caption": "a caption"})).collect::<Vec<_>>()});
    actions::import_references(
        pool,
        engine,
        &lb,
        &SplitName::parse("val")?,
        refs.to_string().into_bytes(),
        actions::ImportMode::default(),
    )
    .await?;
    let split = actions::split(pool, &lb, "val").await?;
    let results = |caption: &str| {
        serde_json::to_vec(
            &(1..=20)
                .map(|i| serde_json::json!({"image_id": i, "caption": caption}))
                .collect::<Vec<_>>(),
        )
        .expect("JSON")
    };
    let limits = SubmitLimits {
        max_caption_chars: 1000,
        parse_words_per_image: ParseBudget::DEFAULT_WORDS_PER_IMAGE,
        max_attempts: 3,
        disk_floor: None,
    };
    let mut tokens = Vec::new();
    for i in 0..plan.entries {
        let (team, token) =
            actions::create_team(pool, &lb, &TeamName::parse(&format!("Team {i:04}"))?, None)
                .await?;
        if i < 50 {
            tokens.push(token);
        }
        let s = actions::submit(
            pool,
            &lb,
            &split,
            actions::Uploader::Team {
                team_id: team.id,
                user_id: None,
            },
            "",
            &spiceboard::domain::SubmissionMethod::default(),
            results("a dog"),
            limits.clone(),
        )
        .await?;
        let f = (i % 97) as f64 / 100.0;
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
    let last = format!("Team {:04}", plan.entries - 1);
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
        anyhow::ensure!(body.contains(&last), "the page lacks entries");
    }
    times.sort();
    report.add(
        format!("leaderboard page, {} entries", thousands(plan.entries)),
        format!(
            "p50 {:.1} ms, p99 {:.1} ms (300 requests)",
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.99))
        ),
        "",
    );

    // 50 concurrent uploads, each a file its team has not sent before.
    let t = Instant::now();
    let uploads = tokens.iter().enumerate().map(|(k, token)| {
        let (http, base, token) = (http.clone(), base.to_string(), token.clone());
        let file = results(&format!("a dog number {k}"));
        tokio::spawn(async move {
            let form = reqwest::multipart::Form::new().text("split", "val").part(
                "file",
                reqwest::multipart::Part::bytes(file).file_name("r.json"),
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
    let mut other = Vec::new();
    for u in futures_util::future::join_all(uploads).await {
        match u {
            Ok(Ok(202)) => ok += 1,
            Ok(Ok(status)) => other.push(status.to_string()),
            Ok(Err(e)) => other.push(e.to_string()),
            Err(e) => other.push(e.to_string()),
        }
    }
    report.add(
        format!("{} concurrent uploads", tokens.len()),
        format!(
            "{ok} accepted (202) in {:.2} s{}",
            t.elapsed().as_secs_f64(),
            if other.is_empty() {
                String::new()
            } else {
                format!("; others: {}", other.join(", "))
            }
        ),
        "",
    );
    Ok(())
}

/// The statements the server logged as slow (`log_min_duration_statement`): duration and
/// statement, whitespace folded, in log order.
fn slow_statements(log: &Path) -> anyhow::Result<Vec<(String, String)>> {
    let text = std::fs::read_to_string(log)?;
    // A record is a line that starts with the log line's timestamp and the lines after it that do
    // not (a statement's further lines).
    let mut records: Vec<String> = Vec::new();
    for line in text.lines() {
        match records.last_mut() {
            Some(last) if !line.starts_with(|c: char| c.is_ascii_digit()) => {
                last.push(' ');
                last.push_str(line.trim());
            }
            _ => records.push(line.to_string()),
        }
    }
    Ok(records
        .iter()
        .filter_map(|r| {
            let at = r.find("duration: ")?;
            let rest = &r[at + "duration: ".len()..];
            let (duration, statement) = rest.split_once("  ").unwrap_or((rest, ""));
            let statement = statement.split_whitespace().collect::<Vec<_>>().join(" ");
            let short: String = statement.chars().take(240).collect();
            Some((duration.to_string(), short))
        })
        .collect())
}
