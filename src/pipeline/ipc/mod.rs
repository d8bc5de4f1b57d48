//! Rigid IPC (004): the optimization-based step, `method = "ipc"`.
//!
//! ```text
//! advance   predict   q̃, Q̃ of every dynamic body from its state, gravity and the
//!                     applied wrench (eqs. 7, 9–10; `ipc::potential::Inertial`)
//!           solve     min E = IP + κ Σ b(d_k, d̂²) + D over (θ, q) by projected
//!                     Newton, every trial point intersection-free (curved CCD
//!                     clamps the step, then backtracking)           newton.rs
//!                     friction lagged from the previous pass         friction.rs
//!                     CCD broad phase + queries                      linesearch.rs
//!           update    q ← q + Δq, Q ← R(θ) Q, v = Δq/h, ω = θ/h (eq. 8)
//! ```
//!
//! The stepper collides at states of its own choosing (each Newton iterate), so it
//! wants no start-of-step narrow phase, and it replaces the outline's hull-based
//! continuous collision with its own curved CCD. Bodies are the surface meshes of
//! [`tessellate`] (not hulls: nonconvex and open meshes as they are); a static body
//! (the tessellated floor, a wall) enters only through pair terms. Robots are
//! refused at load time (`world.method`).
//!
//! Rotational inertia: the body frame's inertia tensor is diagonalized once
//! (I = P Λ Pᵀ), and the rotational potential uses the principal frame's
//! J = ½ diag(−I_x + I_y + I_z, …) with Q′ = Q P.

pub mod friction;
pub mod linesearch;
pub mod newton;
pub mod place;
pub mod tessellate;

use super::{CollideWorkspace, Stepper, Tick};
use crate::data::Data;
use crate::ipc::mesh::SurfaceMesh;
use crate::ipc::potential::{free_flow_omega, momentum_end_omega, Inertial};
use crate::math::{Mat3, Quat, Vec3};
use crate::model::{BodyKind, IpcParams, IpcRotation, Material, Model};
use nalgebra::{SymmetricEigen, UnitQuaternion};
use newton::{BodyBuf, Newton, Params};
use std::time::Instant;

/// One body as IPC sees it (immutable, from the model).
#[derive(Clone, Debug)]
pub struct IpcBody {
    pub body: usize,
    pub free: bool,
    /// Body-frame surface mesh (origin at the centre of mass).
    pub mesh: SurfaceMesh,
    /// Principal axes P (columns, det +1) and moments Λ of the inertia.
    pub principal: Mat3,
    pub moments: Vec3,
    /// The material of the body's first geom (a pair combines the two).
    pub material: Material,
}

/// The stepper.
pub struct IpcStepper<'a> {
    pub params: &'a IpcParams,
}

/// Working memory: the bodies' meshes and the solver's buffers.
#[derive(Clone, Debug)]
pub struct IpcWorkspace {
    pub bodies: Vec<IpcBody>,
    pub newton: Newton,
    /// The first tick's placement (`place::separate`).
    pub place: place::PlaceScratch,
}

impl IpcWorkspace {
    pub fn new(model: &Model) -> Self {
        let half = match model.opt.method {
            crate::model::Method::Ipc(p) => p.plane_half_width,
            _ => IpcParams::default().plane_half_width,
        };
        let mut bodies = Vec::new();
        let mut bufs = Vec::new();
        for (b, body) in model.bodies.iter().enumerate() {
            if body.is_link() {
                continue;
            }
            let mesh = tessellate::body_mesh(model, b, half);
            let free = body.kind == BodyKind::Free;
            let (principal, moments) = principal_axes(&body.inertia);
            let material = body
                .geoms
                .clone()
                .next()
                .map(|g| model.geoms[g].material)
                .unwrap_or_default();
            let nv = mesh.vertices.len();
            bufs.push(BodyBuf {
                xt: vec![Vec3::zeros(); nv],
                world: vec![Vec3::zeros(); nv],
                trial: vec![Vec3::zeros(); nv],
                ..Default::default()
            });
            bodies.push(IpcBody {
                body: b,
                free,
                mesh,
                principal,
                moments,
                material,
            });
        }
        let mut newton = Newton {
            bufs,
            ..Default::default()
        };
        newton.ccd.size(&newton.bufs);
        let place = place::PlaceScratch::new(bodies.len());
        IpcWorkspace {
            bodies,
            newton,
            place,
        }
    }
}

/// I = P Λ Pᵀ with det P = +1.
fn principal_axes(inertia: &Mat3) -> (Mat3, Vec3) {
    let e = SymmetricEigen::new(*inertia);
    let mut p = e.eigenvectors;
    if p.determinant() < 0.0 {
        p.set_column(2, &(-p.column(2)));
    }
    (p, e.eigenvalues.map(|v| v.max(0.0)))
}

