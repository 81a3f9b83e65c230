//! The pages' charts (issue 34, item 2): each page draws its chart as an accessible SVG image
//! whose marks are the page's own data. (The metric agreement page's scatter plots are tested
//! with its judgments, in `agreement.rs`; the browser test checks that they all render.)

use spiceboard::actions;

use crate::helpers::{
    assert_accessible_chart, chart, chart_desc, chart_marks, demo_results, fake_aggregates, fresh,
    spawn_app_with, TestApp,
};

async fn get(app: &TestApp, browser: &reqwest::Client, path: &str) -> String {
    let r = browser.get(app.url(path)).send().await.expect("GET");
    assert_eq!(r.status(), 200, "{path}");
    r.text().await.expect("body")
}

async fn scored_on(app: &TestApp, id: i64, day: &str) {
    sqlx::query("UPDATE submissions SET scored_at = $2::TIMESTAMPTZ WHERE id = $1")
        .bind(id)
        .bind(format!("{day} 15:00:00+00"))
        .execute(&app.pool)
        .await
        .expect("scored_at");
}

/// A baseline or the Human row of split `val` of challenge `slug`, with faked scores.
async fn reference_row(app: &TestApp, slug: &str, human: bool, f: [Option<f64>; 7]) -> i64 {
    let c = actions::challenge(&app.pool, slug)
        .await
        .expect("challenge");
    let split = actions::split(&app.pool, &c, "val").await.expect("split");
    let id = if human {
        actions::compute_human(&app.pool, &split, 3)
            .await
            .expect("human row")
            .id
    } else {
        actions::submit(
            &app.pool,
            &c,
            &split,
            actions::Uploader::Baseline {
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
        .expect("baseline")
        .id
    };
    fake_aggregates(&app.pool, id, f).await;
    id
}

/// Four teams' entries scored on different days, one without a SPICE score: the chart has a dot
/// per scored team entry of the table, steps up at each new best, and has the Human row and the
/// baseline as levels across; its description says the best, by whom and when.
#[tokio::test]
async fn the_leaderboard_draws_its_best_entry_over_time() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("ch", "val", false).await;
    for (name, spice, day) in [
        ("Alpha", Some(0.20), "2026-11-01"),
        ("Bravo", Some(0.30), "2026-11-05"),
        ("Charlie", Some(0.18), "2026-11-03"),
        ("Delta", None, "2026-11-06"),
    ] {
        let (_, token) = app.team("ch", name).await;
        let id = app
            .submit("ch", &token, "val", fresh(demo_results(true)))
            .await;
        let mut f = [Some(0.1); 7];
        f[0] = spice;
        fake_aggregates(&app.pool, id, f).await;
        scored_on(&app, id, day).await;
    }
    reference_row(&app, "ch", true, [Some(0.5); 7]).await;
    reference_row(&app, "ch", false, [Some(0.1); 7]).await;

    let page = get(&app, &reqwest::Client::new(), "/c/ch/leaderboard?split=val").await;
    assert_eq!(page.matches("<tr class=\"team").count(), 4, "{page}");
    let svg = chart(&page, "best-chart");
    assert_accessible_chart(svg, "best-chart", "Best SPICE on val over time");
    // A dot per team entry with a score: Alpha and Bravo set a new best, Charlie did not.
    assert_eq!(chart_marks(svg, "record"), [1, 1], "{svg}");
    assert_eq!(chart_marks(svg, "entry"), [1], "{svg}");
    assert!(
        svg.contains("<title>Charlie: 0.180, scored 2026-11-03</title>"),
        "{svg}"
    );
    assert_eq!(
        svg.matches("class=\"level human\"").count(),
        2,
        "line and legend"
    );
    assert_eq!(svg.matches("class=\"level baseline\"").count(), 2);
    let desc = chart_desc(svg);
    for part in [
        "3 entries from 2026-11-01 to 2026-11-05, 2 steps to a new best.",
        "The best is 0.300 by Bravo, scored 2026-11-05.",
        "Human: 0.500. Baseline Nearest neighbour: 0.100.",
        "1 entry without a SPICE score left out.",
    ] {
        assert!(desc.contains(part), "{part} in {desc}");
    }
    // Dates in UTC under the axis.
    assert!(svg.contains(">2026-11-01</text>") && svg.contains(">2026-11-05</text>"));

    // The chart follows the challenge's ranking column, as the table's order does.
    let c = actions::challenge(&app.pool, "ch")
        .await
        .expect("challenge");
    actions::set_ranking_metric(&app.pool, &c, "object")
        .await
        .expect("ranking metric");
    let page = get(&app, &reqwest::Client::new(), "/c/ch/leaderboard?split=val").await;
    let svg = chart(&page, "best-chart");
    assert_accessible_chart(svg, "best-chart", "Best Object on val over time");
    // Every team's Object is 0.100: the first holds the best, the others are level with it.
    assert_eq!(chart_marks(svg, "record"), [1], "{svg}");
    assert_eq!(chart_marks(svg, "entry"), [1, 1, 1], "{svg}");
}

/// No entry yet: no chart beside the empty table.
#[tokio::test]
async fn an_empty_leaderboard_has_no_chart() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("ch", "val", false).await;
    let page = get(&app, &reqwest::Client::new(), "/c/ch/leaderboard").await;
    assert!(page.contains("No scored entry yet."), "{page}");
    assert!(!page.contains("<svg"), "{page}");
}

