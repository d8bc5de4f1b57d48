//! The linearly implicit normal force of the pairs that involve a robot link, under
//! the penalty stepper's semi-implicit Euler (`[penalty] robot_implicit`).
//!
//! Free bodies' pairs take eq. (3) of 000 at the end of the step
//! (`penalty_implicit`); a robot link's pair kept the explicit force, whose gains
//! `PidGains::resolve` clamps to h·kv/m_r ≤ 0.5 and h²·kp/m_r ≤ 0.5 for explicit
//! stability. For a light link the clamp leaves the contact under-damped: a
//! 50 g finger squeezing a box at 9.81 N whose command drops to 1.96 N in one tick
//! is pushed off by its compressed contact and the box falls free for 7 ms
//! (`tests/robot_grasp.rs`). Here the same law is taken implicitly, with the
//! unclamped gains, through the robot's joint-space mass matrix:
//!
//!   f_i⁺ = max{kp (d_i − h s_i⁺) − kv s_i⁺ + ki I, 0} / r = f0_i − c_i s_i⁺,
//!   c_i = (h kp + kv)/r,   f0_i = (kp d_i + ki I)/r = f_i^ex + (kv/r) s_i,
//!
//! s_i the separating normal rate at point i at the start of the step, s_i⁺ at its
//! end. The step's rates already hold the explicit forces f^ex (ABA for the robots,
//! the free bodies' rates after their own implicit solve), so with
//! W = J M̃⁻¹ Jᵀ (M̃ = H + the implicit actuation diagonal, ABA's armature; the free
//! bodies' 6×6 inverse inertias) the end rates are s⁺ = s^ex + h W (f⁺ − f^ex), and
//! on the active rows A (those with f⁺ > 0)
//!
//!   (C⁻¹ + h W_AA) f_A = C⁻¹ f0_A − s^ex_A + h (W f^ex)_A,
//!
//! symmetric positive definite (backward Euler in the contact force: stable at any
//! gain and mass ratio). A link's rows all act through its 6×nv Jacobian J_l at
//! its centre of mass x_l: row i is a_iᵀ J_l with a_i = σ [(p_i − x_l) × n_i; n_i]
//! (σ = ±1 by side), so only Z_l = L⁻ᵀ J_lᵀ (M̃ = Lᵀ L along the tree: six half
//! solves per link in contact) and the 6×6 blocks J_l M̃⁻¹ J_kᵀ = Z_lᵀ Z_k are
//! formed, whatever the point count; J_l, Z_l and u_l are zero off the link's
//! DoF chain (its joint and their ancestors), so the half solves and the blocks
//! run over the chains only (a foot's 12 of the humanoid's 32 DoFs; two feet share
//! the floating base's 6). The active set is found by a few passes (a row whose
//! force would pull is dropped; one that would push is taken). The correction
//! Δf = f⁺ − f^ex then moves the robots' q̈ by M̃⁻¹ Jᵀ Δf and the free bodies' rates
//! by their inverse inertia.
//!
//! **Split from the free pairs' solve.** A free body that touches a link and
//! another free body has its free pairs solved first (`penalty_implicit`, with
//! the links' explicit forces in its rates) and its link pairs here, with the
//! first solve's rates: one block Gauss–Seidel pass, each block implicit in its
//! own stiffness. The free pairs see the link pairs' correction at the next step.
//!
//! **Friction inside the prediction.** The link pairs' friction acts at the
//! contact points, off the links' centres of mass: through M̃⁻¹ its tangential
//! force moves the rows' normal rates too (the W_nt coupling). Taken after the
//! solve, it lifted the points the solve had just held, and at h = 1 ms a sliding
//! link alternated tick by tick between twice its load and none (docs/
//! EXPERIMENTS.md, session 40). So the friction is evaluated once on the solved
//! normal forces without touching its stick state (a trial), its generalized
//! force enters s^ex (`RobotContact::add_friction_rates`), the normal force is
//! solved again from that, and the friction is then taken for the step on the
//! second solve's forces (one block Gauss–Seidel pass, normal–tangential–normal).
//!
//! **What stays explicit:** gap rows (a link pair applies no force before it
//! penetrates), and the `implicit` integrator's velocity-product map, which the
//! correction does not pass through (M̃⁻¹, not (M̃ + ½ h D)⁻¹).

