//! Primal Newton in body space for the block-sparse contact problem
//! ([`ContactProblem`]): the same friction set and the same LCP as
//! [`super::newton`] (`p_n ≥ 0`, `f_t ∈ μ p_n conv{d_1…d_k}`, the polyhedral cone
//! of eq. (5) of `003_668e561ceb3412ed`, `w = W z + q`), solved in the bodies'
//! velocities instead of the contact impulses (issue 14, lcp13).
//!
//! # The dual of the frozen-radius QP
//! The pipeline's `W = G M⁻¹ Gᵀ + E` (`E` its CFM, diagonal per point, `> 0`).
//! With the friction radius frozen at `r_i` the problem is the convex QP
//! `min ½ zᵀ W z + qᵀ z` over `K = Π_i {p_n ≥ 0, f_t ∈ r_i·k-gon}`. Writing
//! `x = ν − ν_f` (6 per free body) and `u_i = G_i x + q_i`, its dual is
//!
//! ```text
//! min_x  f(x) = ½ xᵀ M x + Σ_i φ_i(u_i),   φ_i(u) = max_{z ∈ K_i} (−zᵀ u − ½ zᵀ E_i z)
//! ```
//!
//! (`min_x max_z` of the Lagrangian; eliminating `x = M⁻¹ Gᵀ z` returns the QP
//! with the sign flipped). `f` is smooth, strictly convex and piecewise quadratic.
//! The maximizer `z_i*(u) = Π^{E_i}_{K_i}(−E_i⁻¹ u)` (the projection in the
//! `E_i`-weighted norm: the normal half-line, and the k-gon of radius `r_i`,
//! [`project_polygon_weighted`]) is the impulse: at the optimum `M x = Gᵀ z*`, so
//! `u = (W − E) z* + q` and `w = u + E z*`; the projection's variational
//! inequality is `w_iᵀ (y − z_i*) ≥ 0` for all `y ∈ K_i`, which is the frozen
//! LCP's complementarity with the same `W` (the CFM included): no change of the
//! problem.
//!
//! # Newton
//! `∇f = M x − Gᵀ z*(u)`, `∇²f = H = M + Σ_i G_iᵀ K_i G_i` with `K_i = DΠ_i E_i⁻¹`
//! per point: `1/e_n` on a loaded normal row (`u_n < 0`), 0 on a separating one;
//! `E_t⁻¹` on a sticking tangent pair, `t tᵀ / (tᵀ E_t t)` (t the edge's
//! direction) when sliding along an edge of the k-gon, 0 at a vertex or a zero
//! radius. `H` is symmetric positive definite (M is) and block-sparse by the
//! contact graph (6×6 blocks per body): it is factored by
//! [`BlockCholesky`] (minimum degree), backward stable, so the `1/E` entries do
//! not cost the digits a non-symmetric elimination through them does (lcp12).
//! The step `d = −H⁻¹ ∇f` is followed by an exact line search on the 1-D
//! piecewise quadratic `f(x + α d)`: by its sorted breakpoints (lcp16, below),
//! or a safeguarded Newton iteration on the monotone, piecewise linear `f'(α)`
//! (bracketed; each step lands on the zero of the current piece, so it stops
//! exactly once the piece is the right one).
//!
//! # The line search by the breakpoints (lcp16)
//! Along `x + α d`, `u_i(α) = u_i + α δu_i` and `f'(α) = a0 + α a1 − Σ_i
//! δu_iᵀ z_i*(u_i(α))` (`a0 = dᵀ M x`, `a1 = dᵀ M d`) is continuous and
//! piecewise linear: its slope `f''(α) = a1 + Σ_i δu_iᵀ K_i δu_i` changes only
//! where a point changes piece. Those α are known per point in closed form: the
//! normal row's kink at `−u_n/δu_n`; for the tangent pair, `−E_t⁻¹ u_t(α)` is a
//! straight line through the regions of the weighted projection onto the k-gon
//! (inside, the slab of each edge, the wedge of each vertex: convex, so the line
//! meets each once), walked region by region. [`LineSearch::Breakpoints`] (an
//! option; the default is the bracketed search at the loading kinks, [`LINE_SEARCH`]) computes every point's breakpoints and the jumps of `f''` at them
//! once per direction, and walks them in order (a heap, popped up to the zero)
//! accumulating `f'` until it
//! changes sign (as MuJoCo's Newton line search walks its constraints' state
//! intervals); the zero of that piece is then refined by the bracketed
//! iteration started there (one or two exact evaluations of `f'(α)`). One pass
//! over the points, a heap of their breakpoints and 1–2 evaluations instead of
//! the bracketed search's ≈ 10 evaluations from α = 1 ([`LineSearch::Bracketed`],
//! lcp13).
//!
//! # The line search at the loading kinks (lcp29)
//! [`LineSearch::Kinks`], the default: the bracketed search, but once a trial
//! has overshot the zero the same list of breakpoints is made, and a step from
//! the bracket's left end that would pass a kink where `f''` at least doubles
//! (a normal row loading, a tangent pair entering the k-gon or an edge's slab)
//! is taken just past that kink instead; the next Newton step is then the zero
//! of that piece. Each trial passes one such kink, where the bracketed search
//! from α = 1 unloads one per step from the right or bisects (lcp28: its
//! searches of 15–22 evaluations). No walk of all the kinks: the trials are
//! exact evaluations, the list only places them. Since lcp30 the list holds
//! the loading kinks alone ([`Line::load_list`]: the normal rows' loading,
//! the k-gon's entry by clipping the line against its edges, an edge's slab
//! entered from a vertex's wedge), not every breakpoint of the region walk
//! ([`tangent_breaks`], [`PrimalParams::full_kink_list`]).
//!
//! # Outer passes: the radii and a proximal centre
//! The Coulomb problem's radius is `r_i = μ_i p_n(i)` of the solution itself:
//! each outer pass freezes `r_i` and solves that QP; the next radii are
//! Anderson's extrapolation (memory [`PrimalParams::anderson`] = 3) of the map
//! `r ↦ μ p_n(QP_r)`, the fixed point of the staggered method
//! (`solver::staggered`). The same pass also
//! takes a proximal centre `z_k` (the current impulses): the pass solves
//! `min ½ zᵀ W z + qᵀ z + ½ ρ (z − z_k)ᵀ D (z − z_k)` (`D` = the diagonal of W,
//! `ρ` = [`PrimalParams::proximal`]), i.e. `E' = E + ρ D` and `q' = q − ρ D z_k`,
//! whose fixed point is the problem's solution. Without it, `z* = −u/e` on a
//! loaded row amplifies the round-off of `u` by `1/e = 1e9/W`: ≈ 1e-7 of `q` in
//! the residual, the pipeline's tolerance itself. With `ρ = 1e-6` the
//! amplification is 1e6 and each pass contracts the error by `ρ/(λ + ρ)` (`λ` an
//! eigenvalue of the scaled W on the loaded rows) — one or two passes more where
//! the radii have converged.
//!
//! [`PrimalParams::anderson_centre`] (off by default) takes Anderson on the
//! whole pass map `z_k ↦ z` instead (the centre, and the radii of it), which
//! also extrapolates the linear drift of a load's split over dependent rows
//! (rate `ρ/(ε + ρ)` per pass).
//!
//! # Newton on the radii (lcp14, [`PrimalParams::radius_newton`])
//! Once a pass's frozen QP is solved, its pieces are known: on them the
//! minimizer is affine in the radii of the points whose friction depends on
//! their radius (S: on an edge of the k-gon, or at a vertex). With `z_i =
//! −K_i u_i + b_i r_i` on the piece (`b_i = ∂z*/∂r`: `cos(π/k) E_t⁻¹ν /
//! (νᵀE_t⁻¹ν)` on the edge of outward normal ν, the vertex's unit direction at
//! a vertex), stationarity `H x = −Σ Gᵀ K q' + Σ Gᵀ b r` gives `∂x/∂r_l = H⁻¹
//! G_lᵀ b_l` (one back-solve per point of S through the same factor) and
//! `∂p_n(i)/∂r_l = −(G_i ∂x/∂r_l)_n / e_n(i)` on a loaded row. The radius fixed
//! point `r = μ p_n(r)` restricted to the pieces is the k×k linear system
//! `(I − diag(μ) ∂p_n/∂r) Δr = μ p_n − r`, solved densely (k ≤
//! [`RADIUS_NEWTON_MAX`]); `x += Σ_l Δr_l ∂x/∂r_l` is then the new minimizer
//! when the pieces hold, the other points take `μ p_n` at it, and the frozen
//! QP is re-run from there (no factorization when the pieces hold): up to
//! `radius_newton` times per pass, at the pass's proximal centre, so the pass
//! ends with consistent radii and the next centre moves the load's split, not
//! the radii. By default it is off until an island stalls (3 passes without
//! halving its residual, [`PrimalParams::radius_newton_on_stall`]); the island
//! then goes on with it instead of being handed over. [`PrimalParams::coupled`]
//! (off) takes the radius step inside
//! every Newton step instead (not globalized: it cycles on the pile).
//!
//! # Warm start (lcp14)
//! With a guess (the last tick's impulses of the persisting pairs), the first
//! pass starts at the minimizer of `f` on the guess's pieces
//! ([`PrimalParams::warm_pieces`]: loaded where `p_n > 0`, sticking inside the
//! k-gon, edge or vertex on its boundary), one factorization: when the pieces
//! persist this is the pass's solution. The pieces are derived from the guess
//! (stored with the pairs, so in the snapshot): nothing else is carried across
//! ticks. H depends on the pieces and `E'` only: its factor is kept while the
//! pieces do not change ([`PrimalParams::reuse_factor`]), across the Newton
//! steps, radius steps and passes of an island. In DoF space (lcp22) a
//! frictionless row (μ = 0: a joint limit, which has no pair and so no
//! guess) without impulse in the guess starts loaded where the guess's x
//! closes it (`u_n < 0`): the standing humanoid's four limit rows turned on in
//! the first Newton step of every tick, a second factorization of H.
//!
//! The guess tested where it is likely converged ([`PrimalParams::guess_memo`],
//! lcp31; off by default, see [`GUESS_MEMO`]): the solver keeps the last
//! solve's q and final impulses per point index, and an island whose projected guess is that answer bit for
//! bit, in an island that solve converged at `r₀`, with `r₀ + |Δq|` within
//! the tolerance at every point, is tested at the guess (the passes' own
//! test, so exact); the others pay no test. The pipeline's kept solve (the
//! same rows, q moved only on the pushed points, the first solve's answer as
//! guess) is where it matches.
//!
//! Options (lcp30, off; measured, docs/BENCHMARKS.md lcp30): the island
//! tested at the guess first ([`PrimalParams::guess_test`]: where the
//! projected guess meets the tolerance, the passes' own test, it is
//! converged with no pass and no factorization); the first pass's radii and
//! centre at the warm minimizer instead of the guess's
//! ([`PrimalParams::warm_radii`], [`PrimalParams::warm_centre`]).
//!
//! # The passes measured (lcp32, [`PrimalParams::pass_trace`])
//! On the resting pile20 the islands that take more than one pass are the
//! large ones, and their first pass's radii (`μ p_n` of the guess, i.e. the
//! last answer's radii to 1e-9) are 10–39 % from the final ones: the split
//! of a load over dependent rows moves that much between ticks. The radii's
//! fixed-point residual then falls by ≈ 0.12 in the first update, ≈ 0.27,
//! ≈ 0.35, then ≈ 0.9 per pass with a spread past 1: not one linear rate
//! but a piecewise-smooth map whose pieces change between passes, which
//! Anderson (memory 1–5, [`PrimalParams::anderson_safeguard`]) moves by at
//! most 2 %. What moves the count is the first pass's start: radii far above
//! `μ p_n` (sticking points, [`PrimalParams::first_radii_scale`], or the warm
//! minimizer's, [`PrimalParams::warm_radii`]) take 18–25 % fewer
//! instructions on the settled pile and 12–67 % more Newton steps in the
//! drop; options, off. Restricted to the points resting at their limit
//! (tangential velocity at the warm minimizer within the tolerance,
//! [`PrimalParams::first_radii_resting`]) it cuts every window's same
//! problems (−12.7 % instructions settled) but its own trajectory's settled
//! bench window was 58–64 % slower with 18–37 fallbacks: off too
//! (docs/BENCHMARKS.md, lcp32).
//!
//! # Face patches (lcp33, `ContactProblem::patch`)
//! Under `[lcp] friction = "patch"` a point of a face patch has the radius
//! `r_i = μ_i s_i Σ_{j ∈ P} p_n(j)` ([`ContactProblem::radius_with`]): every
//! radius update above takes the patch's load, the radius Newton system's row
//! of a patch point has `−μ_i s_i Σ_j ∂p_n(j)/∂r` over the patch's loaded
//! points, and the residual's k-gon is the patch's. The frozen QP is unchanged
//! (its radii are numbers); a point whose normal row is off keeps its share of
//! the patch's radius. The cone run and `coupled` (the points' own cones in the
//! Newton system) are off on such problems.
//!
//! # The block step (lcp31, [`PrimalParams::block_pieces`], off)
//! The exact line search stops just past the first stiff kink (`1/e' ≈ 1e6`
//! of W's diagonal), so a factorization identifies the pieces that one kink
//! changes. The option: after a Newton step from `x₀` whose search stopped
//! short (α < 1), the full step's point `x₀ + d` is read for the rows it
//! loads; x is tried at the minimizer of f on the line point's pieces with
//! those rows loaded (their tangent piece at the full step;
//! `minimize_on_pieces`, one factorization) and kept there
//! when `f` (`objective`) is below the line point's, so every step still
//! lowers f at least as much as the exact search. Measured (docs/BENCHMARKS.md,
//! lcp31): kept in 4.9 % of the trials on the resting pile20; +10 % Newton
//! steps. With the full step's pieces whole (its unloads too) +40 %, kept in
//! 6.6 %. Hence off.
//!
//! # The ρ continuation (lcp31, [`PrimalParams::rho_start`], off)
//! Pass k at `ρ_k = max(ρ, rho_start · rho_ratio^k)`: softer kinks in the
//! first passes, whose Newton runs pass several of them per step. The
//! proximal point's fixed point is the LCP's solution for any ρ, and the
//! island's stop is the LCP's residual, so the answer's accuracy is the
//! default's; a new ρ is a new H (the kept factor dropped), and the stall
//! test counts only the passes at ρ. Measured (lcp31): pass 0 takes fewer
//! Newton steps (−24 % at 1e-4, −51 % at 1e-1) but each smaller ρ identifies
//! the pieces again: +41 % to +152 % Newton steps per solve. Hence off.
//!
//! # Soft identification (lcp17, [`PrimalParams::soft_proximal`], off)
//! At ρ = 1e-6 a loaded row's kink is `1/e' ≈ 1e6` of W's diagonal: the exact
//! line search stops just past the first row it activates, and on the resting
//! pile a fifth of the Newton steps are inner runs at the step cap (lcp15).
//! The option: an inner run whose first `soft_after` steps all changed pieces
//! goes on at the same centre and radii with `E' = E + (ρ + σ) D`, `q' = q − ρ
//! D z_k − σ D y` (σ = `soft_proximal`, kinks of `1/σ`; `y` the centre, then
//! — `soft_prox` > 1 — the last subproblem's impulses, a proximal iteration
//! whose factor is kept while its pieces hold; `soft_stages` > 1 takes σ down
//! geometrically towards ρ, each stage from the minimizer of the last one's
//! pieces) until a step keeps the pieces; then, back at ρ, x is the minimizer
//! of those pieces (`minimize_on_pieces`, one factorization)
//! and the run goes on from there. The final ρ, the convergence tests and so
//! the answer at convergence are unchanged. Measured (docs/BENCHMARKS.md,
//! lcp17): it does not cut the pile's Newton steps — the soft subproblem
//! itself takes ≈ 3–5 steps per run, and its pieces are the hard pass's in
//! only 11–58 % of the runs (σ = 1e-1 … 1e-4), so the run continues at ρ —
//! hence off.
//!
//! # The cone run first (lcp18, [`PrimalParams::cone_first`], off)
//! MuJoCo solves one convex problem because its cone is inside the QP. The
//! option: before the passes, one Newton run on `min ½ zᵀ W z + qᵀ z` over
//! `Π_i K_i`, `K_i = {ν_jᵀ f_t ≤ μ_i cos(π/k) p_n}` (eq. (5)'s cone, the
//! same k directions; the radius `μ p_n` inside the feasible set, not
//! frozen). Its dual is `f(x)` above with `φ_i`'s projection replaced by the
//! `E_i`-weighted projection onto the cone ([`project_cone_weighted`]: inside,
//! a face, an edge of the cone, the apex; on each the projection is linear,
//! `z = −K_i u`, `K_i = DΠ E⁻¹` symmetric PSD: [`Tangent::ConeFace`],
//! [`Tangent::ConeRay`]), so the same Newton step, factor and bracketed line
//! search solve it. Its KKT is `w ∈ K*`, `w ⟂ z`: where every loaded point
//! sticks this is the LCP's solution; where one slides the cone QP lifts it
//! (`w_n > 0`), not the LCP's answer. So the run is followed by the LCP's own
//! residual ([`contact_residual`]): at or below the tolerance the island is
//! converged with no pass; else the passes go on, from the guess
//! ([`PrimalParams::cone_warm`] off, the default) or from the cone run's
//! impulses. The run is `cone_runs` proximal iterations at ρ =
//! `cone_proximal` about the guess (the factor kept while the pieces hold):
//! without the proximal term the `1/e` amplification of `u`'s round-off
//! stays in the residual (measured: it finishes a third of the resting
//! pile's islands instead of four fifths). Measured (docs/BENCHMARKS.md,
//! lcp18): it finishes 78 % of the resting pile20's islands and 46 % of the
//! landing pile's, with ≈ 7.6 Newton steps per island run, but the default
//! spends its steps on the other islands, which still need their passes:
//! 118.0 Newton steps per solve against 103.5 — hence off.
//!
//! # Stopping
//! An inner iteration stops when `‖G M⁻¹ ∇f‖∞` (the frozen problem's `w` on its
//! loaded rows, m/s) is below half the tolerance or the step does not move `u`;
//! the island is `Converged` when the natural-map residual of the coupled problem
//! on `W` (the PGS / Newton residual, [`contact_residual`]) is `≤ tolerance`. It
//! fails after `max_passes` passes, after [`PrimalParams::stall_passes`] passes
//! in a row whose residual is not below half the best so far (lcp14), or on a
//! non-positive-definite pivot block;
//! the caller hands failed islands to another solver (counted). An island with a
//! side that is not a 6-DoF body ([`BodyRows::ok`]) is solved in DoF space where
//! [`DofRows::ok`] marks it (below), else not attempted (skipped).
//!
//! # Articulated islands (lcp19, [`PrimalSolver::solve_contacts_dofs`])
//! An island with a robot's side or a joint-limit row is the same dual in the
//! generalized velocities: `x` stacks the island's DoF blocks (a free body's 6,
//! a robot's `nv`; [`DofRows`]: per block M and M⁻¹ dense, per point and side
//! its rows of G on the block's DoFs, 3 × ndof), `f(x) = ½ xᵀ M x + Σ_i
//! φ_i(G_i x + q_i)` with M block diagonal, and `H = M + Σ_i G_iᵀ K_i G_i` is
//! assembled dense over the island's `N = Σ ndof` unknowns (a robot's block is
//! dense anyway; the free bodies it touches couple through the points) and
//! factored by a dense Cholesky (`N³/6`; islands of more than [`DOF_MAX`]
//! unknowns are skipped). A joint-limit row is a one-sided normal row with
//! μ = 0 (its tangent placeholders have no rows of G, radius 0: no impulse).
//! The passes are the body-space ones — proximal centre, Anderson on the
//! radii, the warm start at the minimizer of the guess's pieces, the factor
//! kept while the pieces hold, the stall test, the exact line search (the
//! kinks' search since lcp35, [`PrimalParams::dof_line_search`]; bracketed
//! from α = 1 before) —
//! without the options that are off by default. ρ is
//! [`PrimalParams::dof_proximal`] (1e-7, [`DOF_PROXIMAL`]): the rover's line
//! contacts are dependent rows whose load split moves by only `ε/(ε + ρ)` per
//! pass, and at 1e-6 the stall test gave them up at a residual of 1.04e-9.
//! The stall test allows [`PrimalParams::dof_stall_passes`] (6): the driving
//! rover's sliding points take 5–7 passes on their radii.
//! The pipeline gives a robot's M as CRBA computed it beside the M⁻¹ that W
//! was built from ([`DofRows::push_block_with_mass`]); a free body's M is the
//! inverse of its M⁻¹ ([`DofRows::push_block`]).
//!
//! # Cost
//! Per Newton step: one pass over the points (projection, gradient), the
//! assembly of `H` (one 6×6 product per loaded point side pair) and its block
//! Cholesky (6·nb rows), the line search's pass over the points (the
//! breakpoints, then 1–2 evaluations of `f'(α)`). No
//! allocation once the results have been sized (the factor's buffers grow once).
//! In DoF space: the dense H's assembly (`Σ_points ndof_s · ndof_t · 3` per
//! factorization) and its Cholesky (`N³/6`), the same passes over the points.
//!
//! # The factor in part (lcp28, [`PrimalParams::partial_factor`])
//! Within an island the pattern of H (and so the ordering and the elimination
//! tree of [`BlockCholesky`]) is fixed, and a Newton step that changes pieces
//! changes them on few points (≈ 1.7 per step on the resting pile20's large
//! islands, docs/BENCHMARKS.md lcp28): H changes only in the blocks of those
//! points' bodies. With the factor of the last pieces in hand, the block
//! columns of those bodies are marked, closed upwards over the elimination tree
//! (a column's blocks of L depend only on its assembled values and on its
//! descendants' columns), assembled again from nothing — the same terms in the
//! same order as the full assembly, the other blocks' terms skipped — and
//! eliminated again ([`BlockCholesky::refactor_affected`]), the other columns'
//! blocks of L kept; their updates into the affected columns are applied again
//! in the same order. The result is the full factorization bit for bit (every
//! affected block receives the same operations in the same order), so the
//! trajectories do not move; it is counted as a factorization (and in
//! [`PrimalStats::partial_factorizations`]). MuJoCo's Newton does the same job
//! with rank-one up- and downdates of its Cholesky factor (`mj_cholUpdate`);
//! here a downdate would take a loaded row's `1/e' ≈ 1e6 W_ii` back out of the
//! factor and lose about six digits of it, which the re-elimination does not.
//!
//! # H along the tree (lcp21)
//! A robot's M has the branch-induced sparsity of its DoF parent array λ
//! (`M_ij ≠ 0` only for i, j on one path to the root), and a point's rows of
//! G on one link touch only that link's path: `Gᵢᵀ Kᵢ Gᵢ` keeps the sparsity.
//! An island of one factored block ([`DofRows::push_block_factored`]: M
//! factored `M = Lᵀ L` along λ by the pipeline) whose points each act on it
//! from one side, with every side's non-zero columns on one path
//! (checked once per island solve), factors H as `Lᵀ L` from the last DoF to
//! the first ([`tree_cholesky`]: no fill-in, `O(Σ d_k²)` for DoF depths
//! `d_k`) over each DoF's ancestors, listed once per island solve as runs of
//! consecutive DoFs (lcp22; were listed one by one), and solves in
//! `O(Σ d_k)`; H is written only on that sparsity (lcp22: no dense zero
//! fill). Other islands keep the dense Cholesky. The humanoid (32 DoFs, feet
//! at depth 12): the DoF solve 322k → 262k instructions per step (lcp21),
//! → 147k with one factorization per step and G read by its non-zero
//! columns (lcp22; docs/BENCHMARKS.md).

use super::block_cholesky::{BlockCholesky, M6, V6};
use super::lcp::all_finite;
use super::pgs::{contact_residual, project_polygon_with, ContactProblem, PolygonTable};
use super::staggered::{anderson_radius, anderson_weights};

/// A point side on no body of the body-space problem (static, or the world).
pub const NO_BODY: u32 = u32::MAX;

/// The body-space data of a [`ContactProblem`]: the same points, with their rows
/// of G per side, the bodies' M, and the CFM E. Filled by the pipeline (or a test)
/// alongside the contact-space blocks, which it must reproduce:
/// `W_ij = Σ_{sides on a shared body} J_i M⁻¹ J_jᵀ (+ diag(E_i) when i = j)`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BodyRows {
    /// Per body: M and M⁻¹ (6×6, symmetric positive definite).
    pub mass: Vec<M6>,
    pub minv: Vec<M6>,
    /// Per point: the body of each side ([`NO_BODY`]: static).
    pub body: Vec<[u32; 2]>,
    /// Per point and side: the rows (n, t₁, t₂) of G, 6 coefficients each
    /// (row-major 3×6), acting on that body's 6 velocities.
    pub jac: Vec<[[f64; 18]; 2]>,
    /// Per point: the CFM `E_i = (e_n, e_t₁, e_t₂)` (> 0), the part of W's
    /// diagonal that is not `G M⁻¹ Gᵀ`.
    pub cfm: Vec<[f64; 3]>,
    /// Per island of the problem (`island_start`): every moving side of its
    /// points is a body of `mass` (else the island is skipped).
    pub ok: Vec<bool>,
}

impl BodyRows {
    /// Buffers for `points` contact points and `bodies` bodies.
    pub fn with_capacity(points: usize, bodies: usize) -> Self {
        BodyRows {
            mass: Vec::with_capacity(bodies),
            minv: Vec::with_capacity(bodies),
            body: Vec::with_capacity(points),
            jac: Vec::with_capacity(points),
            cfm: Vec::with_capacity(points),
            ok: Vec::with_capacity(points + 1),
        }
    }
}

