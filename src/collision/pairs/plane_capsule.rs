//! Plane (half-space z ≤ 0 of its geom frame) against capsule.

use super::{sphere_cap, Work};
use crate::collision::{ContactPoint, Shape};
use crate::math::{Pose, Vec3};

/// Samples along the capsule's bottom line (the segment offset by −r n).
const LINE_SAMPLES: usize = 5;

/// `sa` = plane, `sb` = capsule. Points: the bottom line sampled at
/// t = 0, ¼, ½, ¾, 1 of the axis where it is below the surface (a capsule lying
/// flat gets 5 equally deep, symmetric points), the point where the bottom line
/// crosses the surface (depth 0), and — when fewer than two samples penetrate (a
/// steep capsule) — a ring on the lower end cap as for a sphere. Depths are
/// measured to the plane surface. Normal toward the plane: −n.
pub(crate) fn collide(
    sa: &Shape,
    xa: &Pose,
    sb: &Shape,
    xb: &Pose,
    _work: &mut Work,
    out: &mut Vec<ContactPoint>,
) -> Option<Vec3> {
    let (
        Shape::Plane,
        Shape::Capsule {
            radius: r,
            half_length: hl,
        },
    ) = (sa, sb)
    else {
        return None;
    };
    let r = *r;
    let n = xa.rotation * Vec3::z();
    let o = xa.translation.vector;
    let plane_d = n.dot(&o);
    let u = xb.rotation * Vec3::z();
    let c = xb.translation.vector;
    let (e0, e1) = (c - u * *hl, c + u * *hl);
    let (h0, h1) = (n.dot(&e0) - plane_d, n.dot(&e1) - plane_d);
    if h0.min(h1) >= r {
        return None;
    }
    let start = out.len();
    let mut count = 0;
    for k in 0..LINE_SAMPLES {
        let t = k as f64 / (LINE_SAMPLES - 1) as f64;
        let depth = r - (h0 + (h1 - h0) * t);
        if depth > 0.0 {
            out.push(ContactPoint::at(e0 + (e1 - e0) * t - n * r, depth));
            count += 1;
        }
    }
    // Where the bottom line leaves the half-space (a point of the volume's rim).
    let (d0, d1) = (r - h0, r - h1);
    if (d0 > 0.0) != (d1 > 0.0) {
        let t = d0 / (d0 - d1);
        out.push(ContactPoint::at(e0 + (e1 - e0) * t - n * r, 0.0));
    }
    if count < 2 {
        // Steep capsule: ring around the lowest point of the lower hemisphere.
        let (e, h, u_out) = if h0 <= h1 { (e0, h0, -u) } else { (e1, h1, u) };
        sphere_cap(
            &e,
            r,
            (&n, plane_d),
            h / r,
            |p| (p - e).dot(&u_out) >= 0.0,
            false,
            out,
        );
    }
    (out.len() > start).then_some(-n)
}
