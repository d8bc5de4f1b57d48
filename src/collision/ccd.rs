//! Time of impact of two moving convex geoms by conservative advancement
//! (Mirtich's scheme on the GJK distance of [`super::gjk`]): over a sweep
//! t ∈ [0, 1] whose points move at most `bound` (m) in all (the sum, over both
//! geoms, of |Δx| of the origin plus |Δθ| times the geom's radius), the distance
//! d(t) can fall by at most `bound`·Δt, so stepping t ← t + d(t)/`bound` never
//! steps over a contact. Used by the continuous-collision stage of the step
//! (`pipeline::ccd`); allocation-free.

use super::gjk::{separation, Separation};
use super::Shape;
use crate::math::Pose;

/// Advancement steps per query; a sweep still unresolved after them stops where
/// it is (the conservative answer: an impact at the current t).
pub const MAX_ADVANCES: usize = 64;

/// The first contact of a sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Impact {
    /// Fraction of the sweep, [0, 1).
    pub t: f64,
    /// The separation there (distance ≤ `tol`, direction toward geom a).
    pub sep: Separation,
}

/// First t ∈ [0, 1) at which geoms a (pose `pa(t)`) and b (`pb(t)`) come within
/// `tol` (m), or `None` when they stay farther apart over the whole sweep, or
/// already overlap at t = 0 (a contact of the method's own, not a tunnelling).
pub fn time_of_impact(
    sa: &Shape,
    pa: impl Fn(f64) -> Pose,
    sb: &Shape,
    pb: impl Fn(f64) -> Pose,
    bound: f64,
    tol: f64,
) -> Option<Impact> {
    if !(bound.is_finite() && bound > 0.0 && tol > 0.0) {
        return None;
    }
    let mut t = 0.0;
    let mut last = None;
    for _ in 0..MAX_ADVANCES {
        let Some(sep) = separation(sa, &pa(t), sb, &pb(t)) else {
            // Overlap: at the start, not ours; later, the advancement overshot
            // by round-off: the impact is at the last safe t.
            return last.map(|sep| Impact {
                t: prev(t, bound, sep),
                sep,
            });
        };
        if sep.distance < 0.0 && last.is_none() {
            // Overlapping at the start.
            return None;
        }
        if sep.distance <= tol {
            return Some(Impact { t, sep });
        }
        last = Some(sep);
        // Advance to where the distance could first reach tol/2.
        t += (sep.distance - 0.5 * tol) / bound;
        if t >= 1.0 {
            return None;
        }
    }
    last.map(|sep| Impact { t, sep })
}

/// The t of the previous advancement (undo the last step of `time_of_impact`).
fn prev(t: f64, bound: f64, sep: Separation) -> f64 {
    (t - (sep.distance) / bound).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec3;
    use nalgebra::Translation3;

    #[test]
    fn fast_cube_hits_thin_wall() {
        let cube = Shape::cuboid(Vec3::new(0.5, 0.5, 0.5)).expect("box");
        let wall = Shape::cuboid(Vec3::new(0.01, 5.0, 5.0)).expect("wall");
        // The cube's centre goes from x = −5 to x = +5 through a wall at x = 0.
        let pa = |t: f64| {
            Pose::from_parts(
                Translation3::new(-5.0 + 10.0 * t, 0.0, 0.0),
                Default::default(),
            )
        };
        let pb = |_: f64| Pose::identity();
        let hit = time_of_impact(&cube, pa, &wall, pb, 10.0, 1e-4).expect("impact");
        // Contact when the cube's face x = c + 0.5 meets the wall's face x = −0.01.
        let t_exact = (5.0 - 0.51) / 10.0;
        assert!(hit.t <= t_exact && hit.t > t_exact - 2e-5, "{hit:?}");
        assert!((hit.sep.dir + Vec3::x()).norm() < 1e-9);
        // A sweep that stops short has no impact.
        let short = |t: f64| {
            Pose::from_parts(
                Translation3::new(-5.0 + 4.0 * t, 0.0, 0.0),
                Default::default(),
            )
        };
        assert!(time_of_impact(&cube, short, &wall, pb, 4.0, 1e-4).is_none());
    }
}
