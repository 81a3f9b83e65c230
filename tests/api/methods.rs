//! A submission's method (issue 34, item 4, as EvalAI shows it): a name and links to the paper
//! and the code, given at upload (form or API) or later by the team, checked (bounded lengths,
//! http(s) links only), shown escaped with `rel="nofollow noopener"` on the leaderboard and the
//! submission's page, and carried by the CSV and JSON exports. Only the team changes it.

use crate::helpers::{client, demo_results, escaped, fake_aggregates, spawn_app_with, TestApp};

/// Uploads through the API with the method fields `method` (name, value) beside the file.
async fn upload_with(
    app: &TestApp,
    token: &str,
    file: Vec<u8>,
    method: &[(&str, &str)],
) -> reqwest::Response {
    let mut form = reqwest::multipart::Form::new().text("split", "val");
    for (name, value) in method {
        form = form.text(name.to_string(), value.to_string());
    }
    let form = form.part(
        "file",
        reqwest::multipart::Part::bytes(file).file_name("results.json"),
    );
    client()
        .post(app.url("/api/c/m/submissions"))
        .bearer_auth(token)
        .multipart(form)
        .send()
        .await
        .expect("upload")
}

/// `POST /api/submissions/{id}/method` with `body`, as the holder of `token` (if any).
async fn api_method(
    app: &TestApp,
    id: i64,
    token: Option<&str>,
    body: &str,
) -> (u16, serde_json::Value) {
    let mut r = client()
        .post(app.url(&format!("/api/submissions/{id}/method")))
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(t) = token {
        r = r.bearer_auth(t);
    }
    let r = r.send().await.expect("POST");
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(serde_json::Value::Null))
}

/// Posts the method form of submission `id`'s page as `browser`.
async fn form_method(
    app: &TestApp,
    browser: &reqwest::Client,
    id: i64,
    fields: [&str; 3],
) -> reqwest::Response {
    let csrf = app.csrf_of(browser, "/c/m").await;
    browser
        .post(app.url(&format!("/s/{id}/method")))
        .form(&[
            ("csrf", csrf.as_str()),
            ("method_name", fields[0]),
            ("paper_url", fields[1]),
            ("code_url", fields[2]),
        ])
        .send()
        .await
        .expect("POST")
}

/// The stored method of submission `id`.
async fn stored(app: &TestApp, id: i64) -> (Option<String>, Option<String>, Option<String>) {
    sqlx::query_as("SELECT method_name, paper_url, code_url FROM submissions WHERE id = $1")
        .bind(id)
        .fetch_one(&app.pool)
        .await
        .expect("method")
}

async fn text(browser: &reqwest::Client, url: String) -> (u16, String) {
    let r = browser.get(url).send().await.expect("GET");
    (r.status().as_u16(), r.text().await.expect("body"))
}

const NAME: &str = "Up-Down <b>&</b> \"CIDEr\" tuning";
const PAPER: &str = "https://arXiv.org/abs/1707.07998";
const CODE: &str = "https://github.com/peteanderson80/bottom-up-attention?a=\"x\"&b=<y>";