use crate::contact::impulse::ImpulseBody;
use crate::data::{BodyState, RobotData};
use crate::dynamics::{crba, point_jacobian};
use crate::math::{Vec3, Wrench};
use crate::model::{BodyKind, Model};
use crate::pipeline::integrator::Deriv;
use crate::solver::newton::{cholesky_factor, cholesky_subst};
use crate::solver::primal::{
    parent_array, tree_cholesky, tree_cholesky_solve, tree_lt_step, NO_PARENT,
};
use nalgebra::Matrix6xX;

/// Active-set passes before the last pass's set is kept.
const PASSES: usize = 8;
/// No link slot.
const NONE: u32 = u32::MAX;

/// One point of a link pair: bodies (a, b) with the force +n on a, −n on b.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RobotRow {
    pub ab: (usize, usize),
    /// The point (world) and the normal (toward a).
    pub p: Vec3,
    pub n: Vec3,
    /// c_i = (h kp + kv)/r and kv/r (unclamped gains).
    pub c: f64,
    pub kv_r: f64,
    /// The explicit force in the step's rates, and s_i at the start.
    pub f_ex: f64,
    pub s0: f64,
    /// The manifold (its reported force) and the point's index in it.
    pub manifold: usize,
    pub point: u32,
}

/// What the solve reports into and corrects: the free bodies' rates, the robots'
/// joint accelerations (flat, as `Data::qvel`), the reported contact wrenches and
/// manifold forces. (The robots' records — torques, q̈, sensors — are taken again
/// at the corrected q̈ by the caller, `robots::records_at`.)
pub(crate) struct RobotOut<'a> {
    pub k: &'a mut [Deriv],
    pub kv: &'a mut [f64],
    pub contact_wrench: &'a mut [Wrench],
    pub contact_force: &'a mut [Vec3],
}

/// A row's side on a free body that moves: the body, σ n and t = σ (p − x) × n,
/// I⁻¹ t (world), and the inverse mass (`body` = usize::MAX: no such side).
#[derive(Clone, Copy, Debug)]
struct FreeSide {
    body: usize,
    n: Vec3,
    t: Vec3,
    it: Vec3,
    inv_mass: f64,
}

impl FreeSide {
    const NONE: FreeSide = FreeSide {
        body: usize::MAX,
        n: Vec3::new(0.0, 0.0, 0.0),
        t: Vec3::new(0.0, 0.0, 0.0),
        it: Vec3::new(0.0, 0.0, 0.0),
        inv_mass: 0.0,
    };
}

/// A link in contact: its Jacobian at its centre of mass, Z = L⁻ᵀ Jᵀ (stored
/// transposed, 6 × nv; M̃ = Lᵀ L), u = J q̈ (the explicit rates), and the
/// generalized wrench g ([torque; force] about the centre) the step adds to it.
#[derive(Clone, Debug)]
struct LinkSlot {
    robot: usize,
    link: usize,
    body: usize,
    /// The DoFs the link's Jacobian can act on: its own joint's last DoF and
    /// its ancestors along the DoF parent array, descending. J, Z and u are
    /// zero off it (`tree_lt_solve` writes only ancestors).
    chain: Vec<u32>,
    j: Matrix6xX<f64>,
    z: Matrix6xX<f64>,
    u: [f64; 6],
    g: [f64; 6],
}

