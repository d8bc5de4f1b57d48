//! PEG's LCP (003 eqs. (44)–(49), `peg.rs`) by projected Gauss–Seidel on its
//! constraints, for islands the dense Lemke cannot take ([`super::PEG_MAX_LCP`])
//! and as the fallback of an island Lemke failed on.
//!
//! # The constraint as one coordinate
//! The slack variables of an I (or X) constraint are not free unknowns: its chain
//! g_ι − g_s + Σ_{t ≤ s} c_t ⊥ c_s makes g_ι + Σ_s c_s = max_{j ∈ C} g_j, the
//! running maximum of the predicted gaps of its contacts (eqs. (20), (24)), so
//! the primary's row reads
//!
//! ```text
//! 0 ≤ p_ι ⊥ max_{j ∈ C} g_j(p) ≥ 0,      g_j = q_j + Σ_k W_jk z_k   (m/s)
//! ```
//!
//! with the slacks eliminated. A U contact is the same with C = {ι}. Gauss–Seidel
//! takes one force variable at a time with the others fixed: each g_j is then
//! affine in p_ι, g_j(p) = g_j(p_cur) + a_j (p − p_cur) with a_j = W_jι,nn (the
//! normal–normal coupling of member j and the primary's row), and max_j g_j is
//! convex and piecewise linear in p. The coordinate's complementarity solution
//! closest to 0 is
//!
//! ```text
//! p_ι = 0                                           if max_j g_j(0) ≥ 0,
//! p_ι = min_{j : a_j > 0} (−g_j(0) / a_j)           otherwise,
//! ```
//!
//! the smallest p at which the largest gap reaches 0 (where it equals 0 exactly:
//! the force pushes only while every contact of the set is closed, and it stops
//! at the first one that opens). With no a_j > 0 the set cannot be opened by its
//! own force: p_ι = 0 (the residual shows it). The friction pair of the row is
//! then the standard one (`solver::pgs`, the polygonal cone of k sides, the
//! Lemke LCP's k directions), with r_t updated for the new p_ι.
//!
//! # Why it does not converge (peg7)
//! Of the three causes that break projected Gauss–Seidel, the relaxation is
//! not one (none: ω = 1). The other two hold by construction of PEG:
//! - *not a projection onto a convex set*: the set {max_j g_j ≥ 0} of an I/X
//!   constraint is a union of half-spaces (what lets a vertex pass a corner);
//! - *not symmetric*: with the member σ(ι) whose gap sets p_ι held fixed, a
//!   sweep is Gauss–Seidel on A_ιk = W_σ(ι)k, member σ's row against force k's
//!   column. Its diagonal W_σι = n_σ·M⁻¹n_ι is not bounded by the row's other
//!   entries (Cauchy–Schwarz, W_ιk² ≤ W_ιι W_kk, holds only for σ = ι). On two
//!   rows with members a, b the sweep multiplies the error by
//!   W_a2 W_b1 / (W_a1 W_b2), > 1 exactly when det A < 0: A is then not a
//!   P-matrix, and that active set's linear solution is not a solution of the
//!   LCP. No coordinate method converges there; Lemke (a pivoting method) is
//!   the solver of PEG's LCP, this one a bounded fallback.
//!
//! Measured (the 2D pour, seed 1, h = 1e-2, docs/EXPERIMENTS.md, peg7): the
//! sweeps do not diverge, they stall — an unconverged solve's residual goes
//! from 0.65–45 at the start to a best of 2e-4–27 and ends within 0.9–5.5 ×
//! it (none grew 1e6-fold); the 9e17 read as divergence before was the
//! step's largest residual, a failed Lemke attempt's. In the last sweep most
//! pushing rows are set by their own gap, whose rows are far from diagonally
//! dominant (Σ_{k≠ι} |W_ιk| / W_ιι up to 161: many contacts between the same
//! two bodies), and a few by another member's (up to 3,706).
//! `RTPHYS_PEG_PGS_TRACE=N` prints the first N unconverged solves: sweeps, the
//! residual at the start, the best and the last, and in the last sweep the
//! pushing rows set by their own gap (σ = ι) or by another member's, with each
//! kind's largest Σ_{k≠ι} |A_ιk| / A_ιι (> 1: not diagonally dominant).
//!
//! **Best iterate.** The residual is checked every [`BEST_EVERY`] sweeps; the
//! smallest one's impulses are kept and returned when the last iterate is
//! worse, and a residual [`DIVERGED`] times the best ends the sweeps. Before,
//! an unconverged solve returned its last iterate (residuals up to 9e17
//! impulse units on the 2D pour, docs/EXPERIMENTS.md, peg6).
//!
//! # Stopping and result
//! The natural-map residual of the eliminated problem, max over the island's
//! force rows of |p − max(0, p − max_j g_j)| (m/s, scaled by W_nn to impulse
//! units as the standard PGS's) and of the friction pair's projection, is
//! checked once a sweep's largest scaled update is ≤ the tolerance (and at the
//! sweep limit). What is returned solves PEG's LCP with the slacks
//! c_s = max(0, max_{t ≤ s} g_t − …) read off the gaps, to that residual.
//! No convergence guarantee (above); an island at the sweep limit keeps its
//! best iterate and the caller counts it (`solver_unconverged`).
//!
//! # Cost
//! O(Σ members · blocks per row) per sweep over the block-sparse W of
//! `delassus` (no dense matrix): the 2D pour's pile of 20 polygons at h = 1e-2
//! (islands of 2,658 and 5,423 LCP variables reported, far beyond the dense
//! tableau's n × 2n) is swept in its block-sparse W. From 0 each step (PEG's rows
//! have no pair slot that rides in snapshots, so no warm start). Buffers kept in
//! [`PegWorkspace`] (capacities kept): no allocation once warmed up. The
//! allocation tests do not reach an over-cap island; not asserted.

