//! Uploading through the form, and the pages of a submission: status (updating itself), scores,
//! per-category P/R/F, per-image table worst first, and one image's tuples.

use actix_web::http::header::LOCATION;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;
use sqlx::PgPool;

use super::forms::{Member, Posted, Upload};
use super::home::html;
use super::view::{score, size_text};
use super::{multipart, Layout, PageError};
use crate::actions::{self, Uploader};
use crate::auth::MaybeUser;
use crate::charts;
use crate::domain::leaderboard::SortKey;
use crate::domain::{
    ChallengeSlug, SubmissionKind, SubmissionMethod, SubmissionStatus, UploadError,
};
use crate::startup::AppConfig;
use crate::storage::accounts::{self, User};
use crate::storage::challenges::Challenge;
use crate::storage::scores::{self, CategoryScore};
use crate::storage::splits::{self, Split};
use crate::storage::submissions::{self, HistoryLine, Submission};

#[derive(Template)]
#[template(path = "submit.html")]
struct SubmitPage {
    layout: Layout,
    challenge: Challenge,
    splits: Vec<Split>,
    team: Option<accounts::Team>,
    /// The split the form offers first: the first public one.
    default_split: String,
    history: Vec<HistoryLine>,
    quota: Option<actions::QuotaLeft>,
    error: Option<String>,
    max_size: String,
    /// When submissions open and close, with the time left (`None`: no bounds).
    phase: Option<String>,
    /// The next open or close (RFC 3339), for the page's countdown script.
    phase_until: Option<String>,
    /// False when no split takes uploads (before the open, after the close): no form then.
    open: bool,
    /// Why each split of `splits` takes no upload now (`None`: it does).
    windows: Vec<Option<String>>,
    some_closed: bool,
    /// The description and the method as typed, when an upload failed (a file input cannot be
    /// refilled).
    description: String,
    method_name: String,
    paper_url: String,
    code_url: String,
}

/// What the person had chosen and typed in a form that failed (empty on a fresh form).
#[derive(Default, Clone, Copy)]
struct Typed<'a> {
    split: &'a str,
    description: &'a str,
    method_name: &'a str,
    paper_url: &'a str,
    code_url: &'a str,
}

async fn submit_page(
    req: &HttpRequest,
    pool: &PgPool,
    user: &User,
    slug: &str,
    error: Option<String>,
    typed: Typed<'_>,
) -> Result<HttpResponse, PageError> {
    let challenge = actions::challenge(pool, slug).await?;
    let splits = splits::list_current(pool, challenge.id).await?;
    let team = accounts::team_of_user(pool, challenge.id, user.id).await?;
    let (history, quota) = match &team {
        Some(t) => (
            submissions::history_of_team(pool, t.id).await?,
            Some(actions::quota_left(pool, &challenge, t.id).await?),
        ),
        None => (Vec::new(), None),
    };
    let default_split = splits
        .iter()
        .find(|s| s.name == typed.split)
        .or(actions::default_split(&splits))
        .map(|s| s.name.clone())
        .unwrap_or_default();
    let max_size = size_text(challenge.max_file_bytes);
    let status = if error.is_some() { 400 } else { 200 };
    let now = chrono::Utc::now();
    let windows: Vec<Option<String>> = splits
        .iter()
        .map(|s| challenge.phase_of(&s.name).refusal(now))
        .collect();
    let page = SubmitPage {
        phase: challenge.phase_summary(now),
        phase_until: challenge.countdown_until(now),
        open: windows.iter().any(Option::is_none),
        some_closed: windows.iter().any(Option::is_some),
        windows,
        description: typed.description.to_string(),
        method_name: typed.method_name.to_string(),
        paper_url: typed.paper_url.to_string(),
        code_url: typed.code_url.to_string(),
        layout: Layout::new(req, Some(user)),
        challenge,
        splits,
        team,
        default_split,
        history,
        quota,
        error,
        max_size,
    };
    let body = page.render()?;
    Ok(
        HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap_or_default())
            .content_type("text/html; charset=utf-8")
            .body(body),
    )
}

