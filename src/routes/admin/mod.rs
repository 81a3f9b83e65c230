//! The organizer area: create a challenge (site operators), import references, set limits and the
//! leaderboard entry policy, hide or reveal a split, add baselines and the Human row, re-score,
//! soft-delete submissions, delete a split version or the challenge, add and remove organizers,
//! export CSV. Each action is one call into `crate::actions`, which the CLI shares. Who may act
//! on which challenge is settled by the extractors of `super::forms` (`ChallengeOrganizer` and
//! its kin) before a handler runs.

use actix_web::http::header::{LOCATION, SET_COOKIE};
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;
use sqlx::PgPool;

use super::forms::{
    Admitted, ChallengeOrganizer, Operator, Organizer, Posted, SubmissionOrganizer, Upload,
};
use super::{multipart, Layout, PageError};
use crate::actions::{self, Uploader, Viewer};
use crate::auth::CookiePolicy;
use crate::domain::leaderboard::{EntryPolicy, SortKey};
use crate::domain::phase::{self, Phase};
use crate::domain::{ChallengeSlug, SplitName, SubmissionKind, Title};
use crate::scoring::SharedEngine;
use crate::startup::AppConfig;
use crate::storage::accounts::User;
use crate::storage::challenges::{self, Challenge};
use crate::storage::splits::{self, Split};
use crate::storage::submissions;

/// The organizer's forms: files up to the server's own request limit.
fn server_limits(config: &AppConfig) -> multipart::Limits {
    let max = config.settings.limits.max_request_bytes as u64;
    multipart::Limits {
        file: max,
        body: max,
    }
}

/// The cookie that carries what an organizer's form did to the page it returns to.
const NOTICE_COOKIE: &str = "notice";

/// The notice cookie of a challenge's organizer page (removal cookies match it by name and path).
fn notice_cookie(slug: &str, value: String) -> actix_web::cookie::Cookie<'static> {
    actix_web::cookie::Cookie::build(NOTICE_COOKIE, value)
        .path(format!("/admin/c/{slug}"))
        .http_only(true)
        .same_site(actix_web::cookie::SameSite::Strict)
        .max_age(actix_web::cookie::time::Duration::minutes(5))
        .finish()
}

/// The cookie that carries what a form did to the organizer area's index (a deleted challenge).
const INDEX_NOTICE_COOKIE: &str = "admin_notice";

fn index_notice_cookie(value: String) -> actix_web::cookie::Cookie<'static> {
    actix_web::cookie::Cookie::build(INDEX_NOTICE_COOKIE, value)
        .path("/admin")
        .http_only(true)
        .same_site(actix_web::cookie::SameSite::Strict)
        .max_age(actix_web::cookie::time::Duration::minutes(5))
        .finish()
}

/// Back to the organizer area's index, which shows `msg` once (as [`back`] does).
fn back_to_index(req: &HttpRequest, msg: &str) -> HttpResponse {
    let mut cookie = index_notice_cookie(msg.chars().take(500).collect());
    cookie.set_secure(CookiePolicy::of(req).secure);
    HttpResponse::SeeOther()
        .insert_header((LOCATION, "/admin"))
        .insert_header((SET_COOKIE, cookie.encoded().to_string()))
        .finish()
}

/// Back to the challenge's organizer page, which shows `msg` once. The message travels in a
/// short-lived cookie that only this site sets (SameSite=Strict, HttpOnly), not in the address:
/// a link of anyone's making cannot put words on an organizer's page. It is written
/// percent-encoded, as actix reads cookies.
fn back(req: &HttpRequest, slug: &str, msg: &str) -> HttpResponse {
    let mut cookie = notice_cookie(slug, msg.chars().take(500).collect());
    cookie.set_secure(CookiePolicy::of(req).secure);
    HttpResponse::SeeOther()
        .insert_header((LOCATION, format!("/admin/c/{slug}")))
        .insert_header((SET_COOKIE, cookie.encoded().to_string()))
        .finish()
}

#[derive(Template)]
#[template(path = "admin.html")]
struct AdminIndex {
    layout: Layout,
    /// The challenges the user organizes (all of them for an operator).
    challenges: Vec<Challenge>,
    /// A site operator: creates challenges and makes password links.
    operator: bool,
    /// What the last form did (shown once).
    message: Option<String>,
    /// Why the new-challenge form failed, and the form as typed.
    error: Option<String>,
    typed: NewChallenge,
    /// The password link just made (the account's e-mail address and the link), or why not.
    password_link: Option<Result<(String, String), String>>,
}

