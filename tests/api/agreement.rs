//! Human judgments and the metric agreement page (issue 14, part 3), on a real server and
//! database.
//!
//! The judgments are made up so that the answer is known:
//! - caption level: every judged caption's rating is its own SPICE score (times 10), so the
//!   ratings follow SPICE's order exactly, ties included: Kendall tau-b and Spearman are 1 for
//!   SPICE, in every bootstrap resample too;
//! - entry level: three entries whose ratings are their Object scores (times 10) and whose SPICE
//!   runs the other way, linearly: Pearson r is 1 for Object and -1 for SPICE.

use spiceboard::actions;
use spiceboard::domain::judgments::CaptionJudgment;
use spiceboard::domain::CaptionMode;
use spiceboard::storage::splits;

use crate::helpers::{
    assert_accessible_chart, chart, chart_desc, chart_marks, demo_references, demo_results,
    escaped, fake_aggregates, fresh, spawn_app_with, TestApp,
};

/// Three captions of each of the first six demo images: its first reference, the first three
/// words of it, and a word that matches nothing.
fn judged_captions() -> Vec<(i64, String)> {
    let refs: serde_json::Value =
        serde_json::from_slice(&demo_references()).expect("the demo references are JSON");
    let mut firsts: Vec<(i64, String)> = Vec::new();
    for a in refs["annotations"].as_array().expect("annotations") {
        let id = a["image_id"].as_i64().expect("an image id");
        if !firsts.iter().any(|(i, _)| *i == id) {
            firsts.push((id, a["caption"].as_str().expect("a caption").to_string()));
        }
    }
    firsts
        .into_iter()
        .take(6)
        .flat_map(|(id, c)| {
            let short: String = c.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
            [(id, c), (id, short), (id, "xylophone".to_string())]
        })
        .collect()
}

/// The JSON-lines file whose ratings are the captions' SPICE scores (x 10), computed by the
/// server's own scoring of judged captions against split `split` of challenge `slug`.
async fn ratings_following_spice(app: &TestApp, slug: &str, split: &str) -> Vec<u8> {
    let c = actions::challenge(&app.pool, slug)
        .await
        .expect("challenge");
    let s = actions::split(&app.pool, &c, split).await.expect("split");
    let refs = splits::references(&app.pool, s.id)
        .await
        .expect("references");
    let captions: Vec<CaptionJudgment> = judged_captions()
        .into_iter()
        .enumerate()
        .map(|(k, (image_id, caption))| CaptionJudgment {
            line: k as i32 + 1,
            image_id,
            caption,
            ratings: vec![1.0],
        })
        .collect();
    let df = spiceboard::scoring::stored_cider_df(&refs);
    let scores = spiceboard::scoring::judged_caption_scores(
        &app.engine,
        &refs,
        &captions,
        CaptionMode::Coco,
        &df,
    )
    .expect("scores");
    let spice = &scores[0].1;
    assert_eq!(scores[0].0.name(), "spice");
    // The data must not be degenerate: the exact captions score above the others.
    assert!(
        spice[0] > spice[1] && spice[1] >= spice[2] && spice[2] == 0.0,
        "{spice:?}"
    );
    let mut out = String::new();
    for (c, s) in captions.iter().zip(spice) {
        // Two equal ratings for some captions: each score is paired with each rating.
        let ratings = if c.line % 2 == 0 {
            vec![s * 10.0, s * 10.0]
        } else {
            vec![s * 10.0]
        };
        out.push_str(
            &serde_json::json!({"image_id": c.image_id, "caption": c.caption, "ratings": ratings})
                .to_string(),
        );
        out.push('\n');
    }
    out.into_bytes()
}

