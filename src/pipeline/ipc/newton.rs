//! The optimization of one Rigid IPC step (004 eqs. 1, 11), as
//! Problem / Params / Results / Stats:
//!
//!   min over (θ_i, q_i) of dynamic bodies
//!   E(x) = Σ_i IP_i(θ_i, q_i) + κ Σ_k b(d_k(x), d̂²) + Σ_k D_k(x),
//!
//! - IP_i: the rigid incremental potential (eqs. 9–10, `ipc::potential`), each body
//!   parametrized relative to its start-of-step pose: Q = R(θ) Qᵗ, so that θ starts
//!   at 0 every step (no rotation-vector singularity at |θ| = π) and the body-frame
//!   points the barrier sees are the pre-rotated Xₜ = Qᵗ X̂. With A = Qᵗ J Q̃ᵀ the
//!   rotational part is −tr(R(θ) A) (½ tr(Q J Qᵀ) is constant for a rotation);
//!   the translational part is ½ m |Δq − (q̃ − qᵗ)|²;
//! - b: the C² barrier on squared distances of the constraint set C (eq. 2, pairs
//!   closer than d̂), with the edge–edge mollifier;
//! - D_k: the lagged smoothed friction of 004 §5 ([`super::friction`]).
//!
//! Projected Newton: every term's Hessian (the body's 6×6 inertial block, a pair's
//! 12×12 barrier or friction block) is projected to positive semi-definite by
//! clamping its eigenvalues at 0 before it is summed into the dense 6n × 6n system,
//! factored by Cholesky (dense: cost (6n)³/3 per iteration, fine for a few dozen
//! bodies; beyond ~50 dynamic bodies the step is slow, not wrong). The line search
//! first clamps the step to the curved CCD's conservative time of impact
//! ([`super::linesearch`]), so every trial point is intersection-free, then halves it
//! until the energy decreases.
//!
//! Barrier stiffness κ (IPC, Li et al. 2020 §4.3, adaptive): at the start of each
//! step κ = −∇B·∇E_IP/|∇B|², clamped to [κ_min, 100 κ_min] with
//! κ_min = 10¹¹ m̄ / (4 d₀ b″(d₀)), d₀ = (10⁻⁸ L)² (m̄ the mean mass of the dynamic
//! bodies, L their bounding-box diagonal); during the solve κ doubles (up to the cap)
//! whenever the smallest distance falls below 10⁻⁹ L.

use super::friction::{self, FrictionContact};
use super::linesearch::CcdFilter;
use super::IpcBody;
use crate::ipc::ad::{Real, D2};
use crate::ipc::geom::{barrier, edge_mollifier, mollifier_threshold, rotate, rotate_delta, V3};
use crate::ipc::mesh::{
    constraint_set, max_approximator_terms, merge_identical_terms, ApproxScratch, Candidate,
};
use crate::ipc::potential::{
    edge_edge_term, pair_vars, point_triangle_term, vertex_edge_term, vertex_vertex_term,
};
use crate::math::{Mat3, Vec3};
use crate::solver::primal::dense_cholesky_solve;
use nalgebra::{SMatrix, SymmetricEigen};
use std::time::Instant;

/// Solver parameters for one step.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// d̂² (squared activation distance, m²).
    pub dhat2: f64,
    pub h: f64,
    pub tolerance: f64,
    pub max_iterations: usize,
    pub friction_passes: usize,
    /// ε_v h, m.
    pub eps_vh: f64,
}

/// What the step's solve did.
#[derive(Clone, Copy, Debug, Default)]
pub struct Results {
    pub iterations: usize,
    pub cuts: usize,
    /// The iteration limit was hit (the last intersection-free iterate was kept).
    pub failed: bool,
    pub min_distance: f64,
    pub ccd_queries: usize,
    pub ccd_ns: u64,
    pub kappa: f64,
}

/// One body's per-step buffers.
#[derive(Clone, Debug, Default)]
pub struct BodyBuf {
    /// First of the body's six variables (θ, Δq), `None` for a static (or frozen) body.
    pub dof: Option<usize>,
    /// Position qᵗ at the start of the step.
    pub q0: Vec3,
    /// Pre-rotated body-frame vertices Xₜ = Qᵗ X̂.
    pub xt: Vec<Vec3>,
    /// World vertices at the current iterate and at a trial point.
    pub world: Vec<Vec3>,
    pub trial: Vec<Vec3>,
    /// Largest |Xₜ|.
    pub radius: f64,
    /// Inertial data (dynamic): mass, q̃ − qᵗ, A = Qᵗ J Q̃ᵀ.
    pub mass: f64,
    pub delta: Vec3,
    pub a: Mat3,
}

