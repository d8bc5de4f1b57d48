//! The Delassus matrix W = G M⁻¹ Gᵀ, block-sparse (3×3 blocks of points sharing a
//! moving body), with q_W = G ν_f + s (the stabilization / restitution term of the
//! normal rows; the kept velocity's normal q = G_n ν_f + s_v in
//! `LcpWorkspace::q_keep`), and the dense forms Lemke takes: W itself and the Stewart–Trinkle
//! LCP over (p_n, β, σ).
//!
//! # Diagonal-only rows (lcp26)
//! The primal solver (`solver::primal`) reads of W only each point's
//! diagonal block on the islands it solves in body space (its CFM and
//! proximal weights; its residual is formed from the rows,
//! `PrimalParams::residual_from_rows`). Under it, the points of such an
//! island (`solve::body_space`) get their diagonal block alone
//! (`LcpWorkspace::w_diagonal`), summed as the full row sums it — the same
//! products in the same order, so its bits are the full W's (the residual's
//! are not: another sum; no trajectory measured moved, docs/BENCHMARKS.md,
//! lcp26). `solve::complete_diagonal` builds the rows whole when a reader of
//! W needs them (the Newton path for an island the primal solver left, the
//! dumps). The 5-stack: `w_row` 96.3k → 15.2k instructions per step (20
//! points, 272 block sums into 208 blocks before).
//!
//! # Columns read (peg35)
//! With `LcpWorkspace::w_cols` set (PEG: its force-carrying rows,
//! `peg::read_columns`), a row takes only the columns of those points and its
//! own diagonal block: the blocks it keeps are the same sums in the same
//! order, so the same bits; [`w_block`] gives a left-out block (PEG's general
//! form reads them).

use super::islands::block_contacts;
use super::rows::{LinkRows, NO_LINK};
use super::{LcpWorkspace, NO_BLOCK, REGULARIZATION};
use crate::math::Vec3;
use crate::model::{FrictionModel, LcpParams, StabilizationScheme};
use crate::solver::primal::{tree_lt_solve, DOF_MAX, NO_PARENT};
use crate::solver::{reshape_zeroed, resize_zeroed, PatchOf, PolygonTable};

