//! The leaderboard: one entry per team, sorting by any column, ties ranked alike, hidden splits,
//! baseline and Human rows, and the CSV/JSON exports. Ranking tests put aggregate rows in the
//! database directly (they test the query and the ranking); the last test runs the engine.

use crate::helpers::{demo_results, fake_aggregates, fresh, spawn_app_with, TestApp};
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
        let id = app
            .submit("lb", token, "val", fresh(demo_results(true)))
            .await;
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
    assert_eq!(lines.next(), Some("rank,kind,name,submission_id,spice,object,relation,attribute,color,count,size,bleu_4,meteor,rouge_l,cider_d,scored_at,front_end,method_name,paper_url,code_url"));
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
            html.contains(&format!("<abbr title=\"{col}\">")),
            "column {col} missing"
        );
    }
}

/// The organizer (logged in on `app.client`) sets the challenge's entry policy.
async fn set_policy(app: &TestApp, policy: &str) {
    let csrf = app.csrf("/admin/c/lb").await;
    let r = app
        .client
        .post(app.url("/admin/c/lb/entry-policy"))
        .form(&[("policy", policy), ("csrf", csrf.as_str())])
        .send()
        .await
        .expect("POST entry-policy");
    assert_eq!(r.status(), 303, "policy {policy} saved");
}

/// An upload through the API whose SPICE (and every other category) is `f`.
async fn entry_scoring(app: &TestApp, token: &str, f: f64) -> i64 {
    let id = app
        .submit("lb", token, "val", fresh(demo_results(true)))
        .await;
    fake_aggregates(&app.pool, id, [Some(f); 7]).await;
    id
}

#[tokio::test]
async fn a_worse_later_upload_does_not_replace_the_best_entry_unless_the_policy_is_latest() {
    let (app, teams) = setup(false).await;
    let (_, token) = &teams[0];
    let anon = reqwest::Client::new();
    let good = entry_scoring(&app, token, 0.3).await;
    let worse = entry_scoring(&app, token, 0.1).await;
    let b = board(&app, &anon, "").await;
    assert_eq!(
        b["entries"].as_array().map(Vec::len),
        Some(1),
        "one per team"
    );
    assert_eq!(
        b["entries"][0]["submission_id"], good,
        "the best by default"
    );

    // Teams read the policy in the challenge's rules.
    let rule = |html: &str| {
        let start = html.find("id=\"entry-policy\"").expect("the policy's rule");
        html[start..][..html[start..].find("</li>").expect("its end")].to_string()
    };
    let (_, html) = get_text(&anon, &app.url("/c/lb")).await;
    assert!(
        rule(&html).contains("its best by SPICE (a worse later upload does not replace it)"),
        "{}",
        rule(&html)
    );

    app.log_in_as_organizer().await;
    let (_, html) = get_text(&app.client, &app.url("/admin/c/lb")).await;
    assert!(
        html.contains("value=\"best\" checked"),
        "best is the default"
    );
    set_policy(&app, "latest").await;
    let b = board(&app, &anon, "").await;
    assert_eq!(b["entries"][0]["submission_id"], worse, "the latest");
    let (_, html) = get_text(&app.client, &app.url("/admin/c/lb")).await;
    assert!(html.contains("value=\"latest\" checked"));
    let (_, html) = get_text(&anon, &app.url("/c/lb")).await;
    assert!(
        rule(&html).contains("its most recent scored one"),
        "{}",
        rule(&html)
    );

    set_policy(&app, "best").await;
    let better = entry_scoring(&app, token, 0.5).await;
    let b = board(&app, &anon, "").await;
    assert_eq!(
        b["entries"][0]["submission_id"], better,
        "a better upload does"
    );
    // A deleted entry gives way to the best of the rest.
    spiceboard::storage::submissions::soft_delete(&app.pool, better)
        .await
        .expect("delete");
    let b = board(&app, &anon, "").await;
    assert_eq!(b["entries"][0]["submission_id"], good);

    // An unknown policy is refused and changes nothing.
    let csrf = app.csrf("/admin/c/lb").await;
    let r = app
        .client
        .post(app.url("/admin/c/lb/entry-policy"))
        .form(&[("policy", "random"), ("csrf", csrf.as_str())])
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 400);
    let b = board(&app, &anon, "").await;
    assert_eq!(b["entries"][0]["submission_id"], good);
}

