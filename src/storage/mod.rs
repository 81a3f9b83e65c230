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

/// Applies the embedded migrations (`migrations/`).
pub async fn migrate(pool: &PgPool) -> Result<(), sqlx::migrate::MigrateError> {
    sqlx::migrate!("./migrations").run(pool).await
}
