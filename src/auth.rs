//! Passwords (argon2id), browser sessions (a random cookie; the database keeps its SHA-256), CSRF
//! tokens (double submit: a random `sb_csrf` cookie whose value every form repeats in a hidden
//! field) and API tokens (random, shown once, stored as SHA-256).

use actix_web::cookie::{Cookie, SameSite};
use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpMessage, HttpRequest};
use argon2::password_hash::{
    rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString,
};
use argon2::Argon2;
use futures_util::future::LocalBoxFuture;
use rand::RngCore;
use sha2::{Digest, Sha256};
use sqlx::PgPool;

use crate::storage::accounts::{self, User};

pub const SESSION_COOKIE: &str = "sb_session";
pub const CSRF_COOKIE: &str = "sb_csrf";
pub const SESSION_DAYS: i64 = 14;

/// 32 random bytes, hex: session cookies, CSRF tokens and API tokens.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

pub fn hash_password(password: &str) -> Result<String, argon2::password_hash::Error> {
    let salt = SaltString::generate(&mut OsRng);
    Ok(Argon2::default()
        .hash_password(password.as_bytes(), &salt)?
        .to_string())
}

/// Constant work whether or not the user exists: a missing user is checked against a dummy hash.
pub fn verify_password(password: &str, hash: Option<&str>) -> bool {
    const DUMMY: &str = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$3hH4tOC0zmmcK7ulNctbI1Zp/9zEA6RYtBFk9/WnAG4";
    let parsed = PasswordHash::new(hash.unwrap_or(DUMMY)).or_else(|_| PasswordHash::new(DUMMY));
    match parsed {
        Ok(h) => {
            Argon2::default()
                .verify_password(password.as_bytes(), &h)
                .is_ok()
                && hash.is_some()
        }
        Err(_) => false,
    }
}

/// Cookie policy, from configuration.
#[derive(Debug, Clone, Copy)]
pub struct CookiePolicy {
    pub secure: bool,
}

impl CookiePolicy {
    pub fn session(&self, token: String) -> Cookie<'static> {
        Cookie::build(SESSION_COOKIE, token)
            .path("/")
            .http_only(true)
            .secure(self.secure)
            .same_site(SameSite::Lax)
            .max_age(actix_web::cookie::time::Duration::days(SESSION_DAYS))
            .finish()
    }

    pub fn expired_session(&self) -> Cookie<'static> {
        let mut c = self.session(String::new());
        c.make_removal();
        c
    }

    pub fn csrf(&self, token: String) -> Cookie<'static> {
        Cookie::build(CSRF_COOKIE, token)
            .path("/")
            .http_only(true)
            .secure(self.secure)
            .same_site(SameSite::Strict)
            .finish()
    }
}

/// The CSRF token of this browser: its cookie, or a fresh one that the `csrf_cookie` middleware
/// sets on the response.
#[derive(Debug, Clone)]
pub struct CsrfToken(pub String);

/// Middleware: makes sure every response to a browser without a CSRF cookie sets one, and makes the
/// token available to handlers as a request extension.
pub async fn csrf_cookie(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody>,
) -> Result<actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>, actix_web::Error> {
    let existing = req
        .cookie(CSRF_COOKIE)
        .map(|c| c.value().to_string())
        .filter(|v| v.len() == 64);
    let fresh = existing.is_none();
    let token = existing.unwrap_or_else(new_token);
    req.extensions_mut().insert(CsrfToken(token.clone()));
    let policy = req
        .app_data::<web::Data<CookiePolicy>>()
        .map(|p| *p.get_ref())
        .unwrap_or(CookiePolicy { secure: true });
    let mut res = next.call(req).await?;
    if fresh {
        res.response_mut().add_cookie(&policy.csrf(token))?;
    }
    Ok(res)
}

/// The request's CSRF token (set by the middleware).
pub fn csrf_token(req: &HttpRequest) -> String {
    req.extensions()
        .get::<CsrfToken>()
        .map(|t| t.0.clone())
        .unwrap_or_default()
}

/// True if `submitted` equals this browser's CSRF cookie.
pub fn csrf_ok(req: &HttpRequest, submitted: &str) -> bool {
    match req.cookie(CSRF_COOKIE) {
        Some(c) => {
            let (a, b) = (c.value().as_bytes(), submitted.as_bytes());
            a.len() == 64
                && a.len() == b.len()
                && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
        }
        None => false,
    }
}

/// The logged-in user, if any (from the session cookie).
pub struct MaybeUser(pub Option<User>);

impl FromRequest for MaybeUser {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let cookie = req.cookie(SESSION_COOKIE).map(|c| c.value().to_string());
        let pool = req.app_data::<web::Data<PgPool>>().cloned();
        Box::pin(async move {
            let (Some(token), Some(pool)) = (cookie, pool) else {
                return Ok(MaybeUser(None));
            };
            let user = accounts::user_by_session(pool.get_ref(), &token_hash(&token))
                .await
                .map_err(actix_web::error::ErrorInternalServerError)?;
            Ok(MaybeUser(user))
        })
    }
}

/// Starts a session for `user_id`; returns the cookie to set.
pub async fn start_session(
    pool: &PgPool,
    policy: &CookiePolicy,
    user_id: i64,
) -> Result<Cookie<'static>, sqlx::Error> {
    let token = new_token();
    let expires = chrono::Utc::now() + chrono::Duration::days(SESSION_DAYS);
    accounts::create_session(pool, &token_hash(&token), user_id, expires).await?;
    Ok(policy.session(token))
}

/// The team behind an `Authorization: Bearer <token>` header.
pub async fn team_from_bearer(
    pool: &PgPool,
    req: &HttpRequest,
) -> Result<Option<accounts::Team>, sqlx::Error> {
    let header = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok());
    let Some(token) = header
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(str::trim)
    else {
        return Ok(None);
    };
    if token.is_empty() {
        return Ok(None);
    }
    accounts::team_by_token(pool, &token_hash(token)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_verify_against_their_hash_only() {
        let h = hash_password("correct horse").expect("hashing works");
        assert!(verify_password("correct horse", Some(&h)));
        assert!(!verify_password("wrong horse", Some(&h)));
        assert!(!verify_password("correct horse", None));
    }

    #[test]
    fn tokens_are_random_and_hashed() {
        let (a, b) = (new_token(), new_token());
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert_eq!(token_hash(&a).len(), 64);
        assert_ne!(token_hash(&a), a);
    }
}
