//! Scene files (TOML) → [`Model`]. Every error names the file, the key path and,
//! where it can be found, the line.
//!
//! ```toml
//! [world]
//! gravity = [0.0, 0.0, -9.81]      # m/s²
//! dt = 0.001                       # s
//! integrator = "rk4"               # "rk4" | "semi_implicit_euler" | "implicit"
//! method = "penalty"               # "penalty" | "penalty_deepest" | "hunt_crossley" | "lcp" | "peg" | "ipc"
//! sleep = { enabled = false, rest_time = 0.5, v_rest = 2e-3, w_rest = 2e-2 }
//!                                  # sleeping islands (s, m/s, rad/s); ipc never sleeps
//!
//! [penalty]                        # optional; defaults kp, kv, ki = 2e4, 300, 1e3 per kg
//! kp_per_mass = 20000.0            # or kp = 5000.0 (N/m)
//! rest_tol = 0.0                   # m, 0 = off (≤ 1e-9): a pair whose geoms stay within
//!                                  #  it of where its manifold was found keeps that
//!                                  #  manifold and (semi-implicit Euler) its normal rows
//! robot_implicit = false           # robot links' normal force linearly implicit through
//!                                  #  the robot's mass matrix (semi-implicit Euler)
//! distribution = "count"           # "count" (000's 1/r) | "modal": the force shared by
//!                                  #  the pair's contact-space inverse mass, so a thin
//!                                  #  body stands as a rigid one (flat pairs)
//! [penalty.friction]               # optional; the sticking anchor (k_stick, b_stick, …)
//! implicit = false                 # two sticking rows in the implicit normal solve
//! linear = true                    # default: anchors linearly implicit, solved together
//!                                  #  per body, rolling resistance held (false: clamped)
//! warm_start = false               # linear anchors' solve from the last step's (opt-in)
//! direct = false                   # linear anchors' coupled solve factored (opt-in)
//! late_pairs = false               # anchors for pairs closed by friction's solve (opt-in)
//! solved_drag = false              # drag a stretched anchor only where its solve reached the cone (opt-in)
//! solved_stick = false             # stick/slip decided on the anchors' solve: trial anchors below
//!                                  #  v_slip, the drag as solved_drag (opt-in; penalty only)
//! over_relaxation = 1.0            # linear anchors' sweeps' ω in (0, 2), or "adaptive" (Young's ω from the sweeps)
//! [penalty.impacts]                # optional; enabled = true, epsilon = 1e-3 (m/s, ε of Fig. 2)
//! reimpact = true                  # a pair struck last step and still penetrating is struck
//!                                  #  again when some points separate while others approach
//!                                  #  (false: only by a third body's impulse, 000 Fig. 2)
//!
//! [hunt_crossley]                  # optional; read when method = "hunt_crossley"
//! penetration_fraction = 0.0005    # §5 rule for λ (or stiffness_volume N/m³,
//!                                  #  stiffness_depth N/m)
//! damping_rule = "exact"           # "exact" | "paper"
//! adaptive = true                  # energy-monitored sub-steps (§4.2)
//! energy_tolerance = 1e-4          # relative, per tick
//! pair_energy_scale = false        # E_s also bounded per penetrating pair
//! min_substep = 1e-6               # s
//! min_impact_speed = 0.05          # m/s
//! [hunt_crossley.friction]         # same keys as [penalty.friction]
//!
//! [lcp]                            # optional; read when method = "lcp" or "peg" (003 + 001)
//! solver = "lemke"                 # "lemke" | "pgs" | "newton" | "primal" (peg: "lemke" only)
//! friction_directions = 4          # k ≥ 4 directions of the polyhedral cone
//! stabilization = "full"           # "off" | "full" | β in [0, 1] (× ψ/h)
//! scheme = "stewart_trinkle"       # "stewart_trinkle" (003 eq. 7) | "anitescu_hart" (001)
//! penetration_allowance = 1e-5     # m, depth the stabilization leaves
//! contact_window = 1e-3            # m, speculative window (0 = contacts only on overlap)
//! restitution = true               # Newton restitution on the normal rows (pairs with e > 0)
//! restitution_threshold = 0.1      # m/s
//! max_pivots = 1000                # Lemke (default 10·n + 100)
//! max_iterations = 200             # PGS sweeps (also Lemke's fallback)
//! tolerance = 1e-9                 # PGS residual
//! relaxation = 1.0                 # PGS SOR ω ∈ (0, 2)
//! warm_start = true
//! friction = "point"               # "point" (each point's own cone) | "patch" (a face's
//!                                  #  points share the cone of its total load; lcp33)
//! peg_block_gs = false             # peg: over-cap islands by block Gauss–Seidel over
//!                                  #  two-body groups, Lemke per group (experimental)
//! peg_elastic = false              # peg: an island every solve failed on gets its force
//!                                  #  rows relaxed by the least t (experimental)
//! peg_general = true               # peg: a failed island in 003's general |C| > 1 form
//!                                  #  (forces on any member of a set)
//! peg_active_set = false           # peg: an unconverged over-cap island by Lemke on
//!                                  #  its active set (experimental)
//! peg_passes = 1                   # peg: passes per step (>1: the predicted reach of
//!                                  #  bodies spun up within the step)
//! peg_consistent = false           # peg: the last predicted pass kept only if its
//!                                  #  own ν⁺ stays within the reach it was built for
//! peg_signed_lead = false          # peg: the first pass's lead is each contact's own
//!                                  #  signed second-order gap term (experimental)
//! peg_retry_depth = 2              # peg: a failed step taken again as two of h/2,
//!                                  #  split again down to h/2^depth (0..=8; 0 = off;
//!                                  #  default since peg32)
//! peg_retry_overlap = 1e-11        # peg, with peg_retry_depth > 0: also retry a step whose
//!                                  #  exact overlap rose by more than this × d³ on a pair
//!                                  #  (d the smaller geom's diameter; 0 = off; default
//!                                  #  since peg32)
//! peg_rotation_eps_theta = false   # peg: applicability relaxed by the start's rotation
//!                                  #  h(|ω_a| + |ω_b|) (≥ 5°) instead of 5° (experimental)
//! peg_retry_rotation_eps_theta = false # peg, with peg_retry_depth > 0: the deepest retry
//!                                  #  level's sub-steps take that relaxation (experimental)
//! peg_retry_second_chance = false  # peg, with peg_retry_depth and peg_retry_overlap > 0: a
//!                                  #  deepest-level sub-step that failed or rose is taken
//!                                  #  again with ε_θ from its start's and end's rotation,
//!                                  #  the better kept (experimental)
//! peg_outline_ccd = true           # peg: the outline's continuous collision after the step
//!                                  #  (false: off for PEG; a diagnostic)
//! peg_ccd_points = true            # peg: its continuous collision reads the depth the rest
//!                                  #  of the step carries by the points that meet (false:
//!                                  #  by the bodies' origins, PEG before peg30)
//! peg_work_penetration = false     # peg: true bounds the work check's push-out depth of a
//!                                  #  PEG row by its feature points' real penetration at
//!                                  #  the step's start (experimental, peg33; false: the
//!                                  #  distance behind its own plane)
//! peg_work_chain = true            # peg: the work check also allows the push-out of pushes
//!                                  #  in series (a stack's chain of depths; peg33; default
//!                                  #  since peg34)
//! peg_work_clamp = true            # peg: a refused pass the retry keeps is solved again with
//!                                  #  its rows clamped to their real penetration before the
//!                                  #  standard rows' fallback (peg34; false: the fallback at once)
//! peg_x_own_row = false            # peg: an X constraint whose contacts all carry forces takes
//!                                  #  its impulse on a copy of a contact's row (peg35; false:
//!                                  #  such an X adds no rows)
//! peg_x_joined = false             # peg: such an X joins the force of its most applicable
//!                                  #  member (the force's row the least of the two running
//!                                  #  maxima; peg36; takes precedence over peg_x_own_row)
//! peg_edge_edge_uncovered = false  # peg, 3D: an edge pair near a vertex that has no potential
//!                                  #  contact keeps its edge–edge row (peg36)
//! peg_vv_paired_primaries = false  # peg, planar: a vertex–vertex pair's two I primaries paired
//!                                  #  (C1/C3 or C2/C4) so each X keeps a free member (peg35)
//! peg_ccd_retry = false            # peg, with peg_retry_depth > 0: a (sub-)step whose swept
//!                                  #  motion meets an impact is split like a failed one; only
//!                                  #  the deepest level rewinds, over its sub-step (experimental)
//! peg_ccd_held = false             # peg, with peg_ccd_retry: that sweep leaves out the body
//!                                  #  pairs the attempt had contact rows with (experimental)
//! peg_vv_one_sided = false         # peg: a vertex–vertex I set only for a vertex at the
//!                                  #  other, the X only when both are (experimental, peg24)
//! peg_vv_feasible = true           # peg: the completed vertex–vertex I set only for a vertex
//!                                  #  in front of an edge line / face of the other (peg28;
//!                                  #  default since peg29)
//! peg_retry_cover = true           # peg, with peg_retry_depth > 0: the pairs an attempt
//!                                  #  meets beyond the step's candidates found (a sub-step's
//!                                  #  own broad phase, a knocked body's attempt taken again;
//!                                  #  false: off, a diagnostic, peg26)
//! peg_retry_corrector = true       # peg, with peg_retry_depth and peg_retry_overlap > 0: a
//!                                  #  deepest-level sub-step whose overlap rose is taken again
//!                                  #  with the gap's second-order term in its rows (peg27;
//!                                  #  default since peg29)
//!
//! [ipc]                            # optional; read when method = "ipc" (004, Rigid IPC);
//!                                  #  bodies placed closer than dhat (touching) start dhat
//!                                  #  apart; impacts are inelastic (restitution unused)
//! dhat = 1e-3                      # m, barrier activation distance d̂
//! newton_tolerance = 1e-5          # m/s, largest point displacement of a Newton step / h
//! max_iterations = 100             # Newton iterations per step (per friction pass)
//! friction_eps_v = 1e-4            # m/s, smoothed-friction velocity ε_v (004 §5)
//! friction_iterations = 1          # lagged friction passes per step
//! plane_half_width = 100.0         # m, a plane geom is this square (two triangles)
//! rotation = "free_flow"           # the rotation's prediction: the torque-free flow (a
//!                                  #  free spin kept), or "implicit_euler" (004's; damps
//!                                  #  a free spin by ≈ (ωh)² a step)
//! count_once = true                # weight the constraint set so that each contact
//!                                  #  counts once, whatever the triangulation (the
//!                                  #  max approximator; flat edges no feature);
//!                                  #  false: 004's set, each primitive pair once
//!
//! [[body]]
//! name = "box"
//! shape = { type = "box", half_extents = [0.5, 0.5, 0.5] }
//! mass = 10.0                      # or density (kg/m³)
//! position = [0.0, 0.0, 0.5]       # the shape origin (not the centre of mass)
//! rpy = [0.0, 0.0, 0.0]            # or orientation = [w, x, y, z]
//! # shape = { type = "mesh", file = "cup.obj", scale = 1.0 }   # .obj/.stl, relative
//! #   to the scene file. Every method but "ipc" uses the convex hull of its vertices.
//! #   "ipc" uses its triangles as they are (nonconvex, or open = codimensional):
//! #   welded, and refused (naming the file) if a triangle is degenerate, an edge lies
//! #   in more than two triangles, the orientation is inconsistent, or a closed mesh
//! #   faces inward; a closed mesh weighs as the solid it bounds, an open one (a card)
//! #   takes `mass` (a uniform thin shell's inertia) or `mass` and `inertia`.
//!
//! [[robot]]
//! name = "arm"                     # default: the URDF's robot name
//! urdf = "../robots/arm7.urdf"     # relative to the scene file
//! base = "fixed"                   # "fixed" | "floating"
//! position = [0.0, 0.0, 0.0]       # root link frame (orientation / rpy too)
//! joints = { joint4 = -1.5 }       # initial joint positions, rad or m
//! material = { mu = 0.8 }          # for every link's collision shapes
//! materials = { caster = { mu = 0.0 } }  # by collision-shape or link name
//! self_collision = false           # non-adjacent links of this robot collide
//! strict = false                   # URDF warnings are errors
//! ft_sensors = ["joint7"]          # 6-axis force/torque at these joints
//! imus = ["link7"]                 # IMUs on these links
//! [[robot.servo]]                  # PD servo run in the physics thread
//! joint = "joint1"
//! kp = 400.0                       # N·m/rad
//! kd = 40.0                        # N·m·s/rad
//! max_torque = 87.0                # N·m (the joint's effort limit applies too)
//! enabled = true                   # hold the initial position from the start
//! ```
//!
//! **Poses.** A body's `position` is its shape origin: the frame its shapes (and a
//! polytope's `points`, a `[[body.geom]]`'s pose) are given in. The builder moves the
//! body frame to the centre of mass, which is what `Data`, the gRPC state and the
//! `rtphys run` CSV report: a body whose shapes are not centred on their origin (a
//! polytope, several geoms) reports a position different from the scene's.
//! `orientation = [w, x, y, z]` is a unit quaternion rotating body axes into world
//! axes; `rpy = [roll, pitch, yaw]` (rad) is R = Rz(yaw) Ry(pitch) Rx(roll) — roll
//! about the world x axis first, then pitch about world y, then yaw about world z
//! (URDF's convention). A robot's pose keys place its root link frame.

