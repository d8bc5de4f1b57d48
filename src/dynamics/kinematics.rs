//! Forward kinematics (link poses and twists for the collision and contact
//! pipeline), world-frame point velocities and accelerations (IMU), centre of
//! mass, momentum and mechanical energy of an [`ArticulatedModel`].

use super::spatial::{ForceVec, MotionVec, SpatialTransform};
use super::tree::{joint_motion, ArticulatedData, ArticulatedModel, DynamicsError, Joint};
use nalgebra::{Matrix3, Vector3};

/// Joint transforms `xup[i] = XJ(q_i) x_tree[i]` (Featherstone Table 5.1,
/// line 3) and link poses `x_base[i] = xup[i] ᵖX_0`, so that every algorithm
/// leaves the poses consistent with the `q` it was given. `q` must have been
/// checked (`check_q`). Skipped when `data` already holds the poses at this
/// bit-identical `q` ([`super::tree::KinematicsKey`]): they would be recomputed
/// bit for bit.
pub(crate) fn update_xup(model: &ArticulatedModel, data: &mut ArticulatedData, q: &[f64]) {
    if data.kin.poses_at(q) {
        return;
    }
    for i in 0..model.num_links() {
        let joint = &model.joint()[i];
        let qi = model.q_index()[i]
            .and_then(|k| q.get(k..k + joint.nq()))
            .unwrap_or(&[]);
        data.xup[i] = match (joint, model.axis()[i]) {
            (Joint::Revolute(_), Some(k)) => {
                revolute_about_axis(k, qi.first().copied().unwrap_or(0.0), &model.x_tree()[i])
            }
            _ => joint.transform(qi) * model.x_tree()[i],
        };
        data.x_base[i] = match model.parent()[i] {
            Some(p) => data.xup[i] * data.x_base[p],
            None => data.xup[i],
        };
    }
    data.kin.set_poses(q);
}

/// `XJ(q) x_tree` for a revolute joint about the link's coordinate axis `k`
/// (`s = e_k`): `XJ = rot(E_J)` with `E_J = R(e_k, q)ᵀ` a plane rotation of the
/// two other coordinates `(a, b)` (cyclic after `k`), so `E = E_J E_T` mixes two
/// rows of `E_T` (rows `a`, `b`: `c E_a + s E_b`, `−s E_a + c E_b`; row `k` kept)
/// and `r = r_T`. The same numbers as the general product, whose other terms are
/// exact zeros and ones (`Rotation3::from_axis_angle` about `e_k`), in 12
/// multiplications instead of 27 and a Rodrigues matrix.
/// The rows `(a, b)` are constants of each arm of the `match` (no index arithmetic
/// or bounds checks per entry; the same operations in the same order).
#[inline]
fn revolute_about_axis(k: usize, q: f64, x_tree: &SpatialTransform) -> SpatialTransform {
    let (s, c) = q.sin_cos();
    let rot = match k {
        0 => plane_rotation::<1, 2>(&x_tree.rot, s, c),
        1 => plane_rotation::<2, 0>(&x_tree.rot, s, c),
        _ => plane_rotation::<0, 1>(&x_tree.rot, s, c),
    };
    SpatialTransform::new(rot, x_tree.trans)
}

/// `E_T` with rows `A`, `B` replaced by `c E_A + s E_B` and `c E_B − s E_A`.
#[inline(always)]
fn plane_rotation<const A: usize, const B: usize>(
    et: &Matrix3<f64>,
    s: f64,
    c: f64,
) -> Matrix3<f64> {
    let mut rot = *et;
    for j in 0..3 {
        rot[(A, j)] = c * et[(A, j)] + s * et[(B, j)];
        rot[(B, j)] = c * et[(B, j)] - s * et[(A, j)];
    }
    rot
}

/// Link twists `v_i = ⁱX_λ v_λ + S_i q̇_i` (eqs. (R1)–(R2)) over the poses of
/// the last [`update_xup`] (call it first, with the `q` these twists belong
/// to). Skipped when `data` already holds the twists at this `(q, q̇)`.
pub(crate) fn update_twists(
    model: &ArticulatedModel,
    data: &mut ArticulatedData,
    q: &[f64],
    qd: &[f64],
) {
    if data.kin.twists_at(q, qd) {
        return;
    }
    for i in 0..model.num_links() {
        let vj = joint_motion(model, i, qd);
        data.v[i] = match model.parent()[i] {
            Some(p) => data.xup[i].apply_motion(&data.v[p]) + vj,
            None => vj,
        };
    }
    data.kin.set_twists(qd);
}

