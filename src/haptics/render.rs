//! One haptic device inside the physics thread, free of threads and I/O: the
//! device's latest sample is an input of the tick, the coupling's wrench acts on
//! the tool at the step's inputs point ([`HapticState::apply`]), and after the step
//! the force to render is made ([`HapticState::render`]):
//!
//! ```text
//! receive   sample (device coords) → target pose/twist; velocity from the twist if
//!           given, else the backward difference over the client's timestamps
//! watchdog  silent for timeout_s (or the stream closed) → hold | release | fade
//! apply     (f, τ) = g · coupling(x_d, x_t)  (+ m g gravity feed-forward)   → xfrc[tool]
//!           a teleoperated arm (module `teleop`): its controller's torques → qfrc_cmd
//! render    f_env = −s Rᵀ g f,  τ_env = −Rᵀ g τ      (the tool after the step)
//!           f = DevicePort(f_env, v_dev)  (rate limit, passivity, clamp)
//!           local model: the tool's deepest contact linearized (module `local`)
//! ```
//!
//! g is the watchdog's gain: 1 while the device speaks (and under hold), 0 once
//! released, a linear ramp to 0 over `fade_s` under fade (the rendered force goes
//! to zero continuously). Everything here is `Copy` and fixed-size: no allocation
//! per tick.

use super::coupling::{coupling_wrench, MotionState};
use super::local::LocalModel;
use super::multirate::{SubSteps, MAX_SUBSTEPS};
use super::passivity::{DevicePort, PortParams, PortState};
use super::spec::{HapticSpec, WatchdogAction};
use super::teleop::Teleop;
use crate::data::Data;
use crate::math::{Mat3, Pose, Quat, Vec3, Wrench};
use crate::model::{Method, Model};

/// One device sample, validated (finite, inside the workspace), device coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeviceSample {
    pub seq: u64,
    pub client_ns: i64,
    /// CLOCK_MONOTONIC when the network side decoded it.
    pub recv_ns: i64,
    pub x: Vec3,
    pub q: Quat,
    pub v: Option<Vec3>,
    pub w: Option<Vec3>,
    pub buttons: u32,
}

/// What a device is rendered after a tick (device coordinates unless named).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HapticOut {
    pub tick: u64,
    pub time: f64,
    /// Last applied sample.
    pub seq: u64,
    pub client_ns: i64,
    pub recv_ns: i64,
    /// Force and torque to render (after the device port), N, N·m.
    pub force: Vec3,
    pub torque: Vec3,
    /// The environment's force before the port, N.
    pub force_env: Vec3,
    /// Tool pose and velocity, world.
    pub tool: Pose,
    pub tool_v: Vec3,
    pub contact: bool,
    pub local: LocalModel,
    pub port: PortState,
    /// Watchdog gain g ∈ [0, 1].
    pub gain: f64,
    pub tripped: bool,
    pub trips: u64,
    /// Multi-rate: the forces rendered at the haptic rate over this tick
    /// (`substep_force[..substeps]`, oldest first; `force` is the last). 1 and
    /// `[force]` at the world rate.
    pub substeps: usize,
    pub substep_force: [Vec3; MAX_SUBSTEPS],
}

/// A device's state in the physics thread.
#[derive(Clone, Debug)]
pub struct HapticState {
    /// Target, device coordinates.
    pub x: Vec3,
    pub q: Quat,
    pub v: Vec3,
    pub w: Vec3,
    pub last: Option<DeviceSample>,
    pub samples: u64,
    /// A stream drives the device.
    pub connected: bool,
    /// The watchdog acted (silence or the stream closed) and no sample came since.
    pub tripped: bool,
    pub tripped_tick: u64,
    pub trips: u64,
    pub gain: f64,
    pub port: DevicePort,
    pub out: HapticOut,
    /// The multi-rate tool's sub-steps (`spec.multirate`).
    pub sub: SubSteps,
    /// The teleoperated arm's controller (`spec.teleop`).
    pub teleop: Option<Box<Teleop>>,
}