/// Workspace of the link pairs' implicit normal force (allocated at build; its
/// vectors grow only to the largest row count seen).
#[derive(Clone, Debug)]
pub(crate) struct RobotContact {
    pub rows: Vec<RobotRow>,
    /// The link pairs of the rows: (manifold, pair, first row); a pair's rows run
    /// to the next one's first.
    pub pairs: Vec<(usize, usize, usize)>,
    /// Per robot: its mass matrix factored this step, the factor M̃ = Lᵀ L along
    /// the tree (row-major, `solver::primal::tree_cholesky`) and its DoF parents.
    touched: Vec<bool>,
    mfac: Vec<Vec<f64>>,
    mpar: Vec<Vec<u32>>,
    /// One slot per link body (`slot_of[body]`), the slots in contact this step,
    /// and their 6×6 blocks J_l Y_k (row-major, `active.len()²` blocks).
    slots: Vec<LinkSlot>,
    slot_of: Vec<u32>,
    active_links: Vec<u32>,
    blocks: Vec<[f64; 36]>,
    /// Per row and side: (active-link index or NONE, a = σ [(p − x) × n; n]).
    side: Vec<[(u32, [f64; 6]); 2]>,
    /// Per row and active link k: p = Σ_l (J_l M̃⁻¹ J_kᵀ)ᵀ a over the row's link
    /// sides (`system`); per row and side: its free body's terms.
    proj: Vec<[f64; 6]>,
    free_side: Vec<[FreeSide; 2]>,
    tau: Vec<f64>,
    /// W (m × m), W f^ex, s^ex, the solution and its active set.
    w: Vec<f64>,
    wf: Vec<f64>,
    s_ex: Vec<f64>,
    f: Vec<f64>,
    active: Vec<bool>,
    /// The active rows' system (row-major) and right-hand side.
    a: Vec<f64>,
    b: Vec<f64>,
    idx: Vec<usize>,
    /// Whether the last solve found a consistent set (else the explicit force
    /// stays), and the trial friction's wrenches on each body ([torque; force]
    /// about the centre of mass), pushed by the caller (`penalty::robot_friction`).
    solved: bool,
    pub friction: Vec<(usize, Wrench)>,
    /// The rates' change under the trial friction: per active link, and per row.
    du: Vec<[f64; 6]>,
    /// Counters of the last solve: rows, active-set passes, and the robots or
    /// systems that failed (the explicit force kept); the stepper copies them
    /// into `StepStats::robot_contact_*` at the end of the step.
    pub last_rows: usize,
    pub last_passes: usize,
    pub last_failures: u64,
}

impl RobotContact {
    pub fn new(model: &Model) -> Self {
        let mut slots = Vec::new();
        let mut slot_of = vec![NONE; model.nbody()];
        for (ri, r) in model.robots.iter().enumerate() {
            for (link, b) in r.link_body.iter().enumerate() {
                if let Some(b) = *b {
                    slot_of[b] = slots.len() as u32;
                    slots.push(LinkSlot {
                        robot: ri,
                        link,
                        body: b,
                        chain: link_chain(&r.tree, link),
                        j: Matrix6xX::zeros(r.nv()),
                        z: Matrix6xX::zeros(r.nv()),
                        u: [0.0; 6],
                        g: [0.0; 6],
                    });
                }
            }
        }
        let n = slots.len();
        RobotContact {
            rows: Vec::new(),
            pairs: Vec::new(),
            touched: vec![false; model.robots.len()],
            mfac: model
                .robots
                .iter()
                .map(|r| vec![0.0; r.nv() * r.nv()])
                .collect(),
            mpar: model
                .robots
                .iter()
                .map(|r| {
                    r.tree
                        .dof_parent()
                        .iter()
                        .map(|p| p.map_or(NO_PARENT, |p| p as u32))
                        .collect()
                })
                .collect(),
            slots,
            slot_of,
            active_links: Vec::with_capacity(n),
            blocks: Vec::new(),
            side: Vec::new(),
            proj: Vec::new(),
            free_side: Vec::new(),
            tau: vec![0.0; model.robots.iter().map(|r| r.nv()).max().unwrap_or(0)],
            w: Vec::new(),
            wf: Vec::new(),
            s_ex: Vec::new(),
            f: Vec::new(),
            active: Vec::new(),
            a: Vec::new(),
            b: Vec::new(),
            idx: Vec::new(),
            solved: false,
            friction: Vec::new(),
            du: Vec::with_capacity(n),
            last_rows: 0,
            last_passes: 0,
            last_failures: 0,
        }
    }

    /// The counters of a step that has not solved yet.
    pub fn clear_counters(&mut self) {
        self.last_rows = 0;
        self.last_passes = 0;
        self.last_failures = 0;
    }

    /// Solves the normal force of the rows pushed this evaluation (module doc);
    /// [`RobotContact::apply`] then applies the correction to the free bodies'
    /// rates and the links' generalized wrenches, and the robots' q̈ take the
    /// links' wrenches at [`RobotContact::finish`]. `q`: the robots'
    /// configuration at the step's start; `state`, `bodies`: the bodies and their
    /// inverse mass properties there; `h` the step. A quarantined robot is taken
    /// as immovable; one whose mass matrix fails to factor too, and a system that
    /// fails to solve keeps the explicit force (both counted in `last_failures`).
    pub fn solve(
        &mut self,
        model: &Model,
        h: f64,
        robots: &mut [RobotData],
        (q, state, bodies): (&[f64], &[BodyState], &[ImpulseBody]),
        out: &mut RobotOut<'_>,
    ) {
        let m = self.rows.len();
        self.last_rows = m;
        self.last_passes = 0;
        self.last_failures = 0;
        self.active_links.clear();
        self.friction.clear();
        self.solved = false;
        if m == 0 {
            return;
        }
        self.factor_robots(model, robots, q);
        self.link_blocks(model, robots, state, out.kv);
        self.row_sides(state);
        self.system(model, h, state, bodies, out.k);
        self.solve_set(h, false);
    }

