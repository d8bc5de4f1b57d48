//! PEG's LCP (003 eqs. (44)–(49), `peg.rs`) on an island by **block
//! Gauss–Seidel over two-body groups**, each group's LCP solved exactly by the
//! island Lemke of `peg.rs` (issue 12, branch peg8). **Opt-in**:
//! the scene key `[lcp] peg_block_gs = true` (`LcpParams::peg_block_gs`); off, `peg::solve`
//! is bit-identical to before (the constraint PGS of `peg_pgs.rs`). Not on by
//! default: it converges where its groups are solved, but the 2D pour's
//! overlap is not smaller (docs/EXPERIMENTS.md, peg8).
//!
//! # Groups
//! The island's force variables are partitioned by the pair of bodies their
//! contact acts between (`ContactRow::bodies`, unordered; a static body is one
//! of the pair). Every I/X constraint's members are contacts of one geom pair
//! (`collision::features`: 003 never couples pieces), hence of one body pair,
//! so a constraint, its primary, its slacks and its friction rows all fall in
//! its primary's group: the non-symmetric, non-P structure of PEG's LCP (the
//! E blocks of eqs. (45)–(47), `peg_pgs.rs` "Why it does not converge") lives
//! inside a group. Between groups the LCP couples only through W = G M⁻¹ Gᵀ's
//! off-group blocks W_GK (G ≠ K), the symmetric coupling of contacts that share
//! a moving body. Groups are numbered in the order of their first force
//! variable (global force ids increase), which fixes the sweep order
//! (determinism).
//!
//! # A sweep
//! For each group G in order, with the other groups' impulses z_K fixed, G's
//! LCP is PEG's LCP of G's rows alone with the constant
//!
//! ```text
//! q_G' = q_G + Σ_{K ≠ G} W_GK z_K      (per row r of G: its rates at z with z_G = 0)
//! ```
//!
//! (force and slack rows alike: a slack row reads the gaps of its members,
//! which the other groups' impulses move too). It is assembled and scaled as an
//! island's (`peg::assemble`, `peg::scale`) and solved by Lemke warm-started
//! from G's impulses of the previous sweep (`peg::lemke_from_impulses`: p, β, σ
//! and the slacks read off the gaps), then, if that is not accepted, by the
//! cold ladder of zero tolerances (`peg::ladder`). The first sweep starts cold
//! (the impulses are 0). A group Lemke does not solve is given
//! [`BGS_GROUP_PGS_SWEEPS`] sweeps of the constraint PGS (`peg_pgs.rs`) on its
//! own force rows from its current impulses (its best iterate; counted in the
//! result). Measured (docs/EXPERIMENTS.md, peg8): the groups Lemke fails on
//! are two moving bodies with 40–47 force rows (2D: W of rank ≤ 6), the
//! jamming structure of `tests/peg_large_step.rs`'s step 17; eliminating the
//! internal-force directions of such a group before Lemke is not built.
//!
//! **The general form on a failed group** (peg12): with `[lcp] peg_general`
//! on (the default), a group the ladder does not solve is solved in 003's
//! general |Cι| > 1 form (`peg::general`) with the other groups' impulses in
//! its constant ([`general_group`]) before the constraint PGS; the members' λ it
//! adds are kept per row (`PegWorkspace::gen_lambda`), taken out before the
//! group is solved again ([`take_out_lambda`]) and saved with the best iterate.
//! Measured (docs/EXPERIMENTS.md, peg12): the jammed groups of the 2D pour fail
//! in that form too (they admit no rigid motion that opens their sets).
//!
//! **An over-cap island on its active set** (peg12, opt-in `[lcp]
//! peg_active_set`): [`solve_island_active`] makes the whole island one group
//! of [`solve_reduced`] at the constraint PGS's iterate.
//!
//! # Stopping and result
//! After each sweep the island's own residual — the constraint PGS's natural
//! map of the eliminated problem over the island's force rows
//! (`peg_pgs::residual`: max |p − max(0, p − max_j g_j)| and the friction
//! pair's projection) — is checked against `LcpParams::tolerance`; the best
//! iterate is kept and returned; the sweeps end at [`BGS_MAX_SWEEPS`] or when
//! no new best came in [`BGS_STALL`] sweeps. The caller (`peg::solve`) gives an
//! unconverged over-cap island the constraint PGS from that best iterate (it
//! returns its own best, never above its start), and a Lemke failure's
//! unconverged island the PGS and then Lemke warm-started, as before.
//!
//! # When it does not apply
//! An island of one group (two bodies: step 17's jamming island of
//! `tests/peg_large_step.rs`) is the same Lemke again; a group larger than
//! [`super::PEG_MAX_LCP`] cannot be given to the dense Lemke. Both are
//! reported as not applicable and the caller keeps the constraint PGS
//! (`peg_pgs.rs`).
//!
//! # Cost and memory
//! Per sweep, Σ_G (|rows of G| × blocks per row) for the constants and one
//! dense Lemke per group (n_G × 2 n_G tableau), instead of the island's. The
//! buffers are [`super::PegWorkspace`]'s (`bgs_*`, capacities kept): no
//! allocation once warmed up.

