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
//! p_f = D_c β,   x⁺ = x + h v⁺,   q⁺ = q + (h/2) (0, ω⁺) ⊗ q,  renormalized    eq. (10)
//! ```
//!
//! per contact point: G_n the normal row (the gap rate of eq. (6)), G_f the two
//! tangent rows t₁, t₂, D_c = [d₁ … d_k] with d_j = (cos 2πj/k, sin 2πj/k) in (t₁, t₂),
//! E = 1_k, σ the sliding speed. Eliminating ν⁺ = ν_f + M⁻¹ Gᵀ p, ν_f = ν + h M⁻¹ f,
//! gives `LCP(A, q)` over z = (p_n, β, σ) with the Delassus matrix
//! W = G M⁻¹ Gᵀ (3 rows per point: n, t₁, t₂) and q = (G_n ν_f + s_n, D_cᵀ G_f ν_f, 0).
//!
//! # Stabilization (s_n)
//! ψ = −depth ≤ 0 is the gap of a penetrating point, δ the allowance
//! ([`LcpParams::penetration_allowance`]), β_s ∈ [0, 1] ([`LcpParams::stabilization`]):
//! Stewart–Trinkle (003 eq. (7), ψ_n/h term): s_n = β_s (ψ + δ)/h; Anitescu–Hart
//! (001, the stabilization inside the one convex subproblem, no post-projection):
//! s_n = β_s min(ψ + δ, 0)/h. Newton restitution (optional): a point approaching at
//! G_n ν < −v_th leaves with at least −e G_n ν: s_n ← min(s_n, e G_n ν).
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
//! Lemke iterate (`solver_fallbacks`); a PGS sweep limit keeps the last iterate and
//! counts it (`solver_unconverged`). Invalid data (non-finite state) applies no
//! contact impulse; the quarantine catches the state after the step.
//!
//! # Contact points and friction directions
//! One row triple per contact point of the narrow phase. Points closer than 1 µm
//! in the contact plane merge (the deeper kept: the two faces of a thin
//! intersection slab); a manifold with more than 4 keeps 4 (the deepest, the farthest from it,
//! the one spanning the largest triangle with them, the one farthest on the other
//! side: a box on a plane keeps its 4 corners). t₁ is the world x axis projected
//! on the contact plane (world y if the normal is within 45° of x), t₂ = n × t₁:
//! deterministic from the normal, and on an incline tilted about y the first
//! direction lies along the slope.
//!
//! # Robots
//! Each moving robot (not frozen by the quarantine) is one block of ν: its nv
//! generalized velocities `Data::qvel` (a floating base's twist [ω; v] in the base
//! link frame). M = H(q) + diag(a): H from CRBA, a the implicit diagonal of the
//! actuation/passive law of the penalty path (stable PD servos h k_d + h² k_p,
//! damping h b, the friction's linear zone), so that servos and dampers stay
//! implicit; M⁻¹ dense from the sparse LᵀL factor (nv ≤ 32). ν_f = q̇ + h q̈_free with
//! q̈_free = ABA(q, q̇, τ₀, f_ext = the applied wrenches `xfrc` on the link proxies,
//! armature a): everything but contact. A contact on a link proxy maps through the
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
//! new state (`robots::link_states`). The recorded `qfrc_actuator`, `qfrc_passive`,
//! IMUs and F/T sensors come from a second ABA with the contact impulses as link
//! wrenches (impulse/h): by linearity it reproduces (ν⁺ − ν)/h, so the recorded
//! values include contact (as the penalty path's do). `qacc` = (ν⁺ − ν)/h, and the
//! implicit parts of the torques are taken at that q̈. A joint-limit impulse is a
//! generalized force (not a wrench): it is added to `qfrc_passive` as impulse/h (the
//! penalty path reports its limit spring there too), but the F/T sensors (from the
//! second ABA) do not see it.
//!
//! # Warm start
//! Each pair remembers the impulses (p_n, f_t₁, f_t₂) of its points
//! (`PairState::lcp_impulse`, in snapshots). PGS starts from them; Lemke from their
//! active set (p_n > 0, the cone directions bracketing f_t, σ > 0 when f_t is on the
//! cone's boundary).

use super::dynamics::report_contacts;
use super::{collide, lap, robots, Stepper};
use crate::collision::ContactSet;
use crate::data::{BodyState, Data, PairState, RobotData, Stage, StepStats, LCP_WARM_POINTS};
use crate::dynamics::{crba, factor_mass, point_jacobian, solve_mass_columns};
use crate::math::{Mat3, Quat, Vec3, Wrench};
use crate::model::{BodyKind, LcpParams, LcpSolverKind, Material, Model, StabilizationScheme};
use crate::solver::{
    reshape_zeroed, resize_zeroed, ContactPgsResults, ContactProblem, LcpProblem, LemkeParams,
    LemkeResults, LemkeSolver, LemkeStatus, PgsParams, PgsSolver, PgsStatus, PolygonTable,
};
use nalgebra::{DMatrix, DVector, Matrix6xX};
use std::time::Instant;

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
/// row-major, `ndof²` entries) at `minv` in [`LcpScratch::minv`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DofBlock {
    pub kind: DofKind,
    pub offset: usize,
    pub ndof: usize,
    pub minv: usize,
}

const NO_BLOCK: u32 = u32::MAX;

/// Largest ‖min(z, w)‖∞ of a Lemke solution that is accepted (N·s for impulse
/// rows, m/s for velocity rows: 1e-7 m/s over a 1 ms step is 0.1 nm); beyond it the
/// solve counts as failed and falls back to PGS.
const LEMKE_ACCEPT: f64 = 1e-7;

/// Relative diagonal regularization of W (see [`delassus`]).
const REGULARIZATION: f64 = 1e-9;

/// One side of a contact: the block it acts on and its 3 Jacobian rows (n, t₁, t₂,
/// `ndof` coefficients each) at `jac` in [`LcpScratch::jac`] (and M⁻¹ Jᵀ at the
/// same place in [`LcpScratch::minv_jt`]).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Side {
    block: u32,
    jac: usize,
}

/// One contact point: three rows of W.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ContactRow {
    /// Index into `Data::pairs` and the point's slot in the pair's warm start.
    pair: usize,
    slot: usize,
    p: Vec3,
    n: Vec3,
    t1: Vec3,
    t2: Vec3,
    mu: f64,
    depth: f64,
    restitution: f64,
    bodies: [usize; 2],
    side: [Side; 2],
    /// A joint-limit row (module doc, "Robots"): no pair, no friction.
    limit: bool,
}

/// `ContactRow::pair` of a joint-limit row.
const NO_PAIR: usize = usize::MAX;

