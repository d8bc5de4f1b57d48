//! Floating-base articulated dynamics (`rtphys::dynamics`): the floating joint
//! and its configuration calculus, RNEA/CRBA/ABA on a 26-joint floating
//! humanoid-like tree and a fixed-base 7-DoF arm, the sparse `LᵀL` mass-matrix
//! solves, point Jacobians, transmitted joint wrenches and IMU readings —
//! tested as physics (free rigid body, Dzhanibekov top, momentum and energy
//! conservation, weight on the base). Every test states its tolerance.

use nalgebra::{DMatrix, DVector, Matrix3, Matrix6xX, Rotation3, UnitQuaternion, Vector3};
use rtphys::dynamics::{
    aba, center_of_mass, crba, difference, energy, factor_mass, forward_kinematics,
    forward_velocity, integrate, joint_wrenches, joint_wrenches_from, link_force_from_world,
    link_point_acceleration, link_point_velocity, link_pose, neutral_configuration, normalize,
    point_jacobian, q_derivative, rnea, solve_mass, solve_mass_columns, solve_mass_lt,
    spatial_momentum, ArticulatedData, ArticulatedModel, ArticulatedModelBuilder, DynamicsError,
    ExtInputs, ForceVec, ImplicitVelocity, Joint, SpatialInertia, SpatialTransform,
};
#[path = "common/alloc_counter.rs"]
mod alloc_counter;
#[path = "common/dynamics_fixtures.rs"]
mod fixtures;
use fixtures::{
    check_aba_inverts_rnea, humanoid_model, max_abs_diff, panda_model, Rng, FLOATING_HUMANOID, G,
};
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

// ---------------------------------------------------------------------------
// helpers

fn amax(a: &[f64]) -> f64 {
    a.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// The Panda-like arm (`ARM_LINKS`); its base placement (a table top at
/// (0.3, −0.2, 0.8), yawed 0.4 rad) folded into the root's `x_tree` as the
/// engine's caller does.
fn panda_on_table() -> ArticulatedModel {
    let yaw = *Rotation3::from_axis_angle(&Vector3::z_axis(), 0.4).matrix();
    panda_model(SpatialTransform::new(
        yaw.transpose(),
        Vector3::new(0.3, -0.2, 0.8),
    ))
}

/// A single floating link (mass `m`, centre of mass `c`, inertia `ic` about it).
fn free_body(m: f64, c: Vector3<f64>, ic: Matrix3<f64>, gravity: Vector3<f64>) -> ArticulatedModel {
    let mut b = ArticulatedModelBuilder::new().gravity(gravity);
    b.add_link(
        None,
        Joint::Floating,
        SpatialTransform::identity(),
        SpatialInertia::new(m, c, ic),
    );
    b.finalize().expect("valid free body")
}

/// State `(q, v)` and explicit RK4 on it: `q̇ = G(q) v` (`q_derivative`),
/// `v̇ = ABA(q, v, τ(t))`, sums taken in `R^nq` and the quaternions
/// renormalized after the step. `probe` sees `data` after every ABA
/// evaluation (all four stages).
struct Sim {
    q: Vec<f64>,
    v: Vec<f64>,
    t: f64,
}

impl Sim {
    fn step(
        &mut self,
        model: &ArticulatedModel,
        data: &mut ArticulatedData,
        h: f64,
        tau: &dyn Fn(f64, &mut [f64]),
        probe: &mut dyn FnMut(&ArticulatedData),
    ) -> Result<(), DynamicsError> {
        let (nq, nv) = (model.nq(), model.nv());
        let mut tau_buf = vec![0.0; nv];
        let mut deriv = |t: f64,
                         q: &[f64],
                         v: &[f64],
                         dq: &mut Vec<f64>,
                         dv: &mut Vec<f64>,
                         data: &mut ArticulatedData|
         -> Result<(), DynamicsError> {
            tau(t, &mut tau_buf);
            q_derivative(model, q, v, dq)?;
            aba(model, data, q, v, &tau_buf, &ExtInputs::default())?;
            probe(data);
            dv.copy_from_slice(data.qdd.as_slice());
            Ok(())
        };
        let axpy = |x: &[f64], k: &[f64], s: f64| -> Vec<f64> {
            x.iter().zip(k).map(|(a, b)| a + s * b).collect()
        };
        let (mut k1q, mut k1v) = (vec![0.0; nq], vec![0.0; nv]);
        let (mut k2q, mut k2v) = (k1q.clone(), k1v.clone());
        let (mut k3q, mut k3v) = (k1q.clone(), k1v.clone());
        let (mut k4q, mut k4v) = (k1q.clone(), k1v.clone());
        let t = self.t;
        deriv(t, &self.q, &self.v, &mut k1q, &mut k1v, data)?;
        let (q2, v2) = (axpy(&self.q, &k1q, h / 2.0), axpy(&self.v, &k1v, h / 2.0));
        deriv(t + h / 2.0, &q2, &v2, &mut k2q, &mut k2v, data)?;
        let (q3, v3) = (axpy(&self.q, &k2q, h / 2.0), axpy(&self.v, &k2v, h / 2.0));
        deriv(t + h / 2.0, &q3, &v3, &mut k3q, &mut k3v, data)?;
        let (q4, v4) = (axpy(&self.q, &k3q, h), axpy(&self.v, &k3v, h));
        deriv(t + h, &q4, &v4, &mut k4q, &mut k4v, data)?;
        for i in 0..nq {
            self.q[i] += h / 6.0 * (k1q[i] + 2.0 * k2q[i] + 2.0 * k3q[i] + k4q[i]);
        }
        for i in 0..nv {
            self.v[i] += h / 6.0 * (k1v[i] + 2.0 * k2v[i] + 2.0 * k3v[i] + k4v[i]);
        }
        self.t += h;
        normalize(model, &mut self.q)
    }
}

fn no_torque(_: f64, tau: &mut [f64]) {
    tau.fill(0.0);
}

// ---------------------------------------------------------------------------
// the floating joint: layout, validation, configuration calculus

#[test]
fn floating_joint_layout_and_validation() {
    let model = humanoid_model(&mut Rng(1), &FLOATING_HUMANOID, G);
    assert_eq!(model.num_links(), 28);
    assert_eq!((model.nq(), model.nv()), (33, 32));
    assert_eq!(model.joint()[0].nq(), 7);
    assert_eq!(model.joint()[0].nv(), 6);
    assert_eq!((model.q_index()[0], model.v_index()[0]), (Some(0), Some(0)));
    assert_eq!((model.q_index()[1], model.v_index()[1]), (Some(7), Some(6)));
    // DOF parents: within the floating joint, then the waist hangs from DOF 5
    let lambda = model.dof_parent();
    assert_eq!(
        &lambda[..7],
        &[None, Some(0), Some(1), Some(2), Some(3), Some(4), Some(5)]
    );
    assert!(lambda
        .iter()
        .enumerate()
        .all(|(k, p)| p.is_none_or(|p| p < k)));
    let q0 = neutral_configuration(&model);
    assert_eq!(&q0[..8], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]);

    // q = [p; Q] poses the root: origin p, Q rotates link into world
    // coordinates (90° about z: the link's x axis is the world's y axis)
    let mut data = ArticulatedData::new(&model);
    let mut q = q0.clone();
    let h = std::f64::consts::FRAC_1_SQRT_2;
    q[..7].copy_from_slice(&[1.0, 2.0, 3.0, h, 0.0, 0.0, h]);
    forward_kinematics(&model, &mut data, &q).expect("fk");
    let pose = link_pose(&model, &data, 0).expect("pose");
    assert!((pose.origin - Vector3::new(1.0, 2.0, 3.0)).amax() < 1e-15);
    assert!((pose.rotation * Vector3::x() - Vector3::y()).amax() < 1e-15);
    // v = [ω; v] in link coordinates: a body-x velocity moves the origin along world y
    let mut v = vec![0.0; model.nv()];
    v[3] = 1.0;
    let mut qdot = vec![0.0; model.nq()];
    q_derivative(&model, &q, &v, &mut qdot).expect("q̇");
    assert!(max_abs_diff(&qdot[..3], &[0.0, 1.0, 0.0]) < 1e-15);

    // a floating joint below a parent is refused, naming the link
    let mut b = ArticulatedModelBuilder::new();
    let inertia = SpatialInertia::point_mass(1.0, Vector3::zeros());
    b.add_link(
        None,
        Joint::Revolute(Vector3::z_axis()),
        SpatialTransform::identity(),
        inertia,
    );
    b.add_link(
        Some(0),
        Joint::Floating,
        SpatialTransform::identity(),
        inertia,
    );
    let err = b.finalize().expect_err("floating joint on a child link");
    assert_eq!(err, DynamicsError::FloatingNotRoot { link: 1, parent: 0 });
    assert!(err.to_string().contains("link 1"), "{err}");

    // a zero quaternion or a q of length nv is an error, not a panic
    let mut data = ArticulatedData::new(&model);
    let mut q = q0.clone();
    q[3] = 0.0;
    assert!(matches!(
        forward_kinematics(&model, &mut data, &q),
        Err(DynamicsError::InvalidQuaternion { link: 0, .. })
    ));
    let nv = model.nv();
    let r = aba(
        &model,
        &mut data,
        &vec![0.0; nv],
        &vec![0.0; nv],
        &vec![0.0; nv],
        &ExtInputs::default(),
    );
    assert!(matches!(
        r,
        Err(DynamicsError::InputLength { what: "q", .. })
    ));
    let mut b = vec![0.0; nv];
    assert_eq!(
        solve_mass(&data, &mut b),
        Err(DynamicsError::MassNotFactored)
    );
    assert!(matches!(
        link_pose(&model, &data, 99),
        Err(DynamicsError::LinkIndex { link: 99, .. })
    ));
}

