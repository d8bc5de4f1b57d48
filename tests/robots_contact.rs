//! Robots in contact, stepped by `Pipeline::step` on the shipped scenes: the floor
//! carries a standing robot's weight, the IMU reads gravity's reaction, the ankle
//! force/torque sensors carry the weight above them, the arm pressing on the table
//! balances its servo torques through the Jacobian, the rover's wheels roll it by
//! r·Δθ, and a humanoid run is bit-reproducible (twice, and across a snapshot).
//!
//! Run with `cargo test --release --test robots_contact -- --nocapture` to see the
//! measured figures.

mod common;

use nalgebra::{Matrix6xX, Vector3, Vector6};
use rtphys::dynamics::{forward_kinematics, point_jacobian, rnea, ArticulatedData, ExtInputs};
use rtphys::kinematics::frame_state;
use rtphys::model::BodyKind;
use rtphys::{Data, Model};

const G: f64 = 9.81;

/// Total contact force on the links of robot `r` (world frame): `contact_force` is
/// the force on body a of each manifold.
fn contact_force_on_robot(model: &Model, data: &Data, r: usize) -> Vector3<f64> {
    let is_ours = |g: usize| {
        matches!(model.bodies[model.geoms[g].body].kind,
            BodyKind::Link { robot, .. } if robot as usize == r)
    };
    let mut f = Vector3::zeros();
    for (m, fa) in data.contacts.manifolds.iter().zip(&data.contact_force) {
        if is_ours(m.geom_a) {
            f += fa;
        }
        if is_ours(m.geom_b) {
            f -= fa;
        }
    }
    f
}

/// Rotation link → world of link `link` of robot `r` (its own frame).
fn link_rotation(model: &Model, data: &Data, r: usize, link: usize) -> nalgebra::Matrix3<f64> {
    let rm = &model.robots[r];
    let f = rm.frame_id(&rm.link_names[link]).expect("link frame");
    frame_state(model, &data.robots, r, f)
        .q
        .to_rotation_matrix()
        .into_inner()
}

// ------------------------------------------------------------------ 5. resting robots

/// The rover resting on its wheels and caster: Σ contact forces = its weight.
///
/// Tolerance 1e-3 relative (as required). After 3 s the rover is at rest: the
/// penalty springs (no integral term in this scene) carry the weight exactly in the
/// static limit, and the remaining vibration (µm/s) changes the spring force by far
/// less than 1e-3.
#[test]
fn floor_carries_the_rovers_weight() {
    let model = common::load("diffdrive.toml");
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    common::run(&mut pipeline, &model, &mut data, 3000);
    let w = model.robots[0].total_mass * G;
    // Average over 100 ticks (0.1 s) against residual chatter between the contacts.
    let mut f = Vector3::zeros();
    for _ in 0..100 {
        pipeline.step(&model, &mut data);
        f += contact_force_on_robot(&model, &data, 0) / 100.0;
    }
    let rel = (f.z - w).abs() / w;
    println!(
        "rover: Σ contact force = ({:.4}, {:.4}, {:.5}) N, weight {w:.5} N, rel. err {rel:.2e}",
        f.x, f.y, f.z
    );
    assert!(rel < 1e-3, "vertical contact force {} vs weight {w}", f.z);
    assert!(f.xy().norm() < 1e-3 * w, "horizontal contact force {f:?}");
}

