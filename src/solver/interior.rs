//! Interior-point solve of the frozen-radius QP of the staggered Newton
//! ([`super::staggered`]): the face of `K_r` is found by a primal–dual path,
//! not one constraint at a time by a projected arc (issue 14, lcp10).
//!
//! # The problem
//! With the cone radii frozen at `r_i` (`solver::staggered`, `QP_r`):
//!
//! ```text
//! min φ(z) = ½ zᵀ W z + qᵀ z   s.t.   g(z) = A z + b ≥ 0,
//! g_0,i = p_n,i,     g_j,i = c r_i − n_jᵀ f_t,i   (j = 1…k, the k-gon's edges)
//! ```
//!
//! (`n_j` the edge's outward unit normal, `c = cos(π/k)` the unit k-gon's
//! apothem; the polygon of `solver::pgs::project_polygon_with`). `A` is block
//! diagonal: every constraint involves one point. A point with `r_i ≤ 0` has
//! `f_t,i = 0` fixed (its polygon is the origin, no interior) and keeps only
//! `p_n,i ≥ 0`.
//!
//! # Method (Mehrotra's predictor–corrector, Nocedal & Wright §16.6)
//! Slacks `s = g(z)`, multipliers `λ`, `s, λ > 0`; the residuals
//! `r_d = W z + q − Aᵀ λ`, `r_p = A z + b − s`, `r_c = s ∘ λ − σ μ e`
//! (`μ = sᵀλ / m_c`). Eliminating `Δs`, `Δλ`, each step solves
//!
//! ```text
//! (W + Aᵀ D A) Δz = −r_d − Aᵀ (D r_p + S⁻¹ r_c),   D = S⁻¹ Λ,
//! Δs = A Δz + r_p,   Δλ = −D Δs − S⁻¹ r_c
//! ```
//!
//! with `Aᵀ D A` block diagonal (3×3 per point, added to `W`'s diagonal
//! blocks): one Cholesky of the island's `3n × 3n` matrix per iteration, used
//! twice (predictor `σ = 0`, then the corrector with `σ = (μ_aff/μ)³` and the
//! second-order term `Δs_aff ∘ Δλ_aff`). One step length for primal and dual,
//! 0.995 of the distance to the boundary. The warm start `z` is kept (an
//! infeasible start is allowed: `r_p ≠ 0`); `s = max(g(z), δ_s)`, `λ =
//! max(estimate, δ_λ)` with `δ` a [`START_SHIFT`] of the island's impulse and
//! velocity scales.
//!
//! The dependent corner rows of a resting face (W of rank 6 per body up to
//! the CFM) are no obstacle here: `Aᵀ D A` gives every active constraint its own
//! curvature, and the path reaches the face of the minimizer as `μ → 0`
//! without visiting the faces in between.
//!
//! # Exactness
//! After each iteration the iterate projected onto `K_r` is tested with the
//! natural map of `QP_r` (`newton::evaluate` with the frozen radii): the path
//! returns as soon as that projected iterate meets `‖F_r‖∞ ≤ tolerance / 2`
//! (on the pile's islands it usually does, 11–18 iterations from the start).
//! Otherwise, once `μ ≤` [`CROSSOVER_MU`] of the island's scales, at the
//! iteration cap, or when a factorization or a step fails, the projected
//! iterate goes back to the frozen QP's Newton (`staggered::solve_frozen_qp`):
//! on the identified face its step is the minimizer, so a converged QP meets
//! the same `‖F_r‖∞ ≤ tolerance / 2` as before. The coupled problem's
//! residual is checked by the radius loop outside, as before.
//!
//! # Where it is used
//! `Globalization::Interior` (`NewtonSolver::solve_island_interior`): first the
//! path on the coupled problem (below); if its end is not a solution, full
//! coupled Newton steps while each halves `‖F‖∞`; then lcp8's radius Newton
//! (`solver::staggered`) whose frozen QP hands a stalled projected search to
//! the frozen path (at most `INTERIOR_PATHS` times per QP, then the sweeps as
//! before) — the search crawls on the pile's islands, a few constraints per
//! step, and the path identifies the face without visiting the faces in
//! between. `Globalization::LineSearchThenInterior` (the pipeline since lcp10):
//! the line search first, this only on the islands it fails on — or, with the
//! caller's hint (`NewtonResults::start_interior`: the pipeline's per-body
//! memory of islands whose line search failed in the last 32 solves, lcp11),
//! this at once without the line search.
//!
//! # The coupled path
//! The same iteration with the cone radius `μ_i p_n` left free: `g_j = c μ_i
//! p_n − n_jᵀ f_t` (`a_p = c μ_i`), while the multipliers act through the rows
//! without the `μ` column (`B`: the friction law is not associated — maximal
//! dissipation in `f_t` at the given `p_n`, no normal reaction of the cone), so
//! the dual residual is `W z + q − Bᵀ λ` and the system `W + Bᵀ D A` is not
//! symmetric: LU with partial pivoting. No convergence proof (the coupled
//! problem is not a monotone LCP); its end is tested by the coupled natural
//! map, and the radius Newton takes over when it is not a solution. On the
//! pile's dumped failures it removes the radius loop from most islands
//! (docs/BENCHMARKS.md, lcp10: 3,604 instead of 11,076 factorizations on 200
//! landing islands, 7,716 instead of 20,152 on 200 resting ones). A first
//! measurement with a wrong LU substitution (row interchanges interleaved with
//! the forward sweep) had it stall; the unit test `lu_factor_and_subst` now
//! covers the substitution.
//!
//! # Cost
//! ≈ 10–18 Cholesky factorizations per path on the pile's islands (counted in
//! the solver's step budget), no allocation once the buffers are sized
//! (`NewtonResults`).

