//! Projected Gauss–Seidel (PGS) / projected SOR for `LCP(M, q)` and for the boxed
//! (mixed) LCP with per-row bounds `lo ≤ z ≤ hi` (Cottle–Pang–Stone §5.2; the
//! friction-box formulation used by ODE and Bullet).
//!
//! # Method
//! One sweep visits `i = 1…n` in order with the latest values of `z`:
//!
//! ```text
//! r_i = q_i + Σ_j M_ij z_j                       (current w_i)
//! z_i ← clamp(z_i − ω r_i / M_ii, lo_i, hi_i)    (projected SOR update)
//! ```
//!
//! For the standard LCP `lo = 0`, `hi = +∞`. The boxed LCP asks for `z` with
//! `w = M z + q` and, row by row, `z_i = lo_i ⇒ w_i ≥ 0`, `z_i = hi_i ⇒ w_i ≤ 0`,
//! `lo_i < z_i < hi_i ⇒ w_i = 0`. A friction row may be coupled to its contact's
//! normal row `n` ([`FrictionCoupling`]): its bounds are `±μ z_n` evaluated at the
//! current `z_n` (the friction pyramid `|z_t| ≤ μ z_n`, one row per tangent).
//!
//! A pair of friction rows may instead form a **polygonal cone** ([`PolygonCone`]):
//! the tangential impulse `(z_t1, z_t2)` must lie in `μ z_n · conv{d_1…d_k}` with
//! `d_j = (cos 2πj/k, sin 2πj/k)` — the friction set of the Stewart–Trinkle /
//! Anitescu–Potra polyhedral cone (eq. (5) of `003_668e561ceb3412ed` with `D β`,
//! `Σβ ≤ μ p_n`). Such a pair is updated as a block by a projected gradient step
//! `z_t ← P(z_t − ω r_t / λ_max(M_tt))` (`P` the Euclidean projection onto the
//! polygon), whose fixed points are those of the natural map `z_t = P(z_t − w_t)`.
//!
//! # Convergence and stopping
//! After each sweep the natural-map residual `‖z − clamp(z − w, lo, hi)‖∞` is
//! computed (it equals `‖min(z, w)‖∞` for the standard LCP, units of `w`), and the
//! solve stops with `Converged` once it is `≤ tolerance`, else `IterationLimit`
//! after `max_iterations` sweeps. The residual costs one extra `O(n²)` product per
//! sweep.
//!
//! [`PgsSolver::solve_contacts`] solves the same friction set on the block-sparse
//! contact form ([`ContactProblem`]: 3×3 blocks of W between points sharing a
//! moving body, independent islands) in `O(nnz)` per sweep; it evaluates the
//! full residual only once a sweep's largest scaled update is below the tolerance
//! (and at the sweep limit), so a sweep costs one pass over the blocks.
//!
//! # Guaranteed class
//! For **symmetric positive definite** `M` and `0 < ω < 2`, PGS/PSOR is projected
//! coordinate descent on the strictly convex QP `min ½zᵀMz + qᵀz, lo ≤ z ≤ hi`, and
//! converges (linearly) to its unique minimiser, which is the LCP / boxed-LCP
//! solution, from any start. Symmetric positive semi-definite `M` with positive
//! diagonal converges in practice for feasible problems but without a rate. The
//! friction-coupled variant is a fixed-point iteration over bounds that move with
//! `z_n`; it is not a QP and has no convergence guarantee (it converges on the
//! usual contact problems, and exactly in one sweep for decoupled `M`).
//! `M_ii ≤ 0` is rejected (`InvalidProblem`): the update would divide by it.
//!
//! # Warm start
//! The guess (if any) is projected onto the bounds and used as the initial `z`;
//! a guess that already meets the tolerance returns after zero sweeps. Without a
//! guess, `z = 0` (projected onto the bounds).
//!
//! # Defaults
//! `tolerance = 1e-9`, `max_iterations = 1000`, `relaxation = 1.0` (Gauss–Seidel).
//! No allocation once `PgsResults` has been sized for `n`.

use nalgebra::DVector;

use super::lcp::{all_finite, resize_zeroed, LcpError, LcpProblem};

/// PGS parameters. The defaults are the documented engine defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PgsParams {
    /// Stop when the natural-map residual (units of `w`; m/s for contact
    /// velocity LCPs) is `≤ tolerance`. `1e-9` ≈ 1 nm/s; real-time contact loops
    /// often use `1e-6` and let `max_iterations` bound the cost.
    pub tolerance: f64,
    /// Maximum sweeps. Each costs `≈ 2n²` flops (sweep plus residual). `1000`
    /// suffices for well-conditioned problems; convergence is linear with rate set
    /// by the conditioning of `M`.
    pub max_iterations: usize,
    /// SOR relaxation `ω ∈ (0, 2)`; `1.0` is Gauss–Seidel. `ω > 1` can speed up
    /// smooth problems; `ω < 1` damps oscillation in stiff friction cases. Values
    /// outside `(0, 2)` return `InvalidProblem`.
    pub relaxation: f64,
}

impl Default for PgsParams {
    fn default() -> Self {
        Self {
            tolerance: 1e-9,
            max_iterations: 1000,
            relaxation: 1.0,
        }
    }
}

/// How a PGS solve ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PgsStatus {
    /// The residual met `tolerance`.
    Converged,
    /// `max_iterations` sweeps without meeting `tolerance`; `z` is the last iterate.
    IterationLimit,
    /// Bad shape, non-finite data/guess/bounds, `M_ii ≤ 0`, `lo > hi`, a bad
    /// coupling, or `ω ∉ (0, 2)`. Nothing is computed.
    InvalidProblem,
}

/// Counters of one solve.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PgsStats {
    /// Sweeps performed.
    pub iterations: usize,
    /// Natural-map residual of the returned `z` (`+∞` for `InvalidProblem`).
    pub residual: f64,
}

