//! The multi-point PID penalty method of 000 (Drumwright 2008), §III.
//!
//! Equations of 000_48109ab67d5cd76d used here:
//! - (1) ‖f(ψ)‖ = max{kp d(ψ) − kv v(ψ), 0} / r, the PD spring–damper at point ψ,
//!   with d the penetration depth along the contact normal and v the relative
//!   normal velocity (positive when separating);
//! - (2) I = Σ_{i=0}^{t−1} λ^{t−i−1} max_y d(y, i), the integral of the pair's maximum
//!   penetration with forgetting factor λ (kept per pair in `PairState::integral`);
//! - (3) ‖f(ψ)‖ = max{kp d(ψ, t) − kv v(ψ) + ki I, 0} / r.
//!
//! The force acts only at points on the *bottom* of the intersection volume
//! (§III-A, [`super::bottom`]), and r is the number of those points at which the
//! force is non-zero, so adding points does not add force.

use super::bottom::bottom_points;
use super::{pid_at, ContactModel, PairContext, PidGains, PointForce, SelectScratch};

pub struct MultiPoint;

impl ContactModel for MultiPoint {
    fn name(&self) -> &'static str {
        "multi_point"
    }

    /// Points on the bottom of the intersection volume, §III-A.
    fn candidates(&self, ctx: &PairContext, scratch: &mut SelectScratch, out: &mut Vec<u32>) {
        bottom_points(ctx.points, &ctx.normal, scratch, out);
    }

    fn forces_at(
        &self,
        ctx: &PairContext,
        gains: &PidGains,
        candidates: &[u32],
        out: &mut Vec<PointForce>,
    ) {
        let first = out.len();
        // Un-normalized PID force at each bottom point, eq. (3).
        pid_at(ctx, gains, candidates, out);
        share_by_count(&mut out[first..]);
    }
}

/// Eq. (3)'s 1/r: each of the r points with non-zero force takes 1/r of its
/// un-normalized force.
pub(super) fn share_by_count(pf: &mut [PointForce]) {
    let r = pf.len() as f64;
    for p in pf {
        p.f_n /= r;
    }
}