#[tokio::test]
async fn a_method_given_at_upload_shows_escaped_on_the_leaderboard_the_page_and_the_exports() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("m", "val", false).await;
    let (_, owls) = app.team("m", "Owls").await;
    let (_, foxes) = app.team("m", "Foxes").await;
    let owl = app.member("m", "Owls", "owl@example.org").await;

    let r = upload_with(
        &app,
        &owls,
        demo_results(true),
        &[
            ("method_name", NAME),
            ("paper_url", PAPER),
            ("code_url", CODE),
        ],
    )
    .await;
    assert_eq!(r.status(), 202);
    let id = r.json::<serde_json::Value>().await.expect("JSON")["id"]
        .as_i64()
        .expect("id");
    let paper = "https://arxiv.org/abs/1707.07998";
    let code = "https://github.com/peteanderson80/bottom-up-attention?a=%22x%22&b=%3Cy%3E";
    assert_eq!(
        stored(&app, id).await,
        (Some(NAME.into()), Some(paper.into()), Some(code.into())),
        "the links as browsers read them: host lowercased, quotes and brackets encoded"
    );
    // Through the browser's form, a team gives a method too.
    let r = submit_form(
        &app,
        &owl,
        &[
            ("method_name", " Beam  search "),
            ("paper_url", ""),
            ("code_url", "http://Example.org/code"),
        ],
        demo_results(false),
    )
    .await;
    assert_eq!(r.status(), 303);
    let by_form: i64 = r.headers()["location"].to_str().expect("location")["/s/".len()..]
        .parse()
        .expect("id");
    assert_eq!(
        stored(&app, by_form).await,
        (
            Some("Beam search".into()),
            None,
            Some("http://example.org/code".into())
        )
    );
    let other = app.submit("m", &foxes, "val", demo_results(false)).await;
    fake_aggregates(&app.pool, id, [Some(0.3); 7]).await;
    fake_aggregates(&app.pool, other, [Some(0.2); 7]).await;

    // The leaderboard, to a visitor: the method under the team's name, its links unfollowed.
    let (status, html) = text(&client(), app.url("/c/m/leaderboard")).await;
    assert_eq!(status, 200);
    let row = &html[html.find("Owls").expect("the row")..];
    let row = &row[..row.find("</th>").expect("the entry cell")];
    assert!(
        row.contains(&format!(
            "<span class=\"method\"><span class=\"method-name\">{}</span> <a href=\"{}\" rel=\"nofollow noopener\" class=\"paper\">paper</a> <a href=\"{}\" rel=\"nofollow noopener\" class=\"code\">code</a></span>",
            escaped(NAME),
            escaped(paper),
            escaped(code)
        )),
        "{row}"
    );
    assert!(!html.contains("<b>&</b>"), "no markup of the team's");
    let foxes_row = &html[html.find("Foxes").expect("the row")..];
    let foxes_row = &foxes_row[..foxes_row.find("</th>").expect("cell")];
    assert!(!foxes_row.contains("class=\"method\""), "{foxes_row}");

    // The JSON and both CSV exports carry it.
    let board: serde_json::Value = client()
        .get(app.url("/c/m/leaderboard.json"))
        .send()
        .await
        .expect("GET")
        .json()
        .await
        .expect("JSON");
    let first = &board["entries"][0];
    assert_eq!(first["name"], "Owls");
    assert_eq!(first["method_name"], NAME);
    assert_eq!(first["paper_url"], paper);
    assert_eq!(first["code_url"], code);
    assert!(board["entries"][1]["method_name"].is_null());
    let (_, public_csv) = text(&client(), app.url("/c/m/leaderboard.csv")).await;
    app.log_in_as_organizer().await;
    let (status, ranked_csv) = text(&app.client, app.url("/admin/c/m/export.csv?split=val")).await;
    assert_eq!(status, 200);
    for csv_text in [&public_csv, &ranked_csv] {
        let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
        let headers = reader.headers().expect("header").clone();
        let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
        let cell = |row: usize, name: &str| {
            rows[row][headers.iter().position(|h| h == name).expect(name)].to_string()
        };
        assert_eq!(cell(0, "name"), "Owls");
        assert_eq!(cell(0, "method_name"), NAME);
        assert_eq!(cell(0, "paper_url"), paper);
        assert_eq!(cell(0, "code_url"), code);
        assert_eq!(cell(1, "method_name"), "");
    }
    let (_, all_csv) = text(&app.client, app.url("/admin/c/m/submissions.csv")).await;
    assert!(all_csv.contains(code), "{all_csv}");

    // The submission's page and the API's status.
    let (_, page) = text(&owl, app.url(&format!("/s/{id}"))).await;
    assert!(
        page.contains(&format!(
            "<p id=\"method-shown\">Method: <strong id=\"method-name\">{}</strong> · <a href=\"{}\" rel=\"nofollow noopener\" id=\"paper-link\">paper</a> · <a href=\"{}\" rel=\"nofollow noopener\" id=\"code-link\">code</a></p>",
            escaped(NAME),
            escaped(paper),
            escaped(code)
        )),
        "{page}"
    );
    let status = app.api_status(id, &owls).await;
    assert_eq!(status["method_name"], NAME);
    assert_eq!(status["paper_url"], paper);
}