pub async fn form(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let Some(user) = user.0 else {
        // The slug goes into a header: one that could name no challenge (a line break, say)
        // names none here either.
        let slug = ChallengeSlug::parse(&slug).map_err(|_| PageError::NotFound)?;
        return Ok(HttpResponse::SeeOther()
            .insert_header((LOCATION, format!("/login?next=/c/{}/submit", slug.as_str())))
            .finish());
    };
    submit_page(&req, &pool, &user, &slug, None, Typed::default()).await
}

pub async fn upload(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    config: web::Data<AppConfig>,
    slug: web::Path<String>,
    Upload {
        by: Member(user),
        body,
    }: Upload<Member>,
) -> Result<HttpResponse, PageError> {
    let challenge = actions::challenge(&pool, &slug).await?;
    let team = accounts::team_of_user(pool.get_ref(), challenge.id, user.id).await?;
    // Refusals known before the file is read come before it (the phase is checked again, under
    // the team's lock, when the upload is stored).
    let ready = match (&team, challenge.closed_to_all(chrono::Utc::now())) {
        (None, _) => Err(PageError::BadRequest(
            "join or create a team on the challenge page first".into(),
        )),
        (Some(_), Some(why)) => Err(PageError::BadRequest(why)),
        (Some(_), None) => Ok(()),
    };
    let limits = multipart::Limits::team_upload(
        challenge.max_file_bytes,
        config.settings.limits.max_request_bytes,
    );
    // The team's uploads one at a time, from before this file is received until it is stored.
    let mut turn = match (&team, &ready) {
        (Some(t), Ok(())) => Some(config.uploads.take(t.id, challenge.file_limit()).await?),
        _ => None,
    };
    // The split, when the form names it before the file, may have a window of its own.
    let form = body
        .read_gated(limits, &mut turn, |fields| {
            ready?;
            let split = fields.get("split").map_or("", String::as_str);
            match challenge.refusal_for(split, chrono::Utc::now()) {
                Some(why) if !split.is_empty() => Err(PageError::BadRequest(why)),
                _ => Ok(()),
            }
        })
        .await
        // A body cut off (too large, too slow) cannot be answered with the form itself: its
        // page leads back to the form.
        .map_err(|e| match e {
            PageError::TooLarge(_) | PageError::Stalled(_) => e.with_way_back(
                format!("/c/{}/submit", challenge.slug),
                "Back to the upload form",
            ),
            other => other,
        })?;
    let Some(team) = team else {
        return Err(PageError::Forbidden);
    };
    let description = form.field("description").to_string();
    let split_name = form.field("split").to_string();
    let [method_name, paper_url, code_url] =
        ["method_name", "paper_url", "code_url"].map(|f| form.field(f).to_string());
    let typed = Typed {
        split: &split_name,
        description: &description,
        method_name: &method_name,
        paper_url: &paper_url,
        code_url: &code_url,
    };
    let method = match SubmissionMethod::parse(typed.method_name, typed.paper_url, typed.code_url) {
        Ok(m) => m,
        Err(e) => return submit_page(&req, &pool, &user, &slug, Some(e.to_string()), typed).await,
    };
    let split = match actions::split(&pool, &challenge, &split_name).await {
        Ok(s) => s,
        Err(e) => return submit_page(&req, &pool, &user, &slug, Some(e.to_string()), typed).await,
    };
    if let Some(size) = form.file_too_large {
        let e = UploadError::TooLarge {
            size,
            limit: challenge.max_file_bytes as u64,
        };
        return submit_page(&req, &pool, &user, &slug, Some(e.to_string()), typed).await;
    }
    let file = form.file.unwrap_or_default();
    let settings = &config.settings;
    let uploader = Uploader::Team {
        team_id: team.id,
        user_id: Some(user.id),
    };
    match actions::submit(
        &pool,
        &challenge,
        &split,
        uploader,
        &description,
        &method,
        file,
        actions::SubmitLimits::from_settings(settings),
    )
    .await
    {
        Ok(s) => Ok(HttpResponse::SeeOther()
            .insert_header((LOCATION, format!("/s/{}", s.id)))
            .finish()),
        Err(
            e @ (actions::ActionError::Database(_)
            | actions::ActionError::DiskFull(_)
            | actions::ActionError::Internal(_)),
        ) => Err(e.into()),
        Err(e) => submit_page(&req, &pool, &user, &slug, Some(e.to_string()), typed).await,
    }
}

