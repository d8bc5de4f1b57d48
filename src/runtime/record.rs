//! Command-log recording and offline replay.
//!
//! While a recording is on, the physics thread compares, just before each step, the
//! inputs the step will see — every source's wrench table, the controller slots'
//! state as the composition reads it (open, watchdog tripped, safe behaviour), the
//! joint efforts and servo set-points — with a mirror of what it last recorded, and
//! pushes each difference as a fixed-size [`Record`] tagged with the tick into a
//! preallocated lock-free queue (`ArrayQueue`, no allocation, never waits: a full
//! queue counts the record as lost and the log is marked incomplete). A writer thread
//! (`rtphys-record`) drains the queue into the file. `rtphys replay SCENE LOG`
//! rebuilds the world from the scene, applies the records at their ticks through the
//! same composition code and steps: the final state is bit-identical (the log's end
//! record carries the server's state hash, which replay checks).
//!
//! Log format (little endian), version 1:
//!
//! ```text
//! header  "RTPHYSIN" (8 bytes), version u32 = 1, scene fingerprint u64,
//!         dt f64, watchdog.damping f64, nbody u32, nctrl u32, nv u32, nservo u32,
//!         scene name: u32 length + UTF-8 bytes
//! record  tag u8, tick u64, payload:
//!   1 Set    src u32 (u32::MAX = ApplyWrench table, else controller slot), body u32,
//!            force 3×f64, torque 3×f64, frame u8 (0 world, 1 body), has_point u8,
//!            point (body frame, from the COM) 3×f64, until_tick u64
//!   2 Clear  src u32, body u32
//!   3 Effort dof u32, value f64                        (Data::qfrc_cmd)
//!   4 Servo  robot u32, servo u32, enabled u8, position f64, velocity f64, torque f64
//!   5 Slot   slot u32, open u8, tripped u8, behaviour u8 (1 zero, 2 hold, 3 damp)
//!   6 Reset  (Data::reset and every wrench table emptied)
//! end     tag 0xFF, tick u64 (the world's tick when recording ended), state hash u64,
//!         records u64, lost u64, reason u8 (1 stopped, 2 shutdown, 3 scene loaded,
//!         4 snapshot restored, 5 physics fault)
//! ```
//!
//! A record with tick t applies at the tick boundary t (before the step t → t+1).
//! The recording starts from the scene's initial state (the world is reset when it
//! starts), so a log and its scene are all a replay needs.

use super::command::{SourceWrench, WrenchFrame};
use super::error::SimError;
use super::world::World;
use crate::config::SafeBehavior;
use crate::data::{Data, ServoTarget};
use crate::math::Vec3;
use crate::model::Model;
use crossbeam::queue::ArrayQueue;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;

pub const MAGIC: &[u8; 8] = b"RTPHYSIN";
pub const VERSION: u32 = 1;
/// Records the queue holds between the physics thread and the writer.
pub const QUEUE_RECORDS: usize = 1 << 16;
/// `src` of the ApplyWrench table.
pub const UNARY: u32 = u32::MAX;
/// `body` of a Clear that empties the whole table.
pub const ALL: u32 = u32::MAX;

const TAG_SET: u8 = 1;
const TAG_CLEAR: u8 = 2;
const TAG_EFFORT: u8 = 3;
const TAG_SERVO: u8 = 4;
const TAG_SLOT: u8 = 5;
const TAG_RESET: u8 = 6;
const TAG_END: u8 = 0xFF;

/// Why a recording ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    Stopped = 1,
    Shutdown = 2,
    SceneLoaded = 3,
    Restored = 4,
    Fault = 5,
}

