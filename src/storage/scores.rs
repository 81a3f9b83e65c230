//! Per-image and aggregate scores of a submission: written once per successful job, in the job's
//! final transaction, and read by the submission pages and the leaderboard.

use sqlx::{PgExecutor, Postgres, Transaction};

use super::copy;

/// Counts and ratios of one category; `None` ratios stand for NaN (no reference tuple).
#[derive(Debug, Clone, PartialEq, serde::Serialize, sqlx::FromRow)]
pub struct CategoryScore {
    pub category: String,
    pub tp: i64,
    pub fp: i64,
    #[sqlx(rename = "fn")]
    #[serde(rename = "fn")]
    pub fn_: i64,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    pub f: Option<f64>,
    /// Images whose score in this category is defined (aggregates only).
    #[sqlx(default)]
    pub images: i32,
}

/// The scored result of one image.
#[derive(Debug, Clone)]
pub struct ScoredImage {
    pub image_id: i64,
    pub caption: String,
    pub categories: Vec<CategoryScore>,
    /// The engine's tuples with truth values (`crate::scoring::ImageDetails`), as JSON text.
    pub details: String,
    /// This image's classic metrics (`{"Bleu_4": .., "ROUGE_L": .., "CIDEr": ..}`), if computed.
    pub classic: Option<serde_json::Value>,
}

/// Corpus-level classic metrics of a submission (pycocoevalcap's names in `details`).
#[derive(Debug, Clone, PartialEq)]
pub struct ClassicScores {
    pub bleu_4: Option<f64>,
    pub meteor: Option<f64>,
    pub rouge_l: Option<f64>,
    pub cider_d: Option<f64>,
    pub details: serde_json::Value,
}

/// Everything a scoring job writes.
#[derive(Debug, Clone)]
pub struct SubmissionResult {
    pub images: Vec<ScoredImage>,
    pub aggregates: Vec<CategoryScore>,
    pub classic: Option<ClassicScores>,
    /// The front end that parsed the captions (`scoring::front_end_name`), stored with the
    /// scores (`submissions.front_end`).
    pub front_end: &'static str,
}

