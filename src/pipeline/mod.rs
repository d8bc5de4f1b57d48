//! The step: one tick of a world, as a table of contents.
//!
//! A contact method is a whole time-stepping scheme ([`Stepper`]): a force model
//! inside an explicit integrator (the penalty family: 000's multi-point PID method
//! now, Hunt–Crossley with its energy-monitored adaptive sub-steps next), a
//! velocity-level complementarity step (LCP, PEG) or an optimization-based step
//! (Rigid IPC) all advance `Data` by `model.opt.dt` through the same call.
//! Outside input (external wrenches in `Data::xfrc`, later joint torques) lands
//! before [`step`] and is held constant through the step.

pub mod adaptive;
pub mod collide;
pub mod dynamics;
pub mod integrator;
pub mod lcp;
pub mod penalty;
pub mod robots;

use crate::data::{Data, QuarantineEvent, Stage};
use crate::model::{BodyKind, Method, Model};
use std::time::Instant;

/// A whole time-stepping scheme.
pub trait Stepper {
    fn name(&self) -> &'static str;
    /// Advance the state of every dynamic body by one step of `model.opt.dt`.
    /// Must not allocate once warmed up and must not panic on any state.
    fn advance(&self, model: &Model, data: &mut Data);
}

/// Adds the time since `t` to `stage` and returns the current instant: stage times
/// are laps of one clock (each reading costs tens of ns on some virtual machines).
#[inline]
pub(crate) fn lap(stats: &mut crate::data::StepStats, stage: Stage, t: Instant) -> Instant {
    let now = Instant::now();
    stats.stage_ns[stage as usize] += now.duration_since(t).as_nanos() as u64;
    now
}

/// The stepper a model's method selects.
pub fn stepper_for(method: &Method) -> impl Stepper + '_ {
    match method {
        Method::Penalty(p) => MethodStepper::Penalty(penalty::PenaltyStepper { params: p }),
        Method::HuntCrossley(p) => {
            MethodStepper::HuntCrossley(adaptive::HuntCrossleyStepper { params: p })
        }
        Method::Lcp(p) => MethodStepper::Lcp(lcp::LcpStepper { params: p }),
    }
}

/// The steppers of the methods, one type for [`stepper_for`] (no boxing per step).
enum MethodStepper<'a> {
    Penalty(penalty::PenaltyStepper<'a>),
    HuntCrossley(adaptive::HuntCrossleyStepper<'a>),
    Lcp(lcp::LcpStepper<'a>),
}

impl Stepper for MethodStepper<'_> {
    fn name(&self) -> &'static str {
        match self {
            MethodStepper::Penalty(s) => s.name(),
            MethodStepper::HuntCrossley(s) => s.name(),
            MethodStepper::Lcp(s) => s.name(),
        }
    }
    fn advance(&self, model: &Model, data: &mut Data) {
        match self {
            MethodStepper::Penalty(s) => s.advance(model, data),
            MethodStepper::HuntCrossley(s) => s.advance(model, data),
            MethodStepper::Lcp(s) => s.advance(model, data),
        }
    }
}

/// Advance `data` by one step:
/// 1. remember the state (the rollback target of the quarantine);
/// 2. the method's step (kinematics → broad phase → narrow phase → contact → integrate);
/// 3. check the new state, rolling back and freezing any body that diverged;
/// 4. advance the clock.
pub fn step(model: &Model, data: &mut Data) {
    data.stats.stage_ns = [0; Stage::COUNT];
    data.scratch.state0.clear();
    data.scratch.state0.extend_from_slice(&data.state);
    data.scratch.qpos0.copy_from_slice(&data.qpos);
    data.scratch.qvel0.copy_from_slice(&data.qvel);

    stepper_for(&model.opt.method).advance(model, data);

    let t = Instant::now();
    check_state(model, data);
    data.stats.stage_ns[Stage::Check as usize] += t.elapsed().as_nanos() as u64;

    for (tot, s) in data
        .stats
        .stage_ns_total
        .iter_mut()
        .zip(data.stats.stage_ns)
    {
        *tot += s;
    }
    data.tick += 1;
    data.time = data.tick as f64 * model.opt.dt;
}

/// Non-finite or absurd state (|x| > max_abs_state) is caught in the step it appears:
/// the body is rolled back to its state at the start of the step, its velocities
/// zeroed, and it is frozen (treated as static) — counted and reported in the stats.
fn check_state(model: &Model, data: &mut Data) {
    let lim = model.opt.max_abs_state;
    for b in 0..model.nbody() {
        if model.bodies[b].kind != BodyKind::Free || data.frozen[b] {
            continue;
        }
        let s = &data.state[b];
        let sane = s.is_finite() && s.x.amax() <= lim && s.v.amax() <= lim && s.w.amax() <= lim;
        if !sane {
            let mut back = data.scratch.state0[b];
            back.v.fill(0.0);
            back.w.fill(0.0);
            data.state[b] = back;
            data.frozen[b] = true;
            data.stats.quarantined += 1;
            data.stats.last_quarantine = Some(QuarantineEvent {
                tick: data.tick,
                body: b,
                robot: None,
            });
        }
    }
    // Robots: the same test on (q, q̇); the whole robot is rolled back and frozen.
    for (ri, r) in model.robots.iter().enumerate() {
        if data.robots[ri].frozen {
            continue;
        }
        let (qs, vs) = (
            r.q_offset..r.q_offset + r.nq(),
            r.v_offset..r.v_offset + r.nv(),
        );
        let sane = data.qpos[qs.clone()]
            .iter()
            .chain(&data.qvel[vs.clone()])
            .all(|x| x.is_finite() && x.abs() <= lim);
        if !sane {
            data.qpos[qs.clone()].copy_from_slice(&data.scratch.qpos0[qs]);
            data.qvel[vs].fill(0.0);
            data.robots[ri].frozen = true;
            data.stats.quarantined += 1;
            data.stats.last_quarantine = Some(QuarantineEvent {
                tick: data.tick,
                body: r
                    .link_body
                    .iter()
                    .flatten()
                    .next()
                    .copied()
                    .unwrap_or(usize::MAX),
                robot: Some(ri),
            });
            robots::link_states(
                model,
                &mut data.robots,
                &data.qpos,
                &data.qvel,
                &mut data.state,
            );
        }
    }
}
