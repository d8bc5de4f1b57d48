//! The classical deepest-point penalty method with 000's PID law (the paper's
//! baseline, Fig. 1): the whole restoring force acts at the single point of deepest
//! penetration, eq. (3) with r = 1.

use super::{ContactModel, PairContext, PidGains, PointForce, SelectScratch};

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
        for &i in candidates {
            let p = &ctx.points[i as usize];
            let f = gains.force(p.depth, ctx.normal_velocity(&p.p_w), ctx.integral);
            if f > 0.0 {
                out.push(PointForce { point: i, f_n: f });
            }
        }
    }
}
