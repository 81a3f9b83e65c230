//! Browser form posts, checked in one place: who may send the form (anyone, a logged-in member, a
//! site operator, an organizer of the challenge the path names: the `Sender`), then its CSRF
//! token. A handler that takes a `Posted<S, T>` (a urlencoded form) or an `Upload<S>` (a
//! multipart form) cannot forget either check, nor a page that takes an `Admitted<S>` the first.
//!
//! Who is checked first, from the session cookie alone, so that a multipart body is not read for
//! someone who may not post it; the CSRF token is checked before any field reaches the handler, and
//! in a multipart form before the first byte of the file is read.

use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use serde::de::DeserializeOwned;

use sqlx::PgPool;

use super::multipart;
use super::PageError;
use crate::actions;
use crate::auth;
use crate::storage::accounts::User;
use crate::storage::challenges::{self, Challenge};
use crate::storage::splits;
use crate::storage::submissions::{self, Submission};

/// Who sends a form (or asks for a page, see [`Admitted`]), admitted from the session's user (if
/// any) and what the request's path names (the challenge of `/admin/c/{slug}/...`).
pub trait Sender: Sized {
    fn admit(
        req: &HttpRequest,
        user: Option<User>,
    ) -> impl std::future::Future<Output = Result<Self, PageError>>;
}

/// Anyone, logged in or not (sign-up, login, logout).
pub struct Anyone(pub Option<User>);

/// A logged-in user.
pub struct Member(pub User);

/// A site operator (`users.is_admin`): organizes every challenge, creates challenges, makes
/// password links for any account.
pub struct Operator(pub User);

/// Someone with a place in the organizer area: an operator, or an organizer of at least one
/// challenge (what they may do there is checked per challenge: [`ChallengeOrganizer`]).
pub struct Organizer(pub User);

/// An organizer of the challenge the route's `{slug}` names (or an operator). A request for a
/// challenge that does not exist is a 404, one by anybody else a 403.
pub struct ChallengeOrganizer {
    pub user: User,
    pub challenge: Challenge,
}

/// An organizer of the challenge of the submission the route's `{id}` names (or an operator).
pub struct SubmissionOrganizer {
    pub user: User,
    pub challenge: Challenge,
    pub submission: Submission,
}

impl Sender for Anyone {
    async fn admit(_: &HttpRequest, user: Option<User>) -> Result<Self, PageError> {
        Ok(Anyone(user))
    }
}

impl Sender for Member {
    async fn admit(_: &HttpRequest, user: Option<User>) -> Result<Self, PageError> {
        user.map(Member).ok_or(PageError::LoginRequired)
    }
}

impl Sender for Operator {
    async fn admit(_: &HttpRequest, user: Option<User>) -> Result<Self, PageError> {
        match user {
            Some(u) if u.is_admin => Ok(Operator(u)),
            Some(_) => Err(PageError::Refused(
                "only the site's operators may do this".into(),
            )),
            None => Err(PageError::LoginRequired),
        }
    }
}

impl Sender for Organizer {
    async fn admit(_: &HttpRequest, user: Option<User>) -> Result<Self, PageError> {
        match user {
            Some(u) if u.is_admin || u.organizes => Ok(Organizer(u)),
            Some(_) => Err(PageError::Forbidden),
            None => Err(PageError::LoginRequired),
        }
    }
}

fn pool_of(req: &HttpRequest) -> Result<web::Data<PgPool>, PageError> {
    req.app_data::<web::Data<PgPool>>()
        .cloned()
        .ok_or_else(|| PageError::Internal(anyhow::anyhow!("the app has no database pool")))
}

/// `Ok` if `user` organizes `challenge`, else the refusal.
async fn organizing(pool: &PgPool, user: User, challenge: &Challenge) -> Result<User, PageError> {
    if actions::organizes(pool, Some(&user), challenge.id).await? {
        Ok(user)
    } else {
        Err(PageError::Refused(format!(
            "only the organizers of {} may do this",
            challenge.title
        )))
    }
}

impl Sender for ChallengeOrganizer {
    async fn admit(req: &HttpRequest, user: Option<User>) -> Result<Self, PageError> {
        // Who asks is checked before the path: nobody learns anything without logging in.
        let user = Organizer::admit(req, user).await?.0;
        let pool = pool_of(req)?;
        let slug = req.match_info().get("slug").ok_or(PageError::NotFound)?;
        let challenge = actions::challenge(&pool, slug).await?;
        let user = organizing(&pool, user, &challenge).await?;
        Ok(ChallengeOrganizer { user, challenge })
    }
}

impl Sender for SubmissionOrganizer {
    async fn admit(req: &HttpRequest, user: Option<User>) -> Result<Self, PageError> {
        let user = Organizer::admit(req, user).await?.0;
        let pool = pool_of(req)?;
        let id: i64 = req
            .match_info()
            .get("id")
            .and_then(|id| id.parse().ok())
            .ok_or(PageError::NotFound)?;
        let submission = submissions::by_id(pool.get_ref(), id)
            .await?
            .ok_or(PageError::NotFound)?;
        let split = splits::by_id(pool.get_ref(), submission.split_id)
            .await?
            .ok_or(PageError::NotFound)?;
        let challenge = challenges::by_id(pool.get_ref(), split.challenge_id)
            .await?
            .ok_or(PageError::NotFound)?;
        let user = organizing(&pool, user, &challenge).await?;
        Ok(SubmissionOrganizer {
            user,
            challenge,
            submission,
        })
    }
}

