//! The `spiceboard` binary's organizer subcommands against a test database.

use std::process::Command;

use secrecy::ExposeSecret;

use crate::helpers::{demo_references, fresh_database};

fn spiceboard(url: &str, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_spiceboard"))
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

/// `spiceboard admin create` for org@example.org.
fn create_organizer(url: &str) {
    let (ok, out, err) = spiceboard(
        url,
        &[
            "admin",
            "create",
            "--email",
            "org@example.org",
            "--password",
            "organizer-password",
        ],
    );
    assert!(ok, "{err}");
    assert!(out.contains("organizer org@example.org created"), "{out}");
}

#[tokio::test]
async fn a_challenge_can_be_scripted_from_the_command_line() {
    let (_, url) = fresh_database().await;
    let url = url.expose_secret().to_string();
    let dir = tempfile::tempdir().expect("temp dir");
    let refs = dir.path().join("captions.json");
    std::fs::write(&refs, demo_references()).expect("write refs");

    create_organizer(&url);
    // A password link for an account, printed to pass on; none for an unknown address.
    let (ok, out, err) = spiceboard(
        &url,
        &["admin", "password-link", "--email", "org@example.org"],
    );
    assert!(ok, "{err}");
    assert!(err.contains("it works once, for 24 hours"), "{err}");
    let link = out.trim();
    assert!(
        link.len() == "/password/".len() + 64 && link.starts_with("/password/"),
        "{out}"
    );
    let (ok, _, err) = spiceboard(
        &url,
        &["admin", "password-link", "--email", "nobody@example.org"],
    );
    assert!(!ok);
    assert!(err.contains("no account with e-mail address"), "{err}");
    let (ok, out, err) = spiceboard(
        &url,
        &[
            "challenge",
            "create",
            "--slug",
            "cli",
            "--title",
            "From the shell",
        ],
    );
    assert!(ok, "{err}");
    assert!(out.contains("challenge cli created"));
    let refs_path = refs.to_str().expect("utf-8 path");
    let (ok, out, err) = spiceboard(
        &url,
        &[
            "challenge",
            "import-refs",
            "--slug",
            "cli",
            "--split",
            "test",
            "--file",
            refs_path,
            "--hidden",
        ],
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("split test version 1: 20 images, 60 captions"),
        "{out}"
    );
    let (ok, token, err) = spiceboard(
        &url,
        &["team", "create", "--challenge", "cli", "--name", "Owls"],
    );
    assert!(ok, "{err}");
    assert_eq!(
        token.trim().len(),
        64,
        "the API token alone goes to stdout: {token:?}"
    );
    // The token works until it is revoked from the shell; a second revocation names the token.
    let pool = sqlx::PgPool::connect(&url).await.expect("connect");
    let hash = spiceboard::auth::token_hash(token.trim());
    let by_token = |pool: sqlx::PgPool, hash: String| async move {
        spiceboard::storage::accounts::team_by_token(&pool, &hash)
            .await
            .expect("look the token up")
    };
    assert!(by_token(pool.clone(), hash.clone()).await.is_some());
    let id: i64 = sqlx::query_scalar("SELECT id FROM api_tokens")
        .fetch_one(&pool)
        .await
        .expect("the token's id");
    let id = id.to_string();
    let (ok, out, err) = spiceboard(&url, &["team", "revoke-token", "--id", &id]);
    assert!(ok, "{err}");
    assert!(out.contains(&format!("API token {id} revoked")), "{out}");
    assert!(
        by_token(pool.clone(), hash).await.is_none(),
        "a revoked token opens nothing"
    );
    let (ok, _, err) = spiceboard(&url, &["team", "revoke-token", "--id", &id]);
    assert!(!ok);
    assert!(err.contains(&format!("no API token {id}")), "{err}");
    pool.close().await;
    let (ok, _, err) = spiceboard(
        &url,
        &[
            "challenge",
            "set-limits",
            "--slug",
            "cli",
            "--daily",
            "3",
            "--max-bytes",
            "100000",
        ],
    );
    assert!(ok, "{err}");
    let (ok, out, _) = spiceboard(
        &url,
        &["challenge", "reveal", "--slug", "cli", "--split", "test"],
    );
    assert!(ok && out.contains("now revealed"));
    let (ok, csv, err) = spiceboard(
        &url,
        &["challenge", "export", "--slug", "cli", "--split", "test"],
    );
    assert!(ok, "{err}");
    assert!(csv.starts_with("rank,kind,name,submission_id,spice,"));
    assert!(
        csv.lines()
            .next()
            .is_some_and(|h| h.ends_with(",scored_at,front_end,method_name,paper_url,code_url")),
        "{csv}"
    );
    // Re-scoring says which front end built the split's graphs and which rebuilds them.
    let (ok, out, err) = spiceboard(
        &url,
        &["challenge", "rescore", "--slug", "cli", "--split", "test"],
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("submissions of split test queued for re-scoring")
            && out.contains("(built by built-in)")
            && out.contains("(built-in with this configuration)"),
        "{out}"
    );

    // Errors name what is wrong and exit non-zero.
    let (ok, _, err) = spiceboard(
        &url,
        &["challenge", "export", "--slug", "cli", "--split", "nope"],
    );
    assert!(!ok);
    assert!(
        err.contains("challenge \"cli\" has no split \"nope\""),
        "{err}"
    );
    let (ok, _, err) = spiceboard(
        &url,
        &["team", "create", "--challenge", "cli", "--name", "Owls"],
    );
    assert!(!ok);
    assert!(err.contains("already exists"), "{err}");
}

/// A CoreNLP model that cannot be read stops the worker before it scores anything, naming the
/// setting, the path and what was wrong.
#[tokio::test]
async fn a_model_that_cannot_be_read_is_a_clear_error_at_start() {
    let (_, url) = fresh_database().await;
    let out = Command::new(env!("CARGO_BIN_EXE_spiceboard"))
        .args(["worker", "--concurrency", "1"])
        .env("DATABASE_URL", url.expose_secret())
        .env(
            "APP_ENGINE__CORENLP_MODELS",
            "/nonexistent/englishPCFG.ser.gz",
        )
        .env("RUST_LOG", "warn")
        .output()
        .expect("run spiceboard");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains(
            "engine.corenlp_models (APP_ENGINE__CORENLP_MODELS) is /nonexistent/englishPCFG.ser.gz"
        ) && err.contains("cannot read /nonexistent/englishPCFG.ser.gz"),
        "{err}"
    );
}

