//! LCP solvers (`rtphys::solver`): Lemke and projected Gauss–Seidel against
//! hand-solved LCPs, an independent brute-force QP/LCP enumeration, and each other.
//! Every check states its tolerance.

use nalgebra::{DMatrix, DVector};
use rtphys::solver::{
    BoxBounds, FrictionCoupling, LcpProblem, LemkeParams, LemkeResults, LemkeSolver, LemkeStatus,
    PgsParams, PgsResults, PgsSolver, PgsStatus,
};
#[path = "common/alloc_counter.rs"]
mod alloc_counter;
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

fn count_allocs(f: impl FnOnce()) -> usize {
    alloc_counter::count(f).1
}

// ---- helpers ----

/// Deterministic xorshift64* generator, uniform in [-1, 1).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
        2.0 * (x as f64 / (1u64 << 53) as f64) - 1.0
    }
    fn mat(&mut self, r: usize, c: usize) -> DMatrix<f64> {
        DMatrix::from_fn(r, c, |_, _| self.next())
    }
    fn vec(&mut self, n: usize) -> DVector<f64> {
        DVector::from_fn(n, |_, _| self.next())
    }
}

fn problem(m: &[&[f64]], q: &[f64]) -> LcpProblem {
    let n = q.len();
    let m = DMatrix::from_fn(n, n, |i, j| m[i][j]);
    LcpProblem::new(m, DVector::from_column_slice(q)).expect("valid test problem")
}

fn lemke(p: &LcpProblem) -> (LemkeStatus, LemkeResults) {
    let mut solver = LemkeSolver::default();
    let mut res = LemkeResults::default();
    let status = solver.solve(p, None, &mut res);
    (status, res)
}

fn pgs_tight() -> PgsSolver {
    PgsSolver::new(PgsParams {
        tolerance: 1e-13,
        max_iterations: 200_000,
        relaxation: 1.0,
    })
}

fn max_diff(a: &DVector<f64>, b: &DVector<f64>) -> f64 {
    (a - b).amax()
}

/// z ≥ -tol, w = Mz + q ≥ -tol, |zᵀw| ≤ tol.
fn assert_complementary(p: &LcpProblem, z: &DVector<f64>, tol: f64, what: &str) {
    let w = &p.m * z + &p.q;
    let zmin = z.min();
    let wmin = w.min();
    let ztw = z.dot(&w);
    assert!(
        zmin >= -tol && wmin >= -tol && ztw.abs() <= tol,
        "{what}: min z {zmin:e}, min w {wmin:e}, zᵀw {ztw:e} (tol {tol:e})"
    );
}

/// Independent reference: enumerate all 2ⁿ complementary bases (nalgebra LU on
/// M_AA z_A = -q_A) and keep the feasible one with the smallest ½zᵀMz + qᵀz. For
/// SPD M this is the unique QP minimiser over z ≥ 0 (= the LCP solution); for a
/// P-matrix the unique LCP solution.
fn brute_force(p: &LcpProblem) -> Option<DVector<f64>> {
    let n = p.n();
    let mut best: Option<(f64, DVector<f64>)> = None;
    for mask in 0u32..(1 << n) {
        let act: Vec<usize> = (0..n).filter(|i| mask & (1 << i) != 0).collect();
        let k = act.len();
        let mut z = DVector::zeros(n);
        if k > 0 {
            let maa = DMatrix::from_fn(k, k, |a, b| p.m[(act[a], act[b])]);
            let qa = DVector::from_fn(k, |a, _| -p.q[act[a]]);
            let Some(za) = maa.lu().solve(&qa) else {
                continue;
            };
            for (a, &i) in act.iter().enumerate() {
                z[i] = za[a];
            }
        }
        let w = &p.m * &z + &p.q;
        if z.min() < -1e-12 || w.min() < -1e-12 {
            continue;
        }
        let f = 0.5 * z.dot(&(&p.m * &z)) + p.q.dot(&z);
        if best.as_ref().is_none_or(|(fb, _)| f < *fb) {
            best = Some((f, z));
        }
    }
    best.map(|(_, z)| z)
}

fn random_spd(rng: &mut Rng, n: usize, eps: f64) -> DMatrix<f64> {
    let a = rng.mat(n, n);
    a.transpose() * a + DMatrix::identity(n, n) * eps
}

// ---- textbook LCPs ----

/// Murty's 2×2 example, both components active: M = [[2,1],[1,2]], q = (-5,-6),
/// z = (4/3, 7/3), w = 0. Tolerance 1e-12 (Lemke), 1e-10 (PGS).
#[test]
fn murty_2x2_both_active() {
    let p = problem(&[&[2.0, 1.0], &[1.0, 2.0]], &[-5.0, -6.0]);
    let want = DVector::from_vec(vec![4.0 / 3.0, 7.0 / 3.0]);
    let (status, res) = lemke(&p);
    assert_eq!(status, LemkeStatus::Solved);
    assert!(max_diff(&res.z, &want) <= 1e-12, "lemke z = {}", res.z);
    assert!(res.w.amax() <= 1e-12);
    assert!(res.stats.residual <= 1e-12);
    let mut pr = PgsResults::default();
    assert_eq!(pgs_tight().solve(&p, None, &mut pr), PgsStatus::Converged);
    assert!(max_diff(&pr.z, &want) <= 1e-10, "pgs z = {}", pr.z);
}

