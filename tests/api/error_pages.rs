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

#[tokio::test]
async fn a_413_names_the_limit_in_megabytes_and_leads_back_to_the_form() {
    let app = spawn_app().await;
    app.challenge_with_split("big", "val", false).await;
    sqlx::query("UPDATE challenges SET max_file_bytes = 2 * 1024 * 1024 WHERE slug = 'big'")
        .execute(&app.pool)
        .await
        .expect("limit");
    app.team("big", "Owls").await;
    let owl = app.member("big", "Owls", "owl@example.org").await;
    // Well over the limit and its allowance for the form's other fields: the body is cut off.
    let r = app
        .form_upload(&owl, "big", "val", vec![b' '; 3 * 1024 * 1024])
        .await;
    assert_eq!(r.status(), 413);
    let html = r.text().await.expect("body");
    assert!(
        html.contains("this challenge accepts files of at most 2.0 MB"),
        "{html}"
    );
    assert!(
        html.contains("<a href=\"/c/big/submit\" id=\"way-back\">Back to the upload form</a>"),
        "{html}"
    );
    assert!(logged_in_as(&html, "owl@example.org"), "{html}");
}

#[tokio::test]
async fn a_replaced_invite_link_says_it_was_replaced() {
    let app = spawn_app().await;
    app.challenge_with_split("inv", "val", false).await;
    app.team("inv", "Owls").await;
    let owl = app.member("inv", "Owls", "owl@example.org").await;
    let link = |html: &str| -> String {
        let start = html.find("/c/inv/join/").expect("invite link");
        html[start..start + "/c/inv/join/".len() + 64].to_string()
    };
    let (_, page) = text(&owl, &app.url("/c/inv")).await;
    let old = link(&page);
    let (status, _) = text(&owl, &app.url(&old)).await;
    assert_eq!(status, 200);

    let (status, _) = post(&app, &owl, "/c/inv", "/c/inv/team/invite", &[]).await;
    assert_eq!(status, 303);
    let (_, page) = text(&owl, &app.url("/c/inv")).await;
    let new = link(&page);
    assert_ne!(old, new);
    let stranger = crate::helpers::client();
    let (status, html) = text(&stranger, &app.url(&old)).await;
    assert_eq!(status, 410);
    assert!(
        html.contains(
            "this invite link to team &#34;Owls&#34; was replaced by a new one (a member renewed \
             it, or someone left the team); ask a member of the team for the new link"
        ) || html.contains("this invite link to team &quot;Owls&quot; was replaced"),
        "{html}"
    );
    let (status, _) = text(&stranger, &app.url(&new)).await;
    assert_eq!(status, 200);
    // A code that never was says so, not "not found".
    let (status, html) = text(
        &stranger,
        &app.url(&format!("/c/inv/join/{}", "a".repeat(64))),
    )
    .await;
    assert_eq!(status, 404);
    assert!(html.contains("this invite link is not valid"), "{html}");
}

#[tokio::test]
async fn leaving_a_team_asks_first_and_says_what_goes_with_it() {
    let app = spawn_app().await;
    app.challenge_with_split("lv", "val", false).await;
    app.team("lv", "Owls").await;
    let owl = app.member("lv", "Owls", "owl@example.org").await;
    let (_, page) = text(&owl, &app.url("/c/lv")).await;
    assert!(
        page.contains("<a href=\"/c/lv/team/leave\" id=\"leave-team\">"),
        "the challenge page links to the confirmation, it does not leave: {page}"
    );
    let (status, html) = text(&owl, &app.url("/c/lv/team/leave")).await;
    assert_eq!(status, 200);
    assert!(html.contains("Leave team Owls?"), "{html}");
    assert!(
        html.contains("every API token of the team stops working"),
        "{html}"
    );
    assert!(
        html.contains("the team&#39;s invite link is replaced")
            || html.contains("the team's invite link is replaced"),
        "{html}"
    );
    assert!(html.contains("id=\"stay\""), "{html}");
    // Looking at the question changes nothing; the button leaves.
    let (_, page) = text(&owl, &app.url("/c/lv")).await;
    assert!(
        page.contains("You are in team <strong>Owls</strong>"),
        "{page}"
    );
    let (status, _) = post(&app, &owl, "/c/lv/team/leave", "/c/lv/team/leave", &[]).await;
    assert_eq!(status, 303);
    let (_, page) = text(&owl, &app.url("/c/lv")).await;
    assert!(!page.contains("You are in team"), "{page}");
    // Someone in no team is told so.
    let (status, html) = text(&owl, &app.url("/c/lv/team/leave")).await;
    assert_eq!(status, 400);
    assert!(
        html.contains("you are in no team of this challenge"),
        "{html}"
    );
}
