//! Names that read alike are one name (issue 35, F5): a team name in its challenge and a
//! challenge title on the site are compared by their skeleton (NFKC, case-folded, without
//! default-ignorable code points), and a clash is refused with the existing name shown.

use spiceboard::actions::{self, ActionError};
use spiceboard::domain::{ChallengeSlug, TeamName, Title};

use crate::helpers::{client, spawn_app_with};

/// Each pair: a name taken first, then one that reads as it.
const ALIKE: [(&str, &str); 4] = [
    // The same text in two normalization forms (NFC beside a combining acute accent).
    ("Caf\u{E9}", "Cafe\u{301}"),
    ("alpha", "ALPHA"),
    // A variation selector shows as nothing after a letter.
    ("Owls", "Owls\u{FE0F}"),
    // An unassigned default-ignorable code point: shown as nothing by conforming renderers.
    ("Bats", "Ba\u{2065}ts"),
];

#[tokio::test]
async fn a_team_name_that_reads_as_a_taken_one_is_refused_with_the_taken_one_shown() {
    let app = spawn_app_with(0, |_| {}).await;
    let challenge = app.challenge_with_split("nm", "val", false).await;
    let other = app.challenge_with_split("nm2", "val", false).await;
    for (first, second) in ALIKE {
        let first = TeamName::parse(first).expect("name");
        actions::create_team(&app.pool, &challenge, &first, None)
            .await
            .expect("the first name is free");
        let second = TeamName::parse(second).expect("name");
        match actions::create_team(&app.pool, &challenge, &second, None).await {
            Err(ActionError::TeamExists(existing)) => assert_eq!(existing, first.as_str()),
            other => panic!("{second:?} beside {first:?}: {:?}", other.map(|t| t.0.name)),
        }
        // Another challenge's teams are no clash.
        actions::create_team(&app.pool, &other, &second, None)
            .await
            .expect("free in another challenge");
    }

    // In the browser: the page says which name is taken.
    let bob = client();
    app.sign_up_in(&bob, "bob@example.org").await;
    let csrf = app.csrf_of(&bob, "/c/nm").await;
    let r = bob
        .post(app.url("/c/nm/team"))
        .form(&[("name", "CAFE\u{301}"), ("csrf", csrf.as_str())])
        .send()
        .await
        .expect("POST team");
    assert_eq!(r.status(), 400);
    let html = r.text().await.expect("body");
    assert!(
        html.contains("Caf\u{E9}") && html.contains("already exists"),
        "{html}"
    );
}

#[tokio::test]
async fn parallel_requests_for_names_that_read_alike_make_one_team() {
    let app = spawn_app_with(0, |_| {}).await;
    let challenge = app.challenge_with_split("race", "val", false).await;
    let names = [
        "Night Owls",
        "NIGHT OWLS",
        "Night Owls\u{FE0F}",
        "night owl\u{2065}s",
    ];
    let tries = names.iter().map(|n| {
        let (pool, challenge) = (app.pool.clone(), challenge.clone());
        let name = TeamName::parse(n).expect("name");
        tokio::spawn(async move { actions::create_team(&pool, &challenge, &name, None).await })
    });
    let mut made = 0;
    for t in futures_util::future::join_all(tries).await {
        match t.expect("task") {
            Ok(_) => made += 1,
            Err(ActionError::TeamExists(_)) => {}
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(made, 1);
}

#[tokio::test]
async fn a_challenge_title_that_reads_as_another_challenges_is_refused() {
    let app = spawn_app_with(0, |_| {}).await;
    for (i, (first, second)) in ALIKE.into_iter().enumerate() {
        let slug = |n| ChallengeSlug::parse(&format!("t{i}-{n}")).expect("slug");
        let first = Title::parse(first).expect("title");
        actions::create_challenge(&app.pool, &slug(1), &first, "", None)
            .await
            .expect("the first title is free");
        let second = Title::parse(second).expect("title");
        match actions::create_challenge(&app.pool, &slug(2), &second, "", None).await {
            Err(ActionError::TitleExists(existing)) => assert_eq!(existing, first.as_str()),
            other => panic!("{second:?} beside {first:?}: {:?}", other.map(|c| c.title)),
        }
    }
    // Renaming: to another challenge's title (read alike) is refused, to one's own in other
    // letters' case is not.
    let c = app.challenge_with_split("ren", "val", false).await;
    match actions::set_details(&app.pool, &c, "OWLS\u{FE0F}", "").await {
        Err(ActionError::TitleExists(existing)) => assert_eq!(existing, "Owls"),
        other => panic!("{other:?}"),
    }
    actions::set_details(&app.pool, &c, "TEST CHALLENGE REN", "")
        .await
        .expect("one's own title in capitals");
}

#[tokio::test]
async fn names_made_before_the_rule_get_their_skeleton_when_the_server_migrates() {
    let app = spawn_app_with(0, |_| {}).await;
    let challenge = app.challenge_with_split("old", "val", false).await;
    // Two teams as an older server could make them: no skeleton, names that read alike.
    for name in ["Alpha", "ALPHA"] {
        sqlx::query("INSERT INTO teams (challenge_id, name, invite_code) VALUES ($1, $2, md5($2))")
            .bind(challenge.id)
            .bind(name)
            .execute(&app.pool)
            .await
            .expect("old team");
    }
    spiceboard::storage::migrate(&app.pool)
        .await
        .expect("migrate");
    let skeletons: Vec<(String, Option<String>)> =
        sqlx::query_as("SELECT name, name_skeleton FROM teams WHERE challenge_id = $1 ORDER BY id")
            .bind(challenge.id)
            .fetch_all(&app.pool)
            .await
            .expect("teams");
    // The older keeps the name; the clash made before the rule stays, without a skeleton.
    assert_eq!(
        skeletons,
        [
            ("Alpha".to_string(), Some("alpha".to_string())),
            ("ALPHA".to_string(), None)
        ]
    );
    match actions::create_team(
        &app.pool,
        &challenge,
        &TeamName::parse("alpha").expect("n"),
        None,
    )
    .await
    {
        Err(ActionError::TeamExists(existing)) => assert_eq!(existing, "Alpha"),
        other => panic!("{:?}", other.map(|t| t.0.name)),
    }
}
