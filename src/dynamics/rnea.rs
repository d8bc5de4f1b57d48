//! Recursive Newton–Euler inverse dynamics `τ = ID(q, q̇, q̈, f_ext)`
//! (Featherstone Table 5.1, eqs. (R1)–(R5) of [`crate::dynamics`]).

use super::kinematics::update_xup;
use super::tree::{coord, ArticulatedData, ArticulatedModel, DynamicsError, ExtInputs};

/// Joint forces `τ` that produce `q̈` at `(q, q̇)` under gravity, external
/// forces and damping; result in `data.tau`. `O(n)`, no allocation.
pub fn rnea(
    model: &ArticulatedModel,
    data: &mut ArticulatedData,
    q: &[f64],
    qd: &[f64],
    qdd: &[f64],
    ext: &ExtInputs<'_>,
) -> Result<(), DynamicsError> {
    model.check_len("q", q.len())?;
    model.check_len("qd", qd.len())?;
    model.check_len("qdd", qdd.len())?;
    ext.check(model)?;
    let a0 = model.base_acceleration();
    update_xup(model, data, q);

    // forward pass: velocities, accelerations, body forces
    for i in 0..model.num_links() {
        let k = model.v_index()[i];
        let vj = data.s[i].scale(coord(k, qd)); // (R1) vJ = s q̇
        let aj = data.s[i].scale(coord(k, qdd));
        match model.parent()[i] {
            Some(p) => {
                // (R2) v_i = xup v_p + vJ; (R3) a_i = xup a_p + s q̈ + v_i ×ₘ vJ
                data.v[i] = data.xup[i].apply_motion(&data.v[p]) + vj;
                data.a[i] = data.xup[i].apply_motion(&data.a[p]) + aj + data.v[i].cross_motion(&vj);
            }
            None => {
                data.v[i] = vj;
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
        if let Some(k) = model.v_index()[i] {
            // (R5) τ_i = s_iᵀ f_i (+ b q̇)
            data.tau[k] = data.s[i].dot(&data.f[i]) + ext.damping_torque(k, coord(Some(k), qd));
        }
        if let Some(p) = model.parent()[i] {
            let fp = data.xup[i].inv_apply_force(&data.f[i]);
            data.f[p] += fp;
        }
    }
    Ok(())
}
