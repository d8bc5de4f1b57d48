//! The ratio metric of 001 (`001_9bcff55255600a8e.txt`, eqs. (2)–(5)) against the exact
//! Minkowski penetration depth (eq. (1)), and the dense simplex behind it.
//!
//! Figures (printed with `--nocapture`) are recorded in docs/EXPERIMENTS.md,
//! section "Ratio metric (001)".

#[path = "common/alloc_counter.rs"]
mod alloc_counter;
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

use nalgebra::{DMatrix, DVector};
use rtphys::collision::minkowski::{penetration_depth, world_vertices};
use rtphys::collision::ratio_metric::{
    ratio_metric, InteriorPoint, RatioBody, RatioParams, RatioResults, RatioScratch,
};
use rtphys::collision::ConvexPolytope;
use rtphys::math::{Pose, Quat, SplitMix64, Vec3};
use rtphys::solver::lp::{LpParams, LpProblem, LpResults, LpSolver, LpStatus, RowKind};
use std::time::Instant;

const INF: f64 = f64::INFINITY;

// ───────────────────────────── LP solver ─────────────────────────────

struct OwnedLp {
    n: usize,
    m: usize,
    c: Vec<f64>,
    a: Vec<f64>,
    b: Vec<f64>,
    rows: Vec<RowKind>,
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl OwnedLp {
    fn problem(&self) -> LpProblem<'_> {
        LpProblem {
            n: self.n,
            m: self.m,
            c: &self.c,
            a: &self.a,
            b: &self.b,
            rows: &self.rows,
            lower: &self.lower,
            upper: &self.upper,
        }
    }
}

fn solve(lp: &OwnedLp, params: LpParams) -> LpResults {
    let mut solver = LpSolver::new(params);
    let mut res = LpResults::default();
    solver.solve(&lp.problem(), &mut res);
    res
}

/// Optimality certificate of an `Optimal` result, tolerance `tol` (absolute, data of
/// order 1): primal feasibility, multiplier signs per row kind, complementary
/// slackness, and reduced costs `c − Aᵀy` of the right sign at each bound.
fn check_kkt(lp: &OwnedLp, r: &LpResults, tol: f64) {
    let (m, n) = (lp.m, lp.n);
    for i in 0..m {
        let ax: f64 = (0..n).map(|j| lp.a[i * n + j] * r.x[j]).sum();
        let slack = ax - lp.b[i];
        let y = r.y[i];
        match lp.rows[i] {
            RowKind::Le => assert!(slack <= tol && y <= tol, "row {i}: {slack} {y}"),
            RowKind::Ge => assert!(slack >= -tol && y >= -tol, "row {i}: {slack} {y}"),
            RowKind::Eq => assert!(slack.abs() <= tol, "row {i}: {slack}"),
        }
        assert!((y * slack).abs() <= tol, "row {i}: y·slack = {}", y * slack);
    }
    for j in 0..n {
        let d = lp.c[j] - (0..m).map(|i| lp.a[i * n + j] * r.y[i]).sum::<f64>();
        let (l, u, x) = (lp.lower[j], lp.upper[j], r.x[j]);
        assert!(
            x >= l - tol && x <= u + tol,
            "x[{j}] = {x} outside [{l}, {u}]"
        );
        let at_l = (x - l).abs() <= tol;
        let at_u = (x - u).abs() <= tol;
        if !at_l && !at_u {
            assert!(d.abs() <= tol, "interior x[{j}] has reduced cost {d}");
        } else if at_l && !at_u {
            assert!(d >= -tol, "x[{j}] at lower bound with reduced cost {d}");
        } else if at_u && !at_l {
            assert!(d <= tol, "x[{j}] at upper bound with reduced cost {d}");
        }
    }
}

/// Wyndor Glass (Hillier–Lieberman §3.1): max 3x + 5y, x ≤ 4, 2y ≤ 12, 3x + 2y ≤ 18,
/// x, y ≥ 0. Optimum (2, 6), value 36, shadow prices (0, 3/2, 1). Tolerance 1e-12.
#[test]
fn lp_textbook_wyndor() {
    let lp = OwnedLp {
        n: 2,
        m: 3,
        c: vec![-3.0, -5.0],
        a: vec![1.0, 0.0, 0.0, 2.0, 3.0, 2.0],
        b: vec![4.0, 12.0, 18.0],
        rows: vec![RowKind::Le; 3],
        lower: vec![0.0; 2],
        upper: vec![INF; 2],
    };
    let r = solve(&lp, LpParams::default());
    assert_eq!(r.status, LpStatus::Optimal);
    assert!((r.x[0] - 2.0).abs() < 1e-12 && (r.x[1] - 6.0).abs() < 1e-12);
    assert!((r.objective + 36.0).abs() < 1e-12);
    // Minimization form: y = −(shadow prices).
    for (y, e) in r.y.iter().zip([0.0, -1.5, -1.0]) {
        assert!((y - e).abs() < 1e-12, "y = {:?}", r.y);
    }
    check_kkt(&lp, &r, 1e-12);
}

