//! Splits (versioned reference sets) and their reference images with stored scene graphs.

use std::collections::HashSet;

use sqlx::{PgExecutor, Postgres, Transaction};

use crate::domain::{CaptionMode, ReferenceFormat};

#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize)]
pub struct Split {
    pub id: i64,
    pub challenge_id: i64,
    pub name: String,
    pub version: i32,
    pub hidden: bool,
    pub caption_mode: CaptionMode,
    pub source_format: ReferenceFormat,
    pub image_count: i32,
    pub engine_version: String,
    /// The front end that built the stored reference graphs (`built-in`, `corenlp-3.6.0`): the
    /// leaderboard ranks the entries it scored (`domain::leaderboard::rank_by_front_end`).
    pub front_end: String,
}

/// What built a split's reference graphs: the engine's version (`scoring::engine_version`) and
/// its front end (`scoring::front_end_name`).
#[derive(Debug, Clone, Copy)]
pub struct BuiltBy<'a> {
    pub engine_version: &'a str,
    pub front_end: &'a str,
}

const COLUMNS: &str = "id, challenge_id, name, version, hidden, caption_mode, source_format, \
                       image_count, engine_version, front_end";

/// The current version of a split and how many submissions (deleted ones aside) it holds.
pub async fn current_with_submissions(
    conn: &mut sqlx::PgConnection,
    challenge_id: i64,
    name: &str,
) -> Result<Option<(Split, i64)>, sqlx::Error> {
    let Some(split) = current(&mut *conn, challenge_id, name).await? else {
        return Ok(None);
    };
    let n: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM submissions WHERE split_id = $1 AND deleted_at IS NULL",
    )
    .bind(split.id)
    .fetch_one(&mut *conn)
    .await?;
    Ok(Some((split, n)))
}

/// Adds a new version of split `name`, making it the current one. The new version is hidden if
/// `hidden` says so or the current version is hidden: a test set stays one until it is revealed
/// (`set_hidden`), whatever the form of a later import said. Returns the new version, and the
/// version it replaces with its number of submissions.
pub async fn create_version(
    tx: &mut Transaction<'_, Postgres>,
    challenge_id: i64,
    name: &str,
    hidden: bool,
    caption_mode: CaptionMode,
    source_format: ReferenceFormat,
    built_by: BuiltBy<'_>,
) -> Result<(Split, Option<(Split, i64)>), sqlx::Error> {
    // Serialise concurrent imports of the same split on the challenge row.
    sqlx::query("SELECT id FROM challenges WHERE id = $1 FOR UPDATE")
        .bind(challenge_id)
        .execute(&mut **tx)
        .await?;
    let replaced = current_with_submissions(&mut *tx, challenge_id, name).await?;
    let hidden = hidden || replaced.as_ref().is_some_and(|(s, _)| s.hidden);
    // A hidden split is a test set whatever its version: a new hidden version hides the earlier
    // ones (whose submissions' pages would show their references), as `set_hidden` does.
    sqlx::query(
        "UPDATE splits SET is_current = FALSE, hidden = hidden OR $3
         WHERE challenge_id = $1 AND name = $2 AND (is_current OR $3)",
    )
    .bind(challenge_id)
    .bind(name)
    .bind(hidden)
    .execute(&mut **tx)
    .await?;
    let split = sqlx::query_as(&format!(
        "INSERT INTO splits (challenge_id, name, version, hidden, caption_mode, source_format, engine_version, front_end)
         VALUES ($1, $2, (SELECT COALESCE(MAX(version), 0) + 1 FROM splits WHERE challenge_id = $1 AND name = $2),
                 $3, $4, $5, $6, $7)
         RETURNING {COLUMNS}"
    ))
    .bind(challenge_id)
    .bind(name)
    .bind(hidden)
    .bind(caption_mode)
    .bind(source_format)
    .bind(built_by.engine_version)
    .bind(built_by.front_end)
    .fetch_one(&mut **tx)
    .await?;
    Ok((split, replaced))
}

/// Whether split version `id` is still current, holding it so until the transaction ends (an
/// import making a new version waits for it).
pub async fn hold_current(conn: &mut sqlx::PgConnection, id: i64) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar("SELECT is_current FROM splits WHERE id = $1 FOR SHARE")
        .bind(id)
        .fetch_optional(conn)
        .await
        .map(|current| current.unwrap_or(false))
}

/// How many images version `a` has that `b` has not, and the reverse.
pub async fn image_difference(
    conn: &mut sqlx::PgConnection,
    a: i64,
    b: i64,
) -> Result<(i64, i64), sqlx::Error> {
    sqlx::query_as(
        "SELECT COUNT(*) FILTER (WHERE y.image_id IS NULL), COUNT(*) FILTER (WHERE x.image_id IS NULL)
         FROM (SELECT image_id FROM reference_images WHERE split_id = $1) x
         FULL JOIN (SELECT image_id FROM reference_images WHERE split_id = $2) y USING (image_id)",
    )
    .bind(a)
    .bind(b)
    .fetch_one(conn)
    .await
}

