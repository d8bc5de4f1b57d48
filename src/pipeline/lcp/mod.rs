//! The velocity-level complementarity step: the Stewart–Trinkle time-stepping
//! subproblem of `003_668e561ceb3412ed` (eqs. (5)–(10)) with Coulomb friction on a
//! polyhedral cone (Stewart–Trinkle / Anitescu–Potra) and the constraint
//! stabilization inside the subproblem of `001_9bcff55255600a8e` (Anitescu–Hart).
//!
//! # The subproblem
//! With ν the generalized velocities (one block of 6 per free body: world-frame v
//! and ω; one block per articulated robot), M = blockdiag(m I, I_w)
//! (I_w the world inertia), h the step and f = f_ext + m g + f_gyro
//! (f_gyro = −ω × I_w ω), the semi-implicit step is (robots: section "Robots")
//!
//! ```text
//! M (ν⁺ − ν) = h f + G_n p_n + G_f p_f                          eq. (5), friction added
//! 0 ≤ ρ_n = G_nᵀ ν⁺ + s_n  ⊥  p_n ≥ 0                            eqs. (7), (9)
//! 0 ≤ ρ_β = D_cᵀ G_fᵀ ν⁺ + E σ  ⊥  β ≥ 0                          (friction, max dissipation)
//! 0 ≤ ρ_σ = μ p_n − Eᵀ β  ⊥  σ ≥ 0                                (Coulomb: Σβ ≤ μ p_n)
//! p_f = D_c β,   x⁺ = x + h v⁺,   q⁺ = q_f + (h/2) (0, ω⁺ − ω_f) ⊗ q_f,  renormalized
//! ```
//!
//! per contact point: G_n the normal row (the gap rate of eq. (6)), G_f the two
//! tangent rows t₁, t₂, D_c = [d₁ … d_k] with d_j = (cos 2πj/k, sin 2πj/k) in (t₁, t₂),
//! E = 1_k, σ the sliding speed. Eliminating ν⁺ = ν_f + M⁻¹ Gᵀ p, ν_f = ν + h M⁻¹ f,
//! gives `LCP(A, q)` over z = (p_n, β, σ) with the Delassus matrix
//! W = G M⁻¹ Gᵀ (3 rows per point: n, t₁, t₂) and q = (G_n ν_f + s_n, D_cᵀ G_f ν_f, 0).
//!
//! # Rotation
//! The gyroscopic term is not in f: the torque-free angular velocity ω_f and
//! orientation q_f are one step of the conservative midpoint scheme of
//! [`crate::pipeline::rotation`] (implicit midpoint on Euler's equation in the body
//! frame, Cayley reconstruction), so a body no torque or contact touches keeps L,
//! |L| and its kinetic energy exactly (the former explicit −h I_w⁻¹ ω × I_w ω gained
//! 6 % energy in 20 s of tumbling at h = 1e-3). ν_f's ω is ω_f + h I_w⁻¹ τ_ext; the
//! applied torque and the contact impulses change ω by δω = ω⁺ − ω_f (M⁻¹ at the
//! start state), and the orientation update of eq. (10) acts on that change after
//! the free rotation: q⁺ = q_f + (h/2)(0, δω) ⊗ q_f, renormalized (q⁺ = q_f when
//! δω = 0).
//!
//! # Stabilization (s_n)
//! ψ = −depth ≤ 0 is the gap of a penetrating point, δ the allowance
//! ([`LcpParams::penetration_allowance`]), β_s ∈ [0, 1] ([`LcpParams::stabilization`]):
//! Stewart–Trinkle (003 eq. (7), ψ_n/h term): s_n = β_s (ψ + δ)/h; Anitescu–Hart
//! (001, the stabilization inside the one convex subproblem, no post-projection):
//! s_n = β_s min(ψ + δ, 0)/h. A speculative gap point (ψ = gap > 0) adds gap/h in
//! full (it may close its gap within the step). Newton restitution (on unless
//! `restitution = false`; pairs with e > 0): a point approaching at G_n ν < −v_th
//! leaves with at least −e G_n ν: s_n ← min(s_n, e G_n ν).
//!
//! **The push-out moves, it is not kept.** Where s_n < 0 the row demands a
//! separating velocity −s_n (up to ψ/h) to undo a penetration; kept as velocity,
//! it returns the penetration as kinetic energy ½ m (ψ/h)² — a contact first found
//! deep (missed for a step because another contact spun the body up within the
//! step) left with metres per second. So the step solves the problem above, and its
//! ν⁺ (`nu_move`) moves the bodies (x⁺, q⁺); the velocity kept (`nu_next`, the v, ω
//! and q̇ of the next step) is that of the same LCP with each normal row's s_n
//! replaced by s_v = max(s_n, r) (r = min(0, e G_n ν) where restitution applies,
//! else 0): the gap terms and the restitution stay, the push-out goes. The
//! difference h (ν⁺ − ν⁺_v) is a position correction that carries no momentum — a
//! split impulse. With s_v ≥ r the kept impulses do no positive work beyond
//! restitution's: on every loaded row G_n ν⁺_v = −s_v ≤ −r (−r the rebound
//! restitution asks for, 0 without it), so without restitution p_nᵀ G_n ν⁺_v ≤ 0
//! and, with ν⁺_v = ν_f + M⁻¹ Gᵀ p, ½ ν⁺_vᵀ M ν⁺_v − ½ ν_fᵀ M ν_f =
//! pᵀ G ν⁺_v − ½ pᵀ W p ≤ 0 (friction dissipates on its own). The second solve runs only where it can differ (`solve::kept_solve`): a
//! loaded point (p_n > 0) whose s_v exceeds s_n by more than the solver tolerance
//! (a point with p_n = 0 stays complementary when its q rises). In the shipped
//! resting scenes that is a few steps in a thousand; a resting contact sits at
//! depth δ, where s_n = 0.
//!
//! # Solvers and failures
//! Lemke solves the LCP above (copositive-plus; Stewart–Trinkle showed Lemke's
//! method processes it). A Lemke "solution" whose residual ‖min(z, w)‖∞ exceeds
//! 1e-7 (round-off on degenerate pivots) is treated as a failure. PGS solves the same friction set in the variables
//! (p_n, f_t₁, f_t₂) on W: f_t is projected onto the k-gon μ p_n conv{d_j}
//! (block Gauss–Seidel). W is assembled block-sparse (3×3 blocks J_i M⁻¹ J_jᵀ only
//! for points i, j sharing a moving body, in compressed rows) and PGS sweeps it
//! island by island (points connected through moving bodies; each island stops on
//! its own), O(nnz) per sweep; Lemke gets the dense W scattered from the blocks. A Lemke ray termination or pivot limit is counted
//! (`StepStats::solver_failures`) and the step falls back to PGS started from the
//! Lemke iterate (`solver_fallbacks`). Before that, a failed Lemke solve is retried
//! on the diagonally scaled LCP (D A D, D q; D = 1/√W_nn per point,
//! `solve::scale_lcp`), whose pivot tolerance holds for any masses (a 1 t cube
//! under a 1,000 t one puts W's entries 1e-3 and 1e-6 apart), accepting a residual
//! of 1e-7 relative to ‖D q‖∞; a retry that solves is the same solver's exact
//! answer and is not counted as a failure. A PGS solve that reaches its sweep limit
//! on ≤ 32 points is handed to Lemke (plain, scaled, scaled from the standard
//! start), else continued for 10× the sweeps; every PGS sweep limit is counted
//! (`solver_unconverged`), rescued or not, and one that no rescue removes keeps the
//! last iterate. Invalid data (non-finite state) applies no
//! contact impulse; the quarantine catches the state after the step.
//!
//! # Lemke's proximal step
//! A face's four coplanar corners give four normal rows on three degrees of
//! freedom (and 4k friction directions on three): W is singular but for the CFM
//! ε = 1e-9 ([`REGULARIZATION`]), and a basis on all of them has a condition number
//! ≈ 1/ε, with its regularized pivots ≈ ε W_ii at Lemke's pivot tolerance. A
//! resting column of boxes then now and then ended a solve at a residual of 5e-9
//! instead of 1e-14 and was kicked by the next warm starts (docs/EXPERIMENTS.md,
//! "Lemke's resting column"). Lemke therefore solves the proximal problem
//! (W + ε_L D) z + q − ε_L D z̄ ⟂ z on the W rows (p_n and β; D = diag W,
//! ε_L = [`LEMKE_PROXIMAL`] = 1e-6), centred on the warm impulses z̄ (zero without
//! them): an LCP of the same class whose pivots on dependent rows sit three orders
//! above the tolerance. Its solution answers the unregularized LCP up to
//! ε_L D (z − z̄), and the solve is re-centred on z (z̄ ← z, Lemke warm from z's
//! active set) until that term is within the CFM's own, max ε_L W_ii |z_i − z̄_i|
//! ≤ ε max W_ii |z_i| — none at rest, one after a landing or a push-out (each
//! divides the term by ≈ 1/ε_L), at most [`LEMKE_PROXIMAL_PASSES`], and none once
//! a pass fails to divide it by 10; a re-centred solve that fails keeps the last
//! solution. Among a degenerate problem's solutions the step thus takes the one
//! nearest the last tick's (the proximal point method, Rockafellar 1976). The
//! step is taken only on the points whose island's stabilization was made
//! consistent (`consistent.rs`; not yet robots' islands): where the targets t
//! have a part t_⊥ no rigid motion produces, the CFM problem holds internal
//! impulses ≈ |t_⊥|/(ε W_ii) and each re-centred pass moves them by
//! |t_⊥|/(ε_L W_ii) without converging (the rover's line contacts: its wheel
//! force chattered by 2 N from step to step, docs/EXPERIMENTS.md).
//!
//! # Contact points and friction directions
//! One row triple per contact point of the narrow phase; on a face or line contact
//! the friction rows act at the point's spin lever over the patch
//! (`rows::friction_points`), the normal row at the point. Points closer than 1 µm
//! in the contact plane merge (the deeper kept: the two faces of a thin
//! intersection slab); a manifold with more than 4 keeps 4 (the deepest, the farthest from it,
//! the one spanning the largest triangle with them, the one farthest on the other
//! side: a box on a plane keeps its 4 corners). (t₁, t₂) is the engine's one
//! tangent basis, [`crate::math::tangent_basis`] (t₁ = n × the world axis least
//! aligned with n, t₂ = n × t₁), shared with the collision and penalty code:
//! deterministic from the normal. The standard rows then turn each point's basis
//! about n so that t₁ opposes the point's free slip G_t ν_f where it exceeds
//! 1e-6 m/s (`rows::align_friction`): the k-gon's direction d₀ = t₁ lies against
//! the motion, so a sliding point's friction is μ p_n whatever its direction (a
//! fixed basis gives μ p_n cos(π/k) between two directions: a box slid at 45° to
//! t₁ went √2 too far with k = 4, and an incline whose slope lay between two
//! directions let a box slide at tan θ = 0.45 with μ = 0.5), and a body resting on
//! an incline has a direction straight up the slope. Warm impulses are stored in
//! the engine's basis (`warm.rs`). PEG's rows keep the engine's basis.
//!
//! # Friction per face patch (`[lcp] friction = "patch"`, lcp33)
//! Off by default (each point its own cone, above). With it, the touching points
//! (depth ≥ 0) of a face or line contact between free or static bodies — two or
//! more of one manifold's picked points (`rows::patch_of`) — share the cone of the
//! face's total normal load P: each point's k-gon has radius μ P / m, the
//! k-gons' sum the k-gon of radius μ P (`solver::pgs::PatchOf`: the model, 003's
//! friction rows per patch). Every solver of the standard rows solves it: PGS
//! and the primal solver through `ContactProblem::radius_with`, Lemke through
//! the slack rows ρ_σ(i) = μ P / m − Σβ_i (`delassus::stewart_trinkle_lcp`); the
//! Newton path does not (the key refuses `solver = "newton"`), so under it the
//! primal solver's islands left go to PGS (`solve::primal_left_to_pgs`). A
//! speculative gap point of the manifold keeps its own cone.
//!
//! # Robots
//! Each moving robot (not frozen by the quarantine) is one block of ν: its nv
//! generalized velocities `Data::qvel` (a floating base's twist [ω; v] in the base
//! link frame). M = H(q) + diag(a): H from CRBA, a the implicit diagonal of the
//! actuation/passive law of the penalty path (stable PD servos h k_d + h² k_p,
//! damping h b, the friction's linear zone), so that servos and dampers stay
//! implicit; M⁻¹ dense from the sparse LᵀL factor (nv ≤ 32). ν_f = q̇ + h q̈_free with
//! q̈_free = ABA(q, q̇, τ₀, f_ext = the applied wrenches `xfrc` on the link proxies,
//! armature a): everything but contact (lean blocks, lcp23: M⁻¹(τ₀ − RNEA(q, q̇, 0, f_ext)) by M's factor). A contact on a link proxy maps through the
//! link's point Jacobian at the contact point (rows ω then v_p, world): the row of
//! direction u is uᵀ J_v. Links welded to the world (and a frozen robot's links)
//! are static for the LCP.
//!
//! Joint position limits are complementarity rows too: a one-DoF joint within
//! 1 mm (rad or m) + 2 h |q̇| of a limit gets the row ±e_k on its coordinate (+ at
//! the lower limit), frictionless (μ = 0; in place of its tangent rows two decoupled
//! placeholder variables, W = 1 on their diagonal and q = 0, keep the
//! three-rows-per-point layout and a positive diagonal; they carry no impulse). Its gap term keeps the
//! joint δ inside its range: ψ = gap − δ, s = ψ/h while ψ ≥ 0 (the gap may close
//! within one step, for either scheme: the Anitescu–Hart form s = 0 would stop the
//! joint at the edge of the margin) and s = β ψ/h for a violation. Since
//! q⁺ = q + h q̇⁺ exactly for a one-DoF coordinate, the joint never passes its limit
//! beyond round-off and the penalty path's limit spring (which acts only beyond the
//! limit) is never engaged.
//!
//! After the solve: q̇ ← ν⁺, q ← q ⊕ h ν⁺ (`dynamics::integrate`: the SE(3)
//! exponential for a floating base), normalized, and the proxies are posed at the
//! new state (`robots::link_states`). The records read the motion the step took,
//! every constraint impulse (contact and joint limit) included, for every LCP
//! solver alike (lcp24; as MuJoCo's post-constraint RNEA): `qacc` = q̈ =
//! (ν⁺ − ν)/h, the recorded `qfrc_actuator` and `qfrc_passive` are τ₀ − a q̈ (the
//! implicit parts at that q̈), and the IMUs and F/T sensors come from an RNEA at
//! (q, q̇, q̈) with the contact impulses as link wrenches (impulse/h;
//! `robots::records_at`) — no second forward dynamics. A joint-limit impulse is a
//! generalized force (not a wrench): it is in q̈, so an IMU on a link held by its
//! limit reads the static specific force and the F/T sensor at the joint carries
//! the load (`tests/lcp_sensors.rs`); it is added to `qfrc_passive` as
//! impulse/h (where the penalty path reports its limit spring), and it is the
//! part of the F/T sensor's moment about the joint axis that no torque of τ₀
//! explains. A robot no row acts on keeps the records of its contact-free ABA
//! (ν⁺ = ν_f), with the implicit parts taken at (ν⁺ − ν)/h.
//!
//! # Warm start
//! Each pair remembers the impulses (p_n, f_t₁, f_t₂) of its points
//! (`PairState::lcp_impulse`, in snapshots). PGS starts from them; Lemke from their
//! active set (p_n > 0, the cone directions bracketing f_t, σ > 0 when f_t is on the
//! cone's boundary).

