//! Issue 11: each attack that once worked against the server, replayed against a real server and
//! database, now doing no harm.

use std::time::{Duration, Instant};

use crate::helpers::{client, demo_references, demo_results, spawn_app_with, TestApp};

/// Signs `email` up in `browser` and creates team `team` in challenge `slug`.
async fn member_with_team(
    app: &TestApp,
    browser: &reqwest::Client,
    slug: &str,
    email: &str,
    team: &str,
) {
    let csrf = app.csrf_of(browser, "/signup").await;
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
    let csrf = app.csrf_of(browser, &format!("/c/{slug}")).await;
    let r = browser
        .post(app.url(&format!("/c/{slug}/team")))
        .form(&[("csrf", csrf.as_str()), ("name", team)])
        .send()
        .await
        .expect("POST team");
    assert_eq!(r.status(), 200);
}

async fn get(browser: &reqwest::Client, url: String) -> (u16, String) {
    let r = browser.get(url).send().await.expect("GET");
    (r.status().as_u16(), r.text().await.expect("body"))
}

/// Every reference caption of the demo split.
fn reference_captions() -> Vec<String> {
    let refs: serde_json::Value = serde_json::from_slice(&demo_references()).expect("json");
    refs["annotations"]
        .as_array()
        .expect("annotations")
        .iter()
        .filter_map(|a| a["caption"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn a_hidden_split_shows_a_team_its_aggregates_only_until_revealed() {
    let app = spawn_app_with(1, |_| {}).await;
    app.challenge_with_split("hid", "test", true).await;
    let team = client();
    member_with_team(&app, &team, "hid", "ann@example.org", "Owls").await;
    let r = app
        .form_upload(&team, "hid", "test", demo_results(true))
        .await;
    assert_eq!(r.status(), 303);
    let location = r.headers()["location"]
        .to_str()
        .expect("location")
        .to_string();
    let id: i64 = location.trim_start_matches("/s/").parse().expect("id");
    app.assert_scored(id).await;
    let refs = reference_captions();
    let leaks = |body: &str| refs.iter().filter(|c| body.contains(c.as_str())).count();

    // The team: aggregates and categories, no per-image table, no image page, no references.
    let (status, page) = get(&team, app.url(&location)).await;
    assert_eq!(status, 200);
    assert!(page.contains("id=\"categories\""), "aggregates are shown");
    assert!(
        !page.contains("id=\"images\"") && !page.contains("/images/"),
        "no per-image table"
    );
    assert!(page.contains("id=\"per-image-hidden\""));
    assert_eq!(leaks(&page), 0);
    for path in [format!("/s/{id}/images/1"), format!("/s/{id}?page=1")] {
        let (status, body) = get(&team, app.url(&path)).await;
        assert!(
            status == 404 || !body.contains("/images/"),
            "{path}: {status}"
        );
        assert_eq!(leaks(&body), 0, "{path} shows references");
    }
    let (status, _) = get(&team, app.url(&format!("/s/{id}/images/1"))).await;
    assert_eq!(status, 404);
    // ...nor through JSON or CSV.
    for path in [
        format!("/api/submissions/{id}"),
        format!("/s/{id}/status"),
        "/c/hid/leaderboard.json?split=test".to_string(),
        "/c/hid/leaderboard.csv?split=test".to_string(),
    ] {
        let (status, body) = get(&team, app.url(&path)).await;
        assert_eq!(status, 200, "{path}");
        assert_eq!(leaks(&body), 0, "{path} shows references");
        assert!(!body.contains("image_id"), "{path} shows per-image results");
    }

    // An organizer sees everything.
    let organizer = client();
    let hash = spiceboard::auth::hash_password("organizer-password").expect("hash");
    spiceboard::storage::accounts::create_user(&app.pool, "org@example.org", &hash, true)
        .await
        .expect("organizer");
    let csrf = app.csrf_of(&organizer, "/login").await;
    organizer
        .post(app.url("/login"))
        .form(&[
            ("email", "org@example.org"),
            ("password", "organizer-password"),
            ("csrf", &csrf),
        ])
        .send()
        .await
        .expect("login");
    let (_, page) = get(&organizer, app.url(&location)).await;
    assert!(page.contains("id=\"images\""));
    let (status, image) = get(&organizer, app.url(&format!("/s/{id}/images/1"))).await;
    assert_eq!(status, 200);
    assert!(leaks(&image) > 0, "organizers see the references");

    // Revealed, the split is public: the team sees its per-image results too.
    let split_id: i64 = sqlx::query_scalar("SELECT id FROM splits WHERE name = 'test'")
        .fetch_one(&app.pool)
        .await
        .expect("split");
    spiceboard::storage::splits::set_hidden(&app.pool, split_id, false)
        .await
        .expect("reveal");
    let (status, image) = get(&team, app.url(&format!("/s/{id}/images/1"))).await;
    assert_eq!(status, 200);
    assert!(leaks(&image) > 0);
}

/// Current and peak resident memory of a process, in kB (`VmRSS`, `VmHWM`).
fn memory_kb(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The real binary serving a fresh database; killed when dropped.
struct Served {
    child: std::process::Child,
    address: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn serve_binary(url: &str) -> Served {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_spiceboard"))
        .args([
            "serve",
            "--no-seed",
            "--workers",
            "0",
            "--bind",
            &format!("127.0.0.1:{port}"),
        ])
        .env("DATABASE_URL", url)
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn spiceboard serve");
    let served = Served {
        child,
        address: format!("http://127.0.0.1:{port}"),
    };
    for _ in 0..200 {
        if let Ok(r) = reqwest::get(format!("{}/health", served.address)).await {
            if r.status() == 200 {
                return served;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("spiceboard serve did not come up");
}

#[tokio::test]
async fn a_flood_of_form_fields_is_cut_off_early_and_costs_the_server_no_memory() {
    use secrecy::ExposeSecret;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("fl", "val", false).await;
    let (_, token) = app.team("fl", "Owls").await;
    let url: String = sqlx::query_scalar("SELECT current_database()::TEXT")
        .fetch_one(&app.pool)
        .await
        .map(|db: String| {
            let base = app
                .settings
                .database
                .url
                .as_ref()
                .expect("url")
                .expose_secret()
                .to_string();
            format!("{}/{db}", &base[..base.rfind('/').expect("a path")])
        })
        .expect("database name");
    let served = serve_binary(&url).await;
    let pid = served.child.id();
    // Warm up: one real upload, so that what the server holds anyway is counted before.
    let form = reqwest::multipart::Form::new().text("split", "val").part(
        "file",
        reqwest::multipart::Part::bytes(demo_results(true)).file_name("r.json"),
    );
    let r = reqwest::Client::new()
        .post(format!("{}/api/c/fl/submissions", served.address))
        .bearer_auth(&token)
        .multipart(form)
        .send()
        .await
        .expect("upload");
    assert_eq!(r.status(), 202);
    let (_, peak_before) = memory_kb(pid);

    // 16,000 text fields of 60 KB (960 MB) once cost the server +920 MB, never returned. Written
    // by hand so that the client holds one field at a time.
    let field = format!("{}\r\n", "x".repeat(60 * 1024));
    let fields = 16_000usize;
    let mut stream = tokio::net::TcpStream::connect(served.address.trim_start_matches("http://"))
        .await
        .expect("connect");
    let part =
        |i: usize| format!("--B\r\nContent-Disposition: form-data; name=\"f{i}\"\r\n\r\n{field}");
    // Chunked, with no length to refuse up front: the caps must hold while the body streams.
    let head = format!(
        "POST /api/c/fl/submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: multipart/form-data; boundary=B\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.expect("head");
    let mut sent = 0;
    for i in 0..fields {
        let p = part(i);
        // The server answers and stops reading long before the end: writing then fails.
        let chunk = format!("{:x}\r\n{p}\r\n", p.len());
        if stream.write_all(chunk.as_bytes()).await.is_err() {
            break;
        }
        sent += 1;
    }
    let _ = stream.write_all(b"8\r\n--B--\r\n\r\n0\r\n\r\n").await;
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.is_empty()
            || (answer.starts_with("HTTP/1.1 400")
                && answer.contains("text fields are larger than")),
        "{}",
        &answer[..answer.len().min(300)]
    );
    let (rss_after, peak_after) = memory_kb(pid);
    eprintln!("field flood: server peak {peak_before} kB -> {peak_after} kB; {sent} fields sent");
    assert!(
        peak_after < peak_before + 50 * 1024,
        "the server's peak memory grew from {peak_before} kB to {peak_after} kB (now {rss_after} kB); {sent} fields were sent"
    );
    // Nothing more was stored, and the server still answers.
    let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM submissions")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(stored, 1);
    let health = reqwest::get(format!("{}/health", served.address))
        .await
        .expect("GET");
    assert_eq!(health.status(), 200);
}

#[tokio::test]
async fn a_browser_upload_is_refused_before_its_file_is_read_without_csrf() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("cf", "val", false).await;
    let browser = client();
    member_with_team(&app, &browser, "cf", "ann@example.org", "Owls").await;
    // The file comes first, with a forged token after it: refused at the file.
    let form = reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(demo_results(true)).file_name("r.json"),
        )
        .text("csrf", "0".repeat(64));
    let r = browser
        .post(app.url("/c/cf/submit"))
        .multipart(form)
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 403);
    // Any 64-character value echoed back is no token either.
    let cookie_like = spiceboard::auth::new_token();
    let r = client()
        .post(app.url("/login"))
        .header("Cookie", format!("sb_csrf={cookie_like}"))
        .form(&[
            ("email", "ann@example.org"),
            ("password", "a long password"),
            ("csrf", &cookie_like),
        ])
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 403);
}

/// A hand-written upload refused part way: the answer, how many bytes of file were written before
/// it began to arrive, and whether the server then closed the connection (instead of reading the
/// rest of the body to keep it).
struct Refusal {
    answer: String,
    sent_before_answer: usize,
    closed: bool,
}

/// Posts a team's upload by hand: `head`, then the start of a file part and up to `total` bytes of
/// file, while reading the answer; stops writing once the answer begins.
async fn upload_until_refused(address: &str, head: String, total: usize) -> Refusal {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let chunked = head.contains("Transfer-Encoding: chunked");
    let stream = tokio::net::TcpStream::connect(address.trim_start_matches("http://"))
        .await
        .expect("connect");
    let (mut from_server, mut to_server) = stream.into_split();
    let answered = Arc::new(AtomicBool::new(false));
    let reader = {
        let answered = answered.clone();
        tokio::spawn(async move {
            let mut answer = Vec::new();
            let mut buf = [0u8; 4096];
            let read_all = async {
                loop {
                    match from_server.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => {
                            answered.store(true, Ordering::SeqCst);
                            answer.extend_from_slice(&buf[..n]);
                        }
                    }
                }
            };
            let closed = tokio::time::timeout(Duration::from_secs(10), read_all)
                .await
                .is_ok();
            (String::from_utf8_lossy(&answer).into_owned(), closed)
        })
    };
    let part =
        b"--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"r.json\"\r\n\r\n[";
    let block = vec![b' '; 64 * 1024];
    let frame = |data: &[u8]| -> Vec<u8> {
        if chunked {
            let mut framed = format!("{:x}\r\n", data.len()).into_bytes();
            framed.extend_from_slice(data);
            framed.extend_from_slice(b"\r\n");
            framed
        } else {
            data.to_vec()
        }
    };
    to_server.write_all(head.as_bytes()).await.expect("head");
    let mut sent = 0;
    if to_server.write_all(&frame(part)).await.is_ok() {
        while sent < total && !answered.load(Ordering::SeqCst) {
            let framed = frame(&block);
            let write = to_server.write_all(&framed);
            match tokio::time::timeout(Duration::from_secs(5), write).await {
                Ok(Ok(())) => sent += block.len(),
                _ => break,
            }
        }
    }
    let (answer, closed) = reader.await.expect("reader");
    Refusal {
        answer,
        sent_before_answer: sent,
        closed,
    }
}

#[tokio::test]
async fn a_team_upload_far_over_the_file_limit_is_cut_off_early() {
    let app = spawn_app_with(0, |_| {}).await;
    let c = app.challenge_with_split("big", "val", false).await;
    spiceboard::storage::challenges::set_limits(&app.pool, c.id, None, None, 100_000)
        .await
        .expect("limits");
    let (_, token) = app.team("big", "Owls").await;
    let total = 64 * 1024 * 1024;
    let post = format!(
        "POST /api/c/big/submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: multipart/form-data; boundary=B\r\n"
    );
    // A declared length over the cap (the file limit + 64 KiB, not the server's 256 MiB) is
    // refused before the body is read; without one, once the bytes pass the cap.
    for head in [
        format!("{post}Content-Length: {}\r\n\r\n", total + 200),
        format!("{post}Transfer-Encoding: chunked\r\n\r\n"),
    ] {
        let r = upload_until_refused(&app.address, head.clone(), total).await;
        eprintln!(
            "{} bytes of file written before the answer",
            r.sent_before_answer
        );
        assert!(r.answer.starts_with("HTTP/1.1 413"), "{head}: {}", r.answer);
        assert!(
            r.answer
                .contains("this challenge accepts files of at most 97.7 KB"),
            "{}",
            r.answer
        );
        // The cap plus what the sockets' buffers hold, not the 64 MiB sent by the client.
        assert!(
            r.sent_before_answer < 16 * 1024 * 1024,
            "{} bytes were taken before the refusal",
            r.sent_before_answer
        );
        assert!(
            r.closed,
            "the server kept reading the refused body: {}",
            r.answer
        );
    }
    // A file just over the limit, within the cap, is still read and refused by name.
    let (status, e) = api_error(&app, "big", &token, vec![b' '; 100_001]).await;
    assert_eq!(status, 413);
    assert!(
        e.contains("the file is 97.7 KB (100001 bytes); this challenge accepts at most 97.7 KB (100000 bytes)"),
        "{e}"
    );
    let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM submissions")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(stored, 0);
    app.submit("big", &token, "val", demo_results(true)).await;
}

/// An upload outside the challenge's phase was received to its end, a whole file up to the
/// challenge's limit, and only then refused: after the close a team could keep the server reading
/// file after file that no quota counts. The phase is checked with the token, before the file.
#[tokio::test]
async fn an_upload_outside_the_phase_is_refused_before_its_file_is_read() {
    use spiceboard::domain::phase::Phase;
    use spiceboard::storage::challenges;
    let app = spawn_app_with(0, |_| {}).await;
    let c = app.challenge_with_split("late", "val", false).await;
    challenges::set_limits(&app.pool, c.id, None, None, 100_000_000)
        .await
        .expect("limits");
    let closed = chrono::Utc::now() - chrono::Duration::hours(1);
    let phase = Phase::new(None, Some(closed)).expect("phase");
    challenges::set_phase(&app.pool, c.id, phase)
        .await
        .expect("phase");
    let (_, token) = app.team("late", "Owls").await;
    // 64 MiB of file, well within the 100 MB limit.
    let head = format!(
        "POST /api/c/late/submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: multipart/form-data; boundary=B\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    let r = upload_until_refused(&app.address, head, 64 * 1024 * 1024).await;
    eprintln!(
        "{} bytes of file written before the answer",
        r.sent_before_answer
    );
    assert!(r.answer.starts_with("HTTP/1.1 403"), "{}", r.answer);
    assert!(r.answer.contains("submissions closed at"), "{}", r.answer);
    assert!(
        r.sent_before_answer < 16 * 1024 * 1024,
        "{} bytes were taken before the refusal",
        r.sent_before_answer
    );
    assert!(r.closed, "the server kept reading the refused body");
}

async fn api_error(app: &TestApp, slug: &str, token: &str, file: Vec<u8>) -> (u16, String) {
    let r = app.api_upload(slug, token, Some("val"), file).await;
    let status = r.status().as_u16();
    let body: serde_json::Value = r.json().await.expect("JSON");
    (
        status,
        body["error"].as_str().unwrap_or_default().to_string(),
    )
}

#[tokio::test]
async fn other_keys_are_ignored_and_control_characters_refused_naming_the_entry() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("nul", "val", false).await;
    let (_, token) = app.team("nul", "Owls").await;
    let mut results: Vec<serde_json::Value> =
        serde_json::from_slice(&demo_results(true)).expect("json");

    let mut nul = results.clone();
    nul[4]["caption"] = serde_json::json!("a dog\u{0}on a couch");
    let (status, e) = api_error(&app, "nul", &token, serde_json::to_vec(&nul).expect("json")).await;
    assert_eq!(status, 400);
    assert!(
        e.contains("control characters") && e.contains("entry 5 (image_id") && e.contains("U+0000"),
        "{e}"
    );

    // Keys other than image_id and caption are ignored, as pycocoevalcap ignores them: the file
    // is taken (its size is bounded by the challenge's limit) and the keys are listed.
    results[3]["padding"] = serde_json::json!("x".repeat(100_000));
    let r = app
        .api_upload(
            "nul",
            &token,
            Some("val"),
            serde_json::to_vec(&results).expect("json"),
        )
        .await;
    assert_eq!(r.status(), 202);
    let body: serde_json::Value = r.json().await.expect("JSON");
    assert_eq!(
        body["note"],
        "keys other than \"image_id\" and \"caption\" were ignored (as pycocoevalcap ignores \
         them): \"padding\" (entry 4)"
    );
    let id = body["id"].as_i64().expect("id");
    assert_eq!(app.api_status(id, &token).await["note"], body["note"]);

    // A file of millions of bad entries is answered quickly, naming a few.
    let mut zeros = b"[".to_vec();
    for _ in 0..2_000_000 {
        zeros.extend_from_slice(b"0,");
    }
    zeros.extend_from_slice(b"0]");
    let (status, e) = api_error(&app, "nul", &token, zeros).await;
    assert_eq!(status, 400);
    assert!(
        e.starts_with("2000001 malformed entries (first 5): entry 1 is a number"),
        "{e}"
    );
    assert_eq!(e.matches("entry").count(), 5, "{e}");

    // A NUL in a description is refused with a message, not a 500.
    let form = reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(demo_results(true)).file_name("r.json"),
        )
        .text("split", "val")
        .text("description", "run\u{0}1");
    let r = reqwest::Client::new()
        .post(app.url("/api/c/nul/submissions"))
        .bearer_auth(&token)
        .multipart(form)
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 400);
    let body: serde_json::Value = r.json().await.expect("json");
    assert!(
        body["error"]
            .as_str()
            .unwrap_or("")
            .contains("control characters"),
        "{body}"
    );

    let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM submissions")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(
        stored, 1,
        "nothing refused is stored or counted: only the file with a key ignored"
    );
}

