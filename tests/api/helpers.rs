//! The test harness: ONE throwaway PostgreSQL cluster per test run (free port, temporary
//! directory, stopped when the test binary exits, or by a watchdog if it is killed), a template
//! database migrated once, and per test a fresh database cloned from the template with
//! `CREATE DATABASE ... TEMPLATE` plus an app on port 0.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use sqlx::{Connection, PgConnection, PgPool};

use spiceboard::actions;
use spiceboard::cluster::{Cluster, ClusterOptions};
use spiceboard::configuration::Settings;
use spiceboard::domain::{ChallengeSlug, SplitName, TeamName, Title};
use spiceboard::scoring::{self, SharedEngine};
use spiceboard::startup::{self, Application};

const TEMPLATE_DB: &str = "spiceboard_template";

struct TestCluster {
    cluster: Cluster,
    dir: PathBuf,
}

static CLUSTER: OnceLock<TestCluster> = OnceLock::new();

extern "C" fn stop_cluster_at_exit() {
    if let Some(tc) = CLUSTER.get() {
        let _ = tc.cluster.stop();
        let _ = std::fs::remove_dir_all(&tc.dir);
    }
}

/// A shell that outlives us only to stop the cluster if this process dies without running its
/// exit handlers (killed); it exits as soon as the cluster is down. It runs as the cluster's owner.
fn spawn_watchdog(cluster: &Cluster, dir: &std::path::Path) {
    use std::os::unix::process::CommandExt;
    let (pg_ctl, args, run_as) = cluster.stop_command();
    let me = std::process::id();
    let script = format!(
        "while [ -d /proc/{me} ]; do sleep 1; done; '{}' {} >/dev/null 2>&1; rm -rf '{}' 2>/dev/null",
        pg_ctl.display(),
        args.iter().map(|a| format!("'{a}'")).collect::<Vec<_>>().join(" "),
        dir.display()
    );
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg(script)
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if let Some((uid, gid)) = run_as {
        cmd.uid(uid).gid(gid);
    }
    let _ = cmd.spawn();
}

fn cluster() -> &'static TestCluster {
    CLUSTER.get_or_init(|| {
        // Under /tmp so that the postgres user can reach it when the tests run as root.
        let dir = std::env::temp_dir().join(format!("spiceboard-test-{}", std::process::id()));
        let cluster = Cluster::ensure_running(&dir, &ClusterOptions { ephemeral: true, ..Default::default() })
            .unwrap_or_else(|e| panic!("the tests need PostgreSQL's initdb/pg_ctl (scripts/install-test-deps installs them): {e}"));
        // SAFETY: registering a plain extern "C" function with atexit is sound.
        unsafe { libc::atexit(stop_cluster_at_exit) };
        spawn_watchdog(&cluster, &dir);
        // Migrate the template once, on a runtime of its own (tests run on their own runtimes).
        let url = cluster.url("postgres");
        let template_url = cluster.url(TEMPLATE_DB);
        std::thread::spawn(move || {
            let rt = tokio::runtime::Runtime::new().expect("a tokio runtime");
            rt.block_on(async {
                let mut conn = PgConnection::connect(url.expose_secret()).await.expect("connect to the test cluster");
                sqlx::query(&format!("CREATE DATABASE {TEMPLATE_DB}")).execute(&mut conn).await.expect("create the template");
                conn.close().await.expect("close");
                let pool = PgPool::connect(template_url.expose_secret()).await.expect("connect to the template");
                spiceboard::storage::migrate(&pool).await.expect("migrate the template");
                pool.close().await;
            })
        })
        .join()
        .expect("template migration thread");
        TestCluster { cluster, dir }
    })
}

