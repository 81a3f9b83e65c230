//! The app answers: health check, assets, unknown pages.

use crate::helpers::spawn_app;

#[tokio::test]
async fn health_assets_and_not_found() {
    let app = spawn_app().await;
    let c = reqwest::Client::new();
    let health = c.get(app.url("/health")).send().await.expect("GET");
    assert_eq!(health.status(), 200);
    let health: serde_json::Value = health.json().await.expect("JSON");
    assert_eq!(health["status"], "ok");
    assert_eq!(health["database"], "up");
    let css = c
        .get(app.url("/static/style.css"))
        .send()
        .await
        .expect("GET");
    assert_eq!(css.status(), 200);
    assert!(css.headers()["content-type"]
        .to_str()
        .unwrap_or("")
        .starts_with("text/css"));
    assert_eq!(
        c.get(app.url("/static/nope.js"))
            .send()
            .await
            .expect("GET")
            .status(),
        404
    );
    assert_eq!(
        c.get(app.url("/c/no-such-challenge"))
            .send()
            .await
            .expect("GET")
            .status(),
        404
    );
    let home = c
        .get(app.url("/"))
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("body");
    assert!(home.contains("No challenge yet"));
}

/// HEAD answers wherever GET does, with GET's status and headers and no body (issue 35: `HEAD /`
/// was 404, as every route answered GET only).
#[tokio::test]
async fn head_answers_as_get_does_without_a_body() {
    let app = spawn_app().await;
    app.challenge_with_split("hd", "val", false).await;
    let c = crate::helpers::client();
    for path in [
        "/",
        "/health",
        "/static/style.css",
        "/login",
        "/c/hd",
        "/c/hd/leaderboard",
        "/c/hd/leaderboard.json",
        "/c/hd/submit",
        "/c/no-such-challenge",
    ] {
        let get = c.get(app.url(path)).send().await.expect("GET");
        let head = c.head(app.url(path)).send().await.expect("HEAD");
        assert_eq!(head.status(), get.status(), "{path}");
        assert_eq!(
            head.headers().get("content-type"),
            get.headers().get("content-type"),
            "{path}"
        );
        assert_eq!(
            head.headers().get("location"),
            get.headers().get("location"),
            "{path}"
        );
        assert!(head.bytes().await.expect("body").is_empty(), "{path}");
    }
}
