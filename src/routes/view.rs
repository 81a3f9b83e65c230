//! What every page shows around its content, and number formatting for tables.

use actix_web::HttpRequest;

use crate::auth;
use crate::storage::accounts::User;

/// The frame of every page: who is logged in, and the CSRF token forms repeat.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    pub user_email: Option<String>,
    pub is_admin: bool,
    pub csrf: String,
}

impl Layout {
    pub fn new(req: &HttpRequest, user: Option<&User>) -> Layout {
        Layout {
            user_email: user.map(|u| u.email.clone()),
            is_admin: user.is_some_and(|u| u.is_admin),
            csrf: auth::csrf_token(req),
        }
    }

    pub fn anonymous() -> Layout {
        Layout::default()
    }
}

/// A score as the tables show it: three decimals, "–" when undefined.
pub fn score(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.3}"),
        _ => "–".to_string(),
    }
}
