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
/// `method` and `integrator` at step `h` with the wheel at `spin` rad/s; `None` if
/// the state was quarantined (non-finite or absurd).
fn gyrostat(method: &str, integrator: &str, h: f64, spin: f64, seconds: f64) -> Option<(f64, f64)> {
    let dir = std::env::temp_dir().join(format!("rtphys_robot_gyro_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("gyro.urdf"), URDF).expect("urdf");
    let text = format!(
        "[world]\ngravity = [0.0, 0.0, 0.0]\ndt = {h:?}\nmethod = \"{method}\"\n\
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
        "{method}, {integrator} h = {h}, wheel {spin} rad/s, {seconds} s: |dE|/E {de:.3e}, |dL|/|L| {dl:.3e}"
    );
    Some((de, dl))
}

/// RK4 keeps the gyrostat's energy and momentum for 20 s at h = 1 ms with the wheel at
/// 150 rad/s: within 1e-8 (measured 3.7e-11 and 7.5e-11; RK4's error here is of order
/// (60 h)⁵ a step).
#[test]
fn a_floating_robot_with_a_fast_wheel_keeps_its_energy_under_rk4() {
    let (de, dl) = gyrostat("penalty", "rk4", 1e-3, 150.0, 20.0).expect("quarantined");
    assert!(de <= 1e-8 && dl <= 1e-8, "|dE|/E {de:e}, |dL|/|L| {dl:e}");
}

/// The `implicit` integrator (`dynamics::implicit`: the velocity products taken by
/// the linearized midpoint, (M̃ + ½h D) Δv = h M̃ q̈) keeps the gyrostat's energy to
/// round-off and its momentum to first order in h, under penalty and under the LCP
/// step (whose robots' free velocity it makes), at h = 1 ms with the wheel at
/// 150 rad/s over 20 s: |ΔE|/E ≤ 1e-9 (measured 5.4e-13 both), |ΔL|/|L| ≤ 1e-3
/// (measured 5.4e-4; 2.7e-4 at h = 0.5 ms and 1.09e-3 at 2 ms: the first-order
/// error of q ← q + h q̇(q, v⁺), not a drift of the velocity step).
///
/// The default semi-implicit Euler takes those terms explicitly, as MuJoCo's
/// `Euler` and `implicitfast` do, and pumps energy on this robot: +7.5e-4 (2 s),
/// +1.3e-2 (4 s), +0.21 (6 s), ×5.9 (8 s), quarantined before 10 s (at 30 rad/s
/// +2.5e-3 over 20 s); penalty and LCP alike (session 37/38,
/// `benches/scripts/gyrostat_mujoco_37.py` for MuJoCo's).
#[test]
fn a_floating_robot_with_a_fast_wheel_keeps_its_energy_under_the_implicit_integrator() {
    for method in ["penalty", "lcp"] {
        let (de, dl) = gyrostat(method, "implicit", 1e-3, 150.0, 20.0).expect("quarantined");
        assert!(
            de <= 1e-9 && dl <= 1e-3,
            "{method}: |dE|/E {de:e}, |dL|/|L| {dl:e}"
        );
    }
}

/// On the robot scenes, where no joint spins fast, the `implicit` integrator steps
/// as semi-implicit Euler does: the scenes' 2 s end configurations differ by at
/// most 1e-5 (rad or m; measured humanoid 3.5e-8, arm on the table 1.5e-6, the
/// rover 1.5e-7). The two schemes differ by h θ D Δv a step, D ∝ |v|: small at
/// these speeds, and neither quarantines.
#[test]
fn the_implicit_integrator_steps_slow_robots_as_semi_implicit_euler() {
    for scene in ["humanoid", "arm_table", "diffdrive"] {
        let path = format!("config/scenes/{scene}.toml");
        let dir = std::path::Path::new(&path)
            .parent()
            .expect("scene directory")
            .to_path_buf();
        let text = std::fs::read_to_string(&path).expect("scene");
        assert!(
            text.contains("integrator = \"semi_implicit_euler\""),
            "{path}"
        );
        let mut ends = vec![];
        for integrator in ["semi_implicit_euler", "implicit"] {
            let text = text.replace(
                "integrator = \"semi_implicit_euler\"",
                &format!("integrator = \"{integrator}\""),
            );
            let model = load_scene_str(&text, &path, &dir).unwrap_or_else(|e| panic!("{e}"));
            let mut data = Data::new(&model);
            let mut pipeline = Pipeline::new(&model);
            for _ in 0..2000 {
                pipeline.step(&model, &mut data);
            }
            assert_eq!(data.stats.quarantined, 0, "{scene} {integrator}");
            ends.push(data.qpos.clone());
        }
        let d = ends[0]
            .iter()
            .zip(&ends[1])
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        println!("{scene}: max |q_implicit − q_semi_implicit| after 2 s = {d:e}");
        assert!(d <= 1e-5, "{scene}: {d:e}");
    }
}

/// The arm of `config/robots/arm7.urdf` (fixed base, 7 DoF) with its joints made
/// free (continuous, undamped), no gravity and no servo, carrying a spindle: a
/// 1 kg disc (0.0025, 0.0025, 0.005 kg m²) on a continuous joint 2 cm past the
/// flange. Started with the joints at ±0.5 rad/s (alternating) and the spindle at
/// 300 rad/s, the system is conservative: its kinetic energy is constant. The
/// arm's motion is (kinetic energy, end configuration) after `seconds` under
/// `integrator` at `h`; `None` if quarantined.
/// With `print`, the energy's change and joint 1 every 2 s (the EXPERIMENTS table).
fn spindle_arm(integrator: &str, h: f64, seconds: f64, print: bool) -> Option<(f64, Vec<f64>)> {
    let arm = std::fs::read_to_string("config/robots/arm7.urdf").expect("urdf");
    let arm = arm
        .replace("damping=\"0.05\"", "damping=\"0\"")
        .replace("damping=\"0.1\"", "damping=\"0\"")
        .replace("type=\"revolute\"", "type=\"continuous\"")
        .replace(
            "  <link name=\"tool0\"/>\n</robot>",
            "  <link name=\"tool0\"/>\n  <joint name=\"spindle\" type=\"continuous\">\
             <parent link=\"tool0\"/><child link=\"disc\"/><origin xyz=\"0 0 0.02\"/>\
             <axis xyz=\"0 0 1\"/></joint>\n  <link name=\"disc\"><inertial>\
             <origin xyz=\"0 0 0\"/><mass value=\"1.0\"/><inertia ixx=\"0.0025\" ixy=\"0\" \
             ixz=\"0\" iyy=\"0.0025\" iyz=\"0\" izz=\"0.005\"/></inertial></link>\n</robot>",
        );
    assert!(arm.contains("spindle") && !arm.contains("revolute") && !arm.contains("damping=\"0."));
    let dir = std::env::temp_dir().join(format!("rtphys_spindle_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("arm.urdf"), arm).expect("urdf");
    let text = format!(
        "[world]\ngravity = [0.0, 0.0, 0.0]\ndt = {h:?}\nmethod = \"penalty\"\n\
         integrator = \"{integrator}\"\n\n[[robot]]\nurdf = \"arm.urdf\"\nbase = \"fixed\"\n\
         joints = {{ joint2 = -0.785, joint4 = -2.356, joint6 = 1.571, joint7 = 0.785 }}\n"
    );
    let model = load_scene_str(&text, "<spindle>", &dir).unwrap_or_else(|e| panic!("{e}"));
    let mut data = Data::new(&model);
    let mut pipeline = Pipeline::new(&model);
    let r = &model.robots[0];
    let (qo, vo, nq, nv) = (r.q_offset, r.v_offset, r.nq(), r.nv());
    for k in 0..nv - 1 {
        data.qvel[vo + k] = if k % 2 == 0 { 0.5 } else { -0.5 };
    }
    data.qvel[vo + nv - 1] = 300.0;
    data.edited();
    let mut ad = ArticulatedData::new(&r.tree);
    let mut kinetic = |d: &Data| {
        let (q, v) = (&d.qpos[qo..qo + nq], &d.qvel[vo..vo + nv]);
        energy(&r.tree, &mut ad, q, v).expect("energy").kinetic
    };
    let e0 = kinetic(&data);
    let mut de = 0.0f64;
    let every = (2.0 / h).round() as usize;
    for k in 1..=(seconds / h).round() as usize {
        pipeline.step(&model, &mut data);
        if data.stats.quarantined > 0 {
            if print {
                println!("{integrator} h = {h}: quarantined at step {k}");
            }
            return None;
        }
        let e = kinetic(&data) / e0 - 1.0;
        de = de.max(e.abs());
        if print && k % every == 0 {
            let t = k as f64 * h;
            println!(
                "{integrator} h = {h}, {t:.0} s: dE/E {e:+.2e}, q1 {:.4}",
                data.qpos[qo]
            );
        }
    }
    if print {
        println!("{integrator} h = {h}: max |dE|/E {de:.2e}");
    }
    Some((de, data.qpos[qo..qo + nq - 1].to_vec()))
}

/// An arm carrying a fast spindle (`spindle_arm`: a conservative 8-DoF tree) under
/// the `implicit` integrator at h = 1 ms keeps its energy within 2e-4 (measured
/// 2.8e-5 over 5 s, 4.0e-5 over 10 s; 8.2e-5 at 2 ms: first order) and follows
/// the converged trajectory: after 5 s its seven arm joints are within 5e-3 rad
/// of RK4's at h = 0.1 ms (measured 2.2e-3; RK4's energy holds to 2e-15, and
/// RK4 at 1 ms gives the same configuration to 4 digits at 10 s). The default
/// semi-implicit Euler gains +6.9e-2 of the energy in 2 s and is quarantined
/// before 4 s (at 2 ms: +12 E₀ by 2 s) — the spindle's explicit gyroscopic
/// terms, as on the gyrostat.
#[test]
fn an_arm_carrying_a_fast_spindle_follows_rk4_under_the_implicit_integrator() {
    let (de_ref, q_ref) = spindle_arm("rk4", 1e-4, 5.0, false).expect("RK4 quarantined");
    let (de, q) = spindle_arm("implicit", 1e-3, 5.0, false).expect("implicit quarantined");
    let dq = q
        .iter()
        .zip(&q_ref)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!("spindle arm, 5 s: RK4 0.1 ms |dE|/E {de_ref:.2e}; implicit 1 ms |dE|/E {de:.2e}, max |q − q_RK4| {dq:.2e} rad");
    assert!(
        de_ref <= 1e-10,
        "the reference is not converged: {de_ref:e}"
    );
    assert!(de <= 2e-4 && dq <= 5e-3, "|dE|/E {de:e}, |dq| {dq:e}");
}

/// The figures behind docs/EXPERIMENTS.md's gyrostat and spindle tables (session
/// 38), printed, not asserted: `cargo test --release --test robot_gyro --
/// --ignored --nocapture figures`.
#[test]
#[ignore = "a measurement tool: prints the EXPERIMENTS tables"]
fn figures() {
    for s in [2.0, 4.0, 6.0, 8.0, 10.0] {
        println!(
            "{:?}",
            gyrostat("penalty", "semi_implicit_euler", 1e-3, 150.0, s)
        );
    }
    println!(
        "{:?}",
        gyrostat("penalty", "semi_implicit_euler", 1e-3, 30.0, 20.0)
    );
    for h in [5e-4, 1e-3, 2e-3] {
        gyrostat("penalty", "implicit", h, 150.0, 20.0);
    }
    for (integrator, h) in [
        ("rk4", 1e-4),
        ("rk4", 1e-3),
        ("semi_implicit_euler", 1e-3),
        ("semi_implicit_euler", 2e-3),
        ("implicit", 1e-3),
        ("implicit", 2e-3),
    ] {
        spindle_arm(integrator, h, 10.0, true);
    }
}
