//! Sign-up, login, sessions, CSRF and the organizer boundary.

use crate::helpers::{client, demo_results, fake_aggregates, spawn_app_with};

#[tokio::test]
async fn sign_up_log_out_and_log_in_again() {
    let app = spawn_app_with(0, |_| {}).await;
    let r = app.sign_up("ann@example.org", "a long password").await;
    assert_eq!(r.status(), 303);
    let home = app
        .client
        .get(app.url("/"))
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("body");
    assert!(home.contains("ann@example.org"), "logged in after sign-up");

    let csrf = app.csrf("/").await;
    let r = app
        .client
        .post(app.url("/logout"))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .expect("logout");
    assert_eq!(r.status(), 303);
    let home = app
        .client
        .get(app.url("/"))
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("body");
    assert!(!home.contains("ann@example.org"));

    let r = app.log_in("ann@example.org", "wrong password").await;
    assert_eq!(r.status(), 400);
    assert!(r
        .text()
        .await
        .expect("body")
        .contains("wrong e-mail address or password"));
    let r = app.log_in("ANN@example.org", "a long password").await;
    assert_eq!(r.status(), 303);

    let again = app.sign_up("ann@example.org", "another password").await;
    assert_eq!(again.status(), 400, "an address has one account");
    let hash: String = sqlx::query_scalar("SELECT password_hash FROM users")
        .fetch_one(&app.pool)
        .await
        .expect("hash");
    assert!(
        hash.starts_with("$argon2id$"),
        "passwords are stored as argon2id hashes"
    );
}

#[tokio::test]
async fn forms_without_the_csrf_token_are_refused() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("cs", "val", false).await;
    app.sign_up("ann@example.org", "a long password").await;
    // The cookie is there (set on the first page), but the form does not repeat it.
    for (path, form) in [
        (
            "/login",
            vec![
                ("email", "ann@example.org"),
                ("password", "a long password"),
                ("csrf", ""),
            ],
        ),
        (
            "/c/cs/team",
            vec![
                ("name", "Owls"),
                (
                    "csrf",
                    "0000000000000000000000000000000000000000000000000000000000000000",
                ),
            ],
        ),
        ("/logout", vec![]),
    ] {
        let r = app
            .client
            .post(app.url(path))
            .form(&form)
            .send()
            .await
            .expect("POST");
        assert!(
            matches!(r.status().as_u16(), 400 | 403),
            "{path} answered {}",
            r.status()
        );
    }
    // A multipart upload without the token is refused too.
    let csrf_less = reqwest::multipart::Form::new().text("split", "val").part(
        "file",
        reqwest::multipart::Part::bytes(crate::helpers::demo_results(true)).file_name("r.json"),
    );
    let r = app
        .client
        .post(app.url("/c/cs/submit"))
        .multipart(csrf_less)
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 403);
    // A token from another browser does not help either.
    let other = app.csrf("/").await;
    let stranger = client();
    let r = stranger
        .post(app.url("/login"))
        .form(&[
            ("email", "ann@example.org"),
            ("password", "a long password"),
            ("csrf", other.as_str()),
        ])
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 403);
}

