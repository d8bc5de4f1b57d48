//! Articulated robots in the complementarity step (module doc of `lcp`, "Robots"):
//! one DoF block per moving robot (M = CRBA H + the implicit actuation/passive
//! diagonal, ν_f from a contact-free ABA), one-sided joint-limit rows, and the
//! robots' integration after the solve.

use super::{ContactRow, DofBlock, DofKind, LcpWorkspace, Side, NO_BLOCK, NO_MASS, NO_PAIR};
use crate::collision::ContactSet;
use crate::data::{BodyState, RobotData};
use crate::dynamics::{crba, factor_mass, rnea, solve_mass_columns, ExtInputs};
use crate::kinematics::link_states;
use crate::math::{Vec3, Wrench};
use crate::model::robot::RobotJoint;
use crate::model::{BodyKind, Model};
use crate::pipeline::robots::{self, Record, RobotLoad};
use crate::solver::primal::{tree_cholesky, tree_cholesky_solve, DOF_MAX, NO_PARENT};
use crate::solver::reshape_zeroed;
use nalgebra::Matrix6xX;

/// What the robots' integration after the solve reads and writes: the generalized
/// state (advanced in place), the commands, and the link proxies at the
/// start-of-step `state` with the contact impulses as wrenches (`contact` =
/// impulse / h) and the applied `xfrc`.
pub(super) struct RobotStep<'a> {
    pub qpos: &'a mut [f64],
    pub qvel: &'a mut [f64],
    pub cmd: &'a [f64],
    pub state: &'a mut [BodyState],
    pub contact: &'a [Wrench],
    pub xfrc: &'a [Wrench],
}

/// Margin (rad or m) beyond `2 h |q̇|` within which a joint limit gets its row.
const LIMIT_MARGIN: f64 = 1e-3;

