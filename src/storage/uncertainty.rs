//! The per-image values the bootstrap resamples, and the stored intervals (`score_intervals`).
//! The statistics are `crate::domain::uncertainty`.

use sqlx::{PgConnection, PgExecutor};

use crate::domain::leaderboard::SortKey;
use crate::domain::uncertainty::{ImageValues, Interval, COLUMNS};

use super::scores::SubmissionResult;

#[derive(sqlx::FromRow)]
struct Row {
    image_id: i64,
    spice: Option<f64>,
    object: Option<f64>,
    relation: Option<f64>,
    attribute: Option<f64>,
    color: Option<f64>,
    count: Option<f64>,
    size: Option<f64>,
    rouge_l: Option<f64>,
    cider_d: Option<f64>,
}

/// Every image of a submission with its value in each of `COLUMNS` (the F of each SPICE
/// category, NULL where undefined; ROUGE-L and CIDEr-D from the image's classic metrics), in
/// image-id order: what the compare page and the lazy backfill bootstrap. The worker takes the
/// same values from what it just computed ([`of_result`]).
///
/// Each image's categories are looked up by the full key of `image_scores` (a lateral subquery)
/// rather than joined: that plan does not depend on the planner's statistics, which count no
/// row yet for a submission written since the last ANALYZE. Joined, such a submission was
/// estimated at one row and got a nested loop over all its category rows for each image:
/// quadratic, 249 s at 20,000 images (issue 33); this form takes about 0.2 s at 40,504.
pub async fn per_image(
    db: impl PgExecutor<'_>,
    submission_id: i64,
) -> Result<Vec<ImageValues>, sqlx::Error> {
    let rows: Vec<Row> = sqlx::query_as(&format!(
        "SELECT r.image_id, s.*,
                (r.classic->>'ROUGE_L')::DOUBLE PRECISION AS rouge_l,
                (r.classic->>'CIDEr')::DOUBLE PRECISION AS cider_d
         FROM image_results r
         CROSS JOIN LATERAL (
             SELECT {spice} FROM image_scores s
             WHERE s.submission_id = r.submission_id AND s.image_id = r.image_id) s
         WHERE r.submission_id = $1
         ORDER BY r.image_id",
        spice = super::spice_columns("s")
    ))
    .bind(submission_id)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| ImageValues {
            image_id: r.image_id,
            values: [
                r.spice,
                r.object,
                r.relation,
                r.attribute,
                r.color,
                r.count,
                r.size,
                r.rouge_l,
                r.cider_d,
            ],
        })
        .collect())
}

/// The values [`per_image`] reads back once `result` is written, from `result` itself (the
/// worker bootstraps a submission in the transaction that writes it, without reading it again).
pub fn of_result(result: &SubmissionResult) -> Vec<ImageValues> {
    let mut images: Vec<ImageValues> = result
        .images
        .iter()
        .map(|i| {
            let f = |category: &str| {
                i.categories
                    .iter()
                    .find(|c| c.category == category)
                    .and_then(|c| c.f)
            };
            let classic = |name: &str| {
                i.classic
                    .as_ref()
                    .and_then(|c| c.get(name))
                    .and_then(serde_json::Value::as_f64)
            };
            let [spice, object, relation, attribute, color, count, size] =
                super::SPICE_CATEGORIES.map(|(category, _)| f(category));
            ImageValues {
                image_id: i.image_id,
                values: [
                    spice,
                    object,
                    relation,
                    attribute,
                    color,
                    count,
                    size,
                    classic("ROUGE_L"),
                    classic("CIDEr"),
                ],
            }
        })
        .collect();
    images.sort_by_key(|i| i.image_id);
    images
}

