//! Points on the bottom of the intersection volume, 000 §III-A and Fig. 5.
//!
//! The bottom is the part of the intersection surface whose outward normal makes a
//! non-positive inner product with the contact normal: seen along the normal, the
//! deepest layer. The algorithm, like Graham's scan:
//! 1. sort the points by distance to the contact plane, deepest first;
//! 2. the deepest point is the comparator C (ties: the bottom, right-most in the
//!    contact plane);
//! 3. project every point onto the contact plane and compute the signed angle of
//!    the line from C to it;
//! 4. visit the points deepest first, growing a polygon star-shaped about C whose
//!    vertices stay sorted by angle: binary-search the angular wedge a candidate
//!    falls in and insert it if it lies outside the polygon; otherwise discard it
//!    (a deeper point already covers it, so it is not on the bottom).
//!
//! C and the polygon's vertices are the bottom points. O(N lg N) for the sort and
//! the searches (insertion into the small vertex list is a memmove).

use crate::collision::ContactPoint;
use crate::math::{tangent_basis, Vec3};
use std::f64::consts::{PI, TAU};

/// Reused buffers of the selection (no allocation once warmed up).
#[derive(Clone, Debug, Default)]
pub struct SelectScratch {
    order: Vec<u32>,
    proj: Vec<[f64; 2]>,
    /// Polygon vertices (point indices) sorted by angle about the comparator.
    poly: Vec<u32>,
    poly_angle: Vec<f64>,
    /// Output buffer of [`bottom_points`] used by the multi-point model.
    pub selected: Vec<u32>,
}

/// Indices (into `points`) of the points on the bottom of the intersection volume,
/// written to `out`; the first is the deepest point.
pub fn bottom_points(
    points: &[ContactPoint],
    normal: &Vec3,
    s: &mut SelectScratch,
    out: &mut Vec<u32>,
) {
    out.clear();
    let n = points.len();
    if n == 0 {
        return;
    }
    // Project onto the contact plane.
    let (t1, t2) = tangent_basis(normal);
    s.proj.clear();
    s.proj
        .extend(points.iter().map(|p| [t1.dot(&p.p_w), t2.dot(&p.p_w)]));
    // (a) Sort deepest first; ties: bottom (min y), then right-most (max x), then index.
    s.order.clear();
    s.order.extend(0..n as u32);
    let (proj, pts) = (&s.proj, points);
    s.order.sort_unstable_by(|&i, &j| {
        let (pi, pj) = (&proj[i as usize], &proj[j as usize]);
        pts[j as usize]
            .depth
            .total_cmp(&pts[i as usize].depth)
            .then(pi[1].total_cmp(&pj[1]))
            .then(pj[0].total_cmp(&pi[0]))
            .then(i.cmp(&j))
    });
    // (b) The comparator.
    let c = s.order[0];
    let pc = s.proj[c as usize];
    out.push(c);
    // Length scale of the tolerance: projected extent of the point set.
    let extent = s
        .proj
        .iter()
        .map(|p| (p[0] - pc[0]).abs().max((p[1] - pc[1]).abs()))
        .fold(0.0, f64::max);
    let tol = 1e-9 * (1.0 + extent);
    // (c)–(h) Grow the polygon.
    s.poly.clear();
    s.poly_angle.clear();
    for k in 1..n {
        let i = s.order[k];
        let pi = s.proj[i as usize];
        let d = [pi[0] - pc[0], pi[1] - pc[1]];
        if d[0].hypot(d[1]) <= tol {
            continue; // projects onto the comparator: above it
        }
        let theta = d[1].atan2(d[0]);
        if !outside(&s.proj, &s.poly, &s.poly_angle, pc, pi, theta, tol) {
            continue;
        }
        let pos = s.poly_angle.partition_point(|&a| a <= theta);
        s.poly.insert(pos, i);
        s.poly_angle.insert(pos, theta);
    }
    out.extend_from_slice(&s.poly);
}