/// Output buffers; reuse them across solves to avoid allocation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PgsResults {
    /// The last iterate `z`.
    pub z: DVector<f64>,
    /// `w = M z + q` for the returned `z`.
    pub w: DVector<f64>,
    /// Counters.
    pub stats: PgsStats,
}

impl PgsResults {
    /// Buffers pre-sized for problems of size `n`.
    pub fn with_size(n: usize) -> Self {
        Self {
            z: DVector::zeros(n),
            w: DVector::zeros(n),
            stats: PgsStats::default(),
        }
    }
}

/// Row `i` is a friction row of the contact whose normal impulse is `z[normal_row]`:
/// its bounds are `[-μ z_n, μ z_n]` (with `z_n` clipped at 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrictionCoupling {
    /// Index of the normal row (must not itself be coupled).
    pub normal_row: usize,
    /// Coulomb friction coefficient μ (dimensionless, finite, `≥ 0`; 0.2–1.0 typical).
    pub mu: f64,
}

/// Two friction rows `rows = [t1, t2]` whose impulse lies in the regular polygon
/// `μ z_n · conv{(cos 2πj/k, sin 2πj/k)}` (`k = sides ≥ 3`; the first vertex on the
/// `t1` axis). Both rows must also carry a [`FrictionCoupling`] to the same normal
/// row (set by [`BoxBounds::add_polygon_cone`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PolygonCone {
    pub normal_row: usize,
    pub rows: [usize; 2],
    /// Coulomb friction coefficient μ (dimensionless, finite, `≥ 0`).
    pub mu: f64,
    /// Number of friction directions k (the polygon's vertices), `≥ 3`.
    pub sides: u32,
    /// Its trigonometry (set by [`BoxBounds::add_polygon_cone`]).
    pub table: PolygonTable,
}

/// Per-row bounds for the boxed LCP.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BoxBounds {
    /// Lower bounds (may be `-∞`); ignored for coupled rows.
    pub lo: DVector<f64>,
    /// Upper bounds (may be `+∞`); ignored for coupled rows.
    pub hi: DVector<f64>,
    /// `coupling[i] = Some(..)` makes row `i` a friction row (empty = none coupled).
    pub coupling: Vec<Option<FrictionCoupling>>,
    /// Polygonal friction cones over pairs of coupled rows (empty = none).
    pub cones: Vec<PolygonCone>,
    /// `cone_of[i]`: index into `cones` of the cone holding row `i` (empty = none).
    pub cone_of: Vec<Option<u32>>,
}

impl BoxBounds {
    /// Fixed bounds `lo ≤ z ≤ hi`.
    pub fn fixed(lo: DVector<f64>, hi: DVector<f64>) -> Self {
        Self {
            lo,
            hi,
            coupling: Vec::new(),
            cones: Vec::new(),
            cone_of: Vec::new(),
        }
    }

    /// The standard LCP: `0 ≤ z < ∞`.
    pub fn lcp(n: usize) -> Self {
        Self::fixed(DVector::zeros(n), DVector::from_element(n, f64::INFINITY))
    }

    /// Contacts: rows with `coupling[i] = Some(c)` get `|z_i| ≤ c.mu · z[c.normal_row]`;
    /// the others use `lo`, `hi` (e.g. `0`, `∞` for normal rows).
    pub fn friction_coupled(
        lo: DVector<f64>,
        hi: DVector<f64>,
        coupling: Vec<Option<FrictionCoupling>>,
    ) -> Self {
        Self {
            lo,
            hi,
            coupling,
            cones: Vec::new(),
            cone_of: Vec::new(),
        }
    }

    /// Makes rows `t1`, `t2` a polygonal friction cone of `sides` directions on the
    /// normal row `normal_row` (see [`PolygonCone`]). `coupling` and `cone_of` must
    /// already have `n` entries (no allocation beyond `cones`' capacity).
    pub fn add_polygon_cone(&mut self, normal_row: usize, t: [usize; 2], mu: f64, sides: u32) {
        let c = self.cones.len() as u32;
        for i in t {
            if let Some(slot) = self.coupling.get_mut(i) {
                *slot = Some(FrictionCoupling { normal_row, mu });
            }
            if let Some(slot) = self.cone_of.get_mut(i) {
                *slot = Some(c);
            }
        }
        let table = match self.cones.last() {
            Some(c) if c.sides == sides => c.table,
            _ => PolygonTable::new(sides),
        };
        self.cones.push(PolygonCone {
            normal_row,
            rows: t,
            mu,
            sides,
            table,
        });
    }

    /// Checks sizes, `lo ≤ hi` (no NaN), and couplings (index in range, not
    /// self-referencing, normal row itself uncoupled, μ finite `≥ 0`).
    pub fn validate(&self, n: usize) -> Result<(), LcpError> {
        for len in [self.lo.len(), self.hi.len()] {
            if len != n {
                return Err(LcpError::SizeMismatch {
                    expected: n,
                    got: len,
                });
            }
        }
        if !self.coupling.is_empty() && self.coupling.len() != n {
            return Err(LcpError::SizeMismatch {
                expected: n,
                got: self.coupling.len(),
            });
        }
        if !self.cones.is_empty() && self.cone_of.len() != n {
            return Err(LcpError::SizeMismatch {
                expected: n,
                got: self.cone_of.len(),
            });
        }
        for (ci, c) in self.cones.iter().enumerate() {
            let [a, b] = c.rows;
            let ok = a < n
                && b < n
                && a != b
                && c.sides >= 3
                && [a, b].iter().all(|&r| {
                    self.cone_of[r] == Some(ci as u32)
                        && self
                            .coupling
                            .get(r)
                            .copied()
                            .flatten()
                            .map(|f| f.normal_row)
                            == Some(c.normal_row)
                });
            if !ok {
                return Err(LcpError::NonFinite);
            }
        }
        for i in 0..n {
            let coupled = self.coupling.get(i).copied().flatten();
            match coupled {
                Some(c) => {
                    let normal_ok = c.normal_row < n
                        && c.normal_row != i
                        && self.coupling.get(c.normal_row).copied().flatten().is_none();
                    if !(normal_ok && c.mu.is_finite() && c.mu >= 0.0) {
                        return Err(LcpError::NonFinite);
                    }
                }
                None => {
                    let (lo, hi) = (self.lo[i], self.hi[i]);
                    // NaN fails the comparison; ±∞ allowed but not lo = +∞ / hi = -∞.
                    let ordered = matches!(
                        lo.partial_cmp(&hi),
                        Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
                    );
                    if !ordered || lo == f64::INFINITY || hi == f64::NEG_INFINITY {
                        return Err(LcpError::NonFinite);
                    }
                }
            }
        }
        Ok(())
    }

