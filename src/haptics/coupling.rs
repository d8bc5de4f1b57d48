//! The virtual coupling (Colgate; Adams & Hannaford 1999): a spring–damper between
//! the device pose (mapped into the world) and the tool body. The wrench it applies
//! to the tool is
//!
//! ```text
//! f = K ∘ (x_d − x_t) + B ∘ (v_d − v_t)            (per-axis stiffness and damping)
//! τ = k_r r + b_r (ω_d − ω_t),   r = log(q_d q_t⁻¹)  (6-DoF only; world axis–angle)
//! ```
//!
//! and the device is pushed by the opposite force (`−f`, `−τ`). The coupling bounds
//! the stiffness the device ever sees: in series with a contact of stiffness k_c
//! the device feels k_eff = k k_c / (k + k_c) ≤ k ([`CouplingParams::effective_stiffness`]).

use crate::math::{Pose, Vec3};

/// Coupling gains.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CouplingParams {
    /// Translational stiffness per world axis, N/m.
    pub k: Vec3,
    /// Translational damping per world axis, N·s/m.
    pub b: Vec3,
    /// Rotational stiffness, N·m/rad (0 for a 3-DoF coupling).
    pub k_rot: f64,
    /// Rotational damping, N·m·s/rad.
    pub b_rot: f64,
}

impl CouplingParams {
    /// Isotropic 3-DoF coupling.
    pub fn translational(k: f64, b: f64) -> Self {
        CouplingParams {
            k: Vec3::repeat(k),
            b: Vec3::repeat(b),
            k_rot: 0.0,
            b_rot: 0.0,
        }
    }

    /// The stiffness felt along world axis `axis` through the coupling in series with
    /// a contact of stiffness `k_contact` (N/m): k k_c / (k + k_c).
    pub fn effective_stiffness(&self, axis: usize, k_contact: f64) -> f64 {
        let k = self.k[axis];
        if k + k_contact > 0.0 {
            k * k_contact / (k + k_contact)
        } else {
            0.0
        }
    }
}

/// A rigid motion state: pose and world-frame twist.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionState {
    pub pose: Pose,
    /// Linear velocity of the frame origin, world, m/s.
    pub v: Vec3,
    /// Angular velocity, world, rad/s.
    pub w: Vec3,
}

/// The coupling wrench on the tool `(force, torque)`, world frame, the torque about
/// the tool's frame origin. The device receives `(−force, −torque)`.
pub fn coupling_wrench(
    p: &CouplingParams,
    device: &MotionState,
    tool: &MotionState,
) -> (Vec3, Vec3) {
    let dx = device.pose.translation.vector - tool.pose.translation.vector;
    let dv = device.v - tool.v;
    let f = p.k.component_mul(&dx) + p.b.component_mul(&dv);
    if p.k_rot == 0.0 && p.b_rot == 0.0 {
        return (f, Vec3::zeros());
    }
    // Rotation taking the tool's orientation to the device's, as a world vector.
    let r = (device.pose.rotation * tool.pose.rotation.inverse()).scaled_axis();
    let tau = r * p.k_rot + (device.w - tool.w) * p.b_rot;
    (f, tau)
}
