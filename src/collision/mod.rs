//! Geometry and collision: shapes, convex polytopes with adjacency, broad phase,
//! narrow-phase dispatch table and the per-pair contact manifolds every contact
//! model consumes.
//!
//! Conventions for a [`Manifold`] between geoms `a` and `b` (`a < b` as found by the
//! broad phase):
//! - `normal` is a world unit vector pointing *toward* `a` (away from `b`): the
//!   direction in which `a` must move to separate. In the notation of 000 §III-B,
//!   `a` is body *p* and `b` is body *q*.
//! - `points` are points of the intersection volume (vertices of the intersection
//!   polytope for polytope pairs, a sampled boundary for curved shapes), in world
//!   coordinates, each with its `depth` ≥ 0: the distance from the point to the
//!   *contact plane* (the plane of the facet that supplied the normal, eq. (4) of
//!   000), measured into the other body. The deepest point has the largest depth.
//! - The bottom-of-volume selection of 000 §III-A belongs to the contact model, not
//!   to collision: collision reports the whole intersection volume.
//! - Polytope pairs take the normal by the min–max facet rule, eq. (4) of
//!   000_48109ab67d5cd76d (`pairs/polytope_polytope.rs`); curved pairs report the
//!   deepest point plus a symmetric sample of the curved bottom (`pairs/mod.rs`
//!   lists each pair's method). Cylinders meet capsules and cylinders as a
//!   [`CYLINDER_SIDES`]-sided prism (radial error ≤ 0.43 % of the radius), boxes
//!   and hulls as the exact cylinder where it lies on one of their faces and as
//!   the prism elsewhere (`pairs/cylinder_polytope.rs`).

pub mod broadphase;
pub mod ccd;
pub mod features;
pub mod gjk;
pub mod hull;
pub mod mesh;
pub mod minkowski;
pub mod narrowphase;
pub mod overlap;
pub(crate) mod pairs;
pub mod polygon;
pub mod ratio_metric;
pub mod shape;
pub mod volume;

pub use broadphase::{Aabb, BroadPhase};
pub use hull::{ConvexPolytope, Edge, Face};
pub use narrowphase::{
    collide_pair, collide_pair_traced, collide_pair_within, pair_supported, Found, Margin,
    NarrowScratch, CYLINDER_SIDES,
};
pub use shape::{MassProperties, Shape, ShapeKind};

use crate::math::Vec3;
use std::ops::Range;

/// One point of the intersection volume.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint {
    /// World coordinates, m.
    pub p_w: Vec3,
    /// Distance to the contact plane along the normal, m: ≥ 0 into the other body;
    /// < 0 only for the gap points of a speculative margin (−depth = the gap ψ,
    /// [`narrowphase::collide_pair_within`]).
    pub depth: f64,
    /// The point the contact acts at, m, world: on the line of action of the
    /// point's normal force (along the manifold's normal through `lever`). Every
    /// method takes the point's rates (normal and tangential) here and applies its
    /// forces here (penalty, Hunt–Crossley, the LCP rows). `p_w` itself for a face,
    /// vertex or edge and for a point already below a centre line (a capsule's or a
    /// cylinder's bottom line); for the points of a round cap
    /// ([`pairs::sphere_cap`]: sphere pairs, a capsule's end cap) the cap's
    /// deepest point c − r n, on the line through the centre c along the normal:
    /// the rigid ball's contact. The cap's other points give the depth profile (the
    /// bottom selection, the force per point), not where the force acts: their
    /// material points move along n as the ball rolls (front points sink, back
    /// points rise) while their regenerated depths follow the centre, and a force
    /// at an offset point has a moment about the centre that brakes the roll
    /// (docs/EXPERIMENTS.md, "The ball that rolls").
    pub lever: Vec3,
}

impl ContactPoint {
    /// A point that acts where it is (`lever` = `p_w`).
    #[inline]
    pub fn at(p_w: Vec3, depth: f64) -> Self {
        ContactPoint {
            p_w,
            depth,
            lever: p_w,
        }
    }
}

/// The contact between two penetrating geoms at one instant (or, with a
/// speculative margin, two geoms closer than the margin: gap points).
#[derive(Clone, Debug, PartialEq)]
pub struct Manifold {
    pub geom_a: usize,
    pub geom_b: usize,
    /// Unit, world frame, pointing toward `geom_a` (away from `geom_b`).
    pub normal: Vec3,
    /// Range into [`ContactSet::points`].
    pub points: Range<usize>,
    /// Index into [`ContactSet::points`] of the deepest point.
    pub deepest: usize,
}

impl Manifold {
    pub fn max_depth(&self, set: &ContactSet) -> f64 {
        set.points[self.deepest].depth
    }
}

/// All manifolds found in one collision pass; buffers keep their capacity across
/// steps so a warmed-up pass does not allocate.
#[derive(Clone, Debug, Default)]
pub struct ContactSet {
    pub manifolds: Vec<Manifold>,
    pub points: Vec<ContactPoint>,
}

impl ContactSet {
    /// Room for `manifolds` manifolds and `points` points (no allocation below).
    pub fn with_capacity(manifolds: usize, points: usize) -> Self {
        ContactSet {
            manifolds: Vec::with_capacity(manifolds),
            points: Vec::with_capacity(points),
        }
    }

    pub fn clear(&mut self) {
        self.manifolds.clear();
        self.points.clear();
    }

    pub fn points_of(&self, m: &Manifold) -> &[ContactPoint] {
        &self.points[m.points.clone()]
    }
}

/// Errors raised while building shapes (at model build / scene load time only).
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum GeometryError {
    #[error("degenerate convex hull: {0}")]
    DegenerateHull(String),
    #[error("invalid shape parameter: {0}")]
    InvalidParameter(String),
    #[error("mesh file {path}: {reason}")]
    Mesh { path: String, reason: String },
}

/// What the contact buffers (the narrow phase's output in `Data`, the broad phase's
/// candidates, the steppers' workspaces) are sized for when a world is created, per
/// geom of the model; beyond these they grow by doubling (an allocation on that
/// tick only). Piles measure 3–6 candidate pairs, ≤ 2 touching manifolds and ≤ 12
/// raw points per geom.
pub mod capacity {
    /// Broad-phase candidate pairs (and pair memories) per geom.
    pub const PAIRS_PER_GEOM: usize = 8;
    /// Touching manifolds per geom.
    pub const MANIFOLDS_PER_GEOM: usize = 4;
    /// Raw narrow-phase contact points per geom.
    pub const POINTS_PER_GEOM: usize = 16;
    /// Points, vertices and face planes of one pair in the narrow phase's scratch.
    pub const NARROW_POINTS: usize = 256;
}
