//! Sparse factorization of the joint-space mass matrix and solves with it
//! (Featherstone §6.5, Tables 6.3–6.4: the `LᵀL` factorization, eqs.
//! (M1)–(M3) of [`crate::dynamics`]).
//!
//! In a kinematic tree `H_ij ≠ 0` only when DOF `i` is an ancestor of DOF `j`
//! or vice versa (branch-induced sparsity). Factoring `H = Lᵀ L` from the
//! last DOF to the first along the DOF parent array `λ` produces **no
//! fill-in**: `L` has the sparsity of `H`'s lower triangle, the factorization
//! costs `O(Σ_k d_k²)` and each solve `O(Σ_k d_k)` for DOF depths `d_k`
//! instead of the dense `O(n³)` and `O(n²)`. For an LCP's Delassus matrix
//! `J H⁻¹ Jᵀ = (L⁻ᵀ Jᵀ)ᵀ (L⁻ᵀ Jᵀ)` use [`solve_mass_lt`] on `Jᵀ`'s columns.

use super::tree::{ArticulatedData, DynamicsError};
use nalgebra::DMatrix;

/// Factor `data.mass_matrix` (from `crba`) as `H = Lᵀ L` into
/// `data.mass_factor` (eq. (M1), Table 6.3). No allocation. Fails with
/// [`DynamicsError::MassNotPositiveDefinite`] on a pivot `≤ 0` (or not finite).
pub fn factor_mass(data: &mut ArticulatedData) -> Result<(), DynamicsError> {
    data.mass_factored = false;
    let n = data.dof_parent.len();
    for (what, m) in [
        ("mass_matrix", &data.mass_matrix),
        ("mass_factor", &data.mass_factor),
    ] {
        if m.shape() != (n, n) {
            return Err(DynamicsError::InputLength {
                what,
                expected: n,
                got: m.nrows(),
            });
        }
    }
    let lambda = &data.dof_parent;
    let l = &mut data.mass_factor;
    l.copy_from(&data.mass_matrix);
    for k in (0..n).rev() {
        // H_kk = √H_kk
        let pivot = l[(k, k)];
        if !(pivot.is_finite() && pivot > 0.0) {
            return Err(DynamicsError::MassNotPositiveDefinite { dof: k, pivot });
        }
        let lkk = pivot.sqrt();
        l[(k, k)] = lkk;
        // H_ki = H_ki / H_kk along the ancestors i = λ(k), λ(λ(k)), …
        let mut i = lambda[k];
        while let Some(ii) = i {
            l[(k, ii)] /= lkk;
            i = lambda[ii];
        }
        // H_ij −= H_ki H_kj for ancestors j of i (lower triangle, j ≤ i)
        let mut i = lambda[k];
        while let Some(ii) = i {
            let lki = l[(k, ii)];
            let mut j = Some(ii);
            while let Some(jj) = j {
                l[(ii, jj)] -= lki * l[(k, jj)];
                j = lambda[jj];
            }
            i = lambda[ii];
        }
    }
    // L proper: clear the strict upper triangle (H's copy)
    for c in 1..n {
        for r in 0..c {
            l[(r, c)] = 0.0;
        }
    }
    data.mass_factored = true;
    Ok(())
}

fn check(data: &ArticulatedData, len: usize) -> Result<(), DynamicsError> {
    if !data.mass_factored {
        return Err(DynamicsError::MassNotFactored);
    }
    let n = data.dof_parent.len();
    if len != n || data.mass_factor.shape() != (n, n) {
        return Err(DynamicsError::InputLength {
            what: "b",
            expected: n,
            got: len,
        });
    }
    Ok(())
}

/// `x ← L⁻ᵀ x` (eq. (M2), Table 6.4 "back-substitution with Lᵀ"), unchecked.
fn lt_solve(l: &DMatrix<f64>, lambda: &[Option<usize>], x: &mut [f64]) {
    for i in (0..x.len()).rev() {
        x[i] /= l[(i, i)];
        let xi = x[i];
        let mut j = lambda[i];
        while let Some(jj) = j {
            x[jj] -= l[(i, jj)] * xi;
            j = lambda[jj];
        }
    }
}

/// `x ← L⁻¹ x` (eq. (M3), Table 6.4 "forward substitution with L"), unchecked.
fn l_solve(l: &DMatrix<f64>, lambda: &[Option<usize>], x: &mut [f64]) {
    for i in 0..x.len() {
        let mut j = lambda[i];
        while let Some(jj) = j {
            x[i] -= l[(i, jj)] * x[jj];
            j = lambda[jj];
        }
        x[i] /= l[(i, i)];
    }
}

/// `b ← H⁻¹ b = L⁻¹ L⁻ᵀ b` after [`factor_mass`] (`b` of length `nv`).
/// `O(Σ_k d_k)`, no allocation.
pub fn solve_mass(data: &ArticulatedData, b: &mut [f64]) -> Result<(), DynamicsError> {
    check(data, b.len())?;
    lt_solve(&data.mass_factor, &data.dof_parent, b);
    l_solve(&data.mass_factor, &data.dof_parent, b);
    Ok(())
}

/// `b ← L⁻ᵀ b` after [`factor_mass`]: half of a solve, so that
/// `bᵀ H⁻¹ c = (L⁻ᵀ b)ᵀ (L⁻ᵀ c)` (Delassus matrices `J H⁻¹ Jᵀ`).
pub fn solve_mass_lt(data: &ArticulatedData, b: &mut [f64]) -> Result<(), DynamicsError> {
    check(data, b.len())?;
    lt_solve(&data.mass_factor, &data.dof_parent, b);
    Ok(())
}

/// Every column of `b` (`nv × m`, caller-owned): `b ← H⁻¹ b`.
pub fn solve_mass_columns(
    data: &ArticulatedData,
    b: &mut DMatrix<f64>,
) -> Result<(), DynamicsError> {
    let n = b.nrows();
    check(data, n)?;
    if n == 0 {
        return Ok(());
    }
    // column-major storage: each chunk of `n` is one column
    for x in b.as_mut_slice().chunks_exact_mut(n) {
        lt_solve(&data.mass_factor, &data.dof_parent, x);
        l_solve(&data.mass_factor, &data.dof_parent, x);
    }
    Ok(())
}
