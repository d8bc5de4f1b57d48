//! The solve: Lemke on the Stewart–Trinkle LCP with the documented PGS fallback,
//! or PGS on the block-sparse W with polygonal friction cones; the accepted
//! impulses (p_n, f_t₁, f_t₂) per point in `LcpWorkspace::impulse`.

use super::delassus::{dense_w, stewart_trinkle_lcp};
use super::warm::{lemke_guess, warm_impulses};
use super::{
    LcpWorkspace, LEMKE_ACCEPT, LEMKE_PROXIMAL, LEMKE_PROXIMAL_PASSES, NO_BLOCK, NO_MASS,
    REGULARIZATION,
};
use crate::data::{PairState, StepStats};
use crate::model::{LcpParams, LcpSolverKind};
use crate::solver::block_cholesky::M6;
use crate::solver::lcp::resize_zeroed;
use crate::solver::primal::NO_BODY;
use crate::solver::{
    Globalization, LemkeParams, LemkeStats, LemkeStatus, NewtonParams, NewtonResults, NewtonSolver,
    NewtonStatus, PgsParams, PgsSolver, PgsStatus, PrimalParams, PrimalSolver, PrimalStatus,
};

/// Solves for the impulses (p_n, f_t₁, f_t₂) of every point into `ls.impulse`.
pub(super) fn solve(
    p: &LcpParams,
    (pairs, memory): (&[PairState], &mut [u64]),
    ls: &mut LcpWorkspace,
    stats: &mut StepStats,
) {
    let nc = ls.contacts.len();
    ls.impulse.clear();
    ls.impulse.resize(3 * nc, 0.0);
    stats.lcp_size = 0;
    stats.solver_iterations = 0;
    stats.solver_residual = 0.0;
    stats.solver_failed = false;
    if nc == 0 {
        return;
    }
    let k = p.friction_directions as usize;
    if ls.dirs.len() != k {
        // The k directions are a function of k alone (every writer, here and
        // peg.rs, takes the same sums; lcp35: were k `sin_cos` per solve).
        ls.dirs.clear();
        ls.dirs.extend((0..k).map(|j| {
            let (s, c) = (std::f64::consts::TAU * j as f64 / k as f64).sin_cos();
            (c, s)
        }));
    }
    match p.solver {
        LcpSolverKind::Pgs => {
            let warm = p.warm_start && warm_impulses(pairs, ls);
            pgs_rescued(p, pairs, ls, stats, warm);
        }
        LcpSolverKind::Newton | LcpSolverKind::Primal => {
            let warm = p.warm_start && warm_impulses(pairs, ls);
            let status = if p.solver == LcpSolverKind::Primal {
                primal_on_w(p, ls, memory, warm, stats)
            } else {
                newton_on_w(p, ls, memory, warm, stats)
            };
            if status == NewtonStatus::Unconverged {
                if let Some(dir) = newton_dump_dir() {
                    dump_failed_islands(p, ls, warm, dir);
                }
            }
            if status != NewtonStatus::Converged && !stats.solver_failed {
                // Islands Newton left (a failed line search or pivot, the step
                // limit, or too large to factor) go to PGS from the Newton iterate
                // (the solved islands start at their residual and take no sweep):
                // counted as a fallback, with its own rescues.
                stats.solver_failures += 1;
                stats.solver_fallbacks += 1;
                let it = stats.solver_iterations;
                if !primal_left_to_pgs(p, ls) {
                    ls.impulse.copy_from_slice(&ls.newton.z);
                }
                pgs_rescued(p, pairs, ls, stats, true);
                stats.solver_iterations += it;
            }
        }
        LcpSolverKind::Lemke => {
            let warm = p.warm_start;
            if !lemke(p, pairs, ls, stats, Pivoting::plain(warm)) && !stats.solver_failed {
                // Fallbacks: Lemke on the diagonally scaled problem (large mass
                // ratios put W's entries beyond one pivot tolerance), then PGS on
                // (W, q_W) from the last step's impulses (the Lemke iterate of a
                // ray termination is not a useful start).
                // The scaled retry is the same solver (an exact Lemke solution):
                // only a solve that needs PGS counts as a failure and a fallback.
                let it = stats.solver_iterations;
                if lemke(p, pairs, ls, stats, Pivoting::scaled(warm)) {
                    stats.solver_iterations += it;
                    return finish(ls);
                }
                stats.solver_failed = true;
                stats.solver_failures += 1;
                stats.solver_fallbacks += 1;
                ls.impulse.iter_mut().for_each(|x| *x = 0.0);
                let warm = warm_impulses(pairs, ls);
                let it = it + stats.solver_iterations;
                if pgs_on_w(p, ls, warm, stats) == PgsStatus::IterationLimit {
                    stats.solver_unconverged += 1;
                }
                stats.solver_iterations += it;
            }
        }
    }
    finish(ls);
}

/// PGS on (W, q_W) from `ls.impulse` (`warm`) or zero, with the rescues of an
/// unconverged solve (below); the accepted impulses in `ls.impulse`.
fn pgs_rescued(
    p: &LcpParams,
    pairs: &[PairState],
    ls: &mut LcpWorkspace,
    stats: &mut StepStats,
    warm: bool,
) {
    let nc = ls.contacts.len();
    let status = pgs_on_w(p, ls, warm, stats);
    if status == PgsStatus::IterationLimit {
        // Residual check with a rescue: PGS converges slowly on the
        // ill-conditioned W of large mass ratios (a 1 t cube under a
        // 1,000 t one). The sweep limit is counted (`solver_unconverged`,
        // never hidden); a problem small enough for the dense pivoting is
        // then handed to Lemke (warm from the last step's active set, on
        // the problem as assembled, then scaled; then scaled from the
        // standard start), else PGS goes on from its iterate for 10× the
        // sweeps. Whatever the rescues leave is the last PGS iterate.
        stats.solver_unconverged += 1;
        let it = stats.solver_iterations;
        let (warm, cold) = (p.warm_start, false);
        let rescued = nc <= LEMKE_RESCUE_POINTS
            && (lemke(p, pairs, ls, stats, Pivoting::plain(warm))
                || lemke(p, pairs, ls, stats, Pivoting::scaled(warm))
                || lemke(p, pairs, ls, stats, Pivoting::scaled(cold))
                || {
                    ls.impulse.copy_from_slice(&ls.contact_res.z);
                    let long = LcpParams {
                        max_iterations: RESCUE_SWEEPS * p.max_iterations,
                        ..*p
                    };
                    pgs_on_w(&long, ls, true, stats) == PgsStatus::Converged
                });
        if rescued {
            stats.solver_failed = false;
        } else {
            ls.impulse.copy_from_slice(&ls.contact_res.z);
        }
        if nc <= LEMKE_RESCUE_POINTS {
            // The rescues' pivots / sweeps on top of the first PGS run's.
            stats.solver_iterations += it;
        }
    }
}