mod articulated;
mod consistent;
mod delassus;
mod islands;
pub mod peg;
mod peg_retry;
mod rows;
mod solve;
mod split;
mod warm;

use super::bodies::report_contacts;
use super::collide::CollideWorkspace;
use super::robots::{Record, RobotLoad};
use super::rotation::{self, Inertia};
use super::{lap, Stepper, Tick};
use crate::collision::capacity::MANIFOLDS_PER_GEOM;
use crate::data::{BodyState, Data, PairState, Stage, StepStats};
use crate::math::{Mat3, Quat, Vec3, Wrench};
use crate::model::{BodyKind, ContactModel, LcpParams, Model};
use crate::pipeline::clock::Instant;
use crate::solver::{
    BodyRows, ContactPgsResults, ContactProblem, DofRows, LcpProblem, LemkeResults, LemkeSolver,
    NewtonResults, PrimalResults,
};
use nalgebra::{DMatrix, DVector, Matrix6xX};

/// How a block of generalized velocities moves material points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DofKind {
    /// A free body: 6 DoF (v, ω) in the world frame; M⁻¹ = diag(1/m, I_w⁻¹).
    Free { body: u32 },
    /// An articulated robot (module doc, "Robots"): its nv generalized velocities
    /// `Data::qvel[v_offset..]`; rows from the link's point Jacobian J(q)
    /// (row = uᵀ J_v), M⁻¹ = (H(q) + diag(a))⁻¹ with H from CRBA and a the
    /// implicit diagonal of the actuation/passive law.
    Articulated { robot: u32 },
}