    /// Bounds of row `i` at the current `z`.
    #[inline]
    fn at(&self, i: usize, z: &DVector<f64>) -> (f64, f64) {
        match self.coupling.get(i).copied().flatten() {
            Some(c) => {
                let h = c.mu * z[c.normal_row].max(0.0);
                (-h, h)
            }
            None => (self.lo[i], self.hi[i]),
        }
    }
}

/// Projected Gauss–Seidel / SOR.
#[derive(Debug, Clone, Copy, Default)]
pub struct PgsSolver {
    /// Parameters; may be changed between solves.
    pub params: PgsParams,
}

impl PgsSolver {
    /// A solver with the given parameters.
    pub fn new(params: PgsParams) -> Self {
        Self { params }
    }

    /// Solves the standard `LCP(M, q)` (`0 ≤ z ⊥ w ≥ 0`). Allocates the `0`/`∞`
    /// bound vectors; use [`PgsSolver::solve_boxed`] with stored
    /// [`BoxBounds::lcp`] bounds in allocation-free loops.
    pub fn solve(
        &self,
        problem: &LcpProblem,
        guess: Option<&DVector<f64>>,
        results: &mut PgsResults,
    ) -> PgsStatus {
        let bounds = BoxBounds::lcp(problem.q.len());
        self.solve_boxed(problem, &bounds, guess, results)
    }

    /// Solves the boxed LCP with `bounds` (fixed and/or friction-coupled rows).
    pub fn solve_boxed(
        &self,
        problem: &LcpProblem,
        bounds: &BoxBounds,
        guess: Option<&DVector<f64>>,
        results: &mut PgsResults,
    ) -> PgsStatus {
        results.stats = PgsStats {
            iterations: 0,
            residual: f64::INFINITY,
        };
        // Validate everything the sweep divides by or indexes.
        let p = &self.params;
        if problem.validate().is_err()
            || bounds.validate(problem.n()).is_err()
            || !(p.relaxation > 0.0 && p.relaxation < 2.0)
            || p.tolerance.is_nan()
        {
            return PgsStatus::InvalidProblem;
        }
        let n = problem.n();
        if (0..n).any(|i| problem.m[(i, i)] <= 0.0) {
            return PgsStatus::InvalidProblem;
        }
        if let Some(g) = guess {
            if g.len() != n || !all_finite(g.as_slice()) {
                return PgsStatus::InvalidProblem;
            }
        }
        if results.z.len() != n {
            resize_zeroed(&mut results.z, n);
        }
        if results.w.len() != n {
            resize_zeroed(&mut results.w, n);
        }

        // Initial iterate: the guess (or 0), projected onto the bounds; normal rows
        // first so that coupled rows see their projected z_n.
        match guess {
            Some(g) => results.z.copy_from(g),
            None => results.z.fill(0.0),
        }
        for pass in 0..2 {
            for i in 0..n {
                let coupled = bounds.coupling.get(i).copied().flatten().is_some();
                if coupled == (pass == 1) {
                    let (lo, hi) = bounds.at(i, &results.z);
                    results.z[i] = clamp(results.z[i], lo, hi);
                }
            }
        }
        for c in &bounds.cones {
            let [a, b] = c.rows;
            let r = c.mu * results.z[c.normal_row].max(0.0);
            (results.z[a], results.z[b]) =
                project_polygon_with(results.z[a], results.z[b], r, &c.table);
        }
        results.stats.residual = self.residual(problem, bounds, results);
        // Sweeps until the residual meets the tolerance.
        while results.stats.residual > p.tolerance {
            if results.stats.iterations >= p.max_iterations {
                return PgsStatus::IterationLimit;
            }
            for i in 0..n {
                if let Some(ci) = bounds.cone_of.get(i).copied().flatten() {
                    // A polygonal cone: block update at its first row.
                    let c = bounds.cones[ci as usize];
                    if i == c.rows[0] {
                        self.cone_update(problem, &c, &mut results.z);
                    }
                    continue;
                }
                let r = row_residual(problem, i, &results.z);
                let (lo, hi) = bounds.at(i, &results.z);
                let zi = results.z[i] - p.relaxation * r / problem.m[(i, i)];
                results.z[i] = clamp(zi, lo, hi);
            }
            results.stats.iterations += 1;
            results.stats.residual = self.residual(problem, bounds, results);
            if !results.stats.residual.is_finite() {
                return PgsStatus::IterationLimit;
            }
        }
        PgsStatus::Converged
    }

