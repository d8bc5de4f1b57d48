//! The robots' part of a force evaluation (shared by the force-model steppers):
//!
//! 1. [`crate::kinematics::link_states`]: forward kinematics and link twists at
//!    (q, q̇) → the world pose and twist of every link proxy (frame at the link's
//!    centre of mass), so that the collision pipeline and the contact models see
//!    links as rigid bodies;
//! 2. [`derivatives`]: the contact and applied wrenches on the proxies become
//!    external spatial forces on the links (link frame, about the link origin);
//!    joint torques = actuation (command + servo, clamped to the effort limit) +
//!    passive (viscous damping, regularized Coulomb friction, one-sided limit
//!    springs); ABA gives q̈, and q̇(q, v) the configuration rate.
//!
//! Conventions are those of [`crate::dynamics`]: `x_base[i] = ⁱX_0 = (E, r)` with
//! E mapping world to link coordinates and r the link origin in the world; link
//! spatial velocities `[ω; v]` in link coordinates.

use crate::data::{BodyState, ImuReading, RobotData};
use crate::dynamics::{
    aba, joint_wrenches_from, point_acceleration, q_derivative, rnea, ExtInputs, ForceVec,
};
use crate::kinematics::robot_slices;
use crate::math::{Vec3, Wrench};
use crate::model::robot::{RobotJoint, RobotModel};
use crate::model::Model;

/// What the first evaluation of a step records (start-of-step values).
pub(crate) struct Record<'a> {
    pub actuator: &'a mut [f64],
    pub passive: &'a mut [f64],
    pub qacc: &'a mut [f64],
}

/// What a robot evaluation reads: the robots' generalized state and commanded
/// torques (flat, as in `Data`), and the link proxies at `state` carrying the
/// wrenches `contact[b] + xfrc[b]` (world frame, about the proxy's centre of mass).
pub(crate) struct RobotLoad<'a> {
    pub q: &'a [f64],
    pub v: &'a [f64],
    pub cmd: &'a [f64],
    pub state: &'a [BodyState],
    pub contact: &'a [Wrench],
    pub xfrc: &'a [Wrench],
}

/// Configuration rate and joint accelerations of every robot under `load`, over a
/// step of `h` (the implicit servo/damper terms). `kq` (len nq) and `kv` (len nv)
/// are zero for a frozen robot; a failed ABA writes NaN into `kv` for the
/// quarantine to catch. `kq` may be empty: the configuration rates are then not
/// computed (semi-implicit Euler takes q̇ = G(q) v⁺ at the updated velocities, so
/// the stage's q̇ at v would be overwritten unread). `record`: start-of-step
/// torques, accelerations and sensors.
pub(crate) fn derivatives(
    model: &Model,
    h: f64,
    robots: &mut [RobotData],
    load: &RobotLoad<'_>,
    kq: &mut [f64],
    kv: &mut [f64],
    record: Option<Record<'_>>,
) {
    derivatives_of(model, h, robots, load, (kq, kv), record, |_| true)
}

/// [`derivatives`] of the robots `ri` with `which(ri)` only; the others' entries
/// of `kq`, `kv` and `record` are left as they are.
pub(crate) fn derivatives_of(
    model: &Model,
    h: f64,
    robots: &mut [RobotData],
    load: &RobotLoad<'_>,
    (kq, kv): (&mut [f64], &mut [f64]),
    mut record: Option<Record<'_>>,
    which: impl Fn(usize) -> bool,
) {
    for (ri, (r, rd)) in model.robots.iter().zip(robots.iter_mut()).enumerate() {
        if !which(ri) {
            continue;
        }
        // None: the caller wants no configuration rates (`kq` empty).
        let kq = kq.get_mut(r.q_offset..r.q_offset + r.nq());
        let kv = &mut kv[r.v_offset..r.v_offset + r.nv()];
        derivatives_of_robot(r, rd, load, h, (kq, kv), record.as_mut());
    }
}

