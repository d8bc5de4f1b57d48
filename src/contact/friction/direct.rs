//! The linear anchors' coupled solve, direct (`[penalty.friction] direct`, off by
//! default; issue 18, scale19).
//!
//! [`LinearSticks`]' blocks hold, for each sticking pair p, its backward Euler
//! x_p = −K θ_p − D_p J_p u (x = (g₁, g₂, τ_n), D_p = diag(D, D, D_t), the
//! right-hand side `rhs` = −K θ − D y_start) with u the bodies' velocity change
//! over the step, M u = M u_free + h Jᵀ x. Block Gauss–Seidel solves it one block
//! at a time and converges slowly where the pairs are coupled (a settled pile:
//! 29.4 relaxations per block a step, at its 30-sweep cap, docs/BENCHMARKS.md
//! scale18). Here the sticking rows are eliminated into the body space:
//!
//!   (M + h J_Aᵀ D_A J_A) u = M u_free + h J_Aᵀ rhs_A + h J_Cᵀ x̄_C,
//!   x_A = rhs_A − D_A J_A u,
//!
//! A the blocks that stick (inside their cones), C the clamped ones with their
//! force x̄_C held. The matrix is SPD (M SPD, D ≥ 0) with one 6×6 block per
//! moving body and one off-diagonal block per pair of moving bodies, factored by
//! [`BlockCholesky`] (minimum degree; each island its own tree). A row with
//! D = 0 (an explicit twist) gives x = rhs, as the block's own solve does.
//!
//! **The cone as an active set.** A sticking block whose x lands outside its
//! cones (‖g − L_t‖ > limit or |τ| > limit r) leaves A: it is clamped at its own
//! solve from the others' present rates, projected ([`LinearBlock::relax_at`],
//! Gauss–Seidel's relaxation). The clamped blocks' x̄ only enter the right-hand
//! side, so while A is unchanged they are iterated by re-solving with the same
//! factor; a clamped block whose own solve comes back inside its cones rejoins
//! A (a refactorization). At the end every block of A satisfies its equation
//! with the others' final forces and lies inside its cones, and every clamped
//! block is its projected relaxation of the others' final forces (to
//! `LINEAR_TOL`): the fixed point of the projected block Gauss–Seidel, reached
//! exactly on A. Bounded: [`MAX_FACTORS`] factorizations and [`MAX_SOLVES`]
//! solves, then (or on a body the factor cannot take: a rolling anchor, a
//! moving body with a zero inverse mass or a singular inverse inertia, a
//! singular block, a non-finite value) the Gauss–Seidel of
//! [`LinearSticks::solve`] from the blocks' start: the fallback and the reference.
//!
//! `LinearSticks::sweeps` / `relaxations` report the back-substitutions and
//! the factorizations of a direct solve (the fallback's own counts where it
//! fell back).
//!
//! **Measured (scale19, docs/BENCHMARKS.md).** Exact and in one factorization
//! where every anchor sticks (lib test
//! `direct_solve_is_the_converged_sweeps_where_every_anchor_sticks`). On the
//! settled pile_100 it is not: 57–83 of ≈ 235 blocks (25–35 %) are clamped at
//! the fixed point, and the clamped blocks' iteration contracts by ≈ 0.78 per
//! back-substitution — ≈ 43 solves and 5–9 factorizations a step, dearer than
//! the 30 sweeps it replaces. Kept behind the key as the converged reference.
//! Buffers are kept (no allocation once the largest pattern has been seen).

use super::{LinearBlock, LinearSticks, LINEAR_TOL};
use crate::math::{Mat3, Vec3};
use crate::solver::block_cholesky::{BlockCholesky, M6, V6};

/// No column (a static side, a body of no block).
const NONE: u32 = u32::MAX;
/// Factorizations (active sets) of one solve at most.
const MAX_FACTORS: usize = 12;
/// Back-substitutions of one solve at most (the clamped blocks' iteration).
const MAX_SOLVES: usize = 100;

