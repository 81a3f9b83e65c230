//! The error of HTML pages: the status code lives next to each variant; internal causes go to the
//! log, the user sees a clean message.

use actix_web::body::{BoxBody, EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
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
    /// A 403 that says why (the action's own reason: only a submission's team may change it).
    #[error("{0}")]
    Refused(String),
    #[error("the form was stale or forged (CSRF token mismatch); reload the page and try again")]
    Csrf,
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    TooLarge(String),
    /// The request's body stalled or came too slowly (`super::body`).
    #[error("{0}")]
    Stalled(String),
    #[error("too many attempts; wait a few minutes and try again")]
    TooManyAttempts,
    /// The database is unreachable or out of space, or the disk below its floor.
    #[error("{0}")]
    Unavailable(String),
    #[error("something went wrong on our side")]
    Internal(#[source] anyhow::Error),
    /// A 404 that says what was not found and why.
    #[error("{0}")]
    Missing(String),
    /// A 409: too late for what was asked (a cancel once scoring began), and why.
    #[error("{0}")]
    Conflict(String),
    /// A 410: what was there is gone for good (a replaced invite link), and why.
    #[error("{0}")]
    Gone(String),
    /// Another error, with a link back to where it came from instead of the list of challenges
    /// (the upload form after a 413).
    #[error("{error}")]
    WayBack {
        error: Box<PageError>,
        href: String,
        label: &'static str,
    },
}

impl PageError {
    /// This error with a link back to `href`, named `label`.
    pub fn with_way_back(self, href: String, label: &'static str) -> PageError {
        PageError::WayBack {
            error: Box::new(self),
            href,
            label,
        }
    }

    /// The error itself, under any way back.
    fn inner(&self) -> &PageError {
        match self {
            PageError::WayBack { error, .. } => error.inner(),
            other => other,
        }
    }
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
            super::multipart::FormError::Stalled(why) => PageError::Stalled(why),
            super::multipart::FormError::Busy(why) => PageError::Unavailable(why),
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
            | ActionError::NoToken(_) => PageError::NotFound,
            e @ (ActionError::NoInvite | ActionError::OperatorExists) => {
                PageError::Missing(e.to_string())
            }
            e @ ActionError::ReplacedInvite(_) => PageError::Gone(e.to_string()),
            ActionError::TooLate(why) => PageError::Conflict(why),
            ActionError::Database(db) => db.into(),
            ActionError::DiskFull(m) => PageError::Unavailable(m),
            ActionError::Busy(m) => PageError::Unavailable(m.to_string()),
            ActionError::TooManyAttempts => PageError::TooManyAttempts,
            ActionError::Forbidden(why) => PageError::Refused(why.to_string()),
            ActionError::Internal(cause) => PageError::Internal(anyhow::anyhow!(cause)),
            other => PageError::BadRequest(other.to_string()),
        }
    }
}

#[derive(Template)]
#[template(path = "error.html")]
pub(super) struct ErrorPage<'a> {
    pub(super) layout: super::Layout,
    pub(super) status: u16,
    pub(super) message: &'a str,
    /// Where the link under the message leads, and its words (`None`: the list of challenges).
    pub(super) back: Option<(&'a str, &'a str)>,
}

impl PageError {
    /// The error page's HTML with `layout` around it.
    fn page(&self, layout: super::Layout) -> String {
        let message = self.to_string();
        let back = match self {
            PageError::WayBack { href, label, .. } => Some((href.as_str(), *label)),
            _ => None,
        };
        let page = ErrorPage {
            layout,
            status: self.status_code().as_u16(),
            message: &message,
            back,
        };
        page.render().unwrap_or(message)
    }
}

/// Middleware: an error page shows who is logged in, like every other page. `ResponseError` has
/// no access to the request, so the page is first rendered for nobody and, when the request
/// carries a live session, rendered again here with the user in the header (status, headers and
/// the error itself, which the request log reads, stay as they were).
pub async fn keep_login_state(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let res = next.call(req).await?;
    let relevant = res
        .response()
        .error()
        .and_then(|e| e.as_error::<PageError>())
        .is_some_and(|e| !matches!(e.inner(), PageError::Unavailable(_)));
    if !relevant {
        return Ok(res.map_into_left_body());
    }
    let user = crate::auth::session_user(res.request())
        .await
        .ok()
        .flatten();
    let Some(user) = user else {
        return Ok(res.map_into_left_body());
    };
    let layout = super::Layout::new(res.request(), Some(&user));
    let body = res
        .response()
        .error()
        .and_then(|e| e.as_error::<PageError>())
        .map(|e| e.page(layout));
    Ok(match body {
        Some(body) => res.map_body(|_, _| EitherBody::right(BoxBody::new(body))),
        None => res.map_into_left_body(),
    })
}

impl ResponseError for PageError {
    fn status_code(&self) -> StatusCode {
        match self {
            PageError::WayBack { error, .. } => error.status_code(),
            PageError::NotFound | PageError::Missing(_) => StatusCode::NOT_FOUND,
            PageError::Gone(_) => StatusCode::GONE,
            PageError::Conflict(_) => StatusCode::CONFLICT,
            PageError::LoginRequired => StatusCode::UNAUTHORIZED,
            PageError::Forbidden | PageError::Refused(_) | PageError::Csrf => StatusCode::FORBIDDEN,
            PageError::BadRequest(_) => StatusCode::BAD_REQUEST,
            PageError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            PageError::Stalled(_) => StatusCode::REQUEST_TIMEOUT,
            PageError::TooManyAttempts => StatusCode::TOO_MANY_REQUESTS,
            PageError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            PageError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let PageError::Internal(e) = self.inner() {
            tracing::error!(error = ?e, "request failed");
        }
        let status = self.status_code();
        // A 503 is made without the database, so without knowing who asks: its header claims
        // nobody is logged in only when that is known.
        let layout = if matches!(self.inner(), PageError::Unavailable(_)) {
            super::Layout::unknown()
        } else {
            super::Layout::anonymous()
        };
        let body = self.page(layout);
        let mut res = HttpResponse::build(status);
        if matches!(
            self.inner(),
            PageError::Unavailable(_) | PageError::TooManyAttempts
        ) {
            res.insert_header(("Retry-After", "60"));
        }
        res.content_type("text/html; charset=utf-8").body(body)
    }
}
