//! The leaderboard: one entry per team, sorting by any column, ties ranked alike, hidden splits,
//! baseline and Human rows, and the CSV/JSON exports. Ranking tests put aggregate rows in the
//! database directly (they test the query and the ranking); the last test runs the engine.

use crate::helpers::{demo_results, fake_aggregates, spawn_app_with, TestApp};
use spiceboard::actions::{self, Uploader};

async fn board(app: &TestApp, client: &reqwest::Client, query: &str) -> serde_json::Value {
    client
        .get(app.url(&format!("/c/lb/leaderboard.json?{query}")))
        .send()
        .await
        .expect("GET")
        .json()
        .await
        .expect("json")
}

fn names_and_ranks(b: &serde_json::Value) -> Vec<(u64, String)> {
    b["entries"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| {
                    (
                        e["rank"].as_u64().unwrap_or(0),
                        e["name"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

async fn setup(hidden: bool) -> (TestApp, Vec<(i64, String)>) {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("lb", "val", hidden).await;
    let mut teams = Vec::new();
    for name in ["Owls", "Foxes", "Bears"] {
        teams.push(app.team("lb", name).await);
    }
    (app, teams)
}

#[tokio::test]
async fn entries_rank_by_any_column_with_ties_sharing_a_rank() {
    let (app, teams) = setup(false).await;
    let scores = [
        [
            Some(0.20),
            Some(0.5),
            Some(0.1),
            Some(0.1),
            Some(0.1),
            Some(0.1),
            None,
        ],
        [
            Some(0.20),
            Some(0.3),
            Some(0.1),
            Some(0.1),
            Some(0.1),
            Some(0.1),
            None,
        ],
        [
            Some(0.10),
            Some(0.9),
            Some(0.1),
            Some(0.1),
            Some(0.1),
            Some(0.1),
            None,
        ],
    ];
    for ((_, token), f) in teams.iter().zip(scores) {
        let id = app.submit("lb", token, "val", demo_results(true)).await;
        fake_aggregates(&app.pool, id, f).await;
    }
    let anon = reqwest::Client::new();
    let b = board(&app, &anon, "split=val").await;
    assert_eq!(
        names_and_ranks(&b),
        vec![(1, "Foxes".into()), (1, "Owls".into()), (3, "Bears".into())]
    );
    let b = board(&app, &anon, "split=val&sort=object").await;
    assert_eq!(
        names_and_ranks(&b),
        vec![(1, "Bears".into()), (2, "Owls".into()), (3, "Foxes".into())]
    );
    assert_eq!(b["sort"], "object");
    assert!(
        b["entries"][0]["size"].is_null(),
        "an undefined score is null"
    );

    let csv = anon
        .get(app.url("/c/lb/leaderboard.csv?split=val"))
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("body");
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("rank,kind,name,submission_id,spice,object,relation,attribute,color,count,size,bleu_4,meteor,rouge_l,cider_d,scored_at"));
    let first: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    assert_eq!(&first[..3], &["1", "team", "Foxes"]);
    assert_eq!(first[4], "0.200000");
    assert_eq!(first[10], "", "missing values are empty cells");

    // The HTML page has the paper's columns and the ranks.
    let html = anon
        .get(app.url("/c/lb/leaderboard?split=val&sort=object"))
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("body");
    for col in [
        "SPICE",
        "Object",
        "Relation",
        "Attribute",
        "Color",
        "Count",
        "Size",
    ] {
        assert!(
            html.contains(&format!(">{col}</a></th>")),
            "column {col} missing"
        );
    }
}

#[tokio::test]
async fn one_entry_per_team_the_latest_unless_the_team_chooses() {
    let (app, teams) = setup(false).await;
    let (team_id, token) = &teams[0];
    let first = app.submit("lb", token, "val", demo_results(true)).await;
    fake_aggregates(&app.pool, first, [Some(0.3); 7]).await;
    let second = app.submit("lb", token, "val", demo_results(false)).await;
    fake_aggregates(&app.pool, second, [Some(0.1); 7]).await;
    let anon = reqwest::Client::new();
    let b = board(&app, &anon, "").await;
    assert_eq!(b["entries"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        b["entries"][0]["submission_id"], second,
        "latest by default"
    );
    let split_id: i64 = sqlx::query_scalar("SELECT split_id FROM submissions WHERE id = $1")
        .bind(first)
        .fetch_one(&app.pool)
        .await
        .expect("split");
    spiceboard::storage::submissions::choose_for_leaderboard(&app.pool, *team_id, split_id, first)
        .await
        .expect("choose");
    let b = board(&app, &anon, "").await;
    assert_eq!(b["entries"][0]["submission_id"], first, "the team's choice");
    // A soft-deleted choice falls back to the latest.
    spiceboard::storage::submissions::soft_delete(&app.pool, first)
        .await
        .expect("delete");
    let b = board(&app, &anon, "").await;
    assert_eq!(b["entries"][0]["submission_id"], second);
}

#[tokio::test]
async fn hidden_splits_show_each_team_only_its_own_entry_until_revealed() {
    let (app, teams) = setup(true).await;
    for ((_, token), f) in teams.iter().zip([0.3, 0.2, 0.1]) {
        let id = app.submit("lb", token, "val", demo_results(true)).await;
        fake_aggregates(&app.pool, id, [Some(f); 7]).await;
    }
    let anon = reqwest::Client::new();
    assert_eq!(
        board(&app, &anon, "split=val").await["entries"]
            .as_array()
            .map(Vec::len),
        Some(0)
    );
    let as_foxes: serde_json::Value = reqwest::Client::new()
        .get(app.url("/c/lb/leaderboard.json?split=val"))
        .bearer_auth(&teams[1].1)
        .send()
        .await
        .expect("GET")
        .json()
        .await
        .expect("json");
    assert_eq!(names_and_ranks(&as_foxes), vec![(1, "Foxes".into())]);
    app.log_in_as_organizer().await;
    assert_eq!(
        board(&app, &app.client, "split=val").await["entries"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );
    let c = actions::challenge(&app.pool, "lb")
        .await
        .expect("challenge");
    let split = actions::split(&app.pool, &c, "val").await.expect("split");
    spiceboard::storage::splits::set_hidden(&app.pool, split.id, false)
        .await
        .expect("reveal");
    assert_eq!(
        board(&app, &anon, "split=val").await["entries"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );
}

#[tokio::test]
async fn baseline_and_human_rows_are_marked() {
    let (app, teams) = setup(false).await;
    let c = actions::challenge(&app.pool, "lb")
        .await
        .expect("challenge");
    let split = actions::split(&app.pool, &c, "val").await.expect("split");
    let baseline = actions::submit(
        &app.pool,
        &c,
        &split,
        Uploader::Baseline {
            label: "Nearest neighbour",
            user_id: None,
        },
        "",
        demo_results(false),
        actions::SubmitLimits {
            max_caption_chars: 1000,
            max_attempts: 3,
            disk_floor: None,
        },
    )
    .await
    .expect("baseline");
    fake_aggregates(&app.pool, baseline.id, [Some(0.05); 7]).await;
    let team = app
        .submit("lb", &teams[0].1, "val", demo_results(true))
        .await;
    fake_aggregates(&app.pool, team, [Some(0.15); 7]).await;
    let human = actions::compute_human(&app.pool, &split, 3)
        .await
        .expect("human row");
    let mut settings = app.settings.worker.clone();
    settings.lease_seconds = 60;
    while spiceboard::jobs::run_once("w", &app.pool, &app.engine, &settings)
        .await
        .expect("run")
    {}
    let b = board(&app, &reqwest::Client::new(), "").await;
    let kinds: Vec<(String, String)> = b["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap_or("").to_string(),
                e["name"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert!(kinds.contains(&("baseline".into(), "Nearest neighbour".into())));
    assert!(kinds.contains(&("team".into(), "Owls".into())));
    let (status, error): (String, Option<String>) =
        sqlx::query_as("SELECT status, error FROM submissions WHERE id = $1")
            .bind(human.id)
            .fetch_one(&app.pool)
            .await
            .expect("row");
    {
        assert_eq!(status, "scored", "{error:?}");
        assert!(
            kinds.contains(&("human".into(), "Human".into())),
            "{kinds:?}"
        );
        let images: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM image_results WHERE submission_id = $1")
                .bind(human.id)
                .fetch_one(&app.pool)
                .await
                .expect("rows");
        assert_eq!(
            images, 20,
            "every image has three references, so each is in the Human row"
        );
    }
    let html = reqwest::Client::new()
        .get(app.url("/c/lb/leaderboard"))
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("body");
    assert!(
        html.contains("<tr class=\"baseline\">")
            && html.contains("<span class=\"tag\">baseline</span>")
    );
}

#[tokio::test]
async fn an_upload_reaches_the_leaderboard_with_engine_scores() {
    let app = spawn_app_with(1, |_| {}).await;
    app.challenge_with_split("lb", "val", false).await;
    let (_, token) = app.team("lb", "Owls").await;
    let good = app.submit("lb", &token, "val", demo_results(true)).await;
    app.assert_scored(good).await;
    let b = board(&app, &reqwest::Client::new(), "").await;
    {
        let e = &b["entries"][0];
        assert_eq!(e["name"], "Owls");
        let spice = e["spice"].as_f64().expect("a SPICE score");
        assert!(spice > 0.0 && spice <= 1.0, "{e}");
        assert!(
            e["cider_d"].as_f64().is_some() && e["bleu_4"].as_f64().is_some(),
            "{e}"
        );
        // METEOR where its data is installed (scripts/fetch-data), else left out.
        if spice::metrics::meteor::Meteor::shared().is_ok() {
            let meteor = e["meteor"].as_f64().expect("a METEOR score");
            assert!(meteor > 0.0 && meteor <= 1.0, "{e}");
        } else {
            assert!(e["meteor"].is_null(), "{e}");
        }
    }
}