use super::super::LcpWorkspace;
use super::{PegWorkspace, NONE};
use crate::model::LcpParams;
use crate::solver::pgs::{friction_update, project_polygon_with, ContactProblem};

/// Row `j`'s rates q_j + Σ_k W_jk z_k (normal, t₁, t₂).
#[inline]
pub(super) fn rate(sp: &ContactProblem, qw: &[f64], z: &[f64], j: usize) -> [f64; 3] {
    let mut r = [qw[3 * j], qw[3 * j + 1], qw[3 * j + 2]];
    let (a, e) = (sp.row_start[j], sp.row_start[j + 1]);
    for (b, &k) in sp.w[a..e].iter().zip(&sp.col[a..e]) {
        let zk = &z[3 * k as usize..3 * k as usize + 3];
        if zk[0] == 0.0 && zk[1] == 0.0 && zk[2] == 0.0 {
            continue;
        }
        r[0] += b[0] * zk[0] + b[1] * zk[1] + b[2] * zk[2];
        r[1] += b[3] * zk[0] + b[4] * zk[1] + b[5] * zk[2];
        r[2] += b[6] * zk[0] + b[7] * zk[1] + b[8] * zk[2];
    }
    r
}

/// Only the normal rate of row `j` (the slack members of a constraint).
#[inline]
pub(super) fn normal_rate(sp: &ContactProblem, qw: &[f64], z: &[f64], j: usize) -> f64 {
    let mut r = qw[3 * j];
    let (a, e) = (sp.row_start[j], sp.row_start[j + 1]);
    for (b, &k) in sp.w[a..e].iter().zip(&sp.col[a..e]) {
        let zk = &z[3 * k as usize..3 * k as usize + 3];
        r += b[0] * zk[0] + b[1] * zk[1] + b[2] * zk[2];
    }
    r
}

