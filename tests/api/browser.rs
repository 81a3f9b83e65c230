//! The end-to-end test in headless Chromium (Debian's `chromium` and `chromium-driver`, installed
//! by scripts/install-test-deps): a team member logs in, uploads through the real form, and sees
//! the row on the leaderboard. It drives the browser over WebDriver with plain HTTP calls.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::helpers::{demo_results, fresh, spawn_app_with};

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// chromedriver in its own process group, killed with everything it started when dropped.
struct Driver {
    child: Child,
    base: String,
    http: reqwest::Client,
    session: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        // SAFETY: signalling our own child's process group.
        unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

fn find(program: &str) -> Option<String> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .map(|p| p.display().to_string())
}

impl Driver {
    async fn start(profile: &std::path::Path) -> Driver {
        let chromedriver = find("chromedriver")
            .expect("the browser test needs chromedriver and chromium: run scripts/install-test-deps as root, or apt-get install -y chromium chromium-driver");
        let chromium = find("chromium")
            .expect("the browser test needs chromium (apt-get install -y chromium)");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("start chromedriver");
        let mut driver = Driver {
            child,
            base: format!("http://127.0.0.1:{port}"),
            http: reqwest::Client::new(),
            session: String::new(),
        };
        let mut ready = false;
        for _ in 0..200 {
            if let Ok(r) = driver
                .http
                .get(format!("{}/status", driver.base))
                .send()
                .await
            {
                let v: Value = r.json().await.unwrap_or(Value::Null);
                if v["value"]["ready"] == true {
                    ready = true;
                    break;
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(ready, "chromedriver did not become ready");
        let caps = json!({"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": chromium,
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                     "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     format!("--user-data-dir={}", profile.display())]
        }}}});
        let v = driver.call("POST", "/session", caps).await;
        driver.session = v["sessionId"]
            .as_str()
            .expect("a WebDriver session")
            .to_string();
        driver
    }

