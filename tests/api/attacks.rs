//! The review of the teams, phases and uncertainty features: each attack that worked against
//! them, replayed against a real server and database, now doing no harm.

use chrono::{Duration, Utc};

use crate::helpers::{client, demo_results, fake_aggregates, fresh, spawn_app_with, TestApp};
use spiceboard::domain::leaderboard::EntryPolicy;
use spiceboard::domain::phase::Phase;
use spiceboard::storage::challenges;

async fn get(browser: &reqwest::Client, url: String) -> (u16, String) {
    let r = browser.get(url).send().await.expect("GET");
    (r.status().as_u16(), r.text().await.expect("body"))
}

/// A signed-up browser whose user created team `team` of challenge `slug`.
async fn member_with_team(app: &TestApp, slug: &str, email: &str, team: &str) -> reqwest::Client {
    let browser = client();
    let csrf = app.csrf_of(&browser, "/signup").await;
    let r = browser
        .post(app.url("/signup"))
        .form(&[
            ("email", email),
            ("password", "a long password"),
            ("csrf", &csrf),
        ])
        .send()
        .await
        .expect("POST /signup");
    assert_eq!(r.status(), 303);
    let csrf = app.csrf_of(&browser, &format!("/c/{slug}")).await;
    let r = browser
        .post(app.url(&format!("/c/{slug}/team")))
        .form(&[("csrf", csrf.as_str()), ("name", team)])
        .send()
        .await
        .expect("POST team");
    assert_eq!(r.status(), 200);
    browser
}

/// Uploads through the browser's form; returns the new submission's id.
async fn upload(app: &TestApp, browser: &reqwest::Client, slug: &str, careful: bool) -> i64 {
    let r = app
        .form_upload(browser, slug, "val", demo_results(careful))
        .await;
    assert_eq!(r.status(), 303);
    r.headers()["location"]
        .to_str()
        .expect("location")
        .trim_start_matches("/s/")
        .parse()
        .expect("id")
}

/// Under the `chosen` policy the pick is part of the entry: once submissions have closed, a team
/// cannot swap its leaderboard entry any more (say, for the one that did best on the test split
/// the organizers have just revealed).
#[tokio::test]
async fn after_the_close_a_team_cannot_change_its_chosen_entry() {
    let app = spawn_app_with(0, |_| {}).await;
    let challenge = app.challenge_with_split("late", "val", false).await;
    challenges::set_entry_policy(&app.pool, challenge.id, EntryPolicy::Chosen)
        .await
        .expect("teams choose");
    let owls = member_with_team(&app, "late", "ann@example.org", "Owls").await;
    let first = upload(&app, &owls, "late", true).await;
    let second = upload(&app, &owls, "late", false).await;
    fake_aggregates(&app.pool, first, [Some(0.3); 7]).await;
    fake_aggregates(&app.pool, second, [Some(0.1); 7]).await;
    challenges::set_phase(
        &app.pool,
        challenge.id,
        Phase {
            opens_at: Some(Utc::now() - Duration::days(2)),
            closes_at: Some(Utc::now() - Duration::hours(1)),
        },
    )
    .await
    .expect("closed an hour ago");

    let button = format!("action=\"/s/{second}/choose\"");
    let (status, page) = get(&owls, app.url(&format!("/s/{second}"))).await;
    assert!(
        status == 200 && !page.contains(&button),
        "no choice offered after the close"
    );
    let csrf = app.csrf_of(&owls, "/c/late").await;
    let r = owls
        .post(app.url(&format!("/s/{second}/choose")))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .expect("POST choose");
    let status = r.status().as_u16();
    let body = r.text().await.expect("body");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("submissions closed at"), "{body}");
    let (_, body) = get(&client(), app.url("/c/late/leaderboard.json?split=val")).await;
    let board: serde_json::Value = serde_json::from_str(&body).expect("json");
    assert_eq!(
        board["entries"][0]["submission_id"], first,
        "the entry at the close stays"
    );
}