/// Uploads judgments through the organizer page's form as `browser`.
async fn upload(
    app: &TestApp,
    browser: &reqwest::Client,
    slug: &str,
    split: &str,
    file: Vec<u8>,
) -> (u16, String) {
    let csrf = app.csrf_of(browser, &format!("/admin/c/{slug}")).await;
    let form = reqwest::multipart::Form::new()
        .text("csrf", csrf)
        .text("split", split.to_string())
        .part(
            "file",
            reqwest::multipart::Part::bytes(file).file_name("judgments.jsonl"),
        );
    let r = browser
        .post(app.url(&format!("/admin/c/{slug}/judgments")))
        .multipart(form)
        .send()
        .await
        .expect("POST judgments");
    let status = r.status().as_u16();
    let location = r
        .headers()
        .get("location")
        .and_then(|l| l.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let body = r.text().await.expect("body");
    (status, if status == 303 { location } else { body })
}

async fn get(app: &TestApp, browser: &reqwest::Client, path: &str) -> (u16, String) {
    let r = browser.get(app.url(path)).send().await.expect("GET");
    let status = r.status().as_u16();
    (status, r.text().await.expect("body"))
}

/// The stored row of `metric` in the agreement JSON.
fn row<'a>(agreement: &'a serde_json::Value, metric: &str) -> &'a serde_json::Value {
    agreement["agreement"]["rows"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["metric"] == metric))
        .unwrap_or_else(|| panic!("no row {metric}: {agreement}"))
}

#[tokio::test]
async fn ratings_that_follow_spice_give_it_tau_b_one_on_the_agreement_page() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("ag", "val", false).await;
    app.log_in_as_organizer().await;
    let file = ratings_following_spice(&app, "ag", "val").await;
    let (status, location) = upload(&app, &app.client, "ag", "val", file).await;
    assert_eq!(status, 303, "{location}");
    assert_eq!(location, "/admin/c/ag");
    let (_, page) = get(&app, &app.client, &location).await;
    assert!(page.contains("18 captions"), "{page}");

    // Anyone sees a public split's table.
    let anon = reqwest::Client::new();
    let (status, body) = get(&app, &anon, "/c/ag/agreement.json?split=val").await;
    assert_eq!(status, 200, "{body}");
    let a: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(a["agreement"]["caption_judgments"], 18);
    assert_eq!(a["agreement"]["ratings"], 27);
    let spice = row(&a, "spice");
    let one = |v: &serde_json::Value| v.as_f64().is_some_and(|x| (x - 1.0).abs() < 1e-9);
    assert!(one(&spice["tau_b"]["value"]), "{spice}");
    assert!(
        one(&spice["tau_b"]["ci"][0]) && one(&spice["tau_b"]["ci"][1]),
        "{spice}"
    );
    assert!(one(&spice["spearman"]["value"]), "{spice}");
    assert_eq!(spice["pairs"], 27);
    assert!(
        spice["pearson_system"].is_null(),
        "no entry judgments: {spice}"
    );
    // The other columns were computed too, and agree less than perfectly or as well.
    let cider = row(&a, "cider_d");
    assert!(cider["tau_b"]["value"].as_f64() <= Some(1.0), "{cider}");
    row(&a, "bleu_4");

    let (status, html) = get(&app, &anon, "/c/ag/agreement?split=val").await;
    assert_eq!(status, 200);
    assert!(html.contains("metric agreement"), "{html}");
    assert!(
        html.contains("id=\"agreement-spice\" class=\"active\""),
        "{html}"
    );
    assert!(html.contains("1.000 [1.000, 1.000]"), "{html}");
    assert!(
        html.contains("18 judged captions with 27 ratings"),
        "{html}"
    );
    // Linked from the leaderboard and the organizer page, which shows the table too.
    let (_, board) = get(&app, &anon, "/c/ag/leaderboard?split=val").await;
    assert!(board.contains("/c/ag/agreement?split=val"), "{board}");
    let (_, admin) = get(&app, &app.client, "/admin/c/ag").await;
    assert!(admin.contains("id=\"agreement-spice\""), "{admin}");
    assert!(admin.contains("id=\"ranking-metric\""), "{admin}");
}