/// Parameters of [`PrimalSolver`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrimalParams {
    /// Natural-map residual to stop at (units of `w`, m/s, and N·s).
    pub tolerance: f64,
    /// Newton steps (factorizations) per outer pass.
    pub max_iterations: usize,
    /// Outer passes (radius / proximal-centre updates) per island.
    pub max_passes: usize,
    /// ρ of the proximal term, relative to W's diagonal ("Outer passes"); 0: none.
    pub proximal: f64,
    /// Anderson memory on the radii between passes (0 or 1: the plain fixed
    /// point `r ← μ p_n`; at most [`ANDERSON_MAX`]).
    pub anderson: usize,
    /// Anderson on the whole pass map `z_k ↦ z_{k+1}` (the proximal centre and,
    /// through it, the radii) instead of the radii alone ("Outer passes").
    pub anderson_centre: bool,
    /// Newton steps on the radii per pass ("Newton on the radii"; 0: off, the
    /// radii move between passes only, by Anderson or the plain update).
    pub radius_newton: usize,
    /// The coupled step ("Newton on the radii"): every Newton step of a pass
    /// also moves the radii of the sliding points to the fixed point of its
    /// pieces' linearization (through the same factor of H), and the frozen
    /// problem's step is taken at those radii.
    pub coupled: bool,
    /// The warm start's pieces ("Warm start"): with a guess, the first pass
    /// starts at the minimizer of the quadratic of the guess's pieces (one
    /// factorization), the solution when the pieces persist.
    pub warm_pieces: bool,
    /// Keep the factor of H while the pieces do not change (across the steps
    /// and passes of an island).
    pub reuse_factor: bool,
    /// Newton steps on the radii per pass once an island has stalled
    /// (`stall_passes`) without them: the island goes on with them instead of
    /// being given up (a second stall ends it). 0: off.
    pub radius_newton_on_stall: usize,
    /// Passes without progress before an island is given up ("Stopping"): a
    /// pass whose residual is not below half the best so far counts; this many
    /// in a row end the island. 0: off (the island spends `max_passes`).
    pub stall_passes: usize,
    /// How the exact line search finds the minimizer of `f(x + α d)` ("The line
    /// search by the breakpoints").
    pub line_search: LineSearch,
    /// Also run the other line search ([`LineSearch::Bracketed`] beside
    /// [`LineSearch::Breakpoints`]) from the same iterate at every Newton step
    /// and record their largest difference in α
    /// ([`PrimalStats::line_search_alpha_diff`]); the step takes
    /// `line_search`'s α. A check for the tests (doubles the search's cost).
    pub line_search_check: bool,
    /// The softer identification ("Soft identification", lcp17): an inner run
    /// at ρ = `proximal` whose steps keep changing pieces goes on at this
    /// larger ρ (kinks of `1/soft_proximal` of W's diagonal instead of
    /// `1/proximal`) from its iterate, then back at `proximal` from the
    /// minimizer of the pieces found there. 0: off (as before lcp17).
    pub soft_proximal: f64,
    /// Stages of the soft identification: ρ from `soft_proximal` towards
    /// `proximal` in this many geometric steps (1: `soft_proximal` alone).
    pub soft_stages: usize,
    /// Newton steps at `proximal` that changed pieces before an inner run
    /// switches to the soft identification (at most once per inner run).
    pub soft_after: usize,
    /// Proximal iterations per soft stage: the stage's subproblem adds
    /// `½ σ (z − y)ᵀ D (z − y)` to the pass's, `y` its last solution (first the
    /// centre), until its pieces repeat (at most this many; 1: `y` the centre).
    pub soft_prox: usize,
    /// The cone run first ("The cone run first", lcp18): each island starts
    /// with one Newton run on the convex QP whose friction cone is inside the
    /// feasible set (`f_t ∈ μ p_n·k-gon`, no frozen radius); when its impulses
    /// meet the LCP's residual the island is converged with no pass, else the
    /// passes go on from them. Off by default.
    pub cone_first: bool,
    /// ρ of the cone run's proximal term (its centre the guess, then each
    /// run's impulses), relative to W's diagonal; 0: none.
    pub cone_proximal: f64,
    /// Proximal iterations of the cone run: Newton runs at the same QP with
    /// the centre moved to the last run's impulses (the factor kept while the
    /// pieces hold), until the LCP's residual is met, it stops halving, or
    /// this many runs.
    pub cone_runs: usize,
    /// Where the cone run does not finish an island, the passes start from
    /// its impulses (true: radii μ p_n and centre of them, their pieces) or
    /// from the guess, as without the cone run (false).
    pub cone_warm: bool,
    /// Skip the cone run on an island whose guess has a loaded point on the
    /// boundary of its k-gon (to 1e-9 of its radius: sliding last tick, where
    /// the cone QP would lift it). Off by default: resting pile20 window (as
    /// [`CONE_FIRST`]) 104.0 Newton steps per solve (23.0 in the cone run)
    /// against the default's 103.5, landing 74.5 against 63.2 (108.5 without
    /// the skip).
    pub cone_skip_sliding: bool,
    /// ρ of the proximal term on the islands solved in DoF space ("Articulated
    /// islands", lcp19; [`DOF_PROXIMAL`]); `proximal` stays the body-space one.
    pub dof_proximal: f64,
    /// [`PrimalParams::stall_passes`] on the islands solved in DoF space
    /// ([`DOF_STALL_PASSES`]).
    pub dof_stall_passes: usize,
    /// The exact line search of the DoF-space islands ([`DOF_LINE_SEARCH`];
    /// lcp35): [`LineSearch::Kinks`] (the default since lcp35, as in body
    /// space), [`LineSearch::Bracketed`] from α = 1 (lcp19–lcp34's), or
    /// [`LineSearch::Breakpoints`] (the same line, the same stop).
    pub dof_line_search: LineSearch,
    /// DoF-space islands of at most this many points take Newton on the radii
    /// (`radius_newton_on_stall` steps per pass) from their first pass, not
    /// only after a stall ([`DOF_RADIUS_NEWTON_POINTS`], lcp21). 0: off.
    pub dof_radius_newton_points: usize,
    /// A body-space island's residual ([`contact_residual`]'s natural map) from
    /// the rows instead of W (lcp26): `w = G M⁻¹ Gᵀ z + E z + q`, M⁻¹ per body
    /// ([`BodyRows::minv`]), E = [`BodyRows::cfm`] — the pipeline's W holds
    /// only each point's diagonal block for such islands (the primal solver
    /// reads nothing else of it). Off: `w = W z + q` on the problem's blocks.
    pub residual_from_rows: bool,
    /// Factor H in part when some points changed piece since the kept factor
    /// ("The factor in part", lcp28): bit for bit the full factorization, so
    /// on by default; off, every change of pieces factors H whole (as before
    /// lcp28; the tests' reference).
    pub partial_factor: bool,
    /// The bracketed line search starts at the first kink where a row loads
    /// (`u_n > 0`, `δu_n < 0`: α = −u_n/δu_n, just past it) when that is
    /// below α = 1 ("The line search's start", lcp28); else at 1 as before.
    pub kink_start: bool,
    /// The first pass's radii at the warm minimizer ("Warm start", lcp30; off;
    /// same problems of the resting pile20: 65.17 Newton steps per solve
    /// against 61.58, 17.63 passes against 19.36; with `warm_centre` 124.53):
    /// with a guess and `warm_pieces`, once `x` is the minimizer of the guess's
    /// pieces, the radii are set to `μ p_n` of that minimizer's impulses
    /// (the present problem's normal loads) instead of the guess's, before the
    /// pass's Newton run.
    pub warm_radii: bool,
    /// With `warm_radii`: the first pass's proximal centre moved to the warm
    /// minimizer's impulses too (lcp30; off).
    pub warm_centre: bool,
    /// The guess tested first (lcp30; off): with a guess, an island whose
    /// projected guess already meets the tolerance (the passes' own test,
    /// [`contact_residual`]'s natural map) is converged with no pass.
    pub guess_test: bool,
    /// [`LineSearch::Kinks`] places its trials by every breakpoint of the
    /// line ([`Line::kink_list`], lcp29's list) instead of the loading kinks
    /// alone ([`Line::load_list`], lcp30); the same trials where the two
    /// lists' loading kinks agree. Off (lcp30).
    pub full_kink_list: bool,
    /// The block step on the pieces ("The block step", lcp31; [`BLOCK_PIECES`]):
    /// after a Newton step whose exact line search stopped short of the full
    /// step (α < 1: a loading kink), x is also tried at the minimizer of the
    /// full step's pieces (one factorization) and kept there when `f` is lower
    /// than at the line search's point.
    pub block_pieces: bool,
    /// The ρ continuation per pass ("The ρ continuation", lcp31; 0: off):
    /// pass k's proximal weight is `max(proximal, rho_start · rho_ratio^k)`,
    /// softer kinks (`1/ρ_k` of W's diagonal) in the first passes; every pass
    /// keeps the proximal point's fixed point (the LCP's solution, whatever
    /// ρ), and the island's test is the LCP's residual as before. The stall
    /// test counts only the passes at `proximal`.
    pub rho_start: f64,
    pub rho_ratio: f64,
    /// Count the pieces each inner Newton step changes, by kind
    /// ([`PrimalStats::piece_changes`]; a trace for the harness, lcp31). Off.
    pub piece_trace: bool,
    /// The guess tested only where it is likely converged ("Warm start",
    /// lcp31; [`GUESS_MEMO`]): an island whose every point's projected guess
    /// equals, bit for bit, the last solve's final impulses at the same index
    /// (the kept solve's guess is the first solve's answer; a resting pair's
    /// is last step's), in an island that solve converged at residual `r₀`,
    /// with `r₀ + max(|Δq_n|, ‖Δq_t‖₂) ≤ tolerance` on every point (`Δq` from
    /// that solve's q: with W unchanged the natural map's residual moves by at
    /// most that, the projections being non-expansive), is tested at the guess
    /// as [`PrimalParams::guess_test`] does (converged with no pass where it
    /// meets the tolerance: the test itself is exact, the match only picks the
    /// islands); the others are not tested.
    pub guess_memo: bool,
    /// Record every body-space pass ([`PrimalResults::pass_trace`], lcp32): the
    /// radii's change, the proximal term, the residual; and per island the
    /// first pass's radii against the final ones. A trace for the harness
    /// (it allocates); off.
    pub pass_trace: bool,
    /// Anderson on the radii safeguarded (lcp32, [`ANDERSON_SAFEGUARD`]): a
    /// pass whose radii's fixed-point residual `‖μ p_n(z_k) − r_k‖₂` is not
    /// below the last pass's (the extrapolated radii did not help) takes the
    /// plain update `r ← μ p_n(z_k)` and restarts Anderson's history.
    pub anderson_safeguard: bool,
    /// With `warm_radii` (lcp32): the radii at the warm minimizer only where
    /// the minimizer keeps the guess's pieces (every point's piece at it is
    /// the one the factor was made at: it is then the first pass's QP
    /// solution at the guess's radii, and its `μ p_n` the fixed point's plain
    /// update, free); elsewhere the guess's radii.
    pub warm_radii_guarded: bool,
    /// The first pass's radii scaled (lcp32; 1: off): with a guess, pass 0
    /// freezes `r_i = first_radii_scale · μ_i p_n(guess)`, so the first pass
    /// identifies the normal rows' pieces with the loaded points sticking
    /// where the scale is large; the later passes take the fixed point's
    /// update as before.
    pub first_radii_scale: f64,
    /// `first_radii_scale` only on the islands whose every point is loaded
    /// in the guess (`p_n > 0`: a persisting contact set, no new or
    /// released point; lcp32).
    pub first_radii_loaded: bool,
    /// `first_radii_scale` only on the points resting at their friction
    /// limit at the warm minimizer (lcp32; 0: off): loaded, on the k-gon's
    /// boundary, with the frozen problem's tangential velocity `|u_t + E'_t
    /// z_t|` (the projection's displacement) at most this many tolerances;
    /// the sliding points keep the guess's radii. Needs `warm_pieces`.
    pub first_radii_resting: f64,
}

/// One body-space pass ([`PrimalParams::pass_trace`], lcp32), or with `pass`
/// = `u32::MAX` the island's end.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PassRecord {
    /// The island's index in the solve, the pass's index, the island's points
    /// and those whose friction depends on its radius at the pass's end (on
    /// an edge or a vertex of a k-gon of radius > 0, normal row loaded).
    pub island: u32,
    pub pass: u32,
    pub points: u32,
    pub sliding: u32,
    /// Newton steps and factorizations of the pass.
    pub iterations: u32,
    pub factorizations: u32,
    /// The island's natural-map residual at the pass's end.
    pub residual: f64,
    /// The radii's fixed-point residual `‖μ p_n(z_k) − r_k‖₂ / ‖μ p_n(z_k)‖₂`
    /// (the plain update's relative change) and its largest entry (N·s).
    pub radius_change: f64,
    pub radius_offset: f64,
    /// The proximal term's part of w at the pass's answer, `max ρ D |z − z_k|`
    /// (m/s), and the centre's relative move `‖z − z_k‖₂ / ‖z‖₂`.
    pub proximal: f64,
    pub centre_change: f64,
    /// At the island's end: `‖r_0 − μ p_n(z)‖₂ / ‖μ p_n(z)‖₂` (the first
    /// pass's radii against the final answer's) and whether it converged.
    pub first_radii: f64,
    pub converged: bool,
}

/// The exact line search's method ([`PrimalParams::line_search`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineSearch {
    /// Safeguarded Newton on the monotone, piecewise linear `f'(α)`, bracketed
    /// (lcp13): each trial α re-evaluates every point's impulse (9.4 trials
    /// per Newton step on the resting pile20, lcp15). The default before
    /// lcp29; the cone run's search (and the DoF-space islands' until lcp35,
    /// [`PrimalParams::dof_line_search`]).
    Bracketed,
    /// The sorted breakpoints (lcp16): every point's kinks along the direction
    /// and the jumps of `f''` at them, computed once per direction, taken in order and
    /// walked until `f'` changes sign; then the bracketed iteration from that
    /// piece's zero (1–2 evaluations of `f'(α)`).
    Breakpoints,
    /// The bracketed search that stops at the loading kinks (lcp29, "The line
    /// search at the loading kinks", [`Line::kinks`]): a step from the left end
    /// of the bracket that would pass a row's loading kink is taken just past
    /// that kink instead, so the zero of the piece there is the next step.
    /// The default (lcp29, [`LINE_SEARCH`]).
    Kinks,
}

impl Default for PrimalParams {
    fn default() -> Self {
        PrimalParams {
            tolerance: 1e-9,
            max_iterations: 30,
            max_passes: 20,
            proximal: PROXIMAL,
            anderson: ANDERSON,
            anderson_centre: ANDERSON_CENTRE,
            radius_newton: RADIUS_NEWTON,
            coupled: COUPLED,
            warm_pieces: WARM_PIECES,
            reuse_factor: true,
            radius_newton_on_stall: RADIUS_NEWTON_ON_STALL,
            stall_passes: STALL_PASSES,
            line_search: LINE_SEARCH,
            line_search_check: false,
            soft_proximal: SOFT_PROXIMAL,
            soft_stages: SOFT_STAGES,
            soft_after: SOFT_AFTER,
            soft_prox: SOFT_PROX,
            cone_first: CONE_FIRST,
            cone_proximal: PROXIMAL,
            cone_runs: CONE_RUNS,
            cone_warm: CONE_WARM,
            cone_skip_sliding: false,
            dof_proximal: DOF_PROXIMAL,
            dof_stall_passes: DOF_STALL_PASSES,
            dof_radius_newton_points: DOF_RADIUS_NEWTON_POINTS,
            dof_line_search: DOF_LINE_SEARCH,
            residual_from_rows: false,
            partial_factor: true,
            kink_start: false,
            warm_radii: false,
            warm_centre: false,
            guess_test: GUESS_TEST,
            full_kink_list: false,
            block_pieces: BLOCK_PIECES,
            rho_start: 0.0,
            rho_ratio: 0.1,
            piece_trace: false,
            guess_memo: GUESS_MEMO,
            pass_trace: false,
            anderson_safeguard: ANDERSON_SAFEGUARD,
            warm_radii_guarded: false,
            first_radii_scale: FIRST_RADII_SCALE,
            first_radii_loaded: false,
            first_radii_resting: FIRST_RADII_RESTING,
        }
    }
}

/// The default of [`PrimalParams::soft_proximal`] (lcp17): 0, off. Resting
/// pile20 (`tests/primal_profile.rs`'s window, every variant solving the same
/// 600 problems beside the default, a measuring build): the default 103.5
/// Newton steps and 96.6 factorizations per solve; σ = 1e-3 after 3 changed
/// steps 126.7 and 119.6, after 0 120.8 and 120.7, after 10 117.8 and 110.8;
/// σ = 1e-4 119.0, 1e-5 105.8, 1e-2 146.6, 1e-1 167.9 Newton steps; with
/// proximal iterations (`soft_prox` 4–6) or 2–3 stages 121–207. None below
/// the default.
pub const SOFT_PROXIMAL: f64 = 0.0;

/// The default of [`PrimalParams::cone_first`] (lcp18): off. Resting pile20
/// (`tests/primal_profile.rs`'s window, solves 5,801–6,400, each also solved
/// with the cone run first by a measuring build): the cone run finishes 78.2 %
/// of the islands (3,285 of 4,200) in 53.3 Newton steps per solve, but the
/// solve takes 118.0 Newton steps and 112.4 factorizations against the
/// default's 103.5 and 96.6 (passes 12.4 against 24.8; islands failed 10
/// against 15), µs per solve 3,240 against 2,894 (paired); landing (solves
/// 1–600) 108.5 against 63.2 Newton steps. box and 5-stack: one Newton step
/// either way.
pub const CONE_FIRST: bool = false;

/// The default of [`PrimalParams::cone_warm`] (lcp18): off, the passes from the
/// guess. Resting pile20 window (as [`CONE_FIRST`]): from the cone run's
/// impulses 111.5 Newton steps per solve and 87 islands failed (the default
/// 103.5 and 15); from the guess 118.0 and 10.
pub const CONE_WARM: bool = false;

/// The default of [`PrimalParams::cone_runs`] (lcp18): 4. Resting pile20 window,
/// passes from the cone run: 1 run finishes 49.4 % of the islands (712 failed),
/// 2 runs 77.0 %, 4 runs 78.2 %, 8 runs 78.3 %.
pub const CONE_RUNS: usize = 4;

/// The default of [`PrimalParams::soft_stages`] (lcp17).
pub const SOFT_STAGES: usize = 1;

/// The default of [`PrimalParams::soft_after`] (lcp17).
pub const SOFT_AFTER: usize = 3;

/// The default of [`PrimalParams::soft_prox`] (lcp17).
pub const SOFT_PROX: usize = 1;

/// The default of [`PrimalParams::line_search`] (lcp29): the search at the
/// loading kinks. On the resting pile20 window's own problems
/// (`tests/primal_profile.rs`, `same_problems_pile20_primal`, 600 solves, each
/// also solved with the bracketed search): 170.6 evaluations of `f'(α)` per
/// solve against 281.2, the same Newton steps and factorizations (59.70 /
/// 55.14 against 59.59 / 55.03) and islands not converged (4 / 4), 3.2 % fewer
/// instructions in the solves (the list of kinks costs most of what the
/// evaluations save); the 66 problems of tests/lcp_primal.rs 5,318 against
/// 9,231 evaluations (docs/BENCHMARKS.md, lcp29). Before lcp29 the bracketed
/// search (lcp13). The breakpoints are an option: on the resting pile20 they
/// took 1–2 evaluations per Newton step instead of ≈ 10, but the walk and the
/// ordering of the breakpoints cost about what the evaluations saved at k = 4,
/// and their α differs from the bracketed search's by more than its stopping
/// precision on some steps (lcp16).
pub const LINE_SEARCH: LineSearch = LineSearch::Kinks;

/// The default of [`PrimalParams::dof_line_search`] (lcp35): the kinks'
/// search, as in body space since lcp29. On the driven rover's same problems
/// (`tests/primal_profile.rs`, `same_problems_rover_primal`, 300 solves after
/// the bench's 1 s) the bracketed search from α = 1 (lcp19–lcp34) took 95.5
/// evaluations of `f'(α)` per solve (9.4 per Newton step: from the right of
/// the stiff loading kinks it unloads one per trial or bisects, lcp28's
/// finding in body space), the kinks' 31.0, with the same Newton steps,
/// factorizations and passes (10.21 / 8.12 / 4.83), every island converged;
/// −22.4 % of the solves' instructions (the breakpoints' walk: 37.9
/// evaluations, −15.6 %). The humanoid's solves take no line search (one
/// factorization at the guess's pieces); the arm on the table's 3.73 → 3.11
/// evaluations per solve. docs/BENCHMARKS.md, lcp35.
pub const DOF_LINE_SEARCH: LineSearch = LineSearch::Kinks;

/// The default of [`PrimalParams::radius_newton`] (lcp14): off. pile20
/// resting (`bench`, same binary, 18:22–18:30 UTC): with 8 steps per pass 31
/// passes and 0.26 islands to Newton per step but 788 factorizations and
/// 21,654–25,244 µs/step (the radius steps move pieces, which the frozen QP
/// then re-identifies); off, 61 passes, 5.6 islands to Newton, 277
/// factorizations, 8,578–8,943 µs/step. On the random problems of
/// `tests/lcp_primal.rs` it converges on 58 of 60 against Anderson's 56.
pub const RADIUS_NEWTON: usize = 0;

/// The default of [`PrimalParams::radius_newton_on_stall`] (lcp14): 8. pile20
/// resting (`bench`, 18:52–18:56 UTC, load 8.4–8.9, two binaries alternated):
/// islands to Newton 5.5 → 0.21 per step, failures → PGS 3 → 0, 289–294 → 348–
/// 355 factorizations, 12,239 / 10,920 → 10,031 / 9,697 µs/step.
pub const RADIUS_NEWTON_ON_STALL: usize = 8;

/// The default of [`PrimalParams::coupled`] (lcp14): off. pile20 `--quick`:
/// 6,631 Newton steps per step and 4.2 islands to Newton (the step cycles
/// between piece sets without a merit function); converges on the face tests.
pub const COUPLED: bool = false;

/// The default of [`PrimalParams::guess_test`] (lcp30): off. Resting pile20
/// (`tests/primal_profile.rs`, `same_problems_pile20_primal`, the 600 solves
/// of the window each also solved with the test): 598 of the 3,600 islands
/// meet the tolerance at the guess; Newton steps 61.58 → 60.48 per solve,
/// factorizations 57.72 → 56.64, passes 19.36 → 18.34, islands not converged
/// 10 → 10 (a later window: 66.97 → 65.26, 59.60 → 57.88, 1,022 of 4,800
/// islands). But the instructions of those solves rise, 2,145.7M → 2,154.4M
/// (+0.4 %, callgrind): the islands it ends are small (their one
/// factorization is cheap) and every other island pays the test. The other
/// islands' guesses are far from the tolerance (2,741 of 3,600 above 1e4 of
/// it): the passes are not a question of the tolerance.
pub const GUESS_TEST: bool = false;

/// The default of [`PrimalParams::warm_pieces`] (lcp14): on. pile20 resting
/// (`bench`, radius Newton off): 277 factorizations and 8,578 µs/step with
/// it, 497 and 17,895 without.
pub const WARM_PIECES: bool = true;

/// The default of [`PrimalParams::dof_proximal`] (lcp19): 1e-7. On the
/// rover's resting solves (`tests/data/primal_robots/diffdrive_rest_09*`: nine
/// points on the two wheels' line contacts and the caster, dependent rows) at
/// ρ = 1e-6 the residual stays at 1.04e-9 (the tolerance 1e-9) for the passes
/// the stall test allows (3 of 4 dumps given up after 4 passes; without the
/// stall test they converge after 18 passes: each pass moves the load's split
/// over the dependent rows by ε/(ε + ρ) only, and the residual of a pass is
/// ρ D (z − z_k)); at 1e-7 every dump converges in 1–3 passes (residual
/// 3e-12 – 2e-11), at 1e-8 in 1–2 with the residual at 6e-11 – 9e-10 (the
/// round-off of u amplified by 1/ρ). The humanoid's dumps: 1 pass at each,
/// residual 8e-11 (1e-6), 2e-11 – 6e-11 (1e-7), 2e-10 – 9e-10 (1e-8).
pub const DOF_PROXIMAL: f64 = 1e-7;

/// The default of [`PrimalParams::dof_stall_passes`] (lcp19): 6. The rover
/// driving its curve (wheel speeds 4 and 5 rad/s, `tools::bench::robot_command`)
/// handed 724 islands to the Newton path in 3,000 steps at 3 (15 of them then
/// failed to PGS): its sliding points' radii take 5–7 passes, several without
/// halving the residual. Eight of those islands (`tests/data/primal_robots/
/// diffdrive_drive_*`, each given up at 3): at 6, 7 converge in 5–7 passes
/// (as with no stall test); the eighth does not converge in 200 passes at ρ =
/// 1e-7 either.
///
/// lcp20: 3 again, now that a stall switches the island to Newton on the
/// radii (`radius_newton_on_stall`, as in body space) and only a second
/// stall hands it over. On the eleven driving dumps (the eight above and
/// three the pipeline left at 6 with the radius Newton,
/// `diffdrive_drive_0008`–`0010`), pipeline parameters: at 6 nine converge
/// (0000 in 8 passes; 0008 in 17; 0009 and 0010 end at the 20-pass limit,
/// residual 4.8e-4 and 7.6e-4); at 3 all eleven, in 5–9 passes (0009: 6,
/// 0010: 7); at 4 all eleven, in 6–14.
pub const DOF_STALL_PASSES: usize = 3;

/// The default of [`PrimalParams::dof_radius_newton_points`] (lcp21): 2. The
/// arm pressing on the table and swaying (one sliding point) took 2.42 passes
/// and 3.48 Newton steps per step with the radii's Newton only after a stall
/// (lcp20); from the first pass on every DoF island, the driving rover (9
/// points on one island) handed 23 islands to the Newton path in 3,000 steps
/// (lcp20, not kept). Small islands only: the rover's island is not one.
pub const DOF_RADIUS_NEWTON_POINTS: usize = 2;

/// The default of [`PrimalParams::stall_passes`] (lcp14): 3. pile20 resting
/// (`bench`, radius Newton off): 61 passes, 5.6 islands to Newton and 8,578–
/// 8,943 µs/step; off (20 passes), 150 passes, 5.2 and 10,863; 2, 54 passes,
/// 8.8 and 9,923.
pub const STALL_PASSES: usize = 3;

/// The default of [`PrimalParams::guess_memo`]: off (session 38's review of
/// lcp31, which had it on). Its gain on the same problems is −0.17 % of the
/// solves' instructions. But on its own trajectory the settled bench window was
/// 10–16 % slower than main's (1,655–1,748 against 1,503–1,509 µs/step), with
/// 35–37 islands per window handed to the Newton path against 0. Whether the
/// memo's trajectory reaches those states by chance or systematically is
/// unsettled. Resting pile20
/// (`tests/primal_profile.rs`, `same_problems_pile20_primal`, the window with
/// it on, 600 solves): 1,323 islands tested, 1,310 converged at the guess
/// (1,183 in the kept solves, 127 in the first ones); per solve 52.93 Newton
/// steps and 48.88 factorizations against 55.11 and 51.07 off, 4,254.9M
/// instructions in the solves against 4,262.3M (−0.17 %; every island tested,
/// `guess_test`, 4,269.0M). The primal trajectories move (the guess is the
/// answer where it meets the tolerance); Lemke's and PGS's do not.
pub const GUESS_MEMO: bool = false;

/// The default of [`PrimalParams::block_pieces`] (lcp31).
pub const BLOCK_PIECES: bool = false;

/// Largest number of points whose friction depends on their radius (sliding)
/// in an island for the Newton step on the radii (a dense k×k system and k
/// back-solves); more take the pass's plain update.
pub const RADIUS_NEWTON_MAX: usize = 32;

/// The radii are consistent when `|μ p_n − r| ≤` this times the tolerance on
/// every point.
const RADIUS_TOL: f64 = 0.1;

/// The default of [`PrimalParams::first_radii_scale`] (lcp32): 1, off (1e3
/// with [`PrimalParams::first_radii_resting`] 1 is the measured option).
pub const FIRST_RADII_SCALE: f64 = 1.0;

/// The default of [`PrimalParams::first_radii_resting`] (lcp32): 0, off. With
/// `first_radii_scale` 1e3 and 1 here (a point whose tangential velocity at
/// the warm minimizer already meets the tolerance is not sliding), the same
/// problems of five windows on main's pile20 trajectory
/// (`tests/primal_profile.rs`, `same_problems_pile20_primal`; the drop, the
/// landing, three settled windows) take Newton steps per solve 44.27 →
/// 44.16, 69.89 → 68.37, 60.60 → 54.39, 52.87 → 50.42, 44.98 → 43.95 with
/// the islands not converged unchanged, and −12.7 % instructions on the
/// settled window; on its own trajectory's problems −5.8 % and −6.6 %. But
/// its own settled bench window is 58–64 % slower than main's (2,468–2,567
/// against 1,563–1,582 µs/step, 147–157 Newton steps per step against 118,
/// 18–37 islands to the Newton path per window against 0), while its quick
/// pile is 33–37 % faster: not the default (docs/BENCHMARKS.md, lcp32).
pub const FIRST_RADII_RESTING: f64 = 0.0;

/// The default Anderson memory on the radii ("Outer passes").
pub const ANDERSON: usize = 3;

/// The default of [`PrimalParams::anderson_safeguard`] (lcp32): off. On the
/// same problems of five pile20 windows (`tests/primal_profile.rs`,
/// `same_problems_pile20_primal`, the drop to 6,300 steps) −0.2 % to −1.8 %
/// Newton steps per solve and −0.9 % to −1.7 % passes on four, but the
/// settled window's solves take 4,172.5M instructions against 4,175.6M
/// (−0.07 %, callgrind): within what moving the trajectory is worth, so
/// not the default (docs/BENCHMARKS.md, lcp32).
pub const ANDERSON_SAFEGUARD: bool = false;

/// The default of [`PrimalParams::anderson_centre`]: off. pile20 `--quick`
/// (lcp13, 15:42 UTC, same binary): on, 105 islands handed to Newton in 50
/// steps instead of 143, the same passes (123 / 126 per step) and
/// factorizations (468 / 462), µs/step 7,414–7,854 against 5,110 at load 3:
/// not a clear gain, kept as an option.
pub const ANDERSON_CENTRE: bool = false;

/// Largest Anderson memory (the staggered solver's).
pub use super::staggered::ANDERSON_MAX;

/// The default proximal weight ρ ("Outer passes").
pub const PROXIMAL: f64 = 1e-6;

/// Line-search iterations (Newton on `f'(α)`, bracketed) per step.
const LINE_SEARCH_STEPS: usize = 40;

/// A hook that sees every primal solve the pipeline makes
/// (`pipeline::lcp::solve`), before it: the parameters, the problem, the rows
/// and the guess the pipeline hands [`PrimalSolver::solve_contacts_dofs`]. For
/// measuring harnesses that solve the same problem beside the pipeline with
/// other parameters (lcp29, tests/primal_profile.rs); unset, the pipeline
/// pays one atomic load per solve.
pub type SolveObserver =
    fn(&PrimalParams, &ContactProblem, &BodyRows, Option<&DofRows>, Option<&[f64]>);

static OBSERVER: std::sync::OnceLock<SolveObserver> = std::sync::OnceLock::new();

/// Sets the process's [`SolveObserver`] (once; false if one was set).
pub fn observe_solves(f: SolveObserver) -> bool {
    OBSERVER.set(f).is_ok()
}

/// The process's [`SolveObserver`], if set.
pub(crate) fn solve_observer() -> Option<SolveObserver> {
    OBSERVER.get().copied()
}

/// How a solve ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrimalStatus {
    /// Every island met the tolerance.
    Converged,
    /// Some island failed or was skipped (`island_solved`); those keep the guess
    /// (skipped) or the last iterate (failed).
    Unconverged,
    /// Sizes, indices or values invalid (nothing solved, `z` zero).
    InvalidProblem,
}

/// Counters of one solve.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PrimalStats {
    /// Newton steps (one factorization each) summed over the islands.
    pub iterations: usize,
    pub factorizations: usize,
    /// Outer passes summed over the islands.
    pub passes: usize,
    /// Line-search evaluations of `f'(α)` summed over the islands (a pass
    /// over the island's points each).
    pub line_search_evaluations: usize,
    /// Breakpoints computed by the breakpoint line search (summed over its
    /// directions; [`LineSearch::Breakpoints`]), and its steps that ended on a
    /// breakpoint (to 1e-9 of α: a point left at its kink).
    pub line_search_breakpoints: usize,
    pub line_search_kinks: usize,
    /// With [`PrimalParams::line_search_check`]: the Newton steps compared and
    /// the largest `|α_breakpoints − α_bracketed| / α_bracketed` over them.
    pub line_search_checks: usize,
    pub line_search_alpha_diff: f64,
    /// With the check: the steps whose α differ by more than 1e-12 relative;
    /// the largest `|Δα| / (1e-12 α + (1e-13 |f'(0)| + 8 ε S) / f''(α))` over
    /// all steps (α the bracketed search's: its own stopping precision, `|f'| ≤
    /// 1e-13 |f'(0)|` or a step of 1e-12 α, and `S = |a0| + |α a1| + Σ
    /// |δu|·(|u| + |α δu|)/e`, the magnitude of `f'(α)`'s terms and of the
    /// rounding of `u(α)` through `z* = Π(−E⁻¹u)`, which places the zero no
    /// better than `8 ε S / f''` for either search); the steps where the
    /// breakpoint search's α has `|f'|` no larger than the bracketed one's.
    pub line_search_checks_above: usize,
    pub line_search_alpha_excess: f64,
    pub line_search_checks_closer: usize,
    /// The soft identification ([`PrimalParams::soft_proximal`]): the inner
    /// runs that switched to it, and its Newton steps (each also counted in
    /// `iterations`; the minimizer of its pieces back at `proximal` counts in
    /// `iterations` only).
    pub soft_runs: usize,
    pub soft_iterations: usize,
    /// The soft identification's runs whose pieces held at `proximal` (the
    /// minimizer of its pieces was the pass's solution on them).
    pub soft_kept: usize,
    /// The cone run ([`PrimalParams::cone_first`]): the islands it ran on,
    /// those it finished (the LCP's residual met, no pass), and its Newton
    /// steps (each also counted in `iterations`).
    pub cone_runs: usize,
    pub cone_converged: usize,
    pub cone_iterations: usize,
    /// Largest natural-map residual over the islands solved.
    pub residual: f64,
    /// Islands in the problem; islands that failed; islands skipped (not in body
    /// space, [`BodyRows::ok`]).
    pub islands: usize,
    pub failed_islands: usize,
    pub skipped_islands: usize,
    /// Islands solved in DoF space ([`DofRows`], "Articulated islands").
    pub articulated_islands: usize,
    /// Of `factorizations`: those done in part ("The factor in part", lcp28),
    /// and the 6×6 block updates they took against those of the full
    /// factorizations they stood in for.
    pub partial_factorizations: usize,
    pub partial_block_updates: usize,
    pub partial_block_updates_full: usize,
    /// Per pass index (0, 1, 2, and 3 or later), summed over the body-space
    /// islands: the passes run, their Newton steps and their factorizations
    /// (lcp30: where the count comes from).
    pub pass_runs: [usize; 4],
    pub pass_iterations: [usize; 4],
    pub pass_factorizations: [usize; 4],
    /// Islands whose guess met the tolerance ([`PrimalParams::guess_test`]).
    pub guess_converged: usize,
    /// Islands tested at the guess ([`PrimalParams::guess_test`], or
    /// [`PrimalParams::guess_memo`]'s match).
    pub guess_tested: usize,
    /// With the test, the islands by the guess's residual relative to the
    /// tolerance: ≤ 1, ≤ 10, ≤ 10², ≤ 10³, ≤ 10⁴, larger.
    pub guess_residuals: [usize; 6],
    /// The block step ([`PrimalParams::block_pieces`]): tried, and kept (`f`
    /// lower at the minimizer of the full step's pieces); the points whose
    /// piece the kept steps changed beyond the line search's point.
    pub block_trials: usize,
    pub block_accepted: usize,
    pub block_pieces_gained: usize,
    /// Anderson's steps on the radii that the safeguard replaced by the plain
    /// update ([`PrimalParams::anderson_safeguard`], lcp32).
    pub anderson_rejected: usize,
    /// Islands whose warm minimizer changed the guess's pieces, so kept the
    /// guess's radii ([`PrimalParams::warm_radii_guarded`], lcp32).
    pub warm_radii_refused: usize,
    /// Islands whose first pass took the scaled radii
    /// ([`PrimalParams::first_radii_scale`], lcp32).
    pub first_radii_scaled: usize,
    /// With [`PrimalParams::piece_trace`] (lcp31): over the inner runs' Newton
    /// steps — the steps, those whose line search stopped short (α < 1), the
    /// normal rows they loaded, those they unloaded, the tangent pieces they
    /// changed on rows loaded before and after, and the steps with 1, 2, ≥ 3
    /// such changes.
    pub piece_changes: [usize; 8],
}