/// Every form route takes its fields through one extractor that checks the token: an organizer's
/// session (who may post any of these forms) with a forged token changes nothing anywhere.
#[tokio::test]
async fn every_form_post_needs_the_browsers_csrf_token() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("cs", "val", false).await;
    let (_, token) = app.team("cs", "Owls").await;
    let submission = app
        .submit("cs", &token, "val", crate::helpers::demo_results(true))
        .await;
    let delete_submission = format!("/admin/submissions/{submission}/delete");
    app.log_in_as_organizer().await;
    let forged = "0".repeat(64);
    let urlencoded = [
        "/signup",
        "/login",
        "/logout",
        "/c/cs/team",
        "/c/cs/tokens",
        "/c/cs/tokens/1/revoke",
        "/s/1/choose",
        "/admin/challenges",
        "/admin/c/cs/limits",
        "/admin/c/cs/splits/val/visibility",
        "/admin/c/cs/splits/val/human",
        "/admin/c/cs/splits/val/rescore",
        "/admin/c/cs/splits/val/versions/1/delete",
        "/admin/c/cs/delete",
        "/admin/c/cs/organizers",
        "/admin/c/cs/organizers/remove",
        "/operator",
        &delete_submission,
    ];
    for path in urlencoded {
        let r = app
            .client
            .post(app.url(path))
            .form(&[
                ("csrf", forged.as_str()),
                ("email", "x@example.org"),
                ("password", "a long password"),
                ("name", "Owls"),
                ("slug", "other"),
                ("title", "Other"),
                ("max_bytes", "1"),
                ("hidden", "true"),
            ])
            .send()
            .await
            .expect("POST");
        assert_eq!(r.status(), 403, "{path}");
    }
    for path in [
        "/c/cs/submit",
        "/admin/c/cs/references",
        "/admin/c/cs/splits/val/baselines",
    ] {
        let form = reqwest::multipart::Form::new()
            .text("csrf", forged.clone())
            .text("split", "val")
            .text("label", "Base")
            .part(
                "file",
                reqwest::multipart::Part::bytes(crate::helpers::demo_results(true))
                    .file_name("r.json"),
            );
        let r = app
            .client
            .post(app.url(path))
            .multipart(form)
            .send()
            .await
            .expect("POST");
        assert_eq!(r.status(), 403, "{path}");
    }
    let counts: (i64, i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM challenges), \
         (SELECT COUNT(*) FROM teams), (SELECT COUNT(*) FROM submissions)",
    )
    .fetch_one(&app.pool)
    .await
    .expect("counts");
    // The organizer, the challenge, and the team and submission made above: nothing more.
    assert_eq!(counts, (1, 1, 1, 1), "nothing was created");
    let deleted: Option<chrono::DateTime<chrono::Utc>> =
        sqlx::query_scalar("SELECT deleted_at FROM submissions")
            .fetch_one(&app.pool)
            .await
            .expect("submission");
    assert!(deleted.is_none(), "nothing was deleted");
    let still_in = app.client.get(app.url("/admin")).send().await.expect("GET");
    assert_eq!(still_in.status(), 200, "the forged logout did not log out");
}

/// The `Set-Cookie` header of `name` in an answer.
fn set_cookie(r: &reqwest::Response, name: &str) -> String {
    r.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with(&format!("{name}=")))
        .unwrap_or_else(|| panic!("no {name} cookie"))
        .to_string()
}

#[tokio::test]
async fn cookies_are_http_only_and_secure_only_for_requests_that_arrived_over_https() {
    let plain = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    // Served directly over plain http: no `Secure`, and a forged X-Forwarded-Proto changes nothing.
    let direct = spawn_app_with(0, |_| {}).await;
    for forwarded in [None, Some("https")] {
        let mut get = plain.get(direct.url("/login"));
        if let Some(proto) = forwarded {
            get = get.header("X-Forwarded-Proto", proto);
        }
        let csrf = set_cookie(&get.send().await.expect("GET"), "sb_csrf");
        assert!(
            csrf.contains("HttpOnly")
                && csrf.contains("SameSite=Strict")
                && !csrf.contains("Secure"),
            "{forwarded:?}: {csrf}"
        );
    }

    // Behind a proxy the organizer trusts, which received the request over HTTPS: `Secure`.
    let app = spawn_app_with(0, |s| s.application.behind_proxy = true).await;
    let page = plain
        .get(app.url("/login"))
        .header("X-Forwarded-Proto", "https")
        .send()
        .await
        .expect("GET");
    let csrf = set_cookie(&page, "sb_csrf");
    assert!(
        csrf.contains("HttpOnly") && csrf.contains("Secure") && csrf.contains("SameSite=Strict"),
        "{csrf}"
    );
    let cookie = &csrf["sb_csrf=".len().."sb_csrf=".len() + 64];
    // The form's token is the HMAC of the cookie, not the cookie.
    let html = page.text().await.expect("body");
    let marker = "name=\"csrf\" value=\"";
    let start = html.find(marker).expect("a CSRF field") + marker.len();
    let token = &html[start..start + 64];
    assert_ne!(token, cookie);
    let r = plain
        .post(app.url("/signup"))
        .header("X-Forwarded-Proto", "https")
        .header("Cookie", format!("sb_csrf={cookie}"))
        .form(&[
            ("email", "bo@example.org"),
            ("password", "a long password"),
            ("csrf", token),
        ])
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 303);
    let session = set_cookie(&r, "sb_session");
    assert!(
        session.contains("HttpOnly")
            && session.contains("Secure")
            && session.contains("SameSite=Lax"),
        "{session}"
    );
    // The same proxy forwarding a plain-http request: no `Secure`.
    let r = plain
        .get(app.url("/login"))
        .header("X-Forwarded-Proto", "http")
        .send()
        .await
        .expect("GET");
    assert!(!set_cookie(&r, "sb_csrf").contains("Secure"));
}