/// `integrate` is the exact flow of a constant body twist: one step of `h`
/// equals 1000 steps of `h/1000` (1e-12); `q_derivative` is its derivative
/// (central difference, 1e-8); `difference` inverts it (1e-12); `normalize`
/// gives unit quaternions.
#[test]
fn configuration_calculus() {
    let mut rng = Rng(2);
    let model = humanoid_model(&mut rng, &FLOATING_HUMANOID, G);
    let (nq, nv) = (model.nq(), model.nv());
    let mut worst = [0.0f64; 3];
    for _ in 0..20 {
        let q = rng.configuration(&model, 1.0);
        let v = rng.vec(nv, 2.0);
        let h = 0.7;
        let mut one = vec![0.0; nq];
        integrate(&model, &q, &v, h, &mut one).expect("integrate");
        let mut many = q.clone();
        let mut tmp = vec![0.0; nq];
        for _ in 0..1000 {
            integrate(&model, &many, &v, h / 1000.0, &mut tmp).expect("integrate");
            many.copy_from_slice(&tmp);
        }
        worst[0] = worst[0].max(max_abs_diff(&one, &many));

        let eps = 1e-6;
        let (mut qp, mut qm, mut qdot) = (vec![0.0; nq], vec![0.0; nq], vec![0.0; nq]);
        integrate(&model, &q, &v, eps, &mut qp).expect("integrate");
        integrate(&model, &q, &v, -eps, &mut qm).expect("integrate");
        q_derivative(&model, &q, &v, &mut qdot).expect("q_derivative");
        let fd: Vec<f64> = qp
            .iter()
            .zip(&qm)
            .map(|(a, b)| (a - b) / (2.0 * eps))
            .collect();
        worst[1] = worst[1].max(max_abs_diff(&fd, &qdot));

        let mut back = vec![0.0; nv];
        difference(&model, &q, &one, &mut back).expect("difference");
        let vh: Vec<f64> = v.iter().map(|x| x * h).collect();
        worst[2] = worst[2].max(max_abs_diff(&back, &vh));

        let mut qn = q.clone();
        qn[3..7].iter_mut().for_each(|x| *x *= 1.3);
        normalize(&model, &mut qn).expect("normalize");
        assert!(max_abs_diff(&qn, &q) < 1e-15);
    }
    eprintln!(
        "integrate 1 vs 1000 steps {:e}, q̇ vs central difference {:e}, difference∘integrate {:e}",
        worst[0], worst[1], worst[2]
    );
    assert!(
        worst[0] < 1e-12 && worst[1] < 1e-8 && worst[2] < 1e-12,
        "{worst:?}"
    );
}

// ---------------------------------------------------------------------------
// RNEA / ABA / CRBA with a floating base