/// The submission page draws the entry's F per category beside the Human row's; an undefined
/// category is written as such, not drawn at 0, and a real 0 is drawn. On a hidden split a team
/// member sees no Human row there (the leaderboard does not show it to them), so none is drawn.
#[tokio::test]
async fn a_submission_is_drawn_against_the_human_row_per_category() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("ch", "val", false).await;
    let (_, token) = app.team("ch", "Alpha").await;
    let id = app.submit("ch", &token, "val", demo_results(true)).await;
    // SPICE, Object, Relation, Attribute, Color, Count, Size.
    fake_aggregates(
        &app.pool,
        id,
        [
            Some(0.2),
            Some(0.4),
            Some(0.05),
            Some(0.1),
            Some(0.3),
            None,
            None,
        ],
    )
    .await;
    let human = reference_row(
        &app,
        "ch",
        true,
        [
            Some(0.5),
            Some(0.6),
            Some(0.0),
            Some(0.2),
            None,
            None,
            Some(0.1),
        ],
    )
    .await;
    let member = app.member("ch", "Alpha", "ann@example.org").await;
    let page = get(&app, &member, &format!("/s/{id}")).await;
    let svg = chart(&page, "profile-chart");
    assert_accessible_chart(svg, "profile-chart", "F per category: Alpha and Human");
    // The page's seven categories, each a row.
    assert_eq!(page.matches("<td>Object</td>").count(), 1, "{page}");
    for category in [
        "SPICE",
        "Object",
        "Relation",
        "Attribute",
        "Color",
        "Count",
        "Size",
    ] {
        assert!(
            svg.contains(&format!(">{category}</text>")),
            "{category}: {svg}"
        );
    }
    // Five defined F for the entry (Count and Size are not), five for the Human row (Color and
    // Count are not; its Relation is a real 0).
    assert_eq!(chart_marks(svg, "record"), [1; 5], "{svg}");
    assert_eq!(chart_marks(svg, "human-mark"), [1; 5], "{svg}");
    assert!(
        svg.contains("<title>Human, Relation: 0.000</title>"),
        "{svg}"
    );
    assert!(svg.contains(">undefined</text>"), "Count: {svg}");
    assert!(svg.contains(">Alpha: undefined</text>"), "Size: {svg}");
    assert!(svg.contains(">Human: undefined</text>"), "Color: {svg}");
    let desc = chart_desc(svg);
    assert!(
        desc.contains(
            "SPICE 0.200 (Human 0.500); Object 0.400 (Human 0.600); Relation 0.050 (Human 0.000); \
             Attribute 0.100 (Human 0.200); Color 0.300 (Human undefined); Count undefined \
             (Human undefined); Size undefined (Human 0.100)."
        ),
        "{desc}"
    );
    assert!(page.contains("beside the Human row"), "{page}");

    // The Human row's own page: its profile alone.
    app.log_in_as_organizer().await;
    let page = get(&app, &app.client, &format!("/s/{human}")).await;
    let svg = chart(&page, "profile-chart");
    assert_accessible_chart(svg, "profile-chart", "F per category: Human");
    assert!(chart_marks(svg, "human-mark").is_empty(), "{svg}");

    // A hidden split: its Human row is the organizers' until it is revealed.
    sqlx::query("UPDATE splits SET hidden = TRUE")
        .execute(&app.pool)
        .await
        .expect("hide");
    let page = get(&app, &member, &format!("/s/{id}")).await;
    let svg = chart(&page, "profile-chart");
    assert_accessible_chart(svg, "profile-chart", "F per category: Alpha");
    assert!(!svg.contains("Human"), "{svg}");
    assert!(
        page.contains("shows no Human row to compare with"),
        "{page}"
    );
    let page = get(&app, &app.client, &format!("/s/{id}")).await;
    assert_eq!(
        chart_marks(chart(&page, "profile-chart"), "human-mark").len(),
        5
    );
}