    /// The active-set passes on the current s^ex; the explicit force where they
    /// find no consistent set (counted).
    fn solve_set(&mut self, h: f64, warm: bool) {
        self.solved = self.active_set(h, warm);
        if !self.solved {
            // No consistent set within the passes (or a singular system): the
            // explicit force stays.
            self.last_failures += 1;
            for (f, r) in self.f.iter_mut().zip(&self.rows) {
                *f = r.f_ex;
            }
        }
    }

    /// Whether the last solve found its set (the trial friction is worth taking).
    #[inline]
    pub fn solved(&self) -> bool {
        self.solved && !self.rows.is_empty()
    }

    /// The trial friction's wrenches (`self.friction`) into the rows' end rates,
    /// s^ex += h J M̃⁻¹ Jᵀ g (the links' blocks; a free body's inverse inertia),
    /// and the normal force solved again from them (module doc). A wrench on a
    /// body with no row side here (a static body, a link not in contact) moves
    /// no row.
    pub fn resolve_with_friction(
        &mut self,
        model: &Model,
        h: f64,
        state: &[BodyState],
        bodies: &[ImpulseBody],
    ) {
        if !self.solved() || self.friction.is_empty() {
            return;
        }
        let nl = self.active_links.len();
        self.du.clear();
        self.du.resize(nl, [0.0; 6]);
        for &(b, w) in &self.friction {
            let s = self.slot_of[b];
            let Some(lk) = self.active_links.iter().position(|&x| x == s) else {
                continue;
            };
            let g = [
                w.torque.x, w.torque.y, w.torque.z, w.force.x, w.force.y, w.force.z,
            ];
            for (ll, du) in self.du.iter_mut().enumerate() {
                // blocks[l·nl + k] = J_l M̃⁻¹ J_kᵀ (zero across robots).
                let blk = &self.blocks[ll * nl + lk];
                for (a, d) in du.iter_mut().enumerate() {
                    *d += (0..6).map(|c| blk[a * 6 + c] * g[c]).sum::<f64>();
                }
            }
        }
        for i in 0..self.rows.len() {
            let ri = &self.rows[i];
            let mut ds = 0.0;
            for (li, a) in self.side[i] {
                if li != NONE {
                    ds += dot6(&a, &self.du[li as usize]);
                }
            }
            for (b, sign) in [(ri.ab.0, 1.0), (ri.ab.1, -1.0)] {
                let Some(arm) = free_arm(model, state, bodies, b, &ri.p) else {
                    continue;
                };
                let ib = &bodies[b];
                for &(bw, w) in &self.friction {
                    if bw == b {
                        let (dv, dw) = (w.force * ib.inv_mass, ib.inv_inertia_w * w.torque);
                        ds += sign * ri.n.dot(&(dv + dw.cross(&arm)));
                    }
                }
            }
            self.s_ex[i] += h * ds;
        }
        // From the first solve's active set: the friction moves few rows.
        self.solve_set(h, true);
    }

    /// The touched robots' M̃ = H + diag(armature), factored.
    fn factor_robots(&mut self, model: &Model, robots: &mut [RobotData], q: &[f64]) {
        self.touched.iter_mut().for_each(|t| *t = false);
        for row in &self.rows {
            for b in [row.ab.0, row.ab.1] {
                if let BodyKind::Link { robot, .. } = model.bodies[b].kind {
                    self.touched[robot as usize] = true;
                }
            }
        }
        for (ri, (r, rd)) in model.robots.iter().zip(robots.iter_mut()).enumerate() {
            if !self.touched[ri] {
                continue;
            }
            if rd.frozen {
                // Quarantined (reported there): immovable, not a failed solve.
                self.touched[ri] = false;
                continue;
            }
            let (nv, qr) = (r.nv(), &q[r.q_offset..r.q_offset + r.nq()]);
            let (mfac, mpar) = (&mut self.mfac[ri], &self.mpar[ri]);
            let ok =
                crba(&r.tree, &mut rd.ad, qr).is_ok() && rd.ad.mass_matrix.len() == nv * nv && {
                    // H is symmetric: its column-major storage is its row-major one.
                    mfac.copy_from_slice(rd.ad.mass_matrix.as_slice());
                    for k in 0..nv {
                        mfac[k * nv + k] += rd.armature[k];
                    }
                    parent_array(mpar, nv) && tree_cholesky(mfac, nv, mpar)
                };
            if !ok {
                self.last_failures += 1;
                self.touched[ri] = false;
            }
        }
    }