impl EndReason {
    fn from_u8(c: u8) -> Option<EndReason> {
        Some(match c {
            1 => EndReason::Stopped,
            2 => EndReason::Shutdown,
            3 => EndReason::SceneLoaded,
            4 => EndReason::Restored,
            5 => EndReason::Fault,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Stopped => "stopped",
            EndReason::Shutdown => "server shut down",
            EndReason::SceneLoaded => "a scene was loaded",
            EndReason::Restored => "a snapshot was restored",
            EndReason::Fault => "the physics faulted",
        }
    }
}

/// One change of the step's inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event {
    Set {
        src: u32,
        body: u32,
        w: SourceWrench,
    },
    Clear {
        src: u32,
        body: u32,
    },
    Effort {
        dof: u32,
        value: f64,
    },
    Servo {
        robot: u32,
        servo: u32,
        t: ServoTarget,
    },
    Slot {
        slot: u32,
        slot_state: SlotState,
    },
    Reset,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Record {
    pub tick: u64,
    pub ev: Event,
}

/// A controller slot as the composition of the inputs reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotState {
    pub open: bool,
    pub tripped: bool,
    pub behavior: SafeBehavior,
}

/// What the composition of the inputs needs of a controller slot.
pub trait SlotView {
    fn slot_state(&self) -> SlotState;
}

impl SlotView for SlotState {
    #[inline]
    fn slot_state(&self) -> SlotState {
        *self
    }
}

impl Default for SlotState {
    fn default() -> Self {
        SlotState {
            open: false,
            tripped: false,
            behavior: SafeBehavior::Zero,
        }
    }
}

// ---------------------------------------------------------------- hashes

/// FNV-1a over 64-bit words.
#[derive(Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    pub fn u(&mut self, x: u64) {
        for b in x.to_le_bytes() {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    pub fn f(&mut self, x: f64) {
        self.u(x.to_bits());
    }
    pub fn finish(self) -> u64 {
        self.0
    }
}

/// The state hash: tick, time, then per body x (3), q (w, x, y, z), v (3), ω (3),
/// then per joint (dense id order) position and velocity — every f64 by its bits.
/// The same numbers a `State` carries, so a client computes it from a `GetState`
/// (`server::convert::state_hash`).
pub fn state_hash(model: &Model, d: &Data) -> u64 {
    let mut h = Fnv::default();
    h.u(d.tick);
    h.f(d.time);
    for s in &d.state {
        for k in 0..3 {
            h.f(s.x[k]);
        }
        for c in [s.q.w, s.q.i, s.q.j, s.q.k] {
            h.f(c);
        }
        for k in 0..3 {
            h.f(s.v[k]);
        }
        for k in 0..3 {
            h.f(s.w[k]);
        }
    }
    for &(r, j) in &model.joint_ids {
        let rm = &model.robots[r as usize];
        let jt = &rm.joints[j as usize];
        h.f(d.qpos[rm.q_offset + jt.qi]);
        h.f(d.qvel[rm.v_offset + jt.vi]);
    }
    h.finish()
}

/// What identifies a scene for replay: step, gravity, sizes, every body's mass,
/// inertia and initial pose and velocity, the method and integrator.
pub fn model_fingerprint(model: &Model) -> u64 {
    let mut h = Fnv::default();
    let o = &model.opt;
    h.f(o.dt);
    for k in 0..3 {
        h.f(o.gravity[k]);
    }
    h.f(o.max_abs_state);
    // Sleeping changes trajectories; hashed only when on (older recordings keep
    // their fingerprint).
    if o.sleep.enabled {
        h.f(o.sleep.rest_time);
        h.f(o.sleep.v_rest);
        h.f(o.sleep.w_rest);
    }
    for b in format!("{:?}{:?}", o.method, o.integrator).bytes() {
        h.u(b as u64);
    }
    h.u(model.nbody() as u64);
    h.u(model.ngeom() as u64);
    h.u(model.nq as u64);
    h.u(model.nv as u64);
    for b in &model.bodies {
        h.f(b.mass);
        for x in b.inertia.iter() {
            h.f(*x);
        }
        let t = b.pose0.translation.vector;
        let q = b.pose0.rotation;
        for x in [t.x, t.y, t.z, q.w, q.i, q.j, q.k] {
            h.f(x);
        }
        for k in 0..3 {
            h.f(b.v0[k]);
            h.f(b.w0[k]);
        }
    }
    h.finish()
}

