//! Cancelling a queued submission (issue 34, item 4): its team may, while no worker has it; the
//! quota comes back as for a submission that failed for the server's reasons; the page, the
//! history and the API say "cancelled"; a worker claiming the job at the same moment and the
//! cancel never both win; and nobody else cancels a team's submission.

use crate::helpers::{
    client, demo_results, fake_aggregates, fresh, spawn_app_with,
    until_a_statement_waits_for_a_lock, TestApp,
};
use spiceboard::storage::{challenges, queue, submissions};

/// `POST /api/submissions/{id}/cancel` as the holder of `token` (if any): status and body.
/// The API refuses to cancel submission `id` with 409 and an error that says `why`.
async fn assert_refused(app: &TestApp, id: i64, token: &str, why: &str) {
    let (status, body) = api_cancel(app, id, Some(token)).await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["error"].as_str().unwrap_or_default().contains(why),
        "{body}"
    );
}

async fn api_cancel(app: &TestApp, id: i64, token: Option<&str>) -> (u16, serde_json::Value) {
    let mut r = client().post(app.url(&format!("/api/submissions/{id}/cancel")));
    if let Some(t) = token {
        r = r.bearer_auth(t);
    }
    let r = r.send().await.expect("POST");
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(serde_json::Value::Null))
}

/// The submission's status and its jobs' states.
async fn states(app: &TestApp, id: i64) -> (String, Vec<String>) {
    let status = sqlx::query_scalar("SELECT status FROM submissions WHERE id = $1")
        .bind(id)
        .fetch_one(&app.pool)
        .await
        .expect("status");
    let jobs = sqlx::query_scalar("SELECT state FROM jobs WHERE submission_id = $1 ORDER BY id")
        .bind(id)
        .fetch_all(&app.pool)
        .await
        .expect("jobs");
    (status, jobs)
}

async fn text(browser: &reqwest::Client, url: String) -> (u16, String) {
    let r = browser.get(url).send().await.expect("GET");
    (r.status().as_u16(), r.text().await.expect("body"))
}

/// Lifts the challenge's upload limits (tests that upload more than a day's quota).
async fn no_limits(app: &TestApp) {
    let c = spiceboard::actions::challenge(&app.pool, "cx")
        .await
        .expect("challenge");
    challenges::set_limits(&app.pool, c.id, None, None, 1_000_000)
        .await
        .expect("no limits");
}

/// What is left of the team's quota: (in the next 24 hours, in total).
async fn quota(app: &TestApp, team: i64) -> (Option<i64>, Option<i64>) {
    let c = spiceboard::actions::challenge(&app.pool, "cx")
        .await
        .expect("challenge");
    let q = spiceboard::actions::quota_left(&app.pool, &c, team)
        .await
        .expect("quota");
    (q.today, q.total)
}

/// A challenge `cx` whose teams have 2 uploads a day and 5 in all, with team Owls (its token and
/// a member's browser) and no worker of its own: jobs stay queued until a test runs them.
async fn setup() -> (TestApp, i64, String, reqwest::Client) {
    let app = spawn_app_with(0, |_| {}).await;
    let c = app.challenge_with_split("cx", "val", false).await;
    challenges::set_limits(&app.pool, c.id, Some(2), Some(5), 1_000_000)
        .await
        .expect("limits");
    let (team, token) = app.team("cx", "Owls").await;
    let owl = app.member("cx", "Owls", "owl@example.org").await;
    (app, team, token, owl)
}

