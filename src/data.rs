//! The mutable [`Data`] of a world: its state (what a snapshot holds: bodies,
//! robots, commands, per-pair contact memory), caches derived from it at the last
//! step (contacts, contact wrenches, joint torques and accelerations, link
//! kinematics) and the stats of the step. The working memory of the step lives
//! beside it, in the pipeline's `Pipeline`; nothing here knows the pipeline or the
//! contact models (`.ci/run` checks that this file names neither). Buffers keep
//! their capacity across steps.

use crate::collision::capacity::{MANIFOLDS_PER_GEOM, PAIRS_PER_GEOM, POINTS_PER_GEOM};
use crate::collision::ContactSet;
use crate::math::{Pose, Quat, Vec3, Wrench};
use crate::model::{BodyKind, Model};

/// Position, orientation and velocities of one body (world frame; `w` is the
/// angular velocity in world coordinates, `x` the centre of mass).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    pub x: Vec3,
    pub q: Quat,
    pub v: Vec3,
    pub w: Vec3,
}

impl BodyState {
    #[inline]
    pub fn pose(&self) -> Pose {
        Pose::from_parts(self.x.into(), self.q)
    }
    /// World velocity of the body-fixed material point currently at `p_w`.
    #[inline]
    pub fn velocity_at(&self, p_w: &Vec3) -> Vec3 {
        self.v + self.w.cross(&(p_w - self.x))
    }
    #[inline]
    pub fn is_finite(&self) -> bool {
        self.x.iter().all(|c| c.is_finite())
            && self.q.coords.iter().all(|c| c.is_finite())
            && self.v.iter().all(|c| c.is_finite())
            && self.w.iter().all(|c| c.is_finite())
    }
}

/// Contact phase of a pair, the states of Fig. 2 of 000.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ContactPhase {
    /// First seen this step; classified by its normal velocity.
    #[default]
    New,
    /// An impulse resolved the impact on the previous step.
    Impact,
    /// Continuing contact, handled by the penalty method whatever its normal velocity.
    Resting,
}

/// Static-friction anchor: the material points of both bodies that coincided when
/// sticking began (body frames).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StickAnchor {
    pub p_a_body: Vec3,
    pub p_b_body: Vec3,
    /// Orientation of body a relative to body b (q_b⁻¹ q_a) when sticking began: the
    /// torsional spring about the normal acts on the twist away from it.
    pub q_ba: Quat,
    /// Cone impulse banked over a contact transient and not yet used
    /// (`contact::friction::bank`, `bank_momentum`), N·s.
    pub credit: f64,
    /// Normal velocity (a relative to b) of the anchor's points at the last banked
    /// state, m/s; `None` before the first (`contact::friction::bank_momentum`).
    pub vn: Option<f64>,
    /// Relative rotation of a against b in the contact plane since sticking began
    /// (world frame, rad): the rolling anchor's angle under `[…friction] linear`
    /// with rolling resistance (`contact::friction::RollBlock`); zero otherwise.
    pub roll: crate::math::Vec3,
    /// The last solve of this pair's linear anchor
    /// (`contact::friction::LinearSticks`, penalty's semi-implicit path): its
    /// force deviation g = f + L_t (world, N), torsional torque (N·m) and rolling
    /// moment (world, N·m). The next step's solve starts from them (warm start);
    /// zero when the anchor is set.
    pub warm: crate::math::Vec3,
    pub warm_tau: f64,
    pub warm_roll: crate::math::Vec3,
    /// Whether the pair's last linear-anchor solve held its force strictly
    /// inside the cone (set after penalty's semi-implicit step,
    /// `contact::friction::LinearSticks`); false when the anchor is set and
    /// wherever no such solve reports. The stick/slip update drags a stretched
    /// anchor to its cone only where this is false
    /// (`contact::friction::update_state_at`).
    pub held_inside: bool,
    /// A trial anchor (`[penalty.friction] solved_stick`, opt-in): set on a
    /// sliding pair slower than `v_slip` at the step's start so that the coupled
    /// anchors' solve decides whether it sticks; kept (and this cleared) where
    /// that solve holds it strictly inside its cone, dropped where it ends on the
    /// cone (`contact::friction::update_state_at`, penalty's `linear_finish`).
    pub trial: bool,
}

/// Points per pair whose impulses the LCP step remembers (its point reduction keeps
/// at most this many per manifold).
pub const LCP_WARM_POINTS: usize = 4;