/// 1e-10 absolute (q̈ ~ 1 rad/s², m/s²).
#[test]
fn aba_inverts_rnea_floating_humanoid_and_fixed_arm() {
    let mut rng = Rng(3);
    let humanoid = humanoid_model(&mut rng, &FLOATING_HUMANOID, G);
    let e1 = check_aba_inverts_rnea(&humanoid, &mut rng, 200);
    let e2 = check_aba_inverts_rnea(&panda_on_table(), &mut rng, 200);
    eprintln!("max |aba(rnea(q̈)) − q̈|: floating humanoid {e1:e}, fixed-base arm {e2:e}");
    assert!(e1 < 1e-10 && e2 < 1e-10, "{e1:e} {e2:e}");
}

/// The velocity-product derivative `D = ∂C/∂v` of the implicit integrator
/// (`dynamics::implicit`, (D1)–(D4): one pass over each DoF's subtree) equals the
/// central difference `(C(v + s e_k) − C(v − s e_k)) / 2s` of the RNEA's
/// `C(q, v) = RNEA(q, v, 0) − RNEA(q, 0, 0)`, which is exact for a form quadratic
/// in `v` up to round-off: within 1e-9 of max |D| (measured 1.0e-14, 1.3e-14)
/// on the floating humanoid (32 DoF) and the fixed-base arm, 50 random states
/// each, |v| up to 10. And `D v = 2 C(v)` (Euler's theorem for a form of degree
/// 2), to the same bound.
#[test]
fn velocity_product_derivative_matches_the_central_difference() {
    let mut rng = Rng(21);
    let humanoid = humanoid_model(&mut rng, &FLOATING_HUMANOID, G);
    for model in [humanoid, panda_on_table()] {
        let nv = model.nv();
        let mut imp = ImplicitVelocity::new(&model);
        let mut data = ArticulatedData::new(&model);
        let zeros = vec![0.0; nv];
        let none = ExtInputs::default();
        let mut c = |q: &[f64], v: &[f64]| -> DVector<f64> {
            rnea(&model, &mut data, q, v, &zeros, &none).expect("rnea");
            let cv = data.tau.clone();
            rnea(&model, &mut data, q, &zeros, &zeros, &none).expect("rnea");
            cv - &data.tau
        };
        let mut worst = 0.0f64;
        for _ in 0..50 {
            let q = rng.configuration(&model, 1.0);
            let v = rng.vec(nv, 10.0);
            let d = imp.derivative(&model, &q, &v).expect("D").clone();
            let s = v.iter().fold(1.0f64, |m, x| m.max(x.abs()));
            let mut fd = DMatrix::zeros(nv, nv);
            for k in 0..nv {
                let (mut vp, mut vm) = (v.clone(), v.clone());
                vp[k] += s;
                vm[k] -= s;
                fd.set_column(k, &((c(&q, &vp) - c(&q, &vm)) / (2.0 * s)));
            }
            let scale = d.amax().max(1.0);
            worst = worst.max((&d - &fd).amax() / scale);
            let euler = (&d * DVector::from_column_slice(&v)) - c(&q, &v) * 2.0;
            worst = worst.max(euler.amax() / scale);
        }
        eprintln!("nv {nv}: max |D − central difference| / max |D| = {worst:e}");
        assert!(worst <= 1e-9, "nv {nv}: {worst:e}");
    }
}

/// q̈ = H⁻¹ (τ − C) with H from CRBA, C = RNEA(q, q̇, 0) and the sparse LᵀL
/// solve agrees with ABA to 1e-10 (absolute, q̈ ~ 1–100); the LᵀL solve agrees
/// with a dense Cholesky solve to 1e-10 relative; `solve_mass_columns` equals
/// column-wise `solve_mass` (1e-14 relative); `(L⁻ᵀb)ᵀ(L⁻ᵀc) = bᵀH⁻¹c` (1e-10
/// relative); `L` has no fill-in (zero wherever the lower triangle of H is).
fn check_mass_solves(model: &ArticulatedModel, rng: &mut Rng) -> f64 {
    let nv = model.nv();
    let mut data = ArticulatedData::new(model);
    let mut worst: f64 = 0.0;
    for _ in 0..50 {
        let q = rng.configuration(model, 3.0);
        let (qd, tau) = (rng.vec(nv, 2.0), rng.vec(nv, 20.0));
        aba(model, &mut data, &q, &qd, &tau, &ExtInputs::default()).expect("aba");
        let qdd_aba = data.qdd.as_slice().to_vec();
        rnea(
            model,
            &mut data,
            &q,
            &qd,
            &vec![0.0; nv],
            &ExtInputs::default(),
        )
        .expect("rnea");
        let mut b: Vec<f64> = tau
            .iter()
            .zip(data.tau.iter())
            .map(|(t, c)| t - c)
            .collect();
        let rhs = DVector::from_column_slice(&b);
        crba(model, &mut data, &q).expect("crba");
        factor_mass(&mut data).expect("factor");
        solve_mass(&data, &mut b).expect("solve");
        worst = worst.max(max_abs_diff(&b, &qdd_aba));

        // dense Cholesky of the symmetrized H
        let h = &data.mass_matrix;
        let hs = (h + h.transpose()) * 0.5;
        assert!((h - &hs).amax() <= 1e-14 * h.amax(), "H not symmetric");
        let dense = hs.clone().cholesky().expect("H SPD").solve(&rhs);
        let rel = (DVector::from_column_slice(&b) - &dense).amax() / dense.amax();
        assert!(rel < 1e-10, "LᵀL vs dense Cholesky {rel:e}");
        // no fill-in: L(r, c) = 0 unless DOF c is r or an ancestor of r (the
        // structural pattern of H's lower triangle), and LᵀL = H
        let l = &data.mass_factor;
        let lambda = model.dof_parent();
        for r in 0..nv {
            let mut on_path = vec![false; nv];
            let mut k = Some(r);
            while let Some(kk) = k {
                on_path[kk] = true;
                k = lambda[kk];
            }
            for c in 0..nv {
                if c > r {
                    assert_eq!(l[(r, c)], 0.0, "L not lower triangular at ({r}, {c})");
                } else if !on_path[c] {
                    assert_eq!(l[(r, c)], 0.0, "fill-in at ({r}, {c})");
                    assert_eq!(h[(r, c)], 0.0, "H not branch-sparse at ({r}, {c})");
                }
            }
        }
        assert!((l.transpose() * l - h).amax() < 1e-12 * h.amax());
        // many right-hand sides
        let mut cols = DMatrix::from_fn(nv, 3, |_, _| rng.sym());
        let orig = cols.clone();
        solve_mass_columns(&data, &mut cols).expect("columns");
        for c in 0..3 {
            let mut x = orig.column(c).iter().copied().collect::<Vec<_>>();
            solve_mass(&data, &mut x).expect("solve");
            assert!(max_abs_diff(&x, cols.column(c).as_slice()) <= 1e-14 * amax(&x));
        }
        // half solves: bᵀ H⁻¹ c
        let (mut lb, mut lc) = (
            orig.column(0).iter().copied().collect::<Vec<_>>(),
            orig.column(1).iter().copied().collect::<Vec<_>>(),
        );
        solve_mass_lt(&data, &mut lb).expect("lt");
        solve_mass_lt(&data, &mut lc).expect("lt");
        let lhs: f64 = lb.iter().zip(&lc).map(|(a, b)| a * b).sum();
        let rhs2 = orig.column(0).dot(&cols.column(1));
        assert!(
            (lhs - rhs2).abs() <= 1e-10 * rhs2.abs().max(1.0),
            "{lhs} vs {rhs2}"
        );
    }
    worst
}