/// Work buffers of the LCP step (capacities kept: no allocation once warmed up).
#[derive(Clone, Debug)]
pub(crate) struct LcpScratch {
    blocks: Vec<DofBlock>,
    body_block: Vec<u32>,
    minv: Vec<f64>,
    /// ν at the start of the step, ν_f = ν + h M⁻¹ f, and ν⁺.
    nu: Vec<f64>,
    nu_f: Vec<f64>,
    contacts: Vec<ContactRow>,
    jac: Vec<f64>,
    minv_jt: Vec<f64>,
    /// Delassus W = G M⁻¹ Gᵀ (3 rows per point) and q_W = G ν_f + s.
    w: DMatrix<f64>,
    qw: DVector<f64>,
    /// The solver's problem (Lemke: the Stewart–Trinkle LCP; PGS: (W, q_W)).
    problem: LcpProblem,
    guess: DVector<f64>,
    lemke: LemkeSolver,
    lemke_res: LemkeResults,
    /// (p_n, f_t₁, f_t₂) per point.
    impulse: Vec<f64>,
    /// Point selection of one manifold.
    pick: Vec<usize>,
    /// cos, sin of the k friction directions.
    dirs: Vec<(f64, f64)>,
    /// Block-sparse W and q_W with the islands, and the PGS buffers on it.
    sparse: ContactProblem,
    contact_res: ContactPgsResults,
    /// Points per DoF block (CSR) and the union–find / island labels.
    blk_start: Vec<usize>,
    blk_list: Vec<u32>,
    parent: Vec<u32>,
    island_of: Vec<u32>,
    /// Robots: q̇ and q̈ of the contact-free evaluation (all robots, flat), a point
    /// Jacobian per robot (6 × nv), M⁻¹ of one robot (nv × nv) and q⁺.
    kq: Vec<f64>,
    kv: Vec<f64>,
    jrob: Vec<Matrix6xX<f64>>,
    hinv: DMatrix<f64>,
    q_new: Vec<f64>,
}

impl Default for LcpScratch {
    fn default() -> Self {
        LcpScratch {
            blocks: Vec::new(),
            body_block: Vec::new(),
            minv: Vec::new(),
            nu: Vec::new(),
            nu_f: Vec::new(),
            contacts: Vec::new(),
            jac: Vec::new(),
            minv_jt: Vec::new(),
            w: DMatrix::zeros(0, 0),
            qw: DVector::zeros(0),
            problem: LcpProblem {
                m: DMatrix::zeros(0, 0),
                q: DVector::zeros(0),
            },
            guess: DVector::zeros(0),
            lemke: LemkeSolver::default(),
            lemke_res: LemkeResults::default(),
            impulse: Vec::new(),
            pick: Vec::new(),
            dirs: Vec::new(),
            sparse: ContactProblem::default(),
            contact_res: ContactPgsResults::default(),
            blk_start: Vec::new(),
            blk_list: Vec::new(),
            parent: Vec::new(),
            island_of: Vec::new(),
            kq: Vec::new(),
            kv: Vec::new(),
            jrob: Vec::new(),
            hinv: DMatrix::zeros(0, 0),
            q_new: Vec::new(),
        }
    }
}

pub struct LcpStepper<'a> {
    pub params: &'a LcpParams,
}

impl Stepper for LcpStepper<'_> {
    fn name(&self) -> &'static str {
        "lcp"
    }

    fn advance(&self, model: &Model, data: &mut Data) {
        let p = self.params;
        let h = model.opt.dt;
        let Data {
            state,
            xfrc,
            frozen,
            pairs,
            contacts,
            contact_pair,
            contact_wrench,
            stats,
            scratch: s,
            lcp: ls,
            qpos,
            qvel,
            qfrc_cmd,
            qfrc_actuator,
            qfrc_passive,
            qacc,
            robots,
            ..
        } = data;

        // Kinematics, broad phase, narrow phase at the start-of-step state.
        let t = collide::begin_step(model, robots, qpos, qvel, state, pairs, s, stats);
        let t = collide::start_contacts(model, s, contacts, contact_pair, stats, t);
        report_contacts(contacts, stats);

        // Contact: DoF blocks, ν_f, the rows and the Delassus matrix.
        dof_blocks(model, state, xfrc, frozen, h, ls);
        if !model.robots.is_empty() {
            let rs = RobotState {
                q: qpos,
                v: qvel,
                cmd: qfrc_cmd,
            };
            // No contact wrench in the contact-free evaluation (ν_f).
            contact_wrench.iter_mut().for_each(|w| *w = Wrench::ZERO);
            robot_blocks(model, robots, &rs, state, contact_wrench, xfrc, h, ls);
        }
        contact_rows(model, state, robots, contacts, contact_pair, ls);
        if !model.robots.is_empty() {
            limit_rows(model, robots, qpos, qvel, h, ls);
        }
        delassus(p, h, ls);
        let ts = Instant::now();

        // Solve (with the documented fallback), then ν⁺ = ν_f + M⁻¹ Gᵀ p.
        solve(p, pairs, ls, stats);
        stats.solver_ns = ts.elapsed().as_nanos() as u64;
        remember_impulses(pairs, contacts, contact_pair, ls);
        apply_impulses(h, state, contact_wrench, ls);
        let t = lap(stats, Stage::Contact, t);

        // Integrate: x⁺ = x + h v⁺ and the quaternion update of eq. (10).
        integrate(model, h, state, frozen, ls);
        if !model.robots.is_empty() {
            let rec = robots::Record {
                actuator: qfrc_actuator,
                passive: qfrc_passive,
                qacc,
            };
            integrate_robots(
                model,
                robots,
                qpos,
                qvel,
                qfrc_cmd,
                state,
                contact_wrench,
                xfrc,
                h,
                rec,
                ls,
            );
        }
        lap(stats, Stage::Integrate, t);
    }
}

/// One block per moving body; M⁻¹ blocks; ν and ν_f = ν + h M⁻¹ (f_ext + m g + f_gyro).
fn dof_blocks(
    model: &Model,
    state: &[BodyState],
    xfrc: &[Wrench],
    frozen: &[bool],
    h: f64,
    ls: &mut LcpScratch,
) {
    ls.blocks.clear();
    ls.body_block.clear();
    ls.minv.clear();
    ls.nu.clear();
    ls.nu_f.clear();
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
        let block = DofBlock {
            kind: DofKind::Free { body: b as u32 },
            offset: ls.nu.len(),
            ndof: 6,
            minv: ls.minv.len(),
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
        // Semi-implicit: external, gravity and gyroscopic terms at the start state.
        let f = xfrc[b].force;
        let tau = xfrc[b].torque - st.w.cross(&(i_w * st.w));
        let v_f = st.v + h * (f * body.inv_mass + g);
        let w_f = st.w + h * (i_w_inv * tau);
        ls.nu
            .extend_from_slice(&[st.v.x, st.v.y, st.v.z, st.w.x, st.w.y, st.w.z]);
        ls.nu_f
            .extend_from_slice(&[v_f.x, v_f.y, v_f.z, w_f.x, w_f.y, w_f.z]);
        ls.blocks.push(block);
    }
}

