//! Command-line tools beside `serve` and `run`: scene generation, plots, benchmarks.

pub mod bench;
pub mod bench_haptics;
pub mod bench_ipc;
pub mod experiment;
pub mod plot;
pub mod pour_figures;
pub mod scaling;

pub use bench::{bench_main, BenchArgs};
pub use experiment::{experiment_main, ExperimentArgs};
pub use plot::{plot_main, PlotArgs};

use crate::experiments::{pile_scene, PileKind};

/// `rtphys scene` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct SceneArgs {
    #[command(subcommand)]
    pub what: SceneKind,
}

#[derive(clap::Subcommand, Debug, Clone)]
pub enum SceneKind {
    /// A pile of objects in a walled container.
    Pile {
        /// paper (000 Fig. 13) or bench (the peers' reference pile).
        #[arg(long, value_enum, default_value_t = PileKind::Bench)]
        kind: PileKind,
        #[arg(long, default_value_t = 20)]
        n: usize,
        #[arg(long, default_value_t = 7)]
        seed: u64,
    },
    /// A scaling scene of the peer (`bench_scaling.py --write-scenes DIR`: grid_N,
    /// pile_N JSON) as scene TOML.
    FromJson {
        /// The JSON file.
        file: std::path::PathBuf,
        /// Write the TOML here (default: standard output).
        #[arg(short, long)]
        out: Option<std::path::PathBuf>,
    },
}

pub fn scene_main(a: SceneArgs) -> anyhow::Result<()> {
    match a.what {
        SceneKind::Pile { kind, n, seed } => {
            print!("{}", pile_scene(kind, n, seed));
            Ok(())
        }
        SceneKind::FromJson { file, out } => {
            let text = scaling::scene_from_json_file(&file)?;
            match out {
                Some(path) => std::fs::write(&path, text)
                    .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display())),
                None => {
                    print!("{text}");
                    Ok(())
                }
            }
        }
    }
}
