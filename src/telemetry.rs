//! Logging through `tracing`. `RUST_LOG` picks the filter; secrets never reach a log line because
//! they are held in `secrecy::SecretString`, whose `Debug` prints a redaction.

use std::io::IsTerminal;

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
