//! The step: one tick of a world, as a table of contents.
//!
//! A contact method is a whole time-stepping scheme ([`Stepper`]): a force model
//! inside an explicit integrator (the penalty family of 000, Hunt–Crossley of 002
//! with its energy-monitored adaptive sub-steps), a velocity-level complementarity
//! step (LCP of 003/001, PEG) or an optimization-based step (Rigid IPC of 004, `ipc`)
//! all advance `Data` by one step through the same outline ([`Pipeline::step_with`]):
//!
//! ```text
//! begin     remember the state (the quarantine's rollback target), zero the timers
//! positions robot link kinematics from (q, q̇) if it moved, geom poses Stage::Kinematics
//!           broad phase with the pair memory                         Stage::BroadPhase
//!           sleeping islands wake; sleeping pairs leave the step     Stage::BroadPhase
//!           narrow phase at the start state (steppers that want it)  Stage::NarrowPhase
//! inputs    outside input lands here (the runtime's wrenches, a haptic device's
//!           coupling): [`Inputs::apply`]; an island it drives wakes
//! advance   the method: contact → solve → integrate                  its own laps
//!           (sleeping bodies count as static: [`sleep`])
//! ccd       fast bodies' swept motion (time of impact by conservative
//!           advancement); a missed impact rewinds the body to it   Stage::NarrowPhase
//! check     non-finite or absurd state rolled back and frozen;      Stage::Check
//!           islands at rest fall asleep
//! clock     stage totals, tick, time
//! ```
//!
//! Like MuJoCo's `mj_step1`/`mj_step2`, the split at *inputs* marks where a
//! controller's or a device's input meets the step: after everything that depends
//! on positions alone, before anything that depends on forces.
//!
//! The working memory of every stage — the collision stages' buffers, the rollback
//! copy and the method's own workspace — lives in the [`Pipeline`], beside the
//! immutable `Model` and the `Data` (state, caches and stats): one `Pipeline` per
//! world, created from its model and reused every tick (no allocation once warmed
//! up).
//!
//! # Adding a method
//! 1. Parameters: a variant of [`crate::model::Method`] (and its scene keys).
//! 2. A file (or folder) here with a `Stepper` whose `Workspace` holds its buffers,
//!    and a variant of `MethodWorkspace` built by `MethodWorkspace::new`.
//! 3. A line in `Pipeline::step_with`'s dispatch. The outline above, the
//!    quarantine, the timers, snapshots and the server need nothing new; per-pair
//!    memory that must ride in snapshots goes in [`crate::data::PairState`].

pub mod bodies;
pub mod clock;
pub mod collide;
pub mod hunt_crossley;
pub mod integrator;
pub mod ipc;
pub mod lcp;
pub mod locks;
pub mod penalty;
pub mod penalty_implicit;
pub mod penalty_robot;
pub mod robots;
pub mod rotation;
pub mod sleep;

pub use collide::CollideWorkspace;

use crate::data::{BodyState, Data, QuarantineEvent, Stage, StepStats};
use crate::model::{BodyKind, Method, Model};
use clock::Instant;

/// What every stepper is given: the model and the step size.
#[derive(Clone, Copy, Debug)]
pub struct Tick<'a> {
    pub model: &'a Model,
    /// The step h, s (`model.opt.dt`, read once per step).
    pub h: f64,
}