/// One block per moving robot: M = H(q) + diag(a) (CRBA plus the implicit diagonal
/// of the actuation/passive law), M⁻¹ dense, ν = q̇ and ν_f = q̇ + h q̈_free with
/// q̈_free = ABA(q, q̇, τ₀, f_ext = xfrc on the proxies, armature a). The link
/// proxies of the robot map to its block. `load.contact` must be zero here.
///
/// M⁻¹ is only read through rows (`M⁻¹ Jᵀ` of contact, limit and PEG rows): a
/// robot that can have none this step — no manifold of `set` touches one of its
/// links, no joint is within reach of a limit ([`near_limit`], the test of
/// [`limit_rows`]) and `rows_anywhere` (PEG's rows from the broad phase's
/// candidates) is false — gets its block without CRBA, LᵀL and M⁻¹ (its `minv`
/// stores nothing); ν⁺ = ν_f is then ABA's free motion.
///
/// `record`: the start-of-step torques, accelerations and sensors of this
/// contact-free evaluation; [`integrate_robots`] records again (by RNEA at the
/// step's q̈, lcp24) only the robots that rows act on.
///
/// # Lean blocks (lcp20)
/// With `lean` (the primal solver on the standard rows) a robot's block that
/// needs M⁻¹ is built lean when its `nv` fits the DoF-space solve
/// (`solver::primal::DOF_MAX`): M is stored and factored along the tree
/// (M = Lᵀ L in `LcpWorkspace::mfac`, the DoF parent array in `mpar`; lcp21:
/// was a dense L Lᵀ), and neither CRBA's sparse factor, M⁻¹, the rows'
/// M⁻¹ Jᵀ (`rows.rs`) nor W's off-diagonal blocks of its sides (`delassus`)
/// are built: the DoF-space solve reads M, applies M⁻¹ through L, and takes
/// only W's diagonal (its proximal term); ν⁺ = ν_f + M⁻¹ Gᵀ p through L
/// (`velocity_after`). An island that goes to another solver after all (too
/// large, unconverged) gets the rest built first (`solve::complete_lean`). A
/// failed dense factorization builds the block as before.
///
/// # ν_f by M's factor (lcp23)
/// A robot whose block will be lean (`lean_ok`, it needs M⁻¹, `nv` ≤
/// `DOF_MAX`; `LcpWorkspace::rnea_free`) gets no contact-free ABA: its loads
/// (`robots::loads_of`), then q̈_free = M⁻¹(τ₀ − c) with c = RNEA(q, q̇, 0,
/// f_ext) and M's tree factor ([`free_by_factor`]; the same q̈ to round-off,
/// without ABA's articulated inertias). It records nothing here:
/// [`integrate_robots`] records it after the solve in any case. If its
/// block is not lean after all (the tree factor failed) or the RNEA fails,
/// ABA runs as for the other robots.
pub(super) fn robot_blocks(
    model: &Model,
    h: f64,
    robots: &mut [RobotData],
    load: &RobotLoad<'_>,
    (set, rows_anywhere, lean_ok): (&ContactSet, bool, bool),
    record: Record<'_>,
    ls: &mut LcpWorkspace,
) {
    let rs = load;
    ls.kq.resize(rs.q.len(), 0.0);
    ls.kv.resize(rs.v.len(), 0.0);
    if ls.jrob.len() != model.robots.len() {
        ls.jrob.clear();
        ls.jrob
            .extend(model.robots.iter().map(|r| Matrix6xX::zeros(r.nv())));
    }
    // The robots whose block will likely be lean (lcp23): their free
    // acceleration comes from M's factor and an RNEA below, not from ABA;
    // `integrate_robots` records them after the solve whether rows act on
    // them or not.
    ls.rnea_free.clear();
    for (ri, (r, rd)) in model.robots.iter().zip(robots.iter()).enumerate() {
        let nv = r.nv();
        let (qr, vr) = (
            &rs.q[r.q_offset..r.q_offset + r.nq()],
            &rs.v[r.v_offset..r.v_offset + nv],
        );
        ls.rnea_free.push(
            lean_ok
                && !rd.frozen
                && rd.implicit.is_none()
                && nv > 0
                && nv <= DOF_MAX
                && (rows_anywhere
                    || touches(model, ri, set)
                    || r.joints.iter().any(|j| near_limit(j, qr, vr, h))),
        );
    }
    let Record {
        actuator,
        passive,
        qacc,
    } = record;
    {
        let rf = &ls.rnea_free;
        robots::derivatives_of(
            model,
            h,
            robots,
            load,
            (&mut ls.kq, &mut ls.kv),
            Some(Record {
                actuator: &mut *actuator,
                passive: &mut *passive,
                qacc: &mut *qacc,
            }),
            |ri| !rf[ri],
        );
    }
    for (ri, (r, rd)) in model.robots.iter().zip(robots.iter_mut()).enumerate() {
        let nv = r.nv();
        let vs = r.v_offset..r.v_offset + nv;
        let rnea_free = ls.rnea_free[ri];
        if rd.frozen || nv == 0 || (!rnea_free && !ls.kv[vs.clone()].iter().all(|x| x.is_finite()))
        {
            continue;
        }
        let qr = &rs.q[r.q_offset..r.q_offset + r.nq()];
        let vr = &rs.v[vs.clone()];
        let needs_minv = rows_anywhere
            || touches(model, ri, set)
            || r.joints.iter().any(|j| near_limit(j, qr, vr, h));
        if rnea_free {
            // τ₀, a and the link forces (what ABA would read).
            robots::loads_of(r, rd, load, h, None);
        }
        let mut lean = false;
        // M's offset in `ls.mass` (and its factor's in `ls.mfac`) when stored.
        let at = ls.mass.len();
        if needs_minv {
            if crba(&r.tree, &mut rd.ad, qr).is_err() {
                continue;
            }
            for k in 0..nv {
                rd.ad.mass_matrix[(k, k)] += rd.armature[k];
            }
            // M symmetric, row-major, written once at its offset (lcp22: was
            // copied twice through nalgebra's indexing, the same sums).
            push_symmetric(rd.ad.mass_matrix.as_slice(), nv, &mut ls.mass);
            ls.mfac.resize(at, 0.0);
            if lean_ok && nv <= DOF_MAX {
                // Its factor M = Lᵀ L along the tree, in place at the same
                // offset (lean: nothing else; lcp21, was a dense L Lᵀ): the DoF
                // parent array at the block's offset in ν.
                ls.mfac.extend_from_slice(&ls.mass[at..]);
                let off = ls.nu.len();
                ls.mpar.resize(off, NO_PARENT);
                ls.mpar.extend(
                    r.tree
                        .dof_parent()
                        .iter()
                        .map(|p| p.map_or(NO_PARENT, |p| p as u32)),
                );
                lean = ls.mpar.len() == off + nv
                    && crate::solver::primal::parent_array(&ls.mpar[off..], nv)
                    && ls.mfac[at..].iter().all(|x| x.is_finite())
                    && tree_cholesky(&mut ls.mfac[at..], nv, &ls.mpar[off..]);
            }
            if rnea_free && !(lean && free_by_factor(r, rd, (qr, vr), ls, at)) {
                // Not lean after all, or the RNEA failed: ABA as for the
                // other robots, recording.
                ls.rnea_free[ri] = false;
                let kq = ls.kq.get_mut(r.q_offset..r.q_offset + r.nq());
                let kv = &mut ls.kv[vs.clone()];
                let mut rec = Record {
                    actuator: &mut *actuator,
                    passive: &mut *passive,
                    qacc: &mut *qacc,
                };
                robots::derivatives_of_robot(r, rd, load, h, (kq, kv), Some(&mut rec));
                if !ls.kv[vs.clone()].iter().all(|x| x.is_finite()) {
                    ls.mass.truncate(at);
                    ls.mfac.truncate(at);
                    ls.mpar.truncate(ls.nu.len());
                    continue;
                }
            }
            if !lean {
                // The factor's place holds zeros.
                ls.mfac.truncate(at);
                ls.mfac.resize(at + nv * nv, 0.0);
                if factor_mass(&mut rd.ad).is_err() {
                    ls.mass.truncate(at);
                    ls.mfac.truncate(at);
                    continue;
                }
                reshape_zeroed(&mut ls.hinv, nv, nv);
                ls.hinv.fill_diagonal(1.0);
                if solve_mass_columns(&rd.ad, &mut ls.hinv).is_err()
                    || !ls.hinv.iter().all(|x| x.is_finite())
                {
                    ls.mass.truncate(at);
                    ls.mfac.truncate(at);
                    continue;
                }
            }
        }
        let bi = ls.blocks.len() as u32;
        ls.blocks.push(DofBlock {
            kind: DofKind::Articulated { robot: ri as u32 },
            offset: ls.nu.len(),
            ndof: nv,
            minv: ls.minv.len(),
            mass: if needs_minv { at } else { NO_MASS },
        });
        ls.lean.resize(bi as usize, false);
        ls.lean.push(lean);
        if needs_minv && !lean {
            for i in 0..nv {
                for j in 0..nv {
                    ls.minv.push(ls.hinv[(i, j)]);
                }
            }
        }
        for k in vs {
            ls.nu.push(rs.v[k]);
            ls.nu_f.push(rs.v[k] + h * ls.kv[k]);
        }
        for (i, b) in r.link_body.iter().enumerate() {
            if let (Some(b), true) = (*b, r.link_moves[i]) {
                ls.body_block[b] = bi;
            }
        }
    }
}