/// The humanoid standing on its feet (`config/scenes/humanoid.toml`):
/// - Σ contact forces = its weight within 1e-3 relative (as required; see the
///   rover);
/// - the torso IMU, rotated to the world, reads (0, 0, +9.81) (proper acceleration
///   of a body at rest): tolerance 0.01 m/s² (1e-3 g), the residual joint vibration
///   of a robot held by PD servos on penalty contacts;
/// - the two ankle F/T sensors' vertical forces (the wrench the shank exerts on the
///   foot) sum to −(weight above the ankles) = −(M − m_feet) g: tolerance 1e-3
///   relative, the same static balance as the contact sum (the feet are at rest).
#[test]
fn humanoid_stands_on_the_floor_its_imu_and_ankle_sensors_read_its_weight() {
    let model = common::load("humanoid.toml");
    let r = &model.robots[0];
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    common::run(&mut pipeline, &model, &mut data, 3000);
    let w = r.total_mass * G;
    // Mass outboard of each ankle sensor: the subtree of its child link.
    let tree = &r.tree;
    let mut subtree: Vec<f64> = tree.inertia().iter().map(|i| i.mass).collect();
    for i in (0..tree.num_links()).rev() {
        if let Some(p) = tree.parent()[i] {
            subtree[p] += subtree[i];
        }
    }
    let m_feet: f64 = r.ft_sensors.iter().map(|s| subtree[s.link]).sum();
    let w_above = (r.total_mass - m_feet) * G;
    let torso = r.link_id("torso").expect("torso");
    let n = 100;
    let (mut f, mut imu_w, mut ft_z) = (Vector3::zeros(), Vector3::zeros(), 0.0);
    for _ in 0..n {
        // Sensors and contact forces are start-of-step values: read the rotation
        // before the step.
        let rot_torso = link_rotation(&model, &data, 0, torso);
        let rot_feet: Vec<_> = r
            .ft_sensors
            .iter()
            .map(|s| link_rotation(&model, &data, 0, s.link))
            .collect();
        pipeline.step(&model, &mut data);
        f += contact_force_on_robot(&model, &data, 0) / n as f64;
        imu_w += rot_torso * data.robots[0].imu[0].accel / n as f64;
        for (rot, ft) in rot_feet.iter().zip(&data.robots[0].ft) {
            ft_z += (rot * ft.lin).z / n as f64;
        }
    }
    let rel_c = (f.z - w).abs() / w;
    let imu_err = (imu_w - Vector3::new(0.0, 0.0, G)).norm();
    let rel_ft = (ft_z + w_above).abs() / w_above;
    println!(
        "humanoid ({:.3} kg, feet {m_feet:.3} kg): Σ contact z = {:.4} N vs {w:.4} N (rel. {rel_c:.2e}); \
         torso IMU (world) = ({:.4}, {:.4}, {:.4}) m/s² (|err| {imu_err:.2e}); \
         ankle F/T Σ z = {ft_z:.4} N vs −{w_above:.4} N (rel. {rel_ft:.2e})",
        r.total_mass, f.z, imu_w.x, imu_w.y, imu_w.z
    );
    assert_eq!(data.stats.quarantined, 0);
    assert!(rel_c < 1e-3, "contact force {} vs weight {w}", f.z);
    assert!(imu_err < 0.01, "IMU {imu_w:?}");
    assert!(rel_ft < 1e-3, "ankle F/T {ft_z} vs −{w_above}");
}

