//! Teams with members: invite links (shown to members only, scoped to their challenge, replaceable),
//! joining with CSRF, one team per person per challenge, the member list, leaving, and the
//! organizers' `team add-member`.

use crate::helpers::{client, spawn_app_with, TestApp};

async fn page(app: &TestApp, browser: &reqwest::Client, path: &str) -> (u16, String) {
    let r = browser.get(app.url(path)).send().await.expect("GET");
    let status = r.status().as_u16();
    (status, r.text().await.expect("body"))
}

/// `browser` creates team `name` in challenge `slug`.
async fn create_team(app: &TestApp, browser: &reqwest::Client, slug: &str, name: &str) {
    let csrf = app.csrf_of(browser, &format!("/c/{slug}")).await;
    let r = browser
        .post(app.url(&format!("/c/{slug}/team")))
        .form(&[("name", name), ("csrf", csrf.as_str())])
        .send()
        .await
        .expect("POST team");
    assert_eq!(r.status(), 200, "team {name} created");
}

/// The path of the invite link on the challenge page as `browser` sees it, if it shows one.
async fn invite_path(app: &TestApp, browser: &reqwest::Client, slug: &str) -> Option<String> {
    let (_, html) = page(app, browser, &format!("/c/{slug}")).await;
    let marker = "<code id=\"invite-link\">";
    let start = html.find(marker)? + marker.len();
    let link = &html[start..start + html[start..].find('<')?];
    let path = &link[link.find("/c/")?..];
    Some(path.to_string())
}

/// The e-mail addresses in the member list of the challenge page as `browser` sees it.
async fn members(app: &TestApp, browser: &reqwest::Client, slug: &str) -> Vec<String> {
    let (_, html) = page(app, browser, &format!("/c/{slug}")).await;
    let Some(start) = html.find("<ul id=\"members\">") else {
        return Vec::new();
    };
    let list = &html[start..start + html[start..].find("</ul>").unwrap_or(0)];
    list.split("<li>")
        .skip(1)
        .map(|item| item.split("</li>").next().unwrap_or("").to_string())
        .collect()
}

async fn team_of(app: &TestApp, email: &str, slug: &str) -> Option<String> {
    sqlx::query_scalar(
        "SELECT t.name FROM team_members m JOIN teams t ON t.id = m.team_id
         JOIN users u ON u.id = m.user_id JOIN challenges c ON c.id = t.challenge_id
         WHERE u.email = $1 AND c.slug = $2",
    )
    .bind(email)
    .bind(slug)
    .fetch_optional(&app.pool)
    .await
    .expect("membership")
}

/// Alice's team "Owls" in challenge "tm", and her browser.
async fn alice_and_her_team() -> (TestApp, reqwest::Client) {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("tm", "val", false).await;
    let alice = client();
    app.sign_up_in(&alice, "alice@example.org").await;
    create_team(&app, &alice, "tm", "Owls").await;
    (app, alice)
}

#[tokio::test]
async fn a_teammate_joins_through_the_invite_link_and_the_team_page_lists_the_members() {
    let (app, alice) = alice_and_her_team().await;
    assert_eq!(members(&app, &alice, "tm").await, ["alice@example.org"]);
    let link = invite_path(&app, &alice, "tm")
        .await
        .expect("the team page shows its members the invite link");
    assert!(link.starts_with("/c/tm/join/"), "{link}");

    // Bob opens the link: the team's name and a Join button.
    let bob = client();
    app.sign_up_in(&bob, "bob@example.org").await;
    let (status, html) = page(&app, &bob, &link).await;
    assert_eq!(status, 200);
    assert!(html.contains("Join team Owls"), "{html}");
    assert!(html.contains("id=\"join\""), "{html}");

    // Without the CSRF token of his own browser, the POST joins nothing.
    let forged = bob
        .post(app.url(&link))
        .form(&[("csrf", "0".repeat(64).as_str())])
        .send()
        .await
        .expect("POST");
    assert_eq!(forged.status(), 403);
    assert_eq!(team_of(&app, "bob@example.org", "tm").await, None);

    let r = app.post_button(&bob, &link, &link).await;
    assert_eq!(r.status(), 303);
    assert_eq!(
        r.headers().get("location").and_then(|l| l.to_str().ok()),
        Some("/c/tm")
    );
    assert_eq!(
        team_of(&app, "bob@example.org", "tm").await.as_deref(),
        Some("Owls")
    );
    let (_, html) = page(&app, &bob, "/c/tm").await;
    assert!(
        html.contains("You are in team <strong>Owls</strong>"),
        "{html}"
    );
    let both = ["alice@example.org", "bob@example.org"];
    assert_eq!(members(&app, &alice, "tm").await, both);
    assert_eq!(members(&app, &bob, "tm").await, both);

    // Joining again is refused, and the page offers no button.
    let (_, html) = page(&app, &bob, &link).await;
    assert!(html.contains("You are already in this team"), "{html}");
    assert!(!html.contains("id=\"join\""));
    let again = app.post_button(&bob, &link, &link).await;
    assert_eq!(again.status(), 400);
    let members_rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM team_members")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(members_rows, 2);
}

