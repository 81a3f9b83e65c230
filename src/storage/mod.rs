//! Every SQL statement of spiceboard lives under this module, one submodule per table family.
//! Queries are runtime-checked (`sqlx::query`), so building needs no database.

pub mod accounts;
pub mod challenges;
mod copy;
pub mod judgments;
pub mod leaderboard;
pub mod queue;
pub mod scores;
pub mod splits;
pub mod submissions;
pub mod uncertainty;

pub use sqlx::PgPool;

/// The eleven score columns of a submission, as [`score_columns`] selects them: SPICE's F
/// overall and per category, then the classic metrics; `None` where not computed. The field
/// order is the order of the CSV exports' score columns.
#[derive(Debug, Clone, Copy, Default, PartialEq, sqlx::FromRow, serde::Serialize)]
pub struct Scores {
    pub spice: Option<f64>,
    pub object: Option<f64>,
    pub relation: Option<f64>,
    pub attribute: Option<f64>,
    pub color: Option<f64>,
    pub count: Option<f64>,
    pub size: Option<f64>,
    pub bleu_4: Option<f64>,
    pub meteor: Option<f64>,
    pub rouge_l: Option<f64>,
    pub cider_d: Option<f64>,
}

impl Scores {
    /// The values in field order (the CSV exports' score columns).
    pub fn in_order(&self) -> [Option<f64>; 11] {
        [
            self.spice,
            self.object,
            self.relation,
            self.attribute,
            self.color,
            self.count,
            self.size,
            self.bleu_4,
            self.meteor,
            self.rouge_l,
            self.cider_d,
        ]
    }
}

/// SPICE's categories as `image_scores` and `aggregate_scores` name them, with the column each
/// is pivoted into, in the order of [`Scores`] and of `domain::uncertainty::COLUMNS`.
const SPICE_CATEGORIES: [(&str, &str); 7] = [
    ("all", "spice"),
    ("object", "object"),
    ("relation", "relation"),
    ("attribute", "attribute"),
    ("color", "color"),
    ("count", "count"),
    ("size", "size"),
];