/// Whether `p` (angle `theta` about the comparator `c`) lies outside the polygon
/// formed by `c` and the vertices `poly` (sorted by `angle`).
fn outside(
    proj: &[[f64; 2]],
    poly: &[u32],
    angle: &[f64],
    c: [f64; 2],
    p: [f64; 2],
    theta: f64,
    tol: f64,
) -> bool {
    let m = poly.len();
    if m == 0 {
        return true;
    }
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let dist = |a: [f64; 2], b: [f64; 2]| (a[0] - b[0]).hypot(a[1] - b[1]);
    if m == 1 {
        // Inside only if on the segment from c to the single vertex.
        let v = proj[poly[0] as usize];
        let len = dist(v, c).max(tol);
        let on_line = (cross(c, v, p) / len).abs() <= tol;
        let dot = (p[0] - c[0]) * (v[0] - c[0]) + (p[1] - c[1]) * (v[1] - c[1]);
        return !(on_line && dot >= 0.0 && dist(p, c) <= len + tol);
    }
    // The wedge [prev, next] containing theta (cyclic).
    let pos = angle.partition_point(|&a| a <= theta);
    let (ip, inx) = if pos == 0 || pos == m {
        (m - 1, 0)
    } else {
        (pos - 1, pos)
    };
    let mut gap = angle[inx] - angle[ip];
    if gap < 0.0 || (m >= 2 && ip == m - 1 && inx == 0) {
        gap = (gap + TAU) % TAU;
    }
    // An open wedge (≥ π) is not covered by the polygon.
    if gap >= PI - 1e-12 {
        // A point on a ray through a vertex may still be within that edge from c.
        for &k in &[ip, inx] {
            let v = proj[poly[k] as usize];
            let len = dist(v, c).max(tol);
            if (cross(c, v, p) / len).abs() <= tol
                && (p[0] - c[0]) * (v[0] - c[0]) + (p[1] - c[1]) * (v[1] - c[1]) >= 0.0
                && dist(p, c) <= len + tol
            {
                return false;
            }
        }
        return true;
    }
    // Inside the triangle (c, prev, next) iff on c's side of the edge prev→next.
    let a = proj[poly[ip] as usize];
    let b = proj[poly[inx] as usize];
    let len = dist(a, b).max(tol);
    cross(a, b, p) / len < -tol
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(x: f64, y: f64, depth: f64) -> ContactPoint {
        // Normal +z: the projection is (x, y) up to the tangent basis' rotation.
        ContactPoint {
            p_w: Vec3::new(x, y, -depth),
            depth,
        }
    }

    #[test]
    fn flat_slab_keeps_bottom_face_only() {
        // A box resting flat with penetration 0.01: bottom corners at depth 0.01,
        // plane-crossing points straight above them at depth 0.
        let mut pts = Vec::new();
        for &(x, y) in &[(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)] {
            pts.push(pt(x, y, 0.01));
            pts.push(pt(x, y, 0.0));
        }
        let mut s = SelectScratch::default();
        let mut out = Vec::new();
        bottom_points(&pts, &Vec3::z(), &mut s, &mut out);
        let mut got: Vec<_> = out.iter().map(|&i| pts[i as usize].depth).collect();
        got.sort_by(f64::total_cmp);
        assert_eq!(got, vec![0.01; 4]);
    }

    #[test]
    fn fig4_trapezoid_discards_upper_points() {
        // An extruded isosceles trapezoid's intersection volume (Fig. 4): the bottom
        // is the wide face at depth 0.2, the narrow top face (depth 0) projects
        // inside it and must be discarded.
        let mut pts = Vec::new();
        for &y in &[-1.0, 1.0] {
            pts.push(pt(-1.0, y, 0.2));
            pts.push(pt(1.0, y, 0.2));
            pts.push(pt(-0.5, y, 0.0));
            pts.push(pt(0.5, y, 0.0));
        }
        let mut s = SelectScratch::default();
        let mut out = Vec::new();
        bottom_points(&pts, &Vec3::z(), &mut s, &mut out);
        assert_eq!(out.len(), 4);
        assert!(out.iter().all(|&i| pts[i as usize].depth == 0.2));
    }

    #[test]
    fn tilted_volume_keeps_outer_shallow_points() {
        // Deepest point interior in projection (a pyramid tip), shallower ring
        // around it: all ring points lie outside the polygon and are kept.
        let mut pts = vec![pt(0.0, 0.0, 0.3)];
        for k in 0..6 {
            let a = k as f64 * TAU / 6.0;
            pts.push(pt(a.cos(), a.sin(), 0.1));
        }
        // A point shallower than the ring, inside its projection: discarded.
        pts.push(pt(0.2, 0.1, 0.0));
        let mut s = SelectScratch::default();
        let mut out = Vec::new();
        bottom_points(&pts, &Vec3::z(), &mut s, &mut out);
        assert_eq!(out.len(), 7, "{out:?}");
        assert!(!out.contains(&7));
    }
}