/// The solver's working memory (sized at construction and by use; reused).
#[derive(Clone, Debug, Default)]
pub struct Newton {
    pub bufs: Vec<BodyBuf>,
    pub n: usize,
    pub x: Vec<f64>,
    pub xtrial: Vec<f64>,
    pub p: Vec<f64>,
    pub g: Vec<f64>,
    pub hess: Vec<f64>,
    pub chol: Vec<f64>,
    /// Constraint set: candidates and the body pair owning each range.
    pub cands: Vec<(bool, Candidate)>,
    /// Each candidate's weight: 1 for the plain set's pairs, the max approximator's
    /// for the terms it adds (`ipc::mesh::max_approximator_terms`).
    pub weights: Vec<f64>,
    pub approx: ApproxScratch,
    /// How many of `cands` are the plain set's pairs (the rest are the approximator's).
    pub plain: usize,
    /// Add the max approximator's terms (`[ipc] count_once`).
    pub count_once: bool,
    pub ranges: Vec<(u32, u32, usize, usize)>,
    pub contacts: Vec<FrictionContact>,
    pub ccd: CcdFilter,
    pub kappa: f64,
    pub kappa_max: f64,
    /// Bounding-box diagonal of the dynamic bodies at the start of the step.
    pub diag: f64,
}

/// The world vertices of body buffer `b` at the variables `x` (its six, or its start
/// pose if static), into `trial` or `world`.
fn place(b: &mut BodyBuf, x: &[f64], into_trial: bool) {
    let (th, dq) = vars(b, x);
    let r = rotation(&th);
    let q = b.q0 + dq;
    let out = if into_trial {
        &mut b.trial
    } else {
        &mut b.world
    };
    for (o, p) in out.iter_mut().zip(&b.xt) {
        *o = r * p + q;
    }
}

/// (θ, Δq) of a body.
#[inline]
pub fn vars(b: &BodyBuf, x: &[f64]) -> (Vec3, Vec3) {
    match b.dof {
        Some(o) => (
            Vec3::new(x[o], x[o + 1], x[o + 2]),
            Vec3::new(x[o + 3], x[o + 4], x[o + 5]),
        ),
        None => (Vec3::zeros(), Vec3::zeros()),
    }
}

/// R(θ) by the same Rodrigues evaluation as the barrier terms.
pub use crate::ipc::potential::rodrigues as rotation;

fn aabb(pts: &[Vec3]) -> (Vec3, Vec3) {
    let mut lo = Vec3::repeat(f64::INFINITY);
    let mut hi = Vec3::repeat(f64::NEG_INFINITY);
    for p in pts {
        lo = lo.inf(p);
        hi = hi.sup(p);
    }
    (lo, hi)
}

/// b′(d) and b″(d) of the barrier (d, d̂ squared distances), 0 beyond d̂.
pub fn barrier_derivatives(d: f64, dhat2: f64) -> (f64, f64) {
    if d >= dhat2 || d <= 0.0 {
        return (0.0, 0.0);
    }
    let e = d - dhat2;
    let l = (d / dhat2).ln();
    (
        -2.0 * e * l - e * e / d,
        -2.0 * l - 4.0 * e / d + e * e / (d * d),
    )
}

/// Clamp the eigenvalues of a symmetric matrix at 0 (one function per block size).
macro_rules! project_psd {
    ($name:ident, $n:literal) => {
        fn $name(m: SMatrix<f64, $n, $n>) -> SMatrix<f64, $n, $n> {
            let e = SymmetricEigen::new(m);
            if e.eigenvalues.iter().all(|&l| l >= 0.0) {
                return m;
            }
            let l = e.eigenvalues.map(|v| v.max(0.0));
            e.eigenvectors * SMatrix::<f64, $n, $n>::from_diagonal(&l) * e.eigenvectors.transpose()
        }
    };
}
project_psd!(project_psd3, 3);
project_psd!(project_psd6, 6);
project_psd!(project_psd12, 12);

impl Newton {
    /// Resize the variables for `n` unknowns (no allocation when unchanged).
    pub fn size(&mut self, n: usize) {
        self.n = n;
        for v in [&mut self.x, &mut self.xtrial, &mut self.p, &mut self.g] {
            v.resize(n, 0.0);
        }
        self.hess.resize(n * n, 0.0);
        self.chol.resize(n * n, 0.0);
    }

