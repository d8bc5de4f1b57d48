//! The immutable [`Model`]: bodies, geoms, materials and the time-stepping method,
//! frozen by [`ModelBuilder::finalize`]. Everything that changes while stepping
//! lives in [`crate::data::Data`].

pub mod lcp;
pub mod robot;
pub mod scene;
pub mod seams;

pub use lcp::{ContactModel, FrictionModel, LcpParams, LcpSolverKind, StabilizationScheme};

use crate::collision::{pair_supported, ConvexPolytope, Shape};
use crate::math::{Mat3, Pose, Quat, Vec3};
use robot::{RobotModel, RobotSpec};
use std::collections::HashMap;
use std::sync::Arc;

/// Surface material of a geom; a pair combines the two (see [`Material::combine`]).
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Material {
    /// Coulomb friction coefficient (dimensionless; 0 = frictionless, 0.3–1 typical).
    #[serde(default = "Material::default_mu")]
    pub mu: f64,
    /// Newton restitution coefficient for impacts (0 = plastic, 1 = elastic).
    #[serde(default)]
    pub restitution: f64,
    /// Rolling resistance length, m: a rolling pair feels a torque μ_r‖f‖ against its
    /// relative angular velocity in the contact plane (0 = ideal rolling; 1e-3–1e-2
    /// for clutter; a tessellated body gets this from its facets, a round one not).
    #[serde(default)]
    pub rolling: f64,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            mu: Self::default_mu(),
            restitution: 0.0,
            rolling: 0.0,
        }
    }
}

impl Material {
    fn default_mu() -> f64 {
        0.5
    }
    /// Pair material: geometric mean of friction, the smaller restitution, the larger
    /// rolling resistance.
    pub fn combine(a: &Material, b: &Material) -> Material {
        Material {
            mu: (a.mu * b.mu).sqrt(),
            restitution: a.restitution.min(b.restitution),
            rolling: a.rolling.max(b.rolling),
        }
    }
}

/// Explicit integrator of the force-model steppers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Integrator {
    /// Classical fourth-order Runge–Kutta (the integrator of 000's experiments);
    /// contact forces are evaluated at all four stages.
    Rk4,
    /// Semi-implicit (symplectic) Euler: v ← v + h a, then x ← x + h v; fastest.
    SemiImplicitEuler,
    /// Semi-implicit Euler with the robots' velocity-product terms (Coriolis,
    /// centrifugal, gyroscopic) taken implicitly ([`crate::dynamics::implicit`],
    /// MuJoCo's `implicit`): stable for fast rotors on a moving base, where the
    /// explicit terms pump energy. Free bodies step as under semi-implicit Euler
    /// (their rotation is already conservative). Costs a CRBA, one pass per DoF
    /// over its subtree for ∂C/∂v and a branch-sparse solve per robot per step
    /// (×2.0 the arm's step instructions, ×4.3 the humanoid's: docs/BENCHMARKS.md,
    /// "Session 38 (lead)").
    Implicit,
}

impl Integrator {
    /// A one-evaluation, first-order step (semi-implicit Euler or `Implicit`).
    pub fn first_order(self) -> bool {
        matches!(self, Integrator::SemiImplicitEuler | Integrator::Implicit)
    }
}

/// Which points of the intersection volume carry the penalty force.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PenaltyPoints {
    /// Points on the bottom of the intersection volume (000 §III-A).
    Multi,
    /// The single point of deepest penetration (the classical baseline).
    Deepest,
}

/// How the multi-point force of a pair is shared among its points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Distribution {
    /// 000 eq. (3): each of the r points takes 1/r of its PID force.
    Count,
    /// f = (m_r A)⁺ F over the points, A the pair's normal Delassus matrix: every
    /// mode of the patch (translation and tilts) relaxes at the pair's
    /// translational rate, so a thin body is held upright as a rigid one is
    /// (`contact::modal`); under semi-implicit Euler as the implicit rows' mode
    /// rows (`pipeline::penalty_implicit`, "Modal pairs").
    Modal,
}

/// A gain given either absolutely or per unit of the pair's mass m1 + m2
/// (a static body contributes 0 kg).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gain {
    Absolute(f64),
    PerMass(f64),
}

impl Gain {
    #[inline]
    pub fn value(&self, m_pair: f64) -> f64 {
        match *self {
            Gain::Absolute(k) => k,
            Gain::PerMass(k) => k * m_pair,
        }
    }
}

/// Parameters of the penalty contact of 000 (PID normal force, friction, impulses).
///
/// **The default gains are the shipped scenes' hard contact** (kp, kv, ki = 2e4, 300,
/// 1e3 per kg of the pair's gain mass, what `default.toml`, `stack5.toml`, the robots
/// and `shapes.toml` set): a body resting on the ground sinks
/// g/(kp + ki/(1 − λ)) = 9.81/3e4 ≈ 0.33 mm at λ = 0.9, and the damping ratio of one
/// body on the ground is kv/(2√kp) ≈ 1.06. Under semi-implicit Euler the normal force
/// is linearly implicit and stable at any gain; on the explicit paths (RK4, robot
/// links) `damping_limit` and `stiffness_limit` below bound h·kv/m_r and h²·kp/m_r,
/// so a light body on a heavy one is clamped rather than diverging. 000's §III-C
/// gains (100, 50, 2 per kg) were the defaults until session 22: a scene written
/// without a `[penalty]` table then rested ≈ g/kp ≈ 0.1 m deep (a 0.2 m box sank
/// 8 cm, a 0.06 m ball fell through the plane in 2 s). The paper's experiments set
/// their own gains (`tests/paper_000.rs`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PenaltyParams {
    pub points: PenaltyPoints,
    /// How the multi-point force is shared among the points (default
    /// [`Distribution::Count`], 000's 1/r). Scene key `[penalty] distribution`.
    pub distribution: Distribution,
    /// Proportional gain kp, N/m (default 2e4 (m1+m2)).
    pub kp: Gain,
    /// Derivative gain kv, N·s/m (default 300 (m1+m2)).
    pub kv: Gain,
    /// Integral gain ki, N/m per step-sum of depth (default 1e3 (m1+m2)).
    pub ki: Gain,
    /// Forgetting factor λ of the integral term, eq. (2); 0.8–0.9 per the paper.
    pub forgetting: f64,
    /// Upper bound on h·kv/m_r (m_r the pair's reduced mass): the damping is clamped
    /// so that one explicit step cannot overshoot the relative normal velocity.
    /// Gains scaled by m1 + m2 make kv/m_r large for a light body on a heavy one
    /// (kv/m_r = 50 (m1+m2)²/(m1 m2)); without the clamp explicit integration of such
    /// a pair diverges. Default 0.5 (a body carrying several contacts sums their damping); `f64::INFINITY` reproduces the paper's raw law.
    pub damping_limit: f64,
    /// Upper bound on h²·kp/m_r, the squared natural frequency of the pair's spring
    /// in units of the step (ω h)²; kp is clamped to it. Same reason as
    /// `damping_limit`: explicit integration needs ω h well below 2. Default 0.5;
    /// `f64::INFINITY` disables.
    pub stiffness_limit: f64,
    pub friction: FrictionParams,
    pub impacts: ImpactParams,
    /// The rest tolerance, m (and m/s), of penalty's semi-implicit path; 0 (the
    /// default) is off. A pair whose geoms stay within it of the poses its
    /// penetrating manifold was found at keeps that manifold
    /// (`pipeline::collide::NarrowMemo`), and one whose manifold is so kept, whose
    /// load repeats bit for bit, whose integral term stays within it and whose
    /// normal rate at the points moves by at most kp·tol/kv from those its normal
    /// rows were built at keeps those rows (`pipeline::penalty`). A point's
    /// normal force is then within (2 kp + ki)·tol of the law at the present
    /// state. Scene key
    /// `[penalty] rest_tol` (0 ≤ tol ≤ [`PenaltyParams::REST_TOL_MAX`]).
    pub rest_tol: f64,
    /// The normal force of a pair that involves a robot link, linearly implicit
    /// under semi-implicit Euler (`pipeline::penalty_robot`): its PID force taken at
    /// the end of the step through the robot's joint-space mass matrix, unclamped
    /// gains, as free bodies' pairs have. False (the default until measured): the
    /// explicit force with `damping_limit`/`stiffness_limit`'s clamped gains. Scene
    /// key `[penalty] robot_implicit`.
    pub robot_implicit: bool,
}