/// The piece of a point's tangent projection (and, in the cone run, of the
/// whole point's projection onto its cone).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tangent {
    /// Inside the k-gon: `K_t = E_t⁻¹`.
    Stick,
    /// On the edge of direction `(tx, ty)` (unit): `K_t = t tᵀ / (tᵀ E_t t)`.
    Edge(f64, f64),
    /// At a vertex, or zero radius: `K_t = 0`.
    Fixed,
    /// The cone run: on the face `aᵀ z = 0` of the cone (`a = (−μ cos(π/k),
    /// ν)`, ν the k-gon edge's outward normal): `K = E⁻¹ − E⁻¹ a aᵀ E⁻¹ /
    /// (aᵀ E⁻¹ a)` over the whole point (normal and tangent rows).
    ConeFace(f64, f64, f64),
    /// The cone run: on the cone's edge, the ray `t (1, μ d)` (d the k-gon's
    /// vertex direction; stored `μ d`): `K = v vᵀ / (vᵀ E v)`, `v = (1, μ d)`.
    ConeRay(f64, f64),
}

/// Output and work buffers; reuse across solves.
#[derive(Debug, Clone, Default)]
pub struct PrimalResults {
    /// `(p_n, f_t₁, f_t₂)` per point.
    pub z: Vec<f64>,
    /// Per island: solved (converged).
    pub island_solved: Vec<bool>,
    /// Per island: skipped (not in body space).
    pub island_skipped: Vec<bool>,
    /// Per island: its final natural-map residual (infinite where skipped).
    pub island_residuals: Vec<f64>,
    pub stats: PrimalStats,
    /// Per body: the island's local index (or `u32::MAX`).
    local: Vec<u32>,
    /// The island's bodies (global indices), by local index.
    bodies: Vec<u32>,
    /// Per local body: x = ν − ν_f, the gradient, the step.
    x: Vec<V6>,
    g: Vec<V6>,
    d: Vec<V6>,
    /// Per local body: M⁻¹ Gᵀ z of the residual from the rows
    /// ([`PrimalParams::residual_from_rows`]).
    vz: Vec<V6>,
    /// Per point: the effective CFM E' and q' of the pass, the radius, u, δu = G d,
    /// the projection's impulse and piece.
    e: Vec<[f64; 3]>,
    q: Vec<[f64; 3]>,
    radius: Vec<f64>,
    u: Vec<[f64; 3]>,
    du: Vec<[f64; 3]>,
    zs: Vec<[f64; 3]>,
    normal_on: Vec<bool>,
    tangent: Vec<Tangent>,
    /// Per point: the pieces before the last step.
    prev: Vec<(bool, Tangent)>,
    /// The island's contact graph (local body pairs, sorted) and, per point, the
    /// index of its edge (or `u32::MAX`).
    edges: Vec<(u32, u32)>,
    point_edge: Vec<u32>,
    chol: BlockCholesky,
    /// Anderson's history on the radii: `G(r_j)` and `G(r_j) − r_j` per slot
    /// (`anderson · n` each).
    hist_g: Vec<f64>,
    hist_f: Vec<f64>,
    /// Per point: the pass's proximal centre `z_k`.
    centre: Vec<[f64; 3]>,
    /// Per point: the projected guess, kept over the cone run
    /// ([`PrimalParams::cone_warm`] off).
    guess: Vec<[f64; 3]>,
    /// Newton on the radii: the sliding points S (global indices), per point
    /// whether it is in S, `∂x/∂r_l = H⁻¹ G_lᵀ b_l` per point of S (`nb` each),
    /// the k×k system `(I − diag(μ) ∂p_n/∂r)` and its right-hand side.
    slide: Vec<u32>,
    in_slide: Vec<bool>,
    dxs: Vec<V6>,
    kmat: Vec<f64>,
    krhs: Vec<f64>,
    /// The coupled step changed a radius.
    radii_moved: bool,
    /// The last Newton step's α, and x saved over the block step's trial
    /// ([`PrimalParams::block_pieces`]).
    alpha: f64,
    xs: Vec<V6>,
    /// Per point: the pieces at the line search's point (the block step's
    /// reference).
    line_pieces: Vec<(bool, Tangent)>,
    /// The last solve's `q`, final impulses, and per point its island's
    /// residual (infinite where it did not converge;
    /// [`PrimalParams::guess_memo`]); `memo_q` empty: none.
    memo_q: Vec<f64>,
    memo_z: Vec<f64>,
    memo_r: Vec<f64>,
    /// The running pass's index and the Newton steps and factorizations
    /// counted when it began ([`PrimalStats::pass_runs`]).
    pass_mark: Option<(usize, usize, usize)>,
    /// With [`PrimalParams::pass_trace`]: the solve's passes and islands' ends
    /// (lcp32), and per point the island's first pass's radii.
    pub pass_trace: Vec<PassRecord>,
    trace_r0: Vec<f64>,
    /// The safeguard's last radii fixed-point residual
    /// ([`PrimalParams::anderson_safeguard`]).
    radius_res_prev: f64,
    /// The solve has a guess.
    warm: bool,
    /// The cone run is on ("The cone run first"): the points' impulses are
    /// the weighted projections onto their cones, `radius` holds μ.
    cone: bool,
    /// `chol` holds H factored at the pieces `fact_pieces` (per point).
    fact_valid: bool,
    fact_pieces: Vec<(bool, Tangent)>,
    /// The soft identification's inner centre and last pieces (per point).
    soft_y: Vec<[f64; 3]>,
    soft_pieces: Vec<(bool, Tangent)>,
    /// The k-gon's edge normals and vertex directions (unit, as
    /// [`PolygonTable::directions`] gives them) and the breakpoint line
    /// search's `(α, jump of f'')` list.
    poly_n: Vec<(f64, f64)>,
    poly_v: Vec<(f64, f64)>,
    breaks: Vec<Break>,
    /// The DoF-space path ("Articulated islands"): per block its offset in
    /// the island vectors (or `u32::MAX`), the island's blocks, x, ∇f, the
    /// step and a scratch vector, the dense H and its factor (row-major), and
    /// `K J` of one side.
    dof_at: Vec<u32>,
    dof_blocks: Vec<u32>,
    /// `∂x/∂r_l` of the sliding points in DoF space (k columns of nx).
    dxd: Vec<f64>,
    /// The island being solved in DoF space has a factored block (its
    /// residual without W, [`PrimalSolver::dof_residual`]).
    dof_lean: bool,
    /// The island is one factored block (a robot's tree, [`DofRows::parent`])
    /// whose points each act on it from one side: H keeps the tree's
    /// sparsity and is factored as `H = Lᵀ L` along it ([`tree_cholesky`],
    /// lcp21); the block's index. `fact_tree`: the factor in `hd` is such.
    dof_tree: Option<u32>,
    fact_tree: bool,
    /// The island's rows of G are read by their non-zero columns
    /// ([`SPARSE_SIDE`], lcp22).
    dof_sparse: bool,
    /// Per point (lcp21): its sides' non-zero DoF columns at
    /// `nzc[nz_at[i][s]..nz_at[i][s + 1]]` (ascending), listed once per
    /// island solve; with `dof_tree`, each DoF's ancestors as runs of
    /// consecutive DoFs (nearest first, `(lo, hi)` for hi, …, lo; lcp22: were listed
    /// one by one) at `anc[anc_at[k]..anc_at[k + 1]]`.
    nzc: Vec<u32>,
    nz_at: Vec<[u32; 3]>,
    anc: Vec<(u32, u32)>,
    anc_at: Vec<u32>,
    xd: Vec<f64>,
    gd: Vec<f64>,
    dd: Vec<f64>,
    td: Vec<f64>,
    hd: Vec<f64>,
    kj: Vec<f64>,
}

/// A breakpoint of the line search: `(α, jump of f'')`, ordered by α (then
/// the jump) reversed, so that `BinaryHeap` pops the smallest α first.
#[derive(Debug, Clone, Copy, Default)]
struct Break(f64, f64);

impl PartialEq for Break {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}

impl Eq for Break {}

impl PartialOrd for Break {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Break {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.0.total_cmp(&self.0).then(other.1.total_cmp(&self.1))
    }
}

impl PrimalResults {
    /// Buffers for `points` contact points and `bodies` bodies.
    pub fn with_capacity(points: usize, bodies: usize) -> Self {
        PrimalResults {
            z: Vec::with_capacity(3 * points),
            island_solved: Vec::with_capacity(points),
            island_skipped: Vec::with_capacity(points),
            island_residuals: Vec::with_capacity(points),
            local: Vec::with_capacity(bodies),
            bodies: Vec::with_capacity(bodies),
            x: Vec::with_capacity(bodies),
            g: Vec::with_capacity(bodies),
            d: Vec::with_capacity(bodies),
            vz: Vec::with_capacity(bodies),
            xs: Vec::with_capacity(bodies),
            e: Vec::with_capacity(points),
            q: Vec::with_capacity(points),
            radius: Vec::with_capacity(points),
            u: Vec::with_capacity(points),
            du: Vec::with_capacity(points),
            zs: Vec::with_capacity(points),
            normal_on: Vec::with_capacity(points),
            tangent: Vec::with_capacity(points),
            prev: Vec::with_capacity(points),
            centre: Vec::with_capacity(points),
            guess: Vec::with_capacity(points),
            edges: Vec::with_capacity(2 * points),
            point_edge: Vec::with_capacity(points),
            chol: BlockCholesky::with_capacity(bodies),
            slide: Vec::with_capacity(points),
            in_slide: Vec::with_capacity(points),
            fact_pieces: Vec::with_capacity(points),
            soft_y: Vec::with_capacity(points),
            soft_pieces: Vec::with_capacity(points),
            line_pieces: Vec::with_capacity(points),
            memo_q: Vec::with_capacity(3 * points),
            memo_z: Vec::with_capacity(3 * points),
            memo_r: Vec::with_capacity(points),
            dxs: Vec::with_capacity(RADIUS_NEWTON_MAX.min(points) * bodies),
            kmat: Vec::with_capacity(RADIUS_NEWTON_MAX * RADIUS_NEWTON_MAX),
            krhs: Vec::with_capacity(RADIUS_NEWTON_MAX),
            hist_g: Vec::with_capacity(3 * ANDERSON_MAX * points),
            hist_f: Vec::with_capacity(3 * ANDERSON_MAX * points),
            poly_n: Vec::with_capacity(64),
            poly_v: Vec::with_capacity(64),
            breaks: Vec::with_capacity(4 * points),
            ..Default::default()
        }
    }
}

/// The primal (body-space) Newton solver.
#[derive(Debug, Clone, Copy, Default)]
pub struct PrimalSolver {
    pub params: PrimalParams,
}

/// Euclidean-weighted projection of `y` onto the regular k-gon of circumradius
/// `r` (vertices `r (cos 2πj/k, sin 2πj/k)`) in the norm `‖v‖² = e₁ v₁² + e₂ v₂²`:
/// inside, `y`; outside, the nearest point (in that norm) over the k edges'
/// segments. Returns the point and its piece.
fn project_polygon_weighted(
    y: (f64, f64),
    r: f64,
    e: (f64, f64),
    t: &PolygonTable,
) -> ((f64, f64), Tangent) {
    if r.is_nan() || r <= 0.0 || t.k < 3 {
        return ((0.0, 0.0), Tangent::Fixed);
    }
    let (ch, sh) = t.half;
    let (best, _) = t.most_aligned(y.0, y.1, t.half);
    if best <= r * ch {
        return (y, Tangent::Stick);
    }
    let mut out = ((0.0, 0.0), Tangent::Fixed);
    let mut dist = f64::INFINITY;
    for (bc, bs) in t.directions(t.half) {
        // The edge of outward normal (bc, bs): its vertices, as in
        // `project_polygon_with`.
        let (vx0, vy0) = (r * (bc * ch + bs * sh), r * (bs * ch - bc * sh));
        let (vx1, vy1) = (r * (bc * ch - bs * sh), r * (bs * ch + bc * sh));
        let (ex, ey) = (vx1 - vx0, vy1 - vy0);
        let den = e.0 * ex * ex + e.1 * ey * ey;
        let s = ((e.0 * (y.0 - vx0) * ex + e.1 * (y.1 - vy0) * ey) / den).clamp(0.0, 1.0);
        let (px, py) = (vx0 + s * ex, vy0 + s * ey);
        let dd = e.0 * (px - y.0) * (px - y.0) + e.1 * (py - y.1) * (py - y.1);
        if dd < dist {
            dist = dd;
            let piece = if s > 0.0 && s < 1.0 {
                Tangent::Edge(-bs, bc)
            } else {
                Tangent::Fixed
            };
            out = ((px, py), piece);
        }
    }
    out
}

/// The `E`-weighted projection of `y` onto the polyhedral friction cone
/// `K = {(p_n, f_t): ν_jᵀ f_t ≤ μ cos(π/k) p_n, j = 1…k}` (ν_j the k-gon's
/// edge normals: `f_t ∈ μ p_n·k-gon`, eq. (5)'s cone; `p_n ≥ 0` follows for
/// k ≥ 3), in the norm `‖v‖² = Σ e_a v_a²` ("The cone run first"). Its pieces:
/// inside (`y`, `(true, Stick)`), a face (the projection onto the face's plane
/// when it lies in K, [`Tangent::ConeFace`]), an edge of the cone (the ray of a
/// k-gon vertex, [`Tangent::ConeRay`]), the apex (`(false, Fixed)`); outside K
/// the nearest of the candidates that lie in K (the projection is one of them).
/// A zero or invalid μ (or k < 3): the half-line `f_t = 0`, as a zero radius.
/// Returns the point, whether its normal row is loaded, and its piece.
pub fn project_cone_weighted(
    y: [f64; 3],
    mu: f64,
    e: &[f64; 3],
    t: &PolygonTable,
) -> ([f64; 3], bool, Tangent) {
    if mu.is_nan() || mu <= 0.0 || t.k < 3 {
        let pn = y[0].max(0.0);
        return ([pn, 0.0, 0.0], pn > 0.0, Tangent::Fixed);
    }
    let ch = t.half.0;
    let a0 = -mu * ch;
    let (best, _) = t.most_aligned(y[1], y[2], t.half);
    if best + a0 * y[0] <= 0.0 {
        return (y, true, Tangent::Stick);
    }
    let dist = |p: &[f64; 3]| {
        e[0] * (p[0] - y[0]) * (p[0] - y[0])
            + e[1] * (p[1] - y[1]) * (p[1] - y[1])
            + e[2] * (p[2] - y[2]) * (p[2] - y[2])
    };
    // The apex.
    let mut out = ([0.0; 3], false, Tangent::Fixed);
    let mut dd = dist(&out.0);
    // The cone's edges: the rays t (1, μ d_m), t > 0.
    for (c, s) in t.directions((1.0, 0.0)) {
        let (v1, v2) = (mu * c, mu * s);
        let num = e[0] * y[0] + e[1] * v1 * y[1] + e[2] * v2 * y[2];
        if num <= 0.0 {
            continue;
        }
        let tt = num / (e[0] + e[1] * v1 * v1 + e[2] * v2 * v2);
        let p = [tt, tt * v1, tt * v2];
        let d = dist(&p);
        if d < dd {
            dd = d;
            out = (p, true, Tangent::ConeRay(v1, v2));
        }
    }
    // The faces: y's projection onto the face's plane, where it lies in K.
    for (n1, n2) in t.directions(t.half) {
        let ay = a0 * y[0] + n1 * y[1] + n2 * y[2];
        if ay <= 0.0 {
            continue;
        }
        let s = ay / (a0 * a0 / e[0] + n1 * n1 / e[1] + n2 * n2 / e[2]);
        let p = [
            y[0] - s * a0 / e[0],
            y[1] - s * n1 / e[1],
            y[2] - s * n2 / e[2],
        ];
        // In K: every other face's constraint holds (this face's is 0 up to
        // round-off; the face's own normal is the most aligned then).
        let inside = t
            .directions(t.half)
            .all(|(m1, m2)| (m1 == n1 && m2 == n2) || a0 * p[0] + m1 * p[1] + m2 * p[2] <= 0.0);
        if !inside || p[0] <= 0.0 {
            continue;
        }
        let d = dist(&p);
        if d < dd {
            dd = d;
            out = (p, true, Tangent::ConeFace(a0, n1, n2));
        }
    }
    out
}

/// The point's impulse `z*(u) = Π^E_K(−E⁻¹ u)`, whether the normal row is
/// loaded, and the tangent piece.
#[inline]
fn point_impulse(
    u: &[f64; 3],
    e: &[f64; 3],
    r: f64,
    t: &PolygonTable,
) -> ([f64; 3], bool, Tangent) {
    let pn = (-u[0] / e[0]).max(0.0);
    let ((f1, f2), piece) =
        project_polygon_weighted((-u[1] / e[1], -u[2] / e[2]), r, (e[1], e[2]), t);
    ([pn, f1, f2], pn > 0.0, piece)
}

/// [`point_impulse`], or in the cone run (`cone`; `r` is then μ) the
/// weighted projection onto the cone ([`project_cone_weighted`]).
#[inline]
fn impulse(
    u: &[f64; 3],
    e: &[f64; 3],
    r: f64,
    t: &PolygonTable,
    cone: bool,
) -> ([f64; 3], bool, Tangent) {
    if cone {
        project_cone_weighted([-u[0] / e[0], -u[1] / e[1], -u[2] / e[2]], r, e, t)
    } else {
        point_impulse(u, e, r, t)
    }
}

/// `vᵀ K v` for the point's Hessian K (its piece).
#[inline]
fn curvature(v: &[f64; 3], e: &[f64; 3], on: bool, piece: Tangent) -> f64 {
    let mut c = if on { v[0] * v[0] / e[0] } else { 0.0 };
    match piece {
        Tangent::Stick => c += v[1] * v[1] / e[1] + v[2] * v[2] / e[2],
        Tangent::Edge(tx, ty) => {
            let a = tx * v[1] + ty * v[2];
            c += a * a / (e[1] * tx * tx + e[2] * ty * ty);
        }
        Tangent::Fixed => {}
        Tangent::ConeFace(..) | Tangent::ConeRay(..) => {
            let k = hessian(e, on, piece).unwrap_or([[0.0; 3]; 3]);
            let mut c = 0.0;
            for a in 0..3 {
                for b in 0..3 {
                    c += v[a] * k[a][b] * v[b];
                }
            }
            return c;
        }
    }
    c
}

impl PrimalSolver {
    pub fn new(params: PrimalParams) -> Self {
        PrimalSolver { params }
    }

    /// Solves the islands of `problem` that `rows` marks as body space; the
    /// others are skipped (left at the projected guess, `island_skipped`).
    /// `guess`: `3n` impulses (last tick's), projected onto the cones; the
    /// velocities start at `x = M⁻¹ Gᵀ z_guess`.
    pub fn solve_contacts(
        &self,
        problem: &ContactProblem,
        rows: &BodyRows,
        guess: Option<&[f64]>,
        res: &mut PrimalResults,
    ) -> PrimalStatus {
        self.solve_all(problem, rows, None, guess, res)
    }

    fn solve_all(
        &self,
        problem: &ContactProblem,
        rows: &BodyRows,
        dofs: Option<&DofRows>,
        guess: Option<&[f64]>,
        res: &mut PrimalResults,
    ) -> PrimalStatus {
        res.stats = PrimalStats {
            residual: 0.0,
            ..PrimalStats::default()
        };
        let n = problem.n();
        let nb = rows.mass.len();
        let islands = problem.island_start.len().saturating_sub(1);
        refill(&mut res.z, 3 * n, 0.0);
        res.island_solved.clear();
        res.island_skipped.clear();
        res.island_residuals.clear();
        let p = &self.params;
        if problem.validate().is_err()
            || rows.body.len() != n
            || rows.jac.len() != n
            || rows.cfm.len() != n
            || rows.minv.len() != nb
            || rows.ok.len() != islands
            || rows
                .body
                .iter()
                .any(|b| b.iter().any(|&x| x != NO_BODY && x as usize >= nb))
            || !rows
                .cfm
                .iter()
                .all(|e| all_finite(e) && e.iter().all(|&v| v > 0.0))
            || !rows
                .jac
                .iter()
                .all(|j| all_finite(&j[0]) && all_finite(&j[1]))
            || guess.is_some_and(|g| g.len() != 3 * n || !all_finite(g))
            || p.tolerance.is_nan()
            || p.proximal.is_nan()
            || p.proximal < 0.0
            || p.dof_proximal.is_nan()
            || p.dof_proximal < 0.0
        {
            res.stats.residual = f64::INFINITY;
            res.memo_q.clear();
            return PrimalStatus::InvalidProblem;
        }
        res.pass_trace.clear();
        if p.pass_trace {
            refill(&mut res.trace_r0, n, 0.0);
        }
        res.warm = guess.is_some();
        if let Some(g) = guess {
            res.z.copy_from_slice(g);
        }
        for i in 0..n {
            res.z[3 * i] = res.z[3 * i].max(0.0);
        }
        for i in 0..n {
            let z = &res.z;
            let r = problem.radius_with(i, |j| z[3 * j]);
            let z = &mut res.z[3 * i..3 * i + 3];
            (z[1], z[2]) = project_polygon_with(z[1], z[2], r, &problem.table);
        }
        refill(&mut res.local, nb, u32::MAX);
        for v in [&mut res.e, &mut res.q, &mut res.u, &mut res.du, &mut res.zs] {
            refill(v, n, [0.0; 3]);
        }
        refill(&mut res.radius, n, 0.0);
        refill(&mut res.normal_on, n, false);
        refill(&mut res.tangent, n, Tangent::Fixed);
        refill(&mut res.prev, n, (false, Tangent::Fixed));
        refill(&mut res.point_edge, n, u32::MAX);
        let m = p.anderson.min(ANDERSON_MAX);
        refill(&mut res.hist_g, 3 * m * n, 0.0);
        refill(&mut res.hist_f, 3 * m * n, 0.0);
        refill(&mut res.centre, n, [0.0; 3]);
        res.guess.clear();
        if p.cone_first && !p.cone_warm {
            res.guess.resize(n, [0.0; 3]);
        }
        refill(&mut res.in_slide, n, false);
        refill(&mut res.fact_pieces, n, (false, Tangent::Fixed));
        refill(&mut res.soft_pieces, n, (false, Tangent::Fixed));
        refill(&mut res.line_pieces, n, (false, Tangent::Fixed));
        refill(&mut res.soft_y, n, [0.0; 3]);
        let table = &problem.table;
        res.poly_n.clear();
        res.poly_v.clear();
        if table.k >= 3 {
            res.poly_n.extend(table.directions(table.half));
            res.poly_v.extend(table.directions((1.0, 0.0)));
        }
        // At most 1 + (2k + 3) breakpoints per point (the normal row's and the
        // walk's through the k-gon's regions): reserved here, so the search
        // never grows the list mid-solve.
        res.breaks.clear();
        res.breaks.reserve(n * (2 * res.poly_n.len() + 4));
        res.stats.islands = islands;
        let mut status = PrimalStatus::Converged;
        for s in 0..islands {
            let order = &problem.order[problem.island_start[s]..problem.island_start[s + 1]];
            if !rows.ok[s] {
                if let Some(d) = dofs.filter(|d| d.ok[s]) {
                    if let Some((ok, r)) = self.island_dofs(problem, rows, d, order, res) {
                        res.island_solved.push(ok);
                        res.island_skipped.push(false);
                        res.island_residuals.push(r);
                        if ok {
                            res.stats.residual = res.stats.residual.max(r);
                        } else {
                            res.stats.failed_islands += 1;
                            status = PrimalStatus::Unconverged;
                        }
                        continue;
                    }
                }
                res.island_solved.push(false);
                res.island_skipped.push(true);
                res.island_residuals.push(f64::INFINITY);
                res.stats.skipped_islands += 1;
                status = PrimalStatus::Unconverged;
                continue;
            }
            let (ok, r) = self.solve_island(problem, rows, order, res);
            res.island_solved.push(ok);
            res.island_skipped.push(false);
            res.island_residuals.push(r);
            if ok {
                res.stats.residual = res.stats.residual.max(r);
            } else {
                res.stats.failed_islands += 1;
                status = PrimalStatus::Unconverged;
            }
        }
        if p.guess_memo {
            // This solve's rows and answer, for the next solve's test.
            res.memo_q.clear();
            res.memo_q.extend_from_slice(&problem.q);
            res.memo_z.clear();
            res.memo_z.extend_from_slice(&res.z);
            refill(&mut res.memo_r, n, f64::INFINITY);
            for (s, &solved) in res.island_solved.iter().enumerate() {
                if solved {
                    let r = res.island_residuals[s];
                    for &i in &problem.order[problem.island_start[s]..problem.island_start[s + 1]] {
                        res.memo_r[i as usize] = r;
                    }
                }
            }
        }
        status
    }

    /// One island; returns (converged, residual).
    fn solve_island(
        &self,
        problem: &ContactProblem,
        rows: &BodyRows,
        order: &[u32],
        res: &mut PrimalResults,
    ) -> (bool, f64) {
        // The island's bodies and contact graph.
        res.bodies.clear();
        for &i in order {
            for &b in &rows.body[i as usize] {
                if b != NO_BODY && res.local[b as usize] == u32::MAX {
                    res.local[b as usize] = res.bodies.len() as u32;
                    res.bodies.push(b);
                }
            }
        }
        let nb = res.bodies.len();
        let out = if nb == 0 {
            // Every side static: nothing moves, W = E (the placeholder rows).
            (false, f64::INFINITY)
        } else {
            self.island_body_space(problem, rows, order, res)
        };
        if self.params.pass_trace {
            // The first pass's radii against the answer's.
            let (mut d, mut r) = (0.0, 0.0);
            for &i in order {
                let i = i as usize;
                let g = problem.radius_with(i, |j| res.z[3 * j].max(0.0));
                d += (res.trace_r0[i] - g).powi(2);
                r += g * g;
            }
            res.pass_trace.push(PassRecord {
                island: res.island_solved.len() as u32,
                pass: u32::MAX,
                points: order.len() as u32,
                residual: out.1,
                first_radii: (d / r).sqrt(),
                converged: out.0,
                ..PassRecord::default()
            });
        }
        mark_pass(res, None);
        for &b in &res.bodies {
            res.local[b as usize] = u32::MAX;
        }
        out
    }

