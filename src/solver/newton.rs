//! Semismooth Newton (active-set) solver for the block-sparse contact problem
//! ([`ContactProblem`]): the same friction set as [`PgsSolver::solve_contacts`]
//! (`p_n ≥ 0`, `f_t ∈ μ p_n conv{d_1…d_k}`, the polyhedral cone of eq. (5) of
//! `003_668e561ceb3412ed`), solved to exact complementarity in a few iterations.
//!
//! # Method
//! A solution is a zero of the natural map, point by point (`w = W z + q`):
//!
//! ```text
//! F_n = p_n − max(0, p_n − w_n)
//! F_t = f_t − P_{μ p_n}(f_t − w_t)         (P onto the k-gon of circumradius μ p_n)
//! ```
//!
//! `F` is piecewise linear in `z`. On each piece, point `i` has one of these modes
//! (`y = z − w`, `c = cos(π/k)` the apothem of the unit k-gon, `n` an edge's
//! outward normal, `v` a vertex):
//!
//! | mode | condition | `F_i` |
//! |---|---|---|
//! | normal active | `y_n > 0` | `F_n = w_n` |
//! | normal off | `y_n ≤ 0` | `F_n = p_n` |
//! | stick | `y_t` inside the polygon | `F_t = w_t` |
//! | slide on an edge | `y_t` beyond edge `n` | `F_t = (I − n nᵀ) w_t + n (nᵀ f_t − μ c p_n)` |
//! | slide at a vertex | `y_t` in the vertex's wedge | `F_t = f_t − μ p_n v` |
//! | no cone | `μ p_n ≤ 0` | `F_t = f_t` |
//!
//! so `F_i = A_i w_i + B_i z_i` with 3×3 `A_i`, `B_i` fixed on the piece, and the
//! generalized Jacobian is `J = A W + B` (`A`, `B` block diagonal). One Newton
//! step `z ← z − J⁻¹ F(z)` lands exactly on the zero of the piece's linear map:
//! when the active set (the modes) is the right one, the step is the solution.
//! Warm-started from the last tick's impulses, whose active set resting contact
//! rarely changes, a solve is one or two factorizations. It is the active-set /
//! block-pivoting method written as Newton's method on `F`, with the modes read
//! off the iterate instead of pivoted one at a time.
//!
//! Points whose `A_i = 0` (normal off: the point separates) have the step
//! `Δ_i = −B_i⁻¹ F_i` in closed form and leave the linear system; the others
//! (3 rows each) form a dense system per island, factored by LU with partial
//! pivoting.
//!
//! # Dependent rows
//! A face resting on a face gives 4 corner points whose rows of W are dependent
//! (W has rank ≤ 6 per body): J is singular on sticking contact. The step solves
//! `(J + ε I) Δ = −F` with `ε = regularization · max_i W_nn(i)`: on a consistent
//! singular system this is the minimum-norm step up to a factor `λ/(λ + ε)` per
//! eigenvalue λ of the range, so the iteration contracts by `ε/(λ_min + ε)` per
//! step (1e-6 for λ_min/λ_max = 1e-3, a 1,000:1 mass ratio, and the default
//! regularization 1e-9) and the null-space part of z (how the load spreads over
//! the dependent corners) is left where the warm start put it. The converged z
//! solves the unregularized problem: the stopping test is on `F` itself.
//!
//! # Globalization and stopping
//! A backtracking line search on `θ = ½‖F‖²` (halving the step up to
//! [`LINE_SEARCH_STEPS`] times): accept `θ(z + αΔ) ≤ max_{j<M} θ(z_{k−j}) −
//! 10⁻⁴ α θ(z)` over the last `M` accepted iterates of the current proximal
//! anchor (`NewtonParams::nonmonotone`, Grippo–Lampariello–Lucidi; default
//! `M =` [`NONMONOTONE`] `= 1`, the monotone Armijo test). The trial `z + αΔ`
//! is projected onto the cones (`NewtonParams::project_trial`, default). Not
//! projecting it keeps the Newton direction (`F` is defined everywhere and its
//! zeros lie on the cones): on the 36-point resting islands of the pile no
//! projected trial decreased `θ` and the unprojected search converges there with
//! 100 steps and 40 rescues, but at the pipeline's 30 and 10 it loses the
//! 16-point resting island (`resting_pile_island_converges`), so it is an option
//! (docs/BENCHMARKS.md, "Newton's line search off the cones"). An
//! island stops `Converged` once `‖F‖∞ ≤ tolerance` (the natural-map residual of
//! PGS, so both solvers stop on the same test); it fails (`Unconverged`, its last
//! iterate kept) when the line search finds no decrease, a pivot vanishes, or
//! `max_iterations` steps are spent. An island of more than `max_dense_points`
//! points is not attempted (the dense factorization is cubic): it is left at the
//! guess and reported in `skipped_islands`. The caller solves failed and skipped
//! islands by PGS (counted).
//!
//! Why the line search stalls, and the rescue. On a piece whose linear system is
//! inconsistent (the dependent corner rows of a face, with the wrong modes), the
//! regularized step is ≈ 1/ε long in the directions J cannot reach; `θ` then
//! rises within a tiny fraction of the step (measured on islands of the 20-object
//! pile, dumped with `RTPHYS_NEWTON_DUMP`: accepted steps of 1e-7 of the Newton
//! step, a crawl). When the line search fails or accepts less than
//! [`STALL_STEP`], `smoothing_sweeps` projected Gauss–Seidel sweeps (monotone on
//! the normal rows) move the iterate onto other pieces and a new proximal anchor
//! is taken, at most `smoothing_rounds` times ([`SMOOTHING_SWEEPS`] ×
//! [`SMOOTHING_ROUNDS`] = 500 sweeps, the PGS solver's default budget). On 200
//! dumped landing islands (4–33 points) that all stalled with 4-sweep rescues,
//! 151 converge to 1e-9 with 50-sweep ones. The islands of the pile at rest
//! stalled near 1e-8 while their q had a part in null(W₀) (only the CFM answered
//! it); the pipeline now removes it (`pipeline::lcp::consistent`), and such an
//! island converges (`tests/solver_newton.rs::resting_pile_island_converges`).
//! On the consistent resting islands of the 20-pile (30–50 points) Newton with
//! the projected, monotone line search stopped at 5e-7 – 3e-6 (docs/BENCHMARKS.md,
//! "A consistent stabilization"); of 200 dumped ones, 0 converge at the
//! pipeline's budget (30 steps, 10 rescues), 103 with 100 steps and 40 rescues,
//! 128 with that budget and the unprojected trial
//! (`tests/solver_newton.rs::resting_pile_island_of_36_points_converges`); the
//! others are open (`resting_pile_island_of_36_points_b_converges`, ignored).
//!
//! The second globalization, [`Globalization::Staggered`]
//! (`solver::staggered`): frozen cone radii, the convex QP of the frozen cones
//! solved with a merit (its objective) on which every inner iteration descends,
//! the radii updated outside. It converges on every committed pile island
//! (`tests/solver_newton.rs::staggered_converges_on_every_committed_island`,
//! including the 36-point island b the line search misses) but needs 100–2,000
//! steps on the pile's resting islands, so the pipeline keeps the line search
//! (docs/BENCHMARKS.md, "A staggered globalization").
//!
//! # Cost
//! Per step: one pass over the blocks for `F` (and one per line-search trial),
//! the assembly of the `3a × 3a` system of the `a` active points and its LU,
//! `O(a³)`. No allocation once the results have been sized for the problem.
//!
//! [`PgsSolver::solve_contacts`]: super::pgs::PgsSolver::solve_contacts