use super::{
    BodyKind, BodySpec, ContactModel, DampingRule, FrictionParams, Gain, HuntCrossleyParams,
    ImpactParams, Integrator, LcpParams, LcpSolverKind, Locks, MassSpec, Material, Method, Model,
    ModelBuilder, Options, OverRelaxation, PenaltyParams, PenaltyPoints, SleepParams,
    StabilizationScheme,
};
use crate::collision::{mesh, Shape};
use crate::math::{Mat3, Pose, Quat, Vec3};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Largest accepted coordinate, size, velocity and angular velocity in a scene, in SI
/// units (m, m/s, rad/s): finite inputs beyond it overflow the contact arithmetic.
pub const MAX_COORD: f64 = 1e6;
/// Accepted mass range of a free body, kg (given or from density × volume).
pub const MASS_RANGE: (f64, f64) = (1e-9, 1e12);
/// Largest accepted gravity magnitude, m/s².
pub const MAX_GRAVITY: f64 = 1e4;
/// Largest accepted gain, stiffness or other positive parameter (N/m, N/m³, …).
pub const MAX_PARAM: f64 = 1e15;

/// A scene that could not be loaded: where and what.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "{file}{}: {}{message}",
    line.map(|l| format!(":{l}")).unwrap_or_default(),
    if key.is_empty() { String::new() } else { format!("{key}: ") }
)]
pub struct SceneError {
    pub file: String,
    /// Key path, e.g. `body[2].mass` (`-` when the file as a whole is at fault;
    /// empty for a TOML syntax error, which has the line).
    pub key: String,
    /// 1-based line, where known.
    pub line: Option<usize>,
    pub message: String,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct SceneToml {
    #[serde(default)]
    world: WorldToml,
    #[serde(default)]
    penalty: PenaltyToml,
    #[serde(default)]
    hunt_crossley: HuntCrossleyToml,
    #[serde(default)]
    lcp: LcpToml,
    #[serde(default)]
    ipc: IpcToml,
    #[serde(default, rename = "body")]
    bodies: Vec<toml::Spanned<BodyToml>>,
    #[serde(default, rename = "robot")]
    robots: Vec<toml::Spanned<RobotToml>>,
    #[serde(default, rename = "haptic")]
    haptics: Vec<toml::Spanned<HapticToml>>,
}

/// A number, or one per axis.
#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(untagged)]
enum ScalarOr3 {
    One(f64),
    Three([f64; 3]),
}

impl ScalarOr3 {
    fn vec(self) -> Vec3 {
        match self {
            ScalarOr3::One(v) => Vec3::repeat(v),
            ScalarOr3::Three(v) => Vec3::from(v),
        }
    }
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum WatchdogName {
    Hold,
    Release,
    Fade,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct HapticToml {
    name: String,
    tool: String,
    #[serde(default = "three")]
    dof: u32,
    stiffness: ScalarOr3,
    #[serde(default = "zero3")]
    damping: ScalarOr3,
    #[serde(default)]
    rot_stiffness: f64,
    #[serde(default)]
    rot_damping: f64,
    #[serde(default = "one")]
    scale: f64,
    #[serde(default)]
    offset: [f64; 3],
    orientation: Option<[f64; 4]>,
    rpy: Option<[f64; 3]>,
    workspace_min: [f64; 3],
    workspace_max: [f64; 3],
    max_force: f64,
    #[serde(default = "infinite")]
    max_torque: f64,
    #[serde(default = "infinite")]
    max_rate: f64,
    max_stiffness: f64,
    #[serde(default = "yes")]
    passivity: bool,
    #[serde(default = "yes")]
    gravity_compensation: bool,
    #[serde(default = "default_watchdog")]
    watchdog: WatchdogName,
    #[serde(default = "default_watchdog_timeout")]
    watchdog_timeout: f64,
    #[serde(default = "default_fade_time")]
    fade_time: f64,
    rate_hz: Option<f64>,
    contact_stiffness: Option<f64>,
    contact_damping: Option<f64>,
    teleop: Option<TeleopToml>,
}

/// A `[[haptic]]`'s `teleop` table: the tool is a robot arm's link and the arm's
/// controller is the teleoperation controller (src/haptics/teleop.rs).
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct TeleopToml {
    #[serde(default = "one")]
    posture_hz: f64,
    #[serde(default)]
    orientation_stiffness: f64,
    #[serde(default)]
    orientation_damping: f64,
    #[serde(default)]
    damping: f64,
}

fn three() -> u32 {
    3
}
fn zero3() -> ScalarOr3 {
    ScalarOr3::One(0.0)
}
fn default_watchdog() -> WatchdogName {
    WatchdogName::Fade
}
fn default_watchdog_timeout() -> f64 {
    0.05
}
fn default_fade_time() -> f64 {
    0.2
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct RobotToml {
    name: Option<String>,
    urdf: String,
    #[serde(default = "default_base")]
    base: BaseName,
    #[serde(default)]
    position: [f64; 3],
    orientation: Option<[f64; 4]>,
    rpy: Option<[f64; 3]>,
    #[serde(default)]
    joints: std::collections::BTreeMap<String, f64>,
    material: Option<Material>,
    /// Materials by collision-shape name or link name (override `material`).
    #[serde(default)]
    materials: std::collections::BTreeMap<String, Material>,
    #[serde(default)]
    self_collision: bool,
    #[serde(default)]
    strict: bool,
    #[serde(default)]
    ft_sensors: Vec<String>,
    #[serde(default)]
    imus: Vec<String>,
    #[serde(default)]
    servo: Vec<ServoToml>,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum BaseName {
    Fixed,
    Floating,
}

fn default_base() -> BaseName {
    BaseName::Fixed
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct ServoToml {
    joint: String,
    kp: f64,
    #[serde(default)]
    kd: f64,
    #[serde(default = "infinite")]
    max_torque: f64,
    /// Hold the initial position from the start (default true).
    #[serde(default = "yes")]
    enabled: bool,
}

fn yes() -> bool {
    true
}

fn infinite() -> f64 {
    f64::INFINITY
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct WorldToml {
    #[serde(default = "default_gravity")]
    gravity: [f64; 3],
    #[serde(default = "default_dt")]
    dt: f64,
    #[serde(default = "default_integrator")]
    integrator: Integrator,
    #[serde(default = "default_method")]
    method: MethodName,
    #[serde(default = "default_max_abs")]
    max_abs_state: f64,
    #[serde(default)]
    sleep: SleepToml,
}

/// `[world] sleep = { enabled, rest_time, v_rest, w_rest }` (`SleepParams`).
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct SleepToml {
    #[serde(default)]
    enabled: bool,
    #[serde(default = "default_rest_time")]
    rest_time: f64,
    #[serde(default = "default_v_rest")]
    v_rest: f64,
    #[serde(default = "default_w_rest")]
    w_rest: f64,
}

impl Default for SleepToml {
    fn default() -> Self {
        let d = SleepParams::default();
        SleepToml {
            enabled: d.enabled,
            rest_time: d.rest_time,
            v_rest: d.v_rest,
            w_rest: d.w_rest,
        }
    }
}

fn default_rest_time() -> f64 {
    SleepParams::default().rest_time
}
fn default_v_rest() -> f64 {
    SleepParams::default().v_rest
}
fn default_w_rest() -> f64 {
    SleepParams::default().w_rest
}

impl Default for WorldToml {
    fn default() -> Self {
        WorldToml {
            gravity: default_gravity(),
            dt: default_dt(),
            integrator: default_integrator(),
            method: default_method(),
            max_abs_state: default_max_abs(),
            sleep: SleepToml::default(),
        }
    }
}

fn default_gravity() -> [f64; 3] {
    [0.0, 0.0, -9.81]
}
fn default_dt() -> f64 {
    1e-3
}
fn default_integrator() -> Integrator {
    Integrator::SemiImplicitEuler
}
fn default_method() -> MethodName {
    MethodName::Penalty
}
fn default_max_abs() -> f64 {
    1e10
}

/// Names accepted for `world.method` (and `rtphys run --method`).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MethodName {
    /// 000's multi-point PID penalty with impulses.
    Penalty,
    /// The deepest-point penalty baseline (same PID law, one point).
    PenaltyDeepest,
    /// 002's Hunt–Crossley contact with energy-monitored adaptive sub-steps.
    HuntCrossley,
    /// 003's velocity-level complementarity step (Lemke or PGS).
    Lcp,
    /// The same step with 003's polytopal exact geometry (PEG) rows.
    Peg,
    /// 004's Rigid IPC (barrier potentials, Newton, curved CCD).
    Ipc,
}

impl std::str::FromStr for MethodName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "penalty" => Ok(MethodName::Penalty),
            "penalty_deepest" => Ok(MethodName::PenaltyDeepest),
            "hunt_crossley" => Ok(MethodName::HuntCrossley),
            "lcp" => Ok(MethodName::Lcp),
            "ipc" => Ok(MethodName::Ipc),
            "peg" => Ok(MethodName::Peg),
            other => Err(format!(
                "unknown method '{other}' (known: penalty, penalty_deepest, hunt_crossley, lcp, peg, ipc)"
            )),
        }
    }
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct PenaltyToml {
    kp: Option<f64>,
    kv: Option<f64>,
    ki: Option<f64>,
    kp_per_mass: Option<f64>,
    kv_per_mass: Option<f64>,
    ki_per_mass: Option<f64>,
    forgetting: Option<f64>,
    damping_limit: Option<f64>,
    stiffness_limit: Option<f64>,
    rest_tol: Option<f64>,
    robot_implicit: Option<bool>,
    distribution: Option<crate::model::Distribution>,
    #[serde(default)]
    friction: FrictionToml,
    #[serde(default)]
    impacts: ImpactsToml,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct HuntCrossleyToml {
    stiffness_volume: Option<f64>,
    stiffness_depth: Option<f64>,
    penetration_fraction: Option<f64>,
    damping_rule: Option<DampingRuleName>,
    min_impact_speed: Option<f64>,
    adaptive: Option<bool>,
    energy_tolerance: Option<f64>,
    pair_energy_scale: Option<bool>,
    min_substep: Option<f64>,
    #[serde(default)]
    friction: FrictionToml,
}

#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum DampingRuleName {
    Exact,
    Paper,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
struct FrictionToml {
    k_stick: Option<f64>,
    k_stick_per_mass: Option<f64>,
    b_stick: Option<f64>,
    b_stick_per_mass: Option<f64>,
    v_stick: Option<f64>,
    v_slip: Option<f64>,
    implicit: Option<bool>,
    linear: Option<bool>,
    warm_start: Option<bool>,
    direct: Option<bool>,
    late_pairs: Option<bool>,
    solved_drag: Option<bool>,
    solved_stick: Option<bool>,
    over_relaxation: Option<OverRelaxationToml>,
}

/// `[…friction] over_relaxation`: a number or the word "adaptive".
#[derive(Deserialize, Debug, Clone)]
#[serde(untagged)]
enum OverRelaxationToml {
    Fixed(f64),
    Rule(String),
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct ImpactsToml {
    enabled: Option<bool>,
    epsilon: Option<f64>,
    reimpact: Option<bool>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct BodyToml {
    name: String,
    #[serde(default, rename = "static")]
    is_static: bool,
    shape: Option<ShapeToml>,
    #[serde(default, rename = "geom")]
    geoms: Vec<GeomToml>,
    mass: Option<f64>,
    density: Option<f64>,
    /// Inertia about the COM in the body frame: 3 principal values or a 3×3 matrix.
    inertia: Option<toml::Value>,
    #[serde(default)]
    position: [f64; 3],
    orientation: Option<[f64; 4]>,
    rpy: Option<[f64; 3]>,
    #[serde(default)]
    velocity: [f64; 3],
    #[serde(default)]
    angular_velocity: [f64; 3],
    material: Option<Material>,
    /// Locked degrees of freedom: names among x, y, z, rx, ry, rz, or "planar"
    /// (= z, rx, ry: the planar world of 003's 2D experiment).
    lock: Option<Vec<String>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct GeomToml {
    shape: ShapeToml,
    #[serde(default)]
    position: [f64; 3],
    orientation: Option<[f64; 4]>,
    rpy: Option<[f64; 3]>,
    material: Option<Material>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum ShapeToml {
    Plane,
    Sphere {
        radius: f64,
    },
    Box {
        half_extents: Option<[f64; 3]>,
        size: Option<[f64; 3]>,
    },
    Capsule {
        radius: f64,
        half_length: f64,
    },
    Cylinder {
        radius: f64,
        half_length: f64,
    },
    Polytope {
        points: Vec<[f64; 3]>,
    },
    /// A convex polygon in the geom's x–y plane (the hull of `points`), extruded
    /// along z by `thickness` (a right prism, centred on z = 0): the shape of the
    /// planar world.
    Polygon {
        points: Vec<[f64; 2]>,
        thickness: f64,
    },
    Mesh {
        file: String,
        #[serde(default = "one")]
        scale: f64,
    },
}

/// The `[ipc]` table.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct IpcToml {
    dhat: Option<f64>,
    newton_tolerance: Option<f64>,
    max_iterations: Option<i64>,
    friction_eps_v: Option<f64>,
    friction_iterations: Option<i64>,
    plane_half_width: Option<f64>,
    rotation: Option<IpcRotationName>,
    count_once: Option<bool>,
}

#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum IpcRotationName {
    ImplicitEuler,
    FreeFlow,
}

/// The `[ipc]` table (keys relative to it in errors).
fn ipc_method(t: &IpcToml) -> Result<Method, (String, String)> {
    let d = super::IpcParams::default();
    let count = |v: Option<i64>, k: &str, dflt: usize| match v {
        Some(n) if n < 1 => Err((k.to_string(), format!("must be an integer ≥ 1, got {n}"))),
        Some(n) => Ok(n as usize),
        None => Ok(dflt),
    };
    let p = super::IpcParams {
        dhat: t.dhat.unwrap_or(d.dhat),
        newton_tolerance: t.newton_tolerance.unwrap_or(d.newton_tolerance),
        max_iterations: count(t.max_iterations, "max_iterations", d.max_iterations)?,
        friction_eps_v: t.friction_eps_v.unwrap_or(d.friction_eps_v),
        friction_iterations: count(
            t.friction_iterations,
            "friction_iterations",
            d.friction_iterations,
        )?,
        plane_half_width: t.plane_half_width.unwrap_or(d.plane_half_width),
        rotation: match t.rotation {
            None => d.rotation,
            Some(IpcRotationName::ImplicitEuler) => super::IpcRotation::ImplicitEuler,
            Some(IpcRotationName::FreeFlow) => super::IpcRotation::FreeFlow,
        },
        count_once: t.count_once.unwrap_or(d.count_once),
    };
    p.validate().map_err(|(k, m)| (k.to_string(), m))?;
    Ok(Method::Ipc(p))
}

/// The `[lcp]` table.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct LcpToml {
    solver: Option<LcpSolverName>,
    friction_directions: Option<i64>,
    stabilization: Option<StabilizationToml>,
    scheme: Option<SchemeName>,
    penetration_allowance: Option<f64>,
    contact_window: Option<f64>,
    restitution: Option<bool>,
    restitution_threshold: Option<f64>,
    max_pivots: Option<i64>,
    max_iterations: Option<i64>,
    tolerance: Option<f64>,
    relaxation: Option<f64>,
    warm_start: Option<bool>,
    friction: Option<FrictionName>,
    split_memory: Option<f64>,
    peg_block_gs: Option<bool>,
    peg_elastic: Option<bool>,
    peg_general: Option<bool>,
    peg_active_set: Option<bool>,
    peg_passes: Option<i64>,
    peg_consistent: Option<bool>,
    peg_signed_lead: Option<bool>,
    peg_retry_depth: Option<i64>,
    peg_retry_overlap: Option<f64>,
    peg_rotation_eps_theta: Option<bool>,
    peg_retry_rotation_eps_theta: Option<bool>,
    peg_retry_second_chance: Option<bool>,
    peg_outline_ccd: Option<bool>,
    peg_ccd_points: Option<bool>,
    peg_work_penetration: Option<bool>,
    peg_work_chain: Option<bool>,
    peg_work_clamp: Option<bool>,
    peg_x_own_row: Option<bool>,
    peg_x_joined: Option<bool>,
    peg_edge_edge_uncovered: Option<bool>,
    peg_vv_paired_primaries: Option<bool>,
    peg_ccd_retry: Option<bool>,
    peg_ccd_held: Option<bool>,
    peg_vv_one_sided: Option<bool>,
    peg_vv_feasible: Option<bool>,
    peg_retry_cover: Option<bool>,
    peg_retry_corrector: Option<bool>,
}

#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum LcpSolverName {
    Lemke,
    Pgs,
    Newton,
    Primal,
}

/// `[lcp] friction = "point" | "patch"`.
#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum FrictionName {
    Point,
    Patch,
}

#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum SchemeName {
    StewartTrinkle,
    AnitescuHart,
}

/// `stabilization = "off" | "full" | β`.
#[derive(Deserialize, Debug, Clone)]
#[serde(untagged)]
enum StabilizationToml {
    Fraction(f64),
    Name(String),
}

/// The `[lcp]` table (keys relative to it in errors).
fn lcp_method(l: &LcpToml, name: MethodName) -> Result<Method, (String, String)> {
    let d = LcpParams::default();
    let count = |v: Option<i64>, k: &str| -> Result<Option<usize>, (String, String)> {
        match v {
            Some(n) if n < 1 => Err((k.to_string(), format!("must be an integer ≥ 1, got {n}"))),
            Some(n) => Ok(Some(n as usize)),
            None => Ok(None),
        }
    };
    let stabilization = match &l.stabilization {
        None => d.stabilization,
        Some(StabilizationToml::Fraction(b)) => *b,
        Some(StabilizationToml::Name(s)) => match s.as_str() {
            "off" => 0.0,
            "full" => 1.0,
            other => {
                return Err((
                    "stabilization".into(),
                    format!("must be \"off\", \"full\" or a number in [0, 1], got '{other}'"),
                ))
            }
        },
    };
    let friction_directions = match l.friction_directions {
        Some(k) if !(4..=64).contains(&k) => {
            return Err((
                "friction_directions".into(),
                format!("must be an integer in [4, 64], got {k}"),
            ))
        }
        Some(k) => k as u32,
        None => d.friction_directions,
    };
    let p = LcpParams {
        solver: match l.solver {
            Some(LcpSolverName::Pgs) => LcpSolverKind::Pgs,
            Some(LcpSolverName::Newton) => LcpSolverKind::Newton,
            Some(LcpSolverName::Primal) => LcpSolverKind::Primal,
            Some(LcpSolverName::Lemke) | None => LcpSolverKind::Lemke,
        },
        friction_directions,
        stabilization,
        scheme: match l.scheme {
            Some(SchemeName::AnitescuHart) => StabilizationScheme::AnitescuHart,
            Some(SchemeName::StewartTrinkle) | None => StabilizationScheme::StewartTrinkle,
        },
        penetration_allowance: l.penetration_allowance.unwrap_or(d.penetration_allowance),
        contact_window: l.contact_window.unwrap_or(d.contact_window),
        restitution: l.restitution.unwrap_or(d.restitution),
        restitution_threshold: l.restitution_threshold.unwrap_or(d.restitution_threshold),
        max_pivots: count(l.max_pivots, "max_pivots")?.or(d.max_pivots),
        max_iterations: count(l.max_iterations, "max_iterations")?.unwrap_or(d.max_iterations),
        tolerance: l.tolerance.unwrap_or(d.tolerance),
        relaxation: l.relaxation.unwrap_or(d.relaxation),
        warm_start: l.warm_start.unwrap_or(d.warm_start),
        friction: match l.friction {
            Some(FrictionName::Patch) => super::FrictionModel::Patch,
            Some(FrictionName::Point) => super::FrictionModel::Point,
            None => d.friction,
        },
        split_memory: l.split_memory.unwrap_or(d.split_memory),
        peg_block_gs: l.peg_block_gs.unwrap_or(d.peg_block_gs),
        peg_elastic: l.peg_elastic.unwrap_or(d.peg_elastic),
        peg_general: l.peg_general.unwrap_or(d.peg_general),
        peg_active_set: l.peg_active_set.unwrap_or(d.peg_active_set),
        peg_passes: count(l.peg_passes, "peg_passes")?.unwrap_or(d.peg_passes),
        peg_consistent: l.peg_consistent.unwrap_or(d.peg_consistent),
        peg_signed_lead: l.peg_signed_lead.unwrap_or(d.peg_signed_lead),
        peg_retry_depth: match l.peg_retry_depth {
            Some(n) if !(0..=crate::model::lcp::MAX_PEG_RETRY_DEPTH as i64).contains(&n) => {
                return Err((
                    "peg_retry_depth".into(),
                    format!(
                        "must be an integer in [0, {}], got {n}",
                        crate::model::lcp::MAX_PEG_RETRY_DEPTH
                    ),
                ))
            }
            Some(n) => n as usize,
            None => d.peg_retry_depth,
        },
        peg_retry_overlap: l.peg_retry_overlap.unwrap_or(d.peg_retry_overlap),
        peg_rotation_eps_theta: l.peg_rotation_eps_theta.unwrap_or(d.peg_rotation_eps_theta),
        peg_retry_rotation_eps_theta: l
            .peg_retry_rotation_eps_theta
            .unwrap_or(d.peg_retry_rotation_eps_theta),
        peg_retry_second_chance: l
            .peg_retry_second_chance
            .unwrap_or(d.peg_retry_second_chance),
        peg_outline_ccd: l.peg_outline_ccd.unwrap_or(d.peg_outline_ccd),
        peg_ccd_points: l.peg_ccd_points.unwrap_or(d.peg_ccd_points),
        peg_work_penetration: l.peg_work_penetration.unwrap_or(d.peg_work_penetration),
        peg_work_chain: l.peg_work_chain.unwrap_or(d.peg_work_chain),
        peg_work_clamp: l.peg_work_clamp.unwrap_or(d.peg_work_clamp),
        peg_x_own_row: l.peg_x_own_row.unwrap_or(d.peg_x_own_row),
        peg_x_joined: l.peg_x_joined.unwrap_or(d.peg_x_joined),
        peg_edge_edge_uncovered: l
            .peg_edge_edge_uncovered
            .unwrap_or(d.peg_edge_edge_uncovered),
        peg_vv_paired_primaries: l
            .peg_vv_paired_primaries
            .unwrap_or(d.peg_vv_paired_primaries),
        peg_ccd_retry: l.peg_ccd_retry.unwrap_or(d.peg_ccd_retry),
        peg_ccd_held: l.peg_ccd_held.unwrap_or(d.peg_ccd_held),
        peg_vv_one_sided: l.peg_vv_one_sided.unwrap_or(d.peg_vv_one_sided),
        peg_vv_feasible: l.peg_vv_feasible.unwrap_or(d.peg_vv_feasible),
        peg_retry_cover: l.peg_retry_cover.unwrap_or(d.peg_retry_cover),
        peg_retry_corrector: l.peg_retry_corrector.unwrap_or(d.peg_retry_corrector),
        contact_model: if name == MethodName::Peg {
            ContactModel::Peg
        } else {
            ContactModel::Standard
        },
    };
    p.validate().map_err(|(k, m)| (k.to_string(), m))?;
    Ok(Method::Lcp(p))
}

fn one() -> f64 {
    1.0
}

/// Load a scene file.
pub fn load_scene_file(path: impl AsRef<Path>) -> Result<Model, SceneError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| SceneError {
        file: path.display().to_string(),
        key: "-".into(),
        line: None,
        message: format!("cannot read: {e}"),
    })?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    load_scene_str(&text, &path.display().to_string(), &dir)
}

/// Load a scene from text; `file` names it in errors, `dir` resolves mesh paths.
pub fn load_scene_str(text: &str, file: &str, dir: &Path) -> Result<Model, SceneError> {
    let err = |key: &str, line: Option<usize>, message: String| SceneError {
        file: file.to_string(),
        key: key.to_string(),
        line,
        message,
    };
    let scene: SceneToml = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start));
        // toml's message already names the offending key or value.
        let msg = e.message().trim().to_string();
        let key = e
            .span()
            .map(|s| key_at(text, s.start))
            .unwrap_or_else(|| "-".into());
        err(&key, line, msg)
    })?;
    let world_line = |k: &str| find_key_line(text, 0..text.len(), k);
    // World options.
    let w = &scene.world;
    let gravity = Vec3::from(w.gravity);
    if !gravity.iter().all(|g| g.is_finite()) {
        return Err(err(
            "world.gravity",
            world_line("gravity"),
            "must be finite".into(),
        ));
    }
    if gravity.norm() > MAX_GRAVITY {
        return Err(err(
            "world.gravity",
            world_line("gravity"),
            format!(
                "magnitude must be ≤ {MAX_GRAVITY:e} m/s², got {:e}",
                gravity.norm()
            ),
        ));
    }
    if !(w.dt.is_finite() && w.dt > 0.0 && w.dt <= 0.1) {
        return Err(err(
            "world.dt",
            world_line("dt"),
            format!("must be in (0, 0.1] s, got {}", w.dt),
        ));
    }
    if !(w.max_abs_state.is_finite() && w.max_abs_state > 0.0) {
        return Err(err(
            "world.max_abs_state",
            world_line("max_abs_state"),
            "must be a positive finite number".into(),
        ));
    }
    for (k, v, max) in [
        ("rest_time", w.sleep.rest_time, 1e3),
        ("v_rest", w.sleep.v_rest, 1e3),
        ("w_rest", w.sleep.w_rest, 1e3),
    ] {
        if !(v.is_finite() && v > 0.0 && v <= max) {
            return Err(err(
                &format!("world.sleep.{k}"),
                world_line(k).or(world_line("sleep")),
                format!("must be in (0, {max:e}], got {v}"),
            ));
        }
    }
    let ipc = matches!(w.method, MethodName::Ipc);
    let method = match w.method {
        MethodName::HuntCrossley => {
            hunt_crossley_method(&scene.hunt_crossley, w.dt).map_err(|(k, m)| {
                err(
                    &format!("hunt_crossley.{k}"),
                    world_line(k.rsplit('.').next().unwrap_or(&k)),
                    m,
                )
            })?
        }
        MethodName::Lcp | MethodName::Peg => {
            lcp_method(&scene.lcp, w.method).map_err(|(k, m)| {
                err(
                    &format!("lcp.{k}"),
                    world_line(k.rsplit('.').next().unwrap_or(&k)),
                    m,
                )
            })?
        }
        MethodName::Ipc => ipc_method(&scene.ipc).map_err(|(k, m)| {
            err(
                &format!("ipc.{k}"),
                world_line(k.rsplit('.').next().unwrap_or(&k)),
                m,
            )
        })?,
        _ => penalty_method(&scene.penalty, w.method).map_err(|(k, m)| {
            err(
                &format!("penalty.{k}"),
                world_line(k.rsplit('.').next().unwrap_or(&k)),
                m,
            )
        })?,
    };
    let opt = Options {
        gravity,
        dt: w.dt,
        integrator: w.integrator,
        method,
        max_abs_state: w.max_abs_state,
        sleep: SleepParams {
            enabled: w.sleep.enabled,
            rest_time: w.sleep.rest_time,
            v_rest: w.sleep.v_rest,
            w_rest: w.sleep.w_rest,
        },
    };
    let mut builder = ModelBuilder::new(opt);
    for (i, sb) in scene.bodies.iter().enumerate() {
        // A body's keys run from its `[[body]]` header to the next `[[body]]` header.
        let start = sb.span().start;
        let end = text[start + 1..]
            .find("[[body]]")
            .map(|o| start + 1 + o)
            .unwrap_or(text.len());
        let span = start..end;
        let b = sb.get_ref();
        let key = |k: &str| format!("body[{i}] ('{}').{k}", b.name);
        let line =
            |k: &str| find_key_line(text, span.clone(), k).or(Some(line_of(text, span.start)));
        let spec = body_spec(b, dir, ipc)
            .map_err(|(k, m)| err(&key(&k), line(k.split(['.', '[']).next().unwrap_or(&k)), m))?;
        builder.add_body(spec);
    }
    for (i, sr) in scene.robots.iter().enumerate() {
        let span = section_span(text, sr.span().start, "[[robot]]");
        let r = sr.get_ref();
        let key = |k: &str| format!("robot[{i}].{k}");
        let line =
            |k: &str| find_key_line(text, span.clone(), k).or(Some(line_of(text, span.start)));
        let spec = robot_spec(r, dir, gravity)
            .map_err(|(k, m)| err(&key(&k), line(k.split(['.', '[']).next().unwrap_or(&k)), m))?;
        builder.add_robot(spec);
    }
    let model = builder.finalize().map_err(|e| {
        // Point at the body the message names, if any.
        let msg = e.to_string();
        let (key, line) = scene
            .bodies
            .iter()
            .enumerate()
            .find(|(_, b)| msg.contains(&format!("'{}'", b.get_ref().name)))
            .map(|(i, b)| (format!("body[{i}]"), Some(line_of(text, b.span().start))))
            .or_else(|| {
                // Robot errors start with "robot '<name>'".
                let i = scene.robots.iter().position(|r| {
                    let n = r.get_ref().name.clone().unwrap_or_default();
                    !n.is_empty() && msg.contains(&format!("robot '{n}'"))
                })?;
                Some((
                    format!("robot[{i}]"),
                    Some(line_of(text, scene.robots[i].span().start)),
                ))
            })
            .unwrap_or_else(|| ("world".into(), None));
        err(&key, line, msg)
    })?;
    // Derived magnitudes (mass from density × volume, inertia) within the bounds.
    for (i, sb) in scene.bodies.iter().enumerate() {
        let b = sb.get_ref();
        let Some(mb) = model.bodies.iter().find(|x| x.name == b.name) else {
            continue;
        };
        if mb.kind != BodyKind::Free {
            continue;
        }
        let key = if b.density.is_some() {
            "density"
        } else {
            "mass"
        };
        let inertia_ok = mb.inertia.iter().all(|x| x.is_finite() && x.abs() <= 1e24);
        let msg = if !(MASS_RANGE.0..=MASS_RANGE.1).contains(&mb.mass) {
            format!(
                "gives a mass of {:e} kg, outside [{:e}, {:e}] kg",
                mb.mass, MASS_RANGE.0, MASS_RANGE.1
            )
        } else if !inertia_ok {
            "gives an inertia beyond 1e24 kg·m²".to_string()
        } else {
            continue;
        };
        let start = sb.span().start;
        let span = section_span(text, start, "[[body]]");
        return Err(err(
            &format!("body[{i}] ('{}').{key}", b.name),
            find_key_line(text, span.clone(), key).or(Some(line_of(text, span.start))),
            msg,
        ));
    }
    let mut model = model;
    for (i, sh) in scene.haptics.iter().enumerate() {
        let span = section_span(text, sh.span().start, "[[haptic]]");
        let h = sh.get_ref();
        let key = |k: &str| format!("haptic[{i}] ('{}').{k}", h.name);
        let line =
            |k: &str| find_key_line(text, span.clone(), k).or(Some(line_of(text, span.start)));
        let spec = haptic_spec(h, &model)
            .map_err(|(k, m)| err(&key(&k), line(k.split(['.', '[']).next().unwrap_or(&k)), m))?;
        if model.haptics.iter().any(|o| o.name == spec.name) {
            return Err(err(
                &key("name"),
                line("name"),
                "duplicate haptic name".into(),
            ));
        }
        if model.haptics.iter().any(|o| o.tool == spec.tool) {
            return Err(err(
                &key("tool"),
                line("tool"),
                format!("'{}' is already the tool of another device", h.tool),
            ));
        }
        if model.haptics.len() == crate::haptics::spec::MAX_DEVICES {
            return Err(err(
                &format!("haptic[{i}]"),
                Some(line_of(text, span.start)),
                format!(
                    "at most {} haptic devices per scene",
                    crate::haptics::spec::MAX_DEVICES
                ),
            ));
        }
        model.haptics.push(spec);
    }
    Ok(model)
}