    /// The constraint set at the world (`trial` = false) or trial vertices.
    fn collect(&mut self, bodies: &[IpcBody], trial: bool, dhat2: f64) {
        self.cands.clear();
        self.weights.clear();
        self.plain = 0;
        self.ranges.clear();
        let r = dhat2.sqrt();
        let nb = self.bufs.len();
        for k in 0..nb {
            for l in k + 1..nb {
                let (bk, bl) = (&self.bufs[k], &self.bufs[l]);
                if bk.dof.is_none() && bl.dof.is_none() {
                    continue;
                }
                let (vk, vl) = if trial {
                    (&bk.trial, &bl.trial)
                } else {
                    (&bk.world, &bl.world)
                };
                if vk.is_empty() || vl.is_empty() {
                    continue;
                }
                let (lk, hk) = aabb(vk);
                let (ll, hl) = aabb(vl);
                // Round vertices reach their radius beyond their centres.
                let rr = r + bodies[k].mesh.max_radius + bodies[l].mesh.max_radius;
                if (0..3).any(|i| lk[i] - rr > hl[i] || ll[i] - rr > hk[i]) {
                    continue;
                }
                let start = self.cands.len();
                constraint_set(
                    (&bodies[k].mesh, vk),
                    (&bodies[l].mesh, vl),
                    dhat2,
                    &mut self.cands,
                );
                self.weights.resize(self.cands.len(), 1.0);
                self.plain += self.cands.len() - start;
                if self.count_once {
                    let added = max_approximator_terms(
                        (&bodies[k].mesh, vk),
                        (&bodies[l].mesh, vl),
                        dhat2,
                        start,
                        (&mut self.cands, &mut self.weights),
                        &mut self.approx,
                    );
                    // Merged only where the approximator added terms: elsewhere the
                    // set stays the plain set, in its order, bit for bit.
                    if added > 0 {
                        merge_identical_terms(
                            (&bodies[k].mesh, &bodies[l].mesh),
                            start,
                            (&mut self.cands, &mut self.weights),
                            &mut self.approx,
                        );
                    }
                }
                if self.cands.len() > start {
                    self.ranges
                        .push((k as u32, l as u32, start, self.cands.len()));
                }
            }
        }
    }

    /// Σ b over the collected set (f64; mollified edge–edge), and the smallest
    /// squared distance. ∞ if a pair touches.
    fn barrier_sum(&self, bodies: &[IpcBody], trial: bool, dhat2: f64) -> (f64, f64) {
        let mut sum = 0.0;
        let mut dmin = f64::INFINITY;
        for &(k, l, s, e) in &self.ranges {
            let (k, l) = (k as usize, l as usize);
            for ((_, c), &w) in self.cands[s..e].iter().zip(&self.weights[s..e]) {
                let d = c.d();
                if d <= 0.0 || !d.is_finite() {
                    return (f64::INFINITY, 0.0);
                }
                dmin = dmin.min(d);
                let mut b = barrier(d, dhat2);
                if let Candidate::EdgeEdge { edge_a, edge_b, .. } = c {
                    let (wk, wl) = if trial {
                        (&self.bufs[k].trial, &self.bufs[l].trial)
                    } else {
                        (&self.bufs[k].world, &self.bufs[l].world)
                    };
                    let ea = bodies[k].mesh.edges[*edge_a as usize];
                    let eb = bodies[l].mesh.edges[*edge_b as usize];
                    let xa = ea.map(|i| &self.bufs[k].xt[i as usize]);
                    let xb = eb.map(|i| &self.bufs[l].xt[i as usize]);
                    let eps = mollifier_threshold(xa[0], xa[1], xb[0], xb[1]);
                    let a = ea.map(|i| V3::<f64>::cst(&wk[i as usize]));
                    let bb = eb.map(|i| V3::<f64>::cst(&wl[i as usize]));
                    b *= edge_mollifier([&a[0], &a[1]], [&bb[0], &bb[1]], eps);
                }
                sum += w * b;
            }
        }
        (sum, dmin)
    }

    /// The inertial energy Σ IP_i at `x`.
    fn inertial(&self, x: &[f64]) -> f64 {
        let mut e = 0.0;
        for b in &self.bufs {
            if b.dof.is_none() {
                continue;
            }
            let (th, dq) = vars(b, x);
            // −tr((R(θ) − I) A): −tr(R A) less its value at θ = 0 (tr A, of the order
            // of the inertia), so that the energy keeps the precision the line search
            // needs near θ = 0 (Newton's last decreases at rest are ~1e-17 of an O(1)
            // −tr(R A): below its rounding, they were accepted or cut at random).
            let t = V3::<f64>::cst(&th);
            let mut rot = 0.0;
            for i in 0..3 {
                rot -= rotate_delta(&t, &V3::cst(&b.a.column(i).into_owned())).0[i];
            }
            e += 0.5 * b.mass * (dq - b.delta).norm_squared() + rot;
        }
        e
    }

