//! A 6-DoF tool pushing a box (config/scenes/haptic_push.toml): the simulated
//! device's hand moves +x at 3 cm/s for 4 s; the paddle meets the crate and pushes
//! it across the floor; the device renders the crate's sliding friction.
//!
//! `cargo run --release -- serve --scene config/scenes/haptic_push.toml` then
//! `cargo run --release --example haptic_push -- [ADDR]` (default 127.0.0.1:50051).

use rtphys::haptics::scripts;
use rtphys::server::client::Client;
use rtphys::server::haptic_client::{run_device_loop, LoopConfig};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:50051".into());
    let mut c = Client::connect(&addr).await?;
    let w = c.world().await?;
    let d = w
        .haptic_devices
        .iter()
        .find(|d| d.name == "hand6")
        .ok_or_else(|| anyhow::anyhow!("no device 'hand6' (serve config/scenes/haptic_push.toml)"))?
        .clone();
    let crate_id = w
        .bodies
        .iter()
        .find(|b| b.name == "crate")
        .map(|b| b.id)
        .ok_or_else(|| anyhow::anyhow!("no body 'crate'"))?;
    let x0 = crate_x(&mut c, crate_id).await?;
    let lc = LoopConfig::for_device(&d, 5.0);
    let dev = scripts::simulated_device(scripts::push(0.03, 4.0));
    let (r, _) = run_device_loop(&mut c, lc, dev).await?;
    let x1 = crate_x(&mut c, crate_id).await?;
    let steady: Vec<_> = r.rows.iter().filter(|x| x.t > 2.8 && x.t < 3.9).collect();
    let fx = steady.iter().map(|x| x.f.x).sum::<f64>() / steady.len().max(1) as f64;
    println!(
        "{}-DoF tool at {} tool sub-steps per tick: crate moved {:.1} mm along x; \
         the device felt {fx:.3} N along x while pushing (μ m g = {:.3} N)",
        d.dof,
        d.substeps,
        (x1 - x0) * 1e3,
        0.4 * 0.5 * 9.81
    );
    anyhow::ensure!(r.errors.is_empty(), "samples rejected: {:?}", r.errors);
    anyhow::ensure!(x1 - x0 > 0.02, "the crate did not move");
    Ok(())
}

async fn crate_x(c: &mut Client, id: u32) -> anyhow::Result<f64> {
    let s = c.state().await?;
    let b = s
        .bodies
        .iter()
        .find(|b| b.id == id)
        .ok_or_else(|| anyhow::anyhow!("crate not in the state"))?;
    Ok(b.position[0])
}
