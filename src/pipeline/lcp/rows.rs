//! The rows of the complementarity problem: per contact point of the narrow phase
//! (merged and reduced to ≤ 4 per manifold) the normal and two tangent Jacobian
//! rows G on the DoF blocks it touches, and M⁻¹ Gᵀ (module doc of `lcp`, "Contact
//! points and friction directions").

use super::{ContactRow, DofKind, LcpWorkspace, Side, NO_BLOCK};
use crate::collision::ContactSet;
use crate::contact::patch::{Patch, MAX_POINTS};
use crate::data::{BodyState, RobotData, LCP_WARM_POINTS};
use crate::dynamics::point_jacobian;
use crate::math::{tangent_basis, Vec3};
use crate::model::{BodyKind, Material, Model};
use nalgebra::Matrix6xX;

/// The row of direction `u` at world point `p` on a block, times `sign`
/// (the velocity of the block's material point at `p` along `u`).
#[inline]
pub(super) fn point_row(
    kind: DofKind,
    state: &[BodyState],
    p: &Vec3,
    u: &Vec3,
    sign: f64,
    out: &mut [f64],
) {
    match kind {
        DofKind::Free { body } => {
            out.copy_from_slice(&lever_row(&(p - state[body as usize].x), u, sign));
        }
        // Built from the link's point Jacobian in `contact_rows`.
        DofKind::Articulated { .. } => out.fill(0.0),
    }
}

/// A free body's row of direction `u` at lever `r` (the point minus the body's
/// origin), times `sign`: `sign · (u, r × u)`.
#[inline(always)]
fn lever_row(r: &Vec3, u: &Vec3, sign: f64) -> [f64; 6] {
    let a = r.cross(u);
    [
        sign * u.x,
        sign * u.y,
        sign * u.z,
        sign * a.x,
        sign * a.y,
        sign * a.z,
    ]
}

/// `LcpWorkspace::link_of` of a body without a [`LinkRows`] this step.
pub(super) const NO_LINK: u32 = u32::MAX;

/// A robot link with contact points this step (lcp23): its 6 × nv Jacobian at
/// the world origin `[ω; v_O]` (rows ω then v_O, world) at `jac` in
/// `LcpWorkspace::link_jac`, computed once for all its points (each point's
/// rows are `uᵀ (v_O + ω × p)` per column, the sums `point_jacobian` forms at
/// `p`); and for a lean block (`delassus::w_row`) the Gram `S = Yᵀ Y` of
/// `Y = L⁻ᵀ J(o)ᵀ` at the link's reference point `o` (its first point), built
/// on first use (`gram_ok`), which gives each point's diagonal block of W as
/// `A S Aᵀ` with the rows `a = ((p − o) × u, u)`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LinkRows {
    pub body: usize,
    pub block: u32,
    pub jac: usize,
    pub o: Vec3,
    pub gram: [f64; 36],
    pub gram_ok: bool,
}

