//! The elastic relaxation of an LCP along Lemke's path: LCP(M, q + t d) with the
//! least t the path reaches (issue 12, branch `peg10`).
//!
//! Lemke's augmented system `w = q + M z + d z₀` is, at every vertex of its path,
//! a solution of LCP(M, q + z₀ d): complementary, z ≥ 0, w ≥ 0. Lemke's method
//! reads z₀ only as the artificial variable that must leave; here it is the
//! *relaxation* t = z₀ of the rows d covers, and the vertex of least t is kept.
//! A ray ends the path as it ends Lemke's, and the kept vertex is then the
//! least relaxation the path found — t = 0 when the path ends in a solution.
//!
//! **Start.** The standard start needs d_i > 0 on every row with q_i < 0. With
//! d zero on some rows (only the rows to relax covered), the path starts instead
//! from a complementary basis that is feasible for all t ≥ t₀ (given by the
//! caller as the z's in it, `start`): z_i basic for `start[i]`, w_j basic for
//! the others; its values are x_B(t) = B⁻¹(q + t d), and it must be that rows
//! with x_B(0) < 0 grow with t (else the start is rejected). z₀ enters at
//! t₀ = max over those rows of −x_B,r(0) / (B⁻¹ d)_r, the row that leaves at t₀
//! gives the first entering complement, and the pivots then are Lemke's (the
//! minimum-ratio test with the lexicographic tie rule of `lemke.rs`). This is
//! Lemke's method from a non-standard start (Cottle–Pang–Stone §4.4, the
//! "general" scheme with an arbitrary covering column).
//!
//! No guarantee that the least t on the path is the least t for which
//! LCP(M, q + t d) has a solution (the path is one of many); but t₀ is a bound
//! that the start's own basis meets (z of the start is a solution at t₀), so a
//! relaxed solution is always returned when the start is feasible.

use nalgebra::DVector;

use crate::solver::lcp::{complementarity_residual, resize_zeroed, LcpProblem};
use crate::solver::{LemkeResults, LemkeSolver, LemkeStats, LemkeStatus};