/// t₁: world x projected on the plane ⟂ n (world y when n is within 45° of x);
/// t₂ = n × t₁.
pub fn tangent_basis(n: &Vec3) -> (Vec3, Vec3) {
    let axis = if n.x.abs() < std::f64::consts::FRAC_1_SQRT_2 {
        Vec3::x()
    } else {
        Vec3::y()
    };
    let t1 = (axis - n * n.dot(&axis)).normalize();
    (t1, n.cross(&t1))
}

/// The row of direction `u` at world point `p` on a block, times `sign`
/// (the velocity of the block's material point at `p` along `u`).
#[inline]
fn point_row(kind: DofKind, state: &[BodyState], p: &Vec3, u: &Vec3, sign: f64, out: &mut [f64]) {
    match kind {
        DofKind::Free { body } => {
            let r = p - state[body as usize].x;
            let a = r.cross(u);
            out.copy_from_slice(&[
                sign * u.x,
                sign * u.y,
                sign * u.z,
                sign * a.x,
                sign * a.y,
                sign * a.z,
            ]);
        }
        // Built from the link's point Jacobian in `contact_rows`.
        DofKind::Articulated { .. } => out.fill(0.0),
    }
}

/// Contact points of every manifold (merged and reduced to ≤ 4), their frames,
/// Jacobian rows and M⁻¹ Jᵀ.
fn contact_rows(
    model: &Model,
    state: &[BodyState],
    robots: &[RobotData],
    set: &ContactSet,
    set_pair: &[usize],
    ls: &mut LcpScratch,
) {
    ls.contacts.clear();
    ls.jac.clear();
    ls.minv_jt.clear();
    for (m, &pi) in set.manifolds.iter().zip(set_pair) {
        let (ga, gb) = (&model.geoms[m.geom_a], &model.geoms[m.geom_b]);
        let bodies = [ga.body, gb.body];
        let blocks = [ls.body_block[ga.body], ls.body_block[gb.body]];
        if blocks.iter().all(|&b| b == NO_BLOCK) || !m.normal.iter().all(|c| c.is_finite()) {
            continue;
        }
        let mat = Material::combine(&ga.material, &gb.material);
        let pts = set.points_of(m);
        select_points(pts, &m.normal, &mut ls.pick);
        let n = m.normal;
        let (t1, t2) = tangent_basis(&n);
        for (slot, &k) in ls.pick.iter().enumerate() {
            let cp = &pts[k];
            let mut side = [Side {
                block: NO_BLOCK,
                jac: 0,
            }; 2];
            for (sd, (&blk, sign)) in blocks.iter().zip([1.0, -1.0]).enumerate() {
                if blk == NO_BLOCK {
                    continue;
                }
                let block = ls.blocks[blk as usize];
                let off = ls.jac.len();
                let nd = block.ndof;
                ls.jac.resize(off + 3 * nd, 0.0);
                ls.minv_jt.resize(off + 3 * nd, 0.0);
                if let DofKind::Articulated { robot } = block.kind {
                    // The link's point Jacobian at the contact point (6 × nv, rows ω
                    // then v_p, world).
                    let ri = robot as usize;
                    let link = match model.bodies[bodies[sd]].kind {
                        BodyKind::Link { link, .. } => link as usize,
                        _ => usize::MAX,
                    };
                    let jm = &mut ls.jrob[ri];
                    if point_jacobian(&model.robots[ri].tree, &robots[ri].ad, link, &cp.p_w, jm)
                        .is_err()
                    {
                        jm.fill(0.0);
                    }
                }
                for (r, u) in [n, t1, t2].iter().enumerate() {
                    let row = &mut ls.jac[off + r * nd..off + (r + 1) * nd];
                    match block.kind {
                        DofKind::Free { .. } => point_row(block.kind, state, &cp.p_w, u, sign, row),
                        DofKind::Articulated { robot } => {
                            // Row uᵀ J_v: the velocity of the link point along u.
                            let jm = &ls.jrob[robot as usize];
                            for (k, x) in row.iter_mut().enumerate() {
                                *x =
                                    sign * (u.x * jm[(3, k)] + u.y * jm[(4, k)] + u.z * jm[(5, k)]);
                            }
                        }
                    }
                    // M⁻¹ Jᵀ for this row.
                    for i in 0..nd {
                        let mut acc = 0.0;
                        for j in 0..nd {
                            acc += ls.minv[block.minv + i * nd + j] * ls.jac[off + r * nd + j];
                        }
                        ls.minv_jt[off + r * nd + i] = acc;
                    }
                }
                side[sd] = Side {
                    block: blk,
                    jac: off,
                };
            }
            ls.contacts.push(ContactRow {
                pair: pi,
                slot,
                p: cp.p_w,
                n,
                t1,
                t2,
                mu: mat.mu,
                depth: cp.depth,
                restitution: mat.restitution,
                bodies,
                side,
                limit: false,
            });
        }
    }
}

/// Indices of at most [`LCP_WARM_POINTS`] points of a manifold: points within 1 µm
/// of each other in the contact plane merge (the deeper kept); of more than 4, the deepest, the farthest from it, the
/// largest triangle with those, the farthest on the other side of their line.
/// Returned by angle about their centroid (stable slots for the warm start).
fn select_points(pts: &[crate::collision::ContactPoint], n: &Vec3, pick: &mut Vec<usize>) {
    pick.clear();
    // Merge points that coincide in the contact plane (the two faces of a thin
    // intersection slab), keeping the deeper.
    let planar_d2 = |a: &Vec3, b: &Vec3| {
        let d = b - a;
        (d - n * n.dot(&d)).norm_squared()
    };
    for (i, c) in pts.iter().enumerate() {
        match pick
            .iter()
            .position(|&k| planar_d2(&pts[k].p_w, &c.p_w) < 1e-12)
        {
            Some(j) if c.depth > pts[pick[j]].depth => pick[j] = i,
            Some(_) => {}
            None => pick.push(i),
        }
    }
    if pick.len() <= LCP_WARM_POINTS {
        sort_by_angle(pts, n, pick);
        return;
    }
    let planar = |a: usize, b: usize| {
        let d = pts[b].p_w - pts[a].p_w;
        d - n * n.dot(&d)
    };
    let argmax = |pick: &[usize], f: &dyn Fn(usize) -> f64| {
        let mut best = (pick[0], f64::NEG_INFINITY);
        for &k in pick {
            let v = f(k);
            if v > best.1 {
                best = (k, v);
            }
        }
        best
    };
    let a = argmax(pick, &|k| pts[k].depth).0;
    let b = argmax(pick, &|k| planar(a, k).norm_squared()).0;
    let ab = planar(a, b);
    let area = |k: usize| planar(a, k).cross(&ab).dot(n);
    let c = argmax(pick, &|k| area(k).abs()).0;
    let sc = area(c).signum();
    let (d, dv) = argmax(pick, &|k| -sc * area(k));
    let d = if dv > 0.0 {
        d
    } else {
        // Every point on c's side: the one farthest from a, b and c.
        argmax(pick, &|k| {
            [a, b, c]
                .iter()
                .map(|&q| planar(q, k).norm_squared())
                .fold(f64::INFINITY, f64::min)
        })
        .0
    };
    let mut chosen = [a, b, c, d];
    chosen.sort_unstable();
    pick.clear();
    for (i, &k) in chosen.iter().enumerate() {
        if i == 0 || chosen[i - 1] != k {
            pick.push(k);
        }
    }
    sort_by_angle(pts, n, pick);
}