/// A `[[haptic]]` table (keys relative to it in errors).
fn haptic_spec(
    h: &HapticToml,
    model: &Model,
) -> Result<crate::haptics::spec::HapticSpec, (String, String)> {
    use crate::haptics::coupling::CouplingParams;
    use crate::haptics::mapping::DeviceMapping;
    use crate::haptics::spec::{HapticSpec, WatchdogAction};
    if h.name.is_empty() {
        return Err(("name".into(), "must not be empty".into()));
    }
    let tool = model.body_id(&h.tool).ok_or_else(|| {
        (
            "tool".to_string(),
            format!(
                "no body named '{}' (a [[body]] name, or \"robot/link\" for a robot link with geometry)",
                h.tool
            ),
        )
    })?;
    if model.bodies[tool].kind == BodyKind::Static {
        return Err((
            "tool".into(),
            format!("'{}' is a static body; a tool must move", h.tool),
        ));
    }
    if h.dof != 3 && h.dof != 6 {
        return Err(("dof".into(), format!("must be 3 or 6, got {}", h.dof)));
    }
    let k = h.stiffness.vec();
    let b = h.damping.vec();
    for i in 0..3 {
        nonneg(k[i], "stiffness")?;
        nonneg(b[i], "damping")?;
    }
    if k.min() <= 0.0 {
        return Err((
            "stiffness".into(),
            format!("must be > 0 on every axis, got {k:?}"),
        ));
    }
    nonneg(h.rot_stiffness, "rot_stiffness")?;
    nonneg(h.rot_damping, "rot_damping")?;
    if h.dof == 6 && h.rot_stiffness <= 0.0 {
        return Err((
            "rot_stiffness".into(),
            "a 6-DoF coupling needs rot_stiffness > 0".into(),
        ));
    }
    if h.dof == 3 && (h.rot_stiffness != 0.0 || h.rot_damping != 0.0) {
        return Err((
            "rot_stiffness".into(),
            "a 3-DoF coupling has no rotational gains (set dof = 6)".into(),
        ));
    }
    let scale = pos(h.scale, "scale")?;
    let offset = finite3(h.offset, "offset")?;
    let rotation = rotation(h.orientation, h.rpy, "orientation")?;
    let wmin = finite3(h.workspace_min, "workspace_min")?;
    let wmax = finite3(h.workspace_max, "workspace_max")?;
    if (0..3).any(|i| wmin[i] >= wmax[i]) {
        return Err((
            "workspace_max".into(),
            format!("must exceed workspace_min on every axis, got {wmin:?} .. {wmax:?}"),
        ));
    }
    let max_force = pos(h.max_force, "max_force")?;
    let lim = |v: f64, k: &str| {
        if v.is_nan() || v <= 0.0 {
            Err((k.to_string(), format!("must be > 0 (inf: none), got {v}")))
        } else {
            Ok(v)
        }
    };
    let max_torque = lim(h.max_torque, "max_torque")?;
    let max_rate = lim(h.max_rate, "max_rate")?;
    let max_stiffness = pos(h.max_stiffness, "max_stiffness")?;
    let timeout_s = pos(h.watchdog_timeout, "watchdog_timeout")?;
    let watchdog = match h.watchdog {
        WatchdogName::Hold => WatchdogAction::Hold,
        WatchdogName::Release => WatchdogAction::Release,
        WatchdogName::Fade => WatchdogAction::Fade {
            fade_s: pos(h.fade_time, "fade_time")?,
        },
    };
    let mapping = DeviceMapping {
        scale,
        rotation,
        offset,
        workspace_min: wmin,
        workspace_max: wmax,
    };
    // The tool's scene pose must be a device pose the workspace allows (the device
    // "holds" it there until its first sample).
    // A robot link's scene pose is its forward kinematics at the robot's initial q.
    let tool_pose0 = if model.bodies[tool].kind == BodyKind::Free {
        model.bodies[tool].pose0
    } else {
        let s = crate::data::Data::new(model).state[tool];
        crate::math::Pose::from_parts(s.x.into(), s.q)
    };
    let x0 = tool_pose0.translation.vector;
    let x_dev = rotation.inverse() * (x0 - offset) / scale;
    if !mapping.in_workspace(&x_dev) {
        return Err((
            "workspace_min".into(),
            format!(
                "the tool's initial position maps to device position {:?}, outside the workspace",
                x_dev.as_slice()
            ),
        ));
    }
    Ok(HapticSpec {
        name: h.name.clone(),
        tool,
        dof: h.dof,
        coupling: CouplingParams {
            k,
            b,
            k_rot: h.rot_stiffness,
            b_rot: h.rot_damping,
        },
        mapping,
        max_force,
        max_torque,
        max_rate,
        max_stiffness,
        passivity: h.passivity,
        gravity_compensation: h.gravity_compensation,
        timeout_s,
        watchdog,
        multirate: multirate(h, model, tool)?,
        teleop: teleop(h, model, tool, &tool_pose0)?,
        tool_pose0,
    })
}

