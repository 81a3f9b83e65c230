//! Error pages look like the rest of the site: the header still shows who is logged in, and a form
//! that failed comes back with its error and what was typed.

use crate::helpers::{spawn_app, TestApp};

async fn text(browser: &reqwest::Client, url: &str) -> (u16, String) {
    let r = browser.get(url).send().await.expect("GET");
    let status = r.status().as_u16();
    (status, r.text().await.expect("body"))
}

fn logged_in_as(html: &str, email: &str) -> bool {
    html.contains(&format!("<a class=\"who\" href=\"/account\">{email}</a>"))
        && !html.contains(">Log in</a>")
}

/// Posts `fields` (plus the CSRF token of `from`) to `action` as `browser`.
async fn post(
    app: &TestApp,
    browser: &reqwest::Client,
    from: &str,
    action: &str,
    fields: &[(&str, &str)],
) -> (u16, String) {
    let csrf = app.csrf_of(browser, from).await;
    let mut form: Vec<(&str, &str)> = fields.to_vec();
    form.push(("csrf", csrf.as_str()));
    let r = browser
        .post(app.url(action))
        .form(&form)
        .send()
        .await
        .expect("POST");
    let status = r.status().as_u16();
    (status, r.text().await.expect("body"))
}

#[tokio::test]
async fn error_pages_keep_the_login_state() {
    let app = spawn_app().await;
    app.challenge_with_split("ep", "val", false).await;
    app.team("ep", "Owls").await;
    let owl = app.member("ep", "Owls", "owl@example.org").await;

    let (status, html) = text(&owl, &app.url("/s/999999")).await;
    assert_eq!(status, 404);
    assert!(logged_in_as(&html, "owl@example.org"), "{html}");
    let (status, html) = text(&owl, &app.url("/c/ep/leaderboard?sort=bogus")).await;
    assert_eq!(status, 400);
    assert!(logged_in_as(&html, "owl@example.org"), "{html}");
    // A forged form: refused, still logged in.
    let r = owl
        .post(app.url("/c/ep/team/invite"))
        .form(&[("csrf", "0".repeat(64))])
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 403);
    let html = r.text().await.expect("body");
    assert!(logged_in_as(&html, "owl@example.org"), "{html}");
    // An organizer-only page seen by a member.
    let (status, html) = text(&owl, &app.url("/admin")).await;
    assert_eq!(status, 403);
    assert!(logged_in_as(&html, "owl@example.org"), "{html}");

    // Nobody logged in: the header offers to log in.
    let (status, html) = text(&crate::helpers::client(), &app.url("/s/999999")).await;
    assert_eq!(status, 404);
    assert!(html.contains(">Log in</a>"), "{html}");
}

#[tokio::test]
async fn a_failed_form_comes_back_with_its_error_and_what_was_typed() {
    let app = spawn_app().await;
    app.challenge_with_split("ep", "val", false).await;
    app.team("ep", "Owls").await;

    // A team name that is taken.
    let owl = app.member("ep", "Owls", "owl@example.org").await;
    let bat = crate::helpers::client();
    let csrf = app.csrf_of(&bat, "/signup").await;
    let r = bat
        .post(app.url("/signup"))
        .form(&[
            ("email", "bat@example.org"),
            ("password", "a long password"),
            ("csrf", &csrf),
        ])
        .send()
        .await
        .expect("signup");
    assert_eq!(r.status(), 303);
    let (status, html) = post(&app, &bat, "/c/ep", "/c/ep/team", &[("name", "Owls")]).await;
    assert_eq!(status, 400);
    assert!(html.contains("id=\"team-error\""), "{html}");
    assert!(html.contains("already exists"), "{html}");
    assert!(
        html.contains("id=\"team-name\" required maxlength=\"80\" value=\"Owls\""),
        "{html}"
    );
    assert!(logged_in_as(&html, "bat@example.org"), "{html}");

    // An upload that fails validation keeps the description and the split.
    let csrf = app.csrf_of(&owl, "/c/ep/submit").await;
    let form = reqwest::multipart::Form::new()
        .text("csrf", csrf)
        .text("split", "val")
        .text("description", "beam size 5")
        .part(
            "file",
            reqwest::multipart::Part::bytes(b"[{\"image_id\": 1}]".to_vec()).file_name("r.json"),
        );
    let r = owl
        .post(app.url("/c/ep/submit"))
        .multipart(form)
        .send()
        .await
        .expect("POST submit");
    assert_eq!(r.status(), 400);
    let html = r.text().await.expect("body");
    assert!(html.contains("id=\"upload-error\""), "{html}");
    assert!(html.contains("value=\"beam size 5\""), "{html}");
    assert!(html.contains("<option value=\"val\" selected>"), "{html}");

    // The organizer's forms.
    app.log_in_as_organizer().await;
    let (status, html) = post(
        &app,
        &app.client,
        "/admin/c/ep",
        "/admin/c/ep/limits",
        &[
            ("daily", "five"),
            ("total", "7"),
            ("max_bytes", "4096"),
            ("max_team_bytes", ""),
        ],
    )
    .await;
    assert_eq!(status, 400);
    assert!(html.contains("id=\"limits-error\""), "{html}");
    assert!(
        html.contains("daily limit must be a whole number"),
        "{html}"
    );
    assert!(html.contains("name=\"daily\" value=\"five\""), "{html}");
    assert!(html.contains("name=\"total\" value=\"7\""), "{html}");
    assert!(html.contains("name=\"max_bytes\" value=\"4096\""), "{html}");
    let c = spiceboard::actions::challenge(&app.pool, "ep")
        .await
        .expect("challenge");
    assert_ne!(
        c.total_submission_limit,
        Some(7),
        "nothing saved from a failed form"
    );

    let (status, html) = post(
        &app,
        &app.client,
        "/admin",
        "/admin/challenges",
        &[
            ("slug", "Bad Slug!"),
            ("title", "Night captions"),
            ("description", "owls only"),
        ],
    )
    .await;
    assert_eq!(status, 400);
    assert!(html.contains("id=\"challenge-error\""), "{html}");
    assert!(html.contains("value=\"Night captions\""), "{html}");
    assert!(html.contains(">owls only</textarea>"), "{html}");
}
