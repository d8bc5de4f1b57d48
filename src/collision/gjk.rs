//! Separation distance between two convex geoms: GJK (Gilbert–Johnson–Keerthi) on
//! the Minkowski difference of their *cores* (a sphere is its centre, a capsule
//! its segment; the radius is subtracted at the end), with support functions for
//! every shape kind, and the plane's half-space by its support point.
//!
//! Used by the speculative contacts of the complementarity step
//! ([`super::narrowphase::collide_pair_within`]) and by the continuous-collision
//! stage ([`super::ccd`]). It answers only for separated geoms: overlapping cores
//! (or a distance ≤ 0 after the radii) return `None`, and the pair routines of
//! `pairs/` take over.
//!
//! Allocation-free (the simplex is four points on the stack); at most
//! [`MAX_ITERATIONS`] support evaluations.

use super::Shape;
use crate::math::{Pose, Vec3};

/// Support evaluations per query.
pub const MAX_ITERATIONS: usize = 64;

/// A separation: `distance` (m) between the geoms (≥ 0 up to round-off; negative
/// only for a plane or a rounded shape whose core is clear but whose surface
/// overlaps — a penetration the pair routines report) and the unit world
/// direction `dir` from the closest point of `b` to that of `a` (the direction in
/// which `a` would move to separate further; the manifold normal convention of
/// [`super::Manifold`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Separation {
    pub distance: f64,
    pub dir: Vec3,
}

/// The radius swept around a shape's core (sphere, capsule), 0 for the others.
fn core_radius(s: &Shape) -> f64 {
    match s {
        Shape::Sphere { radius } | Shape::Capsule { radius, .. } => *radius,
        _ => 0.0,
    }
}

/// Support point of a shape's core in the world direction `d` (not normalized).
fn core_support(s: &Shape, x: &Pose, d: &Vec3) -> Vec3 {
    let dl = x.rotation.inverse() * d;
    let sign = |c: f64| if c >= 0.0 { 1.0 } else { -1.0 };
    let local = match s {
        // Not called for planes (handled by `plane_distance`).
        Shape::Plane | Shape::Sphere { .. } => Vec3::zeros(),
        Shape::Box { half, .. } => Vec3::new(
            sign(dl.x) * half.x,
            sign(dl.y) * half.y,
            sign(dl.z) * half.z,
        ),
        Shape::Capsule { half_length, .. } => Vec3::new(0.0, 0.0, sign(dl.z) * half_length),
        Shape::Cylinder {
            radius,
            half_length,
        } => {
            let r = (dl.x * dl.x + dl.y * dl.y).sqrt();
            let (cx, cy) = if r > 1e-300 {
                (radius * dl.x / r, radius * dl.y / r)
            } else {
                (0.0, 0.0)
            };
            Vec3::new(cx, cy, sign(dl.z) * half_length)
        }
        Shape::Polytope(p) => p.support(&dl),
    };
    (x * nalgebra::Point3::from(local)).coords
}

/// The support height of shape `s` at `x` along the unit world direction `d`:
/// max over its points p of d·p (the core's support plus the swept radius). Not
/// for planes (unbounded along every direction but −normal).
pub fn support_height(s: &Shape, x: &Pose, d: &Vec3) -> f64 {
    d.dot(&core_support(s, x, d)) + core_radius(s)
}

/// Distance from the half-space of plane geom `xp` to shape `s` at `x`:
/// (distance, outward plane normal).
fn plane_distance(xp: &Pose, s: &Shape, x: &Pose) -> (f64, Vec3) {
    let n = xp.rotation * Vec3::z();
    let low = core_support(s, x, &-n) - core_radius(s) * n;
    (n.dot(&(low - xp.translation.vector)), n)
}

/// Separation of geoms `a` and `b`, or `None` when their cores overlap (or touch
/// within round-off with no usable direction), both are planes, or the data is
/// not finite.
pub fn separation(sa: &Shape, xa: &Pose, sb: &Shape, xb: &Pose) -> Option<Separation> {
    let out = match (sa, sb) {
        (Shape::Plane, Shape::Plane) => return None,
        (Shape::Plane, _) => {
            // a below b: a separates along −n.
            let (d, n) = plane_distance(xa, sb, xb);
            Separation {
                distance: d,
                dir: -n,
            }
        }
        (_, Shape::Plane) => {
            let (d, n) = plane_distance(xb, sa, xa);
            Separation {
                distance: d,
                dir: n,
            }
        }
        _ => {
            let v = core_closest(sa, xa, sb, xb)?;
            let len = v.norm();
            Separation {
                distance: len - core_radius(sa) - core_radius(sb),
                dir: v / len,
            }
        }
    };
    (out.distance.is_finite() && out.dir.iter().all(|c| c.is_finite())).then_some(out)
}

