//! Plane (half-space z ≤ 0 of its geom frame) against cylinder (exact rims).

use super::Work;
use crate::collision::{ContactPoint, Shape};
use crate::math::{tangent_basis, Pose, Vec3};

/// Samples on each end-cap rim, the first one at the rim's lowest point.
pub(crate) const RIM_SAMPLES: usize = 8;

/// `sa` = plane, `sb` = cylinder. Points below the surface among: [`RIM_SAMPLES`]
/// points of each end-cap rim, starting at the rim's lowest point and spaced
/// symmetrically about it; each cap centre; and the side's bottom line at
/// t = ¼, ½, ¾. A cylinder standing on its base gives its rim ring and centre (all
/// equally deep, zero moment), a lying cylinder its bottom line, a tilted one the
/// rim arc around its lowest point. Depths are measured to the plane surface.
/// Normal toward the plane: −n.
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
        Shape::Cylinder {
            radius: r,
            half_length: hl,
        },
    ) = (sa, sb)
    else {
        return None;
    };
    let n = xa.rotation * Vec3::z();
    let plane_d = n.dot(&xa.translation.vector);
    let cyl = (xb.translation.vector, xb.rotation * Vec3::z(), *r, *hl);
    cylinder_points(cyl, (&n, plane_d), |_| true, out).then_some(-n)
}

/// The points of a cylinder (centre `c`, unit axis `u`, radius `r`, half length
/// `hl`) below the plane `n·x = plane_d` (`n` unit, pointing toward the
/// cylinder) that pass `keep`: [`RIM_SAMPLES`] points of each end-cap rim,
/// starting at the rim's lowest point and spaced symmetrically about it; each cap
/// centre; and the side's bottom line at t = ¼, ½, ¾. Depths are measured to the
/// plane. Returns whether any point was appended (`false` also when the lowest
/// point of the cylinder is above the plane).
pub(crate) fn cylinder_points(
    (c, u, r, hl): (Vec3, Vec3, f64, f64),
    (n, plane_d): (&Vec3, f64),
    keep: impl Fn(&Vec3) -> bool,
    out: &mut Vec<ContactPoint>,
) -> bool {
    let n = *n;
    // In-cap direction w toward the lowest rim point, and v = u × w.
    let nu = n.dot(&u);
    let wv = n - u * nu;
    let wl = wv.norm();
    let (w, v) = if wl > 1e-9 {
        let w = -wv / wl;
        (w, u.cross(&w))
    } else {
        tangent_basis(&u)
    };
    // Quick reject: the lowest point of the cylinder.
    let lowest = -r * wl - hl * nu.abs();
    if n.dot(&c) - plane_d + lowest >= 0.0 {
        return false;
    }
    let start = out.len();
    let mut push = |p: Vec3| {
        let depth = plane_d - n.dot(&p);
        if depth > 0.0 && keep(&p) {
            out.push(ContactPoint::at(p, depth));
        }
    };
    for s in [-1.0, 1.0] {
        let cc = c + u * (hl * s);
        for k in 0..RIM_SAMPLES {
            let th = std::f64::consts::TAU * k as f64 / RIM_SAMPLES as f64;
            let (st, ct) = th.sin_cos();
            push(cc + (w * ct + v * st) * r);
        }
        push(cc);
    }
    let (b0, b1) = (c - u * hl + w * r, c + u * hl + w * r);
    for t in [0.25, 0.5, 0.75] {
        push(b0 + (b1 - b0) * t);
    }
    out.len() > start
}
