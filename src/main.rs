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
    /// Step a scene offline and write per-step CSV (energies, penetration, poses,
    /// velocities, contact forces, joint states; columns in `rtphys::run`).
    Run(rtphys::run::RunArgs),
    /// Replay a command log (`serve --record-inputs`) offline on its scene and check
    /// the final state hash bit for bit.
    Replay(rtphys::runtime::replay::ReplayArgs),
    /// Drive a server over gRPC for a while (closed-loop controllers; with --faults
    /// killed/stopped controllers, stalled subscribers, connection floods) and print
    /// a report: commands lost/duplicated, round trips, overruns, RSS growth.
    Soak(rtphys::server::soak::SoakArgs),
    /// Generate a scene file (piles of N objects) on standard output.
    Scene(rtphys::tools::SceneArgs),
    /// Draw kinetic energy and penetration against step for both penalty variants
    /// (000 Figs. 8–11) as PNGs.
    Plot(rtphys::tools::PlotArgs),
    /// Benchmarks printing JSON: µs per step of the reference scenes.
    Bench(rtphys::tools::BenchArgs),
    /// The papers' long experiments as sweeps writing CSV and PNG (peg-pour,
    /// peg-pour-2d: 003 Figs. 20–24; pour-figures: their PNGs again from the CSV).
    Experiment(rtphys::tools::ExperimentArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.cmd {
        None => rtphys::server::serve_main(Default::default()),
        Some(Cmd::Serve(a)) => rtphys::server::serve_main(a),
        Some(Cmd::Run(a)) => rtphys::run::run_main(a),
        Some(Cmd::Replay(a)) => rtphys::runtime::replay::replay_main(a),
        Some(Cmd::Soak(a)) => rtphys::server::soak::soak_main(a),
        Some(Cmd::Scene(a)) => rtphys::tools::scene_main(a),
        Some(Cmd::Plot(a)) => rtphys::tools::plot_main(a),
        Some(Cmd::Bench(a)) => rtphys::tools::bench_main(a),
        Some(Cmd::Experiment(a)) => rtphys::tools::experiment_main(a),
    };
    // Debugging aids (RTPHYS_PEG_TRACE, RTPHYS_NEWTON_DUMP) write on their own
    // thread: let it finish what the run queued.
    rtphys::diag::flush(std::time::Duration::from_secs(5));
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
