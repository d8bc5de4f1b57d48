//! The primal (body-space) Newton solver (`solver::primal`, issue 14 lcp13) on
//! problems built from bodies: random G, M and the pipeline's CFM E = 1e-9 of
//! W's diagonal, and the degenerate rows of resting contact (a face on 4
//! corners, a duplicated point, a 1,000:1 mass ratio). Each solution is checked
//! as the LCP's: the natural-map residual of `w = W z + q` with W assembled
//! here from the same G, M, E (independently of the solver's body-space
//! evaluation), and against the contact-space Newton solver (`solver::newton`,
//! the pipeline's globalization) where both solve.

mod common;
#[path = "common/scene_problems.rs"]
mod scene_problems;

use rtphys::math::SplitMix64 as Rng;
use rtphys::solver::block_cholesky::M6;
use rtphys::solver::primal::{LineSearch, NO_BODY};
use rtphys::solver::{
    contact_residual, BodyRows, ContactProblem, Globalization, NewtonParams, NewtonResults,
    NewtonSolver, NewtonStatus, PolygonTable, PrimalParams, PrimalResults, PrimalSolver,
    PrimalStatus,
};
use scene_problems::with_full_w;

/// The pipeline's tolerance (m/s, N·s).
const TOL: f64 = 1e-9;

/// The pipeline's CFM: E = ε diag(G M⁻¹ Gᵀ) (`pipeline::lcp` REGULARIZATION).
const EPS: f64 = 1e-9;

/// A body-space problem: M per body, per point its two sides (body or static),
/// a normal, a lever arm per side, μ, and the free velocities ν_f with a normal
/// bias s per point (q = G ν_f + s).
struct Bodies {
    mass: Vec<M6>,
    sides: Vec<[u32; 2]>,
    jac: Vec<[[f64; 18]; 2]>,
    mu: Vec<f64>,
    q: Vec<f64>,
}

/// Rows (n, t₁, t₂) of a point with normal `n` at lever arm `r` on a body
/// (v, ω): row for direction d is [d, r × d], negated for the second side.
fn rows(n: [f64; 3], r: [f64; 3], sign: f64) -> [f64; 18] {
    let t1 = unit(cross(
        n,
        if n[0].abs() < 0.9 {
            [1.0, 0.0, 0.0]
        } else {
            [0.0, 1.0, 0.0]
        },
    ));
    let t2 = cross(n, t1);
    let mut j = [0.0; 18];
    for (a, d) in [n, t1, t2].iter().enumerate() {
        let rd = cross(r, *d);
        for c in 0..3 {
            j[6 * a + c] = sign * d[c];
            j[6 * a + 3 + c] = sign * rd[c];
        }
    }
    j
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn unit(a: [f64; 3]) -> [f64; 3] {
    let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    [a[0] / l, a[1] / l, a[2] / l]
}

/// A box's M: mass m, half extents h (diagonal inertia).
fn box_mass(m: f64, h: [f64; 3]) -> M6 {
    let mut mm = M6::zeros();
    for c in 0..3 {
        mm[(c, c)] = m;
    }
    mm[(3, 3)] = m / 3.0 * (h[1] * h[1] + h[2] * h[2]);
    mm[(4, 4)] = m / 3.0 * (h[0] * h[0] + h[2] * h[2]);
    mm[(5, 5)] = m / 3.0 * (h[0] * h[0] + h[1] * h[1]);
    mm
}

impl Bodies {
    /// The bodies' velocity change M⁻¹ Gᵀ z (unique where the LCP's velocities
    /// are: the split of a load over dependent rows is not), m/s and rad/s.
    fn contact_velocity(&self, z: &[f64]) -> Vec<f64> {
        let dv = self.velocity_change(z);
        let mut out = Vec::new();
        for (i, s) in self.sides.iter().enumerate() {
            for a in 0..3 {
                let mut v = 0.0;
                for side in 0..2 {
                    if s[side] != NO_BODY {
                        let j = &self.jac[i][side];
                        v += (0..6)
                            .map(|c| j[6 * a + c] * dv[6 * s[side] as usize + c])
                            .sum::<f64>();
                    }
                }
                out.push(v);
            }
        }
        out
    }

    fn velocity_change(&self, z: &[f64]) -> Vec<f64> {
        let mut f = vec![0.0; 6 * self.mass.len()];
        for (i, s) in self.sides.iter().enumerate() {
            for side in 0..2 {
                if s[side] == NO_BODY {
                    continue;
                }
                let j = &self.jac[i][side];
                for c in 0..6 {
                    f[6 * s[side] as usize + c] +=
                        (0..3).map(|a| j[6 * a + c] * z[3 * i + a]).sum::<f64>();
                }
            }
        }
        let mut out = vec![0.0; f.len()];
        for (b, m) in self.mass.iter().enumerate() {
            let mi = m.try_inverse().expect("M invertible");
            for r in 0..6 {
                out[6 * b + r] = (0..6).map(|c| mi[(r, c)] * f[6 * b + c]).sum();
            }
        }
        out
    }

    /// The contact-space problem (W = G M⁻¹ Gᵀ + E in 3×3 blocks of points
    /// sharing a body, islands by shared bodies) and the body-space rows.
    fn problems(&self, k: u32) -> (ContactProblem, BodyRows) {
        let np = self.sides.len();
        let minv: Vec<M6> = self
            .mass
            .iter()
            .map(|m| m.try_inverse().expect("M invertible"))
            .collect();
        // Islands by union–find over bodies.
        let nb = self.mass.len();
        let mut parent: Vec<usize> = (0..nb).collect();
        fn find(p: &mut [usize], mut a: usize) -> usize {
            while p[a] != a {
                a = p[a];
            }
            a
        }
        for s in &self.sides {
            if s[0] != NO_BODY && s[1] != NO_BODY {
                let (a, b) = (
                    find(&mut parent, s[0] as usize),
                    find(&mut parent, s[1] as usize),
                );
                parent[a.max(b)] = a.min(b);
            }
        }
        let root = |p: &mut Vec<usize>, i: usize| -> usize {
            let b = if self.sides[i][0] != NO_BODY {
                self.sides[i][0]
            } else {
                self.sides[i][1]
            };
            find(p, b as usize)
        };
        let mut order = Vec::new();
        let mut island_start = Vec::new();
        let mut taken = vec![false; np];
        for i in 0..np {
            if taken[i] {
                continue;
            }
            let r = root(&mut parent, i);
            island_start.push(order.len());
            for (j, t) in taken.iter_mut().enumerate().skip(i) {
                if !*t && root(&mut parent, j) == r {
                    *t = true;
                    order.push(j as u32);
                }
            }
        }
        island_start.push(order.len());
        // W blocks.
        let block = |i: usize, j: usize| -> Option<[f64; 9]> {
            let mut w = [0.0; 9];
            let mut any = false;
            for si in 0..2 {
                for sj in 0..2 {
                    let (bi, bj) = (self.sides[i][si], self.sides[j][sj]);
                    if bi == NO_BODY || bi != bj {
                        continue;
                    }
                    any = true;
                    let mi = &minv[bi as usize];
                    let (ja, jb) = (&self.jac[i][si], &self.jac[j][sj]);
                    for a in 0..3 {
                        for b in 0..3 {
                            let mut s = 0.0;
                            for r in 0..6 {
                                for c in 0..6 {
                                    s += ja[6 * a + r] * mi[(r, c)] * jb[6 * b + c];
                                }
                            }
                            w[3 * a + b] += s;
                        }
                    }
                }
            }
            any.then_some(w)
        };
        let mut p = ContactProblem {
            row_start: vec![0],
            table: PolygonTable::new(k),
            order,
            island_start,
            q: self.q.clone(),
            mu: self.mu.clone(),
            ..Default::default()
        };
        let mut cfm = Vec::new();
        for i in 0..np {
            for j in 0..np {
                if let Some(mut w) = block(i, j) {
                    if i == j {
                        let e = [EPS * w[0], EPS * w[4], EPS * w[8]];
                        for a in 0..3 {
                            w[4 * a] += e[a];
                        }
                        cfm.push(e);
                    }
                    p.col.push(j as u32);
                    p.w.push(w);
                }
            }
            p.row_start.push(p.col.len());
        }
        let ok = vec![true; p.island_start.len() - 1];
        let rows = BodyRows {
            mass: self.mass.clone(),
            minv,
            body: self.sides.clone(),
            jac: self.jac.clone(),
            cfm,
            ok,
        };
        (p, rows)
    }
}

/// Random bodies (masses over two decades), points between two bodies or a
/// body and the ground, normals and lever arms random; ν_f and s random
/// (pressing on most points).
fn random_bodies(rng: &mut Rng, nb: usize, np: usize) -> Bodies {
    let mass: Vec<M6> = (0..nb)
        .map(|_| {
            let m = 10f64.powf(rng.uniform(-1.0, 1.0));
            let h = [
                rng.uniform(0.05, 0.3),
                rng.uniform(0.05, 0.3),
                rng.uniform(0.05, 0.3),
            ];
            box_mass(m, h)
        })
        .collect();
    let nu_f: Vec<[f64; 6]> = (0..nb)
        .map(|_| {
            let mut v = [0.0; 6];
            for x in &mut v {
                *x = rng.uniform(-0.05, 0.05);
            }
            v
        })
        .collect();
    let pick = |rng: &mut Rng| ((rng.uniform(0.0, 1.0) * nb as f64) as usize).min(nb - 1) as u32;
    let mut b = Bodies {
        mass,
        sides: Vec::new(),
        jac: Vec::new(),
        mu: Vec::new(),
        q: Vec::new(),
    };
    for _ in 0..np {
        let a = pick(rng);
        let other = if rng.uniform(0.0, 1.0) < 0.5 {
            pick(rng)
        } else {
            NO_BODY
        };
        let other = if other == a { NO_BODY } else { other };
        let n = unit([rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), 1.0]);
        let ra = [
            rng.uniform(-0.2, 0.2),
            rng.uniform(-0.2, 0.2),
            rng.uniform(-0.2, 0.2),
        ];
        let rb = [
            rng.uniform(-0.2, 0.2),
            rng.uniform(-0.2, 0.2),
            rng.uniform(-0.2, 0.2),
        ];
        let ja = rows(n, ra, 1.0);
        let jb = if other == NO_BODY {
            [0.0; 18]
        } else {
            rows(n, rb, -1.0)
        };
        let mut q = [0.0; 3];
        for (s, (body, j)) in [(a, &ja), (other, &jb)].into_iter().enumerate() {
            let _ = s;
            if body == NO_BODY {
                continue;
            }
            for (r, qr) in q.iter_mut().enumerate() {
                *qr += (0..6)
                    .map(|c| j[6 * r + c] * nu_f[body as usize][c])
                    .sum::<f64>();
            }
        }
        q[0] += rng.uniform(-0.02, 0.005);
        b.sides.push([a, other]);
        b.jac.push([ja, jb]);
        b.mu.push(rng.uniform(0.1, 0.8));
        b.q.extend_from_slice(&q);
    }
    b
}

