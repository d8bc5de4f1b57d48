//! The linearly implicit normal force of the penalty stepper under semi-implicit
//! Euler: the PID force of eq. (3) of 000 taken at the end of the step,
//!
//!   f_i = max{kp (d_i − h s_i⁺) − kv s_i⁺ + ki I, 0} / r,   s_i⁺ = J_i v⁺,
//!
//! (d_i the depth at the start of the step, s_i⁺ the separating normal velocity of
//! point i at the end of it), linearized in v⁺ and solved with the body velocities:
//!
//!   (M + h Σ c_i J_iᵀ J_i) δ = h Σ J_iᵀ (kv/r s_i − c_i s_i^ex),   c_i = (h kp + kv)/r,
//!
//! δ the correction to the explicit velocity update v^ex = v + h M⁻¹ F (F with the
//! explicit force kp d − kv s + ki I at every point) and s_i^ex = J_i v^ex. This is
//! (M + h D + h² K) Δv = h f for the contacts' spring K and damper D: backward Euler
//! in the contact force, unconditionally stable for any kp, kv and mass ratio, so the
//! gains need no explicit-stability clamp. Points whose end-of-step force would pull
//! (f_i < 0) are dropped (their force is then 0: −f_i^ex enters the right-hand side)
//! and the system re-solved, a few active-set passes.
//!
//! **Gap rows.** A point of a speculative manifold (depth d_i ≤ 0, within one step
//! of relative motion: `collision::collide_pair_within`) of a pair approaching
//! slower than the impact threshold applies no explicit force and enters with
//!
//!   f_i = max{kp (d_i − h s_i⁺) − kv s_i⁺, 0} / r,
//!
//! active only if f_i > 0 (it would close its gap within the step): a body placed
//! exactly touching is held from its first step. The penalty stepper then takes
//! friction on the end-of-step forces f_i⁺ and solves once more with friction's
//! wrench in the rates (`penalty::implicit_friction`).
//!
//! **Sticking rows.** A sticking pair's anchor spring–damper enters as two
//! tangential rows at its force centroid (`friction::implicit_stick`):
//! f_t = −L_t − k (δ + h s⁺) − b s⁺, bounded by the cone ‖f_t‖ ≤ μ max(Σf⁺, W_n)
//! on the same solve's normal forces ([`StickGroup`]): over it, the pair slides at
//! the cone's force (rows off, force in the right-hand side). Over a contact
//! transient the cone holds on impulses: a pair may use the cone impulse that its
//! normal force's excess over W_n gave it and it left unused
//! (`penalty::bank_credit`, `StickGroup::extra`).
//!
//! **Modal pairs.** Under `[penalty] distribution = "modal"` a flat pair shares
//! its force by the pair's contact-space inverse mass (`contact::modal`):
//! f = P g over its points, P = (m_r A)⁺, with the end-of-step law per point
//!
//!   g_i = F_i + kv s_i − (h kp + kv) s_i⁺,
//!
//! F_i the un-normalized force of eq. (3) (kp d_i ≤ 0 and no kv s term at a gap
//! point). The pair's stiffness is then (h kp + kv) P, which couples its points:
//! with P = Φ B Bᵀ Φᵀ ([`Modes`]: Φ_i = (1, φ_i − φ̄), B from the three modes of
//! G = ΦᵀΦ and the pair's inverse mass S in that basis) it is
//! (h kp + kv) Σ_m w_m w_mᵀ, w_m = Φ B e_m, so the system takes
//! h (h kp + kv) Σ_m K_mᵀ K_m with K_m = Σ_i w_im J_i: three **mode rows** per pair,
//! each a row of this solve as any other (stiffness c = h kp + kv, damping kv,
//! base Σ_i w_im F_i, rates Σ_i w_im s_i), on every path (one-body blocks, block
//! Cholesky, CG). Their forces λ_m = w_mᵀ g give the points' f = Σ_m w_m λ_m. The
//! pair's point rows carry no stiffness of their own (c = 0, no explicit force)
//! and keep its points for friction and the reports. Unilateral as the share
//! is: after each solve every modal pair's share is taken at the solved δ over
//! all its points, the most pulling point leaving until every share pushes
//! (`contact::modal::distribute_by`); where the set changed its mode rows are
//! rebuilt over the new one (a new system: assembled and factored again) and the
//! pass repeats. A symmetric patch under uniform depth gets 1/r back: its only
//! loaded mode is the translation.
//!
//! The system is symmetric positive definite. By default it is solved directly:
//! a block-sparse Cholesky per island ([`BlockCholesky`]: 6×6 body blocks,
//! minimum-degree ordering cached while the contact graph is unchanged), the blocks
//! with every row on assembled once per step and each active set taking its off
//! rows out. [`LinearSolver::Cg`] (also the fallback of a failed factorization)
//! solves it by conjugate gradients preconditioned with the inverse of its 6×6 diagonal block per body,
//! (M_b + h Σ_i c_i J_ibᵀ J_ib)⁻¹ (block Jacobi), matrix-free (O(points + bodies)
//! per iteration), in buffers sized once (no allocation per tick after warm-up).
//! The contact term carries the supported load (the gains scale with it), so the
//! bottom of a pile is many times stiffer than its top: M⁻¹ alone leaves that spread
//! in the condition number and the iteration count grows with the pile; the block
//! preconditioner takes it out.
//!
//! **The active set's start.** The passes' fixed point does not depend on where
//! they start. With g_i(δ) = f_ex,i + kv_i s_i − c_i (s_i^ex + J_i δ) the force law
//! of row i before its clamp, a set S whose solution δ_S has g_i(δ_S) > 0 exactly
//! on S solves M δ = h Σ_i J_iᵀ (max{g_i(δ), 0} − f_i^applied): the stationary
//! point of Φ(δ) = ½ δᵀ M δ + (h/2) Σ_i max{g_i(δ), 0}² / c_i + h Σ_i f_i^applied J_i δ,
//! strictly convex (M ≻ 0, each max{·, 0}² convex in δ), so that δ is Φ's one
//! minimizer and S = {i : g_i(δ*) > 0} the one set (up to rows with g_i(δ*) = 0
//! exactly, which give the same δ either way). The factorization of a set is made
//! from the blocks with every row on, its off rows taken out in row order (in full
//! or in the affected columns only, `BlockCholesky::refactor_affected`: the same
//! bits), and its right-hand side is a function of the set alone: every start
//! whose passes end on a consistent set ends on the same δ and forces, bit for
//! bit. So the step's first solve starts each row where its pair ended the last
//! step's first solve ([`Row::start`], from `PairState::implicit_on`): a resting
//! pile's set is then right at the first pass (one factorization, one
//! back-substitution) instead of starting from every penetrating point on. A start
//! can change the result only where the passes end at their limit (6) on a set
//! that is not yet consistent, or where a failed factorization hands a pass to
//! conjugate gradients. The modal share's set is its own rule's
//! (`contact::modal::distribute_by`, not a minimizer's): its pairs, and a world
//! with any of them, start as before.

use crate::contact::impulse::ImpulseBody;
use crate::contact::modal::{distribute_by, share_coef, ModalPair, Modes};
use crate::contact::PointForce;
use crate::data::BodyState;
use crate::math::{Mat3, Vec3, Wrench};
use crate::model::Model;
use crate::solver::block_cholesky::{BlockCholesky, M6, V6};

use super::integrator::Deriv;

