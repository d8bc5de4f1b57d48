//! Surface meshes as Rigid IPC uses them (004 §4: each body is its vertices X̂_i and
//! triangles F̂_i in the body frame, used as they are — nonconvex and codimensional
//! meshes included, no hull), and the barrier's constraint set C between two bodies:
//! every vertex–triangle and edge–edge pair closer than d̂ (eq. 2), with the distance
//! type each one has.
//!
//! # Round vertices
//! A sphere is not tessellated: it is one *round vertex* (its centre) with a radius r,
//! in no face and no edge, and every distance to it is offset by r. A pair's
//! barrier distance is then `d = (√D − r)²` (D the squared distance between the
//! primitives, r the sum of their radii), signed: negative when the primitives are
//! closer than r (an intersection, as D ≤ 0 is for meshes). A round vertex meets a
//! face as a vertex–face pair (the point–triangle distance covers the triangle's
//! edges and corners) and another round vertex as a vertex–vertex pair. A capsule is
//! a *round edge*: its axis, an edge between two round vertices of its radius; it
//! meets edges as an edge–edge pair (offset by the radii), faces by its ends'
//! vertex–face pairs (the distance to a plane is least at an end), and round
//! vertices as a vertex–edge pair. Rolling is
//! then rolling: a tessellated ball rolls as a polyhedron and loses speed at every
//! facet (a 16-gon keeps 1 − (5/7)(1 − cos 22.5°) = 0.946 of ω per facet). With
//! r = 0 every distance is the mesh's own, bit for bit.

use super::geom::{
    classify_edge_edge, classify_point_edge, classify_point_triangle, d_edge_edge, d_point_edge,
    d_point_point, d_point_triangle, EdgeEdge, PointEdge, PointTriangle, V3,
};
use crate::math::{Pose, Vec3};

/// A triangle mesh in its body frame with its unique edges.
#[derive(Clone, Debug, Default)]
pub struct SurfaceMesh {
    pub vertices: Vec<Vec3>,
    pub faces: Vec<[u32; 3]>,
    /// Unique undirected edges (i < j).
    pub edges: Vec<[u32; 2]>,
    /// Per vertex: its radius (0 for a mesh vertex; r for a round vertex, module
    /// doc "Round vertices").
    pub radii: Vec<f64>,
    /// The round vertices (radius > 0), in no face (a sphere's centre, a capsule's
    /// ends).
    pub round: Vec<u32>,
    /// The round edges (indices into `edges`): capsules' axes, between two round
    /// vertices of the same radius.
    pub round_edges: Vec<u32>,
    /// The largest vertex radius (0 for a plain mesh).
    pub max_radius: f64,
}

impl SurfaceMesh {
    /// From vertices and triangles; the edges are collected and deduplicated.
    pub fn new(vertices: Vec<Vec3>, faces: Vec<[u32; 3]>) -> Self {
        let mut edges: Vec<[u32; 2]> = faces
            .iter()
            .flat_map(|f| [[f[0], f[1]], [f[1], f[2]], [f[2], f[0]]])
            .map(|[a, b]| [a.min(b), a.max(b)])
            .collect();
        edges.sort_unstable();
        edges.dedup();
        let radii = vec![0.0; vertices.len()];
        SurfaceMesh {
            vertices,
            faces,
            edges,
            radii,
            round: Vec::new(),
            round_edges: Vec::new(),
            max_radius: 0.0,
        }
    }

    /// Add a round edge (a capsule's axis from `a` to `b`, module doc "Round
    /// vertices") of `radius` > 0: two round vertices and the edge between them.
    pub fn push_round_edge(&mut self, a: Vec3, b: Vec3, radius: f64) {
        let i = self.push_round(a, radius);
        let j = self.push_round(b, radius);
        self.round_edges.push(self.edges.len() as u32);
        self.edges.push([i, j]);
    }