/// A whole time-stepping scheme.
pub trait Stepper {
    /// The stepper's working memory, owned by the [`Pipeline`].
    type Workspace;
    fn name(&self) -> &'static str;
    /// Whether the outline runs the narrow phase at the start-of-step state into
    /// `Data::contacts` before [`Stepper::advance`]. A stepper that collides at
    /// states of its own choosing (Hunt–Crossley's energy-monitored sub-steps) says
    /// no and fills `Data::contacts` itself.
    fn contacts_at_start(&self) -> bool;
    /// The speculative window (m) of a complementarity step: `Some` makes the
    /// narrow phase report gap points of pairs closer than one step of relative
    /// motion (`collide::Speculative`); `None` (the force models) reports only
    /// penetrating geoms.
    fn speculative_window(&self) -> Option<f64> {
        None
    }
    /// Whether the continuous-collision stage applies the pairs' material
    /// restitution at an impact (else the impact is plastic).
    fn impact_restitution(&self) -> bool {
        true
    }
    /// Whether the outline's continuous-collision stage (convex geoms' swept motion)
    /// runs after [`Stepper::advance`]. A stepper with its own, exact CCD (Rigid
    /// IPC's curved CCD over the meshes) says no.
    fn outline_ccd(&self) -> bool {
        true
    }
    /// Advance the state of every dynamic body by one step of `tick.h`, given the
    /// posed geoms and the broad phase's candidates in `col` (and, if
    /// [`Self::contacts_at_start`], the start-of-step contacts in `data`). Must not
    /// allocate once warmed up and must not panic on any state.
    fn advance(
        &self,
        tick: &Tick<'_>,
        data: &mut Data,
        col: &mut CollideWorkspace,
        ws: &mut Self::Workspace,
    );
}

/// Outside input applied at the named point of the step (module doc): after the
/// positions stages, before the method advances. The runtime's composed wrenches
/// and each haptic device's coupling (src/haptics/render.rs) enter here.
pub trait Inputs {
    fn apply(&mut self, model: &Model, data: &mut Data);
}

/// No outside input (offline runs; `Data::xfrc` and the commands hold what the
/// caller set before the step).
pub struct NoInputs;

impl Inputs for NoInputs {
    #[inline]
    fn apply(&mut self, _: &Model, _: &mut Data) {}
}

impl<F: FnMut(&Model, &mut Data)> Inputs for F {
    #[inline]
    fn apply(&mut self, model: &Model, data: &mut Data) {
        self(model, data)
    }
}

/// The outline's own memory: the quarantine's rollback target and the sleeping
/// stages' workspace.
#[derive(Clone, Debug, Default)]
struct OutlineMemory {
    rollback: Rollback,
    sleep: sleep::SleepWorkspace,
}

/// The state at the start of the step: the quarantine's rollback target (and the
/// continuous-collision stage's start poses).
#[derive(Clone, Debug, Default)]
struct Rollback {
    state: Vec<BodyState>,
    qpos: Vec<f64>,
    qvel: Vec<f64>,
    /// The edit stamp (`Data::edits`) of the last whole copy of `state`, and
    /// the free bodies with locked degrees of freedom (`locks::project` writes
    /// them, asleep or not).
    edits: Option<u64>,
    locked: Vec<u32>,
}

impl Rollback {
    /// Save the start of the step. A body that sleeps now has slept since the
    /// last whole copy if the edit stamp is the same (every fall asleep, wake,
    /// restore, reset and outside write of a sleeping state renews it), so its
    /// state is the one copied then: only the awake bodies (and the locked ones)
    /// are copied — O(awake).
    fn save(&mut self, model: &Model, data: &Data) {
        if self.edits == Some(data.edits) && self.state.len() == data.state.len() {
            for &b in data.awake.iter().chain(&self.locked) {
                self.state[b as usize] = data.state[b as usize];
            }
        } else {
            self.state.clear();
            self.state.extend_from_slice(&data.state);
            self.edits = Some(data.edits);
            self.locked.clear();
            let bodies = &model.bodies;
            self.locked.extend((0..model.nbody() as u32).filter(|&b| {
                bodies[b as usize].kind == BodyKind::Free && bodies[b as usize].lock.any()
            }));
        }
        self.qpos.clear();
        self.qpos.extend_from_slice(&data.qpos);
        self.qvel.clear();
        self.qvel.extend_from_slice(&data.qvel);
    }
}

