//! A challenge's phase: the organizer sets when uploads open and close in the browser; the
//! challenge and submit pages show it with its time zone and the time left; an upload outside it
//! is refused on the page and in the API with the time.

use chrono::{Duration, Utc};

use crate::helpers::{demo_results, spawn_app, TestApp};

async fn text(browser: &reqwest::Client, url: &str) -> (u16, String) {
    let r = browser.get(url).send().await.expect("GET");
    let status = r.status().as_u16();
    (status, r.text().await.expect("body"))
}

/// The organizer (the app's client) posts the phase form; returns the status.
async fn set_phase(app: &TestApp, opens: &str, closes: &str) -> u16 {
    let csrf = app.csrf("/admin/c/ph").await;
    let r = app
        .client
        .post(app.url("/admin/c/ph/phase"))
        .form(&[
            ("opens_at", opens),
            ("closes_at", closes),
            ("csrf", csrf.as_str()),
        ])
        .send()
        .await
        .expect("POST phase");
    r.status().as_u16()
}

/// The error of an API upload to `split` that the phase refuses (403).
async fn refused_upload(app: &TestApp, token: &str, split: &str) -> String {
    let r = app
        .api_upload("ph", token, Some(split), demo_results(true))
        .await;
    assert_eq!(r.status(), 403);
    let body: serde_json::Value = r.json().await.expect("JSON");
    body["error"].as_str().unwrap_or_default().to_string()
}

/// A time as the browser's `datetime-local` input sends it (UTC here), and as pages show it.
fn input(t: chrono::DateTime<Utc>) -> (String, String) {
    (
        t.format("%Y-%m-%dT%H:%M").to_string(),
        t.format("%Y-%m-%d %H:%M UTC").to_string(),
    )
}

#[tokio::test]
async fn uploads_before_the_open_and_after_the_close_are_refused_with_the_time() {
    let app = spawn_app().await;
    app.challenge_with_split("ph", "val", false).await;
    let (_, token) = app.team("ph", "Owls").await;
    let owl = app.member("ph", "Owls", "owl@example.org").await;
    app.log_in_as_organizer().await;

    // Not open yet: in two days.
    let (opens, opens_shown) = input(Utc::now() + Duration::days(2));
    assert_eq!(set_phase(&app, &opens, "").await, 303);
    let (_, admin) = text(&app.client, &app.url("/admin/c/ph")).await;
    assert!(admin.contains(&format!("value=\"{opens}\"")), "{admin}");
    for path in ["/c/ph", "/c/ph/submit"] {
        let (_, html) = text(&owl, &app.url(path)).await;
        assert!(
            html.contains(&format!(
                "Submissions open at {opens_shown} (in 1 day 23 hours"
            )),
            "{path}: {html}"
        );
    }
    let (_, html) = text(&owl, &app.url("/c/ph/submit")).await;
    assert!(
        !html.contains("id=\"upload-form\""),
        "no form before the open: {html}"
    );
    // The countdown script counts to the open (and reloads the page then).
    let until = format!("{opens}:00+00:00");
    assert!(
        html.contains(&format!("id=\"phase\" data-until=\"{until}\"")),
        "{html}"
    );
    assert!(
        html.contains("<script src=\"/static/countdown.js\" defer></script>"),
        "{html}"
    );
    let r = owl
        .get(app.url("/static/countdown.js"))
        .send()
        .await
        .expect("GET");
    assert_eq!(r.status(), 200);
    assert!(r.text().await.expect("body").contains("location.reload()"));
    let error = refused_upload(&app, &token, "val").await;
    assert!(
        error.contains(&format!(
            "submissions are not open yet: they open at {opens_shown}"
        )),
        "{error}"
    );
    let r = app.form_upload(&owl, "ph", "val", demo_results(true)).await;
    assert_eq!(r.status(), 400);
    let html = r.text().await.expect("body");
    assert!(
        html.contains(&format!("they open at {opens_shown}")),
        "{html}"
    );

    // Open, closing in three hours: the upload goes through and the pages count down.
    let (from, _) = input(Utc::now() - Duration::hours(1));
    let (closes, closes_shown) = input(Utc::now() + Duration::hours(3) + Duration::minutes(1));
    assert_eq!(set_phase(&app, &from, &closes).await, 303);
    let (_, html) = text(&owl, &app.url("/c/ph/submit")).await;
    assert!(html.contains("id=\"upload-form\""), "{html}");
    assert!(
        html.contains(&format!(
            "Submissions are open until {closes_shown} (3 hours "
        )),
        "{html}"
    );
    app.submit("ph", &token, "val", demo_results(true)).await;

    // Closed an hour ago.
    let (closed, closed_shown) = input(Utc::now() - Duration::hours(1));
    assert_eq!(set_phase(&app, "", &closed).await, 303);
    let error = refused_upload(&app, &token, "val").await;
    assert_eq!(
        error,
        format!("submissions closed at {closed_shown}"),
        "{error}"
    );
    let (_, html) = text(&owl, &app.url("/c/ph")).await;
    assert!(
        html.contains(&format!("Submissions closed at {closed_shown}.")),
        "{html}"
    );
    // Only the one upload inside the phase was stored.
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM submissions WHERE team_id IS NOT NULL")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(n, 1);

    // No bounds: open, and the pages say nothing about a phase.
    assert_eq!(set_phase(&app, "", "").await, 303);
    let (_, html) = text(&owl, &app.url("/c/ph")).await;
    assert!(!html.contains("id=\"phase\""), "{html}");
    assert!(!html.contains("countdown.js"), "{html}");
}

