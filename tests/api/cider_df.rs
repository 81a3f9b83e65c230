//! CIDEr-D document frequencies belong to the reference split: counted once at import, stored in
//! `splits.cider_df` (their compact form), and used by every scoring job, with the scores pycocoevalcap's way of
//! counting them per evaluation gives.

use std::collections::BTreeMap;

use spice::metrics::{evaluate, CiderDf, EvalSet, ImageCaptions, Metric};
use spice::tokenize::tokenize_coco;

use crate::helpers::{demo_references, demo_results, fresh, spawn_app_with, TestApp};

/// The demo references per image, tokenized as pycocoevalcap tokenizes them, in image order.
fn tokenized_references() -> BTreeMap<i64, Vec<String>> {
    let refs: serde_json::Value =
        serde_json::from_slice(&demo_references()).expect("demo references are JSON");
    let mut out: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for a in refs["annotations"].as_array().expect("annotations") {
        let id = a["image_id"].as_i64().expect("image_id");
        let caption = a["caption"].as_str().expect("caption");
        out.entry(id).or_default().push(tokenize_coco(caption));
    }
    out
}

/// CIDEr-D of the demo results (corpus, then per image by id), computed from scratch by the
/// engine: document frequencies from `df`, or (`None`) from the evaluated references.
fn cider_from_scratch(df: Option<&CiderDf>) -> (f64, BTreeMap<i64, f64>) {
    let refs = tokenized_references();
    let results: serde_json::Value =
        serde_json::from_slice(&demo_results(true)).expect("demo results are JSON");
    // In the file's order, as the job reads it (the corpus mean follows it to the last bit).
    let entries = results.as_array().expect("a list").iter().map(|r| {
        let id = r["image_id"].as_i64().expect("image_id");
        let candidate = tokenize_coco(r["caption"].as_str().expect("caption"));
        let captions = ImageCaptions::new(candidate, refs[&id].clone()).expect("references");
        (id, captions)
    });
    let set = EvalSet::new(entries).expect("distinct ids");
    let e = evaluate(&set, &[Metric::CiderD], df, None);
    let corpus = e.corpus.get("CIDEr").expect("corpus CIDEr");
    let per_image = e
        .per_image
        .iter()
        .map(|(id, s)| (*id, s.get("CIDEr").expect("image CIDEr")))
        .collect();
    (corpus, per_image)
}

async fn stored_df(app: &TestApp, split_id: i64) -> Option<Vec<u8>> {
    sqlx::query_scalar("SELECT cider_df FROM splits WHERE id = $1")
        .bind(split_id)
        .fetch_one(&app.pool)
        .await
        .expect("read splits.cider_df")
}

async fn store_df(app: &TestApp, split_id: i64, bytes: Option<Vec<u8>>, engine: Option<&str>) {
    sqlx::query(
        "UPDATE splits SET cider_df = $2, engine_version = COALESCE($3, engine_version) WHERE id = $1",
    )
    .bind(split_id)
    .bind(bytes)
    .bind(engine)
    .execute(&app.pool)
    .await
    .expect("replace the frequencies");
}

/// Uploads the demo results, waits for the job, and returns its CIDEr-D (corpus, per image).
async fn job_cider(app: &TestApp, token: &str) -> (f64, BTreeMap<i64, f64>) {
    let id = app
        .submit("cdf", token, "val", fresh(demo_results(true)))
        .await;
    app.assert_scored(id).await;
    let corpus: Option<f64> =
        sqlx::query_scalar("SELECT cider_d FROM classic_scores WHERE submission_id = $1")
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .expect("classic scores");
    let rows: Vec<(i64, Option<f64>)> = sqlx::query_as(
        "SELECT image_id, (classic ->> 'CIDEr')::DOUBLE PRECISION FROM image_results WHERE submission_id = $1",
    )
    .bind(id)
    .fetch_all(&app.pool)
    .await
    .expect("image results");
    let per_image = rows
        .into_iter()
        .map(|(image, v)| (image, v.expect("a per-image CIDEr")))
        .collect();
    (corpus.expect("a corpus CIDEr-D"), per_image)
}

#[tokio::test]
async fn cider_df_is_stored_at_import_and_jobs_score_with_it_as_from_scratch() {
    let app = spawn_app_with(1, |_| {}).await;
    let c = app.challenge_with_split("cdf", "val", false).await;
    let split_id: i64 = sqlx::query_scalar("SELECT id FROM splits WHERE challenge_id = $1")
        .bind(c.id)
        .fetch_one(&app.pool)
        .await
        .expect("split");
    let (_, token) = app.team("cdf", "Owls").await;

    // Stored at import: the frequencies of the split's tokenized references.
    let expected = CiderDf::from_references(tokenized_references().into_values());
    assert_eq!(expected.images(), 20);
    let expected_bytes = expected.to_bytes();
    assert_eq!(
        stored_df(&app, split_id).await,
        Some(expected_bytes.clone())
    );

    // A job scores exactly as pycocoevalcap's per-evaluation counting does, to the bit.
    let scratch = cider_from_scratch(None);
    assert!(
        scratch.0 > 0.0,
        "the demo results share n-grams with the references"
    );
    assert_eq!(job_cider(&app, &token).await, scratch);

    // The job reads the stored frequencies rather than counting again: other stored frequencies
    // (those of the first five images only) give other scores, exactly those they should give.
    let five = CiderDf::from_references(tokenized_references().into_values().take(5));
    store_df(&app, split_id, Some(five.to_bytes()), None).await;
    let with_five = job_cider(&app, &token).await;
    assert_ne!(with_five.0, scratch.0);
    assert_eq!(with_five, cider_from_scratch(Some(&five)));

    // A split imported before frequencies were stored gets them counted by its first job, and
    // stored; the scores are the same.
    store_df(&app, split_id, None, None).await;
    assert_eq!(job_cider(&app, &token).await, scratch);
    assert_eq!(
        stored_df(&app, split_id).await,
        Some(expected_bytes.clone())
    );

    // Unreadable stored frequencies (a truncated value) are counted again, and stored again.
    store_df(&app, split_id, Some(expected_bytes[..20].to_vec()), None).await;
    assert_eq!(job_cider(&app, &token).await, scratch);
    assert_eq!(
        stored_df(&app, split_id).await,
        Some(expected_bytes.clone())
    );

    // After an engine upgrade the references are parsed again, and their frequencies counted
    // again (the stale ones here are the five images' ones).
    store_df(
        &app,
        split_id,
        Some(five.to_bytes()),
        Some("spiceboard/0.0.0"),
    )
    .await;
    assert_eq!(job_cider(&app, &token).await, scratch);
    assert_eq!(stored_df(&app, split_id).await, Some(expected_bytes));
}