use super::newton::{
    cholesky_factor, cholesky_subst, evaluate, NewtonParams, NewtonResults, NewtonSolver,
};
use super::pgs::{project_polygon_with, ContactProblem};

/// Default budget of factorizations of the interior rescue per island
/// (`NewtonParams::interior_iterations`).
pub const INTERIOR_STEPS: usize = 200;

/// Largest polygon (sides) the interior method takes; larger ones use the
/// projected-arc QP.
pub const MAX_SIDES: usize = 16;

/// Fraction of the distance to the boundary of `s, λ ≥ 0` a step may take.
const STEP_TO_BOUNDARY: f64 = 0.995;

/// The start's shift of `s` and `λ` away from 0, relative to the island's
/// impulse and velocity scales.
pub const START_SHIFT: f64 = 1e-1;

/// `μ` (relative to impulse scale × velocity scale) below which the iterate is
/// handed to the frozen QP's Newton finish.
pub const CROSSOVER_MU: f64 = 1e-16;

/// Start an island with the interior path on the coupled problem.
const COUPLED_PATH: bool = true;

/// Interior iterations per QP at most (then the finish takes over).
const MAX_INTERIOR: usize = 60;

impl NewtonSolver {
    /// `Globalization::Interior` on one island: the interior path on the
    /// coupled problem (module doc, "The coupled path"), full coupled Newton
    /// steps from its end while each halves `‖F‖∞`, then the radius Newton
    /// (`solver::staggered`) with its frozen QPs' stalls handed to the frozen
    /// interior path. Returns (factorizations, residual, converged).
    pub(super) fn solve_island_interior(
        &self,
        problem: &ContactProblem,
        order: &[u32],
        r: &mut NewtonResults,
    ) -> (usize, f64, bool) {
        let p = &self.params;
        let mut steps = 0;
        let res = self.true_residual(problem, order, r);
        if res <= p.tolerance {
            return (0, res, true);
        }
        if COUPLED_PATH {
            let exact = self.interior_path(problem, order, r, &mut steps, true);
            let mut res = self.true_residual(problem, order, r);
            if exact || res <= p.tolerance {
                return (steps, res, res <= p.tolerance);
            }
            res = self.coupled_finish(problem, order, r, res, &mut steps);
            if res <= p.tolerance {
                return (steps, res, true);
            }
        }
        let rest = NewtonSolver::new(NewtonParams {
            max_iterations: p.max_iterations.saturating_sub(steps),
            ..*p
        });
        let (it, res, ok) = rest.solve_island_radius_newton(problem, order, r);
        (steps + it, res, ok)
    }