    fn island_body_space(
        &self,
        problem: &ContactProblem,
        rows: &BodyRows,
        order: &[u32],
        res: &mut PrimalResults,
    ) -> (bool, f64) {
        let p = &self.params;
        let nb = res.bodies.len();
        res.edges.clear();
        for &i in order {
            let [a, b] = rows.body[i as usize];
            if a != NO_BODY && b != NO_BODY && a != b {
                let (la, lb) = (res.local[a as usize], res.local[b as usize]);
                res.edges.push((la.min(lb), la.max(lb)));
            }
        }
        res.edges.sort_unstable();
        res.edges.dedup();
        res.chol.analyze(nb, &res.edges);
        res.fact_valid = false;
        for &i in order {
            let i = i as usize;
            let [a, b] = rows.body[i];
            res.point_edge[i] = if a != NO_BODY && b != NO_BODY && a != b {
                let (la, lb) = (res.local[a as usize], res.local[b as usize]);
                res.chol.edge_index(la, lb).map_or(u32::MAX, |e| e as u32)
            } else {
                u32::MAX
            };
        }
        for v in [&mut res.x, &mut res.g, &mut res.d, &mut res.vz, &mut res.xs] {
            v.clear();
            v.resize(nb, V6::zeros());
        }
        self.start_velocities(rows, order, res);
        let mut residual = f64::INFINITY;
        for &i in order {
            let i = i as usize;
            res.radius[i] = problem.radius_with(i, |j| res.z[3 * j].max(0.0));
            res.centre[i] = [res.z[3 * i], res.z[3 * i + 1], res.z[3 * i + 2]];
        }
        // The cone run first ("The cone run first").
        let mut warm = res.warm;
        let sliding = p.cone_skip_sliding
            && res.warm
            && order.iter().any(|&i| {
                let i = i as usize;
                let r = res.radius[i];
                r > 0.0
                    && problem.table.k >= 3
                    && problem
                        .table
                        .most_aligned(res.z[3 * i + 1], res.z[3 * i + 2], problem.table.half)
                        .0
                        >= r * problem.table.half.0 * (1.0 - 1e-9)
            });
        if p.cone_first && !sliding && problem.patch.is_empty() {
            if !p.cone_warm {
                for &i in order {
                    let i = i as usize;
                    res.guess[i] = res.centre[i];
                }
            }
            match self.cone_run(problem, rows, order, res) {
                None => return (false, f64::INFINITY),
                Some(r) if r <= p.tolerance => return (true, r),
                Some(r) if !r.is_finite() => return (false, r),
                Some(_) => {}
            }
            if p.cone_warm {
                // The passes from the cone run's impulses: radii μ p_n, centre z.
                warm = true;
            } else {
                // The passes from the guess, as without the cone run.
                for &i in order {
                    let i = i as usize;
                    res.z[3 * i..3 * i + 3].copy_from_slice(&res.guess[i]);
                }
                self.start_velocities(rows, order, res);
            }
            for &i in order {
                let i = i as usize;
                res.radius[i] = problem.radius_with(i, |j| res.z[3 * j].max(0.0));
                res.centre[i] = [res.z[3 * i], res.z[3 * i + 1], res.z[3 * i + 2]];
            }
        }
        // The guess is the last solve's converged answer and q moved less
        // than its margin at every point (`guess_memo`): likely converged.
        let memo = p.guess_memo
            && warm
            && res.memo_q.len() == problem.q.len()
            && res.memo_z.len() == res.z.len()
            && order.iter().all(|&i| {
                let i = i as usize;
                let (mq, q) = (&res.memo_q[3 * i..3 * i + 3], &problem.q[3 * i..3 * i + 3]);
                let dq = (q[0] - mq[0]).abs().max((q[1] - mq[1]).hypot(q[2] - mq[2]));
                res.memo_r[i] + dq <= p.tolerance
                    && res.memo_z[3 * i..3 * i + 3] == res.z[3 * i..3 * i + 3]
            });
        if warm && (p.guess_test || memo) {
            res.stats.guess_tested += 1;
            // The guess tested first: converged as it is.
            let r = self.island_residual(problem, rows, order, res);
            let decade = (0..5).find(|&k| r <= p.tolerance * 10f64.powi(k as i32));
            res.stats.guess_residuals[decade.unwrap_or(5)] += 1;
            if r <= p.tolerance {
                res.stats.guess_converged += 1;
                return (true, r);
            }
        }
        let mut kept = 0;
        let (mut best, mut stalled) = (f64::INFINITY, 0);
        // Newton steps on the radii per pass: `radius_newton`, or
        // `radius_newton_on_stall` once the island has stalled.
        let mut radius_steps = p.radius_newton;
        let mut rho_prev = p.proximal;
        res.radius_res_prev = f64::INFINITY;
        for pass in 0..p.max_passes {
            let (it0, fa0) = (res.stats.iterations, res.stats.factorizations);
            res.stats.passes += 1;
            mark_pass(res, Some(pass));
            // The proximal centre and the radii as set, at the pass's ρ ("The
            // ρ continuation"; a new ρ is a new H).
            let rho = if p.rho_start > p.proximal {
                p.proximal.max(p.rho_start * p.rho_ratio.powi(pass as i32))
            } else {
                p.proximal
            };
            if rho != rho_prev {
                res.fact_valid = false;
                rho_prev = rho;
            }
            set_proximal(problem, rows, order, res, rho);
            // Newton on f.
            if pass == 0
                && warm
                && p.first_radii_scale != 1.0
                && p.first_radii_resting <= 0.0
                && (!p.first_radii_loaded || order.iter().all(|&i| res.radius[i as usize] > 0.0))
            {
                res.stats.first_radii_scaled += 1;
                for &i in order {
                    res.radius[i as usize] *= p.first_radii_scale;
                }
            }
            if pass == 0 && warm && p.warm_pieces {
                self.piece_start(problem, rows, order, res);
                if p.first_radii_scale != 1.0 && p.first_radii_resting > 0.0 {
                    // The points resting at their limit start sticking.
                    if !self.evaluate(rows, order, &problem.table, res) {
                        return (false, f64::INFINITY);
                    }
                    let vmax = p.first_radii_resting * p.tolerance;
                    let mut any = false;
                    for &i in order {
                        let i = i as usize;
                        let (u, e, z) = (&res.u[i], &res.e[i], &res.zs[i]);
                        let wt = (u[1] + e[1] * z[1]).hypot(u[2] + e[2] * z[2]);
                        if res.normal_on[i]
                            && res.radius[i] > 0.0
                            && !matches!(res.tangent[i], Tangent::Stick)
                            && wt <= vmax
                        {
                            res.radius[i] *= p.first_radii_scale;
                            any = true;
                        }
                    }
                    res.stats.first_radii_scaled += usize::from(any);
                }
                if p.warm_radii {
                    // The radii (and the centre) at the warm minimizer's impulses.
                    if !self.evaluate(rows, order, &problem.table, res) {
                        return (false, f64::INFINITY);
                    }
                    // Guarded: only where the minimizer keeps the guess's
                    // pieces (it is then the first pass's QP solution, and
                    // its `μ p_n` the plain update of the guess's radii).
                    let held = res.fact_valid
                        && order.iter().all(|&i| {
                            let i = i as usize;
                            res.fact_pieces[i] == (res.normal_on[i], res.tangent[i])
                        });
                    if p.warm_radii_guarded && !held {
                        res.stats.warm_radii_refused += 1;
                    }
                    let take = !p.warm_radii_guarded || held;
                    for &i in order.iter().filter(|_| take) {
                        let i = i as usize;
                        res.radius[i] = problem.radius_with(i, |j| res.zs[j][0].max(0.0));
                        if p.warm_centre {
                            res.centre[i] = res.zs[i];
                        }
                    }
                    if p.warm_centre && take {
                        set_proximal(problem, rows, order, res, p.proximal);
                    }
                }
            }
            if pass == 0 && p.pass_trace {
                for &i in order {
                    res.trace_r0[i as usize] = res.radius[i as usize];
                }
            }
            let Some(mut factor_ok) = self.inner_newton(rows, order, problem, res) else {
                return (false, f64::INFINITY);
            };
            // Newton on the radii at this centre ("Newton on the radii").
            for _ in 0..radius_steps {
                if radius_offset(problem, order, res) <= RADIUS_TOL * p.tolerance {
                    break;
                }
                match self.radius_step(problem, rows, order, factor_ok, res) {
                    None => return (false, f64::INFINITY),
                    Some(true) => {}
                    Some(false) => {
                        for &i in order {
                            let i = i as usize;
                            res.radius[i] = problem.radius_with(i, |j| res.zs[j][0]);
                        }
                    }
                }
                let Some(ok) = self.inner_newton(rows, order, problem, res) else {
                    return (false, f64::INFINITY);
                };
                factor_ok = ok;
            }
            for &i in order {
                let i = i as usize;
                res.z[3 * i..3 * i + 3].copy_from_slice(&res.zs[i]);
            }
            residual = self.island_residual(problem, rows, order, res);
            if p.pass_trace {
                let (its, fas) = (res.stats.iterations - it0, res.stats.factorizations - fa0);
                trace_pass(problem, order, res, (pass, its, fas), residual, rho);
            }
            if residual <= p.tolerance {
                return (true, residual);
            }
            if !residual.is_finite() {
                return (false, residual);
            }
            // An island whose residual stops falling is given up early.
            if residual < 0.5 * best || rho > p.proximal {
                stalled = 0;
            } else {
                stalled += 1;
                if p.stall_passes > 0 && stalled >= p.stall_passes {
                    if radius_steps > 0 || p.radius_newton_on_stall == 0 {
                        return (false, residual);
                    }
                    // Stalled on the radii passes: Newton on the radii from here.
                    radius_steps = p.radius_newton_on_stall;
                    stalled = 0;
                }
            }
            best = best.min(residual);
            // The next centre and radii: with Newton on the radii, the centre
            // at z and its radii (already consistent with it); else Anderson on
            // the pass map z_k ↦ z (the centre, radii μ max(0, p_n) of it), or
            // on r ↦ μ p_n(QP_r) with the centre at z, or the plain update.
            let m = p.anderson.min(ANDERSON_MAX);
            if radius_steps > 0 {
                for &i in order {
                    let i = i as usize;
                    res.centre[i] = res.zs[i];
                    res.radius[i] = problem.radius_with(i, |j| res.z[3 * j].max(0.0));
                }
            } else if p.anderson_centre {
                if m < 2 || !anderson_centre(order, res, m, &mut kept) {
                    for &i in order {
                        let i = i as usize;
                        res.centre[i] = res.zs[i];
                    }
                }
                for &i in order {
                    let i = i as usize;
                    res.radius[i] = problem.radius_with(i, |j| res.centre[j][0].max(0.0));
                }
            } else {
                for &i in order {
                    let i = i as usize;
                    res.centre[i] = res.zs[i];
                }
                // The safeguard: the radii's fixed-point residual did not
                // fall since the last pass, so the last extrapolation did not
                // help; the plain update, Anderson's history restarted.
                let guard = p.anderson_safeguard && {
                    let f = radius_residual(problem, order, res);
                    let up = kept > 0 && f >= res.radius_res_prev;
                    res.radius_res_prev = f;
                    if up {
                        kept = 0;
                        res.stats.anderson_rejected += 1;
                    }
                    up
                };
                if guard || m < 2 || !anderson(problem, order, res, m, &mut kept) {
                    for &i in order {
                        let i = i as usize;
                        res.radius[i] = problem.radius_with(i, |j| res.z[3 * j].max(0.0));
                    }
                }
            }
        }
        (false, residual)
    }

    /// `x = M⁻¹ Gᵀ z` (the warm start's velocities) from the impulses `z`.
    fn start_velocities(&self, rows: &BodyRows, order: &[u32], res: &mut PrimalResults) {
        minv_gt(rows, order, (&res.local, &res.bodies), &res.z, &mut res.x);
    }

    /// The island's natural-map residual of `res.z` (the coupled LCP's, on W):
    /// [`contact_residual`], or from the rows ([`PrimalParams::residual_from_rows`],
    /// lcp26): `w = G v + E z + q`, `v = M⁻¹ Gᵀ z` per body (`res.vz`).
    fn island_residual(
        &self,
        problem: &ContactProblem,
        rows: &BodyRows,
        order: &[u32],
        res: &mut PrimalResults,
    ) -> f64 {
        if !self.params.residual_from_rows {
            return contact_residual(problem, order, &res.z);
        }
        minv_gt(rows, order, (&res.local, &res.bodies), &res.z, &mut res.vz);
        let mut out = 0.0_f64;
        for &i in order {
            let i = i as usize;
            let z = &res.z[3 * i..3 * i + 3];
            let e = rows.cfm[i];
            let mut r = [0.0; 3];
            for s in 0..2 {
                let b = rows.body[i][s];
                if b != NO_BODY {
                    let v = j_times(&rows.jac[i][s], &res.vz[res.local[b as usize] as usize]);
                    for a in 0..3 {
                        r[a] += v[a];
                    }
                }
            }
            for a in 0..3 {
                r[a] += problem.q[3 * i + a] + e[a] * z[a];
            }
            let x = natural_map(
                z,
                &r,
                problem.radius_with(i, |j| res.z[3 * j]),
                &problem.table,
            );
            if x.is_nan() {
                return f64::INFINITY;
            }
            out = out.max(x);
        }
        out
    }

    /// The cone run ("The cone run first"): Newton on the dual of the convex QP
    /// over the cones `μ_i p_n·k-gon` (the radius inside the feasible set),
    /// at the proximal weight `cone_proximal` about the guess, from the
    /// minimizer of the guess's cone pieces (with a guess and `warm_pieces`).
    /// Leaves its impulses in `z` (and `zs`) and returns the LCP's residual
    /// of them ([`contact_residual`]); None on a failed factorization or a
    /// non-finite value. The factor is not kept past it.
    fn cone_run(
        &self,
        problem: &ContactProblem,
        rows: &BodyRows,
        order: &[u32],
        res: &mut PrimalResults,
    ) -> Option<f64> {
        let p = &self.params;
        res.stats.cone_runs += 1;
        let it0 = res.stats.iterations;
        for &i in order {
            let i = i as usize;
            res.radius[i] = problem.mu[i];
        }
        res.cone = true;
        set_proximal(problem, rows, order, res, p.cone_proximal);
        if res.warm && p.warm_pieces {
            self.cone_piece_start(problem, rows, order, res);
        }
        let mut r = f64::INFINITY;
        for run in 0..p.cone_runs.max(1) {
            if run > 0 {
                // The next proximal iteration: the centre at the last impulses.
                for &i in order {
                    let i = i as usize;
                    res.centre[i] = res.zs[i];
                }
                set_proximal(problem, rows, order, res, p.cone_proximal);
            }
            if self.inner_newton(rows, order, problem, res).is_none() {
                r = f64::NAN;
                break;
            }
            for &i in order {
                let i = i as usize;
                res.z[3 * i..3 * i + 3].copy_from_slice(&res.zs[i]);
            }
            let last = r;
            r = self.island_residual(problem, rows, order, res);
            if r <= p.tolerance || !r.is_finite() || r > 0.5 * last || p.cone_proximal == 0.0 {
                break;
            }
        }
        res.cone = false;
        res.fact_valid = false;
        res.stats.cone_iterations += res.stats.iterations - it0;
        if r.is_nan() {
            return None;
        }
        if r <= p.tolerance {
            res.stats.cone_converged += 1;
        }
        Some(r)
    }

    /// The cone run's warm start: the cone pieces of the (projected) guess
    /// z_g — the apex where `p_n = 0`; inside where `f_t` is inside the k-gon
    /// of radius μ p_n (to 1e-9 of it); on the cone's edge at a vertex; else on
    /// the face of the most aligned edge — and `x` the minimizer of `f` on
    /// them ([`Self::minimize_on_pieces`], one factorization).
    fn cone_piece_start(
        &self,
        problem: &ContactProblem,
        rows: &BodyRows,
        order: &[u32],
        res: &mut PrimalResults,
    ) {
        let table = &problem.table;
        let ch = table.half.0;
        for &i in order {
            let i = i as usize;
            let (zn, f1, f2) = (res.z[3 * i], res.z[3 * i + 1], res.z[3 * i + 2]);
            let mu = problem.mu[i];
            let r = mu * zn;
            (res.normal_on[i], res.tangent[i]) = if zn <= 0.0 {
                (false, Tangent::Fixed)
            } else if mu.is_nan() || mu <= 0.0 || table.k < 3 {
                (true, Tangent::Fixed)
            } else {
                let (best, (bc, bs)) = table.most_aligned(f1, f2, table.half);
                let (_, (vc, vs)) = table.most_aligned(f1, f2, (1.0, 0.0));
                if best < r * ch * (1.0 - 1e-9) {
                    (true, Tangent::Stick)
                } else if (f1 - r * vc).hypot(f2 - r * vs) <= 1e-9 * r {
                    (true, Tangent::ConeRay(mu * vc, mu * vs))
                } else {
                    (true, Tangent::ConeFace(-mu * ch, bc, bs))
                }
            };
        }
        self.minimize_on_pieces(rows, order, res, ch, false);
    }

    /// The warm start's pieces ("Warm start"): the pieces of the (projected)
    /// guess z_g at the radii μ p_n(z_g) — loaded where `p_n > 0`; sticking
    /// inside the k-gon, on an edge or at a vertex on its boundary (to 1e-9 of
    /// the radius) — and `x` the minimizer of `f` on them: `H_P x = Σ_i G_iᵀ
    /// z_P(q'_i)` with `z_P(u) = −K_P u + b_P r` the pieces' affine impulse
    /// (one factorization). When the pieces persist that is the pass's
    /// solution; else the inner Newton goes on from it. A failed factorization
    /// leaves x at `M⁻¹ Gᵀ z_g`.
    fn piece_start(
        &self,
        problem: &ContactProblem,
        rows: &BodyRows,
        order: &[u32],
        res: &mut PrimalResults,
    ) {
        let ch = problem.table.half.0;
        pieces_of_impulses(&problem.table, order, res);
        self.minimize_on_pieces(rows, order, res, ch, false);
    }

    /// `x` the minimizer of `f` on the current pieces (`normal_on`, `tangent`):
    /// `H_P x = Σ_i G_iᵀ z_P(q'_i)`, `z_P(u) = −K_P u + b_P r` (one
    /// factorization, or none when the kept factor is H at these pieces). The
    /// vertex pieces' impulses are taken from `zs` (`from_zs`, the iterate's
    /// impulses) or from `z` (the guess). A failed factorization leaves x as it
    /// was.
    fn minimize_on_pieces(
        &self,
        rows: &BodyRows,
        order: &[u32],
        res: &mut PrimalResults,
        ch: f64,
        from_zs: bool,
    ) {
        res.stats.iterations += 1;
        if !self.factor_at_pieces(rows, order, res) {
            return;
        }
        for v in res.d.iter_mut() {
            *v = V6::zeros();
        }
        for &i in order {
            let i = i as usize;
            let (q, e, r) = (res.q[i], res.e[i], res.radius[i]);
            let zg = if from_zs {
                res.zs[i]
            } else {
                [res.z[3 * i], res.z[3 * i + 1], res.z[3 * i + 2]]
            };
            let mut z = [0.0; 3];
            if res.cone {
                // The cone's projection is linear on each piece: z = −K q.
                if let Some(k) = hessian(&e, res.normal_on[i], res.tangent[i]) {
                    for (a, za) in z.iter_mut().enumerate() {
                        *za = -(k[a][0] * q[0] + k[a][1] * q[1] + k[a][2] * q[2]);
                    }
                }
            } else {
                z = piece_impulse((&q, &e, r), &zg, (res.normal_on[i], res.tangent[i]), ch);
            }
            for s in 0..2 {
                let b = rows.body[i][s];
                if b != NO_BODY {
                    res.d[res.local[b as usize] as usize] += jt_times(&rows.jac[i][s], &z);
                }
            }
        }
        res.chol.solve(&mut res.d);
        if res.d.iter().all(|v| v.iter().all(|c| c.is_finite())) {
            res.x.copy_from_slice(&res.d);
        }
    }

    /// The pass's Newton iteration on `f` at the frozen radii and centre, from
    /// the current x: until the frozen residual is below half the tolerance, a
    /// step keeps every point's piece (it was the piece's exact minimizer), or
    /// the step budget. `Some(factor_ok)`: whether `chol` holds H at the
    /// current pieces; None on a failed factorization or a non-finite value.
    fn inner_newton(
        &self,
        rows: &BodyRows,
        order: &[u32],
        problem: &ContactProblem,
        res: &mut PrimalResults,
    ) -> Option<bool> {
        let p = &self.params;
        let table = &problem.table;
        // Not on face patches (lcp33): its radius step is the point's own.
        let coupled = (p.coupled && !res.cone && problem.patch.is_empty()).then_some(problem);
        if !self.evaluate(rows, order, table, res) {
            return None;
        }
        let mut factor_ok = false;
        // The soft identification ("Soft identification"): after `soft_after`
        // steps that changed pieces, once per run.
        let soft = p.soft_proximal > p.proximal && p.soft_stages > 0 && !p.coupled && !res.cone;
        let mut changed = 0;
        for _ in 0..p.max_iterations {
            if self.frozen_residual(rows, order, table, res) <= 0.5 * p.tolerance
                && (coupled.is_none()
                    || radius_offset(problem, order, res) <= RADIUS_TOL * p.tolerance)
            {
                break;
            }
            if soft && changed == p.soft_after {
                changed += 1;
                self.soft_identify(rows, order, problem, res)?;
                factor_ok = false;
                continue;
            }
            for &i in order {
                let i = i as usize;
                res.prev[i] = (res.normal_on[i], res.tangent[i]);
            }
            res.radii_moved = false;
            let moved = self.newton_step(rows, order, coupled, res, table)?;
            if !moved && !res.radii_moved {
                // x did not move: the factor is H at these pieces.
                factor_ok = true;
                break;
            }
            if !self.evaluate(rows, order, table, res) {
                return None;
            }
            // The block step ("The block step"): the minimizer of the full
            // step's pieces, kept where f is lower there.
            if p.block_pieces && coupled.is_none() && !res.cone && res.alpha < 1.0 {
                let ch = problem.table.half.0;
                if self.block_step(rows, order, table, ch, res)? {
                    factor_ok = res.fact_valid
                        && order.iter().all(|&i| {
                            let i = i as usize;
                            res.fact_pieces[i] == (res.normal_on[i], res.tangent[i])
                        });
                    if factor_ok {
                        break;
                    }
                    changed += 1;
                    continue;
                }
            }
            if p.piece_trace {
                let t = &mut res.stats.piece_changes;
                t[0] += 1;
                t[1] += usize::from(res.alpha < 1.0);
                let mut c = 0;
                for &i in order {
                    let i = i as usize;
                    let (on0, t0) = res.prev[i];
                    let (on1, t1) = (res.normal_on[i], res.tangent[i]);
                    if !on0 && on1 {
                        t[2] += 1;
                        c += 1;
                    } else if on0 && !on1 {
                        t[3] += 1;
                        c += 1;
                    } else if on1 && t0 != t1 {
                        t[4] += 1;
                        c += 1;
                    }
                }
                match c {
                    0 => {}
                    1 => t[5] += 1,
                    2 => t[6] += 1,
                    _ => t[7] += 1,
                }
            }
            // The same pieces before and after the step: the step was the
            // exact minimizer of the piece's quadratic (up to round-off).
            factor_ok = order.iter().all(|&i| {
                let i = i as usize;
                res.prev[i] == (res.normal_on[i], res.tangent[i])
            });
            if factor_ok
                && (coupled.is_none()
                    || radius_offset(problem, order, res) <= RADIUS_TOL * p.tolerance)
            {
                break;
            }
            changed += 1;
        }
        Some(factor_ok)
    }

    /// The soft identification ("Soft identification"): at the same centre and
    /// radii, Newton on `f` at ρ = `soft_proximal` from the current x (then at
    /// each further stage's smaller ρ from the minimizer of the last stage's
    /// pieces) until a step keeps the pieces, the frozen residual is below half
    /// the tolerance, or `max_iterations`; then, back at ρ = `proximal`, x the
    /// minimizer of the last stage's pieces ([`Self::minimize_on_pieces`]: one
    /// factorization), evaluated. None on a failed factorization or a
    /// non-finite value.
    fn soft_identify(
        &self,
        rows: &BodyRows,
        order: &[u32],
        problem: &ContactProblem,
        res: &mut PrimalResults,
    ) -> Option<()> {
        let p = &self.params;
        let table = &problem.table;
        let ch = table.half.0;
        res.stats.soft_runs += 1;
        let ratio = p.proximal / p.soft_proximal;
        for &i in order {
            let i = i as usize;
            res.soft_y[i] = res.centre[i];
        }
        for stage in 0..p.soft_stages {
            let sigma = p.soft_proximal * ratio.powf(stage as f64 / p.soft_stages as f64);
            for j in 0..p.soft_prox.max(1) {
                set_proximal_soft(problem, rows, order, res, p.proximal, sigma);
                if j == 0 {
                    res.fact_valid = false;
                    if stage > 0 {
                        self.minimize_on_pieces(rows, order, res, ch, true);
                        res.stats.soft_iterations += 1;
                    }
                }
                if !self.evaluate(rows, order, table, res) {
                    return None;
                }
                for _ in 0..p.max_iterations {
                    if self.frozen_residual(rows, order, table, res) <= 0.5 * p.tolerance {
                        break;
                    }
                    for &i in order {
                        let i = i as usize;
                        res.prev[i] = (res.normal_on[i], res.tangent[i]);
                    }
                    res.stats.soft_iterations += 1;
                    if !self.newton_step(rows, order, None, res, table)? {
                        break;
                    }
                    if !self.evaluate(rows, order, table, res) {
                        return None;
                    }
                    if order.iter().all(|&i| {
                        let i = i as usize;
                        res.prev[i] == (res.normal_on[i], res.tangent[i])
                    }) {
                        break;
                    }
                }
                // The inner centre y ← z*, until the pieces settle.
                let settled = j > 0
                    && order.iter().all(|&i| {
                        let i = i as usize;
                        res.soft_pieces[i] == (res.normal_on[i], res.tangent[i])
                    });
                for &i in order {
                    let i = i as usize;
                    res.soft_y[i] = res.zs[i];
                    res.soft_pieces[i] = (res.normal_on[i], res.tangent[i]);
                }
                if settled {
                    break;
                }
            }
        }
        set_proximal(problem, rows, order, res, p.proximal);
        res.fact_valid = false;
        self.minimize_on_pieces(rows, order, res, ch, true);
        let ok = self.evaluate(rows, order, table, res);
        if order.iter().all(|&i| {
            let i = i as usize;
            res.fact_pieces[i] == (res.normal_on[i], res.tangent[i])
        }) {
            res.stats.soft_kept += 1;
        }
        ok.then_some(())
    }

    /// The coupled step's radii (`PrimalParams::coupled`), after the frozen
    /// step `d = −H⁻¹ g` at the current pieces: on them the minimizer is
    /// affine in the radii of the sliding points S, `x(r) = x + d + Σ_l ∂x/∂r_l
    /// Δr_l` (`∂x/∂r_l = H⁻¹ G_lᵀ b_l`, one back-solve each), and `p_n(i) =
    /// −(u + G Δx)_n / e_n` on a loaded row: `(I − diag(μ) ∂p_n/∂r) Δr = μ
    /// p_n(x + d) − r` on S, `d += Σ_l Δr_l ∂x/∂r_l`, the other points' radii `μ
    /// max(0, p_n(x + d))`; then the gradient at x under the new radii, and `d`
    /// is the frozen Newton step of the new radii when the pieces hold (else, if
    /// it is no descent direction, `−H⁻¹ g` of the new gradient). False on a
    /// non-finite value.
    fn couple_radii(
        &self,
        problem: &ContactProblem,
        rows: &BodyRows,
        order: &[u32],
        res: &mut PrimalResults,
    ) -> bool {
        let mut k = sliding_set(order, res);
        if k > RADIUS_NEWTON_MAX {
            for &i in order {
                res.in_slide[i as usize] = false;
            }
            k = 0;
        }
        let nb = res.bodies.len();
        if k > 0 {
            slide_columns(problem, rows, res);
            res.kmat.clear();
            res.kmat.resize(k * k, 0.0);
            res.krhs.clear();
            for (a, &i) in res.slide.iter().enumerate() {
                let i = i as usize;
                res.kmat[a * k + a] = 1.0;
                if !res.normal_on[i] {
                    res.krhs.push(-res.radius[i]);
                    continue;
                }
                let en = res.e[i][0];
                let pn = -(res.u[i][0] + normal_of(rows, &res.local, i, &res.d, 0)) / en;
                res.krhs.push(problem.mu[i] * pn - res.radius[i]);
                let c = problem.mu[i] / en;
                for col in 0..k {
                    let gn = normal_of(rows, &res.local, i, &res.dxs, col * nb);
                    // −μ ∂p_n/∂r = μ (G_i ∂x/∂r)_n / e_n.
                    res.kmat[a * k + col] += c * gn;
                }
            }
            if crate::math::solve_dense(&mut res.kmat, &mut res.krhs, k) {
                for (a, &i) in res.slide.iter().enumerate() {
                    let i = i as usize;
                    let r = (res.radius[i] + res.krhs[a]).max(0.0);
                    res.krhs[a] = r - res.radius[i];
                    res.radii_moved |= r != res.radius[i];
                    res.radius[i] = r;
                }
                for (lb, dv) in res.d.iter_mut().enumerate() {
                    for (a, &dr) in res.krhs.iter().enumerate() {
                        *dv += dr * res.dxs[a * nb + lb];
                    }
                }
                if !res.d.iter().all(|v| v.iter().all(|c| c.is_finite())) {
                    return false;
                }
            } else {
                for &i in order {
                    res.in_slide[i as usize] = false;
                }
            }
        }
        for &i in order {
            let i = i as usize;
            if !res.in_slide[i] {
                let pn = -(res.u[i][0] + normal_of(rows, &res.local, i, &res.d, 0)) / res.e[i][0];
                let r = problem.mu[i] * pn.max(0.0);
                res.radii_moved |= r != res.radius[i];
                res.radius[i] = r;
            }
            res.in_slide[i] = false;
        }
        if !res.radii_moved {
            return true;
        }
        if !self.evaluate(rows, order, &problem.table, res) {
            return false;
        }
        let fp0: f64 = res.g.iter().zip(&res.d).map(|(g, d)| g.dot(d)).sum();
        if fp0.is_nan() || fp0 >= 0.0 {
            for (dv, gv) in res.d.iter_mut().zip(res.g.iter()) {
                *dv = -gv;
            }
            res.chol.solve(&mut res.d);
        }
        res.d.iter().all(|v| v.iter().all(|c| c.is_finite()))
    }

    /// One Newton step on the radii of the sliding points at the pass's centre
    /// ("Newton on the radii"): on the pieces of the current x the minimizer is
    /// affine in r, `∂x/∂r_l = H⁻¹ G_lᵀ b_l` (one back-solve per sliding point
    /// l, through the factor of H at these pieces: refactored when `factor_ok`
    /// is false), `∂p_n(i)/∂r_l = −(G_i ∂x/∂r_l)_n / e_n(i)` on a loaded row;
    /// `(I − diag(μ) ∂p_n/∂r) Δr = μ p_n − r` on S, `x += Σ_l Δr_l ∂x/∂r_l`, and
    /// the other points' radii `μ p_n` at the new x. `Some(false)`: nothing
    /// done (no sliding point, too many, or a singular system: the caller
    /// takes the plain update); None on a failed factorization.
    fn radius_step(
        &self,
        problem: &ContactProblem,
        rows: &BodyRows,
        order: &[u32],
        factor_ok: bool,
        res: &mut PrimalResults,
    ) -> Option<bool> {
        let k = sliding_set(order, res);
        if k == 0 || k > RADIUS_NEWTON_MAX {
            for &i in order {
                res.in_slide[i as usize] = false;
            }
            return Some(false);
        }
        if !factor_ok && !self.factor_at_pieces(rows, order, res) {
            return None;
        }
        let nb = res.bodies.len();
        slide_columns(problem, rows, res);
        let gn = |res: &PrimalResults, i: usize, col: usize| {
            normal_of(rows, &res.local, i, &res.dxs, col * nb)
        };
        if !radius_newton_system(problem, order, k, gn, res) {
            return Some(false);
        }
        // The minimizer at the new radii on these pieces.
        for (lb, xv) in res.x.iter_mut().enumerate() {
            for (a, &dr) in res.krhs.iter().enumerate() {
                *xv += dr * res.dxs[a * nb + lb];
            }
        }
        if !res.x.iter().all(|v| v.iter().all(|c| c.is_finite())) {
            return None;
        }
        // The other points' radii: μ p_n at the new x (p_n does not depend on
        // the radii).
        let table = problem.table;
        if !self.evaluate(rows, order, &table, res) {
            return None;
        }
        other_radii(problem, order, res);
        Some(true)
    }

