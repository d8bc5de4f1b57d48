//! Recursive Newton–Euler inverse dynamics `τ = ID(q, q̇, q̈, f_ext)`
//! (Featherstone Table 5.1, eqs. (R1)–(R5) of [`crate::dynamics`]).

use super::kinematics::{update_twists, update_xup};
use super::tree::{
    joint_motion, write_force, ArticulatedData, ArticulatedModel, DynamicsError, ExtInputs, Joint,
};

/// Joint forces `τ` that produce `q̈` at `(q, q̇)` under gravity, external
/// forces and damping; result in `data.tau`; `data.v`, `data.a` (with the
/// gravity offset `−a_g`) and the transmitted joint forces `data.f` are left
/// filled. `q` has length `nq`, the others `nv`. For a floating root the six
/// entries of `τ` are the spatial force the base would need (link
/// coordinates, eq. (F3)). `O(n)`, no allocation.
pub fn rnea(
    model: &ArticulatedModel,
    data: &mut ArticulatedData,
    q: &[f64],
    qd: &[f64],
    qdd: &[f64],
    ext: &ExtInputs<'_>,
) -> Result<(), DynamicsError> {
    model.check_q(q)?;
    model.check_data(data)?;
    model.check_len("qd", qd.len())?;
    model.check_len("qdd", qdd.len())?;
    ext.check(model)?;
    let a0 = model.base_acceleration();
    update_xup(model, data, q);
    // (R2) v_i = xup v_p + vJ (kept if already at this (q, q̇))
    update_twists(model, data, q, qd);

    // forward pass: velocities, accelerations, body forces
    for i in 0..model.num_links() {
        let vj = joint_motion(model, i, qd); // (R1) vJ = S q̇
        let aj = joint_motion(model, i, qdd);
        match model.parent()[i] {
            Some(p) => {
                // (R3) a_i = xup a_p + s q̈ + v_i ×ₘ vJ
                data.a[i] = data.xup[i].apply_motion(&data.a[p]) + aj + data.v[i].cross_motion(&vj);
            }
            None => {
                data.a[i] = data.xup[i].apply_motion(&a0) + aj;
            }
        }
        // (R4) f_i = I a_i + v_i ×f I v_i − f_ext_i
        let inertia = &model.inertia()[i];
        let h = inertia * &data.v[i];
        data.f[i] = inertia * &data.a[i] + data.v[i].cross_force(&h) - ext.f_ext(i);
    }

    // backward pass: joint forces, propagate to parents
    for i in (0..model.num_links()).rev() {
        match (model.joint()[i], model.v_index()[i]) {
            (Joint::Floating, Some(k)) => {
                // (R5) with S = 1₆: τ = f_i (+ b q̇)
                let tau = data.tau.as_mut_slice();
                write_force(tau, k, &data.f[i]);
                for (kk, t) in tau.iter_mut().enumerate().skip(k).take(6) {
                    *t += ext.damping_torque(kk, qd.get(kk).copied().unwrap_or(0.0));
                }
            }
            (_, Some(k)) => {
                // (R5) τ_i = s_iᵀ f_i (+ b q̇)
                let qdk = qd.get(k).copied().unwrap_or(0.0);
                data.tau[k] = data.s[i].dot(&data.f[i]) + ext.damping_torque(k, qdk);
            }
            (_, None) => {}
        }
        if let Some(p) = model.parent()[i] {
            let fp = data.xup[i].inv_apply_force(&data.f[i]);
            data.f[p] += fp;
        }
    }
    Ok(())
}
