//! Points on the bottom of the intersection volume, 000 §III-A and Fig. 5.
//!
//! The bottom is the part of the intersection surface whose outward normal makes a
//! non-positive inner product with the contact normal: seen along the normal, the
//! deepest layer. The algorithm, like Graham's scan:
//! 1. sort the points by distance to the contact plane, deepest first;
//! 2. the deepest point is the comparator C (ties: the bottom, right-most in the
//!    contact plane);
//! 3. project every point onto the contact plane and compute the signed angle of
//!    the line from C to it (as a pseudo-angle, [`pseudo_angle`]: the same order
//!    as `atan2`'s angle at a fraction of its cost);
//! 4. visit the points deepest first, growing a polygon star-shaped about C whose
//!    vertices stay sorted by angle: binary-search the angular wedge a candidate
//!    falls in and insert it if it lies outside the polygon; otherwise discard it
//!    (a deeper point already covers it, so it is not on the bottom) — unless it is
//!    not above the surface of the fan triangle (C, Vk, Vk+1) it falls in: then it
//!    lies on a flat part of the bottom (the middle of a capsule's bottom line, the
//!    inside of a face) and is kept, so a symmetric contact keeps a symmetric point
//!    set whatever the order of equal-depth points.
//!
//! C and the polygon's vertices are the bottom points. O(N lg N) for the sort and
//! the searches (insertion into the small vertex list is a memmove).
//!
//! Near-vertical walls: a point of a vertical side face of the volume projects onto
//! the boundary of the deeper layer and, in exact arithmetic, is not outside it. A
//! body tilted by a hair moves such points outside by (depth difference)·tan(tilt),
//! which would double r and halve the normalized force of eq. (3) from one step to
//! the next. A candidate therefore counts as outside only if it lies beyond the
//! polygon by more than `WALL_SLOPE` times its height above the comparator: side
//! faces steeper than atan(1/`WALL_SLOPE`) from the contact plane are walls, not
//! bottom.

use crate::collision::ContactPoint;
use crate::math::{tangent_basis, Vec3};

/// Horizontal over vertical extent below which a side face of the intersection
/// volume is a wall rather than bottom (0.1: faces within ≈ 5.7° of the normal).
pub const WALL_SLOPE: f64 = 0.1;

/// Reused buffers of the selection (no allocation once warmed up).
#[derive(Clone, Debug, Default)]
pub struct SelectScratch {
    order: Vec<u32>,
    /// Sort keys of `order`: (depth descending, y, x descending, index), each
    /// float as its `total_cmp` integer.
    keys: Vec<(i64, i64, i64, u32)>,
    proj: Vec<[f64; 2]>,
    /// Projected distance of each point from the comparator (computed once).
    rad: Vec<f64>,
    /// Polygon vertices (point indices) sorted by angle about the comparator.
    poly: Vec<u32>,
    /// Their pseudo-angles ([`pseudo_angle`]), ascending.
    poly_angle: Vec<f64>,
    /// Points inside the polygon on its (flat) bottom surface.
    flat: Vec<u32>,
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
    if face_of_four(points, &s.proj, out) {
        return;
    }
    select(points, s, out);
}

