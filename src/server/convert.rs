//! Validation of requests into runtime commands, and runtime frames into replies.
//! Every error names the offending field (`wrenches[1].force[2]`).

use super::pb;
use crate::config::{Config, LimitsConfig, Mode, SafeBehavior};
use crate::data::ServoTarget;
use crate::haptics::render::{DeviceSample, HapticOut};
use crate::haptics::spec::{HapticSpec, WatchdogAction};
use crate::math::Vec3;
use crate::model::robot::SensorKind;
use crate::model::{BodyKind, Model};
use crate::runtime::command::JointCmd;
use crate::runtime::ring::{ack, body, hdr};
use crate::runtime::ring::{contact, frame, joint, sensor};
use crate::runtime::stats::StatsBuf;
use crate::runtime::{
    mode_from, Clear, FrameView, Input, RunStatus, SimError, Source, WorldView, WrenchCmd,
    WrenchFrame,
};
use hdrhistogram::Histogram;

/// Which parts of a state a subscriber wants.
#[derive(Clone, Debug)]
pub struct Selection {
    pub pose: bool,
    pub velocity: bool,
    pub wrench: bool,
    pub acks: bool,
    pub joints: bool,
    pub frames: bool,
    pub sensors: bool,
    pub contacts: bool,
    /// `None` = every body.
    pub bodies: Option<Vec<u32>>,
}

pub fn selection(
    fields: &[i32],
    bodies: &[pb::BodyRef],
    model: &Model,
    prefix: &str,
) -> Result<Selection, SimError> {
    let mut s = Selection {
        pose: fields.is_empty(),
        velocity: fields.is_empty(),
        wrench: fields.is_empty(),
        acks: fields.is_empty(),
        joints: fields.is_empty(),
        frames: false,
        sensors: fields.is_empty(),
        contacts: false,
        bodies: None,
    };
    for (i, &f) in fields.iter().enumerate() {
        match pb::StateField::try_from(f) {
            Ok(pb::StateField::Pose) => s.pose = true,
            Ok(pb::StateField::Velocity) => s.velocity = true,
            Ok(pb::StateField::Wrench) => s.wrench = true,
            Ok(pb::StateField::Acks) => s.acks = true,
            Ok(pb::StateField::Joints) => s.joints = true,
            Ok(pb::StateField::Frames) => s.frames = true,
            Ok(pb::StateField::Sensors) => s.sensors = true,
            Ok(pb::StateField::Contacts) => s.contacts = true,
            _ => {
                return Err(SimError::invalid(
                    format!("{prefix}fields[{i}]"),
                    format!("unknown StateField {f}"),
                ))
            }
        }
    }
    if !bodies.is_empty() {
        let mut ids = Vec::with_capacity(bodies.len());
        for (i, b) in bodies.iter().enumerate() {
            ids.push(body_id(Some(b), model, &format!("{prefix}bodies[{i}]"))? as u32);
        }
        s.bodies = Some(ids);
    }
    Ok(s)
}

/// Resolve a body reference against the current model.
pub fn body_id(r: Option<&pb::BodyRef>, model: &Model, field: &str) -> Result<usize, SimError> {
    match r.and_then(|r| r.r#ref.as_ref()) {
        None => Err(SimError::invalid(field, "missing: give a body id or name")),
        Some(pb::body_ref::Ref::Id(id)) => {
            let n = model.nbody();
            if (*id as usize) < n {
                Ok(*id as usize)
            } else {
                Err(SimError::not_found(
                    format!("{field}.id"),
                    format!("no body with id {id}: this world has {n} bodies (ids 0..{}); ids from an older world are stale", n.saturating_sub(1)),
                ))
            }
        }
        Some(pb::body_ref::Ref::Name(name)) => model.body_id(name).ok_or_else(|| {
            SimError::not_found(format!("{field}.name"), format!("no body named {name:?}"))
        }),
    }
}

/// A 3-vector: empty = `None`; otherwise exactly 3 finite values within ±`max`.
pub fn vec3(v: &[f64], field: &str, max: f64, limit_key: &str) -> Result<Option<Vec3>, SimError> {
    if v.is_empty() {
        return Ok(None);
    }
    if v.len() != 3 {
        return Err(SimError::invalid(
            field,
            format!("expected 3 values (x, y, z), got {}", v.len()),
        ));
    }
    for (k, c) in v.iter().enumerate() {
        if !c.is_finite() {
            return Err(SimError::invalid(
                format!("{field}[{k}]"),
                format!("not finite ({c})"),
            ));
        }
        if c.abs() > max {
            return Err(SimError::invalid(
                format!("{field}[{k}]"),
                format!("{c} is out of range: |value| ≤ {max} ({limit_key})"),
            ));
        }
    }
    Ok(Some(Vec3::new(v[0], v[1], v[2])))
}

