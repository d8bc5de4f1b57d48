//! The recorded sensors under the LCP step (module doc of `pipeline::lcp`, "After
//! the solve"): they read the step's motion, every constraint impulse included.
//! A link held still against its joint limit under gravity must read the static
//! specific force in its accelerometer (g upward, in the link frame) and carry its
//! weight and the weight's moment through the F/T sensor at its joint — as
//! MuJoCo's post-constraint RNEA does and the penalty path's limit spring does.
//!
//! Run with `cargo test --release --test lcp_sensors -- --nocapture` for the figures.

use nalgebra::Vector3;
use rtphys::model::robot::{Base, RobotSpec};
use rtphys::model::{LcpParams, LcpSolverKind, Material, Method, Options};
use rtphys::robot::{parse_urdf, UrdfOptions};
use rtphys::{Data, Model, ModelBuilder};
use std::collections::BTreeMap;
use std::path::Path;

/// The arm's mass (kg) and the distance of its centre of mass from the hinge (m);
/// the forearm's; where the elbow sits on the arm (m from the hinge).
const M1: f64 = 2.0;
const L1: f64 = 0.5;
const M2: f64 = 1.0;
const L2: f64 = 0.3;
const ELBOW: f64 = 0.8;

/// A double pendulum hinged about y at a fixed base: the arm's centre of mass at
/// (L1, 0, 0) in its frame, the elbow (also about y) at (ELBOW, 0, 0), the
/// forearm's centre of mass at (L2, 0, 0) in its frame. Gravity turns both
/// joints towards +q; both upper limits are 0, so at q = 0 the pendulum rests on
/// its two limits, horizontal. The IMU is on the forearm (its origin at the
/// elbow, off the hinge's axis: it sees the arm's angular acceleration).
fn pendulum_urdf() -> String {
    let link = |name: &str, m: f64, l: f64| {
        let i = 0.4 * m * 0.02 * 0.02; // a 2 cm solid sphere's inertia
        format!(
            "<link name=\"{name}\"><inertial><origin xyz=\"{l} 0 0\"/><mass value=\"{m}\"/>\
             <inertia ixx=\"{i}\" iyy=\"{i}\" izz=\"{i}\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>\
             </inertial></link>\n"
        )
    };
    let joint = |name: &str, parent: &str, child: &str, x: f64| {
        format!(
            "<joint name=\"{name}\" type=\"revolute\"><parent link=\"{parent}\"/>\
             <child link=\"{child}\"/><origin xyz=\"{x} 0 0\"/><axis xyz=\"0 1 0\"/>\
             <limit lower=\"-1.5\" upper=\"0\" effort=\"100\" velocity=\"10\"/></joint>\n"
        )
    };
    format!(
        "<robot name=\"pendulum\">\n<link name=\"base\"/>\n{}{}{}{}</robot>\n",
        joint("hinge", "base", "arm", 0.0),
        link("arm", M1, L1),
        joint("elbow", "arm", "forearm", ELBOW),
        link("forearm", M2, L2)
    )
}