#[test]
fn crba_bias_and_sparse_solve_match_aba() {
    let mut rng = Rng(4);
    let humanoid = humanoid_model(&mut rng, &FLOATING_HUMANOID, G);
    let e1 = check_mass_solves(&humanoid, &mut rng);
    let e2 = check_mass_solves(&panda_on_table(), &mut rng);
    eprintln!("max |H⁻¹(τ − C) − aba|: floating humanoid {e1:e}, fixed-base arm {e2:e}");
    assert!(e1 < 1e-10 && e2 < 1e-10, "{e1:e} {e2:e}");
}

// ---------------------------------------------------------------------------
// a single floating link is a free rigid body

/// A tumbling body (COM 0.2 m off the link origin, asymmetric inertia,
/// |ω| ≈ 2.3 rad/s) thrown under gravity: over 2 s of RK4 at h = 1e-3 its
/// centre of mass follows c₀ + v₀ t + g t²/2 to 1e-9 m, and at every ABA
/// evaluation the COM acceleration is g to 1e-10 m/s², and an accelerometer
/// at r from the COM reads α × r + ω × (ω × r) with α from Euler's equations
/// (the gravity part cancels in free fall) to 1e-10 m/s².
#[test]
fn free_body_falls_as_g_t2_over_2() {
    let c = Vector3::new(0.1, -0.05, 0.15);
    let ic = Matrix3::new(0.3, 0.02, 0.0, 0.02, 0.25, 0.01, 0.0, 0.01, 0.1);
    let model = free_body(3.0, c, ic, G);
    let mut data = ArticulatedData::new(&model);
    let mut rng = Rng(5);
    let quat = rng.unit_quaternion();
    let rot = UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
        quat[0], quat[1], quat[2], quat[3],
    ));
    let p0 = Vector3::new(0.2, 0.1, 1.0);
    let omega = Vector3::new(1.0, 2.0, -0.5); // body coordinates
    let vc0 = Vector3::new(0.3, 0.0, 2.0); // world COM velocity
                                           // body-coordinate velocity of the link origin: v_O = Rᵀ v_c − ω × c
    let v_o = rot.inverse() * vc0 - omega.cross(&c);
    let mut sim = Sim {
        q: vec![p0.x, p0.y, p0.z, quat[0], quat[1], quat[2], quat[3]],
        v: vec![omega.x, omega.y, omega.z, v_o.x, v_o.y, v_o.z],
        t: 0.0,
    };
    let com0 = p0 + rot * c;
    let (mut worst_acc, mut worst_imu, mut worst_pos) = (0.0f64, 0.0f64, 0.0f64);
    let probe_points = [Vector3::zeros(), Vector3::new(0.3, -0.2, 0.1)];
    for _ in 0..2000 {
        sim.step(&model, &mut data, 1e-3, &no_torque, &mut |d| {
            let pose = link_pose(&model, d, 0).expect("pose");
            let com = pose.point_to_world(&c);
            // Euler's equations in the world: I_w ω̇ = −ω × I_w ω
            let i_w = pose.rotation * ic * pose.rotation.transpose();
            let omega = link_point_acceleration(&model, d, 0, &com)
                .expect("imu")
                .omega;
            let alpha = i_w
                .lu()
                .solve(&(-omega.cross(&(i_w * omega))))
                .expect("I invertible");
            for p_link in &probe_points {
                // free fall: the accelerometer at r from the COM reads only the
                // rotational part α × r + ω × (ω × r)
                let p = pose.point_to_world(p_link);
                let r = p - com;
                let imu = link_point_acceleration(&model, d, 0, &p).expect("imu");
                let expected = alpha.cross(&r) + omega.cross(&omega.cross(&r));
                worst_imu = worst_imu
                    .max((imu.proper - expected).amax())
                    .max((imu.alpha - alpha).amax());
            }
            let com = pose.point_to_world(&c);
            let a = link_point_acceleration(&model, d, 0, &com).expect("imu");
            worst_acc = worst_acc.max(a.proper.amax()); // a_com − g
        })
        .expect("step");
        forward_kinematics(&model, &mut data, &sim.q).expect("fk");
        let com = center_of_mass(&model, &data);
        let t = sim.t;
        let expected = com0 + vc0 * t + G * (t * t / 2.0);
        worst_pos = worst_pos.max((com - expected).amax());
    }
    eprintln!(
        "free fall: |COM − (c₀ + v₀t + gt²/2)| ≤ {worst_pos:e} m, |a_com − g| ≤ {worst_acc:e}, accelerometer ≤ {worst_imu:e}"
    );
    assert!(worst_pos < 1e-9 && worst_acc < 1e-10 && worst_imu < 1e-10);
}