    /// u, z*(u), the pieces and the gradient `g = M x − Gᵀ z*` at the current x.
    /// False on a non-finite value.
    /// The block step ("The block step", lcp31): after a Newton step from
    /// `x₀` whose line search stopped at `x = x₀ + α d`, α < 1, the full
    /// step's point `x₀ + d` is evaluated for its pieces P′ (every row the
    /// step loads, every row it leaves), and x is tried at the minimizer of
    /// f on P′ ([`Self::minimize_on_pieces`], one factorization). The trial is
    /// kept when `f` there is below `f(x)` (so each inner step still lowers
    /// f at least as much as the exact line search's); else x is put back
    /// and evaluated again. `Some(kept)`; None on a non-finite value.
    fn block_step(
        &self,
        rows: &BodyRows,
        order: &[u32],
        table: &PolygonTable,
        ch: f64,
        res: &mut PrimalResults,
    ) -> Option<bool> {
        res.stats.block_trials += 1;
        let f_line = objective(rows, order, res);
        res.xs.copy_from_slice(&res.x);
        for &i in order {
            let i = i as usize;
            res.line_pieces[i] = (res.normal_on[i], res.tangent[i]);
        }
        let rest = 1.0 - res.alpha;
        for (xv, dv) in res.x.iter_mut().zip(res.d.iter()) {
            *xv += rest * dv;
        }
        let mut kept = false;
        if self.evaluate(rows, order, table, res) {
            // The line's pieces, and the rows the full step loads (with their
            // tangent piece there).
            for &i in order {
                let i = i as usize;
                let (on, piece) = res.line_pieces[i];
                if on || !res.normal_on[i] {
                    res.normal_on[i] = on;
                    res.tangent[i] = piece;
                }
            }
            let gained = order
                .iter()
                .filter(|&&i| {
                    let i = i as usize;
                    res.line_pieces[i] != (res.normal_on[i], res.tangent[i])
                })
                .count();
            if gained > 0 {
                self.minimize_on_pieces(rows, order, res, ch, true);
                if self.evaluate(rows, order, table, res) && objective(rows, order, res) < f_line {
                    res.stats.block_accepted += 1;
                    res.stats.block_pieces_gained += gained;
                    kept = true;
                }
            }
        }
        if !kept {
            res.x.copy_from_slice(&res.xs);
            if !self.evaluate(rows, order, table, res) {
                return None;
            }
        }
        Some(kept)
    }

    fn evaluate(
        &self,
        rows: &BodyRows,
        order: &[u32],
        table: &PolygonTable,
        res: &mut PrimalResults,
    ) -> bool {
        for (lb, &b) in res.bodies.iter().enumerate() {
            res.g[lb] = rows.mass[b as usize] * res.x[lb];
        }
        for &i in order {
            let i = i as usize;
            let mut u = res.q[i];
            for s in 0..2 {
                let b = rows.body[i][s];
                if b != NO_BODY {
                    let gx = j_times(&rows.jac[i][s], &res.x[res.local[b as usize] as usize]);
                    for a in 0..3 {
                        u[a] += gx[a];
                    }
                }
            }
            let (z, on, piece) = impulse(&u, &res.e[i], res.radius[i], table, res.cone);
            for s in 0..2 {
                let b = rows.body[i][s];
                if b != NO_BODY {
                    res.g[res.local[b as usize] as usize] -= jt_times(&rows.jac[i][s], &z);
                }
            }
            res.u[i] = u;
            res.zs[i] = z;
            res.normal_on[i] = on;
            res.tangent[i] = piece;
        }
        res.g.iter().all(|g| g.iter().all(|v| v.is_finite()))
    }

    /// The frozen problem's natural-map residual at z*: `w = u + E' z* − G M⁻¹ g`
    /// (exact for `w = (W + ρ D) z* + q'`, the pass's QP, since `M x = g + Gᵀ z*`),
    /// radius frozen. Uses `d` as scratch.
    fn frozen_residual(
        &self,
        rows: &BodyRows,
        order: &[u32],
        table: &PolygonTable,
        res: &mut PrimalResults,
    ) -> f64 {
        for (lb, &b) in res.bodies.iter().enumerate() {
            res.d[lb] = rows.minv[b as usize] * res.g[lb];
        }
        let mut out = 0.0_f64;
        for &i in order {
            let i = i as usize;
            let (z, e) = (res.zs[i], res.e[i]);
            let mut w = [0.0; 3];
            for a in 0..3 {
                w[a] = res.u[i][a] + e[a] * z[a];
            }
            for s in 0..2 {
                let b = rows.body[i][s];
                if b != NO_BODY {
                    let v = j_times(&rows.jac[i][s], &res.d[res.local[b as usize] as usize]);
                    for a in 0..3 {
                        w[a] -= v[a];
                    }
                }
            }
            let r = if res.cone {
                // The cone QP's natural map: z − Π_K(z − w), Euclidean.
                let y = [z[0] - w[0], z[1] - w[1], z[2] - w[2]];
                let (p, _, _) = project_cone_weighted(y, res.radius[i], &[1.0; 3], table);
                (z[0] - p[0])
                    .abs()
                    .max((z[1] - p[1]).abs())
                    .max((z[2] - p[2]).abs())
            } else {
                let en = (z[0] - (z[0] - w[0]).max(0.0)).abs();
                let (p1, p2) = project_polygon_with(z[1] - w[1], z[2] - w[2], res.radius[i], table);
                en.max((z[1] - p1).abs()).max((z[2] - p2).abs())
            };
            if r.is_nan() {
                return f64::INFINITY;
            }
            out = out.max(r);
        }
        out
    }

    /// `chol` holds H at the current pieces: kept when it was factored at the
    /// same pieces in this island (H depends on the pieces and `E'` only, not on
    /// x, the radii or the centre; [`PrimalParams::reuse_factor`]), else
    /// assembled and factored (counted). False on a failed factorization.
    fn factor_at_pieces(&self, rows: &BodyRows, order: &[u32], res: &mut PrimalResults) -> bool {
        // With the factor of H at other pieces in hand, the block columns of the
        // bodies of the points that changed piece are marked ("The factor in
        // part").
        let mut partial = false;
        if self.params.reuse_factor && res.fact_valid {
            let mut changed = false;
            for &i in order {
                let i = i as usize;
                if res.fact_pieces[i] != (res.normal_on[i], res.tangent[i]) {
                    changed = true;
                    if self.params.partial_factor {
                        for b in rows.body[i] {
                            if b != NO_BODY {
                                res.chol.mark_changed(res.local[b as usize] as usize);
                            }
                        }
                    }
                }
            }
            if !changed {
                return true;
            }
            partial = self.params.partial_factor;
        }
        res.stats.factorizations += 1;
        res.fact_valid = false;
        let ok = if partial {
            res.stats.partial_factorizations += 1;
            let before = res.chol.stats;
            let ok = self.factor_hessian::<true>(rows, order, res);
            let after = res.chol.stats;
            res.stats.partial_block_updates += after.partial_updates - before.partial_updates;
            res.stats.partial_block_updates_full +=
                after.partial_full_updates - before.partial_full_updates;
            ok
        } else {
            self.factor_hessian::<false>(rows, order, res)
        };
        if !ok {
            return false;
        }
        for &i in order {
            let i = i as usize;
            res.fact_pieces[i] = (res.normal_on[i], res.tangent[i]);
        }
        res.fact_valid = true;
        true
    }

    /// Assembles `H = M + Σ G_iᵀ K_i G_i` at the current pieces into `chol` and
    /// factors it (not counted here). False on a failed factorization. `PARTIAL`
    /// ("The factor in part"): only the block columns marked in `chol` (closed
    /// upwards over its elimination tree) are assembled again — the same terms in
    /// the same order as the full assembly, the others skipped — and factored
    /// again, the rest of L kept: bit for bit the full factorization.
    fn factor_hessian<const PARTIAL: bool>(
        &self,
        rows: &BodyRows,
        order: &[u32],
        res: &mut PrimalResults,
    ) -> bool {
        let PrimalResults {
            bodies,
            local,
            e,
            normal_on,
            tangent,
            edges,
            point_edge,
            chol,
            ..
        } = res;
        if PARTIAL {
            chol.clear_affected();
        } else {
            chol.clear_values();
        }
        // Whether a block is assembled: all of them, or those of the marked columns.
        let diag_in = |chol: &BlockCholesky, l: usize| !PARTIAL || chol.diag_is_affected(l);
        for (lb, &b) in bodies.iter().enumerate() {
            if diag_in(chol, lb) {
                chol.add_diag(lb, &rows.mass[b as usize]);
            }
        }
        for &i in order {
            let i = i as usize;
            let [b0, b1] = rows.body[i];
            let l0 = (b0 != NO_BODY).then(|| local[b0 as usize] as usize);
            let l1 = (b1 != NO_BODY).then(|| local[b1 as usize] as usize);
            // The point's three blocks: J₀ᵀ K J₀, J₁ᵀ K J₁ and J₀ᵀ K J₁ (on the
            // diagonal when both sides are one body, else on the edge).
            let d0 = l0.filter(|&l| diag_in(chol, l));
            let d1 = l1.filter(|&l| diag_in(chol, l));
            let cross = match (l0, l1) {
                (Some(a), Some(b)) if a == b => diag_in(chol, a),
                (Some(_), Some(_)) => {
                    // An edge index out of range fails below (where K ≠ 0).
                    let ei = point_edge[i] as usize;
                    ei >= edges.len() || !PARTIAL || chol.edge_is_affected(ei)
                }
                _ => false,
            };
            if d0.is_none() && d1.is_none() && !cross {
                continue;
            }
            let Some(k) = hessian(&e[i], normal_on[i], tangent[i]) else {
                continue;
            };
            let j0 = &rows.jac[i][0];
            let j1 = &rows.jac[i][1];
            // K J₁ once for J₁ᵀ K J₁ and J₀ᵀ K J₁ (lcp27: was formed twice; the
            // same products).
            let kj1 = (d1.is_some() || cross).then(|| k_times(&k, j1));
            if let Some(l0) = d0 {
                chol.add_diag(l0, &jt_times_kj(j0, &k_times(&k, j0)));
            }
            if let (Some(l1), Some(kj1)) = (d1, &kj1) {
                chol.add_diag(l1, &jt_times_kj(j1, kj1));
            }
            if let (true, Some(kj1), Some(l0), Some(l1)) = (cross, &kj1, l0, l1) {
                let m = jt_times_kj(j0, kj1);
                if l0 == l1 {
                    chol.add_diag(l0, &(m + m.transpose()));
                } else {
                    let ei = point_edge[i] as usize;
                    if ei >= edges.len() {
                        return false;
                    }
                    chol.add_edge(ei, l0 < l1, &m);
                }
            }
        }
        if PARTIAL {
            chol.refactor_affected()
        } else {
            chol.factor()
        }
    }

    /// One Newton step with the exact line search: H assembled and factored,
    /// `d = −H⁻¹ g`, `x += α d`. `None` on a failed factorization or a
    /// non-finite step; `Some(false)` when the step does not move u.
    fn newton_step(
        &self,
        rows: &BodyRows,
        order: &[u32],
        coupled: Option<&ContactProblem>,
        res: &mut PrimalResults,
        table: &PolygonTable,
    ) -> Option<bool> {
        res.stats.iterations += 1;
        if !self.factor_at_pieces(rows, order, res) {
            return None;
        }
        for (dv, gv) in res.d.iter_mut().zip(res.g.iter()) {
            *dv = -gv;
        }
        res.chol.solve(&mut res.d);
        if !res.d.iter().all(|v| v.iter().all(|c| c.is_finite())) {
            return None;
        }
        if let Some(problem) = coupled {
            if !self.couple_radii(problem, rows, order, res) {
                return None;
            }
        }
        let PrimalResults {
            bodies,
            local,
            x,
            g,
            d,
            e,
            radius,
            u,
            du,
            stats,
            poly_n,
            poly_v,
            breaks,
            cone,
            ..
        } = res;
        // δu = G d and the line search's constant terms.
        let mut moved = false;
        for &i in order {
            let i = i as usize;
            let mut v = [0.0; 3];
            for s in 0..2 {
                let b = rows.body[i][s];
                if b != NO_BODY {
                    let gd = j_times(&rows.jac[i][s], &d[local[b as usize] as usize]);
                    for a in 0..3 {
                        v[a] += gd[a];
                    }
                }
            }
            moved |= v.iter().any(|&c| c != 0.0);
            du[i] = v;
        }
        if !moved {
            return Some(false);
        }
        let (mut a0, mut a1, mut fp0) = (0.0, 0.0, 0.0);
        for (lb, &b) in bodies.iter().enumerate() {
            let md = rows.mass[b as usize] * d[lb];
            a0 += md.dot(&x[lb]);
            a1 += md.dot(&d[lb]);
            fp0 += g[lb].dot(&d[lb]);
        }
        if fp0.is_nan() || fp0 >= 0.0 {
            // No descent left (round-off): the iterate is the minimizer.
            return Some(false);
        }
        let line = Line {
            order,
            u,
            du,
            e,
            radius,
            table,
            cone: *cone,
            a0,
            a1,
            fp0,
        };
        let poly = Polygon {
            normals: poly_n,
            vertices: poly_v,
            half: table.half,
        };
        let p = &self.params;
        // The cone run's pieces have no breakpoint walk: the bracketed search.
        let search = if *cone {
            LineSearch::Bracketed
        } else {
            p.line_search
        };
        let (alpha, evaluations) = match search {
            LineSearch::Bracketed if p.kink_start && !*cone => {
                line.bracketed_from(line.first_load())?
            }
            LineSearch::Bracketed => line.bracketed()?,
            LineSearch::Kinks => line.kinks(&poly, breaks, p.full_kink_list)?,
            LineSearch::Breakpoints => {
                let (alpha, ev, kink, total) = line.breakpoints(&poly, breaks)?;
                stats.line_search_breakpoints += total;
                stats.line_search_kinks += usize::from(kink);
                (alpha, ev)
            }
        };
        stats.line_search_evaluations += evaluations;
        if p.line_search_check && !*cone {
            // The breakpoints against the bracketed search; the kinks' search
            // against the bracketed one.
            let other = match p.line_search {
                LineSearch::Bracketed => line.breakpoints(&poly, breaks)?.0,
                LineSearch::Breakpoints | LineSearch::Kinks => line.bracketed()?.0,
            };
            let (new, old) = match p.line_search {
                LineSearch::Bracketed => (other, alpha),
                LineSearch::Breakpoints | LineSearch::Kinks => (alpha, other),
            };
            stats.line_search_checks += 1;
            let diff = (new - old).abs() / old;
            // The bracketed search's own precision: it stops at |f'| ≤ 1e-13
            // |f'(0)| (α within 1e-13 |f'(0)| / f'') or a step of 1e-12 α; and
            // the floor of f'(α)'s evaluation (its terms' round-off over the
            // slope), below which no search can place the zero.
            let (fp_old, fpp, terms) = line.slope_terms(old);
            let (fp_new, _, _) = line.slope_terms(new);
            let bound = 1e-12 * old + (1e-13 * line.fp0.abs() + 8.0 * f64::EPSILON * terms) / fpp;
            let excess = (new - old).abs() / bound;
            let nan_inf = |v: f64| if v.is_nan() { f64::INFINITY } else { v };
            stats.line_search_alpha_diff = stats.line_search_alpha_diff.max(nan_inf(diff));
            stats.line_search_alpha_excess = stats.line_search_alpha_excess.max(nan_inf(excess));
            if fp_new.abs() <= fp_old.abs() {
                stats.line_search_checks_closer += 1;
            }
            if diff.is_nan() || diff > 1e-12 {
                stats.line_search_checks_above += 1;
            }
        }
        for (xv, dv) in x.iter_mut().zip(d.iter()) {
            *xv += alpha * dv;
        }
        res.alpha = alpha;
        Some(true)
    }
}

/// The line `x + α d` of a Newton step: per point `u` and `δu = G d`, the
/// pass's CFM and radius, and `f'(α) = a0 + α a1 − Σ δu·z*(u + α δu)`
/// (`a0 = dᵀ M x`, `a1 = dᵀ M d`), `f'(0) = fp0 = ∇fᵀ d < 0`.
struct Line<'a> {
    order: &'a [u32],
    u: &'a [[f64; 3]],
    du: &'a [[f64; 3]],
    e: &'a [[f64; 3]],
    radius: &'a [f64],
    table: &'a PolygonTable,
    /// The cone run: `radius` holds μ, the impulses are the cone's.
    cone: bool,
    a0: f64,
    a1: f64,
    fp0: f64,
}

/// The k-gon's unit edge normals `n_j` and vertex directions `v̂_j` (edge j
/// runs from vertex j to vertex j + 1), and `(cos π/k, sin π/k)`.
struct Polygon<'a> {
    normals: &'a [(f64, f64)],
    vertices: &'a [(f64, f64)],
    half: (f64, f64),
}

/// A region of the weighted projection onto the k-gon ("The line search by the
/// breakpoints"): inside (stick), the outer slab of edge j (its projection on
/// the open edge), the wedge of vertex j.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Region {
    Inside,
    Edge(usize),
    Vertex(usize),
}

impl Line<'_> {
    /// `f'(α)` and `f''(α)` (one pass over the points).
    #[inline]
    fn slope(&self, alpha: f64) -> (f64, f64) {
        let (mut fp, mut fpp) = (self.a0 + alpha * self.a1, self.a1);
        for &i in self.order {
            let i = i as usize;
            let (ui, dui) = (&self.u[i], &self.du[i]);
            let ua = [
                ui[0] + alpha * dui[0],
                ui[1] + alpha * dui[1],
                ui[2] + alpha * dui[2],
            ];
            let (z, on, piece) = impulse(&ua, &self.e[i], self.radius[i], self.table, self.cone);
            fp -= dui[0] * z[0] + dui[1] * z[1] + dui[2] * z[2];
            fpp += curvature(dui, &self.e[i], on, piece);
        }
        (fp, fpp)
    }

    /// `f'(α)`, `f''(α)` and the magnitude S of `f'(α)`'s terms for the
    /// check's round-off floor: `|a0| + |α a1| + Σ |δu|·(|u| + |α δu|)/e` (the
    /// impulses' part bounds `|δu·z*|` and its sensitivity to the rounding of
    /// `u(α)`, which `1/e` amplifies).
    fn slope_terms(&self, alpha: f64) -> (f64, f64, f64) {
        let (mut fp, mut fpp) = (self.a0 + alpha * self.a1, self.a1);
        let mut terms = self.a0.abs() + (alpha * self.a1).abs();
        for &i in self.order {
            let i = i as usize;
            let (ui, dui) = (&self.u[i], &self.du[i]);
            let ua = [
                ui[0] + alpha * dui[0],
                ui[1] + alpha * dui[1],
                ui[2] + alpha * dui[2],
            ];
            let (z, on, piece) = impulse(&ua, &self.e[i], self.radius[i], self.table, self.cone);
            let t = dui[0] * z[0] + dui[1] * z[1] + dui[2] * z[2];
            fp -= t;
            // z* = Π(−E⁻¹ u(α)) carries the round-off of u(α) = u + α δu, ε (|u|
            // + |α δu|), amplified by 1/e: near a loaded row's zero |u(α)| ≪ |u|.
            for a in 0..3 {
                terms += dui[a].abs() * ((ui[a].abs() + (alpha * dui[a]).abs()) / self.e[i][a]);
            }
            fpp += curvature(dui, &self.e[i], on, piece);
        }
        (fp, fpp, terms)
    }

    /// [`LineSearch::Bracketed`]: a safeguarded Newton iteration on `f'(α)` from
    /// α = 1, bracketed; stops when `|f'| ≤ 1e-13 |f'(0)|` or the step moves α
    /// by ≤ 1e-12 of it. `(α, evaluations)`; None on a non-finite value.
    fn bracketed(&self) -> Option<(f64, usize)> {
        self.bracketed_from(1.0)
    }

    /// The start of the bracketed search at the first loading kink
    /// ([`PrimalParams::kink_start`]): the least `−u_n/δu_n` over the normal
    /// rows not loaded at α = 0 (`u_n > 0`) that a step loads (`δu_n < 0`),
    /// taken 1e-9 of it past the kink; 1 when there is none below 1.
    fn first_load(&self) -> f64 {
        let mut a = 1.0_f64;
        for &i in self.order {
            let i = i as usize;
            let (un, dn) = (self.u[i][0], self.du[i][0]);
            if un > 0.0 && dn < 0.0 {
                a = a.min(-un / dn);
            }
        }
        if a < 1.0 {
            a * (1.0 + 1e-9)
        } else {
            1.0
        }
    }

    /// [`LineSearch::Kinks`] ("The line search at the loading kinks", lcp29):
    /// the bracketed iteration of [`Line::bracketed`] from α = 1 (the same
    /// stops: `|f'| ≤ 1e-13 |f'(0)|`, or a Newton step of ≤ 1e-12 α), keeping
    /// the left end of the bracket `[lo, hi]` with `f'` and `f''` there. The
    /// left end's piece is exact up to its next kink, so its Newton step `lo −
    /// f'(lo)/f''(lo)` is the zero unless a point gains curvature on the way;
    /// a loading kink whose jump of `f''` at least doubles `f''(lo)` (a normal
    /// row loading, a tangent pair entering the k-gon or an edge's slab: the
    /// proximal kinks of `1/e' ≈ 1e6` of W's diagonal, lcp17) makes that step
    /// overshoot, and Newton from the right end then unloads one point per
    /// step or falls back to bisection (lcp28: ≈ 15–22 evaluations). So once
    /// α = 1 has not ended the search, the line's breakpoints are listed
    /// ([`Line::kink_list`], once) and the next trial is just past the first
    /// such kink before the left end's step ([`Line::past_first_load`]): on
    /// the piece beyond it, whose Newton step is the zero when it lies on that
    /// piece. Otherwise the trial is the left end's step when inside the
    /// bracket, else the latest point's Newton step, else bisection; after a
    /// trial past a kink lands beyond the zero (the listed kink a little off
    /// the evaluation's, or a steep piece narrower than the trial's margin)
    /// the kinks are no longer used in that search. At α = 0, `f'(0) = ∇fᵀd`
    /// and the Newton model's slope `dᵀHd = −∇fᵀd` (H at α = 0's pieces, d =
    /// −H⁻¹∇f) stand for the left end without an evaluation. `(α,
    /// evaluations)`; None on a non-finite value.
    fn kinks(&self, poly: &Polygon, breaks: &mut Vec<Break>, full: bool) -> Option<(f64, usize)> {
        let (mut alpha, mut hi, mut evaluations) = (1.0_f64, f64::INFINITY, 0);
        let (mut lo, mut fp_lo, mut fpp_lo) = (0.0_f64, self.fp0, -self.fp0);
        let (mut listed, mut past_kink, mut overshot) = (false, false, false);
        for _ in 0..LINE_SEARCH_STEPS {
            let Some((fp, fpp)) = self.trial(alpha, &mut evaluations)? else {
                break;
            };
            if fp <= 0.0 {
                (lo, fp_lo, fpp_lo) = (alpha, fp, fpp);
            } else {
                hi = alpha;
                // A trial past a kink beyond the zero: the kink is not where
                // the list has it, or its steep piece is narrower than the
                // trial's margin; the plain bracketed steps from here.
                overshot |= past_kink;
            }
            // A trial inside the bracket and off the last point (a step of ≤
            // 1e-12 α ends the search only when it is the Newton step, below).
            let inside = |a: f64| a > lo && a < hi && (a - alpha).abs() > 1e-12 * alpha;
            if !listed && fp > 0.0 {
                // The kinks, once a trial has overshot the zero (before, the
                // plain Newton steps from the left: 2 evaluations where the
                // first step's piece holds).
                if full {
                    self.kink_list(poly, breaks);
                } else {
                    self.load_list(poly, breaks, hi);
                }
                listed = true;
            }
            // The left end's step, stopped just past the first loading kink
            // before it.
            let left = lo - fp_lo / fpp_lo;
            let past = if listed && !overshot {
                Self::past_first_load(breaks, (lo, hi), left.min(hi), fpp_lo)
            } else {
                None
            };
            let newton = alpha - fp / fpp;
            // The bracketed search's stop on a step of ≤ 1e-12 α.
            if (newton - alpha).abs() <= 1e-12 * alpha && newton >= lo && newton <= hi {
                alpha = newton;
                break;
            }
            past_kink = false;
            let next = if let Some(k) = past.filter(|&k| inside(k)) {
                past_kink = true;
                k
            } else if inside(left) {
                left
            } else if inside(newton) {
                newton
            } else {
                split(lo, hi, alpha)
            };
            if step_to(&mut alpha, next) {
                break;
            }
        }
        Some((alpha, evaluations))
    }

    /// The trial just past the least loading kink of `breaks` (the line's
    /// breakpoints, [`Line::kink_list`]) in `(lo, cap)` whose jump of `f''` is
    /// at least `slope` ([`Line::kinks`]: a kink that would at least double the
    /// left end's slope — a normal row that loads, a tangent pair that enters
    /// the k-gon or an edge's slab); None if there is none. The trial is 1e-9
    /// of the kink κ past it, or halfway to the next breakpoint when that is
    /// nearer (a stick interval narrower than 1e-9 κ).
    fn past_first_load(
        breaks: &[Break],
        (lo, hi): (f64, f64),
        cap: f64,
        slope: f64,
    ) -> Option<f64> {
        let first = breaks
            .iter()
            .filter(|b| b.0 > lo && b.0 < cap && b.1 >= slope)
            .fold(f64::INFINITY, |a, b| a.min(b.0));
        if !first.is_finite() {
            return None;
        }
        let next = breaks
            .iter()
            .filter(|b| b.0 > first)
            .fold(hi, |a, b| a.min(b.0));
        Some(first + (1e-9 * first).min(0.5 * (next - first)))
    }

    /// One evaluation of a bracketed search at `alpha` (counted): `(f'(α),
    /// f''(α))`, or None inside when `|f'(α)| ≤ 1e-13 |f'(0)|` (the searches'
    /// stop: α is the zero); None on a non-finite value.
    fn trial(&self, alpha: f64, evaluations: &mut usize) -> Option<Option<(f64, f64)>> {
        let (fp, fpp) = self.slope(alpha);
        *evaluations += 1;
        if !fp.is_finite() || !fpp.is_finite() {
            return None;
        }
        Some((fp.abs() > 1e-13 * self.fp0.abs()).then_some((fp, fpp)))
    }

    /// The bracketed iteration of [`Line::bracketed`] from `start`.
    fn bracketed_from(&self, start: f64) -> Option<(f64, usize)> {
        let (mut lo, mut hi, mut alpha) = (0.0_f64, f64::INFINITY, start);
        let mut evaluations = 0;
        for _ in 0..LINE_SEARCH_STEPS {
            let Some((fp, fpp)) = self.trial(alpha, &mut evaluations)? else {
                break;
            };
            if fp > 0.0 {
                hi = alpha;
            } else {
                lo = alpha;
            }
            let mut next = alpha - fp / fpp;
            if !(next > lo && next < hi) {
                next = split(lo, hi, alpha);
            }
            if step_to(&mut alpha, next) {
                break;
            }
        }
        Some((alpha, evaluations))
    }

    /// Every point's breakpoints in α > 0 and the jumps of `f''` there into
    /// `breaks` (cleared first; the normal row's kink at `−u_n/δu_n`, the
    /// tangent pair's crossings, [`tangent_breaks`]); returns `f''(0⁺)`,
    /// summed compensated: a stiff row's 1/e' enters and leaves the sum (a
    /// kink crossed and crossed back), which a plain sum would leave as ε/e'
    /// of round-off in the slope.
    fn kink_list(&self, poly: &Polygon, breaks: &mut Vec<Break>) -> Neumaier {
        breaks.clear();
        let mut c = Neumaier::new(self.a1);
        for &i in self.order {
            let i = i as usize;
            let (u, du, e) = (&self.u[i], &self.du[i], &self.e[i]);
            // The normal row: z_n = max(0, −u_n/e_n), loaded where u_n < 0.
            let k = du[0] * du[0] / e[0];
            let on = u[0] < 0.0 || (u[0] == 0.0 && du[0] < 0.0);
            if on {
                c.add(k);
            }
            if u[0] * du[0] < 0.0 {
                breaks.push(Break(-u[0] / du[0], if on { -k } else { k }));
            }
            c.add(tangent_breaks(u, du, e, self.radius[i], poly, breaks));
        }
        c
    }

    /// The loading kinks only ([`Line::kinks`]' list, lcp30; the full list is
    /// [`Line::kink_list`]): per point, where `f''` jumps up along the line —
    /// the normal row loading (`u_n > 0`, `δu_n < 0`: at `−u_n/δu_n`, jump
    /// `δu_n²/e_n`); the tangent pair's `y(α) = −E_t⁻¹ u_t(α)` entering the
    /// k-gon (the line clipped against the k half-planes `n_j·y ≤ r cos(π/k)`;
    /// it enters through the edge j whose constraint is met last, from that
    /// edge's slab: jump `δu_tᵀE_t⁻¹δu_t − (t_j·δu_t)²/(t_jᵀE_t t_j)`); and `y`
    /// entering an edge's slab from a vertex's wedge (the slab of edge j is
    /// `n_j·y > r cos(π/k)` with the weighted projection's parameter `s_j(y) =
    /// (y − v_j)ᵀE_t e_j / e_jᵀE_t e_j` in (0, 1), `e_j = v_{j+1} − v_j`: a
    /// crossing of `s_j = 0` upwards or `s_j = 1` downwards with `n_j·y` above
    /// the edge; jump `(t_j·δu_t)²/(t_jᵀE_t t_j)`). Unloading kinks (jumps
    /// down) are not listed: [`Line::past_first_load`] takes only jumps of at
    /// least the left end's `f''`. Two dot products per edge and point for the
    /// clipping, two weighted ones for the slabs, against the region walk of
    /// [`tangent_breaks`]; a pair inside the k-gon at α = 0 that leaves it
    /// only at or past `upto` (the bracket's right end: [`Line::kinks`] uses no
    /// kink past it) enters no slab before, and its slabs are not looked at.
    fn load_list(&self, poly: &Polygon, breaks: &mut Vec<Break>, upto: f64) {
        breaks.clear();
        let k = poly.normals.len();
        for &i in self.order {
            let i = i as usize;
            let (u, du, e) = (&self.u[i], &self.du[i], &self.e[i]);
            if u[0] > 0.0 && du[0] < 0.0 {
                breaks.push(Break(-u[0] / du[0], du[0] * du[0] / e[0]));
            }
            let r = self.radius[i];
            if r.is_nan() || r <= 0.0 || k < 3 || (du[1] == 0.0 && du[2] == 0.0) {
                continue;
            }
            let y0 = (-u[1] / e[1], -u[2] / e[2]);
            let y1 = (-du[1] / e[1], -du[2] / e[2]);
            let h = r * poly.half.0;
            let edge_curv = |j: usize| {
                let (nx, ny) = poly.normals[j];
                curvature(du, e, false, Tangent::Edge(-ny, nx))
            };
            // The k-gon's interval along the line (Liang–Barsky), and the edge
            // it enters through.
            let (mut enter, mut leave, mut through) = (0.0_f64, f64::INFINITY, usize::MAX);
            for (j, &(nx, ny)) in poly.normals.iter().enumerate() {
                let (g0, gd) = (y0.0 * nx + y0.1 * ny - h, y1.0 * nx + y1.1 * ny);
                if gd < 0.0 {
                    let a = -g0 / gd;
                    if a > enter {
                        (enter, through) = (a, j);
                    }
                } else if gd > 0.0 {
                    leave = leave.min(-g0 / gd);
                } else if g0 > 0.0 {
                    leave = f64::NEG_INFINITY;
                }
            }
            if through == usize::MAX {
                if leave >= upto {
                    // Inside from α = 0 to past the bracket: no slab entered.
                    continue;
                }
            } else if enter < leave {
                let inside = curvature(du, e, false, Tangent::Stick);
                breaks.push(Break(enter, inside - edge_curv(through)));
            }
            // The slabs entered from a wedge.
            let wdot = |a: (f64, f64), b: (f64, f64)| e[1] * a.0 * b.0 + e[2] * a.1 * b.1;
            for (j, &(nx, ny)) in poly.normals.iter().enumerate() {
                let (c0, s0) = poly.vertices[j];
                let (c1, s1) = poly.vertices[(j + 1) % k];
                let v = (r * c0, r * s0);
                let ev = (r * (c1 - c0), r * (s1 - s0));
                let den = wdot(ev, ev);
                let (p0, p1) = (wdot((y0.0 - v.0, y0.1 - v.1), ev) / den, wdot(y1, ev) / den);
                let a = if p1 > 0.0 && p0 < 0.0 {
                    -p0 / p1
                } else if p1 < 0.0 && p0 > 1.0 {
                    (1.0 - p0) / p1
                } else {
                    continue;
                };
                if (y0.0 + a * y1.0) * nx + (y0.1 + a * y1.1) * ny > h {
                    breaks.push(Break(a, edge_curv(j)));
                }
            }
        }
    }

    /// [`LineSearch::Breakpoints`]: `f'` is continuous and piecewise linear in
    /// α, its slope `f''(α) = a1 + Σ δuᵀ K_i(α) δu` changes only where a point
    /// changes piece. Per point, its breakpoints in α > 0 and the jumps of
    /// `δuᵀ K δu` at them (the normal row at `−u_n/δu_n`; the tangent pair's
    /// crossings of the k-gon's regions, [`tangent_breaks`]) and `f''(0⁺)`, once;
    /// walked in order (a heap) while `f'` stays negative:
    /// `f'(b_{j+1}) = f'(b_j) + f''_j (b_{j+1} − b_j)`. The zero on the piece
    /// where it changes sign, `α = b_j − f'(b_j)/f''_j`, is then refined by
    /// the bracketed iteration from there ([`Line::bracketed_from`]: exact
    /// evaluations of `f'(α)`, `f''(α)`, the same stop): one evaluation when
    /// the walk's piece is the true one, a second where the walk's model of the
    /// kinks left α off the zero by more than 1e-12 of it.
    /// `(α, evaluations, whether α is on a breakpoint to 1e-9 of it, the
    /// breakpoints computed)`; None on a non-finite value.
    fn breakpoints(
        &self,
        poly: &Polygon,
        breaks: &mut Vec<Break>,
    ) -> Option<(f64, usize, bool, usize)> {
        let mut c = self.kink_list(poly, breaks);
        // Walked in order from a heap (built in place, O(n); popped only up to
        // the zero): most breakpoints lie beyond it.
        let total = breaks.len();
        let mut heap = std::collections::BinaryHeap::from(std::mem::take(breaks));
        let (mut s, mut lo, mut hi) = (Neumaier::new(self.fp0), 0.0_f64, f64::INFINITY);
        while let Some(Break(b, dc)) = heap.pop() {
            let sb = s.value() + c.value() * (b - lo);
            if sb >= 0.0 {
                hi = b;
                break;
            }
            s.add(c.value() * (b - lo));
            lo = b;
            c.add(dc);
        }
        *breaks = heap.into_vec();
        let (s, c) = (s.value(), c.value());
        if !(s.is_finite() && c.is_finite()) {
            return None;
        }
        let mut alpha = if c > 0.0 { lo - s / c } else { lo };
        alpha = alpha.max(lo).min(hi);
        if !alpha.is_finite() {
            return None;
        }
        // The zero of the walk's piece, refined by the bracketed iteration
        // from there (the same stop as `bracketed`): one evaluation when the
        // walk's piece is the right one (its Newton step lands on the zero),
        // more where the walk's sums or a kink at the zero left it off.
        let (alpha, evaluations) = self.bracketed_from(alpha.max(f64::MIN_POSITIVE))?;
        // The zero on a breakpoint (to 1e-9 of α): a point ends at its kink.
        let kink =
            (lo > 0.0 && (alpha - lo).abs() <= 1e-9 * alpha) || (hi - alpha).abs() <= 1e-9 * alpha;
        Some((alpha, evaluations, kink, total))
    }
}