/// A `[[haptic]]`'s `teleop` table.
fn teleop(
    h: &HapticToml,
    model: &Model,
    tool: usize,
    pose0: &crate::math::Pose,
) -> Result<Option<crate::haptics::teleop::TeleopSpec>, (String, String)> {
    let Some(t) = &h.teleop else {
        return Ok(None);
    };
    let BodyKind::Link { robot, link } = model.bodies[tool].kind else {
        return Err((
            "teleop".into(),
            format!(
                "the tool '{}' is not a robot link (teleop drives a robot arm by its link \"robot/link\")",
                h.tool
            ),
        ));
    };
    let (robot, link) = (robot as usize, link as usize);
    let r = &model.robots[robot];
    if r.floating {
        return Err((
            "teleop".into(),
            format!(
                "robot '{}' has a floating base; teleop needs a fixed-base arm",
                r.name
            ),
        ));
    }
    if r.servos.iter().any(|s| s.enabled) {
        return Err((
            "teleop".into(),
            format!(
                "robot '{}' has servos; a teleoperated arm is actuated by the teleop controller alone (remove its [[robot.servo]] tables)",
                r.name
            ),
        ));
    }
    let f = pos(t.posture_hz, "teleop.posture_hz")?;
    // The posture is explicit in the step: keep ω_p h well inside stability.
    if 2.0 * std::f64::consts::PI * f * model.opt.dt > 0.2 {
        return Err((
            "teleop.posture_hz".into(),
            format!(
                "must satisfy 2π f dt ≤ 0.2 (f ≤ {:.1} Hz at dt = {}), got {f}",
                0.2 / (2.0 * std::f64::consts::PI * model.opt.dt),
                model.opt.dt
            ),
        ));
    }
    nonneg(t.orientation_stiffness, "teleop.orientation_stiffness")?;
    nonneg(t.orientation_damping, "teleop.orientation_damping")?;
    nonneg(t.damping, "teleop.damping")?;
    if h.dof == 3 && t.orientation_stiffness <= 0.0 {
        return Err((
            "teleop.orientation_stiffness".into(),
            "a 3-DoF device does not set the link's orientation: the controller holds it (> 0 N·m/rad)".into(),
        ));
    }
    if h.dof == 6 && (t.orientation_stiffness != 0.0 || t.orientation_damping != 0.0) {
        return Err((
            "teleop.orientation_stiffness".into(),
            "a 6-DoF coupling sets the orientation itself (rot_stiffness); leave it out".into(),
        ));
    }
    Ok(Some(crate::haptics::teleop::TeleopSpec {
        robot,
        link,
        posture_hz: f,
        orientation_stiffness: t.orientation_stiffness,
        orientation_damping: t.orientation_damping,
        damping: t.damping,
        orientation: pose0.rotation,
    }))
}

