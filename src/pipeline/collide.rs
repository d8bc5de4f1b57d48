//! Collision stages shared by the steppers: geom kinematics, broad phase with the
//! persistent pair memory, and the narrow phase over the candidate pairs.

use crate::collision::{collide_pair, Aabb, BroadPhase, ContactSet, NarrowScratch};
use crate::data::{BodyState, PairState, RobotData, Scratch, Stage, StepStats};
use crate::math::Pose;
use crate::model::Model;
use std::time::Instant;

/// World pose of every geom: x_wg = x_wb · x_bg.
pub fn geom_poses(model: &Model, state: &[BodyState], out: &mut Vec<Pose>) {
    out.clear();
    out.extend(model.geoms.iter().map(|g| state[g.body].pose() * g.x_bg));
}

/// Broad phase: AABBs grown by the distance each body can travel in one step (so
/// the candidate list also serves the integrator's intermediate stages), overlapping
/// pairs, and the pair memory carried over for pairs that stay candidates.
#[allow(clippy::too_many_arguments)]
pub fn broad_phase(
    model: &Model,
    state: &[BodyState],
    poses: &[Pose],
    aabbs: &mut Vec<Aabb>,
    broad: &mut BroadPhase,
    candidates: &mut Vec<(u32, u32)>,
    pairs: &mut Vec<PairState>,
    pairs_next: &mut Vec<PairState>,
) {
    let h = model.opt.dt;
    aabbs.clear();
    aabbs.extend(model.geoms.iter().zip(poses).map(|(g, x)| {
        let s = &state[g.body];
        let size = g.shape.size();
        let reach = if size.is_finite() {
            2.0 * h * (s.v.norm() + s.w.norm() * (size + g.x_bg.translation.vector.norm()))
        } else {
            0.0
        };
        g.shape.aabb(x).inflated(reach + 1e-6)
    }));
    broad.find_pairs(aabbs, |a, b| model.geoms_may_collide(a, b), candidates);
    // Merge: keep the memory of pairs still present (both lists are sorted).
    pairs_next.clear();
    let mut k = 0;
    for &(a, b) in candidates.iter() {
        while k < pairs.len() && (pairs[k].geom_a, pairs[k].geom_b) < (a, b) {
            k += 1;
        }
        if k < pairs.len() && (pairs[k].geom_a, pairs[k].geom_b) == (a, b) {
            pairs_next.push(pairs[k]);
        } else {
            pairs_next.push(PairState::new(a, b));
        }
    }
    std::mem::swap(pairs, pairs_next);
}

/// Narrow phase over the candidate pairs; `out_pair[m]` is the candidate index of
/// manifold `m`.
pub fn narrow_phase(
    model: &Model,
    poses: &[Pose],
    candidates: &[(u32, u32)],
    scratch: &mut NarrowScratch,
    out: &mut ContactSet,
    out_pair: &mut Vec<usize>,
) {
    out.clear();
    out_pair.clear();
    for (i, &(a, b)) in candidates.iter().enumerate() {
        let (a, b) = (a as usize, b as usize);
        let (ga, gb) = (&model.geoms[a], &model.geoms[b]);
        if collide_pair(
            a, &ga.shape, &poses[a], b, &gb.shape, &poses[b], scratch, out,
        ) {
            out_pair.push(i);
        }
    }
}

/// The opening every stepper shares, each stage timed on one clock: kinematics
/// (robot links from (q, q̇), then the geoms' world poses) and the broad phase with
/// the pair memory. Returns the instant the broad phase ended.
#[allow(clippy::too_many_arguments)]
pub(crate) fn begin_step(
    model: &Model,
    robots: &mut [RobotData],
    q: &[f64],
    v: &[f64],
    state: &mut [BodyState],
    pairs: &mut Vec<PairState>,
    s: &mut Scratch,
    stats: &mut StepStats,
) -> Instant {
    let t = Instant::now();
    super::robots::link_states(model, robots, q, v, state);
    geom_poses(model, state, &mut s.geom_pose);
    let t = super::lap(stats, Stage::Kinematics, t);
    broad_phase(
        model,
        state,
        &s.geom_pose,
        &mut s.aabbs,
        &mut s.broad,
        &mut s.candidates,
        pairs,
        &mut s.pairs_next,
    );
    super::lap(stats, Stage::BroadPhase, t)
}

/// The narrow phase at the start-of-step state over the step's candidates, timed
/// from `t`; returns the instant it ended.
pub(crate) fn start_contacts(
    model: &Model,
    s: &mut Scratch,
    contacts: &mut ContactSet,
    contact_pair: &mut Vec<usize>,
    stats: &mut StepStats,
    t: Instant,
) -> Instant {
    narrow_phase(
        model,
        &s.geom_pose,
        &s.candidates,
        &mut s.narrow,
        contacts,
        contact_pair,
    );
    super::lap(stats, Stage::NarrowPhase, t)
}