use super::lcp::all_finite;
use super::pgs::{project_polygon_with, ContactProblem, PolygonTable};

/// Parameters of [`NewtonSolver`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewtonParams {
    /// Natural-map residual `‖F‖∞` to stop at (units of `w`, m/s, and N·s).
    pub tolerance: f64,
    /// Newton steps (factorizations) per island.
    pub max_iterations: usize,
    /// ε of the regularized step, relative to the island's largest `W_nn`.
    pub regularization: f64,
    /// Largest island (points) factored densely; larger ones are skipped.
    pub max_dense_points: usize,
    /// Projected Gauss–Seidel sweeps per rescue of a stalled line search, and
    /// rescues per island before it fails ("Globalization and stopping").
    pub smoothing_sweeps: usize,
    pub smoothing_rounds: usize,
    /// Nonmonotone (Grippo–Lampariello–Lucidi) line search memory: a trial is
    /// accepted against the largest merit of the last `nonmonotone` accepted
    /// iterates of the current anchor (1 = monotone Armijo).
    pub nonmonotone: usize,
    /// Project the line search's trial points onto the cones (default, as
    /// before lcp6); false: the natural map is evaluated at `z + αΔ` as it is
    /// ("Globalization and stopping": better on the 36-point resting islands
    /// with a larger budget, worse on the 16-point one at the pipeline's).
    pub project_trial: bool,
    /// How an island's iteration is globalized ([`Globalization`]).
    pub globalization: Globalization,
    /// Outer loops (cone-radius updates) of [`Globalization::Staggered`].
    pub outer_iterations: usize,
    /// Anderson memory on the staggered method's radii (0: the plain fixed
    /// point `r ← μ p_n`; at most `staggered::ANDERSON_MAX`).
    pub anderson: usize,
    /// Factorizations of the interior-point rescue per island
    /// ([`Globalization::LineSearchThenInterior`]; `solver::interior`).
    pub interior_iterations: usize,
    /// The interior path's start shift of `s` and `λ` off 0, relative to the
    /// island's impulse and velocity scales (`solver::interior::START_SHIFT`).
    pub interior_shift: f64,
    /// The shift on an island started in the interior method by the caller's
    /// hint (`NewtonResults::start_interior`), whose start is last tick's
    /// solution (lcp11).
    pub interior_warm_shift: f64,
}

/// The globalization of the Newton iteration on an island.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Globalization {
    /// Backtracking on `θ = ½‖F‖²` of the coupled natural map, PGS rescue
    /// rounds after a stall ("Globalization and stopping"; the solver up to
    /// lcp6).
    #[default]
    LineSearch,
    /// Staggered on the cone radii (`solver::staggered`): freeze `r_i = μ_i
    /// p_n,i`, solve the convex QP of the frozen cones exactly (Newton on its
    /// natural map with a projected search on the QP's objective, PGS sweeps —
    /// monotone on that objective — when the search fails), update `r`, repeat.
    Staggered,
    /// Staggered, with Newton's method on the radius map `r ↦ μ p_n(QP_r)`
    /// (`solver::staggered`, "Newton on the radii"): the coupled Newton step
    /// restricted to the face the QP identified predicts the radii, the QP at
    /// those radii is their safeguard (accepted when the coupled residual
    /// falls, else the plain update `r ← μ p_n`).
    RadiusNewton,
    /// The radius Newton whose frozen QP, when its projected search stalls,
    /// is handed to a primal–dual interior-point path (`solver::interior`,
    /// lcp10) instead of PGS sweeps: the face of `K_r` is found along the
    /// central path instead of one constraint at a time, then the frozen QP's
    /// Newton finishes on it.
    Interior,
    /// The line search first (bitwise the `LineSearch` solve where it
    /// converges); an island it fails on is solved again from its last iterate
    /// by [`Globalization::Interior`] with `interior_iterations` steps (lcp10).
    LineSearchThenInterior,
}

impl Default for NewtonParams {
    fn default() -> Self {
        NewtonParams {
            tolerance: 1e-9,
            max_iterations: 30,
            regularization: 1e-9,
            max_dense_points: 96,
            smoothing_sweeps: SMOOTHING_SWEEPS,
            smoothing_rounds: SMOOTHING_ROUNDS,
            nonmonotone: NONMONOTONE,
            project_trial: true,
            globalization: Globalization::LineSearch,
            outer_iterations: OUTER_ITERATIONS,
            anderson: ANDERSON,
            interior_iterations: super::interior::INTERIOR_STEPS,
            interior_shift: super::interior::START_SHIFT,
            interior_warm_shift: super::interior::START_SHIFT,
        }
    }
}

/// Outcome of a solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewtonStatus {
    /// Every island meets the tolerance.
    Converged,
    /// Some island failed or was skipped (`stats`); those keep their last iterate.
    Unconverged,
    /// Sizes, indices or values invalid (nothing solved, `z` zero).
    InvalidProblem,
}

/// Counters of one solve.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NewtonStats {
    /// Most Newton steps spent on one island.
    pub iterations: usize,
    /// Newton steps (factorizations) summed over the islands.
    pub factorizations: usize,
    /// Largest natural-map residual `‖F‖∞` over the islands solved.
    pub residual: f64,
    /// Islands in the problem, islands that failed, islands too large to factor.
    pub islands: usize,
    pub failed_islands: usize,
    pub skipped_islands: usize,
    /// Largest linear system factored (rows).
    pub largest_system: usize,
    /// Of the factorizations, how many were Cholesky (symmetric J: every active
    /// point normal-active and sticking); the others are LU.
    pub cholesky: usize,
    /// Islands the line search failed on that the interior-point rescue took
    /// ([`Globalization::LineSearchThenInterior`]), and of those, how many it
    /// did not converge either.
    pub interior_rescues: usize,
    pub interior_failures: usize,
    /// Islands started in the interior method without the line search,
    /// because the caller's hint (`NewtonResults::start_interior`) named one
    /// of their points (lcp11).
    pub interior_starts: usize,
    /// Of `factorizations`, those of the line search (with its sweeps'
    /// anchors) and those of the interior method (its paths, coupled Newton
    /// steps and radius Newton): the phases of the profile (lcp11).
    pub line_search_factorizations: usize,
    pub interior_factorizations: usize,
}