/// Check a command header's world generation.
pub fn check_generation(
    h: Option<&pb::CommandHeader>,
    view: &WorldView,
    field: &str,
) -> Result<(), SimError> {
    if let Some(h) = h {
        if h.world_generation != 0 && h.world_generation != view.gen {
            return Err(SimError::not_found(
                format!("{field}.world_generation"),
                format!(
                    "stale ids: the command is for world generation {}, the world is generation {}",
                    h.world_generation, view.gen
                ),
            ));
        }
    }
    Ok(())
}

/// The latest published centre of mass of body `b` (for world-frame application
/// points in [`per_body_limits`]).
pub fn latest_position(view: &WorldView, b: usize) -> Option<Vec3> {
    let mut buf = Vec::with_capacity(view.ring.words);
    view.ring.read_latest(&mut buf)?;
    Some(Vec3::from(
        FrameView::new(&buf, &view.ring).body3(b, body::X),
    ))
}

/// A wrench may not accelerate its body beyond `limits.max_linear_accel` (|F| ≤ m ·
/// a_max) or `limits.max_angular_accel` (|τ + r × F| ≤ λ_min(I) · α_max, about the
/// centre of mass), so a legal command cannot throw a body out of the world in one
/// tick. `position`: the body's current centre of mass, for world-frame points.
#[allow(clippy::too_many_arguments)]
fn per_body_limits(
    model: &Model,
    b: usize,
    force: Vec3,
    torque: Vec3,
    point: Option<Vec3>,
    frame: WrenchFrame,
    position: &dyn Fn(usize) -> Option<Vec3>,
    lim: &LimitsConfig,
    field: &str,
) -> Result<(), SimError> {
    let body = &model.bodies[b];
    if body.mass <= 0.0 {
        return Ok(());
    }
    let a_max = lim.max_linear_accel;
    if a_max > 0.0 && force.norm() > body.mass * a_max {
        return Err(SimError::invalid(
            format!("{field}.force"),
            format!(
                "|force| = {:.6e} N would accelerate {:?} ({:.6e} kg) beyond \
                 limits.max_linear_accel = {a_max:e} m/s²: at most {:.6e} N",
                force.norm(),
                body.name,
                body.mass,
                body.mass * a_max
            ),
        ));
    }
    let alpha_max = lim.max_angular_accel;
    if alpha_max > 0.0 {
        let r = match (point, frame) {
            (None, _) => Vec3::zeros(),
            (Some(p), WrenchFrame::Body) => p,
            (Some(p), WrenchFrame::World) => position(b).map(|x| p - x).unwrap_or(p),
        };
        let tau = (torque + r.cross(&force)).norm();
        let lambda_min = body
            .inertia
            .symmetric_eigenvalues()
            .iter()
            .cloned()
            .fold(f64::INFINITY, f64::min);
        let bound = lambda_min.max(0.0) * alpha_max;
        if tau > bound {
            return Err(SimError::invalid(
                format!("{field}.torque"),
                format!(
                    "|torque about the centre of mass| = {tau:.6e} N·m (torque + r × force) would \
                     accelerate {:?} (smallest principal inertia {lambda_min:.6e} kg·m²) beyond \
                     limits.max_angular_accel = {alpha_max:e} rad/s²: at most {bound:.6e} N·m",
                    body.name
                ),
            ));
        }
    }
    Ok(())
}

pub fn wrench(
    w: &pb::BodyWrench,
    model: &Model,
    position: &dyn Fn(usize) -> Option<Vec3>,
    lim: &LimitsConfig,
    field: &str,
) -> Result<WrenchCmd, SimError> {
    let b = body_id(w.body.as_ref(), model, &format!("{field}.body"))?;
    if model.bodies[b].kind == BodyKind::Static {
        return Err(SimError::invalid(
            format!("{field}.body"),
            format!(
                "body {:?} is static: wrenches act on free bodies and robot links only",
                model.bodies[b].name
            ),
        ));
    }
    let force = vec3(
        &w.force,
        &format!("{field}.force"),
        lim.max_force_n,
        "limits.max_force_n",
    )?;
    let torque = vec3(
        &w.torque,
        &format!("{field}.torque"),
        lim.max_torque_nm,
        "limits.max_torque_nm",
    )?;
    let point = vec3(
        &w.point,
        &format!("{field}.point"),
        lim.max_point_m,
        "limits.max_point_m",
    )?;
    let frame = match pb::Frame::try_from(w.frame) {
        Ok(pb::Frame::World) => WrenchFrame::World,
        Ok(pb::Frame::Body) => WrenchFrame::Body,
        Err(_) => {
            return Err(SimError::invalid(
                format!("{field}.frame"),
                format!("unknown Frame {}", w.frame),
            ))
        }
    };
    per_body_limits(
        model,
        b,
        force.unwrap_or_else(Vec3::zeros),
        torque.unwrap_or_else(Vec3::zeros),
        point,
        frame,
        position,
        lim,
        field,
    )?;
    let d = w.duration_s;
    if !d.is_finite() || d < 0.0 || d > lim.max_duration_s {
        return Err(SimError::invalid(
            format!("{field}.duration_s"),
            format!(
                "{d} is out of range: 0 ≤ duration_s ≤ {} (limits.max_duration_s)",
                lim.max_duration_s
            ),
        ));
    }
    Ok(WrenchCmd {
        body: b as u32,
        force: force.unwrap_or_else(Vec3::zeros),
        torque: torque.unwrap_or_else(Vec3::zeros),
        frame,
        point,
        duration_s: d,
    })
}

