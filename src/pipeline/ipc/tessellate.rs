//! The surface mesh Rigid IPC uses for a body (004 §4: vertices X̂ and triangles F̂
//! in the body frame, whose origin is the centre of mass), from its geoms:
//!
//! - `box`: exact (8 vertices, 12 triangles);
//! - `plane`: a square of half width `IpcParams::plane_half_width` in the plane's
//!   z = 0 (two triangles, normal +z) — an open, codimensional surface;
//! - `sphere`: not tessellated: one round vertex at its centre with its radius
//!   (`ipc::mesh`, "Round vertices"), so that its distances are exact and it rolls
//!   as a ball, not as a polyhedron ([`shape_triangles`] still gives its UV
//!   tessellation — 16 meridians × 7 parallels plus the poles, inscribed — for
//!   other uses);
//! - `capsule`: not tessellated: a round edge, its axis between two round vertices of
//!   its radius (`shape_triangles` still gives the hemispheres' 16 meridians × 4
//!   parallels joined along the cylinder);
//! - `cylinder`: 16 sides, flat caps (inscribed prism);
//! - `polytope` (points): its hull faces fanned into triangles;
//! - `mesh` file: its own triangles as loaded by `collision::mesh::load_ipc_mesh`
//!   (nonconvex and open meshes as they are, not the hull).
//!
//! Several geoms of one body are merged into one mesh (their triangles are not
//! joined: the barrier acts between bodies only).

use crate::collision::{ConvexPolytope, Shape};
use crate::ipc::mesh::SurfaceMesh;
use crate::math::{Pose, Vec3};
use crate::model::Model;
use std::f64::consts::PI;

/// Meridians of the round tessellations.
pub const MERIDIANS: usize = 16;

/// The body-frame surface mesh of body `b` (empty if it has no geoms).
pub fn body_mesh(model: &Model, b: usize, plane_half_width: f64) -> SurfaceMesh {
    let mut verts: Vec<Vec3> = Vec::new();
    let mut faces: Vec<[u32; 3]> = Vec::new();
    // (end, end, radius): a sphere's centre twice, a capsule's axis.
    let mut round: Vec<(Vec3, Vec3, f64)> = Vec::new();
    for g in model.bodies[b].geoms.clone() {
        let geom = &model.geoms[g];
        match geom.shape {
            Shape::Sphere { radius } => {
                let c = transform(&geom.x_bg, &Vec3::zeros());
                round.push((c, c, radius));
                continue;
            }
            Shape::Capsule {
                radius,
                half_length,
            } => {
                let a = transform(&geom.x_bg, &Vec3::new(0.0, 0.0, -half_length));
                let b = transform(&geom.x_bg, &Vec3::new(0.0, 0.0, half_length));
                round.push((a, b, radius));
                continue;
            }
            _ => {}
        }
        let (v, f) = shape_triangles(&geom.shape, plane_half_width);
        let base = verts.len() as u32;
        verts.extend(v.iter().map(|p| transform(&geom.x_bg, p)));
        faces.extend(f.iter().map(|t| t.map(|i| i + base)));
    }
    let mut mesh = SurfaceMesh::new(verts, faces);
    for (a, b, r) in round {
        if a == b {
            mesh.push_round(a, r);
        } else {
            mesh.push_round_edge(a, b, r);
        }
    }
    mesh
}

fn transform(pose: &Pose, p: &Vec3) -> Vec3 {
    (pose * nalgebra::Point3::from(*p)).coords
}

