//! The list of challenges, and the health check.

use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use sqlx::PgPool;

use super::{Layout, PageError};
use crate::auth::MaybeUser;
use crate::storage::challenges::{self, Challenge};

#[derive(Template)]
#[template(path = "index.html")]
struct Index {
    layout: Layout,
    challenges: Vec<Challenge>,
}

pub async fn index(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
) -> Result<HttpResponse, PageError> {
    let page = Index {
        layout: Layout::new(&req, user.0.as_ref()),
        challenges: challenges::list(pool.get_ref()).await?,
    };
    Ok(html(page.render()?))
}

pub async fn health(pool: web::Data<PgPool>) -> HttpResponse {
    match sqlx::query("SELECT 1").execute(pool.get_ref()).await {
        Ok(_) => HttpResponse::Ok().body("ok"),
        Err(_) => HttpResponse::ServiceUnavailable().body("database unavailable"),
    }
}

pub fn html(body: String) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(body)
}
