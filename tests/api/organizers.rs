//! Organizers per challenge (issue 34, item 3): an organizer controls the challenges they
//! organize and no other, on every route of the organizer area; organizers add others by e-mail
//! and remove them, never the last; the site operator stays above all.

use crate::helpers::{client, demo_results, leaderboard_csv_ids, TestApp};
use spiceboard::actions;

/// Every path of the organizer area the router declares (`src/routes/mod.rs`), as written there.
fn admin_routes() -> Vec<String> {
    let source = include_str!("../../src/routes/mod.rs");
    let mut routes: Vec<String> = source
        .split('"')
        .skip(1)
        .step_by(2)
        .filter(|s| s.starts_with("/admin"))
        .map(str::to_string)
        .collect();
    routes.sort();
    routes.dedup();
    routes
}

/// A browser of its own, signed up as `email`.
async fn person(app: &TestApp, email: &str) -> reqwest::Client {
    let browser = client();
    app.sign_up_in(&browser, email).await;
    browser
}

/// Posts `fields` and the CSRF token of `browser` (taken from page `from`) to `path`.
async fn post(
    app: &TestApp,
    browser: &reqwest::Client,
    from: &str,
    path: &str,
    fields: &[(&str, &str)],
) -> reqwest::Response {
    let csrf = app.csrf_of(browser, from).await;
    let mut form: Vec<(&str, &str)> = fields.to_vec();
    form.push(("csrf", csrf.as_str()));
    browser
        .post(app.url(path))
        .form(&form)
        .send()
        .await
        .expect("POST")
}

async fn page(browser: &reqwest::Client, url: String) -> (u16, String) {
    let r = browser.get(url).send().await.expect("GET");
    (r.status().as_u16(), r.text().await.expect("body"))
}

/// The notice the organizer page shows after a form that redirected to it.
async fn notice(app: &TestApp, browser: &reqwest::Client, r: reqwest::Response) -> String {
    assert_eq!(r.status(), 303);
    let to = r.headers()["location"]
        .to_str()
        .expect("location")
        .to_string();
    let (_, page) = page(browser, app.url(&to)).await;
    let start = page.find("id=\"message\">").expect("a notice") + "id=\"message\">".len();
    page[start..start + page[start..].find('<').expect("end")].to_string()
}