#[tokio::test]
async fn a_phase_that_closes_before_it_opens_or_an_unreadable_time_is_refused() {
    let app = spawn_app().await;
    app.challenge_with_split("ph", "val", false).await;
    app.log_in_as_organizer().await;
    assert_eq!(
        set_phase(&app, "2026-12-02T10:00", "2026-12-01T10:00").await,
        400
    );
    assert_eq!(set_phase(&app, "next week", "").await, 400);
    let c = spiceboard::actions::challenge(&app.pool, "ph")
        .await
        .expect("challenge");
    assert_eq!((c.opens_at, c.closes_at), (None, None));
}

/// The organizer (the app's client) posts the split-window form; returns the response.
async fn set_split_phase(app: &TestApp, fields: &[(&str, &str)]) -> reqwest::Response {
    let csrf = app.csrf("/admin/c/ph").await;
    let mut form = fields.to_vec();
    form.push(("csrf", csrf.as_str()));
    app.client
        .post(app.url("/admin/c/ph/split-phase"))
        .form(&form)
        .send()
        .await
        .expect("POST split-phase")
}

/// The text of the challenge page's row of `split`.
fn split_row(html: &str, split: &str) -> String {
    let start = html
        .find(&format!("id=\"split-{split}\""))
        .unwrap_or_else(|| panic!("no row for {split}: {html}"));
    html[start..][..html[start..].find("</tr>").expect("row end")].to_string()
}