    /// The interior path on `QP_r` (module doc) at the radii `r.radius` from
    /// `r.z`: true when an iterate (projected onto `K_r`) meets `‖F_r‖∞ ≤
    /// tolerance / 2`; otherwise, at the crossover `μ`, the iteration cap, the
    /// step budget, or a failed factorization, false. Either way `r.z` is left
    /// finite and projected onto `K_r`, for the frozen QP's Newton to finish
    /// (`staggered::solve_frozen_qp`). `r.fixed` is set by the caller.
    pub(super) fn interior_path(
        &self,
        problem: &ContactProblem,
        order: &[u32],
        r: &mut NewtonResults,
        steps: &mut usize,
        coupled: bool,
    ) -> bool {
        let p = &self.params;
        let tol = if coupled {
            p.tolerance
        } else {
            0.5 * p.tolerance
        };
        let t = &problem.table;
        let k = t.k as usize;
        if !(3..=MAX_SIDES).contains(&k) {
            return false;
        }
        // The edges' outward unit normals (the order of `project_polygon_with`).
        let mut nrm = [(0.0_f64, 0.0_f64); MAX_SIDES];
        let ch = t.half.0;
        for (e, d) in nrm.iter_mut().zip(t.directions(t.half)) {
            *e = d;
        }
        let nrm = &nrm[..k];
        let nc = k + 1;
        let na = order.len();
        let m = 3 * na;
        for (ai, &i) in order.iter().enumerate() {
            r.slot[i as usize] = ai as u32;
        }
        // Each point's edge constraints g_j = a_p p_n + b_0 − n_jᵀ f_t: frozen,
        // (0, c r_i); coupled, (c μ_i, 0). No cone (f_t = 0 fixed): (0, 0).
        r.ip_cone.clear();
        r.ip_cone.resize(problem.n(), (0.0, 0.0));
        for &i in order {
            let i = i as usize;
            r.ip_cone[i] = if coupled {
                (ch * problem.mu[i].max(0.0), 0.0)
            } else {
                (0.0, ch * r.radius[i].max(0.0))
            };
        }
        for v in [
            &mut r.ip_s,
            &mut r.ip_l,
            &mut r.ip_ds,
            &mut r.ip_dl,
            &mut r.ip_rp,
        ] {
            v.clear();
            v.resize(na * nc, 0.0);
        }
        // Scales and the start.
        let (mut ps, mut vs) = (f64::MIN_POSITIVE, f64::MIN_POSITIVE);
        let mut count = 0_usize;
        for &i in order {
            let i = i as usize;
            ps = ps.max(r.z[3 * i].abs()).max(r.ip_cone[i].1);
            vs = vs
                .max(problem.q[3 * i].abs())
                .max(problem.q[3 * i + 1].abs())
                .max(problem.q[3 * i + 2].abs());
            if !has_cone(r, i) {
                r.z[3 * i + 1] = 0.0;
                r.z[3 * i + 2] = 0.0;
                count += 1;
            } else {
                count += nc;
            }
        }
        let (ds0, dl0) = (p.interior_shift * ps, p.interior_shift * vs);
        gradient(problem, order, &r.z, &mut r.w);
        for (ai, &i) in order.iter().enumerate() {
            let i = i as usize;
            let cb = ai * nc;
            let (z, w) = (&r.z[3 * i..3 * i + 3], &r.w[3 * i..3 * i + 3]);
            r.ip_s[cb] = z[0].max(ds0);
            r.ip_l[cb] = w[0].max(dl0);
            let (ap, b0) = r.ip_cone[i];
            for (j, &(nx, ny)) in nrm.iter().enumerate() {
                if ap > 0.0 || b0 > 0.0 {
                    r.ip_s[cb + 1 + j] = (ap * z[0] + b0 - (nx * z[1] + ny * z[2])).max(ds0);
                    r.ip_l[cb + 1 + j] = (-(nx * w[1] + ny * w[2])).max(0.0) + dl0;
                } else {
                    (r.ip_s[cb + 1 + j], r.ip_l[cb + 1 + j]) = (1.0, 0.0);
                }
            }
        }
        let cross = CROSSOVER_MU * ps * vs;
        for _ in 0..MAX_INTERIOR {
            // Exact already? The iterate projected onto K_r, F_r there.
            project_onto(problem, order, &r.z, &mut r.trial, &r.radius, coupled);
            let trial = std::mem::take(&mut r.trial);
            let res_t = evaluate(problem, order, &trial, r, 0.0);
            r.trial = trial;
            if res_t <= tol {
                for &i in order {
                    let i = i as usize;
                    r.z[3 * i..3 * i + 3].copy_from_slice(&r.trial[3 * i..3 * i + 3]);
                }
                return true;
            }
            // Residuals r_d (into r.f), r_p, and μ.
            gradient(problem, order, &r.z, &mut r.w);
            let mut mu = 0.0;
            for (ai, &i) in order.iter().enumerate() {
                let i = i as usize;
                let cb = ai * nc;
                let (z, w) = (&r.z[3 * i..3 * i + 3], &r.w[3 * i..3 * i + 3]);
                r.f[3 * i] = w[0] - r.ip_l[cb];
                r.ip_rp[cb] = z[0] - r.ip_s[cb];
                mu += r.ip_s[cb] * r.ip_l[cb];
                let (ap, b0) = r.ip_cone[i];
                if ap > 0.0 || b0 > 0.0 {
                    let (mut a1, mut a2) = (w[1], w[2]);
                    for (j, &(nx, ny)) in nrm.iter().enumerate() {
                        let c = cb + 1 + j;
                        a1 += r.ip_l[c] * nx;
                        a2 += r.ip_l[c] * ny;
                        r.ip_rp[c] = ap * z[0] + b0 - (nx * z[1] + ny * z[2]) - r.ip_s[c];
                        mu += r.ip_s[c] * r.ip_l[c];
                    }
                    (r.f[3 * i + 1], r.f[3 * i + 2]) = (a1, a2);
                } else {
                    (r.f[3 * i + 1], r.f[3 * i + 2]) = (0.0, 0.0);
                }
            }
            mu /= count.max(1) as f64;
            if !(mu.is_finite() && mu > cross) || *steps >= p.max_iterations {
                break;
            }
            *steps += 1;
            // H = W + Aᵀ D A (the island's dense 3n × 3n, lower and upper).
            r.jac.clear();
            r.jac.resize(m * m, 0.0);
            for (ai, &i) in order.iter().enumerate() {
                let i = i as usize;
                for kk in problem.row_start[i]..problem.row_start[i + 1] {
                    let sj = r.slot[problem.col[kk] as usize] as usize;
                    // An island's blocks couple only its own points (a slot
                    // out of range would be a malformed island: never index
                    // past the matrix).
                    if sj >= na {
                        continue;
                    }
                    let wb = &problem.w[kk];
                    for row in 0..3 {
                        let base = (3 * ai + row) * m + 3 * sj;
                        for col in 0..3 {
                            r.jac[base + col] += wb[3 * row + col];
                        }
                    }
                }
                let cb = ai * nc;
                let d = 3 * ai * m + 3 * ai;
                r.jac[d] += r.ip_l[cb] / r.ip_s[cb];
                if has_cone(r, i) {
                    // Bᵀ D A (B: the rows without the μ column, A: with it).
                    let ap = r.ip_cone[i].0;
                    let (mut h11, mut h12, mut h22, mut h10, mut h20) = (0.0, 0.0, 0.0, 0.0, 0.0);
                    for (j, &(nx, ny)) in nrm.iter().enumerate() {
                        let dj = r.ip_l[cb + 1 + j] / r.ip_s[cb + 1 + j];
                        h11 += dj * nx * nx;
                        h12 += dj * nx * ny;
                        h22 += dj * ny * ny;
                        h10 -= dj * nx * ap;
                        h20 -= dj * ny * ap;
                    }
                    r.jac[d + m] += h10;
                    r.jac[d + 2 * m] += h20;
                    r.jac[d + m + 1] += h11;
                    r.jac[d + m + 2] += h12;
                    r.jac[d + 2 * m + 1] += h12;
                    r.jac[d + 2 * m + 2] += h22;
                }
            }
            // Fixed tangential rows (r_i ≤ 0): Δf = 0.
            for (ai, &i) in order.iter().enumerate() {
                if !has_cone(r, i as usize) {
                    for row in [3 * ai + 1, 3 * ai + 2] {
                        for c in 0..m {
                            r.jac[row * m + c] = 0.0;
                            r.jac[c * m + row] = 0.0;
                        }
                        r.jac[row * m + row] = 1.0;
                    }
                }
            }
            // Symmetric (frozen radii): Cholesky; coupled: LU with partial pivoting.
            if !(if coupled {
                lu_factor(&mut r.jac, &mut r.perm, m)
            } else {
                cholesky_factor(&mut r.jac, m)
            }) {
                break;
            }
            // Predictor (σ = 0): S⁻¹ r_c = λ.
            for c in 0..na * nc {
                r.ip_dl[c] = r.ip_l[c];
            }
            rhs(order, nrm, r, nc);
            subst(coupled, r, m);
            directions(order, nrm, r, nc);
            let a_aff = max_step(order, r, nc);
            let mut mu_aff = 0.0;
            for (ai, &i) in order.iter().enumerate() {
                let cb = ai * nc;
                let last = if has_cone(r, i as usize) { nc } else { 1 };
                for c in cb..cb + last {
                    mu_aff += (r.ip_s[c] + a_aff * r.ip_ds[c]) * (r.ip_l[c] + a_aff * r.ip_dl[c]);
                }
            }
            mu_aff /= count.max(1) as f64;
            let sigma = (mu_aff / mu).clamp(0.0, 1.0).powi(3);
            // Corrector: S⁻¹ r_c = λ + (Δs_aff Δλ_aff − σ μ) / s.
            for c in 0..na * nc {
                r.ip_dl[c] = r.ip_l[c] + (r.ip_ds[c] * r.ip_dl[c] - sigma * mu) / r.ip_s[c];
            }
            rhs(order, nrm, r, nc);
            subst(coupled, r, m);
            directions(order, nrm, r, nc);
            let alpha = (STEP_TO_BOUNDARY * max_step(order, r, nc)).min(1.0);
            // A step that is not finite (s or λ underflowing, a factor that lost
            // its digits) ends the path where it is.
            let finite = alpha > 0.0
                && alpha.is_finite()
                && r.rhs.iter().all(|x| x.is_finite())
                && r.ip_ds.iter().chain(&r.ip_dl).all(|x| x.is_finite());
            if !finite {
                break;
            }
            for (ai, &i) in order.iter().enumerate() {
                let i = i as usize;
                for c in 0..3 {
                    r.z[3 * i + c] += alpha * r.rhs[3 * ai + c];
                }
                let cb = ai * nc;
                let last = if has_cone(r, i) { nc } else { 1 };
                for c in cb..cb + last {
                    r.ip_s[c] += alpha * r.ip_ds[c];
                    r.ip_l[c] += alpha * r.ip_dl[c];
                }
            }
        }
        // Handed to the finish: the projected iterate.
        project_onto(problem, order, &r.z, &mut r.trial, &r.radius, coupled);
        for &i in order {
            let i = i as usize;
            r.z[3 * i..3 * i + 3].copy_from_slice(&r.trial[3 * i..3 * i + 3]);
        }
        false
    }
}