#[tokio::test]
async fn new_challenges_have_quotas_and_a_cap_on_stored_bytes() {
    let app = spawn_app_with(0, |_| {}).await;
    let c = app.challenge_with_split("q", "val", false).await;
    assert_eq!(
        (c.daily_submission_limit, c.total_submission_limit),
        (Some(10), Some(200))
    );
    assert!(c.max_team_bytes.is_some());
    let (_, token) = app.team("q", "Owls").await;
    let (first, second) = (demo_results(true), demo_results(false));
    spiceboard::storage::challenges::set_max_team_bytes(
        &app.pool,
        c.id,
        Some((first.len() + second.len()) as i64),
    )
    .await
    .expect("cap");
    app.submit("q", &token, "val", first.clone()).await;
    app.submit("q", &token, "val", second).await;
    let (status, e) = api_error(&app, "q", &token, crate::helpers::fresh(first)).await;
    assert_eq!(status, 429);
    assert!(e.contains("bytes per team"), "{e}");
}

#[tokio::test]
async fn login_redirects_stay_on_this_site() {
    let app = spawn_app_with(0, |_| {}).await;
    let browser = client();
    let csrf = app.csrf_of(&browser, "/signup").await;
    browser
        .post(app.url("/signup"))
        .form(&[
            ("email", "ann@example.org"),
            ("password", "a long password"),
            ("csrf", &csrf),
        ])
        .send()
        .await
        .expect("signup");
    for (next, to) in [
        ("/\t/evil.example", "/"),
        ("/\\evil.example", "/"),
        ("//evil.example", "/"),
        ("/x\r\nSet-Cookie: a=b", "/"),
        ("/c/demo", "/c/demo"),
    ] {
        let csrf = app.csrf_of(&browser, "/login").await;
        let r = browser
            .post(app.url("/login"))
            .form(&[
                ("email", "ann@example.org"),
                ("password", "a long password"),
                ("csrf", &csrf),
                ("next", next),
            ])
            .send()
            .await
            .expect("login");
        assert_eq!(r.status(), 303, "{next:?}");
        assert_eq!(r.headers()["location"], to, "{next:?}");
        let (status, page) = get(
            &browser,
            app.url(&format!("/login?next={}", urlencode(next))),
        )
        .await;
        assert_eq!(status, 200);
        assert!(!page.contains("evil.example"), "{next:?}");
    }
}

