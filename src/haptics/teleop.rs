//! A robot arm teleoperated by a haptic device (`[[haptic]]` with `tool` a robot
//! link and a `teleop` table): the device pose is the end effector's target, the
//! coupling is the arm's Cartesian impedance, and the force the arm's link meets
//! is fed back to the device through the same coupling.
//!
//! The arm's own controller (computed in the physics thread at the step's inputs
//! point, written to the robot's commanded torques `Data::qfrc_cmd`):
//!
//! ```text
//! τ = g(q)                                  gravity compensation (RNEA, q̇ = q̈ = 0)
//!   + J_ωᵀ τ_o                              orientation hold (3-DoF device only):
//!                                           τ_o = k_o log(q_ref q⁻¹) − b_o ω
//!   − J_vᵀ D ẋ                              task-space damping of the link (world)
//!   + (1 − γ Jᵀ J̄ᵀ) τ_p                     posture in the null space of the 6-D task
//!        τ_p = H (ω_p² (q_home − q) − 2 ω_p q̇)     (critically damped at f_p Hz)
//!        J̄ᵀ = Λ J H⁻¹,  Λ = (J H⁻¹ Jᵀ + μ 1)⁻¹       (dynamically consistent)
//! ```
//!
//! while the coupling's force K (x_d − x) + B (ẋ_d − ẋ) on the link reaches the
//! joints as Jᵀ f through the arm's dynamics (the external wrench on the link
//! proxy; no separate mapping). Why a Jᵀ impedance rather than an IK target for
//! joint servos: the device is coupled to the link by the very spring whose
//! force it renders, so what the operator feels is exactly the wrench the arm
//! receives (in statics the rendered force equals the contact force on the link,
//! whatever the arm's configuration); an IK servo would render the servo's
//! tracking error instead, stiff and configuration-dependent, and would need its
//! own force estimate. Gravity compensation makes free space feel weightless
//! (only the arm's task-space inertia Λ and damping remain), the null-space
//! posture holds the redundant elbow without disturbing the end effector
//! (`J̄ᵀ (1 − Jᵀ J̄ᵀ) = 0`), and J is the full 6-row Jacobian of the link, so
//! for a 3-DoF device the orientation hold and the position coupling together
//! leave the 7-DoF arm one null-space direction. Joint limits are the joints'
//! own one-sided limit springs (src/pipeline/robots.rs); the posture keeps the
//! arm near its home configuration, away from them. γ is the watchdog's gain:
//! once the device is released the posture acts unprojected and the arm returns
//! to its home configuration.
//!
//! Everything is preallocated in [`Teleop::new`]: no allocation per tick.

use crate::data::Data;
use crate::dynamics::{
    crba, factor_mass, point_jacobian, rnea, solve_mass_columns, ArticulatedData, ExtInputs,
};
use crate::math::{Quat, Vec3};
use crate::model::Model;
use nalgebra::{DMatrix, Matrix6, Matrix6xX, Vector3, Vector6};

/// The `teleop` table of a `[[haptic]]`, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct TeleopSpec {
    /// Robot and tree link of the tool.
    pub robot: usize,
    pub link: usize,
    /// Null-space posture frequency f_p, Hz.
    pub posture_hz: f64,
    /// Orientation hold (3-DoF devices), N·m/rad and N·m·s/rad.
    pub orientation_stiffness: f64,
    pub orientation_damping: f64,
    /// Task-space damping D of the link's centre of mass against the world, N·s/m:
    /// the coupling damps the link against the device only, so without D the arm's
    /// task-space mass Λ on the operator's hand (through the coupling) is a
    /// lightly damped mode; D damps it at the price of a drag D ẋ the operator
    /// feels in free space.
    pub damping: f64,
    /// The held orientation: the tool's scene orientation.
    pub orientation: Quat,
}

/// Regularization of Λ⁻¹ relative to its largest diagonal entry (singular
/// configurations: the damped least-squares inverse).
const LAMBDA_DAMPING: f64 = 1e-10;

/// What the controller applied in the last tick (diagnostics).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TeleopOut {
    /// |(1 − γ Jᵀ J̄ᵀ) τ_p|, N·m.
    pub posture_torque: f64,
    /// The orientation error |log(q_ref q⁻¹)|, rad.
    pub orientation_error: f64,
    /// Whether the last computation failed (the arm then gets gravity
    /// compensation alone).
    pub failed: bool,
}

/// The controller's scratch (one per teleoperated device).
#[derive(Clone, Debug)]
pub struct Teleop {
    ad: ArticulatedData,
    zeros: Vec<f64>,
    jac: Matrix6xX<f64>,
    /// H⁻¹ Jᵀ, nv × 6.
    hinv_jt: DMatrix<f64>,
    tau_p: Vec<f64>,
    acc: Vec<f64>,
    pub out: TeleopOut,
}

impl Teleop {
    pub fn new(spec: &TeleopSpec, model: &Model) -> Teleop {
        let r = &model.robots[spec.robot];
        let nv = r.nv();
        Teleop {
            ad: ArticulatedData::new(&r.tree),
            zeros: vec![0.0; nv],
            jac: Matrix6xX::zeros(nv),
            hinv_jt: DMatrix::zeros(nv, 6),
            tau_p: vec![0.0; nv],
            acc: vec![0.0; nv],
            out: TeleopOut::default(),
        }
    }

