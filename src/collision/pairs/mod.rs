//! One file per shape-pair family, plus the helpers they share.
//!
//! Every routine has the signature [`CollideFn`]: it collides shape `sa` at world
//! pose `xa` with `sb` at `xb`, appends the intersection-volume points to `out` and
//! returns the unit world normal pointing **toward `sa`** (away from `sb`), or
//! `None` when the shapes do not penetrate. The dispatch table in
//! `narrowphase.rs` swaps the arguments (and flips the normal) for the mirrored
//! kind order, and picks the deepest point.
//!
//! | file | pairs | method |
//! |---|---|---|
//! | `plane_sphere.rs` | plane–sphere | exact cap, deepest point + ring |
//! | `plane_polytope.rs` | plane–box, plane–polytope | vertices below + edge crossings |
//! | `plane_capsule.rs` | plane–capsule | bottom line samples (+ end-cap ring) |
//! | `plane_cylinder.rs` | plane–cylinder | rim samples, cap centre, bottom line |
//! | `sphere_sphere.rs` | sphere–sphere | exact lens side, deepest point + ring |
//! | `sphere_capsule.rs` | sphere–capsule | closest segment point, then sphere–sphere |
//! | `sphere_polytope.rs` | sphere–box, sphere–polytope | closest feature |
//! | `sphere_cylinder.rs` | sphere–cylinder | exact closest point on the solid cylinder |
//! | `capsule_capsule.rs` | capsule–capsule | segment–segment, overlap ends when parallel |
//! | `capsule_polytope.rs` | capsule–box/polytope/cylinder* | min signed distance along the axis, clipped bottom line |
//! | `box_box.rs` | box–box | the polytope–polytope manifold in b's frame (15-axis SAT) |
//! | `cylinder_polytope.rs` | cylinder–box, cylinder–polytope | the exact cylinder on a polytope face (rims, bottom line, kept over the face), else the prism* |
//! | `polytope_polytope.rs` | box/polytope/cylinder* pairs | SAT early-out, intersection polytope, eq. (4) of 000_48109ab67d5cd76d; crossing edges: the edge cross product (`edge_edge_normal`) |
//!
//! `*` cylinders enter polytope routines as the prism of [`CYLINDER_SIDES`] sides
//! built by [`cylinder_prism_radius`]: its vertices lie outside the circle and its
//! side mid-lines inside it, so the radial error is at most
//! `R (1 − cos(π/N)) / (1 + cos(π/N)) ≈ 0.43 % of R` for N = 24 (0.43 mm for a
//! 10 cm cylinder), of either sign.

pub(crate) mod box_box;
pub(crate) mod capsule_capsule;
pub(crate) mod capsule_polytope;
pub(crate) mod cylinder_polytope;
pub(crate) mod plane_capsule;
pub(crate) mod plane_cylinder;
pub(crate) mod plane_polytope;
pub(crate) mod plane_sphere;
pub(crate) mod polytope_polytope;
pub(crate) mod sphere_capsule;
pub(crate) mod sphere_cylinder;
pub(crate) mod sphere_polytope;
pub(crate) mod sphere_sphere;

use super::{ContactPoint, ConvexPolytope, Shape};
use crate::math::{tangent_basis, Pose, Vec3};

/// A pair routine: see the module documentation for the contract.
pub(crate) type CollideFn = fn(
    sa: &Shape,
    xa: &Pose,
    sb: &Shape,
    xb: &Pose,
    work: &mut Work,
    out: &mut Vec<ContactPoint>,
) -> Option<Vec3>;

/// Number of side faces of the prism standing in for a cylinder in polytope pairs.
pub const CYLINDER_SIDES: usize = 24;

/// Number of ring samples around the deepest point of a sphere cap.
pub(crate) const RING_SAMPLES: usize = 8;

/// Vertex radius of the cylinder prism: `2R / (1 + cos(π/N))`, which splits the
/// radial error evenly between the vertices (outside) and side mid-lines (inside).
pub fn cylinder_prism_radius(radius: f64) -> f64 {
    2.0 * radius / (1.0 + (std::f64::consts::PI / CYLINDER_SIDES as f64).cos())
}

/// Reusable buffers of every pair routine (no allocation once warmed up).
#[derive(Clone, Debug, Default)]
pub(crate) struct Work {
    pub poly: PolyWork,
    /// Tessellated cylinders for the first and second argument.
    pub prisms: [PrismCache; 2],
}

