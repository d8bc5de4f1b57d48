//! The velocity-product terms taken implicitly (the `implicit` integrator).
//!
//! Semi-implicit Euler steps a tree as `v⁺ = v + h q̈(q, v)` with
//! `M̃ q̈ = τ − C(q, v) − g(q) + Jᵀf` (`M̃ = H + diag(a)`, the armature `a` of the
//! implicit servo and damper laws). The velocity products `C(q, v)` — Coriolis,
//! centrifugal and gyroscopic terms, Featherstone's `v ×f I v` and `v ×ₘ vJ` —
//! are then explicit, and an explicit gyroscopic coupling is a rotation
//! integrated by forward Euler: its amplitude grows by `√(1 + (hΩ)²)` a step,
//! `Ω` the coupling's frequency. A floating base carrying a 150 rad/s wheel
//! nutates at Ω ≈ 60 rad/s, and at h = 1 ms its energy grows ×5.9 in 8 s
//! (`tests/robot_gyro.rs`).
//!
//! Linearizing `C` about `v` (the θ-method on the velocity products, as MuJoCo's
//! `implicit` integrator does with θ = 1):
//!
//! - (I1) `D = ∂C/∂v (q, v)`, nv × nv, not symmetric (the gyroscopic part is
//!   skew);
//! - (I2) `(M̃ + hθ D) Δv = h M̃ q̈`, `v⁺ = v + Δv`: the step's velocity change
//!   with `C` evaluated at `v + θ Δv` to first order. The right-hand side keeps
//!   every other force of `q̈` as the explicit step had it.
//!
//! θ = ½ (the linearized midpoint) leaves a linear gyroscopic mode's amplitude
//! unchanged to round-off — `|(1 + i hΩ/2)/(1 − i hΩ/2)| = 1` — where θ = 1
//! damps it by `1/√(1 + (hΩ)²)` a step; [`THETA`] is ½.
//!
//! (I3) `C(q, v)` is the RNEA at `q̈ = 0` without gravity, damping or external
//! force — (R1)–(R5) of [`super`] — a form homogeneous of degree 2 in `v`:
//! `C(v) = B(v, v)`, `B` bilinear, so column `k` of `D` is the exact
//! directional derivative `D e_k = B(v, e_k) + B(e_k, v)`. With `u = e_k` on
//! the joint of link `j` (its motion `U = S_j e_k`) the RNEA's perturbations are
//! zero outside `j`'s subtree:
//!
//! - (D1) `δv_j = U`, `δv_i = ⁱX_λ δv_λ` below `j`;
//! - (D2) `δa_j = U ×ₘ vJ_j + v_j ×ₘ U` (0 for a floating root: `c = 0`),
//!   `δa_i = ⁱX_λ δa_λ + δv_i ×ₘ vJ_i` below `j`;
//! - (D3) `δf_i = I_i δa_i + δv_i ×f I_i v_i + v_i ×f I_i δv_i`;
//! - (D4) `D_{·k} = Sᵀ δf` summed up the tree as (R5), through `j`'s ancestors.
//!
//! So `D` costs one pass over each DoF's subtree and ancestors, `O(n d)` like
//! CRBA. `M̃ + hθ D` has the mass matrix's branch pattern, so the solve is an
//! elimination leaves-first without fill-in, `O(Σ depth²)`
//! (`branch_lu_solve_in_place`), with the dense pivoting solve
//! (`math::solve_dense`, `O(nv³)`) as its fallback; no allocation. (The central difference
//! `(C(v + u) − C(v − u))/2`, exact for a quadratic form, checks it in the
//! tests.)

use nalgebra::{DMatrix, DVector};

use super::crba::crba;
use super::kinematics::update_twists;
use super::spatial::{ForceVec, MotionVec};
use super::tree::{
    joint_motion, write_force, ArticulatedData, ArticulatedModel, DynamicsError, Joint,
};

/// θ of (I2): the linearized midpoint (energy-neutral on a linear gyroscopic
/// mode).
pub const THETA: f64 = 0.5;

/// Preallocated workspace of (I1)–(I3) for one tree.
#[derive(Debug, Clone)]
pub struct ImplicitVelocity {
    ad: ArticulatedData,
    /// `D` (I1).
    d: DMatrix<f64>,
    /// `M̃ + hθ D`, then its LU factors in place.
    a: DMatrix<f64>,
    /// `M̃ q̈`, then the solution; `b` a copy for the fallback.
    rhs: DVector<f64>,
    b: DVector<f64>,
    /// `M̃ + hθ D` row-major, for the dense fallback.
    dense: Vec<f64>,
    /// The link of each DoF.
    dof_link: Vec<usize>,
    /// `vJ_i = S_i q̇_i` and `I_i v_i` at the step's state.
    vj: Vec<MotionVec>,
    iv: Vec<ForceVec>,
    /// (D1)–(D3) of one column; whether a link is in the column's subtree.
    dv: Vec<MotionVec>,
    da: Vec<MotionVec>,
    df: Vec<ForceVec>,
    below: Vec<bool>,
    /// A unit generalized velocity `e_k`.
    unit: Vec<f64>,
}