/// The contact-space Newton solver as the pipeline sets it up.
fn newton(p: &ContactProblem) -> (NewtonStatus, Vec<f64>) {
    let solver = NewtonSolver::new(NewtonParams {
        tolerance: TOL,
        regularization: 1e-6,
        max_dense_points: 400,
        globalization: Globalization::LineSearchThenInterior,
        ..NewtonParams::default()
    });
    let mut r = NewtonResults::default();
    let st = solver.solve_contacts(p, None, &mut r);
    (st, r.z)
}

/// The radius updates between and within passes compared here.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Variant {
    /// The default: Anderson(3) on the radii between passes.
    Anderson,
    /// Newton on the radii within each pass (lcp14, `radius_newton`).
    RadiusNewton,
    /// The coupled step (lcp14, `coupled`): radii moved by every Newton step.
    Coupled,
    /// The soft identification (lcp17, `soft_proximal`), at the start of every
    /// inner run that is not converged (`soft_after = 0`), so that it is
    /// exercised on every problem.
    Soft,
}

/// The solver's parameters for a variant, without the early stop on a stalled
/// island (`stall_passes = 0`: these tests measure convergence within the pass
/// budget; the pipeline hands a stalled island to the Newton path instead).
fn variant(v: Variant) -> PrimalParams {
    PrimalParams {
        tolerance: TOL,
        stall_passes: 0,
        radius_newton: if matches!(v, Variant::Anderson | Variant::Soft) {
            0
        } else {
            8
        },
        coupled: v == Variant::Coupled,
        soft_proximal: if v == Variant::Soft { SOFT_RHO } else { 0.0 },
        soft_after: 0,
        ..PrimalParams::default()
    }
}

/// The soft identification's ρ in these tests (kinks of 1e3 of W's diagonal).
const SOFT_RHO: f64 = 1e-3;

fn primal_with(
    p: &ContactProblem,
    rows: &BodyRows,
    guess: Option<&[f64]>,
    params: PrimalParams,
) -> (PrimalStatus, PrimalResults) {
    let solver = PrimalSolver::new(params);
    let mut r = PrimalResults::default();
    let st = solver.solve_contacts(p, rows, guess, &mut r);
    (st, r)
}

/// The residual of z over every island (the solver's own test, recomputed).
fn residual(p: &ContactProblem, z: &[f64]) -> f64 {
    contact_residual(p, &p.order, z)
}

/// Random problems: the primal solver converges on 56 of 60 to the
/// pipeline's tolerance (the record below), and agrees with the contact-space Newton solver where
/// that converges too: the contact velocities' changes G M⁻¹ Gᵀ z within 1e-8
/// m/s (both meet a 1e-9 residual in w; the bodies' own velocity changes
/// agreed to 2e-8 on case 11, the rotations amplifying through small inertias
/// and lever arms). Not the
/// impulses: on dependent rows the split of a load is set only by the CFM in
/// the primal solution and left where the start put it by Newton's
/// regularized step (`solver::newton`, "Dependent rows"): 1.1e-6 apart on
/// case 14 with identical velocities.
#[test]
fn random_problems_match_newton() {
    let failed = random_problems(Variant::Anderson);
    // The record (lcp13, unchanged in lcp14): 56 of 60 converge; cases 7, 35,
    // 41 and 51 (8 points on 2–6 bodies, μ up to 0.8) end at 20 outer passes
    // with the residual at 2e-5 – 3e-3: the radius fixed point (Anderson(3))
    // does not settle there, where the contact-space Newton converges. The
    // pipeline hands such islands to the Newton path (counted). More failures
    // fail.
    assert!(failed.len() <= 4, "primal failed on {failed:?}");
}

/// The same 60 problems with Newton on the radii within each pass (lcp14):
/// 58 converge, against 56 with Anderson (cases 7, 35 and 51 now converge);
/// cases 37 and 41 end at 20 passes (and at 60) with the residual at 6e-5 and
/// 7e-3 (the record; more failures fail).
#[test]
fn random_problems_radius_newton() {
    let failed = random_problems(Variant::RadiusNewton);
    assert!(
        failed.len() <= 2,
        "primal (radius Newton) failed on {failed:?}"
    );
}

/// The same 60 problems with the soft identification (lcp17) at the start of
/// every inner run: the answer at convergence is the default's (the final ρ
/// and the convergence test are), so the same record holds — at most 4
/// unconverged — and the contact velocities agree with Newton's within 1e-8
/// (asserted in `random_problems`).
#[test]
fn random_problems_soft_identification() {
    let failed = random_problems(Variant::Soft);
    assert!(failed.len() <= 4, "primal (soft) failed on {failed:?}");
}

/// The residual formed from the rows (lcp26, `PrimalParams::residual_from_rows`:
/// `w = G (M⁻¹ Gᵀ z) + E z + q` per body, as the pipeline sets it, where its W
/// holds only the diagonal blocks) against the residual on W (`W z + q`) on the
/// 60 random problems (W = G M⁻¹ Gᵀ + diag(E) assembled by the test): the same
/// status on every case, the same impulses (the residual decides only when a
/// pass stops: bit-identical unless a decision sits within round-off of the
/// tolerance, then both are solutions to it, within 1e-8 of each other as in
/// `random_problems`), and the reported residual of the converged ones equal to
/// 1e-13 m/s: the same natural map of the same w summed in another order, whose
/// round-off is ≈ 1e-16 × the largest term (|q| ≤ 0.1 m/s, a few dozen terms per
/// row), far below the 1e-9 tolerance it is compared with.
#[test]
fn residual_from_rows_matches_w() {
    let mut rng = Rng::new(13);
    let (mut identical, mut worst_res) = (0, 0.0_f64);
    for case in 0..60 {
        let (_, p, rows) = random_case(&mut rng, case);
        let base = variant(Variant::Anderson);
        let (sw, rw) = primal_with(&p, &rows, None, base);
        let from_rows = PrimalParams {
            residual_from_rows: true,
            ..base
        };
        let (sr, rr) = primal_with(&p, &rows, None, from_rows);
        assert_eq!(
            sw, sr,
            "case {case}: status on W {sw:?}, from the rows {sr:?}"
        );
        let scale = rw.z.iter().fold(1.0_f64, |a, x| a.max(x.abs()));
        let dz =
            rw.z.iter()
                .zip(&rr.z)
                .fold(0.0_f64, |a, (x, y)| a.max((x - y).abs()));
        assert!(dz <= 1e-8 * scale, "case {case}: |Δz| = {dz:.3e}");
        if rw
            .z
            .iter()
            .zip(&rr.z)
            .all(|(x, y)| x.to_bits() == y.to_bits())
        {
            identical += 1;
        }
        if sw == PrimalStatus::Converged {
            let d = (rw.stats.residual - rr.stats.residual).abs();
            worst_res = worst_res.max(d);
            assert!(
                d <= 1e-13,
                "case {case}: residuals {:.3e} and {:.3e}",
                rw.stats.residual,
                rr.stats.residual
            );
        }
    }
    eprintln!("residual from the rows: {identical} of 60 cases bit-identical impulses; worst |Δ residual| {worst_res:.3e}");
}

/// Random case `case` of the 60: 1–6 bodies, 1–14 points, a 4- or 8-gon.
fn random_case(rng: &mut Rng, case: usize) -> (Bodies, ContactProblem, BodyRows) {
    let b = random_bodies(rng, 1 + case % 6, 1 + (case * 7) % 14);
    let (p, rows) = b.problems(4 + 4 * (case as u32 % 2));
    (b, p, rows)
}

/// Solves the 60 random problems with the variant; asserts the residual and the
/// agreement with Newton on those it converges on; returns the others.
fn random_problems(v: Variant) -> Vec<usize> {
    let mut rng = Rng::new(13);
    let (mut solved, mut compared, mut worst) = (0, 0, 0.0_f64);
    let mut failed: Vec<usize> = Vec::new();
    for case in 0..60 {
        let (b, p, rows) = random_case(&mut rng, case);
        let (nb, np) = (b.mass.len(), b.mu.len());
        let (st, r) = primal_with(&p, &rows, None, variant(v));
        let res = residual(&p, &r.z);
        let (sn, zn) = newton(&p);
        if st != PrimalStatus::Converged {
            eprintln!(
                "case {case} ({nb} bodies, {np} points): primal {st:?} residual {res:.3e} {:?}; newton {sn:?}",
                r.stats
            );
            failed.push(case);
            continue;
        }
        assert!(res <= TOL, "case {case}: residual {res:.3e}");
        solved += 1;
        if sn == NewtonStatus::Converged {
            let (vp, vn) = (b.contact_velocity(&r.z), b.contact_velocity(&zn));
            let scale = vn.iter().fold(1.0_f64, |a, x| a.max(x.abs()));
            let d = vp
                .iter()
                .zip(&vn)
                .fold(0.0_f64, |a, (x, y)| a.max((x - y).abs()))
                / scale;
            worst = worst.max(d);
            compared += 1;
            assert!(
                d <= 1e-8,
                "case {case}: |G Δν_primal − G Δν_newton| = {d:.3e}"
            );
        }
    }
    eprintln!("random, {v:?}: {solved} solved, {compared} compared with Newton, worst relative difference {worst:.3e}; failed {failed:?}");
    failed
}