/// The general selection, (a)–(h), on the projections in `s.proj`.
fn select(points: &[ContactPoint], s: &mut SelectScratch, out: &mut Vec<u32>) {
    let n = points.len();
    // (a) Sort deepest first; ties: bottom (min y), then right-most (max x), then index.
    // Integer keys give the same total order as chained `total_cmp`s, compared
    // much faster (`!k` reverses an order).
    s.keys.clear();
    s.keys
        .extend(points.iter().zip(&s.proj).enumerate().map(|(i, (p, q))| {
            (
                !total_key(p.depth),
                total_key(q[1]),
                !total_key(q[0]),
                i as u32,
            )
        }));
    sort_keys(&mut s.keys);
    s.order.clear();
    s.order.extend(s.keys.iter().map(|k| k.3));
    // (b) The comparator.
    let c = s.order[0];
    let pc = s.proj[c as usize];
    out.push(c);
    // Projected distances from the comparator, each computed once and shared by
    // the far-point search, the loop below and `classify`.
    s.rad.clear();
    s.rad
        .extend(s.proj.iter().map(|p| radius(p[0] - pc[0], p[1] - pc[1])));
    // Length scale of the tolerance: projected extent of the point set.
    let extent = s
        .proj
        .iter()
        .map(|p| (p[0] - pc[0]).abs().max((p[1] - pc[1]).abs()))
        .fold(0.0, f64::max);
    let tol = 1e-9 * (1.0 + extent);
    // A collinear projection (a line contact: a lying capsule or cylinder) is
    // degenerate for the polygon; it has its own 1-D version of the same rule.
    let rad = &s.rad;
    let far = s.order[1..]
        .iter()
        .copied()
        .max_by(|&i, &j| rad[i as usize].total_cmp(&rad[j as usize]));
    if let Some(f) = far {
        let pf = s.proj[f as usize];
        let len = rad[f as usize];
        let u = if len > tol {
            [(pf[0] - pc[0]) / len, (pf[1] - pc[1]) / len]
        } else {
            [1.0, 0.0]
        };
        let off_line = s
            .proj
            .iter()
            .map(|p| ((p[0] - pc[0]) * u[1] - (p[1] - pc[1]) * u[0]).abs())
            .fold(0.0, f64::max);
        if off_line <= tol {
            bottom_of_line(points, s, u, pc, tol, out);
            return;
        }
    }
    // (c)–(h) Grow the polygon.
    s.poly.clear();
    s.poly_angle.clear();
    s.flat.clear();
    let dc = points[c as usize].depth;
    let depth_tol = 1e-9 * (1.0 + dc.abs());
    for k in 1..n {
        let i = s.order[k];
        let pi = s.proj[i as usize];
        let di = points[i as usize].depth;
        let d = [pi[0] - pc[0], pi[1] - pc[1]];
        let tol_i = tol + WALL_SLOPE * (dc - di).max(0.0);
        let rad_i = s.rad[i as usize];
        if rad_i <= tol_i {
            continue; // projects onto the comparator: above it (or a duplicate)
        }
        let theta = pseudo_angle(d[0], d[1]);
        let polygon = (&s.poly[..], &s.poly_angle[..]);
        match classify(
            &s.proj,
            &s.rad,
            points,
            polygon,
            c,
            (pi, rad_i, theta),
            tol_i,
        ) {
            Class::Outside => {
                let pos = s.poly_angle.partition_point(|&a| a <= theta);
                s.poly.insert(pos, i);
                s.poly_angle.insert(pos, theta);
            }
            // Inside the polygon but not above the surface the fan (C, Vk, Vk+1)
            // spans: a point of a flat bottom face, on the bottom too.
            Class::Inside { surface_depth } if di >= surface_depth - depth_tol => s.flat.push(i),
            Class::Inside { .. } => {}
        }
    }
    out.extend_from_slice(&s.poly);
    out.extend_from_slice(&s.flat);
}