/// By hand: M = [[2,1],[1,2]], q = (-1, 1): z = (1/2, 0), w = (0, 3/2). Tol 1e-12.
#[test]
fn hand_2x2_one_active() {
    let p = problem(&[&[2.0, 1.0], &[1.0, 2.0]], &[-1.0, 1.0]);
    let (status, res) = lemke(&p);
    assert_eq!(status, LemkeStatus::Solved);
    assert!(max_diff(&res.z, &DVector::from_vec(vec![0.5, 0.0])) <= 1e-12);
    assert!(max_diff(&res.w, &DVector::from_vec(vec![0.0, 1.5])) <= 1e-12);
}

/// By hand, the 1-D Laplacian M = tridiag(-1, 2, -1):
/// q = (-2, 3, -1) gives z = (1, 0, 1/2), w = (0, 3/2, 0);
/// q = (-1, 0, -1) gives z = (1, 1, 1), w = 0. Tol 1e-12 (Lemke), 1e-10 (PGS).
#[test]
fn hand_3x3_laplacian() {
    let m: &[&[f64]] = &[&[2.0, -1.0, 0.0], &[-1.0, 2.0, -1.0], &[0.0, -1.0, 2.0]];
    for (q, z, w) in [
        ([-2.0, 3.0, -1.0], [1.0, 0.0, 0.5], [0.0, 1.5, 0.0]),
        ([-1.0, 0.0, -1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]),
    ] {
        let p = problem(m, &q);
        let (status, res) = lemke(&p);
        assert_eq!(status, LemkeStatus::Solved, "q = {q:?}");
        assert!(
            max_diff(&res.z, &DVector::from_row_slice(&z)) <= 1e-12,
            "z = {}",
            res.z
        );
        assert!(
            max_diff(&res.w, &DVector::from_row_slice(&w)) <= 1e-12,
            "w = {}",
            res.w
        );
        let mut pr = PgsResults::default();
        assert_eq!(pgs_tight().solve(&p, None, &mut pr), PgsStatus::Converged);
        assert!(max_diff(&pr.z, &DVector::from_row_slice(&z)) <= 1e-10);
    }
}

/// q ≥ 0: z = 0 with zero pivots and zero sweeps (exact).
#[test]
fn nonnegative_q_is_solved_by_zero() {
    let p = problem(&[&[1.0, 3.0], &[-2.0, 1.0]], &[0.0, 2.0]);
    let (status, res) = lemke(&p);
    assert_eq!(status, LemkeStatus::Solved);
    assert_eq!(res.stats.pivots, 0);
    assert_eq!(res.z, DVector::zeros(2));
    let mut pr = PgsResults::default();
    assert_eq!(
        PgsSolver::default().solve(&p, None, &mut pr),
        PgsStatus::Converged
    );
    assert_eq!(pr.stats.iterations, 0);
}

/// Copositive-plus, not P (PSD, singular): M = [[1,1],[1,1]], q = (-1,-1) has the
/// solution set z₁ + z₂ = 1, z ≥ 0. Lemke solves it; complementarity to 1e-12.
#[test]
fn copositive_plus_singular_psd() {
    let p = problem(&[&[1.0, 1.0], &[1.0, 1.0]], &[-1.0, -1.0]);
    let (status, res) = lemke(&p);
    assert_eq!(status, LemkeStatus::Solved);
    assert_complementary(&p, &res.z, 1e-12, "psd");
    assert!((res.z.sum() - 1.0).abs() <= 1e-12);
}

// ---- random problems against each other and a brute-force reference ----

/// 300 random SPD problems, M = AᵀA + 0.5 I, n = 1..8, q ∈ [-1,1]ⁿ: Lemke solves,
/// PGS converges, they agree to 1e-8, both are complementary to 1e-9, and Lemke
/// matches the brute-force QP minimiser of ½zᵀMz + qᵀz over z ≥ 0 to 1e-9.
#[test]
fn random_spd_lemke_pgs_and_qp_agree() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut solver = LemkeSolver::default();
    let mut lr = LemkeResults::default();
    let mut pr = PgsResults::default();
    let pgs = pgs_tight();
    for trial in 0..300 {
        let n = 1 + trial % 8;
        let m = random_spd(&mut rng, n, 0.5);
        let p = LcpProblem::new(m, rng.vec(n)).expect("valid");
        assert_eq!(
            solver.solve(&p, None, &mut lr),
            LemkeStatus::Solved,
            "trial {trial}"
        );
        assert_eq!(
            pgs.solve(&p, None, &mut pr),
            PgsStatus::Converged,
            "trial {trial}"
        );
        assert!(
            max_diff(&lr.z, &pr.z) <= 1e-8,
            "trial {trial}: lemke {} vs pgs {}",
            lr.z,
            pr.z
        );
        assert_complementary(&p, &lr.z, 1e-9, "lemke");
        assert_complementary(&p, &pr.z, 1e-9, "pgs");
        let qp = brute_force(&p).expect("SPD LCP has a solution");
        assert!(
            max_diff(&lr.z, &qp) <= 1e-9,
            "trial {trial}: qp {qp} lemke {}",
            lr.z
        );
    }
}