    /// The links in contact: J at the centre of mass, Z = L⁻ᵀ Jᵀ, u = J q̈, and
    /// the 6×6 blocks J_l M̃⁻¹ J_kᵀ = Z_lᵀ Z_k between links of one robot.
    fn link_blocks(
        &mut self,
        model: &Model,
        robots: &[RobotData],
        state: &[BodyState],
        kv: &[f64],
    ) {
        for row in &self.rows {
            for b in [row.ab.0, row.ab.1] {
                let s = self.slot_of[b];
                if s != NONE
                    && self.touched[self.slots[s as usize].robot]
                    && !self.active_links.contains(&s)
                {
                    self.active_links.push(s);
                }
            }
        }
        // `chain_lt_solve` reads a right-hand side zero off the chain.
        self.tau.iter_mut().for_each(|t| *t = 0.0);
        let mut keep = 0;
        for t in 0..self.active_links.len() {
            let sl = &mut self.slots[self.active_links[t] as usize];
            let (r, rd) = (&model.robots[sl.robot], &robots[sl.robot]);
            let x = state[sl.body].x;
            if point_jacobian(&r.tree, &rd.ad, sl.link, &x, &mut sl.j).is_err() {
                continue;
            }
            let nv = r.nv();
            let tau = &mut self.tau[..nv];
            let (mfac, mpar) = (&self.mfac[sl.robot], &self.mpar[sl.robot]);
            let qdd = &kv[r.v_offset..r.v_offset + nv];
            let mut ok = true;
            for a in 0..6 {
                for &k in &sl.chain {
                    tau[k as usize] = sl.j[(a, k as usize)];
                }
                chain_lt_solve(mfac, nv, mpar, &sl.chain, tau);
                let mut u = 0.0;
                for &k in sl.chain.iter().rev() {
                    let k = k as usize;
                    ok &= tau[k].is_finite();
                    sl.z[(a, k)] = tau[k];
                    tau[k] = 0.0;
                    u += sl.j[(a, k)] * qdd[k];
                }
                sl.u[a] = u;
            }
            sl.g = [0.0; 6];
            if ok {
                self.active_links[keep] = self.active_links[t];
                keep += 1;
            }
        }
        self.active_links.truncate(keep);
        let nl = self.active_links.len();
        self.blocks.clear();
        self.blocks.resize(nl * nl, [0.0; 36]);
        for (li, &sl) in self.active_links.iter().enumerate() {
            for (ki, &sk) in self.active_links.iter().enumerate().skip(li) {
                let (l, k) = (&self.slots[sl as usize], &self.slots[sk as usize]);
                if l.robot != k.robot {
                    continue;
                }
                // Σ over the DoFs both chains hold (Z is zero off each).
                let mut blk = [0.0; 36];
                let (mut x, mut y) = (0, 0);
                while x < l.chain.len() && y < k.chain.len() {
                    let (dl, dk) = (l.chain[x], k.chain[y]);
                    if dl > dk {
                        x += 1;
                    } else if dk > dl {
                        y += 1;
                    } else {
                        let (zl, zk) = (l.z.column(dl as usize), k.z.column(dk as usize));
                        for a in 0..6 {
                            for c in 0..6 {
                                blk[a * 6 + c] += zl[a] * zk[c];
                            }
                        }
                        x += 1;
                        y += 1;
                    }
                }
                // (l, k) and its transpose (k, l).
                let mut tr = [0.0; 36];
                for a in 0..6 {
                    for c in 0..6 {
                        tr[c * 6 + a] = blk[a * 6 + c];
                    }
                }
                self.blocks[li * nl + ki] = blk;
                self.blocks[ki * nl + li] = tr;
            }
        }
    }

