//! A dense two-phase primal simplex for small linear programs (Dantzig 1951;
//! Chvátal, *Linear Programming*, ch. 2–3 and 8; Bland 1977 for anti-cycling).
//!
//! # Problem
//! ```text
//! minimize    cᵀx
//! subject to  a_iᵀx  ≤ | = | ≥  b_i      i = 1..m   (row kinds)
//!             lower_j ≤ x_j ≤ upper_j   j = 1..n   (±∞ allowed)
//! ```
//!
//! # Method
//! 1. **Standard form.** Each variable is mapped to non-negative columns: a finite
//!    lower bound shifts it (`x = l + y`), a finite upper bound alone mirrors it
//!    (`x = u − y`), a box adds the row `y + s = u − l`, a free variable splits into
//!    `y⁺ − y⁻`. `≤` rows get a slack `+s`, `≥` rows a surplus `−s`; rows with a
//!    negative right-hand side are negated.
//! 2. **Phase 1.** Rows whose slack is not a `+1` unit column get an artificial
//!    variable; the sum of the artificials is minimized. A positive optimum proves
//!    the problem **infeasible**. Artificials left basic at zero are pivoted out on
//!    any structural column; a row where none is available is redundant and keeps
//!    its artificial (at zero, never entering again).
//! 3. **Phase 2.** The objective row (carried along during phase 1) is minimized. An
//!    entering column without a positive entry proves the problem **unbounded**.
//!
//! Pricing is Dantzig's most negative reduced cost; after `bland_after` consecutive
//! degenerate pivots the solver switches to Bland's smallest-index rule for the rest
//! of the solve, which cannot cycle (Bland 1977), so every solve terminates (and the
//! iteration limit bounds the work for the real-time loop). Ratio-test ties are
//! broken by the smallest basic column index (Bland's leaving rule).
//!
//! # Results
//! `x` (original variables), the objective `cᵀx`, and the row multipliers `y` with
//! the Lagrangian convention `L = cᵀx − yᵀ(Ax − b)`: at an optimum `y_i ≤ 0` on a
//! `≤` row, `y_i ≥ 0` on a `≥` row, free on an `=` row, and `c − Aᵀy` is the vector of
//! reduced costs (≥ 0 on variables at their lower bound, ≤ 0 at their upper bound,
//! 0 for basic or free variables). They are read from the final tableau:
//! `y = c_Bᵀ B⁻¹` in the columns that formed the initial identity.
//!
//! # Defaults and guaranteed class
//! Every LP with finite data ends `Optimal`, `Infeasible` or `Unbounded`, decided up to
//! the tolerances (`1e-9`, relative to the largest |entry| of `A`, `b`, `c`, with a floor
//! of 1), or at the iteration limit. Intended for dense problems with up to a few
//! hundred rows and columns; the tableau is not refactorized, so round-off grows with
//! the pivot count (tens of pivots in the ratio metric).
//!
//! # Cost and memory
//! Dense tableau of `(m + n_box + 2) × (n_cols + 1)` doubles, `O(rows · cols)` per pivot.
//! All buffers live in [`LpScratch`] and [`LpResults`]; once sized for the largest
//! problem, `solve` does not allocate. Non-finite data (NaN, or an infinite entry of
//! `A`, `b`, `c`) returns [`LpStatus::InvalidInput`] without panicking.

/// The sense of one constraint row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    /// `a_iᵀx ≤ b_i`
    Le,
    /// `a_iᵀx = b_i`
    Eq,
    /// `a_iᵀx ≥ b_i`
    Ge,
}

/// A linear program over borrowed data (no copy is made).
#[derive(Debug, Clone, Copy)]
pub struct LpProblem<'a> {
    /// Number of variables `n`.
    pub n: usize,
    /// Number of rows `m`.
    pub m: usize,
    /// Costs, `n` entries.
    pub c: &'a [f64],
    /// Constraint matrix, row-major `m × n`.
    pub a: &'a [f64],
    /// Right-hand sides, `m` entries.
    pub b: &'a [f64],
    /// Row senses, `m` entries.
    pub rows: &'a [RowKind],
    /// Lower bounds, `n` entries (`-∞` allowed, `+∞` invalid).
    pub lower: &'a [f64],
    /// Upper bounds, `n` entries (`+∞` allowed, `-∞` invalid).
    pub upper: &'a [f64],
}