pub fn wrenches(
    ws: &[pb::BodyWrench],
    view: &WorldView,
    lim: &LimitsConfig,
) -> Result<Vec<WrenchCmd>, SimError> {
    let model = &*view.model;
    let position = |b: usize| latest_position(view, b);
    if ws.len() > lim.max_wrenches_per_command {
        return Err(SimError::invalid(
            "wrenches",
            format!(
                "{} wrenches in one command; at most {} (limits.max_wrenches_per_command)",
                ws.len(),
                lim.max_wrenches_per_command
            ),
        ));
    }
    ws.iter()
        .enumerate()
        .map(|(i, w)| wrench(w, model, &position, lim, &format!("wrenches[{i}]")))
        .collect()
}

/// A control-stream command → an input for the physics thread.
pub fn control_command(
    c: &pb::ControlCommand,
    view: &WorldView,
    lim: &LimitsConfig,
    slot: usize,
    stream_id: u64,
    recv_ns: i64,
) -> Result<Input, SimError> {
    check_generation(c.header.as_ref(), view, "command.header")?;
    let ws = wrenches(&c.wrenches, view, lim).map_err(|e| prefix_err(e, "command."))?;
    let js = joint_commands(&c.joints, &view.model, lim, "command.")?;
    let h = c.header.unwrap_or_default();
    Ok(Input {
        source: Source::Stream { slot, stream_id },
        gen: view.gen,
        seq: h.seq,
        client_time_ns: h.client_time_ns,
        recv_ns,
        clear: if c.clear { Clear::All } else { Clear::Nothing },
        wrenches: ws,
        joints: js,
        reply: None,
    })
}

/// Resolve a joint reference against the current model.
pub fn joint_id(r: Option<&pb::JointRef>, model: &Model, field: &str) -> Result<usize, SimError> {
    let n = model.joint_ids.len();
    match r.and_then(|r| r.r#ref.as_ref()) {
        None => Err(SimError::invalid(field, "missing: give a joint id or name")),
        Some(pb::joint_ref::Ref::Id(id)) => {
            if (*id as usize) < n {
                Ok(*id as usize)
            } else {
                Err(SimError::not_found(
                    format!("{field}.id"),
                    format!("no joint with id {id}: this world has {n} joints"),
                ))
            }
        }
        Some(pb::joint_ref::Ref::Name(name)) => model
            .joint_id(name)
            .map_err(|m| SimError::not_found(format!("{field}.name"), m)),
    }
}

/// Joint commands → validated [`JointCmd`]s: efforts finite and within
/// `limits.max_torque_nm` (the joint's own effort limit then clamps), servo
/// set-points finite and only for joints with a servo.
pub fn joint_commands(
    js: &[pb::JointCommand],
    model: &Model,
    lim: &LimitsConfig,
    prefix: &str,
) -> Result<Vec<JointCmd>, SimError> {
    if !js.is_empty() && model.joint_ids.is_empty() {
        return Err(SimError::invalid(
            format!("{prefix}joints"),
            "this world has no robot joints",
        ));
    }
    let mut out = Vec::with_capacity(js.len());
    for (i, j) in js.iter().enumerate() {
        let f = format!("{prefix}joints[{i}]");
        let id = joint_id(j.joint.as_ref(), model, &format!("{f}.joint"))?;
        let finite = |v: f64, k: &str| -> Result<f64, SimError> {
            if !v.is_finite() {
                return Err(SimError::invalid(
                    format!("{f}.{k}"),
                    format!("not finite ({v})"),
                ));
            }
            if v.abs() > lim.max_torque_nm {
                return Err(SimError::invalid(
                    format!("{f}.{k}"),
                    format!(
                        "{v} is out of range: |value| ≤ {} (limits.max_torque_nm)",
                        lim.max_torque_nm
                    ),
                ));
            }
            Ok(v)
        };
        let effort = finite(j.effort, "effort")?;
        let servo = match &j.servo {
            None => None,
            Some(s) => {
                let (r, jj) = model.joint_ids[id];
                if model.robots[r as usize].joints[jj as usize].servo.is_none() {
                    return Err(SimError::invalid(
                        format!("{f}.servo"),
                        format!(
                            "joint {:?} has no servo in this scene",
                            model.joint_name(id)
                        ),
                    ));
                }
                for (k, v) in [("position", s.position), ("velocity", s.velocity)] {
                    if !v.is_finite() {
                        return Err(SimError::invalid(
                            format!("{f}.servo.{k}"),
                            format!("not finite ({v})"),
                        ));
                    }
                }
                Some(ServoTarget {
                    enabled: s.enabled,
                    position: s.position,
                    velocity: s.velocity,
                    torque: finite(s.torque, "servo.torque")?,
                })
            }
        };
        out.push(JointCmd {
            joint: id as u32,
            effort,
            servo,
        });
    }
    Ok(out)
}