impl ImplicitVelocity {
    /// The workspace for `model` (the only allocation).
    pub fn new(model: &ArticulatedModel) -> Self {
        let (n, nv) = (model.num_links(), model.nv());
        let mut dof_link = vec![0; nv];
        for (i, k) in model.v_index().iter().enumerate() {
            if let Some(k) = *k {
                let width = if model.joint()[i] == Joint::Floating {
                    6
                } else {
                    1
                };
                dof_link[k..k + width].iter_mut().for_each(|l| *l = i);
            }
        }
        ImplicitVelocity {
            ad: ArticulatedData::new(model),
            d: DMatrix::zeros(nv, nv),
            a: DMatrix::zeros(nv, nv),
            rhs: DVector::zeros(nv),
            b: DVector::zeros(nv),
            dense: vec![0.0; nv * nv],
            dof_link,
            vj: vec![MotionVec::zero(); n],
            iv: vec![ForceVec::zero(); n],
            dv: vec![MotionVec::zero(); n],
            da: vec![MotionVec::zero(); n],
            df: vec![ForceVec::zero(); n],
            below: vec![false; n],
            unit: vec![0.0; nv],
        }
    }

    /// `acc ← (M̃ + hθ D)⁻¹ M̃ acc` at `(q, v)` (I2), so that `v + h acc` is the
    /// step's `v⁺`. `armature` is the diagonal `a` of `M̃ = H + diag(a)` (len
    /// nv); `acc` is the explicit `q̈` on entry.
    #[allow(clippy::too_many_arguments)]
    pub fn implicit_acceleration(
        &mut self,
        model: &ArticulatedModel,
        q: &[f64],
        v: &[f64],
        armature: &[f64],
        h: f64,
        theta: f64,
        acc: &mut [f64],
    ) -> Result<(), DynamicsError> {
        let nv = model.nv();
        model.check_len("qd", v.len())?;
        model.check_len("armature", armature.len())?;
        model.check_len("qdd", acc.len())?;
        // M̃ and the right-hand side h M̃ q̈ (h applied at the end: acc stays an
        // acceleration).
        crba(model, &mut self.ad, q)?;
        for (k, a) in armature.iter().enumerate() {
            self.ad.mass_matrix[(k, k)] += a;
        }
        self.a.copy_from(&self.ad.mass_matrix);
        for i in 0..nv {
            self.rhs[i] = (0..nv).map(|j| self.a[(i, j)] * acc[j]).sum();
        }
        self.derivative(model, q, v)?;
        let f = h * theta;
        self.a.zip_apply(&self.d, |a, d| *a += f * d);
        self.b.copy_from(&self.rhs);
        if !branch_lu_solve_in_place(&mut self.a, &mut self.rhs, model.dof_parent()) {
            // A pivot too small for the elimination without row swaps: the
            // dense elimination with partial pivoting (`math::solve_dense`,
            // row-major), from M̃ + hθ D again.
            for i in 0..nv {
                for j in 0..nv {
                    self.dense[i * nv + j] = self.ad.mass_matrix[(i, j)] + f * self.d[(i, j)];
                }
            }
            self.rhs.copy_from(&self.b);
            if !crate::math::solve_dense(&mut self.dense, self.rhs.as_mut_slice(), nv) {
                return Err(DynamicsError::Singular);
            }
        }
        acc.copy_from_slice(self.rhs.as_slice());
        Ok(())
    }

    /// `D = ∂C/∂v` (I1) at `(q, v)` by (D1)–(D4), held in the workspace.
    pub fn derivative(
        &mut self,
        model: &ArticulatedModel,
        q: &[f64],
        v: &[f64],
    ) -> Result<&DMatrix<f64>, DynamicsError> {
        model.check_q(q)?;
        model.check_len("qd", v.len())?;
        let ad = &mut self.ad;
        super::kinematics::update_xup(model, ad, q);
        update_twists(model, ad, q, v);
        let n = model.num_links();
        let (parent, joint, inertia, v_index) = (
            model.parent(),
            model.joint(),
            model.inertia(),
            model.v_index(),
        );
        for (i, (vj, iv)) in self.vj.iter_mut().zip(self.iv.iter_mut()).enumerate() {
            *vj = joint_motion(model, i, v);
            *iv = inertia[i] * ad.v[i];
        }
        self.d.fill(0.0);
        for k in 0..self.unit.len() {
            let j = self.dof_link[k];
            self.unit[k] = 1.0;
            let u = joint_motion(model, j, &self.unit);
            self.unit[k] = 0.0;
            // Forward over j's subtree: (D1)–(D3).
            for i in j..n {
                self.below[i] = i == j || parent[i].is_some_and(|p| p >= j && self.below[p]);
                if !self.below[i] {
                    continue;
                }
                let (dv, da) = if i == j {
                    let da = if joint[i] == Joint::Floating {
                        MotionVec::zero()
                    } else {
                        u.cross_motion(&self.vj[i]) + ad.v[i].cross_motion(&u)
                    };
                    (u, da)
                } else {
                    let p = parent[i].unwrap_or(j);
                    let dv = ad.xup[i].apply_motion(&self.dv[p]);
                    let da = ad.xup[i].apply_motion(&self.da[p]) + dv.cross_motion(&self.vj[i]);
                    (dv, da)
                };
                self.dv[i] = dv;
                self.da[i] = da;
                self.df[i] = inertia[i] * da
                    + dv.cross_force(&self.iv[i])
                    + ad.v[i].cross_force(&(inertia[i] * dv));
            }
            // Backward over the subtree, then up j's ancestors: (D4).
            let mut col = self.d.column_mut(k);
            let mut up = ForceVec::zero();
            for i in (j..n).rev() {
                if !self.below[i] {
                    continue;
                }
                let f = self.df[i];
                column_entry(joint[i], v_index[i], &ad.s[i], &f, col.as_mut_slice());
                let fp = ad.xup[i].inv_apply_force(&f);
                match parent[i] {
                    Some(p) if i != j => self.df[p] += fp,
                    _ => up = fp,
                }
            }
            let mut p = parent[j];
            while let Some(a) = p {
                column_entry(joint[a], v_index[a], &ad.s[a], &up, col.as_mut_slice());
                up = ad.xup[a].inv_apply_force(&up);
                p = parent[a];
            }
        }
        Ok(&self.d)
    }
}

