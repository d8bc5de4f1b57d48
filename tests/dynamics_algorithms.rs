//! Articulated-body dynamics (`rtphys::dynamics`): spatial-algebra identities,
//! RNEA/CRBA/ABA cross-checks on a Panda-like 7-DoF arm and a 25-DoF
//! humanoid-like tree, and analytic physics (pendulum periods, double-pendulum
//! normal modes, energy conservation). Every test states its tolerance.

use nalgebra::{DMatrix, DVector, Matrix3, Matrix6, Unit, Vector3};
use rtphys::dynamics::{
    aba, crba, energy, rnea, ArticulatedData, ArticulatedModel, ArticulatedModelBuilder,
    DynamicsError, ExtInputs, ForceVec, Joint, SpatialInertia, SpatialTransform,
};
#[path = "common/alloc_counter.rs"]
mod alloc_counter;
#[path = "common/dynamics_fixtures.rs"]
mod fixtures;
use fixtures::{axis, check_aba_inverts_rnea, humanoid_model, panda_model, Rng, FIXED_HUMANOID, G};
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

// ---------------------------------------------------------------------------
// helpers

/// Ready pose of the Panda-like arm (`ARM_LINKS`).
const ARM_Q_FREE: [f64; 7] = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785];

fn tau_of(data: &ArticulatedData) -> Vec<f64> {
    data.tau.as_slice().to_vec()
}
fn qdd_of(data: &ArticulatedData) -> Vec<f64> {
    data.qdd.as_slice().to_vec()
}

/// RK4 over (q, q̇) with q̈ = ABA(q, q̇, τ).
fn rk4_step(
    model: &ArticulatedModel,
    data: &mut ArticulatedData,
    q: &mut [f64],
    qd: &mut [f64],
    tau: &[f64],
    h: f64,
) -> Result<(), DynamicsError> {
    let n = q.len();
    let mut accel = |q: &[f64], qd: &[f64]| -> Result<Vec<f64>, DynamicsError> {
        aba(model, data, q, qd, tau, &ExtInputs::default())?;
        Ok(qdd_of(data))
    };
    let axpy = |x: &[f64], k: &[f64], s: f64| -> Vec<f64> {
        x.iter().zip(k).map(|(a, b)| a + s * b).collect()
    };
    let k1q = qd.to_vec();
    let k1v = accel(q, qd)?;
    let (q2, v2) = (axpy(q, &k1q, h / 2.0), axpy(qd, &k1v, h / 2.0));
    let k2q = v2.clone();
    let k2v = accel(&q2, &v2)?;
    let (q3, v3) = (axpy(q, &k2q, h / 2.0), axpy(qd, &k2v, h / 2.0));
    let k3q = v3.clone();
    let k3v = accel(&q3, &v3)?;
    let (q4, v4) = (axpy(q, &k3q, h), axpy(qd, &k3v, h));
    let k4q = v4.clone();
    let k4v = accel(&q4, &v4)?;
    for i in 0..n {
        q[i] += h / 6.0 * (k1q[i] + 2.0 * k2q[i] + 2.0 * k3q[i] + k4q[i]);
        qd[i] += h / 6.0 * (k1v[i] + 2.0 * k2v[i] + 2.0 * k3v[i] + k4v[i]);
    }
    Ok(())
}

/// One link swinging about y from the base: point mass `m` at distance `l` below the axis.
fn point_pendulum(links: usize, l: f64, m: f64) -> ArticulatedModel {
    let mut b = ArticulatedModelBuilder::new().gravity(Vector3::new(0.0, 0.0, -9.81));
    let mut parent = None;
    for i in 0..links {
        let offset = if i == 0 {
            Vector3::zeros()
        } else {
            Vector3::new(0.0, 0.0, -l)
        };
        let k = b.add_link(
            parent,
            Joint::Revolute(Vector3::y_axis()),
            SpatialTransform::translation(offset),
            SpatialInertia::point_mass(m, Vector3::new(0.0, 0.0, -l)),
        );
        parent = Some(k);
    }
    b.finalize().expect("valid pendulum")
}

