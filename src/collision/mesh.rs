//! Convex meshes from STL (binary or ASCII, via `stl_io`) and Wavefront OBJ (via
//! `tobj`) files, chosen by the file extension (case-insensitive).
//!
//! For every method but Rigid IPC only the vertex positions are used: the shape is
//! the convex hull of all vertices, scaled by `scale` about the file's origin, as a
//! [`Shape::Polytope`]. For IPC ([`load_ipc_mesh`]) the file's triangles are used
//! as they are (004 §4: nonconvex and open meshes): welded, checked (no degenerate
//! triangle, every edge in at most two triangles, consistent orientation, no
//! non-manifold vertex where surfaces touch at a point, no two triangles meeting
//! beyond what they share — exact predicates —, a closed mesh facing outward) and
//! kept in the polytope's `source` beside the hull, which
//! still serves bounds and the viewer. Every error names the file (and the
//! triangles, 0-based in file order, or the vertex at fault). OBJ coordinates are
//! read in double precision (`tobj`'s `use_f64`); STL stores single precision.

use super::{ConvexPolytope, GeometryError, MassProperties, Shape};
use crate::math::{Mat3, Vec3};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// The mesh formats the loaders read.
enum MeshFormat {
    Stl,
    Obj,
}

/// The error of a mesh file at `path` for a reason.
fn mesh_error(path: &Path) -> impl Fn(String) -> GeometryError + Copy + '_ {
    move |reason| GeometryError::Mesh {
        path: path.display().to_string(),
        reason,
    }
}

/// The checks every loader makes before reading: `scale` positive and finite, the
/// file present, its extension one of the formats (case-insensitive).
fn mesh_format(path: &Path, scale: f64) -> Result<MeshFormat, GeometryError> {
    let err = mesh_error(path);
    if !(scale.is_finite() && scale > 0.0) {
        return Err(err(format!(
            "scale must be a positive finite number, got {scale}"
        )));
    }
    if !path.is_file() {
        return Err(err("file not found".into()));
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "stl" => Ok(MeshFormat::Stl),
        "obj" => Ok(MeshFormat::Obj),
        other => Err(err(format!(
            "unknown mesh extension '{other}' (expected .stl or .obj)"
        ))),
    }
}

/// Load a mesh file and return the convex hull of its vertices, scaled by `scale`
/// (dimensionless, > 0; file units × scale = metres).
pub fn load_convex_mesh(path: &Path, scale: f64) -> Result<Shape, GeometryError> {
    let err = mesh_error(path);
    let points = match mesh_format(path, scale)? {
        MeshFormat::Stl => read_stl_points(path).map_err(err)?,
        MeshFormat::Obj => read_obj_points(path).map_err(err)?,
    };
    if points.is_empty() {
        return Err(err("the file contains no vertices".into()));
    }
    let points: Vec<Vec3> = points.into_iter().map(|p| p * scale).collect();
    let hull = ConvexPolytope::from_points(&points).map_err(|e| err(e.to_string()))?;
    Ok(Shape::Polytope(Arc::new(hull)))
}

/// A mesh file's triangles as they are (welded vertices, m; consistently oriented
/// triangles, counter-clockwise from outside for a closed mesh).
#[derive(Clone, Debug, PartialEq)]
pub struct TriangleMesh {
    pub vertices: Vec<Vec3>,
    pub faces: Vec<[u32; 3]>,
    /// Every edge lies in exactly two triangles (the mesh bounds a solid); an open
    /// mesh is a codimensional body (a card, a sheet).
    pub closed: bool,
}