/// Static/sliding friction of the penalty method.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrictionParams {
    /// Tangential spring stiffness of sticking contact, N/m.
    pub k_stick: Gain,
    /// Tangential damper of sticking contact, N·s/m.
    pub b_stick: Gain,
    /// Below this tangential speed (m/s) a sliding pair sticks again (anchor set).
    pub v_stick: f64,
    /// A sticking pair whose spring would exceed μ‖f‖ is released to sliding when its
    /// tangential speed exceeds this (m/s); below it the anchor is dragged so the
    /// spring force stays on the friction cone (no creep from rounding noise).
    pub v_slip: f64,
    /// Sticking pairs as two tangential rows of the linearly implicit solve
    /// (semi-implicit Euler only): the anchor spring–damper is solved with the
    /// end-of-step velocities and normal forces instead of applied explicitly.
    /// Holds better (no post-stop rocking at h = 1e-2, quieter piles) and costs
    /// more (a pile's step ≈ 1.2–2×: docs/EXPERIMENTS.md "Sticking rows on the
    /// direct solve"). Off by default. Scene key `[penalty.friction] implicit`.
    pub implicit: bool,
    /// Sticking anchors linearly implicit (`contact::friction::StickMode::Linear`:
    /// unclamped gains, backward Euler on the pairs' own masses, solved where
    /// pairs share a body by `friction::LinearSticks`; the elastic tilt the
    /// contact's points hold not counted as slip, its moment left to the normal
    /// springs; rolling resistance held by an angular anchor,
    /// `friction::RollBlock`) on penalty's semi-implicit path and under
    /// Hunt–Crossley. On by default (docs/EXPERIMENTS.md "Rolling resistance that
    /// holds"); `false` is the clamped explicit anchor with the viscous rolling
    /// law. Scene key `[penalty.friction] linear` (`[hunt_crossley.friction] linear`).
    pub linear: bool,
    /// The linear anchors' solve started from each pair's last solve and
    /// relaxing only the blocks whose bodies changed (penalty's semi-implicit
    /// path, `contact::friction::LinearSticks::solve_warm`): pile20 29 → 14
    /// sweeps per step, half the cost, but the 20-pile with rolling resistance
    /// rests with fewer bodies asleep (docs/EXPERIMENTS.md "The sliding stop's
    /// last two figures, and the linear anchors' warm start"). Off by default.
    /// Scene key `[penalty.friction] warm_start`.
    pub warm_start: bool,
    /// The linear anchors' coupled blocks solved directly (penalty's
    /// semi-implicit path, `contact::friction::direct`): the sticking rows
    /// eliminated into the bodies' 6×6 block system, factored, the cones as an
    /// active set; block Gauss–Seidel only as its fallback. Off by default.
    /// Scene key `[penalty.friction] direct`.
    pub direct: bool,
    /// Late pairs (penalty's semi-implicit path with `linear`,
    /// `pipeline::penalty::late_friction`): a sticking pair open at the step's
    /// first normal solve that the solve with friction closes gets its anchor
    /// block and one more anchor and normal solve. Ends the penalty tetrahedron of
    /// spheres' period-2 chatter (max |v| 8.6e-4 → 5e-13 m/s), but the pushed row
    /// pile of `tests/sleep.rs` then ends 1.6e-3 m apart with and without sleeping
    /// (docs/EXPERIMENTS.md "The late pairs"). Off by default. Scene key
    /// `[penalty.friction] late_pairs`.
    pub late_pairs: bool,
    /// `[penalty.friction] solved_drag` (opt-in): a sticking linear anchor
    /// stretched beyond its cone is dragged only where its last solve reached
    /// the cone (`contact::friction::update_state_at`).
    pub solved_drag: bool,
    /// `[penalty.friction] solved_stick` (opt-in; penalty's semi-implicit path
    /// with `linear`): the stick/slip transitions decided on the coupled
    /// anchors' solve instead of the step's start (000 §III-B's static friction
    /// as a linear solve; Yamane–Nakamura's transition on the cone): a sliding
    /// pair slower than `v_slip` enters the solve with a trial anchor and sticks
    /// where the solve holds it inside its cone (else it slid under the cone's
    /// force and stays sliding), and a sticking anchor is dragged only where its
    /// last solve reached the cone (as `solved_drag`)
    /// (`contact::friction::update_state_at`).
    pub solved_stick: bool,
    /// The over-relaxation ω of the linear anchors' sweeps (penalty's
    /// semi-implicit path, `contact::friction::LinearSticks::solve_cold`):
    /// x_p ← P(x_p + ω (x̂_p − x_p)), x̂_p the block's own solve.
    /// Scene key `[penalty.friction] over_relaxation`: a number in (0, 2)
    /// (1 = Gauss–Seidel, the default) or `"adaptive"` ([`OverRelaxation`]).
    pub over_relaxation: OverRelaxation,
}

/// The over-relaxation of the linear anchors' projected block sweeps
/// (`[penalty.friction] over_relaxation`, `contact::friction::LinearSticks`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OverRelaxation {
    /// A fixed ω in (0, 2); 1 is projected block Gauss–Seidel.
    Fixed(f64),
    /// Young's ω = 2/(1 + √(1 − ρ)) from the contraction ρ that the solve's own
    /// Gauss–Seidel sweeps show (`LinearSticks::solve_cold`).
    Adaptive,
}

impl Default for OverRelaxation {
    /// ω = 1: projected block Gauss–Seidel.
    fn default() -> Self {
        OverRelaxation::Fixed(1.0)
    }
}

impl OverRelaxation {
    /// Whether `w` is a valid fixed ω: projected SOR on a symmetric
    /// positive-definite problem converges only for 0 < ω < 2.
    pub fn valid(w: f64) -> bool {
        w > 0.0 && w < 2.0
    }
}

/// Impact handling (000 Fig. 2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpactParams {
    /// Resolve new impacting contacts with impulses. Off: penalty handles all contact.
    pub enabled: bool,
    /// Normal approach speed (m/s) above which a new contact is an impact (ε of Fig. 2).
    pub epsilon: f64,
    /// A pair struck in the last step and still penetrating is struck again in
    /// the next step's first pass when some of its points separate while others
    /// approach faster than ε (the bounce rule, the default). False: 000's
    /// transition — once continuous contact has begun, an impact only where a
    /// third body's impulse strikes the pair (the sweeps); the pair is resting
    /// contact otherwise. Scene key `[penalty.impacts] reimpact` (docs/EXPERIMENTS.md
    /// "scale25").
    pub reimpact: bool,
}