/// Contact points of every manifold (merged and reduced to ≤ 4), their frames,
/// Jacobian rows and M⁻¹ Jᵀ.
///
/// With `patch` (the standard rows; not PEG's, whose events were derived
/// without it), a face or line contact between free or static bodies puts its
/// friction rows at [`friction_points`]: each point carries its share of the
/// patch's spin at the lever of the uniform pressure, not at its corner. Its
/// touching points (depth ≥ 0, two or more) are one face patch in
/// `ls.patch_rows` ([`patch_of`]; filled and read under `[lcp] friction =
/// "patch"` only).
pub(super) fn contact_rows(
    model: &Model,
    state: &[BodyState],
    robots: &[RobotData],
    (set, set_pair): (&ContactSet, &[usize]),
    patch: bool,
    ls: &mut LcpWorkspace,
) {
    ls.contacts.clear();
    ls.patch_rows.clear();
    ls.jac.clear();
    ls.minv_jt.clear();
    for l in &ls.links {
        if let Some(x) = ls.link_of.get_mut(l.body) {
            *x = NO_LINK;
        }
    }
    ls.links.clear();
    ls.link_jac.clear();
    ls.link_of.resize(model.bodies.len(), NO_LINK);
    for (m, &pi) in set.manifolds.iter().zip(set_pair) {
        let (ga, gb) = (&model.geoms[m.geom_a], &model.geoms[m.geom_b]);
        let bodies = [ga.body, gb.body];
        let blocks = [ls.body_block[ga.body], ls.body_block[gb.body]];
        if blocks.iter().all(|&b| b == NO_BLOCK) || !m.normal.iter().all(|c| c.is_finite()) {
            continue;
        }
        let mat = Material::combine(&ga.material, &gb.material);
        let pts = set.points_of(m);
        select_points(pts, &m.normal, &mut ls.pick);
        let n = m.normal;
        let (t1, t2) = tangent_basis(&n);
        let mut fpoint = [Vec3::zeros(); LCP_WARM_POINTS];
        let free_or_static = |blk: u32| {
            blk == NO_BLOCK || matches!(ls.blocks[blk as usize].kind, DofKind::Free { .. })
        };
        let flat = patch
            && blocks.iter().all(|&b| free_or_static(b))
            && crate::contact::friction::holds_tilt(ga.shape.kind(), gb.shape.kind());
        friction_points(pts, &ls.pick, &n, flat, &mut fpoint);
        if ls.patch_wanted {
            patch_of(pts, &ls.pick, flat, ls.contacts.len(), &mut ls.patch_rows);
        }
        for (slot, &k) in ls.pick.iter().enumerate() {
            let cp = &pts[k];
            let pf = fpoint[slot];
            let mut side = [Side {
                block: NO_BLOCK,
                jac: 0,
            }; 2];
            for (sd, (&blk, sign)) in blocks.iter().zip([1.0, -1.0]).enumerate() {
                if blk == NO_BLOCK {
                    continue;
                }
                let block = ls.blocks[blk as usize];
                let off = ls.jac.len();
                let nd = block.ndof;
                ls.jac.resize(off + 3 * nd, 0.0);
                ls.minv_jt.resize(off + 3 * nd, 0.0);
                if let DofKind::Articulated { robot } = block.kind {
                    // The link's Jacobian at the world origin (6 × nv, rows ω
                    // then v_O, world), once per link and step (lcp23: was the
                    // point Jacobian per point).
                    let li = match ls.link_of[bodies[sd]] {
                        NO_LINK => link_jacobian(
                            model,
                            robots,
                            (robot as usize, bodies[sd]),
                            &mut ls.jrob,
                            LinkCache {
                                jac: &mut ls.link_jac,
                                links: &mut ls.links,
                                of: &mut ls.link_of,
                            },
                        ),
                        li => li as usize,
                    };
                    if ls.links[li].block == NO_BLOCK {
                        ls.links[li].block = blk;
                        ls.links[li].o = cp.lever;
                    }
                    // Rows uᵀ v_p with v_p = v_O + ω × p per column: the sums
                    // and order of `point_jacobian` at p (the same bits up to
                    // the sign of an exact zero).
                    let lj = &ls.link_jac[ls.links[li].jac..ls.links[li].jac + 6 * nd];
                    let rows = &mut ls.jac[off..off + 3 * nd];
                    for k in 0..nd {
                        let ang = Vec3::new(lj[k], lj[nd + k], lj[2 * nd + k]);
                        let lin = Vec3::new(lj[3 * nd + k], lj[4 * nd + k], lj[5 * nd + k]);
                        let v = lin + ang.cross(&cp.lever);
                        for (r, u) in [n, t1, t2].iter().enumerate() {
                            rows[r * nd + k] = sign * (u.x * v.x + u.y * v.y + u.z * v.z);
                        }
                    }
                }
                if let DofKind::Free { body } = block.kind {
                    if nd == 6
                        && free_rows(
                            state,
                            body,
                            [cp.lever, pf],
                            [n, t1, t2],
                            sign,
                            &ls.minv[block.minv..],
                            (&mut ls.jac[off..off + 18], &mut ls.minv_jt[off..off + 18]),
                        )
                    {
                        side[sd] = Side {
                            block: blk,
                            jac: off,
                        };
                        continue;
                    }
                }
                for (r, u) in [n, t1, t2].iter().enumerate() {
                    if let DofKind::Free { .. } = block.kind {
                        let row = &mut ls.jac[off + r * nd..off + (r + 1) * nd];
                        let at = if r == 0 { &cp.lever } else { &pf };
                        point_row(block.kind, state, at, u, sign, row);
                    }
                    // M⁻¹ Jᵀ for this row. A free body's M⁻¹ = diag(1/m I₃, I_w⁻¹)
                    // (`dof_blocks`): the dense sums' other terms are 0 · J_j, exact
                    // zeros when the row is finite, so the nonzero terms alone, from
                    // the same 0.0 and in the same order, give the same bits.
                    let r0 = off + r * nd;
                    if matches!(block.kind, DofKind::Free { .. })
                        && nd == 6
                        && ls.jac[r0..r0 + 6].iter().all(|x| x.is_finite())
                    {
                        let (mv, j) = (&ls.minv[block.minv..block.minv + 36], &ls.jac[r0..r0 + 6]);
                        let out = &mut ls.minv_jt[r0..r0 + 6];
                        let zero = 0.0f64;
                        for (i, o) in out.iter_mut().enumerate() {
                            *o = if i < 3 {
                                zero + mv[7 * i] * j[i]
                            } else {
                                zero + mv[6 * i + 3] * j[3]
                                    + mv[6 * i + 4] * j[4]
                                    + mv[6 * i + 5] * j[5]
                            };
                        }
                        continue;
                    }
                    if ls.lean.get(blk as usize).copied().unwrap_or(false) {
                        // A lean block (articulated.rs): no M⁻¹ Jᵀ (zeros).
                        continue;
                    }
                    for i in 0..nd {
                        let mut acc = 0.0;
                        for j in 0..nd {
                            acc += ls.minv[block.minv + i * nd + j] * ls.jac[off + r * nd + j];
                        }
                        ls.minv_jt[off + r * nd + i] = acc;
                    }
                }
                side[sd] = Side {
                    block: blk,
                    jac: off,
                };
            }
            ls.contacts.push(ContactRow {
                pair: pi,
                slot,
                p: cp.lever,
                pf,
                n,
                t1,
                t2,
                mu: mat.mu,
                depth: cp.depth,
                restitution: mat.restitution,
                bodies,
                side,
                limit: false,
            });
        }
    }
}

