//! The physics thread and its queues. Knows the core (`Model`, `Data`, `step`) but
//! not gRPC: the server talks to it only through [`Runtime`].
//!
//! ```text
//!  network tasks                       physics thread (std::thread, owns Model+Data)
//!  ─────────────                       ─────────────────────────────────────────────
//!  Input  ──► ArrayQueue<Input> ──┐    every tick boundary:
//!  Admin  ──► ArrayQueue<Admin> ──┴──►   scan controller slots, drain inputs, drain
//!             (+ unpark)                 admin, watchdog, compose wrenches, step(),
//!                                        publish a frame into the StateRing,
//!  StateFeed ◄── seqlock frames ◄─────   wake the subscribers that want it
//!  (per subscriber cursor)               (AtomicWaker; no lock, no allocation)
//!  Trash ◄── ArrayQueue<Trash> ◄──────   hand boxes back to be freed off-thread
//! ```

pub mod clock;
pub mod command;
pub mod error;
mod physics;
pub mod record;
pub mod replay;
pub mod ring;
pub mod rt;
pub mod stats;
pub mod world;

pub use command::{
    Admin, Applied, Clear, Input, RunStatus, Source, SourceWrench, Trash, WrenchCmd, WrenchFrame,
};
pub use error::SimError;
pub use ring::{FrameView, Read, StateRing};
pub use stats::StatsBuf;
pub use world::{Saved, World};

use crate::config::{Config, Mode, SafeBehavior};
use crate::model::Model;
use atomic_waker::AtomicWaker;
use crossbeam::queue::ArrayQueue;
use parking_lot::{Mutex, RwLock};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// What the network side may read about the current world without asking the
/// physics thread.
pub struct WorldView {
    pub gen: u64,
    pub name: String,
    pub model: Arc<Model>,
    pub ring: Arc<StateRing>,
}

/// Controller slot states.
pub(crate) const SLOT_FREE: u8 = 0;
pub(crate) const SLOT_OPEN: u8 = 1;
pub(crate) const SLOT_CLOSING: u8 = 2;
pub(crate) const SLOT_RESERVED: u8 = 3;

/// A control stream's registration, shared with the physics thread.
pub struct CtrlSlot {
    pub(crate) state: AtomicU8,
    pub(crate) stream_id: AtomicU64,
    pub(crate) lockstep: AtomicBool,
    /// ≤ 0: watchdog off.
    pub(crate) watchdog_ns: AtomicI64,
    pub(crate) behavior: AtomicU8,
    pub name: Mutex<String>,
    pub rejected: AtomicU64,
}

/// A haptic device's stream registration (one stream per device of the current
/// world, by index), and the physics thread's rendered outputs for it.
pub struct HapticSlot {
    pub(crate) state: AtomicU8,
    pub(crate) stream_id: AtomicU64,
    /// In lockstep mode, each tick waits for this device's next sample
    /// (`HapticHello.lockstep`).
    pub(crate) lockstep: AtomicBool,
    /// One entry per tick (the oldest overwritten when the stream falls behind).
    pub(crate) out: ArrayQueue<crate::haptics::render::HapticOut>,
    pub(crate) waker: AtomicWaker,
    /// What the device's stream last sent its client, for the web viewer. Written
    /// and read on the network side only (the physics thread never touches it).
    pub(crate) view: std::sync::Mutex<Option<HapticView>>,
}

/// A device's coupling as its Haptic stream last reported it (world frame): the
/// target (the applied sample mapped by x_w = R (s x_dev) + o, q_w = R q_dev; the
/// scene's tool pose before any sample), the tool, and the rendered force mapped
/// back to the world (f_w = R f_dev / s, the inverse of the power-preserving map).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HapticView {
    pub gen: u64,
    pub tick: u64,
    pub seq: u64,
    /// x, y, z, w, qx, qy, qz.
    pub target: [f64; 7],
    pub tool: [f64; 7],
    pub force: [f64; 3],
    pub contact: bool,
}

/// A validated device sample for device `device` of world generation `gen`.
#[derive(Clone, Copy, Debug)]
pub struct HapticInput {
    pub device: u32,
    pub gen: u64,
    pub stream_id: u64,
    pub sample: crate::haptics::render::DeviceSample,
}

