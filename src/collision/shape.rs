//! Collision shapes, each described in its own geom frame.

use super::{Aabb, ConvexPolytope, GeometryError};
use crate::math::{Mat3, Pose, Vec3};
use std::sync::Arc;

/// Shape kinds, the index of the narrow-phase dispatch table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShapeKind {
    Plane = 0,
    Sphere = 1,
    Box = 2,
    Capsule = 3,
    Cylinder = 4,
    Polytope = 5,
}

impl ShapeKind {
    pub const COUNT: usize = 6;
    pub const ALL: [ShapeKind; 6] = [
        ShapeKind::Plane,
        ShapeKind::Sphere,
        ShapeKind::Box,
        ShapeKind::Capsule,
        ShapeKind::Cylinder,
        ShapeKind::Polytope,
    ];
    pub fn name(self) -> &'static str {
        match self {
            ShapeKind::Plane => "plane",
            ShapeKind::Sphere => "sphere",
            ShapeKind::Box => "box",
            ShapeKind::Capsule => "capsule",
            ShapeKind::Cylinder => "cylinder",
            ShapeKind::Polytope => "polytope",
        }
    }
}

/// A convex shape in its geom frame.
#[derive(Clone, Debug)]
pub enum Shape {
    /// The half-space z ≤ 0 of the geom frame (surface z = 0, outward normal +z).
    Plane,
    Sphere {
        radius: f64,
    },
    /// Axis-aligned box centred at the origin; `poly` is its exact polytope.
    Box {
        half: Vec3,
        poly: Arc<ConvexPolytope>,
    },
    /// Segment from (0,0,−half_length) to (0,0,+half_length) swept by a sphere.
    Capsule {
        radius: f64,
        half_length: f64,
    },
    /// Cylinder along z, from −half_length to +half_length.
    Cylinder {
        radius: f64,
        half_length: f64,
    },
    /// Convex hull of points (or of a mesh file), with adjacency.
    Polytope(Arc<ConvexPolytope>),
}

/// Mass properties of a solid of uniform density, in the geom frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// kg
    pub mass: f64,
    /// Centre of mass in the geom frame, m.
    pub com: Vec3,
    /// Inertia about the centre of mass, axes of the geom frame, kg·m².
    pub inertia: Mat3,
}

impl Shape {
    pub fn plane() -> Shape {
        Shape::Plane
    }

    pub fn sphere(radius: f64) -> Result<Shape, GeometryError> {
        positive("sphere radius", radius)?;
        Ok(Shape::Sphere { radius })
    }

    pub fn cuboid(half: Vec3) -> Result<Shape, GeometryError> {
        for (i, h) in half.iter().enumerate() {
            positive(
                ["half_extents[0]", "half_extents[1]", "half_extents[2]"][i],
                *h,
            )?;
        }
        let mut pts = Vec::with_capacity(8);
        for &sx in &[-1.0, 1.0] {
            for &sy in &[-1.0, 1.0] {
                for &sz in &[-1.0, 1.0] {
                    pts.push(Vec3::new(sx * half.x, sy * half.y, sz * half.z));
                }
            }
        }
        let poly = ConvexPolytope::from_points(&pts)?;
        Ok(Shape::Box {
            half,
            poly: Arc::new(poly),
        })
    }

    pub fn capsule(radius: f64, half_length: f64) -> Result<Shape, GeometryError> {
        positive("capsule radius", radius)?;
        non_negative("capsule half_length", half_length)?;
        Ok(Shape::Capsule {
            radius,
            half_length,
        })
    }

    pub fn cylinder(radius: f64, half_length: f64) -> Result<Shape, GeometryError> {
        positive("cylinder radius", radius)?;
        positive("cylinder half_length", half_length)?;
        Ok(Shape::Cylinder {
            radius,
            half_length,
        })
    }

    /// Convex hull of `points` (at least 4 points not all coplanar).
    pub fn polytope(points: &[Vec3]) -> Result<Shape, GeometryError> {
        Ok(Shape::Polytope(Arc::new(ConvexPolytope::from_points(
            points,
        )?)))
    }

    pub fn kind(&self) -> ShapeKind {
        match self {
            Shape::Plane => ShapeKind::Plane,
            Shape::Sphere { .. } => ShapeKind::Sphere,
            Shape::Box { .. } => ShapeKind::Box,
            Shape::Capsule { .. } => ShapeKind::Capsule,
            Shape::Cylinder { .. } => ShapeKind::Cylinder,
            Shape::Polytope(_) => ShapeKind::Polytope,
        }
    }

    /// Volume, m³ (infinite for a plane).
    pub fn volume(&self) -> f64 {
        use std::f64::consts::PI;
        match self {
            Shape::Plane => f64::INFINITY,
            Shape::Sphere { radius: r } => 4.0 / 3.0 * PI * r * r * r,
            Shape::Box { half, .. } => 8.0 * half.x * half.y * half.z,
            Shape::Capsule {
                radius: r,
                half_length: h,
            } => PI * r * r * (2.0 * h) + 4.0 / 3.0 * PI * r * r * r,
            Shape::Cylinder {
                radius: r,
                half_length: h,
            } => PI * r * r * 2.0 * h,
            Shape::Polytope(p) => p.volume(),
        }
    }