/// A box (1 kg, 10 cm) resting on a face: 4 corner points with dependent rows
/// (12 rows on 6 DoF), pushed down by gravity's step and sideways below the
/// friction limit (sticks) and above it (slides); with a duplicated corner; and
/// under a 1,000 kg box on its top face (a 1,000:1 mass ratio).
#[test]
fn degenerate_rows_converge() {
    let h = 0.05;
    let corners = [[h, h, -h], [-h, h, -h], [-h, -h, -h], [h, -h, -h]];
    let up = [0.0, 0.0, 1.0];
    let g_h = 9.81e-3;
    for (name, push, dup, ratio) in [
        ("face on 4 corners, sticking", 0.001, false, None),
        ("face on 4 corners, sliding", 0.05, false, None),
        ("4 corners and a duplicate", 0.001, true, None),
        ("1,000:1 stack", 0.001, false, Some(1000.0)),
    ] {
        let mut b = Bodies {
            mass: vec![box_mass(1.0, [h; 3])],
            sides: Vec::new(),
            jac: Vec::new(),
            mu: Vec::new(),
            q: Vec::new(),
        };
        let nu_f = [push, 0.0, -g_h, 0.0, 0.0, 0.0];
        let q_of = |j: &[f64; 18], v: &[f64; 6]| -> [f64; 3] {
            let mut q = [0.0; 3];
            for (r, qr) in q.iter_mut().enumerate() {
                *qr = (0..6).map(|c| j[6 * r + c] * v[c]).sum();
            }
            q
        };
        let mut pts: Vec<[f64; 3]> = corners.to_vec();
        if dup {
            pts.push(corners[0]);
        }
        for c in &pts {
            let j = rows(up, *c, 1.0);
            b.sides.push([0, NO_BODY]);
            b.q.extend_from_slice(&q_of(&j, &nu_f));
            b.jac.push([j, [0.0; 18]]);
            b.mu.push(0.5);
        }
        if let Some(m) = ratio {
            b.mass.push(box_mass(m, [h; 3]));
            let top = [0.0, 0.0, -g_h, 0.0, 0.0, 0.0];
            for c in &corners {
                let lower = [c[0], c[1], h];
                // The gap rate n·(v_top − v_bottom) at the top face.
                let j0 = rows(up, lower, -1.0);
                let j1 = rows(up, *c, 1.0);
                let (q0, q1) = (q_of(&j0, &nu_f), q_of(&j1, &top));
                b.sides.push([0, 1]);
                b.q.extend_from_slice(&[q0[0] + q1[0], q0[1] + q1[1], q0[2] + q1[2]]);
                b.jac.push([j0, j1]);
                b.mu.push(0.5);
            }
        }
        let (p, rows_) = b.problems(4);
        for v in [
            Variant::Anderson,
            Variant::RadiusNewton,
            Variant::Coupled,
            Variant::Soft,
        ] {
            let (st, r) = primal_with(&p, &rows_, None, variant(v));
            let res = residual(&p, &r.z);
            let total: f64 = (0..p.n())
                .filter(|&i| b.sides[i][1] == NO_BODY)
                .map(|i| r.z[3 * i])
                .sum();
            eprintln!(
                "{name} ({v:?}): {st:?}, residual {res:.3e}, ground load {total:.6e} N·s, passes {}, factorizations {}",
                r.stats.passes, r.stats.factorizations
            );
            assert_eq!(
                st,
                PrimalStatus::Converged,
                "{name} ({v:?}): residual {res:.3e}"
            );
            assert!(res <= TOL, "{name} ({v:?}): residual {res:.3e}");
            // The ground carries the weight's step (m g h per kg) when sticking: the
            // bodies' normal velocity is cancelled, W z = −q on the loaded rows.
            // Bound: 1e-5 of the load. The CFM (E = 1e-9 of W) lets a loaded row
            // sink at E z: ≈ 1e-8 m/s under the 1,000 kg box (2.5 N·s per corner,
            // W_nn ≈ 4), a momentum deficit of ≈ 1e-5 N·s in 9.8 (measured 2e-6
            // relative); on the 1 kg box alone the deficit is 1e-12 of the load.
            if push < 0.01 {
                let weight = g_h * (1.0 + ratio.unwrap_or(0.0));
                assert!(
                    (total - weight).abs() <= 1e-5 * weight,
                    "{name} ({v:?}): ground load {total:.9e} vs weight step {weight:.9e}"
                );
            }
            // Warm from its own solution: no pass beyond the first, and one
            // factorization (the guess's pieces are the solution's, lcp14);
            // measured 3 on the sliding face with Anderson, whose solution
            // holds the sliding radii to its 1.0e-10 residual only (the radius
            // Newton's to 1e-12): the record, more fail.
            let (st2, r2) = primal_with(&p, &rows_, Some(&r.z), variant(v));
            assert_eq!(st2, PrimalStatus::Converged, "{name} ({v:?}): warm");
            assert_eq!(r2.stats.passes, 1, "{name} ({v:?}): warm passes");
            // With the guess test (`guess_test`, lcp30): the solution meets
            // the tolerance (asserted above), so the warm solve ends at it
            // with no pass and no factorization, the guess returned as it is.
            let tested = PrimalParams {
                guess_test: true,
                ..variant(v)
            };
            let (st3, r3) = primal_with(&p, &rows_, Some(&r.z), tested);
            assert_eq!(st3, PrimalStatus::Converged, "{name} ({v:?}): tested");
            assert_eq!(
                (
                    r3.stats.passes,
                    r3.stats.factorizations,
                    r3.stats.guess_converged
                ),
                (0, 0, r3.stats.islands),
                "{name} ({v:?}): tested {:?}",
                r3.stats
            );
            // The guess returned as projected onto the cones: a sliding
            // point's friction, consistent with its radius to the residual
            // only (measured 1.0e-10 outside its k-gon), moves by at most
            // the natural map's residual, which contains that distance.
            let gap =
                r3.z.iter()
                    .zip(&r.z)
                    .fold(0.0_f64, |g, (x, y)| g.max((x - y).abs()));
            assert!(gap <= TOL, "{name} ({v:?}): guess moved by {gap:.3e}");
            let most = if matches!(v, Variant::Anderson | Variant::Soft) && push > 0.01 {
                3
            } else {
                1
            };
            assert!(
                r2.stats.factorizations <= most,
                "{name} ({v:?}): warm {:?}",
                r2.stats
            );
            eprintln!(
                "{name} ({v:?}): warm passes {}, factorizations {}",
                r2.stats.passes, r2.stats.factorizations
            );
        }
    }
}

/// The line search by the sorted breakpoints (lcp16, `LineSearch::Breakpoints`,
/// the default) against the bracketed Newton search on `f'(α)` (lcp13,
/// `LineSearch::Bracketed`) on one problem: with `line_search_check` every
/// Newton step also runs the bracketed search from the same iterate; the
/// largest relative difference of α over the steps, and the two solves' end
/// states (each with its own search throughout). Returns (Newton steps
/// compared, largest α difference, largest |z_b − z_a| / max |z_a|, and both
/// runs' stats).
fn compare_line_searches(
    p: &ContactProblem,
    rows: &BodyRows,
    guess: Option<&[f64]>,
    base: PrimalParams,
) -> (usize, f64, f64, PrimalStatus, PrimalResults, PrimalResults) {
    // Returns the largest α difference relative to the check's bound
    // (`PrimalStats::line_search_alpha_excess`, ≤ 1: within 1e-12 relative, or
    // within the bracketed search's own stop and f'(α)'s round-off floor).
    let (sb, rb) = primal_with(
        p,
        rows,
        guess,
        PrimalParams {
            line_search: LineSearch::Breakpoints,
            line_search_check: true,
            ..base
        },
    );
    let (sa, ra) = primal_with(
        p,
        rows,
        guess,
        PrimalParams {
            line_search: LineSearch::Bracketed,
            ..base
        },
    );
    assert_eq!(sa, sb, "the two searches end differently");
    let scale = ra.z.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
    let dz =
        ra.z.iter()
            .zip(&rb.z)
            .fold(0.0_f64, |a, (x, y)| a.max((x - y).abs()))
            / scale.max(f64::MIN_POSITIVE);
    (
        rb.stats.line_search_checks,
        rb.stats.line_search_alpha_excess,
        dz,
        sb,
        ra,
        rb,
    )
}