// ---------------------------------------------------------------- physics side

/// The queue between the physics thread and the writer, and how the recording ended.
pub struct RecQueue {
    pub(crate) queue: ArrayQueue<Record>,
    pub pushed: AtomicU64,
    pub lost: AtomicU64,
    pub ended: AtomicBool,
    pub end_tick: AtomicU64,
    pub end_hash: AtomicU64,
    pub end_reason: AtomicU8,
}

impl RecQueue {
    pub fn new(cap: usize) -> RecQueue {
        RecQueue {
            queue: ArrayQueue::new(cap),
            pushed: AtomicU64::new(0),
            lost: AtomicU64::new(0),
            ended: AtomicBool::new(false),
            end_tick: AtomicU64::new(0),
            end_hash: AtomicU64::new(0),
            end_reason: AtomicU8::new(0),
        }
    }
}

/// The physics thread's side of a recording: the queue and the mirror of the inputs
/// last recorded (sized from the model off the physics thread).
pub struct RecState {
    pub(crate) gen: u64,
    pub(crate) q: Arc<RecQueue>,
    unary: Vec<Option<SourceWrench>>,
    ctrl: Vec<Vec<Option<SourceWrench>>>,
    slots: Vec<SlotState>,
    qfrc: Vec<f64>,
    servo: Vec<Vec<ServoTarget>>,
}

impl RecState {
    pub fn new(gen: u64, model: &Model, nctrl: usize, q: Arc<RecQueue>) -> RecState {
        let nb = model.nbody();
        RecState {
            gen,
            q,
            unary: vec![None; nb],
            ctrl: vec![vec![None; nb]; nctrl],
            slots: vec![SlotState::default(); nctrl],
            qfrc: vec![0.0; model.nv],
            servo: model
                .robots
                .iter()
                .map(|r| vec![ServoTarget::default(); r.servos.len()])
                .collect(),
        }
    }

    /// The world was reset (or the recording starts): tables empty, robots at the
    /// data's reset values, slots as they were.
    pub fn after_reset(&mut self, d: &Data) {
        self.unary.iter_mut().for_each(|e| *e = None);
        for t in self.ctrl.iter_mut() {
            t.iter_mut().for_each(|e| *e = None);
        }
        self.qfrc.copy_from_slice(&d.qfrc_cmd);
        for (m, r) in self.servo.iter_mut().zip(&d.robots) {
            m.copy_from_slice(&r.servo);
        }
    }

    pub fn record_reset(&mut self, d: &Data) {
        push(&self.q, d.tick, Event::Reset);
    }

    /// Record every difference between the inputs the next step sees and the mirror.
    pub fn diff(&mut self, w: &World, slots: impl Iterator<Item = SlotState>) {
        let tick = w.data.tick;
        for (i, s) in slots.enumerate().take(self.slots.len()) {
            if self.slots[i] != s {
                self.slots[i] = s;
                push(
                    &self.q,
                    tick,
                    Event::Slot {
                        slot: i as u32,
                        slot_state: s,
                    },
                );
            }
        }
        diff_table(&mut self.unary, &w.unary, UNARY, tick, &self.q);
        for (i, (m, t)) in self.ctrl.iter_mut().zip(&w.ctrl).enumerate() {
            diff_table(m, t, i as u32, tick, &self.q);
        }
        for (i, (m, v)) in self.qfrc.iter_mut().zip(&w.data.qfrc_cmd).enumerate() {
            if m.to_bits() != v.to_bits() {
                *m = *v;
                push(
                    &self.q,
                    tick,
                    Event::Effort {
                        dof: i as u32,
                        value: *v,
                    },
                );
            }
        }
        for r in 0..self.servo.len().min(w.data.robots.len()) {
            for k in 0..self.servo[r].len().min(w.data.robots[r].servo.len()) {
                let t = w.data.robots[r].servo[k];
                if !servo_eq(&self.servo[r][k], &t) {
                    self.servo[r][k] = t;
                    push(
                        &self.q,
                        tick,
                        Event::Servo {
                            robot: r as u32,
                            servo: k as u32,
                            t,
                        },
                    );
                }
            }
        }
    }

