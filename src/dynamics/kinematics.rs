//! Forward kinematics (link poses for the collision pipeline) and mechanical
//! energy of an [`ArticulatedModel`].

use super::spatial::MotionVec;
use super::tree::{coord, ArticulatedData, ArticulatedModel, DynamicsError};

/// Joint transforms only: `xup[i] = XJ(q_i) x_tree[i]` (Featherstone Table 5.1, line 3).
pub(crate) fn update_xup(model: &ArticulatedModel, data: &mut ArticulatedData, q: &[f64]) {
    for i in 0..model.num_links() {
        let qi = coord(model.v_index()[i], q);
        data.xup[i] = model.joint()[i].transform(qi) * model.x_tree()[i];
    }
}

/// Fill `xup[i]` and the link poses `x_base[i] = ⁱX_0 = xup[i] ᵖX_0`.
/// The pose of link `i` in the base: origin `x_base[i].trans`, orientation
/// `x_base[i].rot.transpose()`.
pub fn forward_kinematics(
    model: &ArticulatedModel,
    data: &mut ArticulatedData,
    q: &[f64],
) -> Result<(), DynamicsError> {
    model.check_len("q", q.len())?;
    update_xup(model, data, q);
    for i in 0..model.num_links() {
        data.x_base[i] = match model.parent()[i] {
            Some(p) => data.xup[i] * data.x_base[p],
            None => data.xup[i],
        };
    }
    Ok(())
}

/// Kinetic and gravitational potential energy (J).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Energy {
    /// `T = ½ Σ v_iᵀ I_i v_i` (= `½ q̇ᵀ H q̇`).
    pub kinetic: f64,
    /// `V = −Σ m_i a_g · p_ci` with the base origin as reference.
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
    model.check_len("qd", qd.len())?;
    forward_kinematics(model, data, q)?;
    let g = model.gravity();
    let mut e = Energy::default();
    for i in 0..model.num_links() {
        let vj = data.s[i].scale(coord(model.v_index()[i], qd));
        let vp = match model.parent()[i] {
            Some(p) => data.xup[i].apply_motion(&data.v[p]),
            None => MotionVec::zero(),
        };
        data.v[i] = vp + vj;
        let inertia = &model.inertia()[i];
        e.kinetic += 0.5 * data.v[i].dot(&(inertia * &data.v[i]));
        let p_com = data.x_base[i].inv_apply_point(&inertia.com);
        e.potential -= inertia.mass * g.dot(&p_com);
    }
    Ok(e)
}