/// One block of ν: `ndof` generalized velocities at `offset`, its M⁻¹ (dense,
/// row-major, `ndof²` entries) at `minv` in [`LcpWorkspace::minv`], and a
/// robot's M itself at `mass` in [`LcpWorkspace::mass`] ([`NO_MASS`]: not
/// stored; the primal solver's DoF-space rows then invert M⁻¹, `solve::dof_rows`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DofBlock {
    pub kind: DofKind,
    pub offset: usize,
    pub ndof: usize,
    pub minv: usize,
    pub mass: usize,
}

/// [`DofBlock::mass`] of a block whose M is not stored.
pub(super) const NO_MASS: usize = usize::MAX;

pub(super) const NO_BLOCK: u32 = u32::MAX;

/// Largest ‖min(z′, w′)‖∞ of a Lemke solution of the scaled problem that is
/// accepted, relative to max(1, ‖D q‖∞) (z′ and w′ in √J; for a 1 kg body 1e-7 is
/// ≈ 1e-7 m/s, 0.1 nm over a 1 ms step); beyond it the solve counts as failed and
/// falls back to PGS.
pub(super) const LEMKE_ACCEPT: f64 = 1e-7;

/// Relative diagonal regularization of W (see [`delassus`]).
pub(super) const REGULARIZATION: f64 = 1e-9;

/// Lemke's proximal regularization ε_L, relative to the diagonal of the W rows
/// (`solve::proximal_centre`, module doc "Lemke's proximal step"): 1,000× the CFM
/// [`REGULARIZATION`], so that a dependent row's pivot (≈ ε_L W_ii) stays three
/// orders above Lemke's pivot tolerance (1e-9 of the largest entry) and a basis
/// on dependent rows keeps a condition number ≈ 1/ε_L = 1e6 (forward error
/// ≈ 1e-10 relative in double precision).
pub(super) const LEMKE_PROXIMAL: f64 = 1e-6;

/// Re-centred solves of the proximal step within one solve: each divides the
/// proximal term's error by ≈ 1/ε_L, so one suffices after a landing or a
/// push-out; at rest none is taken.
pub(super) const LEMKE_PROXIMAL_PASSES: usize = 3;

/// One side of a contact: the block it acts on and its 3 Jacobian rows (n, t₁, t₂,
/// `ndof` coefficients each) at `jac` in [`LcpWorkspace::jac`] (and M⁻¹ Jᵀ at the
/// same place in [`LcpWorkspace::minv_jt`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Side {
    pub(super) block: u32,
    pub(super) jac: usize,
}

/// One contact point: three rows of W.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ContactRow {
    /// Index into `Data::pairs` and the point's slot in the pair's warm start.
    pub(super) pair: usize,
    pub(super) slot: usize,
    pub(super) p: Vec3,
    /// Where its friction rows act (`rows::friction_points`; `p` but on a face
    /// or line contact of the standard rows).
    pub(super) pf: Vec3,
    pub(super) n: Vec3,
    pub(super) t1: Vec3,
    pub(super) t2: Vec3,
    pub(super) mu: f64,
    pub(super) depth: f64,
    pub(super) restitution: f64,
    pub(super) bodies: [usize; 2],
    pub(super) side: [Side; 2],
    /// A joint-limit row (module doc, "Robots"): no pair, no friction.
    pub(super) limit: bool,
}

/// `ContactRow::pair` of a joint-limit row.
pub(super) const NO_PAIR: usize = usize::MAX;

