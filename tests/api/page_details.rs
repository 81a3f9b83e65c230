//! The details a team meets on the pages: the upload snippet with the real address and split, the
//! token list, metric names as the leaderboard writes them, per-image previous/next, and each
//! row's entry count and date.

use crate::helpers::{demo_results, fake_aggregates, fresh, spawn_app, TestApp};

async fn text(browser: &reqwest::Client, url: &str) -> (u16, String) {
    let r = browser.get(url).send().await.expect("GET");
    let status = r.status().as_u16();
    (status, r.text().await.expect("body"))
}

/// Owls (with a logged-in member) and Bats on challenge `pd`, split `val`.
async fn two_teams(app: &TestApp) -> (reqwest::Client, String, String) {
    app.challenge_with_split("pd", "val", false).await;
    let (_, owls) = app.team("pd", "Owls").await;
    let (_, bats) = app.team("pd", "Bats").await;
    let owl = app.member("pd", "Owls", "owl@example.org").await;
    (owl, owls, bats)
}

#[tokio::test]
async fn the_challenge_page_gives_a_snippet_that_runs_and_lists_the_tokens() {
    let app = spawn_app().await;
    let (owl, _, _) = two_teams(&app).await;
    let (_, html) = text(&owl, &app.url("/c/pd")).await;
    let snippet = format!(
        "-F split=val -F description=\"what this run is\" -F file=@results.json {}/api/c/pd/submissions</pre>",
        app.address
    );
    assert!(html.contains(&snippet), "{html}");
    assert!(
        !html.contains("split=SPLIT") && !html.contains(" URL/api"),
        "{html}"
    );
    // The team's one token (made with the team), listed with a Revoke button.
    assert!(
        html.contains("1 active API token (revoke any you no longer use)."),
        "{html}"
    );
    assert!(
        html.contains("id=\"tokens\"") && html.contains(">Revoke</button>"),
        "{html}"
    );
    assert!(
        html.contains(" UTC</td>"),
        "token times carry their zone: {html}"
    );
}

#[tokio::test]
async fn pages_name_metrics_alike_and_the_image_page_walks_worst_first() {
    let app = spawn_app().await;
    let (owl, owls, _) = two_teams(&app).await;
    let id = app.submit("pd", &owls, "val", demo_results(true)).await;
    app.assert_scored(id).await;

    let (_, page) = text(&owl, &app.url(&format!("/s/{id}"))).await;
    for name in ["BLEU-1", "BLEU-4", "ROUGE-L", "CIDEr-D"] {
        assert!(page.contains(&format!("<th>{name}</th>")), "{name}: {page}");
    }
    for raw in ["Bleu_4", "ROUGE_L", "<th>CIDEr</th>"] {
        assert!(!page.contains(raw), "{raw}: {page}");
    }
    let classic: serde_json::Value =
        sqlx::query_scalar("SELECT details FROM classic_scores WHERE submission_id = $1")
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .expect("classic");
    let meteor = classic.get("METEOR").and_then(|v| v.as_f64()).is_some();
    assert_eq!(
        page.contains("<th>METEOR</th>"),
        meteor,
        "METEOR only when computed: {page}"
    );
    let (_, board) = text(&owl, &app.url("/c/pd/leaderboard")).await;
    assert_eq!(
        board.contains("<abbr title=\"METEOR\">MET.</abbr></a></th>"),
        meteor,
        "{board}"
    );

    // Worst first, as the submission page lists them.
    let order: Vec<i64> = sqlx::query_scalar(
        "SELECT image_id FROM image_results WHERE submission_id = $1 ORDER BY spice_f, image_id",
    )
    .bind(id)
    .fetch_all(&app.pool)
    .await
    .expect("order");
    let (_, first) = text(&owl, &app.url(&format!("/s/{id}/images/{}", order[0]))).await;
    assert!(first.contains("image 1 of 20, worst first"), "{first}");
    assert!(!first.contains("id=\"previous\""), "{first}");
    assert!(
        first.contains(&format!("href=\"/s/{id}/images/{}\" id=\"next\"", order[1])),
        "{first}"
    );
    let (_, middle) = text(&owl, &app.url(&format!("/s/{id}/images/{}", order[5]))).await;
    assert!(middle.contains("image 6 of 20, worst first"), "{middle}");
    assert!(
        middle.contains(&format!(
            "href=\"/s/{id}/images/{}\" id=\"previous\"",
            order[4]
        )),
        "{middle}"
    );
    assert!(
        middle.contains(&format!("href=\"/s/{id}/images/{}\" id=\"next\"", order[6])),
        "{middle}"
    );
    let (_, last) = text(&owl, &app.url(&format!("/s/{id}/images/{}", order[19]))).await;
    assert!(!last.contains("id=\"next\""), "{last}");
}

#[tokio::test]
async fn every_row_shows_its_entry_count_and_date_and_the_table_scrolls_on_a_phone() {
    let app = spawn_app_with_no_workers().await;
    let (owl, owls, bats) = two_teams(&app).await;
    for (token, spice) in [(&owls, 0.2), (&owls, 0.1), (&owls, 0.15), (&bats, 0.3)] {
        let id = app
            .submit("pd", token, "val", fresh(demo_results(true)))
            .await;
        fake_aggregates(&app.pool, id, [Some(spice); 7]).await;
    }
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    // Another team's row, seen by an Owl: Bats have one entry, Owls three.
    let (_, board) = text(&owl, &app.url("/c/pd/leaderboard")).await;
    assert!(
        board.contains("<div class=\"scroll\" tabindex=\"0\""),
        "{board}"
    );
    assert!(
        board.contains("<abbr title=\"Scored (UTC): the day the entry was scored\">Scored</abbr>"),
        "{board}"
    );
    let row = |name: &str| {
        let start = board
            .find(&format!(">{name}"))
            .unwrap_or_else(|| panic!("{name}: {board}"));
        let end = start + board[start..].find("</tr>").unwrap_or(0);
        board[start..end].to_string()
    };
    assert!(
        row("Bats").contains(&format!(
            "<td class=\"num entries\">1</td><td class=\"date\">{today}</td>"
        )),
        "{board}"
    );
    assert!(
        row("Owls").contains(&format!(
            "<td class=\"num entries\">3</td><td class=\"date\">{today}</td>"
        )),
        "{board}"
    );
    let json: serde_json::Value = reqwest::get(app.url("/c/pd/leaderboard.json"))
        .await
        .expect("GET")
        .json()
        .await
        .expect("JSON");
    assert_eq!(json["entries"][0]["name"], "Bats");
    assert_eq!(json["entries"][0]["entries"], 1);
    assert_eq!(json["entries"][1]["entries"], 3);
}

async fn spawn_app_with_no_workers() -> TestApp {
    crate::helpers::spawn_app_with(0, |_| {}).await
}
