//! The Hunt–Crossley visco-elastic contact of 002 (Deguet, Joukhadar, Laugier) §2.2.
//!
//! | paper | code |
//! |---|---|
//! | §2.2: F = −λx − μxẋ (no sticking force at separation, no force jump at impact) | [`normal_force`] |
//! | eq. (5): μ = (3/2) α λ, α = (1 − e)/v_i computed at impact | [`damping_paper`] |
//! | Hunt & Crossley's exact relation behind eq. (5) | [`damping_exact`], [`restitution`] |
//! | §3.3: the interpenetration is the intersection volume | [`interpenetration`] (depth for curved primitives) |
//! | §5: λ from a penetration bound under load | [`crate::model::HuntCrossleyParams::penetration_fraction`] |
//!
//! **The law.** With x the interpenetration measure, δ̇ the normal approach speed at
//! the force point (m/s, > 0 approaching) and c = μ/λ (s/m), the repulsive normal force
//! is F = λ x (1 + c δ̇), clamped at 0: it never pulls. It vanishes with x at first
//! touch and at separation (the damping term is proportional to x), which is the
//! point of Hunt–Crossley's law over Kelvin–Voigt's F = λx + μẋ.
//!
//! **Restitution.** For F = λ xⁿ (1 + c δ̇) in normal impact, m δ̇ dδ̇/dδ = −λ δⁿ(1 + c δ̇),
//! i.e. δ̇ dδ̇/(1 + c δ̇) = −(λ/m) δⁿ dδ; integrated over compression (δ̇: v_in → 0)
//! and restitution (0 → −v_out) the right-hand sides cancel, leaving
//!
//! ```text
//! c v_in − ln(1 + c v_in) = −c v_out − ln(1 − c v_out)        (HC)
//! ```
//!
//! independent of λ, of the mass and of the exponent n (so of whether x is a depth,
//! n = 1, or the volume of a face, edge or corner contact, n = 1, 2, 3). With a = c v_in,
//! (HC) fixes e = v_out/v_in as a function of a alone; its expansion for small a gives
//! a = 3(1 − e)/2 + O((1 − e)²): eq. (5) of 002 is the small-damping limit.
//! [`damping_exact`] inverts (HC) for c given e and v_i; [`restitution`] evaluates it
//! the other way. The relation neglects gravity during the contact (a rest
//! penetration small against the impact penetration).

use crate::collision::volume::{hull_volume, VolumeScratch};
use crate::collision::{ContactPoint, ShapeKind};
use crate::math::Vec3;
use crate::model::DampingRule;

/// Lowest restitution the exact inversion resolves (c ≈ 1/(e v_i) below it), dimensionless.
pub const E_MIN: f64 = 0.01;

/// Which interpenetration measure a pair of shapes uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Intersection volume, m³ (both shapes polytopal: plane, box, polytope).
    Volume,
    /// Penetration depth, m (a sphere, capsule or cylinder is involved: their
    /// manifolds are sampled boundaries, not intersection polytopes).
    Depth,
}

/// The measure of a pair of shape kinds.
pub fn measure_of(a: ShapeKind, b: ShapeKind) -> Measure {
    let polytopal = |k| matches!(k, ShapeKind::Plane | ShapeKind::Box | ShapeKind::Polytope);
    if polytopal(a) && polytopal(b) {
        Measure::Volume
    } else {
        Measure::Depth
    }
}

/// The interpenetration of one manifold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interpenetration {
    /// x: volume (m³) or depth (m).
    pub x: f64,
    /// Where the normal force acts: the volume's centroid, or for a depth pair the
    /// depth-weighted centroid of the manifold points' levers
    /// ([`ContactPoint::lever`]: a sphere's deepest point, on the line through its
    /// centre), world frame.
    pub point: Vec3,
    /// Elastic energy per unit λ, ∫ x dδ: ∫ depth dV (m⁴) for a volume, x²/2 (m²)
    /// for a depth. U = λ · this.
    pub energy_per_lambda: f64,
    /// Largest point depth, m (for reporting).
    pub max_depth: f64,
}

/// The interpenetration of a manifold's points under `measure`.
pub fn interpenetration(
    measure: Measure,
    points: &[ContactPoint],
    scratch: &mut VolumeScratch,
) -> Interpenetration {
    let max_depth = points.iter().map(|p| p.depth).fold(0.0, f64::max);
    let weighted = || {
        let w: f64 = points.iter().map(|p| p.depth).sum();
        if w > 0.0 {
            points
                .iter()
                .fold(Vec3::zeros(), |a, p| a + p.lever * p.depth)
                / w
        } else {
            points.iter().fold(Vec3::zeros(), |a, p| a + p.lever) / points.len().max(1) as f64
        }
    };
    match measure {
        Measure::Depth => Interpenetration {
            x: max_depth,
            point: weighted(),
            energy_per_lambda: 0.5 * max_depth * max_depth,
            max_depth,
        },
        Measure::Volume => {
            let h = hull_volume(points, scratch);
            Interpenetration {
                x: h.volume,
                point: if h.volume > 0.0 {
                    h.centroid
                } else {
                    weighted()
                },
                energy_per_lambda: h.depth_moment.max(0.0),
                max_depth,
            }
        }
    }
}

