//! The classical deepest-point penalty method with 000's PID law (the paper's
//! baseline, Fig. 1): the whole restoring force acts at the single point of deepest
//! penetration, eq. (3) with r = 1.

use super::{pid_at, ContactModel, PairContext, PidGains, PointForce, SelectScratch};

pub struct DeepestPoint;

impl ContactModel for DeepestPoint {
    fn name(&self) -> &'static str {
        "deepest_point"
    }

    /// The deepest point alone.
    fn candidates(&self, ctx: &PairContext, _scratch: &mut SelectScratch, out: &mut Vec<u32>) {
        out.clear();
        if ctx.deepest < ctx.points.len() {
            out.push(ctx.deepest as u32);
        }
    }

    fn forces_at(
        &self,
        ctx: &PairContext,
        gains: &PidGains,
        candidates: &[u32],
        out: &mut Vec<PointForce>,
    ) {
        pid_at(ctx, gains, candidates, out);
    }
}
