//! What a team takes home (issue 34, item 4): per-image scores as CSV and JSON, equal to the
//! per-image pages; its own uploaded file, byte for byte, and nobody else's; and what it is
//! spared: a byte-identical re-upload spends no quota, empty captions are refused by entry.

use crate::helpers::{client, demo_results, spawn_app_with, TestApp};

/// GET as `browser` (with the API token `bearer`, if any): status and body.
async fn get(
    app: &TestApp,
    browser: &reqwest::Client,
    path: &str,
    bearer: Option<&str>,
) -> (u16, String) {
    let mut r = browser.get(app.url(path));
    if let Some(token) = bearer {
        r = r.bearer_auth(token);
    }
    let r = r.send().await.expect("GET");
    (r.status().as_u16(), r.text().await.expect("body"))
}

/// The image page's title of a category, as `submission.html` and `image.html` name it.
fn title(category: &str) -> &'static str {
    match category {
        "all" => "SPICE (all tuples)",
        "object" => "Object",
        "relation" => "Relation",
        "attribute" => "Attribute",
        "color" => "Color",
        "count" => "Count",
        "size" => "Size",
        _ => "?",
    }
}

/// A ratio as the pages show it: three decimals, or a dash when undefined (an empty CSV cell).
fn shown(cell: &str) -> String {
    match cell.parse::<f64>() {
        Ok(v) => format!("{v:.3}"),
        Err(_) => "–".to_string(),
    }
}

#[tokio::test]
async fn per_image_scores_download_as_csv_and_json_equal_to_the_image_pages() {
    let app = spawn_app_with(1, |_| {}).await;
    app.challenge_with_split("dl", "val", false).await;
    let (_, token) = app.team("dl", "Owls").await;
    let owl = app.member("dl", "Owls", "owl@example.org").await;
    // The careless captions: scores spread out, some categories undefined.
    let id = app.submit("dl", &token, "val", demo_results(false)).await;
    app.assert_scored(id).await;

    let (status, page) = get(&app, &owl, &format!("/s/{id}"), None).await;
    assert_eq!(status, 200);
    assert!(
        page.contains(&format!("href=\"/s/{id}/images.csv\"")),
        "{page}"
    );
    assert!(
        page.contains(&format!("href=\"/s/{id}/images.json\"")),
        "{page}"
    );

    let (status, csv_text) = get(&app, &owl, &format!("/s/{id}/images.csv"), None).await;
    assert_eq!(status, 200, "{csv_text}");
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    assert_eq!(header, spiceboard::actions::image_scores_columns());
    assert_eq!(header.len(), 2 + 7 * 6);
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
    assert_eq!(rows.len(), 20, "one row per image of the split");

    // The same through the API token, as JSON.
    let (status, json_text) = get(
        &app,
        &client(),
        &format!("/s/{id}/images.json"),
        Some(&token),
    )
    .await;
    assert_eq!(status, 200, "{json_text}");
    let json: serde_json::Value = serde_json::from_str(&json_text).expect("JSON");
    assert_eq!(json["submission_id"], id);
    assert_eq!(json["split"], "val");
    let images = json["images"].as_array().expect("images");
    assert_eq!(images.len(), rows.len());

    let mut undefined = 0;
    for (row, image) in rows.iter().zip(images) {
        let image_id = &row[0];
        assert_eq!(image["image_id"].to_string(), image_id);
        assert_eq!(image["caption"].as_str(), Some(&row[1]));
        // Every category's six numbers, on the image's page as in both downloads.
        let (status, html) = get(&app, &owl, &format!("/s/{id}/images/{image_id}"), None).await;
        assert_eq!(status, 200);
        for (k, category) in spiceboard::domain::CATEGORIES.iter().enumerate() {
            let cells: Vec<&str> = (0..6).map(|m| &row[2 + 6 * k + m]).collect();
            let expected = format!(
                "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                title(category),
                shown(cells[0]),
                shown(cells[1]),
                shown(cells[2]),
                cells[3],
                cells[4],
                cells[5],
            );
            assert!(
                html.contains(&expected),
                "image {image_id}: {expected}\n{html}"
            );
            let scores = &image["scores"][*category];
            for (m, name) in ["precision", "recall", "f", "tp", "fp", "fn"]
                .iter()
                .enumerate()
            {
                let from_json = match &scores[*name] {
                    serde_json::Value::Null => String::new(),
                    v => v.to_string(),
                };
                // Full precision: the CSV's text and the JSON's number are the same float (to
                // the last bits serde_json's fast float reading may miss).
                match (cells[m].parse::<f64>(), from_json.parse::<f64>()) {
                    (Ok(a), Ok(b)) => assert!(
                        (a - b).abs() <= 4.0 * f64::EPSILON,
                        "image {image_id} {category} {name}: {a} {b}"
                    ),
                    _ => assert_eq!(cells[m], from_json, "image {image_id} {category} {name}"),
                }
            }
            if cells[0].is_empty() {
                undefined += 1;
            }
        }
    }
    assert!(
        undefined > 0,
        "some category is undefined somewhere, and shown so"
    );
}

