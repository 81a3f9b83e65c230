//! Uploads through the API: validation errors naming the first offending entries, limits, quota,
//! and the token boundary.

use crate::helpers::{demo_results, spawn_app_with};

fn entries(pairs: &[(i64, &str)]) -> Vec<u8> {
    serde_json::to_vec(
        &pairs
            .iter()
            .map(|(id, c)| serde_json::json!({"image_id": id, "caption": c}))
            .collect::<Vec<_>>(),
    )
    .expect("json")
}

async fn rejected(app: &crate::helpers::TestApp, token: &str, file: Vec<u8>) -> (u16, String) {
    let r = app.api_upload("up", token, Some("val"), file).await;
    let status = r.status().as_u16();
    let body: serde_json::Value = r.json().await.expect("JSON error");
    (
        status,
        body["error"].as_str().unwrap_or_default().to_string(),
    )
}

#[tokio::test]
async fn a_valid_upload_is_accepted_and_scored() {
    let app = spawn_app_with(1, |_| {}).await;
    app.challenge_with_split("up", "val", false).await;
    let (_, token) = app.team("up", "Owls").await;
    let r = app
        .api_upload("up", &token, Some("val"), demo_results(true))
        .await;
    assert_eq!(r.status(), 202);
    let body: serde_json::Value = r.json().await.expect("json");
    let id = body["id"].as_i64().expect("id");
    assert_eq!(body["status_url"], format!("/api/submissions/{id}"));
    app.assert_scored(id).await;
    let status: serde_json::Value = app.api_status(id, &token).await;
    {
        assert_eq!(status["status"], "scored");
        let f = status["scores"]["all"]["f"].as_f64().expect("SPICE F");
        assert!(f > 0.0 && f <= 1.0, "{status}");
        // The classic COCO metrics come with it (pycocoevalcap's names).
        for m in ["Bleu_1", "Bleu_4", "ROUGE_L", "CIDEr"] {
            assert!(
                status["classic"][m].as_f64().is_some(),
                "{m} missing: {status}"
            );
        }
        for c in ["object", "relation", "attribute", "color", "count", "size"] {
            assert!(
                status["scores"].get(c).is_some(),
                "category {c} missing: {status}"
            );
        }
        let rows: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM image_scores WHERE submission_id = $1")
                .bind(id)
                .fetch_one(&app.pool)
                .await
                .expect("count");
        assert_eq!(rows, 20 * 7, "one row per image and category");
    }
    // The raw file and its checksum are stored.
    let (sha, size): (String, i64) =
        sqlx::query_as("SELECT sha256, byte_size FROM submissions WHERE id = $1")
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .expect("row");
    assert_eq!(sha.len(), 64);
    assert_eq!(size, demo_results(true).len() as i64);
}