/// Where a manifold's picked points `pick` (of `pts`, normal `n`) put their
/// friction rows, in slot order: at their own points, except on a face or line
/// contact (`flat`: neither surface round; every point of the manifold, at most
/// `patch::MAX_POINTS`, acting where it is; two or more picked) — there the
/// patch is the hull of all the manifold's points (a cylinder's base ring, a
/// clipped face: not only the ≤ 4 picked), and each picked point j is moved in
/// the contact plane along its offset from the points' centre c to the lever
/// ρ_j = ∫ψ_j |x − c| of its share ψ_j of the uniform pressure over it
/// ([`Patch::spin_levers`], `contact::patch`'s quadrature). Its friction then resists a spin about c as
/// the patch does: a square's corners act at 0.765 a, not a√2 — the LCP's box
/// spinning flat fell at 208 rad/s² against the uniform 112.6 (docs/EXPERIMENTS.md,
/// "Outside scenes, session 35"). A tangential force's moment about any in-plane
/// axis is unchanged (the move is in the plane), so sliding, sticking and
/// tipping see the same rows; only the moment about n changes.
///
fn friction_points(
    pts: &[crate::collision::ContactPoint],
    pick: &[usize],
    n: &Vec3,
    flat: bool,
    out: &mut [Vec3; LCP_WARM_POINTS],
) {
    for (o, &k) in out.iter_mut().zip(pick) {
        *o = pts[k].lever;
    }
    let m = pts.len();
    if !flat || pick.len() < 2 || m > MAX_POINTS || pts.iter().any(|p| p.lever != p.p_w) {
        return;
    }
    let mut lever = [Vec3::zeros(); MAX_POINTS];
    for (l, p) in lever.iter_mut().zip(pts) {
        *l = p.lever;
    }
    let Some(patch) = Patch::of_points(n, &lever[..m]) else {
        return;
    };
    let mut rho = [0.0; MAX_POINTS];
    if !patch.spin_levers(&mut rho[..m]) {
        return;
    }
    let c = patch.centre();
    for (o, &k) in out.iter_mut().zip(pick) {
        let d = lever[k] - c;
        let dt = d - n * n.dot(&d);
        let r = dt.norm();
        if r > 0.0 && rho[k] > 0.0 {
            *o = lever[k] + dt * (rho[k] / r - 1.0);
        }
    }
}