/// Beside the table, a scatter plot per column: every (caption, rating) pair the column's τ and
/// ρ correlate, its description quoting them. Judgments stored before their scores were kept
/// get no plots, and the page says how to have them.
#[tokio::test]
async fn the_agreement_page_plots_each_columns_scores_against_the_ratings() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("ag", "val", false).await;
    app.log_in_as_organizer().await;
    let file = ratings_following_spice(&app, "ag", "val").await;
    let (status, location) = upload(&app, &app.client, "ag", "val", file).await;
    assert_eq!(status, 303, "{location}");
    let anon = reqwest::Client::new();
    let (_, body) = get(&app, &anon, "/c/ag/agreement.json?split=val").await;
    let a: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    let (status, html) = get(&app, &anon, "/c/ag/agreement?split=val").await;
    assert_eq!(status, 200);
    let rows = a["agreement"]["rows"].as_array().expect("rows");
    assert!(rows.len() >= 9, "{a}");
    assert_eq!(html.matches("role=\"img\"").count(), rows.len(), "{html}");
    for r in rows {
        let key = r["metric"].as_str().expect("metric");
        let svg = chart(&html, &format!("scatter-{key}"));
        let n = chart_marks(svg, "point");
        assert_eq!(
            n.iter().sum::<usize>() as u64,
            r["pairs"].as_u64().expect("pairs"),
            "{key}: {svg}"
        );
    }
    let svg = chart(&html, "scatter-spice");
    assert_accessible_chart(svg, "scatter-spice", "SPICE against human ratings");
    let desc = chart_desc(svg);
    assert!(
        desc.starts_with("27 (caption, rating) pairs: SPICE from 0.000 to "),
        "{desc}"
    );
    // The table's own figures, quoted.
    let row = &html[html.find("id=\"agreement-spice\"").expect("the SPICE row")..];
    let tau_c = row
        .split("<td class=\"num tau-c\">")
        .nth(1)
        .and_then(|t| t.split("</td>").next())
        .expect("τ-c");
    assert!(desc.contains(&format!("Kendall τ-c {tau_c};")), "{desc}");
    // Captions whose ratings equal their SPICE (x 10): a rating of 0 for SPICE 0.
    assert!(
        svg.contains("rating 0</title>") || svg.contains("rating about 0</title>"),
        "{svg}"
    );
    assert!(!html.contains("id=\"entry-charts\""), "no entry judgments");

    // Judgments stored before the scores were kept: no plots, and a way to have them.
    sqlx::query("UPDATE caption_judgments SET scores = NULL")
        .execute(&app.pool)
        .await
        .expect("forget the scores");
    let (_, html) = get(&app, &anon, "/c/ag/agreement?split=val").await;
    assert!(html.contains("id=\"charts-missing\""), "{html}");
    assert!(!html.contains("<svg"), "{html}");
    assert!(
        html.contains("id=\"agreement-spice\""),
        "the table stays: {html}"
    );
}

/// Judged entries: per column a plot of the entries' scores against their ratings, one point
/// per entry, named; an entry scored by another front end is not in the correlation, nor drawn.
#[tokio::test]
async fn judged_entries_are_plotted_by_name() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("ag", "val", false).await;
    for (name, spice) in [
        ("Alpha", 0.3),
        ("Bravo", 0.2),
        ("Charlie", 0.1),
        ("Delta", 0.4),
    ] {
        let (_, token) = app.team("ag", name).await;
        let id = app.submit("ag", &token, "val", demo_results(true)).await;
        let mut f = [Some(0.1); 7];
        f[0] = Some(spice);
        fake_aggregates(&app.pool, id, f).await;
    }
    sqlx::query(
        "UPDATE submissions SET front_end = 'corenlp-3.6.0' WHERE team_id =
         (SELECT id FROM teams WHERE name = 'Delta')",
    )
    .execute(&app.pool)
    .await
    .expect("another parser");
    app.log_in_as_organizer().await;
    let file = "{\"team\": \"Alpha\", \"rating\": 1}\n{\"team\": \"Bravo\", \"rating\": 2}\n\
                {\"team\": \"Charlie\", \"rating\": 3.5}\n{\"team\": \"Delta\", \"rating\": 5}\n";
    let (status, location) = upload(&app, &app.client, "ag", "val", file.into()).await;
    assert_eq!(status, 303, "{location}");
    let (_, html) = get(&app, &app.client, "/c/ag/agreement?split=val").await;
    assert!(
        !html.contains("id=\"caption-charts\""),
        "no caption judgments"
    );
    let svg = chart(&html, "entry-scatter-spice");
    assert_accessible_chart(svg, "entry-scatter-spice", "SPICE against human ratings");
    assert_eq!(chart_marks(svg, "point"), [1, 1, 1], "{svg}");
    for tip in [
        "Alpha: SPICE 0.300, rating 1",
        "Bravo: SPICE 0.200, rating 2",
        "Charlie: SPICE 0.100, rating 3.5",
    ] {
        assert!(
            svg.contains(&format!("<title>{tip}</title>")),
            "{tip}: {svg}"
        );
    }
    assert!(!svg.contains("Delta"), "{svg}");
    let desc = chart_desc(svg);
    assert!(
        desc.starts_with("3 judged entries: SPICE from 0.100 to 0.300 (across), human rating from 1 to 3.5 (up). Pearson r \u{2212}"),
        "{desc}"
    );
}

