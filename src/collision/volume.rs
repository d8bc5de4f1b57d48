//! Volume, centroid and depth moment of the convex hull of a small point set: the
//! interpenetration measure of 002 §3.3 ("the interpenetration is defined as the
//! intersecting volume between the two objects").
//!
//! A manifold of a polytopal pair lists the vertices of the intersection polytope
//! (see [`crate::collision`]); their convex hull *is* the intersection volume. The
//! hull is built incrementally (initial tetrahedron, then each point added through its
//! horizon), and the volume integrals are a tetrahedral fan from an interior point:
//!
//! - V = Σ_f (a − o)·((b − o) × (c − o))/6 over the outward triangles (a, b, c);
//! - centroid = Σ_f V_f (o + a + b + c)/4 / V;
//! - ∫ d dV for an attribute d that is affine over the volume (the depth below the
//!   contact plane): Σ_f V_f (d_o + d_a + d_b + d_c)/4, exact for affine d.
//!
//! For a plane contact, λ ∫ d dV is exactly the potential of the force λV applied
//! at the centroid along the normal (its derivative along the normal is λV, its
//! derivative under a rotation is the moment of that force), so the elastic energy
//! of a volume contact is U = λ ∫ d dV.
//!
//! Tolerances are relative to the spread of the points: points within 1e-10 of it
//! of a facet plane count as on it; a set whose hull is thinner than that has zero
//! volume. Working buffers live in [`VolumeScratch`]; a warmed-up call does not
//! allocate and never panics (non-finite input gives zero volume).

use crate::collision::ContactPoint;
use crate::math::Vec3;

/// Volume integrals of a point set's convex hull.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HullVolume {
    /// m³ (0 for a flat or degenerate set).
    pub volume: f64,
    /// Centroid of the volume, world frame (the mean of the points if flat).
    pub centroid: Vec3,
    /// ∫ depth dV, m⁴ (depth taken as affine over the volume).
    pub depth_moment: f64,
}

/// One outward triangle of the hull under construction.
#[derive(Clone, Copy, Debug)]
struct Tri {
    v: [u32; 3],
    /// Unit outward normal (zero for a degenerate sliver, which is never visible).
    n: Vec3,
    off: f64,
    alive: bool,
}

/// Reusable buffers of [`hull_volume`].
#[derive(Clone, Debug, Default)]
pub struct VolumeScratch {
    pts: Vec<Vec3>,
    tris: Vec<Tri>,
    edges: Vec<(u32, u32)>,
    horizon: Vec<(u32, u32)>,
}

impl VolumeScratch {
    /// Buffers for hulls of up to `n` points without growing: the points; 16
    /// triangles per point (the live hull has at most 2n − 4, and the incremental
    /// construction keeps the faces each insertion hides, as dead entries); 6 visible
    /// edges and 2 horizon edges per point (an insertion's horizon is a cycle about
    /// its visible region). Beyond these they grow by doubling, like the other
    /// buffers sized in `collision::capacity`.
    pub fn with_capacity(n: usize) -> Self {
        VolumeScratch {
            pts: Vec::with_capacity(n),
            tris: Vec::with_capacity(16 * n),
            edges: Vec::with_capacity(6 * n),
            horizon: Vec::with_capacity(2 * n),
        }
    }
}