impl HapticState {
    /// Before any sample the device "holds" the tool where the scene put it.
    pub fn new(spec: &HapticSpec, model: &Model) -> HapticState {
        let pose = spec.tool_pose0;
        let m = &spec.mapping;
        let x = m.rotation.inverse() * (pose.translation.vector - m.offset) / m.scale;
        let q = m.rotation.inverse() * pose.rotation;
        HapticState {
            x,
            q,
            v: Vec3::zeros(),
            w: Vec3::zeros(),
            last: None,
            samples: 0,
            connected: false,
            tripped: false,
            tripped_tick: 0,
            trips: 0,
            gain: 1.0,
            port: DevicePort::new(PortParams {
                max_force: spec.max_force,
                max_rate: spec.max_rate,
                passivity_control: spec.passivity,
            }),
            out: HapticOut {
                tick: 0,
                time: 0.0,
                seq: 0,
                client_ns: 0,
                recv_ns: 0,
                force: Vec3::zeros(),
                torque: Vec3::zeros(),
                force_env: Vec3::zeros(),
                tool: pose,
                tool_v: Vec3::zeros(),
                contact: false,
                local: LocalModel::default(),
                port: PortState::default(),
                gain: 1.0,
                tripped: false,
                trips: 0,
                substeps: 1,
                substep_force: [Vec3::zeros(); MAX_SUBSTEPS],
            },
            sub: SubSteps::default(),
            teleop: spec
                .teleop
                .as_ref()
                .map(|t| Box::new(Teleop::new(t, model))),
        }
    }

    /// A stream opened: a fresh port (the device's energy account starts at 0).
    pub fn connect(&mut self, spec: &HapticSpec) {
        self.connected = true;
        self.tripped = false;
        self.gain = 1.0;
        self.last = None;
        self.port = DevicePort::new(self.port.params);
        let _ = spec;
    }

    /// The stream closed: the watchdog acts now.
    pub fn disconnect(&mut self, spec: &HapticSpec, tick: u64) {
        self.connected = false;
        self.trip(spec, tick);
    }

    /// The watchdog acts: under hold the target stops (velocity 0); under fade the
    /// last velocity is kept and fades with the whole coupling (no step in its
    /// damping term); under release the coupling goes at once.
    fn trip(&mut self, spec: &HapticSpec, tick: u64) {
        if !self.tripped {
            self.tripped = true;
            self.tripped_tick = tick;
            self.trips += 1;
            if spec.watchdog == WatchdogAction::Hold {
                self.v = Vec3::zeros();
                self.w = Vec3::zeros();
            }
        }
    }

    /// A validated sample lands at the tick boundary.
    pub fn receive(&mut self, s: &DeviceSample) {
        let fd = |prev: &DeviceSample| {
            let dt = (s.client_ns - prev.client_ns) as f64 * 1e-9;
            (dt > 0.0).then_some(dt)
        };
        let dt = self.last.as_ref().and_then(fd);
        self.v = match (s.v, dt, &self.last) {
            (Some(v), _, _) => v,
            (None, Some(dt), Some(p)) => (s.x - p.x) / dt,
            _ => Vec3::zeros(),
        };
        self.w = match (s.w, dt, &self.last) {
            (Some(w), _, _) => w,
            (None, Some(dt), Some(p)) => (s.q * p.q.inverse()).scaled_axis() / dt,
            _ => Vec3::zeros(),
        };
        self.x = s.x;
        self.q = s.q;
        self.last = Some(*s);
        self.samples += 1;
        self.connected = true;
        self.tripped = false;
        self.gain = 1.0;
    }

    /// The watchdog at a tick boundary (`now_ns` CLOCK_MONOTONIC).
    pub fn watchdog(&mut self, spec: &HapticSpec, now_ns: i64, tick: u64) {
        if let Some(l) = &self.last {
            if self.connected
                && !self.tripped
                && (now_ns - l.recv_ns) as f64 * 1e-9 > spec.timeout_s
            {
                self.trip(spec, tick);
            }
        }
    }

