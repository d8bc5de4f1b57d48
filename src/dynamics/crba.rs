//! Composite-rigid-body algorithm: the joint-space mass matrix `H(q)`
//! (Featherstone Table 6.2, eqs. (C1)–(C3) of [`crate::dynamics`]).

use super::kinematics::update_xup;
use super::spatial::ForceVec;
use super::tree::{ArticulatedData, ArticulatedModel, DynamicsError, Joint};

/// `H(q)` into `data.mass_matrix` (symmetric; positive definite for a
/// physical model; `q` of length `nq`). A floating root contributes the
/// 6×6 block `Sᵀ I^c S = I^c` and off-diagonal columns `Sᵀ F = F` (eq. (F5)).
/// Invalidates a previous [`super::mass::factor_mass`]. `O(n d)` for tree
/// depth `d`, no allocation.
pub fn crba(
    model: &ArticulatedModel,
    data: &mut ArticulatedData,
    q: &[f64],
) -> Result<(), DynamicsError> {
    model.check_q(q)?;
    model.check_data(data)?;
    data.mass_factored = false;
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
        if let Joint::Floating = model.joint()[i] {
            // (F5) H_ii = I^c_i (6×6); a floating joint is a root: no ancestors
            let ic = data.ic[i].to_matrix();
            data.mass_matrix.view_mut((ki, ki), (6, 6)).copy_from(&ic);
            continue;
        }
        // (C2) F = ic[i] s[i]; H_ii = s_iᵀ F
        let mut f = data.ic[i] * data.s[i];
        data.mass_matrix[(ki, ki)] = data.s[i].dot(&f);
        // (C3) walk to the root: F = xupᵀ F; H_ij = H_ji = S_jᵀ F
        let mut j = i;
        while let Some(p) = model.parent()[j] {
            f = data.xup[j].inv_apply_force(&f);
            j = p;
            match (model.joint()[j], model.v_index()[j]) {
                (Joint::Floating, Some(kj)) => set_column6(data, kj, ki, &f),
                (_, Some(kj)) => {
                    let hij = data.s[j].dot(&f);
                    data.mass_matrix[(ki, kj)] = hij;
                    data.mass_matrix[(kj, ki)] = hij;
                }
                (_, None) => {}
            }
        }
    }
    Ok(())
}

/// `H[kj..kj+6, ki] = H[ki, kj..kj+6]ᵀ = F` (S = 1₆ at a floating ancestor).
fn set_column6(data: &mut ArticulatedData, kj: usize, ki: usize, f: &ForceVec) {
    for (r, x) in f.to_vector6().iter().enumerate() {
        data.mass_matrix[(kj + r, ki)] = *x;
        data.mass_matrix[(ki, kj + r)] = *x;
    }
}