/// Fill `xup[i]` and the link poses `x_base[i] = ⁱX_0 = xup[i] ᵖX_0`
/// (`q` of length `nq`). The pose of link `i` in the world: origin
/// `x_base[i].trans`, orientation `x_base[i].rot.transpose()` (see [`link_pose`]).
pub fn forward_kinematics(
    model: &ArticulatedModel,
    data: &mut ArticulatedData,
    q: &[f64],
) -> Result<(), DynamicsError> {
    model.check_q(q)?;
    model.check_data(data)?;
    update_xup(model, data, q);
    Ok(())
}

/// [`forward_kinematics`] plus the link spatial velocities
/// `data.v[i] = ⁱX_λ v_λ + S_i q̇_i` (eqs. (R1)–(R2), link coordinates),
/// without dynamics. `q` of length `nq`, `qd` of length `nv`.
pub fn forward_velocity(
    model: &ArticulatedModel,
    data: &mut ArticulatedData,
    q: &[f64],
    qd: &[f64],
) -> Result<(), DynamicsError> {
    model.check_len("qd", qd.len())?;
    forward_kinematics(model, data, q)?;
    update_twists(model, data, q, qd);
    Ok(())
}

/// World pose of a link: `rotation` maps link coordinates to world
/// coordinates (`R = Eᵀ` of `x_base`), `origin` is the link frame's origin in
/// the world (m).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkPose {
    /// `⁰R_i`: link → world rotation.
    pub rotation: Matrix3<f64>,
    /// `⁰p_i`: link origin in world coordinates (m).
    pub origin: Vector3<f64>,
}

impl LinkPose {
    /// A point given in link coordinates, in world coordinates.
    pub fn point_to_world(&self, p_link: &Vector3<f64>) -> Vector3<f64> {
        self.rotation * p_link + self.origin
    }
}

/// Pose of `link` in the world, from `x_base` (after [`forward_kinematics`]).
pub fn link_pose(
    model: &ArticulatedModel,
    data: &ArticulatedData,
    link: usize,
) -> Result<LinkPose, DynamicsError> {
    model.check_link(link)?;
    model.check_data(data)?;
    let x = &data.x_base[link];
    Ok(LinkPose {
        rotation: x.rot.transpose(),
        origin: x.trans,
    })
}

/// Twist of a link-fixed point in world coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointVelocity {
    /// `ω`: the link's angular velocity, world coordinates (rad/s).
    pub omega: Vector3<f64>,
    /// `v_p`: velocity of the link-fixed point currently at `p_world` (m/s).
    pub v: Vector3<f64>,
}

/// Angular velocity of `link` and velocity of its point currently at
/// `p_world`, both in world coordinates (after [`forward_velocity`], `aba` or
/// `rnea`, which fill `data.v`): with `⁰v = ⁰X_i v_i = (ω, v_O)`,
/// `v_p = v_O + ω × p` (eq. (K1) of [`crate::dynamics`]).
pub fn link_point_velocity(
    model: &ArticulatedModel,
    data: &ArticulatedData,
    link: usize,
    p_world: &Vector3<f64>,
) -> Result<PointVelocity, DynamicsError> {
    model.check_link(link)?;
    model.check_data(data)?;
    let v0 = data.x_base[link].inv_apply_motion(&data.v[link]);
    Ok(PointVelocity {
        omega: v0.ang,
        v: v0.lin + v0.ang.cross(p_world),
    })
}

/// Spatial velocity of `link` in world coordinates, `⁰X_i v_i` (`lin` is the
/// velocity of the link-fixed point at the world origin).
pub fn link_velocity_world(
    model: &ArticulatedModel,
    data: &ArticulatedData,
    link: usize,
) -> Result<MotionVec, DynamicsError> {
    model.check_link(link)?;
    model.check_data(data)?;
    Ok(data.x_base[link].inv_apply_motion(&data.v[link]))
}

/// What an IMU fixed to a link reads, in world coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointAcceleration {
    /// `ω`: angular velocity (rad/s), as a gyroscope reads it.
    pub omega: Vector3<f64>,
    /// `ω̇`: angular acceleration (rad/s²).
    pub alpha: Vector3<f64>,
    /// Proper acceleration of the point, `p̈ − a_g` (m/s²): what an
    /// accelerometer reads (`(0, 0, +9.81)` at rest under standard gravity).
    pub proper: Vector3<f64>,
}

/// Angular velocity, angular acceleration and proper (accelerometer)
/// acceleration of the link-fixed point currently at `p_world`, world
/// coordinates, after `aba` or `rnea` (which fill `data.v`, `data.a`). Their
/// `a_i` carries the fictitious base acceleration `−a_g`, so the classical
/// acceleration it yields is already `p̈ − a_g` (eq. (K2) of
/// [`crate::dynamics`]): `⁰a = ⁰X_i a_i`, `a_p = a_O + ω̇ × p + ω × v_p`.
/// Rotate `proper` by `link_pose(..).rotation.transpose()` for a sensor in the
/// link frame.
pub fn link_point_acceleration(
    model: &ArticulatedModel,
    data: &ArticulatedData,
    link: usize,
    p_world: &Vector3<f64>,
) -> Result<PointAcceleration, DynamicsError> {
    model.check_link(link)?;
    model.check_data(data)?;
    point_acceleration(data, link, p_world).ok_or(DynamicsError::DataMismatch {
        links: data.xup.len(),
        nv: data.tau.len(),
    })
}