use super::super::{LcpWorkspace, NO_BLOCK};
use super::{assemble, general, island_w, ladder, lemke_from_impulses, pgs, scale, NONE};
use crate::data::StepStats;
use crate::model::LcpParams;

/// Largest number of sweeps over the groups.
pub(super) const BGS_MAX_SWEEPS: usize = 100;

/// Sweeps without a new best residual that end the solve (stalled).
const BGS_STALL: usize = 10;

/// Sweeps of the constraint PGS on a group Lemke did not solve (`peg_pgs.rs`).
const BGS_GROUP_PGS_SWEEPS: usize = 50;

/// Keeps the island's force rows' impulses (`bgs_force`) as the best iterate,
/// then (when the general form may act in the sweeps, `gen`) its constraints'
/// slack rows' normal impulses and their λ (`PegWorkspace::gen_lambda`).
fn save_best(z: &[f64], pw: &mut super::PegWorkspace, gen: bool) {
    pw.bgs_best.clear();
    for &f in &pw.bgs_force {
        let c = 3 * pw.force_rows[f as usize] as usize;
        pw.bgs_best.extend_from_slice(&z[c..c + 3]);
    }
    if gen {
        for &ci in &pw.bgs_cons {
            for sl in pw.constraints[ci as usize].slacks.clone() {
                let r = pw.slack_rows[sl as usize] as usize;
                pw.bgs_best.extend([z[3 * r], pw.gen_lambda[r]]);
            }
        }
    }
}

/// Puts the best iterate back.
fn restore_best(z: &mut [f64], pw: &mut super::PegWorkspace, gen: bool) {
    for (&f, b) in pw.bgs_force.iter().zip(pw.bgs_best.chunks_exact(3)) {
        let c = 3 * pw.force_rows[f as usize] as usize;
        z[c..c + 3].copy_from_slice(b);
    }
    if gen {
        let mut i = 3 * pw.bgs_force.len();
        for &ci in &pw.bgs_cons {
            for sl in pw.constraints[ci as usize].slacks.clone() {
                let r = pw.slack_rows[sl as usize] as usize;
                z[3 * r] = pw.bgs_best[i];
                pw.gen_lambda[r] = pw.bgs_best[i + 1];
                i += 2;
            }
        }
    }
}

/// Takes group `g`'s members' λ of an earlier general-form solve out of the
/// impulses (the group is solved again from its force variables).
fn take_out_lambda(ls: &mut LcpWorkspace, g: usize) {
    let LcpWorkspace {
        impulse: z,
        peg: pw,
        ..
    } = ls;
    let (a, e) = (pw.bgs_gc_start[g] as usize, pw.bgs_gc_start[g + 1] as usize);
    for i in a..e {
        for sl in pw.constraints[pw.bgs_gc[i] as usize].slacks.clone() {
            let r = pw.slack_rows[sl as usize] as usize;
            z[3 * r] -= pw.gen_lambda[r];
            pw.gen_lambda[r] = 0.0;
        }
    }
}

