//! The solve: Lemke on the Stewart–Trinkle LCP with the documented PGS fallback,
//! or PGS on the block-sparse W with polygonal friction cones; the accepted
//! impulses (p_n, f_t₁, f_t₂) per point in `LcpWorkspace::impulse`.

use super::delassus::{dense_w, stewart_trinkle_lcp};
use super::warm::{lemke_guess, warm_impulses};
use super::{LcpWorkspace, LEMKE_ACCEPT};
use crate::data::{PairState, StepStats};
use crate::model::{LcpParams, LcpSolverKind};
use crate::solver::{LemkeParams, LemkeStatus, PgsParams, PgsSolver, PgsStatus};

/// Solves for the impulses (p_n, f_t₁, f_t₂) of every point into `ls.impulse`.
pub(super) fn solve(
    p: &LcpParams,
    pairs: &[PairState],
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
    ls.dirs.clear();
    ls.dirs.extend((0..k).map(|j| {
        let (s, c) = (std::f64::consts::TAU * j as f64 / k as f64).sin_cos();
        (c, s)
    }));
    match p.solver {
        LcpSolverKind::Pgs => {
            let warm = p.warm_start && warm_impulses(pairs, ls);
            pgs_on_w(p, ls, warm, stats);
        }
        LcpSolverKind::Lemke => {
            dense_w(ls);
            stewart_trinkle_lcp(ls);
            let n = ls.problem.q.len();
            stats.lcp_size = n;
            let warm = p.warm_start && warm_impulses(pairs, ls) && lemke_guess(ls);
            ls.lemke.params = LemkeParams {
                max_pivots: p.max_pivots,
                zero_tol: 1e-9,
                ..LemkeParams::default()
            };
            let status = ls.lemke.solve(
                &ls.problem,
                if warm { Some(&ls.guess) } else { None },
                &mut ls.lemke_res,
            );
            let st = ls.lemke_res.stats;
            stats.solver_iterations = st.pivots + st.setup_pivots;
            stats.solver_residual = st.residual;
            // A "solved" basis whose residual round-off has spoiled (degenerate
            // pivots on near-dependent rows) counts as a failure too.
            let status = match status {
                LemkeStatus::Solved if st.residual.is_nan() || st.residual > LEMKE_ACCEPT => {
                    LemkeStatus::IterationLimit
                }
                s => s,
            };
            match status {
                LemkeStatus::Solved => read_lemke(ls),
                LemkeStatus::RayTermination | LemkeStatus::IterationLimit => {
                    // Fallback: PGS on (W, q_W) from the last step's impulses (the
                    // Lemke iterate of a ray termination is not a useful start).
                    stats.solver_failed = true;
                    stats.solver_failures += 1;
                    stats.solver_fallbacks += 1;
                    ls.impulse.iter_mut().for_each(|x| *x = 0.0);
                    let warm = warm_impulses(pairs, ls);
                    let it = stats.solver_iterations;
                    pgs_on_w(p, ls, warm, stats);
                    stats.solver_iterations += it;
                }
                LemkeStatus::InvalidProblem => {
                    stats.solver_failed = true;
                    stats.solver_failures += 1;
                    ls.impulse.iter_mut().for_each(|x| *x = 0.0);
                }
            }
        }
    }
    if !ls.impulse.iter().all(|x| x.is_finite()) {
        ls.impulse.iter_mut().for_each(|x| *x = 0.0);
    }
}

/// PGS on the block-sparse (W, q_W) with polygonal cones, island by island;
/// `warm`: start from `ls.impulse`.
pub(super) fn pgs_on_w(p: &LcpParams, ls: &mut LcpWorkspace, warm: bool, stats: &mut StepStats) {
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
            stats.solver_unconverged += 1;
            ls.impulse.copy_from_slice(&ls.contact_res.z);
        }
        PgsStatus::InvalidProblem => {
            stats.solver_failed = true;
            stats.solver_failures += 1;
            ls.impulse.iter_mut().for_each(|x| *x = 0.0);
        }
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