impl PenaltyParams {
    /// The largest `rest_tol`, m: the rest memo's error bound (2 kp + ki)·tol per
    /// point stays far below the solves' own tolerances (docs/BENCHMARKS.md,
    /// scale15).
    pub const REST_TOL_MAX: f64 = 1e-9;

    /// Whether the pair forces are the modal multi-point law
    /// ([`Distribution::Modal`] on the multi-point model).
    pub fn modal(&self) -> bool {
        self.points == PenaltyPoints::Multi && self.distribution == Distribution::Modal
    }

    /// Whether `tol` is a valid `rest_tol` (0 = off).
    pub fn rest_tol_valid(tol: f64) -> bool {
        (0.0..=Self::REST_TOL_MAX).contains(&tol)
    }
}

impl Default for PenaltyParams {
    fn default() -> Self {
        PenaltyParams {
            points: PenaltyPoints::Multi,
            distribution: Distribution::Count,
            kp: Gain::PerMass(2.0e4),
            kv: Gain::PerMass(300.0),
            ki: Gain::PerMass(1.0e3),
            forgetting: 0.9,
            damping_limit: 0.5,
            stiffness_limit: 0.5,
            friction: FrictionParams::default(),
            impacts: ImpactParams::default(),
            rest_tol: 0.0,
            robot_implicit: false,
        }
    }
}

impl Default for FrictionParams {
    fn default() -> Self {
        FrictionParams {
            // ω = √(k/m) ≈ 316 rad/s, ω h ≈ 0.3 at 1 kHz: stiff enough that the
            // elastic stick displacement under a body's own weight is ~0.05 mm.
            k_stick: Gain::PerMass(1.0e5),
            // Near-critical damping of that spring (2√(k m) ≈ 632 m).
            b_stick: Gain::PerMass(600.0),
            v_stick: 1.0e-3,
            v_slip: 5.0e-2,
            implicit: false,
            linear: true,
            warm_start: false,
            direct: false,
            late_pairs: false,
            solved_drag: false,
            solved_stick: false,
            over_relaxation: OverRelaxation::default(),
        }
    }
}

impl Default for ImpactParams {
    fn default() -> Self {
        ImpactParams {
            enabled: true,
            epsilon: 1.0e-3,
            reimpact: true,
        }
    }
}

/// The time-stepping scheme of a world: a contact method is a whole step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// Force model inside an explicit integrator: 000's PID penalty with impulses.
    Penalty(PenaltyParams),
    /// 002's Hunt–Crossley visco-elastic contact (F = −λx − μxẋ at the intersection
    /// volume's centroid, μ from the restitution at impact) with the
    /// energy-monitored adaptive sub-steps of §4.2.
    HuntCrossley(HuntCrossleyParams),
    /// 003's velocity-level Stewart–Trinkle step (eqs. (5)–(10)) with a polyhedral
    /// friction cone and 001's constraint stabilization, solved by Lemke or PGS;
    /// with `LcpParams::contact_model` = PEG, 003's polytopal exact geometry rows
    /// (`method = "peg"`).
    Lcp(LcpParams),
    /// 004's Rigid IPC: the step minimizes the rigid incremental potential plus the
    /// barrier (and lagged friction) potentials by projected Newton with a line
    /// search filtered by curved CCD — intersection-free at every step.
    Ipc(IpcParams),
}

/// Parameters of Rigid IPC (004; `world.method = "ipc"`, table `[ipc]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IpcParams {
    /// Barrier activation distance d̂, m (pairs closer than d̂ feel the barrier; the
    /// rest gap under load is a fraction of it). Default 1e-3.
    pub dhat: f64,
    /// Newton stops when the step's largest point displacement over h is below
    /// this, m/s. Default 1e-5.
    pub newton_tolerance: f64,
    /// Newton iterations per step (and lagged-friction pass); at the limit the last
    /// intersection-free iterate is kept and counted. Default 100.
    pub max_iterations: usize,
    /// Friction smoothing velocity ε_v, m/s (004 §5: static friction is a stiff
    /// slope below ε_v; a sticking body creeps at most ε_v). Default 1e-4.
    pub friction_eps_v: f64,
    /// Lagged friction passes per step: the normal forces and tangent bases are
    /// taken from the start of the step, then from each pass's solution. Default 1.
    pub friction_iterations: usize,
    /// Half width, m, of the square a `plane` geom is tessellated into (two
    /// triangles). Default 100.
    pub plane_half_width: f64,
    /// How a body's rotation is predicted before the contact solve (scene key
    /// `[ipc] rotation`).
    pub rotation: IpcRotation,
    /// Count each contact once (`[ipc] count_once`): the constraint set takes the
    /// max approximator's weighted terms (`ipc::mesh::max_approximator_terms`), so
    /// that the barrier's push does not depend on the triangulation (a cube dropped
    /// flat across a diagonal of the floor's triangles does not spin; a slide across
    /// a diagonal gets no kick). Default true; false is 004's set (each primitive
    /// pair once: a contact on a shared vertex or edge counts once per face and
    /// edge around it). docs/EXPERIMENTS.md, "Outside scenes", sessions 29–31.
    pub count_once: bool,
}

/// The rotation prediction Q̃ of Rigid IPC's incremental potential (`[ipc] rotation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IpcRotation {
    /// 004's implicit Euler, Q̃ = Qᵗ + h Q̇ᵗ (eq. 9): a free body's spin decays, by
    /// ≈ (ωh)² per step (the paper's limitation (2): energy is not conserved).
    ImplicitEuler,
    /// The torque-free flow: Q̃ = R(h ω̄) Qᵗ, ω̄ the mean angular velocity that keeps
    /// the angular momentum (`ipc::potential::free_flow_omega`); a free spin is kept,
    /// contact and applied torques still act implicitly through the same potential.
    FreeFlow,
}

impl Default for IpcParams {
    fn default() -> Self {
        IpcParams {
            dhat: 1e-3,
            newton_tolerance: 1e-5,
            max_iterations: 100,
            friction_eps_v: 1e-4,
            friction_iterations: 1,
            plane_half_width: 100.0,
            rotation: IpcRotation::FreeFlow,
            count_once: true,
        }
    }
}

impl IpcParams {
    /// The first offending key (relative to `[ipc]`) and why.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let pos = |v: f64, k: &'static str| {
            if v.is_finite() && v > 0.0 && v <= scene::MAX_COORD {
                Ok(())
            } else {
                Err((k, format!("must be a positive finite number, got {v}")))
            }
        };
        pos(self.dhat, "dhat")?;
        pos(self.newton_tolerance, "newton_tolerance")?;
        pos(self.friction_eps_v, "friction_eps_v")?;
        pos(self.plane_half_width, "plane_half_width")?;
        if !(1..=100_000).contains(&self.max_iterations) {
            return Err((
                "max_iterations",
                format!("must be in [1, 100000], got {}", self.max_iterations),
            ));
        }
        if !(1..=100).contains(&self.friction_iterations) {
            return Err((
                "friction_iterations",
                format!("must be in [1, 100], got {}", self.friction_iterations),
            ));
        }
        Ok(())
    }
}

/// How the damping of a Hunt–Crossley pair is derived from its restitution
/// coefficient e and impact speed v_i (fixed when the pair first touches).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DampingRule {
    /// Solve the exact Hunt–Crossley relation c·v_in − ln(1 + c·v_in) =
    /// −c·v_out − ln(1 − c·v_out), v_out = e·v_in, for c = μ/λ (achieves e for any
    /// λ, mass and interpenetration exponent, without gravity during the contact).
    Exact,
    /// 002 eq. (5): μ = (3/2) α λ with α = (1 − e)/v_i, i.e. c = 1.5 (1 − e)/v_i
    /// (the small-damping limit of the exact relation: it under-damps away from
    /// e = 1, e.g. a requested 0.3 rebounds at 0.58 from 4.4 m/s).
    Paper,
}