/// The free acceleration of a lean robot block (lcp23, primal only): q̈_f =
/// M⁻¹ (τ₀ − c) with c = RNEA(q, q̇, 0, f_ext) (gravity, the velocity
/// terms and the external link forces) and M = Lᵀ L the factor at `at` in
/// `ls.mfac` (its parent array at the block's offset in `ls.mpar`), into
/// `ls.kv` (and `ls.kq`); what `derivatives_of`'s ABA gives, to round-off,
/// without its articulated inertias. Reads `rd.tau`, `rd.f_ext` from
/// `robots::loads_of`. False when the RNEA fails or q̈_f is not finite.
fn free_by_factor(
    r: &crate::model::robot::RobotModel,
    rd: &mut RobotData,
    (qr, vr): (&[f64], &[f64]),
    ls: &mut LcpWorkspace,
    at: usize,
) -> bool {
    let nv = r.nv();
    let off = ls.nu.len();
    ls.qdd0.resize(nv.max(ls.qdd0.len()), 0.0);
    let ext = ExtInputs {
        f_ext: Some(&rd.f_ext),
        damping: None,
        armature: None,
    };
    if rnea(&r.tree, &mut rd.ad, qr, vr, &ls.qdd0[..nv], &ext).is_err() {
        return false;
    }
    let kv = &mut ls.kv[r.v_offset..r.v_offset + nv];
    for ((k, t), c) in kv.iter_mut().zip(&rd.tau).zip(rd.ad.tau.iter()) {
        *k = t - c;
    }
    tree_cholesky_solve(&ls.mfac[at..at + nv * nv], nv, &ls.mpar[off..off + nv], kv);
    if !kv.iter().all(|x| x.is_finite()) {
        return false;
    }
    if let Some(kq) = ls.kq.get_mut(r.q_offset..r.q_offset + r.nq()) {
        robots::configuration_rate(r, qr, vr, kq);
    }
    true
}