/// `w = W z + q` for the points `order`.
fn gradient(problem: &ContactProblem, order: &[u32], z: &[f64], w: &mut [f64]) {
    for &i in order {
        let i = i as usize;
        let mut v = [problem.q[3 * i], problem.q[3 * i + 1], problem.q[3 * i + 2]];
        for k in problem.row_start[i]..problem.row_start[i + 1] {
            let (b, j) = (&problem.w[k], problem.col[k] as usize);
            let zj = &z[3 * j..3 * j + 3];
            v[0] += b[0] * zj[0] + b[1] * zj[1] + b[2] * zj[2];
            v[1] += b[3] * zj[0] + b[4] * zj[1] + b[5] * zj[2];
            v[2] += b[6] * zj[0] + b[7] * zj[1] + b[8] * zj[2];
        }
        w[3 * i..3 * i + 3].copy_from_slice(&v);
    }
}

/// `out ← P_{K_r}(z)` for the points `order` (`coupled`: the radius `μ_i p_n`
/// of the projected `p_n`).
fn project_onto(
    problem: &ContactProblem,
    order: &[u32],
    z: &[f64],
    out: &mut [f64],
    radius: &[f64],
    coupled: bool,
) {
    for &i in order {
        let i = i as usize;
        let pn = z[3 * i].max(0.0);
        out[3 * i] = pn;
        let rad = if coupled {
            problem.mu[i] * pn
        } else {
            radius[i]
        };
        (out[3 * i + 1], out[3 * i + 2]) =
            project_polygon_with(z[3 * i + 1], z[3 * i + 2], rad, &problem.table);
    }
}