/// Entries of a haptic slot's output queue.
pub const HAPTIC_OUT_LEN: usize = 64;

/// A streaming subscriber's wake-up registration.
pub struct SubSlot {
    pub(crate) in_use: AtomicBool,
    pub(crate) waker: AtomicWaker,
    /// The physics thread wakes this subscriber only for frames ≥ this (decimation).
    pub(crate) next_wake: AtomicU64,
}

pub(crate) fn behavior_code(b: SafeBehavior) -> u8 {
    match b {
        SafeBehavior::Zero => 1,
        SafeBehavior::Hold => 2,
        SafeBehavior::Damp => 3,
    }
}

pub(crate) fn behavior_from(c: u8) -> SafeBehavior {
    match c {
        2 => SafeBehavior::Hold,
        3 => SafeBehavior::Damp,
        _ => SafeBehavior::Zero,
    }
}

pub(crate) fn mode_code(m: Mode) -> u8 {
    match m {
        Mode::Realtime => 1,
        Mode::Lockstep => 2,
        Mode::Max => 3,
    }
}

/// The rule for a method that cannot keep up with the clock: Rigid IPC (`ipc`) is an
/// optimization per step (Newton iterations, each a dense factorization and CCD),
/// milliseconds to seconds per step, so a world with it in `Realtime` mode gets a
/// warning at load and on SetMode; the ticks it misses are counted as overruns in
/// GetStats (the physics loop's own accounting). Lockstep and max serve it as is.
pub fn realtime_warning(model: &Model, mode: Mode) -> Option<String> {
    (mode == Mode::Realtime && matches!(model.opt.method, crate::model::Method::Ipc(_))).then(|| {
        format!(
            "method \"ipc\" (Rigid IPC) is not real time: at dt = {} s it will overrun the realtime clock (counted as overruns in GetStats); serve it in lockstep or max mode",
            model.opt.dt
        )
    })
}

pub fn mode_from(c: u8) -> Mode {
    match c {
        2 => Mode::Lockstep,
        3 => Mode::Max,
        _ => Mode::Realtime,
    }
}

/// State shared between the physics thread and the network side.
pub struct Shared {
    pub cfg: Config,
    pub(crate) inputs: ArrayQueue<Input>,
    pub(crate) admin: ArrayQueue<Admin>,
    pub(crate) trash: ArrayQueue<Trash>,
    thread: OnceLock<std::thread::Thread>,
    world: RwLock<Arc<WorldView>>,
    pub controllers: Box<[CtrlSlot]>,
    pub haptic_slots: Box<[HapticSlot]>,
    pub(crate) haptic_in: ArrayQueue<HapticInput>,
    /// Device samples dropped: the world changed, or a recording was in progress.
    pub haptic_stale: AtomicU64,
    pub subscribers: Box<[SubSlot]>,
    pub(crate) mode: AtomicU8,
    pub(crate) paused: AtomicBool,
    pub(crate) rtf_bits: AtomicU64,
    pub(crate) tick: AtomicU64,
    pub(crate) time_bits: AtomicU64,
    pub(crate) shutdown: AtomicBool,
    pub queue_full: AtomicU64,
    pub frames_dropped: AtomicU64,
    next_stream_id: AtomicU64,
    next_gen: AtomicU64,
    pub notes: Mutex<Vec<String>>,
    pub(crate) started: std::time::Instant,
    /// The physics core panicked: the world is paused until Reset or LoadScene.
    pub faulted: AtomicBool,
    /// What the panic said, and at which tick (for GetStats).
    pub fault: Mutex<String>,
    /// Panics caught since the start.
    pub faults: AtomicU64,
    /// Fault injection for tests of the panic path: the next tick's step panics
    /// (checked once per tick, a relaxed load). Never set by the API.
    #[doc(hidden)]
    pub inject_panic: AtomicBool,
    /// Open StateState subscriptions (Control streams not counted).
    pub(crate) observers: AtomicUsize,
    /// Stale (non-increasing) command sequence numbers refused on control streams.
    pub stale_seq: AtomicU64,
    /// Network-side counters (src/server/conn.rs).
    pub net: NetCounters,
    /// The command-log recording (src/runtime/record.rs), if one was started.
    pub recording: Mutex<Option<record::Active>>,
}

