//! Impacts by impulses and the per-pair contact-phase machine of 000 (Fig. 2).
//!
//! ```text
//!   New ──(s_n < −ε at the centroid)──▶ impulse ──▶ Impact ──(still touching)──▶ Resting
//!    │                                              │  (some points separate, others
//!    └──(s_n ≥ −ε)──────────────▶ Resting            │   approach < −ε: reimpact/bounce)
//!                                   │ ▲              ▼
//!       a third body impacts a or b │ └───────── penalty, whatever s_n
//!       and s_n < −ε ──▶ impulse ◀──┘
//! ```
//! Resting contact stays under the penalty method regardless of its normal velocity,
//! so the velocity threshold ε can be driven close to zero.
//!
//! The impulse (Moore–Wilhelms / Baraff, applied at the centroid c of the contact
//! surface) brings the relative velocity at c to (−e s_n) n with zero tangential
//! part if that lies inside the Coulomb cone; otherwise it slides: j = j_n (n − μ t̂),
//! t̂ the direction of the initial tangential velocity.

use crate::data::BodyState;
use crate::math::{skew, Mat3, Quat, Vec3};

/// Mass properties of one side of an impulse (zero inverses for a static body).
#[derive(Clone, Copy, Debug)]
pub struct ImpulseBody {
    pub inv_mass: f64,
    /// Inverse inertia about the COM, world frame.
    pub inv_inertia_w: Mat3,
}