#[tokio::test]
async fn an_organizer_of_one_challenge_is_refused_every_route_of_another() {
    let app = crate::helpers::spawn_app_with(0, |_| {}).await;
    let a = app.challenge_with_split("ca", "val", false).await;
    app.challenge_with_split("cb", "val", true).await;
    let (_, token) = app.team("cb", "Owls").await;
    let b_submission = app.submit("cb", &token, "val", demo_results(true)).await;
    let alice = person(&app, "alice@example.org").await;
    actions::add_organizer(&app.pool, &a, "alice@example.org", None)
        .await
        .expect("alice organizes ca");

    let routes = admin_routes();
    // The loop below covers the area as the router declares it: more than a handful of routes.
    assert!(routes.len() > 20, "{routes:?}");
    let b_submission = b_submission.to_string();
    let mut refused = 0;
    for route in &routes {
        let concrete = |slug: &str| {
            route
                .replace("{slug}", slug)
                .replace("{split}", "val")
                .replace("{version}", "1")
                .replace("{id}", &b_submission)
        };
        if route == "/admin" {
            continue;
        }
        let path = concrete("cb");
        let (get, _) = page(&alice, app.url(&path)).await;
        let posted = post(&app, &alice, "/c/cb", &path, &[("confirm", "cb")]).await;
        let post = posted.status().as_u16();
        // Each route answers GET or POST (or both): every answer is a refusal, or "no such method".
        assert!((403..=405).contains(&get), "GET {path}: {get}");
        assert!((403..=405).contains(&post), "POST {path}: {post}");
        assert!(get == 403 || post == 403, "{path}: GET {get}, POST {post}");
        refused += 1;
        // The same page of her own challenge opens (the refusal above is about the challenge).
        if route.starts_with("/admin/c/{slug}") && get == 403 {
            let own = concrete("ca").replace("export.csv", "export.csv?split=val");
            let (status, body) = page(&alice, app.url(&own)).await;
            assert_eq!(status, 200, "GET {own}: {body}");
        }
    }
    assert_eq!(refused, routes.len() - 1);
    // The export with its split named is refused as well (the loop's has no `split=`).
    let (status, _) = page(&alice, app.url("/admin/c/cb/export.csv?split=val")).await;
    assert_eq!(status, 403);

    // Nothing of B changed.
    let b = actions::challenge(&app.pool, "cb")
        .await
        .expect("cb is there");
    assert_eq!(b.title, "Test challenge cb");
    let deleted: Option<chrono::DateTime<chrono::Utc>> =
        sqlx::query_scalar("SELECT deleted_at FROM submissions WHERE id = $1")
            .bind(b_submission.parse::<i64>().expect("id"))
            .fetch_one(&app.pool)
            .await
            .expect("submission");
    assert!(deleted.is_none());

    // Her index lists her challenge only, and offers no new challenge.
    let (status, index) = page(&alice, app.url("/admin")).await;
    assert_eq!(status, 200);
    assert!(index.contains("href=\"/admin/c/ca\""), "{index}");
    assert!(!index.contains("href=\"/admin/c/cb\""), "{index}");
    assert!(!index.contains("action=\"/admin/challenges\""), "{index}");
    // A submission of B's hidden split is none of hers.
    let (status, _) = page(&alice, app.url(&format!("/s/{b_submission}"))).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn the_creator_organizes_and_adds_and_removes_others_but_never_the_last() {
    let app = crate::helpers::spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("other", "val", false).await;
    app.log_in_as_organizer().await;
    let operator = &app.client;
    let r = post(
        &app,
        operator,
        "/admin",
        "/admin/challenges",
        &[("slug", "web"), ("title", "Web challenge")],
    )
    .await;
    assert_eq!(r.status(), 303);
    let (_, admin) = page(operator, app.url("/admin/c/web")).await;
    assert!(admin.contains("org@example.org (you)"), "{admin}");

    // Bob has an account, no place in the organizer area: until he is added.
    let bob = person(&app, "bob@example.org").await;
    let (status, _) = page(&bob, app.url("/admin")).await;
    assert_eq!(status, 403);
    let (_, home) = page(&bob, app.url("/")).await;
    assert!(!home.contains("href=\"/admin\""));
    let r = post(
        &app,
        operator,
        "/admin",
        "/admin/c/web/organizers",
        &[("email", "nobody@example.org")],
    )
    .await;
    let said = notice(&app, operator, r).await;
    assert!(said.contains("no account with e-mail address"), "{said}");
    assert!(
        said.contains("nobody@example.org") && said.contains("they sign up first"),
        "{said}"
    );
    let r = post(
        &app,
        operator,
        "/admin",
        "/admin/c/web/organizers",
        &[("email", " Bob@Example.org ")],
    )
    .await;
    assert_eq!(
        notice(&app, operator, r).await,
        "bob@example.org now organizes this challenge"
    );
    let (_, home) = page(&bob, app.url("/")).await;
    assert!(home.contains("href=\"/admin\""), "{home}");
    let (status, index) = page(&bob, app.url("/admin")).await;
    assert_eq!(status, 200);
    assert!(
        index.contains("href=\"/admin/c/web\"") && !index.contains("href=\"/admin/c/other\""),
        "{index}"
    );
    // He may not make challenges (operators do), nor password links.
    let r = post(
        &app,
        &bob,
        "/admin",
        "/admin/challenges",
        &[("slug", "bobs"), ("title", "Bob's")],
    )
    .await;
    assert_eq!(r.status(), 403);
    let r = post(
        &app,
        &bob,
        "/admin",
        "/admin/password-link",
        &[("email", "org@example.org")],
    )
    .await;
    assert_eq!(r.status(), 403);

    // Bob removes the creator; then he is the last and cannot remove himself.
    let ids: Vec<(i64, String)> = sqlx::query_as("SELECT id, email FROM users")
        .fetch_all(&app.pool)
        .await
        .expect("users");
    let id_of = |email: &str| {
        ids.iter()
            .find(|(_, e)| e == email)
            .map(|(id, _)| id.to_string())
            .expect("user")
    };
    let (org, bob_id) = (id_of("org@example.org"), id_of("bob@example.org"));
    let r = post(
        &app,
        &bob,
        "/admin/c/web",
        "/admin/c/web/organizers/remove",
        &[("user_id", &org)],
    )
    .await;
    assert_eq!(
        notice(&app, &bob, r).await,
        "org@example.org no longer organizes this challenge"
    );
    let (_, admin) = page(&bob, app.url("/admin/c/web")).await;
    assert!(
        !admin.contains("remove-organizer-"),
        "the last has no Remove button: {admin}"
    );
    let r = post(
        &app,
        &bob,
        "/admin/c/web",
        "/admin/c/web/organizers/remove",
        &[("user_id", &bob_id)],
    )
    .await;
    assert_eq!(
        notice(&app, &bob, r).await,
        "bob@example.org is the last organizer of this challenge; add another before removing them"
    );
    let listed: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM challenge_organizers")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(listed, 1);
    // The operator, no longer listed, still controls it.
    let (status, _) = page(operator, app.url("/admin/c/web")).await;
    assert_eq!(status, 200);

    // Carol, added by Bob, removes him: he loses the challenge (and the area, organizing none).
    let carol = &person(&app, "carol@example.org").await;
    let r = post(
        &app,
        &bob,
        "/admin/c/web",
        "/admin/c/web/organizers",
        &[("email", "carol@example.org")],
    )
    .await;
    assert_eq!(
        notice(&app, &bob, r).await,
        "carol@example.org now organizes this challenge"
    );
    let r = post(
        &app,
        carol,
        "/admin/c/web",
        "/admin/c/web/organizers/remove",
        &[("user_id", &bob_id)],
    )
    .await;
    assert_eq!(
        notice(&app, carol, r).await,
        "bob@example.org no longer organizes this challenge"
    );
    let (status, _) = page(&bob, app.url("/admin/c/web")).await;
    assert_eq!(status, 403);
    let (status, _) = page(&bob, app.url("/admin")).await;
    assert_eq!(status, 403);
}

/// The submission ids a browser finds on the leaderboard CSV of `slug`'s split `val`.
async fn board_ids(app: &TestApp, browser: &reqwest::Client, slug: &str) -> Vec<i64> {
    let (status, body) = page(
        browser,
        app.url(&format!("/c/{slug}/leaderboard.csv?split=val")),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    leaderboard_csv_ids(&body)
}

#[tokio::test]
async fn an_organizer_sees_their_hidden_split_as_an_operator_does() {
    let app = crate::helpers::spawn_app_with(0, |_| {}).await;
    let c = app.challenge_with_split("hx", "val", true).await;
    let mut ids = Vec::new();
    for (team, spice) in [("Owls", 0.2), ("Foxes", 0.3)] {
        let (_, token) = app.team("hx", team).await;
        let id = app
            .submit(
                "hx",
                &token,
                "val",
                crate::helpers::fresh(demo_results(true)),
            )
            .await;
        crate::helpers::fake_aggregates(&app.pool, id, [Some(spice); 7]).await;
        ids.push(id);
    }
    let alice = person(&app, "alice@example.org").await;
    let bob = person(&app, "bob@example.org").await;
    // Before she organizes it, alice sees what bob does: no team's entry of a test set.
    assert_eq!(board_ids(&app, &alice, "hx").await, Vec::<i64>::new());
    actions::add_organizer(&app.pool, &c, "alice@example.org", None)
        .await
        .expect("alice organizes hx");
    assert_eq!(board_ids(&app, &alice, "hx").await, ids);
    assert_eq!(board_ids(&app, &bob, "hx").await, Vec::<i64>::new());
    let (status, _) = page(&alice, app.url(&format!("/s/{}", ids[0]))).await;
    assert_eq!(status, 200);
    let (status, _) = page(&bob, app.url(&format!("/s/{}", ids[0]))).await;
    assert_eq!(status, 404);
}