/// 003's general |Cι| > 1 form (`peg::general`) of group `g` (selected, `ns`
/// slacks) with the other groups' impulses in its constant (as
/// [`assemble_group`]): whether it solved, and the pivots. Opt-in with block
/// Gauss–Seidel (`[lcp] peg_block_gs` and `peg_general`; peg12).
fn general_group(
    p: &LcpParams,
    ns: usize,
    ls: &mut LcpWorkspace,
    stats: &mut StepStats,
) -> (bool, usize) {
    island_w(ls);
    swap_in_constants(ls);
    let r = general(p, (ns, super::PEG_MAX_LCP), ls, stats);
    swap_out_constants(ls);
    r
}

/// What a block Gauss–Seidel solve did.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct BgsOutcome {
    /// False: not applicable (one group, or a group over `PEG_MAX_LCP`); the
    /// impulses are untouched.
    pub(super) applied: bool,
    pub(super) sweeps: usize,
    /// Constraint-PGS sweeps on groups Lemke did not solve.
    pub(super) sweeps_pgs: usize,
    pub(super) pivots: usize,
    pub(super) residual: f64,
    pub(super) converged: bool,
    /// Group solves Lemke did not accept (given the constraint PGS).
    pub(super) group_failures: usize,
    /// Group solves accepted on a reduced active set ([`BGS_REDUCED`]).
    pub(super) reduced_solved: usize,
}

/// Partitions the island in `ls.peg.isl_force` / `isl_cons` into two-body
/// groups (module doc) into the `bgs_*` CSR lists; returns the number of groups
/// and the largest group's LCP size (k friction directions).
fn group(ls: &mut LcpWorkspace, k: usize) -> (usize, usize) {
    let LcpWorkspace { contacts, peg, .. } = ls;
    let pw = peg;
    pw.bgs_force.clear();
    pw.bgs_force.extend_from_slice(&pw.isl_force);
    pw.bgs_cons.clear();
    pw.bgs_cons.extend_from_slice(&pw.isl_cons);
    pw.bgs_key.clear();
    pw.bgs_group_of.clear();
    pw.bgs_group_of.resize(pw.force_rows.len(), NONE);
    pw.bgs_keep.clear();
    pw.bgs_keep.resize(pw.force_rows.len(), false);
    for &f in &pw.bgs_force {
        let b = contacts[pw.force_rows[f as usize] as usize].bodies;
        let key = (b[0].min(b[1]), b[0].max(b[1]));
        let g = match pw.bgs_key.iter().position(|&x| x == key) {
            Some(g) => g,
            None => {
                pw.bgs_key.push(key);
                pw.bgs_key.len() - 1
            }
        };
        pw.bgs_group_of[f as usize] = g as u32;
    }
    let ng = pw.bgs_key.len();
    // Force variables per group (CSR; global order kept within a group).
    let group_of = &pw.bgs_group_of;
    bucket(
        ng,
        &pw.bgs_force,
        |f| group_of[f as usize] as usize,
        (&mut pw.bgs_gf_start, &mut pw.bgs_gf, &mut pw.bgs_fill),
    );
    // Constraints per group (the group of the primary's force variable) and
    // each group's slack count.
    let (constraints, force) = (&pw.constraints, &pw.force);
    let con_group = |ci: u32| {
        let con = &constraints[ci as usize];
        group_of[force[con.primary as usize] as usize] as usize
    };
    bucket(
        ng,
        &pw.bgs_cons,
        con_group,
        (&mut pw.bgs_gc_start, &mut pw.bgs_gc, &mut pw.bgs_fill),
    );
    pw.bgs_ns.clear();
    pw.bgs_ns.resize(ng, 0);
    for &ci in &pw.bgs_cons {
        let con = &constraints[ci as usize];
        pw.bgs_ns[con_group(ci)] += con.slacks.end - con.slacks.start;
    }
    let mut n_max = 0;
    for g in 0..ng {
        let nf = (pw.bgs_gf_start[g + 1] - pw.bgs_gf_start[g]) as usize;
        n_max = n_max.max(nf * (k + 2) + pw.bgs_ns[g] as usize);
    }
    (ng, n_max)
}

