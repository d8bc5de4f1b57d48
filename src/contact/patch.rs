//! The contact patch of a face or line contact, and Coulomb friction integrated over it.
//!
//! A face contact's points are the vertices of its patch — the polygon where the two
//! surfaces meet (a box's face on a plane, a face clipped by another, a cylinder's
//! base ring) — and a line contact's points are the ends of its segment (a box on
//! its edge, a lying cylinder). Coulomb's law holds at every point of the patch, so
//! a sliding patch carries
//!
//!   F = −μ ∫_P p(x) ŝ(x) dA,    τ_n = −μ ∫_P p(x) n·((x − c) × ŝ(x)) dA,
//!
//! ŝ(x) the slip direction at x: the force and the moment about the normal are
//! coupled (Contensou's effect: a disc that slides and spins at once stops both at
//! the same instant). At the vertices alone a spin meets the corners' lever arm: a
//! disc spinning flat stopped 1.5× and a cube 1.85× sooner than under the uniform
//! pressure of the textbook (τ = (2/3) μ m g R for the disc; docs/EXPERIMENTS.md,
//! "Outside scenes, session 35").
//!
//! **The pressure.** p is the affine field over the patch polygon P (area A,
//! centroid x_c, second moment J) with the points' resultant N = Σ f_j and centre
//! c = Σ f_j x_j / N: p(x) = N (1/A + g·(x − x_c)), g = J⁻¹ (c − x_c). It is the
//! pressure of a rigid face on a bed of normal springs (the depth is affine over a
//! flat patch), and for equal point forces the uniform pressure. Per point,
//! p = Σ_j f_j ψ_j with ψ_j(x) = 1/A + (x_j − x_c)ᵀ J⁻¹ (x − x_c): ∫ψ_j = 1 and
//! ∫ψ_j x = x_j, so a patch that slides without spinning gets each point's own
//! Coulomb force at the point, as before. Where c lies outside the patch's kern
//! p < 0 on part of P; it is taken as 0 there and the rest scaled to carry N.
//!
//! **Sticking** is not changed: its torsional spring and its limit μ N r keep the
//! points' own spread r (`friction::centroid`), the static limit of a box's
//! twist 1.85× the sliding torque that ends it. Taken over the patch (its lever
//! by this quadrature, or in closed form over the fan of triangles from c), the
//! clamped-anchor pushed row pile's sleeping run parted from its awake run by
//! 6.4 mm against round-off's own 0.65 mm, and the closed form left that 20-pile
//! with rolling resistance 7 of 20 asleep at 12 s (`tests/sleep.rs`; session 35).
//!
//! **Quadrature** (the sliding wrench, whose slip direction has no closed form):
//! fan triangles from x_c, each cut into 16 congruent triangles sampled at their
//! centroids; a line in 32 pieces at their midpoints. The sliding sums take J by
//! the same rule, so that ∫ψ_j = 1 and ∫ψ_j x = x_j hold for the discrete sums
//! (a translating patch gets its points' own forces to rounding); the rule is low
//! by 1.0 % on a square's ∫|x| (|x| is convex) and 0.25 % on an octagon's.
//!
//! **The LCP's rows** (`pipeline::lcp::rows::friction_points`) know no normal forces
//! when they are built: the patch of a manifold's points under equal forces
//! ([`Patch::of_points`]) gives each point its spin lever ρ_j = ∫ψ_j |x − c|
//! ([`Patch::spin_levers`]), where its friction rows act.
//!
//! The patch is the convex hull of the points carrying force; a pair is a patch
//! when at least two of them do and each acts at its own point (not a round cap's
//! ring, whose lever is the cap's deepest point: [`ContactPoint::lever`]). At most
//! [`MAX_POINTS`]; a pair with more keeps friction at its points.
//!
//! [`ContactPoint::lever`]: crate::collision::ContactPoint::lever

use super::{PairContext, PointForce};
use crate::math::{tangent_basis, Vec3};