/// Deletes every score of the submissions (their results, per image and in aggregate, and the
/// intervals drawn from them).
pub async fn forget(
    tx: &mut Transaction<'_, Postgres>,
    submission_ids: &[i64],
) -> Result<(), sqlx::Error> {
    for table in [
        "score_intervals",
        "image_scores",
        "image_results",
        "aggregate_scores",
        "classic_scores",
    ] {
        sqlx::query(&format!(
            "DELETE FROM {table} WHERE submission_id = ANY($1)"
        ))
        .bind(submission_ids)
        .execute(&mut **tx)
        .await?;
    }
    sqlx::query("UPDATE submissions SET front_end = NULL WHERE id = ANY($1)")
        .bind(submission_ids)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Replaces the submission's scores with `result` and marks it scored (inside the job's final
/// transaction).
pub async fn write(
    tx: &mut Transaction<'_, Postgres>,
    submission_id: i64,
    result: &SubmissionResult,
) -> Result<(), sqlx::Error> {
    forget(tx, &[submission_id]).await?;
    sqlx::query("UPDATE submissions SET front_end = $2 WHERE id = $1")
        .bind(submission_id)
        .bind(result.front_end)
        .execute(&mut **tx)
        .await?;
    // COPY is the fastest way in for tens of thousands of rows (a 40,504-image submission
    // writes 40,504 image results, 80 MB with their details, and 283,528 category scores), a few
    // thousand images per statement.
    let started = std::time::Instant::now();
    let (mut results_ms, mut categories_ms) = (0, 0);
    for images in result.images.chunks(IMAGES_PER_COPY) {
        let (results, categories) = copy_rows(submission_id, images);
        let at = std::time::Instant::now();
        copy::copy_in(tx, "COPY image_results (submission_id, image_id, caption, spice_f, details, classic) FROM STDIN", results).await?;
        let between = std::time::Instant::now();
        copy::copy_in(tx, "COPY image_scores (submission_id, image_id, category, tp, fp, fn, precision, recall, f) FROM STDIN", categories).await?;
        results_ms += (between - at).as_millis() as u64;
        categories_ms += between.elapsed().as_millis() as u64;
    }
    tracing::debug!(
        submission_id,
        ms = started.elapsed().as_millis() as u64,
        image_results_ms = results_ms,
        image_scores_ms = categories_ms,
        "per-image rows copied"
    );
    for a in &result.aggregates {
        sqlx::query(
            "INSERT INTO aggregate_scores (submission_id, category, precision, recall, f, tp, fp, fn, images)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(submission_id)
        .bind(&a.category)
        .bind(a.precision)
        .bind(a.recall)
        .bind(a.f)
        .bind(a.tp)
        .bind(a.fp)
        .bind(a.fn_)
        .bind(a.images)
        .execute(&mut **tx)
        .await?;
    }
    if let Some(c) = &result.classic {
        sqlx::query(
            "INSERT INTO classic_scores (submission_id, bleu_4, meteor, rouge_l, cider_d, details)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(submission_id)
        .bind(c.bleu_4)
        .bind(c.meteor)
        .bind(c.rouge_l)
        .bind(c.cider_d)
        .bind(&c.details)
        .execute(&mut **tx)
        .await?;
    }
    sqlx::query(
        "UPDATE submissions SET status = 'scored', error = NULL, scored_at = now() WHERE id = $1",
    )
    .bind(submission_id)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Images whose rows go in one COPY statement: about 0.1 s of the server's time each.
const IMAGES_PER_COPY: usize = 5000;

/// The rows of `images` for `image_results` and for `image_scores`, in COPY's text format.
fn copy_rows(submission_id: i64, images: &[ScoredImage]) -> (String, String) {
    use std::fmt::Write;
    let mut results = String::new();
    let mut categories = String::new();
    let number = |out: &mut String, x: Option<f64>| match x {
        Some(v) => {
            let _ = write!(out, "{v}");
        }
        None => out.push_str("\\N"),
    };
    for i in images {
        let spice = i
            .categories
            .iter()
            .find(|c| c.category == "all")
            .and_then(|c| c.f)
            .unwrap_or(0.0);
        let _ = write!(results, "{submission_id}\t{}\t", i.image_id);
        copy::push_field(&mut results, &i.caption);
        let _ = write!(results, "\t{spice}\t");
        copy::push_field(&mut results, &i.details);
        results.push('\t');
        copy::push_optional(
            &mut results,
            i.classic.as_ref().map(|c| c.to_string()).as_deref(),
        );
        results.push('\n');
        for c in &i.categories {
            let _ = write!(
                categories,
                "{submission_id}\t{}\t{}\t{}\t{}\t{}\t",
                i.image_id, c.category, c.tp, c.fp, c.fn_
            );
            number(&mut categories, c.precision);
            categories.push('\t');
            number(&mut categories, c.recall);
            categories.push('\t');
            number(&mut categories, c.f);
            categories.push('\n');
        }
    }
    (results, categories)
}

/// Refreshes the planner's statistics of the per-image tables after a job wrote `images` rows
/// to `image_results` (and seven times as many to `image_scores`), when they are a tenth or more
/// of what the planner believes the table holds: on a young database one submission can be most
/// of the table, and until autovacuum's ANALYZE (up to a minute later) every plan over it would
/// count on the old, tiny table. On a grown one the write changes little, and ANALYZE, whose cost
/// grows with the table (over a second at 800,000 image rows), is left to autovacuum; the
/// per-submission queries are written not to depend on the new submission's estimate
/// (`uncertainty::per_image`).
pub async fn refresh_statistics(db: &sqlx::PgPool, images: usize) -> Result<(), sqlx::Error> {
    let believed: f32 =
        sqlx::query_scalar("SELECT reltuples FROM pg_class WHERE oid = 'image_results'::regclass")
            .fetch_one(db)
            .await?;
    // reltuples is -1 for a table never analyzed.
    if (images as f32) * 10.0 >= believed {
        sqlx::query("ANALYZE image_results, image_scores")
            .execute(db)
            .await?;
    }
    Ok(())
}

/// Aggregate scores of a submission in the paper's column order.
pub async fn aggregates(
    db: impl PgExecutor<'_>,
    submission_id: i64,
) -> Result<Vec<CategoryScore>, sqlx::Error> {
    sqlx::query_as(
        "SELECT category, tp, fp, fn, precision, recall, f, images FROM aggregate_scores WHERE submission_id = $1
         ORDER BY array_position(ARRAY['all','object','relation','attribute','color','count','size'], category)",
    )
    .bind(submission_id)
    .fetch_all(db)
    .await
}

#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize)]
pub struct ImageRow {
    pub image_id: i64,
    pub caption: String,
    pub spice_f: f64,
}

/// Per-image SPICE, worst first (ties by image id), one page at a time.
pub async fn images_worst_first(
    db: impl PgExecutor<'_>,
    submission_id: i64,
    limit: i64,
    offset: i64,
) -> Result<Vec<ImageRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT image_id, caption, spice_f FROM image_results WHERE submission_id = $1
         ORDER BY spice_f ASC, image_id ASC LIMIT $2 OFFSET $3",
    )
    .bind(submission_id)
    .bind(limit)
    .bind(offset)
    .fetch_all(db)
    .await
}

/// Where an image stands in its submission's worst-first order (the submission page's): its
/// 1-based position, and the images before and after it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Neighbors {
    pub position: i64,
    pub previous: Option<i64>,
    pub next: Option<i64>,
}

pub async fn neighbors(
    db: impl PgExecutor<'_>,
    submission_id: i64,
    image_id: i64,
) -> Result<Option<Neighbors>, sqlx::Error> {
    sqlx::query_as(
        "SELECT position, previous, next FROM (
            SELECT image_id, ROW_NUMBER() OVER w AS position,
                   LAG(image_id) OVER w AS previous, LEAD(image_id) OVER w AS next
            FROM image_results WHERE submission_id = $1
            WINDOW w AS (ORDER BY spice_f ASC, image_id ASC)) o
         WHERE image_id = $2",
    )
    .bind(submission_id)
    .bind(image_id)
    .fetch_optional(db)
    .await
}

