//! The local model a device renders between network updates: the world's contact
//! linearized about the tool's state when the model was made,
//!
//! ```text
//! f(x, v) = f₀ − K (x − x₀) − B v      (device coordinates; K, B symmetric ⪰ 0)
//! ```
//!
//! e.g. for a tool pressed into a plane of normal n with series stiffness k:
//! K = k n nᵀ, f₀ = the force at x₀. A contact model is one-sided: with a
//! `unilateral` normal n the force is zero while n·(x − x₀) > 0 (outside the
//! surface) or while it would pull (f·n < 0). The device's own loop evaluates it at its own
//! rate (≥ 1 kHz) on the latest position, so a stiff contact is rendered without
//! waiting for the network; the port's passivity controller still watches it.

use crate::math::{Mat3, Vec3};

/// A linearized impedance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalModel {
    pub f0: Vec3,
    pub x0: Vec3,
    pub k: Mat3,
    pub b: Mat3,
    /// Outward normal of a one-sided contact (`None`: bilateral).
    pub unilateral: Option<Vec3>,
}

impl Default for LocalModel {
    /// No force.
    fn default() -> Self {
        LocalModel {
            f0: Vec3::zeros(),
            x0: Vec3::zeros(),
            k: Mat3::zeros(),
            b: Mat3::zeros(),
            unilateral: None,
        }
    }
}

impl LocalModel {
    /// A one-sided wall: contact plane through `x_surface` with unit normal `n`
    /// (pointing out of the wall), stiffness `k` and damping `b` along `n`.
    pub fn plane(x_surface: &Vec3, n: &Vec3, k: f64, b: f64) -> Self {
        let nn = n * n.transpose();
        LocalModel {
            f0: Vec3::zeros(),
            x0: *x_surface,
            k: nn * k,
            b: nn * b,
            unilateral: Some(*n),
        }
    }

    /// The force at device position `x` and velocity `v`.
    pub fn force(&self, x: &Vec3, v: &Vec3) -> Vec3 {
        let f = self.f0 - self.k * (x - self.x0) - self.b * v;
        match self.unilateral {
            Some(n) if n.dot(&(x - self.x0)) > 0.0 || f.dot(&n) < 0.0 => Vec3::zeros(),
            _ => f,
        }
    }
}
