//! What crosses the queues: inputs (wrenches, from unary calls and control streams),
//! administrative requests with their reply channels, and the boxes the physics
//! thread hands back for the network side to free.

use super::error::SimError;
use super::stats::StatsBuf;
use super::world::{Saved, World};
use crate::config::Mode;
use crate::data::BodyState;
use crate::math::{Vec3, Wrench};
use tokio::sync::oneshot;

/// Frame of a wrench command's force, torque and point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WrenchFrame {
    World,
    Body,
}

/// One validated wrench command on one body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WrenchCmd {
    pub body: u32,
    /// N, in `frame`.
    pub force: Vec3,
    /// N·m about the COM, in `frame`.
    pub torque: Vec3,
    pub frame: WrenchFrame,
    /// Point of application in `frame` (world point, or body point relative to the COM).
    pub point: Option<Vec3>,
    /// s; 0 = until cleared or replaced.
    pub duration_s: f64,
}

/// One validated joint command: the held effort and, optionally, a servo set-point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointCmd {
    /// Dense joint id (`Model::joint_ids`).
    pub joint: u32,
    /// N·m or N.
    pub effort: f64,
    pub servo: Option<crate::data::ServoTarget>,
}

/// A wrench held by one input source on one body, as the physics thread keeps it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SourceWrench {
    pub force: Vec3,
    pub torque: Vec3,
    pub frame: WrenchFrame,
    /// Material point of application, body frame, relative to the COM.
    pub point_b: Option<Vec3>,
    /// First tick at which it no longer applies (u64::MAX = until cleared).
    pub until_tick: u64,
}

impl SourceWrench {
    /// Capture a command at the tick boundary `tick` with the body's current state.
    pub fn capture(c: &WrenchCmd, s: &BodyState, tick: u64, dt: f64) -> SourceWrench {
        let point_b = c.point.map(|p| match c.frame {
            WrenchFrame::World => s.q.inverse_transform_vector(&(p - s.x)),
            WrenchFrame::Body => p,
        });
        let until_tick = if c.duration_s > 0.0 {
            let n = (c.duration_s / dt - 1e-9).ceil().max(1.0);
            tick.saturating_add(n as u64)
        } else {
            u64::MAX
        };
        SourceWrench {
            force: c.force,
            torque: c.torque,
            frame: c.frame,
            point_b,
            until_tick,
        }
    }

    /// World wrench about the COM for the body's current state.
    #[inline]
    pub fn world(&self, s: &BodyState) -> Wrench {
        let (f, mut t) = match self.frame {
            WrenchFrame::World => (self.force, self.torque),
            WrenchFrame::Body => (s.q * self.force, s.q * self.torque),
        };
        if let Some(p_b) = self.point_b {
            t += (s.q * p_b).cross(&f);
        }
        Wrench {
            force: f,
            torque: t,
        }
    }
}

/// Who sent an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// ApplyWrench / ClearWrench calls (one shared table).
    Unary,
    /// A control stream, by controller slot and stream id.
    Stream { slot: usize, stream_id: u64 },
}

/// Which of the source's wrenches to remove before applying new ones.
#[derive(Clone, Debug, PartialEq)]
pub enum Clear {
    Nothing,
    All,
    Bodies(Vec<u32>),
}

pub type Reply<T> = oneshot::Sender<Result<T, SimError>>;

/// Where and when an input or an administrative request took effect.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Applied {
    /// Tick boundary at which it applied (the step tick -> tick + 1 sees it first).
    pub tick: u64,
    pub time: f64,
    pub gen: u64,
    /// Frame index of the ring under which the outcome can be read (or was published).
    pub frame: u64,
}

/// An input, applied at the start of the next tick.
pub struct Input {
    pub source: Source,
    /// World generation the ids were validated against.
    pub gen: u64,
    pub seq: u64,
    pub client_time_ns: i64,
    /// CLOCK_MONOTONIC when the network side decoded it.
    pub recv_ns: i64,
    pub clear: Clear,
    pub wrenches: Vec<WrenchCmd>,
    pub joints: Vec<JointCmd>,
    /// Unary calls wait for the tick that applied their input.
    pub reply: Option<Reply<Applied>>,
}

/// Mode, pause flag and rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunStatus {
    pub mode: Mode,
    pub paused: bool,
    pub rate_hz: f64,
    pub realtime_factor: f64,
    pub tick: u64,
    pub time: f64,
}

/// Requests served at a tick boundary, each with its reply channel.
pub enum Admin {
    /// Advance n ticks (lockstep, or paused); replies after the last one.
    Step {
        n: u64,
        reply: Reply<Applied>,
    },
    Pause(Reply<RunStatus>),
    Resume(Reply<RunStatus>),
    SetMode {
        mode: Option<Mode>,
        realtime_factor: Option<f64>,
        reply: Reply<RunStatus>,
    },
    Reset(Reply<Applied>),
    /// Fill the preallocated box with a bit-exact copy.
    Save {
        into: Box<Saved>,
        reply: oneshot::Sender<Result<Box<Saved>, SimError>>,
    },
    Restore {
        from: Box<Saved>,
        reply: Reply<Applied>,
    },
    /// Swap in a new world; the old one comes back in the reply to be freed off-thread.
    Load {
        world: Box<World>,
        reply: oneshot::Sender<Result<(Applied, Box<World>), SimError>>,
    },
    /// Start recording the inputs (the world is reset first); replies with the tick.
    StartRecording {
        rec: Box<super::record::RecState>,
        reply: Reply<u64>,
    },
    /// End the recording; replies with the tick it ended at.
    StopRecording(Reply<u64>),
    /// Copy the statistics into the preallocated buffer.
    Stats {
        buf: Box<StatsBuf>,
        reset: bool,
        reply: oneshot::Sender<Box<StatsBuf>>,
    },
}

/// Memory the physics thread hands back to be freed on the network side.
pub enum Trash {
    Wrenches(Vec<WrenchCmd>),
    Joints(Vec<JointCmd>),
    Clear(Clear),
    Saved(Box<Saved>),
    World(Box<World>),
    Recording(Box<super::record::RecState>),
}