/// Two classic cycling examples, on which Dantzig's rule with a lowest-index ratio
/// tie-break cycles from the slack basis: Beale's (1955), in the form of Bazaraa–
/// Jarvis–Sherali (Example 4.11): min −3/4 x4 + 20 x5 − 1/2 x6 + 6 x7 subject to
/// 1/4 x4 − 8 x5 − x6 + 9 x7 ≤ 0, 1/2 x4 − 12 x5 − 1/2 x6 + 3 x7 ≤ 0, x6 ≤ 1, x ≥ 0,
/// optimum −5/4 at x = (1, 0, 1, 0); and Chvátal's (*Linear Programming*, ch. 3):
/// max 10x1 − 57x2 − 9x3 − 24x4 subject to 1/2 x1 − 11/2 x2 − 5/2 x3 + 9x4 ≤ 0,
/// 1/2 x1 − 3/2 x2 − 1/2 x3 + x4 ≤ 0, x1 ≤ 1, x ≥ 0, optimum 1 at (1, 0, 1, 0).
/// Pure Dantzig pricing cycles until the iteration limit on both; with the switch to
/// Bland after 0, 1, 8 or 100 consecutive degenerate pivots both are solved.
/// Tolerance 1e-12.
#[test]
fn lp_cycling_examples_terminate_with_bland() {
    let lp = OwnedLp {
        n: 4,
        m: 3,
        c: vec![-0.75, 20.0, -0.5, 6.0],
        a: vec![
            0.25, -8.0, -1.0, 9.0, //
            0.5, -12.0, -0.5, 3.0, //
            0.0, 0.0, 1.0, 0.0,
        ],
        b: vec![0.0, 0.0, 1.0],
        rows: vec![RowKind::Le; 3],
        lower: vec![0.0; 4],
        upper: vec![INF; 4],
    };
    let chvatal = OwnedLp {
        n: 4,
        m: 3,
        c: vec![-10.0, 57.0, 9.0, 24.0],
        a: vec![
            0.5, -5.5, -2.5, 9.0, //
            0.5, -1.5, -0.5, 1.0, //
            1.0, 0.0, 0.0, 0.0,
        ],
        b: vec![0.0, 0.0, 1.0],
        rows: vec![RowKind::Le; 3],
        lower: vec![0.0; 4],
        upper: vec![INF; 4],
    };
    for (lp, value) in [(&lp, -1.25), (&chvatal, -1.0)] {
        // Pure Dantzig pricing (Bland never switched on) cycles: every pivot up to
        // the iteration limit is degenerate.
        let r = solve(
            lp,
            LpParams {
                bland_after: usize::MAX,
                ..LpParams::default()
            },
        );
        println!("pure Dantzig: {:?} {:?}", r.status, r.stats);
        assert_eq!(r.status, LpStatus::IterationLimit);
        assert_eq!(r.stats.degenerate_pivots, r.stats.iterations());
        for bland_after in [0, 1, 8, 100] {
            let r = solve(
                lp,
                LpParams {
                    bland_after,
                    ..LpParams::default()
                },
            );
            assert_eq!(
                r.status,
                LpStatus::Optimal,
                "bland_after {bland_after}, value {value}, {:?}",
                r.stats
            );
            assert!((r.objective - value).abs() < 1e-12, "{}", r.objective);
            for (x, e) in r.x.iter().zip([1.0, 0.0, 1.0, 0.0]) {
                assert!((x - e).abs() < 1e-12, "x = {:?}", r.x);
            }
            check_kkt(lp, &r, 1e-12);
        }
    }
}

/// Free, mirrored and boxed variables with an equality row: min x − y s.t.
/// x + y = 2, −1 ≤ x ≤ 3, y ≤ 5 (no lower bound) → x = −1, y = 3, value −4; y is
/// strictly inside its bounds, so its reduced cost −1 − y₁ vanishes: y₁ = −1, and
/// x at its lower bound has d_x = 1 − y₁ = 2 ≥ 0. Tolerance 1e-12.
#[test]
fn lp_bounds_and_equalities() {
    let lp = OwnedLp {
        n: 2,
        m: 1,
        c: vec![1.0, -1.0],
        a: vec![1.0, 1.0],
        b: vec![2.0],
        rows: vec![RowKind::Eq],
        lower: vec![-1.0, -INF],
        upper: vec![3.0, 5.0],
    };
    let r = solve(&lp, LpParams::default());
    assert_eq!(r.status, LpStatus::Optimal);
    assert!((r.x[0] + 1.0).abs() < 1e-12 && (r.x[1] - 3.0).abs() < 1e-12);
    assert!((r.objective + 4.0).abs() < 1e-12);
    assert!((r.y[0] + 1.0).abs() < 1e-12, "y = {:?}", r.y);
    check_kkt(&lp, &r, 1e-12);
    // A fully free pair with a ≥ row: min x + 2y s.t. x + y ≥ 1, x − y ≤ 3, y ≥ −1
    // (as a row): optimum at x + y = 1, x − y = 3 → (2, −1), value 0.
    let lp = OwnedLp {
        n: 2,
        m: 3,
        c: vec![1.0, 2.0],
        a: vec![1.0, 1.0, 1.0, -1.0, 0.0, 1.0],
        b: vec![1.0, 3.0, -1.0],
        rows: vec![RowKind::Ge, RowKind::Le, RowKind::Ge],
        lower: vec![-INF; 2],
        upper: vec![INF; 2],
    };
    let r = solve(&lp, LpParams::default());
    assert_eq!(r.status, LpStatus::Optimal);
    assert!((r.x[0] - 2.0).abs() < 1e-12 && (r.x[1] + 1.0).abs() < 1e-12);
    check_kkt(&lp, &r, 1e-12);
}

/// Infeasible (x + y ≤ 1 and x + y ≥ 2), unbounded (min −x, x − y ≤ 1, x, y ≥ 0),
/// crossed bounds, NaN and size mismatches: a status each, no panic.
#[test]
fn lp_infeasible_unbounded_and_bad_input() {
    let base = OwnedLp {
        n: 2,
        m: 2,
        c: vec![1.0, 1.0],
        a: vec![1.0, 1.0, 1.0, 1.0],
        b: vec![1.0, 2.0],
        rows: vec![RowKind::Le, RowKind::Ge],
        lower: vec![0.0; 2],
        upper: vec![INF; 2],
    };
    assert_eq!(
        solve(&base, LpParams::default()).status,
        LpStatus::Infeasible
    );
    let unb = OwnedLp {
        n: 2,
        m: 1,
        c: vec![-1.0, 0.0],
        a: vec![1.0, -1.0],
        b: vec![1.0],
        rows: vec![RowKind::Le],
        lower: vec![0.0; 2],
        upper: vec![INF; 2],
    };
    assert_eq!(solve(&unb, LpParams::default()).status, LpStatus::Unbounded);
    let mut crossed = OwnedLp { ..unb };
    crossed.lower = vec![1.0, 0.0];
    crossed.upper = vec![0.0, INF];
    assert_eq!(
        solve(&crossed, LpParams::default()).status,
        LpStatus::Infeasible
    );
    for k in 0..4 {
        let mut bad = OwnedLp {
            n: 2,
            m: 2,
            c: vec![1.0, 1.0],
            a: vec![1.0, 1.0, 1.0, -1.0],
            b: vec![1.0, 2.0],
            rows: vec![RowKind::Le, RowKind::Le],
            lower: vec![0.0; 2],
            upper: vec![INF; 2],
        };
        match k {
            0 => bad.a[2] = f64::NAN,
            1 => bad.c[0] = f64::NAN,
            2 => bad.lower[1] = f64::NAN,
            _ => bad.b.push(3.0),
        }
        assert_eq!(
            solve(&bad, LpParams::default()).status,
            LpStatus::InvalidInput
        );
    }
    // The iteration limit is honoured.
    let r = solve(
        &OwnedLp {
            n: 2,
            m: 3,
            c: vec![-3.0, -5.0],
            a: vec![1.0, 0.0, 0.0, 2.0, 3.0, 2.0],
            b: vec![4.0, 12.0, 18.0],
            rows: vec![RowKind::Le; 3],
            lower: vec![0.0; 2],
            upper: vec![INF; 2],
        },
        LpParams {
            max_iterations: Some(1),
            ..LpParams::default()
        },
    );
    assert_eq!(r.status, LpStatus::IterationLimit);
}

