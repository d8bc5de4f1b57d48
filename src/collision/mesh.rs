//! Convex meshes from STL (binary or ASCII, via `stl_io`) and Wavefront OBJ (via
//! `tobj`) files, chosen by the file extension (case-insensitive).
//!
//! Only the vertex positions are used: the shape is the convex hull of all
//! vertices, scaled by `scale` about the file's origin, as a [`Shape::Polytope`].
//! Every error names the file.

use super::{ConvexPolytope, GeometryError, Shape};
use crate::math::Vec3;
use std::path::Path;
use std::sync::Arc;

/// Load a mesh file and return the convex hull of its vertices, scaled by `scale`
/// (dimensionless, > 0; file units × scale = metres).
pub fn load_convex_mesh(path: &Path, scale: f64) -> Result<Shape, GeometryError> {
    let err = |reason: String| GeometryError::Mesh {
        path: path.display().to_string(),
        reason,
    };
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
    let points = match ext.as_str() {
        "stl" => read_stl_points(path).map_err(err)?,
        "obj" => read_obj_points(path).map_err(err)?,
        other => {
            return Err(err(format!(
                "unknown mesh extension '{other}' (expected .stl or .obj)"
            )))
        }
    };
    if points.is_empty() {
        return Err(err("the file contains no vertices".into()));
    }
    let points: Vec<Vec3> = points.into_iter().map(|p| p * scale).collect();
    let hull = ConvexPolytope::from_points(&points).map_err(|e| err(e.to_string()))?;
    Ok(Shape::Polytope(Arc::new(hull)))
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
            pts.push(Vec3::new(f64::from(c[0]), f64::from(c[1]), f64::from(c[2])));
        }
    }
    Ok(pts)
}