#[tokio::test]
async fn a_team_cancels_a_queued_submission_and_gets_its_quota_back() {
    let (app, team, token, owl) = setup().await;
    let id = app.submit("cx", &token, "val", demo_results(true)).await;
    assert_eq!(quota(&app, team).await, (Some(1), Some(4)));
    let stored_before = submissions::bytes_stored(&app.pool, team)
        .await
        .expect("bytes");

    // The status page offers it, and asks before doing it.
    let (_, page) = text(&owl, app.url(&format!("/s/{id}"))).await;
    assert!(
        page.contains(&format!(
            "<a href=\"/s/{id}/cancel\" id=\"cancel-link\">Cancel this submission…</a>"
        )),
        "{page}"
    );
    let (status, confirm) = text(&owl, app.url(&format!("/s/{id}/cancel"))).await;
    assert_eq!(status, 200);
    assert!(
        confirm.contains(&format!("<h1>Cancel submission {id}?</h1>"))
            && confirm.contains("now 1 left in the next 24 hours, 4 in total")
            && confirm.contains(&format!("action=\"/s/{id}/cancel\"")),
        "{confirm}"
    );
    assert_eq!(states(&app, id).await.0, "queued", "asking changes nothing");
    // The form needs its CSRF token.
    let r = owl
        .post(app.url(&format!("/s/{id}/cancel")))
        .form(&[("csrf", "0".repeat(64))])
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 403);
    assert_eq!(states(&app, id).await.0, "queued");

    let r = app
        .post_button(&owl, &format!("/s/{id}/cancel"), &format!("/s/{id}/cancel"))
        .await;
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], format!("/s/{id}"));
    assert_eq!(
        states(&app, id).await,
        ("cancelled".into(), vec!["cancelled".into()])
    );
    // Given back as a submission that failed for the server's reasons would be; the file stays
    // stored and counted, as a failed one's does.
    assert_eq!(quota(&app, team).await, (Some(2), Some(5)));
    assert_eq!(
        submissions::bytes_stored(&app.pool, team)
            .await
            .expect("bytes"),
        stored_before
    );
    let who: Option<String> = sqlx::query_scalar(
        "SELECT u.email FROM submissions s JOIN users u ON u.id = s.cancelled_by WHERE s.id = $1",
    )
    .bind(id)
    .fetch_optional(&app.pool)
    .await
    .expect("who");
    assert_eq!(who.as_deref(), Some("owl@example.org"));

    // The page, the history and the API say so; the page offers no cancel any more.
    let (_, page) = text(&owl, app.url(&format!("/s/{id}"))).await;
    assert!(
        page.contains("<strong id=\"status-text\">cancelled</strong>")
            && page.contains("id=\"cancelled\">Cancelled by its team on ")
            && !page.contains("id=\"cancel-link\"")
            && !page.contains("job(s) ahead"),
        "{page}"
    );
    let (_, history) = text(&owl, app.url("/c/cx/submit")).await;
    assert!(
        history.contains(&format!("<a href=\"/s/{id}\">{id}</a>"))
            && history.contains("<td>cancelled</td>"),
        "{history}"
    );
    let status = app.api_status(id, &token).await;
    assert_eq!(status["status"], "cancelled");
    assert!(status["cancelled_at"].is_string(), "{status}");
    assert!(status["queue_position"].is_null(), "{status}");

    // No worker ever scores it, and the same file may be uploaded again.
    assert_eq!(
        crate::helpers::run_jobs(&app, &app.engine, 10).await,
        0,
        "nothing to claim"
    );
    assert_eq!(states(&app, id).await.0, "cancelled");
    let again = app.submit("cx", &token, "val", demo_results(true)).await;
    assert_ne!(again, id);
    assert_eq!(quota(&app, team).await, (Some(1), Some(4)));
}

#[tokio::test]
async fn a_cancelled_submission_counts_as_one_that_failed_for_the_server() {
    let (app, team, token, _) = setup().await;
    let failed = app
        .submit("cx", &token, "val", fresh(demo_results(true)))
        .await;
    let cancelled = app
        .submit("cx", &token, "val", fresh(demo_results(true)))
        .await;
    assert_eq!(quota(&app, team).await, (Some(0), Some(3)));
    // The daily limit is spent: a third upload is refused.
    let r = app
        .api_upload("cx", &token, Some("val"), fresh(demo_results(false)))
        .await;
    assert_eq!(r.status(), 429);
    // One fails for the server's reasons, the other is cancelled: each gives its upload back.
    sqlx::query(
        "UPDATE submissions SET status = 'failed', failed_for_server = TRUE, error = 'crash'
         WHERE id = $1",
    )
    .bind(failed)
    .execute(&app.pool)
    .await
    .expect("fail");
    sqlx::query("UPDATE jobs SET state = 'failed' WHERE submission_id = $1")
        .bind(failed)
        .execute(&app.pool)
        .await
        .expect("fail job");
    assert_eq!(quota(&app, team).await, (Some(1), Some(4)));
    let (status, body) = api_cancel(&app, cancelled, Some(&token)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["id"], cancelled);
    assert_eq!(body["status"], "cancelled");
    assert_eq!(quota(&app, team).await, (Some(2), Some(5)));
    app.submit("cx", &token, "val", fresh(demo_results(false)))
        .await;
}