/// Points carrying force that a patch takes (a box–box face clip has ≤ 8, a
/// cylinder's base ring ≤ 16).
pub const MAX_POINTS: usize = 16;
/// Each fan triangle is cut into `SUB²` triangles.
const SUB: usize = 4;
/// Pieces of a line patch.
const LINE: usize = 32;

type P2 = [f64; 2];

#[inline]
fn sub(a: P2, b: P2) -> P2 {
    [a[0] - b[0], a[1] - b[1]]
}
#[inline]
fn dot(a: P2, b: P2) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}
#[inline]
fn cross(a: P2, b: P2) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}

/// The patch's polygon (convex hull, counter-clockwise) or its segment.
#[derive(Clone, Copy, Debug)]
enum Region {
    /// The polygon `Patch::hull[..k]`.
    Area {
        k: usize,
    },
    Line {
        dir: P2,
        s0: f64,
        s1: f64,
    },
}

/// The contact patch of one pair at one evaluation (module doc). Coordinates are
/// 2D in the contact plane through the force centre c, along `t`.
#[derive(Clone, Copy, Debug)]
pub struct Patch {
    n: Vec3,
    t: [Vec3; 2],
    /// The force centre c = Σ f_j lever_j / N, world, m.
    c: Vec3,
    /// N = Σ f_j, N.
    total: f64,
    /// The points carrying force: their index into the pair's points, their 2D
    /// position and their force.
    m: usize,
    point: [u32; MAX_POINTS],
    x: [P2; MAX_POINTS],
    f: [f64; MAX_POINTS],
    /// The patch's polygon (counter-clockwise) when it is an area.
    hull: [P2; MAX_POINTS],
    region: Region,
    /// The area's (the line's) centroid x_c.
    xc: P2,
}

/// The pressure per newton over a patch, p(x)/N = base + g·(x − x_c), and its
/// split by point, ψ_j(x) = base + a_j·(x − x_c) (module doc), for one J.
#[derive(Clone, Copy, Debug)]
struct Pressure {
    base: f64,
    g: P2,
    a: [P2; MAX_POINTS],
}

impl Pressure {
    #[inline]
    fn at(&self, d: P2) -> f64 {
        self.base + dot(self.g, d)
    }
}

/// Sliding friction of a patch on a per newton of one point's normal force: the
/// force, applied at the point, and the moment about the normal beside it.
#[derive(Clone, Copy, Debug, Default)]
pub struct PerNewton {
    pub force: Vec3,
    pub torque: Vec3,
}

impl Patch {
    /// The patch of the points carrying force in `forces`, if it is an area or a
    /// line (module doc).
    pub fn new(ctx: &PairContext, forces: &[PointForce]) -> Option<Patch> {
        let mut m = 0;
        let mut point = [0u32; MAX_POINTS];
        let mut f = [0.0; MAX_POINTS];
        let mut lever = [Vec3::zeros(); MAX_POINTS];
        for pf in forces.iter().filter(|pf| pf.f_n > 0.0) {
            let pt = &ctx.points[pf.point as usize];
            if pt.lever != pt.p_w || m == MAX_POINTS {
                return None;
            }
            point[m] = pf.point;
            f[m] = pf.f_n;
            lever[m] = pt.lever;
            m += 1;
        }
        Self::build(&ctx.normal, (&point[..m], &lever[..m], &f[..m]))
    }

    /// The patch of points `levers` (world, on the contact plane of normal `n`)
    /// that carry equal forces — the uniform pressure — for a solver whose normal
    /// forces are unknowns when its rows are built (the LCP's friction levers,
    /// [`Patch::spin_levers`]). Point j is slot j.
    pub fn of_points(n: &Vec3, levers: &[Vec3]) -> Option<Patch> {
        let m = levers.len();
        if m > MAX_POINTS {
            return None;
        }
        let mut point = [0u32; MAX_POINTS];
        for (j, p) in point[..m].iter_mut().enumerate() {
            *p = j as u32;
        }
        Self::build(n, (&point[..m], levers, &[1.0; MAX_POINTS][..m]))
    }

