//! gRPC services over the runtime (to be written).

/// `rtphys serve` arguments.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ServeArgs {
    /// Server settings file (TOML); defaults are documented in config/server.toml.
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    /// Scene file; without it the embedded default scene is served.
    #[arg(long)]
    pub scene: Option<std::path::PathBuf>,
    /// Listen address, e.g. 127.0.0.1:50051.
    #[arg(long)]
    pub listen: Option<String>,
}

/// Entry point of `rtphys serve`.
pub fn serve_main(args: ServeArgs) -> anyhow::Result<()> {
    let _ = args;
    anyhow::bail!("serve is not implemented yet")
}