    /// Add a round vertex (a sphere's centre, module doc "Round vertices") at `p` with
    /// `radius` > 0; returns its index.
    pub fn push_round(&mut self, p: Vec3, radius: f64) -> u32 {
        let i = self.vertices.len() as u32;
        self.vertices.push(p);
        self.radii.push(radius);
        self.round.push(i);
        self.max_radius = self.max_radius.max(radius);
        i
    }

    /// A box of half extents `h` about the origin: 8 vertices, 12 outward triangles.
    pub fn cuboid(h: &Vec3) -> Self {
        let v = (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 == 0 { -h.x } else { h.x },
                    if i & 2 == 0 { -h.y } else { h.y },
                    if i & 4 == 0 { -h.z } else { h.z },
                )
            })
            .collect();
        // Quads (counter-clockwise seen from outside) split along a diagonal.
        let quads = [
            [0, 2, 3, 1], // −z
            [4, 5, 7, 6], // +z
            [0, 1, 5, 4], // −y
            [2, 6, 7, 3], // +y
            [0, 4, 6, 2], // −x
            [1, 3, 7, 5], // +x
        ];
        let faces = quads
            .iter()
            .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
            .collect();
        SurfaceMesh::new(v, faces)
    }

    /// A torus about the body z axis with major radius `major` (the tube's centre
    /// circle) and tube radius `minor`, `n` segments around the axis and `m` around
    /// the tube: vertex (i, j) at θ_i = 2πi/n, φ_j = 2πj/m is
    /// ((R + r cos φ) cos θ, (R + r cos φ) sin θ, r sin φ), every vertex on the smooth
    /// torus; 2nm outward triangles (a closed genus-1 surface, V − E + F = 0). With n
    /// a multiple of 4 and m even there are vertices at θ = 0, π/2, π, 3π/2 on the
    /// tube's inner side (φ = π). The faces depart from the smooth torus by at most
    /// the chord sags (R + r)(1 − cos(π/n)) + r(1 − cos(π/m)).
    pub fn torus(major: f64, minor: f64, n: usize, m: usize) -> Self {
        use std::f64::consts::TAU;
        let mut v = Vec::with_capacity(n * m);
        for i in 0..n {
            let th = TAU * i as f64 / n as f64;
            for j in 0..m {
                let ph = TAU * j as f64 / m as f64;
                let rho = major + minor * ph.cos();
                v.push(Vec3::new(rho * th.cos(), rho * th.sin(), minor * ph.sin()));
            }
        }
        let id = |i: usize, j: usize| ((i % n) * m + (j % m)) as u32;
        let mut faces = Vec::with_capacity(2 * n * m);
        for i in 0..n {
            for j in 0..m {
                // ∂/∂θ × ∂/∂φ points outward.
                let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
                faces.push([a, b, c]);
                faces.push([a, c, d]);
            }
        }
        SurfaceMesh::new(v, faces)
    }

    /// The mesh as Wavefront OBJ text (coordinates printed so that they read back
    /// exactly as f64).
    pub fn to_obj(&self) -> String {
        let mut s = String::new();
        for p in &self.vertices {
            s += &format!("v {:?} {:?} {:?}\n", p.x, p.y, p.z);
        }
        for f in &self.faces {
            s += &format!("f {} {} {}\n", f[0] + 1, f[1] + 1, f[2] + 1);
        }
        s
    }

    /// Vertices in the world at `pose`.
    pub fn world(&self, pose: &Pose, out: &mut Vec<Vec3>) {
        out.clear();
        out.extend(
            self.vertices
                .iter()
                .map(|v| pose * nalgebra::Point3::from(*v))
                .map(|p| p.coords),
        );
    }
}

/// One pair of the constraint set: a vertex of a against a face of b, or an edge of a
/// against an edge of b, with its distance type and squared distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Candidate {
    VertexFace {
        vertex: u32,
        face: u32,
        ty: PointTriangle,
        d: f64,
    },
    EdgeEdge {
        edge_a: u32,
        edge_b: u32,
        ty: EdgeEdge,
        d: f64,
    },
    /// A round vertex of a against a round vertex of b (two spheres).
    VertexVertex {
        vertex_a: u32,
        vertex_b: u32,
        d: f64,
    },
    /// A round vertex of one body against a round edge of the other (a sphere and a
    /// capsule; the vertex in b when flagged, as for vertex–face).
    VertexEdge {
        vertex: u32,
        edge: u32,
        ty: PointEdge,
        d: f64,
    },
}