/// A `[[haptic]]`'s `rate_hz`, `contact_stiffness`, `contact_damping`.
fn multirate(
    h: &HapticToml,
    model: &Model,
    tool: usize,
) -> Result<Option<crate::haptics::multirate::MultiRate>, (String, String)> {
    use crate::haptics::multirate::{MultiRate, MAX_SUBSTEPS};
    let Some(rate) = h.rate_hz else {
        for (v, k) in [
            (h.contact_stiffness, "contact_stiffness"),
            (h.contact_damping, "contact_damping"),
        ] {
            if v.is_some() {
                return Err((k.into(), "only with rate_hz (the multi-rate tool)".into()));
            }
        }
        return Ok(None);
    };
    let dt = model.opt.dt;
    let n = rate * dt;
    if !rate.is_finite() || n < 1.0 - 1e-9 || (n - n.round()).abs() > 1e-6 * n.max(1.0) {
        return Err((
            "rate_hz".into(),
            format!(
                "must be a whole multiple of the world rate 1/dt = {} Hz, got {rate}",
                1.0 / dt
            ),
        ));
    }
    let substeps = n.round() as usize;
    if substeps > MAX_SUBSTEPS {
        return Err((
            "rate_hz".into(),
            format!(
                "at most {MAX_SUBSTEPS} sub-steps per world tick ({} Hz), got {rate}",
                MAX_SUBSTEPS as f64 / dt
            ),
        ));
    }
    match &model.opt.method {
        Method::HuntCrossley(_) => {
            return Err((
                "rate_hz".into(),
                "a multi-rate tool needs method = \"penalty\" or \"lcp\" (Hunt–Crossley collides at its own sub-steps)".into(),
            ))
        }
        Method::Penalty(_) if !model.opt.integrator.first_order() => {
            return Err((
                "rate_hz".into(),
                "a multi-rate tool under penalty needs integrator = \"semi_implicit_euler\" (rk4 collides at its stages)".into(),
            ))
        }
        _ => {}
    }
    if model.bodies[tool].kind != BodyKind::Free {
        return Err((
            "rate_hz".into(),
            format!(
                "the multi-rate tool must be a free body, '{}' is a robot link",
                h.tool
            ),
        ));
    }
    let Some(k) = h.contact_stiffness else {
        return Err((
            "contact_stiffness".into(),
            "required with rate_hz (N/m, the tool's contact stiffness at the haptic rate)".into(),
        ));
    };
    let stiffness = pos(k, "contact_stiffness")?;
    let m = model.bodies[tool].mass;
    let damping = match h.contact_damping {
        Some(b) => nonneg(b, "contact_damping").map(|_| b)?,
        None => 2.0 * (stiffness * m).sqrt(),
    };
    // Explicit stability of the sub-step for the stiffest contact on the tool alone.
    let hs = dt / substeps as f64;
    if hs * (stiffness / m).sqrt() > 0.5 {
        return Err((
            "contact_stiffness".into(),
            format!(
                "{stiffness} N/m on a {m} kg tool is too stiff for the sub-step {hs} s (need h·sqrt(k/m) ≤ 0.5: raise rate_hz or lower it)"
            ),
        ));
    }
    Ok(Some(MultiRate {
        substeps,
        stiffness,
        damping,
    }))
}