impl TriangleMesh {
    /// Mass properties at `density`: of the solid a closed mesh bounds (kg/m³; the
    /// divergence theorem over the triangles' tetrahedra about the vertex mean), or
    /// of an open mesh as a uniform thin shell (`density` then per area, kg/m²;
    /// ∫ p pᵀ dA = A/12 (a aᵀ + b bᵀ + c cᵀ + s sᵀ), s = a + b + c, per triangle).
    pub fn mass_properties(&self, density: f64) -> MassProperties {
        let c = self.vertices.iter().sum::<Vec3>() / self.vertices.len().max(1) as f64;
        let (mut m0, mut first, mut second) = (0.0, Vec3::zeros(), Mat3::zeros());
        for f in &self.faces {
            let [a, b, d] = f.map(|i| self.vertices[i as usize] - c);
            let s = a + b + d;
            let outer =
                a * a.transpose() + b * b.transpose() + d * d.transpose() + s * s.transpose();
            if self.closed {
                let v = a.dot(&b.cross(&d)) / 6.0;
                m0 += v;
                first += s * (v / 4.0);
                second += outer * (v / 20.0);
            } else {
                let area = 0.5 * (b - a).cross(&(d - a)).norm();
                m0 += area;
                first += s * (area / 3.0);
                second += outer * (area / 12.0);
            }
        }
        let mass = density * m0;
        let com_c = if m0 > 0.0 { first / m0 } else { Vec3::zeros() };
        let m2 = second * density;
        let i_c = Mat3::identity() * m2.trace() - m2;
        let shift = (Mat3::identity() * com_c.norm_squared() - com_c * com_c.transpose()) * mass;
        MassProperties {
            mass,
            com: c + com_c,
            inertia: i_c - shift,
        }
    }

    /// Weld `points` (duplicates within 1e-9 of the bounding-box diagonal become one
    /// vertex; unused ones are dropped) and check the triangles `tris` for IPC.
    pub fn new(points: &[Vec3], tris: &[[usize; 3]]) -> Result<Self, String> {
        if tris.is_empty() {
            return Err("the file contains no triangles".into());
        }
        if let Some(p) = points.iter().find(|p| !p.iter().all(|c| c.is_finite())) {
            return Err(format!("vertex {p:?} is not finite"));
        }
        let (mut lo, mut hi) = (points[0], points[0]);
        for p in points {
            lo = lo.inf(p);
            hi = hi.sup(p);
        }
        let diag = (hi - lo).norm();
        let tol = 1e-9 * diag;
        // Weld: sweep along x over the points sorted by x.
        let mut order: Vec<usize> = (0..points.len()).collect();
        order.sort_by(|&i, &j| points[i].x.total_cmp(&points[j].x));
        let mut rep: Vec<usize> = (0..points.len()).collect();
        for (k, &i) in order.iter().enumerate() {
            for &j in order[..k].iter().rev() {
                if points[i].x - points[j].x > tol {
                    break;
                }
                if (points[i] - points[j]).norm() <= tol && rep[j] == j {
                    rep[i] = j;
                    break;
                }
            }
        }
        let mut index: HashMap<usize, u32> = HashMap::new();
        let mut vertices = Vec::new();
        let mut faces = Vec::with_capacity(tris.len());
        for (t, tri) in tris.iter().enumerate() {
            let mut f = [0u32; 3];
            for (k, &i) in tri.iter().enumerate() {
                let r = *rep
                    .get(i)
                    .ok_or(format!("triangle {t}: vertex index {i} out of range"))?;
                f[k] = *index.entry(r).or_insert_with(|| {
                    vertices.push(points[r]);
                    (vertices.len() - 1) as u32
                });
            }
            let [a, b, c] = f.map(|i| vertices[i as usize]);
            let area = 0.5 * (b - a).cross(&(c - a)).norm();
            if f[0] == f[1] || f[1] == f[2] || f[2] == f[0] || area <= 1e-12 * diag * diag {
                return Err(format!(
                    "triangle {t} is degenerate (area {area:e} m²): IPC needs every triangle to span an area"
                ));
            }
            faces.push(f);
        }
        // Directed edges: each at most once (consistent orientation), each undirected
        // edge in at most two triangles (manifold).
        let mut directed: HashMap<(u32, u32), usize> = HashMap::new();
        let mut undirected: HashMap<(u32, u32), usize> = HashMap::new();
        for (t, f) in faces.iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (f[k], f[(k + 1) % 3]);
                if let Some(u) = directed.insert((a, b), t) {
                    return Err(format!(
                        "triangles {u} and {t} traverse the edge between vertices {a} and {b} in the same direction: inconsistent orientation or a non-manifold edge"
                    ));
                }
                let n = undirected.entry((a.min(b), a.max(b))).or_insert(0);
                *n += 1;
                if *n > 2 {
                    return Err(format!(
                        "non-manifold edge between vertices {a} and {b} (in more than two triangles)"
                    ));
                }
            }
        }
        non_manifold_vertex(&faces, &directed)?;
        self_intersection(&vertices, &faces)?;
        let closed = undirected.values().all(|&n| n == 2);
        let mesh = TriangleMesh {
            vertices,
            faces,
            closed,
        };
        if closed {
            let v = mesh.mass_properties(1.0).mass;
            if v <= 0.0 {
                return Err(format!(
                    "the closed mesh faces inward (signed volume {v:e} m³): reverse its triangles' winding"
                ));
            }
        }
        Ok(mesh)
    }
}

