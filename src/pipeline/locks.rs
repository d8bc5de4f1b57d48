//! Locked degrees of freedom (`model::Locks`) after any method's step: the
//! projection that makes locks usable by every method.
//!
//! The LCP step zeroes the locked rows and columns of M⁻¹ and of ν_f, so its
//! locked velocities are exactly 0 and the projection below changes nothing but
//! round-off; the penalty, Hunt–Crossley and IPC steps zero the locked
//! accelerations of Newton–Euler (`bodies::derivatives`), and their impulses and
//! CCD rewinds are projected here. The projection is the mass-orthogonal one for a
//! body whose locked rotation axes are principal (a prism of the planar world:
//! z is principal by the symmetry z ↦ −z).
//!
//! Per locked body, from its start-of-step state s₀ to the stepped state s:
//! - v, ω: locked components set to 0;
//! - x: locked components set back to s₀'s;
//! - q: with rx, ry, rz all locked, q = q₀; with rx and ry locked (the planar
//!   world), q = twist_z(q q₀⁻¹) q₀ renormalized, the rotation about z nearest
//!   the step's (swing–twist decomposition); other combinations keep q
//!   (velocity-level only).

use crate::data::BodyState;
use crate::math::Quat;
use crate::model::{BodyKind, Model};
use nalgebra::Quaternion;

/// Projects the locked bodies of `state` (after a step from `start`).
pub fn project(model: &Model, start: &[BodyState], state: &mut [BodyState]) {
    for (b, body) in model.bodies.iter().enumerate() {
        if body.kind != BodyKind::Free || !body.lock.any() {
            continue;
        }
        let (Some(s0), Some(s)) = (start.get(b), state.get_mut(b)) else {
            continue;
        };
        body.lock.project(&mut s.v, &mut s.w);
        for i in 0..3 {
            if body.lock.0[i] {
                s.x[i] = s0.x[i];
            }
        }
        match (body.lock.0[3], body.lock.0[4], body.lock.0[5]) {
            (true, true, true) => s.q = s0.q,
            (true, true, false) => {
                let d = s.q * s0.q.inverse();
                let (w, z) = (d.w, d.k);
                let n = (w * w + z * z).sqrt();
                if n > 0.0 && n.is_finite() {
                    // Renormalized: the product of two unit quaternions drifts
                    // from |q| = 1 by round-off, and a drift accumulated over the
                    // steps scales the rotation matrices (|ΔL_z| 1e-10 per 1,000
                    // steps before this).
                    let twist = Quaternion::new(w / n, 0.0, 0.0, z / n);
                    s.q = Quat::new_normalize(twist * s0.q.into_inner());
                }
            }
            _ => {}
        }
    }
}