/// W = G M⁻¹ Gᵀ over the rows (n, t₁, t₂) of every point, block-sparse
/// (`ls.sparse`: only points sharing a moving body couple), and q_W = G ν_f + s;
/// the points' islands (connected through moving bodies) in `ls.sparse.order`.
/// `diagonal`: the rows of the body-space islands hold their diagonal block
/// alone (module doc, "Diagonal-only rows").
pub(super) fn delassus(p: &LcpParams, h: f64, diagonal: bool, ls: &mut LcpWorkspace) {
    let nc = ls.contacts.len();
    resize_zeroed(&mut ls.qw, 3 * nc);
    block_contacts(ls);
    ls.w_diagonal.clear();
    ls.w_diagonal.resize(nc, false);
    if diagonal {
        let sp = &ls.sparse;
        for s in 0..sp.island_start.len().saturating_sub(1) {
            let order = &sp.order[sp.island_start[s]..sp.island_start[s + 1]];
            if super::solve::body_space(&ls.blocks, &ls.contacts, order) {
                for &i in order {
                    ls.w_diagonal[i as usize] = true;
                }
            }
        }
    }
    {
        let sp = &mut ls.sparse;
        sp.row_start.clear();
        sp.col.clear();
        sp.w.clear();
        sp.q.clear();
        sp.mu.clear();
        sp.patch.clear();
        // The k-gon's trigonometry is a function of k alone, and only here is
        // it written (lcp35: was two `sin_cos` per step, recomputed).
        if sp.table.k != p.friction_directions {
            sp.table = PolygonTable::new(p.friction_directions);
        }
    }
    for ci in 0..nc {
        let row0 = ls.sparse.col.len();
        ls.sparse.row_start.push(row0);
        w_row(ls, ci, row0);
    }
    let LcpWorkspace {
        blocks,
        nu,
        nu_f,
        contacts,
        jac,
        qw,
        sparse: sp,
        q_keep,
        stab,
        patch_rows,
        patch_on,
        ..
    } = ls;
    q_keep.clear();
    stab.clear();
    for ci in 0..nc {
        let c = &contacts[ci];
        // q_W = G ν_f; the normal row's stabilization / restitution term s_n.
        let (mut vn0, mut q3) = (0.0, [0.0; 3]);
        for s in c.side.iter().filter(|s| s.block != NO_BLOCK) {
            let blk = blocks[s.block as usize];
            let nd = blk.ndof;
            let six = (
                <&[f64; 18]>::try_from(jac.get(s.jac..s.jac + 18).unwrap_or(&[])),
                <&[f64; 6]>::try_from(nu_f.get(blk.offset..blk.offset + 6).unwrap_or(&[])),
                <&[f64; 6]>::try_from(nu.get(blk.offset..blk.offset + 6).unwrap_or(&[])),
            );
            if let (6, Ok(j), Ok(vf), Ok(v)) = (nd, six.0, six.1, six.2) {
                // A free body (lcp26): the same sums over fixed-length rows.
                for (a, qa) in q3.iter_mut().enumerate() {
                    let ja: &[f64; 6] = j[6 * a..6 * a + 6].try_into().unwrap_or(&[0.0; 6]);
                    *qa += ja.iter().zip(vf).map(|(x, y)| x * y).sum::<f64>();
                }
                let j0: &[f64; 6] = j[..6].try_into().unwrap_or(&[0.0; 6]);
                vn0 += j0.iter().zip(v).map(|(x, y)| x * y).sum::<f64>();
                continue;
            }
            for (a, qa) in q3.iter_mut().enumerate() {
                let ja = &jac[s.jac + a * nd..s.jac + (a + 1) * nd];
                *qa += ja
                    .iter()
                    .zip(&nu_f[blk.offset..blk.offset + nd])
                    .map(|(x, y)| x * y)
                    .sum::<f64>();
            }
            vn0 += jac[s.jac..s.jac + nd]
                .iter()
                .zip(&nu[blk.offset..blk.offset + nd])
                .map(|(x, y)| x * y)
                .sum::<f64>();
        }
        let s_n = if c.limit {
            // Joint limit (module doc, "Robots"): ψ = gap − δ (the joint rests δ
            // inside its range); an open gap may close within one step (ψ/h), a
            // violation is undone at the rate β ψ/h of either scheme.
            let psi = -c.depth - p.penetration_allowance;
            if psi >= 0.0 {
                psi / h
            } else {
                p.stabilization * psi / h
            }
        } else {
            // A gap point (depth < 0: a speculative contact, ψ = −depth ≥ 0 the
            // gap) may close its gap within the step: ψ/h in full, whatever β and
            // the scheme, on top of the term at depth 0 (continuous there). A
            // penetrating point: 003 eq. (7) (β (ψ + δ)/h) or 001's form.
            let gap = (-c.depth).max(0.0);
            let psi = -c.depth.max(0.0) + p.penetration_allowance;
            let mut s_n = gap / h
                + match p.scheme {
                    StabilizationScheme::StewartTrinkle => p.stabilization * psi / h,
                    StabilizationScheme::AnitescuHart => p.stabilization * psi.min(0.0) / h,
                };
            // Newton restitution acts at the impact: for a gap point only when the
            // free motion closes the gap within this step (ψ + h G_n ν_f < 0);
            // before that the gap point only keeps the bodies from passing.
            let impact = gap <= 0.0 || gap + h * q3[0] < 0.0;
            if p.restitution && c.restitution > 0.0 && vn0 < -p.restitution_threshold && impact {
                s_n = s_n.min(c.restitution * vn0);
            }
            s_n
        };
        // The kept velocity's row (module doc of `lcp`, "Stabilization"):
        // s_v = max(s_n, r), r = min(0, e G_n ν) where restitution applies, else 0:
        // the push-out of a penetration (s_n < r) removed, a gap's closing term
        // and the restitution's rebound kept.
        let rest =
            if p.restitution && c.restitution > 0.0 && !c.limit && vn0 < -p.restitution_threshold {
                (c.restitution * vn0).min(0.0)
            } else {
                0.0
            };
        q_keep.push([q3[0] + s_n.max(rest), q3[1], q3[2]]);
        stab.push([s_n, s_n.max(rest)]);
        qw[3 * ci] = q3[0] + s_n;
        qw[3 * ci + 1] = q3[1];
        qw[3 * ci + 2] = q3[2];
        sp.mu.push(c.mu);
    }
    sp.row_start.push(sp.col.len());
    sp.q.extend_from_slice(qw.as_slice());
    if p.friction == FrictionModel::Patch && *patch_on {
        // The face patches of the standard rows (rows.rs, `patch_of`); the
        // rows pushed after them (joint limits) are their own cones.
        sp.patch.extend((0..nc).map(|ci| {
            patch_rows.get(ci).copied().unwrap_or(PatchOf {
                first: ci as u32,
                len: 1,
                share: 1.0,
            })
        }));
    }
}

