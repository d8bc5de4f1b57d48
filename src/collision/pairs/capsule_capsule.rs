//! Capsule against capsule: segment–segment closest points.

use super::{segment_segment, Work};
use crate::collision::hull::closest_on_segment;
use crate::collision::{ContactPoint, Shape};
use crate::math::{tangent_basis, Pose, Vec3};

/// `sa`, `sb` = capsules. With pa, pb the closest axis points (distance d):
/// normal (pa − pb)/d toward a, contact plane = b's tangent plane
/// `n·x = n·pb + rb`, deepest point pa − ra n with depth ra + rb − d. Nearly
/// parallel axes (|ua × ub| < 1e-6) get the two ends of their overlap instead, so
/// two capsules lying side by side are supported at both ends with equal depths.
pub(crate) fn collide(
    sa: &Shape,
    xa: &Pose,
    sb: &Shape,
    xb: &Pose,
    _work: &mut Work,
    out: &mut Vec<ContactPoint>,
) -> Option<Vec3> {
    let (
        Shape::Capsule {
            radius: ra,
            half_length: ha,
        },
        Shape::Capsule {
            radius: rb,
            half_length: hb,
        },
    ) = (sa, sb)
    else {
        return None;
    };
    let (ra, rb) = (*ra, *rb);
    let (ua, ub) = (xa.rotation * Vec3::z(), xb.rotation * Vec3::z());
    let (ca, cb) = (xa.translation.vector, xb.translation.vector);
    let (a0, a1) = (ca - ua * *ha, ca + ua * *ha);
    let (b0, b1) = (cb - ub * *hb, cb + ub * *hb);
    let (s, t) = segment_segment(&a0, &a1, &b0, &b1);
    let pa = a0 + (a1 - a0) * s;
    let pb = b0 + (b1 - b0) * t;
    let dv = pa - pb;
    let d = dv.norm();
    if d >= ra + rb {
        return None;
    }
    let n = if d > 1e-12 * (ra + rb) {
        dv / d
    } else {
        // Axes meet: separate along their common normal, oriented centre to centre.
        let c = ua.cross(&ub);
        let m = if c.norm() > 1e-9 {
            c.normalize()
        } else {
            tangent_basis(&ua).0
        };
        if m.dot(&(ca - cb)) < 0.0 {
            -m
        } else {
            m
        }
    };
    let plane_d = n.dot(&pb) + rb;
    let parallel = *ha > 0.0 && *hb > 0.0 && ua.cross(&ub).norm() < 1e-6;
    if parallel {
        // Overlap of b's projection on a's axis, in a's parameter.
        let l2 = (a1 - a0).norm_squared();
        let sb0 = (b0 - a0).dot(&(a1 - a0)) / l2;
        let sb1 = (b1 - a0).dot(&(a1 - a0)) / l2;
        let lo = sb0.min(sb1).max(0.0);
        let hi = sb0.max(sb1).min(1.0);
        if hi - lo > 1e-9 {
            let start = out.len();
            for sp in [lo, hi] {
                let p = a0 + (a1 - a0) * sp;
                let q = closest_on_segment(&b0, &b1, &p);
                if (p - q).norm() < ra + rb {
                    let x = p - n * ra;
                    out.push(ContactPoint::at(x, (plane_d - n.dot(&x)).max(0.0)));
                }
            }
            if out.len() > start {
                return Some(n);
            }
        }
    }
    // Deepest point of a inside b: pa − t n with t ≤ d + rb (b deep inside a).
    let x = pa - n * ra.min(d + rb);
    out.push(ContactPoint::at(x, (plane_d - n.dot(&x)).max(0.0)));
    Some(n)
}
