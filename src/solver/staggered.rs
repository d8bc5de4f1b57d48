//! Staggered globalization of the semismooth Newton solver ([`super::newton`]):
//! frozen cone radii, an exact convex QP inside, the radii updated outside.
//!
//! # Method
//! The coupled problem (the natural map of `solver::newton`, friction set of eq.
//! (5) of `003_668e561ceb3412ed`) couples the friction cone's radius `μ p_n` to the
//! normal impulse. With the radii frozen at `r_i`, what is left is the
//! optimality system of the convex quadratic program
//!
//! ```text
//! min φ(z) = ½ zᵀ W z + qᵀ z   s.t.   p_n,i ≥ 0,   f_t,i ∈ r_i conv{d_1…d_k}      (QP_r)
//! ```
//!
//! (`W` symmetric positive definite: `J M⁻¹ Jᵀ` plus the pipeline's CFM; its
//! gradient is `w = W z + q`, so the KKT conditions of `QP_r` are `F_r(z) = z −
//! P_{K_r}(z − w) = 0`, the natural map with the radii frozen). The outer loop
//! is the fixed point `r_i ← μ_i p_n,i(r)`: a solution of `QP_r` with
//! `r_i = μ_i p_n,i` is a solution of the coupled problem, and the stopping test is
//! the coupled natural map, `‖F‖∞ ≤ tolerance`, as the line-search method's.
//!
//! # The inner QP, and why it terminates
//! On `QP_r` the generalized Jacobian of `F_r` is `J = (I − D) + D W` with `D`
//! the derivative of the projection (block diagonal, an orthogonal projector onto
//! the tangent space of the face of `K_r` that `y = z − w` selects): the Newton
//! step is the exact minimizer of `φ` on that face's affine hull. The iterate is
//! kept feasible (`z ∈ K_r`) and the step is searched along the projected arc
//! `z(α) = P_{K_r}(z + αΔ)` with the Armijo test on the QP's own objective,
//!
//! ```text
//! φ(z(α)) − φ(z) = ½ sᵀ (w(z(α)) + w(z)) ≤ σ wᵀ s < 0,    s = z(α) − z
//! ```
//!
//! (the difference in this form is exact for a quadratic and free of the
//! cancellation of `φ(z(α)) − φ(z)` near the minimizer). When no trial passes,
//! projected Gauss–Seidel sweeps with the radii frozen — block coordinate
//! descent on `φ`: an exact minimization in `p_n`, a projected gradient step
//! of length `1/λ_max(W_tt)` in `f_t` — move the iterate. Every inner iteration
//! therefore decreases `φ`, which is strictly convex and bounded below on `K_r`:
//! the iterates converge to its unique minimizer (the sweeps alone would,
//! Luo–Tseng), and once the face at the minimizer is identified (finitely many
//! faces) the Newton step lands on it exactly, `α = 1`: finite termination up to
//! round-off in the non-degenerate case. The QP's merit `φ` is what makes the
//! difference with the coupled line search: the coupled map is no gradient, and
//! its Newton direction need not descend on `½‖F‖²` at a kink (lcp6, "Newton's
//! line search off the cones").
//!
//! # The outer loop
//! The radius map `r ↦ μ p_n(r)` has the coupled solutions as its fixed points;
//! it is not shown to be a contraction (the normal and tangent rows of a face
//! are coupled through `W`), so the loop is bounded (`outer_iterations`) and a
//! failure is reported like the line search's (the caller falls back). On the
//! dumped pile islands it converges, but linearly (84–1,004 inner Newton steps
//! on the committed ones without the finish below). The local finish: before
//! each radius update, full Newton steps on the coupled map (its generalized
//! Jacobian `A W + B` with the `μ` columns), kept while each at least halves
//! `‖F‖∞` — locally the semismooth Newton's fast convergence, and a step that
//! does not contract costs one factorization and hands back to the QP loop.
//!
//! # Newton on the radii (`Globalization::RadiusNewton`, lcp8)
//! The radius map `G(r) = μ p_n(QP_r)` is piecewise affine: on the face `Φ` of
//! `K_r` the QP's minimizer `z_k` identifies, `z(r)` is affine in `r` (the
//! face's linear system with `r` in its right-hand side). The coupled map
//! restricted to `Φ` — `Φ`'s pieces, the coupled values `F_t = (I − n nᵀ) w_t +
//! n (nᵀ f_t − μ c p_n)` / `f_t − μ p_n v` and their `μ` columns — has as its
//! zero on `Φ` the fixed point of the linearized radius map, so one Newton step
//! `(A W + B_μ + ε A) Δ = −F_Φ(z_k)` is Newton's method on `r ↦ G(r) − r`
//! without forming `∂G/∂r`. Its prediction `r_N = μ p_n(z_k + Δ)` is safeguarded
//! by the QP at `r_N` (from `z_k + Δ` projected onto `K_{r_N}`): accepted when
//! the coupled residual `‖F‖∞` falls, else the plain update `r ← μ p_n(z_k)` from
//! `z_k`. Measured on 200 pile20 failure islands (docs/BENCHMARKS.md, lcp8):
//! 96 converge at 100 steps (plain update 45), 180 at 400 (106).
//!
//! Both variants take the frozen QP's Newton step proximal, `(J + ε A) Δ = −F_r`
//! with the line search's `ε` (`NewtonParams::regularization` · max `W_nn`):
//! the exact step (ε = 0, lcp7) to the minimizer on the face's affine hull is ≈
//! 1/CFM long along the dependent corners of a face, its projected arc bends
//! onto other faces and the search stalls into sweeps (the first QP of a
//! failure island took a median of 130 steps, 32 of 200 more than 400; with ε
//! 61, 14).
//!
//! # Cost
//! One factorization per inner Newton step (as the line-search method; counted
//! in `max_iterations`, shared by all outer loops), one evaluation of `w` per
//! trial. No allocation once the results are sized.