/// One reference image ready to store.
pub struct NewReferenceImage {
    pub image_id: i64,
    pub captions: Vec<String>,
    /// The merged reference graph (`spice::SceneGraph`) as JSON text, if it could be built.
    pub scene_graph: Option<String>,
    pub parse_error: Option<String>,
}

/// Images whose rows go in one COPY statement (about 6 MB of COCO graphs).
const IMAGES_PER_COPY: usize = 2000;

/// Stores reference images with COPY, a few thousand per statement.
pub async fn insert_reference_images(
    tx: &mut Transaction<'_, Postgres>,
    split_id: i64,
    images: &[NewReferenceImage],
) -> Result<(), sqlx::Error> {
    for chunk in images.chunks(IMAGES_PER_COPY) {
        let mut rows = String::new();
        for i in chunk {
            rows.push_str(&format!("{split_id}\t{}\t", i.image_id));
            let captions = serde_json::to_string(&i.captions).unwrap_or_else(|_| "[]".into());
            super::copy::push_field(&mut rows, &captions);
            rows.push('\t');
            super::copy::push_optional(&mut rows, i.scene_graph.as_deref());
            rows.push('\t');
            super::copy::push_optional(&mut rows, i.parse_error.as_deref());
            rows.push('\n');
        }
        super::copy::copy_in(
            tx,
            "COPY reference_images (split_id, image_id, captions, scene_graph, parse_error) FROM STDIN",
            rows,
        )
        .await?;
    }
    sqlx::query("UPDATE splits SET image_count = (SELECT COUNT(*) FROM reference_images WHERE split_id = $1) WHERE id = $1")
        .bind(split_id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

pub async fn current(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
    name: &str,
) -> Result<Option<Split>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM splits WHERE challenge_id = $1 AND name = $2 AND is_current"
    ))
    .bind(challenge_id)
    .bind(name)
    .fetch_optional(db)
    .await
}

pub async fn by_id(db: impl PgExecutor<'_>, id: i64) -> Result<Option<Split>, sqlx::Error> {
    sqlx::query_as(&format!("SELECT {COLUMNS} FROM splits WHERE id = $1"))
        .bind(id)
        .fetch_optional(db)
        .await
}

/// Current splits of a challenge, by name.
pub async fn list_current(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
) -> Result<Vec<Split>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM splits WHERE challenge_id = $1 AND is_current ORDER BY name"
    ))
    .bind(challenge_id)
    .fetch_all(db)
    .await
}

/// Clears the engine version that built a split's reference graphs, so that the next job rebuilds
/// them (re-scoring after an engine upgrade).
pub async fn forget_engine_version(
    db: impl PgExecutor<'_>,
    split_id: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE splits SET engine_version = '' WHERE id = $1")
        .bind(split_id)
        .execute(db)
        .await
        .map(|_| ())
}

/// Hides or reveals a split's version. Hiding hides its earlier versions too (the submissions
/// made to them would show the same test set's references); revealing reveals this one only.
pub async fn set_hidden(
    db: impl PgExecutor<'_>,
    split_id: i64,
    hidden: bool,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE splits SET hidden = $2
         WHERE id = $1
            OR ($2 AND (challenge_id, name) = (SELECT challenge_id, name FROM splits WHERE id = $1))",
    )
        .bind(split_id)
        .bind(hidden)
        .execute(db)
        .await
        .map(|_| ())
}

pub async fn image_ids(
    db: impl PgExecutor<'_>,
    split_id: i64,
) -> Result<HashSet<i64>, sqlx::Error> {
    let ids: Vec<i64> =
        sqlx::query_scalar("SELECT image_id FROM reference_images WHERE split_id = $1")
            .bind(split_id)
            .fetch_all(db)
            .await?;
    Ok(ids.into_iter().collect())
}

/// A stored reference image as the scorer reads it.
#[derive(Debug)]
pub struct StoredReference {
    pub image_id: i64,
    pub captions: Vec<String>,
    /// The merged reference graph as stored, JSON text: the scorer reads it into a
    /// `spice::SceneGraph` in its threads (`scoring::stored_graph`).
    pub scene_graph: Option<String>,
}

