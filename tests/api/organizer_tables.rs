//! The organizer's tables and forms: recent submissions with team, split and SPICE; a delete that
//! asks first; title and description edited in the browser; every submission exported as CSV.

use crate::helpers::{demo_results, fake_aggregates, fresh, spawn_app_with, TestApp};

async fn text(app: &TestApp, path: &str) -> (u16, String) {
    let r = app.client.get(app.url(path)).send().await.expect("GET");
    let status = r.status().as_u16();
    (status, r.text().await.expect("body"))
}

async fn post(
    app: &TestApp,
    from: &str,
    action: &str,
    fields: &[(&str, &str)],
) -> reqwest::Response {
    let csrf = app.csrf(from).await;
    let mut form: Vec<(&str, &str)> = fields.to_vec();
    form.push(("csrf", csrf.as_str()));
    app.client
        .post(app.url(action))
        .form(&form)
        .send()
        .await
        .expect("POST")
}

/// Two scored Owls submissions and one Bats submission on `ot`/`val`; returns their ids.
async fn challenge_with_submissions(app: &TestApp) -> [i64; 3] {
    app.challenge_with_split("ot", "val", false).await;
    let (_, owls) = app.team("ot", "Owls").await;
    let (_, bats) = app.team("ot", "Bats").await;
    let a = app
        .submit("ot", &owls, "val", fresh(demo_results(true)))
        .await;
    fake_aggregates(&app.pool, a, [Some(0.25); 7]).await;
    let b = app
        .submit("ot", &owls, "val", fresh(demo_results(true)))
        .await;
    fake_aggregates(&app.pool, b, [Some(0.125); 7]).await;
    let c = app
        .submit("ot", &bats, "val", fresh(demo_results(true)))
        .await;
    [a, b, c]
}

#[tokio::test]
async fn recent_submissions_name_team_split_and_score_and_a_delete_asks_first() {
    let app = spawn_app_with(0, |_| {}).await;
    let [a, _, c] = challenge_with_submissions(&app).await;
    app.log_in_as_organizer().await;
    let (_, page) = text(&app, "/admin/c/ot").await;
    assert!(!page.contains("Split id"), "{page}");
    let row = |id: i64| {
        let start = page
            .find(&format!("<a href=\"/s/{id}\">{id}</a>"))
            .unwrap_or_else(|| panic!("{id}: {page}"));
        page[start..start + page[start..].find("</tr>").unwrap_or(0)].to_string()
    };
    let first = row(a);
    assert!(first.contains("<td>val</td><td>Owls</td>"), "{first}");
    assert!(first.contains("<td class=\"num\">0.250</td>"), "{first}");
    assert!(first.contains(" UTC</td>"), "{first}");
    assert!(
        row(c).contains("<td>Bats</td>") && row(c).contains("–"),
        "{}",
        row(c)
    );

    // Delete is a link to a page that asks; only its button deletes.
    assert!(
        first.contains(&format!("href=\"/admin/submissions/{a}/delete\"")),
        "{first}"
    );
    let (status, confirm) = text(&app, &format!("/admin/submissions/{a}/delete")).await;
    assert_eq!(status, 200);
    assert!(
        confirm.contains(&format!("Delete submission {a}?")),
        "{confirm}"
    );
    assert!(
        confirm.contains("<strong>Owls</strong>, split val"),
        "{confirm}"
    );
    let deleted: Option<chrono::DateTime<chrono::Utc>> =
        sqlx::query_scalar("SELECT deleted_at FROM submissions WHERE id = $1")
            .bind(a)
            .fetch_one(&app.pool)
            .await
            .expect("read");
    assert!(deleted.is_none(), "looking at the question deletes nothing");
    let r = post(
        &app,
        &format!("/admin/submissions/{a}/delete"),
        &format!("/admin/submissions/{a}/delete"),
        &[],
    )
    .await;
    assert_eq!(r.status(), 303);
    let (_, page) = text(&app, "/admin/c/ot").await;
    assert!(page.contains("scored (deleted)"), "{page}");
    // Nobody but an organizer sees the question.
    let member = crate::helpers::client();
    let r = member
        .get(app.url(&format!("/admin/submissions/{a}/delete")))
        .send()
        .await
        .expect("GET");
    assert_eq!(r.status(), 401);
}