/// Output and work buffers; reuse across solves.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NewtonResults {
    /// `(p_n, f_t₁, f_t₂)` per point.
    pub z: Vec<f64>,
    pub stats: NewtonStats,
    /// Per point: `w`, `F`, the trial iterate, the step.
    pub(super) w: Vec<f64>,
    pub(super) f: Vec<f64>,
    pub(super) trial: Vec<f64>,
    pub(super) dz: Vec<f64>,
    pub(super) anchor: Vec<f64>,
    /// Per point: `A_i`, `B_i` (row-major 3×3) of the current piece; position in
    /// the active system (or `u32::MAX`).
    a: Vec<[f64; 9]>,
    b: Vec<[f64; 9]>,
    pub(super) slot: Vec<u32>,
    /// The active points of the island, the dense system (row-major) and its
    /// right-hand side, the LU's row permutation.
    active: Vec<u32>,
    pub(super) jac: Vec<f64>,
    pub(super) rhs: Vec<f64>,
    pub(super) perm: Vec<usize>,
    /// The staggered method's frozen cone radii `r_i` per point, and whether
    /// [`evaluate`] uses them (the fixed-radius QP) instead of `μ_i p_n,i`.
    pub(super) radius: Vec<f64>,
    pub(super) fixed: bool,
    /// With `fixed`: the pieces of the frozen radii, the coupled map's values
    /// and μ columns on them (`solver::staggered`'s radius Newton step).
    pub(super) face_coupled: bool,
    /// The staggered radius Newton's saved iterate (QP solution of the last
    /// accepted radii), per point.
    pub(super) saved: Vec<f64>,
    /// The staggered method's Anderson history (`staggered::anderson`).
    pub(super) hist: Vec<f64>,
    /// The interior-point QP (`solver::interior`), `k + 1` per point of the
    /// island: slacks `s`, multipliers `λ`, their steps, the primal residual.
    pub(super) ip_s: Vec<f64>,
    pub(super) ip_l: Vec<f64>,
    pub(super) ip_ds: Vec<f64>,
    pub(super) ip_dl: Vec<f64>,
    pub(super) ip_rp: Vec<f64>,
    /// Per point: the interior path's edge constraint `a_p p_n + b_0` (frozen
    /// radius: `(0, c r_i)`; coupled: `(c μ_i, 0)`).
    pub(super) ip_cone: Vec<(f64, f64)>,
    /// Input, per point (or empty: no hint): with
    /// [`Globalization::LineSearchThenInterior`], an island any of whose points
    /// is `true` skips the line search and starts in the interior method
    /// (the pipeline's per-body memory of islands that needed it, lcp11).
    pub start_interior: Vec<bool>,
    /// Output, per point: whether its island was solved by the interior
    /// method (rescued after a failed line search, or started there).
    pub used_interior: Vec<bool>,
    /// Output, per point: whether its island's line search failed this solve
    /// (the interior method then rescued it).
    pub line_search_failed: Vec<bool>,
}

impl NewtonResults {
    /// Buffers for `points` contact points, islands of up to `dense` points and
    /// friction polygons of `sides` edges (no allocation below that).
    pub fn with_capacity(points: usize, dense: usize, sides: usize) -> Self {
        let d = 3 * dense.min(points);
        NewtonResults {
            z: Vec::with_capacity(3 * points),
            w: Vec::with_capacity(3 * points),
            f: Vec::with_capacity(3 * points),
            trial: Vec::with_capacity(3 * points),
            dz: Vec::with_capacity(3 * points),
            anchor: Vec::with_capacity(3 * points),
            saved: Vec::with_capacity(3 * points),
            a: Vec::with_capacity(points),
            b: Vec::with_capacity(points),
            slot: Vec::with_capacity(points),
            active: Vec::with_capacity(points),
            jac: Vec::with_capacity(d * d),
            rhs: Vec::with_capacity(d),
            perm: Vec::with_capacity(d),
            radius: Vec::with_capacity(points),
            hist: Vec::with_capacity(2 * ANDERSON * points),
            // k + 1 constraints per point: p_n ≥ 0 and the k-gon's edges.
            ip_s: Vec::with_capacity((sides + 1) * points),
            ip_l: Vec::with_capacity((sides + 1) * points),
            ip_ds: Vec::with_capacity((sides + 1) * points),
            ip_dl: Vec::with_capacity((sides + 1) * points),
            ip_rp: Vec::with_capacity((sides + 1) * points),
            ip_cone: Vec::with_capacity(points),
            start_interior: Vec::with_capacity(points),
            used_interior: Vec::with_capacity(points),
            line_search_failed: Vec::with_capacity(points),
            ..Default::default()
        }
    }
}

/// Halvings of the step before the line search gives up.
pub const LINE_SEARCH_STEPS: usize = 30;

/// A step shorter than this (of the Newton step) counts as a stall.
pub const STALL_STEP: f64 = 1.0 / 64.0;

/// Default projected Gauss–Seidel sweeps after a failed line search, and how many
/// times per island that rescue runs before the island fails: at most 500 sweeps,
/// the PGS solver's own default budget ("Globalization and stopping").
pub const SMOOTHING_SWEEPS: usize = 50;
pub const SMOOTHING_ROUNDS: usize = 10;

/// Memory of the line search ("Globalization and stopping"): 1, monotone. A
/// nonmonotone memory (Grippo) of 3–10 finished 8 more of 200 dumped resting
/// islands but cycled on small full-rank problems
/// (`tests/solver_newton.rs::random_full_rank_matches_lemke`, trials 7 and 41).
pub const NONMONOTONE: usize = 1;

/// Outer loops (radius updates) of the staggered globalization.
pub const OUTER_ITERATIONS: usize = 50;

/// Anderson memory of the staggered method's radius update.
pub const ANDERSON: usize = 5;

/// Largest memory the line search keeps (a stack buffer).
const NONMONOTONE_MAX: usize = 16;

/// Semismooth Newton on the natural map of a [`ContactProblem`] (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NewtonSolver {
    pub params: NewtonParams,
}

impl NewtonSolver {
    pub fn new(params: NewtonParams) -> Self {
        NewtonSolver { params }
    }

