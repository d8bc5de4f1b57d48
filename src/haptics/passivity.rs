//! The device port: time-domain passivity observer and controller (Hannaford & Ryu
//! 2002) with the device's force clamp and a rate limit on force changes.
//!
//! Per device sample n (period ΔT), with f_env the force the virtual environment
//! asks for (the world's coupling force, or the local model between network
//! updates) and v the measured device velocity:
//!
//! ```text
//! 1. rate limit        f₁ = f_prev + clamp(f_env − f_prev, ‖·‖ ≤ ṙ_max ΔT)
//! 2. observer          E* = E(n−1) − f₁·v ΔT           (energy absorbed by the environment)
//! 3. controller        if E* < 0 and v ≠ 0:  α = −E*/(ΔT ‖v‖²),  f₂ = f₁ − α v
//! 4. device limit      f = f₂ scaled to ‖f‖ ≤ F_max
//! 5. observer update   E(n) = E(n−1) − f·v ΔT
//! ```
//!
//! Step 3 adds exactly the damping that returns E to zero, so the port stays
//! passive (E(n) ≥ 0) whatever the environment does — a delayed network, a
//! stiff wall sampled too slowly — unless step 4 saturates, which is counted
//! ([`PortState::saturated_steps`]) because the device cannot render the needed
//! damping. The rate limit comes first so that the controller's damping, which
//! must act within the sample, is never delayed by it.

use crate::math::Vec3;

/// Limits and switches of a device port.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PortParams {
    /// Largest force the device renders, N.
    pub max_force: f64,
    /// Largest change of the environment force per second, N/s (∞ for none).
    pub max_rate: f64,
    /// Run the passivity controller (the observer always runs).
    pub passivity_control: bool,
}

/// What the port has seen so far.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PortState {
    /// Observed energy absorbed by the environment, J (passive: ≥ 0).
    pub energy: f64,
    /// Lowest observed energy so far, J.
    pub energy_min: f64,
    /// Damping the controller added at the last sample, N·s/m.
    pub alpha: f64,
    /// Last rate-limited environment force, N.
    pub f_prev: Vec3,
    /// Samples in which the controller acted.
    pub active_steps: u64,
    /// Samples in which the device limit cut the force.
    pub saturated_steps: u64,
}

/// One device port.
#[derive(Clone, Debug, PartialEq)]
pub struct DevicePort {
    pub params: PortParams,
    pub state: PortState,
}

impl DevicePort {
    pub fn new(params: PortParams) -> Self {
        DevicePort {
            params,
            state: PortState::default(),
        }
    }

    /// The force to render for one sample of length `dt` (s), given the force the
    /// environment asks for and the measured device velocity.
    pub fn render(&mut self, f_env: &Vec3, v: &Vec3, dt: f64) -> Vec3 {
        let p = &self.params;
        let s = &mut self.state;
        // 1. Rate limit.
        let step = f_env - s.f_prev;
        let max_step = p.max_rate * dt;
        let n = step.norm();
        let f1 = if n > max_step && n.is_finite() {
            s.f_prev + step * (max_step / n)
        } else {
            *f_env
        };
        s.f_prev = f1;
        // 2–3. Observer and controller.
        let v2 = v.norm_squared();
        let e_star = s.energy - f1.dot(v) * dt;
        s.alpha = 0.0;
        let mut f2 = f1;
        if p.passivity_control && e_star < 0.0 && v2 > 0.0 && dt > 0.0 {
            s.alpha = -e_star / (dt * v2);
            f2 -= v * s.alpha;
            s.active_steps += 1;
        }
        // 4. Device limit.
        let m = f2.norm();
        let f = if m > p.max_force {
            s.saturated_steps += 1;
            f2 * (p.max_force / m)
        } else {
            f2
        };
        // 5. Observer update with what is rendered.
        s.energy -= f.dot(v) * dt;
        s.energy_min = s.energy_min.min(s.energy);
        f
    }
}