// ---------------------------------------------------------------------------
// spatial algebra (tolerance 1e-12)

#[test]
fn spatial_transform_inverse_and_composition() {
    let mut rng = Rng(0x1234_5678);
    for _ in 0..100 {
        let (x, y) = (rng.transform(), rng.transform());
        // X X⁻¹ = 1 as 6×6 motion and force matrices
        let e1 =
            (x.to_motion_matrix() * x.inverse().to_motion_matrix() - Matrix6::identity()).amax();
        let e2 = ((x * x.inverse()).to_motion_matrix() - Matrix6::identity()).amax();
        // X* = X⁻ᵀ
        let e3 = (x.to_force_matrix()
            - x.to_motion_matrix()
                .try_inverse()
                .unwrap_or_default()
                .transpose())
        .amax();
        // composition = matrix product
        let e4 = ((x * y).to_motion_matrix() - x.to_motion_matrix() * y.to_motion_matrix()).amax();
        // act/actInv round trips and agreement with the matrix forms
        let (m, f) = (rng.motion(), rng.force());
        let e5 = (x.inv_apply_motion(&x.apply_motion(&m)) - m)
            .to_vector6()
            .amax();
        let e6 = (x.inv_apply_force(&x.apply_force(&f)) - f)
            .to_vector6()
            .amax();
        let e7 = (x.apply_motion(&m).to_vector6() - x.to_motion_matrix() * m.to_vector6()).amax();
        let e8 = (x.apply_force(&f).to_vector6() - x.to_force_matrix() * f.to_vector6()).amax();
        let e9 = (x.inv_apply_force(&f).to_vector6()
            - x.to_motion_matrix().transpose() * f.to_vector6())
        .amax();
        for (name, e) in [
            ("XX⁻¹", e1),
            ("X·inv", e2),
            ("X*=X⁻ᵀ", e3),
            ("compose", e4),
            ("act m", e5),
            ("act f", e6),
            ("Xm", e7),
            ("X*f", e8),
            ("Xᵀf", e9),
        ] {
            assert!(e < 1e-12, "{name}: {e:e}");
        }
    }
}

#[test]
fn spatial_cross_products_and_power_invariance() {
    let mut rng = Rng(0xfeed_beef);
    for _ in 0..100 {
        let (x, v, m, f) = (rng.transform(), rng.motion(), rng.motion(), rng.force());
        // ⟨X m, X* f⟩ = ⟨m, f⟩ (power is frame-independent)
        let e1 = (x.apply_motion(&m).dot(&x.apply_force(&f)) - m.dot(&f)).abs();
        // crf = −crmᵀ: ⟨v ×ₘ m, f⟩ = −⟨m, v ×f f⟩
        let e2 = (v.cross_motion(&m).dot(&f) + m.dot(&v.cross_force(&f))).abs();
        // methods agree with 6×6 forms
        let e3 = (v.cross_motion(&m).to_vector6() - v.crm_matrix() * m.to_vector6()).amax();
        let e4 = (v.cross_force(&f).to_vector6() - v.crf_matrix() * f.to_vector6()).amax();
        // X (v ×ₘ m) = (X v) ×ₘ (X m)
        let e5 = (x.apply_motion(&v.cross_motion(&m))
            - x.apply_motion(&v).cross_motion(&x.apply_motion(&m)))
        .to_vector6()
        .amax();
        // v ×ₘ v = 0
        let e6 = v.cross_motion(&v).to_vector6().amax();
        for (name, e) in [
            ("power", e1),
            ("duality", e2),
            ("crm", e3),
            ("crf", e4),
            ("X crm", e5),
            ("v×v", e6),
        ] {
            assert!(e < 1e-12, "{name}: {e:e}");
        }
    }
}