/// The phase is checked when the upload arrives, and its file then takes a while to validate (a
/// large file, seconds): an upload that started before the close must not be stored after it.
/// Replayed here by submitting with the challenge as it was read at the start while the database
/// already says closed (the organizer closed it, or the time passed, during the validation).
#[tokio::test]
async fn an_upload_whose_phase_closes_while_it_validates_is_refused() {
    let app = spawn_app_with(0, |_| {}).await;
    let challenge = app.challenge_with_split("race", "val", false).await;
    let (team_id, _) = app.team("race", "Owls").await;
    let as_it_was = spiceboard::actions::challenge(&app.pool, "race")
        .await
        .expect("challenge");
    assert!(as_it_was.phase().refusal(Utc::now()).is_none(), "open");
    challenges::set_phase(
        &app.pool,
        challenge.id,
        Phase {
            opens_at: None,
            closes_at: Some(Utc::now() - Duration::seconds(1)),
        },
    )
    .await
    .expect("closed meanwhile");
    let split = spiceboard::actions::split(&app.pool, &as_it_was, "val")
        .await
        .expect("split");
    let stored = spiceboard::actions::submit(
        &app.pool,
        &as_it_was,
        &split,
        spiceboard::actions::Uploader::Team {
            team_id,
            user_id: None,
        },
        "",
        &spiceboard::domain::SubmissionMethod::default(),
        demo_results(true),
        spiceboard::actions::SubmitLimits::from_settings(&app.settings),
    )
    .await;
    match stored {
        Err(spiceboard::actions::ActionError::Closed(why)) => {
            assert!(why.contains("submissions closed at"), "{why}")
        }
        Err(e) => panic!("refused for another reason: {e}"),
        Ok(s) => panic!("submission {} stored after the close", s.id),
    }
    let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM submissions WHERE team_id = $1")
        .bind(team_id)
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(count, 0);
}

/// Gives a submission `images` fake per-image rows (every category's F and the image's SPICE).
async fn fake_images(app: &TestApp, submission_id: i64, images: i64, shift: f64) {
    sqlx::query(
        "INSERT INTO image_results (submission_id, image_id, caption, spice_f, details)
         SELECT $1, g, 'a caption', ((g * 7919) % 1000) / 1000.0 * $3, '{}'::JSON
         FROM generate_series(1, $2) g",
    )
    .bind(submission_id)
    .bind(images)
    .bind(shift)
    .execute(&app.pool)
    .await
    .expect("image rows");
    sqlx::query(
        "INSERT INTO image_scores (submission_id, image_id, category, tp, fp, fn, precision, recall, f)
         SELECT r.submission_id, r.image_id, c, 1, 1, 1, r.spice_f, r.spice_f, r.spice_f
         FROM image_results r,
              unnest(ARRAY['all','object','relation','attribute','color','count','size']) c
         WHERE r.submission_id = $1",
    )
    .bind(submission_id)
    .execute(&app.pool)
    .await
    .expect("image scores");
}

/// The compare page bootstraps two entries' per-image scores for every request (a tenth of a
/// second of a core and more for a large split), for anyone, logged in or not, for any pair of a
/// public leaderboard's entries. A visitor who asks for many at once must not take every core
/// from the workers, the uploads' validation and the logins: comparisons run a few at a time,
/// and a request that cannot get its turn soon is answered 503.
#[tokio::test]
async fn a_flood_of_comparisons_is_turned_away_rather_than_taking_every_core() {
    let app = spawn_app_with(0, |s| {
        s.limits.comparisons_at_once = 1;
        s.limits.compare_wait_ms = 0;
    })
    .await;
    app.challenge_with_split("big", "val", false).await;
    let mut ids = Vec::new();
    for (team, shift) in [("Owls", 1.0), ("Foxes", 0.8)] {
        let (_, token) = app.team("big", team).await;
        let id = app.submit("big", &token, "val", demo_results(true)).await;
        fake_aggregates(&app.pool, id, [Some(0.2 * shift); 7]).await;
        fake_images(&app, id, 4000, shift).await;
        ids.push(id);
    }
    let url = app.url(&format!(
        "/c/big/compare?split=val&a={}&b={}",
        ids[0], ids[1]
    ));
    let (status, _) = get(&client(), url.clone()).await;
    assert_eq!(status, 200, "one comparison alone is answered");
    let statuses = futures_util::future::join_all((0..8).map(|_| {
        let url = url.clone();
        async move { get(&client(), url).await.0 }
    }))
    .await;
    assert!(
        statuses.iter().all(|s| *s == 200 || *s == 503),
        "{statuses:?}"
    );
    assert!(statuses.contains(&200), "{statuses:?}");
    assert!(
        statuses.contains(&503),
        "eight comparisons at once all ran: {statuses:?}"
    );
}

/// A person is in one team per challenge, and a team's quota is its own. The last member of a
/// team who leaves it is left holding its API tokens with nobody to revoke them: they could make
/// a new team and still upload for (and read the hidden-split scores of) the old one, two
/// leaderboard rows and two quotas for one person. When the last member leaves, the team's tokens
/// stop working.
#[tokio::test]
async fn the_last_member_to_leave_takes_no_working_token_of_the_team_along() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("solo", "val", false).await;
    let (_, token) = app.team("solo", "Owls").await;
    let ann = app.member("solo", "Owls", "ann@example.org").await;
    let (_, other_token) = app.team("solo", "Bats").await;
    let _bea = app.member("solo", "Bats", "bea@example.org").await;
    assert_eq!(
        app.post_button(&ann, "/c/solo", "/c/solo/team/leave")
            .await
            .status(),
        303
    );
    let csrf = app.csrf_of(&ann, "/c/solo").await;
    let r = ann
        .post(app.url("/c/solo/team"))
        .form(&[("csrf", csrf.as_str()), ("name", "Owls Again")])
        .send()
        .await
        .expect("POST team");
    assert_eq!(r.status(), 200);
    let r = app
        .api_upload("solo", &token, Some("val"), demo_results(true))
        .await;
    assert_eq!(r.status(), 401, "the left team's token still uploads");
    // A team that still has members keeps its tokens (its members revoke them).
    let r = app
        .api_upload("solo", &other_token, Some("val"), demo_results(true))
        .await;
    assert_eq!(r.status(), 202);
}