/// 200 random nonsymmetric P-matrices (positive definite: SPD + skew part), n = 1..8:
/// Lemke matches the unique solution found by basis enumeration to 1e-9 and is
/// complementary to 1e-9.
#[test]
fn random_nonsymmetric_p_matrix_matches_enumeration() {
    let mut rng = Rng(42);
    let mut solver = LemkeSolver::default();
    let mut lr = LemkeResults::default();
    for trial in 0..200 {
        let n = 1 + trial % 8;
        let k = rng.mat(n, n);
        let m = random_spd(&mut rng, n, 0.5) + (&k - k.transpose());
        let p = LcpProblem::new(m, rng.vec(n)).expect("valid");
        assert_eq!(
            solver.solve(&p, None, &mut lr),
            LemkeStatus::Solved,
            "trial {trial}"
        );
        assert_complementary(&p, &lr.z, 1e-9, "lemke");
        let reference = brute_force(&p).expect("P-matrix LCP has a solution");
        assert!(max_diff(&lr.z, &reference) <= 1e-9, "trial {trial}");
    }
}

/// A larger SPD problem (n = 60, M = AᵀA/n + 0.1 I): Lemke solved with residual
/// ≤ 1e-10, PGS agrees to 1e-8.
#[test]
fn larger_spd_problem() {
    let mut rng = Rng(7);
    let n = 60;
    let a = rng.mat(n, n);
    let m = a.transpose() * a / n as f64 + DMatrix::identity(n, n) * 0.1;
    let p = LcpProblem::new(m, rng.vec(n)).expect("valid");
    let (status, lr) = lemke(&p);
    assert_eq!(status, LemkeStatus::Solved);
    assert!(lr.stats.residual <= 1e-10, "residual {}", lr.stats.residual);
    assert!(lr.stats.pivots <= LemkeParams::default().pivot_limit(n));
    let mut pr = PgsResults::default();
    assert_eq!(pgs_tight().solve(&p, None, &mut pr), PgsStatus::Converged);
    assert!(max_diff(&lr.z, &pr.z) <= 1e-8);
}

// ---- degenerate, infeasible, limits ----

/// Degenerate problems with ties in the ratio test (all rows tie when z₀ enters;
/// zero right-hand sides): the lexicographic rule terminates with `Solved` within
/// the pivot limit, complementary to 1e-12, and equal to the known/enumerated
/// solution to 1e-12.
#[test]
fn degenerate_ties_terminate_and_solve() {
    // Cyclic P-matrix, q = -1: z = (1/3, 1/3, 1/3), w = 0 (by hand). With the
    // ties broken by row index instead of lexicographically this one cycles into
    // IterationLimit (checked by disabling the lexicographic comparison).
    let cyc: &[&[f64]] = &[&[1.0, 2.0, 0.0], &[0.0, 1.0, 2.0], &[2.0, 0.0, 1.0]];
    let p = problem(cyc, &[-1.0, -1.0, -1.0]);
    let (status, res) = lemke(&p);
    assert_eq!(status, LemkeStatus::Solved);
    assert!(max_diff(&res.z, &DVector::from_element(3, 1.0 / 3.0)) <= 1e-12);
    // Zero entries in q (degenerate starting basis) and repeated values.
    let m: &[&[f64]] = &[
        &[2.0, 1.0, 1.0, 0.0],
        &[1.0, 2.0, 1.0, 0.0],
        &[1.0, 1.0, 2.0, 1.0],
        &[0.0, 0.0, 1.0, 2.0],
    ];
    for q in [
        [-1.0, -1.0, -1.0, -1.0],
        [0.0, -1.0, 0.0, -1.0],
        [-1.0, -1.0, 0.0, 0.0],
        [-2.0, -1.0, -1.0, 0.5],
    ] {
        let p = problem(m, &q);
        let (status, res) = lemke(&p);
        assert_eq!(status, LemkeStatus::Solved, "q = {q:?}");
        assert!(res.stats.pivots <= LemkeParams::default().pivot_limit(4));
        assert_complementary(&p, &res.z, 1e-12, "degenerate");
        let reference = brute_force(&p).expect("SPD");
        assert!(max_diff(&res.z, &reference) <= 1e-12, "q = {q:?}");
    }
    // Identity with all-equal q: every ratio ties at every step.
    let p =
        LcpProblem::new(DMatrix::identity(6, 6), DVector::from_element(6, -1.0)).expect("valid");
    let (status, res) = lemke(&p);
    assert_eq!(status, LemkeStatus::Solved);
    assert!(max_diff(&res.z, &DVector::from_element(6, 1.0)) <= 1e-12);
}

/// Infeasible LCPs end in `RayTermination` (no hang, no panic):
/// M = [[-1]], q = [-1] (w = -z - 1 < 0), and the copositive-plus skew matrix
/// M = [[0,-1],[1,0]], q = (-1,-1) (w₁ = -z₂ - 1 < 0).
#[test]
fn infeasible_lcp_ends_in_ray_termination() {
    let p = problem(&[&[-1.0]], &[-1.0]);
    assert_eq!(lemke(&p).0, LemkeStatus::RayTermination);
    let p = problem(&[&[0.0, -1.0], &[1.0, 0.0]], &[-1.0, -1.0]);
    assert_eq!(lemke(&p).0, LemkeStatus::RayTermination);
}