/// A page (a GET) that only `S` may see, admitted as `S`'s forms are.
pub struct Admitted<S>(pub S);

impl<S: Sender + 'static> FromRequest for Admitted<S> {
    type Error = PageError;
    type Future = LocalBoxFuture<'static, Result<Self, PageError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move { sender::<S>(&req).await.map(Admitted) })
    }
}

/// The form's `csrf` field must be this browser's token (see `auth::csrf_ok`).
fn check_csrf(req: &HttpRequest, token: &str) -> Result<(), PageError> {
    if auth::csrf_ok(req, token) {
        Ok(())
    } else {
        Err(PageError::Csrf)
    }
}

/// Why a urlencoded form was not read: its body stalled (408), or anything else (400).
fn form_error(e: actix_web::Error) -> PageError {
    match e.as_error::<actix_web::error::UrlencodedError>() {
        Some(actix_web::error::UrlencodedError::Payload(p)) => match super::body::stalled(p) {
            Some(why) => PageError::Stalled(why),
            None => PageError::BadRequest(format!("could not read the form: {e}")),
        },
        _ => PageError::BadRequest(format!("could not read the form: {e}")),
    }
}

/// The sender of `req`, admitted as `S`.
async fn sender<S: Sender>(req: &HttpRequest) -> Result<S, PageError> {
    S::admit(req, auth::session_user(req).await?).await
}

/// The fields of a form that carries nothing but its CSRF token (logout, revoke, organizer buttons).
#[derive(serde::Deserialize)]
pub struct NoFields {}

/// A urlencoded form post by `S` whose CSRF token matched; `form` is the rest of its fields.
pub struct Posted<S, T = NoFields> {
    pub by: S,
    pub form: T,
}

impl<S: Sender + 'static, T: DeserializeOwned + 'static> FromRequest for Posted<S, T> {
    type Error = PageError;
    type Future = LocalBoxFuture<'static, Result<Self, PageError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        // Bounded by the app's `FormConfig`; read as pairs so that the token is found whatever
        // the form's own fields are.
        let body = web::Form::<Vec<(String, String)>>::from_request(req, payload);
        let req = req.clone();
        Box::pin(async move {
            let by = sender::<S>(&req).await?;
            let pairs = body.await.map_err(form_error)?.into_inner();
            let token = pairs
                .iter()
                .find(|(name, _)| name == "csrf")
                .map_or("", |(_, value)| value.as_str());
            check_csrf(&req, token)?;
            // PostgreSQL refuses text with a NUL: no field of ours may hold one.
            if pairs
                .iter()
                .any(|(n, v)| n.contains('\0') || v.contains('\0'))
            {
                return Err(PageError::BadRequest(
                    "the form holds a NUL character".into(),
                ));
            }
            let form = serde_urlencoded::to_string(&pairs)
                .map_err(|e| e.to_string())
                .and_then(|encoded| {
                    serde_urlencoded::from_str::<T>(&encoded).map_err(|e| e.to_string())
                })
                .map_err(|e| PageError::BadRequest(format!("the form is incomplete: {e}")))?;
            Ok(Posted { by, form })
        })
    }
}

/// A multipart form post by `S`, not read yet: `read` reads it within limits, checking the CSRF
/// token before the file.
pub struct Upload<S> {
    pub by: S,
    pub body: UnreadForm,
}

/// The body of an `Upload`.
pub struct UnreadForm {
    req: HttpRequest,
    payload: Payload,
}

impl<S: Sender + 'static> FromRequest for Upload<S> {
    type Error = PageError;
    type Future = LocalBoxFuture<'static, Result<Self, PageError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let payload = payload.take();
        let req = req.clone();
        Box::pin(async move {
            let by = sender::<S>(&req).await?;
            Ok(Upload {
                by,
                body: UnreadForm { req, payload },
            })
        })
    }
}

impl UnreadForm {
    /// Reads the form within `limits`. Before the first byte of the file is read, the CSRF token
    /// (a field the form sends before the file) must match, and then `ready` (what the handler
    /// found out before reading, such as "you have no team") must be `Ok`.
    pub async fn read(
        self,
        limits: multipart::Limits,
        ready: Result<(), PageError>,
    ) -> Result<multipart::Form, PageError> {
        self.read_gated(limits, &mut (), |_| ready).await
    }

    /// [`UnreadForm::read`] with `ready` looking at the text fields sent before the file (such
    /// as the split an upload is for), and `share` covering the file as it arrives.
    pub async fn read_gated(
        self,
        limits: multipart::Limits,
        share: &mut impl multipart::FileShare,
        ready: impl FnOnce(&std::collections::HashMap<String, String>) -> Result<(), PageError>,
    ) -> Result<multipart::Form, PageError> {
        let req = &self.req;
        let gate = |fields: &std::collections::HashMap<String, String>| {
            check_csrf(req, fields.get("csrf").map_or("", String::as_str))?;
            ready(fields)
        };
        multipart::read(req, self.payload, limits, gate, share)
            .await
            .map_err(|e| match e {
                multipart::ReadError::Form(f) => f.into(),
                multipart::ReadError::Gate(g) => g,
            })
    }
}
