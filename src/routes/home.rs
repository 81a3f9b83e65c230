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

/// `{"status": "ok" | "unavailable", "database": "up" | "down", "disk": "ok" | "low"}`: 200 when
/// the database answers, 503 (within the pool's short acquire timeout) when it does not. A disk below
/// the upload floor is reported but keeps the status 200: pages still work, uploads wait.
pub async fn health(
    pool: web::Data<PgPool>,
    config: web::Data<crate::startup::AppConfig>,
) -> HttpResponse {
    let database = crate::storage::ping(pool.get_ref()).await;
    let disk = match config.settings.disk_floor() {
        Some(floor) => match floor.check() {
            Ok(()) => "ok",
            Err(_) => "low",
        },
        None => "unchecked",
    };
    let body = serde_json::json!({
        "status": if database.is_ok() { "ok" } else { "unavailable" },
        "database": if database.is_ok() { "up" } else { "down" },
        "disk": disk,
    });
    match database {
        Ok(()) => HttpResponse::Ok().json(body),
        Err(e) => {
            tracing::warn!(error = %e, "health check: database unavailable");
            HttpResponse::ServiceUnavailable()
                .insert_header(("Retry-After", "10"))
                .json(body)
        }
    }
}

pub fn html(body: String) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(body)
}