/// `items` bucketed by `key` (< `n`) as compressed rows: bucket b's items are
/// `out[start[b]..start[b + 1]]`, in `items`' order (a counting sort; `fill` is
/// scratch). No allocation once the buffers have grown.
fn bucket(
    n: usize,
    items: &[u32],
    key: impl Fn(u32) -> usize,
    (start, out, fill): (&mut Vec<u32>, &mut Vec<u32>, &mut Vec<u32>),
) {
    start.clear();
    start.resize(n + 1, 0);
    for &x in items {
        start[key(x) + 1] += 1;
    }
    for b in 0..n {
        start[b + 1] += start[b];
    }
    out.clear();
    out.resize(items.len(), 0);
    fill.clear();
    fill.extend_from_slice(&start[..n]);
    for &x in items {
        let b = key(x);
        out[fill[b] as usize] = x;
        fill[b] += 1;
    }
}

/// Whether a group is first solved on its likely-active force variables only
/// ([`solve_reduced`]).
const BGS_REDUCED: bool = true;

/// Rounds of [`solve_reduced`] (each adds the dropped force variables found
/// violated) before the whole group is solved instead.
const BGS_ROUNDS: usize = 4;

/// How [`solve_reduced`] ended (the active-set trace, `RTPHYS_PEG_ACTIVE_TRACE`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) enum RedEnd {
    /// Accepted: every dropped variable satisfied.
    Solved,
    /// A reduced LCP over the size cap.
    Cap,
    /// Lemke (warm, then the ladder) did not solve a reduced LCP.
    Lemke,
    /// Still violated dropped variables after the last round.
    #[default]
    Rounds,
}

/// Rounds of [`solve_reduced`] on a whole over-cap island
/// ([`solve_island_active`]) before it gives up.
const ACTIVE_ROUNDS: usize = 6;

/// Group `g` on a reduced active set: its force variables (with their
/// constraints) that push (p > 0) or whose constraint is violated
/// (max_j g_j < 0) at the current impulses, solved by Lemke (warm from the
/// current impulses when `warm`, else the cold ladder) with the others at
/// z = 0; then every dropped one is checked at the new impulses, and the
/// violated ones (max_j g_j < −`LcpParams::tolerance`) are added and the
/// group solved again, at most [`BGS_ROUNDS`] rounds. A dropped variable with
/// p = β = 0 and max_j g_j ≥ 0 satisfies its rows (its slacks read off as the
/// running maximum, σ off the tangential rates), so what is accepted is a
/// solution of the whole group's LCP. Fewer force rows between two bodies
/// means fewer internal-force (jamming) directions for Lemke's path. Whether
/// it solved, and the pivots; false leaves the group's impulses as they were
/// but for the dropped ones (zero).
fn solve_reduced(
    p: &LcpParams,
    (g, warm, rounds, cap, gen): (usize, bool, usize, usize, bool),
    ls: &mut LcpWorkspace,
    stats: &mut StepStats,
) -> (bool, usize) {
    let mut pivots = 0;
    let tol = p.tolerance;
    // What happened, for the active-set trace: rounds, LCP sizes, outcome.
    ls.peg.red_log = (0, 0, 0, RedEnd::Rounds);
    // The group's force variables: mark the likely-active ones.
    {
        let LcpWorkspace {
            sparse: sp,
            qw,
            impulse: z,
            peg: pw,
            ..
        } = ls;
        let (a, e) = (pw.bgs_gf_start[g] as usize, pw.bgs_gf_start[g + 1] as usize);
        for i in a..e {
            let f = pw.bgs_gf[i] as usize;
            let c = pw.force_rows[f] as usize;
            let gs = pgs::normal_rate(sp, qw.as_slice(), z, c);
            let keep = z[3 * c] > 0.0 || pgs::max_gap(c, gs, sp, qw.as_slice(), z, pw) < 0.0;
            pw.bgs_keep[f] = keep;
        }
    }
    for _ in 0..rounds {
        // The reduced group into isl_force / isl_cons; dropped impulses 0.
        let ns = {
            let LcpWorkspace {
                impulse: z,
                peg: pw,
                ..
            } = ls;
            pw.isl_force.clear();
            let (a, e) = (pw.bgs_gf_start[g] as usize, pw.bgs_gf_start[g + 1] as usize);
            for i in a..e {
                let f = pw.bgs_gf[i];
                if pw.bgs_keep[f as usize] {
                    pw.isl_force.push(f);
                } else {
                    let c = 3 * pw.force_rows[f as usize] as usize;
                    z[c..c + 3].fill(0.0);
                }
            }
            pw.isl_cons.clear();
            let (a, e) = (pw.bgs_gc_start[g] as usize, pw.bgs_gc_start[g + 1] as usize);
            let mut base = 0;
            for i in a..e {
                let ci = pw.bgs_gc[i];
                let con = &pw.constraints[ci as usize];
                if pw.bgs_keep[pw.force[con.primary as usize] as usize] {
                    pw.isl_cons.push(ci);
                    pw.cons_base[ci as usize] = base;
                    base += con.slacks.end - con.slacks.start;
                }
            }
            base as usize
        };
        let n_red = ls.peg.isl_force.len() * (ls.dirs.len() + 2) + ns;
        let log = &mut ls.peg.red_log;
        log.0 += 1;
        log.1 = log.1.max(n_red);
        log.2 = n_red;
        if n_red > cap {
            log.3 = RedEnd::Cap;
            return (false, pivots);
        }
        if !ls.peg.isl_force.is_empty() {
            let q_max = assemble_group(ls, ns);
            let mut ok = false;
            if warm {
                let (o, piv) = lemke_from_impulses(p, ls, stats);
                pivots += piv;
                ok = o;
            }
            if !ok {
                let (o, piv) = ladder(p, ls, stats, q_max, true);
                pivots += piv;
                ok = o;
            }
            if !ok && gen {
                // 003's general |Cι| > 1 form of the reduced LCP (`peg::general`).
                let (o, piv) = general(p, (ns, cap), ls, stats);
                pivots += piv;
                ok = o;
            }
            if !ok {
                ls.peg.red_log.3 = RedEnd::Lemke;
                return (false, pivots);
            }
        }
        // The dropped ones at the new impulses.
        let LcpWorkspace {
            sparse: sp,
            qw,
            impulse: z,
            peg: pw,
            ..
        } = ls;
        let mut added = false;
        let (a, e) = (pw.bgs_gf_start[g] as usize, pw.bgs_gf_start[g + 1] as usize);
        for i in a..e {
            let f = pw.bgs_gf[i] as usize;
            if pw.bgs_keep[f] {
                continue;
            }
            let c = pw.force_rows[f] as usize;
            let gs = pgs::normal_rate(sp, qw.as_slice(), z, c);
            if pgs::max_gap(c, gs, sp, qw.as_slice(), z, pw) < -tol {
                pw.bgs_keep[f] = true;
                added = true;
            }
        }
        if !added {
            pw.red_log.3 = RedEnd::Solved;
            return (true, pivots);
        }
    }
    (false, pivots)
}