    /// End the recording: the writer finishes the file with this tick and hash.
    pub fn end(&self, model: &Model, d: &Data, why: EndReason) {
        self.q.end_tick.store(d.tick, Ordering::SeqCst);
        self.q
            .end_hash
            .store(state_hash(model, d), Ordering::SeqCst);
        self.q.end_reason.store(why as u8, Ordering::SeqCst);
        self.q.ended.store(true, Ordering::SeqCst);
    }
}

fn servo_eq(a: &ServoTarget, b: &ServoTarget) -> bool {
    a.enabled == b.enabled
        && a.position.to_bits() == b.position.to_bits()
        && a.velocity.to_bits() == b.velocity.to_bits()
        && a.torque.to_bits() == b.torque.to_bits()
}

fn sw_eq(a: &SourceWrench, b: &SourceWrench) -> bool {
    let v = |x: &Vec3, y: &Vec3| (0..3).all(|k| x[k].to_bits() == y[k].to_bits());
    v(&a.force, &b.force)
        && v(&a.torque, &b.torque)
        && a.frame == b.frame
        && a.until_tick == b.until_tick
        && match (&a.point_b, &b.point_b) {
            (None, None) => true,
            (Some(x), Some(y)) => v(x, y),
            _ => false,
        }
}

fn diff_table(
    mirror: &mut [Option<SourceWrench>],
    now: &[Option<SourceWrench>],
    src: u32,
    tick: u64,
    q: &RecQueue,
) {
    for (b, (m, n)) in mirror.iter_mut().zip(now).enumerate() {
        let same = match (&*m, n) {
            (None, None) => true,
            (Some(x), Some(y)) => sw_eq(x, y),
            _ => false,
        };
        if same {
            continue;
        }
        *m = *n;
        let ev = match n {
            Some(w) => Event::Set {
                src,
                body: b as u32,
                w: *w,
            },
            None => Event::Clear {
                src,
                body: b as u32,
            },
        };
        push(q, tick, ev);
    }
}

/// Queue a record; a full queue counts it as lost (never waits).
fn push(q: &RecQueue, tick: u64, ev: Event) {
    if q.queue.push(Record { tick, ev }).is_ok() {
        q.pushed.fetch_add(1, Ordering::Relaxed);
    } else {
        q.lost.fetch_add(1, Ordering::Relaxed);
    }
}

// ---------------------------------------------------------------- file format

/// The log's header.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub fingerprint: u64,
    pub dt: f64,
    pub damping: f64,
    pub nbody: u32,
    pub nctrl: u32,
    pub nv: u32,
    pub nservo: u32,
    pub scene: String,
}

impl Header {
    pub fn for_model(model: &Model, nctrl: usize, damping: f64, scene: &str) -> Header {
        Header {
            fingerprint: model_fingerprint(model),
            dt: model.opt.dt,
            damping,
            nbody: model.nbody() as u32,
            nctrl: nctrl as u32,
            nv: model.nv as u32,
            nservo: model.robots.iter().map(|r| r.servos.len()).sum::<usize>() as u32,
            scene: scene.chars().take(1024).collect(),
        }
    }

    pub fn write(&self, w: &mut impl Write) -> std::io::Result<()> {
        w.write_all(MAGIC)?;
        w.write_all(&VERSION.to_le_bytes())?;
        w.write_all(&self.fingerprint.to_le_bytes())?;
        w.write_all(&self.dt.to_le_bytes())?;
        w.write_all(&self.damping.to_le_bytes())?;
        for x in [self.nbody, self.nctrl, self.nv, self.nservo] {
            w.write_all(&x.to_le_bytes())?;
        }
        w.write_all(&(self.scene.len() as u32).to_le_bytes())?;
        w.write_all(self.scene.as_bytes())
    }
}