/// The breakpoint line search finds the bracketed search's α: on the 60 random
/// problems (under Anderson and the radius Newton), at every Newton step, α
/// agrees to 1e-12 relative, or within the bracketed search's own precision
/// where that is coarser: it stops at `|f'| ≤ 1e-13 |f'(0)|` (α within 1e-13
/// |f'(0)|/f''(α), wide where the stiff rows of `f'(0)` have released at α),
/// and no search places the zero better than the round-off of `f'(α)`'s terms,
/// `8 ε S / f''` (S their magnitude, with the rounding of `u(α)` amplified by
/// `1/e` in `z* = Π(−E⁻¹u)`: `PrimalStats::line_search_alpha_excess` ≤ 1); and the solves
/// end with the same impulses to 1e-10 of the largest. The steps where the
/// breakpoint search's `|f'(α)|` is the smaller are counted (both are the zero
/// of the same continuous, piecewise linear `f'(α)`).
/// The evaluations of `f'(α)` per Newton step are printed (one per step by the
/// breakpoints: the refining evaluation).
#[test]
#[ignore = "lcp16, not met yet: on some steps α differs from the bracketed search's by up to 5e1 times the bound (random case 1, the landing pile); LineSearch::Breakpoints stays opt-in"]
fn breakpoint_line_search_random() {
    for v in [Variant::Anderson, Variant::RadiusNewton] {
        let mut rng = Rng::new(13);
        let (mut steps, mut worst_a, mut worst_z) = (0, 0.0_f64, 0.0_f64);
        let (mut ev_a, mut ev_b, mut it_a, mut it_b) = (0, 0, 0, 0);
        let (mut above, mut worst_rel, mut closer) = (0, 0.0_f64, 0);
        for case in 0..60 {
            let nb = 1 + case % 6;
            let np = 1 + (case * 7) % 14;
            let b = random_bodies(&mut rng, nb, np);
            let (p, rows) = b.problems(4 + 4 * (case as u32 % 2));
            let (n, da, dz, st, ra, rb) = compare_line_searches(&p, &rows, None, variant(v));
            steps += n;
            worst_a = worst_a.max(da);
            ev_a += ra.stats.line_search_evaluations;
            ev_b += rb.stats.line_search_evaluations;
            it_a += ra.stats.iterations;
            it_b += rb.stats.iterations;
            above += rb.stats.line_search_checks_above;
            closer += rb.stats.line_search_checks_closer;
            worst_rel = worst_rel.max(rb.stats.line_search_alpha_diff);
            assert!(
                da <= 1.0,
                "case {case} ({v:?}): α differs by {da:.3e} of the bound ({:?})",
                rb.stats
            );
            if st == PrimalStatus::Converged {
                worst_z = worst_z.max(dz);
                assert!(dz <= 1e-10, "case {case} ({v:?}): z differs by {dz:.3e}");
            }
        }
        eprintln!(
            "random ({v:?}): {steps} Newton steps compared, largest relative α difference \
             {worst_rel:.3e} ({above} above 1e-12; |f'| no larger at the breakpoints' α in \
             {closer}), largest over the bound {worst_a:.3e}; \
             largest z difference {worst_z:.3e}; Newton steps bracketed {it_a} / breakpoints \
             {it_b}, f'(α) evaluations {ev_a} / {ev_b}"
        );
        assert!(steps > 100, "too few steps compared: {steps}");
    }
}