/// [`derivatives_of`] for robot `r` alone: `kq` and `kv` its entries (`kq`
/// None: no configuration rates), `record` the flat records.
pub(crate) fn derivatives_of_robot(
    r: &RobotModel,
    rd: &mut RobotData,
    load: &RobotLoad<'_>,
    h: f64,
    (mut kq, kv): (Option<&mut [f64]>, &mut [f64]),
    mut record: Option<&mut Record<'_>>,
) {
    let (qr, vr) = robot_slices(r, load.q, load.v);
    if rd.frozen {
        if let Some(kq) = kq.as_deref_mut() {
            kq.fill(0.0);
        }
        kv.fill(0.0);
        return;
    }
    loads_of(r, rd, load, h, record.as_deref_mut());
    let ext = ExtInputs {
        f_ext: Some(&rd.f_ext),
        damping: None,
        armature: Some(&rd.armature),
    };
    if aba(&r.tree, &mut rd.ad, qr, vr, &rd.tau, &ext).is_err() {
        kv.fill(f64::NAN);
        if let Some(kq) = kq.as_deref_mut() {
            kq.fill(0.0);
        }
        return;
    }
    if let Some(imp) = rd.implicit.as_deref_mut() {
        // The `implicit` integrator: q̈ ← (M̃ + hθ D)⁻¹ M̃ q̈, so that v + h q̈ is
        // the step with the velocity products implicit (dynamics::implicit).
        let qdd = rd.ad.qdd.as_mut_slice();
        let theta = crate::dynamics::implicit::THETA;
        if imp
            .implicit_acceleration(&r.tree, qr, vr, &rd.armature, h, theta, qdd)
            .is_err()
        {
            kv.fill(f64::NAN);
            if let Some(kq) = kq.as_deref_mut() {
                kq.fill(0.0);
            }
            return;
        }
    }
    if let Some(rec) = record.as_mut() {
        // The implicit parts, now that q̈ is known: τ = τ₀ − a q̈.
        for j in &r.joints {
            let k = r.v_offset + j.vi;
            let qdd = rd.ad.qdd[j.vi];
            rec.actuator[k] -= rd.arm_act[j.vi] * qdd;
            rec.passive[k] -= (rd.armature[j.vi] - rd.arm_act[j.vi]) * qdd;
        }
    }
    kv.copy_from_slice(rd.ad.qdd.as_slice());
    if let Some(kq) = kq {
        configuration_rate(r, qr, vr, kq);
    }
    if let Some(rec) = record.as_mut() {
        rec.qacc[r.v_offset..r.v_offset + r.nv()].copy_from_slice(kv);
        read_sensors(r, rd, false);
    }
}

/// The records of robot `r` at a q̈ the step took (lcp24: the LCP step's
/// (ν⁺ − ν)/h, every constraint impulse in it), under `load` (its `contact`
/// the contact impulses / h): the actuator and passive torques τ₀ − a q̈ (the
/// implicit parts at that q̈), `qacc` = q̈, and the IMUs and F/T sensors from
/// RNEA(q, q̇, q̈, f_ext) — no forward dynamics. A generalized impulse that is
/// no link wrench (a joint limit's) is in q̈ and so in the sensors; its torque
/// is the caller's to add (the F/T sensors carry it as transmitted wrench).
/// Nothing for a frozen robot; a failed RNEA leaves the sensors as they were.
pub(crate) fn records_at(
    r: &RobotModel,
    rd: &mut RobotData,
    load: &RobotLoad<'_>,
    h: f64,
    qdd: &[f64],
    record: &mut Record<'_>,
) {
    if rd.frozen {
        return;
    }
    loads_of(r, rd, load, h, Some(&mut *record));
    for j in &r.joints {
        let k = r.v_offset + j.vi;
        let a = qdd[j.vi];
        record.actuator[k] -= rd.arm_act[j.vi] * a;
        record.passive[k] -= (rd.armature[j.vi] - rd.arm_act[j.vi]) * a;
    }
    record.qacc[r.v_offset..r.v_offset + r.nv()].copy_from_slice(qdd);
    let (qr, vr) = robot_slices(r, load.q, load.v);
    let ext = ExtInputs {
        f_ext: Some(&rd.f_ext),
        damping: None,
        armature: None,
    };
    if rnea(&r.tree, &mut rd.ad, qr, vr, qdd, &ext).is_ok() {
        read_sensors(r, rd, true);
    }
}

