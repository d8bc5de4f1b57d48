//! A haptic device of a scene (`[[haptic]]`, src/model/scene.rs): which body is its
//! tool, the virtual coupling, the device ↔ world mapping, the device's limits and
//! the watchdog. Part of the immutable [`crate::model::Model`].

use super::coupling::CouplingParams;
use super::mapping::DeviceMapping;

/// Most haptic devices in one world (the runtime's device slots are fixed).
pub const MAX_DEVICES: usize = 8;

/// What the tool does when its device goes silent (no sample for `timeout_s`) or
/// its stream closes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WatchdogAction {
    /// The coupling holds the tool at the last device pose (device velocity zero).
    Hold,
    /// The coupling lets go at once: the tool is a free body, the rendered force 0.
    Release,
    /// The coupling's wrench (and the rendered force) is scaled from 1 to 0
    /// linearly over `fade_s`, then released.
    Fade { fade_s: f64 },
}

impl WatchdogAction {
    pub fn name(&self) -> &'static str {
        match self {
            WatchdogAction::Hold => "hold",
            WatchdogAction::Release => "release",
            WatchdogAction::Fade { .. } => "fade",
        }
    }
}

/// One `[[haptic]]` table, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct HapticSpec {
    pub name: String,
    /// The tool body (a free body, or a robot link's body "robot/link").
    pub tool: usize,
    /// 3 or 6.
    pub dof: u32,
    pub coupling: CouplingParams,
    pub mapping: DeviceMapping,
    /// Device limits (device coordinates): N, N·m, N/s.
    pub max_force: f64,
    pub max_torque: f64,
    pub max_rate: f64,
    /// Largest stiffness the device renders stably, N/m (device coordinates): the
    /// local model's stiffness is capped to it.
    pub max_stiffness: f64,
    /// Passivity controller on the server's device port.
    pub passivity: bool,
    /// The coupled tool's weight is carried by the coupling's feed-forward (the
    /// device does not feel it).
    pub gravity_compensation: bool,
    /// Silence after which the watchdog acts, s.
    pub timeout_s: f64,
    pub watchdog: WatchdogAction,
    /// The haptic rate above the world's (`rate_hz`; module `multirate`): `None`
    /// steps the tool with the world.
    pub multirate: Option<super::multirate::MultiRate>,
    /// The tool is a robot arm's link teleoperated by the device: the arm's own
    /// controller (module `teleop`).
    pub teleop: Option<super::teleop::TeleopSpec>,
    /// The tool's scene pose (a robot link's: the forward kinematics at the
    /// robot's initial configuration), where the device holds it before its first
    /// sample.
    pub tool_pose0: crate::math::Pose,
}

impl HapticSpec {
    /// The stiffness a device position sees through the coupling in series with a
    /// contact of stiffness `k_contact` along world unit direction `n`, in device
    /// coordinates (k_eff s², the mapping's power-preserving scale), capped to
    /// [`Self::max_stiffness`].
    pub fn rendered_stiffness(&self, n: &crate::math::Vec3, k_contact: f64) -> f64 {
        let k = n.component_mul(n).dot(&self.coupling.k);
        let k_eff = if k_contact.is_infinite() {
            k
        } else if k + k_contact > 0.0 {
            k * k_contact / (k + k_contact)
        } else {
            0.0
        };
        (k_eff * self.mapping.scale * self.mapping.scale).min(self.max_stiffness)
    }
}