/// The generalized force of joint `i` from the spatial force `f` across it:
/// `Sᵀ f` (R5) into `col` at its DoF(s).
fn column_entry(joint: Joint, k: Option<usize>, s: &MotionVec, f: &ForceVec, col: &mut [f64]) {
    match (joint, k) {
        (Joint::Floating, Some(k)) => write_force(col, k, f),
        (_, Some(k)) => col[k] = s.dot(f),
        (_, None) => {}
    }
}

/// Solve `A x = b` in place for `A` with the branch sparsity of the tree's mass
/// matrix (`A_ij ≠ 0` only if DoF `i` is an ancestor of `j`, `j` of `i`, or
/// `i = j`; `λ` = `dof_parent`), by Gaussian elimination without row swaps from
/// the last DoF to the first: eliminating DoF `k` (every DoF after it already
/// eliminated) updates only the block of `k`'s ancestors, which is inside the
/// pattern — no fill-in, `O(Σ depth²)` (Featherstone's `LᵀL` order, §6.5, for a
/// matrix that is not symmetric). `M̃ + hθ D` is `M̃` (positive definite) plus a
/// perturbation of order `hΩ`; a pivot below `1e-12` of its row's largest entry
/// (or not finite) returns false, `A` and `b` then spoiled.
fn branch_lu_solve_in_place(
    a: &mut DMatrix<f64>,
    b: &mut DVector<f64>,
    lambda: &[Option<usize>],
) -> bool {
    let n = b.len();
    for k in (0..n).rev() {
        let pivot = a[(k, k)];
        let mut row_max = pivot.abs();
        let mut i = lambda[k];
        while let Some(ii) = i {
            row_max = row_max.max(a[(k, ii)].abs());
            i = lambda[ii];
        }
        if !(pivot.is_finite() && pivot.abs() > 1e-12 * row_max) {
            return false;
        }
        // Rows i ∈ anc(k): r_i = a_ik / a_kk (kept in a_ik), a_ij −= r_i a_kj.
        let mut i = lambda[k];
        while let Some(ii) = i {
            let r = a[(ii, k)] / pivot;
            a[(ii, k)] = r;
            let mut j = lambda[k];
            while let Some(jj) = j {
                a[(ii, jj)] -= r * a[(k, jj)];
                j = lambda[jj];
            }
            b[ii] -= r * b[k];
            i = lambda[ii];
        }
    }
    // Row k now holds x_k and its ancestors' unknowns: root first.
    for k in 0..n {
        let mut s = b[k];
        let mut j = lambda[k];
        while let Some(jj) = j {
            s -= a[(k, jj)] * b[jj];
            j = lambda[jj];
        }
        b[k] = s / a[(k, k)];
    }
    b.iter().all(|x| x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The branch elimination equals the dense one on a tree's pattern: DoFs
    /// 0 ← 1 ← 2 and 0 ← 3 (λ = [-, 0, 1, 0]), a non-symmetric matrix with that
    /// pattern, diagonally dominant; agreement to 1e-14.
    #[test]
    fn branch_lu_solves_a_tree_patterned_nonsymmetric_system() {
        let lambda = [None, Some(0), Some(1), Some(0)];
        #[rustfmt::skip]
        let m = DMatrix::from_row_slice(4, 4, &[
            4.0, 0.5, -0.3, 0.7,
            -0.2, 3.0, 0.4, 0.0,
            0.6, -0.1, 2.0, 0.0,
            0.3, 0.0, 0.0, 5.0,
        ]);
        let x = DVector::from_row_slice(&[1.0, -2.0, 0.5, 3.0]);
        let (mut a, mut b) = (m.clone(), &m * &x);
        assert!(branch_lu_solve_in_place(&mut a, &mut b, &lambda));
        assert!((b - &x).amax() <= 1e-14, "solution off");
    }
}