/// Memory of one candidate geom pair, persistent across steps while the pair stays
/// in the broad phase.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairState {
    pub geom_a: u32,
    pub geom_b: u32,
    pub phase: ContactPhase,
    /// Whether the pair penetrated at the start of the current step.
    pub touching: bool,
    /// Integral term I of eq. (2) of 000 (m·steps).
    pub integral: f64,
    /// Maximum penetration of the previous step (enters I on the next step).
    pub last_max_depth: f64,
    pub anchor: Option<StickAnchor>,
    /// Hunt–Crossley (002): damping c = μ/λ fixed when the pair first touched, s/m.
    pub hc_damping: f64,
    /// Hunt–Crossley: normal approach speed when the pair first touched (floored at
    /// `min_impact_speed`), m/s; 0 while the pair has not touched.
    pub hc_impact_speed: f64,
    /// Hunt–Crossley: the adaptive sub-step in effect when the last step ended with
    /// this pair touching, s (0: none); the next step starts from the smallest.
    pub hc_substep: f64,
    /// Hunt–Crossley: the stiffness λ in effect while the pair touches (N/m³ for a
    /// volume pair, N/m for a depth pair; 0 while it has not touched). It follows
    /// the §5 rule's load only as fast as the energy budget of a step allows.
    pub hc_stiffness: f64,
    /// LCP (003): impulses (p_n, f_t₁, f_t₂) of the pair's points at the last step,
    /// N·s in the contact frame, and how many are valid (the warm start).
    pub lcp_impulse: [[f64; 3]; LCP_WARM_POINTS],
    pub lcp_points: u8,
    /// The world poses of the pair's two geoms (candidate order) at which its
    /// penetrating manifold was last found (the pair routine's, which reads
    /// the poses alone); while both geoms stay within the narrow phase's rest
    /// tolerance of these, the pair's manifold is the one found at these poses
    /// (penalty: `pipeline::collide::NarrowMemo`). Part of the state, so that a
    /// restored world reuses what the original did. `None`: found anew.
    pub rest_poses: Option<[Pose; 2]>,
    /// The contact model's candidates (the points that may carry force) last
    /// selected on the pair's manifold at `rest_poses`; while the pair's
    /// manifold stays the one found at the same rest poses, they are these, and
    /// the force law is evaluated at them (penalty: `pipeline::penalty`,
    /// `[penalty] rest_tol`). Part of the state, so that a restored world
    /// reuses what the original did. `None`: selected anew.
    pub rest_rows: Option<RestRows>,
    /// The slot of [`Data::rest_blocks`] holding this pair's friction block
    /// kept at rest (penalty, `[penalty] rest_tol`; [`RestBlock`]), valid
    /// while that slot names this pair's geoms; [`NO_REST_BLOCK`]: none.
    pub rest_block: u32,
    /// Penalty under semi-implicit Euler: which of the pair's manifold points
    /// (bit i: point i, i < 64) were rows of the last step's first implicit
    /// normal solve, and which of those were active (pushing) at its end: the
    /// next step's first solve starts its active set there
    /// (`pipeline::penalty_implicit`, "The active set's start"; it ends on the
    /// same forces from any start). Part of the state, so that a restored world
    /// starts its passes where the original did.
    pub implicit_rows: u64,
    pub implicit_on: u64,
}

/// [`PairState::rest_block`] of a pair with no kept friction block.
pub const NO_REST_BLOCK: u32 = u32::MAX;

/// Words of a [`RestBlock`]'s block: the stepper's layout (the penalty
/// stepper's linear-anchor block, `contact::friction::LinearBlock::save`).
pub const REST_BLOCK_WORDS: usize = 96;

/// A resting pair's friction block kept across steps ([`Data::rest_blocks`],
/// penalty under `[penalty] rest_tol`): the inputs its kept part was built from
/// — the pair, its manifold's rest poses, its rows' points and end-of-step
/// normal forces f_end — and the block itself as plain words written and read
/// by the stepper (this file names no contact type). State, so that a restored
/// world serves the blocks the original did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RestBlock {
    /// The pair's geoms (candidate order); `[u32::MAX; 2]`: a free slot.
    pub geoms: [u32; 2],
    pub rest_poses: [Pose; 2],
    pub rows: u8,
    pub point: [u32; REST_ROW_POINTS],
    pub f_end: [f64; REST_ROW_POINTS],
    pub words: [f64; REST_BLOCK_WORDS],
}

impl RestBlock {
    /// The geoms of a free slot.
    pub const FREE: [u32; 2] = [u32::MAX; 2];
}

/// Candidates per manifold a resting pair can keep ([`RestRows`]); a manifold
/// with more has them selected anew every step.
pub const REST_ROW_POINTS: usize = 8;

/// A resting pair's kept candidates ([`PairState::rest_rows`]): the indices
/// (into the manifold's points) of the contact model's selection, in its order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RestRows {
    pub n: u8,
    pub point: [u8; REST_ROW_POINTS],
}

impl PairState {
    pub fn new(a: u32, b: u32) -> Self {
        PairState {
            geom_a: a,
            geom_b: b,
            phase: ContactPhase::New,
            touching: false,
            integral: 0.0,
            last_max_depth: 0.0,
            anchor: None,
            hc_damping: 0.0,
            hc_impact_speed: 0.0,
            hc_substep: 0.0,
            hc_stiffness: 0.0,
            lcp_impulse: [[0.0; 3]; LCP_WARM_POINTS],
            lcp_points: 0,
            rest_poses: None,
            rest_rows: None,
            rest_block: NO_REST_BLOCK,
            implicit_rows: 0,
            implicit_on: 0,
        }
    }
}

/// Step stages with their own timer (the outline of `Pipeline::step_with`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Kinematics = 0,
    BroadPhase = 1,
    NarrowPhase = 2,
    Contact = 3,
    Integrate = 4,
    Check = 5,
}

impl Stage {
    pub const COUNT: usize = 6;
    pub const ALL: [Stage; 6] = [
        Stage::Kinematics,
        Stage::BroadPhase,
        Stage::NarrowPhase,
        Stage::Contact,
        Stage::Integrate,
        Stage::Check,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Stage::Kinematics => "kinematics",
            Stage::BroadPhase => "broad_phase",
            Stage::NarrowPhase => "narrow_phase",
            Stage::Contact => "contact",
            Stage::Integrate => "integrate",
            Stage::Check => "check",
        }
    }
}