/// A team's quota limits how often it may read its scores on a hidden split. A member who had
/// used it up could leave, start a team of their own and find a fresh quota there, again and
/// again. Uploads follow the member who made them (in the browser, or with a token they made),
/// so the new team starts with theirs counted; a team of other people keeps its own quota.
#[tokio::test]
async fn leaving_a_team_and_starting_another_gives_no_fresh_quota() {
    let app = spawn_app_with(0, |_| {}).await;
    let c = app.challenge_with_split("hop", "val", true).await;
    spiceboard::storage::challenges::set_limits(&app.pool, c.id, Some(5), Some(2), 1_000_000)
        .await
        .expect("limits");
    app.team("hop", "Owls").await;
    let ann = app.member("hop", "Owls", "ann@example.org").await;
    let anns = app.make_token(&ann, "hop").await;
    for _ in 0..2 {
        let r = app
            .api_upload("hop", &anns, Some("val"), fresh(demo_results(true)))
            .await;
        assert_eq!(r.status(), 202);
    }
    let r = app
        .api_upload("hop", &anns, Some("val"), fresh(demo_results(true)))
        .await;
    assert_eq!(r.status(), 429, "the team's quota is used up");
    assert_eq!(
        app.post_button(&ann, "/c/hop", "/c/hop/team/leave")
            .await
            .status(),
        303
    );
    // An upload she started for Owls before leaving, still being checked, is not stored for a
    // team she is no longer in (where her next team's quota might not see it).
    let (owls, ann_id): (i64, i64) = sqlx::query_as(
        "SELECT t.id, u.id FROM teams t, users u WHERE t.name = 'Owls' AND u.email = 'ann@example.org'",
    )
    .fetch_one(&app.pool)
    .await
    .expect("ids");
    let challenge = spiceboard::actions::challenge(&app.pool, "hop")
        .await
        .expect("challenge");
    let split = spiceboard::actions::split(&app.pool, &challenge, "val")
        .await
        .expect("split");
    let late = spiceboard::actions::submit(
        &app.pool,
        &challenge,
        &split,
        spiceboard::actions::Uploader::Team {
            team_id: owls,
            user_id: Some(ann_id),
        },
        "",
        &spiceboard::domain::SubmissionMethod::default(),
        demo_results(true),
        spiceboard::actions::SubmitLimits::from_settings(&app.settings),
    )
    .await;
    assert!(
        matches!(late, Err(spiceboard::actions::ActionError::NotInTeam)),
        "{late:?}"
    );
    let csrf = app.csrf_of(&ann, "/c/hop").await;
    let r = ann
        .post(app.url("/c/hop/team"))
        .form(&[("csrf", csrf.as_str()), ("name", "Owls Again")])
        .send()
        .await
        .expect("POST team");
    assert_eq!(r.status(), 200);
    let again = app.make_token(&ann, "hop").await;
    let r = app
        .api_upload("hop", &again, Some("val"), fresh(demo_results(true)))
        .await;
    assert_eq!(
        r.status(),
        429,
        "a new team of the same member got a fresh quota"
    );
    let body: serde_json::Value = r.json().await.expect("json");
    assert!(
        body["error"]
            .as_str()
            .unwrap_or_default()
            .contains("all 2 of its submissions (its members' uploads in other teams"),
        "{body}"
    );
    // The browser's upload form says the same.
    let r = app
        .form_upload(&ann, "hop", "val", demo_results(true))
        .await;
    let html = r.text().await.expect("body");
    assert!(
        html.contains("its members&#39; uploads in other teams"),
        "{html}"
    );
    // Other people's team keeps its own quota.
    app.team("hop", "Bats").await;
    let bea = app.member("hop", "Bats", "bea@example.org").await;
    let beas = app.make_token(&bea, "hop").await;
    let r = app
        .api_upload("hop", &beas, Some("val"), fresh(demo_results(true)))
        .await;
    assert_eq!(r.status(), 202);
}

