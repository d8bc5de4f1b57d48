//! Cylinder against box or convex polytope: the exact cylinder where it lies on
//! one of the polytope's faces, the prism elsewhere.
//!
//! The prism of [`CYLINDER_SIDES`] sides stands for the cylinder in the polytope
//! routine, and on a face it is a polygon: a cylinder lying on a box face rests
//! on one of its 24 side faces and must tip over an edge to roll. Placed on a
//! ramp made of a box (θ = 0.3 rad, μ = 0.8), a cylinder that rolls at 2/3 g sin θ
//! on a plane of the same slope stood still under penalty and Hunt–Crossley, and
//! rolled at 0.72 of the rate under LCP, drifting sideways.
//!
//! 1. The polytope's face axes against the exact cylinder: the depth of the
//!    cylinder below face f is d_f = o_f − (n_f·c − r √(1 − (n_f·u)²) − h |n_f·u|)
//!    (its lowest point along n_f). A face axis with d_f ≤ 0 separates the exact
//!    shapes: no contact (the prism's vertices lie outside the circle). The face
//!    of least d_f is the candidate contact face.
//! 2. The prism manifold (`polytope_polytope`), normal `n_p` toward the cylinder.
//! 3. **The face case**: no prism manifold (its side mid-lines lie inside the
//!    circle), or the prism's normal within the prism's angular step π/N of that
//!    face's normal (the prism's best axis is that face, or a side face of the
//!    prism lying on it). The points are then the exact cylinder's against the
//!    face plane ([`cylinder_points`]: rim samples, cap centres, the side's bottom
//!    line), kept where they lie inside the polytope, and the normal is the face's.
//!    Otherwise (an edge or a vertex of the polytope pressed into the cylinder, or
//!    no exact point over the face), the prism manifold is kept.

use super::plane_cylinder::cylinder_points;
use super::{as_polytope, polytope_polytope, to_local, Work, CYLINDER_SIDES, INSIDE_TOL};
use crate::collision::{ContactPoint, Shape};
use crate::math::{Pose, Vec3};

/// `sa` = cylinder, `sb` = box or polytope.
pub(crate) fn collide(
    sa: &Shape,
    xa: &Pose,
    sb: &Shape,
    xb: &Pose,
    work: &mut Work,
    out: &mut Vec<ContactPoint>,
) -> Option<Vec3> {
    let Shape::Cylinder {
        radius: r,
        half_length: hl,
    } = sa
    else {
        return None;
    };
    let (r, hl) = (*r, *hl);
    // The polytope's face axes against the exact cylinder, in b's frame.
    let (n_f, plane_d) = {
        let poly = as_polytope(sb, &mut work.prisms[1])?;
        let c = to_local(xb, &xa.translation.vector);
        let u = xb.rotation.inverse() * (xa.rotation * Vec3::z());
        let mut best: Option<(f64, usize)> = None;
        for (i, f) in poly.faces.iter().enumerate() {
            let nu = f.normal.dot(&u);
            let lowest = f.normal.dot(&c) - r * (1.0 - nu * nu).max(0.0).sqrt() - hl * nu.abs();
            let d = f.offset - lowest;
            if d <= 0.0 {
                // A face plane separates the exact cylinder from the polytope.
                return None;
            }
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, i));
            }
        }
        let (_, fi) = best?;
        let face = &poly.faces[fi];
        let n_f = xb.rotation * face.normal;
        (n_f, n_f.dot(&xb.translation.vector) + face.offset)
    };
    // The prism manifold; the face case when it is missing (the prism's side
    // mid-lines lie inside the circle: a cylinder less than 0.43 % of its radius
    // deep leaves the prism short of the face) or its normal is within the
    // prism's angular step of the face's.
    let start = out.len();
    let n_p = polytope_polytope::collide(sa, xa, sb, xb, work, out);
    let prism_end = out.len();
    let step = (std::f64::consts::PI / CYLINDER_SIDES as f64).cos();
    if n_p.is_some_and(|n_p| n_p.dot(&n_f) < step - 1e-9) {
        return n_p;
    }
    // The exact cylinder against the face plane, over the polytope.
    let poly = as_polytope(sb, &mut work.prisms[1])?;
    let tol = INSIDE_TOL * (r + hl + poly.radius);
    let cyl = (xa.translation.vector, xa.rotation * Vec3::z(), r, hl);
    let inside = |p: &Vec3| poly.contains(&to_local(xb, p), tol);
    if !cylinder_points(cyl, (&n_f, plane_d), inside, out) {
        return n_p;
    }
    out.drain(start..prism_end);
    Some(n_f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Pose, Vec3};

    fn boxed() -> Shape {
        Shape::cuboid(Vec3::new(1.0, 1.0, 0.1)).expect("box")
    }

    /// A cylinder lying on a box face (axis along y, 1 mm deep): its bottom line
    /// at the exact depth, the face's normal, whatever its roll about its axis
    /// (the prism's side faces and edges alike).
    #[test]
    fn lying_cylinder_touches_along_its_bottom_line() {
        let cyl = Shape::cylinder(0.05, 0.1).expect("cylinder");
        let b = boxed();
        let xb = Pose::identity();
        for k in 0..12 {
            let roll = k as f64 * 0.0437;
            let q = crate::math::Quat::from_euler_angles(std::f64::consts::FRAC_PI_2, roll, 0.0);
            let xa = Pose::from_parts(Vec3::new(0.2, 0.0, 0.1 + 0.05 - 1e-3).into(), q);
            let mut work = Work::default();
            let mut out = Vec::new();
            let n = collide(&cyl, &xa, &b, &xb, &mut work, &mut out).expect("contact");
            assert!((n - Vec3::z()).norm() < 1e-12, "roll {roll}: normal {n:?}");
            let deepest = out.iter().map(|p| p.depth).fold(0.0, f64::max);
            assert!(
                (deepest - 1e-3).abs() < 1e-12,
                "roll {roll}: depth {deepest}"
            );
            for p in &out {
                assert!(
                    (p.p_w.z - (0.1 - 1e-3)).abs() < 1e-12,
                    "roll {roll}: point {:?}",
                    p.p_w
                );
            }
        }
    }

    /// Over the edge of the box: only the part of the bottom line over the face.
    #[test]
    fn points_stay_over_the_face() {
        let cyl = Shape::cylinder(0.05, 0.1).expect("cylinder");
        let b = boxed();
        let q = crate::math::Quat::from_euler_angles(std::f64::consts::FRAC_PI_2, 0.0, 0.0);
        // Axis along y, centred on the box's edge y = 1.
        let xa = Pose::from_parts(Vec3::new(0.0, 1.0, 0.15 - 1e-3).into(), q);
        let mut work = Work::default();
        let mut out = Vec::new();
        collide(&cyl, &xa, &b, &Pose::identity(), &mut work, &mut out).expect("contact");
        assert!(!out.is_empty());
        for p in &out {
            assert!(p.p_w.y <= 1.0 + 1e-9, "point off the face: {:?}", p.p_w);
        }
    }
}