/// Dzhanibekov effect: a torque-free top with principal moments (1, 2, 3) kg m²
/// spun at 5 rad/s about the intermediate axis with a 1e-2 rad/s perturbation
/// flips (ω₂ changes sign, at least twice in 10 s) while RK4 at h = 1e-3
/// over 10 s keeps |ΔT|/T < 1e-8 and |ΔL|/|L| < 1e-8 (world-frame angular
/// momentum about the COM).
#[test]
fn torque_free_asymmetric_top_conserves_energy_and_momentum() {
    let model = free_body(
        1.0,
        Vector3::zeros(),
        Matrix3::from_diagonal(&Vector3::new(1.0, 2.0, 3.0)),
        Vector3::zeros(),
    );
    let mut data = ArticulatedData::new(&model);
    let mut sim = Sim {
        q: vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        v: vec![1e-2, 5.0, 1e-2, 0.0, 0.0, 0.0],
        t: 0.0,
    };
    let measure = |data: &mut ArticulatedData, sim: &Sim| {
        let e = energy(&model, data, &sim.q, &sim.v).expect("energy");
        (e.kinetic, spatial_momentum(&model, data).ang)
    };
    let (t0, l0) = measure(&mut data, &sim);
    let (mut dt, mut dl, mut flips, mut prev) = (0.0f64, 0.0f64, 0, sim.v[1]);
    for _ in 0..10_000 {
        sim.step(&model, &mut data, 1e-3, &no_torque, &mut |_| {})
            .expect("step");
        let (t, l) = measure(&mut data, &sim);
        dt = dt.max((t - t0).abs() / t0);
        dl = dl.max((l - l0).norm() / l0.norm());
        if sim.v[1].signum() != prev.signum() {
            flips += 1;
            prev = sim.v[1];
        }
    }
    eprintln!("Dzhanibekov top: {flips} flips in 10 s, max |ΔT|/T = {dt:e}, max |ΔL|/|L| = {dl:e}");
    assert!(flips >= 2, "no flip");
    assert!(dt < 1e-8 && dl < 1e-8, "{dt:e} {dl:e}");
}

// ---------------------------------------------------------------------------
// a free-floating tree

/// Joint torques τ_k(t) = A_k sin(ω_k t + φ_k) on the 26 revolute joints,
/// none on the floating base; |A_k| ≤ 3 rad/s² / (H⁻¹)_kk(q₀), the inertia
/// joint k feels with the rest of the free-floating tree free, so that every
/// joint, heavy hip or light wrist, accelerates at a few rad/s² (a constant
/// 5 N m on a 0.5 kg wrist would spin it at 10⁴ rad/s²).
fn internal_torques(model: &ArticulatedModel, q0: &[f64]) -> impl Fn(f64, &mut [f64]) {
    let nv = model.nv();
    let mut data = ArticulatedData::new(model);
    crba(model, &mut data, q0).expect("crba");
    factor_mass(&mut data).expect("factor");
    let mut rng = Rng(77);
    let params: Vec<(f64, f64, f64)> = (0..nv)
        .map(|k| {
            let mut e_k = vec![0.0; nv];
            e_k[k] = 1.0;
            solve_mass(&data, &mut e_k).expect("solve");
            let a = if k < 6 { 0.0 } else { 3.0 / e_k[k] * rng.sym() };
            (a, rng.range(1.0, 6.0), rng.range(0.0, 6.0))
        })
        .collect();
    move |t, tau: &mut [f64]| {
        for (x, (a, w, p)) in tau.iter_mut().zip(&params) {
            *x = a * (w * t + p).sin();
        }
    }
}

/// Zero gravity, joint torques, no external force: over 2 s of RK4 at h = 1e-3
/// the world linear and angular momentum (about the world origin) stay within
/// 1e-9 of their initial values, relative to |h(0)| (the base drifting at
/// ≈ 1 m/s, the joints starting at ≤ 1 rad/s and driven up to ≈ 10 rad/s).
#[test]
fn free_floating_tree_conserves_momentum_under_joint_torques() {
    let mut rng = Rng(8);
    let model = humanoid_model(&mut rng, &FLOATING_HUMANOID, Vector3::zeros());
    let mut data = ArticulatedData::new(&model);
    let nv = model.nv();
    let mut sim = Sim {
        q: rng.configuration(&model, 0.5),
        v: rng.vec(nv, 1.0),
        t: 0.0,
    };
    let tau = internal_torques(&model, &sim.q);
    forward_velocity(&model, &mut data, &sim.q, &sim.v).expect("fv");
    let h0 = spatial_momentum(&model, &data);
    let (mut dlin, mut dang) = (0.0f64, 0.0f64);
    let mut vmax = 0.0f64;
    for _ in 0..2000 {
        sim.step(&model, &mut data, 1e-3, &tau, &mut |_| {})
            .expect("step");
        forward_velocity(&model, &mut data, &sim.q, &sim.v).expect("fv");
        let h = spatial_momentum(&model, &data);
        vmax = vmax.max(amax(&sim.v[6..]));
        dlin = dlin.max((h.lin - h0.lin).norm() / h0.lin.norm());
        dang = dang.max((h.ang - h0.ang).norm() / h0.ang.norm());
    }
    eprintln!(
        "free-floating tree, 2 s (max joint speed {vmax:.1} rad/s): |p₀| = {:.3} kg m/s, |L₀| = {:.3} kg m²/s, max rel drift linear {dlin:e}, angular {dang:e}",
        h0.lin.norm(),
        h0.ang.norm()
    );
    assert!(dlin < 1e-9 && dang < 1e-9, "{dlin:e} {dang:e}");
}

/// Under gravity with joint torques and no external force, the centre of mass
/// accelerates at exactly g at every ABA evaluation (4 per step, 1 s of RK4 at
/// h = 1e-3): |Σ mᵢ a_cᵢ / M − g| < 1e-10 m/s², with a_cᵢ each link COM's
/// classical acceleration (its proper acceleration + g).
#[test]
fn floating_tree_com_accelerates_at_g() {
    let mut rng = Rng(9);
    let model = humanoid_model(&mut rng, &FLOATING_HUMANOID, G);
    let mut data = ArticulatedData::new(&model);
    let nv = model.nv();
    let mut sim = Sim {
        q: rng.configuration(&model, 0.5),
        v: rng.vec(nv, 1.0),
        t: 0.0,
    };
    let tau = internal_torques(&model, &sim.q);
    let m = model.total_mass();
    let mut worst = 0.0f64;
    for _ in 0..1000 {
        sim.step(&model, &mut data, 1e-3, &tau, &mut |d| {
            let mut sum = Vector3::zeros();
            for (i, inertia) in model.inertia().iter().enumerate() {
                let c = link_pose(&model, d, i)
                    .expect("pose")
                    .point_to_world(&inertia.com);
                let a = link_point_acceleration(&model, d, i, &c).expect("acc");
                sum += inertia.mass * (a.proper + G);
            }
            worst = worst.max((sum / m - G).amax());
        })
        .expect("step");
    }
    eprintln!("floating tree under gravity: max |a_com − g| = {worst:e} m/s²");
    assert!(worst < 1e-10, "{worst:e}");
}

