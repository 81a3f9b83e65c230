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
    )
    .await
    .expect("challenge");
    let name = SplitName::parse("val").expect("name");
    for (file, expected) in [
        (
            &b"{\"annotations\": [{\"image_id\": 1, \"caption\": null}]}"[..],
            "annotations[0]: caption null is not a string",
        ),
        (
            &b"[{\"image_id\": 1, \"refs\": []}]"[..],
            "item 0: image_id 1 has no refs",
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