/// The selection's result for a face resting on the contact plane, found without
/// the general pass: exactly four points below the plane (depth > 0) in convex
/// position, every other point (depth ≤ 0: where the volume's side edges cross the
/// plane) above one of them. Returns `false`, writing nothing, unless every
/// condition below holds with a margin that round-off cannot cross; then `out`
/// holds what the general pass writes, in its order, so the forces' sums keep
/// their bits: the comparator (the deepest, with the sort's ties), then the other
/// three by their pseudo-angle about it.
///
/// Why the general pass gives the same, with `tol` and `tol_i` its tolerances
/// (`depth_tol` as there):
/// - the four deep points are visited first (every other point is shallower), the
///   comparator as the sort's first;
/// - each of the four triangles of three of them has every height ≥ h_min ≥
///   1e3·`tol_corner` (h_min = the smallest turn — twice a triangle's area — over
///   2·r_max ≥ any side; `tol_corner` the largest `tol_i` of a corner), so no
///   corner lies within a tolerance of a spoke or an edge of the others: each is
///   outside the polygon when visited and inserted, and the projection is not
///   collinear (the farthest line through the comparator leaves a corner ≥ h_min
///   off it);
/// - a shallow point within δ ≤ `tol_i`/2 of a corner (projected) lies within δ of
///   the convex polygon: within `tol_i` of the comparator it is skipped; otherwise
///   `classify` finds it inside (beyond no edge or spoke by more than δ) with a
///   fan-triangle depth ≥ the smallest corner depth − 3·(δ/h_min)·the largest
///   (the barycentric weights stray from [0, 1] by ≤ δ/h_min each), checked to be
///   deeper than the point by more than `depth_tol`, with a factor 2 on both:
///   discarded, not flat.
///
/// A box's face on the floor (4 corners and 4 side-edge crossings from
/// `plane_polytope`) is such a manifold; a box tilted onto an edge, a tiny corner
/// depth or a skinny face falls back to the general pass.
fn face_of_four(points: &[ContactPoint], proj: &[[f64; 2]], out: &mut Vec<u32>) -> bool {
    let mut deep = [0u32; 4];
    let mut m = 0;
    for (i, p) in points.iter().enumerate() {
        if p.depth > 0.0 {
            if m == 4 {
                return false;
            }
            deep[m] = i as u32;
            m += 1;
        }
    }
    if m != 4 {
        return false;
    }
    // The comparator: the general sort's first (its key, among the deep points).
    let key = |i: u32| {
        let q = proj[i as usize];
        (
            !total_key(points[i as usize].depth),
            total_key(q[1]),
            !total_key(q[0]),
            i,
        )
    };
    let mut ci = 0;
    let mut ck = key(deep[0]);
    for (k, &d) in deep.iter().enumerate().skip(1) {
        let kk = key(d);
        if kk < ck {
            ck = kk;
            ci = k;
        }
    }
    let c = deep[ci];
    let pc = proj[c as usize];
    let dc = points[c as usize].depth;
    // The other three by pseudo-angle about the comparator, as the polygon holds them.
    let mut v = [(0.0, 0u32); 3];
    let mut j = 0;
    for (k, &d) in deep.iter().enumerate() {
        if k != ci {
            let q = proj[d as usize];
            v[j] = (pseudo_angle(q[0] - pc[0], q[1] - pc[1]), d);
            j += 1;
        }
    }
    if v[1].0 < v[0].0 {
        v.swap(0, 1);
    }
    if v[2].0 < v[1].0 {
        v.swap(1, 2);
        if v[1].0 < v[0].0 {
            v.swap(0, 1);
        }
    }
    if !(v[0].0 < v[1].0 && v[1].0 < v[2].0) {
        return false; // equal or NaN angles
    }
    // The general pass's tolerances (`extent` by the same expression).
    let extent = proj
        .iter()
        .map(|p| (p[0] - pc[0]).abs().max((p[1] - pc[1]).abs()))
        .fold(0.0, f64::max);
    let tol = 1e-9 * (1.0 + extent);
    let (d_lo, d_hi) = deep
        .iter()
        .map(|&i| points[i as usize].depth)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), d| {
            (lo.min(d), hi.max(d))
        });
    // The largest `tol_i` of a corner.
    let tol_corner = tol + WALL_SLOPE * (dc - d_lo).max(0.0);
    let depth_tol = 1e-9 * (1.0 + dc.abs());
    // Convex position with margin, turning counter-clockwise from the comparator
    // (the three angles' cyclic order starts after their largest gap).
    let (g01, g12, g20) = (v[1].0 - v[0].0, v[2].0 - v[1].0, v[0].0 + TURN - v[2].0);
    let first = if g01 >= g12 && g01 >= g20 {
        1
    } else if g12 >= g20 {
        2
    } else {
        0
    };
    let q = [
        pc,
        proj[v[first].1 as usize],
        proj[v[(first + 1) % 3].1 as usize],
        proj[v[(first + 2) % 3].1 as usize],
    ];
    let r_max = q[1..]
        .iter()
        .map(|p| radius(p[0] - pc[0], p[1] - pc[1]))
        .fold(0.0, f64::max);
    let mut turn_min = f64::INFINITY;
    for k in 0..4 {
        let (a, b, e) = (q[(k + 3) % 4], q[k], q[(k + 1) % 4]);
        let turn = (b[0] - a[0]) * (e[1] - b[1]) - (b[1] - a[1]) * (e[0] - b[0]);
        turn_min = turn_min.min(turn);
    }
    // Every triangle's heights ≥ `h_min` (twice its area over a side ≤ 2·r_max).
    let h_min = turn_min / (2.0 * r_max);
    let wide = h_min >= 1e3 * tol_corner; // false for NaN
    if !wide {
        return false;
    }
    // The shallow points: each above a corner, and shallower than any fan
    // triangle's surface (≥ d_lo − 3·(δ/h_min)·d_hi, δ ≤ tol_i/2; twice that
    // taken) by more than `depth_tol` (twice that taken).
    for (p, pp) in points.iter().zip(proj) {
        if p.depth > 0.0 {
            continue;
        }
        let tol_i = tol + WALL_SLOPE * (dc - p.depth).max(0.0);
        let below = p.depth < d_lo - 3.0 * (tol_i / h_min) * d_hi - 2.0 * depth_tol;
        if !below {
            return false;
        }
        let half = 0.5 * tol_i;
        let near = q.iter().any(|c| {
            let (dx, dy) = (pp[0] - c[0], pp[1] - c[1]);
            dx * dx + dy * dy <= half * half
        });
        if !near {
            return false;
        }
    }
    out.push(c);
    out.extend(v.iter().map(|x| x.1));
    true
}