struct CatRow {
    name: &'static str,
    precision: String,
    recall: String,
    f: String,
    tp: i64,
    fp: i64,
    fn_: i64,
}

fn category_title(c: &str) -> &'static str {
    match c {
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

fn cat_rows(cats: &[CategoryScore]) -> Vec<CatRow> {
    cats.iter()
        .map(|c| CatRow {
            name: category_title(&c.category),
            precision: score(c.precision),
            recall: score(c.recall),
            f: score(c.f),
            tp: c.tp,
            fp: c.fp,
            fn_: c.fn_,
        })
        .collect()
}

struct ImageLine {
    image_id: i64,
    caption: String,
    spice: String,
}

#[derive(Template)]
#[template(path = "submission.html")]
struct SubmissionPage {
    layout: Layout,
    challenge: Challenge,
    split: Split,
    submission: Submission,
    title: String,
    status: actions::StatusInfo,
    categories: Vec<CatRow>,
    classic: Vec<(String, String)>,
    images: Vec<ImageLine>,
    image_total: i64,
    page: i64,
    pages: i64,
    /// False on a hidden split for anyone but an organizer: no per-image table then.
    per_image: bool,
    on_leaderboard: bool,
    can_choose: bool,
    /// The reader may download the uploaded file (its team, an organizer).
    can_download: bool,
    /// F per category beside the Human row's, once scored.
    profile: Option<charts::Chart>,
    compared_with_human: bool,
    /// The reader's team made it and may describe its method.
    can_edit_method: bool,
    /// The reader's team made it and it waits in the queue for its first score: it may cancel it.
    can_cancel: bool,
    /// The method form's values: as stored, or as typed when a change was refused (`error`).
    method_form: MethodForm,
}

/// The method form of a submission's page.
#[derive(Default)]
struct MethodForm {
    name: String,
    paper_url: String,
    code_url: String,
    /// Why the last change was refused (the form then holds what was typed).
    error: Option<String>,
}

/// The submission's F in each SPICE category (SPICE, Object, ..., Size) beside the Human row's,
/// when there is one to compare with.
fn category_profile(
    name: &str,
    aggregates: &[CategoryScore],
    human: Option<&crate::storage::leaderboard::Entry>,
) -> charts::Chart {
    let rows: Vec<charts::Category<'_>> = aggregates
        .iter()
        .filter_map(|c| {
            let key = match c.category.as_str() {
                "all" => SortKey::Spice,
                other => SortKey::parse(Some(other)).ok()?,
            };
            Some(charts::Category {
                name: key.title(),
                entry: c.f,
                human: human.and_then(|h| key.value(h)),
            })
        })
        .collect();
    charts::category_profile("profile-chart", name, human.map(|_| "Human"), &rows)
}

#[derive(Deserialize)]
pub struct PageQuery {
    page: Option<i64>,
}

const PER_PAGE: i64 = 100;

pub async fn page(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
    id: web::Path<i64>,
    q: web::Query<PageQuery>,
) -> Result<HttpResponse, PageError> {
    submission_page(&req, &pool, user.0.as_ref(), *id, q.page, None).await
}

/// A submission's page, at page `page` of its images; `method_form` is a refused change of its
/// method, shown with its error (then the answer is a 400).
async fn submission_page(
    req: &HttpRequest,
    pool: &PgPool,
    user: Option<&User>,
    id: i64,
    page: Option<i64>,
    method_form: Option<MethodForm>,
) -> Result<HttpResponse, PageError> {
    let actions::SubmissionView {
        submission: _,
        split,
        challenge,
        per_image,
        on_leaderboard,
        can_choose,
        own_team,
        organizer,
    } = actions::view_submission(pool, id, user).await?;
    // The state, the scores and the images as of one moment (never "running" beside scores).
    let actions::SubmissionSnapshot {
        submission,
        status,
        aggregates,
        classic,
        images,
    } = actions::submission_snapshot(pool, id, per_image.then_some((page, PER_PAGE))).await?;
    // Chosen above from the submission as read before the snapshot: scored by now, or not.
    let can_choose = can_choose && submission.status.is_scored();
    let can_download = (own_team || organizer) && submission.sha256.is_some();
    let categories = cat_rows(&aggregates);
    let classic = match classic {
        // Named as the leaderboard names them; a metric not computed (METEOR without its data) is
        // left out rather than shown as "–".
        Some(serde_json::Value::Object(m)) => m
            .into_iter()
            .filter_map(|(k, v)| {
                v.as_f64()
                    .map(|v| (SortKey::classic_title(&k), score(Some(v))))
            })
            .collect(),
        _ => Vec::new(),
    };
    let (image_total, pages, page, images) = match images {
        Some(p) => (
            p.total,
            p.pages,
            p.page,
            p.rows
                .into_iter()
                .map(|r| ImageLine {
                    image_id: r.image_id,
                    caption: r.caption,
                    spice: score(Some(r.spice_f)),
                })
                .collect(),
        ),
        None => (0, 1, 1, Vec::new()),
    };
    let title = match submission.team_id {
        Some(t) => accounts::team_by_id(pool, t)
            .await?
            .map(|t| t.name)
            .unwrap_or_default(),
        None => submission.label.clone().unwrap_or_default(),
    };
    // The Human row to compare with: not the Human row's own page, and only where the
    // leaderboard shows it to this reader.
    let human = match submission.kind {
        SubmissionKind::Human => None,
        _ if aggregates.is_empty() => None,
        _ => {
            let viewer = actions::Viewer {
                organizer,
                team_id: None,
            };
            actions::human_row(pool, &split, viewer).await?
        }
    };
    let profile =
        (!aggregates.is_empty()).then(|| category_profile(&title, &aggregates, human.as_ref()));
    let can_edit_method = own_team && submission.deleted_at.is_none();
    let can_cancel = can_edit_method
        && submission.status == SubmissionStatus::Queued
        && submission.scored_at.is_none();
    let refused = method_form.is_some();
    let method_form = method_form.unwrap_or_else(|| MethodForm {
        name: submission.method_name.clone().unwrap_or_default(),
        paper_url: submission.paper_url.clone().unwrap_or_default(),
        code_url: submission.code_url.clone().unwrap_or_default(),
        error: None,
    });
    let page = SubmissionPage {
        layout: Layout::new(req, user),
        can_edit_method,
        can_cancel,
        method_form,
        profile,
        compared_with_human: human.is_some(),
        challenge,
        split,
        submission,
        title,
        status,
        categories,
        classic,
        images,
        image_total,
        page,
        pages,
        per_image,
        on_leaderboard,
        can_choose,
        can_download,
    };
    let body = page.render()?;
    Ok(match refused {
        true => HttpResponse::BadRequest()
            .content_type("text/html; charset=utf-8")
            .body(body),
        false => html(body),
    })
}

/// The fields of the method form on a submission's page.
#[derive(Deserialize)]
pub struct MethodFields {
    #[serde(default)]
    method_name: String,
    #[serde(default)]
    paper_url: String,
    #[serde(default)]
    code_url: String,
}

/// Changes the method of a submission of the member's team; a refused change comes back on the
/// page with its error and what was typed.
pub async fn set_method(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    id: web::Path<i64>,
    Posted {
        by: Member(user),
        form,
    }: Posted<Member, MethodFields>,
) -> Result<HttpResponse, PageError> {
    let edit = actions::MethodEdit {
        name: Some(&form.method_name),
        paper_url: Some(&form.paper_url),
        code_url: Some(&form.code_url),
    };
    match actions::edit_method(&pool, *id, actions::TeamActor::Session(&user), edit).await {
        Ok(s) => Ok(HttpResponse::SeeOther()
            .insert_header((LOCATION, format!("/s/{}#method", s.id)))
            .finish()),
        Err(actions::ActionError::Invalid(why)) => {
            let typed = MethodForm {
                name: form.method_name,
                paper_url: form.paper_url,
                code_url: form.code_url,
                error: Some(why),
            };
            submission_page(&req, &pool, Some(&user), *id, None, Some(typed)).await
        }
        Err(e) => Err(e.into()),
    }
}

/// The status as JSON for the page's script (the page also refreshes itself without script).
pub async fn status_fragment(
    pool: web::Data<PgPool>,
    user: MaybeUser,
    id: web::Path<i64>,
) -> Result<HttpResponse, PageError> {
    let (submission, _, _) = actions::visible_submission(&pool, *id, user.0.as_ref(), None).await?;
    Ok(HttpResponse::Ok().json(actions::submission_status(&pool, &submission).await?))
}

struct TupleLine {
    text: String,
    matched: bool,
}

#[derive(Template)]
#[template(path = "image.html")]
struct ImagePage {
    layout: Layout,
    submission_id: i64,
    image_id: i64,
    caption: String,
    scored_text: String,
    references: Vec<String>,
    categories: Vec<CatRow>,
    candidate: Vec<TupleLine>,
    reference: Vec<TupleLine>,
    /// Its place in the submission's worst-first order, and the images either side.
    position: i64,
    image_total: i64,
    previous: Option<i64>,
    next: Option<i64>,
}

fn tuple_lines(t: &[spice::MarkedTuple]) -> Vec<TupleLine> {
    t.iter()
        .map(|m| TupleLine {
            text: format!("({})", m.tuple.join(", ")),
            matched: m.truth_value,
        })
        .collect()
}

pub async fn image(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
    path: web::Path<(i64, i64)>,
) -> Result<HttpResponse, PageError> {
    let (id, image_id) = path.into_inner();
    let image = actions::view_image(&pool, id, image_id, user.0.as_ref()).await?;
    let around = scores::neighbors(pool.get_ref(), image.submission_id, image.image_id).await?;
    let image_total = scores::image_count(pool.get_ref(), image.submission_id).await?;
    let page = ImagePage {
        position: around.as_ref().map_or(0, |n| n.position),
        image_total,
        previous: around.as_ref().and_then(|n| n.previous),
        next: around.as_ref().and_then(|n| n.next),
        layout: Layout::new(&req, user.0.as_ref()),
        submission_id: image.submission_id,
        image_id: image.image_id,
        caption: image.caption,
        scored_text: image.details.scored_text,
        references: image.references,
        categories: cat_rows(&image.categories),
        candidate: tuple_lines(&image.details.candidate_tuples),
        reference: tuple_lines(&image.details.reference_tuples),
    };
    Ok(html(page.render()?))
}

/// The team whose API token the request carries, if any: the downloads serve scripts too.
async fn bearer_team(req: &HttpRequest, pool: &PgPool) -> Result<Option<i64>, PageError> {
    Ok(crate::auth::team_from_bearer(pool, req)
        .await?
        .map(|t| t.team.id))
}

/// `Content-Disposition` for a download named `name`.
fn attachment(name: &str) -> (&'static str, String) {
    (
        "Content-Disposition",
        format!("attachment; filename=\"{name}\""),
    )
}

/// Every image's scores in every category as CSV (where the per-image table is shown).
pub async fn images_csv(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
    id: web::Path<i64>,
) -> Result<HttpResponse, PageError> {
    let bearer = bearer_team(&req, &pool).await?;
    let (submission, _, images) =
        actions::image_scores(&pool, *id, user.0.as_ref(), bearer).await?;
    let body = actions::image_scores_csv(&images).map_err(|e| PageError::Internal(e.into()))?;
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header(attachment(&format!(
            "submission-{}-images.csv",
            submission.id
        )))
        .body(body))
}