/// Issue 35, F7: a slug with a line break went unchecked into the `Location` of the submit page's
/// login redirect; actix refused the header and answered 500, logging an ERROR. A slug that can
/// name no challenge is simply not found, wherever it is in the path, logged in or not.
#[tokio::test]
async fn a_slug_with_a_line_break_is_not_found() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("hs", "val", false).await;
    let member = client();
    member_with_team(&app, &member, "hs", "ann@example.org", "Owls").await;
    for browser in [client(), member] {
        for rest in [
            "/submit",
            "",
            "/leaderboard",
            "/leaderboard.csv",
            "/join/abc",
        ] {
            let path = format!("/c/x%0d%0aSet-Cookie:%20a=b{rest}");
            let r = browser.get(app.url(&path)).send().await.expect("GET");
            assert_eq!(r.status(), 404, "{path}");
            assert!(
                r.headers()
                    .get_all("set-cookie")
                    .iter()
                    .all(|c| !c.as_bytes().starts_with(b"a=")),
                "{path}"
            );
            let page = r.text().await.expect("body");
            assert!(page.contains("not found"), "{path}: {page}");
        }
    }
    // A well-formed slug still goes to the login page first.
    let r = client()
        .get(app.url("/c/hs/submit"))
        .send()
        .await
        .expect("GET");
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/login?next=/c/hs/submit");
}