pub async fn index(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    Admitted(Organizer(user)): Admitted<Organizer>,
) -> Result<HttpResponse, PageError> {
    let notice = req
        .cookie(INDEX_NOTICE_COOKIE)
        .map(|c| c.value().to_string());
    let index = Index {
        message: notice.clone(),
        ..Index::default()
    };
    let mut page = render_index(&req, &pool, &user, index).await?;
    if notice.is_some() {
        // Shown once.
        page.add_removal_cookie(&index_notice_cookie(String::new()))
            .map_err(|e| PageError::Internal(e.into()))?;
    }
    Ok(page)
}

/// What the index shows besides the challenges: a notice, a failed new-challenge form, a
/// password link.
#[derive(Default)]
struct Index {
    message: Option<String>,
    error: Option<String>,
    typed: NewChallenge,
    password_link: Option<Result<(String, String), String>>,
}

#[derive(Deserialize)]
pub struct PasswordLinkForm {
    email: String,
}

/// A one-time password link for someone who forgot theirs, shown once on the organizer page.
pub async fn password_link(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    Posted {
        by: Operator(user),
        form,
    }: Posted<Operator, PasswordLinkForm>,
) -> Result<HttpResponse, PageError> {
    let by = format!("organizer {}", user.id);
    let link = match actions::password_link(&pool, &form.email, &by).await {
        Ok(secret) => Ok((
            form.email.trim().to_lowercase(),
            super::view::absolute(&req, &format!("/password/{secret}")),
        )),
        Err(e @ actions::ActionError::NoAccount(_)) => Err(e.to_string()),
        Err(e) => return Err(e.into()),
    };
    let index = Index {
        password_link: Some(link),
        ..Index::default()
    };
    let page = render_index(&req, &pool, &user, index).await?;
    Ok(super::view::private(page))
}

async fn render_index(
    req: &HttpRequest,
    pool: &PgPool,
    user: &User,
    Index {
        message,
        error,
        typed,
        password_link,
    }: Index,
) -> Result<HttpResponse, PageError> {
    let status = if error.is_some() || matches!(password_link, Some(Err(_))) {
        actix_web::http::StatusCode::BAD_REQUEST
    } else {
        actix_web::http::StatusCode::OK
    };
    let page = AdminIndex {
        layout: Layout::new(req, Some(user)),
        challenges: actions::organized_challenges(pool, user).await?,
        operator: user.is_admin,
        message,
        error,
        typed,
        password_link,
    };
    Ok(HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .body(page.render()?))
}

#[derive(Deserialize, Default)]
pub struct NewChallenge {
    slug: String,
    title: String,
    #[serde(default)]
    description: String,
}

pub async fn create_challenge(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    Posted {
        by: Operator(user),
        form,
    }: Posted<Operator, NewChallenge>,
) -> Result<HttpResponse, PageError> {
    let parsed = ChallengeSlug::parse(&form.slug)
        .map_err(|e| e.to_string())
        .and_then(|slug| {
            Title::parse(&form.title)
                .map(|title| (slug, title))
                .map_err(|e| e.to_string())
        });
    let created = match parsed {
        Ok((slug, title)) => {
            actions::create_challenge(&pool, &slug, &title, form.description.trim(), Some(&user))
                .await
        }
        Err(e) => Err(actions::ActionError::Invalid(e)),
    };
    match created {
        Ok(c) => Ok(back(
            &req,
            &c.slug,
            "challenge created; import references next",
        )),
        Err(
            e @ (actions::ActionError::Invalid(_)
            | actions::ActionError::ChallengeExists(_)
            | actions::ActionError::TitleExists(_)),
        ) => {
            let index = Index {
                error: Some(e.to_string()),
                typed: form,
                ..Index::default()
            };
            render_index(&req, &pool, &user, index).await
        }
        Err(e) => Err(e.into()),
    }
}

struct SplitRow {
    split: Split,
    unparsed: i64,
    parse_error: Option<String>,
    /// The agreement table of the split's current judgments, if any were uploaded.
    agreement: Option<Vec<super::challenges::AgreementLine>>,
}

/// A column the organizer may rank the challenge by.
struct RankingChoice {
    key: &'static str,
    title: &'static str,
    chosen: bool,
}

