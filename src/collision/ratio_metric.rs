//! The ratio metric and the ratio-metric penetration depth of two convex polytopes
//! (Hart / Anitescu–Hart, `001_9bcff55255600a8e.txt`, part "Ratio Metric").
//!
//! # The paper's definitions (slides "Expansion/Contraction Map", "Polyhedral Ratio Metric")
//! - `P = CP(A, b, x_o)`: the polytope `A x ≤ b` with an interior point `x_o`.
//! - Expansion/contraction about `x_o`: `P(x_o, t) = { x | A x ≤ t b + (1 − t) A x_o }`,
//!   the image of `P` under `Γ(x, x_o, t) = t x + (1 − t) x_o`.
//! - Minkowski penetration depth, eq. (1): `PD(P1, P2) = min{ ‖d‖ | interior(P1 + d) ∩ P2 = ∅ }`.
//! - Ratio metric, eq. (2): `r(P1, P2) = min{ t | P1(x1, t) ∩ P2(x2, t) ≠ ∅ }`.
//! - Ratio-metric penetration depth, eq. (3): `ρ(P1, P2, r) = (r − 1) / r`.
//!
//! `r < 1` (ρ < 0): the interiors overlap; `r = 1` (ρ = 0): touching; `r > 1`
//! (0 < ρ < 1): separated. ρ is dimensionless; `|ρ|·D` (D = `‖x1 − x2‖`) is the
//! distance between the witness points below, a length.
//!
//! # The LP (slide "Significance of the Metric Equivalence Theorem": O(m1 + m2))
//! With `β_k = b_k − a_kᵀ x_i > 0` (unit `a_k`, `x_i` interior), eq. (2) is
//! ```text
//! (P)  min t   s.t.   a_kᵀ x − β_k t ≤ a_kᵀ x_i     for the m1 faces of P1 (i = 1)
//!                                                   and the m2 faces of P2 (i = 2)
//! ```
//! over `(x, t) ∈ R⁴` (`t ≥ 0` is implied: a bounded polytope's normals positively
//! span R³). It has `m1 + m2` constraints and 4 variables, so we solve its dual
//! ```text
//! (D)  min Σ_k λ_k a_kᵀ(x_i − o)   s.t.   Σ_k λ_k a_k = 0,   Σ_k λ_k β_k = 1,   λ ≥ 0
//! ```
//! (`o = (x1 + x2)/2`, a shift of the origin for round-off), a standard-form LP with 4
//! rows and `m1 + m2` columns: each simplex pivot costs `O(m1 + m2)`. The optimum of
//! (D) is `−r`; its row multipliers are `(x* − o, −r)`, the optimal point of (P): the
//! common point `x*` of the shrunk/grown bodies `P1(x1, r) ∩ P2(x2, r)`. The optimal
//! `λ` splits into `λ1, λ2` with `A1ᵀλ1 = −A2ᵀλ2`: `n = A1ᵀλ1 / ‖A1ᵀλ1‖` is a normal
//! of a plane through `x*` separating `P1(x1, r)` from `P2(x2, r)`, outward from
//! body 1 toward body 2 (the contact normal). The witness points are `x*` mapped back
//! by `Γ⁻¹`: `p_i = x_i + (x* − x_i)/r` on the boundary of body `i`, and
//! `p1 − p2 = −ρ (x2 − x1)`.
//!
//! # Metric equivalence (slide "Metric Equivalence Theorem", eqs. (4)–(5))
//! The slide states, with `s` the Minkowski depth (or separation), `D = ‖x1 − x2‖` and
//! a constant `ε`, `s/D ≤ ρ ≤ s/ε` for disjoint interiors (4) and `−s/ε ≤ ρ ≤ −s/D`
//! otherwise (5). Writing `K = (P1 − x1) − (P2 − x2)` (a convex body containing the
//! origin) and `d = x2 − x1`, eq. (2) is the gauge `r = γ_K(d)` and `s` is the
//! distance from `d` to the boundary of `K`. With `ε` the radius of a ball about the
//! origin inside `K` — e.g. `ε = ε1 + ε2`, the sum of the bodies' inradii about their
//! interior points ([`RatioBody::inradius`]) — the gauge is `1/ε`-Lipschitz, which gives
//! ```text
//! separated:   s/D ≤  ρ ≤ s/(ε + s)   (≤ s/ε: eq. (4) as stated)
//! overlapping: s/D ≤ −ρ ≤ s/(ε − s)   (for s < ε; eq. (5)'s −s/ε ≤ ρ holds to first order in s/ε)
//! ```
//! and, since `D ≤ R1 + R2` (circumradii about the interior points) when the bodies
//! overlap, `s/(R1+R2) ≤ |ρ| ≤ s/(ε − s)` with constants of the shapes alone.
//! `tests/ratio_metric.rs` checks these bounds against the exact depth of
//! [`super::minkowski`].
//!
//! # Interior points
//! The paper leaves `x_i` free ("an interior point"). [`InteriorPoint::Centroid`] uses the
//! solid's centre of mass; [`InteriorPoint::ChebyshevCentre`] the centre of the largest
//! inscribed ball (an LP), which maximizes `ε_i` and so tightens the upper bound.
//!
//! # Cost
//! [`RatioBody::new`] runs once per shape (allocates). [`ratio_metric`] fills the LP
//! in [`RatioScratch`] and does not allocate once the scratch has seen the largest
//! pair (`RatioScratch::with_capacity`).

