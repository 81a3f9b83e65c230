//! Logging through `tracing`. `RUST_LOG` picks the filter; secrets never reach a log line because
//! they are held in `secrecy::SecretString`, whose `Debug` prints a redaction.

use std::io::IsTerminal;

use actix_web::HttpMessage;
use tracing_subscriber::EnvFilter;

/// Installs a subscriber writing to stderr (stdout stays free for CLI output such as CSV). Colours
/// only on a terminal: a log redirected to a file or a pipe (systemd, docker) stays plain text;
/// `NO_COLOR` turns them off everywhere.
pub fn init(verbose: bool) {
    let default = if verbose { "debug" } else { "info,sqlx=warn" };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour)
        .try_init();
}

/// A request's target as the log may show it: any run of 32 or more hex digits (an invite code
/// in `/c/{slug}/join/{code}` or in a `next=` that leads there) is replaced, so that whoever
/// reads the log cannot join the team.
pub fn loggable_target(target: &str) -> String {
    let mut out = String::with_capacity(target.len());
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if run.len() >= 32 {
            out.push_str("[secret]");
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in target.chars() {
        if c.is_ascii_hexdigit() {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// The request log's span (`tracing_actix_web`'s fields), with the target made loggable
/// (`loggable_target`): invite codes travel in addresses.
pub struct RequestSpan;

impl tracing_actix_web::RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &actix_web::dev::ServiceRequest) -> tracing::Span {
        let route = request.match_pattern().unwrap_or_else(|| "default".into());
        let request_id = request
            .extensions()
            .get::<tracing_actix_web::RequestId>()
            .map(|id| id.to_string())
            .unwrap_or_default();
        let target = loggable_target(
            request
                .uri()
                .path_and_query()
                .map(|p| p.as_str())
                .unwrap_or(""),
        );
        // The peer, unless a trusted proxy names the client (a direct client could forge that).
        let behind_proxy = request
            .app_data::<actix_web::web::Data<crate::startup::AppConfig>>()
            .is_some_and(|c| c.settings.application.behind_proxy);
        let client = crate::auth::client_address(
            request.headers(),
            &request.connection_info(),
            behind_proxy,
        );
        tracing::info_span!(
            "HTTP request",
            http.method = %request.method(),
            http.route = %route,
            http.client_ip = %client,
            http.target = %target,
            http.status_code = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
            request_id = %request_id,
            exception.message = tracing::field::Empty,
            exception.details = tracing::field::Empty,
        )
    }

    fn on_request_end<B: actix_web::body::MessageBody>(
        span: tracing::Span,
        outcome: &Result<actix_web::dev::ServiceResponse<B>, actix_web::Error>,
    ) {
        tracing_actix_web::DefaultRootSpanBuilder::on_request_end(span, outcome);
    }
}