/// Pivot and sweep limits are honoured: `max_pivots = 1` on a problem needing
/// more, `max_iterations = 1` on a coupled problem → `IterationLimit`.
#[test]
fn iteration_limits_are_reported() {
    let p = problem(&[&[2.0, 1.0], &[1.0, 2.0]], &[-5.0, -6.0]);
    let mut solver = LemkeSolver::new(LemkeParams {
        max_pivots: Some(1),
        ..LemkeParams::default()
    });
    let mut res = LemkeResults::default();
    assert_eq!(
        solver.solve(&p, None, &mut res),
        LemkeStatus::IterationLimit
    );
    let pgs = PgsSolver::new(PgsParams {
        max_iterations: 1,
        tolerance: 1e-14,
        ..PgsParams::default()
    });
    let mut pr = PgsResults::default();
    assert_eq!(pgs.solve(&p, None, &mut pr), PgsStatus::IterationLimit);
    assert_eq!(pr.stats.iterations, 1);
}

/// A user covering vector d > 0 gives the same solution (tol 1e-12).
#[test]
fn custom_covering_vector() {
    let p = problem(&[&[2.0, 1.0], &[1.0, 2.0]], &[-5.0, -6.0]);
    let mut solver = LemkeSolver::new(LemkeParams {
        covering: Some(DVector::from_vec(vec![1.0, 3.0])),
        ..LemkeParams::default()
    });
    let mut res = LemkeResults::default();
    assert_eq!(solver.solve(&p, None, &mut res), LemkeStatus::Solved);
    assert!(max_diff(&res.z, &DVector::from_vec(vec![4.0 / 3.0, 7.0 / 3.0])) <= 1e-12);
}

// ---- warm start ----

/// Warm start from the previous solution on a slightly perturbed problem (q
/// perturbed by 1e-6): fewer complementary pivots than the cold solve (and no more
/// pivots in total counting the basis setup), same solution to 1e-10.
/// A wrong guess still gives the right answer (fallback), to 1e-10.
#[test]
fn warm_start_reduces_pivots() {
    let mut rng = Rng(2024);
    let n = 8;
    let m = random_spd(&mut rng, n, 0.5);
    // Most rows active: q mostly negative.
    let q = rng.vec(n).map(|x| x - 0.6);
    let p0 = LcpProblem::new(m.clone(), q.clone()).expect("valid");
    let mut solver = LemkeSolver::default();
    let mut r0 = LemkeResults::default();
    assert_eq!(solver.solve(&p0, None, &mut r0), LemkeStatus::Solved);
    let active = r0.z.iter().filter(|z| **z > 0.0).count();
    assert!(active >= 3, "want a non-trivial active set, got {active}");

    let p1 = LcpProblem::new(m, q + rng.vec(n) * 1e-6).expect("valid");
    let mut cold = LemkeResults::default();
    assert_eq!(solver.solve(&p1, None, &mut cold), LemkeStatus::Solved);
    let mut warm = LemkeResults::default();
    assert_eq!(
        solver.solve(&p1, Some(&r0.z), &mut warm),
        LemkeStatus::Solved
    );
    assert!(warm.stats.warm_started);
    assert!(
        warm.stats.pivots < cold.stats.pivots,
        "warm {} pivots vs cold {}",
        warm.stats.pivots,
        cold.stats.pivots
    );
    assert!(warm.stats.pivots + warm.stats.setup_pivots <= cold.stats.pivots);
    assert!(max_diff(&warm.z, &cold.z) <= 1e-10);

    // A bad guess (everything active) must not change the answer.
    let mut bad = LemkeResults::default();
    let guess = DVector::from_element(n, 1.0);
    assert_eq!(
        solver.solve(&p1, Some(&guess), &mut bad),
        LemkeStatus::Solved
    );
    assert!(max_diff(&bad.z, &cold.z) <= 1e-10);

    // PGS warm-started from the solution converges in (almost) no sweeps.
    let pgs = PgsSolver::default();
    let mut pc = PgsResults::default();
    let mut pw = PgsResults::default();
    assert_eq!(pgs.solve(&p1, None, &mut pc), PgsStatus::Converged);
    assert_eq!(pgs.solve(&p1, Some(&cold.z), &mut pw), PgsStatus::Converged);
    assert!(pw.stats.iterations < pc.stats.iterations);
}

/// Warm start on a singular basis (guess activates both rows of the singular
/// M = [[1,1],[1,1]]) falls back to the standard start and still solves (1e-12).
#[test]
fn warm_start_singular_basis_falls_back() {
    let p = problem(&[&[1.0, 1.0], &[1.0, 1.0]], &[-1.0, -1.0]);
    let mut solver = LemkeSolver::default();
    let mut res = LemkeResults::default();
    let guess = DVector::from_vec(vec![0.5, 0.5]);
    assert_eq!(
        solver.solve(&p, Some(&guess), &mut res),
        LemkeStatus::Solved
    );
    assert!(!res.stats.warm_started);
    assert_complementary(&p, &res.z, 1e-12, "fallback");
}

// ---- invalid input ----