/// A member who left a team that goes on kept the API tokens they had made (shown to them
/// alone) and the one the team was made with on the command line: from another team they could
/// still upload for this one and read its hidden-split scores. Those stop working when they
/// leave; the tokens the other members made still work.
#[tokio::test]
async fn a_leaver_takes_no_working_token_of_a_team_that_goes_on() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("duo", "val", false).await;
    let (_, handed_over) = app.team("duo", "Owls").await;
    let ann = app.member("duo", "Owls", "ann@example.org").await;
    let bea = app.member("duo", "Owls", "bea@example.org").await;
    let anns = app.make_token(&ann, "duo").await;
    let beas = app.make_token(&bea, "duo").await;
    let upload = |token: String| {
        let app = &app;
        async move {
            app.api_upload("duo", &token, Some("val"), fresh(demo_results(true)))
                .await
                .status()
        }
    };
    for t in [&handed_over, &anns, &beas] {
        assert_eq!(upload(t.clone()).await, 202, "before anyone leaves");
    }
    // The members see who made each token, and so which ones a leaver takes down.
    let (_, html) = get(&bea, app.url("/c/duo")).await;
    for maker in ["ann@example.org", "bea@example.org", "not recorded"] {
        assert!(
            html.contains(&format!("<td>{maker}</td>")),
            "{maker}: {html}"
        );
    }
    assert_eq!(
        app.post_button(&ann, "/c/duo", "/c/duo/team/leave")
            .await
            .status(),
        303
    );
    assert_eq!(
        upload(anns).await,
        401,
        "the leaver's own token still uploads"
    );
    assert_eq!(
        upload(handed_over).await,
        401,
        "the token of unknown maker, which the leaver may hold, still uploads"
    );
    assert_eq!(
        upload(beas).await,
        202,
        "the remaining member's token stopped"
    );
    let (_, html) = get(&bea, app.url("/c/duo")).await;
    assert!(html.contains("1 active API token"), "{html}");
}

/// An API upload of `token` to challenge `slug` that has sent the start of its file and waits
/// there, holding whatever the server gives an upload being received, until dropped.
async fn stalled_upload(app: &TestApp, slug: &str, token: &str) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let mut slow = tokio::net::TcpStream::connect(app.address.trim_start_matches("http://"))
        .await
        .expect("connect");
    let head = format!(
        "POST /api/c/{slug}/submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: multipart/form-data; boundary=B\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    let part = "--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"r.json\"\r\n\r\n[";
    slow.write_all(head.as_bytes()).await.expect("head");
    slow.write_all(format!("{:x}\r\n{part}\r\n", part.len()).as_bytes())
        .await
        .expect("part");
    slow
}

/// Uploads `token` to the challenge `slug`'s split "val" until one is answered 503 (then checks
/// that its error says `why`): until the server has taken a stalled upload's turn, an upload
/// beside it can come first and is taken (202).
async fn upload_until_busy(app: &TestApp, slug: &str, token: &str, why: &str) {
    let mut waited = 0;
    loop {
        let r = app
            .api_upload(slug, token, Some("val"), fresh(demo_results(true)))
            .await;
        if r.status() == 503 {
            let body: serde_json::Value = r.json().await.expect("JSON");
            assert!(
                body["error"].as_str().unwrap_or_default().contains(why),
                "{body}"
            );
            return;
        }
        assert_eq!(r.status(), 202, "an upload beside the stalled one");
        waited += 1;
        assert!(waited < 50, "the stalled upload never held its turn");
    }
}

/// Uploads `token` to the challenge `slug`'s split "val" until one is taken (202).
async fn upload_until_taken(app: &TestApp, slug: &str, token: &str) {
    upload_until_taken_file(app, slug, token, &demo_results(true)).await
}

/// Uploads `file` (made fresh each time) as `token` to the challenge `slug`'s split "val" until
/// one is taken (202).
async fn upload_until_taken_file(app: &TestApp, slug: &str, token: &str, file: &[u8]) {
    let mut tries = 0;
    while app
        .api_upload(slug, token, Some("val"), fresh(file.to_vec()))
        .await
        .status()
        != 202
    {
        tries += 1;
        assert!(tries < 50, "the stalled upload's turn was not given back");
    }
}

/// Refused files count against no quota, and each upload's file is held in memory while it is
/// received and checked: one member could keep any number of the largest files in flight at
/// once. A team's uploads now take turns: while one is being received, the next waits
/// (`limits.upload_wait_ms`) and is then answered 503; other teams' uploads go on.
#[tokio::test]
async fn a_team_sends_one_file_at_a_time() {
    let app = spawn_app_with(0, |s| s.limits.upload_wait_ms = 300).await;
    app.challenge_with_split("turn", "val", false).await;
    let (_, owls) = app.team("turn", "Owls").await;
    let (_, bats) = app.team("turn", "Bats").await;
    let slow = stalled_upload(&app, "turn", &owls).await;
    upload_until_busy(
        &app,
        "turn",
        &owls,
        "previous upload is still being received",
    )
    .await;
    assert_eq!(
        app.api_upload("turn", &bats, Some("val"), demo_results(true))
            .await
            .status(),
        202,
        "another team waits for the Owls"
    );
    // The slow upload goes away: the Owls' next upload is taken.
    drop(slow);
    upload_until_taken(&app, "turn", &owls).await;
}