#[derive(Template)]
#[template(path = "admin_challenge.html")]
struct AdminChallenge {
    layout: Layout,
    challenge: Challenge,
    splits: Vec<SplitRow>,
    /// Versions of the splits that are not current (kept with their submissions; deletable).
    earlier_versions: Vec<Split>,
    /// The challenge's own organizers, and who is looking.
    organizers: Vec<challenges::OrganizerLine>,
    user_id: i64,
    submissions: Vec<submissions::OrganizerLine>,
    message: Option<String>,
    /// The title and description as the edit form shows them, and its error.
    title: String,
    description: String,
    details_error: Option<String>,
    daily: String,
    total: String,
    team_bytes: String,
    max_bytes: String,
    /// The error of a failed limits or phase form, shown above it.
    limits_error: Option<String>,
    phase_error: Option<String>,
    /// The phase's bounds as the `datetime-local` inputs take them (UTC), and the current state.
    opens_at: String,
    closes_at: String,
    phase: Option<String>,
    /// The splits with an upload window of their own, and how each reads now.
    split_windows: Vec<(String, String)>,
    split_phase_error: Option<String>,
    ranking: Vec<RankingChoice>,
}

pub async fn challenge(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    Admitted(ChallengeOrganizer { user, .. }): Admitted<ChallengeOrganizer>,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let notice = req.cookie(NOTICE_COOKIE).map(|c| c.value().to_string());
    let mut page = render_challenge(&req, &pool, &user, &slug, notice.clone(), None).await?;
    if notice.is_some() {
        // Shown once.
        page.add_removal_cookie(&notice_cookie(&slug, String::new()))
            .map_err(|e| PageError::Internal(e.into()))?;
    }
    Ok(page)
}

/// A form of the organizer's page that failed: why, and what was typed (shown again in the form).
enum Failed {
    Details(String, DetailsForm),
    Limits(String, LimitsForm),
    Phase(String, PhaseForm),
    SplitPhase(String),
}

async fn render_challenge(
    req: &HttpRequest,
    pool: &PgPool,
    user: &User,
    slug: &str,
    message: Option<String>,
    failed: Option<Failed>,
) -> Result<HttpResponse, PageError> {
    let challenge = actions::challenge(pool, slug).await?;
    let mut rows = Vec::new();
    for split in splits::list_current(pool, challenge.id).await? {
        let (unparsed, parse_error) = splits::parse_failures(pool, split.id).await?;
        let agreement = crate::storage::judgments::current(pool, split.id)
            .await?
            .map(|a| super::challenges::agreement_lines(&a.table, challenge.ranking_key()));
        rows.push(SplitRow {
            split,
            unparsed,
            parse_error,
            agreement,
        });
    }
    let text = |v: Option<i64>| v.map(|v| v.to_string()).unwrap_or_default();
    let mut page = AdminChallenge {
        layout: Layout::new(req, Some(user)),
        daily: text(challenge.daily_submission_limit.map(i64::from)),
        total: text(challenge.total_submission_limit.map(i64::from)),
        max_bytes: challenge.max_file_bytes.to_string(),
        team_bytes: text(challenge.max_team_bytes),
        opens_at: phase::input_text(challenge.opens_at),
        closes_at: phase::input_text(challenge.closes_at),
        phase: challenge.phase().summary(chrono::Utc::now()),
        split_windows: challenge
            .split_phases
            .iter()
            .map(|(name, p)| (name.clone(), p.description(chrono::Utc::now())))
            .collect(),
        split_phase_error: None,
        limits_error: None,
        phase_error: None,
        submissions: submissions::organizer_lines(pool, challenge.id, Some(100)).await?,
        organizers: challenges::organizers(pool, challenge.id).await?,
        user_id: user.id,
        title: challenge.title.clone(),
        description: challenge.description.clone(),
        details_error: None,
        earlier_versions: splits::all_versions(pool, challenge.id)
            .await?
            .into_iter()
            .filter(|v| !rows.iter().any(|r| r.split.id == v.id))
            .collect(),
        ranking: SortKey::ALL
            .into_iter()
            .map(|k| RankingChoice {
                key: k.name(),
                title: k.title(),
                chosen: k == challenge.ranking_key(),
            })
            .collect(),
        challenge,
        splits: rows,
        message,
    };
    let failed_status = failed.is_some();
    match failed {
        Some(Failed::Limits(error, form)) => {
            page.limits_error = Some(error);
            page.daily = form.daily;
            page.total = form.total;
            page.max_bytes = form.max_bytes;
            if let Some(t) = form.max_team_bytes {
                page.team_bytes = t;
            }
        }
        Some(Failed::Details(error, form)) => {
            page.details_error = Some(error);
            page.title = form.title;
            page.description = form.description;
        }
        Some(Failed::Phase(error, form)) => {
            page.phase_error = Some(error);
            page.opens_at = form.opens_at;
            page.closes_at = form.closes_at;
        }
        Some(Failed::SplitPhase(error)) => page.split_phase_error = Some(error),
        None => {}
    }
    let status = if failed_status {
        actix_web::http::StatusCode::BAD_REQUEST
    } else {
        actix_web::http::StatusCode::OK
    };
    Ok(HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .body(page.render()?))
}