fn prefix_err(e: SimError, p: &str) -> SimError {
    match e {
        SimError::InvalidArgument { field, message } => SimError::InvalidArgument {
            field: format!("{p}{field}"),
            message,
        },
        SimError::NotFound { field, message } => SimError::NotFound {
            field: format!("{p}{field}"),
            message,
        },
        other => other,
    }
}

pub fn mode_to_pb(m: Mode) -> pb::RunMode {
    match m {
        Mode::Realtime => pb::RunMode::Realtime,
        Mode::Lockstep => pb::RunMode::Lockstep,
        Mode::Max => pb::RunMode::Max,
    }
}

pub fn mode_from_pb(m: i32, field: &str) -> Result<Option<Mode>, SimError> {
    match pb::RunMode::try_from(m) {
        Ok(pb::RunMode::Unspecified) => Ok(None),
        Ok(pb::RunMode::Realtime) => Ok(Some(Mode::Realtime)),
        Ok(pb::RunMode::Lockstep) => Ok(Some(Mode::Lockstep)),
        Ok(pb::RunMode::Max) => Ok(Some(Mode::Max)),
        Err(_) => Err(SimError::invalid(field, format!("unknown RunMode {m}"))),
    }
}

pub fn behavior_to_pb(b: SafeBehavior) -> pb::SafeBehavior {
    match b {
        SafeBehavior::Zero => pb::SafeBehavior::Zero,
        SafeBehavior::Hold => pb::SafeBehavior::Hold,
        SafeBehavior::Damp => pb::SafeBehavior::Damp,
    }
}

pub fn behavior_from_pb(
    b: i32,
    default: SafeBehavior,
    field: &str,
) -> Result<SafeBehavior, SimError> {
    match pb::SafeBehavior::try_from(b) {
        Ok(pb::SafeBehavior::Unspecified) => Ok(default),
        Ok(pb::SafeBehavior::Zero) => Ok(SafeBehavior::Zero),
        Ok(pb::SafeBehavior::Hold) => Ok(SafeBehavior::Hold),
        Ok(pb::SafeBehavior::Damp) => Ok(SafeBehavior::Damp),
        Err(_) => Err(SimError::invalid(
            field,
            format!("unknown SafeBehavior {b}"),
        )),
    }
}

pub fn run_status(s: &RunStatus) -> pb::RunStatus {
    pb::RunStatus {
        mode: mode_to_pb(s.mode) as i32,
        paused: s.paused,
        rate_hz: s.rate_hz,
        realtime_factor: s.realtime_factor,
        tick: s.tick,
        sim_time: s.time,
    }
}

/// A copied frame → a State message with the selected fields.
pub fn state_from_frame(v: &FrameView<'_>, sel: &Selection) -> pb::State {
    let flags = v.u(hdr::FLAGS);
    let mut st = pb::State {
        tick: v.tick(),
        sim_time: v.time(),
        server_time_ns: v.u(hdr::MONO_NS) as i64,
        world_generation: v.u(hdr::GEN),
        frame: v.u(hdr::FRAME),
        mode: mode_to_pb(mode_from(((flags >> 8) & 0xff) as u8)) as i32,
        paused: flags & 1 == 1,
        faulted: flags & 2 == 2,
        ..Default::default()
    };
    let mut push = |b: usize| {
        let mut bs = pb::BodyState {
            id: b as u32,
            frozen: v.u(v.body_base(b) + body::FROZEN) & 1 != 0,
            asleep: v.u(v.body_base(b) + body::FROZEN) & 2 != 0,
            ..Default::default()
        };
        if sel.pose {
            bs.position = v.body3(b, body::X).to_vec();
            bs.orientation = v.body4(b, body::Q).to_vec();
        }
        if sel.velocity {
            bs.linear_velocity = v.body3(b, body::V).to_vec();
            bs.angular_velocity = v.body3(b, body::W).to_vec();
        }
        if sel.wrench {
            bs.force = v.body3(b, body::F).to_vec();
            bs.torque = v.body3(b, body::T).to_vec();
        }
        st.bodies.push(bs);
    };
    match &sel.bodies {
        None => (0..v.nbody).for_each(&mut push),
        Some(ids) => ids
            .iter()
            .filter(|&&b| (b as usize) < v.nbody)
            .for_each(|&b| push(b as usize)),
    }
    if sel.acks {
        for c in 0..v.nctrl {
            if let Some(a) = ack_from_frame(v, c) {
                st.acks.push(a);
            }
        }
    }
    robot_sections(v, sel, &mut st);
    st
}

