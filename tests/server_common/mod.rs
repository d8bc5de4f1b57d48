//! Shared helpers of the server tests: an in-process server on an ephemeral
//! loopback port and a typed client connected to it.
#![allow(dead_code)]

use rtphys::config::{Config, Mode};
use rtphys::server::client::{pb, Client};
use rtphys::server::ServerHandle;

/// A 2 kg box in free space (no gravity), plus a static plane far below it.
pub const ZERO_G: &str = r#"
[world]
gravity = [0.0, 0.0, 0.0]
dt = 0.001
integrator = "semi_implicit_euler"
method = "penalty"

[[body]]
name = "ground"
static = true
shape = { type = "plane" }
position = [0.0, 0.0, -100.0]

[[body]]
name = "probe"
shape = { type = "box", half_extents = [0.1, 0.2, 0.3] }
mass = 2.0
position = [0.0, 0.0, 1.0]
"#;

/// A box released 10 m above a floor.
pub const FALL: &str = r#"
[world]
gravity = [0.0, 0.0, -9.81]
dt = 0.001
integrator = "semi_implicit_euler"
method = "penalty"

[[body]]
name = "floor"
static = true
shape = { type = "plane" }

[[body]]
name = "box"
shape = { type = "box", half_extents = [0.1, 0.1, 0.1] }
mass = 1.0
position = [0.0, 0.0, 10.0]
"#;

pub fn cfg(mode: Mode) -> Config {
    let mut c = Config::default();
    c.physics.mode = mode;
    c.physics.spin_us = 20;
    c
}

pub async fn start(cfg: Config, scene: &str) -> (ServerHandle, Client) {
    let model = rtphys::model::scene::load_scene_str(scene, "test.toml", std::path::Path::new("."))
        .expect("test scene loads");
    let h = rtphys::server::spawn(cfg, model, "test", "127.0.0.1:0")
        .await
        .expect("server starts");
    let c = Client::connect(&h.url()).await.expect("client connects");
    (h, c)
}

pub async fn start_default(cfg: Config) -> (ServerHandle, Client) {
    start(cfg, rtphys::server::DEFAULT_SCENE).await
}

pub fn bs(s: &pb::State, id: u32) -> &pb::BodyState {
    s.bodies.iter().find(|b| b.id == id).expect("body in state")
}

/// Every number of every body, as bits (for bitwise comparisons).
pub fn state_bits(s: &pb::State) -> Vec<u64> {
    let mut v = vec![s.tick, s.sim_time.to_bits()];
    for b in &s.bodies {
        for x in b
            .position
            .iter()
            .chain(&b.orientation)
            .chain(&b.linear_velocity)
            .chain(&b.angular_velocity)
            .chain(&b.force)
            .chain(&b.torque)
        {
            v.push(x.to_bits());
        }
    }
    v
}

pub fn assert_close(a: f64, b: f64, tol: f64, what: &str) {
    assert!((a - b).abs() <= tol, "{what}: {a} vs {b} (tolerance {tol})");
}

/// A server on a scene file (relative to the crate root).
pub async fn start_file(cfg: Config, path: &str) -> (ServerHandle, Client) {
    let model = rtphys::model::scene::load_scene_file(path).expect("scene file loads");
    let h = rtphys::server::spawn(cfg, model, path, "127.0.0.1:0")
        .await
        .expect("server starts");
    let c = Client::connect(&h.url()).await.expect("client connects");
    (h, c)
}

/// Every number of the robot sections (joints, frames, sensors) and the bodies, as bits.
pub fn robot_bits(s: &pb::State) -> Vec<u64> {
    let mut v = state_bits(s);
    for j in &s.joints {
        for x in [j.position, j.velocity, j.effort, j.passive, j.acceleration] {
            v.push(x.to_bits());
        }
    }
    for f in &s.frames {
        for x in f
            .position
            .iter()
            .chain(&f.orientation)
            .chain(&f.linear_velocity)
            .chain(&f.angular_velocity)
        {
            v.push(x.to_bits());
        }
    }
    for r in &s.sensors {
        v.extend(r.values.iter().map(|x| x.to_bits()));
    }
    v
}