/// Connection counters kept by the server's accept loop and rate limiter.
#[derive(Default)]
pub struct NetCounters {
    pub connections: AtomicU64,
    pub refused: AtomicU64,
    pub idle_closed: AtomicU64,
    pub rate_limited: AtomicU64,
}

impl Shared {
    pub(crate) fn wake_physics(&self) {
        if let Some(t) = self.thread.get() {
            t.unpark();
        }
    }

    pub(crate) fn set_world(&self, v: Arc<WorldView>) {
        *self.world.write() = v;
    }

    pub(crate) fn wake_all_subscribers(&self) {
        for s in self.subscribers.iter() {
            s.waker.wake();
        }
        for s in self.haptic_slots.iter() {
            s.waker.wake();
        }
    }

    pub fn is_shutting_down(&self) -> bool {
        self.shutdown.load(Ordering::SeqCst)
    }

    /// Free what the physics thread handed back.
    pub fn empty_trash(&self) {
        while self.trash.pop().is_some() {}
    }
}

/// Handle of the running physics thread (cheap to clone).
#[derive(Clone)]
pub struct Runtime {
    pub shared: Arc<Shared>,
    join: Arc<Mutex<Option<std::thread::JoinHandle<()>>>>,
}

impl Runtime {
    /// Start the physics thread on `model` with the settings of `cfg`.
    pub fn start(cfg: &Config, model: Model, scene_name: &str) -> anyhow::Result<Runtime> {
        let model = apply_dt_override(cfg, model);
        let nctrl = cfg.server.max_controllers;
        let world = World::new(
            1,
            scene_name.to_string(),
            model,
            nctrl,
            cfg.physics.state_ring,
        );
        let view = Arc::new(WorldView {
            gen: world.gen,
            name: world.name.clone(),
            model: world.model.clone(),
            ring: world.ring.clone(),
        });
        let shared = Arc::new(Shared {
            cfg: cfg.clone(),
            inputs: ArrayQueue::new(cfg.physics.command_queue),
            admin: ArrayQueue::new(256),
            trash: ArrayQueue::new(cfg.physics.command_queue + 256),
            thread: OnceLock::new(),
            world: RwLock::new(view),
            controllers: (0..nctrl)
                .map(|_| CtrlSlot {
                    state: AtomicU8::new(SLOT_FREE),
                    stream_id: AtomicU64::new(0),
                    lockstep: AtomicBool::new(false),
                    watchdog_ns: AtomicI64::new(0),
                    behavior: AtomicU8::new(1),
                    name: Mutex::new(String::new()),
                    rejected: AtomicU64::new(0),
                })
                .collect(),
            haptic_slots: (0..crate::haptics::spec::MAX_DEVICES)
                .map(|_| HapticSlot {
                    state: AtomicU8::new(SLOT_FREE),
                    stream_id: AtomicU64::new(0),
                    lockstep: AtomicBool::new(false),
                    out: ArrayQueue::new(HAPTIC_OUT_LEN),
                    waker: AtomicWaker::new(),
                    view: std::sync::Mutex::new(None),
                })
                .collect(),
            haptic_in: ArrayQueue::new(cfg.physics.command_queue.max(64)),
            haptic_stale: AtomicU64::new(0),
            subscribers: (0..cfg.server.max_streams)
                .map(|_| SubSlot {
                    in_use: AtomicBool::new(false),
                    waker: AtomicWaker::new(),
                    next_wake: AtomicU64::new(0),
                })
                .collect(),
            mode: AtomicU8::new(mode_code(cfg.physics.mode)),
            paused: AtomicBool::new(cfg.physics.start_paused),
            rtf_bits: AtomicU64::new(cfg.physics.realtime_factor.to_bits()),
            tick: AtomicU64::new(0),
            time_bits: AtomicU64::new(0f64.to_bits()),
            shutdown: AtomicBool::new(false),
            queue_full: AtomicU64::new(0),
            frames_dropped: AtomicU64::new(0),
            next_stream_id: AtomicU64::new(1),
            next_gen: AtomicU64::new(2),
            notes: Mutex::new(Vec::new()),
            started: std::time::Instant::now(),
            faulted: AtomicBool::new(false),
            fault: Mutex::new(String::new()),
            faults: AtomicU64::new(0),
            inject_panic: AtomicBool::new(false),
            observers: AtomicUsize::new(0),
            stale_seq: AtomicU64::new(0),
            net: NetCounters::default(),
            recording: Mutex::new(None),
        });
        let sh = shared.clone();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let handle = std::thread::Builder::new()
            .name("rtphys-physics".into())
            .spawn(move || {
                let notes = rt::apply(&sh.cfg.realtime);
                *sh.notes.lock() = notes;
                physics::run(sh, Box::new(world), move || {
                    let _ = ready_tx.send(());
                });
            })?;
        let _ = shared.thread.set(handle.thread().clone());
        let _ = ready_rx.recv();
        shared.wake_physics();
        Ok(Runtime {
            shared,
            join: Arc::new(Mutex::new(Some(handle))),
        })
    }

