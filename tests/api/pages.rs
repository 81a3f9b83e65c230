//! The team's pages: the upload form, the status page, the submission and image pages, with
//! user-supplied text always escaped.

use crate::helpers::{demo_results, escaped, spawn_app_with, TestApp};

async fn team_member(app: &TestApp, slug: &str, team: &str) {
    app.sign_up("ann@example.org", "a long password").await;
    let csrf = app.csrf(&format!("/c/{slug}")).await;
    let r = app
        .client
        .post(app.url(&format!("/c/{slug}/team")))
        .form(&[("csrf", csrf.as_str()), ("name", team)])
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 200);
    let body = r.text().await.expect("body");
    assert!(
        body.contains("id=\"new-token\""),
        "a new team sees its API token once"
    );
}

async fn form_upload(app: &TestApp, slug: &str, file: Vec<u8>) -> reqwest::Response {
    let csrf = app.csrf(&format!("/c/{slug}/submit")).await;
    let form = reqwest::multipart::Form::new()
        .text("csrf", csrf)
        .text("split", "val")
        .text("description", "<i>first</i> run")
        .part(
            "file",
            reqwest::multipart::Part::bytes(file).file_name("results.json"),
        );
    app.client
        .post(app.url(&format!("/c/{slug}/submit")))
        .multipart(form)
        .send()
        .await
        .expect("POST")
}

#[tokio::test]
async fn upload_through_the_form_then_follow_the_submission() {
    let app = spawn_app_with(1, |_| {}).await;
    app.challenge_with_split("pg", "val", false).await;
    team_member(&app, "pg", "<script>alert('team')</script>").await;
    let mut results: Vec<serde_json::Value> =
        serde_json::from_slice(&demo_results(true)).expect("json");
    results[0]["caption"] = serde_json::json!("a <script>alert(1)</script> dog & a cat");
    let r = form_upload(&app, "pg", serde_json::to_vec(&results).expect("json")).await;
    assert_eq!(r.status(), 303);
    let location = r
        .headers()
        .get("location")
        .and_then(|l| l.to_str().ok())
        .expect("redirect")
        .to_string();
    let id: i64 = location
        .trim_start_matches("/s/")
        .parse()
        .expect("submission id");

    app.assert_scored(id).await;
    let page = app
        .client
        .get(app.url(&location))
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("body");
    assert!(
        page.contains(&escaped("<i>first</i> run")) && !page.contains("<i>first"),
        "descriptions are escaped"
    );
    assert!(
        !page.contains("<script>alert"),
        "no user text reaches the page unescaped"
    );
    {
        assert!(page.contains("id=\"categories\"") && page.contains("SPICE (all tuples)"));
        assert!(
            page.contains(&escaped("a <script>alert(1)</script> dog & a cat")),
            "captions are escaped"
        );
        // Worst first: the per-image table is ordered by SPICE ascending.
        let spice: Vec<f64> = sqlx::query_scalar(
            "SELECT spice_f FROM image_results WHERE submission_id = $1 ORDER BY spice_f, image_id",
        )
        .bind(id)
        .fetch_all(&app.pool)
        .await
        .expect("scores");
        assert_eq!(spice.len(), 20);
        let image = app
            .client
            .get(app.url(&format!("/s/{id}/images/1")))
            .send()
            .await
            .expect("GET");
        let status = image.status();
        let image = image.text().await.expect("body");
        assert_eq!(status, 200, "{image}");
        assert!(image.contains("Candidate tuples") && image.contains("Reference tuples"));
        assert!(
            image.contains("a brown dog runs across a green lawn"),
            "the references are listed"
        );
        assert!(!image.contains("<script>alert"));
    }
    // The team's leaderboard name is escaped too.
    let board = app
        .client
        .get(app.url("/c/pg/leaderboard"))
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("body");
    assert!(!board.contains("<script>alert('team')"));
    let overview = app
        .client
        .get(app.url("/c/pg"))
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("body");
    assert!(
        overview.contains(&escaped("<script>alert('team')</script>")),
        "team names are escaped"
    );
}