/// Simplex parameters. The defaults are the documented engine defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct LpParams {
    /// Entries with `|T| ≤ pivot_tol · scale_a` are not used as pivots
    /// (dimensionless, `scale_a = max(1, max|A_ij|)`). `1e-9` keeps round-off out of
    /// the basis on well-scaled data.
    pub pivot_tol: f64,
    /// Optimality: a reduced cost `d_j < −opt_tol · scale_c` prices column `j` in
    /// (`scale_c = max(1, max|c_j|)`). Smaller: more pivots on noise; larger: a
    /// looser optimum.
    pub opt_tol: f64,
    /// Feasibility: phase 1 ends infeasible if the sum of artificials exceeds
    /// `feas_tol · scale_b` (`scale_b = max(1, max|b_i|, max finite |bound|)`).
    pub feas_tol: f64,
    /// Pivot limit for both phases together; `None` = `20·(rows + cols) + 100`.
    pub max_iterations: Option<usize>,
    /// Consecutive degenerate pivots after which Bland's rule replaces Dantzig's
    /// pricing for the rest of the solve. `0` = Bland from the start (slowest,
    /// simplest); the default `8` keeps Dantzig's speed on nondegenerate steps.
    pub bland_after: usize,
}

impl Default for LpParams {
    fn default() -> Self {
        Self {
            pivot_tol: 1e-9,
            opt_tol: 1e-9,
            feas_tol: 1e-9,
            max_iterations: None,
            bland_after: 8,
        }
    }
}

/// How a solve ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LpStatus {
    /// `x` is optimal (up to the tolerances); `y` holds the row multipliers.
    Optimal,
    /// No point satisfies the constraints (phase-1 optimum > 0, or a lower bound
    /// above its upper bound).
    Infeasible,
    /// The objective decreases without bound along a feasible ray.
    Unbounded,
    /// The pivot limit was reached; `x` is the last basic point (not meaningful in
    /// phase 1).
    IterationLimit,
    /// Size mismatch, a NaN anywhere, an infinite entry of `A`, `b` or `c`, or a bound
    /// of the wrong infinity. Nothing was computed.
    #[default]
    InvalidInput,
}

/// Counters of one solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LpStats {
    /// Pivots spent in phase 1 (including driving artificials out).
    pub phase1_iterations: usize,
    /// Pivots spent in phase 2.
    pub phase2_iterations: usize,
    /// Pivots with a zero step (degenerate).
    pub degenerate_pivots: usize,
    /// Bland's rule was switched on.
    pub bland: bool,
    /// Standard-form size: rows and columns (without the right-hand side).
    pub rows: usize,
    pub cols: usize,
}

impl LpStats {
    /// All pivots.
    pub fn iterations(&self) -> usize {
        self.phase1_iterations + self.phase2_iterations
    }
}

/// Output buffers; reuse them across solves to avoid allocation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LpResults {
    pub status: LpStatus,
    /// The solution (or the last basic point), `n` entries.
    pub x: Vec<f64>,
    /// `cᵀx` of the returned `x`.
    pub objective: f64,
    /// Row multipliers (see the module doc), `m` entries.
    pub y: Vec<f64>,
    pub stats: LpStats,
}

/// How an original variable maps to standard-form columns.
#[derive(Debug, Clone, Copy, PartialEq)]
enum VarMap {
    /// `x = l + y` (column `col`), no upper bound.
    Shift { col: usize, l: f64 },
    /// `x = l + y`, `y + s = u − l` (box row `row`).
    Boxed { col: usize, l: f64 },
    /// `x = u − y`.
    Mirror { col: usize, u: f64 },
    /// `x = y⁺ − y⁻` (columns `col`, `col + 1`).
    Free { col: usize },
}

