//! Transport benchmark: `cargo run --release --example transport_bench -- [messages] [lateness_secs] [fanout_secs]`
//! Environment: RTPHYS_LOCKSTEP_SPIN_US, RTPHYS_FIFO_PRIORITY, RTPHYS_CPU, RTPHYS_FANOUT_SUBSCRIBERS.
//! Prints JSON (see docs/BENCHMARKS_SERVER.md).

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let mut o = rtphys::server::bench::TransportBenchOpts::default();
    if let Some(v) = a.first() {
        o.messages = v.parse()?;
    }
    if let Some(v) = a.get(1) {
        o.lateness_secs = v.parse()?;
    }
    if let Some(v) = a.get(2) {
        o.fanout_secs = v.parse()?;
    }
    if let Ok(v) = std::env::var("RTPHYS_LOCKSTEP_SPIN_US") {
        o.lockstep_spin_us = v.parse()?;
    }
    if let Ok(v) = std::env::var("RTPHYS_FIFO_PRIORITY") {
        o.fifo_priority = v.parse()?;
    }
    if let Ok(v) = std::env::var("RTPHYS_CPU") {
        o.cpu = v.parse()?;
    }
    if let Ok(v) = std::env::var("RTPHYS_FANOUT_SUBSCRIBERS") {
        o.fanout_subscribers = v.parse()?;
    }
    let r = rtphys::server::bench::transport_bench(&o)?;
    println!("{}", serde_json::to_string_pretty(&r)?);
    Ok(())
}