/// The kept velocity (module doc of `lcp`, "Stabilization"): where a loaded
/// point's row pushed a penetration out (its kept q, `ls.q_keep`, above q_W by
/// more than the solver tolerance), the problem is solved again with the kept
/// rows, warm from the stabilized solution (the pairs remember it), and true is
/// returned with its impulses in `ls.impulse`. Otherwise the stabilized solution
/// already solves the kept problem (a point with p_n = 0 stays complementary when
/// its q rises) and false is returned. The stats add up: pivots / sweeps of both
/// solves, the larger residual.
pub(super) fn kept_solve(
    p: &LcpParams,
    (pairs, memory): (&[PairState], &mut [u64]),
    ls: &mut LcpWorkspace,
    stats: &mut StepStats,
) -> bool {
    let nc = ls.contacts.len();
    let pushed =
        (0..nc).any(|c| ls.impulse[3 * c] > 0.0 && ls.q_keep[c][0] - ls.qw[3 * c] > p.tolerance);
    if !pushed {
        return false;
    }
    for c in 0..nc {
        for a in 0..3 {
            ls.qw[3 * c + a] = ls.q_keep[c][a];
            ls.sparse.q[3 * c + a] = ls.q_keep[c][a];
        }
    }
    let first = (
        stats.solver_iterations,
        stats.solver_residual,
        stats.lcp_size,
        stats.solver_failed,
    );
    solve(p, (pairs, memory), ls, stats);
    stats.solver_iterations += first.0;
    stats.solver_residual = stats.solver_residual.max(first.1);
    stats.lcp_size = stats.lcp_size.max(first.2);
    stats.solver_failed |= first.3;
    true
}

/// Non-finite impulses (invalid data) apply nothing.
fn finish(ls: &mut LcpWorkspace) {
    if !ls.impulse.iter().all(|x| x.is_finite()) {
        ls.impulse.iter_mut().for_each(|x| *x = 0.0);
    }
}

/// How one Lemke attempt starts: from the active set of the impulses the pairs
/// remember (`warm`) or Lemke's standard start, on the problem as assembled or
/// diagonally scaled ([`scale_lcp`]).
#[derive(Clone, Copy)]
struct Pivoting {
    warm: bool,
    scaled: bool,
}

impl Pivoting {
    fn plain(warm: bool) -> Self {
        Pivoting {
            warm,
            scaled: false,
        }
    }
    fn scaled(warm: bool) -> Self {
        Pivoting { warm, scaled: true }
    }
}

/// Contact points up to which an unconverged PGS solve is handed to Lemke
/// (`(k + 2)·n` pivoting variables: 192 for 32 points and k = 4).
const LEMKE_RESCUE_POINTS: usize = 32;

/// The sweep budget of PGS's last rescue, in multiples of `max_iterations`.
const RESCUE_SWEEPS: usize = 10;

/// Lemke on the Stewart–Trinkle LCP (dense), started and scaled as `how` says; on
/// success the impulses are in `ls.impulse` and true is returned. On an invalid
/// problem the impulses are zeroed and `stats.solver_failed` is set; on a ray or
/// the pivot limit false is returned.
fn lemke(
    p: &LcpParams,
    pairs: &[PairState],
    ls: &mut LcpWorkspace,
    stats: &mut StepStats,
    how: Pivoting,
) -> bool {
    let warm = how.warm;
    dense_w(ls);
    stewart_trinkle_lcp(ls);
    let n = ls.problem.q.len();
    stats.lcp_size = stats.lcp_size.max(n);
    let warm = warm && warm_impulses(pairs, ls) && lemke_guess(ls);
    proximal_shift(ls, warm);
    let q_max = if how.scaled {
        scale_lcp(ls)
    } else {
        ls.lcp_scale.clear();
        ls.lcp_scale.resize(n, 1.0);
        0.0
    };
    ls.lemke.params = LemkeParams {
        max_pivots: p.max_pivots,
        zero_tol: 1e-9,
        ..LemkeParams::default()
    };
    let mut status = ls.lemke.solve(
        &ls.problem,
        if warm { Some(&ls.guess) } else { None },
        &mut ls.lemke_res,
    );
    // The proximal step re-centred on its own solution until its term is below
    // the CFM's; a re-centred solve that fails keeps the last solution.
    let mut passes = 0;
    let mut last_term = f64::INFINITY;
    while status == LemkeStatus::Solved
        && passes < LEMKE_PROXIMAL_PASSES
        && proximal_centre(ls, &mut last_term)
    {
        let kept = &mut ls.lemke_kept;
        resize_zeroed(&mut kept.z, n);
        resize_zeroed(&mut kept.w, n);
        kept.z.copy_from(&ls.lemke_res.z);
        kept.w.copy_from(&ls.lemke_res.w);
        kept.stats = ls.lemke_res.stats;
        status = ls
            .lemke
            .solve(&ls.problem, Some(&ls.guess), &mut ls.lemke_res);
        let (before, now) = (kept.stats, &mut ls.lemke_res.stats);
        now.pivots += before.pivots;
        now.setup_pivots += before.setup_pivots;
        if status != LemkeStatus::Solved {
            let (pivots, setup) = (now.pivots, now.setup_pivots);
            ls.lemke_res.z.copy_from(&kept.z);
            ls.lemke_res.w.copy_from(&kept.w);
            ls.lemke_res.stats = LemkeStats {
                pivots,
                setup_pivots: setup,
                ..kept.stats
            };
            status = LemkeStatus::Solved;
            break;
        }
        passes += 1;
    }
    let st = ls.lemke_res.stats;
    stats.solver_iterations = st.pivots + st.setup_pivots;
    stats.solver_residual = st.residual;
    // A "solved" basis whose residual round-off has spoiled (degenerate pivots on
    // near-dependent rows) counts as a failure too; the residual is in the scaled
    // units (√J), relative to the scale of q′ (round-off grows with it).
    let accept = LEMKE_ACCEPT * q_max.max(1.0);
    let status = match status {
        LemkeStatus::Solved if st.residual.is_nan() || st.residual > accept => {
            LemkeStatus::IterationLimit
        }
        s => s,
    };
    match status {
        LemkeStatus::Solved => {
            for (z, d) in ls.lemke_res.z.iter_mut().zip(&ls.lcp_scale) {
                *z *= d;
            }
            read_lemke(ls);
            true
        }
        LemkeStatus::RayTermination | LemkeStatus::IterationLimit => false,
        LemkeStatus::InvalidProblem => {
            stats.solver_failed = true;
            stats.solver_failures += 1;
            ls.impulse.iter_mut().for_each(|x| *x = 0.0);
            false
        }
    }
}

