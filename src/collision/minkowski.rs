//! Exact (translational) Minkowski penetration depth of two convex polytopes: eq. (1)
//! of `001_9bcff55255600a8e.txt`, `PD(P1, P2) = min{ ‖d‖ | interior(P1 + d) ∩ P2 = ∅ }`.
//!
//! # Method
//! The Minkowski difference `M = P1 ⊖ P2 = { p1 − p2 }` is the convex hull of the
//! pairwise vertex differences (quickhull, [`ConvexPolytope::from_points`]). Moving P1
//! by `d` moves `M` by `d`, and the interiors are disjoint exactly when the origin is
//! not inside `M + d`, so
//! - origin inside `M`: `PD` = the distance from the origin to the boundary of `M` =
//!   `min_f (h_f − n_fᵀ0) = min_f h_f` over the faces `n_fᵀx = h_f` of `M`; moving
//!   P1 by `−PD·n` (`n` the minimizing face normal) brings them to touching;
//! - origin outside `M`: the bodies are separated, `PD = 0`, and the separation
//!   distance is the distance from the origin to `M` (closest point on the hull).
//!
//! The direction `n` always points from body 1 toward body 2: the outward normal of
//! `M` at the point nearest the origin. Cost `O(V1·V2)` points into a quickhull
//! (allocates): a reference for tests and offline analysis, not for the physics loop.

use super::{ConvexPolytope, GeometryError};
use crate::math::{Pose, Vec3};

/// Depth or separation of one pair (world frame).
#[derive(Debug, Clone, PartialEq)]
pub struct MinkowskiDepth {
    /// Signed distance, m: `−PD` when the interiors overlap, the separation
    /// distance when they are disjoint (0 when touching).
    pub signed_distance: f64,
    /// Unit direction from body 1 toward body 2: P1 moved by `signed_distance · n`
    /// just touches P2.
    pub normal: Vec3,
    /// The point of `∂M` nearest the origin (`signed_distance·(−n)` away), m.
    pub nearest: Vec3,
    /// The Minkowski difference `P1 ⊖ P2` in world coordinates.
    pub difference: ConvexPolytope,
}

impl MinkowskiDepth {
    /// Penetration depth `PD ≥ 0` (eq. (1)); 0 when separated or touching.
    pub fn depth(&self) -> f64 {
        (-self.signed_distance).max(0.0)
    }

    /// Separation distance ≥ 0; 0 when overlapping or touching.
    pub fn separation(&self) -> f64 {
        self.signed_distance.max(0.0)
    }
}

/// Vertices of `poly` at pose `x_w` (world frame), m.
pub fn world_vertices(poly: &ConvexPolytope, x_w: &Pose) -> Vec<Vec3> {
    poly.vertices
        .iter()
        .map(|v| (x_w * nalgebra::Point3::from(*v)).coords)
        .collect()
}

/// `P1 ⊖ P2` (world frame) as a convex polytope.
pub fn minkowski_difference(
    p1: &ConvexPolytope,
    x_w1: &Pose,
    p2: &ConvexPolytope,
    x_w2: &Pose,
) -> Result<ConvexPolytope, GeometryError> {
    let v1 = world_vertices(p1, x_w1);
    let v2 = world_vertices(p2, x_w2);
    let mut diff = Vec::with_capacity(v1.len() * v2.len());
    for a in &v1 {
        for b in &v2 {
            diff.push(a - b);
        }
    }
    ConvexPolytope::from_points(&diff)
}

/// Exact penetration depth (or separation) of `p1` at `x_w1` and `p2` at `x_w2`.
pub fn penetration_depth(
    p1: &ConvexPolytope,
    x_w1: &Pose,
    p2: &ConvexPolytope,
    x_w2: &Pose,
) -> Result<MinkowskiDepth, GeometryError> {
    let difference = minkowski_difference(p1, x_w1, p2, x_w2)?;
    // closest_point(0) returns q, sd, n with 0 = q + sd·n: n is the outward normal of
    // M at q (inside: the nearest face's normal).
    let (nearest, sd, n) = difference.closest_point(&Vec3::zeros());
    // Outside, 0 − q = sd·n points away from M: the outward normal at q is n.
    Ok(MinkowskiDepth {
        signed_distance: sd,
        normal: n,
        nearest,
        difference,
    })
}