/// The end record.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Footer {
    pub tick: u64,
    pub hash: u64,
    pub records: u64,
    pub lost: u64,
    pub reason: EndReason,
}

fn put_u32(w: &mut impl Write, x: u32) -> std::io::Result<()> {
    w.write_all(&x.to_le_bytes())
}
fn put_u64(w: &mut impl Write, x: u64) -> std::io::Result<()> {
    w.write_all(&x.to_le_bytes())
}
fn put_f64(w: &mut impl Write, x: f64) -> std::io::Result<()> {
    w.write_all(&x.to_le_bytes())
}
fn put_v3(w: &mut impl Write, v: &Vec3) -> std::io::Result<()> {
    for k in 0..3 {
        put_f64(w, v[k])?;
    }
    Ok(())
}

pub fn encode(r: &Record, w: &mut impl Write) -> std::io::Result<()> {
    let tag = match r.ev {
        Event::Set { .. } => TAG_SET,
        Event::Clear { .. } => TAG_CLEAR,
        Event::Effort { .. } => TAG_EFFORT,
        Event::Servo { .. } => TAG_SERVO,
        Event::Slot { .. } => TAG_SLOT,
        Event::Reset => TAG_RESET,
    };
    w.write_all(&[tag])?;
    put_u64(w, r.tick)?;
    match r.ev {
        Event::Set { src, body, w: sw } => {
            put_u32(w, src)?;
            put_u32(w, body)?;
            put_v3(w, &sw.force)?;
            put_v3(w, &sw.torque)?;
            let frame = match sw.frame {
                WrenchFrame::World => 0u8,
                WrenchFrame::Body => 1,
            };
            w.write_all(&[frame, sw.point_b.is_some() as u8])?;
            put_v3(w, &sw.point_b.unwrap_or_else(Vec3::zeros))?;
            put_u64(w, sw.until_tick)
        }
        Event::Clear { src, body } => {
            put_u32(w, src)?;
            put_u32(w, body)
        }
        Event::Effort { dof, value } => {
            put_u32(w, dof)?;
            put_f64(w, value)
        }
        Event::Servo { robot, servo, t } => {
            put_u32(w, robot)?;
            put_u32(w, servo)?;
            w.write_all(&[t.enabled as u8])?;
            put_f64(w, t.position)?;
            put_f64(w, t.velocity)?;
            put_f64(w, t.torque)
        }
        Event::Slot { slot, slot_state } => {
            put_u32(w, slot)?;
            w.write_all(&[
                slot_state.open as u8,
                slot_state.tripped as u8,
                super::behavior_code(slot_state.behavior),
            ])
        }
        Event::Reset => Ok(()),
    }
}

pub fn write_footer(f: &Footer, w: &mut impl Write) -> std::io::Result<()> {
    w.write_all(&[TAG_END])?;
    put_u64(w, f.tick)?;
    put_u64(w, f.hash)?;
    put_u64(w, f.records)?;
    put_u64(w, f.lost)?;
    w.write_all(&[f.reason as u8])
}

/// A log being read: header, then records until the footer.
pub struct LogReader<R: Read> {
    r: R,
    path: String,
    pub offset: u64,
    pub header: Header,
}

/// What `LogReader::next` found.
pub enum Item {
    Record(Record),
    End(Footer),
    /// The file ends without an end record (the server was killed).
    Eof,
}