/// The 3×3 block W_jk (row-major), 0 if rows j and k share no moving body.
fn block(sp: &ContactProblem, j: usize, k: usize) -> Option<&[f64; 9]> {
    let (a, e) = (sp.row_start[j], sp.row_start[j + 1]);
    (a..e).find(|&i| sp.col[i] as usize == k).map(|i| &sp.w[i])
}

/// Per force row of the island (in the island's row order): its row, W_nn,
/// 1/λ_max(W_tt), W_tn (the friction rows' coupling to its own normal), and its constraint's members' a_j (module doc) in
/// `pw.pgs_a[pw.pgs_a_start[f]..pw.pgs_a_start[f + 1]]`, the primary's own
/// first. False if a diagonal is not positive and finite (the island cannot be
/// swept).
pub(super) fn prepare(order: &[u32], sp: &ContactProblem, pw: &mut PegWorkspace) -> bool {
    pw.pgs_rows.clear();
    pw.pgs_diag.clear();
    pw.pgs_a.clear();
    pw.pgs_a_start.clear();
    for &c in order {
        let c = c as usize;
        let f = pw.force[c];
        if f == NONE {
            continue;
        }
        let Some(d) = block(sp, c, c) else {
            return false;
        };
        let (maa, mab, mbb) = (d[4], 0.5 * (d[5] + d[7]), d[8]);
        let half = 0.5 * (maa - mbb);
        let lmax = 0.5 * (maa + mbb) + (half * half + mab * mab).sqrt();
        if !(d[0].is_finite() && d[0] > 0.0 && lmax.is_finite() && lmax > 0.0) {
            return false;
        }
        pw.pgs_rows.push(c as u32);
        pw.pgs_diag.push((d[0], 1.0 / lmax, d[3], d[6]));
        pw.pgs_a_start.push(pw.pgs_a.len() as u32);
        pw.pgs_a.push(d[0]);
        let con = pw.primary_of[f as usize];
        if con != NONE {
            let con = &pw.constraints[con as usize];
            for s in con.slacks.clone() {
                let j = pw.slack_rows[s as usize] as usize;
                pw.pgs_a.push(block(sp, j, c).map_or(0.0, |b| b[0]));
            }
        }
    }
    pw.pgs_a_start.push(pw.pgs_a.len() as u32);
    true
}

/// The largest predicted gap rate max_j g_j of force row number `i` of the
/// island (its constraint's members; the row itself for a U), at `z`.
pub(super) fn max_gap(
    c: usize,
    g_self: f64,
    sp: &ContactProblem,
    qw: &[f64],
    z: &[f64],
    pw: &PegWorkspace,
) -> f64 {
    let mut g = g_self;
    let con = pw.primary_of[pw.force[c] as usize];
    if con != NONE {
        for s in pw.constraints[con as usize].slacks.clone() {
            let j = pw.slack_rows[s as usize] as usize;
            g = g.max(normal_rate(sp, qw, z, j));
        }
    }
    g
}

/// Natural-map residual of the island's force rows at `z`,
/// max |p − max(0, p − max_j g_j)| and the friction pair's ‖f_t − P(f_t − r_t)‖∞
/// (the standard PGS's measure, `solver::pgs`).
pub(super) fn residual(sp: &ContactProblem, qw: &[f64], z: &[f64], pw: &PegWorkspace) -> f64 {
    let mut res = 0.0f64;
    for &c in &pw.pgs_rows {
        let c = c as usize;
        let r = rate(sp, qw, z, c);
        let g = max_gap(c, r[0], sp, qw, z, pw);
        let p = z[3 * c];
        let en = (p - (p - g).max(0.0)).abs();
        let (z1, z2) = (z[3 * c + 1], z[3 * c + 2]);
        let (p1, p2) = project_polygon_with(z1 - r[1], z2 - r[2], sp.mu[c] * p, &sp.table);
        let e = en.max((z1 - p1).abs()).max((z2 - p2).abs());
        if e.is_nan() {
            return f64::INFINITY;
        }
        res = res.max(e);
    }
    res
}

