//! Convex polytopes with vertex/edge/face adjacency (STUB: to be implemented).

use super::{GeometryError, MassProperties};
use crate::math::Vec3;

#[derive(Clone, Debug)]
pub struct ConvexPolytope {
    pub vertices: Vec<Vec3>,
}

impl ConvexPolytope {
    pub fn from_points(points: &[Vec3]) -> Result<Self, GeometryError> {
        if points.len() < 4 {
            return Err(GeometryError::DegenerateHull("fewer than 4 points".into()));
        }
        Ok(Self {
            vertices: points.to_vec(),
        })
    }
    pub fn volume(&self) -> f64 {
        0.0
    }
    pub fn mass_properties(&self, _density: f64) -> MassProperties {
        MassProperties {
            mass: 0.0,
            com: Vec3::zeros(),
            inertia: crate::math::Mat3::zeros(),
        }
    }
}
