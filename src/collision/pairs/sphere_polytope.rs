//! Sphere against box or convex polytope: closest feature.

use super::{sphere_cap, to_local, to_world, Work, INSIDE_TOL};
use crate::collision::{ContactPoint, ConvexPolytope, Shape};
use crate::math::{Pose, Vec3};

/// `sa` = sphere, `sb` = box or polytope. With q the closest surface point of the
/// polytope to the centre c and sd the signed distance (< 0 when c is inside, then
/// q is on the nearest face): normal = outward direction at q (the face normal or
/// (c − q)/|c − q|), depth of the deepest point r − sd, contact plane through q
/// perpendicular to the normal; ring points are kept only inside the polytope.
pub(crate) fn collide(
    sa: &Shape,
    xa: &Pose,
    sb: &Shape,
    xb: &Pose,
    _work: &mut Work,
    out: &mut Vec<ContactPoint>,
) -> Option<Vec3> {
    let Shape::Sphere { radius: r } = sa else {
        return None;
    };
    let poly: &ConvexPolytope = match sb {
        Shape::Box { poly, .. } => poly,
        Shape::Polytope(p) => p,
        _ => return None,
    };
    let c = xa.translation.vector;
    let (q, sd, n_l) = poly.closest_point(&to_local(xb, &c));
    if sd >= *r {
        return None;
    }
    let n = xb.rotation * n_l;
    let plane_d = n.dot(&to_world(xb, &q));
    let tol = INSIDE_TOL * (r + poly.radius);
    let keep = |p: &Vec3| poly.contains(&to_local(xb, p), tol);
    sphere_cap(&c, *r, (&n, plane_d), sd / r, keep, true, out);
    Some(n)
}