/// Appends the `n×n` matrix `m` (column-major, nalgebra's storage) to `out`
/// row-major and symmetrized, `0.5 (m_ij + m_ji)`.
fn push_symmetric(m: &[f64], n: usize, out: &mut Vec<f64>) {
    if m.len() != n * n {
        out.resize(out.len() + n * n, f64::NAN);
        return;
    }
    for (i, col) in m.chunks_exact(n).enumerate() {
        // Row i: m_ij at m[i + j n], m_ji = col[j] (column i).
        out.extend(
            col.iter()
                .zip(m[i..].iter().step_by(n))
                .map(|(&mji, &mij)| 0.5 * (mij + mji)),
        );
    }
}

/// Whether a manifold of `set` has a link of robot `ri` on either side (its rows
/// would reference the robot's block).
fn touches(model: &Model, ri: usize, set: &ContactSet) -> bool {
    let of_robot = |g: usize| {
        matches!(
            model.bodies[model.geoms[g].body].kind,
            BodyKind::Link { robot, .. } if robot as usize == ri
        )
    };
    set.manifolds
        .iter()
        .any(|m| of_robot(m.geom_a) || of_robot(m.geom_b))
}

/// Whether joint `j` (of a robot with configuration `q`, velocities `v`) gets a
/// limit row this step: within `LIMIT_MARGIN + 2 h |q̇|` of either limit.
fn near_limit(j: &RobotJoint, q: &[f64], v: &[f64], h: f64) -> bool {
    let (qj, vj) = (q[j.qi], v[j.vi]);
    let reach = LIMIT_MARGIN + 2.0 * h * vj.abs();
    [qj - j.lower, j.upper - qj]
        .iter()
        .any(|gap| gap.partial_cmp(&reach) == Some(std::cmp::Ordering::Less))
}

