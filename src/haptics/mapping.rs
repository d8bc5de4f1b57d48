//! Device ↔ world mapping: x_w = R (s x_dev) + o for positions, v_w = s R v_dev,
//! orientations q_w = R q_dev. Forces map so that power is the same on both sides
//! (f_dev·v_dev = f_w·v_w): f_dev = s Rᵀ f_w, τ_dev = Rᵀ τ_w (rotations are not
//! scaled). A scaled-up workspace therefore renders proportionally larger forces,
//! and the passivity of the world side carries over to the device side exactly.

use crate::math::{Pose, Quat, Vec3};

/// Scale, rotation and offset of the device workspace in the world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeviceMapping {
    /// Position scale s > 0 (world metres per device metre).
    pub scale: f64,
    /// Device frame orientation in the world, R.
    pub rotation: Quat,
    /// World position of the device origin, o, m.
    pub offset: Vec3,
    /// Device workspace, device coordinates, m: a pose outside is refused.
    pub workspace_min: Vec3,
    pub workspace_max: Vec3,
}

impl DeviceMapping {
    pub fn pose_to_world(&self, x_dev: &Vec3, q_dev: &Quat) -> Pose {
        Pose::from_parts(
            (self.rotation * (x_dev * self.scale) + self.offset).into(),
            self.rotation * q_dev,
        )
    }

    pub fn velocity_to_world(&self, v_dev: &Vec3) -> Vec3 {
        self.rotation * (v_dev * self.scale)
    }

    pub fn angular_velocity_to_world(&self, w_dev: &Vec3) -> Vec3 {
        self.rotation * w_dev
    }

    pub fn force_to_device(&self, f_w: &Vec3) -> Vec3 {
        self.rotation.inverse() * f_w * self.scale
    }

    pub fn torque_to_device(&self, t_w: &Vec3) -> Vec3 {
        self.rotation.inverse() * t_w
    }

    /// Whether a device position lies in the workspace box.
    pub fn in_workspace(&self, x_dev: &Vec3) -> bool {
        (0..3).all(|i| x_dev[i] >= self.workspace_min[i] && x_dev[i] <= self.workspace_max[i])
    }
}
