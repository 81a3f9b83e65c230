//! The JSON API for `curl`-style use: upload with an API token, then poll the submission.
//!
//! `POST /api/c/{slug}/submissions` (multipart `file`, optional `split`, `description`,
//! `method_name`, `paper_url` and `code_url`, `Authorization: Bearer <token>`) answers 202
//! `{"id", "status_url"}` (refusals answer `{"error"}`: 400 for a bad file or method, 403 outside
//! the challenge's phase, 409 for a byte-identical re-upload, 413, 429 for the quota);
//! `GET /api/submissions/{id}` answers `{"id", "status", "queue_position", "attempts", "error",
//! "challenge", "split", "method_name", "paper_url", "code_url", "cancelled_at", "scores": {"all":
//! {"precision", "recall", "f", "tp", "fp", "fn"}, ...}, "classic": {"Bleu_1", ..., "Bleu_4",
//! "ROUGE_L", "CIDEr"} or null}`; `POST /api/submissions/{id}/method` (JSON) changes the method
//! of the token's team's submission, `POST /api/submissions/{id}/cancel` cancels it while queued
//! (409 once a worker has it).

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse, ResponseError};
use sqlx::PgPool;

use super::multipart;
use crate::actions::{self, ActionError, Uploader};
use crate::auth::{self, MaybeUser};
use crate::domain::{SubmissionMethod, UploadError};
use crate::startup::AppConfig;
use crate::storage::{accounts, splits};

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("missing or invalid API token (send Authorization: Bearer <token>)")]
    Unauthorized,
    #[error("not found")]
    NotFound,
    #[error("this token belongs to a team of another challenge")]
    WrongChallenge,
    /// The token's team may see this but not do it (an action on another's row).
    #[error("{0}")]
    Forbidden(String),
    /// Too late for this: the submission moved on (a cancel once its scoring started).
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    Rejected(String),
    #[error("{0}")]
    TooLarge(String),
    /// The upload's body stalled or came too slowly (`super::body`).
    #[error("{0}")]
    Stalled(String),
    #[error("{0}")]
    Quota(String),
    /// A byte-identical re-upload: not stored, no quota spent.
    #[error("{0}")]
    Identical(String),
    /// Outside the challenge's submission phase.
    #[error("{0}")]
    Closed(String),
    #[error("{0}")]
    Unavailable(String),
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        if crate::storage::unavailable(&e) {
            ApiError::Unavailable(super::error::DATABASE_UNAVAILABLE.into())
        } else {
            ApiError::Internal(e.into())
        }
    }
}

impl From<multipart::FormError> for ApiError {
    fn from(e: multipart::FormError) -> Self {
        match e {
            multipart::FormError::BodyTooLarge(_) => ApiError::TooLarge(e.to_string()),
            multipart::FormError::Stalled(why) => ApiError::Stalled(why),
            multipart::FormError::Busy(why) => ApiError::Unavailable(why),
            other => ApiError::Rejected(other.to_string()),
        }
    }
}

impl From<ActionError> for ApiError {
    fn from(e: ActionError) -> Self {
        match e {
            ActionError::NoChallenge(_)
            | ActionError::NoSubmission(_)
            | ActionError::NoImage(..) => ApiError::NotFound,
            ActionError::Upload(u @ UploadError::TooLarge { .. }) => {
                ApiError::TooLarge(u.to_string())
            }
            ActionError::Quota(q) => ApiError::Quota(q),
            e @ ActionError::Identical { .. } => ApiError::Identical(e.to_string()),
            ActionError::Closed(m) => ApiError::Closed(m),
            ActionError::Database(db) => db.into(),
            ActionError::DiskFull(m) => ApiError::Unavailable(m),
            ActionError::Busy(m) => ApiError::Unavailable(m.to_string()),
            ActionError::Internal(cause) => ApiError::Internal(anyhow::anyhow!(cause)),
            ActionError::TooManyAttempts => ApiError::Quota(e_text_too_many()),
            ActionError::Forbidden(m) => ApiError::Forbidden(m.to_string()),
            ActionError::TooLate(m) => ApiError::Conflict(m),
            other => ApiError::Rejected(other.to_string()),
        }
    }
}