    /// Solves `problem` island by island from `guess` (`3n` entries, projected
    /// onto the cones) or from zero.
    pub fn solve_contacts(
        &self,
        problem: &ContactProblem,
        guess: Option<&[f64]>,
        results: &mut NewtonResults,
    ) -> NewtonStatus {
        results.stats = NewtonStats {
            residual: f64::INFINITY,
            ..NewtonStats::default()
        };
        let p = &self.params;
        let n = problem.n();
        results.z.clear();
        results.z.resize(3 * n, 0.0);
        if problem.validate().is_err()
            || p.tolerance.is_nan()
            || !(p.regularization.is_finite() && p.regularization >= 0.0)
            || guess.is_some_and(|g| g.len() != 3 * n || !all_finite(g))
        {
            return NewtonStatus::InvalidProblem;
        }
        // Every point needs its diagonal block with W_nn > 0.
        for i in 0..n {
            let (s, e) = (problem.row_start[i], problem.row_start[i + 1]);
            match (s..e).find(|&k| problem.col[k] as usize == i) {
                Some(k) if problem.w[k][0] > 0.0 => {}
                _ => return NewtonStatus::InvalidProblem,
            }
        }
        if let Some(g) = guess {
            results.z.copy_from_slice(g);
        }
        for i in 0..n {
            let z = &mut results.z[3 * i..3 * i + 3];
            z[0] = z[0].max(0.0);
            (z[1], z[2]) = project_polygon_with(z[1], z[2], problem.mu[i] * z[0], &problem.table);
        }
        for v in [
            &mut results.w,
            &mut results.f,
            &mut results.trial,
            &mut results.dz,
            &mut results.anchor,
            &mut results.saved,
        ] {
            v.clear();
            v.resize(3 * n, 0.0);
        }
        results.a.clear();
        results.a.resize(n, [0.0; 9]);
        results.b.clear();
        results.b.resize(n, [0.0; 9]);
        results.slot.clear();
        results.slot.resize(n, u32::MAX);
        results.radius.clear();
        results.radius.resize(n, 0.0);
        results.fixed = false;
        results.face_coupled = false;
        results.used_interior.clear();
        results.used_interior.resize(n, false);
        results.line_search_failed.clear();
        results.line_search_failed.resize(n, false);
        let hints = results.start_interior.len() == n;

        let islands = problem.island_start.len().saturating_sub(1);
        results.stats.islands = islands;
        results.stats.residual = 0.0;
        let mut status = NewtonStatus::Converged;
        for s in 0..islands {
            let order = &problem.order[problem.island_start[s]..problem.island_start[s + 1]];
            if order.len() > p.max_dense_points {
                let z = std::mem::take(&mut results.z);
                let res = evaluate(problem, order, &z, results, 0.0);
                results.z = z;
                if res <= p.tolerance {
                    continue;
                }
                results.stats.skipped_islands += 1;
                results.stats.residual = results.stats.residual.max(res);
                status = NewtonStatus::Unconverged;
                continue;
            }
            let (it, res, ok) = match p.globalization {
                Globalization::LineSearch => self.solve_island(problem, order, results),
                Globalization::Staggered => self.solve_island_staggered(problem, order, results),
                Globalization::RadiusNewton => {
                    self.solve_island_radius_newton(problem, order, results)
                }
                Globalization::Interior => self.solve_island_interior(problem, order, results),
                Globalization::LineSearchThenInterior => {
                    let rescue = NewtonSolver::new(NewtonParams {
                        max_iterations: p.interior_iterations,
                        globalization: Globalization::Interior,
                        ..*p
                    });
                    let hinted = hints && order.iter().any(|&i| results.start_interior[i as usize]);
                    if hinted {
                        // The caller's memory: this island needed the interior
                        // method in a recent solve; the line search is skipped.
                        let warm = NewtonSolver::new(NewtonParams {
                            interior_shift: p.interior_warm_shift,
                            ..rescue.params
                        });
                        let (it, res, ok) = warm.solve_island_interior(problem, order, results);
                        results.stats.interior_starts += 1;
                        results.stats.interior_failures += usize::from(!ok);
                        results.stats.interior_factorizations += it;
                        for &i in order {
                            results.used_interior[i as usize] = true;
                        }
                        (it, res, ok)
                    } else {
                        let (it, res, ok) = self.solve_island(problem, order, results);
                        results.stats.line_search_factorizations += it;
                        if ok {
                            (it, res, ok)
                        } else {
                            let (it2, res2, ok2) =
                                rescue.solve_island_interior(problem, order, results);
                            results.stats.interior_rescues += 1;
                            results.stats.interior_failures += usize::from(!ok2);
                            results.stats.interior_factorizations += it2;
                            for &i in order {
                                results.used_interior[i as usize] = true;
                                results.line_search_failed[i as usize] = true;
                            }
                            (it + it2, res2, ok2)
                        }
                    }
                }
            };
            results.stats.iterations = results.stats.iterations.max(it);
            results.stats.factorizations += it;
            results.stats.residual = results.stats.residual.max(res);
            if !ok {
                results.stats.failed_islands += 1;
                status = NewtonStatus::Unconverged;
            }
        }
        status
    }

