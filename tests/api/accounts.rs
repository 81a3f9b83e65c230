//! Sign-up, login, sessions, CSRF and the organizer boundary.

use crate::helpers::{client, spawn_app_with};

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
        "/admin/submissions/1/delete",
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
    assert_eq!(counts, (1, 1, 0, 0), "nothing was created");
    let still_in = app.client.get(app.url("/admin")).send().await.expect("GET");
    assert_eq!(still_in.status(), 200, "the forged logout did not log out");
}

#[tokio::test]
async fn session_cookies_are_http_only_and_secure_when_configured() {
    let app = spawn_app_with(0, |s| s.application.secure_cookies = true).await;
    let page = reqwest::Client::new()
        .get(app.url("/login"))
        .send()
        .await
        .expect("GET");
    let set: Vec<String> = page
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok().map(str::to_string))
        .collect();
    let csrf = set
        .iter()
        .find(|c| c.starts_with("sb_csrf="))
        .expect("a CSRF cookie");
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
    let r = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
        .post(app.url("/signup"))
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
    let session = r
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("sb_session="))
        .expect("a session cookie")
        .to_string();
    assert!(
        session.contains("HttpOnly")
            && session.contains("Secure")
            && session.contains("SameSite=Lax"),
        "{session}"
    );
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