/// A body (or a whole robot) rolled back and frozen because its state became
/// non-finite or absurd.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuarantineEvent {
    pub tick: u64,
    /// The body; for a robot, its first link proxy (or `usize::MAX` if it has none).
    pub body: usize,
    /// The robot, if a robot diverged.
    pub robot: Option<usize>,
}

/// Set-point of a joint servo ([`crate::model::robot::Servo`]); the servo acts only
/// while `enabled`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ServoTarget {
    pub enabled: bool,
    /// q*, rad or m.
    pub position: f64,
    /// q̇*, rad/s or m/s.
    pub velocity: f64,
    /// Feed-forward τ_ff, N·m or N.
    pub torque: f64,
}

/// An IMU reading in the link frame: proper acceleration (what an accelerometer
/// measures: the acceleration of the link origin minus gravity, m/s²) and angular
/// velocity (rad/s).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImuReading {
    pub accel: Vec3,
    pub gyro: Vec3,
}

/// Per-robot mutable data: servo set-points, quarantine flag, sensor readings, and
/// the dynamics scratch.
#[derive(Clone, Debug)]
pub struct RobotData {
    /// One per servo of the robot's model.
    pub servo: Vec<ServoTarget>,
    /// Rolled back and frozen by the quarantine.
    pub frozen: bool,
    /// Wrench transmitted across each force/torque sensor's joint from the parent
    /// into the child's subtree, in the child link's frame about its origin (torque,
    /// force), at the start-of-step state.
    pub ft: Vec<crate::dynamics::ForceVec>,
    /// IMU readings at the start-of-step state.
    pub imu: Vec<ImuReading>,
    pub(crate) ad: crate::dynamics::ArticulatedData,
    /// External spatial force on each link (link frame).
    pub(crate) f_ext: Vec<crate::dynamics::ForceVec>,
    /// Generalized force of one evaluation (len nv), its implicit diagonal
    /// (armature for ABA) and the actuators' share of that diagonal.
    pub(crate) tau: Vec<f64>,
    pub(crate) armature: Vec<f64>,
    pub(crate) arm_act: Vec<f64>,
    /// The implicit velocity-product step's workspace, present when the world's
    /// integrator is `implicit` ([`crate::dynamics::implicit`]): decided by
    /// [`Data::new`] from the model, so a Data is stepped with the model (or
    /// the options) it was built for, as its other caches are.
    pub(crate) implicit: Option<Box<crate::dynamics::ImplicitVelocity>>,
}

impl RobotData {
    pub fn new(r: &crate::model::robot::RobotModel) -> Self {
        let n = r.tree.num_links();
        RobotData {
            servo: vec![ServoTarget::default(); r.servos.len()],
            frozen: false,
            ft: vec![Default::default(); r.ft_sensors.len()],
            imu: vec![ImuReading::default(); r.imus.len()],
            ad: crate::dynamics::ArticulatedData::new(&r.tree),
            f_ext: vec![Default::default(); n],
            tau: vec![0.0; r.nv()],
            armature: vec![0.0; r.nv()],
            arm_act: vec![0.0; r.nv()],
            implicit: None,
        }
    }
}