    /// E at the trial variables (places the trial vertices, collects the set there).
    fn energy_trial(&mut self, bodies: &[IpcBody], prm: &Params) -> (f64, f64) {
        let x = std::mem::take(&mut self.xtrial);
        for b in &mut self.bufs {
            place(b, &x, true);
        }
        self.collect(bodies, true, prm.dhat2);
        let (bsum, dmin) = self.barrier_sum(bodies, true, prm.dhat2);
        let e = self.inertial(&x)
            + self.kappa * bsum
            + friction::energy(&self.contacts, &self.bufs, &x, prm.eps_vh);
        self.xtrial = x;
        (e, dmin)
    }

    /// Gradient and projected Hessian of E at `x` (world vertices placed, set
    /// collected); with `barrier_only`, of B alone with κ = 1 (no IP, no D).
    fn assemble(&mut self, bodies: &[IpcBody], prm: &Params, barrier_only: bool) {
        let n = self.n;
        self.g.fill(0.0);
        self.hess.fill(0.0);
        if !barrier_only {
            for b in &self.bufs {
                let Some(o) = b.dof else { continue };
                let (th, dq) = vars(b, &self.x);
                // Translation: m (Δq − δ), m I.
                for i in 0..3 {
                    self.g[o + 3 + i] += b.mass * (dq[i] - b.delta[i]);
                    self.hess[(o + 3 + i) * n + o + 3 + i] += b.mass;
                }
                // Rotation: −tr(R(θ) A) = −Σ_i (R a_i)_i, by AD.
                let t = V3([D2::<3>::var(th.x, 0), D2::var(th.y, 1), D2::var(th.z, 2)]);
                let mut e = D2::<3>::cst(0.0);
                for i in 0..3 {
                    let ai = b.a.column(i).into_owned();
                    e = e - rotate(&t, &V3::cst(&ai)).0[i];
                }
                let hm = project_psd3(SMatrix::<f64, 3, 3>::from_fn(|i, j| e.h[i][j]));
                for i in 0..3 {
                    self.g[o + i] += e.g[i];
                    for j in 0..3 {
                        self.hess[(o + i) * n + o + j] += hm[(i, j)];
                    }
                }
            }
        }
        let kappa = if barrier_only { 1.0 } else { self.kappa };
        for ri in 0..self.ranges.len() {
            let (k, l, s, e) = self.ranges[ri];
            let (k, l) = (k as usize, l as usize);
            // A pair with the max approximator's terms is summed before its
            // Hessian is projected: its negative terms cancel repeats of the
            // positive ones, and projected alone they would be dropped (a Hessian
            // several times too stiff, and Newton steps as many times too short).
            let weighted = self.weights[s..e].iter().any(|&w| w != 1.0);
            let mut sum = D2::<12>::cst(0.0);
            for ci in s..e {
                let (b_vertex, c) = self.cands[ci];
                let w = self.weights[ci];
                let t = self.pair_term(bodies, (k, l), (b_vertex, &c), kappa * w, prm.dhat2);
                if weighted {
                    sum = sum + t;
                } else {
                    self.scatter(k, l, &t);
                }
            }
            if weighted {
                self.scatter(k, l, &sum);
            }
        }
        if !barrier_only {
            // A weighted pair's friction terms (contiguous: `lag` walks the pairs in
            // order) are summed before the projection, as its barrier terms.
            let mut sum = D2::<12>::cst(0.0);
            for ci in 0..self.contacts.len() {
                let c = self.contacts[ci];
                let (k, l) = (c.body_a as usize, c.body_b as usize);
                let (ta, qa) = self.pose(k);
                let (tb, qb) = self.pose(l);
                let v = pair_vars((&ta, &qa), (&tb, &qb));
                let t = friction::term(
                    &c,
                    (&v[0], &v[1], &self.bufs[k].q0),
                    (&v[2], &v[3], &self.bufs[l].q0),
                    prm.eps_vh,
                );
                if !c.weighted {
                    self.scatter(k, l, &t);
                    continue;
                }
                sum = sum + t;
                let last = self
                    .contacts
                    .get(ci + 1)
                    .is_none_or(|n| (n.body_a, n.body_b) != (c.body_a, c.body_b));
                if last {
                    self.scatter(k, l, &sum);
                    sum = D2::<12>::cst(0.0);
                }
            }
        }
    }

    /// Rotation vector and absolute position of body k at the current iterate.
    fn pose(&self, k: usize) -> (Vec3, Vec3) {
        let b = &self.bufs[k];
        let (th, dq) = vars(b, &self.x);
        (th, b.q0 + dq)
    }

