//! The linearly implicit normal force of the penalty stepper under semi-implicit
//! Euler: the PID force of eq. (3) of 000 taken at the end of the step,
//!
//!   f_i = max{kp (d_i − h s_i⁺) − kv s_i⁺ + ki I, 0} / r,   s_i⁺ = J_i v⁺,
//!
//! (d_i the depth at the start of the step, s_i⁺ the separating normal velocity of
//! point i at the end of it), linearized in v⁺ and solved with the body velocities:
//!
//!   (M + h Σ c_i J_iᵀ J_i) δ = h Σ J_iᵀ (kv/r s_i − c_i s_i^ex),   c_i = (h kp + kv)/r,
//!
//! δ the correction to the explicit velocity update v^ex = v + h M⁻¹ F (F with the
//! explicit force kp d − kv s + ki I at every point) and s_i^ex = J_i v^ex. This is
//! (M + h D + h² K) Δv = h f for the contacts' spring K and damper D: backward Euler
//! in the contact force, unconditionally stable for any kp, kv and mass ratio, so the
//! gains need no explicit-stability clamp. Points whose end-of-step force would pull
//! (f_i < 0) are dropped (their force is then 0: −f_i^ex enters the right-hand side)
//! and the system re-solved, a few active-set passes.
//!
//! The system is symmetric positive definite; it is solved by conjugate gradients
//! preconditioned with M⁻¹, matrix-free (O(points + bodies) per iteration), in
//! buffers sized once (no allocation per tick after warm-up).

use crate::contact::impulse::ImpulseBody;
use crate::contact::PointForce;
use crate::data::BodyState;
use crate::math::{Mat3, Vec3, Wrench};
use crate::model::Model;

use super::integrator::Deriv;

/// What a row's force is limited by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    /// A normal force: f ≥ 0 (a point that would pull carries none).
    Push,
    /// One of the two tangential rows (this one and the next) of a sticking
    /// contact: ‖(f₁, f₂)‖ ≤ the given μ‖f_n‖; beyond it both are scaled onto the
    /// cone and held fixed.
    Cone(f64),
    /// The second row of a cone pair (limited with the first).
    ConeSecond,
}

/// One row of the implicit system: a force f = a − c s⁺ along unit `n` at world
/// point `p` on body a (body b takes −f), s⁺ = J v⁺ the end-of-step rate of
/// separation along n, limited by `limit`.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub a: usize,
    pub b: usize,
    pub p: Vec3,
    pub n: Vec3,
    /// The constant part of the force, N, and its rate coefficient, N·s/m.
    pub f0: f64,
    pub c: f64,
    /// The force already in the rates (the explicit estimate, or the last solve's).
    pub applied: f64,
    pub limit: Limit,
    /// Index of the manifold (for the reported manifold forces) and of the point in
    /// it (normal rows).
    pub manifold: u32,
    pub point: u32,
    /// The end-of-step force, N, after [`ImplicitContact::solve`].
    pub f: f64,
    // Filled by the solve.
    s_ex: f64,
    on: bool,
    fixed: f64,
}

impl Row {
    /// A normal row of eq. (3): f = (kp (d − h s⁺) − kv s⁺ + ki I)/r
    /// = f^ex + kv/r s − c s⁺ with f^ex = (kp d − kv s + ki I)/r the explicit
    /// force at the start-of-step rate s, c = (h kp + kv)/r.
    pub fn normal(
        (a, b): (usize, usize),
        (p, n): (Vec3, Vec3),
        (c, kv_r, s): (f64, f64, f64),
        pf: PointForce,
        manifold: usize,
    ) -> Row {
        Row {
            a,
            b,
            p,
            n,
            f0: pf.f_n + kv_r * s,
            c,
            applied: pf.f_n,
            limit: Limit::Push,
            manifold: manifold as u32,
            point: pf.point,
            f: pf.f_n,
            s_ex: 0.0,
            on: true,
            fixed: 0.0,
        }
    }

    /// A tangential row of a sticking contact (not yet in the rates).
    pub fn tangent(
        (a, b): (usize, usize),
        (p, t): (Vec3, Vec3),
        (f0, c): (f64, f64),
        limit: Limit,
        manifold: usize,
    ) -> Row {
        Row {
            a,
            b,
            p,
            n: t,
            f0,
            c,
            applied: 0.0,
            limit,
            manifold: manifold as u32,
            point: 0,
            f: 0.0,
            s_ex: 0.0,
            on: true,
            fixed: 0.0,
        }
    }
}

/// A 6-vector of one body: (linear, angular).
type Six = [Vec3; 2];
const ZERO6: Six = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.0, 0.0, 0.0)];