/// Whether point `i` has friction constraints in the current path (else its
/// `f_t = 0` is fixed).
#[inline]
fn has_cone(r: &NewtonResults, i: usize) -> bool {
    let (ap, b0) = r.ip_cone[i];
    ap > 0.0 || b0 > 0.0
}

/// `r.rhs ← H⁻¹ r.rhs` with the factor in `r.jac` (Cholesky, or LU with
/// `r.perm` when `lu`).
fn subst(lu: bool, r: &mut NewtonResults, m: usize) {
    if lu {
        lu_subst(&r.jac, &r.perm, &mut r.rhs, m);
    } else {
        cholesky_subst(&r.jac, &mut r.rhs, m);
    }
}

/// LU with partial pivoting in place (row-major `m × m`; rows swapped in place,
/// `perm[k]` the row swapped with `k` at step `k`). False on a zero or
/// non-finite pivot.
fn lu_factor(a: &mut [f64], perm: &mut Vec<usize>, m: usize) -> bool {
    perm.clear();
    perm.resize(m, 0);
    for k in 0..m {
        let (mut piv, mut best) = (k, a[k * m + k].abs());
        for i in k + 1..m {
            let v = a[i * m + k].abs();
            if v > best {
                (piv, best) = (i, v);
            }
        }
        if !(best > 0.0 && best.is_finite()) {
            return false;
        }
        perm[k] = piv;
        if piv != k {
            for c in 0..m {
                a.swap(k * m + c, piv * m + c);
            }
        }
        let inv = 1.0 / a[k * m + k];
        let (head, tail) = a.split_at_mut((k + 1) * m);
        // The pivot row's entries past its last nonzero are zeros: the update
        // stops there (W couples only points that share a body).
        let full = &head[k * m + k + 1..k * m + m];
        let len = full.iter().rposition(|&y| y != 0.0).map_or(0, |j| j + 1);
        let rowk = &full[..len];
        for row in tail.chunks_exact_mut(m) {
            let l = row[k] * inv;
            row[k] = l;
            if l != 0.0 {
                for (x, &y) in row[k + 1..k + 1 + len].iter_mut().zip(rowk) {
                    *x -= l * y;
                }
            }
        }
    }
    true
}

