//! Scores as the engine computes them are stored as they are: the official SPICE's counts are
//! Java ints, so a candidate whose tuples match one merged reference tuple several times has a
//! negative fn and a recall (and F) above 1, and the jobs that score it succeed.

use spiceboard::actions;
use spiceboard::domain::{ChallengeSlug, SplitName, Title};

use crate::helpers::{spawn_app_with, TestApp};

/// The official jar's example (../shared/corenlp/README.md): against this reference it gives All
/// tp 4, fp 0, fn -2, precision 1, recall 2, F 4/3, and fn -1 for Object and Relation.
const BATHROOM: &str =
    "a bathroom with a toilet and a tub and a bath and a toilette and a lavatory";
const REFERENCE: &str = "a bathroom with a toilet and a bath";

/// The (tp, fp, fn, precision, recall, f) of one image and category.
async fn image_score(
    app: &TestApp,
    submission_id: i64,
    image_id: i64,
    category: &str,
) -> (i32, i32, i32, Option<f64>, Option<f64>, Option<f64>) {
    sqlx::query_as(
        "SELECT tp, fp, fn, precision, recall, f FROM image_scores
         WHERE submission_id = $1 AND image_id = $2 AND category = $3",
    )
    .bind(submission_id)
    .bind(image_id)
    .bind(category)
    .fetch_one(&app.pool)
    .await
    .expect("an image score")
}

#[tokio::test]
async fn a_negative_fn_and_a_recall_above_one_are_scored_and_stored() {
    let app = spawn_app_with(1, |_| {}).await;
    // Image 1 has two references, so the Human row scores the bathroom caption against the
    // other; image 2 has only that other reference, and the team's caption for it is the
    // bathroom one.
    let references = serde_json::json!({
        "images": [{"id": 1}, {"id": 2}],
        "annotations": [
            {"image_id": 1, "caption": BATHROOM},
            {"image_id": 1, "caption": REFERENCE},
            {"image_id": 2, "caption": REFERENCE},
        ],
    });
    let challenge = actions::create_challenge(
        &app.pool,
        &ChallengeSlug::parse("bath").expect("slug"),
        &Title::parse("Bathrooms").expect("title"),
        "",
        None,
    )
    .await
    .expect("challenge");
    actions::import_references(
        &app.pool,
        &app.engine,
        &challenge,
        &SplitName::parse("val").expect("split"),
        references.to_string().into_bytes(),
        actions::ImportMode::default(),
    )
    .await
    .expect("import references");
    let (_, token) = app.team("bath", "Owls").await;
    let results = serde_json::json!([
        {"image_id": 1, "caption": "a bathroom with a toilet"},
        {"image_id": 2, "caption": BATHROOM},
    ]);
    let team = app
        .submit("bath", &token, "val", results.to_string().into_bytes())
        .await;
    app.assert_scored(team).await;
    let jar = (4, 0, -2, Some(1.0), Some(2.0), Some(4.0 / 3.0));
    assert_eq!(image_score(&app, team, 2, "all").await, jar);
    for category in ["object", "relation"] {
        let (tp, _, fn_, _, recall, _) = image_score(&app, team, 2, category).await;
        assert_eq!((tp, fn_, recall), (2, -1, Some(2.0)), "{category}");
    }
    // The aggregate sums the counts and averages the ratios, whatever their range.
    let status: serde_json::Value = app.api_status(team, &token).await;
    let (fn_sum, recall_mean): (i64, f64) = sqlx::query_as(
        "SELECT SUM(fn), AVG(recall) FROM image_scores WHERE submission_id = $1 AND category = 'all'",
    )
    .bind(team)
    .fetch_one(&app.pool)
    .await
    .expect("sums");
    let all = &status["scores"]["all"];
    assert_eq!(all["fn"].as_i64(), Some(fn_sum), "{status}");
    let recall = all["recall"].as_f64().expect("a recall");
    assert!((recall - recall_mean).abs() < 1e-12, "{status}");
    assert!(recall > 1.0, "{status}");

    // The Human row: image 1's bathroom caption against its other reference.
    let split = actions::split(&app.pool, &challenge, "val")
        .await
        .expect("split");
    let human = actions::compute_human(&app.pool, &split, 3)
        .await
        .expect("human row");
    app.assert_scored(human.id).await;
    assert_eq!(image_score(&app, human.id, 1, "all").await, jar);
}

#[tokio::test]
async fn a_deleted_submission_takes_its_per_image_scores_with_it() {
    // image_scores has no foreign key to submissions (migration 20261130000002): a trigger
    // deletes the rows, whether the submission is deleted itself or with its challenge.
    let app = spawn_app_with(1, |_| {}).await;
    let references = serde_json::json!({
        "annotations": [
            {"image_id": 1, "caption": REFERENCE},
            {"image_id": 2, "caption": BATHROOM},
        ],
    });
    let mut scored = Vec::new();
    for slug in ["bath", "tubs"] {
        let challenge = actions::create_challenge(
            &app.pool,
            &ChallengeSlug::parse(slug).expect("slug"),
            &Title::parse(&format!("Bathrooms {slug}")).expect("title"),
            "",
            None,
        )
        .await
        .expect("challenge");
        actions::import_references(
            &app.pool,
            &app.engine,
            &challenge,
            &SplitName::parse("val").expect("split"),
            references.to_string().into_bytes(),
            actions::ImportMode::default(),
        )
        .await
        .expect("import references");
        let (_, token) = app.team(slug, "Owls").await;
        let results = serde_json::json!([
            {"image_id": 1, "caption": "a bathroom with a toilet"},
            {"image_id": 2, "caption": "a tub"},
        ]);
        let id = app
            .submit(slug, &token, "val", results.to_string().into_bytes())
            .await;
        app.assert_scored(id).await;
        scored.push((challenge.id, id));
    }
    let rows = |id: i64| {
        let pool = app.pool.clone();
        async move {
            let n: i64 =
                sqlx::query_scalar("SELECT COUNT(*) FROM image_scores WHERE submission_id = $1")
                    .bind(id)
                    .fetch_one(&pool)
                    .await
                    .expect("count");
            n
        }
    };
    assert_eq!(
        rows(scored[0].1).await,
        14,
        "seven categories of two images"
    );
    sqlx::query("DELETE FROM submissions WHERE id = $1")
        .bind(scored[0].1)
        .execute(&app.pool)
        .await
        .expect("delete the submission");
    assert_eq!(rows(scored[0].1).await, 0);
    assert_eq!(rows(scored[1].1).await, 14, "the other one's stay");
    sqlx::query("DELETE FROM challenges WHERE id = $1")
        .bind(scored[1].0)
        .execute(&app.pool)
        .await
        .expect("delete the challenge");
    assert_eq!(rows(scored[1].1).await, 0);
}
