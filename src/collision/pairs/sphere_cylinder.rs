//! Sphere against cylinder: exact closest point on the solid cylinder.

use super::{
    cylinder_closest, cylinder_contains, sphere_cap, to_local, to_world, Work, INSIDE_TOL,
};
use crate::collision::{ContactPoint, Shape};
use crate::math::{Pose, Vec3};

/// `sa` = sphere, `sb` = cylinder. As sphere–polytope with the exact closest point
/// of the solid cylinder (rim, side, cap or, inside, the nearest of side and cap).
pub(crate) fn collide(
    sa: &Shape,
    xa: &Pose,
    sb: &Shape,
    xb: &Pose,
    _work: &mut Work,
    out: &mut Vec<ContactPoint>,
) -> Option<Vec3> {
    let (
        Shape::Sphere { radius: r },
        Shape::Cylinder {
            radius: rc,
            half_length: hl,
        },
    ) = (sa, sb)
    else {
        return None;
    };
    let c = xa.translation.vector;
    let (q, sd, n_l) = cylinder_closest(*rc, *hl, &to_local(xb, &c));
    if sd >= *r {
        return None;
    }
    let n = xb.rotation * n_l;
    let plane_d = n.dot(&to_world(xb, &q));
    let tol = INSIDE_TOL * (r + rc + hl);
    let keep = |p: &Vec3| cylinder_contains(*rc, *hl, &to_local(xb, p), tol);
    sphere_cap(&c, *r, (&n, plane_d), sd / r, keep, true, out);
    Some(n)
}
