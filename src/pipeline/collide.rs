//! The collision stages of the step: geom kinematics, the broad phase with the
//! persistent pair memory, and the narrow phase over the candidate pairs; their
//! working memory is [`CollideWorkspace`], owned by the [`super::Pipeline`].

use crate::collision::capacity::{NARROW_POINTS, PAIRS_PER_GEOM};
use crate::collision::{collide_pair, Aabb, BroadPhase, ContactSet, NarrowScratch};
use crate::data::{BodyState, PairState};
use crate::math::Pose;
use crate::model::Model;

/// Working memory of the collision stages (not part of the state).
#[derive(Clone, Debug, Default)]
pub struct CollideWorkspace {
    /// World pose of every geom at the state last posed.
    pub geom_pose: Vec<Pose>,
    pub aabbs: Vec<Aabb>,
    pub broad: BroadPhase,
    /// Broad-phase candidate pairs of the step (sorted; they serve every
    /// intermediate state of the step: the boxes are grown by one step of motion).
    pub candidates: Vec<(u32, u32)>,
    pub pairs_next: Vec<PairState>,
    pub narrow: NarrowScratch,
}

impl CollideWorkspace {
    pub fn new(model: &Model) -> Self {
        CollideWorkspace {
            geom_pose: vec![Pose::identity(); model.ngeom()],
            aabbs: Vec::with_capacity(model.ngeom()),
            candidates: Vec::with_capacity(PAIRS_PER_GEOM * model.ngeom()),
            pairs_next: Vec::with_capacity(PAIRS_PER_GEOM * model.ngeom()),
            narrow: NarrowScratch::with_capacity(NARROW_POINTS),
            ..Default::default()
        }
    }

    /// World pose of every geom at `state`: x_wg = x_wb · x_bg.
    pub fn pose_geoms(&mut self, model: &Model, state: &[BodyState]) {
        geom_poses(model, state, &mut self.geom_pose);
    }

    /// Narrow phase over the step's candidates at the geoms' current poses;
    /// `out_pair[m]` is the candidate (= pair) index of manifold `m`.
    pub fn narrow_phase(&mut self, model: &Model, out: &mut ContactSet, out_pair: &mut Vec<usize>) {
        narrow_phase(
            model,
            &self.geom_pose,
            &self.candidates,
            &mut self.narrow,
            out,
            out_pair,
        );
    }
}

/// World pose of every geom: x_wg = x_wb · x_bg.
pub fn geom_poses(model: &Model, state: &[BodyState], out: &mut Vec<Pose>) {
    out.clear();
    out.extend(model.geoms.iter().map(|g| state[g.body].pose() * g.x_bg));
}

/// Broad phase over a step of `h`: AABBs grown by the distance each body can
/// travel in one step (so the candidate list also serves the integrator's
/// intermediate stages), overlapping pairs, and the pair memory carried over for
/// pairs that stay candidates.
pub fn broad_phase(
    model: &Model,
    h: f64,
    state: &[BodyState],
    ws: &mut CollideWorkspace,
    pairs: &mut Vec<PairState>,
) {
    let CollideWorkspace {
        geom_pose: poses,
        aabbs,
        broad,
        candidates,
        pairs_next,
        ..
    } = ws;
    aabbs.clear();
    aabbs.extend(model.geoms.iter().zip(poses.iter()).map(|(g, x)| {
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