    /// The watchdog's gain for the step from `tick` (step `h`).
    fn update_gain(&mut self, spec: &HapticSpec, tick: u64, h: f64) {
        self.gain = if !self.tripped {
            1.0
        } else {
            match spec.watchdog {
                WatchdogAction::Hold => 1.0,
                WatchdogAction::Release => 0.0,
                WatchdogAction::Fade { fade_s } => {
                    let t = tick.saturating_sub(self.tripped_tick) as f64 * h;
                    (1.0 - t / fade_s).clamp(0.0, 1.0)
                }
            }
        };
    }

    fn device_world(&self, spec: &HapticSpec) -> MotionState {
        device_world_at(spec, &self.x, &self.q, &self.v, &self.w, 0.0)
    }

    /// The coupling's wrench on the tool (world, about its COM) for the coming step,
    /// added to `data.xfrc` at the step's inputs point.
    pub fn apply(&mut self, spec: &HapticSpec, model: &Model, data: &mut Data) {
        self.update_gain(spec, data.tick, model.opt.dt);
        if spec.multirate.is_some() && multirate_runs_under(model) {
            self.apply_multirate(spec, model, data);
            return;
        }
        self.sub.active = false;
        if let (Some(tp), Some(ctl)) = (&spec.teleop, self.teleop.as_mut()) {
            ctl.apply(tp, spec.tool, spec.dof == 6, self.gain, model, data);
        }
        if self.gain == 0.0 {
            return;
        }
        let (f, t) = coupling_wrench(
            &spec.coupling,
            &self.device_world(spec),
            &tool_state(spec, data),
        );
        let mut w = Wrench {
            force: f * self.gain,
            torque: t * self.gain,
        };
        // (A teleoperated arm's controller compensates the whole arm's weight.)
        if spec.gravity_compensation && spec.teleop.is_none() {
            w.force -= model.opt.gravity * model.bodies[spec.tool].mass;
        }
        data.xfrc[spec.tool] += w;
    }

    /// Multi-rate (module `multirate`): the tool's contacts frozen, its N sub-steps
    /// with the coupling to the device target extrapolated over the tick, the force
    /// rendered through the device port at every sub-step, and the mean reactions
    /// on the world bodies added to `data.xfrc` for the world step.
    fn apply_multirate(&mut self, spec: &HapticSpec, model: &Model, data: &mut Data) {
        let Some(mr) = spec.multirate else {
            return;
        };
        let h = model.opt.dt;
        let hs = h / mr.substeps.max(1) as f64;
        let tool = spec.tool;
        // Everything else acting on the tool this tick (the runtime's wrenches, the
        // gravity feed-forward), constant over the sub-steps.
        let mut extra = data.xfrc[tool];
        if spec.gravity_compensation && self.gain > 0.0 {
            extra.force -= model.opt.gravity * model.bodies[tool].mass;
        }
        let dev_v = spec.mapping.velocity_to_world(&self.v);
        let reach = h * (data.state[tool].v.norm() + dev_v.norm()) * 2.0;
        self.sub.freeze(model, data, tool, &mr, reach);
        let HapticState {
            x,
            q,
            v,
            w,
            gain,
            port,
            out,
            sub,
            ..
        } = self;
        let g = *gain;
        let m = &spec.mapping;
        let coupling = |t: f64, s: &crate::data::BodyState| {
            if g == 0.0 {
                return (Vec3::zeros(), Vec3::zeros());
            }
            let tool_s = MotionState {
                pose: Pose::from_parts(s.x.into(), s.q),
                v: s.v,
                w: s.w,
            };
            let (f, t) = coupling_wrench(
                &spec.coupling,
                &device_world_at(spec, x, q, v, w, t),
                &tool_s,
            );
            (f * g, t * g)
        };
        let dv = *v;
        let render = |k: usize, f_c: Vec3| {
            let f_env = -m.force_to_device(&f_c);
            out.substep_force[k] = port.render(&f_env, &dv, hs);
            out.force_env = f_env;
        };
        sub.run(model, data, tool, &mr, extra, coupling, render);
        out.substeps = mr.substeps;
    }