#[test]
fn help_lists_the_subcommands_and_their_flags() {
    let out = Command::new(env!("CARGO_BIN_EXE_spiceboard"))
        .arg("--help")
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    for sub in ["serve", "worker", "migrate", "admin", "challenge", "team"] {
        assert!(text.contains(sub), "{sub} missing from --help");
    }
    assert!(text.contains("--data-dir"));
    let out = Command::new(env!("CARGO_BIN_EXE_spiceboard"))
        .args(["serve", "--help"])
        .output()
        .expect("run");
    assert!(String::from_utf8_lossy(&out.stdout).contains("--bind <BIND>"));
}

/// Runs `serve` on `bind` until it answers /health, stops it (SIGINT) and returns its stdout and
/// stderr, written to pipes as under systemd or docker.
async fn serve_once(url: &str, bind: &str) -> (String, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_spiceboard"))
        .args(["serve", "--no-seed", "--workers", "0", "--bind", bind])
        .env("DATABASE_URL", url)
        .env("RUST_LOG", "info")
        .env_remove("NO_COLOR")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn spiceboard");
    let port = bind.rsplit(':').next().expect("port");
    let mut up = false;
    for _ in 0..300 {
        if let Ok(r) = reqwest::get(format!("http://127.0.0.1:{port}/health")).await {
            up = r.status() == 200;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().expect("wait");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(up, "serve came up: {stdout}{stderr}");
    (stdout, stderr)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("port")
        .port()
}

#[tokio::test]
async fn serve_prints_a_one_time_code_for_the_first_operator_and_warns_of_plain_http_on_the_network(
) {
    let (_, url) = fresh_database().await;
    let url = url.expose_secret().to_string();
    // First start, on every interface: the hint, the warning, and a log without colour codes.
    let (out, err) = serve_once(&url, &format!("0.0.0.0:{}", free_port())).await;
    assert!(
        out.contains("no site operator yet") && out.contains("spiceboard admin create --email"),
        "{out}"
    );
    // The one-time code, on a line of its own, and the page that takes it; only its hash stored.
    let code = out
        .lines()
        .skip_while(|l| !l.ends_with("one-time code"))
        .nth(1)
        .expect("the code's line")
        .trim()
        .to_string();
    assert!(
        out.contains(&format!("\n  {code}\nat http://0.0.0.0:")),
        "{out}"
    );
    assert!(out.contains("/operator within 60 minutes"), "{out}");
    let pool = sqlx::PgPool::connect(&url).await.expect("connect");
    let stored: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM operator_codes WHERE code_hash = $1")
            .bind(spiceboard::auth::token_hash(&code.replace('-', "")))
            .fetch_one(&pool)
            .await
            .expect("codes");
    assert_eq!(stored, 1, "{code}");
    pool.close().await;
    assert!(
        err.contains("WARN") && err.contains("serving plain http on 0.0.0.0:"),
        "{err}"
    );
    assert!(
        !err.contains('\u{1b}'),
        "no ANSI escapes in a piped log: {err:?}"
    );

    // Without engine.corenlp_models: the built-in parser, and one line on how to be exact.
    assert!(
        err.contains("captions are parsed by the built-in parser")
            && err.contains("for its exact numbers set engine.corenlp_models"),
        "{err}"
    );

    // With an organizer, on loopback: neither.
    create_organizer(&url);
    let (out, err) = serve_once(&url, &format!("127.0.0.1:{}", free_port())).await;
    assert!(out.contains("spiceboard is running at"), "{out}");
    assert!(!out.contains("no site operator yet"), "{out}");
    assert!(!err.contains("plain http"), "{err}");
}

#[tokio::test]
async fn an_organizer_hands_a_team_made_on_the_command_line_to_a_person() {
    let (_, url) = fresh_database().await;
    let url = url.expose_secret().to_string();
    let (ok, _, err) = spiceboard(
        &url,
        &["challenge", "create", "--slug", "hand", "--title", "Handed"],
    );
    assert!(ok, "{err}");
    for name in ["Night Owls", "Foxes"] {
        let (ok, _, err) = spiceboard(
            &url,
            &["team", "create", "--challenge", "hand", "--name", name],
        );
        assert!(ok, "{err}");
    }
    let pool = sqlx::PgPool::connect(&url).await.expect("connect");
    spiceboard::storage::accounts::create_user(&pool, "ann@example.org", "not-a-hash", false)
        .await
        .expect("user");
    let add = |team: &str, email: &str| {
        spiceboard(
            &url,
            &[
                "team",
                "add-member",
                "--challenge",
                "hand",
                "--team",
                team,
                "--email",
                email,
            ],
        )
    };
    // E-mail addresses are matched as sign-up stores them (lowercase).
    let (ok, out, err) = add("Night Owls", "Ann@Example.org");
    assert!(ok, "{err}");
    assert!(
        out.contains("ann@example.org is now in team \"Night Owls\""),
        "{out}"
    );
    let team: String = sqlx::query_scalar(
        "SELECT t.name FROM team_members m JOIN teams t ON t.id = m.team_id
         JOIN users u ON u.id = m.user_id WHERE u.email = 'ann@example.org'",
    )
    .fetch_one(&pool)
    .await
    .expect("membership");
    assert_eq!(team, "Night Owls");
    // One team per person per challenge; unknown teams and accounts are named.
    let (ok, _, err) = add("Foxes", "ann@example.org");
    assert!(!ok);
    assert!(err.contains("already in a team"), "{err}");
    let (ok, _, err) = add("Badgers", "ann@example.org");
    assert!(!ok);
    assert!(err.contains("no team \"Badgers\""), "{err}");
    let (ok, _, err) = add("Foxes", "nobody@example.org");
    assert!(!ok);
    assert!(
        err.contains("no account with e-mail address \"nobody@example.org\""),
        "{err}"
    );
    let members: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM team_members")
        .fetch_one(&pool)
        .await
        .expect("count");
    assert_eq!(members, 1);
    pool.close().await;
}

#[tokio::test]
async fn an_organizer_sets_the_phase_from_the_command_line() {
    let (_, url) = fresh_database().await;
    let url = url.expose_secret().to_string();
    let (ok, _, err) = spiceboard(
        &url,
        &["challenge", "create", "--slug", "ph", "--title", "Phased"],
    );
    assert!(ok, "{err}");
    let (ok, out, err) = spiceboard(
        &url,
        &[
            "challenge",
            "set-phase",
            "--slug",
            "ph",
            "--opens",
            "2020-01-01 09:00",
            "--closes",
            "2020-02-01T12:00:00+02:00",
        ],
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("phase of ph saved: Submissions closed at 2020-02-01 10:00 UTC."),
        "{out}"
    );
    let pool = sqlx::PgPool::connect(&url).await.expect("connect");
    let c = spiceboard::actions::challenge(&pool, "ph")
        .await
        .expect("challenge");
    assert_eq!(
        c.opens_at.map(|t| t.to_rfc3339()).as_deref(),
        Some("2020-01-01T09:00:00+00:00")
    );
    // A close before the open is refused; nothing changes.
    let (ok, _, err) = spiceboard(
        &url,
        &[
            "challenge",
            "set-phase",
            "--slug",
            "ph",
            "--opens",
            "2020-03-01 09:00",
            "--closes",
            "2020-02-01 09:00",
        ],
    );
    assert!(!ok);
    assert!(err.contains("must come after the open"), "{err}");
    // No bounds: open.
    let (ok, out, err) = spiceboard(&url, &["challenge", "set-phase", "--slug", "ph"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("phase of ph saved: Submissions are open, with no deadline."),
        "{out}"
    );

    // A split's own window, and back to the challenge's; a split that does not exist is named.
    let dir = tempfile::tempdir().expect("temp dir");
    let refs = dir.path().join("captions.json");
    std::fs::write(&refs, demo_references()).expect("write refs");
    let refs = refs.to_string_lossy().into_owned();
    let import = |extra: &[&str]| {
        let mut args = vec![
            "challenge",
            "import-refs",
            "--slug",
            "ph",
            "--split",
            "test",
            "--file",
            &refs,
            "--no-human",
        ];
        args.extend_from_slice(extra);
        spiceboard(&url, &args)
    };
    let (ok, _, err) = import(&[]);
    assert!(ok, "{err}");
    // Importing again needs --replace; --rescore moves the submissions (none here) along.
    let (ok, _, err) = import(&[]);
    assert!(!ok);
    assert!(
        err.contains("split test already has references (version 1; submissions on it: 0)")
            && err.contains("import again with `--replace`"),
        "{err}"
    );
    let (ok, _, err) = import(&["--rescore"]);
    assert!(!ok, "--rescore needs --replace");
    assert!(err.contains("--replace"), "{err}");
    let (ok, out, err) = import(&["--replace", "--rescore"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("split test version 2") && out.contains("version 1 is replaced"),
        "{out}"
    );
    let split_phase = |extra: &[&str]| {
        let mut args = vec!["challenge", "set-phase", "--slug", "ph"];
        args.extend_from_slice(extra);
        spiceboard(&url, &args)
    };
    let (ok, out, err) = split_phase(&["--split", "test", "--closes", "2020-02-01 09:00"]);
    assert!(ok, "{err}");
    assert!(
        out.contains(
            "split test has its own upload window. Submissions closed at 2020-02-01 09:00 UTC."
        ),
        "{out}"
    );
    let c = spiceboard::actions::challenge(&pool, "ph")
        .await
        .expect("challenge");
    assert!(c.refusal_for("test", chrono::Utc::now()).is_some());
    let (ok, out, err) = split_phase(&["--split", "test", "--follow-challenge"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("split test follows the challenge's upload window."),
        "{out}"
    );
    let c = spiceboard::actions::challenge(&pool, "ph")
        .await
        .expect("challenge");
    assert!(c.refusal_for("test", chrono::Utc::now()).is_none());
    let (ok, _, err) = split_phase(&["--split", "nope", "--closes", "2020-02-01 09:00"]);
    assert!(!ok);
    assert!(err.contains("nope"), "{err}");
    let (ok, _, err) = split_phase(&["--follow-challenge"]);
    assert!(!ok, "--follow-challenge needs --split");
    assert!(err.contains("--split"), "{err}");
    pool.close().await;
}

#[tokio::test]
async fn organizers_are_added_and_challenges_deleted_from_the_command_line() {
    let (_, url) = fresh_database().await;
    let url = url.expose_secret().to_string();
    let (ok, _, err) = spiceboard(
        &url,
        &["challenge", "create", "--slug", "gone", "--title", "Gone"],
    );
    assert!(ok, "{err}");
    let pool = sqlx::PgPool::connect(&url).await.expect("connect");
    spiceboard::storage::accounts::create_user(&pool, "ann@example.org", "not-a-hash", false)
        .await
        .expect("ann");
    let (ok, out, err) = spiceboard(
        &url,
        &[
            "challenge",
            "add-organizer",
            "--slug",
            "gone",
            "--email",
            "Ann@example.org",
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(out.trim(), "ann@example.org now organizes gone");
    let organizers: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM challenge_organizers")
        .fetch_one(&pool)
        .await
        .expect("count");
    assert_eq!(organizers, 1);

    // Without --yes it says what goes and deletes nothing.
    let (ok, _, err) = spiceboard(&url, &["challenge", "delete", "--slug", "gone"]);
    assert!(!ok);
    assert!(
        err.contains("challenge gone holds 0 split versions, 0 submissions, 0 teams")
            && err.contains("nothing deleted; add --yes"),
        "{err}"
    );
    let (ok, out, err) = spiceboard(&url, &["challenge", "delete", "--slug", "gone", "--yes"]);
    assert!(ok, "{err}");
    assert_eq!(out.trim(), "challenge gone deleted");
    let left: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM challenges")
        .fetch_one(&pool)
        .await
        .expect("count");
    assert_eq!(left, 0);
    pool.close().await;
}