/// A whole primal solve's problem written by `RTPHYS_PRIMAL_DUMP`
/// (`pipeline::lcp::solve`, lcp16): the bodies' rows as the pipeline built
/// them, W rebuilt here as `G M⁻¹ Gᵀ + diag(cfm)` in the blocks of points
/// sharing a body, and the warm start the pipeline gave the solver.
fn dumped_problem(name: &str) -> (ContactProblem, BodyRows, Option<Vec<f64>>, f64) {
    let path = format!("{}/tests/data/primal/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("dump present");
    let v: serde_json::Value = serde_json::from_str(&text).expect("dump is JSON");
    let floats = |x: &serde_json::Value| -> Vec<f64> {
        x.as_array()
            .expect("array")
            .iter()
            .map(|x| x.as_f64().expect("number"))
            .collect()
    };
    let ints = |x: &serde_json::Value| -> Vec<u64> {
        x.as_array()
            .expect("array")
            .iter()
            .map(|x| x.as_u64().expect("index"))
            .collect()
    };
    let m6s = |key: &str| -> Vec<M6> {
        v[key]
            .as_array()
            .expect("matrices")
            .iter()
            .map(|m| M6::from_column_slice(&floats(m)))
            .collect()
    };
    let mu = floats(&v["mu"]);
    let body: Vec<[u32; 2]> = v["body"]
        .as_array()
        .expect("body")
        .iter()
        .map(|b| {
            let b = ints(b);
            [b[0] as u32, b[1] as u32]
        })
        .collect();
    let jac: Vec<[[f64; 18]; 2]> = v["jac"]
        .as_array()
        .expect("jac")
        .iter()
        .map(|j| {
            let j = j.as_array().expect("sides");
            let mut out = [[0.0; 18]; 2];
            for s in 0..2 {
                out[s].copy_from_slice(&floats(&j[s]));
            }
            out
        })
        .collect();
    let cfm: Vec<[f64; 3]> = v["cfm"]
        .as_array()
        .expect("cfm")
        .iter()
        .map(|c| {
            let c = floats(c);
            [c[0], c[1], c[2]]
        })
        .collect();
    let rows = BodyRows {
        mass: m6s("mass"),
        minv: m6s("minv"),
        body,
        jac,
        cfm,
        ok: v["ok"]
            .as_array()
            .expect("ok")
            .iter()
            .map(|b| b.as_bool().expect("bool"))
            .collect(),
    };
    let p = ContactProblem {
        row_start: vec![0],
        table: PolygonTable::new(v["k"].as_u64().expect("k") as u32),
        order: ints(&v["order"]).into_iter().map(|i| i as u32).collect(),
        island_start: ints(&v["island_start"])
            .into_iter()
            .map(|i| i as usize)
            .collect(),
        q: floats(&v["q"]),
        mu,
        ..Default::default()
    };
    // W whole from the rows (`G M⁻¹ Gᵀ + E`).
    let p = with_full_w(&p, &rows);
    let guess = v["guess"].as_array().map(|_| floats(&v["guess"]));
    let tol = v["tolerance"].as_f64().expect("tolerance");
    (p, rows, guess, tol)
}

/// The breakpoint line search on the pipeline's own problems (`RTPHYS_PRIMAL_DUMP`
/// from `rtphys bench --method lcp --lcp-solver primal --scenes pile20
/// --no-quality --quick`, the resting pile's solves, and stack5's): at every
/// Newton step α agrees with the bracketed search's to 1e-12 relative (or
/// within its own stopping precision, as on the random problems), and the
/// solves end with the same impulses to 1e-10 of the largest. The solver runs
/// as the pipeline runs it (its parameters, the warm start, the stall switch).
#[test]
#[ignore = "lcp16, not met yet: on some steps α differs from the bracketed search's by up to 2e1 times the bound (pile20_land_0700); LineSearch::Breakpoints stays opt-in"]
fn breakpoint_line_search_scenes() {
    let names = dump_names();
    let (mut steps, mut worst_a, mut worst_z) = (0, 0.0_f64, 0.0_f64);
    for name in &names {
        let (p, rows, guess, tol) = dumped_problem(name);
        let base = PrimalParams {
            tolerance: tol,
            ..PrimalParams::default()
        };
        let (n, da, dz, st, ra, rb) = compare_line_searches(&p, &rows, guess.as_deref(), base);
        eprintln!(
            "{name}: {} points, {} islands, {st:?}; {n} Newton steps compared, α difference \
             {:.3e} relative ({} above 1e-12, |f'| no larger at the breakpoints' α in {}), \
             {da:.3e} of the bound, z difference {dz:.3e}; \
             bracketed {:?} / breakpoints {:?}",
            p.n(),
            p.island_start.len() - 1,
            rb.stats.line_search_alpha_diff,
            rb.stats.line_search_checks_above,
            rb.stats.line_search_checks_closer,
            ra.stats,
            rb.stats
        );
        steps += n;
        worst_a = worst_a.max(da);
        assert!(da <= 1.0, "{name}: α differs by {da:.3e} of the bound");
        if st == PrimalStatus::Converged {
            worst_z = worst_z.max(dz);
            assert!(dz <= 1e-10, "{name}: z differs by {dz:.3e}");
        }
    }
    eprintln!("scenes: {steps} Newton steps compared, largest α difference {worst_a:.3e}, largest z difference {worst_z:.3e}");
}

/// The largest difference of the contact velocities `G M⁻¹ Gᵀ z` of two
/// impulse vectors, and the largest of the first's.
fn velocity_gap(rows: &BodyRows, za: &[f64], zb: &[f64]) -> (f64, f64) {
    let (va, vb) = (
        contact_velocity_rows(rows, za),
        contact_velocity_rows(rows, zb),
    );
    let largest = va.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
    let diff = va
        .iter()
        .zip(&vb)
        .fold(0.0_f64, |a, (x, y)| a.max((x - y).abs()));
    (diff, largest)
}

/// The contact velocities' changes `G M⁻¹ Gᵀ z` of a body-space problem
/// (from its rows: per point, the sum over its sides of `J M⁻¹ Σ Jᵀ z`).
fn contact_velocity_rows(rows: &BodyRows, z: &[f64]) -> Vec<f64> {
    let nb = rows.mass.len();
    let mut f = vec![[0.0_f64; 6]; nb];
    for (i, sides) in rows.body.iter().enumerate() {
        for (s, &b) in sides.iter().enumerate() {
            if b == NO_BODY {
                continue;
            }
            let j = &rows.jac[i][s];
            for c in 0..6 {
                f[b as usize][c] += (0..3).map(|a| j[6 * a + c] * z[3 * i + a]).sum::<f64>();
            }
        }
    }
    let dv: Vec<[f64; 6]> = f
        .iter()
        .enumerate()
        .map(|(b, fb)| {
            let m = &rows.minv[b];
            let mut out = [0.0; 6];
            for (r, o) in out.iter_mut().enumerate() {
                *o = (0..6).map(|c| m[(r, c)] * fb[c]).sum();
            }
            out
        })
        .collect();
    let mut w = vec![0.0; z.len()];
    for (i, sides) in rows.body.iter().enumerate() {
        for (s, &b) in sides.iter().enumerate() {
            if b == NO_BODY {
                continue;
            }
            let j = &rows.jac[i][s];
            for a in 0..3 {
                w[3 * i + a] += (0..6)
                    .map(|c| j[6 * a + c] * dv[b as usize][c])
                    .sum::<f64>();
            }
        }
    }
    w
}

/// The committed scene dumps (pile20 resting and landing, stack5 resting),
/// warm as the pipeline solves them, with the default and with the soft
/// identification (lcp17) at the start of every inner run: both converge to
/// the pipeline's tolerance and their contact velocities `G M⁻¹ Gᵀ z` agree
/// within 1e-8 m/s (relative above 1 m/s, as `random_problems` compares the
/// primal and Newton solutions; the impulses on dependent rows may differ: their
/// split is set by the path's centres, as between the primal and Newton
/// solutions). Prints both solves' counters (docs/BENCHMARKS.md, lcp17).
#[test]
fn soft_identification_scenes() {
    let names = dump_names();
    let mut worst = 0.0_f64;
    for name in &names {
        let (p, rows, guess, tol) = dumped_problem(name);
        let base = PrimalParams {
            tolerance: tol,
            ..PrimalParams::default()
        };
        let soft = PrimalParams {
            soft_proximal: SOFT_RHO,
            soft_after: 0,
            ..base
        };
        let (sa, ra) = primal_with(&p, &rows, guess.as_deref(), base);
        let (sb, rb) = primal_with(&p, &rows, guess.as_deref(), soft);
        let (diff, largest) = velocity_gap(&rows, &ra.z, &rb.z);
        // As `random_problems` compares with Newton: relative to the largest
        // velocity change, absolute below 1 m/s.
        let d = diff / largest.max(1.0);
        let count = |r: &PrimalResults| {
            format!(
                "{} Newton steps ({} soft in {} runs, {} kept), {} factorizations, {} passes, {} f'(α) evaluations",
                r.stats.iterations,
                r.stats.soft_iterations,
                r.stats.soft_runs,
                r.stats.soft_kept,
                r.stats.factorizations,
                r.stats.passes,
                r.stats.line_search_evaluations
            )
        };
        eprintln!(
            "{name}: {} points, {} islands; default {sa:?}: {}; soft {sb:?}: {}; contact velocities \
             {diff:.3e} m/s apart (largest {largest:.3e} m/s)",
            p.n(),
            p.island_start.len() - 1,
            count(&ra),
            count(&rb)
        );
        assert_eq!(sa, PrimalStatus::Converged, "{name}: default");
        assert_eq!(sb, PrimalStatus::Converged, "{name}: soft");
        assert!(residual(&p, &rb.z) <= tol, "{name}: soft residual");
        assert!(d <= 1e-8, "{name}: contact velocities {diff:.3e} m/s apart");
        worst = worst.max(d);
    }
    eprintln!("scenes: contact velocities at most {worst:.3e} apart");
}

// ---------------------------------------------------------------------------
// The cone run first (lcp18): the friction cone inside the QP.
// ---------------------------------------------------------------------------

/// Largest `|w_t|` over the points (`w = W z + q`): zero where every point
/// sticks (and every separating point has no tangential velocity), the case in
/// which the cone QP's KKT point is the LCP's solution.
fn largest_tangent_velocity(p: &ContactProblem, z: &[f64]) -> f64 {
    let mut out = 0.0_f64;
    for i in 0..p.n() {
        let mut w = [p.q[3 * i + 1], p.q[3 * i + 2]];
        for b in p.row_start[i]..p.row_start[i + 1] {
            let l = p.col[b] as usize;
            for (r, wr) in w.iter_mut().enumerate() {
                *wr += (0..3)
                    .map(|c| p.w[b][3 * (r + 1) + c] * z[3 * l + c])
                    .sum::<f64>();
            }
        }
        out = out.max(w[0].abs()).max(w[1].abs());
    }
    out
}

/// `|G Δν_a − G Δν_b|` relative to the largest (absolute below 1 m/s), as
/// `random_problems` compares.
fn velocity_difference(b: &Bodies, za: &[f64], zb: &[f64]) -> f64 {
    let (va, vb) = (b.contact_velocity(za), b.contact_velocity(zb));
    let scale = vb.iter().fold(1.0_f64, |a, x| a.max(x.abs()));
    va.iter()
        .zip(&vb)
        .fold(0.0_f64, |a, (x, y)| a.max((x - y).abs()))
        / scale
}

/// The cone run's parameters: the default's, with the cone run first and
/// without the early stop (as `variant`), and the bracketed line search in the
/// passes as lcp18 measured the option (with the search at the loading kinks,
/// lcp29's default, `cone_first_equals_lemke_with_sliding` fails on 5 of the
/// 60 random problems instead of 4: case 43 too; the option stays off).
fn cone_params() -> PrimalParams {
    PrimalParams {
        cone_first: true,
        ..bracketed(variant(Variant::Anderson))
    }
}

/// The weighted projection onto the polyhedral cone against a brute-force
/// minimization: the nearest point (in the E-norm) over every combination of
/// one to three of the cone's generators `(1, μ d_j)` with non-negative
/// coefficients (each a least-squares problem, solved densely) and the apex.
/// Every piece (inside, a face, an edge, the apex) is hit and agrees to 1e-12
/// (relative to |y|) on 4,000 random points for k = 4 and k = 8, μ in
/// [0.05, 2], E over three decades.
#[test]
fn cone_projection_matches_brute_force() {
    use rtphys::solver::primal::{project_cone_weighted, Tangent};
    let mut rng = Rng::new(18);
    let mut hits = [0usize; 4];
    let mut worst = 0.0_f64;
    for case in 0..4000 {
        let k: u32 = if case % 2 == 0 { 4 } else { 8 };
        let table = PolygonTable::new(k);
        let mu = rng.uniform(0.05, 2.0);
        let e = [
            10f64.powf(rng.uniform(-1.5, 1.5)),
            10f64.powf(rng.uniform(-1.5, 1.5)),
            10f64.powf(rng.uniform(-1.5, 1.5)),
        ];
        let y = [
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.5, 1.5),
            rng.uniform(-1.5, 1.5),
        ];
        let (z, on, piece) = project_cone_weighted(y, mu, &e, &table);
        let slot = match (on, piece) {
            (true, Tangent::Stick) => 0,
            (_, Tangent::ConeFace(..)) => 1,
            (_, Tangent::ConeRay(..)) => 2,
            (false, Tangent::Fixed) => 3,
            other => panic!("case {case}: piece {other:?}"),
        };
        hits[slot] += 1;
        // Brute force.
        let gens: Vec<[f64; 3]> = (0..k)
            .map(|j| {
                let a = std::f64::consts::TAU * j as f64 / k as f64;
                [1.0, mu * a.cos(), mu * a.sin()]
            })
            .collect();
        let dot = |a: &[f64; 3], b: &[f64; 3]| {
            e[0] * a[0] * b[0] + e[1] * a[1] * b[1] + e[2] * a[2] * b[2]
        };
        let dist = |p: &[f64; 3]| {
            let d = [p[0] - y[0], p[1] - y[1], p[2] - y[2]];
            dot(&d, &d)
        };
        let (mut best, mut bz) = (dist(&[0.0; 3]), [0.0; 3]);
        let kk = k as usize;
        let mut subsets: Vec<Vec<usize>> = Vec::new();
        for a in 0..kk {
            subsets.push(vec![a]);
            for b in a + 1..kk {
                subsets.push(vec![a, b]);
                for c in b + 1..kk {
                    subsets.push(vec![a, b, c]);
                }
            }
        }
        for s in &subsets {
            let m = s.len();
            let mut g = nalgebra::DMatrix::<f64>::zeros(m, m);
            let mut r = nalgebra::DVector::<f64>::zeros(m);
            for (a, &ga) in s.iter().enumerate() {
                r[a] = dot(&gens[ga], &y);
                for (b, &gb) in s.iter().enumerate() {
                    g[(a, b)] = dot(&gens[ga], &gens[gb]);
                }
            }
            let Some(beta) = g.lu().solve(&r) else {
                continue;
            };
            if beta.iter().any(|&x| x < 0.0) {
                continue;
            }
            let mut p = [0.0; 3];
            for (a, &ga) in s.iter().enumerate() {
                for c in 0..3 {
                    p[c] += beta[a] * gens[ga][c];
                }
            }
            let d = dist(&p);
            if d < best {
                best = d;
                bz = p;
            }
        }
        let scale = y.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
        let diff = (0..3).fold(0.0_f64, |a, c| a.max((z[c] - bz[c]).abs())) / scale;
        worst = worst.max(diff);
        assert!(
            diff <= 1e-12,
            "case {case} (k {k}, μ {mu}, e {e:?}, y {y:?}): {z:?} against brute force {bz:?}"
        );
    }
    eprintln!(
        "cone projection: inside {}, face {}, edge {}, apex {}; worst {worst:.3e}",
        hits[0], hits[1], hits[2], hits[3]
    );
    assert!(hits.iter().all(|&h| h > 50), "pieces hit: {hits:?}");
}