/// Brute force: the minimum of cᵀx over every vertex (n tight constraints among rows
/// and bounds, every equality row tight), `None` if no vertex is feasible.
fn vertex_enumeration(lp: &OwnedLp) -> Option<f64> {
    let (m, n) = (lp.m, lp.n);
    // Candidate hyperplanes: rows, then lower and upper bounds.
    let mut planes: Vec<(Vec<f64>, f64)> = Vec::new();
    for i in 0..m {
        planes.push((lp.a[i * n..(i + 1) * n].to_vec(), lp.b[i]));
    }
    for j in 0..n {
        let mut e = vec![0.0; n];
        e[j] = 1.0;
        planes.push((e.clone(), lp.lower[j]));
        planes.push((e, lp.upper[j]));
    }
    // Equality rows must be tight (an exact repeat of an earlier row is implied).
    let same = |i: usize, k: usize| {
        lp.a[i * n..(i + 1) * n] == lp.a[k * n..(k + 1) * n] && lp.b[i] == lp.b[k]
    };
    let eq: Vec<usize> = (0..m)
        .filter(|&i| lp.rows[i] == RowKind::Eq && !(0..i).any(|k| same(i, k)))
        .collect();
    let k = planes.len();
    let mut best: Option<f64> = None;
    let mut idx: Vec<usize> = (0..n).collect();
    loop {
        if eq.iter().all(|e| idx.contains(e)) {
            let mat = DMatrix::from_fn(n, n, |r, c| planes[idx[r]].0[c]);
            let rhs = DVector::from_fn(n, |r, _| planes[idx[r]].1);
            if let Some(x) = mat.clone().lu().solve(&rhs) {
                if (&mat * &x - &rhs).amax() < 1e-9 {
                    let feas = (0..m).all(|i| {
                        let ax: f64 = (0..n).map(|j| lp.a[i * n + j] * x[j]).sum();
                        match lp.rows[i] {
                            RowKind::Le => ax <= lp.b[i] + 1e-9,
                            RowKind::Ge => ax >= lp.b[i] - 1e-9,
                            RowKind::Eq => (ax - lp.b[i]).abs() <= 1e-9,
                        }
                    }) && (0..n)
                        .all(|j| x[j] >= lp.lower[j] - 1e-9 && x[j] <= lp.upper[j] + 1e-9);
                    if feas {
                        let v: f64 = (0..n).map(|j| lp.c[j] * x[j]).sum();
                        best = Some(best.map_or(v, |b: f64| b.min(v)));
                    }
                }
            }
        }
        // Next combination of n out of k.
        let mut i = n;
        loop {
            if i == 0 {
                return best;
            }
            i -= 1;
            if idx[i] < k - n + i {
                idx[i] += 1;
                for t in i + 1..n {
                    idx[t] = idx[t - 1] + 1;
                }
                break;
            }
        }
    }
}

/// 400 random bounded LPs (2–3 variables with random boxes, 2–6 rows of random
/// kinds): the simplex optimum equals the best feasible vertex to 1e-9, infeasibility
/// agrees, and the KKT certificate holds (1e-9).
#[test]
fn lp_random_against_vertex_enumeration() {
    let mut rng = SplitMix64::new(2024);
    let (mut optimal, mut infeasible) = (0, 0);
    let mut solver = LpSolver::default();
    let mut res = LpResults::default();
    for case in 0..400 {
        let n = 2 + (rng.next_u64() % 2) as usize;
        let m = 2 + (rng.next_u64() % 5) as usize;
        let mut lp = OwnedLp {
            n,
            m,
            c: (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect(),
            a: (0..m * n).map(|_| rng.uniform(-1.0, 1.0)).collect(),
            b: (0..m).map(|_| rng.uniform(-0.5, 1.0)).collect(),
            rows: (0..m)
                .map(|_| match rng.next_u64() % 6 {
                    0 => RowKind::Eq,
                    1 | 2 => RowKind::Ge,
                    _ => RowKind::Le,
                })
                .collect(),
            lower: (0..n).map(|_| rng.uniform(-2.0, 0.0)).collect(),
            upper: vec![0.0; n],
        };
        lp.upper = lp.lower.iter().map(|l| l + rng.uniform(0.5, 3.0)).collect();
        if case % 5 == 0 {
            // Degenerate data: a repeated row and an integer-valued cost.
            let (r0, r1) = (0, 1);
            for j in 0..n {
                lp.a[r1 * n + j] = lp.a[r0 * n + j];
            }
            lp.b[r1] = lp.b[r0];
            lp.c[0] = 1.0;
        }
        let status = solver.solve(&lp.problem(), &mut res);
        match vertex_enumeration(&lp) {
            Some(best) => {
                optimal += 1;
                assert_eq!(status, LpStatus::Optimal, "case {case}");
                assert!(
                    (res.objective - best).abs() <= 1e-9 * (1.0 + best.abs()),
                    "case {case}: simplex {} vs vertices {best}",
                    res.objective
                );
                check_kkt(&lp, &res, 1e-9);
            }
            None => {
                infeasible += 1;
                assert_eq!(status, LpStatus::Infeasible, "case {case}");
            }
        }
    }
    println!("random LPs: {optimal} optimal, {infeasible} infeasible");
    assert!(optimal >= 100 && infeasible >= 20);
}

// ───────────────────────────── shapes ─────────────────────────────

fn cuboid(h: Vec3) -> ConvexPolytope {
    let mut v = Vec::new();
    for sx in [-1.0, 1.0] {
        for sy in [-1.0, 1.0] {
            for sz in [-1.0, 1.0] {
                v.push(Vec3::new(sx * h.x, sy * h.y, sz * h.z));
            }
        }
    }
    match ConvexPolytope::from_points(&v) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    }
}