/// One force-carrying point of a pair solved implicitly.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub a: usize,
    pub b: usize,
    /// The rate points on a and b (world): the point of each body whose velocity
    /// gives the rate of the point's depth, and where the implicit correction acts
    /// (the contact point's [`ContactPoint::lever`](crate::collision::ContactPoint::lever):
    /// the point itself on a flat face, vertex or edge; for a round cap's points its
    /// deepest point, on the line through the centre along the normal), and the unit
    /// normal (toward a).
    pub pa: Vec3,
    pub pb: Vec3,
    pub n: Vec3,
    /// (h kp + kv)/r and kv/r.
    pub c: f64,
    pub kv_r: f64,
    /// The base force of the end-of-step law at the point, N (on a along n): the
    /// explicit force (kp d − kv s + ki I)/r of a penetrating point; kp d/r ≤ 0 of
    /// a gap point (with `kv_r` = 0: f = (kp (d − h s⁺) − kv s⁺)/r).
    pub f_ex: f64,
    /// The part of `f_ex` already in the explicit rates (`f_ex` for a penetrating
    /// point, 0 for a gap point, which applies no explicit force).
    pub applied: f64,
    /// Index of the manifold (for the reported manifold forces) and of the point
    /// in it (for the friction taken on the end-of-step force).
    pub manifold: u32,
    pub point: u32,
    /// A gap point (depth ≤ 0, speculative): no explicit force, active only while
    /// its end-of-step force pushes.
    pub gap: bool,
    /// A tangential row of a sticking pair: the index of its [`StickGroup`]
    /// (`u32::MAX`: a normal row). Its force has either sign and is bounded by the
    /// pair's cone instead of f ≥ 0.
    pub stick: u32,
    /// The force of the row while it is off: 0 for a normal row, the cone's force
    /// along the row for a sticking row that slides in this step.
    pub f_off: f64,
    /// The end-of-step force, N (≥ 0 for a normal row; filled by the solve).
    pub f_end: f64,
    /// The pair's [`ModalGroup`] (`u32::MAX`: none, the 1/r law). A point row
    /// of a modal pair carries no stiffness of its own (c = kv_r = 0, no
    /// explicit force): its force is its share of the group's mode rows, and
    /// `base` is its un-normalized F_i (kp d_i for a gap point).
    pub modal: u32,
    pub base: f64,
    /// A mode row of its group (module doc, "Modal pairs").
    mode: bool,
    /// A sliding point's Coulomb force on a per newton of its normal force
    /// Where the step's first solve starts the row: on or off as the pair's
    /// memory says it ended the last step's first solve
    /// (`PairState::implicit_on`, set by `pipeline::penalty`; module doc,
    /// "The active set's start"), or `None`: the default start (a penetrating
    /// point on, a gap point on if its force at the explicit rates pushes).
    pub start: Option<bool>,
    /// (−μ ŝ, ŝ its slip direction; zero otherwise), and the `f_end` its friction
    /// was taken on: the friction follows the step's last solve
    /// (`pipeline::penalty::slide_follow`).
    pub slide: Vec3,
    /// A patch point's share of the patch's sliding moment about the normal, per
    /// newton (`contact::patch`; zero otherwise).
    pub slide_twist: Vec3,
    pub f_slide: f64,
    // Filled by the solve.
    /// The angular parts of the row's Jacobian on a and b, t = (p − x) × n: the
    /// row's rate is n·v_a + t_a·ω_a − n·v_b − t_b·ω_b, its force λ acts on a as
    /// (λ n, λ t_a). Computed once per step at the solve's setup (the state is
    /// the step's), read by every rate and force of the solves.
    ta: Vec3,
    tb: Vec3,
    s: f64,
    s_ex: f64,
    on: bool,
    /// A normal row's end-of-step force at the δ its active-set check last saw
    /// (every pass checks each normal row after δ is final for it): `finish`
    /// reads it instead of computing the same force again.
    f_check: f64,
}

impl Row {
    /// Whether the row is in the active set (after a solve: at its end).
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// A gap point of depth d ≤ 0 under gains (kp, kv) shared by r points: base
    /// force kp d/r, no explicit force, no kv s term (the law is
    /// f = (kp (d − h s⁺) − kv s⁺)/r).
    pub fn gap(
        (a, b): (usize, usize),
        (pa, pb, n): (Vec3, Vec3, Vec3),
        (kp_r, c): (f64, f64),
        d: f64,
        (manifold, point): (usize, u32),
    ) -> Row {
        let mut row = Row::new(
            (a, b),
            (pa, pb, n),
            (c, 0.0),
            (kp_r * d, 0.0),
            (manifold, point),
        );
        row.gap = true;
        row
    }

    /// A point of a modal pair ([`ModalGroup`]) with un-normalized base force
    /// `base` (F_i, or kp d_i ≤ 0 for a gap point); its group is pushed after
    /// its points ([`ImplicitContact::push_modal`]).
    pub fn modal_point(
        (a, b): (usize, usize),
        (pa, pb, n): (Vec3, Vec3, Vec3),
        (base, gap): (f64, bool),
        (manifold, point): (usize, u32),
    ) -> Row {
        let mut row = Row::new(
            (a, b),
            (pa, pb, n),
            (0.0, 0.0),
            (0.0, 0.0),
            (manifold, point),
        );
        row.base = base;
        row.gap = gap;
        row
    }

    pub fn new(
        (a, b): (usize, usize),
        (pa, pb, n): (Vec3, Vec3, Vec3),
        (c, kv_r): (f64, f64),
        (f_ex, applied): (f64, f64),
        (manifold, point): (usize, u32),
    ) -> Row {
        Row {
            a,
            b,
            pa,
            pb,
            n,
            c,
            kv_r,
            f_ex,
            applied,
            manifold: manifold as u32,
            point,
            gap: false,
            stick: u32::MAX,
            f_off: 0.0,
            f_end: 0.0,
            modal: u32::MAX,
            base: 0.0,
            mode: false,
            start: None,
            slide: Vec3::zeros(),
            slide_twist: Vec3::zeros(),
            f_slide: 0.0,
            ta: Vec3::zeros(),
            tb: Vec3::zeros(),
            s: 0.0,
            s_ex: 0.0,
            on: true,
            f_check: 0.0,
        }
    }
}

/// The two tangential rows of a sticking pair and its cone
/// ‖f_t‖ ≤ μ max(Σf⁺, W_n), Σf⁺ the end-of-step force of the pair's normal rows
/// (`normals`, a range of `rows`). Over the cone, the pair slides in this step at
/// the cone's force in the direction `dir` of its sticking force (both rows off,
/// their force `f_off`), and that force follows the cone as the normal forces
/// change. `dir` is kept once set (a sliding force rescaled by its own norm
/// would be 0/0 when the cone is 0).
#[derive(Clone, Copy, Debug)]
pub struct StickGroup {
    /// Index of the first of its two rows (the second follows).
    pub first: u32,
    pub normals: (u32, u32),
    pub mu: f64,
    pub w_n: f64,
    /// The pair's banked cone impulse as a force this step (C/h,
    /// `penalty::bank_credit`): the cone is μ max(Σf⁺, W_n) + extra, N.
    pub extra: f64,
    /// Index of the pair in `Data::pairs` (its anchor keeps the bank).
    pub pair: u32,
    /// The largest bank the pair keeps (`contact::friction::bank_cap`), N·s.
    pub cap: f64,
    dir: [f64; 2],
    sliding: bool,
}

impl StickGroup {
    pub fn new(first: usize, normals: (usize, usize), mu: f64, w_n: f64) -> Self {
        StickGroup {
            first: first as u32,
            normals: (normals.0 as u32, normals.1 as u32),
            mu,
            w_n,
            extra: 0.0,
            pair: u32::MAX,
            cap: 0.0,
            dir: [0.0, 0.0],
            sliding: false,
        }
    }
}

/// A pair whose points share the force by mode (`[penalty] distribution =
/// "modal"` on a flat pair, module doc "Modal pairs"): its point rows
/// `start..end` (contiguous) and its three mode rows from `modes` (appended at
/// the first solve of the step, after every point row).
#[derive(Clone, Copy, Debug)]
pub struct ModalGroup {
    pub start: u32,
    pub end: u32,
    modes: u32,
    /// h kp + kv, and kv (0 for a gap manifold: its law has no kv s term).
    pub c: f64,
    pub kv: f64,
    pub m_reduced: f64,
    /// The modes its mode rows were last built over ([`ImplicitContact::build_modes`]).
    share: Modes,
}

/// A 6-vector of one body: (linear, angular).
type Six = [Vec3; 2];
const ZERO6: Six = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.0, 0.0, 0.0)];

/// How the implicit system is solved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LinearSolver {
    /// Block-sparse Cholesky per island ([`BlockCholesky`]), the default.
    #[default]
    Direct,
    /// Block-Jacobi preconditioned conjugate gradients, to a relative residual of
    /// 1e-12.
    Cg,
    /// The block-sparse Cholesky of the whole system even where every island is
    /// one body (`Direct` then solves each body's 6×6 block on its own, to the
    /// same bits): the reference of that path in the tests.
    Block,
}