use super::newton::{
    evaluate, island_eps, sweep, Globalization, NewtonResults, NewtonSolver, LINE_SEARCH_STEPS,
    STALL_STEP,
};
use super::pgs::{project_polygon_with, ContactProblem};

/// Largest Anderson memory (a stack-sized least-squares system).
pub const ANDERSON_MAX: usize = 8;

/// Anderson's extrapolation of the radius map `G(r) = μ p_n(QP_r)` (type II,
/// Walker–Ni): with the last `m` pairs `(G(r_j), g_j = G(r_j) − r_j)`, `r ←
/// Σ_j α_j G(r_j)` with `α = argmin ‖Σ α_j g_j‖₂` s.t. `Σ α_j = 1` (normal
/// equations of the small Gram matrix, Tikhonov 1e-12 of its trace), clamped at
/// `r ≥ 0`. The pair of the current iterate (`r.radius`, `r.z`) is stored in
/// slot `kept % m`. Writes the next radii into `r.radius`; false (plain fixed
/// point) when the system is singular.
fn anderson(
    problem: &ContactProblem,
    order: &[u32],
    r: &mut NewtonResults,
    m: usize,
    kept: &mut usize,
) -> bool {
    let n = problem.n();
    let (gv, res) = r.hist.split_at_mut(m * n);
    anderson_radius(problem, &r.z, order, &mut r.radius, (gv, res), m, kept)
        && r.radius.iter().all(|v| v.is_finite())
}