pub async fn import_references(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    engine: web::Data<SharedEngine>,
    config: web::Data<AppConfig>,
    Upload {
        by: ChallengeOrganizer { challenge, .. },
        body,
    }: Upload<ChallengeOrganizer>,
) -> Result<HttpResponse, PageError> {
    let form = body.read(server_limits(&config), Ok(())).await?;
    actions::check_disk(config.settings.disk_floor().as_ref())?;
    let split =
        SplitName::parse(form.field("split")).map_err(|e| PageError::BadRequest(e.to_string()))?;
    if form.file_too_large.is_some() {
        return Err(PageError::BadRequest(
            "the reference file is larger than the server accepts".into(),
        ));
    }
    let file = form
        .file
        .clone()
        .ok_or_else(|| PageError::BadRequest("choose a file".into()))?;
    let rescore = form.field("rescore") == "on";
    let mode = actions::ImportMode {
        hidden: form.field("hidden") == "on",
        // Asking for the submissions to be re-scored against the new references says to replace.
        replace: rescore || form.field("replace") == "on",
        rescore_with_attempts: rescore.then_some(config.settings.worker.max_attempts),
    };
    let report = actions::import_references(&pool, &engine, &challenge, &split, file, mode).await?;
    let mut msg = format!(
        "imported split {} version {}{}: {} images, {} captions",
        split.as_str(),
        report.version,
        if report.hidden { " (hidden)" } else { "" },
        report.images,
        report.captions
    );
    if let Some(note) = report.replaced_note() {
        msg.push_str(&format!("; {note}"));
    }
    if report.unparsed > 0 {
        msg.push_str(&format!(
            "; {} images have no scene graph yet (rebuilt when scoring): {}",
            report.unparsed,
            report.first_parse_error.unwrap_or_default()
        ));
    }
    if report.min_refs_per_image >= 2 && form.field("human") == "on" {
        let split = actions::split(&pool, &challenge, split.as_str()).await?;
        let s = actions::compute_human(&pool, &split, config.settings.worker.max_attempts).await?;
        msg.push_str(&format!("; Human row queued as submission {}", s.id));
    }
    Ok(back(&req, &challenge.slug, &msg))
}

#[derive(Deserialize)]
pub struct DetailsForm {
    title: String,
    #[serde(default)]
    description: String,
}

/// Edits the challenge's title and description.
pub async fn set_details(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    slug: web::Path<String>,
    Posted {
        by: ChallengeOrganizer { user, challenge },
        form,
    }: Posted<ChallengeOrganizer, DetailsForm>,
) -> Result<HttpResponse, PageError> {
    match actions::set_details(&pool, &challenge, &form.title, &form.description).await {
        Ok(()) => Ok(back(&req, &challenge.slug, "title and description saved")),
        Err(e @ (actions::ActionError::Invalid(_) | actions::ActionError::TitleExists(_))) => {
            let failed = Failed::Details(e.to_string(), form);
            render_challenge(&req, &pool, &user, &slug, None, Some(failed)).await
        }
        Err(e) => Err(e.into()),
    }
}

#[derive(Deserialize)]
pub struct LimitsForm {
    #[serde(default)]
    daily: String,
    #[serde(default)]
    total: String,
    max_bytes: String,
    /// Absent: unchanged; empty: no cap.
    max_team_bytes: Option<String>,
}

fn optional_count(s: &str, what: &str) -> Result<Option<i32>, PageError> {
    let t = s.trim();
    if t.is_empty() {
        return Ok(None);
    }
    t.parse::<i32>()
        .ok()
        .filter(|v| *v >= 0)
        .map(Some)
        .ok_or_else(|| PageError::BadRequest(format!("{what} must be a whole number or empty")))
}

pub async fn set_limits(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    slug: web::Path<String>,
    Posted {
        by: ChallengeOrganizer { user, challenge },
        form,
    }: Posted<ChallengeOrganizer, LimitsForm>,
) -> Result<HttpResponse, PageError> {
    match save_limits(&pool, &challenge, &form).await {
        Ok(()) => Ok(back(&req, &challenge.slug, "limits saved")),
        Err(PageError::BadRequest(e)) => {
            let failed = Failed::Limits(e, form);
            render_challenge(&req, &pool, &user, &slug, None, Some(failed)).await
        }
        Err(e) => Err(e),
    }
}