fn urlencode(s: &str) -> String {
    s.bytes().map(|b| format!("%{b:02X}")).collect()
}

#[tokio::test]
async fn csv_cells_that_spreadsheets_would_run_are_neutralised() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("csv", "val", false).await;
    let evil = "=HYPERLINK(\"http://evil.example\",\"x\")";
    let mut ids = Vec::new();
    for name in [evil, "+1", "-1", "@SUM(A1)", "Owls"] {
        let (_, token) = app.team("csv", name).await;
        let id = app.submit("csv", &token, "val", demo_results(true)).await;
        crate::helpers::fake_aggregates(&app.pool, id, [Some(0.2); 7]).await;
        ids.push(id);
    }
    let (status, body) = get(&client(), app.url("/c/csv/leaderboard.csv?split=val")).await;
    assert_eq!(status, 200);
    let mut reader = csv::Reader::from_reader(body.as_bytes());
    let names: Vec<String> = reader
        .records()
        .map(|r| r.expect("record")[2].to_string())
        .collect();
    assert_eq!(names.len(), 5);
    for n in &names {
        assert!(!n.starts_with(['=', '+', '-', '@', '\t', '\r']), "{n:?}");
    }
    assert!(names.contains(&format!("'{evil}")) && names.contains(&"Owls".to_string()));
    // The organizer's export goes through the same writer.
    app.log_in_as_organizer().await;
    let (status, body) = get(&app.client, app.url("/admin/c/csv/export.csv?split=val")).await;
    assert_eq!(status, 200);
    assert!(
        body.contains(&format!("\"'{}\"", evil.replace('"', "\"\""))),
        "{body}"
    );
}