impl ImpulseBody {
    pub const STATIC: ImpulseBody = ImpulseBody {
        inv_mass: 0.0,
        inv_inertia_w: Mat3::new(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    };
}

/// Impulse on body a at point `c` (body b receives its opposite), for relative
/// velocity `u` (a relative to b) at `c`, normal `n` toward a, restitution `e` and
/// friction `mu`. Returns `None` if the bodies are not approaching.
pub fn impact_impulse(
    a: (&BodyState, &ImpulseBody),
    b: (&BodyState, &ImpulseBody),
    c: &Vec3,
    n: &Vec3,
    e: f64,
    mu: f64,
) -> Option<Vec3> {
    let (sa, ia) = a;
    let (sb, ib) = b;
    let u = sa.velocity_at(c) - sb.velocity_at(c);
    let u_n = n.dot(&u);
    if u_n >= 0.0 {
        return None;
    }
    // Collision matrix K: Δu = K j.
    let (ra, rb) = (skew(&(c - sa.x)), skew(&(c - sb.x)));
    let k = Mat3::identity() * (ia.inv_mass + ib.inv_mass)
        - ra * ia.inv_inertia_w * ra
        - rb * ib.inv_inertia_w * rb;
    // Sticking impulse: target velocity −e u_n along n, zero tangential.
    let target = n * (-e * u_n);
    if let Some(kinv) = k.try_inverse() {
        let j = kinv * (target - u);
        let j_n = n.dot(&j);
        let j_t = j - n * j_n;
        if j_n > 0.0 && j_t.norm() <= mu * j_n {
            return Some(j);
        }
    }
    // Sliding impulse along n − μ t̂.
    let u_t = u - n * u_n;
    let dir = if u_t.norm() > 1e-12 && mu > 0.0 {
        n - u_t.normalize() * mu
    } else {
        *n
    };
    let denom = n.dot(&(k * dir));
    if denom.is_nan() || denom <= 0.0 {
        return None;
    }
    let j_n = -(1.0 + e) * u_n / denom;
    Some(dir * j_n)
}

/// Apply impulse `j` at world point `c` to a body (`sign` +1 for a, −1 for b).
#[inline]
pub fn apply_impulse(s: &mut BodyState, ib: &ImpulseBody, c: &Vec3, j: &Vec3, sign: f64) {
    let j = j * sign;
    s.v += j * ib.inv_mass;
    s.w += ib.inv_inertia_w * (c - s.x).cross(&j);
}

/// Time of impact, within the step, of a speculative contact (000's impact taken in
/// the step its gap closes instead of one step after the overlap): the gap
/// δ = −d ≥ 0 at the impact point closes at the step's discrete approach speed
/// u⁺ = −s⁺ (semi-implicit Euler moves the bodies by h v⁺ in the step), τ = δ/u⁺,
/// clamped to [0, h]. `None` if the gap does not close within the step
/// (δ ≥ h u⁺) — then the contact is left to a later step.
#[inline]
pub fn time_of_closing(gap: f64, s_end: f64, h: f64) -> Option<f64> {
    let u = -s_end;
    // (NaN compares false: no closing.)
    let closes = u > 0.0 && gap < h * u;
    if !closes {
        return None;
    }
    Some((gap.max(0.0) / u).clamp(0.0, h))
}

/// The position part of an impact at time τ inside the step: a body whose velocity
/// the impulses of the step changed by (Δv, Δω) moved with its old velocity until τ
/// and with its new one after, so the step's end pose — the integrator moves it by
/// h times its new velocity from the start — is off by τ (Δv, Δω): the rewind is
/// (Δx, Δθ) = −τ (Δv, Δω) (the exact kinematics of an impact at τ, to first order
/// in the rotation). For a body landing on a fixed surface with restitution e this
/// takes its contact point (1 + e) δ u/u⁺ down (δ the gap at the start of the step,
/// u and u⁺ the approach speed at its start and end): with e = 0 it ends the step at
/// the surface (within g h²) instead of up to h·u⁺ inside it.
#[inline]
pub fn impact_rewind((dv, dw): (Vec3, Vec3), tau: f64) -> [Vec3; 2] {
    [-dv * tau, -dw * tau]
}

/// Moves a body by (Δx, Δθ): its origin by Δx, its orientation by the rotation
/// vector Δθ (world frame, about its origin).
#[inline]
pub fn displace(s: &mut BodyState, [dx, dtheta]: [Vec3; 2]) {
    s.x += dx;
    if dtheta.norm_squared() > 0.0 {
        s.q = Quat::from_scaled_axis(dtheta) * s.q;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(v: Vec3) -> BodyState {
        BodyState {
            x: Vec3::zeros(),
            q: Quat::identity(),
            v,
            w: Vec3::zeros(),
        }
    }

    #[test]
    fn head_on_spheres_conserve_momentum_and_restitution() {
        // Two equal masses along x, e = 0.5: relative velocity reverses with factor e
        // and momentum is conserved exactly.
        let ib = ImpulseBody {
            inv_mass: 0.5,
            inv_inertia_w: Mat3::identity() * 2.0,
        };
        let mut a = body(Vec3::new(-1.0, 0.0, 0.0));
        a.x = Vec3::new(1.0, 0.0, 0.0);
        let mut b = body(Vec3::new(1.0, 0.0, 0.0));
        b.x = Vec3::new(-1.0, 0.0, 0.0);
        let c = Vec3::zeros();
        let n = Vec3::x();
        let j = impact_impulse((&a, &ib), (&b, &ib), &c, &n, 0.5, 0.3).expect("approaching");
        apply_impulse(&mut a, &ib, &c, &j, 1.0);
        apply_impulse(&mut b, &ib, &c, &j, -1.0);
        assert!((a.v.x - b.v.x - 1.0).abs() < 1e-12, "{} {}", a.v.x, b.v.x);
        assert!((a.v + b.v).norm() < 1e-12);
        assert!(a.w.norm() < 1e-12);
    }

    #[test]
    fn oblique_impact_on_ground_respects_coulomb_cone() {
        // A point mass sliding fast onto the ground: sliding impulse with
        // |j_t| = μ j_n and normal velocity −e u_n.
        let ib = ImpulseBody {
            inv_mass: 1.0,
            inv_inertia_w: Mat3::zeros(),
        };
        let mut a = body(Vec3::new(5.0, 0.0, -1.0));
        let c = a.x;
        let j = impact_impulse(
            (&a, &ib),
            (&body(Vec3::zeros()), &ImpulseBody::STATIC),
            &c,
            &Vec3::z(),
            0.0,
            0.2,
        )
        .expect("approaching");
        assert!((j.x.abs() - 0.2 * j.z).abs() < 1e-12);
        apply_impulse(&mut a, &ib, &c, &j, 1.0);
        assert!(a.v.z.abs() < 1e-12);
        assert!((a.v.x - (5.0 - 0.2)).abs() < 1e-12);
    }
}