fn hull(points: &[Vec3]) -> ConvexPolytope {
    match ConvexPolytope::from_points(points) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    }
}

fn body(p: &ConvexPolytope, ip: InteriorPoint) -> RatioBody {
    match RatioBody::new(p, ip) {
        Ok(b) => b,
        Err(e) => panic!("{e}"),
    }
}

fn at(p: Vec3) -> Pose {
    Pose::from_parts(p.into(), Quat::identity())
}

fn eval(b1: &RatioBody, x1: &Pose, b2: &RatioBody, x2: &Pose) -> RatioResults {
    let mut scratch = RatioScratch::default();
    let mut out = RatioResults::default();
    let st = ratio_metric(
        b1,
        x1,
        b2,
        x2,
        &RatioParams::default(),
        &mut scratch,
        &mut out,
    );
    assert_eq!(st, LpStatus::Optimal);
    out
}

/// Largest face-plane distance of world point `p` to `poly` at pose `x_w`.
fn face_distance(poly: &ConvexPolytope, x_w: &Pose, p: &Vec3) -> f64 {
    let q = x_w.inverse() * nalgebra::Point3::from(*p);
    poly.max_face_distance(&q.coords).0
}

// ───────────────────────────── analytic cases ─────────────────────────────

/// Two boxes (half-extents a and b, centroids as interior points) with centre offset
/// d: K is the box of half-extents a + b, so r = max_i |d_i|/(a_i + b_i) (eq. (2)),
/// ρ = (r − 1)/r (eq. (3)); the Minkowski depth is min_i (a_i + b_i − |d_i|) when
/// overlapping, the separation the distance from d to K otherwise. Both poses also
/// turned by one rotation (the closed form holds in body 1's frame). Tolerance 1e-12
/// (1e-10 with the rotation).
#[test]
fn box_box_analytic() {
    let ha = Vec3::new(0.5, 0.4, 0.3);
    let hb = Vec3::new(0.3, 0.2, 0.6);
    let (pa, pb) = (cuboid(ha), cuboid(hb));
    let (ba, bb) = (
        body(&pa, InteriorPoint::Centroid),
        body(&pb, InteriorPoint::Centroid),
    );
    let s = ha + hb;
    let cases = [
        (Vec3::new(0.6, 0.1, -0.05), "overlap along x"),
        (Vec3::new(0.1, -0.45, 0.2), "overlap along y"),
        (Vec3::new(0.2, 0.1, 0.85), "overlap along z"),
        (Vec3::new(0.8, 0.3, 0.1), "touching face to face"),
        (Vec3::new(0.8, 0.6, 0.9), "touching corner to corner"),
        (Vec3::new(1.3, 0.2, 0.1), "separated along x"),
        (Vec3::new(1.0, 0.9, 1.1), "separated corner to corner"),
        (Vec3::new(0.0, 0.0, 0.0), "centres coincide"),
    ];
    let mut rng = SplitMix64::new(5);
    for (d, what) in cases {
        let r_exact = (0..3).map(|i| d[i].abs() / s[i]).fold(0.0, f64::max);
        let gap = Vec3::from_fn(|i, _| (d[i].abs() - s[i]).max(0.0));
        for turn in [Quat::identity(), rng.rotation()] {
            let x1 = Pose::from_parts(Vec3::new(0.3, -1.0, 2.0).into(), turn);
            let x2 = Pose::from_parts((x1.translation.vector + turn * d).into(), turn);
            let tol = if turn == Quat::identity() {
                1e-12
            } else {
                1e-10
            };
            let out = eval(&ba, &x1, &bb, &x2);
            assert!(
                (out.ratio - r_exact).abs() < tol,
                "{what}: r {} vs {r_exact}",
                out.ratio
            );
            let pd = match penetration_depth(&pa, &x1, &pb, &x2) {
                Ok(p) => p,
                Err(e) => panic!("{e}"),
            };
            if r_exact == 0.0 {
                assert!(
                    out.ratio < 1e-12 && out.rho < -1e10,
                    "{what}: ρ = {}",
                    out.rho
                );
                assert!((pd.depth() - (s.min())).abs() < tol, "{what}");
                continue;
            }
            let rho = (r_exact - 1.0) / r_exact;
            assert!(
                (out.rho - rho).abs() < tol,
                "{what}: ρ {} vs {rho}",
                out.rho
            );
            if r_exact < 1.0 {
                let depth = (0..3).map(|i| s[i] - d[i].abs()).fold(INF, f64::min);
                assert!(
                    (pd.depth() - depth).abs() < tol,
                    "{what}: PD {} vs {depth}",
                    pd.depth()
                );
                // The face of least overlap gives both normals.
                let axis = (0..3)
                    .min_by(|&i, &j| (s[i] - d[i].abs()).total_cmp(&(s[j] - d[j].abs())))
                    .unwrap_or(0);
                let mut n_b = Vec3::zeros();
                n_b[axis] = d[axis].signum();
                let n_w = turn * n_b;
                assert!((pd.normal - n_w).norm() < tol, "{what}: {:?}", pd.normal);
                assert!((out.normal - n_w).norm() < 1e-9, "{what}: {:?}", out.normal);
            } else {
                assert!(
                    (pd.separation() - gap.norm()).abs() < tol,
                    "{what}: separation {} vs {}",
                    pd.separation(),
                    gap.norm()
                );
            }
            // Witnesses on the two boundaries, p1 − p2 = −ρ (x2 − x1).
            let dw = turn * d;
            assert!((out.witness1 - out.witness2 + dw * out.rho).norm() < tol);
            assert!(face_distance(&pa, &x1, &out.witness1).abs() < tol, "{what}");
            assert!(face_distance(&pb, &x2, &out.witness2).abs() < tol, "{what}");
        }
    }
}

