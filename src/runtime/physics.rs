//! The physics thread's loop. Owns the world; everything it touches per tick is
//! preallocated; it never blocks on a client, never logs per tick, and survives a
//! panic of the core by pausing the world.
//!
//! One iteration = one tick boundary (+ a step when the mode says so):
//! 1. scan controller slots (opened / closed streams),
//! 2. drain the input queue (wrenches land in per-source tables; acks recorded),
//! 3. drain the admin queue (step, pause, reset, snapshot, load, stats),
//! 4. run the watchdogs (a silent controller gets its safe behaviour now),
//! 5. compose `data.xfrc` from all sources, step, publish a frame, wake subscribers.

use super::clock::mono_ns;
use super::command::{Admin, Applied, Clear, Input, Reply, RunStatus, Source, SourceWrench, Trash};
use super::error::SimError;
use super::record::{EndReason, RecState, SlotState, SlotView};
use super::ring::{ack, body, contact, frame, hdr, joint, FrameWriter, Layout};
use super::stats::{copy_hist, hist_ns, hist_ns_small};
use super::world::World;
use super::{
    behavior_code, behavior_from, mode_code, Shared, WorldView, SLOT_CLOSING, SLOT_FREE, SLOT_OPEN,
};
use crate::config::{Mode, SafeBehavior};
use crate::data::Data;
use crate::haptics::render::HapticState;
use crate::haptics::spec::MAX_DEVICES;
use crate::math::Wrench;
use crate::model::robot::SensorKind;
use crate::model::{BodyKind, Model};
use hdrhistogram::Histogram;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Physics-side state of one controller slot.
struct CtrlLocal {
    /// 0 = inactive.
    stream_id: u64,
    lockstep: bool,
    watchdog_ns: i64,
    behavior: SafeBehavior,
    last_seq: u64,
    client_ns: i64,
    recv_ns: i64,
    apply_tick: u64,
    apply_ns: i64,
    commands: u64,
    /// Watchdog reference: last command received (or the stream's opening).
    last_cmd_ns: i64,
    tripped: bool,
    trips: u64,
    /// Lockstep: a command arrived since the last tick.
    delivered: bool,
    hist: Histogram<u64>,
}

impl super::record::SlotView for CtrlLocal {
    #[inline]
    fn slot_state(&self) -> SlotState {
        SlotState {
            open: self.stream_id != 0,
            tripped: self.tripped,
            behavior: self.behavior,
        }
    }
}

impl CtrlLocal {
    fn new() -> Self {
        CtrlLocal {
            stream_id: 0,
            lockstep: false,
            watchdog_ns: 0,
            behavior: SafeBehavior::Zero,
            last_seq: 0,
            client_ns: 0,
            recv_ns: 0,
            apply_tick: 0,
            apply_ns: 0,
            commands: 0,
            last_cmd_ns: 0,
            tripped: false,
            trips: 0,
            delivered: false,
            hist: hist_ns_small(),
        }
    }
}

struct Physics {
    sh: Arc<Shared>,
    w: Box<World>,
    ctrl: Vec<CtrlLocal>,
    mode: Mode,
    paused: bool,
    rtf: f64,
    /// Realtime pacing: deadline k = anchor + k * period.
    anchor: Instant,
    k: u64,
    period_ns: f64,
    steps_requested: u64,
    steps_done: u64,
    /// Step(n) callers: (target steps_done, n, reply).
    step_waiters: Vec<(u64, u64, Reply<Applied>)>,
    /// Inputs changed while no tick ran: publish a frame so streams see the acks.
    dirty: bool,
    // statistics
    compute: Histogram<u64>,
    lateness: Histogram<u64>,
    overruns: u64,
    skipped: u64,
    stale: u64,
    ticks: u64,
    sim_advanced: f64,
    stats_since: Instant,
    paused_ns: u64,
    win_wall: Instant,
    win_sim: f64,
    rtf_recent: f64,
    /// A core panic was caught: paused until Reset or LoadScene.
    faulted: bool,
    /// `paused` before the fault (restored when the fault is cleared).
    paused_before_fault: bool,
    /// The command-log recording in progress (src/runtime/record.rs).
    rec: Option<Box<RecState>>,
    /// Stream id driving each haptic device slot (0 = none); whether the
    /// stream is lockstep, and (lockstep) whether a sample came since the last
    /// tick.
    hap_ids: [u64; MAX_DEVICES],
    hap_lockstep: [bool; MAX_DEVICES],
    hap_delivered: [bool; MAX_DEVICES],
}

/// `ready` is called once the first state is published (a server that answers
/// before it would reply "no state published yet" to a first GetState).
pub(super) fn run(sh: Arc<Shared>, world: Box<World>, ready: impl FnOnce()) {
    let nctrl = sh.controllers.len();
    let mode = super::mode_from(sh.mode.load(Ordering::SeqCst));
    let paused = sh.paused.load(Ordering::SeqCst);
    let rtf = f64::from_bits(sh.rtf_bits.load(Ordering::SeqCst));
    let now = Instant::now();
    let mut p = Physics {
        sh,
        ctrl: (0..nctrl).map(|_| CtrlLocal::new()).collect(),
        period_ns: world.model.opt.dt / rtf * 1e9,
        w: world,
        mode,
        paused,
        rtf,
        anchor: now,
        k: 0,
        steps_requested: 0,
        steps_done: 0,
        step_waiters: Vec::with_capacity(64),
        dirty: false,
        compute: hist_ns(),
        lateness: hist_ns(),
        overruns: 0,
        skipped: 0,
        stale: 0,
        ticks: 0,
        sim_advanced: 0.0,
        stats_since: now,
        paused_ns: 0,
        win_wall: now,
        win_sim: 0.0,
        rtf_recent: 0.0,
        faulted: false,
        paused_before_fault: false,
        rec: None,
        hap_ids: [0; MAX_DEVICES],
        hap_lockstep: [false; MAX_DEVICES],
        hap_delivered: [false; MAX_DEVICES],
    };
    p.compose();
    p.publish();
    ready();
    while !p.sh.shutdown.load(Ordering::Relaxed) {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| p.iteration()));
        if let Err(payload) = r {
            p.on_panic(payload.as_ref());
        }
    }
    p.finish();
}