/// Orders the picked points by their angle about their centroid in the contact
/// frame (t₁, t₂): the same corners get the same slots step after step, whatever
/// order the narrow phase lists them in (the warm start is matched by slot).
fn sort_by_angle(pts: &[crate::collision::ContactPoint], n: &Vec3, pick: &mut [usize]) {
    if pick.len() < 2 {
        return;
    }
    let (t1, t2) = tangent_basis(n);
    let c = pick.iter().map(|&k| pts[k].p_w).sum::<Vec3>() / pick.len() as f64;
    let angle = |k: usize| {
        let d = pts[k].p_w - c;
        d.dot(&t2).atan2(d.dot(&t1))
    };
    // Insertion sort (at most 4 entries, no allocation).
    for i in 1..pick.len() {
        let mut j = i;
        while j > 0 && angle(pick[j - 1]) > angle(pick[j]) {
            pick.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// W = G M⁻¹ Gᵀ over the rows (n, t₁, t₂) of every point, block-sparse
/// (`ls.sparse`: only points sharing a moving body couple), and q_W = G ν_f + s;
/// the points' islands (connected through moving bodies) in `ls.sparse.order`.
fn delassus(p: &LcpParams, h: f64, ls: &mut LcpScratch) {
    let nc = ls.contacts.len();
    resize_zeroed(&mut ls.qw, 3 * nc);
    block_contacts(ls);
    let LcpScratch {
        blocks,
        nu,
        nu_f,
        contacts,
        jac,
        minv_jt,
        qw,
        sparse: sp,
        blk_start,
        blk_list,
        ..
    } = ls;
    sp.row_start.clear();
    sp.col.clear();
    sp.w.clear();
    sp.q.clear();
    sp.mu.clear();
    sp.table = PolygonTable::new(p.friction_directions);
    for ci in 0..nc {
        let c = contacts[ci];
        let row0 = sp.col.len();
        sp.row_start.push(row0);
        // Blocks W_ij = Σ over shared bodies of J_i M⁻¹ J_jᵀ (j in column order of
        // the body's point list; a second shared body adds into the same block).
        for sa in c.side.iter().filter(|s| s.block != NO_BLOCK) {
            let bl = sa.block as usize;
            let nd = blocks[bl].ndof;
            for &cj in &blk_list[blk_start[bl]..blk_start[bl + 1]] {
                let d = contacts[cj as usize];
                for sb in d.side.iter().filter(|s| s.block == sa.block) {
                    let k = match sp.col[row0..].iter().position(|&x| x == cj) {
                        Some(k) => row0 + k,
                        None => {
                            sp.col.push(cj);
                            sp.w.push([0.0; 9]);
                            sp.col.len() - 1
                        }
                    };
                    let blk = &mut sp.w[k];
                    for a in 0..3 {
                        let ja = &jac[sa.jac + a * nd..sa.jac + (a + 1) * nd];
                        for b in 0..3 {
                            let mb = &minv_jt[sb.jac + b * nd..sb.jac + (b + 1) * nd];
                            blk[3 * a + b] += ja.iter().zip(mb).map(|(x, y)| x * y).sum::<f64>();
                        }
                    }
                }
            }
        }
        // Regularization (a constraint force mixing of ε relative to the diagonal):
        // several points of one face pair give rows of W that are linearly dependent
        // (12 rows on 6 DoF of a box on a box), a degenerate LCP on which the pivot
        // tolerances can end Lemke on a ray; ε = 1e-9 removes the degeneracy and
        // changes the impulses by a relative 1e-9.
        if let Some(k) = sp.col[row0..].iter().position(|&x| x as usize == ci) {
            for a in 0..3 {
                sp.w[row0 + k][4 * a] *= 1.0 + REGULARIZATION;
            }
        }
        // q_W = G ν_f; the normal row's stabilization / restitution term s_n.
        let (mut vn0, mut q3) = (0.0, [0.0; 3]);
        for s in c.side.iter().filter(|s| s.block != NO_BLOCK) {
            let blk = blocks[s.block as usize];
            let nd = blk.ndof;
            for (a, qa) in q3.iter_mut().enumerate() {
                let ja = &jac[s.jac + a * nd..s.jac + (a + 1) * nd];
                *qa += ja
                    .iter()
                    .zip(&nu_f[blk.offset..blk.offset + nd])
                    .map(|(x, y)| x * y)
                    .sum::<f64>();
            }
            vn0 += jac[s.jac..s.jac + nd]
                .iter()
                .zip(&nu[blk.offset..blk.offset + nd])
                .map(|(x, y)| x * y)
                .sum::<f64>();
        }
        let s_n = if c.limit {
            // Joint limit (module doc, "Robots"): ψ = gap − δ (the joint rests δ
            // inside its range); an open gap may close within one step (ψ/h), a
            // violation is undone at the rate β ψ/h of either scheme.
            let psi = -c.depth - p.penetration_allowance;
            if psi >= 0.0 {
                psi / h
            } else {
                p.stabilization * psi / h
            }
        } else {
            let psi = -c.depth + p.penetration_allowance;
            let mut s_n = match p.scheme {
                StabilizationScheme::StewartTrinkle => p.stabilization * psi / h,
                StabilizationScheme::AnitescuHart => p.stabilization * psi.min(0.0) / h,
            };
            if p.restitution && vn0 < -p.restitution_threshold {
                s_n = s_n.min(c.restitution * vn0);
            }
            s_n
        };
        if c.limit {
            // A joint limit has no tangent rows: its two tangent variables are
            // decoupled placeholders (W = 1 on their diagonal, q = 0, μ = 0), so that
            // W keeps a positive diagonal and the 3-rows-per-point layout holds; they
            // carry no impulse.
            if let Some(k) = sp.col[row0..].iter().position(|&x| x as usize == ci) {
                sp.w[row0 + k][4] = 1.0;
                sp.w[row0 + k][8] = 1.0;
            }
        }
        qw[3 * ci] = q3[0] + s_n;
        qw[3 * ci + 1] = q3[1];
        qw[3 * ci + 2] = q3[2];
        sp.mu.push(c.mu);
    }
    sp.row_start.push(sp.col.len());
    sp.q.extend_from_slice(qw.as_slice());
}

/// Per moving body (DoF block) the points acting on it, in point order
/// (`blk_list[blk_start[b]..blk_start[b + 1]]`), and the islands: points
/// connected through moving bodies, by union–find over the blocks, listed in
/// `sparse.order` island by island (islands in the order of their first point,
/// points in index order: deterministic).
fn block_contacts(ls: &mut LcpScratch) {
    let nb = ls.blocks.len();
    let nc = ls.contacts.len();
    let LcpScratch {
        contacts,
        blk_start,
        blk_list,
        parent,
        island_of,
        sparse: sp,
        ..
    } = ls;
    blk_start.clear();
    blk_start.resize(nb + 1, 0);
    for c in contacts.iter() {
        for s in c.side.iter().filter(|s| s.block != NO_BLOCK) {
            blk_start[s.block as usize + 1] += 1;
        }
    }
    for b in 0..nb {
        blk_start[b + 1] += blk_start[b];
    }
    blk_list.clear();
    blk_list.resize(blk_start[nb], 0);
    // Fill with running cursors kept in `parent` (reset below for union–find).
    parent.clear();
    parent.extend(blk_start[..nb].iter().map(|&x| x as u32));
    for (ci, c) in contacts.iter().enumerate() {
        for s in c.side.iter().filter(|s| s.block != NO_BLOCK) {
            let cur = &mut parent[s.block as usize];
            blk_list[*cur as usize] = ci as u32;
            *cur += 1;
        }
    }
    // Union–find over blocks (a point joins its two moving bodies).
    parent.clear();
    parent.extend(0..nb as u32);
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            let g = parent[parent[x as usize] as usize];
            parent[x as usize] = g;
            x = g;
        }
        x
    }
    for c in contacts.iter() {
        let [a, b] = [c.side[0].block, c.side[1].block];
        if a != NO_BLOCK && b != NO_BLOCK {
            let (ra, rb) = (find(parent, a), find(parent, b));
            if ra != rb {
                // The smaller root wins: independent of the visiting order.
                let (lo, hi) = (ra.min(rb), ra.max(rb));
                parent[hi as usize] = lo;
            }
        }
    }
    // Island label of each point: the root of its (first moving) body.
    island_of.clear();
    for c in contacts.iter() {
        let b = if c.side[0].block != NO_BLOCK {
            c.side[0].block
        } else {
            c.side[1].block
        };
        island_of.push(find(parent, b));
    }
    // Order: islands by first point, points in index order. Counting sort by
    // root: `blk_cursor` reuses the root's slot in a second pass.
    sp.order.clear();
    sp.island_start.clear();
    for ci in 0..nc {
        let root = island_of[ci];
        if root == NO_BLOCK {
            continue;
        }
        // First point of a new island: gather its points, mark them taken.
        sp.island_start.push(sp.order.len());
        for (cj, isl) in island_of.iter_mut().enumerate().skip(ci) {
            if *isl == root {
                sp.order.push(cj as u32);
                *isl = NO_BLOCK;
            }
        }
    }
    sp.island_start.push(sp.order.len());
}

/// The dense W of `ls.sparse` into `ls.w` (for the Stewart–Trinkle LCP of Lemke).
fn dense_w(ls: &mut LcpScratch) {
    let nc = ls.contacts.len();
    reshape_zeroed(&mut ls.w, 3 * nc, 3 * nc);
    let sp = &ls.sparse;
    for ci in 0..nc {
        for k in sp.row_start[ci]..sp.row_start[ci + 1] {
            let cj = sp.col[k] as usize;
            for a in 0..3 {
                for b in 0..3 {
                    ls.w[(3 * ci + a, 3 * cj + b)] = sp.w[k][3 * a + b];
                }
            }
        }
    }
}

/// Solves for the impulses (p_n, f_t₁, f_t₂) of every point into `ls.impulse`.
fn solve(p: &LcpParams, pairs: &[PairState], ls: &mut LcpScratch, stats: &mut StepStats) {
    let nc = ls.contacts.len();
    ls.impulse.clear();
    ls.impulse.resize(3 * nc, 0.0);
    stats.lcp_size = 0;
    stats.solver_iterations = 0;
    stats.solver_residual = 0.0;
    stats.solver_failed = false;
    if nc == 0 {
        return;
    }
    let k = p.friction_directions as usize;
    ls.dirs.clear();
    ls.dirs.extend((0..k).map(|j| {
        let (s, c) = (std::f64::consts::TAU * j as f64 / k as f64).sin_cos();
        (c, s)
    }));
    match p.solver {
        LcpSolverKind::Pgs => {
            let warm = p.warm_start && warm_impulses(pairs, ls);
            pgs_on_w(p, ls, warm, stats);
        }
        LcpSolverKind::Lemke => {
            dense_w(ls);
            stewart_trinkle_lcp(ls);
            let n = ls.problem.q.len();
            stats.lcp_size = n;
            let warm = p.warm_start && warm_impulses(pairs, ls) && lemke_guess(ls);
            ls.lemke.params = LemkeParams {
                max_pivots: p.max_pivots,
                zero_tol: 1e-9,
                ..LemkeParams::default()
            };
            let status = ls.lemke.solve(
                &ls.problem,
                if warm { Some(&ls.guess) } else { None },
                &mut ls.lemke_res,
            );
            let st = ls.lemke_res.stats;
            stats.solver_iterations = st.pivots + st.setup_pivots;
            stats.solver_residual = st.residual;
            // A "solved" basis whose residual round-off has spoiled (degenerate
            // pivots on near-dependent rows) counts as a failure too.
            let status = match status {
                LemkeStatus::Solved if st.residual.is_nan() || st.residual > LEMKE_ACCEPT => {
                    LemkeStatus::IterationLimit
                }
                s => s,
            };
            match status {
                LemkeStatus::Solved => read_lemke(ls),
                LemkeStatus::RayTermination | LemkeStatus::IterationLimit => {
                    // Fallback: PGS on (W, q_W) from the last step's impulses (the
                    // Lemke iterate of a ray termination is not a useful start).
                    stats.solver_failed = true;
                    stats.solver_failures += 1;
                    stats.solver_fallbacks += 1;
                    ls.impulse.iter_mut().for_each(|x| *x = 0.0);
                    let warm = warm_impulses(pairs, ls);
                    let it = stats.solver_iterations;
                    pgs_on_w(p, ls, warm, stats);
                    stats.solver_iterations += it;
                }
                LemkeStatus::InvalidProblem => {
                    stats.solver_failed = true;
                    stats.solver_failures += 1;
                    ls.impulse.iter_mut().for_each(|x| *x = 0.0);
                }
            }
        }
    }
    if !ls.impulse.iter().all(|x| x.is_finite()) {
        ls.impulse.iter_mut().for_each(|x| *x = 0.0);
    }
}

/// PGS on the block-sparse (W, q_W) with polygonal cones, island by island;
/// `warm`: start from `ls.impulse`.
fn pgs_on_w(p: &LcpParams, ls: &mut LcpScratch, warm: bool, stats: &mut StepStats) {
    let r = 3 * ls.contacts.len();
    let solver = PgsSolver::new(PgsParams {
        tolerance: p.tolerance,
        max_iterations: p.max_iterations,
        relaxation: p.relaxation,
    });
    let status = solver.solve_contacts(
        &ls.sparse,
        if warm { Some(&ls.impulse) } else { None },
        &mut ls.contact_res,
    );
    stats.lcp_size = stats.lcp_size.max(r);
    stats.solver_iterations = ls.contact_res.stats.iterations;
    stats.solver_residual = ls.contact_res.stats.residual;
    match status {
        PgsStatus::Converged => ls.impulse.copy_from_slice(&ls.contact_res.z),
        PgsStatus::IterationLimit => {
            stats.solver_failed = true;
            stats.solver_unconverged += 1;
            ls.impulse.copy_from_slice(&ls.contact_res.z);
        }
        PgsStatus::InvalidProblem => {
            stats.solver_failed = true;
            stats.solver_failures += 1;
            ls.impulse.iter_mut().for_each(|x| *x = 0.0);
        }
    }
}

/// The Stewart–Trinkle LCP over z = (p_n | β | σ) (module doc) from W and q_W.
fn stewart_trinkle_lcp(ls: &mut LcpScratch) {
    let nc = ls.contacts.len();
    let k = ls.dirs.len();
    let n = nc * (k + 2);
    let (ib, is) = (nc, nc + nc * k);
    reshape_zeroed(&mut ls.problem.m, n, n);
    resize_zeroed(&mut ls.problem.q, n);
    let (a, q, w, qw, dirs) = (
        &mut ls.problem.m,
        &mut ls.problem.q,
        &ls.w,
        &ls.qw,
        &ls.dirs,
    );
    for c in 0..nc {
        for d in 0..nc {
            let wn = |x: usize, y: usize| w[(3 * c + x, 3 * d + y)];
            a[(c, d)] = wn(0, 0);
            for (j, &(cj, sj)) in dirs.iter().enumerate() {
                // G_nᵀ M⁻¹ G_f d_j and its transpose.
                a[(c, ib + d * k + j)] = wn(0, 1) * cj + wn(0, 2) * sj;
                a[(ib + c * k + j, d)] = cj * wn(1, 0) + sj * wn(2, 0);
                for (i, &(ci, si)) in dirs.iter().enumerate() {
                    a[(ib + c * k + i, ib + d * k + j)] =
                        ci * (wn(1, 1) * cj + wn(1, 2) * sj) + si * (wn(2, 1) * cj + wn(2, 2) * sj);
                }
            }
        }
        // E and −Eᵀ, μ.
        for j in 0..k {
            a[(ib + c * k + j, is + c)] = 1.0;
            a[(is + c, ib + c * k + j)] = -1.0;
        }
        a[(is + c, c)] = ls.contacts[c].mu;
        q[c] = qw[3 * c];
        for (j, &(cj, sj)) in dirs.iter().enumerate() {
            q[ib + c * k + j] = cj * qw[3 * c + 1] + sj * qw[3 * c + 2];
        }
    }
}

/// (p_n, f_t = D_c β) from Lemke's z.
fn read_lemke(ls: &mut LcpScratch) {
    let nc = ls.contacts.len();
    let k = ls.dirs.len();
    let z = &ls.lemke_res.z;
    if z.len() != nc * (k + 2) {
        return;
    }
    for c in 0..nc {
        let (mut f1, mut f2) = (0.0, 0.0);
        for (j, &(cj, sj)) in ls.dirs.iter().enumerate() {
            let b = z[nc + c * k + j].max(0.0);
            f1 += b * cj;
            f2 += b * sj;
        }
        ls.impulse[3 * c] = z[c].max(0.0);
        ls.impulse[3 * c + 1] = f1;
        ls.impulse[3 * c + 2] = f2;
    }
}

/// Last step's impulses of the same pair and slot into `ls.impulse`; false if none.
fn warm_impulses(pairs: &[PairState], ls: &mut LcpScratch) -> bool {
    let mut any = false;
    for (c, row) in ls.contacts.iter().enumerate() {
        if row.pair == NO_PAIR {
            continue;
        }
        let pr = &pairs[row.pair];
        if row.slot < pr.lcp_points as usize {
            let v = pr.lcp_impulse[row.slot];
            ls.impulse[3 * c..3 * c + 3].copy_from_slice(&v);
            any |= v[0] > 0.0;
        }
    }
    any
}

/// Lemke's guess from `ls.impulse`: p_n; β on the two directions bracketing f_t;
/// σ > 0 where f_t is on the cone's boundary. False if nothing is active.
fn lemke_guess(ls: &mut LcpScratch) -> bool {
    let nc = ls.contacts.len();
    let k = ls.dirs.len();
    resize_zeroed(&mut ls.guess, nc * (k + 2));
    let step = std::f64::consts::TAU / k as f64;
    let mut any = false;
    for c in 0..nc {
        let (pn, f1, f2) = (
            ls.impulse[3 * c],
            ls.impulse[3 * c + 1],
            ls.impulse[3 * c + 2],
        );
        if pn <= 0.0 {
            continue;
        }
        any = true;
        ls.guess[c] = pn;
        let mag = f1.hypot(f2);
        if mag > 0.0 {
            let mut th = f2.atan2(f1);
            if th < 0.0 {
                th += std::f64::consts::TAU;
            }
            let j = ((th / step) as usize).min(k - 1);
            let (c0, s0) = ls.dirs[j];
            let (c1, s1) = ls.dirs[(j + 1) % k];
            // f = b0 d_j + b1 d_{j+1}.
            let det = c0 * s1 - s0 * c1;
            let b0 = (f1 * s1 - f2 * c1) / det;
            let b1 = (c0 * f2 - s0 * f1) / det;
            ls.guess[nc + c * k + j] = b0.max(0.0);
            ls.guess[nc + c * k + (j + 1) % k] = b1.max(0.0);
            // On the boundary (Σβ = μ p_n): sliding, σ active.
            if b0 + b1 >= (1.0 - 1e-6) * ls.contacts[c].mu * pn {
                ls.guess[nc + nc * k + c] = 1.0;
            }
        }
    }
    any && ls.guess.iter().all(|x| x.is_finite())
}

/// Stores each point's impulse in its pair (the next step's warm start).
fn remember_impulses(
    pairs: &mut [PairState],
    set: &ContactSet,
    set_pair: &[usize],
    ls: &LcpScratch,
) {
    for pr in pairs.iter_mut() {
        pr.touching = false;
    }
    for &pi in set_pair {
        pairs[pi].touching = true;
        pairs[pi].lcp_points = 0;
    }
    let _ = set;
    for (c, row) in ls
        .contacts
        .iter()
        .enumerate()
        .filter(|(_, r)| r.pair != NO_PAIR)
    {
        let pr = &mut pairs[row.pair];
        pr.lcp_impulse[row.slot].copy_from_slice(&ls.impulse[3 * c..3 * c + 3]);
        pr.lcp_points = pr.lcp_points.max(row.slot as u8 + 1);
    }
    for pr in pairs.iter_mut().filter(|p| !p.touching) {
        pr.lcp_points = 0;
    }
}

/// ν⁺ = ν_f + M⁻¹ Gᵀ p; contact wrenches (impulse / h) for reporting.
fn apply_impulses(h: f64, state: &[BodyState], wrench: &mut [Wrench], ls: &mut LcpScratch) {
    wrench.iter_mut().for_each(|w| *w = Wrench::ZERO);
    let LcpScratch {
        blocks,
        nu_f,
        contacts,
        minv_jt,
        impulse,
        ..
    } = ls;
    for (c, row) in contacts.iter().enumerate() {
        let pc = &impulse[3 * c..3 * c + 3];
        for s in row.side.iter().filter(|s| s.block != NO_BLOCK) {
            let blk = blocks[s.block as usize];
            let nd = blk.ndof;
            for (r, pr) in pc.iter().enumerate() {
                for i in 0..nd {
                    nu_f[blk.offset + i] += minv_jt[s.jac + r * nd + i] * pr;
                }
            }
        }
        if row.limit {
            continue;
        }
        let f = (row.n * pc[0] + row.t1 * pc[1] + row.t2 * pc[2]) / h;
        let [ba, bb] = row.bodies;
        wrench[ba].add_force_at(f, row.p, state[ba].x);
        wrench[bb].add_force_at(-f, row.p, state[bb].x);
    }
}

/// v⁺, ω⁺ from ν⁺; x⁺ = x + h v⁺; q⁺ = q + (h/2)(0, ω⁺) ⊗ q renormalized (eq. (10)
/// of 003 with ω in world coordinates).
fn integrate(model: &Model, h: f64, state: &mut [BodyState], frozen: &[bool], ls: &LcpScratch) {
    for blk in &ls.blocks {
        match blk.kind {
            DofKind::Free { body } => {
                let b = body as usize;
                if model.bodies[b].kind != BodyKind::Free || frozen[b] {
                    continue;
                }
                let nu = &ls.nu_f[blk.offset..blk.offset + 6];
                let s = &mut state[b];
                s.v = Vec3::new(nu[0], nu[1], nu[2]);
                s.w = Vec3::new(nu[3], nu[4], nu[5]);
                s.x += h * s.v;
                let dq = nalgebra::Quaternion::from_imag(s.w * (0.5 * h)) * s.q.into_inner();
                s.q = Quat::new_normalize(s.q.into_inner() + dq);
            }
            DofKind::Articulated { .. } => {}
        }
    }
}

/// The robots' generalized state and commands at the start of the step.
struct RobotState<'a> {
    q: &'a [f64],
    v: &'a [f64],
    cmd: &'a [f64],
}