#[tokio::test]
async fn bad_files_are_rejected_naming_the_first_offenders_and_not_counted() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("up", "val", false).await;
    let (_, token) = app.team("up", "Owls").await;
    let mut full: Vec<(i64, String)> = (1..=20).map(|i| (i, format!("caption {i}"))).collect();
    let as_pairs =
        |v: &Vec<(i64, String)>| v.iter().map(|(i, c)| (*i, c.clone())).collect::<Vec<_>>();

    let (s, e) = rejected(&app, &token, b"[{\"image_id\": 1, \"caption\": ".to_vec()).await;
    assert_eq!(s, 400);
    assert!(e.starts_with("the file is not valid JSON"), "{e}");

    let (s, e) = rejected(&app, &token, b"{\"image_id\": 1}".to_vec()).await;
    assert_eq!(s, 400);
    assert!(e.contains("it holds an object"), "{e}");

    let mut unknown = as_pairs(&full);
    unknown.push((999, "extra".into()));
    unknown.push((1000, "extra".into()));
    let file = entries(
        &unknown
            .iter()
            .map(|(i, c)| (*i, c.as_str()))
            .collect::<Vec<_>>(),
    );
    let (s, e) = rejected(&app, &token, file).await;
    assert_eq!(s, 400);
    assert!(
        e.contains("2 image ids are not in split \"val\": 999 (entry 21), 1000 (entry 22)"),
        "{e}"
    );

    let mut dup = as_pairs(&full);
    dup.push((3, "again".into()));
    let file = entries(
        &dup.iter()
            .map(|(i, c)| (*i, c.as_str()))
            .collect::<Vec<_>>(),
    );
    let (_, e) = rejected(&app, &token, file).await;
    assert!(
        e.contains("1 image id appears more than once: 3 (entries 3 and 21)"),
        "{e}"
    );

    full.retain(|(i, _)| *i != 7 && *i != 12);
    let file = entries(
        &full
            .iter()
            .map(|(i, c)| (*i, c.as_str()))
            .collect::<Vec<_>>(),
    );
    let (_, e) = rejected(&app, &token, file).await;
    assert!(
        e.contains("2 images of split \"val\" have no caption: 7, 12"),
        "{e}"
    );

    let file = br#"[{"image_id": 1, "caption": ["a", "list"]}, {"image_id": 2, "caption": 3}, {"image_id": 3}]"#.to_vec();
    let (_, e) = rejected(&app, &token, file).await;
    assert!(e.contains("3 malformed entries: entry 1 (image_id 1): \"caption\" must be a string (it is an array)"), "{e}");
    assert!(
        e.contains("entry 3 (image_id 3): \"caption\" is missing"),
        "{e}"
    );
    assert!(
        e.contains("\n17 images of split \"val\" have no caption (first 5): 4, 5, 6, 7, 8"),
        "the other problems come in the same answer: {e}"
    );

    let long = "word ".repeat(300);
    let mut pairs: Vec<(i64, &str)> = (1..=20).map(|i| (i, "short")).collect();
    pairs[4].1 = &long;
    let (_, e) = rejected(&app, &token, entries(&pairs)).await;
    assert!(
        e.contains(
            "1 caption is longer than 1000 characters: entry 5 (image_id 5) has 1500 characters"
        ),
        "{e}"
    );

    // Twenty distinct sentences of 130 tokens, each within the caption length: three hours of a
    // core for a 5,000-image file of them with CoreNLP's chart.
    let costly: Vec<String> = (1..=20)
        .map(|i| format!("{i} {}", "a ".repeat(129)))
        .collect();
    let pairs: Vec<(i64, &str)> = costly
        .iter()
        .enumerate()
        .map(|(i, c)| (i as i64 + 1, c.as_str()))
        .collect();
    let (s, e) = rejected(&app, &token, entries(&pairs)).await;
    assert_eq!(s, 400);
    assert!(
        e.starts_with("parsing these captions would take too long"),
        "{e}"
    );
    assert!(
        e.contains("the 20 distinct captions add up to 44961820, more than the 15625000 this file may use (15625 an image, a caption of 24 tokens for each, counted for at least 1000 images); the costliest: image 1 (130 tokens), image 2 (130 tokens)"),
        "{e}"
    );

    let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM submissions")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    let jobs: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM jobs")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(
        (stored, jobs),
        (0, 0),
        "rejected files are neither stored nor queued"
    );
}

#[tokio::test]
async fn a_100_mb_file_is_refused_without_being_stored() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("up", "val", false).await;
    let (_, token) = app.team("up", "Owls").await;
    let mut huge = b"[".to_vec();
    huge.resize(100 * 1024 * 1024, b' ');
    huge.push(b']');
    let (s, e) = rejected(&app, &token, huge).await;
    assert_eq!(s, 413);
    assert!(
        e.contains("this challenge accepts files of at most 20.0 MB"),
        "{e}"
    );
    let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM submissions")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(stored, 0);
}

#[tokio::test]
async fn uploads_need_a_valid_token_of_this_challenge() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("up", "val", false).await;
    app.challenge_with_split("other", "val", false).await;
    let (_, other_token) = app.team("other", "Foxes").await;
    let anonymous = reqwest::Client::new()
        .post(app.url("/api/c/up/submissions"))
        .multipart(
            reqwest::multipart::Form::new()
                .part("file", reqwest::multipart::Part::bytes(demo_results(true))),
        )
        .send()
        .await
        .expect("request");
    assert_eq!(anonymous.status(), 401);
    let r = app
        .api_upload("up", "not-a-token", Some("val"), demo_results(true))
        .await;
    assert_eq!(r.status(), 401);
    let r = app
        .api_upload("up", &other_token, Some("val"), demo_results(true))
        .await;
    assert_eq!(r.status(), 403);
}