impl Physics {
    /// A panic of the core (or of this thread's own code) was caught: the world is
    /// faulted — paused, the error in `Shared::fault` (GetStats), the faulted flag
    /// in every published state, health NOT_SERVING (the server watches the flag) —
    /// until Reset or LoadScene. Its state may be half-updated, so Resume and Step
    /// are refused.
    fn on_panic(&mut self, payload: &(dyn std::any::Any + Send)) {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".into());
        let msg = format!(
            "the physics step panicked at tick {} (world generation {}): {what}; \
             Reset or LoadScene to recover",
            self.w.data.tick, self.w.gen
        );
        tracing::error!("{msg}");
        if !self.faulted {
            self.paused_before_fault = self.paused;
        }
        self.faulted = true;
        self.paused = true;
        self.end_recording(EndReason::Fault);
        *self.sh.fault.lock() = msg.clone();
        self.sh.faults.fetch_add(1, Ordering::SeqCst);
        self.sh.faulted.store(true, Ordering::SeqCst);
        self.store_status();
        self.abort_steps(&msg);
        // Tell the streams (the faulted flag); a second panic here is left alone.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.publish()));
    }

    /// Reset or LoadScene after a fault: the world runs again as before it.
    fn clear_fault(&mut self) {
        if !self.faulted {
            return;
        }
        self.faulted = false;
        self.paused = self.paused_before_fault;
        self.sh.faulted.store(false, Ordering::SeqCst);
        self.reanchor();
        self.store_status();
    }

    fn refuse_faulted<T>(&self, reply: Reply<T>) -> Option<Reply<T>> {
        if self.faulted {
            let _ = reply.send(Err(SimError::FailedPrecondition(format!(
                "{} (Resume and Step are refused until then)",
                self.sh.fault.lock()
            ))));
            None
        } else {
            Some(reply)
        }
    }

    fn iteration(&mut self) {
        if self.paused || self.mode == Mode::Lockstep {
            self.idle_iteration();
        } else if self.mode == Mode::Realtime {
            self.realtime_iteration();
        } else {
            self.max_iteration();
        }
    }

    fn deadline(&self, k: u64) -> Instant {
        self.anchor + Duration::from_nanos((k as f64 * self.period_ns).round() as u64)
    }

    fn reanchor(&mut self) {
        self.period_ns = self.w.model.opt.dt / self.rtf * 1e9;
        self.anchor = Instant::now();
        self.k = 0;
        self.win_wall = self.anchor;
        self.win_sim = self.w.data.time;
    }

    fn realtime_iteration(&mut self) {
        let deadline = self.deadline(self.k);
        self.sleep_until(deadline);
        if self.sh.shutdown.load(Ordering::Relaxed) {
            return;
        }
        let start = Instant::now();
        let late = start.saturating_duration_since(deadline).as_nanos() as u64;
        self.lateness.saturating_record(late.max(1));
        let (mode, paused) = (self.mode, self.paused);
        self.boundary();
        if self.mode != mode || self.paused != paused {
            return;
        }
        self.tick();
        let end = Instant::now();
        self.compute
            .saturating_record((end - start).as_nanos().max(1) as u64);
        self.k += 1;
        if end > self.deadline(self.k) {
            // Overrun: skip ahead to the first deadline in the future (no catch-up burst).
            self.overruns += 1;
            let since = (end - self.anchor).as_nanos() as f64;
            let next_k = (since / self.period_ns).ceil() as u64;
            let next_k = if self.deadline(next_k) <= end {
                next_k + 1
            } else {
                next_k
            };
            self.skipped += next_k.saturating_sub(self.k);
            self.k = next_k;
        }
        self.update_rtf(end);
    }

    fn max_iteration(&mut self) {
        let start = Instant::now();
        let (mode, paused) = (self.mode, self.paused);
        self.boundary();
        if self.mode != mode || self.paused != paused {
            return;
        }
        self.tick();
        let end = Instant::now();
        self.compute
            .saturating_record((end - start).as_nanos().max(1) as u64);
        self.update_rtf(end);
    }

    /// Step callers that gave up (deadline, cancellation, disconnect): their steps
    /// not yet run are dropped, and later callers move up.
    fn prune_step_waiters(&mut self) {
        let mut i = 0;
        while i < self.step_waiters.len() {
            if !self.step_waiters[i].2.is_closed() {
                i += 1;
                continue;
            }
            let (target, n, _) = self.step_waiters.swap_remove(i);
            let owed = target.saturating_sub(self.steps_done).min(n);
            if owed > 0 {
                self.steps_requested -= owed;
                for w in self.step_waiters.iter_mut() {
                    if w.0 > target {
                        w.0 -= owed;
                    }
                }
            }
        }
    }

    /// Lockstep, or paused: run a tick only when asked to.
    fn idle_iteration(&mut self) {
        if !self.step_waiters.is_empty() {
            self.prune_step_waiters();
        }
        let start = Instant::now();
        let (mode, paused) = (self.mode, self.paused);
        self.boundary();
        if self.mode != mode || self.paused != paused {
            if !self.paused && self.mode != Mode::Lockstep {
                self.reanchor();
            }
            return;
        }
        let owed = self.steps_requested > self.steps_done;
        let ready = !owed && !self.paused && self.mode == Mode::Lockstep && self.lockstep_ready();
        if owed || ready {
            self.tick();
            if owed {
                self.steps_done += 1;
                self.reply_step_waiters();
            }
            for c in self.ctrl.iter_mut() {
                c.delivered = false;
            }
            self.hap_delivered = [false; MAX_DEVICES];
            let end = Instant::now();
            self.compute
                .saturating_record((end - start).as_nanos().max(1) as u64);
            self.update_rtf(end);
            return;
        }
        if self.dirty {
            self.compose();
            self.publish();
        }
        self.wait_for_work(start);
    }

