//! Reference ingestion: both formats, versioned splits, graphs stored once.

use crate::helpers::spawn_app_with;
use spiceboard::actions;
use spiceboard::domain::{CaptionMode, ChallengeSlug, ReferenceFormat, SplitName, Title};

#[tokio::test]
async fn coco_references_are_stored_with_their_graphs_and_versioned() {
    let app = spawn_app_with(0, |_| {}).await;
    let c = app.challenge_with_split("refs", "val", false).await;
    let (images, captions, with_graph, errors): (i64, i64, i64, Option<String>) = sqlx::query_as(
        "SELECT COUNT(*), SUM(jsonb_array_length(captions)), COUNT(scene_graph), MIN(parse_error)
         FROM reference_images r JOIN splits s ON s.id = r.split_id WHERE s.challenge_id = $1",
    )
    .bind(c.id)
    .fetch_one(&app.pool)
    .await
    .expect("query");
    assert_eq!((images, captions), (20, 60));
    assert_eq!(errors, None, "every caption parses");
    {
        assert_eq!(
            with_graph, 20,
            "every image gets its merged reference graph at ingestion"
        );
    }
    let mode: String =
        sqlx::query_scalar("SELECT caption_mode FROM splits WHERE challenge_id = $1")
            .bind(c.id)
            .fetch_one(&app.pool)
            .await
            .expect("mode");
    assert_eq!(
        mode, "coco",
        "COCO annotations are scored the pycocoevalcap way"
    );

    // Re-importing is an explicit new version; the old one stays but is no longer current.
    let spice_format =
        br#"[{"image_id": 5, "test": "x", "refs": ["a cat on a mat", "a cat sitting on a rug"]},
                            {"image_id": "6", "test": "y", "refs": ["a bowl of fruit"]}]"#;
    let r = actions::import_references(
        &app.pool,
        &app.engine,
        &c,
        &SplitName::parse("val").expect("name"),
        spice_format.to_vec(),
        actions::ImportMode {
            hidden: true,
            replace: true,
            rescore_with_attempts: None,
        },
    )
    .await
    .expect("import the SPICE jar's format");
    assert_eq!((r.version, r.images, r.captions), (2, 2, 3));
    let split = actions::split(&app.pool, &c, "val")
        .await
        .expect("current split");
    assert_eq!(
        (split.version, split.image_count, split.hidden),
        (2, 2, true)
    );
    assert_eq!(split.caption_mode, CaptionMode::Raw);
    assert_eq!(split.source_format, ReferenceFormat::Spice);
    let versions: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM splits WHERE challenge_id = $1")
        .bind(c.id)
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(versions, 2);
}

#[tokio::test]
async fn bad_reference_files_are_refused_with_the_place() {
    let app = spawn_app_with(0, |_| {}).await;
    let c = actions::create_challenge(
        &app.pool,
        &ChallengeSlug::parse("bad-refs").expect("slug"),
        &Title::parse("t").expect("title"),
        "",
        None,
    )
    .await
    .expect("challenge");
    let name = SplitName::parse("val").expect("name");
    // A reference of 227,000 characters took 37 s to score against a candidate as long.
    let long = format!(
        "[{{\"image_id\": 1, \"refs\": [\"a dog\", \"{}\"]}}]",
        "a dog runs ".repeat(20_000)
    );
    for (file, expected) in [
        (
            &b"{\"annotations\": [{\"image_id\": 1, \"caption\": null}]}"[..],
            "annotations[0]: caption null is not a string",
        ),
        (
            long.as_bytes(),
            "item 1: the caption is 220000 characters long, more than the 5000 a reference may have",
        ),
        (
            &b"[{\"image_id\": 1, \"refs\": []}]"[..],
            "item 1: image_id 1 has no refs",
        ),
        (&b"not json"[..], "not valid JSON"),
    ] {
        let err = actions::import_references(
            &app.pool,
            &app.engine,
            &c,
            &name,
            file.to_vec(),
            Default::default(),
        )
        .await
        .expect_err("must fail");
        assert!(err.to_string().contains(expected), "{err}");
    }
    let splits: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM splits")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(splits, 0, "a refused file leaves nothing behind");
}

/// Re-scoring a split's submissions against new references: their old scores go, a job still
/// pending against the old references is ended (its worker cannot write its results), they
/// wait queued for new jobs, and a leaderboard choice naming the old version is not written.
#[tokio::test]
async fn submissions_moved_to_new_references_lose_their_old_scores_and_jobs() {
    let app = spawn_app_with(0, |_| {}).await;
    let c = app.challenge_with_split("move", "val", false).await;
    let (team, token) = app.team("move", "Owls").await;
    let scored = app
        .submit("move", &token, "val", crate::helpers::demo_results(true))
        .await;
    crate::helpers::fake_aggregates(&app.pool, scored, [Some(0.3); 7]).await;
    let pending = app
        .submit("move", &token, "val", crate::helpers::demo_results(false))
        .await;
    let old = actions::split(&app.pool, &c, "val").await.expect("split");
    let r = actions::import_references(
        &app.pool,
        &app.engine,
        &c,
        &SplitName::parse("val").expect("name"),
        crate::helpers::demo_references(),
        actions::ImportMode {
            hidden: false,
            replace: true,
            rescore_with_attempts: Some(3),
        },
    )
    .await
    .expect("import with re-scoring");
    assert_eq!((r.version, r.carried_over), (2, 2));
    let new = actions::split(&app.pool, &c, "val").await.expect("split");
    for id in [scored, pending] {
        let (split, status): (i64, String) =
            sqlx::query_as("SELECT split_id, status FROM submissions WHERE id = $1")
                .bind(id)
                .fetch_one(&app.pool)
                .await
                .expect("submission");
        assert_eq!(
            (split, status.as_str()),
            (new.id, "queued"),
            "submission {id}"
        );
        let jobs: Vec<(String, Option<String>)> = sqlx::query_as(
            "SELECT state, last_error FROM jobs WHERE submission_id = $1 ORDER BY id",
        )
        .bind(id)
        .fetch_all(&app.pool)
        .await
        .expect("jobs");
        assert_eq!(jobs.len(), 2, "submission {id}: {jobs:?}");
        if id == pending {
            let (state, error) = &jobs[0];
            assert_eq!(state, "failed", "the job against the old references ended");
            assert!(error.as_deref().is_some_and(|e| e.contains("superseded")));
        } else {
            assert_eq!(jobs[0].0, "succeeded", "an ended job stays as it was");
        }
        assert_eq!(jobs[1].0, "queued");
    }
    let aggregates: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM aggregate_scores WHERE submission_id = $1")
            .bind(scored)
            .fetch_one(&app.pool)
            .await
            .expect("count");
    assert_eq!(aggregates, 0, "scores against the old references are gone");
    // A choice made for the old version while the submission moved writes nothing.
    let written =
        spiceboard::storage::submissions::choose_for_leaderboard(&app.pool, team, old.id, scored)
            .await
            .expect("choose");
    assert!(!written);
    let written =
        spiceboard::storage::submissions::choose_for_leaderboard(&app.pool, team, new.id, scored)
            .await
            .expect("choose");
    assert!(written);
}