/// One file at a time per team still lets many teams (anyone may make one) hold the largest
/// file each at once. All uploads share a memory budget (`limits.upload_memory_bytes`), each
/// holding its challenge's largest file size of it: here one upload fills it, so another team's
/// waits and is answered 503, and is taken once the first goes away.
#[tokio::test]
async fn uploads_of_all_teams_share_a_memory_budget() {
    let app = spawn_app_with(0, |s| {
        s.limits.upload_wait_ms = 300;
        s.limits.upload_memory_bytes = 1;
    })
    .await;
    app.challenge_with_split("budget", "val", false).await;
    let (_, owls) = app.team("budget", "Owls").await;
    let (_, bats) = app.team("budget", "Bats").await;
    let slow = stalled_upload(&app, "budget", &owls).await;
    upload_until_busy(&app, "budget", &bats, "as many uploads as it can hold").await;
    drop(slow);
    upload_until_taken(&app, "budget", &bats).await;
}

/// An upload holds of the memory budget what it has sent, in steps of 256 KiB, not the largest
/// file its challenge takes: a body cut off at the form's deadline used to come straight back and
/// take that whole share again, and a few stalled bodies filled the budget (issue 35). Here the
/// budget is 1 MiB (four steps) and the challenge takes files of many MB. Three teams' uploads
/// stall after their first bytes: a 300 KiB file (two steps) then finds no room and is answered
/// 503 as it arrives, but a small file (one step) is still taken; once the stalled uploads go
/// away the large one is taken too.
#[tokio::test]
async fn a_stalled_upload_holds_only_what_it_sent_of_the_memory_budget() {
    let app = spawn_app_with(0, |s| {
        s.limits.upload_wait_ms = 300;
        s.limits.upload_memory_bytes = 1024 * 1024;
    })
    .await;
    let challenge = app.challenge_with_split("share", "val", false).await;
    assert!(
        challenge.max_file_bytes > 4 * 1024 * 1024,
        "a large file limit"
    );
    let mut stalled = Vec::new();
    for name in ["Owls", "Bats", "Cats"] {
        let (_, token) = app.team("share", name).await;
        stalled.push(stalled_upload(&app, "share", &token).await);
    }
    let (_, large) = app.team("share", "Large").await;
    let mut padded = demo_results(true);
    padded.extend(std::iter::repeat_n(b' ', 300 * 1024));
    let mut tries = 0;
    loop {
        let r = app
            .api_upload("share", &large, Some("val"), fresh(padded.clone()))
            .await;
        if r.status() == 503 {
            let body: serde_json::Value = r.json().await.expect("JSON");
            assert!(
                body["error"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("as many uploads as it can hold"),
                "{body}"
            );
            break;
        }
        assert_eq!(r.status(), 202, "the large file before the stalls held");
        tries += 1;
        assert!(tries < 50, "three stalled uploads never filled three steps");
    }
    let (_, small) = app.team("share", "Small").await;
    let r = app
        .api_upload("share", &small, Some("val"), fresh(demo_results(true)))
        .await;
    assert_eq!(
        r.status(),
        202,
        "a small file beside three stalled uploads: {}",
        r.text().await.unwrap_or_default()
    );
    drop(stalled);
    upload_until_taken_file(&app, "share", &large, &padded).await;
}

/// A raw request to `app`: `head` (its request line and headers, without the blank line), then
/// `body` one byte every `every` (all at once when zero), then nothing. Returns the answer (its
/// status line and what follows, as far as it came) and how long it took, or panics after 10 s.
async fn trickled(
    app: &TestApp,
    head: &str,
    body: &[u8],
    every: std::time::Duration,
) -> (String, std::time::Duration) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let stream = tokio::net::TcpStream::connect(app.address.trim_start_matches("http://"))
        .await
        .expect("connect");
    let (mut rx, mut tx) = stream.into_split();
    let (head, body) = (format!("{head}\r\n\r\n"), body.to_vec());
    let began = std::time::Instant::now();
    let writer = tokio::spawn(async move {
        tx.write_all(head.as_bytes()).await?;
        if every.is_zero() {
            tx.write_all(&body).await?;
        } else {
            for b in body {
                tx.write_all(&[b]).await?;
                tokio::time::sleep(every).await;
            }
        }
        std::future::pending::<()>().await;
        Ok::<_, std::io::Error>(tx)
    });
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    let read = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        while !String::from_utf8_lossy(&answer).contains("\r\n\r\n") {
            match rx.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
        }
        // The body of the answer, if it comes at once.
        if let Ok(Ok(n)) =
            tokio::time::timeout(std::time::Duration::from_millis(200), rx.read(&mut buf)).await
        {
            answer.extend_from_slice(&buf[..n]);
        }
    })
    .await;
    writer.abort();
    assert!(
        read.is_ok(),
        "no answer within 10 s: {head:?}",
        head = String::from_utf8_lossy(&answer)
    );
    (
        String::from_utf8_lossy(&answer).into_owned(),
        began.elapsed(),
    )
}