#[tokio::test]
async fn quotas_count_stored_submissions_only() {
    let app = spawn_app_with(0, |_| {}).await;
    let c = app.challenge_with_split("up", "val", false).await;
    spiceboard::storage::challenges::set_limits(&app.pool, c.id, Some(1), Some(5), 1_000_000)
        .await
        .expect("limits");
    let (_, token) = app.team("up", "Owls").await;
    // A rejected file does not use the quota...
    let r = app
        .api_upload("up", &token, Some("val"), b"[]".to_vec())
        .await;
    assert_eq!(r.status(), 400);
    // ...so the first valid one passes and the second hits the daily limit.
    app.submit("up", &token, "val", demo_results(true)).await;
    let r = app
        .api_upload("up", &token, Some("val"), demo_results(false))
        .await;
    assert_eq!(r.status(), 429);
    let body: serde_json::Value = r.json().await.expect("json");
    assert!(
        body["error"]
            .as_str()
            .unwrap_or_default()
            .contains("1 submissions of the last 24 hours"),
        "{body}"
    );
}

#[tokio::test]
async fn a_team_cannot_see_another_teams_submission() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("up", "val", true).await;
    let (_, owls) = app.team("up", "Owls").await;
    let (_, foxes) = app.team("up", "Foxes").await;
    let id = app.submit("up", &owls, "val", demo_results(true)).await;
    let get = |token: String| {
        let url = app.url(&format!("/api/submissions/{id}"));
        async move {
            reqwest::Client::new()
                .get(url)
                .bearer_auth(token)
                .send()
                .await
                .expect("GET")
                .status()
                .as_u16()
        }
    };
    assert_eq!(get(owls.clone()).await, 200);
    assert_eq!(get(foxes.clone()).await, 404);
    let anon = reqwest::Client::new()
        .get(app.url(&format!("/api/submissions/{id}")))
        .send()
        .await
        .expect("GET");
    assert_eq!(anon.status(), 401);
    // Nor its page (which shows the captions): anonymous visitors get "not found".
    let page = reqwest::Client::new()
        .get(app.url(&format!("/s/{id}")))
        .send()
        .await
        .expect("GET");
    assert_eq!(page.status(), 404);
}

/// The files of `crates/spice/tests/fixtures/upload-rules`, with what its `expected.txt` says of
/// each: refused (its messages) or accepted (its notes).
fn upload_rules() -> Vec<(String, bool, Vec<String>)> {
    let text =
        std::fs::read_to_string(format!("{UPLOAD_RULES}/expected.txt")).expect("expected.txt");
    let mut cases: Vec<(String, bool, Vec<String>)> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (key, message) = line.split_once(':').expect("FILE: message");
        let (file, accepted) = match key.strip_suffix(" (accepted)") {
            Some(f) => (f, true),
            None => (key, false),
        };
        let message = message.trim_start().replace("{images}", "split \"val\"");
        match cases.last_mut() {
            Some((f, _, lines)) if f == file => lines.push(message),
            _ => cases.push((file.to_string(), accepted, vec![message])),
        }
    }
    for (_, _, lines) in &mut cases {
        lines.retain(|l| !l.is_empty());
    }
    cases
}

const UPLOAD_RULES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/crates/spice/tests/fixtures/upload-rules"
);

#[tokio::test]
async fn the_upload_rules_files_get_the_messages_spice_eval_gives() {
    // crates/spice/tests/cli/eval.rs feeds the same files to `spice eval` and finds these words.
    let app = spawn_app_with(0, |_| {}).await;
    let annotations = std::fs::read(format!("{UPLOAD_RULES}/annotations.json")).expect("read");
    app.challenge_with_references("rules", "val", false, annotations)
        .await;
    let (_, token) = app.team("rules", "Owls").await;
    let cases = upload_rules();
    assert!(cases.len() >= 10, "{cases:?}");
    for (file, accepted, expected) in cases {
        let bytes = std::fs::read(format!("{UPLOAD_RULES}/{file}")).expect("read");
        let r = app.api_upload("rules", &token, Some("val"), bytes).await;
        let status = r.status().as_u16();
        let body: serde_json::Value = r.json().await.expect("JSON");
        let said: Vec<String> = body[if accepted { "note" } else { "error" }]
            .as_str()
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(status, if accepted { 202 } else { 400 }, "{file}: {body}");
        assert_eq!(said, expected, "{file}: {body}");
    }
}