    /// κ b (mollified for edges) of one candidate over the two bodies' 12 variables.
    fn pair_term(
        &self,
        bodies: &[IpcBody],
        (k, l): (usize, usize),
        (b_vertex, c): (bool, &Candidate),
        kappa: f64,
        dhat2: f64,
    ) -> D2<12> {
        let (ta, qa) = self.pose(k);
        let (tb, qb) = self.pose(l);
        let v = pair_vars((&ta, &qa), (&tb, &qb));
        let (xk, xl) = (&self.bufs[k].xt, &self.bufs[l].xt);
        match *c {
            Candidate::VertexFace {
                vertex, face, ty, ..
            } => {
                if !b_vertex {
                    let f = bodies[l].mesh.faces[face as usize].map(|i| &xl[i as usize]);
                    let r = bodies[k].mesh.radii[vertex as usize];
                    point_triangle_term(
                        (&v[0], &v[1]),
                        (&v[2], &v[3]),
                        (&xk[vertex as usize], r, f),
                        ty,
                        (kappa, dhat2),
                    )
                } else {
                    let f = bodies[k].mesh.faces[face as usize].map(|i| &xk[i as usize]);
                    let r = bodies[l].mesh.radii[vertex as usize];
                    point_triangle_term(
                        (&v[2], &v[3]),
                        (&v[0], &v[1]),
                        (&xl[vertex as usize], r, f),
                        ty,
                        (kappa, dhat2),
                    )
                }
            }
            Candidate::VertexVertex {
                vertex_a, vertex_b, ..
            } => {
                let (va, vb) = (vertex_a as usize, vertex_b as usize);
                let r = bodies[k].mesh.radii[va] + bodies[l].mesh.radii[vb];
                vertex_vertex_term(
                    (&v[0], &v[1]),
                    (&v[2], &v[3]),
                    (&xk[va], &xl[vb], r),
                    (kappa, dhat2),
                )
            }
            Candidate::EdgeEdge {
                edge_a, edge_b, ty, ..
            } => {
                let (ia, ib) = (
                    bodies[k].mesh.edges[edge_a as usize],
                    bodies[l].mesh.edges[edge_b as usize],
                );
                let r = bodies[k].mesh.radii[ia[0] as usize] + bodies[l].mesh.radii[ib[0] as usize];
                let ea = ia.map(|i| &xk[i as usize]);
                let eb = ib.map(|i| &xl[i as usize]);
                let eps = mollifier_threshold(ea[0], ea[1], eb[0], eb[1]);
                edge_edge_term(
                    (&v[0], &v[1]),
                    (&v[2], &v[3]),
                    (ea, eb, r),
                    ty,
                    (kappa, dhat2, eps),
                )
            }
            Candidate::VertexEdge {
                vertex, edge, ty, ..
            } => {
                // (vertex body, its variables, edge body, its variables)
                let ((mv, xv, vv), (me, xe, ve)) = if b_vertex {
                    ((&bodies[l].mesh, xl, 2), (&bodies[k].mesh, xk, 0))
                } else {
                    ((&bodies[k].mesh, xk, 0), (&bodies[l].mesh, xl, 2))
                };
                let ie = me.edges[edge as usize];
                let r = mv.radii[vertex as usize] + me.radii[ie[0] as usize];
                vertex_edge_term(
                    (&v[vv], &v[vv + 1]),
                    (&v[ve], &v[ve + 1]),
                    (&xv[vertex as usize], ie.map(|i| &xe[i as usize]), r),
                    ty,
                    (kappa, dhat2),
                )
            }
        }
    }

    /// Add a pair term's gradient and PSD-projected Hessian (over the dynamic
    /// bodies' variables) to the system.
    fn scatter(&mut self, k: usize, l: usize, t: &D2<12>) {
        let n = self.n;
        let (ok, ol) = (self.bufs[k].dof, self.bufs[l].dof);
        let global = |i: usize| -> Option<usize> {
            if i < 6 {
                ok.map(|o| o + i)
            } else {
                ol.map(|o| o + i - 6)
            }
        };
        for i in 0..12 {
            if let Some(gi) = global(i) {
                self.g[gi] += t.g[i];
            }
        }
        match (ok, ol) {
            (Some(_), Some(_)) => {
                let h = project_psd12(SMatrix::<f64, 12, 12>::from_fn(|i, j| t.h[i][j]));
                for i in 0..12 {
                    let gi = global(i).unwrap_or(0);
                    for j in 0..12 {
                        let gj = global(j).unwrap_or(0);
                        self.hess[gi * n + gj] += h[(i, j)];
                    }
                }
            }
            (Some(o), None) | (None, Some(o)) => {
                let off = if ok.is_some() { 0 } else { 6 };
                let h = project_psd6(SMatrix::<f64, 6, 6>::from_fn(|i, j| t.h[off + i][off + j]));
                for i in 0..6 {
                    for j in 0..6 {
                        self.hess[(o + i) * n + o + j] += h[(i, j)];
                    }
                }
            }
            (None, None) => {}
        }
    }