#[tokio::test]
async fn only_a_submission_waiting_for_its_first_score_can_be_cancelled() {
    let (app, _, token, owl) = setup().await;
    no_limits(&app).await;
    let running = app
        .submit("cx", &token, "val", fresh(demo_results(true)))
        .await;
    let claim = queue::claim(&app.pool, "worker-1", 30)
        .await
        .expect("claim")
        .expect("a job");
    assert_eq!(claim.job.submission_id, running);
    let (status, body) = api_cancel(&app, running, Some(&token)).await;
    assert_eq!(status, 409);
    assert_eq!(
        body["error"],
        format!(
            "submission {running} can no longer be cancelled: it is running; only a submission \
             still waiting in the queue for its first score can be"
        )
    );
    assert_eq!(
        states(&app, running).await,
        ("running".into(), vec!["running".into()])
    );
    // Nor through the form: no link, and the confirmation and the post say why, with a way back.
    let (_, page) = text(&owl, app.url(&format!("/s/{running}"))).await;
    assert!(!page.contains("id=\"cancel-link\""), "{page}");
    let (status, confirm) = text(&owl, app.url(&format!("/s/{running}/cancel"))).await;
    assert_eq!(status, 409);
    assert!(
        confirm.contains("it is running") && confirm.contains(&format!("href=\"/s/{running}\"")),
        "{confirm}"
    );
    let r = app
        .post_button(
            &owl,
            &format!("/s/{running}"),
            &format!("/s/{running}/cancel"),
        )
        .await;
    assert_eq!(r.status(), 409);

    // A scored one, and one that is queued again to be re-scored, are past cancelling.
    let scored = app
        .submit("cx", &token, "val", fresh(demo_results(true)))
        .await;
    fake_aggregates(&app.pool, scored, [Some(0.2); 7]).await;
    assert_eq!(api_cancel(&app, scored, Some(&token)).await.0, 409);
    let split = spiceboard::actions::split(
        &app.pool,
        &spiceboard::actions::challenge(&app.pool, "cx")
            .await
            .expect("challenge"),
        "val",
    )
    .await
    .expect("split");
    spiceboard::actions::rescore(&app.pool, &split, 3)
        .await
        .expect("rescore");
    assert_refused(&app, scored, &token, "it is scored").await;
    // A submission moved to new references waits again, but was scored before: not cancellable.
    sqlx::query("UPDATE submissions SET status = 'queued' WHERE id = $1")
        .bind(scored)
        .execute(&app.pool)
        .await
        .expect("queued again");
    assert_refused(
        &app,
        scored,
        &token,
        "waiting to be scored again (it was scored before)",
    )
    .await;
    // Cancelled already: once is enough.
    let queued = app
        .submit("cx", &token, "val", fresh(demo_results(false)))
        .await;
    assert_eq!(api_cancel(&app, queued, Some(&token)).await.0, 200);
    assert_refused(&app, queued, &token, "it is cancelled").await;
    // An organizer's re-score does not bring a cancelled submission back.
    let before: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM jobs WHERE submission_id = $1")
        .bind(queued)
        .fetch_one(&app.pool)
        .await
        .expect("jobs");
    spiceboard::actions::rescore(&app.pool, &split, 3)
        .await
        .expect("rescore");
    let after: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM jobs WHERE submission_id = $1")
        .bind(queued)
        .fetch_one(&app.pool)
        .await
        .expect("jobs");
    assert_eq!(after, before);
    assert_eq!(states(&app, queued).await.0, "cancelled");
    // The schema holds it too: cancelled is for good.
    let r = sqlx::query("UPDATE submissions SET status = 'running' WHERE id = $1")
        .bind(queued)
        .execute(&app.pool)
        .await;
    assert!(r.is_err(), "a cancelled submission became running");
}