    /// Block update of a polygonal cone: `z_t ← P(z_t − ω r_t / λ_max(M_tt))`, a
    /// projected gradient step on the 2×2 block. Its fixed points are exactly those
    /// of the natural map `z_t = P(z_t − w_t)` (maximal dissipation in the Euclidean
    /// metric of the friction impulse), which a step with the full `M_tt⁻¹` would not
    /// give when `M_tt` is not isotropic; `1/λ_max` is the largest step that keeps
    /// the update a descent step (exact, one step, for isotropic `M_tt`).
    fn cone_update(&self, problem: &LcpProblem, c: &PolygonCone, z: &mut DVector<f64>) {
        let [a, b] = c.rows;
        let rad = c.mu * z[c.normal_row].max(0.0);
        let (maa, mab, mbb) = (
            problem.m[(a, a)],
            0.5 * (problem.m[(a, b)] + problem.m[(b, a)]),
            problem.m[(b, b)],
        );
        let half = 0.5 * (maa - mbb);
        let lmax = 0.5 * (maa + mbb) + (half * half + mab * mab).sqrt();
        let step = self.params.relaxation / lmax;
        let (ra, rb) = (row_residual(problem, a, z), row_residual(problem, b, z));
        (z[a], z[b]) = project_polygon_with(z[a] - step * ra, z[b] - step * rb, rad, &c.table);
    }

    /// Natural-map residual `‖z − clamp(z − w, lo, hi)‖∞` (polygonal cones: the
    /// Euclidean projection onto the polygon); also refreshes `w`.
    fn residual(&self, problem: &LcpProblem, bounds: &BoxBounds, results: &mut PgsResults) -> f64 {
        if problem.compute_w(&results.z, &mut results.w).is_err() {
            return f64::INFINITY;
        }
        let mut res = 0.0_f64;
        for c in &bounds.cones {
            let [a, b] = c.rows;
            let (za, zb) = (results.z[a], results.z[b]);
            let rad = c.mu * results.z[c.normal_row].max(0.0);
            let (pa, pb) =
                project_polygon_with(za - results.w[a], zb - results.w[b], rad, &c.table);
            let e = (za - pa).abs().max((zb - pb).abs());
            if e.is_nan() {
                return f64::INFINITY;
            }
            res = res.max(e);
        }
        for i in 0..results.z.len() {
            if bounds.cone_of.get(i).copied().flatten().is_some() {
                continue;
            }
            let (lo, hi) = bounds.at(i, &results.z);
            let z = results.z[i];
            let e = (z - clamp(z - results.w[i], lo, hi)).abs();
            if e.is_nan() {
                return f64::INFINITY;
            }
            res = res.max(e);
        }
        res
    }
}

/// The contact LCP in block-sparse form: `n` contact points, each with three rows
/// (n, t₁, t₂) of the Delassus matrix W = G M⁻¹ Gᵀ, stored as 3×3 blocks
/// `W_ij` (row-major) in compressed rows: row `i` holds the blocks
/// `w[row_start[i]..row_start[i + 1]]` in the columns `col[..]` (contacts `j`
/// sharing a moving body with `i`, the diagonal block included). The impulse of
/// point `i` is `z_i = (p_n, f_t₁, f_t₂)` with `p_n ≥ 0` and `f_t` in the polygonal
/// cone `μ_i p_n conv{d_1…d_k}` (see [`PolygonCone`]); `w = W z + q`.
///
/// `order` lists the points in sweep order, grouped into independent islands
/// `order[island_start[s]..island_start[s + 1]]` (no block couples two islands);
/// each island is swept and stopped on its own.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContactProblem {
    /// `n + 1` offsets into `col` / `w`.
    pub row_start: Vec<usize>,
    /// Column (contact index) of each block.
    pub col: Vec<u32>,
    /// The blocks `W_ij`, row-major 3×3, units of (m/s)/(N·s).
    pub w: Vec<[f64; 9]>,
    /// `q` (3 per point: the free normal gap rate incl. stabilization, the free
    /// tangential velocities), m/s.
    pub q: Vec<f64>,
    /// Friction coefficient μ per point (finite, `≥ 0`).
    pub mu: Vec<f64>,
    /// Sweep order of the points, grouped by island.
    pub order: Vec<u32>,
    /// Island boundaries into `order` (`islands + 1` entries, from 0 to `order.len()`).
    pub island_start: Vec<usize>,
    /// The friction polygon (k sides).
    pub table: PolygonTable,
    /// The face patches (lcp33, `[lcp] friction = "patch"`): empty (every
    /// point its own Coulomb cone, `μ_i p_n(i)`), or one [`PatchOf`] per
    /// point. A point of a patch of two or more points takes the radius
    /// `μ_i s_i Σ_{j ∈ P} max(0, p_n(j))` ([`ContactProblem::radius_with`]):
    /// its share `s_i` of the patch's total normal load. The members of a
    /// patch lie in its range `first..first + len` (points of the range that
    /// are their own patch, `len` 1, are not members) and in one island.
    pub patch: Vec<PatchOf>,
}

/// A point's face patch ([`ContactProblem::patch`]): the points of
/// `first..first + len` whose `PatchOf` has the same range (its own among
/// them), and its share `s` of the patch's friction (the shares of a patch sum
/// to 1). `len` 1: the point is its own cone, `μ p_n`.
///
/// **The friction model of a patch** (lcp33). 003's time-stepping subproblem
/// (eqs. (5)–(10)) leaves friction to "one's favorite friction model" (Refs.
/// [22, 23]: Stewart–Trinkle's and Anitescu–Potra's polyhedral cones, one per
/// contact point). Per point, the radius is `μ p_n(i)`: on a face resting on
/// its 4 corners the split of the face's load over the corners is set by the
/// CFM (dependent rows), and so are the radii. Per patch, the points of one face
/// contact share the cone of the face's total load `P = Σ_j p_n(j)`: each
/// point's k-gon has radius `s_i μ P` with fixed shares (equal: the uniform
/// pressure the rows' spin levers already stand for, `rows::friction_points`).
/// The k-gons' Minkowski sum is the k-gon of radius `μ P`, so the patch's
/// tangential limit is Coulomb's on the total load, whatever the split; the
/// moment about the normal is limited as under uniform pressure. The LCP is
/// the Stewart–Trinkle one with the slack rows `ρ_σ(i) = s_i μ Σ_{j∈P} p_n(j)
/// − Σ β_i` (`delassus::stewart_trinkle_lcp`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PatchOf {
    pub first: u32,
    pub len: u32,
    pub share: f64,
}

