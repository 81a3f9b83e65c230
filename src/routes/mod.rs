//! HTTP handlers, one module per area. Handlers are thin: they turn the request into domain
//! values, call one function of `crate::actions` (or one query), and render a template.

pub mod admin;
pub mod api;
mod assets;
pub mod auth;
pub mod body;
pub mod challenges;
mod error;
mod forms;
mod home;
pub mod multipart;
mod operator;
pub mod submissions;
pub(crate) mod view;

use actix_web::{guard, web, Route};

pub use error::{keep_login_state, PageError};
pub use view::Layout;

/// A route for GET and HEAD: HEAD runs the same handler and actix-http leaves the body out, so
/// the status and headers are GET's (RFC 9110 §9.3.2). `web::get()` alone would answer HEAD 404.
fn get() -> Route {
    web::route().guard(guard::Any(guard::Get()).or(guard::Head()))
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/", get().to(home::index))
        .route("/health", get().to(home::health))
        .route("/static/{file}", get().to(assets::file))
        .service(
            web::resource("/signup")
                .route(get().to(auth::signup_form))
                .route(web::post().to(auth::signup)),
        )
        .service(
            web::resource("/login")
                .route(get().to(auth::login_form))
                .route(web::post().to(auth::login)),
        )
        .route("/logout", web::post().to(auth::logout))
        .route("/account", get().to(auth::account))
        .route("/account/password", web::post().to(auth::change_password))
        .service(
            web::resource("/password/{secret}")
                .route(get().to(auth::password_link))
                .route(web::post().to(auth::reset_password)),
        )
        .route("/c/{slug}", get().to(challenges::overview))
        .route("/c/{slug}/team", web::post().to(challenges::create_team))
        .service(
            web::resource("/c/{slug}/team/leave")
                .route(get().to(challenges::leave_form))
                .route(web::post().to(challenges::leave_team)),
        )
        .route(
            "/c/{slug}/team/invite",
            web::post().to(challenges::renew_invite),
        )
        .service(
            web::resource("/c/{slug}/join/{code}")
                .route(get().to(challenges::join_form))
                .route(web::post().to(challenges::join)),
        )
        .route("/c/{slug}/tokens", web::post().to(challenges::create_token))
        .route(
            "/c/{slug}/tokens/{id}/revoke",
            web::post().to(challenges::revoke_token),
        )
        .route("/c/{slug}/leaderboard", get().to(challenges::leaderboard))
        .route(
            "/c/{slug}/leaderboard.csv",
            get().to(challenges::leaderboard_csv),
        )
        .route(
            "/c/{slug}/leaderboard.json",
            get().to(challenges::leaderboard_json),
        )
        .route("/c/{slug}/compare", get().to(challenges::compare))
        .route("/c/{slug}/agreement", get().to(challenges::agreement))
        .route(
            "/c/{slug}/agreement.json",
            get().to(challenges::agreement_json),
        )
        .service(
            web::resource("/c/{slug}/submit")
                .route(get().to(submissions::form))
                .route(web::post().to(submissions::upload)),
        )
        .route("/s/{id}", get().to(submissions::page))
        .route("/s/{id}/status", get().to(submissions::status_fragment))
        .route("/s/{id}/images/{image_id}", get().to(submissions::image))
        .route("/s/{id}/images.csv", get().to(submissions::images_csv))
        .route("/s/{id}/images.json", get().to(submissions::images_json))
        .route("/s/{id}/file", get().to(submissions::uploaded_file))
        .route("/s/{id}/choose", web::post().to(submissions::choose))
        .route("/s/{id}/method", web::post().to(submissions::set_method))
        .service(
            web::resource("/s/{id}/cancel")
                .route(get().to(submissions::confirm_cancel))
                .route(web::post().to(submissions::cancel)),
        )
        .route("/api/c/{slug}/submissions", web::post().to(api::upload))
        .route("/api/submissions/{id}", get().to(api::status))
        .route(
            "/api/submissions/{id}/method",
            web::post().to(api::set_method),
        )
        .route("/api/submissions/{id}/cancel", web::post().to(api::cancel))
        .service(
            web::resource("/operator")
                .route(get().to(operator::form))
                .route(web::post().to(operator::enter_code)),
        )
        .route("/admin", get().to(admin::index))
        .route("/admin/challenges", web::post().to(admin::create_challenge))
        .route("/admin/password-link", web::post().to(admin::password_link))
        .route("/admin/c/{slug}", get().to(admin::challenge))
        .route(
            "/admin/c/{slug}/references",
            web::post().to(admin::import_references),
        )
        .route("/admin/c/{slug}/limits", web::post().to(admin::set_limits))
        .route("/admin/c/{slug}/phase", web::post().to(admin::set_phase))
        .route(
            "/admin/c/{slug}/split-phase",
            web::post().to(admin::set_split_phase),
        )
        .route(
            "/admin/c/{slug}/details",
            web::post().to(admin::set_details),
        )
        .route(
            "/admin/c/{slug}/submissions.csv",
            get().to(admin::export_submissions),
        )
        .route(
            "/admin/c/{slug}/ranking-metric",
            web::post().to(admin::set_ranking_metric),
        )
        .route(
            "/admin/c/{slug}/judgments",
            web::post().to(admin::import_judgments),
        )
        .route(
            "/admin/c/{slug}/entry-policy",
            web::post().to(admin::set_entry_policy),
        )
        .route(
            "/admin/c/{slug}/splits/{split}/visibility",
            web::post().to(admin::set_visibility),
        )
        .route(
            "/admin/c/{slug}/splits/{split}/baselines",
            web::post().to(admin::add_baseline),
        )
        .route(
            "/admin/c/{slug}/baselines",
            web::post().to(admin::add_baseline),
        )
        .route(
            "/admin/c/{slug}/splits/{split}/human",
            web::post().to(admin::compute_human),
        )
        .route(
            "/admin/c/{slug}/splits/{split}/rescore",
            web::post().to(admin::rescore),
        )
        .route("/admin/c/{slug}/export.csv", get().to(admin::export_csv))
        .route(
            "/admin/c/{slug}/organizers",
            web::post().to(admin::add_organizer),
        )
        .route(
            "/admin/c/{slug}/organizers/remove",
            web::post().to(admin::remove_organizer),
        )
        .service(
            web::resource("/admin/c/{slug}/splits/{split}/versions/{version}/delete")
                .route(get().to(admin::confirm_delete_split))
                .route(web::post().to(admin::delete_split)),
        )
        .service(
            web::resource("/admin/c/{slug}/delete")
                .route(get().to(admin::confirm_delete_challenge))
                .route(web::post().to(admin::delete_challenge)),
        )
        .service(
            web::resource("/admin/submissions/{id}/delete")
                .route(get().to(admin::confirm_delete))
                .route(web::post().to(admin::delete_submission)),
        );
}