/// Counters and timers of the last step and since the start.
#[derive(Clone, Debug, Default)]
pub struct StepStats {
    /// Nanoseconds spent in each stage during the last step.
    pub stage_ns: [u64; Stage::COUNT],
    /// Accumulated nanoseconds per stage since the data was created or reset.
    pub stage_ns_total: [u64; Stage::COUNT],
    /// Broad-phase candidate pairs, penetrating pairs and contact points (last step).
    pub candidate_pairs: usize,
    pub contact_pairs: usize,
    pub contact_points: usize,
    /// Impulses applied during the last step.
    pub impulses: usize,
    /// Penalty impacts (`pipeline::penalty::resolve_impacts`), last step: the
    /// Gauss–Seidel sweeps run after the pass over the new contacts, and the
    /// manifolds visited by all passes (the first pass visits every manifold; a
    /// sweep, the manifolds on its worklist).
    pub impact_sweeps: usize,
    pub impact_visits: usize,
    /// Maximum and mean penetration depth over penetrating pairs (m, last step).
    pub max_penetration: f64,
    pub mean_penetration: f64,
    /// Bodies rolled back and frozen since the start; the last few events.
    pub quarantined: u64,
    pub last_quarantine: Option<QuarantineEvent>,
    /// Adaptive steppers (Hunt–Crossley, 002 §4.2): accepted sub-steps of the last
    /// step (0 for single-step methods), rejected (halved) attempts, sub-steps
    /// accepted at the `min_substep` floor despite their energy error, the smallest
    /// accepted sub-step (s), and the accepted sub-steps since the start.
    pub substeps: u32,
    pub substep_rejections: u32,
    pub substep_floor_hits: u32,
    pub min_substep: f64,
    pub substeps_total: u64,
    /// Hunt–Crossley: Σ |ΔE − W_ext − W_diss| over the last step's accepted
    /// sub-steps (the non-physical energy change the monitor let through), J.
    pub energy_error: f64,
    /// Hunt–Crossley: elastic energy stored in the contacts at the end of the last
    /// step, J.
    pub contact_energy: f64,
    /// LCP (003): size of the last step's complementarity problem (Lemke: points ×
    /// (k + 2); PGS: 3 × points), solver iterations (Lemke pivots including the
    /// warm-start setup, plus PGS sweeps of a fallback; PGS sweeps), the residual of
    /// the accepted solution ‖min(z, w)‖∞ (Lemke) or the natural-map residual (PGS),
    /// the solve's time (ns, part of the contact stage), and whether it failed.
    pub lcp_size: usize,
    pub solver_iterations: usize,
    pub solver_residual: f64,
    pub solver_ns: u64,
    pub solver_failed: bool,
    /// Since the start: Lemke ray terminations / pivot limits / invalid data
    /// (`solver_failures`), of which solved again by the PGS fallback
    /// (`solver_fallbacks`), and PGS iterates accepted at the sweep limit
    /// (`solver_unconverged`).
    pub solver_failures: u64,
    pub solver_fallbacks: u64,
    pub solver_unconverged: u64,
    /// Since the start: the Newton solver's factorizations (`--lcp-solver newton`,
    /// `solver::newton::NewtonStats`), of which by Cholesky (every point
    /// normal-active and sticking: the system is W_aa + ε I) rather than LU.
    pub newton_factorizations: u64,
    pub newton_cholesky: u64,
    /// Since the start: the primal solver's outer passes (`--lcp-solver primal`,
    /// `solver::primal::PrimalStats::passes`; its factorizations count in
    /// `newton_factorizations`), and its islands handed to the Newton path
    /// (articulated, or unsolved).
    pub primal_passes: u64,
    pub primal_fallback_islands: u64,
    /// PEG (003): Σ of the exact overlap volumes of the polytope pairs at the end
    /// of the last step, m³ (`pipeline::lcp::peg::overlap_volume`; 0 for the other
    /// methods, which do not compute it).
    pub overlap_volume: f64,
    /// PEG (003): predicted passes discarded since the start (a pass built from
    /// the step's own ν⁺ that failed or ran out of its pivot budget; the step
    /// kept the pass before it, `pipeline::lcp::peg`, "Predicted reach").
    pub peg_discarded_passes: u64,
    /// PEG (003): steps over `PEG_MAX_ROWS` since the start, solved on the
    /// standard rows instead (each also a counted failure and fallback,
    /// `pipeline::lcp::peg`, "Row cap").
    pub peg_row_cap_steps: u64,
    /// PEG (003): island LCPs since the start that had no solution Lemke found
    /// and were solved relaxed — each force row's rate short by the least t on
    /// Lemke's path (`pipeline::lcp::peg::elastic`, issue 12 peg10) — and the
    /// largest t of the last step (scaled units, 0 if none).
    pub peg_relaxed: u64,
    pub peg_relaxation: f64,
    /// PEG (003): island LCPs since the start solved in 003's general |Cι| > 1
    /// form (forces on any member of a set, `pipeline::lcp::peg`, "General
    /// form", issue 12 peg11) after the single-primary LCP had no solution
    /// Lemke found.
    pub peg_general: u64,
    /// PEG (003), `[lcp] peg_retry_depth` > 0: steps since the start whose PEG
    /// solve failed at h and were taken again from their start as sub-steps
    /// (`pipeline::lcp::peg_retry`); the sub-steps those steps ended up taking
    /// (2 per retried step at depth 1, up to 2^depth); and the sub-steps that
    /// started where a geom's motion since the step's start plus the sub-step's
    /// reach left the broad phase's margin (2 h u + ½ h² |g|): the candidates
    /// may have missed a pair there.
    pub peg_retried_steps: u64,
    pub peg_substeps: u64,
    pub peg_retry_uncovered: u64,
    /// PEG (003), `[lcp] peg_retry_overlap` > 0: attempts since the start that
    /// were put back and split because a pair's exact overlap rose over them
    /// by more than the key's tolerance while their solve did not fail
    /// (`pipeline::lcp::peg_retry`, "The overlap trigger"; the failed ones
    /// are in `peg_retried_steps` alone).
    pub peg_overlap_retries: u64,
    /// PEG (003), `[lcp] peg_retry_second_chance`: deepest-level sub-steps since
    /// the start that failed or rose and were taken a second time with the
    /// rotation's ε_θ, and of them those whose second attempt was kept
    /// (`pipeline::lcp::peg_retry`, "The second chance"; peg22).
    pub peg_second_chances: u64,
    pub peg_second_kept: u64,
    /// PEG (003), `[lcp] peg_retry_corrector`: deepest-level sub-steps since the
    /// start that were solved but rose and were taken again with the gap's
    /// second-order term in their rows, and of them those whose corrected
    /// attempt was kept (`pipeline::lcp::peg_retry`, "The corrector"; peg27).
    pub peg_corrections: u64,
    pub peg_corrections_kept: u64,
    /// PEG (003), `[lcp] peg_ccd_retry`: attempts since the start put back and
    /// split because their swept motion met an impact the step would not have
    /// caught (`collide::missed_impacts`), and the impacts the deepest level's
    /// kept sub-steps rewound (`collide::continuous_collision` over the
    /// sub-step; `pipeline::lcp::peg_retry`, "The continuous collision"; peg23).
    pub peg_ccd_retries: u64,
    pub peg_ccd_impacts: u64,
    /// PEG (003): rewinds of the continuous collision after a PEG step (or a
    /// kept attempt) refused since the start because the pass's rewound poses
    /// would have raised the overlap of the bodies it moved
    /// (`pipeline::lcp::peg_retry`, "The continuous collision"; issue 12 peg26),
    /// and attempts of the retry taken again with the pairs
    /// their motion met beyond the candidates (`pipeline::lcp::peg_retry`, "A
    /// body knocked within the step"; peg26).
    pub peg_ccd_refused: u64,
    pub peg_recollected: u64,
    /// PEG (003): rewinds the continuous collision after the whole PEG step made
    /// since the start (`[lcp] peg_outline_ccd`, the outline's stage, which PEG's
    /// stepper runs; peg26).
    pub peg_outline_rewinds: u64,
    /// PEG (003): first passes the work check refused since the start (each a
    /// counted failure unless `[lcp] peg_work_clamp`'s clamped pass was kept;
    /// refusals of attempts the retry put back are put back with them), and
    /// of them the clamped passes kept (`pipeline::lcp::peg`, "Work check";
    /// peg34).
    pub peg_work_refusals: u64,
    pub peg_clamped_kept: u64,
    /// PEG (003): of the clamped passes not kept, those whose solve failed and
    /// those solved but refused again by the work check (each then takes the
    /// standard rows' fallback), and the refusals not clamped because no row's
    /// ψ was above its real penetration (nothing to clamp); since the start
    /// (peg35).
    pub peg_clamped_failed: u64,
    pub peg_clamped_refused: u64,
    pub peg_clamped_unmoved: u64,
    /// PEG (003): X constraints built since the start (per pass) all of whose
    /// contacts already carried a force — the primaries of the two I sets of a
    /// vertex–vertex pair — and of them those given an impulse on a row of
    /// their own (`[lcp] peg_x_own_row`) or joined to a member's force (`[lcp]
    /// peg_x_joined`, peg36); without either such an X has no row;
    /// `pipeline::lcp::peg`, "X constraints carry a force"; peg35).
    pub peg_x_shared: u64,
    pub peg_x_rows: u64,
    /// IPC (004): Newton iterations are `solver_iterations`, a step that hit the
    /// iteration limit sets `solver_failed` and counts in `solver_unconverged`.
    /// Line-search halvings of the last step, the smallest distance between two
    /// bodies' surfaces at its end among pairs closer than d̂ (m; ∞ if none), the
    /// curved-CCD queries of the last step and their time (ns), and the barrier
    /// stiffness κ the step ended with.
    pub ipc_line_search_cuts: usize,
    pub ipc_min_distance: f64,
    pub ipc_ccd_queries: usize,
    pub ipc_ccd_ns: u64,
    pub ipc_kappa: f64,
    /// Sleeping islands: bodies asleep at the end of the last step (robot link
    /// proxies included).
    pub sleeping: usize,
    /// The linear anchors' solve (`contact::friction::LinearSticks`, penalty's
    /// semi-implicit path), last step: its block Gauss–Seidel sweeps and the
    /// blocks (tangential and rolling) it relaxed over them (a block whose bodies
    /// nothing changed since its last relaxation is skipped).
    pub friction_sweeps: usize,
    pub friction_relaxations: usize,
    /// Sticking pairs that carried no force at the step's first normal solve and
    /// got their anchor after the solve with friction closed them (one more
    /// anchor and normal solve in that step; `penalty::late_friction`).
    pub friction_late_pairs: usize,
    /// `[penalty] robot_implicit` (`pipeline::penalty_robot`): the link pairs'
    /// normal rows solved implicitly in the last step and the active-set passes
    /// their solve took; since the start, the solves that failed — a robot
    /// whose mass matrix did not factor, or no consistent active set within the
    /// passes — and kept the explicit force instead.
    pub robot_contact_rows: usize,
    pub robot_contact_passes: usize,
    pub robot_contact_failures: u64,
}