impl ContactProblem {
    /// Number of contact points.
    pub fn n(&self) -> usize {
        self.mu.len()
    }

    /// Checks sizes, indices, finiteness and a positive normal diagonal `W_ii[0]`.
    pub fn validate(&self) -> Result<(), LcpError> {
        let n = self.n();
        let size = |expected: usize, got: usize| {
            if expected == got {
                Ok(())
            } else {
                Err(LcpError::SizeMismatch { expected, got })
            }
        };
        size(n + 1, self.row_start.len())?;
        size(3 * n, self.q.len())?;
        size(self.col.len(), self.w.len())?;
        if self.row_start.first() != Some(&0)
            || self.row_start.last() != Some(&self.col.len())
            || self.row_start.windows(2).any(|r| r[0] > r[1])
            || self.col.iter().any(|&c| c as usize >= n)
            || self.order.iter().any(|&c| c as usize >= n)
            || self.island_start.first().is_some_and(|&a| a != 0)
            || self
                .island_start
                .last()
                .is_some_and(|&a| a != self.order.len())
            || self.island_start.windows(2).any(|r| r[0] > r[1])
            || self.table.k < 3
        {
            return Err(LcpError::NonFinite);
        }
        if !all_finite(&self.q)
            || !self.w.iter().all(|b| all_finite(b))
            || !self.mu.iter().all(|m| m.is_finite() && *m >= 0.0)
        {
            return Err(LcpError::NonFinite);
        }
        if !self.patch.is_empty() {
            size(n, self.patch.len())?;
            for (i, pa) in self.patch.iter().enumerate() {
                let (a, b) = (pa.first as usize, pa.first as usize + pa.len as usize);
                let range = a <= i && i < b && b <= n && (pa.len > 1 || a == i);
                let share = pa.share.is_finite() && (0.0..=1.0).contains(&pa.share);
                if !(range && share) {
                    return Err(LcpError::NonFinite);
                }
            }
        }
        Ok(())
    }

    /// Point `i`'s friction radius at the normal loads `load(j)`: `μ_i
    /// load(i)` (no patch), or `μ_i s_i Σ_{j ∈ P} max(0, load(j))` for a point of
    /// a patch P of two or more points ([`PatchOf`]). The first form is the
    /// callers' own expression (bit for bit: they pass `load` with or without
    /// their `max(0, ·)`).
    #[inline]
    pub fn radius_with(&self, i: usize, load: impl Fn(usize) -> f64) -> f64 {
        match self.patch.get(i) {
            Some(pa) if pa.len > 1 => {
                let a = pa.first as usize;
                let mut s = 0.0;
                for j in a..a + pa.len as usize {
                    if self.in_patch(j, pa) {
                        s += load(j).max(0.0);
                    }
                }
                self.mu[i] * (pa.share * s)
            }
            _ => self.mu[i] * load(i),
        }
    }

    /// Whether point `j` is a member of the patch `pa` (of two or more points).
    #[inline]
    pub fn in_patch(&self, j: usize, pa: &PatchOf) -> bool {
        self.patch
            .get(j)
            .is_some_and(|o| o.first == pa.first && o.len == pa.len)
    }

    /// True when some point's radius is its patch's ([`PatchOf`]).
    pub fn has_patches(&self) -> bool {
        self.patch.iter().any(|pa| pa.len > 1)
    }
}

/// Counters of one [`PgsSolver::solve_contacts`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ContactPgsStats {
    /// Most sweeps spent on one island.
    pub iterations: usize,
    /// Sweeps summed over the islands (the cost).
    pub sweeps: usize,
    /// Largest natural-map residual of the returned `z` over the islands
    /// (`+∞` for `InvalidProblem`), m/s and N·s as in [`PgsStats::residual`].
    pub residual: f64,
    /// Islands solved, and those that hit `max_iterations`.
    pub islands: usize,
    pub unconverged_islands: usize,
}

/// Output and work buffers of [`PgsSolver::solve_contacts`]; reuse across solves.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContactPgsResults {
    /// `(p_n, f_t₁, f_t₂)` per point.
    pub z: Vec<f64>,
    pub stats: ContactPgsStats,
    /// Per point: index of its diagonal block, `1/W_nn`, `1/λ_max(W_tt)`.
    diag: Vec<usize>,
    inv_wnn: Vec<f64>,
    inv_lmax: Vec<f64>,
}

impl ContactPgsResults {
    /// Buffers with room for `points` contact points (no allocation below that).
    pub fn with_capacity(points: usize) -> Self {
        ContactPgsResults {
            z: Vec::with_capacity(3 * points),
            stats: ContactPgsStats::default(),
            diag: Vec::with_capacity(points),
            inv_wnn: Vec::with_capacity(points),
            inv_lmax: Vec::with_capacity(points),
        }
    }
}

impl ContactProblem {
    /// Buffers with room for `points` contact points and `blocks` nonzero 3×3
    /// blocks of W (no allocation below that).
    pub fn with_capacity(points: usize, blocks: usize) -> Self {
        ContactProblem {
            row_start: Vec::with_capacity(points + 1),
            col: Vec::with_capacity(blocks),
            w: Vec::with_capacity(blocks),
            q: Vec::with_capacity(3 * points),
            mu: Vec::with_capacity(points),
            order: Vec::with_capacity(points),
            island_start: Vec::with_capacity(points + 1),
            patch: Vec::with_capacity(points),
            ..Default::default()
        }
    }
}

/// After a failed convergence confirmation, sweeps before the next one.
const CONFIRM_EVERY: usize = 4;

