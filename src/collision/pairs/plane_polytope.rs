//! Plane (half-space z ≤ 0 of its geom frame) against a box or convex polytope.
//!
//! The intersection volume's vertices are the polytope vertices below the plane
//! (depth = distance below the surface) and the points where edges cross the
//! surface (depth 0). The normal is the plane's. A box costs 8 height evaluations
//! and 12 edge tests — no hull machinery.

use super::{to_world, Work};
use crate::collision::{ContactPoint, ConvexPolytope, Shape};
use crate::math::{Pose, Vec3};

/// `sa` = plane, `sb` = box or polytope. Normal toward the plane: −n.
pub(crate) fn collide(
    sa: &Shape,
    xa: &Pose,
    sb: &Shape,
    xb: &Pose,
    work: &mut Work,
    out: &mut Vec<ContactPoint>,
) -> Option<Vec3> {
    let poly: &ConvexPolytope = match sb {
        Shape::Box { poly, .. } => poly,
        Shape::Polytope(p) => p,
        _ => return None,
    };
    if !matches!(sa, Shape::Plane) {
        return None;
    }
    let n = xa.rotation * Vec3::z();
    // Heights in the polytope frame: h(v) = n_l·v − off_l.
    let n_l = xb.rotation.inverse() * n;
    let off_l = n.dot(&(xa.translation.vector - xb.translation.vector));
    let heights = &mut work.poly.heights;
    heights.clear();
    heights.extend(poly.vertices.iter().map(|v| n_l.dot(v) - off_l));
    // Quick reject through the support point: the lowest height (the rounded
    // difference is monotone in n_l·v, so this is min(n_l·v) − off_l to the bit;
    // NaN heights are skipped by `min` as before, and a NaN offset leaves +∞).
    let h_min = heights.iter().copied().fold(f64::INFINITY, f64::min);
    if h_min.is_nan() || h_min >= 0.0 {
        return None;
    }
    // Vertices below the surface.
    for (v, h) in poly.vertices.iter().zip(heights.iter()) {
        if *h < 0.0 {
            out.push(ContactPoint::at(to_world(xb, v), -*h));
        }
    }
    // Edges crossing the surface.
    for e in &poly.edges {
        let (h0, h1) = (heights[e.v[0]], heights[e.v[1]]);
        if (h0 < 0.0) != (h1 < 0.0) {
            let t = h0 / (h0 - h1);
            let (p, q) = (poly.vertices[e.v[0]], poly.vertices[e.v[1]]);
            let x = p + (q - p) * t;
            out.push(ContactPoint::at(to_world(xb, &x), 0.0));
        }
    }
    Some(-n)
}
