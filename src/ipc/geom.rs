//! The geometry of the barrier terms of 004, generic over [`Real`] so that one
//! definition gives values (`f64`) and exact derivatives ([`super::ad::D2`]):
//!
//! - the rigid map φ_i(θ_i, q_i) = R(θ_i) X̂_i + q_i (eq. 4) with Rodrigues' formula
//!   R(θ) = I + a(t)[θ] + b(t)[θ]², t = θ·θ, a = sin√t/√t, b = (1 − cos√t)/t, whose
//!   coefficients are evaluated by their Taylor series near θ = 0 so that the map and
//!   its derivatives are smooth through the identity;
//! - squared distances between surface primitives (IPC's d is the squared distance,
//!   compared with d̂²): point–point, point–edge (line), point–plane and edge–edge
//!   (lines), with the classification that picks, for a point–triangle or an
//!   edge–edge pair, which of them is the distance at the current configuration;
//! - the barrier b(d, d̂) of eq. (3) and the edge–edge mollifier of IPC (Li et al.
//!   2020, eq. 23) that keeps nearly parallel edges' terms C².
//!
//! The barrier is the C² one of IPC, b = −(d − d̂)² ln(d/d̂) for 0 < d < d̂, 0 beyond;
//! eq. (3) of the stored copy of 004 prints the factor (d − d̂) without its square,
//! which would make b only C¹ at d̂ (b″(d̂) = −2/d̂), against the paper's requirement that
//! the energy be C² for Newton's method.

use super::ad::Real;
use crate::math::Vec3;

/// A 3-vector over any [`Real`].
#[derive(Clone, Copy, Debug)]
pub struct V3<T>(pub [T; 3]);

impl<T: Real> V3<T> {
    #[inline]
    pub fn cst(v: &Vec3) -> Self {
        V3([T::cst(v.x), T::cst(v.y), T::cst(v.z)])
    }
    #[inline]
    pub fn val(&self) -> Vec3 {
        Vec3::new(self.0[0].val(), self.0[1].val(), self.0[2].val())
    }
    #[inline]
    pub fn add(&self, o: &Self) -> Self {
        V3([self.0[0] + o.0[0], self.0[1] + o.0[1], self.0[2] + o.0[2]])
    }
    #[inline]
    pub fn sub(&self, o: &Self) -> Self {
        V3([self.0[0] - o.0[0], self.0[1] - o.0[1], self.0[2] - o.0[2]])
    }
    #[inline]
    pub fn scale(&self, s: T) -> Self {
        V3([self.0[0] * s, self.0[1] * s, self.0[2] * s])
    }
    #[inline]
    pub fn dot(&self, o: &Self) -> T {
        self.0[0] * o.0[0] + self.0[1] * o.0[1] + self.0[2] * o.0[2]
    }
    #[inline]
    pub fn cross(&self, o: &Self) -> Self {
        let [a0, a1, a2] = self.0;
        let [b0, b1, b2] = o.0;
        V3([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])
    }
    #[inline]
    pub fn norm2(&self) -> T {
        self.dot(self)
    }
}

/// Below this t = |θ|², Rodrigues' coefficients come from their Taylor series (four
/// terms: truncation ≤ t⁴/9! ≈ 3e-18, and of the derivatives ≈ t³/10⁵).
const SERIES_T: f64 = 1e-3;

/// Rodrigues' coefficients (sin s / s, (1 − cos s) / s²) of t = s² = |θ|², smooth
/// through θ = 0.
fn rodrigues_coefficients<T: Real>(t: T) -> (T, T) {
    if t.val() < SERIES_T {
        // a = 1 − t/6 + t²/120 − t³/5040, b = 1/2 − t/24 + t²/720 − t³/40320.
        let a =
            T::cst(1.0) + t * (T::cst(-1.0 / 6.0) + t * (T::cst(1.0 / 120.0) - t * (1.0 / 5040.0)));
        let b = T::cst(0.5)
            + t * (T::cst(-1.0 / 24.0) + t * (T::cst(1.0 / 720.0) - t * (1.0 / 40320.0)));
        // Alternating series with decreasing terms: the remainder is below the next
        // term, t⁴/9! and t⁴/10!.
        let t4 = t.val().powi(4);
        (a.pad(t4 / 362_880.0), b.pad(t4 / 3_628_800.0))
    } else {
        let s = t.sqrt();
        (s.sin() / s, (T::cst(1.0) - s.cos()) / t)
    }
}

