//! Haptic devices over real gRPC on loopback, with the simulated device (device
//! mass + the operator's hand) run by the device loop at 1 kHz
//! (`server::haptic_client`): the virtual wall's stiffness, passivity under
//! injected delay, the device's limits, the watchdog, bad input.

mod server_common;

use rtphys::config::Mode;
use rtphys::haptics::device::DeviceModel;
use rtphys::haptics::device_loop::{RenderMode, SimulatedAdapter};
use rtphys::haptics::passivity::PortParams;
use rtphys::math::Vec3;
use rtphys::server::client::pb;
use rtphys::server::haptic_client::{run_device_loop, LoopConfig, LoopReport};
use server_common::{cfg, start};

/// A 0.5 kg probe cube (2 cm) coupled to a device whose origin maps to
/// world (0, 0, 0.25); a fixed block whose top is at z = 0.2 (the probe touches
/// it at device z = −0.04). Penalty contact kp = 10,000 N/m (ki = 0: the contact
/// is a spring-damper; the cube's four face corners share it, eq. (3)'s
/// normalization by r, so the face's stiffness is kp), coupling 3,000 N/m:
/// k_eff = 3000·10000/13000 N/m.
fn scene(passivity: bool, max_force: f64, max_rate: f64, watchdog: &str) -> String {
    format!(
        r#"
[world]
gravity = [0.0, 0.0, -9.81]
dt = 0.001
integrator = "semi_implicit_euler"
method = "penalty"

[penalty]
kp = 10000.0
kv = 20.0
ki = 0.0

[[body]]
name = "floor"
static = true
shape = {{ type = "plane" }}

[[body]]
name = "block"
static = true
shape = {{ type = "box", half_extents = [0.2, 0.2, 0.1] }}
position = [0.0, 0.0, 0.1]
material = {{ mu = 0.3 }}

[[body]]
name = "probe"
shape = {{ type = "box", half_extents = [0.01, 0.01, 0.01] }}
mass = 0.5
position = [0.0, 0.0, 0.25]

[[haptic]]
name = "stylus"
tool = "probe"
stiffness = 3000.0
damping = 20.0
offset = [0.0, 0.0, 0.25]
workspace_min = [-0.1, -0.1, -0.1]
workspace_max = [0.1, 0.1, 0.1]
max_force = {max_force}
max_rate = {max_rate}
max_stiffness = 5000.0
passivity = {passivity}
{watchdog}
"#
    )
}

const K_C: f64 = 10_000.0;
const K_COUPLING: f64 = 3_000.0;
/// Device z at which the probe touches the block.
const Z_SURFACE: f64 = -0.04;

fn k_eff() -> f64 {
    K_COUPLING * K_C / (K_COUPLING + K_C)
}

fn hand(k: f64, b: f64) -> DeviceModel {
    DeviceModel {
        mass: 0.15,
        damping: 0.0,
        hand_k: k,
        hand_b: b,
    }
}

fn port(max_force: f64, max_rate: f64, control: bool) -> PortParams {
    PortParams {
        max_force,
        max_rate,
        passivity_control: control,
    }
}

/// The operator lowers the hand from the device origin at `speed` to `depth`
/// below the surface and holds it there.
fn press(speed: f64, depth: f64) -> rtphys::haptics::device_loop::Script {
    let z_end = Z_SURFACE - depth;
    Box::new(move |t: f64| {
        let z = (-speed * t).max(z_end);
        let vz = if z > z_end { -speed } else { 0.0 };
        (Vec3::new(0.0, 0.0, z), Vec3::new(0.0, 0.0, vz))
    })
}

async fn run(
    scene: &str,
    lc: LoopConfig,
    model: DeviceModel,
    script: rtphys::haptics::device_loop::Script,
) -> LoopReport {
    let (h, mut c) = start(cfg(Mode::Realtime), scene).await;
    let adapter = SimulatedAdapter::new(model, Vec3::zeros(), script);
    let (rep, _) = run_device_loop(&mut c, lc, adapter)
        .await
        .expect("device loop runs");
    let _ = h.shutdown().await;
    assert!(rep.status.is_none(), "stream ended with {:?}", rep.status);
    assert!(rep.errors.is_empty(), "samples rejected: {:?}", rep.errors);
    assert!(rep.feedbacks > 0);
    rep
}

/// The tool pressed into the fixed block at 2 cm/s and held: once settled, the
/// force the device renders (its local model at its own position) and the force
/// the server computed (for the sample it applied) are k_eff · penetration within
/// 5 %, penetration being how far the device is below the contact surface.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn virtual_wall_renders_the_series_stiffness() {
    let s = scene(true, 40.0, f64::INFINITY, "");
    let lc = LoopConfig::new("stylus", 4.0, port(40.0, f64::INFINITY, true));
    let rep = run(&s, lc, hand(1000.0, 30.0), press(0.02, 0.015)).await;
    let settled: Vec<_> = rep.rows.iter().filter(|r| r.t > 3.5).collect();
    assert!(settled.len() > 400);
    let (mut pen, mut f_dev, mut f_srv) = (0.0, 0.0, 0.0);
    for r in &settled {
        pen += Z_SURFACE - r.x.z;
        f_dev += r.f.z;
        f_srv += r.fb_force_env.z;
    }
    let n = settled.len() as f64;
    let (pen, f_dev, f_srv) = (pen / n, f_dev / n, f_srv / n);
    let expect = k_eff() * pen;
    println!(
        "virtual wall: penetration {:.3} mm, F device {f_dev:.3} N, F server {f_srv:.3} N, \
         k_eff·p {expect:.3} N; achieved stiffness {:.0} N/m (device) {:.0} N/m (server) \
         vs k_eff {:.0} N/m; loop {:.0} Hz, {} late periods",
        pen * 1e3,
        f_dev / pen,
        f_srv / pen,
        k_eff(),
        rep.achieved_hz,
        rep.late
    );
    assert!(pen > 2e-3, "the device must be pressed in: {pen}");
    assert!(settled.iter().all(|r| r.fb_contact), "contact flag");
    for (what, f) in [("device", f_dev), ("server", f_srv)] {
        assert!(
            (f - expect).abs() < 0.05 * expect,
            "{what}: F = {f} N vs k_eff·p = {expect} N"
        );
    }
    assert!(
        rep.achieved_hz > 950.0,
        "device loop at {} Hz",
        rep.achieved_hz
    );
}