    async fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let url = format!("{}{}", self.base, path);
        let req = match method {
            "GET" => self.http.get(url),
            "DELETE" => self.http.delete(url),
            _ => self.http.post(url).json(&body),
        };
        let v: Value = req
            .send()
            .await
            .expect("WebDriver call")
            .json()
            .await
            .expect("WebDriver JSON");
        assert!(
            v["value"]["error"].is_null(),
            "WebDriver {method} {path} failed: {v}"
        );
        v["value"].clone()
    }

    async fn go(&self, url: &str) {
        self.call(
            "POST",
            &format!("/session/{}/url", self.session),
            json!({ "url": url }),
        )
        .await;
    }

    async fn element(&self, css: &str) -> String {
        let v = self
            .call(
                "POST",
                &format!("/session/{}/element", self.session),
                json!({"using": "css selector", "value": css}),
            )
            .await;
        v[ELEMENT].as_str().expect("an element id").to_string()
    }

    async fn type_into(&self, css: &str, text: &str) {
        let e = self.element(css).await;
        self.call(
            "POST",
            &format!("/session/{}/element/{e}/value", self.session),
            json!({ "text": text }),
        )
        .await;
    }

    async fn click(&self, css: &str) {
        let e = self.element(css).await;
        self.call(
            "POST",
            &format!("/session/{}/element/{e}/click", self.session),
            json!({}),
        )
        .await;
    }

    /// Clicks the first element `css` selects and waits (bounded) for a page whose source
    /// contains `marker` (`what` names it in the failure); that page's source.
    async fn click_until(&self, css: &str, what: &str, marker: &str) -> String {
        self.click(css).await;
        self.wait_for_page(what, |_, s| s.contains(marker)).await
    }

    /// Ends the WebDriver session (the browser closes; chromedriver goes when dropped).
    async fn quit(&self) {
        self.call("DELETE", &format!("/session/{}", self.session), Value::Null)
            .await;
    }

    /// Fills the sign-up or login form on the current page and sends it.
    async fn send_credentials(&self, email: &str, password: &str) {
        self.type_into("#email", email).await;
        self.type_into("#password", password).await;
        self.click("#submit").await;
    }

    async fn current_url(&self) -> String {
        self.call(
            "GET",
            &format!("/session/{}/url", self.session),
            Value::Null,
        )
        .await
        .as_str()
        .unwrap_or("")
        .to_string()
    }

    async fn source(&self) -> String {
        self.call(
            "GET",
            &format!("/session/{}/source", self.session),
            Value::Null,
        )
        .await
        .as_str()
        .unwrap_or("")
        .to_string()
    }

    async fn clear(&self, css: &str) {
        let e = self.element(css).await;
        self.call(
            "POST",
            &format!("/session/{}/element/{e}/clear", self.session),
            json!({}),
        )
        .await;
    }

    /// The text of the first element `css` selects.
    async fn text(&self, css: &str) -> String {
        let e = self.element(css).await;
        self.call(
            "GET",
            &format!("/session/{}/element/{e}/text", self.session),
            Value::Null,
        )
        .await
        .as_str()
        .unwrap_or("")
        .to_string()
    }

    /// The browser's cookies as a `Cookie` header.
    async fn cookie_header(&self) -> String {
        let v = self
            .call(
                "GET",
                &format!("/session/{}/cookie", self.session),
                Value::Null,
            )
            .await;
        v.as_array()
            .map(|cs| {
                cs.iter()
                    .map(|c| {
                        format!(
                            "{}={}",
                            c["name"].as_str().unwrap_or(""),
                            c["value"].as_str().unwrap_or("")
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            })
            .unwrap_or_default()
    }

    async fn log_out(&self) {
        self.click("form[action='/logout'] button").await;
        self.wait_for_page("logged out", |_, s| s.contains(">Sign up</a>"))
            .await;
    }

    /// With `SPICEBOARD_SCREENSHOTS=DIR` (scripts/screenshots), saves the page as
    /// `DIR/{name}-desktop.png` and `DIR/{name}-phone.png`; otherwise does nothing.
    async fn screenshot(&self, name: &str) {
        let Some(dir) = std::env::var_os("SPICEBOARD_SCREENSHOTS") else {
            return;
        };
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).expect("screenshot directory");
        for (width, height, suffix) in [(1280, 900, "desktop"), (390, 844, "phone")] {
            self.call(
                "POST",
                &format!("/session/{}/window/rect", self.session),
                json!({"width": width, "height": height}),
            )
            .await;
            let png = self
                .call(
                    "GET",
                    &format!("/session/{}/screenshot", self.session),
                    Value::Null,
                )
                .await;
            let bytes = base64_decode(png.as_str().unwrap_or(""));
            std::fs::write(dir.join(format!("{name}-{suffix}.png")), bytes).expect("write PNG");
        }
        self.call(
            "POST",
            &format!("/session/{}/window/rect", self.session),
            json!({"width": 1280, "height": 900}),
        )
        .await;
    }

    /// Runs `script` (a function body) in the page and returns what it returns.
    async fn eval(&self, script: &str) -> Value {
        self.call(
            "POST",
            &format!("/session/{}/execute/sync", self.session),
            json!({ "script": script, "args": [] }),
        )
        .await
    }

    /// Makes the page's viewport exactly `width` × `height` CSS pixels, as a laptop's window or
    /// (`mobile`) a phone's screen, whatever the headless window's own size.
    async fn viewport(&self, width: u32, height: u32, mobile: bool) {
        self.call(
            "POST",
            &format!("/session/{}/goog/cdp/execute", self.session),
            json!({"cmd": "Emulation.setDeviceMetricsOverride", "params": {
                "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}}),
        )
        .await;
    }

    /// Gives the page back the window's own size (after `viewport`).
    async fn window_viewport(&self) {
        self.call(
            "POST",
            &format!("/session/{}/goog/cdp/execute", self.session),
            json!({"cmd": "Emulation.clearDeviceMetricsOverride", "params": {}}),
        )
        .await;
    }

    /// Waits (bounded) until the page source satisfies `done`.
    async fn wait_for_page(&self, what: &str, done: impl Fn(&str, &str) -> bool) -> String {
        for _ in 0..600 {
            let (url, source) = (self.current_url().await, self.source().await);
            if done(&url, &source) {
                return source;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        panic!("the browser never reached: {what}");
    }
}

/// Standard base64 (WebDriver's screenshots), without a dependency for one use.
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let sextets: Vec<u8> = text.bytes().filter_map(value).collect();
    let mut out = Vec::with_capacity(sextets.len() * 3 / 4);
    for chunk in sextets.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &v)| acc | (u32::from(v) << (18 - 6 * i)));
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}

/// Creates ann@example.org (password "a long password") as a member of team `team_id`.
async fn ann_joins(app: &crate::helpers::TestApp, team_id: i64) {
    let hash = spiceboard::auth::hash_password("a long password").expect("hash");
    let user =
        spiceboard::storage::accounts::create_user(&app.pool, "ann@example.org", &hash, false)
            .await
            .expect("user")
            .expect("new");
    spiceboard::storage::accounts::add_member(&app.pool, team_id, user.id)
        .await
        .expect("member");
}

#[tokio::test]
async fn a_team_member_logs_in_uploads_through_the_form_and_sees_the_row() {
    let app = spawn_app_with(1, |_| {}).await;
    app.challenge_with_split("e2e", "val", false).await;
    let (team_id, _) = app.team("e2e", "Night Owls").await;
    ann_joins(&app, team_id).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let results = dir.path().join("results.json");
    std::fs::write(&results, demo_results(true)).expect("write results");
    let base = app.address.replace("127.0.0.1", "localhost");

    let driver = Driver::start(&dir.path().join("profile")).await;
    driver.go(&format!("{base}/login?next=/c/e2e/submit")).await;
    driver
        .send_credentials("ann@example.org", "a long password")
        .await;
    driver
        .wait_for_page("the upload form after login", |_, s| {
            s.contains("id=\"upload-form\"")
        })
        .await;

    driver
        .type_into("#file", results.to_str().expect("utf-8 path"))
        .await;
    driver.type_into("#description", "from the browser").await;
    driver.click("#upload").await;
    let page = driver
        .wait_for_page("the submission page, scored or failed", |u, s| {
            u.contains("/s/") && (s.contains("id=\"categories\"") || s.contains("id=\"job-error\""))
        })
        .await;
    {
        assert!(page.contains("SPICE (all tuples)"), "the scores are shown");
        driver.go(&format!("{base}/c/e2e/leaderboard")).await;
        let board = driver.source().await;
        assert!(
            board.contains("Night Owls"),
            "the team's row is on the leaderboard"
        );
    }
    let stored: String = sqlx::query_scalar("SELECT description FROM submissions")
        .fetch_one(&app.pool)
        .await
        .expect("stored");
    assert_eq!(
        stored, "from the browser",
        "the upload went through the real form"
    );
    driver.quit().await;
}

/// The story of issue 12, end to end: a person signs up and creates a team, a teammate joins
/// through the invite link, a bad file is explained in full, a good and a worse upload leave the
/// better on the leaderboard, the per-image page walks to the next image, and the organizer edits
/// the challenge and exports every submission. With `SPICEBOARD_SCREENSHOTS=DIR` it also saves
/// the main pages at desktop and phone width (scripts/screenshots).
#[tokio::test]
async fn the_story_of_a_team_and_an_organizer() {
    let app = spawn_app_with(1, |_| {}).await;
    app.challenge_with_split("story", "val", false).await;
    let hash = spiceboard::auth::hash_password("organizer-password").expect("hash");
    spiceboard::storage::accounts::create_user(&app.pool, "org@example.org", &hash, true)
        .await
        .expect("organizer");
    let dir = tempfile::tempdir().expect("temp dir");
    let file = |name: &str, bytes: Vec<u8>| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        path.to_str().expect("utf-8 path").to_string()
    };
    let good = file("good.json", demo_results(true));
    let worse = file("worse.json", demo_results(false));
    let mut bad: Vec<Value> = serde_json::from_slice(&demo_results(true)).expect("json");
    bad[0] = json!({"image_id": 1});
    bad[1] = json!({"image_id": 9999, "caption": "a cow"});
    bad[2] = json!({"image_id": 4, "caption": "a dog"});
    bad.truncate(18);
    let bad = file("bad.json", serde_json::to_vec(&bad).expect("json"));
    let base = app.address.replace("127.0.0.1", "localhost");
    let driver = Driver::start(&dir.path().join("profile")).await;

    // Ann signs up and creates a team.
    driver.go(&format!("{base}/signup?next=/c/story")).await;
    driver
        .send_credentials("ann@example.org", "a long password")
        .await;
    driver
        .wait_for_page("the challenge page", |_, s| {
            s.contains("id=\"create-team\"")
        })
        .await;
    driver.type_into("#team-name", "Night Owls").await;
    driver
        .click_until(
            "#create-team",
            "the team's invite link",
            "id=\"invite-link\"",
        )
        .await;
    let invite = driver.text("#invite-link").await;
    assert!(invite.contains("/c/story/join/"), "{invite}");
    driver.screenshot("challenge").await;
    driver.log_out().await;

    // Bob signs up and joins through the link.
    driver.go(&format!("{base}/signup?next=/c/story")).await;
    driver
        .send_credentials("bob@example.org", "another long password")
        .await;
    driver
        .wait_for_page("the challenge page", |_, s| {
            s.contains("id=\"create-team\"")
        })
        .await;
    driver.go(&invite.replace("127.0.0.1", "localhost")).await;
    let page = driver
        .click_until("#join", "the team page", "id=\"members\"")
        .await;
    assert!(page.contains("ann@example.org") && page.contains("bob@example.org"));

    // A bad file: every problem at once, numbered from 1; nothing stored.
    driver.go(&format!("{base}/c/story/submit")).await;
    driver.type_into("#file", &bad).await;
    driver.type_into("#description", "first try").await;
    driver
        .click_until("#upload", "the upload error", "id=\"upload-error\"")
        .await;
    let error = driver.text("#upload-error").await;
    for part in [
        "1 malformed entry: entry 1 (image_id 1)",
        "1 image id is not in split \"val\": 9999 (entry 2)",
        "1 image id appears more than once: 4 (entries 3 and 4)",
        "images of split \"val\" have no caption",
    ] {
        assert!(error.contains(part), "{part}: {error}");
    }
    driver.screenshot("submit-error").await;

    // A good upload, then a worse one: the better stays on the leaderboard.
    let mut ids = Vec::new();
    for (path, description) in [(&good, "careful"), (&worse, "hasty")] {
        driver.go(&format!("{base}/c/story/submit")).await;
        driver.type_into("#file", path).await;
        driver.type_into("#description", description).await;
        driver.click("#upload").await;
        driver
            .wait_for_page("the scored submission", |u, s| {
                u.contains("/s/") && s.contains("id=\"categories\"")
            })
            .await;
        let url = driver.current_url().await;
        let id: i64 = url
            .rsplit("/s/")
            .next()
            .and_then(|t| t.split(['?', '#']).next())
            .and_then(|t| t.parse().ok())
            .expect("a submission id");
        ids.push(id);
    }
    driver.screenshot("submission").await;
    let spice = |id: i64| {
        let pool = app.pool.clone();
        async move {
            sqlx::query_scalar::<_, Option<f64>>(
                "SELECT f FROM aggregate_scores WHERE submission_id = $1 AND category = 'all'",
            )
            .bind(id)
            .fetch_one(&pool)
            .await
            .expect("SPICE")
            .expect("defined")
        }
    };
    assert!(
        spice(ids[0]).await > spice(ids[1]).await,
        "the careful captions score higher"
    );
    driver.go(&format!("{base}/c/story/leaderboard")).await;
    let board = driver.source().await;
    assert!(
        board.contains(&format!("/s/{}", ids[0])),
        "the better entry: {board}"
    );
    assert!(
        !board.contains(&format!("/s/{}", ids[1])),
        "not the worse one"
    );
    driver.screenshot("leaderboard").await;

    // The per-image page, and on to the next image.
    driver.go(&format!("{base}/s/{}", ids[0])).await;
    driver
        .click_until("#images a", "an image page", "Candidate tuples")
        .await;
    driver.screenshot("image").await;
    let first = driver.current_url().await;
    driver.click("#next").await;
    driver
        .wait_for_page("the next image", |u, s| {
            u != first && s.contains("image 2 of 20")
        })
        .await;
    driver.log_out().await;

    // The organizer edits the challenge and exports every submission.
    driver
        .go(&format!("{base}/login?next=/admin/c/story"))
        .await;
    driver
        .send_credentials("org@example.org", "organizer-password")
        .await;
    driver
        .wait_for_page("the organizer page", |_, s| {
            s.contains("id=\"save-details\"")
        })
        .await;
    driver.clear("#title").await;
    driver.type_into("#title", "Night captions").await;
    driver
        .click_until("#save-details", "saved", "title and description saved")
        .await;
    driver.screenshot("admin").await;

    // At 1,366 px, each checkbox and radio button shares a line with its words, the box first.
    driver.viewport(1366, 768, false).await;
    let lines = driver
        .eval(
            "const out = [];
             for (const input of document.querySelectorAll('label input[type=checkbox], label input[type=radio]')) {
               const text = input.nextSibling;
               const range = document.createRange();
               range.selectNodeContents(text);
               const words = range.getClientRects()[0];
               const box = input.getBoundingClientRect();
               out.push({name: input.name, value: input.value,
                         shared: box.top < words.bottom && words.top < box.bottom,
                         before: box.right <= words.left});
             }
             return out;",
        )
        .await;
    let lines = lines.as_array().expect("a list");
    assert!(
        lines.len() >= 7,
        "the import's checkboxes and the entries' radios: {lines:?}"
    );
    // Every checkbox and radio button of the page is one of them: none outside its label.
    let all = driver
        .eval("return document.querySelectorAll('input[type=checkbox], input[type=radio]').length;")
        .await;
    assert_eq!(all.as_u64(), Some(lines.len() as u64), "{lines:?}");
    for l in lines {
        assert!(l["shared"] == true && l["before"] == true, "{l}");
    }
    // On a phone the splits' Actions are on the screen, and the page does not scroll sideways.
    driver.viewport(390, 844, true).await;
    driver.go(&format!("{base}/admin/c/story")).await;
    let phone = driver
        .eval(
            "const cell = document.querySelector('table.splits td.actions').getBoundingClientRect();
             return {left: cell.left, right: cell.right, width: window.innerWidth,
                     page: document.documentElement.scrollWidth};",
        )
        .await;
    assert_eq!(phone["width"].as_f64(), Some(390.0), "{phone}");
    let right = phone["right"].as_f64().expect("right");
    assert!(
        phone["left"].as_f64().expect("left") >= 0.0 && right <= 390.0,
        "{phone}"
    );
    assert!(phone["page"].as_f64().expect("page") <= 390.0, "{phone}");
    driver.window_viewport().await;

    let href = driver.element("#export-submissions").await;
    assert!(!href.is_empty());
    let csv = reqwest::Client::new()
        .get(format!("{base}/admin/c/story/submissions.csv"))
        .header("Cookie", driver.cookie_header().await)
        .send()
        .await
        .expect("GET export");
    assert_eq!(csv.status(), 200);
    let csv = csv.text().await.expect("CSV");
    assert!(
        csv.contains("Night Owls,careful") && csv.contains("Night Owls,hasty"),
        "{csv}"
    );
    driver.go(&format!("{base}/c/story")).await;
    assert!(driver.source().await.contains("<h1>Night captions</h1>"));
    driver.quit().await;
}

/// The countdown reloads the page when the phase changes. A browser whose clock runs ahead of the
/// server's reached the time first, reloaded, got the same time back from the server (not yet
/// reached there) and reloaded again at once, over and over until the server's clock caught up:
/// up to a minute of back-to-back page loads from every such browser, right at the close, when
/// the server is busiest. It reloads at most once every ten seconds.
#[tokio::test]
async fn a_browser_clock_ahead_of_the_server_does_not_reload_the_page_in_a_loop() {
    let app = spawn_app_with(0, |_| {}).await;
    let challenge = app.challenge_with_split("tick", "val", false).await;
    spiceboard::storage::challenges::set_phase(
        &app.pool,
        challenge.id,
        spiceboard::domain::phase::Phase {
            opens_at: None,
            closes_at: Some(chrono::Utc::now() + chrono::Duration::seconds(20)),
        },
    )
    .await
    .expect("closes in 20 s");
    let dir = tempfile::tempdir().expect("temp dir");
    let base = app.address.replace("127.0.0.1", "localhost");
    let driver = Driver::start(&dir.path().join("profile")).await;
    // This browser's clock is 30 s ahead of the server's (for it the close was 10 s ago); it
    // counts its page loads.
    driver
        .call(
            "POST",
            &format!("/session/{}/goog/cdp/execute", driver.session),
            json!({"cmd": "Page.addScriptToEvaluateOnNewDocument", "params": {"source":
                "(function () { var now = Date.now; Date.now = function () { return now() + 30000; };
                   sessionStorage.setItem('loads', (+sessionStorage.getItem('loads') || 0) + 1); })();"}}),
        )
        .await;
    driver.go(&format!("{base}/c/tick")).await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    let loads = driver
        .call(
            "POST",
            &format!("/session/{}/execute/sync", driver.session),
            json!({"script": "return sessionStorage.getItem('loads');", "args": []}),
        )
        .await;
    let loads: u32 = loads.as_str().unwrap_or("0").parse().unwrap_or(0);
    assert!((1..=2).contains(&loads), "{loads} page loads in 4 s");
}

/// Someone who forgot their password opens the link an organizer passed on, sets a new one, logs
/// in with it and changes it again on their account page.
#[tokio::test]
async fn a_forgotten_password_is_set_again_with_a_link_and_changed_on_the_account_page() {
    let app = spawn_app_with(0, |_| {}).await;
    let hash = spiceboard::auth::hash_password("a forgotten password").expect("hash");
    spiceboard::storage::accounts::create_user(&app.pool, "dee@example.org", &hash, false)
        .await
        .expect("user")
        .expect("new");
    let secret = spiceboard::actions::password_link(&app.pool, "dee@example.org", "a test")
        .await
        .expect("link");
    let dir = tempfile::tempdir().expect("temp dir");
    let base = app.address.replace("127.0.0.1", "localhost");
    let driver = Driver::start(&dir.path().join("profile")).await;

    driver.go(&format!("{base}/password/{secret}")).await;
    driver.type_into("#password", "a remembered password").await;
    driver
        .click_until("#submit", "the password set", "id=\"password-set\"")
        .await;
    driver.go(&format!("{base}/login?next=/account")).await;
    driver
        .send_credentials("dee@example.org", "a remembered password")
        .await;
    driver
        // The address changes when the navigation commits, before the page is parsed: wait
        // for the form too (under load the field was not there yet).
        .wait_for_page("the account page after login", |u, s| {
            u.ends_with("/account") && s.contains("id=\"current\"")
        })
        .await;
    driver.type_into("#current", "a remembered password").await;
    driver.type_into("#password", "a third password").await;
    let page = driver
        .click_until("#submit", "the password changed", "id=\"password-changed\"")
        .await;
    assert!(
        page.contains("href=\"/account\">dee@example.org</a>"),
        "still logged in, with the new session"
    );
    let user = spiceboard::actions::log_in(
        &app.pool,
        &spiceboard::actions::Turns::new(1, std::time::Duration::from_secs(5), "busy"),
        "test",
        "dee@example.org",
        "a third password",
    )
    .await;
    assert!(user.is_ok(), "the password the page set logs in");
    driver.quit().await;
}

/// A leaderboard of 20 teams whose entries were scored by the engine (so every column, the
/// intervals, the classic metrics, a baseline, the Human row and an unranked entry are there),
/// seen by a member of one of the teams: the table as `leaderboard` makes it for the test below.
async fn twenty_entries() -> (crate::helpers::TestApp, tempfile::TempDir, Driver) {
    let app = spawn_app_with(1, |_| {}).await;
    let c = app.challenge_with_split("wide", "val", false).await;
    let careful: Vec<Value> = serde_json::from_slice(&demo_results(true)).expect("json");
    let hasty: Vec<Value> = serde_json::from_slice(&demo_results(false)).expect("json");
    let names = [
        "Night Owls",
        "Université de Montréal — Vision & Language Lab",
        "Foxes",
        "Team 4",
        "DeepCaptioners",
        "Bears",
        "Show, Attend and Tell (reproduction)",
        "Kittens",
        "Grounded Captions Group",
        "Zebra",
        "Team Eleven",
        "Ant",
        "MS-Research-Asia-Intern-Project-Captioning",
        "Lynx",
        "Otters",
        "Up-Down",
        "Meshed Memory",
        "Yaks",
        "Quokkas",
        "Xerus",
    ];
    let mut ids = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let (_, token) = app.team("wide", name).await;
        // Each team gets its own mix of careful and hasty captions: scores spread out.
        let mixed: Vec<Value> = careful
            .iter()
            .zip(&hasty)
            .enumerate()
            .map(|(i, (a, b))| {
                if (i * (k + 3)) % 7 < 4 {
                    a.clone()
                } else {
                    b.clone()
                }
            })
            .collect();
        let file = fresh(serde_json::to_vec(&mixed).expect("json"));
        ids.push(app.submit("wide", &token, "val", file).await);
    }
    let split = spiceboard::actions::split(&app.pool, &c, "val")
        .await
        .expect("split");
    let baseline = spiceboard::actions::submit(
        &app.pool,
        &c,
        &split,
        spiceboard::actions::Uploader::Baseline {
            label: "Nearest neighbour",
            user_id: None,
        },
        "",
        &spiceboard::domain::SubmissionMethod::default(),
        demo_results(false),
        spiceboard::actions::SubmitLimits {
            max_caption_chars: 1000,
            parse_words_per_image:
                spiceboard::domain::results_file::ParseBudget::DEFAULT_WORDS_PER_IMAGE,
            max_attempts: 3,
            disk_floor: None,
        },
    )
    .await
    .expect("baseline");
    ids.push(baseline.id);
    let human = spiceboard::actions::compute_human(&app.pool, &split, 3)
        .await
        .expect("human row");
    ids.push(human.id);
    for id in &ids {
        app.assert_scored(*id).await;
    }
    // Methods under some names (issue 34, item 4): the longest a method name may be, in words and
    // as one unbroken word, with both links; they must not widen the table.
    let methods = [
        (0, "Bottom-up and top-down attention with self-critical sequence training and CIDEr-D optimisation", true, true),
        (1, "ABottomUpTopDownAttentionModelTrainedWithSelfCriticalSequenceTrainingOnCOCOKarpathySplitsV2", true, false),
        (4, "Transformer", false, true),
        (12, "Meshed-memory transformer, ensemble of four", true, true),
    ];
    for (k, name, paper, code) in methods {
        sqlx::query(
            "UPDATE submissions SET method_name = $2, paper_url = $3, code_url = $4 WHERE id = $1",
        )
        .bind(ids[k])
        .bind(name)
        .bind(paper.then_some("https://arxiv.org/abs/1707.07998"))
        .bind(
            code.then_some(
                "https://github.com/peteanderson80/bottom-up-attention/tree/master/caffe",
            ),
        )
        .execute(&app.pool)
        .await
        .expect("method");
    }
    // One entry scored by another parser than the split's: listed under "Not ranked".
    sqlx::query("UPDATE submissions SET front_end = 'corenlp-3.6.0' WHERE id = $1")
        .bind(ids[19])
        .execute(&app.pool)
        .await
        .expect("another parser");
    let team_id: i64 = sqlx::query_scalar("SELECT id FROM teams WHERE name = 'Night Owls'")
        .fetch_one(&app.pool)
        .await
        .expect("team");
    ann_joins(&app, team_id).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let base = app.address.replace("127.0.0.1", "localhost");
    let driver = Driver::start(&dir.path().join("profile")).await;
    driver
        .go(&format!("{base}/login?next=/c/wide/leaderboard"))
        .await;
    driver
        .send_credentials("ann@example.org", "a long password")
        .await;
    driver
        .wait_for_page("the leaderboard after login", |_, s| {
            s.contains("id=\"leaderboard\"")
        })
        .await;
    (app, dir, driver)
}

/// The leaderboard at 1,366 × 768 (issue 34): 20 entries with every column fit the window with
/// no sideways scrolling of the page or of the table's box; no header is wider than its column
/// (its content fits its box) or wraps onto a second line; and in each score column the header
/// is no wider than the numbers under it.
/// At 390 × 844, a phone: the table scrolls inside its box, says so, and the entry column stays
/// in view however far it is scrolled.
#[tokio::test]
async fn the_leaderboard_fits_a_laptop_and_keeps_the_entry_in_view_on_a_phone() {
    let (_app, _dir, driver) = twenty_entries().await;
    let page = driver.source().await;
    assert_eq!(page.matches("<tr class=\"team").count(), 20, "{page}");
    assert!(
        page.contains("Not ranked") && page.contains("BLEU-4") && page.contains("your team"),
        "{page}"
    );
    assert_eq!(page.matches("<span class=\"method\">").count(), 4, "{page}");
    // The Human row's zeros say what kind of 0 they are; its undefined Count says why.
    let human = &page[page.find("<tr class=\"human\">").expect("the Human row")..];
    let human = &human[..human.find("</tr>").unwrap_or(0)];
    assert!(
        human.contains("<td class=\"num zero\" title=\"0, a real score: ")
            && human.contains(
                "<td class=\"num undefined\" title=\"undefined, not 0: the references have no "
            ),
        "{human}"
    );
    driver.viewport(1366, 768, false).await;
    let desktop = driver
        .eval(
            r#"
            const table = document.getElementById('leaderboard');
            const box = table.parentElement;
            const lines = (el) => {
                const range = document.createRange();
                range.selectNodeContents(el);
                const rects = [...range.getClientRects()].filter(r => r.width > 0);
                if (rects.length === 0) return 0;
                const top = Math.min(...rects.map(r => r.top));
                const lh = parseFloat(getComputedStyle(el).fontSize);
                return rects.some(r => r.top > top + lh * 0.6) ? 2 : 1;
            };
            const textWidth = (el) => {
                const range = document.createRange();
                range.selectNodeContents(el);
                return range.getBoundingClientRect().width;
            };
            const heads = [...table.querySelectorAll('thead th')];
            const rows = [...table.querySelectorAll('tbody tr')].filter(r => r.children.length === heads.length);
            return {
                inner: innerWidth,
                page: document.scrollingElement.scrollWidth,
                box: [box.scrollWidth, box.clientWidth],
                headers: heads.map((th, i) => {
                    const nums = rows.map(r => r.children[i])
                        .filter(td => /^\d+\.\d{3}$/.test(td.textContent.trim()));
                    return {
                        text: th.textContent.trim(),
                        scroll: th.scrollWidth,
                        client: th.clientWidth,
                        lines: lines(th),
                        width: textWidth(th),
                        numbers: nums.length ? Math.max(...nums.map(textWidth)) : null,
                    };
                }),
            };
            "#,
        )
        .await;
    let inner = desktop["inner"].as_f64().expect("innerWidth");
    assert_eq!(inner, 1366.0, "{desktop}");
    // The chart under the table is there and leaves the page as wide as the window (below).
    assert_charts_drawn(&driver, &["best-chart"]).await;
    assert!(
        desktop["page"].as_f64().expect("scrollWidth") <= inner,
        "the page scrolls sideways: {desktop}"
    );
    assert!(
        desktop["box"][0].as_f64() <= desktop["box"][1].as_f64(),
        "the table scrolls in its box: {desktop}"
    );
    let headers = desktop["headers"].as_array().expect("headers");
    assert!(headers.len() >= 17, "every column: {desktop}");
    let mut score_columns = 0;
    for h in headers {
        assert!(
            h["scroll"].as_f64() <= h["client"].as_f64(),
            "a header wider than its column: {h}"
        );
        assert_eq!(h["lines"], 1, "a header on two lines: {h}");
        if let Some(numbers) = h["numbers"].as_f64() {
            score_columns += 1;
            assert!(
                h["width"].as_f64().expect("width") <= numbers + 0.5,
                "a header wider than its numbers: {h}"
            );
        }
    }
    assert!(score_columns >= 11, "the eleven score columns: {desktop}");

    driver.viewport(390, 844, true).await;
    let phone = driver
        .eval(
            r#"
            const table = document.getElementById('leaderboard');
            const box = table.parentElement;
            const cue = document.querySelector('.scroll-cue');
            const entry = table.querySelector('tbody th.entry');
            const seen = [];
            for (const x of [0, box.scrollWidth / 2, box.scrollWidth]) {
                box.scrollLeft = x;
                const r = entry.getBoundingClientRect();
                seen.push({scrollLeft: box.scrollLeft, left: r.left, right: r.right, text: entry.textContent.trim()});
            }
            const wide = [...document.querySelectorAll('body *')]
                .filter(e => e.getBoundingClientRect().right > 391 && !box.contains(e))
                .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right));
            return {
                inner: innerWidth,
                page: document.scrollingElement.scrollWidth,
                wide,
                box: [box.scrollWidth, box.clientWidth],
                cue: cue !== null && cue.getBoundingClientRect().height > 0,
                seen,
            };
            "#,
        )
        .await;
    let inner = phone["inner"].as_f64().expect("innerWidth");
    assert_eq!(inner, 390.0, "{phone}");
    assert!(
        phone["page"].as_f64().expect("scrollWidth") <= inner,
        "the page itself scrolls sideways: {phone}"
    );
    assert!(
        phone["box"][0].as_f64() > phone["box"][1].as_f64(),
        "the table scrolls in its box: {phone}"
    );
    assert_eq!(phone["cue"], true, "a line says the table scrolls: {phone}");
    let seen = phone["seen"].as_array().expect("positions");
    assert!(
        seen.last().and_then(|s| s["scrollLeft"].as_f64()) > Some(0.0),
        "scrolled: {phone}"
    );
    for s in seen {
        let (left, right) = (
            s["left"].as_f64().expect("left"),
            s["right"].as_f64().expect("right"),
        );
        assert!(
            left >= 0.0 && right <= inner && right > left,
            "the entry column left the screen: {phone}"
        );
    }
    driver.quit().await;
}

