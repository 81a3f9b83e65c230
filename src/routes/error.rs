//! The error of HTML pages: the status code lives next to each variant; internal causes go to the
//! log, the user sees a clean message.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use askama::Template;

use crate::actions::ActionError;

#[derive(Debug, thiserror::Error)]
pub enum PageError {
    #[error("not found")]
    NotFound,
    #[error("please log in first")]
    LoginRequired,
    #[error("only organizers may do this")]
    Forbidden,
    #[error("the form was stale or forged (CSRF token mismatch); reload the page and try again")]
    Csrf,
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    TooLarge(String),
    #[error("too many attempts; wait a few minutes and try again")]
    TooManyAttempts,
    /// The database is unreachable or out of space, or the disk below its floor.
    #[error("{0}")]
    Unavailable(String),
    #[error("something went wrong on our side")]
    Internal(#[source] anyhow::Error),
}

/// What people see while the database is away.
pub const DATABASE_UNAVAILABLE: &str =
    "the database is unavailable at the moment; please try again in a minute";

impl From<sqlx::Error> for PageError {
    fn from(e: sqlx::Error) -> Self {
        if crate::storage::unavailable(&e) {
            tracing::warn!(error = %e, "database unavailable");
            PageError::Unavailable(DATABASE_UNAVAILABLE.into())
        } else {
            PageError::Internal(e.into())
        }
    }
}

impl From<super::multipart::FormError> for PageError {
    fn from(e: super::multipart::FormError) -> Self {
        match e {
            super::multipart::FormError::BodyTooLarge(_) => PageError::TooLarge(e.to_string()),
            other => PageError::BadRequest(other.to_string()),
        }
    }
}

impl From<askama::Error> for PageError {
    fn from(e: askama::Error) -> Self {
        PageError::Internal(e.into())
    }
}

impl From<ActionError> for PageError {
    fn from(e: ActionError) -> Self {
        match e {
            ActionError::NoChallenge(_)
            | ActionError::NoSplit(..)
            | ActionError::NoSubmission(_)
            | ActionError::NoImage(..)
            | ActionError::NoToken(_)
            | ActionError::NoInvite => PageError::NotFound,
            ActionError::Database(db) => db.into(),
            ActionError::DiskFull(m) => PageError::Unavailable(m),
            ActionError::TooManyAttempts => PageError::TooManyAttempts,
            ActionError::Forbidden(_) => PageError::Forbidden,
            ActionError::Internal(cause) => PageError::Internal(anyhow::anyhow!(cause)),
            other => PageError::BadRequest(other.to_string()),
        }
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    layout: super::Layout,
    status: u16,
    message: &'a str,
}

impl ResponseError for PageError {
    fn status_code(&self) -> StatusCode {
        match self {
            PageError::NotFound => StatusCode::NOT_FOUND,
            PageError::LoginRequired => StatusCode::UNAUTHORIZED,
            PageError::Forbidden | PageError::Csrf => StatusCode::FORBIDDEN,
            PageError::BadRequest(_) => StatusCode::BAD_REQUEST,
            PageError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            PageError::TooManyAttempts => StatusCode::TOO_MANY_REQUESTS,
            PageError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            PageError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let PageError::Internal(e) = self {
            tracing::error!(error = ?e, "request failed");
        }
        let status = self.status_code();
        let message = self.to_string();
        let page = ErrorPage {
            layout: super::Layout::anonymous(),
            status: status.as_u16(),
            message: &message,
        };
        let body = page.render().unwrap_or(message.clone());
        let mut res = HttpResponse::build(status);
        if matches!(self, PageError::Unavailable(_) | PageError::TooManyAttempts) {
            res.insert_header(("Retry-After", "60"));
        }
        res.content_type("text/html; charset=utf-8").body(body)
    }
}
