//! Convex polytopes with vertex/edge/face adjacency, built by a tolerant quickhull.
//!
//! Construction ([`ConvexPolytope::from_points`]):
//! 1. Reject degenerate input (< 4 points, non-finite, coincident, collinear,
//!    coplanar) with a precise [`GeometryError::DegenerateHull`] message.
//! 2. Quickhull over triangles. A point is *outside* a triangle when its distance
//!    to the triangle's plane exceeds `eps = 1e-10 · L` (L = the largest absolute
//!    coordinate plus the bounding-box diagonal), so duplicates and points within
//!    `eps` of the hull are dropped. The visible region of each eye point is grown by
//!    flood fill from the triangle that owns it, which keeps it connected and the
//!    horizon a single loop.
//! 3. Coplanar triangles are merged into polygonal faces: a flood from the largest
//!    triangle absorbs neighbours whose three vertices lie within `1e-8 · L` of its
//!    plane. A box therefore has 6 quadrilateral faces, which the contact normal
//!    rule (eq. (4) of 000_48109ab67d5cd76d) needs.
//! 4. Faces get a Newell normal (exact for axis-aligned faces) and the offset
//!    `d = mean(n·v)`; edges and per-vertex adjacency are derived from the loops.
//!
//! Conventions: every face loop is counter-clockwise seen from outside; for
//! `edges[e] = Edge { v: [i, j], faces: [f0, f1] }`, the loop of `f0` runs `i → j`
//! and the loop of `f1` runs `j → i`. All quantities are in the polytope's own
//! (geom) frame, in metres.

use super::{GeometryError, MassProperties};
use crate::math::{Mat3, Pose, Vec3};
use std::collections::HashMap;

/// A planar face: `normal · x = offset` for every point `x` of the face.
#[derive(Clone, Debug, PartialEq)]
pub struct Face {
    /// Outward unit normal.
    pub normal: Vec3,
    /// Plane offset d, m: `normal · x = d` on the face, `< d` inside the polytope.
    pub offset: f64,
    /// Area, m².
    pub area: f64,
    /// Vertex ids, counter-clockwise seen from outside.
    pub vertices: Vec<usize>,
}

/// An edge between two vertices and its two adjacent faces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// Vertex ids `[i, j]`, `i < j`.
    pub v: [usize; 2],
    /// `faces[0]` traverses `i → j`, `faces[1]` traverses `j → i`.
    pub faces: [usize; 2],
}

/// A convex polytope with full adjacency, in its geom frame.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolytope {
    /// Hull vertices only (interior and duplicate input points dropped), m.
    pub vertices: Vec<Vec3>,
    pub faces: Vec<Face>,
    pub edges: Vec<Edge>,
    /// Edge ids incident to each vertex.
    pub vertex_edges: Vec<Vec<usize>>,
    /// Face ids incident to each vertex.
    pub vertex_faces: Vec<Vec<usize>>,
    /// A strictly interior point (the vertex mean), m.
    pub interior: Vec3,
    /// Largest vertex distance from the frame origin, m.
    pub radius: f64,
    /// The mesh file's own triangles when the shape is used by Rigid IPC (which
    /// takes meshes as they are, nonconvex or open); `None` for every other method
    /// and for point sets (see `collision::mesh`).
    pub source: Option<std::sync::Arc<super::mesh::TriangleMesh>>,
}

/// Working triangle of the quickhull.
struct Tri {
    v: [usize; 3],
    n: Vec3,
    d: f64,
    outside: Vec<usize>,
    alive: bool,
}

impl Tri {
    fn new(v: [usize; 3], p: &[Vec3]) -> Tri {
        let c = (p[v[1]] - p[v[0]]).cross(&(p[v[2]] - p[v[0]]));
        let len = c.norm();
        // A sliver with a vanishing normal can see nothing; it is merged later.
        let n = if len > 0.0 { c / len } else { Vec3::zeros() };
        Tri {
            v,
            n,
            d: n.dot(&p[v[0]]),
            outside: Vec::new(),
            alive: true,
        }
    }
    fn dist(&self, x: &Vec3) -> f64 {
        self.n.dot(x) - self.d
    }
    fn area2(&self, p: &[Vec3]) -> f64 {
        (p[self.v[1]] - p[self.v[0]])
            .cross(&(p[self.v[2]] - p[self.v[0]]))
            .norm()
    }
}

