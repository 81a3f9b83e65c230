//! The first site operator, made in the browser: while the site has none, `spiceboard serve`
//! prints a one-time code and this page's address; a logged-in person who enters the code here
//! becomes the operator (`actions::become_operator`). Once the site has one, the page is gone.

use actix_web::http::header::LOCATION;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;
use sqlx::PgPool;

use super::forms::{Member, Posted};
use super::{Layout, PageError};
use crate::actions::{self, ActionError};
use crate::auth::MaybeUser;
use crate::storage::accounts::User;

#[derive(Template)]
#[template(path = "operator.html")]
struct OperatorPage {
    layout: Layout,
    logged_in: bool,
    error: Option<String>,
}

fn render(
    req: &HttpRequest,
    user: Option<&User>,
    error: Option<String>,
) -> Result<HttpResponse, PageError> {
    let status = if error.is_some() {
        actix_web::http::StatusCode::BAD_REQUEST
    } else {
        actix_web::http::StatusCode::OK
    };
    let page = OperatorPage {
        layout: Layout::new(req, user),
        logged_in: user.is_some(),
        error,
    };
    Ok(super::view::private(
        HttpResponse::build(status)
            .content_type("text/html; charset=utf-8")
            .body(page.render()?),
    ))
}

/// The page exists while the site has no operator.
async fn needed(pool: &PgPool) -> Result<(), PageError> {
    if actions::has_operator(pool).await? {
        Err(ActionError::OperatorExists.into())
    } else {
        Ok(())
    }
}

pub async fn form(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
) -> Result<HttpResponse, PageError> {
    needed(&pool).await?;
    render(&req, user.0.as_ref(), None)
}

#[derive(Deserialize)]
pub struct CodeForm {
    code: String,
}

pub async fn enter_code(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    Posted {
        by: Member(user),
        form,
    }: Posted<Member, CodeForm>,
) -> Result<HttpResponse, PageError> {
    match actions::become_operator(&pool, &user, &form.code).await {
        Ok(()) => Ok(HttpResponse::SeeOther()
            .insert_header((LOCATION, "/admin"))
            .finish()),
        Err(e @ (ActionError::NoOperatorCode | ActionError::OperatorCodeLocked)) => {
            render(&req, Some(&user), Some(e.to_string()))
        }
        Err(e) => Err(e.into()),
    }
}