/// Work buffers of the LCP step (capacities kept: no allocation once warmed up).
#[derive(Clone, Debug)]
pub struct LcpWorkspace {
    pub(super) blocks: Vec<DofBlock>,
    pub(super) body_block: Vec<u32>,
    pub(super) minv: Vec<f64>,
    /// The robots' M = H + diag(a) ([`DofBlock::mass`]).
    pub(super) mass: Vec<f64>,
    /// Per block (robots'; a free body's block has no entry: false): its
    /// island is left to the primal solver's DoF space (lcp20, `articulated.rs`,
    /// "Lean blocks"): no M⁻¹ (`minv` holds nothing), no M⁻¹ Jᵀ for its rows
    /// (`minv_jt` zeros) and only the diagonal blocks of W from its sides; M⁻¹
    /// is applied by the factor `M = Lᵀ L` along the robot's tree in `mfac`
    /// (at [`DofBlock::mass`]; its DoF parent array in `mpar` at
    /// [`DofBlock::offset`], lcp21). `solve::complete_lean` builds what was left out
    /// when an island goes to another solver, and clears the flag.
    pub(super) lean: Vec<bool>,
    pub(super) mfac: Vec<f64>,
    pub(super) mpar: Vec<u32>,
    /// Scratch of the lean blocks: Gᵀ p per DoF (`velocity_after`), L⁻¹ Jᵀ of
    /// a point's two sides (`delassus`).
    pub(super) gtp: Vec<f64>,
    pub(super) ly: Vec<f64>,
    /// ν at the start of the step and ν_f = ν + h M⁻¹ f.
    pub(super) nu: Vec<f64>,
    pub(super) nu_f: Vec<f64>,
    /// ν⁺ of the stabilized problem, which moves the bodies (x⁺, q⁺), and the
    /// kept ν⁺ (module doc, "Stabilization"); equal unless a penetration was
    /// pushed out.
    pub(super) nu_move: Vec<f64>,
    pub(super) nu_next: Vec<f64>,
    /// Per point, the kept velocity's rows (n, t₁, t₂): q = G ν_f + (s_v, 0, 0),
    /// then made consistent (`consistent.rs`).
    pub(super) q_keep: Vec<[f64; 3]>,
    /// Per point, the stabilization targets (s_n, s_v) of the normal row before
    /// the projection of `consistent.rs`.
    pub(super) stab: Vec<[f64; 2]>,
    /// `[lcp] split_memory` (lcp34, `split.rs`): per point σ (0 where the point
    /// has no remembered load), the last tick's normal load p̄_n, and the term's
    /// weight σ W_nn added to W's normal diagonal. Empty when the key is off.
    pub(super) split_sigma: Vec<f64>,
    pub(super) split_centre: Vec<f64>,
    pub(super) split_extra: Vec<f64>,
    /// Buffers of the consistent stabilization (`consistent.rs`).
    pub(super) consistent: consistent::ConsistentWorkspace,
    /// Per free-body block (same index as `blocks`; free blocks come first): the
    /// torque-free orientation q_f and angular velocity ω_f at the end of the step
    /// (module doc, "Rotation").
    pub(super) free_rot: Vec<(Quat, Vec3)>,
    pub(super) contacts: Vec<ContactRow>,
    /// Per point of the standard rows (`rows::contact_rows`, in `contacts`'
    /// order, the rows it pushed only), its face patch under `[lcp] friction
    /// = "patch"` (lcp33; `solver::pgs::PatchOf`), and whether the step's
    /// solve takes them (`patch_on`: the standard rows, not PEG's).
    pub(super) patch_rows: Vec<crate::solver::PatchOf>,
    pub(super) patch_on: bool,
    /// `[lcp] friction = "patch"` this step: `rows::contact_rows` fills
    /// `patch_rows` only then (none read otherwise).
    pub(super) patch_wanted: bool,
    pub(super) jac: Vec<f64>,
    pub(super) minv_jt: Vec<f64>,
    /// Delassus W = G M⁻¹ Gᵀ (3 rows per point) and q_W = G ν_f + s.
    pub(super) w: DMatrix<f64>,
    pub(super) qw: DVector<f64>,
    /// The solver's problem (Lemke: the Stewart–Trinkle LCP; PGS: (W, q_W)).
    pub(super) problem: LcpProblem,
    pub(super) guess: DVector<f64>,
    /// The last accepted solution of Lemke's proximal step, kept while it is
    /// re-centred (`solve::lemke`).
    pub(super) lemke_kept: LemkeResults,
    /// The diagonal scaling D of the Lemke problem (`solve::scale_lcp`).
    pub(super) lcp_scale: Vec<f64>,
    pub(super) lemke: LemkeSolver,
    pub(super) lemke_res: LemkeResults,
    /// (p_n, f_t₁, f_t₂) per point.
    pub(super) impulse: Vec<f64>,
    /// Point selection of one manifold.
    pub(super) pick: Vec<usize>,
    /// cos, sin of the k friction directions.
    pub(super) dirs: Vec<(f64, f64)>,
    /// Block-sparse W and q_W with the islands, and the PGS buffers on it.
    pub(super) sparse: ContactProblem,
    /// Per point: its row of W holds its diagonal block alone (lcp26,
    /// `delassus`, "Diagonal-only rows"; `solve::complete_diagonal` builds the
    /// rest for a reader of W).
    pub(super) w_diagonal: Vec<bool>,
    /// Per point: whether W's rows take its column (`delassus`, "Columns
    /// read"; set by PEG to its force-carrying rows, `peg::read_columns`);
    /// empty: every column.
    pub(super) w_cols: Vec<bool>,
    pub(super) contact_res: ContactPgsResults,
    /// The Newton solver's iterate and buffers (`solver::newton`).
    pub(super) newton: NewtonResults,
    /// The primal (body-space) solver's rows and buffers (`solver::primal`,
    /// `solve::primal_on_w`).
    pub(super) body_rows: BodyRows,
    pub(super) primal: PrimalResults,
    /// The primal solver's DoF-space rows of the islands not in body space
    /// (robots, `solve::dof_rows`) and, per DoF block, whether they hold it.
    pub(super) dof_rows: DofRows,
    pub(super) dof_used: Vec<bool>,
    /// The islands the primal solver left, for the Newton path (`order`,
    /// `island_start` of a restricted problem).
    pub(super) left_order: Vec<u32>,
    pub(super) left_start: Vec<usize>,
    /// Points per DoF block (CSR) and the union–find / island labels.
    pub(super) blk_start: Vec<usize>,
    pub(super) blk_list: Vec<u32>,
    pub(super) parent: Vec<u32>,
    pub(super) island_of: Vec<u32>,
    /// Robots: q̇ and q̈ of the contact-free evaluation (all robots, flat), a point
    /// Jacobian per robot (6 × nv), M⁻¹ of one robot (nv × nv) and q⁺.
    pub(super) kq: Vec<f64>,
    pub(super) kv: Vec<f64>,
    pub(super) jrob: Vec<Matrix6xX<f64>>,
    /// Per link with contact points this step (lcp23, `rows::LinkRows`): its
    /// 6 × nv Jacobian at the world origin in `link_jac`, and per body its
    /// entry in `links` (`rows::NO_LINK`: none).
    pub(super) links: Vec<rows::LinkRows>,
    pub(super) link_jac: Vec<f64>,
    pub(super) link_of: Vec<u32>,
    /// Per robot: its free acceleration came from M's factor and an RNEA
    /// (lcp23, `articulated::robot_blocks`); zeros for the RNEA's q̈.
    pub(super) rnea_free: Vec<bool>,
    pub(super) qdd0: Vec<f64>,
    /// One robot's q̈ = (ν⁺ − ν)/h of the step, for its records (lcp24).
    pub(super) qdd_step: Vec<f64>,
    pub(super) hinv: DMatrix<f64>,
    pub(super) q_new: Vec<f64>,
    /// Robots: the velocities q⁺ is integrated with (ν⁺ of the stabilized problem).
    pub(super) v_move: Vec<f64>,
    /// PEG's rows and constraints (`peg.rs`; unused by the standard model).
    pub(super) peg: peg::PegWorkspace,
}