/// Cube [−1, 1]³ against tetrahedra, exact Minkowski depth δ = 0.05 and 0.2 in three
/// configurations: a tetrahedron's apex into the cube's top face (normal +z), the
/// cube's corner (1, 1, 1) into a tetrahedron's face (normal (1, 1, 1)/√3), and a
/// tetrahedron's base face inside the top face (normal +z). Tolerance 1e-12; the ratio
/// metric has ρ < 0, and ρ = 0 (1e-10) once the tetrahedron is moved out by δ·n.
#[test]
fn cube_tetrahedron_minkowski_analytic() {
    let cube = cuboid(Vec3::new(1.0, 1.0, 1.0));
    let id = Pose::identity();
    let ring = |c: Vec3, z: f64, rad: f64, phase: f64| -> Vec<Vec3> {
        (0..3)
            .map(|k| {
                let a = phase + k as f64 * std::f64::consts::TAU / 3.0;
                Vec3::new(c.x + rad * a.cos(), c.y + rad * a.sin(), z)
            })
            .collect()
    };
    for delta in [0.05, 0.2] {
        // (a) apex down into the top face.
        let apex = Vec3::new(0.1, -0.05, 1.0 - delta);
        let mut pts = ring(apex, 1.0 - delta + 1.5, 0.8, 0.3);
        pts.push(apex);
        let tet_a = hull(&pts);
        // (b) the cube's corner into a face with normal −(1,1,1)/√3 whose plane is
        // at distance √3 − δ from the origin; the tetrahedron extends outward.
        let u = Vec3::new(1.0, 1.0, 1.0) / 3f64.sqrt();
        let e1 = Vec3::new(1.0, -1.0, 0.0).normalize();
        let e2 = u.cross(&e1);
        let c0 = u * (3f64.sqrt() - delta);
        let mut pts: Vec<Vec3> = (0..3)
            .map(|k| {
                let a = 0.2 + k as f64 * std::f64::consts::TAU / 3.0;
                c0 + (e1 * a.cos() + e2 * a.sin()) * 0.9
            })
            .collect();
        pts.push(c0 + u * 2.0);
        let tet_b = hull(&pts);
        // (c) base face (a triangle inside the top face's square) at depth δ.
        let mut pts = ring(Vec3::new(0.0, 0.1, 0.0), 1.0 - delta, 0.7, 0.0);
        pts.push(Vec3::new(0.05, 0.0, 2.5));
        let tet_c = hull(&pts);
        for (tet, n, what) in [
            (&tet_a, Vec3::z(), "apex into face"),
            (&tet_b, u, "cube corner into face"),
            (&tet_c, Vec3::z(), "face into face"),
        ] {
            let pd = match penetration_depth(&cube, &id, tet, &id) {
                Ok(p) => p,
                Err(e) => panic!("{e}"),
            };
            assert!(
                (pd.depth() - delta).abs() < 1e-12,
                "{what}, δ = {delta}: PD {}",
                pd.depth()
            );
            assert!((pd.normal - n).norm() < 1e-12, "{what}: {:?}", pd.normal);
            // Swapped order: same depth, opposite normal.
            let back = match penetration_depth(tet, &id, &cube, &id) {
                Ok(p) => p,
                Err(e) => panic!("{e}"),
            };
            assert!((back.depth() - delta).abs() < 1e-12 && (back.normal + n).norm() < 1e-12);
            let rm = eval(
                &body(&cube, InteriorPoint::Centroid),
                &id,
                &body(tet, InteriorPoint::Centroid),
                &id,
            );
            assert!(rm.rho < 0.0, "{what}: ρ = {}", rm.rho);
            // Translating the tetrahedron by δ·n brings it to touching: ρ = 0.
            let touch = eval(
                &body(&cube, InteriorPoint::Centroid),
                &id,
                &body(tet, InteriorPoint::Centroid),
                &at(n * delta),
            );
            assert!(
                touch.rho.abs() < 1e-10,
                "{what}: touching ρ = {}",
                touch.rho
            );
        }
    }
}

// ───────────────────────────── random pairs ─────────────────────────────

/// A random convex polytope: 6–24 points in an ellipsoid with semi-axes in
/// [0.2, 1.0] m, hulled.
fn random_polytope(rng: &mut SplitMix64) -> ConvexPolytope {
    let axes = Vec3::new(
        rng.uniform(0.2, 1.0),
        rng.uniform(0.2, 1.0),
        rng.uniform(0.2, 1.0),
    );
    let n = 6 + (rng.next_u64() % 19) as usize;
    loop {
        let pts: Vec<Vec3> = (0..n)
            .map(|_| loop {
                let p = Vec3::new(
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-1.0, 1.0),
                );
                if p.norm() <= 1.0 {
                    break p.component_mul(&axes);
                }
            })
            .collect();
        if let Ok(p) = ConvexPolytope::from_points(&pts) {
            if p.volume() > 1e-3 {
                return p;
            }
        }
    }
}

fn random_pose(rng: &mut SplitMix64, c: Vec3, spread: f64) -> Pose {
    let t = c + Vec3::new(
        rng.uniform(-spread, spread),
        rng.uniform(-spread, spread),
        rng.uniform(-spread, spread),
    );
    Pose::from_parts(t.into(), rng.rotation())
}