/// The arm pressing on the table (`config/scenes/arm_table.toml`), at rest: the
/// servo torques beyond gravity compensation are the contact wrench mapped through
/// the Jacobian: τ_act + τ_passive − g(q) = −Σ_b J_bᵀ w_b (w_b the contact wrench
/// on link proxy b about its centre of mass, J_b the 6×7 Jacobian of that point).
///
/// Tolerance: 1e-3 of |Jᵀw| plus 1e-4 N·m. At rest H q̈ + c(q, q̇) − g(q) is of
/// the order of the residual vibration (q̈ ~ 1e-3 rad/s² × H ~ 1 kg·m²); averaged
/// over 0.1 s it is far below the ~N·m contact torques.
#[test]
fn arm_on_table_servo_torques_balance_the_contact_through_the_jacobian() {
    let model = common::load("arm_table.toml");
    let r = &model.robots[0];
    let nv = r.nv();
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    common::run(&mut pipeline, &model, &mut data, 3000);
    let mut ad = ArticulatedData::new(&r.tree);
    let mut jac = Matrix6xX::zeros(nv);
    let zero = vec![0.0; nv];
    let n = 100;
    let (mut lhs, mut rhs) = (vec![0.0; nv], vec![0.0; nv]);
    let mut links_in_contact = std::collections::BTreeSet::new();
    for _ in 0..n {
        let q = data.qpos[r.q_offset..r.q_offset + r.nq()].to_vec();
        pipeline.step(&model, &mut data);
        // Start-of-step torques and contact wrenches, at the start-of-step q.
        rnea(&r.tree, &mut ad, &q, &zero, &zero, &ExtInputs::default()).expect("rnea");
        for (k, l) in lhs.iter_mut().enumerate() {
            let v = r.v_offset + k;
            *l += (data.qfrc_actuator[v] + data.qfrc_passive[v] - ad.tau[k]) / n as f64;
        }
        forward_kinematics(&r.tree, &mut ad, &q).expect("fk");
        for (link, b) in r.link_body.iter().enumerate() {
            let Some(b) = *b else { continue };
            let w = &data.contact_wrench[b];
            if w.force.norm() == 0.0 && w.torque.norm() == 0.0 {
                continue;
            }
            links_in_contact.insert(r.link_names[link].clone());
            // The proxy's centre of mass at the start-of-step q.
            let x = &ad.x_base[link];
            let c = x.trans + x.rot.transpose() * r.tree.inertia()[link].com;
            point_jacobian(&r.tree, &ad, link, &c, &mut jac).expect("jacobian");
            let wv = Vector6::new(
                w.torque.x, w.torque.y, w.torque.z, w.force.x, w.force.y, w.force.z,
            );
            let g = jac.transpose() * wv;
            for (x, gk) in rhs.iter_mut().zip(g.iter()) {
                *x -= gk / n as f64;
            }
        }
    }
    let norm = rhs.iter().map(|x| x * x).sum::<f64>().sqrt();
    let err = lhs
        .iter()
        .zip(&rhs)
        .map(|(a, b)| (a - b).powi(2))
        .sum::<f64>()
        .sqrt();
    println!(
        "arm on table (links in contact {links_in_contact:?}): τ_act + τ_pas − g = {:?}\n  −Jᵀw = {:?}\n  |diff| = {err:.3e} N·m of |Jᵀw| = {norm:.4} N·m (rel. {:.2e})",
        lhs.iter().map(|x| format!("{x:.4}")).collect::<Vec<_>>(),
        rhs.iter().map(|x| format!("{x:.4}")).collect::<Vec<_>>(),
        err / norm
    );
    assert!(
        links_in_contact.contains("link7"),
        "link 7 not on the table"
    );
    assert!(norm > 0.1, "no contact torque to balance: {norm}");
    assert!(
        err < 1e-3 * norm + 1e-4,
        "servo torques {lhs:?} vs −Jᵀw {rhs:?}"
    );
}

// ------------------------------------------------------------------ 6. the rover driven

fn yaw_of(q: &[f64]) -> f64 {
    let (w, x, y, z) = (q[3], q[4], q[5], q[6]);
    (2.0 * (w * z + x * y)).atan2(1.0 - 2.0 * (y * y + z * z))
}

/// Unwrapped yaw increments.
fn unwrap(prev: f64, now: f64) -> f64 {
    let mut d = now - prev;
    while d > std::f64::consts::PI {
        d -= 2.0 * std::f64::consts::PI;
    }
    while d < -std::f64::consts::PI {
        d += 2.0 * std::f64::consts::PI;
    }
    d
}

const WHEEL_R: f64 = 0.0975; // config/robots/diffdrive.urdf
const TRACK: f64 = 0.375;

