//! One number everywhere (issue 33): a real COCO set scored by the server (import, upload, the
//! worker, the stored rows) and by the engine as `spice eval` scores it gives every image the
//! same tp/fp/fn. Needs SPICEBOARD_DATA (scripts/fetch-data).
//!
//! The set: the first 300 images of val2014 by id, and every image with a caption ending in a
//! one-letter abbreviation ("a sign that reads K."), which pycocoevalcap's tokenizer reads
//! differently when the next caption follows it in its batch (`k`) than alone (`k.`).

use std::collections::BTreeMap;

use spice::cocoeval::{self, Annotations, CaptionResult, CocoImages, ImageId, Scorer};

use crate::helpers::spawn_app_with;

/// The set's images in id order, each with its captions: the first is the candidate, the others
/// the references.
fn coco_set() -> Vec<(i64, Vec<String>)> {
    let data = std::env::var("SPICEBOARD_DATA").expect("set SPICEBOARD_DATA (scripts/fetch-data)");
    let path = std::path::Path::new(&data).join("coco/captions_val2014.json");
    let file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("COCO val2014 captions"))
            .expect("JSON");
    let mut by_image: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for a in file["annotations"].as_array().expect("annotations") {
        let caption = a["caption"].as_str().expect("a caption").to_string();
        by_image
            .entry(a["image_id"].as_i64().expect("an id"))
            .or_default()
            .push(caption);
    }
    let one_letter_abbreviation = |c: &str| {
        let b = c.trim_end().as_bytes();
        b.len() >= 3
            && b.ends_with(b".")
            && b[b.len() - 2].is_ascii_uppercase()
            && b[b.len() - 3] == b' '
    };
    by_image
        .into_iter()
        .enumerate()
        .filter(|(k, (_, captions))| {
            *k < 300 || captions.iter().any(|c| one_letter_abbreviation(c))
        })
        .map(|(_, image)| image)
        .collect()
}

#[tokio::test]
async fn the_server_and_spice_eval_score_every_coco_image_alike() {
    let set = coco_set();
    let annotations = serde_json::json!({
        "images": set.iter().map(|(id, _)| serde_json::json!({"id": id})).collect::<Vec<_>>(),
        "annotations": set.iter().flat_map(|(id, captions)| captions[1..].iter()
            .map(move |c| serde_json::json!({"image_id": id, "caption": c}))).collect::<Vec<_>>(),
    });
    let results: Vec<serde_json::Value> = set
        .iter()
        .map(|(id, captions)| serde_json::json!({"image_id": id, "caption": captions[0]}))
        .collect();

    // The engine, as `spice eval` runs it on these two files.
    let engine_side = {
        let annotations = Annotations::from_json_slice(&annotations.to_string().into_bytes(), "a")
            .expect("annotations");
        let results: Vec<CaptionResult> = set
            .iter()
            .map(|(id, captions)| CaptionResult {
                image_id: ImageId::Int(*id),
                caption: captions[0].clone(),
            })
            .collect();
        let images = CocoImages::new(&annotations, &results, "r")
            .expect("results")
            .tokenize()
            .expect("tokens");
        let evaluation = cocoeval::evaluate(
            &images,
            &[Scorer::Spice],
            &spiceboard::scoring::new_engine(),
            None,
            None,
        )
        .expect("evaluation");
        let scores = evaluation.spice_per_image().expect("SPICE ran");
        let counts: BTreeMap<i64, (i64, i64, i64)> = evaluation
            .ids()
            .iter()
            .zip(scores)
            .map(|(id, s)| match id {
                ImageId::Int(id) => (
                    *id,
                    (
                        i64::from(s.all.tp),
                        i64::from(s.all.fp),
                        i64::from(s.all.fn_),
                    ),
                ),
                ImageId::Str(s) => panic!("image {s}"),
            })
            .collect();
        counts
    };

    // The server: references imported, the results uploaded and scored by a worker.
    let app = spawn_app_with(1, |_| {}).await;
    let c = spiceboard::actions::create_challenge(
        &app.pool,
        &spiceboard::domain::ChallengeSlug::parse("coco").expect("slug"),
        &spiceboard::domain::Title::parse("COCO").expect("title"),
        "",
        None,
    )
    .await
    .expect("challenge");
    spiceboard::actions::import_references(
        &app.pool,
        &app.engine,
        &c,
        &spiceboard::domain::SplitName::parse("val").expect("split"),
        annotations.to_string().into_bytes(),
        spiceboard::actions::ImportMode::default(),
    )
    .await
    .expect("import");
    let (_, token) = app.team("coco", "Team").await;
    let id = app
        .submit(
            "coco",
            &token,
            "val",
            serde_json::to_vec(&results).expect("JSON"),
        )
        .await;
    app.assert_scored(id).await;
    let rows: Vec<(i64, i64, i64, i64)> = sqlx::query_as(
        "SELECT image_id, tp::BIGINT, fp::BIGINT, fn::BIGINT FROM image_scores
         WHERE submission_id = $1 AND category = 'all' ORDER BY image_id",
    )
    .bind(id)
    .fetch_all(&app.pool)
    .await
    .expect("scores");
    let server_side: BTreeMap<i64, (i64, i64, i64)> = rows
        .into_iter()
        .map(|(id, tp, fp, fn_)| (id, (tp, fp, fn_)))
        .collect();

    assert_eq!(server_side.len(), set.len());
    let differing: Vec<String> = engine_side
        .iter()
        .filter(|(id, counts)| server_side.get(id) != Some(counts))
        .map(|(id, counts)| {
            format!(
                "image {id}: spice eval {counts:?}, server {:?}",
                server_side.get(id)
            )
        })
        .collect();
    assert!(
        differing.is_empty(),
        "{} of {} images differ:\n{}",
        differing.len(),
        set.len(),
        differing.join("\n")
    );
}