fn pendulum_model(solver: LcpSolverKind) -> Model {
    let desc = parse_urdf(
        &pendulum_urdf(),
        Path::new("."),
        "pendulum.urdf",
        &UrdfOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let opt = Options {
        dt: 1e-3,
        method: Method::Lcp(LcpParams {
            solver,
            ..LcpParams::default()
        }),
        ..Options::default()
    };
    let mut spec = RobotSpec::from_description(
        &desc,
        "pendulum",
        Base::Fixed(nalgebra::Isometry3::translation(0.0, 0.0, 1.0)),
        opt.gravity,
        Material::default(),
        &BTreeMap::new(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    spec.ft_sensors = vec!["hinge".into(), "elbow".into()];
    spec.imus = vec!["forearm".into()];
    let mut b = ModelBuilder::new(opt);
    b.add_robot(spec);
    b.finalize().unwrap_or_else(|e| panic!("{e}"))
}

/// The inertia of each link about its centre of mass, about y (the URDF's).
fn inertia(m: f64) -> f64 {
    0.4 * m * 0.02 * 0.02
}

/// e(θ) = R_y(θ) (1, 0, 0) and its derivative e'(θ) (e'' = −e).
fn e(t: f64) -> Vector3<f64> {
    Vector3::new(t.cos(), 0.0, -t.sin())
}
fn e_d(t: f64) -> Vector3<f64> {
    Vector3::new(-t.sin(), 0.0, -t.cos())
}

/// R_y(θ)ᵀ x: a world vector in a frame turned by R_y(θ).
fn into(t: f64, x: Vector3<f64>) -> Vector3<f64> {
    let (s, c) = t.sin_cos();
    Vector3::new(c * x.x - s * x.z, x.y, s * x.x + c * x.z)
}

/// What the sensors must read at the motion (q, q̇, q̈) of the plane pendulum
/// (Newton–Euler by hand, world frame, moments about the joints, each turned into
/// its link's frame): the forearm IMU's proper acceleration and gyro, the F/T at
/// the elbow and at the hinge (force, moment).
struct Reading {
    accel: Vector3<f64>,
    gyro: Vector3<f64>,
    elbow: (Vector3<f64>, Vector3<f64>),
    hinge: (Vector3<f64>, Vector3<f64>),
}

fn analytic(q: [f64; 2], qd: [f64; 2], qdd: [f64; 2], g: f64) -> Reading {
    let (t1, t2) = (q[0], q[0] + q[1]);
    let (w1, w2) = (qd[0], qd[0] + qd[1]);
    let (a1, a2) = (qdd[0], qdd[0] + qdd[1]);
    let up = Vector3::new(0.0, 0.0, g); // −a_g
    let y = Vector3::y();
    // Points relative to the hinge and their accelerations d (θ̈ e' − θ̇² e).
    let p_e = ELBOW * e(t1);
    let acc_e = ELBOW * (a1 * e_d(t1) - w1 * w1 * e(t1));
    let c1 = L1 * e(t1);
    let acc_c1 = L1 * (a1 * e_d(t1) - w1 * w1 * e(t1));
    let c2 = p_e + L2 * e(t2);
    let acc_c2 = acc_e + L2 * (a2 * e_d(t2) - w2 * w2 * e(t2));
    // The forces each link's motion needs (gravity as −a_g) and the moments.
    let f1 = M1 * (acc_c1 + up);
    let f2 = M2 * (acc_c2 + up);
    let n2_elbow = (c2 - p_e).cross(&f2) + inertia(M2) * a2 * y;
    let n_hinge = c1.cross(&f1) + inertia(M1) * a1 * y + c2.cross(&f2) + inertia(M2) * a2 * y;
    Reading {
        accel: into(t2, acc_e + up),
        gyro: w2 * y,
        elbow: (into(t2, f2), into(t2, n2_elbow)),
        hinge: (into(t1, f1 + f2), into(t1, n_hinge)),
    }
}

/// The double pendulum stepped 1 s from rest on its limits under `solver`: the
/// start configuration and velocity of the last step, its records, and the
/// limit torques (`qfrc_passive`).
struct Held {
    q: [f64; 2],
    qd: [f64; 2],
    qdd: [f64; 2],
    got: Reading,
    tau_lim: [f64; 2],
}

fn held(solver: LcpSolverKind) -> (Held, f64) {
    let model = pendulum_model(solver);
    let g = -model.opt.gravity.z;
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    let (mut q, mut qd) = ([0.0; 2], [0.0; 2]);
    for _ in 0..1000 {
        q = [data.qpos[0], data.qpos[1]];
        qd = [data.qvel[0], data.qvel[1]];
        pipeline.step(&model, &mut data);
    }
    assert_eq!(data.stats.quarantined, 0, "{solver:?}");
    let rd = &data.robots[0];
    let held = Held {
        q,
        qd,
        qdd: [data.qacc[0], data.qacc[1]],
        got: Reading {
            accel: rd.imu[0].accel,
            gyro: rd.imu[0].gyro,
            hinge: (rd.ft[0].lin, rd.ft[0].ang),
            elbow: (rd.ft[1].lin, rd.ft[1].ang),
        },
        tau_lim: [data.qfrc_passive[0], data.qfrc_passive[1]],
    };
    (held, g)
}

/// The largest relative error of `got` against `want`, each quantity against its
/// static magnitude (g for the IMU; the subtree's weight for a force, its weight
/// times the joint-to-tip distance for a moment), printed per quantity.
fn worst(got: &Reading, want: &Reading, g: f64) -> f64 {
    let (wf2, wn2) = (M2 * g, M2 * g * L2);
    let (wf1, wn1) = ((M1 + M2) * g, (M1 * L1 + M2 * (ELBOW + L2)) * g);
    let mut worst = 0.0f64;
    for (x, w, scale, what) in [
        (got.accel, want.accel, g, "IMU accel"),
        (got.gyro, want.gyro, g, "IMU gyro"),
        (got.elbow.0, want.elbow.0, wf2, "elbow force"),
        (got.elbow.1, want.elbow.1, wn2, "elbow moment"),
        (got.hinge.0, want.hinge.0, wf1, "hinge force"),
        (got.hinge.1, want.hinge.1, wn1, "hinge moment"),
    ] {
        let e = (x - w).norm() / scale;
        println!("    {what}: {x:?} vs {w:?}, err {e:.1e} rel");
        worst = worst.max(e);
    }
    worst
}

/// The sensors read the step's motion, every constraint impulse included: under
/// each LCP solver, the last step's IMU and F/T records equal the plane
/// pendulum's Newton–Euler values at that step's (q, q̇, q̈ = `qacc`) within 1e-9
/// relative, and each limit's constraint torque (`qfrc_passive`: impulse / h)
/// is its F/T moment about the joint axis within 1e-9 relative (the joint
/// transmits it). Before lcp24 the IMU read the step without its limit
/// impulses (Lemke: z = −5.863 m/s² against 9.810).
#[test]
fn sensors_read_the_motion_of_the_step() {
    for solver in [
        LcpSolverKind::Lemke,
        LcpSolverKind::Pgs,
        LcpSolverKind::Primal,
    ] {
        let (h, g) = held(solver);
        println!(
            "{solver:?}: q = {:?} rad, q̇ = {:?}, q̈ = {:?}",
            h.q, h.qd, h.qdd
        );
        let want = analytic(h.q, h.qd, h.qdd, g);
        let e = worst(&h.got, &want, g);
        let scales = [(M1 * L1 + M2 * (ELBOW + L2)) * g, M2 * g * L2];
        let ft_axis = [h.got.hinge.1.y, h.got.elbow.1.y];
        let mut e_lim = 0.0f64;
        for k in 0..2 {
            let ek = (h.tau_lim[k] - ft_axis[k]).abs() / scales[k];
            println!(
                "    limit torque {k}: {:.12} N·m vs F/T {:.12}, err {ek:.1e} rel",
                h.tau_lim[k], ft_axis[k]
            );
            e_lim = e_lim.max(ek);
        }
        println!("  worst {e:.1e} (sensors), {e_lim:.1e} (limit torques) rel; bound 1e-9");
        assert!(
            e <= 1e-9,
            "{solver:?}: sensors {e:e} rel from the step's motion"
        );
        assert!(
            e_lim <= 1e-9,
            "{solver:?}: limit torques {e_lim:e} rel from the F/T"
        );
    }
}

/// The held pendulum reads the static load: at q̈ = 0 and q̇ = 0 (the same values
/// at the step's q), the IMU reads g upward and the F/T sensors the weights and
/// their moments, within 1e-9 relative — Lemke and PGS, whose steps at rest are
/// static to round-off (q̈ ~ 1e-14).
#[test]
fn links_held_by_their_limits_read_the_static_load() {
    for solver in [LcpSolverKind::Lemke, LcpSolverKind::Pgs] {
        static_load(solver);
    }
}

/// As [`links_held_by_their_limits_read_the_static_load`] under the primal
/// solver: its sensors read its step (test above), but its step at rest is not
/// static to 1e-9.
#[test]
#[ignore = "primal's step at rest moves at its solver tolerance: q̈ = (-3.1e-8, 1.3e-7) rad/s², q̇ ~ 8e-11 rad/s; the IMU reads 2.6e-9 rel from static (bound 1e-9)"]
fn primal_held_reads_the_static_load() {
    static_load(LcpSolverKind::Primal);
}

fn static_load(solver: LcpSolverKind) {
    let (h, g) = held(solver);
    println!("{solver:?}: q = {:?} rad, q̈ = {:?}", h.q, h.qdd);
    let want = analytic(h.q, [0.0; 2], [0.0; 2], g);
    let e = worst(&h.got, &want, g);
    println!("  worst {e:.1e} rel from static; bound 1e-9");
    assert!(e <= 1e-9, "{solver:?}: {e:e} rel from the static load");
}