#[test]
fn spatial_inertia_products_sums_and_transforms() {
    let mut rng = Rng(0xabcdef);
    for _ in 0..100 {
        let (i1, i2) = (rng.random_body(2.0, 1.0), rng.random_body(2.0, 1.0));
        let (x, m) = (rng.transform(), rng.motion());
        // I m vs 6×6 (eq. 2.63)
        let e1 = ((i1 * m).to_vector6() - i1.to_matrix() * m.to_vector6()).amax();
        // sum vs matrix sum
        let e2 = ((i1 + i2).to_matrix() - (i1.to_matrix() + i2.to_matrix())).amax();
        // transform: X* I X⁻¹ ; inverse transform: Xᵀ I X
        let xm = x.to_motion_matrix();
        let e3 = (i1.transform(&x).to_matrix()
            - x.to_force_matrix() * i1.to_matrix() * x.inverse().to_motion_matrix())
        .amax();
        let e4 = (i1.inv_transform(&x).to_matrix() - xm.transpose() * i1.to_matrix() * xm).amax();
        let e5 =
            (i1.to_articulated().inv_transform(&x).0 - xm.transpose() * i1.to_matrix() * xm).amax();
        for (name, e) in [
            ("Im", e1),
            ("sum", e2),
            ("X*IX⁻¹", e3),
            ("XᵀIX", e4),
            ("XᵀIᴬX", e5),
        ] {
            assert!(e < 1e-12, "{name}: {e:e}");
        }
    }
}

// ---------------------------------------------------------------------------
// builder validation

#[test]
fn builder_rejects_non_physical_models() {
    let good = SpatialInertia::point_mass(1.0, Vector3::new(0.0, 0.0, -1.0));
    let x = SpatialTransform::identity();
    let mut b = ArticulatedModelBuilder::new();
    b.add_link(Some(0), Joint::Revolute(Vector3::y_axis()), x, good);
    assert!(matches!(
        b.finalize(),
        Err(DynamicsError::ParentOrder { .. })
    ));

    let mut b = ArticulatedModelBuilder::new();
    b.add_link(
        None,
        Joint::Revolute(Unit::new_unchecked(Vector3::new(0.0, 2.0, 0.0))),
        x,
        good,
    );
    assert!(matches!(
        b.finalize(),
        Err(DynamicsError::NonUnitAxis { .. })
    ));

    let mut b = ArticulatedModelBuilder::new();
    b.add_link(
        None,
        Joint::Revolute(Vector3::y_axis()),
        x,
        SpatialInertia::point_mass(-1.0, Vector3::zeros()),
    );
    assert!(matches!(
        b.finalize(),
        Err(DynamicsError::NonPhysicalInertia { .. })
    ));

    let mut b = ArticulatedModelBuilder::new();
    let bad = SpatialInertia::new(
        1.0,
        Vector3::zeros(),
        Matrix3::from_diagonal(&Vector3::new(1.0, 0.1, 0.1)),
    );
    b.add_link(None, Joint::Revolute(Vector3::y_axis()), x, bad);
    assert!(matches!(
        b.finalize(),
        Err(DynamicsError::NonPhysicalInertia { .. })
    ));

    // wrong input length is an error, not a panic
    let model = point_pendulum(1, 1.0, 1.0);
    let mut data = ArticulatedData::new(&model);
    let r = rnea(
        &model,
        &mut data,
        &[0.0, 0.0],
        &[0.0],
        &[0.0],
        &ExtInputs::default(),
    );
    assert!(matches!(r, Err(DynamicsError::InputLength { .. })));
}

// ---------------------------------------------------------------------------
// RNEA / ABA / CRBA cross-checks

// aba(q, q̇, rnea(q, q̇, q̈)) == q̈ with damping and external forces
// (`fixtures::check_aba_inverts_rnea`): 1e-10 (abs, q̈ ~ 1 rad/s²).

#[test]
fn aba_inverts_rnea_panda_arm() {
    let model = panda_model(SpatialTransform::identity());
    assert_eq!(model.nv(), 7);
    let err = check_aba_inverts_rnea(&model, &mut Rng(1), 200);
    eprintln!("panda: max |aba(rnea(q̈)) − q̈| = {err:e}");
    assert!(err < 1e-10, "{err:e}");
}

