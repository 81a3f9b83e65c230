//! Builds the application: the connection pool, the HTTP server on its listener, and the workers
//! that `serve` runs beside it.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::middleware::{from_fn, Compress, DefaultHeaders};
use actix_web::{web, App, HttpServer};
use secrecy::ExposeSecret;
use sqlx::postgres::PgPoolOptions;
use sqlx::PgPool;
use tokio::sync::watch;

use crate::auth;
use crate::configuration::{DatabaseSettings, Settings};
use crate::routes;
use crate::scoring::SharedEngine;

/// Shared, read-only state of the web app.
pub struct AppConfig {
    pub settings: Settings,
    /// The turns of the compare page's bootstrap (`limits.comparisons_at_once`).
    pub comparisons: crate::actions::Turns,
    /// The turns of password hashing (`limits.password_checks_at_once`).
    pub passwords: crate::actions::Turns,
    /// Each team's uploads, one at a time, within a memory budget (`limits.upload_wait_ms`,
    /// `limits.upload_memory_bytes`).
    pub uploads: crate::actions::TeamUploads,
}

/// The pool: a request waits at most `acquire_timeout_ms` for a connection, so that a lost
/// database is answered by a quick 503 instead of a hang.
pub async fn connect(
    url: &secrecy::SecretString,
    settings: &DatabaseSettings,
) -> Result<PgPool, sqlx::Error> {
    PgPoolOptions::new()
        .max_connections(settings.max_connections)
        .acquire_timeout(Duration::from_millis(settings.acquire_timeout_ms.max(1)))
        .connect(url.expose_secret())
        .await
}

pub struct Application {
    port: u16,
    server: Server,
    shutdown: watch::Sender<bool>,
    workers: Vec<tokio::task::JoinHandle<()>>,
}

impl Application {
    /// Binds `host:port` (port 0 picks a free one) and starts `workers` job workers.
    pub async fn build(
        settings: Settings,
        pool: PgPool,
        engine: SharedEngine,
        workers: usize,
    ) -> std::io::Result<Application> {
        let listener = TcpListener::bind((
            settings.application.host.as_str(),
            settings.application.port,
        ))?;
        Application::build_on(listener, settings, pool, engine, workers).await
    }

    /// [`Application::build`] on a socket already bound (`serve` binds its address before it
    /// starts the database, so that an address in use is said at once).
    pub async fn build_on(
        listener: TcpListener,
        settings: Settings,
        pool: PgPool,
        engine: SharedEngine,
        workers: usize,
    ) -> std::io::Result<Application> {
        let csrf_key = crate::storage::accounts::csrf_key(&pool)
            .await
            .map_err(std::io::Error::other)?;
        let local = listener.local_addr()?;
        let port = local.port();
        if !local.ip().is_loopback() && !settings.application.behind_proxy {
            tracing::warn!(
                "serving plain http on {local}, which other machines can reach: passwords and \
                 session cookies cross the network unencrypted. Put a reverse proxy that \
                 terminates TLS in front and set `application.behind_proxy: true` (cookies are \
                 then Secure for requests it received over HTTPS), or bind 127.0.0.1"
            );
        }
        if let Some(warning) = settings.disk_floor().and_then(|f| f.startup_warning()) {
            tracing::warn!("{warning}");
        }
        let (shutdown, rx) = watch::channel(false);
        let worker_handles = crate::jobs::spawn_workers(
            workers,
            pool.clone(),
            engine.clone(),
            settings.worker.clone(),
            rx,
        );
        let server = run(listener, settings, pool, engine, auth::CsrfKey(csrf_key))?;
        Ok(Application {
            port,
            server,
            shutdown,
            workers: worker_handles,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until the server stops (Ctrl-C), then stops the workers.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let result = self.server.await;
        let _ = self.shutdown.send(true);
        for w in self.workers {
            let _ = w.await;
        }
        result
    }
}

pub fn run(
    listener: TcpListener,
    settings: Settings,
    pool: PgPool,
    engine: SharedEngine,
    csrf_key: auth::CsrfKey,
) -> std::io::Result<Server> {
    let csrf_key = web::Data::new(csrf_key);
    let body_limits = web::Data::new(routes::body::BodyLimits::from_settings(&settings.limits));
    let config = web::Data::new(AppConfig {
        comparisons: crate::actions::Turns::new(
            settings.limits.comparisons_at_once,
            Duration::from_millis(settings.limits.compare_wait_ms),
            "the server is busy comparing entries; try again in a moment",
        ),
        passwords: crate::actions::Turns::new(
            settings.limits.password_checks_at_once,
            Duration::from_millis(settings.limits.password_wait_ms),
            "the server is busy checking passwords; try again in a moment",
        ),
        uploads: crate::actions::TeamUploads::new(
            Duration::from_millis(settings.limits.upload_wait_ms),
            settings.limits.upload_memory_bytes,
        ),
        settings,
    });
    let pool = web::Data::new(pool);
    let engine = web::Data::from(Arc::new(engine));
    let server = HttpServer::new(move || {
        App::new()
            .wrap(from_fn(routes::keep_login_state))
            .wrap(from_fn(routes::body::bound_and_hold))
            .wrap(from_fn(auth::csrf_cookie))
            .wrap(
                DefaultHeaders::new()
                    .add(("X-Content-Type-Options", "nosniff"))
                    .add(("X-Frame-Options", "DENY"))
                    .add(("Referrer-Policy", "same-origin"))
                    .add((
                        "Content-Security-Policy",
                        "default-src 'self'; style-src 'self'; img-src 'self' data:",
                    )),
            )
            .wrap(Compress::default())
            .wrap(tracing_actix_web::TracingLogger::<
                crate::telemetry::RequestSpan,
            >::new())
            .app_data(pool.clone())
            .app_data(engine.clone())
            .app_data(config.clone())
            .app_data(csrf_key.clone())
            .app_data(body_limits.clone())
            .app_data(web::FormConfig::default().limit(64 * 1024))
            .configure(routes::configure)
    })
    .listen(listener)?
    .run();
    Ok(server)
}
