//! Rigid IPC (004, Ferguson et al., "Intersection-free Rigid Body Dynamics"): the
//! building blocks of the optimization-based step.
//!
//! The step of 004 minimizes the rigid-body incremental potential plus the barrier
//! and friction potentials (eqs. 1, 11) over the bodies' rotation vectors θ and
//! translations q, by a projected Newton method whose line search only accepts
//! intersection-free trial points (curved CCD along the rigid trajectories,
//! eqs. 16–17). What is here so far, each piece tested on its own:
//!
//! - [`ad`]: exact gradients and Hessians by forward-mode second-order automatic
//!   differentiation, so every barrier term is written once;
//! - [`geom`]: the rigid map φ = R(θ)X̂ + q (eq. 4, Rodrigues), the squared distances
//!   between primitives with their classification, the barrier b(d, d̂) (eq. 3) and
//!   the edge–edge mollifier;
//! - [`potential`]: the rigid incremental potential E(θ, q) (eqs. 9–10) and a pair's
//!   barrier term as functions of the two bodies' twelve coordinates;
//! - [`interval`] and [`ccd`]: the conservative curved CCD of §4.3 — interval
//!   enclosures of the rigid trajectories, searched earliest-time-first;
//! - [`mesh`]: body-frame surface meshes (used as they are, no hull) and the
//!   constraint set C of eq. (2) between two bodies;
//! - [`intersect`]: exact triangle–triangle intersection (orientation predicates), so
//!   that tests check the method's guarantee instead of assuming it.
//!
//! The stepper that uses them, `method = "ipc"`, is `crate::pipeline::ipc`
//! (projected Newton, the CCD-filtered line search, lagged friction, the
//! tessellation of primitive shapes); docs/ARCHITECTURE.md shows it beside the
//! force-model and complementarity steps.

pub mod ad;
pub mod ccd;
pub mod geom;
pub mod intersect;
pub mod interval;
pub mod mesh;
pub mod potential;
