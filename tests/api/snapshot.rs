//! A submission's page and its API status read its state and its scores as of one moment
//! (issue 34): a job that finishes while they are being put together shows as running without
//! scores, or as scored with them, never "running" beside scores.

use std::future::Future;

use crate::helpers::{
    demo_results, run_jobs, spawn_app_with, until_a_statement_waits_for_a_lock, TestApp,
};

/// Takes submission `id`, scored, back to the moment before the worker's last transaction: the
/// job running, no scores yet (its scores kept aside in `kept_scores`).
async fn unfinish(app: &TestApp, id: i64) {
    for statement in [
        "CREATE TABLE IF NOT EXISTS kept_scores AS SELECT * FROM aggregate_scores WHERE submission_id = $1",
        "DELETE FROM aggregate_scores WHERE submission_id = $1",
        "UPDATE submissions SET status = 'running', scored_at = NULL WHERE id = $1",
        "UPDATE jobs SET state = 'running', finished_at = NULL, locked_by = 'test-worker',
                lease_expires_at = now() + interval '5 minutes' WHERE submission_id = $1",
    ] {
        sqlx::query(statement)
            .bind(id)
            .execute(&app.pool)
            .await
            .expect(statement);
    }
}

/// Runs `read` while the worker's last transaction for submission `id` holds the scores' table:
/// the read gets as far as the scores (or anything else reading them) and waits; the transaction
/// writes the scores, marks the submission scored and the job succeeded, and commits. What the
/// read gave.
async fn finish_during<T: Send + 'static>(
    app: &TestApp,
    id: i64,
    read: impl Future<Output = T> + Send + 'static,
) -> T {
    let mut worker = app.pool.begin().await.expect("begin");
    sqlx::query("LOCK TABLE aggregate_scores IN ACCESS EXCLUSIVE MODE")
        .execute(&mut *worker)
        .await
        .expect("lock");
    let reading = tokio::spawn(read);
    until_a_statement_waits_for_a_lock(app, "aggregate_scores", "the read").await;
    for statement in [
        "INSERT INTO aggregate_scores SELECT * FROM kept_scores WHERE submission_id = $1",
        "UPDATE submissions SET status = 'scored', error = NULL, scored_at = now() WHERE id = $1",
        "UPDATE jobs SET state = 'succeeded', finished_at = now(), lease_expires_at = NULL
         WHERE submission_id = $1",
    ] {
        sqlx::query(statement)
            .bind(id)
            .execute(&mut *worker)
            .await
            .expect(statement);
    }
    worker.commit().await.expect("commit");
    reading.await.expect("the read")
}

async fn page(owl: reqwest::Client, url: String) -> String {
    let r = owl.get(url).send().await.expect("GET");
    assert_eq!(r.status(), 200);
    r.text().await.expect("page")
}

/// The page's status and whether it shows the scores.
fn status_and_scores(page: &str) -> (String, bool) {
    let status = &page[page.find("id=\"status-text\">").expect("a status")..];
    let status = &status["id=\"status-text\">".len()..status.find("</strong>").expect("end")];
    (
        status.to_string(),
        page.contains("<table id=\"categories\">"),
    )
}

#[tokio::test]
async fn a_job_finishing_while_the_page_is_read_never_shows_running_beside_scores() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("snap", "val", false).await;
    let (_, token) = app.team("snap", "Owls").await;
    let owl = app.member("snap", "Owls", "owl@example.org").await;
    let id = app.submit("snap", &token, "val", demo_results(true)).await;
    assert_eq!(run_jobs(&app, &app.engine, 1).await, 1);
    app.assert_scored(id).await;
    let url = app.url(&format!("/s/{id}"));

    unfinish(&app, id).await;
    let before = page(owl.clone(), url.clone()).await;
    assert_eq!(
        status_and_scores(&before),
        ("running".into(), false),
        "{before}"
    );
    let during = finish_during(&app, id, page(owl.clone(), url.clone())).await;
    let shown = status_and_scores(&during);
    assert!(
        shown == ("running".into(), false) || shown == ("scored".into(), true),
        "{shown:?}\n{during}"
    );
    let after = page(owl.clone(), url.clone()).await;
    assert_eq!(
        status_and_scores(&after),
        ("scored".into(), true),
        "{after}"
    );

    // The API's status, the same way: the status and the scores of one moment.
    unfinish(&app, id).await;
    let status = |token: String| {
        let url = app.url(&format!("/api/submissions/{id}"));
        async move {
            let r = reqwest::Client::new()
                .get(url)
                .bearer_auth(token)
                .send()
                .await
                .expect("GET");
            assert_eq!(r.status(), 200);
            r.json::<serde_json::Value>().await.expect("JSON")
        }
    };
    let during = finish_during(&app, id, status(token.clone())).await;
    let scores = during["scores"].as_object().expect("scores").len();
    assert!(
        (during["status"] == "running" && scores == 0 && during["scored_at"].is_null())
            || (during["status"] == "scored" && scores == 7),
        "{during}"
    );
    let after = status(token).await;
    assert_eq!(after["status"], "scored", "{after}");
    assert_eq!(after["scores"].as_object().map(|s| s.len()), Some(7));
}