/// Point `ci`'s row of W's blocks from `row0` in `ls.sparse` (its columns
/// pushed when first met):
/// `W_ij = Σ over shared bodies of J_i M⁻¹ J_jᵀ`, the regularization on its
/// diagonal, a joint limit's placeholders. A lean block's sides
/// (`articulated.rs`, "Lean blocks") add only to the point's own diagonal
/// block, through the factor `M = Lᵀ L`: `(L⁻ᵀ J_aᵀ)ᵀ (L⁻ᵀ J_bᵀ)`, and no
/// column: a row whose moving sides are all lean holds its diagonal block
/// alone (lcp21; [`rebuild_w`] builds the rest when an island leaves the
/// DoF solve).
fn w_row(ls: &mut LcpWorkspace, ci: usize, row0: usize) {
    let LcpWorkspace {
        blocks,
        contacts,
        jac,
        minv_jt,
        sparse: sp,
        blk_start,
        blk_list,
        lean,
        mfac,
        mpar,
        ly,
        links,
        link_jac,
        link_of,
        w_diagonal,
        split_sigma,
        split_extra,
        w_cols,
        ..
    } = ls;
    let c = &contacts[ci];
    // Columns read (module doc): the row's own and the taken ones.
    let taken = |cj: u32| cj as usize == ci || w_cols.get(cj as usize).copied().unwrap_or(true);
    let is_lean = |b: u32| lean.get(b as usize).copied().unwrap_or(false);
    // Diagonal-only (module doc): of each side's points, the point itself.
    let diagonal = w_diagonal.get(ci).copied().unwrap_or(false);
    let own_point = [ci as u32];
    // Blocks W_ij = Σ over shared bodies of J_i M⁻¹ J_jᵀ (j in column order of
    // the body's point list; a second shared body adds into the same block).
    // A lean side adds no off-diagonal block and no column (lcp21): its
    // points' pattern is built by `complete_lean` only when an island leaves
    // the DoF solve.
    for sa in c
        .side
        .iter()
        .filter(|s| s.block != NO_BLOCK && !is_lean(s.block))
    {
        let bl = sa.block as usize;
        let nd = blocks[bl].ndof;
        let points = if diagonal {
            &own_point[..]
        } else {
            &blk_list[blk_start[bl]..blk_start[bl + 1]]
        };
        for &cj in points {
            if !taken(cj) {
                continue;
            }
            let d = &contacts[cj as usize];
            for sb in d.side.iter().filter(|s| s.block == sa.block) {
                let k = match sp.col[row0..].iter().position(|&x| x == cj) {
                    Some(k) => row0 + k,
                    None => {
                        sp.col.push(cj);
                        sp.w.push([0.0; 9]);
                        sp.col.len() - 1
                    }
                };
                let blk = &mut sp.w[k];
                let (ja, mb) = (
                    &jac[sa.jac..sa.jac + 3 * nd],
                    &minv_jt[sb.jac..sb.jac + 3 * nd],
                );
                if nd == 6 {
                    // A free body: the same sums over fixed-length rows
                    // (unrolled; the same products in the same order).
                    block_add::<6>(blk, ja, mb);
                } else {
                    block_add_dyn(blk, ja, mb, nd);
                }
            }
        }
    }
    let mut own = sp.col[row0..].iter().position(|&x| x as usize == ci);
    if c.side
        .iter()
        .any(|s| s.block != NO_BLOCK && is_lean(s.block))
    {
        if own.is_none() {
            // Every moving side lean: the row is its diagonal block alone.
            sp.col.push(ci as u32);
            sp.w.push([0.0; 9]);
            own = Some(sp.col.len() - 1 - row0);
        }
        // Y_s = L⁻ᵀ J_sᵀ (3 columns of nd, stored as 3 rows) per lean side,
        // M = Lᵀ L along the robot's tree (lcp21; a row of G on one chain
        // costs that chain's depths).
        let nd_of = |s: usize| blocks[c.side[s].block as usize].ndof;
        let lean_side = |s: usize| c.side[s].block != NO_BLOCK && is_lean(c.side[s].block);
        // Per link (lcp23): each lean side's link has its Gram S (built on
        // the link's first point) and the block is Σ_sides A S Aᵀ — when the
        // row is a contact (not a limit), its lean sides are on different
        // blocks (no cross term) and each has its link's rows.
        let link = |s: usize| {
            links
                .get(link_of.get(c.bodies[s]).copied().unwrap_or(NO_LINK) as usize)
                .filter(|l| l.block == c.side[s].block)
                .map(|_| link_of[c.bodies[s]] as usize)
        };
        let lk = [link(0), link(1)];
        let one_block = lean_side(0) && lean_side(1) && c.side[0].block == c.side[1].block;
        let per_link = !(c.limit || one_block) && (0..2).all(|s| !lean_side(s) || lk[s].is_some());
        if per_link {
            if let Some(k) = own {
                for s in (0..2).filter(|&s| lean_side(s)) {
                    let Some(li) = lk[s] else { continue };
                    let l = &mut links[li];
                    if !l.gram_ok {
                        let blk = blocks[c.side[s].block as usize];
                        let nd = blk.ndof;
                        let fac = (
                            &mfac[blk.mass..blk.mass + nd * nd],
                            &mpar[blk.offset..blk.offset + nd],
                        );
                        link_gram(l, &link_jac[l.jac..l.jac + 6 * nd], fac, nd, ly);
                    }
                    point_block(
                        &mut sp.w[row0 + k],
                        &l.gram,
                        &(c.p - l.o),
                        [&c.n, &c.t1, &c.t2],
                    );
                }
            }
        } else {
            let n0 = if lean_side(0) { nd_of(0) } else { 0 };
            let n1 = if lean_side(1) { nd_of(1) } else { 0 };
            ly.clear();
            ly.resize(3 * (n0 + n1), 0.0);
            // Per side, the rows left zero (their products add nothing).
            let mut zero = [[false; 3]; 2];
            for (s, (base, nd)) in [(0, n0), (3 * n0, n1)].into_iter().enumerate() {
                if nd == 0 {
                    continue;
                }
                let blk = blocks[c.side[s].block as usize];
                let l = &mfac[blk.mass..blk.mass + nd * nd];
                let par = &mpar[blk.offset..blk.offset + nd];
                for a in 0..3 {
                    let j = &jac[c.side[s].jac + a * nd..c.side[s].jac + (a + 1) * nd];
                    // A zero row (a joint limit's tangents) has Y = 0: left as
                    // `ly`'s zeros (lcp23: was solved).
                    if j.iter().all(|&x| x == 0.0) {
                        zero[s][a] = true;
                        continue;
                    }
                    let y = &mut ly[base + a * nd..base + (a + 1) * nd];
                    y.copy_from_slice(j);
                    tree_lt_solve(l, nd, par, y);
                }
            }
            if let Some(k) = own {
                let blk = &mut sp.w[row0 + k];
                for sa in 0..2 {
                    for sb in 0..2 {
                        let (na, nb) = ([n0, n1][sa], [n0, n1][sb]);
                        if na == 0 || nb == 0 || c.side[sa].block != c.side[sb].block {
                            continue;
                        }
                        let (ba, bb) = ([0, 3 * n0][sa], [0, 3 * n0][sb]);
                        for a in (0..3).filter(|&a| !zero[sa][a]) {
                            let ya = &ly[ba + a * na..ba + (a + 1) * na];
                            for b in (0..3).filter(|&b| !zero[sb][b]) {
                                let yb = &ly[bb + b * nb..bb + (b + 1) * nb];
                                blk[3 * a + b] +=
                                    ya.iter().zip(yb).map(|(x, y)| x * y).sum::<f64>();
                            }
                        }
                    }
                }
            }
        }
    }
    // Regularization (a constraint force mixing of ε relative to the diagonal):
    // several points of one face pair give rows of W that are linearly dependent
    // (12 rows on 6 DoF of a box on a box), a degenerate LCP on which the pivot
    // tolerances can end Lemke on a ray; ε = 1e-9 removes the degeneracy and
    // changes the impulses by a relative 1e-9.
    if let Some(k) = own {
        let d0 = sp.w[row0 + k][0];
        for a in 0..3 {
            sp.w[row0 + k][4 * a] *= 1.0 + REGULARIZATION;
        }
        // `[lcp] split_memory` (lcp34, `split.rs`): σ W_nn on a persisting
        // point's normal row (its centre enters q in `split::shift_q`).
        if let (Some(&s), Some(e)) = (split_sigma.get(ci), split_extra.get_mut(ci)) {
            if s > 0.0 {
                *e = s * d0;
                sp.w[row0 + k][0] += *e;
            }
        }
        if c.limit {
            // A joint limit has no tangent rows: its two tangent variables are
            // decoupled placeholders (W = 1 on their diagonal, q = 0, μ = 0), so
            // that W keeps a positive diagonal and the 3-rows-per-point layout
            // holds; they carry no impulse.
            sp.w[row0 + k][4] = 1.0;
            sp.w[row0 + k][8] = 1.0;
        }
    }
}

