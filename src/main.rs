//! The `rtphys` command: serve a world over gRPC, run a scene offline, benchmark, plot.

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "rtphys",
    version,
    about = "Real-time physics simulation server for robotics and haptics"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Serve a world over gRPC (the default command).
    Serve(rtphys::server::ServeArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.cmd {
        None => rtphys::server::serve_main(Default::default()),
        Some(Cmd::Serve(a)) => rtphys::server::serve_main(a),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