    /// Solve H p = −g by dense Cholesky, regularizing H + εI until it factors.
    fn direction(&mut self) -> bool {
        let n = self.n;
        let scale = (0..n)
            .map(|i| self.hess[i * n + i].abs())
            .fold(0.0f64, f64::max)
            .max(1e-300);
        let mut reg = 0.0;
        for _ in 0..20 {
            self.chol.copy_from_slice(&self.hess);
            for i in 0..n {
                self.chol[i * n + i] += reg;
            }
            if cholesky(&mut self.chol, n) {
                for i in 0..n {
                    self.p[i] = -self.g[i];
                }
                dense_cholesky_solve(&self.chol, n, &mut self.p);
                return self.p.iter().all(|v| v.is_finite());
            }
            reg = if reg == 0.0 {
                1e-12 * scale
            } else {
                reg * 100.0
            };
        }
        false
    }

    /// Largest point displacement of the direction p, per body: |Δq|∞ + r |Δθ|∞.
    fn step_size(&self) -> f64 {
        let mut m = 0.0f64;
        for b in &self.bufs {
            let (th, dq) = vars(b, &self.p);
            m = m.max(dq.amax() + b.radius * th.amax());
        }
        m
    }

    /// The momentum residual ∇E as a velocity error, largest over the dynamic bodies:
    /// |∇_q E| / (m h) (∇E is a force times h²) and |∇_θ E| / (m r h) for the torque,
    /// r the body's radius.
    fn residual_velocity(&self, h: f64) -> f64 {
        let mut m = 0.0f64;
        for b in &self.bufs {
            let Some(o) = b.dof else { continue };
            let mh = b.mass.max(1e-300) * h;
            for i in 0..3 {
                m = m.max(self.g[o + 3 + i].abs() / mh);
                m = m.max(self.g[o + i].abs() / (mh * b.radius.max(1e-12)));
            }
        }
        m
    }

