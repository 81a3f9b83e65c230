//! Deleting a split version or a whole challenge (issue 34, item 3): a confirmation page that
//! says what goes with it, a CSRF-checked post, the leaderboards without what went, and a worker
//! holding a job of a deleted submission that drops its work instead of failing.

use crate::helpers::{
    client, demo_references, demo_results, fake_aggregates, fresh, leaderboard_csv_ids,
    spawn_app_with, TestApp,
};
use spiceboard::actions;
use spiceboard::domain::SplitName;
use spiceboard::storage::{challenges, queue, splits};

/// Challenge `dx`, split `val` with the demo references, no upload limits, team Owls (its id and
/// token), and the app's client logged in as an organizer. No worker: jobs wait until run.
async fn setup() -> (TestApp, i64, String) {
    let app = spawn_app_with(0, |_| {}).await;
    let c = app.challenge_with_split("dx", "val", false).await;
    challenges::set_limits(&app.pool, c.id, None, None, 1_000_000)
        .await
        .expect("no limits");
    let (team, token) = app.team("dx", "Owls").await;
    app.log_in_as_organizer().await;
    (app, team, token)
}

/// A new version of split `val` holding the same references.
async fn new_version(app: &TestApp) {
    let c = actions::challenge(&app.pool, "dx")
        .await
        .expect("challenge");
    actions::import_references(
        &app.pool,
        &app.engine,
        &c,
        &SplitName::parse("val").expect("name"),
        demo_references(),
        actions::ImportMode {
            replace: true,
            ..Default::default()
        },
    )
    .await
    .expect("version 2");
}

/// A scored submission of the team holding `token` to the current `val`.
async fn scored(app: &TestApp, token: &str, spice: f64) -> i64 {
    let id = app
        .submit("dx", token, "val", fresh(demo_results(true)))
        .await;
    fake_aggregates(&app.pool, id, [Some(spice); 7]).await;
    id
}

async fn page(browser: &reqwest::Client, url: String) -> (u16, String) {
    let r = browser.get(url).send().await.expect("GET");
    (r.status().as_u16(), r.text().await.expect("body"))
}

/// Posts `fields` to `path` as the app's client, with its CSRF token unless `csrf` is false.
async fn post(app: &TestApp, path: &str, fields: &[(&str, &str)], csrf: bool) -> reqwest::Response {
    if csrf {
        return app.post_admin_form(path, fields).await;
    }
    // The browser has its token (and cookie); the form just does not carry it.
    app.csrf("/admin").await;
    app.client
        .post(app.url(path))
        .form(fields)
        .send()
        .await
        .expect("POST")
}

/// The submission ids of the public leaderboard CSV of `val` (None if there is no such board).
async fn board(app: &TestApp) -> Option<Vec<i64>> {
    let r = client()
        .get(app.url("/c/dx/leaderboard.csv?split=val"))
        .send()
        .await
        .expect("GET csv");
    if r.status() == 404 {
        return None;
    }
    assert_eq!(r.status(), 200);
    Some(leaderboard_csv_ids(&r.text().await.expect("csv")))
}

async fn count(app: &TestApp, sql: &str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(&app.pool)
        .await
        .expect(sql)
}

/// The demo references' images and captions, counted from the file.
fn demo_counts() -> (usize, usize) {
    let v: serde_json::Value = serde_json::from_slice(&demo_references()).expect("JSON");
    (
        v["images"].as_array().expect("images").len(),
        v["annotations"].as_array().expect("annotations").len(),
    )
}

