//! Uncertainty on the leaderboard (issue 14, part 4): each entry's 95 % bootstrap interval, the
//! "statistically tied" marks, and the two-entry comparison, on the engine's real scores.
//!
//! The entries are built so that the statistics cannot come out otherwise (the bootstrap's seed
//! is fixed, but these hold for any seed):
//! - "Exact" captions every image with its first reference caption, so every image scores above 0;
//! - "Twin" is Exact except on one image, where it says "xylophone" (SPICE 0). The two differ on
//!   that image only, so every resample that misses it (about 36 % of them) shows no difference:
//!   p is about 0.7, a tie;
//! - "Poor" says "xylophone" everywhere: below Twin on 19 images out of 20 and above it on none,
//!   so every resample puts Twin ahead: p = 0, not a tie.

use crate::helpers::{demo_references, escaped, spawn_app_with, TestApp};

/// The image whose caption Twin gets wrong.
fn odd_image() -> i64 {
    first_references()[3].0
}

/// Each demo image with its first reference caption, in the references' order.
fn first_references() -> Vec<(i64, String)> {
    let refs: serde_json::Value =
        serde_json::from_slice(&demo_references()).expect("the demo references are JSON");
    let mut out: Vec<(i64, String)> = Vec::new();
    for a in refs["annotations"].as_array().expect("annotations") {
        let id = a["image_id"].as_i64().expect("an image id");
        if !out.iter().any(|(i, _)| *i == id) {
            out.push((id, a["caption"].as_str().expect("a caption").to_string()));
        }
    }
    out
}

fn results(caption: impl Fn(i64, &str) -> String) -> Vec<u8> {
    let r: Vec<serde_json::Value> = first_references()
        .iter()
        .map(|(id, c)| serde_json::json!({"image_id": id, "caption": caption(*id, c)}))
        .collect();
    serde_json::to_vec(&r).expect("JSON")
}

struct Board {
    app: TestApp,
    /// (team token, submission id) of Exact, Twin and Poor.
    exact: (String, i64),
    twin: (String, i64),
    poor: (String, i64),
}

/// Exact, Twin and Poor scored on split `val` of challenge `u`.
async fn three_entries(hidden: bool) -> Board {
    let app = spawn_app_with(1, |_| {}).await;
    app.challenge_with_split("u", "val", hidden).await;
    let odd = odd_image();
    let files = [
        results(|_, c| c.to_string()),
        results(|id, c| {
            if id == odd {
                "xylophone".to_string()
            } else {
                c.to_string()
            }
        }),
        results(|_, _| "xylophone".to_string()),
    ];
    let mut out = Vec::new();
    for (name, file) in ["Exact", "Twin", "Poor"].into_iter().zip(files) {
        let (_, token) = app.team("u", name).await;
        let id = app.submit("u", &token, "val", file).await;
        app.assert_scored(id).await;
        out.push((token, id));
    }
    let mut it = out.into_iter();
    let (exact, twin, poor) = (
        it.next().expect("Exact"),
        it.next().expect("Twin"),
        it.next().expect("Poor"),
    );
    Board {
        app,
        exact,
        twin,
        poor,
    }
}

async fn get(app: &TestApp, path: &str, token: Option<&str>) -> (u16, String) {
    let mut r = reqwest::Client::new().get(app.url(path));
    if let Some(t) = token {
        r = r.bearer_auth(t);
    }
    let r = r.send().await.expect("GET");
    let status = r.status().as_u16();
    (status, r.text().await.expect("body"))
}

async fn json(app: &TestApp, path: &str, token: Option<&str>) -> serde_json::Value {
    let (status, body) = get(app, path, token).await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).expect("JSON")
}