/// One-sided joint-limit rows (module doc, "Robots"): for each one-DoF joint within
/// `LIMIT_MARGIN + 2 h |q̇|` of a limit, a row ±e_k on its coordinate (+ at the
/// lower limit: the gap rate is q̇), frictionless (μ = 0; no tangent rows: two
/// decoupled placeholder variables, see `delassus`).
pub(super) fn limit_rows(
    model: &Model,
    robots: &[RobotData],
    q: &[f64],
    v: &[f64],
    h: f64,
    ls: &mut LcpWorkspace,
) {
    for (bi, block) in ls.blocks.iter().enumerate() {
        let DofKind::Articulated { robot } = block.kind else {
            continue;
        };
        let ri = robot as usize;
        let r = &model.robots[ri];
        if robots[ri].frozen {
            continue;
        }
        let nd = block.ndof;
        let (qr, vr) = (
            &q[r.q_offset..r.q_offset + r.nq()],
            &v[r.v_offset..r.v_offset + r.nv()],
        );
        for j in r.joints.iter().filter(|j| near_limit(j, qr, vr, h)) {
            let (qj, vj) = (qr[j.qi], vr[j.vi]);
            let reach = LIMIT_MARGIN + 2.0 * h * vj.abs();
            for (gap, sign) in [(qj - j.lower, 1.0), (j.upper - qj, -1.0)] {
                if gap.partial_cmp(&reach) != Some(std::cmp::Ordering::Less) {
                    continue;
                }
                let off = ls.jac.len();
                ls.jac.resize(off + 3 * nd, 0.0);
                ls.minv_jt.resize(off + 3 * nd, 0.0);
                // Only the normal row: the tangent rows stay zero (see `delassus`).
                ls.jac[off + j.vi] = sign;
                if !ls.lean.get(bi).copied().unwrap_or(false) {
                    for i in 0..nd {
                        ls.minv_jt[off + i] = sign * ls.minv[block.minv + i * nd + j.vi];
                    }
                }
                for x in &mut ls.minv_jt[off + nd..off + 3 * nd] {
                    *x = 0.0;
                }
                ls.contacts.push(ContactRow {
                    pair: NO_PAIR,
                    slot: 0,
                    p: Vec3::zeros(),
                    pf: Vec3::zeros(),
                    n: Vec3::zeros(),
                    t1: Vec3::zeros(),
                    t2: Vec3::zeros(),
                    mu: 0.0,
                    depth: -gap,
                    restitution: 0.0,
                    bodies: [0, 0],
                    side: [
                        Side {
                            block: bi as u32,
                            jac: off,
                        },
                        Side {
                            block: NO_BLOCK,
                            jac: 0,
                        },
                    ],
                    limit: true,
                });
            }
        }
    }
}