#[test]
fn aba_inverts_rnea_humanoid_tree() {
    let mut rng = Rng(2);
    let model = humanoid_model(&mut rng, &FIXED_HUMANOID, G);
    assert_eq!(model.nv(), 25);
    assert_eq!(model.num_links(), 26);
    let err = check_aba_inverts_rnea(&model, &mut rng, 200);
    eprintln!("humanoid: max |aba(rnea(q̈)) − q̈| = {err:e}");
    assert!(err < 1e-10, "{err:e}");
}

#[test]
fn aba_inverts_rnea_with_prismatic_and_fixed_joints() {
    let mut rng = Rng(3);
    let mut b = ArticulatedModelBuilder::new();
    let l0 = b.add_link(
        None,
        Joint::Prismatic(axis(1.0, 0.0, 0.0)),
        SpatialTransform::identity(),
        rng.random_body(3.0, 0.1),
    );
    let l1 = b.add_link(
        Some(l0),
        Joint::Revolute(axis(0.0, 1.0, 1.0)),
        rng.transform(),
        rng.random_body(1.0, 0.2),
    );
    let l2 = b.add_link(
        Some(l1),
        Joint::Fixed,
        rng.transform(),
        rng.random_body(0.5, 0.2),
    );
    b.add_link(
        Some(l2),
        Joint::Prismatic(axis(1.0, 2.0, 3.0)),
        rng.transform(),
        rng.random_body(0.7, 0.2),
    );
    b.add_link(
        Some(l1),
        Joint::Revolute(axis(-1.0, 0.5, 0.2)),
        rng.transform(),
        rng.random_body(0.9, 0.2),
    );
    let model = b.finalize().expect("valid mixed tree");
    assert_eq!(model.nv(), 4);
    let err = check_aba_inverts_rnea(&model, &mut rng, 200);
    eprintln!("mixed: max |aba(rnea(q̈)) − q̈| = {err:e}");
    assert!(err < 1e-10, "{err:e}");
}

/// H q̈ + C(q, q̇) = τ with q̈ = ABA(τ), C = RNEA(q, q̇, 0): 1e-10 relative to |τ|∞;
/// H symmetric (exactly) and positive definite (Cholesky, λ_min > 0);
/// ½ q̇ᵀ H q̇ = kinetic energy to 1e-12 relative.
fn check_crba(model: &ArticulatedModel, rng: &mut Rng) -> (f64, f64) {
    let nv = model.nv();
    let mut data = ArticulatedData::new(model);
    let (mut worst, mut min_eig) = (0.0f64, f64::INFINITY);
    for _ in 0..100 {
        let (q, qd, tau) = (rng.vec(nv, 3.0), rng.vec(nv, 2.0), rng.vec(nv, 20.0));
        aba(model, &mut data, &q, &qd, &tau, &ExtInputs::default()).expect("aba");
        let qdd = DVector::from_column_slice(data.qdd.as_slice());
        rnea(
            model,
            &mut data,
            &q,
            &qd,
            &vec![0.0; nv],
            &ExtInputs::default(),
        )
        .expect("rnea");
        let c = data.tau.clone();
        crba(model, &mut data, &q).expect("crba");
        let h = data.mass_matrix.clone();
        let resid = &h * &qdd + &c - DVector::from_column_slice(&tau);
        worst = worst.max(resid.amax() / DVector::from_column_slice(&tau).amax().max(1.0));
        assert_eq!((&h - h.transpose()).amax(), 0.0, "H not symmetric");
        assert!(h.clone().cholesky().is_some(), "H not positive definite");
        min_eig = min_eig.min(h.clone().symmetric_eigenvalues().min());
        let qdv = DVector::from_column_slice(&qd);
        let t = 0.5 * qdv.dot(&(&h * &qdv));
        let e = energy(model, &mut data, &q, &qd).expect("energy");
        assert!(
            (t - e.kinetic).abs() <= 1e-12 * t.max(1.0),
            "T: {t} vs {}",
            e.kinetic
        );
    }
    (worst, min_eig)
}

#[test]
fn crba_plus_rnea_matches_aba_panda_arm() {
    let (err, min_eig) = check_crba(&panda_model(SpatialTransform::identity()), &mut Rng(4));
    eprintln!("panda: max |H q̈ + C − τ|/|τ| = {err:e}, min eig(H) = {min_eig:e}");
    assert!(err < 1e-10 && min_eig > 0.0, "{err:e} {min_eig:e}");
}