/// The charts of the page in the browser (src/charts.rs), at the viewport's current width: each
/// must be an SVG element that is an image (`role="img"`) named by a non-empty SVG `<title>` and
/// described by a non-empty `<desc>`, drawn with a size within the window and with marks; the
/// page must not scroll sideways. `ids` are the charts the page must have.
async fn assert_charts_drawn(driver: &Driver, ids: &[&str]) -> Value {
    let v = driver
        .eval(
            r#"
            const byId = (id) => id ? document.getElementById(id) : null;
            return {
                inner: innerWidth,
                page: document.scrollingElement.scrollWidth,
                charts: [...document.querySelectorAll('svg.chart')].map((svg) => {
                    const title = byId(svg.getAttribute('aria-labelledby'));
                    const desc = byId(svg.getAttribute('aria-describedby'));
                    const r = svg.getBoundingClientRect();
                    return {
                        id: svg.id,
                        svg: svg instanceof SVGSVGElement,
                        role: svg.getAttribute('role'),
                        title: title instanceof SVGTitleElement && title.parentNode === svg
                            ? title.textContent.trim() : null,
                        desc: desc instanceof SVGDescElement ? desc.textContent.trim() : null,
                        left: r.left, right: r.right, width: r.width, height: r.height,
                        marks: svg.querySelectorAll('[data-n]').length,
                    };
                }),
            };
            "#,
        )
        .await;
    let inner = v["inner"].as_f64().expect("innerWidth");
    assert!(
        v["page"].as_f64().expect("scrollWidth") <= inner,
        "the page scrolls sideways: {v}"
    );
    let charts = v["charts"].as_array().expect("charts");
    for id in ids {
        let c = charts
            .iter()
            .find(|c| c["id"] == *id)
            .unwrap_or_else(|| panic!("no chart {id}: {v}"));
        assert_eq!(c["svg"], true, "{c}");
        assert_eq!(c["role"], "img", "{c}");
        assert!(
            c["title"].as_str().is_some_and(|t| !t.is_empty()),
            "no accessible title: {c}"
        );
        assert!(
            c["desc"].as_str().is_some_and(|t| !t.is_empty()),
            "no description: {c}"
        );
        let (left, right) = (
            c["left"].as_f64().expect("left"),
            c["right"].as_f64().expect("right"),
        );
        assert!(
            left >= 0.0 && right <= inner && c["width"].as_f64() > Some(200.0),
            "not drawn within the window: {c}"
        );
        assert!(c["height"].as_f64() > Some(100.0), "not drawn: {c}");
        assert!(c["marks"].as_u64() > Some(0), "nothing drawn in it: {c}");
    }
    v
}

