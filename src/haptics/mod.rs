//! Haptic rendering building blocks, free of threads and the network: the virtual
//! coupling between a device and its tool body, the device ↔ world mapping, the
//! time-domain passivity observer and controller, the force clamp and rate limit,
//! the linearized local model a device renders between network updates ([`local`]), and a
//! simulated device (device mass + the operator's hand) for tests and HIL rigs.
//!
//! The recipe (Colgate; Adams & Hannaford 1999; Hannaford & Ryu 2002): the world
//! couples a tool body to the device pose with a spring–damper ([`coupling`]); the
//! tool touches the world through the scene's contact method; the coupling force,
//! negated and mapped back to device coordinates ([`mapping`]), is the force to
//! render. On the device side a passivity observer integrates the energy that
//! flows through the device port and a passivity controller adds exactly the
//! damping that keeps it non-negative ([`passivity`]), whatever the network delay;
//! the force is then clamped and rate-limited to the device's limits.
//!
//! Sign convention everywhere: `f` is the force the virtual environment applies to
//! the device's end effector (what the motors render), `v` the device velocity, so
//! the power flowing *into* the virtual environment is `−f·v` (a damper f = −b v
//! absorbs b v² ≥ 0).

pub mod coupling;
pub mod device;
pub mod device_loop;
pub mod local;
pub mod mapping;
pub mod multirate;
pub mod passivity;
pub mod render;
pub mod scripts;
pub mod spec;
pub mod teleop;