impl<R: Read> LogReader<R> {
    pub fn new(mut r: R, path: &str) -> anyhow::Result<Self> {
        let mut magic = [0u8; 8];
        r.read_exact(&mut magic)
            .map_err(|e| anyhow::anyhow!("{path}: not a command log (too short: {e})"))?;
        if &magic != MAGIC {
            anyhow::bail!("{path}: not a command log (magic {magic:?}, expected \"RTPHYSIN\")");
        }
        let mut me = LogReader {
            r,
            path: path.to_string(),
            offset: 8,
            header: Header {
                fingerprint: 0,
                dt: 0.0,
                damping: 0.0,
                nbody: 0,
                nctrl: 0,
                nv: 0,
                nservo: 0,
                scene: String::new(),
            },
        };
        let v = me.u32("version")?;
        if v != VERSION {
            anyhow::bail!("{path}: command log version {v}, this rtphys reads version {VERSION}");
        }
        me.header.fingerprint = me.u64("fingerprint")?;
        me.header.dt = me.f64("dt")?;
        me.header.damping = me.f64("damping")?;
        me.header.nbody = me.u32("nbody")?;
        me.header.nctrl = me.u32("nctrl")?;
        me.header.nv = me.u32("nv")?;
        me.header.nservo = me.u32("nservo")?;
        let n = me.u32("scene name length")?;
        if n > 1 << 16 {
            anyhow::bail!("{path}: header: scene name length {n} is not plausible");
        }
        let mut name = vec![0u8; n as usize];
        me.bytes(&mut name, "scene name")?;
        me.header.scene = String::from_utf8_lossy(&name).into_owned();
        Ok(me)
    }

    fn bytes(&mut self, b: &mut [u8], what: &str) -> anyhow::Result<()> {
        self.r
            .read_exact(b)
            .map_err(|e| anyhow::anyhow!("{}: byte {}: {what}: {e}", self.path, self.offset))?;
        self.offset += b.len() as u64;
        Ok(())
    }
    fn u8(&mut self, what: &str) -> anyhow::Result<u8> {
        let mut b = [0u8; 1];
        self.bytes(&mut b, what)?;
        Ok(b[0])
    }
    fn u32(&mut self, what: &str) -> anyhow::Result<u32> {
        let mut b = [0u8; 4];
        self.bytes(&mut b, what)?;
        Ok(u32::from_le_bytes(b))
    }
    fn u64(&mut self, what: &str) -> anyhow::Result<u64> {
        let mut b = [0u8; 8];
        self.bytes(&mut b, what)?;
        Ok(u64::from_le_bytes(b))
    }
    fn f64(&mut self, what: &str) -> anyhow::Result<f64> {
        Ok(f64::from_bits(self.u64(what)?))
    }
    fn v3(&mut self, what: &str) -> anyhow::Result<Vec3> {
        Ok(Vec3::new(self.f64(what)?, self.f64(what)?, self.f64(what)?))
    }