/// The block W_ij of points `ci` ≠ `cj` as [`w_row`] sums it (their shared
/// moving sides that are not lean, in `ci`'s side order, then `cj`'s; zero if
/// they share none): the block a row leaves out under `w_cols` (module doc,
/// "Columns read"), the same bits as when it is taken.
pub(super) fn w_block(ls: &LcpWorkspace, ci: usize, cj: usize) -> [f64; 9] {
    let (c, d) = (&ls.contacts[ci], &ls.contacts[cj]);
    let is_lean = |b: u32| ls.lean.get(b as usize).copied().unwrap_or(false);
    let mut blk = [0.0; 9];
    for sa in c
        .side
        .iter()
        .filter(|s| s.block != NO_BLOCK && !is_lean(s.block))
    {
        let nd = ls.blocks[sa.block as usize].ndof;
        for sb in d.side.iter().filter(|s| s.block == sa.block) {
            let (ja, mb) = (
                &ls.jac[sa.jac..sa.jac + 3 * nd],
                &ls.minv_jt[sb.jac..sb.jac + 3 * nd],
            );
            if nd == 6 {
                block_add::<6>(&mut blk, ja, mb);
            } else {
                block_add_dyn(&mut blk, ja, mb, nd);
            }
        }
    }
    blk
}

