use clap::Parser;

/// The engine's allocator, as in the `spice` command (crates/spice/Cargo.toml says why).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let cli = spiceboard::cli::Cli::parse();
    spiceboard::telemetry::init(cli.verbose);
    match spiceboard::cli::run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
