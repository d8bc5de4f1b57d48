//! Convex polytope against convex polytope (boxes, hulls, cylinder prisms).
//!
//! 1. **Separating-axis early-out**: face normals of a and b, then the edge pairs
//!    whose Gauss-map arcs cross (Gregorius' Minkowski-face test), which are the
//!    only edge–edge axes that can separate. Touching (penetration ≤ `tol`) counts
//!    as separated.
//! 2. **Intersection polytope**: vertices of a inside b, of b inside a, and the
//!    edge–face intersection points of each body's edges with the other's faces
//!    that lie inside it (Cyrus–Beck clipping of each edge against the other body's
//!    face planes gives exactly these). Points closer than `merge` are merged.
//! 3. **Contact normal, eq. (4) of 000_48109ab67d5cd76d**: among facets of either
//!    body that bound the intersection volume (at least three intersection points
//!    on the facet plane; at least one as a fallback), choose the facet i that
//!    minimizes `max_j |n_i·p_j − d_i|`. A facet of b gives the normal `n_i`, a
//!    facet of a gives `−n_i` (both point toward a). Ties within `1e-9·scale`
//!    are broken independently of the argument order: first the normal that
//!    better separates the centres (largest `normal·(c_a − c_b)`; decides deep
//!    penetrations where a body's whole width is inside the other), then the
//!    larger facet (a box resting on a larger box gets the large box's top face,
//!    so its depths make the small box's bottom points the deepest), then b's
//!    facets and lower facet ids.
//!    **Crossing edges** (before the facet rule): if the least-penetrating edge
//!    pair of step 1 penetrates less than every face axis, the normal is that edge
//!    cross product, from b to a, and each point's depth its distance into the
//!    other body along it (`edge_edge_normal`, `edge_edge_depth`): the passive
//!    sharp-feature rule (docs/EXPERIMENTS.md, "Sharp features").
//! 4. **Depths**: distance of each point to the chosen facet plane, ≥ 0.
//!
//! Tolerances are relative to `scale = radius_a + radius_b` (bounding radii about
//! the geom origins): `tol = 1e-9·scale` for inside and touching tests, `merge =
//! 1e-8·scale` for duplicate points, `on = 1e-7·scale` for "point on facet".

use super::{as_polytope, to_world, PolyWork, Work};
use crate::collision::{ContactPoint, ConvexPolytope, Shape};
use crate::math::{Pose, Vec3};

/// `sa`, `sb` = box, polytope or cylinder (prism).
pub(crate) fn collide(
    sa: &Shape,
    xa: &Pose,
    sb: &Shape,
    xb: &Pose,
    work: &mut Work,
    out: &mut Vec<ContactPoint>,
) -> Option<Vec3> {
    let Work { poly, prisms } = work;
    let [ca, cb] = prisms;
    let pa = as_polytope(sa, ca)?;
    let pb = as_polytope(sb, cb)?;
    collide_polytopes(pa, xa, pb, xb, poly, out)
}