/// What ABA reads for robot `r` under `load` (the first part of
/// [`derivatives_of`], lcp23: also the LCP's primal path, which solves with
/// M's factor instead): the external forces on the links (`rd.f_ext`), the
/// joint torques τ₀ (`rd.tau`) and the implicit diagonal a (`rd.armature`,
/// of which the actuation's `rd.arm_act`); with `record`, τ₀'s actuator and
/// passive parts.
pub(crate) fn loads_of(
    r: &RobotModel,
    rd: &mut RobotData,
    load: &RobotLoad<'_>,
    h: f64,
    mut record: Option<&mut Record<'_>>,
) {
    let RobotLoad {
        q,
        v,
        cmd,
        state,
        contact,
        xfrc,
    } = *load;
    let (qr, vr) = robot_slices(r, q, v);
    // External forces: proxy wrench about its COM x → link frame about the link
    // origin o: n = E (τ + (x − o) × F), f = E F.
    rd.f_ext.iter_mut().for_each(|f| *f = ForceVec::zero());
    for (i, b) in r.link_body.iter().enumerate() {
        let Some(b) = *b else { continue };
        let w = Wrench {
            force: contact[b].force + xfrc[b].force,
            torque: contact[b].torque + xfrc[b].torque,
        };
        // A link nothing pushes keeps the zero set above (the transform of a
        // zero wrench is zero: a link without contact costs nothing here).
        if w.force != Vec3::zeros() || w.torque != Vec3::zeros() {
            rd.f_ext[i] = rd.ad.x_base[i].force_from_world(&w, &state[b].x);
        }
    }
    // Joint torques: actuation and passive terms, each a law τ = τ₀ − a q̈ whose
    // implicit part a (stable PD: h k_d + h² k_p) goes to ABA as armature.
    rd.tau.fill(0.0);
    rd.armature.fill(0.0);
    let cmd_r = &cmd[r.v_offset..r.v_offset + r.nv()];
    for j in &r.joints {
        let (qj, vj) = (qr[j.qi], vr[j.vi]);
        let servo = j
            .servo
            .map(|k| (&r.servos[k], &rd.servo[k]))
            .filter(|(_, t)| t.enabled);
        let (mut act, mut a_act) = (cmd_r[j.vi], 0.0);
        if let Some((s, t)) = servo {
            // τ = kp (q* − q − h q̇) + kd (q̇* − q̇ − h q̈) + τ_ff
            let tau_s = s.kp * (t.position - qj - h * vj) + s.kd * (t.velocity - vj) + t.torque;
            if tau_s.abs() <= s.max_torque {
                act += tau_s;
                a_act = h * s.kd + h * h * s.kp;
            } else {
                act += tau_s.clamp(-s.max_torque, s.max_torque);
            }
        }
        if !act.is_finite() {
            act = 0.0;
            a_act = 0.0;
        } else if act.abs() > j.effort {
            // Saturated: a constant torque, nothing implicit.
            act = act.clamp(-j.effort, j.effort);
            a_act = 0.0;
        }
        let (pas, a_pas) = passive_torque(j, qj, vj, h);
        rd.tau[j.vi] = act + pas;
        rd.armature[j.vi] = a_act + a_pas;
        rd.arm_act[j.vi] = a_act;
        if let Some(rec) = record.as_mut() {
            rec.actuator[r.v_offset + j.vi] = act;
            rec.passive[r.v_offset + j.vi] = pas;
        }
    }
}