/// Lemke's proximal step (module doc of `lcp`, "Lemke's proximal step"): the W
/// rows (p_n and β) of the Stewart–Trinkle LCP's points whose island was made
/// consistent (`ConsistentWorkspace::projected`) get ε_L = [`LEMKE_PROXIMAL`] of
/// their diagonal, and their q the shift −ε_L W_ii z̄_i, centred on the warm
/// guess z̄ (zero without one). The problem stays an LCP of the same class; its
/// solution z solves the unregularized one up to the term ε_L W_ii (z_i − z̄_i),
/// which [`proximal_centre`] drives below the CFM's own. `ls.guess` holds z̄ (size
/// n) on return.
fn proximal_shift(ls: &mut LcpWorkspace, warm: bool) {
    let n = ls.problem.q.len();
    if !warm {
        resize_zeroed(&mut ls.guess, n);
        ls.guess.fill(0.0);
    }
    let (m, q, guess) = (&mut ls.problem.m, &mut ls.problem.q, &ls.guess);
    proximal_rows(
        &ls.consistent.projected,
        ls.contacts.len(),
        ls.dirs.len(),
        |i| {
            let e = LEMKE_PROXIMAL * m[(i, i)];
            m[(i, i)] += e;
            q[i] -= e * guess[i];
        },
    );
}

/// Calls `f` with each W row of the Stewart–Trinkle LCP (a point's p_n, then its
/// k β) of the `nc` points Lemke's proximal step is taken on (`projected`).
fn proximal_rows(projected: &[bool], nc: usize, k: usize, mut f: impl FnMut(usize)) {
    for c in (0..nc).filter(|&c| projected.get(c) == Some(&true)) {
        f(c);
        (nc + c * k..nc + (c + 1) * k).for_each(&mut f);
    }
}

/// After a proximal solve z (in `ls.lemke_res`, the problem's units, scaled or
/// not): false if the proximal term is within the CFM's, max_i ε_L W_ii |z_i −
/// z̄_i| ≤ ε max_i W_ii |z_i| (ε = [`REGULARIZATION`]: the step then answers the
/// unregularized LCP as closely as the CFM already lets it); else q is re-centred
/// on z (z̄ ← z) and true is returned: the next solve's error is ε_L times this
/// one's. False too if the term is not a tenth of the last pass's (`last_term`):
/// the iteration is not converging. W_ii is read back from the regularized
/// diagonal (1 + ε_L) W_ii.
fn proximal_centre(ls: &mut LcpWorkspace, last_term: &mut f64) -> bool {
    let (nc, k) = (ls.contacts.len(), ls.dirs.len());
    let share = LEMKE_PROXIMAL / (1.0 + LEMKE_PROXIMAL);
    let (m, q, z, guess) = (
        &ls.problem.m,
        &mut ls.problem.q,
        &ls.lemke_res.z,
        &mut ls.guess,
    );
    let (mut term, mut load) = (0.0f64, 0.0f64);
    proximal_rows(&ls.consistent.projected, nc, k, |i| {
        let wii = m[(i, i)] / (1.0 + LEMKE_PROXIMAL);
        term = term.max(LEMKE_PROXIMAL * wii * (z[i] - guess[i]).abs());
        load = load.max(wii * z[i].abs());
    });
    if term <= REGULARIZATION * load || term > 0.1 * *last_term {
        return false;
    }
    *last_term = term;
    proximal_rows(&ls.consistent.projected, nc, k, |i| {
        q[i] -= share * m[(i, i)] * (z[i] - guess[i]);
    });
    guess.copy_from(z);
    true
}

/// Symmetric diagonal scaling of the Stewart–Trinkle LCP (A, q) → (D A D, D q),
/// z = D z′ (an LCP with the same complementarity): per point c, D = 1/√W_nn(c)
/// on p_n and its β, and √W_nn(c) on σ (so the cone rows μ p_n − Σβ and the E
/// columns keep their entries). The diagonal becomes ≈ 1 whatever the masses: a
/// 1 t body under a 1,000 t one gives W entries 1e-3 and 1e-6 apart, beyond the
/// pivot tolerance's reach unscaled; z′ and w′ are then both in √J, so one
/// residual tolerance serves every mass. The warm guess is scaled along.
/// Returns ‖q′‖∞.
fn scale_lcp(ls: &mut LcpWorkspace) -> f64 {
    let nc = ls.contacts.len();
    let k = ls.dirs.len();
    let n = nc * (k + 2);
    ls.lcp_scale.clear();
    ls.lcp_scale.resize(n, 1.0);
    let (ib, is) = (nc, nc + nc * k);
    for c in 0..nc {
        let wnn = ls.problem.m[(c, c)];
        if !(wnn.is_finite() && wnn > 0.0) {
            continue;
        }
        let d = 1.0 / wnn.sqrt();
        ls.lcp_scale[c] = d;
        for j in 0..k {
            ls.lcp_scale[ib + c * k + j] = d;
        }
        ls.lcp_scale[is + c] = 1.0 / d;
    }
    let (m, q, dvec) = (&mut ls.problem.m, &mut ls.problem.q, &ls.lcp_scale);
    for j in 0..n {
        for i in 0..n {
            m[(i, j)] *= dvec[i] * dvec[j];
        }
        q[j] *= dvec[j];
    }
    if ls.guess.len() == n {
        for (g, d) in ls.guess.iter_mut().zip(dvec) {
            *g /= d;
        }
    }
    q.iter().fold(0.0f64, |a, x| a.max(x.abs()))
}

/// PGS on the block-sparse (W, q_W) with polygonal cones, island by island;
/// `warm`: start from `ls.impulse`. An unconverged solve leaves its iterate in
/// `ls.contact_res.z` and `ls.impulse` (the caller decides and counts).
pub(super) fn pgs_on_w(
    p: &LcpParams,
    ls: &mut LcpWorkspace,
    warm: bool,
    stats: &mut StepStats,
) -> PgsStatus {
    let r = 3 * ls.contacts.len();
    let solver = PgsSolver::new(PgsParams {
        tolerance: p.tolerance,
        max_iterations: p.max_iterations,
        relaxation: p.relaxation,
    });
    let status = solver.solve_contacts(
        &ls.sparse,
        if warm { Some(&ls.impulse) } else { None },
        &mut ls.contact_res,
    );
    stats.lcp_size = stats.lcp_size.max(r);
    stats.solver_iterations = ls.contact_res.stats.iterations;
    stats.solver_residual = ls.contact_res.stats.residual;
    match status {
        PgsStatus::Converged => ls.impulse.copy_from_slice(&ls.contact_res.z),
        PgsStatus::IterationLimit => {
            stats.solver_failed = true;
            ls.impulse.copy_from_slice(&ls.contact_res.z);
        }
        PgsStatus::InvalidProblem => {
            stats.solver_failed = true;
            stats.solver_failures += 1;
            ls.impulse.iter_mut().for_each(|x| *x = 0.0);
        }
    }
    status
}