impl Default for LcpWorkspace {
    fn default() -> Self {
        LcpWorkspace {
            blocks: Vec::new(),
            body_block: Vec::new(),
            minv: Vec::new(),
            mass: Vec::new(),
            lean: Vec::new(),
            mfac: Vec::new(),
            mpar: Vec::new(),
            gtp: Vec::new(),
            ly: Vec::new(),
            nu: Vec::new(),
            nu_f: Vec::new(),
            nu_move: Vec::new(),
            nu_next: Vec::new(),
            q_keep: Vec::new(),
            stab: Vec::new(),
            split_sigma: Vec::new(),
            split_centre: Vec::new(),
            split_extra: Vec::new(),
            consistent: consistent::ConsistentWorkspace::default(),
            free_rot: Vec::new(),
            contacts: Vec::new(),
            patch_rows: Vec::new(),
            patch_on: false,
            patch_wanted: false,
            jac: Vec::new(),
            minv_jt: Vec::new(),
            w: DMatrix::zeros(0, 0),
            qw: DVector::zeros(0),
            problem: LcpProblem {
                m: DMatrix::zeros(0, 0),
                q: DVector::zeros(0),
            },
            guess: DVector::zeros(0),
            lemke_kept: LemkeResults::default(),
            lcp_scale: Vec::new(),
            lemke: LemkeSolver::default(),
            lemke_res: LemkeResults::default(),
            impulse: Vec::new(),
            pick: Vec::new(),
            dirs: Vec::new(),
            sparse: ContactProblem::default(),
            w_diagonal: Vec::new(),
            w_cols: Vec::new(),
            contact_res: ContactPgsResults::default(),
            newton: NewtonResults::default(),
            body_rows: BodyRows::default(),
            primal: PrimalResults::default(),
            dof_rows: DofRows::default(),
            dof_used: Vec::new(),
            left_order: Vec::new(),
            left_start: Vec::new(),
            blk_start: Vec::new(),
            blk_list: Vec::new(),
            parent: Vec::new(),
            island_of: Vec::new(),
            kq: Vec::new(),
            kv: Vec::new(),
            jrob: Vec::new(),
            links: Vec::new(),
            link_jac: Vec::new(),
            link_of: Vec::new(),
            rnea_free: Vec::new(),
            qdd0: Vec::new(),
            qdd_step: Vec::new(),
            hinv: DMatrix::zeros(0, 0),
            q_new: Vec::new(),
            v_move: Vec::new(),
            peg: peg::PegWorkspace::default(),
        }
    }
}

/// LCP points (after the ≤ 4-per-manifold reduction) per geom the workspace is
/// sized for at creation: `collision::capacity::MANIFOLDS_PER_GEOM` manifolds of
/// ≤ 4 points (not halved for the sharing of a manifold by two geoms: a settling
/// pile of 20 boxes reaches 259 points on 25 geoms); and W blocks per point (the
/// points it couples with through its bodies: a box touching three others and
/// the ground couples each of its points with ≈ 16).
const POINTS_PER_GEOM: usize = MANIFOLDS_PER_GEOM * 4;
const BLOCKS_PER_POINT: usize = 24;

impl LcpWorkspace {
    /// A workspace sized from the model (real-time habit: the first ticks of a
    /// settling scene do not grow the buffers of the solver; beyond these sizes
    /// they still grow, by doubling).
    pub fn new(model: &Model) -> Self {
        let points = POINTS_PER_GEOM * model.ngeom();
        let ndof = model.robots.iter().map(|r| r.nv()).fold(6, usize::max);
        let nv_all = model.robots.iter().map(|r| r.nv()).sum::<usize>();
        let nv2 = model.robots.iter().map(|r| r.nv() * r.nv()).sum::<usize>();
        let rows = 3 * 2 * ndof * points;
        let nb = model.nbody();
        let k = match model.opt.method {
            crate::model::Method::Lcp(p) => p.friction_directions as usize,
            _ => 4,
        };
        LcpWorkspace {
            lcp_scale: Vec::with_capacity((k + 2) * points),
            blocks: Vec::with_capacity(nb),
            body_block: Vec::with_capacity(nb),
            minv: Vec::with_capacity(36 * nb + nv2),
            mass: Vec::with_capacity(nv2),
            lean: Vec::with_capacity(nb),
            mfac: Vec::with_capacity(nv2),
            mpar: Vec::with_capacity(6 * nb + nv_all),
            gtp: Vec::with_capacity(6 * nb + nv_all),
            ly: Vec::with_capacity(6 * ndof),
            nu: Vec::with_capacity(6 * nb),
            nu_f: Vec::with_capacity(6 * nb),
            nu_move: Vec::with_capacity(6 * nb),
            nu_next: Vec::with_capacity(6 * nb),
            q_keep: Vec::with_capacity(points),
            stab: Vec::with_capacity(points),
            split_sigma: Vec::with_capacity(points),
            split_centre: Vec::with_capacity(points),
            split_extra: Vec::with_capacity(points),
            consistent: consistent::ConsistentWorkspace::with_capacity(
                (6 * nb).min(consistent::MAX_DOFS),
                nb,
                6 * nb + model.robots.iter().map(|r| r.nv()).sum::<usize>(),
            ),
            free_rot: Vec::with_capacity(nb),
            contacts: Vec::with_capacity(points),
            patch_rows: Vec::with_capacity(points),
            patch_on: false,
            patch_wanted: false,
            // Three rows per point from the start (`solver::resize_zeroed` keeps the
            // capacity): a pile whose contacts grow late does not grow it mid-run.
            qw: DVector::from_vec(Vec::with_capacity(3 * points)),
            jac: Vec::with_capacity(rows),
            minv_jt: Vec::with_capacity(rows),
            impulse: Vec::with_capacity(3 * points),
            sparse: ContactProblem::with_capacity(points, BLOCKS_PER_POINT * points),
            w_diagonal: Vec::with_capacity(points),
            w_cols: Vec::with_capacity(points),
            contact_res: ContactPgsResults::with_capacity(points),
            newton: NewtonResults::with_capacity(points, solve::NEWTON_DENSE_POINTS, k),
            body_rows: BodyRows::with_capacity(points, nb),
            primal: PrimalResults::with_capacity(points, nb),
            dof_rows: DofRows::default(),
            dof_used: Vec::with_capacity(nb),
            left_order: Vec::with_capacity(points),
            left_start: Vec::with_capacity(points + 1),
            blk_start: Vec::with_capacity(nb + 1),
            blk_list: Vec::with_capacity(2 * points),
            parent: Vec::with_capacity(nb.max(points)),
            island_of: Vec::with_capacity(points),
            peg: peg::PegWorkspace::new(model),
            links: Vec::with_capacity(nb),
            link_jac: Vec::with_capacity(6 * nv_all.max(1) * nb.min(8)),
            link_of: Vec::with_capacity(nb),
            rnea_free: Vec::with_capacity(model.robots.len()),
            qdd0: vec![0.0; ndof],
            qdd_step: Vec::with_capacity(ndof),
            ..Default::default()
        }
    }
}

pub struct LcpStepper<'a> {
    pub params: &'a LcpParams,
}

impl Stepper for LcpStepper<'_> {
    type Workspace = LcpWorkspace;

    fn name(&self) -> &'static str {
        match self.params.contact_model {
            ContactModel::Standard => "lcp",
            ContactModel::Peg => "peg",
        }
    }

    fn contacts_at_start(&self) -> bool {
        true
    }

    fn speculative_window(&self) -> Option<f64> {
        (self.params.contact_window > 0.0).then_some(self.params.contact_window)
    }

    fn impact_restitution(&self) -> bool {
        self.params.restitution
    }

    fn outline_ccd(&self) -> bool {
        // PEG runs the stage itself after its step (`peg_retry::advance`: a
        // rewind that would create overlap is refused, peg26; off with `[lcp]
        // peg_outline_ccd = false`, per attempt with `peg_ccd_retry`); every
        // other case as before.
        self.params.contact_model != ContactModel::Peg
    }

    fn advance(
        &self,
        tick: &Tick<'_>,
        data: &mut Data,
        col: &mut CollideWorkspace,
        ls: &mut LcpWorkspace,
    ) {
        // PEG with `[lcp] peg_retry_depth` > 0: a failed step taken again as
        // sub-steps (peg_retry.rs); otherwise the one step below.
        peg_retry::advance(self, tick, data, col, ls);
    }
}

