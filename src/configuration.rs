//! Settings, layered: built-in defaults, then an optional YAML file (`--config FILE`, or
//! `spiceboard.yaml` in the working directory), then `APP_*` environment variables with `__` between
//! levels (`APP_APPLICATION__PORT=8080`, `APP_WORKER__CONCURRENCY=2`). `DATABASE_URL` is honoured
//! too, as everyone expects. Secrets are `SecretString`s, so they never print.

use std::path::{Path, PathBuf};

use secrecy::SecretString;
use serde::Deserialize;

use crate::domain::results_file::ParseBudget;

#[derive(Debug, Clone, Deserialize)]
pub struct Settings {
    pub application: ApplicationSettings,
    pub database: DatabaseSettings,
    pub worker: WorkerSettings,
    pub limits: LimitSettings,
    #[serde(default)]
    pub engine: EngineSettings,
}

/// The engine's front end (issue 31): which parser turns captions into scene graphs.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct EngineSettings {
    /// CoreNLP's English PCFG (`englishPCFG.ser.gz`, the `stanford-corenlp-3.6.0-models.jar`
    /// pycocoevalcap's SPICE downloads into `spice/lib/`, or a directory holding either): with
    /// it, captions are parsed as the official SPICE parses them (`corenlp-3.6.0`); without it,
    /// by the built-in parser (`built-in`), close to but not exactly the official numbers.
    /// Loaded once at start-up (`scoring::load_front_end`); `APP_ENGINE__CORENLP_MODELS`.
    pub corenlp_models: Option<PathBuf>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ApplicationSettings {
    pub host: String,
    pub port: u16,
    /// Seed the demo challenge when `serve` starts on an empty embedded database.
    pub seed_demo: bool,
    /// Behind a reverse proxy: take the client's address from the last `X-Forwarded-For` entry,
    /// the one the proxy appended (for login throttling and the request log), and the scheme
    /// from `X-Forwarded-Proto` (cookies are `Secure` only
    /// for requests that arrived over HTTPS). Off by default, since a direct client could forge
    /// the headers.
    #[serde(default)]
    pub behind_proxy: bool,
}

