//! Box against box: the manifold of `polytope_polytope.rs`, computed in the frame
//! of box b, where b's face planes are axis-aligned.
//!
//! Same steps, tolerances, point order and tie-breaks as the general routine
//! (results agree with it up to rounding, ~1e-16 relative):
//! 1. bounding-sphere early-out, then the 15-axis separating-axis test (3 + 3
//!    face axes, 9 edge-pair axes `a_i × b_j`, skipped when the edges are parallel
//!    within 1e-9); touching (penetration ≤ `tol`) counts as separated. For boxes
//!    the 9 edge axes are exactly the Minkowski-face edge pairs of the general
//!    routine (each direction pair gives the two opposite faces, so the test along
//!    `±L` is `|L·t| − r_a(L) − r_b(L)`).
//! 2. Intersection-polytope vertices in the general routine's order: a's corners
//!    inside b, b's corners inside a, a's edges clipped by b's planes, b's edges
//!    clipped by a's planes (Cyrus–Beck), merged within `merge`. The signed
//!    distances of every corner to the other box's planes are computed once and
//!    shared by the inside tests and the clips.
//! 3. Contact facet by eq. (4) of 000_48109ab67d5cd76d with the general routine's
//!    candidate rule and tie-breaks; 4. depths to its plane.
//!
//! Boxes whose polytope is not the 8-corner, 6-face, 12-edge axis-aligned one
//! (never, for [`Shape::cuboid`]) go to the general routine.

use super::polytope_polytope::{
    collide_polytopes, edge_edge_depth, edge_edge_normal, Candidate, EDGE_MARGIN,
};
use super::Work;
use crate::collision::{ContactPoint, ConvexPolytope, Shape};
use crate::math::{Mat3, Pose, Vec3};

/// A face of a box polytope in its geom frame: `sign · x[axis] = offset`.
#[derive(Clone, Copy, Default)]
pub(crate) struct AxisFace {
    pub axis: usize,
    pub sign: f64,
    pub offset: f64,
    pub area: f64,
}

/// The six faces of a box polytope as axis-aligned planes, in the polytope's face
/// order; `None` if it is not an 8-corner, 12-edge, axis-aligned hexahedron.
#[inline(always)]
pub(crate) fn axis_faces(p: &ConvexPolytope) -> Option<[AxisFace; 6]> {
    if p.vertices.len() != 8 || p.faces.len() != 6 || p.edges.len() != 12 {
        return None;
    }
    let mut out = [AxisFace::default(); 6];
    for (o, f) in out.iter_mut().zip(&p.faces) {
        let n = f.normal;
        // Exactly one component ±1, the others exactly 0.
        let axis = if n.x != 0.0 {
            0
        } else if n.y != 0.0 {
            1
        } else {
            2
        };
        if n[axis].abs() != 1.0 || n.x.abs() + n.y.abs() + n.z.abs() != 1.0 {
            return None;
        }
        *o = AxisFace {
            axis,
            sign: n[axis],
            offset: f.offset,
            area: f.area,
        };
    }
    if p.edges.iter().any(|e| e.v[0] >= 8 || e.v[1] >= 8) {
        return None;
    }
    Some(out)
}