/// The point of the Minkowski difference of the cores (a − b) closest to the
/// origin, or `None` when the cores overlap.
fn core_closest(sa: &Shape, xa: &Pose, sb: &Shape, xb: &Pose) -> Option<Vec3> {
    let support = |d: &Vec3| core_support(sa, xa, d) - core_support(sb, xb, &-d);
    let mut v = xa.translation.vector - xb.translation.vector;
    if v.norm_squared() < 1e-24 {
        v = Vec3::x();
    }
    v = support(&-v);
    let mut simplex = Simplex::default();
    let scale = 1.0 + v.norm();
    for _ in 0..MAX_ITERATIONS {
        let vv = v.norm_squared();
        if vv <= 1e-24 * scale * scale {
            return None;
        }
        let w = support(&-v);
        // Converged: no support point brings the difference closer (relative
        // tolerance on |v|², absolute floor for touching shapes).
        if vv - v.dot(&w) <= 1e-12 * vv + 1e-24 * scale * scale {
            return Some(v);
        }
        if simplex.contains(&w) {
            return Some(v);
        }
        simplex.push(w);
        match simplex.closest() {
            Some(c) => v = c,
            None => return None,
        }
    }
    Some(v)
}

/// Up to four points of the Minkowski difference.
#[derive(Clone, Copy, Default)]
struct Simplex {
    p: [Vec3; 4],
    n: usize,
}

impl Simplex {
    fn contains(&self, w: &Vec3) -> bool {
        self.p[..self.n]
            .iter()
            .any(|q| (q - w).norm_squared() <= 1e-24 * (1.0 + w.norm_squared()))
    }

    fn push(&mut self, w: Vec3) {
        if self.n < 4 {
            self.p[self.n] = w;
            self.n += 1;
        }
    }

    /// The point of the simplex closest to the origin; the simplex is reduced to
    /// the vertices of the feature that holds it. `None`: the origin is inside.
    fn closest(&mut self) -> Option<Vec3> {
        match self.n {
            1 => Some(self.p[0]),
            2 => Some(self.segment(0, 1)),
            3 => Some(self.triangle(0, 1, 2)),
            _ => self.tetrahedron(),
        }
    }

    fn keep(&mut self, idx: &[usize]) {
        let mut q = [Vec3::zeros(); 4];
        for (k, &i) in idx.iter().enumerate() {
            q[k] = self.p[i];
        }
        self.p = q;
        self.n = idx.len();
    }

    fn segment(&mut self, i: usize, j: usize) -> Vec3 {
        let (a, b) = (self.p[i], self.p[j]);
        let ab = b - a;
        let t = -a.dot(&ab);
        let l = ab.norm_squared();
        if t <= 0.0 || l <= 0.0 {
            self.keep(&[i]);
            a
        } else if t >= l {
            self.keep(&[j]);
            b
        } else {
            self.keep(&[i, j]);
            a + ab * (t / l)
        }
    }