/// The face patch of a manifold's picked points `pick` (of `pts`), pushed to
/// `out` in slot order, the first at point index `first` (lcp33, `[lcp]
/// friction = "patch"`, `solver::pgs::PatchOf`): on a face or line contact
/// (`flat`, as [`friction_points`]) the points touching at the step's start
/// (depth ≥ 0: not a speculative gap point), when two or more, are one patch
/// with equal shares `1/m` (the uniform pressure of the friction rows' spin
/// levers); every other point is its own cone.
fn patch_of(
    pts: &[crate::collision::ContactPoint],
    pick: &[usize],
    flat: bool,
    first: usize,
    out: &mut Vec<crate::solver::PatchOf>,
) {
    let touching = |k: usize| pts[k].depth >= 0.0;
    let m = if flat && pick.len() >= 2 {
        pick.iter().filter(|&&k| touching(k)).count()
    } else {
        0
    };
    for (slot, &k) in pick.iter().enumerate() {
        out.push(if m >= 2 && touching(k) {
            crate::solver::PatchOf {
                first: first as u32,
                len: pick.len() as u32,
                share: 1.0 / m as f64,
            }
        } else {
            crate::solver::PatchOf {
                first: (first + slot) as u32,
                len: 1,
                share: 1.0,
            }
        });
    }
}

/// A free body's three rows (`point_row` for n, t₁, t₂) and their M⁻¹ Jᵀ at
/// `jac` and `minv_jt` (18 each) in one pass over local arrays (lcp27:
/// the general loop re-read the workspace's buffers after every store). The
/// same sums in the same order as the general loop's free-body branch: r = p − x
/// once (the loop formed the same difference per row), M⁻¹ = diag(1/m I₃, I_w⁻¹)
/// with the other terms' exact zeros left out from the same 0.0. False (nothing
/// written but the rows) when a row is not finite: the general loop then runs.
#[inline]
fn free_rows(
    state: &[BodyState],
    body: u32,
    [at_n, at_t]: [Vec3; 2],
    dirs: [Vec3; 3],
    sign: f64,
    minv: &[f64],
    (jac, minv_jt): (&mut [f64], &mut [f64]),
) -> bool {
    // The normal row at the point, the tangent rows at its friction point
    // ([`friction_points`]).
    let x = state[body as usize].x;
    let (r, rf) = (at_n - x, at_t - x);
    let rows = [
        lever_row(&r, &dirs[0], sign),
        lever_row(&rf, &dirs[1], sign),
        lever_row(&rf, &dirs[2], sign),
    ];
    if !rows.iter().flatten().all(|x| x.is_finite()) {
        return false;
    }
    let Some(mv) = minv.get(..36).and_then(|m| <&[f64; 36]>::try_from(m).ok()) else {
        return false;
    };
    let zero = 0.0f64;
    let mut out = [[0.0f64; 6]; 3];
    for (o, j) in out.iter_mut().zip(&rows) {
        *o = [
            zero + mv[0] * j[0],
            zero + mv[7] * j[1],
            zero + mv[14] * j[2],
            zero + mv[21] * j[3] + mv[22] * j[4] + mv[23] * j[5],
            zero + mv[27] * j[3] + mv[28] * j[4] + mv[29] * j[5],
            zero + mv[33] * j[3] + mv[34] * j[4] + mv[35] * j[5],
        ];
    }
    let (Ok(jac), Ok(minv_jt)) = (
        <&mut [f64; 18]>::try_from(jac),
        <&mut [f64; 18]>::try_from(minv_jt),
    ) else {
        return false;
    };
    for r in 0..3 {
        jac[6 * r..6 * r + 6].copy_from_slice(&rows[r]);
        minv_jt[6 * r..6 * r + 6].copy_from_slice(&out[r]);
    }
    true
}