#[tokio::test]
async fn a_cookie_jar_client_uses_every_team_form_over_plain_http_on_a_host_name() {
    // What a team meets on a server at http://some-host/ with the default settings; the
    // organizer's forms are driven the same way in organizer.rs.
    let app = spawn_app_with(0, |_| {}).await.addressed_by_host_name();
    let challenge = app.challenge_with_split("jar", "val", false).await;
    // Teams choose their entry here, so that the choice form is offered.
    spiceboard::storage::challenges::set_entry_policy(
        &app.pool,
        challenge.id,
        spiceboard::domain::leaderboard::EntryPolicy::Chosen,
    )
    .await
    .expect("policy");
    let post = |path: String, fields: Vec<(&'static str, String)>| {
        let app = &app;
        async move {
            let csrf = app.csrf("/").await;
            let mut form = fields;
            form.push(("csrf", csrf));
            app.client
                .post(app.url(&path))
                .form(&form)
                .send()
                .await
                .expect("POST")
        }
    };
    assert_eq!(
        app.sign_up("ann@example.org", "a long password")
            .await
            .status(),
        303
    );
    assert_eq!(post("/logout".into(), vec![]).await.status(), 303);
    assert_eq!(
        app.log_in("ann@example.org", "a long password")
            .await
            .status(),
        303
    );
    let r = post("/c/jar/team".into(), vec![("name", "Owls".into())]).await;
    assert_eq!(r.status(), 200, "team created");
    let r = post("/c/jar/tokens".into(), vec![("label", "ci".into())]).await;
    assert_eq!(r.status(), 200, "token made");
    let token: i64 = sqlx::query_scalar("SELECT MAX(id) FROM api_tokens")
        .fetch_one(&app.pool)
        .await
        .expect("token");
    let r = post(format!("/c/jar/tokens/{token}/revoke"), vec![]).await;
    assert_eq!(r.status(), 200, "token revoked");
    let r = app
        .form_upload(&app.client, "jar", "val", demo_results(true))
        .await;
    assert_eq!(r.status(), 303, "uploaded through the form");
    let id: i64 = r.headers()["location"]
        .to_str()
        .expect("location")
        .trim_start_matches("/s/")
        .parse()
        .expect("id");
    fake_aggregates(&app.pool, id, [Some(0.2); 7]).await;
    let second = app
        .form_upload(&app.client, "jar", "val", demo_results(false))
        .await;
    assert_eq!(second.status(), 303, "uploaded again");
    let second: i64 = second.headers()["location"]
        .to_str()
        .expect("location")
        .trim_start_matches("/s/")
        .parse()
        .expect("id");
    fake_aggregates(&app.pool, second, [Some(0.1); 7]).await;
    let r = post(format!("/s/{second}/choose"), vec![]).await;
    assert_eq!(
        r.status(),
        303,
        "entry chosen (the worse one: the best is already shown)"
    );
    let r = post("/c/jar/team/invite".into(), vec![]).await;
    assert_eq!(r.status(), 303, "new invite link");
    let r = post("/c/jar/team/leave".into(), vec![]).await;
    assert_eq!(r.status(), 303, "left the team");
    let code: String = sqlx::query_scalar("SELECT invite_code FROM teams WHERE name = 'Owls'")
        .fetch_one(&app.pool)
        .await
        .expect("code");
    let r = post(format!("/c/jar/join/{code}"), vec![]).await;
    assert_eq!(r.status(), 303, "joined through the invite link");
    let revoked: bool =
        sqlx::query_scalar("SELECT revoked_at IS NOT NULL FROM api_tokens WHERE id = $1")
            .bind(token)
            .fetch_one(&app.pool)
            .await
            .expect("revoked");
    assert!(revoked);
}