/// Buffers and statistics of the implicit solve.
#[derive(Clone, Debug, Default)]
pub struct ImplicitContact {
    pub rows: Vec<Row>,
    /// The sticking pairs' cones (their rows are in `rows`).
    pub sticks: Vec<StickGroup>,
    /// The modal pairs ([`ModalGroup`]), where the first of their mode rows is
    /// (`None`: not appended yet this step), and the share's scratch.
    pub modal: Vec<ModalGroup>,
    modes_at: Option<usize>,
    modal_pf: Vec<PointForce>,
    /// The default path's sticking anchors, linearly implicit and solved where
    /// they share bodies (`contact::friction::LinearSticks`).
    pub linear: crate::contact::friction::LinearSticks,
    /// The tangential loads of contacts that hold a body up together
    /// (`contact::support::NormalSplit`, with `linear`).
    pub split: crate::contact::support::NormalSplit,
    /// Per manifold of the step: the pair's weight share
    /// (`SupportLoads::pair_weight`) where `penalty::implicit_friction`'s split
    /// computed it (`None` elsewhere), read again by its friction.
    pub pair_weights: Vec<Option<Vec3>>,
    /// The step's sticking pairs (anchor set) with no force-carrying point at the
    /// first normal solve, on the default path: (manifold, first row, end row)
    /// (`penalty::late_friction`), and how many of them the later solve closed
    /// (they got their friction then).
    pub late: Vec<[u32; 3]>,
    pub late_pairs: usize,
    /// The blocks served from the state's kept blocks (`Data::rest_blocks`,
    /// `[penalty] rest_tol`) at the last step.
    pub kept_served: usize,
    /// Per slot of `Data::rest_blocks`: whether a pair names it (the step's
    /// sweep of the slots no pair holds), and the first slot a new kept
    /// block may take this step.
    pub kept_live: Vec<bool>,
    pub kept_cursor: usize,
    pub solver: LinearSolver,
    /// The direct solve: the factorization, the local index of each body in it
    /// (participating bodies only), the bodies by local index, the edge list of
    /// the contact graph, each row's edge (u32::MAX: one body only), and the active
    /// set the current factorization was assembled for (`factored`: valid for the
    /// rows and state of this step).
    chol: BlockCholesky,
    local: Vec<u32>,
    global: Vec<u32>,
    edges: Vec<(u32, u32)>,
    row_edge: Vec<u32>,
    factored_on: Vec<bool>,
    factored: bool,
    /// The blocks with every row on are saved in `chol` for this step, for the
    /// first `assembled_rows` rows.
    assembled: bool,
    assembled_rows: usize,
    rhs: Vec<V6>,
    /// Whether a body is an unknown of the system (moves and carries a row).
    part: Vec<bool>,
    inertia_w: Vec<Mat3>,
    /// Inverses of the linear and angular diagonal blocks of the system per body
    /// (the preconditioner).
    block_inv: Vec<[Mat3; 2]>,
    x: Vec<Six>,
    r: Vec<Six>,
    z: Vec<Six>,
    d: Vec<Six>,
    ad: Vec<Six>,
    /// δ of the last solve: the start of the next one in the same step
    /// ([`Self::solve`]'s `warm`).
    warm: Vec<Six>,
    /// Islands of one body ([`Self::solve_single`]): each participating body's
    /// rows (indices into `rows`, in row order) from `single_at[b]` to
    /// `single_at[b + 1]`, its factor L⁻¹ (`single_linv`), the active set of the
    /// rows when it was factored (`factored_on`), and whether those are valid for
    /// the rows and state of this step (`single_factored`). `single_saved`: the
    /// rows' active set at the start of the solve (restored if a factorization
    /// fails and the general path takes over).
    single_at: Vec<u32>,
    single_rows: Vec<u32>,
    single_linv: Vec<M6>,
    single_saved: Vec<bool>,
    single_factored: bool,
    /// The row count of the last solve's setup (participating bodies, world
    /// inertias, start rates J v, [`Self::single_pattern`]) and the pattern's
    /// result once computed: a warm solve on as many rows reuses them (`None`:
    /// no setup yet, or the pattern not computed since).
    setup_rows: Option<usize>,
    setup_single: Option<bool>,
    /// The row count of the setup [`Self::analyze`] last ran on (`None`: not
    /// since the last setup): a warm solve on it keeps that analysis.
    analyzed: Option<usize>,
    /// CG iterations of the solves since the caller last reset it (all active-set
    /// passes).
    pub iterations: usize,
}

/// The rate n·v + t·ω of a row's end with angular part `t` under the 6-vector
/// `u` = (v, ω): n·(v + ω × (p − x)) with t = (p − x) × n, the cross product
/// taken once per step instead of at every rate.
#[inline]
fn end_rate(n: &Vec3, t: &Vec3, u: &Six) -> f64 {
    n.dot(&u[0]) + t.dot(&u[1])
}

#[inline]
fn dot6(a: &[Six], b: &[Six]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(a, b)| a[0].dot(&b[0]) + a[1].dot(&b[1]))
        .sum()
}

/// L⁻¹ of the lower triangle of `l` (its strict upper part is not read), by
/// forward substitution on each column of the identity: the operations of
/// nalgebra's `l.solve_lower_triangular(&M6::identity())`, in its order —
/// per column, x_i = b_i / L_ii, then b_j ← (−x_i) L_ji + b_j for j > i (its
/// `axpy` with β = 1, and 1·b_j = b_j exactly) — so the same bits, without the
/// generic path's copies of the factor and of the identity. `None` if a
/// diagonal entry is zero (as nalgebra, which meets every diagonal entry in
/// the first column).
///
/// Column c starts at row c: above it, b_i is the identity's +0 and stays +0
/// through nalgebra's passes (x_i = +0 / L_ii = +0 for L_ii > 0, a Cholesky
/// factor's; then (−(+0)) L_ji + (+0) = +0 whatever the finite L_ji's sign), so
/// those passes change nothing and are skipped: 35 of the 90 updates and 21 of
/// the 36 divisions are left, the result bit for bit nalgebra's.
// The update is written as nalgebra's `axpy` computes it, a x + y.
#[allow(clippy::assign_op_pattern)]
#[inline]
fn lower_inverse(l: &M6) -> Option<M6> {
    if (0..6).any(|i| l[(i, i)] == 0.0) {
        return None;
    }
    let mut x = M6::identity();
    for c in 0..6 {
        for i in c..6 {
            let coeff = x[(i, c)] / l[(i, i)];
            x[(i, c)] = coeff;
            for j in i + 1..6 {
                x[(j, c)] = -coeff * l[(j, i)] + x[(j, c)];
            }
        }
    }
    Some(x)
}

/// x = L⁻ᵀ (L⁻¹ v) for a lower-triangular `linv` = L⁻¹ (zero above its
/// diagonal, as [`lower_inverse`] leaves it): nalgebra's `linv * v` and
/// `linv.tr_mul(&z)` to the bit, on the triangle only. `linv * v` is gemv:
/// z_i = L_i0 v_0, then z_i ← L_ij v_j + z_i for j = 1..5 in order; a term
/// j > i is ±0 and leaves z_i unchanged unless z_i is −0 (then the sum is +0
/// for a +0 term), so those terms are added only when z_i = 0. `tr_mul` is a
/// dot product per column, res = 0, res += L_ki z_k for k = 0..5: the terms
/// k < i are ±0 and leave the starting +0 unchanged, so the sum starts at k = i
/// from +0.
#[allow(clippy::assign_op_pattern)]
#[inline]
fn lower_solve(linv: &M6, v: &V6) -> V6 {
    let mut z = V6::zeros();
    for i in 0..6 {
        let mut s = linv[(i, 0)] * v[0];
        for j in 1..=i {
            s = linv[(i, j)] * v[j] + s;
        }
        if s == 0.0 {
            for j in i + 1..6 {
                s = linv[(i, j)] * v[j] + s;
            }
        }
        z[i] = s;
    }
    let mut x = V6::zeros();
    for i in 0..6 {
        let mut s = 0.0;
        for k in i..6 {
            s += linv[(k, i)] * z[k];
        }
        x[i] = s;
    }
    x
}