    pub fn next_item(&mut self) -> anyhow::Result<Item> {
        let mut tag = [0u8; 1];
        match self.r.read(&mut tag) {
            Ok(0) => return Ok(Item::Eof),
            Ok(_) => self.offset += 1,
            Err(e) => anyhow::bail!("{}: byte {}: {e}", self.path, self.offset),
        }
        let at = self.offset - 1;
        let tick = self.u64("tick")?;
        let ev = match tag[0] {
            TAG_SET => {
                let src = self.u32("src")?;
                let body = self.u32("body")?;
                let force = self.v3("force")?;
                let torque = self.v3("torque")?;
                let frame = match self.u8("frame")? {
                    0 => WrenchFrame::World,
                    1 => WrenchFrame::Body,
                    f => anyhow::bail!("{}: byte {at}: Set: frame {f} is not 0 or 1", self.path),
                };
                let has_point = self.u8("has_point")? != 0;
                let p = self.v3("point")?;
                let until_tick = self.u64("until_tick")?;
                Event::Set {
                    src,
                    body,
                    w: SourceWrench {
                        force,
                        torque,
                        frame,
                        point_b: has_point.then_some(p),
                        until_tick,
                    },
                }
            }
            TAG_CLEAR => Event::Clear {
                src: self.u32("src")?,
                body: self.u32("body")?,
            },
            TAG_EFFORT => Event::Effort {
                dof: self.u32("dof")?,
                value: self.f64("value")?,
            },
            TAG_SERVO => {
                let robot = self.u32("robot")?;
                let servo = self.u32("servo")?;
                let enabled = self.u8("enabled")? != 0;
                Event::Servo {
                    robot,
                    servo,
                    t: ServoTarget {
                        enabled,
                        position: self.f64("position")?,
                        velocity: self.f64("velocity")?,
                        torque: self.f64("torque")?,
                    },
                }
            }
            TAG_SLOT => {
                let slot = self.u32("slot")?;
                let open = self.u8("open")? != 0;
                let tripped = self.u8("tripped")? != 0;
                let behavior = super::behavior_from(self.u8("behaviour")?);
                Event::Slot {
                    slot,
                    slot_state: SlotState {
                        open,
                        tripped,
                        behavior,
                    },
                }
            }
            TAG_RESET => Event::Reset,
            TAG_END => {
                let hash = self.u64("hash")?;
                let records = self.u64("records")?;
                let lost = self.u64("lost")?;
                let r = self.u8("reason")?;
                let reason = EndReason::from_u8(r).ok_or_else(|| {
                    anyhow::anyhow!("{}: byte {at}: end: unknown reason {r}", self.path)
                })?;
                return Ok(Item::End(Footer {
                    tick,
                    hash,
                    records,
                    lost,
                    reason,
                }));
            }
            t => anyhow::bail!("{}: byte {at}: unknown record tag {t}", self.path),
        };
        Ok(Item::Record(Record { tick, ev }))
    }
}

// ---------------------------------------------------------------- writer

/// Drain `q` into `out` until the recording ends; then write the end record.
/// Returns the bytes written.
pub fn writer_loop(q: Arc<RecQueue>, out: std::fs::File, header: Header) -> std::io::Result<u64> {
    struct Count<W: Write>(W, u64);
    impl<W: Write> Write for Count<W> {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let n = self.0.write(b)?;
            self.1 += n as u64;
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            self.0.flush()
        }
    }
    let mut w = Count(BufWriter::with_capacity(1 << 16, out), 0);
    let mut result = header.write(&mut w);
    let mut last_flush = std::time::Instant::now();
    loop {
        let ended = q.ended.load(Ordering::SeqCst);
        let mut n = 0;
        while let Some(r) = q.queue.pop() {
            n += 1;
            if result.is_ok() {
                result = encode(&r, &mut w);
            }
        }
        if ended {
            break;
        }
        if last_flush.elapsed() > std::time::Duration::from_millis(100) {
            if result.is_ok() {
                result = w.flush();
            }
            last_flush = std::time::Instant::now();
        }
        if n == 0 {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
    result?;
    let reason =
        EndReason::from_u8(q.end_reason.load(Ordering::SeqCst)).unwrap_or(EndReason::Stopped);
    write_footer(
        &Footer {
            tick: q.end_tick.load(Ordering::SeqCst),
            hash: q.end_hash.load(Ordering::SeqCst),
            records: q.pushed.load(Ordering::SeqCst),
            lost: q.lost.load(Ordering::SeqCst),
            reason,
        },
        &mut w,
    )?;
    w.flush()?;
    w.0.get_ref().sync_all()?;
    Ok(w.1)
}

/// A recording in progress (kept in `Shared::recording`).
pub struct Active {
    pub path: PathBuf,
    pub q: Arc<RecQueue>,
    pub join: Option<std::thread::JoinHandle<std::io::Result<u64>>>,
}

/// What a finished recording wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct Finished {
    pub path: PathBuf,
    pub tick: u64,
    pub hash: u64,
    pub records: u64,
    pub lost: u64,
    pub bytes: u64,
    pub reason: EndReason,
}