#[tokio::test]
async fn a_bad_judgments_file_is_explained_in_full_and_nothing_is_stored() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("ag", "val", false).await;
    app.log_in_as_organizer().await;
    let image = judged_captions()[0].0;
    let file = format!(
        "{{\"image_id\": {image}, \"caption\": \"a dog\", \"ratings\": [3]}}\n\
         not json\n\
         {{\"image_id\": 999999, \"caption\": \"a cat\", \"ratings\": [1]}}\n\
         {{\"image_id\": {image}, \"caption\": \"a cat\", \"ratings\": []}}\n\
         {{\"team\": \"Nobody\", \"rating\": 2}}\n\
         {{\"image_id\": {image}, \"caption\": \"a dog\", \"ratings\": [1]}}\n"
    );
    let (status, body) = upload(&app, &app.client, "ag", "val", file.into_bytes()).await;
    assert_eq!(status, 400, "{body}");
    for expected in [
        "1 malformed line: line 2",
        "1 line names an image not in split \"val\": line 3 (image 999999)",
        "1 line has no ratings",
        "1 line names no leaderboard entry of split \"val\": line 5 (\"Nobody\")",
        "1 line repeats an earlier line's caption or entry: line 6",
    ] {
        assert!(body.contains(&escaped(expected)), "{expected} in {body}");
    }
    let (status, body) = upload(&app, &app.client, "ag", "val", b"\n".to_vec()).await;
    assert_eq!(status, 400);
    assert!(body.contains("the file holds no judgment"), "{body}");
    let (_, body) = get(&app, &app.client, "/c/ag/agreement.json?split=val").await;
    let a: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert!(a["agreement"].is_null(), "{a}");
    let (_, html) = get(&app, &app.client, "/c/ag/agreement?split=val").await;
    assert!(html.contains("id=\"no-judgments\""), "{html}");
}