impl ConvexPolytope {
    /// Convex hull of `points` (m). Errors for fewer than 4 points, non-finite
    /// coordinates, or all points coincident, collinear or coplanar.
    pub fn from_points(points: &[Vec3]) -> Result<Self, GeometryError> {
        let n = points.len();
        if n < 4 {
            return Err(GeometryError::DegenerateHull(format!(
                "need at least 4 points to span a volume, got {n}"
            )));
        }
        if let Some(i) = points.iter().position(|p| !p.iter().all(|c| c.is_finite())) {
            return Err(GeometryError::DegenerateHull(format!(
                "point {i} has a non-finite coordinate {:?}",
                points[i]
            )));
        }
        // Scale of the input for relative tolerances.
        let mut lo = points[0];
        let mut hi = points[0];
        let mut amax = 0.0f64;
        for p in points {
            lo = lo.inf(p);
            hi = hi.sup(p);
            amax = amax.max(p.amax());
        }
        let diag = (hi - lo).norm();
        if diag <= 1e-12 * amax.max(f64::MIN_POSITIVE) || diag == 0.0 {
            return Err(GeometryError::DegenerateHull(format!(
                "all {n} points coincide (bounding-box diagonal {diag:e} m)"
            )));
        }
        let scale = amax + diag;
        let eps = 1e-10 * scale;
        let merge_tol = 1e-8 * scale;
        let degen_tol = 1e-9 * diag;

        // Initial simplex: the farthest pair among the axis extremes, then the
        // farthest point from their line, then from their plane.
        let mut ext = [0usize; 6];
        for (i, p) in points.iter().enumerate() {
            for k in 0..3 {
                if p[k] < points[ext[2 * k]][k] {
                    ext[2 * k] = i;
                }
                if p[k] > points[ext[2 * k + 1]][k] {
                    ext[2 * k + 1] = i;
                }
            }
        }
        let (mut i0, mut i1, mut best) = (ext[0], ext[1], -1.0);
        for a in 0..6 {
            for b in a + 1..6 {
                let d = (points[ext[a]] - points[ext[b]]).norm_squared();
                if d > best {
                    best = d;
                    i0 = ext[a];
                    i1 = ext[b];
                }
            }
        }
        let u = (points[i1] - points[i0]).normalize();
        let (mut i2, mut best) = (i0, -1.0);
        for (i, p) in points.iter().enumerate() {
            let r = p - points[i0];
            let d = (r - u * u.dot(&r)).norm();
            if d > best {
                best = d;
                i2 = i;
            }
        }
        if best <= degen_tol {
            return Err(GeometryError::DegenerateHull(format!(
                "all {n} points are collinear (max distance from the line {best:e} m)"
            )));
        }
        let pn = (points[i1] - points[i0])
            .cross(&(points[i2] - points[i0]))
            .normalize();
        let (mut i3, mut best) = (i0, 0.0f64);
        for (i, p) in points.iter().enumerate() {
            let d = pn.dot(&(p - points[i0]));
            if d.abs() > best.abs() {
                best = d;
                i3 = i;
            }
        }
        if best.abs() <= degen_tol {
            return Err(GeometryError::DegenerateHull(format!(
                "all {n} points are coplanar (max distance from the plane {:e} m)",
                best.abs()
            )));
        }

        // Four outward triangles of the tetrahedron.
        let mut tris: Vec<Tri> = Vec::new();
        let simplex = [i0, i1, i2, i3];
        for (k, &opp) in simplex.iter().enumerate() {
            let mut f = [0usize; 3];
            let mut m = 0;
            for (j, &s) in simplex.iter().enumerate() {
                if j != k {
                    f[m] = s;
                    m += 1;
                }
            }
            let mut t = Tri::new(f, points);
            if t.dist(&points[opp]) > 0.0 {
                t = Tri::new([f[0], f[2], f[1]], points);
            }
            tris.push(t);
        }
        let mut edge_map: HashMap<(usize, usize), usize> = HashMap::new();
        for (ti, t) in tris.iter().enumerate() {
            for k in 0..3 {
                edge_map.insert((t.v[k], t.v[(k + 1) % 3]), ti);
            }
        }
        for (i, p) in points.iter().enumerate() {
            if simplex.contains(&i) {
                continue;
            }
            for t in tris.iter_mut() {
                if t.dist(p) > eps {
                    t.outside.push(i);
                    break;
                }
            }
        }

        // Quickhull iterations: each consumes one eye point, so at most n rounds.
        let mut state: Vec<u8> = Vec::new(); // 0 unknown, 1 visible, 2 hidden
        let mut stack: Vec<usize> = Vec::new();
        let mut visible: Vec<usize> = Vec::new();
        let mut horizon: Vec<(usize, usize)> = Vec::new();
        let mut orphans: Vec<usize> = Vec::new();
        for _round in 0..n {
            let Some(t0) = (0..tris.len()).find(|&i| tris[i].alive && !tris[i].outside.is_empty())
            else {
                break;
            };
            // Eye point: the farthest outside point of t0.
            let mut eye = tris[t0].outside[0];
            let mut far = tris[t0].dist(&points[eye]);
            for &i in &tris[t0].outside {
                let d = tris[t0].dist(&points[i]);
                if d > far {
                    far = d;
                    eye = i;
                }
            }
            let pe = points[eye];
            // Flood the visible region from t0; record horizon edges.
            state.clear();
            state.resize(tris.len(), 0);
            visible.clear();
            horizon.clear();
            stack.clear();
            stack.push(t0);
            state[t0] = 1;
            while let Some(ti) = stack.pop() {
                visible.push(ti);
                for k in 0..3 {
                    let (a, b) = (tris[ti].v[k], tris[ti].v[(k + 1) % 3]);
                    let Some(&nb) = edge_map.get(&(b, a)) else {
                        continue;
                    };
                    match state[nb] {
                        0 => {
                            if tris[nb].dist(&pe) > eps {
                                state[nb] = 1;
                                stack.push(nb);
                            } else {
                                state[nb] = 2;
                                horizon.push((a, b));
                            }
                        }
                        2 => horizon.push((a, b)),
                        _ => {}
                    }
                }
            }
            // The horizon must be a simple loop (each vertex starts one edge).
            let simple = horizon
                .iter()
                .enumerate()
                .all(|(i, &(a, _))| horizon[i + 1..].iter().all(|&(a2, _)| a2 != a));
            if !simple {
                // Numerically inconsistent visibility: drop this eye point.
                tris[t0].outside.retain(|&i| i != eye);
                continue;
            }
            // Remove the visible triangles, keep their outside points.
            orphans.clear();
            visible.sort_unstable();
            for &ti in &visible {
                let t = &mut tris[ti];
                t.alive = false;
                orphans.extend(t.outside.drain(..).filter(|&i| i != eye));
                for k in 0..3 {
                    edge_map.remove(&(t.v[k], t.v[(k + 1) % 3]));
                }
            }
            // Cone of new triangles from the horizon to the eye.
            let first_new = tris.len();
            for &(a, b) in &horizon {
                let t = Tri::new([a, b, eye], points);
                let ti = tris.len();
                for k in 0..3 {
                    edge_map.insert((t.v[k], t.v[(k + 1) % 3]), ti);
                }
                tris.push(t);
            }
            for &i in &orphans {
                for t in tris[first_new..].iter_mut() {
                    if t.dist(&points[i]) > eps {
                        t.outside.push(i);
                        break;
                    }
                }
            }
        }

        // Merge coplanar triangles into faces (largest triangle first).
        let alive: Vec<usize> = (0..tris.len()).filter(|&i| tris[i].alive).collect();
        let mut order = alive.clone();
        order.sort_by(|&x, &y| {
            tris[y]
                .area2(points)
                .total_cmp(&tris[x].area2(points))
                .then(x.cmp(&y))
        });
        let mut group = vec![usize::MAX; tris.len()];
        let mut loops: Vec<Vec<usize>> = Vec::new();
        let mut members: Vec<usize> = Vec::new();
        let mut boundary: Vec<(usize, usize)> = Vec::new();
        for &seed in &order {
            if group[seed] != usize::MAX {
                continue;
            }
            let gid = loops.len();
            let (sn, sd) = (tris[seed].n, tris[seed].d);
            members.clear();
            stack.clear();
            stack.push(seed);
            group[seed] = gid;
            while let Some(ti) = stack.pop() {
                members.push(ti);
                for k in 0..3 {
                    let (a, b) = (tris[ti].v[k], tris[ti].v[(k + 1) % 3]);
                    let Some(&nb) = edge_map.get(&(b, a)) else {
                        continue;
                    };
                    if group[nb] != usize::MAX {
                        continue;
                    }
                    let t = &tris[nb];
                    let flat =
                        t.v.iter()
                            .all(|&v| (sn.dot(&points[v]) - sd).abs() <= merge_tol);
                    if flat && sn.dot(&t.n) > 0.0 {
                        group[nb] = gid;
                        stack.push(nb);
                    }
                }
            }
            // Boundary edges of the group, chained into one CCW loop.
            boundary.clear();
            for &ti in &members {
                for k in 0..3 {
                    let (a, b) = (tris[ti].v[k], tris[ti].v[(k + 1) % 3]);
                    let twin = edge_map.get(&(b, a)).copied();
                    if twin.is_none_or(|nb| group[nb] != gid) {
                        boundary.push((a, b));
                    }
                }
            }
            match chain_loop(&boundary) {
                Some(l) => loops.push(l),
                None => {
                    // Not a simple polygon (should not happen): keep the triangles.
                    members.sort_unstable();
                    for (m, &ti) in members.iter().enumerate() {
                        if m > 0 {
                            group[ti] = loops.len();
                        }
                        loops.push(tris[ti].v.to_vec());
                    }
                }
            }
        }

        // Re-index the used vertices in input order.
        let mut new_id = vec![usize::MAX; n];
        for l in &loops {
            for &v in l {
                new_id[v] = 0;
            }
        }
        let mut vertices = Vec::new();
        for i in 0..n {
            if new_id[i] == 0 {
                new_id[i] = vertices.len();
                vertices.push(points[i]);
            }
        }
        for l in loops.iter_mut() {
            for v in l.iter_mut() {
                *v = new_id[*v];
            }
        }
        Self::from_faces(vertices, loops)
    }