/// The Hunt–Crossley normal force F = λ x (1 + c δ̇), clamped at 0 (N, repulsive).
/// `approach` is δ̇, the normal approach speed (m/s, > 0 closing).
#[inline]
pub fn normal_force(lambda: f64, x: f64, c: f64, approach: f64) -> f64 {
    (lambda * x * (1.0 + c * approach)).max(0.0)
}

/// c = μ/λ (s/m) for restitution `e` at impact speed `v_i` (m/s, > 0) under `rule`.
pub fn damping(rule: DampingRule, e: f64, v_i: f64) -> f64 {
    match rule {
        DampingRule::Exact => damping_exact(e, v_i),
        DampingRule::Paper => damping_paper(e, v_i),
    }
}

/// Eq. (5) of 002: μ = (3/2) α λ with α = (1 − e)/v_i, so c = 1.5 (1 − e)/v_i.
pub fn damping_paper(e: f64, v_i: f64) -> f64 {
    1.5 * (1.0 - e.clamp(0.0, 1.0)) / v_i
}

/// φ(a) = a − ln(1 + a), accurate for small a.
fn phi(a: f64) -> f64 {
    if a.abs() < 1e-3 {
        // a²/2 − a³/3 + a⁴/4 − a⁵/5 + a⁶/6
        a * a * (0.5 - a * (1.0 / 3.0 - a * (0.25 - a * (0.2 - a / 6.0))))
    } else {
        a - a.ln_1p()
    }
}

/// With 1 − b = e^{−y} (b = c·v_out), ψ(b) = −b − ln(1 − b) = y − b.
fn psi_of_y(y: f64) -> (f64, f64) {
    let b = -(-y).exp_m1();
    let psi = if y < 1e-3 {
        // y − (1 − e^{−y}) = y²/2 − y³/6 + y⁴/24 − y⁵/120
        y * y * (0.5 - y * (1.0 / 6.0 - y * (1.0 / 24.0 - y / 120.0)))
    } else {
        y - b
    };
    (b, psi)
}

/// Bisection for the root of an increasing-at-the-root `f` on (lo, hi] with f(lo) ≤ 0
/// < f(hi), to relative width 1e-15.
fn bisect(mut lo: f64, mut hi: f64, f: impl Fn(f64) -> f64) -> f64 {
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
        if hi - lo <= 1e-15 * hi {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// Exact inversion of (HC): c (s/m) such that an impact at `v_i` (m/s, > 0) rebounds at
/// e·v_i. e = 1 gives 0; e is raised to [`E_MIN`].
///
/// Solved in y = −ln(1 − c v_out) (so that c v_out → 1 for small e stays
/// representable): h(y) = ψ − φ(b/e) with b = 1 − e^{−y} is negative, then increasing
/// through its single positive root (h′ changes sign once, at b = (1 − e²)/(1 + e)),
/// bracketed by doubling and found by bisection.
pub fn damping_exact(e: f64, v_i: f64) -> f64 {
    if e.is_nan() || e >= 1.0 {
        return 0.0;
    }
    let e = e.max(E_MIN);
    let h = |y: f64| {
        let (b, psi) = psi_of_y(y);
        psi - phi(b / e)
    };
    let mut hi = 1.0;
    while h(hi) <= 0.0 && hi < 1e12 {
        hi *= 2.0;
    }
    let y = bisect(0.0, hi, h);
    let b = -(-y).exp_m1();
    (b / e) / v_i
}

/// Restitution achieved by damping `c` (s/m) for an impact at `v_in` (m/s): the
/// forward evaluation of (HC), v_out/v_in.
pub fn restitution(c: f64, v_in: f64) -> f64 {
    let a = c * v_in;
    if a.is_nan() || a <= 0.0 {
        return 1.0;
    }
    let k = phi(a);
    // ψ(b(y)) = y − b(y) is increasing in y.
    let mut hi = 1.0;
    while psi_of_y(hi).1 <= k && hi < 1e12 {
        hi *= 2.0;
    }
    let y = bisect(0.0, hi, |y| psi_of_y(y).1 - k);
    let b = -(-y).exp_m1();
    b / a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_inversion_round_trips() {
        for &e in &[0.05, 0.1, 0.3, 0.5, 0.8, 0.95, 0.999] {
            for &v in &[0.1, 1.0, 7.0] {
                let c = damping_exact(e, v);
                let back = restitution(c, v);
                assert!((back - e).abs() < 1e-9, "e {e} v {v}: c {c} gives {back}");
            }
        }
    }

    #[test]
    fn paper_rule_is_the_small_damping_limit() {
        let (e, v) = (0.999, 2.0);
        let r = damping_exact(e, v) / damping_paper(e, v);
        assert!((r - 1.0).abs() < 2e-3, "ratio {r}");
    }

    #[test]
    fn force_never_pulls() {
        for &approach in &[-100.0, -1.0, 0.0, 1.0] {
            assert!(normal_force(1e6, 1e-3, 5.0, approach) >= 0.0);
        }
        assert_eq!(normal_force(1e6, 0.0, 5.0, 3.0), 0.0);
    }
}