/// Margin (rad or m) beyond `2 h |q̇|` within which a joint limit gets its row.
const LIMIT_MARGIN: f64 = 1e-3;

/// One block per moving robot: M = H(q) + diag(a) (CRBA plus the implicit diagonal
/// of the actuation/passive law), M⁻¹ dense, ν = q̇ and ν_f = q̇ + h q̈_free with
/// q̈_free = ABA(q, q̇, τ₀, f_ext = xfrc on the proxies, armature a). The link
/// proxies of the robot map to its block. `contact` must be zero here.
#[allow(clippy::too_many_arguments)]
fn robot_blocks(
    model: &Model,
    robots: &mut [RobotData],
    rs: &RobotState<'_>,
    state: &[BodyState],
    contact: &[Wrench],
    xfrc: &[Wrench],
    h: f64,
    ls: &mut LcpScratch,
) {
    ls.kq.resize(rs.q.len(), 0.0);
    ls.kv.resize(rs.v.len(), 0.0);
    if ls.jrob.len() != model.robots.len() {
        ls.jrob.clear();
        ls.jrob
            .extend(model.robots.iter().map(|r| Matrix6xX::zeros(r.nv())));
    }
    robots::derivatives(
        model, robots, rs.q, rs.v, rs.cmd, state, contact, xfrc, &mut ls.kq, &mut ls.kv, None,
    );
    for (ri, (r, rd)) in model.robots.iter().zip(robots.iter_mut()).enumerate() {
        let nv = r.nv();
        let vs = r.v_offset..r.v_offset + nv;
        if rd.frozen || nv == 0 || !ls.kv[vs.clone()].iter().all(|x| x.is_finite()) {
            continue;
        }
        let qr = &rs.q[r.q_offset..r.q_offset + r.nq()];
        if crba(&r.tree, &mut rd.ad, qr).is_err() {
            continue;
        }
        for k in 0..nv {
            rd.ad.mass_matrix[(k, k)] += rd.armature[k];
        }
        if factor_mass(&mut rd.ad).is_err() {
            continue;
        }
        reshape_zeroed(&mut ls.hinv, nv, nv);
        ls.hinv.fill_diagonal(1.0);
        if solve_mass_columns(&rd.ad, &mut ls.hinv).is_err()
            || !ls.hinv.iter().all(|x| x.is_finite())
        {
            continue;
        }
        let bi = ls.blocks.len() as u32;
        ls.blocks.push(DofBlock {
            kind: DofKind::Articulated { robot: ri as u32 },
            offset: ls.nu.len(),
            ndof: nv,
            minv: ls.minv.len(),
        });
        for i in 0..nv {
            for j in 0..nv {
                ls.minv.push(ls.hinv[(i, j)]);
            }
        }
        for k in vs {
            ls.nu.push(rs.v[k]);
            ls.nu_f.push(rs.v[k] + h * ls.kv[k]);
        }
        for (i, b) in r.link_body.iter().enumerate() {
            if let (Some(b), true) = (*b, r.link_moves[i]) {
                ls.body_block[b] = bi;
            }
        }
    }
}

