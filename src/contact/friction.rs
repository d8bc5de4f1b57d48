//! Friction of the penalty family (000 §III-B).
//!
//! - **Sliding**: at each force-carrying point a force of magnitude μ‖f(ψ)‖ opposite
//!   the tangential relative velocity (regularized linearly below `v_stick` so that
//!   it vanishes continuously at rest).
//! - **Sticking**: a tangential spring–damper between the two material points that
//!   coincided where sticking began (the anchor, in the bodies' frames), acting at
//!   the force-weighted centroid of the contact: f_t = −k δ_t − b v_t.
//! - **Transitions** (once per step, [`update_state`]): a sliding pair sticks when
//!   its tangential speed falls below `v_stick`; a sticking pair whose spring would
//!   exceed μ‖f‖ is released to sliding if it moves faster than `v_slip`, and
//!   otherwise its anchor is dragged so that the spring sits on the friction cone
//!   (an elasto-plastic anchor: rounding noise at the exact threshold μ = tan θ
//!   cannot make a block creep).

use super::{PairContext, PointForce};
use crate::data::{PairState, StickAnchor};
use crate::math::Vec3;
use crate::model::FrictionParams;

/// Force-weighted centroid of the force-carrying points and the total normal force.
#[inline]
pub fn centroid(ctx: &PairContext, forces: &[PointForce]) -> Option<(Vec3, f64)> {
    let total: f64 = forces.iter().map(|f| f.f_n).sum();
    if !(total > 0.0) {
        return None;
    }
    let c = forces.iter().fold(Vec3::zeros(), |acc, f| {
        acc + ctx.points[f.point as usize].p_w * f.f_n
    }) / total;
    Some((c, total))
}

#[inline]
fn tangential(n: &Vec3, v: Vec3) -> Vec3 {
    v - n * n.dot(&v)
}

/// World displacement between the anchor's material points, tangential part.
#[inline]
fn anchor_slip(ctx: &PairContext, anchor: &StickAnchor) -> Vec3 {
    let pa = ctx.a.x + ctx.a.q * anchor.p_a_body;
    let pb = ctx.b.x + ctx.b.q * anchor.p_b_body;
    tangential(&ctx.normal, pa - pb)
}

/// Tangential forces on body a (body b takes the opposite), passed to `apply` as
/// (world point, world force).
pub fn tangential_forces(
    fp: &FrictionParams,
    mu: f64,
    ctx: &PairContext,
    forces: &[PointForce],
    anchor: Option<&StickAnchor>,
    mut apply: impl FnMut(Vec3, Vec3),
) {
    if mu <= 0.0 {
        return;
    }
    let Some((c, total)) = centroid(ctx, forces) else {
        return;
    };
    match anchor {
        Some(anchor) => {
            // Sticking: spring–damper at the centroid, limited to the cone.
            let k = fp.k_stick.value(ctx.m_pair);
            let b = fp.b_stick.value(ctx.m_pair);
            let v_t = tangential(&ctx.normal, ctx.a.velocity_at(&c) - ctx.b.velocity_at(&c));
            let mut f = -k * anchor_slip(ctx, anchor) - b * v_t;
            let limit = mu * total;
            let fm = f.norm();
            if fm > limit {
                f *= limit / fm;
            }
            apply(c, f);
        }
        None => {
            // Sliding: Coulomb at each point against its own tangential velocity.
            for pf in forces {
                let p = ctx.points[pf.point as usize].p_w;
                let v_t = tangential(&ctx.normal, ctx.a.velocity_at(&p) - ctx.b.velocity_at(&p));
                let speed = v_t.norm();
                if speed > 0.0 {
                    let scale = (speed / fp.v_stick).min(1.0);
                    apply(p, -(mu * pf.f_n * scale / speed) * v_t);
                }
            }
        }
    }
}

/// Stick/slip transitions of one pair, once per step at the step's start state.
pub fn update_state(
    fp: &FrictionParams,
    mu: f64,
    ctx: &PairContext,
    forces: &[PointForce],
    pair: &mut PairState,
) {
    let Some((c, total)) = centroid(ctx, forces).filter(|_| mu > 0.0) else {
        pair.anchor = None;
        return;
    };
    let v_t = tangential(&ctx.normal, ctx.a.velocity_at(&c) - ctx.b.velocity_at(&c));
    let speed = v_t.norm();
    match pair.anchor {
        None => {
            if speed < fp.v_stick {
                pair.anchor = Some(StickAnchor {
                    p_a_body: ctx.a.q.inverse() * (c - ctx.a.x),
                    p_b_body: ctx.b.q.inverse() * (c - ctx.b.x),
                });
            }
        }
        Some(anchor) => {
            let k = fp.k_stick.value(ctx.m_pair);
            let delta = anchor_slip(ctx, &anchor);
            let limit = mu * total;
            let elastic = k * delta.norm();
            if elastic > limit {
                if speed > fp.v_slip {
                    pair.anchor = None;
                } else {
                    // Drag a's anchor point so that k‖δ‖ = μ‖f‖.
                    let pb = ctx.b.x + ctx.b.q * anchor.p_b_body;
                    let pa_w = ctx.a.x + ctx.a.q * anchor.p_a_body;
                    let normal_part = ctx.normal * ctx.normal.dot(&(pa_w - pb));
                    let new_pa = pb + normal_part + delta * (limit / elastic);
                    pair.anchor = Some(StickAnchor {
                        p_a_body: ctx.a.q.inverse() * (new_pa - ctx.a.x),
                        p_b_body: anchor.p_b_body,
                    });
                }
            }
        }
    }
}