async fn save_limits(
    pool: &PgPool,
    challenge: &Challenge,
    form: &LimitsForm,
) -> Result<(), PageError> {
    let daily = optional_count(&form.daily, "daily limit")?;
    let total = optional_count(&form.total, "total limit")?;
    let max_bytes: i64 = form
        .max_bytes
        .trim()
        .parse()
        .ok()
        .filter(|v| *v > 0)
        .ok_or_else(|| {
            PageError::BadRequest("maximum file size must be a positive number of bytes".into())
        })?;
    let cap = match form.max_team_bytes.as_deref().map(str::trim) {
        None => None,
        Some("") => Some(None),
        Some(t) => Some(Some(t.parse::<i64>().ok().filter(|v| *v > 0).ok_or_else(
            || {
                PageError::BadRequest(
                    "stored bytes per team must be a positive number or empty".into(),
                )
            },
        )?)),
    };
    challenges::set_limits(pool, challenge.id, daily, total, max_bytes).await?;
    if let Some(cap) = cap {
        challenges::set_max_team_bytes(pool, challenge.id, cap).await?;
    }
    Ok(())
}

/// Human judgments for a split (form fields `split` and `file`; format:
/// `crate::domain::judgments`); the metric agreement is computed now, once, and stored.
pub async fn import_judgments(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    engine: web::Data<SharedEngine>,
    config: web::Data<AppConfig>,
    Upload {
        by: ChallengeOrganizer { user, challenge },
        body,
    }: Upload<ChallengeOrganizer>,
) -> Result<HttpResponse, PageError> {
    let limits = server_limits(&config);
    let max_bytes = limits.file;
    let form = body.read(limits, Ok(())).await?;
    let split = actions::split(&pool, &challenge, form.field("split")).await?;
    if form.file_too_large.is_some() {
        return Err(PageError::BadRequest(
            "the judgments file is larger than the server accepts".into(),
        ));
    }
    let file = form
        .file
        .ok_or_else(|| PageError::BadRequest("choose a judgments file".into()))?;
    let report = actions::import_judgments(
        &pool,
        &engine,
        &split,
        Some(user.id),
        file,
        max_bytes,
        config.settings.limits.max_caption_chars,
    )
    .await?;
    Ok(back(&req, &challenge.slug,
        &format!(
            "judgments for split {}: {} captions, {} entries; the metric agreement table has {} columns",
            split.name, report.caption_judgments, report.entry_judgments, report.metrics
        ),
    ))
}

#[derive(Deserialize)]
pub struct RankingMetricForm {
    metric: String,
}

/// The column that ranks the challenge's leaderboards when a page asks for no other.
pub async fn set_ranking_metric(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    Posted {
        by: ChallengeOrganizer { challenge, .. },
        form,
    }: Posted<ChallengeOrganizer, RankingMetricForm>,
) -> Result<HttpResponse, PageError> {
    let key = actions::set_ranking_metric(&pool, &challenge, &form.metric).await?;
    Ok(back(
        &req,
        &challenge.slug,
        &format!("the leaderboards are now ranked by {}", key.title()),
    ))
}

#[derive(Deserialize)]
pub struct EntryPolicyForm {
    policy: String,
}

/// Which of a team's submissions the challenge's leaderboards show: `best`, `latest` or `chosen`.
pub async fn set_entry_policy(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    Posted {
        by: ChallengeOrganizer { challenge, .. },
        form,
    }: Posted<ChallengeOrganizer, EntryPolicyForm>,
) -> Result<HttpResponse, PageError> {
    let policy = EntryPolicy::parse(&form.policy).ok_or_else(|| {
        PageError::BadRequest(format!(
            "unknown entry policy {:?}; valid: best, latest, chosen",
            form.policy
        ))
    })?;
    challenges::set_entry_policy(pool.get_ref(), challenge.id, policy).await?;
    Ok(back(
        &req,
        &challenge.slug,
        "leaderboard entry policy saved",
    ))
}

#[derive(Deserialize)]
pub struct PhaseForm {
    #[serde(default)]
    opens_at: String,
    #[serde(default)]
    closes_at: String,
}

/// When team uploads open and close (UTC; empty = no bound).
pub async fn set_phase(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    slug: web::Path<String>,
    Posted {
        by: ChallengeOrganizer { user, challenge },
        form,
    }: Posted<ChallengeOrganizer, PhaseForm>,
) -> Result<HttpResponse, PageError> {
    let phase = match Phase::parse(&form.opens_at, &form.closes_at) {
        Ok(p) => p,
        Err(e) => {
            let failed = Failed::Phase(e, form);
            return render_challenge(&req, &pool, &user, &slug, None, Some(failed)).await;
        }
    };
    challenges::set_phase(pool.get_ref(), challenge.id, phase).await?;
    let msg = phase.description(chrono::Utc::now());
    Ok(back(&req, &challenge.slug, &format!("phase saved. {msg}")))
}