/// Vertices and outward triangles of a shape in its geom frame.
pub fn shape_triangles(shape: &Shape, plane_half_width: f64) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    match shape {
        Shape::Plane => {
            let l = plane_half_width;
            (
                vec![
                    Vec3::new(-l, -l, 0.0),
                    Vec3::new(l, -l, 0.0),
                    Vec3::new(l, l, 0.0),
                    Vec3::new(-l, l, 0.0),
                ],
                vec![[0, 1, 2], [0, 2, 3]],
            )
        }
        Shape::Box { half, .. } => {
            let m = SurfaceMesh::cuboid(half);
            (m.vertices, m.faces)
        }
        Shape::Polytope(p) => match &p.source {
            // A mesh file as it is (nonconvex or open), not its hull.
            Some(m) => (m.vertices.clone(), m.faces.clone()),
            None => fan(p),
        },
        Shape::Sphere { radius } => round(*radius, 0.0, 8),
        Shape::Capsule {
            radius,
            half_length,
        } => round(*radius, *half_length, 4),
        Shape::Cylinder {
            radius,
            half_length,
        } => {
            let mut pts = Vec::new();
            for k in 0..MERIDIANS {
                let a = 2.0 * PI * k as f64 / MERIDIANS as f64;
                for z in [-half_length, *half_length] {
                    pts.push(Vec3::new(radius * a.cos(), radius * a.sin(), z));
                }
            }
            hull_triangles(&pts)
        }
    }
}

/// Points of a sphere of `radius` (h = 0) or of a capsule's two hemispheres about
/// z = ±h, with `rings` latitude steps per hemisphere, triangulated as their hull.
fn round(radius: f64, h: f64, rings: usize) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let mut pts = Vec::new();
    for (sign, shift) in [(1.0, h), (-1.0, -h)] {
        // The equator ring (j = 0) once for a sphere, on both ends for a capsule.
        let first = if h == 0.0 && sign < 0.0 { 1 } else { 0 };
        for j in first..rings {
            let phi = 0.5 * PI * j as f64 / rings as f64;
            for k in 0..MERIDIANS {
                let a = 2.0 * PI * k as f64 / MERIDIANS as f64;
                pts.push(Vec3::new(
                    radius * phi.cos() * a.cos(),
                    radius * phi.cos() * a.sin(),
                    shift + sign * radius * phi.sin(),
                ));
            }
        }
        pts.push(Vec3::new(0.0, 0.0, shift + sign * radius));
    }
    hull_triangles(&pts)
}

fn hull_triangles(pts: &[Vec3]) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    match ConvexPolytope::from_points(pts) {
        Ok(p) => fan(&p),
        Err(_) => (Vec::new(), Vec::new()),
    }
}

/// A convex polytope's faces (counter-clockwise from outside) fanned into triangles.
fn fan(p: &ConvexPolytope) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let mut faces = Vec::new();
    for f in &p.faces {
        let v = &f.vertices;
        for k in 1..v.len().saturating_sub(1) {
            faces.push([v[0] as u32, v[k] as u32, v[k + 1] as u32]);
        }
    }
    (p.vertices.clone(), faces)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tessellation of a closed shape is closed (V − E + F = 2, each edge in two
    /// triangles' boundaries), outward (normals away from the centre) and inscribed.
    #[test]
    fn closed_outward_inscribed() {
        let shapes = [
            (Shape::Sphere { radius: 0.3 }, 0.3),
            (
                Shape::Capsule {
                    radius: 0.2,
                    half_length: 0.5,
                },
                0.7,
            ),
            (
                Shape::Cylinder {
                    radius: 0.2,
                    half_length: 0.5,
                },
                (0.2f64 * 0.2 + 0.25).sqrt(),
            ),
        ];
        for (s, reach) in shapes {
            let (v, f) = shape_triangles(&s, 1.0);
            let m = SurfaceMesh::new(v, f);
            let (nv, ne, nf) = (m.vertices.len(), m.edges.len(), m.faces.len());
            assert_eq!(nv + nf, ne + 2, "{s:?}: V − E + F ≠ 2");
            assert_eq!(2 * ne, 3 * nf, "{s:?}: not closed");
            for t in &m.faces {
                let [a, b, c] = t.map(|i| m.vertices[i as usize]);
                let n = (b - a).cross(&(c - a));
                assert!(n.dot(&((a + b + c) / 3.0)) > 0.0, "{s:?}: inward face");
            }
            for p in &m.vertices {
                assert!(p.norm() <= reach * (1.0 + 1e-12), "{s:?}: {p:?} outside");
            }
        }
    }
}