impl LcpStepper<'_> {
    /// One step of `tick.h` (`peg_retry` calls it with h/2^k).
    pub(super) fn step_of(
        &self,
        tick: &Tick<'_>,
        data: &mut Data,
        col: &mut CollideWorkspace,
        ls: &mut LcpWorkspace,
    ) {
        let p = self.params;
        let (model, h) = (tick.model, tick.h);
        let Data {
            state,
            xfrc,
            frozen,
            pairs,
            contacts,
            contact_pair,
            contact_wrench,
            stats,
            qpos,
            qvel,
            qfrc_cmd,
            qfrc_actuator,
            qfrc_passive,
            qacc,
            robots,
            lcp_interior,
            ..
        } = data;
        let t = Instant::now();
        report_contacts(contacts, stats);

        // Contact: DoF blocks, ν_f, the rows and the Delassus matrix.
        dof_blocks(model, state, xfrc, frozen, h, ls);
        if !model.robots.is_empty() {
            // No contact wrench in the contact-free evaluation (ν_f).
            contact_wrench.iter_mut().for_each(|w| *w = Wrench::ZERO);
            let load = RobotLoad {
                q: qpos,
                v: qvel,
                cmd: qfrc_cmd,
                state,
                contact: contact_wrench,
                xfrc,
            };
            let peg = p.contact_model == ContactModel::Peg;
            let rec = Record {
                actuator: qfrc_actuator,
                passive: qfrc_passive,
                qacc,
            };
            // Lean blocks (articulated.rs) under the primal solver's DoF space.
            let lean = p.solver == crate::model::LcpSolverKind::Primal && !peg;
            articulated::robot_blocks(model, h, robots, &load, (contacts, peg, lean), rec, ls);
        }
        let peg_method = p.contact_model == ContactModel::Peg;
        let mut peg = peg_method;
        ls.patch_wanted = p.friction == crate::model::FrictionModel::Patch;
        let mut ts = None;
        let mut before = (0, 0.0, 0, false);
        // The step's failure counters before its solve (the work check's fallback
        // counts the step once).
        let counted = (stats.solver_failures, stats.solver_fallbacks);
        let unconverged = stats.solver_unconverged;
        ls.peg.std_rows = false;
        ls.peg.lcp_step = false;
        for pass in 0..p.peg_passes.max(1) {
            if pass > 0 {
                // The solved pass, kept in case this one fails (peg.rs), and the
                // pivots it left of one attempt's limit: this pass's budget.
                peg::save_pass(ls, stats);
                peg::set_pass_budget(p, ls, stats);
            } else {
                peg::clear_pass_budget(ls);
            }
            rows::contact_rows(
                model,
                state,
                robots,
                (contacts, contact_pair),
                !peg_method,
                ls,
            );
            if !model.robots.is_empty() {
                articulated::limit_rows(model, robots, qpos, qvel, h, ls);
            }
            if !peg_method {
                // Each point's k-gon turned against its free slip (rows.rs).
                rows::align_friction(ls);
            }
            if peg {
                // PEG: the potential contacts' rows replace the polytope pairs' (peg.rs).
                let inp = peg::PegInput {
                    model,
                    state,
                    candidates: &col.candidates,
                    poses: &col.geom_pose,
                    speed: &col.speed,
                    h,
                    window: p.contact_window,
                    predicted: pass > 0,
                };
                peg::peg_rows(&inp, ls);
                stats.peg_x_shared += u64::from(ls.peg.x_shared);
                stats.peg_x_rows += u64::from(ls.peg.x_rows);
                ls.peg.passes = pass as u32 + 1;
                if pass == 0 && !peg::has_peg_rows(ls) {
                    // No PEG row in the step (only standard rows: robot links,
                    // round shapes; peg.rs, "Steps without PEG rows"): the step is
                    // the LCP method's, its rows (with the patch form and the
                    // aligned k-gons) and its solve, not counted as a fallback.
                    rows::contact_rows(model, state, robots, (contacts, contact_pair), true, ls);
                    if !model.robots.is_empty() {
                        articulated::limit_rows(model, robots, qpos, qvel, h, ls);
                    }
                    rows::align_friction(ls);
                    ls.peg.lcp_step = true;
                    peg = false;
                }
                if pass > 0 && ls.contacts.len() > peg::PEG_MAX_ROWS {
                    let end = peg::PassEnd::RowCap;
                    peg::trace_pass(model, (p.peg_passes, pass), end, h, ls, stats);
                    peg::restore_pass(ls, stats);
                    stats.peg_discarded_passes += 1;
                    warm::remember_impulses(pairs, contact_pair, ls);
                    break;
                }
                if ls.contacts.len() > peg::PEG_MAX_ROWS {
                    // Bounded work (peg.rs, "Row cap"): this step takes the standard
                    // rows, a counted failure and fallback.
                    peg::report_row_cap(ls);
                    stats.peg_row_cap_steps += 1;
                    stats.solver_failed = true;
                    stats.solver_failures += 1;
                    stats.solver_fallbacks += 1;
                    ls.peg.std_rows = true;
                    rows::contact_rows(
                        model,
                        state,
                        robots,
                        (contacts, contact_pair),
                        !peg_method,
                        ls,
                    );
                    if !model.robots.is_empty() {
                        articulated::limit_rows(model, robots, qpos, qvel, h, ls);
                    }
                    peg = false;
                }
            }
            // The primal solver reads only the diagonal blocks of its body-space
            // islands (delassus.rs, "Diagonal-only rows").
            let diagonal = !peg && p.solver == crate::model::LcpSolverKind::Primal;
            // The face patches (`[lcp] friction = "patch"`) on the standard rows.
            ls.patch_on = !peg;
            // `[lcp] split_memory` (lcp34): the persisting points' last loads.
            split::centre(p, pairs, !peg, ls);
            // PEG's LCP reads W's columns of its force-carrying rows only
            // (peg.rs, "W's columns").
            if peg {
                peg::read_columns(ls);
            } else {
                ls.w_cols.clear();
            }
            delassus::delassus(p, h, diagonal, ls);
            if peg {
                peg::peg_constants(p, h, ls);
            } else {
                // The stabilization's part no rigid motion can produce is removed
                // (`consistent.rs`, issue 14).
                consistent::project(ls);
                split::shift_q(ls);
            }
            ts.get_or_insert_with(Instant::now);

            // Solve (with the documented fallback), then ν⁺ = ν_f + M⁻¹ Gᵀ p; where
            // the stabilization pushed a penetration out, the velocity kept is that
            // of the problem without the push-out (module doc, "Stabilization"; the
            // standard rows only: PEG keeps ψ/h in full, peg.rs).
            if peg {
                peg::solve(p, ls, stats);
            } else {
                solve::solve(p, (pairs, lcp_interior), ls, stats);
            }
            if pass > 0 && stats.solver_failed {
                // A predicted pass that failed is discarded (peg.rs, "Predicted
                // reach").
                // Its pivots count.
                peg::trace_pass(
                    model,
                    (p.peg_passes, pass),
                    peg::PassEnd::Failed,
                    h,
                    ls,
                    stats,
                );
                let it = stats.solver_iterations;
                discard_pass(pairs, contact_pair, ls, stats, it);
                break;
            }
            if pass > 0 {
                // The passes' stats add up (pivots, the larger residual and LCP).
                stats.solver_iterations += before.0;
                stats.solver_residual = stats.solver_residual.max(before.1);
                stats.lcp_size = stats.lcp_size.max(before.2);
                stats.solver_failed |= before.3;
            }
            warm::remember_impulses(pairs, contact_pair, ls);
            velocity_after(ls, false);
            if peg && peg::work_rejects(model, state, h, ls) {
                // The pass's impulses add more kinetic energy than pushing out the
                // rows' overlap can (peg.rs, `work_check`): not a solution to
                // keep. A predicted pass is discarded; a first pass is a counted
                // failure and the step takes the standard rows (as the row cap).
                let end = peg::PassEnd::WorkRejected;
                peg::trace_pass(model, (p.peg_passes, pass), end, h, ls, stats);
                if pass > 0 {
                    // Its own pivots (the earlier passes' were added above).
                    let it = stats.solver_iterations.saturating_sub(before.0);
                    discard_pass(pairs, contact_pair, ls, stats, it);
                    break;
                }
                stats.peg_work_refusals += 1;
                if peg::clamped_pass(p, model, state, h, (counted, unconverged), ls, stats) {
                    // `[lcp] peg_work_clamp` (peg.rs, "Work check"): the pass
                    // again with its rows clamped to their real penetration,
                    // solved and passing the check: kept.
                    warm::remember_impulses(pairs, contact_pair, ls);
                    let end = peg::PassEnd::Solved { next: false };
                    peg::trace_pass(model, (p.peg_passes, pass), end, h, ls, stats);
                    break;
                }
                ls.peg.std_rows = true;
                rows::contact_rows(
                    model,
                    state,
                    robots,
                    (contacts, contact_pair),
                    !peg_method,
                    ls,
                );
                if !model.robots.is_empty() {
                    articulated::limit_rows(model, robots, qpos, qvel, h, ls);
                }
                peg = false;
                let diagonal = p.solver == crate::model::LcpSolverKind::Primal;
                ls.patch_on = true;
                ls.w_cols.clear();
                delassus::delassus(p, h, diagonal, ls);
                consistent::project(ls);
                (stats.solver_failures, stats.solver_fallbacks) = counted;
                solve::solve(p, (pairs, lcp_interior), ls, stats);
                stats.solver_failed = true;
                stats.solver_failures = stats.solver_failures.max(counted.0 + 1);
                stats.solver_fallbacks = stats.solver_fallbacks.max(counted.1 + 1);
                warm::remember_impulses(pairs, contact_pair, ls);
                velocity_after(ls, false);
                break;
            }
            // PEG's predicted reach (peg.rs, "Predicted reach"): a step whose own
            // impulses move a body faster than the reach and rotation lead its
            // rows were built for is built again from the velocities it predicts.
            // With `peg_consistent` (peg15, peg16) the last predicted pass is
            // tested too and kept only if it is self-consistent: its own ν⁺ stays
            // within the reach and rotation lead its rows were built for (the
            // same test, against the bounds the pass was built with). One that
            // is not is discarded and the step keeps the pass before it (peg.rs,
            // "Predicted reach"; docs/EXPERIMENTS.md, peg15 and peg16).
            let last = pass + 1 >= p.peg_passes;
            let tested = !last || (p.peg_consistent && pass > 0);
            let grown =
                peg && tested && peg::spun_up(model, &col.candidates, h, p.contact_window, ls);
            if grown && last {
                let end = peg::PassEnd::Inconsistent;
                peg::trace_pass(model, (p.peg_passes, pass), end, h, ls, stats);
                // Its own pivots count (the passes' sum less the earlier ones').
                let it = stats.solver_iterations.saturating_sub(before.0);
                discard_pass(pairs, contact_pair, ls, stats, it);
                break;
            }
            let next = grown;
            if peg {
                let end = peg::PassEnd::Solved { next };
                peg::trace_pass(model, (p.peg_passes, pass), end, h, ls, stats);
            }
            if !next {
                break;
            }
            before = (
                stats.solver_iterations,
                stats.solver_residual,
                stats.lcp_size,
                stats.solver_failed,
            );
        }
        let ts = ts.unwrap_or_else(Instant::now);
        if !peg && solve::kept_solve(p, (pairs, lcp_interior), ls, stats) {
            warm::remember_impulses(pairs, contact_pair, ls);
            velocity_after(ls, true);
        } else {
            ls.nu_next.clone_from(&ls.nu_move);
        }
        stats.solver_ns = ts.elapsed().as_nanos() as u64;
        report_wrenches(h, state, contact_wrench, ls);
        let t = lap(stats, Stage::Contact, t);

        // Integrate: x⁺ = x + h v⁺ and the quaternion update of eq. (10).
        integrate(model, h, state, frozen, ls);
        if !model.robots.is_empty() {
            let rec = Record {
                actuator: qfrc_actuator,
                passive: qfrc_passive,
                qacc,
            };
            let gen = articulated::RobotStep {
                qpos,
                qvel,
                cmd: qfrc_cmd,
                state,
                contact: contact_wrench,
                xfrc,
            };
            articulated::integrate_robots(model, h, robots, gen, rec, ls);
        }
        if peg_method {
            // The exact overlap volume at the end of the step (peg.rs).
            peg::report_overlap(model, state, &col.candidates, &col.geom_pose, h, ls, stats);
        }
        lap(stats, Stage::Integrate, t);
    }
}