/// Joints, frames, sensors and contacts of a frame.
fn robot_sections(v: &FrameView<'_>, sel: &Selection, st: &mut pb::State) {
    let l = &v.layout;
    if sel.joints {
        st.joints = (0..l.njoint)
            .map(|j| {
                let b = l.joint_base(j);
                pb::JointState {
                    id: j as u32,
                    position: v.f(b + joint::Q),
                    velocity: v.f(b + joint::QD),
                    effort: v.f(b + joint::EFFORT),
                    passive: v.f(b + joint::PASSIVE),
                    acceleration: v.f(b + joint::QACC),
                }
            })
            .collect();
    }
    if sel.frames {
        st.frames = (0..l.nframe)
            .map(|f| {
                let b = l.frame_base(f);
                pb::FrameState {
                    id: f as u32,
                    position: v.f3(b + frame::X).to_vec(),
                    orientation: (0..4).map(|k| v.f(b + frame::Q + k)).collect(),
                    linear_velocity: v.f3(b + frame::V).to_vec(),
                    angular_velocity: v.f3(b + frame::W).to_vec(),
                }
            })
            .collect();
    }
    if sel.sensors {
        st.sensors = (0..l.nsensor)
            .map(|s| {
                let b = l.sensor_base(s);
                pb::SensorReading {
                    id: s as u32,
                    values: (0..sensor::LEN).map(|k| v.f(b + k)).collect(),
                }
            })
            .collect();
    }
    if sel.contacts {
        let cb = l.contacts_base();
        let n = (v.u(cb + contact::COUNT) as usize).min(l.ncontact);
        st.contacts_dropped = v.u(cb + contact::DROPPED);
        st.contacts = (0..n)
            .map(|c| {
                let b = l.contact_base(c);
                pb::Contact {
                    body_a: v.u(b + contact::BODY_A) as u32,
                    body_b: v.u(b + contact::BODY_B) as u32,
                    point: v.f3(b + contact::P).to_vec(),
                    normal: v.f3(b + contact::N).to_vec(),
                    force: v.f3(b + contact::F).to_vec(),
                    depth: v.f(b + contact::DEPTH),
                }
            })
            .collect();
    }
}

/// The acknowledgement of controller slot `c` in a frame (None if the slot is unused).
pub fn ack_from_frame(v: &FrameView<'_>, c: usize) -> Option<pb::CommandAck> {
    let a = v.ack_base(c);
    let id = v.u(a + ack::STREAM_ID);
    if id == 0 {
        return None;
    }
    let fl = v.u(a + ack::FLAGS);
    let behavior = crate::runtime::behavior_from(((fl >> 8) & 0xff) as u8);
    Some(pb::CommandAck {
        stream_id: id,
        seq: v.u(a + ack::SEQ),
        applied_tick: v.u(a + ack::APPLY_TICK),
        client_time_ns: v.u(a + ack::CLIENT_NS) as i64,
        server_receive_ns: v.u(a + ack::RECV_NS) as i64,
        server_apply_ns: v.u(a + ack::APPLY_NS) as i64,
        commands_applied: v.u(a + ack::COMMANDS),
        watchdog: Some(pb::WatchdogStatus {
            enabled: fl & 2 != 0,
            tripped: fl & 1 != 0,
            trips: v.u(a + ack::TRIPS),
            timeout_s: v.u(a + ack::TIMEOUT_NS) as f64 * 1e-9,
            behavior: behavior_to_pb(behavior) as i32,
        }),
    })
}

pub fn limits(cfg: &Config) -> pb::Limits {
    let l = &cfg.limits;
    pb::Limits {
        max_force_n: l.max_force_n,
        max_torque_nm: l.max_torque_nm,
        max_duration_s: l.max_duration_s,
        max_wrenches_per_command: l.max_wrenches_per_command as u32,
        max_step: l.max_step,
        max_streams: cfg.server.max_streams as u32,
        max_controllers: cfg.server.max_controllers as u32,
        max_message_bytes: cfg.server.max_message_bytes as u32,
        max_decimation: l.max_decimation,
        max_snapshots: cfg.server.max_snapshots as u32,
        max_linear_accel_mps2: l.max_linear_accel,
        max_angular_accel_radps2: l.max_angular_accel,
        reserved_controller_streams: cfg.server.reserved_controller_streams as u32,
        max_scene_bytes: cfg.server.max_scene_bytes,
    }
}

