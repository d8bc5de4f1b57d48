//! The device side of a haptic link, free of threads and I/O: a device adapter
//! (read the pose, write the force), the loop's rendering at the device's own rate
//! from the latest local model (or, for comparison, the last network force as is),
//! through the device's own port (rate limit, passivity controller, clamp), and a
//! simulated device adapter (device mass + the operator's hand following a script).
//!
//! A real device plugs in by implementing [`DeviceAdapter`] over its SDK:
//!
//! ```text
//! impl DeviceAdapter for MyDevice {
//!     fn read(&mut self) -> Reading {            // e.g. the SDK's getPosition/getVelocity,
//!         let (x, v) = self.sdk.position_velocity();   // device coordinates, m and m/s
//!         Reading { x, q: self.sdk.orientation(), v }
//!     }
//!     fn write(&mut self, f: &Vec3, tau: &Vec3) { // the SDK's setForce (N, N·m)
//!         self.sdk.set_force_torque(f, tau);
//!     }
//! }
//! ```
//!
//! The network driver (`server::haptic_client::run_device_loop`) calls `read`,
//! sends the sample, renders with [`DeviceLoop::render`] and calls `write`, once
//! per period.

use super::device::{DeviceModel, SimulatedDevice};
use super::local::LocalModel;
use super::passivity::{DevicePort, PortParams};
use crate::math::{Quat, Vec3};

/// One reading of the device, device coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reading {
    pub x: Vec3,
    pub q: Quat,
    pub v: Vec3,
}

/// Where a device loop reads its pose and writes its force.
pub trait DeviceAdapter: Send {
    fn read(&mut self) -> Reading;
    fn write(&mut self, force: &Vec3, torque: &Vec3);
    /// Advance a simulated device by one period `dt` under the last force written
    /// (a real device moves by itself: nothing to do).
    fn advance(&mut self, _dt: f64) {}
}

/// What the loop renders between network updates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenderMode {
    /// The latest local model, evaluated at the device's current position.
    Local,
    /// The last force the network delivered, held (the naive loop; for comparison).
    Direct,
}

/// The device loop's rendering state.
#[derive(Clone, Debug)]
pub struct DeviceLoop {
    pub mode: RenderMode,
    pub port: DevicePort,
    pub local: LocalModel,
    /// The environment force of the last feedback (`force_env`), device coordinates.
    pub direct: Vec3,
}

impl DeviceLoop {
    pub fn new(mode: RenderMode, port: PortParams) -> Self {
        DeviceLoop {
            mode,
            port: DevicePort::new(port),
            local: LocalModel::default(),
            direct: Vec3::zeros(),
        }
    }

    /// A feedback arrived.
    pub fn update(&mut self, local: LocalModel, force_env: Vec3) {
        self.local = local;
        self.direct = force_env;
    }

    /// The force to write for this period, through the device's own port.
    pub fn render(&mut self, r: &Reading, dt: f64) -> Vec3 {
        let f_env = match self.mode {
            RenderMode::Local => self.local.force(&r.x, &r.v),
            RenderMode::Direct => self.direct,
        };
        self.port.render(&f_env, &r.v, dt)
    }
}

/// A scripted operator: the hand's target position and velocity at time t.
pub type Script = Box<dyn FnMut(f64) -> (Vec3, Vec3) + Send>;

/// The simulated device: [`SimulatedDevice`] driven by the force written and by
/// the operator's hand following `script`.
pub struct SimulatedAdapter {
    pub model: DeviceModel,
    pub dev: SimulatedDevice,
    pub force: Vec3,
    pub t: f64,
    pub script: Script,
}

impl SimulatedAdapter {
    pub fn new(model: DeviceModel, x0: Vec3, script: Script) -> Self {
        SimulatedAdapter {
            model,
            dev: SimulatedDevice {
                x: x0,
                v: Vec3::zeros(),
            },
            force: Vec3::zeros(),
            t: 0.0,
            script,
        }
    }
}

impl DeviceAdapter for SimulatedAdapter {
    fn read(&mut self) -> Reading {
        Reading {
            x: self.dev.x,
            q: Quat::identity(),
            v: self.dev.v,
        }
    }
    fn write(&mut self, force: &Vec3, _torque: &Vec3) {
        self.force = *force;
    }
    fn advance(&mut self, dt: f64) {
        let (x_op, v_op) = (self.script)(self.t);
        self.dev.step(&self.model, &self.force, &x_op, &v_op, dt);
        self.t += dt;
    }
}