/// Equal wheel torques (servos off): the rover drives straight, and the chassis
/// moves by r·Δθ (rolling without slipping): tolerance 5 % (as required; the
/// penalty contact lets the wheel sink ~0.1 mm, which shortens the rolling radius
/// by ~0.1 %, and the tyres creep a little under the traction force).
/// "Straight": the heading changes by < 0.01 rad and the sideways drift is < 1 %
/// of the distance (the robot is left–right symmetric; only round-off and the
/// caster's frictionless contact can steer it).
#[test]
fn rover_driven_by_equal_wheel_torques_moves_straight_by_r_dtheta() {
    let model = common::load("diffdrive.toml");
    let r = &model.robots[0];
    let (jl, jr) = (
        r.joint_id("left_wheel_joint").expect("left"),
        r.joint_id("right_wheel_joint").expect("right"),
    );
    let (vl, vr) = (r.v_offset + r.joints[jl].vi, r.v_offset + r.joints[jr].vi);
    let (ql, qr) = (r.q_offset + r.joints[jl].qi, r.q_offset + r.joints[jr].qi);
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    common::run(&mut pipeline, &model, &mut data, 1000); // settle on the floor
    for t in &mut data.robots[0].servo {
        t.enabled = false;
    }
    let p0 = Vector3::new(data.qpos[0], data.qpos[1], data.qpos[2]);
    let yaw0 = yaw_of(&data.qpos[r.q_offset..]);
    let (thl0, thr0) = (data.qpos[ql], data.qpos[qr]);
    data.qfrc_cmd[vl] = 0.3;
    data.qfrc_cmd[vr] = 0.3;
    common::run(&mut pipeline, &model, &mut data, 2000);
    let p1 = Vector3::new(data.qpos[0], data.qpos[1], data.qpos[2]);
    let d = p1 - p0;
    let dth = 0.5 * ((data.qpos[ql] - thl0) + (data.qpos[qr] - thr0));
    let expected = WHEEL_R * dth;
    let dyaw = unwrap(yaw0, yaw_of(&data.qpos[r.q_offset..]));
    let rel = (d.xy().norm() - expected).abs() / expected;
    println!(
        "rover straight, 2 s at 0.3 N·m per wheel: Δx = {:.5} m, Δy = {:.2e} m, r·Δθ = {expected:.5} m (rel. err {rel:.2e}), Δyaw = {dyaw:.2e} rad",
        d.x, d.y
    );
    assert_eq!(data.stats.quarantined, 0);
    assert!(expected > 0.1, "the rover hardly moved: r Δθ = {expected}");
    assert!(
        rel < 0.05,
        "distance {} vs r Δθ = {expected}",
        d.xy().norm()
    );
    assert!(d.y.abs() < 0.01 * d.x.abs(), "drifted sideways: {d:?}");
    assert!(dyaw.abs() < 0.01, "heading changed by {dyaw}");
}

