//! Numerical solvers for the contact subproblems.
//!
//! Every solver separates Problem, Params, Results and Stats (Drake `SapSolver`,
//! `UnrevisedLemkeSolver`): `solve(&problem, guess, &mut results) -> Status`.
//!
//! - [`block_cholesky`]: block-sparse (6×6 per body) Cholesky with a cached
//!   minimum-degree ordering, for the implicit penalty system per island.
//! - [`interior`]: primal–dual interior point (Mehrotra) on the frozen-radius
//!   QP of the staggered Newton; the Newton path's rescue of the islands its
//!   line search fails on.
//! - [`lcp`]: the linear complementarity problem `LCP(M, q)`: find `z` with
//!   `z ≥ 0`, `w = M z + q ≥ 0`, `zᵀ w = 0`; validation and residual helpers.
//! - [`lemke`]: Lemke's complementary pivoting method (direct, exact up to
//!   round-off; P-matrices and copositive-plus feasible LCPs).
//! - [`newton`]: semismooth Newton (active-set) on the natural map of the
//!   block-sparse contact problem, dense LU per island, warm-started; exact
//!   complementarity in a few steps.
//! - [`primal`]: Newton on the bodies' velocities (the dual of the
//!   frozen-radius contact QP), the block-sparse Cholesky of `M + Gᵀ K G`,
//!   exact line search; outer passes on the radii (lcp13).
//! - [`pgs`]: projected Gauss–Seidel / SOR (iterative; symmetric positive definite
//!   `M`), with a boxed variant for friction rows `|z_t| ≤ μ z_n`.
//!
//! The LCP they target is the Stewart–Trinkle time-stepping subproblem, eqs.
//! (8)–(9) of `003_668e561ceb3412ed`: after eliminating `ν_{ℓ+1}` from the first row
//! of eq. (8), `ρ_n = G_nᵀ M⁻¹ G_n p_n + q` with `0 ≤ ρ_n ⊥ p_n ≥ 0` (eq. (9)), i.e.
//! `LCP(G_nᵀ M⁻¹ G_n, q)` whose matrix is symmetric positive semi-definite.

pub mod block_cholesky;
pub mod interior;
pub mod lcp;
pub mod lemke;
pub mod lp;
pub mod newton;
pub mod pgs;
pub mod primal;
pub mod staggered;

pub use lcp::{reshape_zeroed, resize_zeroed, LcpError, LcpProblem};
pub use lemke::{LemkeParams, LemkeResults, LemkeSolver, LemkeStats, LemkeStatus};
pub use newton::{
    Globalization, NewtonParams, NewtonResults, NewtonSolver, NewtonStats, NewtonStatus,
};
pub use pgs::{
    contact_residual, project_polygon, project_polygon_with, BoxBounds, ContactPgsResults,
    ContactPgsStats, ContactProblem, FrictionCoupling, PatchOf, PgsParams, PgsResults, PgsSolver,
    PgsStats, PgsStatus, PolygonCone, PolygonTable,
};
pub use primal::{
    BodyRows, DofRows, LineSearch, PrimalParams, PrimalResults, PrimalSolver, PrimalStats,
    PrimalStatus,
};