/// The gauge of K = (P1 − x1) − (P2 − x2) at d = x2 − x1, computed from the
/// Minkowski difference hull M = P1 ⊖ P2 = (x1 − x2) + K: γ_K(d) = max_f n_fᵀd / h_f
/// over the faces n_fᵀk = h_f of K. Also returns ε_K = min_f h_f.
fn gauge_from_hull(m_hull: &ConvexPolytope, x1: Vec3, x2: Vec3) -> (f64, f64) {
    let shift = x1 - x2;
    let d = x2 - x1;
    let mut g = 0.0f64;
    let mut eps = INF;
    for f in &m_hull.faces {
        let h = f.offset - f.normal.dot(&shift);
        eps = eps.min(h);
        g = g.max(f.normal.dot(&d) / h);
    }
    (g, eps)
}

#[derive(Default)]
struct Summary {
    n: usize,
    min: f64,
    max: f64,
    sum: f64,
}

impl Summary {
    fn add(&mut self, v: f64) {
        if self.n == 0 {
            self.min = v;
            self.max = v;
        }
        self.n += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.sum += v;
    }
    fn show(&self, name: &str) {
        println!(
            "  {name:<34} min {:>9.4}  mean {:>9.4}  max {:>9.4}  (n = {})",
            self.min,
            self.sum / self.n.max(1) as f64,
            self.max,
            self.n
        );
    }
}