/// A fresh database cloned from the migrated template.
pub async fn fresh_database() -> (String, SecretString) {
    let tc = cluster();
    let name = format!("test_{}", spiceboard::auth::new_token()[..16].to_owned());
    let mut conn = PgConnection::connect(tc.cluster.url("postgres").expose_secret())
        .await
        .expect("connect");
    sqlx::query(&format!("CREATE DATABASE {name} TEMPLATE {TEMPLATE_DB}"))
        .execute(&mut conn)
        .await
        .expect("clone the template");
    conn.close().await.expect("close");
    let url = tc.cluster.url(&name);
    (name, url)
}

pub struct TestApp {
    pub address: String,
    pub pool: PgPool,
    pub engine: SharedEngine,
    pub settings: Settings,
    /// A browser-like client: keeps cookies, does not follow redirects.
    pub client: reqwest::Client,
}

pub fn test_settings() -> Settings {
    let mut s = Settings::defaults();
    s.application.port = 0;
    s.database.max_connections = 8;
    // Tests run many apps at once on two cores: wait longer for a connection than production does.
    s.database.acquire_timeout_ms = 10_000;
    s.worker.lease_seconds = 30;
    s.worker.poll_interval_ms = 100;
    s.worker.retry_backoff_seconds = 0;
    s
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .resolve(HOST_NAME, std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
        .build()
        .expect("a reqwest client")
}

/// A host name that `client()` resolves to 127.0.0.1. Cookie jars (and browsers) treat
/// `http://127.0.0.1` and `http://localhost` as secure origins but not other host names, so an
/// app addressed by this name shows what a team on plain http to a real server meets.
pub const HOST_NAME: &str = "spiceboard.test";

/// An app on its own database with `workers` job workers.
pub async fn spawn_app_with(workers: usize, configure: impl FnOnce(&mut Settings)) -> TestApp {
    if std::env::var_os("TEST_LOG").is_some() {
        spiceboard::telemetry::init(true);
    }
    let (_, url) = fresh_database().await;
    let mut settings = test_settings();
    configure(&mut settings);
    settings.database.url = Some(url);
    spawn_app_on(settings, workers).await
}

/// An app on the (migrated) database `settings.database.url` names.
pub async fn spawn_app_on(settings: Settings, workers: usize) -> TestApp {
    let url = settings.database.url.clone().expect("a database URL");
    let pool = startup::connect(&url, &settings.database)
        .await
        .expect("connect to the test database");
    let engine = scoring::new_engine();
    let app = Application::build(settings.clone(), pool.clone(), engine.clone(), workers)
        .await
        .expect("build the app");
    let address = format!("http://127.0.0.1:{}", app.port());
    tokio::spawn(app.run_until_stopped());
    TestApp {
        address,
        pool,
        engine,
        settings,
        client: client(),
    }
}

/// An app with one worker.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(1, |_| {}).await
}

/// CoreNLP's English PCFG for the exact front end: `englishPCFG.ser.gz` in `../shared/corenlp`
/// beside the repository (or in `SPICE_CORENLP_DIR`), where the engine's tests find it. It is not
/// part of the repository: without it this returns `None` after saying loudly, past the test
/// harness's capture, that the calling test skips what needs it; with `CI` set its absence fails
/// the test instead.
pub fn corenlp_model() -> Option<PathBuf> {
    let dir = std::env::var_os("SPICE_CORENLP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corenlp"));
    let model = dir.join("englishPCFG.ser.gz");
    if model.exists() {
        return Some(model);
    }
    let why = format!(
        "{} is missing: CoreNLP's English PCFG lives in ../shared/corenlp beside the repository \
         (or set SPICE_CORENLP_DIR)",
        model.display()
    );
    assert!(std::env::var_os("CI").is_none(), "{why}; CI requires it");
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    // Straight to the process's stderr: `eprintln!` would be captured and hidden on success.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "\n*** SKIPPED {test} (its CoreNLP part): {why}. Set CI=1 to make this a failure. ***\n"
    );
    None
}

