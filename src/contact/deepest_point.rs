//! The classical deepest-point penalty method with 000's PID law (the paper's
//! baseline, Fig. 1): the whole restoring force acts at the single point of deepest
//! penetration, eq. (3) with r = 1.

use super::{ContactModel, PairContext, PidGains, PointForce, SelectScratch};

pub struct DeepestPoint;

impl ContactModel for DeepestPoint {
    fn name(&self) -> &'static str {
        "deepest_point"
    }

    fn normal_forces(
        &self,
        ctx: &PairContext,
        gains: &PidGains,
        _scratch: &mut SelectScratch,
        out: &mut Vec<PointForce>,
    ) {
        let Some(p) = ctx.points.get(ctx.deepest) else {
            return;
        };
        let f = gains.force(p.depth, ctx.normal_velocity(&p.p_w), ctx.integral);
        if f > 0.0 {
            out.push(PointForce {
                point: ctx.deepest as u32,
                f_n: f,
            });
        }
    }
}