#[tokio::test]
async fn teams_cannot_upload_judgments_nor_see_a_hidden_splits_agreement() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("ag", "test", true).await;
    let (_, token) = app.team("ag", "Owls").await;
    let owl = app.member("ag", "Owls", "owl@example.org").await;
    let file = ratings_following_spice(&app, "ag", "test").await;

    // A team member is no organizer: the form is refused, and nothing is stored.
    let (status, _) = upload(&app, &owl, "ag", "test", file.clone()).await;
    assert!(status == 403 || status == 404, "{status}");
    let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM judgment_sets")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(stored, 0);

    app.log_in_as_organizer().await;
    let (status, location) = upload(&app, &app.client, "ag", "test", file).await;
    assert_eq!(status, 303, "{location}");
    let (status, _) = get(&app, &app.client, "/c/ag/agreement?split=test").await;
    assert_eq!(status, 200, "organizers see a hidden split's agreement");

    // Anyone else: as if there were no such split, on the page and in JSON, and no link to it.
    let anon = reqwest::Client::new();
    for path in [
        "/c/ag/agreement?split=test",
        "/c/ag/agreement.json?split=test",
    ] {
        assert_eq!(get(&app, &anon, path).await.0, 404, "{path}");
        assert_eq!(get(&app, &owl, path).await.0, 404, "{path}");
        let r = anon
            .get(app.url(path))
            .bearer_auth(&token)
            .send()
            .await
            .expect("GET");
        assert_eq!(r.status(), 404, "{path} with the team's token");
    }
    // With no split named, the page shows the first split, the hidden one: also refused.
    assert_eq!(get(&app, &owl, "/c/ag/agreement").await.0, 404);
    let (_, board) = get(&app, &owl, "/c/ag/leaderboard?split=test").await;
    assert!(!board.contains("/c/ag/agreement"), "{board}");

    // Revealed, the split is public: so is its table.
    sqlx::query("UPDATE splits SET hidden = FALSE")
        .execute(&app.pool)
        .await
        .expect("reveal");
    let (status, body) = get(&app, &anon, "/c/ag/agreement.json?split=test").await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn the_ranking_metric_sets_the_leaderboards_default_order_beside_the_agreement() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("ag", "val", false).await;
    // SPICE ranks A, B, C; Object the other way. People rate the systems by Object.
    let mut ids = Vec::new();
    for (name, spice, object) in [
        ("Alpha", 0.3, 0.1),
        ("Bravo", 0.2, 0.2),
        ("Charlie", 0.1, 0.3),
    ] {
        let (_, token) = app.team("ag", name).await;
        let id = app.submit("ag", &token, "val", demo_results(true)).await;
        let mut f = [Some(0.1); 7];
        f[0] = Some(spice);
        f[1] = Some(object);
        fake_aggregates(&app.pool, id, f).await;
        ids.push(id);
    }
    app.log_in_as_organizer().await;
    let file = format!(
        "{{\"team\": \"Alpha\", \"rating\": 1}}\n{{\"team\": \"Bravo\", \"rating\": 2}}\n\
         {{\"submission_id\": {}, \"rating\": 3}}\n",
        ids[2]
    );
    let (status, location) = upload(&app, &app.client, "ag", "val", file.into_bytes()).await;
    assert_eq!(status, 303, "{location}");
    let (_, body) = get(&app, &app.client, "/c/ag/agreement.json?split=val").await;
    let a: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    let r = |m: &str| {
        row(&a, m)["pearson_system"]["value"]
            .as_f64()
            .unwrap_or(f64::NAN)
    };
    assert!((r("object") - 1.0).abs() < 1e-9, "{a}");
    assert!((r("spice") + 1.0).abs() < 1e-9, "{a}");
    assert_eq!(row(&a, "object")["entries"], 3);
    assert!(row(&a, "object")["tau_b"].is_null(), "no caption judgments");

    let order = |b: &serde_json::Value| -> Vec<String> {
        b["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .map(|e| e["name"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let anon = reqwest::Client::new();
    let board = |q: &'static str| {
        let anon = anon.clone();
        let url = app.url(&format!("/c/ag/leaderboard.json?split=val{q}"));
        async move {
            let b: serde_json::Value = anon
                .get(url)
                .send()
                .await
                .expect("GET")
                .json()
                .await
                .expect("JSON");
            b
        }
    };
    let b = board("").await;
    assert_eq!(
        (b["sort"].as_str(), order(&b)),
        (
            Some("spice"),
            vec!["Alpha".to_string(), "Bravo".into(), "Charlie".into()]
        )
    );

    // The organizer page shows the choice beside the table; choosing Object reorders the default.
    let csrf = app.csrf("/admin/c/ag").await;
    let r = app
        .client
        .post(app.url("/admin/c/ag/ranking-metric"))
        .form(&[("csrf", csrf.as_str()), ("metric", "object")])
        .send()
        .await
        .expect("POST ranking metric");
    assert_eq!(r.status(), 303);
    let b = board("").await;
    assert_eq!(
        (b["sort"].as_str(), order(&b)),
        (
            Some("object"),
            vec!["Charlie".to_string(), "Bravo".into(), "Alpha".into()]
        )
    );
    // An explicit sort still wins, and an unknown one is still a 400.
    let b = board("&sort=spice").await;
    assert_eq!(order(&b), ["Alpha", "Bravo", "Charlie"]);
    let (status, _) = get(&app, &anon, "/c/ag/leaderboard?split=val&sort=bogus").await;
    assert_eq!(status, 400);
    let (_, html) = get(&app, &anon, "/c/ag/leaderboard?split=val").await;
    assert!(html.contains("Ranked by Object"), "{html}");
    let (_, admin) = get(&app, &app.client, "/admin/c/ag").await;
    assert!(
        admin.contains("<option value=\"object\" selected>"),
        "{admin}"
    );
    assert!(
        admin.contains("id=\"agreement-object\" class=\"active\""),
        "{admin}"
    );
    // The CSV follows the default too.
    let (_, csv) = get(&app, &anon, "/c/ag/leaderboard.csv?split=val").await;
    assert!(
        csv.lines().nth(1).is_some_and(|l| l.contains(",Charlie,")),
        "{csv}"
    );

    // A column that does not exist is refused.
    let csrf = app.csrf("/admin/c/ag").await;
    let r = app
        .client
        .post(app.url("/admin/c/ag/ranking-metric"))
        .form(&[("csrf", csrf.as_str()), ("metric", "bogus")])
        .send()
        .await
        .expect("POST ranking metric");
    assert_eq!(r.status(), 400);
}