impl Stepper for IpcStepper<'_> {
    type Workspace = IpcWorkspace;

    fn name(&self) -> &'static str {
        "ipc"
    }

    fn contacts_at_start(&self) -> bool {
        false
    }

    fn outline_ccd(&self) -> bool {
        false
    }

    fn advance(
        &self,
        tick: &Tick<'_>,
        data: &mut Data,
        _col: &mut CollideWorkspace,
        ws: &mut IpcWorkspace,
    ) {
        let t0 = Instant::now();
        let (model, h) = (tick.model, tick.h);
        data.contacts.clear();
        // A run's start state: pairs placed closer than d̂ (a box on the floor at its
        // half height) are moved apart to d̂ (place.rs). Later states are the
        // stepper's own and are never moved.
        if data.tick == 0 {
            place::separate(model, &mut data.state, ws, self.params.dhat);
        }
        let nw = &mut ws.newton;
        // Predict: start poses, pre-rotated vertices, inertial targets.
        let mut n = 0;
        for (k, ib) in ws.bodies.iter().enumerate() {
            let s = data.state[ib.body];
            let buf = &mut nw.bufs[k];
            let dynamic = ib.free && !data.frozen[ib.body] && model.bodies[ib.body].mass > 0.0;
            buf.dof = dynamic.then_some(n);
            if dynamic {
                n += 6;
            }
            buf.q0 = s.x;
            let rq = s.q.to_rotation_matrix().into_inner();
            for (o, v) in buf.xt.iter_mut().zip(&ib.mesh.vertices) {
                *o = rq * v;
            }
            // The reach of the body's surface from its centre of mass (a round
            // vertex's radius included: a lone sphere's is r, not 0).
            buf.radius = buf
                .xt
                .iter()
                .zip(&ib.mesh.radii)
                .map(|(v, &r)| v.norm() + r)
                .fold(0.0, f64::max);
            if dynamic {
                let body = &model.bodies[ib.body];
                let rot_now = rq * ib.principal;
                let w = &data.xfrc[ib.body];
                let force = model.opt.gravity * body.mass + w.force;
                let (mp, xs) = ((body.mass, &ib.moments), (&(s.x - s.v * h), &s.x));
                let inert = match self.params.rotation {
                    IpcRotation::ImplicitEuler => {
                        let rot_prev = rotation_of(&(-s.w * h)) * rot_now;
                        let rots = (&rot_prev, &rot_now);
                        Inertial::predict(mp, xs, rots, (&force, &w.torque), h)
                    }
                    IpcRotation::FreeFlow => {
                        let wb = free_flow_omega(&rot_now, &ib.moments, &s.w, h);
                        let rot_free = rotation_of(&(wb * h)) * rot_now;
                        let rots = (&rot_now, &rot_free);
                        Inertial::predict_free(mp, xs, rots, (&force, &w.torque), h)
                    }
                };
                buf.mass = body.mass;
                buf.delta = inert.q_tilde - s.x;
                buf.a = rot_now * Mat3::from_diagonal(&inert.j) * inert.rot_tilde.transpose();
            }
        }
        nw.size(n);
        let prm = Params {
            dhat2: self.params.dhat * self.params.dhat,
            h,
            tolerance: self.params.newton_tolerance,
            max_iterations: self.params.max_iterations,
            friction_passes: self.params.friction_iterations,
            eps_vh: self.params.friction_eps_v * h,
        };
        nw.count_once = self.params.count_once;
        let res = if n > 0 {
            nw.solve(&ws.bodies, &prm)
        } else {
            newton::Results::default()
        };
        // Update (eq. 8).
        for (k, ib) in ws.bodies.iter().enumerate() {
            let buf = &nw.bufs[k];
            if buf.dof.is_none() {
                continue;
            }
            let (th, dq) = newton::vars(buf, &nw.x);
            let s = &mut data.state[ib.body];
            s.x = buf.q0 + dq;
            s.v = dq / h;
            s.w = match self.params.rotation {
                IpcRotation::ImplicitEuler => th / h,
                IpcRotation::FreeFlow => {
                    // The prediction's ω̄ again (the same inputs as above).
                    let rot_now = s.q.to_rotation_matrix().into_inner() * ib.principal;
                    let wb = free_flow_omega(&rot_now, &ib.moments, &s.w, h);
                    momentum_end_omega(&rot_now, &ib.moments, &s.w, &wb, &th, h)
                }
            };
            s.q = UnitQuaternion::new_normalize((Quat::from_scaled_axis(th) * s.q).into_inner());
        }
        let st = &mut data.stats;
        st.solver_iterations = res.iterations;
        st.solver_failed = res.failed;
        if res.failed {
            st.solver_unconverged += 1;
        }
        st.ipc_line_search_cuts = res.cuts;
        st.ipc_min_distance = res.min_distance;
        st.ipc_ccd_queries = res.ccd_queries;
        st.ipc_ccd_ns = res.ccd_ns;
        st.ipc_kappa = res.kappa;
        st.solver_ns = t0.elapsed().as_nanos() as u64;
        st.contact_pairs = nw.ranges.len();
        st.contact_points = nw.plain;
        st.candidate_pairs = nw.ranges.len();
        super::lap(st, crate::data::Stage::Contact, t0);
    }
}

fn rotation_of(th: &Vec3) -> Mat3 {
    newton::rotation(th)
}