/// Makes group `g` the island `peg::assemble` and its helpers read
/// (`isl_force`, `isl_cons`, `cons_base`); returns its slack count.
fn select(ls: &mut LcpWorkspace, g: usize) -> usize {
    let pw = &mut ls.peg;
    pw.isl_force.clear();
    pw.isl_force.extend_from_slice(
        &pw.bgs_gf[pw.bgs_gf_start[g] as usize..pw.bgs_gf_start[g + 1] as usize],
    );
    pw.isl_cons.clear();
    pw.isl_cons.extend_from_slice(
        &pw.bgs_gc[pw.bgs_gc_start[g] as usize..pw.bgs_gc_start[g + 1] as usize],
    );
    let mut base = 0;
    for &ci in &pw.isl_cons {
        let con = &pw.constraints[ci as usize];
        pw.cons_base[ci as usize] = base;
        base += con.slacks.end - con.slacks.start;
    }
    base as usize
}

/// Puts the whole island back in `isl_force`, `isl_cons`, `cons_base` (as
/// `peg::solve` set them).
pub(super) fn restore_island(ls: &mut LcpWorkspace) {
    let pw = &mut ls.peg;
    pw.isl_force.clear();
    pw.isl_force.extend_from_slice(&pw.bgs_force);
    pw.isl_cons.clear();
    pw.isl_cons.extend_from_slice(&pw.bgs_cons);
    let mut base = 0;
    for &ci in &pw.isl_cons {
        let con = &pw.constraints[ci as usize];
        pw.cons_base[ci as usize] = base;
        base += con.slacks.end - con.slacks.start;
    }
}