#[tokio::test]
async fn invite_codes_are_for_members_only_bound_to_their_challenge_and_replaceable() {
    let (app, alice) = alice_and_her_team().await;
    let link = invite_path(&app, &alice, "tm").await.expect("a link");
    let code = link.rsplit('/').next().expect("a code").to_string();
    assert_eq!(code.len(), 64, "as long as an API token");

    // Nobody outside the team sees the code: not a visitor, not a logged-in non-member.
    let (_, html) = page(&app, &client(), "/c/tm").await;
    assert!(!html.contains(&code));
    let carol = client();
    app.sign_up_in(&carol, "carol@example.org").await;
    let (_, html) = page(&app, &carol, "/c/tm").await;
    assert!(!html.contains(&code));
    // The page with the code is not cached, and sends no Referer on.
    let r = alice.get(app.url("/c/tm")).send().await.expect("GET");
    assert_eq!(
        r.headers()
            .get("referrer-policy")
            .and_then(|h| h.to_str().ok()),
        Some("no-referrer")
    );

    // Wrong or malformed codes, and a code used under another challenge, lead nowhere.
    app.challenge_with_split("other", "val", false).await;
    for bad in [
        "/c/tm/join/".to_string() + &"0".repeat(64),
        "/c/tm/join/nonsense".to_string(),
        format!("/c/other/join/{code}"),
        format!("/c/nowhere/join/{code}"),
    ] {
        let (status, _) = page(&app, &carol, &bad).await;
        assert_eq!(status, 404, "{bad}");
    }
    let csrf = app.csrf_of(&carol, "/c/other").await;
    let r = carol
        .post(app.url(&format!("/c/other/join/{code}")))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 404);
    assert_eq!(team_of(&app, "carol@example.org", "other").await, None);
    assert_eq!(team_of(&app, "carol@example.org", "tm").await, None);

    // A member replaces the code: the old link stops working, the new one works.
    let r = app.post_button(&alice, "/c/tm", "/c/tm/team/invite").await;
    assert_eq!(r.status(), 303);
    let new_link = invite_path(&app, &alice, "tm").await.expect("a new link");
    assert_ne!(new_link, link);
    let (status, html) = page(&app, &carol, &link).await;
    assert_eq!(status, 410, "a replaced link says so");
    assert!(html.contains("was replaced by a new one"), "{html}");
    // Only a member can replace it (Carol has no team: nothing to replace).
    let r = app.post_button(&carol, "/c/tm", "/c/tm/team/invite").await;
    assert_eq!(r.status(), 400);
    assert_eq!(
        invite_path(&app, &alice, "tm").await,
        Some(new_link.clone())
    );

    // Someone already in another team of the challenge cannot join: one team per person.
    create_team(&app, &carol, "tm", "Foxes").await;
    let (status, html) = page(&app, &carol, &new_link).await;
    assert_eq!(status, 200);
    assert!(
        html.contains("You are in team <strong>Foxes</strong>"),
        "{html}"
    );
    assert!(!html.contains("id=\"join\""));
    let r = app.post_button(&carol, &new_link, &new_link).await;
    assert_eq!(r.status(), 400);
    assert_eq!(
        team_of(&app, "carol@example.org", "tm").await.as_deref(),
        Some("Foxes")
    );
    // A visitor who is not logged in sees the team and is asked to log in, not given a button.
    let (status, html) = page(&app, &client(), &new_link).await;
    assert_eq!(status, 200);
    assert!(html.contains("Log in</a> or"), "{html}");
    assert!(!html.contains("id=\"join\""));
    let r = client()
        .post(app.url(&new_link))
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 401);
}