use super::{ConvexPolytope, GeometryError};
use crate::math::{Pose, Vec3};
use crate::solver::lp::{LpParams, LpProblem, LpResults, LpSolver, LpStats, LpStatus, RowKind};

/// Which interior point `x_o` of `CP(A, b, x_o)` the bodies shrink about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InteriorPoint {
    /// The centre of mass of the solid (uniform density).
    #[default]
    Centroid,
    /// The centre of the largest inscribed ball.
    ChebyshevCentre,
}

/// A convex polytope in the half-space form `CP(A, b, x_o)`, in its own frame.
#[derive(Debug, Clone, PartialEq)]
pub struct RatioBody {
    /// Outward unit face normals `a_k` (rows of `A`).
    pub normals: Vec<Vec3>,
    /// Face offsets `b_k`, m.
    pub offsets: Vec<f64>,
    /// `β_k = b_k − a_kᵀ x_o > 0`, m: the distance from `x_o` to face `k`'s plane.
    pub beta: Vec<f64>,
    /// The interior point `x_o`, m.
    pub interior: Vec3,
    /// `ε = min_k β_k`, m: the largest ball about `x_o` inside the body.
    pub inradius: f64,
    /// `R = max ‖v − x_o‖` over the vertices, m: the smallest ball about `x_o`
    /// containing the body.
    pub circumradius: f64,
}

impl RatioBody {
    /// Half-space form of `poly` about the chosen interior point. Errors if the
    /// point is not strictly interior (a degenerate polytope).
    pub fn new(poly: &ConvexPolytope, ip: InteriorPoint) -> Result<Self, GeometryError> {
        let normals: Vec<Vec3> = poly.faces.iter().map(|f| f.normal).collect();
        let offsets: Vec<f64> = poly.faces.iter().map(|f| f.offset).collect();
        let interior = match ip {
            InteriorPoint::Centroid => poly.mass_properties(1.0).com,
            InteriorPoint::ChebyshevCentre => chebyshev_centre(&normals, &offsets)?,
        };
        Self::with_interior(poly, interior)
    }