/// Parameters of the Hunt–Crossley method of 002 (`world.method = "hunt_crossley"`).
///
/// Interpenetration measure x: the intersection **volume** (m³) for pairs of
/// polytopal shapes (plane, box, convex polytope, mesh hull), the **depth** (m) for
/// pairs involving a sphere, capsule or cylinder. λ has units N/m³ for volume pairs
/// and N/m for depth pairs; the damping c = μ/λ has units s/m in both (the law is
/// F = λ x (1 + c δ̇) with δ̇ the normal approach speed at the force point, m/s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HuntCrossleyParams {
    /// λ of volume pairs, N/m³. `None`: 002 §5's rule — each body sinks
    /// `penetration_fraction` of its size under its own weight (see below).
    pub stiffness_volume: Option<f64>,
    /// λ of depth pairs, N/m. `None`: the §5 rule.
    pub stiffness_depth: Option<f64>,
    /// The §5 rule: the fraction f of a body's size L = V^(1/3) (V its volume) by
    /// which it may sink under the weight it carries, M·g (its own mass plus what
    /// rests on it, found each tick by `pipeline::hunt_crossley`). Per body,
    /// λ_volume = M g/(f V) (a cube resting on a face sinks f·L) and
    /// λ_depth = M g/(f L); a pair takes the larger of its moving bodies' values, so
    /// that both meet the bound. g = |gravity| (9.80665 m/s² in a weightless scene).
    /// Default 0.0005 (0.05 %: a 1 m box rests 0.5 mm deep, a 1,000:1 stack of
    /// 1 m and 10 m cubes within 1 mm); smaller is stiffer and needs smaller
    /// sub-steps (τ ∝ √f).
    pub penetration_fraction: f64,
    /// The pair's restitution is the combined `Material::restitution`. Hunt–Crossley
    /// cannot be plastic: c → ∞ as e → 0 (the exact rule resolves e ≥ 0.01 and
    /// gives c ≈ 1/(e v_i)), so a pair with e ≈ 0 sinks into its rest penetration
    /// over a time ~ c·δ_rest (seconds for e = 0 at the `min_impact_speed` floor).
    /// Scenes for this method should give materials e ≳ 0.2.
    pub damping_rule: DampingRule,
    /// Floor on the impact speed v_i used for the damping, m/s (a pair that comes to
    /// touch at rest would otherwise get c = ∞; impacts slower than this rebound
    /// with more than the requested e). Default 0.05 m/s.
    pub min_impact_speed: f64,
    /// Energy-monitored adaptive sub-steps (002 §4.2). Off: one step of `dt` per tick.
    pub adaptive: bool,
    /// ε of §4.2, relative and per sub-step: a sub-step is accepted when its
    /// non-physical energy change |ΔE − W_ext − W_diss| ≤ ε · E_s, with E_s = kinetic +
    /// contact elastic energy at the start of the tick + Σ m_i g L_i over the moving
    /// bodies (J). Smaller is more accurate and costs more sub-steps (τ ∝ √ε with
    /// semi-implicit Euler). Default 1e-4.
    pub energy_tolerance: f64,
    /// The monitor's energy scale per pair (opt-in): E_s is also bounded by the
    /// smallest pair scale over the penetrating pairs at a sub-step's start and end
    /// states — the kinetic energy of the pair's moving bodies + the pair's elastic
    /// energy + m g L of its lighter moving body — so that a light body touching a
    /// heavy one is integrated to its own tolerance, not to the heavy one's.
    /// Default false (E_s over the whole world).
    pub pair_energy_scale: bool,
    /// Floor of the sub-step, s (a sub-step at the floor is accepted whatever its
    /// error, and counted in `StepStats::substep_floor_hits`). Default 1e-6 s.
    pub min_substep: f64,
    /// Coulomb friction with static spring–damper, shared with the penalty family.
    pub friction: FrictionParams,
}

impl Default for HuntCrossleyParams {
    fn default() -> Self {
        HuntCrossleyParams {
            stiffness_volume: None,
            stiffness_depth: None,
            penetration_fraction: 0.0005,
            damping_rule: DampingRule::Exact,
            min_impact_speed: 0.05,
            adaptive: true,
            energy_tolerance: 1e-4,
            pair_energy_scale: false,
            min_substep: 1e-6,
            friction: FrictionParams::default(),
        }
    }
}

impl Method {
    pub fn name(&self) -> &'static str {
        match self {
            Method::Penalty(p) => match p.points {
                PenaltyPoints::Multi => "penalty",
                PenaltyPoints::Deepest => "penalty_deepest",
            },
            Method::HuntCrossley(_) => "hunt_crossley",
            Method::Lcp(p) => match p.contact_model {
                ContactModel::Standard => "lcp",
                ContactModel::Peg => "peg",
            },
            Method::Ipc(_) => "ipc",
        }
    }
}

/// World-level options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// m/s², world frame.
    pub gravity: Vec3,
    /// Step size h, s.
    pub dt: f64,
    pub integrator: Integrator,
    pub method: Method,
    /// A coordinate or velocity beyond this magnitude counts as diverged (m, m/s, rad/s).
    pub max_abs_state: f64,
    /// Sleeping islands (`pipeline::sleep`); off by default.
    pub sleep: SleepParams,
}

/// Sleeping islands (`[world] sleep = { ... }`, `pipeline::sleep`): an island of
/// touching bodies whose every body has moved slower than (`v_rest`, `w_rest`) for
/// `rest_time` sleeps until something wakes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SleepParams {
    pub enabled: bool,
    /// s a body must stay under the thresholds before its island may sleep.
    pub rest_time: f64,
    /// Rest thresholds: |v| of the centre of mass, m/s, and |ω|, rad/s.
    pub v_rest: f64,
    pub w_rest: f64,
}