/// The per-link rows of `LcpWorkspace` (`link_jac`, `links`, `link_of`).
struct LinkCache<'a> {
    jac: &'a mut Vec<f64>,
    links: &'a mut Vec<LinkRows>,
    of: &'a mut Vec<u32>,
}

/// A [`LinkRows`] for `body` (a link of robot `ri`; another body gets zero
/// rows, as `point_jacobian`'s error gave): its Jacobian at the world origin
/// appended to `ls.link_jac`. Returns its index in `ls.links`.
fn link_jacobian(
    model: &Model,
    robots: &[RobotData],
    (ri, body): (usize, usize),
    jrob: &mut [Matrix6xX<f64>],
    ls: LinkCache<'_>,
) -> usize {
    let link = match model.bodies[body].kind {
        BodyKind::Link { link, .. } => link as usize,
        _ => usize::MAX,
    };
    let jm = &mut jrob[ri];
    let origin = Vec3::zeros();
    if point_jacobian(&model.robots[ri].tree, &robots[ri].ad, link, &origin, jm).is_err() {
        jm.fill(0.0);
    }
    let at = ls.jac.len();
    // Row-major: row r of the 6 × nv matrix at `at + r nv`.
    for r in 0..6 {
        ls.jac.extend(jm.row(r).iter());
    }
    ls.of[body] = ls.links.len() as u32;
    ls.links.push(LinkRows {
        body,
        block: NO_BLOCK,
        jac: at,
        o: Vec3::zeros(),
        gram: [0.0; 36],
        gram_ok: false,
    });
    ls.links.len() - 1
}

/// A manifold of more than 4 points first merges the points within this fraction
/// of its extent in the contact plane (the deeper kept): the support the LCP
/// resolves, its lever arms to 1e-3.
const PATCH_MERGE: f64 = 1e-3;

