//! `rtphys plot` (filled in below).

#[derive(clap::Args, Debug, Clone)]
pub struct PlotArgs {
    /// Output directory for the PNGs.
    #[arg(long, default_value = "docs/img")]
    pub out: std::path::PathBuf,
}

pub fn plot_main(a: PlotArgs) -> anyhow::Result<()> {
    let _ = a;
    anyhow::bail!("plot: not implemented yet")
}