/// A link's Gram `S = Yᵀ Y`, `Y = L⁻ᵀ J(o)ᵀ` (6 columns; lcp23): `J(o)` is
/// the link's Jacobian `jac` (6 × nd, rows ω then v_O at the world origin)
/// moved to its reference point `o` (v_o = v_O + ω × o per column), `M = Lᵀ L`
/// the robot's factor along its tree (`fac`: L and the DoF parent array). The
/// six solves run together over the link's chain (the columns where J(o) is
/// not zero and their ancestors: Y is zero elsewhere), `ly` holding Y per
/// DoF (6 entries each) as scratch.
fn link_gram(
    l: &mut LinkRows,
    jac: &[f64],
    (fac, par): (&[f64], &[u32]),
    nd: usize,
    ly: &mut Vec<f64>,
) {
    ly.clear();
    ly.resize(6 * nd, 0.0);
    let mut on = [false; DOF_MAX];
    for k in 0..nd.min(DOF_MAX) {
        let ang = Vec3::new(jac[k], jac[nd + k], jac[2 * nd + k]);
        let lin = Vec3::new(jac[3 * nd + k], jac[4 * nd + k], jac[5 * nd + k]);
        let v = lin + ang.cross(&l.o);
        ly[6 * k..6 * k + 6].copy_from_slice(&[ang.x, ang.y, ang.z, v.x, v.y, v.z]);
        if ang != Vec3::zeros() || v != Vec3::zeros() {
            // The column and its ancestors (the chain).
            let mut j = k as u32;
            while j != NO_PARENT && !on[j as usize] {
                on[j as usize] = true;
                j = par[j as usize];
            }
        }
    }
    // L⁻ᵀ on the six columns at once, from the last DoF of the chain up.
    for k in (0..nd.min(DOF_MAX)).rev().filter(|&k| on[k]) {
        let d = fac[k * nd + k];
        let mut yk = [0.0; 6];
        for (y, b) in yk.iter_mut().zip(&mut ly[6 * k..6 * k + 6]) {
            *y = *b / d;
            *b = *y;
        }
        let mut j = par[k];
        while j != NO_PARENT {
            let jj = j as usize;
            let lkj = fac[k * nd + jj];
            for (b, y) in ly[6 * jj..6 * jj + 6].iter_mut().zip(&yk) {
                *b -= lkj * y;
            }
            j = par[jj];
        }
    }
    let mut g = [0.0; 36];
    for k in (0..nd.min(DOF_MAX)).filter(|&k| on[k]) {
        let y = &ly[6 * k..6 * k + 6];
        for a in 0..6 {
            for b in a..6 {
                g[6 * a + b] += y[a] * y[b];
            }
        }
    }
    for a in 0..6 {
        for b in 0..a {
            g[6 * a + b] = g[6 * b + a];
        }
    }
    l.gram = g;
    l.gram_ok = true;
}