/// Reusable workspace of the simplex: the tableau and the index vectors.
#[derive(Debug, Clone, Default)]
pub struct LpScratch {
    /// Row-major tableau `(rows + 2) × (cols + 1)`: constraint rows, then the
    /// phase-2 cost row, then the phase-1 cost row; the last column is the rhs.
    t: Vec<f64>,
    width: usize,
    rows: usize,
    cols: usize,
    /// Basic column of each row.
    basis: Vec<usize>,
    /// The column that was the unit vector `e_r` initially (slack or artificial).
    init_col: Vec<usize>,
    /// `-1.0` where a row was negated, else `1.0`.
    row_sign: Vec<f64>,
    vars: Vec<VarMap>,
    /// Columns at and above this index are artificial.
    first_art: usize,
    /// Cost of each standard-form column (phase 2).
    cost: Vec<f64>,
}

impl LpScratch {
    /// A workspace pre-sized for problems up to `m` rows and `n` variables (all
    /// boxed and free at once in the worst case), so the first solve does not
    /// allocate either.
    pub fn with_capacity(m: usize, n: usize) -> Self {
        let rows = m + n;
        let cols = 2 * n + 2 * rows;
        Self {
            t: Vec::with_capacity((rows + 2) * (cols + 1)),
            basis: Vec::with_capacity(rows),
            init_col: Vec::with_capacity(rows),
            row_sign: Vec::with_capacity(rows),
            vars: Vec::with_capacity(n),
            cost: Vec::with_capacity(cols),
            ..Self::default()
        }
    }

    #[inline]
    fn at(&self, r: usize, c: usize) -> f64 {
        self.t[r * self.width + c]
    }

    #[inline]
    fn rhs(&self, r: usize) -> f64 {
        self.t[r * self.width + self.cols]
    }

    /// Gauss–Jordan pivot on `(pr, pc)` over every row (both cost rows included).
    fn pivot(&mut self, pr: usize, pc: usize) {
        let w = self.width;
        let p = self.t[pr * w + pc];
        let inv = 1.0 / p;
        for k in 0..w {
            self.t[pr * w + k] *= inv;
        }
        self.t[pr * w + pc] = 1.0;
        for r in 0..self.rows + 2 {
            if r == pr {
                continue;
            }
            let f = self.t[r * w + pc];
            if f == 0.0 {
                continue;
            }
            let (a, b) = if r < pr {
                let (lo, hi) = self.t.split_at_mut(pr * w);
                (&mut lo[r * w..r * w + w], &hi[..w])
            } else {
                let (lo, hi) = self.t.split_at_mut(r * w);
                (&mut hi[..w], &lo[pr * w..pr * w + w])
            };
            for k in 0..w {
                a[k] -= f * b[k];
            }
            a[pc] = 0.0;
        }
        self.basis[pr] = pc;
    }
}

/// The simplex solver with its parameters and reusable workspace.
#[derive(Debug, Clone, Default)]
pub struct LpSolver {
    /// Parameters; may be changed between solves.
    pub params: LpParams,
    pub scratch: LpScratch,
}

/// Outcome of one simplex phase.
enum PhaseEnd {
    Optimal,
    Unbounded,
    Limit,
}

impl LpSolver {
    pub fn new(params: LpParams) -> Self {
        Self {
            params,
            scratch: LpScratch::default(),
        }
    }

    /// A solver whose workspace is pre-sized for `m` rows and `n` variables.
    pub fn with_capacity(params: LpParams, m: usize, n: usize) -> Self {
        Self {
            params,
            scratch: LpScratch::with_capacity(m, n),
        }
    }

    /// Solves `problem`; writes and returns `results.status`. Never panics.
    pub fn solve(&mut self, problem: &LpProblem, results: &mut LpResults) -> LpStatus {
        results.stats = LpStats::default();
        results.objective = f64::NAN;
        let status = self.solve_inner(problem, results);
        results.status = status;
        status
    }