#[derive(Deserialize)]
pub struct SplitPhaseForm {
    split: String,
    #[serde(default)]
    opens_at: String,
    #[serde(default)]
    closes_at: String,
    /// Set by the "follow the challenge's window" button.
    #[serde(default)]
    follow: String,
}

/// A split's own upload window, or (the `follow` button) none: it follows the challenge's.
pub async fn set_split_phase(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    slug: web::Path<String>,
    Posted {
        by: ChallengeOrganizer { user, challenge },
        form,
    }: Posted<ChallengeOrganizer, SplitPhaseForm>,
) -> Result<HttpResponse, PageError> {
    let phase = match (
        form.follow.as_str(),
        Phase::parse(&form.opens_at, &form.closes_at),
    ) {
        ("on", _) => None,
        (_, Ok(p)) => Some(p),
        (_, Err(e)) => {
            let failed = Failed::SplitPhase(format!("split {}: {e}", form.split));
            return render_challenge(&req, &pool, &user, &slug, None, Some(failed)).await;
        }
    };
    let msg = actions::set_split_phase(&pool, &challenge, &form.split, phase).await?;
    Ok(back(&req, &challenge.slug, &msg))
}

#[derive(Deserialize)]
pub struct VisibilityForm {
    hidden: String,
}

pub async fn set_visibility(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    path: web::Path<(String, String)>,
    Posted {
        by: ChallengeOrganizer { challenge, .. },
        form,
    }: Posted<ChallengeOrganizer, VisibilityForm>,
) -> Result<HttpResponse, PageError> {
    let split = actions::split(&pool, &challenge, &path.1).await?;
    let hidden = form.hidden == "true";
    splits::set_hidden(pool.get_ref(), split.id, hidden).await?;
    Ok(back(
        &req,
        &challenge.slug,
        if hidden {
            "split hidden"
        } else {
            "split revealed"
        },
    ))
}

/// A baseline row: the split is the path's (`/splits/{split}/baselines`) or the form's `split`
/// (`/baselines`, the organizer page's own section).
pub async fn add_baseline(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    config: web::Data<AppConfig>,
    Upload {
        by: ChallengeOrganizer { user, challenge },
        body,
    }: Upload<ChallengeOrganizer>,
) -> Result<HttpResponse, PageError> {
    let form = body.read(server_limits(&config), Ok(())).await?;
    let name = match req.match_info().get("split") {
        Some(name) => name.to_string(),
        None => form.field("split").to_string(),
    };
    let split = actions::split(&pool, &challenge, &name).await?;
    let label = crate::domain::TeamName::parse(form.field("label"))
        .map_err(|e| PageError::BadRequest(format!("baseline label: {e}")))?;
    let description = form.field("description").to_string();
    let file = form
        .file
        .ok_or_else(|| PageError::BadRequest("choose a results file".into()))?;
    let settings = &config.settings;
    let uploader = Uploader::Baseline {
        label: label.as_str(),
        user_id: Some(user.id),
    };
    let s = actions::submit(
        &pool,
        &challenge,
        &split,
        uploader,
        &description,
        &crate::domain::SubmissionMethod::default(),
        file,
        actions::SubmitLimits::from_settings(settings),
    )
    .await?;
    Ok(back(
        &req,
        &challenge.slug,
        &format!(
            "baseline {:?} queued as submission {}",
            label.as_str(),
            s.id
        ),
    ))
}

pub async fn compute_human(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    config: web::Data<AppConfig>,
    path: web::Path<(String, String)>,
    Posted {
        by: ChallengeOrganizer { challenge, .. },
        ..
    }: Posted<ChallengeOrganizer>,
) -> Result<HttpResponse, PageError> {
    let split = actions::split(&pool, &challenge, &path.1).await?;
    let s = actions::compute_human(&pool, &split, config.settings.worker.max_attempts).await?;
    Ok(back(
        &req,
        &challenge.slug,
        &format!("Human row queued as submission {}", s.id),
    ))
}

