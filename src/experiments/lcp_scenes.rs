//! The LCP method's reference scenes (003 eqs. (5)–(10) with 001's stabilization),
//! shared by the tests that assert on them (`tests/lcp_experiments.rs`,
//! `tests/contact_torture_lcp.rs`, `tests/lcp_robots.rs`) and by `rtphys plot`,
//! which draws their traces: the incline at and below the friction threshold, the
//! five-box stack's drift, the ball drop, and a robot settling under penalty vs LCP.

use crate::data::Data;
use crate::kinematics::frame_state;
use crate::math::Vec3;
use crate::model::scene::{load_scene_str, SceneError};
use crate::model::{LcpParams, LcpSolverKind, Method, Model};
use std::path::Path;

/// Gravity of the scenes, m/s².
pub const G: f64 = 9.81;

fn load(text: &str, name: &str) -> Result<Model, SceneError> {
    load_scene_str(text, name, Path::new("."))
}

/// A copy of `model` stepped by the LCP method with `p`.
pub fn with_lcp(model: &Model, p: LcpParams) -> Model {
    let mut opt = model.opt;
    opt.method = Method::Lcp(p);
    model.with_options(opt)
}

/// Default LCP parameters with `solver`.
pub fn lcp(solver: LcpSolverKind) -> LcpParams {
    LcpParams {
        solver,
        ..LcpParams::default()
    }
}

/// A 1 kg, 10 cm box on a plane tilted about y with tan θ = 0.5, at rest at its
/// resting penetration (the allowance), friction μ, a k-direction friction cone.
/// Returns the model and θ. At the threshold μ = tan θ friction has no reserve to
/// stop a block that moves, so a block dropped from exactly touching would keep the
/// slope component of its few free-fall steps.
pub fn incline(mu: f64, k: u32, solver: LcpSolverKind) -> Result<(Model, f64), SceneError> {
    let th = 0.5f64.atan();
    let (s, c) = (0.5 * th).sin_cos();
    let n = Vec3::new(th.sin(), 0.0, th.cos());
    let x = n * (0.05 - LcpParams::default().penetration_allowance);
    let text = format!(
        "[world]\ndt = 0.001\nmethod = \"lcp\"\n\n[[body]]\nname = \"slope\"\nstatic = true\nshape = {{ type = \"plane\" }}\norientation = [{c:?}, 0.0, {s:?}, 0.0]\nmaterial = {{ mu = {mu:?} }}\n\n[[body]]\nname = \"box\"\nshape = {{ type = \"box\", half_extents = [0.05, 0.05, 0.05] }}\nmass = 1.0\nposition = [{:?}, {:?}, {:?}]\norientation = [{c:?}, 0.0, {s:?}, 0.0]\nmaterial = {{ mu = {mu:?} }}\n",
        x.x, x.y, x.z
    );
    let model = with_lcp(
        &load(&text, "<incline>")?,
        LcpParams {
            friction_directions: k,
            ..lcp(solver)
        },
    );
    Ok((model, th))
}

/// A run's trace and end state.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// One value per step.
    pub values: Vec<f64>,
    /// The body's velocity along the measured direction at the end.
    pub final_velocity: f64,
    pub quarantined: u64,
    pub solver_failures: u64,
    pub solver_unconverged: u64,
}

/// The incline's box: displacement along the slope after every step.
pub fn run_incline(model: &Model, th: f64, steps: usize) -> Trace {
    let b = model.body_id("box").unwrap_or(model.nbody() - 1);
    let down = Vec3::new(th.cos(), 0.0, -th.sin());
    let mut data = Data::new(model);
    let mut pipeline = crate::Pipeline::new(model);
    let x0 = data.state[b].x;
    let mut values = Vec::with_capacity(steps);
    for _ in 0..steps {
        pipeline.step(model, &mut data);
        values.push((data.state[b].x - x0).dot(&down));
    }
    finish(values, data.state[b].v.dot(&down), &data)
}

fn finish(values: Vec<f64>, final_velocity: f64, data: &Data) -> Trace {
    Trace {
        values,
        final_velocity,
        quarantined: data.stats.quarantined,
        solver_failures: data.stats.solver_failures,
        solver_unconverged: data.stats.solver_unconverged,
    }
}

/// `base` (the five-box stack, `config/scenes/lcp_stack5.toml`) at step `h` under
/// `solver` for `seconds`: after every step, the largest distance any body has
/// moved from its start so far (the drift).
pub fn stack_drift(base: &Model, solver: LcpSolverKind, h: f64, seconds: f64) -> Trace {
    let mut opt = base.opt;
    opt.dt = h;
    opt.method = Method::Lcp(lcp(solver));
    let model = base.with_options(opt);
    let mut data = Data::new(&model);
    let mut pipeline = crate::Pipeline::new(&model);
    let x0: Vec<Vec3> = data.state.iter().map(|s| s.x).collect();
    let steps = (seconds / h).round() as usize;
    let mut drift = 0.0f64;
    let mut values = Vec::with_capacity(steps);
    for _ in 0..steps {
        pipeline.step(&model, &mut data);
        for (s, x) in data.state.iter().zip(&x0) {
            drift = drift.max((s.x - x).norm());
        }
        values.push(drift);
    }
    finish(values, 0.0, &data)
}