#[tokio::test]
async fn a_split_with_a_window_of_its_own_takes_uploads_in_it_and_not_in_the_challenges() {
    let app = spawn_app().await;
    let c = app.challenge_with_split("ph", "val", false).await;
    spiceboard::actions::import_references(
        &app.pool,
        &app.engine,
        &c,
        &spiceboard::domain::SplitName::parse("test").expect("name"),
        crate::helpers::demo_references(),
        spiceboard::actions::ImportMode {
            hidden: true,
            replace: false,
            rescore_with_attempts: None,
        },
    )
    .await
    .expect("test split");
    let (_, token) = app.team("ph", "Owls").await;
    let owl = app.member("ph", "Owls", "owl@example.org").await;
    app.log_in_as_organizer().await;
    let status = |r: reqwest::Response| r.status().as_u16();

    // The challenge closed an hour ago; `val` stays open throughout (a window with no bounds).
    let (closed, closed_shown) = input(Utc::now() - Duration::hours(1));
    assert_eq!(set_phase(&app, "", &closed).await, 303);
    assert_eq!(
        status(set_split_phase(&app, &[("split", "val")]).await),
        303
    );
    app.submit("ph", &token, "val", demo_results(true)).await;
    let error = refused_upload(&app, &token, "test").await;
    assert_eq!(
        error,
        format!("submissions closed at {closed_shown}"),
        "test follows the challenge: {error}"
    );
    let (_, html) = text(&owl, &app.url("/c/ph")).await;
    assert!(
        html.contains("Some splits have upload windows of their own."),
        "{html}"
    );
    assert!(
        split_row(&html, "val").contains("<td>Submissions are open, with no deadline.</td>"),
        "{html}"
    );
    assert!(
        split_row(&html, "test").contains(&format!("Submissions closed at {closed_shown}.")),
        "{html}"
    );
    // The form is offered, for the open split only.
    let (_, html) = text(&owl, &app.url("/c/ph/submit")).await;
    assert!(html.contains("id=\"upload-form\""), "{html}");
    assert!(html.contains("<option value=\"val\""), "{html}");
    assert!(!html.contains("<option value=\"test\""), "{html}");
    assert!(
        html.contains(&format!(
            "Split test takes no uploads now: submissions closed at {closed_shown}."
        )),
        "{html}"
    );
    let (_, admin) = text(&app.client, &app.url("/admin/c/ph")).await;
    assert!(
        admin.contains("<li>val: Submissions are open, with no deadline.</li>"),
        "{admin}"
    );

    // The other way round: the challenge open, `test`'s own window closed; the refusal names it.
    assert_eq!(set_phase(&app, "", "").await, 303);
    let r = set_split_phase(&app, &[("split", "test"), ("closes_at", &closed)]).await;
    assert_eq!(status(r), 303);
    let error = refused_upload(&app, &token, "test").await;
    assert_eq!(
        error,
        format!("split test: submissions closed at {closed_shown}"),
        "{error}"
    );
    let r = app
        .form_upload(&owl, "ph", "test", demo_results(true))
        .await;
    assert_eq!(r.status(), 400);
    assert!(r
        .text()
        .await
        .expect("body")
        .contains("split test: submissions closed at"));

    // With every split's window closed, the form is not offered, though the challenge's is open.
    assert_eq!(
        status(set_split_phase(&app, &[("split", "val"), ("closes_at", &closed)]).await),
        303
    );
    let (_, html) = text(&owl, &app.url("/c/ph/submit")).await;
    assert!(!html.contains("id=\"upload-form\""), "{html}");
    assert_eq!(
        status(set_split_phase(&app, &[("split", "val")]).await),
        303
    );

    // Back to the challenge's window: `test` takes uploads again.
    let r = set_split_phase(&app, &[("split", "test"), ("follow", "on")]).await;
    assert_eq!(status(r), 303);
    app.submit("ph", &token, "test", demo_results(true)).await;

    // A window for a split that does not exist, or an unreadable one, is refused; nothing changes.
    let r = set_split_phase(&app, &[("split", "nope"), ("closes_at", &closed)]).await;
    assert_eq!(status(r), 404);
    let r = set_split_phase(&app, &[("split", "val"), ("opens_at", "next week")]).await;
    assert_eq!(r.status(), 400);
    let html = r.text().await.expect("body");
    assert!(
        html.contains("id=\"split-phase-error\">split val: opens: ")
            && html.contains("next week&#34; is not a time"),
        "{html}"
    );
    let own: Vec<String> =
        sqlx::query_scalar("SELECT split_name FROM split_phases ORDER BY split_name")
            .fetch_all(&app.pool)
            .await
            .expect("rows");
    assert_eq!(own, ["val"]);
}