    /// Newton on one island; returns (steps, residual, converged).
    fn solve_island(
        &self,
        problem: &ContactProblem,
        order: &[u32],
        r: &mut NewtonResults,
    ) -> (usize, f64, bool) {
        let p = &self.params;
        let eps = island_eps(problem, order, p.regularization);
        let mut it = 0;
        let mut smoothing = 0;
        loop {
            // Outer (proximal) iteration: the true residual at z, then the anchor
            // z_k = z of the regularized problem.
            let mut res = self.true_residual(problem, order, r);
            if res <= p.tolerance {
                return (it, res, true);
            }
            for &i in order {
                let i = i as usize;
                r.anchor[3 * i..3 * i + 3].copy_from_slice(&r.z[3 * i..3 * i + 3]);
            }
            let z = std::mem::take(&mut r.z);
            let mut inner = evaluate(problem, order, &z, r, eps);
            r.z = z;
            let mut theta = merit(order, &r.f);
            // The nonmonotone reference: the largest merit of the last
            // `nonmonotone` accepted iterates of this anchor (a ring buffer).
            let memory = p.nonmonotone.clamp(1, NONMONOTONE_MAX);
            let mut recent = [0.0_f64; NONMONOTONE_MAX];
            recent[0] = theta;
            let mut accepted_steps = 1_usize;
            // Inner Newton iteration on F_ε, to half the tolerance.
            while inner > 0.5 * p.tolerance {
                if it == p.max_iterations {
                    res = self.true_residual(problem, order, r);
                    return (it, res, res <= p.tolerance);
                }
                it += 1;
                if !self.newton_step(problem, order, eps, r) {
                    res = self.true_residual(problem, order, r);
                    return (it, res, res <= p.tolerance);
                }
                // Backtracking on θ_ε = ½‖F_ε‖² (the step is Newton's on the
                // piece, a descent direction for θ_ε inside a piece).
                let mut alpha = 1.0;
                let mut accepted = false;
                let reference = recent[..accepted_steps.min(memory)]
                    .iter()
                    .fold(theta, |m, &x| m.max(x));
                for _ in 0..=LINE_SEARCH_STEPS {
                    // The trial point z + αΔ. The natural map is defined off the
                    // cones too (its zeros lie on them), and projecting the trial
                    // (the solver before lcp6) bends the step off the Newton
                    // direction: on the resting pile's islands no projected trial
                    // decreased θ (accepted steps of 1e-9 of Δ).
                    for &i in order {
                        let i = i as usize;
                        let t = &mut r.trial[3 * i..3 * i + 3];
                        let (z, d) = (&r.z[3 * i..3 * i + 3], &r.dz[3 * i..3 * i + 3]);
                        for ((tc, zc), dc) in t.iter_mut().zip(z).zip(d) {
                            *tc = zc + alpha * dc;
                        }
                        if p.project_trial {
                            t[0] = t[0].max(0.0);
                            (t[1], t[2]) = project_polygon_with(
                                t[1],
                                t[2],
                                problem.mu[i] * t[0],
                                &problem.table,
                            );
                        }
                    }
                    let trial = std::mem::take(&mut r.trial);
                    let inner_t = evaluate(problem, order, &trial, r, eps);
                    r.trial = trial;
                    let theta_t = merit(order, &r.f);
                    // Grippo–Lampariello–Lucidi: sufficient decrease against the
                    // largest recent merit, σ = 1e-4 on the current one.
                    if theta_t <= reference - 1e-4 * alpha * theta {
                        for &i in order {
                            let i = i as usize;
                            r.z[3 * i..3 * i + 3].copy_from_slice(&r.trial[3 * i..3 * i + 3]);
                        }
                        (inner, theta, accepted) = (inner_t, theta_t, true);
                        recent[accepted_steps % memory] = theta;
                        accepted_steps += 1;
                        break;
                    }
                    alpha *= 0.5;
                }
                if !accepted || alpha < STALL_STEP {
                    // No decrease along the Newton direction, or a crawl (a kink
                    // of F_ε at z): projected Gauss–Seidel sweeps move the iterate (and its
                    // pieces) on, then a new anchor.
                    if smoothing == p.smoothing_rounds {
                        res = self.true_residual(problem, order, r);
                        return (it, res, res <= p.tolerance);
                    }
                    smoothing += 1;
                    for _ in 0..p.smoothing_sweeps {
                        sweep(problem, order, &mut r.z, None);
                    }
                    break;
                }
                // Done when the true problem is (no need to finish the inner one).
                if self.true_residual(problem, order, r) <= p.tolerance {
                    break;
                }
            }
        }
    }

    /// `‖F‖∞` of the unregularized problem at `r.z` (island `order`).
    pub(super) fn true_residual(
        &self,
        problem: &ContactProblem,
        order: &[u32],
        r: &mut NewtonResults,
    ) -> f64 {
        let z = std::mem::take(&mut r.z);
        let res = evaluate(problem, order, &z, r, 0.0);
        r.z = z;
        res
    }

    /// The step `Δ` of `(J + ε I) Δ = −F` into `r.dz` (island `order`); false on
    /// a vanishing pivot or a non-finite step.
    pub(super) fn newton_step(
        &self,
        problem: &ContactProblem,
        order: &[u32],
        eps: f64,
        r: &mut NewtonResults,
    ) -> bool {
        // Separating points (A_i = 0): Δ_i = −B_i⁻¹ F_i, B_i = [1 0 0; b 0… ; b I].
        r.active.clear();
        for &i in order {
            let iu = i as usize;
            if r.a[iu].iter().all(|&x| x == 0.0) {
                let (b, f) = (&r.b[iu], &r.f[3 * iu..3 * iu + 3]);
                let dn = -f[0] / b[0];
                r.dz[3 * iu] = dn;
                r.dz[3 * iu + 1] = (-f[1] - b[3] * dn) / b[4];
                r.dz[3 * iu + 2] = (-f[2] - b[6] * dn) / b[8];
                r.slot[iu] = u32::MAX;
            } else {
                r.slot[iu] = r.active.len() as u32;
                r.active.push(i);
            }
        }
        let m = 3 * r.active.len();
        r.stats.largest_system = r.stats.largest_system.max(m);
        // At rest every active point is normal-active and sticking (A_i = I,
        // B_i = 0), so J + εA = W_aa + ε I: symmetric positive definite (W = J M⁻¹ Jᵀ
        // plus the pipeline's diagonal CFM), factored by Cholesky at half the
        // LU's flops and without its pivot search. Any sliding or opening
        // point makes J unsymmetric: LU with partial pivoting (also the fallback
        // when a Cholesky pivot is not positive).
        let symmetric = r.active.iter().all(|&i| {
            let (a, b) = (&r.a[i as usize], &r.b[i as usize]);
            *a == IDENTITY3 && b.iter().all(|&x| x == 0.0)
        });
        assemble(problem, eps, r, m);
        let solved = if symmetric && cholesky_solve(&mut r.jac, &mut r.rhs, m) {
            r.stats.cholesky += 1;
            true
        } else {
            if symmetric {
                assemble(problem, eps, r, m);
            }
            lu_solve(&mut r.jac, &mut r.rhs, &mut r.perm, m)
        };
        if !solved {
            return false;
        }
        for (ai, &i) in r.active.iter().enumerate() {
            let i = i as usize;
            r.dz[3 * i..3 * i + 3].copy_from_slice(&r.rhs[3 * ai..3 * ai + 3]);
        }
        order.iter().all(|&i| {
            let i = i as usize;
            r.dz[3 * i..3 * i + 3].iter().all(|x| x.is_finite())
        })
    }
}

/// ε of the regularized step: `regularization · max_i W_nn(i)` over the island.
pub(super) fn island_eps(problem: &ContactProblem, order: &[u32], regularization: f64) -> f64 {
    regularization
        * order.iter().fold(0.0_f64, |m, &i| {
            let i = i as usize;
            let (s, e) = (problem.row_start[i], problem.row_start[i + 1]);
            (s..e)
                .filter(|&k| problem.col[k] as usize == i)
                .fold(m, |m, k| m.max(problem.w[k][0]))
        })
}