#[tokio::test]
async fn one_user_gets_one_team_however_many_requests_race() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("race", "val", false).await;
    let csrf = app.csrf("/signup").await;
    app.client
        .post(app.url("/signup"))
        .form(&[
            ("email", "ann@example.org"),
            ("password", "a long password"),
            ("csrf", &csrf),
        ])
        .send()
        .await
        .expect("signup");
    let csrf = app.csrf("/c/race").await;
    let requests = (0..12).map(|i| {
        let (browser, url, csrf) = (app.client.clone(), app.url("/c/race/team"), csrf.clone());
        tokio::spawn(async move {
            browser
                .post(url)
                .form(&[("csrf", csrf), ("name", format!("Team {i}"))])
                .send()
                .await
                .map(|r| r.status().as_u16())
        })
    });
    let statuses: Vec<u16> = futures_util::future::join_all(requests)
        .await
        .into_iter()
        .map(|r| r.expect("task").expect("request"))
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| matches!(s, 200 | 400)),
        "{statuses:?}"
    );
    let (teams, memberships): (i64, i64) =
        sqlx::query_as("SELECT (SELECT COUNT(*) FROM teams), (SELECT COUNT(*) FROM team_members)")
            .fetch_one(&app.pool)
            .await
            .expect("count");
    assert_eq!(
        (teams, memberships),
        (1, 1),
        "no team without its member is left behind"
    );
}

#[tokio::test]
async fn leaderboard_json_shows_public_fields_only() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("pub", "val", false).await;
    let (_, token) = app.team("pub", "Owls").await;
    let id = app.submit("pub", &token, "val", demo_results(true)).await;
    crate::helpers::fake_aggregates(&app.pool, id, [Some(0.2); 7]).await;
    let (_, body) = get(&client(), app.url("/c/pub/leaderboard.json?split=val")).await;
    let v: serde_json::Value = serde_json::from_str(&body).expect("json");
    let entry = &v["entries"][0];
    assert_eq!(entry["name"], "Owls");
    assert!(
        entry.get("description").is_none() && entry.get("team_id").is_none(),
        "{entry}"
    );
    assert!(!body.contains("test run"), "the private description");
}

/// Guessing one account's password is throttled from each address, and from all of them
/// together; a stranger's ten bad guesses do not lock the owner out.
#[tokio::test]
async fn password_guessing_is_throttled_per_account() {
    use spiceboard::actions::{
        LOGIN_FAILURES_PER_ACCOUNT, LOGIN_FAILURES_PER_ACCOUNT_FROM_ADDRESS,
    };
    let app = spawn_app_with(0, |_| {}).await;
    app.sign_up("ann@example.org", "the right password").await;
    let guess = |browser: reqwest::Client, password: String| {
        let app = &app;
        async move {
            let csrf = app.csrf_of(&browser, "/login").await;
            browser
                .post(app.url("/login"))
                .form(&[
                    ("email", "ann@example.org"),
                    ("password", password.as_str()),
                    ("csrf", csrf.as_str()),
                ])
                .send()
                .await
                .expect("login")
                .status()
                .as_u16()
        }
    };
    let guesser = client_at("127.0.0.20");
    let mut statuses = Vec::new();
    for i in 0..LOGIN_FAILURES_PER_ACCOUNT_FROM_ADDRESS + 2 {
        statuses.push(guess(guesser.clone(), format!("guess {i}")).await);
    }
    assert_stopped_after(&statuses, 400, LOGIN_FAILURES_PER_ACCOUNT_FROM_ADDRESS);
    // From there the right password does not get through either, for now...
    let right = || "the right password".to_string();
    assert_eq!(guess(guesser.clone(), right()).await, 429);
    // ...while the owner, elsewhere, logs in.
    assert_eq!(guess(client_at("127.0.0.21"), right()).await, 303);
    // Guesses spread over many addresses stop at the account's own limit, for everyone.
    let mut done = LOGIN_FAILURES_PER_ACCOUNT_FROM_ADDRESS;
    let mut host = 22;
    while done < LOGIN_FAILURES_PER_ACCOUNT {
        let browser = client_at(&format!("127.0.0.{host}"));
        for _ in
            0..(LOGIN_FAILURES_PER_ACCOUNT_FROM_ADDRESS - 1).min(LOGIN_FAILURES_PER_ACCOUNT - done)
        {
            assert_eq!(
                guess(browser.clone(), format!("guess {done}")).await,
                400,
                "guess {done}"
            );
            done += 1;
        }
        host += 1;
    }
    assert_eq!(guess(client_at("127.0.0.21"), right()).await, 429);
}

/// A browser at its own loopback address that opens a new connection (a new source port) for every
/// request, so that throttling has to count the address, not the connection.
fn client_at(ip: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .local_address(ip.parse::<std::net::IpAddr>().expect("an address"))
        .pool_max_idle_per_host(0)
        .build()
        .expect("a reqwest client")
}

