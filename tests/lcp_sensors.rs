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

/// R_y(a)ᵀ (0, 0, g): the static proper acceleration (−a_g, g upward) in a frame
/// turned by R_y(a) from the world.
fn up_in(a: f64, g: f64) -> Vector3<f64> {
    let (s, c) = a.sin_cos();
    Vector3::new(-s * g, 0.0, c * g)
}

/// The pendulum starts on its limits at rest and is stepped 1 s under each LCP
/// solver; the last step's records are compared with the static values at that
/// step's start configuration (q₁, q₂) (the arm's frame turned by R_y(q₁) from
/// the world, the forearm's by R_y(q₁ + q₂)):
///
/// - IMU on the forearm (its frame, at the elbow): the proper acceleration
///   R_y(q₁ + q₂)ᵀ (0, 0, g); gyro 0;
/// - F/T at the elbow (forearm frame, about the elbow): force M2 u₂ with
///   u₂ = R_y(q₁ + q₂)ᵀ (0, 0, g), moment (L2, 0, 0) × M2 u₂;
/// - F/T at the hinge (arm frame, about the hinge): force (M1 + M2) u₁ with
///   u₁ = R_y(q₁)ᵀ (0, 0, g), moment (M1 c₁ + M2 c₂) × u₁ with c₁ = (L1, 0, 0)
///   and c₂ = (ELBOW, 0, 0) + R_y(q₂) (L2, 0, 0) the centres of mass in the
///   arm's frame;
/// - each limit's constraint torque (`qfrc_passive`) is its F/T moment about y.
///
/// Bound 1e-9 relative to the static magnitude (g for the IMU; the subtree's
/// weight for a force, its weight times the hinge-to-centre distance for a
/// moment and a limit torque): the step's motion is zero up to the solver's
/// tolerance.
#[test]
#[ignore = "fails before lcp24: the records come from a second ABA without the limit impulse; Lemke: the forearm IMU reads z = −5.863 m/s² vs 9.810 (1.6 rel)"]
fn links_held_by_their_limits_read_the_static_load() {
    for solver in [
        LcpSolverKind::Lemke,
        LcpSolverKind::Pgs,
        LcpSolverKind::Primal,
    ] {
        let model = pendulum_model(solver);
        let g = -model.opt.gravity.z;
        let mut data = Data::new(&model);
        let mut pipeline = rtphys::Pipeline::new(&model);
        let mut q = [0.0; 2];
        for _ in 0..1000 {
            q = [data.qpos[0], data.qpos[1]];
            pipeline.step(&model, &mut data);
        }
        assert_eq!(data.stats.quarantined, 0, "{solver:?}");
        let rd = &data.robots[0];
        let (imu, ft_hinge, ft_elbow) = (rd.imu[0], rd.ft[0], rd.ft[1]);
        let u1 = up_in(q[0], g);
        let u2 = up_in(q[0] + q[1], g);
        let (s2, c2) = q[1].sin_cos();
        let com2 = Vector3::new(ELBOW + c2 * L2, 0.0, -s2 * L2);
        let want = [
            (imu.accel, u2, g, "IMU accel"),
            (imu.gyro, Vector3::zeros(), g, "IMU gyro"),
            (ft_elbow.lin, M2 * u2, M2 * g, "elbow force"),
            (
                ft_elbow.ang,
                Vector3::new(L2, 0.0, 0.0).cross(&(M2 * u2)),
                M2 * g * L2,
                "elbow moment",
            ),
            (ft_hinge.lin, (M1 + M2) * u1, (M1 + M2) * g, "hinge force"),
            (
                ft_hinge.ang,
                (M1 * Vector3::new(L1, 0.0, 0.0) + M2 * com2).cross(&u1),
                (M1 * L1 + M2 * (ELBOW + L2)) * g,
                "hinge moment",
            ),
        ];
        println!(
            "{solver:?}: q = {q:?} rad, q̇ = {:?}, q̈ = {:?}",
            &data.qvel[..2],
            &data.qacc[..2]
        );
        let mut worst = 0.0f64;
        for (got, w, scale, what) in want {
            let e = (got - w).norm() / scale;
            println!("  {what}: {got:?} vs {w:?}, err {e:.1e} rel");
            assert!(e <= 1e-9, "{solver:?}: {what} {got:?} vs {w:?} ({e:e} rel)");
            worst = worst.max(e);
        }
        for (k, (ft, scale)) in [
            (ft_hinge, (M1 * L1 + M2 * (ELBOW + L2)) * g),
            (ft_elbow, M2 * g * L2),
        ]
        .into_iter()
        .enumerate()
        {
            let tau = data.qfrc_passive[k];
            let e = (tau - ft.ang.y).abs() / scale;
            println!(
                "  limit torque {k}: {tau:.9} N·m vs F/T {:.9}, err {e:.1e} rel",
                ft.ang.y
            );
            assert!(
                e <= 1e-9,
                "{solver:?}: limit torque {k} {tau} vs {}",
                ft.ang.y
            );
            worst = worst.max(e);
        }
        println!("  worst {worst:.1e} rel (bound 1e-9)");
    }
}