    /// Closest point of triangle (i, j, k) to the origin (Ericson, Real-Time
    /// Collision Detection §5.1.5, with p = 0).
    fn triangle(&mut self, i: usize, j: usize, k: usize) -> Vec3 {
        let (a, b, c) = (self.p[i], self.p[j], self.p[k]);
        let (ab, ac, ap) = (b - a, c - a, -a);
        let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
        if d1 <= 0.0 && d2 <= 0.0 {
            self.keep(&[i]);
            return a;
        }
        let bp = -b;
        let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
        if d3 >= 0.0 && d4 <= d3 {
            self.keep(&[j]);
            return b;
        }
        let vc = d1 * d4 - d3 * d2;
        if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
            let t = d1 / (d1 - d3);
            self.keep(&[i, j]);
            return a + ab * t;
        }
        let cp = -c;
        let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
        if d6 >= 0.0 && d5 <= d6 {
            self.keep(&[k]);
            return c;
        }
        let vb = d5 * d2 - d1 * d6;
        if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
            let t = d2 / (d2 - d6);
            self.keep(&[i, k]);
            return a + ac * t;
        }
        let va = d3 * d6 - d5 * d4;
        if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
            let t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
            self.keep(&[j, k]);
            return b + (c - b) * t;
        }
        let denom = va + vb + vc;
        if denom.abs() <= 0.0 || !denom.is_finite() {
            // Degenerate (collinear): the best of the edges.
            let s = *self;
            let mut best = (f64::INFINITY, *self, Vec3::zeros());
            for (x, y) in [(i, j), (i, k), (j, k)] {
                let mut t = s;
                let q = t.segment(x, y);
                if q.norm_squared() < best.0 {
                    best = (q.norm_squared(), t, q);
                }
            }
            *self = best.1;
            return best.2;
        }
        let (v, w) = (vb / denom, vc / denom);
        self.keep(&[i, j, k]);
        a + ab * v + ac * w
    }

    /// Closest point of the tetrahedron: the best face whose plane separates the
    /// origin from the opposite vertex; `None` when the origin is inside.
    fn tetrahedron(&mut self) -> Option<Vec3> {
        let s = *self;
        let faces = [(0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0)];
        let mut best: Option<(f64, Simplex, Vec3)> = None;
        for (i, j, k, l) in faces {
            let (a, b, c, d) = (s.p[i], s.p[j], s.p[k], s.p[l]);
            let n = (b - a).cross(&(c - a));
            let sd = n.dot(&(d - a));
            let so = n.dot(&(-a));
            // The origin on the far side of face (a, b, c) from d (or a flat
            // tetrahedron): that face is a candidate.
            if sd * so < 0.0 || sd == 0.0 {
                let mut t = s;
                let q = t.triangle(i, j, k);
                let dq = q.norm_squared();
                if best.is_none_or(|(bd, _, _)| dq < bd) {
                    best = Some((dq, t, q));
                }
            }
        }
        let (_, t, q) = best?;
        *self = t;
        Some(q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;
    use nalgebra::{Translation3, UnitQuaternion};

    fn pose(x: [f64; 3], axis_angle: [f64; 3]) -> Pose {
        Pose::from_parts(
            Translation3::new(x[0], x[1], x[2]),
            UnitQuaternion::from_scaled_axis(Vec3::from(axis_angle)) as Quat,
        )
    }

    #[test]
    fn box_box_face_distance() {
        let b = Shape::cuboid(Vec3::new(0.5, 0.5, 0.5)).expect("box");
        let s = separation(
            &b,
            &pose([0.0, 0.0, 1.3], [0.0; 3]),
            &b,
            &pose([0.0; 3], [0.0; 3]),
        )
        .expect("separated");
        assert!((s.distance - 0.3).abs() < 1e-9, "{s:?}");
        assert!((s.dir - Vec3::z()).norm() < 1e-9, "{s:?}");
    }

    #[test]
    fn rotated_box_corner_to_plane_and_sphere() {
        let b = Shape::cuboid(Vec3::new(0.5, 0.5, 0.5)).expect("box");
        let xb = pose([0.0, 0.0, 2.0], [0.3, 0.2, 0.1]);
        let corners: Vec<Vec3> = (0..8)
            .map(|k| {
                let c = Vec3::new(
                    if k & 1 == 0 { -0.5 } else { 0.5 },
                    if k & 2 == 0 { -0.5 } else { 0.5 },
                    if k & 4 == 0 { -0.5 } else { 0.5 },
                );
                (xb * nalgebra::Point3::from(c)).coords
            })
            .collect();
        let low = corners.iter().map(|c| c.z).fold(f64::INFINITY, f64::min);
        let s = separation(&Shape::plane(), &Pose::identity(), &b, &xb).expect("sep");
        assert!((s.distance - low).abs() < 1e-12);
        assert!((s.dir + Vec3::z()).norm() < 1e-12);
        // A sphere (r = 0.2) centred at z = −1: the box lies above z = low and the
        // sphere below z = −0.8, so d ≥ low + 0.8; and d ≤ the nearest corner's
        // distance − r.
        let sp = Shape::sphere(0.2).expect("sphere");
        let centre = Vec3::new(0.0, 0.0, -1.0);
        let s2 = separation(&b, &xb, &sp, &pose([0.0, 0.0, -1.0], [0.0; 3])).expect("sep");
        let upper = corners
            .iter()
            .map(|c| (c - centre).norm())
            .fold(f64::INFINITY, f64::min)
            - 0.2;
        assert!(
            s2.distance >= low + 0.8 - 1e-9 && s2.distance <= upper + 1e-9,
            "{s2:?}"
        );
        // Overlap answers None.
        assert!(separation(&b, &xb, &b, &pose([0.1, 0.0, 2.2], [0.0; 3])).is_none());
    }

    #[test]
    fn capsule_cylinder_polytope() {
        let c = Shape::capsule(0.1, 0.5).expect("capsule");
        let y = Shape::cylinder(0.2, 0.3).expect("cylinder");
        // Capsule lying along x above an upright cylinder: 1.0 − 0.1 − 0.3.
        let s = separation(
            &c,
            &pose([0.0, 0.0, 1.0], [0.0, std::f64::consts::FRAC_PI_2, 0.0]),
            &y,
            &Pose::identity(),
        )
        .expect("sep");
        assert!((s.distance - 0.6).abs() < 1e-9, "{s:?}");
        // Side by side: 1.0 − 0.1 − 0.2.
        let s =
            separation(&c, &pose([1.0, 0.0, 0.0], [0.0; 3]), &y, &Pose::identity()).expect("sep");
        assert!((s.distance - 0.7).abs() < 1e-9, "{s:?}");
        let t = Shape::polytope(&[
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
        ])
        .expect("tetra");
        // Sphere at (1,1,1), distance to the face x+y+z = 1 is (3 − 1)/√3 − r.
        let sp = Shape::sphere(0.1).expect("sphere");
        let s =
            separation(&sp, &pose([1.0, 1.0, 1.0], [0.0; 3]), &t, &Pose::identity()).expect("sep");
        assert!(
            (s.distance - (2.0 / 3f64.sqrt() - 0.1)).abs() < 1e-9,
            "{s:?}"
        );
    }
}