/// The `[hunt_crossley]` table (keys relative to it in errors).
fn hunt_crossley_method(h: &HuntCrossleyToml, dt: f64) -> Result<Method, (String, String)> {
    let d = HuntCrossleyParams::default();
    let stiffness_volume = h
        .stiffness_volume
        .map(|v| pos(v, "stiffness_volume"))
        .transpose()?;
    let stiffness_depth = h
        .stiffness_depth
        .map(|v| pos(v, "stiffness_depth"))
        .transpose()?;
    let penetration_fraction = match h.penetration_fraction {
        Some(f) if !(f > 0.0 && f < 1.0) => {
            return Err((
                "penetration_fraction".into(),
                format!("must be in (0, 1), got {f}"),
            ))
        }
        Some(f) => f,
        None => d.penetration_fraction,
    };
    let min_substep = match h.min_substep {
        Some(t) if !(t > 0.0 && t <= dt) => {
            return Err((
                "min_substep".into(),
                format!("must be in (0, world.dt = {dt}] s, got {t}"),
            ))
        }
        Some(t) => t,
        None => d.min_substep.min(dt),
    };
    // Friction: the same keys and defaults as the penalty family's, but
    // `solved_stick`, whose trial anchors only penalty's step resolves.
    if h.friction.solved_stick == Some(true) {
        return Err((
            "friction.solved_stick".into(),
            "is penalty's only (its trial anchors are resolved by penalty's anchor solve)".into(),
        ));
    }
    let friction = match penalty_method(
        &PenaltyToml {
            friction: h.friction.clone(),
            ..PenaltyToml::default()
        },
        MethodName::Penalty,
    )? {
        Method::Penalty(p) => p.friction,
        _ => d.friction,
    };
    Ok(Method::HuntCrossley(HuntCrossleyParams {
        stiffness_volume,
        stiffness_depth,
        penetration_fraction,
        damping_rule: match h.damping_rule {
            Some(DampingRuleName::Paper) => DampingRule::Paper,
            Some(DampingRuleName::Exact) | None => DampingRule::Exact,
        },
        min_impact_speed: h
            .min_impact_speed
            .map(|v| pos(v, "min_impact_speed"))
            .transpose()?
            .unwrap_or(d.min_impact_speed),
        adaptive: h.adaptive.unwrap_or(d.adaptive),
        energy_tolerance: h
            .energy_tolerance
            .map(|v| pos(v, "energy_tolerance"))
            .transpose()?
            .unwrap_or(d.energy_tolerance),
        pair_energy_scale: h.pair_energy_scale.unwrap_or(d.pair_energy_scale),
        min_substep,
        friction,
    }))
}