pub async fn image_count(db: impl PgExecutor<'_>, submission_id: i64) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar("SELECT COUNT(*) FROM image_results WHERE submission_id = $1")
        .bind(submission_id)
        .fetch_one(db)
        .await
}

/// One image of a submission: caption, engine details (JSON text) and per-category scores.
pub async fn image(
    db: &sqlx::PgPool,
    submission_id: i64,
    image_id: i64,
) -> Result<Option<(ImageRow, String, Vec<CategoryScore>)>, sqlx::Error> {
    let row: Option<(i64, String, f64, String)> = sqlx::query_as(
        "SELECT image_id, caption, spice_f, details::TEXT FROM image_results WHERE submission_id = $1 AND image_id = $2",
    )
    .bind(submission_id)
    .bind(image_id)
    .fetch_optional(db)
    .await?;
    let Some((image_id, caption, spice_f, details)) = row else {
        return Ok(None);
    };
    let cats: Vec<CategoryScore> = sqlx::query_as(
        "SELECT category, tp::BIGINT AS tp, fp::BIGINT AS fp, fn::BIGINT AS fn, precision, recall, f
         FROM image_scores WHERE submission_id = $1 AND image_id = $2
         ORDER BY array_position(ARRAY['all','object','relation','attribute','color','count','size'], category)",
    )
    .bind(submission_id)
    .bind(image_id)
    .fetch_all(db)
    .await?;
    Ok(Some((
        ImageRow {
            image_id,
            caption,
            spice_f,
        },
        details,
        cats,
    )))
}

/// One image of a submission with every category's scores, for the downloads.
#[derive(Debug, Clone)]
pub struct ImageScores {
    pub image_id: i64,
    pub caption: String,
    /// In the paper's column order (`domain::CATEGORIES`).
    pub categories: Vec<CategoryScore>,
}

/// Every image of a submission with its per-category scores, in image id order.
pub async fn all_images(
    db: &sqlx::PgPool,
    submission_id: i64,
) -> Result<Vec<ImageScores>, sqlx::Error> {
    let images: Vec<(i64, String)> = sqlx::query_as(
        "SELECT image_id, caption FROM image_results WHERE submission_id = $1 ORDER BY image_id",
    )
    .bind(submission_id)
    .fetch_all(db)
    .await?;
    let rows: Vec<(i64, CategoryScore)> = sqlx::query_as::<_, ImageCategory>(
        "SELECT image_id, category, tp::BIGINT AS tp, fp::BIGINT AS fp, fn::BIGINT AS fn,
                precision, recall, f
         FROM image_scores WHERE submission_id = $1
         ORDER BY image_id,
                  array_position(ARRAY['all','object','relation','attribute','color','count','size'], category)",
    )
    .bind(submission_id)
    .fetch_all(db)
    .await?
    .into_iter()
    .map(|r| (r.image_id, r.score))
    .collect();
    let mut rows = rows.into_iter().peekable();
    Ok(images
        .into_iter()
        .map(|(image_id, caption)| {
            while rows.next_if(|(id, _)| *id < image_id).is_some() {}
            let mut categories = Vec::new();
            while let Some((_, score)) = rows.next_if(|(id, _)| *id == image_id) {
                categories.push(score);
            }
            ImageScores {
                image_id,
                caption,
                categories,
            }
        })
        .collect())
}

#[derive(sqlx::FromRow)]
struct ImageCategory {
    image_id: i64,
    #[sqlx(flatten)]
    score: CategoryScore,
}

/// Rows of image_scores for a submission (tests check there are no duplicates).
pub async fn image_score_rows(
    db: impl PgExecutor<'_>,
    submission_id: i64,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar("SELECT COUNT(*) FROM image_scores WHERE submission_id = $1")
        .bind(submission_id)
        .fetch_one(db)
        .await
}

/// The corpus-level classic metrics of a submission, under pycocoevalcap's names, if computed.
pub async fn classic(
    db: impl PgExecutor<'_>,
    submission_id: i64,
) -> Result<Option<serde_json::Value>, sqlx::Error> {
    sqlx::query_scalar("SELECT details FROM classic_scores WHERE submission_id = $1")
        .bind(submission_id)
        .fetch_optional(db)
        .await
}