#[tokio::test]
async fn the_organizer_edits_title_and_description_in_the_browser() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("ot", "val", false).await;
    app.log_in_as_organizer().await;
    let r = post(
        &app,
        "/admin/c/ot",
        "/admin/c/ot/details",
        &[
            ("title", "Night captions 2026"),
            ("description", "Owls & bats, after dark."),
        ],
    )
    .await;
    assert_eq!(r.status(), 303);
    let (_, public) = text(&app, "/c/ot").await;
    assert!(public.contains("<h1>Night captions 2026</h1>"), "{public}");
    assert!(public.contains("Owls &#38; bats, after dark."), "{public}");
    let (_, admin) = text(&app, "/admin/c/ot").await;
    assert!(admin.contains("value=\"Night captions 2026\""), "{admin}");
    // An empty title is refused, with the form as typed.
    let r = post(
        &app,
        "/admin/c/ot",
        "/admin/c/ot/details",
        &[("title", "  "), ("description", "kept")],
    )
    .await;
    assert_eq!(r.status(), 400);
    let html = r.text().await.expect("body");
    assert!(
        html.contains("id=\"details-error\"") && html.contains(">kept</textarea>"),
        "{html}"
    );
    // The description is checked as at creation: control characters and more than 10,000
    // characters are refused.
    for bad in ["bell \u{7}".to_string(), "x".repeat(10_001)] {
        let r = post(
            &app,
            "/admin/c/ot",
            "/admin/c/ot/details",
            &[("title", "Still night"), ("description", bad.as_str())],
        )
        .await;
        assert_eq!(r.status(), 400, "{}", &bad[..bad.len().min(20)]);
        let html = r.text().await.expect("body");
        assert!(html.contains("id=\"details-error\""), "{html}");
    }
    let c = spiceboard::actions::challenge(&app.pool, "ot")
        .await
        .expect("challenge");
    assert_eq!(c.title, "Night captions 2026");
    assert_eq!(c.description, "Owls & bats, after dark.");
}

#[tokio::test]
async fn every_submission_exports_as_csv_with_team_description_and_scores() {
    let app = spawn_app_with(0, |_| {}).await;
    let [a, b, c] = challenge_with_submissions(&app).await;
    sqlx::query("UPDATE submissions SET description = '=cmd|beam 5' WHERE id = $1")
        .bind(b)
        .execute(&app.pool)
        .await
        .expect("description");
    // Organizers only.
    let r = reqwest::get(app.url("/admin/c/ot/submissions.csv"))
        .await
        .expect("GET");
    assert_eq!(r.status(), 401);
    app.log_in_as_organizer().await;
    let (_, admin) = text(&app, "/admin/c/ot").await;
    assert!(
        admin.contains("href=\"/admin/c/ot/submissions.csv\""),
        "{admin}"
    );
    let r = app
        .client
        .get(app.url("/admin/c/ot/submissions.csv"))
        .send()
        .await
        .expect("GET");
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap_or("")
        .starts_with("text/csv"));
    let body = r.text().await.expect("body");
    let mut reader = csv::Reader::from_reader(body.as_bytes());
    let headers = reader.headers().expect("headers").clone();
    assert_eq!(&headers[0], "submission_id");
    assert_eq!(
        headers.iter().collect::<Vec<_>>(),
        spiceboard::actions::SUBMISSIONS_CSV_COLUMNS.to_vec()
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
    assert_eq!(rows.len(), 3, "every submission, not one per team: {body}");
    let field = |row: &csv::StringRecord, name: &str| {
        row[headers.iter().position(|h| h == name).expect("column")].to_string()
    };
    let by_id = |id: i64| {
        rows.iter()
            .find(|r| field(r, "submission_id") == id.to_string())
            .expect("row")
            .clone()
    };
    let best = by_id(a);
    assert_eq!(field(&best, "name"), "Owls");
    assert_eq!(field(&best, "split"), "val");
    assert_eq!(field(&best, "description"), "test run");
    assert_eq!(field(&best, "spice"), "0.250000");
    assert_eq!(field(&best, "on_leaderboard"), "true");
    let worse = by_id(b);
    assert_eq!(
        field(&worse, "description"),
        "'=cmd|beam 5",
        "no formula reaches a spreadsheet"
    );
    assert_eq!(field(&worse, "on_leaderboard"), "false");
    let queued = by_id(c);
    assert_eq!(field(&queued, "name"), "Bats");
    assert_eq!(field(&queued, "status"), "queued");
    assert_eq!(field(&queued, "spice"), "");
}