/// Solves island `s` of PEG's LCP (its rows `ls.sparse.order[island_start[s]..]`)
/// by projected Gauss–Seidel on its constraints (module doc), from the impulses
/// already in `ls.impulse` (a warm start; zero otherwise). Writes the island's
/// impulses into `ls.impulse`; returns (sweeps, residual, converged).
pub(super) fn solve_island(p: &LcpParams, s: usize, ls: &mut LcpWorkspace) -> (usize, f64, bool) {
    solve_rows(p, s, None, p.max_iterations, ls)
}

/// As [`solve_island`], on the force rows in `rows` (contact rows, e.g. one
/// two-body group of island `s`, `peg_bgs.rs`) when given, at most `sweeps`
/// sweeps.
pub(super) fn solve_rows(
    p: &LcpParams,
    s: usize,
    rows: Option<&[u32]>,
    sweeps: usize,
    ls: &mut LcpWorkspace,
) -> (usize, f64, bool) {
    let LcpWorkspace {
        sparse: sp,
        qw,
        impulse: z,
        peg: pw,
        ..
    } = ls;
    let qw = qw.as_slice();
    let order = rows.unwrap_or(&sp.order[sp.island_start[s]..sp.island_start[s + 1]]);
    if !prepare(order, sp, pw) {
        return (0, f64::INFINITY, false);
    }
    // The start projected onto the cones.
    for &c in &pw.pgs_rows {
        let c = c as usize;
        z[3 * c] = z[3 * c].max(0.0);
        (z[3 * c + 1], z[3 * c + 2]) =
            project_polygon_with(z[3 * c + 1], z[3 * c + 2], sp.mu[c] * z[3 * c], &sp.table);
    }
    let tol = p.tolerance;
    let mut res = residual(sp, qw, z, pw);
    if res <= tol {
        return (0, res, true);
    }
    let mut best = res;
    save_best(z, pw);
    let tracing = pw.pgs_trace > 0;
    // For the trace: the start's residual, the best's sweep, the last sweep's
    // pushing rows by kind and their largest off-diagonal dominance.
    let (res0, mut best_it, mut diverged) = (res, 0, false);
    let mut last = ([0usize; 2], [0.0f64; 2]);
    let (mut it, mut next_check) = (0, 0);
    while it < sweeps {
        let mut change = 0.0f64;
        // Per sweep (tracing only): pushing rows set by their own gap / by
        // another member's, and the largest off-diagonal dominance of each kind.
        let (mut diag_push, mut diag_dom) = ([0usize; 2], [0.0f64; 2]);
        for (i, (&c, &(wnn, inv_l, wtn1, wtn2))) in pw.pgs_rows.iter().zip(&pw.pgs_diag).enumerate()
        {
            let c = c as usize;
            let r = rate(sp, qw, z, c);
            let p_cur = z[3 * c];
            // The constraint's members as affine functions of p (module doc).
            let a = &pw.pgs_a[pw.pgs_a_start[i] as usize..pw.pgs_a_start[i + 1] as usize];
            let con = pw.primary_of[pw.force[c] as usize];
            let g0_self = r[0] - a[0] * p_cur;
            let mut gmax0 = g0_self;
            let mut p_new = if a[0] > 0.0 {
                -g0_self / a[0]
            } else {
                f64::INFINITY
            };
            // The member whose gap sets p (the row itself: c).
            let mut sel = c;
            if con != NONE {
                let slacks = pw.constraints[con as usize].slacks.clone();
                for (t, sl) in slacks.enumerate() {
                    let j = pw.slack_rows[sl as usize] as usize;
                    let aj = a[1 + t];
                    let g0 = normal_rate(sp, qw, z, j) - aj * p_cur;
                    gmax0 = gmax0.max(g0);
                    if aj > 0.0 && -g0 / aj < p_new {
                        p_new = -g0 / aj;
                        sel = j;
                    }
                }
            }
            let p_new = if gmax0 >= 0.0 || !p_new.is_finite() {
                0.0
            } else {
                p_new.max(0.0)
            };
            if tracing && p_new > 0.0 {
                // Diagonal dominance of the selected member's row in the
                // active linearization (module doc, "Why it does not converge").
                let a_sel = block(sp, sel, c).map_or(0.0, |b| b[0]);
                let dom = off_diagonal(sp, pw, sel, c) / a_sel;
                let k = usize::from(sel != c);
                diag_push[k] += 1;
                diag_dom[k] = diag_dom[k].max(dom);
            }
            let dn = p_new - p_cur;
            z[3 * c] = p_new;
            // Friction pair with r_t for the new p (as `solver::pgs`).
            let (r1, r2) = (r[1] + wtn1 * dn, r[2] + wtn2 * dn);
            let dt = friction_update(z, c, (r1, r2), inv_l, sp.mu[c] * p_new, &sp.table);
            // The scaled update (the point's residual before it, as `solver::pgs`).
            change = change.max(dn.abs() * wnn).max(dt / inv_l);
        }
        last = (diag_push, diag_dom);
        it += 1;
        if change.is_nan() {
            break;
        }
        if (change <= tol && it >= next_check) || it % BEST_EVERY == 0 {
            res = residual(sp, qw, z, pw);
            if res <= tol {
                return (it, res, true);
            }
            if res < best {
                best = res;
                best_it = it;
                save_best(z, pw);
            } else if res.is_nan() || res > DIVERGED * best {
                // Diverging: no later sweep is expected to return.
                diverged = true;
                break;
            }
            if change <= tol {
                next_check = it + 4;
            }
        }
    }
    res = residual(sp, qw, z, pw);
    if tracing {
        pw.pgs_trace -= 1;
        crate::diag::emit(crate::diag::Output::Stderr(format!(
            "rtphys: PEG constraint PGS unconverged: {} force rows, {it} sweeps{}, residual \
             start {res0:.2e}, best {best:.2e} (sweep {best_it}), last {res:.2e}; last \
             sweep's pushing rows set by their own gap {} (max off-diagonal/diagonal {:.2}), \
             by another member's {} (max {:.2})\n",
            pw.pgs_rows.len(),
            if diverged {
                " (stopped: diverging)"
            } else {
                ""
            },
            last.0[0],
            last.1[0],
            last.0[1],
            last.1[1]
        )));
    }
    if res.is_nan() || res > best {
        restore_best(z, pw);
        res = best;
    }
    (it, res, res <= tol)
}