/// Bit-exact copy of everything that determines the future of a world.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    pub time: f64,
    pub tick: u64,
    pub state: Vec<BodyState>,
    pub xfrc: Vec<Wrench>,
    pub frozen: Vec<bool>,
    pub pairs: Vec<PairState>,
    /// [`Data::rest_blocks`].
    pub rest_blocks: Vec<RestBlock>,
    pub qpos: Vec<f64>,
    pub qvel: Vec<f64>,
    pub qfrc_cmd: Vec<f64>,
    /// Servo set-points of all robots, robot after robot.
    pub servo: Vec<ServoTarget>,
    pub robot_frozen: Vec<bool>,
    /// Sleeping islands: per body, asleep and its time at rest (s).
    pub asleep: Vec<bool>,
    pub rest_s: Vec<f64>,
    /// The LCP Newton solver's memory: per body, then the solve clock,
    /// [`Data::lcp_interior`].
    pub lcp_interior: Vec<u64>,
}

/// Mutable simulation data for one [`Model`].
#[derive(Clone, Debug)]
pub struct Data {
    /// Simulated time, s, and number of completed steps.
    pub time: f64,
    pub tick: u64,
    /// State of every body (static bodies keep their initial pose and zero velocity).
    pub state: Vec<BodyState>,
    /// External wrench applied to each body during the next step (world frame,
    /// torque about the COM). Persistent: the caller sets and clears it.
    pub xfrc: Vec<Wrench>,
    /// Bodies frozen by the non-finite-state quarantine (treated as static).
    pub frozen: Vec<bool>,
    /// Sleeping islands (`pipeline::sleep`): whether each body sleeps (a robot
    /// sleeps with all its link proxies) and how long it has stayed under the rest
    /// thresholds, s. All false / 0 while sleeping is off. Written through
    /// [`Data::wake`], [`Data::wake_robot`], [`Data::wake_all`], `restore`,
    /// `reset` and the step, which keep [`Data::awake`] with it (whoever writes
    /// `asleep` otherwise calls [`Data::rebuild_awake`] and [`Data::edited`]).
    pub asleep: Vec<bool>,
    pub rest_s: Vec<f64>,
    /// The LCP Newton solver's memory across steps (`[lcp] solver = "newton"`,
    /// `pipeline::lcp::solve`): per body, the solve (of the clock in the last
    /// entry, `nb + 1` entries in all; the clock counts the Newton solves) up
    /// to which an island with a point on the body starts in the interior
    /// method, set when such an island's line search failed (lcp12: an expiry
    /// instead of lcp11's countdown, so a solve touches only its own points'
    /// bodies, never every body; 0 after `reset`: nothing counts). Part of the state
    /// that determines the future (in the snapshot), not of the pipeline's
    /// working memory: one pipeline steps many worlds, and a restored world
    /// steps as the original did.
    pub lcp_interior: Vec<u64>,
    /// Sleeping islands: the bodies not asleep, in index order (static and
    /// frozen ones included) — the per-step passes over bodies (rollback,
    /// continuous collision, check, rest clocks) walk this list, so that a partly
    /// sleeping world costs O(awake) there. Not state: derived from `asleep`
    /// (rebuilt by `restore`), kept with it on every wake and fall asleep.
    pub(crate) awake: Vec<u32>,
    /// Edit stamp: a process-unique value renewed ([`Data::edited`]) whenever a
    /// sleeping or static body's state may have changed from outside the step
    /// (reset, restore, a write that does not wake the body) and when bodies fall
    /// asleep (a wake changes the sleeping set, which is compared too). The broad phase's
    /// memory of the sleeping geoms holds while the stamp and the sleeping set are
    /// the ones it was built at (in place of comparing every sleeping state).
    /// Not state: it is not in a snapshot and changes no result.
    pub edits: u64,
    /// Robots: configuration and velocity of all robots (robot r's are at
    /// `model.robots[r].q_offset..` and `v_offset..`; see [`crate::model::robot`]).
    pub qpos: Vec<f64>,
    pub qvel: Vec<f64>,
    /// Commanded joint torques/forces (len nv; entries of floating-base and
    /// unactuated coordinates are ignored). Persistent: the caller sets and clears
    /// them. Clamped to each joint's effort limit together with its servo.
    pub qfrc_cmd: Vec<f64>,
    /// Actuator torques (command + servo, clamped), passive torques (damping,
    /// friction, limits) and joint accelerations at the start-of-step state.
    pub qfrc_actuator: Vec<f64>,
    pub qfrc_passive: Vec<f64>,
    pub qacc: Vec<f64>,
    pub robots: Vec<RobotData>,
    /// Contact memory of each broad-phase pair, sorted by (geom_a, geom_b).
    pub pairs: Vec<PairState>,
    /// The resting pairs' kept friction blocks ([`RestBlock`]), each named by
    /// its pair's [`PairState::rest_block`]; free slots are reused (first free
    /// first). Empty unless the penalty stepper keeps blocks (`[penalty]
    /// rest_tol`).
    pub rest_blocks: Vec<RestBlock>,
    /// Contacts found at the start of the last step.
    pub contacts: ContactSet,
    /// For each manifold in `contacts`, the index of its pair in `pairs`.
    pub contact_pair: Vec<usize>,
    /// Total contact wrench on each body at the start-of-step state (for reporting).
    pub contact_wrench: Vec<Wrench>,
    /// For each manifold in `contacts`, the contact force on body a (normal and
    /// friction) at the start-of-step state, world frame (force-model steppers).
    pub contact_force: Vec<Vec3>,
    pub stats: StepStats,
}