impl PgsSolver {
    /// Solves the block-sparse contact problem (see [`ContactProblem`]) island by
    /// island in `O(nnz)` per sweep. Per point, in `order`: the normal row
    /// `p_n ← max(0, p_n − ω r_n / W_nn)`, then the friction pair by the projected
    /// gradient step of [`PgsSolver::solve_boxed`]'s polygonal cones,
    /// `f_t ← P(f_t − ω r_t / λ_max(W_tt))` with `r_t` updated for the new `p_n`.
    ///
    /// Stopping: the natural-map residual (as in [`PgsSolver::solve_boxed`]) costs
    /// one sweep, so it is not evaluated after every sweep. A sweep's largest scaled
    /// update `max(W_nn |Δp_n|, λ_max |Δf_t|)` (the residual of the point before its
    /// update for ω = 1) is the cheap test; once it is `≤ tolerance` the true
    /// residual is computed, and the island is `Converged` only if that is
    /// `≤ tolerance` too (else it is checked again after 4 more sweeps). An island
    /// at `max_iterations` keeps its last iterate; the status is `IterationLimit`
    /// if any island is.
    ///
    /// Warm start: `guess` (`3n` entries) projected onto the cones.
    pub fn solve_contacts(
        &self,
        problem: &ContactProblem,
        guess: Option<&[f64]>,
        results: &mut ContactPgsResults,
    ) -> PgsStatus {
        results.stats = ContactPgsStats {
            residual: f64::INFINITY,
            ..ContactPgsStats::default()
        };
        let p = &self.params;
        let n = problem.n();
        if problem.validate().is_err()
            || !(p.relaxation > 0.0 && p.relaxation < 2.0)
            || p.tolerance.is_nan()
            || guess.is_some_and(|g| g.len() != 3 * n || !all_finite(g))
        {
            return PgsStatus::InvalidProblem;
        }
        // Diagonal blocks: 1/W_nn and 1/λ_max of the tangential 2×2.
        results.diag.clear();
        results.inv_wnn.clear();
        results.inv_lmax.clear();
        for i in 0..n {
            let (a, b) = (problem.row_start[i], problem.row_start[i + 1]);
            let Some(k) = (a..b).find(|&k| problem.col[k] as usize == i) else {
                return PgsStatus::InvalidProblem;
            };
            let d = &problem.w[k];
            let (maa, mab, mbb) = (d[4], 0.5 * (d[5] + d[7]), d[8]);
            let half = 0.5 * (maa - mbb);
            let lmax = 0.5 * (maa + mbb) + (half * half + mab * mab).sqrt();
            if d[0] <= 0.0 || lmax.is_nan() || lmax <= 0.0 {
                return PgsStatus::InvalidProblem;
            }
            results.diag.push(k);
            results.inv_wnn.push(1.0 / d[0]);
            results.inv_lmax.push(1.0 / lmax);
        }
        // Initial iterate: the guess (or 0) projected onto the cones.
        results.z.clear();
        match guess {
            Some(g) => results.z.extend_from_slice(g),
            None => results.z.resize(3 * n, 0.0),
        }
        for i in 0..n {
            results.z[3 * i] = results.z[3 * i].max(0.0);
        }
        for i in 0..n {
            let z = &results.z;
            let r = problem.radius_with(i, |j| z[3 * j]);
            let z = &mut results.z[3 * i..3 * i + 3];
            (z[1], z[2]) = project_polygon_with(z[1], z[2], r, &problem.table);
        }
        // Islands, each swept until its residual meets the tolerance.
        let mut status = PgsStatus::Converged;
        let islands = problem.island_start.len().saturating_sub(1);
        results.stats.islands = islands;
        results.stats.residual = 0.0;
        for s in 0..islands {
            let order = &problem.order[problem.island_start[s]..problem.island_start[s + 1]];
            let (it, res, ok) = self.solve_island(problem, order, results);
            results.stats.iterations = results.stats.iterations.max(it);
            results.stats.sweeps += it;
            results.stats.residual = results.stats.residual.max(res);
            if !ok {
                results.stats.unconverged_islands += 1;
                status = PgsStatus::IterationLimit;
            }
        }
        status
    }

    /// Sweeps one island; returns (sweeps, residual, converged).
    fn solve_island(
        &self,
        problem: &ContactProblem,
        order: &[u32],
        results: &mut ContactPgsResults,
    ) -> (usize, f64, bool) {
        let p = &self.params;
        let ContactPgsResults {
            z,
            diag,
            inv_wnn,
            inv_lmax,
            ..
        } = results;
        let mut res = contact_residual(problem, order, z);
        if res <= p.tolerance {
            return (0, res, true);
        }
        let (mut it, mut next_check) = (0, 0);
        while it < p.max_iterations {
            let mut change = 0.0_f64;
            for &i in order {
                let i = i as usize;
                let r = contact_row(problem, i, z);
                let d = &problem.w[diag[i]];
                // Normal row, then the friction pair with r_t for the new p_n.
                let zn = (z[3 * i] - p.relaxation * r[0] * inv_wnn[i]).max(0.0);
                let dn = zn - z[3 * i];
                z[3 * i] = zn;
                let (r1, r2) = (r[1] + d[3] * dn, r[2] + d[6] * dn);
                let step = p.relaxation * inv_lmax[i];
                let radius = problem.radius_with(i, |j| z[3 * j]);
                let dt = friction_update(z, i, (r1, r2), step, radius, &problem.table);
                change = change.max(dn.abs() / inv_wnn[i]).max(dt / inv_lmax[i]);
            }
            it += 1;
            if change.is_nan() {
                return (it, f64::INFINITY, false);
            }
            if change <= p.tolerance && it >= next_check {
                res = contact_residual(problem, order, z);
                if res <= p.tolerance {
                    return (it, res, true);
                }
                next_check = it + CONFIRM_EVERY;
            }
        }
        res = contact_residual(problem, order, z);
        (it, res, res <= p.tolerance)
    }
}

