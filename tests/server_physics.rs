//! A Rust client drives the server over real gRPC on loopback and the motion is
//! checked against physics: free fall, a constant wrench in free space, wrench
//! durations, points of application, body-frame wrenches, clearing.

#[path = "server_common/mod.rs"]
mod common;

use common::*;
use rtphys::config::Mode;
use rtphys::server::client::{body, pb};

const G: f64 = 9.81;
const H: f64 = 1e-3;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn falling_box_follows_free_fall() {
    let (srv, mut c) = start(cfg(Mode::Lockstep), FALL).await;
    let w = c.world().await.unwrap();
    assert_eq!(w.bodies.len(), 2);
    assert_eq!(w.bodies[1].name, "box");
    assert_eq!(w.method, "penalty");
    let r = c.step(200).await.unwrap();
    assert_eq!(r.tick, 200);
    let s = r.state.expect("step returns the state");
    assert_eq!(s.tick, 200);
    let b = bs(&s, 1);
    let t = 0.2;
    // Semi-implicit Euler is exact in v and O(h) in z; the bound also admits RK4.
    assert_close(b.linear_velocity[2], -G * t, 1e-9, "vz");
    assert_close(b.position[2], 10.0 - 0.5 * G * t * t, G * H * t + 1e-9, "z");
    assert_close(b.position[0], 0.0, 1e-12, "x");

    // The same fall driven tick by tick by a lockstep controller: one command, one tick.
    let mut ctl = c
        .control(pb::ControlHello {
            name: "fall".into(),
            lockstep: true,
            ..Default::default()
        })
        .await
        .unwrap();
    let first = ctl.next_state().await.unwrap().unwrap();
    assert_eq!(first.tick, 200);
    for i in 1..=50u64 {
        let seq = ctl.send(vec![], false).await.unwrap();
        let s = ctl.wait_ack(seq).await.unwrap();
        let a = ctl.own_ack(&s).unwrap();
        assert_eq!(s.tick, 200 + i, "exactly one tick per command");
        assert_eq!(
            a.applied_tick,
            s.tick - 1,
            "applied at the boundary before the step"
        );
        let t = s.sim_time;
        assert_close(bs(&s, 1).linear_velocity[2], -G * t, 1e-9, "vz (lockstep)");
    }
    srv.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrench_accelerates_body_in_free_space() {
    let (srv, mut c) = start(cfg(Mode::Lockstep), ZERO_G).await;
    let m = 2.0;
    let (hx, hy) = (0.1, 0.2);
    let izz = m / 3.0 * (hx * hx + hy * hy);
    let rep = c
        .apply_wrench(pb::BodyWrench {
            body: Some(body("probe")),
            force: vec![4.0, 0.0, 0.0],
            torque: vec![0.0, 0.0, 0.5],
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(rep.applied_tick, 0);
    let s = c.step(100).await.unwrap().state.unwrap();
    let b = bs(&s, 1);
    let t = 0.1;
    assert_close(b.linear_velocity[0], 4.0 / m * t, 1e-12, "vx = F/m t");
    assert_close(
        b.position[0],
        0.5 * 4.0 / m * t * t,
        4.0 / m * H * t + 1e-12,
        "x",
    );
    assert_close(b.angular_velocity[2], 0.5 / izz * t, 1e-9, "wz = tau/Izz t");
    assert_eq!(
        b.force,
        vec![4.0, 0.0, 0.0],
        "state reports the applied force"
    );
    assert_close(b.torque[2], 0.5, 1e-12, "state reports the applied torque");

    // Cleared: the velocity stays constant afterwards.
    c.clear_wrenches(vec![]).await.unwrap();
    let s2 = c.step(10).await.unwrap().state.unwrap();
    let b2 = bs(&s2, 1);
    assert_eq!(b2.force, vec![0.0, 0.0, 0.0]);
    assert_eq!(
        b2.linear_velocity[0].to_bits(),
        b.linear_velocity[0].to_bits()
    );
    srv.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrench_duration_point_and_body_frame() {
    let (srv, mut c) = start(cfg(Mode::Lockstep), ZERO_G).await;
    let m = 2.0;
    // 50 ms of 2 N, then nothing: v = F/m * 0.05 whatever happens later.
    c.apply_wrench(pb::BodyWrench {
        body: Some(body("probe")),
        force: vec![0.0, 2.0, 0.0],
        duration_s: 0.05,
        ..Default::default()
    })
    .await
    .unwrap();
    let s = c.step(100).await.unwrap().state.unwrap();
    let b = bs(&s, 1);
    assert_close(
        b.linear_velocity[1],
        2.0 / m * 0.05,
        1e-12,
        "vy after a 50 ms push",
    );
    assert_eq!(b.force, vec![0.0, 0.0, 0.0], "expired");

    // A force at a point 0.1 m off the COM along y: torque = r x F.
    c.reset().await.unwrap();
    c.apply_wrench(pb::BodyWrench {
        body: Some(body("probe")),
        force: vec![1.0, 0.0, 0.0],
        point: vec![0.0, 0.1, 1.0],
        ..Default::default()
    })
    .await
    .unwrap();
    let s = c.step(1).await.unwrap().state.unwrap();
    let b = bs(&s, 1);
    assert_close(b.torque[2], -0.1, 1e-12, "tau_z = (r x F)_z");
    assert_close(b.force[0], 1.0, 0.0, "force");

    // A body-frame force turns with the body: rotate it 90° about z first.
    c.reset().await.unwrap();
    c.load_scene_toml(
        &ZERO_G.replace(
            "position = [0.0, 0.0, 1.0]",
            "position = [0.0, 0.0, 1.0]\nrpy = [0.0, 0.0, 1.5707963267948966]",
        ),
        "rotated",
    )
    .await
    .unwrap();
    c.apply_wrench(pb::BodyWrench {
        body: Some(body("probe")),
        force: vec![1.0, 0.0, 0.0],
        frame: pb::Frame::Body as i32,
        ..Default::default()
    })
    .await
    .unwrap();
    let s = c.step(1).await.unwrap().state.unwrap();
    let b = bs(&s, 1);
    assert_close(b.force[0], 0.0, 1e-12, "body x is world y: fx");
    assert_close(b.force[1], 1.0, 1e-12, "body x is world y: fy");
    srv.shutdown().await.unwrap();
}

/// A Hunt–Crossley world served over gRPC (002): a ball dropped from 1 m onto a plane
/// with restitution 0.5 (exact damping rule, adaptive sub-steps) rebounds to
/// e²·h = 0.25 m within 3 % — the same figure the offline test asserts — when stepped
/// in lockstep through the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hunt_crossley_world_over_grpc_bounces_with_its_restitution() {
    const HC_DROP: &str = r#"
[world]
gravity = [0.0, 0.0, -9.81]
dt = 0.001
integrator = "semi_implicit_euler"
method = "hunt_crossley"

[hunt_crossley]
adaptive = true
penetration_fraction = 1e-5

[[body]]
name = "floor"
static = true
shape = { type = "plane" }
material = { mu = 0.0, restitution = 0.5 }

[[body]]
name = "ball"
shape = { type = "sphere", radius = 0.1 }
mass = 1.0
position = [0.0, 0.0, 1.1]
material = { mu = 0.0, restitution = 0.5 }
"#;
    let (srv, mut c) = start(cfg(Mode::Lockstep), HC_DROP).await;
    let w = c.world().await.unwrap();
    assert_eq!(w.method, "hunt_crossley");
    // Fall (≈ 0.45 s), bounce, rise: track the apex after the first upward motion.
    let (mut rising, mut apex) = (false, f64::NEG_INFINITY);
    for _ in 0..120 {
        let s = c.step(10).await.unwrap().state.expect("state");
        let b = bs(&s, 1);
        if b.linear_velocity[2] > 0.0 {
            rising = true;
        }
        if rising {
            apex = apex.max(b.position[2] - 0.1);
            if b.linear_velocity[2] < 0.0 {
                break;
            }
        }
    }
    assert!(rising, "the ball never bounced");
    let want = 0.25;
    assert!(
        ((apex - want) / want).abs() < 0.03,
        "apex {apex} m, e²h = {want} m"
    );
    srv.shutdown().await.unwrap();
}

/// An acknowledged Pause, Resume or SetMode is visible in the very next GetState:
/// the physics thread publishes the new flags before it replies (a reply ahead of
/// the published state made a GetState right after Pause read `paused = false`
/// under load). In `max` mode the world advances between the calls, so a stale
/// state would also show a moving tick while paused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pause_and_resume_are_published_before_they_are_acknowledged() {
    let (srv, mut c) = start(cfg(Mode::Max), FALL).await;
    for i in 0..100 {
        let p = c
            .raw
            .pause(pb::PauseRequest {})
            .await
            .expect("Pause")
            .into_inner();
        let s = state(&mut c).await;
        assert!(s.paused, "round {i}: GetState after an acknowledged Pause");
        let s2 = state(&mut c).await;
        assert_eq!(
            s2.tick, s.tick,
            "round {i}: a paused world does not advance"
        );
        assert_eq!(
            p.tick, s.tick,
            "round {i}: Pause's reply names the published tick"
        );
        c.raw.resume(pb::ResumeRequest {}).await.expect("Resume");
        let s = state(&mut c).await;
        assert!(
            !s.paused,
            "round {i}: GetState after an acknowledged Resume"
        );
    }
    srv.shutdown().await.unwrap();
}

async fn state(c: &mut rtphys::server::client::Client) -> pb::State {
    c.raw
        .get_state(pb::GetStateRequest {
            fields: vec![],
            bodies: vec![],
        })
        .await
        .expect("GetState")
        .into_inner()
}
