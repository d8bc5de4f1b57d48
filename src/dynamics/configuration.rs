//! Configuration calculus on `Q = Rⁿ × SE(3)^roots`: the neutral
//! configuration, `q̇(q, v)` for explicit integrators, the exponential-map
//! integrator `q ⊕ h v`, its inverse `q₁ ⊖ q₀`, and quaternion
//! renormalization (eqs. (Q1)–(Q4) of [`crate::dynamics`]).
//!
//! One-DoF joints: `q̇ = v`, `q ⊕ h v = q + h v`. Floating joints
//! (`q = [p; Q]`, `v = [ω; v]` in body coordinates): see each function.
//! None of these allocate except [`neutral_configuration`].

use super::tree::{quaternion_at, ArticulatedModel, DynamicsError, Joint};
use nalgebra::{Matrix3, Quaternion, UnitQuaternion, Vector3};

/// `q₀`: every one-DoF joint at 0, every floating joint at the origin with the
/// identity quaternion `[0, 0, 0, 1, 0, 0, 0]`.
pub fn neutral_configuration(model: &ArticulatedModel) -> Vec<f64> {
    let mut q = vec![0.0; model.nq()];
    for (i, j) in model.joint().iter().enumerate() {
        if let (Joint::Floating, Some(k)) = (j, model.q_index()[i]) {
            if let Some(w) = q.get_mut(k + 3) {
                *w = 1.0;
            }
        }
    }
    q
}

fn check_lengths(
    model: &ArticulatedModel,
    q_len: usize,
    v_len: usize,
    out_len: usize,
    out_what: &'static str,
    out_expected: usize,
) -> Result<(), DynamicsError> {
    if q_len != model.nq() {
        return Err(DynamicsError::InputLength {
            what: "q",
            expected: model.nq(),
            got: q_len,
        });
    }
    model.check_len("v", v_len)?;
    if out_len != out_expected {
        return Err(DynamicsError::InputLength {
            what: out_what,
            expected: out_expected,
            got: out_len,
        });
    }
    Ok(())
}

fn vec3(x: &[f64], k: usize) -> Vector3<f64> {
    let at = |j: usize| x.get(k + j).copied().unwrap_or(0.0);
    Vector3::new(at(0), at(1), at(2))
}

fn put3(x: &mut [f64], k: usize, v: &Vector3<f64>) {
    if let Some(c) = x.get_mut(k..k + 3) {
        c.copy_from_slice(v.as_slice());
    }
}

fn put_quat(x: &mut [f64], k: usize, q: &Quaternion<f64>) {
    if let Some(c) = x.get_mut(k..k + 4) {
        c.copy_from_slice(&[q.w, q.i, q.j, q.k]);
    }
}

/// `q̇ = G(q) v` into `qdot_out` (length `nq`), for explicit integrators
/// (RK4 on `(q, v)` then [`normalize`]). Floating joint (eq. (Q1)):
/// `ṗ = R v` (the body-coordinate velocity of the origin rotated to the
/// parent) and `Q̇ = ½ Q ⊗ (0, ω)` with the stored (not renormalized) `Q`,
/// which keeps `|Q|` constant along exact solutions.
pub fn q_derivative(
    model: &ArticulatedModel,
    q: &[f64],
    v: &[f64],
    qdot_out: &mut [f64],
) -> Result<(), DynamicsError> {
    check_lengths(
        model,
        q.len(),
        v.len(),
        qdot_out.len(),
        "qdot_out",
        model.nq(),
    )?;
    if model.nq() == model.nv() {
        // No floating joint (its nq = 7 ≠ nv = 6): every joint has one coordinate,
        // q_index = v_index covers 0..nq in order, and q̇ = v entry by entry.
        if let (Some(out), Some(v)) = (qdot_out.get_mut(..model.nq()), v.get(..model.nq())) {
            out.copy_from_slice(v);
        }
        return Ok(());
    }
    for (i, j) in model.joint().iter().enumerate() {
        let (Some(kq), Some(kv)) = (model.q_index()[i], model.v_index()[i]) else {
            continue;
        };
        match j {
            Joint::Floating => {
                let rot = quaternion_at(q, kq + 3);
                put3(qdot_out, kq, &(rot * vec3(v, kv + 3)));
                let at = |j: usize| q.get(kq + 3 + j).copied().unwrap_or(0.0);
                let quat = Quaternion::new(at(0), at(1), at(2), at(3));
                let w = vec3(v, kv);
                let qd = quat * Quaternion::new(0.0, w.x, w.y, w.z) * 0.5;
                put_quat(qdot_out, kq + 3, &qd);
            }
            _ => {
                if let (Some(o), Some(x)) = (qdot_out.get_mut(kq), v.get(kv)) {
                    *o = *x;
                }
            }
        }
    }
    Ok(())
}