/// The bracketed searches' fallback trial: the bracket's middle, or twice
/// `alpha` while it has no right end.
fn split(lo: f64, hi: f64, alpha: f64) -> f64 {
    if hi.is_finite() {
        0.5 * (lo + hi)
    } else {
        2.0 * alpha
    }
}

/// Moves a bracketed search's `alpha` to `next`; true when the move is of ≤
/// 1e-12 α (the searches' stop on the step).
fn step_to(alpha: &mut f64, next: f64) -> bool {
    let done = (next - *alpha).abs() <= 1e-12 * *alpha;
    *alpha = next;
    done
}

/// Neumaier's compensated sum (the breakpoint walk's slope and curvature).
#[derive(Debug, Clone, Copy)]
struct Neumaier {
    sum: f64,
    comp: f64,
}

impl Neumaier {
    fn new(x: f64) -> Self {
        Neumaier { sum: x, comp: 0.0 }
    }

    #[inline]
    fn add(&mut self, x: f64) {
        let t = self.sum + x;
        self.comp += if self.sum.abs() >= x.abs() {
            (self.sum - t) + x
        } else {
            (x - t) + self.sum
        };
        self.sum = t;
    }

    #[inline]
    fn value(&self) -> f64 {
        self.sum + self.comp
    }
}

/// The tangent pair's breakpoints along the line (the tangent part of
/// [`Line::breakpoints`]): the weighted projection onto the k-gon of radius r
/// of `y(α) = −E_t⁻¹ (u_t + α δu_t)`, a straight line, walked through the
/// projection's regions in the metric `⟨a, b⟩ = e₁a₁b₁ + e₂a₂b₂` — inside
/// (`K = E_t⁻¹`); the slab of edge j, `n_j·y > r cos(π/k)` with the
/// projection's parameter `s = ⟨y − v_j, v_{j+1} − v_j⟩/‖v_{j+1} − v_j‖²` in
/// (0, 1) (`K = t tᵀ/(tᵀE_t t)`, t the edge's unit direction); the wedge of
/// vertex j, `s ≥ 1` on edge j − 1 and `s ≤ 0` on edge j (`K = 0`). Each region
/// is convex, so the line crosses each once: the exit of the current region is
/// the first of its boundaries the line reaches (clamped to the current α, so a
/// start on a boundary leaves it at once), at most 2k + 3 crossings. Pushes
/// `(α, jump of δu_tᵀ K δu_t)` per crossing; returns `δu_tᵀ K δu_t` at 0⁺.
fn tangent_breaks(
    u: &[f64; 3],
    du: &[f64; 3],
    e: &[f64; 3],
    r: f64,
    poly: &Polygon,
    breaks: &mut Vec<Break>,
) -> f64 {
    let k = poly.normals.len();
    if r.is_nan() || r <= 0.0 || k < 3 || (du[1] == 0.0 && du[2] == 0.0) {
        // A zero radius (z_t = 0), or z_t constant along the line.
        return 0.0;
    }
    let y0 = (-u[1] / e[1], -u[2] / e[2]);
    let y1 = (-du[1] / e[1], -du[2] / e[2]);
    let h = r * poly.half.0;
    let wdot = |a: (f64, f64), b: (f64, f64)| e[1] * a.0 * b.0 + e[2] * a.1 * b.1;
    let vertex = |j: usize| {
        let (c, s) = poly.vertices[j % k];
        (r * c, r * s)
    };
    let edge = |j: usize| {
        let (a, b) = (vertex(j), vertex(j + 1));
        (b.0 - a.0, b.1 - a.1)
    };
    let curv = |reg: Region| match reg {
        Region::Inside => du[1] * du[1] / e[1] + du[2] * du[2] / e[2],
        Region::Edge(j) => {
            let (nx, ny) = poly.normals[j];
            let (tx, ty) = (-ny, nx);
            let a = tx * du[1] + ty * du[2];
            a * a / (e[1] * tx * tx + e[2] * ty * ty)
        }
        Region::Vertex(_) => 0.0,
    };
    // The region at α = 0, as `project_polygon_weighted` finds it.
    let mut reg = {
        let best = poly.normals.iter().fold(f64::NEG_INFINITY, |b, &(nx, ny)| {
            b.max(y0.0 * nx + y0.1 * ny)
        });
        if best <= h {
            Region::Inside
        } else {
            let (mut dist, mut out) = (f64::INFINITY, Region::Vertex(0));
            for j in 0..k {
                let (v0, ev) = (vertex(j), edge(j));
                let den = wdot(ev, ev);
                let sj = (wdot((y0.0 - v0.0, y0.1 - v0.1), ev) / den).clamp(0.0, 1.0);
                let (px, py) = (v0.0 + sj * ev.0 - y0.0, v0.1 + sj * ev.1 - y0.1);
                let dd = wdot((px, py), (px, py));
                if dd < dist {
                    dist = dd;
                    out = if sj > 0.0 && sj < 1.0 {
                        Region::Edge(j)
                    } else if sj <= 0.0 {
                        Region::Vertex(j)
                    } else {
                        Region::Vertex((j + 1) % k)
                    };
                }
            }
            out
        }
    };
    let c0 = curv(reg);
    let (mut alpha, mut c) = (0.0_f64, c0);
    // The α at which `g(y0) + α ġ` reaches 0, for a boundary g ≤ 0 of the region
    // that grows along the line (ġ > 0).
    let cross = |g0: f64, gd: f64| -g0 / gd;
    for _ in 0..2 * k + 3 {
        let mut next: Option<(f64, Region)> = None;
        let mut take = |a: f64, to: Region| {
            if a.is_finite() && next.is_none_or(|(b, _)| a < b) {
                next = Some((a, to));
            }
        };
        match reg {
            Region::Inside => {
                for (j, &(nx, ny)) in poly.normals.iter().enumerate() {
                    let gd = y1.0 * nx + y1.1 * ny;
                    if gd > 0.0 {
                        take(cross(y0.0 * nx + y0.1 * ny - h, gd), Region::Edge(j));
                    }
                }
            }
            Region::Edge(j) => {
                let (nx, ny) = poly.normals[j];
                let gd = y1.0 * nx + y1.1 * ny;
                if gd < 0.0 {
                    take(cross(h - (y0.0 * nx + y0.1 * ny), -gd), Region::Inside);
                }
                let ev = edge(j);
                let w = wdot(y1, ev);
                if w < 0.0 {
                    let v = vertex(j);
                    take(
                        cross(-wdot((y0.0 - v.0, y0.1 - v.1), ev), -w),
                        Region::Vertex(j),
                    );
                } else if w > 0.0 {
                    let v = vertex(j + 1);
                    take(
                        cross(wdot((y0.0 - v.0, y0.1 - v.1), ev), w),
                        Region::Vertex((j + 1) % k),
                    );
                }
            }
            Region::Vertex(m) => {
                let v = vertex(m);
                let dv = (y0.0 - v.0, y0.1 - v.1);
                let (a, b) = ((m + k - 1) % k, m);
                let (ea, eb) = (edge(a), edge(b));
                let wa = wdot(y1, ea);
                if wa < 0.0 {
                    take(cross(-wdot(dv, ea), -wa), Region::Edge(a));
                }
                let wb = wdot(y1, eb);
                if wb > 0.0 {
                    take(cross(wdot(dv, eb), wb), Region::Edge(b));
                }
            }
        }
        let Some((a, to)) = next else {
            break;
        };
        alpha = alpha.max(a);
        let cn = curv(to);
        breaks.push(Break(alpha, cn - c));
        (reg, c) = (to, cn);
    }
    c0
}

/// Anderson's extrapolation (type II, Walker–Ni) of the radius map
/// `G(r) = μ p_n(QP_r)` between passes, as `solver::staggered`'s: with the last
/// `m` pairs `(G(r_j), f_j = G(r_j) − r_j)`, `r ← Σ_j α_j G(r_j)`, `α = argmin
/// ‖Σ α_j f_j‖₂` s.t. `Σ α_j = 1` (the small Gram system, Tikhonov 1e-12 of its
/// trace), clamped at `r ≥ 0`. False (the caller takes the plain update) when
/// the system is singular.
fn anderson(
    problem: &ContactProblem,
    order: &[u32],
    r: &mut PrimalResults,
    m: usize,
    kept: &mut usize,
) -> bool {
    let (gv, res) = (&mut r.hist_g[..], &mut r.hist_f[..]);
    anderson_radius(problem, &r.z, order, &mut r.radius, (gv, res), m, kept)
        && order.iter().all(|&i| r.radius[i as usize].is_finite())
}

/// Anderson (type II) on the pass map `T(c) = z` (the QP solution of the pass
/// whose proximal centre and radii came from `c`): with the last `m` pairs
/// `(T(c_j), T(c_j) − c_j)`, the next centre is `Σ α_j T(c_j)`, α as in
/// [`anderson`]. It also extrapolates the linear drift of the load's split on
/// dependent rows (rate `ρ/(ε + ρ)` per pass, "Outer passes"). False when the
/// system is singular.
#[allow(clippy::needless_range_loop)]
fn anderson_centre(order: &[u32], r: &mut PrimalResults, m: usize, kept: &mut usize) -> bool {
    let n = r.centre.len();
    let slot = *kept % m;
    *kept += 1;
    for &i in order {
        let i = i as usize;
        for a in 0..3 {
            let g = r.zs[i][a];
            r.hist_g[(slot * n + i) * 3 + a] = g;
            r.hist_f[(slot * n + i) * 3 + a] = g - r.centre[i][a];
        }
    }
    let (gv, res) = (&r.hist_g, &r.hist_f);
    let mk = (*kept).min(m);
    let Some(w) = anderson_weights(mk, |a, b| {
        order
            .iter()
            .map(|&i| {
                let (ia, ib) = ((a * n + i as usize) * 3, (b * n + i as usize) * 3);
                (0..3).map(|c| res[ia + c] * res[ib + c]).sum::<f64>()
            })
            .sum()
    }) else {
        return false;
    };
    for &i in order {
        let i = i as usize;
        for c in 0..3 {
            r.centre[i][c] = (0..mk).map(|a| w[a] * gv[(a * n + i) * 3 + c]).sum();
        }
    }
    order
        .iter()
        .all(|&i| r.centre[i as usize].iter().all(|v| v.is_finite()))
}

/// `b = ∂z*/∂r` of a point on its piece at fixed u ("Newton on the radii"):
/// on the edge of outward normal `ν` (`ν·f = r cos(π/k)`), the weighted
/// projection `f = y − E_t⁻¹ν (ν·y − r cos(π/k)) / (νᵀE_t⁻¹ν)` gives
/// `b_t = cos(π/k) E_t⁻¹ν / (νᵀE_t⁻¹ν)`; at a vertex `f = r v̂`, `b_t = f/r`; the
/// normal impulse does not depend on r.
#[inline]
fn slide_direction(z: &[f64; 3], e: &[f64; 3], r: f64, piece: Tangent, ch: f64) -> [f64; 3] {
    match piece {
        Tangent::Edge(tx, ty) => {
            // ν = (t_y, −t_x), `ch` = cos(π/k).
            let (n1, n2) = (ty, -tx);
            let s = n1 * n1 / e[1] + n2 * n2 / e[2];
            [0.0, ch * n1 / (e[1] * s), ch * n2 / (e[2] * s)]
        }
        Tangent::Fixed if r > 0.0 => [0.0, z[1] / r, z[2] / r],
        _ => [0.0; 3],
    }
}

/// `‖μ p_n(z) − r‖₂` over the island's points: the radii's fixed-point
/// residual at the pass's answer `z` (`res.z`) and radii `r` (`res.radius`).
fn radius_residual(problem: &ContactProblem, order: &[u32], res: &PrimalResults) -> f64 {
    let mut s = 0.0;
    for &i in order {
        let i = i as usize;
        s += (problem.radius_with(i, |j| res.z[3 * j].max(0.0)) - res.radius[i]).powi(2);
    }
    s.sqrt()
}

/// Pushes the pass's [`PassRecord`] ([`PrimalParams::pass_trace`]): at the
/// pass's answer `res.z`, its radii `res.radius` and centre `res.centre`,
/// at proximal weight `rho`.
fn trace_pass(
    problem: &ContactProblem,
    order: &[u32],
    res: &mut PrimalResults,
    (pass, its, fas): (usize, usize, usize),
    residual: f64,
    rho: f64,
) {
    let (mut df, mut g2, mut off, mut prox, mut dc, mut z2) =
        (0.0, 0.0, 0.0_f64, 0.0_f64, 0.0, 0.0);
    let mut sliding = 0;
    for &i in order {
        let i = i as usize;
        let g = problem.radius_with(i, |j| res.z[3 * j].max(0.0));
        df += (g - res.radius[i]).powi(2);
        g2 += g * g;
        off = off.max((g - res.radius[i]).abs());
        let d = diag_block(problem, i);
        for ((&z, &c), &da) in res.z[3 * i..3 * i + 3].iter().zip(&res.centre[i]).zip(&d) {
            let dz = z - c;
            prox = prox.max(rho * da * dz.abs());
            dc += dz * dz;
            z2 += z * z;
        }
        if res.normal_on[i] && res.radius[i] > 0.0 && !matches!(res.tangent[i], Tangent::Stick) {
            sliding += 1;
        }
    }
    res.pass_trace.push(PassRecord {
        island: res.island_solved.len() as u32,
        pass: pass as u32,
        points: order.len() as u32,
        sliding,
        iterations: its as u32,
        factorizations: fas as u32,
        residual,
        radius_change: (df / g2).sqrt(),
        radius_offset: off,
        proximal: prox,
        centre_change: (dc / z2).sqrt(),
        first_radii: f64::NAN,
        converged: false,
    });
}

/// Ends the running pass's count ([`PrimalStats::pass_runs`]) and starts
/// `next`'s (None: the island's passes are over).
/// `f(x) = ½ xᵀ M x + Σ_i φ_i(u_i)` at the evaluated iterate (the module
/// doc's dual: `φ_i(u) = −z*ᵀu − ½ z*ᵀ E′ z*` at the projection `z*`, the pass's
/// `E′` and `q′`), from `x`, `u` and `zs` as [`PrimalSolver::evaluate`] left
/// them.
fn objective(rows: &BodyRows, order: &[u32], res: &PrimalResults) -> f64 {
    let mut f = 0.0;
    for (lb, &b) in res.bodies.iter().enumerate() {
        f += 0.5 * res.x[lb].dot(&(rows.mass[b as usize] * res.x[lb]));
    }
    for &i in order {
        let i = i as usize;
        let (z, u, e) = (&res.zs[i], &res.u[i], &res.e[i]);
        for a in 0..3 {
            f -= z[a] * u[a] + 0.5 * e[a] * z[a] * z[a];
        }
    }
    f
}

fn mark_pass(res: &mut PrimalResults, next: Option<usize>) {
    let st = &mut res.stats;
    if let Some((k, it, fa)) = res.pass_mark.take() {
        st.pass_runs[k] += 1;
        st.pass_iterations[k] += st.iterations - it;
        st.pass_factorizations[k] += st.factorizations - fa;
    }
    res.pass_mark = next.map(|pass| (pass.min(3), st.iterations, st.factorizations));
}

/// The pass's `E' = E + ρ D` and `q' = q − ρ D z_k` at the proximal weight
/// `rho` (`D` the diagonal of W, `z_k` the centre) on the island's points.
fn set_proximal(
    problem: &ContactProblem,
    rows: &BodyRows,
    order: &[u32],
    res: &mut PrimalResults,
    rho: f64,
) {
    for &i in order {
        let i = i as usize;
        let d = diag_block(problem, i);
        let z = res.centre[i];
        for a in 0..3 {
            let r = rho * d[a];
            res.e[i][a] = rows.cfm[i][a] + r;
            res.q[i][a] = problem.q[3 * i + a] - r * z[a];
        }
    }
}

/// The soft identification's subproblem: `E' = E + (ρ + σ) D` and `q' = q −
/// ρ D z_k − σ D y` (`z_k` the pass's centre, `y` the inner centre `soft_y`).
fn set_proximal_soft(
    problem: &ContactProblem,
    rows: &BodyRows,
    order: &[u32],
    res: &mut PrimalResults,
    rho: f64,
    sigma: f64,
) {
    for &i in order {
        let i = i as usize;
        let d = diag_block(problem, i);
        let (z, y) = (res.centre[i], res.soft_y[i]);
        for a in 0..3 {
            let (r, s) = (rho * d[a], sigma * d[a]);
            res.e[i][a] = rows.cfm[i][a] + r + s;
            res.q[i][a] = problem.q[3 * i + a] - r * z[a] - s * y[a];
        }
    }
}

/// `(G_i v)_n` for the point's normal row and the per-body vectors
/// `v[off + local body]`.
#[inline]
fn normal_of(rows: &BodyRows, local: &[u32], i: usize, v: &[V6], off: usize) -> f64 {
    let mut out = 0.0;
    for s in 0..2 {
        let b = rows.body[i][s];
        if b != NO_BODY {
            let x = &v[off + local[b as usize] as usize];
            out += (0..6).map(|c| rows.jac[i][s][c] * x[c]).sum::<f64>();
        }
    }
    out
}

/// The radii's Newton system on the `k` sliding points `res.slide`, shared by
/// the body-space and DoF-space steps ([`PrimalSolver::radius_step`]):
/// `(I − diag(μ) ∂p_n/∂r) Δr = μ p_n − r`, with `gn(res, i, l)` = (G_i ∂x/∂r_l)_n
/// in the step's own space. Solved, the new radii (≥ 0) are set and
/// `res.krhs` holds their change; false (and every `in_slide` cleared) on a
/// singular system.
fn radius_newton_system(
    problem: &ContactProblem,
    order: &[u32],
    k: usize,
    gn: impl Fn(&PrimalResults, usize, usize) -> f64,
    res: &mut PrimalResults,
) -> bool {
    res.kmat.clear();
    res.kmat.resize(k * k, 0.0);
    res.krhs.clear();
    for a in 0..k {
        let i = res.slide[a] as usize;
        res.kmat[a * k + a] = 1.0;
        res.krhs
            .push(problem.radius_with(i, |j| res.zs[j][0]) - res.radius[i]);
        if let Some(pa) = problem.patch.get(i).filter(|pa| pa.len > 1) {
            // A face patch (lcp33): r_i = μ s_i Σ_{j ∈ P} p_n(j), so the row
            // takes −μ s_i Σ_j ∂p_n(j)/∂r over the patch's loaded points.
            let c = problem.mu[i] * pa.share;
            let j0 = pa.first as usize;
            for j in j0..j0 + pa.len as usize {
                if !problem.in_patch(j, pa) || !res.normal_on[j] {
                    continue;
                }
                let cj = c / res.e[j][0];
                for col in 0..k {
                    let g = gn(res, j, col);
                    res.kmat[a * k + col] += cj * g;
                }
            }
            continue;
        }
        if !res.normal_on[i] {
            continue;
        }
        let c = problem.mu[i] / res.e[i][0];
        for col in 0..k {
            // −μ ∂p_n/∂r = μ (G_i ∂x/∂r)_n / e_n.
            let g = gn(res, i, col);
            res.kmat[a * k + col] += c * g;
        }
    }
    if !crate::math::solve_dense(&mut res.kmat, &mut res.krhs, k) {
        for &i in order {
            res.in_slide[i as usize] = false;
        }
        return false;
    }
    for a in 0..k {
        let i = res.slide[a] as usize;
        let r = (res.radius[i] + res.krhs[a]).max(0.0);
        res.krhs[a] = r - res.radius[i];
        res.radius[i] = r;
    }
    true
}

/// After a radius step: the points not sliding take `μ p_n` at the new x, and
/// the sliding marks are cleared.
fn other_radii(problem: &ContactProblem, order: &[u32], res: &mut PrimalResults) {
    for &i in order {
        let i = i as usize;
        if !res.in_slide[i] {
            res.radius[i] = problem.radius_with(i, |j| res.zs[j][0]);
        }
        res.in_slide[i] = false;
    }
}

/// The sliding points S of the current pieces (on an edge, or at a vertex with a
/// positive radius) into `res.slide` and `res.in_slide`; |S|.
fn sliding_set(order: &[u32], res: &mut PrimalResults) -> usize {
    res.slide.clear();
    for &i in order {
        let iu = i as usize;
        let s = match res.tangent[iu] {
            Tangent::Edge(..) => true,
            Tangent::Fixed => res.radius[iu] > 0.0,
            Tangent::Stick | Tangent::ConeFace(..) | Tangent::ConeRay(..) => false,
        };
        res.in_slide[iu] = s;
        if s {
            res.slide.push(i);
        }
    }
    res.slide.len()
}

/// `∂x/∂r_l = H⁻¹ G_lᵀ b_l` for every sliding point l of `res.slide` (`b_l` its
/// piece's direction, [`slide_direction`]), column l of `res.dxs` (one back-solve
/// each through the current factor of H).
fn slide_columns(problem: &ContactProblem, rows: &BodyRows, res: &mut PrimalResults) {
    let (k, nb) = (res.slide.len(), res.bodies.len());
    res.dxs.clear();
    res.dxs.resize(k * nb, V6::zeros());
    for (a, &l) in res.slide.iter().enumerate() {
        let l = l as usize;
        let b = slide_direction(
            &res.zs[l],
            &res.e[l],
            res.radius[l],
            res.tangent[l],
            problem.table.half.0,
        );
        let col = &mut res.dxs[a * nb..(a + 1) * nb];
        for s in 0..2 {
            let body = rows.body[l][s];
            if body != NO_BODY {
                col[res.local[body as usize] as usize] += jt_times(&rows.jac[l][s], &b);
            }
        }
        res.chol.solve(col);
    }
}

/// `max_i |μ_i p_n(i) − r_i|` over the island at the current impulses.
fn radius_offset(problem: &ContactProblem, order: &[u32], res: &PrimalResults) -> f64 {
    order.iter().fold(0.0_f64, |a, &i| {
        let i = i as usize;
        a.max((problem.radius_with(i, |j| res.zs[j][0]) - res.radius[i]).abs())
    })
}

/// The point's Hessian `K = DΠ E⁻¹` (3×3; None when it is zero).
#[inline]
fn hessian(e: &[f64; 3], on: bool, piece: Tangent) -> Option<[[f64; 3]; 3]> {
    let mut k = [[0.0; 3]; 3];
    let mut any = false;
    if on {
        k[0][0] = 1.0 / e[0];
        any = true;
    }
    match piece {
        Tangent::Stick => {
            k[1][1] = 1.0 / e[1];
            k[2][2] = 1.0 / e[2];
            any = true;
        }
        Tangent::Edge(tx, ty) => {
            let c = 1.0 / (e[1] * tx * tx + e[2] * ty * ty);
            k[1][1] = c * tx * tx;
            k[1][2] = c * tx * ty;
            k[2][1] = c * tx * ty;
            k[2][2] = c * ty * ty;
            any = true;
        }
        Tangent::Fixed => {}
        Tangent::ConeFace(a0, a1, a2) => {
            // E⁻¹ − E⁻¹ a aᵀ E⁻¹ / (aᵀ E⁻¹ a), over the whole point.
            let b = [a0 / e[0], a1 / e[1], a2 / e[2]];
            let s = a0 * b[0] + a1 * b[1] + a2 * b[2];
            for r in 0..3 {
                for c in 0..3 {
                    k[r][c] = -b[r] * b[c] / s;
                }
                k[r][r] += 1.0 / e[r];
            }
            any = true;
        }
        Tangent::ConeRay(v1, v2) => {
            let v = [1.0, v1, v2];
            let s = e[0] + e[1] * v1 * v1 + e[2] * v2 * v2;
            for r in 0..3 {
                for c in 0..3 {
                    k[r][c] = v[r] * v[c] / s;
                }
            }
            any = true;
        }
    }
    any.then_some(k)
}

