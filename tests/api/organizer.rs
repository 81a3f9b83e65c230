//! The organizer area over HTTP: every action of issue 5 item 2 through its form.

use crate::helpers::{demo_references, demo_results, fake_aggregates, spawn_app_with, TestApp};

async fn post_form(app: &TestApp, path: &str, fields: &[(&str, &str)]) -> reqwest::Response {
    app.post_admin_form(path, fields).await
}

/// The organizer's view of the page at `path`.
async fn organizer_view(app: &TestApp, path: &str) -> String {
    app.client
        .get(app.url(path))
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("body")
}

/// The page a form's redirect leads to, with its one-time notice.
async fn notice_page(app: &TestApp, r: &reqwest::Response) -> String {
    organizer_view(app, &message(r)).await
}

fn message(r: &reqwest::Response) -> String {
    r.headers()
        .get("location")
        .and_then(|l| l.to_str().ok())
        .unwrap_or("")
        .to_string()
}

#[tokio::test]
async fn an_organizer_runs_a_challenge_from_the_browser() {
    // Over plain http to a host name other than localhost, with the default settings: cookies
    // without `Secure`, or the cookie jar would drop them and every form fail its CSRF check.
    let app = spawn_app_with(0, |_| {}).await.addressed_by_host_name();
    app.log_in_as_organizer().await;

    let r = post_form(
        &app,
        "/admin/challenges",
        &[
            ("slug", "web"),
            ("title", "Web challenge"),
            ("description", "d"),
        ],
    )
    .await;
    assert_eq!(r.status(), 303);
    assert_eq!(message(&r), "/admin/c/web");

    let csrf = app.csrf("/admin").await;
    let form = reqwest::multipart::Form::new()
        .text("csrf", csrf.clone())
        .text("split", "test")
        .text("hidden", "on")
        .part(
            "file",
            reqwest::multipart::Part::bytes(demo_references()).file_name("captions.json"),
        );
    let r = app
        .client
        .post(app.url("/admin/c/web/references"))
        .multipart(form)
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 303);
    let page = notice_page(&app, &r).await;
    assert!(
        page.contains("imported split test version 1 (hidden): 20 images, 60 captions"),
        "{}",
        page.lines()
            .filter(|l| l.contains("message"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The notice is shown once, and only what a form of this site did: words put in the page's
    // address by a link of anyone's making are not shown.
    assert!(!organizer_view(&app, "/admin/c/web")
        .await
        .contains("imported split test"));
    assert!(!organizer_view(&app, "/admin/c/web?msg=Forged%20notice")
        .await
        .contains("Forged notice"));

    let r = post_form(
        &app,
        "/admin/c/web/limits",
        &[("daily", "2"), ("total", ""), ("max_bytes", "500000")],
    )
    .await;
    assert_eq!(r.status(), 303);
    let limits: (Option<i32>, Option<i32>, i64) =
        sqlx::query_as("SELECT daily_submission_limit, total_submission_limit, max_file_bytes FROM challenges WHERE slug = 'web'")
            .fetch_one(&app.pool)
            .await
            .expect("limits");
    assert_eq!(limits, (Some(2), None, 500000));

    let r = post_form(
        &app,
        "/admin/c/web/splits/test/visibility",
        &[("hidden", "false")],
    )
    .await;
    assert_eq!(r.status(), 303);
    let hidden: bool =
        sqlx::query_scalar("SELECT hidden FROM splits WHERE name = 'test' AND is_current")
            .fetch_one(&app.pool)
            .await
            .expect("hidden");
    assert!(!hidden, "revealed");

    // Baselines have a section of their own, with the split chosen there (not a form in each
    // split's row of the table).
    let page = organizer_view(&app, "/admin/c/web").await;
    let table = &page[page.find("<table class=\"splits\">").expect("the splits")..];
    let table = &table[..table.find("</table>").expect("its end")];
    assert!(!table.contains("baseline"), "{table}");
    assert!(
        page.contains("action=\"/admin/c/web/baselines\"")
            && page.contains("<option value=\"test\">test</option>"),
        "{page}"
    );
    let form = reqwest::multipart::Form::new()
        .text("csrf", csrf.clone())
        .text("split", "test")
        .text("label", "Vague baseline")
        .part(
            "file",
            reqwest::multipart::Part::bytes(demo_results(false)).file_name("r.json"),
        );
    let r = app
        .client
        .post(app.url("/admin/c/web/baselines"))
        .multipart(form)
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 303);
    let baseline: i64 = sqlx::query_scalar(
        "SELECT id FROM submissions WHERE kind = 'baseline' AND label = 'Vague baseline'",
    )
    .fetch_one(&app.pool)
    .await
    .expect("baseline");

    let r = post_form(&app, "/admin/c/web/splits/test/human", &[]).await;
    assert_eq!(r.status(), 303);
    let human: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM submissions WHERE kind = 'human'")
        .fetch_one(&app.pool)
        .await
        .expect("human");
    assert_eq!(human, 1);

    fake_aggregates(&app.pool, baseline, [Some(0.12); 7]).await;
    let r = post_form(&app, "/admin/c/web/splits/test/rescore", &[]).await;
    assert_eq!(r.status(), 303);
    let queued: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM jobs WHERE state = 'queued'")
        .fetch_one(&app.pool)
        .await
        .expect("jobs");
    assert_eq!(
        queued, 3,
        "the baseline's re-score, plus the baseline's and the Human row's first jobs"
    );

    let csv = app
        .client
        .get(app.url("/admin/c/web/export.csv?split=test"))
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("body");
    assert!(
        csv.lines()
            .nth(1)
            .unwrap_or_default()
            .starts_with("1,baseline,Vague baseline,"),
        "{csv}"
    );

    let r = post_form(&app, &format!("/admin/submissions/{baseline}/delete"), &[]).await;
    assert_eq!(r.status(), 303);
    let csv = app
        .client
        .get(app.url("/admin/c/web/export.csv?split=test"))
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("body");
    assert_eq!(
        csv.lines().count(),
        1,
        "a deleted submission leaves the leaderboard: {csv}"
    );
}

/// Imports `file` into split `test` of challenge `slug` from the organizer's form.
async fn import_form(
    app: &TestApp,
    slug: &str,
    file: Vec<u8>,
    fields: &[(&str, &str)],
) -> reqwest::Response {
    let mut form = reqwest::multipart::Form::new()
        .text("csrf", app.csrf("/admin").await)
        .text("split", "test")
        .part(
            "file",
            reqwest::multipart::Part::bytes(file).file_name("captions.json"),
        );
    for (name, value) in fields {
        form = form.text(name.to_string(), value.to_string());
    }
    app.client
        .post(app.url(&format!("/admin/c/{slug}/references")))
        .multipart(form)
        .send()
        .await
        .expect("POST")
}

#[tokio::test]
async fn importing_a_split_again_must_be_confirmed_and_a_test_set_stays_hidden() {
    let app = spawn_app_with(1, |_| {}).await;
    app.log_in_as_organizer().await;
    let c = app.challenge_with_split("again", "test", true).await;
    let (_, token) = app.team("again", "Owls").await;
    let id = app
        .submit("again", &token, "test", demo_results(true))
        .await;
    app.assert_scored(id).await;
    let versions = || async {
        sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM splits WHERE challenge_id = $1")
            .bind(c.id)
            .fetch_one(&app.pool)
            .await
            .expect("count")
    };
    let version_of_submission = || async {
        sqlx::query_scalar::<_, i32>(
            "SELECT s.version FROM submissions u JOIN splits s ON s.id = u.split_id WHERE u.id = $1",
        )
        .bind(id)
        .fetch_one(&app.pool)
        .await
        .expect("version")
    };
    let imported = |page: &str| {
        page.lines()
            .filter(|l| l.contains("imported"))
            .collect::<Vec<_>>()
            .join("\n")
    };

    // Without the confirmation: refused, saying what it would do, and nothing is stored.
    let r = import_form(&app, "again", demo_references(), &[]).await;
    assert_eq!(r.status(), 400);
    let body = r.text().await.expect("body");
    assert!(
        body.contains("split test already has references (version 1; submissions on it: 1)")
            && body.contains("leave the leaderboard"),
        "{body}"
    );
    assert_eq!(versions().await, 1);

    // Confirmed, with the submissions re-scored against the new references (the same images).
    let fields = [("replace", "on"), ("rescore", "on")];
    let r = import_form(&app, "again", demo_references(), &fields).await;
    assert_eq!(r.status(), 303);
    let page = notice_page(&app, &r).await;
    assert!(
        page.contains(
            "version 1 is replaced; 1 of its submissions moved to the new version and are queued for re-scoring"
        ),
        "{}",
        imported(&page)
    );
    app.assert_scored(id).await;
    assert_eq!(version_of_submission().await, 2);

    // Re-scoring against references that hold other images is refused; nothing is stored.
    let mut fewer: serde_json::Value =
        serde_json::from_slice(&demo_references()).expect("demo references");
    fewer["annotations"]
        .as_array_mut()
        .expect("annotations")
        .retain(|a| a["image_id"] != 1);
    let fewer = fewer.to_string().into_bytes();
    let r = import_form(&app, "again", fewer, &fields).await;
    assert_eq!(r.status(), 400);
    let body = r.text().await.expect("body");
    assert!(
        body.contains("do not hold the images of version 2 (1 left out, 0 new)"),
        "{body}"
    );
    assert_eq!(versions().await, 2);

    // Confirmed, without re-scoring and without ticking "hidden": the submission stays with
    // version 2, and the new version is hidden as the old one was.
    let r = import_form(&app, "again", demo_references(), &[("replace", "on")]).await;
    assert_eq!(r.status(), 303);
    let page = notice_page(&app, &r).await;
    assert!(
        page.contains("imported split test version 3 (hidden)")
            && page.contains("version 2 is replaced; its submissions (1) are off the leaderboard"),
        "{}",
        imported(&page)
    );
    let split = spiceboard::actions::split(&app.pool, &c, "test")
        .await
        .expect("split");
    assert_eq!((split.version, split.hidden), (3, true));
    assert_eq!(versions().await, 3);
    assert_eq!(version_of_submission().await, 2);
}