fn penalty_method(p: &PenaltyToml, name: MethodName) -> Result<Method, (String, String)> {
    let mut pp = PenaltyParams {
        points: match name {
            MethodName::PenaltyDeepest => PenaltyPoints::Deepest,
            MethodName::Penalty
            | MethodName::HuntCrossley
            | MethodName::Lcp
            | MethodName::Peg
            | MethodName::Ipc => PenaltyPoints::Multi,
        },
        ..PenaltyParams::default()
    };
    let gain = |abs: Option<f64>, per: Option<f64>, k: &str, dflt: Gain| match (abs, per) {
        (Some(_), Some(_)) => Err((k.to_string(), format!("give {k} or {k}_per_mass, not both"))),
        (Some(v), None) => nonneg(v, k).map(|_| Gain::Absolute(v)),
        (None, Some(v)) => nonneg(v, &format!("{k}_per_mass")).map(|_| Gain::PerMass(v)),
        (None, None) => Ok(dflt),
    };
    pp.kp = gain(p.kp, p.kp_per_mass, "kp", pp.kp)?;
    pp.kv = gain(p.kv, p.kv_per_mass, "kv", pp.kv)?;
    pp.ki = gain(p.ki, p.ki_per_mass, "ki", pp.ki)?;
    if let Some(l) = p.forgetting {
        if !(l > 0.0 && l < 1.0) {
            return Err(("forgetting".into(), format!("must be in (0, 1), got {l}")));
        }
        pp.forgetting = l;
    }
    if let Some(d) = p.damping_limit {
        if d.is_nan() || d <= 0.0 {
            return Err((
                "damping_limit".into(),
                format!("must be > 0 (inf disables), got {d}"),
            ));
        }
        pp.damping_limit = d;
    }
    if let Some(d) = p.stiffness_limit {
        if d.is_nan() || d <= 0.0 {
            return Err((
                "stiffness_limit".into(),
                format!("must be > 0 (inf disables), got {d}"),
            ));
        }
        pp.stiffness_limit = d;
    }
    if let Some(t) = p.rest_tol {
        if !PenaltyParams::rest_tol_valid(t) {
            return Err((
                "rest_tol".into(),
                format!(
                    "must be in [0, {:e}] m (0 = off), got {t}",
                    PenaltyParams::REST_TOL_MAX
                ),
            ));
        }
        pp.rest_tol = t;
    }
    if let Some(b) = p.robot_implicit {
        pp.robot_implicit = b;
    }
    if let Some(d) = p.distribution {
        if d == crate::model::Distribution::Modal && pp.points == PenaltyPoints::Deepest {
            return Err((
                "distribution".into(),
                "\"modal\" shares the multi-point force among its points; \
                 method \"penalty_deepest\" has one point (use method = \"penalty\")"
                    .into(),
            ));
        }
        pp.distribution = d;
    }
    let f = &p.friction;
    let df = FrictionParams::default();
    pp.friction = FrictionParams {
        k_stick: gain(
            f.k_stick,
            f.k_stick_per_mass,
            "friction.k_stick",
            df.k_stick,
        )?,
        b_stick: gain(
            f.b_stick,
            f.b_stick_per_mass,
            "friction.b_stick",
            df.b_stick,
        )?,
        v_stick: f
            .v_stick
            .map(|v| pos(v, "friction.v_stick"))
            .transpose()?
            .unwrap_or(df.v_stick),
        v_slip: f
            .v_slip
            .map(|v| pos(v, "friction.v_slip"))
            .transpose()?
            .unwrap_or(df.v_slip),
        implicit: f.implicit.unwrap_or(df.implicit),
        linear: f.linear.unwrap_or(df.linear),
        warm_start: f.warm_start.unwrap_or(df.warm_start),
        direct: f.direct.unwrap_or(df.direct),
        late_pairs: f.late_pairs.unwrap_or(df.late_pairs),
        solved_drag: f.solved_drag.unwrap_or(df.solved_drag),
        solved_stick: f.solved_stick.unwrap_or(df.solved_stick),
        over_relaxation: over_relaxation(f.over_relaxation.as_ref(), df.over_relaxation)?,
    };
    let di = ImpactParams::default();
    pp.impacts = ImpactParams {
        enabled: p.impacts.enabled.unwrap_or(di.enabled),
        epsilon: p
            .impacts
            .epsilon
            .map(|v| nonneg(v, "impacts.epsilon").map(|_| v))
            .transpose()?
            .unwrap_or(di.epsilon),
        reimpact: p.impacts.reimpact.unwrap_or(di.reimpact),
    };
    Ok(Method::Penalty(pp))
}

/// A finite number in [0, [`MAX_PARAM`]] (gains, damping, coefficients: a larger
/// one overflows the force arithmetic of a step).
fn nonneg(v: f64, k: &str) -> Result<(), (String, String)> {
    if v.is_finite() && (0.0..=MAX_PARAM).contains(&v) {
        Ok(())
    } else {
        Err((
            k.to_string(),
            format!("must be a finite number in [0, {MAX_PARAM:e}], got {v}"),
        ))
    }
}

/// `[…friction] over_relaxation`: a fixed ω in (0, 2) or "adaptive".
fn over_relaxation(
    v: Option<&OverRelaxationToml>,
    default: OverRelaxation,
) -> Result<OverRelaxation, (String, String)> {
    let key = "friction.over_relaxation";
    match v {
        None => Ok(default),
        Some(OverRelaxationToml::Fixed(w)) if OverRelaxation::valid(*w) => {
            Ok(OverRelaxation::Fixed(*w))
        }
        Some(OverRelaxationToml::Rule(r)) if r == "adaptive" => Ok(OverRelaxation::Adaptive),
        Some(OverRelaxationToml::Fixed(w)) => Err((
            key.to_string(),
            format!("must be a number in (0, 2) (projected SOR diverges outside) or \"adaptive\", got {w}"),
        )),
        Some(OverRelaxationToml::Rule(r)) => Err((
            key.to_string(),
            format!("must be a number in (0, 2) or \"adaptive\", got \"{r}\""),
        )),
    }
}

fn pos(v: f64, k: &str) -> Result<f64, (String, String)> {
    if v.is_finite() && v > 0.0 && v <= MAX_PARAM {
        Ok(v)
    } else {
        Err((
            k.to_string(),
            format!("must be a finite number in (0, {MAX_PARAM:e}], got {v}"),
        ))
    }
}

/// Three finite components, each within ±[`MAX_COORD`].
fn finite3(v: [f64; 3], k: &str) -> Result<Vec3, (String, String)> {
    if !v.iter().all(|c| c.is_finite()) {
        Err((k.to_string(), format!("must be finite, got {v:?}")))
    } else if !v.iter().all(|c| c.abs() <= MAX_COORD) {
        Err((
            k.to_string(),
            format!("every component must be within ±{MAX_COORD:e}, got {v:?}"),
        ))
    } else {
        Ok(Vec3::from(v))
    }
}

/// A size (radius, half extent, half length) within [`MAX_COORD`].
fn size(v: f64, k: &str) -> Result<(), (String, String)> {
    if v.is_finite() && v.abs() <= MAX_COORD {
        Ok(())
    } else {
        Err((k.to_string(), format!("must be ≤ {MAX_COORD:e} m, got {v}")))
    }
}

fn rotation(q: Option<[f64; 4]>, rpy: Option<[f64; 3]>, k: &str) -> Result<Quat, (String, String)> {
    match (q, rpy) {
        (Some(_), Some(_)) => Err((k.to_string(), "give orientation or rpy, not both".into())),
        (Some(q), None) => {
            let qq = nalgebra::Quaternion::new(q[0], q[1], q[2], q[3]);
            let n = qq.norm();
            if !q.iter().all(|c| c.is_finite()) || n.is_nan() || n <= 1e-9 {
                return Err((
                    "orientation".into(),
                    format!("must be a finite non-zero quaternion [w, x, y, z], got {q:?}"),
                ));
            }
            Ok(Quat::new_normalize(qq))
        }
        (None, Some(r)) => {
            finite3(r, "rpy")?;
            Ok(Quat::from_euler_angles(r[0], r[1], r[2]))
        }
        (None, None) => Ok(Quat::identity()),
    }
}

fn shape_of(s: &ShapeToml, dir: &Path, ipc: bool) -> Result<Shape, (String, String)> {
    let g = |e: crate::collision::GeometryError| ("shape".to_string(), e.to_string());
    match s {
        ShapeToml::Plane => Ok(Shape::plane()),
        ShapeToml::Sphere { radius } => {
            size(*radius, "shape.radius")?;
            Shape::sphere(*radius).map_err(g)
        }
        ShapeToml::Box { half_extents, size } => {
            let half = match (half_extents, size) {
                (Some(h), None) => finite3(*h, "shape.half_extents")?,
                (None, Some(s)) => finite3(*s, "shape.size")? * 0.5,
                _ => {
                    return Err((
                        "shape".into(),
                        "a box needs exactly one of half_extents or size".into(),
                    ))
                }
            };
            Shape::cuboid(half).map_err(g)
        }
        ShapeToml::Capsule {
            radius,
            half_length,
        } => {
            size(*radius, "shape.radius")?;
            size(*half_length, "shape.half_length")?;
            Shape::capsule(*radius, *half_length).map_err(g)
        }
        ShapeToml::Cylinder {
            radius,
            half_length,
        } => {
            size(*radius, "shape.radius")?;
            size(*half_length, "shape.half_length")?;
            Shape::cylinder(*radius, *half_length).map_err(g)
        }
        ShapeToml::Polytope { points } => {
            let pts: Vec<Vec3> = points.iter().map(|p| Vec3::from(*p)).collect();
            if !pts.iter().all(|p| p.iter().all(|c| c.is_finite())) {
                return Err(("shape.points".into(), "points must be finite".into()));
            }
            if !pts.iter().all(|p| p.iter().all(|c| c.abs() <= MAX_COORD)) {
                return Err((
                    "shape.points".into(),
                    format!("every coordinate must be within ±{MAX_COORD:e} m"),
                ));
            }
            Shape::polytope(&pts).map_err(|e| ("shape.points".to_string(), e.to_string()))
        }
        ShapeToml::Polygon { points, thickness } => {
            size(*thickness, "shape.thickness")?;
            if *thickness <= 0.0 {
                return Err((
                    "shape.thickness".into(),
                    format!("must be > 0 m, got {thickness}"),
                ));
            }
            if !points
                .iter()
                .all(|p| p.iter().all(|c| c.is_finite() && c.abs() <= MAX_COORD))
            {
                return Err((
                    "shape.points".into(),
                    format!("points must be finite, within ±{MAX_COORD:e} m"),
                ));
            }
            let h = 0.5 * thickness;
            let pts: Vec<Vec3> = [-h, h]
                .iter()
                .flat_map(|&z| points.iter().map(move |p| Vec3::new(p[0], p[1], z)))
                .collect();
            Shape::polytope(&pts).map_err(|e| ("shape.points".to_string(), e.to_string()))
        }
        ShapeToml::Mesh { file, scale } => {
            if !(scale.is_finite() && *scale > 0.0 && *scale <= MAX_COORD) {
                return Err((
                    "shape.scale".into(),
                    format!("must be in (0, {MAX_COORD:e}], got {scale}"),
                ));
            }
            let p: PathBuf = if Path::new(file).is_absolute() {
                PathBuf::from(file)
            } else {
                dir.join(file)
            };
            if ipc {
                mesh::load_ipc_mesh(&p, *scale)
            } else {
                mesh::load_convex_mesh(&p, *scale)
            }
            .map_err(|e| ("shape.file".to_string(), e.to_string()))
        }
    }
}