/// `b ← A⁻¹ b` with the factor of [`lu_factor`].
fn lu_subst(a: &[f64], perm: &[usize], b: &mut [f64], m: usize) {
    // The factor's L rows are stored in the final row order: every interchange
    // first, then the forward substitution.
    for (k, &pk) in perm.iter().enumerate().take(m) {
        b.swap(k, pk);
    }
    // Forward: row by row (contiguous in the row-major factor).
    for i in 1..m {
        let row = &a[i * m..i * m + i];
        let s: f64 = row.iter().zip(&b[..i]).map(|(l, x)| l * x).sum();
        b[i] -= s;
    }
    for k in (0..m).rev() {
        let mut s = b[k];
        for c in k + 1..m {
            s -= a[k * m + c] * b[c];
        }
        b[k] = s / a[k * m + k];
    }
}

/// The right-hand side `−r_d − Aᵀ (D r_p + S⁻¹ r_c)` into `r.rhs` (`r.f` holds
/// `r_d`, `r.ip_dl` holds `S⁻¹ r_c`).
fn rhs(order: &[u32], nrm: &[(f64, f64)], r: &mut NewtonResults, nc: usize) {
    r.rhs.clear();
    r.rhs.resize(3 * order.len(), 0.0);
    for (ai, &i) in order.iter().enumerate() {
        let i = i as usize;
        let cb = ai * nc;
        let v0 = r.ip_l[cb] / r.ip_s[cb] * r.ip_rp[cb] + r.ip_dl[cb];
        r.rhs[3 * ai] = -(r.f[3 * i] + v0);
        if has_cone(r, i) {
            let (mut a1, mut a2) = (r.f[3 * i + 1], r.f[3 * i + 2]);
            for (j, &(nx, ny)) in nrm.iter().enumerate() {
                let c = cb + 1 + j;
                let v = r.ip_l[c] / r.ip_s[c] * r.ip_rp[c] + r.ip_dl[c];
                a1 -= v * nx;
                a2 -= v * ny;
            }
            (r.rhs[3 * ai + 1], r.rhs[3 * ai + 2]) = (-a1, -a2);
        }
    }
}