/// The polytope–polytope routine proper (see the module documentation).
pub(crate) fn collide_polytopes(
    pa: &ConvexPolytope,
    xa: &Pose,
    pb: &ConvexPolytope,
    xb: &Pose,
    w: &mut PolyWork,
    out: &mut Vec<ContactPoint>,
) -> Option<Vec3> {
    let scale = pa.radius + pb.radius;
    // Bounding-sphere early-out (radii about the geom origins).
    if (xa.translation.vector - xb.translation.vector).norm() > scale {
        return None;
    }
    let tol = 1e-9 * scale;
    let merge = 1e-8 * scale;
    let on = 1e-7 * scale;
    // World-frame vertices and face planes.
    transform(pa, xa, &mut w.va, &mut w.fa);
    transform(pb, xb, &mut w.vb, &mut w.fb);
    let (va, vb, fa, fb) = (&w.va, &w.vb, &w.fa, &w.fb);

    // 1. Separating axes: faces of a, faces of b, then Minkowski-face edge pairs.
    let face_sep = face_separation(fa, vb).max(face_separation(fb, va));
    if face_sep > -tol {
        return None;
    }
    // The least-penetrating edge–edge axis (separation < 0), toward b.
    let mut edge_axis: Option<(f64, Vec3)> = None;
    let centre_a = to_world(xa, &pa.interior);
    for ea in &pa.edges {
        let (ua, wa) = (fa[ea.faces[0]].0, fa[ea.faces[1]].0);
        let a0 = va[ea.v[0]];
        let da = va[ea.v[1]] - a0;
        let bxa = wa.cross(&ua);
        for eb in &pb.edges {
            let (ub, wb) = (fb[eb.faces[0]].0, fb[eb.faces[1]].0);
            // Arcs (ua, wa) and (−ub, −wb) cross on the Gauss map.
            let (c, d) = (-ub, -wb);
            let dxc = wb.cross(&ub);
            let cba = c.dot(&bxa);
            let dba = d.dot(&bxa);
            let adc = ua.dot(&dxc);
            let bdc = wa.dot(&dxc);
            if !(cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0) {
                continue;
            }
            let b0 = vb[eb.v[0]];
            let axis = da.cross(&(vb[eb.v[1]] - b0));
            let len = axis.norm();
            if len <= 1e-9 * da.norm() * (vb[eb.v[1]] - b0).norm() {
                continue;
            }
            let mut axis = axis / len;
            if axis.dot(&(a0 - centre_a)) < 0.0 {
                axis = -axis;
            }
            let sep = axis.dot(&(b0 - a0));
            if sep > -tol {
                return None;
            }
            if edge_axis.is_none_or(|(best, _)| sep > best) {
                edge_axis = Some((sep, axis));
            }
        }
    }

    // 2. Intersection polytope vertices.
    w.pts.clear();
    for v in va {
        if inside(fb, v, tol) {
            push_unique(&mut w.pts, *v, merge);
        }
    }
    for v in vb {
        if inside(fa, v, tol) {
            push_unique(&mut w.pts, *v, merge);
        }
    }
    clip_edges(pa, va, fb, tol, merge, &mut w.pts);
    clip_edges(pb, vb, fa, tol, merge, &mut w.pts);
    if w.pts.is_empty() {
        return None;
    }

    // 3a. Edge–edge contact: when an edge pair's axis penetrates less than every
    // face axis (the minimum-translation direction is the cross product of two
    // edges), it is the normal, pointing from b to a. See `edge_edge_normal`.
    let pts = &w.pts;
    let tie = 1e-9 * scale;
    if let Some(n) = edge_edge_normal(face_sep, edge_axis, EDGE_MARGIN * scale) {
        let hi_b = vb
            .iter()
            .map(|v| n.dot(v))
            .fold(f64::NEG_INFINITY, f64::max);
        let lo_a = va.iter().map(|v| n.dot(v)).fold(f64::INFINITY, f64::min);
        for p in pts {
            out.push(ContactPoint::at(*p, edge_edge_depth(n.dot(p), lo_a, hi_b)));
        }
        return Some(n);
    }

    // 3b. Contact facet by the min–max rule, eq. (4) of 000_48109ab67d5cd76d.
    let axis_ba = to_world(xa, &pa.interior) - to_world(xb, &pb.interior);
    let mut best: Option<Candidate> = None;
    for min_on in [3usize, 1] {
        for (planes, of_a, poly) in [(fb, false, pb), (fa, true, pa)] {
            for (&(n, d), face) in planes.iter().zip(&poly.faces) {
                let mut count = 0;
                let mut worst = 0.0f64;
                for p in pts {
                    let s = (n.dot(p) - d).abs();
                    if s <= on {
                        count += 1;
                    }
                    worst = worst.max(s);
                }
                if count < min_on {
                    continue;
                }
                let c = Candidate {
                    worst,
                    align: if of_a { -n } else { n }.dot(&axis_ba),
                    area: face.area,
                    n,
                    d,
                    of_a,
                };
                if best.as_ref().is_none_or(|b| c.better_than(b, tie)) {
                    best = Some(c);
                }
            }
        }
        if best.is_some() {
            break;
        }
    }
    let Candidate { n, d, of_a, .. } = best?;

    // 4. Depths to the contact plane.
    for p in pts {
        out.push(ContactPoint::at(*p, (d - n.dot(p)).max(0.0)));
    }
    Some(if of_a { -n } else { n })
}

/// How much less (× scale) an edge–edge axis must penetrate than the best face axis
/// to supply the normal: faces win ties (a face contact keeps eq. (4)).
pub(crate) const EDGE_MARGIN: f64 = 1e-7;

/// The passive sharp-feature rule for crossing edges. `face_sep` is the largest
/// face-axis separation (< 0: the smallest face penetration is −`face_sep`),
/// `edge` the largest edge-pair separation with its unit axis pointing from a
/// toward b. If the edges penetrate less than any face by more than `margin`, the
/// contact is edge–edge and its normal is the edge cross product, −axis (toward
/// a, away from b, the convention of `collision/mod.rs`).
///
/// Why: a facet normal for two crossed ridges is tilted by the facet's slope, so
/// the normal force has a sideways component that no depth gradient backs, and the
/// choice flips between the two slopes of a ridge from step to step; the force
/// field is then not conservative and pumps energy (a crossed ridge landing gained
/// 0.37–0.76 of m g L under Hunt–Crossley and LCP). The minimum-translation axis
/// is the gradient of the penetration depth, so F = −∂U/∂x for a spring on it, and
/// it changes continuously into the facet normal as an edge rotates into a face
/// (there the cross product is the face normal and the penetrations are equal).
pub(crate) fn edge_edge_normal(
    face_sep: f64,
    edge: Option<(f64, Vec3)>,
    margin: f64,
) -> Option<Vec3> {
    let (sep, axis) = edge?;
    (sep > face_sep + margin).then_some(-axis)
}

