//! Non-finite or absurd state is caught in the step it appears, rolled back, frozen
//! and reported; external wrenches at a point act as Newton–Euler says.

mod common;
use common as common_scene;

use common_scene::load_str;
use rtphys::math::Vec3;
use rtphys::Data;

const SCENE: &str = r#"
[world]
dt = 0.001
gravity = [0.0, 0.0, 0.0]

[[body]]
name = "a"
shape = { type = "box", half_extents = [0.1, 0.2, 0.3] }
mass = 2.0
position = [0.0, 0.0, 1.0]

[[body]]
name = "b"
shape = { type = "sphere", radius = 0.1 }
mass = 1.0
position = [2.0, 0.0, 1.0]
velocity = [0.0, 0.0, 1.0]
"#;

#[test]
fn nan_wrench_quarantines_only_that_body() {
    let model = load_str(SCENE);
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    for _ in 0..10 {
        pipeline.step(&model, &mut data);
    }
    let before = data.state[0];
    data.xfrc[0].force = Vec3::new(f64::NAN, 0.0, 0.0);
    pipeline.step(&model, &mut data);
    assert!(data.frozen[0], "body a not frozen");
    assert_eq!(data.stats.quarantined, 1);
    assert_eq!(
        data.stats.last_quarantine.map(|e| (e.tick, e.body)),
        Some((10, 0))
    );
    assert_eq!(data.state[0].x, before.x, "not rolled back");
    assert!(data.state[0].is_finite());
    // The other body is untouched by the event and keeps moving.
    let z = data.state[1].x.z;
    for _ in 0..10 {
        pipeline.step(&model, &mut data);
    }
    assert!((data.state[1].x.z - z - 0.01).abs() < 1e-12);
    assert_eq!(data.state[0].x, before.x, "a frozen body moved");
    assert_eq!(data.stats.quarantined, 1, "counted once");
}

#[test]
fn absurd_state_is_caught() {
    let model = load_str(SCENE);
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    data.xfrc[1].force = Vec3::new(0.0, 0.0, 1e16);
    pipeline.step(&model, &mut data);
    assert!(data.frozen[1]);
    assert_eq!(data.stats.quarantined, 1);
    assert!(data.state[1].v.norm() == 0.0);
}

/// A force F at a world point p of a free body (no gravity) gives v̇ = F/m and, from
/// rest, the torque τ = (p − x) × F (+ the applied torque): after one semi-implicit
/// Euler step v = h F/m and the world angular momentum I_w(q⁺) ω⁺ = h τ, to 1e-12 (the
/// kick turned the body by h δω, so ω⁺ is read at q⁺: `pipeline::rotation`, "end
/// velocity"); ω⁺ is h I⁻¹ τ to first order (within h |δω| of it).
#[test]
fn wrench_at_point_follows_newton_euler() {
    let model = load_str(SCENE);
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    let f = Vec3::new(3.0, -1.0, 2.0);
    let p = data.state[0].x + Vec3::new(0.1, 0.2, -0.3);
    data.apply_force_at(0, f, p, Vec3::new(0.0, 0.0, 0.5));
    pipeline.step(&model, &mut data);
    let h = model.opt.dt;
    let body = &model.bodies[0];
    let v_expect = f / body.mass * h;
    let tau = Vec3::new(0.1, 0.2, -0.3).cross(&f) + Vec3::new(0.0, 0.0, 0.5);
    let w_expect = body.inv_inertia * tau * h; // orientation is identity
    assert!((data.state[0].v - v_expect).norm() < 1e-12);
    let r = data.state[0].q.to_rotation_matrix();
    let l = r.matrix() * body.inertia * r.matrix().transpose() * data.state[0].w;
    assert!(
        (l - tau * h).norm() < 1e-12,
        "L = {l:?}, h tau = {:?}",
        tau * h
    );
    let dw = (data.state[0].w - w_expect).norm();
    assert!(dw <= h * w_expect.norm() * w_expect.norm(), "{dw:e}");
}