/// Every reference image of a split, in image-id order. The graphs come as the text stored
/// (a `JSON` column): neither the server nor this process builds a tree of JSON values for the
/// 123 MB of a COCO-sized split.
pub async fn references(
    db: impl PgExecutor<'_>,
    split_id: i64,
) -> Result<Vec<StoredReference>, sqlx::Error> {
    let rows: Vec<(i64, sqlx::types::Json<Vec<String>>, Option<String>)> = sqlx::query_as(
        "SELECT image_id, captions, scene_graph::TEXT FROM reference_images
         WHERE split_id = $1 ORDER BY image_id",
    )
    .bind(split_id)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(image_id, captions, scene_graph)| StoredReference {
            image_id,
            captions: captions.0,
            scene_graph,
        })
        .collect())
}

/// A split version and its reference images, read in one snapshot: the graphs are those that the
/// split's recorded engine version and front end built, even if a worker with another front end
/// rebuilds them meanwhile (`jobs::run`).
pub async fn with_references(
    pool: &sqlx::PgPool,
    split_id: i64,
) -> Result<Option<(Split, Vec<StoredReference>)>, sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .execute(&mut *tx)
        .await?;
    let Some(split) = by_id(&mut *tx, split_id).await? else {
        return Ok(None);
    };
    let refs = references(&mut *tx, split_id).await?;
    tx.commit().await?;
    Ok(Some((split, refs)))
}

/// The reference captions of one image of a split (its image page's), if the split has it.
pub async fn captions_of_image(
    db: impl PgExecutor<'_>,
    split_id: i64,
    image_id: i64,
) -> Result<Option<serde_json::Value>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT captions FROM reference_images WHERE split_id = $1 AND image_id = $2",
    )
    .bind(split_id)
    .bind(image_id)
    .fetch_optional(db)
    .await
}

/// Replaces stored reference graphs (after a parse that failed at ingestion, an engine upgrade, or
/// a change of front end), recording the engine version and front end that built them.
pub async fn update_reference_graphs(
    tx: &mut Transaction<'_, Postgres>,
    split_id: i64,
    graphs: &[(i64, String)],
    built_by: BuiltBy<'_>,
) -> Result<(), sqlx::Error> {
    for chunk in graphs.chunks(2000) {
        let ids: Vec<i64> = chunk.iter().map(|g| g.0).collect();
        let values: Vec<&str> = chunk.iter().map(|g| g.1.as_str()).collect();
        sqlx::query(
            "UPDATE reference_images r SET scene_graph = u.g::JSON, parse_error = NULL
             FROM UNNEST($2::BIGINT[], $3::TEXT[]) AS u(id, g)
             WHERE r.split_id = $1 AND r.image_id = u.id",
        )
        .bind(split_id)
        .bind(ids)
        .bind(values)
        .execute(&mut **tx)
        .await?;
    }
    sqlx::query("UPDATE splits SET engine_version = $2, front_end = $3 WHERE id = $1")
        .bind(split_id)
        .bind(built_by.engine_version)
        .bind(built_by.front_end)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// The split's CIDEr-D document frequencies as stored (`splits.cider_df`, the compact form of
/// `CiderDf::to_bytes`), if they have been computed.
pub async fn cider_df(
    db: impl PgExecutor<'_>,
    split_id: i64,
) -> Result<Option<Vec<u8>>, sqlx::Error> {
    let bytes: Option<Option<Vec<u8>>> =
        sqlx::query_scalar("SELECT cider_df FROM splits WHERE id = $1")
            .bind(split_id)
            .fetch_optional(db)
            .await?;
    Ok(bytes.flatten())
}

/// Stores the split's CIDEr-D document frequencies (their compact form) in `splits.cider_df`.
pub async fn set_cider_df(
    db: impl PgExecutor<'_>,
    split_id: i64,
    bytes: &[u8],
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE splits SET cider_df = $2 WHERE id = $1")
        .bind(split_id)
        .bind(bytes)
        .execute(db)
        .await
        .map(|_| ())
}

/// Images whose reference graph could not be built at ingestion, with the reason.
pub async fn parse_failures(
    db: impl PgExecutor<'_>,
    split_id: i64,
) -> Result<(i64, Option<String>), sqlx::Error> {
    sqlx::query_as(
        "SELECT COUNT(*), MIN(parse_error) FROM reference_images WHERE split_id = $1 AND scene_graph IS NULL",
    )
    .bind(split_id)
    .fetch_one(db)
    .await
}

/// Version `version` of split `name`, current or not.
pub async fn version(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
    name: &str,
    version: i32,
) -> Result<Option<Split>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM splits WHERE challenge_id = $1 AND name = $2 AND version = $3"
    ))
    .bind(challenge_id)
    .bind(name)
    .bind(version)
    .fetch_optional(db)
    .await
}

/// Every version of a challenge's splits, by name then version.
pub async fn all_versions(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
) -> Result<Vec<Split>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM splits WHERE challenge_id = $1 ORDER BY name, version"
    ))
    .bind(challenge_id)
    .fetch_all(db)
    .await
}