/// `v` becomes `n` copies of `x` — the contents of `v.clear(); v.resize(n, x)` —
/// filled in place when its length already is `n` (lcp27: `resize` is an
/// out-of-line call per buffer, 18 per solve).
#[inline(always)]
fn refill<T: Copy>(v: &mut Vec<T>, n: usize, x: T) {
    if v.len() == n {
        v.fill(x);
    } else {
        v.clear();
        v.resize(n, x);
    }
}

/// `K J_b` (3×6) for a side's rows (3×6 row-major).
#[inline]
fn k_times(k: &[[f64; 3]; 3], jb: &[f64; 18]) -> [[f64; 6]; 3] {
    let mut kj = [[0.0; 6]; 3];
    for (r, row) in kj.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = k[r][0] * jb[c] + k[r][1] * jb[6 + c] + k[r][2] * jb[12 + c];
        }
    }
    kj
}

/// `J_aᵀ K J_b` (6×6) for two sides' rows (3×6 row-major each), from `kj` =
/// [`k_times`]`(K, J_b)`.
#[inline]
fn jt_times_kj(ja: &[f64; 18], kj: &[[f64; 6]; 3]) -> M6 {
    let mut m = M6::zeros();
    for r in 0..6 {
        for c in 0..6 {
            m[(r, c)] = ja[r] * kj[0][c] + ja[6 + r] * kj[1][c] + ja[12 + r] * kj[2][c];
        }
    }
    m
}

/// `Jᵀ v` for the point side's rows (3×6 row-major).
#[inline]
fn jt_times(j: &[f64; 18], v: &[f64; 3]) -> V6 {
    let mut out = V6::zeros();
    for c in 0..6 {
        out[c] = j[c] * v[0] + j[6 + c] * v[1] + j[12 + c] * v[2];
    }
    out
}

/// `J x` for the point side's rows.
#[inline]
fn j_times(j: &[f64; 18], x: &V6) -> [f64; 3] {
    let mut out = [0.0; 3];
    for (a, o) in out.iter_mut().enumerate() {
        *o = (0..6).map(|c| j[6 * a + c] * x[c]).sum();
    }
    out
}

/// `out = M⁻¹ Gᵀ z` per local body of the island (`local`, `bodies`) from
/// the impulses `z` of its points `order`.
fn minv_gt(
    rows: &BodyRows,
    order: &[u32],
    (local, bodies): (&[u32], &[u32]),
    z: &[f64],
    out: &mut [V6],
) {
    for v in out.iter_mut() {
        *v = V6::zeros();
    }
    for &i in order {
        let i = i as usize;
        let zi = [z[3 * i], z[3 * i + 1], z[3 * i + 2]];
        for s in 0..2 {
            let b = rows.body[i][s];
            if b != NO_BODY {
                let lb = local[b as usize] as usize;
                out[lb] += jt_times(&rows.jac[i][s], &zi);
            }
        }
    }
    for (lb, &b) in bodies.iter().enumerate() {
        out[lb] = rows.minv[b as usize] * out[lb];
    }
}

/// A point's natural-map residual `max(|z_n − max(0, z_n − w_n)|, |f_t − Π(f_t −
/// w_t)|)` over the k-gon of radius `radius` (`μ z_n`, or its patch's:
/// [`ContactProblem::radius_with`]; the residual of [`contact_residual`]) at its
/// `w = r`.
#[inline]
fn natural_map(z: &[f64], r: &[f64; 3], radius: f64, table: &PolygonTable) -> f64 {
    let en = (z[0] - (z[0] - r[0]).max(0.0)).abs();
    let (p1, p2) = project_polygon_with(z[1] - r[1], z[2] - r[2], radius, table);
    en.max((z[1] - p1).abs()).max((z[2] - p2).abs())
}

/// The diagonal (W_nn, W_t₁t₁, W_t₂t₂) of point i's block.
fn diag_block(problem: &ContactProblem, i: usize) -> [f64; 3] {
    let (a, b) = (problem.row_start[i], problem.row_start[i + 1]);
    match (a..b).find(|&k| problem.col[k] as usize == i) {
        Some(k) => [problem.w[k][0], problem.w[k][4], problem.w[k][8]],
        None => [0.0; 3],
    }
}

// ---------------------------------------------------------------------------
// Articulated islands: the same dual in generalized velocities (lcp19).
// ---------------------------------------------------------------------------

/// Unknowns of an island solved in DoF space ([`DofRows`]) at most; a larger
/// island is skipped (its dense H would cost `N³/6` per factorization).
pub const DOF_MAX: usize = 160;

/// The DoF-space data of a [`ContactProblem`] ("Articulated islands", lcp19):
/// per DoF block (a free body's 6 velocities or a robot's `nv` generalized
/// velocities) its dense M and M⁻¹, per point its sides' blocks and rows of G
/// on the block's DoFs. The CFM is [`BodyRows::cfm`]. Reproduces the problem's
/// W: `W_ij = Σ_{sides on a shared block} J_i M⁻¹ J_jᵀ (+ diag(E_i), i = j)`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DofRows {
    /// Per block: its DoFs and the offset of its M and M⁻¹ (`ndof²` each,
    /// row-major) in `mass` and `minv`; a factored block has no M⁻¹ (`minv`
    /// is shorter than `mass` when one is last; lcp23).
    pub ndof: Vec<u32>,
    pub at: Vec<usize>,
    pub mass: Vec<f64>,
    pub minv: Vec<f64>,
    /// Per point and side: the block ([`NO_BODY`]: static) and the offset in
    /// `jac` of its rows (n, t₁, t₂; `ndof` coefficients each, row-major).
    pub side: Vec<[(u32, usize); 2]>,
    pub jac: Vec<f64>,
    /// Per island: solved in DoF space (every moving side a block with its M).
    pub ok: Vec<bool>,
    /// Per block: M⁻¹ is applied through the Cholesky factor of M in `fac`
    /// (lower, row-major at `at`; [`DofRows::push_block_factored`], lcp20)
    /// instead of the dense `minv` (then absent, lcp23). An island with such a block
    /// measures its residual in DoF space ([`PrimalSolver::dof_residual`]):
    /// the problem's W holds only its diagonal blocks there.
    pub factored: Vec<bool>,
    pub fac: Vec<f64>,
    /// Per factored block (lcp21): its DoF parent array λ (λ(k) < k,
    /// [`NO_PARENT`] at a root; local indices) at `par_at`; `fac` then holds
    /// `M = Lᵀ L` factored along the tree ([`tree_cholesky`]). Other blocks:
    /// `par_at` = `usize::MAX`.
    pub parent: Vec<u32>,
    pub par_at: Vec<usize>,
    /// Scratch of [`DofRows::push_block`] (the factor of M⁻¹).
    scratch: Vec<f64>,
}

impl DofRows {
    /// Empties the rows, keeping the buffers.
    pub fn clear(&mut self) {
        self.ndof.clear();
        self.at.clear();
        self.mass.clear();
        self.minv.clear();
        self.side.clear();
        self.jac.clear();
        self.ok.clear();
        self.factored.clear();
        self.fac.clear();
        self.parent.clear();
        self.par_at.clear();
    }

    /// Appends a block of `ndof` DoFs from its M⁻¹ (row-major): M = (M⁻¹)⁻¹ by
    /// the Cholesky factor of M⁻¹ (so that M is the inverse of the M⁻¹ that W
    /// was built from, to round-off). False (the block stored as zeros) when
    /// M⁻¹ is not positive definite or not finite.
    pub fn push_block(&mut self, minv: &[f64], ndof: usize) -> bool {
        let n2 = ndof * ndof;
        let at = self.mass.len();
        self.ndof.push(ndof as u32);
        self.at.push(at);
        self.factored.push(false);
        self.par_at.push(usize::MAX);
        self.fac.resize(at + n2, 0.0);
        // A factored block before this one left `minv` short (lcp23).
        self.minv.resize(at, 0.0);
        self.mass.resize(at + n2, 0.0);
        self.minv.resize(at + n2, 0.0);
        if minv.len() != n2 || !all_finite(minv) {
            return false;
        }
        self.minv[at..at + n2].copy_from_slice(minv);
        self.scratch.clear();
        self.scratch.extend_from_slice(minv);
        if !dense_cholesky(&mut self.scratch, ndof) {
            self.minv[at..at + n2].fill(0.0);
            return false;
        }
        let m = &mut self.mass[at..at + n2];
        for c in 0..ndof {
            let col = &mut m[c * ndof..(c + 1) * ndof];
            col.fill(0.0);
            col[c] = 1.0;
            dense_cholesky_solve(&self.scratch, ndof, col);
        }
        // Symmetric to the last bit (M's columns were solved one by one).
        for r in 0..ndof {
            for c in r + 1..ndof {
                let v = 0.5 * (m[r * ndof + c] + m[c * ndof + r]);
                m[r * ndof + c] = v;
                m[c * ndof + r] = v;
            }
        }
        if !all_finite(m) {
            m.fill(0.0);
            self.minv[at..at + n2].fill(0.0);
            return false;
        }
        true
    }

    /// Appends a block of `ndof` DoFs with its M⁻¹ and M (row-major; M
    /// symmetric) as given. False (the block stored as zeros) when either is
    /// not finite or not of `ndof²` entries.
    pub fn push_block_with_mass(&mut self, minv: &[f64], mass: &[f64], ndof: usize) -> bool {
        let n2 = ndof * ndof;
        let at = self.mass.len();
        self.ndof.push(ndof as u32);
        self.at.push(at);
        self.factored.push(false);
        self.par_at.push(usize::MAX);
        self.fac.resize(at + n2, 0.0);
        // A factored block before this one left `minv` short (lcp23).
        self.minv.resize(at, 0.0);
        if minv.len() != n2 || mass.len() != n2 || !all_finite(minv) || !all_finite(mass) {
            self.mass.resize(at + n2, 0.0);
            self.minv.resize(at + n2, 0.0);
            return false;
        }
        self.mass.extend_from_slice(mass);
        self.minv.extend_from_slice(minv);
        true
    }

    /// Appends a block of `ndof` DoFs with its M (row-major, symmetric), its
    /// DoF parent array λ (λ(k) < k, [`NO_PARENT`] at a root) and the factor
    /// `M = Lᵀ L` along that tree ([`tree_cholesky`]'s layout: L in the lower
    /// triangle, row-major; lcp21 — lcp20's dense `L Lᵀ`): M⁻¹ is applied by
    /// the tree's solves with L, never formed. False (the block stored as
    /// zeros) when either is not finite, not of `ndof²` entries, λ is not a
    /// parent array of `ndof` DoFs, or L has a pivot that is not positive.
    pub fn push_block_factored(
        &mut self,
        mass: &[f64],
        fac: &[f64],
        parent: &[u32],
        ndof: usize,
    ) -> bool {
        let n2 = ndof * ndof;
        let at = self.mass.len();
        self.ndof.push(ndof as u32);
        self.at.push(at);
        // M and L are checked finite here (and only here: `valid` does not
        // read a factored block's M again); `minv` is not padded for a
        // factored block, which never reads it (lcp23: was 8 KB of zeros per
        // humanoid block).
        let ok = mass.len() == n2
            && fac.len() == n2
            && parent_array(parent, ndof)
            && finite_all(mass)
            && finite_all(fac)
            && (0..ndof).all(|i| fac[i * ndof + i] > 0.0);
        self.factored.push(ok);
        if !ok {
            self.minv.resize(at + n2, 0.0);
            self.mass.resize(at + n2, 0.0);
            self.fac.resize(at + n2, 0.0);
            self.par_at.push(usize::MAX);
            return false;
        }
        self.mass.extend_from_slice(mass);
        self.fac.extend_from_slice(fac);
        self.par_at.push(self.parent.len());
        self.parent.extend_from_slice(parent);
        true
    }

    /// Block `b`'s parent array when it is factored along its tree.
    fn tree_of(&self, b: usize) -> Option<&[u32]> {
        let n = *self.ndof.get(b)? as usize;
        let at = *self.par_at.get(b)?;
        self.parent.get(at..at.checked_add(n)?)
    }

    /// Whether the rows are consistent with `n` points and `islands` islands.
    fn valid(&self, n: usize, islands: usize) -> bool {
        let nb = self.ndof.len();
        self.at.len() == nb
            && self.side.len() == n
            && self.ok.len() == islands
            && self.minv.len() <= self.mass.len()
            && (self.factored.is_empty()
                || (self.factored.len() == nb
                    && self.fac.len() == self.mass.len()
                    && self.par_at.len() == nb
                    && (0..nb).all(|b| {
                        !self.factored[b]
                            || self
                                .tree_of(b)
                                .is_some_and(|p| parent_array(p, self.ndof[b] as usize))
                    })))
            && (0..nb).all(|b| {
                // A block that is not factored reads its M⁻¹ (lcp23: a
                // factored one has none, `minv` may end before it) and its M,
                // checked finite here; a factored block's M was checked by
                // `push_block_factored`, the only one that marks it.
                let d = self.ndof[b] as usize;
                let m = self.at[b]..self.at[b] + d * d;
                m.end <= self.mass.len()
                    && (self.factored.get(b).copied().unwrap_or(false)
                        || (m.end <= self.minv.len() && finite_all(&self.mass[m])))
            })
            && self.side.iter().all(|s| {
                s.iter().all(|&(b, off)| {
                    b == NO_BODY
                        || ((b as usize) < nb
                            && off + 3 * self.ndof[b as usize] as usize <= self.jac.len())
                })
            })
            && finite_all(&self.jac)
    }
}

/// Whether every entry of `v` is finite, without an early exit (lcp23): the
/// sums of `x · 0` over four lanes are ±0 exactly when every `x` is finite
/// (`∞ · 0` and `NaN · 0` are NaN), a loop the compiler vectorizes
/// (`lcp::all_finite` tests entry by entry).
pub(crate) fn finite_all(v: &[f64]) -> bool {
    let mut acc = [0.0f64; 4];
    let chunks = v.chunks_exact(4);
    let rest = chunks.remainder();
    for c in chunks {
        for (a, x) in acc.iter_mut().zip(c) {
            *a += x * 0.0;
        }
    }
    for (a, x) in acc.iter_mut().zip(rest) {
        *a += x * 0.0;
    }
    acc.iter().all(|&a| a == 0.0)
}

/// In-place Cholesky of the `n×n` row-major symmetric `a` (its lower triangle
/// read): `L` in the lower triangle. False on a pivot that is not positive.
pub(crate) fn dense_cholesky(a: &mut [f64], n: usize) -> bool {
    for j in 0..n {
        let rest = &mut a[j * n..];
        let (rj, below) = rest.split_at_mut(n);
        let d = rj[j] - rj[..j].iter().map(|v| v * v).sum::<f64>();
        if d.is_nan() || d <= 0.0 || !d.is_finite() {
            return false;
        }
        let d = d.sqrt();
        rj[j] = d;
        for ri in below.chunks_exact_mut(n) {
            let s = ri[j]
                - ri[..j]
                    .iter()
                    .zip(&rj[..j])
                    .map(|(a, b)| a * b)
                    .sum::<f64>();
            ri[j] = s / d;
        }
    }
    true
}

