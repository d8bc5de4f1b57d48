//! Explicit integrators over body states: classical RK4 and semi-implicit Euler.
//! Quaternions are integrated as q̇ = ½ (0, ω) ⊗ q (ω in world coordinates) and
//! renormalized.

use crate::data::{BodyState, Deriv};
use crate::math::Quat;
use nalgebra::Quaternion;

/// ½ (0, ω) ⊗ q.
#[inline]
pub fn quat_rate(s: &BodyState) -> Quaternion<f64> {
    Quaternion::from_imag(s.w * 0.5) * s.q.into_inner()
}

/// `s0 + h·k` for one body.
#[inline]
fn euler_point(s0: &BodyState, k: &Deriv, h: f64) -> BodyState {
    BodyState {
        x: s0.x + k.dx * h,
        q: Quat::new_normalize(s0.q.into_inner() + k.dq * h),
        v: s0.v + k.dv * h,
        w: s0.w + k.dw * h,
    }
}

/// Classical RK4. `f(stage, state, out)` writes the derivative at `state`
/// (stage 0 is evaluated at `s0` itself). Bodies with `dynamic[b] == false` are
/// left untouched. The result overwrites `s`.
pub fn rk4(
    h: f64,
    s: &mut [BodyState],
    dynamic: impl Fn(usize) -> bool,
    stage_state: &mut [BodyState],
    k: &mut [Vec<Deriv>; 4],
    mut f: impl FnMut(usize, &[BodyState], &mut [Deriv]),
) {
    let [k1, k2, k3, k4] = k;
    f(0, s, k1);
    for (b, st) in stage_state.iter_mut().enumerate() {
        *st = if dynamic(b) {
            euler_point(&s[b], &k1[b], 0.5 * h)
        } else {
            s[b]
        };
    }
    f(1, stage_state, k2);
    for (b, st) in stage_state.iter_mut().enumerate() {
        *st = if dynamic(b) {
            euler_point(&s[b], &k2[b], 0.5 * h)
        } else {
            s[b]
        };
    }
    f(2, stage_state, k3);
    for (b, st) in stage_state.iter_mut().enumerate() {
        *st = if dynamic(b) {
            euler_point(&s[b], &k3[b], h)
        } else {
            s[b]
        };
    }
    f(3, stage_state, k4);
    let h6 = h / 6.0;
    for (b, sb) in s.iter_mut().enumerate() {
        if !dynamic(b) {
            continue;
        }
        let (a, bb, c, d) = (&k1[b], &k2[b], &k3[b], &k4[b]);
        sb.x += (a.dx + (bb.dx + c.dx) * 2.0 + d.dx) * h6;
        sb.v += (a.dv + (bb.dv + c.dv) * 2.0 + d.dv) * h6;
        sb.w += (a.dw + (bb.dw + c.dw) * 2.0 + d.dw) * h6;
        sb.q = Quat::new_normalize(sb.q.into_inner() + (a.dq + (bb.dq + c.dq) * 2.0 + d.dq) * h6);
    }
}

/// Semi-implicit (symplectic) Euler: v ← v + h v̇, ω ← ω + h ω̇, x ← x + h v,
/// q ← exp(h ω) q (exact rotation over the step).
pub fn semi_implicit_euler(
    h: f64,
    s: &mut [BodyState],
    dynamic: impl Fn(usize) -> bool,
    k: &mut [Deriv],
    mut f: impl FnMut(usize, &[BodyState], &mut [Deriv]),
) {
    f(0, s, k);
    for (b, sb) in s.iter_mut().enumerate() {
        if !dynamic(b) {
            continue;
        }
        sb.v += k[b].dv * h;
        sb.w += k[b].dw * h;
        sb.x += sb.v * h;
        sb.q = Quat::new_normalize((Quat::from_scaled_axis(sb.w * h) * sb.q).into_inner());
    }
}