/// Buffers of the polytope–polytope routine, world frame.
#[derive(Clone, Debug, Default)]
pub(crate) struct PolyWork {
    pub va: Vec<Vec3>,
    pub vb: Vec<Vec3>,
    /// Face planes `(n, d)` with `n·x = d`.
    pub fa: Vec<(Vec3, f64)>,
    pub fb: Vec<(Vec3, f64)>,
    pub pts: Vec<Vec3>,
    /// Signed heights of vertices above a plane, m.
    pub heights: Vec<f64>,
}

/// The prism of the last cylinder seen in one argument slot, refit in place when
/// the dimensions change (no allocation after the first cylinder).
#[derive(Clone, Debug, Default)]
pub(crate) struct PrismCache {
    dims: (f64, f64),
    poly: Option<ConvexPolytope>,
}

impl PrismCache {
    fn get(&mut self, radius: f64, half_length: f64) -> &ConvexPolytope {
        let r = cylinder_prism_radius(radius);
        let poly = self
            .poly
            .get_or_insert_with(|| ConvexPolytope::prism(r, half_length, CYLINDER_SIDES));
        if self.dims != (radius, half_length) {
            poly.refit_prism(r, half_length);
            self.dims = (radius, half_length);
        }
        poly
    }
}

/// The polytope standing for `s`: the box's exact polytope, the hull, or the
/// cached cylinder prism; `None` for planes, spheres and capsules.
pub(crate) fn as_polytope<'s>(
    s: &'s Shape,
    cache: &'s mut PrismCache,
) -> Option<&'s ConvexPolytope> {
    match s {
        Shape::Box { poly, .. } => Some(poly),
        Shape::Polytope(p) => Some(p),
        Shape::Cylinder {
            radius,
            half_length,
        } => Some(cache.get(*radius, *half_length)),
        _ => None,
    }
}

/// `(sin, cos)` of the ring angles `2πk / RING_SAMPLES`, computed once (the same
/// values as computing them per call).
static RING: std::sync::LazyLock<[(f64, f64); RING_SAMPLES]> = std::sync::LazyLock::new(|| {
    std::array::from_fn(|k| (std::f64::consts::TAU * k as f64 / RING_SAMPLES as f64).sin_cos())
});

/// Append the points of a sphere cap pressed against a contact plane.
///
/// The sphere (centre `c`, radius `r`, m) lies on the side of `n` (unit, pointing
/// from the other body toward the sphere); the contact plane is `n·x = plane_d`,
/// passed as `(n, plane_d)`.
/// Emits the deepest point `c − r n` and [`RING_SAMPLES`] points on the sphere at
/// half the rim angle (`cos_rim` = cosine of the polar angle, from −n, of the
/// circle where the cap leaves the other body), each with its depth
/// `plane_d − n·p` (the deepest point only if `with_deepest`; if it fails `keep`,
/// as under deep penetration, it is pulled back toward the contact plane along n
/// until it passes). Ring points failing `keep` or with depth ≤ 0 are dropped.
///
/// Every point acts at the deepest point ([`ContactPoint::lever`], computed as
/// above whether or not it is emitted): on the line through `c` along n, where a
/// rigid ball touches the plane. The ring gives the cap's depth profile and
/// extent, not the line of action: its normal forces then pass through `c` (no
/// moment about the centre, whatever their sizes), their rates are those of that
/// line (the normal velocity is the same at every point of it, n·(ω × n) = 0),
/// and friction's slip is the contact point's, at rest in rolling without slip.
pub(crate) fn sphere_cap(
    c: &Vec3,
    r: f64,
    (n, plane_d): (&Vec3, f64),
    cos_rim: f64,
    keep: impl Fn(&Vec3) -> bool,
    with_deepest: bool,
    out: &mut Vec<ContactPoint>,
) {
    let p0 = c - n * r;
    let top = c - n * (n.dot(c) - plane_d).min(r);
    let p0 = if keep(&p0) {
        p0
    } else {
        clamp_inside(&top, &p0, &keep)
    };
    if with_deepest {
        out.push(ContactPoint::at(p0, (plane_d - n.dot(&p0)).max(0.0)));
    }
    let half = 0.5 * cos_rim.clamp(-1.0, 1.0).acos();
    if half < 1e-6 {
        return;
    }
    let (t1, t2) = tangent_basis(n);
    let (s, co) = half.sin_cos();
    for &(st, ct) in RING.iter() {
        let p = c + (-n * co + (t1 * ct + t2 * st) * s) * r;
        let depth = plane_d - n.dot(&p);
        if depth > 0.0 && keep(&p) {
            out.push(ContactPoint {
                p_w: p,
                depth,
                lever: p0,
            });
        }
    }
}