/// A body that sends nothing more after its first bytes was waited for without end, whatever
/// read it (issue 35, F2). Every body is read through the same bound: a login form (urlencoded,
/// with a declared length) is answered 408 after `limits.body_idle_timeout_ms`, as an upload is.
#[tokio::test]
async fn a_stalled_form_is_answered_408_after_the_idle_time() {
    let app = spawn_app_with(0, |s| s.limits.body_idle_timeout_ms = 700).await;
    app.challenge_with_split("still", "val", false).await;
    let (_, token) = app.team("still", "Owls").await;
    let (answer, took) = trickled(
        &app,
        "POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: 1000",
        b"email=a",
        std::time::Duration::ZERO,
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("nothing arrived for 700 ms"), "{answer}");
    assert!(took >= std::time::Duration::from_millis(700), "{took:?}");
    let (answer, _) = trickled(
        &app,
        &format!(
            "POST /api/c/still/submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: multipart/form-data; boundary=B\r\nContent-Length: 1000"
        ),
        b"--B\r\n",
        std::time::Duration::ZERO,
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains("{\"error\":\"the request's body stalled"),
        "{answer}"
    );
    assert_eq!(
        app.api_upload("still", &token, Some("val"), demo_results(true))
            .await
            .status(),
        202,
        "the stalled upload's turn is given back"
    );
}

/// A byte now and then keeps a body from ever being idle: one that arrives slower than
/// `limits.body_min_bytes_per_second` on average, once its first idle time has passed, is cut
/// off too. Here a byte every 300 ms against a floor of 1,000 bytes a second and an idle time of
/// a second: cut off after about a second.
#[tokio::test]
async fn a_trickled_upload_is_cut_off_at_the_floor_rate() {
    let app = spawn_app_with(0, |s| {
        s.limits.body_idle_timeout_ms = 1000;
        s.limits.body_min_bytes_per_second = 1000;
    })
    .await;
    app.challenge_with_split("drip", "val", false).await;
    let (_, token) = app.team("drip", "Owls").await;
    let part = "--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"r.json\"\r\n\r\n[";
    let (answer, took) = trickled(
        &app,
        &format!(
            "POST /api/c/drip/submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: multipart/form-data; boundary=B\r\nContent-Length: 10000"
        ),
        part.as_bytes(),
        std::time::Duration::from_millis(300),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("arrived too slowly"), "{answer}");
    assert!(took < std::time::Duration::from_secs(3), "{took:?}");
    assert_eq!(
        app.api_upload("drip", &token, Some("val"), demo_results(true))
            .await
            .status(),
        202,
        "the trickled upload's turn is given back"
    );
}

/// A body that keeps just above the floor rate is never cut off by it: against a 20 MB limit
/// and a floor of 1 KiB/s, it held its team's turn and its share of the upload memory for about
/// 5.7 hours. A form must now arrive whole within the idle time plus its size limit at
/// `limits.form_deadline_bytes_per_second`. Here a byte every 5 ms (200 bytes a second, twice the
/// floor) of a declared 10,000: the deadline (1 s + the 20 MB limit at 10 MB/s, about 3 s) cuts it
/// off while it is still being sent (the old code answered only after its 2,000 bytes ran out
/// and the idle time passed, 11 s in).
#[tokio::test]
async fn a_trickle_above_the_floor_rate_is_cut_off_at_the_forms_deadline() {
    let app = spawn_app_with(0, |s| {
        s.limits.body_idle_timeout_ms = 1000;
        s.limits.body_min_bytes_per_second = 100;
        s.limits.form_deadline_bytes_per_second = 10_000_000;
    })
    .await;
    app.challenge_with_split("trickle", "val", false).await;
    let (_, token) = app.team("trickle", "Owls").await;
    let part = "--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"r.json\"\r\n\r\n[";
    let mut body = part.as_bytes().to_vec();
    body.resize(2000, b' ');
    let (answer, _) = trickled(
        &app,
        &format!(
            "POST /api/c/trickle/submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: multipart/form-data; boundary=B\r\nContent-Length: 10000"
        ),
        &body,
        std::time::Duration::from_millis(5),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains("took longer than 3 s, the most a form of up to 21037056 bytes may take"),
        "{answer}"
    );
    assert_eq!(
        app.api_upload("trickle", &token, Some("val"), demo_results(true))
            .await
            .status(),
        202,
        "the trickled upload's turn is given back"
    );
}