/// NaN/∞ data, non-square M, size mismatches, bad guesses, bad parameters and
/// bounds: `InvalidProblem`, no panic.
#[test]
fn invalid_input_is_rejected_without_panic() {
    let good_m = DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 2.0]);
    let good_q = DVector::from_vec(vec![-1.0, -1.0]);
    let mut nan_m = good_m.clone();
    nan_m[(0, 1)] = f64::NAN;
    let inf_q = DVector::from_vec(vec![f64::INFINITY, -1.0]);
    assert!(LcpProblem::new(nan_m.clone(), good_q.clone()).is_err());
    let bad = [
        LcpProblem {
            m: nan_m,
            q: good_q.clone(),
        },
        LcpProblem {
            m: good_m.clone(),
            q: inf_q,
        },
        LcpProblem {
            m: DMatrix::zeros(2, 3),
            q: good_q.clone(),
        },
        LcpProblem {
            m: good_m.clone(),
            q: DVector::zeros(3),
        },
    ];
    let mut solver = LemkeSolver::default();
    let mut lr = LemkeResults::default();
    let pgs = PgsSolver::default();
    let mut pr = PgsResults::default();
    for p in &bad {
        assert_eq!(solver.solve(p, None, &mut lr), LemkeStatus::InvalidProblem);
        assert!(lr.stats.residual.is_infinite());
        assert_eq!(pgs.solve(p, None, &mut pr), PgsStatus::InvalidProblem);
    }
    let p = LcpProblem::new(good_m, good_q).expect("valid");
    for guess in [
        DVector::from_vec(vec![f64::NAN, 0.0]),
        DVector::from_vec(vec![1.0]),
    ] {
        assert_eq!(
            solver.solve(&p, Some(&guess), &mut lr),
            LemkeStatus::InvalidProblem
        );
        assert_eq!(
            pgs.solve(&p, Some(&guess), &mut pr),
            PgsStatus::InvalidProblem
        );
    }
    // Bad covering vector.
    let mut s = LemkeSolver::new(LemkeParams {
        covering: Some(DVector::from_vec(vec![1.0, 0.0])),
        ..LemkeParams::default()
    });
    assert_eq!(s.solve(&p, None, &mut lr), LemkeStatus::InvalidProblem);
    // PGS: ω outside (0, 2), zero diagonal, lo > hi, NaN bound, bad coupling.
    let s = PgsSolver::new(PgsParams {
        relaxation: 2.5,
        ..PgsParams::default()
    });
    assert_eq!(s.solve(&p, None, &mut pr), PgsStatus::InvalidProblem);
    let zero_diag = problem(&[&[0.0, 1.0], &[1.0, 2.0]], &[-1.0, -1.0]);
    assert_eq!(
        pgs.solve(&zero_diag, None, &mut pr),
        PgsStatus::InvalidProblem
    );
    let v = |a: f64, b: f64| DVector::from_vec(vec![a, b]);
    for bounds in [
        BoxBounds::fixed(v(1.0, 0.0), v(0.0, 1.0)),
        BoxBounds::fixed(v(f64::NAN, 0.0), v(1.0, 1.0)),
        BoxBounds::fixed(v(0.0, 0.0), DVector::from_vec(vec![1.0])),
        BoxBounds::friction_coupled(
            v(0.0, 0.0),
            v(1.0, 1.0),
            vec![
                None,
                Some(FrictionCoupling {
                    normal_row: 5,
                    mu: 0.5,
                }),
            ],
        ),
        BoxBounds::friction_coupled(
            v(0.0, 0.0),
            v(1.0, 1.0),
            vec![
                None,
                Some(FrictionCoupling {
                    normal_row: 0,
                    mu: f64::NAN,
                }),
            ],
        ),
    ] {
        assert_eq!(
            pgs.solve_boxed(&p, &bounds, None, &mut pr),
            PgsStatus::InvalidProblem
        );
    }
    // The empty problem is valid and trivially solved.
    let empty = LcpProblem::new(DMatrix::zeros(0, 0), DVector::zeros(0)).expect("valid");
    assert_eq!(solver.solve(&empty, None, &mut lr), LemkeStatus::Solved);
    assert_eq!(pgs.solve(&empty, None, &mut pr), PgsStatus::Converged);
}

// ---- boxed PGS: fixed bounds and the friction pyramid ----

/// Fixed bounds with M = 2I: z = clamp(-q/2, lo, hi) (exact), q = (-4, 4, 1),
/// bounds [-1, 1]: z = (1, -1, -1/2), w = (-2, 2, 0). Tol 1e-12.
#[test]
fn pgs_boxed_fixed_bounds() {
    let p = LcpProblem::new(
        DMatrix::identity(3, 3) * 2.0,
        DVector::from_vec(vec![-4.0, 4.0, 1.0]),
    )
    .expect("valid");
    let bounds = BoxBounds::fixed(
        DVector::from_element(3, -1.0),
        DVector::from_element(3, 1.0),
    );
    let mut pr = PgsResults::default();
    let status = pgs_tight().solve_boxed(&p, &bounds, None, &mut pr);
    assert_eq!(status, PgsStatus::Converged);
    assert!(max_diff(&pr.z, &DVector::from_vec(vec![1.0, -1.0, -0.5])) <= 1e-12);
    assert!(max_diff(&pr.w, &DVector::from_vec(vec![-2.0, 2.0, 0.0])) <= 1e-12);
}

