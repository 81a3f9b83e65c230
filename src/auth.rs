//! Passwords (argon2id), browser sessions (a random cookie; the database keeps its SHA-256), CSRF
//! tokens (every form repeats an HMAC, under a server key kept in the database, of this browser's
//! random `sb_csrf` cookie and its session cookie: a value the attacker chose or copied from another
//! browser or session does not verify) and API tokens (random, shown once, stored as SHA-256).

use actix_web::cookie::{Cookie, SameSite};
use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpMessage, HttpRequest};
use argon2::password_hash::{
    rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString,
};
use argon2::Argon2;
use futures_util::future::LocalBoxFuture;
use hmac::{Hmac, Mac};
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

/// The client's address as throttling counts it and the request log records it: the peer, or,
/// only when the organizer declared the proxy trusted (`application.behind_proxy`), the last
/// address in `X-Forwarded-For`: the one the proxy appended, the address it saw. Entries before
/// it, and a `Forwarded: for=` header, come from the client as it sent them (a proxy appends to
/// what it receives), so anyone could name a new address with each request and escape the
/// per-address limits; they are ignored.
pub fn client_address(
    headers: &actix_web::http::header::HeaderMap,
    info: &actix_web::dev::ConnectionInfo,
    behind_proxy: bool,
) -> String {
    let peer = info.peer_addr().unwrap_or("unknown");
    if !behind_proxy {
        return peer.to_string();
    }
    headers
        .get_all(actix_web::http::header::X_FORWARDED_FOR)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .last()
        .unwrap_or(peer)
        .to_string()
}

/// True if the request reached us over HTTPS: on a TLS listener, or, only when the organizer
/// declared the proxy trusted (`application.behind_proxy`), as the proxy's `X-Forwarded-Proto`
/// (or `Forwarded: proto=`) says. A direct client could forge that header, so it is ignored
/// otherwise.
pub fn arrived_over_https(req: &HttpRequest) -> bool {
    if req.app_config().secure() {
        return true;
    }
    let behind_proxy = req
        .app_data::<web::Data<crate::startup::AppConfig>>()
        .is_some_and(|c| c.settings.application.behind_proxy);
    behind_proxy && req.connection_info().scheme().eq_ignore_ascii_case("https")
}

/// The cookies of one request. `Secure` only when the request arrived over HTTPS: a browser or an
/// HTTP client on plain http to any host but localhost drops `Secure` cookies, which would leave
/// every form failing its CSRF check.
#[derive(Debug, Clone, Copy)]
pub struct CookiePolicy {
    pub secure: bool,
}

impl FromRequest for CookiePolicy {
    type Error = std::convert::Infallible;
    type Future = std::future::Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        std::future::ready(Ok(CookiePolicy::of(req)))
    }
}