    /// κ at the start of the step (module doc).
    fn init_kappa(&mut self, bodies: &[IpcBody], prm: &Params) {
        let (mut lo, mut hi) = (Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY));
        let (mut msum, mut count) = (0.0, 0);
        for (b, ib) in self.bufs.iter().zip(bodies) {
            if b.dof.is_none() {
                continue;
            }
            msum += b.mass;
            count += 1;
            for (p, &r) in b.world.iter().zip(&ib.mesh.radii) {
                // A round vertex spans its radius (a sphere's box, not its centre).
                let (l, h) = if r == 0.0 {
                    (*p, *p)
                } else {
                    (p.add_scalar(-r), p.add_scalar(r))
                };
                lo = lo.inf(&l);
                hi = hi.sup(&h);
            }
        }
        let diag = if lo.x.is_finite() {
            (hi - lo).norm()
        } else {
            0.0
        }
        .max(prm.dhat2.sqrt());
        self.diag = diag;
        let mbar = if count > 0 { msum / count as f64 } else { 1.0 };
        let d0 = (1e-8 * diag).powi(2).min(0.5 * prm.dhat2);
        let (_, b2) = barrier_derivatives(d0, prm.dhat2);
        let kmin = 1e11 * mbar / (4.0 * d0 * b2).max(1e-300);
        self.kappa_max = 100.0 * kmin;
        // Gradient balance: ∇B (κ = 1) against ∇E_IP at the start.
        self.assemble(bodies, prm, true);
        let gb2: f64 = self.g.iter().map(|v| v * v).sum();
        let mut dot = 0.0;
        if gb2 > 0.0 {
            for b in &self.bufs {
                let Some(o) = b.dof else { continue };
                // ∇IP at x = 0: rotation −∂tr(R(θ)A)/∂θ at 0 = −(A − Aᵀ) axial;
                // translation −m δ.
                let a = b.a;
                let w = Vec3::new(
                    a[(2, 1)] - a[(1, 2)],
                    a[(0, 2)] - a[(2, 0)],
                    a[(1, 0)] - a[(0, 1)],
                );
                for i in 0..3 {
                    dot += self.g[o + i] * w[i];
                    dot += self.g[o + 3 + i] * (-b.mass * b.delta[i]);
                }
            }
        }
        let k = if gb2 > 0.0 { -dot / gb2 } else { kmin };
        self.kappa = k.clamp(kmin, self.kappa_max);
    }

    /// The converged iterate's last Newton step p, taken when it is safe: Newton
    /// stops once p is below the tolerance, and the p it leaves untaken is the
    /// iterate's whole error — small, but of one sign from step to step on a free
    /// spin (the rotation's energy is not quadratic in θ), so a tumbling body kept
    /// gaining spin and energy (≈ 1.3e-6 of ω per step at ωh = 2e-3), and a body
    /// at rest whose first Newton step is below the tolerance never moved (an
    /// unstable balance held, as a point on a point, tests/ipc_meshes.rs). Taken,
    /// the error is p's own Newton error, O(|p|²). Safe: every point moves by at most
    /// s = |Δq| + r |Δθ| along the step, so with every candidate's distance after
    /// it above 2s (pairs outside the candidate set are farther than d̂ > 2s) no
    /// pair can cross. No energy test: at |p| ≤ tolerance × h the energies of x
    /// and x + p differ below their rounding, and p is a Newton step of a convex
    /// model in its quadratic region (the test rejected it at random).
    fn take_final_step(&mut self, bodies: &[IpcBody], prm: &Params) {
        // The largest displacement of a point along the step: |Δq| + r |Δθ|
        // (`step_size` measures components, the tolerance's convention).
        let mut s = 0.0f64;
        for b in &self.bufs {
            let (th, dq) = vars(b, &self.p);
            s = s.max(dq.norm() + b.radius * th.norm());
        }
        if s == 0.0 || !s.is_finite() || 2.0 * s >= prm.dhat2.sqrt() {
            return;
        }
        for i in 0..self.n {
            self.xtrial[i] = self.x[i] + self.p[i];
        }
        let x = std::mem::take(&mut self.xtrial);
        for b in &mut self.bufs {
            place(b, &x, true);
        }
        self.xtrial = x;
        self.collect(bodies, true, prm.dhat2);
        let (_, d1) = self.barrier_sum(bodies, true, prm.dhat2);
        if d1.sqrt() > 2.0 * s {
            self.x.copy_from_slice(&self.xtrial);
            let x = std::mem::take(&mut self.x);
            for b in &mut self.bufs {
                place(b, &x, false);
            }
            self.x = x;
        }
    }

    /// The step's minimization from x = 0 (the start poses). Leaves the solution in
    /// `x`.
    pub fn solve(&mut self, bodies: &[IpcBody], prm: &Params) -> Results {
        let mut res = Results::default();
        self.x.fill(0.0);
        let x = std::mem::take(&mut self.x);
        for b in &mut self.bufs {
            place(b, &x, false);
        }
        self.x = x;
        self.collect(bodies, false, prm.dhat2);
        self.contacts.clear();
        // The first pass lags λ from the start state with the κ that state was solved
        // with (the previous step's final κ): that is the normal force the bodies
        // carried at the end of the previous step. With the new step's κ the same
        // distances would give a different force (κ is re-balanced every step), and
        // the lagged friction would miss μ × the load by that ratio.
        if self.kappa > 0.0 {
            friction::lag(self, bodies, prm.dhat2);
        }
        self.init_kappa(bodies, prm);
        let mut dmin = f64::INFINITY;
        // A pass whose lagged friction had no pair (the start of a landing, or of a
        // body placed at d̂ on a slope: no barrier force there yet) solves the step
        // frictionless — a box placed on a 20° ramp slid its first step at g sin θ
        // and kept the extra 1.8 cm/s (h = 0.01 s). Such a pass, if it is the last,
        // gets one more, lagged from its own solution.
        let mut passes = prm.friction_passes.max(1);
        let mut pass = 0;
        'passes: while pass < passes {
            // Lagged friction: normal forces and bases at the current iterate (the
            // start state for the first pass, done above unless this is the first
            // step, then each pass's solution).
            if pass > 0 || self.contacts.is_empty() {
                friction::lag(self, bodies, prm.dhat2);
            }
            if pass > 0 && self.contacts.is_empty() {
                break;
            }
            let lagged_none = self.contacts.is_empty();
            let mut converged = false;
            for _ in 0..prm.max_iterations {
                self.collect(bodies, false, prm.dhat2);
                self.assemble(bodies, prm, false);
                res.iterations += 1;
                if !self.direction() {
                    break;
                }
                // Converged when both the Newton step and the momentum residual, as
                // velocities, are below the tolerance: along a stiff barrier direction
                // a tiny step hides a large force residual (k p), which would leave the
                // normal force — and the λ friction lags from it — short of the load.
                if self.step_size() / prm.h <= prm.tolerance
                    && self.residual_velocity(prm.h) <= prm.tolerance
                {
                    self.take_final_step(bodies, prm);
                    converged = true;
                    break;
                }
                // CCD: the largest intersection-free fraction of the step.
                let t = Instant::now();
                let (alpha_max, queries) = self.ccd.max_step(bodies, &self.bufs, &self.x, &self.p);
                res.ccd_queries += queries;
                res.ccd_ns += t.elapsed().as_nanos() as u64;
                let mut alpha = if alpha_max < 1.0 {
                    0.8 * alpha_max
                } else {
                    1.0
                };
                // Energy at x.
                self.xtrial.copy_from_slice(&self.x);
                let (e0, _) = self.energy_trial(bodies, prm);
                let mut accepted = false;
                for _ in 0..60 {
                    for i in 0..self.n {
                        self.xtrial[i] = self.x[i] + alpha * self.p[i];
                    }
                    let (e, d) = self.energy_trial(bodies, prm);
                    if e <= e0 {
                        accepted = true;
                        dmin = d;
                        break;
                    }
                    alpha *= 0.5;
                    res.cuts += 1;
                }
                if !accepted {
                    // No decrease along p: the iterate is a minimum to rounding.
                    converged = true;
                    break;
                }
                self.x.copy_from_slice(&self.xtrial);
                let x = std::mem::take(&mut self.x);
                for b in &mut self.bufs {
                    place(b, &x, false);
                }
                self.x = x;
                // κ grows when a pair comes too close (IPC's update).
                if dmin < (1e-9 * self.diag).powi(2) && self.kappa < self.kappa_max {
                    self.kappa = (2.0 * self.kappa).min(self.kappa_max);
                }
            }
            if !converged {
                res.failed = true;
                break 'passes;
            }
            if lagged_none && pass + 1 == passes && passes == prm.friction_passes.max(1) {
                passes += 1;
            }
            pass += 1;
        }
        self.collect(bodies, false, prm.dhat2);
        let (_, d) = self.barrier_sum(bodies, false, prm.dhat2);
        res.min_distance = d.sqrt();
        res.kappa = self.kappa;
        res
    }
}