/// What the split versions `ids` hold: what deleting them takes with them.
#[derive(Debug, Clone, Default, sqlx::FromRow)]
pub struct Contents {
    pub images: i64,
    pub captions: i64,
    /// Submissions of every kind, organizers' deletions aside.
    pub submissions: i64,
    /// Of them, the teams' own uploads.
    pub team_submissions: i64,
    /// Teams with a scored submission here: their leaderboard entries go.
    pub teams_with_entries: i64,
    /// Baseline and Human rows.
    pub organizer_rows: i64,
    /// Submissions an organizer deleted before (kept for the record until now).
    pub deleted_submissions: i64,
    /// Jobs waiting or running: they are dropped (a worker that holds one finds it gone).
    pub pending_jobs: i64,
    pub judgment_sets: i64,
}

pub async fn contents(db: impl PgExecutor<'_>, ids: &[i64]) -> Result<Contents, sqlx::Error> {
    sqlx::query_as(
        "SELECT
           (SELECT COALESCE(SUM(image_count), 0)::BIGINT FROM splits WHERE id = ANY($1)) AS images,
           (SELECT COALESCE(SUM(jsonb_array_length(captions)), 0)::BIGINT FROM reference_images
            WHERE split_id = ANY($1) AND jsonb_typeof(captions) = 'array') AS captions,
           COUNT(*) FILTER (WHERE s.deleted_at IS NULL) AS submissions,
           COUNT(*) FILTER (WHERE s.deleted_at IS NULL AND s.kind = 'team') AS team_submissions,
           COUNT(DISTINCT s.team_id) FILTER (WHERE s.deleted_at IS NULL AND s.status = 'scored')
             AS teams_with_entries,
           COUNT(*) FILTER (WHERE s.deleted_at IS NULL AND s.kind <> 'team') AS organizer_rows,
           COUNT(*) FILTER (WHERE s.deleted_at IS NOT NULL) AS deleted_submissions,
           (SELECT COUNT(*) FROM jobs j JOIN submissions x ON x.id = j.submission_id
            WHERE x.split_id = ANY($1) AND j.state IN ('queued', 'running')) AS pending_jobs,
           (SELECT COUNT(*) FROM judgment_sets WHERE split_id = ANY($1)) AS judgment_sets
         FROM submissions s WHERE s.split_id = ANY($1)",
    )
    .bind(ids)
    .fetch_one(db)
    .await
}

/// Locks the jobs of the submissions to the split versions `ids`, in the order a worker's
/// results' transaction takes them (the job row first): a deletion then waits for a worker that
/// is committing, and the worker that comes after finds its job gone (`queue::complete`).
pub async fn lock_jobs(tx: &mut Transaction<'_, Postgres>, ids: &[i64]) -> Result<(), sqlx::Error> {
    sqlx::query(
        "SELECT j.id FROM jobs j JOIN submissions s ON s.id = j.submission_id
         WHERE s.split_id = ANY($1) ORDER BY j.id FOR UPDATE OF j",
    )
    .bind(ids)
    .execute(&mut **tx)
    .await
    .map(|_| ())
}

/// Deletes split version `split` and everything it holds (references, submissions, scores,
/// jobs, judgments: the schema cascades). If it was the current version, the latest remaining
/// version of the name becomes current again; if none remains, the name's upload window goes
/// too. Returns the version now current, if any.
pub async fn delete_version(
    tx: &mut Transaction<'_, Postgres>,
    split: &Split,
) -> Result<Option<i32>, sqlx::Error> {
    let was_current: Option<bool> =
        sqlx::query_scalar("DELETE FROM splits WHERE id = $1 RETURNING is_current")
            .bind(split.id)
            .fetch_optional(&mut **tx)
            .await?;
    let current = if was_current == Some(true) {
        sqlx::query_scalar(
            "UPDATE splits SET is_current = TRUE
             WHERE id = (SELECT id FROM splits WHERE challenge_id = $1 AND name = $2
                         ORDER BY version DESC LIMIT 1)
             RETURNING version",
        )
        .bind(split.challenge_id)
        .bind(&split.name)
        .fetch_optional(&mut **tx)
        .await?
    } else {
        current(&mut **tx, split.challenge_id, &split.name)
            .await?
            .map(|s| s.version)
    };
    let remaining: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM splits WHERE challenge_id = $1 AND name = $2)",
    )
    .bind(split.challenge_id)
    .bind(&split.name)
    .fetch_one(&mut **tx)
    .await?;
    if !remaining {
        sqlx::query("DELETE FROM split_phases WHERE challenge_id = $1 AND split_name = $2")
            .bind(split.challenge_id)
            .bind(&split.name)
            .execute(&mut **tx)
            .await?;
    }
    Ok(current)
}