/// Newton steps per island before the PGS fallback. lcp6 measured 100 steps
/// with 40 rescues (128 of 200 dumped resting islands converge instead of 22):
/// pile20 went from 1.97 to 1.56 failures per step but 3.3× slower (9.6 → 31.6
/// ms/step), the islands that still fail spending the larger budget before PGS
/// (docs/BENCHMARKS.md, "Newton's line search off the cones").
/// lcp7: the staggered globalization (`solver::staggered`) with 100 steps was
/// measured here and not kept: pile20 `--quick` 45 ms/step, 97 failures in 50
/// steps (the line search in lcp6's session: 5.4 ms, 95; docs/BENCHMARKS.md, "A
/// staggered globalization").
const NEWTON_STEPS: usize = 30;

/// Factorizations of the interior-point rescue (`solver::interior`) of an
/// island the line search failed on (lcp10): the radius Newton with the
/// frozen QPs' stalls handed to the interior path, after the interior path on
/// the coupled problem. pile20 resting (3 s settle): failures → PGS 361 in 190
/// timed steps before, 2 in 235 after, at the same µs/step (docs/BENCHMARKS.md,
/// lcp10). Islands the line search converges on are solved bit for bit as
/// before.
const INTERIOR_STEPS: usize = crate::solver::interior::INTERIOR_STEPS;

/// The regularization ε / max W_nn of the Newton step (`solver::newton`,
/// "Dependent rows").
const NEWTON_REGULARIZATION: f64 = 1e-6;

/// Largest island (points) Newton factors densely; larger ones go to PGS.
pub(super) const NEWTON_DENSE_POINTS: usize = 400;

/// The Newton solver's parameters for `p` (the PGS tolerance; the rescue sweeps
/// are the solver's defaults).
fn newton_params(p: &LcpParams) -> NewtonParams {
    NewtonParams {
        tolerance: p.tolerance,
        max_iterations: NEWTON_STEPS,
        regularization: NEWTON_REGULARIZATION,
        max_dense_points: NEWTON_DENSE_POINTS,
        globalization: Globalization::LineSearchThenInterior,
        interior_iterations: INTERIOR_STEPS,
        ..NewtonParams::default()
    }
}

/// Semismooth Newton on the block-sparse (W, q_W), island by island
/// (`solver::newton`); `warm`: start from `ls.impulse`. The converged impulses
/// are copied to `ls.impulse`; otherwise the iterate stays in `ls.newton.z` for
/// the caller's fallback. An invalid problem zeroes the impulses and is counted.
fn newton_on_w(
    p: &LcpParams,
    ls: &mut LcpWorkspace,
    memory: &mut [u64],
    warm: bool,
    stats: &mut StepStats,
) -> NewtonStatus {
    let solver = NewtonSolver::new(newton_params(p));
    interior_hints(ls, memory);
    let status = solver.solve_contacts(
        &ls.sparse,
        if warm { Some(&ls.impulse) } else { None },
        &mut ls.newton,
    );
    remember_interior(ls, memory);
    stats.lcp_size = stats.lcp_size.max(3 * ls.contacts.len());
    stats.solver_iterations = ls.newton.stats.iterations;
    stats.solver_residual = ls.newton.stats.residual;
    stats.newton_factorizations += ls.newton.stats.factorizations as u64;
    stats.newton_cholesky += ls.newton.stats.cholesky as u64;
    match status {
        NewtonStatus::Converged => ls.impulse.copy_from_slice(&ls.newton.z),
        NewtonStatus::Unconverged => {}
        NewtonStatus::InvalidProblem => {
            stats.solver_failed = true;
            stats.solver_failures += 1;
            ls.impulse.iter_mut().for_each(|x| *x = 0.0);
        }
    }
    status
}

/// Outer passes of the primal solver per island (radius and proximal-centre
/// updates, `solver::primal`, "Outer passes"). pile20 resting (`bench --quick`,
/// lcp13): 60 passes and 20 hand the same islands to Newton (145 / 143 in 50
/// steps), 20 spends half the passes; 10 hands over twice as many (274).
const PRIMAL_PASSES: usize = 20;

/// The primal solver's parameters for `p` (the PGS tolerance).
fn primal_params(p: &LcpParams) -> PrimalParams {
    PrimalParams {
        tolerance: p.tolerance,
        max_iterations: NEWTON_STEPS,
        max_passes: PRIMAL_PASSES,
        // W holds only the diagonal blocks of the body-space islands (lcp26,
        // `delassus`, "Diagonal-only rows").
        residual_from_rows: true,
        ..PrimalParams::default()
    }
}