/// Indices of at most [`LCP_WARM_POINTS`] points of a manifold: points within 1 µm
/// of each other in the contact plane merge (the deeper kept), and so do points of
/// one lever (a round cap's points are one rigid contact at its deepest point,
/// `ContactPoint::lever`); of more than 4, those within [`PATCH_MERGE`] of the
/// extent merge too, then the deepest, the farthest from it, the largest triangle
/// with those, the farthest on the other side of their line.
/// Returned by angle about their centroid (stable slots for the warm start).
pub(super) fn select_points(
    pts: &[crate::collision::ContactPoint],
    n: &Vec3,
    pick: &mut Vec<usize>,
) {
    pick.clear();
    // Merge points that coincide in the contact plane (the two faces of a thin
    // intersection slab), keeping the deeper.
    let planar_d2 = |a: &Vec3, b: &Vec3| {
        let d = b - a;
        (d - n * n.dot(&d)).norm_squared()
    };
    // Points acting at one lever (a round cap's, `ContactPoint::lever`) are one
    // rigid contact: they merge the same way.
    for (i, c) in pts.iter().enumerate() {
        match pick.iter().position(|&k| {
            planar_d2(&pts[k].p_w, &c.p_w) < 1e-12 || planar_d2(&pts[k].lever, &c.lever) < 1e-12
        }) {
            Some(j) if c.depth > pts[pick[j]].depth => pick[j] = i,
            Some(_) => {}
            None => pick.push(i),
        }
    }
    if pick.len() <= LCP_WARM_POINTS {
        sort_by_angle(pts, n, pick);
        return;
    }
    // More than 4: first merge the points within 1e-3 of the patch's extent of
    // each other (the deeper kept), so that the reduction below never keeps a
    // rim point and drops the deep corner beside it. A box turning about an edge
    // has, beside each corner at depth d, the point where its side edge crosses
    // the plane, d·tan θ away: past 1 µm those are six points, and the reduction
    // (anchored on one of the two tied deepest corners) kept one corner and the
    // other side's rim point at depth 0 — support on one side for a step, a kick
    // about the normal (docs/EXPERIMENTS.md, "A tipping box kicked about the
    // normal under the LCP"; kept since lcpgap1, where the penetrating pair's gap
    // points give the landing edge its row).
    let mut extent2: f64 = 0.0;
    for (i, &k) in pick.iter().enumerate() {
        for &l in &pick[i + 1..] {
            extent2 = extent2.max(planar_d2(&pts[k].p_w, &pts[l].p_w));
        }
    }
    let near2 = PATCH_MERGE * PATCH_MERGE * extent2;
    let mut kept = 0;
    for i in 0..pick.len() {
        let c = pick[i];
        match pick[..kept]
            .iter()
            .position(|&k| planar_d2(&pts[k].p_w, &pts[c].p_w) < near2)
        {
            Some(j) if pts[c].depth > pts[pick[j]].depth => pick[j] = c,
            Some(_) => {}
            None => {
                pick[kept] = c;
                kept += 1;
            }
        }
    }
    pick.truncate(kept);
    if pick.len() <= LCP_WARM_POINTS {
        sort_by_angle(pts, n, pick);
        return;
    }
    let planar = |a: usize, b: usize| {
        let d = pts[b].p_w - pts[a].p_w;
        d - n * n.dot(&d)
    };
    let argmax = |pick: &[usize], f: &dyn Fn(usize) -> f64| {
        let mut best = (pick[0], f64::NEG_INFINITY);
        for &k in pick {
            let v = f(k);
            if v > best.1 {
                best = (k, v);
            }
        }
        best
    };
    let a = argmax(pick, &|k| pts[k].depth).0;
    let b = argmax(pick, &|k| planar(a, k).norm_squared()).0;
    let ab = planar(a, b);
    let area = |k: usize| planar(a, k).cross(&ab).dot(n);
    let c = argmax(pick, &|k| area(k).abs()).0;
    let sc = area(c).signum();
    let (d, dv) = argmax(pick, &|k| -sc * area(k));
    let d = if dv > 0.0 {
        d
    } else {
        // Every point on c's side: the one farthest from a, b and c.
        argmax(pick, &|k| {
            [a, b, c]
                .iter()
                .map(|&q| planar(q, k).norm_squared())
                .fold(f64::INFINITY, f64::min)
        })
        .0
    };
    let mut chosen = [a, b, c, d];
    chosen.sort_unstable();
    pick.clear();
    for (i, &k) in chosen.iter().enumerate() {
        if i == 0 || chosen[i - 1] != k {
            pick.push(k);
        }
    }
    sort_by_angle(pts, n, pick);
}

/// Orders the picked points by their angle about their centroid in the contact
/// frame (t₁, t₂): the same corners get the same slots step after step, whatever
/// order the narrow phase lists them in (the warm start is matched by slot).
pub(super) fn sort_by_angle(pts: &[crate::collision::ContactPoint], n: &Vec3, pick: &mut [usize]) {
    if pick.len() < 2 {
        return;
    }
    let (t1, t2) = tangent_basis(n);
    let c = pick.iter().map(|&k| pts[k].p_w).sum::<Vec3>() / pick.len() as f64;
    let angle = |k: usize| {
        let d = pts[k].p_w - c;
        d.dot(&t2).atan2(d.dot(&t1))
    };
    // Each point's angle once (lcp26: was two atan2 per comparison; the same
    // values compared, so the same order), then an insertion sort of (angle,
    // point) pairs (`select_points` picks at most `LCP_WARM_POINTS`; no
    // allocation).
    let mut keyed = [(0.0, 0usize); LCP_WARM_POINTS];
    let Some(keyed) = keyed.get_mut(..pick.len()) else {
        return;
    };
    for (e, &k) in keyed.iter_mut().zip(pick.iter()) {
        *e = (angle(k), k);
    }
    for i in 1..keyed.len() {
        let mut j = i;
        while j > 0 && keyed[j - 1].0 > keyed[j].0 {
            keyed.swap(j - 1, j);
            j -= 1;
        }
    }
    for (k, e) in pick.iter_mut().zip(keyed.iter()) {
        *k = e.1;
    }
}