/// The bottom of a collinear point set: visiting deepest first, a point is kept if it
/// extends the covered interval, or lies inside it no higher than the depth
/// interpolated between its accepted neighbours (the line's bottom surface).
fn bottom_of_line(
    points: &[ContactPoint],
    s: &mut SelectScratch,
    u: [f64; 2],
    pc: [f64; 2],
    tol: f64,
    out: &mut Vec<u32>,
) {
    // Accepted points as (parameter along the line, index), sorted by parameter;
    // `poly_angle` holds the parameters, `poly` the indices.
    s.poly.clear();
    s.poly_angle.clear();
    let dc = points[out[0] as usize].depth;
    let depth_tol = 1e-9 * (1.0 + dc.abs());
    s.poly.push(out[0]);
    s.poly_angle.push(0.0);
    for k in 1..s.order.len() {
        let i = s.order[k];
        let p = s.proj[i as usize];
        let t = (p[0] - pc[0]) * u[0] + (p[1] - pc[1]) * u[1];
        let di = points[i as usize].depth;
        let pos = s.poly_angle.partition_point(|&a| a < t);
        let near = |j: usize| (s.poly_angle[j] - t).abs() <= tol;
        if (pos < s.poly.len() && near(pos)) || (pos > 0 && near(pos - 1)) {
            continue; // a duplicate in projection: above an accepted point
        }
        let keep = if pos == 0 || pos == s.poly.len() {
            true
        } else {
            let (t0, t1) = (s.poly_angle[pos - 1], s.poly_angle[pos]);
            let (d0, d1) = (
                points[s.poly[pos - 1] as usize].depth,
                points[s.poly[pos] as usize].depth,
            );
            let w = (t - t0) / (t1 - t0);
            di >= d0 + w * (d1 - d0) - depth_tol
        };
        if keep {
            s.poly.insert(pos, i);
            s.poly_angle.insert(pos, t);
            out.push(i);
        }
    }
}

/// Sorts the keys (distinct: the last field is the index). A manifold's few
/// points (8 for a box on a plane) by insertion, which the standard sort's
/// dispatch costs several times over; more by the standard sort. The keys being
/// distinct, both give the one sorted order.
fn sort_keys(keys: &mut [(i64, i64, i64, u32)]) {
    if keys.len() > 16 {
        keys.sort_unstable();
        return;
    }
    for i in 1..keys.len() {
        let k = keys[i];
        let mut j = i;
        while j > 0 && keys[j - 1] > k {
            keys[j] = keys[j - 1];
            j -= 1;
        }
        keys[j] = k;
    }
}