/// The body-space rows of the problem (`solver::primal::BodyRows`): per free
/// body (a DoF block of 6) M⁻¹ as assembled and M = (M⁻¹)⁻¹, per point its
/// sides' bodies and rows of G, the CFM `E_a = W_aa ε/(1 + ε)` (the
/// regularization of `delassus`: W's diagonal is `(1 + ε)` times G M⁻¹ Gᵀ's;
/// with `[lcp] split_memory` a persisting point's normal E also holds σ W_nn),
/// per island whether every moving side is a free body.
fn body_rows(ls: &mut LcpWorkspace) {
    let LcpWorkspace {
        blocks,
        minv,
        lean,
        contacts,
        jac,
        sparse,
        body_rows: br,
        split_extra: ls_split_extra,
        ..
    } = ls;
    br.mass.clear();
    br.minv.clear();
    for (b, blk) in blocks.iter().enumerate() {
        // (A lean robot block stores no M⁻¹: `articulated.rs`.)
        let m = (blk.ndof == 6 && !lean.get(b).copied().unwrap_or(false))
            .then(|| minv.get(blk.minv..blk.minv + 36))
            .flatten()
            .map(M6::from_row_slice)
            .and_then(|mi| Some((mi, mass_of_free(&mi)?)));
        match m {
            Some((mi, m)) => {
                br.minv.push(mi);
                br.mass.push(m);
            }
            None => {
                br.minv.push(M6::zeros());
                br.mass.push(M6::zeros());
            }
        }
    }
    let free = |b: u32| br_free(blocks, b);
    br.body.clear();
    br.jac.clear();
    br.cfm.clear();
    let scale = REGULARIZATION / (1.0 + REGULARIZATION);
    for (ci, c) in contacts.iter().enumerate() {
        let mut body = [NO_BODY; 2];
        let mut rows = [[0.0; 18]; 2];
        for s in 0..2 {
            let side = c.side[s];
            if side.block != NO_BLOCK && free(side.block) {
                body[s] = side.block;
                rows[s].copy_from_slice(&jac[side.jac..side.jac + 18]);
            }
        }
        br.body.push(body);
        br.jac.push(rows);
        let (a, b) = (sparse.row_start[ci], sparse.row_start[ci + 1]);
        let d = (a..b)
            .find(|&k| sparse.col[k] as usize == ci)
            .map_or([0.0; 9], |k| sparse.w[k]);
        // `[lcp] split_memory` (lcp34): the normal row's σ W_nn is part of E.
        let cfm_n = match ls_split_extra.get(ci).copied() {
            Some(e) if e > 0.0 => scale * (d[0] - e) + e,
            _ => scale * d[0],
        };
        br.cfm.push([cfm_n, scale * d[4], scale * d[8]]);
    }
    br.ok.clear();
    for s in 0..sparse.island_start.len().saturating_sub(1) {
        let order = &sparse.order[sparse.island_start[s]..sparse.island_start[s + 1]];
        br.ok.push(body_space(blocks, contacts, order));
    }
}

/// M = `(M⁻¹)⁻¹` of a free body's 6×6 M⁻¹, symmetrized `(M + Mᵀ)/2`, or None
/// when the inverse fails or is not finite; bit for bit the 6×6 `try_inverse`
/// (LU with partial pivoting, nalgebra's `try_invert_to`) then the symmetrization
/// (lcp27). When M⁻¹ = diag(1/m I₃, I_w⁻¹) with its off-diagonal entries +0.0 (as
/// `dof_blocks` writes them), the 6×6 elimination's first three pivots are 1/m > 0
/// with multipliers +0 and the updates it makes to the rest are `x + (−0)`, no
/// change: the LU of the 3×3 I_w⁻¹ alone does the same operations on the same
/// entries, and the first three columns' substitutions give 1/(1/m) on the
/// diagonal. The 6×6 inverse's off-diagonal blocks are ±0 with its D rows' part
/// +0, so their symmetrized sums are +0, as here; the inverse is finite where
/// its 12 computed entries are. Anything else takes the 6×6 inverse.
fn mass_of_free(mi: &M6) -> Option<M6> {
    // Free to be nonzero: 1/m's diagonal and the I_w⁻¹ block; all else +0.0.
    let free = |r: usize, c: usize| if r < 3 { r == c } else { c >= 3 };
    let split = (0..6).all(|r| (0..6).all(|c| free(r, c) || mi[(r, c)].to_bits() == 0))
        && (0..3).all(|i| mi[(i, i)] > 0.0);
    if !split {
        let m = mi.try_inverse()?;
        return m
            .iter()
            .all(|v| v.is_finite())
            .then(|| 0.5 * (m + m.transpose()));
    }
    let b = mi.fixed_view::<3, 3>(3, 3).into_owned();
    let mut bi = nalgebra::Matrix3::zeros();
    let d = [0, 1, 2].map(|i| 1.0 / mi[(i, i)]);
    if !nalgebra::linalg::try_invert_to(b, &mut bi)
        || !d.iter().chain(bi.iter()).all(|v| v.is_finite())
    {
        return None;
    }
    let mut m = M6::zeros();
    for (i, d) in d.iter().enumerate() {
        m[(i, i)] = 0.5 * (d + d);
    }
    for r in 0..3 {
        for c in 0..3 {
            m[(3 + r, 3 + c)] = 0.5 * (bi[(r, c)] + bi[(c, r)]);
        }
    }
    Some(m)
}

/// Whether the island of the points `order` is solved in body space: no joint
/// limit, and every moving side a free body (a DoF block of 6; [`br_free`]).
pub(super) fn body_space(
    blocks: &[super::DofBlock],
    contacts: &[super::ContactRow],
    order: &[u32],
) -> bool {
    order.iter().all(|&i| {
        let c = &contacts[i as usize];
        !c.limit
            && c.side
                .iter()
                .all(|sd| sd.block == NO_BLOCK || br_free(blocks, sd.block))
    })
}

/// The DoF-space rows (`solver::primal::DofRows`, lcp19) of the islands that
/// are not in body space (a robot's side, a joint limit): every DoF block a
/// point of theirs acts on (a robot's `nv`, or a free body's 6) with M = (M⁻¹)⁻¹,
/// per point its sides' blocks and rows (`ls.jac` as assembled), per island
/// whether every moving side is such a block (islands in body space: false).
fn dof_rows(ls: &mut LcpWorkspace) {
    let LcpWorkspace {
        blocks,
        minv,
        mass,
        lean,
        mfac,
        mpar,
        contacts,
        jac,
        sparse,
        body_rows: br,
        dof_rows: dr,
        dof_used: used,
        ..
    } = ls;
    dr.clear();
    used.clear();
    used.resize(blocks.len(), false);
    let islands = sparse.island_start.len().saturating_sub(1);
    for s in (0..islands).filter(|&s| !br.ok[s]) {
        for &i in &sparse.order[sparse.island_start[s]..sparse.island_start[s + 1]] {
            for sd in &contacts[i as usize].side {
                if let Some(u) = used.get_mut(sd.block as usize) {
                    *u = true;
                }
            }
        }
    }
    for (b, blk) in blocks.iter().enumerate() {
        let n2 = blk.ndof * blk.ndof;
        // One entry per block (its index is the block's); an unused block
        // gets none of the storage.
        let lean_b = lean.get(b).copied().unwrap_or(false);
        used[b] = if used[b] && lean_b {
            // A lean block (articulated.rs): M, its factor along the tree
            // and the tree's parent array (lcp21).
            match (
                mass.get(blk.mass..blk.mass.saturating_add(n2)),
                mfac.get(blk.mass..blk.mass.saturating_add(n2)),
                mpar.get(blk.offset..blk.offset.saturating_add(blk.ndof)),
            ) {
                (Some(m), Some(l), Some(par)) => dr.push_block_factored(m, l, par, blk.ndof),
                _ => dr.push_block_factored(&[], &[], &[], blk.ndof),
            }
        } else if used[b] && blk.minv + n2 <= minv.len() {
            let minv = &minv[blk.minv..blk.minv + n2];
            match mass.get(blk.mass..blk.mass.saturating_add(n2)) {
                // A robot's M as CRBA gave it.
                Some(m) if blk.mass != NO_MASS => dr.push_block_with_mass(minv, m, blk.ndof),
                _ => dr.push_block(minv, blk.ndof),
            }
        } else {
            dr.push_block(&[], 0);
            false
        };
    }
    // G's rows themselves (lcp23: were copied): `dof_rows_back` returns them
    // after the solve.
    std::mem::swap(&mut dr.jac, jac);
    for c in contacts.iter() {
        let side = |s: usize| {
            let sd = c.side[s];
            if sd.block != NO_BLOCK && used[sd.block as usize] {
                (sd.block, sd.jac)
            } else {
                (NO_BODY, 0)
            }
        };
        dr.side.push([side(0), side(1)]);
    }
    for s in 0..islands {
        let order = &sparse.order[sparse.island_start[s]..sparse.island_start[s + 1]];
        let ok = !br.ok[s]
            && order.iter().all(|&i| {
                contacts[i as usize]
                    .side
                    .iter()
                    .all(|sd| sd.block == NO_BLOCK || used[sd.block as usize])
            });
        dr.ok.push(ok);
    }
}