#[tokio::test]
async fn a_member_who_leaves_is_free_to_join_again_and_the_old_link_stops_working() {
    let (app, alice) = alice_and_her_team().await;
    let link = invite_path(&app, &alice, "tm").await.expect("a link");
    let bob = client();
    app.sign_up_in(&bob, "bob@example.org").await;
    assert_eq!(app.post_button(&bob, &link, &link).await.status(), 303);

    // Leaving needs the CSRF token.
    let forged = bob
        .post(app.url("/c/tm/team/leave"))
        .form(&[("csrf", "0".repeat(64).as_str())])
        .send()
        .await
        .expect("POST");
    assert_eq!(forged.status(), 403);
    assert_eq!(
        team_of(&app, "bob@example.org", "tm").await.as_deref(),
        Some("Owls")
    );

    let r = app.post_button(&bob, "/c/tm", "/c/tm/team/leave").await;
    assert_eq!(r.status(), 303);
    assert_eq!(team_of(&app, "bob@example.org", "tm").await, None);
    assert_eq!(members(&app, &alice, "tm").await, ["alice@example.org"]);
    let (_, html) = page(&app, &bob, "/c/tm").await;
    assert!(html.contains("id=\"create-team\""), "{html}");
    // The link Bob knew no longer works (and says it was replaced); the team's new one does.
    assert_eq!(page(&app, &bob, &link).await.0, 410);
    let new_link = invite_path(&app, &alice, "tm").await.expect("a new link");
    assert_ne!(new_link, link);
    assert_eq!(
        app.post_button(&bob, &new_link, &new_link).await.status(),
        303
    );
    assert_eq!(
        team_of(&app, "bob@example.org", "tm").await.as_deref(),
        Some("Owls")
    );
    // Leaving without a team is refused.
    let carol = client();
    app.sign_up_in(&carol, "carol@example.org").await;
    let r = app.post_button(&carol, "/c/tm", "/c/tm/team/leave").await;
    assert_eq!(r.status(), 400);
}

/// The invite link and the `curl` line of the challenge page, as `browser` sees them.
async fn absolute_links(
    app: &TestApp,
    browser: &reqwest::Client,
    headers: &[(&str, &str)],
) -> String {
    let mut get = browser.get(app.url("/c/tm"));
    for (name, value) in headers {
        get = get.header(*name, *value);
    }
    let html = get.send().await.expect("GET").text().await.expect("body");
    let link = |marker: &str| {
        let start = html.find(marker).map(|i| i + marker.len()).expect(marker);
        html[start..start + html[start..].find('<').unwrap_or(0)].to_string()
    };
    format!(
        "{} {}",
        link("<code id=\"invite-link\">"),
        link("<pre id=\"curl\">")
    )
}

const FORGED_HOSTS: [&[(&str, &str)]; 3] = [
    &[("X-Forwarded-Host", "evil.example")],
    &[("Forwarded", "host=evil.example;proto=https")],
    &[
        ("X-Forwarded-Host", "evil.example"),
        ("X-Forwarded-Proto", "https"),
    ],
];

#[tokio::test]
async fn forwarded_hosts_do_not_change_absolute_links_unless_a_proxy_is_trusted() {
    let (app, alice) = alice_and_her_team().await;
    for headers in FORGED_HOSTS {
        let links = absolute_links(&app, &alice, headers).await;
        assert!(!links.contains("evil.example"), "{headers:?}: {links}");
        assert!(
            links.contains(&format!("{}/c/tm/join/", app.address))
                && links.contains(&format!("{}/api/c/tm/submissions", app.address)),
            "{headers:?}: {links}"
        );
    }

    // Behind a trusted proxy, the proxy says where the browser reached the site.
    let app = spawn_app_with(0, |s| s.application.behind_proxy = true).await;
    app.challenge_with_split("tm", "val", false).await;
    let alice = client();
    app.sign_up_in(&alice, "alice@example.org").await;
    create_team(&app, &alice, "tm", "Owls").await;
    let links = absolute_links(&app, &alice, FORGED_HOSTS[1]).await;
    assert!(
        links.contains("https://evil.example/c/tm/join/")
            && links.contains("https://evil.example/api/c/tm/submissions"),
        "{links}"
    );
}