    /// Build a polytope from its vertices and counter-clockwise (seen from outside)
    /// face loops. Computes Newell normals, offsets, edges and adjacency; errors if
    /// the loops do not close into a 2-manifold.
    pub fn from_faces(vertices: Vec<Vec3>, loops: Vec<Vec<usize>>) -> Result<Self, GeometryError> {
        let nv = vertices.len();
        let mut faces = Vec::with_capacity(loops.len());
        for l in loops {
            if l.len() < 3 || l.iter().any(|&v| v >= nv) {
                return Err(GeometryError::DegenerateHull(format!(
                    "face loop {l:?} is invalid for {nv} vertices"
                )));
            }
            let (normal, offset, area) = newell_plane(&vertices, &l);
            faces.push(Face {
                normal,
                offset,
                area,
                vertices: l,
            });
        }
        let mut edges: Vec<Edge> = Vec::new();
        let mut index: HashMap<(usize, usize), usize> = HashMap::new();
        let mut filled: Vec<[bool; 2]> = Vec::new();
        for (fi, f) in faces.iter().enumerate() {
            let k = f.vertices.len();
            for j in 0..k {
                let (a, b) = (f.vertices[j], f.vertices[(j + 1) % k]);
                let key = (a.min(b), a.max(b));
                let side = usize::from(a > b);
                let ei = *index.entry(key).or_insert_with(|| {
                    edges.push(Edge {
                        v: [key.0, key.1],
                        faces: [usize::MAX; 2],
                    });
                    filled.push([false; 2]);
                    edges.len() - 1
                });
                if filled[ei][side] {
                    return Err(GeometryError::DegenerateHull(format!(
                        "edge {key:?} is traversed twice in the same direction"
                    )));
                }
                filled[ei][side] = true;
                edges[ei].faces[side] = fi;
            }
        }
        if let Some(e) = edges.iter().find(|e| e.faces.contains(&usize::MAX)) {
            return Err(GeometryError::DegenerateHull(format!(
                "edge {:?} has only one adjacent face (surface not closed)",
                e.v
            )));
        }
        let mut vertex_edges = vec![Vec::new(); nv];
        let mut vertex_faces = vec![Vec::new(); nv];
        for (ei, e) in edges.iter().enumerate() {
            vertex_edges[e.v[0]].push(ei);
            vertex_edges[e.v[1]].push(ei);
        }
        for (fi, f) in faces.iter().enumerate() {
            for &v in &f.vertices {
                vertex_faces[v].push(fi);
            }
        }
        let mut p = ConvexPolytope {
            vertices,
            faces,
            edges,
            vertex_edges,
            vertex_faces,
            interior: Vec3::zeros(),
            radius: 0.0,
            source: None,
        };
        p.update_summary();
        Ok(p)
    }