/// The compare page's histogram counts every image both entries scored once, on the side of
/// the entry that scored it higher.
#[tokio::test]
async fn the_compare_page_draws_the_per_image_differences() {
    let app = spawn_app_with(1, |_| {}).await;
    app.challenge_with_split("ch", "val", false).await;
    let mut ids = Vec::new();
    for (name, careful) in [("Careful", true), ("Hasty", false)] {
        let (_, token) = app.team("ch", name).await;
        let id = app.submit("ch", &token, "val", demo_results(careful)).await;
        app.assert_scored(id).await;
        ids.push(id);
    }
    let page = get(
        &app,
        &reqwest::Client::new(),
        &format!("/c/ch/compare?split=val&a={}&b={}", ids[0], ids[1]),
    )
    .await;
    assert!(page.contains("on the 20 images both scored"), "{page}");
    let svg = chart(&page, "differences-chart");
    assert_accessible_chart(
        svg,
        "differences-chart",
        "Per-image SPICE difference, A − B",
    );
    let bars: Vec<usize> = ["bar a", "bar b", "bar same"]
        .iter()
        .flat_map(|class| chart_marks(svg, class))
        .collect();
    assert_eq!(bars.iter().sum::<usize>(), 20, "{svg}");
    let desc = chart_desc(svg);
    assert!(
        desc.starts_with("Histogram of SPICE per image, A (Careful) minus B (Hasty), over 20 images: A higher on "),
        "{desc}"
    );
    // The careful captions win on most images: most of the histogram is right of the middle.
    let higher: usize = chart_marks(svg, "bar a").iter().sum();
    let lower: usize = chart_marks(svg, "bar b").iter().sum();
    assert!(higher > lower, "{higher} {lower}: {svg}");
    // The description's counts are the page's: the table under it lists every image whose SPICE
    // differs (20 at most, and there are 20).
    let number_after = |key: &str| -> usize {
        desc.split(key)
            .nth(1)
            .and_then(|t| t.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{key} in {desc}"))
    };
    let table = &page[page.find("id=\"images\"").expect("the images table")..];
    let listed = table[..table.find("</table>").expect("its end")]
        .matches("<tr><td>")
        .count();
    assert_eq!(
        listed,
        number_after("A higher on ") + number_after("B higher on "),
        "{desc}"
    );
}