/// `blk += A S Aᵀ`: the rows `a_r = (d × u_r, u_r)` of the directions `u`
/// (n, t₁, t₂) at the offset `d = p − o` from the link's reference point
/// (a side's sign squares away), `S` its Gram ([`link_gram`]; lcp23).
fn point_block(blk: &mut [f64; 9], s: &[f64; 36], d: &Vec3, u: [&Vec3; 3]) {
    let mut a = [[0.0; 6]; 3];
    for (ar, ur) in a.iter_mut().zip(u) {
        let w = d.cross(ur);
        *ar = [w.x, w.y, w.z, ur.x, ur.y, ur.z];
    }
    for r in 0..3 {
        // (A S)_r, then its products with the rows a_q (q ≤ r; W symmetric).
        let mut as_r = [0.0; 6];
        for (i, &x) in a[r].iter().enumerate() {
            for (y, &sij) in as_r.iter_mut().zip(&s[6 * i..6 * i + 6]) {
                *y += x * sij;
            }
        }
        for q in 0..=r {
            let mut v = 0.0;
            for (x, y) in as_r.iter().zip(&a[q]) {
                v += x * y;
            }
            blk[3 * r + q] += v;
            if q != r {
                blk[3 * q + r] += v;
            }
        }
    }
}

/// W's blocks and their pattern again (after `solve::complete_lean` gave the
/// lean blocks' rows their M⁻¹ Jᵀ and cleared the lean flags): every row
/// built as [`delassus`] builds it, so a row without a lean side gets the same
/// columns and bits, and a lean side's row (its diagonal block alone until
/// now, lcp21) its columns and off-diagonal blocks.
pub(super) fn rebuild_w(ls: &mut LcpWorkspace) {
    ls.sparse.row_start.clear();
    ls.sparse.col.clear();
    ls.sparse.w.clear();
    for ci in 0..ls.contacts.len() {
        let row0 = ls.sparse.col.len();
        ls.sparse.row_start.push(row0);
        w_row(ls, ci, row0);
    }
    let end = ls.sparse.col.len();
    ls.sparse.row_start.push(end);
}

/// `blk[3a + b] += J_a · (M⁻¹ Jᵀ)_b` for the three rows (n, t₁, t₂) of `ja`
/// and of `mb` (`N` DoFs each).
#[inline(always)]
fn block_add<const N: usize>(blk: &mut [f64; 9], ja: &[f64], mb: &[f64]) {
    for (a, ra) in ja.chunks_exact(N).take(3).enumerate() {
        let ra: &[f64; N] = match ra.try_into() {
            Ok(r) => r,
            Err(_) => return,
        };
        for (b, rb) in mb.chunks_exact(N).take(3).enumerate() {
            let rb: &[f64; N] = match rb.try_into() {
                Ok(r) => r,
                Err(_) => return,
            };
            blk[3 * a + b] += ra.iter().zip(rb).map(|(x, y)| x * y).sum::<f64>();
        }
    }
}