/// A predicted pass discarded (a failed solve, or impulses the work check
/// refuses): the pass before it restored (peg.rs, `restore_pass`), counted in
/// `peg_discarded_passes`, `pivots` (the pivots the discarded pass cost) added
/// to the step's, and the restored impulses remembered for the next step's warm
/// start.
fn discard_pass(
    pairs: &mut [PairState],
    contact_pair: &[usize],
    ls: &mut LcpWorkspace,
    stats: &mut StepStats,
    pivots: usize,
) {
    peg::restore_pass(ls, stats);
    stats.peg_discarded_passes += 1;
    stats.solver_iterations += pivots;
    warm::remember_impulses(pairs, contact_pair, ls);
}

/// One block per moving body; M⁻¹ blocks; ν and ν_f: v_f = v + h (f_ext/m + g),
/// ω from the free midpoint rotation step plus h I_w⁻¹ τ_ext (module doc,
/// "Rotation").
fn dof_blocks(
    model: &Model,
    state: &[BodyState],
    xfrc: &[Wrench],
    frozen: &[bool],
    h: f64,
    ls: &mut LcpWorkspace,
) {
    ls.blocks.clear();
    ls.body_block.clear();
    ls.minv.clear();
    ls.mass.clear();
    ls.lean.clear();
    ls.mfac.clear();
    ls.nu.clear();
    ls.nu_f.clear();
    ls.free_rot.clear();
    let g = model.opt.gravity;
    for (b, body) in model.bodies.iter().enumerate() {
        if body.kind != BodyKind::Free || frozen[b] {
            ls.body_block.push(NO_BLOCK);
            continue;
        }
        ls.body_block.push(ls.blocks.len() as u32);
        let st = &state[b];
        let r = st.q.to_rotation_matrix();
        let rm = r.matrix();
        let i_w: Mat3 = rm * body.inertia * rm.transpose();
        let i_w_inv: Mat3 = rm * body.inv_inertia * rm.transpose();
        // Locked rotations (`model::Locks`): M⁻¹ of the free rotations only.
        let i_w_inv = body.lock.inverse_inertia(&i_w, &i_w_inv);
        let inertia = Inertia {
            i: body.inertia,
            inv: body.inv_inertia,
        };
        let block = DofBlock {
            kind: DofKind::Free { body: b as u32 },
            offset: ls.nu.len(),
            ndof: 6,
            minv: ls.minv.len(),
            mass: NO_MASS,
        };
        // M⁻¹ = diag(1/m I₃, I_w⁻¹), row-major 6×6.
        for i in 0..6 {
            for j in 0..6 {
                ls.minv.push(match (i < 3, j < 3) {
                    (true, true) if i == j => body.inv_mass,
                    (false, false) => i_w_inv[(i - 3, j - 3)],
                    _ => 0.0,
                });
            }
        }
        // Semi-implicit: external force and gravity at the start state; the
        // rotation is the conservative free step of `super::rotation` and the
        // applied torque's kick (module doc, "Rotation").
        let f = xfrc[b].force;
        let v_f = st.v + h * (f * body.inv_mass + g);
        let (q_free, w_free) = rotation::step(&st.q, &inertia, &(i_w * st.w), h);
        ls.free_rot.push((q_free, w_free));
        let (mut v_f, mut w_f) = (v_f, w_free + h * (i_w_inv * xfrc[b].torque));
        if body.lock.any() {
            // Locked DoFs (`model::Locks`): their rows and columns of M⁻¹ and
            // their ν_f are 0, so ν⁺ = ν_f + M⁻¹ Gᵀ p keeps them 0 exactly.
            body.lock.project(&mut v_f, &mut w_f);
            for k in (0..6).filter(|&k| body.lock.0[k]) {
                for j in 0..6 {
                    ls.minv[block.minv + 6 * k + j] = 0.0;
                    ls.minv[block.minv + 6 * j + k] = 0.0;
                }
            }
        }
        ls.nu
            .extend_from_slice(&[st.v.x, st.v.y, st.v.z, st.w.x, st.w.y, st.w.z]);
        ls.nu_f
            .extend_from_slice(&[v_f.x, v_f.y, v_f.z, w_f.x, w_f.y, w_f.z]);
        ls.blocks.push(block);
    }
}

