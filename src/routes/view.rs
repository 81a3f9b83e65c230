//! What every page shows around its content, the addresses and headers of pages that carry a
//! secret, and number formatting for tables.

use actix_web::{HttpRequest, HttpResponse};

use crate::auth;
use crate::storage::accounts::User;

/// The absolute address of `path` as the browser reached this server: its `Host` and our own
/// scheme. A proxy's `X-Forwarded-Host`, `X-Forwarded-Proto` and `Forwarded` are believed only when
/// the organizer declared the proxy trusted (`application.behind_proxy`): otherwise anyone could
/// send them and have invite and password links point at another site.
pub fn absolute(req: &HttpRequest, path: &str) -> String {
    let behind_proxy = req
        .app_data::<actix_web::web::Data<crate::startup::AppConfig>>()
        .is_some_and(|c| c.settings.application.behind_proxy);
    if behind_proxy {
        let info = req.connection_info();
        return format!("{}://{}{path}", info.scheme(), info.host());
    }
    let scheme = if req.app_config().secure() {
        "https"
    } else {
        "http"
    };
    let host = req
        .headers()
        .get(actix_web::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| req.uri().authority().map(|a| a.as_str()))
        .unwrap_or_else(|| req.app_config().host());
    format!("{scheme}://{host}{path}")
}

/// A page that carries a secret in its address (an invite code, a password link): sent nowhere else by the browser,
/// and not kept in caches.
pub fn private(mut res: HttpResponse) -> HttpResponse {
    let headers = res.headers_mut();
    headers.insert(
        actix_web::http::header::REFERRER_POLICY,
        actix_web::http::header::HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        actix_web::http::header::CACHE_CONTROL,
        actix_web::http::header::HeaderValue::from_static("no-store"),
    );
    res
}

/// The frame of every page: who is logged in, and the CSRF token forms repeat.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    pub user_email: Option<String>,
    /// The user has a place in the organizer area (an operator, or an organizer of a challenge).
    pub organizer: bool,
    pub csrf: String,
    /// Who is asking is not known (a 503 page, made without the database): the header shows
    /// neither the account nor "Log in".
    pub who_unknown: bool,
}

impl Layout {
    pub fn new(req: &HttpRequest, user: Option<&User>) -> Layout {
        Layout {
            user_email: user.map(|u| u.email.clone()),
            organizer: user.is_some_and(|u| u.is_admin || u.organizes),
            csrf: auth::csrf_token(req),
            who_unknown: false,
        }
    }

    pub fn anonymous() -> Layout {
        Layout::default()
    }

    /// For pages made without knowing who asks (the database is away).
    pub fn unknown() -> Layout {
        Layout {
            who_unknown: true,
            ..Layout::default()
        }
    }
}

/// A score as the tables show it: three decimals, a minus sign (not a hyphen) below zero (a
/// correlation can be), "0.000" for what rounds to zero, "–" when undefined.
pub fn score(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => {
            let text = format!("{v:.3}");
            match text.strip_prefix('-') {
                Some("0.000") => "0.000".to_string(),
                Some(magnitude) => format!("\u{2212}{magnitude}"),
                None => text,
            }
        }
        _ => "–".to_string(),
    }
}

/// A difference as the compare page shows it: "+0.012" above 0, "−0.012" below (a minus sign,
/// as in "A − B"), "0.000" for what rounds to zero, "–" when undefined.
pub fn signed(x: Option<f64>) -> String {
    let text = score(x);
    match x {
        Some(v) if v > 0.0 && text != "0.000" => format!("+{text}"),
        _ => text,
    }
}

/// A p-value as the compare page shows it: three decimals, "< 0.001" below that (a bootstrap
/// p-value is never exactly 0), "–" when undefined.
pub fn p_value(p: Option<f64>) -> String {
    match p {
        Some(p) if p.is_finite() && p < 0.001 => "< 0.001".to_string(),
        _ => score(p),
    }
}

/// A byte count for people: "20.0 MB", "1.5 KB", "1000 bytes".
pub fn size_text(bytes: i64) -> String {
    crate::domain::size_text(bytes.max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::{p_value, signed, size_text};

    #[test]
    fn differences_read_with_a_minus_sign_and_p_values_below_a_thousandth_as_such() {
        assert_eq!(signed(Some(0.0123)), "+0.012");
        assert_eq!(signed(Some(-0.0123)), "\u{2212}0.012");
        assert_eq!(signed(Some(-0.0004)), "0.000");
        assert_eq!(signed(Some(0.0)), "0.000");
        assert_eq!(signed(None), "–");
        assert_eq!(super::score(Some(-0.2234)), "\u{2212}0.223");
        assert_eq!(super::score(Some(-0.0001)), "0.000");
        assert_eq!(signed(Some(0.0004)), "0.000");
        assert_eq!(p_value(Some(0.0)), "< 0.001");
        assert_eq!(p_value(Some(0.0004)), "< 0.001");
        assert_eq!(p_value(Some(0.0312)), "0.031");
        assert_eq!(p_value(None), "–");
    }

    #[test]
    fn sizes_read_in_the_unit_that_fits() {
        assert_eq!(size_text(1000), "1000 bytes");
        assert_eq!(size_text(1536), "1.5 KB");
        assert_eq!(size_text(20 * 1024 * 1024), "20.0 MB");
    }
}