/// `r = q_i + Σ_j W_ij z_j`, the current `w` of point `i` (3 rows).
#[inline]
fn contact_row(problem: &ContactProblem, i: usize, z: &[f64]) -> [f64; 3] {
    let mut r = [problem.q[3 * i], problem.q[3 * i + 1], problem.q[3 * i + 2]];
    let (a, e) = (problem.row_start[i], problem.row_start[i + 1]);
    for (b, &j) in problem.w[a..e].iter().zip(&problem.col[a..e]) {
        let zj = &z[3 * j as usize..3 * j as usize + 3];
        let (z0, z1, z2) = (zj[0], zj[1], zj[2]);
        r[0] += b[0] * z0 + b[1] * z1 + b[2] * z2;
        r[1] += b[3] * z0 + b[4] * z1 + b[5] * z2;
        r[2] += b[6] * z0 + b[7] * z1 + b[8] * z2;
    }
    r
}

/// Natural-map residual of the points `order`: `|p_n − max(0, p_n − w_n)|` and
/// `‖f_t − P(f_t − w_t)‖∞` (P onto the polygon), the largest over the points.
pub fn contact_residual(problem: &ContactProblem, order: &[u32], z: &[f64]) -> f64 {
    let mut res = 0.0_f64;
    for &i in order {
        let i = i as usize;
        let r = contact_row(problem, i, z);
        let zn = z[3 * i];
        let (z1, z2) = (z[3 * i + 1], z[3 * i + 2]);
        let en = (zn - (zn - r[0]).max(0.0)).abs();
        let radius = problem.radius_with(i, |j| z[3 * j]);
        let (p1, p2) = project_polygon_with(z1 - r[1], z2 - r[2], radius, &problem.table);
        let e = en.max((z1 - p1).abs()).max((z2 - p2).abs());
        if e.is_nan() {
            return f64::INFINITY;
        }
        res = res.max(e);
    }
    res
}

/// `q_i + Σ_j M_ij z_j`, the current `w_i`.
#[inline]
fn row_residual(problem: &LcpProblem, i: usize, z: &DVector<f64>) -> f64 {
    let mut r = problem.q[i];
    for j in 0..z.len() {
        r += problem.m[(i, j)] * z[j];
    }
    r
}

/// Euclidean projection of `(x, y)` onto the regular `k`-gon of circumradius
/// `r ≥ 0` with vertices `r (cos 2πj/k, sin 2πj/k)`.
pub fn project_polygon(x: f64, y: f64, r: f64, k: u32) -> (f64, f64) {
    project_polygon_with(x, y, r, &PolygonTable::new(k))
}

/// The trigonometry of a regular `k`-gon, computed once per cone:
/// `(cos, sin)` of the step 2π/k and of half of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PolygonTable {
    pub k: u32,
    pub step: (f64, f64),
    pub half: (f64, f64),
}

impl Default for PolygonTable {
    /// The square (k = 4, the friction pyramid).
    fn default() -> Self {
        PolygonTable::new(4)
    }
}

impl PolygonTable {
    pub fn new(k: u32) -> Self {
        let step = std::f64::consts::TAU / k.max(1) as f64;
        let (s1, c1) = step.sin_cos();
        let (sh, ch) = (0.5 * step).sin_cos();
        PolygonTable {
            k,
            step: (c1, s1),
            half: (ch, sh),
        }
    }

    /// The k unit directions (cos, sin) from `start` in steps of 2π/k, by the
    /// rotation recurrence (no trigonometry): from `half`, the edges' outward
    /// normals n_j; from (1, 0), the vertices d_j.
    #[inline]
    pub fn directions(&self, start: (f64, f64)) -> impl Iterator<Item = (f64, f64)> {
        let (c1, s1) = self.step;
        std::iter::successors(Some(start), move |&(cn, sn)| {
            Some((cn * c1 - sn * s1, sn * c1 + cn * s1))
        })
        .take(self.k as usize)
    }

    /// The direction of [`PolygonTable::directions`] from `start` with the largest
    /// inner product with (x, y) (the first on ties; `start` if k = 0), and that
    /// product.
    #[inline]
    pub fn most_aligned(&self, x: f64, y: f64, start: (f64, f64)) -> (f64, (f64, f64)) {
        let mut best = (f64::NEG_INFINITY, start);
        for (cn, sn) in self.directions(start) {
            let d = x * cn + y * sn;
            if d > best.0 {
                best = (d, (cn, sn));
            }
        }
        best
    }
}

/// The friction pair of point `i` after its normal row: the step of `step` along
/// −r_t (r_t the pair's residual for the new p_n), projected onto the k-gon of
/// radius μ p_n (`radius`); z updated in place. Returns the largest change of
/// the pair. Shared with PEG's constraint PGS (`pipeline::lcp::peg`).
#[inline]
pub(crate) fn friction_update(
    z: &mut [f64],
    i: usize,
    (r1, r2): (f64, f64),
    step: f64,
    radius: f64,
    table: &PolygonTable,
) -> f64 {
    let (t1, t2) = project_polygon_with(
        z[3 * i + 1] - step * r1,
        z[3 * i + 2] - step * r2,
        radius,
        table,
    );
    let dt = (t1 - z[3 * i + 1]).abs().max((t2 - z[3 * i + 2]).abs());
    z[3 * i + 1] = t1;
    z[3 * i + 2] = t2;
    dt
}