/// Opposite wheel speeds (velocity servos at ±4 rad/s): the rover turns in place and
/// its yaw changes by r (Δθ_R − Δθ_L) / track: tolerance 5 % (as required; the
/// 4 cm-wide tyres scrub when turning, and the contact's effective track is where
/// the penalty force's centre lies across the tyre width, within ±2 cm of 0.375 m:
/// ±5 %).
#[test]
fn rover_with_opposite_wheel_speeds_turns_by_r_dtheta_over_track() {
    let model = common::load("diffdrive.toml");
    let r = &model.robots[0];
    let (jl, jr) = (
        r.joint_id("left_wheel_joint").expect("left"),
        r.joint_id("right_wheel_joint").expect("right"),
    );
    let (ql, qr) = (r.q_offset + r.joints[jl].qi, r.q_offset + r.joints[jr].qi);
    let sl = r.servos.iter().position(|s| s.joint == jl).expect("servo");
    let sr = r.servos.iter().position(|s| s.joint == jr).expect("servo");
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    common::run(&mut pipeline, &model, &mut data, 1000);
    let (thl0, thr0) = (data.qpos[ql], data.qpos[qr]);
    let p0 = Vector3::new(data.qpos[0], data.qpos[1], data.qpos[2]);
    data.robots[0].servo[sl].velocity = -4.0;
    data.robots[0].servo[sr].velocity = 4.0;
    let mut yaw = yaw_of(&data.qpos[r.q_offset..]);
    let mut dyaw = 0.0;
    for _ in 0..2000 {
        pipeline.step(&model, &mut data);
        let y = yaw_of(&data.qpos[r.q_offset..]);
        dyaw += unwrap(yaw, y);
        yaw = y;
    }
    let expected = WHEEL_R * ((data.qpos[qr] - thr0) - (data.qpos[ql] - thl0)) / TRACK;
    let rel = (dyaw - expected).abs() / expected.abs();
    let p1 = Vector3::new(data.qpos[0], data.qpos[1], data.qpos[2]);
    println!(
        "rover turning, 2 s at ∓4 rad/s: Δyaw = {dyaw:.4} rad, r(Δθ_R − Δθ_L)/track = {expected:.4} rad (rel. err {rel:.2e}); chassis moved {:.3e} m",
        (p1 - p0).xy().norm()
    );
    assert_eq!(data.stats.quarantined, 0);
    assert!(expected > 1.0, "hardly turned: {expected}");
    assert!(rel < 0.05, "yaw {dyaw} vs {expected}");
}

// ------------------------------------------------------------------ 7. determinism

/// The command stream of the determinism tests: sinusoidal set-points on the
/// shoulders and elbows and a small effort on the neck, a function of the tick only.
fn command(model: &Model, data: &mut Data, tick: u64) {
    let r = &model.robots[0];
    let t = tick as f64 * model.opt.dt;
    for (k, (s, tgt)) in r
        .servos
        .iter()
        .zip(data.robots[0].servo.iter_mut())
        .enumerate()
    {
        let name = &r.joints[s.joint].name;
        if name.contains("shoulder") || name.contains("elbow") {
            tgt.position = r.q0[r.joints[s.joint].qi] + 0.1 * (t * (1.0 + 0.3 * k as f64)).sin();
        }
    }
    if let Ok(id) = r.joints.iter().position(|j| j.name == "neck_yaw").ok_or(()) {
        data.qfrc_cmd[r.v_offset + r.joints[id].vi] = 0.2 * (3.0 * t).sin();
    }
}

fn run_commanded(pipeline: &mut rtphys::Pipeline, model: &Model, data: &mut Data, steps: usize) {
    for _ in 0..steps {
        command(model, data, data.tick);
        pipeline.step(model, data);
    }
}

fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

/// Two runs of the humanoid scene with the same command stream are bit-identical
/// (qpos, qvel, sensors); a snapshot taken mid-run and restored reproduces the
/// continuation bit for bit.
#[test]
fn humanoid_runs_are_bit_identical_and_snapshots_reproduce_the_continuation() {
    let model = common::load("humanoid.toml");
    let mut a = Data::new(&model);
    let mut a_pipe = rtphys::Pipeline::new(&model);
    let mut b = Data::new(&model);
    let mut b_pipe = rtphys::Pipeline::new(&model);
    run_commanded(&mut a_pipe, &model, &mut a, 1500);
    run_commanded(&mut b_pipe, &model, &mut b, 1500);
    assert_eq!(bits(&a.qpos), bits(&b.qpos));
    assert_eq!(bits(&a.qvel), bits(&b.qvel));
    let snap = a.snapshot();
    run_commanded(&mut a_pipe, &model, &mut a, 1000);
    let end_q = bits(&a.qpos);
    let end_v = bits(&a.qvel);
    let end_ft: Vec<u64> = a.robots[0]
        .ft
        .iter()
        .flat_map(|f| [f.ang.x, f.ang.y, f.ang.z, f.lin.x, f.lin.y, f.lin.z])
        .map(f64::to_bits)
        .collect();
    // Restore into the other run's data, mid-flight of its own state.
    run_commanded(&mut b_pipe, &model, &mut b, 300);
    assert!(b.restore(&snap));
    run_commanded(&mut b_pipe, &model, &mut b, 1000);
    let ft_b: Vec<u64> = b.robots[0]
        .ft
        .iter()
        .flat_map(|f| [f.ang.x, f.ang.y, f.ang.z, f.lin.x, f.lin.y, f.lin.z])
        .map(f64::to_bits)
        .collect();
    println!(
        "humanoid determinism: {} coordinates bit-identical after 2.5 s, snapshot at tick {}",
        end_q.len(),
        snap.tick
    );
    assert_eq!(bits(&b.qpos), end_q);
    assert_eq!(bits(&b.qvel), end_v);
    assert_eq!(ft_b, end_ft);
    assert_eq!(a.stats.quarantined, 0);
    assert!(
        a.qpos[2] > 0.85,
        "the humanoid fell: pelvis at {} m",
        a.qpos[2]
    );
}

