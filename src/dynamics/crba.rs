//! Composite-rigid-body algorithm: the joint-space mass matrix `H(q)`
//! (Featherstone Table 6.2, eqs. (C1)–(C3) of [`crate::dynamics`]).

use super::kinematics::update_xup;
use super::tree::{ArticulatedData, ArticulatedModel, DynamicsError};

/// `H(q)` into `data.mass_matrix` (symmetric; positive definite for a
/// physical model). `O(n d)` for tree depth `d`, no allocation.
pub fn crba(
    model: &ArticulatedModel,
    data: &mut ArticulatedData,
    q: &[f64],
) -> Result<(), DynamicsError> {
    model.check_len("q", q.len())?;
    update_xup(model, data, q);
    let n = model.num_links();
    data.ic[..n].copy_from_slice(model.inertia());

    // (C1) composite inertias: ic[p] += xupᵀ ic[i] xup
    for i in (0..n).rev() {
        if let Some(p) = model.parent()[i] {
            let moved = data.ic[i].inv_transform(&data.xup[i]);
            data.ic[p] += moved;
        }
    }

    data.mass_matrix.fill(0.0);
    for i in 0..n {
        let Some(ki) = model.v_index()[i] else {
            continue;
        };
        // (C2) F = ic[i] s[i]; H_ii = s_iᵀ F
        let mut f = data.ic[i] * data.s[i];
        data.mass_matrix[(ki, ki)] = data.s[i].dot(&f);
        // (C3) walk to the root: F = xupᵀ F; H_ij = H_ji = s_jᵀ F
        let mut j = i;
        while let Some(p) = model.parent()[j] {
            f = data.xup[j].inv_apply_force(&f);
            j = p;
            if let Some(kj) = model.v_index()[j] {
                let hij = data.s[j].dot(&f);
                data.mass_matrix[(ki, kj)] = hij;
                data.mass_matrix[(kj, ki)] = hij;
            }
        }
    }
    Ok(())
}
