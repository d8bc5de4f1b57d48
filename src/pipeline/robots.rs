//! The robots' part of a force evaluation (shared by the force-model steppers):
//!
//! 1. [`link_states`]: forward kinematics and link twists at (q, q̇) → the world
//!    pose and twist of every link proxy (frame at the link's centre of mass), so
//!    that the collision pipeline and the contact models see links as rigid bodies;
//! 2. [`derivatives`]: the contact and applied wrenches on the proxies become
//!    external spatial forces on the links (link frame, about the link origin);
//!    joint torques = actuation (command + servo, clamped to the effort limit) +
//!    passive (viscous damping, regularized Coulomb friction, one-sided limit
//!    springs); ABA gives q̈, and q̇(q, v) the configuration rate.
//!
//! Conventions are those of [`crate::dynamics`]: `x_base[i] = ⁱX_0 = (E, r)` with
//! E mapping world to link coordinates and r the link origin in the world; link
//! spatial velocities `[ω; v]` in link coordinates.

use crate::data::{BodyState, ImuReading, RobotData, ServoTarget};
use crate::dynamics::{aba, energy, ExtInputs, ForceVec};
use crate::math::{Quat, Wrench};
use crate::model::robot::{RobotJoint, RobotModel};
use crate::model::Model;
use nalgebra::Rotation3;

/// World pose and twist of every link proxy at the robots' state (q, v) (all robots,
/// flat as in `Data::qpos`/`qvel`). A frozen robot is still posed (its velocity is
/// zero).
pub(crate) fn link_states(
    model: &Model,
    robots: &mut [RobotData],
    q: &[f64],
    v: &[f64],
    state: &mut [BodyState],
) {
    for (r, rd) in model.robots.iter().zip(robots.iter_mut()) {
        let (qr, vr) = robot_slices(r, q, v);
        // Forward kinematics and link velocities (the energies are a by-product).
        if energy(&r.tree, &mut rd.ad, qr, vr).is_err() {
            continue;
        }
        for (i, b) in r.link_body.iter().enumerate() {
            let Some(b) = *b else { continue };
            state[b] = proxy_state(r, &rd.ad, i);
        }
    }
}

/// The proxy state of link `i` from the kinematics in `ad` (x_base, v).
#[inline]
fn proxy_state(r: &RobotModel, ad: &crate::dynamics::ArticulatedData, i: usize) -> BodyState {
    let x = &ad.x_base[i];
    let rot = x.rot.transpose(); // link → world
    let c_w = rot * r.tree.inertia()[i].com;
    let w = rot * ad.v[i].ang;
    let v_o = rot * ad.v[i].lin;
    BodyState {
        x: x.trans + c_w,
        q: Quat::from_rotation_matrix(&Rotation3::from_matrix_unchecked(rot)),
        v: v_o + w.cross(&c_w),
        w,
    }
}

#[inline]
fn robot_slices<'a>(r: &RobotModel, q: &'a [f64], v: &'a [f64]) -> (&'a [f64], &'a [f64]) {
    (
        &q[r.q_offset..r.q_offset + r.nq()],
        &v[r.v_offset..r.v_offset + r.nv()],
    )
}

/// What the first evaluation of a step records (start-of-step values).
pub(crate) struct Record<'a> {
    pub actuator: &'a mut [f64],
    pub passive: &'a mut [f64],
    pub qacc: &'a mut [f64],
}

/// Configuration rate and joint accelerations of every robot at (q, v), with the
/// link proxies at `state` carrying the wrenches `contact[b] + xfrc[b]` (world
/// frame, about the proxy's centre of mass). `kq` (len nq) and `kv` (len nv) are
/// zero for a frozen robot; a failed ABA writes NaN into `kv` for the quarantine to
/// catch. `record`: start-of-step torques, accelerations and sensors.
#[allow(clippy::too_many_arguments)]
pub(crate) fn derivatives(
    model: &Model,
    robots: &mut [RobotData],
    q: &[f64],
    v: &[f64],
    cmd: &[f64],
    state: &[BodyState],
    contact: &[Wrench],
    xfrc: &[Wrench],
    kq: &mut [f64],
    kv: &mut [f64],
    mut record: Option<Record<'_>>,
) {
    for (r, rd) in model.robots.iter().zip(robots.iter_mut()) {
        let (qr, vr) = robot_slices(r, q, v);
        let kq = &mut kq[r.q_offset..r.q_offset + r.nq()];
        let kv = &mut kv[r.v_offset..r.v_offset + r.nv()];
        if rd.frozen {
            kq.fill(0.0);
            kv.fill(0.0);
            continue;
        }
        // External forces: proxy wrench about its COM x → link frame about the link
        // origin o: n = E (τ + (x − o) × F), f = E F.
        rd.f_ext.iter_mut().for_each(|f| *f = ForceVec::zero());
        for (i, b) in r.link_body.iter().enumerate() {
            let Some(b) = *b else { continue };
            let w = Wrench {
                force: contact[b].force + xfrc[b].force,
                torque: contact[b].torque + xfrc[b].torque,
            };
            let x = &rd.ad.x_base[i];
            let torque_o = w.torque + (state[b].x - x.trans).cross(&w.force);
            rd.f_ext[i] = ForceVec::new(x.rot * torque_o, x.rot * w.force);
        }
        // Joint torques.
        rd.tau.fill(0.0);
        let cmd_r = &cmd[r.v_offset..r.v_offset + r.nv()];
        for (ji, j) in r.joints.iter().enumerate() {
            let (qj, vj) = (qr[j.qi], vr[j.vi]);
            let servo = r
                .servos
                .iter()
                .zip(&rd.servo)
                .find(|(s, _)| s.joint == ji)
                .map_or(0.0, |(s, t)| {
                    servo_torque(s.kp, s.kd, s.max_torque, t, qj, vj)
                });
            let act = (cmd_r[j.vi] + servo).clamp(-j.effort, j.effort);
            let act = if act.is_finite() { act } else { 0.0 };
            let pas = passive_torque(j, qj, vj);
            rd.tau[j.vi] = act + pas;
            if let Some(rec) = record.as_mut() {
                rec.actuator[r.v_offset + j.vi] = act;
                rec.passive[r.v_offset + j.vi] = pas;
            }
        }
        let ext = ExtInputs {
            f_ext: Some(&rd.f_ext),
            damping: None,
        };
        if aba(&r.tree, &mut rd.ad, qr, vr, &rd.tau, &ext).is_err() {
            kv.fill(f64::NAN);
            kq.fill(0.0);
            continue;
        }
        kv.copy_from_slice(rd.ad.qdd.as_slice());
        configuration_rate(r, qr, vr, kq);
        if let Some(rec) = record.as_mut() {
            rec.qacc[r.v_offset..r.v_offset + r.nv()].copy_from_slice(kv);
            read_sensors(r, rd);
        }
    }
}