/// Runs the queued jobs one after the other with `engine` (as a worker with that engine's front
/// end would), at most `limit` of them; returns how many ran.
pub async fn run_jobs(app: &TestApp, engine: &SharedEngine, limit: usize) -> usize {
    let mut n = 0;
    while n < limit
        && spiceboard::jobs::run_once("test-worker", &app.pool, engine, &app.settings.worker)
            .await
            .expect("claim a job")
    {
        n += 1;
    }
    n
}

/// Waits (bounded: 20 s) until a statement whose text contains `text` waits for a lock in the
/// test's database (a race held at a chosen point by a transaction of the test's); `what` names
/// it in the failure, which lists the statements that do wait.
pub async fn until_a_statement_waits_for_a_lock(app: &TestApp, text: &str, what: &str) {
    let waiting = || {
        sqlx::query_scalar::<_, String>(
            "SELECT query FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
        .fetch_all(&app.pool)
    };
    for _ in 0..400 {
        let queries = waiting().await.expect("pg_stat_activity");
        if queries.iter().any(|q| q.contains(text)) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let queries = waiting().await.expect("pg_stat_activity");
    panic!("{what} never waited for the lock; waiting: {queries:?}");
}

/// Text as askama escapes it into HTML.
pub fn escaped(s: &str) -> String {
    s.replace('&', "&#38;")
        .replace('<', "&#60;")
        .replace('>', "&#62;")
        .replace('"', "&#34;")
        .replace('\'', "&#39;")
}

/// The demo references (20 images, 3 captions each), written by the project.
pub fn demo_references() -> Vec<u8> {
    spiceboard::seed::demo_references().into_bytes()
}

/// `file` in bytes no earlier upload of this test run had (trailing newlines, one more each
/// time): the same entries, for tests that upload one file several times to a team, since a
/// byte-identical re-upload is refused (issue 34).
pub fn fresh(mut file: Vec<u8>) -> Vec<u8> {
    static UPLOADS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);
    let n = UPLOADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    file.extend(std::iter::repeat_n(b'\n', n));
    file
}

pub fn demo_results(careful: bool) -> Vec<u8> {
    spiceboard::seed::demo_results(careful).into_bytes()
}

impl TestApp {
    /// The same app addressed as `http://spiceboard.test:PORT` (see `HOST_NAME`); only clients
    /// made by `client()` reach it.
    pub fn addressed_by_host_name(mut self) -> TestApp {
        let port = self
            .address
            .rsplit(':')
            .next()
            .unwrap_or_default()
            .to_string();
        self.address = format!("http://{HOST_NAME}:{port}");
        self
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    /// Challenge `slug` with split `split` holding the demo references.
    pub async fn challenge_with_split(
        &self,
        slug: &str,
        split: &str,
        hidden: bool,
    ) -> spiceboard::storage::challenges::Challenge {
        self.challenge_with_references(slug, split, hidden, demo_references())
            .await
    }

    /// Challenge `slug` with split `split` holding `references` (COCO annotations).
    pub async fn challenge_with_references(
        &self,
        slug: &str,
        split: &str,
        hidden: bool,
        references: Vec<u8>,
    ) -> spiceboard::storage::challenges::Challenge {
        let c = actions::create_challenge(
            &self.pool,
            &ChallengeSlug::parse(slug).expect("slug"),
            &Title::parse(&format!("Test challenge {slug}")).expect("title"),
            "",
            None,
        )
        .await
        .expect("create challenge");
        actions::import_references(
            &self.pool,
            &self.engine,
            &c,
            &SplitName::parse(split).expect("split"),
            references,
            actions::ImportMode {
                hidden,
                replace: false,
                rescore_with_attempts: None,
            },
        )
        .await
        .expect("import references");
        c
    }

    /// A team and its API token.
    pub async fn team(&self, slug: &str, name: &str) -> (i64, String) {
        let c = actions::challenge(&self.pool, slug)
            .await
            .expect("challenge");
        let (team, token) =
            actions::create_team(&self.pool, &c, &TeamName::parse(name).expect("name"), None)
                .await
                .expect("team");
        (team.id, token)
    }

    /// Uploads through the API.
    pub async fn api_upload(
        &self,
        slug: &str,
        token: &str,
        split: Option<&str>,
        file: Vec<u8>,
    ) -> reqwest::Response {
        let mut form = reqwest::multipart::Form::new()
            .part(
                "file",
                reqwest::multipart::Part::bytes(file).file_name("results.json"),
            )
            .text("description", "test run");
        if let Some(s) = split {
            form = form.text("split", s.to_string());
        }
        reqwest::Client::new()
            .post(self.url(&format!("/api/c/{slug}/submissions")))
            .bearer_auth(token)
            .multipart(form)
            .send()
            .await
            .expect("upload request")
    }

    /// Uploads and returns the new submission id (panics unless 202).
    pub async fn submit(&self, slug: &str, token: &str, split: &str, file: Vec<u8>) -> i64 {
        let r = self.api_upload(slug, token, Some(split), file).await;
        let status = r.status();
        let body: serde_json::Value = r.json().await.expect("JSON answer");
        assert_eq!(status, 202, "upload rejected: {body}");
        body["id"].as_i64().expect("an id")
    }

    /// Waits (bounded) until the submission's job has ended; returns (status, error).
    pub async fn wait_for(&self, submission_id: i64) -> (String, Option<String>) {
        for _ in 0..1200 {
            let (status, error, job_state): (String, Option<String>, Option<String>) = sqlx::query_as(
                "SELECT s.status, s.error, (SELECT state FROM jobs WHERE submission_id = s.id ORDER BY id DESC LIMIT 1)
                 FROM submissions s WHERE s.id = $1",
            )
            .bind(submission_id)
            .fetch_one(&self.pool)
            .await
            .expect("read status");
            if matches!(
                job_state.as_deref(),
                Some("succeeded") | Some("failed") | Some("cancelled")
            ) {
                return (status, error);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("submission {submission_id} was not scored within two minutes");
    }

    /// Waits for the submission's job and asserts that it scored.
    pub async fn assert_scored(&self, submission_id: i64) {
        let (status, error) = self.wait_for(submission_id).await;
        assert_eq!(status, "scored", "job failed: {error:?}");
    }

    /// Posts `fields` and this client's CSRF token (read from /admin) to `path`: an organizer's form.
    pub async fn post_admin_form(&self, path: &str, fields: &[(&str, &str)]) -> reqwest::Response {
        let csrf = self.csrf("/admin").await;
        let mut form: Vec<(&str, &str)> = fields.to_vec();
        form.push(("csrf", csrf.as_str()));
        self.client
            .post(self.url(path))
            .form(&form)
            .send()
            .await
            .expect("POST")
    }

    /// The CSRF token embedded in a page's forms (fetching it sets the cookie).
    pub async fn csrf(&self, path: &str) -> String {
        self.csrf_of(&self.client, path).await
    }

    /// The CSRF token of `browser` on a page (fetching it sets the cookie).
    pub async fn csrf_of(&self, browser: &reqwest::Client, path: &str) -> String {
        let html = browser
            .get(self.url(path))
            .send()
            .await
            .expect("GET")
            .text()
            .await
            .expect("body");
        let marker = "name=\"csrf\" value=\"";
        let start = html
            .find(marker)
            .unwrap_or_else(|| panic!("no CSRF field on {path}"))
            + marker.len();
        html[start..start + 64].to_string()
    }

    /// Uploads `file` to `split` through the submit form, as `browser`.
    pub async fn form_upload(
        &self,
        browser: &reqwest::Client,
        slug: &str,
        split: &str,
        file: Vec<u8>,
    ) -> reqwest::Response {
        let csrf = self.csrf_of(browser, &format!("/c/{slug}/submit")).await;
        let form = reqwest::multipart::Form::new()
            .text("csrf", csrf)
            .text("split", split.to_string())
            .part(
                "file",
                reqwest::multipart::Part::bytes(file).file_name("results.json"),
            );
        browser
            .post(self.url(&format!("/c/{slug}/submit")))
            .multipart(form)
            .send()
            .await
            .expect("POST submit")
    }

    pub async fn sign_up(&self, email: &str, password: &str) -> reqwest::Response {
        let csrf = self.csrf("/signup").await;
        self.client
            .post(self.url("/signup"))
            .form(&[
                ("email", email),
                ("password", password),
                ("csrf", csrf.as_str()),
                ("next", "/"),
            ])
            .send()
            .await
            .expect("POST /signup")
    }

    pub async fn log_in(&self, email: &str, password: &str) -> reqwest::Response {
        let csrf = self.csrf("/login").await;
        self.client
            .post(self.url("/login"))
            .form(&[
                ("email", email),
                ("password", password),
                ("csrf", csrf.as_str()),
                ("next", "/"),
            ])
            .send()
            .await
            .expect("POST /login")
    }

    /// A browser of its own, signed up as `email` and made a member of team `team` (which must
    /// exist) of challenge `slug`.
    /// The API's status of submission `id`, as the team holding `token` reads it.
    pub async fn api_status(&self, id: i64, token: &str) -> serde_json::Value {
        reqwest::Client::new()
            .get(self.url(&format!("/api/submissions/{id}")))
            .bearer_auth(token)
            .send()
            .await
            .expect("status")
            .json()
            .await
            .expect("JSON")
    }

    /// Signs `email` up (password "a long password") in `browser`'s cookie jar.
    pub async fn sign_up_in(&self, browser: &reqwest::Client, email: &str) {
        let csrf = self.csrf_of(browser, "/signup").await;
        let r = browser
            .post(self.url("/signup"))
            .form(&[
                ("email", email),
                ("password", "a long password"),
                ("csrf", csrf.as_str()),
            ])
            .send()
            .await
            .expect("POST /signup");
        assert_eq!(r.status(), 303, "sign-up of {email}");
    }

    pub async fn member(&self, slug: &str, team: &str, email: &str) -> reqwest::Client {
        let browser = client();
        self.sign_up_in(&browser, email).await;
        let c = actions::challenge(&self.pool, slug)
            .await
            .expect("challenge");
        let team = TeamName::parse(team).expect("name");
        actions::add_member(&self.pool, &c, &team, email)
            .await
            .expect("member");
        browser
    }

    /// Makes an API token of the team of `browser`'s user on the challenge page, as a member
    /// does, and returns it in clear (the page shows it once).
    pub async fn make_token(&self, browser: &reqwest::Client, slug: &str) -> String {
        let csrf = self.csrf_of(browser, &format!("/c/{slug}")).await;
        let page = browser
            .post(self.url(&format!("/c/{slug}/tokens")))
            .form(&[("csrf", csrf.as_str()), ("label", "ci")])
            .send()
            .await
            .expect("POST tokens")
            .text()
            .await
            .expect("body");
        let start =
            page.find("id=\"new-token\">").expect("the new token") + "id=\"new-token\">".len();
        page[start..start + 64].to_string()
    }

    /// Presses a form's button as `browser`: posts to `action` with the CSRF token of page `from`.
    pub async fn post_button(
        &self,
        browser: &reqwest::Client,
        from: &str,
        action: &str,
    ) -> reqwest::Response {
        let csrf = self.csrf_of(browser, from).await;
        browser
            .post(self.url(action))
            .form(&[("csrf", csrf.as_str())])
            .send()
            .await
            .expect("POST")
    }

    /// Makes an organizer account and logs this app's client in as it.
    pub async fn log_in_as_organizer(&self) {
        let hash = spiceboard::auth::hash_password("organizer-password").expect("hash");
        spiceboard::storage::accounts::create_user(&self.pool, "org@example.org", &hash, true)
            .await
            .expect("create organizer");
        let r = self.log_in("org@example.org", "organizer-password").await;
        assert_eq!(r.status(), 303);
    }
}

/// Inserts aggregate scores for a submission directly (for leaderboard ranking tests, which test
/// the query and the ranking, not the engine), and marks it scored.
pub async fn fake_aggregates(pool: &PgPool, submission_id: i64, f: [Option<f64>; 7]) {
    use spiceboard::storage::scores::{self, CategoryScore, SubmissionResult};
    let aggregates = spiceboard::domain::CATEGORIES
        .iter()
        .zip(f)
        .map(|(c, f)| CategoryScore {
            category: c.to_string(),
            tp: 0,
            fp: 0,
            fn_: 0,
            precision: f,
            recall: f,
            f,
            images: 20,
        })
        .collect();
    let mut tx = pool.begin().await.expect("begin");
    // The job row first, then the submission: the workers' lock order.
    sqlx::query("UPDATE jobs SET state = 'succeeded' WHERE submission_id = $1")
        .bind(submission_id)
        .execute(&mut *tx)
        .await
        .expect("end job");
    let result = SubmissionResult {
        images: vec![],
        aggregates,
        classic: None,
        front_end: "built-in",
    };
    scores::write(&mut tx, submission_id, &result)
        .await
        .expect("write scores");
    tx.commit().await.expect("commit");
}

/// The chart `<svg id="{id}">` of a page (src/charts.rs), whole; panics if the page has none.
pub fn chart<'a>(page: &'a str, id: &str) -> &'a str {
    let at = page
        .find(&format!("id=\"{id}\" role=\"img\""))
        .unwrap_or_else(|| panic!("no chart {id} in {page}"));
    let start = page[..at].rfind("<svg").expect("the chart's <svg>");
    let end = at + page[at..].find("</svg>").expect("the chart's end") + "</svg>".len();
    &page[start..end]
}

/// The count (`data-n`) of each mark of class `class` in a chart: how many data points each
/// stands for. Legend swatches carry no count and are not listed.
pub fn chart_marks(svg: &str, class: &str) -> Vec<usize> {
    svg.split(&format!(" class=\"{class}\" "))
        .skip(1)
        .filter_map(|m| {
            let tag = &m[..m.find('>').unwrap_or(m.len())];
            tag.split("data-n=\"")
                .nth(1)?
                .split('"')
                .next()?
                .parse()
                .ok()
        })
        .collect()
}

/// A chart's description (`<desc>`), its words for those who do not see it.
pub fn chart_desc(svg: &str) -> &str {
    let start = svg.find("-desc\">").expect("a desc") + "-desc\">".len();
    &svg[start..start + svg[start..].find("</desc>").expect("the desc's end")]
}

/// The accessible frame every chart has: an image named by its title and described by its desc.
pub fn assert_accessible_chart(svg: &str, id: &str, title: &str) {
    assert!(
        svg.contains(&format!(
            "id=\"{id}\" role=\"img\" aria-labelledby=\"{id}-title\" aria-describedby=\"{id}-desc\""
        )),
        "{svg}"
    );
    assert!(
        svg.contains(&format!("<title id=\"{id}-title\">{title}</title>")),
        "{svg}"
    );
    assert!(!chart_desc(svg).is_empty(), "{svg}");
    assert!(
        svg.contains("viewBox=\"0 0 420 ") && svg.contains("width=\"100%\""),
        "{svg}"
    );
}

/// The submission ids in a leaderboard CSV (its fourth column), sorted.
pub fn leaderboard_csv_ids(csv: &str) -> Vec<i64> {
    let mut ids: Vec<i64> = csv
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').nth(3)?.parse().ok())
        .collect();
    ids.sort_unstable();
    ids
}