/// A world with a ground plane of friction `mu` (and restitution `e`) and the bodies
/// of `bodies` (TOML `[[body]]` tables), stepped by the LCP method with `solver`
/// ("lemke", "pgs", "newton") and the extra `[lcp]` lines `lcp_extra`.
pub fn ground_world(
    solver: &str,
    dt: f64,
    lcp_extra: &str,
    mu: f64,
    e: f64,
    bodies: &str,
) -> Result<Model, SceneError> {
    load(
        &format!(
            "[world]\ngravity = [0.0, 0.0, {}]\ndt = {dt:?}\nmethod = \"lcp\"\n\n\
             [lcp]\nsolver = \"{solver}\"\n{lcp_extra}\n\n\
             [[body]]\nname = \"ground\"\nstatic = true\nshape = {{ type = \"plane\" }}\n\
             material = {{ mu = {mu:?}, restitution = {e:?} }}\n\n{bodies}",
            -G
        ),
        "<lcp ground world>",
    )
}

/// The ball drop's record.
#[derive(Clone, Debug, Default)]
pub struct BallDrop {
    /// Deepest landing penetration, m.
    pub penetration: f64,
    /// Highest bottom height after the first impact, m.
    pub rebound: f64,
    /// (t, bottom height) after every step.
    pub height: Vec<(f64, f64)>,
    pub quarantined: u64,
}

/// A 0.1 m ball (1 kg) dropped from 1 m (bottom 1 m above the ground) for 3 s with
/// restitution `e` (Newton's impact law on when `restitution`).
pub fn drop_ball(solver: &str, e: f64, restitution: bool, dt: f64) -> Result<BallDrop, SceneError> {
    let r = 0.1;
    let ball = format!(
        "[[body]]\nname = \"ball\"\nshape = {{ type = \"sphere\", radius = {r:?} }}\nmass = 1.0\n\
         position = [0.0, 0.0, {:?}]\nmaterial = {{ mu = 0.5, restitution = {e:?} }}\n",
        1.0 + r
    );
    let model = ground_world(
        solver,
        dt,
        &format!("restitution = {restitution}"),
        0.5,
        e,
        &ball,
    )?;
    let b = model.nbody() - 1;
    let mut data = Data::new(&model);
    let mut pipeline = crate::Pipeline::new(&model);
    let steps = (3.0 / dt).round() as usize;
    let mut out = BallDrop {
        height: Vec::with_capacity(steps),
        ..Default::default()
    };
    let mut landed = false;
    for _ in 0..steps {
        pipeline.step(&model, &mut data);
        let z = data.state[b].x.z - r;
        out.height.push((data.time, z));
        out.penetration = out.penetration.max(-z);
        if !landed && data.state[b].v.z >= 0.0 {
            landed = true;
        }
        if landed {
            out.rebound = out.rebound.max(z);
        }
    }
    out.quarantined = data.stats.quarantined;
    Ok(out)
}

/// A copy of a robot scene stepped by the LCP method with `solver`.
pub fn robot_with_lcp(model: &Model, solver: LcpSolverKind) -> Model {
    with_lcp(model, lcp(solver))
}

/// Position of robot 0's frame `name` (`None` if it has no such frame).
pub fn frame_pos(model: &Model, data: &Data, name: &str) -> Option<Vec3> {
    let robot = model.robots.first()?;
    let f = robot.frame_id(name)?;
    Some(frame_state(model, &data.robots, 0, f).x)
}

/// Deepest contact point of the last step, m.
pub fn max_depth(data: &Data) -> f64 {
    data.contacts
        .points
        .iter()
        .map(|p| p.depth)
        .fold(0.0, f64::max)
}

/// A robot settling: the frame's trajectory, then its motion while watched.
#[derive(Clone, Debug)]
pub struct Settle {
    /// Frame position after the settle and the watch.
    pub x: Vec3,
    /// Largest motion of the frame over the watch (the settling check), m.
    pub moved: f64,
    /// Deepest contact point over the watch, m.
    pub depth: f64,
    /// (t, frame position) after every step of the settle and the watch.
    pub trajectory: Vec<(f64, Vec3)>,
    pub data: Data,
}

/// Steps `model` for `steps`, then watches robot 0's frame `name` for 500 more
/// steps (0.5 s at 1 kHz). `None` if the scene has no such frame.
pub fn settle(model: &Model, name: &str, steps: usize) -> Option<Settle> {
    let mut d = Data::new(model);
    let mut pipe = crate::Pipeline::new(model);
    let mut trajectory = Vec::with_capacity(steps + 500);
    for _ in 0..steps {
        pipe.step(model, &mut d);
        trajectory.push((d.time, frame_pos(model, &d, name)?));
    }
    let x0 = frame_pos(model, &d, name)?;
    let (mut moved, mut depth) = (0.0f64, 0.0f64);
    for _ in 0..500 {
        pipe.step(model, &mut d);
        let x = frame_pos(model, &d, name)?;
        trajectory.push((d.time, x));
        moved = moved.max((x - x0).norm());
        depth = depth.max(max_depth(&d));
    }
    Some(Settle {
        x: frame_pos(model, &d, name)?,
        moved,
        depth,
        trajectory,
        data: d,
    })
}