#[tokio::test]
async fn a_hidden_splits_per_image_scores_stay_with_the_organizers() {
    let app = spawn_app_with(1, |_| {}).await;
    app.challenge_with_split("hid", "test", true).await;
    let (_, token) = app.team("hid", "Owls").await;
    let owl = app.member("hid", "Owls", "owl@example.org").await;
    let id = app.submit("hid", &token, "test", demo_results(true)).await;
    app.assert_scored(id).await;
    let (_, page) = get(&app, &owl, &format!("/s/{id}"), None).await;
    assert!(!page.contains("images.csv"), "{page}");
    for path in [
        format!("/s/{id}/images.csv"),
        format!("/s/{id}/images.json"),
    ] {
        assert_eq!(get(&app, &owl, &path, None).await.0, 403, "{path}");
        assert_eq!(
            get(&app, &client(), &path, Some(&token)).await.0,
            403,
            "{path}"
        );
    }
    app.log_in_as_organizer().await;
    let (status, csv_text) = get(&app, &app.client, &format!("/s/{id}/images.csv"), None).await;
    assert_eq!(status, 200);
    assert_eq!(csv_text.lines().count(), 21);
}

#[tokio::test]
async fn a_team_downloads_its_own_file_and_nobody_elses() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("own", "val", false).await;
    let (_, owl_token) = app.team("own", "Owls").await;
    let (_, fox_token) = app.team("own", "Foxes").await;
    let owl = app.member("own", "Owls", "owl@example.org").await;
    let fox = app.member("own", "Foxes", "fox@example.org").await;
    let file = demo_results(true);
    let id = app.submit("own", &owl_token, "val", file.clone()).await;
    let path = format!("/s/{id}/file");

    let (_, page) = get(&app, &owl, &format!("/s/{id}"), None).await;
    assert!(
        page.contains(&format!("href=\"{path}\" id=\"download-file\"")),
        "{page}"
    );
    let r = owl.get(app.url(&path)).send().await.expect("GET");
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()["content-disposition"],
        format!("attachment; filename=\"submission-{id}.json\"")
    );
    assert_eq!(r.headers()["cache-control"], "no-store");
    assert_eq!(r.bytes().await.expect("body").as_ref(), file.as_slice());
    let r = client()
        .get(app.url(&path))
        .bearer_auth(&owl_token)
        .send()
        .await
        .expect("GET");
    assert_eq!(r.bytes().await.expect("body").as_ref(), file.as_slice());

    // Another team, by session or token, and a visitor: as if there were no such submission.
    assert_eq!(get(&app, &fox, &path, None).await.0, 404);
    assert_eq!(get(&app, &client(), &path, Some(&fox_token)).await.0, 404);
    assert_eq!(get(&app, &client(), &path, None).await.0, 404);
    // The organizers may.
    app.log_in_as_organizer().await;
    let r = app.client.get(app.url(&path)).send().await.expect("GET");
    assert_eq!(r.status(), 200);
    assert_eq!(r.bytes().await.expect("body").as_ref(), file.as_slice());
}