    /// Write the arm's torques for the coming step into `data.qfrc_cmd` (the
    /// robot's entries are the controller's: replaced, not added). `gain` is the
    /// watchdog's γ; `six_dof`: the coupling holds the orientation itself.
    pub fn apply(
        &mut self,
        spec: &TeleopSpec,
        tool: usize,
        six_dof: bool,
        gain: f64,
        model: &Model,
        data: &mut Data,
    ) {
        let r = &model.robots[spec.robot];
        let (qo, vo, nv) = (r.q_offset, r.v_offset, r.nv());
        if data.robots[spec.robot].frozen {
            data.qfrc_cmd[vo..vo + nv].fill(0.0);
            return;
        }
        let q = &data.qpos[qo..qo + r.nq()];
        let qd = &data.qvel[vo..vo + nv];
        let none = ExtInputs::default();
        // g(q): inverse dynamics at rest.
        if rnea(&r.tree, &mut self.ad, q, &self.zeros, &self.zeros, &none).is_err() {
            self.out.failed = true;
            data.qfrc_cmd[vo..vo + nv].fill(0.0);
            return;
        }
        let tau = &mut data.qfrc_cmd[vo..vo + nv];
        tau.copy_from_slice(self.ad.tau.as_slice());
        self.out.failed = self
            .task(spec, &data.state[tool], (six_dof, gain), r, q, qd)
            .is_none();
        if !self.out.failed {
            for (t, p) in tau.iter_mut().zip(&self.tau_p) {
                *t += p;
            }
        }
    }

    /// τ_p projected, plus J_ωᵀ τ_o, into `self.tau_p`; `None` if the dynamics
    /// failed (singular H, bad q).
    fn task(
        &mut self,
        spec: &TeleopSpec,
        s: &crate::data::BodyState,
        (six_dof, gain): (bool, f64),
        r: &crate::model::robot::RobotModel,
        q: &[f64],
        qd: &[f64],
    ) -> Option<()> {
        let nv = qd.len();
        crba(&r.tree, &mut self.ad, q).ok()?;
        factor_mass(&mut self.ad).ok()?;
        let p: Vector3<f64> = s.x;
        point_jacobian(&r.tree, &self.ad, spec.link, &p, &mut self.jac).ok()?;
        // Posture: τ_p = H (ω_p² (q_home − q) − 2 ω_p q̇).
        let w = 2.0 * std::f64::consts::PI * spec.posture_hz;
        for k in 0..nv {
            self.acc[k] = w * w * (r.q0[k] - q[k]) - 2.0 * w * qd[k];
        }
        for i in 0..nv {
            self.tau_p[i] = (0..nv)
                .map(|k| self.ad.mass_matrix[(i, k)] * self.acc[k])
                .sum();
        }
        // H⁻¹ Jᵀ and Λ⁻¹ = J H⁻¹ Jᵀ.
        for i in 0..nv {
            for c in 0..6 {
                self.hinv_jt[(i, c)] = self.jac[(c, i)];
            }
        }
        solve_mass_columns(&self.ad, &mut self.hinv_jt).ok()?;
        let mut li = Matrix6::<f64>::zeros();
        for a in 0..6 {
            for b in 0..6 {
                li[(a, b)] = (0..nv)
                    .map(|k| self.jac[(a, k)] * self.hinv_jt[(k, b)])
                    .sum();
            }
        }
        let mu = LAMBDA_DAMPING * (0..6).map(|a| li[(a, a)]).fold(0.0, f64::max);
        for a in 0..6 {
            li[(a, a)] += mu;
        }
        let chol = li.cholesky()?;
        // J̄ᵀ τ_p = Λ (H⁻¹ Jᵀ)ᵀ τ_p; τ_p ← τ_p − γ Jᵀ J̄ᵀ τ_p.
        let mut z = Vector6::<f64>::zeros();
        for a in 0..6 {
            z[a] = (0..nv).map(|k| self.hinv_jt[(k, a)] * self.tau_p[k]).sum();
        }
        let f = chol.solve(&z);
        // Orientation hold: a world torque on the link, τ_o = k_o r − b_o ω.
        let mut t_o = Vec3::zeros();
        let err = (spec.orientation * s.q.inverse()).scaled_axis();
        self.out.orientation_error = err.norm();
        if !six_dof {
            t_o = err * spec.orientation_stiffness - s.w * spec.orientation_damping;
        }
        let f_d = -s.v * spec.damping;
        let mut norm2 = 0.0;
        for k in 0..nv {
            let jt_f: f64 = (0..6).map(|a| self.jac[(a, k)] * f[a]).sum();
            let p_k = self.tau_p[k] - gain * jt_f;
            norm2 += p_k * p_k;
            let jw_t: f64 = (0..3).map(|a| self.jac[(a, k)] * t_o[a]).sum();
            let jv_f: f64 = (0..3).map(|a| self.jac[(3 + a, k)] * f_d[a]).sum();
            self.tau_p[k] = p_k + jw_t + jv_f;
        }
        self.out.posture_torque = norm2.sqrt();
        if self.tau_p.iter().all(|t| t.is_finite()) {
            Some(())
        } else {
            None
        }
    }
}