impl LemkeSolver {
    /// Lemke's path on LCP(M, q + t d) from the complementary basis `start`
    /// (module doc of `lemke_elastic.rs`; `d ≥ 0`, `start[i]`: z_i basic), the
    /// vertex of least t with ‖z‖∞ ≤ `z_bound` kept: `results.z` is it,
    /// `results.w` = M z + q + t d, `results.stats.residual` = ‖min(z, w)‖∞ of
    /// that relaxed LCP. Returns the path's end (`Solved`: t = 0 reached, the
    /// solution polished as `solve`'s; `RayTermination` / `IterationLimit`: the
    /// kept vertex is a solution of the relaxed LCP only) and t (`∞` if no
    /// vertex was kept: an infeasible or singular start, `InvalidProblem` on bad
    /// data). Uses `params.zero_tol`, `tie_tol`, `max_pivots` (not `covering`).
    /// No allocation once sized for n; never panics.
    pub fn solve_elastic(
        &mut self,
        problem: &LcpProblem,
        d: &DVector<f64>,
        start: &[bool],
        z_bound: f64,
        results: &mut LemkeResults,
    ) -> (LemkeStatus, f64) {
        results.stats = LemkeStats {
            residual: f64::INFINITY,
            ..LemkeStats::default()
        };
        if problem.validate().is_err() {
            return (LemkeStatus::InvalidProblem, f64::INFINITY);
        }
        let n = problem.n();
        resize_zeroed(&mut results.z, n);
        resize_zeroed(&mut results.w, n);
        if d.len() != n || start.len() != n || d.iter().any(|x| !(x.is_finite() && *x >= 0.0)) {
            return (LemkeStatus::InvalidProblem, f64::INFINITY);
        }
        self.ws.resize(n);
        let scale = problem
            .m
            .iter()
            .chain(d.iter())
            .fold(1.0_f64, |a, b| a.max(b.abs()));
        let pivot_tol = self.params.zero_tol * scale;
        let limit = self.params.pivot_limit(n);
        let (zc, rhs) = (2 * n, 2 * n + 1);
        // [I | −M | −d | q], basis w.
        {
            let t = &mut self.ws.t;
            t.fill(0.0);
            for i in 0..n {
                t[(i, i)] = 1.0;
                for j in 0..n {
                    t[(i, n + j)] = -problem.m[(i, j)];
                }
                t[(i, zc)] = -d[i];
                t[(i, rhs)] = problem.q[i];
                self.ws.basis[i] = i;
            }
        }
        // The start's z_i into the basis (Gauss–Jordan; as `warm_tableau`).
        for (i, _) in start.iter().enumerate().filter(|(_, &s)| s) {
            let c = n + i;
            let mut best: Option<(usize, f64)> = None;
            for r in 0..n {
                let b = self.ws.basis[r];
                if b < n && start[b] {
                    let a = self.ws.t[(r, c)].abs();
                    if best.is_none_or(|(_, v)| a > v) {
                        best = Some((r, a));
                    }
                }
            }
            match best {
                Some((r, a)) if a > pivot_tol => {
                    self.pivot(n, r, c);
                    self.ws.basis[r] = c;
                    results.stats.setup_pivots += 1;
                }
                _ => return (LemkeStatus::InvalidProblem, f64::INFINITY),
            }
        }
        // x_B(t) = rhs − T_z0 t: t₀ and the row that binds at it. A start's
        // variable at 0 (a degenerate basic β of the PEG start) comes out of the
        // setup pivots as round-off, e.g. −2e-15: below 1e-9 max(1, ‖q‖∞) it is 0.
        let x_tol = 1e-9 * problem.q.iter().fold(1.0f64, |a, x| a.max(x.abs()));
        let mut enter: Option<(usize, f64)> = None;
        let mut t_hi = f64::INFINITY;
        for r in 0..n {
            let (x, a) = (self.ws.t[(r, rhs)], self.ws.t[(r, zc)]);
            if x < 0.0 {
                if a >= -pivot_tol {
                    if x >= -x_tol {
                        self.ws.t[(r, rhs)] = 0.0;
                        continue;
                    }
                    return (LemkeStatus::InvalidProblem, f64::INFINITY);
                }
                let t0 = x / a;
                if enter.is_none_or(|(_, v)| t0 > v) {
                    enter = Some((r, t0));
                }
            } else if a > pivot_tol {
                t_hi = t_hi.min(x / a);
            }
        }
        let Some((r0, t0)) = enter else {
            // Feasible at t = 0: the start solves the LCP.
            self.extract(n, &mut results.z);
            let _ = problem.compute_w(&results.z, &mut results.w);
            results.stats.residual = complementarity_residual(&results.z, &results.w);
            if self.params.polish {
                self.polish(problem, pivot_tol, results);
            }
            return (LemkeStatus::Solved, 0.0);
        };
        if t0 > t_hi * (1.0 + 1e-12) + pivot_tol {
            return (LemkeStatus::InvalidProblem, f64::INFINITY);
        }
        self.pivot(n, r0, zc);
        results.stats.pivots += 1;
        let mut leaving = self.ws.basis[r0];
        self.ws.basis[r0] = zc;
        let mut best_t = f64::INFINITY;
        self.keep_vertex(n, z_bound, x_tol, &mut best_t, &mut results.z);
        let mut pivots = 1usize;
        let status = loop {
            let entering = if leaving < n {
                leaving + n
            } else {
                leaving - n
            };
            if pivots >= limit {
                break LemkeStatus::IterationLimit;
            }
            // Lemke's step 3 (`lemke.rs`, one shared pivot).
            let Some(left) = self.complementary_pivot(n, entering, pivot_tol) else {
                break LemkeStatus::RayTermination;
            };
            pivots += 1;
            results.stats.pivots += 1;
            leaving = left;
            if leaving == zc {
                break LemkeStatus::Solved;
            }
            self.keep_vertex(n, z_bound, x_tol, &mut best_t, &mut results.z);
        };
        if status == LemkeStatus::Solved {
            self.extract(n, &mut results.z);
            let _ = problem.compute_w(&results.z, &mut results.w);
            results.stats.residual = complementarity_residual(&results.z, &results.w);
            if self.params.polish {
                self.polish(problem, pivot_tol, results);
            }
            return (status, 0.0);
        }
        if !best_t.is_finite() {
            return (status, f64::INFINITY);
        }
        let _ = problem.compute_w(&results.z, &mut results.w);
        results.w.axpy(best_t, d, 1.0);
        results.stats.residual = complementarity_residual(&results.z, &results.w);
        (status, best_t)
    }

    /// At a vertex of the elastic path: if its t (z₀'s value) is below `best_t`
    /// and its z within `z_bound`, keeps it in `z`. A vertex whose basic values
    /// have gone below −`x_tol` (the tableau lost feasibility to round-off, as on
    /// islands scaled to σ_max ≈ 1e6–1e7) is not a solution of the relaxed LCP
    /// and is not kept.
    fn keep_vertex(
        &self,
        n: usize,
        z_bound: f64,
        x_tol: f64,
        best_t: &mut f64,
        z: &mut DVector<f64>,
    ) {
        let (zc, rhs) = (2 * n, 2 * n + 1);
        let mut t = f64::INFINITY;
        let mut zmax = 0.0f64;
        for r in 0..n {
            let b = self.ws.basis[r];
            let x = self.ws.t[(r, rhs)];
            if x < -x_tol {
                return;
            }
            let x = x.max(0.0);
            if b == zc {
                t = x;
            } else if (n..2 * n).contains(&b) {
                zmax = zmax.max(x);
            }
        }
        if t < *best_t && zmax <= z_bound {
            *best_t = t;
            self.extract(n, z);
        }
    }
}