#[tokio::test]
async fn nobody_but_the_team_cancels_its_submission() {
    let (app, _, token, _) = setup().await;
    let (_, foxes) = app.team("cx", "Foxes").await;
    let fox = app.member("cx", "Foxes", "fox@example.org").await;
    let id = app.submit("cx", &token, "val", demo_results(true)).await;

    // Another team, by token or in the browser: as if there were no such submission.
    assert_eq!(api_cancel(&app, id, Some(&foxes)).await.0, 404);
    assert_eq!(text(&fox, app.url(&format!("/s/{id}/cancel"))).await.0, 404);
    let r = app
        .post_button(&fox, "/c/cx", &format!("/s/{id}/cancel"))
        .await;
    assert_eq!(r.status(), 404);
    // Nobody logged in, no token.
    assert_eq!(api_cancel(&app, id, None).await.0, 401);
    let visitor = client();
    assert_eq!(
        text(&visitor, app.url(&format!("/s/{id}/cancel"))).await.0,
        401
    );
    let r = app
        .post_button(&visitor, "/login", &format!("/s/{id}/cancel"))
        .await;
    assert_eq!(r.status(), 401);
    // A token of another challenge's team.
    app.challenge_with_split("other", "val", false).await;
    let (_, elsewhere) = app.team("other", "Owls").await;
    assert_eq!(api_cancel(&app, id, Some(&elsewhere)).await.0, 404);
    // An organizer sees the submission, is not offered the cancel, and is refused it.
    app.log_in_as_organizer().await;
    let (_, page) = text(&app.client, app.url(&format!("/s/{id}"))).await;
    assert!(!page.contains("id=\"cancel-link\""), "{page}");
    let (status, body) = text(&app.client, app.url(&format!("/s/{id}/cancel"))).await;
    assert_eq!(status, 403);
    assert!(
        body.contains(
            "only the team that uploaded a submission may cancel it (organizers delete it instead)"
        ),
        "{body}"
    );
    let r = app
        .post_button(&app.client, "/admin", &format!("/s/{id}/cancel"))
        .await;
    assert_eq!(r.status(), 403);
    assert_eq!(states(&app, id).await.0, "queued", "still queued");
    // A deleted submission is nobody's to cancel.
    submissions::soft_delete(&app.pool, id)
        .await
        .expect("delete");
    assert_eq!(api_cancel(&app, id, Some(&token)).await.0, 404);
    assert_eq!(states(&app, id).await.0, "queued");
}

/// The race, made to happen both ways on purpose: a worker's claim holds the job's row when the
/// cancel arrives (the claim wins, the cancel answers 409 and changes nothing), and a cancel
/// holds it when the claim looks (the claim skips it, then finds nothing to do).
#[tokio::test]
async fn a_worker_claiming_the_job_and_a_cancel_never_both_win() {
    let (app, _, token, _) = setup().await;

    // The claim first: its transaction has locked the job's row (`claim`'s first statement)
    // when the cancel comes.
    let first = app
        .submit("cx", &token, "val", fresh(demo_results(true)))
        .await;
    let mut claim = app.pool.begin().await.expect("begin");
    let job: i64 = sqlx::query_scalar(
        "SELECT id FROM jobs WHERE state = 'queued' AND run_after <= now()
         ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED",
    )
    .fetch_one(&mut *claim)
    .await
    .expect("the claim's lock");
    let cancel = {
        let (address, token) = (app.address.clone(), token.clone());
        tokio::spawn(async move {
            let r = client()
                .post(format!("{address}/api/submissions/{first}/cancel"))
                .bearer_auth(token)
                .send()
                .await
                .expect("POST");
            r.status().as_u16()
        })
    };
    // A statement of the cancel (`queue::cancel_queued`).
    until_a_statement_waits_for_a_lock(&app, "cancelled_jobs", "the cancel").await;
    assert!(!cancel.is_finished(), "the cancel waits for the claim");
    // The rest of the claim, as `queue::claim` writes it.
    sqlx::query(
        "UPDATE jobs SET state = 'running', attempts = attempts + 1, locked_by = 'w' WHERE id = $1",
    )
    .bind(job)
    .execute(&mut *claim)
    .await
    .expect("running");
    sqlx::query("UPDATE submissions SET status = 'running' WHERE id = $1")
        .bind(first)
        .execute(&mut *claim)
        .await
        .expect("running");
    claim.commit().await.expect("commit");
    assert_eq!(cancel.await.expect("the cancel"), 409);
    assert_eq!(
        states(&app, first).await,
        ("running".into(), vec!["running".into()])
    );

    // The cancel first: its statement holds the job's row (here it waits on the submission's
    // row, which a test transaction holds) when a worker looks for work.
    let second = app
        .submit("cx", &token, "val", fresh(demo_results(false)))
        .await;
    let mut hold = app.pool.begin().await.expect("begin");
    sqlx::query("SELECT id FROM submissions WHERE id = $1 FOR UPDATE")
        .bind(second)
        .execute(&mut *hold)
        .await
        .expect("hold the submission");
    let cancel = {
        let (address, token) = (app.address.clone(), token.clone());
        tokio::spawn(async move {
            client()
                .post(format!("{address}/api/submissions/{second}/cancel"))
                .bearer_auth(token)
                .send()
                .await
                .expect("POST")
                .status()
                .as_u16()
        })
    };
    // A statement of the cancel (`queue::cancel_queued`).
    until_a_statement_waits_for_a_lock(&app, "cancelled_jobs", "the cancel").await;
    assert!(!cancel.is_finished(), "the cancel holds the job and waits");
    assert!(
        queue::claim(&app.pool, "worker-2", 30)
            .await
            .expect("claim")
            .is_none(),
        "the claim skips the job the cancel holds"
    );
    hold.commit().await.expect("release");
    assert_eq!(cancel.await.expect("the cancel"), 200);
    assert_eq!(
        states(&app, second).await,
        ("cancelled".into(), vec!["cancelled".into()])
    );
    assert!(queue::claim(&app.pool, "worker-2", 30)
        .await
        .expect("claim")
        .is_none());
}