/// `sa`, `sb` = boxes.
pub(crate) fn collide(
    sa: &Shape,
    xa: &Pose,
    sb: &Shape,
    xb: &Pose,
    work: &mut Work,
    out: &mut Vec<ContactPoint>,
) -> Option<Vec3> {
    let (Shape::Box { half: ha, poly: pa }, Shape::Box { half: hb, poly: pb }) = (sa, sb) else {
        return super::polytope_polytope::collide(sa, xa, sb, xb, work, out);
    };
    let scale = pa.radius + pb.radius;
    // Bounding-sphere early-out (radii about the geom origins).
    if (xa.translation.vector - xb.translation.vector).norm() > scale {
        return None;
    }
    let (Some(fa_ax), Some(fb)) = (axis_faces(pa), axis_faces(pb)) else {
        return collide_polytopes(pa, xa, pb, xb, &mut work.poly, out);
    };
    let tol = 1e-9 * scale;
    let merge = 1e-8 * scale;
    let on = 1e-7 * scale;

    // Pose of a in b's frame: x_b = r x_a + t.
    let rb = *xb.rotation.to_rotation_matrix().matrix();
    let ra = *xa.rotation.to_rotation_matrix().matrix();
    let r: Mat3 = rb.transpose() * ra;
    let t: Vec3 = rb.transpose() * (xa.translation.vector - xb.translation.vector);
    let abs_r = r.abs();

    // 1. Separating axes. Faces of b: min over a's corners of sign·x[k] − offset.
    let mut face_sep = f64::NEG_INFINITY;
    for f in &fb {
        let k = f.axis;
        let reach = abs_r.row(k).transpose().dot(ha);
        let sep = f.sign * t[k] - reach - f.offset;
        if sep > -tol {
            return None;
        }
        face_sep = face_sep.max(sep);
    }
    // Faces of a (planes n·x = d in b's frame): min over b's corners of n·x − d.
    let mut fa = [(Vec3::zeros(), 0.0f64); 6];
    for (pl, f) in fa.iter_mut().zip(&fa_ax) {
        let n = r.column(f.axis) * f.sign;
        let d = f.offset + n.dot(&t);
        *pl = (n, d);
        let reach = abs_r.column(f.axis).dot(hb);
        if -reach - d > -tol {
            return None;
        }
        face_sep = face_sep.max(-reach - d);
    }
    // The least-penetrating edge axis, as (separation, unit axis from a toward b).
    let mut edge_axis: Option<(f64, Vec3)> = None;
    // Edge pairs: axis a_i × b_j.
    for i in 0..3 {
        let ai = r.column(i);
        for j in 0..3 {
            let mut l = Vec3::zeros();
            l[(j + 1) % 3] = ai[(j + 2) % 3];
            l[(j + 2) % 3] = -ai[(j + 1) % 3];
            let len = l.norm();
            if len <= 1e-9 {
                continue;
            }
            let reach_a = (0..3)
                .map(|m| ha[m] * l.dot(&r.column(m)).abs())
                .sum::<f64>();
            let reach_b = l.abs().dot(hb);
            let sep = (l.dot(&t).abs() - reach_a - reach_b) / len;
            if sep > -tol {
                return None;
            }
            if edge_axis.is_none_or(|(best, _)| sep > best) {
                // t is a's centre in b's frame: a lies along sign(l·t) l.
                edge_axis = Some((sep, -l * (l.dot(&t).signum() / len)));
            }
        }
    }

    // 2. Intersection polytope vertices (b's frame).
    let mut va = [Vec3::zeros(); 8];
    for (v, q) in va.iter_mut().zip(&pa.vertices) {
        *v = r * q + t;
    }
    let vb = &pb.vertices;
    // Signed distances: corners of a to b's planes, corners of b to a's planes.
    let mut sa_b = [[0.0f64; 6]; 8];
    let mut sb_a = [[0.0f64; 6]; 8];
    // Bit f of a mask: the corner lies outside plane f by more than `tol`.
    let mut mask_a = [0u8; 8];
    let mut mask_b = [0u8; 8];
    for ((s, m), v) in sa_b.iter_mut().zip(&mut mask_a).zip(&va) {
        let c = [v.x, v.y, v.z];
        for (f, (sf, pl)) in s.iter_mut().zip(&fb).enumerate() {
            *sf = pl.sign * c[pl.axis % 3] - pl.offset;
            *m |= u8::from(*sf > tol) << f;
        }
    }
    for ((s, m), v) in sb_a.iter_mut().zip(&mut mask_b).zip(vb) {
        for (f, (sf, &(n, d))) in s.iter_mut().zip(&fa).enumerate() {
            *sf = n.dot(v) - d;
            *m |= u8::from(*sf > tol) << f;
        }
    }
    let pts = &mut work.poly.pts;
    pts.clear();
    for (v, &m) in va.iter().zip(&mask_a) {
        if m == 0 {
            push_unique(pts, *v, merge);
        }
    }
    for (v, &m) in vb.iter().zip(&mask_b) {
        if m == 0 {
            push_unique(pts, *v, merge);
        }
    }
    // An edge with both ends inside has no clip points, one with both ends
    // outside the same plane none either (as the full clip finds).
    for e in &pa.edges {
        let [i, j] = e.v;
        let (mi, mj) = (mask_a[i], mask_a[j]);
        if mi & mj == 0 && mi | mj != 0 {
            clip_edge(&va[i], &va[j], &sa_b[i], &sa_b[j], tol, merge, pts);
        }
    }
    for e in &pb.edges {
        let [i, j] = e.v;
        let (mi, mj) = (mask_b[i], mask_b[j]);
        if mi & mj == 0 && mi | mj != 0 {
            clip_edge(&vb[i], &vb[j], &sb_a[i], &sb_a[j], tol, merge, pts);
        }
    }
    if pts.is_empty() {
        return None;
    }

    // 3a. Edge–edge contact: the general routine's rule (`edge_edge_normal`).
    let pts = &*pts;
    let tie = 1e-9 * scale;
    let tb = xb.translation.vector;
    if let Some(n) = edge_edge_normal(face_sep, edge_axis, EDGE_MARGIN * scale) {
        // b's highest point along n (b is centred at its frame's origin), a's lowest.
        let hi_b = n.abs().dot(hb);
        let lo_a = va.iter().map(|v| n.dot(v)).fold(f64::INFINITY, f64::min);
        for p in pts {
            out.push(ContactPoint::at(
                rb * p + tb,
                edge_edge_depth(n.dot(p), lo_a, hi_b),
            ));
        }
        return Some(rb * n);
    }

    // 3b. Contact facet by the min–max rule, eq. (4) of 000_48109ab67d5cd76d.
    let axis_ba = (r * pa.interior + t) - pb.interior;
    // (count on the plane, worst distance) of b's faces then a's.
    let mut stats = [(0usize, 0.0f64); 12];
    for (st, f) in stats[..6].iter_mut().zip(&fb) {
        let (k, sg, off) = (f.axis, f.sign, f.offset);
        for p in pts {
            let s = (sg * p[k] - off).abs();
            st.0 += usize::from(s <= on);
            st.1 = worse(st.1, s);
        }
    }
    for (st, &(n, d)) in stats[6..].iter_mut().zip(&fa) {
        for p in pts {
            let s = (n.dot(p) - d).abs();
            st.0 += usize::from(s <= on);
            st.1 = worse(st.1, s);
        }
    }
    let mut best: Option<(Candidate, usize)> = None;
    for min_on in [3usize, 1] {
        for (fi, &(count, worst)) in stats.iter().enumerate() {
            if count < min_on {
                continue;
            }
            let of_a = fi >= 6;
            let (n, d, area) = if of_a {
                let (n, d) = fa[fi - 6];
                (n, d, fa_ax[fi - 6].area)
            } else {
                let f = &fb[fi];
                let mut n = Vec3::zeros();
                n[f.axis] = f.sign;
                (n, f.offset, f.area)
            };
            let c = Candidate {
                worst,
                align: if of_a { -n } else { n }.dot(&axis_ba),
                area,
                n,
                d,
                of_a,
            };
            if best.as_ref().is_none_or(|(b, _)| c.better_than(b, tie)) {
                best = Some((c, fi));
            }
        }
        if best.is_some() {
            break;
        }
    }
    let (Candidate { n, d, of_a, .. }, fi) = best?;

    // 4. Depths to the contact plane, points to world.
    if of_a {
        for p in pts {
            out.push(ContactPoint::at(rb * p + tb, (d - n.dot(p)).max(0.0)));
        }
    } else {
        let (k, sg) = (fb[fi].axis, fb[fi].sign);
        for p in pts {
            out.push(ContactPoint::at(rb * p + tb, (d - sg * p[k]).max(0.0)));
        }
    }
    Some(rb * if of_a { -n } else { n })
}