    /// Logs [`realtime_warning`] for the current world and mode, if any.
    pub fn warn_if_not_realtime(&self) {
        if let Some(msg) = realtime_warning(&self.world().model, self.status().mode) {
            tracing::warn!(target: "rtphys::realtime", "{msg}");
        }
    }

    pub fn world(&self) -> Arc<WorldView> {
        self.shared.world.read().clone()
    }

    pub fn status(&self) -> RunStatus {
        let s = &self.shared;
        let rtf = f64::from_bits(s.rtf_bits.load(Ordering::Relaxed));
        let dt = self.world().model.opt.dt;
        RunStatus {
            mode: mode_from(s.mode.load(Ordering::Relaxed)),
            paused: s.paused.load(Ordering::Relaxed),
            rate_hz: rtf / dt,
            realtime_factor: rtf,
            tick: s.tick.load(Ordering::Relaxed),
            time: f64::from_bits(s.time_bits.load(Ordering::Relaxed)),
        }
    }

    /// Queue an input for the next tick boundary.
    pub fn submit(&self, input: Input) -> Result<(), SimError> {
        if self.shared.is_shutting_down() {
            return Err(SimError::Unavailable("server is shutting down".into()));
        }
        match self.shared.inputs.push(input) {
            Ok(()) => {
                self.shared.wake_physics();
                Ok(())
            }
            Err(_) => {
                self.shared.queue_full.fetch_add(1, Ordering::Relaxed);
                Err(SimError::ResourceExhausted(format!(
                    "command queue full ({} commands waiting for the physics thread)",
                    self.shared.inputs.capacity()
                )))
            }
        }
    }

    /// Queue an administrative request.
    pub fn admin(&self, req: Admin) -> Result<(), SimError> {
        if self.shared.is_shutting_down() {
            return Err(SimError::Unavailable("server is shutting down".into()));
        }
        match self.shared.admin.push(req) {
            Ok(()) => {
                self.shared.wake_physics();
                Ok(())
            }
            Err(_) => Err(SimError::ResourceExhausted(
                "too many requests waiting for the physics thread".into(),
            )),
        }
    }

    /// Build a world for `Admin::Load` (off the physics thread).
    pub fn build_world(&self, model: Model, name: String) -> Box<World> {
        let model = apply_dt_override(&self.shared.cfg, model);
        let gen = self.shared.next_gen.fetch_add(1, Ordering::Relaxed);
        Box::new(World::new(
            gen,
            name,
            model,
            self.shared.cfg.server.max_controllers,
            self.shared.cfg.physics.state_ring,
        ))
    }

    pub fn new_saved(&self) -> Box<Saved> {
        Box::new(Saved::with_capacity(0, &self.world().model))
    }

    pub fn new_stats_buf(&self) -> Box<StatsBuf> {
        Box::new(StatsBuf::new(self.shared.controllers.len()))
    }