/// The bound on a form's framing (the preamble, boundaries and part headers: 256 KiB) counts what
/// is not the parts' contents, so a file near the challenge's limit, sent chunked as fast as
/// loopback goes, is read to its end and taken.
#[tokio::test]
async fn a_file_near_the_limit_sent_chunked_is_taken() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("big", "val", false).await;
    let (_, token) = app.team("big", "Owls").await;
    let mut file = demo_results(true);
    let end = file.iter().rposition(|&b| b == b']').expect("a JSON array");
    file.splice(end..end, std::iter::repeat_n(b' ', 19 * 1024 * 1024));
    let mut form = b"--B\r\nContent-Disposition: form-data; name=\"split\"\r\n\r\nval\r\n\
        --B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"r.json\"\r\n\r\n"
        .to_vec();
    form.extend_from_slice(&file);
    form.extend_from_slice(b"\r\n--B--\r\n");
    let mut body = Vec::new();
    for piece in form.chunks(1 << 20) {
        body.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
        body.extend_from_slice(piece);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(b"0\r\n\r\n");
    let (answer, _) = trickled(
        &app,
        &format!(
            "POST /api/c/big/submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: multipart/form-data; boundary=B\r\nTransfer-Encoding: chunked"
        ),
        &body,
        std::time::Duration::ZERO,
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 202"), "{answer}");
}

/// PostgreSQL refuses text with a NUL character; a request carrying one in a challenge's address,
/// a form field or an upload's split name was answered 500 and logged as the server's own error
/// (anyone could fill the error log). It is the request's fault: 404 or 400.
#[tokio::test]
async fn a_nul_character_anywhere_is_the_requests_fault_not_the_servers() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("nul", "val", false).await;
    let (_, token) = app.team("nul", "Owls").await;
    let owl = app.member("nul", "Owls", "owl@example.org").await;
    for path in [
        "/c/%00",
        "/c/nul%00/leaderboard",
        "/c/nul%00/compare?a=1&b=2",
    ] {
        let (status, body) = get(&client(), app.url(path)).await;
        assert_eq!(status, 404, "{path}: {body}");
    }
    let csrf = app.csrf("/login").await;
    let r = app
        .client
        .post(app.url("/login"))
        .form(&[
            ("email", "ann\0@example.org"),
            ("password", "a long password"),
            ("csrf", csrf.as_str()),
        ])
        .send()
        .await
        .expect("POST /login");
    assert_eq!(r.status(), 400, "login");
    let csrf = app.csrf_of(&owl, "/c/nul").await;
    let r = owl
        .post(app.url("/c/nul/tokens"))
        .form(&[("label", "ci\0"), ("csrf", csrf.as_str())])
        .send()
        .await
        .expect("POST token");
    assert_eq!(r.status(), 400, "token label");
    let form = reqwest::multipart::Form::new().text("split", "val\0").part(
        "file",
        reqwest::multipart::Part::bytes(demo_results(true)).file_name("results.json"),
    );
    let r = reqwest::Client::new()
        .post(app.url("/api/c/nul/submissions"))
        .bearer_auth(&token)
        .multipart(form)
        .send()
        .await
        .expect("upload");
    let status = r.status().as_u16();
    let body = r.text().await.expect("body");
    assert!(
        status == 400 && !body.contains("database error"),
        "{status} {body}"
    );
}

/// A split is hidden by name: its references are the test set whatever their version. A split
/// first imported public (by mistake, or as a dev phase) and then hidden, by importing a new
/// version hidden or with the organizer's Hide button, kept showing the per-image results and
/// reference captions of the submissions made to its earlier version.
#[tokio::test]
async fn hiding_a_split_hides_the_per_image_results_of_its_earlier_versions() {
    let app = spawn_app_with(1, |_| {}).await;
    for slug in ["reimport", "button"] {
        let challenge = app.challenge_with_split(slug, "val", false).await;
        let owls = member_with_team(&app, slug, &format!("ann@{slug}.org"), "Owls").await;
        let id = upload(&app, &owls, slug, true).await;
        app.assert_scored(id).await;
        let image: i64 = sqlx::query_scalar(
            "SELECT image_id FROM image_results WHERE submission_id = $1 LIMIT 1",
        )
        .bind(id)
        .fetch_one(&app.pool)
        .await
        .expect("an image");
        let image_page = app.url(&format!("/s/{id}/images/{image}"));
        assert_eq!(
            get(&owls, image_page.clone()).await.0,
            200,
            "public at first"
        );
        // A new version: hidden from the start, or public and then hidden by the organizer.
        spiceboard::actions::import_references(
            &app.pool,
            &app.engine,
            &challenge,
            &spiceboard::domain::SplitName::parse("val").expect("name"),
            crate::helpers::demo_references(),
            spiceboard::actions::ImportMode {
                hidden: slug == "reimport",
                replace: true,
                rescore_with_attempts: None,
            },
        )
        .await
        .expect("import again");
        if slug == "button" {
            let current = spiceboard::actions::split(&app.pool, &challenge, "val")
                .await
                .expect("split");
            assert!(!current.hidden);
            spiceboard::storage::splits::set_hidden(&app.pool, current.id, true)
                .await
                .expect("hide");
        }
        let (status, body) = get(&owls, image_page).await;
        assert_eq!(status, 404, "{slug}: the image page of version 1: {body}");
        let (status, body) = get(&owls, app.url(&format!("/s/{id}"))).await;
        assert_eq!(status, 200);
        assert!(
            !body.contains("/images/"),
            "{slug}: the per-image table of version 1"
        );
    }
}

