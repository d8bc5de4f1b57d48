//! A simulated haptic device for tests and HIL rigs: the device's moving mass held
//! by the operator's hand, the hand an impedance that follows a scripted operator
//! trajectory (the standard device + hand model of haptic stability analyses):
//!
//! ```text
//! m ẍ = f_render + k_h (x_op − x) + b_h (ẋ_op − ẋ) − b_d ẋ
//! ```
//!
//! integrated semi-implicitly: the velocity first with the damping terms implicit,
//! then the position with the new velocity (symplectic Euler; stable for
//! dt < 2 √(m / k_h), which the tests' 1 kHz and 10 kHz samples satisfy by far).

use crate::math::Vec3;

/// Parameters of the device + hand model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeviceModel {
    /// Effective moving mass, kg.
    pub mass: f64,
    /// Device's own viscous damping, N·s/m.
    pub damping: f64,
    /// Hand stiffness, N/m.
    pub hand_k: f64,
    /// Hand damping, N·s/m.
    pub hand_b: f64,
}

/// The device's state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SimulatedDevice {
    pub x: Vec3,
    pub v: Vec3,
}

impl SimulatedDevice {
    /// Advance by `dt` with the rendered force `f` and the operator's hand target
    /// `(x_op, v_op)`.
    pub fn step(&mut self, m: &DeviceModel, f: &Vec3, x_op: &Vec3, v_op: &Vec3, dt: f64) {
        let spring = (x_op - self.x) * m.hand_k + v_op * m.hand_b;
        // m (v⁺ − v)/dt = f + spring − (b_h + b_d) v⁺
        let c = m.hand_b + m.damping;
        self.v = (self.v * m.mass + (f + spring) * dt) / (m.mass + c * dt);
        self.x += self.v * dt;
    }
}