    /// Park until a queue is fed, a watchdog is due, or 50 ms pass.
    fn wait_for_work(&mut self, since: Instant) {
        let spin = self.sh.cfg.physics.lockstep_spin_us;
        if spin > 0 && self.mode == Mode::Lockstep {
            let until = since + Duration::from_micros(spin);
            while Instant::now() < until {
                if self.work_queued() {
                    return;
                }
                std::hint::spin_loop();
            }
        }
        if self.work_queued() {
            return;
        }
        let mut timeout_ns: i64 = 50_000_000;
        let now = mono_ns();
        for c in &self.ctrl {
            if c.stream_id != 0 && c.watchdog_ns > 0 && !c.tripped {
                timeout_ns = timeout_ns.min(c.last_cmd_ns + c.watchdog_ns - now + 1);
            }
        }
        if timeout_ns > 0 {
            std::thread::park_timeout(Duration::from_nanos(timeout_ns as u64));
        }
        if self.paused {
            self.paused_ns += since.elapsed().as_nanos() as u64;
        }
    }

    /// Commands, device samples or admin requests wait in their queues.
    fn work_queued(&self) -> bool {
        !self.sh.inputs.is_empty() || !self.sh.haptic_in.is_empty() || !self.sh.admin.is_empty()
    }

    fn sleep_until(&self, deadline: Instant) {
        let spin = Duration::from_micros(self.sh.cfg.physics.spin_us);
        loop {
            let now = Instant::now();
            if now >= deadline || self.sh.shutdown.load(Ordering::Relaxed) {
                return;
            }
            let left = deadline - now;
            if left > spin {
                std::thread::park_timeout((left - spin).min(Duration::from_millis(100)));
            } else {
                while Instant::now() < deadline {
                    std::hint::spin_loop();
                }
                return;
            }
        }
    }

    fn update_rtf(&mut self, now: Instant) {
        let wall = (now - self.win_wall).as_secs_f64();
        if wall >= 1.0 {
            self.rtf_recent = (self.w.data.time - self.win_sim) / wall;
            self.win_wall = now;
            self.win_sim = self.w.data.time;
        }
    }

    /// Every open lockstep controller has sent its command and every open
    /// lockstep haptic stream its sample since the last tick (and there is one).
    fn lockstep_ready(&self) -> bool {
        let mut any = false;
        for c in &self.ctrl {
            if c.stream_id != 0 && c.lockstep && !c.tripped {
                if !c.delivered {
                    return false;
                }
                any = true;
            }
        }
        for i in 0..MAX_DEVICES {
            if self.hap_ids[i] != 0 && self.hap_lockstep[i] {
                if !self.hap_delivered[i] {
                    return false;
                }
                any = true;
            }
        }
        any
    }

    /// One tick: step (composing the inputs at the step's inputs point), publish.
    fn tick(&mut self) {
        if let Some(r) = &mut self.rec {
            r.diff(&self.w, self.ctrl.iter().map(|c| c.slot_state()));
        }
        let damping = self.sh.cfg.watchdog.damping;
        let slots = &self.ctrl;
        let World {
            model,
            data,
            pipeline,
            unary,
            ctrl: sources,
            haptic,
            ..
        } = &mut *self.w;
        let mut inputs = |m: &Model, d: &mut Data| {
            compose_inputs(m, d, unary, sources, slots, damping);
            for (h, spec) in haptic.iter_mut().zip(&m.haptics) {
                h.apply(spec, m, d);
            }
        };
        if self.sh.inject_panic.load(Ordering::Relaxed) {
            self.sh.inject_panic.store(false, Ordering::Relaxed);
            panic!("injected fault (tests)");
        }
        pipeline.step_with(model, data, &mut inputs);
        for (i, (h, spec)) in haptic.iter_mut().zip(&model.haptics).enumerate() {
            h.render(spec, model, data);
            if let Some(slot) = self.sh.haptic_slots.get(i) {
                if self.hap_ids[i] != 0 {
                    let _ = slot.out.force_push(h.out);
                    slot.waker.wake();
                }
            }
        }
        self.ticks += 1;
        self.sim_advanced += self.w.model.opt.dt;
        self.publish();
    }

    /// The tick boundary: slots, inputs, admin, watchdogs.
    fn boundary(&mut self) {
        let now = mono_ns();
        self.scan_slots(now);
        let n = self.sh.inputs.capacity();
        for _ in 0..n {
            match self.sh.inputs.pop() {
                Some(inp) => self.apply_input(inp),
                None => break,
            }
        }
        self.haptic_boundary();
        for _ in 0..self.sh.admin.capacity() {
            match self.sh.admin.pop() {
                Some(a) => self.admin(a),
                None => break,
            }
        }
        self.watchdog(mono_ns());
    }