/// After the solve: records the start-of-step torques, accelerations and sensors
/// at the step's motion q̈ = (ν⁺ − ν)/h (lcp24, `robots::records_at`: RNEA at
/// that q̈ with the contact impulses as wrenches, `contact` = impulse / h; every
/// constraint impulse, contact and joint limit, is in q̈, so the IMUs and F/T
/// sensors read the motion the step took; the limit impulses are added to the
/// passive torques); q̇ ← ν⁺, q ← q ⊕ h ν⁺ (SE(3) exponential for a floating
/// base), normalized; the link proxies at the new state. A moving robot without a
/// block (a failed CRBA/factorization) gets NaN velocities for the quarantine.
pub(super) fn integrate_robots(
    model: &Model,
    h: f64,
    robots: &mut [RobotData],
    step: RobotStep<'_>,
    rec: Record<'_>,
    ls: &mut LcpWorkspace,
) {
    let RobotStep {
        qpos,
        qvel,
        cmd,
        state,
        contact,
        xfrc,
    } = step;
    let Record {
        actuator,
        passive,
        qacc,
    } = rec;
    for (ri, (r, rd)) in model.robots.iter().zip(robots.iter_mut()).enumerate() {
        if rd.frozen {
            continue;
        }
        let vs = r.v_offset..r.v_offset + r.nv();
        let Some(blk) = ls
            .blocks
            .iter()
            .find(|b| b.kind == DofKind::Articulated { robot: ri as u32 })
        else {
            qvel[vs].fill(f64::NAN);
            continue;
        };
        let nu = &ls.nu_next[blk.offset..blk.offset + blk.ndof];
        // A robot no row acts on had ν⁺ = ν_f and no contact wrench: the
        // evaluation of `robot_blocks` (same q, q̇, τ, f_ext) recorded it; only
        // the implicit parts move to the actual q̈. One whose free acceleration
        // came from M's factor (lcp23) has no records yet: recorded here.
        let acted_on = ls.rnea_free.get(ri).copied().unwrap_or(false)
            || ls.contacts.iter().any(|c| {
                c.side.iter().any(|s| {
                    ls.blocks.get(s.block as usize).map(|b| b.kind)
                        == Some(DofKind::Articulated { robot: ri as u32 })
                })
            });
        if acted_on {
            ls.qdd_step.clear();
            ls.qdd_step
                .extend(nu.iter().zip(&qvel[vs.clone()]).map(|(n, v)| (n - v) / h));
            let load = RobotLoad {
                q: qpos,
                v: qvel,
                cmd,
                state,
                contact,
                xfrc,
            };
            let mut rec = Record {
                actuator: &mut *actuator,
                passive: &mut *passive,
                qacc: &mut *qacc,
            };
            robots::records_at(r, rd, &load, h, &ls.qdd_step, &mut rec);
        } else {
            // The implicit parts at the actual q̈ = (ν⁺ − ν)/h.
            for (i, k) in vs.clone().enumerate() {
                let qdd = (nu[i] - qvel[k]) / h;
                let d = ls.kv[k] - qdd;
                actuator[k] += rd.arm_act[i] * d;
                passive[k] += (rd.armature[i] - rd.arm_act[i]) * d;
                qacc[k] = qdd;
            }
        }
        qvel[vs].copy_from_slice(nu);
    }
    // Joint-limit impulses as passive torques.
    for (c, row) in ls.contacts.iter().enumerate().filter(|(_, r)| r.limit) {
        let blk = ls.blocks[row.side[0].block as usize];
        let DofKind::Articulated { robot } = blk.kind else {
            continue;
        };
        let off = model.robots[robot as usize].v_offset;
        let jn = &ls.jac[row.side[0].jac..row.side[0].jac + blk.ndof];
        for (i, x) in jn.iter().enumerate() {
            passive[off + i] += x * ls.impulse[3 * c] / h;
        }
    }
    // q⁺ = q ⊕ h ν⁺_m, normalized (ν⁺_m: the ν⁺ of the stabilized problem; q̇⁺
    // is the kept ν⁺, module doc of `lcp`, "Stabilization").
    ls.q_new.resize(qpos.len(), 0.0);
    ls.v_move.resize(qvel.len(), 0.0);
    for (ri, (r, rd)) in model.robots.iter().zip(robots.iter()).enumerate() {
        if rd.frozen {
            continue;
        }
        let qs = r.q_offset..r.q_offset + r.nq();
        let vs = r.v_offset..r.v_offset + r.nv();
        let v_move = &mut ls.v_move[vs.clone()];
        v_move.copy_from_slice(&qvel[vs]);
        if let Some(blk) = ls
            .blocks
            .iter()
            .find(|b| b.kind == DofKind::Articulated { robot: ri as u32 })
        {
            v_move.copy_from_slice(&ls.nu_move[blk.offset..blk.offset + blk.ndof]);
        }
        let out = &mut ls.q_new[qs.clone()];
        if crate::dynamics::integrate(&r.tree, &qpos[qs.clone()], v_move, h, out).is_err()
            || crate::dynamics::normalize(&r.tree, out).is_err()
        {
            out.fill(f64::NAN);
        }
        qpos[qs.clone()].copy_from_slice(&ls.q_new[qs]);
    }
    link_states(model, robots, qpos, qvel, state);
}