#[test]
fn crba_plus_rnea_matches_aba_humanoid_tree() {
    let mut rng = Rng(5);
    let model = humanoid_model(&mut rng, &FIXED_HUMANOID, G);
    let (err, min_eig) = check_crba(&model, &mut rng);
    eprintln!("humanoid: max |H q̈ + C − τ|/|τ| = {err:e}, min eig(H) = {min_eig:e}");
    assert!(err < 1e-10 && min_eig > 0.0, "{err:e} {min_eig:e}");
}

/// τ = RNEA(q, 0, 0) holds the tree still: ABA gives q̈ = 0 to 1e-12.
#[test]
fn gravity_compensation_holds_still() {
    let mut rng = Rng(6);
    let humanoid = humanoid_model(&mut rng, &FIXED_HUMANOID, G);
    for model in [panda_model(SpatialTransform::identity()), humanoid] {
        let nv = model.nv();
        let mut data = ArticulatedData::new(&model);
        let mut worst: f64 = 0.0;
        for _ in 0..100 {
            let q = rng.vec(nv, 3.0);
            rnea(
                &model,
                &mut data,
                &q,
                &vec![0.0; nv],
                &vec![0.0; nv],
                &ExtInputs::default(),
            )
            .expect("rnea");
            let tau = tau_of(&data);
            aba(
                &model,
                &mut data,
                &q,
                &vec![0.0; nv],
                &tau,
                &ExtInputs::default(),
            )
            .expect("aba");
            worst = worst.max(data.qdd.amax());
        }
        eprintln!("nv = {nv}: max |q̈| under gravity compensation = {worst:e}");
        assert!(worst < 1e-12, "{worst:e}");
    }
}

#[test]
fn algorithms_do_not_allocate() {
    let mut rng = Rng(7);
    let model = humanoid_model(&mut rng, &FIXED_HUMANOID, G);
    let nv = model.nv();
    let mut data = ArticulatedData::new(&model);
    let (q, qd, qdd) = (rng.vec(nv, 1.0), rng.vec(nv, 1.0), rng.vec(nv, 1.0));
    let f_ext = vec![ForceVec::zero(); model.num_links()];
    let damping = vec![0.1; nv];
    let ext = ExtInputs {
        f_ext: Some(&f_ext),
        damping: Some(&damping),
        armature: None,
    };
    alloc_counter::start();
    for _ in 0..1000 {
        rnea(&model, &mut data, &q, &qd, &qdd, &ext).expect("rnea");
        aba(&model, &mut data, &q, &qd, &qdd, &ext).expect("aba");
        crba(&model, &mut data, &q).expect("crba");
        energy(&model, &mut data, &q, &qd).expect("energy");
    }
    assert_eq!(
        alloc_counter::stop(),
        0,
        "allocations in 1000 rnea+aba+crba+energy calls"
    );
}

// ---------------------------------------------------------------------------
// analytic physics

/// Small-angle (0.01 rad) pendulum, L = 1 m, g = 9.81: period from simulation
/// (RK4, h = 1e-3 s, 20 s, zero crossings interpolated) vs 2π√(L/g) within 0.5 %.
#[test]
fn small_angle_pendulum_period() {
    let (l, g) = (1.0, 9.81);
    let model = point_pendulum(1, l, 1.0);
    let mut data = ArticulatedData::new(&model);
    let (mut q, mut qd) = ([0.01], [0.0]);
    let h = 1e-3;
    let mut crossings = Vec::new();
    for k in 0..20_000 {
        let q_prev = q[0];
        rk4_step(&model, &mut data, &mut q, &mut qd, &[0.0], h).expect("step");
        if q_prev > 0.0 && q[0] <= 0.0 {
            let frac = q_prev / (q_prev - q[0]);
            crossings.push((k as f64 + frac) * h);
        }
    }
    assert!(crossings.len() >= 5);
    let n = crossings.len() - 1;
    let period = (crossings[n] - crossings[0]) / n as f64;
    let expected = 2.0 * std::f64::consts::PI * (l / g).sqrt();
    let rel = (period - expected).abs() / expected;
    eprintln!("pendulum period {period:.6} s vs {expected:.6} s: rel err {rel:e}");
    assert!(rel < 5e-3, "{rel:e}");
}

