//! Robots as physics: inverse/forward dynamics agree on the shipped URDF robots,
//! gravity compensation by RNEA holds the arm still, a joint limit holds a pushing
//! torque with the overshoot its spring predicts, URDF pendulums stepped by
//! `Pipeline::step` swing with the analytic periods and keep their energy, a
//! non-finite or absurd command is quarantined (or ignored, as documented), and bad
//! `[[robot]]` tables are refused with the file, line and key.
//!
//! Run with `cargo test --release --test robots -- --nocapture` to see the measured
//! figures.

mod common;

use rtphys::dynamics::{
    aba, crba, energy, factor_mass, rnea, solve_mass, ArticulatedData, ArticulatedModel, ExtInputs,
};
use rtphys::model::robot::{Base, RobotSpec};
use rtphys::model::scene::{load_scene_str, SceneError};
use rtphys::model::{BodySpec, Integrator, Material, Options};
use rtphys::robot::{load_urdf, parse_urdf, UrdfOptions};
use rtphys::{Data, Model, ModelBuilder};
use std::collections::BTreeMap;
use std::f64::consts::PI;
use std::path::{Path, PathBuf};

const G: f64 = 9.81;

fn robots_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("config/robots")
}

/// A small deterministic generator (64-bit LCG, top 53 bits) for random states.
struct Lcg(u64);
impl Lcg {
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        lo + (hi - lo) * ((self.0 >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// The robot `file` as the engine builds it from its URDF.
fn spec_of(file: &str, base: Base) -> RobotSpec {
    let desc = load_urdf(&robots_dir().join(file), &UrdfOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    RobotSpec::from_description(
        &desc,
        "r",
        base,
        nalgebra::Vector3::new(0.0, 0.0, -G),
        Material::default(),
        &BTreeMap::new(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// A random configuration: joints uniform in ±1.5 rad, a floating base at a random
/// position with a random unit quaternion.
fn random_q(tree: &ArticulatedModel, rng: &mut Lcg, floating: bool) -> Vec<f64> {
    let mut q: Vec<f64> = (0..tree.nq()).map(|_| rng.uniform(-1.5, 1.5)).collect();
    if floating {
        let quat: Vec<f64> = (0..4).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let n = quat.iter().map(|x| x * x).sum::<f64>().sqrt();
        for k in 0..4 {
            q[3 + k] = quat[k] / n;
        }
    }
    q
}

// ------------------------------------------------------------------ 3. ID/FD cross-checks

/// `aba(q, q̇, rnea(q, q̇, q̈)) == q̈` and `H⁻¹ (τ − C) == aba(q, q̇, τ)` on random
/// states of the URDF arm (fixed base) and humanoid (floating base), as built by
/// `RobotSpec::from_description`.
///
/// Tolerance 1e-10 (absolute on q̈ of O(10) rad/s²): both sides are O(n) sweeps of
/// spatial algebra on O(1) numbers; the round-off of ~30 links is ~1e-13 relative,
/// so 1e-10 leaves three decades while catching any wrong term (a missing bias or
/// inertia term is O(1)).
#[test]
fn inverse_and_forward_dynamics_agree_on_urdf_robots() {
    for (file, base) in [
        ("arm7.urdf", Base::Fixed(nalgebra::Isometry3::identity())),
        (
            "humanoid.urdf",
            Base::Floating(nalgebra::Isometry3::translation(0.0, 0.0, 1.0)),
        ),
    ] {
        let floating = matches!(base, Base::Floating(_));
        let spec = spec_of(file, base);
        let tree = &spec.tree;
        let mut ad = ArticulatedData::new(tree);
        let mut rng = Lcg(0x5eed_0000 + tree.nv() as u64);
        let (mut worst_id, mut worst_crba) = (0.0f64, 0.0f64);
        for _ in 0..50 {
            let q = random_q(tree, &mut rng, floating);
            let qd: Vec<f64> = (0..tree.nv()).map(|_| rng.uniform(-2.0, 2.0)).collect();
            let qdd: Vec<f64> = (0..tree.nv()).map(|_| rng.uniform(-5.0, 5.0)).collect();
            let none = ExtInputs::default();
            rnea(tree, &mut ad, &q, &qd, &qdd, &none).expect("rnea");
            let tau: Vec<f64> = ad.tau.iter().copied().collect();
            aba(tree, &mut ad, &q, &qd, &tau, &none).expect("aba");
            let err = ad
                .qdd
                .iter()
                .zip(&qdd)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            worst_id = worst_id.max(err);
            // CRBA + bias + solve: q̈ = H⁻¹ (τ − C(q, q̇)), C = rnea(q, q̇, 0).
            let zero = vec![0.0; tree.nv()];
            rnea(tree, &mut ad, &q, &qd, &zero, &none).expect("rnea");
            let mut rhs: Vec<f64> = tau.iter().zip(ad.tau.iter()).map(|(t, c)| t - c).collect();
            crba(tree, &mut ad, &q).expect("crba");
            factor_mass(&mut ad).expect("factor");
            solve_mass(&ad, &mut rhs).expect("solve");
            let err = rhs
                .iter()
                .zip(&qdd)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            worst_crba = worst_crba.max(err);
        }
        println!("{file}: max |aba(rnea(q̈)) − q̈| = {worst_id:.2e}, max |H⁻¹(τ−C) − q̈| = {worst_crba:.2e}");
        assert!(worst_id < 1e-10, "{file}: ABA∘RNEA error {worst_id:e}");
        assert!(
            worst_crba < 1e-10,
            "{file}: CRBA solve error {worst_crba:e}"
        );
    }
}

// ------------------------------------------------------------------ helpers for scenes

fn with_integrator(model: &Model, integrator: Integrator) -> Model {
    let mut opt = model.opt;
    opt.integrator = integrator;
    model.with_options(opt)
}

// ------------------------------------------------------------------ 1. gravity compensation

/// Each tick `qfrc_cmd = rnea(q, 0, 0)` with the servos disabled: the arm in the
/// ready pose stays where it is. RK4, h = 1e-3 s, 10 s.
///
/// Tolerance 1e-6 rad: the compensation is exact at the start of each step and the
/// arm starts at rest, so the only motion comes from the command being held over a
/// step while q moves by round-off (~1e-16) — an unstable equilibrium grows such
/// errors by at most e^{λt} with λ ≈ √(g/l) ≈ 5/s, far below 1e-6 over 10 s unless
/// the compensation or the integration is wrong (a 1e-6 relative torque error
/// already moves the arm by ~1e-5 rad in 1 s).
#[test]
fn rnea_gravity_compensation_holds_the_arm_still() {
    let model = with_integrator(&common::load("arm.toml"), Integrator::Rk4);
    let drift = common::gravity_compensated_drift(&model, 10_000);
    println!("gravity-compensated arm, RK4 h = 1 ms, 10 s: max |q − q0| = {drift:.3e} rad");
    assert!(drift < 1e-6, "drift {drift:e} rad");
}

// ------------------------------------------------------------------ 2. joint limit

/// joint4 of the arm pushed into its upper limit (−0.0698 rad) by a constant τ
/// beyond gravity compensation; its servo off, the other joints held by their
/// servos and gravity-compensated. RK4, h = 1 ms.
///
/// Steady state: the limit spring carries τ, so q4 − upper = τ / limit_k. The
/// spring–damper is implicit in q̈ (τ = k (limit − q − h q̇) − b q̇, eq. of
/// `passive_torque`) but at rest that is exactly k (limit − q): tolerance 1e-3
/// relative (the other joints settle on their servo springs; 1e-3 of the
/// overshoot is ~1e-7 rad).
///
/// Approach: gravity and its compensation cancel at every q, the servos and the
/// limit are springs with dampers, so from the crossing on
/// ½ k x² − τ x ≤ E₀ (kinetic energy plus servo-spring energy at the crossing),
/// i.e. x ≤ τ/k + √((τ/k)² + 2E₀/k). Margin 10 %: the one-sided spring switches on
/// inside an RK4 step (ω h = 0.3 for the limit), so the discrete energy is not
/// exactly the continuous one.
#[test]
fn joint_limit_holds_with_the_overshoot_its_spring_predicts() {
    let model = with_integrator(&common::load("arm.toml"), Integrator::Rk4);
    let r = &model.robots[0];
    let j4 = r.joint_id("joint4").expect("joint4");
    let joint = &r.joints[j4];
    let (k, upper) = (joint.limit_k, joint.upper);
    let servo4 = r.servos.iter().position(|s| s.joint == j4).expect("servo");
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    // Start 0.15 rad below the limit, at rest.
    let start = upper - 0.15;
    data.qpos[r.q_offset + joint.qi] = start;
    for (s, t) in r.servos.iter().zip(data.robots[0].servo.iter_mut()) {
        t.position = data.qpos[r.q_offset + r.joints[s.joint].qi];
    }
    data.robots[0].servo[servo4].enabled = false;
    let tau_push = 5.0; // N·m
    let steady = tau_push / k;
    let mut ad = ArticulatedData::new(&r.tree);
    let mut ad_e = ArticulatedData::new(&r.tree);
    let mut tau = vec![0.0; r.nv()];
    let mut e0: Option<f64> = None;
    let mut max_over = f64::NEG_INFINITY;
    let servo_energy = |q: &[f64], data: &Data| -> f64 {
        r.servos
            .iter()
            .zip(&data.robots[0].servo)
            .filter(|(_, t)| t.enabled)
            .map(|(s, t)| 0.5 * s.kp * (q[r.joints[s.joint].qi] - t.position).powi(2))
            .sum()
    };
    for _ in 0..4000 {
        let q = data.qpos[r.q_offset..r.q_offset + r.nq()].to_vec();
        common::gravity_torques(&model, &mut ad, &q, &mut tau);
        tau[joint.vi] += tau_push;
        data.qfrc_cmd[r.v_offset..r.v_offset + r.nv()].copy_from_slice(&tau);
        pipeline.step(&model, &mut data);
        let q = &data.qpos[r.q_offset..r.q_offset + r.nq()];
        let x = q[joint.qi] - upper;
        if e0.is_none() && x > 0.0 {
            // Energy at the crossing (end of the step that crossed: x ≥ 0 already).
            let v = &data.qvel[r.v_offset..r.v_offset + r.nv()];
            let kin = energy(&r.tree, &mut ad_e, q, v).expect("energy").kinetic;
            e0 = Some(kin + servo_energy(q, &data) + 0.5 * k * x * x - tau_push * x);
        }
        max_over = max_over.max(x);
    }
    let e0 = e0.expect("joint4 never reached its limit");
    let bound = steady + (steady * steady + 2.0 * e0 / k).sqrt();
    let x_end = data.qpos[r.q_offset + joint.qi] - upper;
    println!(
        "joint4 limit: k = {k:.4e} N·m/rad, τ = {tau_push} N·m, τ/k = {steady:.4e} rad; \
         steady overshoot {x_end:.4e} rad (rel. err {:.2e}); max overshoot {max_over:.4e} rad, \
         energy bound {bound:.4e} rad (E₀ = {e0:.4e} J)",
        (x_end - steady).abs() / steady
    );
    assert!(
        (x_end - steady).abs() <= 1e-3 * steady,
        "steady overshoot {x_end:e} vs τ/k = {steady:e}"
    );
    assert!(
        max_over <= 1.1 * bound,
        "max overshoot {max_over:e} beyond the bound {bound:e}"
    );
}

// ------------------------------------------------------------------ 4. URDF pendulums

/// A chain of `n` point-like masses (1 kg, a 1 cm solid sphere's inertia) on massless
/// 1 m links, revolute about y, hanging along −z from a fixed base.
fn chain_urdf(n: usize) -> String {
    let mut s = String::from("<robot name=\"chain\">\n<link name=\"base\"/>\n");
    let i = 0.4 * 1.0 * 0.01 * 0.01; // 2/5 m r², r = 1 cm
    for k in 1..=n {
        let parent = if k == 1 {
            "base".to_string()
        } else {
            format!("l{}", k - 1)
        };
        let z = if k == 1 { 0.0 } else { -1.0 };
        s.push_str(&format!(
            "<joint name=\"j{k}\" type=\"continuous\"><parent link=\"{parent}\"/>\
             <child link=\"l{k}\"/><origin xyz=\"0 0 {z}\"/><axis xyz=\"0 1 0\"/></joint>\n\
             <link name=\"l{k}\"><inertial><origin xyz=\"0 0 -1\"/><mass value=\"1\"/>\
             <inertia ixx=\"{i}\" iyy=\"{i}\" izz=\"{i}\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>\
             </inertial></link>\n"
        ));
    }
    s.push_str("</robot>\n");
    s
}

/// The chain as a world of its own (no other body), stepped with RK4 at `dt`.
fn chain_model(n: usize, dt: f64) -> Model {
    let text = chain_urdf(n);
    let desc = parse_urdf(&text, Path::new("."), "chain.urdf", &UrdfOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let opt = Options {
        dt,
        integrator: Integrator::Rk4,
        ..Options::default()
    };
    let spec = RobotSpec::from_description(
        &desc,
        "chain",
        Base::Fixed(nalgebra::Isometry3::translation(0.0, 0.0, 3.0)),
        opt.gravity,
        Material::default(),
        &BTreeMap::new(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut b = ModelBuilder::new(opt);
    b.add_robot(spec);
    b.finalize().unwrap_or_else(|e| panic!("{e}"))
}

/// Mean period of the signal from its upward zero crossings (linear interpolation).
fn period_of(samples: &[(f64, f64)]) -> f64 {
    let mut ups = Vec::new();
    for w in samples.windows(2) {
        let ((t0, a), (t1, b)) = (w[0], w[1]);
        if a < 0.0 && b >= 0.0 {
            ups.push(t0 + (t1 - t0) * (-a) / (b - a));
        }
    }
    assert!(ups.len() >= 3, "too few crossings");
    (ups[ups.len() - 1] - ups[0]) / (ups.len() - 1) as f64
}

/// Simple pendulum: T = 2π √(I_O / (m g L)) with I_O = m L² + I_c (the physical
/// pendulum, exact for small angles). Amplitude 0.01 rad: the finite-amplitude
/// correction θ₀²/16 = 6e-6 is negligible. Tolerance 0.5 % (as required; RK4 at
/// h = 1 ms has a phase error ~ (ωh)⁴ ~ 1e-10 per step).
#[test]
fn urdf_pendulum_small_angle_period() {
    let model = chain_model(1, 1e-3);
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    data.qpos[0] = 0.01;
    let mut samples = Vec::new();
    for _ in 0..20_000 {
        pipeline.step(&model, &mut data);
        samples.push((data.time, data.qpos[0]));
    }
    let i_c = 0.4 * 1e-4;
    let expected = 2.0 * PI * ((1.0 + i_c) / G).sqrt();
    let t = period_of(&samples);
    let rel = (t - expected).abs() / expected;
    println!("pendulum: T = {t:.6} s, analytic {expected:.6} s, rel. err {rel:.2e}");
    assert!(rel < 5e-3, "period {t} vs {expected}");
}

/// Double pendulum, equal unit lengths and masses: normal modes
/// ω² = (g/l)(2 ∓ √2), T = 2.62105 s and 1.08568 s, with amplitude ratios
/// θ₂/θ₁ = ±√2 (absolute angles; the URDF's second joint is relative:
/// q₂ = θ₂ − θ₁). Each mode excited alone at 0.005 rad; the period of q₁ is
/// measured. Tolerance 1 % (as required): the 1 cm sphere inertia shifts the
/// periods by ~1e-5 and the amplitude by ~1e-6.
#[test]
fn urdf_double_pendulum_normal_modes() {
    let model = chain_model(2, 1e-3);
    for (ratio, expected) in [(2f64.sqrt(), 2.62105), (-(2f64.sqrt()), 1.08568)] {
        let mut data = Data::new(&model);
        let mut pipeline = rtphys::Pipeline::new(&model);
        let a = 0.005;
        data.qpos[0] = a;
        data.qpos[1] = (ratio - 1.0) * a;
        let mut samples = Vec::new();
        for _ in 0..20_000 {
            pipeline.step(&model, &mut data);
            samples.push((data.time, data.qpos[0]));
        }
        let t = period_of(&samples);
        let rel = (t - expected).abs() / expected;
        println!("double pendulum mode θ₂/θ₁ = {ratio:+.4}: T = {t:.5} s, analytic {expected} s, rel. err {rel:.2e}");
        assert!(rel < 1e-2, "mode period {t} vs {expected}");
    }
}

/// An undamped three-link chain released from 60° (large, chaotic swings) keeps
/// its energy: |E(t) − E(0)| / (E(0) − V_min) < 1e-6 over 10 s at h = 1 ms with
/// RK4 (as required). The scale E(0) − V_min is the energy of the motion (the
/// largest kinetic energy it can reach); RK4's energy error per step is O(h⁵).
#[test]
fn undamped_chain_conserves_energy() {
    let model = chain_model(3, 1e-3);
    let r = &model.robots[0];
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    data.qpos[0] = PI / 3.0;
    data.qpos[1] = 0.3;
    data.qpos[2] = -0.2;
    let mut ad = ArticulatedData::new(&r.tree);
    let e_of = |data: &Data, ad: &mut ArticulatedData| {
        energy(&r.tree, ad, &data.qpos, &data.qvel)
            .expect("energy")
            .total()
    };
    let e0 = e_of(&data, &mut ad);
    // Hanging straight down: the potential minimum.
    let v_min = energy(&r.tree, &mut ad, &[0.0; 3], &[0.0; 3])
        .expect("energy")
        .total();
    let scale = e0 - v_min;
    let mut worst = 0.0f64;
    for _ in 0..10_000 {
        pipeline.step(&model, &mut data);
        worst = worst.max((e_of(&data, &mut ad) - e0).abs());
    }
    println!(
        "3-link chain, RK4 h = 1 ms, 10 s: max |ΔE| = {worst:.3e} J of {scale:.3} J (rel. {:.2e})",
        worst / scale
    );
    assert!(worst / scale < 1e-6, "energy drift {:e}", worst / scale);
}

// ------------------------------------------------------------------ 8. quarantine

/// A world with the one-joint pendulum (its joint has no effort limit: the URDF has
/// no <limit>) and a falling free sphere.
fn pendulum_and_ball() -> Model {
    let text = chain_urdf(1);
    let desc = parse_urdf(&text, Path::new("."), "chain.urdf", &UrdfOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let opt = Options::default();
    let spec = RobotSpec::from_description(
        &desc,
        "chain",
        Base::Fixed(nalgebra::Isometry3::translation(0.0, 0.0, 3.0)),
        opt.gravity,
        Material::default(),
        &BTreeMap::new(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut b = ModelBuilder::new(opt);
    b.add_robot(spec);
    b.add_body(
        BodySpec::free("ball", rtphys::collision::Shape::Sphere { radius: 0.1 })
            .at(nalgebra::Vector3::new(5.0, 0.0, 10.0))
            .mass(1.0),
    );
    b.finalize().unwrap_or_else(|e| panic!("{e}"))
}

/// An absurd effort (1e300 N·m on a joint without an effort limit) makes the robot's
/// state diverge within the step: it is rolled back, frozen and reported
/// (`stats.quarantined`, `last_quarantine.robot`); the free ball keeps falling.
#[test]
fn absurd_effort_freezes_the_robot_and_the_ball_keeps_falling() {
    let model = pendulum_and_ball();
    let ball = model.body_id("ball").expect("ball");
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    for _ in 0..10 {
        pipeline.step(&model, &mut data);
    }
    let q_before = data.qpos.clone();
    data.qfrc_cmd[0] = 1e300;
    pipeline.step(&model, &mut data);
    assert_eq!(data.stats.quarantined, 1, "robot not quarantined");
    let ev = data.stats.last_quarantine.expect("event");
    assert_eq!(ev.robot, Some(0));
    assert!(data.robots[0].frozen);
    assert_eq!(data.qpos, q_before, "rolled back to the start of the step");
    assert!(data.qvel.iter().all(|v| *v == 0.0));
    let z0 = data.state[ball].x.z;
    let v0 = data.state[ball].v.z;
    for _ in 0..100 {
        pipeline.step(&model, &mut data);
    }
    assert_eq!(data.qpos, q_before, "a frozen robot does not move");
    // Free fall over 0.1 s: Δz = v₀ t − g t²/2 (semi-implicit Euler: within g h t).
    let t = 0.1;
    let expected = z0 + v0 * t - 0.5 * G * t * t;
    let dz = (data.state[ball].x.z - expected).abs();
    println!(
        "absurd effort: robot frozen at tick {}; ball Δz error {dz:.2e} m",
        ev.tick
    );
    assert!(dz < G * 1e-3 * t, "ball off free fall by {dz}");
    assert!(data.state.iter().all(|s| s.is_finite()));
}

/// A NaN command is documented as clamped to 0 (`pipeline::robots::derivatives`:
/// a non-finite actuation is replaced by zero): the robot is not frozen and moves
/// exactly as with a zero command, bit for bit. An infinite command is non-finite
/// too.
#[test]
fn nan_and_infinite_commands_act_as_zero() {
    let model = pendulum_and_ball();
    let mut reference = Data::new(&model);
    let mut reference_pipe = rtphys::Pipeline::new(&model);
    reference.qpos[0] = 0.3;
    let mut bad = reference.clone();
    let mut bad_pipe = rtphys::Pipeline::new(&model);
    for k in 0..500 {
        bad.qfrc_cmd[0] = if k % 2 == 0 { f64::NAN } else { f64::INFINITY };
        reference_pipe.step(&model, &mut reference);
        bad_pipe.step(&model, &mut bad);
    }
    assert_eq!(bad.stats.quarantined, 0);
    assert!(!bad.robots[0].frozen);
    assert_eq!(bad.qpos, reference.qpos);
    assert_eq!(bad.qvel, reference.qvel);
    assert!(bad.qfrc_actuator.iter().all(|t| *t == 0.0));
}

// ------------------------------------------------------------------ 9. scene errors

const ROBOT_HEAD: &str = r#"[world]
dt = 0.001

[[body]]
name = "floor"
static = true
shape = { type = "plane" }
"#;

fn robot_err(robot: &str) -> SceneError {
    let text = format!("{ROBOT_HEAD}\n{robot}");
    match load_scene_str(&text, "bad.toml", &robots_dir()) {
        Ok(_) => panic!("scene accepted:\n{text}"),
        Err(e) => e,
    }
}

fn assert_robot_error(e: &SceneError, key: &str, msg: &str, line: usize) {
    let s = e.to_string();
    println!("{s}");
    assert!(s.starts_with("bad.toml"), "no file in: {s}");
    assert!(s.contains(key), "key '{key}' not in: {s}");
    assert!(s.contains(msg), "'{msg}' not in: {s}");
    assert_eq!(e.line, Some(line), "{s}");
}

#[test]
fn bad_robot_tables_name_file_line_and_key() {
    // Lines: ROBOT_HEAD is 7 lines, then a blank line; `[[robot]]` is line 9.
    let e = robot_err("[[robot]]\nurdf = \"missing.urdf\"\n");
    assert_robot_error(&e, "robot[0].urdf", "missing.urdf", 10);

    let e = robot_err("[[robot]]\nurdf = \"arm7.urdf\"\nwheels = 2\n");
    assert_robot_error(&e, "wheels", "unknown", 11);

    let e = robot_err("[[robot]]\nurdf = \"arm7.urdf\"\njoints = { joint9 = 0.1 }\n");
    assert_robot_error(&e, "robot[0].joints.joint9", "joint9", 11);

    let e = robot_err(
        "[[robot]]\nurdf = \"arm7.urdf\"\n[[robot.servo]]\njoint = \"joint9\"\nkp = 1.0\nkd = 0.1\n",
    );
    // The line is the robot's `[[robot]]` header: the key search stops at the first
    // sub-table, so `[[robot.servo]]` (line 11) is not searched; the key names it.
    assert_robot_error(&e, "robot[0].servo[0].joint", "joint9", 9);

    let e = robot_err("[[robot]]\nurdf = \"arm7.urdf\"\nimus = [\"link9\"]\n");
    assert_robot_error(&e, "robot[0].imus[0]", "link9", 11);
}