/// Random problems whose Lemke solution (the Stewart–Trinkle LCP) sticks
/// everywhere (μ in [2, 4]; `|w_t| ≤ 1e-12` on every point: 15 of the first
/// 60, so 150 are drawn):
/// the cone run alone finishes every island (no pass) and its contact
/// velocities equal Lemke's to 1e-8 (relative above 1 m/s, as
/// `random_problems`).
#[test]
fn cone_run_equals_lemke_where_all_stick() {
    let mut rng = Rng::new(1818);
    let (mut used, mut worst) = (0, 0.0_f64);
    for case in 0..150 {
        let nb = 1 + case % 6;
        let np = 1 + (case * 7) % 14;
        let mut b = random_bodies(&mut rng, nb, np);
        for mu in &mut b.mu {
            *mu = rng.uniform(2.0, 4.0);
        }
        let (p, rows) = b.problems(4 + 4 * (case as u32 % 2));
        let Some(zl) = common::lemke_contacts(&p) else {
            continue;
        };
        if largest_tangent_velocity(&p, &zl) > 1e-12 {
            continue;
        }
        let (st, r) = primal_with(&p, &rows, None, cone_params());
        assert_eq!(st, PrimalStatus::Converged, "case {case}: {:?}", r.stats);
        assert_eq!(
            (r.stats.cone_converged, r.stats.passes),
            (r.stats.islands, 0),
            "case {case}: the cone run did not finish every island: {:?}",
            r.stats
        );
        let d = velocity_difference(&b, &r.z, &zl);
        assert!(d <= 1e-8, "case {case}: |G Δν_cone − G Δν_lemke| = {d:.3e}");
        worst = worst.max(d);
        used += 1;
    }
    eprintln!(
        "cone run, all sticking: {used} problems, worst relative difference from Lemke {worst:.3e}"
    );
    assert!(used >= 20, "only {used} all-sticking problems");
}

/// The 60 random problems of `random_problems` (μ in [0.1, 0.8], sliding
/// points) with the cone run first: the combined solver (the cone run, then
/// the passes from its impulses where it does not meet the LCP's residual)
/// converges on as many as the default (at most 4 unconverged) and its contact
/// velocities equal Lemke's to 1e-8 where Lemke solves. Solved to a residual
/// of 1e-10 here: at the pipeline's 1e-9 case 23 is 1.07e-8 from Lemke (the
/// default, no cone run, 9.5e-9): the velocities are the residual's times the
/// problem's conditioning, so the comparison is made a decade inside it.
#[test]
fn cone_first_equals_lemke_with_sliding() {
    let mut rng = Rng::new(13);
    let (mut compared, mut worst, mut finished, mut islands) = (0, 0.0_f64, 0, 0);
    let mut failed = Vec::new();
    for case in 0..60 {
        let nb = 1 + case % 6;
        let np = 1 + (case * 7) % 14;
        let b = random_bodies(&mut rng, nb, np);
        let (p, rows) = b.problems(4 + 4 * (case as u32 % 2));
        let params = PrimalParams {
            tolerance: 0.1 * TOL,
            ..cone_params()
        };
        let (st, r) = primal_with(&p, &rows, None, params);
        finished += r.stats.cone_converged;
        islands += r.stats.islands;
        if st != PrimalStatus::Converged {
            eprintln!("case {case}: cone first {st:?} {:?}", r.stats);
            failed.push(case);
            continue;
        }
        assert!(residual(&p, &r.z) <= 0.1 * TOL, "case {case}: residual");
        if let Some(zl) = common::lemke_contacts(&p) {
            let d = velocity_difference(&b, &r.z, &zl);

            assert!(d <= 1e-8, "case {case}: |G Δν_cone − G Δν_lemke| = {d:.3e}");
            worst = worst.max(d);
            compared += 1;
        }
    }
    eprintln!(
        "cone first, random: {} converged, {compared} compared with Lemke (worst {worst:.3e}); \
         the cone run finished {finished} of {islands} islands; failed {failed:?}",
        60 - failed.len()
    );
    assert!(failed.len() <= 4, "cone first failed on {failed:?}");
}

/// The committed scene dumps (as `soft_identification_scenes`), warm, with the
/// cone run first: every island converges, both solutions meet the LCP's
/// residual (recomputed here), and the counters of both are printed
/// (docs/BENCHMARKS.md, lcp18): which islands the cone run finishes and with
/// how many Newton steps. The contact velocities are compared in
/// `cone_first_scenes_same_velocities`.
#[test]
fn cone_first_scenes() {
    cone_scenes(false);
}

/// As `cone_first_scenes`, and the contact velocities of the two solutions
/// within 1e-8 m/s (relative above 1 m/s). Not met on one dump: on
/// `pile20_rest_6106` both solutions meet the 1e-9 residual and their contact
/// velocities are 3.26e-3 m/s apart (two solutions of the LCP at its
/// tolerance, the cone run's finishing 3 of the 6 islands); 9.6e-12 – 1.4e-10
/// on the other five.
#[test]
#[ignore = "lcp18, not met: pile20_rest_6106's two solutions (default, cone first) both meet the 1e-9 residual with contact velocities 3.26e-3 m/s apart"]
fn cone_first_scenes_same_velocities() {
    cone_scenes(true);
}

fn cone_scenes(same_velocities: bool) {
    let names = dump_names();
    let mut worst = 0.0_f64;
    for name in &names {
        let (p, rows, guess, tol) = dumped_problem(name);
        let base = PrimalParams {
            tolerance: tol,
            ..PrimalParams::default()
        };
        let cone = PrimalParams {
            cone_first: true,
            ..base
        };
        let (sa, ra) = primal_with(&p, &rows, guess.as_deref(), base);
        let (sb, rb) = primal_with(&p, &rows, guess.as_deref(), cone);
        // The cone run skipped on islands whose guess slides.
        let skip = PrimalParams {
            cone_skip_sliding: true,
            ..cone
        };
        let (sc, rc) = primal_with(&p, &rows, guess.as_deref(), skip);
        assert_eq!(
            sc,
            PrimalStatus::Converged,
            "{name}: cone first, skipping sliding islands"
        );
        assert!(
            residual(&p, &rc.z) <= tol,
            "{name}: cone-first (skip) residual"
        );
        eprintln!(
            "{name}: skipping the islands whose guess slides: {} Newton steps ({} in the cone \
             run), cone run on {} islands, finished {}",
            rc.stats.iterations,
            rc.stats.cone_iterations,
            rc.stats.cone_runs,
            rc.stats.cone_converged
        );
        let (diff, largest) = velocity_gap(&rows, &ra.z, &rb.z);
        let d = diff / largest.max(1.0);
        eprintln!(
            "{name}: {} points, {} islands; default {sa:?}: {} Newton steps, {} factorizations, \
             {} passes; cone first {sb:?}: {} Newton steps ({} in the cone run), {} \
             factorizations, {} passes, cone run finished {} of {} islands; contact velocities \
             {diff:.3e} m/s apart",
            p.n(),
            p.island_start.len() - 1,
            ra.stats.iterations,
            ra.stats.factorizations,
            ra.stats.passes,
            rb.stats.iterations,
            rb.stats.cone_iterations,
            rb.stats.factorizations,
            rb.stats.passes,
            rb.stats.cone_converged,
            rb.stats.cone_runs,
        );
        assert_eq!(sa, PrimalStatus::Converged, "{name}: default");
        assert_eq!(sb, PrimalStatus::Converged, "{name}: cone first");
        assert!(residual(&p, &ra.z) <= tol, "{name}: default residual");
        assert!(residual(&p, &rb.z) <= tol, "{name}: cone-first residual");
        if same_velocities {
            assert!(d <= 1e-8, "{name}: contact velocities {diff:.3e} m/s apart");
        }
        worst = worst.max(d);
    }
    eprintln!("scenes, cone first: contact velocities at most {worst:.3e} apart");
}

// ---------------------------------------------------------------------------
// The factor in part (lcp28): bit for bit the full factorization.
// ---------------------------------------------------------------------------

/// `PrimalParams::partial_factor` (on by default) against the full
/// factorization at every change of pieces, on the 60 random problems (cold)
/// and the scene dumps of `tests/data/primal` (with their warm guesses): the
/// same status, Newton steps, factorizations and passes, and bit-identical
/// impulses and residuals. The bound is equality, not a tolerance: the partial
/// factorization re-assembles and re-eliminates the affected block columns
/// with the same operations in the same order (`solver::primal`, "The factor
/// in part"), so any difference is a bug. The test also asserts that the
/// partial path ran and took fewer block updates than the full factorizations
/// it stood in for (else it would compare the full path with itself).
/// A named problem with its guess and tolerance.
type Case = (String, ContactProblem, BodyRows, Option<Vec<f64>>, f64);

/// The scene dumps of `tests/data/primal` (at least 4), sorted by name.
fn dump_names() -> Vec<String> {
    let dir = format!("{}/tests/data/primal", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/data/primal")
        .map(|e| e.expect("entry").file_name().into_string().expect("name"))
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    assert!(names.len() >= 4, "dumps: {names:?}");
    names
}

/// The 60 random problems (cold, tolerance 1e-9) and the scene dumps of
/// `tests/data/primal` (with their guesses and tolerances).
fn random_and_scene_cases() -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    let mut rng = Rng::new(13);
    for case in 0..60 {
        let (_, p, rows) = random_case(&mut rng, case);
        cases.push((format!("random {case}"), p, rows, None, TOL));
    }
    let names = dump_names();
    for name in names {
        let (p, rows, guess, tol) = dumped_problem(&name);
        cases.push((name, p, rows, guess, tol));
    }
    cases
}

/// Every case of [`random_and_scene_cases`] solved with the default
/// parameters (at the case's tolerance) and with `vary` of them; asserts the
/// same status. Per case: the case, the status, the default's and the
/// variant's results.
fn default_and_variant(
    vary: impl Fn(PrimalParams) -> PrimalParams,
) -> Vec<(Case, PrimalStatus, PrimalResults, PrimalResults)> {
    base_and_variant(|p| p, vary)
}

/// [`default_and_variant`] with `base` of the default parameters in its place.
fn base_and_variant(
    base: impl Fn(PrimalParams) -> PrimalParams,
    vary: impl Fn(PrimalParams) -> PrimalParams,
) -> Vec<(Case, PrimalStatus, PrimalResults, PrimalResults)> {
    let mut out = Vec::new();
    for case in random_and_scene_cases() {
        let (name, p, rows, guess, tol) = &case;
        let base = base(PrimalParams {
            tolerance: *tol,
            ..PrimalParams::default()
        });
        let (sa, ra) = primal_with(p, rows, guess.as_deref(), base);
        let (sb, rb) = primal_with(p, rows, guess.as_deref(), vary(base));
        assert_eq!(sa, sb, "{name}: status");
        out.push((case, sa, ra, rb));
    }
    out
}