/// q̇ = G(q) v of robot `r` (the floating base's position and quaternion rates;
/// q̇ = v for one-DoF joints). Lengths are the model's, so it cannot fail; if it
/// did, NaN reaches the quarantine.
#[inline]
pub(crate) fn configuration_rate(r: &RobotModel, q: &[f64], v: &[f64], out: &mut [f64]) {
    if q_derivative(&r.tree, q, v, out).is_err() {
        out.fill(f64::NAN);
    }
}

/// q̇ of all robots at (q, v) (flat).
pub(crate) fn configuration_rates(model: &Model, q: &[f64], v: &[f64], out: &mut [f64]) {
    for r in &model.robots {
        let (qr, vr) = robot_slices(r, q, v);
        configuration_rate(r, qr, vr, &mut out[r.q_offset..r.q_offset + r.nq()]);
    }
}

/// Viscous damping, regularized Coulomb friction and the one-sided limit spring of
/// joint `j` (see [`RobotJoint`]) as (τ₀, a): τ = τ₀ − a q̈, the damping, the
/// friction's linear zone and the limit's spring–damper implicit in q̈.
#[inline]
fn passive_torque(j: &RobotJoint, q: f64, qd: f64, h: f64) -> (f64, f64) {
    let mut tau = -j.damping * qd;
    let mut a = h * j.damping;
    if j.friction > 0.0 {
        let x = qd / j.friction_speed;
        tau -= j.friction * x.clamp(-1.0, 1.0);
        if x.abs() < 1.0 {
            a += h * j.friction / j.friction_speed;
        }
    }
    // The limit pushes back (never pulls): k (limit − q − h q̇) − b q̇.
    if q < j.lower {
        let t = j.limit_k * (j.lower - q - h * qd) - j.limit_b * qd;
        if t > 0.0 {
            tau += t;
            a += h * j.limit_b + h * h * j.limit_k;
        }
    } else if q > j.upper {
        let t = j.limit_k * (q - j.upper + h * qd) + j.limit_b * qd;
        if t > 0.0 {
            tau -= t;
            a += h * j.limit_b + h * h * j.limit_k;
        }
    }
    (tau, a)
}

/// IMUs and force/torque sensors from the accelerations ABA (or RNEA) just
/// computed; `wrenches_done`: RNEA left the transmitted wrenches in `rd.ad.f`
/// (its backward pass is the F/T sensors' pass, the same sums in the same order).
fn read_sensors(r: &RobotModel, rd: &mut RobotData, wrenches_done: bool) {
    let ad = &rd.ad;
    for (s, out) in r.imus.iter().zip(rd.imu.iter_mut()) {
        // The accelerometer at the link origin (ABA's base acceleration −a_g makes
        // it the proper acceleration), both readings in the link frame.
        let x = &ad.x_base[s.link];
        if let Some(a) = point_acceleration(ad, s.link, &x.trans) {
            *out = ImuReading {
                accel: x.rot * a.proper,
                gyro: ad.v[s.link].ang,
            };
        }
    }
    if r.ft_sensors.is_empty() {
        return;
    }
    if wrenches_done {
        for (s, out) in r.ft_sensors.iter().zip(rd.ft.iter_mut()) {
            *out = rd.ad.f[s.link];
        }
        return;
    }
    // RNEA's backward pass with ABA's accelerations (Featherstone Table 5.1), over
    // the sensors' subtrees only: the links from the first sensor link on.
    let first = r.ft_sensors.iter().map(|s| s.link).min().unwrap_or(0);
    let ext = ExtInputs {
        f_ext: Some(&rd.f_ext),
        damping: None,
        armature: None,
    };
    if joint_wrenches_from(&r.tree, &mut rd.ad, &ext, first).is_err() {
        return;
    }
    for (s, out) in r.ft_sensors.iter().zip(rd.ft.iter_mut()) {
        *out = rd.ad.f[s.link];
    }
}
