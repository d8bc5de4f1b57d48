//! Lemke's complementary pivoting method for `LCP(M, q)` (Lemke 1965; Cottle–Pang–
//! Stone, *The Linear Complementarity Problem*, §4.4; Drake `UnrevisedLemkeSolver`).
//!
//! # Method
//! The augmented system `w = q + M z + d z₀` (`d` the covering vector, default
//! `d = 1`) is kept as a dense tableau over the variables `w₁…wₙ, z₁…zₙ, z₀`:
//!
//! ```text
//! [ I | -M | -d | q ]        (row r:  Σ_j T[r][j] x_j = rhs[r], basic var has 1)
//! ```
//!
//! 1. If `q ≥ 0`, `z = 0` solves the problem (no pivot).
//! 2. `z₀` enters at the row minimising `q_r / d_r` (lexicographic tie-break); the
//!    basis is now feasible and almost complementary.
//! 3. The complement of the variable that just left enters; the minimum-ratio test
//!    picks the leaving row (rows with positive entries in the entering column).
//!    If `z₀` leaves, the basis is complementary: **Solved**. If no row blocks, the
//!    path runs off on a secondary ray: **RayTermination**.
//!
//! # Anti-cycling
//! Ties in the ratio test are broken by the lexicographic rule: among tied rows,
//! the lexicographic minimum of `(rhs_r, B⁻¹_r) / T[r][c]` (`B⁻¹` = the `w` columns
//! of the tableau). These vectors stay lexicographically positive, no basis repeats,
//! and degenerate problems terminate. A tie that includes `z₀`'s row picks `z₀`
//! (terminates at once, keeps feasibility).
//!
//! # Guaranteed class
//! Lemke's method with `d > 0` terminates with a solution for every `q` when `M` is
//! a **P-matrix** (all principal minors positive; e.g. symmetric positive definite),
//! and for **copositive-plus** `M` (e.g. symmetric positive semi-definite, as in the
//! Stewart–Trinkle subproblem eqs. (8)–(9) of `003_668e561ceb3412ed`) whenever the
//! LCP is feasible. Ray termination on a copositive-plus `M` proves the LCP
//! infeasible. Outside these classes ray termination may happen although a solution
//! exists. In every case the method terminates (lexicographic rule, pivot limit).
//!
//! # Warm start
//! A guess `z` names an active set `A = {i : z_i > zero_tol}`. The solver builds
//! the complementary basis `{z_i : i ∈ A} ∪ {w_j : j ∉ A}` by Gauss–Jordan pivots
//! on the tableau (counted in [`LemkeStats::setup_pivots`]). If the basis is
//! singular (a pivot below tolerance), the guess is dropped and the standard start
//! is used. Otherwise Lemke runs from that basis with covering vector `d = B·1`
//! (so `B⁻¹d = 1`): if the basis is already feasible it is the solution (zero
//! complementary pivots); else the run is Lemke on the principal pivot transform of
//! `M`, which is again a P-matrix when `M` is, so the guarantee carries over. PPTs of
//! copositive-plus matrices need not be copositive-plus, so if a warm-started run
//! ends in `RayTermination` or `IterationLimit` the solver retries once from the
//! standard start (pivots of both attempts are counted). A user covering vector is
//! used only by the standard start.
//!
//! # Defaults
//! `zero_tol = 1e-12` (relative to `max(1, max|M_ij|, max d_i)`), `tie_tol = 1e-10`
//! (relative), pivot limit `10·n + 100`, polishing on. Final accuracy is reported
//! as `‖min(z, w)‖∞` in [`LemkeStats::residual`].
//!
//! # Cost and memory
//! Dense tableau, `n × (2n + 2)` doubles, `O(n²)` per pivot: intended for
//! `n ≤` a few hundred. All buffers live in the [`LemkeSolver`] workspace and the
//! [`LemkeResults`]; once they have been sized for `n`, `solve` does not allocate.

use nalgebra::{DMatrix, DVector};