/// Left Jacobian of SO(3), `V(θ) = 1 + (1 − cos t)/t² θ× + (t − sin t)/t³ θ×²`
/// with `t = |θ|` (series below `t = 1e-3`, error < 1e-18).
fn so3_left_jacobian(theta: &Vector3<f64>) -> Matrix3<f64> {
    let t2 = theta.norm_squared();
    let (a, b) = if t2 < 1e-6 {
        (
            0.5 - t2 / 24.0 + t2 * t2 / 720.0,
            1.0 / 6.0 - t2 / 120.0 + t2 * t2 / 5040.0,
        )
    } else {
        let t = t2.sqrt();
        ((1.0 - t.cos()) / t2, (t - t.sin()) / (t2 * t))
    };
    let k = super::spatial::skew(theta);
    Matrix3::identity() + k * a + k * k * b
}

/// `q_out = q ⊕ h v`: the configuration reached by moving with the constant
/// velocity `v` for time `h` (s). One-DoF joints: `q + h v`. Floating joints:
/// the exponential map of SE(3) for a constant **body** twist (eq. (Q2)),
/// `Q₁ = Q ⊗ exp(h ω / 2)`, `p₁ = p + R V(h ω) h v` — exact for constant
/// `(ω, v)`, and the output quaternion has unit norm. `q_out` may not alias `q`
/// (copy first to integrate in place).
pub fn integrate(
    model: &ArticulatedModel,
    q: &[f64],
    v: &[f64],
    h: f64,
    q_out: &mut [f64],
) -> Result<(), DynamicsError> {
    check_lengths(model, q.len(), v.len(), q_out.len(), "q_out", model.nq())?;
    for (i, j) in model.joint().iter().enumerate() {
        let (Some(kq), Some(kv)) = (model.q_index()[i], model.v_index()[i]) else {
            continue;
        };
        match j {
            Joint::Floating => {
                let rot = quaternion_at(q, kq + 3);
                let theta = vec3(v, kv) * h;
                let p1 = vec3(q, kq) + rot * (so3_left_jacobian(&theta) * (vec3(v, kv + 3) * h));
                let q1 = rot * UnitQuaternion::from_scaled_axis(theta);
                put3(q_out, kq, &p1);
                put_quat(q_out, kq + 3, q1.quaternion());
            }
            _ => {
                if let (Some(o), Some(x), Some(d)) = (q_out.get_mut(kq), q.get(kq), v.get(kv)) {
                    *o = x + h * d;
                }
            }
        }
    }
    Ok(())
}

/// `v_out = q₁ ⊖ q₀`: the constant velocity that [`integrate`] over unit time
/// carries from `q0` to `q1` (eq. (Q3)): one-DoF joints `q₁ − q₀`; floating
/// joints the SE(3) logarithm `ω = log(Q₀⁻¹ Q₁)` (shortest rotation),
/// `v = V(ω)⁻¹ R₀ᵀ (p₁ − p₀)`.
pub fn difference(
    model: &ArticulatedModel,
    q0: &[f64],
    q1: &[f64],
    v_out: &mut [f64],
) -> Result<(), DynamicsError> {
    check_lengths(
        model,
        q0.len(),
        model.nv(),
        v_out.len(),
        "v_out",
        model.nv(),
    )?;
    if q1.len() != model.nq() {
        return Err(DynamicsError::InputLength {
            what: "q1",
            expected: model.nq(),
            got: q1.len(),
        });
    }
    for (i, j) in model.joint().iter().enumerate() {
        let (Some(kq), Some(kv)) = (model.q_index()[i], model.v_index()[i]) else {
            continue;
        };
        match j {
            Joint::Floating => {
                let (r0, r1) = (quaternion_at(q0, kq + 3), quaternion_at(q1, kq + 3));
                let theta = (r0.inverse() * r1).scaled_axis();
                let dp = r0.inverse() * (vec3(q1, kq) - vec3(q0, kq));
                let v = so3_left_jacobian(&theta)
                    .lu()
                    .solve(&dp)
                    .unwrap_or_else(Vector3::zeros);
                put3(v_out, kv, &theta);
                put3(v_out, kv + 3, &v);
            }
            _ => {
                if let (Some(o), Some(a), Some(b)) = (v_out.get_mut(kv), q0.get(kq), q1.get(kq)) {
                    *o = b - a;
                }
            }
        }
    }
    Ok(())
}

/// Renormalize every floating joint's quaternion in place (eq. (Q4); call
/// after each explicit-integrator step). Fails with
/// [`DynamicsError::InvalidQuaternion`] (leaving that quaternion unchanged) if
/// its norm is zero or not finite.
pub fn normalize(model: &ArticulatedModel, q: &mut [f64]) -> Result<(), DynamicsError> {
    if q.len() != model.nq() {
        return Err(DynamicsError::InputLength {
            what: "q",
            expected: model.nq(),
            got: q.len(),
        });
    }
    for (i, j) in model.joint().iter().enumerate() {
        if let (Joint::Floating, Some(k)) = (j, model.q_index()[i]) {
            if let Some(c) = q.get_mut(k + 3..k + 7) {
                let norm = c.iter().map(|x| x * x).sum::<f64>().sqrt();
                if !(norm.is_finite() && norm > 0.0) {
                    return Err(DynamicsError::InvalidQuaternion { link: i, norm });
                }
                c.iter_mut().for_each(|x| *x /= norm);
            }
        }
    }
    Ok(())
}