// Loops over body indices read several parallel per-body arrays at once.
#[allow(clippy::needless_range_loop)]
impl ImplicitContact {
    pub fn new(nbody: usize) -> Self {
        ImplicitContact {
            rows: Vec::new(),
            sticks: Vec::new(),
            modal: Vec::new(),
            modes_at: None,
            modal_pf: Vec::new(),
            linear: Default::default(),
            split: Default::default(),
            pair_weights: Vec::new(),
            late: Vec::new(),
            late_pairs: 0,
            kept_served: 0,
            kept_live: Vec::new(),
            kept_cursor: 0,
            solver: LinearSolver::Direct,
            chol: BlockCholesky::with_capacity(nbody),
            local: vec![u32::MAX; nbody],
            global: Vec::with_capacity(nbody),
            edges: Vec::with_capacity(4 * nbody),
            row_edge: Vec::new(),
            factored_on: Vec::new(),
            factored: false,
            assembled: false,
            assembled_rows: 0,
            rhs: Vec::with_capacity(nbody),
            part: vec![false; nbody],
            inertia_w: vec![Mat3::zeros(); nbody],
            block_inv: vec![[Mat3::zeros(); 2]; nbody],
            x: vec![ZERO6; nbody],
            r: vec![ZERO6; nbody],
            z: vec![ZERO6; nbody],
            d: vec![ZERO6; nbody],
            ad: vec![ZERO6; nbody],
            warm: vec![ZERO6; nbody],
            single_at: Vec::with_capacity(nbody + 1),
            single_rows: Vec::new(),
            single_linv: vec![M6::zeros(); nbody],
            single_saved: Vec::new(),
            single_factored: false,
            setup_rows: None,
            setup_single: None,
            analyzed: None,
            iterations: 0,
        }
    }

    /// Empties the step's rows, sticking groups and modal pairs.
    pub fn clear_rows(&mut self) {
        self.rows.clear();
        self.sticks.clear();
        self.modal.clear();
        self.modes_at = None;
    }

    /// The rows of the contact points (normal and gap rows, the modal pairs'
    /// point rows), in manifold order: the rows before the mode rows and the
    /// sticking rows.
    pub fn normal_rows(&self) -> usize {
        self.modes_at.unwrap_or(self.rows.len())
    }

    /// Makes the point rows from `start` to the end a modal pair with stiffness
    /// c = h kp + kv, damping `kv` (0 for a gap manifold) and reduced mass
    /// `m_reduced` (module doc, "Modal pairs").
    pub fn push_modal(&mut self, start: usize, (c, kv): (f64, f64), m_reduced: f64) {
        let g = self.modal.len() as u32;
        for row in &mut self.rows[start..] {
            row.modal = g;
        }
        if self.modal.capacity() == self.modal.len() {
            // As the rows: sized by the contact set the caller reserves for.
            self.modal.reserve(self.rows.capacity().max(1));
        }
        self.modal.push(ModalGroup {
            start: start as u32,
            end: self.rows.len() as u32,
            modes: u32::MAX,
            c,
            kv,
            m_reduced,
            share: Modes {
                n: Vec3::zeros(),
                e: (Vec3::zeros(), Vec3::zeros()),
                mean: (0.0, 0.0),
                b: Mat3::zeros(),
                dim: 0,
            },
        });
    }

    /// The share's view of modal pair `g` at `state`.
    fn modal_pair(&self, g: usize, state: &[BodyState], bodies: &[ImpulseBody]) -> ModalPair {
        let grp = &self.modal[g];
        let r = &self.rows[grp.start as usize];
        ModalPair {
            normal: r.n,
            inv_mass: [bodies[r.a].inv_mass, bodies[r.b].inv_mass],
            inv_inertia_w: [bodies[r.a].inv_inertia_w, bodies[r.b].inv_inertia_w],
            x: [state[r.a].x, state[r.b].x],
            m_reduced: grp.m_reduced,
        }
    }

    /// At the step's solves: the mode rows appended (first solve), each modal
    /// pair's active set at the explicit rates (first solve; a warm solve keeps
    /// the last one) and its mode rows built from its points' rates.
    fn modal_start(&mut self, state: &[BodyState], bodies: &[ImpulseBody], warm: bool) {
        if self.modes_at.is_none() {
            self.modes_at = Some(self.rows.len());
            for g in 0..self.modal.len() {
                let first = self.rows[self.modal[g].start as usize];
                self.modal[g].modes = self.rows.len() as u32;
                let mut row = Row::new(
                    (first.a, first.b),
                    (first.pa, first.pb, first.n),
                    (0.0, 0.0),
                    (0.0, 0.0),
                    (first.manifold as usize, u32::MAX),
                );
                row.modal = g as u32;
                row.mode = true;
                for _ in 0..3 {
                    self.rows.push(row);
                }
            }
        }
        for g in 0..self.modal.len() {
            if !warm {
                self.modal_share(g, state, bodies, false);
            }
            self.build_modes(g, state, bodies);
        }
    }

    /// Modal pair `g`'s unilateral share at the current δ (`at_delta`; else at
    /// δ = 0, the explicit rates): g_i = F_i + kv s_i − (h kp + kv) s_i⁺ at
    /// each point, f = (m_r A)⁺ g over the points whose shares push
    /// (`contact::modal::distribute_by`). Sets the point rows' active set and
    /// `f_check`; true if the set changed.
    fn modal_share(
        &mut self,
        g: usize,
        state: &[BodyState],
        bodies: &[ImpulseBody],
        at_delta: bool,
    ) -> bool {
        let grp = self.modal[g];
        let (r0, r1) = (grp.start as usize, grp.end as usize);
        let mut pf = std::mem::take(&mut self.modal_pf);
        pf.clear();
        if pf.capacity() < self.rows.capacity() {
            pf.reserve(self.rows.capacity());
        }
        for i in r0..r1 {
            let r = &self.rows[i];
            let s_end = if at_delta {
                r.s_ex + self.j(r, &self.x)
            } else {
                r.s_ex
            };
            pf.push(PointForce {
                point: i as u32,
                f_n: r.base + grp.kv * r.s - grp.c * s_end,
            });
        }
        let rows = &self.rows;
        let lever = |i: u32| rows[i as usize].pa;
        if at_delta && rows[r0..r1].iter().all(|r| r.on) {
            // Every point in the set: the share's first pass from all of them
            // is over the modes the mode rows were built on (the same points,
            // in the same order) — if every share pushes, the set stays, to
            // the bit what `distribute_by` gives, without its modes again.
            let coef = share_coef(&grp.share, &lever, &pf);
            let f = |p: &PointForce| grp.share.phi(&lever(p.point), &grp.share.n).dot(&coef);
            if pf.iter().all(|p| f(p) >= 0.0) {
                for p in pf.iter_mut() {
                    p.f_n = f(p);
                }
                for p in &pf {
                    self.rows[p.point as usize].f_check = p.f_n;
                }
                self.modal_pf = pf;
                return false;
            }
        }
        let pair = self.modal_pair(g, state, bodies);
        let (k, _) = distribute_by(&pair, lever, &mut pf);
        let mut changed = false;
        for i in r0..r1 {
            let f = pf[..k]
                .iter()
                .find(|p| p.point as usize == i)
                .map(|p| p.f_n);
            let row = &mut self.rows[i];
            changed |= row.on != f.is_some();
            row.on = f.is_some();
            row.f_check = f.unwrap_or(0.0);
        }
        self.modal_pf = pf;
        changed
    }

    /// [`Self::modal_share`] at the current δ; where the set changed, the
    /// pair's mode rows are rebuilt over the new one.
    fn modal_check(&mut self, g: usize, state: &[BodyState], bodies: &[ImpulseBody]) -> bool {
        let changed = self.modal_share(g, state, bodies, true);
        if changed {
            self.build_modes(g, state, bodies);
        }
        changed
    }

    /// Modal pair `g`'s three mode rows over its active points (in row order):
    /// with (m_r A)⁺ = Φ B Bᵀ Φᵀ and w_m = Φ B e_m, mode row m is
    /// J_m = Σ_i w_im J_i with f_ex = Σ_i w_im F_i, s = Σ_i w_im s_i (the same
    /// for s^ex), stiffness c = h kp + kv and damping kv: its force λ_m =
    /// w_mᵀ (F + kv s − c s⁺), and the points' f = Σ_m w_m λ_m = (m_r A)⁺ g.
    /// Modes past the set's rank are off (force 0).
    fn build_modes(&mut self, g: usize, state: &[BodyState], bodies: &[ImpulseBody]) {
        let grp = self.modal[g];
        let (r0, r1) = (grp.start as usize, grp.end as usize);
        let pair = self.modal_pair(g, state, bodies);
        let n = pair.normal;
        let points = &self.rows[r0..r1];
        let modes = Modes::of(&pair, points.iter().filter(|r| r.on).map(|r| r.pa));
        self.modal[g].share = modes;
        let first = grp.modes as usize;
        for m in 0..3 {
            let u: Vec3 = modes.b.column(m).into_owned();
            let (mut w_sum, mut ta, mut tb) = (0.0, Vec3::zeros(), Vec3::zeros());
            let (mut s, mut s_ex, mut f) = (0.0, 0.0, 0.0);
            if m < modes.dim {
                for r in self.rows[r0..r1].iter().filter(|r| r.on) {
                    let w = modes.phi(&r.pa, &n).dot(&u);
                    w_sum += w;
                    ta += r.ta * w;
                    tb += r.tb * w;
                    s += w * r.s;
                    s_ex += w * r.s_ex;
                    f += w * r.base;
                }
            }
            let row = &mut self.rows[first + m];
            row.n = n * w_sum;
            row.ta = ta;
            row.tb = tb;
            row.s = s;
            row.s_ex = s_ex;
            row.f_ex = f;
            row.c = grp.c;
            row.kv_r = grp.kv;
            row.on = m < modes.dim;
            row.f_off = 0.0;
            row.f_check = 0.0;
        }
    }

