//! A consistent stabilization (issue 14, option (b)): per island, the stabilization
//! term of the resting points is replaced by its least-squares fit with the gap
//! rates a rigid motion of the island's bodies can produce.
//!
//! # Why
//! q_W = G ν_f + t with t = (s_n, 0, 0) per point (`delassus`). G ν_f lies in
//! range(G) = range(W₀) (W₀ = G M⁻¹ Gᵀ, M⁻¹ positive definite on the free DoFs),
//! but t need not: 001's/003's ψ/h of the points of a face pair, or of a body on
//! two supports, is in general not the gap rate of any rigid motion (the corners'
//! depths of a box lying across two others). The part of t in null(Gᵀ) = null(W₀)
//! is answered by the CFM ε = 1e-9 alone (`REGULARIZATION`): the exact solution of
//! the regularized LCP holds internal impulses ≈ |t_⊥| / (ε W_nn), which move no
//! body but are ≈ 200× the load on the resting pile, and Newton, PGS and Lemke all
//! stall short of 1e-9 on them (docs/BENCHMARKS.md, "LCP Newton: the resting
//! pile's stall"). Removing that part changes no body's motion beyond the CFM's
//! relative 1e-9: W₀ z only sees range(W₀).
//!
//! # What
//! For the points of an island that touch (depth ≥ 0; not a speculative gap point,
//! whose gap/h is a bound, not a target, nor a joint-limit row), with G_S their
//! rows (n, t₁, t₂) restricted to the DoFs M⁻¹ moves (locked DoFs excluded):
//!
//! ```text
//! u* = argmin_u ‖G_S u − t_S‖₂,   t_S ← G_S u*   (normal and tangent rows)
//! ```
//!
//! i.e. t_S is replaced by its orthogonal projection onto range(G_S), and the
//! discarded residual lies in null(G_Sᵀ). The tangent rows' target is 0: the fit
//! looks for a motion that moves the contact points along their normals without
//! slip; a face's tilt is such a motion (a rotation about an axis in the contact
//! plane), so a problem whose t is the gap rate of a rigid motion of that kind
//! (a deep box pushed out, a tilted landing) is returned unchanged to round-off.
//! The kept velocity's target (s_v = max(s_n, r), module doc of `lcp`,
//! "Stabilization") is projected the same way (second right-hand side).
//!
//! # Robots
//! An island with a robot block keeps its t: on the two-wheel rover (several
//! points per wheel line contact, the wheels' spin among the DoFs) the fit's
//! tangent components were not 0 and the rover crept (`lcp_robots::
//! rover_rests_where_it_rests_under_penalty`: 1.7e-4 m in its last step of a 2 s
//! settle). Open.
//!
//! Solved in body space by the normal equations (G_Sᵀ G_S) u = G_Sᵀ t_S: 6 unknowns
//! per free body (nv per robot), a Cholesky factorization that drops a pivot below
//! [`DROP`] relative to the largest diagonal (a DoF no point of S constrains
//! independently), so that u is a least-squares solution on the remaining
//! columns and G_S u the projection. Islands with more than [`MAX_DOFS`] DoFs
//! keep their t; `project` returns their number.
//!
//! G_Sᵀ G_S is block-sparse: 6×6 blocks per pair of bodies some point of S joins
//! (a chain on a stack). Only the lower blocks of the factor's pattern are
//! assembled and factored (`block_pattern`: those blocks plus the fill of the
//! elimination in the island's local order), in the dense dot-product
//! factorization's order with the structural zeros' terms skipped, so L and u
//! are bit for bit those of the dense factorization (issue 14, lcp9). A step
//! projects once (the kept solve reuses the projected targets), so there is no
//! factor to reuse across solves.

use super::{ContactRow, DofKind, LcpWorkspace, NO_BLOCK};

/// Largest island (DoFs) projected: 40 free bodies (the 20-pile's largest island
/// has ≤ 120).
pub(super) const MAX_DOFS: usize = 240;