    /// The patch of points `point` at `lever` with forces `f` (all > 0).
    fn build(n: &Vec3, (point_in, lever, f_in): (&[u32], &[Vec3], &[f64])) -> Option<Patch> {
        let m = point_in.len();
        let mut point = [0u32; MAX_POINTS];
        let mut f = [0.0; MAX_POINTS];
        let mut total = 0.0;
        let mut c = Vec3::zeros();
        for j in 0..m {
            point[j] = point_in[j];
            f[j] = f_in[j];
            total += f_in[j];
            c += lever[j] * f_in[j];
        }
        if m < 2 || !total.is_finite() {
            return None;
        }
        c /= total;
        let n = *n;
        let (t1, t2) = tangent_basis(&n);
        let mut x = [[0.0; 2]; MAX_POINTS];
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for j in 0..m {
            let d = lever[j] - c;
            x[j] = [t1.dot(&d), t2.dot(&d)];
            for a in 0..2 {
                lo[a] = lo[a].min(x[j][a]);
                hi[a] = hi[a].max(x[j][a]);
            }
        }
        // The extent (the bounding box's diagonal), squared.
        let d2 = dot(sub(hi, lo), sub(hi, lo));
        if d2 <= 0.0 || !d2.is_finite() {
            return None;
        }
        let (hull, k) = convex_hull(&x[..m]);
        let area2: f64 = (0..k).map(|i| cross(hull[i], hull[(i + 1) % k])).sum();
        let mut patch = Patch {
            n,
            t: [t1, t2],
            c,
            total,
            m,
            point,
            x,
            f,
            hull,
            region: Region::Area { k },
            xc: [0.0; 2],
        };
        if k >= 3 && 0.5 * area2 > 1e-9 * d2 {
            patch.xc = polygon_centroid(&hull[..k]);
        } else {
            // The line's direction: its two farthest points.
            let mut far = (0.0, [0.0; 2]);
            for j in 0..m {
                for i in 0..j {
                    let e = sub(x[j], x[i]);
                    if dot(e, e) > far.0 {
                        far = (dot(e, e), e);
                    }
                }
            }
            let (dir, len) = (far.1, far.0.sqrt());
            let dir = [dir[0] / len, dir[1] / len];
            let s = |p: P2| dot(dir, p);
            let (s0, s1) = x[..m]
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                    (lo.min(s(*p)), hi.max(s(*p)))
                });
            patch.region = Region::Line { dir, s0, s1 };
            let sc = 0.5 * (s0 + s1);
            patch.xc = [dir[0] * sc, dir[1] * sc];
        }
        Some(patch)
    }

    /// The pressure of the points' forces over the patch for measure A (L) and
    /// second moment J about x_c (a line's J is J_ss dir dirᵀ), and its split by
    /// point a_j.
    fn pressure(&self, measure: f64, j: [[f64; 2]; 2]) -> Option<Pressure> {
        let jinv = match self.region {
            Region::Area { .. } => {
                let det = j[0][0] * j[1][1] - j[0][1] * j[1][0];
                if det.is_nan() || det <= 0.0 {
                    return None;
                }
                [
                    [j[1][1] / det, -j[0][1] / det],
                    [-j[1][0] / det, j[0][0] / det],
                ]
            }
            Region::Line { dir, .. } => {
                // ψ_j varies along the line only: J⁻¹ = dir dirᵀ / J_ss.
                let jss = dot(
                    dir,
                    [
                        j[0][0] * dir[0] + j[0][1] * dir[1],
                        j[1][0] * dir[0] + j[1][1] * dir[1],
                    ],
                );
                if jss.is_nan() || jss <= 0.0 {
                    return None;
                }
                [
                    [dir[0] * dir[0] / jss, dir[0] * dir[1] / jss],
                    [dir[1] * dir[0] / jss, dir[1] * dir[1] / jss],
                ]
            }
        };
        if measure.is_nan() || measure <= 0.0 {
            return None;
        }
        let mut pr = Pressure {
            base: 1.0 / measure,
            g: [0.0; 2],
            a: [[0.0; 2]; MAX_POINTS],
        };
        for jj in 0..self.m {
            let d = sub(self.x[jj], self.xc);
            let aj = [
                jinv[0][0] * d[0] + jinv[0][1] * d[1],
                jinv[1][0] * d[0] + jinv[1][1] * d[1],
            ];
            pr.a[jj] = aj;
            pr.g[0] += self.f[jj] * aj[0] / self.total;
            pr.g[1] += self.f[jj] * aj[1] / self.total;
        }
        Some(pr)
    }

    /// The pressure with J summed by the quadrature's own rule (module doc).
    fn rule_pressure(&self) -> Option<Pressure> {
        let (mut measure, mut j) = (0.0, [[0.0; 2]; 2]);
        self.samples(|p, w| {
            let d = sub(p, self.xc);
            measure += w;
            j[0][0] += w * d[0] * d[0];
            j[0][1] += w * d[0] * d[1];
            j[1][1] += w * d[1] * d[1];
        });
        j[1][0] = j[0][1];
        self.pressure(measure, j)
    }

    /// The force centre c, world, m.
    #[inline]
    pub fn centre(&self) -> Vec3 {
        self.c
    }

    #[inline]
    fn world(&self, p: P2) -> Vec3 {
        self.c + self.t[0] * p[0] + self.t[1] * p[1]
    }

    /// Visit the quadrature's points and weights (module doc).
    fn samples(&self, mut visit: impl FnMut(P2, f64)) {
        match self.region {
            Region::Area { k } => {
                let hull = &self.hull;
                let s = SUB as f64;
                for i in 0..k {
                    let (e1, e2) = (sub(hull[i], self.xc), sub(hull[(i + 1) % k], self.xc));
                    let w = 0.5 * cross(e1, e2) / (s * s);
                    let at = |u: f64, v: f64| {
                        [
                            self.xc[0] + e1[0] * u / s + e2[0] * v / s,
                            self.xc[1] + e1[1] * u / s + e2[1] * v / s,
                        ]
                    };
                    for a in 0..SUB {
                        for b in 0..SUB - a {
                            let (a, b) = (a as f64, b as f64);
                            visit(at(a + 1.0 / 3.0, b + 1.0 / 3.0), w);
                            if a + b + 2.0 <= s {
                                visit(at(a + 2.0 / 3.0, b + 2.0 / 3.0), w);
                            }
                        }
                    }
                }
            }
            Region::Line { dir, s0, s1 } => {
                let w = (s1 - s0) / LINE as f64;
                for i in 0..LINE {
                    let s = s0 + (i as f64 + 0.5) * w;
                    visit([dir[0] * s, dir[1] * s], w);
                }
            }
        }
    }

    /// The slip of a relative to b at plane point `p` (tangential), and Coulomb's
    /// regularized factor min(‖s‖/v_stick, 1)/‖s‖ (0 where it does not slip).
    #[inline]
    fn slip(&self, ctx: &PairContext, p: P2, v_stick: f64) -> (Vec3, f64) {
        let xw = self.world(p);
        let v = ctx.a.velocity_at(&xw) - ctx.b.velocity_at(&xw);
        let v = v - self.n * self.n.dot(&v);
        let speed = v.norm();
        if speed > 0.0 {
            (v, (speed / v_stick).min(1.0) / speed)
        } else {
            (v, 0.0)
        }
    }

    /// Sliding friction on a: the force at the centre c and the moment about the
    /// normal (module doc).
    pub fn sliding(&self, ctx: &PairContext, mu: f64, v_stick: f64) -> (Vec3, Vec3) {
        let Some(pr) = self.rule_pressure() else {
            return (Vec3::zeros(), Vec3::zeros());
        };
        let (mut f, mut tau, mut pos) = ([0.0; 2], 0.0, 0.0);
        self.samples(|p, w| {
            let pn = pr.at(sub(p, self.xc));
            if pn <= 0.0 {
                return;
            }
            pos += w * pn;
            let (v, reg) = self.slip(ctx, p, v_stick);
            let k = -pn * w * reg;
            let fx = [self.t[0].dot(&v) * k, self.t[1].dot(&v) * k];
            f[0] += fx[0];
            f[1] += fx[1];
            tau += cross(p, fx);
        });
        if pos.is_nan() || pos <= 0.0 {
            return (Vec3::zeros(), Vec3::zeros());
        }
        // p⁺ scaled to carry N; t₁ × t₂ = n (`tangent_basis`): the plane's cross
        // product is the moment about n.
        let k = mu * self.total / pos;
        (
            (self.t[0] * f[0] + self.t[1] * f[1]) * k,
            self.n * (tau * k),
        )
    }

    /// [`Patch::sliding`] split by point, per newton of each point's normal force:
    /// `out[j]` for the pair's point of [`Patch::slot`] j; Σ_j f_j `out[j]` (forces
    /// at the points, torques beside them) is [`Patch::sliding`]'s wrench.
    pub fn sliding_per_newton(
        &self,
        ctx: &PairContext,
        mu: f64,
        v_stick: f64,
        out: &mut [PerNewton; MAX_POINTS],
    ) {
        let Some(pr) = self.rule_pressure() else {
            out.fill(PerNewton::default());
            return;
        };
        let mut acc = [([0.0; 2], 0.0); MAX_POINTS];
        let mut pos = 0.0;
        self.samples(|p, w| {
            let d = sub(p, self.xc);
            let pn = pr.at(d);
            if pn <= 0.0 {
                return;
            }
            pos += w * pn;
            let (v, reg) = self.slip(ctx, p, v_stick);
            let s = [self.t[0].dot(&v), self.t[1].dot(&v)];
            for (j, acc) in acc[..self.m].iter_mut().enumerate() {
                let psi = -(pr.base + dot(pr.a[j], d)) * w * reg;
                let fx = [s[0] * psi, s[1] * psi];
                acc.0[0] += fx[0];
                acc.0[1] += fx[1];
                acc.1 += cross(sub(p, self.x[j]), fx);
            }
        });
        let k = if pos > 0.0 { mu / pos } else { 0.0 };
        for (o, (fx, tau)) in out.iter_mut().zip(&acc[..self.m]) {
            *o = PerNewton {
                force: (self.t[0] * fx[0] + self.t[1] * fx[1]) * k,
                torque: self.n * (tau * k),
            };
        }
    }

    /// Each point's lever for a spin about the force centre c: ρ_j = ∫ψ_j |x − c|
    /// (module doc's ψ_j, by the quadrature), so that Coulomb's law at distance ρ_j
    /// from c carries point j's share of the patch's torsional friction: Σ_j μ f_j ρ_j
    /// is the spin's moment μ ∫p |x − c| of the patch's pressure. Written to
    /// `out[..m]` (m the patch's points, in slot order); false (nothing written)
    /// if the pressure is degenerate. A square's corners under equal forces get
    /// ρ = 0.765 a (their own distance a√2); a segment's ends, half the half-length.
    pub fn spin_levers(&self, out: &mut [f64]) -> bool {
        if out.len() < self.m {
            return false;
        }
        // ρ_j = ∫(base + a_j·(x − x_c)) |x| = base ∫|x| + a_j·∫(x − x_c)|x| (x about
        // c): one pass for the rule's measure and J (ψ_j's, as `rule_pressure`
        // sums them) and the two moments, then a dot per point.
        let (mut measure, mut j) = (0.0, [[0.0; 2]; 2]);
        let (mut i0, mut i1) = (0.0, [0.0; 2]);
        self.samples(|p, w| {
            let d = sub(p, self.xc);
            let r = dot(p, p).sqrt();
            measure += w;
            j[0][0] += w * d[0] * d[0];
            j[0][1] += w * d[0] * d[1];
            j[1][1] += w * d[1] * d[1];
            i0 += w * r;
            i1[0] += w * d[0] * r;
            i1[1] += w * d[1] * r;
        });
        j[1][0] = j[0][1];
        let Some(pr) = self.pressure(measure, j) else {
            return false;
        };
        for (o, a) in out[..self.m].iter_mut().zip(&pr.a) {
            *o = pr.base * i0 + dot(*a, i1);
        }
        out[..self.m].iter().all(|a| a.is_finite())
    }

    /// The slot j of the pair's point `point` among the patch's points.
    #[inline]
    pub fn slot(&self, point: u32) -> Option<usize> {
        self.point[..self.m].iter().position(|&p| p == point)
    }
}