    /// Mass properties at uniform `density` (kg/m³); `None` for a plane.
    pub fn mass_properties(&self, density: f64) -> Option<MassProperties> {
        use std::f64::consts::PI;
        let diag = |a: f64, b: f64, c: f64| Mat3::from_diagonal(&Vec3::new(a, b, c));
        match self {
            Shape::Plane => None,
            Shape::Sphere { radius: r } => {
                let m = density * self.volume();
                let i = 0.4 * m * r * r;
                Some(MassProperties {
                    mass: m,
                    com: Vec3::zeros(),
                    inertia: diag(i, i, i),
                })
            }
            Shape::Box { half, .. } => {
                let m = density * self.volume();
                let (x, y, z) = (2.0 * half.x, 2.0 * half.y, 2.0 * half.z);
                Some(MassProperties {
                    mass: m,
                    com: Vec3::zeros(),
                    inertia: diag(
                        m * (y * y + z * z) / 12.0,
                        m * (x * x + z * z) / 12.0,
                        m * (x * x + y * y) / 12.0,
                    ),
                })
            }
            Shape::Cylinder {
                radius: r,
                half_length: h,
            } => {
                let m = density * self.volume();
                let l = 2.0 * h;
                let ixx = m * (3.0 * r * r + l * l) / 12.0;
                Some(MassProperties {
                    mass: m,
                    com: Vec3::zeros(),
                    inertia: diag(ixx, ixx, 0.5 * m * r * r),
                })
            }
            Shape::Capsule {
                radius: r,
                half_length: h,
            } => {
                // Cylinder of length 2h plus two hemispheres (parallel-axis theorem).
                let mc = density * PI * r * r * 2.0 * h;
                let ms = density * 4.0 / 3.0 * PI * r * r * r; // both caps together
                let l = 2.0 * h;
                let izz = 0.5 * mc * r * r + 0.4 * ms * r * r;
                let ixx =
                    mc * (3.0 * r * r + l * l) / 12.0 + ms * (0.4 * r * r + h * h + 0.75 * h * r);
                Some(MassProperties {
                    mass: mc + ms,
                    com: Vec3::zeros(),
                    inertia: diag(ixx, ixx, izz),
                })
            }
            // A mesh kept for IPC weighs as its own triangles (a closed mesh as the
            // solid it bounds, an open one as a thin shell), not as its hull.
            Shape::Polytope(p) => Some(match &p.source {
                Some(m) => m.mass_properties(density),
                None => p.mass_properties(density),
            }),
        }
    }

    /// World-space bounding box of this shape at pose `x_wg`.
    pub fn aabb(&self, x_wg: &Pose) -> Aabb {
        let c = x_wg.translation.vector;
        let r = x_wg.rotation.to_rotation_matrix();
        let rm = r.matrix();
        // Extent of a box with half extents `h` rotated by R: |R| h.
        let abs_ext = |h: Vec3| rm.abs() * h;
        match self {
            Shape::Plane => {
                // A half-space is bounded only along axes its normal is aligned with.
                let n = rm.column(2).into_owned();
                let mut min = Vec3::repeat(f64::NEG_INFINITY);
                let mut max = Vec3::repeat(f64::INFINITY);
                for k in 0..3 {
                    let aligned = (n[k].abs() - 1.0).abs() < 1e-12;
                    if aligned {
                        if n[k] > 0.0 {
                            max[k] = c[k];
                        } else {
                            min[k] = c[k];
                        }
                    }
                }
                Aabb { min, max }
            }
            Shape::Sphere { radius } => Aabb {
                min: c - Vec3::repeat(*radius),
                max: c + Vec3::repeat(*radius),
            },
            Shape::Box { half, .. } => {
                let e = abs_ext(*half);
                Aabb {
                    min: c - e,
                    max: c + e,
                }
            }
            Shape::Capsule {
                radius,
                half_length,
            } => {
                let e = rm.column(2).abs() * *half_length + Vec3::repeat(*radius);
                Aabb {
                    min: c - e,
                    max: c + e,
                }
            }
            Shape::Cylinder {
                radius,
                half_length,
            } => {
                let e = abs_ext(Vec3::new(*radius, *radius, *half_length));
                Aabb {
                    min: c - e,
                    max: c + e,
                }
            }
            Shape::Polytope(p) => {
                let mut min = Vec3::repeat(f64::INFINITY);
                let mut max = Vec3::repeat(f64::NEG_INFINITY);
                for v in &p.vertices {
                    let w = x_wg * nalgebra::Point3::from(*v);
                    min = min.inf(&w.coords);
                    max = max.sup(&w.coords);
                }
                Aabb { min, max }
            }
        }
    }

    /// A characteristic size (m): the radius of the bounding sphere about the geom
    /// origin. Used for tolerances and by the Hunt–Crossley stiffness rule.
    pub fn size(&self) -> f64 {
        match self {
            Shape::Plane => f64::INFINITY,
            Shape::Sphere { radius } => *radius,
            Shape::Box { half, .. } => half.norm(),
            Shape::Capsule {
                radius,
                half_length,
            } => radius + half_length,
            Shape::Cylinder {
                radius,
                half_length,
            } => (radius * radius + half_length * half_length).sqrt(),
            Shape::Polytope(p) => p.vertices.iter().map(|v| v.norm()).fold(0.0, f64::max),
        }
    }
}

fn positive(what: &str, v: f64) -> Result<(), GeometryError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(GeometryError::InvalidParameter(format!(
            "{what} must be a positive finite number, got {v}"
        )))
    }
}

fn non_negative(what: &str, v: f64) -> Result<(), GeometryError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(GeometryError::InvalidParameter(format!(
            "{what} must be a non-negative finite number, got {v}"
        )))
    }
}