/// ≥ 500 overlapping and ≥ 250 separated random pairs (random hulls, random poses),
/// centroids or Chebyshev centres as interior points. Asserted, with s the exact
/// Minkowski depth (overlap) or separation, D = ‖x1 − x2‖, ε = ε1 + ε2 (inradii about
/// the interior points), R1, R2 the circumradii about them:
/// - r equals the gauge γ_K(x2 − x1) from the Minkowski hull (1e-9 relative);
/// - overlapping: s/D ≤ −ρ ≤ s/(ε − s) (when s < ε) and s/(R1 + R2) ≤ −ρ;
/// - separated: s/D ≤ ρ ≤ s/(ε + s) ≤ s/ε (eq. (4));
/// - witnesses on the boundaries (1e-9), ‖p1 − p2‖ = |ρ|·D, and the normal separates
///   P1(x1, r) from P2(x2, r) (1e-9).
///
/// Each bound carries a relative slack of 1e-9.
#[test]
fn random_pairs_within_metric_equivalence_bounds() {
    let mut rng = SplitMix64::new(1001);
    let params = RatioParams::default();
    let mut scratch = RatioScratch::default();
    let mut out = RatioResults::default();
    let (mut n_over, mut n_sep) = (0usize, 0usize);
    let mut over_rho_per_s = Summary::default();
    let mut over_rho_d_per_s = Summary::default();
    let mut over_rho_eps_per_s = Summary::default();
    let mut sep_rho_d_per_s = Summary::default();
    let mut sep_rho_eps_per_s = Summary::default();
    let mut iters = Summary::default();
    let mut faces = Summary::default();
    let mut over_tight_eps = Summary::default();
    let mut over_tight_epsk = Summary::default();
    let mut sep_tight_eps = Summary::default();
    let mut cond = [Summary::default(), Summary::default()];
    let mut slide5_violations = [0usize; 2];
    let mut s_ge_eps = [0usize; 2];
    #[allow(clippy::type_complexity)]
    let mut timed: Vec<(
        RatioBody,
        Pose,
        RatioBody,
        Pose,
        ConvexPolytope,
        ConvexPolytope,
    )> = Vec::new();
    let mut attempts = 0;
    while (n_over < 500 || n_sep < 250) && attempts < 5000 {
        attempts += 1;
        let (p1, p2) = (random_polytope(&mut rng), random_polytope(&mut rng));
        let ip = if attempts % 2 == 0 {
            InteriorPoint::Centroid
        } else {
            InteriorPoint::ChebyshevCentre
        };
        let (b1, b2) = (body(&p1, ip), body(&p2, ip));
        let x1 = random_pose(&mut rng, Vec3::new(1.0, -2.0, 0.5), 1.0);
        // Body 2's interior point at a random distance up to 1.1 (R1 + R2).
        let x1c = (x1 * nalgebra::Point3::from(b1.interior)).coords;
        let dir = Vec3::new(
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        )
        .normalize();
        let dist = rng.uniform(0.05, 1.1) * (b1.circumradius + b2.circumradius);
        let rot = rng.rotation();
        let x2c = x1c + dir * dist;
        let x2 = Pose::from_parts((x2c - rot * b2.interior).into(), rot);
        let st = ratio_metric(&b1, &x1, &b2, &x2, &params, &mut scratch, &mut out);
        assert_eq!(st, LpStatus::Optimal);
        let mk = match penetration_depth(&p1, &x1, &p2, &x2) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        let (x1w, x2w) = (out.interior1, out.interior2);
        assert!((x1w - x1c).norm() < 1e-12 && (x2w - x2c).norm() < 1e-12);
        let dd = (x2w - x1w).norm();
        let (gauge, eps_k) = gauge_from_hull(&mk.difference, x1w, x2w);
        assert!(
            (out.ratio - gauge).abs() <= 1e-9 * gauge.max(1.0),
            "r {} vs gauge {gauge}",
            out.ratio
        );
        let eps = b1.inradius + b2.inradius;
        assert!(
            eps <= eps_k * (1.0 + 1e-9),
            "ε1 + ε2 = {eps} > ε_K = {eps_k}"
        );
        let sd = mk.signed_distance;
        let s = sd.abs();
        let slack = 1.0 + 1e-9;
        if sd.abs() < 1e-9 {
            continue; // touching within round-off: no sign to compare
        }
        if sd < 0.0 {
            n_over += 1;
            let m_rho = -out.rho;
            assert!(out.ratio < 1.0, "overlap but r = {}", out.ratio);
            assert!(s / dd <= m_rho * slack, "s/D {} > −ρ {m_rho}", s / dd);
            assert!(
                s / (b1.circumradius + b2.circumradius) <= m_rho * slack,
                "shape-constant lower bound"
            );
            for (k, e) in [eps, eps_k].into_iter().enumerate() {
                if s < e {
                    let upper = s / (e - s);
                    assert!(
                        m_rho <= upper * slack,
                        "−ρ {m_rho} > s/(ε − s) {upper} (ε = {e})"
                    );
                    [&mut over_tight_eps, &mut over_tight_epsk][k].add(m_rho / upper);
                } else {
                    s_ge_eps[k] += 1;
                }
                if m_rho > s / e {
                    slide5_violations[k] += 1;
                }
            }
            over_rho_per_s.add(m_rho / s);
            over_rho_d_per_s.add(m_rho * dd / s);
            over_rho_eps_per_s.add(m_rho * eps / s);
        } else {
            n_sep += 1;
            assert!(out.ratio > 1.0, "separated but r = {}", out.ratio);
            assert!(s / dd <= out.rho * slack, "s/D {} > ρ {}", s / dd, out.rho);
            assert!(out.rho <= s / (eps + s) * slack, "ρ {} > s/(ε+s)", out.rho);
            assert!(
                out.rho <= s / (eps_k + s) * slack,
                "ρ {} > s/(ε_K+s)",
                out.rho
            );
            sep_tight_eps.add(out.rho / (s / (eps_k + s)));
            sep_rho_d_per_s.add(out.rho * dd / s);
            sep_rho_eps_per_s.add(out.rho * eps / s);
        }
        // Witnesses, their distance, and the separating plane of the scaled bodies.
        let scale = 1.0 + dd;
        assert!(face_distance(&p1, &x1, &out.witness1).abs() < 1e-9 * scale);
        assert!(face_distance(&p2, &x2, &out.witness2).abs() < 1e-9 * scale);
        assert!(((out.witness1 - out.witness2).norm() - out.rho.abs() * dd).abs() < 1e-9 * scale);
        let plane = out.normal.dot(&out.point);
        for v in world_vertices(&p1, &x1) {
            let vs = x1w + (v - x1w) * out.ratio;
            assert!(out.normal.dot(&vs) <= plane + 1e-9 * scale);
        }
        for v in world_vertices(&p2, &x2) {
            let vs = x2w + (v - x2w) * out.ratio;
            assert!(out.normal.dot(&vs) >= plane - 1e-9 * scale);
        }
        cond[attempts % 2].add((b1.circumradius + b2.circumradius) / eps);
        iters.add(out.stats.iterations() as f64);
        faces.add((b1.m() + b2.m()) as f64);
        if timed.len() < 200 {
            timed.push((b1, x1, b2, x2, p1, p2));
        }
    }
    assert!(
        n_over >= 500 && n_sep >= 250,
        "{n_over} overlapping, {n_sep} separated"
    );
    // Timing (printed, not asserted): µs per ratio-metric evaluation.
    let reps = 50;
    let t0 = Instant::now();
    let mut acc = 0.0;
    for _ in 0..reps {
        for (b1, x1, b2, x2, _, _) in &timed {
            ratio_metric(b1, x1, b2, x2, &params, &mut scratch, &mut out);
            acc += out.ratio;
        }
    }
    let us = t0.elapsed().as_secs_f64() * 1e6 / (reps * timed.len()) as f64;
    let t0 = Instant::now();
    for (_, x1, _, x2, p1, p2) in &timed {
        if let Ok(mk) = penetration_depth(p1, x1, p2, x2) {
            acc += mk.signed_distance;
        }
    }
    let us_mink = t0.elapsed().as_secs_f64() * 1e6 / timed.len() as f64;
    println!("ratio metric on random pairs ({attempts} drawn):");
    println!("  overlapping pairs: {n_over}; separated pairs: {n_sep}");
    println!("  overlapping, −ρ/PD in 1/m, −ρ·D/PD and −ρ·ε/PD dimensionless:");
    over_rho_per_s.show("−ρ/PD (1/m)");
    over_rho_d_per_s.show("−ρ·D/PD (bound: ≥ 1)");
    over_rho_eps_per_s.show("−ρ·ε/PD (slide eq. (5): ≤ 1)");
    over_tight_eps.show("−ρ / (PD/(ε − PD)), ε = ε1+ε2 (≤ 1)");
    over_tight_epsk.show("−ρ / (PD/(ε_K − PD)) (≤ 1)");
    println!(
        "  slide eq. (5) −PD/ε ≤ ρ fails in {} (ε = ε1 + ε2) and {} (ε = ε_K) of {n_over}; \
         PD ≥ ε (upper bound void) in {} and {}",
        slide5_violations[0], slide5_violations[1], s_ge_eps[0], s_ge_eps[1]
    );
    println!("  separated:");
    sep_rho_d_per_s.show("ρ·D/s (bound: ≥ 1)");
    sep_rho_eps_per_s.show("ρ·ε/s (slide eq. (4): ≤ 1)");
    sep_tight_eps.show("ρ / (s/(ε_K + s)) (≤ 1)");
    println!("  shape constants, (R1 + R2)/(ε1 + ε2):");
    cond[0].show("centroids");
    cond[1].show("Chebyshev centres");
    iters.show("LP pivots per evaluation");
    faces.show("m1 + m2 (faces)");
    println!(
        "  {us:.2} µs per evaluation (mean over {} pairs × {reps}); exact Minkowski \
         reference {us_mink:.0} µs per pair (checksum {acc:.3})",
        timed.len()
    );
}