/// The centroid of the convex polygon `hull` (counter-clockwise): the shoelace's
/// triangles from the origin.
fn polygon_centroid(hull: &[P2]) -> P2 {
    let k = hull.len();
    let (mut a2, mut cx, mut cy) = (0.0, 0.0, 0.0);
    for i in 0..k {
        let (p, q) = (hull[i], hull[(i + 1) % k]);
        let w = cross(p, q);
        a2 += w;
        cx += (p[0] + q[0]) * w;
        cy += (p[1] + q[1]) * w;
    }
    [cx / (3.0 * a2), cy / (3.0 * a2)]
}

/// Convex hull of `pts` (counter-clockwise, no collinear vertices; Andrew's
/// monotone chain on a fixed buffer).
fn convex_hull(pts: &[P2]) -> ([P2; MAX_POINTS], usize) {
    let mut s = [[0.0; 2]; MAX_POINTS];
    let m = pts.len();
    s[..m].copy_from_slice(pts);
    s[..m].sort_unstable_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    let mut h = [[0.0; 2]; 2 * MAX_POINTS];
    let mut k = 0;
    for &p in &s[..m] {
        while k >= 2 && cross(sub(h[k - 1], h[k - 2]), sub(p, h[k - 2])) <= 0.0 {
            k -= 1;
        }
        h[k] = p;
        k += 1;
    }
    let lower = k + 1;
    for &p in s[..m.saturating_sub(1)].iter().rev() {
        while k >= lower && cross(sub(h[k - 1], h[k - 2]), sub(p, h[k - 2])) <= 0.0 {
            k -= 1;
        }
        h[k] = p;
        k += 1;
    }
    let k = k.saturating_sub(1).min(MAX_POINTS);
    let mut out = [[0.0; 2]; MAX_POINTS];
    out[..k].copy_from_slice(&h[..k]);
    (out, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hull_and_centroid_of_a_quadrilateral_with_an_inner_point() {
        // A cylinder's rim and centre, and a clipped face with a repeated vertex.
        let pts = [
            [0.0, 0.0],
            [2.0, 0.0],
            [1.0, 0.5],
            [2.0, 1.0],
            [0.0, 1.0],
            [2.0, 0.0],
        ];
        let (hull, k) = convex_hull(&pts);
        assert_eq!(k, 4, "{:?}", &hull[..k]);
        let area2: f64 = (0..k).map(|i| cross(hull[i], hull[(i + 1) % k])).sum();
        assert!(
            (area2 - 4.0).abs() < 1e-15,
            "counter-clockwise, area 2: {area2}"
        );
        let c = polygon_centroid(&hull[..k]);
        assert!(
            (c[0] - 1.0).abs() < 1e-15 && (c[1] - 0.5).abs() < 1e-15,
            "{c:?}"
        );
    }
}