#[test]
fn partial_factorization_is_the_full_one() {
    let solved = default_and_variant(|p| PrimalParams {
        partial_factor: false,
        ..p
    });
    let (mut partial, mut factorizations, mut done, mut full) = (0, 0, 0, 0);
    for ((name, ..), _, ra, rb) in &solved {
        let counts =
            |r: &PrimalResults| (r.stats.iterations, r.stats.factorizations, r.stats.passes);
        assert_eq!(
            counts(ra),
            counts(rb),
            "{name}: (Newton steps, factorizations, passes)"
        );
        assert_eq!(rb.stats.partial_factorizations, 0, "{name}: off");
        assert!(
            ra.z.iter()
                .zip(&rb.z)
                .all(|(x, y)| x.to_bits() == y.to_bits()),
            "{name}: impulses differ"
        );
        assert_eq!(
            ra.stats.residual.to_bits(),
            rb.stats.residual.to_bits(),
            "{name}: residual"
        );
        partial += ra.stats.partial_factorizations;
        factorizations += ra.stats.factorizations;
        done += ra.stats.partial_block_updates;
        full += ra.stats.partial_block_updates_full;
    }
    eprintln!(
        "{} problems: {partial} of {factorizations} factorizations in part, {done} of the {full} \
         block updates of the full ones",
        solved.len()
    );
    assert!(partial > 0, "the partial path never ran");
    assert!(done < full, "no block update saved: {done} of {full}");
}

/// The bracketed line search (lcp13; the default before lcp29).
fn bracketed(p: PrimalParams) -> PrimalParams {
    PrimalParams {
        line_search: LineSearch::Bracketed,
        ..p
    }
}

/// `vary`'s solves of the random and scene problems against the bracketed
/// line search's ([`bracketed`] of the default parameters):
/// the same status, and where both converge the residual within the tolerance
/// and the contact velocities `G M⁻¹ Gᵀ z` within 1e-8 (relative to the
/// largest, absolute below 1 m/s) — the bound of `random_problems` and
/// `soft_identification_scenes`: both meet the 1e-9 residual, so their
/// velocities agree to about that, and the split of a load over dependent rows
/// is not compared. Returns the line search's evaluations of the bracketed search and
/// of the variant, and the largest velocity difference.
fn same_solutions(vary: impl Fn(PrimalParams) -> PrimalParams) -> (usize, usize, f64) {
    same_solutions_from(bracketed, vary)
}

/// [`same_solutions`] against `base` of the default parameters instead of the
/// bracketed search.
fn same_solutions_from(
    base: impl Fn(PrimalParams) -> PrimalParams,
    vary: impl Fn(PrimalParams) -> PrimalParams,
) -> (usize, usize, f64) {
    let solved = base_and_variant(base, vary);
    let (mut eval_a, mut eval_b, mut worst) = (0, 0, 0.0_f64);
    for ((name, p, rows, _, tol), sa, ra, rb) in &solved {
        eval_a += ra.stats.line_search_evaluations;
        eval_b += rb.stats.line_search_evaluations;
        if *sa != PrimalStatus::Converged {
            continue;
        }
        assert!(residual(p, &rb.z) <= *tol, "{name}: residual");
        let (diff, largest) = velocity_gap(rows, &ra.z, &rb.z);
        let d = diff / largest.max(1.0);
        assert!(d <= 1e-8, "{name}: contact velocities {diff:.3e} apart");
        worst = worst.max(d);
    }
    (eval_a, eval_b, worst)
}

/// `PrimalParams::kink_start` (opt-in, lcp28): the bracketed line search from
/// the first loading kink instead of α = 1, on the random and scene problems
/// ([`same_solutions`]). Reports the line search's evaluations.
#[test]
fn kink_start_solves_the_same_problems() {
    let (a, b, worst) = same_solutions(|p| PrimalParams {
        kink_start: true,
        ..bracketed(p)
    });
    eprintln!(
        "line-search evaluations {a} from α = 1, {b} from the first loading kink; contact \
         velocities at most {worst:.3e} apart"
    );
}

/// `LineSearch::Kinks` (lcp29, "The line search at the loading kinks") against
/// the bracketed search on the random and scene problems ([`same_solutions`]),
/// and fewer evaluations of `f'(α)` in all (the change's purpose; lcp28's
/// `kink_start` took 3 % more here). Reports the evaluations and the
/// `line_search_check` figures against the bracketed search's α.
#[test]
fn kinks_line_search_solves_the_same_problems() {
    let kinks = |p: PrimalParams| PrimalParams {
        line_search: LineSearch::Kinks,
        ..p
    };
    let (a, b, worst) = same_solutions(kinks);
    // The check's figures, reported (not bounded: as lcp16's breakpoint search
    // against the bracketed one, a few steps' α differ by more than the
    // bracketed search's own precision, where either may end off the zero).
    let (mut steps, mut above, mut largest) = (0, 0, 0.0_f64);
    for (_, p, rows, guess, tol) in random_and_scene_cases() {
        let params = PrimalParams {
            tolerance: tol,
            line_search_check: true,
            ..kinks(PrimalParams::default())
        };
        let (_, r) = primal_with(&p, &rows, guess.as_deref(), params);
        steps += r.stats.line_search_checks;
        above += usize::from(r.stats.line_search_alpha_excess > 1.0);
        largest = largest.max(r.stats.line_search_alpha_excess);
    }
    eprintln!(
        "line-search evaluations {a} bracketed, {b} at the kinks; contact velocities at most \
         {worst:.3e} apart; {steps} Newton steps checked, α off the bracketed search's bound \
         in {above} problems (at most {largest:.2e} of it)"
    );
    assert!(b < a, "no fewer evaluations: {b} against {a}");
}

/// The kinks' search's list of the loading kinks alone (lcp30, `Line::load_list`,
/// the default: the normal rows loading, the tangent pairs entering the k-gon
/// or an edge's slab from a vertex's wedge) against lcp29's list of every
/// breakpoint (`full_kink_list`) on the random and scene problems
/// ([`same_solutions_from`]: the same status, the residual, contact
/// velocities within 1e-8). Reports the evaluations, and random case 51 by
/// list, with and without Newton on the radii (lcp29: a list of the k-gon's
/// entries alone changed its status both ways).
#[test]
fn load_list_solves_the_same_problems() {
    let full = |p: PrimalParams| PrimalParams {
        full_kink_list: true,
        ..p
    };
    let (a, b, worst) = same_solutions_from(full, |p| PrimalParams {
        full_kink_list: false,
        ..p
    });
    let cases = random_and_scene_cases();
    let (name, p, rows, _, _) = &cases[51];
    for newton in [false, true] {
        let base = if newton {
            variant(Variant::RadiusNewton)
        } else {
            PrimalParams {
                tolerance: TOL,
                ..PrimalParams::default()
            }
        };
        for (label, params) in [
            ("bracketed", bracketed(base)),
            ("full list", full(base)),
            ("loading kinks", base),
        ] {
            let (st, r) = primal_with(p, rows, None, params);
            eprintln!(
                "{name}, radius Newton {newton}, {label}: {st:?}, residual {:.3e}, Newton steps \
                 {}, factorizations {}, passes {}, evaluations {}",
                residual(p, &r.z),
                r.stats.iterations,
                r.stats.factorizations,
                r.stats.passes,
                r.stats.line_search_evaluations
            );
        }
    }
    eprintln!(
        "line-search evaluations {a} with the full list, {b} with the loading kinks; contact \
         velocities at most {worst:.3e} apart"
    );
}

/// `PrimalParams::guess_memo` (lcp31): the guess is tested only
/// where it is the last solve's converged answer at the same index and `q`
/// moved by less than that solve's margin to the tolerance. On the random and
/// scene problems, one results buffer per problem (as the pipeline keeps
/// one): (1) a first solve has no memo, so nothing is tested and the result
/// is bit for bit the memo-off solve's; (2) the same problem again from that
/// answer: every island tested is converged at the guess (exact: the same z,
/// q and W give the same residual, ≤ the tolerance), with no pass and no
/// factorization when all are; (3) with every normal row's q moved by twice
/// the tolerance no island is tested (the margin `r₀ + |Δq| ≤ tol` fails)
/// and the result is bit for bit the memo-off solve's from the same guess.
#[test]
fn guess_memo_tests_only_the_repeated_solve() {
    let off = |p: PrimalParams| PrimalParams {
        guess_memo: false,
        ..p
    };
    let same = |a: &PrimalResults, b: &PrimalResults| {
        a.z.iter()
            .zip(&b.z)
            .all(|(x, y)| x.to_bits() == y.to_bits())
    };
    let (mut tested, mut ended, mut islands) = (0, 0, 0);
    for (name, p, rows, guess, tol) in random_and_scene_cases() {
        let params = PrimalParams {
            tolerance: tol,
            guess_memo: true,
            ..PrimalParams::default()
        };
        let solver = PrimalSolver::new(params);
        let mut r = PrimalResults::default();
        let st = solver.solve_contacts(&p, &rows, guess.as_deref(), &mut r);
        let (st_off, r_off) = primal_with(&p, &rows, guess.as_deref(), off(params));
        assert_eq!(st, st_off, "{name}: first solve's status");
        assert_eq!(r.stats.guess_tested, 0, "{name}: first solve tested");
        assert!(
            same(&r, &r_off),
            "{name}: first solve differs from memo off"
        );
        // (2) The same problem from its answer.
        let answer = r.z.clone();
        let converged = r.island_solved.iter().filter(|&&s| s).count();
        let st2 = solver.solve_contacts(&p, &rows, Some(&answer), &mut r);
        assert_eq!(
            r.stats.guess_converged, r.stats.guess_tested,
            "{name}: an island tested was not converged at the guess"
        );
        assert!(
            r.stats.guess_tested <= converged,
            "{name}: tested {} of {converged} converged islands",
            r.stats.guess_tested
        );
        if r.stats.guess_tested == r.stats.islands {
            assert_eq!(st2, PrimalStatus::Converged, "{name}: repeat status");
            assert_eq!(
                (r.stats.passes, r.stats.factorizations),
                (0, 0),
                "{name}: repeat"
            );
            assert!(residual(&p, &r.z) <= tol, "{name}: repeat residual");
        }
        tested += r.stats.guess_tested;
        ended += r.stats.guess_converged;
        islands += converged;
        // (3) q moved past the margin: nothing tested, the memo-off answer.
        let answer2 = r.z.clone();
        let mut moved = p.clone();
        for i in 0..moved.n() {
            moved.q[3 * i] += 2.0 * tol;
        }
        let st3 = solver.solve_contacts(&moved, &rows, Some(&answer2), &mut r);
        let (st3_off, r3_off) = primal_with(&moved, &rows, Some(&answer2), off(params));
        assert_eq!(r.stats.guess_tested, 0, "{name}: moved q tested");
        assert_eq!(st3, st3_off, "{name}: moved q status");
        assert!(same(&r, &r3_off), "{name}: moved q differs from memo off");
    }
    eprintln!(
        "repeat solves: {tested} islands tested at the guess, {ended} ended there, of {islands} \
         converged before"
    );
    assert!(tested > 0, "the memo never matched");
}

