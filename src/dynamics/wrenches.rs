//! Spatial forces transmitted across the joints (6-axis force/torque
//! sensors), from the accelerations that forward dynamics found (eq. (W1) of
//! [`crate::dynamics`]).

use super::tree::{ArticulatedData, ArticulatedModel, DynamicsError, ExtInputs};

/// After [`super::aba::aba`] (or `rnea`), which leave `data.v` and `data.a`
/// (with the gravity offset `−a_g`) filled, write into `data.f[i]` the
/// spatial force transmitted across joint `i` from the parent (or the world)
/// to link `i`'s subtree, in link `i`'s coordinates (moment about the link
/// origin): RNEA's backward pass (R4)–(R5) with ABA's accelerations,
/// `f_i = I_i a_i + v_i ×* I_i v_i − f_ext_i + Σ_children ᶜX_iᵀ f_c`.
/// Pass the same external forces as to `aba` (damping does not enter: it is
/// already in the accelerations). For a one-DoF joint `S_iᵀ f_i = τ_i − b q̇_i`;
/// the other five components are what the joint's structure carries. A
/// floating root transmits `τ` of its six DOFs (zero for an unactuated base).
/// `O(n)`, no allocation.
pub fn joint_wrenches(
    model: &ArticulatedModel,
    data: &mut ArticulatedData,
    ext: &ExtInputs<'_>,
) -> Result<(), DynamicsError> {
    joint_wrenches_from(model, data, ext, 0)
}

/// [`joint_wrenches`] for the links `first..n` only: `data.f[i]` is written for
/// `i ≥ first` and left as it was below. Since a parent precedes its children
/// (the builder's order), the subtree of any `i ≥ first` lies in `first..n`, so
/// these `f[i]` are those of the whole pass, bit for bit (the same sums in the
/// same order). An F/T sensor on a link near the tip costs its subtree only.
pub fn joint_wrenches_from(
    model: &ArticulatedModel,
    data: &mut ArticulatedData,
    ext: &ExtInputs<'_>,
    first: usize,
) -> Result<(), DynamicsError> {
    ext.check(model)?;
    model.check_data(data)?;
    let n = model.num_links();
    // (R4) f_i = I a_i + v_i ×f I v_i − f_ext_i
    for i in first..n {
        let inertia = &model.inertia()[i];
        let h = inertia * &data.v[i];
        data.f[i] = inertia * &data.a[i] + data.v[i].cross_force(&h) - ext.f_ext(i);
    }
    // (R5) f_λ += ⁱX_λᵀ f_i, leaves to root
    for i in (first..n).rev() {
        if let Some(p) = model.parent()[i].filter(|&p| p >= first) {
            let fp = data.xup[i].inv_apply_force(&data.f[i]);
            data.f[p] += fp;
        }
    }
    Ok(())
}
