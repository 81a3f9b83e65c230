//! Sign-up, login and logout; changing a password, and setting one with a password link.

use actix_web::http::header::LOCATION;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;
use sqlx::PgPool;

use super::forms::{Anyone, Member, Posted};
use super::home::html;
use super::{Layout, PageError};
use crate::actions;
use crate::auth::{self, CookiePolicy};
use crate::domain::{Email, LocalPath, Password};
use crate::startup::AppConfig;
use crate::storage::accounts;

#[derive(Template)]
#[template(path = "login.html")]
struct AuthPage<'a> {
    layout: Layout,
    signup: bool,
    email: &'a str,
    error: Option<String>,
    next: &'a str,
}

#[derive(Deserialize)]
pub struct NextQuery {
    next: Option<String>,
}

#[derive(Deserialize)]
pub struct Credentials {
    email: String,
    password: String,
    #[serde(default)]
    next: String,
}

/// The address throttling counts by: the peer, or the client a trusted proxy names.
fn client_address(req: &HttpRequest, config: &AppConfig) -> String {
    crate::auth::client_address(
        req.headers(),
        &req.connection_info(),
        config.settings.application.behind_proxy,
    )
}

fn render(
    req: &HttpRequest,
    signup: bool,
    email: &str,
    error: Option<String>,
    next: &str,
) -> Result<HttpResponse, PageError> {
    let next = LocalPath::parse(next);
    let page = AuthPage {
        layout: Layout::new(req, None),
        signup,
        email,
        error: error.clone(),
        next: next.as_str(),
    };
    let body = page.render()?;
    Ok(if error.is_some() {
        HttpResponse::BadRequest()
            .content_type("text/html; charset=utf-8")
            .body(body)
    } else {
        html(body)
    })
}

pub async fn signup_form(
    req: HttpRequest,
    q: web::Query<NextQuery>,
) -> Result<HttpResponse, PageError> {
    render(&req, true, "", None, q.next.as_deref().unwrap_or("/"))
}

pub async fn login_form(
    req: HttpRequest,
    q: web::Query<NextQuery>,
) -> Result<HttpResponse, PageError> {
    render(&req, false, "", None, q.next.as_deref().unwrap_or("/"))
}

pub async fn signup(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    policy: CookiePolicy,
    config: web::Data<AppConfig>,
    Posted { form, .. }: Posted<Anyone, Credentials>,
) -> Result<HttpResponse, PageError> {
    let next = LocalPath::parse(&form.next);
    let parsed =
        Email::parse(&form.email).and_then(|e| Password::parse(&form.password).map(|p| (e, p)));
    let (email, password) = match parsed {
        Ok(v) => v,
        Err(e) => return render(&req, true, &form.email, Some(e.to_string()), &form.next),
    };
    let address = client_address(&req, &config);
    let user = match actions::sign_up(&pool, &config.passwords, &address, &email, &password).await {
        Ok(user) => user,
        Err(e @ actions::ActionError::AccountExists) => {
            return render(&req, true, &form.email, Some(e.to_string()), &form.next)
        }
        Err(e) => return Err(e.into()),
    };
    let Some(cookie) = auth::start_session(pool.get_ref(), &policy, &user).await? else {
        let e = actions::ActionError::WrongCredentials;
        return render(&req, true, &form.email, Some(e.to_string()), &form.next);
    };
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, next.as_str()))
        .cookie(cookie)
        .finish())
}

pub async fn login(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    policy: CookiePolicy,
    config: web::Data<AppConfig>,
    Posted { form, .. }: Posted<Anyone, Credentials>,
) -> Result<HttpResponse, PageError> {
    let next = LocalPath::parse(&form.next);
    let address = client_address(&req, &config);
    match actions::log_in(
        &pool,
        &config.passwords,
        &address,
        &form.email,
        &form.password,
    )
    .await
    {
        Ok(user) => match auth::start_session(pool.get_ref(), &policy, &user).await? {
            Some(cookie) => Ok(HttpResponse::SeeOther()
                .insert_header((LOCATION, next.as_str()))
                .cookie(cookie)
                .finish()),
            // The password was changed while it was checked: the old one no longer logs in.
            None => {
                let e = actions::ActionError::WrongCredentials;
                render(&req, false, &form.email, Some(e.to_string()), &form.next)
            }
        },
        Err(e @ actions::ActionError::WrongCredentials) => {
            render(&req, false, &form.email, Some(e.to_string()), &form.next)
        }
        Err(e) => Err(e.into()),
    }
}

pub async fn logout(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    policy: CookiePolicy,
    Posted {
        by: Anyone(user), ..
    }: Posted<Anyone>,
) -> Result<HttpResponse, PageError> {
    if let (Some(_), Some(c)) = (user, req.cookie(auth::SESSION_COOKIE)) {
        accounts::delete_session(pool.get_ref(), &auth::token_hash(c.value())).await?;
    }
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, "/"))
        .cookie(policy.expired_session())
        .finish())
}

#[derive(Template)]
#[template(path = "account.html")]
struct AccountPage {
    layout: Layout,
    /// A password link's page: the account it is for (`None`: the logged-in person's page).
    for_email: Option<String>,
    error: Option<String>,
    /// The password was just changed or set.
    done: bool,
    /// API tokens the account had made, revoked as its password was set with a link.
    revoked_tokens: u64,
}