/// A Cholesky pivot of G_Sᵀ G_S below `DROP · max diag` drops its DoF (u = 0
/// there): rows of unit normals and lever arms ≥ 1 mm give pivots ≥ 1e-6 of the
/// largest, round-off on dependent columns ≈ 1e-16 × condition.
const DROP: f64 = 1e-11;

/// DoFs per block (a free body; robots are not projected).
const B: usize = 6;

/// Buffers of the projection (capacities kept).
#[derive(Clone, Debug, Default)]
pub struct ConsistentWorkspace {
    /// Per contact point of the step: its island's stabilization was fitted
    /// (its targets are the gap rates of a rigid motion; Lemke's proximal step
    /// is taken on these points only, `solve::proximal_shift`).
    pub(super) projected: Vec<bool>,
    /// Per DoF block: its first local DoF in the island being fitted, or NO_BLOCK.
    local: Vec<u32>,
    /// Blocks of the island being fitted.
    island_blocks: Vec<u32>,
    /// Per DoF of every block (block b's from `moves_start[b]`): whether M⁻¹
    /// moves it (diagonal > 0).
    moves: Vec<bool>,
    moves_start: Vec<usize>,
    /// Per block: every DoF moves (the assembly's rank-one updates then run
    /// without the per-entry test; same sums in the same order).
    all_move: Vec<bool>,
    /// G_Sᵀ G_S (n × n, row-major), overwritten by its Cholesky factor.
    a: Vec<f64>,
    /// The two right-hand sides G_Sᵀ t (move, keep), then u.
    b: Vec<[f64; 2]>,
    /// Dropped pivots.
    dropped: Vec<bool>,
    /// The block pattern of L (`nbk × nbk` row-major, lower; `nbk` the island's
    /// blocks in local order): the blocks a point couples and the elimination's
    /// fill (`block_pattern`).
    pat: Vec<bool>,
    /// Per block row I, its pattern's blocks J ≤ I ascending
    /// (`row_list[row_start[I]..row_start[I + 1]]`, the last one I).
    row_start: Vec<usize>,
    row_list: Vec<u32>,
    /// Per block column K, its pattern's blocks I > K ascending.
    col_start: Vec<usize>,
    col_list: Vec<u32>,
}

impl ConsistentWorkspace {
    /// `dofs` the largest island projected, `nb` the bodies, `nv` every block's
    /// DoFs together: the per-block lists are full from the first step (an island
    /// larger than any before must not grow them mid-run).
    pub(super) fn with_capacity(dofs: usize, nb: usize, nv: usize) -> Self {
        let nbk = dofs.div_ceil(B);
        ConsistentWorkspace {
            projected: Vec::new(),
            local: Vec::with_capacity(nb),
            island_blocks: Vec::with_capacity(nb),
            moves: Vec::with_capacity(nv),
            moves_start: Vec::with_capacity(nb),
            all_move: Vec::with_capacity(nb),
            a: Vec::with_capacity(dofs * dofs),
            b: Vec::with_capacity(dofs),
            dropped: Vec::with_capacity(dofs),
            pat: Vec::with_capacity(nbk * nbk),
            row_start: Vec::with_capacity(nbk + 1),
            row_list: Vec::with_capacity(nbk * (nbk + 1) / 2),
            col_start: Vec::with_capacity(nbk + 1),
            col_list: Vec::with_capacity(nbk * (nbk + 1) / 2),
        }
    }
}