    /// J_i u: separating normal rate of row i under the body 6-vectors `u`.
    #[inline(always)]
    fn j(&self, row: &Row, u: &[Six]) -> f64 {
        let mut s = 0.0;
        if self.part[row.a] {
            s += end_rate(&row.n, &row.ta, &u[row.a]);
        }
        if self.part[row.b] {
            s -= end_rate(&row.n, &row.tb, &u[row.b]);
        }
        s
    }

    /// out += J_iᵀ λ.
    #[inline(always)]
    fn jt(part: &[bool], row: &Row, lambda: f64, out: &mut [Six]) {
        let f = row.n * lambda;
        if part[row.a] {
            out[row.a][0] += f;
            out[row.a][1] += row.ta * lambda;
        }
        if part[row.b] {
            out[row.b][0] -= f;
            out[row.b][1] -= row.tb * lambda;
        }
    }

    /// Corrects the explicit rates `k` (from [`super::bodies::derivatives`] with the
    /// rows' explicit forces) to the implicit force and fills the rows' end-of-step
    /// forces `f_end` ([`Self::report`] adds them to the reported wrenches).
    /// `bodies`: mass properties at `state`. `warm`: start from the δ of the last
    /// solve (the same rows in the same step: the solve again with friction's
    /// wrench in the rates).
    pub fn solve(
        &mut self,
        model: &Model,
        h: f64,
        state: &[BodyState],
        bodies: &[ImpulseBody],
        (k, warm): (&mut [Deriv], bool),
    ) {
        if self.rows.is_empty() {
            return;
        }
        let nb = state.len();
        // A warm solve has the rows and state of the last solve of this step (the
        // caller's contract): the participating bodies, their world inertias, the
        // rows' start rates J v and the one-body pattern are those it computed,
        // from the same inputs — kept unless rows were added since.
        let setup = !(warm && self.setup_rows == Some(self.rows.len()));
        if setup {
            self.part.iter_mut().for_each(|p| *p = false);
            for row in &self.rows {
                for b in [row.a, row.b] {
                    if bodies[b].inv_mass > 0.0 && !model.bodies[b].is_link() {
                        self.part[b] = true;
                    }
                }
            }
            for b in 0..nb {
                if self.part[b] {
                    let rm = state[b].q.to_rotation_matrix();
                    let rm = rm.matrix();
                    self.inertia_w[b] = rm * model.bodies[b].inertia * rm.transpose();
                }
            }
        }
        // Velocities at the start (x) and after the explicit update (r, scratch).
        for b in 0..nb {
            self.x[b] = [state[b].v, state[b].w];
            self.r[b] = if self.part[b] {
                [state[b].v + k[b].dv * h, state[b].w + k[b].dw * h]
            } else {
                [state[b].v, state[b].w]
            };
        }
        // J v and J v^ex at each row (all bodies' velocities: a moving static body
        // still moves the contact).
        for row in self.rows.iter_mut() {
            if row.mode {
                // Built from its points' rates ([`Self::modal_start`]).
                continue;
            }
            let (a, b) = (row.a, row.b);
            if setup {
                row.ta = (row.pa - state[a].x).cross(&row.n);
                row.tb = (row.pb - state[b].x).cross(&row.n);
                row.s =
                    end_rate(&row.n, &row.ta, &self.x[a]) - end_rate(&row.n, &row.tb, &self.x[b]);
            }
            row.s_ex =
                end_rate(&row.n, &row.ta, &self.r[a]) - end_rate(&row.n, &row.tb, &self.r[b]);
            // A row starts where its pair's memory says it ended the last
            // step's first solve; without memory a gap point starts active
            // only if its end-of-step force at the explicit velocities pushes
            // (penetrating points all start active). The solve again with
            // friction starts from the last active set.
            if !warm {
                row.on = match row.start {
                    Some(on) => on,
                    None => !row.gap || row.f_ex + row.kv_r * row.s - row.c * row.s_ex > 0.0,
                };
            }
        }
        if !self.modal.is_empty() {
            self.modal_start(state, bodies, warm);
        }
        // Every island one body (a box on the floor): each body's 6×6 system on
        // its own, the same arithmetic as the block factorization's.
        if setup {
            self.setup_single = None;
            self.analyzed = None;
        }
        self.setup_rows = Some(self.rows.len());
        let pattern = self.solver == LinearSolver::Direct
            && self.sticks.is_empty()
            && match self.setup_single {
                Some(p) => p,
                None => {
                    let p = self.single_pattern(nb);
                    self.setup_single = Some(p);
                    p
                }
            };
        let single = pattern && self.solve_single(state, bodies, h, warm);
        if single {
            self.finish(state, h, k);
            return;
        }
        self.single_factored = false;
        // A warm solve on the last setup's rows, after a solve that analyzed
        // them: the same participating bodies and rows give the same local
        // indices, edges and analysis (`BlockCholesky::analyze` would find its
        // pattern unchanged), so the last analysis stands.
        let direct = self.solver != LinearSolver::Cg
            && if !setup && self.analyzed == Some(self.rows.len()) {
                !self.global.is_empty()
            } else {
                self.analyze(warm)
            };
        if self.assembled && self.assembled_rows != self.rows.len() {
            // Rows were added since the blocks were saved (the sticking rows of
            // the solve with friction): assemble again.
            self.assembled = false;
            self.factored = false;
        }
        if !direct {
            self.factor_blocks(state, bodies, h);
        }
        let max_iter = (12 * self.part.iter().filter(|&&p| p).count()).clamp(24, 600);
        if warm {
            self.x.copy_from_slice(&self.warm);
        }
        for pass in 0..6 {
            if !(direct && self.direct(bodies, h)) {
                if direct {
                    // A pivot block not positive definite (round-off on a
                    // degenerate system): conjugate gradients for this pass.
                    self.factor_blocks(state, bodies, h);
                }
                self.cg(state, bodies, h, (max_iter, warm || pass > 0));
            }
            // End-of-step forces; drop pulling points, restore pushing ones.
            let mut changed = false;
            for i in 0..self.rows.len() {
                let row = &self.rows[i];
                if row.stick != u32::MAX || row.modal != u32::MAX {
                    continue;
                }
                let f = self.force(row);
                let on = f > 0.0;
                changed |= on != row.on;
                self.rows[i].on = on;
                self.rows[i].f_check = f;
            }
            let mut moved = false;
            for g in 0..self.modal.len() {
                moved |= self.modal_check(g, state, bodies);
            }
            if moved {
                // The mode rows' Jacobians changed: the saved blocks and the
                // factorization are not this system's.
                self.factored = false;
                self.assembled = false;
                changed = true;
            }
            changed |= self.cones();
            if !changed {
                break;
            }
        }
        self.finish(state, h, k);
    }

    /// After the last pass: δ kept for a warm start, the corrected rates and the
    /// rows' end-of-step forces.
    fn finish(&mut self, state: &[BodyState], h: f64, k: &mut [Deriv]) {
        self.warm.copy_from_slice(&self.x);
        // The corrected rates, wrenches and manifold forces.
        for b in 0..state.len() {
            if self.part[b] {
                k[b].dv += self.x[b][0] / h;
                k[b].dw += self.x[b][1] / h;
            }
        }
        for i in 0..self.rows.len() {
            let row = &self.rows[i];
            let f_end = match (row.on, row.stick != u32::MAX) {
                // A mode row's force is its points' (module doc, "Modal pairs").
                _ if row.mode => 0.0,
                (true, true) => self.force(row),
                // The same force at the same δ as the last check (on: > 0).
                (true, false) => row.f_check.max(0.0),
                (false, _) => row.f_off,
            };
            self.rows[i].f_end = f_end;
        }
    }