    /// A right prism along z with `n` side faces whose vertices lie at
    /// `vertex_radius` (m) and `z = ±half_length` (m): the tessellated cylinder used
    /// by the polytope contact routines (vertex i at angle 2πi/n).
    pub fn prism(vertex_radius: f64, half_length: f64, n: usize) -> Self {
        let n = n.max(3);
        let mut loops = Vec::with_capacity(n + 2);
        loops.push((0..n).rev().collect::<Vec<_>>());
        loops.push((n..2 * n).collect::<Vec<_>>());
        for i in 0..n {
            let j = (i + 1) % n;
            loops.push(vec![i, j, n + j, n + i]);
        }
        let vertices = vec![Vec3::zeros(); 2 * n];
        let mut p = ConvexPolytope {
            vertices,
            faces: Vec::new(),
            edges: Vec::new(),
            vertex_edges: Vec::new(),
            vertex_faces: Vec::new(),
            interior: Vec3::zeros(),
            radius: 0.0,
            source: None,
        };
        p.prism_vertices(vertex_radius, half_length, n);
        // The loops above always close into a manifold; an error here is impossible
        // for n ≥ 3, so fall back to an empty polytope rather than panic.
        match Self::from_faces(p.vertices.clone(), loops) {
            Ok(q) => q,
            Err(_) => p,
        }
    }