/// The method's own workspace, one variant per stepper (boxed: they differ in size
/// by hundreds of bytes; one indirection per step).
#[derive(Clone, Debug)]
enum MethodWorkspace {
    Penalty(Box<penalty::PenaltyWorkspace>),
    HuntCrossley(Box<hunt_crossley::HuntCrossleyWorkspace>),
    Lcp(Box<lcp::LcpWorkspace>),
    Ipc(Box<ipc::IpcWorkspace>),
}

impl MethodWorkspace {
    fn new(model: &Model) -> Self {
        match model.opt.method {
            Method::Penalty(_) => Self::Penalty(Box::new(penalty::PenaltyWorkspace::new(model))),
            Method::HuntCrossley(_) => {
                Self::HuntCrossley(Box::new(hunt_crossley::HuntCrossleyWorkspace::new(model)))
            }
            Method::Lcp(_) => Self::Lcp(Box::new(lcp::LcpWorkspace::new(model))),
            Method::Ipc(_) => Self::Ipc(Box::new(ipc::IpcWorkspace::new(model))),
        }
    }

    fn fits(&self, method: &Method) -> bool {
        matches!(
            (self, method),
            (Self::Penalty(_), Method::Penalty(_))
                | (Self::HuntCrossley(_), Method::HuntCrossley(_))
                | (Self::Lcp(_), Method::Lcp(_))
                | (Self::Ipc(_), Method::Ipc(_))
        )
    }
}

/// Sizes a pipeline was built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shape {
    nbody: usize,
    ngeom: usize,
    nq: usize,
    nv: usize,
}

impl Shape {
    fn of(model: &Model) -> Shape {
        Shape {
            nbody: model.nbody(),
            ngeom: model.ngeom(),
            nq: model.nq,
            nv: model.nv,
        }
    }
}

/// The working memory of the step for one world (module doc): created from the
/// world's `Model`, reused every tick. Holds no state: two pipelines stepping equal
/// `Data` produce bit-identical results, and a `Data` restored from a snapshot may
/// be stepped by any pipeline of its model.
#[derive(Clone, Debug)]
pub struct Pipeline {
    shape: Shape,
    collide: CollideWorkspace,
    memory: OutlineMemory,
    method: MethodWorkspace,
}

impl Pipeline {
    /// The penalty stepper's direct implicit solve: the size of its last block
    /// factorization's analysis (None for the other methods; `n` = 0 when the
    /// islands of one body are solved on their own).
    pub fn penalty_direct_stats(
        &self,
    ) -> Option<crate::solver::block_cholesky::BlockCholeskyStats> {
        match &self.method {
            MethodWorkspace::Penalty(ws) => Some(ws.direct_stats()),
            _ => None,
        }
    }

    /// The penalty stepper's energy and impulse probe (None for the other
    /// methods): set `on` to have every step fill it (`penalty::PenaltyProbe`).
    pub fn penalty_probe_mut(&mut self) -> Option<&mut penalty::PenaltyProbe> {
        match &mut self.method {
            MethodWorkspace::Penalty(ws) => Some(&mut ws.probe),
            _ => None,
        }
    }

    pub fn new(model: &Model) -> Pipeline {
        // The stage clock's rate, measured here once per process so that the
        // physics thread never spins for it (`clock`).
        clock::calibrate();
        Pipeline {
            shape: Shape::of(model),
            collide: CollideWorkspace::new(model),
            memory: OutlineMemory {
                rollback: Rollback::default(),
                sleep: sleep::SleepWorkspace::new(model),
            },
            method: MethodWorkspace::new(model),
        }
    }

    /// One step with no outside input at the inputs point.
    pub fn step(&mut self, model: &Model, data: &mut Data) {
        self.step_with(model, data, &mut NoInputs)
    }