/// Every image's scores in every category as JSON: `{"submission_id", "split", "images":
/// [{"image_id", "caption", "scores": {category: {"precision", "recall", "f", "tp", "fp",
/// "fn"}}}]}`, an undefined score as null.
pub async fn images_json(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
    id: web::Path<i64>,
) -> Result<HttpResponse, PageError> {
    let bearer = bearer_team(&req, &pool).await?;
    let (submission, split, images) =
        actions::image_scores(&pool, *id, user.0.as_ref(), bearer).await?;
    let images: Vec<serde_json::Value> = images
        .into_iter()
        .map(|i| {
            let scores: serde_json::Map<String, serde_json::Value> = i
                .categories
                .into_iter()
                .map(|c| {
                    (
                        c.category,
                        serde_json::json!({"precision": c.precision, "recall": c.recall, "f": c.f,
                                           "tp": c.tp, "fp": c.fp, "fn": c.fn_}),
                    )
                })
                .collect();
            serde_json::json!({"image_id": i.image_id, "caption": i.caption, "scores": scores})
        })
        .collect();
    Ok(HttpResponse::Ok()
        .insert_header(attachment(&format!(
            "submission-{}-images.json",
            submission.id
        )))
        .json(serde_json::json!({
            "submission_id": submission.id,
            "split": split.name,
            "images": images,
        })))
}

