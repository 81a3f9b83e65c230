//! Every SQL statement of spiceboard lives under this module, one submodule per table family.
//! Queries are runtime-checked (`sqlx::query`), so building needs no database.

pub mod accounts;
pub mod challenges;
pub mod leaderboard;
pub mod queue;
pub mod scores;
pub mod splits;
pub mod submissions;

pub use sqlx::PgPool;

/// A float for the database: NaN (a category without reference tuples) becomes NULL.
pub fn finite(x: f64) -> Option<f64> {
    (!x.is_nan()).then_some(x)
}

/// Is this error the database being unreachable, shutting down or out of resources (disk, memory,
/// connections), rather than a fault of the request or of ours? Such errors answer 503 quickly.
pub fn unavailable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|c| {
            // Class 08: connection exception; 53: insufficient resources (53100 disk full);
            // 57P01-57P03: the server is shutting down or starting.
            c.starts_with("08") || c.starts_with("53") || c.starts_with("57P")
        }),
        _ => false,
    }
}

/// Does the database answer?
pub async fn ping(pool: &PgPool) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT 1").execute(pool).await.map(|_| ())
}

/// Applies the embedded migrations (`migrations/`).
pub async fn migrate(pool: &PgPool) -> Result<(), sqlx::migrate::MigrateError> {
    sqlx::migrate!("./migrations").run(pool).await
}