/// `worst.max(s)` for a running worst `worst` (never NaN, ≥ +0) and a distance
/// `s = |·|` (≥ +0 or NaN), without `f64::max`'s NaN selection (lcp27): a NaN
/// `s` keeps `worst` as `max` does, and neither is ever −0, so the result is
/// the same value.
#[inline(always)]
fn worse(worst: f64, s: f64) -> f64 {
    if s > worst {
        s
    } else {
        worst
    }
}

#[inline]
fn push_unique(pts: &mut Vec<Vec3>, p: Vec3, merge: f64) {
    let m2 = merge * merge;
    if pts.iter().all(|q| (q - p).norm_squared() > m2) {
        pts.push(p);
    }
}

/// Cyrus–Beck clip of edge `p`–`q` against six planes, given the endpoints'
/// signed distances to them; pushes the clip points strictly inside the edge.
#[inline(always)]
fn clip_edge(
    p: &Vec3,
    q: &Vec3,
    sp_all: &[f64; 6],
    sq_all: &[f64; 6],
    tol: f64,
    merge: f64,
    pts: &mut Vec<Vec3>,
) {
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    let (mut entered, mut exited) = (false, false);
    for (&sp, &sq) in sp_all.iter().zip(sq_all) {
        if sp > tol && sq > tol {
            return;
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
            return;
        }
    }
    if entered {
        push_unique(pts, p + (q - p) * t0, merge);
    }
    if exited {
        push_unique(pts, p + (q - p) * t1, merge);
    }
}

/// Signed distance (m, < 0 inside) of geom-frame point `p` from the box with face
/// planes `faces`: the largest face-plane distance inside and in a face region
/// (the same value as [`ConvexPolytope::closest_point`], bit for bit), the
/// Euclidean distance to the box in edge and corner regions.
#[inline]
pub(crate) fn box_signed_distance(faces: &[AxisFace; 6], p: &Vec3) -> f64 {
    let mut out = [0.0f64; 3];
    let mut inside = f64::NEG_INFINITY;
    for f in faces {
        let s = f.sign * p[f.axis] - f.offset;
        inside = inside.max(s);
        out[f.axis] = out[f.axis].max(s);
    }
    if inside <= 0.0 {
        return inside;
    }
    let n_out = out.iter().filter(|&&e| e > 0.0).count();
    if n_out == 1 {
        inside
    } else {
        (out[0] * out[0] + out[1] * out[1] + out[2] * out[2]).sqrt()
    }
}