/// `ls.jac` back from the DoF rows ([`dof_rows`] moved it there for the
/// solve).
fn dof_rows_back(ls: &mut LcpWorkspace) {
    std::mem::swap(&mut ls.jac, &mut ls.dof_rows.jac);
}

/// Whether DoF block `b` is a free body with a usable M (6 DoFs).
fn br_free(blocks: &[super::DofBlock], b: u32) -> bool {
    blocks
        .get(b as usize)
        .is_some_and(|k| k.ndof == 6 && matches!(k.kind, super::DofKind::Free { .. }))
}

/// The primal solver (`solver::primal`) on the islands of free bodies, and
/// (lcp19) in DoF space on the islands with a robot's side or a joint limit
/// ([`dof_rows`]); the islands it skips (over `solver::primal::DOF_MAX`
/// unknowns, or a block without its M) or fails on go to the Newton path
/// ([`newton_on_w`]) from its iterate, counted in
/// `StepStats::primal_fallback_islands`. Returns the status of the whole solve
/// as Newton's (Unconverged: the caller's PGS fallback from `ls.newton.z`).
fn primal_on_w(
    p: &LcpParams,
    ls: &mut LcpWorkspace,
    memory: &mut [u64],
    warm: bool,
    stats: &mut StepStats,
) -> NewtonStatus {
    body_rows(ls);
    let dofs = ls.body_rows.ok.iter().any(|&ok| !ok);
    if dofs {
        dof_rows(ls);
    }
    let failed_only = primal_dump_dir().is_some() && primal_dump_failed();
    if let Some(dir) = primal_dump_dir().filter(|_| !failed_only) {
        // The dump holds W whole (its blocks off the diagonal, lcp26).
        complete_diagonal(ls);
        dump_primal_problem(p, ls, warm, dir);
    }
    let params = primal_params(p);
    if let Some(observe) = crate::solver::primal::solve_observer() {
        observe(
            &params,
            &ls.sparse,
            &ls.body_rows,
            dofs.then_some(&ls.dof_rows),
            if warm { Some(&ls.impulse) } else { None },
        );
    }
    let solver = PrimalSolver::new(params);
    let status = solver.solve_contacts_dofs(
        &ls.sparse,
        &ls.body_rows,
        dofs.then_some(&ls.dof_rows),
        if warm { Some(&ls.impulse) } else { None },
        &mut ls.primal,
    );
    if dofs {
        dof_rows_back(ls);
    }
    if let Some(dir) =
        primal_dump_dir().filter(|_| failed_only && status != PrimalStatus::Converged)
    {
        // The same problem and guess (`ls.impulse` is still the guess here),
        // with W and the DoF rows' M⁻¹ complete (lean blocks, lcp20: what the
        // Newton path builds next anyway; the solve above is unchanged).
        complete_lean(ls);
        if dofs {
            dof_rows(ls);
        }
        dump_primal_problem(p, ls, warm, dir);
        if dofs {
            dof_rows_back(ls);
        }
    }
    let st = ls.primal.stats;
    stats.lcp_size = stats.lcp_size.max(3 * ls.contacts.len());
    stats.solver_iterations = st.iterations;
    stats.solver_residual = st.residual;
    stats.newton_factorizations += st.factorizations as u64;
    stats.primal_passes += st.passes as u64;
    match status {
        PrimalStatus::Converged => {
            ls.impulse.copy_from_slice(&ls.primal.z);
            NewtonStatus::Converged
        }
        PrimalStatus::InvalidProblem => {
            stats.solver_failed = true;
            stats.solver_failures += 1;
            ls.impulse.iter_mut().for_each(|x| *x = 0.0);
            NewtonStatus::InvalidProblem
        }
        PrimalStatus::Unconverged => {
            // The islands left, to the Newton path from the primal iterate (a
            // skipped island's is the projected warm start): the problem's
            // island list is swapped for theirs during that solve.
            stats.primal_fallback_islands += (st.failed_islands + st.skipped_islands) as u64;
            ls.impulse.copy_from_slice(&ls.primal.z);
            // The Newton path reads W: the lean blocks' part of it first.
            complete_lean(ls);
            if primal_left_to_pgs(p, ls) {
                // Face patches: PGS takes the islands left (`solve`).
                return NewtonStatus::Unconverged;
            }
            let LcpWorkspace {
                sparse,
                primal,
                left_order,
                left_start,
                ..
            } = ls;
            left_order.clear();
            left_start.clear();
            for (s, &solved) in primal.island_solved.iter().enumerate() {
                if !solved {
                    left_start.push(left_order.len());
                    left_order.extend_from_slice(
                        &sparse.order[sparse.island_start[s]..sparse.island_start[s + 1]],
                    );
                }
            }
            left_start.push(left_order.len());
            std::mem::swap(&mut sparse.order, left_order);
            std::mem::swap(&mut sparse.island_start, left_start);
            let (it, res) = (stats.solver_iterations, stats.solver_residual);
            let status = newton_on_w(p, ls, memory, true, stats);
            std::mem::swap(&mut ls.sparse.order, &mut ls.left_order);
            std::mem::swap(&mut ls.sparse.island_start, &mut ls.left_start);
            stats.solver_iterations += it;
            stats.solver_residual = stats.solver_residual.max(res);
            status
        }
    }
}