/// The length of (x, y) by the plain formula: the points' projected offsets are
/// contact-sized (no overflow or underflow to guard against, as `hypot` does at
/// several times the cost); within an ulp or two of `hypot`.
#[inline]
fn radius(x: f64, y: f64) -> f64 {
    (x * x + y * y).sqrt()
}

/// A pseudo-angle of the direction (x, y) ≠ 0 in (−2, 2], increasing with its angle
/// `y.atan2(x)` in (−π, π] (the same cut, on the negative x axis: −x maps to 2):
/// the diamond angle, the position of (x, y)/(|x| + |y|) along the diamond
/// |x| + |y| = 1, one quadrant per unit. It orders directions as the angle does
/// (up to rounding at near-equal directions), and a direction and its opposite
/// differ by exactly 2 (half a turn) in exact arithmetic, so a wedge of two
/// directions is open (≥ half a turn) where the difference of their pseudo-angles,
/// taken in [0, 4), is ≥ 2. A division and a few comparisons, against `atan2`'s
/// ≈ 140 instructions (callgrind, docs/BENCHMARKS.md "scale9").
#[inline]
fn pseudo_angle(x: f64, y: f64) -> f64 {
    let q = y / (x.abs() + y.abs());
    if x >= 0.0 {
        q // (−1, 1): quadrants IV and I
    } else if y >= 0.0 {
        2.0 - q // [1, 2]: quadrant II
    } else {
        -2.0 - q // (−2, −1): quadrant III
    }
}

/// A full turn and half a turn in [`pseudo_angle`]'s units.
const TURN: f64 = 4.0;
const HALF_TURN: f64 = 2.0;

/// The integer whose order is `f64::total_cmp`'s order of `x`.
#[inline]
fn total_key(x: f64) -> i64 {
    let k = x.to_bits() as i64;
    k ^ ((((k >> 63) as u64) >> 1) as i64)
}

enum Class {
    Outside,
    /// Inside the polygon, where the fan's surface lies at `surface_depth`.
    Inside {
        surface_depth: f64,
    },
}