    /// Move the vertices of a polytope built by [`Self::prism`] (same `n`) to a new
    /// radius and half length without reallocating; normals are unchanged.
    pub fn refit_prism(&mut self, vertex_radius: f64, half_length: f64) {
        let n = self.vertices.len() / 2;
        self.prism_vertices(vertex_radius, half_length, n);
        for f in self.faces.iter_mut() {
            let (_, offset, area) = newell_plane(&self.vertices, &f.vertices);
            f.offset = offset;
            f.area = area;
        }
        self.update_summary();
    }

    fn prism_vertices(&mut self, r: f64, h: f64, n: usize) {
        for i in 0..n {
            let a = std::f64::consts::TAU * i as f64 / n as f64;
            let (s, c) = a.sin_cos();
            self.vertices[i] = Vec3::new(r * c, r * s, -h);
            self.vertices[n + i] = Vec3::new(r * c, r * s, h);
        }
    }

    fn update_summary(&mut self) {
        let nv = self.vertices.len().max(1) as f64;
        self.interior = self.vertices.iter().sum::<Vec3>() / nv;
        self.radius = self.vertices.iter().map(|v| v.norm()).fold(0.0, f64::max);
    }

    /// Volume, m³ (exact up to rounding: sum of tetrahedra from the interior point).
    pub fn volume(&self) -> f64 {
        let c = self.interior;
        let mut vol = 0.0;
        self.for_each_tet(|a, b, d| vol += (a - c).dot(&(b - c).cross(&(d - c))) / 6.0);
        vol
    }