/// Undamped floating humanoid, no torques, started with ≈ 1 rad/s at every
/// joint: RK4 at h = 1e-3 keeps max |E(t) − E(0)| < 1e-6 relative to the
/// kinetic energy, over 5 s in zero gravity and over 2 s in flight under gravity.
#[test]
fn floating_humanoid_conserves_energy() {
    for (gravity, steps) in [(Vector3::zeros(), 5000), (G, 2000)] {
        let mut rng = Rng(10);
        let model = humanoid_model(&mut rng, &FLOATING_HUMANOID, gravity);
        let mut data = ArticulatedData::new(&model);
        let nv = model.nv();
        let mut sim = Sim {
            q: rng.configuration(&model, 0.5),
            v: rng.vec(nv, 1.0),
            t: 0.0,
        };
        let e0 = energy(&model, &mut data, &sim.q, &sim.v).expect("energy");
        let mut drift = 0.0f64;
        for _ in 0..steps {
            sim.step(&model, &mut data, 1e-3, &no_torque, &mut |_| {})
                .expect("step");
            let e = energy(&model, &mut data, &sim.q, &sim.v).expect("energy");
            drift = drift.max((e.total() - e0.total()).abs());
        }
        let rel = drift / e0.kinetic;
        eprintln!(
            "floating humanoid, g = {:.2}, {} s: T₀ = {:.3} J, max |ΔE| = {drift:e} J, rel {rel:e}",
            gravity.norm(),
            steps as f64 * 1e-3,
            e0.kinetic
        );
        assert!(rel < 1e-6, "{rel:e}");
    }
}

// ---------------------------------------------------------------------------
// Jacobians

/// Point Jacobians of several links of the floating humanoid and the arm:
/// against central differences of forward kinematics along each DOF (moving
/// by `integrate` with a unit velocity, ε = 1e-6): 1e-6; against the link
/// twists from `forward_velocity` (J q̇ = [ω; v_p]): 1e-12 relative.
#[test]
fn point_jacobian_matches_finite_differences_and_twists() {
    let mut rng = Rng(11);
    for model in [
        humanoid_model(&mut rng, &FLOATING_HUMANOID, G),
        panda_on_table(),
    ] {
        let (nq, nv) = (model.nq(), model.nv());
        let mut data = ArticulatedData::new(&model);
        let mut j = Matrix6xX::zeros(nv);
        let (mut worst_fd, mut worst_tw) = (0.0f64, 0.0f64);
        for _ in 0..10 {
            let q = rng.configuration(&model, 2.0);
            let qd = rng.vec(nv, 1.0);
            for link in [model.num_links() - 1, model.num_links() / 2, 0] {
                forward_velocity(&model, &mut data, &q, &qd).expect("fv");
                let pose = link_pose(&model, &data, link).expect("pose");
                let p_link = rng.vec3() * 0.3;
                let p = pose.point_to_world(&p_link);
                point_jacobian(&model, &data, link, &p, &mut j).expect("jacobian");
                // twist
                let tw = link_point_velocity(&model, &data, link, &p).expect("twist");
                let jq = &j * DVector::from_column_slice(&qd);
                let e = (jq.fixed_rows::<3>(0) - tw.omega)
                    .amax()
                    .max((jq.fixed_rows::<3>(3) - tw.v).amax());
                worst_tw = worst_tw.max(e / jq.amax().max(1.0));
                // finite differences along each DOF
                let eps = 1e-6;
                let (mut qp, mut qm) = (vec![0.0; nq], vec![0.0; nq]);
                for k in 0..nv {
                    let mut e_k = vec![0.0; nv];
                    e_k[k] = 1.0;
                    integrate(&model, &q, &e_k, eps, &mut qp).expect("integrate");
                    integrate(&model, &q, &e_k, -eps, &mut qm).expect("integrate");
                    forward_kinematics(&model, &mut data, &qp).expect("fk");
                    let pp = link_pose(&model, &data, link).expect("pose");
                    forward_kinematics(&model, &mut data, &qm).expect("fk");
                    let pm = link_pose(&model, &data, link).expect("pose");
                    let dv =
                        (pp.point_to_world(&p_link) - pm.point_to_world(&p_link)) / (2.0 * eps);
                    // ω from the skew part of R₊R₋ᵀ = exp(2ε ω×) (acos-free: O(ε²) accurate)
                    let a = pp.rotation * pm.rotation.transpose();
                    let skew = (a - a.transpose()) * 0.5;
                    let dw = Vector3::new(skew[(2, 1)], skew[(0, 2)], skew[(1, 0)]) / (2.0 * eps);
                    let col = j.column(k);
                    let e = (col.fixed_rows::<3>(0) - dw)
                        .amax()
                        .max((col.fixed_rows::<3>(3) - dv).amax());
                    worst_fd = worst_fd.max(e);
                }
            }
        }
        eprintln!("nv = {nv}: Jacobian vs finite differences {worst_fd:e}, vs twists {worst_tw:e}");
        assert!(
            worst_fd < 1e-6 && worst_tw < 1e-12,
            "{worst_fd:e} {worst_tw:e}"
        );
    }
}