/// The four charts of issue 34 in Chromium, at a laptop's and a phone's width: the leaderboard's
/// best entry over time, a submission's profile against the Human row, the compare page's
/// histogram and the metric agreement page's scatter plots. With `SPICEBOARD_SCREENSHOTS=DIR`
/// it also saves the compare and agreement pages (scripts/screenshots).
#[tokio::test]
async fn the_charts_render_as_svg_with_accessible_titles() {
    let app = spawn_app_with(1, |_| {}).await;
    let c = app.challenge_with_split("charts", "val", false).await;
    let split = spiceboard::actions::split(&app.pool, &c, "val")
        .await
        .expect("split");
    let mut ids = Vec::new();
    for (name, careful) in [("Night Owls", true), ("Foxes", false)] {
        let (_, token) = app.team("charts", name).await;
        ids.push(
            app.submit("charts", &token, "val", demo_results(careful))
                .await,
        );
    }
    let human = spiceboard::actions::compute_human(&app.pool, &split, 3)
        .await
        .expect("human row");
    let baseline = spiceboard::actions::submit(
        &app.pool,
        &c,
        &split,
        spiceboard::actions::Uploader::Baseline {
            label: "Nearest neighbour",
            user_id: None,
        },
        "",
        &spiceboard::domain::SubmissionMethod::default(),
        fresh(demo_results(false)),
        spiceboard::actions::SubmitLimits {
            max_caption_chars: 1000,
            parse_words_per_image:
                spiceboard::domain::results_file::ParseBudget::DEFAULT_WORDS_PER_IMAGE,
            max_attempts: 3,
            disk_floor: None,
        },
    )
    .await
    .expect("baseline");
    for id in ids.iter().chain([&human.id, &baseline.id]) {
        app.assert_scored(*id).await;
    }
    // Judgments: each image's careful caption rated 4, its hasty one 2; three entries rated.
    let careful: Vec<Value> = serde_json::from_slice(&demo_results(true)).expect("json");
    let hasty: Vec<Value> = serde_json::from_slice(&demo_results(false)).expect("json");
    let mut judgments = String::new();
    for (good, bad) in careful.iter().zip(&hasty).take(10) {
        for (c, rating) in [(good, 4), (bad, 2)] {
            judgments +=
                &(json!({"image_id": c["image_id"], "caption": c["caption"], "ratings": [rating]})
                    .to_string()
                    + "\n");
        }
    }
    for (id, rating) in [(ids[0], 4.5), (ids[1], 2.0), (baseline.id, 1.5)] {
        judgments += &(json!({"submission_id": id, "rating": rating}).to_string() + "\n");
    }
    spiceboard::actions::import_judgments(
        &app.pool,
        &app.engine,
        &split,
        None,
        judgments.into_bytes(),
        1 << 20,
        1000,
    )
    .await
    .expect("judgments");
    let team_id: i64 = sqlx::query_scalar("SELECT id FROM teams WHERE name = 'Night Owls'")
        .fetch_one(&app.pool)
        .await
        .expect("team");
    ann_joins(&app, team_id).await;

    let dir = tempfile::tempdir().expect("temp dir");
    let base = app.address.replace("127.0.0.1", "localhost");
    let driver = Driver::start(&dir.path().join("profile")).await;
    driver.go(&format!("{base}/login?next=/s/{}", ids[0])).await;
    driver
        .send_credentials("ann@example.org", "a long password")
        .await;
    driver
        .wait_for_page("the submission page after login", |_, s| {
            s.contains("id=\"categories\"")
        })
        .await;
    let pages = [
        ("/c/charts/leaderboard".to_string(), vec!["best-chart"]),
        (format!("/s/{}", ids[0]), vec!["profile-chart"]),
        (
            format!("/c/charts/compare?split=val&a={}&b={}", ids[0], ids[1]),
            vec!["differences-chart"],
        ),
        (
            "/c/charts/agreement?split=val".to_string(),
            vec!["scatter-spice", "scatter-object", "entry-scatter-spice"],
        ),
    ];
    for (path, charts) in &pages {
        driver.go(&format!("{base}{path}")).await;
        for (width, height, mobile) in [(1366, 768, false), (390, 844, true)] {
            driver.viewport(width, height, mobile).await;
            let v = assert_charts_drawn(&driver, charts).await;
            assert_eq!(v["inner"], width, "{path}: {v}");
        }
        driver.window_viewport().await;
    }
    // The profile compares with the Human row, which the leaderboard shows.
    driver.go(&format!("{base}/s/{}", ids[0])).await;
    let page = driver.source().await;
    assert!(
        page.contains(">F per category: Night Owls and Human</title>"),
        "{page}"
    );
    driver
        .go(&format!(
            "{base}/c/charts/compare?split=val&a={}&b={}",
            ids[0], ids[1]
        ))
        .await;
    driver
        .eval("document.getElementById('per-image').scrollIntoView(); return null;")
        .await;
    driver.screenshot("compare").await;
    driver
        .go(&format!("{base}/c/charts/agreement?split=val"))
        .await;
    driver
        .eval("document.getElementById('caption-level').scrollIntoView(); return null;")
        .await;
    driver.screenshot("agreement").await;
    driver.quit().await;
}