/// Assembles group `g`'s LCP (its `ns` slacks) with the other groups'
/// impulses in its constant (module doc, "A sweep") into `ls.problem`, scaled;
/// returns ‖q′‖∞. `ls.qw` is left as it was.
fn assemble_group(ls: &mut LcpWorkspace, ns: usize) -> f64 {
    island_w(ls);
    swap_in_constants(ls);
    assemble(ls, ns, false);
    let q_max = scale(ls);
    swap_out_constants(ls);
    q_max
}

/// The group's rows' constants at (z_G = 0, z_K) into `ls.qw` (q_G', module
/// doc "A sweep"), the ones they replace kept for [`swap_out_constants`].
fn swap_in_constants(ls: &mut LcpWorkspace) {
    {
        let LcpWorkspace {
            sparse: sp,
            qw,
            impulse: z,
            peg: pw,
            ..
        } = ls;
        // z_G = 0 (kept to put back).
        pw.bgs_zsave.clear();
        for &f in &pw.isl_force {
            let r = 3 * pw.force_rows[f as usize] as usize;
            pw.bgs_zsave.extend_from_slice(&z[r..r + 3]);
            z[r..r + 3].fill(0.0);
        }
        // Each row's rates at (z_G = 0, z_K): q_G' (then q_W kept to restore).
        pw.bgs_q.clear();
        for &r in &pw.isl_rows {
            let rt = pgs::rate(sp, qw.as_slice(), z, r as usize);
            pw.bgs_q.extend_from_slice(&rt);
        }
        for (&f, b) in pw.isl_force.iter().zip(pw.bgs_zsave.chunks_exact(3)) {
            let r = 3 * pw.force_rows[f as usize] as usize;
            z[r..r + 3].copy_from_slice(b);
        }
        pw.bgs_qsave.clear();
        for (&r, q) in pw.isl_rows.iter().zip(pw.bgs_q.chunks_exact(3)) {
            let r = 3 * r as usize;
            pw.bgs_qsave.extend_from_slice(&qw.as_slice()[r..r + 3]);
            qw.as_mut_slice()[r..r + 3].copy_from_slice(q);
        }
    }
}

/// Puts back the constants [`swap_in_constants`] replaced.
fn swap_out_constants(ls: &mut LcpWorkspace) {
    let LcpWorkspace { qw, peg: pw, .. } = ls;
    for (&r, q) in pw.isl_rows.iter().zip(pw.bgs_qsave.chunks_exact(3)) {
        let r = 3 * r as usize;
        qw.as_mut_slice()[r..r + 3].copy_from_slice(q);
    }
}