#[tokio::test]
async fn a_bad_method_is_refused_at_upload_naming_every_field_and_nothing_is_stored() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("m", "val", false).await;
    let (_, owls) = app.team("m", "Owls").await;
    let owl = app.member("m", "Owls", "owl@example.org").await;
    let long = "n".repeat(101);
    let r = upload_with(
        &app,
        &owls,
        demo_results(true),
        &[
            ("method_name", &long),
            ("paper_url", "javascript:alert(document.cookie)"),
            ("code_url", "https://github.com@evil.example/x"),
        ],
    )
    .await;
    assert_eq!(r.status(), 400);
    let body: serde_json::Value = r.json().await.expect("JSON");
    assert_eq!(
        body["error"],
        "method name: must be at most 100 characters; paper link: must be a web address \
         starting with http:// or https://, not javascript:; code link: must not hold a user \
         name or password (the part before @)"
    );
    // The form comes back with its error and what was typed.
    let r = submit_form(
        &app,
        &owl,
        &[
            ("description", "beam 3"),
            ("method_name", "Beam <3"),
            ("paper_url", "data:text/html,<script>alert(1)</script>"),
            ("code_url", ""),
        ],
        demo_results(true),
    )
    .await;
    assert_eq!(r.status(), 400);
    let html = r.text().await.expect("body");
    assert!(
        html.contains(
            "id=\"upload-error\">paper link: must be a web address starting with http:// or https://, not data:</p>"
        ),
        "{html}"
    );
    assert!(
        html.contains("id=\"method_name\" maxlength=\"100\" placeholder=\"e.g. Up-Down + CIDEr optimisation\" value=\"Beam &#60;3\""),
        "{html}"
    );
    assert!(!html.contains("<script>alert(1)"), "{html}");
    let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM submissions")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(count, 0, "nothing stored, no quota spent");
    // The schema keeps the bounds too, whatever code writes.
    let id = app.submit("m", &owls, "val", demo_results(true)).await;
    for (column, value) in [
        ("paper_url", "javascript:alert(1)"),
        ("code_url", "https://x.example/ y"),
        ("method_name", ""),
    ] {
        let r = sqlx::query(&format!(
            "UPDATE submissions SET {column} = $2 WHERE id = $1"
        ))
        .bind(id)
        .bind(value)
        .execute(&app.pool)
        .await;
        assert!(r.is_err(), "{column} = {value:?} was stored");
    }
}

#[tokio::test]
async fn the_team_changes_its_method_in_the_browser_and_with_its_token() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("m", "val", false).await;
    let (_, owls) = app.team("m", "Owls").await;
    let owl = app.member("m", "Owls", "owl@example.org").await;
    let id = app.submit("m", &owls, "val", demo_results(true)).await;
    let (_, page) = text(&owl, app.url(&format!("/s/{id}"))).await;
    assert!(
        page.contains(&format!(
            "<form method=\"post\" action=\"/s/{id}/method\" class=\"stack\" id=\"method-form\">"
        )),
        "{page}"
    );
    assert!(!page.contains("id=\"method-shown\""), "nothing given yet");

    let r = form_method(&app, &owl, id, ["Show, Attend and Tell", PAPER, ""]).await;
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], format!("/s/{id}#method"));
    assert_eq!(
        stored(&app, id).await,
        (
            Some("Show, Attend and Tell".into()),
            Some("https://arxiv.org/abs/1707.07998".into()),
            None
        )
    );
    // A refused change: the page again with its error and what was typed, nothing written.
    let r = form_method(&app, &owl, id, ["Renamed", "ftp://x.example/p.pdf", ""]).await;
    assert_eq!(r.status(), 400);
    let html = r.text().await.expect("body");
    assert!(
        html.contains("id=\"method-error\">paper link: must be a web address starting with http:// or https://, not ftp:</p>")
            && html.contains("<details id=\"method\" open>")
            && html.contains("value=\"Renamed\""),
        "{html}"
    );
    assert_eq!(
        stored(&app, id).await.0.as_deref(),
        Some("Show, Attend and Tell")
    );
    // Without the form's CSRF token: refused.
    let r = owl
        .post(app.url(&format!("/s/{id}/method")))
        .form(&[("csrf", "0".repeat(64).as_str()), ("method_name", "Forged")])
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 403);
    assert_eq!(
        stored(&app, id).await.0.as_deref(),
        Some("Show, Attend and Tell")
    );

    // With the token: a field left out stays, null or "" clears it.
    let (status, body) = api_method(
        &app,
        id,
        Some(&owls),
        r#"{"code_url": "https://github.com/a/b"}"#,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["method_name"], "Show, Attend and Tell");
    assert_eq!(body["code_url"], "https://github.com/a/b");
    let (status, body) = api_method(
        &app,
        id,
        Some(&owls),
        r#"{"paper_url": null, "method_name": ""}"#,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        serde_json::json!({"id": id, "method_name": null, "paper_url": null,
                           "code_url": "https://github.com/a/b"})
    );
    for (bad, error) in [
        (
            r#"{"paper_link": "https://x.example/"}"#,
            "unknown field(s) paper_link; the fields are method_name, paper_url and code_url",
        ),
        (r#"{"code_url": 7}"#, "`code_url` must be a string or null"),
        (
            r#"{"code_url": "http://"}"#,
            "code link: must be a web address starting with http:// or https:// (empty host)",
        ),
    ] {
        let (status, body) = api_method(&app, id, Some(&owls), bad).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (400, Some(error)),
            "{bad}"
        );
    }
    let (status, body) = api_method(&app, id, Some(&owls), "[]").await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        stored(&app, id).await,
        (None, None, Some("https://github.com/a/b".into()))
    );
}

