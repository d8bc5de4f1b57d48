//! `rtphys bench` (filled in below).

#[derive(clap::Args, Debug, Clone)]
pub struct BenchArgs {
    /// physics (default) or transport.
    #[arg(default_value = "physics")]
    pub what: String,
}

pub fn bench_main(a: BenchArgs) -> anyhow::Result<()> {
    let _ = a;
    anyhow::bail!("bench: not implemented yet")
}