/// The system `(J + ε A) Δ = −F` of the active points `r.active` into `r.jac`
/// (row-major `m × m`) and `r.rhs` (the separating points' `Δ_j` already in
/// `r.dz`).
fn assemble(problem: &ContactProblem, eps: f64, r: &mut NewtonResults, m: usize) {
    r.jac.clear();
    r.jac.resize(m * m, 0.0);
    r.rhs.clear();
    r.rhs.resize(m, 0.0);
    // Rows of active point i: A_i W_i· + B_i E_i + ε I; rhs −F_i − A_i Σ W_ij Δ_j
    // over the separating j.
    for (ai, &i) in r.active.iter().enumerate() {
        let i = i as usize;
        let a = &r.a[i];
        let mut known = [0.0; 3];
        for k in problem.row_start[i]..problem.row_start[i + 1] {
            let j = problem.col[k] as usize;
            let wb = &problem.w[k];
            // A_i W_ij (3×3).
            let mut aw = [0.0; 9];
            for row in 0..3 {
                for col in 0..3 {
                    aw[3 * row + col] = a[3 * row] * wb[col]
                        + a[3 * row + 1] * wb[3 + col]
                        + a[3 * row + 2] * wb[6 + col];
                }
            }
            let sj = r.slot[j];
            if sj == u32::MAX {
                let d = &r.dz[3 * j..3 * j + 3];
                for (row, kr) in known.iter_mut().enumerate() {
                    *kr += aw[3 * row] * d[0] + aw[3 * row + 1] * d[1] + aw[3 * row + 2] * d[2];
                }
            } else {
                let sj = sj as usize;
                for row in 0..3 {
                    let base = (3 * ai + row) * m + 3 * sj;
                    for col in 0..3 {
                        r.jac[base + col] += aw[3 * row + col];
                    }
                }
            }
        }
        let b = &r.b[i];
        for row in 0..3 {
            let base = (3 * ai + row) * m + 3 * ai;
            for col in 0..3 {
                r.jac[base + col] += b[3 * row + col] + eps * a[3 * row + col];
            }
            r.rhs[3 * ai + row] = -r.f[3 * i + row] - known[row];
        }
    }
}

/// `w`, the pieces (`A_i`, `B_i`, if `pieces`) and `F` at `z` for the points
/// `order` (into `r.w`, `r.a`, `r.b`, `r.f`); returns `‖F‖∞` (`+∞` on NaN).
pub(super) fn evaluate(
    problem: &ContactProblem,
    order: &[u32],
    z: &[f64],
    r: &mut NewtonResults,
    eps: f64,
) -> f64 {
    let mut res = 0.0_f64;
    let t = &problem.table;
    for &i in order {
        let i = i as usize;
        let mut w = [problem.q[3 * i], problem.q[3 * i + 1], problem.q[3 * i + 2]];
        for k in problem.row_start[i]..problem.row_start[i + 1] {
            let (b, j) = (&problem.w[k], problem.col[k] as usize);
            let zj = &z[3 * j..3 * j + 3];
            w[0] += b[0] * zj[0] + b[1] * zj[1] + b[2] * zj[2];
            w[1] += b[3] * zj[0] + b[4] * zj[1] + b[5] * zj[2];
            w[2] += b[6] * zj[0] + b[7] * zj[1] + b[8] * zj[2];
        }
        if eps > 0.0 {
            for c in 0..3 {
                w[c] += eps * (z[3 * i + c] - r.anchor[3 * i + c]);
            }
        }
        r.w[3 * i..3 * i + 3].copy_from_slice(&w);
        let (pn, f1, f2) = (z[3 * i], z[3 * i + 1], z[3 * i + 2]);
        let mut a = [0.0; 9];
        let mut b = [0.0; 9];
        // Normal row.
        let fnorm = if pn - w[0] > 0.0 {
            a[0] = 1.0;
            w[0]
        } else {
            b[0] = 1.0;
            pn
        };
        // Tangential rows: the piece of the projection of y_t = f_t − w_t onto
        // the k-gon of radius μ p_n (coupled), or of the frozen radius r_i
        // (`r.fixed`: the staggered method's QP, no derivative in p_n).
        // `r.face_coupled` (the radius Newton of `solver::staggered`): the piece
        // of the frozen radius r_i, the map and its μ columns of the coupled
        // problem — the coupled map restricted to the QP's identified face.
        let (mu, rad) = if r.fixed {
            (
                if r.face_coupled { problem.mu[i] } else { 0.0 },
                r.radius[i],
            )
        } else {
            (problem.mu[i], problem.mu[i] * pn)
        };
        let frozen = r.fixed && !r.face_coupled;
        let (y1, y2) = (f1 - w[1], f2 - w[2]);
        let cone = if frozen || rad > 0.0 || mu <= 0.0 || a[0] == 0.0 {
            piece(y1, y2, rad, t)
        } else {
            // p_n = 0 with the normal row active: p_n is about to open the cone,
            // so the piece is the one of a vanishing radius r → 0⁺ (the vertex
            // whose direction is nearest y_t, or the interior for y_t = 0): F_t
            // is then continuous across p_n = 0 and its derivative one-sided.
            opening_piece(y1, y2, t)
        };
        let (ft1, ft2) = match cone {
            Piece::NoCone => {
                (b[4], b[8]) = (1.0, 1.0);
                (f1, f2)
            }
            Piece::Interior => {
                (a[4], a[8]) = (1.0, 1.0);
                (w[1], w[2])
            }
            Piece::Edge(nx, ny) => {
                // (I − n nᵀ) w_t + n (nᵀ f_t − μ c p_n).
                let c = t.half.0;
                (a[4], a[5], a[7], a[8]) = (1.0 - nx * nx, -nx * ny, -nx * ny, 1.0 - ny * ny);
                (b[3], b[4], b[5]) = (-mu * c * nx, nx * nx, nx * ny);
                (b[6], b[7], b[8]) = (-mu * c * ny, nx * ny, ny * ny);
                // μ c p_n in the coupled map's order of operations (bitwise as
                // before the fixed mode), c r_i in the fixed one.
                let cr = if frozen { c * rad } else { mu * c * pn };
                let g = nx * f1 + ny * f2 - cr;
                (
                    a[4] * w[1] + a[5] * w[2] + nx * g,
                    a[7] * w[1] + a[8] * w[2] + ny * g,
                )
            }
            Piece::Vertex(vx, vy) => {
                (b[3], b[4]) = (-mu * vx, 1.0);
                (b[6], b[8]) = (-mu * vy, 1.0);
                if r.face_coupled {
                    (f1 - mu * pn * vx, f2 - mu * pn * vy)
                } else {
                    (f1 - rad * vx, f2 - rad * vy)
                }
            }
        };
        r.f[3 * i] = fnorm;
        r.f[3 * i + 1] = ft1;
        r.f[3 * i + 2] = ft2;
        r.a[i] = a;
        r.b[i] = b;
        let e = fnorm.abs().max(ft1.abs()).max(ft2.abs());
        if e.is_nan() {
            return f64::INFINITY;
        }
        res = res.max(e);
    }
    res
}