/// A contact force at a world point enters ABA either as an external spatial
/// force (`link_force_from_world` → `f_ext`) or as the generalized force
/// `Jᵀ [n; f]` added to τ: both give the same q̈ (1e-10 absolute), and the
/// power balances, `⟨v_i, f_i⟩ = ω·n + v_p·f` (1e-12 relative).
#[test]
fn world_contact_force_equals_jacobian_transpose() {
    let mut rng = Rng(15);
    for model in [
        humanoid_model(&mut rng, &FLOATING_HUMANOID, G),
        panda_on_table(),
    ] {
        let nv = model.nv();
        let mut data = ArticulatedData::new(&model);
        let mut j = Matrix6xX::zeros(nv);
        let mut worst = (0.0f64, 0.0f64);
        for _ in 0..20 {
            let q = rng.configuration(&model, 2.0);
            let (qd, tau) = (rng.vec(nv, 1.0), rng.vec(nv, 5.0));
            let link = model.num_links() - 1 - (rng.next_u64() % 3) as usize;
            forward_velocity(&model, &mut data, &q, &qd).expect("fv");
            let p = link_pose(&model, &data, link)
                .expect("pose")
                .point_to_world(&(rng.vec3() * 0.2));
            let (f, n) = (rng.vec3() * 50.0, rng.vec3() * 2.0);
            let fi = link_force_from_world(&model, &data, link, &p, &f, &n).expect("force");
            let tw = link_point_velocity(&model, &data, link, &p).expect("twist");
            let power = tw.omega.dot(&n) + tw.v.dot(&f);
            worst.1 = worst
                .1
                .max((data.v[link].dot(&fi) - power).abs() / power.abs().max(1.0));
            point_jacobian(&model, &data, link, &p, &mut j).expect("jacobian");
            let w = nalgebra::Vector6::new(n.x, n.y, n.z, f.x, f.y, f.z);
            let tau_j: Vec<f64> = (DVector::from_column_slice(&tau) + j.transpose() * w)
                .iter()
                .copied()
                .collect();
            let mut f_ext = vec![ForceVec::zero(); model.num_links()];
            f_ext[link] = fi;
            let ext = ExtInputs {
                f_ext: Some(&f_ext),
                damping: None,
                armature: None,
            };
            aba(&model, &mut data, &q, &qd, &tau, &ext).expect("aba");
            let qdd_ext = data.qdd.as_slice().to_vec();
            aba(&model, &mut data, &q, &qd, &tau_j, &ExtInputs::default()).expect("aba");
            worst.0 = worst.0.max(max_abs_diff(&qdd_ext, data.qdd.as_slice()));
        }
        eprintln!(
            "nv = {nv}: q̈ with f_ext vs with τ + Jᵀw {:e}, power {:e}",
            worst.0, worst.1
        );
        assert!(worst.0 < 1e-10 && worst.1 < 1e-12, "{worst:?}");
    }
}

// ---------------------------------------------------------------------------
// transmitted joint wrenches, IMU

/// After ABA with τ, external forces and damping, `joint_wrenches` equals
/// RNEA's transmitted forces `f` at the q̈ ABA found, to 1e-9 relative to the
/// largest force; `Sᵢᵀ fᵢ = τᵢ − bᵢ q̇ᵢ` on one-DoF joints and `f_root = τ_root
/// − b q̇` on the floating base (same tolerance).
#[test]
fn joint_wrenches_match_rnea() {
    let mut rng = Rng(12);
    for model in [
        humanoid_model(&mut rng, &FLOATING_HUMANOID, G),
        panda_on_table(),
    ] {
        let nv = model.nv();
        let mut data = ArticulatedData::new(&model);
        let damping: Vec<f64> = (0..nv).map(|_| rng.range(0.0, 1.0)).collect();
        let mut worst = 0.0f64;
        for _ in 0..50 {
            let q = rng.configuration(&model, 3.0);
            let (qd, tau) = (rng.vec(nv, 2.0), rng.vec(nv, 20.0));
            let f_ext: Vec<ForceVec> = (0..model.num_links())
                .map(|_| rng.force().scale(5.0))
                .collect();
            let ext = ExtInputs {
                f_ext: Some(&f_ext),
                damping: Some(&damping),
                armature: None,
            };
            aba(&model, &mut data, &q, &qd, &tau, &ext).expect("aba");
            joint_wrenches(&model, &mut data, &ext).expect("wrenches");
            let f_aba = data.f.clone();
            let qdd = data.qdd.as_slice().to_vec();
            rnea(&model, &mut data, &q, &qd, &qdd, &ext).expect("rnea");
            let scale = f_aba
                .iter()
                .fold(1.0f64, |m, f| m.max(f.to_vector6().amax()));
            for (i, (fa, fr)) in f_aba.iter().zip(&data.f).enumerate() {
                worst = worst.max((fa.to_vector6() - fr.to_vector6()).amax() / scale);
                match (model.joint()[i], model.v_index()[i]) {
                    (Joint::Floating, Some(k)) => {
                        for r in 0..6 {
                            let net = tau[k + r] - damping[k + r] * qd[k + r];
                            worst = worst.max((fa.to_vector6()[r] - net).abs() / scale);
                        }
                    }
                    (_, Some(k)) => {
                        let net = tau[k] - damping[k] * qd[k];
                        worst = worst.max((data.s[i].dot(fa) - net).abs() / scale);
                    }
                    _ => {}
                }
            }
        }
        eprintln!("nv = {nv}: joint_wrenches vs RNEA f, Sᵀf vs τ − bq̇: {worst:e} (relative)");
        assert!(worst < 1e-9, "{worst:e}");
    }
}

/// `joint_wrenches_from(first)` (the F/T sensors' subtrees only) writes, for
/// every link `i ≥ first`, bit for bit the wrench of the whole pass, whatever
/// `f` held before (here NaN), and leaves the links below `first` untouched:
/// exact equality, on the floating humanoid and the arm, every `first`.
#[test]
fn joint_wrenches_from_a_link_equal_the_whole_pass() {
    let mut rng = Rng(14);
    for model in [
        humanoid_model(&mut rng, &FLOATING_HUMANOID, G),
        panda_on_table(),
    ] {
        let (n, nv) = (model.num_links(), model.nv());
        let mut data = ArticulatedData::new(&model);
        for _ in 0..10 {
            let q = rng.configuration(&model, 3.0);
            let (qd, tau) = (rng.vec(nv, 2.0), rng.vec(nv, 20.0));
            let f_ext: Vec<ForceVec> = (0..n).map(|_| rng.force().scale(5.0)).collect();
            let ext = ExtInputs {
                f_ext: Some(&f_ext),
                damping: None,
                armature: None,
            };
            aba(&model, &mut data, &q, &qd, &tau, &ext).expect("aba");
            joint_wrenches(&model, &mut data, &ext).expect("wrenches");
            let whole = data.f.clone();
            for first in 0..n {
                let nan = ForceVec::new(Vector3::repeat(f64::NAN), Vector3::repeat(f64::NAN));
                data.f.iter_mut().for_each(|f| *f = nan);
                joint_wrenches_from(&model, &mut data, &ext, first).expect("wrenches");
                for (i, (got, want)) in data.f.iter().zip(&whole).enumerate() {
                    let (got, want) = (got.to_vector6(), want.to_vector6());
                    if i >= first {
                        let same = got
                            .iter()
                            .zip(want.iter())
                            .all(|(a, b)| a.to_bits() == b.to_bits());
                        assert!(same, "first {first}, link {i}: {got:?} vs {want:?}");
                    } else {
                        assert!(
                            got.iter().all(|x| x.is_nan()),
                            "first {first}: link {i} written"
                        );
                    }
                }
            }
        }
    }
}