/// One-sided joint-limit rows (module doc, "Robots"): for each one-DoF joint within
/// `LIMIT_MARGIN + 2 h |q̇|` of a limit, a row ±e_k on its coordinate (+ at the
/// lower limit: the gap rate is q̇), frictionless (μ = 0; no tangent rows: two
/// decoupled placeholder variables, see `delassus`).
fn limit_rows(
    model: &Model,
    robots: &[RobotData],
    q: &[f64],
    v: &[f64],
    h: f64,
    ls: &mut LcpScratch,
) {
    for (bi, block) in ls.blocks.iter().enumerate() {
        let DofKind::Articulated { robot } = block.kind else {
            continue;
        };
        let ri = robot as usize;
        let r = &model.robots[ri];
        if robots[ri].frozen {
            continue;
        }
        let nd = block.ndof;
        for j in &r.joints {
            let (qj, vj) = (q[r.q_offset + j.qi], v[r.v_offset + j.vi]);
            let reach = LIMIT_MARGIN + 2.0 * h * vj.abs();
            for (gap, sign) in [(qj - j.lower, 1.0), (j.upper - qj, -1.0)] {
                if gap.partial_cmp(&reach) != Some(std::cmp::Ordering::Less) {
                    continue;
                }
                let off = ls.jac.len();
                ls.jac.resize(off + 3 * nd, 0.0);
                ls.minv_jt.resize(off + 3 * nd, 0.0);
                // Only the normal row: the tangent rows stay zero (see `delassus`).
                ls.jac[off + j.vi] = sign;
                for i in 0..nd {
                    ls.minv_jt[off + i] = sign * ls.minv[block.minv + i * nd + j.vi];
                }
                for x in &mut ls.minv_jt[off + nd..off + 3 * nd] {
                    *x = 0.0;
                }
                ls.contacts.push(ContactRow {
                    pair: NO_PAIR,
                    slot: 0,
                    p: Vec3::zeros(),
                    n: Vec3::zeros(),
                    t1: Vec3::zeros(),
                    t2: Vec3::zeros(),
                    mu: 0.0,
                    depth: -gap,
                    restitution: 0.0,
                    bodies: [0, 0],
                    side: [
                        Side {
                            block: bi as u32,
                            jac: off,
                        },
                        Side {
                            block: NO_BLOCK,
                            jac: 0,
                        },
                    ],
                    limit: true,
                });
            }
        }
    }
}

