//! One engine, two front ends (issue 31, item 4): a split's reference graphs and every score
//! record the front end that made them; a leaderboard ranks only the entries scored by its
//! split's front end and lists the others after them, unranked; `challenge rescore` moves a split
//! from one front end to the other. The CoreNLP part needs CoreNLP's model in `../shared/corenlp`
//! (skipped loudly without it, failing when `CI` is set).

use spiceboard::actions;
use spiceboard::configuration::EngineSettings;
use spiceboard::scoring::{self, SharedEngine};

use crate::helpers::{corenlp_model, demo_results, fresh, run_jobs, spawn_app_with, TestApp};

/// The split's front end and engine version as stored.
async fn split_front_end(app: &TestApp) -> (String, String) {
    sqlx::query_as("SELECT front_end, engine_version FROM splits WHERE is_current")
        .fetch_one(&app.pool)
        .await
        .expect("the split")
}

/// Each submission's stored front end, by id.
async fn submission_front_ends(app: &TestApp) -> Vec<(i64, Option<String>)> {
    sqlx::query_as("SELECT id, front_end FROM submissions ORDER BY id")
        .fetch_all(&app.pool)
        .await
        .expect("the submissions")
}

async fn board_json(app: &TestApp) -> serde_json::Value {
    let r = app
        .client
        .get(app.url("/c/fe/leaderboard.json?split=val"))
        .send()
        .await
        .expect("leaderboard.json");
    assert_eq!(r.status(), 200);
    r.json().await.expect("JSON")
}

async fn board_csv(app: &TestApp) -> String {
    app.client
        .get(app.url("/c/fe/leaderboard.csv?split=val"))
        .send()
        .await
        .expect("leaderboard.csv")
        .text()
        .await
        .expect("CSV")
}

async fn board_html(app: &TestApp) -> String {
    app.client
        .get(app.url("/c/fe/leaderboard?split=val"))
        .send()
        .await
        .expect("leaderboard")
        .text()
        .await
        .expect("HTML")
}

/// (rank, front end) of each entry of `leaderboard.json`, in its order.
fn ranks(board: &serde_json::Value) -> Vec<(Option<u64>, String)> {
    board["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["rank"].as_u64(),
                e["front_end"].as_str().expect("front_end").to_string(),
            )
        })
        .collect()
}

/// The last cell of each CSV line (the `front_end` column) and the first (`rank`).
fn csv_rank_and_front_end(csv: &str) -> Vec<(String, String)> {
    csv.lines()
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            // front_end, then the three method columns.
            (cells[0].to_string(), cells[cells.len() - 4].to_string())
        })
        .collect()
}

