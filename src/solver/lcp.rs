//! The linear complementarity problem `LCP(M, q)`.
//!
//! Find `z ∈ ℝⁿ` such that
//!
//! ```text
//! z ≥ 0,   w = M z + q ≥ 0,   zᵀ w = 0.
//! ```
//!
//! Glossary (Cottle–Pang–Stone notation, used by every solver in this module):
//! `M` (n×n), `q` (n), `z` the unknown, `w = M z + q` its complement, `z₀` Lemke's
//! artificial variable and `d` its covering vector.
//!
//! In the Stewart–Trinkle subproblem (eqs. (8)–(9) of `003_668e561ceb3412ed`) `z`
//! is the normal impulse `p_n` and `w` the stabilised normal gap rate `ρ_n`.

use nalgebra::{DMatrix, DVector};

/// Why an [`LcpProblem`] was rejected. Solvers map every variant to their
/// `InvalidProblem` status; none of them panics on bad input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LcpError {
    /// `M` is not square.
    #[error("LCP matrix is {rows}x{cols}, not square")]
    NotSquare { rows: usize, cols: usize },
    /// `q` (or a guess, or a bound vector) does not have `n` entries.
    #[error("LCP vector has {got} entries, expected {expected}")]
    SizeMismatch { expected: usize, got: usize },
    /// `M` or `q` holds a NaN or an infinity.
    #[error("LCP data contains a non-finite value")]
    NonFinite,
}

/// `LCP(M, q)`: the problem data, owned. Build it with [`LcpProblem::new`] to
/// validate up front; solvers re-validate (cheaply, O(n²)) before every solve, so a
/// problem mutated through its public fields cannot make them panic.
#[derive(Debug, Clone, PartialEq)]
pub struct LcpProblem {
    /// The n×n LCP matrix. In contact problems `G_nᵀ M⁻¹ G_n`, units of
    /// (m/s)/(N·s); symmetric positive semi-definite.
    pub m: DMatrix<f64>,
    /// The n-vector offset, `w = M z + q`. In contact problems the free gap rate
    /// (m/s) including the stabilisation term `ψ_n / h`.
    pub q: DVector<f64>,
}

impl LcpProblem {
    /// Validated constructor: square, `q` of matching size, all entries finite.
    pub fn new(m: DMatrix<f64>, q: DVector<f64>) -> Result<Self, LcpError> {
        let problem = Self { m, q };
        problem.validate()?;
        Ok(problem)
    }

    /// Problem size `n` (the number of rows of `q`).
    pub fn n(&self) -> usize {
        self.q.len()
    }

    /// Checks shape (square `M`, `q` with `n` entries) and finiteness.
    pub fn validate(&self) -> Result<(), LcpError> {
        let (rows, cols) = self.m.shape();
        if rows != cols {
            return Err(LcpError::NotSquare { rows, cols });
        }
        if self.q.len() != rows {
            return Err(LcpError::SizeMismatch {
                expected: rows,
                got: self.q.len(),
            });
        }
        if !all_finite(self.m.as_slice()) || !all_finite(self.q.as_slice()) {
            return Err(LcpError::NonFinite);
        }
        Ok(())
    }

    /// Writes `w = M z + q` into `w` (resized only if its length differs).
    /// Sizes must match `n`; otherwise `w` is left unchanged and an error returned.
    pub fn compute_w(&self, z: &DVector<f64>, w: &mut DVector<f64>) -> Result<(), LcpError> {
        let n = self.n();
        if z.len() != n || self.m.shape() != (n, n) {
            return Err(LcpError::SizeMismatch {
                expected: n,
                got: z.len(),
            });
        }
        if w.len() != n {
            resize_zeroed(w, n);
        }
        w.copy_from(&self.q);
        w.gemv(1.0, &self.m, z, 1.0);
        Ok(())
    }

    /// Complementarity residual `‖min(z, w)‖∞` with `w = M z + q`; zero exactly at
    /// a solution (it is the natural-map residual of the LCP). Uses `w_buf` as
    /// scratch (no allocation once it has `n` entries). Returns `+∞` on size
    /// mismatch or non-finite values.
    pub fn residual_with(&self, z: &DVector<f64>, w_buf: &mut DVector<f64>) -> f64 {
        if self.compute_w(z, w_buf).is_err() {
            return f64::INFINITY;
        }
        complementarity_residual(z, w_buf)
    }

    /// Allocating convenience form of [`LcpProblem::residual_with`].
    pub fn residual(&self, z: &DVector<f64>) -> f64 {
        let mut w = DVector::zeros(self.n());
        self.residual_with(z, &mut w)
    }

    /// `z ≥ -tol` and `w = M z + q ≥ -tol` componentwise (feasibility of the LCP
    /// point `z`, complementarity not checked).
    pub fn is_feasible_point(&self, z: &DVector<f64>, tol: f64) -> bool {
        let mut w = DVector::zeros(self.n());
        if self.compute_w(z, &mut w).is_err() {
            return false;
        }
        min_entry(z) >= -tol && min_entry(&w) >= -tol
    }

