//! Capsule against box, convex polytope, or cylinder (as its prism).

use super::box_box::{axis_faces, box_signed_distance};
use super::{as_polytope, clamp_inside, golden_min, to_local, to_world, Work, INSIDE_TOL};
use crate::collision::{ContactPoint, Shape};
use crate::math::{Pose, Vec3};

/// `sa` = capsule, `sb` = box, polytope or cylinder.
///
/// 1. The axis point s* of least signed distance sd to the polytope (sd is convex
///    along the axis: golden-section search, 60 rounds); no contact if sd ≥ r.
/// 2. Normal n = outward direction of the polytope at its closest point q to s*
///    (toward a); contact plane `n·x = n·q`.
/// 3. Points: the capsule's bottom line `s(t) − r n` clipped to the polytope
///    (Cyrus–Beck) at its two clip ends and three interior quarter points, plus
///    the deepest point s* − r n when the clipped line does not already reach its
///    depth. A capsule lying on a face gets symmetric, equally deep points.
pub(crate) fn collide(
    sa: &Shape,
    xa: &Pose,
    sb: &Shape,
    xb: &Pose,
    work: &mut Work,
    out: &mut Vec<ContactPoint>,
) -> Option<Vec3> {
    let Shape::Capsule {
        radius: r,
        half_length: hl,
    } = sa
    else {
        return None;
    };
    let r = *r;
    let poly = as_polytope(sb, &mut work.prisms[1])?;
    let u = xa.rotation * Vec3::z();
    let c = xa.translation.vector;
    // Bounding-sphere early-out.
    if (c - xb.translation.vector).norm() > r + *hl + poly.radius {
        return None;
    }
    let e0 = to_local(xb, &(c - u * *hl));
    let e1 = to_local(xb, &(c + u * *hl));
    let seg = e1 - e0;
    // A box's signed distance has a closed form (equal to the polytope's up to
    // rounding in edge and corner regions).
    let box_faces = match sb {
        Shape::Box { .. } => axis_faces(poly),
        _ => None,
    };
    let ts = match &box_faces {
        Some(f) => golden_min(|t| box_signed_distance(f, &(e0 + seg * t))),
        None => golden_min(|t| poly.closest_point(&(e0 + seg * t)).1),
    };
    let (q, sd, n_l) = poly.closest_point(&(e0 + seg * ts));
    if sd.is_nan() || sd >= r {
        return None;
    }
    let plane_d = n_l.dot(&q);
    let scale = r + *hl + poly.radius;
    let tol = INSIDE_TOL * scale;
    // Clip the bottom line L(t) = e0 + seg t − r n to the polytope.
    let l0 = e0 - n_l * r;
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for f in &poly.faces {
        let s0 = f.normal.dot(&l0) - f.offset;
        let s1 = s0 + f.normal.dot(&seg);
        if s0 > tol && s1 > tol {
            t0 = 1.0;
            t1 = 0.0;
            break;
        }
        if s0 > tol {
            t0 = t0.max(s0 / (s0 - s1));
        } else if s1 > tol {
            t1 = t1.min(s0 / (s0 - s1));
        }
    }
    let start = out.len();
    let depth_at = |t: f64| plane_d - n_l.dot(&(l0 + seg * t));
    let push = |t: f64, out: &mut Vec<ContactPoint>| {
        let depth = depth_at(t);
        if depth > 0.0 {
            out.push(ContactPoint::at(to_world(xb, &(l0 + seg * t)), depth));
        }
    };
    let clipped = t1 - t0 > 1e-9;
    let mut reach = f64::NEG_INFINITY;
    if clipped {
        for k in 0..5 {
            push(t0 + (t1 - t0) * (k as f64 / 4.0), out);
        }
        reach = depth_at(t0).max(depth_at(t1));
    } else if t1 >= t0 {
        push(t0, out);
        reach = depth_at(t0);
    }
    let ds = r - sd;
    if ds > reach + tol || out.len() == start {
        // The deepest capsule point, pulled back inside the polytope if the
        // penetration is deeper than the polytope is thick.
        let deep = e0 + seg * ts - n_l * r;
        let top = e0 + seg * ts - n_l * sd.max(0.0);
        let deep = clamp_inside(&top, &deep, |p| poly.contains(p, tol));
        out.push(ContactPoint::at(
            to_world(xb, &deep),
            (plane_d - n_l.dot(&deep)).max(0.0),
        ));
    }
    Some(xb.rotation * n_l)
}