impl Active {
    /// Wait for the writer (the recording must have ended).
    pub fn finish(mut self) -> Result<Finished, SimError> {
        let bytes = match self.join.take().map(|j| j.join()) {
            Some(Ok(Ok(b))) => b,
            Some(Ok(Err(e))) => {
                return Err(SimError::Unavailable(format!(
                    "writing the command log {}: {e}",
                    self.path.display()
                )))
            }
            _ => 0,
        };
        Ok(Finished {
            path: self.path.clone(),
            tick: self.q.end_tick.load(Ordering::SeqCst),
            hash: self.q.end_hash.load(Ordering::SeqCst),
            records: self.q.pushed.load(Ordering::SeqCst),
            lost: self.q.lost.load(Ordering::SeqCst),
            bytes,
            reason: EndReason::from_u8(self.q.end_reason.load(Ordering::SeqCst))
                .unwrap_or(EndReason::Stopped),
        })
    }
}

impl super::Runtime {
    /// Start recording into `path` (created, never overwritten). The world is reset
    /// first, so the log replays from the scene. Returns the tick it starts at.
    pub async fn start_recording(&self, path: &Path) -> Result<u64, SimError> {
        let sh = &self.shared;
        // A recording the physics thread ended by itself (scene load, restore,
        // fault) is finished first.
        let prev = {
            let mut g = sh.recording.lock();
            match &*g {
                Some(a) if !a.q.ended.load(Ordering::SeqCst) => {
                    return Err(SimError::FailedPrecondition(format!(
                        "already recording to {} (StopRecording first)",
                        a.path.display()
                    )))
                }
                _ => g.take(),
            }
        };
        if let Some(p) = prev {
            let _ = tokio::task::spawn_blocking(move || p.finish()).await;
        }
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| SimError::invalid("file", format!("{}: {e}", path.display())))?;
        let view = self.world();
        let nctrl = sh.controllers.len();
        let q = Arc::new(RecQueue::new(QUEUE_RECORDS));
        let rec = Box::new(RecState::new(view.gen, &view.model, nctrl, q.clone()));
        let header = Header::for_model(&view.model, nctrl, sh.cfg.watchdog.damping, &view.name);
        let q2 = q.clone();
        let join = std::thread::Builder::new()
            .name("rtphys-record".into())
            .spawn(move || writer_loop(q2, file, header))
            .map_err(|e| SimError::Unavailable(format!("cannot start the log writer: {e}")))?;
        let active = Active {
            path: path.to_path_buf(),
            q: q.clone(),
            join: Some(join),
        };
        let (tx, rx) = tokio::sync::oneshot::channel();
        let r = match self.admin(super::Admin::StartRecording { rec, reply: tx }) {
            Ok(()) => rx.await.unwrap_or_else(|_| {
                Err(SimError::Unavailable(
                    "the physics thread is not running".into(),
                ))
            }),
            Err(e) => Err(e),
        };
        match r {
            Ok(tick) => {
                *sh.recording.lock() = Some(active);
                Ok(tick)
            }
            Err(e) => {
                q.ended.store(true, Ordering::SeqCst);
                let _ = tokio::task::spawn_blocking(move || active.finish()).await;
                let _ = std::fs::remove_file(path);
                Err(e)
            }
        }
    }

    /// Stop the recording and wait until the log is written.
    pub async fn stop_recording(&self) -> Result<Finished, SimError> {
        let ended = match &*self.shared.recording.lock() {
            None => {
                return Err(SimError::FailedPrecondition(
                    "not recording (StartRecording or rtphys serve --record-inputs)".into(),
                ))
            }
            Some(a) => a.q.ended.load(Ordering::SeqCst),
        };
        if !ended {
            let (tx, rx) = tokio::sync::oneshot::channel();
            self.admin(super::Admin::StopRecording(tx))?;
            let _ = rx.await;
        }
        let a = self.shared.recording.lock().take();
        match a {
            Some(a) => tokio::task::spawn_blocking(move || a.finish())
                .await
                .map_err(|e| SimError::Unavailable(format!("log writer: {e}")))?,
            None => Err(SimError::FailedPrecondition("not recording".into())),
        }
    }
}