/// The direct solve's buffers and counts ([`LinearSticks::solve_direct`]).
#[derive(Clone, Debug, Default)]
pub struct DirectSolve {
    chol: BlockCholesky,
    /// Per body: its column, [`NONE`] if it is not a moving body of a block.
    col: Vec<u32>,
    /// Per column: the body, its M (6×6) and its (1/m, I⁻¹) as the blocks carry
    /// them (every block on the body must carry the same).
    bodies: Vec<usize>,
    mass: Vec<M6>,
    inv: Vec<(f64, Mat3)>,
    /// The off-diagonal pattern: the pairs of columns a block couples.
    edges: Vec<(u32, u32)>,
    /// Per block: the columns of a and b ([`NONE`]: static), its edge (with
    /// whether a is the edge's first column), J's rows on a and b, clamped.
    side: Vec<[u32; 2]>,
    edge: Vec<(usize, bool)>,
    jac: Vec<[[V6; 3]; 2]>,
    /// Per block: clamped (held at its projected relaxation).
    clamped: Vec<bool>,
    /// The right-hand side, then u (by column).
    u: Vec<V6>,

    /// Of the last solve: factorizations, back-substitutions, and whether it fell
    /// back; over the solves since creation: the fallbacks.
    pub factors: usize,
    pub solves: usize,
    pub fell_back: bool,
    pub fallbacks: usize,
}

/// (a, b) as a 6-vector (v, ω).
#[inline]
fn v6(a: &Vec3, b: &Vec3) -> V6 {
    V6::new(a.x, a.y, a.z, b.x, b.y, b.z)
}

impl DirectSolve {
    /// The columns, masses, pattern and Jacobian rows of `blocks`; false if a
    /// moving body cannot be factored (zero inverse mass, singular inverse
    /// inertia, or blocks that disagree on them), or a block's own system is
    /// singular.
    fn setup(&mut self, blocks: &[LinearBlock], nbody: usize) -> bool {
        if self.col.len() < nbody {
            self.col.resize(nbody, NONE);
        }
        self.bodies.clear();
        self.mass.clear();
        self.inv.clear();
        self.edges.clear();
        self.side.clear();
        self.edge.clear();
        self.jac.clear();
        self.clamped.clear();
        let mut ok = true;
        for blk in blocks {
            ok &= blk.inv != Mat3::zeros();
            let mut side = [NONE; 2];
            for (k, s) in side.iter_mut().enumerate() {
                let (im, ii) = (blk.inv_mass[k], blk.inv_inertia_w[k]);
                if im == 0.0 && ii == Mat3::zeros() {
                    continue;
                }
                let b = blk.bodies[k];
                let Some(c) = self.col.get_mut(b) else {
                    ok = false;
                    continue;
                };
                if *c == NONE {
                    *c = self.bodies.len() as u32;
                    self.bodies.push(b);
                    self.inv.push((im, ii));
                    let inertia = ii.try_inverse().filter(|m| m.iter().all(|v| v.is_finite()));
                    let mut m = M6::zeros();
                    match inertia {
                        Some(i) if im > 0.0 => {
                            for r in 0..3 {
                                m[(r, r)] = 1.0 / im;
                                for q in 0..3 {
                                    m[(3 + r, 3 + q)] = i[(r, q)];
                                }
                            }
                        }
                        _ => ok = false,
                    }
                    self.mass.push(m);
                } else {
                    ok &= self.inv[*c as usize] == (im, ii);
                }
                *s = *c;
            }
            if side[0] != NONE && side[1] != NONE {
                ok &= side[0] != side[1];
                let e = (side[0].min(side[1]), side[0].max(side[1]));
                self.edges.push(e);
            }
            self.side.push(side);
            self.clamped.push(false);
            let g = blk.angular_rows();
            let z = Vec3::zeros();
            let l = [blk.t[0], blk.t[1], z];
            self.jac.push([
                std::array::from_fn(|i| v6(&l[i], &g[0][i])),
                std::array::from_fn(|i| v6(&-l[i], &g[1][i])),
            ]);
        }
        self.edges.sort_unstable();
        self.edges.dedup();
        if !ok {
            return false;
        }
        self.chol.analyze(self.bodies.len(), &self.edges);
        for s in &self.side {
            let e = if s[0] != NONE && s[1] != NONE {
                match self.chol.edge_index(s[0], s[1]) {
                    Some(e) => (e, self.edges[e].0 == s[0]),
                    None => return false,
                }
            } else {
                (0, false)
            };
            self.edge.push(e);
        }
        true
    }
}