    /// Register a streaming subscriber; `None` when `server.max_streams` are open.
    pub fn open_subscriber(&self) -> Result<SubGuard, SimError> {
        for (i, s) in self.shared.subscribers.iter().enumerate() {
            if s.in_use
                .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                s.next_wake.store(0, Ordering::SeqCst);
                return Ok(SubGuard {
                    shared: self.shared.clone(),
                    idx: i,
                    observer: false,
                });
            }
        }
        Err(SimError::ResourceExhausted(format!(
            "too many streams: server.max_streams = {} are open",
            self.shared.subscribers.len()
        )))
    }

    /// Register a state subscriber (StreamState): it may not take the
    /// `server.reserved_controller_streams` slots kept for control streams.
    pub fn open_observer(&self) -> Result<SubGuard, SimError> {
        let sh = &self.shared;
        let s = &sh.cfg.server;
        let reserved = s
            .reserved_controller_streams
            .min(s.max_controllers)
            .min(sh.subscribers.len().saturating_sub(1));
        let limit = sh.subscribers.len() - reserved;
        if sh.observers.fetch_add(1, Ordering::SeqCst) >= limit {
            sh.observers.fetch_sub(1, Ordering::SeqCst);
            return Err(SimError::ResourceExhausted(format!(
                "too many state streams: {limit} of server.max_streams = {} are open \
                 ({reserved} more are kept for control streams, server.reserved_controller_streams)",
                sh.subscribers.len()
            )));
        }
        match self.open_subscriber() {
            Ok(mut g) => {
                g.observer = true;
                Ok(g)
            }
            Err(e) => {
                sh.observers.fetch_sub(1, Ordering::SeqCst);
                Err(e)
            }
        }
    }

    /// The physics fault (a caught panic), if the world is stuck in one.
    pub fn fault(&self) -> Option<String> {
        self.shared
            .faulted
            .load(Ordering::SeqCst)
            .then(|| self.shared.fault.lock().clone())
    }

    /// Register a control stream.
    pub fn open_controller(
        &self,
        name: &str,
        lockstep: bool,
        watchdog_ns: i64,
        behavior: SafeBehavior,
    ) -> Result<CtrlGuard, SimError> {
        for (i, c) in self.shared.controllers.iter().enumerate() {
            if c.state
                .compare_exchange(SLOT_FREE, SLOT_RESERVED, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                let id = self.shared.next_stream_id.fetch_add(1, Ordering::Relaxed);
                *c.name.lock() = name.to_string();
                c.rejected.store(0, Ordering::Relaxed);
                c.lockstep.store(lockstep, Ordering::SeqCst);
                c.watchdog_ns.store(watchdog_ns, Ordering::SeqCst);
                c.behavior.store(behavior_code(behavior), Ordering::SeqCst);
                c.stream_id.store(id, Ordering::SeqCst);
                c.state.store(SLOT_OPEN, Ordering::SeqCst);
                self.shared.wake_physics();
                return Ok(CtrlGuard {
                    shared: self.shared.clone(),
                    slot: i,
                    stream_id: id,
                });
            }
        }
        Err(SimError::ResourceExhausted(format!(
            "too many controllers: server.max_controllers = {} control streams are open",
            self.shared.controllers.len()
        )))
    }

    /// Register the stream of haptic device `device` (an index of the current
    /// world's `model.haptics`): one stream per device. `lockstep`: in lockstep
    /// mode each tick waits for the device's next sample, as for a lockstep
    /// controller's command.
    pub fn open_haptic(&self, device: usize, lockstep: bool) -> Result<HapticGuard, SimError> {
        let Some(s) = self.shared.haptic_slots.get(device) else {
            return Err(SimError::not_found(
                "hello.device",
                format!("no device {device}"),
            ));
        };
        if s.state
            .compare_exchange(SLOT_FREE, SLOT_RESERVED, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            return Err(SimError::FailedPrecondition(format!(
                "hello.device: device {device} is already driven by another Haptic stream"
            )));
        }
        while s.out.pop().is_some() {}
        if let Ok(mut v) = s.view.lock() {
            *v = None;
        }
        let id = self.shared.next_stream_id.fetch_add(1, Ordering::Relaxed);
        s.lockstep.store(lockstep, Ordering::SeqCst);
        s.stream_id.store(id, Ordering::SeqCst);
        s.state.store(SLOT_OPEN, Ordering::SeqCst);
        self.shared.wake_physics();
        Ok(HapticGuard {
            shared: self.shared.clone(),
            device,
            stream_id: id,
        })
    }

    /// Queue a validated device sample for the next tick boundary.
    pub fn submit_haptic(&self, input: HapticInput) -> Result<(), SimError> {
        if self.shared.is_shutting_down() {
            return Err(SimError::Unavailable("server is shutting down".into()));
        }
        match self.shared.haptic_in.push(input) {
            Ok(()) => {
                self.shared.wake_physics();
                Ok(())
            }
            Err(_) => {
                self.shared.queue_full.fetch_add(1, Ordering::Relaxed);
                Err(SimError::ResourceExhausted(
                    "device sample queue full (the physics thread is behind)".into(),
                ))
            }
        }
    }

    /// Device `device`'s coupling as its open Haptic stream last reported it (None
    /// without a stream, before its first feedback, or from another world).
    pub fn haptic_view(&self, device: usize) -> Option<HapticView> {
        let s = self.shared.haptic_slots.get(device)?;
        if s.state.load(Ordering::SeqCst) != SLOT_OPEN {
            return None;
        }
        let v = (*s.view.lock().ok()?)?;
        (v.gen == self.world().gen).then_some(v)
    }

    /// Whether any Haptic stream is open (their samples are not recorded).
    pub fn haptic_streams_open(&self) -> bool {
        self.shared
            .haptic_slots
            .iter()
            .any(|s| s.state.load(Ordering::SeqCst) != SLOT_FREE)
    }

    /// Tell the physics thread and every stream to stop (does not wait).
    pub fn begin_shutdown(&self) {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        self.shared.wake_physics();
        self.shared.wake_all_subscribers();
    }

    /// Stop the physics thread and wait for it: streams end, waiting requests fail with Unavailable.
    pub fn shutdown(&self) {
        self.begin_shutdown();
        if let Some(h) = self.join.lock().take() {
            let _ = h.join();
        }
        // The physics thread ended the recording (if any): wait for its file.
        if let Some(a) = self.shared.recording.lock().take() {
            match a.finish() {
                Ok(f) => tracing::info!(
                    "command log {} written: {} records to tick {}, state hash {:016x}",
                    f.path.display(),
                    f.records,
                    f.tick,
                    f.hash
                ),
                Err(e) => tracing::error!("{e}"),
            }
        }
        self.shared.wake_all_subscribers();
        self.shared.empty_trash();
    }
}

