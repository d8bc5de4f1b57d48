//! Sphere against sphere: exact lens.

use super::{sphere_cap, Work};
use crate::collision::{ContactPoint, Shape};
use crate::math::{Pose, Vec3};

/// `sa`, `sb` = spheres. Normal along the centre difference toward a.
pub(crate) fn collide(
    sa: &Shape,
    xa: &Pose,
    sb: &Shape,
    xb: &Pose,
    _work: &mut Work,
    out: &mut Vec<ContactPoint>,
) -> Option<Vec3> {
    let (Shape::Sphere { radius: ra }, Shape::Sphere { radius: rb }) = (sa, sb) else {
        return None;
    };
    ball_ball(
        &xa.translation.vector,
        *ra,
        &xb.translation.vector,
        *rb,
        out,
    )
}

/// Ball `(ca, ra)` against ball `(cb, rb)`, m. Points lie on a's surface inside b:
/// a's deepest point (depth δ = ra + rb − |ca − cb|) and a ring halfway to the
/// circle where the spheres meet; the contact plane is b's tangent plane at its
/// point nearest a. Normal (ca − cb)/|ca − cb| toward a (+z if concentric).
pub(crate) fn ball_ball(
    ca: &Vec3,
    ra: f64,
    cb: &Vec3,
    rb: f64,
    out: &mut Vec<ContactPoint>,
) -> Option<Vec3> {
    let dv = ca - cb;
    let d = dv.norm();
    if d >= ra + rb {
        return None;
    }
    let n = if d > 0.0 { dv / d } else { Vec3::z() };
    let plane_d = n.dot(cb) + rb;
    // Distance from ca (toward b) of the plane of the circle where the spheres meet.
    let cos_rim = if d > 0.0 {
        (d * d + ra * ra - rb * rb) / (2.0 * d * ra)
    } else {
        1.0
    };
    // a's deepest point ca − t n is inside b for t ≤ d + rb (b deep inside a).
    let keep = |p: &Vec3| (p - cb).norm() <= rb * (1.0 + 1e-12);
    sphere_cap(ca, ra, (&n, plane_d), cos_rim, keep, true, out);
    Some(n)
}