/// R(θ) x for a rotation vector θ (Rodrigues), smooth through θ = 0.
pub fn rotate<T: Real>(theta: &V3<T>, x: &V3<T>) -> V3<T> {
    let (a, b) = rodrigues_coefficients(theta.norm2());
    // R x = x + a θ×x + b θ×(θ×x).
    let tx = theta.cross(x);
    x.add(&tx.scale(a)).add(&theta.cross(&tx).scale(b))
}

/// (R(θ) − I) x = a θ×x + b θ×(θ×x), the displacement of x by the rotation, with
/// no cancellation at small θ (R(θ) x − x loses |x| ε to rounding).
pub fn rotate_delta<T: Real>(theta: &V3<T>, x: &V3<T>) -> V3<T> {
    let (a, b) = rodrigues_coefficients(theta.norm2());
    let tx = theta.cross(x);
    tx.scale(a).add(&theta.cross(&tx).scale(b))
}

/// World position of a body-frame point: φ = R(θ) x̂ + q (eq. 4).
#[inline]
pub fn world_point<T: Real>(theta: &V3<T>, q: &V3<T>, x_body: &Vec3) -> V3<T> {
    rotate(theta, &V3::cst(x_body)).add(q)
}

/// Squared distance between points.
#[inline]
pub fn d_point_point<T: Real>(p: &V3<T>, q: &V3<T>) -> T {
    p.sub(q).norm2()
}

/// Squared distance from p to the line through e0, e1: |(e0 − p)×(e1 − p)|²/|e1 − e0|².
#[inline]
pub fn d_point_line<T: Real>(p: &V3<T>, e0: &V3<T>, e1: &V3<T>) -> T {
    e0.sub(p).cross(&e1.sub(p)).norm2() / e1.sub(e0).norm2()
}

/// Squared distance from p to the plane of t0, t1, t2: ((p − t0)·n)²/|n|².
#[inline]
pub fn d_point_plane<T: Real>(p: &V3<T>, t0: &V3<T>, t1: &V3<T>, t2: &V3<T>) -> T {
    let n = t1.sub(t0).cross(&t2.sub(t0));
    let s = p.sub(t0).dot(&n);
    s * s / n.norm2()
}

/// Squared distance between the lines through (a0, a1) and (b0, b1).
#[inline]
pub fn d_line_line<T: Real>(a0: &V3<T>, a1: &V3<T>, b0: &V3<T>, b1: &V3<T>) -> T {
    let n = a1.sub(a0).cross(&b1.sub(b0));
    let s = b0.sub(a0).dot(&n);
    s * s / n.norm2()
}

/// Which distance a point–triangle pair has at the current configuration: to a
/// vertex, to an edge's line or to the triangle's plane (the feature of the
/// triangle nearest the point).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointTriangle {
    /// To vertex t_i.
    Vertex(u8),
    /// To the line of edge (t_i, t_{i+1 mod 3}).
    Edge(u8),
    Face,
}

/// Which distance an edge–edge pair (a0 a1, b0 b1) has: between the lines, from an
/// endpoint to the other edge's line, or between endpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeEdge {
    Lines,
    /// Endpoint i of a (0 or 1) to edge b's line.
    PointA(u8),
    /// Endpoint i of b to edge a's line.
    PointB(u8),
    /// Endpoint i of a to endpoint j of b.
    Points(u8, u8),
}

/// Which distance a point–segment pair (p; e0 e1) has: to an endpoint or to the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointEdge {
    /// To endpoint e_i.
    End(u8),
    /// To the segment's line (the closest point inside the segment).
    Line,
}

/// The feature of segment (e0, e1) nearest p.
pub fn classify_point_edge(p: &Vec3, e0: &Vec3, e1: &Vec3) -> PointEdge {
    let d = e1 - e0;
    let t = (p - e0).dot(&d);
    if t <= 0.0 {
        PointEdge::End(0)
    } else if t >= d.dot(&d) {
        PointEdge::End(1)
    } else {
        PointEdge::Line
    }
}

/// The parameter t ∈ [0, 1] of the point of segment (e0, e1) closest to p.
#[inline]
pub fn closest_on_segment(p: &Vec3, e0: &Vec3, e1: &Vec3) -> f64 {
    let de = e1 - e0;
    ((p - e0).dot(&de) / de.norm_squared().max(1e-300)).clamp(0.0, 1.0)
}

/// Squared point–segment distance of the classified type.
pub fn d_point_edge<T: Real>(ty: PointEdge, p: &V3<T>, e: [&V3<T>; 2]) -> T {
    match ty {
        PointEdge::End(i) => d_point_point(p, e[i as usize]),
        PointEdge::Line => d_point_line(p, e[0], e[1]),
    }
}