/// Projects the stabilization targets (`ls.stab`: s_n and s_v per point) of every
/// island onto range(G_S) (module doc), correcting q_W (`ls.qw`, `ls.sparse.q`)
/// and the kept rows (`ls.q_keep`). Returns the islands left unprojected (too
/// large).
pub(super) fn project(ls: &mut LcpWorkspace) -> usize {
    let nb = ls.blocks.len();
    let mut skipped = 0;
    {
        let cw = &mut ls.consistent;
        cw.local.clear();
        cw.local.resize(nb, NO_BLOCK);
        cw.moves.clear();
        cw.moves_start.clear();
        cw.all_move.clear();
        for blk in &ls.blocks {
            cw.moves_start.push(cw.moves.len());
            let mut all = true;
            for i in 0..blk.ndof {
                // A robot no row acts on has no M⁻¹ (`articulated.rs`).
                let d = ls.minv.get(blk.minv + i * blk.ndof + i);
                let m = d.is_some_and(|&x| x > 0.0);
                all &= m;
                cw.moves.push(m);
            }
            cw.all_move.push(all);
        }
    }
    ls.consistent.projected.clear();
    ls.consistent.projected.resize(ls.contacts.len(), false);
    let islands = ls.sparse.island_start.len().saturating_sub(1);
    for s in 0..islands {
        let (i0, i1) = (ls.sparse.island_start[s], ls.sparse.island_start[s + 1]);
        if !project_island(ls, i0, i1) {
            skipped += 1;
        }
    }
    skipped
}