/// `LemkeSolver::solve_elastic`: the least relaxation t of LCP(M, q + t d) along
/// Lemke's path (issue 12, peg10).
#[path = "lemke_elastic.rs"]
mod elastic;

use super::lcp::{all_finite, complementarity_residual, reshape_zeroed, resize_zeroed, LcpProblem};

/// Lemke parameters. The defaults are the documented engine defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct LemkeParams {
    /// Pivot elements with `|T[r][c]| ≤ zero_tol · scale` count as zero, where
    /// `scale = max(1, max|M_ij|, max d_i)`. Dimensionless; `1e-12` suits
    /// well-scaled problems; raise to ~1e-9 for ill-conditioned `M` (earlier ray
    /// termination) and lower only for exactly representable data.
    pub zero_tol: f64,
    /// Relative tolerance under which two ratios in the minimum-ratio test count as
    /// tied and the lexicographic rule decides. `1e-10`: round-off of a few pivots
    /// stays below it, genuine ratio differences lie above it.
    pub tie_tol: f64,
    /// Maximum complementary pivots per attempt; `None` = `10·n + 100`. On
    /// P-matrices Lemke typically needs `n`–`2n` pivots (each `z_i` enters about
    /// once); `10·n` leaves room for degenerate back-tracking, `+100` covers small
    /// `n`. Far below the `2ⁿ` worst case (Murty's example), so pathological input
    /// ends in `IterationLimit` instead of stalling the real-time loop.
    pub max_pivots: Option<usize>,
    /// Covering vector `d` (`n` entries, all `> 0`, finite); `None` = `1`. Used by
    /// the standard start only. A `d` of wrong size or with a non-positive entry
    /// makes `solve` return `InvalidProblem`.
    pub covering: Option<DVector<f64>>,
    /// After `Solved`, re-solve `M_AA z_A = -q_A` on the final active set `A`
    /// (partial-pivoting Gauss elimination, no allocation) and keep it if it has a
    /// smaller residual. Removes the round-off accumulated over the pivots.
    pub polish: bool,
}

impl Default for LemkeParams {
    fn default() -> Self {
        Self {
            zero_tol: 1e-12,
            tie_tol: 1e-10,
            max_pivots: None,
            covering: None,
            polish: true,
        }
    }
}

impl LemkeParams {
    /// Pivot limit for a problem of size `n` (see [`LemkeParams::max_pivots`]).
    pub fn pivot_limit(&self, n: usize) -> usize {
        self.max_pivots
            .unwrap_or_else(|| n.saturating_mul(10).saturating_add(100))
    }
}

/// How a Lemke solve ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LemkeStatus {
    /// `z₀` left the basis: `z` solves the LCP (accuracy in `stats.residual`).
    Solved,
    /// The complementary path ended on a secondary ray. For copositive-plus `M`
    /// this proves the LCP infeasible; `z` is the last basic point, not a solution.
    RayTermination,
    /// The pivot limit was reached; `z` is the last basic point.
    IterationLimit,
    /// Non-square `M`, size mismatch, non-finite data or guess, or a bad covering
    /// vector. Nothing is computed; `z`/`w` hold no meaningful values.
    InvalidProblem,
}

/// Counters of one solve.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LemkeStats {
    /// Complementary pivots (including `z₀`'s entry), summed over attempts.
    pub pivots: usize,
    /// Gauss–Jordan pivots spent building the warm-start basis.
    pub setup_pivots: usize,
    /// The returned result came from the warm-started basis.
    pub warm_started: bool,
    /// The polished solution replaced the tableau solution.
    pub polished: bool,
    /// `‖min(z, w)‖∞` of the returned `z` (`+∞` for `InvalidProblem`).
    pub residual: f64,
}

/// Output buffers; reuse them across solves to avoid allocation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LemkeResults {
    /// The solution `z` (or the last basic point; see [`LemkeStatus`]).
    pub z: DVector<f64>,
    /// `w = M z + q` for the returned `z`.
    pub w: DVector<f64>,
    /// Counters.
    pub stats: LemkeStats,
}

