//! A floating robot carrying a fast wheel (docs/EXPERIMENTS.md, "Outside scenes,
//! session 37"): a gyrostat.
//!
//! A base (2 kg, principal moments 0.010, 0.012, 0.015 kg m²) with a floating joint
//! carries a wheel (1 kg, 0.0025, 0.0025, 0.005 kg m²) on a continuous joint along the
//! base's z, 10 cm above the base's centre; no gravity, no contact, no torque. Started
//! with the wheel at `spin` rad/s and the base turning at (0.5, 0.2, 0) rad/s, the
//! system is torque-free: its kinetic energy and its angular momentum are conserved
//! exactly (the wheel's joint is frictionless, so its relative spin is a free
//! coordinate too). The wheel's momentum (0.75 kg m²/s at 150 rad/s) makes the base
//! nutate at ≈ I_w ω_w / I_base ≈ 60 rad/s.

use rtphys::dynamics::{energy, forward_velocity, spatial_momentum, ArticulatedData};
use rtphys::model::scene::load_scene_str;
use rtphys::{Data, Pipeline};

const URDF: &str = r#"<?xml version="1.0"?>
<robot name="gyro">
  <link name="base">
    <inertial><origin xyz="0 0 0"/><mass value="2.0"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.012" iyz="0" izz="0.015"/></inertial>
    <collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision>
  </link>
  <link name="wheel">
    <inertial><origin xyz="0 0 0"/><mass value="1.0"/>
      <inertia ixx="0.0025" ixy="0" ixz="0" iyy="0.0025" iyz="0" izz="0.005"/></inertial>
  </link>
  <joint name="spin" type="continuous">
    <parent link="base"/><child link="wheel"/><origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>
  </joint>
</robot>
"#;

/// (largest |ΔE|/E, largest |ΔL|/|L|) over `seconds` of the gyrostat under
/// `integrator` at step `h` with the wheel at `spin` rad/s; `None` if the state was
/// quarantined (non-finite or absurd).
fn gyrostat(integrator: &str, h: f64, spin: f64, seconds: f64) -> Option<(f64, f64)> {
    let dir = std::env::temp_dir().join(format!("rtphys_robot_gyro_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("gyro.urdf"), URDF).expect("urdf");
    let text = format!(
        "[world]\ngravity = [0.0, 0.0, 0.0]\ndt = {h:?}\nmethod = \"penalty\"\n\
         integrator = \"{integrator}\"\n\n[[robot]]\nurdf = \"gyro.urdf\"\n\
         base = \"floating\"\nposition = [0.0, 0.0, 1.0]\n"
    );
    let model = load_scene_str(&text, "<gyro>", &dir).unwrap_or_else(|e| panic!("{e}"));
    let mut data = Data::new(&model);
    let mut pipeline = Pipeline::new(&model);
    let r = &model.robots[0];
    let (qo, vo, nq, nv) = (r.q_offset, r.v_offset, r.nq(), r.nv());
    data.qvel[vo] = 0.5;
    data.qvel[vo + 1] = 0.2;
    data.qvel[vo + nv - 1] = spin;
    data.edited();
    let mut ad = ArticulatedData::new(&r.tree);
    let mut measure = |d: &Data| {
        let (q, v) = (&d.qpos[qo..qo + nq], &d.qvel[vo..vo + nv]);
        forward_velocity(&r.tree, &mut ad, q, v).expect("velocities");
        let l = spatial_momentum(&r.tree, &ad).ang;
        (energy(&r.tree, &mut ad, q, v).expect("energy").kinetic, l)
    };
    let (e0, l0) = measure(&data);
    let (mut de, mut dl) = (0.0f64, 0.0f64);
    for _ in 0..(seconds / h).round() as usize {
        pipeline.step(&model, &mut data);
        if data.stats.quarantined > 0 {
            return None;
        }
        let (e, l) = measure(&data);
        de = de.max((e / e0 - 1.0).abs());
        dl = dl.max((l - l0).norm() / l0.norm());
    }
    println!(
        "{integrator} h = {h}, wheel {spin} rad/s, {seconds} s: |dE|/E {de:.3e}, |dL|/|L| {dl:.3e}"
    );
    Some((de, dl))
}

/// RK4 keeps the gyrostat's energy and momentum for 20 s at h = 1 ms with the wheel at
/// 150 rad/s: within 1e-8 (measured 3.7e-11 and 7.5e-11; RK4's error here is of order
/// (60 h)⁵ a step).
#[test]
fn a_floating_robot_with_a_fast_wheel_keeps_its_energy_under_rk4() {
    let (de, dl) = gyrostat("rk4", 1e-3, 150.0, 20.0).expect("quarantined");
    assert!(de <= 1e-8 && dl <= 1e-8, "|dE|/E {de:e}, |dL|/|L| {dl:e}");
}

/// The articulated semi-implicit Euler (v ← v + h v̇(q, v), then q from v⁺) takes the
/// velocity-product (gyroscopic, Coriolis) terms explicitly, and explicit gyroscopic
/// terms pump energy: with the wheel at 150 rad/s and h = 1 ms the energy grows
/// +7.5e-4 (2 s), +1.3e-2 (4 s), +0.21 (6 s), ×5.9 (8 s), and the state is
/// quarantined before 10 s; at 30 rad/s +1.5e-4 (2 s) … +2.5e-3 (20 s), at 10 rad/s
/// +1.5e-3 (20 s); at h = 0.1 ms and 150 rad/s +7.5e-4 (20 s), still accelerating.
/// Asserted: within 1 % over 20 s at h = 1 ms. Found, not fixed (session 37): the free
/// bodies' step carries the momentum (`pipeline::rotation`); the tree's does not.
#[test]
#[ignore = "found, not fixed (session 37): the articulated semi-implicit Euler takes gyroscopic terms explicitly; a floating base with a 150 rad/s wheel gains energy x5.9 by 8 s at h = 1 ms and is quarantined before 10 s"]
fn a_floating_robot_with_a_fast_wheel_keeps_its_energy_under_semi_implicit_euler() {
    let (de, dl) = gyrostat("semi_implicit_euler", 1e-3, 150.0, 20.0).expect("quarantined");
    assert!(de <= 1e-2 && dl <= 1e-2, "|dE|/E {de:e}, |dL|/|L| {dl:e}");
}