#[tokio::test]
async fn entries_show_their_interval_and_ties_with_the_entry_above() {
    let b = three_entries(false).await;
    let board = json(&b.app, "/c/u/leaderboard.json?split=val", None).await;
    let entries = board["entries"].as_array().expect("entries");
    let names: Vec<&str> = entries.iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(names, ["Exact", "Twin", "Poor"], "{board}");
    for e in entries {
        let spice = e["spice"].as_f64().expect("SPICE");
        let lo = e["interval"][0].as_f64().expect("an interval");
        let hi = e["interval"][1].as_f64().expect("an interval");
        assert!(lo <= spice && spice <= hi, "{e}");
    }
    // Exact: above 0 on every image, so its whole interval is; Poor scores 0 on every image.
    assert!(entries[0]["interval"][0].as_f64() > Some(0.0), "{board}");
    assert_eq!(entries[2]["interval"], serde_json::json!([0.0, 0.0]));
    assert!(entries[0]["p_above"].is_null() && entries[0]["tied_with_above"] == false);
    // Twin differs from Exact on one image of 20: tied.
    let p = entries[1]["p_above"].as_f64().expect("a p-value");
    assert!(
        p >= 0.05 && entries[1]["tied_with_above"] == true,
        "{board}"
    );
    // Poor is below Twin on 19 images and above it on none: not tied.
    assert_eq!(entries[2]["p_above"].as_f64(), Some(0.0));
    assert_eq!(entries[2]["tied_with_above"], false);

    // The page: the interval column, one tie mark (on Twin's row), links to the comparisons.
    let (status, html) = get(&b.app, "/c/u/leaderboard?split=val", None).await;
    assert_eq!(status, 200);
    assert!(html.contains("95 % interval"), "{html}");
    let exact = format!(
        "{:.3} – {:.3}",
        entries[0]["interval"][0].as_f64().unwrap_or(-1.0),
        entries[0]["interval"][1].as_f64().unwrap_or(-1.0)
    );
    assert!(html.contains(&exact), "{exact} not in {html}");
    assert_eq!(html.matches("title=\"tied with the entry above").count(), 1);
    let twin_row = html.find("class=\"entry\">Twin").expect("Twin's row");
    let mark = html
        .find("title=\"tied with the entry above")
        .expect("a tie mark");
    let exact_row = html.find("class=\"entry\">Exact").expect("Exact's row");
    assert!(
        exact_row < mark && mark < twin_row,
        "the mark is on Twin's row"
    );
    assert!(html.contains(&escaped(&format!(
        "/c/u/compare?split=val&a={}&b={}",
        b.exact.1, b.twin.1
    ))));

    // Any two entries, from a form.
    assert!(html.contains("<form class=\"compare-two\" method=\"get\" action=\"/c/u/compare\">"));
    assert!(html.contains(&format!("<option value=\"{}\">3. Poor</option>", b.poor.1)));

    // A submission scored before intervals existed gets them on first display, the same ones
    // (the seed is fixed).
    sqlx::query("DELETE FROM score_intervals WHERE submission_id = $1")
        .bind(b.twin.1)
        .execute(&b.app.pool)
        .await
        .expect("delete");
    let again = json(&b.app, "/c/u/leaderboard.json?split=val", None).await;
    assert_eq!(again["entries"], board["entries"]);
    let stored: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM score_intervals WHERE submission_id = $1")
            .bind(b.twin.1)
            .fetch_one(&b.app.pool)
            .await
            .expect("count");
    assert_eq!(stored, 9);

    // Ranked by BLEU-4, a corpus statistic: no intervals and no tie marks.
    let bleu = json(&b.app, "/c/u/leaderboard.json?split=val&sort=bleu_4", None).await;
    for e in bleu["entries"].as_array().expect("entries") {
        assert!(
            e["interval"].is_null() && e["tied_with_above"] == false,
            "{e}"
        );
    }
}