/// Closest points between segments `p0–p1` and `q0–q1` (Ericson, RTCD §5.1.9).
/// Returns the parameters `(s, t)` in [0, 1].
pub(crate) fn segment_segment(p0: &Vec3, p1: &Vec3, q0: &Vec3, q1: &Vec3) -> (f64, f64) {
    let d1 = p1 - p0;
    let d2 = q1 - q0;
    let r = p0 - q0;
    let a = d1.norm_squared();
    let e = d2.norm_squared();
    let f = d2.dot(&r);
    let tiny = 1e-300;
    if a <= tiny && e <= tiny {
        return (0.0, 0.0);
    }
    if a <= tiny {
        return (0.0, (f / e).clamp(0.0, 1.0));
    }
    let c = d1.dot(&r);
    if e <= tiny {
        return ((-c / a).clamp(0.0, 1.0), 0.0);
    }
    let b = d1.dot(&d2);
    let denom = a * e - b * b;
    let mut s = if denom > 1e-14 * a * e {
        ((b * f - c * e) / denom).clamp(0.0, 1.0)
    } else {
        // Parallel: any s works; take the one closest to q0's projection midpoint.
        0.0
    };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    (s, t)
}

/// Minimum of a convex function on [0, 1] by golden-section search (60 rounds,
/// interval ≈ 3e-13); deterministic.
pub(crate) fn golden_min(mut f: impl FnMut(f64) -> f64) -> f64 {
    let g = 0.5 * (5f64.sqrt() - 1.0);
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let mut x1 = hi - g * (hi - lo);
    let mut x2 = lo + g * (hi - lo);
    let mut f1 = f(x1);
    let mut f2 = f(x2);
    for _ in 0..60 {
        if f1 <= f2 {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - g * (hi - lo);
            f1 = f(x1);
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + g * (hi - lo);
            f2 = f(x2);
        }
    }
    // The ends are candidates too (the minimum of a monotone function).
    let mid = 0.5 * (lo + hi);
    let (fm, f0, f1e) = (f(mid), f(0.0), f(1.0));
    if f0 < fm && f0 <= f1e {
        0.0
    } else if f1e < fm {
        1.0
    } else {
        mid
    }
}

/// Closest surface point of the solid cylinder (radius `r`, half length `h`, axis
/// z) to local point `p`: `(q, sd, n)` with `p = q + sd n`, sd < 0 inside.
pub(crate) fn cylinder_closest(r: f64, h: f64, p: &Vec3) -> (Vec3, f64, Vec3) {
    let rho = (p.x * p.x + p.y * p.y).sqrt();
    let radial = if rho > 0.0 {
        Vec3::new(p.x / rho, p.y / rho, 0.0)
    } else {
        Vec3::x()
    };
    if rho > r || p.z.abs() > h {
        let q_rho = rho.min(r);
        let q = Vec3::new(radial.x * q_rho, radial.y * q_rho, p.z.clamp(-h, h));
        let d = (p - q).norm();
        let n = if d > 0.0 { (p - q) / d } else { radial };
        return (q, d, n);
    }
    let (dr, dz) = (r - rho, h - p.z.abs());
    if dr < dz {
        (p + radial * dr, -dr, radial)
    } else {
        let n = Vec3::new(0.0, 0.0, if p.z >= 0.0 { 1.0 } else { -1.0 });
        (p + n * dz, -dz, n)
    }
}

/// Whether local point `p` lies in the solid cylinder grown by `tol` (m).
pub(crate) fn cylinder_contains(r: f64, h: f64, p: &Vec3, tol: f64) -> bool {
    p.z.abs() <= h + tol && (p.x * p.x + p.y * p.y).sqrt() <= r + tol
}

/// Whether a point at signed distance `sd` from the other body is inside it within
/// the relative tolerance used by the curved routines.
pub(crate) const INSIDE_TOL: f64 = 1e-9;

/// Geom-frame point `v` to world coordinates.
#[inline]
pub(crate) fn to_world(x: &Pose, v: &Vec3) -> Vec3 {
    x.rotation * v + x.translation.vector
}

/// World point `p` to geom-frame coordinates.
#[inline]
pub(crate) fn to_local(x: &Pose, p: &Vec3) -> Vec3 {
    x.rotation
        .inverse_transform_vector(&(p - x.translation.vector))
}

/// The largest `t` in [0, 1] with `p0 + t (p1 − p0)` inside a convex set, given
/// that `p0` is inside (bisection, 50 rounds; deterministic). Used to keep a
/// deepest point inside the other body under deep penetration.
pub(crate) fn clamp_inside(p0: &Vec3, p1: &Vec3, inside: impl Fn(&Vec3) -> bool) -> Vec3 {
    if inside(p1) {
        return *p1;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..50 {
        let mid = 0.5 * (lo + hi);
        if inside(&(p0 + (p1 - p0) * mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    p0 + (p1 - p0) * lo
}
