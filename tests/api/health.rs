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
