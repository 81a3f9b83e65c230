use clap::Parser;

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