/// Double pendulum, unit lengths and point masses, g = 9.81: normal-mode
/// periods 2.62105 s and 1.08568 s within 1 %. Linearized about q = 0: H from
/// CRBA, gravity stiffness K = ∂G/∂q by central differences of RNEA(q, 0, 0),
/// generalized eigenproblem K x = ω² H x (Cholesky-reduced); then the
/// slow mode is also measured from an RK4 simulation started on its mode shape.
#[test]
fn double_pendulum_normal_modes() {
    let model = point_pendulum(2, 1.0, 1.0);
    let mut data = ArticulatedData::new(&model);
    let zero = [0.0, 0.0];
    crba(&model, &mut data, &zero).expect("crba");
    let hm = data.mass_matrix.clone();
    let eps = 1e-6;
    let mut k = DMatrix::zeros(2, 2);
    for j in 0..2 {
        let mut qp = zero;
        let mut qm = zero;
        qp[j] += eps;
        qm[j] -= eps;
        rnea(&model, &mut data, &qp, &zero, &zero, &ExtInputs::default()).expect("rnea");
        let gp = data.tau.clone();
        rnea(&model, &mut data, &qm, &zero, &zero, &ExtInputs::default()).expect("rnea");
        let gm = data.tau.clone();
        k.set_column(j, &((gp - gm) / (2.0 * eps)));
    }
    let k = (&k + k.transpose()) * 0.5;
    let chol = hm.clone().cholesky().expect("H SPD");
    let linv = chol.l().try_inverse().expect("L invertible");
    let a = &linv * &k * linv.transpose();
    let eig = a.symmetric_eigen();
    let mut periods: Vec<f64> = eig
        .eigenvalues
        .iter()
        .map(|w2| 2.0 * std::f64::consts::PI / w2.sqrt())
        .collect();
    periods.sort_by(|a, b| b.total_cmp(a));
    let expected = [2.62105, 1.08568];
    for (p, e) in periods.iter().zip(expected) {
        let rel = (p - e).abs() / e;
        eprintln!("double pendulum mode (linearized): {p:.5} s vs {e} s, rel err {rel:e}");
        assert!(rel < 0.01, "{rel:e}");
    }

    // simulation of the slow mode, started on its linearized mode shape
    // x = L⁻ᵀ y (joint coordinates: relative angles) at 1e-3 rad amplitude
    let slow = eig.eigenvalues.imin();
    let x = linv.transpose() * eig.eigenvectors.column(slow);
    let x = &x / x[0] * 1e-3;
    let (mut q, mut qd) = ([x[0], x[1]], [0.0, 0.0]);
    let h = 1e-3;
    let mut crossings = Vec::new();
    for step in 0..15_000 {
        let prev = q[0];
        rk4_step(&model, &mut data, &mut q, &mut qd, &zero, h).expect("step");
        if prev > 0.0 && q[0] <= 0.0 {
            crossings.push((step as f64 + prev / (prev - q[0])) * h);
        }
    }
    assert!(crossings.len() >= 3, "too few crossings");
    let n = crossings.len() - 1;
    let p = (crossings[n] - crossings[0]) / n as f64;
    let rel = (p - expected[0]).abs() / expected[0];
    eprintln!("double pendulum slow mode (simulated): {p:.5} s, rel err {rel:e}");
    assert!(rel < 0.01, "{rel:e}");
}