fn body_spec(b: &BodyToml, dir: &Path, ipc: bool) -> Result<BodySpec, (String, String)> {
    let material = b.material.unwrap_or_default();
    let mut geoms = Vec::new();
    if let Some(s) = &b.shape {
        geoms.push((shape_of(s, dir, ipc)?, Pose::identity(), material));
    }
    for (gi, g) in b.geoms.iter().enumerate() {
        let ctx = |(k, m): (String, String)| (format!("geom[{gi}].{k}"), m);
        let shape = shape_of(&g.shape, dir, ipc).map_err(ctx)?;
        let p = finite3(g.position, "position").map_err(ctx)?;
        let q = rotation(g.orientation, g.rpy, "orientation").map_err(ctx)?;
        geoms.push((
            shape,
            Pose::from_parts(p.into(), q),
            g.material.unwrap_or(material),
        ));
    }
    if geoms.is_empty() {
        return Err((
            "shape".into(),
            "missing: a body needs `shape` or `[[body.geom]]`".into(),
        ));
    }
    let kind = if b.is_static {
        BodyKind::Static
    } else {
        BodyKind::Free
    };
    let mass = match (kind, b.mass, b.density, &b.inertia) {
        (BodyKind::Static, None, None, None) => MassSpec::Mass(0.0),
        (BodyKind::Static, ..) => {
            return Err((
                "mass".into(),
                "a static body takes no mass, density or inertia".into(),
            ))
        }
        (_, Some(_), Some(_), _) => {
            return Err(("mass".into(), "give mass or density, not both".into()))
        }
        (_, None, None, _) => {
            return Err((
                "mass".into(),
                "missing: a free body needs `mass` or `density`".into(),
            ))
        }
        (_, Some(m), None, None) => {
            if !(m.is_finite() && m > 0.0) {
                return Err((
                    "mass".into(),
                    format!("must be a positive finite number, got {m}"),
                ));
            }
            mass_range(m, "mass")?;
            MassSpec::Mass(m)
        }
        (_, None, Some(d), None) => {
            if !(d.is_finite() && d > 0.0) {
                return Err((
                    "density".into(),
                    format!("must be a positive finite number, got {d}"),
                ));
            }
            if d > MASS_RANGE.1 {
                return Err((
                    "density".into(),
                    format!("must be ≤ {:e} kg/m³, got {d}", MASS_RANGE.1),
                ));
            }
            MassSpec::Density(d)
        }
        (_, None, Some(_), Some(_)) => {
            return Err((
                "inertia".into(),
                "an explicit inertia needs `mass`, not `density`".into(),
            ))
        }
        (_, Some(m), None, Some(iv)) => {
            if !(m.is_finite() && m > 0.0) {
                return Err((
                    "mass".into(),
                    format!("must be a positive finite number, got {m}"),
                ));
            }
            mass_range(m, "mass")?;
            MassSpec::MassInertia(m, inertia_of(iv)?)
        }
    };
    let position = finite3(b.position, "position")?;
    let orientation = rotation(b.orientation, b.rpy, "orientation")?;
    let mut lock = Locks::NONE;
    for name in b.lock.iter().flatten() {
        if name == "planar" {
            for (l, p) in lock.0.iter_mut().zip(Locks::PLANAR.0) {
                *l |= p;
            }
            continue;
        }
        let Some(i) = Locks::NAMES.iter().position(|n| n == name) else {
            return Err((
                "lock".into(),
                format!("unknown degree of freedom '{name}' (known: x, y, z, rx, ry, rz, planar)"),
            ));
        };
        lock.0[i] = true;
    }
    if lock.any() && kind != BodyKind::Free {
        return Err(("lock".into(), "applies to free bodies only".into()));
    }
    Ok(BodySpec {
        name: b.name.clone(),
        kind,
        mass,
        position,
        orientation,
        velocity: finite3(b.velocity, "velocity")?,
        angular_velocity: finite3(b.angular_velocity, "angular_velocity")?,
        geoms,
        lock,
    })
}

fn mass_range(m: f64, k: &str) -> Result<(), (String, String)> {
    if (MASS_RANGE.0..=MASS_RANGE.1).contains(&m) {
        Ok(())
    } else {
        Err((
            k.to_string(),
            format!(
                "must be in [{:e}, {:e}] kg, got {m}",
                MASS_RANGE.0, MASS_RANGE.1
            ),
        ))
    }
}

fn inertia_of(v: &toml::Value) -> Result<Mat3, (String, String)> {
    let bad = || {
        (
            "inertia".to_string(),
            "must be [Ixx, Iyy, Izz] or a 3×3 matrix of numbers".to_string(),
        )
    };
    let num = |x: &toml::Value| x.as_float().or_else(|| x.as_integer().map(|i| i as f64));
    let arr = v.as_array().ok_or_else(bad)?;
    let m = if arr.len() == 3 && arr.iter().all(|x| num(x).is_some()) {
        let d: Vec<f64> = arr.iter().filter_map(num).collect();
        Mat3::from_diagonal(&Vec3::new(d[0], d[1], d[2]))
    } else if arr.len() == 3 {
        let mut m = Mat3::zeros();
        for (r, row) in arr.iter().enumerate() {
            let row = row.as_array().filter(|r| r.len() == 3).ok_or_else(bad)?;
            for (c, x) in row.iter().enumerate() {
                m[(r, c)] = num(x).ok_or_else(bad)?;
            }
        }
        m
    } else {
        return Err(bad());
    };
    if !m.iter().all(|c| c.is_finite()) {
        return Err(("inertia".into(), "must be finite".into()));
    }
    Ok(m)
}

/// 1-based line of byte offset `pos`.
pub(crate) fn line_of(text: &str, pos: usize) -> usize {
    text[..pos.min(text.len())]
        .bytes()
        .filter(|&b| b == b'\n')
        .count()
        + 1
}

/// The key on the line holding `pos` (for parser errors that carry only a span).
fn key_at(text: &str, pos: usize) -> String {
    let start = text[..pos.min(text.len())]
        .rfind('\n')
        .map(|i| i + 1)
        .unwrap_or(0);
    let end = text[start..]
        .find('\n')
        .map(|i| start + i)
        .unwrap_or(text.len());
    let line = &text[start..end];
    match line.split_once('=') {
        Some((k, _)) if !k.trim().is_empty() => k.trim().to_string(),
        _ => line.trim().trim_matches(['[', ']']).to_string(),
    }
}

/// Line of the first `key =` inside `span`.
fn find_key_line(text: &str, span: std::ops::Range<usize>, key: &str) -> Option<usize> {
    let region = text.get(span.clone())?;
    let mut off = 0;
    for l in region.split_inclusive('\n') {
        let t = l.trim_start();
        if let Some(rest) = t.strip_prefix(key) {
            if rest.trim_start().starts_with('=') {
                return Some(line_of(text, span.start + off));
            }
        }
        // inline tables: `shape = { type = "box", radius = ... }`
        if t.contains(&format!(" {key} =")) || t.contains(&format!("{{{key} =")) {
            return Some(line_of(text, span.start + off));
        }
        off += l.len();
    }
    None
}

/// The text of one `[[header]]` section: from its start to the next `[[` at the
/// start of a line (or the end).
fn section_span(text: &str, start: usize, _header: &str) -> std::ops::Range<usize> {
    let end = text[start + 1..]
        .find("\n[[")
        .map(|o| start + 1 + o + 1)
        .unwrap_or(text.len());
    start..end
}

/// A `[[robot]]` table: the URDF (errors carry its file:line), the base, the initial
/// joint positions, servos and sensors.
fn robot_spec(
    r: &RobotToml,
    dir: &Path,
    gravity: Vec3,
) -> Result<super::robot::RobotSpec, (String, String)> {
    use super::robot::{Base, RobotSpec, ServoSpec};
    let path = if Path::new(&r.urdf).is_absolute() {
        PathBuf::from(&r.urdf)
    } else {
        dir.join(&r.urdf)
    };
    let desc = crate::robot::load_urdf(&path, &crate::robot::UrdfOptions { strict: r.strict })
        .map_err(|e| ("urdf".to_string(), e.to_string()))?;
    // Not simulated, but read: say so (strict mode has made these errors already).
    for w in &desc.warnings {
        tracing::warn!(target: "rtphys::urdf", "{w}");
    }
    let position = finite3(r.position, "position")?;
    let orientation = rotation(r.orientation, r.rpy, "orientation")?;
    let pose = Pose::from_parts(position.into(), orientation);
    let base = match r.base {
        BaseName::Fixed => Base::Fixed(pose),
        BaseName::Floating => Base::Floating(pose),
    };
    let name = r.name.clone().unwrap_or_else(|| desc.name.clone());
    if name.is_empty() || name.contains('/') {
        return Err((
            "name".into(),
            format!("must be non-empty and without '/', got {name:?}"),
        ));
    }
    let mut spec = RobotSpec::from_description(
        &desc,
        &name,
        base,
        gravity,
        r.material.unwrap_or_default(),
        &r.materials,
    )
    .map_err(|m| ("urdf".to_string(), format!("{}: {m}", path.display())))?;
    for (j, q) in &r.joints {
        if !q.is_finite() {
            return Err((format!("joints.{j}"), format!("must be finite, got {q}")));
        }
        if q.abs() > MAX_COORD {
            return Err((
                format!("joints.{j}"),
                format!("must be within ±{MAX_COORD:e}, got {q}"),
            ));
        }
        spec.set_joint_position(j, *q)
            .map_err(|m| (format!("joints.{j}"), m))?;
    }
    for (k, s) in r.servo.iter().enumerate() {
        for (f, v) in [("kp", s.kp), ("kd", s.kd), ("max_torque", s.max_torque)] {
            if v.is_nan() || v < 0.0 || (f != "max_torque" && !v.is_finite()) {
                return Err((format!("servo[{k}].{f}"), format!("must be ≥ 0, got {v}")));
            }
            if f != "max_torque" && v > MAX_PARAM {
                return Err((
                    format!("servo[{k}].{f}"),
                    format!("must be ≤ {MAX_PARAM:e}, got {v}"),
                ));
            }
        }
        if !spec.joints.iter().any(|j| j.name == s.joint) {
            return Err((
                format!("servo[{k}].joint"),
                format!("no joint named '{}'", s.joint),
            ));
        }
        spec.servos.push(ServoSpec {
            joint: s.joint.clone(),
            kp: s.kp,
            kd: s.kd,
            max_torque: s.max_torque,
            enabled: s.enabled,
        });
    }
    for (k, j) in r.ft_sensors.iter().enumerate() {
        if !spec.joints.iter().any(|x| &x.name == j) {
            return Err((format!("ft_sensors[{k}]"), format!("no joint named '{j}'")));
        }
    }
    for (k, l) in r.imus.iter().enumerate() {
        if !spec.links.iter().any(|x| &x.name == l) {
            return Err((
                format!("imus[{k}]"),
                format!("no link named '{l}' (links merged by fixed joints are frames, not links)"),
            ));
        }
    }
    spec.ft_sensors = r.ft_sensors.clone();
    spec.imus = r.imus.clone();
    spec.self_collision = r.self_collision;
    Ok(spec)
}