    /// Half-space form of `poly` about a given interior point `x_o` (frame of `poly`).
    pub fn with_interior(poly: &ConvexPolytope, interior: Vec3) -> Result<Self, GeometryError> {
        let normals: Vec<Vec3> = poly.faces.iter().map(|f| f.normal).collect();
        let offsets: Vec<f64> = poly.faces.iter().map(|f| f.offset).collect();
        let beta: Vec<f64> = normals
            .iter()
            .zip(&offsets)
            .map(|(a, b)| b - a.dot(&interior))
            .collect();
        let inradius = beta.iter().copied().fold(f64::INFINITY, f64::min);
        if normals.len() < 4 || !(inradius > 0.0 && inradius.is_finite()) {
            return Err(GeometryError::DegenerateHull(format!(
                "ratio metric: point {interior:?} is not strictly inside the polytope \
                 (smallest face distance {inradius})"
            )));
        }
        let circumradius = poly
            .vertices
            .iter()
            .map(|v| (v - interior).norm())
            .fold(0.0, f64::max);
        Ok(Self {
            normals,
            offsets,
            beta,
            interior,
            inradius,
            circumradius,
        })
    }

    /// Number of half-spaces `m`.
    pub fn m(&self) -> usize {
        self.normals.len()
    }
}

/// Centre of the largest inscribed ball: `max r  s.t.  a_kᵀx + r ≤ b_k`, an LP.
fn chebyshev_centre(normals: &[Vec3], offsets: &[f64]) -> Result<Vec3, GeometryError> {
    let m = normals.len();
    let mut a = Vec::with_capacity(4 * m);
    for n in normals {
        a.extend_from_slice(&[n.x, n.y, n.z, 1.0]);
    }
    let rows = vec![RowKind::Le; m];
    let inf = f64::INFINITY;
    let problem = LpProblem {
        n: 4,
        m,
        c: &[0.0, 0.0, 0.0, -1.0],
        a: &a,
        b: offsets,
        rows: &rows,
        lower: &[-inf, -inf, -inf, 0.0],
        upper: &[inf; 4],
    };
    let mut solver = LpSolver::default();
    let mut res = LpResults::default();
    match solver.solve(&problem, &mut res) {
        LpStatus::Optimal if res.x[3] > 0.0 => Ok(Vec3::new(res.x[0], res.x[1], res.x[2])),
        status => Err(GeometryError::DegenerateHull(format!(
            "ratio metric: no inscribed ball (LP status {status:?})"
        ))),
    }
}

/// Parameters of [`ratio_metric`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RatioParams {
    /// The simplex parameters for the LP (D).
    pub lp: LpParams,
}

/// Reusable buffers: the LP (D) and its solver.
#[derive(Debug, Clone, Default)]
pub struct RatioScratch {
    pub solver: LpSolver,
    a: Vec<f64>,
    c: Vec<f64>,
    rows: Vec<RowKind>,
    lower: Vec<f64>,
    upper: Vec<f64>,
    lp: LpResults,
}

impl RatioScratch {
    /// Buffers sized for pairs with up to `m_total = m1 + m2` faces.
    pub fn with_capacity(m_total: usize, params: &RatioParams) -> Self {
        Self {
            solver: LpSolver::with_capacity(params.lp.clone(), 4, m_total),
            a: Vec::with_capacity(4 * m_total),
            c: Vec::with_capacity(m_total),
            rows: Vec::with_capacity(4),
            lower: Vec::with_capacity(m_total),
            upper: Vec::with_capacity(m_total),
            lp: LpResults {
                x: Vec::with_capacity(m_total),
                y: Vec::with_capacity(4),
                ..LpResults::default()
            },
        }
    }
}

/// The ratio metric of one pair (world frame).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RatioResults {
    /// Status of the LP; the fields below are meaningful only for `Optimal`.
    pub status: LpStatus,
    /// `r(P1, P2)`, eq. (2) (dimensionless, ≥ 0).
    pub ratio: f64,
    /// `ρ = (r − 1)/r`, eq. (3): < 0 overlapping, 0 touching, in (0, 1) separated;
    /// `−∞` if the interior points coincide (`r = 0`).
    pub rho: f64,
    /// Unit contact normal, from body 1 toward body 2 (the plane through `point`
    /// with this normal separates `P1(x1, r)` and `P2(x2, r)`).
    pub normal: Vec3,
    /// `x*`: a common point of `P1(x1, r) ∩ P2(x2, r)`, m.
    pub point: Vec3,
    /// Witness points on the boundaries of body 1 and body 2: `x_i + (x* − x_i)/r`, m.
    pub witness1: Vec3,
    pub witness2: Vec3,
    /// The interior points `x1`, `x2` in the world frame, m.
    pub interior1: Vec3,
    pub interior2: Vec3,
    /// LP counters.
    pub stats: LpStats,
}