/// [`link_point_acceleration`] without the model checks (`None` if `link` is
/// out of `data`'s range): for callers that hold the `data` of this model, as the
/// robots' sensors do once per step.
pub(crate) fn point_acceleration(
    data: &ArticulatedData,
    link: usize,
    p_world: &Vector3<f64>,
) -> Option<PointAcceleration> {
    let (x, v, a) = (data.x_base.get(link)?, data.v.get(link)?, data.a.get(link)?);
    // (K1) as in `link_point_velocity`, then (K2)
    let v0 = x.inv_apply_motion(v);
    let (omega, v_p) = (v0.ang, v0.lin + v0.ang.cross(p_world));
    let a0 = x.inv_apply_motion(a);
    Some(PointAcceleration {
        omega,
        alpha: a0.ang,
        proper: a0.lin + a0.ang.cross(p_world) + omega.cross(&v_p),
    })
}

/// A force `force_world` (N) applied at the world point `p_world` (m) plus a
/// pure moment `torque_world` (N m), both in world coordinates, as the spatial
/// force on `link` in link coordinates — the form `ExtInputs::f_ext` takes
/// (eq. (K3) of [`crate::dynamics`]): `⁰f = (p × f + n, f)`, `f_i = ⁱX_0* ⁰f`.
/// Needs `x_base` (after [`forward_kinematics`] or any algorithm). Its
/// generalized force is `Jᵀ [n; f]` with `J` from
/// [`super::jacobian::point_jacobian`] at `p_world`.
pub fn link_force_from_world(
    model: &ArticulatedModel,
    data: &ArticulatedData,
    link: usize,
    p_world: &Vector3<f64>,
    force_world: &Vector3<f64>,
    torque_world: &Vector3<f64>,
) -> Result<ForceVec, DynamicsError> {
    model.check_link(link)?;
    model.check_data(data)?;
    let f0 = ForceVec::new(p_world.cross(force_world) + torque_world, *force_world);
    Ok(data.x_base[link].apply_force(&f0))
}

/// Centre of mass of the whole tree in world coordinates (m), from
/// `x_base` (after [`forward_kinematics`]).
pub fn center_of_mass(model: &ArticulatedModel, data: &ArticulatedData) -> Vector3<f64> {
    let mut sum = Vector3::zeros();
    for (inertia, x) in model.inertia().iter().zip(&data.x_base) {
        sum += inertia.mass * x.inv_apply_point(&inertia.com);
    }
    sum / model.total_mass()
}

/// Total spatial momentum `h = Σ ⁰X_i* I_i v_i` in world coordinates
/// (`ang`: angular momentum about the world origin, kg m²/s; `lin`: linear
/// momentum, kg m/s), from `x_base` and `v` (after [`forward_velocity`],
/// `aba` or `rnea`).
pub fn spatial_momentum(model: &ArticulatedModel, data: &ArticulatedData) -> ForceVec {
    let mut h = ForceVec::zero();
    for ((inertia, x), v) in model.inertia().iter().zip(&data.x_base).zip(&data.v) {
        h += x.inv_apply_force(&(inertia * v));
    }
    h
}

/// Kinetic and gravitational potential energy (J).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Energy {
    /// `T = ½ Σ v_iᵀ I_i v_i` (= `½ q̇ᵀ H q̇`).
    pub kinetic: f64,
    /// `V = −Σ m_i a_g · p_ci` with the world origin as reference.
    pub potential: f64,
}

impl Energy {
    /// `T + V`.
    pub fn total(&self) -> f64 {
        self.kinetic + self.potential
    }
}

/// Mechanical energy at `(q, q̇)`; writes `xup`, `x_base` and `v`.
pub fn energy(
    model: &ArticulatedModel,
    data: &mut ArticulatedData,
    q: &[f64],
    qd: &[f64],
) -> Result<Energy, DynamicsError> {
    forward_velocity(model, data, q, qd)?;
    let g = model.gravity();
    let mut e = Energy::default();
    for (i, inertia) in model.inertia().iter().enumerate() {
        e.kinetic += 0.5 * data.v[i].dot(&(inertia * &data.v[i]));
        let p_com = data.x_base[i].inv_apply_point(&inertia.com);
        e.potential -= inertia.mass * g.dot(&p_com);
    }
    Ok(e)
}