    /// After the step: the force to render, through the device port, and the local
    /// model; kept in `self.out`. A multi-rate tool's state is the sub-steps' (the
    /// world step did not move it).
    pub fn render(&mut self, spec: &HapticSpec, model: &Model, data: &mut Data) {
        if let (Some(mr), true) = (spec.multirate, self.sub.active) {
            data.state[spec.tool] = self.sub.end;
            if data.asleep[spec.tool] {
                // A sleeping body's state written from outside the step.
                data.edited();
            }
            self.render_multirate(spec, data, mr.stiffness);
            return;
        }
        let h = model.opt.dt;
        let tool = tool_state(spec, data);
        let m = &spec.mapping;
        let (f, t) = coupling_wrench(&spec.coupling, &self.device_world(spec), &tool);
        let f_env = -m.force_to_device(&(f * self.gain));
        let t_env = -m.torque_to_device(&(t * self.gain));
        let force = self.port.render(&f_env, &self.v, h);
        let contact = deepest_contact(spec, model, data);
        self.publish(spec, data, &tool, (force, f_env, t_env), contact, 1);
        self.out.substep_force[0] = force;
    }

    /// The device torque: the coupling's, clamped to the device's limit (6-DoF
    /// devices; 3-DoF render none).
    fn device_torque(spec: &HapticSpec, t_env: Vec3) -> Vec3 {
        let tn = t_env.norm();
        if spec.dof != 6 {
            Vec3::zeros()
        } else if tn > spec.max_torque {
            t_env * (spec.max_torque / tn)
        } else {
            t_env
        }
    }

    /// `self.out` for this tick: the rendered force, the environment force and torque,
    /// the tool, the local model from `contact` (normal, stiffness), and the port's
    /// state; `substep_force` is kept as the caller left it.
    fn publish(
        &mut self,
        spec: &HapticSpec,
        data: &Data,
        tool: &MotionState,
        (force, f_env, t_env): (Vec3, Vec3, Vec3),
        contact: Option<(Vec3, f64)>,
        substeps: usize,
    ) {
        let local = self.local_model(spec, &f_env, contact);
        let (seq, client_ns, recv_ns) = self
            .last
            .map(|l| (l.seq, l.client_ns, l.recv_ns))
            .unwrap_or_default();
        self.out = HapticOut {
            tick: data.tick,
            time: data.time,
            seq,
            client_ns,
            recv_ns,
            force,
            torque: Self::device_torque(spec, t_env),
            force_env: f_env,
            tool: tool.pose,
            tool_v: tool.v,
            contact: contact.is_some(),
            local,
            port: self.port.state,
            gain: self.gain,
            tripped: self.tripped,
            trips: self.trips,
            substeps,
            substep_force: self.out.substep_force,
        };
    }

    /// `render` of a multi-rate tool: the forces were rendered at the sub-steps;
    /// the local model from the deepest frozen contact at the end of the tick.
    fn render_multirate(&mut self, spec: &HapticSpec, data: &Data, k_c: f64) {
        let tool = tool_state(spec, data);
        let (_, t) = coupling_wrench(&spec.coupling, &self.device_world(spec), &tool);
        let f_env = self.out.force_env;
        let t_env = -spec.mapping.torque_to_device(&(t * self.gain));
        let n = self.out.substeps.clamp(1, MAX_SUBSTEPS);
        let force = self.out.substep_force[n - 1];
        let contact = self.sub.deepest.map(|(n_w, _)| (n_w, k_c));
        self.publish(spec, data, &tool, (force, f_env, t_env), contact, n);
    }