pub async fn rescore(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    engine: web::Data<SharedEngine>,
    config: web::Data<AppConfig>,
    path: web::Path<(String, String)>,
    Posted {
        by: ChallengeOrganizer { challenge, .. },
        ..
    }: Posted<ChallengeOrganizer>,
) -> Result<HttpResponse, PageError> {
    let split = actions::split(&pool, &challenge, &path.1).await?;
    let n = actions::rescore(&pool, &split, config.settings.worker.max_attempts).await?;
    Ok(back(
        &req,
        &challenge.slug,
        &format!(
            "{n} submissions queued for re-scoring; the split's reference graphs (built by {}) \
             are rebuilt first, by this server's front end ({})",
            split.front_end,
            crate::scoring::front_end_name(&engine)
        ),
    ))
}

#[derive(Template)]
#[template(path = "admin_delete.html")]
struct ConfirmDelete {
    layout: Layout,
    challenge: Challenge,
    line: submissions::OrganizerLine,
}

/// Asks before deleting: what the submission is, and a button that deletes it.
pub async fn confirm_delete(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    Admitted(SubmissionOrganizer {
        user,
        challenge,
        submission: s,
    }): Admitted<SubmissionOrganizer>,
) -> Result<HttpResponse, PageError> {
    let line = submissions::organizer_line(pool.get_ref(), s.id)
        .await?
        .ok_or(PageError::NotFound)?;
    let page = ConfirmDelete {
        layout: Layout::new(&req, Some(&user)),
        challenge,
        line,
    };
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(page.render()?))
}

/// The organizers' export of every submission of the challenge (all splits, deleted ones too):
/// who sent it, its description, status and scores, and whether it is its team's entry.
pub async fn export_submissions(
    pool: web::Data<PgPool>,
    Admitted(ChallengeOrganizer { challenge, .. }): Admitted<ChallengeOrganizer>,
) -> Result<HttpResponse, PageError> {
    let lines = submissions::organizer_lines(pool.get_ref(), challenge.id, None).await?;
    let entries = crate::storage::leaderboard::entries_of_challenge(pool.get_ref(), challenge.id)
        .await?
        .into_iter()
        .collect();
    let body =
        actions::submissions_csv(&lines, &entries).map_err(|e| PageError::Internal(e.into()))?;
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            "Content-Disposition",
            format!(
                "attachment; filename=\"{}-submissions.csv\"",
                challenge.slug
            ),
        ))
        .body(body))
}

pub async fn delete_submission(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    Posted {
        by:
            SubmissionOrganizer {
                challenge,
                submission: s,
                ..
            },
        ..
    }: Posted<SubmissionOrganizer>,
) -> Result<HttpResponse, PageError> {
    submissions::soft_delete(pool.get_ref(), s.id).await?;
    Ok(back(
        &req,
        &challenge.slug,
        &format!("submission {} deleted", s.id),
    ))
}

/// The export's query. Nothing in it is required to be there: a query that cannot be read would
/// be refused before the organizer check, telling a stranger something about the route.
#[derive(Deserialize)]
pub struct ExportQuery {
    #[serde(default)]
    split: String,
    sort: Option<String>,
}

/// The organizer's export: every entry, hidden split or not.
pub async fn export_csv(
    pool: web::Data<PgPool>,
    Admitted(ChallengeOrganizer { challenge, .. }): Admitted<ChallengeOrganizer>,
    q: web::Query<ExportQuery>,
) -> Result<HttpResponse, PageError> {
    let split = actions::split(&pool, &challenge, &q.split).await?;
    let rows = actions::leaderboard(
        &pool,
        &split,
        SortKey::parse_or(q.sort.as_deref(), challenge.ranking_key())
            .map_err(|e| PageError::BadRequest(e.to_string()))?,
        Viewer {
            organizer: true,
            team_id: None,
        },
    )
    .await?;
    let body = actions::leaderboard_csv(&rows).map_err(|e| PageError::Internal(e.into()))?;
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            "Content-Disposition",
            format!(
                "attachment; filename=\"{}-{}.csv\"",
                challenge.slug, split.name
            ),
        ))
        .body(body))
}

#[derive(Template)]
#[template(path = "admin_delete_split.html")]
struct ConfirmSplitDelete {
    layout: Layout,
    challenge: Challenge,
    d: actions::SplitDeletion,
}

/// Asks before deleting a split version: what goes with it, and what the leaderboard shows after.
pub async fn confirm_delete_split(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    Admitted(ChallengeOrganizer { user, challenge }): Admitted<ChallengeOrganizer>,
    path: web::Path<(String, String, i32)>,
) -> Result<HttpResponse, PageError> {
    let (_, name, version) = path.into_inner();
    let d = actions::split_deletion(&pool, &challenge, &name, version).await?;
    let page = ConfirmSplitDelete {
        layout: Layout::new(&req, Some(&user)),
        challenge,
        d,
    };
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(page.render()?))
}