#[tokio::test]
async fn a_queued_submission_shows_its_place_and_refreshes_itself() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("pg", "val", false).await;
    team_member(&app, "pg", "Owls").await;
    let first = form_upload(&app, "pg", demo_results(true)).await;
    assert_eq!(first.status(), 303);
    let second = form_upload(&app, "pg", demo_results(false)).await;
    let location = second
        .headers()
        .get("location")
        .and_then(|l| l.to_str().ok())
        .expect("redirect")
        .to_string();
    let page = app
        .client
        .get(app.url(&location))
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("body");
    assert!(page.contains("Status: <strong id=\"status-text\">queued</strong>"));
    assert!(
        page.contains("1 job(s) ahead in the queue"),
        "one submission is ahead"
    );
    assert!(
        page.contains("<noscript><meta http-equiv=\"refresh\"")
            && page.contains("/static/status.js")
    );
    let status: serde_json::Value = app
        .client
        .get(app.url(&format!("{location}/status")))
        .send()
        .await
        .expect("GET")
        .json()
        .await
        .expect("json");
    assert_eq!(status["status"], "queued");
    assert_eq!(status["queue_position"], 1);
}

#[tokio::test]
async fn an_invalid_form_upload_is_explained_on_the_form() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("pg", "val", false).await;
    team_member(&app, "pg", "Owls").await;
    let r = form_upload(
        &app,
        "pg",
        br#"[{"image_id": 1, "caption": "<b>only one</b>"}]"#.to_vec(),
    )
    .await;
    assert_eq!(r.status(), 400);
    let body = r.text().await.expect("body");
    assert!(body.contains("id=\"upload-error\""));
    assert!(
        body.contains("19 images of split")
            && body.contains("have no caption (first 5): 2, 3, 4, 5, 6"),
        "{body}"
    );
    assert!(!body.contains("<b>only one</b>"));
}

#[tokio::test]
async fn a_file_with_every_kind_of_problem_is_explained_in_full_on_the_form_and_in_the_api() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("pg", "val", false).await;
    team_member(&app, "pg", "Owls").await;
    let (_, token) = app.team("pg", "Foxes").await;
    // The demo split has images 1..=20. Entries, numbered from 1 as an editor shows them:
    let mut file: Vec<serde_json::Value> = vec![
        serde_json::json!(42),              // 1: not an object
        serde_json::json!({"image_id": 1}), // 2: no caption
        serde_json::json!({"image_id": 2, "caption": "a", "score": 0.5}), // 3: a key ignored
        serde_json::json!({"image_id": 3, "caption": "a\u{0}b"}), // 4: NUL
        serde_json::json!({"image_id": 4, "caption": "x".repeat(1001)}), // 5: too long
        serde_json::json!({"image_id": 5, "caption": "a dog"}),
        serde_json::json!({"image_id": 5, "caption": "a cat"}), // 7: duplicate
        serde_json::json!({"image_id": 9999, "caption": "a cow"}), // 8: unknown id
    ];
    file.extend((6..=18).map(|i| serde_json::json!({"image_id": i, "caption": "a scene"})));
    let file = serde_json::to_vec(&file).expect("json");
    let expected = [
        "2 malformed entries: entry 1 is a number, not an object; \
         entry 2 (image_id 1): \"caption\" is missing",
        "1 caption holds control characters (such as NUL): entry 4 (image_id 3) holds U+0000",
        "1 caption is longer than 1000 characters: entry 5 (image_id 4) has 1001 characters",
        "1 image id is not in split \"val\": 9999 (entry 8)",
        "1 image id appears more than once: 5 (entries 6 and 7)",
        "2 images of split \"val\" have no caption: 19, 20",
    ]
    .join("\n");

    let r = app
        .api_upload("pg", &token, Some("val"), file.clone())
        .await;
    assert_eq!(r.status(), 400);
    let body: serde_json::Value = r.json().await.expect("json");
    assert_eq!(body["error"].as_str().unwrap_or_default(), expected);

    let r = form_upload(&app, "pg", file).await;
    assert_eq!(r.status(), 400);
    let page = r.text().await.expect("body");
    assert!(
        page.contains(&format!("id=\"upload-error\">{}</p>", escaped(&expected))),
        "the same text on the page: {page}"
    );
    let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM submissions")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(stored, 0, "nothing counted");
}
