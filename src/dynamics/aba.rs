//! Articulated-body algorithm: forward dynamics `q̈ = FD(q, q̇, τ, f_ext)` in
//! `O(n)` (Featherstone Table 7.1, eqs. (A1)–(A8) of [`crate::dynamics`]),
//! with a floating root solved as Featherstone's floating-base special case
//! (Table 9.6, eq. (F4)).

use super::kinematics::{update_twists, update_xup};
use super::spatial::{ForceVec, MotionVec};
use super::tree::{
    joint_motion, ArticulatedData, ArticulatedModel, DynamicsError, ExtInputs, Joint,
};
use nalgebra::{Cholesky, Vector3, Vector6};

/// Joint accelerations at `(q, q̇)` under `τ`, gravity, external forces and
/// damping; result in `data.qdd` (`q` of length `nq`, the others `nv`).
/// Leaves `data.v` and `data.a` (link accelerations including the gravity
/// offset `−a_g`) filled for [`super::wrenches::joint_wrenches`] and
/// [`super::kinematics::link_point_acceleration`]. No allocation. Fails (never
/// panics) with [`DynamicsError::SingularJoint`] if some `d[i]` (or a floating
/// root's articulated inertia) is not positive definite.
pub fn aba(
    model: &ArticulatedModel,
    data: &mut ArticulatedData,
    q: &[f64],
    qd: &[f64],
    tau: &[f64],
    ext: &ExtInputs<'_>,
) -> Result<(), DynamicsError> {
    model.check_q(q)?;
    model.check_data(data)?;
    model.check_len("qd", qd.len())?;
    model.check_len("tau", tau.len())?;
    ext.check(model)?;
    let n = model.num_links();
    update_xup(model, data, q);
    // (A1) v_i = xup v_p + vJ (kept if already at this (q, q̇))
    update_twists(model, data, q, qd);

    // pass 1: bias accelerations, rigid inertias and bias forces
    for i in 0..n {
        data.c[i] = match model.parent()[i] {
            // (A2) c_i = v_i ×ₘ vJ
            Some(_) => data.v[i].cross_motion(&joint_motion(model, i, qd)),
            None => MotionVec::zero(),
        };
        if model.welded()[i] {
            // Welded to the world: its Iᴬ and pᴬ are read nowhere (pass 2 skips it
            // and passes nothing to it; pass 3 reads pᴬ of floating roots only).
            continue;
        }
        // (A3) Iᴬ_i = I_i; pᴬ_i = v_i ×f I_i v_i − f_ext_i
        let inertia = &model.inertia()[i];
        data.ia[i] = model.inertia_matrix()[i];
        let h = inertia * &data.v[i];
        data.pa[i] = data.v[i].cross_force(&h) - ext.f_ext(i);
    }

    // pass 2: articulated inertias and bias forces, leaves to root. Iᵃ
    // overwrites Iᴬ in `data.ia[i]` (nothing reads Iᴬ of a jointed link after
    // this pass), so no 6×6 matrix is copied.
    for i in (0..n).rev() {
        if model.welded()[i] {
            continue;
        }
        let pa = match (model.joint()[i], model.v_index()[i]) {
            // a floating joint is a root (builder): nothing to pass on, and
            // with S = 1₆, Iᵃ = Iᴬ − Iᴬ (Iᴬ)⁻¹ Iᴬ = 0 anyway (eq. (F4))
            (Joint::Floating, _) => continue,
            (_, Some(k)) => {
                // (A4) U = Iᴬ s; d = sᵀ U (+ armature); u = τ − b q̇ − sᵀ pᴬ.
                // With s = e_j (a joint about a link axis): U = column j of Iᴬ,
                // sᵀ U = U_j, sᵀ pᴬ = pᴬ_j.
                let (big_u, s_u, s_pa) = match model.axis()[i] {
                    Some(j) => {
                        let col = data.ia[i].0.column(j);
                        let big_u = ForceVec::new(
                            Vector3::new(col[0], col[1], col[2]),
                            Vector3::new(col[3], col[4], col[5]),
                        );
                        (big_u, col[j], data.pa[i].to_vector6()[j])
                    }
                    None => {
                        let big_u = data.ia[i].mul_motion(&data.s[i]);
                        (big_u, data.s[i].dot(&big_u), data.s[i].dot(&data.pa[i]))
                    }
                };
                let d = s_u + ext.armature(k);
                if !(d.is_finite() && d > 0.0) {
                    return Err(DynamicsError::SingularJoint { link: i, d });
                }
                let u = tau[k] - ext.damping_torque(k, qd[k]) - s_pa;
                data.big_u[i] = big_u;
                data.d[i] = d;
                data.u[i] = u;
                // (A5) Iᵃ = Iᴬ − U (U/d)ᵀ (in place, upper triangle only: Iᵃ is
                // symmetric, and its readers — Iᵃ c here, the congruence of (A6)
                // — read the upper triangle); pᵃ = pᴬ + Iᵃ c + U u/d
                let ia = &mut data.ia[i].0;
                let x = big_u.to_vector6();
                let y = x / d;
                for c in 0..6 {
                    for r in 0..=c {
                        ia[(r, c)] -= x[r] * y[c];
                    }
                }
                data.pa[i] + upper_mul_motion(ia, &data.c[i]) + big_u.scale(u / d)
            }
            // fixed joint: the link's Iᴬ, pᴬ + Iᴬ c pass on whole
            (_, None) => data.pa[i] + data.ia[i].mul_motion(&data.c[i]),
        };
        if let Some(p) = model.parent()[i].filter(|&p| !model.welded()[p]) {
            // (A6) Iᴬ_p += xupᵀ Iᵃ xup; pᴬ_p += xupᵀ pᵃ (p < i: builder order)
            let (head, tail) = data.ia.split_at_mut(i);
            if let (Some(ia_p), Some(ia)) = (head.get_mut(p), tail.first()) {
                ia.add_inv_transform_to(&data.xup[i], ia_p);
            }
            let pa_p = data.xup[i].inv_apply_force(&pa);
            data.pa[p] += pa_p;
        }
    }

    // pass 3: accelerations, root to leaves
    let a0 = model.base_acceleration();
    for i in 0..n {
        // (A7) a' = xup a_p + c
        let a_parent = match model.parent()[i] {
            Some(p) => data.a[p],
            None => a0,
        };
        let mut a = data.xup[i].apply_motion(&a_parent) + data.c[i];
        match (model.joint()[i], model.v_index()[i]) {
            (Joint::Floating, Some(k)) => {
                // (F4) a = (Iᴬ)⁻¹ (τ − b q̇ − pᴬ); q̈ = a − a'
                let mut x = Vector6::from_iterator(
                    (k..k + 6).map(|kk| tau[kk] - ext.damping_torque(kk, qd[kk])),
                ) - data.pa[i].to_vector6();
                let singular = || DynamicsError::SingularJoint {
                    link: i,
                    d: data.ia[i].0.diagonal().min(),
                };
                let chol = Cholesky::new(data.ia[i].0).ok_or_else(singular)?;
                chol.solve_mut(&mut x);
                if !x.iter().all(|v| v.is_finite()) {
                    return Err(singular());
                }
                let a_full = MotionVec::from_vector6(&x);
                let qdd = (a_full - a).to_vector6();
                if let Some(out) = data.qdd.as_mut_slice().get_mut(k..k + 6) {
                    out.copy_from_slice(qdd.as_slice());
                }
                a = a_full;
            }
            (_, Some(k)) => {
                // (A8) q̈ = (u − Uᵀ a')/d; a = a' + s q̈
                let qdd = (data.u[i] - data.big_u[i].dot(&a)) / data.d[i];
                data.qdd[k] = qdd;
                match model.axis()[i] {
                    Some(j) if j < 3 => a.ang[j] += qdd,
                    Some(j) => a.lin[j - 3] += qdd,
                    None => a += data.s[i].scale(qdd),
                }
            }
            (_, None) => {}
        }
        data.a[i] = a;
    }
    Ok(())
}

/// `M m` for a symmetric `M` of which only the upper triangle is read: the sums of
/// nalgebra's `Matrix6 * Vector6` (column by column, `y = M[:, 0] x₀`, then
/// `y += M[:, j] x_j` for `j = 1..5`) with `M[r, c]` for `r > c` taken as `M[c, r]`,
/// so the same numbers as the product with the mirrored matrix.
#[inline]
fn upper_mul_motion(m: &nalgebra::Matrix6<f64>, v: &MotionVec) -> ForceVec {
    let x = [v.ang.x, v.ang.y, v.ang.z, v.lin.x, v.lin.y, v.lin.z];
    let at = |r: usize, c: usize| if r <= c { m[(r, c)] } else { m[(c, r)] };
    let mut y = [0.0; 6];
    for (r, yr) in y.iter_mut().enumerate() {
        *yr = at(r, 0) * x[0];
    }
    for (c, xc) in x.iter().enumerate().skip(1) {
        for (r, yr) in y.iter_mut().enumerate() {
            *yr += at(r, c) * xc;
        }
    }
    ForceVec::new(
        Vector3::new(y[0], y[1], y[2]),
        Vector3::new(y[3], y[4], y[5]),
    )
}