/// Under face patches (`[lcp] friction = "patch"`, lcp33) the primal solver's
/// islands left go to PGS from its iterate (in `ls.impulse`), not to the
/// Newton path, whose natural map knows only the points' own cones.
fn primal_left_to_pgs(p: &LcpParams, ls: &LcpWorkspace) -> bool {
    p.solver == LcpSolverKind::Primal && ls.sparse.has_patches()
}

/// What the lean blocks (`articulated.rs`, "Lean blocks") left out, for a
/// solver that reads W (the Newton path after the primal solver left an
/// island): M⁻¹ from the factor of M (column by column), the rows' M⁻¹ Jᵀ,
/// and W's blocks and pattern again (`delassus::rebuild_w`: the rows without
/// a lean side get the same columns and bits; the lean sides' rows, their
/// diagonal block alone until now, their columns, lcp21). The blocks are then no longer lean (the kept solve and
/// `velocity_after` take the full rows). Nothing when no block is lean.
pub(super) fn complete_lean(ls: &mut LcpWorkspace) {
    if !ls.lean.iter().any(|&l| l) {
        complete_diagonal(ls);
        return;
    }
    for b in 0..ls.blocks.len() {
        if !ls.lean.get(b).copied().unwrap_or(false) {
            continue;
        }
        let blk = ls.blocks[b];
        let nd = blk.ndof;
        let at = ls.minv.len();
        ls.minv.resize(at + nd * nd, 0.0);
        let l = &ls.mfac[blk.mass..blk.mass + nd * nd];
        let par = &ls.mpar[blk.offset..blk.offset + nd];
        for c in 0..nd {
            // Column c of M⁻¹ (= row c: M symmetric).
            let col = &mut ls.minv[at + c * nd..at + (c + 1) * nd];
            col[c] = 1.0;
            crate::solver::primal::tree_cholesky_solve(l, nd, par, col);
        }
        ls.blocks[b].minv = at;
    }
    let LcpWorkspace {
        blocks,
        contacts,
        jac,
        minv_jt,
        minv,
        lean,
        ..
    } = ls;
    for c in contacts.iter() {
        for s in c.side.iter().filter(|s| s.block != NO_BLOCK) {
            if !lean.get(s.block as usize).copied().unwrap_or(false) {
                continue;
            }
            let blk = blocks[s.block as usize];
            let nd = blk.ndof;
            for r in 0..3 {
                let row = &jac[s.jac + r * nd..s.jac + (r + 1) * nd];
                for i in 0..nd {
                    let mrow = &minv[blk.minv + i * nd..blk.minv + (i + 1) * nd];
                    minv_jt[s.jac + r * nd + i] =
                        mrow.iter().zip(row).map(|(a, b)| a * b).sum::<f64>();
                }
            }
        }
    }
    lean.iter_mut().for_each(|l| *l = false);
    ls.w_diagonal.iter_mut().for_each(|d| *d = false);
    super::delassus::rebuild_w(ls);
}

/// W's blocks off the diagonal of the rows `delassus` built diagonal-only
/// (lcp26, `delassus`, "Diagonal-only rows"), for a reader of W (the Newton
/// path, the dumps): every row again as `delassus` builds it without the
/// flag, so the diagonal blocks keep their bits. Nothing when no row is.
pub(super) fn complete_diagonal(ls: &mut LcpWorkspace) {
    if ls.w_diagonal.iter().any(|&d| d) {
        ls.w_diagonal.iter_mut().for_each(|d| *d = false);
        super::delassus::rebuild_w(ls);
    }
}

/// Solves an island started in the interior method after its line search
/// failed, keyed by its moving bodies (lcp11): when the line search of its
/// island fails, a body is remembered for this many Newton solves (two per
/// step when the kept solve runs); while it is, an island with a point on that
/// body skips the line search (`NewtonResults::start_interior`). When it runs
/// out the line search is tried again: an island that no longer needs the
/// rescue returns to it.
pub(super) const INTERIOR_MEMORY: u64 = 32;

/// The per-point hints of the Newton solve from the per-body memory
/// (`memory` = `Data::lcp_interior`: per body the solve up to which it is
/// remembered, then the solve clock; part of the world's state, so that a
/// restored snapshot, or another world stepped by the same pipeline, solves
/// as the original): the clock advances by one, then a point is hinted when a
/// moving body of it is remembered past the clock. O(points): lcp11's
/// countdowns fell by one on every body per solve; an expiry needs no pass
/// over the bodies and hints the same solves (set at solve k, hinted at k + 1
/// … k + 31 both ways).
fn interior_hints(ls: &mut LcpWorkspace, memory: &mut [u64]) {
    let LcpWorkspace {
        contacts, newton, ..
    } = ls;
    newton.start_interior.clear();
    let Some((clock, bodies)) = memory.split_last_mut() else {
        return;
    };
    *clock = clock.saturating_add(1);
    let now = *clock;
    let counting = |b: usize| bodies.get(b).is_some_and(|&m| m > now);
    newton.start_interior.extend(
        contacts
            .iter()
            .map(|c| (0..2).any(|s| c.side[s].block != NO_BLOCK && counting(c.bodies[s]))),
    );
}

/// After the Newton solve: the moving bodies of every point whose island's
/// line search failed are remembered for [`INTERIOR_MEMORY`] solves.
fn remember_interior(ls: &mut LcpWorkspace, memory: &mut [u64]) {
    let LcpWorkspace {
        contacts, newton, ..
    } = ls;
    if newton.line_search_failed.len() != contacts.len() {
        return;
    }
    let Some((&mut now, bodies)) = memory.split_last_mut() else {
        return;
    };
    for (c, &failed) in contacts.iter().zip(&newton.line_search_failed) {
        if failed {
            for s in 0..2 {
                if let Some(m) = bodies
                    .get_mut(c.bodies[s])
                    .filter(|_| c.side[s].block != NO_BLOCK)
                {
                    *m = now.saturating_add(INTERIOR_MEMORY);
                }
            }
        }
    }
}

/// `RTPHYS_NEWTON_DUMP=DIR`: every island Newton fails on is written to DIR as
/// JSON (its W blocks, q, μ, k and the warm start; `solver::newton::island_problem`)
/// for a regression test; at most [`NEWTON_DUMP_MAX`] files per process, after
/// skipping the first `RTPHYS_NEWTON_DUMP_SKIP` (e.g. the settling). Read once
/// (the first Newton solve allocates the variable's value, nothing afterwards).
fn newton_dump_dir() -> Option<&'static str> {
    static DIR: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| std::env::var("RTPHYS_NEWTON_DUMP").ok())
        .as_deref()
}

