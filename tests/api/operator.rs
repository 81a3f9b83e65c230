//! The first site operator made in the browser (issue 34, item 3): `serve` prints a one-time
//! code while the site has no operator; a logged-in person who enters it on `/operator` becomes
//! one. The code works once, not after it expired, not after too many wrong guesses, and not at
//! all once an operator exists.

use crate::helpers::{client, spawn_app_with, TestApp};
use spiceboard::actions;

async fn person(app: &TestApp, email: &str) -> reqwest::Client {
    let browser = client();
    app.sign_up_in(&browser, email).await;
    browser
}

/// Enters `code` on the operator page as `browser`: the status and the page.
/// Posts `code` to /operator as `browser` (its CSRF token read from the home page, which is there
/// whether or not /operator is).
async fn post_code(app: &TestApp, browser: &reqwest::Client, code: &str) -> reqwest::Response {
    let csrf = app.csrf_of(browser, "/").await;
    browser
        .post(app.url("/operator"))
        .form(&[("csrf", csrf.as_str()), ("code", code)])
        .send()
        .await
        .expect("POST /operator")
}

async fn enter(app: &TestApp, browser: &reqwest::Client, code: &str) -> (u16, String) {
    let r = post_code(app, browser, code).await;
    (r.status().as_u16(), r.text().await.expect("body"))
}

async fn is_operator(app: &TestApp, email: &str) -> bool {
    sqlx::query_scalar("SELECT is_admin FROM users WHERE email = $1")
        .bind(email)
        .fetch_one(&app.pool)
        .await
        .expect("user")
}

#[tokio::test]
async fn the_code_makes_one_operator_once() {
    let app = spawn_app_with(0, |_| {}).await;
    let code = actions::operator_code(&app.pool)
        .await
        .expect("code")
        .expect("no operator yet");
    assert_eq!(code.len(), 19, "{code}");
    // Only its hash is stored.
    let stored: String = sqlx::query_scalar("SELECT code_hash FROM operator_codes")
        .fetch_one(&app.pool)
        .await
        .expect("row");
    assert!(!stored.contains(&code.replace('-', "")));

    // Logged out, the page says to log in first, and the form cannot be posted.
    let (status, page) = {
        let r = client()
            .get(app.url("/operator"))
            .send()
            .await
            .expect("GET");
        (r.status().as_u16(), r.text().await.expect("body"))
    };
    assert_eq!(status, 200);
    assert!(page.contains("id=\"log-in-first\""), "{page}");

    let alice = person(&app, "alice@example.org").await;
    let (status, page) = enter(&app, &alice, "ABCD-EFGH-JKMN-PQRS").await;
    assert_eq!(status, 400);
    assert!(page.contains("this code is not valid (any more)"), "{page}");
    assert!(!is_operator(&app, "alice@example.org").await);

    // Typed in lower case with spaces, it works.
    let typed = code.to_lowercase().replace('-', " ");
    let r = post_code(&app, &alice, &typed).await;
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/admin");
    assert!(is_operator(&app, "alice@example.org").await);
    let r = alice.get(app.url("/admin")).send().await.expect("GET");
    assert_eq!(r.status(), 200);

    // Once: nobody else becomes an operator with it, and the page is gone.
    let bob = person(&app, "bob@example.org").await;
    let r = bob.get(app.url("/operator")).send().await.expect("GET");
    assert_eq!(r.status(), 404);
    assert_eq!(enter(&app, &bob, &code).await.0, 404);
    assert!(!is_operator(&app, "bob@example.org").await);
    // And no new code is made.
    assert_eq!(actions::operator_code(&app.pool).await.expect("code"), None);
}

#[tokio::test]
async fn an_expired_code_is_refused() {
    let app = spawn_app_with(0, |_| {}).await;
    let code = actions::operator_code(&app.pool)
        .await
        .expect("code")
        .expect("a code");
    sqlx::query("UPDATE operator_codes SET expires_at = now() - interval '1 second'")
        .execute(&app.pool)
        .await
        .expect("expire");
    let alice = person(&app, "alice@example.org").await;
    let (status, page) = enter(&app, &alice, &code).await;
    assert_eq!(status, 400);
    assert!(page.contains("this code is not valid (any more)"), "{page}");
    assert!(!is_operator(&app, "alice@example.org").await);
}

#[tokio::test]
async fn wrong_guesses_lock_the_code() {
    let app = spawn_app_with(0, |_| {}).await;
    let code = actions::operator_code(&app.pool)
        .await
        .expect("code")
        .expect("a code");
    let mallory = person(&app, "mallory@example.org").await;
    for _ in 0..actions::OPERATOR_CODE_GUESSES {
        let (status, _) = enter(&app, &mallory, "AAAA-AAAA-AAAA-AAAA").await;
        assert_eq!(status, 400);
    }
    // The right code, now, works no more.
    let alice = person(&app, "alice@example.org").await;
    let (status, page) = enter(&app, &alice, &code).await;
    assert_eq!(status, 400);
    assert!(page.contains("too many wrong guesses"), "{page}");
    assert!(!is_operator(&app, "alice@example.org").await);
    // A new start's code does.
    let code = actions::operator_code(&app.pool)
        .await
        .expect("code")
        .expect("a code");
    let (status, _) = enter(&app, &alice, &code).await;
    assert_eq!(status, 303);
    assert!(is_operator(&app, "alice@example.org").await);
}

#[tokio::test]
async fn no_code_once_an_operator_exists() {
    let app = spawn_app_with(0, |_| {}).await;
    let code = actions::operator_code(&app.pool)
        .await
        .expect("code")
        .expect("a code");
    app.log_in_as_organizer().await;
    assert_eq!(actions::operator_code(&app.pool).await.expect("code"), None);
    let r = app
        .client
        .get(app.url("/operator"))
        .send()
        .await
        .expect("GET");
    assert_eq!(r.status(), 404);
    // A code made before the operator works no more.
    let alice = person(&app, "alice@example.org").await;
    assert_eq!(enter(&app, &alice, &code).await.0, 404);
    assert!(!is_operator(&app, "alice@example.org").await);
}
