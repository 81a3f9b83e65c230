//! The end-to-end test in headless Chromium (Debian's `chromium` and `chromium-driver`, installed
//! by scripts/install-test-deps): a team member logs in, uploads through the real form, and sees
//! the row on the leaderboard. It drives the browser over WebDriver with plain HTTP calls.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::helpers::{demo_results, spawn_app_with};

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

#[tokio::test]
async fn a_team_member_logs_in_uploads_through_the_form_and_sees_the_row() {
    let app = spawn_app_with(1, |_| {}).await;
    app.challenge_with_split("e2e", "val", false).await;
    let hash = spiceboard::auth::hash_password("a long password").expect("hash");
    let user =
        spiceboard::storage::accounts::create_user(&app.pool, "ann@example.org", &hash, false)
            .await
            .expect("user")
            .expect("new");
    let (team_id, _) = app.team("e2e", "Night Owls").await;
    spiceboard::storage::accounts::add_member(&app.pool, team_id, user.id)
        .await
        .expect("member");
    let dir = tempfile::tempdir().expect("temp dir");
    let results = dir.path().join("results.json");
    std::fs::write(&results, demo_results(true)).expect("write results");
    let base = app.address.replace("127.0.0.1", "localhost");

    let driver = Driver::start(&dir.path().join("profile")).await;
    driver.go(&format!("{base}/login?next=/c/e2e/submit")).await;
    driver.type_into("#email", "ann@example.org").await;
    driver.type_into("#password", "a long password").await;
    driver.click("#submit").await;
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
    driver
        .call(
            "DELETE",
            &format!("/session/{}", driver.session),
            Value::Null,
        )
        .await;
}