    /// One step (module doc): positions, `inputs`, the method, check, clock.
    pub fn step_with(&mut self, model: &Model, data: &mut Data, inputs: &mut impl Inputs) {
        // A pipeline is made for one model; handed another (a misuse, not a steady
        // state) it is rebuilt rather than indexing out of range.
        if self.shape != Shape::of(model) || !self.method.fits(&model.opt.method) {
            *self = Pipeline::new(model);
        }
        let tick = Tick {
            model,
            h: model.opt.dt,
        };
        let Pipeline {
            collide,
            memory,
            method,
            ..
        } = self;
        match (&model.opt.method, method) {
            (Method::Penalty(p), MethodWorkspace::Penalty(ws)) => {
                let s = penalty::PenaltyStepper {
                    params: p,
                    speculative: model.opt.integrator.first_order(),
                };
                outline(&s, &tick, data, collide, memory, ws, inputs)
            }
            (Method::HuntCrossley(p), MethodWorkspace::HuntCrossley(ws)) => {
                let s = hunt_crossley::HuntCrossleyStepper { params: p };
                outline(&s, &tick, data, collide, memory, ws, inputs)
            }
            (Method::Lcp(p), MethodWorkspace::Lcp(ws)) => {
                let s = lcp::LcpStepper { params: p };
                outline(&s, &tick, data, collide, memory, ws, inputs)
            }
            (Method::Ipc(p), MethodWorkspace::Ipc(ws)) => {
                let s = ipc::IpcStepper { params: p };
                outline(&s, &tick, data, collide, memory, ws, inputs)
            }
            // `fits` was checked above.
            _ => {}
        }
    }
}

/// The table of contents of a step (module doc), for any stepper.
fn outline<S: Stepper>(
    stepper: &S,
    tick: &Tick<'_>,
    data: &mut Data,
    col: &mut CollideWorkspace,
    memory: &mut OutlineMemory,
    ws: &mut S::Workspace,
    inputs: &mut impl Inputs,
) {
    let model = tick.model;
    let OutlineMemory {
        rollback,
        sleep: sw,
    } = memory;
    data.stats.stage_ns = [0; Stage::COUNT];
    rollback.save(model, data);

    // Positions: link kinematics (kept from the end of the last step unless the
    // robots' (q, q̇) changed since), geom poses, broad phase, narrow phase (while
    // some bodies sleep, the fixed geoms' memory spares their poses and boxes).
    let t = Instant::now();
    col.speculative = stepper
        .speculative_window()
        .map(|window| collide::Speculative {
            h: tick.h,
            gravity_reach: tick.h * tick.h * model.opt.gravity.norm(),
            window,
        });
    crate::kinematics::link_states_if_moved(
        model,
        &mut data.robots,
        &data.qpos,
        &data.qvel,
        &mut data.state,
    );
    let asleep = sleep::some_asleep(model, data).then_some(&data.asleep[..]);
    col.pose_geoms_for_step(model, (&data.state, data.edits), asleep);
    let t = lap(&mut data.stats, Stage::Kinematics, t);
    collide::broad_phase(model, tick.h, &data.state, col, &mut data.pairs, asleep);
    // Sleeping islands (`sleep`): wake, then leave out the pairs of the sleeping.
    if sleep::wake(model, data, sw, col.fixed.bridge) {
        sleep::activate(model, data, col, sw);
    }
    let t = lap(&mut data.stats, Stage::BroadPhase, t);
    if stepper.contacts_at_start() {
        col.narrow_phase(model, &mut data.contacts, &mut data.contact_pair);
        lap(&mut data.stats, Stage::NarrowPhase, t);
    }

    // Outside input (a wrench on a sleeping island wakes it: its pairs join).
    inputs.apply(model, data);
    if let Some(first) = sleep::wake_driven(model, data, col, sw) {
        if stepper.contacts_at_start() {
            let t = Instant::now();
            col.narrow_phase_from(model, first, &mut data.contacts, &mut data.contact_pair);
            lap(&mut data.stats, Stage::NarrowPhase, t);
        }
    }

    // The method (sleeping bodies count as static).
    sleep::mask(model, data, sw);
    stepper.advance(tick, data, col, ws);

    // Continuous collision: fast bodies' swept motion against the world; an
    // impact the step missed rewinds the body to its time of impact.
    let t = Instant::now();
    let t = if stepper.outline_ccd() {
        let sweeps = collide::Sweeps {
            start: &rollback.state,
            bodies: &data.awake,
            frozen: &data.frozen,
            h: tick.h,
            restitution: stepper.impact_restitution(),
            reach: collide::Reach::Points,
        };
        let impacts = collide::continuous_collision(model, &sweeps, &mut data.state, col);
        if impacts > 0 {
            data.pose_links(model);
        }
        lap(&mut data.stats, Stage::NarrowPhase, t)
    } else {
        t
    };
    // Locked degrees of freedom (`locks`): the state projected back. (Timed with
    // the check below: one clock reading fewer.)
    locks::project(model, &rollback.state, &mut data.state);
    sleep::deactivate(data, col, sw);

    // Check; islands at rest fall asleep.
    check_state(model, data, rollback);
    sleep::fall_asleep(model, data, sw, tick.h);
    lap(&mut data.stats, Stage::Check, t);

    // Clock.
    for (tot, s) in data
        .stats
        .stage_ns_total
        .iter_mut()
        .zip(data.stats.stage_ns)
    {
        *tot += s;
    }
    data.tick += 1;
    data.time = data.tick as f64 * tick.h;
}