pub fn world_info(view: &WorldView, status: &RunStatus, cfg: &Config) -> pb::WorldInfo {
    let m = &view.model;
    pb::WorldInfo {
        world_generation: view.gen,
        scene_name: view.name.clone(),
        dt: m.opt.dt,
        rate_hz: status.rate_hz,
        realtime_factor: status.realtime_factor,
        mode: mode_to_pb(status.mode) as i32,
        paused: status.paused,
        method: m.opt.method.name().to_string(),
        // The scene-file spelling ("rk4", "semi_implicit_euler", ...), robust to new integrators.
        integrator: serde_json::to_value(m.opt.integrator)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        gravity: m.opt.gravity.iter().copied().collect(),
        sleep: Some(pb::SleepInfo {
            enabled: crate::pipeline::sleep::enabled(m),
            rest_time_s: m.opt.sleep.rest_time,
            v_rest_m_per_s: m.opt.sleep.v_rest,
            w_rest_rad_per_s: m.opt.sleep.w_rest,
        }),
        bodies: m
            .bodies
            .iter()
            .enumerate()
            .map(|(i, b)| pb::BodyInfo {
                id: i as u32,
                name: b.name.clone(),
                is_static: b.kind == BodyKind::Static,
                mass: b.mass,
                inertia: b.inertia.transpose().iter().copied().collect(),
                position: b.pose0.translation.vector.iter().copied().collect(),
                orientation: vec![
                    b.pose0.rotation.w,
                    b.pose0.rotation.i,
                    b.pose0.rotation.j,
                    b.pose0.rotation.k,
                ],
            })
            .collect(),
        joints: joint_infos(m),
        actuators: m
            .robots
            .iter()
            .flat_map(|r| {
                r.servos.iter().map(move |s| {
                    let j = &r.joints[s.joint];
                    let lim = s.max_torque.min(j.effort);
                    (format!("{}/{}", r.name, j.name), lim)
                })
            })
            .enumerate()
            .map(|(i, (name, lim))| pb::ActuatorInfo {
                id: i as u32,
                joint: m.joint_id(&name).map_or(u32::MAX, |j| j as u32),
                name,
                effort_min: -lim,
                effort_max: lim,
            })
            .collect(),
        sensors: (0..m.sensor_ids.len())
            .map(|i| {
                let (r, k) = m.sensor_ids[i];
                let rm = &m.robots[r as usize];
                let (ty, link) = match k {
                    SensorKind::ForceTorque(j) => ("force_torque", rm.ft_sensors[j as usize].link),
                    SensorKind::Imu(j) => ("imu", rm.imus[j as usize].link),
                };
                pb::SensorInfo {
                    id: i as u32,
                    name: m.sensor_name(i),
                    r#type: ty.to_string(),
                    dim: 6,
                    frame: format!("{}/{}", rm.name, rm.link_names[link]),
                }
            })
            .collect(),
        frames: (0..m.frame_ids.len())
            .map(|i| {
                let (r, f) = m.frame_ids[i];
                let rm = &m.robots[r as usize];
                pb::FrameInfo {
                    id: i as u32,
                    name: m.frame_name(i),
                    link: format!("{}/{}", rm.name, rm.link_names[rm.frames[f as usize].link]),
                }
            })
            .collect(),
        haptic_devices: m
            .haptics
            .iter()
            .enumerate()
            .map(|(i, h)| haptic_device_info(i, h, m))
            .collect(),
        limits: Some(limits(cfg)),
        server_version: env!("CARGO_PKG_VERSION").to_string(),
    }
}

/// The DoF joints of all robots; `parent_body`/`child_body` are the link proxies
/// (u32::MAX for a link without geometry or the world).
fn joint_infos(m: &Model) -> Vec<pb::JointInfo> {
    (0..m.joint_ids.len())
        .map(|i| {
            let (r, j) = m.joint_ids[i];
            let rm = &m.robots[r as usize];
            let jt = &rm.joints[j as usize];
            let body = |l: Option<usize>| {
                l.and_then(|l| rm.link_body[l])
                    .map_or(u32::MAX, |b| b as u32)
            };
            pb::JointInfo {
                id: i as u32,
                name: m.joint_name(i),
                r#type: if jt.prismatic {
                    "prismatic"
                } else {
                    "revolute"
                }
                .to_string(),
                parent_body: body(rm.tree.parent()[jt.link]),
                child_body: body(Some(jt.link)),
                position_min: vec![jt.lower],
                position_max: vec![jt.upper],
                velocity_max: vec![jt.velocity],
                effort_max: vec![jt.effort],
            }
        })
        .collect()
}

