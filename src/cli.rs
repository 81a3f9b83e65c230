//! The `spiceboard` command: `serve | worker | migrate | admin | challenge | team`.
//!
//! Every subcommand finds its database the same way: `DATABASE_URL` (or `database.url` in the
//! configuration) if set, else the embedded cluster under `--data-dir` / `APP_DATA_DIR`, started if
//! it is not running (and stopped again at the end by the process that started it).

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{anyhow, bail, Context};
use clap::{Args, Parser, Subcommand};
use secrecy::SecretString;
use sqlx::PgPool;

use crate::actions::{self, Uploader, Viewer};
use crate::cluster::{self, Cluster, ClusterOptions};
use crate::configuration::{default_data_dir, Settings};
use crate::domain::leaderboard::SortKey;
use crate::domain::phase::Phase;
use crate::domain::{ChallengeSlug, Email, Password, SplitName, TeamName, Title};
use crate::scoring;
use crate::startup::{self, Application};
use crate::storage::{self, accounts, challenges, splits, submissions};

#[derive(Debug, Parser)]
#[command(
    name = "spiceboard",
    version,
    about = "Image-captioning challenges scored with SPICE"
)]
pub struct Cli {
    /// Configuration file (YAML); default: ./spiceboard.yaml if present.
    #[arg(long, global = true)]
    pub config: Option<PathBuf>,
    /// Where the embedded PostgreSQL cluster lives when DATABASE_URL is not set.
    #[arg(long, global = true, env = "APP_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// More log output.
    #[arg(short, long, global = true)]
    pub verbose: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the web server and job workers.
    Serve {
        /// Address to listen on, ADDR:PORT.
        #[arg(long)]
        bind: Option<SocketAddr>,
        /// Job workers to run beside the web server.
        #[arg(long)]
        workers: Option<usize>,
        /// Do not seed the demo challenge into an empty database.
        #[arg(long)]
        no_seed: bool,
    },
    /// Run job workers only.
    Worker {
        #[arg(long)]
        concurrency: Option<usize>,
    },
    /// Apply database migrations.
    Migrate,
    /// Organizer accounts.
    #[command(subcommand)]
    Admin(AdminCommand),
    /// Challenges: create, import references, limits, visibility, baselines, export.
    #[command(subcommand)]
    Challenge(ChallengeCommand),
    /// Teams.
    #[command(subcommand)]
    Team(TeamCommand),
}

#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Create a site operator's account (organizes every challenge).
    Create {
        #[arg(long)]
        email: String,
        #[arg(long)]
        password: String,
    },
    /// Make a one-time link for an account to set a new password with (the server sends no
    /// e-mail; pass it on). Prints the link's path, to put after the site's address.
    PasswordLink {
        #[arg(long)]
        email: String,
    },
}

#[derive(Debug, Args)]
pub struct SplitArgs {
    #[arg(long)]
    pub slug: String,
    #[arg(long)]
    pub split: String,
}