    /// The linearized local model (module `local`) about the tool's contact
    /// `(outward normal, contact stiffness)`, or the free-space force.
    fn local_model(
        &self,
        spec: &HapticSpec,
        f_env: &Vec3,
        contact: Option<(Vec3, f64)>,
    ) -> LocalModel {
        let m = &spec.mapping;
        match contact {
            Some((n_w, k_c)) if self.gain > 0.0 => {
                let n = m.rotation.inverse() * n_w;
                let k = spec.rendered_stiffness(&n_w, k_c);
                let f_n = f_env.dot(&n).max(0.0);
                let nn: Mat3 = n * n.transpose();
                LocalModel {
                    f0: f_env - n * f_env.dot(&n),
                    x0: if k > 0.0 {
                        self.x + n * (f_n / k)
                    } else {
                        self.x
                    },
                    k: nn * k,
                    b: Mat3::zeros(),
                    unilateral: Some(n),
                }
            }
            _ => LocalModel {
                f0: *f_env,
                x0: self.x,
                ..LocalModel::default()
            },
        }
    }
}

/// Whether the world's method lets the tool be sub-stepped (the scene's validation
/// requires it; a method override — `--method` — to Hunt–Crossley, which collides
/// at its own sub-steps, or to penalty with RK4, which collides at its stages, runs
/// the tool at the world rate instead).
fn multirate_runs_under(model: &Model) -> bool {
    match model.opt.method {
        Method::HuntCrossley(_) => false,
        Method::Penalty(_) => model.opt.integrator.first_order(),
        _ => true,
    }
}

/// The device's pose and twist in the world, extrapolated `t` s past its sample
/// (first-order hold: x + v t, exp(ω t) q).
fn device_world_at(
    spec: &HapticSpec,
    x: &Vec3,
    q: &Quat,
    v: &Vec3,
    w: &Vec3,
    t: f64,
) -> MotionState {
    let m = &spec.mapping;
    let xt = x + v * t;
    let qt = if t == 0.0 || *w == Vec3::zeros() {
        *q
    } else {
        Quat::from_scaled_axis(w * t) * q
    };
    MotionState {
        pose: m.pose_to_world(&xt, &qt),
        v: m.velocity_to_world(v),
        w: m.angular_velocity_to_world(w),
    }
}

fn tool_state(spec: &HapticSpec, data: &Data) -> MotionState {
    let s = &data.state[spec.tool];
    MotionState {
        pose: Pose::from_parts(s.x.into(), s.q),
        v: s.v,
        w: s.w,
    }
}

/// The tool's deepest contact of the last step: its outward normal (world, pushing
/// the tool out) and the contact's stiffness along it (N/m; ∞ for a rigid method).
fn deepest_contact(spec: &HapticSpec, model: &Model, data: &Data) -> Option<(Vec3, f64)> {
    let set = &data.contacts;
    let mut best: Option<(f64, Vec3, f64)> = None;
    for (c, m) in set.manifolds.iter().enumerate() {
        let (ba, bb) = (model.geoms[m.geom_a].body, model.geoms[m.geom_b].body);
        let n = if ba == spec.tool {
            m.normal
        } else if bb == spec.tool {
            -m.normal
        } else {
            continue;
        };
        let depth = m.max_depth(set);
        if depth <= 0.0 || best.is_some_and(|b| b.0 >= depth) {
            continue;
        }
        // The force on geom a's body pushes it along +normal.
        let f_n = data
            .contact_force
            .get(c)
            .map_or(0.0, |f| f.dot(&m.normal).abs());
        best = Some((depth, n, contact_stiffness(model, f_n, depth)));
    }
    best.map(|(_, n, k)| (n, k))
}

/// Normal stiffness of a contact carrying normal force `f_n` at (deepest) depth
/// `depth`: for the force models (penalty, Hunt–Crossley) the secant f_n / depth
/// of the force the step itself computed — for 000's multipoint model, kp times
/// the points' mean depth over the deepest (exactly kp for a flat face); the
/// complementarity method is rigid (∞: the coupling alone is felt, capped by the
/// device's max_stiffness).
fn contact_stiffness(model: &Model, f_n: f64, depth: f64) -> f64 {
    match &model.opt.method {
        Method::Penalty(_) | Method::HuntCrossley(_) => {
            let k = f_n / depth;
            if k.is_finite() {
                k
            } else {
                f64::INFINITY
            }
        }
        _ => f64::INFINITY,
    }
}