/// Buffers and statistics of the implicit solve.
#[derive(Clone, Debug, Default)]
pub struct ImplicitContact {
    pub rows: Vec<Row>,
    /// Whether a body is an unknown of the system (moves and carries a row).
    part: Vec<bool>,
    inertia_w: Vec<Mat3>,
    x: Vec<Six>,
    r: Vec<Six>,
    z: Vec<Six>,
    d: Vec<Six>,
    ad: Vec<Six>,
    /// CG iterations since the last reset (all solves and active-set passes).
    pub iterations: usize,
}

/// Velocity of body `b` at point p, in the 6-vector `u`.
#[inline]
fn point_rate(u: &Six, x: &Vec3, p: &Vec3) -> Vec3 {
    u[0] + u[1].cross(&(p - x))
}

#[inline]
fn dot6(a: &[Six], b: &[Six]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(a, b)| a[0].dot(&b[0]) + a[1].dot(&b[1]))
        .sum()
}

impl ImplicitContact {
    pub fn new(nbody: usize) -> Self {
        ImplicitContact {
            rows: Vec::new(),
            part: vec![false; nbody],
            inertia_w: vec![Mat3::zeros(); nbody],
            x: vec![ZERO6; nbody],
            r: vec![ZERO6; nbody],
            z: vec![ZERO6; nbody],
            d: vec![ZERO6; nbody],
            ad: vec![ZERO6; nbody],
            iterations: 0,
        }
    }

    /// J_i u: separating normal rate of row i under the body 6-vectors `u`.
    #[inline]
    fn j(&self, row: &Row, state: &[BodyState], u: &[Six]) -> f64 {
        let mut s = 0.0;
        if self.part[row.a] {
            s += row.n.dot(&point_rate(&u[row.a], &state[row.a].x, &row.p));
        }
        if self.part[row.b] {
            s -= row.n.dot(&point_rate(&u[row.b], &state[row.b].x, &row.p));
        }
        s
    }

    /// out += J_iᵀ λ.
    #[inline]
    fn jt(part: &[bool], row: &Row, state: &[BodyState], lambda: f64, out: &mut [Six]) {
        let f = row.n * lambda;
        if part[row.a] {
            out[row.a][0] += f;
            out[row.a][1] += (row.p - state[row.a].x).cross(&f);
        }
        if part[row.b] {
            out[row.b][0] -= f;
            out[row.b][1] -= (row.p - state[row.b].x).cross(&f);
        }
    }

