//! Sphere against capsule: the capsule's closest axis point makes it a ball.

use super::{sphere_sphere::ball_ball, Work};
use crate::collision::hull::closest_on_segment;
use crate::collision::{ContactPoint, Shape};
use crate::math::{Pose, Vec3};

/// `sa` = sphere, `sb` = capsule. Exactly sphere–sphere against the ball of the
/// capsule's radius centred at the axis point nearest the sphere centre.
pub(crate) fn collide(
    sa: &Shape,
    xa: &Pose,
    sb: &Shape,
    xb: &Pose,
    _work: &mut Work,
    out: &mut Vec<ContactPoint>,
) -> Option<Vec3> {
    let (
        Shape::Sphere { radius: ra },
        Shape::Capsule {
            radius: rb,
            half_length: hl,
        },
    ) = (sa, sb)
    else {
        return None;
    };
    let ca = xa.translation.vector;
    let u = xb.rotation * Vec3::z();
    let c = xb.translation.vector;
    let q = closest_on_segment(&(c - u * *hl), &(c + u * *hl), &ca);
    ball_ball(&ca, *ra, &q, *rb, out)
}
