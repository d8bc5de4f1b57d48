//! Kinematics of everything attached to a robot: the world pose and twist of each
//! link proxy (the rigid body the collision pipeline and the contact models see,
//! its frame at the link's centre of mass) and of each named frame, from the
//! robots' generalized state (q, q̇).
//!
//! Conventions are those of [`crate::dynamics`]: `x_base[i] = ⁱX_0 = (E, r)` with
//! E mapping world to link coordinates and r the link origin in the world; link
//! spatial velocities `[ω; v]` in link coordinates. These are caches of (q, q̇): the
//! step poses them at its end, and again at its start only if (q, q̇) changed in
//! between ([`link_states_if_moved`]); [`crate::data::Data::reset`] after a reset.

use crate::data::{BodyState, RobotData};
use crate::dynamics::{forward_velocity, ArticulatedData};
use crate::math::{Quat, Vec3};
use crate::model::robot::RobotModel;
use crate::model::Model;
use nalgebra::Rotation3;

/// World pose and twist of every link proxy at the robots' state (q, v) (all robots,
/// flat as in `Data::qpos`/`qvel`). A frozen robot is still posed (its velocity is
/// zero).
pub fn link_states(
    model: &Model,
    robots: &mut [RobotData],
    q: &[f64],
    v: &[f64],
    state: &mut [BodyState],
) {
    pose_links(model, robots, (q, v), state, false);
}

/// [`link_states`] for the robots whose (q, v) moved since their last posing: a
/// robot whose kinematic caches are still those of this bit-identical (q, v)
/// (the end-of-step [`link_states`] of the previous tick, with nothing in between
/// touching its q or q̇) keeps its link proxies as that call left them in `state`.
/// The start-of-step positions stage (`pipeline::outline`) calls this; whoever
/// writes a link proxy's `state` without changing (q, q̇) must call
/// [`link_states`] instead.
pub fn link_states_if_moved(
    model: &Model,
    robots: &mut [RobotData],
    q: &[f64],
    v: &[f64],
    state: &mut [BodyState],
) {
    pose_links(model, robots, (q, v), state, true);
}

/// [`link_states`] (`only_moved` false) and [`link_states_if_moved`] (true).
fn pose_links(
    model: &Model,
    robots: &mut [RobotData],
    (q, v): (&[f64], &[f64]),
    state: &mut [BodyState],
    only_moved: bool,
) {
    for (r, rd) in model.robots.iter().zip(robots.iter_mut()) {
        let (qr, vr) = robot_slices(r, q, v);
        if only_moved && rd.ad.kin.twists_at(qr, vr) {
            continue;
        }
        // Forward kinematics and link velocities.
        if forward_velocity(&r.tree, &mut rd.ad, qr, vr).is_err() {
            continue;
        }
        for (i, b) in r.link_body.iter().enumerate() {
            let Some(b) = *b else { continue };
            state[b] = proxy_state(r, &rd.ad, i);
        }
    }
}

/// World pose and twist (velocity of the frame origin, angular velocity) of frame
/// `f` of robot `r`, from the kinematics of the last evaluation (after a step: the
/// end-of-step state).
pub fn frame_state(model: &Model, robots: &[RobotData], r: usize, f: usize) -> BodyState {
    let fr = &model.robots[r].frames[f];
    attached_state(
        &robots[r].ad,
        fr.link,
        &fr.pose.translation.vector,
        Some(&fr.pose.rotation),
    )
}

/// Robot `r`'s slices of the flat (q, v).
#[inline]
pub(crate) fn robot_slices<'a>(
    r: &RobotModel,
    q: &'a [f64],
    v: &'a [f64],
) -> (&'a [f64], &'a [f64]) {
    (
        &q[r.q_offset..r.q_offset + r.nq()],
        &v[r.v_offset..r.v_offset + r.nv()],
    )
}

/// The proxy state of link `i` (frame at its centre of mass, link axes).
#[inline]
fn proxy_state(r: &RobotModel, ad: &ArticulatedData, i: usize) -> BodyState {
    attached_state(ad, i, &r.tree.inertia()[i].com, None)
}

/// World pose and twist of a frame fixed to link `i` at `offset` (link frame) with
/// orientation `rot` relative to the link (`None`: the link's axes, without a
/// product by the identity), from the kinematics in `ad` (`x_base`, `v`): the
/// velocity is that of the frame's origin.
#[inline]
fn attached_state(ad: &ArticulatedData, i: usize, offset: &Vec3, rot: Option<&Quat>) -> BodyState {
    let x = &ad.x_base[i];
    let r = x.rot.transpose(); // link → world
    let p = r * offset;
    let w = r * ad.v[i].ang;
    let q_link = Quat::from_rotation_matrix(&Rotation3::from_matrix_unchecked(r));
    BodyState {
        x: x.trans + p,
        q: match rot {
            Some(rot) => q_link * rot,
            None => q_link,
        },
        v: r * ad.v[i].lin + w.cross(&p),
        w,
    }
}