/// Whether `p` (distance `rad_p` from and angle `theta` about the comparator `c`)
/// lies outside the polygon formed by `c` and the vertices `poly` (sorted by
/// `angle`), and if not, the depth of the fan triangle it lies in, interpolated at
/// `p`. `rad` = the points' projected distances from `c`.
fn classify(
    proj: &[[f64; 2]],
    rad: &[f64],
    pts: &[ContactPoint],
    (poly, angle): (&[u32], &[f64]),
    c: u32,
    (p, rad_p, theta): ([f64; 2], f64, f64),
    tol: f64,
) -> Class {
    let m = poly.len();
    if m == 0 {
        return Class::Outside;
    }
    let pc = proj[c as usize];
    let dc = pts[c as usize].depth;
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let dist = |a: [f64; 2], b: [f64; 2]| radius(a[0] - b[0], a[1] - b[1]);
    // On the segment from c to vertex k (within tol)? Then the depth along it.
    let on_spoke = |k: usize| -> Option<f64> {
        let v = proj[poly[k] as usize];
        let len = rad[poly[k] as usize].max(tol);
        let along = (p[0] - pc[0]) * (v[0] - pc[0]) + (p[1] - pc[1]) * (v[1] - pc[1]);
        if (cross(pc, v, p) / len).abs() <= tol && along >= 0.0 && rad_p <= len + tol {
            let t = (rad_p / len).min(1.0);
            Some(dc + t * (pts[poly[k] as usize].depth - dc))
        } else {
            None
        }
    };
    if m == 1 {
        return match on_spoke(0) {
            Some(sd) => Class::Inside { surface_depth: sd },
            None => Class::Outside,
        };
    }
    // The wedge [prev, next] containing theta (cyclic).
    let pos = angle.partition_point(|&a| a <= theta);
    let (ip, inx) = if pos == 0 || pos == m {
        (m - 1, 0)
    } else {
        (pos - 1, pos)
    };
    let mut gap = angle[inx] - angle[ip];
    if gap < 0.0 || (ip == m - 1 && inx == 0) {
        // The wrap-around wedge: gap ∈ (−4, 0] → [0, 4) (the remainder of
        // (gap + 4) by 4 without `fmod`).
        gap += TURN;
        if gap >= TURN {
            gap -= TURN;
        }
    }
    // An open wedge (≥ half a turn) is not covered by the polygon, except along
    // its spokes.
    if gap >= HALF_TURN - 1e-12 {
        return match on_spoke(ip).or_else(|| on_spoke(inx)) {
            Some(sd) => Class::Inside { surface_depth: sd },
            None => Class::Outside,
        };
    }
    // Inside the triangle (c, prev, next) iff on c's side of the edge prev→next.
    let a = proj[poly[ip] as usize];
    let b = proj[poly[inx] as usize];
    let len = dist(a, b).max(tol);
    if cross(a, b, p) / len < -tol {
        return Class::Outside;
    }
    // Barycentric interpolation of the depths of (c, a, b) at p.
    let area = cross(pc, a, b);
    let surface_depth = if area.abs() > 1e-300 {
        let (wa, wb) = (cross(pc, p, b) / area, cross(pc, a, p) / area);
        let wc = 1.0 - wa - wb;
        wc * dc + wa * pts[poly[ip] as usize].depth + wb * pts[poly[inx] as usize].depth
    } else {
        dc
    };
    Class::Inside { surface_depth }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::{PI, TAU};

    #[test]
    fn pseudo_angle_orders_as_atan2_and_opposites_differ_by_half_a_turn() {
        // 20,000 directions over the whole turn (the axes and diagonals exactly
        // among them): sorted by the pseudo-angle they are sorted by atan2, each
        // in (−2, 2] with −x at 2 as atan2's π, and a direction and its
        // opposite differ by 2 to round-off (wedges of half a turn are found as
        // `classify`'s test does).
        let n = 20_000;
        let mut dirs: Vec<(f64, f64)> = (0..n)
            .map(|k| {
                let a = -PI + TAU * (k as f64 + 0.5) / n as f64;
                (a.cos(), a.sin())
            })
            .collect();
        dirs.extend([(1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (-1.0, 1.0), (-1.0, 0.0)]);
        dirs.extend([
            (-1.0, -1.0),
            (0.0, -1.0),
            (1.0, -1.0),
            (3e-9, 1.0),
            (-1.0, 1e-300),
        ]);
        for &(x, y) in &dirs {
            let p = pseudo_angle(x, y);
            assert!(p > -2.0 && p <= 2.0, "({x}, {y}) → {p}");
            let mut half = pseudo_angle(-x, -y) - p;
            if half < 0.0 {
                half += TURN;
            }
            assert!((half - HALF_TURN).abs() <= 1e-15, "({x}, {y}): {half}");
        }
        assert_eq!(pseudo_angle(-1.0, 0.0), 2.0);
        let mut by_angle = dirs.clone();
        by_angle.sort_by(|a, b| a.1.atan2(a.0).total_cmp(&b.1.atan2(b.0)));
        let mut by_pseudo = dirs;
        by_pseudo.sort_by(|a, b| pseudo_angle(a.0, a.1).total_cmp(&pseudo_angle(b.0, b.1)));
        assert_eq!(by_angle, by_pseudo);
    }

    /// A box's manifold on a plane as `plane_polytope` builds it: the corners below
    /// the plane (depth = distance below), then the crossings of the edges (depth 0).
    fn box_on_plane(
        half: Vec3,
        rot: crate::math::Quat,
        centre: Vec3,
        plane: crate::math::Quat,
    ) -> (Vec<ContactPoint>, Vec3) {
        let corners: Vec<Vec3> = (0..8)
            .map(|k| {
                let s = |b: usize| if k & b != 0 { 1.0 } else { -1.0 };
                centre + rot * Vec3::new(s(1) * half.x, s(2) * half.y, s(4) * half.z)
            })
            .collect();
        let mut pts: Vec<ContactPoint> = corners
            .iter()
            .filter(|c| c.z < 0.0)
            .map(|c| ContactPoint::at(plane * c, -c.z))
            .collect();
        for a in 0..8usize {
            for b in [1usize, 2, 4] {
                if a & b == 0 {
                    let (p, q) = (corners[a], corners[a | b]);
                    if (p.z < 0.0) != (q.z < 0.0) {
                        let x = p + (q - p) * (p.z / (p.z - q.z));
                        pts.push(ContactPoint::at(plane * x, 0.0));
                    }
                }
            }
        }
        (pts, -(plane * Vec3::z()))
    }

    #[test]
    fn face_of_four_is_the_general_selection() {
        // Boxes resting on a plane of any orientation, level or tilted by up to
        // 0.3 rad, sunk 1e-9–1e-2 m: wherever the face path answers, it answers
        // what the general pass does, point for point and in its order; it
        // answers for every level box sunk ≥ 1e-6 m (the grid's resting boxes).
        let mut rng = crate::math::SplitMix64::new(18);
        let (mut taken, mut level_taken, mut level) = (0, 0, 0);
        for case in 0..20_000 {
            let half = Vec3::new(
                rng.uniform(0.01, 0.5),
                rng.uniform(0.01, 0.5),
                rng.uniform(0.01, 0.5),
            );
            let tilt = [0.0, 1e-12, 1e-8, 1e-5, 1e-3, 0.03, 0.3][case % 7];
            let yaw = rng.uniform(-3.2, 3.2);
            let axis = rng.uniform(-3.2, 3.2);
            let rot = crate::math::Quat::from_axis_angle(
                &nalgebra::Unit::new_normalize(Vec3::new(axis.cos(), axis.sin(), 0.0)),
                tilt,
            ) * crate::math::Quat::from_axis_angle(&Vec3::z_axis(), yaw);
            let sink = 10f64.powf(rng.uniform(-9.0, -2.0));
            let low = (0..8)
                .map(|k| {
                    let s = |b: usize| if k & b != 0 { 1.0 } else { -1.0 };
                    (rot * Vec3::new(s(1) * half.x, s(2) * half.y, s(4) * half.z)).z
                })
                .fold(f64::INFINITY, f64::min);
            let centre = Vec3::new(rng.uniform(-5.0, 5.0), rng.uniform(-5.0, 5.0), -sink - low);
            let plane = if case % 3 == 0 {
                crate::math::Quat::identity()
            } else {
                rng.rotation()
            };
            let (mut pts, normal) = box_on_plane(half, rot, centre, plane);
            let shift = case % pts.len().max(1);
            pts.rotate_left(shift);
            let mut s = SelectScratch::default();
            let (mut fast, mut general) = (Vec::new(), Vec::new());
            s.proj.clear();
            let (t1, t2) = tangent_basis(&normal);
            s.proj
                .extend(pts.iter().map(|p| [t1.dot(&p.p_w), t2.dot(&p.p_w)]));
            let took = face_of_four(&pts, &s.proj, &mut fast);
            select(&pts, &mut s, &mut general);
            if took {
                taken += 1;
                assert_eq!(fast, general, "case {case}");
            } else {
                assert!(fast.is_empty());
            }
            if tilt <= 1e-8 && sink >= 1e-6 {
                level += 1;
                level_taken += took as usize;
            }
        }
        println!("face path: {taken} of 20,000 boxes, {level_taken} of {level} level ones");
        assert_eq!(level_taken, level, "level boxes on the face path");
        assert!(taken > level, "{taken} of 20,000 on the face path");
    }

    fn pt(x: f64, y: f64, depth: f64) -> ContactPoint {
        // Normal +z: the projection is (x, y) up to the tangent basis' rotation.
        ContactPoint::at(Vec3::new(x, y, -depth), depth)
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
    fn line_contact_keeps_every_point_whatever_the_tilt() {
        // Five points along a line, as under a lying capsule, level and tilted both
        // ways: all are on the bottom.
        for slope in [0.0, 1e-4, -1e-4] {
            let pts: Vec<_> = (0..5)
                .map(|k| {
                    let y = -0.05 + 0.025 * k as f64;
                    pt(1e-17 * k as f64, y, 3e-4 + slope * y)
                })
                .collect();
            let mut s = SelectScratch::default();
            let mut out = Vec::new();
            bottom_points(&pts, &Vec3::z(), &mut s, &mut out);
            assert_eq!(out.len(), 5, "slope {slope}: {out:?}");
        }
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