#[derive(Debug, Clone, Deserialize)]
pub struct DatabaseSettings {
    /// A PostgreSQL URL; without one, the embedded cluster under `data_dir` is used.
    pub url: Option<SecretString>,
    /// Where the embedded cluster lives (`--data-dir`, `APP_DATA_DIR`).
    pub data_dir: Option<PathBuf>,
    pub max_connections: u32,
    /// How long a request waits for a database connection before it is answered 503; short, so
    /// that a lost database gives a fast, clear answer instead of a hang.
    pub acquire_timeout_ms: u64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct WorkerSettings {
    /// Workers started by `serve` (`worker` takes `--concurrency`).
    pub concurrency: usize,
    /// How long a claimed job is held without a heartbeat before another worker may take it.
    pub lease_seconds: u64,
    /// Polling fallback when no NOTIFY arrives.
    pub poll_interval_ms: u64,
    /// Attempts before a job is marked failed for good.
    pub max_attempts: i32,
    /// Delay before a failed attempt is retried (multiplied by the attempt number).
    pub retry_backoff_seconds: u64,
    /// After a transient database failure (a full disk, a lost connection, a serialization
    /// failure), the first wait before the job runs again; it doubles with each such failure up
    /// to `transient_backoff_max_seconds`. These retries use no attempt: an outage of minutes
    /// does not fail an accepted submission.
    pub transient_backoff_seconds: u64,
    pub transient_backoff_max_seconds: u64,
    /// Transient failures a job survives before they count as attempts (the defaults wait
    /// about 45 minutes in all).
    pub transient_retries: i32,
}

#[derive(Debug, Clone, Deserialize)]
pub struct LimitSettings {
    /// Longest candidate caption accepted, in characters.
    pub max_caption_chars: usize,
    /// The parsing an upload's captions may take: that of a caption of this many tokens for each
    /// image (`ParseBudget`; the exact front end's chart grows with the cube of a sentence).
    pub parse_words_per_image: usize,
    /// Hard cap on any request body, whatever a challenge allows.
    pub max_request_bytes: usize,
    /// Uploads are refused while less than this is free on the database's disk.
    pub min_free_disk_bytes: u64,
    /// The directory whose file system is checked; by default the embedded cluster's data
    /// directory, and nothing (no check) with a `DATABASE_URL` unless set.
    pub disk_path: Option<PathBuf>,
    /// Comparisons (the compare page's bootstrap, a tenth of a second of a core and more on a
    /// large split) computed at once; more wait for their turn.
    pub comparisons_at_once: usize,
    /// How long a comparison waits for its turn before it is answered 503.
    pub compare_wait_ms: u64,
    /// Password hashes (argon2id, 19 MiB and tens of milliseconds of a core each) computed at once
    /// for logins and sign-ups; more wait for their turn. Successful logins are not throttled,
    /// so without the turns one account could keep every blocking thread hashing.
    pub password_checks_at_once: usize,
    /// How long a login or sign-up waits for its turn before it is answered 503.
    pub password_wait_ms: u64,
    /// A team's files are received and checked one at a time: how long an upload waits for the
    /// team's previous one to be done before it is answered 503.
    pub upload_wait_ms: u64,
    /// What the files of all uploads being received and checked may take at once: each upload
    /// holds what it has sent of its file (in steps of 256 KiB, up to its challenge's file limit,
    /// at most all of it), and one that finds no room for its next piece within
    /// `upload_wait_ms` is answered 503.
    pub upload_memory_bytes: u64,
    /// A request body that sends nothing for this long is cut off (408), and what its handler
    /// held (a team's upload turn, its share of `upload_memory_bytes`) is given back. actix-web's
    /// own timeouts cover a request's head only.
    pub body_idle_timeout_ms: u64,
    /// A request body that arrives slower than this on average, once its first
    /// `body_idle_timeout_ms` has passed, is cut off too (408), so that a byte now and then does
    /// not hold an upload's turn for hours; 0 sets no floor.
    pub body_min_bytes_per_second: u64,
    /// A multipart form (an upload, an import) must arrive whole within `body_idle_timeout_ms`
    /// plus its size limit at this rate, or it is cut off (408): a body that keeps just above
    /// the floor rate held its team's turn and its share of the upload memory for hours (5.7 h
    /// for a 20 MB limit at 1 KiB/s). The default, 32 KiB/s, gives a 20 MB upload 11 minutes;
    /// 0 sets no deadline.
    pub form_deadline_bytes_per_second: u64,
}

impl Settings {
    /// Loads settings from defaults, `config_file` (or `./spiceboard.yaml` if present) and the
    /// environment.
    pub fn load(config_file: Option<&Path>) -> Result<Settings, config::ConfigError> {
        let mut builder = config::Config::builder()
            .set_default("application.host", "127.0.0.1")?
            .set_default("application.port", 8000)?
            .set_default("application.seed_demo", true)?
            .set_default("database.max_connections", 16)?
            .set_default("database.acquire_timeout_ms", 500)?
            .set_default("worker.concurrency", 1)?
            .set_default("worker.lease_seconds", 60)?
            .set_default("worker.poll_interval_ms", 2000)?
            .set_default("worker.max_attempts", 3)?
            .set_default("worker.retry_backoff_seconds", 5)?
            .set_default("worker.transient_backoff_seconds", 15)?
            .set_default("worker.transient_backoff_max_seconds", 300)?
            .set_default("worker.transient_retries", 12)?
            .set_default("limits.max_caption_chars", 1000)?
            .set_default(
                "limits.parse_words_per_image",
                ParseBudget::DEFAULT_WORDS_PER_IMAGE as u64,
            )?
            .set_default("limits.max_request_bytes", 256 * 1024 * 1024)?
            .set_default("limits.min_free_disk_bytes", 1024 * 1024 * 1024)?
            .set_default("limits.comparisons_at_once", 1)?
            .set_default("limits.compare_wait_ms", 2000)?
            .set_default("limits.password_checks_at_once", 2)?
            .set_default("limits.password_wait_ms", 5000)?
            .set_default("limits.upload_wait_ms", 10_000)?
            .set_default("limits.upload_memory_bytes", 1024 * 1024 * 1024)?
            .set_default("limits.body_idle_timeout_ms", 5000)?
            .set_default("limits.body_min_bytes_per_second", 1024)?
            .set_default("limits.form_deadline_bytes_per_second", 32 * 1024)?;
        match config_file {
            Some(path) => builder = builder.add_source(config::File::from(path).required(true)),
            None => {
                builder = builder.add_source(config::File::with_name("spiceboard").required(false))
            }
        }
        builder = builder.add_source(
            config::Environment::with_prefix("APP")
                .prefix_separator("_")
                .separator("__")
                .try_parsing(true),
        );
        if let Ok(url) = std::env::var("DATABASE_URL") {
            if !url.is_empty() {
                builder = builder.set_override("database.url", url)?;
            }
        }
        if let Ok(dir) = std::env::var("APP_DATA_DIR") {
            if !dir.is_empty() {
                builder = builder.set_override("database.data_dir", dir)?;
            }
        }
        builder.build()?.try_deserialize()
    }