#[tokio::test]
async fn deleting_the_current_version_says_what_goes_and_brings_back_the_one_before() {
    let (app, _, token) = setup().await;
    let first = scored(&app, &token, 0.2).await;
    new_version(&app).await;
    let second = scored(&app, &token, 0.3).await;
    let queued = app
        .submit("dx", &token, "val", fresh(demo_results(false)))
        .await;
    assert_eq!(board(&app).await, Some(vec![second]));

    // The organizer page links the confirmation, which counts what goes.
    let (_, admin) = page(&app.client, app.url("/admin/c/dx")).await;
    assert!(
        admin.contains("href=\"/admin/c/dx/splits/val/versions/2/delete\""),
        "{admin}"
    );
    let (status, confirm) = page(
        &app.client,
        app.url("/admin/c/dx/splits/val/versions/2/delete"),
    )
    .await;
    assert_eq!(status, 200, "{confirm}");
    let (images, captions) = demo_counts();
    assert!(
        confirm.contains(&format!(
            "its references: {images} images, {captions} captions"
        )),
        "{confirm}"
    );
    assert!(
        confirm
            .contains("2 submissions with their scores: 2 from teams, 0 baseline and Human rows"),
        "{confirm}"
    );
    assert!(
        confirm.contains("the leaderboard entries of 1 teams"),
        "{confirm}"
    );
    assert!(confirm.contains("1 jobs waiting or running"), "{confirm}");
    assert!(
        confirm.contains("Version 1 becomes the current version again"),
        "{confirm}"
    );

    // Without the CSRF token nothing happens.
    let r = post(&app, "/admin/c/dx/splits/val/versions/2/delete", &[], false).await;
    assert_eq!(r.status(), 403);
    assert_eq!(board(&app).await, Some(vec![second]));

    let r = post(&app, "/admin/c/dx/splits/val/versions/2/delete", &[], true).await;
    assert_eq!(r.status(), 303);
    let (_, notice) = page(&app.client, app.url("/admin/c/dx")).await;
    assert!(
        notice.contains("version 2 of split val deleted; the leaderboard of val shows version 1"),
        "{notice}"
    );
    // The version's submissions and jobs are gone; version 1 is back on the leaderboard.
    assert_eq!(board(&app).await, Some(vec![first]));
    for id in [second, queued] {
        let (status, _) = page(&app.client, app.url(&format!("/s/{id}"))).await;
        assert_eq!(status, 404, "submission {id}");
    }
    assert_eq!(
        count(&app, "SELECT COUNT(*) FROM jobs WHERE state = 'queued'").await,
        0
    );
    let c = actions::challenge(&app.pool, "dx")
        .await
        .expect("challenge");
    assert_eq!(
        splits::current(&app.pool, c.id, "val")
            .await
            .expect("current")
            .map(|s| s.version),
        Some(1)
    );

    // The last version goes too: no board of `val` is left, nor its upload window.
    challenges::set_split_phase(&app.pool, c.id, "val", Some(Default::default()))
        .await
        .expect("window");
    let (_, confirm) = page(
        &app.client,
        app.url("/admin/c/dx/splits/val/versions/1/delete"),
    )
    .await;
    assert!(
        confirm.contains("No version of split val is left"),
        "{confirm}"
    );
    let r = post(&app, "/admin/c/dx/splits/val/versions/1/delete", &[], true).await;
    assert_eq!(r.status(), 303);
    assert_eq!(board(&app).await, None);
    assert_eq!(count(&app, "SELECT COUNT(*) FROM split_phases").await, 0);
    assert_eq!(count(&app, "SELECT COUNT(*) FROM submissions").await, 0);
    // A version that is not there is a 404.
    let r = post(&app, "/admin/c/dx/splits/val/versions/1/delete", &[], true).await;
    assert_eq!(r.status(), 404);
}