    fn solve_inner(&mut self, p: &LpProblem, res: &mut LpResults) -> LpStatus {
        let (m, n) = (p.m, p.n);
        // Validate sizes and finiteness.
        if p.c.len() != n
            || p.a.len() != m.saturating_mul(n)
            || p.b.len() != m
            || p.rows.len() != m
            || p.lower.len() != n
            || p.upper.len() != n
        {
            return LpStatus::InvalidInput;
        }
        res.x.clear();
        res.x.resize(n, 0.0);
        res.y.clear();
        res.y.resize(m, 0.0);
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        if !finite(p.c) || !finite(p.a) || !finite(p.b) {
            return LpStatus::InvalidInput;
        }
        if p.lower.iter().any(|l| l.is_nan() || *l == f64::INFINITY)
            || p.upper
                .iter()
                .any(|u| u.is_nan() || *u == f64::NEG_INFINITY)
        {
            return LpStatus::InvalidInput;
        }
        if p.lower.iter().zip(p.upper).any(|(l, u)| l > u) {
            return LpStatus::Infeasible;
        }
        let maxabs = |v: &[f64]| v.iter().fold(1.0f64, |acc, x| acc.max(x.abs()));
        let scale_a = maxabs(p.a);
        let scale_c = maxabs(p.c);
        let scale_b = p
            .lower
            .iter()
            .chain(p.upper)
            .filter(|x| x.is_finite())
            .fold(maxabs(p.b), |acc, x| acc.max(x.abs()));
        let pivot_tol = self.params.pivot_tol * scale_a;
        let opt_tol = self.params.opt_tol * scale_c;
        let feas_tol = self.params.feas_tol * scale_b;

        // 1. Standard form: column layout.
        let s = &mut self.scratch;
        s.vars.clear();
        let mut ncol = 0;
        let mut nbox = 0;
        for j in 0..n {
            let (l, u) = (p.lower[j], p.upper[j]);
            let v = match (l.is_finite(), u.is_finite()) {
                (true, false) => VarMap::Shift { col: ncol, l },
                (true, true) => {
                    nbox += 1;
                    VarMap::Boxed { col: ncol, l }
                }
                (false, true) => VarMap::Mirror { col: ncol, u },
                (false, false) => {
                    ncol += 1;
                    VarMap::Free { col: ncol - 1 }
                }
            };
            ncol += 1;
            s.vars.push(v);
        }
        let n_struct = ncol;
        let rows = m + nbox;
        let n_slack = p.rows.iter().filter(|k| **k != RowKind::Eq).count() + nbox;
        // Artificials: decided per row below; reserve the worst case (one per row).
        let cols_max = n_struct + n_slack + rows;
        s.rows = rows;
        s.width = cols_max + 1;
        s.t.clear();
        s.t.resize((rows + 2) * s.width, 0.0);
        s.basis.clear();
        s.basis.resize(rows, 0);
        s.init_col.clear();
        s.init_col.resize(rows, 0);
        s.row_sign.clear();
        s.row_sign.resize(rows, 1.0);
        s.cost.clear();
        s.cost.resize(cols_max, 0.0);
        let rhs_col = cols_max;
        s.cols = cols_max;

        // Structural coefficients, slacks and right-hand sides.
        let mut slack = n_struct;
        for (j, v) in s.vars.iter().enumerate() {
            let cj = p.c[j];
            match *v {
                VarMap::Shift { col, .. } | VarMap::Boxed { col, .. } => {
                    s.cost[col] = cj;
                }
                VarMap::Mirror { col, .. } => {
                    s.cost[col] = -cj;
                }
                VarMap::Free { col } => {
                    s.cost[col] = cj;
                    s.cost[col + 1] = -cj;
                }
            }
        }
        let w = s.width;
        for i in 0..m {
            let mut rhs = p.b[i];
            for j in 0..n {
                let a = p.a[i * n + j];
                if a == 0.0 {
                    continue;
                }
                match s.vars[j] {
                    VarMap::Shift { col, l } | VarMap::Boxed { col, l } => {
                        s.t[i * w + col] = a;
                        rhs -= a * l;
                    }
                    VarMap::Mirror { col, u } => {
                        s.t[i * w + col] = -a;
                        rhs -= a * u;
                    }
                    VarMap::Free { col } => {
                        s.t[i * w + col] = a;
                        s.t[i * w + col + 1] = -a;
                    }
                }
            }
            s.t[i * w + rhs_col] = rhs;
            match p.rows[i] {
                RowKind::Le => {
                    s.t[i * w + slack] = 1.0;
                    s.init_col[i] = slack;
                    slack += 1;
                }
                RowKind::Ge => {
                    s.t[i * w + slack] = -1.0;
                    s.init_col[i] = slack;
                    slack += 1;
                }
                RowKind::Eq => s.init_col[i] = usize::MAX,
            }
        }
        // Box rows `y + s = u − l`.
        let mut r = m;
        for j in 0..n {
            if let VarMap::Boxed { col, l } = s.vars[j] {
                s.t[r * w + col] = 1.0;
                s.t[r * w + slack] = 1.0;
                s.init_col[r] = slack;
                s.t[r * w + rhs_col] = p.upper[j] - l;
                slack += 1;
                r += 1;
            }
        }
        // Negate rows with a negative rhs; unit slacks become basic, the other
        // rows get an artificial.
        let mut art = n_struct + n_slack;
        s.first_art = art;
        for i in 0..rows {
            if s.t[i * w + rhs_col] < 0.0 {
                for k in 0..w {
                    s.t[i * w + k] = -s.t[i * w + k];
                }
                s.row_sign[i] = -1.0;
            }
            let ic = s.init_col[i];
            if ic != usize::MAX && s.t[i * w + ic] == 1.0 {
                s.basis[i] = ic;
            } else {
                s.t[i * w + art] = 1.0;
                s.basis[i] = art;
                s.init_col[i] = art;
                art += 1;
            }
        }
        let n_cols = art;
        res.stats.rows = rows;
        res.stats.cols = n_cols;

        // Cost rows: phase 2 (reduced costs = c, the initial basis costs nothing)
        // and phase 1 (d_j = −Σ_{artificial rows} T[r][j], rhs = −Σ rhs_r).
        let c2 = rows;
        let c1 = rows + 1;
        for k in 0..n_cols {
            s.t[c2 * w + k] = s.cost[k];
        }
        for i in 0..rows {
            if s.basis[i] >= s.first_art {
                for k in 0..s.first_art {
                    s.t[c1 * w + k] -= s.t[i * w + k];
                }
                s.t[c1 * w + rhs_col] -= s.t[i * w + rhs_col];
            }
        }

        // 2.–3. The two phases.
        let limit = self
            .params
            .max_iterations
            .unwrap_or_else(|| 20usize.saturating_mul(rows + n_cols).saturating_add(100));
        let mut used = 0usize;
        let mut bland = self.params.bland_after == 0;
        let mut streak = 0usize;
        let needs_phase1 = n_cols > s.first_art;
        if needs_phase1 {
            let end = run_phase(
                s,
                c1,
                s.first_art,
                pivot_tol,
                opt_tol.min(feas_tol),
                limit,
                &mut used,
                &mut bland,
                &mut streak,
                self.params.bland_after,
                &mut res.stats,
            );
            res.stats.phase1_iterations = used;
            match end {
                PhaseEnd::Limit => {
                    extract(s, p, res);
                    return LpStatus::IterationLimit;
                }
                // Phase 1 is bounded below by 0; an "unbounded" ray can only come
                // from round-off: treat as infeasible data.
                PhaseEnd::Unbounded => return LpStatus::Infeasible,
                PhaseEnd::Optimal => {}
            }
            if -s.rhs(c1) > feas_tol {
                return LpStatus::Infeasible;
            }
            // Drive artificials that stayed basic (at zero) out of the basis.
            for i in 0..rows {
                if s.basis[i] < s.first_art {
                    continue;
                }
                let mut best = (0.0, usize::MAX);
                for k in 0..s.first_art {
                    let v = s.at(i, k).abs();
                    if v > pivot_tol && v > best.0 {
                        best = (v, k);
                    }
                }
                if best.1 != usize::MAX {
                    s.pivot(i, best.1);
                    res.stats.phase1_iterations += 1;
                }
            }
        }
        let before = res.stats.phase1_iterations;
        used = before;
        let end = run_phase(
            s,
            c2,
            s.first_art,
            pivot_tol,
            opt_tol,
            limit,
            &mut used,
            &mut bland,
            &mut streak,
            self.params.bland_after,
            &mut res.stats,
        );
        res.stats.phase2_iterations = used - before;
        extract(s, p, res);
        match end {
            PhaseEnd::Optimal => {
                // Row multipliers y = c_Bᵀ B⁻¹ from the initial unit columns:
                // d_k = cost_k − yᵀ e_r with cost_k = 0 there.
                for i in 0..m {
                    let ic = s.init_col[i];
                    res.y[i] = -s.at(c2, ic) * s.row_sign[i];
                }
                LpStatus::Optimal
            }
            PhaseEnd::Unbounded => LpStatus::Unbounded,
            PhaseEnd::Limit => LpStatus::IterationLimit,
        }
    }
}