#[tokio::test]
async fn only_organizers_enter_the_organizer_area() {
    let app = spawn_app_with(0, |_| {}).await;
    let anon = client().get(app.url("/admin")).send().await.expect("GET");
    assert_eq!(anon.status(), 401);
    app.sign_up("ann@example.org", "a long password").await;
    let r = app.client.get(app.url("/admin")).send().await.expect("GET");
    assert_eq!(r.status(), 403);
    let csrf = app.csrf("/").await;
    let r = app
        .client
        .post(app.url("/admin/challenges"))
        .form(&[("csrf", csrf.as_str()), ("slug", "x"), ("title", "X")])
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 403);
}

#[tokio::test]
async fn anonymous_visitors_cannot_upload_through_the_form() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("cs", "val", false).await;
    let r = app
        .client
        .get(app.url("/c/cs/submit"))
        .send()
        .await
        .expect("GET");
    assert_eq!(r.status(), 303, "the form sends visitors to the login page");
    let csrf = app.csrf("/login").await;
    let form = reqwest::multipart::Form::new()
        .text("csrf", csrf)
        .text("split", "val")
        .part(
            "file",
            reqwest::multipart::Part::bytes(crate::helpers::demo_results(true)).file_name("r.json"),
        );
    let r = app
        .client
        .post(app.url("/c/cs/submit"))
        .multipart(form)
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 401);
}

/// Every login makes a session, and logins with the right password are not throttled: expired
/// sessions go, and a person's oldest beyond `SESSIONS_PER_USER`, as new ones are made.
#[tokio::test]
async fn sessions_do_not_pile_up() {
    use spiceboard::storage::accounts::{self, SESSIONS_PER_USER};
    let app = spawn_app_with(0, |_| {}).await;
    let user = accounts::create_user(&app.pool, "ann@example.org", "hash", false)
        .await
        .expect("insert")
        .expect("a new user");
    let other = accounts::create_user(&app.pool, "bea@example.org", "hash", false)
        .await
        .expect("insert")
        .expect("a new user");
    let later = chrono::Utc::now() + chrono::Duration::days(1);
    let made_one = |token: String, user: i64, until| {
        let pool = app.pool.clone();
        async move {
            let made = accounts::create_session(&pool, &token, user, "hash", until)
                .await
                .expect("session");
            assert!(made, "the password is the one given");
        }
    };
    made_one("bea-old".into(), other.id, chrono::Utc::now()).await;
    made_one("bea-live".into(), other.id, later).await;
    let made = SESSIONS_PER_USER + 5;
    for i in 0..made {
        made_one(format!("ann-{i:03}"), user.id, later).await;
    }
    // A login that checked a password since changed makes no session.
    let stale = accounts::create_session(&app.pool, "ann-stale", user.id, "old hash", later)
        .await
        .expect("query");
    assert!(!stale);
    let kept: Vec<String> =
        sqlx::query_scalar("SELECT token_hash FROM sessions ORDER BY token_hash")
            .fetch_all(&app.pool)
            .await
            .expect("sessions");
    let mut expected: Vec<String> = (made - SESSIONS_PER_USER..made)
        .map(|i| format!("ann-{i:03}"))
        .collect();
    expected.push("bea-live".into());
    assert_eq!(kept, expected, "the newest of each person's, none expired");
}

/// A browser of its own, signed up as `email` with `password`.
async fn signed_up(app: &crate::helpers::TestApp, email: &str, password: &str) -> reqwest::Client {
    let browser = client();
    let csrf = app.csrf_of(&browser, "/signup").await;
    let r = browser
        .post(app.url("/signup"))
        .form(&[("email", email), ("password", password), ("csrf", &csrf)])
        .send()
        .await
        .expect("POST /signup");
    assert_eq!(r.status(), 303);
    browser
}