impl Default for SleepParams {
    fn default() -> Self {
        SleepParams {
            enabled: false,
            rest_time: 0.5,
            v_rest: 2e-3,
            w_rest: 2e-2,
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            gravity: Vec3::new(0.0, 0.0, -9.81),
            dt: 1e-3,
            integrator: Integrator::SemiImplicitEuler,
            method: Method::Penalty(PenaltyParams::default()),
            max_abs_state: 1e10,
            sleep: SleepParams::default(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// Fixed in the world (the ground, walls, a table).
    Static,
    /// A free rigid body with six degrees of freedom.
    Free,
    /// The collision proxy of link `link` of robot `robot` (see [`robot`]): its
    /// state is written from the robot's kinematics, never integrated.
    Link { robot: u32, link: u32 },
}

/// Locked degrees of freedom of a free body, in world axes: translations along
/// x, y, z and rotations about x, y, z (`[x, y, z, rx, ry, rz]`). A locked
/// velocity component stays 0: the LCP step zeroes the rows and columns of M⁻¹
/// and of ν_f (the constraint force is implicit and exact), the other methods
/// zero the locked accelerations and every method projects the state after the
/// step (`pipeline::locks`). The planar world of 003's 2D experiment is
/// [`Locks::PLANAR`]: motion in the x–y plane, rotation about z.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Locks(pub [bool; 6]);

impl Locks {
    pub const NONE: Locks = Locks([false; 6]);
    /// z, rx and ry locked: (x, y, θ) in the plane z = const.
    pub const PLANAR: Locks = Locks([false, false, true, true, true, false]);
    /// Names of the components, as the scene key `lock` takes them.
    pub const NAMES: [&'static str; 6] = ["x", "y", "z", "rx", "ry", "rz"];
    pub fn any(&self) -> bool {
        self.0.iter().any(|&l| l)
    }

    /// The inverse of the world inertia `i_w` on the free rotations only: the
    /// locked rows and columns 0, the free block the inverse of `i_w`'s free
    /// block (the constrained body's response to a torque; it equals the free
    /// block of I_w⁻¹ only when the locked axes are principal). `i_w_inv` is
    /// returned unchanged when no rotation is locked.
    pub fn inverse_inertia(&self, i_w: &Mat3, i_w_inv: &Mat3) -> Mat3 {
        let mut free = [0usize; 3];
        let mut k = 0;
        for a in 0..3 {
            if !self.0[3 + a] {
                free[k] = a;
                k += 1;
            }
        }
        let mut out = Mat3::zeros();
        match k {
            3 => return *i_w_inv,
            2 => {
                let (a, b) = (free[0], free[1]);
                let det = i_w[(a, a)] * i_w[(b, b)] - i_w[(a, b)] * i_w[(b, a)];
                if det != 0.0 && det.is_finite() {
                    out[(a, a)] = i_w[(b, b)] / det;
                    out[(b, b)] = i_w[(a, a)] / det;
                    out[(a, b)] = -i_w[(a, b)] / det;
                    out[(b, a)] = -i_w[(b, a)] / det;
                }
            }
            1 => {
                let a = free[0];
                if i_w[(a, a)] != 0.0 && i_w[(a, a)].is_finite() {
                    out[(a, a)] = 1.0 / i_w[(a, a)];
                }
            }
            _ => {}
        }
        out
    }
    /// Zeroes the locked components of a linear (`v`) and angular (`w`) vector.
    #[inline]
    pub fn project(&self, v: &mut Vec3, w: &mut Vec3) {
        for i in 0..3 {
            if self.0[i] {
                v[i] = 0.0;
            }
            if self.0[3 + i] {
                w[i] = 0.0;
            }
        }
    }
}

/// A rigid body. Its frame's origin is the centre of mass.
#[derive(Clone, Debug)]
pub struct Body {
    pub name: String,
    pub kind: BodyKind,
    /// kg (0 for static bodies).
    pub mass: f64,
    /// The mass a contact on this body carries, for gains scaled by mass: the body's
    /// own for a free body; for a link proxy, the whole robot's.
    pub gain_mass: f64,
    pub inv_mass: f64,
    /// Inertia about the centre of mass in the body frame, kg·m².
    pub inertia: Mat3,
    pub inv_inertia: Mat3,
    /// Initial pose of the body frame in the world (x_wb) and velocities (world frame).
    pub pose0: Pose,
    pub v0: Vec3,
    pub w0: Vec3,
    /// Range into `Model::geoms`.
    pub geoms: std::ops::Range<usize>,
    /// Locked degrees of freedom (free bodies only; [`Locks`]).
    pub lock: Locks,
}

impl Body {
    #[inline]
    pub fn is_link(&self) -> bool {
        matches!(self.kind, BodyKind::Link { .. })
    }
}

/// A collision shape attached to a body.
#[derive(Clone, Debug)]
pub struct Geom {
    pub body: usize,
    pub shape: Shape,
    /// Pose of the geom frame in the body frame (x_bg).
    pub x_bg: Pose,
    pub material: Material,
    /// A static box with a face covered by another static box's face collides
    /// as its extended box ([`seams`]); `None` for every other geom.
    pub seam: Option<Arc<seams::Seam>>,
}

/// The immutable world description.
#[derive(Clone, Debug)]
pub struct Model {
    pub opt: Options,
    pub bodies: Vec<Body>,
    pub geoms: Vec<Geom>,
    /// Articulated robots; their coordinates are `Data::qpos[q_offset..]` etc.
    pub robots: Vec<RobotModel>,
    /// Total configuration coordinates and degrees of freedom of all robots.
    pub nq: usize,
    pub nv: usize,
    /// Offsets in `Data::qpos` of the floating bases' unit quaternions.
    pub quat_at: Vec<usize>,
    /// Dense ids over all robots (robot after robot): DoF joints (robot, joint),
    /// named frames (robot, frame) and sensors.
    pub joint_ids: Vec<(u32, u32)>,
    pub frame_ids: Vec<(u32, u32)>,
    pub sensor_ids: Vec<(u32, robot::SensorKind)>,
    /// Haptic devices (`[[haptic]]`), each coupled to a tool body.
    pub haptics: Vec<crate::haptics::spec::HapticSpec>,
    body_names: HashMap<String, usize>,
}

impl Model {
    pub fn body_id(&self, name: &str) -> Option<usize> {
        self.body_names.get(name).copied()
    }
    pub fn nbody(&self) -> usize {
        self.bodies.len()
    }
    pub fn ngeom(&self) -> usize {
        self.geoms.len()
    }
    pub fn robot_id(&self, name: &str) -> Option<usize> {
        self.robots.iter().position(|r| r.name == name)
    }
    /// Whether geoms `a` and `b` may collide (see [`bodies_may_collide`]).
    #[inline]
    pub fn geoms_may_collide(&self, a: usize, b: usize) -> bool {
        let (ba, bb) = (self.geoms[a].body, self.geoms[b].body);
        bodies_may_collide(&self.bodies, &self.robots, ba, bb)
    }
    /// A copy with a different method, step or integrator (for `rtphys run --method`;
    /// the caller checks the method against the robots with
    /// [`check_method_steps_robots`]).
    pub fn with_options(&self, opt: Options) -> Model {
        let mut m = self.clone();
        m.opt = opt;
        m
    }

    /// A copy whose every geom's material has a rolling resistance length of at
    /// least `rolling` (m; `material.rolling`): `rtphys bench --rolling` and the
    /// pile examples. A non-finite or non-positive `rolling` changes nothing.
    pub fn with_min_rolling(&self, rolling: f64) -> Model {
        let mut m = self.clone();
        if rolling > 0.0 && rolling.is_finite() {
            for g in &mut m.geoms {
                g.material.rolling = g.material.rolling.max(rolling);
            }
        }
        m
    }
}

/// Whether `method` steps articulated robots (penalty and LCP do; Hunt–Crossley's
/// stepper does not advance them, so a world with robots is refused rather than
/// having them stand still). The one rule for the builder and for method overrides.
pub fn check_method_steps_robots(method: &Method, has_robots: bool) -> Result<(), ModelError> {
    if has_robots && matches!(method, Method::HuntCrossley(_)) {
        return Err(ModelError::Invalid(
            "robots are stepped by the penalty and LCP methods; hunt_crossley does not support them yet"
                .into(),
        ));
    }
    if has_robots && matches!(method, Method::Ipc(_)) {
        return Err(ModelError::Invalid(
            "world.method = \"ipc\" steps free and static bodies only; robots ([[robot]]) are not supported by the ipc method".into(),
        ));
    }
    Ok(())
}

/// Whether bodies `a` and `b` may collide: different bodies, not both unable to
/// move (static, or a robot link welded to the world), and for two links of one
/// robot: self-collision on and not parent and child.
#[inline]
pub fn bodies_may_collide(bodies: &[Body], robots: &[RobotModel], a: usize, b: usize) -> bool {
    if a == b {
        return false;
    }
    let moves = |k: BodyKind| match k {
        BodyKind::Static => false,
        BodyKind::Free => true,
        BodyKind::Link { robot, link } => robots[robot as usize].link_moves[link as usize],
    };
    let (ka, kb) = (bodies[a].kind, bodies[b].kind);
    if let (
        BodyKind::Link {
            robot: r1,
            link: l1,
        },
        BodyKind::Link {
            robot: r2,
            link: l2,
        },
    ) = (ka, kb)
    {
        if r1 == r2 {
            let r = &robots[r1 as usize];
            return r.self_collision && !r.adjacent(l1 as usize, l2 as usize);
        }
    }
    moves(ka) || moves(kb)
}

/// Errors of model construction (the scene loader adds file and key context).
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum ModelError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Geometry(#[from] crate::collision::GeometryError),
}

/// How a body's mass properties are given.
#[derive(Clone, Debug)]
pub enum MassSpec {
    /// Total mass, kg; inertia from the shapes at uniform density.
    Mass(f64),
    /// Density, kg/m³.
    Density(f64),
    /// Mass and an explicit inertia about the COM in the body frame.
    MassInertia(f64, Mat3),
}

/// Description of one body for [`ModelBuilder::add_body`].
#[derive(Clone, Debug)]
pub struct BodySpec {
    pub name: String,
    pub kind: BodyKind,
    pub mass: MassSpec,
    pub position: Vec3,
    pub orientation: Quat,
    pub velocity: Vec3,
    pub angular_velocity: Vec3,
    /// Shapes with their poses in the body frame (the geom poses are given about the
    /// body frame origin; the builder shifts it to the centre of mass).
    pub geoms: Vec<(Shape, Pose, Material)>,
    /// Locked degrees of freedom (free bodies only).
    pub lock: Locks,
}

impl BodySpec {
    /// A free body with one shape at its origin, mass from density 1000 kg/m³.
    pub fn free(name: &str, shape: Shape) -> Self {
        BodySpec {
            name: name.to_string(),
            kind: BodyKind::Free,
            mass: MassSpec::Density(1000.0),
            position: Vec3::zeros(),
            orientation: Quat::identity(),
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
            geoms: vec![(shape, Pose::identity(), Material::default())],
            lock: Locks::NONE,
        }
    }
    pub fn fixed(name: &str, shape: Shape, pose: Pose) -> Self {
        BodySpec {
            name: name.to_string(),
            kind: BodyKind::Static,
            mass: MassSpec::Mass(0.0),
            position: Vec3::zeros(),
            orientation: Quat::identity(),
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
            geoms: vec![(shape, pose, Material::default())],
            lock: Locks::NONE,
        }
    }
    /// Locks degrees of freedom ([`Locks`]).
    pub fn locked(mut self, lock: Locks) -> Self {
        self.lock = lock;
        self
    }
    pub fn at(mut self, p: Vec3) -> Self {
        self.position = p;
        self
    }
    pub fn rotated(mut self, q: Quat) -> Self {
        self.orientation = q;
        self
    }
    pub fn mass(mut self, m: f64) -> Self {
        self.mass = MassSpec::Mass(m);
        self
    }
    pub fn velocity(mut self, v: Vec3) -> Self {
        self.velocity = v;
        self
    }
    pub fn angular_velocity(mut self, w: Vec3) -> Self {
        self.angular_velocity = w;
        self
    }
    pub fn material(mut self, mat: Material) -> Self {
        for g in &mut self.geoms {
            g.2 = mat;
        }
        self
    }
}

/// Collects bodies and options, validates them and freezes a [`Model`].
#[derive(Clone, Debug, Default)]
pub struct ModelBuilder {
    pub opt: Options,
    bodies: Vec<BodySpec>,
    robots: Vec<RobotSpec>,
}

impl ModelBuilder {
    pub fn new(opt: Options) -> Self {
        ModelBuilder {
            opt,
            bodies: Vec::new(),
            robots: Vec::new(),
        }
    }

    /// Add an articulated robot; returns its index in `Model::robots`.
    pub fn add_robot(&mut self, spec: RobotSpec) -> usize {
        self.robots.push(spec);
        self.robots.len() - 1
    }

    pub fn add_body(&mut self, spec: BodySpec) -> usize {
        self.bodies.push(spec);
        self.bodies.len() - 1
    }

    /// Validate and freeze. Errors name the body and what is wrong.
    pub fn finalize(self) -> Result<Model, ModelError> {
        let opt = self.opt;
        validate_options(&opt)?;
        let mut bodies = Vec::with_capacity(self.bodies.len());
        let mut geoms = Vec::new();
        let mut body_names = HashMap::new();
        for (bi, spec) in self.bodies.into_iter().enumerate() {
            let ctx = |msg: String| ModelError::Invalid(format!("body '{}': {msg}", spec.name));
            if body_names.insert(spec.name.clone(), bi).is_some() {
                return Err(ctx("duplicate body name".into()));
            }
            if spec.geoms.is_empty() {
                return Err(ctx("has no shape".into()));
            }
            for (k, v) in [
                ("position", spec.position),
                ("velocity", spec.velocity),
                ("angular_velocity", spec.angular_velocity),
            ] {
                if !v.iter().all(|c| c.is_finite()) {
                    return Err(ctx(format!("{k} is not finite: {v:?}")));
                }
            }
            if !spec.orientation.coords.iter().all(|c| c.is_finite()) {
                return Err(ctx("orientation is not finite".into()));
            }
            let (mass, com_b, inertia) = match spec.kind {
                BodyKind::Static => (0.0, Vec3::zeros(), Mat3::zeros()),
                BodyKind::Free => body_mass_properties(&spec).map_err(ctx)?,
                BodyKind::Link { .. } => return Err(ctx("robot links come with robots".into())),
            };
            let (inv_mass, inv_inertia) = match spec.kind {
                BodyKind::Static | BodyKind::Link { .. } => (0.0, Mat3::zeros()),
                BodyKind::Free => {
                    check_inertia(&inertia).map_err(ctx)?;
                    let inv = inertia
                        .try_inverse()
                        .ok_or_else(|| ctx("inertia is singular".into()))?;
                    (1.0 / mass, inv)
                }
            };
            // Body frame at the COM: x_wb' = x_wb * T(com_b); geoms shift by -com_b.
            let pose_given = Pose::from_parts(spec.position.into(), spec.orientation);
            let shift = Pose::translation(com_b.x, com_b.y, com_b.z);
            let pose0 = pose_given * shift;
            let g0 = geoms.len();
            for (shape, x_bg, material) in spec.geoms {
                if !(material.mu.is_finite() && material.mu >= 0.0) {
                    return Err(ctx(format!("friction mu must be ≥ 0, got {}", material.mu)));
                }
                if !(material.restitution.is_finite()
                    && (0.0..=1.0).contains(&material.restitution))
                {
                    return Err(ctx(format!(
                        "restitution must be in [0, 1], got {}",
                        material.restitution
                    )));
                }
                if !(material.rolling.is_finite() && material.rolling >= 0.0) {
                    return Err(ctx(format!(
                        "rolling must be ≥ 0 m, got {}",
                        material.rolling
                    )));
                }
                if matches!(shape, Shape::Plane) && spec.kind != BodyKind::Static {
                    return Err(ctx(
                        "a plane (half-space) must belong to a static body".into()
                    ));
                }
                geoms.push(Geom {
                    body: bi,
                    shape,
                    x_bg: shift.inverse() * x_bg,
                    material,
                    seam: None,
                });
            }
            if spec.lock.any() && spec.kind != BodyKind::Free {
                return Err(ctx("lock applies to free bodies only".into()));
            }
            // A locked component of the initial velocity is dropped (projected).
            let (mut v0, mut w0) = (spec.velocity, spec.angular_velocity);
            spec.lock.project(&mut v0, &mut w0);
            bodies.push(Body {
                name: spec.name,
                kind: spec.kind,
                mass,
                gain_mass: mass,
                inv_mass,
                inertia,
                inv_inertia,
                pose0,
                v0,
                w0,
                geoms: g0..geoms.len(),
                lock: spec.lock,
            });
        }
        let robots = add_robots(&opt, self.robots, &mut bodies, &mut geoms, &mut body_names)?;
        share_polytopes(&mut geoms);
        find_seams(&bodies, &mut geoms);
        // Every pair of shape kinds that may meet must have a collision routine.
        for a in 0..geoms.len() {
            for b in a + 1..geoms.len() {
                let (ka, kb) = (geoms[a].shape.kind(), geoms[b].shape.kind());
                let ba = &bodies[geoms[a].body];
                let bb = &bodies[geoms[b].body];
                let may = bodies_may_collide(&bodies, &robots, geoms[a].body, geoms[b].body);
                if may && !pair_supported(ka, kb) {
                    return Err(ModelError::Invalid(format!(
                        "no collision routine for {} ('{}') against {} ('{}')",
                        ka.name(),
                        ba.name,
                        kb.name(),
                        bb.name
                    )));
                }
            }
        }
        let nq = robots.iter().map(|r| r.nq()).sum();
        let nv = robots.iter().map(|r| r.nv()).sum();
        let quat_at = robots
            .iter()
            .flat_map(|r| r.quat_at.iter().map(move |i| r.q_offset + i))
            .collect();
        let (joint_ids, frame_ids, sensor_ids) = robot::global_ids(&robots);
        Ok(Model {
            quat_at,
            joint_ids,
            frame_ids,
            sensor_ids,
            opt,
            bodies,
            geoms,
            robots,
            nq,
            nv,
            haptics: Vec::new(),
            body_names,
        })
    }
}

/// Geoms whose polytopes are equal (bit for bit in their vertices, and equal in
/// faces and edges) share one `Arc`: a pile or grid of equal boxes then reads one
/// vertex and edge list that stays in cache, where 1,000 separate copies cost the
/// narrow phase three dependent cache misses per pair (measured on grid_1000,
/// docs/BENCHMARKS.md "Equal shapes share one polytope"). The content is equal, so
/// every computation on it is unchanged.
fn share_polytopes(geoms: &mut [Geom]) {
    let mut seen: HashMap<Vec<u64>, Vec<Arc<ConvexPolytope>>> = HashMap::new();
    for g in geoms.iter_mut() {
        let slot = match &mut g.shape {
            Shape::Box { poly, .. } => poly,
            Shape::Polytope(poly) => poly,
            _ => continue,
        };
        let key: Vec<u64> = slot
            .vertices
            .iter()
            .flat_map(|v| v.iter().map(|c| c.to_bits()))
            .collect();
        let same = seen.entry(key).or_default();
        match same.iter().find(|p| ***p == **slot) {
            Some(p) => *slot = Arc::clone(p),
            None => same.push(Arc::clone(slot)),
        }
    }
}

/// Freeze the robots and add a proxy body for every link with geometry (named
/// `robot/link`), after the free and static bodies.
fn add_robots(
    opt: &Options,
    specs: Vec<RobotSpec>,
    bodies: &mut Vec<Body>,
    geoms: &mut Vec<Geom>,
    body_names: &mut HashMap<String, usize>,
) -> Result<Vec<RobotModel>, ModelError> {
    check_method_steps_robots(&opt.method, !specs.is_empty())?;
    let mut robots: Vec<RobotModel> = Vec::with_capacity(specs.len());
    let (mut q_off, mut v_off) = (0, 0);
    for mut spec in specs {
        if robots.iter().any(|r| r.name == spec.name) {
            return Err(ModelError::Invalid(format!(
                "duplicate robot name '{}'",
                spec.name
            )));
        }
        let link_geoms: Vec<_> = spec
            .links
            .iter_mut()
            .map(|l| std::mem::take(&mut l.geoms))
            .collect();
        let mut rm = robot::freeze(spec, opt.gravity, opt.dt, q_off, v_off)?;
        q_off += rm.nq();
        v_off += rm.nv();
        let ri = robots.len() as u32;
        for (li, lg) in link_geoms.into_iter().enumerate() {
            if lg.is_empty() {
                continue;
            }
            let bi = bodies.len();
            let name = format!("{}/{}", rm.name, rm.link_names[li]);
            if body_names.insert(name.clone(), bi).is_some() {
                return Err(ModelError::Invalid(format!(
                    "link proxy '{name}' clashes with a body of that name"
                )));
            }
            let (mass, com, inertia) = robot::link_mass_properties(&rm.tree, li);
            let inv_inertia = inertia.try_inverse().unwrap_or_else(Mat3::zeros);
            // Proxy frame: link axes at the link's centre of mass.
            let shift = Pose::translation(com.x, com.y, com.z);
            let g0 = geoms.len();
            for (shape, x_lg, material) in lg {
                if matches!(shape, Shape::Plane) {
                    return Err(ModelError::Invalid(format!(
                        "{name}: a plane (half-space) cannot belong to a robot link"
                    )));
                }
                geoms.push(Geom {
                    body: bi,
                    shape,
                    x_bg: shift.inverse() * x_lg,
                    material,
                    seam: None,
                });
            }
            bodies.push(Body {
                name,
                kind: BodyKind::Link {
                    robot: ri,
                    link: li as u32,
                },
                mass,
                gain_mass: rm.supported_mass[li],
                inv_mass: 1.0 / mass,
                inertia,
                inv_inertia,
                pose0: Pose::identity(),
                v0: Vec3::zeros(),
                w0: Vec3::zeros(),
                geoms: g0..geoms.len(),
                lock: Locks::NONE,
            });
            rm.link_body[li] = Some(bi);
        }
        robots.push(rm);
    }
    Ok(robots)
}

/// The static boxes' covered faces ([`seams`]).
fn find_seams(bodies: &[Body], geoms: &mut [Geom]) {
    let statics: Vec<(usize, Pose, &Shape)> = (geoms.iter().enumerate())
        .filter(|(_, g)| bodies[g.body].kind == BodyKind::Static)
        .map(|(i, g)| (i, bodies[g.body].pose0 * g.x_bg, &g.shape))
        .collect();
    let found = seams::find(&statics, geoms.len());
    for (g, seam) in geoms.iter_mut().zip(found) {
        g.seam = seam.map(Arc::new);
    }
}

pub(crate) fn validate_options(opt: &Options) -> Result<(), ModelError> {
    if !(opt.dt.is_finite() && opt.dt > 0.0) {
        return Err(ModelError::Invalid(format!(
            "dt must be > 0, got {}",
            opt.dt
        )));
    }
    if !opt.gravity.iter().all(|g| g.is_finite()) {
        return Err(ModelError::Invalid("gravity is not finite".into()));
    }
    match &opt.method {
        Method::Penalty(p) => {
            if !(p.forgetting > 0.0 && p.forgetting < 1.0) {
                return Err(ModelError::Invalid(format!(
                    "forgetting factor must be in (0, 1), got {}",
                    p.forgetting
                )));
            }
            for (k, g) in [("kp", p.kp), ("kv", p.kv), ("ki", p.ki)] {
                let v = g.value(1.0);
                if !(v.is_finite() && v >= 0.0) {
                    return Err(ModelError::Invalid(format!(
                        "gain {k} must be ≥ 0, got {v}"
                    )));
                }
            }
        }
        Method::HuntCrossley(h) => validate_hunt_crossley(h, opt.dt)?,
        Method::Lcp(l) => l
            .validate()
            .map_err(|(k, m)| ModelError::Invalid(format!("lcp.{k} {m}")))?,
        Method::Ipc(p) => p
            .validate()
            .map_err(|(k, m)| ModelError::Invalid(format!("ipc.{k} {m}")))?,
    }
    Ok(())
}

fn validate_hunt_crossley(h: &HuntCrossleyParams, dt: f64) -> Result<(), ModelError> {
    let bad = |k: &str, msg: String| Err(ModelError::Invalid(format!("hunt_crossley.{k} {msg}")));
    for (k, v) in [
        ("stiffness_volume", h.stiffness_volume),
        ("stiffness_depth", h.stiffness_depth),
    ] {
        if let Some(v) = v {
            if !(v.is_finite() && v > 0.0) {
                return bad(k, format!("must be a finite number > 0, got {v}"));
            }
        }
    }
    if !(h.penetration_fraction > 0.0 && h.penetration_fraction < 1.0) {
        return bad(
            "penetration_fraction",
            format!("must be in (0, 1), got {}", h.penetration_fraction),
        );
    }
    if !(h.min_impact_speed.is_finite() && h.min_impact_speed > 0.0) {
        return bad(
            "min_impact_speed",
            format!("must be a finite number > 0, got {}", h.min_impact_speed),
        );
    }
    if !(h.energy_tolerance.is_finite() && h.energy_tolerance > 0.0) {
        return bad(
            "energy_tolerance",
            format!("must be a finite number > 0, got {}", h.energy_tolerance),
        );
    }
    if !(h.min_substep > 0.0 && h.min_substep <= dt) {
        return bad(
            "min_substep",
            format!("must be in (0, dt = {dt}] s, got {}", h.min_substep),
        );
    }
    Ok(())
}

/// Mass, COM (body frame) and inertia about the COM (body frame) of a free body.
fn body_mass_properties(spec: &BodySpec) -> Result<(f64, Vec3, Mat3), String> {
    // An open mesh (a codimensional body, IPC only) weighs as a thin shell: its
    // unit properties are per area, so it takes `mass` (or `mass` and `inertia`),
    // not a volume density, and does not mix with solids.
    let open = |s: &crate::collision::Shape| matches!(s, crate::collision::Shape::Polytope(p) if p.source.as_ref().is_some_and(|m| !m.closed));
    let n_open = spec.geoms.iter().filter(|g| open(&g.0)).count();
    if n_open > 0 {
        if matches!(spec.mass, MassSpec::Density(_)) {
            return Err("an open mesh (codimensional body) has no volume: give `mass` (its inertia is a uniform thin shell's) or `mass` and `inertia`, not `density`".into());
        }
        if n_open < spec.geoms.len() && !matches!(spec.mass, MassSpec::MassInertia(..)) {
            return Err("a body mixing open meshes with solids needs `mass` and `inertia`".into());
        }
    }
    // Unit-density properties of each shape, moved into the body frame.
    let mut parts = Vec::new();
    for (i, (shape, x_bg, _)) in spec.geoms.iter().enumerate() {
        let mp = shape
            .mass_properties(1.0)
            .ok_or_else(|| format!("shape {i} has no finite volume"))?;
        let r = x_bg.rotation.to_rotation_matrix();
        let com = x_bg * nalgebra::Point3::from(mp.com);
        parts.push((
            mp.mass,
            com.coords,
            r.matrix() * mp.inertia * r.matrix().transpose(),
        ));
    }
    let vol: f64 = parts.iter().map(|p| p.0).sum();
    if vol.is_nan() || vol <= 0.0 {
        return Err("shapes have zero volume".into());
    }
    let com = parts.iter().fold(Vec3::zeros(), |acc, p| acc + p.1 * p.0) / vol;
    let mut i_unit = Mat3::zeros();
    for (m, c, i) in &parts {
        // Parallel-axis theorem: I + m (|d|² E − d dᵀ).
        let d = c - com;
        i_unit += i + *m * (Mat3::identity() * d.norm_squared() - d * d.transpose());
    }
    match &spec.mass {
        MassSpec::Mass(m) => {
            if !(m.is_finite() && *m > 0.0) {
                return Err(format!("mass must be a positive finite number, got {m}"));
            }
            Ok((*m, com, i_unit * (*m / vol)))
        }
        MassSpec::Density(rho) => {
            if !(rho.is_finite() && *rho > 0.0) {
                return Err(format!(
                    "density must be a positive finite number, got {rho}"
                ));
            }
            Ok((rho * vol, com, i_unit * *rho))
        }
        MassSpec::MassInertia(m, i) => {
            if !(m.is_finite() && *m > 0.0) {
                return Err(format!("mass must be a positive finite number, got {m}"));
            }
            Ok((*m, com, *i))
        }
    }
}

/// Symmetric, positive definite, principal moments obeying the triangle inequality.
fn check_inertia(i: &Mat3) -> Result<(), String> {
    if !i.iter().all(|c| c.is_finite()) {
        return Err("inertia is not finite".into());
    }
    if (i - i.transpose()).abs().max() > 1e-9 * i.abs().max().max(1e-300) {
        return Err("inertia is not symmetric".into());
    }
    let eig = i.symmetric_eigenvalues();
    if eig.iter().any(|&e| e.is_nan() || e <= 0.0) {
        return Err(format!(
            "inertia is not positive definite (principal moments {:?})",
            eig.as_slice()
        ));
    }
    let (a, b, c) = (eig[0], eig[1], eig[2]);
    let tol = 1e-9 * (a + b + c);
    if a + b < c - tol || a + c < b - tol || b + c < a - tol {
        return Err(format!(
            "inertia violates the triangle inequality (principal moments {:?})",
            eig.as_slice()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn polytope(m: &Model, g: usize) -> &Arc<ConvexPolytope> {
        match &m.geoms[g].shape {
            Shape::Box { poly, .. } | Shape::Polytope(poly) => poly,
            other => panic!("geom {g} is not a polytope: {other:?}"),
        }
    }

    /// Equal boxes share one polytope (the narrow phase reads one vertex list),
    /// a box of another size keeps its own, and the shared one is the same shape.
    #[test]
    fn equal_polytopes_share_one_arc() {
        let mut b = ModelBuilder::new(Options::default());
        let half = Vec3::new(0.05, 0.05, 0.05);
        for name in ["a", "b"] {
            b.add_body(BodySpec::free(name, Shape::cuboid(half).expect("box")));
        }
        let other = Shape::cuboid(Vec3::new(0.05, 0.05, 0.06)).expect("box");
        b.add_body(BodySpec::free("c", other));
        let m = b.finalize().expect("model");
        assert!(Arc::ptr_eq(polytope(&m, 0), polytope(&m, 1)));
        assert!(!Arc::ptr_eq(polytope(&m, 0), polytope(&m, 2)));
        let fresh = Shape::cuboid(half).expect("box");
        let Shape::Box { poly, .. } = &fresh else {
            panic!("cuboid is a box")
        };
        assert_eq!(**polytope(&m, 1), **poly);
    }
}