/// The file a submission was uploaded as, byte for byte: for its team and the organizers.
pub async fn uploaded_file(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
    id: web::Path<i64>,
) -> Result<HttpResponse, PageError> {
    let bearer = bearer_team(&req, &pool).await?;
    let (submission, file) = actions::uploaded_file(&pool, *id, user.0.as_ref(), bearer).await?;
    Ok(super::view::private(
        HttpResponse::Ok()
            .content_type("application/json")
            .insert_header(attachment(&format!("submission-{}.json", submission.id)))
            .body(file),
    ))
}

#[derive(Template)]
#[template(path = "cancel.html")]
struct ConfirmCancel {
    layout: Layout,
    challenge: Challenge,
    split: Split,
    submission: Submission,
    /// The team's quota as it is now (the cancel gives this upload back).
    quota: actions::QuotaLeft,
}

/// Asks before cancelling a queued submission of the member's team, saying what follows.
pub async fn confirm_cancel(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
    id: web::Path<i64>,
) -> Result<HttpResponse, PageError> {
    let Some(user) = user.0 else {
        return Err(PageError::LoginRequired);
    };
    let back = format!("/s/{id}");
    let (submission, split, challenge) =
        actions::cancellable(&pool, *id, actions::TeamActor::Session(&user))
            .await
            .map_err(|e| PageError::from(e).with_way_back(back, "Back to the submission"))?;
    let team = submission.team_id.unwrap_or_default();
    let quota = actions::quota_left(&pool, &challenge, team).await?;
    let page = ConfirmCancel {
        layout: Layout::new(&req, Some(&user)),
        challenge,
        split,
        submission,
        quota,
    };
    Ok(html(page.render()?))
}

/// Cancels a queued submission of the member's team, then shows its page (now "cancelled").
pub async fn cancel(
    pool: web::Data<PgPool>,
    id: web::Path<i64>,
    Posted { by: Member(u), .. }: Posted<Member>,
) -> Result<HttpResponse, PageError> {
    let back = format!("/s/{id}");
    let s = actions::cancel(&pool, *id, actions::TeamActor::Session(&u))
        .await
        .map_err(|e| PageError::from(e).with_way_back(back, "Back to the submission"))?;
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, format!("/s/{}", s.id)))
        .finish())
}

/// Makes this submission the team's leaderboard entry for its split.
pub async fn choose(
    pool: web::Data<PgPool>,
    id: web::Path<i64>,
    Posted { by: Member(u), .. }: Posted<Member>,
) -> Result<HttpResponse, PageError> {
    let (split, challenge) = actions::choose_for_leaderboard(&pool, &u, *id).await?;
    Ok(HttpResponse::SeeOther()
        .insert_header((
            LOCATION,
            format!("/c/{}/leaderboard?split={}", challenge.slug, split.name),
        ))
        .finish())
}
