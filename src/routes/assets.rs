//! The stylesheet and the little scripts, compiled into the binary.

use actix_web::{web, HttpResponse};

const STYLE: &str = include_str!("../../static/style.css");
const SCRIPT: &str = include_str!("../../static/status.js");
const COUNTDOWN: &str = include_str!("../../static/countdown.js");

pub async fn file(name: web::Path<String>) -> HttpResponse {
    let (body, kind) = match name.as_str() {
        "style.css" => (STYLE, "text/css; charset=utf-8"),
        "status.js" => (SCRIPT, "text/javascript; charset=utf-8"),
        "countdown.js" => (COUNTDOWN, "text/javascript; charset=utf-8"),
        _ => return HttpResponse::NotFound().finish(),
    };
    HttpResponse::Ok()
        .content_type(kind)
        .insert_header(("Cache-Control", "public, max-age=3600"))
        .body(body)
}
