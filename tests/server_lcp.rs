//! `method = "lcp"` over the server: a scene with the complementarity step is
//! served, stepped in lockstep and reported like any other (real gRPC over
//! loopback to an in-process server).

#[path = "server_common/mod.rs"]
mod common;

use common::*;
use rtphys::config::Mode;
use rtphys::server::client::{joint, servo};

const STACK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/config/scenes/lcp_stack5.toml");

/// The resting 5-stack under LCP, stepped 1 s over the API: GetWorld says "lcp",
/// every box stays put (drift < 1e-4 m, the bound for 10 s), and the
/// solver's counters reach GetStats.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lcp_stack_served_and_stepped() {
    let (srv, mut c) = start_file(cfg(Mode::Lockstep), STACK).await;
    let w = c.world().await.unwrap();
    assert_eq!(w.method, "lcp");
    let s0 = c.state().await.unwrap();
    let s1 = c.step(1000).await.unwrap().state.unwrap();
    assert_eq!(s1.tick, s0.tick + 1000);
    for (a, b) in s0.bodies.iter().zip(&s1.bodies) {
        let d: f64 = a
            .position
            .iter()
            .zip(&b.position)
            .map(|(x, y)| (x - y).powi(2))
            .sum::<f64>()
            .sqrt();
        assert!(d < 1e-4, "body {} drifted {d:e} m in 1 s", a.id);
    }
    let st = c.stats(false).await.unwrap();
    let ph = st.physics.unwrap();
    println!(
        "lcp over the server: LCP size {}, iterations {}, residual {:e}, failures {}, fallbacks {}, unconverged {}",
        ph.lcp_size, ph.solver_iterations, ph.solver_residual, ph.solver_failures,
        ph.solver_fallbacks, ph.solver_unconverged
    );
    assert!(ph.lcp_size > 0, "the solver's problem size is reported");
    srv.shutdown().await.unwrap();
}

/// A robot scene loaded with `method = "lcp"` through LoadScene (TOML text): the
/// arm takes a servo set-point over the API and reaches it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robot_scene_under_lcp_takes_joint_commands() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/config/scenes/");
    let (srv, mut c) = start_file(cfg(Mode::Lockstep), STACK).await;
    let text = std::fs::read_to_string(format!("{dir}arm.toml"))
        .unwrap()
        .replace("method = \"penalty\"", "method = \"lcp\"")
        .replace("../robots/", &format!("{dir}../robots/"));
    let w = c.load_scene_toml(&text, "arm_lcp").await.unwrap();
    assert_eq!(w.method, "lcp");
    assert_eq!(w.joints.len(), 7);
    let q0 = c.state().await.unwrap().joints[0].position;
    c.command_joints(vec![servo(joint("arm/joint1"), q0 + 0.2, 0.0)])
        .await
        .unwrap();
    let s = c.step(3000).await.unwrap().state.unwrap();
    let q = s.joints[0].position;
    println!(
        "arm under lcp: joint1 {q:.6} rad for a set-point {:.6}",
        q0 + 0.2
    );
    // Joint 1 (vertical axis) carries no gravity load: the servo reaches its
    // set-point (kp = 800 N·m/rad, kd = 30 N·m·s/rad: settled well within 3 s).
    assert!((q - (q0 + 0.2)).abs() < 1e-3, "joint1 at {q}");
    srv.shutdown().await.unwrap();
}