/// Ratio metric between `body1` at pose `x_w1` and `body2` at pose `x_w2` (poses of
/// the polytopes' frames in the world). Solves the LP (D) of the module doc; writes
/// and returns `out.status`. Never panics; no allocation once `scratch` is sized.
pub fn ratio_metric(
    body1: &RatioBody,
    x_w1: &Pose,
    body2: &RatioBody,
    x_w2: &Pose,
    params: &RatioParams,
    scratch: &mut RatioScratch,
    out: &mut RatioResults,
) -> LpStatus {
    *out = RatioResults::default();
    let (m1, m2) = (body1.m(), body2.m());
    let m = m1 + m2;
    // Interior points in the world frame and the origin shift o.
    let x1 = x_w1 * nalgebra::Point3::from(body1.interior);
    let x2 = x_w2 * nalgebra::Point3::from(body2.interior);
    let (x1, x2) = (x1.coords, x2.coords);
    let o = (x1 + x2) * 0.5;
    out.interior1 = x1;
    out.interior2 = x2;
    // LP (D): 4 equality rows, columns λ_k ≥ 0 with (a_k; β_k), cost a_kᵀ(x_i − o).
    let s = scratch;
    s.a.clear();
    s.a.resize(4 * m, 0.0);
    s.c.clear();
    s.lower.clear();
    s.lower.resize(m, 0.0);
    s.upper.clear();
    s.upper.resize(m, f64::INFINITY);
    s.rows.clear();
    s.rows.resize(4, RowKind::Eq);
    let mut k = 0;
    for (body, pose, xi) in [(body1, x_w1, x1), (body2, x_w2, x2)] {
        let rel = xi - o;
        for (a_b, beta) in body.normals.iter().zip(&body.beta) {
            let a_w = pose.rotation * a_b;
            s.a[k] = a_w.x;
            s.a[m + k] = a_w.y;
            s.a[2 * m + k] = a_w.z;
            s.a[3 * m + k] = *beta;
            s.c.push(a_w.dot(&rel));
            k += 1;
        }
    }
    let problem = LpProblem {
        n: m,
        m: 4,
        c: &s.c,
        a: &s.a,
        b: &[0.0, 0.0, 0.0, 1.0],
        rows: &s.rows,
        lower: &s.lower,
        upper: &s.upper,
    };
    s.solver.params.clone_from(&params.lp);
    let status = s.solver.solve(&problem, &mut s.lp);
    out.status = status;
    out.stats = s.lp.stats;
    if status != LpStatus::Optimal {
        return status;
    }
    // The optimal point of (P) from the row multipliers: x* = o + y[0..3], r = −y[3].
    let y = &s.lp.y;
    let r = (-y[3]).max(0.0);
    let point = o + Vec3::new(y[0], y[1], y[2]);
    out.ratio = r;
    out.point = point;
    out.rho = if r > 0.0 {
        (r - 1.0) / r
    } else {
        f64::NEG_INFINITY
    };
    if r > 0.0 {
        out.witness1 = x1 + (point - x1) / r;
        out.witness2 = x2 + (point - x2) / r;
    } else {
        out.witness1 = x1;
        out.witness2 = x2;
    }
    // Normal A1ᵀλ1 (outward from body 1), falling back to the centre line.
    let mut n = Vec3::zeros();
    for kk in 0..m1 {
        n += Vec3::new(s.a[kk], s.a[m + kk], s.a[2 * m + kk]) * s.lp.x[kk];
    }
    let len = n.norm();
    let d = x2 - x1;
    out.normal = if len > 1e-12 {
        n / len
    } else if d.norm() > 0.0 {
        d / d.norm()
    } else {
        Vec3::z()
    };
    status
}