    /// Whether every participating body is an island of its own (no row joins two
    /// participating bodies); if so, each body's rows in row order
    /// (`single_at`/`single_rows`; rows with no participating body are skipped).
    fn single_pattern(&mut self, nb: usize) -> bool {
        if !self.part.iter().any(|&p| p) {
            return false;
        }
        self.single_at.clear();
        self.single_at.resize(nb + 1, 0);
        for row in &self.rows {
            match (self.part[row.a], self.part[row.b]) {
                (true, true) => return false,
                (true, false) => self.single_at[row.a + 1] += 1,
                (false, true) => self.single_at[row.b + 1] += 1,
                (false, false) => {}
            }
        }
        for b in 0..nb {
            self.single_at[b + 1] += self.single_at[b];
        }
        let cap = self.rows.capacity();
        if self.single_rows.capacity() < cap {
            self.single_rows.reserve(cap);
            self.single_saved.reserve(cap);
            self.factored_on.reserve(cap);
        }
        self.single_rows.clear();
        self.single_rows.resize(self.rows.len(), 0);
        // Fill with `single_at[b]` as body b's cursor, then shift the cursors
        // (each now at the next body's start) back by one body.
        for (i, row) in self.rows.iter().enumerate() {
            let b = if self.part[row.a] {
                row.a
            } else if self.part[row.b] {
                row.b
            } else {
                continue;
            };
            self.single_rows[self.single_at[b] as usize] = i as u32;
            self.single_at[b] += 1;
        }
        for b in (0..nb).rev() {
            self.single_at[b + 1] = self.single_at[b];
        }
        self.single_at[0] = 0;
        true
    }

    /// The system of islands of one body ([`Self::single_pattern`]): per body,
    /// the active-set passes on its 6×6 block alone. The same arithmetic, in the
    /// same order, as the block factorization's passes over the whole system (a
    /// body's block, right-hand side and solution do not depend on another's, and
    /// a global pass re-solves an unchanged body to the same δ), so the results
    /// are those bit for bit; `iterations` counts the passes of the body that
    /// took most (the whole system's passes). With `warm`, a body whose active
    /// set is the one it was factored for keeps its factor. False (the rows'
    /// active set restored) if a block is not positive definite: the general
    /// path then solves.
    fn solve_single(
        &mut self,
        state: &[BodyState],
        bodies: &[ImpulseBody],
        h: f64,
        warm: bool,
    ) -> bool {
        let reuse = warm && self.single_factored && self.factored_on.len() == self.rows.len();
        self.single_saved.clear();
        self.single_saved.extend(self.rows.iter().map(|r| r.on));
        self.x.iter_mut().for_each(|x| *x = ZERO6);
        // Rows on no participating body: no unknown, their force is that of the
        // explicit rates; a flip in the first pass costs the system a second.
        let mut passes = 1;
        for i in 0..self.rows.len() {
            let row = &self.rows[i];
            if !self.part[row.a]
                && !self.part[row.b]
                && row.stick == u32::MAX
                && row.modal == u32::MAX
            {
                let f = self.force(row);
                let on = f > 0.0;
                if on != row.on {
                    passes = 2;
                }
                self.rows[i].on = on;
                self.rows[i].f_check = f;
            }
        }
        if !reuse {
            self.factored_on.clear();
            self.factored_on.resize(self.rows.len(), false);
        }
        for b in 0..state.len() {
            if !self.part[b] {
                continue;
            }
            let (r0, r1) = (self.single_at[b] as usize, self.single_at[b + 1] as usize);
            let mut factored = reuse
                && self.single_rows[r0..r1].iter().all(|&i| {
                    let i = i as usize;
                    self.rows[i].on == self.factored_on[i]
                });
            for pass in 0..6 {
                if !factored {
                    let Some(linv) = self.single_factor(bodies, h, b) else {
                        for (row, &on) in self.rows.iter_mut().zip(&self.single_saved) {
                            row.on = on;
                        }
                        for g in 0..self.modal.len() {
                            self.build_modes(g, state, bodies);
                        }
                        self.single_factored = false;
                        return false;
                    };
                    self.single_linv[b] = linv;
                    for &i in &self.single_rows[r0..r1] {
                        self.factored_on[i as usize] = self.rows[i as usize].on;
                    }
                }
                // b = h Σ_on J_iᵀ (kv/r s_i − c_i s_i^ex) + h Σ_off J_iᵀ (f_i^off − f_i^ex)
                // on this body ([`Self::rhs_into_r`]), then L⁻ᵀ L⁻¹ b.
                let mut r = ZERO6;
                for &i in &self.single_rows[r0..r1] {
                    let row = &self.rows[i as usize];
                    let lambda = if row.on {
                        h * ((row.f_ex - row.applied) + row.kv_r * row.s - row.c * row.s_ex)
                    } else {
                        h * (row.f_off - row.applied)
                    };
                    Self::jt_one(row, lambda, b, &mut r);
                }
                let v = V6::new(r[0].x, r[0].y, r[0].z, r[1].x, r[1].y, r[1].z);
                let x = lower_solve(&self.single_linv[b], &v);
                self.x[b] = [Vec3::new(x[0], x[1], x[2]), Vec3::new(x[3], x[4], x[5])];
                passes = passes.max(pass + 1);
                factored = false;
                let mut changed = false;
                for &i in &self.single_rows[r0..r1] {
                    let i = i as usize;
                    let row = &self.rows[i];
                    if row.modal != u32::MAX {
                        continue;
                    }
                    let f = self.force(row);
                    let on = f > 0.0;
                    changed |= on != row.on;
                    self.rows[i].on = on;
                    self.rows[i].f_check = f;
                }
                // This body's modal pairs, once each (at their first mode row).
                for k in r0..r1 {
                    let i = self.single_rows[k] as usize;
                    let row = &self.rows[i];
                    if row.mode && self.modal[row.modal as usize].modes as usize == i {
                        changed |= self.modal_check(row.modal as usize, state, bodies);
                    }
                }
                if !changed {
                    break;
                }
            }
        }
        self.iterations += passes;
        self.single_factored = true;
        self.factored = false;
        self.assembled = false;
        true
    }

    /// L⁻¹ of body b's block M_b + h Σ_on c_i g_i g_iᵀ, assembled as
    /// [`Self::assemble`] does (the mass, every row on, then the off rows taken
    /// out) and factored as [`BlockCholesky::factor`] does.
    fn single_factor(&self, bodies: &[ImpulseBody], h: f64, b: usize) -> Option<M6> {
        let (r0, r1) = (self.single_at[b] as usize, self.single_at[b + 1] as usize);
        let mut m = M6::zeros();
        let mass = 1.0 / bodies[b].inv_mass;
        for c in 0..3 {
            m[(c, c)] = mass;
        }
        m.fixed_view_mut::<3, 3>(3, 3).copy_from(&self.inertia_w[b]);
        let mut a = M6::zeros();
        a += m;
        for sign in [1.0, -1.0] {
            for &i in &self.single_rows[r0..r1] {
                let row = &self.rows[i as usize];
                if sign < 0.0 && row.on {
                    continue;
                }
                let t = if row.a == b { row.ta } else { row.tb };
                let g = [row.n.x, row.n.y, row.n.z, t.x, t.y, t.z];
                let w = sign * h * row.c;
                // `a += g gᵀ w` elementwise, a_ij + (g_i g_j) w, on the lower
                // triangle only: all the Cholesky factorization reads.
                for j in 0..6 {
                    for i in j..6 {
                        a[(i, j)] += (g[i] * g[j]) * w;
                    }
                }
            }
        }
        let ch = a.cholesky()?;
        lower_inverse(ch.l_dirty())
    }

    /// out += body `b`'s part of J_iᵀ λ ([`Self::jt`] for the one participating
    /// end of row i).
    #[inline]
    fn jt_one(row: &Row, lambda: f64, b: usize, out: &mut Six) {
        let f = row.n * lambda;
        if row.a == b {
            out[0] += f;
            out[1] += row.ta * lambda;
        } else {
            out[0] -= f;
            out[1] -= row.tb * lambda;
        }
    }