impl CookiePolicy {
    pub fn of(req: &HttpRequest) -> CookiePolicy {
        CookiePolicy {
            secure: arrived_over_https(req),
        }
    }

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

/// The server's key for CSRF tokens (shared by every instance through the database).
#[derive(Clone)]
pub struct CsrfKey(pub Vec<u8>);

impl CsrfKey {
    /// The form token of a browser: HMAC-SHA256 over its CSRF cookie and its session cookie.
    pub fn token(&self, csrf_cookie: &str, session_cookie: &str) -> String {
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&self.0) else {
            return String::new();
        };
        mac.update(b"spiceboard csrf\0");
        mac.update(csrf_cookie.as_bytes());
        mac.update(b"\0");
        mac.update(session_cookie.as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }
}

/// The CSRF token forms of this request repeat (set by the `csrf_cookie` middleware).
#[derive(Debug, Clone)]
pub struct CsrfToken(pub String);

fn csrf_key(req: &HttpRequest) -> Option<CsrfKey> {
    req.app_data::<web::Data<CsrfKey>>()
        .map(|k| k.get_ref().clone())
}

fn session_cookie(req: &HttpRequest) -> String {
    req.cookie(SESSION_COOKIE)
        .map(|c| c.value().to_string())
        .unwrap_or_default()
}

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
    let cookie = existing.unwrap_or_else(new_token);
    let form_token = match csrf_key(req.request()) {
        Some(key) => key.token(&cookie, &session_cookie(req.request())),
        None => String::new(),
    };
    req.extensions_mut().insert(CsrfToken(form_token));
    let policy = CookiePolicy::of(req.request());
    let mut res = next.call(req).await?;
    if fresh {
        res.response_mut().add_cookie(&policy.csrf(cookie))?;
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

/// True if `submitted` is the token of this browser's CSRF cookie and session (compared in
/// constant time).
pub fn csrf_ok(req: &HttpRequest, submitted: &str) -> bool {
    let (Some(cookie), Some(key)) = (req.cookie(CSRF_COOKIE), csrf_key(req)) else {
        return false;
    };
    if cookie.value().len() != 64 {
        return false;
    }
    let expected = key.token(cookie.value(), &session_cookie(req));
    let (a, b) = (expected.as_bytes(), submitted.as_bytes());
    a.len() == 64
        && a.len() == b.len()
        && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The logged-in user, if any (from the session cookie).
pub struct MaybeUser(pub Option<User>);

impl FromRequest for MaybeUser {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let user = session_user(req);
        Box::pin(async move {
            let user = user.await.map_err(crate::routes::PageError::from)?;
            Ok(MaybeUser(user))
        })
    }
}

/// The user of the request's session cookie, if any.
pub fn session_user(
    req: &HttpRequest,
) -> impl std::future::Future<Output = Result<Option<User>, sqlx::Error>> + 'static {
    let cookie = req.cookie(SESSION_COOKIE).map(|c| c.value().to_string());
    let pool = req.app_data::<web::Data<PgPool>>().cloned();
    async move {
        let (Some(token), Some(pool)) = (cookie, pool) else {
            return Ok(None);
        };
        accounts::user_by_session(pool.get_ref(), &token_hash(&token)).await
    }
}

/// Starts a session for `user`, whose password was just checked (or set) as `user.password_hash`;
/// returns the cookie to set, or `None` if the password has changed since (no session then).
pub async fn start_session(
    pool: &PgPool,
    policy: &CookiePolicy,
    user: &User,
) -> Result<Option<Cookie<'static>>, sqlx::Error> {
    let token = new_token();
    let expires = chrono::Utc::now() + chrono::Duration::days(SESSION_DAYS);
    let made = accounts::create_session(
        pool,
        &token_hash(&token),
        user.id,
        &user.password_hash,
        expires,
    )
    .await?;
    Ok(made.then(|| policy.session(token)))
}

/// The team behind an `Authorization: Bearer <token>` header.
pub async fn team_from_bearer(
    pool: &PgPool,
    req: &HttpRequest,
) -> Result<Option<accounts::TokenHolder>, sqlx::Error> {
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
    fn the_client_address_is_the_peer_unless_a_trusted_proxy_names_another() {
        let address = |headers: &[(&str, &str)], behind_proxy: bool| {
            let mut req = actix_web::test::TestRequest::default()
                .peer_addr("10.0.0.7:40000".parse().expect("an address"));
            for &h in headers {
                req = req.append_header(h);
            }
            let req = req.to_http_request();
            let info = req.connection_info().clone();
            client_address(req.headers(), &info, behind_proxy)
        };
        let forwarded = [("X-Forwarded-For", "6.6.6.6")];
        assert_eq!(address(&forwarded, false), "10.0.0.7");
        assert_eq!(address(&forwarded, true), "6.6.6.6");
        assert_eq!(address(&[], true), "10.0.0.7");
        // What the client sent comes first; the proxy's own entry is the last one. A
        // `Forwarded` header, which a proxy passes on as received, names nobody.
        let forged = [
            ("Forwarded", "for=1.1.1.1"),
            ("X-Forwarded-For", "2.2.2.2, 3.3.3.3"),
            ("X-Forwarded-For", "6.6.6.6"),
        ];
        assert_eq!(address(&forged, true), "6.6.6.6");
        assert_eq!(
            address(&[("X-Forwarded-For", "2.2.2.2, 6.6.6.6 ")], true),
            "6.6.6.6"
        );
        assert_eq!(address(&[("Forwarded", "for=1.1.1.1")], true), "10.0.0.7");
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