impl AccountPage {
    /// The page; a password link's (whose address is a secret) is kept out of caches and
    /// referrers.
    fn respond(self, status: actix_web::http::StatusCode) -> Result<HttpResponse, PageError> {
        let secret = self.for_email.is_some();
        let res = HttpResponse::build(status)
            .content_type("text/html; charset=utf-8")
            .body(self.render()?);
        Ok(if secret {
            super::view::private(res)
        } else {
            res
        })
    }
}

#[derive(Deserialize)]
pub struct ChangedQuery {
    #[serde(default)]
    changed: Option<String>,
}

/// The logged-in person's account page: changing the password.
pub async fn account(
    req: HttpRequest,
    user: auth::MaybeUser,
    q: web::Query<ChangedQuery>,
) -> Result<HttpResponse, PageError> {
    let Some(user) = user.0 else {
        return Ok(HttpResponse::SeeOther()
            .insert_header((LOCATION, "/login?next=/account"))
            .finish());
    };
    AccountPage {
        layout: Layout::new(&req, Some(&user)),
        for_email: None,
        error: None,
        done: q.changed.is_some(),
        revoked_tokens: 0,
    }
    .respond(actix_web::http::StatusCode::OK)
}

#[derive(Deserialize)]
pub struct PasswordChange {
    current: String,
    password: String,
}

/// Changes the logged-in person's password; every session of theirs ends, and this browser gets
/// a new one.
pub async fn change_password(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    policy: CookiePolicy,
    config: web::Data<AppConfig>,
    Posted {
        by: Member(user),
        form,
    }: Posted<Member, PasswordChange>,
) -> Result<HttpResponse, PageError> {
    let address = client_address(&req, &config);
    let changed = match Password::parse(&form.password) {
        Ok(new) => {
            actions::change_password(
                &pool,
                &config.passwords,
                &address,
                &user,
                &form.current,
                &new,
            )
            .await
        }
        Err(e) => Err(actions::ActionError::Invalid(e.to_string())),
    };
    match changed {
        Ok(user) => {
            let mut res = HttpResponse::SeeOther();
            res.insert_header((LOCATION, "/account?changed"));
            // None: changed again meanwhile; this browser is logged out with the rest.
            match auth::start_session(pool.get_ref(), &policy, &user).await? {
                Some(cookie) => res.cookie(cookie),
                None => res.cookie(policy.expired_session()),
            };
            Ok(res.finish())
        }
        Err(actions::ActionError::Invalid(e)) => AccountPage {
            layout: Layout::new(&req, Some(&user)),
            for_email: None,
            error: Some(e),
            done: false,
            revoked_tokens: 0,
        }
        .respond(actix_web::http::StatusCode::BAD_REQUEST),
        Err(e) => Err(e.into()),
    }
}

/// A password link that does not work: its own page, saying what to do.
fn no_password_link(req: &HttpRequest) -> Result<HttpResponse, PageError> {
    let e = actions::ActionError::NoPasswordLink;
    let page = super::error::ErrorPage {
        layout: Layout::new(req, None),
        status: 404,
        message: &e.to_string(),
        back: None,
    };
    Ok(super::view::private(
        HttpResponse::NotFound()
            .content_type("text/html; charset=utf-8")
            .body(page.render()?),
    ))
}

/// A password link's page: a form for the new password.
pub async fn password_link(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    secret: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    match actions::password_link_user(&pool, &secret).await {
        Ok(user) => AccountPage {
            layout: Layout::new(&req, None),
            for_email: Some(user.email),
            error: None,
            done: false,
            revoked_tokens: 0,
        }
        .respond(actix_web::http::StatusCode::OK),
        Err(actions::ActionError::NoPasswordLink) => no_password_link(&req),
        Err(e) => Err(e.into()),
    }
}

#[derive(Deserialize)]
pub struct NewPassword {
    password: String,
}

pub async fn reset_password(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    config: web::Data<AppConfig>,
    secret: web::Path<String>,
    Posted { form, .. }: Posted<Anyone, NewPassword>,
) -> Result<HttpResponse, PageError> {
    let user = match actions::password_link_user(&pool, &secret).await {
        Ok(user) => user,
        Err(actions::ActionError::NoPasswordLink) => return no_password_link(&req),
        Err(e) => return Err(e.into()),
    };
    let page = |error: Option<String>, revoked: Option<u64>| AccountPage {
        layout: Layout::new(&req, None),
        for_email: Some(user.email.clone()),
        error,
        done: revoked.is_some(),
        revoked_tokens: revoked.unwrap_or(0),
    };
    let new = match Password::parse(&form.password) {
        Ok(p) => p,
        Err(e) => {
            return page(Some(e.to_string()), None)
                .respond(actix_web::http::StatusCode::BAD_REQUEST)
        }
    };
    match actions::reset_password(&pool, &config.passwords, &secret, &new).await {
        // The person's session, if this browser had one, ended with the others.
        Ok(revoked) => page(None, Some(revoked)).respond(actix_web::http::StatusCode::OK),
        Err(actions::ActionError::NoPasswordLink) => no_password_link(&req),
        Err(e) => Err(e.into()),
    }
}