/// Rolling contact without a robot: bodies set rolling without slipping on the floor
/// (v = ω r: zero slip velocity at the contact) need no friction force and keep
/// rolling at constant speed (rolling resistance 0, the default material). This
/// pins the sticking anchor that follows the contact point
/// (`contact::friction::recentred`): an anchor on material points brakes a rolling
/// body at ~μ g (it stopped within 0.4 m before the fix). Tolerance 1 % of the
/// speed after 1 s.
///
/// - a cylinder (axis along y) with the robot scenes' gains: its contact points lie
///   along the line of contact, so 000's per-point damping (eq. (1): −kv v(ψ), v the
///   normal velocity of the material point) sees no normal velocity;
/// - a sphere with kv = 0. With kv = 300/kg the sphere loses 17 % of its speed in
///   1 s: the bottom points spread over the cap ahead of and behind the contact
///   centre, where the rolling rotation gives the material points a normal velocity
///   ±ω a (downward ahead, upward behind), so eq. (1) pushes harder ahead than behind
///   — a rolling-resistance torque that is part of 000's model, not of the anchor.
#[test]
fn free_bodies_rolling_without_slipping_keep_rolling() {
    let mut failures = Vec::new();
    for (shape, kv) in [
        ("{ type = \"sphere\", radius = 0.1 }", 0.0),
        (
            "{ type = \"cylinder\", radius = 0.1, half_length = 0.02 }",
            300.0,
        ),
    ] {
        let rot = if shape.contains("cylinder") {
            "rpy = [1.5707963267948966, 0.0, 0.0]\n"
        } else {
            ""
        };
        let text = format!(
            "[world]\ndt = 0.001\n[penalty]\nkp_per_mass = 20000.0\nkv_per_mass = {kv:?}\n\
             ki_per_mass = 0.0\n[[body]]\nname = \"floor\"\nstatic = true\n\
             shape = {{ type = \"plane\" }}\nmaterial = {{ mu = 1.0 }}\n[[body]]\nname = \"w\"\n\
             shape = {shape}\nmass = 1.0\nposition = [0.0, 0.0, 0.0999]\n{rot}\
             velocity = [1.0, 0.0, 0.0]\nangular_velocity = [0.0, 10.0, 0.0]\n\
             material = {{ mu = 1.0 }}\n"
        );
        let model = common::load_str(&text);
        let b = model.body_id("w").expect("w");
        let mut data = Data::new(&model);
        let mut pipeline = rtphys::Pipeline::new(&model);
        common::run(&mut pipeline, &model, &mut data, 1000);
        let v = data.state[b].v.x;
        println!(
            "rolling {shape}, kv = {kv}/kg: v after 1 s = {v:.4} m/s (started at 1), x = {:.4} m",
            data.state[b].x.x
        );
        if (v - 1.0).abs() >= 0.01 {
            failures.push(format!(
                "{shape}: speed {v:.4} m/s after 1 s of free rolling"
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}