/// One simplex phase on cost row `cr`, pricing columns `0..enter_cols`.
#[allow(clippy::too_many_arguments)]
fn run_phase(
    s: &mut LpScratch,
    cr: usize,
    enter_cols: usize,
    pivot_tol: f64,
    opt_tol: f64,
    limit: usize,
    used: &mut usize,
    bland: &mut bool,
    streak: &mut usize,
    bland_after: usize,
    stats: &mut LpStats,
) -> PhaseEnd {
    loop {
        // Pricing: Dantzig (most negative) or Bland (first negative).
        let mut enter = usize::MAX;
        let mut best = -opt_tol;
        for k in 0..enter_cols {
            let d = s.at(cr, k);
            if d < best {
                enter = k;
                best = d;
                if *bland {
                    break;
                }
            }
        }
        if enter == usize::MAX {
            return PhaseEnd::Optimal;
        }
        if *used >= limit {
            return PhaseEnd::Limit;
        }
        // Ratio test, ties to the smallest basic column.
        let mut leave = usize::MAX;
        let mut ratio = f64::INFINITY;
        for r in 0..s.rows {
            let a = s.at(r, enter);
            if a <= pivot_tol {
                continue;
            }
            let q = s.rhs(r).max(0.0) / a;
            let take = if leave == usize::MAX {
                true
            } else if (q - ratio).abs() <= 1e-12 * (1.0 + ratio.abs()) {
                s.basis[r] < s.basis[leave]
            } else {
                q < ratio
            };
            if take {
                ratio = q;
                leave = r;
            }
        }
        if leave == usize::MAX {
            return PhaseEnd::Unbounded;
        }
        if ratio <= 0.0 {
            stats.degenerate_pivots += 1;
            *streak += 1;
            if *streak > bland_after {
                *bland = true;
                stats.bland = true;
            }
        } else {
            *streak = 0;
        }
        s.pivot(leave, enter);
        *used += 1;
    }
}

/// Reads the standard-form point back into the original variables.
fn extract(s: &LpScratch, p: &LpProblem, res: &mut LpResults) {
    let val = |col: usize| -> f64 {
        s.basis
            .iter()
            .position(|&b| b == col)
            .map_or(0.0, |r| s.rhs(r).max(0.0))
    };
    for (j, v) in s.vars.iter().enumerate() {
        res.x[j] = match *v {
            VarMap::Shift { col, l } | VarMap::Boxed { col, l } => l + val(col),
            VarMap::Mirror { col, u } => u - val(col),
            VarMap::Free { col } => val(col) - val(col + 1),
        };
    }
    res.objective = p.c.iter().zip(&res.x).map(|(c, x)| c * x).sum();
}
