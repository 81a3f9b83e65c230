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
            && body.contains("have no caption, first: 2, 3, 4, 5, 6"),
        "{body}"
    );
    assert!(!body.contains("<b>only one</b>"));
}