    /// Settings for tests and embedding: the defaults, no file, no environment.
    pub fn defaults() -> Settings {
        Settings {
            application: ApplicationSettings {
                host: "127.0.0.1".into(),
                port: 8000,
                seed_demo: true,
                behind_proxy: false,
            },
            database: DatabaseSettings {
                url: None,
                data_dir: None,
                max_connections: 16,
                acquire_timeout_ms: 500,
            },
            worker: WorkerSettings {
                concurrency: 1,
                lease_seconds: 60,
                poll_interval_ms: 2000,
                max_attempts: 3,
                retry_backoff_seconds: 5,
                transient_backoff_seconds: 15,
                transient_backoff_max_seconds: 300,
                transient_retries: 12,
            },
            limits: LimitSettings {
                max_caption_chars: 1000,
                parse_words_per_image: ParseBudget::DEFAULT_WORDS_PER_IMAGE,
                max_request_bytes: 256 * 1024 * 1024,
                min_free_disk_bytes: 1024 * 1024 * 1024,
                disk_path: None,
                comparisons_at_once: 1,
                compare_wait_ms: 2000,
                password_checks_at_once: 2,
                password_wait_ms: 5000,
                upload_wait_ms: 10_000,
                upload_memory_bytes: 1024 * 1024 * 1024,
                body_idle_timeout_ms: 5000,
                body_min_bytes_per_second: 1024,
                form_deadline_bytes_per_second: 32 * 1024,
            },
            engine: EngineSettings::default(),
        }
    }
}

impl Settings {
    /// The free-space floor under uploads, if there is a disk to watch (see `disk_path`).
    pub fn disk_floor(&self) -> Option<crate::disk::DiskFloor> {
        let path = match (&self.limits.disk_path, &self.database.url) {
            (Some(p), _) => p.clone(),
            (None, None) => self
                .database
                .data_dir
                .clone()
                .unwrap_or_else(default_data_dir),
            (None, Some(_)) => return None,
        };
        Some(crate::disk::DiskFloor {
            path,
            min_free_bytes: self.limits.min_free_disk_bytes,
        })
    }
}

/// Where the embedded cluster lives when neither `--data-dir` nor `APP_DATA_DIR` says: a system
/// directory when running as root (the server itself then runs as the `postgres` user, which cannot
/// enter `/root`), the user's data directory otherwise.
pub fn default_data_dir() -> PathBuf {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        return PathBuf::from("/var/lib/spiceboard");
    }
    if let Some(xdg) = std::env::var_os("XDG_DATA_HOME") {
        return PathBuf::from(xdg).join("spiceboard");
    }
    match std::env::var_os("HOME") {
        Some(home) => PathBuf::from(home).join(".local/share/spiceboard"),
        None => PathBuf::from(".spiceboard"),
    }
}