    /// `z` solves the LCP to tolerance `tol`: `z ≥ -tol`, `w ≥ -tol` and
    /// `|z_i w_i| ≤ tol` for every `i`.
    pub fn is_solution(&self, z: &DVector<f64>, tol: f64) -> bool {
        let mut w = DVector::zeros(self.n());
        if self.compute_w(z, &mut w).is_err() {
            return false;
        }
        min_entry(z) >= -tol
            && min_entry(&w) >= -tol
            && z.iter()
                .zip(w.iter())
                .all(|(zi, wi)| (zi * wi).abs() <= tol)
    }
}

/// `‖min(z, w)‖∞` for given `z` and `w` (`+∞` if sizes differ or a value is NaN).
pub fn complementarity_residual(z: &DVector<f64>, w: &DVector<f64>) -> f64 {
    if z.len() != w.len() {
        return f64::INFINITY;
    }
    let mut r = 0.0_f64;
    for (zi, wi) in z.iter().zip(w.iter()) {
        let m = zi.min(*wi).abs();
        if m.is_nan() {
            return f64::INFINITY;
        }
        r = r.max(m);
    }
    r
}

/// Smallest entry of `v` (`+∞` for an empty vector).
pub fn min_entry(v: &DVector<f64>) -> f64 {
    v.iter().fold(f64::INFINITY, |a, b| a.min(*b))
}

/// Gives `m` the shape `rows × cols` with every entry zero, reusing its storage: no
/// allocation when the capacity of the underlying buffer suffices (so a solver or
/// a stepper that has seen a problem of size `n` can size down and back up to `n`
/// without touching the heap); a buffer that must grow reserves twice the need.
pub fn reshape_zeroed(m: &mut DMatrix<f64>, rows: usize, cols: usize) {
    if m.shape() == (rows, cols) {
        m.fill(0.0);
        return;
    }
    let old = std::mem::replace(m, DMatrix::zeros(0, 0));
    let mut buf: Vec<f64> = old.data.into();
    buf.clear();
    grow(&mut buf, rows * cols);
    buf.resize(rows * cols, 0.0);
    *m = DMatrix::from_vec(rows, cols, buf);
}

/// [`reshape_zeroed`] for vectors: `v` gets `n` zero entries, storage reused.
pub fn resize_zeroed(v: &mut DVector<f64>, n: usize) {
    if v.len() == n {
        v.fill(0.0);
        return;
    }
    let old = std::mem::replace(v, DVector::zeros(0));
    let mut buf: Vec<f64> = old.data.into();
    buf.clear();
    grow(&mut buf, n);
    buf.resize(n, 0.0);
    *v = DVector::from_vec(buf);
}

/// When `buf` must grow to `len`, reserve twice that (a problem whose size creeps
/// up step after step then allocates O(log n) times, not every time).
fn grow(buf: &mut Vec<f64>, len: usize) {
    if buf.capacity() < len {
        buf.reserve_exact(2 * len);
    }
}

pub(crate) fn all_finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shape and finiteness validation; residual `‖min(z, w)‖∞` by hand (exact).
    #[test]
    fn validation_and_residual() {
        let m = DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 2.0]);
        let q = DVector::from_vec(vec![-1.0, 1.0]);
        let p = LcpProblem::new(m.clone(), q.clone()).expect("valid");
        // z = (1/2, 0): w = (0, 3/2), residual 0.
        let z = DVector::from_vec(vec![0.5, 0.0]);
        assert_eq!(p.residual(&z), 0.0);
        assert!(p.is_solution(&z, 1e-15));
        assert!(p.is_feasible_point(&z, 0.0));
        // z = (1, 1): w = (2, 4), residual = min(1, 2) ∨ min(1, 4) = 1.
        let z = DVector::from_vec(vec![1.0, 1.0]);
        assert_eq!(p.residual(&z), 1.0);
        assert!(p.is_feasible_point(&z, 0.0) && !p.is_solution(&z, 1e-3));
        // Wrong-size z: infinite residual, not a panic.
        assert_eq!(p.residual(&DVector::zeros(3)), f64::INFINITY);
        assert_eq!(
            LcpProblem::new(DMatrix::zeros(2, 3), q.clone()),
            Err(LcpError::NotSquare { rows: 2, cols: 3 })
        );
        assert_eq!(
            LcpProblem::new(m.clone(), DVector::zeros(1)),
            Err(LcpError::SizeMismatch {
                expected: 2,
                got: 1
            })
        );
        let mut bad = m;
        bad[(1, 0)] = f64::NEG_INFINITY;
        assert_eq!(LcpProblem::new(bad, q), Err(LcpError::NonFinite));
    }
}