/// The radius map's Anderson step shared by this solver and `solver::primal`:
/// stores the current pair `(G(r), G(r) − r)` (`G(r)_i = μ_i p_n,i` from the
/// impulses `z`, 3 per point, or the point's share of its patch's load,
/// [`ContactProblem::radius_with`]) of the points in `order` in slot `kept % m` of
/// `(gv, res)` (`m` slots of `n = problem.n()` entries each), then writes `r ←
/// max(0, Σ_j α_j G(r_j))` ([`anderson_weights`]) into `radius`. False, with
/// `radius` untouched, when the system is singular.
pub(crate) fn anderson_radius(
    problem: &ContactProblem,
    z: &[f64],
    order: &[u32],
    radius: &mut [f64],
    (gv, res): (&mut [f64], &mut [f64]),
    m: usize,
    kept: &mut usize,
) -> bool {
    let n = problem.n();
    let slot = *kept % m;
    *kept += 1;
    for &i in order {
        let i = i as usize;
        let g = problem.radius_with(i, |j| z[3 * j].max(0.0));
        gv[slot * n + i] = g;
        res[slot * n + i] = g - radius[i];
    }
    let mk = (*kept).min(m);
    let Some(w) = anderson_weights(mk, |a, b| {
        order
            .iter()
            .map(|&i| res[a * n + i as usize] * res[b * n + i as usize])
            .sum()
    }) else {
        return false;
    };
    for &i in order {
        let i = i as usize;
        let v: f64 = (0..mk).map(|a| w[a] * gv[a * n + i]).sum();
        radius[i] = v.max(0.0);
    }
    true
}

/// Anderson's weights α (type II, Walker–Ni) over `mk ≤ ANDERSON_MAX` stored
/// residuals, given their inner products `dot(a, b)` (called for `b ≤ a`): the
/// normal equations `H α = 1` of the Gram matrix, Tikhonov 1e-12 of its trace,
/// by Gaussian elimination with partial pivoting, normalized to `Σ α = 1`. `None`
/// when the system is singular (a zero or NaN pivot, or `Σ α` zero or not
/// finite): the caller keeps the plain fixed point. Shared by the radius map
/// here and the primal solver's radius and centre maps.
#[allow(clippy::needless_range_loop)] // the Gram fill writes (a, b) and (b, a)
pub(crate) fn anderson_weights(
    mk: usize,
    dot: impl Fn(usize, usize) -> f64,
) -> Option<[f64; ANDERSON_MAX]> {
    let mut h = [[0.0_f64; ANDERSON_MAX + 1]; ANDERSON_MAX];
    let mut trace = 0.0;
    for a in 0..mk {
        for b in 0..=a {
            let d = dot(a, b);
            (h[a][b], h[b][a]) = (d, d);
        }
        trace += h[a][a];
        h[a][ANDERSON_MAX] = 1.0;
    }
    for (a, row) in h.iter_mut().enumerate().take(mk) {
        row[a] += 1e-12 * trace + f64::MIN_POSITIVE;
    }
    // Gaussian elimination with partial pivoting on [H | 1].
    for k in 0..mk {
        let piv = (k..mk)
            .max_by(|&a, &b| h[a][k].abs().total_cmp(&h[b][k].abs()))
            .unwrap_or(k);
        h.swap(k, piv);
        // A zero or NaN pivot: no extrapolation.
        if h[k][k].is_nan() || h[k][k] == 0.0 {
            return None;
        }
        let pivot_row = h[k];
        for row in h.iter_mut().take(mk).skip(k + 1) {
            let l = row[k] / pivot_row[k];
            for (x, &y) in row[k..mk].iter_mut().zip(&pivot_row[k..mk]) {
                *x -= l * y;
            }
            row[ANDERSON_MAX] -= l * pivot_row[ANDERSON_MAX];
        }
    }
    let mut x = [0.0_f64; ANDERSON_MAX];
    for k in (0..mk).rev() {
        let s: f64 = (k + 1..mk).map(|c| h[k][c] * x[c]).sum();
        x[k] = (h[k][ANDERSON_MAX] - s) / h[k][k];
    }
    let sum: f64 = x[..mk].iter().sum();
    if !(sum.is_finite() && sum != 0.0) {
        return None;
    }
    let mut w = [0.0_f64; ANDERSON_MAX];
    for (wa, xa) in w.iter_mut().zip(&x).take(mk) {
        *wa = xa / sum;
    }
    Some(w)
}