/// ν⁺ = ν_f + M⁻¹ Gᵀ p from `ls.impulse`, into `ls.nu_next` (`kept`) or
/// `ls.nu_move`.
fn velocity_after(ls: &mut LcpWorkspace, kept: bool) {
    let LcpWorkspace {
        blocks,
        nu_f,
        nu_move,
        nu_next,
        contacts,
        jac,
        minv_jt,
        impulse,
        lean,
        mfac,
        mpar,
        gtp,
        ..
    } = ls;
    let out = if kept { nu_next } else { nu_move };
    out.clone_from(nu_f);
    let any_lean = lean.iter().any(|&l| l);
    if any_lean {
        gtp.clear();
        gtp.resize(out.len(), 0.0);
    }
    for (c, row) in contacts.iter().enumerate() {
        let pc = &impulse[3 * c..3 * c + 3];
        for s in row.side.iter().filter(|s| s.block != NO_BLOCK) {
            let blk = blocks[s.block as usize];
            let nd = blk.ndof;
            if lean.get(s.block as usize).copied().unwrap_or(false) {
                // Gᵀ p, then M⁻¹ by the factor of M below.
                for (r, pr) in pc.iter().enumerate() {
                    for i in 0..nd {
                        gtp[blk.offset + i] += jac[s.jac + r * nd + i] * pr;
                    }
                }
                continue;
            }
            if let (6, Some(o), Some(m)) = (
                nd,
                out.get_mut(blk.offset..blk.offset + 6),
                minv_jt.get(s.jac..s.jac + 18),
            ) {
                // A free body (lcp26): the same sums over fixed-length rows.
                for (r, pr) in pc.iter().enumerate() {
                    for (ov, mv) in o.iter_mut().zip(&m[6 * r..6 * r + 6]) {
                        *ov += mv * pr;
                    }
                }
                continue;
            }
            for (r, pr) in pc.iter().enumerate() {
                for i in 0..nd {
                    out[blk.offset + i] += minv_jt[s.jac + r * nd + i] * pr;
                }
            }
        }
    }
    if any_lean {
        for (b, blk) in blocks.iter().enumerate() {
            if !lean.get(b).copied().unwrap_or(false) {
                continue;
            }
            let (o, nd) = (blk.offset, blk.ndof);
            let y = &mut gtp[o..o + nd];
            crate::solver::primal::tree_cholesky_solve(
                &mfac[blk.mass..][..nd * nd],
                nd,
                &mpar[o..o + nd],
                y,
            );
            for (ov, yv) in out[o..o + nd].iter_mut().zip(y.iter()) {
                *ov += yv;
            }
        }
    }
}

/// Contact wrenches (impulse / h) of `ls.impulse` (the kept impulses) for
/// reporting.
fn report_wrenches(h: f64, state: &[BodyState], wrench: &mut [Wrench], ls: &LcpWorkspace) {
    wrench.iter_mut().for_each(|w| *w = Wrench::ZERO);
    for (c, row) in ls.contacts.iter().enumerate().filter(|(_, r)| !r.limit) {
        let pc = &ls.impulse[3 * c..3 * c + 3];
        let [ba, bb] = row.bodies;
        if row.pf == row.p {
            let f = (row.n * pc[0] + row.t1 * pc[1] + row.t2 * pc[2]) / h;
            wrench[ba].add_force_at(f, row.p, state[ba].x);
            wrench[bb].add_force_at(-f, row.p, state[bb].x);
        } else {
            // The friction at its own point (`rows::friction_points`).
            let (f_n, f_t) = (row.n * pc[0] / h, (row.t1 * pc[1] + row.t2 * pc[2]) / h);
            for (b, s) in [(ba, 1.0), (bb, -1.0)] {
                wrench[b].add_force_at(f_n * s, row.p, state[b].x);
                wrench[b].add_force_at(f_t * s, row.pf, state[b].x);
            }
        }
    }
}

/// v⁺, ω⁺ from the kept ν⁺; x⁺ = x + h v⁺_m; q⁺ = q_f + (h/2)(0, ω⁺_m − ω_f) ⊗ q_f
/// renormalized (eq. (10) of 003 with ω in world coordinates, applied to the
/// contact's change of ω after the contact-free rotation q_f; module doc,
/// "Rotation"), with (v⁺_m, ω⁺_m) the ν⁺ of the stabilized problem (module doc,
/// "Stabilization"); ω⁺ is the kept ν⁺'s momentum read at q⁺
/// (`rotation::kicked_velocity`: I_w(q⁺)⁻¹ I_w(q) (ω + ω⁺ − ω_f)).
fn integrate(model: &Model, h: f64, state: &mut [BodyState], frozen: &[bool], ls: &LcpWorkspace) {
    for (blk, &(q_f, w_f)) in ls.blocks.iter().zip(&ls.free_rot) {
        match blk.kind {
            DofKind::Free { body } => {
                let b = body as usize;
                if model.bodies[b].kind != BodyKind::Free || frozen[b] {
                    continue;
                }
                let nu = &ls.nu_next[blk.offset..blk.offset + 6];
                let m = &ls.nu_move[blk.offset..blk.offset + 6];
                let s = &mut state[b];
                let body = &model.bodies[b];
                let inertia = Inertia {
                    i: body.inertia,
                    inv: body.inv_inertia,
                };
                let (q0, w0) = (s.q, s.w);
                s.v = Vec3::new(nu[0], nu[1], nu[2]);
                s.x += h * Vec3::new(m[0], m[1], m[2]);
                s.q = rotation::kick(&q_f, &(Vec3::new(m[3], m[4], m[5]) - w_f), h);
                let dw = Vec3::new(nu[3], nu[4], nu[5]) - w_f;
                s.w = rotation::kicked_velocity(&q0, &w0, &dw, &s.q, &w_f, &inertia);
            }
            DofKind::Articulated { .. } => {}
        }
    }
}