/// The race run for real, many times: a worker's `claim` and a cancel sent at once. Whichever
/// wins, exactly one does, and the database agrees with the answers.
#[tokio::test]
async fn racing_claims_and_cancels_agree_every_time() {
    let (app, _, token, _) = setup().await;
    no_limits(&app).await;
    let (mut claimed, mut cancelled) = (0, 0);
    for round in 0..16 {
        let id = app
            .submit("cx", &token, "val", fresh(demo_results(round % 2 == 0)))
            .await;
        let (claim, (status, body)) = tokio::join!(
            queue::claim(&app.pool, "racer", 30),
            api_cancel(&app, id, Some(&token))
        );
        let claim = claim.expect("claim");
        match (claim, status) {
            (Some(c), 409) => {
                assert_eq!(c.job.submission_id, id);
                assert_eq!(
                    states(&app, id).await,
                    ("running".into(), vec!["running".into()])
                );
                claimed += 1;
                // Done with it, so that the next round's claim finds the next job.
                sqlx::query("UPDATE jobs SET state = 'succeeded' WHERE id = $1")
                    .bind(c.job.id)
                    .execute(&app.pool)
                    .await
                    .expect("end");
            }
            (None, 200) => {
                assert_eq!(
                    states(&app, id).await,
                    ("cancelled".into(), vec!["cancelled".into()])
                );
                cancelled += 1;
            }
            (c, s) => panic!("round {round}: claim {c:?} and cancel {s} {body}"),
        }
    }
    eprintln!("claims won {claimed}, cancels won {cancelled}");
    assert_eq!(claimed + cancelled, 16);
}

/// New references with the submissions re-scored against them: a cancelled submission stays
/// behind with the old version, cancelled, and no job is queued for it.
#[tokio::test]
async fn new_references_leave_a_cancelled_submission_cancelled() {
    let (app, _, token, _) = setup().await;
    let cancelled = app
        .submit("cx", &token, "val", fresh(demo_results(true)))
        .await;
    assert_eq!(api_cancel(&app, cancelled, Some(&token)).await.0, 200);
    let scored = app
        .submit("cx", &token, "val", fresh(demo_results(false)))
        .await;
    fake_aggregates(&app.pool, scored, [Some(0.2); 7]).await;
    let c = spiceboard::actions::challenge(&app.pool, "cx")
        .await
        .expect("challenge");
    let report = spiceboard::actions::import_references(
        &app.pool,
        &app.engine,
        &c,
        &spiceboard::domain::SplitName::parse("val").expect("split"),
        crate::helpers::demo_references(),
        spiceboard::actions::ImportMode {
            hidden: false,
            replace: true,
            rescore_with_attempts: Some(3),
        },
    )
    .await
    .expect("new references");
    assert_eq!(
        report.carried_over, 1,
        "the scored one moves, the cancelled one stays"
    );
    let split_of = |id: i64| {
        let pool = app.pool.clone();
        async move {
            sqlx::query_scalar::<_, i64>("SELECT split_id FROM submissions WHERE id = $1")
                .bind(id)
                .fetch_one(&pool)
                .await
                .expect("split")
        }
    };
    assert_eq!(split_of(scored).await, report.split_id);
    assert_ne!(split_of(cancelled).await, report.split_id);
    assert_eq!(
        states(&app, cancelled).await,
        ("cancelled".into(), vec!["cancelled".into()])
    );
}