/// Stores the intervals of a submission: with `replace`, over any stored ones (the worker, with
/// fresh scores); without, only where none is stored (the lazy backfill, which must not
/// overwrite what a rescoring worker wrote meanwhile).
pub async fn store(
    db: &mut PgConnection,
    submission_id: i64,
    intervals: &[Interval],
    replace: bool,
) -> Result<(), sqlx::Error> {
    let on_conflict = if replace {
        "DO UPDATE SET
            estimate = EXCLUDED.estimate, low = EXCLUDED.low, high = EXCLUDED.high,
            images = EXCLUDED.images, image_set = EXCLUDED.image_set, seed = EXCLUDED.seed,
            replicates = EXCLUDED.replicates"
    } else {
        "DO NOTHING"
    };
    let sql = format!(
        "INSERT INTO score_intervals
            (submission_id, metric, estimate, low, high, images, image_set, seed, replicates)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (submission_id, metric) {on_conflict}"
    );
    for i in intervals {
        sqlx::query(&sql)
            .bind(submission_id)
            .bind(i.metric.name())
            .bind(i.estimate)
            .bind(i.low)
            .bind(i.high)
            .bind(i.images)
            .bind(i.image_set)
            .bind(i.seed as i64)
            .bind(to_bytes(&i.replicates))
            .execute(&mut *db)
            .await?;
    }
    Ok(())
}

/// Which of `ids` have no stored intervals yet (scored before intervals existed).
pub async fn without_intervals(
    db: impl PgExecutor<'_>,
    ids: &[i64],
) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT id FROM UNNEST($1::BIGINT[]) AS id
         WHERE NOT EXISTS (SELECT 1 FROM score_intervals i WHERE i.submission_id = id)",
    )
    .bind(ids)
    .fetch_all(db)
    .await
}

#[derive(sqlx::FromRow)]
struct StoredRow {
    submission_id: i64,
    #[sqlx(default)]
    metric: String,
    estimate: Option<f64>,
    low: Option<f64>,
    high: Option<f64>,
    images: i32,
    image_set: i64,
    seed: i64,
    replicates: Vec<u8>,
}

/// `score_intervals.replicates`: 8-byte little-endian doubles back to back.
fn to_bytes(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn from_bytes(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(8)
        .map(|c| {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            f64::from_le_bytes(b)
        })
        .collect()
}

/// The stored intervals of `ids` in column `metric` (none for a column without per-image values).
pub async fn of_column(
    db: impl PgExecutor<'_>,
    ids: &[i64],
    metric: SortKey,
) -> Result<Vec<(i64, Interval)>, sqlx::Error> {
    if !COLUMNS.contains(&metric) {
        return Ok(Vec::new());
    }
    let rows: Vec<StoredRow> = sqlx::query_as(
        "SELECT submission_id, estimate, low, high, images, image_set, seed, replicates
         FROM score_intervals WHERE submission_id = ANY($1) AND metric = $2",
    )
    .bind(ids)
    .bind(metric.name())
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| (r.submission_id, interval(metric, r)))
        .collect())
}

fn interval(metric: SortKey, r: StoredRow) -> Interval {
    Interval {
        metric,
        estimate: r.estimate,
        low: r.low,
        high: r.high,
        images: r.images,
        image_set: r.image_set,
        seed: r.seed as u64,
        replicates: from_bytes(&r.replicates),
    }
}

/// Every stored interval of a submission (one per column of `COLUMNS` it has values in).
pub async fn of_submission(
    db: impl PgExecutor<'_>,
    submission_id: i64,
) -> Result<Vec<Interval>, sqlx::Error> {
    let rows: Vec<StoredRow> = sqlx::query_as(
        "SELECT submission_id, metric, estimate, low, high, images, image_set, seed, replicates
         FROM score_intervals WHERE submission_id = $1",
    )
    .bind(submission_id)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .filter_map(|r| {
            let metric = COLUMNS.into_iter().find(|c| c.name() == r.metric)?;
            Some(interval(metric, r))
        })
        .collect())
}

/// Each image's SPICE (the F of category `all`, `None` where undefined) of a submission, in
/// image-id order: what the compare page lists images by. One row per image, looked up in the
/// primary key's order.
pub async fn spice_per_image(
    db: impl PgExecutor<'_>,
    submission_id: i64,
) -> Result<Vec<(i64, Option<f64>)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT image_id, f FROM image_scores
         WHERE submission_id = $1 AND category = 'all'
         ORDER BY image_id",
    )
    .bind(submission_id)
    .fetch_all(db)
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicates_round_trip_through_bytes_nan_included() {
        let v = [0.25, f64::NAN, -1e-300, 1.0 / 3.0];
        let back = from_bytes(&to_bytes(&v));
        assert_eq!(back.len(), 4);
        assert!(back[1].is_nan());
        assert_eq!((back[0], back[2], back[3]), (v[0], v[2], v[3]));
    }
}