/// The feature of triangle (t0, t1, t2) nearest p (the Voronoi region of p), from the
/// barycentric tests of the closest point (Ericson, Real-Time Collision Detection,
/// §5.1.5). On a region boundary either answer gives the same distance.
pub fn classify_point_triangle(p: &Vec3, t: [&Vec3; 3]) -> PointTriangle {
    let (a, b, c) = (t[0], t[1], t[2]);
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return PointTriangle::Vertex(0);
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
    if d3 >= 0.0 && d4 <= d3 {
        return PointTriangle::Vertex(1);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return PointTriangle::Edge(0);
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
    if d6 >= 0.0 && d5 <= d6 {
        return PointTriangle::Vertex(2);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return PointTriangle::Edge(2);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return PointTriangle::Edge(1);
    }
    PointTriangle::Face
}

/// The closest-point parameters (s on a, u on b, both in [0, 1]) of two segments
/// and which of them were clamped to an end (Ericson §5.1.9, with parallel
/// segments resolved to an endpoint of a).
pub fn classify_edge_edge(a0: &Vec3, a1: &Vec3, b0: &Vec3, b1: &Vec3) -> EdgeEdge {
    let (d1, d2, r) = (a1 - a0, b1 - b0, a0 - b0);
    let (aa, ee, f) = (d1.dot(&d1), d2.dot(&d2), d2.dot(&r));
    let c = d1.dot(&r);
    let bb = d1.dot(&d2);
    let denom = aa * ee - bb * bb;
    // Lines (near) parallel: |d1 × d2|² = denom tiny relative to |d1|²|d2|².
    let mut s = if denom > 1e-12 * aa * ee {
        ((bb * f - c * ee) / denom).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut u = (bb * s + f) / ee;
    let mut u_end = false;
    if u < 0.0 {
        u = 0.0;
        u_end = true;
        s = (-c / aa).clamp(0.0, 1.0);
    } else if u > 1.0 {
        u = 1.0;
        u_end = true;
        s = ((bb - c) / aa).clamp(0.0, 1.0);
    }
    // (Parallel lines start from s = 0: an endpoint of a, unless clamping u moved s.)
    let s_end = s <= 0.0 || s >= 1.0;
    let end = |x: f64| u8::from(x >= 0.5);
    match (s_end, u_end || u <= 0.0 || u >= 1.0) {
        (false, false) => EdgeEdge::Lines,
        (true, false) => EdgeEdge::PointA(end(s)),
        (false, true) => EdgeEdge::PointB(end(u)),
        (true, true) => EdgeEdge::Points(end(s), end(u)),
    }
}

/// Squared point–triangle distance of the classified type.
pub fn d_point_triangle<T: Real>(ty: PointTriangle, p: &V3<T>, t: [&V3<T>; 3]) -> T {
    match ty {
        PointTriangle::Vertex(i) => d_point_point(p, t[i as usize]),
        PointTriangle::Edge(i) => d_point_line(p, t[i as usize], t[(i as usize + 1) % 3]),
        PointTriangle::Face => d_point_plane(p, t[0], t[1], t[2]),
    }
}

/// Squared edge–edge distance of the classified type.
pub fn d_edge_edge<T: Real>(ty: EdgeEdge, a: [&V3<T>; 2], b: [&V3<T>; 2]) -> T {
    match ty {
        EdgeEdge::Lines => d_line_line(a[0], a[1], b[0], b[1]),
        EdgeEdge::PointA(i) => d_point_line(a[i as usize], b[0], b[1]),
        EdgeEdge::PointB(j) => d_point_line(b[j as usize], a[0], a[1]),
        EdgeEdge::Points(i, j) => d_point_point(a[i as usize], b[j as usize]),
    }
}

/// The barrier b(d, d̂) = −(d − d̂)² ln(d/d̂) for 0 < d < d̂, else 0 (d, d̂ squared
/// distances). C² at d̂; +∞ as d → 0.
#[inline]
pub fn barrier<T: Real>(d: T, d_hat: f64) -> T {
    if d.val() >= d_hat {
        return T::cst(0.0);
    }
    let e = d - d_hat;
    -(e * e) * (d * (1.0 / d_hat)).ln()
}

/// The edge–edge mollifier of IPC: with c = |(a1 − a0)×(b1 − b0)|² and
/// ε_× = 1e-3 |a1 − a0|²|b1 − b0|² at rest, m = (2 − c/ε_×) c/ε_× below ε_× and 1
/// above: it takes nearly parallel edges' barrier smoothly to zero, where their
/// line–line distance is ill-defined (the point–edge terms hold them apart there).
#[inline]
pub fn edge_mollifier<T: Real>(a: [&V3<T>; 2], b: [&V3<T>; 2], eps_x: f64) -> T {
    let c = a[1].sub(a[0]).cross(&b[1].sub(b[0])).norm2();
    if c.val() >= eps_x {
        return T::cst(1.0);
    }
    let r = c * (1.0 / eps_x);
    (T::cst(2.0) - r) * r
}

/// ε_× of [`edge_mollifier`] from the rest lengths of the two edges.
#[inline]
pub fn mollifier_threshold(a0: &Vec3, a1: &Vec3, b0: &Vec3, b1: &Vec3) -> f64 {
    1e-3 * (a1 - a0).norm_squared() * (b1 - b0).norm_squared()
}

#[cfg(test)]
mod tests {
    use super::super::ad::D2;
    use super::*;
    use crate::math::Quat;

    fn c3(v: Vec3) -> V3<f64> {
        V3::cst(&v)
    }

    /// Brute force: the smallest squared distance from p to points of the triangle
    /// on a barycentric grid of n steps.
    fn brute_pt(p: &Vec3, t: [&Vec3; 3], n: usize) -> f64 {
        let mut best = f64::INFINITY;
        for i in 0..=n {
            for j in 0..=(n - i) {
                let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
                let x = t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v;
                best = best.min((p - x).norm_squared());
            }
        }
        best
    }

    fn brute_ee(a: [&Vec3; 2], b: [&Vec3; 2], n: usize) -> f64 {
        let mut best = f64::INFINITY;
        for i in 0..=n {
            for j in 0..=n {
                let x = a[0] + (a[1] - a[0]) * (i as f64 / n as f64);
                let y = b[0] + (b[1] - b[0]) * (j as f64 / n as f64);
                best = best.min((x - y).norm_squared());
            }
        }
        best
    }

    /// A small deterministic generator (xorshift) for the random configurations.
    struct Rng(u64);
    impl Rng {
        fn f(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        }
        fn v(&mut self) -> Vec3 {
            Vec3::new(self.f(), self.f(), self.f())
        }
    }

    /// The classified distance is the true distance: never above the brute-force
    /// minimum over a 400-step barycentric grid, and within its resolution
    /// (spacing ≈ 2/400, so the grid's minimum exceeds the truth by at most
    /// ≈ (2.5e-3·|edge|)² · 2 + 2·dist·2.5e-3·|edge|, bounded here by 2e-2·(d + 1e-3)).
    #[test]
    fn point_triangle_distance_is_the_minimum() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..300 {
            let t = [rng.v(), rng.v(), rng.v()];
            let p = rng.v() * 1.5;
            let tr = [&t[0], &t[1], &t[2]];
            let ty = classify_point_triangle(&p, tr);
            let d = d_point_triangle(ty, &c3(p), [&c3(t[0]), &c3(t[1]), &c3(t[2])]);
            let bf = brute_pt(&p, tr, 400);
            assert!(d <= bf + 1e-12, "{ty:?}: {d} above brute force {bf}");
            assert!(
                bf - d <= 2e-2 * (d.sqrt() + 1e-3),
                "{ty:?}: {d} vs brute force {bf}"
            );
        }
    }

    #[test]
    fn edge_edge_distance_is_the_minimum() {
        let mut rng = Rng(0xD1B5_4A32_D192_ED03);
        for k in 0..300 {
            let (a0, a1, b0) = (rng.v(), rng.v(), rng.v());
            // Every tenth pair parallel (b = a shifted).
            let b1 = if k % 10 == 0 {
                b0 + (a1 - a0) * 0.7
            } else {
                rng.v()
            };
            let ty = classify_edge_edge(&a0, &a1, &b0, &b1);
            let d = d_edge_edge(ty, [&c3(a0), &c3(a1)], [&c3(b0), &c3(b1)]);
            let bf = brute_ee([&a0, &a1], [&b0, &b1], 1000);
            assert!(d <= bf + 1e-12, "{k} {ty:?}: {d} above brute force {bf}");
            assert!(
                bf - d <= 1e-2 * (d.sqrt() + 1e-3),
                "{k} {ty:?}: {d} vs brute force {bf}"
            );
        }
    }

    /// Rodrigues agrees with the unit quaternion of the same rotation vector, on
    /// both sides of the series threshold (|θ|² = 1e-3) and at θ = 0.
    #[test]
    fn rotation_matches_quaternion() {
        let x = Vec3::new(0.3, -0.7, 1.1);
        for th in [
            Vec3::zeros(),
            Vec3::new(1e-8, 0.0, 0.0),
            Vec3::new(0.01, -0.02, 0.015),
            Vec3::new(0.0316, 0.0, 0.0),
            Vec3::new(0.0317, 0.0, 0.0),
            Vec3::new(0.5, -1.0, 2.0),
            Vec3::new(3.0, 0.1, 0.0),
        ] {
            let r = rotate(&c3(th), &c3(x)).val();
            let q = Quat::from_scaled_axis(th) * x;
            assert!(
                (r - q).norm() < 1e-15 * (1.0 + x.norm()),
                "θ = {th:?}: {r:?} vs {q:?}"
            );
        }
    }

    /// d/dθ of R(θ)x at θ = 0 is −[x] (R x ≈ x + θ × x), and the second derivative
    /// is smooth across the series threshold (D2 on both sides agrees with central
    /// differences of the f64 map).
    #[test]
    fn rotation_derivatives() {
        let x = Vec3::new(0.3, -0.7, 1.1);
        let var = |th: Vec3| V3([D2::<3>::var(th.x, 0), D2::var(th.y, 1), D2::var(th.z, 2)]);
        let r0 = rotate(&var(Vec3::zeros()), &V3::cst(&x));
        for (c, comp) in r0.0.iter().enumerate() {
            for j in 0..3 {
                let e = Vec3::ith(j, 1.0);
                let want = e.cross(&x)[c];
                assert!((comp.g[j] - want).abs() < 1e-15);
            }
        }
        for th in [
            Vec3::new(0.0316, 0.001, 0.0),
            Vec3::new(0.0318, 0.001, 0.0),
            Vec3::new(0.4, 0.2, -0.9),
        ] {
            let r = rotate(&var(th), &V3::cst(&x));
            let h = 1e-4;
            for c in 0..3 {
                for j in 0..3 {
                    for k in 0..3 {
                        let f = |dj: f64, dk: f64| {
                            let mut t = th;
                            t[j] += dj;
                            t[k] += dk;
                            rotate(&c3(t), &c3(x)).val()[c]
                        };
                        let fd = (f(h, h) - f(h, -h) - f(-h, h) + f(-h, -h)) / (4.0 * h * h);
                        assert!(
                            (fd - r.0[c].h[j][k]).abs() < 1e-6,
                            "θ {th:?}: ∂²R/∂θ{j}∂θ{k}[{c}] {fd} vs {}",
                            r.0[c].h[j][k]
                        );
                    }
                }
            }
        }
    }

    /// b(d̂) = b′(d̂) = b″(d̂) = 0 (C² at d̂), b > 0 inside, and the derivatives at an
    /// inner point against the closed forms b′ = −2(d − d̂) ln(d/d̂) − (d − d̂)²/d,
    /// b″ = −2 ln(d/d̂) − 4(d − d̂)/d + (d − d̂)²/d².
    #[test]
    fn barrier_is_c2_at_d_hat() {
        let dh = 1e-6;
        let at = |d: f64| barrier(D2::<1>::var(d, 0), dh);
        let edge = at(dh * (1.0 - 1e-9));
        assert!(edge.v.abs() < 1e-30 && edge.g[0].abs() < 1e-20 && edge.h[0][0].abs() < 1e-8);
        let d = 0.3 * dh;
        let b = at(d);
        let (e, l) = (d - dh, (d / dh).ln());
        assert!(b.v > 0.0);
        assert!((b.g[0] - (-2.0 * e * l - e * e / d)).abs() < 1e-12 * b.g[0].abs());
        let b2 = -2.0 * l - 4.0 * e / d + e * e / (d * d);
        assert!((b.h[0][0] - b2).abs() < 1e-12 * b2.abs());
        assert!(at(1e-30).v > at(1e-20).v, "diverges as d → 0");
    }

    /// The mollifier is 1 above ε_×, 0 for parallel edges, and C¹ at ε_×.
    #[test]
    fn mollifier_goes_to_zero_for_parallel_edges() {
        let (a0, a1) = (Vec3::zeros(), Vec3::x());
        let eps = mollifier_threshold(&a0, &a1, &a0, &a1);
        let m = |ang: f64| {
            let (b0, b1) = (
                Vec3::new(0.0, 0.0, 0.1),
                Vec3::new(ang.cos(), ang.sin(), 0.1),
            );
            edge_mollifier([&c3(a0), &c3(a1)], [&c3(b0), &c3(b1)], eps)
        };
        assert_eq!(m(0.0), 0.0);
        assert_eq!(m(0.5), 1.0);
        // c = sin²(angle) = ε at the threshold: m → 1 with zero slope.
        let at = eps.sqrt().asin();
        assert!((m(at * (1.0 - 1e-6)) - 1.0).abs() < 1e-9);
    }
}