    /// Each row's sides: the active link it acts on and a = σ [(p − x) × n; n].
    fn row_sides(&mut self, state: &[BodyState]) {
        self.side.clear();
        for row in &self.rows {
            let mut sides = [(NONE, [0.0; 6]); 2];
            for (s, (b, sign)) in [(row.ab.0, 1.0), (row.ab.1, -1.0)].into_iter().enumerate() {
                let slot = self.slot_of[b];
                let Some(li) = self.active_links.iter().position(|&x| x == slot) else {
                    continue;
                };
                let t = (row.p - state[b].x).cross(&row.n) * sign;
                let n = row.n * sign;
                sides[s] = (li as u32, [t.x, t.y, t.z, n.x, n.y, n.z]);
            }
            self.side.push(sides);
        }
    }

    /// W = J M̃⁻¹ Jᵀ + the free bodies' part, s^ex = s + h J (rates), W f^ex.
    ///
    /// W_ij = Σ a_iᵀ (J_l M̃⁻¹ J_kᵀ) a_j over the rows' link sides (l of i, k of
    /// j) is taken as p_{i,k} · a_j with p_{i,k} = Σ_l (J_l M̃⁻¹ J_kᵀ)ᵀ a_i, one
    /// 6-vector per row and active link (`m · nl` block products instead of
    /// `m²`); a free body's part, inv_mass n_i·n_j + t_iᵀ I⁻¹ t_j (t = arm × n),
    /// from each row side's t and I⁻¹ t, taken once.
    fn system(
        &mut self,
        model: &Model,
        h: f64,
        state: &[BodyState],
        bodies: &[ImpulseBody],
        k: &[Deriv],
    ) {
        let m = self.rows.len();
        let nl = self.active_links.len();
        self.s_ex.clear();
        self.proj.clear();
        self.proj.resize(m * nl, [0.0; 6]);
        self.free_side.clear();
        for i in 0..m {
            let ri = &self.rows[i];
            let mut s = ri.s0;
            let mut fs = [FreeSide::NONE; 2];
            for (x, (b, sign)) in [(ri.ab.0, 1.0), (ri.ab.1, -1.0)].into_iter().enumerate() {
                if let Some(arm) = free_arm(model, state, bodies, b, &ri.p) {
                    s += h * sign * ri.n.dot(&(k[b].dv + k[b].dw.cross(&arm)));
                    let t = arm.cross(&ri.n) * sign;
                    let ib = &bodies[b];
                    fs[x] = FreeSide {
                        body: b,
                        n: ri.n * sign,
                        t,
                        it: ib.inv_inertia_w * t,
                        inv_mass: ib.inv_mass,
                    };
                }
            }
            self.free_side.push(fs);
            for (li, a) in self.side[i] {
                if li == NONE {
                    continue;
                }
                let u = &self.slots[self.active_links[li as usize] as usize].u;
                s += h * dot6(&a, u);
                for kk in 0..nl {
                    let blk = &self.blocks[li as usize * nl + kk];
                    let p = &mut self.proj[i * nl + kk];
                    for (r, ar) in a.iter().enumerate() {
                        if *ar != 0.0 {
                            for (c, pc) in p.iter_mut().enumerate() {
                                *pc += ar * blk[r * 6 + c];
                            }
                        }
                    }
                }
            }
            self.s_ex.push(s);
        }
        self.w.clear();
        self.w.resize(m * m, 0.0);
        for i in 0..m {
            for j in i..m {
                let mut wij = 0.0;
                for (lj, aj) in self.side[j] {
                    if lj != NONE {
                        wij += dot6(&self.proj[i * nl + lj as usize], &aj);
                    }
                }
                for fa in &self.free_side[i] {
                    if fa.body == usize::MAX {
                        continue;
                    }
                    for fb in &self.free_side[j] {
                        if fb.body == fa.body {
                            wij += fa.inv_mass * fa.n.dot(&fb.n) + fa.t.dot(&fb.it);
                        }
                    }
                }
                self.w[i * m + j] = wij;
                self.w[j * m + i] = wij;
            }
        }
        self.wf.clear();
        for i in 0..m {
            let wrow = &self.w[i * m..(i + 1) * m];
            self.wf
                .push(wrow.iter().zip(&self.rows).map(|(w, r)| w * r.f_ex).sum());
        }
    }