/// Posts the login or sign-up form from `browser`, with an `X-Forwarded-For` header if given.
async fn post_credentials(
    app: &TestApp,
    browser: &reqwest::Client,
    path: &str,
    email: &str,
    password: &str,
    forwarded_for: Option<&str>,
) -> u16 {
    let csrf = app.csrf_of(browser, path).await;
    let mut request = browser.post(app.url(path)).form(&[
        ("email", email),
        ("password", password),
        ("csrf", &csrf),
    ]);
    if let Some(f) = forwarded_for {
        request = request.header("X-Forwarded-For", f);
    }
    request.send().await.expect("POST").status().as_u16()
}

/// `limit + 1` posts of `path` from `browser`, each for another account (`{prefix}{i}@example.org`)
/// and each with another forged X-Forwarded-For.
async fn one_account_each(
    app: &TestApp,
    browser: &reqwest::Client,
    path: &str,
    prefix: &str,
    limit: i64,
) -> Vec<u16> {
    let mut statuses = Vec::new();
    for i in 0..=limit {
        let email = format!("{prefix}{i}@example.org");
        let forged = format!("198.51.100.{i}");
        let password = "a long password";
        statuses.push(post_credentials(app, browser, path, &email, password, Some(&forged)).await);
    }
    statuses
}

/// The first `limit` answers are `status`, the one after is 429.
fn assert_stopped_after(statuses: &[u16], status: u16, limit: i64) {
    let limit = limit as usize;
    assert!(
        statuses[..limit].iter().all(|&s| s == status),
        "{statuses:?}"
    );
    assert_eq!(statuses[limit], 429, "{statuses:?}");
}

#[tokio::test]
async fn logins_and_sign_ups_are_throttled_per_address() {
    use spiceboard::actions::{LOGIN_FAILURES_PER_ADDRESS, SIGNUPS_PER_ADDRESS};
    let app = spawn_app_with(0, |_| {}).await;
    assert_eq!(
        app.sign_up("ann@example.org", "the right password")
            .await
            .status(),
        303
    );

    // One address guessing one password for many accounts: each account sees one failure only, so
    // the per-account limit never bites; the address's does. A forged X-Forwarded-For does not
    // make a new address (the server is not behind a proxy).
    let guesser = client_at("127.0.0.2");
    let statuses =
        one_account_each(&app, &guesser, "/login", "user", LOGIN_FAILURES_PER_ADDRESS).await;
    assert_stopped_after(&statuses, 400, LOGIN_FAILURES_PER_ADDRESS);
    // From that address not even the right password is checked now...
    let right = post_credentials(
        &app,
        &guesser,
        "/login",
        "ann@example.org",
        "the right password",
        None,
    )
    .await;
    assert_eq!(right, 429);
    // ...while the account's owner, elsewhere, logs in as usual.
    assert_eq!(
        app.log_in("ann@example.org", "the right password")
            .await
            .status(),
        303
    );

    // Sign-ups: one address makes SIGNUPS_PER_ADDRESS accounts, then no more; another still may.
    let farm = client_at("127.0.0.3");
    let statuses = one_account_each(&app, &farm, "/signup", "bot", SIGNUPS_PER_ADDRESS).await;
    assert_stopped_after(&statuses, 303, SIGNUPS_PER_ADDRESS);
    let bots: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM users WHERE email LIKE 'bot%'")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(bots, SIGNUPS_PER_ADDRESS);
    let other = client_at("127.0.0.4");
    assert_eq!(
        post_credentials(
            &app,
            &other,
            "/signup",
            "bea@example.org",
            "a long password",
            None
        )
        .await,
        303
    );
}

#[tokio::test]
async fn behind_a_proxy_the_forwarded_address_is_the_one_throttled() {
    use spiceboard::actions::LOGIN_FAILURES_PER_ADDRESS;
    let app = spawn_app_with(0, |s| s.application.behind_proxy = true).await;
    // Every request comes from the proxy (one peer address); the clients differ by forwarded address.
    let proxy = client_at("127.0.0.5");
    for i in 0..LOGIN_FAILURES_PER_ADDRESS {
        let email = format!("user{i}@example.org");
        let s =
            post_credentials(&app, &proxy, "/login", &email, "guess", Some("203.0.113.7")).await;
        assert_eq!(s, 400, "attempt {i}");
    }
    let login = |forwarded: &'static str| {
        post_credentials(
            &app,
            &proxy,
            "/login",
            "x@example.org",
            "guess",
            Some(forwarded),
        )
    };
    assert_eq!(
        login("203.0.113.7").await,
        429,
        "the guessing client is stopped"
    );
    assert_eq!(
        login("203.0.113.8").await,
        400,
        "another client behind the same proxy is not"
    );
    // A proxy appends the address it saw to what the client sent: entries before the last one,
    // and a `Forwarded` header it passes on, are the client's own words and name nobody.
    assert_eq!(
        login("198.51.100.9, 203.0.113.7").await,
        429,
        "a forged first entry escapes the limit"
    );
    let csrf = app.csrf_of(&proxy, "/login").await;
    let forged = proxy
        .post(app.url("/login"))
        .header("Forwarded", "for=198.51.100.10")
        .header("X-Forwarded-For", "203.0.113.7")
        .form(&[
            ("email", "x@example.org"),
            ("password", "guess"),
            ("csrf", csrf.as_str()),
        ])
        .send()
        .await
        .expect("POST");
    assert_eq!(forged.status(), 429, "a Forwarded header escapes the limit");
}