/// A log line written while the request log's span is open (`spiceboard::telemetry::RequestSpan`).
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("log buffer").extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Invite codes are shown to the team's members only, but they travel in addresses, and every
/// line logged during a request carried its full target (a join refused with 400 logs the valid
/// code; at debug level every query of the request does): whoever read the log could join the
/// team. The request log shows the target with the code replaced.
#[test]
fn invite_codes_stay_out_of_the_request_log() {
    use tracing_actix_web::RootSpanBuilder;
    let code = "0123456789abcdef".repeat(4);
    let buffer = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || Captured(writer.clone()))
        .with_ansi(false)
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        let request = actix_web::test::TestRequest::post()
            .uri(&format!(
                "/c/owls/join/{code}?next=%2Fc%2Fowls%2Fjoin%2F{code}"
            ))
            .to_srv_request();
        let span = spiceboard::telemetry::RequestSpan::on_request_start(&request);
        let _inside = span.enter();
        tracing::warn!("a refusal inside the request");
    });
    let log = String::from_utf8(buffer.lock().expect("log buffer").clone()).expect("text");
    assert!(log.contains("/c/owls/join/"), "{log}");
    assert!(!log.contains(&code), "{log}");
    assert!(!log.contains(&code[..32]), "{log}");
}

/// The page of one image of a submission read every reference image of the split, scene graphs
/// and all, to pick out the captions of that one image: for a COCO-sized split some hundred
/// megabytes from the database, decoded into memory, per view, and anyone may view the image
/// pages of a public split's baseline (a team those of its own submissions). A few views at once
/// could take the server's memory and the database's time. The page reads its own image's
/// references only (`splits::captions_of_image`, one row by primary key); this checks that it
/// still shows exactly those among many other images' (on the old code the page took 1.2 s here;
/// timings are for benchmarks, not tests).
#[tokio::test]
async fn an_image_page_shows_its_own_references_read_alone() {
    let app = spawn_app_with(1, |_| {}).await;
    let challenge = app.challenge_with_split("wide", "val", false).await;
    let owls = member_with_team(&app, "wide", "ann@wide.org", "Owls").await;
    let id = upload(&app, &owls, "wide", true).await;
    app.assert_scored(id).await;
    let (image, captions): (i64, serde_json::Value) = sqlx::query_as(
        "SELECT r.image_id, ri.captions FROM image_results r
         JOIN submissions s ON s.id = r.submission_id
         JOIN reference_images ri ON ri.split_id = s.split_id AND ri.image_id = r.image_id
         WHERE r.submission_id = $1 LIMIT 1",
    )
    .bind(id)
    .fetch_one(&app.pool)
    .await
    .expect("an image");
    let reference = captions[0].as_str().expect("a caption").to_string();
    // The split grows by 500 images with a megabyte of stored graph each (none of them this one).
    let split = spiceboard::actions::split(&app.pool, &challenge, "val")
        .await
        .expect("split");
    sqlx::query(
        "INSERT INTO reference_images (split_id, image_id, captions, scene_graph)
         SELECT $1, 1000000 + g, '[\"a padding caption\"]'::JSONB,
                json_build_object('pad', repeat(md5(g::TEXT), 32768))
         FROM generate_series(1, 500) g",
    )
    .bind(split.id)
    .execute(&app.pool)
    .await
    .expect("padding");
    let (status, body) = get(&owls, app.url(&format!("/s/{id}/images/{image}"))).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains(&crate::helpers::escaped(&reference)),
        "{body}"
    );
    assert!(!body.contains("a padding caption"));
    // An image of the split that the submission has no result for has no page here.
    let (status, body) = get(&owls, app.url(&format!("/s/{id}/images/1000001"))).await;
    assert_eq!(status, 404, "{body}");
    assert!(!body.contains("a padding caption"), "{body}");
}