    /// Mass, centre of mass and inertia about the centre of mass (geom axes) of the
    /// solid at uniform `density` (kg/m³). Exact: each tetrahedron (c, a, b, d)
    /// contributes ∫ x xᵀ dV = V/20 (Σ pᵢpᵢᵀ + S Sᵀ), S = Σ pᵢ, relative to c.
    pub fn mass_properties(&self, density: f64) -> MassProperties {
        let c = self.interior;
        let mut vol = 0.0;
        let mut first = Vec3::zeros();
        let mut second = Mat3::zeros();
        self.for_each_tet(|a, b, d| {
            let (a, b, d) = (a - c, b - c, d - c);
            let v = a.dot(&b.cross(&d)) / 6.0;
            let s = a + b + d;
            vol += v;
            first += s * (v / 4.0);
            second +=
                (a * a.transpose() + b * b.transpose() + d * d.transpose() + s * s.transpose())
                    * (v / 20.0);
        });
        let mass = density * vol;
        let com_c = if vol > 0.0 {
            first / vol
        } else {
            Vec3::zeros()
        };
        let m2 = second * density;
        let i_c = Mat3::identity() * m2.trace() - m2;
        let shift = (Mat3::identity() * com_c.norm_squared() - com_c * com_c.transpose()) * mass;
        MassProperties {
            mass,
            com: c + com_c,
            inertia: i_c - shift,
        }
    }

    fn for_each_tet(&self, mut f: impl FnMut(Vec3, Vec3, Vec3)) {
        for face in &self.faces {
            let l = &face.vertices;
            let v0 = self.vertices[l[0]];
            for k in 1..l.len() - 1 {
                f(v0, self.vertices[l[k]], self.vertices[l[k + 1]]);
            }
        }
    }

    /// Vertices and face planes `(n, d)` (n·x = d on the face) posed at `x`, world
    /// coordinates, into reused buffers (cleared first; no allocation once they have
    /// the capacity).
    pub fn world_into(&self, x: &Pose, v: &mut Vec<Vec3>, planes: &mut Vec<(Vec3, f64)>) {
        v.clear();
        planes.clear();
        v.extend(
            self.vertices
                .iter()
                .map(|q| x.transform_point(&(*q).into()).coords),
        );
        planes.extend(self.faces.iter().map(|f| {
            let n = x.rotation * f.normal;
            (n, f.offset + n.dot(&x.translation.vector))
        }));
    }

    /// The vertex maximizing `dir · v` (lowest id on ties), m.
    pub fn support(&self, dir: &Vec3) -> Vec3 {
        let mut best = self.vertices.first().copied().unwrap_or_else(Vec3::zeros);
        let mut bd = dir.dot(&best);
        for v in &self.vertices {
            let d = dir.dot(v);
            if d > bd {
                bd = d;
                best = *v;
            }
        }
        best
    }

    /// Whether `p` lies inside or within `tol` (m) of every face plane.
    pub fn contains(&self, p: &Vec3, tol: f64) -> bool {
        self.faces.iter().all(|f| f.normal.dot(p) - f.offset <= tol)
    }