#[tokio::test]
async fn two_public_entries_compare_by_category_and_by_image() {
    let b = three_entries(false).await;
    let (status, html) = get(
        &b.app,
        &format!("/c/u/compare?split=val&a={}&b={}", b.exact.1, b.twin.1),
        None,
    )
    .await;
    assert_eq!(status, 200, "{html}");
    assert!(html.contains("Exact vs. Twin"), "{html}");
    assert!(html.contains("id=\"differences\"") && html.contains("<td>Object</td>"));
    // They differ on one image only, so that is the one image listed.
    let images = &html[html.find("id=\"images\"").expect("the images table")..];
    assert_eq!(images.matches("<tr><td>").count(), 1, "{images}");
    assert!(images.contains(&format!("<tr><td>{}</td>", odd_image())));

    // Exact against Poor: a significant SPICE difference (bold), every image listed up to 20.
    let (status, html) = get(
        &b.app,
        &format!("/c/u/compare?split=val&a={}&b={}", b.exact.1, b.poor.1),
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        html.contains("<tr class=\"significant\"><td>SPICE</td>"),
        "{html}"
    );
    let images = &html[html.find("id=\"images\"").expect("the images table")..];
    assert_eq!(images.matches("<tr><td>").count(), 20);

    // An id that is not an entry of this leaderboard: Exact's earlier submission, replaced as
    // its entry by a later one (under the `latest` policy: a worse upload never replaces the
    // best), and an id that does not exist. Both are "not found".
    let challenge = spiceboard::storage::challenges::by_slug(&b.app.pool, "u")
        .await
        .expect("challenge")
        .expect("challenge u");
    spiceboard::storage::challenges::set_entry_policy(
        &b.app.pool,
        challenge.id,
        spiceboard::domain::leaderboard::EntryPolicy::Latest,
    )
    .await
    .expect("policy");
    let later = b
        .app
        .submit(
            "u",
            &b.exact.0,
            "val",
            results(|_, c| format!("{c} indoors")),
        )
        .await;
    b.app.assert_scored(later).await;
    for (x, y) in [(b.exact.1, b.twin.1), (later, 999_999)] {
        let (status, _) = get(&b.app, &format!("/c/u/compare?split=val&a={x}&b={y}"), None).await;
        assert_eq!(status, 404, "{x} vs {y}");
    }
    let (status, _) = get(
        &b.app,
        &format!("/c/u/compare?split=val&a={later}&b={}", b.poor.1),
        None,
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_hidden_split_shows_no_intervals_and_cannot_be_compared() {
    let b = three_entries(true).await;
    // A team sees its own entry, without interval or tie.
    let board = json(&b.app, "/c/u/leaderboard.json?split=val", Some(&b.twin.0)).await;
    let entries = board["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 1, "{board}");
    assert!(entries[0]["interval"].is_null() && entries[0]["p_above"].is_null());
    // Neither another team's entry nor even its own can be compared: both answer "not found",
    // the same as for an id that does not exist.
    for (x, y) in [(b.twin.1, b.exact.1), (b.twin.1, b.twin.1)] {
        let (status, body) = get(
            &b.app,
            &format!("/c/u/compare?split=val&a={x}&b={y}"),
            Some(&b.twin.0),
        )
        .await;
        assert_eq!(status, 404, "{body}");
        assert!(!body.contains("id=\"differences\""));
    }
    let (status, html) = get(&b.app, "/c/u/leaderboard?split=val", Some(&b.twin.0)).await;
    assert_eq!(status, 200);
    assert!(!html.contains("/compare") && !html.contains("class=\"tied\" title"));

    // The organizers see everything on their test set, the comparison included.
    b.app.log_in_as_organizer().await;
    let r = b
        .app
        .client
        .get(b.app.url(&format!(
            "/c/u/compare?split=val&a={}&b={}",
            b.exact.1, b.poor.1
        )))
        .send()
        .await
        .expect("GET");
    assert_eq!(r.status(), 200);
    let r = b
        .app
        .client
        .get(b.app.url("/c/u/leaderboard.json?split=val"))
        .send()
        .await
        .expect("GET");
    let board: serde_json::Value = r.json().await.expect("JSON");
    assert_eq!(board["entries"][1]["tied_with_above"], true, "{board}");
}

/// A stored interval: metric, estimate, low, high, images, image set, replicates.
type StoredInterval = (
    String,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    i32,
    i64,
    Vec<u8>,
);

#[tokio::test]
async fn the_workers_intervals_are_those_of_the_stored_scores() {
    // The worker bootstraps what it just computed; the backfill reads the stored rows back.
    // Both must give the same intervals, byte for byte (undefined categories included).
    let b = three_entries(false).await;
    let stored = |id: i64| {
        let pool = b.app.pool.clone();
        async move {
            let rows: Vec<StoredInterval> = sqlx::query_as(
                "SELECT metric, estimate, low, high, images, image_set, replicates
                     FROM score_intervals WHERE submission_id = $1 ORDER BY metric",
            )
            .bind(id)
            .fetch_all(&pool)
            .await
            .expect("intervals");
            rows
        }
    };
    for id in [b.exact.1, b.twin.1, b.poor.1] {
        let from_worker = stored(id).await;
        assert_eq!(from_worker.len(), 9, "every column with per-image values");
        sqlx::query("DELETE FROM score_intervals WHERE submission_id = $1")
            .bind(id)
            .execute(&b.app.pool)
            .await
            .expect("delete");
        json(&b.app, "/c/u/leaderboard.json?split=val", None).await;
        assert_eq!(stored(id).await, from_worker, "submission {id}");
    }
}
