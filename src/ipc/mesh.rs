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
    d_point_point, d_point_triangle, mollifier_threshold, EdgeEdge, PointEdge, PointTriangle, V3,
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
    /// Topology for the max approximator's weights ([`max_approximator_terms`]):
    /// per face, its edges (t_i, t_{i+1 mod 3}) as indices into `edges`;
    pub face_edges: Vec<[u32; 3]>,
    /// per edge, the number of faces it bounds (2 inside a closed surface, 1 on an
    /// open surface's border, 0 for a round edge);
    pub edge_faces: Vec<u32>,
    /// per vertex, its edges: `vertex_edges[vertex_edge_start[v]..vertex_edge_start[v + 1]]`;
    pub vertex_edge_start: Vec<u32>,
    pub vertex_edges: Vec<u32>,
    /// per vertex, whether it lies on the surface's border (on an edge of one face)
    /// or in no face (round vertices).
    pub boundary: Vec<bool>,
    /// per edge, whether its two faces lie in one plane (a triangulation's diagonal
    /// of a flat face: no feature of the surface, [`max_approximator_terms`]).
    pub flat: Vec<bool>,
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
        let mut m = SurfaceMesh {
            vertices,
            faces,
            edges,
            radii,
            ..Default::default()
        };
        m.topology();
        m
    }

    /// Recompute the topology fields from `faces` and `edges` (at construction).
    fn topology(&mut self) {
        let edge_of = |a: u32, b: u32, edges: &[[u32; 2]]| {
            edges
                .binary_search(&[a.min(b), a.max(b)])
                .map_or(u32::MAX, |i| i as u32)
        };
        // Face edges are sorted and unique (`new`); round edges follow them.
        let nf_edges = self.edges.len() - self.round_edges.len();
        self.edge_faces = vec![0; self.edges.len()];
        self.flat = vec![false; self.edges.len()];
        // The unit normal of each edge's first face, to compare with its second.
        let mut first = vec![Vec3::zeros(); self.edges.len()];
        let vs = &self.vertices;
        self.face_edges = (self.faces.iter())
            .map(|f| {
                let e = [0, 1, 2].map(|i| edge_of(f[i], f[(i + 1) % 3], &self.edges[..nf_edges]));
                let [a, b, c] = f.map(|i| vs[i as usize]);
                let n = (b - a).cross(&(c - a)).normalize();
                for &k in &e {
                    let k = k as usize;
                    self.edge_faces[k] += 1;
                    match self.edge_faces[k] {
                        1 => first[k] = n,
                        // Coplanar to round-off (and facing the same way).
                        2 => self.flat[k] = n.dot(&first[k]) > 1.0 - 1e-12,
                        _ => self.flat[k] = false,
                    }
                }
                e
            })
            .collect();
        let nv = self.vertices.len();
        let mut count = vec![0u32; nv + 1];
        for e in &self.edges {
            count[e[0] as usize + 1] += 1;
            count[e[1] as usize + 1] += 1;
        }
        for v in 0..nv {
            count[v + 1] += count[v];
        }
        let mut next = count.clone();
        self.vertex_edges = vec![0; 2 * self.edges.len()];
        for (k, e) in self.edges.iter().enumerate() {
            for &v in e {
                self.vertex_edges[next[v as usize] as usize] = k as u32;
                next[v as usize] += 1;
            }
        }
        self.vertex_edge_start = count;
        let mut in_face = vec![false; nv];
        for f in &self.faces {
            for &v in f {
                in_face[v as usize] = true;
            }
        }
        self.boundary = in_face.iter().map(|&f| !f).collect();
        for (e, &n) in self.edges.iter().zip(&self.edge_faces) {
            if n == 1 {
                self.boundary[e[0] as usize] = true;
                self.boundary[e[1] as usize] = true;
            }
        }
    }

    /// The edges at vertex `v`.
    pub fn edges_at(&self, v: u32) -> &[u32] {
        let (s, e) = (
            self.vertex_edge_start[v as usize] as usize,
            self.vertex_edge_start[v as usize + 1] as usize,
        );
        &self.vertex_edges[s..e]
    }

    /// Add a round edge (a capsule's axis from `a` to `b`, module doc "Round
    /// vertices") of `radius` > 0: two round vertices and the edge between them.
    pub fn push_round_edge(&mut self, a: Vec3, b: Vec3, radius: f64) {
        let i = self.push_round(a, radius);
        let j = self.push_round(b, radius);
        self.round_edges.push(self.edges.len() as u32);
        self.edges.push([i, j]);
        self.topology();
    }

    /// Add a round vertex (a sphere's centre, module doc "Round vertices") at `p` with
    /// `radius` > 0; returns its index.
    pub fn push_round(&mut self, p: Vec3, radius: f64) -> u32 {
        let i = self.vertices.len() as u32;
        self.vertices.push(p);
        self.radii.push(radius);
        self.round.push(i);
        self.max_radius = self.max_radius.max(radius);
        self.topology();
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

/// The edge–edge mollifier m of a term of meshes a and b at world vertices `wa`,
/// `wb` (1 for a term that is not edge–edge), its threshold ε_× from the meshes' own
/// vertices — for checks and diagnostics of a set; the stepper takes ε_× from its
/// pre-rotated body frames (`pipeline::ipc`).
pub fn term_mollifier(
    cand: &Candidate,
    (ma, wa): (&SurfaceMesh, &[Vec3]),
    (mb, wb): (&SurfaceMesh, &[Vec3]),
) -> f64 {
    let Candidate::EdgeEdge { edge_a, edge_b, .. } = *cand else {
        return 1.0;
    };
    let (ea, eb) = (ma.edges[edge_a as usize], mb.edges[edge_b as usize]);
    let (ra, rb) = (
        ea.map(|i| &ma.vertices[i as usize]),
        eb.map(|i| &mb.vertices[i as usize]),
    );
    let eps = mollifier_threshold(ra[0], ra[1], rb[0], rb[1]);
    let (a, b) = (
        ea.map(|i| V3::<f64>::cst(&wa[i as usize])),
        eb.map(|i| V3::<f64>::cst(&wb[i as usize])),
    );
    super::geom::edge_mollifier([&a[0], &a[1]], [&b[0], &b[1]], eps)
}

/// Working lists of [`max_approximator_terms`] (kept between steps: no allocation
/// once they have grown to the largest set met).
#[derive(Clone, Debug, Default)]
pub struct ApproxScratch {
    /// (vertex in b, edge in the other mesh, vertex) met through vertex–face pairs,
    ev_face: Vec<(bool, u32, u32)>,
    /// the same met through edge–edge pairs,
    ev_edge: Vec<(bool, u32, u32)>,
    /// (vertex in b, vertex of a, vertex of b) met through vertex–face pairs (one
    /// entry per side: each vertex is counted against the other surface),
    vv: Vec<(bool, u32, u32)>,
    /// and met through edge–edge pairs (an end of each edge).
    vv_edge: Vec<(u32, u32)>,
    /// [`merge_identical_terms`]: (key, index) of each term, and the merged set.
    keys: Vec<(TermKey, u32)>,
    merged: Vec<(bool, Candidate)>,
    merged_weights: Vec<f64>,
}

/// The distance function a term evaluates, up to the order of a line's two points:
/// (kind, vertex in b, the two primitives, the edge–edge type). Two terms with the
/// same key are the same function of the two poses.
type TermKey = (u8, bool, u32, u32, u8);

/// The key of a term with its reduced form: a vertex–face term whose type is an edge
/// or a vertex of the face is that vertex's point–edge (line) or point–point term, a
/// point–edge term of an end type the point–point term. Edge–edge terms (the
/// mollifier depends on the two edges) and the rest are their own.
fn reduced_term(
    ma: &SurfaceMesh,
    mb: &SurfaceMesh,
    (b_vertex, cand): (bool, Candidate),
) -> (TermKey, (bool, Candidate)) {
    let vv = |b_vertex: bool, vertex: u32, other: u32, d: f64| {
        let (vertex_a, vertex_b) = if b_vertex {
            (other, vertex)
        } else {
            (vertex, other)
        };
        (
            (2, false, vertex_a, vertex_b, 0),
            (
                false,
                Candidate::VertexVertex {
                    vertex_a,
                    vertex_b,
                    d,
                },
            ),
        )
    };
    let other = |b_vertex: bool| if b_vertex { ma } else { mb };
    match cand {
        Candidate::VertexFace {
            vertex,
            face,
            ty,
            d,
        } => match ty {
            PointTriangle::Face => ((0, b_vertex, vertex, face, 0), (b_vertex, cand)),
            PointTriangle::Edge(i) => {
                let edge = other(b_vertex).face_edges[face as usize][i as usize];
                let ve = Candidate::VertexEdge {
                    vertex,
                    edge,
                    ty: PointEdge::Line,
                    d,
                };
                ((1, b_vertex, vertex, edge, 0), (b_vertex, ve))
            }
            PointTriangle::Vertex(i) => {
                let w = other(b_vertex).faces[face as usize][i as usize];
                vv(b_vertex, vertex, w, d)
            }
        },
        Candidate::VertexEdge {
            vertex,
            edge,
            ty,
            d,
        } => match ty {
            PointEdge::Line => ((1, b_vertex, vertex, edge, 0), (b_vertex, cand)),
            PointEdge::End(i) => {
                let w = other(b_vertex).edges[edge as usize][i as usize];
                vv(b_vertex, vertex, w, d)
            }
        },
        Candidate::VertexVertex {
            vertex_a, vertex_b, ..
        } => ((2, false, vertex_a, vertex_b, 0), (false, cand)),
        Candidate::EdgeEdge {
            edge_a, edge_b, ty, ..
        } => {
            let code = match ty {
                EdgeEdge::Lines => 0,
                EdgeEdge::PointA(i) => 1 + i,
                EdgeEdge::PointB(j) => 3 + j,
                EdgeEdge::Points(i, j) => 5 + 2 * i + j,
            };
            ((3, false, edge_a, edge_b, code), (false, cand))
        }
    }
}

/// Merge the terms of one body pair (`out[start..]`, weights beside) that are the
/// same function — a vertex–face term of an edge or vertex type and the point–edge or
/// point–point term the max approximator adds for that feature — into one term with
/// the summed weight, and drop the terms whose weight sums to zero. The barrier, its
/// derivatives and the friction of the set are unchanged up to round-off (each kept
/// function is evaluated once, with its net weight, instead of several times with
/// weights that cancel), and a contact counted once is one term of weight 1.
/// The order is the keys' (deterministic).
pub fn merge_identical_terms(
    (ma, mb): (&SurfaceMesh, &SurfaceMesh),
    start: usize,
    (out, weights): (&mut Vec<(bool, Candidate)>, &mut Vec<f64>),
    scratch: &mut ApproxScratch,
) {
    scratch.keys.clear();
    scratch.merged.clear();
    scratch.merged_weights.clear();
    for (i, &t) in out[start..].iter().enumerate() {
        scratch
            .keys
            .push((reduced_term(ma, mb, t).0, (start + i) as u32));
    }
    scratch.keys.sort_unstable();
    let mut i = 0;
    while i < scratch.keys.len() {
        let key = scratch.keys[i].0;
        let first = scratch.keys[i].1 as usize;
        let mut w = 0.0;
        while i < scratch.keys.len() && scratch.keys[i].0 == key {
            w += weights[scratch.keys[i].1 as usize];
            i += 1;
        }
        if w != 0.0 {
            scratch.merged.push(reduced_term(ma, mb, out[first]).1);
            scratch.merged_weights.push(w);
        }
    }
    out.truncate(start);
    out.extend_from_slice(&scratch.merged);
    weights.truncate(start);
    weights.extend_from_slice(&scratch.merged_weights);
}

/// The terms that make the constraint set of a body pair count each contact once:
/// the *improved max approximator* of the convergent IPC formulation (Li et al.,
/// "Convergent Incremental Potential Contact", 2023), without its area weights.
///
/// IPC's set sums a barrier over every primitive pair closer than d̂
/// ([`constraint_set`]); where a vertex's nearest feature of the other surface is an
/// edge or a vertex, every face (and every edge) sharing that feature contributes
/// the same term. A vertex resting on the edge between two triangles is counted
/// twice, on a vertex of valence k k times, and an edge's end on the other surface
/// once per edge at that end: the barrier's push depends on the triangulation (a
/// cube dropped flat on a diagonal of the floor's triangles spins,
/// `tests/ipc_duplicates.rs`). By inclusion–exclusion over the faces, edges and
/// vertices around the nearest feature, these terms cancel the repeats and keep the
/// sum continuous (every term still vanishes at d̂):
///
/// - a vertex v against the faces of the other mesh (its pairs `out[start..]`):
///   for each edge e of a face it meets, within d̂ of v, the point–edge term with
///   weight 1 − n_f(e) (n_f the faces at e: −1 inside a closed surface, 0 on a
///   border); for each vertex w of such a face, not on the border, the point–point
///   term with weight +1 (around an inner vertex with k faces and k edges,
///   k − k + 1 = 1: Euler's count of a disc);
/// - an edge e against an end p of an edge of the other mesh (edge–edge pairs whose
///   end p lies within d̂ of e): the edges at p each give the point–edge term of
///   (e, p) where p is their nearest point; the point–edge term of (e, p) with weight
///   1 − n (n the edges at p not parallel to e within the mollifier's threshold)
///   leaves one, and each nearly parallel edge at p (whose term the mollifier
///   scales) gets its edge–edge term of the (e, p) type with weight −1.
///
/// The weights are pushed to `weights` beside the terms appended to `out`; the
/// pairs already there (weight 1) are not changed. Where no feature is shared (a
/// vertex over a face's interior, two edges crossing) nothing is appended, so the
/// set and the step are the plain set's bit for bit.
pub fn max_approximator_terms(
    (ma, wa): (&SurfaceMesh, &[Vec3]),
    (mb, wb): (&SurfaceMesh, &[Vec3]),
    d_hat: f64,
    start: usize,
    (out, weights): (&mut Vec<(bool, Candidate)>, &mut Vec<f64>),
    scratch: &mut ApproxScratch,
) -> usize {
    let c = |v: &Vec3| V3::<f64>::cst(v);
    // (vertex mesh, its world vertices, the other mesh, its world vertices)
    let sides = |b_vertex: bool| {
        if b_vertex {
            ((mb, wb), (ma, wa))
        } else {
            ((ma, wa), (mb, wb))
        }
    };
    let pe = |p: &Vec3, r: f64, e: [u32; 2], w: &[Vec3]| {
        let e = e.map(|i| &w[i as usize]);
        let ty = classify_point_edge(p, e[0], e[1]);
        (
            ty,
            offset_distance(d_point_edge(ty, &c(p), e.map(c).each_ref()), r),
        )
    };
    // A flat edge (a diagonal of a flat face) is no feature: an edge crossing it lies
    // over the face, whose contact its vertices' terms already count. Its edge–edge
    // pairs go, and it is not one of a vertex's edges below.
    let mut kept = start;
    for i in start..out.len() {
        if let (_, Candidate::EdgeEdge { edge_a, edge_b, .. }) = out[i] {
            if ma.flat[edge_a as usize] || mb.flat[edge_b as usize] {
                continue;
            }
        }
        out[kept] = out[i];
        weights[kept] = weights[i];
        kept += 1;
    }
    out.truncate(kept);
    weights.truncate(kept);
    let before = out.len();
    scratch.ev_face.clear();
    scratch.ev_edge.clear();
    scratch.vv.clear();
    scratch.vv_edge.clear();
    for &(b_vertex, cand) in &out[start..] {
        match cand {
            Candidate::VertexFace { vertex, face, .. } => {
                let ((mv, wv), (mf, wf)) = sides(b_vertex);
                let p = &wv[vertex as usize];
                let rv = mv.radii[vertex as usize];
                for &e in &mf.face_edges[face as usize] {
                    if mf.edge_faces[e as usize] > 1
                        && pe(p, rv, mf.edges[e as usize], wf).1 < d_hat
                    {
                        scratch.ev_face.push((b_vertex, e, vertex));
                    }
                }
                for &w in &mf.faces[face as usize] {
                    let d = offset_distance(d_point_point(&c(p), &c(&wf[w as usize])), rv);
                    if !mf.boundary[w as usize] && d < d_hat {
                        scratch.vv.push(if b_vertex {
                            (true, w, vertex)
                        } else {
                            (false, vertex, w)
                        });
                    }
                }
            }
            Candidate::EdgeEdge { edge_a, edge_b, .. } => {
                let (ea, eb) = (ma.edges[edge_a as usize], mb.edges[edge_b as usize]);
                let r = ma.radii[ea[0] as usize] + mb.radii[eb[0] as usize];
                for p in eb {
                    if pe(&wb[p as usize], r, ea, wa).1 < d_hat {
                        scratch.ev_edge.push((true, edge_a, p));
                    }
                }
                for q in ea {
                    if pe(&wa[q as usize], r, eb, wb).1 < d_hat {
                        scratch.ev_edge.push((false, edge_b, q));
                    }
                    for p in eb {
                        let d = d_point_point(&c(&wa[q as usize]), &c(&wb[p as usize]));
                        if offset_distance(d, r) < d_hat {
                            scratch.vv_edge.push((q, p));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    for list in [&mut scratch.ev_face, &mut scratch.ev_edge] {
        list.sort_unstable();
        list.dedup();
    }
    scratch.vv.sort_unstable();
    scratch.vv.dedup();
    scratch.vv_edge.sort_unstable();
    scratch.vv_edge.dedup();
    let mut push = |b_vertex: bool, cand: Candidate, w: f64| {
        out.push((b_vertex, cand));
        weights.push(w);
    };
    for &(b_vertex, edge, vertex) in &scratch.ev_face {
        let ((mv, wv), (me, we)) = sides(b_vertex);
        let e = me.edges[edge as usize];
        let r = mv.radii[vertex as usize] + me.radii[e[0] as usize];
        let (ty, d) = pe(&wv[vertex as usize], r, e, we);
        let w = 1.0 - me.edge_faces[edge as usize] as f64;
        push(
            b_vertex,
            Candidate::VertexEdge {
                vertex,
                edge,
                ty,
                d,
            },
            w,
        );
    }
    for &(_, vertex_a, vertex_b) in &scratch.vv {
        let r = ma.radii[vertex_a as usize] + mb.radii[vertex_b as usize];
        let (pa, pb) = (&wa[vertex_a as usize], &wb[vertex_b as usize]);
        let d = offset_distance(d_point_point(&c(pa), &c(pb)), r);
        push(
            false,
            Candidate::VertexVertex {
                vertex_a,
                vertex_b,
                d,
            },
            1.0,
        );
    }
    for &(b_vertex, edge, p) in &scratch.ev_edge {
        let ((mp, wp), (me, we)) = sides(b_vertex);
        let e = me.edges[edge as usize];
        let r = mp.radii[p as usize] + me.radii[e[0] as usize];
        let (ty, d) = pe(&wp[p as usize], r, e, we);
        let (e0, e1) = (&we[e[0] as usize], &we[e[1] as usize]);
        let mut kept = 0usize;
        for &k in mp.edges_at(p) {
            if mp.flat[k as usize] {
                continue;
            }
            let f = mp.edges[k as usize];
            let (f0, f1) = (&wp[f[0] as usize], &wp[f[1] as usize]);
            if (e1 - e0).cross(&(f1 - f0)).norm_squared() >= mollifier_threshold(e0, e1, f0, f1) {
                kept += 1;
                continue;
            }
            // The nearly parallel edge's term at p's (e, p) type, taken out.
            let j = u8::from(f[1] == p);
            let (edge_a, edge_b, ee) = if b_vertex {
                let ee = match ty {
                    PointEdge::End(i) => EdgeEdge::Points(i, j),
                    PointEdge::Line => EdgeEdge::PointB(j),
                };
                (edge, k, ee)
            } else {
                let ee = match ty {
                    PointEdge::End(i) => EdgeEdge::Points(j, i),
                    PointEdge::Line => EdgeEdge::PointA(j),
                };
                (k, edge, ee)
            };
            let (a, b) = (ma.edges[edge_a as usize], mb.edges[edge_b as usize]);
            let dd = d_edge_edge(
                ee,
                a.map(|i| c(&wa[i as usize])).each_ref(),
                b.map(|i| c(&wb[i as usize])).each_ref(),
            );
            let d = offset_distance(dd, ma.radii[a[0] as usize] + mb.radii[b[0] as usize]);
            if d < d_hat {
                let cand = Candidate::EdgeEdge {
                    edge_a,
                    edge_b,
                    ty: ee,
                    d,
                };
                push(false, cand, -1.0);
            }
        }
        if kept != 1 {
            let cand = Candidate::VertexEdge {
                vertex: p,
                edge,
                ty,
                d,
            };
            push(b_vertex, cand, 1.0 - kept as f64);
        }
    }
    for &(q, p) in &scratch.vv_edge {
        let r = ma.radii[q as usize] + mb.radii[p as usize];
        let (pq, pp) = (&wa[q as usize], &wb[p as usize]);
        let d = offset_distance(d_point_point(&c(pq), &c(pp)), r);
        let (eq, ep) = (ma.edges_at(q), mb.edges_at(p));
        let (na, nb) = (
            eq.iter().filter(|&&k| !ma.flat[k as usize]).count(),
            ep.iter().filter(|&&k| !mb.flat[k as usize]).count(),
        );
        let mut kept = 0usize;
        for &ka in eq.iter().filter(|&&k| !ma.flat[k as usize]) {
            let a = ma.edges[ka as usize];
            let (a0, a1) = (&wa[a[0] as usize], &wa[a[1] as usize]);
            for &kb in ep.iter().filter(|&&k| !mb.flat[k as usize]) {
                let b = mb.edges[kb as usize];
                let (b0, b1) = (&wb[b[0] as usize], &wb[b[1] as usize]);
                if (a1 - a0).cross(&(b1 - b0)).norm_squared() >= mollifier_threshold(a0, a1, b0, b1)
                {
                    kept += 1;
                } else {
                    // The nearly parallel pair's mollified term at the ends' type, put
                    // back: both of its point–edge corrections took it out.
                    let ty = EdgeEdge::Points(u8::from(a[1] == q), u8::from(b[1] == p));
                    let cand = Candidate::EdgeEdge {
                        edge_a: ka,
                        edge_b: kb,
                        ty,
                        d,
                    };
                    push(false, cand, 1.0);
                }
            }
        }
        let w = 1.0 + kept as f64 - (na + nb) as f64;
        if w != 0.0 {
            push(
                false,
                Candidate::VertexVertex {
                    vertex_a: q,
                    vertex_b: p,
                    d,
                },
                w,
            );
        }
    }
    out.len() - before
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    /// A unit cube: 8 vertices, 12 triangles, 18 edges (12 sides, 6 diagonals), every
    /// triangle outward (its normal points away from the centre) and Euler's
    /// V − E + F = 2.
    /// A hexagonal fan of six triangles in z = 0 around an inner vertex at the
    /// origin (radius 1).
    fn fan() -> SurfaceMesh {
        let mut v = vec![Vec3::zeros()];
        v.extend((0..6).map(|i| {
            let a = std::f64::consts::PI / 3.0 * i as f64;
            Vec3::new(a.cos(), a.sin(), 0.0)
        }));
        let f = (0..6u32).map(|i| [0, 1 + i, 1 + (i + 1) % 6]).collect();
        SurfaceMesh::new(v, f)
    }

    /// Σ w b(d) over the weighted set of meshes a and b.
    fn weighted_barrier(a: &SurfaceMesh, b: &SurfaceMesh, d_hat: f64) -> (f64, f64) {
        let (mut out, mut w) = (Vec::new(), Vec::new());
        constraint_set((a, &a.vertices), (b, &b.vertices), d_hat, &mut out);
        let plain: f64 = out
            .iter()
            .map(|(_, c)| super::super::geom::barrier(c.d(), d_hat))
            .sum();
        w.resize(out.len(), 1.0);
        let mut scratch = ApproxScratch::default();
        max_approximator_terms(
            (a, &a.vertices),
            (b, &b.vertices),
            d_hat,
            0,
            (&mut out, &mut w),
            &mut scratch,
        );
        let weighted = (out.iter().zip(&w))
            .map(|((_, c), w)| w * super::super::geom::barrier(c.d(), d_hat))
            .sum();
        (plain, weighted)
    }

    /// The max approximator counts a vertex over a triangulated surface once,
    /// wherever its nearest feature is: over a face's interior, on an inner edge
    /// (two faces), over the inner vertex (six faces, six edges), and at 200 random
    /// points of the fan's inner half: Σ w b = b(g²) to 1e-12 relative, g = 0.4 d̂.
    /// The plain set counts the edge twice and the vertex six times.
    #[test]
    fn a_vertex_over_a_triangulated_surface_counts_once() {
        let fan = fan();
        let (d_hat, g) = (1e-6, 0.4e-3);
        let one = super::super::geom::barrier(g * g, d_hat);
        let at = |x: f64, y: f64| {
            weighted_barrier(
                &SurfaceMesh::new(vec![Vec3::new(x, y, g)], vec![]),
                &fan,
                d_hat,
            )
        };
        let a = std::f64::consts::PI / 3.0;
        for ((x, y), plain_count) in [
            ((0.3, 0.1), 1.0),
            ((0.4 * a.cos(), 0.4 * a.sin()), 2.0),
            ((0.0, 0.0), 6.0),
        ] {
            let (plain, weighted) = at(x, y);
            assert!(
                (plain / one - plain_count).abs() < 1e-12,
                "({x}, {y}): plain {}",
                plain / one
            );
            assert!(
                (weighted / one - 1.0).abs() < 1e-12,
                "({x}, {y}): weighted {}",
                weighted / one
            );
        }
        let mut seed = 7u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..200 {
            let (r, t) = (0.5 * rnd().sqrt(), std::f64::consts::TAU * rnd());
            let (_, weighted) = at(r * t.cos(), r * t.sin());
            assert!(
                (weighted / one - 1.0).abs() < 1e-12,
                "weighted {}",
                weighted / one
            );
        }
    }

    /// An edge crossing over the fan's inner vertex, horizontal at g = 0.4 d̂ and
    /// at 15° to the nearest spoke. Over the flat fan its ends are over faces (one
    /// vertex–face pair each) and its middle over the inner vertex, where each of the
    /// six spokes ends: the plain set counts the crossing six times (2 + 6 in all);
    /// the weighted set counts the ends (Σ w b = 2 b(g²) to 1e-12 relative): the
    /// spokes of a flat fan are no feature of the surface (the middle of the edge is
    /// over a plane). Over the apex of a shallow hexagonal pyramid (rim 5 cm below
    /// the apex: sharp spokes, the ends 1.5 cm above the faces, beyond d̂) the plain
    /// set counts the crossing six times, the weighted once.
    #[test]
    fn an_edge_over_a_vertex_of_the_other_surface_counts_once() {
        let (d_hat, g) = (1e-6, 0.4e-3);
        let one = super::super::geom::barrier(g * g, d_hat);
        let u = Vec3::new(15f64.to_radians().cos(), 15f64.to_radians().sin(), 0.0) * 0.3;
        let mut seg = SurfaceMesh::new(
            vec![u + Vec3::new(0.0, 0.0, g), -u + Vec3::new(0.0, 0.0, g)],
            vec![],
        );
        seg.edges.push([0, 1]);
        seg.topology();
        let mut apex = fan();
        for v in &mut apex.vertices[1..] {
            v.z = -0.05;
        }
        apex.topology();
        // The spokes (two faces each; the rim's edges bound one face).
        let spokes = |m: &SurfaceMesh| -> Vec<bool> {
            (m.edge_faces.iter().zip(&m.flat))
                .filter(|(&n, _)| n == 2)
                .map(|(_, &f)| f)
                .collect()
        };
        assert_eq!(spokes(&fan()), [true; 6]);
        assert_eq!(spokes(&apex), [false; 6]);
        for (surface, plain_count, count) in [(fan(), 8.0, 2.0), (apex, 6.0, 1.0)] {
            let (plain, weighted) = weighted_barrier(&seg, &surface, d_hat);
            assert!(
                (plain / one - plain_count).abs() < 1e-12,
                "plain {}",
                plain / one
            );
            assert!(
                (weighted / one - count).abs() < 1e-12,
                "weighted {}",
                weighted / one
            );
        }
    }

    /// Two unit cubes corner to corner (b's lowest corner a gap g = 0.4 d̂ along the
    /// diagonal from a's highest, their edges parallel: the mollified pairs): the
    /// plain set counts that one contact dozens of times; the weighted set three
    /// times — once from each vertex against the other surface and once from the
    /// edges' family — to 1e-12 relative, and never below one.
    #[test]
    fn a_vertex_on_a_vertex_counts_a_fixed_number_of_times() {
        let h = Vec3::new(0.5, 0.5, 0.5);
        let a = SurfaceMesh::cuboid(&h);
        let (d_hat, g) = (1e-6, 0.4e-3);
        let one = super::super::geom::barrier(g * g, d_hat);
        let shift = Vec3::new(1.0, 1.0, 1.0) * (1.0 + g / 3f64.sqrt());
        let mut b = SurfaceMesh::cuboid(&h);
        for v in &mut b.vertices {
            *v += shift;
        }
        let (plain, weighted) = weighted_barrier(&a, &b, d_hat);
        println!("plain {:.6}, weighted {:.15}", plain / one, weighted / one);
        assert!(plain / one > 10.0, "plain {}", plain / one);
        assert!(
            (weighted / one - 3.0).abs() < 1e-12,
            "weighted {}",
            weighted / one
        );
    }

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

    /// Diagnostic (docs/EXPERIMENTS.md, "Outside scenes, session 30"): the barrier
    /// energy Σ w m b of two unit cubes stacked with their corners aligned (gap
    /// 4.57e-4 m, d̂ = 1 mm), the top one yawed by φ, for the plain and the weighted
    /// set: the aligned pose is a maximum in yaw for both (half the top corners move
    /// beyond the lower cube's edges).
    #[test]
    #[ignore = "diagnostic: prints the yaw energy of two aligned cubes"]
    fn aligned_cubes_yaw_energy() {
        let (g, d_hat) = (4.57e-4, 1e-6);
        let m = SurfaceMesh::cuboid(&Vec3::new(0.5, 0.5, 0.5));
        let energy = |phi: f64, once: bool| -> f64 {
            let wa = m.vertices.clone();
            let (s, c) = phi.sin_cos();
            let wb: Vec<Vec3> = (m.vertices.iter())
                .map(|v| Vec3::new(c * v.x - s * v.y, s * v.x + c * v.y, v.z + 1.0 + g))
                .collect();
            let (mut out, mut w) = (Vec::new(), Vec::new());
            constraint_set((&m, &wa), (&m, &wb), d_hat, &mut out);
            w.resize(out.len(), 1.0);
            let mut sc = ApproxScratch::default();
            if once
                && max_approximator_terms(
                    (&m, &wa),
                    (&m, &wb),
                    d_hat,
                    0,
                    (&mut out, &mut w),
                    &mut sc,
                ) > 0
            {
                merge_identical_terms((&m, &m), 0, (&mut out, &mut w), &mut sc);
            }
            (out.iter().zip(&w))
                .map(|((_, cand), w)| {
                    let moll = term_mollifier(cand, (&m, &wa), (&m, &wb));
                    w * moll * super::super::geom::barrier(cand.d(), d_hat)
                })
                .sum()
        };
        for once in [false, true] {
            let e0 = energy(0.0, once);
            let slope = (energy(1e-7, once) - energy(-1e-7, once)) / 2e-7;
            print!("count_once {once}: E(0) {e0:.4e}, dE/dφ(0) {slope:.1e}; E(φ)/E(0) − 1:");
            for phi in [1e-6, 1e-4, 1e-3, 1e-2] {
                print!(" φ {phi:e}: {:.2e}", energy(phi, once) / e0 - 1.0);
            }
            println!();
        }
    }
}