/// [`block_add`] for a block of `nd` DoFs (a robot).
fn block_add_dyn(blk: &mut [f64; 9], ja: &[f64], mb: &[f64], nd: usize) {
    for a in 0..3 {
        let ra = &ja[a * nd..(a + 1) * nd];
        for b in 0..3 {
            let rb = &mb[b * nd..(b + 1) * nd];
            blk[3 * a + b] += ra.iter().zip(rb).map(|(x, y)| x * y).sum::<f64>();
        }
    }
}

/// The dense W of `ls.sparse` into `ls.w` (for the Stewart–Trinkle LCP of Lemke).
pub(super) fn dense_w(ls: &mut LcpWorkspace) {
    let nc = ls.contacts.len();
    reshape_zeroed(&mut ls.w, 3 * nc, 3 * nc);
    let sp = &ls.sparse;
    for ci in 0..nc {
        for k in sp.row_start[ci]..sp.row_start[ci + 1] {
            let cj = sp.col[k] as usize;
            for a in 0..3 {
                for b in 0..3 {
                    ls.w[(3 * ci + a, 3 * cj + b)] = sp.w[k][3 * a + b];
                }
            }
        }
    }
}

/// The Stewart–Trinkle LCP over z = (p_n | β | σ) (module doc) from W and q_W.
pub(super) fn stewart_trinkle_lcp(ls: &mut LcpWorkspace) {
    let nc = ls.contacts.len();
    let k = ls.dirs.len();
    let n = nc * (k + 2);
    let (ib, is) = (nc, nc + nc * k);
    reshape_zeroed(&mut ls.problem.m, n, n);
    resize_zeroed(&mut ls.problem.q, n);
    let (a, q, w, qw, dirs, sp) = (
        &mut ls.problem.m,
        &mut ls.problem.q,
        &ls.w,
        &ls.qw,
        &ls.dirs,
        &ls.sparse,
    );
    for c in 0..nc {
        for d in 0..nc {
            let wn = |x: usize, y: usize| w[(3 * c + x, 3 * d + y)];
            a[(c, d)] = wn(0, 0);
            for (j, &(cj, sj)) in dirs.iter().enumerate() {
                // G_nᵀ M⁻¹ G_f d_j and its transpose.
                a[(c, ib + d * k + j)] = wn(0, 1) * cj + wn(0, 2) * sj;
                a[(ib + c * k + j, d)] = cj * wn(1, 0) + sj * wn(2, 0);
                for (i, &(ci, si)) in dirs.iter().enumerate() {
                    a[(ib + c * k + i, ib + d * k + j)] =
                        ci * (wn(1, 1) * cj + wn(1, 2) * sj) + si * (wn(2, 1) * cj + wn(2, 2) * sj);
                }
            }
        }
        // E and −Eᵀ, μ.
        for j in 0..k {
            a[(ib + c * k + j, is + c)] = 1.0;
            a[(is + c, ib + c * k + j)] = -1.0;
        }
        match sp.patch.get(c).filter(|pa| pa.len > 1) {
            // A face patch (lcp33, `solver::pgs::PatchOf`): ρ_σ = s μ Σ_{j∈P}
            // p_n(j) − Σ β.
            Some(pa) => {
                let j0 = pa.first as usize;
                for j in (j0..j0 + pa.len as usize).filter(|&j| sp.in_patch(j, pa)) {
                    a[(is + c, j)] = ls.contacts[c].mu * pa.share;
                }
            }
            None => a[(is + c, c)] = ls.contacts[c].mu,
        }
        q[c] = qw[3 * c];
        for (j, &(cj, sj)) in dirs.iter().enumerate() {
            q[ib + c * k + j] = cj * qw[3 * c + 1] + sj * qw[3 * c + 2];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::primal::{dense_cholesky, dense_cholesky_solve, tree_cholesky};

    /// A deterministic generator of numbers in [−1, 1) (no dependency).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        }
    }

    /// The per-link diagonal block (lcp23: `link_gram`, `point_block`) is
    /// `G M⁻¹ Gᵀ` of the point's rows `G = A J`, `a_r = (p × u_r, u_r)`,
    /// against a dense Cholesky solve of M: to 1e-12 relative to the
    /// block's largest entry, on random trees (M = Lᵀ L with the tree's
    /// sparsity), chains, points up to 20 m from the world origin and
    /// reference points elsewhere on the link.
    #[test]
    fn link_gram_block_is_g_minv_gt() {
        let mut rng = Lcg(23);
        let mut worst = 0.0f64;
        for case in 0..40 {
            let n = 6 + case % 20;
            // A tree: a floating base's six DoFs in a chain, then random parents.
            let par: Vec<u32> = (0..n)
                .map(|k| match k {
                    0 => NO_PARENT,
                    1..=5 => k as u32 - 1,
                    _ => ((rng.next() * 0.5 + 0.5) * k as f64) as u32,
                })
                .collect();
            let anc = |k: usize, i: usize| {
                let mut j = par[k];
                while j != NO_PARENT {
                    if j as usize == i {
                        return true;
                    }
                    j = par[j as usize];
                }
                false
            };
            // L with the tree's pattern (row k: k and its ancestors), M = Lᵀ L.
            let mut l = vec![0.0; n * n];
            for k in 0..n {
                l[k * n + k] = 1.0 + rng.next().abs();
                for i in 0..k {
                    if anc(k, i) {
                        l[k * n + i] = 0.5 * rng.next();
                    }
                }
            }
            let mut m = vec![0.0; n * n];
            for i in 0..n {
                for j in 0..n {
                    m[i * n + j] = (0..n).map(|k| l[k * n + i] * l[k * n + j]).sum();
                }
            }
            let mut fac = m.clone();
            assert!(
                tree_cholesky(&mut fac, n, &par),
                "case {case}: M not factored"
            );
            // A link on the chain of DoF d: J's columns d and its ancestors.
            let d = n - 1 - (case % n.min(4));
            let mut jac = vec![0.0; 6 * n];
            for k in 0..n {
                if k == d || anc(d, k) {
                    for r in 0..6 {
                        jac[r * n + k] = rng.next();
                    }
                }
            }
            let scale = 20.0 * rng.next();
            let mut link = LinkRows {
                body: 0,
                block: 0,
                jac: 0,
                o: Vec3::new(scale, 0.3 * scale, 0.1),
                gram: [0.0; 36],
                gram_ok: false,
            };
            let mut ly = Vec::new();
            link_gram(&mut link, &jac, (&fac, &par), n, &mut ly);
            let mut dense = m.clone();
            assert!(dense_cholesky(&mut dense, n));
            for _ in 0..4 {
                let p = link.o + Vec3::new(0.1 * rng.next(), 0.1 * rng.next(), 0.1 * rng.next());
                let nrm = Vec3::new(rng.next(), rng.next(), 1.0).normalize();
                let t1 = nrm.cross(&Vec3::new(1.0, 0.0, 0.0)).normalize();
                let t2 = nrm.cross(&t1);
                let mut blk = [0.0; 9];
                point_block(&mut blk, &link.gram, &(p - link.o), [&nrm, &t1, &t2]);
                // The reference: rows g_r = uᵀ (v_O + ω × p) per column, W = G M⁻¹ Gᵀ.
                let rows: Vec<Vec<f64>> = [nrm, t1, t2]
                    .iter()
                    .map(|u| {
                        (0..n)
                            .map(|k| {
                                let w = Vec3::new(jac[k], jac[n + k], jac[2 * n + k]);
                                let v = Vec3::new(jac[3 * n + k], jac[4 * n + k], jac[5 * n + k]);
                                u.dot(&(v + w.cross(&p)))
                            })
                            .collect()
                    })
                    .collect();
                let mut reference = [0.0; 9];
                for b in 0..3 {
                    let mut x = rows[b].clone();
                    dense_cholesky_solve(&dense, n, &mut x);
                    for a in 0..3 {
                        reference[3 * a + b] = rows[a].iter().zip(&x).map(|(g, y)| g * y).sum();
                    }
                }
                let big = reference.iter().fold(0.0f64, |s, x| s.max(x.abs()));
                for (x, y) in blk.iter().zip(&reference) {
                    let e = (x - y).abs() / big;
                    worst = worst.max(e);
                    assert!(e <= 1e-12, "case {case}: |ΔW| / max|W| = {e:e}");
                }
            }
        }
        eprintln!("link_gram_block_is_g_minv_gt: worst |ΔW| / max|W| = {worst:e}");
    }
}