/// One projected Gauss–Seidel sweep over the points `order` (the update of
/// `PgsSolver::solve_contacts`, ω = 1): `p_n ← max(0, p_n − r_n / W_nn)`, then
/// `f_t ← P(f_t − r_t / λ_max(W_tt))` with `r_t` for the new `p_n`.
pub(super) fn sweep(
    problem: &ContactProblem,
    order: &[u32],
    z: &mut [f64],
    radius: Option<&[f64]>,
) {
    for &i in order {
        let i = i as usize;
        let mut w = [problem.q[3 * i], problem.q[3 * i + 1], problem.q[3 * i + 2]];
        let mut d = [0.0; 9];
        for k in problem.row_start[i]..problem.row_start[i + 1] {
            let (b, j) = (&problem.w[k], problem.col[k] as usize);
            if j == i {
                d = *b;
            }
            let zj = &z[3 * j..3 * j + 3];
            w[0] += b[0] * zj[0] + b[1] * zj[1] + b[2] * zj[2];
            w[1] += b[3] * zj[0] + b[4] * zj[1] + b[5] * zj[2];
            w[2] += b[6] * zj[0] + b[7] * zj[1] + b[8] * zj[2];
        }
        let (maa, mab, mbb) = (d[4], 0.5 * (d[5] + d[7]), d[8]);
        let half = 0.5 * (maa - mbb);
        let lmax = 0.5 * (maa + mbb) + (half * half + mab * mab).sqrt();
        if !(d[0] > 0.0 && lmax > 0.0) {
            continue;
        }
        let zn = (z[3 * i] - w[0] / d[0]).max(0.0);
        let dn = zn - z[3 * i];
        z[3 * i] = zn;
        let (r1, r2) = (w[1] + d[3] * dn, w[2] + d[6] * dn);
        (z[3 * i + 1], z[3 * i + 2]) = project_polygon_with(
            z[3 * i + 1] - r1 / lmax,
            z[3 * i + 2] - r2 / lmax,
            radius.map_or(problem.mu[i] * zn, |r| r[i]),
            &problem.table,
        );
    }
}

/// `½‖F‖²` over the points `order`.
fn merit(order: &[u32], f: &[f64]) -> f64 {
    0.5 * order
        .iter()
        .map(|&i| {
            let i = i as usize;
            f[3 * i] * f[3 * i] + f[3 * i + 1] * f[3 * i + 1] + f[3 * i + 2] * f[3 * i + 2]
        })
        .sum::<f64>()
}

/// Where the projection of `(x, y)` onto the k-gon of circumradius `r` lands.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Piece {
    /// `r ≤ 0`: the polygon is the origin.
    NoCone,
    Interior,
    /// On an edge, interior of the segment: its outward unit normal.
    Edge(f64, f64),
    /// On a vertex: its unit direction `d_j`.
    Vertex(f64, f64),
}

/// The piece of the projection onto the k-gon of radius r → 0⁺: the vertex `d_j`
/// nearest in angle to `(x, y)` (interior for the origin).
fn opening_piece(x: f64, y: f64, t: &PolygonTable) -> Piece {
    if x == 0.0 && y == 0.0 {
        return Piece::Interior;
    }
    let (_, (bc, bs)) = t.most_aligned(x, y, (1.0, 0.0));
    Piece::Vertex(bc, bs)
}

/// The piece of [`project_polygon_with`] (same edge choice and clamping).
fn piece(x: f64, y: f64, r: f64, t: &PolygonTable) -> Piece {
    if r.is_nan() || r <= 0.0 || t.k < 3 {
        return Piece::NoCone;
    }
    let (ch, sh) = t.half;
    let (best, (bc, bs)) = t.most_aligned(x, y, t.half);
    if best <= r * ch {
        return Piece::Interior;
    }
    // The edge's end vertices (unit radius) and the position along it.
    let (ux0, uy0) = (bc * ch + bs * sh, bs * ch - bc * sh);
    let (ux1, uy1) = (bc * ch - bs * sh, bs * ch + bc * sh);
    let (ex, ey) = (r * (ux1 - ux0), r * (uy1 - uy0));
    let u = ((x - r * ux0) * ex + (y - r * uy0) * ey) / (ex * ex + ey * ey);
    if u <= 0.0 {
        Piece::Vertex(ux0, uy0)
    } else if u >= 1.0 {
        Piece::Vertex(ux1, uy1)
    } else {
        Piece::Edge(bc, bs)
    }
}

/// Row-major 3×3 identity (the `A_i` of a normal-active, sticking point).
const IDENTITY3: [f64; 9] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];

/// Solves `A x = b` in place for symmetric positive definite `A` (row-major
/// `m × m`; its upper triangle is read and overwritten by the Cholesky factor
/// `U`, `A = Uᵀ U`; `b` becomes `x`). False on a pivot that is not positive and
/// finite (then `a` and `b` are spoiled) or a non-finite solution.
fn cholesky_solve(a: &mut [f64], b: &mut [f64], m: usize) -> bool {
    if !cholesky_factor(a, m) {
        return false;
    }
    cholesky_subst(a, b, m);
    b.iter().all(|x| x.is_finite())
}

/// Cholesky `A = Uᵀ U` in place (row-major `m × m`, upper triangle read and
/// overwritten). False on a pivot that is not positive and finite. Right-looking,
/// row by row: every update is an axpy on a contiguous row (vectorized, as the
/// LU's), none a dot product's dependent chain of additions.
pub(crate) fn cholesky_factor(a: &mut [f64], m: usize) -> bool {
    for k in 0..m {
        let (head, tail) = a.split_at_mut((k + 1) * m);
        let rowk = &mut head[k * m..];
        let d = rowk[k];
        if !(d > 0.0 && d.is_finite()) {
            return false;
        }
        let d = d.sqrt();
        rowk[k] = d;
        let inv = 1.0 / d;
        for x in &mut rowk[k + 1..] {
            *x *= inv;
        }
        // a_ij −= u_ki u_kj for k < i ≤ j, up to row k's last nonzero `end`: the
        // updates beyond it subtract exact zeros (W's blocks of points sharing no
        // body, and their fill, are zero: a band on a stack), and no entry is
        // ever −0 (the assembly starts at +0 and adds), so skipping them leaves
        // every bit as it was.
        let rowk = &rowk[..];
        let end = rowk[k + 1..]
            .iter()
            .rposition(|&x| x != 0.0)
            .map_or(k + 1, |p| k + 2 + p);
        for (ii, row) in tail.chunks_exact_mut(m).enumerate() {
            let i = k + 1 + ii;
            if i >= end {
                break;
            }
            let l = rowk[i];
            if l != 0.0 {
                for (x, &y) in row[i..end].iter_mut().zip(&rowk[i..end]) {
                    *x -= l * y;
                }
            }
        }
    }
    true
}