pub fn hist(h: &Histogram<u64>) -> pb::LatencyHistogram {
    if h.is_empty() {
        return pb::LatencyHistogram::default();
    }
    pb::LatencyHistogram {
        count: h.len(),
        p50_us: h.value_at_quantile(0.5) as f64 * 1e-3,
        p99_us: h.value_at_quantile(0.99) as f64 * 1e-3,
        p999_us: h.value_at_quantile(0.999) as f64 * 1e-3,
        max_us: h.max() as f64 * 1e-3,
        mean_us: h.mean() * 1e-3,
    }
}

pub fn stats(s: &StatsBuf) -> pb::Stats {
    pb::Stats {
        mode: mode_to_pb(s.mode) as i32,
        paused: s.paused,
        tick: s.tick,
        sim_time: s.time,
        uptime_s: s.uptime_s,
        rate_hz: s.rate_hz,
        realtime_factor_target: s.rtf_target,
        realtime_factor_recent: s.rtf_recent,
        realtime_factor_total: s.rtf_total,
        tick_compute: Some(hist(&s.compute)),
        tick_lateness: Some(hist(&s.lateness)),
        overruns: s.overruns,
        skipped_ticks: s.skipped,
        stale_commands: s.stale_commands,
        ticks: s.ticks,
        physics: Some(pb::PhysicsStats {
            stage_names: s.stage_mean_ns.iter().map(|(n, _)| n.to_string()).collect(),
            stage_mean_us: s.stage_mean_ns.iter().map(|(_, v)| v * 1e-3).collect(),
            contact_points: s.contact_points,
            max_penetration_m: s.max_penetration,
            quarantined: s.quarantined,
            kinetic_energy_j: s.kinetic_energy,
            lcp_size: s.solver.lcp_size as u64,
            solver_iterations: s.solver.solver_iterations as u64,
            solver_residual: s.solver.solver_residual,
            solver_failures: s.solver.solver_failures,
            solver_fallbacks: s.solver.solver_fallbacks,
            solver_unconverged: s.solver.solver_unconverged,
            newton_factorizations: s.solver.newton_factorizations,
            newton_cholesky: s.solver.newton_cholesky,
            sleeping_bodies: s.sleeping,
            robot_contact_rows: s.solver.robot_contact_rows as u64,
            robot_contact_passes: s.solver.robot_contact_passes as u64,
            robot_contact_failures: s.solver.robot_contact_failures,
        }),
        ..Default::default()
    }
}

/// The state hash of `runtime::record::state_hash` computed from a `State` that
/// carries every body (pose and velocity) and every joint: what `rtphys replay`
/// prints, from the client's side.
pub fn state_hash(s: &pb::State) -> u64 {
    let mut h = crate::runtime::record::Fnv::default();
    h.u(s.tick);
    h.f(s.sim_time);
    for b in &s.bodies {
        for x in b
            .position
            .iter()
            .chain(&b.orientation)
            .chain(&b.linear_velocity)
            .chain(&b.angular_velocity)
        {
            h.f(*x);
        }
    }
    for j in &s.joints {
        h.f(j.position);
        h.f(j.velocity);
    }
    h.finish()
}

fn v3(v: &Vec3) -> Vec<f64> {
    vec![v.x, v.y, v.z]
}

fn haptic_device_info(i: usize, h: &HapticSpec, m: &Model) -> pb::HapticDeviceInfo {
    let r = h.mapping.rotation;
    pb::HapticDeviceInfo {
        id: i as u32,
        name: h.name.clone(),
        tool_body: m.bodies[h.tool].name.clone(),
        tool_body_id: h.tool as u32,
        dof: h.dof,
        workspace_min: v3(&h.mapping.workspace_min),
        workspace_max: v3(&h.mapping.workspace_max),
        scale: h.mapping.scale,
        offset: v3(&h.mapping.offset),
        rotation: vec![r.w, r.i, r.j, r.k],
        max_force_n: h.max_force,
        max_torque_nm: h.max_torque,
        max_rate_n_per_s: h.max_rate,
        max_stiffness_n_per_m: h.max_stiffness,
        coupling_stiffness: v3(&h.coupling.k),
        coupling_damping: v3(&h.coupling.b),
        watchdog_timeout_s: h.timeout_s,
        watchdog: h.watchdog.name().to_string(),
        fade_time_s: match h.watchdog {
            WatchdogAction::Fade { fade_s } => fade_s,
            _ => 0.0,
        },
        passivity: h.passivity,
        substeps: h.multirate.map_or(1, |m| m.substeps as u32),
    }
}