/// `browser`'s view of its account page: status, and where a redirect leads.
async fn account_page(app: &crate::helpers::TestApp, browser: &reqwest::Client) -> (u16, String) {
    let r = browser
        .get(app.url("/account"))
        .send()
        .await
        .expect("GET /account");
    let status = r.status().as_u16();
    let location = r
        .headers()
        .get("location")
        .and_then(|l| l.to_str().ok())
        .map(str::to_string);
    let body = r.text().await.expect("body");
    (status, location.unwrap_or(body))
}

#[tokio::test]
async fn a_person_changes_their_password_and_their_other_sessions_end() {
    let app = spawn_app_with(0, |_| {}).await;
    let here = signed_up(&app, "bea@example.org", "the first password").await;
    let elsewhere = client();
    let csrf = app.csrf_of(&elsewhere, "/login").await;
    let r = elsewhere
        .post(app.url("/login"))
        .form(&[
            ("email", "bea@example.org"),
            ("password", "the first password"),
            ("csrf", &csrf),
        ])
        .send()
        .await
        .expect("POST /login");
    assert_eq!(r.status(), 303);
    let (status, page) = account_page(&app, &here).await;
    assert_eq!(status, 200);
    assert!(page.contains("Change your password"), "{page}");
    assert_eq!(
        account_page(&app, &client()).await,
        (303, "/login?next=/account".to_string()),
        "nobody's account page asks to log in"
    );

    let change = |current: &'static str, new: &'static str| {
        let here = &here;
        let app = &app;
        async move {
            let csrf = app.csrf_of(here, "/account").await;
            here.post(app.url("/account/password"))
                .form(&[("current", current), ("password", new), ("csrf", &csrf)])
                .send()
                .await
                .expect("POST /account/password")
        }
    };
    let r = change("a wrong guess!", "the second password").await;
    assert_eq!(r.status(), 400);
    assert!(r
        .text()
        .await
        .expect("body")
        .contains("that is not your current password"));
    let r = change("the first password", "short").await;
    assert_eq!(r.status(), 400);
    let link = spiceboard::actions::password_link(&app.pool, "bea@example.org", "a test")
        .await
        .expect("link");
    let sessions = || async {
        sqlx::query_scalar::<_, String>(
            "SELECT s.token_hash FROM sessions s JOIN users u ON u.id = s.user_id
             WHERE u.email = 'bea@example.org' ORDER BY 1",
        )
        .fetch_all(&app.pool)
        .await
        .expect("sessions")
    };
    let before = sessions().await;
    assert_eq!(before.len(), 2);
    let r = change("the first password", "the second password").await;
    assert_eq!(r.status(), 303);
    let after = sessions().await;
    assert_eq!(
        after.len(),
        1,
        "one new session, for the browser that changed it"
    );
    assert!(
        !before.contains(&after[0]),
        "this browser's old cookie is void too"
    );
    let open = client()
        .get(app.url(&format!("/password/{link}")))
        .send()
        .await
        .expect("GET");
    assert_eq!(open.status(), 200, "a change leaves password links open");
    assert_eq!(
        r.headers().get("location").and_then(|l| l.to_str().ok()),
        Some("/account?changed")
    );
    let r = here
        .get(app.url("/account?changed"))
        .send()
        .await
        .expect("GET");
    assert_eq!(r.status(), 200, "the session that changed it stays");
    let page = r.text().await.expect("body");
    assert!(page.contains("id=\"password-changed\""), "{page}");
    assert_eq!(
        account_page(&app, &elsewhere).await.0,
        303,
        "the other session ended"
    );
    assert_eq!(
        app.log_in("bea@example.org", "the first password")
            .await
            .status(),
        400
    );
    assert_eq!(
        app.log_in("bea@example.org", "the second password")
            .await
            .status(),
        303
    );
    // Wrong guesses at the current password count as failed logins of the account.
    let failures: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM auth_attempts WHERE key = 'login-account:bea@example.org'",
    )
    .fetch_one(&app.pool)
    .await
    .expect("count");
    assert_eq!(failures, 2);
}

