//! Plane (half-space z ≤ 0 of its geom frame) against sphere: exact spherical cap.

use super::{sphere_cap, Work};
use crate::collision::{ContactPoint, Shape};
use crate::math::{Pose, Vec3};

/// `sa` = plane, `sb` = sphere. Points: the sphere's lowest point (depth
/// δ = r − h, h = height of the centre) and a ring at half the rim angle, depths
/// measured to the plane surface (the contact plane). Normal toward the plane: −n.
pub(crate) fn collide(
    sa: &Shape,
    xa: &Pose,
    sb: &Shape,
    xb: &Pose,
    _work: &mut Work,
    out: &mut Vec<ContactPoint>,
) -> Option<Vec3> {
    let (Shape::Plane, Shape::Sphere { radius: r }) = (sa, sb) else {
        return None;
    };
    let n = xa.rotation * Vec3::z();
    let o = xa.translation.vector;
    let c = xb.translation.vector;
    let h = n.dot(&(c - o));
    if h >= *r {
        return None;
    }
    sphere_cap(&c, *r, (&n, n.dot(&o)), h / r, |_| true, true, out);
    Some(-n)
}