/// The F of each SPICE category (`spice`, `object`, ..., `size`), pivoted out of the rows of
/// `alias` (a table with `category` and `f` columns) in a query grouped by submission or image.
fn spice_columns(alias: &str) -> String {
    SPICE_CATEGORIES
        .iter()
        .map(|(category, column)| {
            format!("MAX({alias}.f) FILTER (WHERE {alias}.category = '{category}') AS {column}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One count (`tp`, `fp` or `fn`) of each SPICE category, in the order of [`Scores`], as an
/// array pivoted out of the rows of `alias` in a query grouped by submission.
fn spice_counts(alias: &str, count: &str) -> String {
    let items: Vec<String> = SPICE_CATEGORIES
        .iter()
        .map(|(category, _)| {
            format!("MAX({alias}.{count}) FILTER (WHERE {alias}.category = '{category}')")
        })
        .collect();
    format!("ARRAY[{}]::BIGINT[]", items.join(", "))
}

/// The eleven score columns of a submission, pivoted out of `aggregate_scores a` (SPICE's
/// categories) and `classic_scores cs`, for a query grouped by submission: the leaderboard's
/// entries and the organizers' lines select them alike.
fn score_columns() -> String {
    format!(
        "{}, MAX(cs.bleu_4) AS bleu_4, MAX(cs.meteor) AS meteor,
         MAX(cs.rouge_l) AS rouge_l, MAX(cs.cider_d) AS cider_d",
        spice_columns("a")
    )
}

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

/// Would the same work succeed if done again a little later? The database [`unavailable`], or a
/// transaction that lost a race: a serialization failure (40001) or a deadlock (40P01). A job
/// that fails so is retried with a backoff of minutes (`storage::queue::Failure::Transient`).
pub fn transient(e: &sqlx::Error) -> bool {
    unavailable(e)
        || matches!(e, sqlx::Error::Database(db)
            if db.code().is_some_and(|c| c == "40001" || c == "40P01"))
}

/// Does the database answer?
pub async fn ping(pool: &PgPool) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT 1").execute(pool).await.map(|_| ())
}

/// Creates database `name` if it does not exist, connected to the server's maintenance database
/// at `admin_url` (the embedded cluster's first start).
pub async fn create_database_if_missing(admin_url: &str, name: &str) -> Result<(), sqlx::Error> {
    use sqlx::Connection;
    let mut conn = sqlx::PgConnection::connect(admin_url).await?;
    let exists: Option<i32> = sqlx::query_scalar("SELECT 1 FROM pg_database WHERE datname = $1")
        .bind(name)
        .fetch_optional(&mut conn)
        .await?;
    if exists.is_none() {
        // An identifier cannot be a parameter; doubling the quotes makes any name one identifier.
        sqlx::query(&format!(
            "CREATE DATABASE \"{}\"",
            name.replace('"', "\"\"")
        ))
        .execute(&mut conn)
        .await?;
    }
    conn.close().await
}

/// Applies the embedded migrations (`migrations/`).
pub async fn migrate(pool: &PgPool) -> Result<(), sqlx::migrate::MigrateError> {
    sqlx::migrate!("./migrations").run(pool).await?;
    fill_name_skeletons(pool).await?;
    Ok(())
}

/// Gives the teams and challenges that have none their name's skeleton (`domain::skeleton`;
/// migration 20261127000004): computed here, not in SQL, so that old and new rows have the same.
/// A name that already read as an older one keeps no skeleton: it stays, and the rule holds for
/// every name made from now on.
async fn fill_name_skeletons(pool: &PgPool) -> Result<(), sqlx::Error> {
    fill_skeletons(
        pool,
        "SELECT id, name FROM teams WHERE name_skeleton IS NULL ORDER BY id",
        "UPDATE teams SET name_skeleton = $2 WHERE id = $1",
    )
    .await?;
    fill_skeletons(
        pool,
        "SELECT id, title FROM challenges WHERE title_skeleton IS NULL ORDER BY id",
        "UPDATE challenges SET title_skeleton = $2 WHERE id = $1",
    )
    .await
}

/// Sets the skeleton of each (id, name) row `select` yields with `update` ($1 the id, $2 the
/// skeleton), oldest first; a row whose skeleton an older one has keeps none.
async fn fill_skeletons(pool: &PgPool, select: &str, update: &str) -> Result<(), sqlx::Error> {
    let rows: Vec<(i64, String)> = sqlx::query_as(select).fetch_all(pool).await?;
    for (id, name) in rows {
        let done = sqlx::query(update)
            .bind(id)
            .bind(crate::domain::skeleton(&name))
            .execute(pool)
            .await;
        skip_clash(done)?;
    }
    Ok(())
}

fn skip_clash<T>(done: Result<T, sqlx::Error>) -> Result<(), sqlx::Error> {
    match done {
        Err(e)
            if e.as_database_error()
                .is_some_and(|d| d.is_unique_violation()) =>
        {
            Ok(())
        }
        other => other.map(|_| ()),
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::error::Error;

    use super::{transient, unavailable};

    /// A PostgreSQL error with just its SQLSTATE code.
    #[derive(Debug)]
    struct Sqlstate(&'static str);

    impl std::fmt::Display for Sqlstate {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "SQLSTATE {}", self.0)
        }
    }

    impl Error for Sqlstate {}

    impl sqlx::error::DatabaseError for Sqlstate {
        fn message(&self) -> &str {
            self.0
        }
        fn code(&self) -> Option<Cow<'_, str>> {
            Some(Cow::Borrowed(self.0))
        }
        fn as_error(&self) -> &(dyn Error + Send + Sync + 'static) {
            self
        }
        fn as_error_mut(&mut self) -> &mut (dyn Error + Send + Sync + 'static) {
            self
        }
        fn into_error(self: Box<Self>) -> Box<dyn Error + Send + Sync + 'static> {
            self
        }
        fn kind(&self) -> sqlx::error::ErrorKind {
            sqlx::error::ErrorKind::Other
        }
    }

    #[test]
    fn a_full_disk_or_a_lost_server_is_unavailable_a_bad_request_is_not() {
        let code = |c| sqlx::Error::Database(Box::new(Sqlstate(c)));
        // 53100 is what PostgreSQL answers on ENOSPC (before it would panic on the WAL).
        for c in ["53100", "53200", "53300", "08006", "57P01", "57P03"] {
            assert!(unavailable(&code(c)), "{c}");
        }
        // A unique violation, a NUL in text, a syntax error: the request's fault or ours, not 503.
        for c in ["23505", "22021", "42601"] {
            assert!(!unavailable(&code(c)), "{c}");
        }
        assert!(unavailable(&sqlx::Error::PoolTimedOut));
        // A lost race is worth another try, not a 503; a bad request is neither.
        for c in ["40001", "40P01", "53100", "57P01"] {
            assert!(transient(&code(c)), "{c}");
        }
        for c in ["23505", "22003"] {
            assert!(!transient(&code(c)), "{c}");
        }
        assert!(!unavailable(&sqlx::Error::RowNotFound));
    }
}