impl Candidate {
    /// The pair's barrier distance: squared, offset by the round vertices' radii
    /// and signed (module doc "Round vertices").
    #[inline]
    pub fn d(&self) -> f64 {
        match *self {
            Candidate::VertexFace { d, .. }
            | Candidate::EdgeEdge { d, .. }
            | Candidate::VertexVertex { d, .. }
            | Candidate::VertexEdge { d, .. } => d,
        }
    }
}

/// The barrier distance of primitives at squared distance `dd` with radii summing
/// to `r`: `dd` itself when r = 0, else (√dd − r)² with the sign of √dd − r.
#[inline]
pub fn offset_distance(dd: f64, r: f64) -> f64 {
    if r == 0.0 {
        return dd;
    }
    let s = dd.sqrt() - r;
    s * s.abs()
}

/// A signed barrier distance's length: √d, or −√−d for an intersection.
#[inline]
pub fn signed_gap(d: f64) -> f64 {
    if d < 0.0 {
        -(-d).sqrt()
    } else {
        d.sqrt()
    }
}

/// The pairs of C between meshes a and b (world vertices `wa`, `wb`) with squared
/// distance below `d_hat`: vertices of a against faces of b, vertices of b against
/// faces of a (reported with `vertex` in b and `face` in a, flagged by `b_vertex`),
/// and edges against edges. Pairs are culled by the primitives' bounds inflated by
/// √d̂ (and a round vertex's by its radius). Round vertices meet faces as vertex–face
/// pairs and each other as vertex–vertex pairs; their distances are offset by the
/// radii ([`offset_distance`]). Appends to `out`.
pub fn constraint_set(
    (ma, wa): (&SurfaceMesh, &[Vec3]),
    (mb, wb): (&SurfaceMesh, &[Vec3]),
    d_hat: f64,
    out: &mut Vec<(bool, Candidate)>,
) {
    let r = d_hat.sqrt();
    let c = |v: &Vec3| V3::<f64>::cst(v);
    let bounds = |pts: &[&Vec3]| {
        let mut lo = *pts[0];
        let mut hi = *pts[0];
        for p in &pts[1..] {
            lo = lo.inf(p);
            hi = hi.sup(p);
        }
        (lo.add_scalar(-r), hi.add_scalar(r))
    };
    let grown = |(lo, hi): (Vec3, Vec3), g: f64| {
        if g == 0.0 {
            (lo, hi)
        } else {
            (lo.add_scalar(-g), hi.add_scalar(g))
        }
    };
    let overlap = |(l1, h1): (Vec3, Vec3), (l2, h2): (Vec3, Vec3)| {
        (0..3).all(|k| l1[k] <= h2[k] && l2[k] <= h1[k])
    };
    for (b_vertex, (mv, wv, mf, wf)) in [(false, (ma, wa, mb, wb)), (true, (mb, wb, ma, wa))] {
        for (vi, p) in wv.iter().enumerate().take(mv.vertices.len()) {
            let rv = mv.radii[vi];
            for (fi, f) in mf.faces.iter().enumerate() {
                let t = f.map(|i| &wf[i as usize]);
                if !overlap(grown(bounds(&[p]), rv), bounds(&t)) {
                    continue;
                }
                let ty = classify_point_triangle(p, t);
                let d = offset_distance(d_point_triangle(ty, &c(p), t.map(c).each_ref()), rv);
                if d < d_hat {
                    out.push((
                        b_vertex,
                        Candidate::VertexFace {
                            vertex: vi as u32,
                            face: fi as u32,
                            ty,
                            d,
                        },
                    ));
                }
            }
        }
    }
    for (ia, ea) in ma.edges.iter().enumerate() {
        let a = ea.map(|i| &wa[i as usize]);
        let ra = ma.radii[ea[0] as usize];
        let ba = grown(bounds(&a), ra);
        for (ib, eb) in mb.edges.iter().enumerate() {
            let b = eb.map(|i| &wb[i as usize]);
            let rb = mb.radii[eb[0] as usize];
            if !overlap(ba, grown(bounds(&b), rb)) {
                continue;
            }
            let ty = classify_edge_edge(a[0], a[1], b[0], b[1]);
            let d = offset_distance(
                d_edge_edge(ty, a.map(c).each_ref(), b.map(c).each_ref()),
                ra + rb,
            );
            if d < d_hat {
                out.push((
                    false,
                    Candidate::EdgeEdge {
                        edge_a: ia as u32,
                        edge_b: ib as u32,
                        ty,
                        d,
                    },
                ));
            }
        }
    }
    for (b_vertex, (mv, wv, me, we)) in [(false, (ma, wa, mb, wb)), (true, (mb, wb, ma, wa))] {
        for &vi in &mv.round {
            let p = &wv[vi as usize];
            let rv = mv.radii[vi as usize];
            for &ei in &me.round_edges {
                let e = me.edges[ei as usize].map(|i| &we[i as usize]);
                let rr = rv + me.radii[me.edges[ei as usize][0] as usize];
                if !overlap(grown(bounds(&[p]), rr), bounds(&e)) {
                    continue;
                }
                let ty = classify_point_edge(p, e[0], e[1]);
                let d = offset_distance(d_point_edge(ty, &c(p), e.map(c).each_ref()), rr);
                if d < d_hat {
                    out.push((
                        b_vertex,
                        Candidate::VertexEdge {
                            vertex: vi,
                            edge: ei,
                            ty,
                            d,
                        },
                    ));
                }
            }
        }
    }
    for &ia in &ma.round {
        let pa = &wa[ia as usize];
        let ra = ma.radii[ia as usize];
        for &ib in &mb.round {
            let pb = &wb[ib as usize];
            let rr = ra + mb.radii[ib as usize];
            let d = offset_distance(d_point_point(&c(pa), &c(pb)), rr);
            if d < d_hat {
                out.push((
                    false,
                    Candidate::VertexVertex {
                        vertex_a: ia,
                        vertex_b: ib,
                        d,
                    },
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    /// A unit cube: 8 vertices, 12 triangles, 18 edges (12 sides, 6 diagonals), every
    /// triangle outward (its normal points away from the centre) and Euler's
    /// V − E + F = 2.
    #[test]
    fn cuboid_is_a_closed_outward_mesh() {
        let m = SurfaceMesh::cuboid(&Vec3::new(0.5, 0.5, 0.5));
        assert_eq!(
            (m.vertices.len(), m.faces.len(), m.edges.len()),
            (8, 12, 18)
        );
        assert_eq!(8 - 18 + 12, 2);
        for f in &m.faces {
            let [a, b, c] = f.map(|i| m.vertices[i as usize]);
            let n = (b - a).cross(&(c - a));
            assert!(
                n.dot(&((a + b + c) / 3.0)) > 0.0,
                "face {f:?} points inward"
            );
        }
    }

    /// The torus is closed and outward: V − E + F = 0 (genus 1), every vertex on the
    /// smooth torus to 1e-15 m, and the divergence-theorem volume Σ a·(b × c)/6 is
    /// positive and within the sag bound of 2π²Rr².
    #[test]
    fn torus_is_a_closed_outward_genus_one_mesh() {
        let (r_maj, r_min, n, m) = (0.1, 0.02, 24usize, 8usize);
        let t = SurfaceMesh::torus(r_maj, r_min, n, m);
        let (v, e, f) = (t.vertices.len(), t.edges.len(), t.faces.len());
        assert_eq!((v, e, f), (n * m, 3 * n * m, 2 * n * m));
        assert_eq!(v as i64 - e as i64 + f as i64, 0);
        for p in &t.vertices {
            let rho = (p.x * p.x + p.y * p.y).sqrt();
            let d = ((rho - r_maj).powi(2) + p.z * p.z).sqrt();
            assert!((d - r_min).abs() < 1e-15, "{d}");
        }
        let vol: f64 = t
            .faces
            .iter()
            .map(|f| {
                let [a, b, c] = f.map(|i| t.vertices[i as usize]);
                a.dot(&b.cross(&c)) / 6.0
            })
            .sum();
        let smooth = 2.0 * std::f64::consts::PI.powi(2) * r_maj * r_min * r_min;
        // Inscribed polygons: the tube's cross-section m-gon has area
        // (m/2) r² sin(2π/m) ≤ πr², and the centre circle's chords shorten it.
        let lo = (m as f64 / 2.0)
            * (std::f64::consts::TAU / m as f64).sin()
            * r_min
            * r_min
            * 2.0
            * n as f64
            * (r_maj - r_min)
            * (std::f64::consts::PI / n as f64).sin();
        assert!(vol > lo && vol < smooth, "{lo} < {vol} < {smooth}");
        // Round trip through OBJ text is exact.
        let obj = t.to_obj();
        let first: Vec<f64> = obj.lines().next().unwrap_or("")[2..]
            .split(' ')
            .map(|x| x.parse().unwrap_or(f64::NAN))
            .collect();
        assert_eq!(
            first,
            vec![t.vertices[0].x, t.vertices[0].y, t.vertices[0].z]
        );
    }

    /// A cube 1e-3 above another, turned and shifted (d̂ = (2e-3)²): the constraint
    /// set's plane-type vertex–face pairs are exactly the upper bottom corners over
    /// the lower top square, every pair lies between the gap (squared 1e-6) and d̂,
    /// and the culled list equals the brute-force list of vertex–face pairs below d̂.
    #[test]
    fn constraint_set_of_stacked_cubes() {
        let m = SurfaceMesh::cuboid(&Vec3::new(0.5, 0.5, 0.5));
        let lower = Pose::identity();
        let upper = Pose::from_parts(
            Vec3::new(0.1, -0.05, 1.001).into(),
            Quat::from_scaled_axis(Vec3::new(0.0, 0.0, 0.2)),
        );
        let (mut wa, mut wb) = (Vec::new(), Vec::new());
        m.world(&upper, &mut wa);
        m.world(&lower, &mut wb);
        let d_hat = 4e-6;
        let mut set = Vec::new();
        constraint_set((&m, &wa), (&m, &wb), d_hat, &mut set);
        assert!(!set.is_empty());
        // Exactly the upper cube's bottom corners above the lower top square have a
        // vertex–face pair of the plane type.
        let mut over: Vec<u32> = set
            .iter()
            .filter_map(|(bv, c)| match c {
                Candidate::VertexFace {
                    vertex,
                    ty: PointTriangle::Face,
                    ..
                } if !bv => Some(*vertex),
                _ => None,
            })
            .collect();
        over.sort_unstable();
        over.dedup();
        let inside: Vec<u32> = (0..8u32)
            .filter(|&i| {
                let p = wa[i as usize];
                p.z < 0.6 && p.x.abs() < 0.5 && p.y.abs() < 0.5
            })
            .collect();
        assert!(!inside.is_empty());
        assert_eq!(over, inside);
        for (_, c) in &set {
            let d = c.d();
            assert!(d < d_hat && d > 0.99e-6 - 1e-12, "d = {d}");
        }
        // Brute force without the culling.
        let mut n = 0;
        for p in &wa {
            for f in &m.faces {
                let t = f.map(|i| &wb[i as usize]);
                let ty = classify_point_triangle(p, t);
                let c = |v: &Vec3| V3::<f64>::cst(v);
                if d_point_triangle(ty, &c(p), t.map(c).each_ref()) < d_hat {
                    n += 1;
                }
            }
        }
        let got = set
            .iter()
            .filter(|(bv, c)| !bv && matches!(c, Candidate::VertexFace { .. }))
            .count();
        assert_eq!(got, n);
    }
}