pub async fn delete_split(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    path: web::Path<(String, String, i32)>,
    Posted {
        by: ChallengeOrganizer { challenge, .. },
        ..
    }: Posted<ChallengeOrganizer>,
) -> Result<HttpResponse, PageError> {
    let (_, name, version) = path.into_inner();
    let current = actions::delete_split_version(&pool, &challenge, &name, version).await?;
    let after = match current {
        Some(v) => format!("; the leaderboard of {name} shows version {v}"),
        None => format!("; split {name} has no version left"),
    };
    Ok(back(
        &req,
        &challenge.slug,
        &format!("version {version} of split {name} deleted{after}"),
    ))
}

#[derive(Template)]
#[template(path = "admin_delete_challenge.html")]
struct ConfirmChallengeDelete {
    layout: Layout,
    challenge: Challenge,
    d: actions::ChallengeDeletion,
    error: Option<String>,
}

async fn render_challenge_delete(
    req: &HttpRequest,
    pool: &PgPool,
    user: &User,
    challenge: Challenge,
    error: Option<String>,
) -> Result<HttpResponse, PageError> {
    let d = actions::challenge_deletion(pool, &challenge).await?;
    let status = if error.is_some() {
        actix_web::http::StatusCode::BAD_REQUEST
    } else {
        actix_web::http::StatusCode::OK
    };
    let page = ConfirmChallengeDelete {
        layout: Layout::new(req, Some(user)),
        challenge,
        d,
        error,
    };
    Ok(HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .body(page.render()?))
}

/// Asks before deleting a whole challenge: what goes with it; the slug must be typed.
pub async fn confirm_delete_challenge(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    Admitted(ChallengeOrganizer { user, challenge }): Admitted<ChallengeOrganizer>,
) -> Result<HttpResponse, PageError> {
    render_challenge_delete(&req, &pool, &user, challenge, None).await
}

#[derive(Deserialize)]
pub struct DeleteChallengeForm {
    #[serde(default)]
    confirm: String,
}

pub async fn delete_challenge(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    Posted {
        by: ChallengeOrganizer { user, challenge },
        form,
    }: Posted<ChallengeOrganizer, DeleteChallengeForm>,
) -> Result<HttpResponse, PageError> {
    match actions::delete_challenge(&pool, &challenge, &form.confirm).await {
        Ok(()) => Ok(back_to_index(
            &req,
            &format!("challenge {} ({}) deleted", challenge.title, challenge.slug),
        )),
        Err(actions::ActionError::Invalid(e)) => {
            render_challenge_delete(&req, &pool, &user, challenge, Some(e)).await
        }
        Err(e) => Err(e.into()),
    }
}

#[derive(Deserialize)]
pub struct AddOrganizerForm {
    email: String,
}

/// Makes another existing account an organizer of the challenge.
pub async fn add_organizer(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    Posted {
        by: ChallengeOrganizer { user, challenge },
        form,
    }: Posted<ChallengeOrganizer, AddOrganizerForm>,
) -> Result<HttpResponse, PageError> {
    let msg = match actions::add_organizer(&pool, &challenge, &form.email, Some(&user)).await {
        Ok((added, true)) => format!("{} now organizes this challenge", added.email),
        Ok((added, false)) => format!("{} organizes this challenge already", added.email),
        Err(e @ actions::ActionError::NoAccount(_)) => {
            format!("{e}; they sign up first, then you add them")
        }
        Err(e) => return Err(e.into()),
    };
    Ok(back(&req, &challenge.slug, &msg))
}

#[derive(Deserialize)]
pub struct RemoveOrganizerForm {
    user_id: i64,
}

/// Removes an organizer of the challenge (themselves included), never the last one.
pub async fn remove_organizer(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    Posted {
        by: ChallengeOrganizer { user, challenge },
        form,
    }: Posted<ChallengeOrganizer, RemoveOrganizerForm>,
) -> Result<HttpResponse, PageError> {
    match actions::remove_organizer(&pool, &challenge, form.user_id).await {
        Ok(email) if form.user_id == user.id && !user.is_admin => Ok(back_to_index(
            &req,
            &format!("you ({email}) no longer organize {}", challenge.title),
        )),
        Ok(email) => Ok(back(
            &req,
            &challenge.slug,
            &format!("{email} no longer organizes this challenge"),
        )),
        Err(e @ (actions::ActionError::LastOrganizer(_) | actions::ActionError::Invalid(_))) => {
            Ok(back(&req, &challenge.slug, &e.to_string()))
        }
        Err(e) => Err(e.into()),
    }
}