/// Solves `L Lᵀ x = b` in place with a lower factor L (row-major `n×n`: that of
/// [`dense_cholesky`], or Rigid IPC's Newton system, `pipeline::ipc::newton`).
pub(crate) fn dense_cholesky_solve(l: &[f64], n: usize, b: &mut [f64]) {
    for i in 0..n {
        let row = &l[i * n..i * n + i];
        let mut s = b[i];
        for (k, lv) in row.iter().enumerate() {
            s -= lv * b[k];
        }
        b[i] = s / l[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = b[i];
        for k in i + 1..n {
            s -= l[k * n + i] * b[k];
        }
        b[i] = s / l[i * n + i];
    }
}

/// A DoF without a parent in a parent array ([`tree_cholesky`]).
pub const NO_PARENT: u32 = u32::MAX;

/// Whether `parent` is a DoF parent array of `n` DoFs: λ(k) < k or
/// [`NO_PARENT`] (what the tree's loops need to end).
pub fn parent_array(parent: &[u32], n: usize) -> bool {
    parent.len() == n
        && parent
            .iter()
            .enumerate()
            .all(|(k, &p)| p == NO_PARENT || (p as usize) < k)
}

/// In-place `A = Lᵀ L` of the `n×n` row-major symmetric `a` (its lower
/// triangle read) along the DoF parent array `parent` (λ(k) < k; Featherstone
/// §6.5, Table 6.3, as `dynamics::mass::factor_mass`): from the last DoF to
/// the first, only the entries `(k, i)` with `i` an ancestor of `k` are read
/// and written — no fill-in, `O(Σ d_k²)` for DoF depths `d_k` instead of
/// `n³/6` — so `a` must be zero off that branch-induced sparsity (a
/// kinematic tree's M, plus `Jᵀ K J` of points on one link: its chain). L
/// in the lower triangle at those entries (the others are left as they
/// were: [`tree_cholesky_solve`] never reads them). False on a pivot that is
/// not positive. `parent` must satisfy [`parent_array`].
pub fn tree_cholesky(a: &mut [f64], n: usize, parent: &[u32]) -> bool {
    for k in (0..n).rev() {
        let d = a[k * n + k];
        if d.is_nan() || d <= 0.0 || !d.is_finite() {
            return false;
        }
        let d = d.sqrt();
        a[k * n + k] = d;
        let mut i = parent[k];
        while i != NO_PARENT {
            a[k * n + i as usize] /= d;
            i = parent[i as usize];
        }
        let mut i = parent[k];
        while i != NO_PARENT {
            let ii = i as usize;
            let lki = a[k * n + ii];
            let mut j = i;
            while j != NO_PARENT {
                let jj = j as usize;
                a[ii * n + jj] -= lki * a[k * n + jj];
                j = parent[jj];
            }
            i = parent[ii];
        }
    }
    true
}

/// `b ← L⁻ᵀ b` with [`tree_cholesky`]'s factor (`M = Lᵀ L`): from the last
/// DoF to the first; a zero of the result adds nothing to its ancestors, so
/// a row of G on one chain costs that chain's depths. `J M⁻¹ Jᵀ` is then
/// `(L⁻ᵀ Jᵀ)ᵀ (L⁻ᵀ Jᵀ)`.
pub fn tree_lt_solve(l: &[f64], n: usize, parent: &[u32], b: &mut [f64]) {
    for k in (0..n).rev() {
        tree_lt_step(l, n, parent, k, b);
    }
}

/// DoF `k`'s step of [`tree_lt_solve`]: `b_k ← b_k / L_kk`, then its ancestors
/// take `L_kj b_k` off (nothing when it is zero). Callers that know `b` is zero
/// off a chain step only its DoFs, descending, with the same result.
#[inline]
pub fn tree_lt_step(l: &[f64], n: usize, parent: &[u32], k: usize, b: &mut [f64]) {
    let y = b[k] / l[k * n + k];
    b[k] = y;
    if y == 0.0 {
        return;
    }
    let mut j = parent[k];
    while j != NO_PARENT {
        let jj = j as usize;
        b[jj] -= l[k * n + jj] * y;
        j = parent[jj];
    }
}

/// Solves `Lᵀ L x = b` in place with [`tree_cholesky`]'s factor: `O(Σ d_k)`.
pub fn tree_cholesky_solve(l: &[f64], n: usize, parent: &[u32], b: &mut [f64]) {
    tree_lt_solve(l, n, parent, b);
    for k in 0..n {
        let mut s = b[k];
        let mut j = parent[k];
        while j != NO_PARENT {
            let jj = j as usize;
            s -= l[k * n + jj] * b[jj];
            j = parent[jj];
        }
        b[k] = s / l[k * n + k];
    }
}

/// Row `k` of [`tree_cholesky`] (`rk`, with the rows above it in `head`) given
/// its ancestor runs (nearest first, `(lo, hi)` for hi, hi − 1, …, lo): the
/// parent walk's operations, each entry `(i, j)` written once per row k as
/// there, over contiguous slices (lcp22; H's factor only, where the runs are
/// listed once per island solve). False on a pivot that is not positive.
#[inline]
fn factor_row(head: &mut [f64], rk: &mut [f64], k: usize, runs: &[(u32, u32)]) -> bool {
    let n = rk.len();
    let d = rk[k];
    if d.is_nan() || d <= 0.0 || !d.is_finite() {
        return false;
    }
    let d = d.sqrt();
    rk[k] = d;
    for &(lo, hi) in runs {
        for x in &mut rk[lo as usize..=hi as usize] {
            *x /= d;
        }
    }
    for (r, &(lo, hi)) in runs.iter().enumerate() {
        let lo = lo as usize;
        for ii in (lo..=hi as usize).rev() {
            let lki = rk[ii];
            let ri = &mut head[ii * n..ii * n + ii + 1];
            // Row ii's part: its own run down from ii, the farther runs whole.
            sub_scaled(&mut ri[lo..=ii], lki, &rk[lo..=ii]);
            for &(l2, h2) in &runs[r + 1..] {
                let (l2, h2) = (l2 as usize, h2 as usize);
                sub_scaled(&mut ri[l2..=h2], lki, &rk[l2..=h2]);
            }
        }
    }
    true
}

/// `y ← y − s x` entry by entry.
#[inline]
fn sub_scaled(y: &mut [f64], s: f64, x: &[f64]) {
    for (yv, xv) in y.iter_mut().zip(x) {
        *yv -= s * xv;
    }
}

/// `b_j −= L_kj y` over row k's ancestor runs (the `L⁻ᵀ` sweep; one update
/// per entry, the walk's).
#[inline]
fn lt_row(lk: &[f64], y: f64, runs: &[(u32, u32)], b: &mut [f64]) {
    for &(lo, hi) in runs {
        let (lo, hi) = (lo as usize, hi as usize);
        for (bv, lv) in b[lo..=hi].iter_mut().zip(&lk[lo..=hi]) {
            *bv -= lv * y;
        }
    }
}

/// `(b_k − Σ_j L_kj b_j) / L_kk` over row k's ancestors, nearest first (the
/// `L⁻¹` sweep; the walk's order of the sum).
#[inline]
fn l_row(lk: &[f64], k: usize, runs: &[(u32, u32)], b: &[f64]) -> f64 {
    let mut s = b[k];
    for &(lo, hi) in runs {
        let (lo, hi) = (lo as usize, hi as usize);
        for (lv, bv) in lk[lo..=hi].iter().zip(&b[lo..=hi]).rev() {
            s -= lv * bv;
        }
    }
    s / lk[k]
}

/// `y = A x` for a dense `n×n` row-major A.
#[inline]
fn dense_mul(a: &[f64], n: usize, x: &[f64], y: &mut [f64]) {
    for (r, yv) in y.iter_mut().enumerate().take(n) {
        let row = &a[r * n..(r + 1) * n];
        *yv = row.iter().zip(x).map(|(a, b)| a * b).sum();
    }
}

/// `J x` for a side's rows (3 × ndof, row-major) on the block's part of x.
#[inline]
fn jd_times(j: &[f64], x: &[f64]) -> [f64; 3] {
    let n = x.len();
    let mut out = [0.0; 3];
    for (a, o) in out.iter_mut().enumerate() {
        *o = j[a * n..(a + 1) * n]
            .iter()
            .zip(x)
            .map(|(a, b)| a * b)
            .sum();
    }
    out
}

/// `y += s Jᵀ v` for a side's rows on the block's part y.
#[inline]
fn jdt_add(j: &[f64], v: &[f64; 3], s: f64, y: &mut [f64]) {
    let n = y.len();
    for (c, yv) in y.iter_mut().enumerate() {
        *yv += s * (j[c] * v[0] + j[n + c] * v[1] + j[2 * n + c] * v[2]);
    }
}

impl PrimalSolver {
    /// [`Self::solve_contacts`], with the islands that `rows` does not mark as
    /// body space solved in DoF space where `dofs` marks them ("Articulated
    /// islands", lcp19); the others are skipped.
    pub fn solve_contacts_dofs(
        &self,
        problem: &ContactProblem,
        rows: &BodyRows,
        dofs: Option<&DofRows>,
        guess: Option<&[f64]>,
        res: &mut PrimalResults,
    ) -> PrimalStatus {
        let islands = problem.island_start.len().saturating_sub(1);
        if dofs.is_some_and(|d| !d.valid(problem.n(), islands)) {
            res.z.clear();
            res.z.resize(3 * problem.n(), 0.0);
            res.island_solved.clear();
            res.island_skipped.clear();
            res.stats = PrimalStats {
                residual: f64::INFINITY,
                ..PrimalStats::default()
            };
            return PrimalStatus::InvalidProblem;
        }
        self.solve_all(problem, rows, dofs, guess, res)
    }

    /// One island in DoF space; None when it is too large (skipped), else
    /// (converged, residual). The same passes as [`Self::island_body_space`]
    /// (proximal centre, Anderson on the radii, the warm start's pieces, the
    /// factor kept while the pieces hold, the stall test), without the
    /// options that are off by default (cone run, soft identification, Newton
    /// on the radii, the breakpoint line search).
    fn island_dofs(
        &self,
        problem: &ContactProblem,
        rows: &BodyRows,
        dofs: &DofRows,
        order: &[u32],
        res: &mut PrimalResults,
    ) -> Option<(bool, f64)> {
        // The island's blocks and their offsets in x.
        res.dof_blocks.clear();
        res.dof_at.resize(dofs.ndof.len(), u32::MAX);
        let mut nx = 0usize;
        for &i in order {
            for &(b, _) in &dofs.side[i as usize] {
                if b != NO_BODY && res.dof_at[b as usize] == u32::MAX {
                    res.dof_at[b as usize] = nx as u32;
                    res.dof_blocks.push(b);
                    nx += dofs.ndof[b as usize] as usize;
                }
            }
        }
        let out = if nx == 0 {
            Some((false, f64::INFINITY))
        } else if nx > DOF_MAX {
            None
        } else {
            res.stats.articulated_islands += 1;
            res.dof_lean = res
                .dof_blocks
                .iter()
                .any(|&b| dofs.factored.get(b as usize).copied().unwrap_or(false));
            // H in the tree's sparsity (lcp21): one factored block, each point
            // on it from one side.
            res.dof_tree = match res.dof_blocks[..] {
                [b] if dofs.tree_of(b as usize).is_some()
                    && order.iter().all(|&i| {
                        dofs.side[i as usize]
                            .iter()
                            .filter(|&&(s, _)| s != NO_BODY)
                            .count()
                            == 1
                    }) =>
                {
                    Some(b)
                }
                _ => None,
            };
            res.fact_tree = false;
            // The sides' non-zero columns, once per island solve; the tree
            // only while each side's columns lie on one chain (a link's path
            // to the root: what the tree's sparsity holds).
            let tree = res.dof_tree.and_then(|b| dofs.tree_of(b as usize));
            res.nzc.clear();
            res.nz_at.resize(dofs.side.len(), [0; 3]);
            let mut chains = true;
            let mut side_cols = 0;
            for &i in order {
                let i = i as usize;
                let mut at = [res.nzc.len() as u32; 3];
                for (s, &(b, off)) in dofs.side[i].iter().enumerate() {
                    if b != NO_BODY {
                        let n = dofs.ndof[b as usize] as usize;
                        side_cols += n;
                        let j = &dofs.jac[off..off + 3 * n];
                        let from = res.nzc.len();
                        res.nzc.extend(
                            (0..n)
                                .filter(|&c| j[c] != 0.0 || j[n + c] != 0.0 || j[2 * n + c] != 0.0)
                                .map(|c| c as u32),
                        );
                        chains &= tree.is_none_or(|par| on_chain(&res.nzc[from..], par));
                    }
                    at[s + 1] = res.nzc.len() as u32;
                }
                res.nz_at[i] = at;
            }
            res.dof_sparse = nx >= SPARSE_SIDE.0 && res.nzc.len() * SPARSE_SIDE.1 < side_cols;
            if !chains {
                res.dof_tree = None;
            }
            if let Some(par) = res.dof_tree.and_then(|b| dofs.tree_of(b as usize)) {
                res.anc.clear();
                res.anc_at.clear();
                for k in 0..nx {
                    let start = res.anc.len();
                    res.anc_at.push(start as u32);
                    let mut j = par[k];
                    while j != NO_PARENT {
                        match res.anc[start..].last_mut() {
                            Some(run) if run.0 == j + 1 => run.0 = j,
                            _ => res.anc.push((j, j)),
                        }
                        j = par[j as usize];
                    }
                }
                res.anc_at.push(res.anc.len() as u32);
            }
            Some(self.island_dofs_run(problem, rows, dofs, order, nx, res))
        };
        for &b in &res.dof_blocks {
            res.dof_at[b as usize] = u32::MAX;
        }
        out
    }

    fn island_dofs_run(
        &self,
        problem: &ContactProblem,
        rows: &BodyRows,
        dofs: &DofRows,
        order: &[u32],
        nx: usize,
        res: &mut PrimalResults,
    ) -> (bool, f64) {
        let p = &self.params;
        for v in [&mut res.xd, &mut res.gd, &mut res.dd, &mut res.td] {
            v.clear();
            v.resize(nx, 0.0);
        }
        // H's storage; `dof_factor` writes what it reads before every
        // factorization (lcp22: not zeroed here as well).
        res.hd.resize(nx * nx, 0.0);
        res.fact_valid = false;
        res.cone = false;
        // x = M⁻¹ Gᵀ z of the (projected) guess.
        for &i in order {
            let i = i as usize;
            let z = [res.z[3 * i], res.z[3 * i + 1], res.z[3 * i + 2]];
            gt_add(
                dofs,
                (&res.dof_at, &res.nzc, &res.nz_at, res.dof_sparse),
                i,
                &z,
                1.0,
                &mut res.td,
            );
        }
        block_mul(
            dofs,
            (&res.dof_blocks, &res.dof_at),
            true,
            &res.td,
            &mut res.xd,
        );
        for &i in order {
            let i = i as usize;
            res.radius[i] = problem.radius_with(i, |j| res.z[3 * j].max(0.0));
            res.centre[i] = [res.z[3 * i], res.z[3 * i + 1], res.z[3 * i + 2]];
        }
        let table = &problem.table;
        let mut residual = f64::INFINITY;
        let mut kept = 0;
        let (mut best, mut stalled) = (f64::INFINITY, 0);
        // Newton steps on the radii per pass (lcp20, as in body space):
        // `radius_newton`, or `radius_newton_on_stall` once the island stalls.
        let mut radius_steps = p.radius_newton;
        if order.len() <= p.dof_radius_newton_points {
            // A small island: Newton on the radii from the first pass (lcp21).
            radius_steps = radius_steps.max(p.radius_newton_on_stall);
        }
        for pass in 0..p.max_passes {
            res.stats.passes += 1;
            set_proximal(problem, rows, order, res, p.dof_proximal);
            if pass == 0 && res.warm && p.warm_pieces {
                self.dof_piece_start(problem, dofs, order, nx, res);
            }
            if self.dof_inner(dofs, order, nx, table, res).is_none() {
                return (false, f64::INFINITY);
            }
            // Newton on the radii at this centre ("Newton on the radii").
            for _ in 0..radius_steps {
                if radius_offset(problem, order, res) <= RADIUS_TOL * p.tolerance {
                    break;
                }
                match self.dof_radius_step(problem, dofs, order, nx, res) {
                    None => return (false, f64::INFINITY),
                    Some(true) => {}
                    Some(false) => {
                        for &i in order {
                            let i = i as usize;
                            res.radius[i] = problem.radius_with(i, |j| res.zs[j][0]);
                        }
                    }
                }
                if self.dof_inner(dofs, order, nx, table, res).is_none() {
                    return (false, f64::INFINITY);
                }
            }
            for &i in order {
                let i = i as usize;
                res.z[3 * i..3 * i + 3].copy_from_slice(&res.zs[i]);
            }
            residual = if res.dof_lean {
                self.dof_residual(problem, rows, dofs, order, res)
            } else {
                contact_residual(problem, order, &res.z)
            };
            if residual <= p.tolerance {
                return (true, residual);
            }
            if !residual.is_finite() {
                return (false, residual);
            }
            if residual < 0.5 * best {
                stalled = 0;
            } else {
                stalled += 1;
                if p.dof_stall_passes > 0 && stalled >= p.dof_stall_passes {
                    if radius_steps > 0 || p.radius_newton_on_stall == 0 {
                        return (false, residual);
                    }
                    // Stalled on the radii passes: Newton on the radii from here.
                    radius_steps = p.radius_newton_on_stall;
                    stalled = 0;
                }
            }
            best = best.min(residual);
            for &i in order {
                let i = i as usize;
                res.centre[i] = res.zs[i];
            }
            let m = p.anderson.min(ANDERSON_MAX);
            if radius_steps > 0 {
                // The radii consistent with the centre z (as in body space).
                for &i in order {
                    let i = i as usize;
                    res.radius[i] = problem.radius_with(i, |j| res.z[3 * j].max(0.0));
                }
            } else if m < 2 || !anderson(problem, order, res, m, &mut kept) {
                for &i in order {
                    let i = i as usize;
                    res.radius[i] = problem.radius_with(i, |j| res.z[3 * j].max(0.0));
                }
            }
        }
        (false, residual)
    }

    /// [`Self::evaluate`] in DoF space: `u = G x + q'`, the impulses and
    /// pieces, `g = M x − Gᵀ z*`.
    fn dof_evaluate(
        &self,
        dofs: &DofRows,
        order: &[u32],
        table: &PolygonTable,
        res: &mut PrimalResults,
    ) -> bool {
        block_mul(
            dofs,
            (&res.dof_blocks, &res.dof_at),
            false,
            &res.xd,
            &mut res.gd,
        );
        for &i in order {
            let i = i as usize;
            let gx = g_of(
                dofs,
                (&res.dof_at, &res.nzc, &res.nz_at, res.dof_sparse),
                i,
                &res.xd,
            );
            let mut u = res.q[i];
            for a in 0..3 {
                u[a] += gx[a];
            }
            let (z, on, piece) = point_impulse(&u, &res.e[i], res.radius[i], table);
            gt_add(
                dofs,
                (&res.dof_at, &res.nzc, &res.nz_at, res.dof_sparse),
                i,
                &z,
                -1.0,
                &mut res.gd,
            );
            res.u[i] = u;
            res.zs[i] = z;
            res.normal_on[i] = on;
            res.tangent[i] = piece;
        }
        all_finite(&res.gd)
    }

    /// The inner Newton on f at the pass's centre and radii (DoF space): from
    /// the current x until the frozen residual is below half the tolerance,
    /// the pieces repeat, or no step is taken. None on a failure.
    fn dof_inner(
        &self,
        dofs: &DofRows,
        order: &[u32],
        nx: usize,
        table: &PolygonTable,
        res: &mut PrimalResults,
    ) -> Option<()> {
        let p = &self.params;
        if !self.dof_evaluate(dofs, order, table, res) {
            return None;
        }
        for _ in 0..p.max_iterations {
            if self.dof_frozen_residual(dofs, order, table, res) <= 0.5 * p.tolerance {
                break;
            }
            for &i in order {
                let i = i as usize;
                res.prev[i] = (res.normal_on[i], res.tangent[i]);
            }
            match self.dof_newton_step(dofs, order, nx, res, table) {
                None => return None,
                Some(false) => break,
                Some(true) => {}
            }
            if !self.dof_evaluate(dofs, order, table, res) {
                return None;
            }
            if order.iter().all(|&i| {
                let i = i as usize;
                res.prev[i] == (res.normal_on[i], res.tangent[i])
            }) {
                break;
            }
        }
        Some(())
    }

    /// [`Self::radius_step`] in DoF space (lcp20): `∂x/∂r_l = H⁻¹ G_lᵀ b_l`
    /// through the factor of H at the current pieces, `(I − diag(μ) ∂p_n/∂r)
    /// Δr = μ p_n − r` on the sliding points, `x += Σ_l Δr_l ∂x/∂r_l`, the
    /// other points' radii `μ p_n` at the new x. `Some(false)`: nothing done;
    /// None on a failed factorization or a non-finite x.
    fn dof_radius_step(
        &self,
        problem: &ContactProblem,
        dofs: &DofRows,
        order: &[u32],
        nx: usize,
        res: &mut PrimalResults,
    ) -> Option<bool> {
        let k = sliding_set(order, res);
        if k == 0 || k > RADIUS_NEWTON_MAX {
            for &i in order {
                res.in_slide[i as usize] = false;
            }
            return Some(false);
        }
        if !self.dof_factor(dofs, order, nx, res) {
            return None;
        }
        let ch = problem.table.half.0;
        res.dxd.clear();
        res.dxd.resize(k * nx, 0.0);
        for a in 0..k {
            let l = res.slide[a] as usize;
            let b = slide_direction(&res.zs[l], &res.e[l], res.radius[l], res.tangent[l], ch);
            let col = &mut res.dxd[a * nx..(a + 1) * nx];
            gt_add(
                dofs,
                (&res.dof_at, &res.nzc, &res.nz_at, res.dof_sparse),
                l,
                &b,
                1.0,
                col,
            );
            h_solve(res, nx, HVec::Radius, a);
        }
        let gn = |res: &PrimalResults, i: usize, col: usize| {
            g_of(
                dofs,
                (&res.dof_at, &res.nzc, &res.nz_at, res.dof_sparse),
                i,
                &res.dxd[col * nx..(col + 1) * nx],
            )[0]
        };
        if !radius_newton_system(problem, order, k, gn, res) {
            return Some(false);
        }
        for (j, xv) in res.xd.iter_mut().enumerate() {
            for (a, &dr) in res.krhs.iter().enumerate() {
                *xv += dr * res.dxd[a * nx + j];
            }
        }
        if !all_finite(&res.xd) {
            return None;
        }
        let table = problem.table;
        if !self.dof_evaluate(dofs, order, &table, res) {
            return None;
        }
        other_radii(problem, order, res);
        Some(true)
    }

    /// [`contact_residual`] of `res.z` without W (lcp20): `w = G M⁻¹ Gᵀ z +
    /// E z + q` (W = G M⁻¹ Gᵀ + diag(E), `E` = [`BodyRows::cfm`]), with M⁻¹
    /// applied block by block ([`block_mul`]); `dd` and `td` as scratch.
    fn dof_residual(
        &self,
        problem: &ContactProblem,
        rows: &BodyRows,
        dofs: &DofRows,
        order: &[u32],
        res: &mut PrimalResults,
    ) -> f64 {
        res.dd.fill(0.0);
        for &i in order {
            let i = i as usize;
            let z = [res.z[3 * i], res.z[3 * i + 1], res.z[3 * i + 2]];
            gt_add(
                dofs,
                (&res.dof_at, &res.nzc, &res.nz_at, res.dof_sparse),
                i,
                &z,
                1.0,
                &mut res.dd,
            );
        }
        block_mul(
            dofs,
            (&res.dof_blocks, &res.dof_at),
            true,
            &res.dd,
            &mut res.td,
        );
        let mut out = 0.0_f64;
        for &i in order {
            let i = i as usize;
            let v = g_of(
                dofs,
                (&res.dof_at, &res.nzc, &res.nz_at, res.dof_sparse),
                i,
                &res.td,
            );
            let z = &res.z[3 * i..3 * i + 3];
            let e = rows.cfm[i];
            let mut r = [0.0; 3];
            for a in 0..3 {
                r[a] = problem.q[3 * i + a] + v[a] + e[a] * z[a];
            }
            let x = natural_map(
                z,
                &r,
                problem.radius_with(i, |j| res.z[3 * j]),
                &problem.table,
            );
            if x.is_nan() {
                return f64::INFINITY;
            }
            out = out.max(x);
        }
        out
    }

    /// [`Self::frozen_residual`] in DoF space (`td` = M⁻¹ g as scratch).
    fn dof_frozen_residual(
        &self,
        dofs: &DofRows,
        order: &[u32],
        table: &PolygonTable,
        res: &mut PrimalResults,
    ) -> f64 {
        block_mul(
            dofs,
            (&res.dof_blocks, &res.dof_at),
            true,
            &res.gd,
            &mut res.td,
        );
        let mut out = 0.0_f64;
        for &i in order {
            let i = i as usize;
            let (z, e) = (res.zs[i], res.e[i]);
            let v = g_of(
                dofs,
                (&res.dof_at, &res.nzc, &res.nz_at, res.dof_sparse),
                i,
                &res.td,
            );
            let mut w = [0.0; 3];
            for a in 0..3 {
                w[a] = res.u[i][a] + e[a] * z[a] - v[a];
            }
            let en = (z[0] - (z[0] - w[0]).max(0.0)).abs();
            let (p1, p2) = project_polygon_with(z[1] - w[1], z[2] - w[2], res.radius[i], table);
            let r = en.max((z[1] - p1).abs()).max((z[2] - p2).abs());
            if r.is_nan() {
                return f64::INFINITY;
            }
            out = out.max(r);
        }
        out
    }

    /// H = M + Σ Gᵢᵀ Kᵢ Gᵢ at the current pieces into `hd`, factored; kept
    /// when the factor is at the same pieces (as [`Self::factor_at_pieces`]).
    fn dof_factor(
        &self,
        dofs: &DofRows,
        order: &[u32],
        nx: usize,
        res: &mut PrimalResults,
    ) -> bool {
        if self.params.reuse_factor
            && res.fact_valid
            && order.iter().all(|&i| {
                let i = i as usize;
                res.fact_pieces[i] == (res.normal_on[i], res.tangent[i])
            })
        {
            return true;
        }
        res.stats.factorizations += 1;
        res.fact_valid = false;
        let PrimalResults {
            dof_blocks,
            dof_at,
            dof_tree,
            hd,
            kj,
            nzc,
            nz_at,
            anc,
            anc_at,
            e,
            normal_on,
            tangent,
            ..
        } = res;
        if let Some(b) = *dof_tree {
            // M on the tree's sparsity only (lcp22): the entries (k, k) and
            // (k, ancestors of k), all that the assembly below, the factor and
            // its solves touch (the island is this block, at offset 0).
            let (n, at) = (dofs.ndof[b as usize] as usize, dofs.at[b as usize]);
            let m = &dofs.mass[at..at + n * n];
            for k in 0..n.min(nx) {
                let (mk, hk) = (&m[k * n..(k + 1) * n], &mut hd[k * nx..(k + 1) * nx]);
                hk[k] = mk[k];
                for &(lo, hi) in &anc[anc_at[k] as usize..anc_at[k + 1] as usize] {
                    let (lo, hi) = (lo as usize, hi as usize);
                    hk[lo..=hi].copy_from_slice(&mk[lo..=hi]);
                }
            }
        } else {
            hd.fill(0.0);
            for &b in dof_blocks.iter() {
                let b = b as usize;
                let (n, at, off) = (dofs.ndof[b] as usize, dofs.at[b], dof_at[b] as usize);
                for r in 0..n {
                    let src = &dofs.mass[at + r * n..at + (r + 1) * n];
                    hd[(off + r) * nx + off..(off + r) * nx + off + n].copy_from_slice(src);
                }
            }
        }
        // The lower triangle only (what the factorizations read), over the
        // columns each side's rows touch (a foot's rows: its chain's DoFs,
        // listed in `island_dofs`).
        for &i in order {
            let i = i as usize;
            let Some(k) = hessian(&e[i], normal_on[i], tangent[i]) else {
                continue;
            };
            let at = nz_at[i];
            let cols = |s: usize| &nzc[at[s] as usize..at[s + 1] as usize];
            for (tside, &(bt, offt)) in dofs.side[i].iter().enumerate() {
                if bt == NO_BODY {
                    continue;
                }
                let nt = dofs.ndof[bt as usize] as usize;
                let ct = dof_at[bt as usize] as usize;
                let jt = &dofs.jac[offt..offt + 3 * nt];
                let tcols = cols(tside);
                let m = tcols.len();
                // K J_t (3 × m) on its non-zero columns.
                kj.clear();
                kj.resize(3 * m, 0.0);
                for (q, &c) in tcols.iter().enumerate() {
                    let c = c as usize;
                    for (r, kr) in k.iter().enumerate() {
                        kj[r * m + q] = kr[0] * jt[c] + kr[1] * jt[nt + c] + kr[2] * jt[2 * nt + c];
                    }
                }
                let (k0, k1, k2) = (&kj[..m], &kj[m..2 * m], &kj[2 * m..3 * m]);
                for (sside, &(bs, offs)) in dofs.side[i].iter().enumerate() {
                    if bs == NO_BODY {
                        continue;
                    }
                    let ns = dofs.ndof[bs as usize] as usize;
                    let cs = dof_at[bs as usize] as usize;
                    let js = &dofs.jac[offs..offs + 3 * ns];
                    if sside == tside {
                        // The side with itself (ascending columns, one block):
                        // the entries c ≤ r are the columns up to r's (lcp21:
                        // the same sums as below, without the tests).
                        for (p, &r) in tcols.iter().enumerate() {
                            let r = r as usize;
                            let (j0, j1, j2) = (js[r], js[ns + r], js[2 * ns + r]);
                            let row = &mut hd[(cs + r) * nx + ct..(cs + r) * nx + nx];
                            let q = p + 1;
                            for (((&c, &a0), &a1), &a2) in
                                tcols[..q].iter().zip(&k0[..q]).zip(&k1[..q]).zip(&k2[..q])
                            {
                                row[c as usize] += j0 * a0 + j1 * a1 + j2 * a2;
                            }
                        }
                        continue;
                    }
                    for &r in cols(sside) {
                        let r = r as usize;
                        let (j0, j1, j2) = (js[r], js[ns + r], js[2 * ns + r]);
                        let row = &mut hd[(cs + r) * nx..(cs + r) * nx + nx];
                        for (q, &c) in tcols.iter().enumerate() {
                            let c = c as usize;
                            if ct + c <= cs + r {
                                row[ct + c] += j0 * kj[q] + j1 * kj[m + q] + j2 * kj[2 * m + q];
                            }
                        }
                    }
                }
            }
        }
        let tree = dof_tree.is_some();
        let ok = if tree {
            tree_cholesky_runs(hd, nx, (anc, anc_at))
        } else {
            dense_cholesky(hd, nx)
        };
        res.fact_tree = tree;
        if !ok {
            return false;
        }
        for &i in order {
            let i = i as usize;
            res.fact_pieces[i] = (res.normal_on[i], res.tangent[i]);
        }
        res.fact_valid = true;
        true
    }

    /// [`Self::newton_step`] in DoF space with the line search of
    /// [`PrimalParams::dof_line_search`].
    fn dof_newton_step(
        &self,
        dofs: &DofRows,
        order: &[u32],
        nx: usize,
        res: &mut PrimalResults,
        table: &PolygonTable,
    ) -> Option<bool> {
        res.stats.iterations += 1;
        if !self.dof_factor(dofs, order, nx, res) {
            return None;
        }
        for (dv, gv) in res.dd.iter_mut().zip(res.gd.iter()) {
            *dv = -gv;
        }
        h_solve(res, nx, HVec::Step, 0);
        if !all_finite(&res.dd) {
            return None;
        }
        let mut moved = false;
        for &i in order {
            let i = i as usize;
            let v = g_of(
                dofs,
                (&res.dof_at, &res.nzc, &res.nz_at, res.dof_sparse),
                i,
                &res.dd,
            );
            moved |= v.iter().any(|&c| c != 0.0);
            res.du[i] = v;
        }
        if !moved {
            return Some(false);
        }
        // a0 = dᵀ M x, a1 = dᵀ M d (M d in td), fp0 = gᵀ d.
        block_mul(
            dofs,
            (&res.dof_blocks, &res.dof_at),
            false,
            &res.dd,
            &mut res.td,
        );
        let (mut a0, mut a1, mut fp0) = (0.0, 0.0, 0.0);
        for k in 0..nx {
            a0 += res.td[k] * res.xd[k];
            a1 += res.td[k] * res.dd[k];
            fp0 += res.gd[k] * res.dd[k];
        }
        if fp0.is_nan() || fp0 >= 0.0 {
            return Some(false);
        }
        let line = Line {
            order,
            u: &res.u,
            du: &res.du,
            e: &res.e,
            radius: &res.radius,
            table,
            cone: false,
            a0,
            a1,
            fp0,
        };
        let poly = Polygon {
            normals: &res.poly_n,
            vertices: &res.poly_v,
            half: table.half,
        };
        let (alpha, evaluations) = match self.params.dof_line_search {
            LineSearch::Bracketed => line.bracketed()?,
            LineSearch::Kinks => line.kinks(&poly, &mut res.breaks, self.params.full_kink_list)?,
            LineSearch::Breakpoints => {
                let (alpha, ev, kink, total) = line.breakpoints(&poly, &mut res.breaks)?;
                res.stats.line_search_breakpoints += total;
                res.stats.line_search_kinks += usize::from(kink);
                (alpha, ev)
            }
        };
        res.stats.line_search_evaluations += evaluations;
        for (xv, dv) in res.xd.iter_mut().zip(res.dd.iter()) {
            *xv += alpha * dv;
        }
        Some(true)
    }

    /// [`Self::piece_start`] in DoF space: the pieces of the guess, and x the
    /// minimizer of f on them (one factorization; a failed one leaves x).
    fn dof_piece_start(
        &self,
        problem: &ContactProblem,
        dofs: &DofRows,
        order: &[u32],
        nx: usize,
        res: &mut PrimalResults,
    ) {
        let ch = problem.table.half.0;
        pieces_of_impulses(&problem.table, order, res);
        // A frictionless normal row without impulse in the guess that closes
        // at the guess's x (u_n < 0) starts on (lcp22): a joint limit's row
        // (μ = 0) has no warm start, and the humanoid's four turned on in the
        // first Newton step of every step, a second factorization of H. (On
        // every row it cost the rover 9k instructions per step, its
        // factorizations 22.2k → 26.8k.)
        for &i in order {
            let i = i as usize;
            if !res.normal_on[i]
                && problem.mu[i] == 0.0
                && res.q[i][0]
                    + g_of(
                        dofs,
                        (&res.dof_at, &res.nzc, &res.nz_at, res.dof_sparse),
                        i,
                        &res.xd,
                    )[0]
                    < 0.0
            {
                res.normal_on[i] = true;
            }
        }
        res.stats.iterations += 1;
        if !self.dof_factor(dofs, order, nx, res) {
            return;
        }
        res.dd.fill(0.0);
        for &i in order {
            let i = i as usize;
            let (q, e, r) = (res.q[i], res.e[i], res.radius[i]);
            let zg = [res.z[3 * i], res.z[3 * i + 1], res.z[3 * i + 2]];
            let z = piece_impulse((&q, &e, r), &zg, (res.normal_on[i], res.tangent[i]), ch);
            gt_add(
                dofs,
                (&res.dof_at, &res.nzc, &res.nz_at, res.dof_sparse),
                i,
                &z,
                1.0,
                &mut res.dd,
            );
        }
        h_solve(res, nx, HVec::Step, 0);
        if all_finite(&res.dd) {
            res.xd.copy_from_slice(&res.dd);
        }
    }
}

/// Each point's pieces read off its impulses (the warm start of a pass): the normal
/// row on where p_n > 0; the tangent stuck strictly inside the k-gon of radius r,
/// on the edge the impulse lies on (its outward direction), or fixed (r = 0, no
/// polygon, or the impulse on a vertex).
fn pieces_of_impulses(table: &PolygonTable, order: &[u32], res: &mut PrimalResults) {
    let ch = table.half.0;
    for &i in order {
        let i = i as usize;
        let (zn, f1, f2) = (res.z[3 * i], res.z[3 * i + 1], res.z[3 * i + 2]);
        let r = res.radius[i];
        res.normal_on[i] = zn > 0.0;
        res.tangent[i] = if r.is_nan() || r <= 0.0 || table.k < 3 {
            Tangent::Fixed
        } else {
            let (best, (bc, bs)) = table.most_aligned(f1, f2, table.half);
            // The nearest vertex only off a stick (lcp27: was searched for every
            // point; `most_aligned` is a pure search, the same result).
            let at_vertex = || {
                let (_, (vc, vs)) = table.most_aligned(f1, f2, (1.0, 0.0));
                (f1 - r * vc).hypot(f2 - r * vs) <= 1e-9 * r
            };
            if best < r * ch * (1.0 - 1e-9) {
                Tangent::Stick
            } else if at_vertex() {
                Tangent::Fixed
            } else {
                Tangent::Edge(-bs, bc)
            }
        };
    }
}

/// A point's impulse that its pieces fix for the frozen QP's right-hand side (the
/// polygonal cone; the cone run's pieces give none): −q_n/e_n on a loaded normal
/// row, −q_t/e_t where it sticks, the edge's line through r b on an edge, the
/// impulse `zg` itself where the tangent is fixed.
fn piece_impulse(
    (q, e, r): (&[f64; 3], &[f64; 3], f64),
    zg: &[f64; 3],
    (normal_on, tangent): (bool, Tangent),
    ch: f64,
) -> [f64; 3] {
    let mut z = [0.0; 3];
    if normal_on {
        z[0] = -q[0] / e[0];
    }
    match tangent {
        Tangent::Stick => {
            z[1] = -q[1] / e[1];
            z[2] = -q[2] / e[2];
        }
        piece @ Tangent::Edge(tx, ty) => {
            let b = slide_direction(zg, e, r, piece, ch);
            let c = (tx * q[1] + ty * q[2]) / (e[1] * tx * tx + e[2] * ty * ty);
            z[1] = -c * tx + b[1] * r;
            z[2] = -c * ty + b[2] * r;
        }
        Tangent::Fixed => {
            if r > 0.0 {
                z[1] = zg[1];
                z[2] = zg[2];
            }
        }
        Tangent::ConeFace(..) | Tangent::ConeRay(..) => {}
    }
    z
}

/// `dst = M src` (or `M⁻¹ src`, `inverse`) block by block over the island's
/// blocks (`dof_at`: each block's offset in the island vectors).
fn block_mul(
    dofs: &DofRows,
    (blocks, dof_at): (&[u32], &[u32]),
    inverse: bool,
    src: &[f64],
    dst: &mut [f64],
) {
    let a = if inverse { &dofs.minv } else { &dofs.mass };
    for &b in blocks {
        let b = b as usize;
        let (n, at, off) = (dofs.ndof[b] as usize, dofs.at[b], dof_at[b] as usize);
        if inverse && dofs.factored.get(b).copied().unwrap_or(false) {
            // M⁻¹ src by the tree's solves with the factor of M (lcp20,
            // lcp21).
            let d = &mut dst[off..off + n];
            d.copy_from_slice(&src[off..off + n]);
            match dofs.tree_of(b) {
                Some(par) => tree_cholesky_solve(&dofs.fac[at..at + n * n], n, par, d),
                None => d.fill(f64::NAN),
            }
            continue;
        }
        dense_mul(
            &a[at..at + n * n],
            n,
            &src[off..off + n],
            &mut dst[off..off + n],
        );
    }
}

/// `b ← H⁻¹ b` with the factor of H in `hd` ([`PrimalSolver::dof_factor`]):
/// along the island's tree when `fact_tree` (its ancestor lists), else the
/// dense `L Lᵀ`.
fn h_solve(res: &mut PrimalResults, nx: usize, which: HVec, col: usize) {
    let PrimalResults {
        hd,
        anc,
        anc_at,
        dd,
        dxd,
        fact_tree,
        ..
    } = res;
    let b = match which {
        HVec::Step => &mut dd[..],
        HVec::Radius => &mut dxd[col * nx..(col + 1) * nx],
    };
    if *fact_tree {
        tree_cholesky_solve_runs(hd, nx, (anc, anc_at), b);
    } else {
        dense_cholesky_solve(hd, nx, b);
    }
}

/// The vector [`h_solve`] solves in place: the step `dd`, or column `col`
/// of `dxd`.
#[derive(Clone, Copy)]
enum HVec {
    Step,
    Radius,
}

/// [`tree_cholesky`] with each DoF's ancestor runs listed ([`factor_row`],
/// at `runs[runs_at[k]..runs_at[k + 1]]`): the same operations.
fn tree_cholesky_runs(a: &mut [f64], n: usize, (runs, runs_at): (&[(u32, u32)], &[u32])) -> bool {
    for k in (0..n).rev() {
        let (head, tail) = a.split_at_mut(k * n);
        let rk = &runs[runs_at[k] as usize..runs_at[k + 1] as usize];
        if !factor_row(head, &mut tail[..n], k, rk) {
            return false;
        }
    }
    true
}

/// [`tree_cholesky_solve`] with the runs of [`tree_cholesky_runs`].
fn tree_cholesky_solve_runs(
    l: &[f64],
    n: usize,
    (runs, runs_at): (&[(u32, u32)], &[u32]),
    b: &mut [f64],
) {
    let of = |k: usize| &runs[runs_at[k] as usize..runs_at[k + 1] as usize];
    for k in (0..n).rev() {
        let y = b[k] / l[k * n + k];
        b[k] = y;
        if y != 0.0 {
            lt_row(&l[k * n..k * n + n], y, of(k), b);
        }
    }
    for k in 0..n {
        b[k] = l_row(&l[k * n..k * n + n], k, of(k), b);
    }
}

/// Whether the ascending columns `nz` lie on one path to the root of the
/// parent array `parent` (each an ancestor of the last).
fn on_chain(nz: &[u32], parent: &[u32]) -> bool {
    let Some(&last) = nz.last() else {
        return true;
    };
    let mut c = last;
    for &col in nz.iter().rev() {
        while c != NO_PARENT && c > col {
            c = parent[c as usize];
        }
        if c != col {
            return false;
        }
    }
    true
}

/// An island's rows of G are read over their sides' non-zero columns
/// (lcp22) when it has at least `SPARSE_SIDE.0` unknowns and those columns
/// are fewer than half of its sides' (the humanoid: a foot's 13 of 32, a
/// joint limit's 1). Elsewhere the contiguous loops stay: with the lists on
/// every side the rover (8 DoFs, its wheels' 7) was 10k instructions per
/// step slower, with a per-side test 5k.
const SPARSE_SIDE: (usize, usize) = (16, 2);

/// The island's DoF offsets per block, its points' non-zero columns per side
/// and whether they are read ([`SPARSE_SIDE`]; `PrimalResults::{dof_at, nzc,
/// nz_at, dof_sparse}`).
type Cols<'a> = (&'a [u32], &'a [u32], &'a [[u32; 3]], bool);

/// `y += s Gᵢᵀ z` for point i into the island vector `y`; in a sparse island
/// ([`SPARSE_SIDE`]) over its non-zero columns only (lcp22: a zero column
/// adds a zero).
fn gt_add(
    dofs: &DofRows,
    (dof_at, nzc, nz_at, sparse): Cols<'_>,
    i: usize,
    z: &[f64; 3],
    s: f64,
    y: &mut [f64],
) {
    for (sd, &(b, off)) in dofs.side[i].iter().enumerate() {
        if b != NO_BODY {
            let n = dofs.ndof[b as usize] as usize;
            let at = dof_at[b as usize] as usize;
            let (j, y) = (&dofs.jac[off..off + 3 * n], &mut y[at..at + n]);
            if !sparse {
                jdt_add(j, z, s, y);
                continue;
            }
            for &c in &nzc[nz_at[i][sd] as usize..nz_at[i][sd + 1] as usize] {
                let c = c as usize;
                y[c] += s * (j[c] * z[0] + j[n + c] * z[1] + j[2 * n + c] * z[2]);
            }
        }
    }
}

/// `Gᵢ v` for point i from the island vector `v`; in a sparse island
/// ([`SPARSE_SIDE`]) over its non-zero columns in ascending order (lcp22:
/// [`jd_times`]'s sums without their zero terms).
fn g_of(dofs: &DofRows, (dof_at, nzc, nz_at, sparse): Cols<'_>, i: usize, v: &[f64]) -> [f64; 3] {
    let mut out = [0.0; 3];
    for (sd, &(b, off)) in dofs.side[i].iter().enumerate() {
        if b != NO_BODY {
            let n = dofs.ndof[b as usize] as usize;
            let at = dof_at[b as usize] as usize;
            let (j, v) = (&dofs.jac[off..off + 3 * n], &v[at..at + n]);
            if !sparse {
                let gx = jd_times(j, v);
                for a in 0..3 {
                    out[a] += gx[a];
                }
                continue;
            }
            let cols = &nzc[nz_at[i][sd] as usize..nz_at[i][sd + 1] as usize];
            for (a, o) in out.iter_mut().enumerate() {
                let ja = &j[a * n..(a + 1) * n];
                *o += cols
                    .iter()
                    .map(|&c| ja[c as usize] * v[c as usize])
                    .sum::<f64>();
            }
        }
    }
    out
}