/// Adds the time since `t` to `stage` and returns the current reading: stage times
/// are laps of one clock (each reading costs tens of ns on some virtual machines;
/// the outline's and the steppers' laps read [`clock::Instant`], the bare
/// time-stamp counter where it is a clock, ≈ a third of `std::time::Instant::now`).
#[inline]
pub(crate) fn lap<C: StageStamp>(stats: &mut StepStats, stage: Stage, t: C) -> C {
    let now = C::now();
    stats.stage_ns[stage as usize] += now.nanos_since(t);
    now
}

/// A clock reading a stage timer can lap: [`clock::Instant`] or `std::time::Instant`.
pub(crate) trait StageStamp: Copy {
    fn now() -> Self;
    /// Nanoseconds from `earlier` to `self` (zero if negative).
    fn nanos_since(&self, earlier: Self) -> u64;
}

impl StageStamp for Instant {
    #[inline]
    fn now() -> Self {
        Instant::now()
    }
    #[inline]
    fn nanos_since(&self, earlier: Self) -> u64 {
        Instant::nanos_since(self, earlier)
    }
}

impl StageStamp for std::time::Instant {
    #[inline]
    fn now() -> Self {
        std::time::Instant::now()
    }
    #[inline]
    fn nanos_since(&self, earlier: Self) -> u64 {
        self.saturating_duration_since(earlier).as_nanos() as u64
    }
}

/// Non-finite or absurd state (|x| > max_abs_state) is caught in the step it appears:
/// the body is rolled back to its state at the start of the step, its velocities
/// zeroed, and it is frozen (treated as static) — counted and reported in the stats.
fn check_state(model: &Model, data: &mut Data, rollback: &Rollback) {
    let lim = model.opt.max_abs_state;
    // A sleeping body's state is the one checked when it fell asleep: the awake
    // bodies only.
    for i in 0..data.awake.len() {
        let b = data.awake[i] as usize;
        if data.asleep[b] || data.frozen[b] || model.bodies[b].kind != BodyKind::Free {
            continue;
        }
        let s = &data.state[b];
        let sane = s.is_finite() && s.x.amax() <= lim && s.v.amax() <= lim && s.w.amax() <= lim;
        if !sane {
            let mut back = rollback.state[b];
            back.v.fill(0.0);
            back.w.fill(0.0);
            data.state[b] = back;
            data.frozen[b] = true;
            // (The frozen set changed: the sleeping stages' memory is stale.)
            data.edited();
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
            data.qpos[qs.clone()].copy_from_slice(&rollback.qpos[qs]);
            data.qvel[vs].fill(0.0);
            data.robots[ri].frozen = true;
            data.edited();
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
            data.pose_links(model);
        }
    }
}
