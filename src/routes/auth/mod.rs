//! Sign-up, login and logout.

use actix_web::http::header::LOCATION;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;
use sqlx::PgPool;

use super::home::html;
use super::{Layout, PageError};
use crate::actions;
use crate::auth::{self, CookiePolicy, MaybeUser};
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
    csrf: String,
    #[serde(default)]
    next: String,
}

/// The address throttling counts by: the peer, or the client a trusted proxy names.
fn client_address(req: &HttpRequest, config: &AppConfig) -> String {
    let info = req.connection_info();
    let addr = if config.settings.application.behind_proxy {
        info.realip_remote_addr()
    } else {
        info.peer_addr()
    };
    addr.unwrap_or("unknown").to_string()
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
    policy: web::Data<CookiePolicy>,
    config: web::Data<AppConfig>,
    form: web::Form<Credentials>,
) -> Result<HttpResponse, PageError> {
    if !auth::csrf_ok(&req, &form.csrf) {
        return Err(PageError::Csrf);
    }
    let next = LocalPath::parse(&form.next);
    let parsed =
        Email::parse(&form.email).and_then(|e| Password::parse(&form.password).map(|p| (e, p)));
    let (email, password) = match parsed {
        Ok(v) => v,
        Err(e) => return render(&req, true, &form.email, Some(e.to_string()), &form.next),
    };
    actions::signup_allowed(&pool, &client_address(&req, &config)).await?;
    let pw = password.expose().to_string();
    let hash = web::block(move || auth::hash_password(&pw))
        .await
        .map_err(|e| PageError::Internal(e.into()))?
        .map_err(|e| PageError::Internal(anyhow::anyhow!("password hashing failed: {e}")))?;
    let Some(user) = accounts::create_user(pool.get_ref(), email.as_str(), &hash, false).await?
    else {
        return render(
            &req,
            true,
            &form.email,
            Some("that e-mail address already has an account; log in instead".into()),
            &form.next,
        );
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
    policy: web::Data<CookiePolicy>,
    config: web::Data<AppConfig>,
    form: web::Form<Credentials>,
) -> Result<HttpResponse, PageError> {
    if !auth::csrf_ok(&req, &form.csrf) {
        return Err(PageError::Csrf);
    }
    let next = LocalPath::parse(&form.next);
    let email = form.email.trim().to_lowercase();
    let address = client_address(&req, &config);
    actions::login_allowed(&pool, &address, &email).await?;
    let user = accounts::user_by_email(pool.get_ref(), &email).await?;
    let (pw, hash) = (
        form.password.clone(),
        user.as_ref().map(|u| u.password_hash.clone()),
    );
    let ok = web::block(move || auth::verify_password(&pw, hash.as_deref()))
        .await
        .map_err(|e| PageError::Internal(e.into()))?;
    match user {
        Some(user) if ok => {
            let cookie = auth::start_session(pool.get_ref(), &policy, user.id).await?;
            Ok(HttpResponse::SeeOther()
                .insert_header((LOCATION, next.as_str()))
                .cookie(cookie)
                .finish())
        }
        _ => {
            actions::login_failed(&pool, &address, &email).await?;
            render(
                &req,
                false,
                &form.email,
                Some("wrong e-mail address or password".into()),
                &form.next,
            )
        }
    }
}

pub async fn logout(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    policy: web::Data<CookiePolicy>,
    user: MaybeUser,
    form: web::Form<super::CsrfForm>,
) -> Result<HttpResponse, PageError> {
    if !auth::csrf_ok(&req, &form.csrf) {
        return Err(PageError::Csrf);
    }
    if let (Some(_), Some(c)) = (user.0, req.cookie(auth::SESSION_COOKIE)) {
        accounts::delete_session(pool.get_ref(), &auth::token_hash(c.value())).await?;
    }
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, "/"))
        .cookie(policy.expired_session())
        .finish())
}
