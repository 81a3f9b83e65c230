//! What a hostile upload costs in memory: validation reads entries as the JSON parser hands them
//! over and skips the values it does not keep, so a file whose entries hold millions of values
//! costs about what the file itself does, not a tree of those values (tens of bytes each). And a
//! body whose framing never ends, or that stalls, is cut off within seconds at a bounded cost, and
//! what its upload held is given back (issue 35, F1 and F2): a real server, in this process.
//! Its own test binary: the counting allocator below sees every allocation of the process, so its
//! tests run one at a time (`one_at_a_time`).

#[path = "api/helpers.rs"]
#[allow(dead_code)]
mod helpers;

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use spiceboard::domain::results_file::Bounds;
use spiceboard::domain::ResultsFile;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call goes to `System`; the counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `GlobalAlloc::alloc`, the caller's layout passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        // SAFETY: `p` came from `alloc` above with this layout.
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The tests of this binary, one at a time: each measures the whole process.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn entries_holding_millions_of_values_are_refused_without_building_them() {
    let _one = one_at_a_time();
    const VALUES: usize = 3_000_000;
    let mut file = String::with_capacity(4 * VALUES + 200);
    file.push_str(r#"[{"image_id": 1, "caption": "a dog", "padding": ["#);
    file.push_str(&"0,".repeat(VALUES));
    file.push_str(r#"0]}, {"image_id": 2, "caption": ["#);
    file.push_str(&"{},".repeat(VALUES / 3));
    file.push_str(r#"{}]}, ["#);
    file.push_str(&"[],".repeat(VALUES / 3));
    file.push_str("[]]]");
    let split: HashSet<i64> = [1, 2, 3].into();
    let bounds = Bounds {
        split_name: "test",
        split_images: &split,
        max_bytes: 64 << 20,
        max_caption_chars: 500,
        refuse_empty_captions: true,
        parse_budget: Some(spiceboard::domain::results_file::ParseBudget {
            words_per_image: spiceboard::domain::results_file::ParseBudget::DEFAULT_WORDS_PER_IMAGE,
        }),
    };
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let err = ResultsFile::parse(file.as_bytes(), bounds)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    let used = PEAK.load(Relaxed) - before;
    assert!(
        err.contains("entry 2 (image_id 2): \"caption\" must be a string (it is an array)")
            && err.contains("entry 3 is an array, not an object"),
        "{err}"
    );
    // The file is about 8 MB; as trees its 5 million values would take hundreds of megabytes.
    assert!(
        used < 1 << 20,
        "validating a {} byte file allocated {used} bytes at its peak",
        file.len()
    );
}

/// What the server may take beyond its memory at the start while it reads hostile bodies.
const MEMORY_SLACK: usize = 50 << 20;
/// How soon a hostile or stalled body must be answered.
const ANSWER_WITHIN: Duration = Duration::from_secs(10);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// How a hostile body goes on after its first bytes.
#[derive(Clone, Copy)]
enum Then {
    /// `filler` over and over, chunked, as fast as the server takes it (up to 1 GiB).
    Endless(&'static [u8]),
    /// Nothing: the client waits with the connection open.
    Stall,
}

/// How the body's length is told.
#[derive(Clone, Copy, Debug)]
enum Framing {
    Chunked,
    /// `Content-Length` of this many bytes (more than are sent).
    Declared(u64),
}

/// A request to `path` with `headers`, a multipart body with boundary `B` that starts with
/// `start` and goes on as `then`. Returns the answer's status (None if the connection closed
/// without one) and how long it took, waiting at most `ANSWER_WITHIN` and a second.
async fn hostile(
    address: &str,
    path: &str,
    headers: &str,
    framing: Framing,
    start: &'static [u8],
    then: Then,
) -> (Option<u16>, Duration) {
    let stream = tokio::net::TcpStream::connect(address.trim_start_matches("http://"))
        .await
        .expect("connect");
    let (mut rx, mut tx) = stream.into_split();
    let length = match framing {
        Framing::Chunked => "Transfer-Encoding: chunked".to_string(),
        Framing::Declared(n) => format!("Content-Length: {n}"),
    };
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\n{headers}Content-Type: multipart/form-data; \
         boundary=B\r\n{length}\r\n\r\n"
    );
    let began = Instant::now();
    let writer = tokio::spawn(async move {
        let chunk = |bytes: &[u8]| match framing {
            Framing::Chunked => {
                let mut c = format!("{:x}\r\n", bytes.len()).into_bytes();
                c.extend_from_slice(bytes);
                c.extend_from_slice(b"\r\n");
                c
            }
            Framing::Declared(_) => bytes.to_vec(),
        };
        tx.write_all(head.as_bytes()).await?;
        if !start.is_empty() {
            tx.write_all(&chunk(start)).await?;
        }
        match then {
            Then::Endless(filler) => {
                let block = chunk(&filler.repeat((64 << 10) / filler.len()));
                for _ in 0..(1 << 30) / block.len() {
                    tx.write_all(&block).await?;
                }
                std::future::pending::<()>().await;
            }
            Then::Stall => std::future::pending::<()>().await,
        }
        Ok::<_, std::io::Error>(tx)
    });
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    let status = tokio::time::timeout(ANSWER_WITHIN + Duration::from_secs(1), async {
        loop {
            match rx.read(&mut buf).await {
                Ok(0) | Err(_) => return None,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
            if let Some(end) = answer.iter().position(|&b| b == b'\n') {
                let line = String::from_utf8_lossy(&answer[..end]);
                return line.split(' ').nth(1).and_then(|s| s.parse::<u16>().ok());
            }
        }
    })
    .await
    .ok()
    .flatten();
    let took = began.elapsed();
    writer.abort();
    (status, took)
}

/// An app whose uploads all share a budget of what `uploads` uploads hold as they start (256 KiB
/// each; a share grows as the file arrives), and wait at most a second for their turn: an upload
/// that still held its turn or its share would turn the next away with a 503.
async fn app_for(uploads: u64) -> helpers::TestApp {
    let app = helpers::spawn_app_with(0, |s| {
        s.limits.upload_wait_ms = 1000;
        s.limits.upload_memory_bytes = uploads * 256 * 1024;
    })
    .await;
    app.challenge_with_split("c", "val", false).await;
    app
}

async fn upload_is_taken(app: &helpers::TestApp, token: &str, after: &str) {
    let r = app
        .api_upload(
            "c",
            token,
            Some("val"),
            helpers::fresh(helpers::demo_results(true)),
        )
        .await;
    let status = r.status();
    let body = r.text().await.unwrap_or_default();
    assert_eq!(status, 202, "the team's next upload, after {after}: {body}");
}

/// Sign-up of `email` in a cookie jar of our own; the `Cookie:` header line of its session.
async fn session(app: &helpers::TestApp, email: &str) -> String {
    let jar = std::sync::Arc::new(reqwest::cookie::Jar::default());
    let browser = reqwest::Client::builder()
        .cookie_provider(jar.clone())
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client");
    app.sign_up_in(&browser, email).await;
    use reqwest::cookie::CookieStore;
    let url = reqwest::Url::parse(&app.address).expect("the app's URL");
    let cookies = jar.cookies(&url).expect("session cookies");
    format!("Cookie: {}\r\n", cookies.to_str().expect("ASCII cookies"))
}

/// The shapes of F1: a body that never gets to a part's contents, each a line without end.
const ENDLESS: [(&str, &[u8], &[u8]); 3] = [
    ("a preamble without a line break", b"", b"x"),
    (
        "an endless part-header line",
        b"--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"",
        b"a",
    ),
    (
        "a header block without end",
        b"--B\r\n",
        b"X-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n",
    ),
];

/// F1: a team's API upload, or a form upload by a user without a team, whose preamble or
/// part headers never end was buffered without limit (600 MB on one connection took the
/// server from 361 to 971 MB) and never answered. Now the framing is cut off at 256 KiB with a
/// 400, the server's memory stays within 50 MB of its start, and the team's next upload is taken.
#[test]
fn a_multipart_body_whose_framing_never_ends_is_cut_off_at_a_bounded_cost() {
    let _one = one_at_a_time();
    runtime().block_on(async {
        let app = app_for(1).await;
        let (_, token) = app.team("c", "Owls").await;
        let lone = session(&app, "lone@example.org").await;
        upload_is_taken(&app, &token, "nothing").await;
        let api = format!("Authorization: Bearer {token}\r\n");
        for (what, start, filler) in ENDLESS {
            for (path, headers) in [("/api/c/c/submissions", &api), ("/c/c/submit", &lone)] {
                let before = LIVE.load(Relaxed);
                PEAK.store(before, Relaxed);
                let (status, took) = hostile(
                    &app.address,
                    path,
                    headers,
                    Framing::Chunked,
                    start,
                    Then::Endless(filler),
                )
                .await;
                let grew = PEAK.load(Relaxed).saturating_sub(before);
                eprintln!(
                    "{what} to {path}: {status:?} after {took:?}, +{} kB",
                    grew >> 10
                );
                assert!(
                    status == Some(400) && took < ANSWER_WITHIN,
                    "{what} to {path}: answered {status:?} after {took:?}"
                );
                assert!(
                    grew < MEMORY_SLACK,
                    "{what} to {path}: the server took {} MB more",
                    grew >> 20
                );
                upload_is_taken(&app, &token, what).await;
            }
        }
    });
}

/// F2: a body that sends its first bytes and then nothing held its team's upload turn and its
/// share of the upload memory budget for good (51 stalled uploads, one byte each, turned every
/// other team's upload away with a 503). Now each is answered 408 within
/// `limits.body_idle_timeout_ms` (5 s), chunked or with a declared length, stalled before the
/// first part, inside a part's headers or inside the file, and its team's turn and share are
/// given back: here the stalled uploads fill the budget, and afterwards every team's upload
/// is taken.
#[test]
fn a_stalled_body_is_cut_off_within_seconds_and_gives_back_its_turn() {
    let _one = one_at_a_time();
    const STARTS: [&[u8]; 3] = [
        b"--B",
        b"--B\r\nContent-Disposition: form-da",
        b"--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"r.json\"\r\n\r\n[{\"im",
    ];
    let framings = [Framing::Chunked, Framing::Declared(100_000)];
    runtime().block_on(async {
        let app = app_for((STARTS.len() * framings.len()) as u64).await;
        let mut teams = Vec::new();
        for i in 0..STARTS.len() * framings.len() {
            teams.push(app.team("c", &format!("Team {i}")).await.1);
        }
        let (_, other) = app.team("c", "Others").await;
        let before = LIVE.load(Relaxed);
        PEAK.store(before, Relaxed);
        let stalls = futures_util::future::join_all(
            STARTS
                .iter()
                .flat_map(|s| framings.iter().map(move |f| (*s, *f)))
                .zip(&teams)
                .map(|((start, framing), token)| {
                    let headers = format!("Authorization: Bearer {token}\r\n");
                    let address = app.address.clone();
                    async move {
                        let answer = hostile(
                            &address,
                            "/api/c/c/submissions",
                            &headers,
                            framing,
                            start,
                            Then::Stall,
                        )
                        .await;
                        (String::from_utf8_lossy(start).into_owned(), framing, answer)
                    }
                }),
        );
        // While they stall, the budget is full: another team is turned away.
        let (stalls, busy) = tokio::join!(stalls, async {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            app.api_upload("c", &other, Some("val"), helpers::demo_results(true))
                .await
                .status()
        });
        assert_eq!(busy, 503, "an upload beside the stalled ones");
        let grew = PEAK.load(Relaxed).saturating_sub(before);
        eprintln!("stalled uploads: +{} kB", grew >> 10);
        for (start, framing, (status, took)) in stalls {
            eprintln!("stalled after {start:?} ({framing:?}): {status:?} after {took:?}");
            assert!(
                status == Some(408) && took < ANSWER_WITHIN,
                "stalled after {start:?} ({framing:?}): answered {status:?} after {took:?}"
            );
        }
        assert!(
            grew < MEMORY_SLACK,
            "the server took {} MB more",
            grew >> 20
        );
        upload_is_taken(&app, &other, "the stalls").await;
        for token in &teams {
            upload_is_taken(&app, token, "its stall").await;
        }
    });
}