/// Block Gauss–Seidel over the two-body groups of island `s` (module doc), its
/// force variables and constraints in `ls.peg.isl_force` / `isl_cons`, from
/// the impulses in `ls.impulse` (0 for a fresh island). Writes the island's
/// impulses (the best iterate) into `ls.impulse`; leaves `isl_force`,
/// `isl_cons` and `cons_base` as they were (the island), but `ls.problem`
/// holds the last group's LCP.
pub(super) fn solve_island(
    p: &LcpParams,
    s: usize,
    ls: &mut LcpWorkspace,
    stats: &mut StepStats,
) -> BgsOutcome {
    let k = ls.dirs.len();
    let gen = ls.peg.gen_on;
    let (ng, n_max) = group(ls, k);
    let mut out = BgsOutcome {
        residual: f64::INFINITY,
        ..BgsOutcome::default()
    };
    if ng < 2 || n_max > super::PEG_MAX_LCP {
        restore_island(ls);
        return out;
    }
    out.applied = true;
    {
        let LcpWorkspace {
            sparse: sp,
            peg: pw,
            ..
        } = ls;
        let order = &sp.order[sp.island_start[s]..sp.island_start[s + 1]];
        if !pgs::prepare(order, sp, pw) {
            restore_island(ls);
            return out;
        }
    }
    let tol = p.tolerance;
    let res0 = pgs::residual(&ls.sparse, ls.qw.as_slice(), &ls.impulse, &ls.peg);
    let mut best = res0;
    let mut best_it = 0;
    save_best(&ls.impulse, &mut ls.peg, gen);
    let mut last = res0;
    // The best residual the stall test compares against and its sweep.
    let (mut mark, mut mark_it) = (res0, 0);
    if res0 <= tol {
        out.residual = res0;
        out.converged = true;
        restore_island(ls);
        return out;
    }
    let mut it = 0;
    let mut pgs_used = false;
    // The largest group Lemke failed on: its LCP size, force rows, slacks,
    // and whether one of its bodies does not move (for the trace).
    let mut fail_max = (0, 0, 0, false);
    while it < BGS_MAX_SWEEPS {
        for g in 0..ng {
            if gen {
                take_out_lambda(ls, g);
            }
            if BGS_REDUCED {
                let (ok, piv) =
                    solve_reduced(p, (g, it > 0, BGS_ROUNDS, usize::MAX, false), ls, stats);
                out.pivots += piv;
                out.reduced_solved += usize::from(ok);
                if ok {
                    continue;
                }
            }
            let ns = select(ls, g);
            let q_max = assemble_group(ls, ns);
            let mut ok = false;
            if it > 0 {
                let (o, piv) = lemke_from_impulses(p, ls, stats);
                out.pivots += piv;
                ok = o;
            }
            if !ok {
                let (o, piv) = ladder(p, ls, stats, q_max, true);
                out.pivots += piv;
                ok = o;
            }
            if !ok && gen {
                // The group in 003's general form (opt-in with the block
                // sweeps: peg12).
                let (o, piv) = general_group(p, ns, ls, stats);
                out.pivots += piv;
                ok = o;
            }
            if !ok {
                // The constraint PGS on the group's force rows from its
                // current impulses (its best iterate by the group's residual).
                out.group_failures += 1;
                let n = ls.problem.q.len();
                if n > fail_max.0 {
                    let r = ls.peg.force_rows[ls.peg.isl_force[0] as usize] as usize;
                    let fixed = ls.contacts[r].side.iter().any(|x| x.block == NO_BLOCK);
                    fail_max = (n, ls.peg.isl_force.len(), ns, fixed);
                }
                let mut rows = std::mem::take(&mut ls.peg.bgs_rows);
                rows.clear();
                rows.extend(
                    ls.peg
                        .isl_force
                        .iter()
                        .map(|&f| ls.peg.force_rows[f as usize]),
                );
                let (sw, _, _) = pgs::solve_rows(p, s, Some(&rows), BGS_GROUP_PGS_SWEEPS, ls);
                ls.peg.bgs_rows = rows;
                out.sweeps_pgs += sw;
                pgs_used = true;
            }
        }
        it += 1;
        if pgs_used {
            // The island's rows for its residual again.
            pgs_used = false;
            let LcpWorkspace {
                sparse: sp,
                peg: pw,
                ..
            } = ls;
            let order = &sp.order[sp.island_start[s]..sp.island_start[s + 1]];
            if !pgs::prepare(order, sp, pw) {
                break;
            }
        }
        last = pgs::residual(&ls.sparse, ls.qw.as_slice(), &ls.impulse, &ls.peg);
        if last.is_nan() {
            break;
        }
        if last < best {
            best = last;
            best_it = it;
            save_best(&ls.impulse, &mut ls.peg, gen);
        }
        if best <= tol {
            break;
        }
        if best < mark {
            (mark, mark_it) = (best, it);
        } else if it - mark_it >= BGS_STALL {
            break;
        }
    }
    if last.is_nan() || last > best {
        restore_best(&mut ls.impulse, &mut ls.peg, gen);
    }
    out.sweeps = it;
    out.residual = best;
    out.converged = best <= tol;
    if !out.converged && ls.peg.bgs_trace > 0 {
        ls.peg.bgs_trace -= 1;
        crate::diag::emit(crate::diag::Output::Stderr(format!(
            "rtphys: PEG block Gauss–Seidel unconverged: {} force rows in {ng} groups \
             (largest LCP {n_max}), {it} sweeps, residual start {res0:.2e}, best {best:.2e} \
             (sweep {best_it}), last {last:.2e}; group Lemke failures {}, groups solved on a reduced active set {} (constraint PGS \
             on the failed: {} sweeps; the largest failed group: LCP {}, {} force rows, {} slacks, \
             {})\n",
            ls.peg.bgs_force.len(),
            out.group_failures,
            out.reduced_solved,
            out.sweeps_pgs,
            fail_max.0,
            fail_max.1,
            fail_max.2,
            if fail_max.3 {
                "against a fixed body"
            } else {
                "two moving bodies"
            }
        )));
    }
    restore_island(ls);
    out
}