/// The device a HapticHello names.
pub fn haptic_device(
    d: Option<&pb::haptic_hello::Device>,
    model: &Model,
) -> Result<usize, SimError> {
    match d {
        None => Err(SimError::invalid(
            "hello.device",
            "missing: name a device (WorldInfo.haptic_devices) by id or name",
        )),
        Some(pb::haptic_hello::Device::Id(id)) => {
            let id = *id as usize;
            if id < model.haptics.len() {
                Ok(id)
            } else {
                Err(SimError::not_found(
                    "hello.device.id",
                    format!(
                        "no haptic device {id} (the world has {})",
                        model.haptics.len()
                    ),
                ))
            }
        }
        Some(pb::haptic_hello::Device::Name(n)) => model
            .haptics
            .iter()
            .position(|h| &h.name == n)
            .ok_or_else(|| {
                SimError::not_found("hello.device.name", format!("no haptic device named {n:?}"))
            }),
    }
}

/// Largest accepted device velocity, m/s or rad/s.
pub const MAX_DEVICE_SPEED: f64 = 1e3;

/// A device sample, validated against its device: finite, the position inside
/// the workspace, a non-zero orientation quaternion.
pub fn device_sample(
    s: &pb::DeviceSample,
    h: &HapticSpec,
    recv_ns: i64,
) -> Result<DeviceSample, SimError> {
    let ws = "the device's workspace_min/max (WorldInfo.haptic_devices)";
    let x = vec3(
        &s.position,
        "sample.position",
        crate::model::scene::MAX_COORD,
        ws,
    )?
    .ok_or_else(|| SimError::invalid("sample.position", "missing: 3 values (x, y, z)"))?;
    for k in 0..3 {
        let (lo, hi) = (h.mapping.workspace_min[k], h.mapping.workspace_max[k]);
        if !(lo..=hi).contains(&x[k]) {
            return Err(SimError::invalid(
                format!("sample.position[{k}]"),
                format!("{} is outside the workspace [{lo}, {hi}] m", x[k]),
            ));
        }
    }
    let q = match s.orientation.len() {
        0 => crate::math::Quat::identity(),
        4 => {
            let o = &s.orientation;
            if let Some(k) = o.iter().position(|c| !c.is_finite()) {
                return Err(SimError::invalid(
                    format!("sample.orientation[{k}]"),
                    format!("not finite ({})", o[k]),
                ));
            }
            let qq = nalgebra::Quaternion::new(o[0], o[1], o[2], o[3]);
            if (qq.norm() - 1.0).abs() > 1e-3 {
                return Err(SimError::invalid(
                    "sample.orientation",
                    format!("not a unit quaternion (norm {})", qq.norm()),
                ));
            }
            crate::math::Quat::new_normalize(qq)
        }
        n => {
            return Err(SimError::invalid(
                "sample.orientation",
                format!("expected 4 values (w, x, y, z) or none, got {n}"),
            ))
        }
    };
    let speed = "MAX_DEVICE_SPEED";
    let v = vec3(
        &s.linear_velocity,
        "sample.linear_velocity",
        MAX_DEVICE_SPEED,
        speed,
    )?;
    let w = vec3(
        &s.angular_velocity,
        "sample.angular_velocity",
        MAX_DEVICE_SPEED,
        speed,
    )?;
    Ok(DeviceSample {
        seq: s.seq,
        client_ns: s.client_time_ns,
        recv_ns,
        x,
        q,
        v,
        w,
        buttons: s.buttons,
    })
}

/// A rendered output as a HapticFeedback.
pub fn haptic_feedback(o: &HapticOut, gen: u64) -> pb::HapticFeedback {
    let l = &o.local;
    let q = o.tool.rotation;
    pb::HapticFeedback {
        tick: o.tick,
        sim_time: o.time,
        seq: o.seq,
        client_time_ns: o.client_ns,
        recv_time_ns: o.recv_ns,
        send_time_ns: crate::runtime::clock::mono_ns(),
        force: v3(&o.force),
        torque: v3(&o.torque),
        force_env: v3(&o.force_env),
        tool_position: v3(&o.tool.translation.vector),
        tool_orientation: vec![q.w, q.i, q.j, q.k],
        contact: o.contact,
        passivity: Some(pb::PassivityState {
            energy_j: o.port.energy,
            energy_min_j: o.port.energy_min,
            alpha: o.port.alpha,
            active_steps: o.port.active_steps,
            saturated_steps: o.port.saturated_steps,
        }),
        local_model: Some(pb::LocalModel {
            f0: v3(&l.f0),
            x0: v3(&l.x0),
            stiffness: l.k.transpose().iter().copied().collect(),
            damping: l.b.transpose().iter().copied().collect(),
            normal: l.unilateral.map(|n| v3(&n)).unwrap_or_default(),
        }),
        watchdog_gain: o.gain,
        watchdog_tripped: o.tripped,
        errors: Vec::new(),
        dropped: 0,
        world_generation: gen,
        substep_forces: o.substep_force[..o.substeps.clamp(1, o.substep_force.len())]
            .iter()
            .flat_map(|f| [f.x, f.y, f.z])
            .collect(),
    }
}