fn spiceboard_cli(url: &str, args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_spiceboard"))
        .args(args)
        .env("DATABASE_URL", url)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run spiceboard");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn judgments_and_the_ranking_metric_can_be_scripted_from_the_command_line() {
    use secrecy::ExposeSecret;
    let (_, url) = crate::helpers::fresh_database().await;
    let url = url.expose_secret().to_string();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).expect("write");
        p.to_str().expect("utf-8 path").to_string()
    };
    let refs = path("captions.json", &demo_references());
    let run = |args: &[&str]| spiceboard_cli(&url, args);
    assert!(run(&["challenge", "create", "--slug", "cj", "--title", "Judged"]).0);
    let (ok, _, err) = run(&[
        "challenge",
        "import-refs",
        "--slug",
        "cj",
        "--split",
        "val",
        "--file",
        &refs,
    ]);
    assert!(ok, "{err}");
    let captions = judged_captions();
    let lines: String = captions
        .iter()
        .take(3)
        .zip([5, 3, 1])
        .map(|((id, c), r)| {
            serde_json::json!({"image_id": id, "caption": c, "ratings": [r]}).to_string() + "\n"
        })
        .collect();
    let good = path("good.jsonl", lines.as_bytes());
    let (ok, out, err) = run(&[
        "challenge",
        "import-judgments",
        "--slug",
        "cj",
        "--split",
        "val",
        "--file",
        &good,
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("judgments for split val: 3 captions, 0 entries"),
        "{out}"
    );
    assert!(out.contains("/c/cj/agreement?split=val"), "{out}");
    let bad = path(
        "bad.jsonl",
        b"{\"image_id\": 999999, \"caption\": \"x\"}\n{\"image_id\": 1, \"caption\": \"y\"}\n",
    );
    let (ok, _, err) = run(&[
        "challenge",
        "import-judgments",
        "--slug",
        "cj",
        "--split",
        "val",
        "--file",
        &bad,
    ]);
    assert!(!ok);
    assert!(
        err.contains("not in split \"val\": line 1 (image 999999)"),
        "{err}"
    );
    assert!(err.contains("2 lines have no ratings"), "{err}");

    let (ok, out, err) = run(&[
        "challenge",
        "set-ranking-metric",
        "--slug",
        "cj",
        "--metric",
        "cider_d",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("ranked by CIDEr-D"), "{out}");
    let (ok, _, err) = run(&[
        "challenge",
        "set-ranking-metric",
        "--slug",
        "cj",
        "--metric",
        "nope",
    ]);
    assert!(!ok);
    assert!(err.contains("unknown sort key \"nope\""), "{err}");
    let pool = sqlx::PgPool::connect(&url).await.expect("connect");
    let (metric, sets): (String, i64) = sqlx::query_as(
        "SELECT ranking_metric, (SELECT COUNT(*) FROM judgment_sets) FROM challenges",
    )
    .fetch_one(&pool)
    .await
    .expect("read");
    assert_eq!((metric.as_str(), sets), ("cider_d", 1));
    pool.close().await;
}

#[tokio::test]
async fn under_best_a_teams_entry_is_its_best_in_the_ranking_column() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("ag", "val", false).await;
    let (_, token) = app.team("ag", "Owls").await;
    // The first upload is better in SPICE, the second in Object.
    let mut ids = Vec::new();
    for (spice, object) in [(0.3, 0.1), (0.2, 0.4)] {
        let id = app
            .submit("ag", &token, "val", fresh(demo_results(true)))
            .await;
        let mut f = [Some(0.1); 7];
        f[0] = Some(spice);
        f[1] = Some(object);
        fake_aggregates(&app.pool, id, f).await;
        ids.push(id);
    }
    let entry = |app: &TestApp| {
        let url = app.url("/c/ag/leaderboard.json?split=val");
        async move {
            let b: serde_json::Value = reqwest::get(url)
                .await
                .expect("GET")
                .json()
                .await
                .expect("JSON");
            b["entries"][0]["submission_id"].as_i64()
        }
    };
    assert_eq!(entry(&app).await, Some(ids[0]));
    let c = actions::challenge(&app.pool, "ag")
        .await
        .expect("challenge");
    actions::set_ranking_metric(&app.pool, &c, "object")
        .await
        .expect("ranking metric");
    assert_eq!(entry(&app).await, Some(ids[1]));
}