#[tokio::test]
async fn a_byte_identical_reupload_is_refused_without_spending_quota() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("same", "val", false).await;
    let (_, token) = app.team("same", "Owls").await;
    let owl = app.member("same", "Owls", "owl@example.org").await;
    let first = app.submit("same", &token, "val", demo_results(true)).await;
    let count = || async {
        sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM submissions")
            .fetch_one(&app.pool)
            .await
            .expect("count")
    };

    let r = app
        .api_upload("same", &token, Some("val"), demo_results(true))
        .await;
    assert_eq!(r.status(), 409);
    let body: serde_json::Value = r.json().await.expect("JSON");
    let e = body["error"].as_str().unwrap_or_default();
    assert!(
        e.starts_with(&format!(
            "this file is byte for byte the one of submission {first}, uploaded "
        )) && e.ends_with("it was not submitted again, and none of your quota was spent"),
        "{e}"
    );
    // Through the form: the form again, with the same words.
    let r = app
        .form_upload(&owl, "same", "val", demo_results(true))
        .await;
    assert_eq!(r.status(), 400);
    let html = r.text().await.expect("body");
    assert!(
        html.contains(&format!(
            "this file is byte for byte the one of submission {first}"
        )),
        "{html}"
    );
    assert_eq!(count().await, 1, "nothing stored, nothing counted");

    // Other bytes are another submission; a deleted one may be uploaded again.
    let second = app.submit("same", &token, "val", demo_results(false)).await;
    assert_ne!(second, first);
    spiceboard::storage::submissions::soft_delete(&app.pool, first)
        .await
        .expect("delete");
    app.submit("same", &token, "val", demo_results(true)).await;
    assert_eq!(count().await, 3);
}

#[tokio::test]
async fn empty_captions_are_refused_naming_their_entries() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("blank", "val", false).await;
    let (_, token) = app.team("blank", "Owls").await;
    let mut results: Vec<serde_json::Value> =
        serde_json::from_slice(&demo_results(true)).expect("json");
    results[2]["caption"] = serde_json::json!("");
    results[4]["caption"] = serde_json::json!(" \n ");
    let (third, fifth) = (
        results[2]["image_id"].clone(),
        results[4]["image_id"].clone(),
    );
    let r = app
        .api_upload(
            "blank",
            &token,
            Some("val"),
            serde_json::to_vec(&results).expect("json"),
        )
        .await;
    assert_eq!(r.status(), 400);
    let body: serde_json::Value = r.json().await.expect("JSON");
    assert_eq!(
        body["error"],
        format!("2 captions are empty: entry 3 (image_id {third}); entry 5 (image_id {fifth})")
    );
    let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM submissions")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(stored, 0);
}

#[tokio::test]
async fn the_history_shows_who_uploaded_and_spice_in_full_on_hover() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("hist", "val", false).await;
    let (_, token) = app.team("hist", "Owls").await;
    let owl = app.member("hist", "Owls", "owl@example.org").await;
    let r = app
        .form_upload(&owl, "hist", "val", demo_results(true))
        .await;
    assert_eq!(r.status(), 303);
    // A token made on the command line records no maker.
    let by_token = app.submit("hist", &token, "val", demo_results(false)).await;
    let by_form: i64 = sqlx::query_scalar("SELECT MIN(id) FROM submissions")
        .fetch_one(&app.pool)
        .await
        .expect("id");
    crate::helpers::fake_aggregates(&app.pool, by_form, [Some(0.123456789); 7]).await;
    crate::helpers::fake_aggregates(&app.pool, by_token, [Some(0.1234); 7]).await;
    let (status, html) = get(&app, &owl, "/c/hist/submit", None).await;
    assert_eq!(status, 200);
    // Both read 0.123; the full values tell them apart.
    assert!(
        html.contains("<span title=\"0.123456789\">0.123</span>"),
        "{html}"
    );
    assert!(
        html.contains("<span title=\"0.1234\">0.123</span>"),
        "{html}"
    );
    assert!(
        html.contains("<td class=\"uploaded-by\">owl@example.org</td>"),
        "{html}"
    );
    assert!(
        html.contains("<td class=\"uploaded-by\">not recorded</td>"),
        "{html}"
    );
}