/// `b ← (Uᵀ U)⁻¹ b` with the factor of [`cholesky_factor`].
pub(crate) fn cholesky_subst(a: &[f64], b: &mut [f64], m: usize) {
    // Uᵀ y = b (column sweeps along U's rows), then U x = y.
    for k in 0..m {
        let row = &a[k * m..k * m + m];
        let y = b[k] / row[k];
        b[k] = y;
        for (x, &u) in b[k + 1..].iter_mut().zip(&row[k + 1..]) {
            *x -= y * u;
        }
    }
    for i in (0..m).rev() {
        let row = &a[i * m..i * m + m];
        let s: f64 = row[i + 1..]
            .iter()
            .zip(&b[i + 1..])
            .map(|(u, x)| u * x)
            .sum();
        b[i] = (b[i] - s) / row[i];
    }
}

/// Solves `A x = b` in place (`a` row-major `m × m`, overwritten by its LU with
/// partial pivoting; `b` becomes `x`). False on a zero or non-finite pivot.
fn lu_solve(a: &mut [f64], b: &mut [f64], perm: &mut Vec<usize>, m: usize) -> bool {
    perm.clear();
    perm.extend(0..m);
    for k in 0..m {
        // Pivot: the largest |a_ik| for i ≥ k.
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
        if piv != k {
            for c in 0..m {
                a.swap(k * m + c, piv * m + c);
            }
            b.swap(k, piv);
            perm.swap(k, piv);
        }
        let inv = 1.0 / a[k * m + k];
        let (head, tail) = a.split_at_mut((k + 1) * m);
        let rowk = &head[k * m + k + 1..k * m + m];
        let bk = b[k];
        for (ii, row) in tail.chunks_exact_mut(m).enumerate() {
            let l = row[k] * inv;
            if l != 0.0 {
                row[k] = l;
                for (x, &y) in row[k + 1..].iter_mut().zip(rowk) {
                    *x -= l * y;
                }
                b[k + 1 + ii] -= l * bk;
            }
        }
    }
    // Back substitution.
    for k in (0..m).rev() {
        let mut s = b[k];
        for c in k + 1..m {
            s -= a[k * m + c] * b[c];
        }
        b[k] = s / a[k * m + k];
    }
    b.iter().all(|x| x.is_finite())
}

/// The island `order` of `problem` as a problem of its own (points renumbered
/// 0…, in `order`'s order; one island), with `guess`'s entries for them: for
/// reproducing an island's solve outside the pipeline (the dump of
/// `RTPHYS_NEWTON_DUMP`, `pipeline::lcp::solve`). Allocates.
pub fn island_problem(
    problem: &ContactProblem,
    order: &[u32],
    guess: &[f64],
) -> (ContactProblem, Vec<f64>) {
    let mut index = vec![u32::MAX; problem.n()];
    for (k, &i) in order.iter().enumerate() {
        index[i as usize] = k as u32;
    }
    let mut sub = ContactProblem {
        table: problem.table,
        ..ContactProblem::default()
    };
    let mut g = Vec::with_capacity(3 * order.len());
    sub.row_start.push(0);
    for &i in order {
        let i = i as usize;
        for k in problem.row_start[i]..problem.row_start[i + 1] {
            let j = index[problem.col[k] as usize];
            if j != u32::MAX {
                sub.col.push(j);
                sub.w.push(problem.w[k]);
            }
        }
        sub.row_start.push(sub.col.len());
        sub.q.extend_from_slice(&problem.q[3 * i..3 * i + 3]);
        sub.mu.push(problem.mu[i]);
        g.extend_from_slice(&guess[3 * i..3 * i + 3]);
    }
    sub.order.extend(0..order.len() as u32);
    sub.island_start.extend([0, order.len()]);
    (sub, g)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pieces agree with the projection: P = y on the interior, the edge
    /// formula on an edge, r v on a vertex (exact up to round-off).
    #[test]
    fn pieces_match_projection() {
        for k in [4u32, 5, 8] {
            let t = PolygonTable::new(k);
            let r = 0.7;
            for a in 0..64 {
                for rad in [0.1, 0.65, 0.8, 1.5, 4.0] {
                    let th = a as f64 * 0.1;
                    let (x, y) = (rad * th.cos(), rad * th.sin());
                    let (px, py) = project_polygon_with(x, y, r, &t);
                    let (qx, qy) = match piece(x, y, r, &t) {
                        Piece::NoCone => (0.0, 0.0),
                        Piece::Interior => (x, y),
                        Piece::Edge(nx, ny) => {
                            let g = nx * x + ny * y - r * t.half.0;
                            (x - g * nx, y - g * ny)
                        }
                        Piece::Vertex(vx, vy) => (r * vx, r * vy),
                    };
                    assert!(
                        (px - qx).abs() < 1e-12 && (py - qy).abs() < 1e-12,
                        "k={k} ({x},{y}): {px},{py} vs {qx},{qy}"
                    );
                }
            }
        }
    }

    /// Cholesky solves an SPD system (x = (1, 2, 3) to 1e-14) and refuses an
    /// indefinite one.
    #[test]
    fn cholesky_spd_and_indefinite() {
        // A = [4 2 0; 2 5 1; 0 1 3] (SPD), b = A (1, 2, 3).
        let mut a = vec![4.0, 2.0, 0.0, 2.0, 5.0, 1.0, 0.0, 1.0, 3.0];
        let mut b = vec![8.0, 15.0, 11.0];
        assert!(cholesky_solve(&mut a, &mut b, 3));
        for (x, e) in b.iter().zip([1.0, 2.0, 3.0]) {
            assert!((x - e).abs() < 1e-14, "{x} vs {e}");
        }
        let mut s = vec![1.0, 2.0, 2.0, 1.0];
        let mut b = vec![1.0, 1.0];
        assert!(!cholesky_solve(&mut s, &mut b, 2));
    }

    /// LU with pivoting solves a system that needs a row swap (exact).
    #[test]
    fn lu_with_pivoting() {
        let mut a = vec![0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 2.0, 0.0, 3.0];
        // x = (1, 2, 3): b = A x.
        let mut b = vec![7.0, 3.0, 11.0];
        let mut perm = Vec::new();
        assert!(lu_solve(&mut a, &mut b, &mut perm, 3));
        for (x, e) in b.iter().zip([1.0, 2.0, 3.0]) {
            assert!((x - e).abs() < 1e-14);
        }
        let mut s = vec![1.0, 2.0, 2.0, 4.0];
        let mut b = vec![1.0, 2.0];
        assert!(!lu_solve(&mut s, &mut b, &mut perm, 2));
    }
}
