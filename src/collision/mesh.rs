//! Convex meshes from STL / OBJ files (STUB).

use super::{GeometryError, Shape};
use std::path::Path;

/// Load a mesh file and return the convex hull of its vertices, scaled by `scale`.
pub fn load_convex_mesh(path: &Path, scale: f64) -> Result<Shape, GeometryError> {
    let _ = scale;
    Err(GeometryError::Mesh {
        path: path.display().to_string(),
        reason: "mesh loading not implemented yet".into(),
    })
}