/// Interior paths (`solver::interior`) per frozen QP at most, with
/// `Globalization::Interior`; then the sweeps as before.
const INTERIOR_PATHS: usize = 2;

/// With `Globalization::Interior`: start every frozen QP with the interior path
/// (true) or take it only when the projected search stalls (false).
const INTERIOR_FIRST: bool = false;

/// Armijo's σ on the QP objective.
const ARMIJO: f64 = 1e-4;

impl NewtonSolver {
    /// The staggered method on one island; returns (Newton steps, coupled
    /// residual, converged).
    pub(super) fn solve_island_staggered(
        &self,
        problem: &ContactProblem,
        order: &[u32],
        r: &mut NewtonResults,
    ) -> (usize, f64, bool) {
        let p = &self.params;
        let mut steps = 0;
        let mut res = self.true_residual(problem, order, r);
        let n = problem.n();
        let m = p.anderson.min(ANDERSON_MAX);
        // Anderson history: G(r_j) = μ p_n(QP_{r_j}) and g_j = G(r_j) − r_j in
        // ring slots (`r.hist`, 2m vectors of n); `kept` of them valid.
        r.hist.clear();
        r.hist.resize(2 * m * n, 0.0);
        let mut kept = 0_usize;
        let mut next = false;
        for _ in 0..p.outer_iterations {
            let before = res;
            res = self.coupled_finish(problem, order, r, res, &mut steps);
            if res <= p.tolerance {
                return (steps, res, true);
            }
            if steps == p.max_iterations {
                break;
            }
            if res < before {
                // The finish moved the iterate: the radius sequence restarts.
                (kept, next) = (0, false);
            }
            // The coupled steps need not stay on the cones: back onto them.
            // The frozen radii: r_i = μ_i p_n,i, or Anderson's extrapolation
            // (`r.radius`, set below); the iterate is then projected onto K_r
            // (the QP's search starts from a feasible point).
            for &i in order {
                let i = i as usize;
                let z = &mut r.z[3 * i..3 * i + 3];
                z[0] = z[0].max(0.0);
                if !next {
                    r.radius[i] = problem.mu[i] * z[0];
                }
                (z[1], z[2]) = project_polygon_with(z[1], z[2], r.radius[i], &problem.table);
            }
            r.fixed = true;
            let solved = self.solve_frozen_qp(problem, order, r, &mut steps);
            r.fixed = false;
            res = self.true_residual(problem, order, r);
            if !solved {
                break;
            }
            next = m > 0 && anderson(problem, order, r, m, &mut kept);
        }
        (steps, res, res <= p.tolerance)
    }

    /// Newton on the radius map (module doc, "Newton on the radii"); returns
    /// (Newton steps, coupled residual, converged).
    pub(super) fn solve_island_radius_newton(
        &self,
        problem: &ContactProblem,
        order: &[u32],
        r: &mut NewtonResults,
    ) -> (usize, f64, bool) {
        let p = &self.params;
        let mut steps = 0;
        let mut res = self.true_residual(problem, order, r);
        if res <= p.tolerance {
            return (steps, res, true);
        }
        let eps = island_eps(problem, order, p.regularization);
        // QP_r at r = μ p_n of the start (the plain staggered method's first loop).
        self.plain_update(problem, order, r);
        let mut solved = self.qp_at_radius(problem, order, r, &mut steps);
        res = self.true_residual(problem, order, r);
        for _ in 0..p.outer_iterations {
            if res <= p.tolerance || !solved || steps >= p.max_iterations {
                break;
            }
            // z_k (the QP's minimizer at r_k), for the safeguard.
            for &i in order {
                let i = i as usize;
                r.saved[3 * i..3 * i + 3].copy_from_slice(&r.z[3 * i..3 * i + 3]);
            }
            // The Newton step on the radii: the coupled map on the face of K_{r_k}
            // that z_k − w selects, (A W + B_μ) Δ = −F; its zero z_k + Δ has
            // r = μ p_n on that face (the linearized radius map's fixed point).
            (r.fixed, r.face_coupled) = (true, true);
            let z = std::mem::take(&mut r.z);
            evaluate(problem, order, &z, r, 0.0);
            r.z = z;
            steps += 1;
            let stepped = self.newton_step(problem, order, eps, r);
            (r.fixed, r.face_coupled) = (false, false);
            if stepped {
                for &i in order {
                    let i = i as usize;
                    for c in 3 * i..3 * i + 3 {
                        r.z[c] += r.dz[c];
                    }
                }
                self.plain_update(problem, order, r);
                solved = self.qp_at_radius(problem, order, r, &mut steps);
                let res_n = self.true_residual(problem, order, r);
                if solved && res_n < res {
                    res = res_n;
                    continue;
                }
            }
            // Rejected: the plain update r ← μ p_n(z_k) from z_k.
            for &i in order {
                let i = i as usize;
                r.z[3 * i..3 * i + 3].copy_from_slice(&r.saved[3 * i..3 * i + 3]);
            }
            self.plain_update(problem, order, r);
            solved = self.qp_at_radius(problem, order, r, &mut steps);
            res = self.true_residual(problem, order, r);
        }
        (steps, res, res <= p.tolerance)
    }