/// One island (points `sparse.order[i0..i1]`); false if it was too large.
fn project_island(ls: &mut LcpWorkspace, i0: usize, i1: usize) -> bool {
    let LcpWorkspace {
        blocks,
        contacts,
        jac,
        qw,
        q_keep,
        stab,
        sparse,
        consistent: cw,
        ..
    } = ls;
    // Local DoF numbering of the island's blocks (those of its fitted points).
    cw.island_blocks.clear();
    let mut n = 0usize;
    let mut any = false;
    let mut robot = false;
    for &c in &sparse.order[i0..i1] {
        let row = &contacts[c as usize];
        if row.limit || row.depth < 0.0 {
            continue;
        }
        any = true;
        for sd in row.side.iter().filter(|s| s.block != NO_BLOCK) {
            let b = sd.block as usize;
            // (A free body's block has B = 6 DoFs.)
            robot |= matches!(blocks[b].kind, DofKind::Articulated { .. }) || blocks[b].ndof != B;
            if cw.local[b] == NO_BLOCK {
                cw.local[b] = n as u32;
                cw.island_blocks.push(b as u32);
                n += blocks[b].ndof;
            }
        }
    }
    let reset = |cw: &mut ConsistentWorkspace| {
        for &b in &cw.island_blocks {
            cw.local[b as usize] = NO_BLOCK;
        }
    };
    if !any {
        return true;
    }
    if robot {
        // Not applied to robots yet (module doc, "Robots").
        reset(cw);
        return true;
    }
    if n > MAX_DOFS {
        reset(cw);
        return false;
    }
    for &c in &sparse.order[i0..i1] {
        cw.projected[c as usize] = !contacts[c as usize].limit;
    }
    let nbk = cw.island_blocks.len();
    block_pattern(cw, contacts, &sparse.order[i0..i1], nbk);
    // A is n × n row-major, but only the lower blocks of the factor's pattern are
    // written and read (stale values elsewhere are never read).
    if cw.a.len() < n * n {
        cw.a.resize(n * n, 0.0);
    }
    cw.b.clear();
    cw.b.resize(n, [0.0; 2]);
    cw.dropped.clear();
    cw.dropped.resize(n, false);
    {
        // The buffers as local slices (lcp27): their pointers and lengths stay in
        // registers instead of being re-read from the workspace after every store
        // into A or b. The arithmetic below is unchanged, term for term.
        let ConsistentWorkspace {
            local,
            moves,
            moves_start,
            all_move,
            a,
            b,
            dropped,
            pat,
            row_start,
            row_list,
            col_start,
            col_list,
            ..
        } = &mut *cw;
        let (local, moves, moves_start, all_move) =
            (&local[..], &moves[..], &moves_start[..], &all_move[..]);
        let (pat, row_start, row_list, col_start, col_list) = (
            &pat[..],
            &row_start[..],
            &row_list[..],
            &col_start[..],
            &col_list[..],
        );
        let a = &mut a[..n * n];
        let b = &mut b[..n];
        let dropped = &mut dropped[..n];
        let jac = &jac[..];
        let order = &sparse.order[i0..i1];
        for ib in 0..nbk {
            for &jb in &row_list[row_start[ib]..row_start[ib + 1]] {
                let jb = jb as usize;
                for i in ib * B..ib * B + B {
                    a[i * n + jb * B..i * n + jb * B + B].fill(0.0);
                }
            }
        }
        // A = G_Sᵀ G_S (lower triangle: the factorization reads no other entry), b =
        // G_Sᵀ t_S (t = (s, 0, 0) per point): rank-one updates per row, each entry's
        // terms in the order of the dense assembly (point, row, side, side).
        for &c in order {
            let c = c as usize;
            let row = &contacts[c];
            if row.limit || row.depth < 0.0 {
                continue;
            }
            let st = stab[c];
            // Distinct bodies whose DoFs all move (every point of the shipped scenes):
            // each entry of A takes its three rows' terms r = 0, 1, 2 from one pair of
            // sides, the dense loop's order, so the pairs can take the rows fused
            // (fixed-length rows of B, unrolled).
            let [s0, s1] = row.side;
            let fused = s0.block != s1.block
                && row
                    .side
                    .iter()
                    .all(|s| s.block == NO_BLOCK || all_move[s.block as usize]);
            if fused {
                for sa in row.side.iter().filter(|s| s.block != NO_BLOCK) {
                    let oa = local[sa.block as usize] as usize;
                    let ja: &[f64; 3 * B] = match jac[sa.jac..sa.jac + 3 * B].try_into() {
                        Ok(j) => j,
                        Err(_) => continue,
                    };
                    let ba: &mut [[f64; 2]; B] = match (&mut b[oa..oa + B]).try_into() {
                        Ok(x) => x,
                        Err(_) => continue,
                    };
                    for (bi, &l) in ba.iter_mut().zip(&ja[..B]) {
                        bi[0] += l * st[0];
                        bi[1] += l * st[1];
                    }
                    for sb in row.side.iter().filter(|s| s.block != NO_BLOCK) {
                        let ob = local[sb.block as usize] as usize;
                        if ob > oa {
                            // Upper block: never read.
                            continue;
                        }
                        let jb: &[f64; 3 * B] = match jac[sb.jac..sb.jac + 3 * B].try_into() {
                            Ok(j) => j,
                            Err(_) => continue,
                        };
                        for i in 0..B {
                            let (l0, l1, l2) = (ja[i], ja[B + i], ja[2 * B + i]);
                            let arow: &mut [f64] = &mut a[(oa + i) * n + ob..(oa + i) * n + ob + B];
                            let arow: &mut [f64; B] = match arow.try_into() {
                                Ok(a) => a,
                                Err(_) => continue,
                            };
                            // A diagonal block's entries j ≤ i only; a block below
                            // the diagonal takes its B entries in one fixed-length
                            // loop (lcp26: the same three terms per entry in the
                            // same order, without the bound test per entry).
                            let add = |j: usize, x: &mut f64| {
                                let mut v = *x;
                                v += l0 * jb[j];
                                v += l1 * jb[B + j];
                                v += l2 * jb[2 * B + j];
                                *x = v;
                            };
                            if ob == oa {
                                for (j, x) in arow.iter_mut().enumerate().take(i + 1) {
                                    add(j, x);
                                }
                            } else {
                                for (j, x) in arow.iter_mut().enumerate() {
                                    add(j, x);
                                }
                            }
                        }
                    }
                }
                continue;
            }
            for r in 0..3 {
                for sa in row.side.iter().filter(|s| s.block != NO_BLOCK) {
                    let ba = sa.block as usize;
                    let (oa, na, ma) = (local[ba] as usize, blocks[ba].ndof, moves_start[ba]);
                    let ja = &jac[sa.jac + r * na..sa.jac + (r + 1) * na];
                    if r == 0 {
                        for i in (0..na).filter(|&i| moves[ma + i]) {
                            b[oa + i][0] += ja[i] * st[0];
                            b[oa + i][1] += ja[i] * st[1];
                        }
                    }
                    for sb in row.side.iter().filter(|s| s.block != NO_BLOCK) {
                        let bb = sb.block as usize;
                        let (ob, nbd, mb) = (local[bb] as usize, blocks[bb].ndof, moves_start[bb]);
                        if ob > oa {
                            // Upper block: never read.
                            continue;
                        }
                        let jb = &jac[sb.jac + r * nbd..sb.jac + (r + 1) * nbd];
                        let all_b = all_move[bb];
                        for i in (0..na).filter(|&i| moves[ma + i]) {
                            // A diagonal block's entries j ≤ i only.
                            let w = if ob == oa { i + 1 } else { nbd };
                            let arow = &mut a[(oa + i) * n + ob..(oa + i) * n + ob + w];
                            let l = ja[i];
                            if all_b {
                                for (x, &y) in arow.iter_mut().zip(jb) {
                                    *x += l * y;
                                }
                            } else {
                                for (j, x) in arow.iter_mut().enumerate() {
                                    if moves[mb + j] {
                                        *x += l * jb[j];
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // Cholesky A = L Lᵀ (lower, in place, dot-product form), dropping pivots below
        // DROP · max diag; the sums run over the blocks of L's pattern only, in the
        // dense order (ascending j): the terms skipped are exact zeros, so L and u are
        // those of the dense factorization bit for bit.
        let dmax = (0..n).map(|i| a[i * n + i]).fold(0.0f64, f64::max);
        for k in 0..n {
            let (kb, k0) = (k / B, k / B * B);
            // Row k's blocks left of the diagonal block (its list ends with kb).
            let rk = &row_list[row_start[kb]..row_start[kb + 1] - 1];
            let ck = &col_list[col_start[kb]..col_start[kb + 1]];
            let d = pattern_update(a, n, k, k, rk.iter().map(|&jb| jb as usize));
            if d.is_nan() || d <= DROP * dmax {
                dropped[k] = true;
                for i in k..k0 + B {
                    a[i * n + k] = 0.0;
                }
                for &ib in ck {
                    for i in ib as usize * B..ib as usize * B + B {
                        a[i * n + k] = 0.0;
                    }
                }
                continue;
            }
            let l = d.sqrt();
            a[k * n + k] = l;
            // Rows of the diagonal block below k: every block of row k is in theirs.
            for i in k + 1..k0 + B {
                let x = pattern_update(a, n, i, k, rk.iter().map(|&jb| jb as usize));
                a[i * n + k] = x / l;
            }
            // Rows of the blocks below: the blocks common to both rows.
            for &ib in ck {
                let ib = ib as usize;
                let prow = &pat[ib * nbk..ib * nbk + nbk];
                for i in ib * B..ib * B + B {
                    let common = rk.iter().map(|&jb| jb as usize).filter(|&jb| prow[jb]);
                    let x = pattern_update(a, n, i, k, common);
                    a[i * n + k] = x / l;
                }
            }
        }
        // L y = b, Lᵀ u = y (dropped DoFs: u = 0), over L's pattern in the dense order.
        for k in 0..n {
            if dropped[k] {
                b[k] = [0.0; 2];
                continue;
            }
            let (kb, k0) = (k / B, k / B * B);
            let mut y = b[k];
            let rk = &row_list[row_start[kb]..row_start[kb + 1] - 1];
            // Row k's blocks left of its diagonal block, then the diagonal block's
            // columns k0..k (plain loops, lcp26: were one chained iterator; the
            // same terms in the same order).
            let row = &a[k * n..k * n + k];
            for &jb in rk {
                let j0 = jb as usize * B;
                sub_rows(&mut y, &row[j0..j0 + B], &b[j0..j0 + B]);
            }
            sub_rows(&mut y, &row[k0..k], &b[k0..k]);
            let d = a[k * n + k];
            b[k] = [y[0] / d, y[1] / d];
        }
        for k in (0..n).rev() {
            if dropped[k] {
                continue;
            }
            let (kb, k0) = (k / B, k / B * B);
            let mut x = b[k];
            let ck = &col_list[col_start[kb]..col_start[kb + 1]];
            // Column k below the diagonal: the diagonal block's rows k+1..k0+B,
            // then the blocks below (plain loops, lcp26; the same order).
            for i in k + 1..k0 + B {
                let l = a[i * n + k];
                x[0] -= l * b[i][0];
                x[1] -= l * b[i][1];
            }
            for &ib in ck {
                for i in ib as usize * B..ib as usize * B + B {
                    let l = a[i * n + k];
                    x[0] -= l * b[i][0];
                    x[1] -= l * b[i][1];
                }
            }
            let d = a[k * n + k];
            b[k] = [x[0] / d, x[1] / d];
        }
        // t_S ← G_S u: q_W and the kept rows get G_S u − t_S.
        let b = &*b;
        for &c in order {
            let c = c as usize;
            let row = &contacts[c];
            if row.limit || row.depth < 0.0 {
                continue;
            }
            let mut g = [[0.0f64; 2]; 3];
            // A free body's side (every DoF moves): its three rows against u over
            // fixed-length rows of B (lcp27). Each g[r] takes side 0's terms,
            // then side 1's, in ascending DoF order, as in the loop below.
            let fixed = |s: &super::Side| {
                let bl = s.block as usize;
                if !all_move[bl] || blocks[bl].ndof != B {
                    return None;
                }
                let o = local[bl] as usize;
                let ja = <&[f64; 3 * B]>::try_from(jac.get(s.jac..s.jac + 3 * B)?).ok()?;
                let u = <&[[f64; 2]; B]>::try_from(b.get(o..o + B)?).ok()?;
                Some((ja, u))
            };
            let sides = row.side.map(|s| (s.block != NO_BLOCK).then(|| fixed(&s)));
            if !sides.iter().any(|s| matches!(s, Some(None))) {
                for (ja, u) in sides.iter().flatten().flatten() {
                    for (gr, jr) in g.iter_mut().zip(ja.chunks_exact(B)) {
                        for (l, y) in jr.iter().zip(u.iter()) {
                            gr[0] += l * y[0];
                            gr[1] += l * y[1];
                        }
                    }
                }
            } else {
                for (r, gr) in g.iter_mut().enumerate() {
                    for sa in row.side.iter().filter(|s| s.block != NO_BLOCK) {
                        let ba = sa.block as usize;
                        let (oa, na, ma) = (local[ba] as usize, blocks[ba].ndof, moves_start[ba]);
                        let ja = &jac[sa.jac + r * na..sa.jac + (r + 1) * na];
                        if all_move[ba] {
                            // Every DoF moves (lcp26): no per-entry test; the
                            // same terms in the same order.
                            add_rows(gr, ja, &b[oa..oa + na]);
                            continue;
                        }
                        for i in (0..na).filter(|&i| moves[ma + i]) {
                            gr[0] += ja[i] * b[oa + i][0];
                            gr[1] += ja[i] * b[oa + i][1];
                        }
                    }
                }
            }
            let t = stab[c];
            qw[3 * c] += g[0][0] - t[0];
            qw[3 * c + 1] += g[1][0];
            qw[3 * c + 2] += g[2][0];
            q_keep[c][0] += g[0][1] - t[1];
            q_keep[c][1] += g[1][1];
            q_keep[c][2] += g[2][1];
            for a in 0..3 {
                sparse.q[3 * c + a] = qw[3 * c + a];
            }
        }
    }
    reset(cw);
    true
}

/// Entry (i, k) of the dot-product Cholesky before its division by the pivot:
/// a_ik − Σ_j l_ij l_kj, summed over row k's blocks `blocks` left of its diagonal
/// block (those of L's pattern that row i shares), then over the diagonal block's
/// columns k0..k — the dense order, so the sums are the dense factorization's bit
/// for bit. i = k gives the pivot's square.
#[inline]
fn pattern_update(
    a: &[f64],
    n: usize,
    i: usize,
    k: usize,
    blocks: impl Iterator<Item = usize>,
) -> f64 {
    let k0 = k / B * B;
    let mut x = a[i * n + k];
    for jb in blocks {
        let j0 = jb * B;
        x = sub_dot_b(
            x,
            &a[i * n + j0..i * n + j0 + B],
            &a[k * n + j0..k * n + j0 + B],
        );
    }
    sub_dot(x, &a[i * n + k0..i * n + k], &a[k * n + k0..k * n + k])
}

/// `x − Σ u_j v_j`, the terms subtracted one by one in ascending j (the dense
/// factorization's order).
#[inline(always)]
fn sub_dot(mut x: f64, u: &[f64], v: &[f64]) -> f64 {
    for (a, b) in u.iter().zip(v) {
        x -= a * b;
    }
    x
}

/// `acc − Σ_j l_j y_j` for the two right-hand sides, the terms subtracted one
/// by one in ascending j.
#[inline(always)]
fn sub_rows(acc: &mut [f64; 2], l: &[f64], y: &[[f64; 2]]) {
    for (a, b) in l.iter().zip(y) {
        acc[0] -= a * b[0];
        acc[1] -= a * b[1];
    }
}

/// `acc + Σ_j l_j y_j` for the two right-hand sides, in ascending j.
#[inline(always)]
fn add_rows(acc: &mut [f64; 2], l: &[f64], y: &[[f64; 2]]) {
    for (a, b) in l.iter().zip(y) {
        acc[0] += a * b[0];
        acc[1] += a * b[1];
    }
}

/// [`sub_dot`] over one block's B entries (unrolled).
#[inline(always)]
fn sub_dot_b(mut x: f64, u: &[f64], v: &[f64]) -> f64 {
    match (<&[f64; B]>::try_from(u), <&[f64; B]>::try_from(v)) {
        (Ok(u), Ok(v)) => {
            for (a, b) in u.iter().zip(v.iter()) {
                x -= a * b;
            }
            x
        }
        _ => sub_dot(x, u, v),
    }
}

/// The block pattern of the Cholesky factor of G_Sᵀ G_S for the island's `nbk`
/// blocks in local order (`cw.local` / B): block (I, J) is structurally nonzero
/// where a fitted point acts on both bodies, and by fill where an earlier block K
/// has both (I, K) and (J, K) (symbolic elimination in the local order, the
/// dense factorization's order). Every entry of L outside it is an exact zero of
/// the dense factorization. Then the row and column lists.
fn block_pattern(cw: &mut ConsistentWorkspace, contacts: &[ContactRow], order: &[u32], nbk: usize) {
    cw.pat.clear();
    cw.pat.resize(nbk * nbk, false);
    for k in 0..nbk {
        cw.pat[k * nbk + k] = true;
    }
    for &c in order {
        let row = &contacts[c as usize];
        if row.limit || row.depth < 0.0 {
            continue;
        }
        let [sa, sb] = row.side;
        if sa.block != NO_BLOCK && sb.block != NO_BLOCK {
            let ia = cw.local[sa.block as usize] as usize / B;
            let ib = cw.local[sb.block as usize] as usize / B;
            cw.pat[ia.max(ib) * nbk + ia.min(ib)] = true;
        }
    }
    for k in 0..nbk {
        for i in k + 1..nbk {
            if !cw.pat[i * nbk + k] {
                continue;
            }
            for j in k + 1..i {
                if cw.pat[j * nbk + k] {
                    cw.pat[i * nbk + j] = true;
                }
            }
        }
    }
    cw.row_start.clear();
    cw.row_list.clear();
    cw.col_start.clear();
    cw.col_list.clear();
    for i in 0..nbk {
        cw.row_start.push(cw.row_list.len());
        cw.row_list
            .extend((0..=i).filter(|&j| cw.pat[i * nbk + j]).map(|j| j as u32));
        cw.col_start.push(cw.col_list.len());
        cw.col_list.extend(
            (i + 1..nbk)
                .filter(|&r| cw.pat[r * nbk + i])
                .map(|r| r as u32),
        );
    }
    cw.row_start.push(cw.row_list.len());
    cw.col_start.push(cw.col_list.len());
}
