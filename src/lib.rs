//! rtphys: a real-time physics simulation server for robotics and haptics.
//!
//! The physics core (`math`, `model`, `data`, `kinematics`, `dynamics`, `collision`,
//! `contact`, `solver`, `pipeline`)
//! knows nothing of threads or the network; `runtime` runs it on a dedicated
//! thread behind lock-free queues; `server` exposes the runtime over gRPC.
//! See `docs/ARCHITECTURE.md`.

pub mod collision;
pub mod contact;
pub mod data;
pub mod diag;
pub mod dynamics;
pub mod experiments;
pub mod haptics;
pub mod ipc;
pub mod kinematics;
pub mod math;
pub mod model;
pub mod pipeline;
pub mod robot;
pub mod run;
pub mod tools;

pub use data::{BodyState, Data, Snapshot};
pub use model::{Model, ModelBuilder};
pub use pipeline::Pipeline;
pub mod config;
pub mod runtime;
pub mod server;
pub mod solver;
pub mod viewer;