    /// `r_i ← μ_i p_n,i` at `r.z` (normal part clamped at 0), and `r.z`
    /// projected onto `K_r`.
    fn plain_update(&self, problem: &ContactProblem, order: &[u32], r: &mut NewtonResults) {
        for &i in order {
            let i = i as usize;
            let z = &mut r.z[3 * i..3 * i + 3];
            z[0] = z[0].max(0.0);
            r.radius[i] = problem.mu[i] * z[0];
            (z[1], z[2]) = project_polygon_with(z[1], z[2], r.radius[i], &problem.table);
        }
    }

    /// `QP_r` at the radii `r.radius` from `r.z` (feasible).
    fn qp_at_radius(
        &self,
        problem: &ContactProblem,
        order: &[u32],
        r: &mut NewtonResults,
        steps: &mut usize,
    ) -> bool {
        r.fixed = true;
        let solved = self.solve_frozen_qp(problem, order, r, steps);
        r.fixed = false;
        solved
    }

    /// The local finish (module doc, "The outer loop"): full Newton steps on
    /// the coupled map from `r.z` (whose pieces `r.a`, `r.b`, `r.f` are those of
    /// the last coupled evaluation, residual `res`), kept while each at least
    /// halves `‖F‖∞`; returns the residual at `r.z`.
    pub(super) fn coupled_finish(
        &self,
        problem: &ContactProblem,
        order: &[u32],
        r: &mut NewtonResults,
        mut res: f64,
        steps: &mut usize,
    ) -> f64 {
        let p = &self.params;
        while res > p.tolerance && *steps < p.max_iterations {
            *steps += 1;
            if !self.newton_step(problem, order, 0.0, r) {
                break;
            }
            for &i in order {
                let i = i as usize;
                for c in 3 * i..3 * i + 3 {
                    r.trial[c] = r.z[c] + r.dz[c];
                }
            }
            let trial = std::mem::take(&mut r.trial);
            let res_t = evaluate(problem, order, &trial, r, 0.0);
            r.trial = trial;
            // Not halved (or NaN): back to the QP loop.
            if res_t.is_nan() || res_t > 0.5 * res {
                break;
            }
            for &i in order {
                let i = i as usize;
                r.z[3 * i..3 * i + 3].copy_from_slice(&r.trial[3 * i..3 * i + 3]);
            }
            res = res_t;
        }
        res
    }