/// q̇ of robot `r` at (q, v).
#[inline]
pub(crate) fn configuration_rate(r: &RobotModel, q: &[f64], v: &[f64], out: &mut [f64]) {
    let _ = q;
    // Every joint has ≤ 1 degree of freedom: q̇ = v.
    out.copy_from_slice(v);
    debug_assert_eq!(r.nq(), r.nv());
}

/// q̇ of all robots at (q, v) (flat).
pub(crate) fn configuration_rates(model: &Model, q: &[f64], v: &[f64], out: &mut [f64]) {
    for r in &model.robots {
        let (qr, vr) = robot_slices(r, q, v);
        configuration_rate(r, qr, vr, &mut out[r.q_offset..r.q_offset + r.nq()]);
    }
}

/// τ = kp (q* − q) + kd (q̇* − q̇) + τ_ff, clamped to ±max (0 when disabled).
#[inline]
fn servo_torque(kp: f64, kd: f64, max: f64, t: &ServoTarget, q: f64, qd: f64) -> f64 {
    if !t.enabled {
        return 0.0;
    }
    (kp * (t.position - q) + kd * (t.velocity - qd) + t.torque).clamp(-max, max)
}

/// Viscous damping, regularized Coulomb friction and the one-sided limit spring of
/// joint `j` (see [`RobotJoint`]).
#[inline]
fn passive_torque(j: &RobotJoint, q: f64, qd: f64) -> f64 {
    let mut tau = -j.damping * qd;
    if j.friction > 0.0 {
        tau -= j.friction * (qd / j.friction_speed).clamp(-1.0, 1.0);
    }
    if q < j.lower {
        tau += (j.limit_k * (j.lower - q) - j.limit_b * qd).max(0.0);
    } else if q > j.upper {
        tau -= (j.limit_k * (q - j.upper) + j.limit_b * qd).max(0.0);
    }
    tau
}

/// IMUs and force/torque sensors from the accelerations ABA just computed.
fn read_sensors(r: &RobotModel, rd: &mut RobotData) {
    let ad = &rd.ad;
    for (s, out) in r.imus.iter().zip(rd.imu.iter_mut()) {
        let (a, v) = (&ad.a[s.link], &ad.v[s.link]);
        // The spatial acceleration's linear part plus ω × v is the classical
        // acceleration of the link origin; ABA's base acceleration −a_g makes it the
        // proper acceleration.
        *out = ImuReading {
            accel: a.lin + v.ang.cross(&v.lin),
            gyro: v.ang,
        };
    }
    if r.ft_sensors.is_empty() {
        return;
    }
    // RNEA's backward pass with ABA's accelerations: f_i = I_i a_i + v_i ×* I_i v_i
    // − f_ext_i, accumulated into the parents (Featherstone Table 5.1).
    let n = r.tree.num_links();
    let crate::dynamics::ArticulatedData { a, v, xup, f, .. } = &mut rd.ad;
    for i in 0..n {
        let inertia = &r.tree.inertia()[i];
        let h = inertia * &v[i];
        f[i] = inertia * &a[i] + v[i].cross_force(&h) - rd.f_ext[i];
    }
    for i in (0..n).rev() {
        if let Some(p) = r.tree.parent()[i] {
            let fp = xup[i].inv_apply_force(&f[i]);
            f[p] += fp;
        }
    }
    for (s, out) in r.ft_sensors.iter().zip(rd.ft.iter_mut()) {
        *out = f[s.link];
    }
}

/// World pose and twist (velocity of the frame origin, angular velocity) of frame
/// `f` of robot `r`, from the kinematics of the last evaluation (after a step: the
/// end-of-step state).
pub fn frame_state(model: &Model, robots: &[RobotData], r: usize, f: usize) -> BodyState {
    let rm = &model.robots[r];
    let fr = &rm.frames[f];
    let ad = &robots[r].ad;
    let x = &ad.x_base[fr.link];
    let rot = x.rot.transpose(); // link → world
    let p = rot * fr.pose.translation.vector;
    let w = rot * ad.v[fr.link].ang;
    let q_link = Quat::from_rotation_matrix(&Rotation3::from_matrix_unchecked(rot));
    BodyState {
        x: x.trans + p,
        q: q_link * fr.pose.rotation,
        v: rot * ad.v[fr.link].lin + w.cross(&p),
        w,
    }
}