/// A row of a block in the direct solve: the combination `coef` of the block's
/// rows (t₁, t₂, twist) it is and its law x_r = base − d J_r u (d = 0: held at
/// `base`).
#[derive(Clone, Copy, Debug)]
struct Row {
    coef: [f64; 3],
    d: f64,
    base: f64,
}

impl DirectSolve {
    /// The rows of block p: t₁, t₂ and the twist with their stick laws
    /// x = rhs − D J u, or, clamped, held at the block's present x.
    fn rows(&self, p: usize, blk: &LinearBlock) -> [Row; 3] {
        let x = blk.x();
        std::array::from_fn(|i| {
            let mut coef = [0.0; 3];
            coef[i] = 1.0;
            if self.clamped[p] {
                Row {
                    coef,
                    d: 0.0,
                    base: x[i],
                }
            } else {
                Row {
                    coef,
                    d: blk.d[i],
                    base: blk.rhs[i],
                }
            }
        })
    }

    /// Row `r`'s J on side k: Σⱼ coefⱼ J_kj.
    #[inline]
    fn row_jac(&self, p: usize, k: usize, r: &Row) -> V6 {
        let j = &self.jac[p][k];
        j[0] * r.coef[0] + j[1] * r.coef[1] + j[2] * r.coef[2]
    }

    /// Assembles M + h Σ d J_rᵀ J_r over the rows that hold their stick
    /// equation and factors it.
    fn factor(&mut self, blocks: &[LinearBlock], h: f64) -> bool {
        self.chol.clear_values();
        for (c, m) in self.mass.iter().enumerate() {
            self.chol.add_diag(c, m);
        }
        for (p, blk) in blocks.iter().enumerate() {
            let side = self.side[p];
            let mut m = [M6::zeros(); 3];
            for r in self.rows(p, blk) {
                if r.d == 0.0 {
                    continue;
                }
                let j = [self.row_jac(p, 0, &r), self.row_jac(p, 1, &r)];
                let ja = j[0] * (h * r.d);
                m[0] += ja * j[0].transpose();
                m[1] += (j[1] * (h * r.d)) * j[1].transpose();
                m[2] += ja * j[1].transpose();
            }
            for k in 0..2 {
                if side[k] != NONE {
                    self.chol.add_diag(side[k] as usize, &m[k]);
                }
            }
            if side[0] != NONE && side[1] != NONE {
                let (e, a_first) = self.edge[p];
                self.chol.add_edge(e, a_first, &m[2]);
            }
        }
        self.factors += 1;
        self.chol.factor()
    }

    /// u from M u_free + h Σ J_rᵀ base_r.
    fn solve(&mut self, blocks: &[LinearBlock], free: &[[Vec3; 2]], h: f64) {
        self.u.clear();
        for (c, &b) in self.bodies.iter().enumerate() {
            let [dv, dw] = &free[b];
            self.u.push(self.mass[c] * v6(dv, dw));
        }
        for (p, blk) in blocks.iter().enumerate() {
            for r in self.rows(p, blk) {
                let x = r.base;
                for k in 0..2 {
                    let c = self.side[p][k];
                    if c != NONE {
                        let j = self.row_jac(p, k, &r);
                        self.u[c as usize] += j * (h * x);
                    }
                }
            }
        }
        self.chol.solve(&mut self.u);
        self.solves += 1;
    }

