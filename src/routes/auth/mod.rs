//! Sign-up, login and logout.

use actix_web::http::header::LOCATION;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;
use sqlx::PgPool;

use super::forms::{Anyone, Posted};
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
    let cookie = auth::start_session(pool.get_ref(), &policy, user.id).await?;
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
        Ok(user) => {
            let cookie = auth::start_session(pool.get_ref(), &policy, user.id).await?;
            Ok(HttpResponse::SeeOther()
                .insert_header((LOCATION, next.as_str()))
                .cookie(cookie)
                .finish())
        }
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