    /// `QP_r` (module doc) from `r.z` (feasible) to `‖F_r‖∞ ≤ tolerance / 2`;
    /// false when the step budget is spent first.
    pub(super) fn solve_frozen_qp(
        &self,
        problem: &ContactProblem,
        order: &[u32],
        r: &mut NewtonResults,
        steps: &mut usize,
    ) -> bool {
        let p = &self.params;
        let tol = 0.5 * p.tolerance;
        // The proximal step (J + ε A) Δ = −F_r, ε as the line search's: W is
        // singular up to the CFM on a face's dependent corners, and the exact
        // step to the minimizer on the face's affine hull is ≈ 1/CFM long
        // there; its projected arc then bends onto other faces and the search
        // stalls (sweeps). With ε the step is the minimizer of φ + ε/2‖Δ‖²
        // on the face, a descent direction for φ, zero only at F_r = 0.
        let eps = island_eps(problem, order, p.regularization);
        // `Globalization::Interior` (lcp10): a stalled search hands the QP to the
        // interior path (`solver::interior`) instead of sweeps, at most
        // `INTERIOR_PATHS` times per QP; the Newton step then finishes on the
        // face the path identified.
        let mut paths = if p.globalization == Globalization::Interior {
            INTERIOR_PATHS
        } else {
            0
        };
        if paths > 0 && INTERIOR_FIRST {
            paths -= 1;
            if self.interior_path(problem, order, r, steps, false) {
                return true;
            }
        }
        loop {
            let z = std::mem::take(&mut r.z);
            let res = evaluate(problem, order, &z, r, 0.0);
            r.z = z;
            if res <= tol {
                return true;
            }
            if *steps == p.max_iterations {
                return false;
            }
            *steps += 1;
            // w(z), kept for the Armijo test (the trials overwrite r.w).
            for &i in order {
                let i = i as usize;
                r.anchor[3 * i..3 * i + 3].copy_from_slice(&r.w[3 * i..3 * i + 3]);
            }
            let alpha = if self.newton_step(problem, order, eps, r) {
                projected_search(problem, order, r, tol)
            } else {
                0.0
            };
            if alpha < STALL_STEP && paths > 0 {
                paths -= 1;
                if self.interior_path(problem, order, r, steps, false) {
                    return true;
                }
            } else if alpha < STALL_STEP {
                for _ in 0..p.smoothing_sweeps.max(1) {
                    sweep(problem, order, &mut r.z, Some(&r.radius));
                }
            }
        }
    }
}

/// Backtracking along `z(α) = P_{K_r}(z + αΔ)` on `φ` (module doc); the
/// accepted trial becomes `r.z`. Returns the accepted `α`, 0 if none.
fn projected_search(
    problem: &ContactProblem,
    order: &[u32],
    r: &mut NewtonResults,
    tol: f64,
) -> f64 {
    let mut alpha = 1.0;
    for _ in 0..=LINE_SEARCH_STEPS {
        for &i in order {
            let i = i as usize;
            let t = &mut r.trial[3 * i..3 * i + 3];
            let (z, d) = (&r.z[3 * i..3 * i + 3], &r.dz[3 * i..3 * i + 3]);
            for ((tc, zc), dc) in t.iter_mut().zip(z).zip(d) {
                *tc = zc + alpha * dc;
            }
            t[0] = t[0].max(0.0);
            (t[1], t[2]) = project_polygon_with(t[1], t[2], r.radius[i], &problem.table);
        }
        let trial = std::mem::take(&mut r.trial);
        let res_t = evaluate(problem, order, &trial, r, 0.0);
        r.trial = trial;
        // φ(z(α)) − φ(z) = ½ sᵀ(w(z(α)) + w(z)) and the slope wᵀs.
        let (mut dec, mut slope) = (0.0, 0.0);
        for &i in order {
            let i = i as usize;
            for c in 3 * i..3 * i + 3 {
                let s = r.trial[c] - r.z[c];
                dec += 0.5 * s * (r.w[c] + r.anchor[c]);
                slope += s * r.anchor[c];
            }
        }
        if res_t <= tol || (dec < 0.0 && dec <= ARMIJO * slope) {
            for &i in order {
                let i = i as usize;
                r.z[3 * i..3 * i + 3].copy_from_slice(&r.trial[3 * i..3 * i + 3]);
            }
            return alpha;
        }
        alpha *= 0.5;
    }
    0.0
}