/// Tangential free slip (m/s) below which a point keeps the engine's tangent basis.
/// Above it the slip has a direction worth aligning with: a placed incline's
/// h g sin θ is ≥ 1e-6 m/s for θ ≥ 1e-4 rad at h = 1e-3 s; a resting stack's free
/// slip is round-off (≤ 1e-12).
pub(super) const SLIP_ALIGN: f64 = 1e-6;

/// Turns each friction point's tangent basis (t₁, t₂) about n so that t₁ opposes
/// its free slip s = G_t ν_f (module doc of `lcp`, "Contact points and friction
/// directions"): the first direction d₀ = t₁ of the k-gon then lies exactly against
/// the motion the step starts from. 003's cone (eq. 8) is the k-gon spanned by
/// evenly spaced directions; a sliding point's friction μ p_n is exact only along a
/// direction, so a fixed basis gives μ p_n cos(π/k) between two (0.71 μ p_n at
/// 45° with k = 4): a box slid diagonally went √2 too far, and on an incline whose
/// slope lay between two directions it slid at tan θ = 0.45 with μ = 0.5. The rows
/// G_t and M⁻¹ G_tᵀ turn with the basis (a rotation in the tangent plane: the same
/// cone, the same W up to that rotation); points slipping slower than
/// [`SLIP_ALIGN`] and joint-limit rows keep theirs. The warm start stores impulses
/// in the engine's basis (`warm.rs`).
pub(super) fn align_friction(ls: &mut LcpWorkspace) {
    let LcpWorkspace {
        contacts,
        jac,
        minv_jt,
        blocks,
        nu_f,
        ..
    } = ls;
    for c in contacts.iter_mut().filter(|c| !c.limit) {
        let mut s = [0.0f64; 2];
        for sd in c.side.iter().filter(|sd| sd.block != NO_BLOCK) {
            let blk = blocks[sd.block as usize];
            let nd = blk.ndof;
            let v = &nu_f[blk.offset..blk.offset + nd];
            for (a, sa) in s.iter_mut().enumerate() {
                let row = &jac[sd.jac + (a + 1) * nd..sd.jac + (a + 2) * nd];
                *sa += row.iter().zip(v).map(|(x, y)| x * y).sum::<f64>();
            }
        }
        let mag = s[0].hypot(s[1]);
        if !mag.is_finite() || mag <= SLIP_ALIGN {
            continue;
        }
        // t₁' = −ŝ = cos φ t₁ + sin φ t₂, t₂' = n × t₁' = −sin φ t₁ + cos φ t₂.
        let (co, si) = (-s[0] / mag, -s[1] / mag);
        let (t1, t2) = (c.t1, c.t2);
        c.t1 = t1 * co + t2 * si;
        c.t2 = t2 * co - t1 * si;
        for sd in c.side.iter().filter(|sd| sd.block != NO_BLOCK) {
            let nd = blocks[sd.block as usize].ndof;
            for rows in [&mut *jac, &mut *minv_jt] {
                let (r1, r2) = rows[sd.jac + nd..sd.jac + 3 * nd].split_at_mut(nd);
                for (x1, x2) in r1.iter_mut().zip(r2.iter_mut()) {
                    let (a, b) = (*x1, *x2);
                    *x1 = co * a + si * b;
                    *x2 = co * b - si * a;
                }
            }
        }
    }
}