/// In-place lower Cholesky of the n × n row-major `a`; false if not positive
/// definite.
fn cholesky(a: &mut [f64], n: usize) -> bool {
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        if d.is_nan() || d <= 0.0 || !d.is_finite() {
            return false;
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / d;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cholesky_solves_an_spd_system() {
        let n = 3;
        let a = [4.0, 2.0, 0.6, 2.0, 5.0, 1.0, 0.6, 1.0, 3.0];
        let mut l = a;
        assert!(cholesky(&mut l, n));
        let mut x = [1.0, -2.0, 0.5];
        let b = x;
        dense_cholesky_solve(&l, n, &mut x);
        for i in 0..n {
            let r: f64 = (0..n).map(|j| a[i * n + j] * x[j]).sum();
            assert!((r - b[i]).abs() < 1e-14);
        }
    }

    /// The inertial energy resolves the small rotations of a body at rest: its change
    /// over θ ~ 1e-8 rad (a Newton step's size at rest) against the series
    /// −tr([θ]× A) − ½ tr([θ]×² A) (the cubic term is ~1e-24 · |A|, below 1e-8 of
    /// the change), to 1e-9 relative. Written as −tr(R(θ) A) (an O(|A|) value) the
    /// change was lost to rounding: ~2e-17 absolute against a change of ~1e-15.
    #[test]
    fn inertial_energy_resolves_small_rotations() {
        // A = Qᵗ J Q̃ᵀ for a body spinning slowly: J rotated by 1e-6 rad about an axis.
        let j = Mat3::from_diagonal(&Vec3::new(0.17, 0.23, 0.31));
        let a = j * rotation(&Vec3::new(0.3e-6, -0.2e-6, 1e-6)).transpose();
        let nw = Newton {
            bufs: vec![BodyBuf {
                dof: Some(0),
                mass: 1.0,
                a,
                ..Default::default()
            }],
            n: 6,
            ..Default::default()
        };
        let skew = |t: &Vec3| t.cross_matrix();
        for th in [
            Vec3::new(1e-8, -2e-8, 0.5e-8),
            Vec3::new(0.0, 0.0, 3e-9),
            Vec3::new(-4e-8, 1e-9, 2e-8),
        ] {
            let x = [th.x, th.y, th.z, 0.0, 0.0, 0.0];
            let change = nw.inertial(&x) - nw.inertial(&[0.0; 6]);
            let k = skew(&th);
            let series = -(k * a).trace() - 0.5 * (k * k * a).trace();
            assert!(
                (change - series).abs() <= 1e-9 * series.abs(),
                "θ {th:?}: change {change:e}, series {series:e}"
            );
        }
    }

    /// b′ and b″ against the AD barrier.
    #[test]
    fn barrier_derivatives_match_ad() {
        let dhat2 = 1e-6;
        for d in [1e-9, 3e-7, 9e-7] {
            let v = barrier(D2::<1>::var(d, 0), dhat2);
            let (b1, b2) = barrier_derivatives(d, dhat2);
            assert!((v.g[0] - b1).abs() <= 1e-12 * b1.abs());
            assert!((v.h[0][0] - b2).abs() <= 1e-12 * b2.abs());
        }
    }
}