/// A team's tools on a submission's page, in the browser (issue 34, item 4): the method form
/// (name, paper and code links) saves what was typed and shows it, a refused link comes back with
/// its error and what was typed; and the cancel link of a queued submission asks first, then
/// cancels it. No worker runs, so the submission waits in the queue throughout. With
/// `SPICEBOARD_SCREENSHOTS=DIR` it saves the method form and the cancel confirmation.
#[tokio::test]
async fn a_team_names_its_method_and_cancels_a_queued_submission_in_the_browser() {
    let app = spawn_app_with(0, |_| {}).await;
    app.challenge_with_split("tools", "val", false).await;
    let (team_id, token) = app.team("tools", "Night Owls").await;
    ann_joins(&app, team_id).await;
    let id = app.submit("tools", &token, "val", demo_results(true)).await;
    let stored = |id: i64| {
        let pool = app.pool.clone();
        async move {
            sqlx::query_as::<_, (String, Option<String>, Option<String>, Option<String>)>(
                "SELECT status, method_name, paper_url, code_url FROM submissions WHERE id = $1",
            )
            .bind(id)
            .fetch_one(&pool)
            .await
            .expect("submission")
        }
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let base = app.address.replace("127.0.0.1", "localhost");
    let driver = Driver::start(&dir.path().join("profile")).await;
    driver.go(&format!("{base}/login?next=/s/{id}")).await;
    driver
        .send_credentials("ann@example.org", "a long password")
        .await;
    let page = driver
        .wait_for_page("the queued submission's page", |_, s| {
            s.contains("id=\"method-form\"")
        })
        .await;
    assert!(
        page.contains("<strong id=\"status-text\">queued</strong>")
            && page.contains("id=\"cancel-link\"")
            && !page.contains("id=\"method-shown\""),
        "{page}"
    );

    // The method, typed into the form (folded away until its summary is clicked).
    driver.click("#method summary").await;
    driver
        .type_into("#method_name", "Show, Attend & Tell <reproduction>")
        .await;
    driver
        .type_into("#paper_url", "https://arxiv.org/abs/1502.03044")
        .await;
    driver
        .type_into("#code_url", "https://github.com/kelvinxu/arctic-captions")
        .await;
    let page = driver
        .click_until(
            "#save-method",
            "the page with the method",
            "id=\"method-shown\"",
        )
        .await;
    assert_eq!(
        stored(id).await,
        (
            "queued".to_string(),
            Some("Show, Attend & Tell <reproduction>".to_string()),
            Some("https://arxiv.org/abs/1502.03044".to_string()),
            Some("https://github.com/kelvinxu/arctic-captions".to_string()),
        )
    );
    assert_eq!(
        driver.text("#method-name").await,
        "Show, Attend & Tell <reproduction>"
    );
    assert!(
        page.contains("href=\"https://arxiv.org/abs/1502.03044\"")
            && page.contains("href=\"https://github.com/kelvinxu/arctic-captions\""),
        "{page}"
    );

    // A link the server refuses: the form comes back open, with its error and what was typed.
    driver.click("#method summary").await;
    driver.clear("#paper_url").await;
    driver
        .type_into("#paper_url", "ftp://example.org/paper.pdf")
        .await;
    driver.clear("#method_name").await;
    driver.type_into("#method_name", "Renamed").await;
    driver
        .click_until("#save-method", "the refused change", "id=\"method-error\"")
        .await;
    assert!(
        driver
            .text("#method-error")
            .await
            .contains("paper link: must be a web address starting with http:// or https://"),
        "{}",
        driver.source().await
    );
    let open = driver
        .eval(
            "return {open: document.getElementById('method').open,
                     name: document.getElementById('method_name').value,
                     paper: document.getElementById('paper_url').value};",
        )
        .await;
    assert_eq!(
        open,
        json!({"open": true, "name": "Renamed", "paper": "ftp://example.org/paper.pdf"})
    );
    assert_eq!(
        stored(id).await.1.as_deref(),
        Some("Show, Attend & Tell <reproduction>"),
        "nothing written"
    );
    // The form and the cancel link are on a phone's screen, and the page does not scroll sideways.
    driver.viewport(390, 844, true).await;
    let phone = driver
        .eval(
            "const r = (id) => document.getElementById(id).getBoundingClientRect();
             return {page: document.scrollingElement.scrollWidth,
                     right: Math.max(r('method-form').right, r('cancel-link').right),
                     left: Math.min(r('method-form').left, r('cancel-link').left)};",
        )
        .await;
    assert!(
        phone["page"].as_f64() <= Some(390.0)
            && phone["right"].as_f64() <= Some(390.0)
            && phone["left"].as_f64() >= Some(0.0),
        "{phone}"
    );
    driver.window_viewport().await;
    driver.screenshot("method").await;

    // Cancelling: the link asks first and says what it means; keeping it changes nothing.
    driver.go(&format!("{base}/s/{id}")).await;
    let confirm = driver
        .click_until(
            "#cancel-link",
            "the cancel confirmation",
            "id=\"confirm-cancel\"",
        )
        .await;
    assert!(
        confirm.contains(&format!("<h1>Cancel submission {id}?</h1>"))
            && confirm.contains("it does not count against your team's quota"),
        "{confirm}"
    );
    driver.screenshot("cancel").await;
    driver
        .click_until("#keep", "the page again", "id=\"cancel-link\"")
        .await;
    assert_eq!(stored(id).await.0, "queued");
    driver
        .click_until(
            "#cancel-link",
            "the cancel confirmation",
            "id=\"confirm-cancel\"",
        )
        .await;
    let page = driver
        .click_until(
            "#confirm-cancel",
            "the cancelled submission",
            "id=\"cancelled\"",
        )
        .await;
    assert!(
        page.contains("<strong id=\"status-text\">cancelled</strong>")
            && !page.contains("id=\"cancel-link\""),
        "{page}"
    );
    assert_eq!(stored(id).await.0, "cancelled");
    let job: String = sqlx::query_scalar("SELECT state FROM jobs WHERE submission_id = $1")
        .bind(id)
        .fetch_one(&app.pool)
        .await
        .expect("job");
    assert_eq!(job, "cancelled");
    driver.quit().await;
}