    /// The end-of-step force of an active row at the current δ (`self.x`).
    /// Inlined everywhere: ≈ 45 instructions of arithmetic, called for every row
    /// at every active-set check (a call cost ≈ 12 more, callgrind, scale11).
    #[inline(always)]
    fn force(&self, row: &Row) -> f64 {
        row.f_ex + row.kv_r * row.s - row.c * (row.s_ex + self.j(row, &self.x))
    }

    /// The sticking pairs' cones on the current solve: a sticking pair over
    /// μ max(Σf⁺, W_n) slides at the cone's force in its direction (rows off); a
    /// sliding one follows the cone as Σf⁺ changes. True if a row's state or a
    /// sliding force changed (solve again).
    fn cones(&mut self) -> bool {
        let mut changed = false;
        for g in 0..self.sticks.len() {
            let grp = self.sticks[g];
            let (n0, n1) = (grp.normals.0 as usize, grp.normals.1 as usize);
            let total: f64 = self.rows[n0..n1]
                .iter()
                .filter(|r| r.on)
                .map(|r| {
                    if r.modal != u32::MAX {
                        r.f_check.max(0.0)
                    } else {
                        self.force(r).max(0.0)
                    }
                })
                .sum();
            let limit = grp.mu * total.max(grp.w_n) + grp.extra;
            let i = grp.first as usize;
            if !grp.sliding {
                let f = [self.force(&self.rows[i]), self.force(&self.rows[i + 1])];
                let norm = f[0].hypot(f[1]);
                if norm <= limit {
                    continue;
                }
                // norm > limit ≥ 0: the direction is defined.
                self.sticks[g].dir = [f[0] / norm, f[1] / norm];
                self.sticks[g].sliding = true;
                self.rows[i].on = false;
                self.rows[i + 1].on = false;
                changed = true;
            }
            // A sliding force that moved with the normal forces by more than 1e-6 of
            // the cone is solved again (its effect on them is then second order).
            let dir = self.sticks[g].dir;
            for (j, d) in dir.iter().enumerate() {
                let f_off = limit * d;
                changed |= (f_off - self.rows[i + j].f_off).abs() > 1e-6 * limit;
                self.rows[i + j].f_off = f_off;
            }
        }
        changed
    }

    /// A sticking group's end-of-step tangential force norm and normal total.
    pub fn stick_result(&self, g: usize) -> (f64, f64) {
        let grp = &self.sticks[g];
        let i = grp.first as usize;
        let ft = self.rows[i].f_end.hypot(self.rows[i + 1].f_end);
        let total: f64 = self.rows[grp.normals.0 as usize..grp.normals.1 as usize]
            .iter()
            .map(|r| r.f_end.max(0.0))
            .sum();
        (ft, total)
    }

    /// Adds the implicit correction of the last [`Self::solve`] (f_end − the
    /// explicit force at each row) to the reported contact wrenches and manifold
    /// forces.
    pub fn report(
        &self,
        state: &[BodyState],
        (wrench, manifold_force): (&mut [Wrench], &mut [Vec3]),
    ) {
        for row in self.rows.iter().filter(|r| !r.mode) {
            let df = row.n * (row.f_end - row.applied);
            wrench[row.a].add_force_at(df, row.pa, state[row.a].x);
            wrench[row.b].add_force_at(-df, row.pb, state[row.b].x);
            if let Some(mf) = manifold_force.get_mut(row.manifold as usize) {
                *mf += df;
            }
        }
    }

    /// The direct solve's pattern: the participating bodies get local indices, the
    /// body pairs carrying rows (on or off: the pattern stays through the active-set
    /// passes) are the edges; the analysis is redone only if they changed
    /// ([`BlockCholesky::analyze`]). `warm`: the same rows and state as the last
    /// solve (the factorization may be reused). False if no body participates.
    fn analyze(&mut self, warm: bool) -> bool {
        if !warm {
            self.factored = false;
            self.assembled = false;
        }
        self.global.clear();
        for (b, &p) in self.part.iter().enumerate() {
            self.local[b] = if p {
                self.global.push(b as u32);
                (self.global.len() - 1) as u32
            } else {
                u32::MAX
            };
        }
        self.analyzed = Some(self.rows.len());
        if self.global.is_empty() {
            return false;
        }
        self.edges.clear();
        let mut last = (u32::MAX, u32::MAX);
        for row in &self.rows {
            let (la, lb) = (self.local[row.a], self.local[row.b]);
            if la != u32::MAX && lb != u32::MAX && la != lb {
                let e = (la.min(lb), la.max(lb));
                if e != last {
                    self.edges.push(e);
                    last = e;
                }
            }
        }
        self.edges.sort_unstable();
        self.edges.dedup();
        self.chol.analyze(self.global.len(), &self.edges);
        self.row_edge.clear();
        // (Per-row buffers grow with `rows`, not past it.)
        let cap = self.rows.capacity();
        if self.row_edge.capacity() < cap {
            self.row_edge.reserve(cap);
            self.factored_on.reserve(cap);
        }
        for row in &self.rows {
            let (la, lb) = (self.local[row.a], self.local[row.b]);
            let e = if la != u32::MAX && lb != u32::MAX && la != lb {
                self.chol.edge_index(la, lb).map_or(u32::MAX, |e| e as u32)
            } else {
                u32::MAX
            };
            self.row_edge.push(e);
        }
        true
    }

    /// One direct solve of (M + h Σ_on c_i J_iᵀ J_i) δ = b into `self.x` (b as in
    /// [`Self::cg`]): assembled and factored unless the factorization of this step
    /// was made for the same active set. False if the factorization failed.
    fn direct(&mut self, bodies: &[ImpulseBody], h: f64) -> bool {
        let same = self.factored
            && self.factored_on.len() == self.rows.len()
            && self
                .rows
                .iter()
                .zip(&self.factored_on)
                .all(|(r, &on)| r.on == on);
        if !same {
            // Only some rows flipped since this step's last factorization: their
            // bodies' columns and the elimination tree above them are assembled
            // and factored again, the rest of L kept (bit for bit the full
            // factorization: `BlockCholesky::refactor_affected`).
            let partial = self.factored
                && self.assembled
                && self.assembled_rows == self.rows.len()
                && self.factored_on.len() == self.rows.len();
            if partial {
                for i in 0..self.rows.len() {
                    if self.rows[i].on != self.factored_on[i] {
                        for b in [self.rows[i].a, self.rows[i].b] {
                            if self.local[b] != u32::MAX {
                                self.chol.mark_changed(self.local[b] as usize);
                            }
                        }
                    }
                }
                self.chol.restore_affected();
                for i in 0..self.rows.len() {
                    if !self.rows[i].on {
                        self.add_row(h, i, -1.0, true);
                    }
                }
                self.factored = self.chol.refactor_affected();
            } else {
                self.assemble(bodies, h);
                self.factored = self.chol.factor();
            }
            self.factored_on.clear();
            self.factored_on.extend(self.rows.iter().map(|r| r.on));
            if !self.factored {
                return false;
            }
        }
        self.rhs_into_r(h);
        self.rhs.clear();
        for &b in &self.global {
            let r = &self.r[b as usize];
            self.rhs
                .push(V6::new(r[0].x, r[0].y, r[0].z, r[1].x, r[1].y, r[1].z));
        }
        self.chol.solve(&mut self.rhs);
        self.x.iter_mut().for_each(|x| *x = ZERO6);
        for (l, &b) in self.global.iter().enumerate() {
            let v = &self.rhs[l];
            self.x[b as usize] = [Vec3::new(v[0], v[1], v[2]), Vec3::new(v[3], v[4], v[5])];
        }
        self.iterations += 1;
        true
    }

    /// The blocks of M + h Σ_on c_i J_iᵀ J_i: per body diag(m I, I_w), per row
    /// h c_i g_a g_aᵀ, h c_i g_b g_bᵀ and −h c_i g_a g_bᵀ, g = (n, (p − x) × n).
    /// Assembled once per step with every row on and saved; each active set then
    /// starts from that copy and takes out its off rows (few).
    fn assemble(&mut self, bodies: &[ImpulseBody], h: f64) {
        if self.assembled {
            self.chol.restore_values();
        } else {
            self.chol.clear_values();
            for (l, &b) in self.global.iter().enumerate() {
                let b = b as usize;
                let mut m = M6::zeros();
                let mass = 1.0 / bodies[b].inv_mass;
                for c in 0..3 {
                    m[(c, c)] = mass;
                }
                m.fixed_view_mut::<3, 3>(3, 3).copy_from(&self.inertia_w[b]);
                self.chol.add_diag(l, &m);
            }
            for i in 0..self.rows.len() {
                self.add_row(h, i, 1.0, false);
            }
            self.chol.save_values();
            self.assembled = true;
            self.assembled_rows = self.rows.len();
        }
        for i in 0..self.rows.len() {
            if !self.rows[i].on {
                self.add_row(h, i, -1.0, false);
            }
        }
    }