/// The arm at rest under gravity, held by τ = G(q) (RNEA(q, 0, 0)): ABA gives
/// q̈ = 0 and the wrench the base transmits at the root joint is the total
/// weight pushed up, +M|g| ẑ, and the moment about the root origin that holds
/// the arm, Σ mᵢ (cᵢ − o) × (−g): 1e-9 relative. An accelerometer anywhere
/// on the resting arm reads (0, 0, +9.81) to 1e-9 m/s².
#[test]
fn resting_arm_transmits_its_weight_to_the_base() {
    let model = panda_on_table();
    let nv = model.nv();
    let mut data = ArticulatedData::new(&model);
    let mut rng = Rng(13);
    let m = model.total_mass();
    let (mut worst_f, mut worst_imu) = (0.0f64, 0.0f64);
    for _ in 0..20 {
        let q = rng.configuration(&model, 2.0);
        let zero = vec![0.0; nv];
        rnea(&model, &mut data, &q, &zero, &zero, &ExtInputs::default()).expect("rnea");
        let tau = data.tau.as_slice().to_vec();
        aba(&model, &mut data, &q, &zero, &tau, &ExtInputs::default()).expect("aba");
        assert!(data.qdd.amax() < 1e-10);
        joint_wrenches(&model, &mut data, &ExtInputs::default()).expect("wrenches");
        let root = link_pose(&model, &data, 0).expect("pose");
        let force_world = root.rotation * data.f[0].lin;
        let moment_world = root.rotation * data.f[0].ang;
        let mut expected_moment = Vector3::zeros();
        for (i, inertia) in model.inertia().iter().enumerate() {
            let c = link_pose(&model, &data, i)
                .expect("pose")
                .point_to_world(&inertia.com);
            expected_moment += (c - root.origin).cross(&(-inertia.mass * G));
        }
        let weight = m * 9.81;
        worst_f = worst_f.max((force_world - Vector3::new(0.0, 0.0, weight)).amax() / weight);
        worst_f = worst_f.max((moment_world - expected_moment).amax() / (weight * 1.0));
        for link in 0..model.num_links() {
            let p = link_pose(&model, &data, link)
                .expect("pose")
                .point_to_world(&rng.vec3());
            let imu = link_point_acceleration(&model, &data, link, &p).expect("imu");
            worst_imu = worst_imu.max((imu.proper - Vector3::new(0.0, 0.0, 9.81)).amax());
        }
    }
    eprintln!(
        "resting arm ({m:.2} kg): base wrench vs weight and its moment {worst_f:e} (relative to M g, M g × 1 m), accelerometer {worst_imu:e}"
    );
    assert!(
        worst_f < 1e-9 && worst_imu < 1e-9,
        "{worst_f:e} {worst_imu:e}"
    );
}

// ---------------------------------------------------------------------------
// no allocation

#[test]
fn floating_algorithms_do_not_allocate() {
    let mut rng = Rng(14);
    let model = humanoid_model(&mut rng, &FLOATING_HUMANOID, G);
    let (nq, nv) = (model.nq(), model.nv());
    let mut data = ArticulatedData::new(&model);
    let q = rng.configuration(&model, 1.0);
    let (qd, tau) = (rng.vec(nv, 1.0), rng.vec(nv, 1.0));
    let f_ext = vec![ForceVec::zero(); model.num_links()];
    let damping = vec![0.1; nv];
    let ext = ExtInputs {
        f_ext: Some(&f_ext),
        damping: Some(&damping),
        armature: None,
    };
    let mut jac = Matrix6xX::zeros(nv);
    let mut b = vec![0.0; nv];
    let mut cols = DMatrix::zeros(nv, 4);
    let (mut q_out, mut qdot) = (vec![0.0; nq], vec![0.0; nq]);
    let p = Vector3::new(0.1, 0.2, 0.3);
    let mut imp = ImplicitVelocity::new(&model);
    let (armature, mut acc) = (vec![0.01; nv], vec![0.0; nv]);
    alloc_counter::start();
    for _ in 0..1000 {
        aba(&model, &mut data, &q, &qd, &tau, &ext).expect("aba");
        joint_wrenches(&model, &mut data, &ext).expect("wrenches");
        link_point_acceleration(&model, &data, 20, &p).expect("imu");
        rnea(&model, &mut data, &q, &qd, &tau, &ext).expect("rnea");
        crba(&model, &mut data, &q).expect("crba");
        factor_mass(&mut data).expect("factor");
        solve_mass(&data, &mut b).expect("solve");
        solve_mass_lt(&data, &mut b).expect("solve");
        solve_mass_columns(&data, &mut cols).expect("solve");
        forward_velocity(&model, &mut data, &q, &qd).expect("fv");
        point_jacobian(&model, &data, 20, &p, &mut jac).expect("jacobian");
        link_point_velocity(&model, &data, 20, &p).expect("twist");
        spatial_momentum(&model, &data);
        q_derivative(&model, &q, &qd, &mut qdot).expect("q̇");
        integrate(&model, &q, &qd, 1e-3, &mut q_out).expect("integrate");
        normalize(&model, &mut q_out).expect("normalize");
        energy(&model, &mut data, &q, &qd).expect("energy");
        imp.derivative(&model, &q, &qd).expect("D");
        acc.copy_from_slice(&tau);
        imp.implicit_acceleration(&model, &q, &qd, &armature, 1e-3, 0.5, &mut acc)
            .expect("implicit");
    }
    let n = alloc_counter::stop();
    assert_eq!(
        n, 0,
        "{n} allocations in 1000 rounds of the floating-base algorithms"
    );
}