/// Σ_k |W_jk,nn| over the force rows k ≠ c (row j's off-diagonal couplings to
/// the impulses in the active linearization where row j sets p_c).
fn off_diagonal(sp: &ContactProblem, pw: &PegWorkspace, j: usize, c: usize) -> f64 {
    let (a, e) = (sp.row_start[j], sp.row_start[j + 1]);
    sp.w[a..e]
        .iter()
        .zip(&sp.col[a..e])
        .filter(|&(_, &k)| k as usize != c && pw.force[k as usize] != NONE)
        .map(|(b, _)| b[0].abs())
        .sum()
}

/// Sweeps between two checks of the residual for the best iterate.
const BEST_EVERY: usize = 8;

/// A residual this many times the best one's ends the sweeps (diverging).
const DIVERGED: f64 = 1e6;

/// Keeps the island's force rows' impulses as the best iterate.
pub(super) fn save_best(z: &[f64], pw: &mut PegWorkspace) {
    pw.pgs_best.clear();
    for &c in &pw.pgs_rows {
        let c = 3 * c as usize;
        pw.pgs_best.extend_from_slice(&z[c..c + 3]);
    }
}

/// Puts the best iterate back.
pub(super) fn restore_best(z: &mut [f64], pw: &PegWorkspace) {
    for (&c, b) in pw.pgs_rows.iter().zip(pw.pgs_best.chunks_exact(3)) {
        let c = 3 * c as usize;
        z[c..c + 3].copy_from_slice(b);
    }
}