    /// The active set, from every row (each pushes explicitly) or, `warm`, from
    /// the last solve's set: a row whose force would pull is dropped, one whose
    /// end rate would have it push is taken. False when no set is consistent
    /// within the passes or a system is singular.
    fn active_set(&mut self, h: f64, warm: bool) -> bool {
        let m = self.rows.len();
        if !warm || self.active.len() != m {
            self.active.clear();
            self.active.resize(m, true);
        }
        self.f.clear();
        self.f.resize(m, 0.0);
        for pass in 0..PASSES {
            self.last_passes = pass + 1;
            if !self.solve_active(h) {
                return false;
            }
            let mut changed = false;
            for i in 0..m {
                let r = &self.rows[i];
                let wrow = &self.w[i * m..(i + 1) * m];
                let s_plus = self.s_ex[i]
                    + h * wrow
                        .iter()
                        .zip(self.f.iter().zip(&self.rows))
                        .map(|(w, (f, rr))| w * (f - rr.f_ex))
                        .sum::<f64>();
                let trial = r.f_ex + r.kv_r * r.s0 - r.c * s_plus;
                let want = if self.active[i] {
                    self.f[i] > 0.0
                } else {
                    trial > 0.0
                };
                if want != self.active[i] {
                    self.active[i] = want;
                    changed = true;
                }
            }
            if !changed {
                return true;
            }
        }
        false
    }

    /// f on the active rows (0 on the others); false if the system is singular.
    fn solve_active(&mut self, h: f64) -> bool {
        let m = self.rows.len();
        self.idx.clear();
        self.idx.extend((0..m).filter(|&i| self.active[i]));
        let k = self.idx.len();
        self.f.iter_mut().for_each(|f| *f = 0.0);
        if k == 0 {
            return true;
        }
        self.a.clear();
        self.b.clear();
        for &i in &self.idx {
            let r = &self.rows[i];
            for &j in &self.idx {
                let d = if i == j { 1.0 / r.c } else { 0.0 };
                self.a.push(d + h * self.w[i * m + j]);
            }
            // C⁻¹ f0 − s^ex + h (W f^ex), f0 = f^ex + (kv/r) s.
            self.b
                .push((r.f_ex + r.kv_r * r.s0) / r.c - self.s_ex[i] + h * self.wf[i]);
        }
        // C⁻¹ + h W_AA is symmetric positive definite (C > 0, W a Gram
        // matrix): Cholesky.
        if !cholesky_factor(&mut self.a, k) {
            return false;
        }
        cholesky_subst(&self.a, &mut self.b, k);
        if !self.b.iter().all(|x| x.is_finite()) {
            return false;
        }
        for (t, &i) in self.idx.iter().enumerate() {
            self.f[i] = self.b[t];
        }
        true
    }

    /// Δf = f⁺ − f^ex into the free bodies' rates, the links' wrenches and the
    /// reports (nothing where the solve kept the explicit force).
    pub fn apply(
        &mut self,
        model: &Model,
        state: &[BodyState],
        bodies: &[ImpulseBody],
        out: &mut RobotOut<'_>,
    ) {
        if !self.solved() {
            return;
        }
        for (i, r) in self.rows.iter().enumerate() {
            let df = self.f[i] - r.f_ex;
            let fv = r.n * df;
            for (b, sign) in [(r.ab.0, 1.0), (r.ab.1, -1.0)] {
                out.contact_wrench[b].add_force_at(fv * sign, r.p, state[b].x);
                if let Some(arm) = free_arm(model, state, bodies, b, &r.p) {
                    let ib = &bodies[b];
                    out.k[b].dv += fv * (sign * ib.inv_mass);
                    out.k[b].dw += ib.inv_inertia_w * arm.cross(&(fv * sign));
                }
            }
            if let Some(mf) = out.contact_force.get_mut(r.manifold) {
                *mf += fv;
            }
            for (li, a) in self.side[i] {
                if li != NONE {
                    let g = &mut self.slots[self.active_links[li as usize] as usize].g;
                    for (gk, ak) in g.iter_mut().zip(a) {
                        *gk += ak * df;
                    }
                }
            }
        }
    }

    /// Whether robot `ri`'s q̈ was corrected by the last solve.
    #[inline]
    pub fn touched(&self, ri: usize) -> bool {
        self.touched[ri] && !self.rows.is_empty()
    }

    /// Row `i`'s solved normal force (its explicit one where the solve failed).
    #[inline]
    pub fn force(&self, i: usize) -> f64 {
        self.f[i]
    }

