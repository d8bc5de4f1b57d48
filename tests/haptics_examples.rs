//! The README's haptic examples over real gRPC (in-process realtime server, the
//! simulated device's 1 kHz loop): config/scenes/haptic_push.toml, the 6-DoF
//! multi-rate paddle pushing a crate (`clients/rust/examples/haptic_push.rs`).

mod server_common;

use rtphys::config::Mode;
use rtphys::haptics::scripts;
use rtphys::math::Vec3;
use rtphys::server::haptic_client::{run_device_loop, LoopConfig};
use server_common::{cfg, start};

/// The hand moves the device +x at 3 cm/s for 4 s: the paddle (frictionless face)
/// meets the crate at ≈ 1.8 s and pushes it. The crate moves along +x by the
/// hand's travel past contact (within 1.5 cm: the coupling's and the hand's
/// stretch); during the steady push (2.8–3.9 s, crate at the hand's 3 cm/s) the
/// force balance holds: the force the device renders along −x is the crate's
/// sliding friction μ m g = 0.4 · 0.5 · 9.81 N within 10 %, and the server's
/// environment force agrees; the crate does not move sideways or turn over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn six_dof_tool_pushes_the_box_with_force_balance() {
    let text = std::fs::read_to_string("config/scenes/haptic_push.toml").unwrap();
    let (h, mut c) = start(cfg(Mode::Realtime), &text).await;
    let w = c.world().await.unwrap();
    let d = w.haptic_devices[0].clone();
    assert_eq!((d.dof, d.substeps), (6, 4));
    let crate_id = w.bodies.iter().find(|b| b.name == "crate").unwrap().id;
    let pos = |s: &rtphys::server::client::pb::State| {
        let b = s.bodies.iter().find(|b| b.id == crate_id).unwrap();
        (
            Vec3::new(b.position[0], b.position[1], b.position[2]),
            b.orientation.clone(),
        )
    };
    let (p0, _) = pos(&c.state().await.unwrap());
    let lc = LoopConfig::for_device(&d, 5.0);
    let dev = scripts::simulated_device(scripts::push(0.03, 4.0));
    let (rep, _) = run_device_loop(&mut c, lc, dev).await.expect("device loop");
    let (p1, q1) = pos(&c.state().await.unwrap());
    let _ = h.shutdown().await;
    assert!(rep.errors.is_empty(), "{:?}", rep.errors);
    let moved = p1 - p0;
    // Contact at device x = 0.1 − 0.04 − 0.005 = 0.055 m; the hand ends at 0.12 m.
    let travel = 0.12 - 0.055;
    let steady: Vec<_> = rep.rows.iter().filter(|r| r.t > 2.8 && r.t < 3.9).collect();
    let n = steady.len() as f64;
    let f_dev = steady.iter().map(|r| r.f.x).sum::<f64>() / n;
    let f_srv = steady.iter().map(|r| r.fb_force_env.x).sum::<f64>() / n;
    let friction = 0.4 * 0.5 * 9.81;
    println!(
        "push: crate moved {:.1} mm (hand travel past contact {:.1} mm), sideways {:.2} mm; \
         device force {f_dev:.3} N, server force {f_srv:.3} N vs −μ m g = {:.3} N; loop {:.0} Hz",
        moved.x * 1e3,
        travel * 1e3,
        moved.y * 1e3,
        -friction,
        rep.achieved_hz
    );
    assert!(steady.len() > 800, "{} steady periods", steady.len());
    assert!(
        steady.iter().all(|r| r.fb_contact),
        "in contact while pushing"
    );
    assert!(
        (moved.x - travel).abs() < 0.015,
        "crate moved {} m vs the hand's {travel} m",
        moved.x
    );
    assert!(moved.y.abs() < 2e-3 && moved.z.abs() < 2e-3, "{moved:?}");
    assert!((q1[0].abs() - 1.0).abs() < 1e-3, "the crate turned: {q1:?}");
    for (what, f) in [("device", f_dev), ("server", f_srv)] {
        assert!(
            (f + friction).abs() < 0.10 * friction,
            "{what}: {f} N vs −μ m g = {} N",
            -friction
        );
    }
}