/// Rows (n, t₁, t₂) of one contact with tangents coupled to the normal by μ.
fn friction_bounds(mu: f64) -> BoxBounds {
    let c = Some(FrictionCoupling { normal_row: 0, mu });
    BoxBounds::friction_coupled(
        DVector::from_vec(vec![0.0, 0.0, 0.0]),
        DVector::from_vec(vec![f64::INFINITY, 0.0, 0.0]),
        vec![None, c, c],
    )
}

/// A point mass m = 2 kg on the ground, contact frame = world, Delassus
/// M = I/m, q = pre-impact velocity (v_n, v_t1, v_t2) = (-1, v_t), μ = 0.5.
/// The normal impulse stops the approach: p_n = m = 2 N·s, so μ p_n = 1 N·s.
/// Sticking, v_t = (0.3, -0.4): p_t = -m v_t = (-0.6, 0.8), w_t = 0.
/// Sliding, v_t = (3, -0.2): p_t1 = -μ p_n = -1, w_t1 = 3 - 1/2 = 2.5; p_t2 = 0.4.
/// Tol 1e-10.
#[test]
fn pgs_friction_point_mass_sticking_and_sliding() {
    let m = DMatrix::identity(3, 3) * 0.5;
    let bounds = friction_bounds(0.5);
    let cases = [
        ([-1.0, 0.3, -0.4], [2.0, -0.6, 0.8], [0.0, 0.0, 0.0]),
        ([-1.0, 3.0, -0.2], [2.0, -1.0, 0.4], [0.0, 2.5, 0.0]),
    ];
    for (q, z, w) in cases {
        let p = LcpProblem::new(m.clone(), DVector::from_row_slice(&q)).expect("valid");
        let mut pr = PgsResults::default();
        let status = pgs_tight().solve_boxed(&p, &bounds, None, &mut pr);
        assert_eq!(status, PgsStatus::Converged, "q = {q:?}");
        assert!(
            max_diff(&pr.z, &DVector::from_row_slice(&z)) <= 1e-10,
            "z = {}",
            pr.z
        );
        assert!(
            max_diff(&pr.w, &DVector::from_row_slice(&w)) <= 1e-10,
            "w = {}",
            pr.w
        );
    }
}

/// Normal–tangent coupling (contact off the centre of mass): M = [[1, c, 0],
/// [c, 1, 0], [0, 0, 1]], c = 0.3, μ = 0.5, q = (-1, v, 0).
/// Sticking, v = 0.1: [[1, c],[c, 1]] (p_n, p_t) = (1, -0.1) gives
/// p_n = 1.03/0.91, p_t = -0.4/0.91, |p_t| ≤ μ p_n.
/// Sliding, v = 2: p_t = -μ p_n, p_n = 1/(1 - cμ) = 1/0.85,
/// w_t = p_n (c - μ) + 2 > 0. Tol 1e-9.
#[test]
fn pgs_friction_coupled_contact_sticking_and_sliding() {
    let c = 0.3;
    let mu = 0.5;
    let m = DMatrix::from_row_slice(3, 3, &[1.0, c, 0.0, c, 1.0, 0.0, 0.0, 0.0, 1.0]);
    let bounds = friction_bounds(mu);
    let pn_slide = 1.0 / (1.0 - c * mu);
    let cases = [
        (0.1, [1.03 / 0.91, -0.4 / 0.91, 0.0], [0.0, 0.0, 0.0]),
        (
            2.0,
            [pn_slide, -mu * pn_slide, 0.0],
            [0.0, pn_slide * (c - mu) + 2.0, 0.0],
        ),
    ];
    for (v, z, w) in cases {
        let p = LcpProblem::new(m.clone(), DVector::from_vec(vec![-1.0, v, 0.0])).expect("valid");
        let mut pr = PgsResults::default();
        let status = pgs_tight().solve_boxed(&p, &bounds, None, &mut pr);
        assert_eq!(status, PgsStatus::Converged, "v = {v}");
        assert!(
            max_diff(&pr.z, &DVector::from_row_slice(&z)) <= 1e-9,
            "z = {}",
            pr.z
        );
        assert!(
            max_diff(&pr.w, &DVector::from_row_slice(&w)) <= 1e-9,
            "w = {}",
            pr.w
        );
        assert!(pr.z[1].abs() <= mu * pr.z[0] + 1e-12);
    }
}

// ---- allocation ----

/// Once `LemkeResults`/`PgsResults` and the solver workspace are sized, `solve`
/// (cold and warm) and `solve_boxed` perform zero heap allocations.
#[test]
fn solves_do_not_allocate_after_warm_up() {
    let mut rng = Rng(99);
    let n = 12;
    let m = random_spd(&mut rng, n, 0.5);
    let p = LcpProblem::new(m, rng.vec(n)).expect("valid");
    let mut solver = LemkeSolver::default();
    let mut lr = LemkeResults::with_size(n);
    assert_eq!(solver.solve(&p, None, &mut lr), LemkeStatus::Solved);
    let guess = lr.z.clone();
    let pgs = PgsSolver::default();
    let bounds = BoxBounds::lcp(n);
    let mut pr = PgsResults::with_size(n);
    let mut statuses = (LemkeStatus::InvalidProblem, LemkeStatus::InvalidProblem);
    let mut pstatus = PgsStatus::InvalidProblem;
    let allocs = count_allocs(|| {
        statuses.0 = solver.solve(&p, None, &mut lr);
        statuses.1 = solver.solve(&p, Some(&guess), &mut lr);
        pstatus = pgs.solve_boxed(&p, &bounds, Some(&guess), &mut pr);
    });
    assert_eq!(statuses, (LemkeStatus::Solved, LemkeStatus::Solved));
    assert_eq!(pstatus, PgsStatus::Converged);
    assert_eq!(allocs, 0, "{allocs} allocations in warmed-up solves");
}