async fn get_text(client: &reqwest::Client, url: &str) -> (u16, String) {
    let r = client.get(url).send().await.expect("GET");
    let status = r.status().as_u16();
    (status, r.text().await.expect("body"))
}

/// A member of team "Owls" (made by the CLI helper), logged in on a browser of its own.
async fn owls_member(app: &TestApp) -> reqwest::Client {
    let browser = crate::helpers::client();
    let csrf = app.csrf_of(&browser, "/signup").await;
    let r = browser
        .post(app.url("/signup"))
        .form(&[
            ("email", "owl@example.org"),
            ("password", "a long password"),
            ("csrf", csrf.as_str()),
        ])
        .send()
        .await
        .expect("POST /signup");
    assert_eq!(r.status(), 303);
    let c = actions::challenge(&app.pool, "lb")
        .await
        .expect("challenge");
    let owls = spiceboard::domain::TeamName::parse("Owls").expect("name");
    actions::add_member(&app.pool, &c, &owls, "owl@example.org")
        .await
        .expect("member");
    browser
}

#[tokio::test]
async fn under_chosen_the_teams_pick_stays_and_the_page_stops_offering_it() {
    let (app, teams) = setup(false).await;
    let (_, token) = &teams[0];
    let anon = reqwest::Client::new();
    let owl = owls_member(&app).await;
    app.log_in_as_organizer().await;
    set_policy(&app, "chosen").await;
    let (_, html) = get_text(&anon, &app.url("/c/lb")).await;
    assert!(
        html.contains("the one the team chooses on the submission's page"),
        "the rules say so"
    );
    let good = entry_scoring(&app, token, 0.3).await;
    let worse = entry_scoring(&app, token, 0.1).await;
    let b = board(&app, &anon, "").await;
    assert_eq!(
        b["entries"][0]["submission_id"], good,
        "the best until it chooses"
    );

    let button = |id: i64| format!("action=\"/s/{id}/choose\"");
    let (_, html) = get_text(&owl, &app.url(&format!("/s/{good}"))).await;
    assert!(html.contains("id=\"on-leaderboard\""), "{html}");
    assert!(!html.contains(&button(good)));
    let (_, html) = get_text(&owl, &app.url(&format!("/s/{worse}"))).await;
    assert!(html.contains(&button(worse)), "{html}");

    let csrf = app.csrf_of(&owl, &format!("/s/{worse}")).await;
    let r = owl
        .post(app.url(&format!("/s/{worse}/choose")))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .expect("POST choose");
    assert_eq!(r.status(), 303);
    let b = board(&app, &anon, "").await;
    assert_eq!(b["entries"][0]["submission_id"], worse, "the team's pick");
    // Chosen now: the page says so instead of offering the same button again.
    let (_, html) = get_text(&owl, &app.url(&format!("/s/{worse}"))).await;
    assert!(html.contains("id=\"on-leaderboard\""), "{html}");
    assert!(!html.contains(&button(worse)), "{html}");
    let (_, html) = get_text(&owl, &app.url(&format!("/s/{good}"))).await;
    assert!(html.contains(&button(good)));

    // A new upload, even a better one, does not replace the pick.
    let better = entry_scoring(&app, token, 0.5).await;
    let b = board(&app, &anon, "").await;
    assert_eq!(b["entries"][0]["submission_id"], worse);

    // The history: SPICE, status, the entry marked, and the quota left (3 of 10 and 200 used).
    let (_, html) = get_text(&owl, &app.url("/c/lb/submit")).await;
    let history = &html[html.find("id=\"history\"").expect("history table")..];
    let rows: Vec<&str> = history.split("<tr>").skip(2).collect();
    assert_eq!(rows.len(), 3, "{history}");
    for (row, (id, spice, entry)) in rows.iter().zip([
        (better, "0.500", false),
        (worse, "0.100", true),
        (good, "0.300", false),
    ]) {
        assert!(row.contains(&format!("/s/{id}\"")), "{row}");
        assert!(row.contains(spice), "{row}");
        assert!(row.contains("scored"), "{row}");
        assert_eq!(row.contains("on the leaderboard"), entry, "{row}");
    }
    assert!(
        html.contains("7 in the next 24 hours"),
        "{}",
        &html[html.find("id=\"quota\"").unwrap_or(0)..]
    );
    assert!(html.contains("197 in total"));

    // Where the policy is not `chosen`, there is nothing to choose.
    set_policy(&app, "best").await;
    let (_, html) = get_text(&owl, &app.url(&format!("/s/{good}"))).await;
    assert!(!html.contains(&button(good)));
    let csrf = app.csrf_of(&owl, &format!("/s/{good}")).await;
    let r = owl
        .post(app.url(&format!("/s/{good}/choose")))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .expect("POST choose");
    assert_eq!(r.status(), 400);
    let b = board(&app, &anon, "").await;
    assert_eq!(b["entries"][0]["submission_id"], better, "best again: 0.5");
}

