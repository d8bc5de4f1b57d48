//! A simulated haptic device probing the table of config/scenes/haptic_probe.toml:
//! the operator's hand lowers the stylus onto the table and strokes it; the device
//! loop runs at 1 kHz, renders the server's local model between updates through
//! its own passivity controller and force clamp, and reports the contact force,
//! the port energy and the sample → feedback round trip.
//!
//! `cargo run --release --example haptic_device -- [ADDR] [--seconds S] [--delay-ms D]`
//! (ADDR default 127.0.0.1:50051; D injects that delay on the feedback path).
//! A real device: implement `rtphys::haptics::device_loop::DeviceAdapter` over its
//! SDK (read the pose, write the force) and pass it instead of the simulated one.

use rtphys::haptics::device::DeviceModel;
use rtphys::haptics::device_loop::SimulatedAdapter;
use rtphys::math::Vec3;
use rtphys::server::client::{pb, Client};
use rtphys::server::haptic_client::{run_device_loop, LoopConfig};

fn arg(args: &[String], name: &str, default: f64) -> anyhow::Result<f64> {
    match args.iter().position(|a| a == name) {
        Some(i) => Ok(args
            .get(i + 1)
            .ok_or_else(|| anyhow::anyhow!("{name} needs a value"))?
            .parse()?),
        None => Ok(default),
    }
}

fn pct(v: &mut [i64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_unstable();
    v[((p / 100.0) * v.len() as f64) as usize % v.len()] as f64 * 1e-6
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let addr = args
        .first()
        .filter(|a| !a.starts_with("--"))
        .cloned()
        .unwrap_or_else(|| "127.0.0.1:50051".into());
    let seconds = arg(&args, "--seconds", 3.0)?;
    let delay_ms = arg(&args, "--delay-ms", 0.0)?;
    let mut c = Client::connect(&addr).await?;
    let w = c.world().await?;
    let d = w
        .haptic_devices
        .first()
        .ok_or_else(|| anyhow::anyhow!("no haptic device (serve config/scenes/haptic_probe.toml)"))?
        .clone();
    println!(
        "device {:?}: tool {:?}, {}-DoF, scale {}, max force {} N, watchdog {}",
        d.name, d.tool_body, d.dof, d.scale, d.max_force_n, d.watchdog
    );
    let mut lc = LoopConfig::for_device(&d, seconds);
    if delay_ms > 0.0 {
        lc.network = Some(pb::NetworkConditions {
            state_delay_s: delay_ms * 1e-3,
            ..Default::default()
        });
    }
    // Down 6 cm (device) at 3 cm/s onto the table, then stroke ±3 cm in x at 0.5 Hz.
    let w_s = 2.0 * std::f64::consts::PI * 0.5;
    let script = Box::new(move |t: f64| {
        let z = (-0.03 * t).max(-0.06);
        let vz = if z > -0.06 { -0.03 } else { 0.0 };
        let s = (t - 2.0).max(0.0);
        let vx = if s > 0.0 {
            0.03 * w_s * (w_s * s).cos()
        } else {
            0.0
        };
        (
            Vec3::new(0.03 * (w_s * s).sin(), 0.0, z),
            Vec3::new(vx, 0.0, vz),
        )
    });
    let model = DeviceModel {
        mass: 0.15,
        damping: 0.0,
        hand_k: 600.0,
        hand_b: 15.0,
    };
    let dev = SimulatedAdapter::new(model, Vec3::zeros(), script);
    let (mut r, _) = run_device_loop(&mut c, lc, dev).await?;
    let contact = r.rows.iter().filter(|x| x.fb_contact).count();
    let f_max = r.rows.iter().map(|x| x.f.norm()).fold(0.0, f64::max);
    let e_min = r.rows.iter().map(|x| x.energy).fold(0.0, f64::min);
    let (p50, p99) = (pct(&mut r.rtt_ns, 50.0), pct(&mut r.rtt_ns, 99.0));
    println!(
        "{} periods at {:.0} Hz ({} late), {} feedbacks, contact in {contact} periods, \
         max |f| {f_max:.2} N, port energy min {e_min:.2e} J, round trip p50 {p50:.2} ms \
         p99 {p99:.2} ms",
        r.rows.len(),
        r.achieved_hz,
        r.late,
        r.feedbacks
    );
    anyhow::ensure!(r.errors.is_empty(), "samples rejected: {:?}", r.errors);
    anyhow::ensure!(r.status.is_none(), "stream ended: {:?}", r.status);
    anyhow::ensure!(contact > 100, "the stylus never touched the table");
    anyhow::ensure!(f_max <= d.max_force_n + 1e-9, "device force limit");
    anyhow::ensure!(e_min >= -1e-9, "the port went active");
    Ok(())
}