impl Data {
    pub fn new(model: &Model) -> Data {
        let nb = model.nbody();
        let mut d = Data {
            time: 0.0,
            tick: 0,
            state: Vec::with_capacity(nb),
            xfrc: vec![Wrench::ZERO; nb],
            frozen: vec![false; nb],
            asleep: vec![false; nb],
            rest_s: vec![0.0; nb],
            lcp_interior: vec![0; nb + 1],
            awake: Vec::with_capacity(nb),
            edits: 0,
            qpos: vec![0.0; model.nq],
            qvel: vec![0.0; model.nv],
            qfrc_cmd: vec![0.0; model.nv],
            qfrc_actuator: vec![0.0; model.nv],
            qfrc_passive: vec![0.0; model.nv],
            qacc: vec![0.0; model.nv],
            robots: model
                .robots
                .iter()
                .map(|r| {
                    let mut rd = RobotData::new(r);
                    if model.opt.integrator == crate::model::Integrator::Implicit {
                        rd.implicit =
                            Some(Box::new(crate::dynamics::ImplicitVelocity::new(&r.tree)));
                    }
                    rd
                })
                .collect(),
            // Caches sized from the model (a settling scene does not grow them in
            // its first ticks; beyond these sizes they grow by doubling).
            pairs: Vec::with_capacity(PAIRS_PER_GEOM * model.ngeom()),
            rest_blocks: Vec::new(),
            contacts: ContactSet::with_capacity(
                MANIFOLDS_PER_GEOM * model.ngeom(),
                POINTS_PER_GEOM * model.ngeom(),
            ),
            contact_pair: Vec::with_capacity(MANIFOLDS_PER_GEOM * model.ngeom()),
            contact_wrench: vec![Wrench::ZERO; nb],
            contact_force: Vec::with_capacity(MANIFOLDS_PER_GEOM * model.ngeom()),
            stats: StepStats::default(),
        };
        d.reset(model);
        d
    }