    /// The rates J_p u of block p's rows (t₁, t₂, twist).
    #[inline]
    fn rates(&self, p: usize) -> [f64; 3] {
        let mut y = [0.0; 3];
        for k in 0..2 {
            let c = self.side[p][k];
            if c != NONE {
                let u = &self.u[c as usize];
                for (yi, j) in y.iter_mut().zip(&self.jac[p][k]) {
                    *yi += j.dot(u);
                }
            }
        }
        y
    }
}

impl LinearSticks {
    /// [`LinearSticks::solve`] by the direct solve ([`direct`](self)): true if it
    /// converged (every block's `f` and `tau` set); false, with every block back
    /// at its start (f = −L_t, τ = 0), where the Gauss–Seidel is to solve them —
    /// also where the blocks do not share a moving body (the one-sweep solve is
    /// exact there, [`LinearSticks::decoupled`]).
    pub(super) fn solve_direct(&mut self, h: f64) -> bool {
        self.start();
        let ex = &mut self.exact;
        (ex.factors, ex.solves, ex.fell_back) = (0, 0, false);
        if !self.rolls.is_empty() || self.blocks.is_empty() || self.decoupled() {
            return false;
        }
        let nbody = self.free.len();
        let ok = self.exact.setup(&self.blocks, nbody)
            && self.exact.iterate(&mut self.blocks, &self.free, h);
        let ex = &mut self.exact;
        for &b in &ex.bodies {
            ex.col[b] = NONE;
        }
        if ok {
            self.sweeps = ex.solves;
            self.relaxations = ex.factors;
            return true;
        }
        ex.fell_back = true;
        ex.fallbacks += 1;
        for blk in &mut self.blocks {
            blk.f = -blk.load;
            blk.tau = 0.0;
        }
        false
    }
}

impl DirectSolve {
    /// The active-set iteration of the module doc; true when converged (every
    /// block's `f` and `tau` set).
    fn iterate(&mut self, blocks: &mut [LinearBlock], free: &[[Vec3; 2]], h: f64) -> bool {
        let mut refactor = true;
        while self.solves < MAX_SOLVES {
            if refactor && (self.factors == MAX_FACTORS || !self.factor(blocks, h)) {
                return false;
            }
            self.solve(blocks, free, h);
            let (mut moved, mut change, mut scale) = (false, 0.0f64, 0.0f64);
            for (p, blk) in blocks.iter_mut().enumerate() {
                let y = self.rates(p);
                let x_old = blk.x();
                // The stick law's x (J u holds the block's own response).
                let xs: [f64; 3] = std::array::from_fn(|i| blk.rhs[i] - blk.d[i] * y[i]);
                if !xs.iter().all(|v| v.is_finite()) {
                    return false;
                }
                let x = if !self.clamped[p] && blk.inside(xs) {
                    blk.set_x(xs);
                    xs
                } else {
                    // Out of its cones, or clamped: its own solve from the
                    // others' rates (the rates less its own response h W_pp x),
                    // projected (Gauss–Seidel's relaxation); it is clamped
                    // while that solve lies outside its cones.
                    let x_now = if self.clamped[p] { x_old } else { xs };
                    let own = blk.w_pp * Vec3::from(x_now);
                    let y_o: [f64; 3] = std::array::from_fn(|i| y[i] - h * own[i]);
                    let x_loc = blk.local(y_o);
                    let out = !blk.inside(x_loc);
                    moved |= out != self.clamped[p];
                    self.clamped[p] = out;
                    let x = blk.project(x_loc);
                    change = change.max(LinearSticks::weighted(blk, x, x_old).0);
                    x
                };
                scale = scale.max(LinearSticks::weighted(blk, x, [0.0; 3]).1);
            }
            if !moved && change <= LINEAR_TOL * scale {
                return true;
            }
            refactor = moved;
        }
        false
    }
}