    /// Haptic streams opened or closed, device samples in (the latest of each
    /// device wins; samples of another world or during a recording are dropped).
    fn haptic_boundary(&mut self) {
        let tick = self.w.data.tick;
        for (i, slot) in self.sh.haptic_slots.iter().enumerate() {
            let st = slot.state.load(Ordering::SeqCst);
            let id = slot.stream_id.load(Ordering::SeqCst);
            if st == SLOT_OPEN && self.hap_ids[i] != id {
                self.hap_ids[i] = id;
                self.hap_lockstep[i] = slot.lockstep.load(Ordering::SeqCst);
                self.hap_delivered[i] = false;
                if let (Some(h), Some(spec)) =
                    (self.w.haptic.get_mut(i), self.w.model.haptics.get(i))
                {
                    h.connect(spec);
                }
                self.dirty = true;
            } else if st == SLOT_CLOSING {
                let w = &mut *self.w;
                if let (Some(h), Some(spec)) = (w.haptic.get_mut(i), w.model.haptics.get(i)) {
                    if self.hap_ids[i] != 0 {
                        h.disconnect(spec, tick);
                    }
                }
                self.hap_ids[i] = 0;
                self.hap_lockstep[i] = false;
                slot.state.store(SLOT_FREE, Ordering::SeqCst);
                self.dirty = true;
            }
        }
        for _ in 0..self.sh.haptic_in.capacity() {
            let Some(inp) = self.sh.haptic_in.pop() else {
                break;
            };
            let d = inp.device as usize;
            let ok = inp.gen == self.w.gen
                && self.rec.is_none()
                && d < self.w.haptic.len()
                && self.hap_ids[d] == inp.stream_id;
            if ok {
                self.w.haptic[d].receive(&inp.sample);
                self.hap_delivered[d] = true;
                self.dirty = true;
            } else {
                self.sh.haptic_stale.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    fn scan_slots(&mut self, now: i64) {
        for i in 0..self.ctrl.len() {
            let st = self.sh.controllers[i].state.load(Ordering::SeqCst);
            if st == SLOT_OPEN {
                let id = self.sh.controllers[i].stream_id.load(Ordering::SeqCst);
                if self.ctrl[i].stream_id != id {
                    self.open_slot(i, id, now);
                }
            } else if st == SLOT_CLOSING {
                self.w.ctrl[i].iter_mut().for_each(|e| *e = None);
                release_joints(&mut self.w.data);
                self.ctrl[i].stream_id = 0;
                self.ctrl[i].delivered = false;
                self.dirty = true;
                self.sh.controllers[i]
                    .state
                    .store(SLOT_FREE, Ordering::SeqCst);
            }
        }
    }

    fn open_slot(&mut self, i: usize, id: u64, now: i64) {
        let s = &self.sh.controllers[i];
        let c = &mut self.ctrl[i];
        c.stream_id = id;
        c.lockstep = s.lockstep.load(Ordering::SeqCst);
        c.watchdog_ns = s.watchdog_ns.load(Ordering::SeqCst);
        c.behavior = behavior_from(s.behavior.load(Ordering::SeqCst));
        c.last_seq = 0;
        c.client_ns = 0;
        c.recv_ns = 0;
        c.apply_tick = 0;
        c.apply_ns = 0;
        c.commands = 0;
        c.last_cmd_ns = now;
        c.tripped = false;
        c.trips = 0;
        c.delivered = false;
        c.hist.reset();
        self.w.ctrl[i].iter_mut().for_each(|e| *e = None);
        self.dirty = true;
    }

    fn trash(&self, t: Trash) {
        // If the trash queue is full the value is freed here (rare, never per tick).
        let _ = self.sh.trash.push(t);
    }

    fn trash_input(&self, inp: Input) {
        let Input {
            wrenches,
            joints,
            clear,
            ..
        } = inp;
        if wrenches.capacity() > 0 {
            self.trash(Trash::Wrenches(wrenches));
        }
        if joints.capacity() > 0 {
            self.trash(Trash::Joints(joints));
        }
        if let Clear::Bodies(v) = clear {
            if v.capacity() > 0 {
                self.trash(Trash::Clear(Clear::Bodies(v)));
            }
        }
    }

    fn apply_input(&mut self, mut inp: Input) {
        let now = mono_ns();
        let slot = match inp.source {
            Source::Unary => None,
            Source::Stream { slot, stream_id } => {
                if slot >= self.ctrl.len() {
                    self.trash_input(inp);
                    return;
                }
                if self.ctrl[slot].stream_id != stream_id {
                    // Opened since the last scan, or a leftover of a closed stream.
                    let s = &self.sh.controllers[slot];
                    if s.state.load(Ordering::SeqCst) == SLOT_OPEN
                        && s.stream_id.load(Ordering::SeqCst) == stream_id
                    {
                        self.open_slot(slot, stream_id, now);
                    } else {
                        self.trash_input(inp);
                        return;
                    }
                }
                Some(slot)
            }
        };
        let nb = self.w.model.nbody();
        let nj = self.w.model.joint_ids.len();
        let ids_ok = inp.wrenches.iter().all(|c| (c.body as usize) < nb)
            && inp.joints.iter().all(|c| (c.joint as usize) < nj)
            && match &inp.clear {
                Clear::Bodies(v) => v.iter().all(|&b| (b as usize) < nb),
                _ => true,
            };
        if inp.gen != self.w.gen || !ids_ok {
            self.stale += 1;
            if let Some(r) = inp.reply.take() {
                let _ = r.send(Err(SimError::not_found(
                    "header.world_generation",
                    format!(
                        "the world changed (generation {} -> {}) before the command applied",
                        inp.gen, self.w.gen
                    ),
                )));
            }
            self.trash_input(inp);
            return;
        }
        let w = &mut *self.w;
        let tick = w.data.tick;
        let dt = w.model.opt.dt;
        let table = match slot {
            None => &mut w.unary,
            Some(s) => &mut w.ctrl[s],
        };
        if let Some(s) = slot {
            if self.ctrl[s].tripped && self.ctrl[s].behavior == SafeBehavior::Damp {
                // The stream is back: the bodies it left are no longer damped on its behalf.
                table.iter_mut().for_each(|e| *e = None);
            }
        }
        match &inp.clear {
            Clear::Nothing => {}
            Clear::All => table.iter_mut().for_each(|e| *e = None),
            Clear::Bodies(v) => v.iter().for_each(|&b| table[b as usize] = None),
        }
        // Any command on a body or robot wakes its (sleeping) island.
        if let Clear::Bodies(v) = &inp.clear {
            for &b in v {
                w.data.wake(&w.model, b as usize);
            }
        }
        for c in &inp.wrenches {
            let b = c.body as usize;
            w.data.wake(&w.model, b);
            table[b] = Some(super::command::SourceWrench::capture(
                c,
                &w.data.state[b],
                tick,
                dt,
            ));
        }
        for c in &inp.joints {
            let (r, j) = w.model.joint_ids[c.joint as usize];
            let rm = &w.model.robots[r as usize];
            w.data.wake_robot(&w.model, r as usize);
            w.data.qfrc_cmd[rm.v_offset + rm.joints[j as usize].vi] = c.effort;
            if let Some(t) = c.servo {
                if let Some(k) = rm.joints[j as usize].servo {
                    w.data.robots[r as usize].servo[k] = t;
                }
            }
        }
        if let Some(s) = slot {
            let c = &mut self.ctrl[s];
            c.last_seq = inp.seq;
            c.client_ns = inp.client_time_ns;
            c.recv_ns = inp.recv_ns;
            c.apply_tick = tick;
            c.apply_ns = now;
            c.commands += 1;
            c.last_cmd_ns = inp.recv_ns.max(c.last_cmd_ns);
            c.tripped = false;
            c.delivered = true;
            c.hist.saturating_record((now - inp.recv_ns).max(1) as u64);
        }
        self.dirty = true;
        if let Some(r) = inp.reply.take() {
            let _ = r.send(Ok(Applied {
                tick,
                time: self.w.data.time,
                gen: self.w.gen,
                frame: self.w.ring.head(),
            }));
        }
        self.trash_input(inp);
    }

    fn watchdog(&mut self, now: i64) {
        let tick = self.w.data.tick;
        let w = &mut *self.w;
        for (h, spec) in w.haptic.iter_mut().zip(&w.model.haptics) {
            h.watchdog(spec, now, tick);
        }
        for i in 0..self.ctrl.len() {
            let c = &mut self.ctrl[i];
            if c.stream_id != 0
                && c.watchdog_ns > 0
                && !c.tripped
                && now - c.last_cmd_ns > c.watchdog_ns
            {
                c.tripped = true;
                c.trips += 1;
                c.delivered = false;
                if c.behavior == SafeBehavior::Zero {
                    self.w.ctrl[i].iter_mut().for_each(|e| *e = None);
                }
                if c.behavior != SafeBehavior::Hold {
                    release_joints(&mut self.w.data);
                }
                self.dirty = true;
            }
        }
    }

    /// `data.xfrc` composed now, outside a step (a frame published between ticks
    /// shows the wrenches in force).
    fn compose(&mut self) {
        let damping = self.sh.cfg.watchdog.damping;
        let World {
            model,
            data,
            unary,
            ctrl: sources,
            ..
        } = &mut *self.w;
        compose_inputs(model, data, unary, sources, &self.ctrl, damping);
    }

    /// Publish at once (between ticks), so that a reply sent after it is never
    /// ahead of the published state: a GetState issued after an acknowledged
    /// Pause, Resume or SetMode sees the new flags.
    fn publish_now(&mut self) {
        self.compose();
        self.publish();
    }

    /// Write the current state into the ring and wake the subscribers that want it.
    fn publish(&mut self) {
        self.dirty = false;
        let w = &*self.w;
        let d = &w.data;
        let flags = (self.paused as u64)
            | ((self.faulted as u64) << 1)
            | ((mode_code(self.mode) as u64) << 8);
        let nb = w.ring.nbody.min(d.state.len());
        let ctrl = &self.ctrl;
        let gen = w.gen;
        let model = &*w.model;
        let lay = w.ring.layout;
        let f = w.ring.publish(|fw| {
            fw.u(hdr::TICK, d.tick);
            fw.f(hdr::TIME, d.time);
            fw.u(hdr::MONO_NS, mono_ns() as u64);
            fw.u(hdr::FLAGS, flags);
            fw.u(hdr::GEN, gen);
            for b in 0..nb {
                let base = hdr::LEN + b * body::LEN;
                let s = &d.state[b];
                for k in 0..3 {
                    fw.f(base + body::X + k, s.x[k]);
                    fw.f(base + body::V + k, s.v[k]);
                    fw.f(base + body::W + k, s.w[k]);
                    fw.f(base + body::F + k, d.xfrc[b].force[k]);
                    fw.f(base + body::T + k, d.xfrc[b].torque[k]);
                }
                fw.f(base + body::Q, s.q.w);
                fw.f(base + body::Q + 1, s.q.i);
                fw.f(base + body::Q + 2, s.q.j);
                fw.f(base + body::Q + 3, s.q.k);
                fw.u(
                    base + body::FROZEN,
                    d.frozen[b] as u64 | (d.asleep[b] as u64) << 1,
                );
            }
            let abase = hdr::LEN + w.ring.nbody * body::LEN;
            for (i, c) in ctrl.iter().enumerate().take(w.ring.nctrl) {
                let a = abase + i * ack::LEN;
                fw.u(a + ack::STREAM_ID, c.stream_id);
                if c.stream_id == 0 {
                    continue;
                }
                fw.u(a + ack::SEQ, c.last_seq);
                fw.u(a + ack::APPLY_TICK, c.apply_tick);
                fw.u(a + ack::CLIENT_NS, c.client_ns as u64);
                fw.u(a + ack::RECV_NS, c.recv_ns as u64);
                fw.u(a + ack::APPLY_NS, c.apply_ns as u64);
                fw.u(a + ack::COMMANDS, c.commands);
                let fl = (c.tripped as u64)
                    | (((c.watchdog_ns > 0) as u64) << 1)
                    | ((behavior_code(c.behavior) as u64) << 8);
                fw.u(a + ack::FLAGS, fl);
                fw.u(a + ack::TRIPS, c.trips);
                fw.u(a + ack::TIMEOUT_NS, c.watchdog_ns.max(0) as u64);
            }
            publish_robots(fw, &lay, model, d);
        });
        self.sh.tick.store(d.tick, Ordering::Relaxed);
        self.sh.time_bits.store(d.time.to_bits(), Ordering::Relaxed);
        for s in self.sh.subscribers.iter() {
            if s.in_use.load(Ordering::SeqCst) && f >= s.next_wake.load(Ordering::SeqCst) {
                s.waker.wake();
            }
        }
    }

    fn status(&self) -> RunStatus {
        RunStatus {
            mode: self.mode,
            paused: self.paused,
            rate_hz: self.rtf / self.w.model.opt.dt,
            realtime_factor: self.rtf,
            tick: self.w.data.tick,
            time: self.w.data.time,
        }
    }

    fn applied(&self) -> Applied {
        Applied {
            tick: self.w.data.tick,
            time: self.w.data.time,
            gen: self.w.gen,
            frame: self.w.ring.head().saturating_sub(1),
        }
    }

    fn store_status(&self) {
        self.sh.mode.store(mode_code(self.mode), Ordering::SeqCst);
        self.sh.paused.store(self.paused, Ordering::SeqCst);
        self.sh.rtf_bits.store(self.rtf.to_bits(), Ordering::SeqCst);
    }

    fn reply_step_waiters(&mut self) {
        let done = self.steps_done;
        let a = self.applied();
        let mut i = 0;
        while i < self.step_waiters.len() {
            if self.step_waiters[i].0 <= done {
                let (_, _, r) = self.step_waiters.swap_remove(i);
                let _ = r.send(Ok(a));
            } else {
                i += 1;
            }
        }
    }

    fn abort_steps(&mut self, why: &str) {
        self.steps_requested = self.steps_done;
        for (_, _, r) in self.step_waiters.drain(..) {
            let _ = r.send(Err(SimError::FailedPrecondition(why.to_string())));
        }
    }

    fn admin(&mut self, a: Admin) {
        match a {
            Admin::Step { n, reply } => {
                let Some(reply) = self.refuse_faulted(reply) else {
                    return;
                };
                if !self.paused && self.mode != Mode::Lockstep {
                    let _ = reply.send(Err(SimError::FailedPrecondition(format!(
                        "Step needs lockstep mode or a paused world (mode is {}, running)",
                        self.mode.name()
                    ))));
                } else if self.step_waiters.len() == self.step_waiters.capacity() {
                    let _ = reply.send(Err(SimError::ResourceExhausted(
                        "too many Step calls in progress".into(),
                    )));
                } else {
                    self.steps_requested += n;
                    self.step_waiters.push((self.steps_requested, n, reply));
                }
            }
            Admin::Pause(reply) => {
                self.paused = true;
                self.store_status();
                self.publish_now();
                let _ = reply.send(Ok(self.status()));
            }
            Admin::Resume(reply) => {
                let Some(reply) = self.refuse_faulted(reply) else {
                    return;
                };
                if self.paused {
                    self.paused = false;
                    if self.mode != Mode::Lockstep {
                        self.abort_steps("interrupted by Resume");
                    }
                    self.reanchor();
                    self.store_status();
                    self.publish_now();
                }
                let _ = reply.send(Ok(self.status()));
            }
            Admin::SetMode {
                mode,
                realtime_factor,
                reply,
            } => {
                if let Some(m) = mode {
                    self.mode = m;
                    if m != Mode::Lockstep && !self.paused {
                        self.abort_steps("interrupted by SetMode");
                    }
                }
                if let Some(r) = realtime_factor {
                    self.rtf = r;
                }
                self.reanchor();
                self.store_status();
                self.publish_now();
                let _ = reply.send(Ok(self.status()));
            }
            Admin::Reset(reply) => {
                if let Some(r) = &mut self.rec {
                    r.record_reset(&self.w.data);
                }
                let w = &mut *self.w;
                w.data.reset(&w.model);
                if let Some(r) = &mut self.rec {
                    r.after_reset(&w.data);
                }
                w.unary.iter_mut().for_each(|e| *e = None);
                for t in w.ctrl.iter_mut() {
                    t.iter_mut().for_each(|e| *e = None);
                }
                reset_haptics(w);
                self.clear_fault();
                self.compose();
                self.publish();
                let _ = reply.send(Ok(self.applied()));
            }
            Admin::Save { mut into, reply } => {
                into.fill_from(&self.w);
                if let Err(Ok(b)) = reply.send(Ok(into)) {
                    self.trash(Trash::Saved(b));
                }
            }
            Admin::Restore { from, reply } => {
                if from.gen != self.w.gen {
                    let _ = reply.send(Err(SimError::FailedPrecondition(format!(
                        "snapshot belongs to world generation {}, the world is generation {}",
                        from.gen, self.w.gen
                    ))));
                } else if !self.w.data.restore(&from.snap) || from.unary.len() != self.w.unary.len()
                {
                    let _ = reply.send(Err(SimError::FailedPrecondition(
                        "snapshot does not match this world's size".into(),
                    )));
                } else {
                    self.end_recording(EndReason::Restored);
                    self.w.unary.copy_from_slice(&from.unary);
                    self.compose();
                    self.publish();
                    let _ = reply.send(Ok(self.applied()));
                }
                self.trash(Trash::Saved(from));
            }
            Admin::Load { mut world, reply } => {
                self.end_recording(EndReason::SceneLoaded);
                std::mem::swap(&mut self.w, &mut world);
                // `world` now holds the old one.
                world.ring.retire();
                self.sh.set_world(Arc::new(WorldView {
                    gen: self.w.gen,
                    name: self.w.name.clone(),
                    model: self.w.model.clone(),
                    ring: self.w.ring.clone(),
                }));
                for c in self.ctrl.iter_mut() {
                    c.delivered = false;
                }
                self.abort_steps("interrupted by LoadScene");
                self.clear_fault();
                self.reanchor();
                self.compose();
                self.publish();
                self.sh.wake_all_subscribers();
                let a = self.applied();
                if let Err(Ok((_, old))) = reply.send(Ok((a, world))) {
                    self.trash(Trash::World(old));
                }
            }
            Admin::StartRecording { mut rec, reply } => {
                if self.rec.is_some() {
                    let _ = reply.send(Err(SimError::FailedPrecondition(
                        "already recording".into(),
                    )));
                    self.trash(Trash::Recording(rec));
                } else if rec.gen != self.w.gen {
                    let _ = reply.send(Err(SimError::FailedPrecondition(
                        "the world changed while the recording was prepared; try again".into(),
                    )));
                    self.trash(Trash::Recording(rec));
                } else {
                    // The log replays from the scene: start from its initial state.
                    let w = &mut *self.w;
                    w.data.reset(&w.model);
                    w.unary.iter_mut().for_each(|e| *e = None);
                    for t in w.ctrl.iter_mut() {
                        t.iter_mut().for_each(|e| *e = None);
                    }
                    reset_haptics(w);
                    rec.after_reset(&w.data);
                    self.rec = Some(rec);
                    self.compose();
                    self.publish();
                    let _ = reply.send(Ok(self.w.data.tick));
                }
            }
            Admin::StopRecording(reply) => {
                if self.rec.is_some() {
                    self.end_recording(EndReason::Stopped);
                    let _ = reply.send(Ok(self.w.data.tick));
                } else {
                    let _ = reply.send(Err(SimError::FailedPrecondition("not recording".into())));
                }
            }
            Admin::Stats {
                mut buf,
                reset,
                reply,
            } => {
                self.fill_stats(&mut buf);
                if reset {
                    self.reset_stats();
                }
                let _ = reply.send(buf);
            }
        }
    }

    fn fill_stats(&self, s: &mut super::stats::StatsBuf) {
        let d = &self.w.data;
        s.mode = self.mode;
        s.paused = self.paused;
        s.tick = d.tick;
        s.time = d.time;
        s.uptime_s = self.sh.started.elapsed().as_secs_f64();
        s.rate_hz = self.rtf / self.w.model.opt.dt;
        s.rtf_target = self.rtf;
        s.rtf_recent = self.rtf_recent;
        let wall = self.stats_since.elapsed().as_nanos() as f64 - self.paused_ns as f64;
        s.rtf_total = if wall > 0.0 {
            self.sim_advanced / (wall * 1e-9)
        } else {
            0.0
        };
        copy_hist(&mut s.compute, &self.compute);
        copy_hist(&mut s.lateness, &self.lateness);
        s.overruns = self.overruns;
        s.skipped = self.skipped;
        s.stale_commands = self.stale;
        s.ticks = self.ticks;
        for (dst, c) in s.ctrl.iter_mut().zip(&self.ctrl) {
            dst.stream_id = c.stream_id;
            dst.lockstep = c.lockstep;
            dst.commands = c.commands;
            dst.tripped = c.tripped;
            dst.trips = c.trips;
            dst.watchdog_ns = c.watchdog_ns;
            dst.behavior = c.behavior;
            copy_hist(&mut dst.receive_to_apply, &c.hist);
        }
        s.stage_mean_ns.clear();
        let n = (d.tick.max(1)) as f64;
        for st in crate::data::Stage::ALL {
            s.stage_mean_ns
                .push((st.name(), d.stats.stage_ns_total[st as usize] as f64 / n));
        }
        s.contact_points = d.stats.contact_points as u64;
        s.max_penetration = d.stats.max_penetration;
        s.quarantined = d.stats.quarantined;
        s.sleeping = d.stats.sleeping as u64;
        s.kinetic_energy = d.kinetic_energy(&self.w.model);
        s.solver = crate::runtime::stats::SolverStats {
            lcp_size: d.stats.lcp_size,
            solver_iterations: d.stats.solver_iterations,
            solver_residual: d.stats.solver_residual,
            solver_failures: d.stats.solver_failures,
            solver_fallbacks: d.stats.solver_fallbacks,
            solver_unconverged: d.stats.solver_unconverged,
            newton_factorizations: d.stats.newton_factorizations,
            newton_cholesky: d.stats.newton_cholesky,
            robot_contact_rows: d.stats.robot_contact_rows,
            robot_contact_passes: d.stats.robot_contact_passes,
            robot_contact_failures: d.stats.robot_contact_failures,
        };
    }

    fn reset_stats(&mut self) {
        self.compute.reset();
        self.lateness.reset();
        self.overruns = 0;
        self.skipped = 0;
        self.stale = 0;
        self.ticks = 0;
        self.sim_advanced = 0.0;
        self.stats_since = Instant::now();
        self.paused_ns = 0;
        for c in self.ctrl.iter_mut() {
            c.hist.reset();
        }
    }

    /// End the recording in progress (if any): the writer finishes the file.
    fn end_recording(&mut self, why: EndReason) {
        if let Some(r) = self.rec.take() {
            r.end(&self.w.model, &self.w.data, why);
            self.trash(Trash::Recording(r));
        }
    }

    /// Shutdown: fail whatever still waits.
    fn finish(&mut self) {
        self.end_recording(EndReason::Shutdown);
        self.abort_steps("server is shutting down");
        while let Some(inp) = self.sh.inputs.pop() {
            let mut inp = inp;
            if let Some(r) = inp.reply.take() {
                let _ = r.send(Err(SimError::Unavailable("server is shutting down".into())));
            }
        }
        while let Some(a) = self.sh.admin.pop() {
            let err = || SimError::Unavailable("server is shutting down".into());
            match a {
                Admin::Step { reply, .. } | Admin::Reset(reply) | Admin::Restore { reply, .. } => {
                    let _ = reply.send(Err(err()));
                }
                Admin::Pause(r) | Admin::Resume(r) | Admin::SetMode { reply: r, .. } => {
                    let _ = r.send(Err(err()));
                }
                Admin::Save { reply, .. } => {
                    let _ = reply.send(Err(err()));
                }
                Admin::Load { reply, .. } => {
                    let _ = reply.send(Err(err()));
                }
                Admin::Stats { buf, reply, .. } => {
                    let _ = reply.send(buf);
                }
                Admin::StartRecording { reply, .. } | Admin::StopRecording(reply) => {
                    let _ = reply.send(Err(err()));
                }
            }
        }
        self.sh.wake_all_subscribers();
    }
}

/// The step's inputs (`pipeline::Inputs`): `data.xfrc` = sum over the sources
/// (ApplyWrench and every controller slot); expired wrenches removed; the safe
/// behaviour of a tripped controller applied.
pub(crate) fn compose_inputs<S: SlotView>(
    model: &Model,
    data: &mut Data,
    unary: &mut [Option<SourceWrench>],
    sources: &mut [Vec<Option<SourceWrench>>],
    slots: &[S],
    damping: f64,
) {
    let tick = data.tick;
    for x in data.xfrc.iter_mut() {
        *x = Wrench::ZERO;
    }
    for (b, e) in unary.iter_mut().enumerate() {
        if let Some(sw) = e {
            if tick >= sw.until_tick {
                *e = None;
            } else {
                data.xfrc[b] += sw.world(&data.state[b]);
            }
        }
    }
    for (slot, c) in slots.iter().enumerate() {
        let c = c.slot_state();
        if !c.open {
            continue;
        }
        for (b, e) in sources[slot].iter_mut().enumerate() {
            let Some(sw) = e else { continue };
            if tick >= sw.until_tick {
                *e = None;
                continue;
            }
            let s = &data.state[b];
            if !c.tripped || c.behavior == SafeBehavior::Hold {
                data.xfrc[b] += sw.world(s);
            } else if c.behavior == SafeBehavior::Damp && model.bodies[b].kind == BodyKind::Free {
                let body = &model.bodies[b];
                let r = s.q.to_rotation_matrix();
                let i_w = r.matrix() * body.inertia * r.matrix().transpose();
                data.xfrc[b] += Wrench {
                    force: -damping * body.mass * s.v,
                    torque: -damping * (i_w * s.w),
                };
            }
        }
    }
}

/// Reset: each device holds its tool at the scene pose again (a connected stream
/// stays connected; its next sample moves the target).
fn reset_haptics(w: &mut World) {
    for (h, spec) in w.haptic.iter_mut().zip(&w.model.haptics) {
        let connected = h.connected;
        *h = HapticState::new(spec, &w.model);
        h.connected = connected;
    }
}

/// A controller stream that closed or whose watchdog tripped (other than "hold")
/// leaves the robots unactuated: joint efforts zero, servos disabled. (Joint
/// commands form one table shared by all sources, unlike wrenches.)
fn release_joints(d: &mut Data) {
    d.qfrc_cmd.iter_mut().for_each(|t| *t = 0.0);
    for r in &mut d.robots {
        r.servo.iter_mut().for_each(|s| s.enabled = false);
    }
}

/// The robot and contact sections of a frame: joints, frames, sensors, contacts.
fn publish_robots(fw: &FrameWriter<'_>, lay: &Layout, model: &Model, d: &Data) {
    for (id, &(r, j)) in model.joint_ids.iter().enumerate().take(lay.njoint) {
        let rm = &model.robots[r as usize];
        let jt = &rm.joints[j as usize];
        let (qi, vi) = (rm.q_offset + jt.qi, rm.v_offset + jt.vi);
        let base = lay.joint_base(id);
        fw.f(base + joint::Q, d.qpos[qi]);
        fw.f(base + joint::QD, d.qvel[vi]);
        fw.f(base + joint::EFFORT, d.qfrc_actuator[vi]);
        fw.f(base + joint::PASSIVE, d.qfrc_passive[vi]);
        fw.f(base + joint::QACC, d.qacc[vi]);
    }
    for (id, &(r, f)) in model.frame_ids.iter().enumerate().take(lay.nframe) {
        let s = crate::kinematics::frame_state(model, &d.robots, r as usize, f as usize);
        let base = lay.frame_base(id);
        for k in 0..3 {
            fw.f(base + frame::X + k, s.x[k]);
            fw.f(base + frame::V + k, s.v[k]);
            fw.f(base + frame::W + k, s.w[k]);
        }
        fw.f(base + frame::Q, s.q.w);
        fw.f(base + frame::Q + 1, s.q.i);
        fw.f(base + frame::Q + 2, s.q.j);
        fw.f(base + frame::Q + 3, s.q.k);
    }
    for (id, &(r, k)) in model.sensor_ids.iter().enumerate().take(lay.nsensor) {
        let rd = &d.robots[r as usize];
        let vals: [f64; 6] = match k {
            SensorKind::ForceTorque(i) => {
                let f = &rd.ft[i as usize];
                [f.ang.x, f.ang.y, f.ang.z, f.lin.x, f.lin.y, f.lin.z]
            }
            SensorKind::Imu(i) => {
                let m = &rd.imu[i as usize];
                [
                    m.accel.x, m.accel.y, m.accel.z, m.gyro.x, m.gyro.y, m.gyro.z,
                ]
            }
        };
        let base = lay.sensor_base(id);
        for (k, v) in vals.iter().enumerate() {
            fw.f(base + k, *v);
        }
    }
    let set = &d.contacts;
    let n = set.manifolds.len().min(lay.ncontact);
    let cb = lay.contacts_base();
    fw.u(cb + contact::COUNT, n as u64);
    fw.u(cb + contact::DROPPED, (set.manifolds.len() - n) as u64);
    for (c, m) in set.manifolds.iter().enumerate().take(n) {
        let base = lay.contact_base(c);
        let pts = set.points_of(m);
        let mut p = crate::math::Vec3::zeros();
        for pt in pts {
            p += pt.p_w;
        }
        p /= pts.len().max(1) as f64;
        let force = d.contact_force.get(c).copied().unwrap_or_default();
        fw.u(base + contact::BODY_A, model.geoms[m.geom_a].body as u64);
        fw.u(base + contact::BODY_B, model.geoms[m.geom_b].body as u64);
        for k in 0..3 {
            fw.f(base + contact::P + k, p[k]);
            fw.f(base + contact::N + k, m.normal[k]);
            fw.f(base + contact::F + k, force[k]);
        }
        fw.f(base + contact::DEPTH, m.max_depth(set));
    }
}