    /// Back to the model's initial state; contact memory and counters cleared.
    pub fn reset(&mut self, model: &Model) {
        self.time = 0.0;
        self.tick = 0;
        self.state.clear();
        for b in &model.bodies {
            let (v, w) = match b.kind {
                BodyKind::Static | BodyKind::Link { .. } => (Vec3::zeros(), Vec3::zeros()),
                BodyKind::Free => (b.v0, b.w0),
            };
            self.state.push(BodyState {
                x: b.pose0.translation.vector,
                q: b.pose0.rotation,
                v,
                w,
            });
        }
        for (r, rd) in model.robots.iter().zip(&mut self.robots) {
            self.qpos[r.q_offset..r.q_offset + r.nq()].copy_from_slice(&r.q0);
            self.qvel[r.v_offset..r.v_offset + r.nv()].copy_from_slice(&r.v0);
            rd.frozen = false;
            for (t, s) in rd.servo.iter_mut().zip(&r.servos) {
                *t = ServoTarget {
                    enabled: s.enabled,
                    position: r.q0[r.joints[s.joint].qi],
                    velocity: 0.0,
                    torque: 0.0,
                };
            }
            rd.ft.iter_mut().for_each(|f| *f = Default::default());
            rd.imu.iter_mut().for_each(|i| *i = ImuReading::default());
        }
        for x in [
            &mut self.qfrc_cmd,
            &mut self.qfrc_actuator,
            &mut self.qfrc_passive,
            &mut self.qacc,
        ] {
            x.iter_mut().for_each(|v| *v = 0.0);
        }
        self.pose_links(model);
        self.xfrc.iter_mut().for_each(|w| *w = Wrench::ZERO);
        self.frozen.iter_mut().for_each(|f| *f = false);
        self.asleep.iter_mut().for_each(|f| *f = false);
        self.rest_s.iter_mut().for_each(|t| *t = 0.0);
        self.lcp_interior.iter_mut().for_each(|c| *c = 0);
        self.rebuild_awake();
        self.edited();
        self.pairs.clear();
        self.rest_blocks.clear();
        self.contacts.clear();
        self.contact_pair.clear();
        self.contact_force.clear();
        self.contact_wrench
            .iter_mut()
            .for_each(|w| *w = Wrench::ZERO);
        self.stats = StepStats::default();
    }

    /// Robot link proxies posed from the robots' (q, q̇) (`kinematics::link_states`).
    pub fn pose_links(&mut self, model: &Model) {
        crate::kinematics::link_states(
            model,
            &mut self.robots,
            &self.qpos,
            &self.qvel,
            &mut self.state,
        );
    }

    /// Whether body `b` moves (free and not frozen).
    #[inline]
    pub fn is_dynamic(&self, model: &Model, b: usize) -> bool {
        model.bodies[b].kind == BodyKind::Free && !self.frozen[b]
    }

    /// Set the persistent external wrench of body `b` from a force at a world point.
    pub fn apply_force_at(&mut self, b: usize, f_w: Vec3, p_w: Vec3, torque_w: Vec3) {
        let x = self.state[b].x;
        let mut w = Wrench::at_point(f_w, p_w, x);
        w.torque += torque_w;
        self.xfrc[b] = w;
    }

    /// Wake body `b` (sleeping islands): its island wakes with it before the next
    /// step's contact stage. For a robot's link, the whole robot wakes. Whoever
    /// changes a body's or robot's input outside `xfrc` / `qfrc_cmd` (a servo
    /// set-point, a pose) calls this or [`Data::wake_robot`].
    pub fn wake(&mut self, model: &Model, b: usize) {
        match model.bodies.get(b).map(|x| x.kind) {
            Some(BodyKind::Link { robot, .. }) => self.wake_robot(model, robot as usize),
            Some(_) => self.wake_body(b),
            None => {}
        }
    }

    /// Wake robot `r` (all its link proxies) and, at the next step, its island.
    pub fn wake_robot(&mut self, model: &Model, r: usize) {
        if let Some(rm) = model.robots.get(r) {
            for &b in rm.link_body.iter().flatten() {
                self.wake_body(b);
            }
        }
    }

    /// Body `b` awake (its rest clock restarted), entered in [`Data::awake`] in
    /// order if it slept (the sleeping set changed: a new edit stamp).
    pub(crate) fn wake_body(&mut self, b: usize) {
        if self.asleep[b] {
            self.asleep[b] = false;
            let at = self.awake.partition_point(|&x| (x as usize) < b);
            self.awake.insert(at, b as u32);
            self.edited();
        }
        self.rest_s[b] = 0.0;
    }

    /// Wake every body.
    pub fn wake_all(&mut self) {
        if self.asleep.iter().any(|&s| s) {
            self.edited();
        }
        self.asleep.iter_mut().for_each(|f| *f = false);
        self.rest_s.iter_mut().for_each(|t| *t = 0.0);
        self.rebuild_awake();
    }

    /// The bodies not asleep, in index order ([`Data::awake`]).
    #[inline]
    pub fn awake_bodies(&self) -> &[u32] {
        &self.awake
    }

    /// [`Data::awake`] rebuilt from `asleep` (O(bodies)): after a write of
    /// `asleep` that did not go through the waking functions. The step keeps it
    /// itself; this is also the reference the tests compare it with.
    pub fn rebuild_awake(&mut self) {
        self.awake.clear();
        let asleep = &self.asleep;
        self.awake
            .extend((0..asleep.len() as u32).filter(|&b| !asleep[b as usize]));
    }