/// Max |E(t) − E(0)| over `steps` RK4 steps of `h`, with E(0) and the peak kinetic energy.
fn energy_drift(
    model: &ArticulatedModel,
    q0: &[f64],
    qd0: &[f64],
    h: f64,
    steps: usize,
) -> (f64, f64, f64) {
    let mut data = ArticulatedData::new(model);
    let (mut q, mut qd) = (q0.to_vec(), qd0.to_vec());
    let tau = vec![0.0; q.len()];
    let e0 = energy(model, &mut data, &q, &qd).expect("energy").total();
    let (mut drift, mut t_max): (f64, f64) = (0.0, 0.0);
    for _ in 0..steps {
        rk4_step(model, &mut data, &mut q, &mut qd, &tau, h).expect("step");
        let e = energy(model, &mut data, &q, &qd).expect("energy");
        drift = drift.max((e.total() - e0).abs());
        t_max = t_max.max(e.kinetic);
    }
    (e0, drift, t_max)
}

/// Undamped 7-link spatial chain (`rod_chain`: 0.3 m, 1 kg rods, axes
/// alternating y/x) released from 0.5 rad at every joint: over 10 s of RK4 at
/// h = 1e-3 s, max |E(t) − E(0)| < 1e-6 relative to |E(0)| and to the peak
/// kinetic energy (potential measured from the base origin).
#[test]
fn undamped_chain_conserves_energy() {
    let (e0, drift, t_max) = energy_drift(&rod_chain(), &[0.5; 7], &[0.0; 7], 1e-3, 10_000);
    let (rel, rel_t) = (drift / e0.abs(), drift / t_max);
    eprintln!(
        "rod chain: E0 = {e0:.4} J, peak T = {t_max:.4} J, max |ΔE| = {drift:e} J, rel {rel:e}, rel to peak T {rel_t:e}"
    );
    assert!(rel < 1e-6 && rel_t < 1e-6, "{rel:e} {rel_t:e}");
}

/// The undamped Panda-like arm (scenes.py ARM_LINKS, damping removed) falling
/// from the ready pose with q̇ ≈ 1 rad/s is far more violent (peak T ≈ 89 J,
/// light distal links): at h = 1e-3 its RK4 energy error is ≈ 1e-5 relative.
/// That error is the integrator's, not the dynamics': halving h must shrink it
/// by more than 10× (RK4 is 4th order, 2⁴ = 16), and at h = 5e-4 it is < 1e-6.
#[test]
fn panda_energy_error_is_rk4_truncation() {
    let model = panda_model(SpatialTransform::identity());
    let qd = [1.0, -0.7, 0.8, 0.5, -1.0, 0.9, 0.6];
    let (e0, d1, _) = energy_drift(&model, &ARM_Q_FREE, &qd, 1e-3, 10_000);
    let (_, d2, t_max) = energy_drift(&model, &ARM_Q_FREE, &qd, 5e-4, 20_000);
    eprintln!(
        "panda: E0 = {e0:.4} J, peak T = {t_max:.4} J, |ΔE| = {d1:e} J (h = 1e-3), {d2:e} J (h = 5e-4), ratio {:.1}",
        d1 / d2
    );
    assert!(d1 / d2 > 10.0, "ratio {}", d1 / d2);
    assert!(d2 / e0.abs() < 1e-6, "{:e}", d2 / e0.abs());
}

/// Seven 0.3 m, 1 kg rods (4 cm square section) hanging from the base, joint axes
/// alternating y, x: a spatial (non-planar) chain.
fn rod_chain() -> ArticulatedModel {
    let (l, m, w) = (0.3, 1.0, 0.04);
    let mut b = ArticulatedModelBuilder::new().gravity(Vector3::new(0.0, 0.0, -9.81));
    let ic = Matrix3::from_diagonal(&Vector3::new(
        m * (w * w + l * l) / 12.0,
        m * (w * w + l * l) / 12.0,
        m * (2.0 * w * w) / 12.0,
    ));
    let mut parent = None;
    for i in 0..7 {
        let ax = if i % 2 == 0 {
            Vector3::y_axis()
        } else {
            Vector3::x_axis()
        };
        let offset = if i == 0 {
            Vector3::zeros()
        } else {
            Vector3::new(0.0, 0.0, -l)
        };
        let k = b.add_link(
            parent,
            Joint::Revolute(ax),
            SpatialTransform::translation(offset),
            SpatialInertia::new(m, Vector3::new(0.0, 0.0, -l / 2.0), ic),
        );
        parent = Some(k);
    }
    b.finalize().expect("valid rod chain")
}