#[tokio::test]
async fn a_password_link_from_the_organizers_sets_a_new_password_once() {
    let app = spawn_app_with(0, |_| {}).await;
    let forgetful = signed_up(&app, "cy@example.org", "a forgotten password").await;
    app.log_in_as_organizer().await;
    let make_link = |email: &'static str| {
        let app = &app;
        async move {
            let csrf = app.csrf("/admin").await;
            app.client
                .post(app.url("/admin/password-link"))
                .form(&[("email", email), ("csrf", &csrf)])
                .send()
                .await
                .expect("POST /admin/password-link")
        }
    };
    let r = make_link("nobody@example.org").await;
    assert_eq!(r.status(), 400);
    assert!(r
        .text()
        .await
        .expect("body")
        .contains("no account with e-mail address"));
    // A link made earlier closes when a newer one is made.
    let older = spiceboard::actions::password_link(&app.pool, "cy@example.org", "a test")
        .await
        .expect("link");
    // Someone who had the account made an API token with it; the reset revokes it.
    app.challenge_with_split("pw", "val", false).await;
    let c = spiceboard::actions::challenge(&app.pool, "pw")
        .await
        .expect("challenge");
    let cy: i64 = sqlx::query_scalar("SELECT id FROM users WHERE email = 'cy@example.org'")
        .fetch_one(&app.pool)
        .await
        .expect("user");
    let name = spiceboard::domain::TeamName::parse("Cyclists").expect("name");
    let (_, token) = spiceboard::actions::create_team(&app.pool, &c, &name, Some(cy))
        .await
        .expect("team");
    let r = make_link(" CY@example.org").await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()
            .get("cache-control")
            .and_then(|v| v.to_str().ok()),
        Some("no-store")
    );
    let page = r.text().await.expect("body");
    let start = page.find("/password/").expect("the link");
    let link = page[start..start + "/password/".len() + 64].to_string();
    assert!(
        page.contains("The password link for cy@example.org"),
        "{page}"
    );

    let stranger = client();
    let r = stranger.get(app.url(&link)).send().await.expect("GET");
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()
            .get("referrer-policy")
            .and_then(|v| v.to_str().ok()),
        Some("no-referrer")
    );
    assert!(r
        .text()
        .await
        .expect("body")
        .contains("Set a new password for cy@example.org"));
    let set = |password: &'static str| {
        let (app, stranger, link) = (&app, &stranger, &link);
        async move {
            let csrf = app.csrf_of(stranger, link).await;
            stranger
                .post(app.url(link))
                .form(&[("password", password), ("csrf", &csrf)])
                .send()
                .await
                .expect("POST")
        }
    };
    assert_eq!(set("short").await.status(), 400);
    let r = set("a remembered password").await;
    assert_eq!(r.status(), 200);
    let done = r.text().await.expect("body");
    assert!(done.contains("id=\"password-set\""), "{done}");
    assert!(
        done.contains("the 1 API token(s) the account had made are revoked"),
        "{done}"
    );
    let r = app
        .api_upload(
            "pw",
            &token,
            Some("val"),
            crate::helpers::demo_results(true),
        )
        .await;
    assert_eq!(
        r.status(),
        401,
        "the token made with the account is revoked"
    );
    assert_eq!(
        account_page(&app, &forgetful).await.0,
        303,
        "the account's sessions ended"
    );
    assert_eq!(
        app.log_in("cy@example.org", "a remembered password")
            .await
            .status(),
        303
    );
    // Used, it works no more; nor does the older link, nor an expired one, nor a made-up one.
    let expired = spiceboard::actions::password_link(&app.pool, "cy@example.org", "a test")
        .await
        .expect("link");
    sqlx::query(
        "UPDATE password_resets SET expires_at = now() - interval '1 minute' WHERE used_at IS NULL",
    )
    .execute(&app.pool)
    .await
    .expect("expire");
    for path in [
        link.clone(),
        format!("/password/{older}"),
        format!("/password/{expired}"),
        format!("/password/{}", "0".repeat(64)),
    ] {
        let r = stranger.get(app.url(&path)).send().await.expect("GET");
        assert_eq!(r.status(), 404, "{path}");
        assert!(r
            .text()
            .await
            .expect("body")
            .contains("this password link is not valid (any more)"));
    }
    let csrf = app.csrf_of(&stranger, "/login").await;
    let r = stranger
        .post(app.url(&link))
        .form(&[("password", "yet another password"), ("csrf", &csrf)])
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 404);
}