#[tokio::test]
async fn hidden_splits_show_each_team_only_its_own_entry_until_revealed() {
    let (app, teams) = setup(true).await;
    for ((_, token), f) in teams.iter().zip([0.3, 0.2, 0.1]) {
        let id = app
            .submit("lb", token, "val", fresh(demo_results(true)))
            .await;
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
        &spiceboard::domain::SubmissionMethod::default(),
        demo_results(false),
        actions::SubmitLimits {
            max_caption_chars: 1000,
            parse_words_per_image:
                spiceboard::domain::results_file::ParseBudget::DEFAULT_WORDS_PER_IMAGE,
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

#[tokio::test]
async fn the_first_public_split_is_the_default_and_an_unknown_sort_key_is_refused() {
    let app = spawn_app_with(0, |_| {}).await;
    // "test" (hidden) sorts before "val" (public): the default is still "val".
    let c = app.challenge_with_split("lb", "test", true).await;
    actions::import_references(
        &app.pool,
        &app.engine,
        &c,
        &spiceboard::domain::SplitName::parse("val").expect("split"),
        crate::helpers::demo_references(),
        actions::ImportMode::default(),
    )
    .await
    .expect("import val");
    app.team("lb", "Owls").await;
    let owl = owls_member(&app).await;
    let (_, html) = get_text(&owl, &app.url("/c/lb/submit")).await;
    assert!(html.contains("<option value=\"val\" selected>"), "{html}");
    assert!(!html.contains("<option value=\"test\" selected>"), "{html}");
    // A small file limit reads as what it is, not "0.0 MB".
    spiceboard::storage::challenges::set_limits(&app.pool, c.id, Some(10), Some(200), 1000)
        .await
        .expect("limits");
    let (_, html) = get_text(&owl, &app.url("/c/lb/submit")).await;
    assert!(html.contains("at most 1000 bytes)"), "{html}");
    let anon = reqwest::Client::new();
    assert_eq!(board(&app, &anon, "").await["split"], "val");
    let (status, html) = get_text(&anon, &app.url("/c/lb/leaderboard")).await;
    assert_eq!(status, 200);
    assert!(html.contains("<strong>val</strong>"), "{html}");

    for path in ["leaderboard", "leaderboard.json", "leaderboard.csv"] {
        let (status, body) = get_text(&anon, &app.url(&format!("/c/lb/{path}?sort=bogus"))).await;
        assert_eq!(status, 400, "{path}");
        assert!(body.contains("unknown sort key"), "{body}");
        assert!(
            body.contains(
                "valid keys: spice, object, relation, attribute, color, count, size, bleu_4, \
                 meteor, rouge_l, cider_d"
            ),
            "{body}"
        );
        for fine in ["?sort=object", "?sort=", ""] {
            let (status, _) = get_text(&anon, &app.url(&format!("/c/lb/{path}{fine}"))).await;
            assert_eq!(status, 200, "{path}{fine}");
        }
    }
}

/// An undefined category (the engine's NaN, stored as NULL: the references have no tuple of the
/// kind) is shown as undefined with the reason, not as 0.000, while a real 0 stays 0.000 and its
/// tooltip says from the tuple counts whether nothing matched or there was nothing; the
/// viewer's own team's row is marked, for the eye and in words.
#[tokio::test]
async fn an_undefined_category_reads_as_undefined_and_your_teams_row_is_marked() {
    let (app, teams) = setup(false).await;
    // Owls: Size undefined; Foxes: Size a real 0.
    let owls = app
        .submit("lb", &teams[0].1, "val", fresh(demo_results(true)))
        .await;
    fake_aggregates(
        &app.pool,
        owls,
        [
            Some(0.2),
            Some(0.4),
            Some(0.1),
            Some(0.1),
            Some(0.1),
            Some(0.1),
            None,
        ],
    )
    .await;
    let foxes = app
        .submit("lb", &teams[1].1, "val", fresh(demo_results(true)))
        .await;
    fake_aggregates(
        &app.pool,
        foxes,
        [
            Some(0.1),
            Some(0.3),
            Some(0.1),
            Some(0.1),
            Some(0.1),
            Some(0.1),
            Some(0.0),
        ],
    )
    .await;
    let owl = owls_member(&app).await;
    let (status, html) = get_text(&owl, &app.url("/c/lb/leaderboard")).await;
    assert_eq!(status, 200);
    let row = |name: &str| {
        let at = html
            .find(&format!(">{name}"))
            .unwrap_or_else(|| panic!("{name}: {html}"));
        let start = html[..at].rfind("<tr").unwrap_or(0);
        let end = at + html[at..].find("</tr>").unwrap_or(0);
        html[start..end].to_string()
    };
    let (owls_row, foxes_row) = (row("Owls"), row("Foxes"));
    assert!(
        owls_row.starts_with("<tr class=\"team own\">")
            && owls_row.contains("<span class=\"tag you\">your team</span>"),
        "{owls_row}"
    );
    assert!(
        foxes_row.starts_with("<tr class=\"team\">") && !foxes_row.contains("your team"),
        "{foxes_row}"
    );
    // The seventh score column is Size.
    let cells = |row: &str| -> Vec<String> {
        row.split("<td class=\"num")
            .skip(2) // before the first cell, the interval
            .take(7)
            .map(|c| c.split("</td>").next().unwrap_or("").to_string())
            .collect()
    };
    let size = &cells(&owls_row)[6];
    assert!(
        size.starts_with(
            " undefined\" title=\"undefined, not 0: the references have no size tuples"
        ) && size.contains(
            "<span aria-hidden=\"true\">–</span><span class=\"sr-only\">undefined</span>"
        ) && !size.contains("0.000"),
        "{size}"
    );
    // A real 0 stays 0.000, and says which kind of 0 (these counts are all 0: no tuples).
    assert_eq!(
        cells(&foxes_row)[6],
        " zero\" title=\"0, a real score: the captions gave no size tuples, the references have some\">0.000"
    );
    assert!(html.contains("id=\"legend\"") && html.contains("undefined, not zero"));
    // Signed out, nobody's row is marked.
    let (_, anon) = get_text(&reqwest::Client::new(), &app.url("/c/lb/leaderboard")).await;
    assert!(
        !anon.contains("your team") && !anon.contains(" own\""),
        "{anon}"
    );
}