#[derive(Debug, Subcommand)]
pub enum ChallengeCommand {
    /// Create a challenge.
    Create {
        #[arg(long)]
        slug: String,
        #[arg(long)]
        title: String,
        #[arg(long, default_value = "")]
        description: String,
    },
    /// Import references (COCO annotation JSON or the SPICE jar's format) as a new split version.
    ImportRefs {
        #[command(flatten)]
        target: SplitArgs,
        #[arg(long)]
        file: PathBuf,
        /// Hide the split's scores until it is revealed (a new version of a hidden split is
        /// hidden anyway).
        #[arg(long)]
        hidden: bool,
        /// The split has references already: add a new version (the current version's
        /// submissions stay with it and leave the leaderboard).
        #[arg(long)]
        replace: bool,
        /// With --replace: move the current version's submissions to the new version and queue
        /// them for re-scoring (both versions must hold the same images).
        #[arg(long, requires = "replace")]
        rescore: bool,
        /// Do not queue the Human row (queued by default when every image has two references).
        #[arg(long)]
        no_human: bool,
    },
    /// Import human judgments for a split (JSON lines: `{"image_id", "caption", "ratings"}` per
    /// judged caption, `{"submission_id" or "team", "rating"}` per judged leaderboard entry) and
    /// compute how each leaderboard column agrees with them (the metric agreement page).
    ImportJudgments {
        #[command(flatten)]
        target: SplitArgs,
        #[arg(long)]
        file: PathBuf,
    },
    /// Rank the challenge's leaderboards by a column (`spice`, `cider_d`, ...) unless a page asks
    /// for another.
    SetRankingMetric {
        #[arg(long)]
        slug: String,
        #[arg(long)]
        metric: String,
    },
    /// Write a split's ranked leaderboard as CSV to stdout (hidden entries included).
    Export {
        #[command(flatten)]
        target: SplitArgs,
        #[arg(long)]
        sort: Option<String>,
    },
    /// Set per-team submission limits and the maximum file size.
    SetLimits {
        #[arg(long)]
        slug: String,
        /// Submissions per team per 24 hours (omit for no limit).
        #[arg(long)]
        daily: Option<i32>,
        /// Submissions per team in total (omit for no limit).
        #[arg(long)]
        total: Option<i32>,
        #[arg(long)]
        max_bytes: i64,
    },
    /// Set when team uploads open and close (UTC, "YYYY-MM-DD HH:MM", or RFC 3339 with an
    /// offset); an omitted bound is removed.
    SetPhase {
        #[arg(long)]
        slug: String,
        /// The window of this split only (which then no longer follows the challenge's).
        #[arg(long)]
        split: Option<String>,
        /// With --split: remove the split's own window, so that it follows the challenge's.
        #[arg(long, requires = "split", conflicts_with_all = ["opens", "closes"])]
        follow_challenge: bool,
        #[arg(long)]
        opens: Option<String>,
        #[arg(long)]
        closes: Option<String>,
    },
    /// Hide a split's scores from everyone but organizers and each team's own entries.
    Hide(SplitArgs),
    /// Reveal a split's scores.
    Reveal(SplitArgs),
    /// Add a baseline row from a COCO results file.
    AddBaseline {
        #[command(flatten)]
        target: SplitArgs,
        #[arg(long)]
        label: String,
        #[arg(long)]
        file: PathBuf,
    },
    /// Queue the Human row (leave-one-out human captions; needs two references per image).
    Human(SplitArgs),
    /// Re-score every submission of a split (after an engine upgrade).
    Rescore(SplitArgs),
    /// Soft-delete a submission.
    DeleteSubmission {
        #[arg(long)]
        id: i64,
    },
    /// Make an existing account an organizer of the challenge (it controls the challenge in the
    /// browser as a site operator does, that challenge only).
    AddOrganizer {
        #[arg(long)]
        slug: String,
        #[arg(long)]
        email: String,
    },
    /// Delete one version of a split (`--split` and `--version`) or, without them, the whole
    /// challenge, with everything it holds. Says what goes, and deletes only with `--yes`.
    Delete {
        #[arg(long)]
        slug: String,
        #[arg(long, requires = "version")]
        split: Option<String>,
        #[arg(long, requires = "split")]
        version: Option<i32>,
        #[arg(long)]
        yes: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum TeamCommand {
    /// Create a team and print its API token.
    Create {
        #[arg(long)]
        challenge: String,
        #[arg(long)]
        name: String,
    },
    /// Put an account into a team (e.g. one made with `team create`); a person is in one team
    /// per challenge.
    AddMember {
        #[arg(long)]
        challenge: String,
        /// The team's name.
        #[arg(long)]
        team: String,
        /// The e-mail address of the account (it signs up first).
        #[arg(long)]
        email: String,
    },
    /// Revoke an API token (its number is shown on the team's challenge page): it stops working at once.
    RevokeToken {
        #[arg(long)]
        id: i64,
    },
}

/// A database connection and, for the embedded cluster, the cluster to stop when done.
pub struct Database {
    pub pool: PgPool,
    cluster: Option<Cluster>,
}

impl Database {
    /// Closes the pool and leaves the embedded cluster, which stops if no other process uses it.
    pub async fn close(self) {
        self.pool.close().await;
        if let Some(c) = self.cluster {
            match tokio::task::spawn_blocking(move || c.release()).await {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => tracing::warn!(error = %e, "could not stop the embedded cluster"),
                Err(e) => tracing::warn!(error = %e, "could not stop the embedded cluster"),
            }
        }
    }
}

/// Connects as the configuration says, starting the embedded cluster if needed, and migrates.
pub async fn open_database(settings: &Settings) -> anyhow::Result<Database> {
    let (url, cluster): (SecretString, Option<Cluster>) = match &settings.database.url {
        Some(url) => (url.clone(), None),
        None => {
            let dir = settings
                .database
                .data_dir
                .clone()
                .unwrap_or_else(default_data_dir);
            let c = tokio::task::spawn_blocking(move || {
                Cluster::ensure_running(&dir, &ClusterOptions::default())
            })
            .await?
            .context("starting the embedded PostgreSQL cluster")?;
            cluster::create_database_if_missing(&c, cluster::DATABASE)
                .await
                .context("creating the database")?;
            (c.url(cluster::DATABASE), Some(c))
        }
    };
    let pool = startup::connect(&url, &settings.database)
        .await
        .context("connecting to PostgreSQL")?;
    storage::migrate(&pool)
        .await
        .context("migrating the database")?;
    Ok(Database { pool, cluster })
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    let mut settings =
        Settings::load(cli.config.as_deref()).context("loading the configuration")?;
    if let Some(dir) = cli.data_dir {
        settings.database.data_dir = Some(dir);
    }
    // One `serve` per data directory: a second one is refused before it touches the cluster.
    let _serve_lock = match (&cli.command, &settings.database.url) {
        (Command::Serve { .. }, None) => Some(cluster::ServeLock::acquire(
            &settings
                .database
                .data_dir
                .clone()
                .unwrap_or_else(default_data_dir),
        )?),
        _ => None,
    };
    // `serve` takes its address first: one in use is said before the database is started.
    let listener = match &cli.command {
        Command::Serve { bind, .. } => {
            if let Some(addr) = bind {
                settings.application.host = addr.ip().to_string();
                settings.application.port = addr.port();
            }
            Some(bind_address(&settings)?)
        }
        _ => None,
    };
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async move {
        let db = open_database(&settings).await?;
        let result = dispatch(cli.command, &settings, &db, listener).await;
        db.close().await;
        result
    })
}

/// The engine with the front end the settings ask for (`engine.corenlp_models`), loaded once.
fn engine(settings: &Settings) -> anyhow::Result<scoring::SharedEngine> {
    Ok(scoring::engine_with(scoring::load_front_end(
        &settings.engine,
    )?))
}

async fn read_file(path: &PathBuf) -> anyhow::Result<Vec<u8>> {
    tokio::fs::read(path)
        .await
        .with_context(|| format!("reading {}", path.display()))
}

/// The socket `serve` listens on, or why not in plain words (an address in use names the usual
/// ways out).
fn bind_address(settings: &Settings) -> anyhow::Result<std::net::TcpListener> {
    let (host, port) = (&settings.application.host, settings.application.port);
    std::net::TcpListener::bind((host.as_str(), port)).map_err(|e| match e.kind() {
        std::io::ErrorKind::AddrInUse => anyhow::anyhow!(
            "{host}:{port} is already in use (another spiceboard, or another program): stop it, \
             or serve elsewhere with `serve --bind {host}:PORT` or `application.port`"
        ),
        _ => anyhow::Error::new(e).context(format!("binding {host}:{port}")),
    })
}

async fn dispatch(
    command: Command,
    settings: &Settings,
    db: &Database,
    listener: Option<std::net::TcpListener>,
) -> anyhow::Result<()> {
    let pool = &db.pool;
    let attempts = settings.worker.max_attempts;
    match command {
        Command::Serve {
            workers, no_seed, ..
        } => {
            let listener = listener.context("serve binds its address first")?;
            let engine = engine(settings)?;
            if settings.application.seed_demo
                && !no_seed
                && challenges::list(pool).await?.is_empty()
            {
                crate::seed::seed_demo(pool, &engine, attempts)
                    .await
                    .context("seeding the demo challenge")?;
                println!("seeded the demo challenge \"demo\"");
            }
            let workers = workers.unwrap_or(settings.worker.concurrency);
            let app =
                Application::build_on(listener, settings.clone(), pool.clone(), engine, workers)
                    .await
                    .with_context(|| {
                        format!(
                            "starting the server on {}:{}",
                            settings.application.host, settings.application.port
                        )
                    })?;
            let base = format!("http://{}:{}", settings.application.host, app.port());
            println!("spiceboard is running at {base}/ (Ctrl-C stops it)");
            if let Some(code) = actions::operator_code(pool).await? {
                println!(
                    "no site operator yet. Sign up (or log in) at {base}/signup, then enter the \
                     one-time code\n  {code}\nat {base}/operator within {} minutes (it works \
                     once; a new start prints a new one). Or, on the command line:\n  \
                     spiceboard admin create --email you@example.org --password '...'\n\
                     (with the same --config / --data-dir / DATABASE_URL as this server)",
                    actions::OPERATOR_CODE_MINUTES
                );
            }
            app.run_until_stopped().await?;
        }
        Command::Worker { concurrency } => {
            let engine = engine(settings)?;
            let (tx, rx) = tokio::sync::watch::channel(false);
            let n = concurrency.unwrap_or(settings.worker.concurrency).max(1);
            let handles =
                crate::jobs::spawn_workers(n, pool.clone(), engine, settings.worker.clone(), rx);
            println!("{n} worker(s) running (Ctrl-C stops them)");
            tokio::signal::ctrl_c().await?;
            let _ = tx.send(true);
            for h in handles {
                let _ = h.await;
            }
        }
        Command::Migrate => println!("database migrated"),
        Command::Admin(AdminCommand::Create { email, password }) => {
            let email = Email::parse(&email)?;
            let password = Password::parse(&password)?;
            let hash = crate::auth::hash_password(password.expose())
                .map_err(|e| anyhow!("hashing the password: {e}"))?;
            match accounts::create_user(pool, email.as_str(), &hash, true).await? {
                Some(u) => println!("organizer {} created (id {})", u.email, u.id),
                None => bail!("an account with e-mail {} already exists", email.as_str()),
            }
        }
        Command::Admin(AdminCommand::PasswordLink { email }) => {
            let secret = actions::password_link(pool, &email, "the command line").await?;
            eprintln!(
                "a password link for {} (it works once, for {} hours; put the site's address before it):",
                email.trim(),
                actions::PASSWORD_LINK_HOURS
            );
            println!("/password/{secret}");
        }
        Command::Challenge(c) => challenge_command(c, settings, pool, attempts).await?,
        Command::Team(TeamCommand::Create { challenge, name }) => {
            let c = actions::challenge(pool, &challenge).await?;
            let name = TeamName::parse(&name)?;
            let (team, token) = actions::create_team(pool, &c, &name, None).await?;
            eprintln!(
                "team {:?} created in {} (id {}); its API token:",
                team.name, c.slug, team.id
            );
            println!("{token}");
        }
        Command::Team(TeamCommand::AddMember {
            challenge,
            team,
            email,
        }) => {
            let c = actions::challenge(pool, &challenge).await?;
            let team = TeamName::parse(&team)?;
            let (team, user) = actions::add_member(pool, &c, &team, &email).await?;
            println!(
                "{} is now in team {:?} of {}",
                user.email, team.name, c.slug
            );
        }
        Command::Team(TeamCommand::RevokeToken { id }) => {
            actions::revoke_token(pool, None, id).await?;
            println!("API token {id} revoked");
        }
    }
    Ok(())
}

async fn challenge_command(
    command: ChallengeCommand,
    settings: &Settings,
    pool: &PgPool,
    attempts: i32,
) -> anyhow::Result<()> {
    match command {
        ChallengeCommand::Create {
            slug,
            title,
            description,
        } => {
            let c = actions::create_challenge(
                pool,
                &ChallengeSlug::parse(&slug)?,
                &Title::parse(&title)?,
                &description,
                None,
            )
            .await?;
            println!("challenge {} created (id {})", c.slug, c.id);
        }
        ChallengeCommand::ImportRefs {
            target,
            file,
            hidden,
            replace,
            rescore,
            no_human,
        } => {
            let c = actions::challenge(pool, &target.slug).await?;
            let split = SplitName::parse(&target.split)?;
            let bytes = read_file(&file).await?;
            let engine = engine(settings)?;
            let started = std::time::Instant::now();
            let mode = actions::ImportMode {
                hidden,
                replace,
                rescore_with_attempts: rescore.then_some(attempts),
            };
            let r = actions::import_references(pool, &engine, &c, &split, bytes, mode).await?;
            println!(
                "split {} version {}: {} images, {} captions in {:.1} s{}",
                split.as_str(),
                r.version,
                r.images,
                r.captions,
                started.elapsed().as_secs_f64(),
                if r.hidden { " (hidden)" } else { "" }
            );
            if let Some(note) = r.replaced_note() {
                println!("{note}");
            }
            if r.unparsed > 0 {
                println!(
                    "{} images have no scene graph yet; they are built when scoring. First reason: {}",
                    r.unparsed,
                    r.first_parse_error.unwrap_or_default()
                );
            }
            if r.min_refs_per_image >= 2 && !no_human {
                let split = actions::split(pool, &c, split.as_str()).await?;
                let s = actions::compute_human(pool, &split, attempts).await?;
                println!("Human row (leave-one-out) queued as submission {}", s.id);
            }
        }
        ChallengeCommand::Export { target, sort } => {
            let c = actions::challenge(pool, &target.slug).await?;
            let split = actions::split(pool, &c, &target.split).await?;
            let rows = actions::leaderboard(
                pool,
                &split,
                SortKey::parse_or(sort.as_deref(), c.ranking_key())?,
                Viewer {
                    organizer: true,
                    team_id: None,
                },
            )
            .await?;
            print!("{}", actions::leaderboard_csv(&rows)?);
        }
        ChallengeCommand::SetLimits {
            slug,
            daily,
            total,
            max_bytes,
        } => {
            let c = actions::challenge(pool, &slug).await?;
            if max_bytes <= 0 {
                bail!("--max-bytes must be positive");
            }
            challenges::set_limits(pool, c.id, daily, total, max_bytes).await?;
            println!("limits of {} saved", c.slug);
        }
        ChallengeCommand::ImportJudgments { target, file } => {
            let c = actions::challenge(pool, &target.slug).await?;
            let split = actions::split(pool, &c, &target.split).await?;
            let bytes = read_file(&file).await?;
            let engine = engine(settings)?;
            let r = actions::import_judgments(
                pool,
                &engine,
                &split,
                None,
                bytes,
                settings.limits.max_request_bytes as u64,
                settings.limits.max_caption_chars,
            )
            .await?;
            println!(
                "judgments for split {}: {} captions, {} entries; agreement of {} columns at /c/{}/agreement?split={}",
                split.name,
                r.caption_judgments,
                r.entry_judgments,
                r.metrics,
                c.slug,
                split.name
            );
        }
        ChallengeCommand::SetRankingMetric { slug, metric } => {
            let c = actions::challenge(pool, &slug).await?;
            let key = actions::set_ranking_metric(pool, &c, &metric).await?;
            println!(
                "the leaderboards of {} are ranked by {}",
                c.slug,
                key.title()
            );
        }
        ChallengeCommand::SetPhase {
            slug,
            split,
            follow_challenge,
            opens,
            closes,
        } => {
            let c = actions::challenge(pool, &slug).await?;
            let p = Phase::parse(
                opens.as_deref().unwrap_or_default(),
                closes.as_deref().unwrap_or_default(),
            )
            .map_err(|e| anyhow!(e))?;
            if let Some(split) = split {
                let own = (!follow_challenge).then_some(p);
                println!("{}", actions::set_split_phase(pool, &c, &split, own).await?);
            } else {
                challenges::set_phase(pool, c.id, p).await?;
                let text = p.description(chrono::Utc::now());
                println!("phase of {} saved: {text}", c.slug);
            }
        }
        ChallengeCommand::Hide(t) => set_hidden(pool, &t, true).await?,
        ChallengeCommand::Reveal(t) => set_hidden(pool, &t, false).await?,
        ChallengeCommand::AddBaseline {
            target,
            label,
            file,
        } => {
            let c = actions::challenge(pool, &target.slug).await?;
            let split = actions::split(pool, &c, &target.split).await?;
            let label = TeamName::parse(&label)?;
            let bytes = read_file(&file).await?;
            let s = actions::submit(
                pool,
                &c,
                &split,
                Uploader::Baseline {
                    label: label.as_str(),
                    user_id: None,
                },
                "",
                &crate::domain::SubmissionMethod::default(),
                bytes,
                actions::SubmitLimits::from_settings(settings),
            )
            .await?;
            println!(
                "baseline {:?} queued as submission {}",
                label.as_str(),
                s.id
            );
        }
        ChallengeCommand::Human(t) => {
            let c = actions::challenge(pool, &t.slug).await?;
            let split = actions::split(pool, &c, &t.split).await?;
            let s = actions::compute_human(pool, &split, attempts).await?;
            println!("Human row queued as submission {}", s.id);
        }
        ChallengeCommand::Rescore(t) => {
            let c = actions::challenge(pool, &t.slug).await?;
            let split = actions::split(pool, &c, &t.split).await?;
            // The front end this configuration gives the workers, loaded as they load it (so a
            // model that cannot be read is said here, before anything is queued).
            let to = scoring::front_end_name(&*engine(settings)?);
            let n = actions::rescore(pool, &split, attempts).await?;
            println!(
                "{n} submissions of split {} queued for re-scoring; its reference graphs (built \
                 by {}) are rebuilt first, by the workers' front end ({to} with this \
                 configuration), and the leaderboard ranks each entry once it is re-scored",
                split.name, split.front_end
            );
        }
        ChallengeCommand::DeleteSubmission { id } => {
            if !submissions::soft_delete(pool, id).await? {
                bail!("no live submission {id}");
            }
            println!("submission {id} deleted");
        }
        ChallengeCommand::AddOrganizer { slug, email } => {
            let c = actions::challenge(pool, &slug).await?;
            let (user, added) = actions::add_organizer(pool, &c, &email, None).await?;
            if added {
                println!("{} now organizes {}", user.email, c.slug);
            } else {
                println!("{} organizes {} already", user.email, c.slug);
            }
        }
        ChallengeCommand::Delete {
            slug,
            split,
            version,
            yes,
        } => {
            let c = actions::challenge(pool, &slug).await?;
            match (split, version) {
                (Some(name), Some(version)) => {
                    let d = actions::split_deletion(pool, &c, &name, version).await?;
                    let n = &d.contents;
                    eprintln!(
                        "version {version} of split {name} of {slug} holds {} images, {} \
                         submissions ({} from teams), {} jobs waiting or running",
                        n.images, n.submissions, n.team_submissions, n.pending_jobs
                    );
                    if !yes {
                        bail!("nothing deleted; add --yes to delete it");
                    }
                    match actions::delete_split_version(pool, &c, &name, version).await? {
                        Some(v) => println!("deleted; split {name} now shows version {v}"),
                        None => println!("deleted; split {name} has no version left"),
                    }
                }
                _ => {
                    let d = actions::challenge_deletion(pool, &c).await?;
                    eprintln!(
                        "challenge {slug} holds {} split versions, {} submissions, {} teams",
                        d.splits.len(),
                        d.contents.submissions,
                        d.teams.teams
                    );
                    if !yes {
                        bail!("nothing deleted; add --yes to delete it");
                    }
                    actions::delete_challenge(pool, &c, &c.slug).await?;
                    println!("challenge {slug} deleted");
                }
            }
        }
    }
    Ok(())
}

async fn set_hidden(pool: &PgPool, t: &SplitArgs, hidden: bool) -> anyhow::Result<()> {
    let c = actions::challenge(pool, &t.slug).await?;
    let split = actions::split(pool, &c, &t.split).await?;
    splits::set_hidden(pool, split.id, hidden).await?;
    println!(
        "split {} of {} is now {}",
        split.name,
        c.slug,
        if hidden { "hidden" } else { "revealed" }
    );
    Ok(())
}
