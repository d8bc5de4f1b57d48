//! The 7-DoF arm teleoperated by a simulated haptic device
//! (config/scenes/haptic_teleop.toml, src/haptics/teleop.rs): the operator's hand
//! (`rtphys::haptics::scripts::teleop`) moves the arm's link in free space, lowers
//! it onto the table, presses, slides and releases; the device loop runs at 1 kHz
//! and renders the table's force on the link.
//!
//! `cargo run --release -- serve --scene config/scenes/haptic_teleop.toml` then
//! `cargo run --release --example haptic_teleop -- [ADDR]` (default 127.0.0.1:50051).

use rtphys::haptics::scripts;
use rtphys::math::Vec3;
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
        .find(|d| d.name == "teleop")
        .ok_or_else(|| {
            anyhow::anyhow!("no device 'teleop' (serve config/scenes/haptic_teleop.toml)")
        })?
        .clone();
    let lc = LoopConfig::for_device(&d, scripts::TELEOP_SECS);
    let dev = scripts::simulated_device(scripts::teleop());
    let (r, _) = run_device_loop(&mut c, lc, dev).await?;
    let mean = |a: f64, b: f64| {
        let w: Vec<_> = r.rows.iter().filter(|x| x.t >= a && x.t < b).collect();
        w.iter().map(|x| x.f).sum::<Vec3>() / w.len().max(1) as f64
    };
    for (name, t0, dur, _) in scripts::TELEOP_SEGMENTS {
        let f = mean(t0, t0 + dur);
        let contact = r
            .rows
            .iter()
            .filter(|x| x.t >= t0 && x.t < t0 + dur)
            .any(|x| x.fb_contact);
        println!(
            "{name:>8} {t0:.1}–{:.1} s: mean device force [{:6.2} {:6.2} {:6.2}] N, contact {contact}",
            t0 + dur,
            f.x,
            f.y,
            f.z
        );
    }
    let e_min = r.rows.iter().map(|x| x.energy).fold(0.0, f64::min);
    println!(
        "{} periods at {:.0} Hz ({} late), {} feedbacks, port energy min {e_min:.2e} J",
        r.rows.len(),
        r.achieved_hz,
        r.late,
        r.feedbacks
    );
    anyhow::ensure!(r.errors.is_empty(), "samples rejected: {:?}", r.errors);
    anyhow::ensure!(r.status.is_none(), "stream ended: {:?}", r.status);
    anyhow::ensure!(
        r.rows.iter().any(|x| x.fb_contact),
        "the link never touched the table"
    );
    Ok(())
}