/// `RTPHYS_PRIMAL_DUMP`: the directory the primal solves' problems are written
/// to (a debugging aid; unset by default).
fn primal_dump_dir() -> Option<&'static str> {
    static DIR: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| std::env::var("RTPHYS_PRIMAL_DUMP").ok())
        .as_deref()
}

/// `RTPHYS_PRIMAL_DUMP_FAILED` (with `RTPHYS_PRIMAL_DUMP`): only the solves
/// with an island the primal solver did not converge on are written (after
/// the solve, with the same problem and guess; lcp19). Read once.
fn primal_dump_failed() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("RTPHYS_PRIMAL_DUMP_FAILED").is_some())
}

/// Files written by [`dump_primal_problem`] at most.
const PRIMAL_DUMP_MAX: usize = 8;

/// Debugging aid behind `RTPHYS_PRIMAL_DUMP` (allocates; never on by default):
/// the whole body-space problem of a primal solve (every island: the points'
/// q, μ, islands, the bodies' M and M⁻¹, the sides' rows of G, the CFM, and the
/// guess) as JSON, for the solves after the first `RTPHYS_PRIMAL_DUMP_SKIP`, at
/// most [`PRIMAL_DUMP_MAX`]; W is `G M⁻¹ Gᵀ + diag(cfm)` of these rows (lcp16,
/// tests/lcp_primal.rs reads them back). With an island not in body space,
/// also `dof`: the DoF-space rows and W's blocks as assembled (lcp19,
/// tests/lcp_robots_primal.rs reads them back from tests/data/primal_robots/).
/// With lean blocks (lcp20, `articulated.rs`) a dump of every solve holds W's
/// diagonal blocks only on their rows and zeros for their M⁻¹; the dumps of
/// `RTPHYS_PRIMAL_DUMP_FAILED` are written after `complete_lean` (whole W,
/// M⁻¹ from the factor of M).
fn dump_primal_problem(p: &LcpParams, ls: &LcpWorkspace, warm: bool, dir: &str) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let skip = std::env::var("RTPHYS_PRIMAL_DUMP_SKIP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let c = COUNT.fetch_add(1, Ordering::Relaxed);
    if c < skip || c >= skip + PRIMAL_DUMP_MAX {
        return;
    }
    let (prob, br) = (&ls.sparse, &ls.body_rows);
    let m6 = |m: &M6| m.iter().copied().collect::<Vec<f64>>();
    let json = serde_json::json!({
        "k": prob.table.k,
        "tolerance": p.tolerance,
        "q": prob.q,
        "mu": prob.mu,
        "order": prob.order,
        "island_start": prob.island_start,
        "guess": if warm { Some(&ls.impulse) } else { None },
        "mass": br.mass.iter().map(m6).collect::<Vec<_>>(),
        "minv": br.minv.iter().map(m6).collect::<Vec<_>>(),
        "body": br.body,
        "jac": br.jac.iter().map(|j| [j[0].to_vec(), j[1].to_vec()]).collect::<Vec<_>>(),
        "cfm": br.cfm,
        "ok": br.ok,
    });
    let mut json = json;
    if br.ok.iter().any(|&ok| !ok) {
        // The DoF-space rows (lcp19) and W as the pipeline assembled it.
        let dr = &ls.dof_rows;
        // M⁻¹ padded to M's length (a factored block has none, lcp23; the
        // dumps keep their layout: zeros there).
        let mut minv = dr.minv.clone();
        minv.resize(dr.mass.len(), 0.0);
        json["dof"] = serde_json::json!({
            "ndof": dr.ndof,
            "at": dr.at,
            "mass": dr.mass,
            "minv": minv,
            "side": dr.side,
            "jac": dr.jac,
            "ok": dr.ok,
            "row_start": prob.row_start,
            "col": prob.col,
            "w": prob.w,
        });
    }
    crate::diag::emit(crate::diag::Output::File {
        path: format!("{dir}/primal_problem_{c:04}.json"),
        contents: json.to_string().into_bytes(),
    });
}

/// Files written by [`dump_failed_islands`] at most.
const NEWTON_DUMP_MAX: usize = 200;

/// Debugging aid behind `RTPHYS_NEWTON_DUMP` (allocates; never on by default):
/// re-solves each island alone from the same start and hands those that fail to
/// the diagnostics writer thread ([`crate::diag`]).
fn dump_failed_islands(p: &LcpParams, ls: &LcpWorkspace, warm: bool, dir: &str) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let skip = std::env::var("RTPHYS_NEWTON_DUMP_SKIP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let prob = &ls.sparse;
    let zero = vec![0.0; 3 * prob.n()];
    let guess: &[f64] = if warm { &ls.impulse } else { &zero };
    let solver = NewtonSolver::new(newton_params(p));
    let mut res = NewtonResults::default();
    for s in 0..prob.island_start.len().saturating_sub(1) {
        let order = &prob.order[prob.island_start[s]..prob.island_start[s + 1]];
        let (sub, g) = crate::solver::newton::island_problem(prob, order, guess);
        if solver.solve_contacts(&sub, Some(&g), &mut res) == NewtonStatus::Converged {
            continue;
        }
        let c = COUNT.fetch_add(1, Ordering::Relaxed);
        if c < skip {
            continue;
        }
        if c >= skip + NEWTON_DUMP_MAX {
            return;
        }
        let json = serde_json::json!({
            "k": sub.table.k,
            "tolerance": p.tolerance,
            "row_start": sub.row_start,
            "col": sub.col,
            "w": sub.w,
            "q": sub.q,
            "mu": sub.mu,
            "guess": g,
        });
        // Written by the diagnostics thread: the step never touches the disk.
        crate::diag::emit(crate::diag::Output::File {
            path: format!("{dir}/newton_island_{c:04}.json"),
            contents: json.to_string().into_bytes(),
        });
    }
}

/// (p_n, f_t = D_c β) from Lemke's z.
pub(super) fn read_lemke(ls: &mut LcpWorkspace) {
    let nc = ls.contacts.len();
    let k = ls.dirs.len();
    let z = &ls.lemke_res.z;
    if z.len() != nc * (k + 2) {
        return;
    }
    for c in 0..nc {
        let (mut f1, mut f2) = (0.0, 0.0);
        for (j, &(cj, sj)) in ls.dirs.iter().enumerate() {
            let b = z[nc + c * k + j].max(0.0);
            f1 += b * cj;
            f2 += b * sj;
        }
        ls.impulse[3 * c] = z[c].max(0.0);
        ls.impulse[3 * c + 1] = f1;
        ls.impulse[3 * c + 2] = f2;
    }
}