#[tokio::test]
async fn a_revoked_api_token_stops_working() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("tok", "val", false).await;
    let browser = client();
    member_with_team(&app, &browser, "tok", "ann@example.org", "Owls").await;
    let token_id: i64 = sqlx::query_scalar("SELECT id FROM api_tokens")
        .fetch_one(&app.pool)
        .await
        .expect("token");
    // The token in clear is shown once; make a second one we know through the page.
    let token = app.make_token(&browser, "tok").await;
    let new_id: i64 = sqlx::query_scalar("SELECT MAX(id) FROM api_tokens")
        .fetch_one(&app.pool)
        .await
        .expect("id");
    assert_ne!(token_id, new_id);
    assert_eq!(
        app.api_upload("tok", &token, Some("val"), demo_results(true))
            .await
            .status(),
        202
    );
    let csrf = app.csrf_of(&browser, "/c/tok").await;
    let r = browser
        .post(app.url(&format!("/c/tok/tokens/{new_id}/revoke")))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .expect("POST");
    assert_eq!(r.status(), 200);
    assert_eq!(
        app.api_upload("tok", &token, Some("val"), demo_results(true))
            .await
            .status(),
        401
    );
}

#[tokio::test]
async fn below_the_free_space_floor_uploads_wait_and_resume_when_space_is_back() {
    let dir = tempfile::tempdir().expect("temp dir");
    let free = spiceboard::disk::free_bytes(dir.path()).expect("statvfs");
    // The floor sits a margin below what is free now (room for what other tests and processes
    // write meanwhile: a quarter of the free space, at most 3 GiB); a file of twice the margin then
    // takes the disk below it. On a nearly full disk (CI builds beside this test) the file still
    // fits, since it takes half of what is free at most.
    let margin = (free / 4).min(3 << 30);
    assert!(
        margin >= 64 << 20,
        "only {free} bytes free under {}: too little for this test to fill",
        dir.path().display()
    );
    let floor = free - margin;
    let path = dir.path().to_path_buf();
    let app = spawn_app_with(0, move |s| {
        s.limits.disk_path = Some(path);
        s.limits.min_free_disk_bytes = floor;
    })
    .await;
    app.challenge_with_split("disk", "val", false).await;
    let (_, token) = app.team("disk", "Owls").await;
    let filler = dir.path().join("filler");
    let f = std::fs::File::create(&filler).expect("filler");
    // SAFETY: a valid descriptor; posix_fallocate reserves real blocks, as a full disk has.
    let filler_len = i64::try_from(2 * margin).expect("at most 6 GiB");
    let rc = unsafe { libc::posix_fallocate(std::os::fd::AsRawFd::as_raw_fd(&f), 0, filler_len) };
    assert_eq!(
        rc, 0,
        "posix_fallocate of {filler_len} bytes ({free} were free)"
    );
    let (status, e) = api_error(&app, "disk", &token, demo_results(true)).await;
    assert_eq!(status, 503);
    assert!(e.contains("short of disk space"), "{e}");
    let health: serde_json::Value = reqwest::get(app.url("/health"))
        .await
        .expect("GET")
        .json()
        .await
        .expect("json");
    assert_eq!(health["disk"], "low");
    drop(f);
    std::fs::remove_file(&filler).expect("free the space");
    let r = app
        .api_upload("disk", &token, Some("val"), demo_results(true))
        .await;
    assert_eq!(r.status(), 202, "uploads resume without a restart");
}