/// 500 random degenerate copositive-plus problems with small integer data (many
/// exact ties, zero right-hand sides, singular M): M = AᵀA with A ∈ {-1,0,1}^{k×n},
/// k < n (PSD, rank-deficient), q = -M x + s with integer x, s ≥ 0 (feasible by
/// construction). Lemke must end `Solved` (the class guarantee plus the
/// lexicographic rule), complementary to 1e-9. Also solved warm from a random
/// integer guess.
#[test]
fn random_degenerate_psd_problems_solve() {
    let mut rng = Rng(31337);
    let mut int = |lo: i64, hi: i64| -> f64 {
        let u = 0.5 * (rng.next() + 1.0);
        (lo + ((hi - lo + 1) as f64 * u).floor() as i64).min(hi) as f64
    };
    let mut solver = LemkeSolver::default();
    let mut lr = LemkeResults::default();
    let mut max_pivots = 0;
    for trial in 0..500 {
        let n = 2 + trial % 7;
        let k = 1 + trial % (n - 1).max(1);
        let a = DMatrix::from_fn(k, n, |_, _| int(-1, 1));
        let m = a.transpose() * a;
        let x = DVector::from_fn(n, |_, _| int(0, 1));
        let s = DVector::from_fn(n, |_, _| int(0, 1));
        let q = -(&m * x) + s;
        let p = LcpProblem::new(m, q).expect("valid");
        let status = solver.solve(&p, None, &mut lr);
        assert_eq!(status, LemkeStatus::Solved, "trial {trial}: {p:?}");
        assert_complementary(&p, &lr.z, 1e-9, "degenerate psd");
        max_pivots = max_pivots.max(lr.stats.pivots);
        let guess = DVector::from_fn(n, |_, _| int(0, 1));
        let status = solver.solve(&p, Some(&guess), &mut lr);
        assert_eq!(status, LemkeStatus::Solved, "warm trial {trial}: {p:?}");
        assert_complementary(&p, &lr.z, 1e-9, "degenerate psd warm");
    }
    assert!(max_pivots <= LemkeParams::default().pivot_limit(8));
}

// ---- cross-check against an interior-point QP solver (clarabel) ----

/// `min ½ zᵀMz + qᵀz  s.t.  z ≥ 0` by clarabel (its KKT conditions are exactly
/// `LCP(M, q)` for symmetric M): A = −I, b = 0, s ∈ ℝⁿ₊.
fn clarabel_qp(p: &LcpProblem) -> DVector<f64> {
    use clarabel::algebra::CscMatrix;
    use clarabel::solver::{
        DefaultSettingsBuilder, DefaultSolver, IPSolver, NonnegativeConeT, SolverStatus,
    };
    let n = p.n();
    // Upper triangle of M, column-major CSC.
    let (mut colptr, mut rowval, mut nzval) = (vec![0], Vec::new(), Vec::new());
    for j in 0..n {
        for i in 0..=j {
            rowval.push(i);
            nzval.push(p.m[(i, j)]);
        }
        colptr.push(rowval.len());
    }
    let pm = CscMatrix::new(n, n, colptr, rowval, nzval);
    let a = CscMatrix::new(n, n, (0..=n).collect(), (0..n).collect(), vec![-1.0; n]);
    let settings = DefaultSettingsBuilder::default()
        .verbose(false)
        .tol_gap_abs(1e-13)
        .tol_gap_rel(1e-13)
        .tol_feas(1e-13)
        .tol_ktratio(1e-10)
        .max_iter(200)
        .build()
        .expect("settings");
    let q: Vec<f64> = p.q.iter().copied().collect();
    let mut solver =
        DefaultSolver::new(&pm, &q, &a, &vec![0.0; n], &[NonnegativeConeT(n)], settings)
            .expect("clarabel problem");
    solver.solve();
    assert!(
        matches!(
            solver.solution.status,
            SolverStatus::Solved | SolverStatus::AlmostSolved
        ),
        "clarabel: {:?}",
        solver.solution.status
    );
    DVector::from_vec(solver.solution.x.clone())
}

/// 200 random symmetric positive definite problems (M = AᵀA + 0.5 I, n = 1..12):
/// Lemke and PGS (tolerance 1e-13) agree with clarabel's QP minimiser to 1e-8 (the
/// interior-point solution is accurate to ≈ 1e-10 at these tolerances; the unique
/// solution of a PD LCP is the QP minimiser).
#[test]
fn random_spd_agree_with_clarabel_qp() {
    let mut rng = Rng(0xC1A2_AB31_0011_u64);
    let mut solver = LemkeSolver::default();
    let (mut lr, mut pr) = (LemkeResults::default(), PgsResults::default());
    let pgs = pgs_tight();
    for trial in 0..200 {
        let n = 1 + trial % 12;
        let p = LcpProblem::new(random_spd(&mut rng, n, 0.5), rng.vec(n)).expect("valid");
        let qp = clarabel_qp(&p);
        assert_eq!(solver.solve(&p, None, &mut lr), LemkeStatus::Solved);
        assert_eq!(pgs.solve(&p, None, &mut pr), PgsStatus::Converged);
        let (dl, dp) = (max_diff(&lr.z, &qp), max_diff(&pr.z, &qp));
        assert!(dl <= 1e-8, "trial {trial}: lemke vs QP {dl:.2e}");
        assert!(dp <= 1e-8, "trial {trial}: pgs vs QP {dp:.2e}");
    }
}