    /// Renew the edit stamp ([`Data::edits`]). Whoever writes a sleeping body's
    /// state (`state`, a robot's `qpos`/`qvel`) from outside the step calls this
    /// or wakes the body ([`Data::wake`]): the broad phase then forgets what it
    /// remembered of the sleeping bodies' geoms. A fresh value from a process-wide
    /// counter, so two `Data` stepped by one pipeline never share a stamp after
    /// either changed.
    pub fn edited(&mut self) {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        self.edits = NEXT.fetch_add(1, Ordering::Relaxed);
    }

    /// Kinetic energy of the moving (free, not frozen) bodies, J.
    pub fn kinetic_energy(&self, model: &Model) -> f64 {
        kinetic_energy(model, &self.state, &self.frozen)
    }

    /// Gravitational potential energy of the moving bodies relative to the world
    /// origin, J.
    pub fn potential_energy(&self, model: &Model) -> f64 {
        potential_energy(model, &self.state, &self.frozen)
    }

    /// Total angular momentum about the world origin, kg·m²/s.
    pub fn angular_momentum(&self, model: &Model) -> Vec3 {
        let mut l = Vec3::zeros();
        for (b, s) in model.bodies.iter().zip(&self.state) {
            if b.kind == BodyKind::Free {
                let r = s.q.to_rotation_matrix();
                let i_w = r.matrix() * b.inertia * r.matrix().transpose();
                l += i_w * s.w + s.x.cross(&(b.mass * s.v));
            }
        }
        l
    }

    /// Bit-exact copy of the state that determines the future.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            time: self.time,
            tick: self.tick,
            state: self.state.clone(),
            xfrc: self.xfrc.clone(),
            frozen: self.frozen.clone(),
            pairs: self.pairs.clone(),
            rest_blocks: self.rest_blocks.clone(),
            qpos: self.qpos.clone(),
            qvel: self.qvel.clone(),
            qfrc_cmd: self.qfrc_cmd.clone(),
            servo: self
                .robots
                .iter()
                .flat_map(|r| r.servo.iter().copied())
                .collect(),
            robot_frozen: self.robots.iter().map(|r| r.frozen).collect(),
            asleep: self.asleep.clone(),
            rest_s: self.rest_s.clone(),
            lcp_interior: self.lcp_interior.clone(),
        }
    }

    /// Restore a snapshot taken from data of the same model (buffers are reused).
    /// Returns false, changing nothing, if the snapshot's sizes do not match.
    pub fn restore(&mut self, s: &Snapshot) -> bool {
        if s.state.len() != self.state.len()
            || s.xfrc.len() != self.xfrc.len()
            || s.frozen.len() != self.frozen.len()
            || s.qpos.len() != self.qpos.len()
            || s.qvel.len() != self.qvel.len()
            || s.qfrc_cmd.len() != self.qfrc_cmd.len()
            || s.servo.len() != self.robots.iter().map(|r| r.servo.len()).sum::<usize>()
            || s.robot_frozen.len() != self.robots.len()
            || s.asleep.len() != self.asleep.len()
            || s.rest_s.len() != self.rest_s.len()
            || s.lcp_interior.len() != self.lcp_interior.len()
        {
            return false;
        }
        self.time = s.time;
        self.tick = s.tick;
        self.state.copy_from_slice(&s.state);
        self.xfrc.copy_from_slice(&s.xfrc);
        self.frozen.copy_from_slice(&s.frozen);
        self.asleep.copy_from_slice(&s.asleep);
        self.rest_s.copy_from_slice(&s.rest_s);
        self.lcp_interior.copy_from_slice(&s.lcp_interior);
        self.rebuild_awake();
        self.edited();
        self.qpos.copy_from_slice(&s.qpos);
        self.qvel.copy_from_slice(&s.qvel);
        self.qfrc_cmd.copy_from_slice(&s.qfrc_cmd);
        let mut k = 0;
        for (rd, &f) in self.robots.iter_mut().zip(&s.robot_frozen) {
            let n = rd.servo.len();
            rd.servo.copy_from_slice(&s.servo[k..k + n]);
            k += n;
            rd.frozen = f;
        }
        self.pairs.clear();
        self.pairs.extend_from_slice(&s.pairs);
        self.rest_blocks.clear();
        self.rest_blocks.extend_from_slice(&s.rest_blocks);
        self.contacts.clear();
        self.contact_pair.clear();
        true
    }
}

/// Kinetic energy of the moving bodies (free and not frozen) at `state`, J.
pub fn kinetic_energy(model: &Model, state: &[BodyState], frozen: &[bool]) -> f64 {
    let mut e = 0.0;
    for (b, (body, s)) in model.bodies.iter().zip(state).enumerate() {
        if body.kind == BodyKind::Free && !frozen[b] {
            let r = s.q.to_rotation_matrix();
            let i_w = r.matrix() * body.inertia * r.matrix().transpose();
            e += 0.5 * body.mass * s.v.norm_squared() + 0.5 * s.w.dot(&(i_w * s.w));
        }
    }
    e
}

/// Gravitational potential energy of the moving bodies relative to the origin, J.
pub fn potential_energy(model: &Model, state: &[BodyState], frozen: &[bool]) -> f64 {
    let g = model.opt.gravity;
    let mut e = 0.0;
    for (b, (body, s)) in model.bodies.iter().zip(state).enumerate() {
        if body.kind == BodyKind::Free && !frozen[b] {
            e -= body.mass * g.dot(&s.x);
        }
    }
    e
}