fn apply_dt_override(cfg: &Config, model: Model) -> Model {
    if cfg.physics.dt > 0.0 && cfg.physics.dt != model.opt.dt {
        let mut opt = model.opt;
        opt.dt = cfg.physics.dt;
        model.with_options(opt)
    } else {
        model
    }
}

/// A subscriber registration; released on drop.
pub struct SubGuard {
    pub shared: Arc<Shared>,
    pub idx: usize,
    /// Counted in `Shared::observers` (a StreamState subscription).
    observer: bool,
}

impl SubGuard {
    pub fn slot(&self) -> &SubSlot {
        &self.shared.subscribers[self.idx]
    }
}

impl Drop for SubGuard {
    fn drop(&mut self) {
        let s = &self.shared.subscribers[self.idx];
        let _ = s.waker.take();
        s.in_use.store(false, Ordering::SeqCst);
        if self.observer {
            self.shared.observers.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// A controller registration; on drop its wrenches are removed at the next tick.
pub struct CtrlGuard {
    pub shared: Arc<Shared>,
    pub slot: usize,
    pub stream_id: u64,
}

impl Drop for CtrlGuard {
    fn drop(&mut self) {
        self.shared.controllers[self.slot]
            .state
            .store(SLOT_CLOSING, Ordering::SeqCst);
        self.shared.wake_physics();
    }
}

/// A haptic stream's registration; on drop the device's watchdog acts at the next
/// tick boundary.
pub struct HapticGuard {
    pub shared: Arc<Shared>,
    pub device: usize,
    pub stream_id: u64,
}

impl HapticGuard {
    pub fn slot(&self) -> &HapticSlot {
        &self.shared.haptic_slots[self.device]
    }

    /// Publish what the stream sent (network side; for the web viewer).
    pub fn set_view(&self, v: HapticView) {
        if let Ok(mut slot) = self.slot().view.lock() {
            *slot = Some(v);
        }
    }
}

impl Drop for HapticGuard {
    fn drop(&mut self) {
        let s = self.slot();
        let _ = s.waker.take();
        s.state.store(SLOT_CLOSING, Ordering::SeqCst);
        self.shared.wake_physics();
    }
}