#[tokio::test]
async fn deleting_an_earlier_version_leaves_the_current_one() {
    let (app, _, token) = setup().await;
    let first = scored(&app, &token, 0.2).await;
    new_version(&app).await;
    let second = scored(&app, &token, 0.3).await;
    // The organizer page links the earlier version's deletion too.
    let (_, admin) = page(&app.client, app.url("/admin/c/dx")).await;
    assert!(
        admin.contains("href=\"/admin/c/dx/splits/val/versions/1/delete\""),
        "{admin}"
    );
    let (_, confirm) = page(
        &app.client,
        app.url("/admin/c/dx/splits/val/versions/1/delete"),
    )
    .await;
    assert!(confirm.contains("not the current one"), "{confirm}");
    assert!(
        confirm.contains("Version 2 stays the current version."),
        "{confirm}"
    );
    let r = post(&app, "/admin/c/dx/splits/val/versions/1/delete", &[], true).await;
    assert_eq!(r.status(), 303);
    assert_eq!(board(&app).await, Some(vec![second]));
    let (status, _) = page(&app.client, app.url(&format!("/s/{first}"))).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_worker_holding_a_job_of_a_deleted_version_drops_it() {
    let (app, _, token) = setup().await;
    let id = app
        .submit("dx", &token, "val", fresh(demo_results(true)))
        .await;
    let claim = queue::claim(&app.pool, "w1", 30)
        .await
        .expect("claim")
        .expect("a job");
    assert_eq!(claim.job.submission_id, id);
    let c = actions::challenge(&app.pool, "dx")
        .await
        .expect("challenge");
    actions::delete_split_version(&app.pool, &c, "val", 1)
        .await
        .expect("delete");
    // The worker runs the job it holds: it finds its inputs gone, and nothing is written back.
    spiceboard::jobs::process(&app.pool, &app.engine, &app.settings.worker, &claim).await;
    assert_eq!(count(&app, "SELECT COUNT(*) FROM jobs").await, 0);
    assert_eq!(count(&app, "SELECT COUNT(*) FROM submissions").await, 0);
    assert_eq!(count(&app, "SELECT COUNT(*) FROM image_scores").await, 0);
    // And the next worker finds nothing to do.
    assert_eq!(crate::helpers::run_jobs(&app, &app.engine, 5).await, 0);
}

#[tokio::test]
async fn deleting_a_challenge_asks_for_its_slug_and_takes_everything() {
    let (app, _, token) = setup().await;
    scored(&app, &token, 0.2).await;
    app.submit("dx", &token, "val", fresh(demo_results(false)))
        .await;
    app.member("dx", "Owls", "owl@example.org").await;

    let (_, admin) = page(&app.client, app.url("/admin/c/dx")).await;
    assert!(admin.contains("href=\"/admin/c/dx/delete\""), "{admin}");
    let (status, confirm) = page(&app.client, app.url("/admin/c/dx/delete")).await;
    assert_eq!(status, 200);
    let (images, captions) = demo_counts();
    assert!(
        confirm.contains(&format!(
            "1 split versions (val v1), with {images} images and {captions} reference captions"
        )),
        "{confirm}"
    );
    assert!(
        confirm.contains("2 submissions with their scores: 2 from teams"),
        "{confirm}"
    );
    assert!(
        confirm.contains("1 teams (1 memberships, 1 API tokens)"),
        "{confirm}"
    );
    assert!(confirm.contains("1 jobs waiting or running"), "{confirm}");

    // The slug must be typed; the token must be there.
    let r = post(&app, "/admin/c/dx/delete", &[("confirm", "dy")], true).await;
    assert_eq!(r.status(), 400);
    let body = r.text().await.expect("body");
    assert!(body.contains("id=\"delete-error\""), "{body}");
    assert!(body.contains("slug, dx, to delete it"), "{body}");
    let r = post(&app, "/admin/c/dx/delete", &[("confirm", "dx")], false).await;
    assert_eq!(r.status(), 403);
    assert_eq!(count(&app, "SELECT COUNT(*) FROM challenges").await, 1);

    let r = post(&app, "/admin/c/dx/delete", &[("confirm", "dx")], true).await;
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/admin");
    let (_, index) = page(&app.client, app.url("/admin")).await;
    assert!(
        index.contains("challenge Test challenge dx (dx) deleted"),
        "{index}"
    );
    assert!(!index.contains("href=\"/admin/c/dx\""), "{index}");
    let (status, _) = page(&client(), app.url("/c/dx")).await;
    assert_eq!(status, 404);
    assert_eq!(board(&app).await, None);
    for table in [
        "challenges",
        "splits",
        "teams",
        "submissions",
        "jobs",
        "api_tokens",
        "reference_images",
    ] {
        assert_eq!(
            count(&app, &format!("SELECT COUNT(*) FROM {table}")).await,
            0,
            "{table}"
        );
    }
    // The member's account stays.
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM users WHERE email = 'owl@example.org'"
        )
        .await,
        1
    );
}

#[tokio::test]
async fn only_organizers_delete() {
    let (app, _, _) = setup().await;
    let member = app.member("dx", "Owls", "owl@example.org").await;
    for path in [
        "/admin/c/dx/delete",
        "/admin/c/dx/splits/val/versions/1/delete",
    ] {
        let (status, _) = page(&member, app.url(path)).await;
        assert_eq!(status, 403, "GET {path}");
        let csrf = app.csrf_of(&member, "/c/dx").await;
        let r = member
            .post(app.url(path))
            .form(&[("csrf", csrf.as_str()), ("confirm", "dx")])
            .send()
            .await
            .expect("POST");
        assert_eq!(r.status(), 403, "POST {path}");
    }
    assert_eq!(count(&app, "SELECT COUNT(*) FROM splits").await, 1);
}