/// After the solve: records the start-of-step torques, accelerations and sensors
/// (ABA with the contact impulses as wrenches, `contact` = impulse / h, gives
/// (ν⁺ − ν)/h up to the joint-limit impulses, which are added to the passive
/// torques); q̇ ← ν⁺, q ← q ⊕ h ν⁺ (SE(3) exponential for a floating base),
/// normalized; the link proxies at the new state. A moving robot without a block
/// (a failed CRBA/factorization) gets NaN velocities for the quarantine.
#[allow(clippy::too_many_arguments)]
fn integrate_robots(
    model: &Model,
    robots: &mut [RobotData],
    qpos: &mut [f64],
    qvel: &mut [f64],
    cmd: &[f64],
    state: &mut [BodyState],
    contact: &[Wrench],
    xfrc: &[Wrench],
    h: f64,
    rec: robots::Record<'_>,
    ls: &mut LcpScratch,
) {
    let robots::Record {
        actuator,
        passive,
        qacc,
    } = rec;
    robots::derivatives(
        model,
        robots,
        qpos,
        qvel,
        cmd,
        state,
        contact,
        xfrc,
        &mut ls.kq,
        &mut ls.kv,
        Some(robots::Record {
            actuator: &mut *actuator,
            passive: &mut *passive,
            qacc: &mut *qacc,
        }),
    );
    for (ri, (r, rd)) in model.robots.iter().zip(robots.iter()).enumerate() {
        if rd.frozen {
            continue;
        }
        let vs = r.v_offset..r.v_offset + r.nv();
        let Some(blk) = ls
            .blocks
            .iter()
            .find(|b| b.kind == DofKind::Articulated { robot: ri as u32 })
        else {
            qvel[vs].fill(f64::NAN);
            continue;
        };
        let nu = &ls.nu_f[blk.offset..blk.offset + blk.ndof];
        // The implicit parts at the actual q̈ = (ν⁺ − ν)/h.
        for (i, k) in vs.clone().enumerate() {
            let qdd = (nu[i] - qvel[k]) / h;
            let d = ls.kv[k] - qdd;
            actuator[k] += rd.arm_act[i] * d;
            passive[k] += (rd.armature[i] - rd.arm_act[i]) * d;
            qacc[k] = qdd;
        }
        qvel[vs].copy_from_slice(nu);
    }
    // Joint-limit impulses as passive torques.
    for (c, row) in ls.contacts.iter().enumerate().filter(|(_, r)| r.limit) {
        let blk = ls.blocks[row.side[0].block as usize];
        let DofKind::Articulated { robot } = blk.kind else {
            continue;
        };
        let off = model.robots[robot as usize].v_offset;
        let jn = &ls.jac[row.side[0].jac..row.side[0].jac + blk.ndof];
        for (i, x) in jn.iter().enumerate() {
            passive[off + i] += x * ls.impulse[3 * c] / h;
        }
    }
    // q⁺ = q ⊕ h ν⁺, normalized.
    ls.q_new.resize(qpos.len(), 0.0);
    for (r, rd) in model.robots.iter().zip(robots.iter()) {
        if rd.frozen {
            continue;
        }
        let qs = r.q_offset..r.q_offset + r.nq();
        let vs = r.v_offset..r.v_offset + r.nv();
        let out = &mut ls.q_new[qs.clone()];
        if crate::dynamics::integrate(&r.tree, &qpos[qs.clone()], &qvel[vs], h, out).is_err()
            || crate::dynamics::normalize(&r.tree, out).is_err()
        {
            out.fill(f64::NAN);
        }
        qpos[qs.clone()].copy_from_slice(&ls.q_new[qs]);
    }
    robots::link_states(model, robots, qpos, qvel, state);
}