/// Euclidean projection onto the regular k-gon (exact): inside points unchanged;
/// a point beyond a vertex maps to the vertex; a point beyond an edge to its foot
/// on the edge (the apothem r cos(π/k)); compared with brute force over the edges
/// for 2,000 random points and k = 3..16 (1e-12).
#[test]
fn polygon_projection_is_exact() {
    use rtphys::solver::project_polygon;
    assert_eq!(project_polygon(0.1, 0.2, 1.0, 4), (0.1, 0.2));
    let (x, y) = project_polygon(3.0, 0.0, 1.0, 4);
    assert!((x - 1.0).abs() < 1e-15 && y.abs() < 1e-15);
    let (x, y) = project_polygon(1.0, 1.0, 1.0, 4); // beyond the edge (1,0)–(0,1)
    assert!((x - 0.5).abs() < 1e-15 && (y - 0.5).abs() < 1e-15);
    assert_eq!(project_polygon(1.0, 1.0, 0.0, 4), (0.0, 0.0));
    let mut rng = Rng(77);
    for t in 0..2000 {
        let k = 3 + (t % 14) as u32;
        let (px, py, r) = (3.0 * rng.next(), 3.0 * rng.next(), 1.0 + rng.next().abs());
        let (x, y) = project_polygon(px, py, r, k);
        // Brute force: inside test by all edges, else nearest point over all edges.
        let step = std::f64::consts::TAU / k as f64;
        let v = |j: u32| ((j as f64 * step).cos() * r, (j as f64 * step).sin() * r);
        let inside = (0..k).all(|j| {
            let ((x0, y0), (x1, y1)) = (v(j), v((j + 1) % k));
            (x1 - x0) * (py - y0) - (y1 - y0) * (px - x0) >= 0.0
        });
        let best = if inside {
            (px, py)
        } else {
            (0..k)
                .map(|j| {
                    let ((x0, y0), (x1, y1)) = (v(j), v((j + 1) % k));
                    let (ex, ey) = (x1 - x0, y1 - y0);
                    let s =
                        (((px - x0) * ex + (py - y0) * ey) / (ex * ex + ey * ey)).clamp(0.0, 1.0);
                    (x0 + s * ex, y0 + s * ey)
                })
                .min_by(|a, b| {
                    let da = (a.0 - px).hypot(a.1 - py);
                    let db = (b.0 - px).hypot(b.1 - py);
                    da.total_cmp(&db)
                })
                .expect("edges")
        };
        assert!(
            (x - best.0).abs() < 1e-12 && (y - best.1).abs() < 1e-12,
            "k {k}: ({px}, {py}) → ({x}, {y}), brute force {best:?}"
        );
    }
}

/// A point mass (m = 2 kg) pressed on the ground and sliding along (cos 30°, sin 30°)
/// with polygonal cones of k = 4, 6, 16 (μ = 0.5): with v_t = 3 m/s and μ p_n =
/// 1 N·s friction cannot stop the mass, and for an isotropic Delassus block the
/// solution is the polygon projection of the sticking impulse −m v_t (1e-10).
#[test]
fn pgs_polygon_cone_sliding_point_mass() {
    use rtphys::solver::project_polygon;
    for k in [4u32, 6, 16] {
        let m = DMatrix::identity(3, 3) * 0.5;
        let (c, s) = (30f64.to_radians().cos(), 30f64.to_radians().sin());
        let q = DVector::from_vec(vec![-1.0, 3.0 * c, 3.0 * s]);
        let p = LcpProblem::new(m, q).expect("valid");
        let mut b = BoxBounds::friction_coupled(
            DVector::from_vec(vec![0.0, 0.0, 0.0]),
            DVector::from_vec(vec![f64::INFINITY, 0.0, 0.0]),
            vec![None, None, None],
        );
        b.cone_of = vec![None; 3];
        b.add_polygon_cone(0, [1, 2], 0.5, k);
        let mut r = PgsResults::default();
        assert_eq!(
            pgs_tight().solve_boxed(&p, &b, None, &mut r),
            PgsStatus::Converged
        );
        // p_n = m·1 = 2; isotropic M: z_t = P(−m v_t) exactly.
        let (ex, ey) = project_polygon(-2.0 * 3.0 * c, -2.0 * 3.0 * s, 1.0, k);
        assert!((r.z[0] - 2.0).abs() < 1e-10, "k {k}: p_n {}", r.z[0]);
        assert!(
            (r.z[1] - ex).abs() < 1e-10 && (r.z[2] - ey).abs() < 1e-10,
            "k {k}: f_t ({}, {}) vs ({ex}, {ey})",
            r.z[1],
            r.z[2]
        );
    }
}