#[tokio::test]
async fn nobody_but_the_team_changes_its_method() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("m", "val", false).await;
    let (_, owls) = app.team("m", "Owls").await;
    let (_, foxes) = app.team("m", "Foxes").await;
    let fox = app.member("m", "Foxes", "fox@example.org").await;
    let id = app.submit("m", &owls, "val", demo_results(true)).await;
    let body = r#"{"method_name": "Stolen"}"#;

    // Another team, by token or in the browser: as if there were no such submission.
    assert_eq!(api_method(&app, id, Some(&foxes), body).await.0, 404);
    assert_eq!(
        form_method(&app, &fox, id, ["Stolen", "", ""])
            .await
            .status(),
        404
    );
    // Nobody: the API wants a token, the form a login.
    assert_eq!(api_method(&app, id, None, body).await.0, 401);
    let visitor = client();
    let csrf = app.csrf_of(&visitor, "/login").await;
    let r = visitor
        .post(app.url(&format!("/s/{id}/method")))
        .form(&[("csrf", csrf.as_str()), ("method_name", "Stolen")])
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 401);
    // A token of a team of another challenge.
    app.challenge_with_split("other", "val", false).await;
    let (_, elsewhere) = app.team("other", "Owls").await;
    assert_eq!(api_method(&app, id, Some(&elsewhere), body).await.0, 404);
    // An organizer sees the submission but does not speak for its team, and is told so.
    app.log_in_as_organizer().await;
    let (_, page) = text(&app.client, app.url(&format!("/s/{id}"))).await;
    assert!(!page.contains("id=\"method-form\""), "{page}");
    let r = form_method(&app, &app.client, id, ["Stolen", "", ""]).await;
    assert_eq!(r.status(), 403);
    assert!(r
        .text()
        .await
        .expect("body")
        .contains("only the team that uploaded a submission may change its method"));
    // A deleted submission is nobody's to change, its team's neither.
    spiceboard::storage::submissions::soft_delete(&app.pool, id)
        .await
        .expect("delete");
    assert_eq!(api_method(&app, id, Some(&owls), body).await.0, 404);
    assert_eq!(stored(&app, id).await, (None, None, None));
}

/// A hidden split's entries stay with their teams, methods included.
#[tokio::test]
async fn a_hidden_splits_methods_are_shown_to_their_own_teams_only() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("m", "val", true).await;
    let (_, owls) = app.team("m", "Owls").await;
    let (_, foxes) = app.team("m", "Foxes").await;
    let fox = app.member("m", "Foxes", "fox@example.org").await;
    let r = upload_with(
        &app,
        &owls,
        demo_results(true),
        &[
            ("method_name", "Secret sauce"),
            ("code_url", "https://git.example/owls"),
        ],
    )
    .await;
    assert_eq!(r.status(), 202);
    let id = r.json::<serde_json::Value>().await.expect("JSON")["id"]
        .as_i64()
        .expect("id");
    let theirs = app.submit("m", &foxes, "val", demo_results(false)).await;
    fake_aggregates(&app.pool, id, [Some(0.3); 7]).await;
    fake_aggregates(&app.pool, theirs, [Some(0.2); 7]).await;
    for path in [
        "/c/m/leaderboard",
        "/c/m/leaderboard.json",
        "/c/m/leaderboard.csv",
    ] {
        let (_, body) = text(&fox, app.url(path)).await;
        assert!(
            !body.contains("Secret sauce") && !body.contains("git.example"),
            "{path}: {body}"
        );
    }
    app.log_in_as_organizer().await;
    let (_, body) = text(&app.client, app.url("/c/m/leaderboard")).await;
    assert!(body.contains("Secret sauce"), "{body}");
}

/// Posts challenge `m`'s upload form for split `val` as `client`, with `fields` and `results`.
async fn submit_form(
    app: &TestApp,
    client: &reqwest::Client,
    fields: &[(&'static str, &'static str)],
    results: Vec<u8>,
) -> reqwest::Response {
    let csrf = app.csrf_of(client, "/c/m/submit").await;
    let mut form = reqwest::multipart::Form::new()
        .text("csrf", csrf)
        .text("split", "val");
    for &(name, value) in fields {
        form = form.text(name, value);
    }
    let form = form.part(
        "file",
        reqwest::multipart::Part::bytes(results).file_name("results.json"),
    );
    client
        .post(app.url("/c/m/submit"))
        .multipart(form)
        .send()
        .await
        .expect("POST")
}