/// Depth of an intersection point at height `s = n·p` along an edge–edge normal n,
/// between a's lowest point `lo_a` and b's highest `hi_b` along n: its distance into
/// the other body, max(hi_b − s, s − lo_a) (a point of a's edge lies in b by
/// hi_b − s, one of b's edge in a by s − lo_a), ≥ 0. Symmetric in the argument order
/// (n, lo_a, hi_b → −n, −hi_b, −lo_a), like the facet rule's depths.
#[inline]
pub(crate) fn edge_edge_depth(s: f64, lo_a: f64, hi_b: f64) -> f64 {
    (hi_b - s).max(s - lo_a).max(0.0)
}

/// A facet competing in the min–max rule.
pub(crate) struct Candidate {
    /// max_j |n·p_j − d|, m.
    pub worst: f64,
    /// Contact normal (toward a) · (centre of a − centre of b), m.
    pub align: f64,
    pub area: f64,
    pub n: Vec3,
    pub d: f64,
    pub of_a: bool,
}

impl Candidate {
    /// Eq. (4) order with order-independent tie-breaks: smaller max distance, then
    /// the normal that better separates the centres, then the larger facet.
    pub(crate) fn better_than(&self, o: &Candidate, tie: f64) -> bool {
        if (self.worst - o.worst).abs() > tie {
            return self.worst < o.worst;
        }
        if (self.align - o.align).abs() > tie {
            return self.align > o.align;
        }
        self.area > o.area * (1.0 + 1e-9)
    }
}

fn transform(p: &ConvexPolytope, x: &Pose, v: &mut Vec<Vec3>, f: &mut Vec<(Vec3, f64)>) {
    let t = x.translation.vector;
    v.clear();
    v.extend(p.vertices.iter().map(|q| x.rotation * q + t));
    f.clear();
    f.extend(p.faces.iter().map(|fc| {
        let n = x.rotation * fc.normal;
        (n, fc.offset + n.dot(&t))
    }));
}

/// Largest over `planes` of the smallest signed distance of `verts` (> 0: a
/// separating face).
fn face_separation(planes: &[(Vec3, f64)], verts: &[Vec3]) -> f64 {
    let mut best = f64::NEG_INFINITY;
    for &(n, d) in planes {
        let mut lo = f64::INFINITY;
        for v in verts {
            lo = lo.min(n.dot(v) - d);
        }
        best = best.max(lo);
    }
    best
}

#[inline]
fn inside(planes: &[(Vec3, f64)], p: &Vec3, tol: f64) -> bool {
    planes.iter().all(|&(n, d)| n.dot(p) - d <= tol)
}

#[inline]
fn push_unique(pts: &mut Vec<Vec3>, p: Vec3, merge: f64) {
    let m2 = merge * merge;
    if pts.iter().all(|q| (q - p).norm_squared() > m2) {
        pts.push(p);
    }
}

/// Cyrus–Beck clip of every edge of `poly` (world vertices `v`) against `planes`;
/// pushes the clip points strictly inside the edge (edge–face intersections that
/// lie inside the other body).
fn clip_edges(
    poly: &ConvexPolytope,
    v: &[Vec3],
    planes: &[(Vec3, f64)],
    tol: f64,
    merge: f64,
    pts: &mut Vec<Vec3>,
) {
    for e in &poly.edges {
        let (p, q) = (v[e.v[0]], v[e.v[1]]);
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        let (mut entered, mut exited) = (false, false);
        let mut empty = false;
        for &(n, d) in planes {
            let sp = n.dot(&p) - d;
            let sq = n.dot(&q) - d;
            if sp > tol && sq > tol {
                empty = true;
                break;
            }
            if sp > tol {
                let t = sp / (sp - sq);
                if t > t0 {
                    t0 = t;
                    entered = true;
                }
            } else if sq > tol {
                let t = sp / (sp - sq);
                if t < t1 {
                    t1 = t;
                    exited = true;
                }
            }
            if t0 > t1 {
                empty = true;
                break;
            }
        }
        if empty {
            continue;
        }
        if entered {
            push_unique(pts, p + (q - p) * t0, merge);
        }
        if exited {
            push_unique(pts, p + (q - p) * t1, merge);
        }
    }
}