/// From `Δz` (in `r.rhs`): `Δs = A Δz + r_p` into `r.ip_ds`, `Δλ = −D Δs −
/// S⁻¹ r_c` into `r.ip_dl` (which held `S⁻¹ r_c`).
fn directions(order: &[u32], nrm: &[(f64, f64)], r: &mut NewtonResults, nc: usize) {
    for (ai, &i) in order.iter().enumerate() {
        let i = i as usize;
        let cb = ai * nc;
        let dz = [r.rhs[3 * ai], r.rhs[3 * ai + 1], r.rhs[3 * ai + 2]];
        let ds = dz[0] + r.ip_rp[cb];
        r.ip_ds[cb] = ds;
        r.ip_dl[cb] = -r.ip_l[cb] / r.ip_s[cb] * ds - r.ip_dl[cb];
        if has_cone(r, i) {
            let ap = r.ip_cone[i].0;
            for (j, &(nx, ny)) in nrm.iter().enumerate() {
                let c = cb + 1 + j;
                let ds = ap * dz[0] - (nx * dz[1] + ny * dz[2]) + r.ip_rp[c];
                r.ip_ds[c] = ds;
                r.ip_dl[c] = -r.ip_l[c] / r.ip_s[c] * ds - r.ip_dl[c];
            }
        }
    }
}

/// Largest `α ≤ 1` with `s + α Δs ≥ 0` and `λ + α Δλ ≥ 0`.
fn max_step(order: &[u32], r: &NewtonResults, nc: usize) -> f64 {
    let mut a = 1.0_f64;
    for (ai, &i) in order.iter().enumerate() {
        let cb = ai * nc;
        let last = if has_cone(r, i as usize) { nc } else { 1 };
        for c in cb..cb + last {
            if r.ip_ds[c] < 0.0 {
                a = a.min(-r.ip_s[c] / r.ip_ds[c]);
            }
            if r.ip_dl[c] < 0.0 {
                a = a.min(-r.ip_l[c] / r.ip_dl[c]);
            }
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The factor and the substitution solve an SPD system (x = (1, 2, 3) to
    /// 1e-14) and refuse an indefinite one.
    #[test]
    fn factor_and_subst() {
        let mut a = vec![4.0, 2.0, 0.0, 2.0, 5.0, 1.0, 0.0, 1.0, 3.0];
        let mut b = vec![8.0, 15.0, 11.0];
        assert!(cholesky_factor(&mut a, 3));
        cholesky_subst(&a, &mut b, 3);
        for (x, e) in b.iter().zip([1.0, 2.0, 3.0]) {
            assert!((x - e).abs() < 1e-14, "{x} vs {e}");
        }
        let mut s = vec![1.0, 2.0, 2.0, 1.0];
        assert!(!cholesky_factor(&mut s, 2));
    }

    /// LU with pivoting: a system that needs row swaps, x = (1, 2, 3) to 1e-14.
    #[test]
    fn lu_factor_and_subst() {
        let mut a = vec![0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 2.0, 0.0, 3.0];
        let mut b = vec![7.0, 3.0, 11.0];
        let mut perm = Vec::new();
        assert!(lu_factor(&mut a, &mut perm, 3));
        lu_subst(&a, &perm, &mut b, 3);
        for (x, e) in b.iter().zip([1.0, 2.0, 3.0]) {
            assert!((x - e).abs() < 1e-14, "{x} vs {e}");
        }
    }
}