impl LemkeResults {
    /// Buffers pre-sized for problems of size `n`.
    pub fn with_size(n: usize) -> Self {
        Self {
            z: DVector::zeros(n),
            w: DVector::zeros(n),
            stats: LemkeStats::default(),
        }
    }
}

/// Scratch owned by the solver: the tableau and small vectors.
#[derive(Debug, Clone, Default)]
struct LemkeWorkspace {
    /// `n × (2n + 2)` tableau: columns `w (0..n)`, `z (n..2n)`, `z₀ (2n)`, rhs `(2n+1)`.
    t: DMatrix<f64>,
    /// Basic variable of each row (index into the column layout above).
    basis: Vec<usize>,
    /// Column multipliers of the current pivot.
    factor: Vec<f64>,
    /// Polishing: dense `M_AA` (top-left block used) and its right-hand side.
    lu: DMatrix<f64>,
    rhs: Vec<f64>,
    /// Polishing: active indices and a candidate `z`, `w`.
    active: Vec<usize>,
    z_try: DVector<f64>,
    w_try: DVector<f64>,
}

impl LemkeWorkspace {
    fn resize(&mut self, n: usize) {
        // Storage is reused: no allocation once a problem of this size (or larger)
        // has been seen.
        if self.t.shape() != (n, 2 * n + 2) {
            reshape_zeroed(&mut self.t, n, 2 * n + 2);
            reshape_zeroed(&mut self.lu, n, n);
            resize_zeroed(&mut self.z_try, n);
            resize_zeroed(&mut self.w_try, n);
        }
        for v in [&mut self.factor, &mut self.rhs] {
            v.clear();
            v.resize(n, 0.0);
        }
        self.basis.clear();
        self.basis.resize(n, 0);
        self.active.clear();
        self.active.reserve(n);
    }
}

/// Lemke's method with its parameters and reusable workspace.
#[derive(Debug, Clone, Default)]
pub struct LemkeSolver {
    /// Parameters; may be changed between solves.
    pub params: LemkeParams,
    ws: LemkeWorkspace,
}

/// Outcome of one pivoting run (before polishing).
enum Run {
    Solved,
    Ray,
    Limit,
}

impl LemkeSolver {
    /// A solver with the given parameters (workspace sized on first solve).
    pub fn new(params: LemkeParams) -> Self {
        Self {
            params,
            ws: LemkeWorkspace::default(),
        }
    }

    /// Solves `LCP(M, q)`. `guess` (optional, `n` entries, finite) warm-starts from
    /// its active set (see the module doc). Writes `results.z`, `results.w`,
    /// `results.stats`. Never panics.
    pub fn solve(
        &mut self,
        problem: &LcpProblem,
        guess: Option<&DVector<f64>>,
        results: &mut LemkeResults,
    ) -> LemkeStatus {
        results.stats = LemkeStats {
            residual: f64::INFINITY,
            ..LemkeStats::default()
        };
        // Validate the data, the guess and the covering vector.
        if problem.validate().is_err() {
            return LemkeStatus::InvalidProblem;
        }
        let n = problem.n();
        resize_zeroed(&mut results.z, n);
        resize_zeroed(&mut results.w, n);
        if let Some(g) = guess {
            if g.len() != n || !all_finite(g.as_slice()) {
                return LemkeStatus::InvalidProblem;
            }
        }
        if let Some(d) = &self.params.covering {
            if d.len() != n || d.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
                return LemkeStatus::InvalidProblem;
            }
        }
        self.ws.resize(n);
        let scale = problem
            .m
            .iter()
            .chain(self.params.covering.iter().flat_map(|d| d.iter()))
            .fold(1.0_f64, |a, b| a.max(b.abs()));
        let pivot_tol = self.params.zero_tol * scale;
        let limit = self.params.pivot_limit(n);