fn e_text_too_many() -> String {
    ActionError::TooManyAttempts.to_string()
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiError::NotFound => StatusCode::NOT_FOUND,
            ApiError::WrongChallenge | ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::Rejected(_) => StatusCode::BAD_REQUEST,
            ApiError::Identical(_) => StatusCode::CONFLICT,
            ApiError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Stalled(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::Quota(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Closed(_) => StatusCode::FORBIDDEN,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let ApiError::Internal(e) = self {
            tracing::error!(error = ?e, "API request failed");
        }
        HttpResponse::build(self.status_code())
            .json(serde_json::json!({ "error": self.to_string() }))
    }
}

pub async fn upload(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    config: web::Data<AppConfig>,
    slug: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let accounts::TokenHolder { team, made_by } = auth::team_from_bearer(&pool, &req)
        .await?
        .ok_or(ApiError::Unauthorized)?;
    let challenge = actions::challenge(&pool, &slug).await?;
    if team.challenge_id != challenge.id {
        return Err(ApiError::WrongChallenge);
    }
    let limits = multipart::Limits::team_upload(
        challenge.max_file_bytes,
        config.settings.limits.max_request_bytes,
    );
    // The token and the challenge are checked, and the phase is, so that an upload outside it
    // is refused before its file is read (`actions::submit` checks the phase again, under the
    // team's lock): the challenge's, and the split's when it is named before the file.
    let open = match challenge.closed_to_all(chrono::Utc::now()) {
        Some(why) => Err(ApiError::Closed(why)),
        None => Ok(()),
    };
    // The team's uploads one at a time, from before this file is received until it is stored.
    let mut turn = match open {
        Ok(()) => Some(config.uploads.take(team.id, challenge.file_limit()).await?),
        Err(_) => None,
    };
    let gate = |fields: &std::collections::HashMap<String, String>| {
        open?;
        match fields.get("split") {
            Some(split) => match challenge.refusal_for(split, chrono::Utc::now()) {
                Some(why) => Err(ApiError::Closed(why)),
                None => Ok(()),
            },
            None => Ok(()),
        }
    };
    let form = multipart::read(&req, payload.into_inner(), limits, gate, &mut turn)
        .await
        .map_err(|e| match e {
            multipart::ReadError::Form(f) => f.into(),
            multipart::ReadError::Gate(g) => g,
        })?;
    if let Some(size) = form.file_too_large {
        return Err(ApiError::TooLarge(
            UploadError::TooLarge {
                size,
                limit: challenge.max_file_bytes as u64,
            }
            .to_string(),
        ));
    }
    let split_name = match form.field("split") {
        "" => {
            let all = splits::list_current(pool.get_ref(), challenge.id).await?;
            match all.as_slice() {
                [only] => only.name.clone(),
                _ => {
                    return Err(ApiError::Rejected(format!(
                        "this challenge has {} splits; name one in the `split` field",
                        all.len()
                    )))
                }
            }
        }
        name => name.to_string(),
    };
    let split = actions::split(&pool, &challenge, &split_name)
        .await
        .map_err(|e| ApiError::Rejected(e.to_string()))?;
    let method = SubmissionMethod::parse(
        form.field("method_name"),
        form.field("paper_url"),
        form.field("code_url"),
    )
    .map_err(|e| ApiError::Rejected(e.to_string()))?;
    let file = form
        .file
        .ok_or_else(|| ApiError::Rejected("the multipart field `file` is missing".into()))?;
    let settings = &config.settings;
    let s = actions::submit(
        &pool,
        &challenge,
        &split,
        Uploader::Team {
            team_id: team.id,
            user_id: made_by,
        },
        form.fields.get("description").map_or("", String::as_str),
        &method,
        file,
        actions::SubmitLimits::from_settings(settings),
    )
    .await?;
    Ok(HttpResponse::Accepted().json(serde_json::json!({
        "id": s.id,
        "status_url": format!("/api/submissions/{}", s.id),
        "page_url": format!("/s/{}", s.id),
        "note": s.upload_note,
    })))
}

pub async fn status(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
    id: web::Path<i64>,
) -> Result<HttpResponse, ApiError> {
    let bearer = auth::team_from_bearer(&pool, &req).await?;
    if user.0.is_none() && bearer.is_none() {
        return Err(ApiError::Unauthorized);
    }
    let (_, split, challenge) =
        actions::visible_submission(&pool, *id, user.0.as_ref(), bearer.map(|t| t.team.id)).await?;
    // The status and the scores as of one moment (never "running" with scores).
    let actions::SubmissionSnapshot {
        submission: s,
        status: info,
        aggregates,
        classic,
        images: _,
    } = actions::submission_snapshot(&pool, *id, None).await?;
    let mut scores_json = serde_json::Map::new();
    for c in aggregates {
        scores_json.insert(
            c.category.clone(),
            serde_json::json!({"precision": c.precision, "recall": c.recall, "f": c.f, "tp": c.tp, "fp": c.fp, "fn": c.fn_, "images": c.images}),
        );
    }
    Ok(HttpResponse::Ok().json(serde_json::json!({
        "id": s.id,
        "status": info.status,
        "queue_position": info.queue_position,
        "attempts": info.attempts,
        "error": info.error,
        "note": s.upload_note,
        "progress": info.progress,
        "challenge": challenge.slug,
        "split": split.name,
        "description": s.description,
        "method_name": s.method_name,
        "paper_url": s.paper_url,
        "code_url": s.code_url,
        "cancelled_at": s.cancelled_at,
        "sha256": s.sha256,
        "created_at": s.created_at,
        "scored_at": s.scored_at,
        "scores": scores_json,
        "classic": classic,
    })))
}

/// The team whose API token the request carries, as the actor of a change to its submission.
async fn token_actor(
    pool: &PgPool,
    req: &HttpRequest,
) -> Result<actions::TeamActor<'static>, ApiError> {
    let accounts::TokenHolder { team, made_by } = auth::team_from_bearer(pool, req)
        .await?
        .ok_or(ApiError::Unauthorized)?;
    Ok(actions::TeamActor::Token {
        team_id: team.id,
        made_by,
    })
}