    /// Largest face-plane distance `max_f (n_f·p − d_f)`: < 0 inside (minus the
    /// distance to the nearest face), > 0 outside (a lower bound on the distance).
    pub fn max_face_distance(&self, p: &Vec3) -> (f64, usize) {
        let mut best = f64::NEG_INFINITY;
        let mut bi = 0;
        for (i, f) in self.faces.iter().enumerate() {
            let s = f.normal.dot(p) - f.offset;
            if s > best {
                best = s;
                bi = i;
            }
        }
        (best, bi)
    }

    /// Closest surface point to `p` (geom frame). Returns `(q, sd, n)`: the surface
    /// point q, the signed distance sd (m, < 0 inside) and the unit outward
    /// direction n with `p = q + sd·n`.
    pub fn closest_point(&self, p: &Vec3) -> (Vec3, f64, Vec3) {
        let (s, fi) = self.max_face_distance(p);
        let Some(face) = self.faces.get(fi) else {
            return (*p, 0.0, Vec3::z());
        };
        if s <= 0.0 {
            // Inside: the nearest face plane.
            return (p - face.normal * s, s, face.normal);
        }
        // Outside: a face whose plane projection lands inside it is the answer.
        for f in &self.faces {
            let sf = f.normal.dot(p) - f.offset;
            if sf <= 0.0 {
                continue;
            }
            let q = p - f.normal * sf;
            let k = f.vertices.len();
            let inside = (0..k).all(|j| {
                let a = self.vertices[f.vertices[j]];
                let b = self.vertices[f.vertices[(j + 1) % k]];
                (b - a).cross(&(q - a)).dot(&f.normal) >= 0.0
            });
            if inside {
                return (q, sf, f.normal);
            }
        }
        // Otherwise the nearest edge point (vertices included).
        let mut best = (self.vertices[0], f64::INFINITY);
        for e in &self.edges {
            let q = closest_on_segment(&self.vertices[e.v[0]], &self.vertices[e.v[1]], p);
            let d2 = (p - q).norm_squared();
            if d2 < best.1 {
                best = (q, d2);
            }
        }
        let d = best.1.sqrt();
        let n = if d > 0.0 {
            (p - best.0) / d
        } else {
            face.normal
        };
        (best.0, d, n)
    }
}

/// Closest point to `p` on the segment `a`–`b`.
pub(crate) fn closest_on_segment(a: &Vec3, b: &Vec3, p: &Vec3) -> Vec3 {
    let ab = b - a;
    let l2 = ab.norm_squared();
    if l2 <= 0.0 {
        return *a;
    }
    let t = ((p - a).dot(&ab) / l2).clamp(0.0, 1.0);
    a + ab * t
}

/// Newell normal, mean offset and area of a planar loop.
fn newell_plane(v: &[Vec3], l: &[usize]) -> (Vec3, f64, f64) {
    let k = l.len();
    let mut n = Vec3::zeros();
    let mut c = Vec3::zeros();
    for j in 0..k {
        let a = v[l[j]];
        let b = v[l[(j + 1) % k]];
        n.x += (a.y - b.y) * (a.z + b.z);
        n.y += (a.z - b.z) * (a.x + b.x);
        n.z += (a.x - b.x) * (a.y + b.y);
        c += a;
    }
    let len = n.norm();
    let n = if len > 0.0 { n / len } else { Vec3::z() };
    c /= k as f64;
    (n, n.dot(&c), 0.5 * len)
}

/// Chain directed boundary edges into one loop; `None` if they do not form
/// exactly one simple cycle.
fn chain_loop(edges: &[(usize, usize)]) -> Option<Vec<usize>> {
    let &(start, _) = edges.first()?;
    for (i, &(a, _)) in edges.iter().enumerate() {
        if edges[i + 1..].iter().any(|&(b, _)| b == a) {
            return None;
        }
    }
    let mut l = Vec::with_capacity(edges.len());
    let mut cur = start;
    for _ in 0..edges.len() {
        l.push(cur);
        cur = edges.iter().find(|&&(a, _)| a == cur)?.1;
        if cur == start {
            break;
        }
    }
    (cur == start && l.len() == edges.len()).then_some(l)
}