/// Moving both bodies by one rigid motion leaves r and ρ unchanged (1e-9) and moves
/// the normal, the common point and the witnesses with it (1e-9 relative to the
/// size of the scene), on 200 random pairs.
#[test]
fn invariant_under_rigid_motion() {
    let mut rng = SplitMix64::new(77);
    let mut worst = [0.0f64; 3];
    for _ in 0..200 {
        let (p1, p2) = (random_polytope(&mut rng), random_polytope(&mut rng));
        let (b1, b2) = (
            body(&p1, InteriorPoint::Centroid),
            body(&p2, InteriorPoint::Centroid),
        );
        let x1 = random_pose(&mut rng, Vec3::zeros(), 0.5);
        let x2 = random_pose(&mut rng, Vec3::zeros(), 1.0);
        let g = random_pose(&mut rng, Vec3::new(3.0, -1.0, 2.0), 2.0);
        let a = eval(&b1, &x1, &b2, &x2);
        let b = eval(&b1, &(g * x1), &b2, &(g * x2));
        let map = |p: Vec3| (g * nalgebra::Point3::from(p)).coords;
        let dr = (a.ratio - b.ratio).abs();
        let drho = (a.rho - b.rho).abs();
        let dn = (g.rotation * a.normal - b.normal).norm();
        let dp = (map(a.point) - b.point)
            .norm()
            .max((map(a.witness1) - b.witness1).norm())
            .max((map(a.witness2) - b.witness2).norm());
        assert!(dr < 1e-9 && drho < 1e-9, "Δr {dr}, Δρ {drho}");
        assert!(dn < 1e-9, "Δn {dn}");
        assert!(dp < 1e-9 * 5.0, "Δp {dp}");
        worst = [worst[0].max(dr), worst[1].max(dn), worst[2].max(dp)];
    }
    println!(
        "rigid motion: max |Δr| {:.1e}, max |Δn| {:.1e}, max |Δp| {:.1e} m",
        worst[0], worst[1], worst[2]
    );
}

/// Pushing body 2 toward body 1 along the line of the interior points, x2(λ) = x2 −
/// λ(x2 − x1): r falls linearly, r(λ) = (1 − λ) r(0) (eq. (2) is a gauge), ρ strictly
/// decreases through 0 at the touching λ; 100 random pairs, 40 steps, 1e-9. Also a
/// box pressed into a box along −z with a lateral offset: ρ strictly decreases while the
/// Minkowski depth strictly increases.
#[test]
fn monotone_when_pushed_deeper() {
    let mut rng = SplitMix64::new(31);
    for _ in 0..100 {
        let (p1, p2) = (random_polytope(&mut rng), random_polytope(&mut rng));
        let (b1, b2) = (
            body(&p1, InteriorPoint::Centroid),
            body(&p2, InteriorPoint::ChebyshevCentre),
        );
        let x1 = random_pose(&mut rng, Vec3::zeros(), 0.5);
        let x2 = random_pose(&mut rng, Vec3::new(2.5, 0.0, 0.0), 0.5);
        let r0 = eval(&b1, &x1, &b2, &x2);
        let d = r0.interior2 - r0.interior1;
        let mut last = INF;
        for k in 0..40 {
            let lam = k as f64 / 40.0;
            let x2k = Pose::from_parts((x2.translation.vector - d * lam).into(), x2.rotation);
            let o = eval(&b1, &x1, &b2, &x2k);
            assert!((o.ratio - (1.0 - lam) * r0.ratio).abs() < 1e-9 * r0.ratio.max(1.0));
            assert!(o.rho < last, "ρ not decreasing at λ = {lam}");
            last = o.rho;
        }
    }
    let (pa, pb) = (
        cuboid(Vec3::new(0.5, 0.5, 0.5)),
        cuboid(Vec3::new(0.4, 0.3, 0.2)),
    );
    let (ba, bb) = (
        body(&pa, InteriorPoint::Centroid),
        body(&pb, InteriorPoint::Centroid),
    );
    let (mut last_rho, mut last_pd) = (INF, -INF);
    for k in 0..25 {
        let z = 0.75 - 0.02 * k as f64;
        let x2 = at(Vec3::new(0.3, -0.2, z));
        let o = eval(&ba, &Pose::identity(), &bb, &x2);
        let pd = match penetration_depth(&pa, &Pose::identity(), &pb, &x2) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        assert!(o.rho < last_rho && -pd.signed_distance > last_pd, "z = {z}");
        // Closed forms: r = z/0.7 while z dominates, PD = 0.7 − z.
        assert!(
            (o.ratio - z / 0.7).abs() < 1e-12 && (pd.signed_distance - (z - 0.7)).abs() < 1e-12
        );
        last_rho = o.rho;
        last_pd = -pd.signed_distance;
    }
}

/// After one warm-up evaluation of the largest pair, the ratio metric (LP included)
/// allocates nothing over 1,000 evaluations of random pairs; non-finite poses return
/// `InvalidInput` without panicking.
#[test]
fn no_allocation_after_warm_up_and_bad_input() {
    let mut rng = SplitMix64::new(9);
    let pairs: Vec<(RatioBody, RatioBody)> = (0..20)
        .map(|_| {
            (
                body(&random_polytope(&mut rng), InteriorPoint::Centroid),
                body(&random_polytope(&mut rng), InteriorPoint::Centroid),
            )
        })
        .collect();
    let poses: Vec<(Pose, Pose)> = (0..50)
        .map(|_| {
            (
                random_pose(&mut rng, Vec3::zeros(), 0.5),
                random_pose(&mut rng, Vec3::zeros(), 0.8),
            )
        })
        .collect();
    let params = RatioParams::default();
    let m_max = pairs.iter().map(|(a, b)| a.m() + b.m()).max().unwrap_or(0);
    let mut scratch = RatioScratch::with_capacity(m_max, &params);
    let mut out = RatioResults::default();
    // Warm-up on the largest pair.
    if let Some((a, b)) = pairs.iter().max_by_key(|(a, b)| a.m() + b.m()) {
        ratio_metric(
            a,
            &poses[0].0,
            b,
            &poses[0].1,
            &params,
            &mut scratch,
            &mut out,
        );
    }
    let (ok, allocs) = alloc_counter::count(|| {
        let mut ok = 0;
        for k in 0..1000 {
            let (a, b) = &pairs[k % pairs.len()];
            let (x1, x2) = &poses[k % poses.len()];
            if ratio_metric(a, x1, b, x2, &params, &mut scratch, &mut out) == LpStatus::Optimal {
                ok += 1;
            }
        }
        ok
    });
    assert_eq!(ok, 1000);
    assert_eq!(allocs, 0, "allocations after warm-up");
    let bad = Pose::from_parts(Vec3::new(f64::NAN, 0.0, 0.0).into(), Quat::identity());
    let (a, b) = &pairs[0];
    let st = ratio_metric(a, &bad, b, &poses[0].1, &params, &mut scratch, &mut out);
    assert_eq!(st, LpStatus::InvalidInput);
}
