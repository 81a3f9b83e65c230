//! Logging through `tracing`. `RUST_LOG` picks the filter; secrets never reach a log line because
//! they are held in `secrecy::SecretString`, whose `Debug` prints a redaction.

use tracing_subscriber::EnvFilter;

/// Installs a subscriber writing to stderr (stdout stays free for CLI output such as CSV).
pub fn init(verbose: bool) {
    let default = if verbose { "debug" } else { "info,sqlx=warn" };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