    /// Corrects the rates `k` (which hold every row's `applied` force) to the rows'
    /// end-of-step forces, and the reported contact wrenches and manifold forces
    /// with them; each row's `applied` and `f` become that force. `bodies`: mass
    /// properties at `state`.
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        model: &Model,
        h: f64,
        state: &[BodyState],
        bodies: &[ImpulseBody],
        k: &mut [Deriv],
        wrench: &mut [Wrench],
        manifold_force: &mut [Vec3],
    ) {
        if self.rows.is_empty() {
            return;
        }
        let nb = state.len();
        self.part.iter_mut().for_each(|p| *p = false);
        for row in &self.rows {
            for b in [row.a, row.b] {
                if bodies[b].inv_mass > 0.0 && !model.bodies[b].is_link() {
                    self.part[b] = true;
                }
            }
        }
        for b in 0..nb {
            if self.part[b] {
                let rm = state[b].q.to_rotation_matrix();
                let rm = rm.matrix();
                self.inertia_w[b] = rm * model.bodies[b].inertia * rm.transpose();
            }
        }
        // Velocities after the update with the applied forces (scratch in r).
        for b in 0..nb {
            self.r[b] = if self.part[b] {
                [state[b].v + k[b].dv * h, state[b].w + k[b].dw * h]
            } else {
                [state[b].v, state[b].w]
            };
        }
        for i in 0..self.rows.len() {
            let row = self.rows[i];
            let rate = |u: &Six, b: usize| row.n.dot(&point_rate(u, &state[b].x, &row.p));
            self.rows[i].s_ex = rate(&self.r[row.a], row.a) - rate(&self.r[row.b], row.b);
            self.rows[i].on = true;
        }
        let max_iter = (12 * self.part.iter().filter(|&&p| p).count()).clamp(24, 600);
        for _pass in 0..6 {
            self.cg(state, bodies, h, max_iter);
            // End-of-step forces: drop pulling normal points, hold sticking
            // contacts beyond their cone on it.
            let mut changed = false;
            let mut i = 0;
            while i < self.rows.len() {
                let row = self.rows[i];
                let f = row.f0 - row.c * (row.s_ex + self.j(&row, state, &self.x));
                match row.limit {
                    Limit::Push => {
                        let on = f > 0.0;
                        changed |= on != row.on;
                        self.rows[i].on = on;
                        i += 1;
                    }
                    Limit::Cone(max) => {
                        let next = self.rows[i + 1];
                        let f2 = next.f0 - next.c * (next.s_ex + self.j(&next, state, &self.x));
                        let norm = f.hypot(f2);
                        if row.on && norm > max {
                            let scale = max / norm;
                            self.rows[i].on = false;
                            self.rows[i + 1].on = false;
                            self.rows[i].fixed = f * scale;
                            self.rows[i + 1].fixed = f2 * scale;
                            changed = true;
                        }
                        i += 2;
                    }
                    Limit::ConeSecond => i += 1,
                }
            }
            if !changed {
                break;
            }
        }
        // The corrected rates, wrenches and manifold forces.
        for b in 0..nb {
            if self.part[b] {
                k[b].dv += self.x[b][0] / h;
                k[b].dw += self.x[b][1] / h;
            }
        }
        for i in 0..self.rows.len() {
            let row = self.rows[i];
            let f = if row.on {
                let f = row.f0 - row.c * (row.s_ex + self.j(&row, state, &self.x));
                if row.limit == Limit::Push {
                    f.max(0.0)
                } else {
                    f
                }
            } else {
                row.fixed
            };
            let df = row.n * (f - row.applied);
            self.rows[i].f = f;
            self.rows[i].applied = f;
            wrench[row.a].add_force_at(df, row.p, state[row.a].x);
            wrench[row.b].add_force_at(-df, row.p, state[row.b].x);
            if let Some(mf) = manifold_force.get_mut(row.manifold as usize) {
                *mf += df;
            }
        }
    }

    /// Preconditioned conjugate gradients for (M + h Σ_on c_i J_iᵀ J_i) δ = b into
    /// `self.x`, b = h Σ_on J_iᵀ (a_i − c_i s_i^ex − applied_i)
    /// + h Σ_off J_iᵀ (fixed_i − applied_i).
    fn cg(&mut self, state: &[BodyState], bodies: &[ImpulseBody], h: f64, max_iter: usize) {
        let nb = state.len();
        self.x.iter_mut().for_each(|x| *x = ZERO6);
        self.r.iter_mut().for_each(|x| *x = ZERO6);
        for row in &self.rows {
            let lambda = if row.on {
                h * (row.f0 - row.c * row.s_ex - row.applied)
            } else {
                h * (row.fixed - row.applied)
            };
            Self::jt(&self.part, row, state, lambda, &mut self.r);
        }
        let precond = |b: usize, r: &Six| -> Six {
            [r[0] * bodies[b].inv_mass, bodies[b].inv_inertia_w * r[1]]
        };
        for b in 0..nb {
            self.z[b] = if self.part[b] {
                precond(b, &self.r[b])
            } else {
                ZERO6
            };
        }
        self.d.copy_from_slice(&self.z);
        let mut rz = dot6(&self.r, &self.z);
        let tol = rz * 1e-24;
        if rz <= 0.0 {
            return;
        }
        for _ in 0..max_iter {
            // ad = A d.
            for b in 0..nb {
                self.ad[b] = if self.part[b] {
                    let m = 1.0 / bodies[b].inv_mass;
                    [self.d[b][0] * m, self.inertia_w[b] * self.d[b][1]]
                } else {
                    ZERO6
                };
            }
            for i in 0..self.rows.len() {
                let row = self.rows[i];
                if row.on {
                    let jd = self.j(&row, state, &self.d);
                    Self::jt(&self.part, &row, state, h * row.c * jd, &mut self.ad);
                }
            }
            let dad = dot6(&self.d, &self.ad);
            if dad <= 0.0 || !dad.is_finite() {
                break;
            }
            let alpha = rz / dad;
            for b in 0..nb {
                for c in 0..2 {
                    self.x[b][c] += self.d[b][c] * alpha;
                    self.r[b][c] -= self.ad[b][c] * alpha;
                }
                self.z[b] = if self.part[b] {
                    precond(b, &self.r[b])
                } else {
                    ZERO6
                };
            }
            self.iterations += 1;
            let rz_new = dot6(&self.r, &self.z);
            if rz_new <= tol {
                break;
            }
            let beta = rz_new / rz;
            rz = rz_new;
            for b in 0..nb {
                for c in 0..2 {
                    self.d[b][c] = self.z[b][c] + self.d[b][c] * beta;
                }
            }
        }
    }
}