    /// Adds `sign` × row i's term h c_i J_iᵀ J_i to the blocks (with `affected`:
    /// only to the blocks of the columns marked for a partial refactorization).
    fn add_row(&mut self, h: f64, i: usize, sign: f64, affected: bool) {
        let row = &self.rows[i];
        let g = |t: &Vec3| -> V6 { V6::new(row.n.x, row.n.y, row.n.z, t.x, t.y, t.z) };
        let w = sign * h * row.c;
        let (la, lb) = (self.local[row.a], self.local[row.b]);
        let ga = (la != u32::MAX).then(|| g(&row.ta));
        let gb = (lb != u32::MAX).then(|| g(&row.tb));
        let chol = &mut self.chol;
        let mut diag = |l: u32, m: &M6| {
            if affected {
                chol.add_diag_affected(l as usize, m);
            } else {
                chol.add_diag(l as usize, m);
            }
        };
        if let Some(ga) = ga {
            diag(la, &(ga * ga.transpose() * w));
        }
        if let Some(gb) = gb {
            diag(lb, &(gb * gb.transpose() * w));
        }
        if let (Some(ga), Some(gb)) = (ga, gb) {
            let e = self.row_edge[i];
            let m = ga * gb.transpose() * -w;
            if e != u32::MAX {
                let first = self.edges[e as usize].0 == la;
                if affected {
                    self.chol.add_edge_affected(e as usize, first, &m);
                } else {
                    self.chol.add_edge(e as usize, first, &m);
                }
            } else {
                // a and b the same body: both ends on its diagonal block.
                diag(la, &(m + m.transpose()));
            }
        }
    }

    /// Whether the last solve took the one-body-island path.
    pub fn solved_single(&self) -> bool {
        self.single_factored
    }

    /// Size of the direct solve's last analysis.
    pub fn chol_stats(&self) -> crate::solver::block_cholesky::BlockCholeskyStats {
        self.chol.stats
    }

    /// `self.r` = b = h Σ_on J_iᵀ (kv/r s_i − c_i s_i^ex) + h Σ_off J_iᵀ (f_i^off − f_i^ex)
    /// (f^off: 0, or a sliding sticking row's cone force).
    fn rhs_into_r(&mut self, h: f64) {
        self.r.iter_mut().for_each(|x| *x = ZERO6);
        for row in &self.rows {
            // (f_ex − applied is 0 for a penetrating point, kp d/r for a gap point.)
            let lambda = if row.on {
                h * ((row.f_ex - row.applied) + row.kv_r * row.s - row.c * row.s_ex)
            } else {
                h * (row.f_off - row.applied)
            };
            Self::jt(&self.part, row, lambda, &mut self.r);
        }
    }

    /// The preconditioner, once per solve: per participating body, the inverses of
    /// the linear and angular 3×3 diagonal blocks of the system, m_b I + h Σ c_i n nᵀ
    /// and I_b + h Σ c_i t tᵀ (t = (p_i − x_b) × n), over the rows active at the start.
    fn factor_blocks(&mut self, state: &[BodyState], bodies: &[ImpulseBody], h: f64) {
        for b in 0..state.len() {
            if self.part[b] {
                self.block_inv[b] = [Mat3::identity() / bodies[b].inv_mass, self.inertia_w[b]];
            }
        }
        for row in self.rows.iter().filter(|r| r.on) {
            for (b, t) in [(row.a, row.ta), (row.b, row.tb)] {
                if self.part[b] {
                    let w = h * row.c;
                    self.block_inv[b][0] += row.n * row.n.transpose() * w;
                    self.block_inv[b][1] += t * t.transpose() * w;
                }
            }
        }
        for b in 0..state.len() {
            if self.part[b] {
                let [lin, ang] = self.block_inv[b];
                self.block_inv[b] = [
                    lin.try_inverse()
                        .unwrap_or(Mat3::identity() * bodies[b].inv_mass),
                    ang.try_inverse().unwrap_or(bodies[b].inv_inertia_w),
                ];
            }
        }
    }

    /// `self.ad` = A u, u = `self.x` (`of_x`) or `self.d`: A = M + h Σ_on c_i J_iᵀ J_i.
    fn a_times(&mut self, state: &[BodyState], bodies: &[ImpulseBody], h: f64, of_x: bool) {
        let u = if of_x { &self.x } else { &self.d };
        for b in 0..state.len() {
            self.ad[b] = if self.part[b] {
                let m = 1.0 / bodies[b].inv_mass;
                [u[b][0] * m, self.inertia_w[b] * u[b][1]]
            } else {
                ZERO6
            };
        }
        for row in self.rows.iter().filter(|r| r.on) {
            let mut ju = 0.0;
            if self.part[row.a] {
                ju += end_rate(&row.n, &row.ta, &u[row.a]);
            }
            if self.part[row.b] {
                ju -= end_rate(&row.n, &row.tb, &u[row.b]);
            }
            Self::jt(&self.part, row, h * row.c * ju, &mut self.ad);
        }
    }

    /// Preconditioned conjugate gradients for (M + h Σ_on c_i J_iᵀ J_i) δ = b into
    /// `self.x`, b = h Σ_on J_iᵀ (kv/r s_i − c_i s_i^ex) − h Σ_off J_iᵀ f_i^ex.
    ///
    /// `keep`: start from the δ in `self.x` (the previous active-set pass, or the
    /// solve before friction), else from 0. The tolerance is relative to the
    /// right-hand side (the residual of the start δ = 0) either way, so a warm start
    /// stops at the accuracy of a cold one, in fewer iterations.
    fn cg(
        &mut self,
        state: &[BodyState],
        bodies: &[ImpulseBody],
        h: f64,
        (max_iter, keep): (usize, bool),
    ) {
        let nb = state.len();
        if !keep {
            self.x.iter_mut().for_each(|x| *x = ZERO6);
        }
        self.rhs_into_r(h);
        let precond = |block_inv: &[[Mat3; 2]], b: usize, r: &Six| -> Six {
            let [lin, ang] = &block_inv[b];
            [lin * r[0], ang * r[1]]
        };
        for b in 0..nb {
            self.z[b] = if self.part[b] {
                precond(&self.block_inv, b, &self.r[b])
            } else {
                ZERO6
            };
        }
        let rz_b = dot6(&self.r, &self.z);
        let tol = rz_b * 1e-24;
        if rz_b <= 0.0 {
            self.x.iter_mut().for_each(|x| *x = ZERO6);
            return;
        }
        let mut rz = rz_b;
        if keep {
            // r = b − A x.
            self.a_times(state, bodies, h, true);
            for b in 0..nb {
                for c in 0..2 {
                    self.r[b][c] -= self.ad[b][c];
                }
                self.z[b] = if self.part[b] {
                    precond(&self.block_inv, b, &self.r[b])
                } else {
                    ZERO6
                };
            }
            rz = dot6(&self.r, &self.z);
            if rz <= tol {
                return;
            }
        }
        self.d.copy_from_slice(&self.z);
        for _ in 0..max_iter {
            // ad = A d.
            self.a_times(state, bodies, h, false);
            let dad = dot6(&self.d, &self.ad);
            if dad <= 0.0 || !dad.is_finite() {
                break;
            }
            let alpha = rz / dad;
            for b in 0..nb {
                for c in 0..2 {
                    self.x[b][c] += self.d[b][c] * alpha;
                    self.r[b][c] -= self.ad[b][c] * alpha;
                }
                self.z[b] = if self.part[b] {
                    precond(&self.block_inv, b, &self.r[b])
                } else {
                    ZERO6
                };
            }
            self.iterations += 1;
            let rz_new = dot6(&self.r, &self.z);
            if rz_new <= tol {
                break;
            }
            let beta = rz_new / rz;
            rz = rz_new;
            for b in 0..nb {
                for c in 0..2 {
                    self.d[b][c] = self.z[b][c] + self.d[b][c] * beta;
                }
            }
        }
    }
}