    /// A wrench `w` (world, about the body's centre of mass) on body `b` after the
    /// solve: into a link's generalized wrench (its robot's q̈ at
    /// [`RobotContact::finish`]) or a free body's rates, and the reported wrench.
    /// A link not in contact this step, or of a robot whose mass matrix did not
    /// factor, takes nothing.
    pub fn apply_wrench(
        &mut self,
        model: &Model,
        bodies: &[ImpulseBody],
        (b, w): (usize, Wrench),
        out: &mut RobotOut<'_>,
    ) {
        out.contact_wrench[b].force += w.force;
        out.contact_wrench[b].torque += w.torque;
        match model.bodies[b].kind {
            BodyKind::Link { .. } => {
                let s = self.slot_of[b];
                if self.active_links.contains(&s) {
                    let g = &mut self.slots[s as usize].g;
                    let v = [
                        w.torque.x, w.torque.y, w.torque.z, w.force.x, w.force.y, w.force.z,
                    ];
                    for (gk, vk) in g.iter_mut().zip(v) {
                        *gk += vk;
                    }
                }
            }
            BodyKind::Free if bodies[b].inv_mass > 0.0 => {
                let ib = &bodies[b];
                out.k[b].dv += w.force * ib.inv_mass;
                out.k[b].dw += ib.inv_inertia_w * w.torque;
            }
            _ => {}
        }
    }

    /// The links' generalized wrenches into their robots' q̈: per robot,
    /// q̈ += M̃⁻¹ Σ_l J_lᵀ g_l (one solve).
    pub fn finish(&mut self, model: &Model, kv: &mut [f64]) {
        for (ri, r) in model.robots.iter().enumerate() {
            if !self.touched[ri] {
                continue;
            }
            let nv = r.nv();
            let tau = &mut self.tau[..nv];
            tau.iter_mut().for_each(|t| *t = 0.0);
            let mut any = false;
            for &s in &self.active_links {
                let sl = &mut self.slots[s as usize];
                if sl.robot != ri {
                    continue;
                }
                for (k, t) in tau.iter_mut().enumerate() {
                    *t += (0..6).map(|c| sl.j[(c, k)] * sl.g[c]).sum::<f64>();
                }
                any = true;
                sl.g = [0.0; 6];
            }
            if any {
                tree_cholesky_solve(&self.mfac[ri], nv, &self.mpar[ri], tau);
                for (a, t) in kv[r.v_offset..r.v_offset + nv].iter_mut().zip(tau.iter()) {
                    *a += t;
                }
            }
        }
    }
}

#[inline]
fn dot6(a: &[f64; 6], b: &[f64; 6]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The DoFs `link`'s Jacobian can act on, descending (the `chain` of
/// [`LinkSlot`]): from the last DoF of the nearest joint at or above the link
/// that has one, along the DoF parent array.
fn link_chain(tree: &crate::dynamics::ArticulatedModel, link: usize) -> Vec<u32> {
    let mut l = Some(link);
    let mut last = None;
    while let Some(i) = l {
        if let Some(k) = tree.v_index()[i] {
            last = Some(k + tree.joint()[i].nv() - 1);
            break;
        }
        l = tree.parent()[i];
    }
    let mut chain = Vec::new();
    while let Some(k) = last {
        chain.push(k as u32);
        last = tree.dof_parent()[k];
    }
    chain
}

/// `b ← L⁻ᵀ b` as [`tree_lt_solve`], for a `b` that is zero off `chain` (a
/// DoF, then its ancestors, descending): the DoFs off it would divide a zero
/// and pass nothing on, so only the chain's are visited.
fn chain_lt_solve(l: &[f64], n: usize, parent: &[u32], chain: &[u32], b: &mut [f64]) {
    for &k in chain {
        tree_lt_step(l, n, parent, k as usize, b);
    }
}

/// The lever p − x_b of a free body that moves (inverse mass > 0), else None
/// (static, frozen, or a link: links move through the robots' DoFs).
#[inline]
fn free_arm(
    model: &Model,
    state: &[BodyState],
    bodies: &[ImpulseBody],
    b: usize,
    p: &Vec3,
) -> Option<Vec3> {
    (model.bodies[b].kind == BodyKind::Free && bodies[b].inv_mass > 0.0).then(|| p - state[b].x)
}