#[tokio::test]
async fn a_split_scored_built_in_moves_to_corenlp_with_rescore_and_is_never_ranked_mixed() {
    // No workers of the app's own: each step runs the queued jobs with the front end it names.
    let app = spawn_app_with(0, |_| {}).await;
    let built_in: SharedEngine = app.engine.clone();
    let challenge = app.challenge_with_split("fe", "val", false).await;
    let (_, good) = app.team("fe", "Careful").await;
    let (_, bad) = app.team("fe", "Careless").await;
    let a = app
        .submit("fe", &good, "val", fresh(demo_results(true)))
        .await;
    let b = app
        .submit("fe", &bad, "val", fresh(demo_results(false)))
        .await;
    assert_eq!(run_jobs(&app, &built_in, 10).await, 2);

    // Built-in: the split's graphs and both scores say so, and both entries are ranked.
    let (front_end, version) = split_front_end(&app).await;
    assert_eq!(front_end, "built-in");
    assert_eq!(
        version,
        format!(
            "{}+built-in+{}",
            scoring::ENGINE_VERSION,
            spice::parse::embedded_models_fingerprint()
        )
    );
    let built_in_rows = vec![
        (a, Some("built-in".to_string())),
        (b, Some("built-in".to_string())),
    ];
    assert_eq!(submission_front_ends(&app).await, built_in_rows);
    let board = board_json(&app).await;
    assert_eq!(board["front_end"], "built-in");
    assert_eq!(
        ranks(&board),
        vec![
            (Some(1), "built-in".to_string()),
            (Some(2), "built-in".to_string())
        ]
    );
    let csv = board_csv(&app).await;
    assert!(
        csv.lines().next().is_some_and(|h| h.starts_with("rank,")
            && h.ends_with(",scored_at,front_end,method_name,paper_url,code_url")),
        "{csv}"
    );
    assert_eq!(
        csv_rank_and_front_end(&csv)[1..],
        [
            ("1".to_string(), "built-in".to_string()),
            ("2".to_string(), "built-in".to_string())
        ]
    );
    let html = board_html(&app).await;
    assert!(html.contains(">Parser</abbr></th>"), "{html}");
    assert!(!html.contains("Not ranked"), "{html}");

    let Some(model) = corenlp_model() else {
        return;
    };
    let exact = scoring::engine_with(
        scoring::load_front_end(&EngineSettings {
            corenlp_models: Some(model),
        })
        .expect("CoreNLP's model loads"),
    );

    // `challenge rescore` with CoreNLP's front end: after the first job, the split's graphs are
    // CoreNLP's and so is that job's entry; the other, still built-in, is listed unranked.
    let split = actions::split(&app.pool, &challenge, "val")
        .await
        .expect("split");
    assert_eq!(
        actions::rescore(&app.pool, &split, 3)
            .await
            .expect("rescore"),
        2
    );
    assert_eq!(run_jobs(&app, &exact, 1).await, 1);
    let (front_end, version) = split_front_end(&app).await;
    assert_eq!(front_end, "corenlp-3.6.0");
    // The version names the model file too: another model file is another engine.
    let model = exact
        .options()
        .front_end
        .model_fingerprint()
        .expect("CoreNLP's");
    assert!(model.starts_with("crc32-"), "{model}");
    assert_eq!(
        version,
        format!("{}+corenlp-3.6.0+{model}", scoring::ENGINE_VERSION)
    );
    let stored = submission_front_ends(&app).await;
    let exact_first = stored
        .iter()
        .find(|(_, f)| f.as_deref() == Some("corenlp-3.6.0"))
        .expect("one entry re-scored")
        .0;
    assert_eq!(
        stored
            .iter()
            .filter(|(_, f)| f.as_deref() == Some("built-in"))
            .count(),
        1
    );
    let board = board_json(&app).await;
    assert_eq!(board["front_end"], "corenlp-3.6.0");
    assert_eq!(
        ranks(&board),
        vec![
            (Some(1), "corenlp-3.6.0".to_string()),
            (None, "built-in".to_string())
        ]
    );
    assert_eq!(board["entries"][0]["submission_id"], exact_first);
    assert_eq!(board["entries"][1]["tied_with_above"], false);
    let csv = board_csv(&app).await;
    assert_eq!(
        csv_rank_and_front_end(&csv)[1..],
        [
            ("1".to_string(), "corenlp-3.6.0".to_string()),
            (String::new(), "built-in".to_string())
        ]
    );
    let html = board_html(&app).await;
    assert!(
        html.contains("Not ranked: scored by another parser than this split's (corenlp-3.6.0)"),
        "{html}"
    );
    // Entries of two front ends are not compared either.
    let other = if exact_first == a { b } else { a };
    let r = app
        .client
        .get(app.url(&format!(
            "/c/fe/compare?split=val&a={exact_first}&b={other}"
        )))
        .send()
        .await
        .expect("compare");
    assert_eq!(r.status(), 400);
    // Each submission's page says which parser scored it, and whether it is the split's.
    app.log_in_as_organizer().await;
    let page = |id: i64| {
        let client = app.client.clone();
        let url = app.url(&format!("/s/{id}"));
        async move {
            client
                .get(url)
                .send()
                .await
                .expect("submission page")
                .text()
                .await
                .expect("HTML")
        }
    };
    let html = page(exact_first).await;
    assert!(
        html.contains("Parsed by <code id=\"front-end\">corenlp-3.6.0</code>."),
        "{html}"
    );
    let html = page(other).await;
    assert!(
        html.contains(
            "Parsed by <code id=\"front-end\">built-in</code>, not this split's parser \
             (corenlp-3.6.0)"
        ),
        "{html}"
    );

    // The rest re-scored: both ranked again, by CoreNLP's scores.
    assert_eq!(run_jobs(&app, &exact, 10).await, 1);
    let corenlp = |id| (id, Some("corenlp-3.6.0".to_string()));
    assert_eq!(
        submission_front_ends(&app).await,
        vec![corenlp(a), corenlp(b)]
    );
    let board = board_json(&app).await;
    assert_eq!(
        ranks(&board),
        vec![
            (Some(1), "corenlp-3.6.0".to_string()),
            (Some(2), "corenlp-3.6.0".to_string())
        ]
    );

    // And back: a rescore by built-in workers moves the split again.
    let split = actions::split(&app.pool, &challenge, "val")
        .await
        .expect("split");
    actions::rescore(&app.pool, &split, 3)
        .await
        .expect("rescore");
    assert_eq!(run_jobs(&app, &built_in, 10).await, 2);
    assert_eq!(split_front_end(&app).await.0, "built-in");
    assert_eq!(submission_front_ends(&app).await, built_in_rows);
}

#[test]
fn an_unreadable_model_is_an_error_naming_the_path() {
    let e = scoring::load_front_end(&EngineSettings {
        corenlp_models: Some("/nonexistent/englishPCFG.ser.gz".into()),
    })
    .expect_err("no such model")
    .to_string();
    assert!(
        e.contains("engine.corenlp_models")
            && e.contains("/nonexistent/englishPCFG.ser.gz")
            && e.contains("remove the setting"),
        "{e}"
    );
    // No setting (or an empty one) is the built-in parser.
    for corenlp_models in [None, Some("".into())] {
        let f = scoring::load_front_end(&EngineSettings { corenlp_models }).expect("built-in");
        assert_eq!(f.name(), "built-in");
    }
}