#[tokio::test]
async fn a_stopped_database_is_answered_503_within_a_second_and_recovers() {
    use secrecy::ExposeSecret;
    use spiceboard::cluster::{Cluster, ClusterOptions};
    // A cluster of its own, since this test stops it.
    let dir = std::env::temp_dir().join(format!(
        "spiceboard-stop-{}",
        spiceboard::auth::new_token()[..8].to_owned()
    ));
    let d = dir.clone();
    let cluster = tokio::task::spawn_blocking(move || {
        Cluster::ensure_running(
            &d,
            &ClusterOptions {
                ephemeral: true,
                port: None,
            },
        )
    })
    .await
    .expect("task")
    .expect("cluster");
    spiceboard::cluster::create_database_if_missing(&cluster, "app")
        .await
        .expect("db");
    let url = cluster.url("app");
    let pool = sqlx::PgPool::connect(url.expose_secret())
        .await
        .expect("connect");
    spiceboard::storage::migrate(&pool).await.expect("migrate");
    pool.close().await;
    let app = spawn_app_on(url.expose_secret()).await;
    let c = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client");
    assert_eq!(
        c.get(app.url("/health"))
            .send()
            .await
            .expect("GET")
            .status(),
        200
    );

    let cluster = tokio::task::spawn_blocking(move || cluster.stop().map(|_| cluster))
        .await
        .expect("task")
        .expect("stop");
    for path in ["/health", "/", "/c/demo/leaderboard"] {
        let start = Instant::now();
        let r = c
            .get(app.url(path))
            .send()
            .await
            .expect("an answer, not a hang");
        let took = start.elapsed();
        assert_eq!(r.status(), 503, "{path}");
        assert!(took < Duration::from_secs(1), "{path} took {took:?}");
        let body = r.text().await.expect("body");
        assert!(body.contains("unavailable"), "{path}: {body}");
        // Made without the database, the page cannot know who asks: no "Log in" for a visitor
        // who may be logged in.
        if path != "/health" {
            assert!(!body.contains("href=\"/login\""), "{path}: {body}");
        }
    }

    // Back up on the same port, the same server answers again without a restart.
    let d = dir.clone();
    let port = cluster.port();
    drop(cluster);
    let cluster2 = tokio::task::spawn_blocking(move || {
        Cluster::ensure_running(
            &d,
            &ClusterOptions {
                ephemeral: true,
                port: Some(port),
            },
        )
    })
    .await
    .expect("task")
    .expect("restart");
    let mut status = 0;
    for _ in 0..50 {
        status = c
            .get(app.url("/health"))
            .send()
            .await
            .expect("GET")
            .status()
            .as_u16();
        if status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(status, 200, "the server recovers once the database is back");
    let _ = cluster2.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// An app on an existing database (migrated), no workers, with production's short wait for a
/// connection: the point of the test.
async fn spawn_app_on(url: &str) -> TestApp {
    let mut settings = crate::helpers::test_settings();
    settings.database.acquire_timeout_ms = spiceboard::configuration::Settings::defaults()
        .database
        .acquire_timeout_ms;
    settings.database.url = Some(secrecy::SecretString::from(url.to_string()));
    crate::helpers::spawn_app_on(settings, 0).await
}

/// `spiceboard ARGS` on the embedded cluster under `dir`, its output piped.
fn embedded(dir: &std::path::Path, args: &[&str]) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_spiceboard"))
        .args(args)
        .arg("--data-dir")
        .arg(dir)
        .env_remove("DATABASE_URL")
        .env_remove("APP_DATA_DIR")
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn spiceboard")
}

fn interrupt(child: &mut std::process::Child) -> std::process::ExitStatus {
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    child.wait().expect("wait")
}

async fn healthy(address: &str) -> bool {
    for _ in 0..600 {
        if let Ok(r) = reqwest::get(format!("{address}/health")).await {
            if r.status() == 200 {
                return true;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// `serve` on an address in use said so only after it had started (and here, made) its private
/// database cluster; now it says so first, in plain words with the way out, and touches no
/// database.
#[test]
fn serve_on_an_address_in_use_says_so_before_it_starts_a_database() {
    let dir = std::env::temp_dir().join(format!(
        "spiceboard-busy-{}",
        &spiceboard::auth::new_token()[..8]
    ));
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let bind = taken.local_addr().expect("address").to_string();
    let out = embedded(&dir, &["serve", "--no-seed", "--bind", &bind])
        .wait_with_output()
        .expect("serve");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{bind} is already in use")) && err.contains("serve --bind"),
        "{err}"
    );
    assert!(
        !dir.join("pgdata").exists(),
        "no database cluster made for a server that cannot listen"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn the_embedded_cluster_is_stopped_by_its_last_user_and_served_once() {
    use std::io::BufRead;
    let dir = std::env::temp_dir().join(format!(
        "spiceboard-own-{}",
        &spiceboard::auth::new_token()[..8]
    ));
    let free_port = || {
        std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("port")
            .port()
    };
    // A worker starts the cluster...
    let mut worker = embedded(&dir, &["worker", "--concurrency", "1"]);
    let mut line = String::new();
    std::io::BufReader::new(worker.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("read");
    assert!(line.contains("worker(s) running"), "{line:?}");
    // ...a server joins it...
    let port = free_port();
    let bind = format!("127.0.0.1:{port}");
    let mut server = embedded(
        &dir,
        &["serve", "--no-seed", "--workers", "0", "--bind", &bind],
    );
    let address = format!("http://{bind}");
    assert!(healthy(&address).await, "serve came up");
    // ...a second server on the same data directory is refused, clearly...
    let second_bind = format!("127.0.0.1:{}", free_port());
    let second = embedded(&dir, &["serve", "--no-seed", "--bind", &second_bind])
        .wait_with_output()
        .expect("second serve");
    assert!(!second.status.success());
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(err.contains("already uses the data directory"), "{err}");
    // ...and the worker that started the cluster leaves without taking it from the server.
    assert!(interrupt(&mut worker).success());
    let r = reqwest::get(format!("{address}/health"))
        .await
        .expect("GET");
    assert_eq!(r.status(), 200, "the server's database is still up");
    // The server, last out, stops it.
    assert!(interrupt(&mut server).success());
    assert!(
        !dir.join("pgdata/postmaster.pid").exists(),
        "the last user stopped the cluster"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn only_a_teams_member_chooses_its_entry_and_only_a_scored_one() {
    let app = spawn_app_with(0, |_| {}).await;
    let challenge = app.challenge_with_split("pick", "val", false).await;
    spiceboard::storage::challenges::set_entry_policy(
        &app.pool,
        challenge.id,
        spiceboard::domain::leaderboard::EntryPolicy::Chosen,
    )
    .await
    .expect("teams choose");
    let (owls, foxes) = (client(), client());
    member_with_team(&app, &owls, "pick", "ann@example.org", "Owls").await;
    member_with_team(&app, &foxes, "pick", "bea@example.org", "Foxes").await;
    let mut ids = Vec::new();
    for careful in [true, false] {
        let r = app
            .form_upload(&owls, "pick", "val", demo_results(careful))
            .await;
        assert_eq!(r.status(), 303);
        let location = r.headers()["location"].to_str().expect("location");
        ids.push(
            location
                .trim_start_matches("/s/")
                .parse::<i64>()
                .expect("id"),
        );
    }
    let choose = |browser: reqwest::Client, id: i64| {
        let app = &app;
        async move {
            let action = format!("/s/{id}/choose");
            let r = app.post_button(&browser, "/c/pick", &action).await;
            r.status().as_u16()
        }
    };
    assert_eq!(choose(owls.clone(), ids[0]).await, 403, "still queued");
    crate::helpers::fake_aggregates(&app.pool, ids[0], [Some(0.3); 7]).await;
    crate::helpers::fake_aggregates(&app.pool, ids[1], [Some(0.1); 7]).await;
    assert_eq!(
        choose(foxes.clone(), ids[0]).await,
        404,
        "another team's submission does not exist for it"
    );
    // The page offers the choice to the team only; an organizer sees the page without it.
    let button = format!("action=\"/s/{}/choose\"", ids[1]);
    let (status, page) = get(&owls, app.url(&format!("/s/{}", ids[1]))).await;
    assert!(status == 200 && page.contains(&button), "{status}");
    app.log_in_as_organizer().await;
    let (status, page) = get(&app.client, app.url(&format!("/s/{}", ids[1]))).await;
    assert!(status == 200 && !page.contains(&button), "{status}");
    assert_eq!(choose(owls.clone(), ids[1]).await, 303);
    let (_, body) = get(&client(), app.url("/c/pick/leaderboard.json?split=val")).await;
    let board: serde_json::Value = serde_json::from_str(&body).expect("json");
    assert_eq!(
        board["entries"][0]["submission_id"], ids[1],
        "the chosen, not the best"
    );
}