/// The triangles around each vertex must form one fan, joined through the edges at
/// the vertex (a disk, or a half-disk on an open boundary); two fans meeting only at
/// a vertex are two surfaces touching at a point, which IPC refuses (the barrier
/// would start at zero distance). `directed` maps each directed edge to its
/// triangle (consistent orientation already checked).
fn non_manifold_vertex(
    faces: &[[u32; 3]],
    directed: &HashMap<(u32, u32), usize>,
) -> Result<(), String> {
    // Union–find over corners (triangle t, corner k) = 3t + k.
    let mut parent: Vec<usize> = (0..3 * faces.len()).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let corner = |t: usize, v: u32| 3 * t + faces[t].iter().position(|&x| x == v).unwrap_or(0);
    for (&(a, b), &t) in directed {
        if let Some(&u) = directed.get(&(b, a)) {
            for v in [a, b] {
                let (x, y) = (
                    root(&mut parent, corner(t, v)),
                    root(&mut parent, corner(u, v)),
                );
                parent[x] = y;
            }
        }
    }
    // Per vertex: the first corner's fan, and any corner in another.
    let mut first: HashMap<u32, (usize, usize)> = HashMap::new();
    for (t, f) in faces.iter().enumerate() {
        for (k, &v) in f.iter().enumerate() {
            let r = root(&mut parent, 3 * t + k);
            match first.get(&v) {
                None => {
                    first.insert(v, (r, t));
                }
                Some(&(r0, t0)) if r0 != r => {
                    return Err(format!(
                        "non-manifold vertex {v}: triangles {t0} and {t} meet only at that vertex (two surfaces touching at a point)"
                    ));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// No two triangles may meet beyond the vertices and edges they share (exact
/// predicates, `ipc::intersect::mesh_triangles_meet`). Broad phase: sweep and prune
/// over the triangles' bounding boxes sorted along x, O(n log n + pairs whose boxes
/// overlap) — fine for meshes up to ~10⁵ triangles unless most triangles' x ranges
/// overlap (then O(n²)).
fn self_intersection(vertices: &[Vec3], faces: &[[u32; 3]]) -> Result<(), String> {
    let boxes: Vec<(Vec3, Vec3)> = faces
        .iter()
        .map(|f| {
            let [a, b, c] = f.map(|i| vertices[i as usize]);
            (a.inf(&b).inf(&c), a.sup(&b).sup(&c))
        })
        .collect();
    let mut order: Vec<usize> = (0..faces.len()).collect();
    order.sort_by(|&i, &j| boxes[i].0.x.total_cmp(&boxes[j].0.x));
    for (k, &i) in order.iter().enumerate() {
        let (lo, hi) = boxes[i];
        for &j in &order[k + 1..] {
            let (l2, h2) = boxes[j];
            if l2.x > hi.x {
                break;
            }
            if l2.y > hi.y || lo.y > h2.y || l2.z > hi.z || lo.z > h2.z {
                continue;
            }
            if crate::ipc::intersect::mesh_triangles_meet(vertices, faces[i], faces[j]) {
                return Err(format!(
                    "triangles {} and {} intersect: the surface is self-intersecting",
                    i.min(j),
                    i.max(j)
                ));
            }
        }
    }
    Ok(())
}

/// Load a mesh file for Rigid IPC: its triangles as they are (see the module doc),
/// scaled by `scale`, kept in the returned polytope's `source`; the polytope is the
/// hull of the vertices (for a flat mesh, of the vertices moved ±1e-6 of the mesh's
/// size along its normal: a stand-in for bounds and the viewer only).
pub fn load_ipc_mesh(path: &Path, scale: f64) -> Result<Shape, GeometryError> {
    let err = mesh_error(path);
    let (points, tris) = match mesh_format(path, scale)? {
        MeshFormat::Stl => read_stl_triangles(path).map_err(err)?,
        MeshFormat::Obj => read_obj_triangles(path).map_err(err)?,
    };
    let points: Vec<Vec3> = points.into_iter().map(|p| p * scale).collect();
    let mesh = TriangleMesh::new(&points, &tris).map_err(err)?;
    let mut hull = match ConvexPolytope::from_points(&mesh.vertices) {
        Ok(h) => h,
        Err(_) => {
            // Flat: the normal of the largest triangle.
            let n = mesh
                .faces
                .iter()
                .map(|f| {
                    let [a, b, c] = f.map(|i| mesh.vertices[i as usize]);
                    (b - a).cross(&(c - a))
                })
                .max_by(|a, b| a.norm().total_cmp(&b.norm()))
                .unwrap_or_else(Vec3::z)
                .normalize();
            let size = mesh.vertices.iter().map(|v| v.norm()).fold(0.0, f64::max);
            let t = 1e-6 * size.max(f64::MIN_POSITIVE);
            let pts: Vec<Vec3> = mesh
                .vertices
                .iter()
                .flat_map(|v| [v + n * t, v - n * t])
                .collect();
            ConvexPolytope::from_points(&pts).map_err(|e| err(e.to_string()))?
        }
    };
    hull.source = Some(Arc::new(mesh));
    Ok(Shape::Polytope(Arc::new(hull)))
}

type Triangles = (Vec<Vec3>, Vec<[usize; 3]>);

fn read_stl_triangles(path: &Path) -> Result<Triangles, String> {
    let mut file = std::fs::File::open(path).map_err(|e| format!("cannot open: {e}"))?;
    let mesh = stl_io::read_stl(&mut file).map_err(|e| format!("unreadable STL: {e}"))?;
    let pts = mesh
        .vertices
        .iter()
        .map(|v| Vec3::new(f64::from(v.0[0]), f64::from(v.0[1]), f64::from(v.0[2])))
        .collect();
    Ok((pts, mesh.faces.iter().map(|f| f.vertices).collect()))
}

fn read_obj_triangles(path: &Path) -> Result<Triangles, String> {
    let opts = tobj::LoadOptions {
        triangulate: true,
        ..Default::default()
    };
    let (models, _materials) =
        tobj::load_obj(path, &opts).map_err(|e| format!("unreadable OBJ: {e}"))?;
    let (mut pts, mut tris) = (Vec::new(), Vec::new());
    for m in &models {
        let base = pts.len();
        for c in m.mesh.positions.chunks_exact(3) {
            pts.push(Vec3::new(c[0], c[1], c[2]));
        }
        for t in m.mesh.indices.chunks_exact(3) {
            tris.push([0, 1, 2].map(|k| base + t[k] as usize));
        }
    }
    Ok((pts, tris))
}

fn read_stl_points(path: &Path) -> Result<Vec<Vec3>, String> {
    let mut file = std::fs::File::open(path).map_err(|e| format!("cannot open: {e}"))?;
    let mesh = stl_io::read_stl(&mut file).map_err(|e| format!("unreadable STL: {e}"))?;
    Ok(mesh
        .vertices
        .iter()
        .map(|v| Vec3::new(f64::from(v.0[0]), f64::from(v.0[1]), f64::from(v.0[2])))
        .collect())
}

fn read_obj_points(path: &Path) -> Result<Vec<Vec3>, String> {
    let (models, _materials) = tobj::load_obj(path, &tobj::LoadOptions::default())
        .map_err(|e| format!("unreadable OBJ: {e}"))?;
    let mut pts = Vec::new();
    for m in &models {
        for c in m.mesh.positions.chunks_exact(3) {
            pts.push(Vec3::new(c[0], c[1], c[2]));
        }
    }
    Ok(pts)
}