/// An island over [`super::PEG_MAX_LCP`] solved exactly on its **active set**
/// (issue 12, peg12; `[lcp] peg_active_set`, `LcpParams::peg_active_set`): the
/// island is one group of [`solve_reduced`] — its force variables that push or
/// whose constraint is violated (max_j g_j < 0) at the impulses in `ls.impulse`
/// (the constraint PGS's best iterate), with their constraints' slacks and
/// friction rows, solved by Lemke warm from those impulses
/// (`peg::lemke_from_impulses`), else by the cold ladder (`peg::ladder`); the
/// dropped ones checked at the new impulses and the violated ones added, at most
/// [`ACTIVE_ROUNDS`] rounds. A reduced LCP over `PEG_MAX_LCP` is not given to
/// Lemke (the same bound on a dense solve as an island's). What is accepted
/// passed Lemke's acceptance on the reduced LCP (residual ≤ `PEG_ACCEPT`
/// max(1, ‖q′‖∞), ‖z′‖∞ bounded) and every dropped variable (p = β = 0) has
/// max_j g_j ≥ −`LcpParams::tolerance`, so it solves the island's whole LCP (a
/// dropped variable's slacks read off as the running maximum and σ off its
/// tangential rates). Whether it solved, and the pivots; not solved, the
/// island's impulses are put back as they were (the PGS iterate). Leaves
/// `isl_force`, `isl_cons`, `cons_base` as the island's; `ls.problem` holds the
/// last reduced LCP. Buffers: the `bgs_*` ones (capacities kept).
pub(super) fn solve_island_active(
    p: &LcpParams,
    ls: &mut LcpWorkspace,
    stats: &mut StepStats,
) -> (bool, usize) {
    {
        let pw = &mut ls.peg;
        pw.bgs_force.clear();
        pw.bgs_force.extend_from_slice(&pw.isl_force);
        pw.bgs_cons.clear();
        pw.bgs_cons.extend_from_slice(&pw.isl_cons);
        pw.bgs_gf.clear();
        pw.bgs_gf.extend_from_slice(&pw.isl_force);
        pw.bgs_gf_start.clear();
        pw.bgs_gf_start.extend([0, pw.isl_force.len() as u32]);
        pw.bgs_gc.clear();
        pw.bgs_gc.extend_from_slice(&pw.isl_cons);
        pw.bgs_gc_start.clear();
        pw.bgs_gc_start.extend([0, pw.isl_cons.len() as u32]);
        pw.bgs_keep.clear();
        pw.bgs_keep.resize(pw.force_rows.len(), false);
    }
    let gen = ls.peg.gen_on;
    save_best(&ls.impulse, &mut ls.peg, gen);
    let t0 = (ls.peg.active_trace > 0).then(std::time::Instant::now);
    let cap = super::PEG_MAX_ACTIVE;
    let (ok, pivots) = solve_reduced(p, (0, true, ACTIVE_ROUNDS, cap, gen), ls, stats);
    if ls.peg.active_trace > 0 {
        ls.peg.active_trace -= 1;
        let (rounds, n_max, n_last, end) = ls.peg.red_log;
        let nf = ls.peg.bgs_force.len();
        let n = nf * (ls.dirs.len() + 2)
            + ls.peg
                .bgs_cons
                .iter()
                .map(|&c| ls.peg.constraints[c as usize].slacks.len())
                .sum::<usize>();
        crate::diag::emit(crate::diag::Output::Stderr(format!(
            "rtphys: PEG active set: island of {n} LCP variables ({nf} force rows): {end:?} after \
             {rounds} rounds, reduced LCP largest {n_max}, last {n_last}, {pivots} pivots, \
             {:.3} s\n",
            t0.map_or(0.0, |t| t.elapsed().as_secs_f64())
        )));
    }
    if !ok {
        restore_best(&mut ls.impulse, &mut ls.peg, gen);
    }
    restore_island(ls);
    (ok, pivots)
}