/// The count's levers kept as options (lcp31): the block step on the full
/// step's pieces (`block_pieces`) and the ρ continuation per pass
/// (`rho_start`) against the default on the random and scene problems: no
/// problem the default converges is left unconverged by the lever, and where
/// both converge the lever's impulses meet the tolerance; the block step's
/// contact velocities agree within 1e-8 (the bound of
/// [`same_solutions_from`]: both meet the 1e-9 residual). The ρ
/// continuation's are reported, not bounded: random 23's are 1.18e-8 apart
/// (both answers meet the 1e-9 residual; one reason it stays opt-in). The
/// problems only the lever converges are reported (the ρ continuation ends
/// random 51, where the default stalls at 7.0e-6, lcp30), as are the Newton
/// steps.
#[test]
fn count_levers_solve_the_same_problems() {
    type Vary = fn(PrimalParams) -> PrimalParams;
    let block: Vary = |p| PrimalParams {
        block_pieces: true,
        ..p
    };
    let rho: Vary = |p| PrimalParams {
        rho_start: 1e-4,
        rho_ratio: 0.1,
        ..p
    };
    for (label, vary, bounded) in [
        ("block step", block, true),
        ("ρ continuation 1e-4 × 0.1", rho, false),
    ] {
        let (mut a, mut b, mut worst, mut better) = (0, 0, 0.0_f64, Vec::new());
        for (name, p, rows, guess, tol) in random_and_scene_cases() {
            let base = PrimalParams {
                tolerance: tol,
                ..PrimalParams::default()
            };
            let (sa, ra) = primal_with(&p, &rows, guess.as_deref(), base);
            let (sb, rb) = primal_with(&p, &rows, guess.as_deref(), vary(base));
            a += ra.stats.iterations;
            b += rb.stats.iterations;
            if sa != PrimalStatus::Converged {
                if sb == PrimalStatus::Converged {
                    assert!(residual(&p, &rb.z) <= tol, "{name} ({label}): residual");
                    better.push(name);
                }
                continue;
            }
            assert_eq!(sb, PrimalStatus::Converged, "{name} ({label}): status");
            assert!(residual(&p, &rb.z) <= tol, "{name} ({label}): residual");
            let (diff, largest) = velocity_gap(&rows, &ra.z, &rb.z);
            let d = diff / largest.max(1.0);
            assert!(
                !bounded || d <= 1e-8,
                "{name} ({label}): contact velocities {diff:.3e} apart"
            );
            worst = worst.max(d);
        }
        eprintln!(
            "{label}: Newton steps {a} default, {b} with it; contact velocities at most \
             {worst:.3e} apart; converged by it only: {better:?}"
        );
    }
}

/// The passes' fixed point accelerated (lcp32): Anderson on the radii
/// (memory 3, the default), Anderson with the safeguard (`anderson_safeguard`: a
/// pass whose radii's fixed-point residual did not fall takes the plain
/// update), the first pass's radii at the warm minimizer (`warm_radii`, on
/// the dumps' guesses), the first pass's radii scaled by 1e3
/// (`first_radii_scale`) on every point, and on the points resting at their
/// limit (`first_radii_resting`), each against the plain passes (`anderson` 1: `r ←
/// μ p_n` between passes) on the random and scene problems. The fixed point
/// is the LCP's solution whatever the iteration, so where the plain passes
/// converge a variant converges (except random 41 and 51, which the default
/// Anderson itself leaves unconverged on this set: listed, not hidden) and
/// meets the tolerance (the LCP's natural-map residual, 1e-9 or the dump's);
/// and it is the same solution: solved again by both at τ/10, the contact
/// velocities `G M⁻¹ Gᵀ z` are within 1e-8 (relative to the largest,
/// absolute below 1 m/s; the bound of `random_problems`). At τ itself two
/// answers that both meet it are up to 2.8e-8 apart on this set (the
/// tolerance's own spread, the default against the plain passes), so the
/// comparison is made where the spread is 10× smaller; problems that do not
/// converge at τ/10 (round-off) are listed and not compared.
#[test]
fn accelerated_passes_reach_the_plain_solution() {
    type Vary = fn(PrimalParams) -> PrimalParams;
    let plain: Vary = |p| PrimalParams {
        anderson: 1,
        first_radii_scale: 1.0,
        first_radii_resting: 0.0,
        ..p
    };
    let anderson: Vary = |p| PrimalParams {
        first_radii_scale: 1.0,
        first_radii_resting: 0.0,
        ..p
    };
    let resting: Vary = |p| PrimalParams {
        first_radii_scale: 1e3,
        first_radii_resting: 1.0,
        ..p
    };
    let guarded: Vary = |p| PrimalParams {
        anderson_safeguard: true,
        first_radii_scale: 1.0,
        first_radii_resting: 0.0,
        ..p
    };
    let warm: Vary = |p| PrimalParams {
        warm_radii: true,
        first_radii_scale: 1.0,
        first_radii_resting: 0.0,
        ..p
    };
    let stick: Vary = |p| PrimalParams {
        first_radii_scale: 1e3,
        first_radii_resting: 0.0,
        ..p
    };
    let cases = random_and_scene_cases();
    let unconverged_by_default = ["random 41", "random 51"];
    for (label, vary) in [
        ("Anderson 3", anderson),
        ("Anderson 3, safeguarded", guarded),
        ("warm radii", warm),
        ("first radii x1e3", stick),
        ("resting points sticking first", resting),
    ] {
        let (mut a, mut b, mut pa, mut pb, mut worst) = (0, 0, 0, 0, 0.0_f64);
        let (mut better, mut lost, mut apart) = (Vec::new(), Vec::new(), Vec::new());
        let (mut untight, mut at_tol) = (Vec::new(), 0.0_f64);
        for (name, p, rows, guess, tol) in &cases {
            let base = PrimalParams {
                tolerance: *tol,
                guess_memo: false,
                ..PrimalParams::default()
            };
            let (sa, ra) = primal_with(p, rows, guess.as_deref(), plain(base));
            let (sb, rb) = primal_with(p, rows, guess.as_deref(), vary(base));
            (a, b) = (a + ra.stats.iterations, b + rb.stats.iterations);
            (pa, pb) = (pa + ra.stats.passes, pb + rb.stats.passes);
            if sa != PrimalStatus::Converged {
                if sb == PrimalStatus::Converged {
                    assert!(residual(p, &rb.z) <= *tol, "{name} ({label}): residual");
                    better.push(name.clone());
                }
                continue;
            }
            if sb != PrimalStatus::Converged {
                assert!(
                    unconverged_by_default.contains(&name.as_str()),
                    "{name} ({label}): status"
                );
                lost.push(name.clone());
                continue;
            }
            assert!(residual(p, &rb.z) <= *tol, "{name} ({label}): residual");
            let (diff, largest) = velocity_gap(rows, &ra.z, &rb.z);
            at_tol = at_tol.max(diff / largest.max(1.0));
            // The same solution: both at a 10× tighter tolerance (at τ the
            // velocities of two answers meeting it are up to 2.8e-8 apart on
            // this set, the tolerance's own spread).
            let tight = |v: PrimalParams| PrimalParams {
                tolerance: 0.1 * tol,
                ..v
            };
            let (sta, rta) = primal_with(p, rows, guess.as_deref(), tight(plain(base)));
            let (stb, rtb) = primal_with(p, rows, guess.as_deref(), tight(vary(base)));
            if sta != PrimalStatus::Converged || stb != PrimalStatus::Converged {
                untight.push(name.clone());
                continue;
            }
            let (diff, largest) = velocity_gap(rows, &rta.z, &rtb.z);
            let db = diff / largest.max(1.0);
            if db > 1e-8 {
                apart.push((name.clone(), db));
            }
            assert!(
                db <= 1e-8,
                "{name} ({label}): contact velocities {diff:.3e} apart at τ/10"
            );
            worst = worst.max(db);
        }
        eprintln!(
            "{label}: Newton steps {a} plain, {b} with it; passes {pa}, {pb}; contact velocities \
             at most {worst:.3e} apart at τ/10 ({at_tol:.3e} at τ); converged by it only: {better:?}; by the \
             plain passes only: {lost:?}; not converged at τ/10 (not compared): {untight:?}; \
             past 1e-8: {apart:?}"
        );
    }
}
