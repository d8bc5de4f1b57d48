//! Free rigid bodies in the force-model steppers (penalty, Hunt–Crossley):
//! Newton–Euler, world-frame inverse mass properties, and the contact report of a
//! collision pass.

use super::integrator::{self, Deriv};
use super::rotation::Inertia;
use crate::collision::ContactSet;
use crate::contact::impulse::ImpulseBody;
use crate::data::{BodyState, RobotData, StepStats};
use crate::math::Wrench;
use crate::model::{BodyKind, Model};

/// Inverse mass and world-frame inverse inertia of body `b` at `state` (zero for a
/// static or frozen body).
#[inline]
pub(crate) fn impulse_body(
    model: &Model,
    state: &BodyState,
    frozen: &[bool],
    robots: &[RobotData],
    b: usize,
) -> ImpulseBody {
    let body = &model.bodies[b];
    let moves = match body.kind {
        BodyKind::Static => false,
        BodyKind::Free => !frozen[b],
        // A link proxy as the rigid link alone (see `model::robot`).
        BodyKind::Link { robot, link } => {
            !robots[robot as usize].frozen && model.robots[robot as usize].link_moves[link as usize]
        }
    };
    if !moves {
        return ImpulseBody::STATIC;
    }
    let r = state.q.to_rotation_matrix();
    ImpulseBody {
        inv_mass: body.inv_mass,
        inv_inertia_w: r.matrix() * body.inv_inertia * r.matrix().transpose(),
    }
}

/// [`impulse_body`] of every body at `state`, once per force evaluation, except the
/// link proxies no manifold of `set` touches: those are left as
/// [`ImpulseBody::STATIC`] without being computed. Only the contact terms read a
/// link's mass properties (the pair masses, impacts, friction and the implicit
/// rows, all per manifold of the same `set`); Newton–Euler reads the free bodies',
/// which are always computed. A robot without contact thus costs nothing here
/// (issue 18 item 4: 1.9k of the 35k instructions of the arm's contact-free step).
pub(crate) fn body_mass_props(
    model: &Model,
    state: &[BodyState],
    frozen: &[bool],
    robots: &[RobotData],
    set: &ContactSet,
    out: &mut Vec<ImpulseBody>,
) {
    out.clear();
    out.extend(state.iter().enumerate().map(|(b, st)| {
        if model.bodies[b].is_link() {
            ImpulseBody::STATIC
        } else {
            impulse_body(model, st, frozen, robots, b)
        }
    }));
    for m in &set.manifolds {
        for g in [m.geom_a, m.geom_b] {
            let b = model.geoms[g].body;
            if model.bodies[b].is_link() {
                out[b] = impulse_body(model, &state[b], frozen, robots, b);
            }
        }
    }
}

/// Body-frame inertia of body `b` if it is a free body that moves (not frozen):
/// what [`super::integrator::semi_implicit_euler_system`] rotates.
#[inline]
pub(crate) fn free_inertia(model: &Model, frozen: &[bool], b: usize) -> Option<Inertia> {
    let body = &model.bodies[b];
    (body.kind == BodyKind::Free && !frozen[b]).then_some(Inertia {
        i: body.inertia,
        inv: body.inv_inertia,
    })
}

/// Newton–Euler for free bodies: v̇ = F/m + g, ω̇ = I_w⁻¹ (τ − ω × I_w ω) (the
/// gyroscopic term), ẋ = v, q̇ = ½ ω ⊗ q. `bodies`: [`body_mass_props`] at `state` if
/// the caller has them (else the inverse inertias are computed here, identically).
pub(crate) fn derivatives(
    model: &Model,
    state: &[BodyState],
    frozen: &[bool],
    bodies: Option<&[ImpulseBody]>,
    xfrc: &[Wrench],
    contact: &[Wrench],
    out: &mut [Deriv],
) {
    let g = model.opt.gravity;
    for (b, body) in model.bodies.iter().enumerate() {
        if body.kind != BodyKind::Free || frozen[b] {
            out[b] = Deriv::default();
            continue;
        }
        let s = &state[b];
        let force = xfrc[b].force + contact[b].force;
        let torque = xfrc[b].torque + contact[b].torque;
        let r = s.q.to_rotation_matrix();
        let rm = r.matrix();
        let i_w = rm * body.inertia * rm.transpose();
        let i_w_inv = match bodies {
            Some(bs) => bs[b].inv_inertia_w,
            None => rm * body.inv_inertia * rm.transpose(),
        };
        // Locked DoFs (`model::Locks`): the free rotations' inverse inertia.
        let i_w_inv = body.lock.inverse_inertia(&i_w, &i_w_inv);
        let mut dv = force * body.inv_mass + g;
        let mut dw = i_w_inv * (torque - s.w.cross(&(i_w * s.w)));
        // Locked DoFs (`model::Locks`) do not accelerate.
        body.lock.project(&mut dv, &mut dw);
        out[b] = Deriv {
            dx: s.v,
            dq: integrator::quat_rate(s),
            dv,
            dw,
        };
    }
}

/// Contact counts and penetration statistics of a collision pass.
pub(crate) fn report_contacts(set: &ContactSet, stats: &mut StepStats) {
    stats.contact_pairs = set.manifolds.len();
    stats.contact_points = set.points.len();
    let (mut max, mut sum) = (0.0f64, 0.0);
    for m in &set.manifolds {
        // Gap manifolds of a speculative margin (depth < 0) count as 0.
        let d = m.max_depth(set).max(0.0);
        max = max.max(d);
        sum += d;
    }
    stats.max_penetration = max;
    stats.mean_penetration = if set.manifolds.is_empty() {
        0.0
    } else {
        sum / set.manifolds.len() as f64
    };
}