/// [`project_polygon`] without trigonometry. Edge j has outward normal
/// `n_j = (cos (j+½)·2π/k, sin (j+½)·2π/k)` and apothem `r cos(π/k)`; the point is
/// inside if no edge is violated. Otherwise the nearest point lies on the most
/// violated edge (all edges have the same apothem, so the most violated is the one
/// whose normal is closest in angle to the point: the edge whose outer strip holds
/// it, or one of the two edges of the vertex whose wedge holds it), clamped to the
/// edge's segment.
pub fn project_polygon_with(x: f64, y: f64, r: f64, t: &PolygonTable) -> (f64, f64) {
    if r.is_nan() || r <= 0.0 || t.k < 3 {
        return (0.0, 0.0);
    }
    let (ch, sh) = t.half;
    let (best, (bc, bs)) = t.most_aligned(x, y, t.half);
    if best <= r * ch {
        return (x, y);
    }
    // The edge's end vertices: its normal rotated by ∓ half a step, radius r.
    let (vx0, vy0) = (r * (bc * ch + bs * sh), r * (bs * ch - bc * sh));
    let (vx1, vy1) = (r * (bc * ch - bs * sh), r * (bs * ch + bc * sh));
    let (ex, ey) = (vx1 - vx0, vy1 - vy0);
    let u = (((x - vx0) * ex + (y - vy0) * ey) / (ex * ex + ey * ey)).clamp(0.0, 1.0);
    (vx0 + u * ex, vy0 + u * ey)
}

/// `min(max(x, lo), hi)` without `f64::clamp`'s panic on `lo > hi` or NaN bounds.
#[inline]
fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    x.max(lo).min(hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;

    /// Decoupled M = diag: one sweep gives z_i = clamp(-q_i / M_ii, lo, hi) exactly.
    #[test]
    fn diagonal_problem_one_sweep() {
        let p = LcpProblem::new(
            DMatrix::from_diagonal(&DVector::from_vec(vec![2.0, 4.0])),
            DVector::from_vec(vec![-1.0, 2.0]),
        )
        .expect("valid");
        let mut res = PgsResults::default();
        assert_eq!(
            PgsSolver::default().solve(&p, None, &mut res),
            PgsStatus::Converged
        );
        assert_eq!(res.stats.iterations, 1);
        assert_eq!(res.z, DVector::from_vec(vec![0.5, 0.0]));
        assert_eq!(res.stats.residual, 0.0);
    }

    /// The block-sparse contact solve agrees with the dense boxed solve on the same
    /// W = J M⁻¹ Jᵀ (3 points on one body of 6 DoF and 1 point on another: two
    /// islands), both to a 1e-10 residual; the islands are reported.
    #[test]
    fn sparse_contacts_match_dense_boxed() {
        // Deterministic pseudo-random Jacobian rows (LCG), M⁻¹ = diag.
        let mut seed = 12345_u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        };
        let body = [0, 0, 0, 1];
        let jac: Vec<[f64; 6]> = (0..12).map(|_| std::array::from_fn(|_| rnd())).collect();
        let minv = [1.0, 1.0, 1.0, 2.0, 3.0, 4.0];
        let wij = |a: usize, b: usize| -> f64 {
            if body[a / 3] != body[b / 3] {
                return 0.0;
            }
            (0..6).map(|k| jac[a][k] * minv[k] * jac[b][k]).sum::<f64>()
                + if a == b { 1e-3 } else { 0.0 }
        };
        let q: Vec<f64> = (0..12)
            .map(|i| {
                if i % 3 == 0 {
                    -0.5 + 0.1 * rnd()
                } else {
                    rnd()
                }
            })
            .collect();
        let mu = [0.5, 0.8, 0.3, 0.6];
        // Dense boxed problem with polygonal cones (k = 6).
        let m = DMatrix::from_fn(12, 12, wij);
        let dense = LcpProblem::new(m, DVector::from_vec(q.clone())).expect("valid");
        let mut bounds = BoxBounds::lcp(12);
        bounds.coupling = vec![None; 12];
        bounds.cone_of = vec![None; 12];
        for (c, &m) in mu.iter().enumerate() {
            bounds.add_polygon_cone(3 * c, [3 * c + 1, 3 * c + 2], m, 6);
        }
        let solver = PgsSolver::new(PgsParams {
            tolerance: 1e-10,
            max_iterations: 100_000,
            relaxation: 1.0,
        });
        let mut dres = PgsResults::default();
        assert_eq!(
            solver.solve_boxed(&dense, &bounds, None, &mut dres),
            PgsStatus::Converged
        );
        // Block-sparse: every pair of points on the same body couples.
        let mut sp = ContactProblem {
            q,
            mu: mu.to_vec(),
            table: PolygonTable::new(6),
            order: vec![0, 1, 2, 3],
            island_start: vec![0, 3, 4],
            ..ContactProblem::default()
        };
        for i in 0..4 {
            sp.row_start.push(sp.col.len());
            for j in (0..4).filter(|&j| body[j] == body[i]) {
                sp.col.push(j as u32);
                sp.w.push(std::array::from_fn(|e| wij(3 * i + e / 3, 3 * j + e % 3)));
            }
        }
        sp.row_start.push(sp.col.len());
        let mut sres = ContactPgsResults::default();
        assert_eq!(
            solver.solve_contacts(&sp, None, &mut sres),
            PgsStatus::Converged
        );
        assert_eq!(sres.stats.islands, 2);
        assert!(sres.stats.residual <= 1e-10);
        let diff = (0..12)
            .map(|i| (sres.z[i] - dres.z[i]).abs())
            .fold(0.0, f64::max);
        assert!(diff <= 1e-8, "sparse {:?} vs dense {}", sres.z, dres.z);
        // Warm-started from the solution: converged without a sweep.
        let z = sres.z.clone();
        assert_eq!(
            solver.solve_contacts(&sp, Some(&z), &mut sres),
            PgsStatus::Converged
        );
        assert_eq!(sres.stats.iterations, 0);
        // A missing diagonal block is rejected, not a panic.
        sp.col[0] = 1;
        assert_eq!(
            solver.solve_contacts(&sp, None, &mut sres),
            PgsStatus::InvalidProblem
        );
    }

    /// `clamp` never panics, even for crossed or NaN bounds.
    #[test]
    fn clamp_is_total() {
        assert_eq!(clamp(3.0, 0.0, 1.0), 1.0);
        assert_eq!(clamp(0.5, 1.0, 0.0), 0.0);
        assert!(!clamp(0.5, f64::NAN, f64::NAN).is_nan());
    }
}