/// One field of a method change: absent is `None` (left as it is), `null` or `""` clears it.
fn method_field<'a>(
    body: &'a serde_json::Map<String, serde_json::Value>,
    name: &str,
) -> Result<Option<&'a str>, ApiError> {
    match body.get(name) {
        None => Ok(None),
        Some(serde_json::Value::Null) => Ok(Some("")),
        Some(serde_json::Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ApiError::Rejected(format!(
            "`{name}` must be a string or null"
        ))),
    }
}

/// `POST /api/submissions/{id}/method` with `{"method_name", "paper_url", "code_url"}` (JSON;
/// each optional: absent leaves it, null or "" clears it): changes the method of a submission of
/// the token's team; answers `{"id", "method_name", "paper_url", "code_url"}` as stored.
pub async fn set_method(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    id: web::Path<i64>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let actor = token_actor(&pool, &req).await?;
    let body: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(&body)
        .map_err(|e| {
            ApiError::Rejected(format!(
                "the body must be a JSON object such as {{\"method_name\": \"...\", \"paper_url\": \"https://...\", \"code_url\": \"https://...\"}}: {e}"
            ))
        })?;
    const FIELDS: [&str; 3] = ["method_name", "paper_url", "code_url"];
    let unknown: Vec<String> = body
        .keys()
        .map(String::as_str)
        .filter(|k| !FIELDS.contains(k))
        .take(5)
        .map(|k| k.chars().take(40).collect::<String>())
        .collect();
    if !unknown.is_empty() {
        return Err(ApiError::Rejected(format!(
            "unknown field(s) {}; the fields are method_name, paper_url and code_url",
            unknown.join(", ")
        )));
    }
    let edit = actions::MethodEdit {
        name: method_field(&body, "method_name")?,
        paper_url: method_field(&body, "paper_url")?,
        code_url: method_field(&body, "code_url")?,
    };
    let s = actions::edit_method(&pool, *id, actor, edit).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({
        "id": s.id,
        "method_name": s.method_name,
        "paper_url": s.paper_url,
        "code_url": s.code_url,
    })))
}

/// `POST /api/submissions/{id}/cancel`: cancels a submission of the token's team while it waits
/// in the queue; answers `{"id", "status": "cancelled", "cancelled_at"}`, or 409 `{"error"}` once
/// a worker has it (or it was scored, failed or cancelled before).
pub async fn cancel(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    id: web::Path<i64>,
) -> Result<HttpResponse, ApiError> {
    let actor = token_actor(&pool, &req).await?;
    let s = actions::cancel(&pool, *id, actor).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({
        "id": s.id,
        "status": s.status,
        "cancelled_at": s.cancelled_at,
    })))
}