/// Volume, centroid and depth moment of the convex hull of `points`.
pub fn hull_volume(points: &[ContactPoint], s: &mut VolumeScratch) -> HullVolume {
    let n = points.len();
    let flat = |pts: &[ContactPoint]| {
        let k = pts.len().max(1) as f64;
        HullVolume {
            volume: 0.0,
            centroid: pts.iter().fold(Vec3::zeros(), |a, p| a + p.p_w) / k,
            depth_moment: 0.0,
        }
    };
    if n < 4 || !points.iter().all(|p| p.p_w.iter().all(|c| c.is_finite())) {
        return flat(points);
    }
    // Work relative to the mean point, for precision.
    let m = points.iter().fold(Vec3::zeros(), |a, p| a + p.p_w) / n as f64;
    s.pts.clear();
    s.pts.extend(points.iter().map(|p| p.p_w - m));
    let pts = &s.pts;
    let spread = pts.iter().map(|p| p.norm()).fold(0.0, f64::max);
    if spread.is_nan() || spread <= 0.0 {
        return flat(points);
    }
    let eps = 1e-10 * spread;

    // Initial tetrahedron: extreme point, farthest point, farthest from their line,
    // farthest from their plane.
    let i0 = (0..n)
        .min_by(|&a, &b| pts[a].x.total_cmp(&pts[b].x))
        .unwrap_or(0);
    let far = |f: &dyn Fn(&Vec3) -> f64| {
        (0..n)
            .map(|i| (i, f(&pts[i])))
            .fold((0, -1.0), |best, c| if c.1 > best.1 { c } else { best })
    };
    let p0 = pts[i0];
    let (i1, d1) = far(&|p| (p - p0).norm());
    if d1 <= eps {
        return flat(points);
    }
    let u = (pts[i1] - p0) / d1;
    let (i2, d2) = far(&|p| (p - p0).cross(&u).norm());
    if d2 <= eps {
        return flat(points);
    }
    let nrm = u.cross(&(pts[i2] - p0)).normalize();
    let (i3, d3) = far(&|p| nrm.dot(&(p - p0)).abs());
    if d3 <= eps {
        return flat(points);
    }
    let o = (p0 + pts[i1] + pts[i2] + pts[i3]) * 0.25;
    s.tris.clear();
    let tet = [i0 as u32, i1 as u32, i2 as u32, i3 as u32];
    for (a, b, c) in [(0, 1, 2), (0, 3, 1), (1, 3, 2), (0, 2, 3)] {
        let mut t = make_tri(pts, [tet[a], tet[b], tet[c]]);
        if t.n.dot(&o) - t.off > 0.0 {
            // Interior point in front: flip to outward.
            t = make_tri(pts, [tet[a], tet[c], tet[b]]);
        }
        s.tris.push(t);
    }

    // Add the other points through their horizons.
    for k in 0..n {
        if tet.contains(&(k as u32)) {
            continue;
        }
        let p = s.pts[k];
        s.edges.clear();
        let mut any = false;
        for t in s.tris.iter_mut().filter(|t| t.alive) {
            if t.n.dot(&p) - t.off > eps {
                t.alive = false;
                any = true;
                let [a, b, c] = t.v;
                s.edges.extend_from_slice(&[(a, b), (b, c), (c, a)]);
            }
        }
        if !any {
            continue;
        }
        // Horizon: edges of the visible region whose reverse is not visible too.
        s.horizon.clear();
        for &(a, b) in &s.edges {
            if !s.edges.contains(&(b, a)) {
                s.horizon.push((a, b));
            }
        }
        for &(a, b) in &s.horizon {
            let t = make_tri(&s.pts, [a, b, k as u32]);
            s.tris.push(t);
        }
    }

    // Fan from the interior point o.
    let depth = |i: u32| points[i as usize].depth;
    let d_o = (depth(tet[0]) + depth(tet[1]) + depth(tet[2]) + depth(tet[3])) * 0.25;
    let (mut vol, mut mom, mut dm) = (0.0, Vec3::zeros(), 0.0);
    for t in s.tris.iter().filter(|t| t.alive) {
        let [a, b, c] = t.v;
        let (pa, pb, pc) = (s.pts[a as usize], s.pts[b as usize], s.pts[c as usize]);
        let v = (pa - o).dot(&(pb - o).cross(&(pc - o))) / 6.0;
        vol += v;
        mom += (o + pa + pb + pc) * (0.25 * v);
        dm += v * 0.25 * (d_o + depth(a) + depth(b) + depth(c));
    }
    if !(vol > 0.0 && vol.is_finite()) {
        return flat(points);
    }
    HullVolume {
        volume: vol,
        centroid: m + mom / vol,
        depth_moment: dm,
    }
}

fn make_tri(pts: &[Vec3], v: [u32; 3]) -> Tri {
    let (a, b, c) = (pts[v[0] as usize], pts[v[1] as usize], pts[v[2] as usize]);
    let cr = (b - a).cross(&(c - a));
    let len = cr.norm();
    let n = if len > 0.0 { cr / len } else { Vec3::zeros() };
    Tri {
        v,
        n,
        off: n.dot(&a),
        alive: true,
    }
}