        // Warm attempt, then (if it was not conclusive) the standard start.
        let mut outcome = None;
        if let Some(g) = guess {
            if self.warm_tableau(problem, g, pivot_tol, &mut results.stats) {
                let run = self.run(n, pivot_tol, limit, &mut results.stats);
                if matches!(run, Run::Solved) {
                    results.stats.warm_started = true;
                    outcome = Some(run);
                }
            }
        }
        let outcome = match outcome {
            Some(run) => run,
            None => {
                self.cold_tableau(problem);
                self.run(n, pivot_tol, limit, &mut results.stats)
            }
        };

        // Read z off the basis; w = M z + q.
        self.extract(n, &mut results.z);
        let _ = problem.compute_w(&results.z, &mut results.w);
        results.stats.residual = complementarity_residual(&results.z, &results.w);
        match outcome {
            Run::Solved => {
                if self.params.polish {
                    self.polish(problem, pivot_tol, results);
                }
                LemkeStatus::Solved
            }
            Run::Ray => LemkeStatus::RayTermination,
            Run::Limit => LemkeStatus::IterationLimit,
        }
    }

    /// Standard start: `[I | -M | -d | q]`, basis `w`.
    fn cold_tableau(&mut self, problem: &LcpProblem) {
        let n = problem.n();
        let t = &mut self.ws.t;
        t.fill(0.0);
        for i in 0..n {
            t[(i, i)] = 1.0;
            for j in 0..n {
                t[(i, n + j)] = -problem.m[(i, j)];
            }
            let d = self.params.covering.as_ref().map_or(1.0, |d| d[i]);
            t[(i, 2 * n)] = -d;
            t[(i, 2 * n + 1)] = problem.q[i];
            self.ws.basis[i] = i;
        }
    }

    /// Warm start: pivot `z_i` (i in the guess's active set) into the basis, then
    /// set the covering column so that `B⁻¹ d = 1`. False if the basis is singular.
    fn warm_tableau(
        &mut self,
        problem: &LcpProblem,
        guess: &DVector<f64>,
        pivot_tol: f64,
        stats: &mut LemkeStats,
    ) -> bool {
        let n = problem.n();
        self.cold_tableau(problem);
        let mut any = false;
        for i in 0..n {
            if guess[i] <= self.params.zero_tol {
                continue;
            }
            any = true;
            // Among rows still holding some w_j with j active, the largest |entry|.
            let c = n + i;
            let mut best: Option<(usize, f64)> = None;
            for r in 0..n {
                let b = self.ws.basis[r];
                if b < n && guess[b] > self.params.zero_tol {
                    let a = self.ws.t[(r, c)].abs();
                    if best.is_none_or(|(_, v)| a > v) {
                        best = Some((r, a));
                    }
                }
            }
            match best {
                Some((r, a)) if a > pivot_tol => {
                    self.pivot(n, r, c);
                    self.ws.basis[r] = c;
                    stats.setup_pivots += 1;
                }
                _ => return false,
            }
        }
        if !any {
            return false;
        }
        for r in 0..n {
            self.ws.t[(r, 2 * n)] = -1.0;
        }
        true
    }

    /// Lemke's pivoting from the current tableau (steps 1–3 of the module doc).
    fn run(&mut self, n: usize, pivot_tol: f64, limit: usize, stats: &mut LemkeStats) -> Run {
        let rhs = 2 * n + 1;
        let z0 = 2 * n;
        // Step 1: the basis already feasible?
        let mut r = None;
        for i in 0..n {
            if self.ws.t[(i, rhs)] < 0.0 {
                r = match r {
                    None => Some(i),
                    Some(s) => Some(if self.lex_less(n, i, s, z0, -1.0) {
                        i
                    } else {
                        s
                    }),
                };
            }
        }
        let Some(r) = r else {
            return Run::Solved;
        };
        // Step 2: z0 enters.
        let mut pivots = 0usize;
        if pivots >= limit {
            return Run::Limit;
        }
        self.pivot(n, r, z0);
        pivots += 1;
        stats.pivots += 1;
        let mut leaving = self.ws.basis[r];
        self.ws.basis[r] = z0;
        // Step 3: complementary pivots.
        loop {
            let entering = if leaving < n {
                leaving + n
            } else {
                leaving - n
            };
            if pivots >= limit {
                return Run::Limit;
            }
            let Some(left) = self.complementary_pivot(n, entering, pivot_tol) else {
                return Run::Ray;
            };
            pivots += 1;
            stats.pivots += 1;
            leaving = left;
            if leaving == z0 {
                return Run::Solved;
            }
        }
    }

    /// One pivot of step 3 (shared with `solve_elastic`, `lemke_elastic.rs`):
    /// the minimum-ratio test on column `entering` with the lexicographic
    /// tie-break (z₀ preferred on ties), the Gauss–Jordan pivot, the basis
    /// update and the right-hand side's round-off below zero clamped. The
    /// variable that left, or `None` on a ray (no row to pivot on).
    pub(super) fn complementary_pivot(
        &mut self,
        n: usize,
        entering: usize,
        pivot_tol: f64,
    ) -> Option<usize> {
        let (z0, rhs) = (2 * n, 2 * n + 1);
        // Minimum-ratio test with lexicographic tie-break; prefer z0 on ties.
        let mut best: Option<usize> = None;
        for i in 0..n {
            if self.ws.t[(i, entering)] <= pivot_tol {
                continue;
            }
            best = match best {
                None => Some(i),
                Some(s) => Some(self.better_row(n, i, s, entering, z0)),
            };
        }
        let r = best?;
        self.pivot(n, r, entering);
        let leaving = self.ws.basis[r];
        self.ws.basis[r] = entering;
        // Clamp round-off below zero in the right-hand side.
        for i in 0..n {
            let v = &mut self.ws.t[(i, rhs)];
            if *v < 0.0 && *v > -pivot_tol {
                *v = 0.0;
            }
        }
        Some(leaving)
    }

    /// Ratio-test winner between rows `i` and `s` for entering column `c`.
    fn better_row(&self, n: usize, i: usize, s: usize, c: usize, z0: usize) -> usize {
        let rhs = 2 * n + 1;
        let t = &self.ws.t;
        let ri = t[(i, rhs)] / t[(i, c)];
        let rs = t[(s, rhs)] / t[(s, c)];
        if !self.tied(ri, rs) {
            return if ri < rs { i } else { s };
        }
        // Tie: z0's row terminates at once.
        if self.ws.basis[i] == z0 {
            return i;
        }
        if self.ws.basis[s] == z0 {
            return s;
        }
        if self.lex_less(n, i, s, c, 1.0) {
            i
        } else {
            s
        }
    }

    /// Is `(rhs_i, B⁻¹_i) / (sign·T[i][c])` lexicographically less than row `s`'s?
    fn lex_less(&self, n: usize, i: usize, s: usize, c: usize, sign: f64) -> bool {
        let t = &self.ws.t;
        let ai = sign * t[(i, c)];
        let as_ = sign * t[(s, c)];
        let rhs = 2 * n + 1;
        let vi = t[(i, rhs)] / ai;
        let vs = t[(s, rhs)] / as_;
        if !self.tied(vi, vs) {
            return vi < vs;
        }
        for j in 0..n {
            let vi = t[(i, j)] / ai;
            let vs = t[(s, j)] / as_;
            if !self.tied(vi, vs) {
                return vi < vs;
            }
        }
        false
    }

    fn tied(&self, a: f64, b: f64) -> bool {
        (a - b).abs() <= self.params.tie_tol * (1.0 + a.abs().max(b.abs()))
    }

    /// Gauss–Jordan pivot on `(r, c)`.
    fn pivot(&mut self, n: usize, r: usize, c: usize) {
        let ncols = 2 * n + 2;
        let t = &mut self.ws.t;
        let p = t[(r, c)];
        for j in 0..ncols {
            t[(r, j)] /= p;
        }
        for i in 0..n {
            self.ws.factor[i] = if i == r { 0.0 } else { t[(i, c)] };
        }
        for j in 0..ncols {
            let trj = t[(r, j)];
            if trj == 0.0 {
                continue;
            }
            for i in 0..n {
                let f = self.ws.factor[i];
                if f != 0.0 {
                    t[(i, j)] -= f * trj;
                }
            }
        }
        for i in 0..n {
            if i != r {
                t[(i, c)] = 0.0;
            }
        }
        t[(r, c)] = 1.0;
    }

    /// `z` from the current basis (non-basic variables are zero).
    fn extract(&self, n: usize, z: &mut DVector<f64>) {
        z.fill(0.0);
        for r in 0..n {
            let b = self.ws.basis[r];
            if (n..2 * n).contains(&b) {
                z[b - n] = self.ws.t[(r, 2 * n + 1)].max(0.0);
            }
        }
    }

    /// Re-solve `M_AA z_A = -q_A` on the final active set; keep it if better.
    fn polish(&mut self, problem: &LcpProblem, pivot_tol: f64, results: &mut LemkeResults) {
        let n = problem.n();
        let ws = &mut self.ws;
        ws.active.clear();
        for r in 0..n {
            let b = ws.basis[r];
            if (n..2 * n).contains(&b) {
                ws.active.push(b - n);
            }
        }
        let k = ws.active.len();
        if k == 0 {
            return;
        }
        for (a, &i) in ws.active.iter().enumerate() {
            for (b, &j) in ws.active.iter().enumerate() {
                ws.lu[(a, b)] = problem.m[(i, j)];
            }
            ws.rhs[a] = -problem.q[i];
        }
        // Gaussian elimination with partial pivoting on the k×k block.
        for col in 0..k {
            let mut p = col;
            for row in col + 1..k {
                if ws.lu[(row, col)].abs() > ws.lu[(p, col)].abs() {
                    p = row;
                }
            }
            if ws.lu[(p, col)].abs() <= pivot_tol {
                return;
            }
            if p != col {
                ws.lu.swap_rows(p, col);
                ws.rhs.swap(p, col);
            }
            let d = ws.lu[(col, col)];
            for row in col + 1..k {
                let f = ws.lu[(row, col)] / d;
                if f != 0.0 {
                    for j in col..k {
                        let v = ws.lu[(col, j)];
                        ws.lu[(row, j)] -= f * v;
                    }
                    let v = ws.rhs[col];
                    ws.rhs[row] -= f * v;
                }
            }
        }
        for col in (0..k).rev() {
            let mut s = ws.rhs[col];
            for j in col + 1..k {
                s -= ws.lu[(col, j)] * ws.rhs[j];
            }
            ws.rhs[col] = s / ws.lu[(col, col)];
        }
        ws.z_try.fill(0.0);
        for (a, &i) in ws.active.iter().enumerate() {
            ws.z_try[i] = ws.rhs[a].max(0.0);
        }
        let res = problem.residual_with(&ws.z_try, &mut ws.w_try);
        if res < results.stats.residual {
            results.z.copy_from(&ws.z_try);
            results.w.copy_from(&ws.w_try);
            results.stats.residual = res;
            results.stats.polished = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1×1 LCPs by hand (exact): z = max(0, -q/m) for m > 0.
    #[test]
    fn scalar_lcp() {
        let mut solver = LemkeSolver::default();
        let mut res = LemkeResults::default();
        for (m, q, z) in [(2.0, -4.0, 2.0), (2.0, 4.0, 0.0), (0.5, -1.0, 2.0)] {
            let p = LcpProblem::new(DMatrix::from_element(1, 1, m), DVector::from_element(1, q))
                .expect("valid");
            assert_eq!(solver.solve(&p, None, &mut res), LemkeStatus::Solved);
            assert_eq!(res.z[0], z);
        }
    }

    /// Default pivot limit is `10·n + 100`.
    #[test]
    fn default_pivot_limit() {
        assert_eq!(LemkeParams::default().pivot_limit(0), 100);
        assert_eq!(LemkeParams::default().pivot_limit(20), 300);
    }
}
